"""Kinematic analysis (engine/drivers/kinematic.py; MBDM's mode 0, TN §3): MBDM's slider-crank
(E2) and Haug's spatial slider-crank (E5) against their closed forms and the digest's reference
numbers, against a dynamic run of the same driven system, the reactions against the power
balance, the rank-revealing diagnosis by name, and the deck card `problem: kinematic analysis`."""
import os
import re
import sys

import numpy as np
import pytest

import mbdae
from mbdae import InverseDynamicsProblem, KinematicAnalysis, NotFullyDriven, OverConstrained, initial_value_problem
from mbdae.cli import main
from mbdae.engine.core import rotations as rot
from mbdae.engine.core.drives import ExpressionDrive, LinearDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.drivers import kinematic
from mbdae.engine.drivers.kinematic import SingularConstraints
from mbdae.engine.io.mbdyn.deck import DeckError, parse_deck
from mbdae.engine.model import Model

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "cases"))
import mbdm_slider_crank as sc  # noqa: E402


# ---------------------------------------------------------------- E2: MBDM's slider-crank
@pytest.fixture(scope="module")
def e2():
    return KinematicAnalysis(sc.kinematic_model(), final_time=1.0, time_step=5e-3).run()


def test_slider_crank_closed_form(e2):
    """x3, ẋ3, ẍ3 against x3 = 2 cos φ + √(3.5² − 4 sin²φ) and its derivatives: no
    integration error in kinematic mode, only the Newton tolerance (1e-10 on Φ)."""
    r = e2
    i = r.index(sc.SLIDER)
    x, xd, xdd = sc.slider_closed_form(r.t)
    assert np.max(np.abs(r.x[:, i, 0] - x)) < 1e-9 * np.max(np.abs(x))
    assert np.max(np.abs(r.v[:, i, 0] - xd)) < 1e-9 * np.max(np.abs(xd))
    assert np.max(np.abs(r.a[:, i, 0] - xdd)) < 1e-9 * np.max(np.abs(xdd))
    # MBDM's MATLAB results file at t = 0.1 (digest E2): 3.2021399, −13.755672, 39.003408
    k = int(np.argmin(np.abs(r.t - 0.1)))
    assert abs(r.x[k, i, 0] - 3.2021399) < 1e-7 and abs(r.v[k, i, 0] + 13.755672) < 1e-6
    assert abs(r.a[k, i, 0] - 39.003408) < 1e-5
    # crank: 2π rad/s about z, no angular acceleration
    c = r.index(sc.CRANK)
    np.testing.assert_allclose(r.w[:, c], np.tile([0, 0, 2 * np.pi], (len(r.t), 1)), atol=1e-9)
    np.testing.assert_allclose(r.wd[:, c], 0.0, atol=1e-8)


def test_velocity_and_acceleration_share_one_factorization(e2):
    """Per instant: Newton's factorizations, then one factorization of Φ_q at the solution
    that the acceleration solve (and the reactions' transposed solve) reuse."""
    s = e2.stats
    n = s["instants"]
    assert s["factorizations"] == s["newton_iterations"] + n
    assert s["reused_factorizations"] == 2 * n
    assert s["rank"] == s["coordinates"] == 24


def test_equals_a_dynamic_run_of_the_driven_system():
    """The dynamic run (ms, ρ∞ 0.6, the case's settings) of the same fully driven model at
    the same instants: its positions satisfy Φ(q, t) = 0 only to its own tolerance, and in a
    fully driven system Φ alone fixes q, so the two runs differ by about that violation
    (measured 4.7e-11 here; difference 9.4e-11, i.e. ‖Φ_q⁻¹‖ ≈ 2)."""
    k = KinematicAnalysis(sc.kinematic_model(), final_time=0.25, time_step=1e-3)
    rk = k.run()
    rd = initial_value_problem(sc.kinematic_model(), final_time=0.25, time_step=1e-3, method="ms", rho=0.6,
                               tolerance=1e-6, test="relnorm").run()
    np.testing.assert_allclose(rd.t, rk.t, atol=1e-12)
    violation = max(np.abs(k.rows(k.state(t, x, R))["c"]).max() for t, x, R in zip(rd.t, rd.x, rd.R))
    assert violation < 1e-9
    dx = np.abs(rd.x - rk.x).max()
    dth = np.abs(rot.log_rotvec(rd.R @ np.swapaxes(rk.R, -1, -2))).max()
    assert dx < 10 * violation + 1e-13 and dth < 10 * violation + 1e-13
    # the velocities differ by the dynamic run's integration error (index-3 rows constrain
    # positions only): O((ω h)²) relative, (2π·1e-3)² = 4e-5; measured 1.1e-5
    assert np.abs(rd.v - rk.v).max() < (2 * np.pi * 1e-3) ** 2 * np.abs(rk.v).max()


