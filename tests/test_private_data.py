"""Private data of nodes and elements (engine/privdata.py and the families' private_data)
and the `model::node::structural` / `model::element::<type>` math functions that read them
from the state being evaluated (MBDyn input manual §2.2.1, §6.5 and the "Private Data"
paragraph of each element).  Expected values are hand-computed kinematics and mechanics."""
import math

import numpy as np
import pytest

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.constitutive import LinearElastic1D, LinearLaw3D
from mbdae.engine.core.drives import ExpressionDrive
from mbdae.engine.core.mathparser import MathError, MathParser
from mbdae.engine.model import Model
from mbdae.engine.core.privdata import ModelNamespace, unwrap_rotation_vector
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.system import System
from mbdae.engine.core.tpldrive import VectorDrive
from test_deck_reader import deck_text, parse


def Rz(a):
    return rot.exp_rotvec([0.0, 0.0, a])


def with_namespace(model):
    parser = MathParser()
    namespace = ModelNamespace().register(parser)
    model.namespace = namespace
    return parser


def evaluated(model):
    """A System of the model at its initial state, evaluated once (binds the namespace)."""
    system = System(model)
    state = system.initial_state(0.0)
    system.evaluate(state, 1e-3, want_jac=False)
    return system, state


def value(parser, text):
    return parser.compile(text, free=("Time",))(Time=0.0)


# =========================================================================== unwrap

@pytest.mark.parametrize("previous,theta,expected", [
    ([0, 0, 3.0], [0, 0, -3.0], [0, 0, 2 * math.pi - 3.0]),            # crossed +π
    ([0, 0, -3.0], [0, 0, 3.0], [0, 0, 3.0 - 2 * math.pi]),             # crossed -π
    ([0, 0, 6.2], [0, 0, 0.1], [0, 0, 2 * math.pi + 0.1]),              # second turn
    ([0, 0, -0.001], [0, 0, 0.001], [0, 0, 0.001]),                     # through zero: unchanged
    ([0, 0, 0.0], [0, 0, -3.1], [0, 0, -3.1]),                          # no reference yet
    ([0, 0, 9.5], [0, 0, -3.0], [0, 0, 4 * math.pi - 3.0]),
])
def test_unwrap_keeps_counting_turns(previous, theta, expected):
    np.testing.assert_allclose(unwrap_rotation_vector(np.array([previous]), np.array([theta]))[0],
                               expected, atol=1e-15)


# =========================================================================== bodies

def test_body_energy_potential_and_mass():
    """E = ½ m |v_cg|² + ½ ω·J_cg ω with v_cg = ẋ + ω × R b; V = -m g·(x + R b); m."""
    m, b, Jcg = 2.5, np.array([0.3, -0.1, 0.2]), np.diag([0.4, 0.7, 0.9])
    R = rot.exp_rotvec([0.2, -0.5, 0.9])
    x, v, w = np.array([1.0, 2.0, -0.5]), np.array([0.3, -1.2, 0.8]), np.array([2.0, -1.0, 0.5])
    g = np.array([0.0, -1.0, -9.81])
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic", x, R, v, w)
    model.body(7, 1, m, b, Jcg)
    model.gravity(g)
    evaluated(model)
    v_cg = v + np.cross(w, R @ b)
    kinetic = 0.5 * m * v_cg @ v_cg + 0.5 * w @ (R @ Jcg @ R.T) @ w
    assert value(parser, 'model::element::body(7, "E")') == pytest.approx(kinetic, rel=1e-14)
    assert value(parser, 'model::element::body(7, "V")') == pytest.approx(-m * g @ (x + R @ b), rel=1e-14)
    assert value(parser, 'model::element::body(7, "m")') == m


def test_body_potential_is_zero_without_gravity():
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic", [0, 0, 5.0])
    model.body(1, 1, 3.0, inertia=[1, 1, 1])
    evaluated(model)
    assert value(parser, 'model::element::body(1, "V")') == 0.0


# =========================================================================== rods

