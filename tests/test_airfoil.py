"""Airfoil data (engine/core/airfoil.py): the C81 readers against the files' own numbers,
MBDyn's interpolation by hand arithmetic, steady sectional loads against q c cl / q c cd,
thin-airfoil theory on ThinAirfoil2, Prandtl–Glauert on the built-in NACA 0012, and a few
numbers produced by MBDyn 1.7.3 itself."""
import math
from pathlib import Path

import numpy as np
import pytest

from mbdae.engine.core import airfoil as af

SHARED = Path("/work/shared/mbdyn-tests")
NACA = SHARED / "aero" / "naca0012.c81"
THIN = SHARED / "aero" / "ThinAirfoil2.c81"
need_shared = pytest.mark.skipif(not NACA.exists(), reason="MBDyn test data not present")

RHO, CS = 1.225, 340.0


def section(model, W, vam, alf1=0.0, alf2=0.0):
    ints, floats, starts = af.pack_airfoils([model])
    TNG, OUTA = np.zeros(6), np.zeros(20)
    rc = af.airfoil_loads(ints, floats, starts[0], np.asarray(W, float), np.asarray(vam, float),
                          alf1, alf2, TNG, OUTA)
    return rc, TNG, OUTA


def flow(V, alpha, sweep_v=0.0):
    """Section velocity relative to the air at angle of attack alpha (rad)."""
    return np.array([V * math.cos(alpha), -V * math.sin(alpha), sweep_v, 0.0, 0.0, 0.0])


def lift_drag(TNG, W):
    vx, vy = W[0], W[1]
    vp = math.hypot(vx, vy)
    return TNG[0] * (-vy) / vp + TNG[1] * vx / vp, -(TNG[0] * vx + TNG[1] * vy) / vp


# ----------------------------------------------------------------------------- readers

@need_shared
def test_fixed_format_reproduces_the_file_rows():
    t = af.read_c81(NACA)
    assert t.header == "PROFILO NACA 0012"
    assert (len(t.ml), t.al.shape, len(t.md), t.ad.shape, len(t.mm), t.am.shape) == \
        (11, (39, 12), 11, (65, 12), 9, (47, 10))
    # the file's lines 2-3 and 54-55 (angle 14: 10 values then the continuation line)
    assert np.array_equal(t.ml, [0., .2, .3, .4, .5, .6, .7, .75, .8, .9, 1.])
    row14 = t.al[t.al[:, 0] == 14.0][0]
    assert np.array_equal(row14, [14., 1.333, 1.333, 1.22, 1.096, 1., .97, .97, .84, .805, .73, .73])
    # line 30 has two fields glued together ("-1.161-1.161"): fixed columns still split them
    rowm11 = t.al[t.al[:, 0] == -11.0][0]
    assert np.array_equal(rowm11[:4], [-11., -1.161, -1.161, -1.19])
    assert t.ad[0, 0] == -180.0 and t.ad[0, 1] == 0.022
    assert "CM mach[0]=0.2 > 0" in t.warnings


@need_shared
def test_table_values_at_tabulated_points_and_hand_interpolation():
    t = af.read_c81(NACA)
    # tabulated (alpha, Mach): the table's own numbers
    for alpha, j, value in ((14.0, 2, 1.22), (-11.0, 0, -1.161), (4.0, 7, .627), (10.0, 10, .73)):
        assert af.c81_coef(t.ml, t.al, alpha, t.ml[j]) == pytest.approx(value, abs=1e-15)
    # between rows at Mach 0.3: alpha 14.5 -> (1.22 + 1.09)/2
    assert af.c81_coef(t.ml, t.al, 14.5, 0.3) == pytest.approx(1.155, abs=1e-14)
    # between Mach columns at alpha 14: Mach 0.35 -> (1.22 + 1.096)/2
    assert af.c81_coef(t.ml, t.al, 14.0, 0.35) == pytest.approx(1.158, abs=1e-14)
    # bilinear: alpha 13.25, Mach 0.45 between (13, 14) x (0.4, 0.5)
    c13 = 0.5 * (1.12 + 1.0)
    c14 = 0.5 * (1.096 + 1.0)
    assert af.c81_coef(t.ml, t.al, 13.25, 0.45) == pytest.approx(0.75 * c13 + 0.25 * c14, abs=1e-14)
    # Mach beyond the table: the last column; negative Mach uses |M|; angles wrap by 360
    assert af.c81_coef(t.ml, t.al, 14.0, 1.7) == pytest.approx(.73, abs=1e-15)
    assert af.c81_coef(t.ml, t.al, 14.0, -0.3) == pytest.approx(1.22, abs=1e-15)
    assert af.c81_coef(t.ml, t.al, 14.0 - 360.0, 0.3) == pytest.approx(1.22, abs=1e-15)


