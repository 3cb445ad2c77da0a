"""Constitutive laws (manual §7.1): F = F(ε, ε̇, t) with ∂F/∂ε and ∂F/∂ε̇.

One law class, `Law`, of dimension 1, 3 or 6, evaluated for all instances of a family at
once by `Laws` (`ScalarLaws` for the 1-D families: rods, spring supports).  The small
dataclasses below (LinearElastic1D, ..., LinearLaw3D) are conveniences of the Python API;
`as_law` turns them into a Law."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core.drives import ConstDrive, DriveArray
from mbdae.engine.core.compiled import kernel


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


# ---------------------------------------------------------------------------------------------
# Generic n-D laws (1-D, 3-D, 6-D), vectorized over element instances (manual §7.1; input
# manual §2.10).  One description class covers the linear elastic (isotropic, generic), linear
# viscous, linear viscoelastic (generic, proportional) laws, their drive-scaled variants
# (`linear time variant viscoelastic generic`, `drive caller wrapper`) and the nonlinear
# `cubic elastic generic` law:
#
#     e = ε - ε0(t)
#     f = w(t) [ sK(t) (K e + k2 ⊙ |e| ⊙ e + k3 ⊙ e³) + sC(t) C ε̇ + σ0 ]
#
# with ∂f/∂ε = w sK (K + diag(2 k2 |e| + 3 k3 e²)) and ∂f/∂ε̇ = w sC C.
# ---------------------------------------------------------------------------------------------
import scipy.sparse as _sp


class TemplateDrive:
    """Vector-valued template drive of any dimension: v(t) = Σ_j a_j d_j(t)."""

    def __init__(self, dim, terms=()):
        self.dim = int(dim)
        self.terms = [(np.asarray(a, float).reshape(self.dim), d) for a, d in terms]

    @classmethod
    def constant(cls, vector):
        v = np.asarray(vector, float).ravel()
        return cls(len(v), [(v, ConstDrive(1.0))])

    @classmethod
    def of(cls, value, dim):
        """A TemplateDrive from None, a constant vector, a VectorDrive or a TemplateDrive."""
        if value is None:
            return cls(dim)
        if isinstance(value, TemplateDrive):
            if value.dim != dim:
                raise ValueError(f"template drive of dimension {value.dim}, {dim} required")
            return value
        if hasattr(value, "terms"):                       # tpldrive.VectorDrive
            if dim != 3:
                raise ValueError(f"a 3-vector drive was given where a {dim}-vector is required")
            return cls(3, value.terms)
        v = np.asarray(value, float).ravel()
        if v.size == 1:
            v = np.full(dim, float(v[0]))
        if v.size != dim:
            raise ValueError(f"a {v.size}-vector was given where a {dim}-vector is required")
        return cls.constant(v)

    def value(self, t):
        return sum((a * float(d.value(t)) for a, d in self.terms), np.zeros(self.dim))


class TemplateDriveArray:
    """Many TemplateDrive of one dimension evaluated as an (n, dim) array (one DriveArray)."""

    def __init__(self, tdrives, dim):
        rows, cols, vals, drives = [], [], [], []
        for i, td in enumerate(tdrives):
            for a, d in td.terms:
                j = len(drives)
                drives.append(d)
                for k in range(dim):
                    if a[k] != 0.0:
                        rows.append(dim * i + k)
                        cols.append(j)
                        vals.append(a[k])
        self.n, self.dim = len(tdrives), dim
        self.empty = not drives
        if not self.empty:
            self.array = DriveArray(drives)
            self.M = _sp.csr_matrix((vals, (rows, cols)), shape=(dim * self.n, len(drives)))

    def values(self, t):
        if self.empty:
            return np.zeros((self.n, self.dim))
        return (self.M @ self.array.values(t)).reshape(self.n, self.dim)


def _square(value, dim, what):
    """A dim×dim matrix from a scalar (isotropic), a dim-vector (diagonal) or a matrix."""
    v = np.asarray(value, float)
    if v.ndim == 0 or v.size == 1:
        return float(v.ravel()[0]) * np.eye(dim)
    if v.shape == (dim,):
        return np.diag(v)
    if v.size == dim * dim:
        return v.reshape(dim, dim).copy()
    raise ValueError(f"{what}: expected a scalar, a {dim}-vector or a {dim}x{dim} matrix, got shape {v.shape}")


def _diag_vector(value, dim, what):
    v = np.asarray(value, float).ravel()
    if v.size == 1:
        return np.full(dim, float(v[0]))
    if v.size != dim:
        raise ValueError(f"{what}: expected a scalar or a {dim}-vector, got {v.size} values")
    return v.copy()


class Law:
    """An n-D constitutive law (see the formula above).  Build it with the functions below
    (linear_elastic, linear_viscous, linear_viscoelastic, cubic_elastic, beam_section ...)."""

    def __init__(self, dim, stiffness=0.0, viscosity=0.0, cubic2=0.0, cubic3=0.0, prestrain=None,
                 prestress=None, stiffness_scale=None, viscosity_scale=None, scale=None, name="law"):
        if dim not in (1, 3, 6):
            raise ValueError(f"{name}: dimension must be 1, 3 or 6, not {dim}")
        self.dim = dim
        self.name = name
        self.K = _square(stiffness, dim, f"{name} stiffness")
        self.C = _square(viscosity, dim, f"{name} viscosity")
        self.k2 = _diag_vector(cubic2, dim, f"{name} quadratic coefficient")
        self.k3 = _diag_vector(cubic3, dim, f"{name} cubic coefficient")
        self.prestrain = TemplateDrive.of(prestrain, dim)
        self.prestress = np.zeros(dim) if prestress is None else _diag_vector(prestress, dim, f"{name} prestress")
        self.stiffness_scale = _as_drive(stiffness_scale)
        self.viscosity_scale = _as_drive(viscosity_scale)
        self.scale = _as_drive(scale)
        for what, M in (("stiffness", self.K), ("viscosity", self.C)):
            if not np.all(np.isfinite(M)):
                raise ValueError(f"{name}: non-finite {what}")

    @property
    def viscous(self):
        return bool(np.any(self.C))

    @property
    def elastic(self):
        return bool(np.any(self.K) or np.any(self.k2) or np.any(self.k3))

    @property
    def nonlinear(self):
        return bool(np.any(self.k2) or np.any(self.k3))

    def evaluate(self, eps, epsdot, t):
        """Single-instance evaluation: (f, ∂f/∂ε, ∂f/∂ε̇)."""
        f, A, B = Laws([self]).evaluate(np.reshape(eps, (1, self.dim)), np.reshape(epsdot, (1, self.dim)), t)
        return f[0], A[0], B[0]


def _as_drive(d):
    if d is None:
        return None
    return d if hasattr(d, "value") else ConstDrive(float(d))


def linear_elastic(dim, stiffness, prestrain=None, prestress=None):
    """`linear elastic [isotropic], k` / `linear elastic generic, K`: f = K (ε - ε0) + σ0."""
    return Law(dim, stiffness, prestrain=prestrain, prestress=prestress, name="linear elastic")


def linear_viscous(dim, viscosity, prestress=None):
    """`linear viscous [isotropic | generic], C`: f = C ε̇ + σ0."""
    return Law(dim, viscosity=viscosity, prestress=prestress, name="linear viscous")


def linear_viscoelastic(dim, stiffness, viscosity=None, proportional=None, prestrain=None, prestress=None,
                        stiffness_scale=None, viscosity_scale=None):
    """`linear viscoelastic [generic], K, {C | proportional, r}`: f = K (ε - ε0) + C ε̇ + σ0 (C = r K
    when proportional).  The scales give `linear time variant viscoelastic generic`."""
    K = _square(stiffness, dim, "linear viscoelastic stiffness")
    if (viscosity is None) == (proportional is None):
        raise ValueError("linear viscoelastic: give either the viscosity or the proportional factor")
    C = proportional * K if proportional is not None else viscosity
    return Law(dim, K, C, prestrain=prestrain, prestress=prestress, stiffness_scale=stiffness_scale,
               viscosity_scale=viscosity_scale, name="linear viscoelastic")


def cubic_elastic(dim, k1, k2, k3, prestrain=None, prestress=None):
    """`cubic elastic generic, k1, k2, k3`: f_i = k1_i e_i + k2_i |e_i| e_i + k3_i e_i³ (per component)."""
    return Law(dim, np.diag(_diag_vector(k1, dim, "cubic elastic k1")), cubic2=k2, cubic3=k3,
               prestrain=prestrain, prestress=prestress, name="cubic elastic")


def scaled(law, drive):
    """`drive caller wrapper, w, <law>`: f = w(t) · law (the prestress is scaled too)."""
    out = Law(law.dim, law.K, law.C, law.k2, law.k3, law.prestrain, law.prestress, law.stiffness_scale,
              law.viscosity_scale, name=law.name)
    w = _as_drive(drive)
    out.scale = w if law.scale is None else _ProductOf(law.scale, w)
    return out


class _ProductOf:
    """Product of two scalar drives (nested drive caller wrappers)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def value(self, t):
        return self.a.value(t) * self.b.value(t)


