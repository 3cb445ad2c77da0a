"""Airfoil data for the aerodynamic elements (theory manual ch. 13; input manual §8.1 "airfoil
data", `c81 data` card): MBDyn's built-in NACA 0012 / RAE 9671 semi-analytical models, C81
tables in every file format MBDyn 1.7.3 reads, their interpolation, the steady and `bielawa`
unsteady sectional loads, the alpha-rate memory of the unsteady models and the two-state
Theodorsen/Wagner internal-state model (13.7, eqs. 13.69–13.71).

Conventions (MBDyn's airfoil frame, manual fig. "Airfoil geometry"): axis 1 along the chord
from the trailing to the leading edge, axis 2 from the lower to the upper side, axis 3 along
the span.  W (6,) is the velocity of the section reference point and the angular velocity in
that frame; vam (6,) = density, sound celerity, chord, force (aerodynamic centre) position,
boundary-condition (velocity) position, twist — positions measured along axis 1 from the
reference line.  The section sees v = (W0, W1 + d34 W5, W2 − d34 W4) at the boundary-condition
point, the angle of attack α = atan2(−v1, v0) and the sweep γ = atan2(−v2, |v0|) (13.2).
TNG (6,) is the force and moment per unit span in the airfoil frame, OUTA (20,) MBDyn's
`outa_t` (1 α [deg], 2 γ [deg], 3 Mach, 4 cl, 5 cd, 6 cm, 7 dcl/dα [1/rad], 8 α̇, 9 α̈,
10 Δα_N [deg], 11 Δα_M [deg], 12 Δc_N, 13 Δc_M).

C81 coefficient tables hold angles in degrees; a table `a` of one coefficient is
(NA, NM + 1): column 0 the angles, column j + 1 the values at Mach m[j].  The compiled
functions read everything from the flat arrays made by `pack_airfoils`.

Per evaluation point an element calls, as MBDyn's Aerodynamic2DElem does: for `bielawa`,
`predict_alpha_rates(atan2(−W1, W0), t, hist_alpha, hist_t, n_updates)` then `airfoil_loads`;
after each converged step (t = 0 after the initial derivatives included)
`update_alpha_history` and n_updates += 1.  For `theodorsen`, `theodorsen_section` with the
point's two states and, in `prev`, the (α_pivot, α̇, t) its `rates` output gave at the last
converged step (zeros and the initial time before the first)."""
from dataclasses import dataclass, field
import math
import os
import re

import numpy as np

from mbdae.engine.core.compiled import kernel
from mbdae.engine.errors import InputError


class C81Error(InputError):
    """A C81 file that cannot be read: the message is one line, `file:line: problem`."""


# ---------------------------------------------------------------------------------- tables

DEFAULT_TOLERANCE = 1e-6        # MBDyn's c81 data `tolerance` default (stall detection)


@dataclass
class C81Table:
    """One airfoil's C81 data (MBDyn's c81_data): Mach vectors and (NA, NM + 1) tables of
    cl, cd, cm, plus the stall data MBDyn derives from cl and cm (`stall`, `mstall`, each
    (3, NM): positive stall angle [deg], negative stall angle [deg], the slope between them
    [1/deg])."""
    header: str
    ml: np.ndarray
    al: np.ndarray
    md: np.ndarray
    ad: np.ndarray
    mm: np.ndarray
    am: np.ndarray
    stall: np.ndarray = None
    mstall: np.ndarray = None
    source: str = ""
    warnings: list = field(default_factory=list)

    def __post_init__(self):
        """A table built in memory gets the stall data read_c81 derives (default tolerance), so
        that it evaluates as the same table read from a file."""
        if self.stall is None:
            self.stall = _stall(np.asarray(self.al, float), DEFAULT_TOLERANCE, self.header or "table", "cl")
        if self.mstall is None:
            self.mstall = _stall(np.asarray(self.am, float), DEFAULT_TOLERANCE, self.header or "table", "cm")

    def coefficients(self, alpha_deg, mach):
        """(cl, cd, cm) interpolated as MBDyn does (get_coef), angle in degrees."""
        return (c81_coef(self.ml, self.al, alpha_deg, mach), c81_coef(self.md, self.ad, alpha_deg, mach),
                c81_coef(self.mm, self.am, alpha_deg, mach))


_STRTOD = re.compile(r"[ \t\n\v\f\r]*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)",
                     re.IGNORECASE)
_STRTOL = re.compile(r"[ \t\n\v\f\r]*[+-]?\d+")


def _c_number(text, pattern, convert):
    """Value of a fixed-width field read as C's strtod/strtol read it in MBDyn's c81data.cc:
    leading blanks skipped, the longest number prefix converted, and the field accepted only
    if what follows is blank or the end (an empty or blank field is 0).  None: rejected."""
    m = pattern.match(text)
    if m is None:
        rest = text
        value = convert("0")
    else:
        rest = text[m.end():]
        value = convert(m.group(0).strip())
    if rest and not rest[0].isspace():
        return None
    return value


class _Lines:
    """The file's lines with their numbers, read one at a time like std::getline."""

    def __init__(self, path, text, limit=None):
        self.path = path
        self.lines = text.splitlines()
        self.i = 0
        self.limit = limit          # MBDyn's line buffer size - 1 (longer lines fail there)

    def error(self, message, line=None):
        return C81Error(f"{self.path}:{self.i if line is None else line}: {message}")

    def next(self, what):
        if self.i >= len(self.lines):
            raise C81Error(f"{self.path}:{self.i + 1}: end of file while reading {what}")
        line = self.lines[self.i]
        self.i += 1
        if self.limit is not None and len(line) > self.limit:
            raise self.error(f"line longer than {self.limit} characters (MBDyn's line buffer) "
                             f"while reading {what}")
        return line

    def field(self, line, start, width, what, convert=float, pattern=_STRTOD):
        if start >= len(line):
            raise self.error(f"missing {what} (columns {start + 1}-{start + width})")
        value = _c_number(line[start:start + width], pattern, convert)
        if value is None:
            raise self.error(f"cannot read {what} from {line[start:start + width]!r} "
                             f"(columns {start + 1}-{start + width})")
        return value


def _check_increasing(path, v, what, line):
    """MBDyn's check_vec: Mach numbers and angles strictly increasing."""
    for i in range(1, len(v)):
        if v[i] <= v[i - 1]:
            raise C81Error(f"{path}:{line}: {what} not strictly increasing at entry {i + 1} "
                           f"({v[i - 1]:g} then {v[i]:g})")


def _fixed_vec(lines, n, what):
    """MBDyn's get_c81_vec: 9 values of 7 columns per line after 7 blank columns."""
    v = np.empty(n)
    first = lines.i + 1
    for c in range(n):
        i = c % 9
        if i == 0:
            line = lines.next(what)
        v[c] = lines.field(line, 7 * (i + 1), 7, f"{what} #{c + 1}")
    return v, first


def _fixed_mat(lines, nrows, ncols, what):
    """MBDyn's get_c81_mat: per row the angle and 9 values on the first line (10F7.0),
    then 9 values per continuation line after 7 blank columns."""
    m = np.empty((nrows, ncols))
    first = lines.i + 1
    for r in range(nrows):
        row, offset = 0, 0
        for c in range(ncols):
            i = (c - offset) % (9 - offset + 1)
            if i == 0:
                row += 1
                if row == 2:
                    offset = 1
                line = lines.next(f"{what} row {r + 1}")
            m[r, c] = lines.field(line, 7 * (i + offset), 7,
                                  f"{what} row {r + 1} " + ("angle" if c == 0 else f"Mach column {c}"))
    return m, first


def _read_fixed(path, text):
    """Default C81 layout (c81_data_read): header A30,6I2, then for cl, cd, cm the Mach
    vector (7x,9F7.0) and the rows (10F7.0/(7x,9F7.0))."""
    lines = _Lines(path, text, limit=127)
    head = lines.next("the header")
    counts = []
    names = ("NML", "NAL", "NMD", "NAD", "NMM", "NAM")
    for k, name in enumerate(names):
        counts.append(lines.field(head, 30 + 2 * k, 2, f"{name} (header)", int, _STRTOL))
    for name, n in zip(names, counts):
        if n <= 0:
            raise lines.error(f"header count {name} = {n} must be positive", 1)
    NML, NAL, NMD, NAD, NMM, NAM = counts
    out = {}
    for key, nm, na in (("l", NML, NAL), ("d", NMD, NAD), ("m", NMM, NAM)):
        what = {"l": "cl", "d": "cd", "m": "cm"}[key]
        mach, line = _fixed_vec(lines, nm, f"{what} Mach numbers")
        _check_increasing(path, mach, f"{what} Mach numbers", line)
        tab, line = _fixed_mat(lines, na, nm + 1, f"{what} table")
        _check_increasing(path, tab[:, 0], f"{what} angles of attack", line)
        out["m" + key], out["a" + key] = mach, tab
    return head[:30], out


