"""Hydrodynamic coefficients into a checked HydroData (SI units, global frame, e^{iωt}; see
hydro_data.py): WAMIT's numeric output (.1, .3, .hst), NEMOH's results folder (v2 and v3),
Capytaine (the optional extra `mbdae[hydro]`) for simple hulls or meshes, and mbdae's own
NetCDF file, which also caches Capytaine runs.  `read_hydro_data(path)` tells them apart.

Bad input raises HydroDataError with one line naming the file and the record (line number)."""
import hashlib
import json
import logging
import math
import os
import re
from pathlib import Path

import numpy as np
from scipy.io import netcdf_file

from mbdae.engine.core.hydro_data import HydroData, HydroDataError
from mbdae.engine.core.hydro_radiation import added_mass_infinite_estimate
from mbdae.engine.core.hydro_waves import wave_number

DOF_NAMES = ("Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw")
NETCDF_FORMAT = "mbdae-hydro-data 1"


def _rotational(index):
    """1 for the rotational dofs (roll, pitch, yaw) of 0-based global dof indices, else 0."""
    return (np.asarray(index) % 6 >= 3).astype(int)


def _number(text, where):
    try:
        value = float(text.replace("D", "E").replace("d", "e"))
    except ValueError:
        raise HydroDataError(f"{where}: '{text}' is not a number") from None
    if not math.isfinite(value):
        raise HydroDataError(f"{where}: '{text}' is not a finite number")
    return value


def _index(text, where, what):
    value = _number(text, where)
    if value != int(value) or value < 1:
        raise HydroDataError(f"{where}: the {what} '{text}' is not a positive integer")
    return int(value)


def _read_lines(path, what):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        raise HydroDataError(f"{path}: no such file ({what})") from None
    except OSError as exc:
        raise HydroDataError(f"{path}: cannot read it ({what}): {exc.strerror}") from None


def _is_number(text):
    try:
        float(text.replace("D", "E").replace("d", "e"))
        return True
    except ValueError:
        return False


def _numeric_rows(path, what):
    """(line number, tokens) of the data rows of a WAMIT numeric file: text lines before the
    first numeric row are a header (WAMIT may write one); blank lines are skipped."""
    rows = []
    started = False
    for number, line in enumerate(_read_lines(path, what), start=1):
        tokens = line.split()
        if not tokens:
            continue
        if not started and not _is_number(tokens[0]):
            continue
        started = True
        rows.append((number, tokens))
    if not rows:
        raise HydroDataError(f"{path}: no data rows ({what})")
    return rows


# ---------------------------------------------------------------------------- WAMIT
WAMIT_FIRST_COLUMN = ("period", "omega", "hz")


def _wamit_frequency(value, first_column):
    if first_column == "period":
        return 2.0 * math.pi / value
    if first_column == "omega":
        return value
    return 2.0 * math.pi * value


def _wamit_out(path):
    """Gravity, length scale, water depth, density and body origins from a WAMIT .out file."""
    found = {"bodies": []}
    patterns = {"g": r"Gravity:\s*([-+0-9.eEdD]+)", "ulen": r"Length scale:\s*([-+0-9.eEdD]+)",
                "water_depth": r"Water depth:\s*([-+0-9.eEdD]+|infinite)", "rho": r"Water density:\s*([-+0-9.eEdD]+)"}
    for number, line in enumerate(_read_lines(path, "WAMIT's output file"), start=1):
        where = f"{path}:{number}"
        for key, pattern in patterns.items():
            m = re.search(pattern, line)
            if m and key not in found:
                found[key] = math.inf if m.group(1) == "infinite" else _number(m.group(1), where)
        m = re.search(r"XBODY\s*=\s*(\S+)\s+YBODY\s*=\s*(\S+)\s+ZBODY\s*=\s*(\S+)\s+PHIBODY\s*=\s*(\S+)", line)
        if m:
            x, y, z, phi = (_number(v, where) for v in m.groups())
            if phi != 0.0:
                raise HydroDataError(f"{where}: PHIBODY = {phi:g}: bodies whose axes are turned from the global "
                                     f"ones are not supported (HydroData is in the global frame)")
            found["bodies"].append((x, y, z))
    return found


def _body_count(max_index):
    return (max_index + 5) // 6


