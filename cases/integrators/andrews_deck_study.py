"""Integrator study on MBDyn's own Andrews' squeezer deck, `andrewssqueezer_int` (read in
place from ../shared/mbdyn-tests/benchmarks/andrewssqueezer), at equal work: every method
of solvers/integrators.py METHOD_NAMES, with the ρ∞ values of the deck's method list, at
base steps × implicit solves per step (the deck's own rule: 1e-5 for ms/ss, 2e-5 for
Bathe, 3e-5 for the 3-stage methods, ...).  The method is substituted by overriding the
deck's settings (nothing is written next to the deck).

Observed at t = 0.03 s against a fine-step run of the same deck (dirk54, h = 1e-5, Newton
1e-10): the crank angle β (node LINK_O_F, unwrapped), the positions of all nodes, and the
energy balance the deck itself writes: its force on node C carries Σ body "E", the spring
energy of rod "L" and τ(rz − β0) (.frc columns), so max|E + V − W − V0| / W(0.03) measures
the energy an integrator loses or gains.

The deck's `derivatives tolerance: 1e6` accepts an unconverged derivatives phase whose start
error is O(h) (tests/test_andrews_deck.py); it would mask the integrators' orders, so the
study converges that phase (derivatives tolerance 1e-8).  Everything else is the deck's
(tolerance 1e-6 on the residual norm, 20 iterations).

Run: python cases/integrators/andrews_deck_study.py [--out DIR] [--steps 4e-5 2e-5]
Writes andrews_deck.csv, andrews_deck.md, andrews_deck_error_vs_step.png,
andrews_deck_error_vs_cpu.png, andrews_deck_costs.png, andrews_deck_energy_balance.png."""
import argparse
import csv
import os
import sys
import tempfile
import time

import numpy as np

from mbdae.engine import compare as cmp
from mbdae.engine.io.mbdyn.deck import read_deck
from mbdae.solvers.integrators import METHOD_NAMES, make_method

HERE = os.path.dirname(os.path.abspath(__file__))
DECK = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "mbdyn-tests", "benchmarks",
                                     "andrewssqueezer", "andrewssqueezer_int"))
CRANK, FORCE_C = 1600, 300                   # LINK_O_F and POINT_C in andrewssqueezer.set
FINAL_TIME = 0.03

# the deck's list (ρ∞ = 0 and 0.6 where MBDyn takes one, MSSTH with 0 only), then the
# methods it does not list (Crank-Nicolson, implicit Euler, hope)
METHODS = [("bdf", 0.0), ("ms", 0.6), ("ms3", 0.0), ("ms3", 0.6), ("ms4", 0.0), ("ms4", 0.6),
           ("ss2", 0.0), ("ss2", 0.6), ("ss3", 0.0), ("ss3", 0.6), ("ss4", 0.0), ("ss4", 0.6),
           ("bathe", 0.0), ("bathe", 0.6), ("msstc3", 0.0), ("msstc3", 0.6), ("msstc4", 0.0),
           ("msstc4", 0.6), ("msstc5", 0.0), ("msstc5", 0.6), ("mssth3", 0.0), ("mssth4", 0.0),
           ("mssth5", 0.0), ("dirk33", 0.0), ("dirk43", 0.0), ("dirk54", 0.0),
           ("crank nicolson", 1.0), ("implicit euler", 0.0), ("hope", 0.6)]
assert {make_method(n, r).name for n, r in METHODS} >= {make_method(n, 0.0).name for n in METHOD_NAMES}
ROBUSTNESS = [("mssth5", 0.0, 4e-4)]
"""The deck's comment: mssth5, ρ∞ = 0 "give obviously wrong results after 0.01s when using
dt=4e-4" (run at that step, outside the equal-work grid)."""


def crank_angle(results):
    R = np.asarray(results.R)[:, results.index(CRANK)]
    return np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0]))


def make_case(prefix):
    """ComparisonCase of the deck; each run writes its output files at `prefix` (the .frc
    is read right after the run)."""
    quiet = lambda *a, **k: None                       # noqa: E731
    deck = read_deck(DECK, echo=quiet)
    settings = {k: v for k, v in deck.settings.items()
                if k not in ("method", "rho", "time_step", "final_time", "output_prefix", "strategy")}
    settings.update(progress=False, derivatives_tolerance=1e-8, output_prefix=prefix)

    def energy_balance(results):
        frc = np.loadtxt(prefix + ".frc", ndmin=2)
        if len(frc) != len(results.t) or not (frc[:, 0] == FORCE_C).all():
            raise ValueError(f"{prefix}.frc: {len(frc)} rows of force {FORCE_C} expected, one per step")
        E, V, W = frc[:, 2], frc[:, 3], frc[:, 4]
        return (E + V - W - V[0]) / W[-1]

    def observe(results):
        return np.r_[crank_angle(results)[-1], np.max(np.abs(energy_balance(results))),
                     np.asarray(results.x[-1]).ravel()]

    return cmp.ComparisonCase("andrewssqueezer_int", lambda: read_deck(DECK, echo=quiet).model, FINAL_TIME,
                              observe, settings=settings,
                              monitors=lambda r: {"energy balance": energy_balance(r)})


