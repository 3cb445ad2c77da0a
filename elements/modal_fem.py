"""MBDyn's FEM data file of the modal joint (input manual, appendix "FEM File Format"):
records `** RECORD GROUP n` (n = 1..13) and an optional `** END OF FILE`.

    1  header: REV NNODES NNORMAL NATTACHED NCONSTRAINT NREJECTED
       (NMODES = NNORMAL + NATTACHED + NCONSTRAINT - NREJECTED)
    2  NNODES FEM node labels (strings without blanks)
    3  NMODES initial modal displacements (optional, zero if absent)
    4  NMODES initial modal velocities (optional)
    5, 6, 7  X, Y, Z of the NNODES nodes (the FEM frame)
    8  the rejected shapes first (skipped), then NMODES shapes: per node X Y Z RX RY RZ
    9  generalized mass matrix, NMODES × NMODES, one row after the other
    10 generalized stiffness matrix
    11 lumped nodal inertia (optional): per node M_X M_Y M_Z J_X J_Y J_Z; only M_X is used
       as the nodal mass (theory manual footnote to eq. 9.407)
    12 rigid-body inertia (optional): mass, centre of mass (FEM frame), inertia about the
       centre of mass (3 × 3)
    13 generalized damping matrix (optional)
    14-18 (optional, MBDyn's development branch; written by mboct-fem-pkg) the inertia
       invariants computed by the FE program, replacing those of record 11: 14 I₃ (3 rows
       of NMODES), 15 I₄ (likewise), 16 I₈ (row i: I₈ⱼ[i, 0:3] for each mode j), 17 I₅
       (row i: I₅ⱼ[i, 0:NMODES] for each j), 18 I₉ (row i: I₉ⱼₖ[i, 0:3] for each j, then k)
    19 (optional) stress stiffening (theory manual §9.4.6, eq. 9.433): the number of
       matrices, then per matrix its load-case index and NMODES × NMODES values.  Indices:
       1-6 the angular-velocity products ω₁², ω₂², ω₃², ω₁ω₂, ω₂ω₃, ω₃ω₁; 7-9 the angular
       acceleration; 10-12 the linear acceleration minus gravity (ẍ₀ - g); then 6 per
       interface node j (in the joint's order): unit force x, y, z and unit moment x, y, z
       at it, all in the floating frame.

Records 1, 2, 5-10 are required; record 1 comes first; each record at most once.  Lines
starting with `**` are comments; a record reads its values in order from the lines after
its marker (any number per line) and ignores what follows them up to the next marker.
Errors name the file and line: `path:line: message`."""
from dataclasses import dataclass, field
import numpy as np

REQUIRED = (1, 2, 5, 6, 7, 8, 9, 10)
MARKER = "** RECORD GROUP "
END = "** END OF FILE"
LAST = 19


@dataclass
class FemData:
    path: str
    labels: list                      # FEM node labels (strings)
    x: np.ndarray                     # (N, 3) node positions, FEM frame
    shapes_t: np.ndarray              # (M, N, 3) displacement shapes
    shapes_r: np.ndarray              # (M, N, 3) linearized rotation shapes
    mass: np.ndarray                  # (M, M) generalized mass
    stiffness: np.ndarray             # (M, M) generalized stiffness
    damping: np.ndarray = None        # (M, M) record 13, or None
    q0: np.ndarray = None             # (M,) record 3 (zeros if absent)
    qd0: np.ndarray = None            # (M,) record 4
    lumped: np.ndarray = None         # (N, 6) record 11, or None
    rigid: tuple = None               # record 12: (mass, centre of mass (3,), J_cm (3, 3)), or None
    lines: dict = field(default_factory=dict)    # record number -> line of its marker
    invariants: dict = None           # records 14-18: {"I3": (3, M), "I4": (3, M), "I8": (M, 3, 3),
    #                                   "I5": (M, 3, M), "I9": (M, M, 3, 3)} (those given)
    stiffening: dict = None           # record 19: {load-case index: (M, M) matrix}

    @property
    def n_nodes(self):
        return len(self.labels)

    @property
    def n_modes(self):
        return self.mass.shape[0]


