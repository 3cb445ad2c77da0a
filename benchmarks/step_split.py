"""Where a step's time goes: the cost per step of a run split into element kernels (each
family's evaluate), node kinematics, scatter (assembly of f, f̃ and the matrix values),
factorization, solve, and the rest (Newton bookkeeping, integrator, history, commits), and
beside it the floor of the linear algebra: refactor + solve of the same matrix, alone.

Timers wrap the methods of one run's objects (a few tenths of a microsecond per call);
the total is the run's own wall time.  Models: the chain of benchmarks/chain.py, the beam
cantilever of benchmarks/beam.py.
Usage: python benchmarks/step_split.py [--chain N ...] [--beam NE ...] [--final-time T]"""
import argparse
import time
from collections import defaultdict

import numpy as np

import chain as chain_bench
import beam as beam_bench
from mbdae.engine.drivers.ivp import InitialValueProblem


def timed(table, key, fn):
    def wrapper(*args, **kw):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            table[key] += time.perf_counter() - t0
    return wrapper


def instrument(prob):
    """Wrap the parts of one problem's step with timers; returns the table (seconds).  The
    scatter is what System.evaluate costs beyond the families and its node kinematics (the
    assembly of f, f̃ and the matrix values, and the loop over the families)."""
    table = defaultdict(float)
    sysm = prob.system
    inside = [False]
    for fam in sysm.all_families:
        fam.evaluate = timed(table, "element kernels", fam.evaluate)
    kinematics = sysm.kinematics

    def timed_kinematics(*args, **kw):
        t0 = time.perf_counter()
        try:
            return kinematics(*args, **kw)
        finally:
            key = "kinematics" if inside[0] else "kinematics for commits and output"
            table[key] += time.perf_counter() - t0
    sysm.kinematics = timed_kinematics
    evaluate = sysm.evaluate

    def timed_evaluate(*args, **kw):
        inside[0] = True
        t0 = time.perf_counter()
        try:
            return evaluate(*args, **kw)
        finally:
            table["system evaluate"] += time.perf_counter() - t0
            inside[0] = False
    sysm.evaluate = timed_evaluate
    lin = prob.newton.linear
    lin.factor = timed(table, "factorization", lin.factor)
    lin.solve = timed(table, "solve", lin.solve)
    return table


def floor(prob, repeat=200):
    """Refactor + solve of the last iteration matrix, alone (seconds per pair)."""
    st = prob.state
    f, _, J = prob.system.evaluate(st, 1e-3 * 0.5)
    lin = prob.newton.linear
    lin.factor(J)
    b = np.ones(J.shape[0])
    t0 = time.perf_counter()
    for _ in range(repeat):
        lin.factor(J)
        lin.solve(b)
    return (time.perf_counter() - t0) / repeat


def run(name, problem):
    problem.run()                                   # compile and warm the caches
    prob = problem.fresh()
    table = instrument(prob)
    t0 = time.perf_counter()
    stats = prob.run()
    total = time.perf_counter() - t0
    steps = stats["steps"]
    parts = dict(table)
    parts["scatter"] = parts.pop("system evaluate") - parts["element kernels"] - parts["kinematics"]
    parts["rest (Newton, integrator, history, commits)"] = total - sum(parts.values())
    fl = floor(prob)
    print(f"{name}: {steps} steps, {stats['newton_iterations']} iterations, {stats['factorizations']} "
          f"factorizations, {prob.newton.linear.name} — {1e3 * total / steps:.3f} ms per step; "
          f"linear floor (refactor + solve) {1e3 * fl:.3f} ms = {total / steps / fl:.1f}x of a step")
    for key, value in parts.items():
        print(f"    {key:45s} {1e3 * value / steps:8.4f} ms/step  {100 * value / total:5.1f} %")


class Problem:
    def __init__(self, make):
        self.make = make

    def run(self):
        return self.make().run()

    def fresh(self):
        return self.make()


def chain_problem(n, final_time):
    return Problem(lambda: InitialValueProblem(
        chain_bench.chain_model(n), final_time=final_time, time_step=1e-3, method="ms", rho=0.6,
        tolerance=1e-6, test="relnorm", max_iterations=20, keep_results=False,
        linear_solver=chain_bench.DEFAULT_SOLVER, modified_newton=True, iterations_before_assembly=20,
        refresh_contraction=0.5))


def beam_problem(ne, final_time):
    return Problem(lambda: InitialValueProblem(
        beam_bench.cantilever_model(ne), time_step=1e-3, final_time=final_time, method="ms", rho=0.6,
        progress=False, keep_results=False,
        **beam_bench.settings_for("modified", "relnorm", 1e-6, chain_bench.DEFAULT_SOLVER)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chain", type=int, nargs="*", default=[10, 100])
    ap.add_argument("--beam", type=int, nargs="*", default=[])
    ap.add_argument("--final-time", type=float, default=1.0)
    a = ap.parse_args()
    print(f"load average {np.round(__import__('os').getloadavg(), 2).tolist()}")
    for n in a.chain:
        run(f"chain N={n}", chain_problem(n, a.final_time))
    for ne in a.beam:
        run(f"beam NE={ne}", beam_problem(ne, a.final_time))


if __name__ == "__main__":
    main()
