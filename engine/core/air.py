"""Air properties (MBDyn input manual, "Air Properties"; theory manual Ch. 13): the density
and sound celerity of the air and the free-stream velocity the aerodynamic elements see.

Two forms, as MBDyn 1.7.3 reads them:

- explicit: a density drive ρ(t) and a constant sound celerity c (no altitude dependence);
- standard atmosphere (`std, SI | British | <p0>, <ρ0 drive>, <T0>, <a>, <R>, <g0>, <z1>, <z2>`,
  optional `temperature deviation` ΔT (isobaric: ρ0 ← ρ0 T0/(T0 + ΔT), T0 ← T0 + ΔT) and
  `reference altitude` z0), evaluated at the altitude z = x₃ + z0 of a point:

      troposphere (z < z1):  T = T0 + a z,  ρ = ρ0 (T/T0)^-(g0/(a R) + 1)
      stratosphere:          T = T0 + a z1, ρ = ρ1 exp(-g0 (z - z1)/(R T))
      c = √(1.4 R T).

The free stream V∞(t) is a 3-D template drive, uniform in space, evaluated once per
evaluation; `front 1D` gusts add g p(n·x + V_f t) at each section point x (evaluated per
point by the element before its compiled call); an element's section sees the air velocity
V∞ + gusts (the element subtracts it from the section's own velocity).

`air_arrays(spec, t)` packs what the compiled `air_state` needs into one float array:
[kind, ρ (explicit) or ρ0 (std), c, p0, T0, a, R, g0, z0, z1, z2, V∞x, V∞y, V∞z]."""
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
import math
import numpy as np

from mbdae.engine.core.compiled import kernel

EXPLICIT, STANDARD = 0, 1
N_AIR = 14
STD_SI = dict(p0=101325.0, rho0=1.2250, T0=288.16, a=-6.5e-3, R=287.0, g0=9.81, z1=11000.0, z2=25000.0)
STD_BRITISH = dict(p0=2116.2, rho0=0.002377, T0=518.69, a=-3.566e-3, R=1716.0, g0=32.17, z1=36089.0,
                   z2=82021.0)


@dataclass
class AirSpec:
    """One `air properties` card.  kind "explicit": `density` (scalar drive) and
    `sound_speed`; kind "std": the standard-atmosphere constants (`std`: p0, T0, a, R, g0, z1,
    z2), the reference density drive `density` and the reference altitude z0.  `velocity`: the
    free-stream template drive (VectorDrive)."""
    kind: str
    density: object                    # scalar drive: ρ (explicit) or ρ0 (standard)
    velocity: object                   # VectorDrive
    sound_speed: float = 0.0
    std: dict = field(default_factory=dict)
    z0: float = 0.0
    label: int = 1                     # MBDyn's air properties element is label 1
    output: bool = True
    gusts: list = field(default_factory=list)   # Gust1D

    def __post_init__(self):
        if self.kind not in ("explicit", "std"):
            raise ValueError(f"air properties: unknown kind '{self.kind}'")
        if self.kind == "explicit" and not self.sound_speed > 0.0:
            raise ValueError("air properties: illegal null or negative sound speed")
        if self.kind == "std":
            s = self.std
            for key in ("p0", "T0", "R", "g0", "z1"):
                if not s[key] > 0.0:
                    raise ValueError(f"air properties: illegal standard atmosphere {key} = {s[key]}")
            if not s["a"] < 0.0:
                raise ValueError(f"air properties: illegal temperature gradient {s['a']}")
            if not s["z2"] > s["z1"]:
                raise ValueError(f"air properties: illegal stratosphere altitude {s['z2']}")


@dataclass
class Gust1D:
    """MBDyn's `front 1D` gust (gust.cc): a front of normal n travelling at V_f; the air
    velocity at x gains g · p(n·x + V_f t), p a drive of that abscissa."""
    front: np.ndarray
    direction: np.ndarray
    front_velocity: float
    profile: object                    # scalar drive of n·x + V_f t

    def velocities(self, X, t):
        """(m, 3) gust velocities at the points X (m, 3)."""
        arg = X @ np.asarray(self.front, float) + self.front_velocity * t
        vals = np.array([float(self.profile.value(a)) for a in arg])
        return vals[:, None] * np.asarray(self.direction, float)[None, :]


