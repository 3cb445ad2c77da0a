"""Physics of the couplings between solids' displacement nodes and nodes with rotation (the
offset displacement and rigid body displacement joints), the cross spring support genel,
inertia elements, surface loads in the initial assembly, and the solver cards the solid
decks use (derivatives solution tolerance, enforce constraint equations, dummy steps), each
against a closed form."""
import re

import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.drivers.ivp import InitialValueProblem, SimulationFailed
from mbdae.engine.core.drives import LinearDrive, SineDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.constitutive import LinearElastic1D
from mbdae.engine.core import rotations as rot
from mbdae.solvers.newton import NewtonRaphson, NewtonSettings
from mbdae.engine.io.mbdyn.deck import read_deck


def _family(ivp, name):
    return next(f for f in ivp.system.families if f.name == name)


def _context(ivp):
    st = ivp.state
    return ivp.system.context(st, kin=ivp.system.kinematics(st))


def _spinning_node(m, label, x0, R0, W, v=(0.0, 0.0, 0.0)):
    """A static node with rotation whose pose is imposed: x0 + v t and R0 Rz(W t), a rotation
    about its own axis 3 (a total pin joint, all components active)."""
    m.structural_node(label, "static", position=x0, orientation=R0)
    m.total_pin_joint(100 + label, label, absolute_position=x0, absolute_rotation_orientation=R0,
                      position_status=("active",) * 3,
                      position_drive=VectorDrive.component([LinearDrive(0.0, c) for c in v]),
                      orientation_status=("active",) * 3,
                      orientation_drive=VectorDrive.single([0.0, 0.0, 1.0], LinearDrive(0.0, W)))


def _rotz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def test_offset_displacement_joint_follows_the_offset_point_and_transmits_the_load():
    """A displacement node joined to a node spinning at W follows x1 + R1 o1 with
    o1 = R10ᵀ(X2 - x10) exactly; loaded by F it takes -F from the joint, and the joint's .jnt
    columns and private data are that force and its moment about node 1 ((R1 o1) × F2)."""
    W, F = 2.0, np.array([1.0, -2.0, 0.5])
    x1, R10 = np.array([0.1, 0.2, 0.3]), rot.exp_rotvec([0.3, -0.2, 0.5])
    X2 = np.array([0.7, -0.4, 0.9])
    m = Model()
    _spinning_node(m, 1, x1, R10, W)
    m.structural_node(2, "static displacement", position=X2 + [0.05, 0.0, -0.03])   # assembled onto the point
    m.offset_displacement_joint(2, 1, 2, position=X2)
    m.force(1, 2, F)
    ivp = InitialValueProblem(m, final_time=0.5, time_step=0.05)
    r = ivp.run()
    o1 = R10.T @ (X2 - x1)
    expected = np.array([x1 + R10 @ _rotz(W * t) @ o1 for t in r.t])
    assert np.allclose(r.x[:, 1], expected, atol=1e-9)
    joints = _family(ivp, "joint")
    ctx = _context(ivp)
    R1 = R10 @ _rotz(W * r.t[-1])
    F2, M = -F, np.cross(R1 @ o1, -F)
    k = int(np.flatnonzero(joints.labels == 2)[0])
    got_f = [joints.private_data(ctx, f"f{a}")[k] for a in "xyz"]
    got_m = [joints.private_data(ctx, f"m{a}")[k] for a in "xyz"]
    got_F = [joints.private_data(ctx, f"F{a}")[k] for a in "xyz"]
    assert np.allclose(got_f, F2, atol=1e-9) and np.allclose(got_m, M, atol=1e-9)
    assert np.allclose(got_F, R1.T @ F2, atol=1e-9)
    rows = dict((int(l), v) for labels, vals in joints.output_groups(ctx) for l, v in zip(labels, vals))
    assert np.allclose(rows[2], np.concatenate([R1.T @ F2, R1.T @ M, F2, M]), atol=1e-9)


def _slaves(rng, n=4):
    """n non-coplanar points around the origin."""
    return rng.normal(size=(n, 3)) + np.array([[1, 0, 0], [0, 1, 0], [-1, -1, 0], [0, 0, 1]][:n] + [[0, 0, 0]] * (n - 4))