def beam_section(EA, GAy, GAz, GJ, EJy, EJz, viscosity=None, proportional=None, prestrain=None):
    """Diagonal 6×6 beam section law: (ε_x, γ_y, γ_z, κ_x, κ_y, κ_z) -> (N, Ty, Tz, Mx, My, Mz)."""
    K = np.diag([EA, GAy, GAz, GJ, EJy, EJz]).astype(float)
    if viscosity is None and proportional is None:
        return Law(6, K, prestrain=prestrain, name="beam section")
    return linear_viscoelastic(6, K, viscosity, proportional, prestrain=prestrain)


def isotropic_constants(E=None, nu=None, G=None, what="isotropic law"):
    """(E, ν, G) of an isotropic material from two of them (a third must agree:
    G = E/(2(1 + ν)), to 1e-12), as MBDyn's `isotropic` plate laws take them; a ν computed
    from E and G must lie in (0, 0.5) (MBDyn's check), a given one in (-1, 0.5).  Errors name
    `what`."""
    given = [v is not None for v in (E, nu, G)]
    if sum(given) < 2:
        raise ValueError(f"{what}: two of E, nu, G are required")
    if E is not None and not E > 0 or G is not None and not G > 0:
        raise ValueError(f"{what}: E and G must be positive (got E = {E}, G = {G})")
    if all(given):
        if abs(E / (2.0 * (1.0 + nu)) - G) > 1e-12 * G:
            raise ValueError(f"{what}: inconsistent E = {E}, nu = {nu}, G = {G} "
                             f"(G must be E/(2(1+nu)) = {E / (2.0 * (1.0 + nu))})")
    elif G is None:
        G = E / (2.0 * (1.0 + nu))
    elif E is None:
        E = 2.0 * (1.0 + nu) * G
    else:
        nu = E / (2.0 * G) - 1.0
        if not 0.0 < nu < 0.5:
            raise ValueError(f"{what}: inconsistent E = {E}, G = {G} (Poisson's ratio {nu})")
    if not -1.0 < nu < 0.5:
        raise ValueError(f"{what}: Poisson's ratio {nu} outside (-1, 0.5)")
    return float(E), float(nu), float(G)


