"""Strong scaling of an MPI run (issue 17): the same model and steps under `mpiexec -n P`,
time per step split into the system evaluation (residual and Jacobian: replicated on every
rank today), the factorization and the solve (distributed: MUMPS or a Krylov method over
PETSc's row blocks, plus the gather of the solution), and the rest; peak memory per rank.

    mpiexec --allow-run-as-root -n P python benchmarks/mpi_scaling.py --chain 10000 [--cube 6]
        [--steps 10] [--linear-solver petsc-mumps]

Run it with P = 1, 2, ... in turn (with P = 1 the run is serial: give --linear-solver
petsc-mumps to time the same solver).  Rank 0 prints one Markdown row per model; every rank
prints its peak memory."""
import argparse
import resource
import time

import chain as chain_bench
from solid_dynamic import cube_model
from step_split import instrument
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.solvers.petsc import mpi_rank, mpi_world_size


def problem(kind, size, steps, linear_solver):
    if kind == "chain":
        model, h = chain_bench.chain_model(size), 1e-3
    else:
        model, h = cube_model(size)[0], 1e-4
    return InitialValueProblem(model, final_time=steps * h, time_step=h, method="ms", rho=0.6, tolerance=1e-6,
                               test="relnorm", max_iterations=20, keep_results=False, progress=False,
                               linear_solver=linear_solver, modified_newton=True, iterations_before_assembly=20,
                               refresh_contraction=0.5)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chain", type=int, nargs="*", default=[10000])
    ap.add_argument("--cube", type=int, nargs="*", default=[])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--linear-solver", default="default")
    a = ap.parse_args()
    ranks, rank = mpi_world_size(), mpi_rank()
    for kind, sizes in (("chain", a.chain), ("cube", a.cube)):
        for size in sizes:
            problem(kind, size, 1, a.linear_solver).run()          # compile and warm the kernels
            prob = problem(kind, size, a.steps, a.linear_solver)
            table = instrument(prob)
            t0 = time.perf_counter()
            stats = prob.run()
            total = time.perf_counter() - t0
            steps = stats["steps"]
            evaluation = table["system evaluate"]
            factor, solve = table["factorization"], table["solve"]
            rest = total - evaluation - factor - solve
            memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            if rank == 0:
                print(f"| {kind} {size} | {prob.system.n} | {ranks} | {prob.newton.linear.name} | "
                      f"{1e3 * total / steps:.1f} | {1e3 * evaluation / steps:.1f} | {1e3 * factor / steps:.1f} | "
                      f"{1e3 * solve / steps:.1f} | {1e3 * rest / steps:.1f} | {stats['newton_iterations']} |",
                      flush=True)
            print(f"    rank {rank}: peak memory {memory:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