def run(base_steps, reference_step, out):
    work = tempfile.mkdtemp(prefix="andrews_deck_")
    case = make_case(os.path.join(work, "run"))
    t0 = time.process_time()
    ref = cmp.run_one(case, "dirk54", 0.0, reference_step, tolerance=1e-10)
    if ref["failure"]:
        raise SystemExit(f"reference run failed: {ref['failure']}")
    reference = ref["observed"]
    print(f"reference dirk54 h={reference_step:g}: beta(0.03) = {reference[0]:.12f} rad, "
          f"energy balance {reference[1]:.2e}, {ref['cpu']:.1f} s CPU", flush=True)
    runs = [(name, rho, hb * cmp.solves_per_step(make_method(name, rho)), hb)
            for name, rho in METHODS for hb in base_steps]
    runs += [(name, rho, h, np.nan) for name, rho, h in ROBUSTNESS]
    rows = []
    for name, rho, h, hb in runs:
        row = cmp.run_one(case, name, rho, h)
        row["base_step"] = hb
        row["position_error"] = row["energy_balance"] = np.nan
        if "observed" in row:
            o = row["observed"]
            row["error"] = abs(o[0] - reference[0])
            row["position_error"] = float(np.max(np.abs(o[2:] - reference[2:])))
            row["energy_balance"] = o[1]
        rows.append(row)
        print(f"{row['method']:>15} rho={rho:<4g} h={row['h']:<8.3g} crank error {row['error']:.3e} "
              f"energy {row['energy_balance']:.2e} it/step {iterations_per_step(row):.2f} "
              f"cpu {row['cpu']:.1f} s {row['failure']}", flush=True)
    write(rows, ref, reference_step, time.process_time() - t0, base_steps, out)
    return rows


def iterations_per_step(row):
    return row["newton_iterations"] / row["steps"] if row["steps"] else float("nan")


COLUMNS = ["method", "rho", "base_step", "h", "solves", "error", "position_error", "energy_balance", "cpu",
           "steps", "newton_iterations", "factorizations", "failure"]
HEADER = ["| method | ρ∞ | h | crank error | position error | energy | CPU (s) | Newton it./step | "
          "factorizations | note |", "|---|---|---|---|---|---|---|---|---|---|"]


def table_row(r):
    return (f"| {r['method']} | {r['rho']:g} | {r['h']:.3g} | {r['error']:.3e} | {r['position_error']:.2e} | "
            f"{r['energy_balance']:.2e} | {r['cpu']:.2f} | {iterations_per_step(r):.2f} | "
            f"{r['factorizations']} | {r['failure']} |")


def write(rows, ref, reference_step, total, base_steps, out):
    os.makedirs(out, exist_ok=True)
    prefix = os.path.join(out, "andrews_deck")
    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    grid = [r for r in rows if np.isfinite(r["base_step"])]
    extra = [r for r in rows if not np.isfinite(r["base_step"])]
    orders = cmp.fitted_orders(grid)
    lines = [f"# Andrews' squeezer deck (andrewssqueezer_int): errors at t = {FINAL_TIME:g} s at equal work",
             "",
             f"Reference: the same deck, dirk54 at h = {reference_step:g} (Newton 1e-10), "
             f"β(0.03) = {ref['observed'][0]:.10f} rad, its own energy balance {ref['observed'][1]:.1e}.",
             f"Base steps {', '.join(f'{h:g}' for h in base_steps)} × implicit solves per step; "
             f"deck settings (residual norm 1e-6, 20 iterations), derivatives phase converged (1e-8).",
             f"Total CPU time of the study: {total:.0f} s.", "",
             "crank error = |β − β_ref| (rad); position error = max over the nodes (m); energy = "
             "max |E + V − W − V0| / W(0.03) from the deck's .frc.", ""]
    lines += HEADER + [table_row(r) for r in grid]
    if extra:
        lines += ["", "MBDyn's documented failure case (the deck's comment), outside the equal-work grid:", ""]
        lines += HEADER + [table_row(r) for r in extra]
    lines += ["", "| method | ρ∞ | observed order (crank angle) |", "|---|---|---|"]
    lines += [f"| {m} | {rho:g} | {p:.2f} |" for (m, rho), p in orders.items()]
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        cmp.plot(grid, prefix, "Andrews' squeezer deck, crank angle at 0.03 s")
        cmp.plot_costs(grid, prefix, "Andrews' squeezer deck")
        plot_energy(grid, prefix + "_energy_balance.png")
    except ImportError:
        print("matplotlib not installed: no plots")


def plot_energy(rows, path):
    """|E + V − W − V0| / W(0.03) over time of each method's finest run, one-solve methods
    and multi-stage methods side by side (log scale)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    finest = cmp.finest_runs(rows)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True)
    for i, (key, r) in enumerate(finest.items()):
        t, series = r["series"]
        ax = axes[0] if r["solves"] == 1 else axes[1]
        ax.semilogy(t[1:], np.maximum(np.abs(series["energy balance"][1:]), 1e-12),
                    "-" if i % 2 == 0 else "--", color=plt.get_cmap("tab20")(i % 20), lw=1,
                    label=f"{key[0]} ρ∞={key[1]:g} h={r['h']:.2g}")
    for ax, title in zip(axes, ("one implicit solve per step", "multi-stage")):
        ax.set_title(title)
        ax.set_xlabel("time (s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    axes[0].set_ylabel("|E + V − W − V0| / W(0.03)")
    fig.suptitle("Andrews' squeezer deck: energy balance from the deck's own output force")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--steps", type=float, nargs="+", default=[4e-5, 2e-5])
    ap.add_argument("--reference-step", type=float, default=1e-5, help="dirk54 step of the reference run")
    a = ap.parse_args(argv)
    if not os.path.isfile(DECK):
        raise SystemExit(f"deck not found: {DECK} (../shared/mbdyn-tests relative to the repository)")
    run(a.steps, a.reference_step, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
