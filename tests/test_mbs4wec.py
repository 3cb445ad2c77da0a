"""MBS4WEC (seed 004) as an independent joint-coordinate solver (cases/marine/mbs4wec.py) and its
two cases (cases/marine/wec_cases.py), against closed forms, conservation laws and finite
differences, with hand-made hydrodynamic data:

* Φ Pᵀ = 0 (WEC-7) for revolute and prismatic joints at random configurations, with Φ checked
  against finite differences of the position constraints and Pᵀ against finite differences of
  the forward kinematics;
* the path matrix (WEC-9) of chains and trees equals the graph-distance definition, and the
  depth-first numbering is ascending along branches;
* τ = 0, no hydrodynamics: linear and angular momentum and kinetic energy are conserved;
* the analytic linearization (stiffness with the preload and geometric terms, damping) equals
  finite differences of the nonlinear reduced forces;
* a single free body gives the classical 6-dof RAO X = F/(−ω²(M+A) + iωB + C) about its
  reference point; a stiff bushing in place of a hinge converges to the hinged model as 1/k;
* T1 and T2 at small amplitude: the nonlinear time-domain model (RK45) converges to the
  frequency-domain solution of the constrained system; at the paper's H = 6 m it departs by
  the amount the geometry predicts (quadratic in H; the chain's mean shortening);
* power balance in steady state: waves in = PTO + radiation + mooring damping.
"""
import dataclasses
import math
import os
import sys

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path
from scipy.special import j1

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cases", "marine"))
import mbs4wec as mb  # noqa: E402
import wec_cases as wc  # noqa: E402

from mbdae.engine.core.hydro_data import HydroData  # noqa: E402

W = wc.WAVE_OMEGA
TW = wc.WAVE_PERIOD


def box_inertia(m, a, b, c):
    return m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def tree_model():
    """Four bodies: a root, a revolute child, a prismatic grandchild and a revolute branch
    given with its bodies in the 'wrong' order (the search flips it)."""
    bodies = [mb.Body("b1", 3.0, box_inertia(3, 2, 1, .5), [0, 0, 0], mb.rotation(np.array([1, 1, 0]) / math.sqrt(2), .3)),
              mb.Body("b2", 2.0, box_inertia(2, 2, 1, .5), [2, 0.1, 0]),
              mb.Body("b3", 1.5, box_inertia(1.5, 1, 1, .5), [4, 0, 0.2]),
              mb.Body("b4", 1.0, box_inertia(1, 1, 1, 1), [2, 1.5, 0])]
    joints = [mb.Joint("revolute", "b1", "b2", [1, 0, 0], [0, 1, 0]),
              mb.Joint("prismatic", "b2", "b3", [3, 0, 0], [1, 0, .3]),
              mb.Joint("revolute", "b4", "b2", [2, 1, 0], [1, 0, 1])]
    return mb.JointCoordinateModel(bodies, joints, gravity=0.0)


def random_coordinates(m, rng):
    q = m.q_ref.copy()
    for i in range(m.n):
        qd = m.qdof[i]
        if m.parent[i] < 0:
            q[qd[:3]] += rng.normal(size=3)
            q[qd[3:]] = mb.R_to_quat(mb.rotvec_to_R(rng.normal(size=3)) @ mb.quat_to_R(q[qd[3:]]))
        else:
            q[qd[0]] = rng.normal()
    return q


