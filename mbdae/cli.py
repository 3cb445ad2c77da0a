"""The `mbdae` command: run or check an MBDyn input deck.

    python -m mbdae run DECK [-o PREFIX] [--final-time T]   # like `mbdyn -f DECK -o PREFIX`
    python -m mbdae check DECK                              # read only: model summary
    python -m mbdae plot PREFIX --node N --what x|v|w|euler # PNG of a node's motion
    python -m mbdae conformance DIR [--budget S] [-o PREFIX] [--ref REF] # every deck: table
    python -m mbdae compare TARGET --steps H... [--methods M[:RHO]...]  # integrator bench

Errors in the deck or in the run are one line on stderr and exit code 1; `--debug` shows
the traceback instead.  A deck that calls `stop(true, code)` exits with that code.
"""
import argparse
import glob
import os
import sys
import time
from collections import Counter

from mbdae import cmd_plot
from mbdae import cmd_compare
from mbdae.engine.io.mbdyn.deck import DeckError, DeckStop, read_deck
from mbdae.engine.io.mbdyn.conformance import conformance, write_reports
from mbdae.engine.drivers.ivp import SimulationFailed
from mbdae.engine.system import System


def build_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    p = argparse.ArgumentParser(prog="mbdae", description="Run MBDyn input decks with the mbdae engine.")
    p.add_argument("--debug", dest="debug_first", action="store_true", help="show tracebacks on errors")
    sub = p.add_subparsers(dest="command", required=True, metavar="{run,check,conformance,plot,compare}")
    run = sub.add_parser("run", parents=[common], help="read and run a deck (like mbdyn -f DECK)")
    run.add_argument("deck", help="MBDyn input file")
    run.add_argument("-o", "--output", dest="prefix",
                     help="output file prefix (default: the deck path, as MBDyn does)")
    run.add_argument("--final-time", type=float, help="override the deck's final time")
    run.add_argument("-q", "--quiet", action="store_true", help="no notes and no progress")
    check = sub.add_parser("check", parents=[common], help="read a deck and summarize the model")
    check.add_argument("deck", help="MBDyn input file")
    conf = sub.add_parser("conformance", parents=[common],
                          help="read and run every deck under DIR; Markdown and CSV table")
    conf.add_argument("dir", help="folder searched for main decks (files with `begin: data;`)")
    conf.add_argument("--budget", type=float, default=60.0, help="wall-time budget per deck, s (default 60)")
    conf.add_argument("-o", "--output", dest="prefix", default="conformance",
                      help="report prefix: PREFIX.md and PREFIX.csv (default: conformance)")
    conf.add_argument("--ref", default="auto",
                      help="MBDyn's reference outputs (folder with manifest.csv and visible/) to compare "
                           "with; default: mbdyn-ref next to the tree, 'none' to skip the comparison")
    cmd_plot.add_parser(sub, common)
    cmd_compare.add_parser(sub, common)
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    args.debug = args.debug or args.debug_first
    try:
        return COMMANDS[args.command](args)
    except DeckStop as e:
        print(f"mbdae: {e}", file=sys.stderr)
        return int(e.code)
    except Exception as e:  # noqa: BLE001 - one clear line unless --debug
        if args.debug:
            raise
        print(f"mbdae: {describe(e)}", file=sys.stderr)
        return 1


def describe(error):
    if isinstance(error, DeckError):
        return str(error)
    if isinstance(error, SimulationFailed):
        return f"simulation failed: {error}"
    if isinstance(error, OSError):
        return f"cannot read {error.filename}: {error.strerror}" if error.filename else str(error)
    return f"{type(error).__name__}: {error} (rerun with --debug for the traceback)"


def print_notes(deck, stream=sys.stderr):
    for note in deck.notes:
        print(f"mbdae: note: {note}", file=stream)


def command_run(args):
    deck = read_deck(args.deck, echo=print)
    if not args.quiet:
        print_notes(deck)
    if deck.abort_after and deck.abort_after[0] == "input":
        print("mbdae: abort after input: the deck was read, nothing was run", file=sys.stderr)
        return 0
    prefix = args.prefix or args.deck
    if prefix.endswith(os.sep):
        prefix = os.path.join(prefix, os.path.basename(args.deck))
    overrides = {}
    if args.final_time is not None:
        overrides["final_time"] = args.final_time
    if args.quiet:
        overrides["progress"] = False
    t0 = time.perf_counter()
    started = time.time()
    # the files are the results: nothing is kept in memory (a direct run returns its statistics)
    results = deck.run(output_prefix=prefix, keep_results=False, **overrides)
    wall = time.perf_counter() - t0
    if results is not None and not args.quiet:
        if isinstance(results, dict):
            stats, t_end = results, results.get("final_time", float("nan"))
        else:
            stats = results.stats or {}
            t_end = results.t[-1] if len(results.t) else float("nan")
        steps = stats.get("steps", stats.get("instants", 0))
        print(f"mbdae: {steps} {'instants' if 'instants' in stats else 'steps'} to time {t_end:g} in {wall:.2f} s; "
              f"output in {prefix}.{{{','.join(written_extensions(prefix, started))}}}", file=sys.stderr)
    return 0


