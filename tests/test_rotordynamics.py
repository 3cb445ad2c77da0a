"""The pieces of the rotordynamics decks (shared/mbdyn-tests/solid/rotordynamics, issue 14):
MBDyn's `strategy: change` (time step from a drive), `model::drive`, the `angular velocity`
joint and `rigid body kinematics` applied to bodies, nodes and solids, against closed forms,
finite differences and the same motion written in the inertial frame."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core.constitutive import LinearElastic1D
from mbdae.engine.core.drives import ExpressionDrive, ConstDrive
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from mbdae.solvers.stepcontrol import ChangeStrategy, make_strategy
from mbdae.solvers.integrators import make_method
from mbdae.engine.system import System
from mbdae.engine.checks import jacobian_mismatch
from mbdae.engine.core import rotations as rot
from mbdae.engine.core.drives import LinearDrive, SineDrive
from mbdae.engine.core.rbk import RigidBodyKinematics
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae import initial_value_problem
from samples import SAMPLES, randomize_state, rigid_motion
from mbdae.elements.solid_meshes import box_mesh
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic, hookean_linear_viscoelastic_isotropic
from mbdae.engine.core.state import Context
from mbdae.engine.io.mbdyn import reference as mr
from mbdae.engine.core.mathparser import MathParser
from mbdae.engine.core.privdata import ModelNamespace

DECK = """begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: {final_time};
    time step: {time_step};
    tolerance: 1e-10;
{problem}
end: initial value;
begin: control data;
{control}
end: control data;
begin: nodes;
{nodes}
end: nodes;
begin: elements;
{elements}
end: elements;
"""


def deck(tmp_path, nodes, elements, control, problem="", final_time=1.0, time_step=1e-3):
    path = tmp_path / "deck.mbd"
    path.write_text(DECK.format(nodes=nodes, elements=elements, control=control, problem=problem,
                                final_time=final_time, time_step=time_step))
    return read_deck(str(path), echo=lambda *a: None)


# =========================================================================== strategy: change
K_SPRING, MASS, L0 = 4.0, 1.0, 1.0          # ω = 2 rad/s


def oscillator(x0):
    """A body on a rod spring along x (the axial motion is ẍ = -(k/m) x)."""
    m = Model()
    m.structural_node(1, "static", position=[0.0, 0, 0])
    m.clamp(1, 1)
    m.structural_node(2, "dynamic", position=[L0 + x0, 0, 0])
    m.body(2, 2, MASS, inertia=np.eye(3))
    m.rod(3, 1, 2, LinearElastic1D(K_SPRING * L0), length=L0)
    return m


def step_drive(c):
    """A step that varies by a factor 3 over the run: h(t) = c (1 + 0.5 sin(3 t))."""
    return ExpressionDrive(f"{c} * (1. + 0.5 * sin(3. * Time))")


def run_change(c, final_time=3.0, x0=1e-3):
    h0 = 0.7 * c
    p = InitialValueProblem(oscillator(x0), final_time=final_time, time_step=h0, method="ms", rho=0.6,
                            tolerance=1e-13, max_iterations=8, strategy=("change", step_drive(c)))
    return p, p.run()


def test_change_strategy_steps_follow_the_drive():
    """The first step is `time step`; every later step is the drive at the time just reached
    (MBDyn's ChangeStep evaluates it after the step at the new time), the last one shortened
    to land on the final time."""
    c = 0.02
    p, r = run_change(c)
    t = np.asarray(r.t)
    h = np.diff(t)
    assert np.isclose(h[0], 0.7 * c, rtol=1e-12)
    expect = c * (1 + 0.5 * np.sin(3 * t[1:-2]))
    np.testing.assert_allclose(h[1:-1], expect, rtol=1e-12)
    assert h[-1] <= expect[-1] * (1 + 1e-12) if len(expect) else True
    assert np.isclose(t[-1], 3.0)
    assert h.max() / h.min() > 2.5                 # the step really varies (by 3 over the run)


def test_change_strategy_stays_second_order_accurate():
    """The oscillator's x(t) against x0 cos(ωt) at every step, on the drive-given grid: halving
    the drive halves every step and divides the error by 4 (ms is second order on variable
    steps); the error is that of a fixed step of the same average size."""
    w = np.sqrt(K_SPRING / MASS)
    errs = []
    for c in (0.04, 0.02):
        p, r = run_change(c)
        x = np.asarray(r.x)[:, 1, 0] - L0
        errs.append(np.max(np.abs(x - 1e-3 * np.cos(w * np.asarray(r.t)))))
    order = np.log2(errs[0] / errs[1])
    assert 1.8 < order < 2.3, (errs, order)
    assert errs[1] < 2e-3 * 1e-3                    # 0.2 % of the amplitude over 1 period
    fixed = InitialValueProblem(oscillator(1e-3), final_time=3.0, time_step=0.02, method="ms", rho=0.6,
                                tolerance=1e-13, max_iterations=8).run()
    x = np.asarray(fixed.x)[:, 1, 0] - L0
    e_fixed = np.max(np.abs(x - 1e-3 * np.cos(w * np.asarray(fixed.t))))
    assert errs[1] < 2.0 * e_fixed


def test_change_strategy_rules():
    """Clipping to [min, max] time step; a failed step is retried only when the drive gives a
    smaller step at the failed step's end time; a step that is not positive is an error."""
    s = ChangeStrategy(1e-3, 5e-2, ExpressionDrive("0.1 * Time"))
    assert s.after_step(1e-2, 1e-2, 3, t=0.2) == pytest.approx(0.02)
    assert s.after_step(1e-2, 1e-2, 3, t=5.0) == 5e-2          # clipped to max
    assert s.after_step(1e-2, 1e-2, 3, t=1e-3) == 1e-3          # clipped to min
    assert s.after_failure(0.03, t=0.2) == pytest.approx(0.02)  # smaller: retry
    assert s.after_failure(0.02, t=0.2) is None                  # the same step: give up
    with pytest.raises(ValueError, match="must be positive"):
        ChangeStrategy(0.0, np.inf, ExpressionDrive("-1. + 0. * Time")).after_step(1e-2, 1e-2, 3, t=0.0)
    with pytest.raises(ValueError, match="cannot change the time step"):
        make_strategy(("change", ConstDrive(1e-3)), 0.0, np.inf, make_method("ms3", 0.6))


def test_change_strategy_postponed_drive_from_a_deck(tmp_path):
    """`strategy: change, postponed, 2;` with drive caller 2 defined in the elements block
    through `model::drive` of drive 1 (the rotordynamics decks' pattern): the steps after the
    first are 2π / (360 ω(t))."""
    d = deck(tmp_path, nodes="    structural: 1, static, null, eye, null, null;",
             control="    structural nodes: 1;\n    joints: 1;",
             problem="    strategy: change, postponed, 2;",
             elements="""    drive caller: 1, string, "10. + 20. * Time";
    drive caller: 2, string, "2. * pi / (max(1., 360. * abs(model::drive(1, Time))))";
    joint: 1, clamp, 1, node, node;""", final_time=0.05, time_step=1e-3)
    kind, drive = d.settings["strategy"]
    assert kind == "change"
    assert drive.value(0.5) == pytest.approx(2 * np.pi / (360 * 20.0))
    r = d.run(progress=False)
    t = np.asarray(r.t)
    h = np.diff(t)
    assert h[0] == pytest.approx(1e-3)
    np.testing.assert_allclose(h[1:-1], 2 * np.pi / (360 * (10 + 20 * t[1:-2])), rtol=1e-12)


def test_model_drive_function(tmp_path):
    """`model::drive(label, t)` (manual §2.2.1): drive `label` at t, and its time derivative
    through the argument (chain rule)."""
    d = deck(tmp_path, nodes="    structural: 1, static, null, eye, null, null;",
             control="    structural nodes: 1;\n    joints: 1;",
             problem="    strategy: change, postponed, 2;",
             elements="""    drive caller: 1, string, "3. * Time^2";
    drive caller: 2, string, "1e-3 * (model::drive(1, 2. * Time) + 1.)";
    joint: 1, clamp, 1, node, node;""")
    drive = d.settings["strategy"][1]
    assert drive.value(0.5) == pytest.approx(1e-3 * (3.0 * 1.0 + 1.0))
    assert drive.derivative(0.5) == pytest.approx(1e-3 * 24.0 * 0.5)


# =========================================================================== angular velocity joint

J_SPIN = np.diag([1.0, 1.0, 2.0])          # axisymmetric about the node's axis 3


def spinning_body(w_drive, w_init, tilt=0.0):
    """A free axisymmetric body whose angular velocity about its own axis 3 is imposed (its
    position held by a spherical pin at its centre of mass); the axis starts tilted by `tilt`
    about x, with angular velocity w_init (global)."""
    m = Model()
    m.structural_node(1, "dynamic", orientation=rot.exp_rotvec(np.array([tilt, 0.0, 0.0])),
                      angular_velocity=w_init)
    m.body(1, 1, 3.0, inertia=J_SPIN)
    m.spherical_pin(2, 1)
    m.angular_velocity(3, 1, [0.0, 0.0, 1.0], w_drive)
    return m


def test_angular_velocity_joint_jacobian_in_every_phase():
    """FD Jacobian of the angular velocity joints' rows in the initial assembly (position:
    λ held at 0; velocity: the row itself) and the derivatives phase (divided by dCoef); the
    regular steps are covered by the generated checks (tests/test_element_checks.py)."""
    rng = np.random.default_rng(4)
    system = System(SAMPLES["angular velocity"][0](rng))
    for mode, dcoef, g_scale in (("ia_position", 1.0, 0.2), ("ia_velocity", 0.0, 0.0), ("derivatives", 1e-3, 0.2)):
        st = randomize_state(system, rng, g_scale=g_scale)
        ia = tuple(rng.normal(size=(system.nodes.n, 3)) for _ in range(3)) if mode.startswith("ia") else None
        err, scale, r, c, Ja, Jf = jacobian_mismatch(system, st, dcoef, mode=mode, ia=ia, eps=1e-6)
        assert err <= 1e-6 * max(scale, 1.0), (mode, system.owner_text(r), c, Ja[r, c], Jf[r, c])


def test_angular_velocity_joint_objectivity():
    """Under a rigid rotation Q of the whole system the couple rotates by Q and the row is
    unchanged; a superimposed angular velocity w0 changes the row by exactly d·w0 (it
    imposes an absolute angular velocity)."""
    rng = np.random.default_rng(8)
    system = System(SAMPLES["angular velocity"][0](rng))
    fam = next(f for f in system.families if f.name == "angular velocity")
    st = randomize_state(system, rng)
    nodes = system.nodes
    st.y[nodes.ig_rot] = 0.0

    def blocks(s):
        ctx = Context(s.t, s.y, s.yp, system.kinematics(s, 0.5), "regular", s.t, s.families)
        m_rows, c_rows = fam.residual_blocks(ctx)
        return m_rows, c_rows[:, 0], rot.matvec(ctx.kin.R[fam.node], fam.d_local)
    m0, c0, d0 = blocks(st)
    Q = rot.exp_rotvec(rng.normal(size=3))
    m1, c1, _ = blocks(rigid_motion(st, nodes, Q, rng.normal(size=3), np.zeros(3), np.zeros(3)))
    np.testing.assert_allclose(m1, rot.matvec(Q, m0), atol=1e-12 * np.abs(m0).max())
    np.testing.assert_allclose(c1, c0, atol=1e-12)
    w0 = rng.normal(size=3)
    _, c2, _ = blocks(rigid_motion(st, nodes, np.eye(3), np.zeros(3), np.zeros(3), w0))
    np.testing.assert_allclose(c2 - c0, d0 @ w0, atol=1e-12)


@pytest.mark.parametrize("tilt", [0.0, 0.4])
def test_angular_velocity_joint_spins_the_body_as_imposed(tmp_path, tilt):
    """The body's angular velocity about its own axis 3 equals the drive w(t) = 2 + 3 sin(2t)
    at every step (to the Newton tolerance), and the couple the joint applies along that axis
    is J₃ ẇ (Euler's third equation of an axisymmetric body: no gyroscopic term).  Tilted
    and with a transverse angular velocity, the axis precesses (the direction follows the
    node) and |ω⊥| stays constant (Euler's equations); the .jnt row is MBDyn's."""
    w = SineDrive(0.0, 2.0, 3.0, "forever", 2.0)
    R0 = rot.exp_rotvec(np.array([tilt, 0.0, 0.0]))
    w_init = R0 @ np.array([0.5 if tilt else 0.0, 0.0, 2.0])
    prefix = str(tmp_path / "spin")
    p = initial_value_problem(spinning_body(w, w_init, tilt), final_time=1.0, time_step=1e-3, tolerance=1e-10,
                              output_prefix=prefix, output_precision=16, progress=False)
    r = p.run()
    t = np.asarray(r.t)
    R = np.asarray(r.R)[:, 0]
    wg = np.asarray(r.w)[:, 0]
    w_body = np.einsum("tji,tj->ti", R, wg)                  # Rᵀ ω
    np.testing.assert_allclose(w_body[:, 2], 2.0 + 3.0 * np.sin(2.0 * t), rtol=0, atol=1e-8)
    perp = np.linalg.norm(w_body[:, :2], axis=1)
    np.testing.assert_allclose(perp, perp[0], rtol=2e-5, atol=1e-12)      # the integrator's O(h²) drift
    assert perp[0] == pytest.approx(0.5 if tilt else 0.0)
    rows = np.array([b[3] for b in mr.blocks(mr.read_lines(prefix + ".jnt"))])
    mu, d, wj = rows[:, 3], rows[:, 12:15], rows[:, 15]
    np.testing.assert_allclose(rows[:, [0, 1, 2, 4, 5, 6, 7, 8]], 0.0, atol=0)
    np.testing.assert_allclose(rows[:, 9:12], mu[:, None] * d, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(d, R[:, :, 2], atol=1e-12)
    np.testing.assert_allclose(wj, 2.0 + 3.0 * np.sin(2.0 * t), atol=1e-12)
    # couple on the body along d: J₃ ẇ = -μ (μ is what the node applies to the ground);
    # the step's ẇ is second order, so compare away from t0 with the exact rate
    np.testing.assert_allclose(-mu[5:], J_SPIN[2, 2] * 6.0 * np.cos(2.0 * t[5:]), rtol=0, atol=2e-4 * 12)


def test_angular_velocity_joint_deck_card(tmp_path):
    """`joint: l, angular velocity, node, direction (node frame, normalized), drive`; an
    output flag, the private datum "w" (the imposed value), a null direction refused."""
    nodes = "    structural: 1, dynamic, null, euler123, 0.3, 0., 0., null, 0., 0., 4.;"
    elements = """    body: 1, 1, 2., null, diag, 1., 1., 2.;
    joint: 2, spherical pin, 1, null, position, null;
    joint: 3, angular velocity, 1, 0., 0., 2., linear, 4., 1., output, no;"""
    d = deck(tmp_path, nodes, elements, "    structural nodes: 1;\n    rigid bodies: 1;\n    joints: 2;",
             final_time=0.01)
    s = d.model.angular_velocity_joints[0]
    np.testing.assert_allclose(s.direction, [0.0, 0.0, 1.0], atol=1e-15)
    assert s.drive.value(2.0) == pytest.approx(6.0) and s.output is False
    system = System(d.model)
    fam = next(f for f in system.families if f.name == "angular velocity")
    st = system.initial_state(2.0)
    assert fam.private_data_names(0) == ("w",)
    assert fam.private_data(system.context(st), "w")[0] == pytest.approx(6.0)
    with pytest.raises(DeckError, match="angular velocity: the direction is null"):
        deck(tmp_path, nodes, elements.replace("0., 0., 2., linear", "null, linear"),
             "    structural nodes: 1;\n    rigid bodies: 1;\n    joints: 2;")


# =========================================================================== rigid body kinematics
def rotz(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def spin_frame(w0, alpha):
    """Rigid body kinematics of a frame spinning about z at ω(t) = w0 + α t (the decks' ramp)."""
    return RigidBodyKinematics("drive", {
        "angular_velocity": VectorDrive.single([0.0, 0.0, 1.0], LinearDrive(w0, alpha)),
        "angular_acceleration": VectorDrive.constant([0.0, 0.0, alpha])})


@pytest.mark.parametrize("kind", ["const", "drive"])
def test_body_at_rest_in_the_moving_frame_needs_the_rigid_motion_loads(kind):
    """A body clamped in a moving frame moves rigidly with it: the clamp supplies the force
    m(a₀ + ω̇₀×c + ω₀×ω₀×c) (c its centre of mass) and, about the node, the couple
    J_cm ω̇₀ + ω₀×J_cm ω₀ + (c - x)×F (Newton-Euler of a rigid body, computed here
    independently of the frame loads of elements/body.py)."""
    rng = np.random.default_rng(11)
    x, b = np.array([0.8, -0.3, 0.5]), np.array([0.2, 0.1, -0.4])
    R = rot.exp_rotvec(np.array([0.3, -0.2, 0.5]))
    Jcg = np.array([[2.0, 0.1, -0.2], [0.1, 1.5, 0.3], [-0.2, 0.3, 1.0]])
    mass = 1.7
    m = Model()
    m.structural_node(1, "dynamic", position=x, orientation=R)
    m.body(1, 1, mass, center_of_mass=b, inertia=Jcg)
    m.clamp(2, 1)
    w0, wp0, a0 = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    if kind == "const":
        m.rigid_body_kinematics = RigidBodyKinematics.constant(angular_velocity=w0, angular_acceleration=wp0,
                                                               acceleration=a0)
    else:       # time-varying ω₀ about a fixed axis, consistent ω̇₀
        axis = w0 / np.linalg.norm(w0)
        m.rigid_body_kinematics = RigidBodyKinematics("drive", {
            "angular_velocity": VectorDrive.single(axis, LinearDrive(1.0, 2.0)),
            "angular_acceleration": VectorDrive.constant(2.0 * axis),
            "acceleration": VectorDrive.constant(a0)})
    r = InitialValueProblem(m, final_time=0.05, time_step=1e-2, tolerance=1e-12).run()
    t = r.t[-1]
    W, WP, A0 = m.rigid_body_kinematics.inertial_terms(t)
    c = x + R @ b
    F = mass * (A0 + np.cross(WP, c) + np.cross(W, np.cross(W, c)))
    Jc = R @ Jcg @ R.T
    C = Jc @ WP + np.cross(W, Jc @ W) + np.cross(c - x, F)
    Fj, Cj = (v[-1] for v in r.joint(2))
    np.testing.assert_allclose(Fj, F, rtol=0, atol=1e-9 * np.abs(F).max())
    np.testing.assert_allclose(Cj, C, rtol=0, atol=1e-9 * np.abs(C).max())
    np.testing.assert_allclose(np.asarray(r.x)[-1, 0], x, atol=1e-12)


W0, ALPHA = 1.5, 2.0          # the spin: ω(t) = W0 + ALPHA t about z


def centrifugal_pendulum(rotating):
    """A hub spinning about z at ω(t) with a body on a spherical hinge 1 m off the axis
    (offset centre of mass, full inertia, gravity along -z): spun in the inertial frame by a
    revolute pin and an angular velocity joint, or written in the rotating frame (`rigid
    body kinematics`) with the hub clamped."""
    P = np.array([1.0, 0.0, -0.5])                 # pendulum node; hinge at (1, 0, 0)
    m = Model()
    w = np.array([0.0, 0.0, 0.0 if rotating else W0])
    if rotating:
        m.structural_node(1, "static")
        m.clamp(1, 1)
        m.rigid_body_kinematics = spin_frame(W0, ALPHA)
    else:
        m.structural_node(1, "dynamic", angular_velocity=w)
        m.body(1, 1, 5.0, inertia=np.diag([1.0, 1.0, 2.0]))
        m.revolute_pin(2, 1)
        m.angular_velocity(3, 1, [0.0, 0.0, 1.0], LinearDrive(W0, ALPHA))
    m.structural_node(2, "dynamic", position=P, velocity=np.cross(w, P), angular_velocity=w)
    m.body(4, 2, 1.2, center_of_mass=[0.1, 0.05, -0.3], inertia=[[0.2, 0.01, 0.0], [0.01, 0.3, 0.02], [0.0, 0.02, 0.1]])
    m.spherical_hinge(5, 1, 2, offset1=[1.0, 0.0, 0.0], offset2=[0.0, 0.0, 0.5])
    m.gravity([0.0, 0.0, -9.81])
    return m


def pendulum_difference(h, T=1.0):
    """max |x_inertial - R₀(φ) x_rotating| and the same for the orientations (φ = ∫ω)."""
    runs = [InitialValueProblem(centrifugal_pendulum(rot_), final_time=T, time_step=h, tolerance=1e-11,
                                max_iterations=10).run() for rot_ in (False, True)]
    t = np.asarray(runs[0].t)
    np.testing.assert_allclose(runs[1].t, t)
    R0 = np.array([rotz(W0 * s + 0.5 * ALPHA * s * s) for s in t])
    x_in, x_rot = np.asarray(runs[0].x)[:, 1], np.asarray(runs[1].x)[:, 1]
    R_in, R_rot = np.asarray(runs[0].R)[:, 1], np.asarray(runs[1].R)[:, 1]
    dx = np.abs(x_in - np.einsum("tij,tj->ti", R0, x_rot)).max()
    dR = np.abs(R_in - R0 @ R_rot).max()
    swing = np.abs(x_rot - x_rot[0]).max()
    return dx, dR, swing


def test_rotating_frame_pendulum_equals_the_inertial_spin():
    """The same motion written in the inertial frame and in the rotating frame (rigid body
    kinematics: centrifugal, Euler and Coriolis loads on the body and on the node's momenta)
    agree once transformed, x = R₀ x̃, R = R₀ R̃; their difference is the two
    discretizations' and falls as h² (2e-5 of the swing at h = 2.5e-3; measured ratio 4.0)."""
    d1 = pendulum_difference(5e-3)
    d2 = pendulum_difference(2.5e-3)
    assert d2[2] > 0.3                                   # the pendulum really swings out
    assert d1[0] / d2[0] > 3.5 and d1[1] / d2[1] > 3.5, (d1, d2)
    assert d2[0] < 2e-5 * d2[2] and d2[1] < 2e-5, (d1, d2)


# ------------------------------------------------------------------ solids in a rotating frame


def bar_mesh(nx, h, shape="hexahedron20"):
    """A bar [0, nx h] × [-h/2, h/2]² along x (nx cubes of side h, one element each)."""
    P, conn, _ = box_mesh(shape, (nx, 1, 1), (nx * h, h, h))
    return P - np.array([0.0, h / 2, h / 2]), conn


def bar_model(P, conn, law, rho, kind="dynamic displacement", velocity=None, shape="hexahedron20"):
    m = Model()
    for k, x in enumerate(P):
        m.structural_node(k + 1, kind, position=x, velocity=None if velocity is None else velocity[k])
    for e, c in enumerate(conn):
        m.solid(e + 1, shape, c + 1, law, rho)
    return m


def test_rotating_bar_centrifugal_stretch():
    """A bar of length L clamped at the axis and at rest in a frame spinning at ω (ν = 0):
    the relative equilibrium (ẋ = 0) of the centrifugal load ρω²x stretches it by
    u(L) = ρω²L³/(3E) and u(x) = ρω²(L²x - x³/3)/(2E) (1-D closed form; strain 1e-5, so
    the geometric and the lateral effects are below 1e-4)."""
    L, h, rho, E, w = 1.0, 0.1, 7800.0, 2.1e11, 30.0
    P, conn = bar_mesh(10, h)
    m = bar_model(P, conn, hookean_linear_elastic_isotropic(E, 0.0), rho)
    m.rigid_body_kinematics = RigidBodyKinematics.constant(angular_velocity=[0.0, 0.0, w])
    system = System(m)
    nodes = system.nodes
    st = system.initial_state(0.0)
    free = nodes.ix[P[:, 0] > 1e-9].ravel()
    for _ in range(10):                         # Newton on the free positions, velocities 0
        f, _, J = system.evaluate(st, 1.0)
        if np.abs(f[free]).max() < 1e-9 * rho * w * w * L * h ** 3:
            break
        st.y[free] -= np.linalg.solve(J.tocsc()[free][:, free].toarray(), f[free])
    u = st.y[nodes.ix] - P
    tip = P[:, 0] > L - 1e-9
    exact = rho * w * w * L ** 3 / (3 * E)
    assert exact / L == pytest.approx(1.1e-5, rel=0.02)
    np.testing.assert_allclose(u[tip, 0], exact, rtol=1e-4)             # measured: 7e-6
    mid = np.abs(P[:, 0] - 0.5) < 1e-9
    np.testing.assert_allclose(u[mid, 0], rho * w * w * (L * L * 0.5 - 0.5 ** 3 / 3) / (2 * E), rtol=1e-4)


def spun_bar(rotating, h_mesh=0.1, nx=4):
    """A soft viscoelastic bar along x from the z axis (root face held), spun up about z at
    ω(t) = W0 + ALPHA t: in the inertial frame the root nodes follow the rigid rotation
    (drive displacement pins), in the rotating frame they are held still and `rigid body
    kinematics` gives the motion."""
    P, conn = bar_mesh(nx, h_mesh)
    rho, E = 1.0, 150.0
    v = None if rotating else np.cross([0.0, 0.0, W0], P)
    m = bar_model(P, conn, hookean_linear_viscoelastic_isotropic(E, 0.0, 0.01), rho, velocity=v)
    phi = f"({W0} * Time + {0.5 * ALPHA} * Time^2)"
    for k in np.flatnonzero(P[:, 0] < 1e-9):
        X, Y = P[k, 0], P[k, 1]
        if rotating:
            d = VectorDrive.constant(np.zeros(3))
        else:
            d = VectorDrive([(np.array([1.0, 0.0, 0.0]), ExpressionDrive(f"{X} * cos{phi} - {Y} * sin{phi} - {X}")),
                             (np.array([0.0, 1.0, 0.0]), ExpressionDrive(f"{X} * sin{phi} + {Y} * cos{phi} - {Y}"))])
        m.drive_displacement_pin(1000 + k, k + 1, d, absolute_position=P[k])
    if rotating:
        m.rigid_body_kinematics = spin_frame(W0, ALPHA)
    return m, P


def bar_difference(h, T=0.6):
    runs = []
    for rotating in (False, True):
        m, P = spun_bar(rotating)
        runs.append(InitialValueProblem(m, final_time=T, time_step=h, tolerance=1e-10, max_iterations=10).run())
    t = np.asarray(runs[0].t)
    R0 = np.array([rotz(W0 * s + 0.5 * ALPHA * s * s) for s in t])
    x_in, x_rot = np.asarray(runs[0].x), np.asarray(runs[1].x)
    dx = np.abs(x_in - np.einsum("tij,tnj->tni", R0, x_rot)).max()
    deformation = np.abs(x_rot - P).max()
    return dx, deformation


def test_rotating_frame_solid_equals_the_inertial_spin():
    """A solid bar spun up about z (centrifugal stretch, Euler-force bending, Coriolis
    coupling) written in the inertial frame and in the rotating frame agrees once
    transformed; the difference is the discretizations' and falls as h² (measured: 3.9e-6,
    9.7e-7, 2.4e-7 at h = 4, 2, 1 ms for a deformation of 3e-2)."""
    d1 = bar_difference(4e-3)
    d2 = bar_difference(2e-3)
    assert d2[1] > 1e-2                               # it really deforms (a few % strain)
    assert d1[0] / d2[0] > 3.5, (d1, d2)
    assert d2[0] < 1e-4 * d2[1], (d1, d2)


# =========================================================================== deck cards
CUBE_NODES = "\n".join(f"    structural: {k + 1}, dynamic displacement, {x}, {y}, {z}, null;"
                       for k, (x, y, z) in enumerate([(1, 1, 1), (-1, 1, 1), (-1, -1, 1), (1, -1, 1),
                                                      (1, 1, -1), (-1, 1, -1), (-1, -1, -1), (1, -1, -1)]))


def test_inertia_card_with_solids_and_bodies(tmp_path):
    """`inertia: ..., body, all, solid, all, joint, all, loadable, all, output, both;` (the
    rotordynamics decks' card): mass, centre of mass and inertia about it of a cube (side 2,
    ρ = 3: m = 24, J = m (2² + 2²)/12 I) and a point mass 6 at (4, 0, 0), with the parallel-axis
    theorem; joints and loadable elements add nothing (mbdae has no modal joint and no
    loadable element); `both` is noted (the summary goes to the .log only)."""
    law = "hookean linear elastic isotropic, E, 1000., nu, 0.3"
    elements = f"""    hexahedron8: 1, 1, 2, 3, 4, 5, 6, 7, 8, 3., 3., 3., 3., 3., 3., 3., 3., {law}, {", ".join(["same"] * 7)};
    body: 2, 9, 6., null, diag, 0., 0., 0.;
    joint: 3, clamp, 9, node, node;
    inertia: 4, position, 1., 0., 0., body, all, solid, all, joint, all, loadable, all, output, both;"""
    nodes = CUBE_NODES + "\n    structural: 9, dynamic, 4., 0., 0., eye, null, null;"
    d = deck(tmp_path, nodes, elements, "    structural nodes: 9;\n    solids: 1;\n    rigid bodies: 1;\n    joints: 1;")
    lines = {l.split(":")[0].strip(): l.split(":", 1)[1].split() for l in d.log_lines[1:]}
    assert float(lines["mass"][0]) == pytest.approx(30.0, rel=1e-6)
    cg = np.array([4.0 * 6.0 / 30.0, 0.0, 0.0])
    np.testing.assert_allclose(np.array(lines["Xcg"], float), cg - [1.0, 0.0, 0.0], atol=1e-6)
    Jc = 24.0 * 8.0 / 12.0 * np.eye(3)
    for mass, c in ((24.0, np.zeros(3)), (6.0, np.array([4.0, 0.0, 0.0]))):
        r = c - cg
        Jc += mass * (r @ r * np.eye(3) - np.outer(r, r))
    np.testing.assert_allclose(np.array(lines["J"], float).reshape(3, 3), Jc, rtol=1e-6, atol=1e-6)
    assert lines["solids"] == ["1"] and lines["bodies"] == ["1"]
    assert any("inertia output 'both'" in n for n in d.notes)


def test_rigid_body_kinematics_and_static_model_are_refused_together(tmp_path):
    """The frame's inertial loads belong to the inertia `model: static` drops: the pair is
    refused at the second card, in either order."""
    rbk = "    rigid body kinematics: const, angular velocity, 0., 0., 1.;"
    for control in ("    model: static;\n" + rbk, rbk + "\n    model: static;"):
        with pytest.raises(DeckError, match="not supported yet: rigid body kinematics with model: static"):
            deck(tmp_path, "    structural: 1, static, null, eye, null, null;", "    joint: 1, clamp, 1, node, node;",
                 "    structural nodes: 1;\n    joints: 1;\n" + control)


def test_rotordynamics_problem_cards_are_read_with_notes(tmp_path):
    """The problem and control cards of the rotordynamics decks that mbdae reads with MBDyn's
    meaning or says what it does instead (never silently)."""
    problem = """    strategy: change, postponed, 2;
    derivatives tolerance: 1e-3, 1e-3;
    derivatives coefficient: auto;
    output: iterations, cpu time, solver condition number, stat, yes;
    enforce constraint equations: constraint violations;
    threads: assembly, 1;
    threads: solver, 1;"""
    control = """    structural nodes: 1;\n    joints: 1;
    use automatic differentiation;
    initial assembly of deformable and force elements;"""
    d = deck(tmp_path, "    structural: 1, static, null, eye, null, null;",
             """    drive caller: 2, const, 1e-3;\n    joint: 1, clamp, 1, node, node;""", control, problem)
    notes = "\n".join(d.notes)
    for said in ("cpu time", "threads", "use automatic differentiation",
                 "initial assembly of deformable and force elements"):
        assert said in notes, said
    assert d.settings["derivatives_retries"] == 6 and d.settings["strategy"][0] == "change"


def test_solid_kinetic_energy_private_datum():
    """`model::element::solid(label, "E")` (and the `element, label, solid, string, "E"` drive of
    deck 0001's kinetic energy): ½ m |v|² of a cube (side 2, ρ = 3) in uniform motion."""
    m = Model()
    parser = MathParser()
    m.namespace = ModelNamespace().register(parser)
    corners = [(1, 1, 1), (-1, 1, 1), (-1, -1, 1), (1, -1, 1), (1, 1, -1), (-1, 1, -1), (-1, -1, -1), (1, -1, -1)]
    v = np.array([0.3, -1.2, 0.5])
    for k, x in enumerate(corners, start=1):
        m.structural_node(k, "dynamic displacement", position=x, velocity=v)
    m.solid(1, "hexahedron8", range(1, 9), hookean_linear_elastic_isotropic(1e3, 0.3), 3.0)
    system = System(m)
    st = system.initial_state(0.0)
    system.evaluate(st, 1e-3, want_jac=False)
    assert parser.evaluate('model::element::solid(1, "E")') == pytest.approx(0.5 * 24.0 * v @ v, rel=1e-12)