# ---------------------------------------------------------------------- kinematics
@pytest.mark.parametrize("kind", ["revolute", "prismatic", "tree"])
def test_constraint_jacobian_annihilates_velocity_transformation(kind):
    rng = np.random.default_rng(11)
    if kind == "tree":
        m = tree_model()
    else:
        bodies = [mb.Body("p", 2.0, np.diag([1., 2, 3]), [0.3, -0.2, 0.1], mb.rotation(np.array([0, 0.6, 0.8]), 0.4)),
                  mb.Body("c", 1.0, np.diag([.5, .4, .3]), [1.5, 0.4, -0.3], mb.rotation(np.array([1., 0, 0]), -0.7))]
        m = mb.JointCoordinateModel(bodies, [mb.Joint(kind, "p", "c", [0.9, 0.1, 0.2], [0.3, 0.5, 0.8])])
    for _ in range(5):
        q = random_coordinates(m, rng)
        R, r = m.pose(q)
        PT = m.velocity_transformation(R, r)
        Phi = m.constraint_jacobian(R, r)
        # the forward kinematics satisfies the position constraints, and Φ has full row rank
        assert np.abs(m.constraint_residual(R, r)).max() < 1e-13
        assert np.linalg.matrix_rank(Phi) == Phi.shape[0] == 6 * m.n - m.nf
        # WEC-7
        assert np.abs(Phi @ PT).max() < 1e-13 * max(1.0, np.abs(PT).max())
        assert np.linalg.matrix_rank(PT) == m.nf
        # Φ is the velocity Jacobian of the constraints: Φ V = dg/dt along any body motion V
        V = rng.normal(size=6 * m.n)
        h = 1e-6

        def moved(eps):
            Rn = np.array([mb.rotvec_to_R(eps * V[6 * i + 3:6 * i + 6]) @ R[i] for i in range(m.n)])
            return m.constraint_residual(Rn, r + eps * V.reshape(m.n, 6)[:, :3])
        assert np.allclose((moved(h) - moved(-h)) / (2 * h), Phi @ V, atol=1e-8)
        # Pᵀ s is the body velocity of the forward kinematics moving along q̇(s); Ṗᵀ s likewise
        s = rng.normal(size=m.nf)
        qd = m.rhs(0.0, m.initial_state(q, s))[:m.nq]
        (Rp, rp), (Rm, rm) = m.pose(q + h * qd), m.pose(q - h * qd)
        v = PT @ s
        for i in range(m.n):
            assert np.allclose((rp[i] - rm[i]) / (2 * h), v[6 * i:6 * i + 3], atol=1e-8)
            Wd = (Rp[i] - Rm[i]) / (2 * h) @ R[i].T
            assert np.allclose([Wd[2, 1], Wd[0, 2], Wd[1, 0]], v[6 * i + 3:6 * i + 6], atol=1e-8)
        dPT = (m.velocity_transformation(Rp, rp) - m.velocity_transformation(Rm, rm)) / (2 * h)
        assert np.allclose(dPT @ s, m.bias_acceleration(R, r, v, s), atol=1e-7)


def random_tree(n, rng):
    parent = [-1] + [int(rng.integers(0, i)) for i in range(1, n)]
    perm = rng.permutation(n)                      # names in a shuffled order
    names = [f"body{k}" for k in perm]
    joints = []
    for i in rng.permutation(np.arange(1, n)):     # joints listed in any order, either way round
        a, b = names[parent[i]], names[i]
        if rng.random() < 0.5:
            a, b = b, a
        joints.append(mb.Joint("revolute", a, b, [0, 0, 0], [0, 1, 0]))
    return names, joints


