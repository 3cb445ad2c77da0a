"""Hydrodynamic data files (engine/core/hydro_files.py).

WAMIT and NEMOH readers: files in the real formats are written here from the programs'
documented format rules (WAMIT manual ch. 4 numeric output; NEMOH's Results.f90 / mesh
writers) out of known dimensional values, and read back; single entries are checked against
hand computation; every kind of bad input gives one line naming the file and the record.
The NetCDF file round-trips bit for bit.  Capytaine (skipped when not installed): a floating
hemisphere against Hulme (1982), the Haskind relation, the long-wave limit and the phase
convention, symmetry and energy of a two-body problem, hydrostatics, and the cache."""
import cmath
import math

import numpy as np
import pytest

from mbdae.engine.core.hydro_data import HydroDataError
from mbdae.engine.core.hydro_files import (compute_hydro_data, read_hydro_data, read_nemoh, read_netcdf,
                                           read_wamit, write_hydro_data)
from mbdae.engine.core.hydro_waves import wave_number
from tests.test_hydro_radiation import synthetic

RHO, G = 1025.0, 9.80665


def one_line(excinfo, *parts):
    text = str(excinfo.value)
    assert "\n" not in text, text
    for part in parts:
        assert part in text, text
    return text


# ---------------------------------------------------------------------------- known data
def known_data(n_bodies=2, n_omega=5, n_beta=2, seed=0):
    """Dimensional coefficients with the symmetries of real data (A, B, C symmetric)."""
    rng = np.random.default_rng(seed)
    n = 6 * n_bodies
    omega = np.linspace(0.3, 1.9, n_omega)
    def sym(shape):
        m = rng.uniform(-1, 1, shape)
        return m + np.swapaxes(m, -1, -2)
    scale = np.where(np.arange(n) % 6 < 3, 1.0, 10.0)          # rotations carry lengths
    S = np.outer(scale, scale)
    A = 1e5 * (sym((n_omega, n, n)) * S + 3 * np.eye(n) * S)
    B = 1e4 * (sym((n_omega, n, n)) * S + 3 * np.eye(n) * S)
    A_inf = 1e5 * (sym((n, n)) * S + 3 * np.eye(n) * S)
    C = 1e6 * sym((n, n)) * S
    X = 1e5 * (rng.uniform(-1, 1, (n_beta, n_omega, n)) + 1j * rng.uniform(-1, 1, (n_beta, n_omega, n))) * scale
    headings_deg = np.linspace(0.0, 90.0, n_beta)
    return dict(omega=omega, A=A, B=B, A_inf=A_inf, C=C, X=X, headings_deg=headings_deg)


# ---------------------------------------------------------------------------- WAMIT writer
def wamit_power(i, j=None):
    """The length powers of WAMIT's nondimensional coefficients (manual, 'numeric output'):
    added mass and damping L^k, k = 3 + [i rotational] + [j rotational]; exciting force L^m,
    m = 2 + [i rotational]; hydrostatics L^k, k = 2 + [i rot] + [j rot]; dofs 1-based."""
    rot = lambda d: 1 if (d - 1) % 6 >= 3 else 0
    return rot(i) if j is None else rot(i) + rot(j)


def write_wamit(base, d, ulen, rho, g, header=True, skip_periods=(), extra_periods=()):
    n = d["A"].shape[1]
    periods = 2 * math.pi / d["omega"]
    with open(f"{base}.1", "w") as f:
        if header:
            f.write(" WAMIT Numeric Output -- Filename  test.1\n")
        for per, A in ((-1.0, d["A_inf"] * 1.3), (0.0, d["A_inf"])):          # PER -1: A(0), PER 0: A∞
            for i in range(1, n + 1):
                for j in range(1, n + 1):
                    f.write(f" {per:13.6E} {i:5d} {j:5d} {A[i - 1, j - 1] / (rho * ulen ** (3 + wamit_power(i, j))):13.6E}\n")
        for w in np.argsort(periods)[::-1]:                                    # WAMIT's order: periods decreasing
            for i in range(1, n + 1):
                for j in range(1, n + 1):
                    k = 3 + wamit_power(i, j)
                    a = d["A"][w, i - 1, j - 1] / (rho * ulen ** k)
                    b = d["B"][w, i - 1, j - 1] / (rho * d["omega"][w] * ulen ** k)
                    f.write(f" {periods[w]:13.6E} {i:5d} {j:5d} {a:13.6E} {b:13.6E}\n")
    with open(f"{base}.3", "w") as f:
        if header:
            f.write(" WAMIT Numeric Output -- Filename  test.3\n")
        for w in np.argsort(periods)[::-1]:
            if w in skip_periods:
                continue
            for h, beta in enumerate(d["headings_deg"]):
                for i in range(1, n + 1):
                    x = d["X"][h, w, i - 1] / (rho * g * ulen ** (2 + wamit_power(i)))
                    f.write(f" {periods[w]:13.6E} {beta:13.6E} {i:5d} {abs(x):13.6E} {math.degrees(cmath.phase(x)):13.6E}"
                            f" {x.real:13.6E} {x.imag:13.6E}\n")
        for per in extra_periods:
            f.write(f" {per:13.6E} {0.0:13.6E} {1:5d} 1.0 0.0 1.0 0.0\n")
    with open(f"{base}.hst", "w") as f:
        for i in range(1, n + 1):
            for j in range(1, n + 1):
                f.write(f" {i:5d} {j:5d} {d['C'][i - 1, j - 1] / (rho * g * ulen ** (2 + wamit_power(i, j))):13.6E}\n")