# ---------------------------------------------------------------- E5: Haug's spatial slider-crank
W5 = -2 * np.pi        # crank speed (RDRV at −2π rad/s about x)


def Rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def e5_pin(t):
    """Crank pin (0, 0.1 + 0.08 cos α, 0.12 + 0.08 sin α), α = π/2 − 2πt, and its two derivatives."""
    a = np.pi / 2 + W5 * t
    z = 0 * t
    p = np.stack([z, 0.1 + 0.08 * np.cos(a), 0.12 + 0.08 * np.sin(a)], -1)
    pd = np.stack([z, -0.08 * np.sin(a) * W5, 0.08 * np.cos(a) * W5], -1)
    pdd = np.stack([z, -0.08 * np.cos(a) * W5 ** 2, -0.08 * np.sin(a) * W5 ** 2], -1)
    return p, pd, pdd


def e5_slider(t):
    """x = √(0.09 − y_p² − z_p²) (rod 0.3 m from the pin to the slider on the x axis), ẋ, ẍ."""
    p, pd, pdd = e5_pin(t)
    x = np.sqrt(0.09 - p[..., 1] ** 2 - p[..., 2] ** 2)
    xd = -(p[..., 1] * pd[..., 1] + p[..., 2] * pd[..., 2]) / x
    xdd = -(pd[..., 1] ** 2 + p[..., 1] * pdd[..., 1] + pd[..., 2] ** 2 + p[..., 2] * pdd[..., 2] + xd ** 2) / x
    return x, xd, xdd


def e5_rod_frame(t):
    """The rod's frame: axis 1 along the rod (pin → slider), axis 2 the cross arm of the
    universal joint, kept horizontal (⟂ the slider's z axis), axis 3 = 1 × 2."""
    p = e5_pin(t)[0]
    s = np.stack([e5_slider(t)[0], 0 * t, 0 * t], -1)
    d = (s - p) / 0.3
    a = np.stack([-d[..., 1], d[..., 0], 0 * t], -1) / np.hypot(d[..., 0], d[..., 1])[..., None]
    return np.stack([d, a, np.cross(d, a)], -1)


def e5_model():
    """Haug's spatial slider-crank (digest E5) with mbdae joints: crank (node 1) turning about
    the global x axis through (0, 0.1, 0.12) (total pin joint with an imposed rotation, MBDM's
    R + RDRV), a spherical hinge at the crank pin (0.08 m from the axis), rod (node 2, 0.3 m)
    and slider (node 3) joined by a universal (cardano) hinge whose arms are the rod's axis 2
    and the slider's z axis (MBDM's RC + DI: it fixes the rod's spin), slider on the x axis
    with its orientation locked (MBDM's T).  18 rows for 3 nodes."""
    m = Model()
    R2 = e5_rod_frame(np.array(0.0))
    m.structural_node(1, "dynamic", position=[0, 0.1, 0.12], orientation=Rx(np.pi / 2))
    m.structural_node(2, "dynamic", position=0.5 * (e5_pin(np.array(0.0))[0] + [0.2, 0, 0]), orientation=R2)
    m.structural_node(3, "dynamic", position=[0.2, 0, 0])
    m.body(1, 1, 0.12, inertia=np.diag([1e-4, 1e-5, 1e-4]))
    m.body(2, 2, 0.5, inertia=np.diag([0.004, 0.0004, 0.004]))
    m.body(3, 3, 2.0, inertia=np.diag([1e-4] * 3))
    m.total_pin_joint(1, 1, position_status=("active",) * 3, orientation_status=("active",) * 3,
                      orientation_drive=VectorDrive.single([1, 0, 0], LinearDrive(0.0, W5)))
    m.spherical_hinge(2, 1, 2, offset1=[0, 0.08, 0], offset2=[-0.15, 0, 0])
    m.cardano_hinge(3, 2, 3, offset1=[0.15, 0, 0], orientation1=Rx(-np.pi / 2), orientation2=Rx(np.pi / 2))
    m.total_pin_joint(4, 3, position_status=("inactive", "active", "active"), orientation_status=("active",) * 3)
    return m


