"""`mbdae conformance DIR [--budget S] [-o PREFIX] [--ref REF]`: read and run every main deck
under DIR, each in its own process with a wall-time budget, and compare with MBDyn's
reference outputs when they are there; Markdown and CSV table (engine/io/mbdyn/conformance.py)."""
import os
import sys

from mbdae.engine.core.stop import StopRequested, stop_on_signals
from mbdae.engine.io.mbdyn.conformance import conformance, write_reports


def add_arguments(p):
    p.add_argument("dir", help="folder searched for main decks (files with `begin: data;`)")
    p.add_argument("--budget", type=float, default=60.0, help="wall-time budget per deck, s (default 60)")
    p.add_argument("-o", "--output", dest="prefix", default="conformance",
                   help="report prefix: PREFIX.md and PREFIX.csv (default: conformance)")
    p.add_argument("--ref", default="auto",
                   help="MBDyn's reference outputs (folder with manifest.csv, visible/ and wave2/) to compare "
                        "with; default: mbdyn-ref next to the tree, 'none' to skip the comparison")


def command(args):
    ref = None if args.ref.lower() == "none" else args.ref
    folder = os.path.dirname(os.path.abspath(args.prefix))
    os.makedirs(folder, exist_ok=True)        # before the long run, not after it
    try:
        with stop_on_signals():     # SIGINT, SIGTERM: the runs are ended and the scratch folder removed
            outcomes = conformance(args.dir, budget=args.budget, ref_root=ref)
    except StopRequested as stop:
        print(f"mbdae: conformance stopped by {stop.name}; no report written", file=sys.stderr)
        return stop.exit_code
    t = write_reports(outcomes, args.dir, args.prefix)
    print(f"decks found: {t['found']}, parsed: {t['parsed']}, ran to completion: {t['ran']}, "
          f"compared with MBDyn: {t['compared']}, agree: {t['agree']} (node motion alone: {t['motion_agree']}); "
          f"report in {args.prefix}.md and {args.prefix}.csv")
    return 0
