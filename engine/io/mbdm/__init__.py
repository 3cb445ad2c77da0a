"""MBDM's input files (reader.py), their mbdae model and run (build.py) and MBDM's output
files (output.py); spec/seed-systems-digest.md §1.5."""