def test_rod_force_length_and_length_rate():
    """F = EA (l/l0 - 1), L = ‖x2 + R2 f2 - x1 - R1 f1‖, LPrime = u·(ẋ2 + ω2×R2 f2 - ẋ1 - ω1×R1 f1)."""
    R1, R2 = Rz(0.4), rot.exp_rotvec([0.3, 0.1, -0.2])
    x1, x2 = np.zeros(3), np.array([3.0, 4.0, 1.0])
    v1, w1 = np.array([0.1, 0.0, 0.2]), np.array([0.0, 0.0, 1.5])
    v2, w2 = np.array([1.0, 2.0, 0.5]), np.array([0.3, -0.2, 0.1])
    f1, f2 = np.array([0.5, 0.0, 0.0]), np.array([0.0, -0.2, 0.1])
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic", x1, R1, v1, w1)
    model.structural_node(2, "dynamic", x2, R2, v2, w2)
    model.rod(9, 1, 2, LinearElastic1D(1000.0), length=4.0, offset1=f1, offset2=f2)
    evaluated(model)
    d = x2 + R2 @ f2 - x1 - R1 @ f1
    ddot = v2 + np.cross(w2, R2 @ f2) - v1 - np.cross(w1, R1 @ f1)
    l = np.linalg.norm(d)
    assert value(parser, 'model::element::joint(9, "L")') == pytest.approx(l, rel=1e-14)
    assert value(parser, 'model::element::joint(9, "LPrime")') == pytest.approx(d @ ddot / l, rel=1e-13)
    assert value(parser, 'model::element::joint(9, "F")') == pytest.approx(1000.0 * (l / 4.0 - 1.0), rel=1e-13)


# =========================================================================== joints

def test_total_joint_position_velocities():
    """Node 1 at (1, 0, 0) turned 90° about z, spinning at 1 rad/s; node 2 at rest at
    (1, 2, 0) spinning at 3 rad/s: p = R1ᵀ(0, 2, 0) = (2, 0, 0); relative velocity seen from
    node 1, R1ᵀ(ẋ2 - ẋ1 - ω1×(x2 - x1)) = (0, -2, 0); w = (0, 0, 2)."""
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic", [1, 0, 0], Rz(math.pi / 2), angular_velocity=[0, 0, 1])
    model.structural_node(2, "dynamic", [1, 2, 0], angular_velocity=[0, 0, 3])
    model.total_joint(5, 1, 2, position_status=("active",) * 3)
    evaluated(model)
    got = [value(parser, f'model::element::joint(5, "{q}{a}")') for q in "pvw" for a in "xyz"]
    np.testing.assert_allclose(got, [2, 0, 0, 0, -2, 0, 0, 0, 2], atol=1e-14)


def test_hinge_angle_counts_turns_across_steps():
    """Node 2 turns about node 1's axis 3 by α = 0.4 k (k = 0…30, past 12 rad) and back;
    after each converged step (commit) the total joint's "rz" and the revolute pin's "rz" give
    α itself (MBDyn's unwrapped private data), not α wrapped into (-π, π]."""
    R1 = rot.exp_rotvec([0.3, 0.0, 0.0])
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic", orientation=R1)
    model.structural_node(2, "dynamic", orientation=R1)
    model.total_joint(5, 1, 2)
    model.revolute_pin(6, 2)
    system = System(model)
    state = system.initial_state(0.0)
    i2 = system.nodes.index(2)
    rz = parser.compile('model::element::joint(5, "rz")', free=("Time",))
    pin = parser.compile('model::element::joint(6, "rz")', free=("Time",))
    angles = list(0.4 * np.arange(31)) + list(0.4 * np.arange(30, -31, -1))
    for alpha in angles:
        state.R_ref[i2] = R1 @ Rz(alpha)
        system.evaluate(state, 1e-3, want_jac=False)
        assert rz(Time=0.0) == pytest.approx(alpha, abs=1e-12)
        assert pin(Time=0.0) == pytest.approx(alpha, abs=1e-12)
        system.commit(state)


