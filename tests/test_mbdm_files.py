"""MBDM's own input files (engine/io/mbdm; seed 000, spec/seed-systems-digest.md §1.4-1.5):
the worked examples E1-E8 run from MBDM-format files (cases/mbdm/ and the technical note's
format tables), checked against closed forms, the digest's reference numbers and MBDM's own
result files (../shared/mbdm-examples); the reader's one-line errors."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.special

from mbdae.engine.drivers.ivp import InitialValueProblem, Settings
from mbdae.engine.drivers.kinematic import NotFullyDriven, diagnose_jacobian
from mbdae.engine.io.mbdm.build import read_mbdm_case, tn_rotation
from mbdae.engine.io.mbdm.output import euler_parameters, tn_angles
from mbdae.engine.io.mbdm.reader import MbdmError, is_mbdm_file
from mbdae.engine.core.rotations import exp_rotvec

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases", "mbdm")
SHARED = os.path.join(HERE, "..", "..", "shared", "mbdm-examples")
sys.path.insert(0, os.path.join(HERE, "..", "cases"))
import mbdm_slider_crank as sc  # noqa: E402


def case(name):
    return os.path.join(CASES, name)


def body_file(directory, case_name, body):
    return np.loadtxt(os.path.join(directory, f"{case_name}_body_{body}.dat"))


def run_case(name, tmp_path, **overrides):
    c = read_mbdm_case(case(name))
    r = c.run(output_prefix=str(tmp_path / "run"), **overrides)
    return c, r


# ---------------------------------------------------------------------- E1
def test_e1_body_on_spring_against_the_closed_form(tmp_path):
    """TN §10.1: m z̈ + k z + m g = 0 from rest at the unstretched length (TN eq. 93), read
    back from MBDM's body file (output every 10 steps) and the line's force file."""
    c, _ = run_case("body_on_spring", tmp_path)
    d = body_file(tmp_path, "TestCase_1", 1)
    assert d.shape == (101, 28)
    t = d[:, 0]
    w = np.sqrt(1e4 / 60.0)
    A = 60 * 9.81 / 1e4
    z, zd, zdd = -A * (1 - np.cos(w * t)), -A * w * np.sin(w * t), -9.81 * np.cos(w * t)
    # ms, ρ∞ = 0.6, h = 1e-3: a second-order phase error (ωh)²/12 · ωt ≈ 2e-4 at t = 1 s (ωh = 0.013)
    assert np.max(np.abs(d[:, 3] - z)) < 4e-4 * A
    assert np.max(np.abs(d[:, 6] - zd)) < 4e-4 * A * w
    assert np.max(np.abs(d[:, 9] - zdd)) < 4e-4 * 9.81
    assert np.max(np.abs(d[:, 1:3])) < 1e-12 and np.max(np.abs(d[:, 10:28])) < 1e-12   # no sway, no rotation
    # the digest's table (t = 0.2: z = -0.108742, ż = -0.403382)
    k = np.argmin(np.abs(t - 0.2))
    assert abs(d[k, 3] + 0.108742) < 2e-5 and abs(d[k, 6] + 0.403382) < 2e-4
    # the line's file: tension k(l - l0) with l = 1.5 - z, pulling up: F_z = -k z (TN eq. 88a)
    m = np.loadtxt(tmp_path / "TestCase_1_mooring_1.dat")
    assert np.allclose(m[:, 0], t)
    assert np.allclose(m[:, 1], -1e4 * d[:, 3], atol=1e-9)
    assert np.allclose(m[:, 4], -1e4 * d[:, 3], atol=1e-9)
    assert np.max(np.abs(m[:, 5:8])) < 1e-9                 # the line passes through the CoG
    # mbdae's usual files are written beside MBDM's
    assert (tmp_path / "run.mov").exists() and (tmp_path / "run.mrt").exists()


# ---------------------------------------------------------------------- E2
def test_e2_slider_crank_kinematic_from_the_mbdm_file(tmp_path):
    """TN §10.2 (Table 26, MBDM's C-code joints R, C, ABY, ABZ, G, RDRV) in kinematic mode: the
    slider's x, ẋ, ẍ of MBDM's body file equal the closed form to the file's 11 digits, and
    MBDM's own result file (its MATLAB version) to its 8."""
    c, r = run_case("slider_crank_2d_kinematic", tmp_path)
    assert c.kinematic and r.stats["rank"] == r.stats["coordinates"] == 24
    d = body_file(tmp_path, "Slider_Crank_2D", 3)
    x, xd, xdd = sc.slider_closed_form(d[:, 0])
    assert len(d) == 1001
    assert np.max(np.abs(d[:, 1] - x)) < 1e-9
    assert np.max(np.abs(d[:, 4] - xd)) < 1e-8
    assert np.max(np.abs(d[:, 7] - xdd)) < 1e-7
    assert np.max(np.abs(d[:, 2:4])) < 1e-9                  # on the x axis
    if os.path.isdir(SHARED):
        ref = np.loadtxt(os.path.join(SHARED, "01_Slider_Crank_2D_Kinematic", "results_x_xp_xpp.dat"))
        k = np.rint(ref[:, 0] / 1e-3).astype(int)
        assert np.allclose(d[k, 0], ref[:, 0])
        for col, ref_col, tol in ((1, 1, 2e-7), (4, 2, 2e-6), (7, 3, 2e-5)):
            assert np.max(np.abs(d[k, col] - ref[:, ref_col])) < tol * np.max(np.abs(ref[:, ref_col]))
    # the crank's angle column (Eangz) turns at 2π rad/s from π/4 (wrapped to (-π, π])
    crank = body_file(tmp_path, "Slider_Crank_2D", 1)
    phi = np.angle(np.exp(1j * (np.pi / 4 + 2 * np.pi * crank[:, 0])))
    assert np.max(np.abs(np.angle(np.exp(1j * (crank[:, 12] - phi))))) < 1e-9
    assert np.allclose(crank[:, 15], 2 * np.pi, atol=1e-9) and np.allclose(crank[:, 24], 2 * np.pi, atol=1e-9)
    assert np.allclose(crank[:, 21], 2 * np.pi * crank[:, 0], atol=1e-9)    # ∫ω dt


def test_kinematic_mode_equals_a_dynamic_run(tmp_path):
    """The same driven system (MBDM's 3-D slider-crank, E5) run dynamically (mode 1) gives the
    kinematic positions to the Newton tolerance: inertia does not move a fully driven system."""
    kin = read_mbdm_case(case("slider_crank_3d_kinematic"))
    rk = kin.run()
    dyn = read_mbdm_case(case("slider_crank_3d_kinematic"))
    s = Settings(initial_time=0.0, final_time=1.0, time_step=0.01, tolerance=1e-10, test="norm",
                 max_iterations=50)
    rd = InitialValueProblem(dyn.model, s).run()
    xd = np.asarray(rd.x)
    assert xd.shape == rk.x.shape
    assert np.max(np.abs(xd - rk.x)) < 1e-8
    Rd = np.asarray(rd.R)
    assert np.max(np.abs(Rd - rk.R)) < 1e-8


# ---------------------------------------------------------------------- E3
E3_REFERENCE = np.array([      # digest §1.4 E3: t, x3, ẋ3, ω_crank (independent 1-DOF model)
    [0.1, 5.2281, 22.466, 17.8754], [0.2, 2.9581, -43.642, 21.2165], [0.3, 2.1882, 40.621, 30.1084],
    [0.4, 5.3591, -18.548, 20.1062], [0.5, 1.7207, -18.444, 27.2827], [0.6, 4.2887, 54.821, 24.6165],
    [0.7, 4.0491, -44.514, 19.3536], [0.8, 1.5775, 11.672, 30.8738], [0.9, 5.4528, 10.081, 18.6280],
    [1.0, 2.3976, -36.982, 23.3212]])


def test_e3_slider_crank_dynamic_from_the_mbdm_file(tmp_path):
    """TN §10.3 (Table 28 with errata 7-9) with the loads of MBDM's calc_FA/calc_MA (gravity
    +x, crank torque, gas force) in `.expert.loads`, at h = 2.5e-4 (the file says 1e-4):
    against the digest's reference table and MBDM's own result file (3D_PLANAR_results.dat)."""
    c, r = run_case("slider_crank_2d_dynamic", tmp_path, time_step=2.5e-4)
    slider = body_file(tmp_path, "Slider_Crank_2D_dynamic", 3)
    crank = body_file(tmp_path, "Slider_Crank_2D_dynamic", 1)
    t = slider[:, 0]
    for tq, x, xd, w in E3_REFERENCE:
        k = int(np.argmin(np.abs(t - tq)))
        got = np.array([slider[k, 1], slider[k, 4], crank[k, 15]])
        assert np.all(np.abs(got - [x, xd, w]) <= 5e-3 * np.abs([x, xd, w])), (tq, got)
    if os.path.isdir(SHARED):
        ref = np.loadtxt(os.path.join(SHARED, "02_Slider_Crank_2D_Dynamic", "3D_PLANAR_results.dat"))
        ref = ref[ref[:, 0] <= 1.0][::50]
        for col, rc in ((1, 1), (4, 2)):
            got = np.interp(ref[:, 0], t, slider[:, col])
            assert np.max(np.abs(got - ref[:, rc])) < 5e-3 * np.ptp(ref[:, rc])
        got = np.interp(ref[:, 0], t, crank[:, 15])
        assert np.max(np.abs(got - ref[:, 3])) < 5e-3 * np.ptp(ref[:, 3])


# ---------------------------------------------------------------------- E4
def test_e4_gyroscopic_wheel_precession_and_nutation(tmp_path):
    """[WEB] "Validation": a wheel spun at 60 rad/s (RDRV) on a rod held by a universal joint
    (rotation about the rod blocked) precesses at Ω ≈ m g L / (I_s ω_s); started without
    precession it nutates: Ω swings between 0 and 2Ω̄ (a cycloid) at the nutation frequency
    I_s ω_s / I_⊥ (I_⊥ about the pivot)."""
    c, r = run_case("gyroscopic_wheel", tmp_path)
    mw, Rw, mr, L, g, ws = 2.0, 0.2, 0.1, 0.1, 9.81, 60.0
    Is = mw * Rw ** 2 / 2
    moment = (mw * L + mr * L / 2) * g
    mean = moment / (Is * ws)
    I_perp = mw * Rw ** 2 / 4 + mw * L ** 2 + mr * L ** 2 / 12 + mr * (L / 2) ** 2
    rod = body_file(tmp_path, "Gyroscopic_Wheel", 2)
    t, omega = rod[:, 0], rod[:, 24]                      # ω_z of the rod, global
    # whole nutation cycles: between the first and last minimum of Ω after 0.1 s
    o = omega - omega[t > 0.1].mean()
    up = np.flatnonzero((o[:-1] < 0) & (o[1:] >= 0))
    period = np.mean(np.diff(t[up]))
    assert abs(period - 2 * np.pi * I_perp / (Is * ws)) < 0.01 * period
    sel = slice(up[0], up[-1])
    assert abs(np.mean(omega[sel]) - mean) < 0.02 * mean
    assert abs(omega[sel].min()) < 0.01 * mean and abs(omega[sel].max() - 2 * mean) < 0.02 * mean
    # the driver's spin: the wheel's angular velocity relative to the rod, about the wheel's axis
    wheel = body_file(tmp_path, "Gyroscopic_Wheel", 3)
    A = np.array([tn_rotation(a) for a in wheel[:, 10:13]])
    rel = np.einsum("kji,kj->ki", A, wheel[:, 22:25] - rod[:, 22:25])
    # (index-3 DAE: the velocities satisfy the constraints' derivative to O(h²), here 2e-4 relative)
    assert np.allclose(rel[:, 0], ws, rtol=5e-4) and np.max(np.abs(rel[:, 1:])) < 5e-4 * ws


# ---------------------------------------------------------------------- E5
def test_e5_spatial_slider_crank_kinematic(tmp_path):
    """Haug's spatial slider-crank (MBDM's MATLAB example 03: R, S, RC, T, DI, G, RDRV) against
    the closed form x = √(0.09 - y_pin² - z_pin²) and the digest's table; its tracer file holds
    the slider's 8 corners as a 2×2×2 zone at x + A s'."""
    c, r = run_case("slider_crank_3d_kinematic", tmp_path)
    d = body_file(tmp_path, "Slider_Crank_3D", 3)
    t = d[:, 0]

    def x_of(t):
        a = np.pi / 2 - 2 * np.pi * t
        y, z = 0.1 + 0.08 * np.cos(a), 0.12 + 0.08 * np.sin(a)
        return np.sqrt(0.09 - y * y - z * z)
    h = 1e-4
    assert np.max(np.abs(d[:, 1] - x_of(t))) < 1e-9
    assert np.max(np.abs(d[:, 4] - (x_of(t + h) - x_of(t - h)) / (2 * h))) < 1e-6
    assert np.max(np.abs(d[:, 7] - (x_of(t + h) - 2 * x_of(t) + x_of(t - h)) / h ** 2)) < 1e-4
    table = {0.0: (0.200000, -0.251327, 1.57914), 0.3: (0.223419, 0.326289, 0.34370),
             0.6: (0.290065, 0.017966, -1.69815), 0.9: (0.230372, -0.330422, 0.05120)}
    for tq, ref in table.items():
        k = int(np.argmin(np.abs(t - tq)))
        assert np.allclose(d[k, [1, 4, 7]], ref, atol=2e-6, rtol=2e-5)
    assert np.max(np.abs(d[:, 2:4])) < 1e-9 and np.max(np.abs(d[:, 10:13])) < 1e-9   # translational joint
    # tracers: the zones of t = 0; the 8 corners in I/J/K order
    text = (tmp_path / "tracers" / "Slider_Crank_3D_tracers.dat").read_text().splitlines()
    k = next(i for i, s in enumerate(text) if s.startswith('ZONE T="group 3'))
    assert "I=2, J=2, K=2" in text[k] and "SOLUTIONTIME=0.0" in text[k]
    pts = np.array([[float(v) for v in s.split()] for s in text[k + 1:k + 9]])
    corners = np.array([[sx * 0.02, sy * 0.01, sz * 0.01] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)])
    assert np.allclose(pts, d[0, 1:4] + corners, atol=1e-9)