def test_wamit_two_bodies_read_back_in_si_units(tmp_path):
    d = known_data()
    base = tmp_path / "barge"
    write_wamit(base, d, ulen=2.5, rho=RHO, g=G)
    data = read_wamit(base, ulen=2.5, rho=RHO, g=G, water_depth=40.0)
    assert data.n_bodies == 2 and data.water_depth == 40.0
    assert np.allclose(data.omega, d["omega"], rtol=1e-6)                 # periods → ω, sorted
    assert np.all(np.diff(data.omega) > 0)
    assert np.allclose(data.headings, np.radians(d["headings_deg"]), atol=1e-9)
    for got, want in ((data.added_mass, d["A"]), (data.radiation_damping, d["B"]),
                      (data.added_mass_infinite, d["A_inf"]), (data.hydrostatic_stiffness, d["C"]),
                      (data.excitation, d["X"])):
        assert np.allclose(got, want, rtol=2e-6, atol=2e-6 * np.max(np.abs(want)))


def test_wamit_single_entries_by_hand(tmp_path):
    """One body, ULEN = 2, ρ = 1000, g = 9.81, T = 10 s (ω = 0.6283185 rad/s), by hand:
    A15 = 0.75 ρ L⁴ = 12000; B44 = 0.2 ρ ω L⁵ = 4021.24; A∞33 = 1.5 ρ L³ = 12000;
    X5 = (3 + 4i) ρ g L³ = 235440 + 313920i; C35 = 0.1 ρ g L³ = 7848."""
    base = tmp_path / "hand"
    (tmp_path / "hand.1").write_text(" 0.0 3 3 1.5\n 10.0 1 5 0.75 0.0\n 10.0 4 4 0.0 0.2\n"
                                     " 20.0 3 3 1.0 1.0\n")
    (tmp_path / "hand.3").write_text(" 10.0 0.0 5 5.0 53.13 3.0 4.0\n 20.0 0.0 5 1.0 0.0 1.0 0.0\n")
    (tmp_path / "hand.hst").write_text(" 3 5 0.1\n 5 3 0.1\n")
    data = read_hydro_data(base, ulen=2.0, rho=1000.0, g=9.81)
    w = list(np.round(data.omega, 7)).index(round(2 * math.pi / 10, 7))
    assert data.added_mass[w, 0, 4] == pytest.approx(12000.0)
    assert data.radiation_damping[w, 3, 3] == pytest.approx(4021.2386, rel=1e-7)
    assert data.added_mass_infinite[2, 2] == pytest.approx(12000.0)
    assert data.excitation[0, w, 4] == pytest.approx(235440 + 313920j)
    assert data.hydrostatic_stiffness[2, 4] == pytest.approx(7848.0)


def test_wamit_out_file_gives_the_units_and_the_body_origin(tmp_path):
    base = tmp_path / "hand"
    (tmp_path / "hand.1").write_text(" 0.0 3 3 1.5\n 10.0 3 3 1.0 0.2\n 20.0 3 3 1.0 1.0\n")
    (tmp_path / "hand.3").write_text(" 10.0 0.0 3 1.0 0.0 1.0 0.0\n 20.0 0.0 3 1.0 0.0 1.0 0.0\n")
    (tmp_path / "hand.hst").write_text(" 3 3 2.0\n 4 4 0.5\n")
    (tmp_path / "hand.out").write_text(
        " Gravity:     9.81000                Length scale:        2.00000\n"
        " Water depth:       50.00000       Water density:     1000.00000\n"
        " XBODY =    3.0000 YBODY =   -1.0000 ZBODY =    0.0000 PHIBODY =   0.0\n")
    data = read_wamit(base)
    assert (data.g, data.rho, data.water_depth) == (9.81, 1000.0, 50.0)
    assert data.hydrostatic_stiffness[2, 2] == pytest.approx(2.0 * 1000 * 9.81 * 4)
    assert data.reference_points.tolist() == [[3.0, -1.0, 0.0]]
    # WAMIT's gravitational restoring −m g z_g removed on request: C44 + m g z_g
    with_g = read_wamit(base, gravity_terms=[(5000.0, (0.0, 0.0, -2.0))])
    assert with_g.hydrostatic_stiffness[3, 3] == pytest.approx(0.5 * 1000 * 9.81 * 16 + 5000 * 9.81 * -2.0)