def read_wamit(base, ulen=None, rho=None, g=None, water_depth=None, reference_points=None, body_names=(),
               n_bodies=None, first_column="period", gravity_terms=None):
    """WAMIT's numeric output base.1 (added mass, damping), base.3 (diffraction excitation) and
    base.hst (hydrostatics) into SI units (WAMIT manual, ch. 4, "numeric output files").

    WAMIT writes them nondimensional by the density ρ, gravity g and length ULEN: for dof indices
    i, j (1 … 6N, body-major; translational 1–3, rotational 4–6 of each body)

        A_ij = Ā_ij ρ L^k,  B_ij = B̄_ij ρ ω L^k,  k = 3 + [i rot] + [j rot];
        X_i = X̄_i ρ g L^m,  m = 2 + [i rot];   C_ij = C̄_ij ρ g L^k,  k = 2 + [i rot] + [j rot].

    The first column is the wave period in seconds (WAMIT's default IPEROUT = 1; first_column
    'omega' or 'hz' for runs that wrote rad/s or Hz); the rows PER = 0 and PER < 0 hold the
    zero-period (ω = ∞, A∞) and infinite-period (ω = 0) added mass.  Rows are sorted by ω.
    Headings (.3, degrees) are the direction the waves travel to; missing entries are zero.

    ulen, rho, g and water_depth default to what base.out says when it exists, else ULEN = 1,
    ρ = 1025 kg/m³, g = 9.80665 m/s² (WAMIT's SI gravity) and infinite depth.  Reference points
    default to the bodies' XBODY/YBODY/ZBODY of base.out, else the origin.

    base.hst holds WAMIT's hydrostatic and gravitational restoring: when the WAMIT run put each
    body's centre of gravity away from its origin, pass gravity_terms = [(mass, (xg, yg, zg)),
    …] per body (relative to the body origin) and the gravitational part (−m g z_g on roll and
    pitch, m g x_g, m g y_g on 4–6, 5–6) is removed, leaving buoyancy only; without it the
    matrix is taken as buoyancy only (WAMIT runs with the centre of gravity at the origin, as
    in OpenFAST's data sets)."""
    base = Path(base)
    if first_column not in WAMIT_FIRST_COLUMN:
        raise HydroDataError(f"{base}: unknown first_column '{first_column}' (known: {', '.join(WAMIT_FIRST_COLUMN)})")
    out_path = Path(str(base) + ".out")
    info = _wamit_out(out_path) if out_path.exists() else {"bodies": []}
    ulen = float(info.get("ulen", 1.0) if ulen is None else ulen)
    rho = float(info.get("rho", 1025.0) if rho is None else rho)
    g = float(info.get("g", 9.80665) if g is None else g)
    water_depth = float(info.get("water_depth", math.inf) if water_depth is None else water_depth)
    for name, value in (("ULEN", ulen), ("density", rho), ("gravity", g), ("water depth", water_depth)):
        if not value > 0.0:
            raise HydroDataError(f"{base}: the {name} must be positive, found {value:g}")
    p1, p3, phst = (Path(str(base) + ext) for ext in (".1", ".3", ".hst"))

    # .1: PER I J A [B]
    radiation, a_inf, max_index = {}, {}, 0
    for number, tokens in _numeric_rows(p1, "WAMIT added mass and damping"):
        where = f"{p1}:{number}"
        per = _number(tokens[0], where)
        expected = 4 if per <= 0.0 else 5
        if len(tokens) != expected:
            raise HydroDataError(f"{where}: {len(tokens)} columns, expected {expected} "
                                 f"(PER I J A{' B' if per > 0.0 else ''})")
        i, j = _index(tokens[1], where, "dof index I"), _index(tokens[2], where, "dof index J")
        max_index = max(max_index, i, j)
        values = [_number(v, where) for v in tokens[3:]]
        if per == 0.0:
            if (i, j) in a_inf:
                raise HydroDataError(f"{where}: a second zero-period (A∞) entry for I = {i}, J = {j}")
            a_inf[(i, j)] = values[0]
        elif per > 0.0:
            entries = radiation.setdefault(per, {})
            if (i, j) in entries:
                raise HydroDataError(f"{where}: a second entry for period {per:g}, I = {i}, J = {j}")
            entries[(i, j)] = (values[0], values[1], number)
    if not radiation:
        raise HydroDataError(f"{p1}: no rows with a positive period")
    if not a_inf:
        raise HydroDataError(f"{p1}: no zero-period rows (PER = 0): the infinite-frequency added mass A∞ is "
                             f"needed; rerun WAMIT with PER = 0 among the periods")
    n_body = _body_count(max_index)
    if n_bodies is not None and n_body != n_bodies:
        raise HydroDataError(f"{p1}: dof indices up to {max_index} make {n_body} bodies, {n_bodies} expected")
    n = 6 * n_body
    periods = sorted(radiation, key=lambda p: _wamit_frequency(p, first_column))
    omega = np.array([_wamit_frequency(p, first_column) for p in periods])
    rot = _rotational(np.arange(n))
    kk = 3 + rot[:, None] + rot[None, :]
    A = np.zeros((len(omega), n, n))
    B = np.zeros((len(omega), n, n))
    for w, per in enumerate(periods):
        for (i, j), (a, b, _) in radiation[per].items():
            A[w, i - 1, j - 1] = a
            B[w, i - 1, j - 1] = b
    A *= rho * ulen ** kk[None]
    B *= rho * omega[:, None, None] * ulen ** kk[None]
    A_inf = np.zeros((n, n))
    for (i, j), a in a_inf.items():
        A_inf[i - 1, j - 1] = a
    A_inf *= rho * ulen ** kk

    # .3: PER BETA I |X| phase Re Im
    forces, betas = {}, set()
    for number, tokens in _numeric_rows(p3, "WAMIT diffraction excitation"):
        where = f"{p3}:{number}"
        if len(tokens) != 7:
            raise HydroDataError(f"{where}: {len(tokens)} columns, expected 7 (PER BETA I Mod Pha Re Im)")
        per, beta = _number(tokens[0], where), _number(tokens[1], where)
        i = _index(tokens[2], where, "dof index I")
        if i > n:
            raise HydroDataError(f"{where}: dof index {i} makes {_body_count(i)} bodies, but {p1.name} "
                                 f"has {n_body} (dof indices up to {n})")
        match = [p for p in periods if abs(p - per) <= 1e-5 * abs(p)]
        if not match:
            raise HydroDataError(f"{where}: period {per:g} is not among the {len(periods)} periods of {p1.name} "
                                 f"(from {min(periods):g} to {max(periods):g}): the frequency grids differ")
        key = (match[0], beta, i)
        if key in forces:
            raise HydroDataError(f"{where}: a second entry for period {per:g}, heading {beta:g}, I = {i}")
        forces[key] = complex(_number(tokens[5], where), _number(tokens[6], where))
        betas.add(beta)
    missing = sorted(set(periods) - {k[0] for k in forces})
    if missing:
        raise HydroDataError(f"{p3}: no rows for period {missing[0]:g} of {p1.name} "
                             f"({len(missing)} of its periods are missing): the frequency grids differ")
    headings = sorted(betas)
    X = np.zeros((len(headings), len(omega), n), dtype=complex)
    for (per, beta, i), x in forces.items():
        X[headings.index(beta), periods.index(per), i - 1] = x
    X *= (rho * g * ulen ** (2 + rot))[None, None, :]

    # .hst: I J C
    C = np.zeros((n, n))
    for number, tokens in _numeric_rows(phst, "WAMIT hydrostatics"):
        where = f"{phst}:{number}"
        if len(tokens) != 3:
            raise HydroDataError(f"{where}: {len(tokens)} columns, expected 3 (I J C)")
        i, j = _index(tokens[0], where, "dof index I"), _index(tokens[1], where, "dof index J")
        if max(i, j) > n:
            raise HydroDataError(f"{where}: dof index {max(i, j)} makes {_body_count(max(i, j))} bodies, but "
                                 f"{p1.name} has {n_body} (dof indices up to {n})")
        C[i - 1, j - 1] = _number(tokens[2], where)
    C *= rho * g * ulen ** (2 + rot[:, None] + rot[None, :])
    if gravity_terms is not None:
        if len(gravity_terms) != n_body:
            raise HydroDataError(f"{base}: gravity_terms for {len(gravity_terms)} bodies, the data has {n_body}")
        for b, (mass, cg) in enumerate(gravity_terms):
            xg, yg, zg = (float(v) for v in cg)
            o = 6 * b
            C[o + 3, o + 3] += mass * g * zg
            C[o + 4, o + 4] += mass * g * zg
            C[o + 3, o + 5] -= mass * g * xg
            C[o + 4, o + 5] -= mass * g * yg

    if reference_points is None:
        reference_points = info["bodies"] if len(info["bodies"]) == n_body else np.zeros((n_body, 3))
    return HydroData(omega=omega, added_mass=A, radiation_damping=B, added_mass_infinite=A_inf,
                     hydrostatic_stiffness=C, headings=np.radians(headings), excitation=X,
                     reference_points=np.asarray(reference_points, dtype=float).reshape(-1, 3),
                     body_names=tuple(body_names), rho=rho, g=g, water_depth=water_depth,
                     source=f"{base}.1/.3/.hst").check()