class _Tokens:
    """Whitespace-separated numbers with their line numbers (std::istream >> double)."""

    def __init__(self, path, lines, first_line, end="file"):
        self.path = path
        self.end = end
        self.items = []
        for k, line in enumerate(lines):
            for tok in line.split():
                self.items.append((tok, first_line + k))
        self.i = 0
        self.last_line = first_line + len(lines) - 1

    def number(self, what, convert=float):
        if self.i >= len(self.items):
            raise C81Error(f"{self.path}:{self.last_line}: end of {self.end} while reading {what}")
        tok, line = self.items[self.i]
        self.i += 1
        pattern = _STRTOL if convert is int else _STRTOD
        m = pattern.match(tok)
        if m is None or m.end() != len(tok):
            raise C81Error(f"{self.path}:{line}: cannot read {what} from {tok!r}")
        return convert(tok), line


def _read_free(path, text, skip_marker):
    """Free format (c81_data_read_free_format): optional '# FREE FORMAT' line, then
    'header; NML NAL NMD NAD NMM NAM', then the Mach vectors and rows as free numbers."""
    lines = text.splitlines()
    k = 0
    if skip_marker or (lines and lines[0][:13].upper() == "# FREE FORMAT"):
        k = 1
        if skip_marker and len(lines) > 1 and lines[1][:13].upper() == "# FREE FORMAT":
            k = 2
    if k >= len(lines):
        raise C81Error(f"{path}:{k + 1}: end of file while reading the header")
    head = lines[k]
    if ";" not in head:
        raise C81Error(f"{path}:{k + 1}: free format header needs 'name; NML NAL NMD NAD NMM NAM'")
    name, rest = head.split(";", 1)
    htoks = _Tokens(path, [rest], k + 1, "line")    # the counts come from the header line only
    names = ("NML", "NAL", "NMD", "NAD", "NMM", "NAM")
    counts = []
    for nm in names:
        n, line = htoks.number(f"{nm} (header)", int)
        counts.append(n)
    toks = _Tokens(path, lines[k + 1:], k + 2)
    for nm, n in zip(names, counts):
        if n <= 0:
            raise C81Error(f"{path}:{k + 1}: header count {nm} = {n} must be positive")
    NML, NAL, NMD, NAD, NMM, NAM = counts
    out = {}
    for key, nm, na in (("l", NML, NAL), ("d", NMD, NAD), ("m", NMM, NAM)):
        what = {"l": "cl", "d": "cd", "m": "cm"}[key]
        mach = np.empty(nm)
        for c in range(nm):
            mach[c], line = toks.number(f"{what} Mach number #{c + 1}")
        _check_increasing(path, mach, f"{what} Mach numbers", line)
        tab = np.empty((na, nm + 1))
        first = None
        for r in range(na):
            for c in range(nm + 1):
                tab[r, c], line = toks.number(f"{what} table row {r + 1} column {c + 1}")
                first = line if first is None else first
        _check_increasing(path, tab[:, 0], f"{what} angles of attack", first)
        out["m" + key], out["a" + key] = mach, tab
    return name[:30], out


