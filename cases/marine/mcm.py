"""The Momentum Cloud Method (MCM; Sweetman & Wang, seed 001, digest §2) as a small
independent solver: the six base-body equations of motion (MCM-23) of an N-body tree whose
relative motions are prescribed, and the inverse dynamics at one cut joint (MCM-24/25).

Nothing here uses mbdae: it is the cross-check of mbdae's DAE on the same systems
(cases/marine/fowt.py, tests/test_mcm.py).

Coordinates (MCM §2-3).  Body 1 is the base; its frame C1 (and the parallel system frame Cs
at the system CM Gs) is given by the 1-2-3 Euler angles X4, X5, X6,
T_{Cs→CI} = T_x(X4) T_y(X5) T_z(X6) (MCM-3); X1..X3 is the position of Gs in the inertial
frame CI.  The state is y = [X1, X2, X3, X4, X5, X6, Ẋ1, ..., Ẋ6].  Every other body i hangs
on its parent p through a joint whose relative motion is prescribed: a rotation θ_i(t) about
a fixed axis a_i of the initial-pose frame C_i^0 (fixed in the parent, T_{Ci0→Cp} constant),
T_{Ci→Ci0} = exp(θ_i a_i×), relative angular velocity ω_{Bi}^{Ci0} = θ̇_i a_i (MCM-9).
Joint positions: ρ_{J/Gp} in Cp and ρ_{Gi/J} in Ci (MCM-11).  Trees (the FOWT's three chains
tower → nacelle → hub → blade k) are handled as in MCM §6: the inner sum of Q1 runs over the
bodies a joint carries (its subtree), nothing else changes.

The momentum coefficients P1, Q1, P2, Q2 (MCM-14) and their local derivatives in Cs
(MCM-17, with the cascade MCM-18 for Ṫ and MCM-19/20 for the radius vectors) are computed
analytically: the transformation cascade T_{Ci→C1} = T_{Cp→C1} T_{Ci0→Cp} T_{Ci→Ci0} is
carried with its first and second time derivatives (Ṫ_{Ci→Ci0} = T (a×) θ̇,
T̈ = T ((a×)² θ̇² + (a×) θ̈)); the second derivatives give (ρ̈)_{Cs} for Q̇2.  The tests check
all of them against finite differences.  Q1 and Q̇1 use T_{Ci0→Cj} and ω_{Bi}^{Ci0}
throughout (digest erratum 14); T_ω row 3 is [+sin X5, 0, 1] (erratum 13); the force sum of
MCM-23 is in the inertial frame (erratum 15).

External loads: a function loads(t, Poses) → (F, M), forces at the body CMs and moments about
them, both inertial (n, 3) arrays.  The EOMs (MCM-23):
    (Σm) [Ẍ1, Ẍ2, Ẍ3] = Σ F_i                                                   (inertial)
    (P1+P2) T_ω [Ẍ4, Ẍ5, Ẍ6] = Σ M_Gs − (Ṗ1+Ṗ2) ω − (Q̇1+Q̇2) − (P1+P2) RE − ω × H   (in Cs)
with ω = ω_Cs of MCM-5, H = (P1+P2) ω + Q1 + Q2 (MCM-13), integrated by scipy's solve_ivp.
"""
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

I3 = np.eye(3)