# ---------------------------------------------------------------------- E7
@pytest.mark.parametrize("d,phi,free", [(0.5, 0.3, "phi1"), (0.5, 1.4, "phi1"), (2.0, 0.3, "x1"),
                                         (2.0, 1.4, "y1")])
def test_e7_partition_of_the_planar_pendulum(d, phi, free):
    """TN §5.1, eqs. 74-75: Φ_q = [[1, 0, -d cos φ], [0, 1, d sin φ]].  The pivoted QR keeps
    φ independent (free) while its column is the smallest, d ≤ 1 (the TN's bounded-error
    choice, eqs. 76-79); when d|cos φ| > 1 φ becomes a pivot and x is free, when d|sin φ| > 1
    y is: the choice follows the magnitudes, as MBDM's full pivoting does (digest E7)."""
    A = np.array([[1.0, 0.0, -d * np.cos(phi)], [0.0, 1.0, d * np.sin(phi)]])
    D = diagnose_jacobian(A, ["x1", "y1", "phi1"], ["row 1", "row 2"])
    assert D.rank == 2 and D.message().endswith(f"1 free coordinate: {free}")


def test_e7_pendulum_from_an_mbdm_file(tmp_path):
    """The pendulum as an MBDM file (ground G + revolute): not fully driven in kinematic mode
    (one free coordinate of the pendulum named); run dynamically from 60°, its period is the
    exact one, 4√(I_O/(m g d)) K(sin²(θ0/2))."""
    c = read_mbdm_case(case("pendulum"))
    c.data.header.analysis = 0
    with pytest.raises(NotFullyDriven, match=r"1 free coordinate: node 1 (position x|position z|rotation y)$"):
        c.run()
    c, r = run_case("pendulum", tmp_path)
    d = body_file(tmp_path, "Pendulum", 1)
    t, x, z = d[:, 0], d[:, 1], d[:, 3]
    angle = np.arctan2(-x, -z)
    m, g, dd, Iy, th0 = 3.0, 9.81, 1.0, 1.0, np.pi / 3
    period = 4 * np.sqrt((Iy + m * dd * dd) / (m * g * dd)) * scipy.special.ellipk(np.sin(th0 / 2) ** 2)
    zc = np.flatnonzero(np.sign(angle[:-1]) != np.sign(angle[1:]))
    tz = t[zc] + (t[zc + 1] - t[zc]) * angle[zc] / (angle[zc] - angle[zc + 1])
    assert len(tz) >= 2
    assert np.allclose(np.diff(tz), period / 2, rtol=1e-4)
    assert abs(tz[0] - period / 4) < 1e-4 * period
    # the pivot stays at the origin: CoG at distance d
    assert np.allclose(np.hypot(x, z), dd, atol=1e-9)