@need_shared
def test_free_format_thin_airfoil_is_two_pi_alpha():
    """ThinAirfoil2 tabulates thin-airfoil theory cl = 2π α (to the file's 6 decimals):
    steady loads below stall give it back through interpolation at any angle."""
    t = af.read_c81(THIN, "free format")
    assert t.header == "flotor airfoil" and t.al.shape == (68, 3)
    model = af.AirfoilModel("c81", tables=(t,))
    V, chord = 30.0, 0.7
    for alpha_deg in (-7.3, -2.0, 0.4, 3.3, 8.75, 14.2):
        a = math.radians(alpha_deg)
        W = flow(V, a)
        rc, TNG, OUTA = section(model, W, [RHO, CS, chord, 0.0, 0.0, 0.0])
        assert rc == 0
        assert OUTA[1] == pytest.approx(alpha_deg, abs=1e-12)
        # 6 decimals in the file: |cl - 2πα| <= 5e-7 plus interpolation of rounded rows
        assert OUTA[4] == pytest.approx(2 * math.pi * a, abs=1e-6)
        L, D = lift_drag(TNG, W)
        q = 0.5 * RHO * V * V * chord
        assert L == pytest.approx(q * OUTA[4], rel=1e-13)
        assert D == pytest.approx(q * OUTA[5], abs=1e-12 * q)


@need_shared
def test_symlink_stored_as_text_is_followed():
    """mbdyn-tests/c81/naca0012.c81 is a git symlink checked out as a one-line file holding
    '../aero/naca0012.c81': read as the file it names (MBDyn would follow the link)."""
    a, b = af.read_c81(SHARED / "c81" / "naca0012.c81"), af.read_c81(NACA)
    assert np.array_equal(a.al, b.al) and np.array_equal(a.ad, b.ad) and np.array_equal(a.am, b.am)


@need_shared
def test_default_reader_switches_to_free_format_on_marker(tmp_path):
    text = THIN.read_text()
    p = tmp_path / "ff.c81"
    p.write_text("# FREE FORMAT\n" + text)
    a, b = af.read_c81(p), af.read_c81(THIN, "free format")
    assert np.array_equal(a.al, b.al) and np.array_equal(a.am, b.am)


def _write_fc511(path):
    """A small fc511 file: 3 core angles at 2 Mach numbers plus 1 positive and 2 negative
    extension angles (values the same at every Mach number)."""
    f = lambda *v: "".join(f"{x:10.4f}" for x in v) + "\n"
    blk = ("    3    2\n" + f(-2.0, 0.0, 2.0) + f(0.0, 0.5)
           + f(-0.2, -0.18) + f(0.0, 0.0) + f(0.2, 0.18)
           + "1\n" + f(90.0) + f(1.5)
           + "2\n" + f(-90.0, -45.0) + f(-1.5, -1.0))
    path.write_text("SMALL FC511 TEST AIRFOIL\n" + "CL\n" + blk + "cd\n" + blk + "Cm \n" + blk)


