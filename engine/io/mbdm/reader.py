"""Reader of MBDM's plain-text input files (MBDM technical note, V. Leble 2022, §7;
spec/seed-systems-digest.md §1.5): the main file and its optional companions
`<main>.expert.tracers`, `.expert.mooring`, `.expert.parameters`, plus mbdae's own
`<main>.expert.loads` (MBDM changes loads by editing calc_FA.c / calc_MA.c; see loads below).
The `.expert.solvers` file (coupling to HMB3 and SPH) is refused by name.

Every line is `key: value` (values comma separated).  The main file is the header (TN Table
3: name, analysis type, numbers of bodies and joints, times, Newton settings, output
frequencies), then the bodies (TN §7.2, Table 9) and the joints (TN §7.3, Table 10), blocks
separated by blank lines.  A block's optional first line `Body k` / `Joint k` is a label
only (MBDM numbers bodies and joints by their order); inside a block the keys may come in any
order, each exactly once.  Every error is one line naming file:line:column, the key and
what was expected (an MbdmError, which is a DeckError)."""
import os
import re
from dataclasses import dataclass, field

import numpy as np

from mbdae.engine.io.mbdyn.lexer import DeckError

JOINT_TYPES = ("ABX", "ABY", "ABZ", "ABA", "C", "DI", "G", "R", "RC", "RDRV", "S", "T", "U")
ABSOLUTE_TYPES = ("ABX", "ABY", "ABZ", "ABA", "G")
LOAD_TYPES = ("force in GCS", "moment in GCS", "force in LCS", "moment in LCS", "force function")


class MbdmError(DeckError):
    """An error in an MBDM input file: file:line:column, the key, the message."""


def _norm(text):
    """A key without blanks and case: MBDM's C reader skips the text before ':'; mbdae
    checks it, tolerating spacing and case (`Number of bodies :` = `Number of bodies:`)."""
    return re.sub(r"\s+", "", text).lower()


@dataclass
class Line:
    file: str
    number: int
    key: str           # the text before the first ':' (stripped), or the whole line
    value: str         # the text after it ('' without a ':')
    column: int        # 1-based column of the value (of the key when there is no value)
    has_colon: bool

    def error(self, message, word=None):
        return MbdmError(self.file, self.number, self.column if word is None else 1,
                         self.key if word is None else word, message)