def test_joint_names_follow_the_type():
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic")
    model.structural_node(2, "dynamic", [1, 0, 0])
    model.spherical_hinge(3, 1, 2)
    model.revolute_hinge(4, 1, 2)
    evaluated(model)
    with pytest.raises(MathError, match='joint 3 has no private datum "rz" \\(it has: none\\)'):
        value(parser, 'model::element::joint(3, "rz")')
    with pytest.raises(MathError, match='joint 4 has no private datum "px"'):
        value(parser, 'model::element::joint(4, "px")')
    with pytest.raises(MathError, match="no joint with label 99"):
        value(parser, 'model::element::joint(99, "rz")')
    with pytest.raises(MathError, match="forces and couples have no private data"):
        value(parser, 'model::element::force(1, "F")')


def test_clamp_reaction_balances_the_applied_couple():
    """A couple M about z on a node held by a clamp: the clamp's private moment balances it
    (|Mz| = M), in the equilibrium the Newton solve finds (static problem, one step)."""
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "static")
    model.clamp(2, 1)
    model.couple(3, 1, [0.0, 0.0, 7.0])
    prob = InitialValueProblem(model, final_time=1e-3, time_step=1e-3, progress=False)
    prob.run()
    prob.system.evaluate(prob.state, 1e-3, want_jac=False)
    moment = [value(parser, f'model::element::joint(2, "M{a}")') for a in "xyz"]
    force = [value(parser, f'model::element::joint(2, "F{a}")') for a in "xyz"]
    np.testing.assert_allclose(np.abs(moment), [0, 0, 7.0], atol=1e-9)
    np.testing.assert_allclose(force, 0.0, atol=1e-9)


# =========================================================================== deformable joints

def test_deformable_hinge_strain_rate_and_moment():
    """Node 2 turned by θ = 0.3 about node 1's axis 3, relative rate 0.5: rz = θ, wz = 0.5,
    Mz = K θ + C ω̄ (linear viscoelastic, isotropic)."""
    K, C = 40.0, 2.0
    R1 = rot.exp_rotvec([0.0, 0.4, 0.0])
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic", orientation=R1, angular_velocity=R1 @ [0, 0, 0.25])
    model.structural_node(2, "dynamic", orientation=R1 @ Rz(0.3), angular_velocity=R1 @ [0, 0, 0.75])
    model.deformable_hinge(4, 1, 2, LinearLaw3D(stiffness=K, viscosity=C))
    evaluated(model)
    got = {n: value(parser, f'model::element::joint(4, "{n}")') for n in ("rx", "rz", "wz", "Mz", "Mx")}
    assert got["rz"] == pytest.approx(0.3, abs=1e-14) and got["rx"] == pytest.approx(0.0, abs=1e-14)
    assert got["wz"] == pytest.approx(0.5, abs=1e-14)
    assert got["Mz"] == pytest.approx(K * 0.3 + C * 0.5, rel=1e-13)
    assert got["Mx"] == pytest.approx(0.0, abs=1e-13)


# =========================================================================== nodes

def test_structural_node_private_data():
    phi = np.array([0.3, -0.4, 1.2])
    R = rot.exp_rotvec(phi)
    x, v, w = np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.25, -1.0]), np.array([0.1, 0.2, 0.3])
    model = Model()
    parser = with_namespace(model)
    model.structural_node(4, "dynamic", x, R, v, w)
    evaluated(model)
    node = lambda q, i: value(parser, f'model::node::structural(4, "{q}[{i}]")')   # noqa: E731
    for q, expected in (("X", x), ("x", R.T @ x), ("Phi", phi), ("XP", v), ("xP", R.T @ v),
                        ("Omega", w), ("omega", R.T @ w)):
        np.testing.assert_allclose([node(q, i) for i in (1, 2, 3)], expected, atol=1e-14)
    a = np.linalg.norm(phi)
    np.testing.assert_allclose([node("PE", i) for i in range(4)],
                               np.r_[math.cos(a / 2), math.sin(a / 2) * phi / a], atol=1e-14)
    for q, back in (("E", rot.euler123_to_R), ("E313", rot.euler313_to_R), ("E321", rot.euler321_to_R)):
        np.testing.assert_allclose(back([node(q, i) for i in (1, 2, 3)]), R, atol=1e-14)
    with pytest.raises(MathError, match="unknown structural node private datum"):
        node("Y", 1)
    with pytest.raises(MathError, match="structural node 5 is not defined"):
        value(parser, 'model::node::structural(5, "X[1]")')