# digest E5 [D] table: t, x, ẋ, ẍ
E5_TABLE = np.array([
    [0.0, 0.200000, -0.251327, 1.57914], [0.1, 0.185101, -0.028154, 2.65508],
    [0.2, 0.195064, 0.214460, 1.90446], [0.3, 0.223419, 0.326289, 0.34370],
    [0.4, 0.255595, 0.297815, -0.82031], [0.5, 0.280000, 0.179520, -1.46864],
    [0.6, 0.290065, 0.017966, -1.69815], [0.7, 0.283461, -0.147581, -1.54965],
    [0.8, 0.261694, -0.278567, -0.99679], [0.9, 0.230372, -0.330422, 0.05120]])


def test_spatial_slider_crank_closed_form():
    """E5: the slider against the closed form and the digest's table; the rod, which turns
    about a moving axis, against its closed-form frame, the angular velocity against the
    frame's derivative (ω× = Ṙ Rᵀ, central differences of the closed form) and its centre's
    velocity and acceleration against (pin + slider)/2."""
    r = KinematicAnalysis(e5_model(), final_time=1.0, time_step=0.01).run()
    t = r.t
    x, xd, xdd = e5_slider(t)
    assert np.abs(r.x[:, 2, 0] - x).max() < 1e-9
    assert np.abs(r.v[:, 2, 0] - xd).max() < 1e-9
    assert np.abs(r.a[:, 2, 0] - xdd).max() < 1e-8
    for tk, xk, vk, ak in E5_TABLE:
        k = int(np.argmin(np.abs(t - tk)))
        assert abs(r.x[k, 2, 0] - xk) < 1e-6 and abs(r.v[k, 2, 0] - vk) < 1e-6 and abs(r.a[k, 2, 0] - ak) < 1e-5
    Rc = e5_rod_frame(t)
    assert np.abs(r.R[:, 1] - Rc).max() < 1e-8
    eps = 1e-6
    Rdot = (e5_rod_frame(t + eps) - e5_rod_frame(t - eps)) / (2 * eps)
    Wx = Rdot @ np.swapaxes(Rc, -1, -2)
    w_ref = np.stack([Wx[:, 2, 1], Wx[:, 0, 2], Wx[:, 1, 0]], -1)
    assert np.abs(r.w[:, 1] - w_ref).max() < 1e-7 * np.abs(w_ref).max()
    # the rod's rotation axis moves: its angular velocity spans all three directions
    assert np.linalg.matrix_rank(r.w[:, 1], tol=1e-3 * np.abs(r.w[:, 1]).max()) == 3
    p, pd, pdd = e5_pin(t)
    s, sd, sdd = (np.stack([q, 0 * t, 0 * t], -1) for q in (x, xd, xdd))
    np.testing.assert_allclose(r.x[:, 1], 0.5 * (p + s), atol=1e-9)
    np.testing.assert_allclose(r.v[:, 1], 0.5 * (pd + sd), atol=1e-9)
    np.testing.assert_allclose(r.a[:, 1], 0.5 * (pdd + sdd), atol=1e-8)


# ---------------------------------------------------------------- diagnosis
def test_not_fully_driven_names_a_free_coordinate():
    """MBDM's E3 mechanism (crank on a revolute pin, no drive): one degree of freedom.  At
    its initial configuration (crank at φ = π, dead centre) the slider x and the rod's x do
    not move to first order, so the valid independent coordinates are the crank's and rod's
    rotation about z and the rod's y (= sin φ); the one named must be among them."""
    with pytest.raises(NotFullyDriven) as info:
        KinematicAnalysis(sc.dynamic_model())
    msg = str(info.value)
    m = re.fullmatch(r"kinematic analysis: the system is not fully driven: 1 free coordinate: (node \d .+)", msg)
    assert m, msg
    assert m.group(1) in ("node 1 rotation z", "node 2 rotation z", "node 2 position y")
    assert not isinstance(info.value, OverConstrained)


