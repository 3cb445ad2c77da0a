"""Conformance report over a tree of MBDyn decks (`mbdae conformance DIR`): every main deck
(a file with `begin: data`) is read and run in its own process with a wall-time budget,
and the outcome is tabulated (deck, parsed?, ran?, steps, wall time, first error) as
Markdown and CSV.  Each deck runs from its own folder, so relative includes work, and its
output goes to a scratch folder.

With MBDyn's reference outputs (../shared/mbdyn-ref, found next to DIR or given), every deck
that both MBDyn and mbdae ran is compared number by number (engine/io/mbdyn_ref.py): node
positions and orientations (.mov) and joint reactions (.jnt) at MBDyn's kept output steps,
worst difference relative to the model's size and load scale, with where it occurs."""
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, asdict, field

from mbdae.engine.io.mbdyn.reference import AGREEMENT, compare_outputs, explain, reference_folder

_BEGIN_DATA = re.compile(r"^\s*begin\s*:\s*data\s*;", re.IGNORECASE | re.MULTILINE)


@dataclass
class DeckOutcome:
    deck: str
    parsed: bool
    ran: bool
    steps: int
    wall_s: float
    first_error: str
    reference: bool = False           # MBDyn's outputs for this deck exist
    compared_steps: int = 0           # MBDyn's kept output steps compared (0: not compared)
    position: float = float("nan")    # worst |Δx| / model size
    rotation: float = float("nan")    # worst rotation difference, rad
    reaction: float = float("nan")    # worst |Δ reaction| / load scale (t > t0)
    agrees: bool = False              # all three within AGREEMENT
    motion_agrees: bool = False       # position and rotation within AGREEMENT
    agrees_until: float = float("nan")
    worst_at: str = ""                # file, label, column, time of the worst difference
    explanation: str = ""             # known reason for a difference (KNOWN_EXPLANATIONS)
    prefix: str = field(default="", repr=False)


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
        chk = run_child(cmd + ["check", name], cwd, budget)
    except subprocess.TimeoutExpired:
        return DeckOutcome(path, False, False, 0, time.perf_counter() - t0, f"reading took more than {budget:g} s")
    if chk.returncode != 0:
        return DeckOutcome(path, False, False, 0, time.perf_counter() - t0, _last_line(chk.stderr))
    prefix = os.path.join(scratch, re.sub(r"[^A-Za-z0-9_.-]", "_", path))
    try:
        res = run_child(cmd + ["run", name, "-o", prefix, "-q"], cwd, budget)
    except subprocess.TimeoutExpired:
        steps = _steps(prefix)
        return DeckOutcome(path, True, False, steps, time.perf_counter() - t0,
                           f"time budget of {budget:g} s exceeded after {steps} steps")
    wall = time.perf_counter() - t0
    ok = res.returncode == 0
    return DeckOutcome(path, True, ok, _steps(prefix), wall, "" if ok else _last_line(res.stderr), prefix=prefix)


# seconds a run asked to stop (SIGTERM: it ends between whole steps) gets before SIGKILL
STOP_GRACE = 5.0


def run_child(cmd, cwd, timeout):
    """subprocess.run(cmd, capture_output=True, text=True) in a process group of its own,
    which is ended (SIGTERM, then SIGKILL after STOP_GRACE) whenever this returns or raises:
    on the timeout (TimeoutExpired), on an exception or a KeyboardInterrupt here."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)
    finally:
        end_group(p)


def end_group(p):
    """End the process group of Popen p (its own session): SIGTERM, SIGKILL after
    STOP_GRACE; the pipes closed."""
    for sig, wait in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, STOP_GRACE)):
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            break                              # the group is gone
        try:
            p.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:
            try:                               # the leader ended; its children go too
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        break
    for f in (p.stdout, p.stderr):
        if f is not None:
            f.close()
    if p.poll() is None:
        p.wait()


def _steps(prefix):
    try:
        with open(prefix + ".out") as f:
            return sum(1 for l in f if l.startswith("Step")) - 1
    except OSError:
        return 0


def default_reference(root):
    """../shared/mbdyn-ref next to the mbdyn-tests tree that holds root, if present."""
    folder = os.path.abspath(root)
    while True:
        candidate = os.path.join(os.path.dirname(folder), "mbdyn-ref")
        if os.path.isfile(os.path.join(candidate, "manifest.csv")):
            return candidate
        if os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)


def reference_for(deck, root, ref_root):
    """(deck name relative to the tree MBDyn ran, reference folder) or (None, None).  The
    name is tried relative to root and to each of its parents (root may be a sub-folder)."""
    if not ref_root:
        return None, None
    base = os.path.abspath(root)
    while True:
        name = os.path.relpath(os.path.abspath(deck), base).replace(os.sep, "/")
        folder = reference_folder(ref_root, name)
        if folder:
            return name, folder
        if os.path.dirname(base) == base:
            return None, None
        base = os.path.dirname(base)


def compare(outcome, root, ref_root):
    """Fill the comparison fields of a deck that ran, when MBDyn's outputs exist."""
    name, folder = reference_for(outcome.deck, root, ref_root)
    if folder is None:
        return outcome
    outcome.reference = True
    if not outcome.ran:
        return outcome
    try:
        c = compare_outputs(folder, outcome.prefix)
    except (OSError, ValueError) as e:
        outcome.worst_at = f"comparison failed: {e}"[:300]
        return outcome
    if c.compared_steps == 0:
        outcome.worst_at = "no output step in common with MBDyn's"
        return outcome
    outcome.compared_steps = c.compared_steps
    outcome.position, outcome.rotation, outcome.reaction = c.position.value, c.rotation.value, c.reaction.value
    outcome.agrees, outcome.motion_agrees, outcome.agrees_until = c.agrees, c.motion_agrees, c.agree_until
    outcome.worst_at = "; ".join(c.problems + [c.worst().where()]) if (c.problems or not c.agrees) else ""
    outcome.explanation = explain(name, c)
    return outcome


