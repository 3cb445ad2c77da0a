"""Inverse dynamics, fully actuated collocated case: a planar two-link arm whose joint
angles follow smooth prescribed laws.  Torques against the closed-form Lagrange torques,
and the round trip through forward dynamics."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.drivers.inverse import InverseDynamicsProblem
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core.drives import ExpressionDrive, PiecewiseLinearDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.rotations import euler123_to_R

M1, M2, L1, LC1, LC2, I1, I2, G = 2.0, 1.5, 0.8, 0.35, 0.3, 0.12, 0.08, 9.81
Q1 = "0.3 + 0.5*sin(2*Time)"
Q2 = "-0.2 + 0.7*sin(3*Time + 0.4)"


def q_exact(t):
    q1 = 0.3 + 0.5 * np.sin(2 * t)
    q2 = -0.2 + 0.7 * np.sin(3 * t + 0.4)
    d1, d2 = np.cos(2 * t), 2.1 * np.cos(3 * t + 0.4)
    a1, a2 = -2.0 * np.sin(2 * t), -6.3 * np.sin(3 * t + 0.4)
    return q1, q2, d1, d2, a1, a2


def lagrange_torques(t):
    q1, q2, d1, d2, a1, a2 = q_exact(t)
    c2, s2 = np.cos(q2), np.sin(q2)
    m11 = M1 * LC1 ** 2 + I1 + M2 * (L1 ** 2 + LC2 ** 2 + 2 * L1 * LC2 * c2) + I2
    m12 = M2 * (LC2 ** 2 + L1 * LC2 * c2) + I2
    m22 = M2 * LC2 ** 2 + I2
    h = M2 * L1 * LC2 * s2
    g1 = (M1 * LC1 + M2 * L1) * G * np.cos(q1) + M2 * LC2 * G * np.cos(q1 + q2)
    g2 = M2 * LC2 * G * np.cos(q1 + q2)
    tau1 = m11 * a1 + m12 * a2 - h * (2 * d1 * d2 + d2 ** 2) + g1
    tau2 = m12 * a1 + m22 * a2 + h * d1 ** 2 + g2
    return tau1, tau2


def arm(driven=True, torques=None):
    """Link 1: node 1 at the shoulder (origin); link 2: node 2 at the elbow; angles about z."""
    q1, q2 = q_exact(0.0)[:2]
    m = Model()
    m.structural_node(1, "dynamic", orientation=euler123_to_R([0, 0, q1]))
    m.structural_node(2, "dynamic", position=[L1 * np.cos(q1), L1 * np.sin(q1), 0],
                      orientation=euler123_to_R([0, 0, q1 + q2]))
    m.body(1, 1, M1, center_of_mass=[LC1, 0, 0], inertia=np.diag([I1, I1, I1]))
    m.body(2, 2, M2, center_of_mass=[LC2, 0, 0], inertia=np.diag([I2, I2, I2]))
    m.revolute_pin(1, 1, absolute_orientation=np.eye(3))
    m.revolute_hinge(2, 1, 2, offset1=[L1, 0, 0])
    m.gravity([0, -G, 0])
    if driven:     # actuators: imposed shoulder and elbow angles (rotation about z only)
        m.total_pin_joint(3, 1, orientation_status=("inactive", "inactive", "active"),
                          orientation_drive=VectorDrive.single([0, 0, 1], ExpressionDrive(Q1)),
                          absolute_rotation_orientation=np.eye(3))
        m.total_joint(4, 1, 2, orientation_status=("inactive", "inactive", "active"),
                      orientation_drive=VectorDrive.single([0, 0, 1], ExpressionDrive(Q2)))
    else:          # the same arm driven by the computed torques
        t, tau1, tau2 = torques
        m.couple(3, 1, VectorDrive.single([0, 0, 1], PiecewiseLinearDrive(list(zip(t, tau1)))))
        m.couple(4, 2, VectorDrive.single([0, 0, 1], PiecewiseLinearDrive(list(zip(t, tau2)))))
        m.couple(5, 1, VectorDrive.single([0, 0, -1], PiecewiseLinearDrive(list(zip(t, tau2)))))
    return m


@pytest.fixture(scope="module")
def inverse():
    t = np.linspace(0.0, 1.0, 4001)
    return InverseDynamicsProblem(arm(), t).run()


def test_joint_torques_match_lagrange(inverse):
    r = inverse
    tau1, tau2 = lagrange_torques(r.t)
    _, M3 = r.joint(3)             # couple of the shoulder actuator on link 1
    _, M4 = r.joint(4)             # couple of the elbow actuator on link 2
    # generalized forces of q1 and q2 are the shoulder and elbow actuator couples
    assert np.allclose(M3[:, 2], tau1, rtol=0, atol=1e-8 * np.abs(tau1).max())
    assert np.allclose(M4[:, 2], tau2, rtol=0, atol=1e-8 * np.abs(tau2).max())
    # prescribed motion reproduced exactly at every instant
    q1, q2, d1, d2, a1, a2 = q_exact(r.t)
    ang1 = np.arctan2(r.R[:, 0, 1, 0], r.R[:, 0, 0, 0])
    assert np.allclose(ang1, q1, atol=1e-12)
    assert np.allclose(r.w[:, 0, 2], d1, atol=1e-10)
    assert np.allclose(r.wd[:, 0, 2], a1, atol=1e-7 * np.abs(a1).max())


def test_round_trip_through_forward_dynamics(inverse):
    r = inverse
    _, M3 = r.joint(3)
    _, M4 = r.joint(4)
    tau1, tau2 = M3[:, 2], M4[:, 2]
    fwd = arm(driven=False, torques=(r.t, tau1, tau2))
    q1, q2, d1, d2 = q_exact(0.0)[:4]
    fwd.nodes[0].w = np.array([0, 0, d1])
    fwd.nodes[1].w = np.array([0, 0, d1 + d2])
    fwd.nodes[1].v = np.cross([0, 0, d1], [L1 * np.cos(q1), L1 * np.sin(q1), 0])
    f = InitialValueProblem(fwd, final_time=1.0, time_step=2.5e-4, method="ms", rho=0.6).run()
    ang1 = np.unwrap(np.arctan2(f.R[:, 0, 1, 0], f.R[:, 0, 0, 0]))
    ang2 = np.unwrap(np.arctan2(f.R[:, 1, 1, 0], f.R[:, 1, 0, 0]))
    e1, e2 = q_exact(f.t)[:2]
    assert np.max(np.abs(ang1 - e1)) < 1e-5 * np.max(np.abs(e1))
    assert np.max(np.abs(ang2 - ang1 - e2)) < 1e-5 * np.max(np.abs(e2))


# ---------------------------------------------------------------------------------------------
# Planar three-link arm (links of lengths L3L, centre of mass at LC3 along the link); node i
# sits at joint i with the orientation of link i (absolute angle φ_i about z).  Generalized
# forces of the relative joint angles by virtual work (Newton-Euler, independent of mbdae):
#   τ_k = Σ_{i≥k} [ (c_i - p_k) × m_i (a_ci - g) ]_z + I_i φ̈_i

L3L = np.array([0.5, 0.4, 0.3])
LC3 = np.array([0.25, 0.2, 0.15])
M3L = np.array([2.0, 1.5, 1.0])
I3L = np.array([0.05, 0.03, 0.02])
Q3 = np.array([0.3, 1.9, -1.5])
PATH = ("0.1*sin(2*Time)", "0.08*(1 - cos(3*Time))", "0.3*sin(1.5*Time)")


def path_exact(t):
    """Prescribed end-effector displacement (x, y), link-3 angle change, and their derivatives."""
    p = np.stack([0.1 * np.sin(2 * t), 0.08 * (1 - np.cos(3 * t))], -1)
    pd = np.stack([0.2 * np.cos(2 * t), 0.24 * np.sin(3 * t)], -1)
    pdd = np.stack([-0.4 * np.sin(2 * t), 0.72 * np.cos(3 * t)], -1)
    a = 0.3 * np.sin(1.5 * t)
    return p, pd, pdd, a


def chain_points(phi, phid=None, phidd=None):
    """Joint points p_i, centres c_i (and their accelerations) of the planar chain."""
    e = lambda a: np.stack([np.cos(a), np.sin(a)], -1)
    n = lambda a: np.stack([-np.sin(a), np.cos(a)], -1)
    p = [np.zeros(phi.shape[:-1] + (2,))]
    for i in range(2):
        p.append(p[-1] + L3L[i] * e(phi[..., i]))
    c = [p[i] + LC3[i] * e(phi[..., i]) for i in range(3)]
    tip = p[2] + L3L[2] * e(phi[..., 2])
    if phid is None:
        return p, c, tip
    acc = lambda L, i: L * (phidd[..., i, None] * n(phi[..., i]) - phid[..., i, None] ** 2 * e(phi[..., i]))
    vel = lambda L, i: L * phid[..., i, None] * n(phi[..., i])
    pa, pv = [np.zeros_like(p[0])], [np.zeros_like(p[0])]
    for i in range(2):
        pa.append(pa[-1] + acc(L3L[i], i))
        pv.append(pv[-1] + vel(L3L[i], i))
    ca = [pa[i] + acc(LC3[i], i) for i in range(3)]
    tipv = pv[2] + vel(L3L[2], 2)
    tipa = pa[2] + acc(L3L[2], 2)
    return p, c, tip, ca, tipv, tipa


def newton_euler_torques(phi, phid, phidd, gravity=G):
    p, c, tip, ca, _, _ = chain_points(phi, phid, phidd)
    g = np.array([0.0, -gravity])
    tau = []
    for k in range(3):
        s = 0.0
        for i in range(k, 3):
            r = c[i] - p[k]
            f = M3L[i] * (ca[i] - g)
            s = s + r[..., 0] * f[..., 1] - r[..., 1] * f[..., 0] + I3L[i] * phidd[..., i]
        tau.append(s)
    return np.stack(tau, -1)


def three_link(control="pose", torques=None, gravity=True):
    """control: 'pose' prescribes tip (x, y) and link-3 angle (fully actuated non collocated),
    'tip' only the tip (x, y) (overcontrolled); torques=(t, τ (steps, 3)) gives the forward model."""
    phi = np.cumsum(Q3)
    m = Model()
    p, c, tip = chain_points(phi)
    for i in range(3):
        m.structural_node(i + 1, "dynamic", position=[*p[i], 0], orientation=euler123_to_R([0, 0, phi[i]]))
        m.body(i + 1, i + 1, M3L[i], center_of_mass=[LC3[i], 0, 0], inertia=np.full(3, I3L[i]))
    m.revolute_pin(1, 1, absolute_orientation=np.eye(3))
    m.revolute_hinge(2, 1, 2, offset1=[L3L[0], 0, 0])
    m.revolute_hinge(3, 2, 3, offset1=[L3L[1], 0, 0])
    if gravity:
        m.gravity([0, -G, 0])
    if torques is None:
        rz = ("inactive", "inactive", "active")
        m.total_pin_joint(11, 1, orientation_status=rz)
        m.total_joint(12, 1, 2, orientation_status=rz)
        m.total_joint(13, 2, 3, orientation_status=rz)
        for lab in (11, 12, 13):
            m.inverse_dynamics_flags(lab, torque=True, prescribed_motion=False)
        rot_status = rz if control == "pose" else ("inactive",) * 3
        m.total_pin_joint(20, 3, offset=[L3L[2], 0, 0],
                          position_status=("active", "active", "inactive"),
                          position_drive=VectorDrive.component([ExpressionDrive(PATH[0]),
                                                                ExpressionDrive(PATH[1]), None]),
                          orientation_status=rot_status,
                          orientation_drive=VectorDrive.single([0, 0, 1], ExpressionDrive(PATH[2])))
        m.inverse_dynamics_flags(20, torque=False, prescribed_motion=True)
    else:
        t, tau = torques
        pl = lambda k: PiecewiseLinearDrive(list(zip(t, tau[:, k])))
        for k in range(3):      # joint k acts on link k (node k+1) and reacts on link k-1
            m.couple(30 + 2 * k, k + 1, VectorDrive.single([0, 0, 1], pl(k)))
            if k > 0:
                m.couple(31 + 2 * k, k, VectorDrive.single([0, 0, -1], pl(k)))
    return m


def link_angles(R):
    return np.unwrap(np.arctan2(R[..., 1, 0], R[..., 0, 0]), axis=0)


@pytest.fixture(scope="module")
def non_collocated():
    t = np.linspace(0.0, 1.0, 2001)    # the round trip interpolates the torques linearly
    prob = InverseDynamicsProblem(three_link("pose"), t, problem_type="fully actuated non collocated")
    return prob.run()


def test_non_collocated_path_and_torques(non_collocated):
    r = non_collocated
    phi0 = np.cumsum(Q3)
    tip0 = chain_points(phi0)[2]
    p, pd, pdd, a = path_exact(r.t)
    phi = link_angles(r.R)
    phid, phidd = r.w[:, :, 2], r.wd[:, :, 2]
    _, _, tip, _, tipv, tipa = chain_points(phi, phid, phidd)
    # the computed motion follows the prescribed path to the solver tolerance, up to accelerations
    assert np.max(np.abs(tip - tip0 - p)) < 1e-9
    assert np.max(np.abs(phi[:, 2] - phi0[2] - a)) < 1e-9
    assert np.max(np.abs(tipv - pd)) < 1e-9
    assert np.max(np.abs(tipa - pdd)) < 1e-8
    # the hinge points stay together (the passive constraints hold)
    x_tip_node = r.x[:, 2, :2] + L3L[2] * np.stack([np.cos(phi[:, 2]), np.sin(phi[:, 2])], -1)
    assert np.max(np.abs(x_tip_node - tip)) < 1e-9
    # actuator torques: the couples of the torque joints on their second node
    tau = np.stack([r.joint(lab)[1][:, 2] for lab in (11, 12, 13)], -1)
    ref = newton_euler_torques(phi, phid, phidd)
    assert np.max(np.abs(tau - ref)) < 1e-8 * np.max(np.abs(ref))
    # the API's actuator table: the rotation rows of the torque joints, same values
    labels, names, values = r.torque_table()
    assert list(labels) == [11, 12, 13] and all(n.endswith("rotation z") for n in names)
    assert np.allclose(values, tau, rtol=0, atol=1e-12 * np.abs(tau).max())
    # the prescribing joint carries no load in the dynamics (μ = 0, manual §6.3.5)
    F20, M20 = r.joint(20)
    assert np.max(np.abs(F20)) == 0.0 and np.max(np.abs(M20)) == 0.0
    assert r.stats["factorizations"] > 0


def test_non_collocated_round_trip(non_collocated):
    r = non_collocated
    tau = np.stack([r.joint(lab)[1][:, 2] for lab in (11, 12, 13)], -1)
    fwd = three_link(torques=(r.t, tau))
    for i in range(3):
        fwd.nodes[i].v = r.v[0, i].copy()
        fwd.nodes[i].w = r.w[0, i].copy()
    f = InitialValueProblem(fwd, final_time=1.0, time_step=2.5e-4, method="ms", rho=0.6).run()
    phi = link_angles(f.R)
    tip = chain_points(phi)[2]
    p, _, _, a = path_exact(f.t)
    tip0 = chain_points(np.cumsum(Q3))[2]
    amp = np.max(np.abs(p))
    assert np.max(np.abs(tip - tip0 - p)) < 1e-5 * amp
    assert np.max(np.abs(phi[:, 2] - Q3.sum() - a)) < 1e-5 * np.max(np.abs(a))


# ---------------------------------------------------------------------------------------------
# Underdetermined problems (manual §6.3.4-6.3.5): the KKT conditions of the weighted
# least-squares subproblems, checked with a null-space basis Z of the kinematic constraint
# matrix and objective gradients by central finite differences of the objectives.

from scipy.linalg import null_space
import scipy.sparse as sp
from mbdae.engine.core import rotations as rot
from mbdae.engine.core.constitutive import LinearViscoelastic1D

MC, MP, LP, IP = 3.0, 0.8, 0.6, 0.02
XC = "0.2*sin(2*Time) + 0.1*Time^2"


def cart_pendulum():
    """Cart (node 1) on the x axis driven by a prescribed position x_c(t) (collocated actuator,
    joint 2); pendulum (node 2) hinged at the cart, centre of mass LP below the pivot."""
    th0 = 0.3
    m = Model()
    m.structural_node(1, "dynamic")
    m.structural_node(2, "dynamic", orientation=euler123_to_R([0, 0, th0]), angular_velocity=[0, 0, 0.5])
    m.body(1, 1, MC, inertia=np.full(3, 0.1))
    m.body(2, 2, MP, center_of_mass=[0, -LP, 0], inertia=np.full(3, IP))
    m.gravity([0, -G, 0])
    m.total_pin_joint(1, 1, position_status=("inactive", "active", "active"),
                      orientation_status=("active",) * 3)
    m.total_pin_joint(2, 1, position_status=("active", "inactive", "inactive"),
                      position_drive=VectorDrive.single([1, 0, 0], ExpressionDrive(XC)))
    m.revolute_hinge(3, 1, 2)
    return m


def objective_gradient(prob, st, fun):
    """Central differences of fun(x, R) over the node perturbations (δx, θ), δR = θ× R."""
    nodes = prob.system.nodes
    x0, R0 = st.y[nodes.ix].copy(), st.R_ref.copy()
    g = np.zeros(prob.n)
    h = 1e-6
    for k in range(prob.n):
        i, j = divmod(k, 6)
        vals = []
        for s in (h, -h):
            x, R = x0.copy(), R0.copy()
            if j < 3:
                x[i, j] += s
            else:
                R[i] = rot.exp_rotvec(s * np.eye(3)[j - 3]) @ R[i]
            vals.append(fun(x, R))
        g[k] = (vals[0] - vals[1]) / (2 * h)
    return g


def mass_distance(prob, M, xp, Rp):
    def fun(x, R):
        d = np.concatenate([x - xp, rot.log_rotvec(R @ np.swapaxes(Rp, -1, -2))], axis=1).reshape(-1)
        return 0.5 * d @ (M @ d)
    return fun


def kkt_checks(prob, r, k, weights, extra_energy=None, extra_damping=None, unit=(0.0, 0.0), base=1.0):
    """Position, velocity (and, for the overcontrolled case, acceleration) KKT residuals at
    instant k: the projected gradients Zᵀ∇J and the constraint residuals."""
    wx, wv, wa = weights
    ux, uv = unit
    st = prob.state(r.t[k], r.x[k], r.R[k], r.v[k], r.w[k])
    st0 = prob.state(r.t[k], r.x[k], r.R[k])
    T = prob.rows(st)
    kr = prob.kin_rows
    A = T["A"][kr].toarray()
    Z = null_space(A)
    assert Z.shape[1] == prob.n - A.shape[0]
    M, _ = prob.inertia(st)
    fun = mass_distance(prob, M, r.x[k - 1], r.R[k - 1])
    unit_fun = mass_distance(prob, sp.identity(prob.n), r.x[k - 1], r.R[k - 1])
    J = (lambda x, R: wx * fun(x, R) + ux * unit_fun(x, R) + (extra_energy(x, R) if extra_energy else 0.0))
    grad = objective_gradient(prob, st0, J)
    pos = np.abs(Z.T @ grad).max() / max(np.abs(grad).max(), 1e-300)
    V = np.concatenate([r.v[k], r.w[k]], axis=1).reshape(-1)
    Vp = np.concatenate([r.v[k - 1], r.w[k - 1]], axis=1).reshape(-1)
    d = np.concatenate([r.x[k] - r.x[k - 1], rot.log_rotvec(r.R[k] @ np.swapaxes(r.R[k - 1], -1, -2))],
                       axis=1).reshape(-1)
    gv = wv * (M @ (V - Vp)) + uv * (V - d / (r.t[k] - r.t[k - 1])) \
        + (extra_damping(st0, V) if extra_damping else 0.0)
    vel = np.abs(Z.T @ gv).max() / max(np.abs(gv).max(), 1e-300)
    feas = (np.abs(T["c"][kr & prob.pos_level]).max(), np.abs(A @ V + T["phi_t"][kr]).max())
    Acc = np.concatenate([r.a[k], r.wd[k]], axis=1).reshape(-1)
    Accp = np.concatenate([r.a[k - 1], r.wd[k - 1]], axis=1).reshape(-1)
    ga = M @ ((base + wa) * Acc - wa * Accp)
    acc = np.abs(Z.T @ ga).max() / max(np.abs(ga).max(), 1e-300)
    return pos, vel, acc, feas, np.abs(A @ Acc + T["conv"][kr]).max()


def test_underactuated_collocated_kkt_and_dynamics():
    weights = (1.0, 0.5, 0.0)
    t = np.linspace(0.0, 0.5, 51)
    prob = InverseDynamicsProblem(cart_pendulum(), t, problem_type="underdetermined underactuated collocated",
                                  weights=weights, tolerance=1e-12)
    r = prob.run()
    for k in (1, 10, 25, 50):
        pos, vel, _, feas, accres = kkt_checks(prob, r, k, weights)
        assert pos < 1e-7 and vel < 1e-10, (k, pos, vel)
        assert feas[0] < 1e-11 and feas[1] < 1e-11 and accres < 1e-10
    # accelerations and the cart force follow from the equations of motion (6.56):
    # (m l² + I) θ̈ + m l cosθ ẍ_c + m g l sinθ = 0,  F = (M + m) ẍ_c + m l (θ̈ cosθ - θ̇² sinθ)
    th = np.arctan2(r.R[:, 1, 1, 0], r.R[:, 1, 0, 0])
    thd, thdd = r.w[:, 1, 2], r.wd[:, 1, 2]
    xcdd = -0.8 * np.sin(2 * r.t) + 0.2
    assert np.allclose(r.a[:, 0, 0], xcdd, atol=1e-10)
    eom = (MP * LP ** 2 + IP) * thdd + MP * LP * np.cos(th) * xcdd + MP * G * LP * np.sin(th)
    assert np.abs(eom).max() < 1e-10
    F = (MC + MP) * xcdd + MP * LP * (thdd * np.cos(th) - thd ** 2 * np.sin(th))
    assert np.allclose(r.joint(2)[0][:, 0], F, rtol=0, atol=1e-10 * np.abs(F).max())
    # the pendulum is free: its velocity minimizes the weighted change, it is not prescribed
    assert np.ptp(thd) > 1e-2


@pytest.mark.parametrize("ergonomy,mbdyn_weights", [(False, False), (True, False), (True, True)])
def test_overcontrolled_kkt_and_torques(ergonomy, mbdyn_weights):
    weights, unit, base = (0.5, 1.0, 0.3), (0.0, 0.0), 1.0
    if mbdyn_weights:      # MBDyn's `weights, 0.2, 0., 1., 0.5, 1., 0.` (identity and mass terms)
        weights, unit, base = (0.0, 0.5, 1.0), (0.2, 1.0), 0.0
    m = three_link("tip")
    E, ETA = 40.0, 2.0
    l0 = None
    if ergonomy:       # a visco-elastic rod between the base and the wrist shapes the posture
        m.rod(40, 1, 3, LinearViscoelastic1D(E, ETA))
        m.inverse_dynamics_flags(40, ergonomy=True, right_hand_side=False)
        l0 = float(np.linalg.norm(m.nodes[2].x - m.nodes[0].x))
    t = np.linspace(0.0, 0.4, 41)
    prob = InverseDynamicsProblem(m, t, problem_type="underdetermined fully actuated", weights=weights,
                                  unit_weights=unit, acceleration_base=base, tolerance=1e-12)
    r = prob.run()
    energy = damping = None
    if ergonomy:
        length = lambda x, R: np.linalg.norm(x[2] - x[0])
        energy = lambda x, R: 0.5 * E * l0 * (length(x, R) / l0 - 1) ** 2

        def damping(st0, V):
            g = objective_gradient(prob, st0, length)       # ∂l/∂q
            return ETA / l0 * g * (g @ V)
    for k in (1, 20, 40):
        pos, vel, acc, feas, accres = kkt_checks(prob, r, k, weights, energy, damping, unit, base)
        assert pos < 1e-7 and vel < 1e-7 and acc < 1e-10, (k, pos, vel, acc)
        assert feas[0] < 1e-11 and feas[1] < 1e-11 and accres < 1e-10
    # the tip follows the prescribed path up to accelerations; torques by virtual work
    phi = link_angles(r.R)
    phid, phidd = r.w[:, :, 2], r.wd[:, :, 2]
    _, _, tip, _, tipv, tipa = chain_points(phi, phid, phidd)
    p, pd, pdd, _ = path_exact(r.t)
    assert np.max(np.abs(tip - tip[0] - p)) < 1e-10
    assert np.max(np.abs(tipv - pd)) < 1e-10 and np.max(np.abs(tipa - pdd)) < 1e-9
    tau = np.stack([r.joint(lab)[1][:, 2] for lab in (11, 12, 13)], -1)
    ref = newton_euler_torques(phi, phid, phidd)
    assert np.max(np.abs(tau - ref)) < 1e-9 * np.max(np.abs(ref))


# ---------------------------------------------------------------------------------------------
# Convective terms (φ/x ẋ)/x ẋ (with the drives' φ/tt) of every joint type, and the mass
# matrix, against central finite differences in time along smooth node motions.

from mbdae.engine.system import System

from mbdae.engine.core.state import State, Context
from mbdae.engine.drivers.inverse_terms import joint_terms, inertia_terms
from mbdae.elements.joints import RigidJoints
from mbdae.elements.body import RigidBodies
from samples import SAMPLES, randomize_state

E1, E2 = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8]), np.array([0.0, 0.6, 0.8])


def node_motion(k, t):
    """Pose, velocities and accelerations of node k: x = x0 + smooth terms, R = exp(α1 e1×)
    exp(α2 e2×) R0 with spatial ω = α̇1 e1 + α̇2 Ra e2."""
    ph = 0.7 * k
    x0 = np.array([0.1, 0.2, -0.1]) * (k + 1) + np.array([k, 0.3, 0.0])
    w = np.array([1.3, 0.9, 1.7])
    x = x0 + 0.2 * np.sin(w * t + ph)
    v = 0.2 * w * np.cos(w * t + ph)
    a = -0.2 * w ** 2 * np.sin(w * t + ph)
    a1, a1d, a1dd = 0.4 + 0.6 * np.sin(1.1 * t + ph), 0.66 * np.cos(1.1 * t + ph), -0.726 * np.sin(1.1 * t + ph)
    a2, a2d, a2dd = -0.3 + 0.5 * np.cos(0.8 * t - ph), -0.4 * np.sin(0.8 * t - ph), -0.32 * np.cos(0.8 * t - ph)
    Ra = rot.exp_rotvec(a1 * E1)
    R0 = euler123_to_R([0.2 * k, -0.3, 0.5])
    R = Ra @ rot.exp_rotvec(a2 * E2) @ R0
    e2 = Ra @ E2
    om = a1d * E1 + a2d * e2
    omd = a1dd * E1 + a2dd * e2 + a2d * a1d * np.cross(E1, e2)
    return x, R, v, om, a, omd


def _tdrive(expr):
    return ExpressionDrive(expr)


JOINT_CASES = {
    "clamp": lambda m: m.clamp(1, 2),
    "spherical hinge": lambda m: m.spherical_hinge(1, 1, 2, offset1=[0.3, 0.1, 0], offset2=[-0.2, 0, 0.1]),
    "spherical pin": lambda m: m.spherical_pin(1, 2, offset=[0.1, 0.2, 0.3]),
    "revolute hinge": lambda m: m.revolute_hinge(1, 1, 2, offset1=[0.3, 0, 0], orientation1=euler123_to_R([0.1, 0.2, 0.3]),
                                                offset2=[0, 0.2, 0], orientation2=euler123_to_R([-0.2, 0.1, 0])),
    "revolute pin": lambda m: m.revolute_pin(1, 2, offset=[0.1, 0, 0.2], orientation=euler123_to_R([0.3, 0, 0.1])),
    "cardano hinge": lambda m: m.cardano_hinge(1, 1, 2, offset1=[0.2, 0, 0], orientation1=euler123_to_R([0, 0.4, 0]),
                                              offset2=[0, 0.1, 0]),
    "in line": lambda m: m.in_line(1, 1, [0.1, 0.2, 0], euler123_to_R([0.3, 0.2, 0.1]), 2, offset2=[0.1, 0, 0.3]),
    "in plane": lambda m: m.in_plane(1, 1, [0.1, 0, 0.2], [0.2, 0.3, 0.9], 2, offset2=[0, 0.2, 0.1]),
    "prismatic": lambda m: m.prismatic(1, 1, 2, orientation1=euler123_to_R([0.1, 0, 0.2])),
    "distance": lambda m: m.distance(1, 1, 2, length=_tdrive("1.5 + 0.2*sin(3*Time)"), offset1=[0.1, 0, 0],
                                     offset2=[0, 0.2, 0]),
    "drive hinge": lambda m: m.drive_hinge(1, 1, 2, VectorDrive.component(
        [_tdrive("0.3*sin(2*Time)"), _tdrive("0.2*cos(Time)"), _tdrive("0.5*Time")]),
        orientation1=euler123_to_R([0.2, 0, 0])),
    "drive displacement": lambda m: m.drive_displacement(1, 1, 2, VectorDrive.component(
        [_tdrive("sin(2*Time)"), _tdrive("0.3*Time^2"), _tdrive("0.1")]), offset1=[0.2, 0, 0], offset2=[0, 0, 0.1]),
    "drive displacement pin": lambda m: m.drive_displacement_pin(1, 2, VectorDrive.component(
        [_tdrive("cos(Time)"), None, _tdrive("0.2*Time^3")]), offset=[0.1, 0.1, 0]),
    "axial rotation": lambda m: m.axial_rotation(1, 1, 2, _tdrive("2 + sin(Time)"), offset1=[0.1, 0, 0],
                                                 orientation1=euler123_to_R([0.3, 0.1, 0])),
    "total joint": lambda m: m.total_joint(
        1, 1, 2, offset1=[0.2, 0.1, 0], position_orientation1=euler123_to_R([0.1, 0.2, 0]),
        rotation_orientation1=euler123_to_R([0, 0.3, 0.1]), offset2=[0, 0.1, 0.2],
        rotation_orientation2=euler123_to_R([0.2, 0, 0]), position_status=("active", "velocity", "active"),
        position_drive=VectorDrive.component([_tdrive("sin(Time)"), _tdrive("0.3*cos(2*Time)"), _tdrive("Time^2")]),
        orientation_status=("active", "angular velocity", "active"),
        orientation_drive=VectorDrive.component([_tdrive("0.4*sin(1.5*Time)"), _tdrive("0.2*Time"),
                                                 _tdrive("0.3*cos(Time)")])),
    "total pin joint": lambda m: m.total_pin_joint(
        1, 2, offset=[0.1, 0.2, 0], position_status=("active",) * 3,
        position_drive=VectorDrive.component([_tdrive("0.1*sin(Time)"), None, _tdrive("Time")]),
        orientation_status=("active",) * 3,
        orientation_drive=VectorDrive.single(E1, _tdrive("0.7*sin(2*Time)"))),
}


def _two_node_state(sysm, t):
    nodes = sysm.nodes
    y, yp = np.zeros(sysm.n), np.zeros(sysm.n)
    R = np.zeros((2, 3, 3))
    A = []
    for k in range(2):
        x, Rk, v, om, a, omd = node_motion(k, t)
        y[nodes.ix[k]] = x
        yp[nodes.ix[k]] = v
        yp[nodes.ig[k]] = om
        R[k] = Rk
        A.append(np.concatenate([a, omd]))
    st = State(t, y, yp, R)
    return st, Context(t, y, yp, sysm.kinematics(st), "regular"), np.concatenate(A)


def _two_node_model():
    m = Model()
    for k in range(2):
        x, R, v, om, _, _ = node_motion(k, 0.0)
        m.structural_node(k + 1, "dynamic", position=x, orientation=R, velocity=v, angular_velocity=om)
    return m


@pytest.mark.parametrize("kind", sorted(JOINT_CASES))
def test_convective_terms_by_finite_differences(kind):
    m = _two_node_model()
    JOINT_CASES[kind](m)
    sysm = System(m)
    joints = sysm.family(RigidJoints)
    act = joints.active[0]
    pos = joints.POSITION_LEVEL
    assert act.any()

    def level1(t):
        """φ/x ẋ + φ/t for position-level rows, the row itself for velocity-level rows."""
        _, ctx, _ = _two_node_state(sysm, t)
        T = joint_terms(joints, ctx)
        G = T["G"]              # local velocities (v1, ω1, v2, ω2); the ground has none
        V = np.concatenate([G["v1"], G["w1"], G["v2"], G["w2"]], axis=1)
        Cpos = np.einsum('nrq,nq->nr', T["C"], V) + T["phi_t"]
        return np.where(pos, Cpos, T["c"])[0], T

    def value(t):
        _, ctx, _ = _two_node_state(sysm, t)
        return joint_terms(joints, ctx)["c"][0]

    t0, h = 0.37, 1e-3
    s0, T = level1(t0)
    _, ctx, A = _two_node_state(sysm, t0)
    if joints.ground[0]:
        A = np.concatenate([np.zeros(6), A[6:]])
    fd = lambda f: (8 * (f(t0 + h) - f(t0 - h)) - (f(t0 + 2 * h) - f(t0 - 2 * h))) / (12 * h)
    # velocity level: φ/x ẋ + φ/t is the time derivative of the position-level rows
    dvalue = fd(value)
    assert np.allclose(s0[act & pos], dvalue[act & pos], rtol=0, atol=1e-9 * max(1.0, np.abs(dvalue).max()))
    # acceleration level: d/dt(level 1) = [C or Cv] ẍ + conv
    Mrow = T["C"][0] if T["Cv"] is None else np.where(pos[:, None], T["C"][0], T["Cv"][0])
    expected = fd(lambda t: level1(t)[0]) - Mrow @ A
    conv = T["conv"][0]
    scale = max(1.0, np.abs(expected).max())
    assert np.allclose(conv[act], expected[act], rtol=0, atol=1e-9 * scale), (conv[act], expected[act])
    assert np.abs(conv[act]).max() > 1e-5      # the terms are not trivially zero on this motion


@pytest.mark.parametrize("sample", range(len(SAMPLES["joint"])))
def test_row_terms_are_the_rows_of_the_residual_kernel(sample):
    """RigidJoints.row_terms (the joint kernel's entry for inverse dynamics, full 15-row
    layout) gives the rows the residual kernel assembles: the values (position-level rows
    divided by dCoef), the reaction maps Bᵀ of the Jacobian and, at velocity level,
    φ_q v + φ_t for the position-level rows."""
    rng = np.random.default_rng(4)
    sysm = System(SAMPLES["joint"][sample](rng))
    st = randomize_state(sysm, rng)
    joints = sysm.family(RigidJoints)
    dcoef = 0.3
    kin = sysm.kinematics(st, dcoef)
    V = np.concatenate([kin.v[joints.n1], kin.w[joints.n1], kin.v[joints.n2], kin.w[joints.n2]], axis=1)
    V[joints.ground, 0:6] = 0.0
    for mode in ("regular", "ia_velocity"):
        ctx = Context(st.t, st.y, st.yp, kin, mode)
        T = joints.row_terms(ctx)
        res = [np.zeros(r.shape) for r in joints.pattern.res]
        jac = [np.zeros(R.shape) for R, _ in joints.pattern.jac]
        joints.evaluate(ctx, res, jac)
        for k, g in enumerate(joints.groups):
            i, r = g.inst[:, None], g.used[None, :]
            pos = joints.POSITION_LEVEL[g.used]
            c = T["c"][i, r]
            if mode == "regular":
                assert np.array_equal(res[2 * k + 1], np.where(pos, c / dcoef, c))
                assert np.array_equal(jac[4 * k], np.swapaxes(T["B"][i, r], 1, 2))
            else:
                rate = np.einsum('nrq,nq->nr', T["C"][i, r], V[g.inst]) + T["phi_t"][i, r]
                expected = np.where(pos, rate, c)
                assert np.allclose(res[2 * k + 1], expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    assert T["K"] is None and T["phi_t"][:, joints.VEL].max() == 0.0


def test_mass_matrix_by_finite_differences():
    """Mn [a; ω̇] + h = [β̇; γ̇ + ẋ×β] with β = Σ(m ẋ + ω×s), γ = Σ(s×ẋ + Jω) (eqs. 8.1-8.3)."""
    m = _two_node_model()
    m.body(1, 1, 2.0, center_of_mass=[0.1, -0.2, 0.3], inertia=np.diag([0.3, 0.5, 0.4]),
           inertia_orientation=euler123_to_R([0.2, 0.1, 0.3]))
    m.body(2, 1, 0.7, center_of_mass=[-0.3, 0.0, 0.1], inertia=np.diag([0.1, 0.1, 0.2]))
    m.body(3, 2, 1.5, center_of_mass=[0.0, 0.4, 0.0], inertia=np.diag([0.2, 0.3, 0.1]))
    sysm = System(m)
    bodies = sysm.family(RigidBodies)

    def momenta(t):
        st, ctx, _ = _two_node_state(sysm, t)
        return bodies.node_momenta(ctx.kin)

    t0, h = 0.21, 1e-3
    st, ctx, A = _two_node_state(sysm, t0)
    fd = lambda k: (8 * (momenta(t0 + h)[k] - momenta(t0 - h)[k]) - (momenta(t0 + 2 * h)[k] - momenta(t0 - 2 * h)[k])) / (12 * h)
    beta, _ = momenta(t0)
    rate = np.concatenate([fd(0), fd(1) + np.cross(ctx.kin.v, beta)], axis=1)
    Mn, hterm = inertia_terms(bodies, ctx.kin)
    lhs = np.einsum('nij,nj->ni', Mn, A.reshape(2, 6)) + hterm
    assert np.allclose(lhs, rate, rtol=0, atol=1e-9 * np.abs(rate).max())
    # symmetric, positive definite for bodies with mass and full inertia
    assert np.allclose(Mn, np.swapaxes(Mn, 1, 2))
    assert np.all(np.linalg.eigvalsh(Mn) > 0)


# ---------------------------------------------------------------------------------------------
# Factorization reuse (manual §6.3.2, §6.3.4): the collocated problem factorizes the matrix
# at the converged positions once and uses it for velocities, accelerations and (transposed)
# the loads; the non-collocated one needs a second matrix for the loads; the overcontrolled
# one shares the velocity and acceleration matrices when R = 0 and w_ẋ = 1 + w_ẍ.

def _counts(model, t, **kw):
    on = InverseDynamicsProblem(model, t, **kw).run()
    off = InverseDynamicsProblem(model, t, reuse_factorizations=False, **kw).run()
    assert np.array_equal(on.stats["newton_iterations"], off.stats["newton_iterations"])
    assert np.allclose(on.multipliers, off.multipliers, rtol=0, atol=1e-12 * np.abs(off.multipliers).max())
    return on.stats, off.stats


def test_factorization_reuse_counts():
    N = 21
    t = np.linspace(0.0, 0.2, N)
    on, off = _counts(arm(), t)
    it = on["newton_iterations"]
    assert on["factorizations"] == it + N and on["reused_factorizations"] == 2 * N
    assert off["factorizations"] == it + 3 * N and off["reused_factorizations"] == 0
    on, off = _counts(three_link("pose"), t, problem_type="fully actuated non collocated")
    it = on["newton_iterations"]
    assert on["factorizations"] == it + 2 * N and on["reused_factorizations"] == N
    assert off["factorizations"] == it + 3 * N
    on, off = _counts(three_link("tip"), t, problem_type="underdetermined fully actuated", weights=(1.0, 1.0, 0.0))
    it = on["newton_iterations"]
    assert on["factorizations"] == it + 2 * N and on["reused_factorizations"] == N
    assert off["factorizations"] == it + 3 * N


def test_driven_actuators_change_roles_at_switch():
    """Driven joints (manual §8.20.2) in inverse dynamics: until T1 the shoulder angle of the
    two-link arm is imposed and actuated by one joint (3, both roles: collocated rows); from T1
    the drive is imposed by joint 5 (prescribed motion only, ψ) and the torque is taken by
    joint 6 (torque only, ϑ), a non-collocated split.  The row partition is rebuilt at the
    switch: the motion stays the prescribed one and the shoulder torque is the Lagrange
    torque throughout, carried by 3 before T1 and by 6 after."""
    T1 = 0.45
    m = arm()
    for label in (5, 6):
        m.total_pin_joint(label, 1, orientation_status=("inactive", "inactive", "active"),
                          orientation_drive=VectorDrive.single([0, 0, 1], ExpressionDrive(Q1)),
                          absolute_rotation_orientation=np.eye(3))
    m.driven(3, ExpressionDrive(f"Time <= {T1}"))
    m.driven(5, ExpressionDrive(f"Time > {T1}"))
    m.driven(6, ExpressionDrive(f"Time > {T1}"))
    roles = {3: (True, True), 4: (True, True), 5: (False, True), 6: (True, False)}
    t = np.linspace(0.0, 1.0, 201)
    r = InverseDynamicsProblem(m, t, problem_type="fully actuated non collocated", roles=roles).run()
    tau1, tau2 = lagrange_torques(r.t)
    before, after = r.t <= T1, r.t > T1
    shoulder = np.where(before, r.joint(3)[1][:, 2], r.joint(6)[1][:, 2])
    assert np.allclose(shoulder, tau1, rtol=0, atol=1e-8 * np.abs(tau1).max())
    assert np.allclose(r.joint(4)[1][:, 2], tau2, rtol=0, atol=1e-8 * np.abs(tau2).max())
    for label, off in ((3, after), (5, before), (6, before)):
        F, M = r.joint(label)
        assert np.all(F[off] == 0.0) and np.all(M[off] == 0.0)
    assert np.all(r.joint(5)[1][after] == 0.0)         # ψ rows carry no load (μ = 0)
    q1, q2, d1, d2, a1, a2 = q_exact(r.t)
    assert np.allclose(np.arctan2(r.R[:, 0, 1, 0], r.R[:, 0, 0, 0]), q1, atol=1e-10)
    assert np.allclose(r.wd[:, 0, 2], a1, atol=1e-7 * np.abs(a1).max())
    # a partition with the wrong counts is refused, naming the instant and the active joints
    m.driven(4, ExpressionDrive(f"Time <= {T1}"))
    with pytest.raises(ValueError, match=r"time 0\.455, active driven joints \[5, 6\].*must be as many"):
        InverseDynamicsProblem(m, t, problem_type="fully actuated non collocated", roles=roles).run()