def test_wamit_bad_input_names_file_and_line(tmp_path):
    d = known_data(n_bodies=2, n_omega=3, n_beta=1)
    base = tmp_path / "b"
    write_wamit(base, d, 1.0, RHO, G, extra_periods=[7.77])
    with pytest.raises(HydroDataError) as e:                                # a period .1 does not have
        read_wamit(base)
    one_line(e, "b.3:", "period 7.77", "frequency grids differ")
    n_lines = sum(1 for _ in open(f"{base}.3"))
    assert f"b.3:{n_lines}:" in str(e.value)

    write_wamit(base, d, 1.0, RHO, G, skip_periods=[1])                      # a period of .1 missing in .3
    with pytest.raises(HydroDataError) as e:
        read_wamit(base)
    one_line(e, "b.3: no rows for period", "frequency grids differ")

    write_wamit(base, d, 1.0, RHO, G)
    with open(f"{base}.hst", "a") as f:                                     # a third body in .hst
        f.write(" 13 13 1.0\n")
    with pytest.raises(HydroDataError) as e:
        read_wamit(base)
    one_line(e, f"b.hst:{144 + 1}:", "dof index 13 makes 3 bodies", "has 2")

    write_wamit(base, d, 1.0, RHO, G)
    with pytest.raises(HydroDataError) as e:                                # the body count asked for
        read_wamit(base, n_bodies=1)
    one_line(e, "b.1: dof indices up to 12 make 2 bodies, 1 expected")

    lines = open(f"{base}.1").read().splitlines()
    lines[300] = lines[300].replace("E", "X", 1)                             # a non-number
    open(f"{base}.1", "w").write("\n".join(lines) + "\n")
    with pytest.raises(HydroDataError) as e:
        read_wamit(base)
    one_line(e, "b.1:301:", "is not a number")

    lines[300] = " 1.0 1 1 0.5"                                              # a row without its B
    open(f"{base}.1", "w").write("\n".join(lines) + "\n")
    with pytest.raises(HydroDataError) as e:
        read_wamit(base)
    one_line(e, "b.1:301:", "4 columns, expected 5")

    open(f"{base}.1", "w").write(" 10.0 1 1 1.0 1.0\n 12.0 1 1 1.0 1.0\n")
    with pytest.raises(HydroDataError) as e:                                # no A∞ rows
        read_wamit(base)
    one_line(e, "b.1: no zero-period rows", "A∞")

    write_wamit(base, d, 1.0, RHO, G)
    (tmp_path / "b.hst").unlink()
    with pytest.raises(HydroDataError) as e:                                # a missing file
        read_wamit(base)
    one_line(e, "b.hst: no such file")


# ---------------------------------------------------------------------------- NEMOH writer
def box_buoyancy(L, W, T, centre, ref, rho, g):
    """Buoyancy-only restoring of a box (waterplane L × W centred at `centre` (x, y), draft T)
    about `ref`, from its closed-form waterplane moments (Newman, Marine Hydrodynamics §6.16)."""
    xc, yc = centre
    xr, yr, zr = ref
    S, V, zb = L * W, L * W * T, -T / 2
    dx, dy = xc - xr, yc - yr
    C = np.zeros((6, 6))
    C[2, 2] = rho * g * S
    C[2, 3] = C[3, 2] = rho * g * S * dy
    C[2, 4] = C[4, 2] = -rho * g * S * dx
    C[3, 3] = rho * g * (L * W ** 3 / 12 + S * dy ** 2) + rho * g * V * (zb - zr)
    C[4, 4] = rho * g * (W * L ** 3 / 12 + S * dx ** 2) + rho * g * V * (zb - zr)
    C[3, 4] = C[4, 3] = -rho * g * S * dx * dy
    C[3, 5] = -rho * g * V * dx
    C[4, 5] = -rho * g * V * dy
    return C


