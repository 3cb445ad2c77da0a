"""The one data structure between hydrodynamic coefficient sources (WAMIT and NEMOH output,
Capytaine, mbdae's NetCDF cache) and the marine element families.

Linear potential-flow theory about a fixed equilibrium (Cummins' equation):

    (M + A∞) ν̇ + ∫₀ᵗ K(t−τ) ν(τ) dτ + C η = F_ex(t) + …,
    K(t) = (2/π) ∫₀^∞ B(ω) cos(ωt) dω,   A(ω) = A∞ − (1/ω) ∫₀^∞ K(t) sin(ωt) dt.

N bodies give 6N degrees of freedom, body-major: body b's surge, sway, heave, roll, pitch,
yaw are the indices 6b … 6b+5; forces and moments about each body's reference point, in the
global frame (z up, the still water level at z = 0), SI units.  Wave excitation follows the
e^{iωt} convention: for the incident wave elevation η(x, y, t) = Re[a e^{i(ωt − k(x cos β +
y sin β))}] at heading β, the force is Re[a X(β, ω) e^{iωt}] (WAMIT's convention; Capytaine's
e^{−iωt} coefficients are conjugated when read)."""
from dataclasses import dataclass, field
import math
import numpy as np

from mbdae.engine.errors import InputError


class HydroDataError(InputError):
    """Hydrodynamic data that cannot be used: the message names the file and the record."""


@dataclass(frozen=True)
class HydroData:
    omega: np.ndarray                    # (nw,) rad/s, strictly increasing, > 0
    added_mass: np.ndarray               # (nw, 6N, 6N) A(ω)
    radiation_damping: np.ndarray        # (nw, 6N, 6N) B(ω)
    added_mass_infinite: np.ndarray      # (6N, 6N) A(∞)
    hydrostatic_stiffness: np.ndarray    # (6N, 6N) C (buoyancy and waterplane terms only)
    headings: np.ndarray                 # (nβ,) rad
    excitation: np.ndarray               # (nβ, nw, 6N) complex X(β, ω), force per metre of amplitude
    reference_points: np.ndarray         # (N, 3) each body's reference point at equilibrium, m
    body_names: tuple = ()
    displaced_volume: np.ndarray = None  # (N,) m³, None when the source does not give it
    centre_of_buoyancy: np.ndarray = None  # (N, 3) at equilibrium, m, None when not given
    rho: float = 1025.0
    g: float = 9.81
    water_depth: float = math.inf
    source: str = ""                     # the file(s) or program it came from, for messages

    @property
    def n_bodies(self):
        return len(self.reference_points)

    def check(self):
        """Raise HydroDataError naming the source and the array that does not fit; returns self."""
        n = 6 * self.n_bodies
        nw, nb = len(self.omega), len(self.headings)
        where = self.source or "hydrodynamic data"
        shapes = {"added_mass": (nw, n, n), "radiation_damping": (nw, n, n),
                  "added_mass_infinite": (n, n), "hydrostatic_stiffness": (n, n),
                  "excitation": (nb, nw, n), "reference_points": (self.n_bodies, 3)}
        if self.displaced_volume is not None:
            shapes["displaced_volume"] = (self.n_bodies,)
        if self.centre_of_buoyancy is not None:
            shapes["centre_of_buoyancy"] = (self.n_bodies, 3)
        for name, shape in shapes.items():
            value = np.asarray(getattr(self, name))
            if value.shape != shape:
                raise HydroDataError(f"{where}: '{name}' has shape {value.shape}, expected {shape} "
                                     f"for {self.n_bodies} bodies, {nw} frequencies, {nb} headings")
            if not np.all(np.isfinite(value)):
                raise HydroDataError(f"{where}: '{name}' has values that are not finite")
        if nw < 2 or np.any(self.omega <= 0.0) or np.any(np.diff(self.omega) <= 0.0):
            raise HydroDataError(f"{where}: the frequencies must be at least two, positive and "
                                 f"strictly increasing (got {nw}, from {np.min(self.omega, initial=np.nan):g} rad/s)")
        if self.body_names and len(self.body_names) != self.n_bodies:
            raise HydroDataError(f"{where}: {len(self.body_names)} body names for {self.n_bodies} bodies")
        if not (self.rho > 0.0 and self.g > 0.0 and self.water_depth > 0.0):
            raise HydroDataError(f"{where}: density, gravity and water depth must be positive")
        return self

    def body_dofs(self, body):
        """The 6 indices of body `body` (0-based) in the 6N arrays."""
        return np.arange(6 * body, 6 * body + 6)


@dataclass(frozen=True)
class WaveComponents:
    """A sea state as a sum of regular components, η(x, y, t) = Σ_k a_k cos(ω_k t − k_k (x cos β
    + y sin β) + φ_k); one component is a regular wave."""
    omega: np.ndarray        # (nk,) rad/s
    amplitude: np.ndarray    # (nk,) m
    phase: np.ndarray        # (nk,) rad
    heading: float = 0.0     # rad, direction the waves travel to, from the global x axis
    water_depth: float = math.inf
    g: float = 9.81
    wavenumber: np.ndarray = None  # (nk,) rad/m from the dispersion relation (hydro_waves.wave_number); None: not given


@dataclass(frozen=True)
class RadiationStateSpace:
    """A realization of the radiation convolution, ż = A z + B ν, ∫K ν dτ ≈ C z (+ D ν):
    z are the owning element's own differential unknowns (ns of them) and ν the 6N
    generalized velocities of the bodies of one HydroData, in its dof order."""
    A: np.ndarray            # (ns, ns)
    B: np.ndarray            # (ns, 6N)
    C: np.ndarray            # (6N, ns)
    D: np.ndarray = field(default=None)   # (6N, 6N) or None (zero)
    fit_error: np.ndarray = None   # (6N, 6N) relative L2 error of each entry's impulse response (0 where K_ij = 0), or None
    orders: np.ndarray = None      # (6N, 6N) int, the states of each entry's realization (0 where K_ij = 0), or None


@dataclass(frozen=True)
class RadiationKernel:
    """The radiation impulse-response kernel K(t) = (2/π) ∫₀^∞ B(ω) cos(ωt) dω sampled at
    t_j = j·dt, j = 0 … nt−1 (K ≈ 0 beyond), for the direct Cummins convolution
    ∫₀ᵗ K(t−τ) ν(τ) dτ: the alternative to RadiationStateSpace."""
    dt: float                # s
    K: np.ndarray            # (nt, 6N, 6N) N s / m (translations), … in the HydroData dof order
