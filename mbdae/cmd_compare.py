"""`mbdae compare`: one deck or Python case over methods × step sizes (× ρ∞) against a
reference; CSV, Markdown and PNG plots, fitted orders printed (engine/compare.py).

    python -m mbdae compare DECK.mbd --methods ms:0.6 bathe:0 dirk54 --steps 1e-3 5e-4 -o out/cmp
    python -m mbdae compare case.py  --methods ms bdf --rho 0 0.6 --steps 1e-3 5e-4

A Python case module defines `case()` returning an engine.compare.ComparisonCase (with
optional `monitors(results) -> {"energy": …, "constraint drift": …}` for the time plots);
`module.py:NAME` calls the module's NAME() (or CASES[NAME]()) instead.

`--orders` measures the observed order of each method per component (positions,
velocities, multipliers) over the steps as given, against the predicted order of the
method on index-3 problems (Method.constrained_orders), with the points on the fitted line
and the effect of a 10× looser Newton tolerance on the finest error; `--check` makes the
command fail when an observed order disagrees:

    python -m mbdae compare cases/integrators/constrained.py:pendulum --orders --check \
        --methods ms:0.6 bathe:0 dirk33 --steps 0.005 0.0025 0.00125 0.000625
For a deck the observed vector is the final position of every structural node; the
reference is `--reference FILE` (numbers, whitespace separated) or an automatic run of
`--reference-method` (default dirk54) at `--reference-step` (default: the finest step / 10).
"""
import importlib.util
import os
import sys

import numpy as np

from mbdae.engine import compare as cmp
from mbdae.solvers.integrators import FIXED_RHO, make_method
from mbdae.engine.io.mbdyn.deck import read_deck


def add_arguments(p):
    p.add_argument("target", help="MBDyn deck, or a Python module defining case()")
    p.add_argument("--methods", nargs="+", default=["ms:0.6", "bdf", "bathe:0", "dirk54"],
                   help="NAME[:RHO] items (default: ms:0.6 bdf bathe:0 dirk54)")
    p.add_argument("--rho", type=float, nargs="+", help="ρ∞ values for methods given without one")
    p.add_argument("--steps", type=float, nargs="+", required=True, help="base time steps")
    p.add_argument("--no-equal-work", action="store_true",
                   help="use the steps as given (default: base step × implicit solves per step)")
    p.add_argument("--final-time", type=float, help="override the final time")
    p.add_argument("--reference", help="file with the reference observed vector")
    p.add_argument("--reference-method", default="dirk54", help="NAME[:RHO] of the automatic reference run")
    p.add_argument("--reference-step", type=float, help="step of the automatic reference run")
    p.add_argument("--orders", action="store_true",
                   help="observed orders per component (positions, velocities, multipliers) against the "
                        "predicted index-3 orders; steps as given")
    p.add_argument("--check", action="store_true", help="with --orders: exit 1 when an observed order disagrees")
    p.add_argument("-o", "--output", dest="prefix", default="compare", help="output prefix (default: compare)")


def parse_methods(items, rhos):
    out = []
    for item in items:
        name, _, rho = item.partition(":")
        name = name.replace("_", " ")
        probe = float(rho) if rho else (rhos or [0.6])[0]
        key = make_method(name, probe).name             # unknown names fail here, clearly
        if rho:
            out.append((name, float(rho)))
        elif key in FIXED_RHO:
            out.append((name, FIXED_RHO[key]))
        else:
            out += [(name, r) for r in (rhos or [0.6])]
    return out


def deck_observe_components(r):
    """Final node positions and velocities and joint reactions of a deck's run."""
    out = {"positions": np.asarray(r.x[-1]).ravel(), "velocities": np.asarray(r.v[-1]).ravel()}
    if r.joint_labels is not None and len(r.joint_labels):
        out["multipliers"] = np.asarray(r.joint_force[-1]).ravel()
    return out