def _fc511_row(lines, n, what):
    """read_fc511_row: n values, 8 per line, 10 columns each."""
    v = np.empty(n)
    for r in range(n // 8 + (1 if n % 8 else 0)):
        line = lines.next(what)
        for c in range(min(8, n - 8 * r)):
            v[8 * r + c] = lines.field(line, 10 * c, 10, f"{what} #{8 * r + c + 1}")
    return v


def _fc511_block(lines, what):
    """read_fc511_block: 'NA NM' (2I5), angles, Mach numbers, the NA × NM values (each
    angle's row on its own lines), then the positive and negative extension rows (count,
    angles, values; the same values at every Mach number)."""
    line = lines.next(f"{what} sizes")
    NA = lines.field(line, 0, 5, f"{what} number of angles", int, _STRTOL)
    NM = lines.field(line, 5, 5, f"{what} number of Mach numbers", int, _STRTOL)
    if NA <= 0 or NM <= 0:
        raise lines.error(f"{what}: sizes NA = {NA}, NM = {NM} must be positive")
    alpha = _fc511_row(lines, NA, f"{what} angles")
    mach = _fc511_row(lines, NM, f"{what} Mach numbers")
    core = np.empty((NA, NM + 1))
    core[:, 0] = alpha
    for i in range(NA):
        core[i, 1:] = _fc511_row(lines, NM, f"{what} values at angle #{i + 1}")
    ext = []
    for side in ("positive", "negative"):
        line = lines.next(f"{what} number of {side} extension angles")
        n = _c_number(line, _STRTOL, int)
        if n is None:
            raise lines.error(f"cannot read the number of {side} extension angles from {line!r}")
        a = _fc511_row(lines, n, f"{what} {side} extension angles")
        c = _fc511_row(lines, n, f"{what} {side} extension values")
        ext.append((a, c))
    (pa, pc), (na_, nc) = ext
    tab = np.empty((len(na_) + NA + len(pa), NM + 1))
    tab[:len(na_), 0] = na_
    tab[:len(na_), 1:] = nc[:, None]
    tab[len(na_):len(na_) + NA] = core
    tab[len(na_) + NA:, 0] = pa
    tab[len(na_) + NA:, 1:] = pc[:, None]
    return mach, tab


def _read_fc511(path, text):
    lines = _Lines(path, text, limit=127)
    head = lines.next("the header")
    out = {}
    for key, word in (("l", "cl"), ("d", "cd"), ("m", "cm")):
        line = lines.next(f"the '{word}' keyword")
        s = line.lstrip()
        if s[:2].lower() != word or (len(s) > 2 and not s[2].isspace()):
            raise lines.error(f"expected the keyword '{word}', found {line.strip()!r}")
        out["m" + key], out["a" + key] = _fc511_block(lines, word)
    return head[:30], out


def _read_nrel(path, text):
    """NREL (AeroDyn) format (c81_data_nrel_read): header, a discarded line, the number of
    tables (must be 1) then 11 more discarded lines; every remaining line is a row
    'alpha cl cd cm' (read as a stream of numbers), one Mach number 0."""
    lines = text.splitlines(keepends=True)
    if len(lines) < 3:
        raise C81Error(f"{path}:{len(lines) + 1}: end of file before the number of airfoil tables")
    head = lines[0].rstrip("\r\n")
    tok = lines[2].split()
    if not tok or _c_number(tok[0], _STRTOL, int) is None:
        raise C81Error(f"{path}:3: cannot read the number of airfoil tables")
    if int(tok[0]) != 1:
        raise C81Error(f"{path}:3: NREL format: can only handle one airfoil per file (got {tok[0]})")
    body = lines[14:]
    n = len(body)
    if n < 2:
        raise C81Error(f"{path}:{15 + n}: insufficient number of data points n={n} in NREL data format "
                       "(n >= 2 required)")
    toks = _Tokens(path, [s.rstrip("\r\n") for s in body], 15)
    rows = np.empty((n, 4))
    warnings = []
    for i in range(n):
        for j in range(4):
            rows[i, j], line = toks.number(f"row {i + 1} " + ("alpha", "cl", "cd", "cm")[j])
        if i == 0 and rows[i, 0] != -180.0:
            warnings.append(f"NREL data format: first alpha={rows[i, 0]:g} != -180.")
        elif i == n - 1 and rows[i, 0] != 180.0:
            warnings.append(f"NREL data format: last alpha={rows[i, 0]:g} != 180.")
    zero = np.zeros(1)
    out = {"ml": zero, "al": rows[:, [0, 1]].copy(), "md": zero.copy(), "ad": rows[:, [0, 2]].copy(),
           "mm": zero.copy(), "am": rows[:, [0, 3]].copy()}
    return head[:30], out, warnings


def _stall(a, tol, path, what):
    """MBDyn's do_stall: for each Mach number, from the first tabulated angle ≥ 0 (α0, c0)
    and the slope to the next angle, the last angle before the secant slope drops below
    (1 − tol) of it on the positive side (default 1, value 0 if none) and likewise on the
    negative side; third row: (c(α+) − c(α−))/(α+ − α−) [1/deg], computed as MBDyn does
    (when only the positive stall is found it keeps c(α+), not a slope)."""
    NA, NM = a.shape[0], a.shape[1] - 1
    al = a[:, 0]
    s = np.empty((3, NM))
    for nm in range(NM):
        c = a[:, nm + 1]
        na = NA // 2
        while al[na] > 0.0:
            na -= 1
            if na <= 0:
                raise C81Error(f"{path}: {what}: unable to find negative alpha range for Mach #{nm + 1} "
                               "(MBDyn leaves its stall data undefined)")
        while al[na] < 0.0:
            na += 1
            if na >= NA:
                raise C81Error(f"{path}: {what}: unable to find positive alpha range for Mach #{nm + 1} "
                               "(MBDyn leaves its stall data undefined)")
        if na + 1 >= NA or na - 1 < 0:
            raise C81Error(f"{path}: {what}: needs tabulated angles on both sides of the first angle >= 0")
        a0, c0 = al[na], c[na]
        dcla0 = (c[na + 1] - c0) / (al[na + 1] - a0)
        s[0, nm], s[1, nm], s[2, nm] = 1.0, 1.0, 0.0
        for i in range(na + 2, NA):
            dcla = (c[i] - c0) / (al[i] - a0)
            if dcla - dcla0 < -dcla0 * tol:
                s[0, nm] = al[i - 1]
                s[2, nm] = c[i - 1]
                break
        dcla0 = (c[na - 1] - c0) / (al[na - 1] - a0)
        for i in range(na - 2, -1, -1):
            dcla = (c[i] - c0) / (al[i] - a0)
            if dcla - dcla0 < -dcla0 * tol:
                s[1, nm] = al[i + 1]
                s[2, nm] -= c[i + 1]
                s[2, nm] /= (s[0, nm] - s[1, nm])
                break
    return s


def _flip(a, sign):
    """MBDyn's flip_one: rows reversed, angles negated, values times `sign`."""
    out = a[::-1].copy()
    out[:, 0] *= -1.0
    out[:, 1:] *= sign
    return out


C81_FORMATS = ("c81", "free format", "nrel", "fc511")


def _follow_symlink_text(path):
    """A git checkout without symlinks stores a symlink as a one-line file holding the
    target's relative path; follow it (MBDyn would have read the real link)."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return path
    if size < 512:
        with open(path, "rb") as f:
            raw = f.read()
        if b"\n" not in raw and raw.strip() and not raw.strip().startswith(b"#"):
            target = os.path.join(os.path.dirname(path), raw.decode(errors="replace").strip())
            if os.path.isfile(target) and os.path.abspath(target) != os.path.abspath(path):
                return target
    return path


def read_c81(path, fmt="c81", where="", tolerance=DEFAULT_TOLERANCE, flip=False):
    """Read a C81 airfoil file as MBDyn 1.7.3's `c81 data` card does (mbpar.cc, c81data.cc).

    fmt: "c81" (fixed columns; a first line '# FREE FORMAT' switches to free format as in
    MBDyn), "free format", "nrel" or "fc511".  tolerance: the card's `tolerance` (relative
    drop of the secant slope that marks stall, default 1e-6).  flip: the card's `flip`
    (applied after the stall data are computed, as MBDyn does).  where: text prefixed to the
    messages (e.g. the deck's file:line).  Errors: C81Error('file:line: problem')."""
    fmt = " ".join(str(fmt).lower().split())
    if fmt not in C81_FORMATS:
        raise C81Error(f"{where or path}: unknown c81 file format {fmt!r} (expected one of "
                       + ", ".join(C81_FORMATS) + ")")
    if not tolerance > 0.0:
        raise C81Error(f"{where or path}: invalid c81 data tolerance {tolerance}")
    real = _follow_symlink_text(str(path))
    label = f"{where}: {real}" if where else real
    try:
        with open(real, encoding="latin-1") as f:
            text = f.read()
    except OSError as e:
        raise C81Error(f"{label}:0: unable to open file ({e.strerror})") from None
    warnings = []
    if fmt == "c81":
        first = text.split("\n", 1)[0]
        if first[:13].upper() == "# FREE FORMAT":
            header, d = _read_free(label, text, True)
        else:
            header, d = _read_fixed(label, text)
    elif fmt == "free format":
        header, d = _read_free(label, text, False)
    elif fmt == "fc511":
        header, d = _read_fc511(label, text)
    else:
        header, d, warnings = _read_nrel(label, text)
    stall = _stall(d["al"], tolerance, label, "cl")
    mstall = _stall(d["am"], tolerance, label, "cm")
    if flip:
        d["al"], d["ad"], d["am"] = _flip(d["al"], -1.0), _flip(d["ad"], 1.0), _flip(d["am"], -1.0)
    for key, what in (("l", "CL"), ("d", "CD"), ("m", "CM")):
        a, m = d["a" + key], d["m" + key]
        if a[0, 0] > -180.0:
            warnings.append(f"{what} alpha[0]={a[0, 0]:g} > -180")
        if a[-1, 0] < 180.0:
            warnings.append(f"{what} alpha[{len(a) - 1}]={a[-1, 0]:g} < 180")
        if m[0] > 0.0:
            warnings.append(f"{what} mach[0]={m[0]:g} > 0")
    return C81Table(header.rstrip(), d["ml"], d["al"], d["md"], d["ad"], d["mm"], d["am"], stall, mstall,
                    label, warnings)


def _fmt7(v):
    s = f"{v:g}"
    return s.rjust(7)


def write_c81(table, path, free_format=False):
    """The card's `echo`: the table written as MBDyn's c81_data_write (fixed columns) or
    c81_data_write_free_format writes it."""
    with open(path, "w") as out:
        if free_format:
            out.write("# FREE FORMAT\n")
            out.write(f"{table.header}; {len(table.ml)} {len(table.al)} {len(table.md)} {len(table.ad)} "
                      f"{len(table.mm)} {len(table.am)}\n")
            for m, a in ((table.ml, table.al), (table.md, table.ad), (table.mm, table.am)):
                out.write("".join(f"{x:g} " for x in m) + "\n")
                for row in a:
                    out.write("".join(f"{x:g} " for x in row) + "\n")
            return
        out.write(f"{table.header:<30.30}" + "".join(f"{n:2d}" for n in (
            len(table.ml), len(table.al), len(table.md), len(table.ad), len(table.mm), len(table.am))) + "\n")

        def row(vals, first):
            vals = list(vals)
            text = _fmt7(vals[0]) if first else " " * 7
            rest = vals[1:] if first else vals
            for k in range(0, len(rest), 9):
                if k:
                    text += "\n" + " " * 7
                text += "".join(_fmt7(x) for x in rest[k:k + 9])
            out.write(text + "\n")
        for m, a in ((table.ml, table.al), (table.md, table.ad), (table.mm, table.am)):
            row(m, False)
            for r in a:
                row(r, True)


def merge_c81(tables, upper_bounds, xi, tolerance=1e-6):
    """MBDyn's c81_data_merge (`c81, interpolated`): the table at abscissa xi ∈ [−1, 1]
    linearly interpolated between the two tables whose positions bracket it (same angle
    and Mach grids required); the stall data recomputed."""
    ub = list(upper_bounds)
    if xi < ub[0]:
        raise C81Error(f"cannot find C81 data lower bound for point xi={xi:g}")
    to = 0
    for i in range(1, len(tables)):
        if ub[i] > xi:
            to = i
            break
    if to == 0:
        raise C81Error(f"cannot find C81 data upper bound for point xi={xi:g}")
    fr = to - 1
    A, B = tables[fr], tables[to]
    for name in ("ml", "md", "mm"):
        if getattr(A, name).shape != getattr(B, name).shape or np.any(getattr(A, name) != getattr(B, name)):
            raise C81Error(f"Mach points ({name}) of airfoils {fr} and {to} differ")
    for name in ("al", "ad", "am"):
        if getattr(A, name).shape != getattr(B, name).shape or np.any(getattr(A, name)[:, 0] != getattr(B, name)[:, 0]):
            raise C81Error(f"AoA points ({name}) of airfoils {fr} and {to} differ")
    dw = ub[to] - ub[fr]
    wf, wt = (ub[to] - xi) / dw, (xi - ub[fr]) / dw
    d = {}
    for name in ("al", "ad", "am"):
        a = getattr(A, name).copy()
        a[:, 1:] = wf * getattr(A, name)[:, 1:] + wt * getattr(B, name)[:, 1:]
        d[name] = a
    header = f'interpolated ("{A.header}"[{ub[fr]:e}]->"{B.header}"[{ub[to]:e}]: [{xi:e}])'
    return C81Table(header, A.ml.copy(), d["al"], A.md.copy(), d["ad"], A.mm.copy(), d["am"],
                    _stall(d["al"], tolerance, header, "cl"), _stall(d["am"], tolerance, header, "cm"),
                    header)


# ---------------------------------------------------------------------------------- models

STEADY, HARRIS, BIELAWA = 0, 1, 2
UNSTEADY_NAMES = {"steady": STEADY, "harris": HARRIS, "bielawa": BIELAWA}

KIND_NACA0012, KIND_RAE9671, KIND_C81, KIND_THEODORSEN = 1, 2, 3, 4

THEODORSEN_PARAMS = ((0.165, 0.335, 0.0455, 0.3), (0.165, 0.335, 0.041, 0.32))   # A1, A2, b1, b2
theodorsen_n_states = 2

ALPHA_STORAGE = 3          # AeroMemory::StorageSize() of the unsteady models


@dataclass
class AirfoilModel:
    """The airfoil data of one aerodynamic element (MBDyn's `airfoil_data` field):
    kind "naca0012" (the default), "rae9671", "c81" (one table, or several with
    `multiple`/`interpolated` and their upper bounds / positions) or "theodorsen" (c81
    tables under the two-state Wagner model); unsteady "steady" or "bielawa" (MBDyn
    rejects "harris").  `at(xi)` resolves a multiple/interpolated model at one abscissa."""
    kind: str = "naca0012"
    unsteady: str = "steady"
    tables: tuple = ()
    mode: str = "single"           # "single", "multiple", "interpolated"
    bounds: tuple = ()
    tolerance: float = 1e-6        # `interpolated, tolerance, …`
    theodorsen_param: int = 0

    def __post_init__(self):
        if self.kind not in ("naca0012", "rae9671", "c81", "theodorsen"):
            raise ValueError(f"unknown airfoil type {self.kind!r}")
        if self.unsteady not in UNSTEADY_NAMES:
            raise ValueError(f"unknown unsteady model {self.unsteady!r}")
        if self.unsteady == "harris":
            raise ValueError('"Harris" unsteady aerodynamics are not available (as in MBDyn 1.7.3)')
        if self.kind in ("c81", "theodorsen"):
            if not self.tables:
                raise ValueError(f"{self.kind} airfoil needs at least one C81 table")
            if self.mode not in ("single", "multiple", "interpolated"):
                raise ValueError(f"unknown c81 mode {self.mode!r}")
            if self.mode != "single":
                b = list(self.bounds)
                if len(b) != len(self.tables):
                    raise ValueError("one upper bound (position) per airfoil is required")
                for i, x in enumerate(b):
                    if x <= -1.0 and (self.mode != "interpolated" or x < -1.0):
                        raise ValueError(f"upper bound {i + 1} = {x:g} too small")
                    if x > 1.0:
                        raise ValueError(f"upper bound {i + 1} = {x:g} too large")
                    if i > 0 and x <= b[i - 1]:
                        raise ValueError(f"upper bound {i + 1} = {x:g} not in increasing order")
            if self.kind == "theodorsen" and self.unsteady != "steady":
                raise ValueError("theodorsen: the underlying c81 data must be steady")

    @property
    def n_states(self):
        return theodorsen_n_states if self.kind == "theodorsen" else 0

    @property
    def needs_alpha_memory(self):
        return self.unsteady != "steady" and self.kind != "theodorsen"

    def at(self, xi):
        """The single-table model seen at spanwise abscissa xi ∈ [−1, 1]: `multiple` picks
        the table as C81MultipleAeroData::SetSectionData does (sharp switch at the upper
        bounds), `interpolated` merges the bracketing tables (c81_data_merge)."""
        if self.kind not in ("c81", "theodorsen") or self.mode == "single":
            return self
        if self.mode == "multiple":
            cur = 0
            for i in range(len(self.tables) - 2, -1, -1):
                if xi > self.bounds[i]:
                    cur = i + 1
                    break
            table = self.tables[cur]
        else:
            table = merge_c81(self.tables, self.bounds, xi, self.tolerance)
        return AirfoilModel(self.kind, self.unsteady, (table,), "single", (), self.tolerance,
                            self.theodorsen_param)


# MBDyn's Gauss–Legendre table (libmbutil/gauss.cc): 15-digit points and weights for 1 to 10
# points (requests outside 1..10 are clamped there)
_GAUSS_P = (
    (0.0,),
    (-0.577350269189626, 0.577350269189626),
    (-0.774596669241483, 0.0, 0.774596669241483),
    (-0.861136311594053, -0.339981043584856, 0.339981043584856, 0.861136311594053),
    (-0.906179845938664, -0.538469310105683, 0.0, 0.538469310105683, 0.906179845938664),
    (-0.932469514203152, -0.661209386466264, -0.238619186083197, 0.238619186083197, 0.661209386466264,
     0.932469514203152),
    (-0.949107912342758, -0.741531185599394, -0.405845151377397, 0.0, 0.405845151377397, 0.741531185599394,
     0.949107912342758),
    (-0.960289856497536, -0.796666477413627, -0.525532409916329, -0.183434642495650, 0.183434642495650,
     0.525532409916329, 0.796666477413627, 0.960289856497536),
    (-0.968160239507626, -0.836031107326636, -0.613371432700590, -0.324253423403809, 0.0, 0.324253423403809,
     0.613371432700591, 0.836031107326636, 0.968160239507626),
    (-0.973906528517171, -0.865063366688985, -0.679409568299025, -0.433395394129247, -0.148874338981631,
     0.148874338981631, 0.433395394129247, 0.679409568299024, 0.865063366688984, 0.973906528517172),
)
_GAUSS_W = (
    (2.0,),
    (1.0, 1.0),
    (0.555555555555556, 0.888888888888889, 0.555555555555556),
    (0.347854845137454, 0.652145154862546, 0.652145154862546, 0.347854845137454),
    (0.236926885056189, 0.478628670499367, 0.568888888888889, 0.478628670499367, 0.236926885056189),
    (0.171324492379171, 0.360761573048139, 0.467913934572690, 0.467913934572690, 0.360761573048139,
     0.171324492379171),
    (0.129484966168870, 0.279705391489277, 0.381830050505119, 0.417959183673469, 0.381830050505119,
     0.279705391489277, 0.129484966168870),
    (0.101228536290376, 0.222381034453375, 0.313706645877887, 0.362683783378362, 0.362683783378362,
     0.313706645877887, 0.222381034453375, 0.101228536290376),
    (0.081274388361575, 0.180648160694858, 0.260610696402935, 0.312347077040002, 0.330239355001259,
     0.312347077040002, 0.260610696402936, 0.180648160694857, 0.081274388361575),
    (0.066671344308688, 0.149451349150581, 0.219086362515981, 0.269266719309996, 0.295524224714752,
     0.295524224714752, 0.269266719309996, 0.219086362515982, 0.149451349150581, 0.066671344308688),
)


def mbdyn_gauss(n):
    """(points, weights) of MBDyn's n-point Gauss–Legendre rule on [−1, 1] as tabulated in
    MBDyn (15 digits; n clamped to 1..10 as there)."""
    n = min(max(int(n), 1), 10)
    return np.array(_GAUSS_P[n - 1]), np.array(_GAUSS_W[n - 1])


def interpolated_abscissae(n_points, n_blocks):
    """The abscissae at which `c81, interpolated` merges its tables (C81InterpolatedAeroData):
    MBDyn's Gauss points of each of the n_blocks spans of [−1, 1] (1 block: [−1, 1];
    2: [−1, 0], [0, 1]; 3: [−1, −1/√3], [−1/√3, 1/√3], [1/√3, 1])."""
    bs = {1: (-1.0, 1.0), 2: (-1.0, 0.0, 1.0), 3: (-1.0, -1.0 / math.sqrt(3.0), 1.0 / math.sqrt(3.0), 1.0)}[n_blocks]
    x, _ = mbdyn_gauss(n_points)
    out = []
    for b in range(n_blocks):
        bl, bm = bs[b + 1] - bs[b], bs[b + 1] + bs[b]
        out.extend((bm + xx * bl) / 2.0 for xx in x)
    return np.array(out)


# packed layout, per model (ints from `start`):
#   0 kind, 1 unsteady flag, 2 theodorsen parameter set,
#   3..8  NML NAL NMD NAD NMM NAM,
#   9..16 float offsets of ml, al, md, ad, mm, am, stall, mstall
# a table `a` is stored column-major as MBDyn's (angles first, then each Mach column).
I_KIND, I_UNST, I_TPAR, I_NML, I_NAL, I_NMD, I_NAD, I_NMM, I_NAM = range(9)
I_OML, I_OAL, I_OMD, I_OAD, I_OMM, I_OAM, I_OST, I_OMST = range(9, 17)
N_INTS = 17


def pack_airfoils(models):
    """Every model of the run in flat arrays for the compiled functions: returns
    (ints int64, floats float64, starts int64) with model k's integer record at starts[k].
    multiple/interpolated models must be resolved per point first (`AirfoilModel.at`)."""
    ints, floats, starts = [], [], []
    kinds = {"naca0012": KIND_NACA0012, "rae9671": KIND_RAE9671, "c81": KIND_C81,
             "theodorsen": KIND_THEODORSEN}
    for m in models:
        if m.kind in ("c81", "theodorsen") and m.mode != "single":
            raise ValueError("pack_airfoils: resolve multiple/interpolated c81 data per point with .at(xi)")
        rec = [0] * N_INTS
        rec[I_KIND] = kinds[m.kind]
        rec[I_UNST] = UNSTEADY_NAMES[m.unsteady]
        rec[I_TPAR] = m.theodorsen_param
        if m.tables:
            t = m.tables[0]
            for k, (mach, tab) in enumerate(((t.ml, t.al), (t.md, t.ad), (t.mm, t.am))):
                rec[I_NML + 2 * k] = len(mach)
                rec[I_NAL + 2 * k] = tab.shape[0]
                rec[I_OML + 2 * k] = len(floats)
                floats.extend(np.asarray(mach, float))
                rec[I_OAL + 2 * k] = len(floats)
                floats.extend(np.asarray(tab, float).T.ravel())
            rec[I_OST] = len(floats)
            floats.extend(np.asarray(t.stall, float).ravel())
            rec[I_OMST] = len(floats)
            floats.extend(np.asarray(t.mstall, float).ravel())
        starts.append(len(ints))
        ints.extend(rec)
    return (np.array(ints, dtype=np.int64), np.array(floats if floats else [0.0], dtype=np.float64),
            np.array(starts, dtype=np.int64))


# ---------------------------------------------------------------------------------- compiled

RAD2DEG = 180.0 / math.pi
DEGRAD_F = 0.017453293            # aerod2.f's DEGRAD (rounded as there)


@kernel
def _bisec(f, off, n, val):
    """MBDyn's bisec over f[off:off+n]: index i with v[i] <= val < v[i+1]; -1 below the
    first value, n-1 above the last (a value equal to the last gives n-2)."""
    lb, ub = 0, n - 1
    if val < f[off + lb]:
        return lb - 1
    if val > f[off + ub]:
        return ub
    while ub > lb + 1:
        b = (lb + ub) // 2
        if f[off + b] > val:
            ub = b
        elif f[off + b] < val:
            lb = b
        else:
            return b
    return lb


@kernel
def _get_coef(f, om, nm, oa, na, alpha, mach, want0):
    """MBDyn's get_coef (aerodc81.c): the coefficient at (alpha [deg], mach), linear in the
    angle and in Mach, constant beyond the table ends, the angle wrapped into [−180, 180);
    c0 (want0) the value at alpha = 0 as MBDyn computes it (inside the Mach range from the
    pair of rows below the first angle ≥ 0, as there)."""
    while alpha < -180.0:
        alpha += 360.0
    while alpha >= 180.0:
        alpha -= 360.0
    mach = abs(mach)
    im = _bisec(f, om, nm, mach)
    ia0 = -1
    if want0:
        ia0 = _bisec(f, oa, na, 0.0)
    ia = _bisec(f, oa, na, alpha)
    c0 = 0.0
    if im == nm - 1 or im == -1:
        col = oa + na * (nm if im == nm - 1 else 1)
        if want0:
            if ia0 == na - 1:
                c0 = f[col + na - 1]
            elif ia0 == -1:
                c0 = f[col]
            else:
                j = ia0 + 1
                da = -f[oa + j - 1] / (f[oa + j] - f[oa + j - 1])
                c0 = (1.0 - da) * f[col + j - 1] + da * f[col + j]
        if ia == na - 1:
            c = f[col + na - 1]
        elif ia == -1:
            c = f[col]
        else:
            j = ia + 1
            da = (alpha - f[oa + j - 1]) / (f[oa + j] - f[oa + j - 1])
            c = (1.0 - da) * f[col + j - 1] + da * f[col + j]
    else:
        j = im + 1
        d = (mach - f[om + j - 1]) / (f[om + j] - f[om + j - 1])
        c1 = oa + na * j            # Mach column j-1 (column 0 holds the angles)
        c2 = oa + na * (j + 1)
        if want0:
            # MBDyn uses the rows ia0-1, ia0 here (no increment); rows 0, 1 where that
            # would read before the table (undefined in MBDyn)
            k = ia0 if ia0 >= 1 else 1
            a1 = (1.0 - d) * f[c1 + k - 1] + d * f[c2 + k - 1]
            a2 = (1.0 - d) * f[c1 + k] + d * f[c2 + k]
            da = -f[oa + k - 1] / (f[oa + k] - f[oa + k - 1])
            c0 = (1.0 - da) * a1 + da * a2
        if ia == na - 1:
            c = (1.0 - d) * f[c1 + na - 1] + d * f[c2 + na - 1]
        elif ia == -1:
            c = (1.0 - d) * f[c1] + d * f[c2]
        else:
            k = ia + 1
            a1 = (1.0 - d) * f[c1 + k - 1] + d * f[c2 + k - 1]
            a2 = (1.0 - d) * f[c1 + k] + d * f[c2 + k]
            da = (alpha - f[oa + k - 1]) / (f[oa + k] - f[oa + k - 1])
            c = (1.0 - da) * a1 + da * a2
    return c, c0


@kernel
def _get_dcla(f, om, nm, os_, mach):
    """MBDyn's get_dcla: the third row of the stall data interpolated in Mach [1/deg]."""
    mach = abs(mach)
    im = _bisec(f, om, nm, mach)
    if im == nm - 1:
        return f[os_ + 3 * nm - 1]
    if im == -1:
        return f[os_ + 2 * nm]
    j = im + 1
    d = (mach - f[om + j - 1]) / (f[om + j] - f[om + j - 1])
    return (1.0 - d) * f[os_ + 2 * nm + j - 1] + d * f[os_ + 2 * nm + j]


def c81_coef(mach_vec, table, alpha_deg, mach):
    """Python access to the compiled get_coef for one (NA, NM+1) table (tests, tools)."""
    f = np.concatenate([np.asarray(mach_vec, float), np.asarray(table, float).T.ravel()])
    c, _ = _get_coef(f, 0, len(mach_vec), len(mach_vec), table.shape[0], float(alpha_deg), float(mach), False)
    return c


# Bielawa's synthesized unsteady corrections (R. L. Bielawa, 31st AHS Forum, 1975), as
# tabulated in MBDyn (aerodc81.c / aerod2.f)
_PN = np.array([-3.464003e-1, -1.549076e+0, 4.306330e+1, -5.397529e+1, 5.781402e+0, -3.233003e+1,
                -2.162257e+1, 1.866347e+1, 4.198390e+1, 3.295461e+2])
_QN = np.array([1.533717e+0, 6.977203e+0, 1.749010e+3, 1.694829e+3, -1.771899e+3, -3.291665e+4,
                2.969051e+0, -3.632448e+1, -2.268578e+3, 6.601995e+3, -9.654208e+3, 8.533930e+4,
                -1.492624e+0, 1.163661e+1])
_PM = np.array([1.970065e+1, -6.751639e+1, 7.265269e+2, 4.865945e+4, 2.086279e+4, 6.024672e+3,
                1.446334e+2, 8.586896e+2, -7.550329e+2, -1.021613e+1, 2.247664e+1])
_QM = np.array([-2.322808e+0, -1.322257e+0, -2.633891e+0, -2.180321e-1, 4.580014e+0, 3.125497e-1,
                -2.828806e+1, -4.396734e+0, 2.565870e+2, -1.204976e+1, -1.157802e+2, 8.612138e+0])


@kernel
def _bielawa(A, B, sgn_abs, sgm_abs_in, PN, QN, PM, QM, asn, asm_, b_abs_for_sgmax):
    """Bielawa's ΔαN, Δc_N, ΔαM, Δc_M (unsigned; A, B already scaled)."""
    A2 = A * A
    B2 = B * B
    SGN = sgn_abs
    SGM = sgm_abs_in
    SGMAX = 1.839 - 70.33 * b_abs_for_sgmax
    if SGMAX > 1.86:
        SGMAX = 1.86
    if SGN > SGMAX:
        SGN = SGMAX
    if SGM > SGMAX:
        SGM = SGMAX
    DAN = (A * (PN[0] + PN[4] * SGN) + B * (PN[1] + PN[5] * SGN)
           + math.exp(-1072.52 * A2) * (A * (PN[2] + PN[6] * SGN) + A2 * (PN[8] + PN[9] * SGN))
           + math.exp(-40316.42 * B2) * B * (PN[3] + PN[7] * SGN)) * asn
    DCN = (A * (QN[0] + QN[2] * A2 + SGN * (QN[6] + QN[8] * A2 + QN[12] * SGN) + B2 * (QN[4] + QN[10] * SGN))
           + B * (QN[1] + QN[3] * A2 + SGN * (QN[7] + QN[9] * A2 + QN[13] * SGN) + B2 * (QN[5] + QN[11] * SGN)))
    DAM = (A * (PM[0] + PM[2] * A2 + PM[4] * B2 + PM[9] * SGM + PM[6] * A)
           + B * (PM[1] + PM[3] * B2 + PM[5] * A2 + PM[10] * SGM + PM[7] * B + PM[8] * A)) * asm_
    S2 = SGM * SGM
    DCM = (A * (QM[1] + QM[7] * A + SGM * (QM[3] + QM[9] * A) + S2 * (QM[5] + QM[11] * A))
           + B * (QM[0] + QM[6] * B + SGM * (QM[2] + QM[8] * B) + S2 * (QM[4] + QM[10] * B)))
    return DAN, DCN, DAM, DCM


@kernel
def _zero_loads(TNG, OUTA):
    for k in range(6):
        TNG[k] = 0.0
    for k in range(1, 8):
        OUTA[k] = 0.0


@kernel
def c81_section(ints, f, start, W, vam, TNG, OUTA, unsteady):
    """MBDyn's c81_aerod2_u: C81 sectional loads, steady (0) or Bielawa (2; OUTA[8], OUTA[9]
    hold α̇, α̈).  Steady: cl from the table unless its secant slope over α cos γ falls
    below the stall-data slope, then cl = cl0 + that secant slope × α (sweep correction,
    as COE0 of aerod2.f); drag cd, spanwise drag −q cd0 v_z / v_p (Harris 1970)."""
    rho, cs, chord, ca, c34 = vam[0], vam[1], vam[2], vam[3], vam[4]
    vx = W[0]
    vy = W[1] + c34 * W[5]
    vz = W[2] - c34 * W[4]
    vp2 = vx * vx + vy * vy
    vp = math.sqrt(vp2)
    vtot = math.sqrt(vp2 + vz * vz)
    if vp / cs < 1e-6:
        _zero_loads(TNG, OUTA)
        return 0
    nml, nal, nmd, nad, nmm, nam = (ints[start + I_NML], ints[start + I_NAL], ints[start + I_NMD],
                                    ints[start + I_NAD], ints[start + I_NMM], ints[start + I_NAM])
    oml, oal, omd, oad, omm, oam = (ints[start + I_OML], ints[start + I_OAL], ints[start + I_OMD],
                                    ints[start + I_OAD], ints[start + I_OMM], ints[start + I_OAM])
    ost, omst = ints[start + I_OST], ints[start + I_OMST]
    alpha = math.atan2(-vy, vx)
    OUTA[1] = alpha * RAD2DEG
    gamma = math.atan2(-vz, abs(vx))
    OUTA[2] = gamma * RAD2DEG
    if abs(gamma) > math.pi / 3.0:
        gamma = math.pi / 3.0
    cosgam = math.cos(gamma)
    mach = vtot * math.sqrt(cosgam) / cs
    OUTA[3] = mach
    if mach > 0.99:
        mach = 0.99
    if unsteady == 0:
        cl, cl0 = _get_coef(f, oml, nml, oal, nal, OUTA[1], mach, True)
        cd, cd0 = _get_coef(f, omd, nmd, oad, nad, OUTA[1], mach, True)
        cm, _x = _get_coef(f, omm, nmm, oam, nam, OUTA[1], mach, False)
        dcla = _get_dcla(f, oml, nml, ost, mach) * RAD2DEG
        if abs(alpha) > 1e-6:
            dclatmp = (cl - cl0) / (alpha * cosgam)
            if dclatmp < dcla:
                dcla = dclatmp
                cl = cl0 + dcla * alpha
    elif unsteady == 2:
        ASN0 = 0.22689
        ASM0 = 0.22689
        A = 0.5 * chord * OUTA[8] / vp
        B = 0.25 * chord * chord * OUTA[9] / vp2
        ETA = math.sqrt((A / 0.048) ** 2 + (B / 0.016) ** 2)
        if alpha < 0.0:
            A = -A
            B = -B
        if ETA > 1.0:
            A /= ETA
            B /= ETA
        ASN = ASN0 * (1.0 - mach)
        ASM = ASM0 * (1.0 - mach)
        DAN, DCN, DAM, DCM = _bielawa(A, B, abs(alpha / ASN), abs(alpha / ASM), _PN, _QN, _PM, _QM,
                                      ASN, ASM, abs(B))
        OUTA[10] = DAN * RAD2DEG
        OUTA[11] = DAM * RAD2DEG
        OUTA[12] = DCN
        OUTA[13] = DCM
        if alpha < 0.0:
            DAN = -DAN
            DCN = -DCN
            DAM = -DAM
            DCM = -DCM
        alphaN = (alpha - DAN) * RAD2DEG
        cl, cl0 = _get_coef(f, oml, nml, oal, nal, alphaN, mach, True)
        cd, cd0 = _get_coef(f, omd, nmd, oad, nad, alphaN, mach, True)
        alphaM = (alpha - DAM) * RAD2DEG
        cm, _x = _get_coef(f, omm, nmm, oam, nam, alphaM, mach, False)
        dcla = _get_dcla(f, oml, nml, ost, mach)
        dcma = _get_dcla(f, omm, nmm, omst, mach)
        dclatan = dcla
        if abs(alphaN) > 1e-6:
            dclatan = (cl - cl0) / (alphaN * cosgam)
        cl = cl0 + dclatan * alphaN
        dcla *= RAD2DEG
        dcma *= RAD2DEG
        C1 = 0.9457 / math.sqrt(1.0 - mach * mach)
        cn = dcla * DAN + DCN * C1
        cl += cn * vx / vp
        cd -= cn * vy / vp
        cm += dcma * DAM + DCM * C1
    else:
        return -1
    OUTA[4] = cl
    OUTA[5] = cd
    OUTA[6] = cm
    OUTA[7] = dcla
    q = 0.5 * rho * chord * vp2
    TNG[0] = -q * (cl * vy + cd * vx) / vp
    TNG[1] = q * (cl * vx - cd * vy) / vp
    TNG[2] = -q * cd0 * vz / vp
    TNG[3] = 0.0
    TNG[4] = -ca * TNG[2]
    TNG[5] = q * chord * cm + ca * TNG[1]
    return 0


# ---------------------------------------------------------- built-in NACA 0012 / RAE 9671

_RAE_D1 = np.array([[.3, -.28532e2], [.4, -.37392e2], [.45, -.4597e2], [.5, -.55819e2], [.55, -.88102e2]])
_RAE_D2 = np.array([[.3, .4826e1], [.4, .70982e1], [.45, .8914e1], [.5, .10636e2], [.55, .1993e2]])
_RAE_D3 = np.array([[.3, .62085e1], [.4, .64158e1], [.45, .65334e1], [.5, .66613e1], [.55, .64065e1]])
_RAE_CD0 = np.array([[.3, .60145e-2], [.4, .35772e-2], [.45, .2612e-2], [.5, .46674e-2], [.55, .29977e-2]])
_RAE_B1 = np.array([[.3, .86845e-1], [.4, .1915], [.45, .24923], [.5, .14568], [.55, .25389]])
_RAE_B2 = np.array([[.3, -.91795], [.4, -.1966e1], [.45, -.26795e1], [.5, -.15943e1], [.55, -.30426e1]])
_RAE_B3 = np.array([[.3, .40357e1], [.4, .67937e1], [.45, .91332e1], [.5, .62569e1], [.55, .12049e2]])


@kernel
def _linint(xy, x):
    """aerod2.f's LININT: linear through the bracketing pair (end pairs extrapolate)."""
    n = xy.shape[0]
    k1 = 0
    if x > xy[0, 0]:
        k1 = n - 2
        for i in range(1, n):
            if xy[i, 0] > x:
                k1 = i - 1
                break
    k2 = k1 + 1
    pend = (xy[k2, 1] - xy[k1, 1]) / (xy[k2, 0] - xy[k1, 0])
    return xy[k1, 1] + pend * (x - xy[k1, 0])


@kernel
def _cpcrcm(aphij, emij, jpro, iretrn):
    """aerod2.f's CPCRCM: the semi-analytical NACA 0012 (jpro 1; RAE 9671, jpro 2, adds its
    small-angle cubic fits) coefficients at angle aphij [rad] and Mach emij.  Returns
    (aphij as CPCRCM leaves it, cl, cd, cm, the reference slope AS0, the friction drag CRF);
    the slopes and Mach derivatives CPCRCM also returns are unused by MBDyn's loads.  cm
    about the quarter chord unless iretrn = 1 (then about the leading-edge reference of the
    fits)."""
    PG = 3.14159265358979323846
    crf = 0.006
    neg = 1
    if emij > 0.99:
        emij = 0.99
    sqt = math.sqrt(1.0 - emij * emij)
    c1 = 1.0 - emij
    c2 = 0.22689 * c1
    while True:
        if aphij < 0.0:
            aphij = -aphij
            neg = -neg
        if aphij - PG > 0.0:
            aphij = aphij - 2.0 * PG
            continue
        break
    clift = 0.0
    cdrag = 0.0
    cmome = 0.0
    fourier_drag = True
    if aphij < c2:
        clift = 5.7296 / sqt * aphij
        cdrag = 0.006 + 0.13131 * aphij * aphij
        cmome = 1.4324 * aphij / sqt
        fourier_drag = False
    elif aphij < 0.34906:
        clift = 0.29269 * c1 + (1.3 * emij - 0.59) * aphij
        c2b = (0.12217 + 0.22689 * emij) * sqt
        cmome = clift / (4 * c2b)
        clift = clift / c2b
    elif aphij < 2.7402:
        s = math.sin(aphij)
        s2 = math.sin(2.0 * aphij)
        s3 = math.sin(3.0 * aphij)
        s4 = math.sin(4.0 * aphij)
        clift = (0.080373 * s + 1.04308 * s2 - 0.011059 * s3 + 0.023127 * s4) / sqt
        cmome = (-0.02827 * s + 0.14022 * s2 - 0.00622 * s3 + 0.01012 * s4) / sqt
    elif aphij < 3.0020:
        clift = -(0.4704 + 0.10313 * aphij) / sqt
        cmome = -(0.4786 + 0.02578 * aphij) / sqt
    else:
        clift = (-17.55 + 5.5864 * aphij) / sqt
        cmome = (-12.5109 + 3.9824 * aphij) / sqt
    if fourier_drag:
        cdrag = (1.1233 - 0.029894 * math.cos(aphij) - 1.00603 * math.cos(2.0 * aphij)
                 + 0.003115 * math.cos(3.0 * aphij) - 0.091487 * math.cos(4.0 * aphij)) / sqt
    as0 = 0.0
    if jpro == 2 and not abs(aphij) > 0.21956242:
        if neg < 0:
            aphij = -aphij
        p1 = _linint(_RAE_D1, emij)
        p2 = _linint(_RAE_D2, emij)
        p3 = _linint(_RAE_D3, emij)
        a2 = aphij * aphij
        a3 = aphij * a2
        clift = p1 * a3 + p2 * a2 + p3 * aphij
        as0 = p3
        r0 = _linint(_RAE_CD0, emij)
        crf = r0
        r1 = _linint(_RAE_B1, emij)
        r2 = _linint(_RAE_B2, emij)
        r3 = _linint(_RAE_B3, emij)
        aphij = abs(aphij)
        a3 = abs(a3)
        cdrag = r0 + aphij * r1 + a2 * r2 + a3 * r3
        if neg <= 0:
            cmome = -cmome
    else:
        if neg <= 0:
            clift = -clift
            cmome = -cmome
            aphij = -aphij
        as0 = 5.7296 / sqt
    if iretrn != 1:
        cmome = cmome - 0.25 * clift
    return aphij, clift, cdrag, cmome, as0, crf


@kernel
def builtin_section(W, vam, TNG, OUTA, inst, jpro):
    """MBDyn's AEROD2 (aerod2.f) for the built-in airfoils: inst 0 steady (COE0), 2 Bielawa
    (COE2, α̇ and α̈ in OUTA[8], OUTA[9]).  As there, the loads are formed from the
    velocity shifted twice by d34 ω (AEROD2 applies its shift matrix to the already shifted
    velocity), the spanwise drag uses the friction coefficient CRF, and below V/c = 1e-6
    the loads are zero and OUTA is left untouched."""
    dens, cs, corda, b, d = vam[0], vam[1], vam[2], vam[3], vam[4]
    v1 = W[0]
    v2 = W[1] + d * W[5]
    v3 = W[2] - d * W[4]
    vp2 = v1 * v1 + v2 * v2
    vp = math.sqrt(vp2)
    v = math.sqrt(vp2 + v3 * v3)
    if v / cs < 1e-6:
        for k in range(6):
            TNG[k] = 0.0
        return 0
    PG = 3.14159265358979323846
    alfa = math.atan2(-v2, v1)
    OUTA[1] = alfa / DEGRAD_F
    gam = math.atan2(-v3, abs(v1))
    OUTA[2] = gam / DEGRAD_F
    if abs(gam) > PG / 3.0:
        gam = PG / 3.0
    cosgam = math.cos(gam)
    if inst == 0:
        rmach = math.sqrt(v1 * v1 + v2 * v2 + v3 * v3) / cs
        rmach = rmach * math.sqrt(cosgam)
        OUTA[3] = rmach
        alfa, clift, cdrag, cmome, aslop0, crf = _cpcrcm(alfa, rmach, jpro, 0)
        aslrf = aslop0
        if not abs(alfa) < 1e-6:
            aslrf = clift / (alfa * cosgam)
            if aslrf > aslop0:
                aslrf = aslop0
        clift = aslrf * alfa
    elif inst == 2:
        alf1 = OUTA[8]
        alf2 = OUTA[9]
        A = 0.5 * corda * alf1 / vp
        B = 0.25 * corda * corda * alf2 / vp2
        rmach = math.sqrt((vp2 + v3 * v3) * cosgam) / cs
        OUTA[3] = rmach
        if rmach > 0.99:
            rmach = 0.99
        eta = math.sqrt((A / 0.048) ** 2 + (B / 0.016) ** 2)
        segno = 1.0
        if alfa < 0.0:
            segno = -1.0
        segnoe = segno
        if eta > 1.0:
            segnoe = segnoe / eta
        A = segnoe * A
        B = segnoe * B
        asn = 0.22689 * (1.0 - rmach)
        asm_ = 0.22689 * (1.0 - rmach)
        DAN, DCN, DAM, DCM = _bielawa(A, B, abs(alfa / asn), abs(alfa / asm_), _PN, _QN, _PM, _QM,
                                      asn, asm_, B)
        OUTA[10] = DAN / DEGRAD_F
        OUTA[11] = DAM / DEGRAD_F
        OUTA[12] = DCN
        OUTA[13] = DCM
        DAN = segno * DAN
        DCN = segno * DCN
        DAM = segno * DAM
        DCM = segno * DCM
        _a1, clift, cdrag, _cm1, aslop0, crf = _cpcrcm(alfa - DAN, rmach, jpro, 0)
        _a2, _cl2, _cd2, cmome, aslop0, _crf2 = _cpcrcm(alfa - DAM, rmach, jpro, 1)
        cmome = cmome - 0.25 * clift
        aslrf = aslop0
        if not abs(alfa - DAN) < 1e-6:
            aslrf = clift / ((alfa - DAN) * cosgam)
            if aslrf > aslop0:
                aslrf = aslop0
        clift = aslrf * (alfa - DAN)
        C1 = 0.9457 / math.sqrt(1.0 - rmach * rmach)
        clift = clift + aslop0 * DAN + DCN * C1
        cmome = cmome + DCM * C1            # CS0 = 0 in CPCRCM
    else:
        return -1
    OUTA[4] = clift
    OUTA[5] = cdrag
    OUTA[6] = cmome
    rk = -0.5 * dens * corda
    a11 = rk * (crf * (vp - v) - cdrag * vp)
    a12 = -rk * clift * vp
    a33 = -rk * crf * v
    a41 = -rk * cmome * corda * v1
    a42 = -rk * cmome * corda * v2
    u1 = v1
    u2 = v2 + d * W[5]
    u3 = v3 - d * W[4]
    TNG[0] = -(a11 * u1 + a12 * u2)
    TNG[1] = -(-a12 * u1 + a11 * u2)
    TNG[2] = -(a33 * u3)
    TNG[3] = 0.0
    TNG[4] = 0.0
    TNG[5] = -(b * (-a12 * u1 + a11 * u2) + a41 * u1 + a42 * u2)
    return 0


@kernel
def airfoil_loads(ints, floats, start, W, vam, alf1, alf2, TNG, OUTA):
    """Sectional loads of the airfoil model packed at ints[start] (AeroData::GetForces):
    TNG (6,) force and moment per unit span in the airfoil frame, OUTA (20,) as MBDyn's
    outa_t.  alf1, alf2: α̇, α̈ from `predict_alpha_rates` (unsteady models; stored in
    OUTA[8], OUTA[9] as Predict does).  A `theodorsen` model gives its steady c81 loads
    here (its unsteady loads come from `theodorsen_section`).  Returns MBDyn's status."""
    kind = ints[start + I_KIND]
    unst = ints[start + I_UNST]
    if unst != 0:
        OUTA[8] = alf1
        OUTA[9] = alf2
    if kind == KIND_C81:
        return c81_section(ints, floats, start, W, vam, TNG, OUTA, unst)
    if kind == KIND_THEODORSEN:
        return c81_section(ints, floats, start, W, vam, TNG, OUTA, 0)
    return builtin_section(W, vam, TNG, OUTA, unst, kind)


# ------------------------------------------------------------------------ alpha-rate memory

@kernel
def _polcoe(x, y, n):
    """Numerical Recipes' polcoe (as aerod2.f): coefficients of the polynomial of degree
    n − 1 through the n points (x, y), lowest order first."""
    s = np.zeros(n)
    cof = np.zeros(n)
    s[n - 1] = -x[0]
    for i in range(1, n):
        for j in range(n - 1 - i, n - 1):
            s[j] = s[j] - x[i] * s[j + 1]
        s[n - 1] = s[n - 1] - x[i]
    for j in range(n):
        phi = float(n)
        for k in range(n - 1, 0, -1):
            phi = k * s[k] + x[j] * phi
        ff = y[j] / phi
        b = 1.0
        for k in range(n - 1, -1, -1):
            cof[k] = cof[k] + b * ff
            b = s[k] + x[j] * b
    return cof


@kernel
def predict_alpha_rates(alpha, t, hist_alpha, hist_t, n_updates):
    """AeroMemory::Predict (aerodata.cc): α̇ and α̈ at time t from the parabola through the
    two committed (hist_t, hist_alpha) pairs (oldest first) and the current (t, alpha),
    α = atan2(−W1, W0) of the section reference point; zero until n_updates ≥ 3 committed
    steps (MBDyn's numUpdates ≥ StorageSize)."""
    if n_updates < ALPHA_STORAGE:
        return 0.0, 0.0
    x = np.empty(3)
    y = np.empty(3)
    x[0], x[1], x[2] = hist_t[0], hist_t[1], t
    y[0], y[1], y[2] = hist_alpha[0], hist_alpha[1], alpha
    coe = _polcoe(x, y, 3)
    return coe[1] + 2.0 * coe[2] * t, 2.0 * coe[2]


@kernel
def update_alpha_history(alpha, t, hist_alpha, hist_t):
    """AeroMemory::Update after a converged step: shift the stored values back and keep
    the step's (t, alpha) as the newest; the caller adds 1 to its n_updates."""
    hist_alpha[0] = hist_alpha[1]
    hist_t[0] = hist_t[1]
    hist_alpha[1] = alpha
    hist_t[1] = t


# ------------------------------------------------------------------------------ Theodorsen

THEO_PAR = np.array(THEODORSEN_PARAMS)


@kernel
def theodorsen_section(ints, floats, start, W, vam, q, qdot, t, prev, rates, TNG, OUTA, g):
    """TheodorsenAeroData::AssRes (aerodata_impl.cc), theory manual 13.7: Wagner's
    two-exponential approximation of Theodorsen's C(k) (R. T. Jones: A1 = 0.165,
    A2 = 0.335, b1 = 0.0455, b2 = 0.3) as two states driven by the 3/4-chord angle u2,

        q̇1 = q2,  q̇2 = −b1 b2 d² q1 − (b1 + b2) d q2 + u2,   d = 2U/c          (13.69–13.70)
        α_eff = (A1 + A2) b1 b2 d² q1 + (A1 b1 + A2 b2) d q2 + (1 − A1 − A2) u2   (13.71)

    g = q̇ − A q − B u (the residual above, zero when satisfied).  The c81 table is read at
    α_eff; lift and moment get the non-circulatory terms with the pivot-angle rate and the
    angular acceleration by backward differences against the last converged step:
    prev = (α_pivot, α̇, t) committed there; rates receives (α_pivot, α̇, α̇_pivot, α̈) of this
    evaluation (commit rates[0], rates[1] and t into prev after convergence)."""
    A1 = THEO_PAR[ints[start + I_TPAR], 0]
    A2 = THEO_PAR[ints[start + I_TPAR], 1]
    b1 = THEO_PAR[ints[start + I_TPAR], 2]
    b2 = THEO_PAR[ints[start + I_TPAR], 3]
    rho, chord, d14, d34 = vam[0], vam[2], vam[3], vam[4]
    a = (d14 + d34) / chord
    Uinf = math.sqrt(W[0] * W[0] + (W[1] + d34 * W[5]) ** 2)
    u1 = math.atan2(-W[1] - W[5] * d14, W[0])
    u2 = math.atan2(-W[1] - W[5] * d34, W[0])
    d = 2.0 * Uinf / chord
    y1 = (A1 + A2) * b1 * b2 * d * d * q[0] + (A1 * b1 + A2 * b2) * d * q[1] + (1.0 - A1 - A2) * u2
    tan_y1 = math.tan(y1)
    vxp2 = Uinf * Uinf - (W[0] * tan_y1) ** 2 - (d34 * W[5]) ** 2
    WW = np.empty(6)
    WW[0] = math.copysign(math.sqrt(vxp2), W[0])
    WW[1] = -WW[0] * tan_y1 - d34 * W[5]
    WW[2] = W[2]
    WW[3] = W[3]
    WW[4] = W[4]
    WW[5] = W[5]
    c81_section(ints, floats, start, WW, vam, TNG, OUTA, 0)
    qD = 0.5 * rho * (Uinf * Uinf + W[2] * W[2])
    eps = 2.220446049250313e-16
    if qD > eps:
        cd0_, cl0_, cm0_ = OUTA[5], OUTA[4], OUTA[6]
    else:
        cd0_, cl0_, cm0_ = 0.0, 0.0, 0.0
    alpha_pivot = (u1 * d34 - u2 * d14) / (d34 - d14)
    dot_alpha = Uinf * ((u1 - u2) / (d34 - d14))
    dt = t - prev[2]
    if dt > eps:
        dot_alpha_pivot = (alpha_pivot - prev[0]) / dt
        ddot_alpha = (dot_alpha - prev[1]) / dt
    else:
        dot_alpha_pivot = 0.0
        ddot_alpha = 0.0
    rates[0] = alpha_pivot
    rates[1] = dot_alpha
    rates[2] = dot_alpha_pivot
    rates[3] = ddot_alpha
    clalpha = OUTA[7]
    if clalpha > 0.0 and Uinf > 1e-5:
        cl = cl0_ + clalpha / 2.0 / d * (dot_alpha_pivot - a / d * ddot_alpha)
        cd = cd0_
        cm = cm0_ + clalpha / 2.0 / d * (-dot_alpha_pivot / 4.0 + (a / 4.0 / d - 1.0 / d / 16.0) * ddot_alpha
                                          - dot_alpha / 4.0)
        v0 = W[0]
        v1 = W[1] + d34 * W[5]
        vp = math.sqrt(v0 * v0 + v1 * v1)
        TNG[0] = -qD * chord * (cl * v1 + cd * v0) / vp
        TNG[1] = qD * chord * (cl * v0 - cd * v1) / vp
        TNG[5] = qD * chord * chord * cm + d14 * TNG[1]
    else:
        for k in range(6):
            TNG[k] = 0.0
    g[0] = qdot[0] - q[1]
    g[1] = qdot[1] + b1 * b2 * d * d * q[0] + (b1 + b2) * d * q[1] - u2
    return 0



@kernel
def theodorsen_section_jacobian(ints, floats, start, W, vam, q, dg_dq, dg_dW):
    """Analytic derivatives of the state residual g of `theodorsen_section`: dg_dq (2, 2)
    (MBDyn's AssJac state block; ∂g/∂q̇ = I) and dg_dW (2, 6) through d = 2U/c and u2 (the
    coupling MBDyn leaves out of its Jacobian; the loads' derivatives are AERO's differences)."""
    b1 = THEO_PAR[ints[start + I_TPAR], 2]
    b2 = THEO_PAR[ints[start + I_TPAR], 3]
    chord, d34 = vam[2], vam[4]
    vy = W[1] + d34 * W[5]
    U2 = W[0] * W[0] + vy * vy
    Uinf = math.sqrt(U2)
    d = 2.0 * Uinf / chord
    dg_dq[0, 0] = 0.0
    dg_dq[0, 1] = -1.0
    dg_dq[1, 0] = b1 * b2 * d * d
    dg_dq[1, 1] = (b1 + b2) * d
    for j in range(6):
        dg_dW[0, j] = 0.0
        dg_dW[1, j] = 0.0
    dg_dd = 2.0 * b1 * b2 * d * q[0] + (b1 + b2) * q[1]
    dd0 = 2.0 / chord * W[0] / Uinf
    dd1 = 2.0 / chord * vy / Uinf
    du0 = vy / U2
    du1 = -W[0] / U2
    dg_dW[1, 0] = dg_dd * dd0 - du0
    dg_dW[1, 1] = dg_dd * dd1 - du1
    dg_dW[1, 5] = d34 * dg_dW[1, 1]
