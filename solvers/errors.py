"""Errors of the linear back ends, shared by solvers/linear.py and solvers/petsc.py."""


class SingularMatrix(RuntimeError):
    """The iteration matrix could not be factorized or a solve with it failed."""
