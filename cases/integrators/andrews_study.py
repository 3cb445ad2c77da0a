"""Integrator study on Andrews' squeezing mechanism (exact IVP test-set problem, reference
q(0.03) of the test set) at equal work: each method's step is the base step times its
implicit solves per step.  Writes andrews.csv, andrews.md and, with matplotlib, PNG plots
of error vs step and error vs CPU time into the output folder.

Run: python cases/integrators/andrews_study.py [--out DIR] [--steps 2e-5 1e-5]"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import andrews_squeezer as aq  # noqa: E402
from mbdae.engine.compare import ComparisonCase, compare, fitted_orders, write_csv, markdown_table, plot  # noqa: E402

METHODS = [("crank nicolson", 1.0), ("implicit euler", 0.0), ("bdf", 0.0), ("ms", 0.6), ("hope", 0.6),
           ("ms3", 0.0), ("ms3", 0.6), ("ms4", 0.0), ("ms4", 0.6), ("ss2", 0.0), ("ss2", 0.6), ("ss3", 0.0),
           ("ss3", 0.6), ("ss4", 0.0), ("ss4", 0.6), ("bathe", 0.0), ("bathe", 0.6), ("msstc3", 0.0),
           ("msstc3", 0.6), ("msstc4", 0.0), ("msstc4", 0.6), ("msstc5", 0.0), ("msstc5", 0.6),
           ("mssth3", 0.0), ("mssth4", 0.0), ("mssth5", 0.0), ("dirk33", 0.0), ("dirk43", 0.0),
           ("dirk54", 0.0)]
"""MBDyn's benchmark list (tests/benchmarks/*/…_int) plus Crank-Nicolson, implicit Euler, hope."""


def observe(r):
    import numpy as np
    return np.array([aq.coordinates(a) for a in aq.unwrapped_angles(r)])[-1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--steps", type=float, nargs="+", default=[2e-5, 1e-5])
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    case = ComparisonCase("andrews", aq.squeezer_model, 0.03, observe, reference=aq.Q_REF_003,
                          settings=dict(tolerance=1e-10, test="relnorm", max_iterations=20,
                                        min_time_step=1e-9))
    rows = compare(case, METHODS, a.steps)
    orders = fitted_orders(rows)
    write_csv(rows, os.path.join(a.out, "andrews.csv"))
    with open(os.path.join(a.out, "andrews.md"), "w") as f:
        f.write("# Andrews' squeezer: error of q(0.03) at equal work\n\n" + markdown_table(rows, orders))
    try:
        plot(rows, os.path.join(a.out, "andrews"), "Andrews' squeezer, q(0.03)")
    except ImportError:
        print("matplotlib not installed: no plots")
    print(markdown_table(rows, orders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
