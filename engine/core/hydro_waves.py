"""Linear (Airy) waves: the dispersion relation, regular waves, irregular sea states from the
JONSWAP and Pierson–Moskowitz spectra with seeded random phases, and the elevation and particle
kinematics of a sum of components, as plain-array kernels the marine families compile.

A sea state is a sum of regular components travelling to the heading β (radians from the global
x axis, long-crested), with x' = x cos β + y sin β:

    η(x, y, t) = Σ_k a_k cos θ_k,   θ_k = ω_k t − k_k x' + φ_k,   ω_k² = g k_k tanh(k_k h).

Airy particle velocity and local acceleration at (x, y, z ≤ 0), with the depth factors
F_c = cosh k(z + h) / sinh kh and F_s = sinh k(z + h) / sinh kh (both e^{kz} in deep water):

    u_h = Σ a ω F_c cos θ (along β),   w = −Σ a ω F_s sin θ,
    ∂u_h/∂t = −Σ a ω² F_c sin θ,       ∂w/∂t = −Σ a ω² F_s cos θ.

Above the mean level (0 < z ≤ η) the values at z = 0 are used (constant extrapolation, no
Wheeler stretching); above the surface (z > η) velocity and acceleration are zero.  The factors
are evaluated as e^{kz}(1 ± e^{−2k(z+h)}) / (1 − e^{−2kh}), which is finite for every kh.

The element families evaluate the same sums inside their own compiled kernels: `elevation_at`
and `kinematics_at` below are numba kernels on plain arrays (ω, k, a, φ, cos β, sin β, h) that a
family kernel calls directly."""
import math

import numpy as np

from mbdae.engine.core.compiled import kernel
from mbdae.engine.core.hydro_data import WaveComponents
from mbdae.engine.errors import InputError

SPECTRA = ("jonswap", "pierson-moskowitz")
SPECTRUM_ALIASES = {"jonswap": "jonswap", "pm": "pierson-moskowitz", "pierson-moskowitz": "pierson-moskowitz",
                    "bretschneider": "pierson-moskowitz"}
SPACINGS = ("equal-energy", "equal")


def _positive(name, value):
    value = float(value)
    if not (value > 0.0 and math.isfinite(value)):
        raise InputError(f"the {name} must be a positive finite number, found {value:g}")
    return value


def _depth(water_depth):
    h = float(water_depth)
    if not h > 0.0 or math.isnan(h):
        raise InputError(f"the water depth must be positive (math.inf for deep water), found {h:g}")
    return h


# ---------------------------------------------------------------------------- dispersion
def wave_number(omega, water_depth=math.inf, g=9.81):
    """k solving ω² = g k tanh(k h) for each ω (vectorized): Newton on y = kh from Eckart's
    estimate y₀ = x / sqrt(tanh x), x = ω²h/g, to machine precision; k = ω²/g in deep water."""
    omega = np.asarray(omega, dtype=float)
    g = _positive("gravity", g)
    h = _depth(water_depth)
    if np.any(omega < 0.0) or not np.all(np.isfinite(omega)):
        raise InputError("the wave frequencies must be finite and not negative")
    k_deep = omega * omega / g
    if math.isinf(h):
        return k_deep
    x = k_deep * h
    y = np.where(x > 0.0, x / np.sqrt(np.tanh(np.maximum(x, 1e-300))), 0.0)
    for _ in range(60):
        t = np.tanh(y)
        f = y * t - x
        fp = t + y * (1.0 - t * t)
        step = np.where(fp > 0.0, f / np.where(fp > 0.0, fp, 1.0), 0.0)
        y = y - step
        if np.all(np.abs(step) <= 4e-16 * np.maximum(y, 1e-300)):
            break
    return y / h


