"""A dynamic run of a large solid model (issue 14): a cube of hexahedron20 elements (n³,
n = 22 by default: 10 648 elements, 47 081 dynamic displacement nodes, 282 486 node
unknowns plus the clamp multipliers), clamped on the face x = 0 and falling under
gravity, integrated with ms (ρ∞ = 0.6) for a few steps.

    python benchmarks/solid_dynamic.py [--n 22] [--steps 5] [--linear-solver default] [--modified]

Prints the model size, the set-up time (model, pattern, kernels), the time per step split
into element kernels, scatter, factorization, solve and the rest (the timers of
benchmarks/step_split.py), and the peak resident memory of the process."""
import argparse
import os
import resource
import time

import numpy as np

from step_split import instrument
from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic
from mbdae.elements.solid_meshes import block_mesh


def cube_model(n, shape="hexahedron20", size=1.0, output=False):
    P, conn, _ = block_mesh(shape, n, size)
    m = Model()
    for k, x in enumerate(P):
        m.structural_node(k + 1, "dynamic displacement", position=x, output=output)
    law = hookean_linear_elastic_isotropic(2.1e11, 0.3)
    for e, c in enumerate(conn):
        m.solid(e + 1, shape, c + 1, law, 7850.0)
    label = 1
    for k in np.flatnonzero(P[:, 0] < 1e-9 * size):
        for c in (1, 2, 3):
            m.genel_clamp(label, int(k + 1), node_type="structural", index=c, value=None)
            label += 1
    m.gravity((0.0, 0.0, -9.81))
    return m, len(P), len(conn)


def peak_memory_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=22)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--time-step", type=float, default=1e-4)
    ap.add_argument("--linear-solver", default="default")
    ap.add_argument("--modified", action="store_true",
                    help="modified Newton keeping the factorization across steps (refreshed when the "
                         "contraction is slow)")
    a = ap.parse_args()
    print(f"load average {np.round(os.getloadavg(), 2).tolist()}")
    t0 = time.perf_counter()
    model, nn, ne = cube_model(a.n)
    t_model = time.perf_counter() - t0
    t0 = time.perf_counter()
    prob = InitialValueProblem(model, final_time=a.steps * a.time_step, time_step=a.time_step, method="ms",
                               rho=0.6, tolerance=1e-3, test="norm", max_iterations=20, keep_results=False,
                               progress=False, linear_solver=a.linear_solver, modified_newton=a.modified,
                               reuse_factorization_across_steps=a.modified,
                               iterations_before_assembly=20 if a.modified else 2)
    t_setup = time.perf_counter() - t0
    table = instrument(prob)
    t0 = time.perf_counter()
    stats = prob.run()
    total = time.perf_counter() - t0
    steps = stats["steps"]
    unknowns = prob.system.n
    print(f"hexahedron20 cube n={a.n}: {ne} elements, {nn} nodes, {unknowns} unknowns; "
          f"linear solver {prob.newton.linear.name}")
    print(f"model building {t_model:.1f} s, problem set-up {t_setup:.1f} s, run {total:.1f} s "
          f"({steps} steps incl. derivatives/dummy, {stats['newton_iterations']} iterations, "
          f"{stats['factorizations']} factorizations)")
    parts = dict(table)
    parts["scatter"] = parts.pop("system evaluate") - parts["element kernels"] - parts["kinematics"]
    parts["rest (derivatives phase, Newton, integrator, commits)"] = total - sum(parts.values())
    for key, value in parts.items():
        print(f"    {key:55s} {value / steps:8.3f} s/step  {100 * value / total:5.1f} %")
    print(f"peak resident memory {peak_memory_mb():.0f} MB")


if __name__ == "__main__":
    main()