def nemoh_kh(L, W, T, centre, cog, rho, g):
    """NEMOH's KH (Mesh/hydre.f90 and mesh.f90): waterplane integrals about (XG, YG) and, on roll
    and pitch, ρgV(z_F − z_G) (buoyancy plus gravity of a floating body)."""
    xc, yc = centre
    xg, yg, zg = cog
    S, V, zb = L * W, L * W * T, -T / 2
    dx, dy = xc - xg, yc - yg
    KH = np.zeros((6, 6))
    KH[2, 2] = rho * g * S
    KH[2, 3] = KH[3, 2] = rho * g * S * dy
    KH[2, 4] = KH[4, 2] = -rho * g * S * dx
    KH[3, 3] = rho * g * (L * W ** 3 / 12 + S * dy ** 2) + rho * g * V * (zb - zg)
    KH[4, 4] = rho * g * (W * L ** 3 / 12 + S * dx ** 2) + rho * g * V * (zb - zg)
    KH[3, 4] = KH[4, 3] = -rho * g * S * dx * dy
    return KH


BOXES = [dict(L=6.0, W=3.0, T=1.5, centre=(0.0, 0.0), cog=(0.0, 0.0, -0.4)),
         dict(L=4.0, W=4.0, T=2.0, centre=(12.0, 1.0), cog=(12.0, 1.0, 0.5))]


def write_nemoh(folder, d, version=3, xeff=0.0, depth=30.0, refs=((0, 0, 0), (12, 1, 0)), irf=True,
                hydrostatics=True, drop_last_row=False, rho=RHO, g=G, exc_omega=None):
    n_body = d["A"].shape[1] // 6
    folder.mkdir(parents=True, exist_ok=True)
    cal = ["--- Environment ---", f"{rho}  ! RHO", f"{g}  ! G", f"{depth}  ! DEPTH", f"{xeff} 0.  ! XEFF YEFF",
           "--- Description of floating bodies ---", f"{n_body}  ! Number of bodies"]
    for b in range(n_body):
        x, y, z = refs[b]
        cal += [f"--- Body {b + 1} ---", f"body{b}.dat", "100 90", "6  ! dofs"]
        cal += [f"1 {e[0]} {e[1]} {e[2]} 0. 0. 0." for e in np.eye(3)]
        cal += [f"2 {e[0]} {e[1]} {e[2]} {x} {y} {z}" for e in np.eye(3)]
        cal += ["6  ! forces"] + [f"1 {e[0]} {e[1]} {e[2]} 0. 0. 0." for e in np.eye(3)]
        cal += [f"2 {e[0]} {e[1]} {e[2]} {x} {y} {z}" for e in np.eye(3)] + ["0"]
    nw = len(d["omega"])
    cal += ["--- Load cases to be solved ---",
            (f"1 {nw} {d['omega'][0]} {d['omega'][-1]}  ! Freq type, number, min, max" if version == 3
             else f"{nw} {d['omega'][0]} {d['omega'][-1]}  ! number, min, max (rad/s)"),
            f"{len(d['headings_deg'])} 0. 90.", "--- Post processing ---", "1 0.1 10.", "0", "0 0. 180.", "0 50 400. 400."]
    (folder / "Nemoh.cal").write_text("\n".join(cal) + "\n")
    res = folder / ("results" if version == 3 else "Results")
    res.mkdir(exist_ok=True)
    forces = [(b + 1, k + 1) for b in range(n_body) for k in range(6)]
    # v3 may write periods (output freq type 3), v2 always rad/s
    head, freq = ('VARIABLES="T (s)"', 2 * math.pi / d["omega"]) if version == 3 else ('VARIABLES="w (rad/s)"', d["omega"])
    lines = [head] + [f'"A{b:4d}{k:4d}" "B{b:4d}{k:4d}"' for b, k in forces]
    for j, (b, k) in enumerate(forces):
        lines.append(f'Zone t="Motion of body{b:4d} in DoF{k:4d}",I={nw:6d},F=POINT')
        rows = range(nw - 1) if (drop_last_row and j == 3) else range(nw)
        for w in rows:
            vals = [freq[w]] + [v for i in range(6 * n_body) for v in (d["A"][w, i, j], d["B"][w, i, j])]
            lines.append(" " + " ".join(f"{v:14.7E}" for v in vals))
    (res / "RadiationCoefficients.tec").write_text("\n".join(lines) + "\n")
    k_wave = wave_number(d["omega"], depth if depth > 0 else math.inf, g)
    xw = d["omega"] if exc_omega is None else exc_omega
    lines = [head] + [f'"abs(F{b:4d}{k:4d})" "angle(F{b:4d}{k:4d})"' for b, k in forces]
    for h, beta in enumerate(d["headings_deg"]):
        title = "Excitation force" if version == 3 else "Diffraction force"
        lines.append(f'Zone t="{title} - beta = {beta:7.3f} deg",I={nw:6d},F=POINT')
        for w in range(nw):
            # NEMOH: e^{−iωt}, phase relative to the wave at (XEFF, 0): conj(X) e^{−ik x_eff cos β}
            xn = np.conj(d["X"][h, w]) * np.exp(-1j * k_wave[w] * xeff * math.cos(math.radians(beta)))
            f = 2 * math.pi / xw[w] if version == 3 else xw[w]
            lines.append(" " + " ".join(f"{v:14.7E}" for v in [f] + [u for x in xn for u in (abs(x), cmath.phase(x))]))
    (res / "ExcitationForce.tec").write_text("\n".join(lines) + "\n")
    if irf:
        lines = ['VARIABLES="Time (s)"'] + [f'"AddedMass {k:4d}" "IRF {k:4d}"' for k in range(1, 6 * n_body + 1)]
        for j in range(6 * n_body):
            lines.append(f'Zone t="DoF {j + 1:4d}",I={3:6d},F=POINT')
            for t in (0.0, 0.1, 0.2):
                lines.append(" " + " ".join(f"{v:14.7E}" for v in [t] + [u for i in range(6 * n_body)
                                                                         for u in (d["A_inf"][i, j], 1.0)]))
        (res / "IRF.tec").write_text("\n".join(lines) + "\n")
    mesh = folder / ("Mesh" if version == 2 else "mesh")
    mesh.mkdir(exist_ok=True)
    for b in range(n_body):
        box = BOXES[b]
        KH = nemoh_kh(box["L"], box["W"], box["T"], box["centre"], box["cog"], rho, g)
        name = "KH.dat" if n_body == 1 else f"KH_{b}.dat"
        (mesh / name).write_text("\n".join(" ".join(f"{v:14.7E}" for v in row) for row in KH) + "\n")
        if hydrostatics:
            xg, yg, zg = box["cog"]
            hs = (f" XF = {box['centre'][0]:7.3f} - XG = {xg:7.3f}\n YF = {box['centre'][1]:7.3f} - YG = {yg:7.3f}\n"
                  f" ZF = {-box['T'] / 2:7.3f} - ZG = {zg:7.3f}\n Displacement =  {box['L'] * box['W'] * box['T']:14.7E}\n"
                  f" Waterplane area = {box['L'] * box['W']:14.7E}\n")
            (mesh / ("Hydrostatics.dat" if n_body == 1 else f"Hydrostatics_{b}.dat")).write_text(hs)