def cross(a, b):
    """a × b over the last axis (numpy's cross costs ten times more on 3-vectors)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def axis_rotation(a, theta):
    """exp(θ a×) for a unit axis a (Rodrigues)."""
    S = skew(a)
    return I3 + np.sin(theta) * S + (1.0 - np.cos(theta)) * S @ S


def euler123_matrix(X4, X5, X6):
    """T_{Cs→CI} = T_x(X4) T_y(X5) T_z(X6), element by element as printed in MCM-3."""
    c4, s4, c5, s5, c6, s6 = np.cos(X4), np.sin(X4), np.cos(X5), np.sin(X5), np.cos(X6), np.sin(X6)
    return np.array([[c5 * c6, -c5 * s6, s5],
                     [c4 * s6 + c6 * s4 * s5, c4 * c6 - s4 * s5 * s6, -c5 * s4],
                     [s4 * s6 - c4 * c6 * s5, c6 * s4 + c4 * s5 * s6, c4 * c5]])


def euler123_angles(T):
    """(X4, X5, X6) of T = T_x(X4) T_y(X5) T_z(X6), |X5| < π/2 (inverse of MCM-3)."""
    T = np.asarray(T)
    X5 = np.arcsin(np.clip(T[..., 0, 2], -1.0, 1.0))
    X4 = np.arctan2(-T[..., 1, 2], T[..., 2, 2])
    X6 = np.arctan2(-T[..., 0, 1], T[..., 0, 0])
    return np.stack([X4, X5, X6], axis=-1)


def base_angular_velocity(X, Xd):
    """ω_Cs = ω_{B1}^{C1} from the Euler angles and their rates (MCM-5), in Cs."""
    _, X5, X6 = X
    X4d, X5d, X6d = Xd
    c5, s5, c6, s6 = np.cos(X5), np.sin(X5), np.cos(X6), np.sin(X6)
    return np.array([X4d * c5 * c6 + X5d * s6, -X4d * c5 * s6 + X5d * c6, X4d * s5 + X6d])


def t_omega(X):
    """T_ω of MCM-22 (row 3 with +sin X5, digest erratum 13): (ω̇)_Cs = T_ω Ẍ + RE."""
    _, X5, X6 = X
    c5, s5, c6, s6 = np.cos(X5), np.sin(X5), np.cos(X6), np.sin(X6)
    return np.array([[c5 * c6, s6, 0.0], [-c5 * s6, c6, 0.0], [s5, 0.0, 1.0]])


def re_vector(X, Xd):
    """RE of MCM-22, the velocity part of (ω̇)_Cs."""
    _, X5, X6 = X
    X4d, X5d, X6d = Xd
    c5, s5, c6, s6 = np.cos(X5), np.sin(X5), np.cos(X6), np.sin(X6)
    return np.array([-X4d * X5d * s5 * c6 - X4d * X6d * c5 * s6 + X5d * X6d * c6,
                     X4d * X5d * s5 * s6 - X4d * X6d * c5 * c6 - X5d * X6d * s6,
                     X4d * X5d * c5])


def rho_bar(r):
    """ρ̄ of MCM-15: r × (ω × r) = ρ̄ ω."""
    r1, r2, r3 = r
    return np.array([[r2 * r2 + r3 * r3, -r1 * r2, -r1 * r3],
                     [-r1 * r2, r1 * r1 + r3 * r3, -r2 * r3],
                     [-r1 * r3, -r2 * r3, r1 * r1 + r2 * r2]])


def rho_bar_rate(r, rd):
    """ρ̄̇ of MCM-19."""
    r1, r2, r3 = r
    d1, d2, d3 = rd
    return np.array([[2 * (r2 * d2 + r3 * d3), -d1 * r2 - r1 * d2, -d1 * r3 - r1 * d3],
                     [-d1 * r2 - r1 * d2, 2 * (r1 * d1 + r3 * d3), -d2 * r3 - r2 * d3],
                     [-d1 * r3 - r1 * d3, -d2 * r3 - r2 * d3, 2 * (r1 * d1 + r2 * d2)]])


# ---------------------------------------------------------------------- prescribed joint motions
@dataclass
class ConstantRate:
    """θ(t) = θ0 + ω t: the FOWT's nacelle yaw, rotor spin and blade pitch."""
    rate: float
    angle0: float = 0.0

    def __call__(self, t):
        return self.angle0 + self.rate * t, self.rate, 0.0


@dataclass
class Harmonic:
    """θ(t) = A sin(Ω t + φ) (+ θ0): a joint motion with angular acceleration."""
    amplitude: float
    frequency: float
    phase: float = 0.0
    angle0: float = 0.0

    def __call__(self, t):
        A, W, p = self.amplitude, self.frequency, self.phase
        return (self.angle0 + A * np.sin(W * t + p), A * W * np.cos(W * t + p),
                -A * W * W * np.sin(W * t + p))