def read_lines(path):
    """The file's lines as Line records, None for blank lines."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise MbdmError(path, 0, 0, os.path.basename(path), f"cannot read the MBDM file: {e.strerror}") from None
    lines = []
    for k, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s:
            lines.append(None)
            continue
        if ":" in s:
            key, value = s.split(":", 1)
            col = raw.index(":") + 2
            lines.append(Line(path, k, key.strip(), value.strip(), col, True))
        else:
            lines.append(Line(path, k, s, "", raw.index(s[0]) + 1, False))
    return lines


class Cursor:
    """The non-blank lines of one file, read in order."""

    def __init__(self, path):
        self.path = path
        self.lines = [ln for ln in read_lines(path) if ln is not None]
        self.k = 0

    def peek(self):
        return self.lines[self.k] if self.k < len(self.lines) else None

    def next(self, expected):
        ln = self.peek()
        if ln is None:
            last = self.lines[-1].number if self.lines else 0
            raise MbdmError(self.path, last + 1, 1, "end of file", f"the file ends where '{expected}' was expected")
        self.k += 1
        return ln

    def keyed(self, key, what=None):
        """The next line, which must be `key: value`; returns it."""
        ln = self.next(key)
        if not ln.has_colon or _norm(ln.key) != _norm(key):
            raise MbdmError(ln.file, ln.number, 1, ln.key, f"expected '{key}:'" + (f" ({what})" if what else ""))
        return ln

    def done(self):
        ln = self.peek()
        if ln is not None:
            raise ln.error("unexpected line after the last entry the file declares", word=ln.key)


# ---------------------------------------------------------------------- values

def numbers(ln, count, what):
    """`count` comma-separated real numbers of a line (a one-line error naming the key)."""
    parts = [p.strip() for p in ln.value.split(",")] if ln.value else []
    if len(parts) != count:
        raise ln.error(f"'{ln.key}' needs {count} number{'s' if count > 1 else ''} ({what}), got "
                       f"{len(parts)}: '{ln.value}'")
    out = []
    for p in parts:
        try:
            v = float(p)
        except ValueError:
            raise ln.error(f"'{ln.key}': '{p}' is not a number ({what})") from None
        if not np.isfinite(v):
            raise ln.error(f"'{ln.key}': {p} is not a finite number ({what})")
        out.append(v)
    return np.array(out)


def number(ln, what, positive=False, nonnegative=False):
    v = float(numbers(ln, 1, what)[0])
    if positive and not v > 0:
        raise ln.error(f"'{ln.key}' must be positive ({what}), not {v:g}")
    if nonnegative and v < 0:
        raise ln.error(f"'{ln.key}' must not be negative ({what}), not {v:g}")
    return v


def integer(ln, what, minimum=0):
    v = number(ln, what)
    if v != int(v) or v < minimum:
        raise ln.error(f"'{ln.key}' must be an integer ≥ {minimum} ({what}), not {ln.value}")
    return int(v)


# ---------------------------------------------------------------------- records

@dataclass
class Header:
    name: str
    analysis: int                  # 0 kinematic, 1 dynamic
    n_bodies: int
    n_joints: int
    t_start: float
    t_end: float
    dt: float
    nr_accuracy: float
    nr_steps: int
    save_output: int               # every n steps; 0 = never
    save_checkpoint: int
    save_tracers: int
    where: str = ""


@dataclass
class Body:
    id: int                        # 1-based, in the order of the file
    name: str
    angles: np.ndarray             # 1-2-3 Euler angles (TN eq. 91: A = Rz Ry Rx)
    r: np.ndarray
    v: np.ndarray
    omega: np.ndarray              # in the body frame (LCS)
    mass: float
    inertia: np.ndarray            # (3, 3) in the LCS
    where: str = ""


@dataclass
class Joint:
    id: int
    type: str
    bodies: tuple                  # (i, j); j = 0 for the absolute constraints
    p1: np.ndarray
    q1: np.ndarray
    r1: np.ndarray
    p2: np.ndarray
    q2: np.ndarray
    r2: np.ndarray
    dist: float
    where: str = ""
    line: object = None            # the `type:` Line (for errors found when building)


@dataclass
class TracerGroup:
    id: int
    body: int
    points: np.ndarray             # (n, 3) in the body's LCS
    where: str = ""


@dataclass
class MooringLine:
    name: str
    body: int
    anchor: np.ndarray             # GCS
    fairlead: np.ndarray           # body LCS
    correction: np.ndarray         # stored, unused (as MBDM's C version)
    length: float
    stiffness: float
    damping: float
    where: str = ""


@dataclass
class Load:
    """mbdae's `.expert.loads` entry: a constant force or moment (global or body frame) or
    a Python force function of the body's position and velocity."""
    id: int
    type: str
    body: int
    value: np.ndarray = None
    function: object = None        # (path of the Python file, function name)
    where: str = ""


@dataclass
class MbdmInput:
    path: str
    header: Header
    bodies: list
    joints: list
    tracers: list = field(default_factory=list)
    moorings: list = field(default_factory=list)
    parameters: dict = field(default_factory=dict)
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    loads: list = field(default_factory=list)
    files: list = field(default_factory=list)          # the files read


def _where(ln):
    return f"{ln.file}:{ln.number}"


# ---------------------------------------------------------------------- the main file

HEADER_KEYS = (("Name", "the case name"), ("Kinematic (0), Dynamic (1)", "the analysis type"),
               ("Number of bodies", ""), ("Number of joints (including drivers)", ""),
               ("t_start", "s"), ("t_end", "s"), ("dt", "s"), ("N-R accuracy", ""), ("N-R steps", ""),
               ("Save output every (n) steps", ""), ("Save checkpoint every (n) steps", ""),
               ("Save tracers every (n) steps", ""))
ANALYSIS_KEY = _norm("Kinematic (0), Dynamic (1)")


