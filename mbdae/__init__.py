"""mbdae: an MBDyn-style implicit DAE multibody engine."""