# ---------------------------------------------------------------------------- NEMOH
def _find(folder, *names):
    """The first existing entry of `folder` whose name matches one of `names` (case-insensitive)."""
    try:
        entries = {p.name.lower(): p for p in Path(folder).iterdir()}
    except (FileNotFoundError, NotADirectoryError):
        return None
    for name in names:
        if name.lower() in entries:
            return entries[name.lower()]
    return None


def _leading_numbers(line, where, count=None, what="values"):
    """The numbers a Nemoh.cal line starts with (its comment after '!' or text ignored)."""
    values = []
    for token in line.split("!")[0].split():
        if not _is_number(token):
            break
        values.append(_number(token, where))
    if count is not None and len(values) < count:
        raise HydroDataError(f"{where}: expected {count} numbers ({what}), found {len(values)}")
    return values


def _nemoh_cal(path):
    """Environment, bodies (their dofs and forces) and load cases of a Nemoh.cal (v2 or v3)."""
    lines = _read_lines(path, "NEMOH's case file")
    pos = 0

    def next_line(what):
        nonlocal pos
        while pos < len(lines) and not lines[pos].strip():
            pos += 1
        if pos >= len(lines):
            raise HydroDataError(f"{path}:{len(lines)}: the file ends before {what}")
        pos += 1
        return pos, lines[pos - 1]

    def header(what):
        number, line = next_line(what)
        if not line.lstrip().startswith("-"):
            raise HydroDataError(f"{path}:{number}: expected the '--- {what} ---' line, found '{line.strip()[:60]}'")

    def values(count, what):
        number, line = next_line(what)
        return number, _leading_numbers(line, f"{path}:{number}", count, what)

    header("Environment")
    rho = values(1, "RHO")[1][0]
    g = values(1, "G")[1][0]
    depth = values(1, "DEPTH")[1][0]
    xeff, yeff = values(2, "XEFF YEFF")[1][:2]
    header("Description of floating bodies")
    number, nb = values(1, "number of bodies")
    n_body = int(nb[0])
    if n_body < 1 or nb[0] != n_body:
        raise HydroDataError(f"{path}:{number}: the number of bodies must be a positive integer, found {nb[0]:g}")
    bodies = []
    for b in range(n_body):
        header(f"Body {b + 1}")
        next_line("the mesh file")
        values(2, "number of points and panels")
        number, nd = values(1, "number of degrees of freedom")
        dofs = [(values(7, "dof: type, direction, point")) for _ in range(int(nd[0]))]
        _, nf = values(1, "number of generalised forces")
        forces = [(values(7, "force: type, direction, point")) for _ in range(int(nf[0]))]
        _, na = values(1, "number of lines of additional information")
        for _ in range(int(na[0])):
            next_line("additional information")
        bodies.append({"dofs": dofs, "forces": forces, "line": number})
    header("Load cases to be solved")
    number, freq = values(3, "number of frequencies, min, max")
    n_freq = int(freq[1] if len(freq) >= 4 else freq[0])
    _, beta = values(3, "number of wave directions, min, max")
    return {"rho": rho, "g": g, "depth": math.inf if depth == 0.0 else depth, "xeff": xeff, "yeff": yeff,
            "bodies": bodies, "n_freq": n_freq, "n_beta": int(beta[0])}


def _nemoh_axis(vals, where, what):
    """The rigid-body dof (0 … 5) of a Nemoh.cal dof or force line: type 1 along, type 2 about a
    global axis; returns (dof, point)."""
    kind, dx, dy, dz, x, y, z = vals[:7]
    axis = [abs(dx), abs(dy), abs(dz)]
    if sorted(axis) != [0.0, 0.0, 1.0] or max(dx, dy, dz) != 1.0 or kind not in (1.0, 2.0):
        raise HydroDataError(f"{where}: only {what}s along or about the global x, y, z axes (type 1 or 2, "
                             f"direction a unit axis) are supported")
    return axis.index(1.0) + (3 if kind == 2.0 else 0), (x, y, z)


def _nemoh_reference(cal, path, allow_missing_dofs):
    """Each body's reference point (the common point of its rotations and moments) and the
    rigid-body dof of each of its dofs and forces, in Nemoh.cal's order."""
    points, dof_maps, force_maps = [], [], []
    for b, body in enumerate(cal["bodies"]):
        point, maps = None, []
        for key, what in (("dofs", "degree of freedom"), ("forces", "force")):
            seen = []
            for number, vals in body[key]:
                where = f"{path}:{number}"
                dof, p = _nemoh_axis(vals, where, what)
                if dof in seen:
                    raise HydroDataError(f"{where}: body {b + 1} has the {DOF_NAMES[dof].lower()} {what} twice")
                seen.append(dof)
                if dof >= 3:
                    if point is not None and not np.allclose(point, p):
                        raise HydroDataError(f"{where}: body {b + 1} turns or takes moments about two different "
                                             f"points; mbdae needs one reference point per body")
                    point = p
            missing = [DOF_NAMES[d].lower() for d in range(6) if d not in seen]
            if missing and not allow_missing_dofs:
                raise HydroDataError(f"{path}:{body['line']}: body {b + 1} lacks the {', '.join(missing)} {what}(s); "
                                     f"mbdae needs the six rigid-body ones (allow_missing_dofs=True fills them with zeros)")
            maps.append(seen)
        dof_maps.append(maps[0])
        force_maps.append(maps[1])
        points.append(point if point is not None else (0.0, 0.0, 0.0))
    return np.array(points, dtype=float), dof_maps, force_maps


def _tec_frequency(line, where):
    text = line.lower()
    if "rad/s" in text or '"w' in text:
        return lambda v: v
    if "hz" in text:
        return lambda v: 2.0 * math.pi * v
    if "(s)" in text or '"t' in text:
        return lambda v: 2.0 * math.pi / v
    raise HydroDataError(f"{where}: cannot tell the frequency unit from '{line.strip()[:60]}' (w (rad/s), f (Hz) or T (s))")