def conformance(root, budget=60.0, scratch=None, ref_root="auto", decks=None):
    """Run every deck under root (or only `decks`, paths relative to root); compare with
    MBDyn's outputs under ref_root ("auto": the mbdyn-ref folder next to the tree, None: no
    comparison)."""
    own = scratch is None                  # a scratch folder of our own is removed on the way out
    scratch = scratch or tempfile.mkdtemp(prefix="mbdae-conformance-")
    try:
        if ref_root == "auto":
            ref_root = default_reference(root)
        paths = find_decks(root) if decks is None else [os.path.join(root, d) for d in decks]
        return [compare(run_deck(p, budget, scratch), root, ref_root) for p in paths]
    finally:
        if own:
            shutil.rmtree(scratch, ignore_errors=True)


def totals(outcomes):
    """found, parsed, ran, compared (ran and compared with MBDyn's outputs), agree (positions,
    orientations and reactions), motion_agree (positions and orientations)."""
    return dict(found=len(outcomes), parsed=sum(o.parsed for o in outcomes), ran=sum(o.ran for o in outcomes),
                compared=sum(o.compared_steps > 0 for o in outcomes), agree=sum(o.agrees for o in outcomes),
                motion_agree=sum(o.motion_agrees for o in outcomes))


def _num(x, fmt=".1e"):
    return "" if x != x else format(x, fmt)


def write_reports(outcomes, root, prefix):
    """PREFIX.csv and PREFIX.md; returns the totals (see `totals`)."""
    rel = lambda p: os.path.relpath(p, root)
    names = [k for k in asdict(DeckOutcome("", False, False, 0, 0.0, "")) if k != "prefix"]
    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=names, extrasaction="ignore")
        w.writeheader()
        for o in outcomes:
            row = asdict(o)
            row["deck"] = rel(o.deck)
            w.writerow(row)
    tot = totals(outcomes)
    lines = [f"# mbdae conformance over {root}", "",
             f"decks found: {tot['found']}, parsed: {tot['parsed']}, ran to completion: {tot['ran']}, "
             f"compared with MBDyn: {tot['compared']}, agree: {tot['agree']} "
             f"(node motion alone: {tot['motion_agree']})", "",
             f"Comparison with MBDyn 1.7.3's outputs at its kept output steps (matched by time): "
             f"position = worst |Δx| / model size (extent of the node positions), rotation = worst "
             f"angle between the orientations (rad), reaction = worst |Δ| of a .jnt force/moment "
             f"column / largest |reaction| (from the first step after the initial time: there MBDyn "
             f"prints its derivatives phase's multipliers).  A deck agrees when all three are "
             f"within {AGREEMENT:g}; 'agrees until' is the last compared time up to which the node "
             f"motion (position and rotation) does.", "",
             "| deck | parsed | ran | steps | wall (s) | compared | position | rotation | reaction | agrees "
             "| agrees until | worst at | first error / known explanation |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        note = "; ".join(x for x in (o.first_error, o.explanation) if x).replace("|", "\\|")
        compared = str(o.compared_steps) if o.compared_steps else ("no reference" if not o.reference else "")
        agrees = ("yes" if o.agrees else "no") if o.compared_steps else ""
        lines.append(f"| {rel(o.deck)} | {'yes' if o.parsed else 'no'} | {'yes' if o.ran else 'no'} | "
                     f"{o.steps} | {o.wall_s:.1f} | {compared} | {_num(o.position)} | {_num(o.rotation)} | "
                     f"{_num(o.reaction)} | {agrees} | {_num(o.agrees_until, 'g')} | "
                     f"{o.worst_at.replace('|', '/')} | {note} |")
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    return tot