class _Record:
    """The values of one record: whitespace-separated tokens of its non-comment lines, with
    their line numbers."""

    def __init__(self, path, number, line, tokens):
        self.path, self.number, self.line = path, number, line
        self.tokens = tokens          # [(line, text)]
        self.i = 0

    def error(self, line, message):
        return ValueError(f"{self.path}:{line}: {message}")

    def take(self, what):
        if self.i >= len(self.tokens):
            last = self.tokens[-1][0] if self.tokens else self.line
            raise self.error(last, f"RECORD GROUP {self.number}: {what} expected, the record ends "
                                   f"after {self.i} values")
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def reals(self, n, what):
        out = np.empty(n)
        for k in range(n):
            line, text = self.take(what)
            try:
                out[k] = float(text.replace("D", "E").replace("d", "e"))
            except ValueError:
                raise self.error(line, f"RECORD GROUP {self.number}: {what} expected, found '{text}'") from None
        return out

    def integer(self, what):
        line, text = self.take(what)
        try:
            value = int(text)
        except ValueError:
            raise self.error(line, f"RECORD GROUP {self.number}: {what} (an integer) expected, "
                                   f"found '{text}'") from None
        if value < 0:
            raise self.error(line, f"RECORD GROUP {self.number}: {what} must not be negative ({value})")
        return value


def _split_records(path, text):
    """{record number: _Record} of the file's text; ValueError on a bad or repeated marker,
    or a record before record 1."""
    records, current = {}, None
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.startswith(END):
            break
        if raw.startswith(MARKER):
            rest = raw[len(MARKER):]
            digits = rest.split(",")[0].split()[0] if rest.split() else ""
            if not digits.isdigit():
                raise ValueError(f"{path}:{number}: unable to read the RECORD GROUP number ('{rest.strip()}')")
            rg = int(digits)
            if not 1 <= rg <= LAST:
                raise ValueError(f"{path}:{number}: unknown RECORD GROUP {rg} (1 to {LAST})")
            if rg in records:
                raise ValueError(f"{path}:{number}: RECORD GROUP {rg} already given "
                                 f"(line {records[rg].line})")
            if rg != 1 and 1 not in records:
                raise ValueError(f"{path}:{number}: RECORD GROUP {rg} before RECORD GROUP 1 (the header)")
            current = records[rg] = _Record(path, rg, number, [])
            continue
        if current is None or raw.lstrip().startswith("*"):
            continue
        current.tokens.extend((number, t) for t in raw.split())
    return records


