"""Conformance report over a tree of MBDyn decks (`mbdae conformance DIR`): every main deck
(a file with `begin: data`) is read and run in its own process with a wall-time budget,
and the outcome is tabulated (deck, parsed?, ran?, steps, wall time, first error) as
Markdown and CSV.  Each deck runs from its own folder, so relative includes work, and its
output goes to a scratch folder."""
import csv
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, asdict

_BEGIN_DATA = re.compile(r"^\s*begin\s*:\s*data\s*;", re.IGNORECASE | re.MULTILINE)


@dataclass
class DeckOutcome:
    deck: str
    parsed: bool
    ran: bool
    steps: int
    wall_s: float
    first_error: str


def find_decks(root):
    """Main decks under root: text files containing `begin: data;`, sorted."""
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            try:
                with open(path, "r", errors="replace") as f:
                    head = f.read(200000)
            except OSError:
                continue
            if "\0" not in head and _BEGIN_DATA.search(head):
                found.append(path)
    return sorted(found)


def _last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip() and not l.startswith("mbdae: note")]
    return lines[-1][:300] if lines else ""


def run_deck(path, budget, scratch):
    """Read (`mbdae check`) then run (`mbdae run`) one deck in subprocesses."""
    cmd = [sys.executable, "-m", "mbdae"]
    cwd = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    t0 = time.perf_counter()
    try:
        chk = subprocess.run(cmd + ["check", name], cwd=cwd, capture_output=True, text=True, timeout=budget)
    except subprocess.TimeoutExpired:
        return DeckOutcome(path, False, False, 0, time.perf_counter() - t0, f"reading took more than {budget:g} s")
    if chk.returncode != 0:
        return DeckOutcome(path, False, False, 0, time.perf_counter() - t0, _last_line(chk.stderr))
    prefix = os.path.join(scratch, re.sub(r"[^A-Za-z0-9_.-]", "_", path))
    try:
        res = subprocess.run(cmd + ["run", name, "-o", prefix, "-q"], cwd=cwd, capture_output=True, text=True,
                             timeout=budget)
    except subprocess.TimeoutExpired:
        steps = _steps(prefix)
        return DeckOutcome(path, True, False, steps, time.perf_counter() - t0,
                           f"time budget of {budget:g} s exceeded after {steps} steps")
    wall = time.perf_counter() - t0
    ok = res.returncode == 0
    return DeckOutcome(path, True, ok, _steps(prefix), wall, "" if ok else _last_line(res.stderr))


def _steps(prefix):
    try:
        with open(prefix + ".out") as f:
            return sum(1 for l in f if l.startswith("Step")) - 1
    except OSError:
        return 0


def conformance(root, budget=60.0, scratch=None):
    scratch = scratch or tempfile.mkdtemp(prefix="mbdae-conformance-")
    return [run_deck(p, budget, scratch) for p in find_decks(root)]


def write_reports(outcomes, root, prefix):
    rel = lambda p: os.path.relpath(p, root)
    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(asdict(outcomes[0]).keys()) if outcomes else ["deck"])
        w.writeheader()
        for o in outcomes:
            row = asdict(o)
            row["deck"] = rel(o.deck)
            w.writerow(row)
    n, parsed, ran = len(outcomes), sum(o.parsed for o in outcomes), sum(o.ran for o in outcomes)
    lines = [f"# mbdae conformance over {root}", "",
             f"decks found: {n}, parsed: {parsed}, ran to completion: {ran}", "",
             "| deck | parsed | ran | steps | wall (s) | first error |", "|---|---|---|---|---|---|"]
    for o in outcomes:
        err = o.first_error.replace("|", "\\|")
        lines.append(f"| {rel(o.deck)} | {'yes' if o.parsed else 'no'} | {'yes' if o.ran else 'no'} | "
                     f"{o.steps} | {o.wall_s:.1f} | {err} |")
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    return n, parsed, ran