# ---------------------------------------------------------------------- E8: the TN's format tables
MAIN_ONE_GROUND_BODY = """Name: One_ground_body
Kinematic (0), Dynamic (1): 0
Number of bodies : 1
Number of joints (including drivers): 1
t_start: 0
t_end: 1
dt: 0.001
N-R accuracy: 1e-8
N-R steps: 100
Save output every (n) steps: 10
Save checkpoint every (n) steps: 100
Save tracers every (n) steps: 10

name: ground
angles (1-2-3 notation): 0, 0, 0
r: 0, 0, 0
v: 0, 0, 0
omega: 0, 0, 0
mass: 200
I(1,1-3): 450, 0.0, 0.0
I(2,1-3): 0.0, 450, 0.0
I(3,1-3): 0.0, 0.0, 450

Joint 1
type: G
bodies: 1, 0
p1: 0, 0, 0
q1: 0, 0, 0
r1: 0, 0, 0
p2: 0, 0, 0
q2: 0, 0, 0
r2: 0, 0, 0
dist: 0
"""

TWO_FREE_BODIES = """Test_case
Kinematic (0), Dynamic (1): 1
Number of bodies: 2
Number of joints (including drivers): 0
t_start: 0
t_end: 1
dt: 0.0001
N-R accuracy: 1e-8
N-R steps: 100
Save output every (n) steps: 10
Save checkpoint every (n) steps:     100
Save tracers every (n) steps: 10

Body 1
name: 6dof_body
angles (1-2-3 notation): 0, 0, 0
r: 0, 0, 0
v: 0, 0, 0
omega: 0, 0, 0
mass: 200
I(1,1-3): 450, 0.0, 0.0
I(2,1-3): 0.0, 450, 0.0
I(3,1-3): 0.0, 0.0, 450

Body 2
name: another_6dof_body
angles (1-2-3 notation): 0, 0, 0
r: 10, 0, 0
v: 0, 0, 0
omega: 0, 0, 0
mass: 1
I(1,1-3): 1.0, 0.0, 0.0
I(2,1-3): 0.0, 1.0, 0.0
I(3,1-3): 0.0, 0.0, 1.0
"""