@pytest.mark.parametrize("version", [2, 3])
def test_nemoh_two_bodies_read_back(tmp_path, version):
    d = known_data(n_bodies=2)
    folder = tmp_path / f"v{version}"
    write_nemoh(folder, d, version=version, xeff=7.0)
    data = read_hydro_data(folder)
    assert data.n_bodies == 2 and data.rho == RHO and data.water_depth == 30.0
    assert np.allclose(data.omega, d["omega"], rtol=1e-6)
    assert data.reference_points.tolist() == [[0, 0, 0], [12, 1, 0]]
    for got, want in ((data.added_mass, d["A"]), (data.radiation_damping, d["B"]),
                      (data.added_mass_infinite, d["A_inf"])):
        assert np.allclose(got, want, rtol=1e-6, atol=1e-6 * np.max(np.abs(want)))
    assert np.allclose(data.excitation, d["X"], rtol=1e-5, atol=1e-5 * np.max(np.abs(d["X"])))
    for b, box in enumerate(BOXES):                                           # buoyancy only, about the reference
        want = box_buoyancy(box["L"], box["W"], box["T"], box["centre"], data.reference_points[b], RHO, G)
        got = data.hydrostatic_stiffness[6 * b:6 * b + 6, 6 * b:6 * b + 6]
        assert np.allclose(got, want, rtol=1e-6, atol=1e-6 * np.max(np.abs(want)))
        assert data.displaced_volume[b] == pytest.approx(box["L"] * box["W"] * box["T"], rel=1e-6)
    assert np.all(data.hydrostatic_stiffness[:6, 6:] == 0)


def test_nemoh_hand_values(tmp_path):
    """Box 6 × 3 × 1.5 m, G at z = −0.4, reference at the origin: C44 = ρg(LW³/12 + V z_B) =
    1025·9.80665·(13.5 − 20.25) = −67851.5 N m (NEMOH's KH44 = ρg(13.5 + 27·(−0.75 + 0.4))
    = 40709.1 includes the gravity term)."""
    d = known_data(n_bodies=1)
    write_nemoh(tmp_path, d, refs=((0, 0, 0),))
    data = read_nemoh(tmp_path)
    assert data.hydrostatic_stiffness[3, 3] == pytest.approx(1025 * 9.80665 * (13.5 - 20.25), rel=1e-7)
    kh = np.loadtxt(tmp_path / "mesh" / "KH.dat")
    assert kh[3, 3] == pytest.approx(1025 * 9.80665 * (13.5 + 27 * (-0.75 + 0.4)), rel=1e-6)


