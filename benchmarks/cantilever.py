"""Cantilever benchmark (issue 4): beam along x, L = 1 m, clamped root, NE three-node beams
(2 NE + 1 nodes), section EA = 1e7 N, GA = 4e6 N (both shear directions), GJ = 800 N m²,
EI = 1000 N m² (both bending directions); 1 kg/m lumped on the nodes by finite volumes
(rotary inertia 1e-4 kg m per metre about the bending axes, 2e-4 about the axis); tip force
100 N along -y from t = 0; `ms` with ρ∞ = 0.6, h = 1e-3 up to 1 s.

Prints, per NE: wall time, steps, Newton iterations, factorizations, cost per step, the time
of one residual + Jacobian assembly (to show it grows linearly with NE) and the tip deflection.
The residual tolerance is 1e-4 N (2-norm, 1e-6 of the tip load): with EA = 1e7 the round-off
floor of the force rows is about EA·eps/l_e per row, above 1e-6 N in norm from NE ≈ 100.

    /tmp/venv/bin/python benchmarks/cantilever.py                 # NE = 10, 100; 1000 for 0.05 s
    /tmp/venv/bin/python benchmarks/cantilever.py --ne 100 --final-time 1
"""
import argparse
import time

import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.problem import InitialValueProblem
from mbdae.engine.system import System
from mbdae.engine import constitutive as cl

EA, GA, GJ, EI, L = 1e7, 4e6, 800.0, 1000.0, 1.0
MU, JB, JT = 1.0, 1e-4, 2e-4


def cantilever_model(ne, tip_force=100.0):
    m = Model()
    nn = 2 * ne + 1
    s = np.linspace(0.0, L, nn)
    for i in range(nn):
        m.structural_node(i, "dynamic", position=[s[i], 0.0, 0.0])
    law = cl.beam_section(EA, GA, GA, GJ, EI, EI)
    share = np.zeros(nn)
    a = (1.0 - 1.0 / np.sqrt(3.0)) / 2.0          # node shares of a beam3 finite volume
    le = L / ne
    for e in range(ne):
        m.beam3(e + 1, 2 * e, 2 * e + 1, 2 * e + 2, law)
        share[2 * e:2 * e + 3] += np.array([a, 1.0 - 2.0 * a, a]) * le
    for i in range(nn):
        m.body(i, i, MU * share[i], inertia=np.diag([JT, JB, JB]) * share[i])
    m.clamp(1, 0)
    m.force(1, nn - 1, [0.0, -tip_force, 0.0])
    return m


def assembly_time(ne, repeat=20):
    system = System(cantilever_model(ne))
    st = system.initial_state(0.0)
    system.evaluate(st, 1e-3)
    t0 = time.perf_counter()
    for _ in range(repeat):
        system.evaluate(st, 1e-3)
    return (time.perf_counter() - t0) / repeat


def run(ne, final_time=1.0, h=1e-3, linear_solver="superlu", tolerance=1e-4):
    model = cantilever_model(ne)
    prob = InitialValueProblem(model, time_step=h, final_time=final_time, method="ms", rho=0.6,
                               tolerance=tolerance, linear_solver=linear_solver, progress=False)
    res = prob.run()
    st = res.stats
    tip = res.x[-1, -1]
    return dict(ne=ne, final_time=final_time, wall=st["wall_time"], steps=st["steps"],
                iterations=st["newton_iterations"], factorizations=st["factorizations"],
                per_step_ms=1e3 * st["wall_time"] / max(st["steps"], 1), tip_y=tip[1],
                assembly_ms=1e3 * assembly_time(ne), unknowns=st["unknowns"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ne", type=int, nargs="*", default=None)
    ap.add_argument("--final-time", type=float, default=None)
    ap.add_argument("--linear-solver", default="superlu")
    ap.add_argument("--tolerance", type=float, default=1e-4,
                    help="residual 2-norm tolerance in N (1e-6 of the tip load); 1e-6 is below the "
                         "round-off floor EA·eps/l_e·sqrt(rows) of the finer meshes")
    a = ap.parse_args()
    cases = [(n, a.final_time or 1.0) for n in a.ne] if a.ne else [(10, 1.0), (100, 1.0), (1000, 0.05)]
    print(f"{'NE':>5} {'unknowns':>8} {'T':>5} {'wall s':>8} {'steps':>6} {'iters':>6} {'factor':>6} "
          f"{'ms/step':>8} {'asm ms':>7} {'tip y':>10}")
    for ne, T in cases:
        r = run(ne, T, linear_solver=a.linear_solver, tolerance=a.tolerance)
        print(f"{r['ne']:5d} {r['unknowns']:8d} {r['final_time']:5g} {r['wall']:8.2f} {r['steps']:6d} "
              f"{r['iterations']:6d} {r['factorizations']:6d} {r['per_step_ms']:8.2f} {r['assembly_ms']:7.2f} "
              f"{r['tip_y']:10.6f}", flush=True)


if __name__ == "__main__":
    main()