def test_free_bodies_are_named():
    m = sc.kinematic_model()
    m.structural_node(9, "dynamic", position=[1.0, 2.0, 3.0])
    with pytest.raises(NotFullyDriven) as info:
        KinematicAnalysis(m)
    names = ", ".join(f"node 9 {k} {a}" for k in ("position", "rotation") for a in "xyz")
    assert str(info.value) == f"kinematic analysis: the system is not fully driven: 6 free coordinates: {names}"
    lone = Model()                      # no joint at all
    lone.structural_node(1, "dynamic")
    with pytest.raises(NotFullyDriven, match="6 free coordinates: node 1 position x, .*node 1 rotation z$"):
        KinematicAnalysis(lone)


def test_over_constrained_names_the_redundant_row():
    """A second joint locking the slider's rotation about z (joint 4 locks it already): one
    redundant row, either of the two equal ones; the pivoted QR keeps the first."""
    m = sc.kinematic_model()
    m.total_pin_joint(7, sc.SLIDER, orientation_status=("inactive", "inactive", "active"))
    with pytest.raises(OverConstrained) as info:
        KinematicAnalysis(m)
    assert str(info.value) == ("kinematic analysis: the system is over-constrained: 1 redundant constraint: "
                               "joint 7 (total pin joint) rotation z")
    assert not isinstance(info.value, NotFullyDriven)


def test_both_at_once():
    """The drive hinge (3 rows) replaced by a second spherical pin at the crank pivot (3 rows
    that repeat joint 1): 24 rows for 24 coordinates, but singular: the crank's 3 rotations
    are free again (the 3-D model tilts out of its plane too) and 3 rows are redundant."""
    m = sc.kinematic_model()
    m.joints = [j for j in m.joints if j.label != 6]
    m.spherical_pin(9, sc.CRANK, absolute_position=[0, 0, 0])
    with pytest.raises(SingularConstraints) as info:
        KinematicAnalysis(m)
    msg = str(info.value)
    assert isinstance(info.value, NotFullyDriven) and isinstance(info.value, OverConstrained)
    found = re.fullmatch(r"kinematic analysis: the system is not fully driven: 3 free coordinates: (.*); and "
                         r"over-constrained: 3 redundant constraints: (.*)", msg)
    assert found, msg
    rows = found.group(2).split(", ")
    assert sorted(r[-1] for r in rows) == ["x", "y", "z"]
    assert all(re.fullmatch(r"joint (1|9) \(spherical pin\) position [xyz]", r) for r in rows), rows


def test_driven_joints_switching_are_diagnosed_again():
    """Driven joints (manual §8.20.2): the crank drive hinge (6) until T1, an identical one
    (7) after: the partition changes at T1, is diagnosed again, and the motion is still the
    closed form; without joint 7 the switch leaves the crank free and the analysis stops at
    the first instant after T1, naming it."""
    T1 = 0.3
    m = sc.kinematic_model()
    m.drive_hinge(7, sc.GROUND, sc.CRANK, VectorDrive.single([0, 0, 1], LinearDrive(0.0, 2 * np.pi)),
                  orientation2=sc.Rz(np.pi / 4).T)
    m.driven(6, ExpressionDrive(f"Time <= {T1}"))
    m.driven(7, ExpressionDrive(f"Time > {T1}"))
    r = KinematicAnalysis(m, final_time=0.6, time_step=1e-2).run()
    x, xd, xdd = sc.slider_closed_form(r.t)
    i = r.index(sc.SLIDER)
    assert np.abs(r.x[:, i, 0] - x).max() < 1e-9 * np.abs(x).max()
    assert np.abs(r.a[:, i, 0] - xdd).max() < 1e-9 * np.abs(xdd).max()
    Mz6, Mz7 = r.joint(6)[1][:, 2], r.joint(7)[1][:, 2]
    assert np.all(Mz6[r.t > T1] == 0) and np.all(Mz7[r.t <= T1] == 0)
    _, dT = kinetic_energy_and_rate(r)       # the drive that is on does all the work
    assert np.abs((Mz6 + Mz7) * 2 * np.pi - dT).max() < 1e-9 * np.abs(dT).max()
    m.joints = [j for j in m.joints if j.label != 7]
    with pytest.raises(NotFullyDriven, match=r"^kinematic analysis at time 0\.31 \(active driven joints \[\]\): "
                                             r"the system is not fully driven: 3 free coordinates"):
        KinematicAnalysis(m, final_time=0.6, time_step=1e-2).run()