def test_fc511_layout(tmp_path):
    p = tmp_path / "s.fc511"
    _write_fc511(p)
    t = af.read_c81(p, "fc511")
    assert t.header == "SMALL FC511 TEST AIRFOIL"
    assert np.array_equal(t.ml, [0.0, 0.5])
    assert np.array_equal(t.al[:, 0], [-90., -45., -2., 0., 2., 90.])
    assert np.array_equal(t.al[:, 1], [-1.5, -1.0, -0.2, 0.0, 0.2, 1.5])
    assert np.array_equal(t.al[:, 2], [-1.5, -1.0, -0.18, 0.0, 0.18, 1.5])


def test_nrel_layout(tmp_path):
    rows = [(-180.0, 0.0, 0.02, 0.0), (-10.0, -1.0, 0.015, 0.01), (0.0, 0.0, 0.01, 0.0),
            (10.0, 1.0, 0.015, -0.01), (180.0, 0.0, 0.02, 0.0)]
    head = ["AeroDyn airfoil file", "second line", "1   number of airfoil tables"] + [f"skip {k}" for k in range(11)]
    p = tmp_path / "a.dat"
    p.write_text("\n".join(head + [" ".join(f"{v:g}" for v in r) for r in rows]) + "\n")
    t = af.read_c81(p, "nrel")
    assert np.array_equal(t.ml, [0.0])
    assert np.array_equal(t.al, [[r[0], r[1]] for r in rows])
    assert np.array_equal(t.ad[:, 1], [r[2] for r in rows])
    assert np.array_equal(t.am[:, 1], [r[3] for r in rows])
    # one table per file only
    p.write_text("\n".join(head[:2] + ["2 tables"] + head[3:] + ["0 0 0 0"] * 3) + "\n")
    with pytest.raises(af.C81Error, match=r"a\.dat:3: NREL format: can only handle one airfoil"):
        af.read_c81(p, "nrel")


def _small_fixed(tmp_path, cl_rows, name="t.c81"):
    """A fixed-format table, one Mach number, the same angles for cl, cd, cm."""
    n = len(cl_rows)
    lines = [f"{'HAND MADE':<30}" + "".join(f"{k:2d}" for k in (1, n, 1, n, 1, n))]
    for col in range(3):
        lines.append(" " * 7 + f"{0.0:<7g}")
        for a, c in cl_rows:
            v = (c, 0.01 + 0.001 * abs(a), -0.001 * a)[col]
            lines.append(f"{a:<7g}{v:<7.4g}")
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def test_stall_data_by_hand(tmp_path):
    """cl = 0.1 α up to ±10°, then flat: MBDyn's stall angles are the last linear
    angles (10, −10) and the slope between them is 0.1 /deg."""
    rows = [(-180, 0), (-30, -1), (-20, -1), (-10, -1), (-5, -.5), (0, 0), (5, .5), (10, 1), (20, 1),
            (30, 1), (180, 0)]
    t = af.read_c81(_small_fixed(tmp_path, rows))
    assert t.stall[:, 0] == pytest.approx([10.0, -10.0, 0.1], abs=1e-15)


def test_flip(tmp_path):
    """flip: the table of the airfoil turned upside down, cl(α) → −cl(−α), cd(α) → cd(−α),
    cm(α) → −cm(−α) (applied after the stall data, as in MBDyn)."""
    rows = [(-180, 0), (-10, -.6), (0, .2), (10, 1.1), (180, 0)]
    p = _small_fixed(tmp_path, rows)
    t, f = af.read_c81(p), af.read_c81(p, flip=True)
    for a in (-10.0, -3.0, 0.0, 4.0, 10.0):
        assert af.c81_coef(f.ml, f.al, a, 0.0) == pytest.approx(-af.c81_coef(t.ml, t.al, -a, 0.0), abs=1e-15)
        assert af.c81_coef(f.md, f.ad, a, 0.0) == pytest.approx(af.c81_coef(t.md, t.ad, -a, 0.0), abs=1e-15)
        assert af.c81_coef(f.mm, f.am, a, 0.0) == pytest.approx(-af.c81_coef(t.mm, t.am, -a, 0.0), abs=1e-15)


