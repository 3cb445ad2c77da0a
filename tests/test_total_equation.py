"""MBDyn's `total equation` and `total internal reaction` joints (RigidJoints family): the
equation has a total joint's rows and no loads, the reaction has the loads Bᵀλ of a total
joint on its own nodes and frames with the equation's multipliers, and no rows."""
import os

import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.state import Context
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.drives import LinearDrive, ConstDrive, ParabolicDrive
from mbdae import run
from mbdae.engine.io.mbdyn.deck import read_deck, DeckError
from mbdae.engine.core import rotations as rot
from samples import rand_R, _nodes, randomize_state, total_equation_model


def _frames(rng):
    return dict(offset1=rng.normal(size=3), position_orientation1=rand_R(rng),
                rotation_orientation1=rand_R(rng), offset2=rng.normal(size=3),
                rotation_orientation2=rand_R(rng))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("dcoef", [1e-3, 0.7])
def test_equation_plus_reaction_on_the_same_nodes_is_a_total_joint(seed, dcoef):
    """Residual and Jacobian of an equation/reaction pair equal those of the total joint with
    the same frames, statuses and drives, at a random state (same unknown layout)."""
    status = dict(position_status=("active", "velocity", "active"),
                  orientation_status=("active", "inactive", "active"))
    models = []
    for kind in ("joint", "pair"):
        rng = np.random.default_rng(seed)
        m = Model()
        _nodes(m, rng, 3)
        frames = _frames(rng)
        drives = dict(position_drive=VectorDrive.single(rng.normal(size=3), LinearDrive(0.2, 0.1)),
                      orientation_drive=VectorDrive.single(rng.normal(size=3), ConstDrive(0.3)))
        if kind == "joint":
            m.total_joint(1, 1, 2, **frames, **status, **drives)
        else:
            m.total_equation(1, 1, 2, **frames, **status, **drives)
            # the reaction's active position components take the equation's position and
            # velocity multipliers (MBDyn's order)
            m.total_internal_reaction(2, 1, 2, 1, **frames, position_status=("active",) * 3,
                                      orientation_status=status["orientation_status"])
        m.total_joint(3, 2, 3, **_frames(rng), position_status=("active", "inactive", "active"))
        models.append(System(m))
    a, b = models
    assert a.n == b.n
    st = randomize_state(a, np.random.default_rng(10 + seed))
    fa, _, Ja = a.evaluate(st, dcoef)
    fb, _, Jb = b.evaluate(st, dcoef)
    assert np.abs(fa).max() > 1e-3
    np.testing.assert_allclose(fb, fa, rtol=0, atol=1e-12 * np.abs(fa).max())
    Ja, Jb = Ja.toarray(), Jb.toarray()
    np.testing.assert_allclose(Jb, Ja, rtol=0, atol=1e-12 * np.abs(Ja).max())


def _node_loads(system, st, dcoef=0.3):
    fam = system.families[0]
    ctx = Context(st.t, st.y, st.yp, system.kinematics(st, dcoef), "regular")
    return fam, fam.node_loads(ctx).reshape(-1, 4, 3), system.kinematics(st, dcoef)


def test_lone_equation_loads_no_node_and_reactions_balance():
    """Action = reaction does not hold across an equation and its reaction (the equation's
    nodes get nothing; that is the point of the pair), so it is checked per element: an
    equation's node loads are zero, a reaction's forces and moments about the origin sum to
    zero, and they are not zero (the equation's multipliers do reach the reaction)."""
    rng = np.random.default_rng(4)
    system = System(total_equation_model(rng))
    st = randomize_state(system, rng)
    fam, loads, kin = _node_loads(system, st)
    assert np.all(loads[fam.equation_only] == 0.0)
    r = fam.reaction_only
    F1, M1, F2, M2 = (loads[r, k] for k in range(4))
    x1, x2 = kin.x[fam.n1[r]], kin.x[fam.n2[r]]
    scale = np.abs(loads[r]).max()
    assert scale > 1e-2
    np.testing.assert_allclose(F1 + F2, 0.0, atol=1e-12 * scale)
    np.testing.assert_allclose(M1 + M2 + rot.cross(x1, F1) + rot.cross(x2, F2), 0.0, atol=1e-11 * scale)


def test_reaction_loads_follow_the_equation_multipliers():
    """Scaling the equation's multipliers scales the reaction's loads (linear in λ), and the
    reaction alone owns no unknowns."""
    rng = np.random.default_rng(6)
    model = total_equation_model(rng)
    system = System(model)
    fam = system.families[0]
    n_rows = sum(int(np.count_nonzero(s.active)) for s in model.joints if s.type == "total equation")
    assert fam.n_internal == n_rows
    st = randomize_state(system, rng)
    _, l1, _ = _node_loads(system, st)
    st.y[fam.mult[fam.active]] *= -2.5
    _, l2, _ = _node_loads(system, st)
    np.testing.assert_allclose(l2[fam.reaction_only], -2.5 * l1[fam.reaction_only], rtol=1e-12, atol=1e-12)