def _tec_zones(path, what, column_pattern, column_index, frequency_first=True):
    """A NEMOH Tecplot file: the frequency converter, the global dof of each column pair (from
    the column names before the first zone: `column_index(match, where)`) and the zones
    [(title, first line, announced rows, rows [(line, values)])]."""
    lines = _read_lines(path, what)
    if not lines:
        raise HydroDataError(f"{path}: the file is empty ({what})")
    convert = _tec_frequency(lines[0], f"{path}:1") if frequency_first else None
    columns, zones = [], []
    for number, line in enumerate(lines[1:], start=2):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.lower().startswith("zone"):
            m = re.search(r"I\s*=\s*(\d+)", stripped)
            if not m:
                raise HydroDataError(f"{path}:{number}: a zone without its number of rows 'I='")
            zones.append((stripped, number, int(m.group(1)), []))
        elif not zones:
            for m in re.finditer(column_pattern, stripped):
                columns.append(column_index(m, f"{path}:{number}"))
        else:
            title, first, count, rows = zones[-1]
            if len(rows) >= count:
                raise HydroDataError(f"{path}:{number}: more rows than the {count} its zone (line {first}) announces")
            tokens = stripped.split()
            if len(tokens) != 1 + 2 * len(columns):
                raise HydroDataError(f"{path}:{number}: {len(tokens)} numbers, expected {1 + 2 * len(columns)} "
                                     f"(the first column and {len(columns)} pairs)")
            rows.append((number, [_number(tok, f"{path}:{number}") for tok in tokens]))
    if not columns:
        raise HydroDataError(f"{path}: no column names before the first zone ({what})")
    if not zones:
        raise HydroDataError(f"{path}: no zone ({what})")
    for title, first, count, rows in zones:
        if len(rows) != count:
            raise HydroDataError(f"{path}:{first}: the zone announces {count} rows, it has {len(rows)}")
    return convert, columns, zones


def _body_dof(maps, body, k, where, what, cal_name):
    """Global dof of the k-th (1-based) dof or force of body `body` (1-based), checked."""
    if not 1 <= body <= len(maps):
        raise HydroDataError(f"{where}: {what} of body {body}, but {cal_name} has {len(maps)} bodies")
    if not 1 <= k <= len(maps[body - 1]):
        raise HydroDataError(f"{where}: {what} {k} of body {body}, but {cal_name} gives it {len(maps[body - 1])}")
    return 6 * (body - 1) + maps[body - 1][k - 1]


def _force_column(force_maps, cal_name):
    """Column name (body b, force d) to its global dof."""
    def index(m, where):
        return _body_dof(force_maps, int(m.group(1)), int(m.group(2)), where, "a column of force", cal_name)
    return index


def _nemoh_grid(zones, convert, path):
    """The frequencies of the zones (rad/s), identical in every zone."""
    grid = None
    for title, first, count, rows in zones:
        omega = np.array([convert(values[0]) for _, values in rows])
        if grid is None:
            grid = omega
        elif len(omega) != len(grid) or not np.allclose(omega, grid, rtol=1e-6, atol=0.0):
            bad = next((k for k in range(min(len(omega), len(grid))) if not np.isclose(omega[k], grid[k], rtol=1e-6)),
                       min(len(omega), len(grid)) - 1)
            raise HydroDataError(f"{path}:{rows[bad][0]}: the frequencies of this zone differ from those of the zone "
                                 f"of line {zones[0][1]}: the frequency grids differ")
    if len(grid) < 2 or np.any(grid <= 0.0):
        raise HydroDataError(f"{path}:{zones[0][1]}: at least two positive frequencies are needed")
    return grid


def _read_6x6(path, what):
    rows = []
    for number, line in enumerate(_read_lines(path, what), start=1):
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != 6:
            raise HydroDataError(f"{path}:{number}: {len(tokens)} numbers, expected a row of 6 ({what} is 6×6)")
        rows.append([_number(tok, f"{path}:{number}") for tok in tokens])
    if len(rows) != 6:
        raise HydroDataError(f"{path}: {len(rows)} rows, expected 6 ({what} is 6×6)")
    return np.array(rows)


def _nemoh_per_body(folder, n_body, stem, subfolders, what):
    """The per-body files: stem.dat for one body; stem_0 … stem_{N−1}.dat (BEMRosetta's and
    NEMOH's multi-body naming) or stem_1 … stem_N.dat for several; None when absent."""
    for sub in subfolders:
        d = _find(folder, sub)
        if d is None:
            continue
        if n_body == 1:
            p = _find(d, f"{stem}.dat")
            if p is not None:
                return [p]
        for first in (0, 1):
            found = [_find(d, f"{stem}_{b + first}.dat") for b in range(n_body)]
            if all(found):
                return found
    return None


def _hydrostatics_dat(path):
    lines = _read_lines(path, "NEMOH hydrostatics")
    values = {}
    for number, line in enumerate(lines, start=1):
        for m in re.finditer(r"([XYZ][FG]|Displacement)\s*=\s*([-+0-9.eEdD]+)", line):
            values[m.group(1)] = _number(m.group(2), f"{path}:{number}")
    for key in ("XF", "YF", "ZF", "XG", "YG", "ZG", "Displacement"):
        if key not in values:
            raise HydroDataError(f"{path}: no '{key} =' entry")
    return values


def _buoyancy_about(KH, hs, ref, rho, g):
    """Buoyancy-only restoring about the reference point from NEMOH's KH, whose waterplane
    integrals are about (XG, YG) and whose roll and pitch terms are ρgV(z_B − z_G) (buoyancy and
    gravity): the waterplane moments are recovered from KH and moved to the reference point,
    C44 = ρg∫(y−y_r)²dS + ρgV(z_B − z_r), C46 = −ρgV(x_B − x_r), C56 = −ρgV(y_B − y_r) …"""
    rg = rho * g
    V = hs["Displacement"]
    xb, yb, zb = hs["XF"], hs["YF"], hs["ZF"]
    xg, yg, zg = hs["XG"], hs["YG"], hs["ZG"]
    S = KH[2, 2] / rg
    Sy = KH[2, 3] / rg                       # ∫(y − yG) dS
    Sx = -KH[2, 4] / rg                      # ∫(x − xG) dS
    Iyy = (KH[3, 3] - rg * V * (zb - zg)) / rg
    Ixx = (KH[4, 4] - rg * V * (zb - zg)) / rg
    Ixy = -KH[3, 4] / rg
    xr, yr, zr = ref
    dx, dy = xg - xr, yg - yr
    C = np.zeros((6, 6))
    C[2, 2] = rg * S
    C[2, 3] = C[3, 2] = rg * (Sy + dy * S)
    C[2, 4] = C[4, 2] = -rg * (Sx + dx * S)
    C[3, 3] = rg * (Iyy + 2.0 * dy * Sy + dy * dy * S) + rg * V * (zb - zr)
    C[4, 4] = rg * (Ixx + 2.0 * dx * Sx + dx * dx * S) + rg * V * (zb - zr)
    C[3, 4] = C[4, 3] = -rg * (Ixy + dx * Sy + dy * Sx + dx * dy * S)
    C[3, 5] = -rg * V * (xb - xr)
    C[4, 5] = -rg * V * (yb - yr)
    return C