def test_errors_name_file_and_line(tmp_path):
    rows = [(-180, 0), (-10, -1), (0, 0), (10, 1), (180, 0)]
    p = _small_fixed(tmp_path, rows)
    lines = p.read_text().splitlines()
    bad = list(lines)
    bad[3] = bad[3][:7] + "1.x3   "
    p.write_text("\n".join(bad) + "\n")
    with pytest.raises(af.C81Error, match=r"t\.c81:4: cannot read cl table row 2 Mach column 1"):
        af.read_c81(p)
    bad = list(lines)
    bad[4] = "-20    " + bad[4][7:]
    p.write_text("\n".join(bad) + "\n")
    with pytest.raises(af.C81Error, match=r"t\.c81:3: cl angles of attack not strictly increasing"):
        af.read_c81(p)
    p.write_text("\n".join(lines[:5]) + "\n")
    with pytest.raises(af.C81Error, match=r"t\.c81:6: end of file"):
        af.read_c81(p)
    with pytest.raises(af.C81Error, match="unknown c81 file format"):
        af.read_c81(p, "xfoil")
    with pytest.raises(af.C81Error, match=r"nope\.c81:0: unable to open"):
        af.read_c81(tmp_path / "nope.c81")
    # free format: the six counts must be on the header line
    q = tmp_path / "ff.c81"
    q.write_text("name; 1 2 1 2\n1 2\n0.\n")
    with pytest.raises(af.C81Error, match=r"ff\.c81:1: end of line while reading NMM"):
        af.read_c81(q, "free format")


def test_echo_writes_what_the_readers_read(tmp_path):
    rows = [(-180, 0), (-10, -1), (0, 0), (10, 1), (180, 0)]
    t = af.read_c81(_small_fixed(tmp_path, rows))
    for free in (False, True):
        out = tmp_path / f"echo{free}.c81"
        af.write_c81(t, out, free_format=free)
        back = af.read_c81(out)
        assert np.array_equal(back.al, t.al) and np.array_equal(back.ad, t.ad) and np.array_equal(back.am, t.am)


# ------------------------------------------------------------------------ steady loads

@need_shared
@pytest.mark.parametrize("alpha_deg,j", [(4.0, 2), (12.0, 2), (-14.0, 4), (8.0, 8)])
def test_rigid_section_in_steady_flow_gives_the_table_lift_and_drag(alpha_deg, j):
    """Issue 21: lift = q c cl and drag = q c cd with the tabulated cl, cd at a tabulated
    (alpha, Mach), and pitching moment about the force point q c² cm + x_F L_y."""
    t = af.read_c81(NACA)
    model = af.AirfoilModel("c81", tables=(t,))
    mach = t.ml[j]
    V, chord, xf = mach * CS, 0.55, 0.07
    a = math.radians(alpha_deg)
    W = flow(V, a)
    rc, TNG, OUTA = section(model, W, [RHO, CS, chord, xf, 0.0, 0.0])
    row = lambda tab: tab[tab[:, 0] == alpha_deg][0]
    cl, cd, cm = row(t.al)[j + 1], row(t.ad)[t.md.tolist().index(mach) + 1], \
        af.c81_coef(t.mm, t.am, alpha_deg, mach)
    L, D = lift_drag(TNG, W)
    q = 0.5 * RHO * V * V * chord
    assert OUTA[3] == pytest.approx(mach, rel=1e-14)
    assert L == pytest.approx(q * cl, rel=1e-12)
    assert D == pytest.approx(q * cd, rel=1e-12)
    assert TNG[5] == pytest.approx(q * chord * cm + xf * TNG[1], rel=1e-12, abs=1e-12 * q)
    assert TNG[2] == 0.0 and TNG[3] == 0.0


