"""Constitutive laws (manual §7.1): F = F(ε, ε̇, t) with ∂F/∂ε and ∂F/∂ε̇.

The 1-D laws used by the rod are linear, so a family stores their coefficients as
arrays: F = E (ε - ε0(t)) + η ε̇.  Prestrain ε0 may be a drive."""
from dataclasses import dataclass
import numpy as np

from .drives import ConstDrive, DriveArray


@dataclass
class LinearElastic1D:
    """`linear elastic, E [, prestrain, <drive>]`: F = E (ε - ε0)."""
    stiffness: float
    prestrain: object = None

    viscosity = 0.0


@dataclass
class LinearViscous1D:
    """`linear viscous, η`: F = η ε̇."""
    viscosity: float

    stiffness = 0.0
    prestrain = None


@dataclass
class LinearViscoelastic1D:
    """`linear viscoelastic, E, η [, prestrain, <drive>]`: F = E (ε - ε0) + η ε̇."""
    stiffness: float
    viscosity: float
    prestrain: object = None


class LinearLaws1D:
    """Vectorized evaluation of a list of linear 1-D laws."""

    def __init__(self, laws):
        self.E = np.array([l.stiffness for l in laws], float)
        self.eta = np.array([l.viscosity for l in laws], float)
        pre = [l.prestrain if l.prestrain is not None else ConstDrive(0.0) for l in laws]
        pre = [p if hasattr(p, "value") else ConstDrive(float(p)) for p in pre]
        self.prestrain = DriveArray(pre)

    def evaluate(self, eps, epsdot, t):
        """Return (F, ∂F/∂ε, ∂F/∂ε̇)."""
        F = self.E * (eps - self.prestrain.values(t)) + self.eta * epsdot
        return F, self.E, self.eta


@dataclass
class LinearLaw3D:
    """3-D linear (visco)elastic law F = K (ε - ε0) + C ε̇ with 3×3 stiffness K and viscosity C
    (a scalar means isotropic, a 3-vector a diagonal matrix); MBDyn's `linear elastic`,
    `linear elastic generic`, `linear viscous (generic)` and `linear viscoelastic (generic)`.
    The prestrain ε0 is imposed by the element (its drive)."""
    stiffness: object = 0.0
    viscosity: object = 0.0

    @staticmethod
    def _matrix(v):
        v = np.asarray(v, float)
        if v.ndim == 0:
            return float(v) * np.eye(3)
        if v.shape == (3,):
            return np.diag(v)
        return v.reshape(3, 3)

    @property
    def K(self):
        return self._matrix(self.stiffness)

    @property
    def C(self):
        return self._matrix(self.viscosity)

    @property
    def viscous(self):
        return bool(np.any(self.C))