def test_large_blocks_take_the_sparse_lu_first(monkeypatch):
    """With the dense limit below the model's size: the fully driven E2 passes on the sparse
    LU alone (no QR); the singular one still gets its names from the dense QR; and past the
    entry limit the analysis stops saying the block is too large, naming nothing."""
    calls = []
    monkeypatch.setattr(kinematic, "DENSE_LIMIT", 10)
    monkeypatch.setattr(kinematic, "pivoted_rank", lambda *a: calls.append(1) or pivoted_rank(*a))
    assert KinematicAnalysis(sc.kinematic_model(), final_time=0.01, time_step=0.01).diagnosis.fully_driven
    assert not calls
    m = sc.kinematic_model()
    m.total_pin_joint(7, sc.SLIDER, orientation_status=("inactive", "inactive", "active"))
    with pytest.raises(OverConstrained, match="1 redundant constraint: joint 7 \\(total pin joint\\) rotation z$"):
        KinematicAnalysis(m)
    assert calls
    monkeypatch.setattr(kinematic, "DENSE_ENTRIES", 100)
    with pytest.raises(ValueError, match="a block of 24 coordinates and 25 rows that is not square: too large"):
        KinematicAnalysis(m)


pivoted_rank = kinematic.pivoted_rank


# ---------------------------------------------------------------- reactions
@pytest.fixture(scope="module")
def reactions():
    t = np.arange(0, 101) * 5e-3
    k = KinematicAnalysis(sc.kinematic_model(), times=t).run()
    inv = InverseDynamicsProblem(sc.kinematic_model(), t).run()
    return k, inv


def test_driving_torque_equals_inverse_dynamics(reactions):
    k, inv = reactions
    _, Mk = k.joint(6)             # the drive hinge: couple on the crank
    _, Mi = inv.joint(6)
    assert np.abs(Mk - Mi).max() < 1e-9 * np.abs(Mi).max()
    assert np.abs(Mk[:, 2]).max() > 1e3


def kinetic_energy_and_rate(r):
    """T = Σ ½(m v² + J ω²) of the E2 bodies (isotropic inertias, centres on the nodes) and
    dT/dt = Σ (m v·a + J ω·ω̇) from the kinematic velocities and accelerations."""
    masses = {sc.CRANK: (200.0, 450.0), sc.ROD: (35.0, 35.0), sc.SLIDER: (25.0, 0.02)}
    T = dT = 0.0
    for node, (mass, J) in masses.items():
        i = r.index(node)
        v, w, a, wd = r.v[:, i], r.w[:, i], r.a[:, i], r.wd[:, i]
        T = T + 0.5 * mass * np.einsum("ti,ti->t", v, v) + 0.5 * J * np.einsum("ti,ti->t", w, w)
        dT = dT + mass * np.einsum("ti,ti->t", v, a) + J * np.einsum("ti,ti->t", w, wd)
    return T, dT


def test_driving_power_is_the_rate_of_kinetic_energy(reactions):
    """No gravity, no other load, and the only joint that moves a loaded point is the drive:
    τ·ω_crank = dT/dt, T = Σ ½(m v² + ωᵀ J ω) (centres of mass on the nodes).  Exactly,
    dT/dt = Σ m v·a + ωᵀ J ω̇ (isotropic J: ω·(ω × Jω) = 0); and by central differences of T
    (error O(h²): (2π h)² ≈ 1e-3 relative at h = 5 ms, checked at 2e-3)."""
    r, _ = reactions
    _, M = r.joint(6)
    power = np.einsum("ti,ti->t", M, r.w[:, r.index(sc.CRANK)])
    T, dT = kinetic_energy_and_rate(r)
    scale = np.abs(power).max()
    assert scale > 1e4
    assert np.abs(power - dT).max() < 1e-9 * scale
    h = r.t[1] - r.t[0]
    fd = (T[2:] - T[:-2]) / (2 * h)
    assert np.abs(fd - power[1:-1]).max() < 2e-3 * scale


