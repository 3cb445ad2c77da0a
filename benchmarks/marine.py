"""Floating bodies (issue 19): cost of the hydrodynamic body family.

(a) A farm of N copies of the heaving cylinder (cases/marine/heaving_cylinder.py: radius 5 m,
    draft 10 m, shipped BEM data) on a square grid 50 m apart, interaction off, each with its
    own state-space radiation (fit tolerance 0.01), in a JONSWAP sea (Hs 2 m, Tp 8 s, γ 3.3,
    200 components in ω ≤ 3 rad/s (the data's range), seed 1): wall time per simulated second for N = 1, 10, 25, 50 and its ratio
    to N (the cost must grow linearly with N).
(b) Radiation memory side by side, state space at several fit tolerances (number of states,
    wall time per simulated second) against the direct convolution (kernel sampled at the
    step): for the single cylinder and for MBS4WEC's T1, three hinged barges (cases/marine/
    wec_cases.py: 30 × 10 m boxes at draft 2.5 m, 2 revolute hinges about y, the WEC-11
    mooring matrix on the root barge; BEM by Capytaine through compute_hydro_data with 1.25 m
    panels, ω = 0.1 … 3 rad/s, cached), interaction included, in a JONSWAP sea (Hs 2 m,
    Tp 6.8966 s, the paper's period; seed 1), 600 s.

All runs at h = 0.05 s (MBS4WEC does not state its step; T/138 of its wave), each model after a
1 s warm-up run (kernels compiled).  Crank–Nicolson for the free bodies; mbdae's default `ms`
(ρ∞ = 0.6) for the hinged barges, where Crank–Nicolson, without numerical damping of the
index-3 hinge constraints, stops converging after about 275 s.

    python benchmarks/marine.py [--quick] [--farm-time 60] [--barge-time 600] [--skip-barges]
"""
import argparse
import math
import os
import sys
import time

import numpy as np
from scipy.linalg import block_diag

from mbdae import Model, run
from mbdae.engine.core.hydro_data import HydroData, RadiationStateSpace
from mbdae.engine.core.hydro_files import compute_hydro_data
from mbdae.engine.core.hydro_waves import irregular_sea, wave_number
from mbdae.engine.core.hydro_radiation import fit_radiation_state_space, impulse_response

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases", "marine"))
import heaving_cylinder as hc  # noqa: E402
import wec_cases as wc  # noqa: E402

STEP = 0.05
SPACING = 50.0