def test_bad_reaction_references_are_reported():
    m = Model()
    _nodes(m, np.random.default_rng(0), 2)
    m.total_joint(1, 1, 2, position_status=("active",) * 3)
    m.total_internal_reaction(2, 1, 2, 1, position_status=("active",) * 3)
    with pytest.raises(ValueError, match="total equation joint 1 is not defined"):
        System(m)
    m = Model()
    _nodes(m, np.random.default_rng(0), 2)
    m.total_equation(1, 1, 2, position_status=("active",) * 3)
    m.total_internal_reaction(2, 1, 2, 1, position_status=("active", "active", "inactive"))
    with pytest.raises(ValueError, match="has 2 reactions, while total equation 1 defines 3"):
        System(m)


DECK = """
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.02; time step: 1e-2; tolerance: 1e-8;
    max iterations: 10; end: initial value;
begin: control data; structural nodes: 3; rigid bodies: 2; joints: 3; end: control data;
begin: nodes;
    structural: 1, static, null, eye, null, null;
    structural: 2, dynamic, null, eye, null, null;
    structural: 3, dynamic, 0., 1., 0., eye, null, null;
end: nodes;
begin: elements;
    joint: 1, clamp, 1, node, node;
    body: 2, 2, 1., null, eye;
    body: 3, 3, 1., null, eye;
    joint: 7, total equation, 1, position, reference, node, null, 2,
        position constraint, active, active, inactive, component, 0., 0., 0.;
    joint: 8, total internal reaction, 1, position, reference, node, 1, 1, 0, 3,
        position constraint, active, active, inactive, total equation, REF;
end: elements;
"""


def test_deck_cards_are_read(tmp_path):
    path = tmp_path / "eq.mbd"
    path.write_text(DECK.replace("REF", "7"))
    d = read_deck(str(path), echo=lambda *a: None)
    eq, reac = d.model.joints[1], d.model.joints[2]
    assert eq.type == "total equation" and list(np.flatnonzero(eq.active)) == [0, 1]
    assert reac.type == "total internal reaction" and reac.equation == 7
    assert (reac.node1, reac.node2) == (1, 3)
    np.testing.assert_allclose(reac.f1, [1.0, 1.0, 0.0])
    path.write_text(DECK.replace("REF", "9"))
    with pytest.raises(DeckError, match=r"TotalEquation\(9\) needed by TotalReaction\(8\)"):
        read_deck(str(path), echo=lambda *a: None)


def test_reaction_on_the_other_mass_drives_the_rigid_pair():
    """Masses m2 = 1 (node 2) and m3 = 3 (node 3, 1 along x) rigidly joined by a total joint; a total
    equation imposes node 2's x = t² relative to a clamped node 1, and its reaction pushes
    node 3 instead of node 2 (along the line of both masses: no torque).  Newton: the pushing
    force is (m2 + m3)·2 = 8 along x, and
    the equation holds (node 2 follows t², node 3 keeps its offset)."""
    m = Model()
    m.structural_node(1, "static")
    m.structural_node(2, "dynamic")
    m.structural_node(3, "dynamic", position=[1.0, 0.0, 0.0])
    m.clamp(1, 1)
    m.body(2, 2, 1.0, inertia=np.eye(3))
    m.body(3, 3, 3.0, inertia=np.eye(3))
    m.total_joint(2, 2, 3, offset1=[1.0, 0.0, 0.0], position_status=("active",) * 3,
                  orientation_status=("active",) * 3)
    m.total_equation(3, 1, 2, position_status=("active", "inactive", "inactive"),
                     position_drive=VectorDrive.single([1.0, 0.0, 0.0], ParabolicDrive(0.0, 0.0, 1.0)))
    m.total_internal_reaction(4, 1, 3, 3, offset1=[1.0, 0.0, 0.0],
                              position_status=("active", "inactive", "inactive"))
    res = run(m, initial_time=0.0, final_time=0.5, time_step=0.01, tolerance=1e-10)
    t = np.asarray(res.t)
    x2, x3 = res.x[:, res.index(2)], res.x[:, res.index(3)]
    np.testing.assert_allclose(x2[:, 0], t ** 2, atol=1e-9)
    np.testing.assert_allclose(x3, x2 + [1.0, 0.0, 0.0], atol=1e-9)
    F, M = res.joint(4)                      # force the reaction applies to node 3
    np.testing.assert_allclose(F[2:], [[8.0, 0.0, 0.0]] * (len(t) - 2), atol=1e-6)
    F_eq, _ = res.joint(3)                   # the equation loads nothing
    assert np.all(F_eq == 0.0)