def read_fem_file(path):
    """The FemData of an MBDyn FEM data file (module docstring); ValueError `path:line: ...`
    on bad input."""
    try:
        with open(path, encoding="latin-1") as f:
            text = f.read()
    except OSError as e:
        raise ValueError(f"{path}: unable to open the FEM data file ({e.strerror})") from None
    records = _split_records(path, text)
    missing = [r for r in REQUIRED if r not in records]
    if missing:
        raise ValueError(f"{path}:1: RECORD GROUP {', '.join(map(str, missing))} missing (records "
                         f"{', '.join(map(str, REQUIRED))} are required)")
    h = records[1]
    h.take("the revision")
    nn = h.integer("the number of nodes")
    counts = [h.integer(w) for w in ("the number of normal modes", "the number of attachment modes",
                                      "the number of constraint modes", "the number of rejected modes")]
    nm = counts[0] + counts[1] + counts[2] - counts[3]
    if nm <= 0:
        raise h.error(h.line, f"RECORD GROUP 1: no modes (normal + attachment + constraint - rejected = {nm})")
    if nn <= 0:
        raise h.error(h.line, "RECORD GROUP 1: the number of nodes must be positive")
    rej = counts[3]
    r = records[2]
    labels = [r.take("a FEM node label")[1] for _ in range(nn)]
    seen = {}
    for k, lab in enumerate(labels):
        if lab in seen:
            raise r.error(r.tokens[k][0], f"RECORD GROUP 2: FEM node label '{lab}' given twice")
        seen[lab] = k
    q0 = records[3].reals(nm, "an initial modal displacement") if 3 in records else np.zeros(nm)
    qd0 = records[4].reals(nm, "an initial modal velocity") if 4 in records else np.zeros(nm)
    x = np.stack([records[k].reals(nn, f"a nodal {c} coordinate") for k, c in ((5, "X"), (6, "Y"), (7, "Z"))],
                 axis=1)
    s = records[8]
    s.reals(rej * nn * 6, "a rejected mode shape value")
    shapes = s.reals(nm * nn * 6, "a mode shape value").reshape(nm, nn, 6)
    mats = {k: records[k].reals(nm * nm, w).reshape(nm, nm) for k, w in
            ((9, "a generalized mass value"), (10, "a generalized stiffness value"),
             (13, "a generalized damping value")) if k in records}
    lumped = records[11].reals(nn * 6, "a lumped inertia value").reshape(nn, 6) if 11 in records else None
    rigid = None
    if 12 in records:
        v = records[12].reals(13, "a rigid-body inertia value")
        rigid = (float(v[0]), v[1:4].copy(), v[4:13].reshape(3, 3).copy())
    inv = {}
    if 14 in records:
        inv["I3"] = records[14].reals(3 * nm, "an invariant 3 value").reshape(3, nm)
    if 15 in records:
        inv["I4"] = records[15].reals(3 * nm, "an invariant 4 value").reshape(3, nm)
    if 16 in records:                                   # row i: I8_j[i, :] for each j
        inv["I8"] = records[16].reals(9 * nm, "an invariant 8 value").reshape(3, nm, 3).transpose(1, 0, 2).copy()
    if 17 in records:                                   # row i: I5_j[i, :] for each j
        inv["I5"] = records[17].reals(3 * nm * nm, "an invariant 5 value").reshape(3, nm, nm).transpose(1, 0, 2).copy()
    if 18 in records:                                   # row i: I9_jk[i, :] for each j, k
        inv["I9"] = records[18].reals(9 * nm * nm, "an invariant 9 value").reshape(3, nm, nm, 3) \
            .transpose(1, 2, 0, 3).copy()
    stiffening = None
    if 19 in records:
        r = records[19]
        count = r.integer("the number of stress stiffening matrices")
        stiffening = {}
        for _ in range(count):
            line = r.tokens[r.i][0] if r.i < len(r.tokens) else r.line
            index = r.integer("a stress stiffening load-case index")
            if index < 1 or index in stiffening:
                raise r.error(line, f"RECORD GROUP 19: load-case index {index} "
                                    f"{'given twice' if index in stiffening else 'must be at least 1'}")
            stiffening[index] = r.reals(nm * nm, "a stress stiffening matrix value").reshape(nm, nm)
    return FemData(path, labels, x, shapes[..., 0:3].copy(), shapes[..., 3:6].copy(), mats[9], mats[10],
                   mats.get(13), q0, qd0, lumped, rigid, {k: rec.line for k, rec in records.items()},
                   inv or None, stiffening)


def _rows(f, A, fmt="%.16e"):
    """Write the rows of a 2-D array, one line each (formatted in chunks: fast for 10⁶ rows)."""
    A = np.atleast_2d(np.asarray(A, float))
    line = " ".join([fmt] * A.shape[1]) + "\n"
    for k in range(0, A.shape[0], 50_000):
        chunk = A[k:k + 50_000]
        f.write((line * chunk.shape[0]) % tuple(chunk.ravel().tolist()))