def test_rigid_body_displacement_joint_reproduces_a_rigid_motion():
    """Slaves carried rigidly by a node spinning and translating: the master (a free static
    node) moves with the same rigid motion, x_m = x_D + R_D R_D0ᵀ(x_m0 - x_D0),
    R_m = R_D R_D0ᵀ R_m0, whatever the weights."""
    rng = np.random.default_rng(4)
    W, v = 1.5, np.array([0.3, -0.1, 0.2])
    xD, RD0 = np.array([0.2, 0.1, -0.1]), rot.exp_rotvec([0.1, 0.4, -0.2])
    xm0, Rm0 = np.array([0.4, -0.3, 0.5]), rot.exp_rotvec([-0.5, 0.2, 0.3])
    P = _slaves(rng)
    m = Model()
    _spinning_node(m, 1, xD, RD0, W, v)
    for j, p in enumerate(P):
        m.structural_node(10 + j, "static displacement", position=p)
        m.offset_displacement_joint(10 + j, 1, 10 + j)
    m.structural_node(2, "static", position=xm0, orientation=Rm0)
    m.rigid_body_displacement_joint(50, 2, [10, 11, 12, 13], weights=[1.0, 2.0, 1.5, 0.5])
    r = InitialValueProblem(m, final_time=0.6, time_step=0.05).run()
    k = r.index(2)
    for t, x, R in zip(r.t, r.x[:, k], r.R[:, k]):
        RD = RD0 @ _rotz(W * t)
        assert np.allclose(x, xD + v * t + RD @ RD0.T @ (xm0 - xD), atol=1e-9)
        assert np.allclose(R, RD @ RD0.T @ Rm0, atol=1e-9)


@pytest.mark.parametrize("load", ["force", "couple"])
def test_rigid_body_displacement_joint_distributes_loads_as_rbe3(load):
    """Slaves clamped, the master at their weighted centroid: a force F on the master reaches
    slave j as w_j F / Σw; a couple C as w_j (J_w⁻¹ C) × a_j, J_w = Σ w_j (|a_j|² I - a_j a_jᵀ),
    a_j = x_j - x_m (the weighted least-squares distribution of an RBE3); the .jnt columns
    are the load on the master."""
    rng = np.random.default_rng(6)
    P = _slaves(rng, 5)
    w = np.array([1.0, 2.0, 0.5, 1.5, 3.0])
    xm = w @ P / w.sum()
    value = np.array([0.4, -1.2, 2.0])
    m = Model()
    labels = []
    for j, p in enumerate(P):
        m.structural_node(10 + j, "static displacement", position=p)
        for c in (1, 2, 3):
            m.genel_clamp(100 + 3 * j + c, 10 + j, "structural", index=c)
        labels.append(10 + j)
    m.structural_node(1, "static", position=xm, orientation=rot.exp_rotvec([0.2, 0.1, -0.3]))
    m.rigid_body_displacement_joint(50, 1, labels, weights=w)
    (m.force if load == "force" else m.couple)(1, 1, value)
    ivp = InitialValueProblem(m, final_time=0.1, time_step=0.1)
    ivp.run()
    ctx = _context(ivp)
    lam = _family(ivp, "genel clamp").multipliers(ctx).reshape(len(P), 3)   # the load on each slave
    a = P - xm
    if load == "force":
        expected = w[:, None] * value / w.sum()
    else:
        Jw = sum(wj * (aj @ aj * np.eye(3) - np.outer(aj, aj)) for wj, aj in zip(w, a))
        expected = w[:, None] * np.cross(np.linalg.solve(Jw, value), a)
    assert np.allclose(lam, expected, atol=1e-10 * np.abs(value).max())
    # balance about the master, and the joint's columns (global force and couple)
    assert np.allclose(lam.sum(axis=0), value if load == "force" else 0.0, atol=1e-10)
    assert np.allclose(np.cross(a, lam).sum(axis=0), 0.0 if load == "force" else value, atol=1e-10)
    fam = _family(ivp, "rigid body displacement joint")
    cols = fam.output_groups(ctx)[0][1][0]
    assert np.allclose(cols[6:9], value if load == "force" else 0.0, atol=1e-10)
    assert np.allclose(cols[9:12], 0.0 if load == "force" else value, atol=1e-10)
    R = ctx.kin.R[fam.master[0]]
    assert np.allclose(cols[0:3], R.T @ cols[6:9]) and np.allclose(cols[3:6], R.T @ cols[9:12])
    assert np.isclose(fam.private_data(ctx, "Mz")[0], cols[5]) and np.isclose(fam.private_data(ctx, "fy")[0], cols[7])