class WindProfile(ABC):
    """MBDyn's wind profiles (windprof.cc): with z = e3·(x − X0) (e_k the columns of the
    reference orientation R0), the air velocity at x gains e1·V(z); no gain where z ≤ 0 for the
    power law and the logarithmic profile."""

    def __init__(self, X0, R0):
        self.X0, self.R0 = np.asarray(X0, float).reshape(3), np.asarray(R0, float).reshape(3, 3)

    @abstractmethod
    def speeds(self, z, t):
        """Wind speed (m,) at the elevations z (m,) at time t."""

    def velocities(self, X, t):
        z = (np.asarray(X, float) - self.X0) @ self.R0[:, 2]
        return self.speeds(z, t)[:, None] * self.R0[:, 0][None, :]


class ScalarFunctionWind(WindProfile):
    """V(z) = f(z), a scalar function (engine/core/scalar_functions.py)."""

    def __init__(self, X0, R0, function):
        super().__init__(X0, R0)
        self.function = function

    def speeds(self, z, t):
        return np.array([self.function.value(float(v)) for v in z])


class PowerLawWind(WindProfile):
    """V(z) = V_ref(t) (z / z_ref)^p for z > 0."""

    def __init__(self, X0, R0, z_ref, v_ref, exponent):
        super().__init__(X0, R0)
        self.z_ref, self.v_ref, self.p = float(z_ref), v_ref, float(exponent)

    def speeds(self, z, t):
        zp = np.where(z > 0, z, 1.0)
        return np.where(z > 0, float(self.v_ref.value(t)) * (zp / self.z_ref) ** self.p, 0.0)


class LogarithmicWind(WindProfile):
    """V(z) = V_ref(t) ln(z / z0) / ln(z_ref / z0) for z > 0 (z0: surface roughness length)."""

    def __init__(self, X0, R0, z_ref, v_ref, roughness):
        super().__init__(X0, R0)
        self.z_ref, self.v_ref, self.z0 = float(z_ref), v_ref, float(roughness)

    def speeds(self, z, t):
        zp = np.where(z > 0, z, 1.0)
        return np.where(z > 0, float(self.v_ref.value(t)) * np.log(zp / self.z0) / math.log(self.z_ref / self.z0),
                        0.0)


def gust_velocities(spec, X, t):
    """Σ of the gusts' velocities at the points X (m, 3) at time t (zeros without gusts)."""
    out = np.zeros((len(X), 3))
    for g in (spec.gusts if spec is not None else ()):
        out += g.velocities(X, t)
    return out


def standard(system="SI", temperature_deviation=None):
    """The standard-atmosphere constants of `std, SI|British` (MBDyn's values), with the
    isobaric temperature deviation applied: (constants, reference density)."""
    s = dict(STD_SI if system.lower() == "si" else STD_BRITISH)
    if temperature_deviation is not None:
        dT = float(temperature_deviation)
        if s["T0"] + dT <= 0.0:
            raise ValueError(f"air properties: illegal temperature deviation {dT}")
        s["rho0"] *= s["T0"] / (s["T0"] + dT)
        s["T0"] += dT
    return s


def air_arrays(spec, t):
    """The float array of `air_state` at time t (drives evaluated here, once)."""
    out = np.zeros(N_AIR)
    if spec is None:
        return out
    out[1] = float(spec.density.value(t))
    v = np.asarray(spec.velocity.value(t), float).reshape(3)
    out[11:14] = v
    if spec.kind == "explicit":
        out[0] = EXPLICIT
        out[2] = spec.sound_speed
    else:
        s = spec.std
        out[0] = STANDARD
        out[3:11] = (s["p0"], s["T0"], s["a"], s["R"], s["g0"], spec.z0, s["z1"], s["z2"])
    return out


@kernel
def air_state(air, x):
    """(ρ, c, V∞ (3-tuple)) of the air at the global point x (3-tuple)."""
    vinf = (air[11], air[12], air[13])
    if air[0] == EXPLICIT:
        return air[1], air[2], vinf
    T0, a, R, g0 = air[4], air[5], air[6], air[7]
    z = x[2] + air[8]
    z1 = air[9]
    n = g0 / (a * R)
    if z < z1:
        T = T0 + a * z
        rho = air[1] * (T / T0) ** (-(n + 1.0))
    else:
        T = T0 + a * z1
        rho = air[1] * (T / T0) ** (-(n + 1.0)) * np.exp(-g0 / (R * T) * (z - z1))
    return rho, np.sqrt(1.4 * R * T), vinf


def air_output_row(spec, t):
    """The `.air` row (MBDyn's AirProperties::Output): ρ, c and V∞ at the origin."""
    arr = air_arrays(spec, t)
    rho, c, v = air_state(arr, (0.0, 0.0, 0.0))
    return np.array([rho, c, v[0], v[1], v[2]])
