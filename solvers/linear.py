"""Linear solver back ends.  The default is SciPy's SuperLU (COLAMD ordering).  SciPy
does not expose SuperLU's symbolic factorization for reuse, so each factorization is a
fresh one; what is reused is the assembled pattern and, under modified Newton, the
numeric factorization itself."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from mbdae.solvers.klu import KLUFactorization, KLUError, load_klu


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

    def solve(self, b, transpose=False):
        return self.lu.solve(b, trans="T") if transpose else self.lu.solve(b)


class SuiteSparseSolver:
    """KLU or UMFPACK through kvxopt (optional extra `mbdae[klu]`).  The symbolic analysis is
    done once per sparsity pattern and reused: each factorization after the first is numeric
    only, with the new values written into the same sparse matrix."""

    def __init__(self, kind="klu"):
        try:
            import kvxopt
            from kvxopt import klu, umfpack
        except ImportError:
            raise ValueError(f"linear solver '{kind}' needs kvxopt: pip install 'mbdae[klu]'") from None
        self.kvx = kvxopt
        self.mod = klu if kind == "klu" else umfpack
        self.name = kind
        self.pattern = None
        self.factorizations = 0
        self.symbolic_analyses = 0

    def factor(self, A):
        kvx = self.kvx
        same = (self.pattern is not None and len(self.pattern[0]) == len(A.indices)
                and np.array_equal(self.pattern[1], A.indptr) and np.array_equal(self.pattern[0], A.indices))
        if not same:
            cols = np.repeat(np.arange(A.shape[1], dtype=np.int64), np.diff(A.indptr))
            self.K = kvx.spmatrix(A.data, A.indices.astype(np.int64), cols, A.shape)
            self.symbolic = self.mod.symbolic(self.K)
            self.pattern = (A.indices.copy(), A.indptr.copy())
            self.symbolic_analyses += 1
        else:
            self.K.V = kvx.matrix(A.data)
        try:
            self.numeric = self.mod.numeric(self.K, self.symbolic)
        except ArithmeticError as err:
            raise SingularMatrix(str(err)) from None
        self.factorizations += 1

    def solve(self, b, transpose=False):
        x = self.kvx.matrix(np.ascontiguousarray(b, dtype=float))
        trans = "T" if transpose else "N"
        if self.name == "klu":
            self.mod.solve(self.K, self.symbolic, self.numeric, x, trans=trans)
        else:
            self.mod.solve(self.K, self.numeric, x, trans=trans)
        return np.array(x).ravel()


class KLUSolver:
    """KLU (SuiteSparse) with the symbolic analysis kept while the pattern is fixed and
    numeric refactorization (same pivot order) between full factorizations; see
    solvers/klu.py for where the library comes from."""
    name = "klu"

    def __init__(self):
        self.klu = KLUFactorization()

    @property
    def factorizations(self):
        return self.klu.full_factorizations + self.klu.refactorizations

    @property
    def symbolic_analyses(self):
        return self.klu.analyses

    def factor(self, A):
        try:
            self.klu.factor(A.indptr, A.indices, A.data)
        except KLUError as err:
            raise SingularMatrix(str(err)) from None

    def solve(self, b, transpose=False):
        return self.klu.solve(b, transpose)

    def forget_pivots(self):
        self.klu.forget_pivots()


def available_linear_solvers():
    names = ["superlu"]
    if load_klu() is not None:
        names.append("klu")
    try:
        import kvxopt  # noqa: F401
        names += ["umfpack"]
    except ImportError:
        pass
    return names


def make_linear_solver(name="superlu"):
    """`superlu` (SciPy, default), `klu` or `umfpack` (kvxopt).  MBDyn's `naive` maps to
    SuperLU."""
    name = (name or "superlu").lower()
    if name in ("superlu", "naive", "default"):
        return SuperLUSolver()
    if name == "klu":
        try:
            return KLUSolver()
        except ImportError as err:
            raise ValueError(f"linear solver 'klu' is not available: {err}") from None
    if name in ("umfpack", "kvxopt-klu"):
        return SuiteSparseSolver(name.replace("kvxopt-", ""))
    raise ValueError(f"linear solver '{name}' is not available (available: "
                     f"{', '.join(available_linear_solvers())})")


class ReusingSolver:
    """A linear back end that factorizes a matrix only when it differs from the last one it
    factorized (same pattern, values equal to rounding), and solves with it or with its
    transpose: the inverse-dynamics subproblems share one matrix or its transpose (manual
    §6.3).  `reuse=False` factorizes every matrix."""

    def __init__(self, backend, reuse=True):
        self.backend = backend
        self.reuse = reuse
        self.A = None
        self.factorizations = 0
        self.reused = 0
        self.solves = 0

    def factor(self, A):
        A = sp.csc_matrix(A)
        A.sort_indices()
        if self.reuse and self.A is not None and same_matrix(self.A, A):
            self.reused += 1
            return
        self.A = None
        self.backend.factor(A)
        self.A = A
        self.factorizations += 1

    def solve(self, b, transpose=False):
        self.solves += 1
        return self.backend.solve(np.asarray(b, float), transpose)

    def forget_pivots(self):
        self.A = None
        if hasattr(self.backend, "forget_pivots"):
            self.backend.forget_pivots()


def same_matrix(A, B, rtol=1e-13):
    """Same pattern and values equal to rounding (relative to the largest entry)."""
    if not (A.shape == B.shape and A.nnz == B.nnz and np.array_equal(A.indptr, B.indptr)
            and np.array_equal(A.indices, B.indices)):
        return False
    scale = np.abs(A.data).max(initial=0.0)
    return bool(np.all(np.abs(A.data - B.data) <= rtol * scale))