def farm_data(one, n):
    """n copies of a one-body HydroData on a square grid SPACING apart, no interaction: block
    diagonal A, B, C; each body's excitation shifted by its position, X e^{−ik(x cos β + y sin β)}."""
    side = int(math.ceil(math.sqrt(n)))
    pos = np.array([[SPACING * (i % side), SPACING * (i // side), 0.0] for i in range(n)])
    k = wave_number(one.omega, one.water_depth, one.g)
    X = np.concatenate([one.excitation * np.exp(-1j * k[None, :, None] * (
        p[0] * np.cos(one.headings)[:, None, None] + p[1] * np.sin(one.headings)[:, None, None])) for p in pos], axis=2)
    diag = lambda M: np.stack([block_diag(*([w] * n)) for w in M])       # noqa: E731
    return HydroData(one.omega, diag(one.added_mass), diag(one.radiation_damping),
                     block_diag(*([one.added_mass_infinite] * n)), block_diag(*([one.hydrostatic_stiffness] * n)),
                     one.headings, X, pos, tuple(f"buoy{i + 1}" for i in range(n)),
                     np.repeat(one.displaced_volume, n), one.centre_of_buoyancy + pos, one.rho, one.g,
                     one.water_depth, "farm of " + one.source).check(), pos


def farm_radiation(ss, n):
    return RadiationStateSpace(block_diag(*([ss.A] * n)), block_diag(*([ss.B] * n)), block_diag(*([ss.C] * n)),
                               None if ss.D is None else block_diag(*([ss.D] * n)))


def farm_model(one, ss, n, sea):
    data, pos = farm_data(one, n)
    m = Model()
    M = hc.mass(one)
    for i, p in enumerate(pos):
        m.structural_node(i + 1, "dynamic", position=[p[0], p[1], hc.Z_CM])
        m.body(i + 1, i + 1, M, inertia=M * np.asarray(hc.GYRATION) ** 2)
        # a soft horizontal mooring (surge, sway 2e4 N/m, yaw 1e6 N m/rad) keeps the buoys in place
        m.mooring_matrix(i + 1, i + 1, stiffness=[2e4, 2e4, 0, 0, 0, 1e6], offset=[0.0, 0.0, -hc.Z_CM])
    m.gravity([0.0, 0.0, -one.g])
    m.hydro_bodies(1000, list(range(1, n + 1)), data, waves=sea, radiation=farm_radiation(ss, n), interaction=False,
                   equilibrium=[([p[0], p[1], hc.Z_CM], np.eye(3)) for p in pos])
    return m


def timed(model, final_time, method="crank nicolson"):
    """(wall time, CPU time of this process) per simulated second, and the Results."""
    t0, c0 = time.perf_counter(), time.process_time()
    r = run(model, final_time=final_time, time_step=STEP, method=method)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return wall / final_time, cpu / final_time, r


def barge_data():
    hulls = wc.T1["hulls"]
    return compute_hydro_data([{"shape": "box", "length": h["length"], "width": h["beam"], "draft": h["draft"],
                                "position": (h["centre"][0], h["centre"][1]), "panel_size": 1.25, "name": h["name"]}
                               for h in hulls], omegas=np.round(np.arange(1, 31) * 0.1, 10), headings=[0.0],
                              rho=wc.RHO, g=wc.G)


def barge_model(data, radiation, sea):
    """T1 with mbdae: a dynamic node at each barge's CM, 2 revolute hinges about global y at the
    gap middles, the WEC-11 mooring on the root barge, the three hydrodynamic bodies together."""
    T1 = wc.T1
    m = Model()
    names = [b["name"] for b in T1["bodies"]]
    for i, b in enumerate(T1["bodies"]):
        m.structural_node(i + 1, "dynamic", position=b["cm"])
        m.body(i + 1, i + 1, b["mass"], inertia=b["inertia"])
    y_axis = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])     # axis 3 = global y
    for j, joint in enumerate(T1["joints"]):
        n1, n2 = (names.index(b) + 1 for b in joint["bodies"])
        c1, c2 = (np.asarray(T1["bodies"][n - 1]["cm"]) for n in (n1, n2))
        m.revolute_hinge(10 + j, n1, n2, offset1=np.asarray(joint["point"]) - c1, orientation1=y_axis,
                         offset2=np.asarray(joint["point"]) - c2, orientation2=y_axis)
    moor = T1["mooring"]
    m.mooring_matrix(20, names.index(moor["body"]) + 1, stiffness=moor["stiffness"], damping=moor["damping"])
    m.gravity([0.0, 0.0, -wc.G])
    m.hydro_bodies(100, [1, 2, 3], data, waves=sea, radiation=radiation, interaction=True)
    return m


def radiation_table(title, data, build, final_time, tolerances, method="crank nicolson"):
    print(f"\n{title}: {final_time:g} s at h = {STEP} s, {method}")
    print("  radiation                           states   wall/sim s (s)  CPU/sim s (s)   heave std of body 1 (m)")
    rows = []
    variants = [(f"state space tol {tol:g}", fit_radiation_state_space(data, tolerance=tol)) for tol in tolerances]
    variants.append((f"convolution dt {STEP:g}", impulse_response(data, STEP)))
    for name, rad in variants:
        timed(build(rad), 1.0, method)                          # compile and warm up
        per, cpu, r = timed(build(rad), final_time, method)
        states = rad.A.shape[0] if isinstance(rad, RadiationStateSpace) else f"{rad.K.shape[0]} samples"
        z = np.asarray(r.x)[:, 0, 2]
        print(f"  {name:30s} {states!s:>12} {per:14.4f} {cpu:14.4f} {np.std(z[len(z) // 4:]):18.4f}"
              f"   {np.mean(r.iterations[1:]):.2f} Newton iterations/step")
        rows.append((name, states, per))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="short form for CI: N = 1, 4; 2 s, once; nothing else")
    p.add_argument("--farm-time", type=float, default=30.0)
    p.add_argument("--repeat", type=int, default=3, help="farm runs per N (the best is kept)")
    p.add_argument("--cylinder-time", type=float, default=600.0)
    p.add_argument("--barge-time", type=float, default=600.0)
    p.add_argument("--skip-barges", action="store_true")
    a = p.parse_args()
    sizes, farm_time = ([1, 4], 2.0) if a.quick else ([1, 10, 25, 50], a.farm_time)
    if a.quick:
        a.repeat = 1
    one = hc.load_data()
    ss = fit_radiation_state_space(one, tolerance=0.01)
    sea = irregular_sea("jonswap", hs=2.0, tp=8.0, seed=1, omega_max=3.0)
    print(f"load average {np.round(os.getloadavg(), 2).tolist()}")
    print(f"farm of N cylinders, interaction off, {ss.A.shape[0]} radiation states each, JONSWAP Hs 2 m Tp 8 s, "
          f"{farm_time:g} s at h = {STEP} s")
    print(f"      N   wall/sim s (s)  CPU/sim s (s)   per body (ms/sim s)   (t(N) / t(1)) / N   added per body (ms/sim s)"
          f"   [best of {a.repeat}]")
    base = None
    for n in sizes:
        model = farm_model(one, ss, n, sea)
        timed(model, 1.0)
        best = min((timed(farm_model(one, ss, n, sea), farm_time) for _ in range(a.repeat)), key=lambda x: x[0])
        per, cpu, its = best[0], best[1], np.mean(best[2].iterations[1:])
        base = base or per
        slope = "" if n == 1 else f"{1000 * (per - base) / (n - 1):.2f}"
        print(f"  {n:5d} {per:16.4f} {cpu:14.4f} {1000 * per / n:20.2f} {per / base / n:18.3f} {slope:>26s}"
              f"   {its:.2f} Newton iterations/step")
    if a.quick:
        print(f"load average {np.round(os.getloadavg(), 2).tolist()}")
        return
    radiation_table("one cylinder, JONSWAP Hs 2 m Tp 8 s", one, lambda rad: hc.build(one, sea, rad),
                    a.cylinder_time, (0.05, 0.02, 0.01, 0.002))
    if not a.skip_barges:
        t0 = time.perf_counter()
        data = barge_data()
        print(f"\nT1 BEM data (Capytaine or its cache): {time.perf_counter() - t0:.1f} s")
        sea1 = irregular_sea("jonswap", hs=2.0, tp=wc.WAVE_PERIOD, seed=1, omega_max=3.0)
        radiation_table("MBS4WEC T1, three hinged barges, JONSWAP Hs 2 m Tp 6.8966 s", data,
                        lambda rad: barge_model(data, rad, sea1), a.barge_time, (0.05, 0.02, 0.01), method="ms")
    print(f"load average {np.round(os.getloadavg(), 2).tolist()}")


if __name__ == "__main__":
    main()