def test_nemoh_without_hydrostatics_or_irf(tmp_path):
    d = known_data(n_bodies=1)
    write_nemoh(tmp_path, d, refs=((0, 0, 0),), irf=False, hydrostatics=False)
    with pytest.raises(HydroDataError) as e:
        read_nemoh(tmp_path)
    one_line(e, "IRF.tec: no such file", "added_mass_infinite='ogilvie'")
    data = read_nemoh(tmp_path, added_mass_infinite=d["A_inf"])
    kh = np.loadtxt(tmp_path / "mesh" / "KH.dat")
    assert np.array_equal(data.hydrostatic_stiffness, kh) and data.displaced_volume is None


def test_nemoh_infinite_frequency_added_mass_from_ogilvie(tmp_path):
    """Without IRF.tec, A∞ from Ogilvie's relation on data of a kernel known in closed form
    (tests/test_hydro_radiation.py): A∞ = A(ω) + (1/ω)∫K sin ωt dt, averaged over ω."""
    closed = synthetic()
    d = dict(omega=closed.omega, A=closed.added_mass, B=closed.radiation_damping,
             A_inf=closed.added_mass_infinite, X=np.zeros((1, len(closed.omega), 6), complex), headings_deg=[0.0])
    write_nemoh(tmp_path, d, refs=((0, 0, 0),), irf=False, depth=0.0)
    data = read_nemoh(tmp_path, added_mass_infinite="ogilvie")
    assert data.water_depth == math.inf
    for i in (0, 2, 4):
        assert data.added_mass_infinite[i, i] == pytest.approx(closed.added_mass_infinite[i, i], rel=1e-4)


def test_nemoh_bad_input_names_file_and_line(tmp_path):
    d = known_data(n_bodies=2, n_omega=4)
    write_nemoh(tmp_path / "a", d, drop_last_row=True)                         # a zone one row short
    with pytest.raises(HydroDataError) as e:
        read_nemoh(tmp_path / "a")
    text = one_line(e, "RadiationCoefficients.tec:", "announces 4 rows, it has 3")
    zone_line = 1 + 12 + 3 * 5 + 1                                             # header, 12 names, 3 zones of 1 + 4
    assert f"RadiationCoefficients.tec:{zone_line}:" in text

    other = d["omega"].copy()
    other[2] *= 1.1
    write_nemoh(tmp_path / "b", d, exc_omega=other)                            # excitation on another grid
    with pytest.raises(HydroDataError) as e:
        read_nemoh(tmp_path / "b")
    one_line(e, "ExcitationForce.tec:", "frequency grids differ")

    write_nemoh(tmp_path / "c", d)
    kh = tmp_path / "c" / "mesh" / "KH_1.dat"
    rows = kh.read_text().splitlines()
    rows[2] = " ".join(rows[2].split()[:5])                                    # a 6×6 matrix with a short row
    kh.write_text("\n".join(rows) + "\n")
    with pytest.raises(HydroDataError) as e:
        read_nemoh(tmp_path / "c")
    one_line(e, "KH_1.dat:3:", "5 numbers, expected a row of 6")

    write_nemoh(tmp_path / "d", d)
    cal = tmp_path / "d" / "Nemoh.cal"
    text = cal.read_text().replace("2  ! Number of bodies", "3  ! Number of bodies")
    cal.write_text(text)                                                       # body count that does not match
    with pytest.raises(HydroDataError) as e:
        read_nemoh(tmp_path / "d")
    assert "Nemoh.cal:" in one_line(e)

    write_nemoh(tmp_path / "e", d)
    with pytest.raises(HydroDataError) as e:
        read_nemoh(tmp_path / "e", n_bodies=3)
    one_line(e, "Nemoh.cal: 2 bodies, 3 expected")

    write_nemoh(tmp_path / "f", d)
    tec = tmp_path / "f" / "results" / "RadiationCoefficients.tec"
    tec.write_text(tec.read_text().replace('"A   2   6" "B   2   6"', '"A   3   6" "B   3   6"'))
    with pytest.raises(HydroDataError) as e:                                   # a column of a body that is not there
        read_nemoh(tmp_path / "f")
    one_line(e, "RadiationCoefficients.tec:13:", "body 3", "2 bodies")

    with pytest.raises(HydroDataError) as e:
        read_nemoh(tmp_path / "nowhere")
    one_line(e, "no Nemoh.cal")