TRACERS_2 = """Number of tracer groups: 1

Tracer group: 1

Body ID: 1

Number of tracers: 2

Tracer(x, y, z in LCS): 0.0, 0.0, -1.0

Tracer(x, y, z in LCS): 0.0, 0.0, 1.0
"""

MOORING_TABLE_6 = """Number of mooring lines: 1

Mooring 1
Fairlead attached to body nr: 1
Anchor location in GCS: 0.0, 0.0, 10.0
Fairlead location in LCS of the body: 0.0, 0.0, 0.0
Correction for mass centre offset: 0, 0, 0
Not stretched length of the line: 10.0
Stiffness coefficient: 4000
Damping coefficient: 40
"""

PARAMETERS_TABLE_7 = """Debug : 1
Timer : 0
Store A matrix : 1
Attempt fix : 0
"""


def write(tmp_path, name, main, **expert):
    path = tmp_path / name
    path.write_text(main)
    for kind, text in expert.items():
        (tmp_path / f"{name}.expert.{kind}").write_text(text)
    return str(path)


def test_e8_table3_grounded_body_stays_put(tmp_path):
    """TN Table 3 (its body has no `Body 1` label line): kinematic, the body stays at r = 0,
    p = (1, 0, 0, 0); with the Table 4 tracers at (0, 0, ∓1)."""
    path = write(tmp_path, "mbdm", MAIN_ONE_GROUND_BODY, tracers=TRACERS_2)
    assert is_mbdm_file(path)
    c = read_mbdm_case(path)
    c.run(output_prefix=str(tmp_path / "out"))
    d = body_file(tmp_path, "One_ground_body", 1)
    assert len(d) == 101 and np.max(np.abs(d[:, 1:])) == 0.0
    text = (tmp_path / "tracers" / "One_ground_body_tracers.dat").read_text()
    assert 'ZONE T="group 1 (body 1)", I=2' in text
    assert text.count("ZONE") == 2 * 101                      # the group and the CoGs, every 10 steps


