"""Linear solver back ends.  The default is SciPy's SuperLU (COLAMD ordering).  SciPy
does not expose SuperLU's symbolic factorization for reuse, so each factorization is a
fresh one; what is reused is the assembled pattern and, under modified Newton, the
numeric factorization itself."""
import numpy as np
import scipy.sparse.linalg as spla


class SingularMatrix(RuntimeError):
    pass


class SuperLUSolver:
    """SuperLU with COLAMD column ordering.  `pivot_factor` is SuperLU's diagonal pivot
    threshold (MBDyn's `pivot factor`): 1 is classic partial pivoting, smaller values keep
    the diagonal pivot when it is within that fraction of the column's largest entry,
    which preserves the ordering's sparsity and is faster on these saddle-point matrices."""
    name = "superlu"

    def __init__(self, permc_spec="COLAMD", pivot_factor=0.1, symmetric_mode=True):
        self.permc_spec = permc_spec
        self.pivot_factor = pivot_factor
        self.symmetric_mode = symmetric_mode
        self.lu = None
        self.factorizations = 0

    def factor(self, A):
        try:
            self.lu = spla.splu(A, permc_spec=self.permc_spec, diag_pivot_thresh=self.pivot_factor,
                                options={"SymmetricMode": self.symmetric_mode})
        except RuntimeError as err:   # "Factor is exactly singular"
            raise SingularMatrix(str(err)) from None
        self.factorizations += 1

    def solve(self, b):
        return self.lu.solve(b)


def make_linear_solver(name="superlu"):
    name = (name or "superlu").lower()
    if name in ("superlu", "naive", "umfpack", "klu", "default"):
        # UMFPACK/KLU decks run on SuperLU until those back ends are added (said in the log)
        return SuperLUSolver()
    raise ValueError(f"linear solver '{name}' is not available (available: superlu)")