# ---------------------------------------------------------------------------- NetCDF, dispatch
def test_netcdf_round_trip_is_bit_identical(tmp_path):
    d = known_data(n_bodies=2)
    write_nemoh(tmp_path / "n", d)
    data = read_nemoh(tmp_path / "n", body_names=("float", "plate"))
    path = write_hydro_data(data, tmp_path / "copy.nc")
    back = read_hydro_data(path)
    for name in ("omega", "added_mass", "radiation_damping", "added_mass_infinite", "hydrostatic_stiffness",
                 "headings", "excitation", "reference_points", "displaced_volume", "centre_of_buoyancy"):
        assert np.array_equal(getattr(back, name), getattr(data, name)), name
    assert (back.rho, back.g, back.water_depth, back.body_names) == (data.rho, data.g, data.water_depth, ("float", "plate"))
    (tmp_path / "bad.nc").write_bytes(b"CDF\x01" + b"\0" * 60)
    with pytest.raises(HydroDataError) as e:
        read_netcdf(tmp_path / "bad.nc")
    one_line(e, "bad.nc")


def test_read_hydro_data_tells_the_sources_apart(tmp_path):
    d = known_data(n_bodies=1, n_omega=3, n_beta=1)
    write_wamit(tmp_path / "w", d, 1.0, RHO, G)
    a = read_hydro_data(tmp_path / "w", rho=RHO, g=G)
    b = read_hydro_data(tmp_path / "w.3", rho=RHO, g=G)
    assert np.array_equal(a.added_mass, b.added_mass)
    write_nemoh(tmp_path / "n", d, refs=((0, 0, 0),))
    assert read_hydro_data(tmp_path / "n" / "Nemoh.cal").n_bodies == 1
    with pytest.raises(HydroDataError) as e:
        read_hydro_data(tmp_path / "missing")
    one_line(e, "missing: no such file or folder")
    (tmp_path / "empty").mkdir()
    with pytest.raises(HydroDataError) as e:
        read_hydro_data(tmp_path / "empty")
    one_line(e, "a folder without Nemoh.cal")


# ---------------------------------------------------------------------------- Capytaine
# Hulme (1982), "The wave forces acting on a floating hemisphere undergoing forced periodic
# oscillations", J. Fluid Mech. 121, 443–463, table 1 (heave), as transcribed in
# symbiotic-engineering/MarineHydro.jl test/consistency_with_analytical_solutions.jl:
# μ = A33 / (ρ 2/3 π a³), λ = B33 / (ρ 2/3 π a³ ω) at ka = ω² a / g.
HULME = {0.05: (0.8764, 0.1036), 0.5: (0.5861, 0.3391), 1.0: (0.4284, 0.2484), 2.0: (0.3884, 0.1031)}


def test_compute_without_capytaine_names_the_extra(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "capytaine", None)
    with pytest.raises(HydroDataError) as e:
        compute_hydro_data([{"shape": "cylinder", "radius": 1.0, "draft": 1.0}], [0.5, 1.0], cache=False)
    one_line(e, "needs Capytaine", "mbdae[hydro]")


@pytest.fixture(scope="module")
def hemisphere(tmp_path_factory):
    pytest.importorskip("capytaine")
    a, g = 1.0, 9.81
    omega = np.sqrt(np.array(sorted(HULME)) * g / a)
    cache = tmp_path_factory.mktemp("hemisphere-cache")
    data = compute_hydro_data([{"shape": "hemisphere", "radius": a, "panel_size": 0.2}], omega,
                              headings=[0.0], rho=1000.0, g=g, cache=cache)
    return data, cache


def test_hemisphere_against_hulme(hemisphere):
    """Within 5 % with panels a/5 (Capytaine converges toward Hulme: 2–4 % here, 1–2 % at a/10);
    A∞ within 4 % of 1/2, the heave added mass of a sphere half-immersed with φ = 0 on z = 0."""
    data, _ = hemisphere
    mass = 1000.0 * 2 / 3 * math.pi
    for w, ka in zip(data.omega, sorted(HULME)):
        mu, lam = HULME[ka]
        assert data.added_mass[list(data.omega).index(w), 2, 2] / mass == pytest.approx(mu, rel=0.05), ka
        assert data.radiation_damping[list(data.omega).index(w), 2, 2] / (mass * w) == pytest.approx(lam, rel=0.05), ka
    assert data.added_mass_infinite[2, 2] / mass == pytest.approx(0.5, rel=0.04)