def test_e8_table9_free_fall_and_table7_outputs(tmp_path):
    """TN Table 9 (bare name line): two free bodies fall freely, z(1) = -g/2, ż(1) = -g; with
    Table 7's `Debug: 1` and `Store A matrix: 1`: DEBUG_state.dat holds q, q̇, q̈ (Euler
    parameters) and the A files the identity."""
    path = write(tmp_path, "mbdm", TWO_FREE_BODIES, parameters=PARAMETERS_TABLE_7)
    c = read_mbdm_case(path)
    assert c.title == "Test_case"
    c.run(output_prefix=str(tmp_path / "out"), time_step=1e-3, output_frequency=1)
    for b, x0 in ((1, 0.0), (2, 10.0)):
        d = body_file(tmp_path, "Test_case", b)
        assert abs(d[-1, 0] - 1.0) < 1e-12
        assert abs(d[-1, 3] + 4.905) < 1e-8 and abs(d[-1, 6] + 9.81) < 1e-8
        assert np.allclose(d[:, 9], -9.81) and np.allclose(d[:, 1], x0)
        a = np.loadtxt(tmp_path / f"Test_case_body_{b}_Amat.dat")
        assert np.allclose(a[:, 1:], np.eye(3).reshape(-1))
    dbg = (tmp_path / "DEBUG_state.dat").read_text().split("\n")
    q = np.array(dbg[1].split(), float).reshape(2, 7)
    assert np.allclose(q, [[0, 0, 0, 1, 0, 0, 0], [10, 0, 0, 1, 0, 0, 0]])