def test_node_acceleration_of_a_falling_body():
    """XPP of a body in free fall is g (from the momentum derivative the step solved for)."""
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic", velocity=[1.0, 0.0, 0.0])
    model.body(1, 1, 2.0, inertia=[1, 1, 1])
    model.gravity([0.0, 0.0, -9.81])
    prob = InitialValueProblem(model, final_time=0.01, time_step=1e-3, tolerance=1e-12, progress=False)
    prob.run()
    prob.system.evaluate(prob.state, 1e-3, want_jac=False)
    acc = [value(parser, f'model::node::structural(1, "XPP[{i}]")') for i in (1, 2, 3)]
    np.testing.assert_allclose(acc, [0.0, 0.0, -9.81], atol=1e-9)


# =========================================================================== as drives

def test_state_dependent_expression_has_no_derivative():
    parser = MathParser()
    ModelNamespace().register(parser)
    drive = ExpressionDrive('2*Time + model::element::body(1, "E")', parser)
    assert drive.expression.state_sources
    with pytest.raises(MathError, match='"model::element::body" reads the model state'):
        drive.derivative(0.0)
    assert not ExpressionDrive("2*Time", parser).expression.state_sources


def test_value_outside_a_simulation_is_an_error():
    parser = MathParser()
    ModelNamespace().register(parser)
    with pytest.raises(MathError, match="the model state is not available here"):
        parser.evaluate('model::element::body(1, "E")')


def test_force_drive_follows_the_newton_iterate():
    """Two states at the same time: the force's residual rows use each state's own datum
    (no caching per time step)."""
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic", [2.0, 0.0, 0.0])
    model.body(1, 1, 1.0, inertia=[1, 1, 1])
    model.force(2, 1, VectorDrive.single([1, 0, 0], ExpressionDrive('-3*model::node::structural(1, "X[1]")',
                                                                   parser)))
    system = System(model)
    state = system.initial_state(0.0)
    ix = system.nodes.ix[0, 0]
    f0, _, _ = system.evaluate(state, 1e-3, want_jac=False)
    state.y[ix] = 5.0
    f1, _, _ = system.evaluate(state, 1e-3, want_jac=False)
    assert f0[ix] == pytest.approx(6.0) and f1[ix] == pytest.approx(15.0)    # f = -(applied load)


def test_joint_drive_reading_the_state_is_refused():
    model = Model()
    parser = with_namespace(model)
    model.structural_node(1, "dynamic")
    model.drive_displacement_pin(2, 1, VectorDrive.single(
        [1, 0, 0], ExpressionDrive('model::node::structural(1, "X[2]")', parser)))
    with pytest.raises(ValueError, match="accepted only by forces and couples"):
        System(model)


SPRING = """\
    body: 1, 1, 1., null, diag, 1., 1., 1.;
    force: 2, absolute, 1, position, null,
        single, 1., 0., 0., string, "-4*pi^2*model::node::structural(1, \\"X[1]\\")";
"""


def test_spring_written_as_a_state_dependent_force(tmp_path):
    """F = -4π² x on a unit mass (deck text, string drive): x(t) = A cos 2πt; after one period
    (Crank-Nicolson, h = 1e-3) x is back at A within the method's phase error 2e-4 A."""
    text = deck_text(nodes="    structural: 1, dynamic, 0.1, 0., 0., eye, null, null;", elements=SPRING,
                     control="    structural nodes: 1;\n    rigid bodies: 1;\n    forces: 1;", final="1.")
    deck = parse(text, tmp_path)
    res = deck.run(time_step=1e-3, method="crank nicolson", tolerance=1e-10, progress=False,
                   output_prefix=str(tmp_path / "spring"))
    x = res.x[:, 0, 0]
    np.testing.assert_allclose(x, 0.1 * np.cos(2 * np.pi * res.t), atol=2e-4 * 0.1 * 2 * np.pi)
    frc = np.loadtxt(tmp_path / "spring.frc")
    # .frc rows (6 digits): label, node, force, point of application
    np.testing.assert_allclose(frc[:, 2], -4 * np.pi ** 2 * x, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(frc[:, 5], x, rtol=1e-6, atol=1e-9)
    assert (frc[:, 0] == 2).all() and (frc[:, 1] == 1).all()