def isotropic_beam_section(E, A, J, Iy, Iz, nu=None, G=None, shear_factor=(1.0, 1.0), proportional=None):
    """Homogeneous isotropic section from E, ν (or G), area A, torsion constant J and the second
    moments Iy, Iz (about the section axes 2 and 3); shear factors multiply G A."""
    if (nu is None) == (G is None):
        raise ValueError("isotropic beam section: give exactly one of nu and G")
    if G is None:
        G = E / (2.0 * (1.0 + nu))
    ky, kz = shear_factor
    return beam_section(E * A, ky * G * A, kz * G * A, G * J, E * Iy, E * Iz, proportional=proportional)


class Laws:
    """Vectorized evaluation of a list of Law of one dimension (one instance per law)."""

    def __init__(self, laws):
        laws = list(laws)
        if not laws:
            raise ValueError("no constitutive laws")
        dims = {l.dim for l in laws}
        if len(dims) != 1:
            raise ValueError(f"laws of mixed dimensions {sorted(dims)}")
        self.dim = d = dims.pop()
        self.n = len(laws)
        self.K = np.array([l.K for l in laws]).reshape(-1, d, d)
        self.C = np.array([l.C for l in laws]).reshape(-1, d, d)
        self.k2 = np.array([l.k2 for l in laws]).reshape(-1, d)
        self.k3 = np.array([l.k3 for l in laws]).reshape(-1, d)
        self.sigma0 = np.array([l.prestress for l in laws]).reshape(-1, d)
        self.nonlinear = bool(np.any(self.k2) or np.any(self.k3))
        self.viscous = bool(np.any(self.C))
        self.prestrain = TemplateDriveArray([l.prestrain for l in laws], d)

        def scales(attr):
            ds = [getattr(l, attr) for l in laws]
            if all(x is None for x in ds):
                return None
            ds = [ConstDrive(1.0) if x is None else x for x in ds]
            if any(isinstance(x, _ProductOf) for x in ds):
                return _SlowArray(ds)
            return DriveArray(ds)
        self.sK = scales("stiffness_scale")
        self.sC = scales("viscosity_scale")
        self.w = scales("scale")

    def time_values(self, t):
        """The laws' time-dependent inputs at t for the compiled kernels: prestrain ε0 (n, dim)
        and the stiffness, viscosity and overall scales (n,) (ones where a law has none)."""
        ones = np.ones(self.n)
        sK = ones if self.sK is None else np.asarray(self.sK.values(t), float)
        sC = ones if self.sC is None else np.asarray(self.sC.values(t), float)
        w = ones if self.w is None else np.asarray(self.w.values(t), float)
        return np.asarray(self.prestrain.values(t), float).reshape(self.n, self.dim), sK, sC, w

    @property
    def arrays(self):
        """(K, C, k2, k3, σ0): the laws' constant arrays, in the order `law_at` takes them."""
        return self.K, self.C, self.k2, self.k3, self.sigma0

    def evaluate(self, eps, epsdot, t):
        """eps, epsdot (n, dim) -> (f (n, dim), ∂f/∂ε (n, dim, dim), ∂f/∂ε̇ (n, dim, dim)),
        by the compiled `law_at` (the one implementation the element kernels call)."""
        eps = np.ascontiguousarray(eps, dtype=float).reshape(self.n, self.dim)
        epsdot = np.ascontiguousarray(epsdot, dtype=float).reshape(self.n, self.dim)
        return laws_all(*self.arrays, *self.time_values(t), eps, epsdot)


