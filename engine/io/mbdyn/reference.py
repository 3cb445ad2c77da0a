"""MBDyn's text outputs (.out, .mov, .jnt, .log) read back, and the number-by-number
comparison of an mbdae run with MBDyn 1.7.3's reference outputs (../shared/mbdyn-ref).

The reference folder of a deck `a/b/c` (path relative to mbdyn-tests/) is
`visible/a__b__c/` (or `wave2/a__b__c/`, the second set: aerodynamics, solids), holding gzipped `a__b__c.{out,log,mov,jnt,...}.gz` and
`a__b__c.kept_steps.csv.gz` (`block,step,time` of the output blocks kept in the decimated
.mov/.jnt).  Blocks are matched by time: MBDyn's kept block at time t against mbdae's output
block at the same t.  Differences are reported relative to the model's size (extent of the
reference node positions) and load scale (largest |reaction| in the reference .jnt)."""
import gzip
import os
from dataclasses import dataclass, field

import numpy as np

from mbdae.engine.core import rotations as rot

AGREEMENT = 1e-4          # relative position/reaction difference, and rotation angle (rad)

# Why a deck's node motion differs from MBDyn's where the reason is known and not ours to
# tune away: (where the difference comes from, explanation).  Shown in the conformance
# report for decks whose motion does not agree.
KNOWN_EXPLANATIONS = {
    "aero/rigidrotor": (
        "MBDyn",
        "dynamic inflow start-up: MBDyn's rotor sums the blade loads of the previous residual "
        "evaluation, and its derivatives phase (tolerance 1e+4) ends with "
        "that sum still empty (its t = 0 .rot row: thrust 2698 N but lambda = 0, chi = pi/2), so "
        "its inflow states start with zero rate; mbdae's implicit coupling starts from the thrust. "
        "The blades' flap differs by 1.8e-4 rad at t = 0.02 s, 1e-5 at 0.3 s, 3.5e-8 at 1 s"),
    "body/chain15/chain15": (
        "MBDyn",
        "derivatives phase with `derivatives coefficient: 1` and tolerance 1e-1: MBDyn keeps that "
        "phase's momenta (beta = dCoef*beta', seen in its .ine at step 0), so its chain starts with "
        "v = h*coef*a0 instead of the deck's v = 0; mbdae starts from the deck's state "
        "(tests/test_deck_reader.py reproduces MBDyn once started from the same velocities)"),
    "joints/drvdisp/drv": (
        "MBDyn",
        "MBDyn is 2.5e-4 rad off the exact arm angle after 20 steps (mbdae 2e-6 rad); both then "
        "accumulate step errors of ~3e-3 by t = 1 s (checked against the exact motion instead)"),
    "joints/drvdisp/drvpin": (
        "MBDyn",
        "as drvdisp/drv; the driven hinge pumps the arm to 900 rad/s, unresolved by h = 1e-3 in "
        "either code (checked against the exact motion instead)"),
    "joints/drvhinge/drv": (
        "MBDyn",
        "phase error at the deck's step: MBDyn 3e-2 rad at t = 1 s, mbdae 4e-3 rad against the "
        "exact rotation (checked against the exact motion instead)"),
    "body/spinningbody": (
        "unstable motion",
        "spin about the intermediate principal axis: any difference grows like e^{5.7 t}; agrees "
        "to t = 2.1 s"),
    "joints/modal/two-beams/rigid": (
        "unstable motion",
        "unstable flapping equilibrium: rounding differences grow x2.7 per second; agrees to t = 4.1 s"),
    "joints/modal/two-beams/modal": (
        "unstable motion",
        "the flexible (modal joint) version of two-beams/rigid: differences start at the size of "
        "the step's own error (mbdae at h and h/4 differ by 1.5e-5 at t = 1 s) and grow as there; "
        "agrees to t = 1 s"),
    "joints/modal/two-beams/modal2": (
        "unstable motion",
        "as two-beams/modal (with damping from the FEM file); agrees to t = 1 s"),
    "joints/modal/two-beams/modal-force": (
        "unstable motion",
        "driven by a force (its rigid twin rigid-force agrees to 2e-6): the difference, 2e-3 at "
        "t = 49 s, is the size of the deck step's own error (mbdae at h and h/4 differ by 2.3e-3 "
        "there), which the two engines' forms of the modal node (MBDyn: velocities, mbdae: "
        "momenta) make differently; agrees to t = 10 s"),
    "benchmarks/srskm/srscm": (
        "time step",
        "crank phase drifts 2e-4 rad/s from MBDyn's, 5x below the step's own error"),
}