@dataclass
class Body:
    """One rigid body of the tree.  The base (parent None) needs only mass and inertia.
    inertia: about the CM in the body frame Ci.  joint_on_parent: ρ_{J/Gp} in Cp;
    cm_from_joint: ρ_{Gi/J} in Ci; initial_orientation: T_{Ci0→Cp}; axis: a_i in Ci0 (= in Ci);
    angle: t → (θ, θ̇, θ̈) of the prescribed rotation (MCM-9)."""
    name: str
    mass: float
    inertia: np.ndarray
    parent: object = None
    joint_on_parent: np.ndarray = field(default_factory=lambda: np.zeros(3))
    cm_from_joint: np.ndarray = field(default_factory=lambda: np.zeros(3))
    initial_orientation: np.ndarray = field(default_factory=lambda: np.eye(3))
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    angle: object = None


@dataclass
class Relative:
    """The prescribed part of the motion at time t, in C1 (= Cs) components (MCM-9…20):
    A[i] = T_{Ci→C1} and its derivatives, r[i] = ρ_{Gi/G1}, rho[i] = ρ_{Gi/Gs} and their
    local derivatives, B[i] = T_{Ci0→C1} of each joint, wrel[i] = ω_{Bi}^{Ci0}."""
    A: np.ndarray
    Ad: np.ndarray
    Add: np.ndarray
    B: np.ndarray
    Bd: np.ndarray
    wrel: np.ndarray
    wreld: np.ndarray
    r: np.ndarray
    rd: np.ndarray
    rdd: np.ndarray
    rs: np.ndarray
    rho: np.ndarray
    rhod: np.ndarray
    rhodd: np.ndarray


@dataclass
class Poses:
    """Absolute motion of every body at one instant (inertial components): CM positions x,
    orientations R = T_{Ci→CI}, CM velocities v, angular velocities w; T = T_{Cs→CI} and
    ω_Cs (in Cs) of the base."""
    t: float
    x: np.ndarray
    R: np.ndarray
    v: np.ndarray
    w: np.ndarray
    T: np.ndarray
    omega: np.ndarray


