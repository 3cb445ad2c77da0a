"""Template drive callers for vectors (MBDyn TplDriveCaller<Vec3>): a vector value is a sum
of constant vectors times scalar drives, v(t) = Σ_j a_j d_j(t).  `single` is one term,
`component` three terms along the axes, `null` no term.  VectorDriveArray evaluates many
of them with one DriveArray and one matrix product (no per-element Python loop)."""
import numpy as np
import scipy.sparse as sp

from mbdae.engine.core.drives import DriveArray, ConstDrive


class VectorDrive:
    def __init__(self, terms=()):
        self.terms = [(np.asarray(a, float).reshape(3), d) for a, d in terms]

    @classmethod
    def single(cls, vector, drive):
        return cls([(vector, drive)])

    @classmethod
    def component(cls, drives):
        return cls([(np.eye(3)[k], d) for k, d in enumerate(drives) if d is not None])

    @classmethod
    def constant(cls, vector):
        return cls([(vector, ConstDrive(1.0))])

    @classmethod
    def null(cls):
        return cls([])

    @property
    def is_null(self):
        return not self.terms

    def value(self, t):
        return sum((a * float(d.value(t)) for a, d in self.terms), np.zeros(3))

    def derivative(self, t):
        return sum((a * float(d.derivative(t)) for a, d in self.terms), np.zeros(3))

    def second_derivative(self, t):
        return sum((a * float(d.second_derivative(t)) for a, d in self.terms), np.zeros(3))


class VectorDriveArray:
    """Evaluate a list of VectorDrive (or None = null) as an (n, 3) array."""

    def __init__(self, vdrives):
        rows, cols, vals, drives = [], [], [], []
        for i, vd in enumerate(vdrives):
            if vd is None:
                continue
            for a, d in vd.terms:
                j = len(drives)
                drives.append(d)
                for k in range(3):
                    if a[k] != 0.0:
                        rows.append(3 * i + k)
                        cols.append(j)
                        vals.append(a[k])
        self.n = len(vdrives)
        self.empty = not drives
        self._cache = {}
        self._zeros = None
        if not self.empty:
            self.array = DriveArray(drives)
            self.M = sp.csr_matrix((vals, (rows, cols)), shape=(3 * self.n, len(drives)))

    def _eval(self, t, order):
        """(n, 3) read-only values of derivative `order` at t.  The product with the drive
        values is redone only when the DriveArray returns a new values array (it keeps its
        values for the last t, until its cache is cleared for drives that read the state)."""
        if self.empty:
            if self._zeros is None:
                self._zeros = np.zeros((self.n, 3))
                self._zeros.flags.writeable = False
            return self._zeros
        f = (self.array.values, self.array.derivatives, self.array.second_derivatives)[order](t)
        cached = self._cache.get(order)
        if cached is not None and cached[0] is f:
            return cached[1]
        out = (self.M @ f).reshape(self.n, 3)
        out.flags.writeable = False
        self._cache[order] = (f, out)
        return out

    def values(self, t):
        return self._eval(t, 0)

    def derivatives(self, t):
        return self._eval(t, 1)

    def second_derivatives(self, t):
        return self._eval(t, 2)