def test_reactions_skipped_with_a_note(tmp_path):
    """A load the inverse-dynamics assembly does not handle (a mooring matrix): the
    kinematics run, the reactions are skipped with a note in the log and no .jnt file."""
    m = sc.kinematic_model()
    m.mooring_matrix(20, sc.SLIDER, stiffness=[1e3] * 6)
    prefix = str(tmp_path / "skip")
    r = mbdae.kinematic_analysis(m, final_time=0.1, time_step=1e-2, output_prefix=prefix).run()
    assert r.joint_force is None and r.joint_moment is None
    assert "mooring_matrices" in r.reactions_note
    x, _, _ = sc.slider_closed_form(r.t)
    assert np.abs(r.x[:, r.index(sc.SLIDER), 0] - x).max() < 1e-9
    out = open(prefix + ".out").read()
    assert "# reactions skipped: the inverse-dynamics load assembly does not handle the model's mooring_matrices" in out
    assert os.path.exists(prefix + ".mov") and not os.path.exists(prefix + ".jnt")


# ---------------------------------------------------------------- the deck card
def kinematic_deck(block="    time step: 1e-2;\n    tolerance: 1e-10;\n"):
    """cases/slider_crank.mbd with its problem replaced by a kinematic analysis block."""
    text = open(os.path.join(HERE, "..", "cases", "slider_crank.mbd")).read()
    text = text.replace("problem: initial value;", "problem: kinematic analysis;")
    a, b = text.index("begin: initial value;"), text.index("end: initial value;") + len("end: initial value;")
    block = "begin: kinematic analysis;\n    initial time: 0.;\n    final time: 1.;\n" + block + \
        "    max iterations: 20;\nend: kinematic analysis;"
    text = text[:a] + block + text[b:]
    return text.replace("begin: control data;", "begin: control data;\n    output precision: 14;")


def test_deck_runs_through_the_command(tmp_path, capsys):
    deck = tmp_path / "kin.mbd"
    deck.write_text(kinematic_deck())
    prefix = str(tmp_path / "kin")
    assert main(["run", str(deck), "-o", prefix, "-q"]) == 0
    mov = np.loadtxt(prefix + ".mov")
    times = np.array([float(l.split()[2]) for l in open(prefix + ".out") if l.startswith("Step")])
    assert len(times) == 101 and abs(times[-1] - 1.0) < 1e-12
    slider = mov[mov[:, 0] == sc.SLIDER]
    x, xd, _ = sc.slider_closed_form(times)
    assert np.abs(slider[:, 1] - x).max() < 1e-9 * np.abs(x).max()
    assert np.abs(slider[:, 7] - xd).max() < 1e-9 * np.abs(xd).max()
    assert os.path.exists(prefix + ".jnt")
    capsys.readouterr()
    assert main(["check", str(deck)]) == 0
    report = capsys.readouterr().out
    assert "problem: kinematic analysis, t = 0 .. 1, time step 0.01" in report
    assert "diagnosis: fully driven: Φ_q has rank 24 = 24 coordinates = 24 rows" in report


def test_deck_not_fully_driven_is_one_line(tmp_path, capsys):
    text = kinematic_deck()
    a = text.index("    joint: 6, drive hinge")
    text = text[:a] + text[text.index(";", a) + 1:]
    text = text.replace("joints: 6;", "joints: 5;")
    deck = tmp_path / "free.mbd"
    deck.write_text(text)
    assert main(["check", str(deck), "--deep"]) == 1
    assert "diagnosis: kinematic analysis: the system is not fully driven: 3 free coordinates" in capsys.readouterr().out
    assert main(["run", str(deck), "-o", str(tmp_path / "free"), "-q"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not fully driven: 3 free coordinates: node" in err, err


@pytest.mark.parametrize("card, word, fragment", [
    ("    time stepp: 1e-2;\n", "time stepp", "unknown description 'time stepp' in the kinematic analysis block"),
    ("    time step: 1e-2;\n    method: ms, .6;\n", "method", "a kinematic analysis integrates nothing"),
    ("    time step: 1e-2;\n    tolerance: -1;\n", "-1", "must be positive"),
])
def test_deck_card_errors_are_located(tmp_path, card, word, fragment):
    text = kinematic_deck(card)
    with pytest.raises(DeckError) as info:
        parse_deck(text, "kin.mbd", str(tmp_path), echo=lambda *a: None)
    at = text.index(word, text.index("begin: kinematic analysis;"))
    line = text.count("\n", 0, at) + 1
    col = at - text.rfind("\n", 0, at)
    assert str(info.value).startswith(f"kin.mbd:{line}:{col}: "), str(info.value)
    assert fragment in str(info.value)