def ref_key(deck):
    """Reference folder name of a deck path relative to mbdyn-tests/."""
    return deck.replace(os.sep, "__").replace("/", "__")


REFERENCE_SETS = ("visible", "wave2")     # the folders of ../shared/mbdyn-ref holding MBDyn's outputs


def reference_folder(ref_root, deck):
    """ref_root/<set>/<key> for the first set that has the deck, or None when MBDyn's outputs
    for that deck are absent."""
    for subset in REFERENCE_SETS:
        folder = os.path.join(ref_root, subset, ref_key(deck))
        if os.path.isdir(folder):
            return folder
    return None


def _open(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def read_lines(path):
    with _open(path) as f:
        return f.read().splitlines()


def rows(lines):
    """(label, values) of every numeric row of a .mov/.jnt-style file."""
    out = []
    for line in lines:
        fields = line.split()
        if fields:
            out.append((int(fields[0]), np.array([float(v) for v in fields[1:]])))
    return out


def blocks(lines):
    """Rows grouped into output blocks [{label: values}]; a block restarts at its first label."""
    found, first = [], None
    for label, values in rows(lines):
        if first is None:
            first = label
        if label == first:
            found.append({})
        found[-1][label] = values
    return found


def output_times(lines):
    """Times of the .out `Step` lines whose last field (Out) is 1: block k of .mov is the k-th."""
    times = []
    for line in lines:
        if line.startswith("Step"):
            fields = line.split()
            if fields[-1] == "1":
                times.append(float(fields[2]))
    return np.array(times)


def whole_output(prefix, exts=("mov",)):
    """The output steps every file of a run holds whole: (times of the .out's output steps,
    {ext: blocks of PREFIX.ext}, note), all cut to the same length.  A run killed without
    a chance to clean up (SIGKILL, power loss) can leave a file ending inside a step, or a
    file one step ahead of the others (the .out is written last); the note (None when
    nothing was cut) says so in one line.  Files with no numeric row are left out of the
    count (MBDyn creates them empty)."""
    counts, partial = {}, []
    text, cut = _read_whole_lines(prefix + ".out")
    times = output_times(text)
    if cut:
        partial.append("out")
    counts["out"] = len(times)
    found = {}
    for ext in exts:
        lines, cut = _read_whole_lines(prefix + "." + ext)
        b = blocks(lines)
        if b and len(b) > 1 and len(b[-1]) < len(b[0]):
            b, cut = b[:-1], True
        found[ext] = b
        if cut:
            partial.append(ext)
        if b or cut:
            counts[ext] = len(b)
    n = min(counts.values())
    note = None
    if partial or any(c != n for c in counts.values()):
        name = os.path.basename(prefix)
        where = [f"{name}.{ext} ends inside output step {counts[ext] + 1}" for ext in partial]
        where += [f"{name}.{ext} holds {c} output steps" for ext, c in counts.items() if c != n and ext not in partial]
        note = f"note: {', '.join(where)}; using {n} whole steps"
    return times[:n], {ext: b[:n] for ext, b in found.items()}, note


def _read_whole_lines(path):
    """(whole lines, whether the file ended inside a line)."""
    with _open(path) as f:
        text = f.read()
    lines = text.splitlines()
    cut = bool(text) and not text.endswith("\n")
    return (lines[:-1] if cut else lines), cut


def kept_times(folder):
    """Times of the output blocks MBDyn's decimated files keep."""
    key = os.path.basename(folder)
    with _open(os.path.join(folder, key + ".kept_steps.csv.gz")) as f:
        table = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
    return table[:, 2]


_LOG_DESCRIPTIONS = {"euler123": "euler123", "euler313": "euler313", "euler321": "euler321",
                     "phi": "orientation vector", "mat": "orientation matrix"}


def node_descriptions(log_lines):
    """Orientation description of each structural node from MBDyn's .log
    (`structural node: <label> x y z <euler123|phi|mat> ...`)."""
    found = {}
    for line in log_lines:
        if line.startswith("structural node:"):
            fields = line.split()
            if len(fields) > 6 and fields[6] in _LOG_DESCRIPTIONS:
                found[int(fields[2])] = _LOG_DESCRIPTIONS[fields[6]]
    return found


def orientation_of(values, description):
    """Orientation matrix from .mov columns 5- (values after the position)."""
    if description == "orientation matrix":
        return np.asarray(values[:9]).reshape(3, 3)
    if description == "orientation vector":
        return rot.exp_rotvec(np.asarray(values[:3]))
    to_R = {"euler123": rot.euler123_to_R, "euler313": rot.euler313_to_R, "euler321": rot.euler321_to_R}
    return to_R[description](np.radians(values[:3]))


def _description(values, descriptions, label):
    if label in descriptions:
        return descriptions[label]
    return "orientation matrix" if len(values) == 18 else "euler123"


@dataclass
class Worst:
    """The largest difference found and where: file, label, 1-based column, time."""
    value: float = 0.0
    file: str = ""
    label: int = 0
    column: int = 0
    time: float = float("nan")

    def update(self, value, file, label, column, time):
        if value > self.value:
            self.value, self.file, self.label, self.column, self.time = float(value), file, int(label), int(column), float(time)

    def where(self):
        return f"{self.file} label {self.label} column {self.column} t={self.time:g}" if self.file else ""


@dataclass
class Comparison:
    """Result of comparing one run with MBDyn's reference outputs."""
    compared_steps: int = 0
    size: float = 1.0                       # model size: extent of the reference node positions
    load_scale: float = 0.0                 # largest |reaction| in the reference .jnt (columns 2-13)
    position: Worst = field(default_factory=Worst)      # |Δx| / size
    rotation: Worst = field(default_factory=Worst)      # angle of R_mbdae^T R_mbdyn, rad
    reaction: Worst = field(default_factory=Worst)      # |Δ reaction component| / load scale, t > t0
    agree_until: float = float("nan")       # last compared time up to which the node motion agrees
    reaction_steps: int = 0
    reaction_later: float = 0.0             # worst reaction difference after the first step past t0
    reaction_t0_zero: bool = False          # MBDyn's .jnt at the initial time is all zero
    problems: list = field(default_factory=list)        # labels missing etc.
    note: str = None                        # mbdae's files cut to the steps they all hold whole (whole_output)

    @property
    def motion_agrees(self):
        return (self.compared_steps > 0 and not any(".mov" in p for p in self.problems)
                and self.position.value <= AGREEMENT and self.rotation.value <= AGREEMENT)

    @property
    def agrees(self):
        return (self.compared_steps > 0 and not self.problems and self.position.value <= AGREEMENT
                and self.rotation.value <= AGREEMENT and self.reaction.value <= AGREEMENT)

    def worst(self):
        """The worst of the three relative differences, with where it is."""
        return max((self.position, self.rotation, self.reaction), key=lambda w: w.value)


def _match(ref_times, times):
    """Index into `times` of each reference time (or -1): nearest, within a fraction of the
    output spacing and MBDyn's printed precision."""
    if len(times) == 0:
        return np.full(len(ref_times), -1)
    spacing = np.diff(times)
    spacing = spacing[spacing > 0].min() if np.any(spacing > 0) else 1.0
    k = np.clip(np.searchsorted(times, ref_times), 0, len(times) - 1)
    before = np.maximum(k - 1, 0)
    k = np.where(np.abs(times[before] - ref_times) < np.abs(times[k] - ref_times), before, k)
    tol = np.maximum(1e-3 * spacing, 1e-6 * np.abs(ref_times))
    tol = np.minimum(tol, 0.49 * spacing)
    return np.where(np.abs(times[k] - ref_times) <= np.maximum(tol, 1e-12), k, -1)


def compare_outputs(folder, prefix, descriptions=None):
    """Compare mbdae's PREFIX.{out,mov,jnt} with MBDyn's outputs in the reference folder at
    MBDyn's kept output steps that the run reached (matched by time)."""
    key = os.path.basename(folder)
    ref_file = lambda ext: os.path.join(folder, f"{key}.{ext}.gz")
    if descriptions is None:
        descriptions = node_descriptions(read_lines(ref_file("log"))) if os.path.exists(ref_file("log")) else {}
    exts = [ext for ext in ("mov", "jnt") if os.path.exists(prefix + "." + ext)]
    times, ours_of, note = whole_output(prefix, exts)     # the steps every file holds whole
    ref_times = kept_times(folder)
    cmp = Comparison()
    cmp.note = note
    matched = _match(ref_times, times)
    per_time = {}                         # time -> worst position/rotation difference of that block

    if os.path.exists(ref_file("mov")):
        ref = blocks(read_lines(ref_file("mov")))
        ours = ours_of.get("mov", [])
        positions = np.array([v[:3] for b in ref for v in b.values()]).reshape(-1, 3)
        if len(positions):
            extent = np.linalg.norm(positions.max(0) - positions.min(0))
            cmp.size = extent if extent > 1e-12 else 1.0
        for t, k, ref_block in zip(ref_times, matched, ref):
            if k < 0 or k >= len(ours):
                continue
            cmp.compared_steps += 1
            block = ours[k]
            missing = sorted(set(ref_block) - set(block))
            if missing:
                cmp.problems.append(f".mov: nodes {missing} missing at t={t:g}")
            for label in sorted(set(ref_block) & set(block)):
                r, o = ref_block[label], block[label]
                dx = o[:3] - r[:3]
                rel = np.linalg.norm(dx) / cmp.size
                cmp.position.update(rel, ".mov", label, 2 + int(np.argmax(np.abs(dx))), t)
                desc = _description(r, descriptions, label)
                angle = np.linalg.norm(rot.log_rotvec(orientation_of(o[3:], desc).T @ orientation_of(r[3:], desc)))
                cmp.rotation.update(angle, ".mov", label, 5, t)
                per_time[t] = max(per_time.get(t, 0.0), rel, angle)

    # Reactions from the first kept step after the initial time: at the initial time MBDyn
    # prints the multipliers of its derivatives phase (zero for most decks).
    if os.path.exists(ref_file("jnt")):
        ref = blocks(read_lines(ref_file("jnt")))
        ours = ours_of.get("jnt", [])
        loads = [v[:12] for b in ref for v in b.values()]
        cmp.load_scale = float(np.max(np.abs(loads))) if loads else 0.0
        scale = cmp.load_scale if cmp.load_scale > 1e-12 else 1.0
        cmp.reaction_t0_zero = bool(ref) and all(not np.any(v[:12]) for v in ref[0].values())
        for t, k, ref_block in zip(ref_times, matched, ref):
            if k < 0 or k >= len(ours) or t == ref_times[0]:
                continue
            cmp.reaction_steps += 1
            first_after_t0 = cmp.reaction_steps == 1
            block = ours[k]
            missing = sorted(set(ref_block) - set(block))
            if missing:
                cmp.problems.append(f".jnt: joints {missing} missing at t={t:g}")
            for label in sorted(set(ref_block) & set(block)):
                n = min(12, len(ref_block[label]))
                if len(block[label]) < n:
                    cmp.problems.append(f".jnt: joint {label} has {len(block[label])} columns, MBDyn {n}+")
                    continue
                d = np.abs(block[label][:n] - ref_block[label][:n]) / scale
                j = int(np.argmax(d))
                cmp.reaction.update(d[j], ".jnt", label, 2 + j, t)
                if not first_after_t0:
                    cmp.reaction_later = max(cmp.reaction_later, float(d[j]))
    cmp.problems = list(dict.fromkeys(p.split(" at t=")[0] for p in cmp.problems))

    last_good = float("nan")
    for t in sorted(per_time):
        if per_time[t] > AGREEMENT:
            break
        last_good = t
    cmp.agree_until = last_good
    return cmp


def explain(deck, comparison):
    """Known reason for a deck's difference from MBDyn, or "": the per-deck table
    KNOWN_EXPLANATIONS, and MBDyn's start-up of the joint reactions (differences confined to
    the first kept step after the initial time, everything later within AGREEMENT)."""
    c = comparison
    if c.agrees:
        return ""
    if deck in KNOWN_EXPLANATIONS and not c.motion_agrees:
        source, text = KNOWN_EXPLANATIONS[deck]
        return f"{source}: {text}"
    if (c.motion_agrees and not c.problems and c.reaction.value > AGREEMENT
            and c.reaction_later <= AGREEMENT and c.reaction_steps > 1):
        start = ("zero reactions at t0, its multipliers start from zero"
                 if c.reaction_t0_zero else "reactions at t0 from its derivatives phase")
        return (f"MBDyn: start-up transient of the joint reactions (MBDyn prints {start}); "
                f"only the first kept step after t0 differs, later steps agree within {AGREEMENT:g}")
    return ""
