"""Terms the inverse-dynamics subproblems need beyond the residual machinery (manual §6.3):

* the convective terms of the joint rows, conv = d/dt(φ/x ẋ + φ/t) - φ/x ẍ, so that the
  acceleration-level constraint is φ/x ẍ = -conv (eqs. 6.37-6.38; the digest notes the
  manual gives them for no joint, so they are derived here row group by row group);
* the explicit mass matrix of the rigid bodies on the node coordinates (δx, θ) and the
  velocity-dependent inertia terms h, so that M [a; ω̇] + h = [β̇; γ̇ + ẋ×β] (eqs. 8.1-8.3).

Velocities and accelerations of a node are (v, ω) and (a, ω̇), the rotation perturbation θ
is global (δR = θ× R), as in elements.joints.  All functions are batched over instances."""
import numpy as np

from mbdae.engine.core import rotations as rot

_SERIES = 0.05          # below this rotation angle the coefficient derivatives use series


def _coef_rates(phi):
    """b'/φ, c'/φ, d'/φ for b = (1-cos φ)/φ², c = (φ - sin φ)/φ³, d = (1 - (φ/2)cot(φ/2))/φ²."""
    small = phi < _SERIES
    p = np.where(small, 1.0, phi)
    p2 = p * p
    s, co = np.sin(p), np.cos(p)
    b_r = np.where(small, -1.0 / 12.0 + phi ** 2 / 180.0, (p * s - 2.0 * (1.0 - co)) / (p2 * p2))
    c_r = np.where(small, -1.0 / 60.0 + phi ** 2 / 1260.0, ((1.0 - co) * p - 3.0 * (p - s)) / (p2 * p2 * p))
    cot = np.cos(0.5 * p) / np.sin(0.5 * p)
    d = (1.0 - 0.5 * p * cot) / p2
    dprime = (-0.5 * cot + 0.25 * p / np.sin(0.5 * p) ** 2) / p2 - 2.0 * d / p
    d_r = np.where(small, 1.0 / 360.0 + phi ** 2 / 7560.0, dprime / p)
    return b_r, c_r, d_r


def gamma_rate(theta, theta_dot):
    """dΓ(θ)/dt along θ̇ (Γ = I + b θ× + c θ×θ×, rotations.gamma)."""
    phi = np.linalg.norm(theta, axis=-1)
    _, b, c = rot._coefs(phi)
    b_r, c_r, _ = _coef_rates(phi)
    pd = np.einsum('...i,...i->...', theta, theta_dot)
    S, Sd = rot.skew(theta), rot.skew(theta_dot)
    e = lambda k: k[..., None, None]
    return e(b_r * pd) * S + e(b) * Sd + e(c_r * pd) * (S @ S) + e(c) * (Sd @ S + S @ Sd)


def gamma_inv_rate(theta, theta_dot):
    """dΓ⁻¹(θ)/dt along θ̇ (Γ⁻¹ = I - ½θ× + d θ×θ×, rotations.gamma_inv)."""
    phi = np.linalg.norm(theta, axis=-1)
    small = phi < 1e-3
    p = np.where(small, 1.0, phi)
    d = np.where(small, 1.0 / 12.0 + phi ** 2 / 720.0, (1.0 - 0.5 * p / np.tan(0.5 * p)) / (p * p))
    _, _, d_r = _coef_rates(phi)
    pd = np.einsum('...i,...i->...', theta, theta_dot)
    S, Sd = rot.skew(theta), rot.skew(theta_dot)
    e = lambda k: k[..., None, None]
    return -0.5 * Sd + e(d_r * pd) * (S @ S) + e(d) * (Sd @ S + S @ Sd)