def test_cross_spring_support_law():
    """Spring support k1 on p and cross spring support k2 of the z of a node driven along z
    on p's equation: k1 p + k2 z = 0, p(t) = -k2 z(t) / k1 (the hydrostatic decks' p = ρ g h)."""
    k1, k2 = 2.0, 5.0
    m = Model()
    m.structural_node(1, "static displacement", position=[0.0, 0.0, 0.3])
    m.genel_clamp(1, 1, "structural", index=1)
    m.genel_clamp(2, 1, "structural", index=2)
    m.genel_clamp(3, 1, "structural", index=3, value=SineDrive(0.0, 3.0, 0.2, "forever", 0.3))
    m.abstract_node(1, "differential")
    m.spring_support(4, 1, LinearElastic1D(k1))
    m.cross_spring_support(5, 1, 1, LinearElastic1D(k2), col_type="structural", col_index=3)
    ivp = InitialValueProblem(m, final_time=1.0, time_step=0.05)
    r = ivp.run()
    z = 0.3 + 0.2 * np.sin(3.0 * r.t)
    assert np.allclose(r.x[:, 0, 2], z, atol=1e-12)
    ctx = _context(ivp)
    p = _family(ivp, "abstract node").private_data(ctx, "x")[0]
    assert np.isclose(p, -k2 * z[-1] / k1, atol=1e-12)


def test_inertia_element_of_a_rigidly_spinning_pair():
    """Two bodies moving with one rigid velocity field v0 + ω × x: the inertia element's
    Omega is ω, beta = m V, V = v0 + ω × X, X the mass centre, J = J_cg + m (|D|² I - D Dᵀ)
    in the card's frame, and the principal moments are those of J_cg."""
    w, v0 = np.array([0.3, -1.1, 0.7]), np.array([0.2, 0.5, -0.4])
    m = Model()
    x = [np.array([0.5, 0.1, -0.2]), np.array([-0.3, 0.4, 0.6])]
    R = [rot.exp_rotvec([0.2, 0.3, -0.1]), rot.exp_rotvec([-0.4, 0.1, 0.5])]
    for k in range(2):
        m.structural_node(k + 1, "dynamic", position=x[k], orientation=R[k], velocity=v0 + np.cross(w, x[k]),
                          angular_velocity=w)
    masses, cgs, Js = [2.0, 3.0], [np.array([0.1, 0.0, 0.2]), np.array([0.0, -0.2, 0.1])], \
        [np.diag([1.0, 2.0, 3.0]), np.diag([0.5, 0.4, 0.9])]
    for k in range(2):
        m.body(k + 1, k + 1, masses[k], cgs[k], Js[k])
    X0, R0 = np.array([1.0, 2.0, 3.0]), rot.exp_rotvec([0.1, -0.2, 0.3])
    m.inertia_element(1, position=X0, orientation=R0)
    system = System(m)
    st = system.initial_state(0.0)
    ctx = system.context(st)
    fam = next(f for f in system.families if f.name == "inertia")
    c = [x[k] + R[k] @ cgs[k] for k in range(2)]
    M = sum(masses)
    X = (masses[0] * c[0] + masses[1] * c[1]) / M
    Jcg = sum(R[k] @ Js[k] @ R[k].T + masses[k] * ((c[k] - X) @ (c[k] - X) * np.eye(3) - np.outer(c[k] - X, c[k] - X))
              for k in range(2))
    D = X - X0
    J = R0.T @ (Jcg + M * (D @ D * np.eye(3) - np.outer(D, D))) @ R0
    get = lambda q: np.array([fam.private_data(ctx, f"{q}[{i}]")[0] for i in (1, 2, 3)])   # noqa: E731
    assert np.isclose(fam.private_data(ctx, "m")[0], M)
    assert np.allclose(get("X"), X) and np.allclose(get("Omega"), w)
    assert np.allclose(get("V"), v0 + np.cross(w, X)) and np.allclose(get("beta"), M * get("V"))
    assert np.allclose(get("gamma"), Jcg @ w)
    assert np.allclose([[fam.private_data(ctx, f"J[{i},{j}]")[0] for j in (1, 2, 3)] for i in (1, 2, 3)], J)
    assert np.allclose([[fam.private_data(ctx, f"Jcg[{i},{j}]")[0] for j in (1, 2, 3)] for i in (1, 2, 3)], Jcg)
    assert np.allclose(get("JP"), np.linalg.eigvalsh(Jcg))
    axes = rot.exp_rotvec(get("Phi"))
    assert np.allclose(axes.T @ Jcg @ axes, np.diag(np.linalg.eigvalsh(Jcg)), atol=1e-12)