def deck_case(path, final_time, reference_method, reference_step, components=False):
    quiet = lambda *a, **k: None                       # noqa: E731
    deck = read_deck(path, echo=quiet)
    settings = {k: v for k, v in deck.settings.items()
                if k not in ("method", "rho", "time_step", "final_time", "output_prefix", "strategy")}
    settings["progress"] = False
    T = final_time if final_time is not None else deck.settings.get("final_time", 0.0)
    return cmp.ComparisonCase(os.path.basename(path), lambda: read_deck(path, echo=quiet).model, T,
                              deck_observe_components if components else lambda r: np.asarray(r.x[-1]).ravel(),
                              settings=settings,
                              reference_method=reference_method, reference_step=reference_step)


def module_case(target):
    path, _, name = target.partition(".py:")
    path = path if path.endswith(".py") else path + ".py"
    spec = importlib.util.spec_from_file_location("mbdae_compare_case", path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(mod)
    if name:
        make = getattr(mod, "CASES", {}).get(name) or getattr(mod, name, None)
        if make is None:
            raise ValueError(f"{path}: no case named '{name}'")
        return make()
    if not hasattr(mod, "case"):
        raise ValueError(f"{path}: a Python case module must define case() returning a ComparisonCase")
    return mod.case()


def command(args):
    methods = parse_methods(args.methods, args.rho)
    ref_name, _, ref_rho = args.reference_method.partition(":")
    ref_method = (ref_name, float(ref_rho) if ref_rho else FIXED_RHO.get(make_method(ref_name, 0).name, 0.0))
    ref_step = args.reference_step or min(args.steps) / 10
    if args.target.endswith(".py") or ".py:" in args.target:
        case = module_case(args.target)
        if args.final_time is not None:
            case.final_time = args.final_time
        if case.reference is None:
            case.reference_method = ref_method
            case.reference_step = args.reference_step or case.reference_step or ref_step
    else:
        case = deck_case(args.target, args.final_time, ref_method, ref_step, components=args.orders)
    if args.reference:
        case.reference = np.loadtxt(args.reference).ravel()
    if args.orders:
        return order_command(case, methods, args)
    rows = cmp.compare(case, methods, args.steps, equal_work=not args.no_equal_work)
    orders = cmp.fitted_orders(rows)
    folder = os.path.dirname(args.prefix)
    if folder:
        os.makedirs(folder, exist_ok=True)
    cmp.write_csv(rows, args.prefix + ".csv")
    table = cmp.markdown_table(rows, orders)
    with open(args.prefix + ".md", "w") as f:
        f.write(f"# {case.name}: integrators at t = {case.final_time:g}\n\n" + table)
    files = [args.prefix + ".csv", args.prefix + ".md"]
    try:
        files += cmp.plot(rows, args.prefix, case.name)
        files.append(cmp.plot_costs(rows, args.prefix, case.name))
        files += cmp.plot_series(rows, args.prefix, case.name)
    except ImportError:
        print("mbdae: note: matplotlib is not installed: no plots", file=sys.stderr)
    print(table)
    print("observed orders: " + ", ".join(f"{m} ρ∞={r:g}: {p:.2f}" for (m, r), p in orders.items()))
    print("written: " + " ".join(files))
    return 0


def order_command(case, methods, args):
    """`--orders`: the per-component order table (Markdown, printed and written)."""
    if case.reference is None:
        case.reference = cmp.reference_solution(case)
    rows = cmp.order_study(case, methods, args.steps)
    table = cmp.order_table_markdown(rows, f"{case.name}: observed orders at t = {case.final_time:g}")
    folder = os.path.dirname(args.prefix)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(args.prefix + "_orders.md", "w") as f:
        f.write(table)
    print(table)
    print("written: " + args.prefix + "_orders.md")
    bad = [f"{r['method']} ρ∞={r['rho']:g}" for r in rows
           if r["failure"] or not all(cmp.order_agrees(r, c) for c in r["fits"])]
    if bad:
        print("mbdae compare: observed order differs from the predicted one: " + ", ".join(bad), file=sys.stderr)
    return 1 if (args.check and bad) else 0