def joint_terms(joints, ctx, lam=None):
    """Rows of a RigidJoints family at ctx (velocities in ctx.kin.v, ctx.kin.w), in the
    family's full 15-row layout (its row groups J.POS, J.ROT, ...; the rows a joint does not
    have are zero): the raw terms of RigidJoints.row_terms (values c (ne,15), reaction map B,
    gradient C on (x1, θ1, x2, θ2) and Cv on (v1, ω1, v2, ω2) (ne,15,12), phi_t (ne,15) the
    explicit time derivative of the position-level rows, K (ne,12,12) the geometric stiffness
    for multipliers lam (ne,15), None without), the geometry G and conv (ne,15): the
    acceleration constraint of every row is [C or Cv] [a1, ω̇1, a2, ω̇2] = -conv."""
    T = joints.row_terms(ctx, lam)
    G = joints._geometry(ctx)
    t = ctx.t
    has = lambda rows: bool(joints.active[:, rows].any())        # noqa: E731
    conv = np.zeros(T["c"].shape)
    w1, w2 = G["w1"], G["w2"]
    v1, v2 = G["v1"], G["v2"]
    f1, f2, b1 = G["f1"], G["f2"], G["b1"]
    dw = w2 - w1
    V = np.concatenate([v1, w1, v2, w2], axis=1)
    if has(joints.POS):
        # d/dt Eᵀ w_rel = Eᵀ(ẇ_rel - ω1×w_rel), w_rel = v2 + ω2×f2 - v1 - ω1×b1
        wrel = v2 + rot.cross(w2, f2) - v1 - rot.cross(w1, b1)
        b1dot = v2 + rot.cross(w2, f2) - v1
        q = rot.cross(w2, rot.cross(w2, f2)) - rot.cross(w1, b1dot) - rot.cross(w1, wrel)
        conv[:, joints.POS] = rot.mattvec(G["E"], q) - joints.pos_drive.second_derivatives(t)
    if has(joints.ROT):
        # θ̇ = Γ⁻¹(θ) ω_d with ω_d = Erᵀ Δω - A_d w0 (spatial rate of A_d = Erᵀ E2r R0ᵀ)
        th, Ad, Ert = T["th"], T["Ad"], np.swapaxes(G["Er"], -1, -2)
        th0 = G["theta0"]
        th0d = joints.rot_drive.derivatives(t)
        th0dd = joints.rot_drive.second_derivatives(t)
        w0 = rot.matvec(rot.gamma(th0), th0d)
        w0d = rot.matvec(rot.gamma(th0), th0dd) + rot.matvec(gamma_rate(th0, th0d), th0d)
        Adw0 = rot.matvec(Ad, w0)
        wd = rot.matvec(Ert, dw) - Adw0
        Gi = rot.gamma_inv(th)
        thd = rot.matvec(Gi, wd)
        extra = -rot.matvec(Ert, rot.cross(w1, dw)) - rot.cross(wd, Adw0) - rot.matvec(Ad, w0d)
        conv[:, joints.ROT] = rot.matvec(gamma_inv_rate(th, thd), wd) + rot.matvec(Gi, extra)
    if has(joints.VEL) or has(joints.AVEL):
        # velocity-level rows r = Cv V + (terms without V): ṙ = Cv A + C V + r_t
        CV = np.einsum('nrq,nq->nr', T["C"], V)
        if has(joints.VEL):
            conv[:, joints.VEL] = CV[:, joints.VEL] - joints.vel_drive.derivatives(t)
        if has(joints.AVEL):
            conv[:, joints.AVEL] = CV[:, joints.AVEL] - joints.avel_drive.derivatives(t)
    if has(joints.DOT):
        e1, e2 = T["e1"], T["e2"]
        n_dot = rot.cross(rot.cross(w1[:, None], e1), e2) + rot.cross(e1, rot.cross(w2[:, None], e2))
        conv[:, joints.DOT] = np.einsum('nji,ni->nj', n_dot, -dw)
    if has(joints.DIST):
        u, dist = G["u"], G["dist"]
        ddot = v2 + rot.cross(w2, f2) - v1 - rot.cross(w1, f1)
        udot = (ddot - u * np.einsum('ni,ni->n', u, ddot)[:, None]) / dist[:, None]
        q = rot.cross(w2, rot.cross(w2, f2)) - rot.cross(w1, rot.cross(w1, f1))
        conv[:, joints.DIST] = np.einsum('ni,ni->n', udot, ddot) + np.einsum('ni,ni->n', u, q) \
            - joints.dist_drive.second_derivatives(t)
    return dict(T, G=G, conv=conv)


def inertia_terms(bodies, kin):
    """Per-node mass matrix Mn (N,6,6) = [m I, -s×; s×, J] and inertia forces h (N,6) =
    [ω×(ω×s); ω×(Jω)] summed over the bodies on each node (eqs. 8.1-8.3): the node
    equations of motion read Mn [a; ω̇] + h = [F; M]."""
    n = bodies.nodes.n
    m, S, Jn = bodies.node_inertia(kin)
    w = kin.w
    Mn = np.zeros((n, 6, 6))
    Mn[:, 0:3, 0:3] = m[:, None, None] * np.eye(3)
    Mn[:, 0:3, 3:6] = -rot.skew(S)
    Mn[:, 3:6, 0:3] = rot.skew(S)
    Mn[:, 3:6, 3:6] = Jn
    h = np.concatenate([rot.cross(w, rot.cross(w, S)), rot.cross(w, rot.matvec(Jn, w))], axis=1)
    return Mn, h