def is_mbdm_file(path):
    """Whether `path` is an MBDM main file: its header's analysis line
    `Kinematic (0), Dynamic (1):` among its first three non-blank lines."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = [s for s in (f.readline() for _ in range(20)) if s.strip()][:3]
    except OSError:
        return False
    return any(":" in s and _norm(s.split(":", 1)[0]) == ANALYSIS_KEY for s in head)


def _header(cur):
    first = cur.next("Name:")
    if first.has_colon and _norm(first.key) == "name":
        name = first.value
    elif not first.has_colon:            # TN Table 9 writes the bare name
        name = first.key
    else:
        raise first.error("expected 'Name:' (the case name)", word=first.key)
    if not name or re.search(r"[\\/]", name):
        raise first.error(f"the case name must be a non-empty file name part, not '{name}'", word=first.key)
    lines = [cur.keyed(k, w) for k, w in HEADER_KEYS[1:]]
    kind = integer(lines[0], "0 kinematic or 1 dynamic")
    if kind not in (0, 1):
        raise lines[0].error(f"the analysis type is 0 (kinematic) or 1 (dynamic), not {kind}")
    nb = integer(lines[1], "number of bodies", minimum=1)
    nj = integer(lines[2], "number of joints")
    t0, t1 = number(lines[3], "start time"), number(lines[4], "end time")
    dt = number(lines[5], "time step", positive=True)
    if t1 < t0:
        raise lines[4].error(f"t_end ({t1:g}) is before t_start ({t0:g})")
    acc = number(lines[6], "Newton-Raphson convergence limit", positive=True)
    steps = integer(lines[7], "Newton-Raphson iterations", minimum=1)
    every = [integer(ln, "steps; 0 = never") for ln in lines[8:11]]
    return Header(name, kind, nb, nj, t0, t1, dt, acc, steps, *every, where=_where(first))


def _block(cur, label_word, keys, what):
    """One body or joint block: an optional `Body k` line, then `keys`, any order, once each.
    Returns ({normalized key: Line}, first line)."""
    first = cur.peek()
    if first is None:
        cur.next(keys[0])
    if not first.has_colon and _norm(first.key).startswith(label_word.lower()):
        cur.next(label_word)
        if re.fullmatch(rf"{label_word}\s*\d*", first.key, re.IGNORECASE) is None:
            raise first.error(f"expected '{label_word} k' (a label) or the {what}'s first key", word=first.key)
    wanted = {_norm(k): k for k in keys}
    found = {}
    while len(found) < len(keys):
        missing = [k for n, k in wanted.items() if n not in found]
        ln = cur.next(missing[0])
        n = _norm(ln.key) if ln.has_colon else None
        if n not in wanted:
            raise ln.error(f"{what} (from line {first.number}): '{ln.key}' is not one of its keys; missing: "
                           + ", ".join(f"'{k}:'" for k in missing), word=ln.key)
        if n in found:
            raise ln.error(f"{what} (from line {first.number}): '{ln.key}' given twice (also on line "
                           f"{found[n].number})", word=ln.key)
        found[n] = ln
    return found, first


BODY_KEYS = ("name", "angles (1-2-3 notation)", "r", "v", "omega", "mass", "I(1,1-3)", "I(2,1-3)", "I(3,1-3)")
JOINT_KEYS = ("type", "bodies", "p1", "q1", "r1", "p2", "q2", "r2", "dist")


def _body(cur, k):
    f, first = _block(cur, "Body", BODY_KEYS, "body")
    g = lambda key: f[_norm(key)]                          # noqa: E731
    mass = number(g("mass"), "kg", positive=True)
    inertia = np.array([numbers(g(f"I({i},1-3)"), 3, "a row of the inertia tensor in the LCS, kg m²")
                        for i in (1, 2, 3)])
    ln = g("I(1,1-3)")
    if not np.allclose(inertia, inertia.T, rtol=1e-9, atol=1e-12 * np.abs(inertia).max()):
        raise ln.error(f"body {k}: the inertia tensor is not symmetric")
    if np.linalg.eigvalsh(0.5 * (inertia + inertia.T)).min() <= 0:
        raise ln.error(f"body {k}: the inertia tensor is not positive definite")
    return Body(k, g("name").value, numbers(g("angles (1-2-3 notation)"), 3, "rad"),
                numbers(g("r"), 3, "m, GCS"), numbers(g("v"), 3, "m/s, GCS"), numbers(g("omega"), 3, "rad/s, LCS"),
                mass, inertia, where=_where(first))


def _joint(cur, k, n_bodies):
    f, first = _block(cur, "Joint", JOINT_KEYS, "joint")
    g = lambda key: f[_norm(key)]                          # noqa: E731
    tl = g("type")
    jtype = tl.value.strip().upper()
    if jtype == "SPH":
        raise tl.error("SPH coupling is not supported by mbdae")
    if jtype not in JOINT_TYPES:
        raise tl.error(f"joint {k}: unknown type '{tl.value}' (one of {', '.join(JOINT_TYPES)})")
    bl = g("bodies")
    b = numbers(bl, 2, "body IDs i, j")
    if any(v != int(v) for v in b):
        raise bl.error(f"joint {k}: body IDs are integers, not {bl.value}")
    i, j = int(b[0]), int(b[1])
    if not 1 <= i <= n_bodies:
        raise bl.error(f"joint {k}: body {i} does not exist (bodies 1 to {n_bodies})")
    if jtype in ABSOLUTE_TYPES:
        if j != 0:
            raise bl.error(f"joint {k} ({jtype}) constrains one body: its second body must be 0, not {j}")
    else:
        if not 1 <= j <= n_bodies:
            raise bl.error(f"joint {k} ({jtype}) connects two bodies: body {j} does not exist "
                           f"(bodies 1 to {n_bodies}; 0, the ground, only for {', '.join(ABSOLUTE_TYPES)})")
        if i == j:
            raise bl.error(f"joint {k} ({jtype}) connects body {i} to itself")
    vecs = {key: numbers(g(key), 3, "LCS vector") for key in ("p1", "q1", "r1", "p2", "q2", "r2")}
    return Joint(k, jtype, (i, j), dist=number(g("dist"), "length, coordinate or angular speed"),
                 where=_where(first), line=tl, **vecs)


def read_main(path):
    cur = Cursor(path)
    header = _header(cur)
    bodies = []
    for k in range(1, header.n_bodies + 1):
        if cur.peek() is None or (not cur.peek().has_colon and _norm(cur.peek().key).startswith("joint")):
            raise _count_error(cur, header, "bodies", k - 1)
        bodies.append(_body(cur, k))
    joints = []
    for k in range(1, header.n_joints + 1):
        if cur.peek() is None:
            raise _count_error(cur, header, "joints", k - 1)
        joints.append(_joint(cur, k, header.n_bodies))
    cur.done()
    return header, bodies, joints


def _count_error(cur, header, what, found):
    ln = cur.peek() or (cur.lines[-1] if cur.lines else None)
    declared = header.n_bodies if what == "bodies" else header.n_joints
    key = "Number of bodies" if what == "bodies" else "Number of joints (including drivers)"
    return MbdmError(cur.path, ln.number if ln else 1, 1, key,
                     f"the header declares {declared} {what} ('{key}:', {header.where}) but the file has {found}")


# ---------------------------------------------------------------------- the expert files

def read_tracers(path, n_bodies):
    """`<main>.expert.tracers` (TN §7.1.2, Tables 4-5)."""
    cur = Cursor(path)
    n = integer(cur.keyed("Number of tracer groups"), "tracer groups")
    groups = []
    for _ in range(n):
        gl = cur.keyed("Tracer group")
        gid = integer(gl, "group ID")
        bl = cur.keyed("Body ID")
        body = integer(bl, "body ID", minimum=1)
        if body > n_bodies:
            raise bl.error(f"tracer group {gid}: body {body} does not exist (bodies 1 to {n_bodies})")
        count = integer(cur.keyed("Number of tracers"), "tracers in the group", minimum=1)
        pts = [numbers(cur.keyed("Tracer(x, y, z in LCS)"), 3, "point in the body's LCS") for _ in range(count)]
        groups.append(TracerGroup(gid, body, np.array(pts), _where(gl)))
    cur.done()
    return groups


def read_mooring(path, n_bodies):
    """`<main>.expert.mooring` (TN §7.1.3, Table 6): spring-damper lines from a fairlead on a
    body to a fixed anchor."""
    cur = Cursor(path)
    n = integer(cur.keyed("Number of mooring lines"), "mooring lines")
    lines = []
    for k in range(1, n + 1):
        name = cur.next("the mooring line's name")
        if name.has_colon and _norm(name.key).startswith("fairleadattached"):
            raise name.error(f"mooring line {k}: its first line is its name, before "
                             f"'Fairlead attached to body nr:'", word=name.key)
        bl = cur.keyed("Fairlead attached to body nr")
        body = integer(bl, "body ID", minimum=1)
        if body > n_bodies:
            raise bl.error(f"mooring line {k}: body {body} does not exist (bodies 1 to {n_bodies})")
        anchor = numbers(cur.keyed("Anchor location in GCS"), 3, "m, GCS")
        fair = numbers(cur.keyed("Fairlead location in LCS of the body"), 3, "m, LCS")
        corr = numbers(cur.keyed("Correction for mass centre offset"), 3, "m (stored, unused)")
        length = number(cur.keyed("Not stretched length of the line"), "m", positive=True)
        k_ = number(cur.keyed("Stiffness coefficient"), "N/m", nonnegative=True)
        c_ = number(cur.keyed("Damping coefficient"), "N s/m", nonnegative=True)
        text = name.key + (": " + name.value if name.has_colon else "")
        lines.append(MooringLine(text, body, anchor, fair, corr, length, k_, c_, _where(name)))
    cur.done()
    return lines


PARAMETER_KEYS = ("Debug", "Timer", "Store A matrix", "Attempt fix")


def read_parameters(path):
    """`<main>.expert.parameters` (TN §7.1.4, Table 7): four 0/1 flags.  `Attempt fix: 1`
    (MBDM's symplectic-Euler correction of its RK4 coordinate-partitioning solution) has no
    counterpart: mbdae's implicit DAE solution satisfies the constraints at every step."""
    cur = Cursor(path)
    flags = {}
    for key in PARAMETER_KEYS:
        ln = cur.keyed(key)
        v = integer(ln, "0 or 1")
        if v not in (0, 1):
            raise ln.error(f"'{key}' is 0 or 1, not {v}")
        flags[key] = v
        if key == "Attempt fix" and v:
            raise ln.error("'Attempt fix: 1' is not supported: it corrects MBDM's RK4 coordinate-partitioning "
                           "solution with symplectic Euler, which mbdae's implicit DAE solution (constraints "
                           "satisfied at every step) does not need; set it to 0")
    cur.done()
    return flags


def read_loads(path, n_bodies):
    """mbdae's `<main>.expert.loads` (not an MBDM file: MBDM changes its loads by editing
    calc_FA.c and calc_MA.c, TN §7.4).  Lines:

        Gravity in GCS: gx, gy, gz            (MBDM's default: 0, 0, -9.81)
        Number of loads: n
        then n blocks of  type: / body: / value: (or function: FILE.py, NAME)

    types: `force in GCS`, `moment in GCS`, `force in LCS`, `moment in LCS` (constant,
    3 numbers; the LCS ones turn with the body, as MBDM's n'^A of eq. 90) and `force
    function`: a Python function func(t, x (n,3), v (n,3)) -> (F, dF/dx, dF/dv) in a file
    beside the main file (mbdae.elements.userforce), the MBDM E3 gas force for instance."""
    cur = Cursor(path)
    gravity = numbers(cur.keyed("Gravity in GCS"), 3, "m/s²")
    n = integer(cur.keyed("Number of loads"), "loads")
    loads = []
    for k in range(1, n + 1):
        f, first = _block(cur, "Load", ("type", "body", "value" if _peek_type(cur) != "force function"
                                                     else "function"), "load")
        tl = f["type"]
        kind = " ".join(tl.value.split())
        if kind not in LOAD_TYPES:
            raise tl.error(f"load {k}: unknown type '{tl.value}' (one of {', '.join(LOAD_TYPES)})")
        bl = f["body"]
        body = integer(bl, "body ID", minimum=1)
        if body > n_bodies:
            raise bl.error(f"load {k}: body {body} does not exist (bodies 1 to {n_bodies})")
        if kind == "force function":
            fl = f["function"]
            parts = [p.strip() for p in fl.value.split(",")]
            if len(parts) != 2 or not parts[0].endswith(".py") or not parts[1].isidentifier():
                raise fl.error(f"load {k}: 'function:' is FILE.py, NAME (a Python file beside the main file and "
                               f"the name of its function), not '{fl.value}'")
            file = os.path.join(os.path.dirname(os.path.abspath(path)), parts[0])
            if not os.path.isfile(file):
                raise fl.error(f"load {k}: no file {file}")
            loads.append(Load(k, kind, body, function=(file, parts[1]), where=_where(first)))
        else:
            loads.append(Load(k, kind, body, value=numbers(f["value"], 3, "N or N m"), where=_where(first)))
    cur.done()
    return gravity, loads


def _peek_type(cur):
    """The type of the load block at the cursor (to know its keys), or ''."""
    for ln in cur.lines[cur.k:cur.k + 2]:
        if ln.has_colon and _norm(ln.key) == "type":
            return " ".join(ln.value.split())
    return ""


def read_mbdm(path):
    """The MBDM main file at `path` and its companions `<path>.expert.*` (an MbdmInput)."""
    header, bodies, joints = read_main(path)
    data = MbdmInput(path, header, bodies, joints, files=[path])
    solvers = path + ".expert.solvers"
    if os.path.exists(solvers):
        raise MbdmError(solvers, 1, 1, os.path.basename(solvers),
                        "coupling to HMB3 (CFD) and SPH is not supported by mbdae; remove the file to run the "
                        "multibody model alone")
    readers = ((".expert.tracers", lambda p: setattr(data, "tracers", read_tracers(p, header.n_bodies))),
               (".expert.mooring", lambda p: setattr(data, "moorings", read_mooring(p, header.n_bodies))),
               (".expert.parameters", lambda p: setattr(data, "parameters", read_parameters(p))))
    for suffix, read in readers:
        if os.path.exists(path + suffix):
            read(path + suffix)
            data.files.append(path + suffix)
    if os.path.exists(path + ".expert.loads"):
        data.gravity, data.loads = read_loads(path + ".expert.loads", header.n_bodies)
        data.files.append(path + ".expert.loads")
    return data