def write_fem_file(path, fem, comment=None):
    """Write `fem` (FemData) as an MBDyn FEM data file that read_fem_file and MBDyn's modal
    joint read: records 1-10, 11 and 12 when given, 13 when fem.damping is set, 14-18 and
    19 when fem.invariants and fem.stiffening are; all modes as normal modes, none
    rejected."""
    nn, nm = fem.n_nodes, fem.n_modes
    if any(not lab or any(ch.isspace() for ch in lab) for lab in fem.labels):
        raise ValueError("write_fem_file: FEM node labels must be non-empty and without blanks")
    with open(path, "w", encoding="latin-1") as f:
        f.write("** MBDyn MODAL DATA FILE\n")
        for line in (comment or "").splitlines():
            f.write(f"** {line}\n")
        f.write("** RECORD GROUP 1, HEADER\n**   REVISION, NODES, NORMAL, ATTACHMENT, CONSTRAINT, REJECTED MODES\n")
        f.write(f"      REV0 {nn:9d} {nm:9d} {0:9d} {0:9d} {0:9d}\n")
        f.write("** RECORD GROUP 2, FINITE ELEMENT NODE LIST\n")
        for k in range(0, nn, 8):
            f.write(" ".join(fem.labels[k:k + 8]) + "\n")
        f.write("** RECORD GROUP 3, INITIAL MODAL DISPLACEMENTS\n")
        _rows(f, np.asarray(fem.q0, float)[None, :])
        f.write("** RECORD GROUP 4, INITIAL MODAL VELOCITIES\n")
        _rows(f, np.asarray(fem.qd0, float)[None, :])
        for rg, c in ((5, "X"), (6, "Y"), (7, "Z")):
            f.write(f"** RECORD GROUP {rg}, NODAL {c} COORDINATES\n")
            _rows(f, fem.x[:, rg - 5][:, None])
        f.write("** RECORD GROUP 8, MODE SHAPES\n")
        for k in range(nm):
            f.write(f"**    NORMAL MODE SHAPE # {k + 1:3d}\n")
            _rows(f, np.hstack([fem.shapes_t[k], fem.shapes_r[k]]))
        f.write("** RECORD GROUP 9, MODAL MASS MATRIX\n")
        _rows(f, fem.mass)
        f.write("** RECORD GROUP 10, MODAL STIFFNESS MATRIX\n")
        _rows(f, fem.stiffness)
        if fem.lumped is not None:
            f.write("** RECORD GROUP 11, DIAGONAL OF LUMPED MASS MATRIX\n")
            _rows(f, fem.lumped)
        if fem.rigid is not None:
            mass, xcg, J = fem.rigid
            f.write("** RECORD GROUP 12, RIGID BODY INERTIA: MASS, CENTRE OF MASS, INERTIA ABOUT IT\n")
            _rows(f, [[mass]])
            _rows(f, np.asarray(xcg, float)[None, :])
            _rows(f, J)
        if fem.damping is not None:
            f.write("** RECORD GROUP 13, MODAL DAMPING MATRIX\n")
            _rows(f, fem.damping)
        inv = fem.invariants or {}
        layouts = ((14, "I3", lambda a: a), (15, "I4", lambda a: a),
                   (16, "I8", lambda a: a.transpose(1, 0, 2).reshape(3, -1)),
                   (17, "I5", lambda a: a.transpose(1, 0, 2).reshape(3, -1)),
                   (18, "I9", lambda a: a.transpose(2, 0, 1, 3).reshape(3, -1)))
        for rg, name, rows in layouts:
            if name in inv:
                f.write(f"** RECORD GROUP {rg}, INVARIANT {name[1:]}\n")
                _rows(f, rows(np.asarray(inv[name], float)))
        if fem.stiffening:
            f.write("** RECORD GROUP 19, MODAL STRESS STIFFENING MATRIX\n")
            f.write(f"{len(fem.stiffening)}\n")
            for index in sorted(fem.stiffening):
                f.write(f"{int(index)}\n")
                _rows(f, fem.stiffening[index])
        f.write("** END OF FILE\n")
