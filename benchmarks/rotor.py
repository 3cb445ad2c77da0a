"""Rotor decks: whole-process wall time per rotor revolution of `mbdae run`, side by side with
MBDyn 1.7.3 when an `mbdyn` program is found (alternating the engines, median of repeats), and
MBDyn's own time in ../shared/mbdyn-ref/wave2/manifest.csv (measured when the references were
made, on another load: indicative only).

- Hammond's ground-resonance rotor (../shared/mbdyn-tests/Hammond/GR_MBDyn/GR_rotor.mbd):
  4 rigid articulated blades with lead-lag dampers on a sprung airframe, Ω = 1.8879 rad/s
  (a revolution is 3.328 s), h = 1e-3, `ms` with ρ∞ = 0.7; the deck's 60 s are 18 revolutions.

- The trimmed rotor case (cases/aero/rotor.mbd, issue 21): a 4-blade articulated rotor with
  beam3 blades and aerodynamic beams in forward flight (μ = 0.2, uniform inflow), Ω = 27 rad/s,
  180 steps per revolution, `ms` with ρ∞ = 0.6; the deck's 6 revolutions, mbdae beside MBDyn
  1.7.3 on the same deck.

    python benchmarks/rotor.py                     # 10 s of the deck (3 revolutions), 3 repeats
    python benchmarks/rotor.py --final-time 60 --repeat 1
    python benchmarks/rotor.py --case-only         # the rotor case only
"""
import argparse
import csv
import math
import os
import re
import shutil
import statistics
import tempfile
from pathlib import Path

import numpy as np

from decks import mbdae_command, steps_of, timed

SHARED = Path(__file__).resolve().parents[2] / "shared"
HAMMOND = ("Hammond/GR_MBDyn/GR_rotor.mbd", 1.8879)       # deck under mbdyn-tests, Ω (rad/s)
CASE = Path(__file__).resolve().parents[1] / "cases" / "aero" / "rotor.mbd"


def manifest_row(deck):
    path = SHARED / "mbdyn-ref" / "wave2" / "manifest.csv"
    if not path.exists():
        return None
    return next((r for r in csv.DictReader(open(path)) if r["deck"] == deck), None)


def bench(deck, omega, final_time, repeat, mbdyn, work):
    source = SHARED / "mbdyn-tests" / deck
    folder = work / "deck"                  # a scratch copy: the deck's final time is edited for MBDyn
    shutil.copytree(source.parent, folder)
    path = folder / source.name
    text = path.read_text()
    path.write_text(text.replace("final time:  60.", f"final time: {final_time!r};\n#"))
    revolutions = final_time * omega / (2 * math.pi)
    engines = {"mbdae": lambda: timed(mbdae_command() + ["run", path.name, "-o", str(work / "mbdae")], folder)}
    if mbdyn:
        engines["mbdyn"] = lambda: timed([mbdyn, "-f", path.name, "-o", str(work / "mbdyn")], folder)
    walls = {k: [] for k in engines}
    for _ in range(repeat):
        for k, run in engines.items():
            walls[k].append(run()[0])
    steps, its = steps_of(work / "mbdae.out")
    print(f"{deck}: {final_time:g} s simulated = {revolutions:.2f} revolutions; mbdae {steps} steps, "
          f"{its} Newton iterations")
    for k, w in walls.items():
        m = statistics.median(w)
        print(f"  {k:6s} {m:8.2f} s  = {m / revolutions:6.3f} s per revolution "
              f"(runs {', '.join(f'{x:.2f}' for x in w)})")
    row = manifest_row(deck)
    if row and row["status"] == "ok":
        rev = float(row["final_time"]) * omega / (2 * math.pi)
        print(f"  manifest: MBDyn 1.7.3 {float(row['wall_s']):.2f} s for {float(row['final_time']):g} s "
              f"= {float(row['wall_s']) / rev:.3f} s per revolution (when the references were made)")


def case_revolutions(path):
    """Revolutions of the rotor case deck: final time × Ω / 2π (from its own lines)."""
    text = path.read_text()
    final = float(re.search(r"final time: *([-\d.e+]+);", text).group(1))
    omega = float(re.search(r"set: real Omega = *([-\d.e+]+);", text).group(1))
    return final * omega / (2 * math.pi)


def bench_case(path, repeat, mbdyn, work):
    """The trimmed rotor case: time per revolution of mbdae and of MBDyn on the same deck."""
    revolutions = case_revolutions(path)
    engines = {"mbdae": lambda: timed(mbdae_command() + ["run", str(path), "-o", str(work / "mbdae")], work)}
    if mbdyn:
        engines["mbdyn"] = lambda: timed([mbdyn, "-f", str(path), "-o", str(work / "mbdyn")], work)
    walls = {k: [] for k in engines}
    for _ in range(repeat):
        for k, run in engines.items():
            walls[k].append(run()[0])
    steps, its = steps_of(work / "mbdae.out")
    print(f"cases/aero/rotor.mbd: {revolutions:.2f} revolutions; mbdae {steps} steps, {its} Newton iterations"
          + (f"; MBDyn {'{} steps, {} iterations'.format(*steps_of(work / 'mbdyn.out'))}" if mbdyn else ""))
    for k, w in walls.items():
        m = statistics.median(w)
        print(f"  {k:6s} {m:8.2f} s  = {m / revolutions:6.3f} s per revolution "
              f"(runs {', '.join(f'{x:.2f}' for x in w)})")
    row = manifest_row(HAMMOND[0])
    if row and row["status"] == "ok":
        rev = float(row["final_time"]) * HAMMOND[1] / (2 * math.pi)
        print(f"  beside: MBDyn 1.7.3 on Hammond's deck (manifest) {float(row['wall_s']) / rev:.3f} s per revolution")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--final-time", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--case-only", action="store_true", help="only the rotor case (cases/aero/rotor.mbd)")
    ap.add_argument("--mbdyn", default=shutil.which("mbdyn") or ("/opt/mbdyn/bin/mbdyn"
                                                                 if os.access("/opt/mbdyn/bin/mbdyn", os.X_OK) else None))
    a = ap.parse_args()
    if not (SHARED / "mbdyn-tests" / HAMMOND[0]).exists():
        raise SystemExit(f"the Hammond deck is not under {SHARED / 'mbdyn-tests'}")
    print(f"load average {np.round(os.getloadavg(), 2).tolist()}; engines: mbdae"
          f"{', mbdyn ' + a.mbdyn if a.mbdyn else ''}; median of {a.repeat}", flush=True)
    if not a.case_only:
        with tempfile.TemporaryDirectory(prefix="mbdae-rotor-") as tmp:
            bench(*HAMMOND, a.final_time, a.repeat, a.mbdyn, Path(tmp))
    with tempfile.TemporaryDirectory(prefix="mbdae-rotor-") as tmp:
        bench_case(CASE, a.repeat, a.mbdyn, Path(tmp))
    print(f"load average {np.round(os.getloadavg(), 2).tolist()}")


if __name__ == "__main__":
    main()
