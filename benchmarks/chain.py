"""Chain of N rigid steel links (0.1 x 0.01 x 0.01 m, 7800 kg/m³) joined by spherical hinges,
pinned at one end, released from horizontal (+x) at rest under gravity -y; 1 s at
h = 1e-3 with ms, ρ∞ = 0.6.  Prints wall and CPU time, steps, Newton iterations,
factorizations and the cost per step.  Defaults: KLU when a KLU library is available (else
SuperLU), the relnorm residual test at 1e-6, modified Newton within the step.
Usage: python benchmarks/chain.py [N ...] [--linear-solver superlu|klu] [--test norm|relnorm] [--full]"""
import argparse
import time
import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.solvers.linear import available_linear_solvers

LINK = 0.1
SECTION = 0.01
RHO = 7800.0


def chain_model(n):
    m = Model()
    mass = RHO * LINK * SECTION * SECTION
    Jx = mass * (2 * SECTION ** 2) / 12
    Jt = mass * (LINK ** 2 + SECTION ** 2) / 12
    for i in range(n):
        m.structural_node(i + 1, "dynamic", position=[(i + 0.5) * LINK, 0.0, 0.0])
        m.body(i + 1, i + 1, mass, inertia=np.diag([Jx, Jt, Jt]))
    m.spherical_pin(1, 1, offset=[-LINK / 2, 0, 0], absolute_position=[0, 0, 0])
    for i in range(1, n):
        m.spherical_hinge(i + 1, i, i + 1, offset1=[LINK / 2, 0, 0], offset2=[-LINK / 2, 0, 0])
    m.gravity([0, -9.81, 0])
    return m


DEFAULT_SOLVER = "klu" if "klu" in available_linear_solvers() else "superlu"


def run(n, final_time=1.0, h=1e-3, full=False, quiet=False, linear_solver=DEFAULT_SOLVER, test="relnorm"):
    model = chain_model(n)
    t0 = time.perf_counter()
    c0 = time.process_time()
    # Newton: the iteration matrix is built and factored at the predicted state of each step
    # and kept for that step's further iterations unless an iteration reduces the error by
    # less than half (modified Newton within the step; measured faster than keeping it across
    # steps on this model); --full rebuilds it at every iteration
    prob = InitialValueProblem(model, final_time=final_time, time_step=h, method="ms", rho=0.6,
                               tolerance=1e-6, test=test, max_iterations=20, keep_results=False,
                               linear_solver=linear_solver, modified_newton=not full,
                               iterations_before_assembly=20, refresh_contraction=0.5)
    stats = prob.run()
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    st = prob.state
    tip = prob.system.kinematics(st).x[-1]
    if not quiet:
        print(f"{linear_solver:8s} {test:8s} N={n:5d}  wall {wall:8.3f} s  cpu {cpu:8.3f} s  steps {stats['steps']:5d}  Newton it {stats['newton_iterations']:6d}"
              f"  factorizations {stats['factorizations']:6d}  per step {1e3 * wall / max(stats['steps'], 1):7.3f} ms"
              f"  unknowns {stats['unknowns']}  step reductions {stats['step_reductions']}"
              f"  tip x,y = {tip[0]:+.5f},{tip[1]:+.5f}")
    return wall, stats


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="*", type=int, default=[10, 100, 1000])
    ap.add_argument("--full", action="store_true", help="full Newton: new iteration matrix at every iteration")
    ap.add_argument("--final-time", type=float, default=1.0)
    ap.add_argument("--linear-solver", default=DEFAULT_SOLVER,
                    help=f"superlu, klu, umfpack (default here: {DEFAULT_SOLVER})")
    ap.add_argument("--test", default="relnorm", help="residual test: relnorm (default), norm (MBDyn's default), ...")
    a = ap.parse_args()
    for n in a.n:
        run(n, a.final_time, full=a.full, linear_solver=a.linear_solver, test=a.test)