def read_nemoh(folder, added_mass_infinite="irf", allow_missing_dofs=False, body_names=(), n_bodies=None):
    """A NEMOH case folder (v2 or v3 layout): Nemoh.cal, results/RadiationCoefficients.tec,
    results/ExcitationForce.tec, mesh/KH.dat (mesh/KH_0 … KH_{N−1}.dat for N bodies, or v3's
    Mechanics/Kh*.dat) and, when present, mesh/Hydrostatics*.dat.  Folder names are matched
    without regard to case.

    NEMOH writes dimensional values (ρ, g, depth from Nemoh.cal; depth 0 means infinite); the
    frequency column may be w (rad/s), f (Hz) or T (s) (v3's output option).  Radiation zone
    'Motion of body b in DoF d' holds A and B of every force for that motion.  Excitation is
    written as modulus and phase (radians) for NEMOH's e^{−iωt} and the wave measured at
    (XEFF, YEFF): it is conjugated and referred to the origin, X₀ = conj(X e^{ik(x_eff cos β +
    y_eff sin β)}).  The reference point of each body is the point its rotations are about.

    A∞: added_mass_infinite='irf' reads it from results/IRF.tec (NEMOH's IRF option, which
    computes it from Ogilvie's relation); 'ogilvie' computes the same estimate here
    (hydro_radiation.added_mass_infinite_estimate); or give the (6N, 6N) array.

    Hydrostatics: NEMOH's KH includes the gravity term ρgV(−z_G) for its centre of gravity and
    is about (XG, YG); with Hydrostatics.dat (V, centre of buoyancy, XG, YG, ZG) the matrix is
    reduced to buoyancy only about the reference point (`_buoyancy_about`) and the displaced
    volume and centre of buoyancy are filled; without it KH is taken as given."""
    folder = Path(folder)
    cal_path = _find(folder, "Nemoh.cal")
    if cal_path is None:
        raise HydroDataError(f"{folder}: no Nemoh.cal in this folder (a NEMOH case folder is needed)")
    cal = _nemoh_cal(cal_path)
    n_body = len(cal["bodies"])
    if n_bodies is not None and n_body != n_bodies:
        raise HydroDataError(f"{cal_path}: {n_body} bodies, {n_bodies} expected")
    n = 6 * n_body
    ref, dof_maps, force_maps = _nemoh_reference(cal, cal_path, allow_missing_dofs)
    results = _find(folder, "results")
    if results is None:
        raise HydroDataError(f"{folder}: no results folder (NEMOH's solver output)")
    rad_path = _find(results, "RadiationCoefficients.tec") or results / "RadiationCoefficients.tec"
    convert, columns, zones = _tec_zones(rad_path, "NEMOH radiation coefficients", r'"A\s*(\d+)\s+(\d+)\s*"',
                                         _force_column(force_maps, cal_path.name))
    omega = _nemoh_grid(zones, convert, rad_path)
    A = np.zeros((len(omega), n, n))
    B = np.zeros((len(omega), n, n))
    radiating = []
    for title, first, count, rows in zones:
        m = re.search(r"body\s+(\d+)\s+in\s+DoF\s*(\d+)", title, re.IGNORECASE)
        if not m:
            raise HydroDataError(f"{rad_path}:{first}: a zone title without 'Motion of body B in DoF D'")
        j = _body_dof(dof_maps, int(m.group(1)), int(m.group(2)), f"{rad_path}:{first}", "motion in dof",
                      cal_path.name)
        if j in radiating:
            raise HydroDataError(f"{rad_path}:{first}: a second zone for the motion of body {m.group(1)} in dof {m.group(2)}")
        radiating.append(j)
        for w, (_, values) in enumerate(rows):
            A[w, columns, j] = values[1::2]
            B[w, columns, j] = values[2::2]
    order = np.argsort(omega)
    omega, A, B = omega[order], A[order], B[order]

    exc_path = _find(results, "ExcitationForce.tec") or results / "ExcitationForce.tec"
    convert_x, columns_x, zones_x = _tec_zones(exc_path, "NEMOH excitation force", r'"abs\(F\s*(\d+)\s+(\d+)\s*\)"',
                                               _force_column(force_maps, cal_path.name))
    headings, X = [], np.zeros((len(zones_x), len(omega), n), dtype=complex)
    k = wave_number(omega, cal["depth"], cal["g"])
    for z, (title, first, count, rows) in enumerate(zones_x):
        m = re.search(r"beta\s*=\s*([-+0-9.eE]+)\s*(deg)?", title, re.IGNORECASE)
        if not m:
            raise HydroDataError(f"{exc_path}:{first}: a zone title without 'beta = … deg'")
        beta = math.radians(_number(m.group(1), f"{exc_path}:{first}"))
        w_zone = np.array([convert_x(values[0]) for _, values in rows])
        if len(w_zone) != len(omega) or not np.allclose(np.sort(w_zone), omega, rtol=1e-6):
            raise HydroDataError(f"{exc_path}:{first}: the zone's {len(w_zone)} frequencies differ from the "
                                 f"{len(omega)} of {rad_path.name}: the frequency grids differ")
        w_order = np.argsort(w_zone)
        shift = np.exp(1j * k * (cal["xeff"] * math.cos(beta) + cal["yeff"] * math.sin(beta)))
        for w_out, w_in in enumerate(w_order):
            values = np.asarray(rows[w_in][1])
            x = values[1::2] * np.exp(1j * values[2::2])
            X[z, w_out, columns_x] = np.conj(x * shift[w_out])
        headings.append(beta)
    h_order = np.argsort(headings)
    headings = np.asarray(headings)[h_order]
    X = X[h_order]

    kh_files = _nemoh_per_body(folder, n_body, "KH", ("mesh",), "hydrostatic stiffness") \
        or _nemoh_per_body(folder, n_body, "Kh", ("Mechanics",), "hydrostatic stiffness")
    if kh_files is None:
        expected = "mesh/KH.dat" if n_body == 1 else f"mesh/KH_0.dat … mesh/KH_{n_body - 1}.dat"
        raise HydroDataError(f"{folder}: no hydrostatic stiffness file ({expected})")
    hs_files = _nemoh_per_body(folder, n_body, "Hydrostatics", ("mesh",), "hydrostatics")
    C = np.zeros((n, n))
    volume = centre = None
    if hs_files is not None:
        volume, centre = np.zeros(n_body), np.zeros((n_body, 3))
    for b, path in enumerate(kh_files):
        KH = _read_6x6(path, "NEMOH's KH")
        if hs_files is None:
            C[6 * b:6 * b + 6, 6 * b:6 * b + 6] = KH
        else:
            hs = _hydrostatics_dat(hs_files[b])
            C[6 * b:6 * b + 6, 6 * b:6 * b + 6] = _buoyancy_about(KH, hs, ref[b], cal["rho"], cal["g"])
            volume[b] = hs["Displacement"]
            centre[b] = (hs["XF"], hs["YF"], hs["ZF"])

    if isinstance(added_mass_infinite, str) and added_mass_infinite == "irf":
        irf_path = _find(results, "IRF.tec")
        if irf_path is None:
            raise HydroDataError(f"{results / 'IRF.tec'}: no such file: A∞ is needed; run NEMOH with the IRF "
                                 f"option or pass added_mass_infinite='ogilvie' (estimate from B(ω) and A(ω))")
        A_inf = _nemoh_irf_added_mass(irf_path, columns, radiating, n)
    elif isinstance(added_mass_infinite, str) and added_mass_infinite == "ogilvie":
        A_inf = added_mass_infinite_estimate(omega, A, B)
    elif isinstance(added_mass_infinite, str):
        raise HydroDataError(f"{folder}: unknown added_mass_infinite '{added_mass_infinite}' (irf, ogilvie or an array)")
    else:
        A_inf = np.asarray(added_mass_infinite, dtype=float)
    return HydroData(omega=omega, added_mass=A, radiation_damping=B, added_mass_infinite=A_inf,
                     hydrostatic_stiffness=C, headings=headings, excitation=X, reference_points=ref,
                     body_names=tuple(body_names), displaced_volume=volume, centre_of_buoyancy=centre,
                     rho=cal["rho"], g=cal["g"], water_depth=cal["depth"], source=str(folder)).check()