# ---------------------------------------------------------------------------- spectra
def pierson_moskowitz(omega, hs, tp):
    """Pierson–Moskowitz in Bretschneider's two-parameter form (ITTC; DNV-RP-C205 §3.5.5):
    S(ω) = (5/16) Hs² ωp⁴ ω⁻⁵ exp(−5/4 (ωp/ω)⁴), ωp = 2π/Tp; ∫₀^∞ S dω = Hs²/16 exactly."""
    hs, tp = _positive("significant wave height Hs", hs), _positive("peak period Tp", tp)
    omega = np.asarray(omega, dtype=float)
    wp = 2.0 * math.pi / tp
    out = np.zeros_like(omega)
    pos = omega > 0.0
    r = wp / omega[pos]
    out[pos] = (5.0 / 16.0) * hs * hs / wp * r ** 5 * np.exp(-1.25 * r ** 4)
    return out


def _peak_enhancement(u, gamma, sigma_a, sigma_b):
    sigma = np.where(u <= 1.0, sigma_a, sigma_b)
    return gamma ** np.exp(-(u - 1.0) ** 2 / (2.0 * sigma * sigma))


def jonswap_normalization(gamma, sigma_a=0.07, sigma_b=0.09):
    """A_γ such that A_γ γ^r S_PM integrates to Hs²/16: 1 / ∫₀^∞ 5u⁻⁵ e^{−1.25u⁻⁴} γ^{r(u)} du
    (u = ω/ωp), computed by quadrature of (γ^r − 1), which lives within ±14σ of the peak (the PM
    part integrates to 1 exactly).  DNV-RP-C205's A_γ = 1 − 0.287 ln γ approximates it."""
    gamma = float(gamma)
    if gamma == 1.0:
        return 1.0
    u = np.linspace(max(1.0 - 14.0 * sigma_a, 1e-3), 1.0 + 14.0 * sigma_b, 20001)
    pm = 5.0 * u ** -5 * np.exp(-1.25 * u ** -4)
    f = pm * (_peak_enhancement(u, gamma, sigma_a, sigma_b) - 1.0)
    extra = float(np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(u)))
    return 1.0 / (1.0 + extra)


def jonswap(omega, hs, tp, gamma=3.3, sigma_a=0.07, sigma_b=0.09):
    """JONSWAP (Hasselmann et al. 1973; DNV-RP-C205 §3.5.5): S(ω) = A_γ S_PM(ω) γ^r,
    r = exp(−(ω − ωp)² / (2σ²ωp²)), σ = σ_a for ω ≤ ωp else σ_b; A_γ normalizes ∫S dω to Hs²/16
    exactly (`jonswap_normalization`).  γ = 1 gives Pierson–Moskowitz."""
    gamma = float(gamma)
    if not (gamma >= 1.0 and math.isfinite(gamma)):
        raise InputError(f"the JONSWAP peak enhancement factor γ must be at least 1, found {gamma:g}")
    for name, s in (("σ_a", sigma_a), ("σ_b", sigma_b)):
        _positive(f"JONSWAP width {name}", s)
    omega = np.asarray(omega, dtype=float)
    wp = 2.0 * math.pi / _positive("peak period Tp", tp)
    return (jonswap_normalization(gamma, sigma_a, sigma_b) * pierson_moskowitz(omega, hs, tp)
            * _peak_enhancement(omega / wp, gamma, sigma_a, sigma_b))


def spectrum_density(spectrum, omega, hs, tp, gamma=3.3, sigma_a=0.07, sigma_b=0.09):
    """S(ω) of the named spectrum ('jonswap', 'pierson-moskowitz', alias 'pm', 'bretschneider')."""
    name = SPECTRUM_ALIASES.get(str(spectrum).lower())
    if name is None:
        raise InputError(f"unknown wave spectrum '{spectrum}' (known: jonswap, pierson-moskowitz, pm)")
    if name == "jonswap":
        return jonswap(omega, hs, tp, gamma, sigma_a, sigma_b)
    return pierson_moskowitz(omega, hs, tp)


# ---------------------------------------------------------------------------- sea states
def regular_wave(height, period, heading=0.0, phase=0.0, water_depth=math.inf, g=9.81):
    """One component: η = (H/2) cos(ωt − k x' + φ), ω = 2π/T, heading β in radians."""
    height = _positive("wave height", height)
    omega = np.array([2.0 * math.pi / _positive("wave period", period)])
    h = _depth(water_depth)
    return WaveComponents(omega=omega, amplitude=np.array([0.5 * height]), phase=np.array([float(phase)]),
                          heading=float(heading), water_depth=h, g=float(g),
                          wavenumber=wave_number(omega, h, g))


