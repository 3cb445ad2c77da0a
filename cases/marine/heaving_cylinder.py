"""A floating vertical cylinder in heave (issue 19's first marine case).

The hull: radius 5 m, draft 10 m, flat bottom, deep water, ρ = 1025 kg/m³, g = 9.81 m/s².  It
floats freely (mass = ρV of the meshed hull, 780.36 m³: 799 870 kg; C₃₃ = 784 673 N/m), ballasted so that its centre of mass is 7 m below the
still water level (the centre of buoyancy is 5 m below it, the metacentre 4.375 m below it:
GM = 2.625 m); radii of gyration 4 m (roll, pitch) and 3.5 m (yaw) about the CM.

Its BEM data (A(ω), B(ω), A∞, the excitation X(β = 0, ω), the hydrostatics, about the point on
the axis in the still water plane) are the small file data/cylinder.nc shipped with the case:
Capytaine 3.0 with panels of about 1 m (lid on the waterplane), ω = 0.05 … 3 rad/s by 0.05
(60 frequencies), written in the data layer's NetCDF format (engine/core/hydro_files.py).

    python cases/marine/heaving_cylinder.py --make-data      # regenerate data/cylinder.nc (Capytaine)
    python cases/marine/heaving_cylinder.py [--radiation state-space|convolution] [--tolerance 0.01]
    python cases/marine/heaving_cylinder.py --decay

The time-domain model is mbdae's `hydro_bodies` on one dynamic node at the CM (Cummins'
equation, radiation by a fitted state space whose states are the element's unknowns, or by the
direct convolution), with gravity and a `body`; the frequency-domain reference is the heave RAO
X = F_ex / (−ω²(M + A(ω)) + iωB(ω) + C) with the data's A, B at ω.  The family has no wave ramp:
the run starts at rest in the full wave, and the steady amplitude is the least-squares fit of
the last 5 periods with the still decaying free mode (σ = ζω₀, ω_d of `natural_frequency`)
fitted alongside (`harmonic`), so 200 s suffice although ζ = 0.0135.  Heave natural period
7.21 s; the runs use Crank–Nicolson at h = 0.05 s and a wave amplitude of 0.05 m (linear regime).
"""
import argparse
import math
import os
import time

import numpy as np

from mbdae import Model, run
from mbdae.engine.core.hydro_data import WaveComponents
from mbdae.engine.core.hydro_files import compute_hydro_data, read_hydro_data, write_hydro_data
from mbdae.engine.core.hydro_radiation import fit_radiation_state_space, impulse_response

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_FILE = os.path.join(HERE, "data", "cylinder.nc")
RADIUS, DRAFT, RHO, G = 5.0, 10.0, 1025.0, 9.81
Z_CM = -7.0                                    # centre of mass below the still water level (m)
GYRATION = (4.0, 4.0, 3.5)                     # radii of gyration about the CM (m)
PANEL = 1.0                                    # BEM panel size (m)
OMEGAS = np.round(np.arange(1, 61) * 0.05, 10)  # BEM frequencies (rad/s)
NODE = 1


def make_data(path=DATA_FILE):
    """Compute the BEM data with Capytaine (mbdae[hydro]) and write them to `path`."""
    data = compute_hydro_data([{"shape": "cylinder", "radius": RADIUS, "draft": DRAFT, "panel_size": PANEL,
                                "name": "cylinder"}], omegas=OMEGAS, headings=[0.0], rho=RHO, g=G, cache=False)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_hydro_data(data, path)
    return data


def load_data(path=DATA_FILE):
    return read_hydro_data(path)


def mass(data):
    """The cylinder's mass: it floats, m = ρV."""
    return data.rho * float(data.displaced_volume[0])


def heave_rao(data, omega):
    """Frequency-domain heave per metre of wave amplitude at a frequency of the data's grid:
    X₃ = F_ex,3 / (−ω²(M + A₃₃(ω)) + iωB₃₃(ω) + C₃₃) (heave is decoupled from the other dofs of
    an axisymmetric body; the weight adds nothing to C₃₃)."""
    w = int(np.argmin(abs(data.omega - omega)))
    if abs(data.omega[w] - omega) > 1e-9 * omega:
        raise ValueError(f"ω = {omega} is not a frequency of the data")
    A, B = data.added_mass[w, 2, 2], data.radiation_damping[w, 2, 2]
    C = data.hydrostatic_stiffness[2, 2]
    return data.excitation[0, w, 2] / (-omega ** 2 * (mass(data) + A) + 1j * omega * B + C)


def natural_frequency(data):
    """The undamped heave natural frequency ω₀ solving C − ω²(M + A(ω)) = 0 (A linear between
    the data's frequencies), and the damping ratio ζ = B(ω₀) / (2 ω₀ (M + A(ω₀))): the free decay
    oscillates at ω_d = ω₀ √(1 − ζ²)."""
    M, C = mass(data), data.hydrostatic_stiffness[2, 2]
    f = C - data.omega ** 2 * (M + data.added_mass[:, 2, 2])
    k = int(np.nonzero(np.sign(f[:-1]) != np.sign(f[1:]))[0][0])
    lo, hi = data.omega[k], data.omega[k + 1]
    for _ in range(60):                        # bisection on the piecewise-linear A
        mid = 0.5 * (lo + hi)
        fm = C - mid ** 2 * (M + np.interp(mid, data.omega, data.added_mass[:, 2, 2]))
        lo, hi = (mid, hi) if np.sign(fm) == np.sign(f[k]) else (lo, mid)
    w0 = 0.5 * (lo + hi)
    Mt = M + np.interp(w0, data.omega, data.added_mass[:, 2, 2])
    zeta = np.interp(w0, data.omega, data.radiation_damping[:, 2, 2]) / (2.0 * w0 * Mt)
    return w0, zeta


