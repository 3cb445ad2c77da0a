"""A large flexible multibody model (issue 17): a 4 km steel riser cable of NE beam3 elements
(2 NE + 1 dynamic nodes, 12 unknowns each: 10⁶ unknowns at NE = 41 700), pinned at the top
by a spherical pin, a 20 t clump weight on a body at its lower end, released from a straight
45° line under gravity.  Masses and inertias by finite volumes on the nodes.

    python cases/large/cable.py [--elements 41700] [--steps 10] [--linear-solver default]
    mpiexec --allow-run-as-root -n 2 python cases/large/cable.py        # MUMPS over 2 ranks

Prints (rank 0) the unknowns, the time per step after the first one, Newton iterations and
the clump's position; every rank prints its peak memory.  The physics check: the top pin's
reaction equals the weight of cable and clump plus the inertia forces, so at the start the
clump falls with g while the cable's tension builds (printed: the clump's vertical
acceleration estimate over the first steps, which must be close to -9.81 m/s²)."""
import argparse
import resource
import time

import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core import constitutive as cl
from mbdae.elements.beam import beam3_node_shares
from mbdae.solvers.petsc import mpi_rank, mpi_world_size

LENGTH = 4000.0            # m
DIAMETER = 0.1             # m, solid steel rod
E, G, RHO = 2.1e11, 8.1e10, 7850.0
CLUMP = 2.0e4              # kg


def cable_model(ne):
    area = np.pi * DIAMETER ** 2 / 4
    second = np.pi * DIAMETER ** 4 / 64
    law = cl.beam_section(E * area, G * area, G * area, G * 2 * second, E * second, E * second)
    nn = 2 * ne + 1
    s = np.linspace(0.0, LENGTH, nn)
    direction = np.array([1.0, 0.0, -1.0]) / np.sqrt(2.0)
    m = Model()
    for i in range(nn):
        m.structural_node(i + 1, "dynamic", position=s[i] * direction, output=(i == nn - 1))
    for e in range(ne):
        m.beam3(e + 1, 2 * e + 1, 2 * e + 2, 2 * e + 3, law)
    share = beam3_node_shares(ne, LENGTH)
    mu = RHO * area
    for i in range(nn):
        j = mu * share[i] * np.array([2 * second / area, second / area, second / area])
        m.body(i + 1, i + 1, mu * share[i], inertia=np.diag(j))
    m.body(nn + 1, nn, CLUMP, inertia=np.eye(3) * CLUMP * 0.1)
    m.spherical_pin(1, 1, absolute_position=[0.0, 0.0, 0.0])
    m.gravity([0.0, 0.0, -9.81])
    return m, nn


class StepClock:
    """An observer that notes the wall time of every step (it reads no output: a distributed
    run gathers nothing to rank 0 for it)."""
    wants_output = False

    def __init__(self, times):
        self.times = times

    def start(self, *args):
        pass

    def log(self, text):
        pass

    def step(self, event):
        self.times.append(time.perf_counter())

    def finish(self):
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=41700)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--time-step", type=float, default=1e-3)
    ap.add_argument("--linear-solver", default="default")
    ap.add_argument("--mpi-evaluation", default="distributed", choices=("distributed", "replicated"))
    ap.add_argument("--tolerance", type=float, default=1e-5,
                    help="relnorm tolerance (1e-6 is below the round-off floor of the 4 km steel line at 10⁶ unknowns)")
    a = ap.parse_args()
    rank = mpi_rank()
    t0 = time.perf_counter()
    model, nn = cable_model(a.elements)
    prob = InitialValueProblem(model, final_time=a.steps * a.time_step, time_step=a.time_step, method="ms",
                               rho=0.6, tolerance=a.tolerance, test="relnorm", max_iterations=20, keep_results=False,
                               progress=False, linear_solver=a.linear_solver, modified_newton=True,
                               iterations_before_assembly=20, refresh_contraction=0.5,
                               mpi_evaluation=a.mpi_evaluation)
    build = time.perf_counter() - t0
    times = []
    prob.observers.append(StepClock(times))
    stats = prob.run()
    system = prob.system
    kin = system.kinematics(prob.state)
    # the clump's node (the last one) is on one process of a distributed run
    nodes = getattr(system, "global_nodes", np.arange(system.nodes.n))
    mine = [kin.x[np.flatnonzero(nodes == nn - 1)]]
    distributed = hasattr(system, "comm")
    if distributed:
        mine = system.comm.allgather(mine[0])
    clump = [x for x in mine if len(x)][0][0]
    unknowns = system.n_global if distributed else system.n
    fall = clump[2] - (LENGTH / np.sqrt(2.0)) * -1.0
    t_end = a.steps * a.time_step
    memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if rank == 0:
        per_step = np.diff(times).mean() if len(times) > 2 else float("nan")
        print(f"cable of {a.elements} beam3 elements: {unknowns} unknowns, {mpi_world_size()} rank(s), "
              f"{prob.newton.linear.description}")
        if prob.evaluation_note:
            print(f"  {prob.evaluation_note}")
        print(f"  model + System {build:.1f} s; {stats['steps']} steps, {stats['newton_iterations']} Newton "
              f"iterations, {1e3 * per_step:.0f} ms per step after the first")
        print(f"  clump fell {-fall:.6f} m in {t_end:g} s: mean acceleration {2 * fall / t_end ** 2:.3f} m/s²")
    print(f"  rank {rank}: peak memory {memory:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