def written_extensions(prefix, since):
    """Extensions of the files PREFIX.<ext> written since the time `since` (s since the epoch)."""
    found = []
    for path in glob.glob(glob.escape(prefix) + ".*"):
        ext = path[len(prefix) + 1:]
        if os.sep not in ext and os.path.getmtime(path) >= since - 1.0:
            found.append(ext)
    return sorted(found)


def command_check(args):
    deck = read_deck(args.deck, echo=print)
    print_notes(deck)
    for line in check_report(deck):
        print(line)
    return 0


def check_report(deck):
    """What `check` prints: nodes, elements by family, unknowns and equations, problem."""
    m = deck.model
    kinds = Counter(s.kind for s in m.nodes)
    lines = [f"deck: {deck.path}"]
    if deck.title:
        lines.append(f"title: {deck.title}")
    lines.append(f"structural nodes: {len(m.nodes) + len(m.dummy_nodes)} "
                 f"({kinds.get('static', 0)} static, {kinds.get('dynamic', 0)} dynamic, "
                 f"{len(m.dummy_nodes)} dummy)")
    lines.append("elements:")
    lines.append(f"  rigid bodies: {len(m.bodies)}")
    joints = Counter(s.type for s in m.joints)
    lines.append(f"  joints: {len(m.joints) + len(m.rods)}"
                 + _breakdown(joints + Counter({"rod": len(m.rods)} if m.rods else {})))
    forces = Counter(f"{s.frame}{' internal' if s.node2 is not None else ''} {s.kind}" for s in m.forces)
    lines.append(f"  forces: {len(m.forces)}" + _breakdown(forces))
    lines.append(f"  gravity: {'yes' if m.gravity_vector is not None else 'no'}")
    s = deck.settings
    if "inverse_dynamics" in s:
        # bodies may sit on static nodes there (the mass matrix is explicit): the inverse
        # problem builds its own systems, which `check` reports without running anything
        inv = deck.inverse_problem()
        lines.append(f"problem: inverse dynamics ({inv.problem_type}), {len(inv.times)} instants, "
                     f"t = {inv.times[0]:g} .. {inv.times[-1]:g}")
        return lines
    system = System(m)
    lines.append("element families (instances, own unknowns):")
    for fam in system.families:
        lines.append(f"  {fam.name}: {fam.ne}, {fam.n_internal}")
    n_alg = int(system.is_alg.sum())
    lines.append(f"unknowns: {system.n} ({system.n - n_alg} differential, {n_alg} algebraic)")
    lines.append(f"equations: {system.n}")
    method = s.get("method", "ms")
    rho = f", rho {s['rho']:g}" if method not in ("crank nicolson", "implicit euler", "bdf") else ""
    lines.append(f"problem: initial value, t = {s.get('initial_time', 0.0):g} .. {s.get('final_time', 0.0):g}, "
                 f"time step {s.get('time_step', 1e-3):g}, method {method}{rho}")
    return lines


def _breakdown(counter):
    if not counter:
        return ""
    return " (" + ", ".join(f"{n} {name}" for name, n in sorted(counter.items())) + ")"


def command_conformance(args):
    ref = None if args.ref.lower() == "none" else args.ref
    folder = os.path.dirname(os.path.abspath(args.prefix))
    os.makedirs(folder, exist_ok=True)        # before the long run, not after it
    outcomes = conformance(args.dir, budget=args.budget, ref_root=ref)
    t = write_reports(outcomes, args.dir, args.prefix)
    print(f"decks found: {t['found']}, parsed: {t['parsed']}, ran to completion: {t['ran']}, "
          f"compared with MBDyn: {t['compared']}, agree: {t['agree']} (node motion alone: {t['motion_agree']}); "
          f"report in {args.prefix}.md and {args.prefix}.csv")
    return 0


COMMANDS = {"run": command_run, "check": command_check, "conformance": command_conformance}
COMMANDS["plot"] = cmd_plot.command
COMMANDS["compare"] = cmd_compare.command_compare

if __name__ == "__main__":
    sys.exit(main())
