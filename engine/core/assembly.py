"""DOF layout and vectorized sparse assembly (manual ch. 3 and 5).

Every family (nodes and element families) declares, once, the global row indices of its
residual contributions and the (row, col) pattern of its Jacobian blocks as arrays with a
batch axis over its instances.  At each evaluation it returns the values in the same
shape; the System scatters them into a fixed CSC pattern with one np.bincount.
Alongside Σ f_e the System accumulates Σ |f_e| per row, which relnorm and sepnorm need.
"""
from dataclasses import dataclass, field
import numpy as np
import scipy.sparse as sp

DIFFERENTIAL = 0
ALGEBRAIC = 1

# physical-dimension groups of equation rows (sepnorm, manual §3.6)
DIMENSIONS = ("force", "moment", "momentum", "angular momentum", "position constraint",
              "rotation constraint", "velocity constraint", "angular velocity constraint",
              "other")
DIM = {name: i for i, name in enumerate(DIMENSIONS)}


@dataclass
class DofBlock:
    """A contiguous range of unknowns (and the equations with the same indices) owned by one family."""
    owner: object
    start: int
    count: int
    kind: np.ndarray          # DIFFERENTIAL / ALGEBRAIC per unknown
    dim: np.ndarray           # dimension group per equation row
    labels: np.ndarray        # element/node label per row
    what: list = field(default_factory=list)  # short text per row (e.g. "force y")


class Pattern:
    """Fixed index arrays of a family: residual row sets and Jacobian blocks.

    A residual set is an int array R of any shape; its values come back in the same shape.
    A Jacobian block is (rows[..., m], cols[..., k]) → values [..., m, k].  Entries where
    the optional boolean `valid` mask (broadcast to [..., m, k] or [..., m]) is False, or
    whose row or column is -1, are sent to a discard slot by the System's scatter map, so
    values are passed through whole (no per-block gathering in the hot path).
    """

    def __init__(self):
        self.res = []
        self.jac = []

    def add_res(self, rows, valid=None):
        rows = np.array(rows, dtype=np.int64)
        if valid is not None:
            rows = np.where(np.broadcast_to(valid, rows.shape), rows, -1)
        self.res.append(rows)
        return len(self.res) - 1

    def add_jac(self, rows, cols, valid=None):
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        R = np.broadcast_to(rows[..., :, None], rows.shape + (cols.shape[-1],))
        C = np.broadcast_to(cols[..., None, :], rows.shape[:-1] + (rows.shape[-1], cols.shape[-1]))
        keep = (R >= 0) & (C >= 0)
        if valid is not None:
            keep = keep & np.broadcast_to(valid, keep.shape)
        self.jac.append((np.where(keep, R, -1), np.where(keep, C, -1)))
        return len(self.jac) - 1

    def res_indices(self):
        if not self.res:
            return np.zeros(0, np.int64)
        return np.concatenate([r.ravel() for r in self.res])

    def jac_indices(self):
        if not self.jac:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return (np.concatenate([R.ravel() for R, C in self.jac]),
                np.concatenate([C.ravel() for R, C in self.jac]))


class SparseAssembler:
    """Fixed CSC pattern with a precomputed scatter map (one bincount per assembly)."""

    def __init__(self, n, rows, cols):
        self.n = n
        valid = (rows >= 0) & (cols >= 0)
        key = cols[valid].astype(np.int64) * n + rows[valid].astype(np.int64)
        # make sure every diagonal entry exists (pivoting robustness, explicit zeros are fine)
        diag = np.arange(n, dtype=np.int64) * n + np.arange(n, dtype=np.int64)
        uniq, inv = np.unique(np.concatenate([key, diag]), return_inverse=True)
        self.nnz = len(uniq)
        self.map = np.full(len(rows), self.nnz, np.int64)       # discarded entries → extra slot
        self.map[valid] = inv[:len(key)]
        self.indices = (uniq % n).astype(np.int32)
        colidx = uniq // n
        self.indptr = np.searchsorted(colidx, np.arange(n + 1)).astype(np.int32)
        self._template = sp.csc_matrix((np.zeros(self.nnz), self.indices, self.indptr), shape=(n, n))
        self._template.has_sorted_indices = True

    def matrix(self, values):
        data = np.bincount(self.map, weights=values, minlength=self.nnz + 1)[:self.nnz]
        return self.matrix_from_data(data)

    def matrix_from_data(self, data):
        """A new CSC matrix of the pattern with the values `data` (nnz,): a shallow copy of a
        template that shares the pattern's index arrays (SciPy's constructor checks the
        format, which costs more than assembling a small system)."""
        A = object.__new__(sp.csc_matrix)
        A.__dict__.update(self._template.__dict__)
        A.data = data
        return A


def kernel_jacobian_views(family, jac_views):
    """(views, want_jac) for a family kernel, which takes its Jacobian blocks as arrays even
    when none is wanted: the System's views, or else scratch arrays of the pattern's shapes
    (allocated once per family; their values are never read)."""
    if jac_views is not None:
        return jac_views, True
    scratch = family.__dict__.get("_scratch_jacobian")
    if scratch is None:
        scratch = family._scratch_jacobian = [np.zeros(R.shape) for R, C in family.pattern.jac]
    return scratch, False