@pytest.mark.parametrize("in_assembly", [True, False])
def test_surface_loads_in_assembly_deflect_the_assembly_springs(in_assembly):
    """A flat square of side a under pressure p, its four displacement nodes on assembly
    springs k: with `use: surface loads, in assembly` the initial assembly moves the square by
    p a² / (4 k) against its normal (the pressure's consistent nodal loads); without it the
    nodes stay."""
    a, p, k = 0.2, 3.0e3, 5.0e4
    m = Model()
    corners = [(0, 0), (a, 0), (a, a), (0, a)]
    for j, (x, y) in enumerate(corners):
        m.structural_node(j + 1, "static displacement", position=[x, y, 0.0], assembly_stiffness=(k, k))
    m.pressure_load(1, "q4", [1, 2, 3, 4], pressure=p)
    m.surface_loads_in_assembly = in_assembly
    ivp = InitialValueProblem(m, final_time=1.0, time_step=1.0)
    st = ivp.system.initial_state(0.0)
    ivp.initial_assembly(st)
    nodes = ivp.system.nodes
    x = st.y[nodes.ix]
    dz = -p * a * a / (4 * k) if in_assembly else 0.0
    assert np.allclose(x[:, :2], np.array(corners), atol=1e-14)
    assert np.allclose(x[:, 2], dz, rtol=1e-9, atol=1e-14)
    assert np.allclose(st.yp[nodes.ix], 0.0, atol=1e-14)        # no load in the velocity subproblem


DECK = """
begin: data; problem: initial value; end: data;
begin: initial value;
    initial time: 0; final time: 0.1; time step: 0.01;
    tolerance: 1e-9;
    {extra}
end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; forces: 1; end: control data;
begin: nodes; structural: 1, dynamic, null, eye, null, 1., 2., 3.; end: nodes;
begin: elements;
    body: 1, 1, 2., 0.1, 0.2, 0.3, diag, 1., 2., 3.;
    force: 1, absolute, 1, position, null, 0., 0., -1., const, 4.;
end: elements;
"""


def _deck(tmp_path, extra=""):
    path = tmp_path / "deck.mbd"
    path.write_text(DECK.format(extra=extra))
    return read_deck(str(path), echo=lambda *a: None)


def test_derivatives_tolerance_second_value_is_a_solution_tolerance(tmp_path):
    """`derivatives tolerance: r, s`: the derivatives phase ends on the residual test r or on
    the solution test ‖Δ‖ ≤ s, the first to pass.  With an unreachable r (1e-300) the phase
    of a spinning free body under a force ends on the solution test; without s it cannot end."""
    d = _deck(tmp_path, "derivatives tolerance: 1e-300, 1e-3;")
    assert (d.settings["derivatives_tolerance"], d.settings["derivatives_solution_tolerance"]) == (1e-300, 1e-3)
    ivp = d.problem()
    ivp.prepare()
    assert 1 <= ivp.derivatives_info[0] <= 3
    assert np.isclose(ivp.state.yp[ivp.system.nodes.ib[0, 2]], -4.0)       # β̇ = F
    with pytest.raises(SimulationFailed, match="derivatives phase"):
        _deck(tmp_path, "derivatives tolerance: 1e-300;").problem().prepare()
    with pytest.raises(Exception, match="residual or a solution tolerance"):
        _deck(tmp_path, "derivatives tolerance: null, null;")


def test_enforce_constraint_equations_scales_the_tested_constraint_rows():
    """`enforce constraint equations: constraint violations, scale factor, s`: a regular
    step's residual test sees the rows divided by dCoef as dCoef·s·f (s times the
    violation); the other rows and the other phases are unchanged."""
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    system = System(m)
    f = np.arange(1.0, system.n + 1.0)
    newton = NewtonRaphson(NewtonSettings(constraint_test_scale=3.0))
    g, _ = newton._tested(system, f, None, 0.01, "regular")
    rows = system.scaled_rows
    assert rows.any() and np.allclose(g[rows], 0.03 * f[rows]) and np.allclose(g[~rows], f[~rows])
    assert np.allclose(newton._tested(system, f, None, 0.01, "derivatives")[0], f)


def test_enforce_constraint_equations_card(tmp_path):
    d = _deck(tmp_path, "enforce constraint equations: constraint violations, scale factor, 2.5;")
    assert d.settings["constraint_test_scale"] == 2.5
    d = _deck(tmp_path, "enforce constraint equations: constraint violations;")
    assert d.settings["constraint_test_scale"] == pytest.approx(100.0)       # 1 / time step
    d = _deck(tmp_path, "enforce constraint equations: constraint violation rates;")
    assert d.settings.get("constraint_test_scale") is None