def test_e8_table6_mooring_damped_oscillation(tmp_path):
    """TN Table 6's line (k = 4000, b = 40, l0 = 10, anchor 10 m above) on the 200 kg body: a
    damped oscillator about the static stretch m g / k = 0.4905 m with ω_n = √(k/m) = 4.4721 and
    ζ = b / (2√(k m)) = 0.02236, started from rest at the unstretched length."""
    main = TWO_FREE_BODIES.replace("Number of bodies: 2", "Number of bodies: 1")
    main = main[:main.index("\nBody 2")] + "\n"
    main = main.replace("t_end: 1", "t_end: 2").replace("dt: 0.0001", "dt: 0.001")
    path = write(tmp_path, "mbdm", main, mooring=MOORING_TABLE_6)
    read_mbdm_case(path).run(output_prefix=str(tmp_path / "out"))
    d = body_file(tmp_path, "Test_case", 1)
    t, z = d[:, 0], d[:, 3]
    m, k, b = 200.0, 4000.0, 40.0
    wn, zeta, s = np.sqrt(k / m), b / (2 * np.sqrt(k * m)), m * 9.81 / k
    assert abs(s - 0.4905) < 1e-12 and abs(wn - 4.4721) < 1e-4 and abs(zeta - 0.02236) < 1e-5
    wd = wn * np.sqrt(1 - zeta ** 2)
    ref = -s * (1 - np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta / np.sqrt(1 - zeta ** 2) * np.sin(wd * t)))
    assert np.max(np.abs(z - ref)) < 1e-3 * s


