"""Strong scaling of an MPI run (issue 17): the same model and steps under `mpiexec -n P`,
time per step split into the system evaluation (each rank's share of the elements with the
distributed evaluation, the whole model with `--mpi-evaluation replicated`), the
factorization and the solve (MUMPS or a Krylov method over PETSc's rows, plus the ghost
values' exchange), and the rest (predictor, commit, convergence tests with their
Allreduce); peak memory per rank; the measured cost of one Allreduce of a few numbers and
of one ghost exchange (the per-message costs of benchmarks/RESULTS.md's scaling model).

    mpiexec --allow-run-as-root -n P python benchmarks/mpi_scaling.py --chain 10000 [--cube 6]
        [--steps 10] [--linear-solver petsc-mumps] [--mpi-evaluation distributed|replicated]

Run it with P = 1, 2, ... in turn (with P = 1 the run is serial: give --linear-solver
petsc-mumps to time the same solver).  Rank 0 prints one Markdown row per model; every rank
prints its peak memory, its owned and ghost unknowns."""
import argparse
import resource
import time

import chain as chain_bench
from solid_dynamic import cube_model
from step_split import instrument
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.solvers.petsc import mpi_rank, mpi_world_size


def problem(kind, size, steps, linear_solver, mpi_evaluation="distributed"):
    if kind == "chain":
        model, h = chain_bench.chain_model(size), 1e-3
    else:
        model, h = cube_model(size)[0], 1e-4
    return InitialValueProblem(model, final_time=steps * h, time_step=h, method="ms", rho=0.6, tolerance=1e-6,
                               test="relnorm", max_iterations=20, keep_results=False, progress=False,
                               linear_solver=linear_solver, modified_newton=True, iterations_before_assembly=20,
                               refresh_contraction=0.5, mpi_evaluation=mpi_evaluation)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chain", type=int, nargs="*", default=[10000])
    ap.add_argument("--cube", type=int, nargs="*", default=[])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--linear-solver", default="default")
    ap.add_argument("--mpi-evaluation", default="distributed", choices=("distributed", "replicated"))
    a = ap.parse_args()
    ranks, rank = mpi_world_size(), mpi_rank()
    for kind, sizes in (("chain", a.chain), ("cube", a.cube)):
        for size in sizes:
            problem(kind, size, 1, a.linear_solver, a.mpi_evaluation).run()    # compile, warm the kernels
            prob = problem(kind, size, a.steps, a.linear_solver, a.mpi_evaluation)
            table = instrument(prob)
            t0 = time.perf_counter()
            stats = prob.run()
            total = time.perf_counter() - t0
            steps = stats["steps"]
            evaluation = table["system evaluate"]
            factor, solve = table["factorization"], table["solve"]
            rest = total - evaluation - factor - solve
            memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            system = prob.system
            unknowns = getattr(system, "n_global", system.n)
            if rank == 0:
                print(f"| {kind} {size} | {unknowns} | {ranks} | {prob.newton.linear.name} | "
                      f"{1e3 * total / steps:.1f} | {1e3 * evaluation / steps:.1f} | {1e3 * factor / steps:.1f} | "
                      f"{1e3 * solve / steps:.1f} | {1e3 * rest / steps:.1f} | {stats['newton_iterations']} |",
                      flush=True)
            share = ""
            if hasattr(system, "layout"):
                share = f", {int(system.owned_mask.sum())} owned and {len(system.ghost_rows)} ghost unknowns"
                latency, exchange = message_costs(system, prob.state)
                share += f"; Allreduce {1e6 * latency:.1f} us, ghost exchange {1e6 * exchange:.1f} us"
            print(f"    rank {rank}: peak memory {memory:.0f} MB{share}", flush=True)


def message_costs(system, state, repeat=200):
    """(seconds per Allreduce of 3 numbers, seconds per ghost exchange of one vector)."""
    reduction = system.reduction
    system.comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(repeat):
        reduction._sum([1.0, 2.0, 3.0])
    latency = (time.perf_counter() - t0) / repeat
    system.comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(repeat):
        system.layout.exchange(state.y)
    return latency, (time.perf_counter() - t0) / repeat


if __name__ == "__main__":
    main()