@pytest.mark.parametrize("seed", range(6))
def test_path_matrix_of_trees_matches_graph_distances(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    names, joints = random_tree(n, rng)
    root = names[int(rng.integers(0, n))]
    order, parent, via = mb.dfs_topology(names, joints, [root])
    assert names[order[0]] == root and sorted(order) == list(range(n))
    Pi = mb.path_matrix(parent)
    # independent definition: j is between the root and i  ⇔  d(root, j) + d(j, i) = d(root, i)
    adj = np.zeros((n, n))
    pos = {names[b]: k for k, b in enumerate(order)}
    for jt in joints:
        a, b = pos[jt.body_a], pos[jt.body_b]
        adj[a, b] = adj[b, a] = 1
    d = shortest_path(adj, unweighted=True, directed=False)
    expect = (np.abs(d[0][None, :] + d - d[0][:, None]) < 0.5).astype(int)
    assert np.array_equal(Pi, expect)
    # ascending numbering along branches: parents first, and every subtree a contiguous block
    assert all(parent[i] < i for i in range(1, n))
    assert np.array_equal(Pi, np.tril(Pi)) and np.all(np.diag(Pi) == 1)
    for j in range(n):
        sub = np.nonzero(Pi[:, j])[0]
        assert np.array_equal(sub, np.arange(j, j + len(sub)))
    # the joint that connects each body is one of its own
    for i in range(1, n):
        jt = joints[via[i]]
        assert {pos[jt.body_a], pos[jt.body_b]} == {i, parent[i]}


def test_path_matrix_of_the_paper_chain_and_a_loop():
    names = ["barge1", "barge2", "barge3"]
    joints = [mb.Joint("revolute", "barge2", "barge3", [1, 0, 0], [0, 1, 0]),
              mb.Joint("revolute", "barge1", "barge2", [-1, 0, 0], [0, 1, 0])]
    order, parent, _ = mb.dfs_topology(names, joints, ["barge1"])
    assert [names[b] for b in order] == names and parent == [-1, 0, 1]
    assert np.array_equal(mb.path_matrix(parent), np.tril(np.ones((3, 3), dtype=int)))
    loop = joints + [mb.Joint("revolute", "barge3", "barge1", [0, 0, 0], [0, 1, 0])]
    with pytest.raises(ValueError, match="closes a loop"):
        mb.dfs_topology(names, loop, ["barge1"])


def test_free_tree_conserves_momentum_and_energy():
    m = tree_model()
    rng = np.random.default_rng(2)
    y0 = m.initial_state(None, rng.normal(size=m.nf))

    def invariants(y):
        ctx = m.state(0.0, y)
        p, L, E = np.zeros(3), np.zeros(3), 0.0
        for i, b in enumerate(m.bodies):
            v, w = ctx.V[6 * i:6 * i + 3], ctx.V[6 * i + 3:6 * i + 6]
            J = ctx.R[i] @ b.inertia @ ctx.R[i].T
            p += b.mass * v
            L += np.cross(ctx.r[i], b.mass * v) + J @ w
            E += 0.5 * b.mass * v @ v + 0.5 * w @ J @ w
        return p, L, E
    sol = m.simulate(4.0, y0, rtol=1e-11)
    (p0, L0, E0), (p1, L1, E1) = invariants(sol.y[:, 0]), invariants(sol.y[:, -1])
    moved = np.abs(sol.y[:m.nq, -1] - sol.y[:m.nq, 0]).max()
    assert moved > 1.0                                    # the bodies did move and turn
    assert np.linalg.norm(p1 - p0) < 1e-9 * np.linalg.norm(p0)
    assert np.linalg.norm(L1 - L0) < 1e-8 * np.linalg.norm(L0)
    assert abs(E1 - E0) < 1e-9 * E0


# ---------------------------------------------------------------------- linearization
def loaded_model():
    """Two trees: a root with a revolute child and a prismatic grandchild, wet (hand-made
    coefficients, buoyancy ≠ weight, centres of buoyancy off the verticals: joints loaded, so
    the geometric stiffness matters), mooring off the CM, a preloaded spring–damper off the
    axis, a joint spring; a second tree of two bodies joined by a bushing."""
    rng = np.random.default_rng(3)
    bodies = [mb.Body("a", 3e5, box_inertia(3e5, 20, 8, 4), [0, 0, -0.5], mb.rotation(np.array([0., 0, 1]), 0.2)),
              mb.Body("b", 2e5, box_inertia(2e5, 15, 8, 4), [18, 0, 0.3]),
              mb.Body("c", 5e4, box_inertia(5e4, 2, 2, 2), [18, 0, 3]),
              mb.Body("d", 1e5, box_inertia(1e5, 5, 5, 5), [40, 5, 0]),
              mb.Body("e", 1e5, box_inertia(1e5, 5, 5, 5), [46, 5, 0])]
    joints = [mb.Joint("revolute", "a", "b", [10, 0.5, 0], [0, 1, 0.2]),
              mb.Joint("prismatic", "b", "c", [18, 0, 2], [0.1, 0, 1])]
    m = mb.JointCoordinateModel(bodies, joints, roots=["a", "d"])
    n6 = 12
    A = rng.normal(size=(n6, n6))
    B = rng.normal(size=(n6, n6))
    C = rng.normal(size=(n6, n6))
    X = (rng.normal(size=(1, 2, n6)) + 1j * rng.normal(size=(1, 2, n6))) * 1e5
    hd = HydroData(omega=np.array([0.5, 1.0]), added_mass=np.stack([A @ A.T * 1e4] * 2),
                   radiation_damping=np.stack([B @ B.T * 1e3] * 2), added_mass_infinite=A @ A.T * 1e4,
                   hydrostatic_stiffness=(C + C.T) * 1e5, headings=np.array([0.0]), excitation=X,
                   reference_points=np.array([[1, 0.5, 0.], [18, 0, 0.]]), displaced_volume=np.array([300., 250.]),
                   centre_of_buoyancy=np.array([[1.2, 0.4, -1.], [18, 0, -1.]]))
    m.add(mb.HydroLoads(hd, ["a", "b"], mb.regular_wave(1.0, 2 * np.pi)))
    m.add(mb.LinearMooring("a", np.diag([1e4, 2e4, 3e4, 4e4, 5e4, 6e4]) + 1e3, np.diag([1., 2, 3, 4, 5, 6]) * 1e3,
                           point=[3, 1, -1]))
    m.add(mb.SpringDamper("a", [2, 1, 1], "c", [18.5, 0.3, 3.2], 1e5, 1.0, 2e4))
    m.add(mb.JointSpringDamper("c", 3e4, 1e3, rest=0.1))
    m.add(mb.Bushing("d", "e", [43, 5, 0], np.diag([1e6, 2e6, 3e6]), np.diag([1e3, 2e3, 3e3]),
                     np.diag([4e6, 0, 5e6]), np.diag([1e4, 0, 2e4])))
    return m


def test_linearization_equals_finite_differences_of_the_nonlinear_forces():
    m = loaded_model()
    lin = m.linearize(1.0)

    def Q(q, s=None):
        ctx = m.state(0.0, m.initial_state(q, s))
        tau, _, Qq, _ = m.generalized_forces(ctx, excitation=False)
        return ctx.PT.T @ tau + Qq

    def perturbed(j, h):                       # q_j: root translations, global rotations, joints
        q = m.q_ref.copy()
        b = m.dof_body(j)
        qd, loc = m.qdof[b], j - m.sdof[b][0]
        if m.parent[b] >= 0:
            q[qd[0]] += h
        elif loc < 3:
            q[qd[loc]] += h
        else:
            q[qd[3:]] = mb.R_to_quat(mb.rotvec_to_R(h * np.eye(3)[loc - 3]) @ mb.quat_to_R(q[qd[3:]]))
        return q
    h = 1e-6
    K_fd = np.column_stack([-(Q(perturbed(j, h)) - Q(perturbed(j, -h))) / (2 * h) for j in range(m.nf)])
    B_fd = np.column_stack([-(Q(m.q_ref, h * e) - Q(m.q_ref, -h * e)) / (2 * h) for e in np.eye(m.nf)])
    tau0, _ = m.static_forces()
    R, r = m.pose(m.q_ref)
    K_geo = m.geometric_stiffness(R, r, tau0)
    assert np.abs(K_geo).max() > 1e-2 * np.abs(lin.K).max()      # the joints are loaded here
    assert np.abs(K_fd - lin.K).max() < 1e-8 * np.abs(lin.K).max()
    assert np.abs(B_fd - lin.B).max() < 1e-8 * np.abs(lin.B).max()
    assert np.allclose(lin.M, lin.M.T, rtol=1e-12, atol=0)


def test_unforced_wet_system_conserves_energy_at_large_amplitude(t2_hydro):
    """T2 without waves and dampers, thrown into ±30° pitch, metres of heave and slide: the
    kinetic energy (bodies and added mass ½ν_oᵀAν_o) plus the potential (hydrostatic
    ½ξ_oᵀCξ_o − ρgV·δz_o, gravity, spring, mooring) stays constant.  In a planar motion the
    rotation vector's rate is the angular velocity, so the linear hydrostatics is conservative."""
    data = wc.t2_data(pto_damping=0.0)
    data["mooring"]["damping"] = np.zeros((6, 6))
    hd = dataclasses.replace(t2_hydro, radiation_damping=np.zeros_like(t2_hydro.radiation_damping))
    m = wc.build_t2(hydro=hd, height=0.0, data=data)
    hyd, moor, spring = m.elements[0], m.elements[1], m.elements[2]
    s0 = np.zeros(m.nf)
    s0[[0, 2, 4, 6]] = [0.5, 1.5, 0.4, 1.0]

    def energy(y):
        ctx = m.state(0.0, y)
        _, Madd, _, _ = m.generalized_forces(ctx, excitation=False)
        E = 0.5 * ctx.V @ (m.mass_matrix(ctx.R) + Madd) @ ctx.V
        o = ctx.r[0] + ctx.R[0] @ hyd.arm[0]
        xi = np.concatenate([o - hd.reference_points[0], mb.R_to_rotvec(ctx.R[0])])
        E += 0.5 * xi @ hd.hydrostatic_stiffness @ xi - hd.rho * hd.g * hyd.volume[0] * xi[2]
        E += sum(b.mass * m.g * ctx.r[i][2] for i, b in enumerate(m.bodies))
        _, _, length, _, _ = spring.geometry(ctx.R, ctx.r)
        E += 0.5 * spring.k * (length - spring.l0) ** 2
        eta = np.concatenate([ctx.r[0] + ctx.R[0] @ moor.arm - moor.p0, mb.R_to_rotvec(ctx.R[0])])
        return E + 0.5 * eta @ moor.G @ eta
    t = np.linspace(0.0, 30.0, 16)
    sol = m.simulate(30.0, m.initial_state(None, s0), t_eval=t, rtol=1e-10)
    E = np.array([energy(sol.y[:, k]) for k in range(len(t))])
    mot = sol.body_motion()
    assert np.degrees(np.abs(mot[:, 0, 4]).max()) > 20 and np.abs(sol.coordinates()[7]).max() > 1.0
    assert np.abs(mot[:, 0, [1, 3, 5]]).max() < 1e-9                    # it stays planar
    kinetic0 = energy(m.initial_state(None, s0)) - energy(m.initial_state())
    assert np.abs(E - E[0]).max() < 1e-6 * kinetic0        # 2e-8 measured; 0.2 without Tᵀ A Ṫ v


def single_body_hydro(o, A, B, C, X, volume):
    return HydroData(omega=np.array([0.5, 1.5]), added_mass=np.stack([A, A]), radiation_damping=np.stack([B, B]),
                     added_mass_infinite=A, hydrostatic_stiffness=C, headings=np.array([0.0]),
                     excitation=np.stack([X, X])[None], reference_points=np.array([o]),
                     displaced_volume=np.array([volume]), centre_of_buoyancy=np.array([o + [0, 0, -2.0]]))


def test_single_free_body_gives_the_six_dof_rao():
    """About the reference point o (CM 1.5 m below it): X_o = [−ω²(M_o + A) + iω(B + B_m) + C
    − m g z_G (roll, pitch) + G_m]⁻¹ F with M_o the rigid-body mass matrix about o."""
    rng = np.random.default_rng(5)
    rho, g, vol = 1025.0, 9.81, 400.0
    mass = rho * vol
    o = np.array([1.0, -2.0, 0.0])
    zG = -1.5
    Jc = np.diag([2e7, 3e7, 4e7])
    A = rng.normal(size=(6, 6))
    A = A @ A.T * 2e4 + np.diag([1e5] * 3 + [1e7] * 3)
    Bd = rng.normal(size=(6, 6))
    Bd = Bd @ Bd.T * 1e3
    C = np.zeros((6, 6))
    C[2, 2], C[3, 3], C[4, 4], C[2, 4] = 1e6, 3e7, 4e7, 2e5
    C[4, 2] = C[2, 4]
    Gm = np.diag([2e4, 3e4, 0, 0, 0, 5e5])
    Bm = np.diag([4e4, 4e4, 1e3, 0, 0, 1e5])
    X = (rng.normal(size=6) + 1j * rng.normal(size=6)) * 1e5
    hd = single_body_hydro(o, A, Bd, C, X, vol)
    w = 1.0
    m = mb.JointCoordinateModel([mb.Body("buoy", mass, Jc, o + [0, 0, zG])], [], gravity=g)
    m.add(mb.HydroLoads(hd, ["buoy"], mb.regular_wave(2.0, 2 * np.pi / w)))
    m.add(mb.LinearMooring("buoy", Gm, Bm, point=o))
    assert m.static_residual() < 1e-14
    lin = m.linearize(w)
    xi_o = mb.transport(o - m.bodies[0].position) @ lin.solve()
    d = np.array([0, 0, zG])
    S = mb.skew(d)
    Mo = np.block([[mass * np.eye(3), -mass * S], [mass * S, Jc - mass * S @ S]])
    Cg = np.zeros((6, 6))
    Cg[3, 3] = Cg[4, 4] = -mass * g * zG
    Z = -w * w * (Mo + A) + 1j * w * (Bd + Bm) + C + Cg + Gm
    expect = np.linalg.solve(Z, 1.0 * X)
    assert np.allclose(xi_o, expect, rtol=1e-10, atol=1e-12 * np.abs(expect).max())
    # the time-domain model at small amplitude, started on the linear steady state, stays on it
    small = mb.JointCoordinateModel([mb.Body("buoy", mass, Jc, o + [0, 0, zG])], [], gravity=g)
    small.add(mb.HydroLoads(hd, ["buoy"], mb.regular_wave(2e-3, 2 * np.pi / w)))
    small.add(mb.LinearMooring("buoy", Gm, Bm, point=o))
    ls = small.linearize(w)
    ls.solve()
    t = np.linspace(2 * np.pi, 6 * np.pi, 81)
    sol = small.simulate(t[-1], ls.initial_state(), t_eval=t, rtol=1e-10)
    xi_td = sol.body_motion()[:, 0] @ mb.transport(o - small.bodies[0].position).T
    for c in range(6):
        amp, _ = mb.first_harmonic(t, xi_td[:, c], w)
        assert abs(amp - 1e-3 * expect[c]) < 1e-4 * 1e-3 * np.abs(expect).max(), c


def test_stiff_bushing_approaches_the_hinge():
    """Two barges joined by a revolute joint vs the same barges as two free roots joined by a
    bushing stiff in everything but the hinge rotation: the difference falls like 1/k."""
    hulls = [dict(wc.T1["hulls"][i]) for i in (0, 1)]
    hd = wc.approximate_hydro(hulls, [0.8, W, 1.0])
    bodies = lambda: [mb.Body(b["name"], b["mass"], b["inertia"], b["cm"]) for b in wc.T1["bodies"][:2]]  # noqa: E731
    hinge = wc.T1["joints"][0]

    def common(m):
        m.add(mb.HydroLoads(hd, ["barge1", "barge2"], mb.regular_wave(1.0, TW), displaced_volume=[750.0, 750.0]))
        m.add(mb.LinearMooring("barge1", wc.T1["mooring"]["stiffness"], wc.T1["mooring"]["damping"]))
        return m.linearize(W)
    lin = common(mb.JointCoordinateModel(bodies(), [mb.Joint("revolute", "barge1", "barge2", hinge["point"],
                                                             hinge["axis"])], gravity=wc.G))
    ref = lin.body_motion(lin.solve())
    errors = []
    for k in (1e9, 1e10, 1e11):
        m = mb.JointCoordinateModel(bodies(), [], roots=["barge1", "barge2"], gravity=wc.G)
        m.add(mb.Bushing("barge1", "barge2", hinge["point"], k * np.eye(3), np.zeros((3, 3)),
                         np.diag([k * 100, 0.0, k * 100]), np.zeros((3, 3))))
        lb = common(m)
        errors.append(np.abs(lb.body_motion(lb.solve()) - ref).max() / np.abs(ref).max())
    assert errors[-1] < 1e-4
    assert 7 < errors[0] / errors[1] < 13 and 7 < errors[1] / errors[2] < 13


# ---------------------------------------------------------------------- the cases
@pytest.fixture(scope="module")
def t1_hydro():
    return wc.approximate_hydro(wc.T1["hulls"], [0.6, W, 1.2])


@pytest.fixture(scope="module")
def t2_hydro():
    return wc.approximate_hydro(wc.T2["hulls"], [0.6, W, 1.2])


def test_hand_made_excitation_matches_froude_krylov_closed_forms():
    """The quadrature of wec_cases against the closed forms: box heave ρg e^{−kT} B 2sin(kL/2)/k
    and surge 2iρgB(1−e^{−kT}) sin(kL/2)/k; cylinder heave ρg e^{−kT} πa² 2J₁(ka)/(ka).  And the
    Haskind damping is symmetric positive semi-definite."""
    rho, g, w = wc.RHO, wc.G, 1.1
    k = w * w / g
    box = dict(wc.T1["hulls"][1])
    X = wc.froude_krylov([box], w, [0.0])[0]
    L, B, T = box["length"], box["beam"], box["draft"]
    assert np.isclose(X[2], rho * g * math.exp(-k * T) * B * 2 * math.sin(k * L / 2) / k, rtol=1e-10)
    assert np.isclose(X[0], 2j * rho * g * B * (1 - math.exp(-k * T)) * math.sin(k * L / 2) / k, rtol=1e-10)
    cyl = dict(wc.T2["hulls"][0])
    a, T = cyl["radius"], cyl["draft"]
    Xc = wc.froude_krylov([cyl], w, [0.0])[0]
    assert np.isclose(Xc[2], rho * g * math.exp(-k * T) * math.pi * a * a * 2 * j1(k * a) / (k * a), rtol=1e-10)
    hd = wc.approximate_hydro(wc.T1["hulls"], [0.5, 1.0])
    for Bw in hd.radiation_damping:
        assert np.allclose(Bw, Bw.T) and np.linalg.eigvalsh(Bw).min() > -1e-9 * np.abs(Bw).max()


def test_capytaine_data_of_the_buoy_obey_haskind_and_the_phase_convention():
    """capytaine_hydro (optional extra) for T2's buoy: the Haskind relations of an axisymmetric
    body, B33 = k|X3|²/(4ρg c_g) and B11 = k|X1|²/(8ρg c_g), hold to the discretization
    error, and the surge force leads the wave elevation at the axis by about 90° in HydroData's
    e^{iωt} convention (Capytaine's e^{−iωt} values conjugated)."""
    pytest.importorskip("capytaine")
    hd = wc.capytaine_hydro(wc.T2["hulls"], [0.8, W])
    for i, w in enumerate(hd.omega):
        k, cg = w * w / wc.G, wc.G / (2 * w)
        X, B = hd.excitation[0, i], hd.radiation_damping[i]
        assert abs(B[2, 2] / (k * abs(X[2]) ** 2 / (4 * wc.RHO * wc.G * cg)) - 1) < 0.05
        assert abs(B[0, 0] / (k * abs(X[0]) ** 2 / (8 * wc.RHO * wc.G * cg)) - 1) < 0.05
        assert abs(np.angle(X[0]) - np.pi / 2) < 0.3


def harmonics(t, sol, model, w):
    mot = sol.body_motion()
    q = sol.coordinates()
    out = {}
    for i, name in enumerate(model.names):
        for c, lab in ((0, "surge"), (2, "heave"), (4, "pitch")):
            out[(name, lab)] = mb.first_harmonic(t, mot[:, i, c], w)
        if model.parent[i] >= 0:
            out[(name, "joint")] = mb.first_harmonic(t, q[model.qdof[i][0]], w)
    return out


def linear_amplitudes(model, lin):
    xi = lin.body_motion()
    out = {}
    for i, name in enumerate(model.names):
        for c, lab in ((0, "surge"), (2, "heave"), (4, "pitch")):
            out[(name, lab)] = xi[i, c]
        if model.parent[i] >= 0:
            out[(name, "joint")] = lin.X[model.sdof[i][0]]
    return out


def run_case(build, hydro, height, t_end=200.0, periods=3):
    model = build(hydro=hydro, height=height, ramp=3 * TW)
    lin = model.linearize(W)
    lin.solve()
    t = np.linspace(t_end - periods * TW, t_end, 60 * periods + 1)
    sol = model.simulate(t_end, t_eval=t, rtol=1e-7)
    return model, lin, t, sol


@pytest.fixture(scope="module")
def t1_small(t1_hydro):
    return run_case(wc.build_t1, t1_hydro, 0.01)


@pytest.fixture(scope="module")
def t2_small(t2_hydro):
    return run_case(wc.build_t2, t2_hydro, 0.01)


@pytest.mark.parametrize("case", ["t1_small", "t2_small"])
def test_small_amplitude_time_domain_converges_to_frequency_domain(case, request):
    model, lin, t, sol = request.getfixturevalue(case)
    assert model.static_residual() < 1e-12
    td, fd = harmonics(t, sol, model, W), linear_amplitudes(model, lin)
    scale = max(abs(v) for (n, lab), v in fd.items() if lab in ("surge", "heave"))
    checked = 0
    for key, x_lin in fd.items():
        c, _ = td[key]
        if key[1] in ("surge", "heave") and abs(x_lin) < 1e-2 * scale:
            continue
        assert abs(c / x_lin - 1) < 1e-2, (key, c, x_lin)          # amplitude and phase within 1 %
        checked += 1
    assert checked >= 3 * model.n


@pytest.mark.parametrize("case", ["t1_small", "t2_small"])
def test_power_balance_in_steady_state(case, request):
    """Mean over whole periods: the waves' power = PTO + radiation + mooring damping, in the
    linear solution (exactly) and in the nonlinear time-domain run (integrated work)."""
    model, lin, t, sol = request.getfixturevalue(case)
    P = lin.mean_powers()
    absorbed = sum(v for k, v in P.items() if k != "excitation")
    assert abs(P["excitation"] - absorbed) < 1e-10 * P["excitation"]
    pto = [k for k in P if k.startswith("pto") and P[k] > 0]
    assert pto and all(P[k] > 1e-3 * P["excitation"] for k in pto)
    work = sol.work()
    dt = t[-1] - t[0]
    td = {k: (v[-1] - v[0]) / dt for k, v in work.items()}
    assert abs(sum(td.values())) < 1e-3 * td["hydro:excitation"]
    for k, v in P.items():
        key = "hydro:excitation" if k == "excitation" else k
        if v > 1e-3 * P["excitation"]:
            assert abs(abs(td[key]) / v - 1) < 1e-2, (k, td[key], v)
    # the PTO's mean power from the joint or length amplitude, ½ω²b|Δ|²
    for e in model.elements:
        if isinstance(e, (mb.JointSpringDamper, mb.SpringDamper)) and e.b > 0:
            assert np.isclose(e.mean_power(lin), P[f"{e.name}:damper"], rtol=1e-10)


@pytest.fixture(scope="module")
def t1_large(t1_hydro):
    return {H: run_case(wc.build_t1, t1_hydro, H) for H in (3.0, wc.WAVE_HEIGHT)}


def test_t1_large_amplitude_departs_as_the_hinge_geometry_predicts(t1_large):
    """At the paper's H = 6 m the hinges swing ±20° and more: the first harmonics depart from
    the linear model by a relative amount that grows like H² (×4 from H = 3 m), and the chain
    shortens on average by s/4 Σ|θ|² between barge CMs (s = 15.5 m, CM to hinge), which the
    linear model cannot show."""
    dep = {}
    for H, (model, lin, t, sol) in t1_large.items():
        td, fd = harmonics(t, sol, model, W), linear_amplitudes(model, lin)
        dep[H] = np.array([abs(abs(td[(n, "joint")][0]) / abs(fd[(n, "joint")]) - 1) for n in ("barge2", "barge3")])
        if H == wc.WAVE_HEIGHT:
            assert min(abs(td[(n, "joint")][0]) for n in ("barge2", "barge3")) > math.radians(15)
            mot = sol.body_motion()
            s = (wc.T1["bodies"][1]["cm"][0] - wc.T1["joints"][0]["point"][0])
            for a, b in (("barge1", "barge2"), ("barge2", "barge3")):
                ia, ib = model.names.index(a), model.names.index(b)
                mean_gap = np.mean(mot[:-1, ib, 0] - mot[:-1, ia, 0])
                theta2 = abs(td[(a, "pitch")][0]) ** 2 + abs(td[(b, "pitch")][0]) ** 2
                assert abs(mean_gap / (-s / 4 * theta2) - 1) < 0.05, (a, b, mean_gap)
            Ptd = {k: -(v[-1] - v[0]) / (t[-1] - t[0]) for k, v in sol.work().items() if k.startswith("pto")}
            Plin = lin.mean_powers()
            assert any(abs(Ptd[k] / Plin[k] - 1) > 0.01 for k in Ptd)
    assert dep[wc.WAVE_HEIGHT].max() > 0.01
    ratio = dep[wc.WAVE_HEIGHT] / dep[3.0]
    assert np.all((ratio > 3.2) & (ratio < 4.8)), ratio


def test_t2_large_amplitude_departs(t2_hydro):
    """T2 at H = 6 m: the reaction mass's stroke and the PTO power depart from the linear model
    by several per cent (the buoy pitches ±15° while its heave is 1.5 times the wave's)."""
    model, lin, t, sol = run_case(wc.build_t2, t2_hydro, wc.WAVE_HEIGHT)
    td, fd = harmonics(t, sol, model, W), linear_amplitudes(model, lin)
    stroke = abs(td[("mass", "joint")][0]) / abs(fd[("mass", "joint")])
    assert abs(stroke - 1) > 0.02
    P = -(sol.work()["pto:damper"][-1] - sol.work()["pto:damper"][0]) / (t[-1] - t[0])
    assert abs(P / wc.pto_power(model, lin)["pto"] - 1) > 0.03
    assert abs(td[("buoy", "pitch")][0]) > math.radians(10)


def test_case_data_float_in_equilibrium(t1_hydro, t2_hydro):
    for build, case, hd in ((wc.build_t1, wc.T1, t1_hydro), (wc.build_t2, wc.T2, t2_hydro)):
        total = sum(b["mass"] for b in case["bodies"])
        assert np.isclose(total, wc.RHO * sum(h["displaced_volume"] for h in case["hulls"]), rtol=1e-12)
        assert np.allclose(hd.displaced_volume, [h["displaced_volume"] for h in case["hulls"]], rtol=1e-12)
        assert build(hydro=hd).static_residual() < 1e-12