@need_shared
def test_sweep_and_velocity_point():
    """A spanwise velocity component: γ = atan2(−v3, |v1|), Mach from the total speed times
    √cos γ, the spanwise drag −q cd0 v3/vp; the boundary-condition point d34 adds ω3 d34
    to v2 (so a pitch rate changes α)."""
    t = af.read_c81(NACA)
    model = af.AirfoilModel("c81", tables=(t,))
    V, a, vz, chord, d34 = 120.0, math.radians(3.0), 25.0, 0.9, 0.3
    W = flow(V, a, vz)
    W[5] = 4.0
    rc, TNG, OUTA = section(model, W, [RHO, CS, chord, 0.0, d34, 0.0])
    v1, v2 = W[0], W[1] + d34 * W[5]
    assert OUTA[1] == pytest.approx(math.degrees(math.atan2(-v2, v1)), rel=1e-14)
    g = math.atan2(-vz, abs(v1))
    assert OUTA[2] == pytest.approx(math.degrees(g), rel=1e-14)
    assert OUTA[3] == pytest.approx(math.sqrt(v1 * v1 + v2 * v2 + vz * vz) * math.sqrt(math.cos(g)) / CS, rel=1e-14)
    cd0 = af.c81_coef(t.md, t.ad, 0.0, OUTA[3])
    vp = math.hypot(v1, v2)
    assert TNG[2] == pytest.approx(-0.5 * RHO * chord * vp * vp * cd0 * vz / vp, rel=1e-12)


def test_zero_speed_gives_zero_loads():
    model = af.AirfoilModel("naca0012")
    rc, TNG, OUTA = section(model, np.zeros(6), [RHO, CS, 1.0, 0.0, 0.0, 0.0])
    assert rc == 0 and np.all(TNG == 0.0)


# --------------------------------------------------------------- built-in NACA 0012 model

def test_builtin_naca0012_linear_range_prandtl_glauert():
    """Below stall the built-in model is the thin-airfoil slope 5.7296/rad corrected by
    Prandtl–Glauert 1/√(1 − M²), cd = 0.006 + 0.13131 α², cm about c/4 = 0
    (aerod2.f's CPCRCM, the linear branch)."""
    model = af.AirfoilModel("naca0012")
    for mach in (0.1, 0.4, 0.6):
        a = math.radians(2.5)
        V = mach * CS
        W = flow(V, a)
        rc, TNG, OUTA = section(model, W, [RHO, CS, 1.0, 0.0, 0.0, 0.0])
        beta = math.sqrt(1 - mach * mach)
        assert OUTA[4] == pytest.approx(5.7296 * a / beta, rel=1e-12)
        assert OUTA[5] == pytest.approx(0.006 + 0.13131 * a * a, rel=1e-12)
        assert abs(OUTA[6]) < 1e-15
        L, D = lift_drag(TNG, W)
        assert L == pytest.approx(0.5 * RHO * V * V * OUTA[4], rel=1e-12)
        assert D == pytest.approx(0.5 * RHO * V * V * OUTA[5], rel=1e-12)