def test_haskind_relation_long_waves_and_phase_convention(hemisphere):
    """Haskind–Newman (deep water): B_ii = k/(8πρ g c_g) ∫|X_i(β)|² dβ, c_g = g/(2ω): heave (X
    independent of β) B33 = kω|X3|²/(2ρg²), surge (X1 ∝ cos β) B11 = kω|X1(0)|²/(4ρg²), from
    the diffraction solution alone.  Long waves: X3 → ρgπa² in phase with the crest; with the
    e^{iωt} convention the surge force on a body in waves travelling to +x leads the crest at
    the origin by 90° (the Froude–Krylov pressure gradient −ρg ∂η/∂x)."""
    data, _ = hemisphere
    rho, g = data.rho, data.g
    k = data.omega ** 2 / g
    X1, X3 = data.excitation[0, :, 0], data.excitation[0, :, 2]
    assert np.allclose(data.radiation_damping[:, 2, 2] / (k * data.omega * abs(X3) ** 2 / (2 * rho * g ** 2)), 1, atol=0.06)
    assert np.allclose(data.radiation_damping[:, 0, 0] / (k * data.omega * abs(X1) ** 2 / (4 * rho * g ** 2)), 1, atol=0.07)
    # ka = 0.05: G. I. Taylor's long-wave force, the pressure field's buoyancy change ρgS η plus
    # the body and its added mass following the vertical fluid acceleration −ω²η
    w0 = data.omega[0]
    long_wave = rho * g * math.pi - w0 ** 2 * (rho * 2 / 3 * math.pi + data.added_mass[0, 2, 2])
    assert abs(X3[0]) == pytest.approx(long_wave, rel=0.02)
    assert 0.0 < math.degrees(cmath.phase(X3[0])) < 3.0
    assert math.degrees(cmath.phase(X1[0])) == pytest.approx(90.0, abs=2.0)
    assert data.displaced_volume[0] == pytest.approx(2 / 3 * math.pi, rel=0.03)
    assert data.centre_of_buoyancy[0, 2] == pytest.approx(-3 / 8, rel=0.02)     # 3a/8 below the waterplane
    assert data.hydrostatic_stiffness[2, 2] == pytest.approx(rho * g * math.pi, rel=0.02)


def test_cache_round_trip_is_bit_identical(hemisphere, tmp_path):
    data, cache = hemisphere
    files = list(cache.glob("capytaine-*.nc"))
    assert len(files) == 1 and data.source.startswith(str(files[0]))
    again = compute_hydro_data([{"shape": "hemisphere", "radius": 1.0, "panel_size": 0.2}], data.omega,
                               headings=[0.0], rho=1000.0, g=9.81, cache=cache)
    direct = read_hydro_data(files[0])
    for name in ("omega", "added_mass", "radiation_damping", "added_mass_infinite", "hydrostatic_stiffness",
                 "excitation", "reference_points", "displaced_volume", "centre_of_buoyancy"):
        assert np.array_equal(getattr(again, name), getattr(data, name)), name
        assert np.array_equal(getattr(direct, name), getattr(data, name)), name
    assert len(list(cache.glob("capytaine-*.nc"))) == 1                        # read back, not solved again
    with pytest.raises(HydroDataError) as e:
        compute_hydro_data([{"shape": "hemisphere", "raduis": 1.0}], data.omega)
    one_line(e, "body 1: unknown hull parameter 'raduis'")


@pytest.fixture(scope="module")
def two_cylinders(tmp_path_factory):
    pytest.importorskip("capytaine")
    return compute_hydro_data([{"shape": "cylinder", "radius": 1.0, "draft": 1.0, "position": (-1.75, 0.0), "panel_size": 0.5},
                               {"shape": "cylinder", "radius": 1.0, "draft": 1.0, "position": (1.75, 0.5), "panel_size": 0.5}],
                              [0.8, 1.6, 2.4], headings=[0.0, math.pi / 4], rho=1025.0, g=9.81, water_depth=20.0,
                              cache=tmp_path_factory.mktemp("two-cache"))


def test_two_bodies_symmetry_energy_and_interaction(two_cylinders):
    data = two_cylinders
    assert data.n_bodies == 2 and data.reference_points.tolist() == [[-1.75, 0, 0], [1.75, 0.5, 0]]
    # reciprocity A_ij = A_ji, B_ij = B_ji (within the BEM's discretization of the interaction
    # terms, 3 % of sqrt|M_ii M_jj| at panels R/2; a dof or body mix-up breaks it by far more)
    for M in list(data.added_mass) + [data.added_mass_infinite] + list(data.radiation_damping):
        d = np.sqrt(np.abs(np.diagonal(M)))
        assert np.all(np.abs(M - M.T) <= 0.03 * np.outer(d, d) + 1e-9 * np.max(np.abs(M)))
    for B in data.radiation_damping:
        assert np.min(np.linalg.eigvalsh(0.5 * (B + B.T))) > -1e-3 * np.max(np.abs(B))   # radiated power ≥ 0
    heave_pair = data.radiation_damping[:, 2, 8]
    assert np.all(np.abs(heave_pair) > 0.02 * np.abs(data.radiation_damping[:, 2, 2]))   # the bodies interact
    assert np.all(data.hydrostatic_stiffness[:6, 6:] == 0)
    assert np.allclose(data.hydrostatic_stiffness[2, 2], data.hydrostatic_stiffness[8, 8], rtol=1e-9)