def irregular_sea(spectrum, hs, tp, gamma=3.3, heading=0.0, n_components=200, omega_min=None,
                  omega_max=None, seed=None, spacing="equal-energy", water_depth=math.inf, g=9.81,
                  sigma_a=0.07, sigma_b=0.09):
    """A long-crested irregular sea as n regular components with random phases φ_k drawn
    uniformly in [0, 2π) from numpy's default_rng(seed) (same seed, same sea; seed None: fresh).

    The band is [omega_min, omega_max], by default [0.5 ωp, 5 ωp] (for Pierson–Moskowitz it holds
    all but 0.2 % of m0; the energy outside is left out).  Two discretizations:

    - 'equal-energy' (default, WEC-Sim's choice): the band is cut into n bins of equal spectral
      energy, each component at its bin's energy median with a_k = sqrt(2 m0_band / n), so
      Σ a_k²/2 equals the band's m0 exactly; the frequencies are incommensurate, the record does
      not repeat, and the resolution is finest at the peak.
    - 'equal': ω_k = omega_min + (k + ½)Δω, Δω = band/n, a_k = sqrt(2 S(ω_k) Δω) (midpoint rule,
      m0 to O(Δω²)); the record repeats its wave groups every 2π/Δω seconds, so take
      n ≥ (band) × duration / 2π for a record of that duration."""
    hs, tp = _positive("significant wave height Hs", hs), _positive("peak period Tp", tp)
    n = int(n_components)
    if n < 1:
        raise InputError(f"an irregular sea needs at least one component, found n_components = {n_components}")
    if spacing not in SPACINGS:
        raise InputError(f"unknown frequency spacing '{spacing}' (known: {', '.join(SPACINGS)})")
    wp = 2.0 * math.pi / tp
    w0 = 0.5 * wp if omega_min is None else _positive("lowest frequency omega_min", omega_min)
    w1 = 5.0 * wp if omega_max is None else _positive("highest frequency omega_max", omega_max)
    if not w1 > w0:
        raise InputError(f"omega_max ({w1:g} rad/s) must exceed omega_min ({w0:g} rad/s)")
    h = _depth(water_depth)

    def density(w):
        return spectrum_density(spectrum, w, hs, tp, gamma, sigma_a, sigma_b)

    if spacing == "equal":
        dw = (w1 - w0) / n
        omega = w0 + (np.arange(n) + 0.5) * dw
        amplitude = np.sqrt(2.0 * density(omega) * dw)
    else:
        grid = np.linspace(w0, w1, max(20001, 50 * n + 1))
        s = density(grid)
        cumulative = np.concatenate(([0.0], np.cumsum(0.5 * (s[1:] + s[:-1]) * np.diff(grid))))
        total = cumulative[-1]
        if not total > 0.0:
            raise InputError(f"the {spectrum} spectrum has no energy between {w0:g} and {w1:g} rad/s")
        omega = np.interp((np.arange(n) + 0.5) / n * total, cumulative, grid)
        amplitude = np.full(n, math.sqrt(2.0 * total / n))
    phase = np.random.default_rng(seed).uniform(0.0, 2.0 * math.pi, n)
    return WaveComponents(omega=omega, amplitude=amplitude, phase=phase, heading=float(heading),
                          water_depth=h, g=float(g), wavenumber=wave_number(omega, h, g))


def wavenumbers(waves):
    """The components' wave numbers (stored, else solved from the dispersion relation)."""
    if waves.wavenumber is not None:
        return np.asarray(waves.wavenumber, dtype=float)
    return wave_number(waves.omega, waves.water_depth, waves.g)


# ---------------------------------------------------------------------------- compiled sums
@kernel
def elevation_at(omega, k, amp, phase, cos_b, sin_b, x, y, t):
    """η(x, y, t) = Σ a cos(ωt − k(x cos β + y sin β) + φ)."""
    xp = x * cos_b + y * sin_b
    eta = 0.0
    for i in range(omega.shape[0]):
        eta += amp[i] * math.cos(omega[i] * t - k[i] * xp + phase[i])
    return eta