def radiation_model(data, kind="state-space", tolerance=0.01, max_order=12, dt=0.05):
    """The radiation memory for hydro_bodies: a fitted state space or the sampled kernel."""
    if kind == "state-space":
        return fit_radiation_state_space(data, tolerance=tolerance, max_order=max_order)
    if kind == "convolution":
        return impulse_response(data, dt)
    raise ValueError(f"unknown radiation model {kind!r}")


def build(data, waves=None, radiation="off", heave0=0.0):
    """The cylinder on node 1 at its CM, released heave0 above its equilibrium."""
    m = Model()
    M = mass(data)
    m.structural_node(NODE, "dynamic", position=[0.0, 0.0, Z_CM + heave0])
    m.body(1, NODE, M, inertia=M * np.asarray(GYRATION) ** 2)
    m.gravity([0.0, 0.0, -data.g])
    m.hydro_bodies(100, [NODE], data, waves=waves, radiation=radiation,
                   equilibrium=[([0.0, 0.0, Z_CM], np.eye(3))])
    return m


def simulate(data, radiation, omega=None, amplitude=0.25, heave0=0.0, final_time=200.0, time_step=0.05):
    """Heave of the reference point (m) against time, in a regular wave of `amplitude` at ω
    (heading 0, phase 0: η = a cos ωt at the origin) or in still water from heave0."""
    waves = None if omega is None else WaveComponents(omega=np.array([omega]), amplitude=np.array([amplitude]),
                                                      phase=np.array([0.0]))
    r = run(build(data, waves, radiation, heave0), final_time=final_time, time_step=time_step,
            method="crank nicolson")
    return np.asarray(r.t), np.asarray(r.x)[:, 0, 2] - Z_CM


def harmonic(t, z, omega, periods, free=None):
    """Complex amplitude Z of z ≈ Re[Z e^{iωt}] + c over the last `periods` whole periods
    (least squares).  free = (σ, ω_d): the still decaying free oscillation e^{−σt} cos(ω_d t + ψ)
    is fitted too and left out of Z."""
    T = 2.0 * math.pi / omega
    sel = t >= t[-1] - periods * T - 1e-9
    ts = t[sel]
    cols = [np.cos(omega * ts), -np.sin(omega * ts), np.ones_like(ts)]
    if free is not None:
        sigma, wd = free
        decay = np.exp(-sigma * (ts - ts[-1]))
        cols += [decay * np.cos(wd * ts), decay * np.sin(wd * ts)]
    coef, *_ = np.linalg.lstsq(np.column_stack(cols), z[sel], rcond=None)
    return coef[0] + 1j * coef[1]


def zero_crossing_period(t, z):
    """Mean period from the upward zero crossings (linear interpolation between samples)."""
    i = np.nonzero((z[:-1] < 0.0) & (z[1:] >= 0.0))[0]
    tc = t[i] - z[i] * (t[i + 1] - t[i]) / (z[i + 1] - z[i])
    return float(np.mean(np.diff(tc))), len(tc)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--make-data", action="store_true", help="regenerate data/cylinder.nc with Capytaine")
    p.add_argument("--radiation", choices=("state-space", "convolution"), default="state-space")
    p.add_argument("--tolerance", type=float, default=0.01, help="state-space fit tolerance")
    p.add_argument("--omegas", type=float, nargs="*", default=[0.45, 0.6, 0.8, 0.9, 1.0, 1.25])
    p.add_argument("--time", type=float, default=200.0, help="simulated time per wave (s)")
    p.add_argument("--amplitude", type=float, default=0.05, help="wave amplitude (m)")
    p.add_argument("--step", type=float, default=0.05)
    p.add_argument("--decay", action="store_true", help="free decay from a 1 m heave offset")
    a = p.parse_args()
    if a.make_data:
        t0 = time.perf_counter()
        make_data()
        print(f"wrote {DATA_FILE} ({os.path.getsize(DATA_FILE)} bytes) in {time.perf_counter() - t0:.1f} s")
        return
    data = load_data()
    rad = radiation_model(data, a.radiation, a.tolerance, dt=a.step)
    if a.radiation == "state-space":
        print(f"state space: {rad.A.shape[0]} states, heave entry order {rad.orders[2, 2]}, "
              f"fit error {rad.fit_error[2, 2]:.2e}")
    if a.decay:
        w0, zeta = natural_frequency(data)
        t, z = simulate(data, rad, heave0=1.0, final_time=a.time, time_step=a.step)
        Td, n = zero_crossing_period(t, z)
        print(f"damped period: time domain {Td:.4f} s ({n} crossings), frequency domain "
              f"{2 * math.pi / (w0 * math.sqrt(1 - zeta ** 2)):.4f} s (ζ = {zeta:.4f})")
        return
    print("    T (s)   |X| TD (m/m)  |X| FD (m/m)   err %   phase TD (deg)  phase FD (deg)")
    w0, zeta = natural_frequency(data)
    for w in a.omegas:
        t, z = simulate(data, rad, omega=w, amplitude=a.amplitude, final_time=a.time, time_step=a.step)
        Z, X = harmonic(t, z, w, 5, free=(zeta * w0, w0 * math.sqrt(1 - zeta ** 2))) / a.amplitude, heave_rao(data, w)
        print(f"{2 * math.pi / w:9.3f} {abs(Z):12.5f} {abs(X):12.5f} {100 * abs(Z - X) / abs(X):8.3f} "
              f"{math.degrees(np.angle(Z)):14.3f} {math.degrees(np.angle(X)):14.3f}")


if __name__ == "__main__":
    main()