def test_e8_table5_cuboid_tracers(tmp_path):
    """TN Table 5's 8 tracers (its two duplicated lines removed: the 8 distinct corners in
    I/J/K order) on a body turned about z: an ordered 2×2×2 zone of the corners x + A s'."""
    main = MAIN_ONE_GROUND_BODY.replace("angles (1-2-3 notation): 0, 0, 0",
                                        "angles (1-2-3 notation): 0, 0, 0.5")
    main = main.replace("q1: 0, 0, 0\nr1", f"q1: 0, 0, {np.sin(0.25):.17g}\nr1", 1)
    corners = [(sx, sy, sz) for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)]
    tracers = "Number of tracer groups: 1\n\nTracer group: 1\nBody ID: 1\nNumber of tracers: 8\n" + "".join(
        f"Tracer(x, y, z in LCS): {a}, {b}, {c}\n" for a, b, c in corners)
    path = write(tmp_path, "mbdm", main, tracers=tracers)
    read_mbdm_case(path).run(output_prefix=str(tmp_path / "out"))
    text = (tmp_path / "tracers" / "One_ground_body_tracers.dat").read_text().splitlines()
    assert text[2].startswith('ZONE T="group 1 (body 1)", I=2, J=2, K=2')
    pts = np.array([[float(v) for v in s.split()] for s in text[3:11]])
    A = tn_rotation([0, 0, 0.5])
    assert np.allclose(pts, np.array(corners) @ A.T, atol=1e-12)