# MBDyn 1.7.3 numbers: a clamped static node 1000 with `aerodynamic body: 1000, 1000, reference,
# node, null, reference, node, 1, -1.,0.,0., 2, 0.,0.,1., 1., const, CHORD, const, XF, const,
# XV, const, 0., 1, AIRFOIL;` in `air properties: 1.225, 340., single, cos θ cos ψ, sin ψ cos θ,
# sin θ, const, V;` (initial value, final time 2e-3, time step 1e-3; `mbdyn -f deck -o deck`):
# columns 2-7 of the last .aer line (α, γ, Mach, cl, cd, cm) and 8-13 of the clamp's .jnt line
# (global force and moment on the node).  Airfoil frame: axis 1 = −X, 2 = Z, 3 = Y.
MBDYN_ROWS = [
    # airfoil, V, θ [deg], ψ [deg], chord, XF, XV, aer[1:7], jnt[7:13]
    ('naca0012', 100.0, 5.0, 0.0, 1.0, 0.0, 0.0,
     [4.999999862473888, -0.0, 0.29411764705882354, 0.5231408498168953, 0.006999982834804817, 0.0],
     [-236.55597418658454, 0.0, 3195.7814065816783, 0.0, 0.0, 0.0]),
    ('naca0012', 250.0, 30.0, 0.0, 1.0, 0.0, 0.0,
     [29.999999174843325, -0.0, 0.7352941176470589, 1.405374314569379, 0.9445094502876071, -0.18927266997160394],
     [4413.1398579404995, 0.0, 64670.22233278467, 0.0, 7245.594397350462, 0.0]),
    ('naca0012', 120.0, -100.0, 5.0, 0.8, 0.02, 0.0,
     [-99.96270803776747, -4.999999862473888, 0.3522690125482796, 0.2701913294432005, 2.14296055148047, 0.000828402878183393],
     [-738.1054518979945, -0.6407314783190712, -15219.068575855461, 0.0, -309.0564690020906, 0.0]),
    ('naca0012', 200.0, 7.3, 10.0, 1.0, -0.05, 0.25,
     [7.411371417703828, 9.999999724947775, 0.5837498851202686, 0.7057111007947261, 0.05477825506111137, 0.0],
     [-870.5849189101682, 25.319377371876044, 16805.082379109983, 0.0, -840.2541189554995, 0.0]),
    ('rae9671', 100.0, 5.0, 0.0, 1.0, 0.0, 0.0,
     [4.999999862473888, -0.0, 0.29411764705882354, 0.5407296955387562, 0.009252398013741125, -0.008676963746166583],
     [-232.20186391614016, 0.0, 3304.3055394325347, 0.0, 53.146402945270324, 0.0]),
    ('rae9671', 100.0, -3.0, 0.0, 1.0, 0.0, 0.0,
     [-2.999999917484333, -0.0, 0.2941176470588236, -0.30755261171215, 0.008591158913602365, -0.0015829745444968235],
     [-46.039634375470655, 0.0, -1883.9320818897759, 0.0, 9.695719085043024, 0.0]),
    ('c81', 200.0, 7.3, 10.0, 1.0, -0.05, 0.25,
     [7.411371621555253, 10.0, 0.5837498851202685, 0.8581824222320186, 0.03833324673116872, 0.0005166795049229181],
     [-1727.9767136091468, 33.254635629381255, 20348.81665245816, 0.0, -1005.1577269064801, 1.6627317814690628]),
    ('c81 bielawa', 250.0, 30.0, 0.0, 1.0, 0.0, 0.0,
     [29.999999999999996, -0.0, 0.7352941176470589, 0.9655882352941173, 0.5619999999999999, -0.25988235294117645],
     [149.76234742968677, 0.0, 42768.72900519089, 0.0, -9948.621323529427, 0.0]),
    ('c81', 120.0, -100.0, 5.0, 0.8, 0.02, 0.0,
     [-99.96271078726407, -5.0, 0.3522690125482796, 0.20953119842214066, 2.022, 0.5],
     [-1011.9442427395188, -0.8542107919675299, -14304.595746147039, 0.0, 2535.6616111111543, 0.017084215839350603]),
]


