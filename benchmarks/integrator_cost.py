"""Cost per step of every integrator on the chain benchmark (benchmarks/chain.py: N spherical-
hinge links under gravity), one process, methods run in turn after a warm-up run:
wall time per step, Newton iterations per step (summed over the stages) and
factorizations per step, at the same step h for every method (not equal work: a
multistage method does its stages within each step).

Usage: python benchmarks/integrator_cost.py [--links 100] [--final-time 0.2] [--step 1e-3]
                                            [--methods ms:0.6 bathe:0 ...]
Prints a Markdown table (the README's integrator table takes its cost column from it)."""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chain import chain_model, DEFAULT_SOLVER  # noqa: E402
from mbdae.engine.drivers.ivp import InitialValueProblem  # noqa: E402

ALL = ["implicit euler:0", "crank nicolson:1", "ms:0.6", "bdf:0", "hope:0.4", "ms3:0.6", "ms4:0.6", "ss2:0.6",
       "ss3:0.6", "ss4:0.6", "bathe:0.6", "msstc3:0.6", "msstc4:0.6", "msstc5:0.6", "mssth3:0.6", "mssth4:0.6",
       "mssth5:0", "dirk33:0", "dirk43:0", "dirk54:0", "thirdorder:0.6", "thirdorder ad hoc:0"]


def run(n, name, rho, T, h):
    prob = InitialValueProblem(chain_model(n), final_time=T, time_step=h, method=name, rho=rho,
                               tolerance=1e-6, test="relnorm", linear_solver=DEFAULT_SOLVER, progress=False,
                               keep_results=False)
    t0 = time.perf_counter()
    prob.run()
    wall = time.perf_counter() - t0
    s = prob.stats
    return wall / s["steps"], s["newton_iterations"] / s["steps"], s["factorizations"] / s["steps"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--links", type=int, default=100)
    ap.add_argument("--final-time", type=float, default=0.2)
    ap.add_argument("--step", type=float, default=1e-3)
    ap.add_argument("--methods", nargs="+", default=ALL)
    a = ap.parse_args(argv)
    run(a.links, "ms", 0.6, 0.02, a.step)                       # warm-up: kernels loaded, caches filled
    print(f"chain of {a.links} links, h = {a.step:g}, {a.final_time:g} s, {DEFAULT_SOLVER}, relnorm 1e-6; "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| method | ρ∞ | ms per step | Newton it. per step | factorizations per step |")
    print("|---|---|---|---|---|")
    for item in a.methods:
        name, _, rho = item.partition(":")
        per, it, fac = run(a.links, name, float(rho or 0.0), a.final_time, a.step)
        print(f"| {name} | {float(rho or 0):g} | {1e3 * per:.2f} | {it:.2f} | {fac:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