# ---------------------------------------------------------------------- conventions
def test_angles_and_euler_parameters_conventions():
    """TN eq. 91 (A = Rz Ry Rx) and its inverse; Euler parameters (TN eqs. 1-2) of random
    rotations, and e = (cos χ/2, u sin χ/2) for a known one."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        a = rng.uniform(-1.2, 1.2, 3)
        A = tn_rotation(a)
        Rz = lambda c: np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])    # noqa
        Ry = lambda c: np.array([[np.cos(c), 0, np.sin(c)], [0, 1, 0], [-np.sin(c), 0, np.cos(c)]])    # noqa
        Rx = lambda c: np.array([[1, 0, 0], [0, np.cos(c), -np.sin(c)], [0, np.sin(c), np.cos(c)]])    # noqa
        assert np.allclose(A, Rz(a[2]) @ Ry(a[1]) @ Rx(a[0]))
        assert np.allclose(tn_angles(A), a)
    u = np.array([1.0, 2.0, 2.0]) / 3.0
    chi = 2.5
    e = euler_parameters(exp_rotvec(chi * u))
    assert np.allclose(e, np.concatenate([[np.cos(chi / 2)], u * np.sin(chi / 2)]))
    R = exp_rotvec(rng.normal(size=(50, 3)) * 2.0)
    e = euler_parameters(R)
    assert np.allclose(np.sum(e * e, 1), 1.0) and np.all(e[:, 0] >= 0)
    e0, e1, e2, e3 = e.T
    A = 2 * np.array([[e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2],
                      [e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1],
                      [e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5]]).transpose(2, 0, 1)
    assert np.allclose(A, R)


# ---------------------------------------------------------------------- errors
def _error(tmp_path, main, **expert):
    path = write(tmp_path, "mbdm", main, **expert)
    with pytest.raises(MbdmError) as info:
        read_mbdm_case(path)
    return str(info.value)


@pytest.mark.parametrize("change,where,words", [
    (("p1: 0, 0, 0\nq1", "pl: 0, 0, 0\nq1"), ":27:", ["'pl' is not one of its keys", "missing: 'p1:'"]),
    (("type: G", "type: Q"), ":25:", ["unknown type 'Q'"]),
    (("mass: 200", "mass: heavy"), ":19:", ["'mass': 'heavy' is not a number"]),
    (("mass: 200", "mass: -2"), ":19:", ["'mass' must be positive"]),
    (("bodies: 1, 0", "bodies: 1, 2"), ":26:", ["second body must be 0"]),
    (("Number of joints (including drivers): 1", "Number of joints (including drivers): 2"), ":33:",
     ["declares 2 joints", "the file has 1"]),
    (("r: 0, 0, 0", "r: 0, 0"), ":16:", ["'r' needs 3 numbers"]),
    (("dt: 0.001", "dt: 0"), ":7:", ["'dt' must be positive"]),
    (("r1: 0, 0, 0\np2", "r1: 0, 0, 0\nr1: 0, 0, 0\np2"), ":30:", ["'r1' given twice (also on line 29)"]),
    (("I(2,1-3): 0.0, 450, 0.0", "I(2,1-3): 1.0, 450, 0.0"), ":20:", ["not symmetric"]),
])
def test_reader_errors_name_file_line_and_key(tmp_path, change, where, words):
    msg = _error(tmp_path, MAIN_ONE_GROUND_BODY.replace(*change, 1))
    assert "\n" not in msg and os.path.join(str(tmp_path), "mbdm") + where in msg, msg
    for w in words:
        assert w in msg, msg


def test_reader_refuses_what_does_not_apply(tmp_path):
    """SPH/HMB3 coupling (`.expert.solvers`) and `Attempt fix: 1` are refused by name; a
    distance joint of length 0 (invalid in MBDM) and a load file naming a missing function
    give their line."""
    assert "coupling to HMB3 (CFD) and SPH is not supported" in _error(
        tmp_path, MAIN_ONE_GROUND_BODY, solvers="hmb nproc: 16\n")
    (tmp_path / "mbdm.expert.solvers").unlink()
    msg = _error(tmp_path, MAIN_ONE_GROUND_BODY, parameters=PARAMETERS_TABLE_7.replace("Attempt fix : 0",
                                                                                       "Attempt fix : 1"))
    assert "mbdm.expert.parameters:4:" in msg and "'Attempt fix: 1' is not supported" in msg
    (tmp_path / "mbdm.expert.parameters").unlink()
    two = TWO_FREE_BODIES.replace("Number of joints (including drivers): 0", "Number of joints (including drivers): 1")
    two += "\nJoint 1\ntype: DI\nbodies: 1, 2\np1: 0, 0, 0\nq1: 0, 0, 0\nr1: 0, 0, 0\np2: 0, 0, 0\nq2: 0, 0, 0\n" \
           "r2: 0, 0, 0\ndist: 0\n"
    msg = _error(tmp_path, two)
    assert "mbdm:37:" in msg and "joint 1 (DI): the distance must be positive" in msg
    (tmp_path / "f.py").write_text("def other(t, x, v):\n    return x, None, None\n")
    loads = "Gravity in GCS: 0, 0, -9.81\nNumber of loads: 1\n\nLoad 1\ntype: force function\nbody: 1\n" \
            "function: f.py, gas\n"
    msg = _error(tmp_path, TWO_FREE_BODIES, loads=loads)
    assert "mbdm.expert.loads:4:" in msg and "has no function 'gas'" in msg


def test_mbdae_run_recognizes_an_mbdm_file(tmp_path):
    """`mbdae run FILE` on an MBDM main file (no flag): mbdae's and MBDM's files; `mbdae check`
    describes it; a bad line is one `file:line:col:` error with exit status 1."""
    out = tmp_path / "e1"
    cmd = [sys.executable, "-m", "mbdae"]
    p = subprocess.run(cmd + ["run", case("body_on_spring"), "-o", str(out), "--quiet"], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "e1.mov").exists() and (tmp_path / "TestCase_1_body_1.dat").exists()
    p = subprocess.run(cmd + ["check", case("slider_crank_2d_kinematic")], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and "joints: 8 (R 2, C 1, ABY 1, ABZ 1, G 1, RDRV 2)" in p.stdout
    assert "problem: kinematic analysis" in p.stdout
    bad = tmp_path / "bad"
    bad.write_text(MAIN_ONE_GROUND_BODY.replace("mass: 200", "mass: x"))
    p = subprocess.run(cmd + ["run", str(bad)], capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and p.stderr.strip().count("\n") == 0 and f"{bad}:19:" in p.stderr
