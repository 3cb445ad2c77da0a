"""Driven elements (manual §8.20.2, elements/driven.py): activity mask, λ = 0 rows of an
inactive joint, output rows, and physics: a pendulum released at t1 (free fall afterwards,
an exact parabola) and a pin engaged at t1 with the `offset{1}` hint (locks the body where it
is, no jump).  The Jacobian-vs-FD checks of both states are the generated ones
(tests/samples.py: driven_model, run by tests/test_element_checks.py)."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.problem import InitialValueProblem, Settings
from mbdae.engine.drives import StepDrive, ConstDrive
from samples import SAMPLES, randomize_state

G = 9.81


def test_model_without_driven_elements_has_no_activity_family():
    m = Model()
    m.structural_node(1, "dynamic")
    m.body(1, 1, 1.0, inertia=[1.0, 1.0, 1.0])
    m.spherical_pin(2, 1)
    assert [f.name for f in System(m).families] == ["body", "joint"]


def test_sample_has_both_states_and_inactive_rows_are_identities():
    rng = np.random.default_rng(0)
    system = System(SAMPLES["driven"][0](rng))
    act = system.families[-1].active(0.37)
    assert act == {("joint", 2): True, ("joint", 3): False, ("joint", 4): True, ("joint", 6): False,
                   ("rod", 5): True, ("rod", 7): False, ("force", 8): False}
    st = randomize_state(system, rng)
    f, _, J = system.evaluate(st, 1e-2)
    J = J.toarray()
    for label, active in ((3, False), (6, False), (2, True), (4, True)):
        rows = np.flatnonzero((system.row_label == label) & system.is_alg)
        assert len(rows)
        if active:
            assert not np.allclose(f[rows], st.y[rows])
        else:
            # f = λ, and the row is the identity on λ only
            assert np.array_equal(f[rows], st.y[rows])
            assert np.array_equal(J[rows][:, rows], np.eye(len(rows)))
            assert np.count_nonzero(J[rows]) == len(rows)
            assert np.count_nonzero(J[:, rows]) == len(rows)   # λ reaches no node equation


def test_inactive_elements_contribute_nothing():
    """The driven model's residual equals that of the model without its inactive elements
    (node rows), at the same state."""
    rng = np.random.default_rng(1)
    model = SAMPLES["driven"][0](np.random.default_rng(1))
    system = System(model)
    st = randomize_state(system, rng)
    f = system.evaluate(st, 0.1, want_jac=False)[0]
    # same model, inactive elements removed, active ones not driven
    ref = SAMPLES["driven"][0](np.random.default_rng(1))
    ref.joints = [s for s in ref.joints if s.label not in (3, 6)]
    ref.rods = [s for s in ref.rods if s.label != 7]
    ref.forces = [s for s in ref.forces if s.label != 8]
    for s in ref.joints + ref.rods + ref.forces:
        s.driven = None
    # joint 4 has had its offset{1} hint applied in `system`: give ref the same offset
    from mbdae.elements.joints import RigidJoints
    j4 = system.family(RigidJoints)
    i4 = int(np.flatnonzero(j4.labels == 4)[0])
    next(s for s in ref.joints if s.label == 4).f1 = j4.f1[i4].copy()
    rsys = System(ref)
    nst = rsys.initial_state(st.t)
    n = system.nodes.total
    nst.y[:n], nst.yp[:n], nst.R_ref = st.y[:n], st.yp[:n], st.R_ref
    for lab in (2, 4):           # same multipliers for the active joints
        nst.y[(rsys.row_label == lab) & rsys.is_alg] = st.y[(system.row_label == lab) & system.is_alg]
    fr = rsys.evaluate(nst, 0.1, want_jac=False)[0]
    assert np.allclose(f[:n], fr[:n], rtol=0, atol=1e-12 * np.abs(fr[:n]).max())


def test_hint_not_supported_and_unknown_element():
    m = Model()
    m.structural_node(1, "dynamic")
    m.spherical_pin(2, 1)
    with pytest.raises(ValueError, match="not supported yet: hint hinge"):
        m.driven(2, 1.0, hints=("hinge{1}",))
    with pytest.raises(KeyError):
        m.driven(5, 1.0)
    m.driven(2, 1.0)
    with pytest.raises(ValueError, match="already driven"):
        m.driven(2, 0.0)


# ---------------------------------------------------------------------- physics

def _pendulum(t1, L=1.3, m=2.0, method="crank nicolson", h=1e-3, t_end=None, hints=()):
    """Node 2 (mass m at the node, isotropic inertia) on a spherical pin at the origin
    (offset -L along the node's x), gravity -z; the pin is active until t1."""
    model = Model()
    model.structural_node(2, "dynamic", position=[L, 0.0, 0.0])
    model.body(1, 2, m, inertia=[0.4, 0.4, 0.4])
    model.spherical_pin(3, 2, offset=[-L, 0.0, 0.0], absolute_position=[0.0, 0.0, 0.0])
    model.driven(3, StepDrive(t1, -1.0, 1.0), hints=hints)
    model.gravity([0.0, 0.0, -G])
    s = Settings(final_time=t_end or t1 + 0.25, time_step=h, method=method, tolerance=1e-10,
                 progress=False)
    return InitialValueProblem(model, s)


def test_released_pendulum_falls_on_an_exact_parabola():
    t1, L = 0.2004, 1.3
    r = _pendulum(t1, L).run()
    t, x = r.t, r.x[:, 0]
    before = t < t1
    # pinned: the node stays on the circle about the pin
    assert np.allclose(np.linalg.norm(x[before], axis=1), L, atol=1e-9)
    # the first step after t1 is already free: from its state on, x(t) = x_a + v_a τ + g τ²/2
    a = int(np.flatnonzero(t > t1)[0])
    tau = t[a:] - t[a]
    xa, va = x[a], r.v[a, 0]
    g = np.array([0.0, 0.0, -G])
    exact = xa + va * tau[:, None] + 0.5 * g * tau[:, None] ** 2
    assert np.abs(x[a:] - exact).max() < 1e-10
    assert np.linalg.norm(va) > 0.5             # it was swinging when released
    assert np.abs(x[a:] - exact).max() < 1e-8 * np.abs(x[-1] - x[a]).max()
    # free fall: acceleration g, angular velocity constant, no reaction
    assert np.allclose(r.a[a:, 0], g, atol=1e-9)
    assert np.allclose(r.w[a:, 0], r.w[a, 0], atol=1e-10)
    F, M = r.joint(3)
    assert np.all(F[a:] == 0.0) and np.all(M[a:] == 0.0)
    assert np.linalg.norm(F[a - 1]) > 1.0


def test_released_pendulum_acceleration_with_ms():
    """Any method: after the release the node's momentum rate is m g exactly."""
    t1 = 0.1004
    r = _pendulum(t1, method="ms", t_end=0.2).run()
    a = int(np.flatnonzero(r.t > t1)[0])
    assert np.allclose(r.a[a:, 0], [0.0, 0.0, -G], atol=1e-9)


def _thrown_body(t1, hints, h=1e-3):
    """Node 1 thrown upwards with v0 = g·t1 (apex at t1), gravity -z; a spherical pin at the
    origin (far from the body) engages after t1."""
    v0 = G * t1
    model = Model()
    model.structural_node(1, "dynamic", position=[0.3, 0.0, 0.0], velocity=[0.0, 0.0, v0])
    model.body(1, 1, 1.5, inertia=[0.2, 0.2, 0.2])
    model.spherical_pin(2, 1, absolute_position=[0.0, 0.0, 0.0])
    model.driven(2, StepDrive(t1 + 0.5 * h, 1.0, 0.0), hints=hints)
    model.gravity([0.0, 0.0, -G])
    s = Settings(final_time=t1 + 0.1, time_step=h, method="ms", rho=0.6, tolerance=1e-10, progress=False)
    return InitialValueProblem(model, s).run(), v0


def test_pin_engaged_with_offset_hint_locks_the_body_where_it_is():
    t1 = 0.2
    r, v0 = _thrown_body(t1, hints=("offset{1}",))
    t, z = r.t, r.x[:, 0, 2]
    a = int(np.flatnonzero(t > t1 + 5e-4)[0])         # first step with the pin engaged
    apex = v0 ** 2 / (2 * G)
    # free flight before: the exact parabola (ms integrates it exactly from a free history)
    assert abs(t[a - 1] - t1) < 1e-12
    assert abs(z[a - 1] - apex) < 1e-10
    # engaged: no jump (the pin takes the point where the body is, at the apex), then held
    assert abs(z[a] - z[a - 1]) < 2 * G * (t[a] - t[a - 1]) ** 2
    assert np.allclose(r.x[a:, 0], r.x[a, 0], atol=1e-9)
    # the pin carries the weight
    F, M = r.joint(2)
    assert np.allclose(F[-1], [0.0, 0.0, 1.5 * G], rtol=1e-6)


def test_pin_engaged_without_hint_pulls_the_body_to_its_original_point():
    """Contrast: without offset{1} the pin engages at its input point (the origin): a jump."""
    r, v0 = _thrown_body(0.2, hints=())
    a = int(np.flatnonzero(r.t > 0.2 + 5e-4)[0])
    assert np.linalg.norm(r.x[a, 0] - r.x[a - 1, 0]) > 0.1
