"""Generated checks over the element registry (digest §5.1): Jacobian vs central finite
differences through the solver's update rule, objectivity, action = reaction."""
import numpy as np

from mbdae.engine.core.state import Context
import pytest

from mbdae.elements import FAMILIES
from mbdae.engine.system import System
from mbdae.engine.checks import jacobian_mismatch
from mbdae.engine.core import rotations as rot
from samples import SAMPLES, randomize_state, rigid_motion

CASES = [(name, i) for name, builders in SAMPLES.items() for i in range(len(builders))]


def test_every_family_has_samples():
    """Every family class of the registry's modules has samples in its module."""
    names = {f.name for f in FAMILIES}
    assert names <= set(SAMPLES), f"families without generated checks: {names - set(SAMPLES)}"


@pytest.mark.parametrize("name,i", CASES)
@pytest.mark.parametrize("dcoef", [1e-6, 1e-2, 1.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_jacobian_vs_finite_differences(name, i, dcoef, seed):
    rng = np.random.default_rng(seed)
    system = System(SAMPLES[name][i](rng))
    st = randomize_state(system, rng)
    eps = 1e-4 if dcoef < 1e-3 else 1e-6
    err, scale, r, c, Ja, Jf = jacobian_mismatch(system, st, dcoef, eps=eps)
    # rounding noise of the central difference grows with |f| (constraint rows divided by dCoef
    # are O(1/dCoef) at a random, unassembled state)
    f = np.abs(system.evaluate(st, dcoef, want_jac=False)[0]).max()
    excess = np.abs(Ja - Jf) - (1e-6 * max(scale, 1.0) + 100 * np.finfo(float).eps * f / eps)
    r, c = np.unravel_index(np.argmax(excess), excess.shape)
    err = excess[r, c]
    assert err <= 0, (
        f"{name}: |J - J_fd| exceeds tolerance by {err:.3e} (scale {scale:.3e}) at row {r} ({system.owner_text(r)}), "
        f"col {c} ({system.owner_text(c)}): {Ja[r, c]:.8e} vs {Jf[r, c]:.8e}")


@pytest.mark.parametrize("family,seed", [("joint", 3), ("rigid body displacement joint", 13), ("modal joint", 4)])
@pytest.mark.parametrize("mode", ["ia_position", "ia_velocity"])
def test_jacobian_in_initial_assembly(family, seed, mode):
    """The families with initial-assembly rows: FD Jacobian in the position and velocity
    subproblems."""
    rng = np.random.default_rng(seed)
    system = System(SAMPLES[family][0](rng))
    st = randomize_state(system, rng, g_scale=0.0 if mode == "ia_velocity" else 0.2)
    if mode == "ia_velocity":
        st.y[system.nodes.ig_rot] = 0.0
    n = system.nodes.n
    ia = (rng.normal(size=(n, 3)), rng.normal(size=(n, 3)), rng.normal(size=(n, 3)))
    dcoef = 1.0 if mode == "ia_position" else 0.0
    err, scale, r, c, Ja, Jf = jacobian_mismatch(system, st, dcoef, mode=mode, ia=ia, eps=1e-6)
    assert err <= 1e-6 * max(scale, 1.0), f"{mode}: row {system.owner_text(r)} col {c}: {Ja[r, c]} vs {Jf[r, c]}"


def family_residual(system, st, dcoef):
    """(node loads (ne, 12), constraint rows or None) of the (single) element family alone:
    the joints give their loads by `node_loads` and their rows per group of equal rows."""
    fam = system.families[0]
    ctx = Context(st.t, st.y, st.yp, system.kinematics(st, dcoef), "regular")
    res = fam.residual_blocks(ctx)
    if not hasattr(fam, "node_loads"):
        return res[0], None
    rows = np.concatenate([res[2 * k + 1][g.mult >= 0] for k, g in enumerate(fam.groups)])
    return fam.node_loads(ctx), rows


@pytest.mark.parametrize("name", ["rod", "joint", "force", "deformable joint"])
def test_action_equals_reaction(name):
    """Internal elements: Σ forces = 0 and Σ moments about the origin = 0."""
    rng = np.random.default_rng(5)
    model = SAMPLES[name][0](rng)
    if name == "force":       # keep the internal forces and couples only
        model.forces = [s for s in model.forces if s.node2 is not None]
    if name == "joint":       # keep the two-node joints only
        model.joints = [s for s in model.joints if s.node1 is not None]
    system = System(model)
    st = randomize_state(system, rng)
    kin = system.kinematics(st, 0.3)
    node_rows = family_residual(system, st, 0.3)[0].reshape(-1, 4, 3)
    F1, M1, F2, M2 = (node_rows[:, k] for k in range(4))
    fam = system.families[0]
    x = kin.x
    n1 = np.where(fam.n1 >= 0, fam.n1, 0)
    x1, x2 = x[n1], x[fam.n2]
    scale = np.abs(node_rows).max()
    assert np.allclose(F1 + F2, 0.0, atol=1e-10 * scale)
    if name != "force":   # an internal force with two application points is not moment-free (§14.2.1)
        assert np.allclose(M1 + M2 + rot.cross(x1, F1) + rot.cross(x2, F2), 0.0, atol=1e-9 * scale)


@pytest.mark.parametrize("name", ["rod", "joint", "deformable joint"])
def test_objectivity(name):
    """A rigid rotation Q and translation of the whole system, plus a superimposed rigid
    velocity field, rotates the node loads by Q and leaves the constraint rows unchanged."""
    rng = np.random.default_rng(7)
    model = SAMPLES[name][0](rng)
    if name == "joint":
        model.joints = [s for s in model.joints if s.node1 is not None]
    system = System(model)
    st = randomize_state(system, rng)
    nodes = system.nodes
    st.y[nodes.ig_rot] = 0.0          # evaluate at the reference orientation
    r0 = family_residual(system, st, 0.5)
    Q = rot.exp_rotvec(rng.normal(size=3))
    c = rng.normal(size=3)
    v0, w0 = rng.normal(size=3), rng.normal(size=3)
    st2 = rigid_motion(st, nodes, Q, c, v0, w0)
    r1 = family_residual(system, st2, 0.5)
    fam = system.families[0]
    a = np.asarray(r0[0]).reshape(-1, 4, 3)
    b = np.asarray(r1[0]).reshape(-1, 4, 3)
    assert np.allclose(rot.matvec(Q, a), b, atol=1e-9 * np.abs(a).max())
    if name == "joint":
        # constraint rows (positions, rotations, relative velocities) are frame-invariant
        c0, c1 = r0[1], r1[1]
        assert np.allclose(c0, c1, atol=1e-9 * max(1.0, np.abs(c0).max()))


# ------------------------------------------------------------ multi-node coupling (RBE3-like)
def _rbd_blocks(system, st, dcoef=0.4):
    """(family, kinematics, master loads (ne, 6), rows (ne, 6), slave loads (nk, 3)) of the
    rigid body displacement joint sample, alone."""
    fam = system.families[0]
    kin = system.kinematics(st, dcoef)
    res = fam.residual_blocks(Context(st.t, st.y, st.yp, kin, "regular"))
    return fam, kin, res[0], res[1], res[2]


def test_rigid_body_displacement_action_equals_reaction():
    """Σ forces = 0 over master and slaves; Σ moments about the origin = c_t × λt + c_r × λr,
    the rate of λ·c under a rigid rotation of the rows' global frame (zero once the rows
    hold: tests/test_solid_joints.py checks that case), at a random state."""
    rng = np.random.default_rng(11)
    system = System(SAMPLES["rigid body displacement joint"][0](rng))
    st = randomize_state(system, rng)
    dcoef = 0.4
    fam, kin, m, c, s = _rbd_blocks(system, st, dcoef)
    scale = max(np.abs(m).max(), np.abs(s).max())
    lam = st.y[fam.mult]
    for e in range(fam.ne):
        k = np.flatnonzero(fam.owner == e)
        xm, xs = kin.x[fam.master[e]], kin.x[fam.slave[k]]
        F = m[e, :3] + s[k].sum(axis=0)
        M = m[e, 3:] + np.cross(xm, m[e, :3]) + np.cross(xs, s[k]).sum(axis=0)
        rows = dcoef * c[e]                       # the rows are c / dCoef in a step
        expected = np.cross(rows[:3], lam[e, :3]) + np.cross(rows[3:], lam[e, 3:])
        assert np.allclose(F, 0.0, atol=1e-12 * scale)
        assert np.allclose(M, expected, atol=1e-11 * scale) and np.abs(expected).max() > 1e-3 * scale


def test_rigid_body_displacement_objectivity():
    """A rigid rotation Q and translation of the whole system (the global multipliers turned
    by Q too) turns the loads and the (global) rows by Q."""
    rng = np.random.default_rng(12)
    system = System(SAMPLES["rigid body displacement joint"][0](rng))
    st = randomize_state(system, rng)
    nodes = system.nodes
    st.y[nodes.ig_rot] = 0.0
    fam, _, m0, c0, s0 = _rbd_blocks(system, st)
    Q = rot.exp_rotvec(rng.normal(size=3))
    st2 = rigid_motion(st, nodes, Q, rng.normal(size=3), rng.normal(size=3), rng.normal(size=3))
    lam = st.y[fam.mult].reshape(fam.ne, 2, 3)
    st2.y[fam.mult] = rot.matvec(Q, lam).reshape(fam.ne, 6)
    _, _, m1, c1, s1 = _rbd_blocks(system, st2)
    turn = lambda a: rot.matvec(Q, a.reshape(-1, 3)).reshape(a.shape)   # noqa: E731
    assert np.allclose(turn(m0), m1, atol=1e-10 * np.abs(m0).max())
    assert np.allclose(turn(s0), s1, atol=1e-10 * np.abs(s0).max())
    assert np.allclose(turn(c0), c1, atol=1e-10 * np.abs(c0).max())


# ------------------------------------------------------------ modal joint (elements/modal.py)
def _floating_modal(rng):
    """The floating instance of the modal joint sample, without gravity."""
    model = SAMPLES["modal joint"][0](rng)
    model.modal_joints = model.modal_joints[:1]
    model.gravity_vector = None
    system = System(model)
    fam = system.family_with("set_own_velocities")
    return system, fam


def _modal_blocks(system, fam, st, dcoef):
    ctx = Context(st.t, st.y, st.yp, system.kinematics(st, dcoef), "regular")
    return fam.residual_blocks(ctx)[0][0], ctx.kin


def test_modal_joint_action_equals_reaction():
    """The interface reactions on the modal node and the interface nodes: Σ forces = 0 and
    Σ moments about the origin = -Σ c_x × λ (the position rows times dCoef; zero once they
    hold), at a random state whose velocity unknowns and their rates are zero (the modal
    node's rows then hold no inertia force: only the reactions)."""
    rng = np.random.default_rng(21)
    system, fam = _floating_modal(rng)
    st = randomize_state(system, rng)
    n0, m = fam.n0[0], fam.M[0]
    nd = system.nodes
    for rows in (nd.ib[n0], nd.ic[n0], fam.qoff[0] + m + np.arange(m)):
        st.y[rows] = 0.0
        st.yp[rows] = 0.0
    dcoef = 0.4
    r, kin = _modal_blocks(system, fam, st, dcoef)
    m = fam.M[0]
    F, M = r[0:3].copy(), r[3:6] + np.cross(kin.x[fam.n0[0]], r[0:3])
    expected = np.zeros(3)
    for k in range(fam.NI[0]):
        b = 12 + 2 * m + 12 * k
        F += r[b:b + 3]
        M += r[b + 3:b + 6] + np.cross(kin.x[fam.inode[0, k]], r[b:b + 3])
        lam = st.y[fam.moff[0, k]:fam.moff[0, k] + 3]
        expected -= np.cross(dcoef * r[b + 6:b + 9], lam)
    scale = np.abs(r[:6]).max()
    assert np.allclose(F, 0.0, atol=1e-12 * scale)
    assert np.allclose(M, expected, atol=1e-11 * scale) and np.abs(expected).max() > 1e-3 * scale


def test_modal_joint_objectivity():
    """A rigid rotation Q and translation of the whole system (velocities and accelerations,
    the modal node's velocity unknowns included, turned by Q, the global force multipliers λ
    too, the couples μ in the interface node's frame not): node loads, velocity definitions
    and position rows turn by Q; the modal equations and rotation rows do not
    change."""
    rng = np.random.default_rng(22)
    system, fam = _floating_modal(rng)
    st = randomize_state(system, rng)
    nodes = system.nodes
    st.y[nodes.ig_rot] = 0.0
    r0, _ = _modal_blocks(system, fam, st, 0.5)
    Q = rot.exp_rotvec(rng.normal(size=3))
    st2 = rigid_motion(st, nodes, Q, rng.normal(size=3), np.zeros(3), np.zeros(3))
    for k in range(fam.NI[0]):
        i = fam.moff[0, k]
        st2.y[i:i + 3] = Q @ st.y[i:i + 3]
    n0 = fam.n0[0]
    for rows in (nodes.ib[n0], nodes.ic[n0]):       # the modal node's v, ω and their rates
        st2.y[rows] = Q @ st.y[rows]
        st2.yp[rows] = Q @ st.yp[rows]
    r1, _ = _modal_blocks(system, fam, st2, 0.5)
    m = fam.M[0]
    vectors = [0, 3, 6, 9] + [12 + 2 * m + 12 * k + j for k in range(fam.NI[0]) for j in (0, 3, 6)]
    scalars = list(range(12, 12 + 2 * m)) + [12 + 2 * m + 12 * k + 9 + j for k in range(fam.NI[0])
                                             for j in range(3)]
    tol = 1e-9 * np.abs(r0).max()
    for i in vectors:
        assert np.allclose(Q @ r0[i:i + 3], r1[i:i + 3], atol=tol), i
    assert np.allclose(r0[scalars], r1[scalars], atol=tol)