class MCM:
    """The six MCM equations of an N-body tree with prescribed relative rotations."""

    def __init__(self, bodies):
        self.bodies = list(bodies)
        if self.bodies[0].parent is not None or any(b.parent is None for b in self.bodies[1:]):
            raise ValueError("MCM: body 0 is the base (parent None), every other body has a parent")
        for i, b in enumerate(self.bodies[1:], 1):
            if not 0 <= b.parent < i:
                raise ValueError(f"MCM: body {b.name}: its parent must come before it in the list")
        self.n = len(self.bodies)
        self.m = np.array([b.mass for b in self.bodies], float)
        self.mass = float(self.m.sum())
        self.I = np.array([np.asarray(b.inertia, float).reshape(3, 3) for b in self.bodies])
        # subtree[i]: the bodies whose motion joint i carries (the inner sum of Q1, MCM §6)
        self.subtree = [[i] for i in range(self.n)]
        for j in range(self.n - 1, 0, -1):
            for k in self.subtree[j]:
                p = self.bodies[j].parent
                while p is not None:
                    self.subtree[p].append(k)
                    p = self.bodies[p].parent
        self.subtree = [sorted(set(s)) for s in self.subtree]

    # ------------------------------------------------------------------ kinematics of the tree
    def relative(self, t):
        """The prescribed motion relative to C1 at t: the cascades MCM-9/10/11 with their
        derivatives MCM-18/20 (first and second order)."""
        n = self.n
        A, Ad, Add = np.zeros((n, 3, 3)), np.zeros((n, 3, 3)), np.zeros((n, 3, 3))
        B, Bd = np.zeros((n, 3, 3)), np.zeros((n, 3, 3))
        wrel, wreld = np.zeros((n, 3)), np.zeros((n, 3))
        r, rd, rdd = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3))
        A[0] = I3
        for i in range(1, n):
            b = self.bodies[i]
            p = b.parent
            a = np.asarray(b.axis, float)
            th, thd, thdd = b.angle(t)
            S = skew(a)
            Rr = axis_rotation(a, th)                       # T_{Ci→Ci0}
            Rd = Rr @ S * thd
            Rdd = Rr @ (S @ S * thd * thd + S * thdd)
            T0 = np.asarray(b.initial_orientation, float)   # T_{Ci0→Cp}
            B[i] = A[p] @ T0                                # T_{Ci0→C1}
            Bd[i] = Ad[p] @ T0
            Bdd = Add[p] @ T0
            A[i] = B[i] @ Rr                                # MCM-10
            Ad[i] = Bd[i] @ Rr + B[i] @ Rd                  # MCM-18
            Add[i] = Bdd @ Rr + 2.0 * Bd[i] @ Rd + B[i] @ Rdd
            wrel[i] = thd * a                               # ω_{Bi}^{Ci0}
            wreld[i] = thdd * a
            f, g = np.asarray(b.joint_on_parent, float), np.asarray(b.cm_from_joint, float)
            r[i] = r[p] + A[p] @ f + A[i] @ g               # MCM-11
            rd[i] = rd[p] + Ad[p] @ f + Ad[i] @ g           # MCM-20
            rdd[i] = rdd[p] + Add[p] @ f + Add[i] @ g
        w = self.m / self.mass
        rs, rsd, rsdd = w @ r, w @ rd, w @ rdd              # ρ_{Gs/G1} and its derivatives
        return Relative(A, Ad, Add, B, Bd, wrel, wreld, r, rd, rdd, rs, r - rs, rd - rsd, rdd - rsdd)

    def coefficients(self, t, rel=None):
        """(P1, Q1, P2, Q2) of MCM-14 and their local derivatives in Cs (MCM-17)."""
        rel = self.relative(t) if rel is None else rel
        A, Ad, m, I = rel.A, rel.Ad, self.m, self.I
        J = A @ I @ np.swapaxes(A, 1, 2)                    # T_{Ci→Cs} I T_{C1→Ci}
        Jd = Ad @ I @ np.swapaxes(A, 1, 2)
        Jd = Jd + np.swapaxes(Jd, 1, 2)
        P1, P1d = J.sum(0), Jd.sum(0)
        Q1, Q1d = np.zeros(3), np.zeros(3)
        for i in range(1, self.n):
            for j in self.subtree[i]:
                Tij = A[j].T @ rel.B[i]                     # T_{Ci0→Cj}
                Tijd = Ad[j].T @ rel.B[i] + A[j].T @ rel.Bd[i]
                K = A[j] @ I[j]
                Q1 += K @ (Tij @ rel.wrel[i])
                Q1d += (Ad[j] @ I[j] @ Tij + K @ Tijd) @ rel.wrel[i] + K @ (Tij @ rel.wreld[i])
        r, rd = rel.rho, rel.rhod
        # Σ m ρ̄ and Σ m ρ̄̇ (MCM-15, MCM-19): ρ̄ = |ρ|² I − ρ ρᵀ summed over the bodies at once
        P2 = (m @ np.einsum('ni,ni->n', r, r)) * I3 - np.einsum('n,ni,nj->ij', m, r, r)
        P2d = (2.0 * m @ np.einsum('ni,ni->n', r, rd)) * I3 - np.einsum('n,ni,nj->ij', m, rd, r) \
            - np.einsum('n,ni,nj->ij', m, r, rd)
        Q2 = m @ cross(r, rd)
        Q2d = m @ cross(r, rel.rhodd)
        return P1, Q1, P2, Q2, P1d, Q1d, P2d, Q2d

    # ------------------------------------------------------------------ state
    def poses(self, t, y, rel=None):
        """Absolute motion of every body (MCM-2, MCM-9, MCM-12)."""
        rel = self.relative(t) if rel is None else rel
        X, Xd = y[0:3], y[6:9]
        T = euler123_matrix(*y[3:6])
        om = base_angular_velocity(y[3:6], y[9:12])
        x = X + rel.rho @ T.T                               # MCM-2
        v = Xd + (rel.rhod + cross(om, rel.rho)) @ T.T   # MCM-12
        R = T @ rel.A
        Om = np.zeros((self.n, 3))                          # absolute ω_i in C1 components
        Om[0] = om
        for i in range(1, self.n):                          # MCM-9: ω_i = ω_p + T_{Ci0→C1} ω_rel
            Om[i] = Om[self.bodies[i].parent] + rel.B[i] @ rel.wrel[i]
        return Poses(t, x, R, v, Om @ T.T, T, om)

    def momentum(self, t, y, rel=None):
        """(linear momentum, angular momentum about Gs), both inertial: H = T (P1 ω + Q1 +
        P2 ω + Q2) (MCM-13)."""
        rel = self.relative(t) if rel is None else rel
        P1, Q1, P2, Q2 = self.coefficients(t, rel)[:4]
        om = base_angular_velocity(y[3:6], y[9:12])
        T = euler123_matrix(*y[3:6])
        return self.mass * y[6:9], T @ ((P1 + P2) @ om + Q1 + Q2)

    def initial_state(self, t0=0.0, base_position=None, euler=None, base_velocity=None, euler_rates=None,
                      base_omega=None):
        """y0 from the base body's pose and velocity (MCM-2 solved for Gs: the preprocessing
        of MCM §3): X = x_G1 − T ρ_{G1/Gs}, Ẋ = v_G1 − T((ρ̇_{G1/Gs})_Cs + ω × ρ_{G1/Gs}).
        The base's angular velocity is given by the Euler rates or, inertial, by
        base_omega (then Ẋ4..6 = T_ω⁻¹ Tᵀ ω: MCM-5 is ω = T_ω Ẋ)."""
        xb = np.zeros(3) if base_position is None else np.asarray(base_position, float)
        e = np.zeros(3) if euler is None else np.asarray(euler, float)
        vb = np.zeros(3) if base_velocity is None else np.asarray(base_velocity, float)
        ed = np.zeros(3) if euler_rates is None else np.asarray(euler_rates, float)
        if base_omega is not None:
            if euler_rates is not None:
                raise ValueError("initial_state: give the Euler rates or the base angular velocity, not both")
            ed = np.linalg.solve(t_omega(e), euler123_matrix(*e).T @ np.asarray(base_omega, float))
        rel = self.relative(t0)
        T = euler123_matrix(*e)
        om = base_angular_velocity(e, ed)
        X = xb - T @ rel.rho[0]
        Xd = vb - T @ (rel.rhod[0] + cross(om, rel.rho[0]))
        return np.concatenate([X, e, Xd, ed])

    # ------------------------------------------------------------------ equations of motion
    def accelerations(self, t, y, loads=None):
        """[Ẍ1..Ẍ6] from MCM-23."""
        rel = self.relative(t)
        P1, Q1, P2, Q2, P1d, Q1d, P2d, Q2d = self.coefficients(t, rel)
        e, ed = y[3:6], y[9:12]
        om = base_angular_velocity(e, ed)
        T = euler123_matrix(*e)
        if loads is None:
            F, M = np.zeros((self.n, 3)), np.zeros((self.n, 3))
        else:
            F, M = loads(t, self.poses(t, y, rel))
        Fsum = F.sum(0)                                     # inertial (digest erratum 15)
        Ms = T.T @ (cross(rel.rho @ T.T, F).sum(0) + M.sum(0))   # Σ M about Gs, in Cs
        P = P1 + P2
        H = P @ om + Q1 + Q2                                # MCM-13
        rhs = Ms - (P1d + P2d) @ om - (Q1d + Q2d) - P @ re_vector(e, ed) - cross(om, H)
        Xdd = np.linalg.solve(P @ t_omega(e), rhs)          # MCM-23
        return np.concatenate([Fsum / self.mass, Xdd])

    def rhs(self, loads=None):
        """ẏ = f(t, y), the first-order form of MCM-23."""
        def f(t, y):
            return np.concatenate([y[6:12], self.accelerations(t, y, loads)])
        return f

    def solve(self, t_final, y0=None, loads=None, t_eval=None, t0=0.0, rtol=1e-11, atol=None,
              method="DOP853"):
        """Integrate MCM-23 with scipy's solve_ivp.  atol defaults to rtol times a scale of
        each state (1 m, 1 rad; per second for the rates)."""
        y0 = self.initial_state(t0) if y0 is None else np.asarray(y0, float)
        if atol is None:
            atol = rtol * np.ones(12)
        sol = solve_ivp(self.rhs(loads), (t0, t_final), y0, method=method, t_eval=t_eval,
                        rtol=rtol, atol=atol, dense_output=False)
        if not sol.success:
            raise RuntimeError(f"MCM integration failed: {sol.message}")
        return sol


