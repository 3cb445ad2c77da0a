"""Abstract nodes, the `spring support` genel and abstract forces (engine/abstract_nodes.py,
elements/genel.py) against the analytic solutions of the scalar equations they make."""
import numpy as np
import pytest

from mbdae import initial_value_problem
from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core.constitutive import LinearElastic1D
from mbdae.engine.core.drives import SineDrive, ConstDrive, RampDrive
from mbdae.engine.io.mbdyn import reference as mr


def _run(model, tmp_path, final_time, h=1e-3, tolerance=1e-12, **kw):
    prefix = str(tmp_path / "run")
    res = initial_value_problem(model, final_time=final_time, time_step=h, tolerance=tolerance,
                              output_prefix=prefix, output_precision=16, progress=False, **kw).run()
    times = mr.output_times(mr.read_lines(prefix + ".out"))
    return prefix, np.asarray(times), res


def _abs(prefix, label):
    return np.array([b[label] for b in mr.blocks(mr.read_lines(prefix + ".abs"))])


def _clamped_model():
    """One clamped static node: the model needs a structural node; the clamp also makes the
    initial assembly run, in which the abstract unknowns must stay put."""
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    return m


@pytest.mark.parametrize("kind", ["algebraic", "differential"])
def test_spring_support_with_abstract_force_gives_x_equal_F_over_k(tmp_path, kind):
    """k x = F(t) on one abstract node: x(t) = F(t)/k at every step; a differential node's ẋ
    follows F'(t)/k (the integrator's derivative of the exact x sequence, error O(h²))."""
    k, amp, omega = 4.0, 2.0, 10.0
    m = _clamped_model()
    m.abstract_node(7, kind)
    m.spring_support(1, 7, LinearElastic1D(k))
    m.abstract_force(2, 7, SineDrive(0.0, omega, amp, "forever", 0.0))
    prefix, t, _ = _run(m, tmp_path, 0.5)
    rows = _abs(prefix, 7)
    F = amp * np.sin(omega * t)
    np.testing.assert_allclose(rows[:, 0], F / k, rtol=0, atol=1e-12 * amp)
    if kind == "differential":
        late = t > 0.1                  # after the start-up transient of the multistep method
        Fp = amp * omega * np.cos(omega * t)
        err = np.abs(rows[late, 1] - Fp[late] / k).max()
        assert err < 2e-3 * amp * omega / k, err
    else:
        assert rows.shape[1] == 1       # algebraic nodes write x only


def test_abstract_initial_values_and_private_data(tmp_path):
    """value/derivative of the abstract card are the initial state; model::node-style private
    data x and xP read it."""
    from mbdae.engine.system import System
    from mbdae.engine.core.state import Context
    m = _clamped_model()
    m.abstract_node(3, "differential", value=1.5, derivative=-0.25)
    m.abstract_node(4, "algebraic", value=2.0)
    m.spring_support(1, 3, LinearElastic1D(1.0))
    m.spring_support(2, 4, LinearElastic1D(1.0))
    sysm = System(m)
    st = sysm.initial_state(0.0)
    fam = next(f for f in sysm.families if f.name == "abstract node")
    ctx = Context(0.0, st.y, st.yp, sysm.kinematics(st), "regular")
    np.testing.assert_array_equal(fam.private_data(ctx, "x"), [1.5, 2.0])
    np.testing.assert_array_equal(fam.private_data(ctx, "xP"), [-0.25, 0.0])
    with pytest.raises(ValueError, match="xQ"):
        fam.private_data(ctx, "xQ")


def test_spring_support_on_structural_dof_oscillates(tmp_path):
    """Spring support on the x position of a free mass plus a constant abstract force on the
    same dof: x(t) = F/k + (x0 - F/k) cos(√(k/m) t) (checks the restoring sign of both)."""
    k, mass, F, x0 = 40.0, 2.5, 3.0, 0.2
    m = Model()
    m.structural_node(1, "dynamic", position=[x0, 0.0, 0.0])
    m.body(1, 1, mass, inertia=np.eye(3))
    m.spring_support(2, 1, LinearElastic1D(k), node_type="structural", index=1)
    m.abstract_force(3, 1, ConstDrive(F), node_type="structural", index=1)
    res = InitialValueProblem(m, final_time=1.0, time_step=1e-3, tolerance=1e-10, method="ms", rho=0.6,
                              progress=False).run()
    t = np.asarray(res.t)
    x = np.asarray(res.x)[:, 0, 0]
    exact = F / k + (x0 - F / k) * np.cos(np.sqrt(k / mass) * t)
    assert np.abs(x - exact).max() < 1e-3 * x0
    # the force on the other components is zero: no drift in y and z
    assert np.abs(np.asarray(res.x)[:, 0, 1:]).max() < 1e-12