@kernel
def law_into(K, C, k2, k3, sigma0, e0, sK, sC, w, i, eps, epsdot, f, dK, dC):
    """Law i at (ε, ε̇): f = w [sK (K e + k2 |e| e + k3 e³) + sC C ε̇ + σ0] with e = ε - ε0,
    and its derivatives ∂f/∂ε, ∂f/∂ε̇ (the formula of this module's docstring), written into
    the caller's arrays f (d,), dK, dC (d, d): no allocation, so element kernels call it per
    instance with scratch arrays allocated once per call."""
    d = len(eps)
    wK = w[i] * sK[i]
    wC = w[i] * sC[i]
    for a in range(d):
        fk = 0.0
        fc = 0.0
        for b in range(d):
            fk += K[i, a, b] * (eps[b] - e0[i, b])
            fc += C[i, a, b] * epsdot[b]
            dK[a, b] = wK * K[i, a, b]
            dC[a, b] = wC * C[i, a, b]
        ea = eps[a] - e0[i, a]
        ae = abs(ea)
        fk += k2[i, a] * ae * ea + k3[i, a] * ea * ea * ea
        dK[a, a] += wK * (2.0 * k2[i, a] * ae + 3.0 * k3[i, a] * ea * ea)
        f[a] = w[i] * (sK[i] * fk + sC[i] * fc + sigma0[i, a])


