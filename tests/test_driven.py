"""Driven elements (manual §8.20.2, elements/driven.py): activity mask, λ = 0 rows of an
inactive joint, output rows, and physics: a pendulum released at t1 (free fall afterwards,
an exact parabola) and a pin engaged at t1 with the `offset{1}` hint (locks the body where it
is, no jump).  The Jacobian-vs-FD checks of both states are the generated ones
(tests/samples.py: driven_model, run by tests/test_element_checks.py)."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.drivers.ivp import InitialValueProblem, Settings
from mbdae.engine.core.drives import StepDrive, ConstDrive
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
    nst.y[:n], nst.yp[:n], nst.R_ref, nst.w_ref = st.y[:n], st.yp[:n], st.R_ref, st.w_ref
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


# ---------------------------------------------------------------------- deck reader

import gzip
import os
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from mbdae.engine.io.mbdyn import reference as mbdyn_ref

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
TESTS_DIR = os.path.join(SHARED, "mbdyn-tests")
REF_DIR = os.path.join(SHARED, "mbdyn-ref", "visible")

PENDULUM_DECK = """\
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: {final}; time step: 1e-3;
    method: crank nicolson; tolerance: 1e-10; end: initial value;
begin: control data; structural nodes: 2; rigid bodies: 1; joints: {joints}; gravity; end: control data;
begin: nodes;
    structural: 1, static, null, eye, null, null;
    structural: 2, dynamic, 1.3, 0., 0., eye, null, null;