def test_against_mbdyn_numbers():
    R = np.array([[-1., 0, 0], [0, 0, 1], [0, 1, 0]]).T
    tables = {}
    for airfoil, V, th, ps, chord, xf, xv, aer, jnt in MBDYN_ROWS:
        if airfoil == "naca0012":
            model = af.AirfoilModel("naca0012")
        elif airfoil == "rae9671":
            model = af.AirfoilModel("rae9671")
        else:
            if not NACA.exists():
                continue
            tables.setdefault("n", af.read_c81(NACA))
            model = af.AirfoilModel("c81", "bielawa" if "bielawa" in airfoil else "steady", tables=(tables["n"],))
        t, p = math.radians(th), math.radians(ps)
        vair = V * np.array([math.cos(t) * math.cos(p), math.sin(p) * math.cos(t), math.sin(t)])
        W = np.zeros(6)
        W[:3] = -R.T @ vair
        rc, TNG, OUTA = section(model, W, [RHO, CS, chord, xf, xv, 0.0])
        ours = np.r_[OUTA[1:7], R @ TNG[:3], R @ TNG[3:]]
        theirs = np.r_[aer, jnt]
        assert np.allclose(ours, theirs, rtol=1e-12, atol=1e-12 * (1 + np.abs(theirs).max()))


# ------------------------------------------------------------- multiple / interpolated

def test_multiple_switches_sharply_at_the_end_points(tmp_path):
    """`c81, multiple, 3, A, -0.5, B, 0.5, C, 1.`: A on [−1, −0.5], B on (−0.5, 0.5],
    C beyond (C81MultipleAeroData::SetSectionData)."""
    tabs = [af.read_c81(_small_fixed(tmp_path, [(-180, 0), (-10, -s), (0, 0), (10, s), (180, 0)], f"{k}.c81"))
            for k, s in (("a", 1.0), ("b", 0.8), ("c", 0.6))]
    m = af.AirfoilModel("c81", tables=tuple(tabs), mode="multiple", bounds=(-0.5, 0.5, 1.0))
    for xi, k in ((-1.0, 0), (-0.7, 0), (-0.5, 0), (-0.49, 1), (0.0, 1), (0.5, 1), (0.51, 2), (1.0, 2)):
        assert m.at(xi).tables[0] is tabs[k]
    with pytest.raises(ValueError, match="not in increasing order"):
        af.AirfoilModel("c81", tables=tuple(tabs), mode="multiple", bounds=(-0.5, -0.6, 1.0))
    with pytest.raises(ValueError, match="resolve multiple"):
        af.pack_airfoils([m])


def test_interpolated_merges_linearly_by_hand(tmp_path):
    """`c81, interpolated, 2, A, -1., B, 1.` at ξ = 0.2: each coefficient is
    0.4 A + 0.6 B (weights (1 − ξ)/2 and (ξ + 1)/2), the stall data recomputed."""
    ta = af.read_c81(_small_fixed(tmp_path, [(-180, 0), (-10, -1.0), (0, 0), (10, 1.0), (180, 0)], "a.c81"))
    tb = af.read_c81(_small_fixed(tmp_path, [(-180, 0), (-10, -0.5), (0, 0), (10, 0.5), (180, 0)], "b.c81"))
    m = af.AirfoilModel("c81", tables=(ta, tb), mode="interpolated", bounds=(-1.0, 1.0))
    t = m.at(0.2).tables[0]
    assert af.c81_coef(t.ml, t.al, 10.0, 0.0) == pytest.approx(0.4 * 1.0 + 0.6 * 0.5, abs=1e-15)
    assert af.c81_coef(t.ml, t.al, 5.0, 0.0) == pytest.approx(0.5 * (0.4 * 1.0 + 0.6 * 0.5), abs=1e-15)
    assert t.stall[2, 0] == pytest.approx((0.4 * 1.0 + 0.6 * 0.5) / 10.0, rel=1e-14)
    # the abscissae MBDyn merges at: Gauss points of each block of [−1, 1]
    g = 1 / math.sqrt(3)
    assert af.interpolated_abscissae(2, 1) == pytest.approx([-g, g], abs=1e-15)
    assert af.interpolated_abscissae(2, 2) == pytest.approx([-0.5 - 0.5 * g, -0.5 + 0.5 * g,
                                                             0.5 - 0.5 * g, 0.5 + 0.5 * g], abs=1e-15)
    assert af.interpolated_abscissae(1, 3) == pytest.approx([-(1 + g) / 2, 0.0, (1 + g) / 2], abs=1e-15)