def test_dummy_steps_use_their_tolerance_iterations_and_method():
    """Dummy steps advance time by n·ratio·h with their own method; a dummy steps max
    iterations too small for their tolerance makes them fail, while the regular steps pass."""
    m = Model()
    m.structural_node(1, "dynamic")
    m.body(1, 1, 2.0, inertia=np.eye(3))
    m.force(1, 1, [0.0, 0.0, -4.0])
    kw = dict(final_time=0.1, time_step=0.01, dummy_steps=3, dummy_steps_ratio=0.1,
              dummy_steps_method=("implicit euler", 0.0), dummy_steps_tolerance=1e-12)
    r = InitialValueProblem(m, **kw).run()
    assert np.isclose(r.t[1], 3 * 0.1 * 0.01 + 0.01)
    a = -2.0                       # F/m from rest: every step (implicit Euler, ms) gives v = a t exactly
    assert np.allclose(r.v[1:, 0, 2], a * r.t[1:], atol=1e-12)
    spinning = Model()                # nonlinear (gyroscopic): no step ends with a zero residual
    spinning.structural_node(1, "dynamic", angular_velocity=[1.0, 2.0, 3.0])
    spinning.body(1, 1, 2.0, [0.1, 0.2, 0.3], np.diag([1.0, 2.0, 3.0]))
    with pytest.raises(SimulationFailed, match="dummy step 1"):
        InitialValueProblem(spinning, **{**kw, "dummy_steps_tolerance": 1e-300,
                                         "dummy_steps_max_iterations": 2}).run()
    InitialValueProblem(spinning, **{**kw, "dummy_steps_tolerance": 1e-8, "dummy_steps_max_iterations": 5}).run()


COUPLING_DECK = """
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0; final time: 0.1; time step: 0.1; end: initial value;
begin: control data; structural nodes: 5; joints: 1; end: control data;
begin: nodes;
    structural: 1, static, null, eye, null, null;
    structural: 2, static displacement, 1., 0., 0., null;
    structural: 3, static displacement, 0., 1., 0., null;
    structural: 4, static displacement, 0., 0., 1., null;
    structural: 5, static displacement, 1., 1., 1., null;
end: nodes;
begin: elements;
    {card}
end: elements;
"""


@pytest.mark.parametrize("card,message", [
    ("joint: 1, offset displacement joint, 2, 3;", "node 1 (Structural(2)) must have rotation"),
    ("joint: 1, rigid body displacement joint, 1, 2, 2, 3;", "at least three slave nodes"),
    ("joint: 1, rigid body displacement joint, 2, 3, 3, 4, 5;", "master node (Structural(2)) must have rotation"),
    ("joint: 1, rigid body displacement joint, 1, 3, 2, weight, 1., 3, weight, -1., 4, weight, -1.;",
     "total weight must be greater than zero"),
])
def test_coupling_cards_refuse_bad_input_with_the_deck_position(tmp_path, card, message):
    path = tmp_path / "bad.mbd"
    path.write_text(COUPLING_DECK.format(card=card))
    with pytest.raises(Exception, match=re.escape(message)) as err:
        read_deck(str(path), echo=lambda *a: None)
    assert f"{path}:13:" in str(err.value) and "\n" not in str(err.value)


def test_coupling_cards_read(tmp_path):
    """The deck forms: the offset's point from `position` (absolute, in node 2's frame), the
    slaves' weights scaled by α / Σw with α = N² / Σ|o_j|² (MBDyn's default)."""
    path = tmp_path / "ok.mbd"
    card = ("joint: 1, rigid body displacement joint, 1, 4, 2, weight, 2., 3, position, reference, node, 0., 0., 1., "
            "4, 5, weight, 0.5;")
    path.write_text(COUPLING_DECK.format(card=card))
    m = read_deck(str(path), echo=lambda *a: None).model
    s = m.rigid_body_displacement_joints[0]
    o = np.array([[1.0, 0, 0], [0, 1.0, 1.0], [0, 0, 1.0], [1.0, 1.0, 1.0]])
    assert np.allclose(s.offsets, o)
    w = np.array([2.0, 1.0, 1.0, 0.5])
    assert np.allclose(s.weights, w * 16 / (o * o).sum() / w.sum())
