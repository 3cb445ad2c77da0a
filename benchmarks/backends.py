"""Per-step time of the linear back ends on the same models (issue 17): the pinned chain of N
links, a clamped solid cube of hexahedron20 and a clamped shell4easans plate on dynamic nodes,
each run for a few steps of `ms` ρ∞ = 0.6 under gravity with modified Newton within the step
(one factorization per step), next to the factor + solve floor of the same matrix measured
alone (min of repeats).

    python benchmarks/backends.py [--chain 100 1000 10000] [--cube 4 8] [--plate 40 100]
        [--backends klu superlu petsc-klu petsc-mumps petsc-fgmres:asm] [--steps 20]

A Krylov back end is written `petsc-<method>:<preconditioner>`.  A back end that fails on a
model (no convergence, singular preconditioner) is reported as such."""
import argparse
import time

import numpy as np

import chain as chain_bench
from solid_dynamic import cube_model
from timing import best_of
from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.elements.shell import isotropic_shell_law
from mbdae.solvers.linear import SingularMatrix
from mbdae.solvers.petsc import PETScSettings


def plate_model(n):
    """A 1 m × 1 m steel plate, 1 cm thick, of n×n shell4easans on dynamic nodes with their
    tributary masses, clamped along x = 0, under gravity −z."""
    m = Model()
    lab = lambda i, j: 1 + i + (n + 1) * j          # noqa: E731
    for j in range(n + 1):
        for i in range(n + 1):
            m.structural_node(lab(i, j), "dynamic", position=[i / n, j / n, 0.0], output=False)
    D = isotropic_shell_law(E=2.1e11, nu=0.3, thickness=0.01)
    for j in range(n):
        for i in range(n):
            m.shell(1 + i + n * j, (lab(i + 1, j + 1), lab(i, j + 1), lab(i, j), lab(i + 1, j)), D, "shell4easans")
    m.shell_masses(10 ** 7, density=7850.0, thickness=0.01)
    for j in range(n + 1):
        m.clamp(10 ** 8 + j, lab(0, j))
    m.gravity((0.0, 0.0, -9.81))
    return m


MODELS = {
    "chain": (chain_bench.chain_model, dict(time_step=1e-3, tolerance=1e-6, test="relnorm")),
    "cube": (lambda n: cube_model(n)[0], dict(time_step=1e-4, tolerance=1e-6, test="relnorm")),
    "plate": (plate_model, dict(time_step=1e-3, tolerance=1e-5, test="relnorm")),
}


def backend_spec(name):
    if ":" in name:
        method, pc = name.split(":")
        return PETScSettings(solver=method.replace("petsc-", ""), preconditioner=pc)
    return name


def problem(kind, size, backend, steps):
    make, kw = MODELS[kind]
    h = kw["time_step"]
    return InitialValueProblem(make(size), final_time=steps * h, method="ms", rho=0.6, max_iterations=20,
                               keep_results=False, progress=False, linear_solver=backend_spec(backend),
                               modified_newton=True, iterations_before_assembly=20, refresh_contraction=0.5, **kw)


def measure(kind, size, backend, steps, repeat):
    prob = problem(kind, size, backend, steps)
    t0 = time.perf_counter()
    stats = prob.run()
    wall = time.perf_counter() - t0
    lin = prob.newton.linear
    st = prob.state
    f, _, J = prob.system.evaluate(st, prob.method.dcoef(prob.settings.time_step) if hasattr(prob.method, "dcoef")
                                   else 0.5 * prob.settings.time_step)
    b = np.ones(J.shape[0])

    def factor_solve():
        lin.factor(J)
        lin.solve(b)
    floor = best_of(factor_solve, repeat)
    return wall / stats["steps"], floor, stats, prob.system.n, J.nnz, lin.description


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chain", type=int, nargs="*", default=[100, 1000, 10000])
    ap.add_argument("--cube", type=int, nargs="*", default=[4, 8])
    ap.add_argument("--plate", type=int, nargs="*", default=[40, 100])
    ap.add_argument("--backends", nargs="*", default=["default", "superlu", "klu", "kvxopt-umfpack", "petsc-klu",
                                                      "petsc-mumps", "petsc-umfpack",
                                                      "petsc-fgmres:ilu", "petsc-fgmres:asm"])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    print("| model | unknowns | entries | back end | ms / step | floor (ms) | step / floor | Newton it. |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, sizes in (("chain", a.chain), ("cube", a.cube), ("plate", a.plate)):
        for size in sizes:
            problem(kind, size, "klu", 2).run()               # compile and warm the kernels
            for backend in a.backends:
                try:
                    per_step, floor, stats, n, nnz, what = measure(kind, size, backend, a.steps, a.repeat)
                except (SingularMatrix, RuntimeError, ValueError) as err:
                    print(f"| {kind} {size} | | | {backend} | failed: {str(err).splitlines()[0][:100]} | | | |")
                    continue
                print(f"| {kind} {size} | {n} | {nnz} | {backend} | {1e3 * per_step:.3f} | {1e3 * floor:.3f} | "
                      f"{per_step / floor:.1f} | {stats['newton_iterations']} |", flush=True)


if __name__ == "__main__":
    main()