def test_abstract_force_output_rows(tmp_path):
    """.frc rows of abstract forces: label, node label, F(t)."""
    m = _clamped_model()
    m.abstract_node(5, "algebraic")
    m.spring_support(1, 5, LinearElastic1D(2.0))
    m.abstract_force(9, 5, RampDrive(3.0, 0.0, "forever", 1.0))
    prefix, t, _ = _run(m, tmp_path, 0.01)
    rows = np.array([b[9] for b in mr.blocks(mr.read_lines(prefix + ".frc"))])
    np.testing.assert_allclose(rows[:, 0], 5.0)
    np.testing.assert_allclose(rows[:, 1], 1.0 + 3.0 * t, rtol=1e-6)


def test_bad_spring_support_and_abstract_force_input():
    from mbdae.engine.system import System
    from mbdae.engine.core.constitutive import LinearViscous1D
    m = _clamped_model()
    m.abstract_node(1)
    m.spring_support(1, 2, LinearElastic1D(1.0))
    with pytest.raises(KeyError, match="abstract node 2 is not defined"):
        System(m)
    m = _clamped_model()
    m.abstract_node(1)
    m.spring_support(1, 1, LinearViscous1D(1.0))
    with pytest.raises(ValueError, match="viscous"):
        System(m)
    m = _clamped_model()
    m.abstract_node(1)
    with pytest.raises(ValueError, match="already defined"):
        m.abstract_node(1)
    m.abstract_force(1, 1, 1.0, node_type="structural", index=5)
    with pytest.raises(ValueError, match="index 5"):
        System(m)


def test_model_node_abstract_in_a_string_drive(tmp_path):
    """model::node::abstract(l, "x") in a string drive reads the abstract node's value: a
    structural spring support loaded by F = 3 x of an abstract node held at x = F0/k0."""
    from mbdae.engine.io.mbdyn.deck import parse_deck
    text = """
begin: data; problem: initial value; end: data;
begin: initial value; time step: 1e-3; initial time: 0; final time: 5e-3; tolerance: 1e-12;
    max iterations: 20; end: initial value;
begin: control data; structural nodes: 1; abstract nodes: 1; joints: 1; forces: 2; genels: 2;
end: control data;
begin: nodes;
    structural: 1, static, null, eye, null, null;
    abstract: 4, algebraic, value, 0.;
end: nodes;
begin: elements;
    joint: 1, total pin joint, 1, position, null, position orientation, eye, rotation orientation, eye,
        position, null, position orientation, eye, rotation orientation, eye,
        position constraint, inactive, active, active, null,
        orientation constraint, active, active, active, null;
    genel: 1, spring support, 4, abstract, algebraic, linear elastic, 2.;
    genel: 2, spring support, 1, structural, 1, algebraic, linear elastic, 10.;
    force: 3, abstract, 4, abstract, const, 5.;
    force: 4, abstract, 1, structural, 1, string, "3*model::node::abstract(4, \\"x\\")";
end: elements;
"""
    deck = parse_deck(text, name="absdrv.mbd", echo=lambda *a, **k: None)
    prefix = str(tmp_path / "absdrv")
    deck.run(output_prefix=prefix, output_precision=16, progress=False)
    x_abs = mr.blocks(mr.read_lines(prefix + ".abs"))[-1][4][0]
    x_node = mr.blocks(mr.read_lines(prefix + ".mov"))[-1][1][0]
    assert abs(x_abs - 5.0 / 2.0) < 1e-12
    assert abs(x_node - 3.0 * 2.5 / 10.0) < 1e-9