# ---------------------------------------------------------------------- inverse dynamics
def cut_joint_loads(t, mass, x, R, v, w, inertia, F, M, joint, T, omega, subsystem):
    """Force and couple that the rest of the system applies to the subsystem s1 at a cut joint
    J, in Cs components (MCM-24/25, the paper's procedure): with time histories on a uniform
    grid t (nt,) of every body's CM position x, orientation R = T_{Ci→CI}, velocities v, w
    (inertial, (nt, n, 3)), inertias about the CMs in the body frames (n, 3, 3), the external
    loads F, M on each body (inertial, at the CM / about it), the joint point (nt, 3), the
    base frame T = T_{Cs→CI} (nt, 3, 3) and ω_Cs (nt, 3, in Cs):
        F_J = m_s1 a_Gs1 − Σ_{s1} F_i                                              (MCM-24)
        M_J = (Ḣ_s1)_Cs + ω_Cs × H_s1 − Σ_{s1} M_Gs1 − ρ_{J/Gs1} × F_J             (MCM-25)
    with a_Gs1 the second central difference of the stored ρ_{Gs1/O} (the paper's numerical
    second derivative), H_s1 about Gs1 = H_s1 about Gs − ρ_{Gs/Gs1} × m_s1 v_{Gs/Gs1}, and
    (Ḣ_s1)_Cs its central difference in Cs.  Returns (F_J, M_J) on the inner grid points
    t[1:-1]."""
    s = np.asarray(subsystem, int)
    m = np.asarray(mass, float)
    ms, mt = m[s].sum(), m.sum()
    h = t[1] - t[0]
    if not np.allclose(np.diff(t), h, rtol=1e-9, atol=0.0):
        raise ValueError("cut_joint_loads: the time grid must be uniform")
    xs = np.einsum('i,tij->tj', m[s], x[:, s]) / ms            # ρ_{Gs1/O}
    vs = np.einsum('i,tij->tj', m[s], v[:, s]) / ms
    xg = np.einsum('i,tij->tj', m, x) / mt                     # ρ_{Gs/O}
    vg = np.einsum('i,tij->tj', m, v) / mt
    Tt = np.swapaxes(T, 1, 2)                                  # T_{CI→Cs}
    # angular momentum of s1 about Gs (MCM-7), then about Gs1 (MCM §7), in Cs
    Hg = np.zeros((len(t), 3))
    for i in s:
        J = R[:, i] @ inertia[i] @ np.swapaxes(R[:, i], 1, 2)
        Hg += np.einsum('tij,tj->ti', J, w[:, i]) + m[i] * cross(x[:, i] - xg, v[:, i] - vg)
    Hs = Hg - cross(xg - xs, ms * (vg - vs))
    H = np.einsum('tij,tj->ti', Tt, Hs)
    a = (xs[2:] - 2.0 * xs[1:-1] + xs[:-2]) / (h * h)          # a_Gs1 (inertial)
    Hd = (H[2:] - H[:-2]) / (2.0 * h)                          # (Ḣ_s1)_Cs
    inner = slice(1, -1)
    Fi = F[inner][:, s].sum(1)
    FJ = ms * a - Fi                                           # MCM-24, inertial
    Mext = (cross(x[inner][:, s] - xs[inner][:, None], F[inner][:, s]) + M[inner][:, s]).sum(1)
    rJ = joint[inner] - xs[inner]                              # ρ_{J/Gs1}
    Tin = Tt[inner]
    to_s = lambda u: np.einsum('tij,tj->ti', Tin, u)           # noqa: E731
    MJ = Hd + cross(omega[inner], H[inner]) - to_s(Mext) - to_s(cross(rJ, FJ))   # MCM-25
    return to_s(FJ), MJ