def _nemoh_irf_added_mass(path, columns, radiating, n):
    """A∞ from NEMOH's IRF.tec: zone 'DoF j' (the j-th radiation case) has rows t, (A∞_kj,
    K_kj(t)) for the force columns k = 1 … ('AddedMass k'), in RadiationCoefficients' order."""
    def index(m, where):
        k = int(m.group(1))
        if not 1 <= k <= len(columns):
            raise HydroDataError(f"{where}: column 'AddedMass {k}', but {len(columns)} forces in the radiation file")
        return columns[k - 1]
    _, cols, zones = _tec_zones(path, "NEMOH impulse response", r'"AddedMass\s+(\d+)"', index, frequency_first=False)
    if len(cols) != len(columns):
        raise HydroDataError(f"{path}: {len(cols)} 'AddedMass' columns, the radiation file has {len(columns)} forces")
    if len(zones) != len(radiating):
        raise HydroDataError(f"{path}: {len(zones)} zones, expected {len(radiating)} (one per radiation case)")
    A_inf = np.zeros((n, n))
    for (title, first, count, rows), j in zip(zones, radiating):
        if not rows:
            raise HydroDataError(f"{path}:{first}: an empty zone")
        A_inf[cols, j] = rows[0][1][1::2]
    return A_inf


# ---------------------------------------------------------------------------- NetCDF
def write_hydro_data(data, path, key=""):
    """`data` to a NetCDF-3 file (scipy.io.netcdf_file, no extra dependency): float64 arrays,
    the complex excitation as two variables, scalars and names as attributes."""
    data.check()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    nw, n, nb = len(data.omega), 6 * data.n_bodies, len(data.headings)
    with netcdf_file(tmp, "w", version=2) as f:
        f.format = NETCDF_FORMAT
        f.key = key
        f.source = data.source
        f.body_names = "\n".join(data.body_names)
        f.rho, f.g = np.float64(data.rho), np.float64(data.g)          # np.float64: a Python float is stored as float32
        f.water_depth = np.float64(data.water_depth)
        for dim, size in (("omega", nw), ("dof", n), ("dof_j", n), ("heading", nb), ("body", data.n_bodies), ("xyz", 3)):
            f.createDimension(dim, size)
        arrays = {"omega": (("omega",), data.omega), "headings": (("heading",), data.headings),
                  "added_mass": (("omega", "dof", "dof_j"), data.added_mass),
                  "radiation_damping": (("omega", "dof", "dof_j"), data.radiation_damping),
                  "added_mass_infinite": (("dof", "dof_j"), data.added_mass_infinite),
                  "hydrostatic_stiffness": (("dof", "dof_j"), data.hydrostatic_stiffness),
                  "excitation_re": (("heading", "omega", "dof"), np.real(data.excitation)),
                  "excitation_im": (("heading", "omega", "dof"), np.imag(data.excitation)),
                  "reference_points": (("body", "xyz"), data.reference_points)}
        if data.displaced_volume is not None:
            arrays["displaced_volume"] = (("body",), data.displaced_volume)
        if data.centre_of_buoyancy is not None:
            arrays["centre_of_buoyancy"] = (("body", "xyz"), data.centre_of_buoyancy)
        for name, (dims, value) in arrays.items():
            var = f.createVariable(name, "d", dims)
            var[...] = np.asarray(value, dtype=float)
    os.replace(tmp, path)
    return path


def read_netcdf(path):
    """A file written by write_hydro_data (or a Capytaine cache) back into a HydroData."""
    path = Path(path)
    try:
        f = netcdf_file(path, "r", mmap=False)
    except FileNotFoundError:
        raise HydroDataError(f"{path}: no such file") from None
    except (OSError, TypeError, ValueError) as exc:
        raise HydroDataError(f"{path}: not a NetCDF-3 file mbdae can read ({exc})") from None
    with f:
        fmt = f._attributes.get("format", b"")
        fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
        if fmt != NETCDF_FORMAT:
            raise HydroDataError(f"{path}: not an mbdae hydrodynamic data file (format '{fmt}', expected '{NETCDF_FORMAT}')")

        def var(name, required=True):
            if name not in f.variables:
                if required:
                    raise HydroDataError(f"{path}: the variable '{name}' is missing")
                return None
            return np.array(f.variables[name][...], dtype=float)

        def text(name):
            value = f._attributes.get(name, b"")
            return value.decode() if isinstance(value, bytes) else str(value)

        names = text("body_names")
        return HydroData(omega=var("omega"), added_mass=var("added_mass"), radiation_damping=var("radiation_damping"),
                         added_mass_infinite=var("added_mass_infinite"),
                         hydrostatic_stiffness=var("hydrostatic_stiffness"), headings=var("headings"),
                         excitation=var("excitation_re") + 1j * var("excitation_im"),
                         reference_points=var("reference_points"),
                         body_names=tuple(names.split("\n")) if names else (),
                         displaced_volume=var("displaced_volume", False),
                         centre_of_buoyancy=var("centre_of_buoyancy", False),
                         rho=float(f._attributes["rho"]), g=float(f._attributes["g"]),
                         water_depth=float(f._attributes["water_depth"]),
                         source=f"{path} ({text('source')})" if text("source") else str(path)).check()


# ---------------------------------------------------------------------------- Capytaine
HULL_SHAPES = {"cylinder": ("radius", "draft"), "box": ("length", "width", "draft"), "sphere": ("radius",),
               "hemisphere": ("radius",)}


