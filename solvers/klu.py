"""SuiteSparse KLU through ctypes, with numeric refactorization.

KLU's `klu_refactor` reuses the pivot sequence of the last full factorization and only
recomputes the values, which is what a Newton loop on a fixed sparsity pattern wants; the
Python bindings on PyPI (kvxopt) expose only the full factorization.  This module binds the
handful of KLU entry points mbdae needs (`klu_l_defaults`, `klu_l_analyze`,
`klu_l_factor`, `klu_l_refactor`, `klu_l_rcond`, `klu_l_solve`, `klu_l_free_*`) from

1. the system's libklu (Debian: `apt-get install libklu1`, or `libsuitesparse-dev`), or
2. the copy of libklu that the `kvxopt` wheel ships (the `klu` extra: `pip install mbdae[klu]`).

The refactorization is accepted while its reciprocal pivot growth estimate (KLU's `rcond`,
min |u_kk| / max |u_kk|) stays within `refactor_rcond_drop` of the value at the last full
factorization; otherwise a full factorization with fresh partial pivoting is done."""
import ctypes
import ctypes.util
import glob
import math
import os

import numpy as np

_long = ctypes.c_int64
_ptr = ctypes.c_void_p


class KLUCommon(ctypes.Structure):
    """`klu_l_common` of KLU 1.x/2.x (SuiteSparse 5 to 7): the control and status block."""
    _fields_ = [("tol", ctypes.c_double), ("memgrow", ctypes.c_double),
                ("initmem_amd", ctypes.c_double), ("initmem", ctypes.c_double),
                ("maxwork", ctypes.c_double),
                ("btf", _long), ("ordering", _long), ("scale", _long),
                ("user_order", _ptr), ("user_data", _ptr),
                ("halt_if_singular", _long),
                ("status", _long), ("nrealloc", _long), ("structural_rank", _long),
                ("numerical_rank", _long), ("singular_col", _long), ("noffdiag", _long),
                ("flops", ctypes.c_double), ("rcond", ctypes.c_double),
                ("condest", ctypes.c_double), ("rgrowth", ctypes.c_double),
                ("work", ctypes.c_double),
                ("memusage", ctypes.c_size_t), ("mempeak", ctypes.c_size_t)]


KLU_OK, KLU_SINGULAR = 0, 1

_LIB = None


def _candidate_paths():
    # the usual sonames first: dlopen finds them without ctypes.util.find_library, which
    # runs `ldconfig -p` (tens of milliseconds at every start-up)
    yield from ("libklu.so.2", "libklu.so.1", "libklu.so", "libklu.dylib")
    name = ctypes.util.find_library("klu")
    if name:
        yield name
    try:
        import kvxopt
        libs = os.path.join(os.path.dirname(os.path.dirname(kvxopt.__file__)), "kvxopt.libs")
        yield from sorted(glob.glob(os.path.join(libs, "libklu*.so*")))
    except ImportError:
        pass


def load_klu():
    """The KLU shared library with argument types set, or None when none is found."""
    global _LIB
    if _LIB is not None:
        return _LIB or None
    for path in _candidate_paths():
        try:
            lib = ctypes.CDLL(path)
            lib.klu_l_refactor      # noqa: B018 - the entry point must exist
        except (OSError, AttributeError):
            continue
        ints = np.ctypeslib.ndpointer(np.int64, flags="C_CONTIGUOUS")
        common = ctypes.POINTER(KLUCommon)
        lib.klu_l_defaults.argtypes = [common]
        lib.klu_l_analyze.argtypes = [_long, ints, ints, common]
        lib.klu_l_analyze.restype = _ptr
        # the entry points called at every Newton iteration take plain addresses (the
        # arrays' data pointers, kept alive by the caller): ndpointer's checks cost more
        # than a small refactorization
        lib.klu_l_factor.argtypes = [_ptr, _ptr, _ptr, _ptr, _ptr]
        lib.klu_l_factor.restype = _ptr
        lib.klu_l_refactor.argtypes = [_ptr, _ptr, _ptr, _ptr, _ptr, _ptr]
        lib.klu_l_refactor.restype = _long
        lib.klu_l_rcond.argtypes = [_ptr, _ptr, _ptr]
        lib.klu_l_rcond.restype = _long
        lib.klu_l_solve.argtypes = [_ptr, _ptr, _long, _long, _ptr, _ptr]
        lib.klu_l_solve.restype = _long
        lib.klu_l_tsolve.argtypes = [_ptr, _ptr, _long, _long, _ptr, _ptr]
        lib.klu_l_tsolve.restype = _long
        lib.klu_l_free_symbolic.argtypes = [ctypes.POINTER(_ptr), common]
        lib.klu_l_free_numeric.argtypes = [ctypes.POINTER(_ptr), common]
        lib.path = path
        _LIB = lib
        return lib
    _LIB = False
    return None