end: nodes;
begin: elements;
    joint: 1, clamp, 1, node, node;
    body: 2, 2, 2., null, diag, .4, .4, .4;
    gravity: 0., 0., -1., const, 9.81;
{elements}
end: elements;
"""


def _deck(tmp_path, elements, joints=2, final=0.3):
    path = tmp_path / "pendulum.mbd"
    path.write_text(PENDULUM_DECK.format(elements=elements, joints=joints, final=final))
    return read_deck(str(path), echo=lambda *a: None)


def test_deck_driven_joint_released_falls_on_a_parabola(tmp_path):
    deck = _deck(tmp_path, """
    driven: 3, string, "Time <= 0.2004",
    joint: 3, spherical hinge, 1, position, null, 2, position, -1.3, 0., 0.;""")
    spec = deck.model.joints[1]
    assert spec.label == 3 and spec.type == "spherical hinge" and spec.driven is not None
    r = deck.run(progress=False)
    a = int(np.flatnonzero(r.t > 0.2004)[0])
    tau = r.t[a:] - r.t[a]
    exact = r.x[a, 1] + r.v[a, 1] * tau[:, None] + 0.5 * np.array([0.0, 0.0, -G]) * tau[:, None] ** 2
    assert np.abs(r.x[a:, 1] - exact).max() < 1e-10
    assert np.allclose(np.linalg.norm(r.x[:a, 1], axis=1), 1.3, atol=1e-9)


def test_deck_hints_and_errors(tmp_path):
    deck = _deck(tmp_path, """
    joint: 3, spherical hinge, 1, position, null, 2, position, -1.3, 0., 0.;
    driven: 4, const, 1., initial state, inactive, hint, "offset{1}", hint, "drive{model::distance_prev(1, 2)}",
    joint: 4, distance, 1, 2, 1.;""", joints=3)
    spec = deck.model.joints[2]
    assert [h.kind for h in spec.driven.hints] == ["offset", "drive"] and spec.driven.initial_state is False
    # the drive hint is re-read on the state it is given: model::distance_prev on the previous poses
    from mbdae.elements.driven import NodeStateView

    class Kin:
        x = np.array([[0.0, 0.0, 0.0], [0.0, 3.0, 4.0]])
        R = np.array([np.eye(3)] * 2)
        v = w = np.zeros((2, 3))
    from mbdae.engine.system import System
    nodes = System(deck.model).nodes
    prev = (np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]]), Kin.R, Kin.v, Kin.w)
    assert spec.driven.hints[1].make(NodeStateView(nodes, Kin, prev)).value(0.0) == pytest.approx(3.0)
    for elements, message in (
            ('driven: 3, const, 1., joint: 4, distance, 1, 2, 1.;', "labels must be equal"),
            ('driven: 3, const, 1., hint, "hinge{1}", joint: 3, distance, 1, 2, 1.;', "not supported yet: hint hinge"),
            ('driven: 3, const, 1., gravity: 0., 0., 1., 1.;', "not supported yet: driven gravity"),
            ('driven: 3, const, 1., existing: joint, 7;', "joint 7 is not defined")):
        with pytest.raises(DeckError, match=message):
            _deck(tmp_path, elements)
    # existing: wraps an element defined before
    deck = _deck(tmp_path, "joint: 3, distance, 1, 2, 1.3;\n driven: 3, string, \"Time < .1\", existing: joint, 3;")
    assert deck.model.joints[1].driven is not None


def _need(deck):
    if not (os.path.exists(os.path.join(TESTS_DIR, deck)) and
            os.path.isdir(os.path.join(REF_DIR, mbdyn_ref.ref_key(deck)))):
        pytest.skip(f"MBDyn deck or reference output for {deck} not found under {SHARED}")


def test_distance_drive_hint_locks_the_distance_of_the_previous_step(tmp_path):
    """joints/distance/distance_driven_stringdrive_error: a free body pushed by a follower
    force; a distance joint to the origin is active for 1.1 <= t < 4 and takes, by its hint
    drive{model::distance_prev(2, 1)}, the distance of the step before.  Before t = 1.1 the
    motion is MBDyn's; the locked distance is MBDyn's (its .jnt, column 16: 10.59516)."""
    name = "joints/distance/distance_driven_stringdrive_error"
    _need(name)
    deck = read_deck(os.path.join(TESTS_DIR, name), echo=lambda *a: None)
    prefix = str(tmp_path / "run")
    r = deck.run(output_prefix=prefix, final_time=1.3, progress=False)
    c = mbdyn_ref.compare_outputs(os.path.join(REF_DIR, mbdyn_ref.ref_key(name)), prefix)
    assert c.agree_until >= 1.02
    # "Time >= 1.1" first holds at step 1101: the time accumulated over 1100 steps of 1e-3 is
    # 1.0999999999999...; MBDyn's .out shows the same (free step 1100, joint from step 1101)
    a = int(np.flatnonzero(r.t > 1.1005)[0])
    dist = np.linalg.norm(r.x[:, 1], axis=1)
    assert abs(dist[a - 1] - dist[a - 2]) > 1e-4              # it was moving away
    assert np.allclose(dist[a:], dist[a - 1], atol=1e-8)
    with gzip.open(os.path.join(REF_DIR, mbdyn_ref.ref_key(name), mbdyn_ref.ref_key(name) + ".jnt.gz"), "rt") as f:
        locked = [float(l.split()[16]) for l in f if l.split()[0] == "2"]
    assert abs(dist[a - 1] - locked[0]) < 1e-5 * locked[0]
    # no .jnt row for the joint while it is inactive, rows once active
    rows = [l.split() for l in open(prefix + ".jnt")]
    assert sum(r_[0] == "2" for r_ in rows) == len(r.t) - a


# ---------------------------------------------------------------------- joint regularization

def test_tikhonov_regularized_pin_is_a_compliance():
    """A mass m hanging at rest from a spherical pin regularized with c: the equations hold
    exactly with the node sagging by c m g below the pin and λ = m g (φ = c λ, manual §8.13),
    i.e. the pin acts as a spring of stiffness 1/c; a rise by c m g is not an equilibrium."""
    c, m_ = 1e-3, 2.0
    model = Model()
    model.structural_node(1, "dynamic", position=[0.0, 0.0, 0.0])
    model.body(1, 1, m_, inertia=[1.0, 1.0, 1.0])
    model.spherical_pin(2, 1, absolute_position=[0.0, 0.0, 0.0])
    model.joint_regularization(2, c)
    model.gravity([0.0, 0.0, -G])
    system = System(model)
    assert [f.name for f in system.families] == ["body", "gravity", "joint", "joint regularization"]
    lam = (system.row_label == 2) & system.is_alg
    for sign, expect_zero in ((1.0, True), (-1.0, False)):
        st = system.initial_state(0.0)
        st.y[system.nodes.ix[0]] = sign * c * m_ * np.array([0.0, 0.0, -G])
        st.y[lam] = m_ * np.array([0.0, 0.0, -G])
        f, _, J = system.evaluate(st, 1e-3)
        assert (np.abs(f).max() < 1e-12) == expect_zero
    # the diagonal of the λ rows: -c/dCoef
    assert np.allclose(J.toarray()[np.ix_(lam, lam)], -c / 1e-3 * np.eye(3))


def test_totalhint_deck_grabs_the_node_where_it_is(tmp_path):
    """joints/total/totalhint: joint 2 moves node 2 until t = .5 (cosine ramps ending at .4),
    then joint 3 (Tikhonov-regularized) grabs it with position-drive3{model::xposition(2),...}
    and orientation-drive3{model::xanglerel(1, 2), ...} hints taken at its activation.  The
    node stays where joint 2 left it: (0, 0, 1) and a rotation of 0.4 rad about y (the drives'
    final values); MBDyn's motion is the same to the printed digits, and its reactions after
    the first output step within 1e-6 of the load scale."""
    name = "joints/total/totalhint"
    _need(name)
    deck = read_deck(os.path.join(TESTS_DIR, name), echo=lambda *a: None)
    prefix = str(tmp_path / "totalhint")
    r = deck.run(output_prefix=prefix, progress=False)
    late = r.t > 0.41
    assert np.allclose(r.x[late, 1], [0.0, 0.0, 1.0], atol=1e-9)
    from mbdae.engine.core import rotations as rot
    assert np.allclose(rot.log_rotvec(r.R[late, 1]), [0.0, 0.4, 0.0], atol=1e-9)
    c = mbdyn_ref.compare_outputs(os.path.join(REF_DIR, mbdyn_ref.ref_key(name)), prefix)
    assert c.compared_steps >= 40 and not c.problems
    assert c.position.value < 1e-9 and c.rotation.value < 1e-9
    assert c.reaction_later < 1e-6


@pytest.mark.parametrize("name", ["driven", "joint regularization"])
@pytest.mark.parametrize("mode", ["ia_position", "ia_velocity"])
def test_jacobian_vs_finite_differences_in_initial_assembly(name, mode):
    """The generated FD checks cover the regular mode; here the initial assembly.  (The
    derivatives mode is left out: the joints' Jacobian there neglects the position dependence
    of φ_q v on purpose, an O(dCoef) term, for every joint, driven or not.)"""
    from mbdae.engine.checks import jacobian_mismatch
    rng = np.random.default_rng(4)
    system = System(SAMPLES[name][0](rng))
    st = randomize_state(system, rng, g_scale=0.0 if mode == "ia_velocity" else 0.2)
    n = system.nodes.n
    ia = tuple(rng.normal(size=(n, 3)) for _ in range(3))
    dcoef = {"ia_position": 1.0, "ia_velocity": 0.0}[mode]
    err, scale, r, c, Ja, Jf = jacobian_mismatch(system, st, dcoef, mode=mode, ia=ia, eps=1e-6)
    assert err <= 1e-6 * max(scale, 1.0), f"{mode}: row {system.owner_text(r)} col {c}: {Ja[r, c]} vs {Jf[r, c]}"


# ---------------------------------------------------------------------- rotating shaft benchmark

def _rotating_shaft_deck(tmp_path):
    """MBDyn's benchmarks/rotatingshaft main deck, read in place from a copy next to the include
    files written by cases/flexible/rotating_shaft.py (MBDyn's are made by an Octave script
    that is not in the test set)."""
    import shutil
    import sys
    name = "benchmarks/rotatingshaft/rotatingshaft"
    if not os.path.exists(os.path.join(TESTS_DIR, name)):
        pytest.skip(f"MBDyn deck {name} not found under {SHARED}")
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cases", "flexible"))
    try:
        import rotating_shaft
    finally:
        sys.path.pop(0)
    shutil.copy(os.path.join(TESTS_DIR, name), tmp_path / "rotatingshaft")
    rotating_shaft.write_includes(str(tmp_path))
    return read_deck(str(tmp_path / "rotatingshaft"), echo=lambda *a: None), rotating_shaft


def test_rotating_shaft_deck_runs_with_its_driven_damper(tmp_path):
    """The settling phase from t = -10 s: the viscous rod 998 (driven, active while Time <
    TG/4 = -2.5) damps the sag; short run: it is active and writes its .jnt rows."""
    deck, _ = _rotating_shaft_deck(tmp_path)
    rod = deck.model.rods[0]
    assert rod.label == 998 and rod.driven is not None
    prefix = str(tmp_path / "out")
    r = deck.run(output_prefix=prefix, final_time=-9.95, progress=False)
    rows = [l.split() for l in open(prefix + ".jnt") if l.split()[0] == "998"]
    assert len(rows) == len(r.t) and any(abs(float(x)) > 0 for x in rows[-1][1:13])


@pytest.mark.slow
def test_rotating_shaft_settles_to_the_analytic_sag_and_drops_the_damper(tmp_path):
    """Long form: by t = -2.4 the damper has settled the shaft at the static mid-span sag of
    the clamped-clamped shaft with the disk (analytic with shear, 3.30982 mm; mbdae 3.309812,
    1e-6), and the rod writes no row after it switches off at -2.5."""
    deck, rs = _rotating_shaft_deck(tmp_path)
    prefix = str(tmp_path / "out")
    r = deck.run(output_prefix=prefix, final_time=-2.4, progress=False)
    k = r.index(rs.MID)
    sag = r.x[0, k, 2] - r.x[-1, k, 2]
    assert abs(sag - rs.static_sag()) < 1e-5 * rs.static_sag()
    rows = [l.split() for l in open(prefix + ".jnt") if l.split()[0] == "998"]
    assert len(rows) == int(np.count_nonzero(r.t < -2.5))