def test_mbdyn_gauss_table_is_gauss_legendre():
    """MBDyn's 15-digit table against the Gauss–Legendre nodes and weights (roots of P_n):
    equal to the table's 15 decimals; requests beyond 10 points get 10, as in MBDyn."""
    for n in range(1, 11):
        x, w = af.mbdyn_gauss(n)
        X, Wt = np.polynomial.legendre.leggauss(n)
        assert np.abs(x - X).max() < 1e-14 and np.abs(w - Wt).max() < 1e-14
        assert w.sum() == pytest.approx(2.0, abs=1e-14)
    assert len(af.mbdyn_gauss(12)[0]) == 10 and len(af.mbdyn_gauss(0)[0]) == 1


# MBDyn 1.7.3 with a pitch rate and offset force/velocity points: the pitching deck of
# tests/test_airfoil_unsteady.py (MBDYN_PITCH) at 60 rad/s (`sine, 0., 60., 6.*deg2rad, forever,
# 10.*deg2rad`, node angular velocity 360°/s) with `const, 0.05` force point and `const, 0.15`
# velocity point, steady `naca0012` or `c81, 1` (naca0012.c81): θ (.mov column 6) and ω_Y
# (column 12) of MBDyn's node at a step, the .aer columns 2-7 and .jnt columns 8-13 there.
MBDYN_PITCH_RATE = [
    ('naca0012', 8.323507010806471, 6.040026888875342, [7.680436858954664, -0.0, 0.23492316395106083, 0.7901601283430248, 0.008359524041190333, 0.0], [50.95950113497449, 0.0, 1540.8355580090802, 0.0, 76.59910718764782, 0.0]),
    ('naca0012', 15.979427819808286, -0.520145605736048, [16.03313283938848, -0.0, 0.23535739399205916, 0.845773588034112, 0.21009120926814845, 0.0], [409.0013307727627, 0.0, 1659.8247826082793, 0.0, 85.41425132964223, 0.0]),
    ('c81', 8.323507010806471, 6.040026888875342, [7.680437070206795, -0.0, 0.23492316395106083, 0.8223562432426554, 0.01328869931233087, 0.0], [43.99532431413698, 0.0, 1606.3474047880225, 0.0, 79.78978854332235, 0.0]),
    ('c81', 15.979427819808286, -0.520145605736048, [16.033133280383378, -0.0, 0.23535739399205916, 1.0376108079099051, 0.1653049222281712, -0.07495414298523714], [322.26448663626064, 0.0, 2035.1141276446012, 0.0, 28.76519889334972, 0.0]),
]


@need_shared
def test_pitch_rate_and_offset_points_against_mbdyn():
    """The angular velocity enters through the velocity point (v2 + d ω3) and the moment
    through the force point; the built-in model applies the velocity-point shift twice in
    its load formula, as aerod2.f does — both as MBDyn computes them."""
    R0 = lambda th: np.array([[-math.cos(th), math.sin(th), 0.0], [0.0, 0.0, 1.0], [math.sin(th), math.cos(th), 0.0]])
    for airfoil, th_deg, wy, aer, jnt in MBDYN_PITCH_RATE:
        model = af.AirfoilModel("naca0012") if airfoil == "naca0012" else \
            af.AirfoilModel("c81", tables=(af.read_c81(NACA),))
        th = math.radians(th_deg)
        W = np.array([80.0 * math.cos(th), -80.0 * math.sin(th), 0.0, 0.0, 0.0, wy])
        rc, TNG, OUTA = section(model, W, [RHO, 340.0, 0.5, 0.05, 0.15, 0.0])
        R = R0(th)
        ours = np.r_[OUTA[1:7], R @ TNG[:3], R @ TNG[3:]]
        assert ours == pytest.approx(np.r_[aer, jnt], rel=1e-11, abs=1e-10)