@kernel
def kinematics_at(omega, k, amp, phase, cos_b, sin_b, depth, x, y, z, t, vel, acc):
    """Airy velocity and local acceleration at (x, y, z) written into vel[0:3], acc[0:3]
    (zero above the surface, z clipped to 0 between the mean level and the surface); returns
    η(x, y, t).  depth = math.inf for deep water."""
    eta = elevation_at(omega, k, amp, phase, cos_b, sin_b, x, y, t)
    for j in range(3):
        vel[j] = 0.0
        acc[j] = 0.0
    if z > eta:
        return eta
    ze = min(z, 0.0)
    xp = x * cos_b + y * sin_b
    uh = 0.0
    w = 0.0
    ah = 0.0
    aw = 0.0
    deep = not (depth < math.inf)
    for i in range(omega.shape[0]):
        ki = k[i]
        ez = math.exp(ki * ze)
        if deep:
            fc = ez
            fs = ez
        else:
            eb = math.exp(-2.0 * ki * (ze + depth))
            den = 1.0 - math.exp(-2.0 * ki * depth)
            fc = ez * (1.0 + eb) / den
            fs = ez * (1.0 - eb) / den
        th = omega[i] * t - ki * xp + phase[i]
        c = math.cos(th)
        s = math.sin(th)
        aom = amp[i] * omega[i]
        uh += aom * fc * c
        w -= aom * fs * s
        ah -= aom * omega[i] * fc * s
        aw -= aom * omega[i] * fs * c
    vel[0] = uh * cos_b
    vel[1] = uh * sin_b
    vel[2] = w
    acc[0] = ah * cos_b
    acc[1] = ah * sin_b
    acc[2] = aw
    return eta


@kernel
def _elevations(omega, k, amp, phase, cos_b, sin_b, x, y, t, out):
    for p in range(x.shape[0]):
        out[p] = elevation_at(omega, k, amp, phase, cos_b, sin_b, x[p], y[p], t[p])


@kernel
def _kinematics(omega, k, amp, phase, cos_b, sin_b, depth, pts, t, vel, acc, eta):
    v = np.empty(3)
    a = np.empty(3)
    for p in range(pts.shape[0]):
        eta[p] = kinematics_at(omega, k, amp, phase, cos_b, sin_b, depth, pts[p, 0], pts[p, 1], pts[p, 2], t[p], v, a)
        for j in range(3):
            vel[p, j] = v[j]
            acc[p, j] = a[j]


def _arrays(waves):
    return (np.ascontiguousarray(waves.omega, dtype=float), np.ascontiguousarray(wavenumbers(waves)),
            np.ascontiguousarray(waves.amplitude, dtype=float), np.ascontiguousarray(waves.phase, dtype=float),
            math.cos(waves.heading), math.sin(waves.heading))


def elevation(waves, x, y, t):
    """η at points and times (numpy broadcasting of x, y, t)."""
    x, y, t = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, y, t)))
    out = np.empty(x.size)
    _elevations(*_arrays(waves), np.ascontiguousarray(x.ravel()), np.ascontiguousarray(y.ravel()),
                np.ascontiguousarray(t.ravel()), out)
    return out.reshape(x.shape)


def kinematics(waves, points, t):
    """(velocity (n, 3), acceleration (n, 3), η (n,)) of the water at `points` (n, 3) and time(s) t
    (a scalar or (n,)): linear Airy kinematics, the conventions of the module docstring."""
    pts = np.ascontiguousarray(np.atleast_2d(np.asarray(points, dtype=float)))
    if pts.shape[1] != 3:
        raise InputError(f"points must have shape (n, 3), found {pts.shape}")
    tt = np.ascontiguousarray(np.broadcast_to(np.asarray(t, dtype=float), (len(pts),)))
    vel, acc, eta = np.empty((len(pts), 3)), np.empty((len(pts), 3)), np.empty(len(pts))
    _kinematics(*_arrays(waves), float(waves.water_depth), pts, tt, vel, acc, eta)
    return vel, acc, eta
