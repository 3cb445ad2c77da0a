"""Run MBDyn's inverse-dynamics test decks (../shared/mbdyn-tests/invdyn) with mbdae and compare
with MBDyn 1.7.3's outputs (../shared/mbdyn-ref) block by block (MBDyn writes one block per
instant from the initial time; its decimated files keep the blocks in kept_steps.csv).

    python cases/inverse/compare_decks.py [--out DIR] [--markdown FILE]

Columns: motion = worst |Δx| / model size over the kept blocks after t0; torques = worst
difference of the actuator joints' (`inverse dynamics, torque, yes`) local moments / largest
load in MBDyn's .jnt; reactions = the same over every joint row.  Decks mbdae cannot read are
listed with the reader's message."""
import argparse
import csv
import gzip
import io
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(ROOT, "..", "shared")
sys.path.insert(0, ROOT)

from mbdae.engine.io.mbdyn.deck import read_deck            # noqa: E402
from mbdae.engine.io.mbdyn.reference import blocks, read_lines     # noqa: E402


def manifest():
    with open(os.path.join(SHARED, "mbdyn-ref", "manifest.csv")) as f:
        return {row["deck"]: row for row in csv.DictReader(f) if row["deck"].startswith("invdyn/")}


def kept_blocks(folder, key):
    with gzip.open(os.path.join(folder, key + ".kept_steps.csv.gz"), "rt") as f:
        return [int(line.split(",")[0]) for line in f.read().splitlines()[1:] if line]


def compare(deck, prefix, model):
    key = deck.replace("/", "__")
    folder = os.path.join(SHARED, "mbdyn-ref", "visible", key)
    kept = kept_blocks(folder, key)
    ref_mov = blocks(read_lines(os.path.join(folder, key + ".mov.gz")))
    ref_jnt = blocks(read_lines(os.path.join(folder, key + ".jnt.gz")))
    mov, jnt = blocks(read_lines(prefix + ".mov")), blocks(read_lines(prefix + ".jnt"))
    size = max(np.ptp(np.array([v[:3] for b in ref_mov for v in b.values()]), axis=0).max(), 1e-12)
    scale = max(np.abs(v[:12]).max() for b in ref_jnt for v in b.values())
    torque = {lab for lab, f in model.inverse_flags.items()
              if isinstance(lab, int) and f.get("torque") and not f.get("prescribed motion", False)}
    motion = reac = torq = 0.0
    for b, rm, rj in zip(kept, ref_mov, ref_jnt):
        if b == 0 or b >= len(mov):
            continue
        for lab, v in rm.items():
            if lab in mov[b]:
                motion = max(motion, np.abs(mov[b][lab][:3] - v[:3]).max() / size)
        for lab, v in rj.items():
            if lab in jnt[b]:
                n = min(12, len(v), len(jnt[b][lab]))
                d = np.abs(jnt[b][lab][:n] - v[:n]).max() / scale
                reac = max(reac, d)
                if lab in torque:
                    torq = max(torq, d)
    return motion, torq, reac


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join("/tmp", "mbdae_invdyn"))
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for deck, m in sorted(manifest().items()):
        path = os.path.join(SHARED, "mbdyn-tests", deck)
        prefix = os.path.join(args.out, deck.replace("/", "__"))
        t0 = time.perf_counter()
        try:
            d = read_deck(path, echo=lambda *a: None)
            d.run(prefix)
            status = "runs"
            if m["status"] == "ok" and "inverse_dynamics" in d.settings:
                motion, torq, reac = compare(deck, prefix, d.model)
                result = f"motion {motion:.1e}, torques {torq:.1e}, reactions {reac:.1e}"
            elif m["status"] == "ok":
                result = "initial-value deck (compare with `mbdae conformance`)"
            else:
                result = "MBDyn did not run it"
        except Exception as e:              # report every deck, whatever stops it
            status = "stops"
            result = f"{type(e).__name__}: {str(e).splitlines()[0][:140]}"
        wall = time.perf_counter() - t0
        rows.append((deck, m["status"] + ("" if m["status"] == "ok" else f" ({m['failure_class']})"),
                     status, f"{wall:.1f}", result))
        print(" | ".join(rows[-1]), flush=True)
    table = io.StringIO()
    table.write("| deck | MBDyn 1.7.3 | mbdae | wall s | comparison / reason |\n|---|---|---|---|---|\n")
    for r in rows:
        table.write("| " + " | ".join(x.replace("|", "/") for x in r) + " |\n")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table.getvalue())
    print(table.getvalue())


if __name__ == "__main__":
    main()