@kernel
def law_at(K, C, k2, k3, sigma0, e0, sK, sC, w, i, eps, epsdot):
    """`law_into` in new arrays: (f, ∂f/∂ε, ∂f/∂ε̇)."""
    d = len(eps)
    f = np.empty(d)
    dK = np.empty((d, d))
    dC = np.empty((d, d))
    law_into(K, C, k2, k3, sigma0, e0, sK, sC, w, i, eps, epsdot, f, dK, dC)
    return f, dK, dC


@kernel
def laws_all(K, C, k2, k3, sigma0, e0, sK, sC, w, eps, epsdot):
    """`law_at` for every law i at (eps[i], epsdot[i])."""
    n, d = eps.shape
    f = np.empty((n, d))
    dK = np.empty((n, d, d))
    dC = np.empty((n, d, d))
    for i in range(n):
        f[i], dK[i], dC[i] = law_at(K, C, k2, k3, sigma0, e0, sK, sC, w, i, eps[i], epsdot[i])
    return f, dK, dC


class _SlowArray:
    """Scalar drives evaluated one by one (only for nested wrapper products)."""

    def __init__(self, drives):
        self.drives = drives

    def values(self, t):
        return np.array([float(d.value(t)) for d in self.drives])


def as_law(law, dim, where, prestrain=None):
    """`law` as a constitutive.Law of dimension `dim`: a Law as it is, or one of the API's
    linear conveniences (LinearElastic1D, LinearViscous1D, LinearViscoelastic1D, LinearLaw3D,
    the latter with the element's separate `prestrain` drive).  `where` names the element in
    errors."""
    if isinstance(law, Law):
        if law.dim != dim:
            raise ValueError(f"{where}: a {dim}-D constitutive law is required, got a {law.dim}-D one")
        if prestrain is not None:
            raise ValueError(f"{where}: give the prestrain in the constitutive law")
        return law
    if isinstance(law, LinearLaw3D):
        if dim != 3:
            raise ValueError(f"{where}: a {dim}-D constitutive law is required, got a 3-D one")
        return Law(3, law.K, law.C, prestrain=TemplateDrive.of(prestrain, 3), name="linear law")
    if isinstance(law, (LinearElastic1D, LinearViscous1D, LinearViscoelastic1D)):
        if dim != 1:
            raise ValueError(f"{where}: a {dim}-D constitutive law is required, got a 1-D one")
        pre = law.prestrain
        terms = [] if pre is None else [(np.ones(1), pre if hasattr(pre, "value") else ConstDrive(float(pre)))]
        return Law(1, law.stiffness, law.viscosity, prestrain=TemplateDrive(1, terms), name="linear law")
    raise ValueError(f"{where}: unsupported constitutive law {type(law).__name__}")


class ScalarLaws:
    """1-D laws of a family's instances (`laws`: Law of dimension 1 or the 1-D conveniences;
    `where`: the instances' names for errors), evaluated at once with (n,)-shaped arrays."""

    def __init__(self, laws, where):
        self.laws = [as_law(l, 1, w) for l, w in zip(laws, where)]
        self.vectorized = Laws(self.laws) if self.laws else None

    def evaluate(self, eps, epsdot, t):
        """(F, ∂F/∂ε, ∂F/∂ε̇), each (n,)."""
        n = len(self.laws)
        e = np.broadcast_to(np.asarray(eps, float), (n,)).reshape(n, 1)
        ed = np.broadcast_to(np.asarray(epsdot, float), (n,)).reshape(n, 1)
        f, A, B = self.vectorized.evaluate(e, ed, t)
        return f[:, 0], A[:, 0, 0], B[:, 0, 0]