def _hull_spec(spec, b):
    """A normalized hull description (dict) or a mesh file path; errors name the body."""
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        if not path.is_file():
            raise HydroDataError(f"body {b + 1}: mesh file {path}: no such file")
        return {"mesh_file": str(path.resolve()), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    if hasattr(spec, "vertices") and hasattr(spec, "faces"):
        digest = hashlib.sha256(np.ascontiguousarray(spec.vertices, dtype=float).tobytes()
                                + np.ascontiguousarray(spec.faces, dtype=np.int64).tobytes()).hexdigest()
        return {"mesh_object": digest}
    if not isinstance(spec, dict):
        raise HydroDataError(f"body {b + 1}: a hull is a dict (shape and dimensions), a mesh file or a Capytaine mesh, "
                             f"found {type(spec).__name__}")
    shape = spec.get("shape")
    if shape not in HULL_SHAPES:
        raise HydroDataError(f"body {b + 1}: unknown hull shape '{shape}' (known: {', '.join(HULL_SHAPES)})")
    known = set(HULL_SHAPES[shape]) | {"shape", "position", "centre_depth", "panel_size", "name"}
    for key in spec:
        if key not in known:
            raise HydroDataError(f"body {b + 1}: unknown hull parameter '{key}' for a {shape} (known: {', '.join(sorted(known))})")
    out = {"shape": shape}
    for key in HULL_SHAPES[shape]:
        if key not in spec:
            raise HydroDataError(f"body {b + 1}: the {shape} needs its {key}")
        value = float(spec[key])
        if not value > 0.0:
            raise HydroDataError(f"body {b + 1}: the {shape}'s {key} must be positive, found {value:g}")
        out[key] = value
    position = [float(v) for v in spec.get("position", (0.0, 0.0))]
    if len(position) != 2:
        raise HydroDataError(f"body {b + 1}: position is (x, y) of the hull's axis at the waterline, found {position}")
    out["position"] = position
    out["centre_depth"] = float(spec.get("centre_depth", 0.0))
    size = min(out[k] for k in HULL_SHAPES[shape])
    out["panel_size"] = float(spec.get("panel_size", size / 4.0))
    if not out["panel_size"] > 0.0:
        raise HydroDataError(f"body {b + 1}: panel_size must be positive")
    if "name" in spec:
        out["name"] = str(spec["name"])
    return out


def _hull_mesh(cpt, spec, original, b):
    """The Capytaine mesh of a hull (clipped to its wetted part by the caller)."""
    if "mesh_file" in spec:
        try:
            return cpt.load_mesh(spec["mesh_file"])
        except Exception as exc:             # Capytaine and meshio raise many kinds
            reason = " ".join(str(exc).split())[:200]
            raise HydroDataError(f"body {b + 1}: mesh file {spec['mesh_file']}: Capytaine cannot read it: {reason}") from None
    if "mesh_object" in spec:
        return original
    x, y = spec["position"]
    ps = spec["panel_size"]
    shape = spec["shape"]
    if shape == "cylinder":
        r, t = spec["radius"], spec["draft"]
        res = (max(2, math.ceil(r / ps)), max(12, math.ceil(2.0 * math.pi * r / ps)), 2 * max(2, math.ceil(t / ps)))
        return cpt.mesh_vertical_cylinder(length=2.0 * t, radius=r, center=(x, y, 0.0), resolution=res)
    if shape == "box":
        L, W, t = spec["length"], spec["width"], spec["draft"]
        res = (max(2, math.ceil(L / ps)), max(2, math.ceil(W / ps)), 2 * max(2, math.ceil(t / ps)))
        return cpt.mesh_parallelepiped(size=(L, W, 2.0 * t), center=(x, y, 0.0), resolution=res)
    r = spec["radius"]
    zc = -spec["centre_depth"]
    n_around = max(12, math.ceil(2.0 * math.pi * r / ps))
    return cpt.mesh_sphere(radius=r, center=(x, y, zc), resolution=(max(6, n_around // 2), n_around))


def hydro_cache_dir():
    """Where Capytaine results are cached: MBDAE_HYDRO_CACHE, else ~/.cache/mbdae/hydro."""
    given = os.environ.get("MBDAE_HYDRO_CACHE")
    if given:
        return Path(given)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mbdae" / "hydro"


def _canonical(value):
    return [float(v).hex() for v in np.asarray(value, dtype=float).ravel()]


def compute_hydro_data(bodies, omegas, headings=(0.0,), rho=1025.0, g=9.81, water_depth=math.inf,
                       reference_points=None, cache=True, lid=True, body_names=None):
    """BEM coefficients by Capytaine (optional extra mbdae[hydro]) for one or several bodies
    solved together (their interaction included): HydroData with A(ω), B(ω), A∞ (Capytaine's
    ω = ∞ problem), the excitation (Froude–Krylov plus diffraction, conjugated from Capytaine's
    e^{−iωt}), hydrostatics (buoyancy only about each reference point: the centre of mass is put
    at the reference point, so Capytaine adds no gravity term), displaced volume and centre of
    buoyancy.

    bodies: each a dict {'shape': 'cylinder', 'radius', 'draft'} | {'shape': 'box', 'length',
    'width', 'draft'} | {'shape': 'sphere' or 'hemisphere', 'radius', 'centre_depth' (0: a
    floating hemisphere)}, with optional 'position' (x, y), 'panel_size' (default a quarter of
    the smallest dimension) and 'name'; or a mesh file Capytaine reads (.gdf, .dat, .stl, …) or
    a Capytaine mesh (clipped at z = 0).  Reference points default to (x, y, 0) of each hull
    (the origin for meshes).  headings in radians.  lid=True adds a lid mesh on the waterplane
    against irregular frequencies.

    cache: True (hydro_cache_dir()), a folder, or False.  The file is named by a SHA-256 of every
    input (mesh files by content) and Capytaine's version; a second call reads it back
    (read_netcdf) bit for bit instead of solving again."""
    specs = [_hull_spec(s, b) for b, s in enumerate(bodies)]
    if not specs:
        raise HydroDataError("compute_hydro_data: no bodies")
    omegas = np.sort(np.asarray(omegas, dtype=float))
    if len(omegas) < 2 or np.any(omegas <= 0.0) or not np.all(np.isfinite(omegas)) or np.any(np.diff(omegas) <= 0.0):
        raise HydroDataError("compute_hydro_data: at least two distinct positive finite frequencies are needed")
    headings = np.asarray(headings, dtype=float).ravel()
    if reference_points is None:
        reference_points = [(s["position"][0], s["position"][1], 0.0) if "position" in s else (0.0, 0.0, 0.0)
                            for s in specs]
    reference_points = np.asarray(reference_points, dtype=float).reshape(-1, 3)
    if len(reference_points) != len(specs):
        raise HydroDataError(f"compute_hydro_data: {len(reference_points)} reference points for {len(specs)} bodies")
    names = list(body_names) if body_names is not None else [s.get("name", f"body{b + 1}") for b, s in enumerate(specs)]
    if len(set(names)) != len(names) or len(names) != len(specs):
        raise HydroDataError(f"compute_hydro_data: the body names must be distinct, one per body: {names}")
    try:
        import capytaine as cpt
    except ImportError:
        raise HydroDataError("compute_hydro_data needs Capytaine: pip install 'mbdae[hydro]'") from None
    key_input = {"format": NETCDF_FORMAT, "capytaine": cpt.__version__, "bodies": specs, "names": names,
                 "omegas": _canonical(omegas), "headings": _canonical(headings), "rho": float(rho).hex(),
                 "g": float(g).hex(), "depth": float(water_depth).hex(), "ref": _canonical(reference_points),
                 "lid": bool(lid)}
    key = hashlib.sha256(json.dumps(key_input, sort_keys=True).encode()).hexdigest()
    cache_path = None
    if cache:
        folder = hydro_cache_dir() if cache is True else Path(cache)
        cache_path = folder / f"capytaine-{key[:24]}.nc"
        if cache_path.exists():
            return read_netcdf(cache_path)
    data = _solve_capytaine(cpt, specs, bodies, names, omegas, headings, float(rho), float(g),
                            float(water_depth), reference_points, lid)
    if cache_path is not None:
        write_hydro_data(data, cache_path, key=key)
        return read_netcdf(cache_path)
    return data


def _solve_capytaine(cpt, specs, originals, names, omegas, headings, rho, g, depth, refs, lid):
    from capytaine.bem.airy_waves import froude_krylov_force
    logger = logging.getLogger("capytaine")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        floating = []
        volume, centre = np.zeros(len(specs)), np.zeros((len(specs), 3))
        C = np.zeros((6 * len(specs), 6 * len(specs)))
        for b, (spec, original, name, ref) in enumerate(zip(specs, originals, names, refs)):
            mesh = _hull_mesh(cpt, spec, original, b)
            body = cpt.FloatingBody(mesh=mesh, dofs=cpt.rigid_body_dofs(rotation_center=tuple(ref)),
                                    center_of_mass=tuple(ref), name=name)
            body = body.immersed_part(water_depth=depth) if math.isfinite(depth) else body.immersed_part()
            if body.mesh.nb_faces == 0:
                raise HydroDataError(f"body {b + 1} ({name}): no wetted panel below z = 0")
            if lid and np.max(body.mesh.vertices[:, 2]) > -1e-9 * max(1.0, float(np.ptp(body.mesh.vertices))):
                body = cpt.FloatingBody(mesh=body.mesh, dofs=body.dofs, lid_mesh=body.mesh.generate_lid(z=0.0),
                                        center_of_mass=tuple(ref), name=name)
            stiffness = np.asarray(body.compute_hydrostatic_stiffness(rho=rho, g=g))
            C[6 * b:6 * b + 6, 6 * b:6 * b + 6] = stiffness
            volume[b] = float(body.disp_volume)
            centre[b] = np.asarray(body.center_of_buoyancy, dtype=float)
            floating.append(body)
        whole = floating[0]
        for body in floating[1:]:
            whole = whole + body
        dof_names = list(DOF_NAMES) if len(floating) == 1 else [f"{nm}__{d}" for nm in names for d in DOF_NAMES]
        missing = [d for d in dof_names if d not in whole.dofs]
        if missing:
            raise HydroDataError(f"compute_hydro_data: Capytaine's dofs lack {missing[:3]} (found {list(whole.dofs)[:6]} …)")
        frequencies = list(omegas) + [np.inf]
        problems = [cpt.RadiationProblem(body=whole, radiating_dof=d, omega=w, rho=rho, g=g, water_depth=depth)
                    for w in frequencies for d in dof_names]
        problems += [cpt.DiffractionProblem(body=whole, wave_direction=float(beta), omega=w, rho=rho, g=g, water_depth=depth)
                     for beta in headings for w in omegas]
        results = cpt.BEMSolver().solve_all(problems, progress_bar=False)
    finally:
        logger.setLevel(level)
    n, nw = len(dof_names), len(omegas)
    A = np.zeros((nw, n, n))
    B = np.zeros((nw, n, n))
    A_inf = np.zeros((n, n))
    X = np.zeros((len(headings), nw, n), dtype=complex)
    index = {d: i for i, d in enumerate(dof_names)}
    for result in results:                   # solve_all sorts the problems: use each result's own
        problem = result.problem
        if isinstance(problem, cpt.RadiationProblem):
            j = index[problem.radiating_dof]
            column = np.array([result.added_mass[d] for d in dof_names])
            if float(problem.omega) == math.inf:
                A_inf[:, j] = column
            else:
                w = int(np.searchsorted(omegas, float(problem.omega)))
                A[w, :, j] = column
                B[w, :, j] = [result.radiation_damping[d] for d in dof_names]
        else:
            w = int(np.searchsorted(omegas, float(problem.omega)))
            h = int(np.nonzero(headings == problem.wave_direction)[0][0])
            fk = froude_krylov_force(problem)
            X[h, w, :] = np.conj([result.forces[d] + fk[d] for d in dof_names])
    return HydroData(omega=omegas, added_mass=A, radiation_damping=B, added_mass_infinite=A_inf,
                     hydrostatic_stiffness=C, headings=headings, excitation=X, reference_points=refs,
                     body_names=tuple(names), displaced_volume=volume, centre_of_buoyancy=centre,
                     rho=rho, g=g, water_depth=depth, source=f"capytaine {cpt.__version__}").check()


# ---------------------------------------------------------------------------- dispatch
def read_hydro_data(path, **options):
    """Hydrodynamic data from what `path` is: a .nc file (write_hydro_data or a Capytaine cache),
    a NEMOH case folder (or its Nemoh.cal), or a WAMIT base name (with or without .1/.3/.hst/
    .out).  Options go to read_wamit or read_nemoh (units, reference points, …)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".nc":
        if options:
            raise HydroDataError(f"{p}: options {sorted(options)} do not apply to a NetCDF file")
        return read_netcdf(p)
    if p.is_dir():
        if _find(p, "Nemoh.cal") is not None:
            return read_nemoh(p, **options)
        raise HydroDataError(f"{p}: a folder without Nemoh.cal (a NEMOH case folder is needed; for WAMIT give the base name)")
    if p.name.lower() == "nemoh.cal":
        return read_nemoh(p.parent, **options)
    if suffix in (".1", ".3", ".hst", ".out"):
        return read_wamit(p.with_suffix(""), **options)
    if Path(str(p) + ".1").exists():
        return read_wamit(p, **options)
    if not p.exists():
        raise HydroDataError(f"{p}: no such file or folder, and no {p.name}.1 (WAMIT) beside it")
    raise HydroDataError(f"{p}: not hydrodynamic data mbdae can read (a WAMIT base name with .1/.3/.hst, "
                         f"a NEMOH case folder with Nemoh.cal, or a .nc file)")