class KLUError(RuntimeError):
    pass


class KLUFactorization:
    """KLU factorization of square CSC matrices sharing one sparsity pattern.

    `factor(indptr, indices, data)` analyses the pattern on first use (and again whenever
    it changes), then refactors numerically; `solve(b)` returns x with A x = b."""

    def __init__(self, refactor_rcond_drop=1e-3):
        lib = load_klu()
        if lib is None:
            raise ImportError("no KLU library found: apt-get install libklu1 (or libsuitesparse-dev), "
                              "or pip install 'mbdae[klu]'")
        self.lib = lib
        self.common = KLUCommon()
        lib.klu_l_defaults(ctypes.byref(self.common))
        self._common = ctypes.addressof(self.common)
        self.symbolic = _ptr()
        self.numeric = _ptr()
        self.pattern = None
        self.refactor_rcond_drop = refactor_rcond_drop
        self.rcond_full = None
        self.analyses = 0
        self.full_factorizations = 0
        self.refactorizations = 0

    def _free(self):
        c = ctypes.byref(self.common)
        if self.numeric:
            self.lib.klu_l_free_numeric(ctypes.byref(self.numeric), c)
        if self.symbolic:
            self.lib.klu_l_free_symbolic(ctypes.byref(self.symbolic), c)

    def __del__(self):
        try:
            self._free()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _full(self, data):
        lib, c = self.lib, ctypes.byref(self.common)
        if self.numeric:
            lib.klu_l_free_numeric(ctypes.byref(self.numeric), c)
        self.numeric = _ptr(lib.klu_l_factor(self._Ap, self._Ai, data.ctypes.data, self.symbolic, self._common))
        if not self.numeric or self.common.status != KLU_OK:
            status = self.common.status
            if self.numeric:
                lib.klu_l_free_numeric(ctypes.byref(self.numeric), c)
            raise KLUError("matrix is singular" if status == KLU_SINGULAR else f"KLU factor status {status}")
        lib.klu_l_rcond(self.symbolic, self.numeric, self._common)
        self.rcond_full = self.common.rcond
        self.full_factorizations += 1

    def factor(self, indptr, indices, data):
        lib, c = self.lib, ctypes.byref(self.common)
        data = np.ascontiguousarray(data, dtype=np.float64)
        if (self.pattern is None or len(indices) != len(self.pattern[1])
                or not (indptr is self.pattern[0] or np.array_equal(indptr, self.pattern[0]))
                or not (indices is self.pattern[1] or np.array_equal(indices, self.pattern[1]))):
            self._free()
            self.numeric = _ptr()
            self.pattern = (indptr, indices)
            self.n = len(indptr) - 1
            self.Ap = np.ascontiguousarray(indptr, dtype=np.int64)
            self.Ai = np.ascontiguousarray(indices, dtype=np.int64)
            self._Ap, self._Ai = self.Ap.ctypes.data, self.Ai.ctypes.data
            self.symbolic = _ptr(lib.klu_l_analyze(self.n, self.Ap, self.Ai, c))
            if not self.symbolic:
                raise KLUError(f"KLU analysis failed (status {self.common.status})")
            self.analyses += 1
            self._full(data)
            return
        if not self.numeric:
            self._full(data)
            return
        ok = lib.klu_l_refactor(self._Ap, self._Ai, data.ctypes.data, self.symbolic, self.numeric, self._common)
        if ok:
            lib.klu_l_rcond(self.symbolic, self.numeric, self._common)
        if (not ok or self.common.status != KLU_OK or not math.isfinite(self.common.rcond)
                or self.common.rcond < self.refactor_rcond_drop * self.rcond_full):
            self._full(data)        # the old pivot order has become poor: pivot afresh
        else:
            self.refactorizations += 1

    def forget_pivots(self):
        """Make the next factorization a full one (fresh partial pivoting), e.g. after Newton
        failed with the current pivot order."""
        if self.numeric:
            self.lib.klu_l_free_numeric(ctypes.byref(self.numeric), ctypes.byref(self.common))
        self.numeric = _ptr()

    def solve(self, b, transpose=False):
        """x with A x = b (Aᵀ x = b when `transpose`)."""
        x = np.array(b, dtype=np.float64, order="C")
        entry = self.lib.klu_l_tsolve if transpose else self.lib.klu_l_solve
        entry(self.symbolic, self.numeric, self.n, 1, x.ctypes.data, self._common)
        return x
