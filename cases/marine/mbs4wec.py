"""MBS4WEC (seed 004: Padeletti, Costello & Ringwood, "A multi-body algorithm for wave energy
converters employing nonlinear joint representation") as a small independent solver: the
joint-coordinate (velocity-transformation) method for open chains and trees of rigid bodies
under linear BEM wave loads.  It shares nothing with mbdae's DAE engine but the HydroData
structure (engine/core/hydro_data.py), so it can cross-check it.

Coordinates.  Every body has its generalized velocity v_i = [ṙ_i; ω_i] (CM velocity and angular
velocity, both global); the independent velocities s are the 6 of each tree's root plus one
relative rate per joint (WEC-10, WEC-12), ordered by a depth-first search of the joint graph
(WEC-9: bodies numbered in ascending order along branches).  v = Pᵀ s (WEC-5) with Φ Pᵀ = 0
(WEC-7); v̇ = Pᵀ ṡ + Ṗᵀ s (WEC-6).  Positions: each root's CM and unit quaternion, each
joint's angle (revolute) or slide (prismatic).

Equations.  Newton–Euler for every body, M v̇ + Φᵀλ = τ (WEC-1), reduced with P:

    P (M + Tᵀ A T) Pᵀ ṡ = P (τ − (M + Tᵀ A T) Ṗᵀ s − Tᵀ A Ṫ v) + Q_joint          (WEC-8 as corrected)

with τ = τ_E + τ_H + τ_rad + τ_SDA + τ_other (WEC-4) holding the gyroscopic −ω×Jω terms,
gravity on every body (WEC-17; a wet body's weight is balanced by the buoyancy ρgV its
hydrodynamic element applies), the linear BEM loads of a HydroData (hydrostatic −C ξ, radiation
−B(ω_c) ν and added mass A(ω_c) at a chosen frequency, regular or multi-component wave
excitation) applied at each body's hydrodynamic reference point o and carried to the CM by
T = [[I, −(o−c)×], [0, I]], mooring matrices on a body (WEC-11), point-to-point
spring–dampers with moment arms (WEC-13…16), bushings, and spring–dampers acting on a joint
coordinate (a hinge PTO).  Time domain: scipy's solve_ivp, RK45 as the paper.

Linearization about the reference configuration (which must be a static equilibrium) gives
the frequency-domain model of the same constrained system (derivation in `linearize`):

    X(ω) = [−ω² P₀(M + T₀ᵀA(ω)T₀)P₀ᵀ + iω (P₀ B_b P₀ᵀ + B_q) + P₀ K_b P₀ᵀ + K_geo + K_q]⁻¹ P₀ T₀ᵀ X_ex(ω) a

where B_b and K_b are the body-level damping and stiffness of every element (radiation, mooring,
spring–damper, with the load stiffness of preloads on moment arms), K_geo = −∂(P)/∂q · τ₀ the
geometric stiffness of the joint screws under the static loads, and B_q, K_q the joint PTO terms.
"""
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
import math

import numpy as np
from scipy.integrate import solve_ivp

from mbdae.engine.core.hydro_data import HydroData, WaveComponents

I3 = np.eye(3)


# ---------------------------------------------------------------------- small rotation toolbox
def cross(a, b):
    """a × b for two 3-vectors (numpy's cross costs ~25 µs a call; this ~1 µs)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def skew(a):
    """a× as a 3×3 matrix."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def rotation(axis, angle):
    """Rodrigues: the rotation by `angle` about the unit vector `axis`."""
    S = skew(axis)
    return I3 + math.sin(angle) * S + (1.0 - math.cos(angle)) * (S @ S)


def rotvec_to_R(theta):
    angle = float(np.linalg.norm(theta))
    if angle < 1e-12:
        return I3 + skew(theta)
    return rotation(np.asarray(theta) / angle, angle)


def R_to_rotvec(R):
    """The rotation vector θ with R = exp(θ×), |θ| ≤ π."""
    c = min(1.0, max(-1.0, 0.5 * (np.trace(R) - 1.0)))
    angle = math.acos(c)
    w = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    if angle < 1e-6:
        return w * (1.0 + angle * angle / 6.0)
    if math.pi - angle > 1e-6:
        return w * (angle / math.sin(angle))
    # near π: the axis from the symmetric part
    B = 0.5 * (R + I3)
    axis = B[np.argmax(np.diag(B))]
    axis = axis / np.linalg.norm(axis)
    if axis @ w < 0.0:
        axis = -axis
    return angle * axis


def quat_to_R(e):
    w, x, y, z = e / np.linalg.norm(e)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def R_to_quat(R):
    theta = R_to_rotvec(R)
    angle = np.linalg.norm(theta)
    if angle < 1e-14:
        return np.array([1.0, 0.0, 0.0, 0.0])
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * theta / angle])


def quat_rate(e, omega):
    """ė for the angular velocity ω given in the global frame: ė = ½ [0, ω] ⊗ e."""
    w, x, y, z = e
    a, b, c = omega
    return 0.5 * np.array([-a * x - b * y - c * z,
                           a * w + b * z - c * y,
                           b * w + c * x - a * z,
                           c * w + a * y - b * x])


def perpendiculars(u):
    """Two unit vectors completing u to a right-handed orthonormal triad (u, n1, n2)."""
    u = u / np.linalg.norm(u)
    t = I3[np.argmin(np.abs(u))]
    n1 = cross(u, t)
    n1 /= np.linalg.norm(n1)
    return n1, cross(u, n1)


def transport(d):
    """T = [[I, −d×], [0, I]]: the twist at a point o = c + d from the twist at the CM c; Tᵀ
    carries a force and moment at o to the CM."""
    T = np.eye(6)
    T[:3, 3:] = -skew(d)
    return T


def load_stiffness(force, arm):
    """−∂(d×F)/∂θ for a constant global force F on a body-fixed arm d (from the CM): the
    stiffness a preload on a moment arm adds to the body's rotations, −S(F)S(d)."""
    return -skew(force) @ skew(arm)


# ---------------------------------------------------------------------- model description
@dataclass
class Body:
    """A rigid body: mass, inertia about its CM in the body frame, CM position and orientation
    (body→global) at the reference configuration."""
    name: str
    mass: float
    inertia: np.ndarray
    position: np.ndarray
    orientation: np.ndarray = field(default_factory=lambda: np.eye(3))

    def __post_init__(self):
        self.inertia = np.asarray(self.inertia, dtype=float).reshape(3, 3)
        self.position = np.asarray(self.position, dtype=float).reshape(3)
        self.orientation = np.asarray(self.orientation, dtype=float).reshape(3, 3)
        if not self.mass > 0.0:
            raise ValueError(f"body '{self.name}': the mass must be positive")
        if np.linalg.norm(self.orientation.T @ self.orientation - I3) > 1e-9:
            raise ValueError(f"body '{self.name}': the orientation is not a rotation matrix")


JOINT_KINDS = ("revolute", "prismatic")


@dataclass
class Joint:
    """A one-degree-of-freedom joint between two bodies, given at the reference configuration:
    revolute (rotation about `axis` through `point`) or prismatic (translation along `axis`;
    `point` is where the slide is measured).  Which body is the parent comes from the search
    from the root; the joint coordinate is the child's motion relative to the parent."""
    kind: str
    body_a: str
    body_b: str
    point: np.ndarray
    axis: np.ndarray

    def __post_init__(self):
        if self.kind not in JOINT_KINDS:
            raise ValueError(f"joint {self.body_a}-{self.body_b}: kind '{self.kind}' is not one of {JOINT_KINDS}")
        self.point = np.asarray(self.point, dtype=float).reshape(3)
        a = np.asarray(self.axis, dtype=float).reshape(3)
        if np.linalg.norm(a) == 0.0:
            raise ValueError(f"joint {self.body_a}-{self.body_b}: the axis is zero")
        self.axis = a / np.linalg.norm(a)


def regular_wave(height, period, heading=0.0, phase=0.0, g=9.81):
    """The paper's monochromatic unidirectional wave (H, period "f"): one WaveComponents entry."""
    return WaveComponents(omega=np.array([2.0 * math.pi / period]), amplitude=np.array([0.5 * height]),
                          phase=np.array([phase]), heading=heading, g=g)


# ---------------------------------------------------------------------- topology (WEC-9)
def dfs_topology(names, joints, roots=None):
    """Depth-first search over the joint graph (the paper's preProcessing).  Returns the body
    order (bodies numbered in ascending order along each branch, trees one after the other),
    the parent of each body in that order (-1 for a root) and the joint (index into `joints`)
    that connects it to its parent.  A closed loop is an error: cut a joint."""
    index = {n: i for i, n in enumerate(names)}
    if len(index) != len(names):
        raise ValueError("two bodies have the same name")
    adj = [[] for _ in names]
    for k, j in enumerate(joints):
        for n in (j.body_a, j.body_b):
            if n not in index:
                raise ValueError(f"joint {k} ({j.kind}) names an unknown body '{n}'")
        a, b = index[j.body_a], index[j.body_b]
        if a == b:
            raise ValueError(f"joint {k} ({j.kind}) connects body '{j.body_a}' to itself")
        adj[a].append((b, k))
        adj[b].append((a, k))
    start = [index[r] for r in (roots or [])] + list(range(len(names)))
    order, parent, via = [], {}, {}
    seen = set()
    for r in start:
        if r in seen:
            continue
        seen.add(r)
        parent[r], via[r] = -1, -1
        stack = [(r, iter(adj[r]))]
        order.append(r)
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                continue
            other, k = nxt
            if k == via[node]:
                continue
            if other in seen:
                raise ValueError(f"joint {k} ({joints[k].kind} {joints[k].body_a}-{joints[k].body_b}) "
                                 f"closes a loop: cut one joint per loop (MBS4WEC handles open chains and trees)")
            seen.add(other)
            parent[other], via[other] = node, k
            order.append(other)
            stack.append((other, iter(adj[other])))
    pos = {b: i for i, b in enumerate(order)}
    return order, [(-1 if parent[b] < 0 else pos[parent[b]]) for b in order], [via[b] for b in order]


def path_matrix(parent):
    """WEC-9: Π_ij = 1 if body j lies on the path from the root to body i (both ends included)."""
    n = len(parent)
    Pi = np.zeros((n, n), dtype=int)
    for i in range(n):
        j = i
        while j >= 0:
            Pi[i, j] = 1
            j = parent[j]
    return Pi


# ---------------------------------------------------------------------- the model
class JointCoordinateModel:
    """Bodies, joints (open chains and trees; several trees are allowed, each with its root's
    6 dofs), gravity, and force elements; time-domain and frequency-domain solutions."""

    def __init__(self, bodies, joints=(), roots=None, gravity=9.81):
        joints = list(joints)
        names = [b.name for b in bodies]
        order, parent, via = dfs_topology(names, joints, roots)
        self.bodies = [bodies[b] for b in order]
        self.names = [b.name for b in self.bodies]
        self.index = {n: i for i, n in enumerate(self.names)}
        self.parent = parent
        self.joints = joints
        self.path = path_matrix(parent)
        self.g = gravity
        n = len(self.bodies)
        self.n = n
        # dof and position layouts: a root owns 6 velocities / 7 positions, a joint 1 / 1
        self.sdof, self.qdof, ns, nq = [], [], 0, 0
        for i in range(n):
            k = 6 if parent[i] < 0 else 1
            self.sdof.append(np.arange(ns, ns + k))
            self.qdof.append(np.arange(nq, nq + (7 if k == 6 else 1)))
            ns, nq = ns + k, nq + (7 if k == 6 else 1)
        self.nf, self.nq = ns, nq
        self._dof_body = [i for i in range(n) for _ in self.sdof[i]]
        self._dof_mask = np.array([[self.path[i, self._dof_body[k]] for k in range(ns)] for i in range(n)], dtype=float)
        # joint data in the parent's and child's body frames
        self.jkind = [None] * n
        self.s_p, self.s_c, self.u_p, self.R_rel0 = [None] * n, [None] * n, [None] * n, [None] * n
        self.n_p, self.h_c = [None] * n, [None] * n
        for i in range(n):
            if parent[i] < 0:
                continue
            jt, p, c = joints[via[i]], self.bodies[parent[i]], self.bodies[i]
            self.jkind[i] = jt.kind
            self.s_p[i] = p.orientation.T @ (jt.point - p.position)
            self.s_c[i] = c.orientation.T @ (jt.point - c.position)
            self.u_p[i] = p.orientation.T @ jt.axis
            self.R_rel0[i] = p.orientation.T @ c.orientation
            self.n_p[i] = perpendiculars(self.u_p[i])                        # ⊥ axis, parent frame
            u_c = self.R_rel0[i].T @ self.u_p[i]
            self.h_c[i] = perpendiculars(u_c)                                # ⊥ axis, child frame
        self.joint_of_body = via
        self.elements = []
        self.q_ref = self.reference_coordinates()

    # ------------------------------------------------------------------ bookkeeping
    def body(self, name):
        if name not in self.index:
            raise ValueError(f"no body named '{name}' (bodies: {', '.join(self.names)})")
        return self.index[name]

    def joint_dof(self, child):
        """The index in s of the joint coordinate whose child (in the search order) is `child`."""
        i = self.body(child) if isinstance(child, str) else child
        if self.parent[i] < 0:
            raise ValueError(f"body '{self.names[i]}' is a root: it has no joint coordinate")
        return int(self.sdof[i][0])

    def add(self, element):
        element.bind(self)
        self.elements.append(element)
        return element

    def reference_coordinates(self):
        q = np.zeros(self.nq)
        for i, b in enumerate(self.bodies):
            if self.parent[i] < 0:
                q[self.qdof[i][:3]] = b.position
                q[self.qdof[i][3:]] = R_to_quat(b.orientation)
        return q

    # ------------------------------------------------------------------ kinematics
    def pose(self, q):
        """Orientation (N,3,3) and CM position (N,3) of every body from the coordinates q."""
        R = np.empty((self.n, 3, 3))
        r = np.empty((self.n, 3))
        for i in range(self.n):
            p = self.parent[i]
            if p < 0:
                r[i] = q[self.qdof[i][:3]]
                R[i] = quat_to_R(q[self.qdof[i][3:]])
                continue
            x = q[self.qdof[i][0]]
            if self.jkind[i] == "revolute":
                R[i] = R[p] @ rotation(self.u_p[i], x) @ self.R_rel0[i]
                r[i] = r[p] + R[p] @ self.s_p[i] - R[i] @ self.s_c[i]
            else:
                R[i] = R[p] @ self.R_rel0[i]
                r[i] = r[p] + R[p] @ (self.s_p[i] + x * self.u_p[i]) - R[i] @ self.s_c[i]
        return R, r

    def screws(self, R, r):
        """Unit screw of each independent velocity: (angular part, point or None, linear part)."""
        out = [None] * self.nf
        for i in range(self.n):
            p = self.parent[i]
            if p < 0:
                for a in range(3):
                    out[self.sdof[i][a]] = (np.zeros(3), None, I3[a].copy())
                    out[self.sdof[i][3 + a]] = (I3[a].copy(), r[i].copy(), np.zeros(3))
            elif self.jkind[i] == "revolute":
                out[self.sdof[i][0]] = (R[p] @ self.u_p[i], r[p] + R[p] @ self.s_p[i], np.zeros(3))
            else:
                out[self.sdof[i][0]] = (np.zeros(3), None, R[p] @ self.u_p[i])
        return out

    def dof_body(self, k):
        """The body whose inbound dofs include s_k (the root for root dofs, the child for a joint)."""
        return self._dof_body[k]

    def velocity_transformation(self, R, r):
        """Pᵀ (6N × nf), WEC-5: body i's [ṙ_i; ω_i] = Σ_k Pᵀ[i, k] s_k, nonzero where the path
        matrix says the dof's body lies between the root and body i (WEC-9)."""
        sc = self.screws(R, r)
        W = np.array([w for w, _, _ in sc])                                   # (nf, 3)
        Pt = np.array([(p if p is not None else np.zeros(3)) for _, p, _ in sc])
        Lin = np.array([lin for _, _, lin in sc])
        arm = r[:, None, :] - Pt[None, :, :]                                  # (N, nf, 3)
        vel = Lin[None] + np.stack([W[None, :, 1] * arm[..., 2] - W[None, :, 2] * arm[..., 1],
                                    W[None, :, 2] * arm[..., 0] - W[None, :, 0] * arm[..., 2],
                                    W[None, :, 0] * arm[..., 1] - W[None, :, 1] * arm[..., 0]], axis=-1)
        mask = self._dof_mask[:, :, None]                                     # (N, nf, 1)
        PT = np.concatenate([vel * mask, W[None] * mask], axis=2)             # (N, nf, 6)
        return PT.transpose(0, 2, 1).reshape(6 * self.n, self.nf)

    def bias_acceleration(self, R, r, V, s):
        """Ṗᵀ s (WEC-6): the body accelerations when ṡ = 0, by the recursion from the root."""
        a = np.zeros(6 * self.n)
        for i in range(self.n):
            p = self.parent[i]
            if p < 0:
                continue
            x_dot = s[self.sdof[i][0]]
            wp, wc = V[6 * p + 3:6 * p + 6], V[6 * i + 3:6 * i + 6]
            ap, alp = a[6 * p:6 * p + 3], a[6 * p + 3:6 * p + 6]
            u = R[p] @ self.u_p[i]
            if self.jkind[i] == "revolute":
                dp = R[p] @ self.s_p[i]               # parent CM → joint
                e = -(R[i] @ self.s_c[i])             # joint → child CM
                alc = alp + x_dot * cross(wp, u)
                a[6 * i:6 * i + 3] = (ap + cross(alp, dp) + cross(wp, cross(wp, dp))
                                      + cross(alc, e) + cross(wc, cross(wc, e)))
                a[6 * i + 3:6 * i + 6] = alc
            else:
                rho = r[i] - r[p]
                a[6 * i:6 * i + 3] = (ap + cross(alp, rho) + cross(wp, cross(wp, rho))
                                      + 2.0 * x_dot * cross(wp, u))
                a[6 * i + 3:6 * i + 6] = alp
        return a

    def constraint_residual(self, R, r):
        """Position constraints of the joints in Nikravesh's form (absolute coordinates):
        revolute: coincident points (3) and parallel axes (2); prismatic: the child's point on
        the parent's line (2), parallel axes (2), no twist (1)."""
        g = []
        for i in range(self.n):
            p = self.parent[i]
            if p < 0:
                continue
            a = R[p] @ self.u_p[i]
            h1, h2 = (R[i] @ h for h in self.h_c[i])
            if self.jkind[i] == "revolute":
                g += list(r[p] + R[p] @ self.s_p[i] - r[i] - R[i] @ self.s_c[i])
                g += [h1 @ a, h2 @ a]
            else:
                delta = r[i] + R[i] @ self.s_c[i] - r[p] - R[p] @ self.s_p[i]
                n1, n2 = (R[p] @ n for n in self.n_p[i])
                m = R[i] @ (self.R_rel0[i].T @ self.n_p[i][1])
                g += [n1 @ delta, n2 @ delta, h1 @ a, h2 @ a, m @ n1]
        return np.array(g)

    def constraint_jacobian(self, R, r):
        """Φ (WEC-1, WEC-2: Φ v = 0): the velocity Jacobian of constraint_residual with
        respect to the body velocities [ṙ_i; ω_i] (global angular velocities)."""
        rows = []
        for i in range(self.n):
            p = self.parent[i]
            if p < 0:
                continue
            a = R[p] @ self.u_p[i]
            dp, dc = R[p] @ self.s_p[i], R[i] @ self.s_c[i]

            def row(vp=None, wp=None, vc=None, wc=None):
                out = np.zeros(6 * self.n)
                for blk, off in ((vp, 6 * p), (wp, 6 * p + 3), (vc, 6 * i), (wc, 6 * i + 3)):
                    if blk is not None:
                        out[off:off + 3] = blk
                return out

            if self.jkind[i] == "revolute":
                for c in range(3):
                    rows.append(row(vp=I3[c], wp=-skew(dp)[c], vc=-I3[c], wc=skew(dc)[c]))
            else:
                delta = r[i] + dc - r[p] - dp
                for n in (R[p] @ nn for nn in self.n_p[i]):
                    rows.append(row(vp=-n, wp=cross(n, delta + dp), vc=n, wc=cross(dc, n)))
            for h in (R[i] @ hh for hh in self.h_c[i]):
                rows.append(row(wp=cross(a, h), wc=cross(h, a)))
            if self.jkind[i] == "prismatic":
                n1 = R[p] @ self.n_p[i][0]
                m = R[i] @ (self.R_rel0[i].T @ self.n_p[i][1])
                rows.append(row(wp=cross(n1, m), wc=cross(m, n1)))
        return np.array(rows).reshape(-1, 6 * self.n)

    def mass_matrix(self, R):
        """Block-diagonal body mass matrix in global axes: diag(m_i I, R_i J_i R_iᵀ)."""
        M = np.zeros((6 * self.n, 6 * self.n))
        for i, b in enumerate(self.bodies):
            M[6 * i:6 * i + 3, 6 * i:6 * i + 3] = b.mass * I3
            M[6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] = R[i] @ b.inertia @ R[i].T
        return M

    # ------------------------------------------------------------------ state
    def state(self, t, y):
        """The kinematic context of the state vector y = [q, s, work accumulators]."""
        q, s = y[:self.nq], y[self.nq:self.nq + self.nf]
        R, r = self.pose(q)
        PT = self.velocity_transformation(R, r)
        V = PT @ s
        return Context(t, q, s, R, r, PT, V)

    def initial_state(self, q=None, s=None):
        q = self.q_ref.copy() if q is None else np.asarray(q, dtype=float)
        s = np.zeros(self.nf) if s is None else np.asarray(s, dtype=float)
        return np.concatenate([q, s, np.zeros(len(self.work_labels()))])

    def work_labels(self):
        return [f"{e.name}:{lab}" for e in self.elements for lab in e.power_labels]

    def generalized_forces(self, ctx, excitation=True):
        """τ (6N, about each CM, global), the extra mass Tᵀ A T (6N×6N), the joint-space forces
        Q_q (nf) and the powers of the elements, at the context ctx."""
        n = self.n
        tau = np.zeros(6 * n)
        Madd = np.zeros((6 * n, 6 * n))
        Qq = np.zeros(self.nf)
        for i, b in enumerate(self.bodies):
            J = ctx.R[i] @ b.inertia @ ctx.R[i].T
            w = ctx.V[6 * i + 3:6 * i + 6]
            tau[6 * i + 2] -= b.mass * self.g                      # WEC-17
            tau[6 * i + 3:6 * i + 6] -= cross(w, J @ w)         # gyroscopic
        powers = []
        for e in self.elements:
            powers += e.add_loads(ctx, tau, Madd, Qq, excitation)
        return tau, Madd, Qq, np.array(powers)

    def rhs(self, t, y):
        """dy/dt of the reduced ODE (WEC-8 corrected): P M Pᵀ ṡ = P(τ − M Ṗᵀ s) + Q_q."""
        ctx = self.state(t, y)
        tau, Madd, Qq, powers = self.generalized_forces(ctx)
        M = self.mass_matrix(ctx.R) + Madd
        b = self.bias_acceleration(ctx.R, ctx.r, ctx.V, ctx.s)
        PT = ctx.PT
        sdot = np.linalg.solve(PT.T @ M @ PT, PT.T @ (tau - M @ b) + Qq)
        qdot = np.empty(self.nq)
        for i in range(self.n):
            if self.parent[i] < 0:
                qd = self.qdof[i]
                qdot[qd[:3]] = ctx.V[6 * i:6 * i + 3]
                qdot[qd[3:]] = quat_rate(ctx.q[qd[3:]], ctx.V[6 * i + 3:6 * i + 6])
            else:
                qdot[self.qdof[i][0]] = ctx.s[self.sdof[i][0]]
        return np.concatenate([qdot, sdot, powers])

    def simulate(self, t_end, y0=None, t_eval=None, rtol=1e-8, atol=None, max_step=np.inf, method="RK45"):
        """Integrate the reduced ODE with scipy's solve_ivp (RK45, the paper's Runge–Kutta 4/5)."""
        y0 = self.initial_state() if y0 is None else y0
        if atol is None:
            atol = 1e-10 * np.maximum(1.0, np.abs(y0))
            atol[self.nq + self.nf:] = 1e-6            # work accumulators, J
        sol = solve_ivp(self.rhs, (0.0, t_end), y0, method=method, t_eval=t_eval, rtol=rtol, atol=atol,
                        max_step=max_step, dense_output=t_eval is None)
        if not sol.success:
            raise RuntimeError(f"MBS4WEC time integration failed at t = {sol.t[-1]:g} s: {sol.message}")
        return Solution(self, sol)

    # ------------------------------------------------------------------ linearization
    def static_forces(self, q=None):
        """τ₀ (per body) and the reduced static force P τ₀ + Q_q at rest at coordinates q."""
        y = self.initial_state(q)
        ctx = self.state(0.0, y)
        tau, _, Qq, _ = self.generalized_forces(ctx, excitation=False)
        return tau, ctx.PT.T @ tau + Qq

    def static_residual(self):
        """|P τ₀| relative to the largest weight: how far the reference is from equilibrium."""
        _, Q = self.static_forces()
        return float(np.max(np.abs(Q)) / (max(b.mass for b in self.bodies) * self.g))

    def geometric_stiffness(self, R, r, tau0):
        """K_geo[k, j] = −Σ_i τ₀ᵢ · ∂(Pᵀ column k at body i)/∂q_j.  A dof upstream of joint k
        carries joint k's screw rigidly (δt = ω̂_j × t); otherwise moving q_j moves body i's CM
        by t_j and changes the lever arm of a rotation screw k (δt_v = ω̂_k × t_j,v)."""
        sc = self.screws(R, r)
        PT = self.velocity_transformation(R, r)
        nf = self.nf
        K = np.zeros((nf, nf))
        dbody = [self.dof_body(k) for k in range(nf)]
        is_joint = [self.parent[dbody[k]] >= 0 for k in range(nf)]
        is_root_trans = [not is_joint[k] and np.allclose(sc[k][0], 0.0) for k in range(nf)]
        for k in range(nf):
            wk = sc[k][0]
            for j in range(nf):
                wj = sc[j][0]
                carried = ((is_joint[k] and self.path[dbody[k], dbody[j]] and dbody[j] != dbody[k])
                           or (not is_joint[k] and not is_root_trans[k] and is_root_trans[j]
                               and dbody[j] == dbody[k]))
                acc = 0.0
                for i in np.nonzero(self.path[:, dbody[k]])[0]:
                    tk = PT[6 * i:6 * i + 6, k]
                    if carried:
                        d = np.concatenate([cross(wj, tk[:3]), cross(wj, tk[3:])])
                    elif is_root_trans[k] or not self.path[i, dbody[j]]:
                        continue
                    else:
                        d = np.concatenate([cross(wk, PT[6 * i:6 * i + 3, j]), np.zeros(3)])
                    acc += tau0[6 * i:6 * i + 6] @ d
                K[k, j] = -acc
        return K

    def linearize(self, omega):
        """The constrained linear model at wave frequency ω about the reference configuration:
        reduced mass, damping, stiffness and the excitation force of the model's waves
        (one complex amplitude per wave component at ω; zero if none is at ω).

        Derivation: with δq the independent displacements (root CM translation and global
        rotation vector, joint coordinates), body i moves by ξ_i = P₀ᵀ δq to first order;
        each element's load, linearized in (ξ, ν), is τ ≈ τ₀ − K_b ξ − B_b ν − M_a ν̇ + F; the
        reduced force P(q)τ changes by P₀ δτ + (∂P/∂q δq) τ₀, the last being −K_geo δq; the
        velocity-product terms (gyroscopic, Ṗᵀ s, Tᵀ A Ṫ v) are quadratic and drop out."""
        q0 = self.q_ref
        R, r = self.pose(q0)
        PT = self.velocity_transformation(R, r)
        n6 = 6 * self.n
        parts = dict(M=self.mass_matrix(R), B=np.zeros((n6, n6)), K=np.zeros((n6, n6)),
                     F=np.zeros(n6, dtype=complex), Bq=np.zeros((self.nf, self.nf)),
                     Kq=np.zeros((self.nf, self.nf)))
        for e in self.elements:
            e.add_linear(omega, R, r, parts)
        tau0, _ = self.static_forces(q0)
        Kgeo = self.geometric_stiffness(R, r, tau0)
        return LinearModel(self, omega, PT, PT.T @ parts["M"] @ PT, PT.T @ parts["B"] @ PT + parts["Bq"],
                           PT.T @ parts["K"] @ PT + Kgeo + parts["Kq"], PT.T @ parts["F"], parts)

    def frequency_response(self, omega):
        return self.linearize(omega).solve()


@dataclass
class Context:
    t: float
    q: np.ndarray
    s: np.ndarray
    R: np.ndarray
    r: np.ndarray
    PT: np.ndarray
    V: np.ndarray


class LinearModel:
    """Reduced linear model M_q δq̈ + B_q δq̇ + K_q δq = Re[F_q e^{iωt}] at one frequency."""

    def __init__(self, model, omega, PT, M, B, K, F, parts):
        self.model, self.omega, self.PT = model, omega, PT
        self.M, self.B, self.K, self.F, self.parts = M, B, K, F, parts

    def impedance(self):
        w = self.omega
        return -w * w * self.M + 1j * w * self.B + self.K

    def solve(self):
        """X(ω): complex amplitudes of the independent coordinates (δq = Re[X e^{iωt}])."""
        self.X = np.linalg.solve(self.impedance(), self.F)
        return self.X

    def initial_state(self, X=None):
        """The state at t = 0 of the linear steady state Re[X e^{iωt}] (roots displaced and turned
        by Re X, joints at Re X, velocities Re iωX): a time-domain run from it starts without
        the transient of the linear system."""
        m = self.model
        X = self.X if X is None else X
        q = m.q_ref.copy()
        for i, b in enumerate(m.bodies):
            qd, sd = m.qdof[i], m.sdof[i]
            if m.parent[i] < 0:
                q[qd[:3]] = b.position + np.real(X[sd[:3]])
                q[qd[3:]] = R_to_quat(rotvec_to_R(np.real(X[sd[3:]])) @ b.orientation)
            else:
                q[qd[0]] = np.real(X[sd[0]])
        return m.initial_state(q, np.real(1j * self.omega * X))

    def body_motion(self, X=None):
        """ξ_i = P₀ᵀ X: complex amplitudes of every body's CM translation and rotation (N, 6)."""
        X = self.X if X is None else X
        return (self.PT @ X).reshape(self.model.n, 6)

    def mean_powers(self, X=None):
        """Mean powers over a period of the linear steady state, W: the waves' input
        ½Re[(iωX)ᴴ F], and what each damping element dissipates, ½ω² Xᴴ B_e X."""
        X = self.X if X is None else X
        w = self.omega
        out = {"excitation": 0.5 * float(np.real(np.conj(1j * w * X) @ self.F))}
        for e in self.model.elements:
            for lab, Bq in e.linear_dampers(self).items():
                out[f"{e.name}:{lab}"] = 0.5 * w * w * float(np.real(np.conj(X) @ Bq @ X))
        return out


class Solution:
    """A time-domain solution: coordinates, body motions, element work."""

    def __init__(self, model, sol):
        self.model, self.sol = model, sol
        self.t = sol.t
        self.y = sol.y

    def at(self, t):
        return self.sol.sol(t) if self.sol.sol is not None else None

    def body_motion(self, Y=None):
        """(nt, N, 6): CM displacement from the reference and rotation vector of R R₀ᵀ."""
        m = self.model
        Y = self.y if Y is None else Y
        out = np.empty((Y.shape[1], m.n, 6))
        for k in range(Y.shape[1]):
            R, r = m.pose(Y[:m.nq, k])
            for i, b in enumerate(m.bodies):
                out[k, i, :3] = r[i] - b.position
                out[k, i, 3:] = R_to_rotvec(R[i] @ b.orientation.T)
        return out

    def coordinates(self, Y=None):
        Y = self.y if Y is None else Y
        return Y[:self.model.nq]

    def velocities(self, Y=None):
        Y = self.y if Y is None else Y
        return Y[self.model.nq:self.model.nq + self.model.nf]

    def work(self, Y=None):
        """Accumulated work of each element's power channel, J (dict label → (nt,))."""
        Y = self.y if Y is None else Y
        base = self.model.nq + self.model.nf
        return {lab: Y[base + k] for k, lab in enumerate(self.model.work_labels())}


def first_harmonic(t, x, omega):
    """Least-squares fit x ≈ m + Re[c e^{iωt}]: returns (c, m)."""
    A = np.column_stack([np.ones_like(t), np.cos(omega * t), np.sin(omega * t)])
    coef, *_ = np.linalg.lstsq(A, x, rcond=None)
    return coef[1] - 1j * coef[2], coef[0]


# ---------------------------------------------------------------------- force elements
class Element(ABC):
    """A force element: adds its loads to τ (and possibly mass or joint-space forces),
    reports power channels, and its linearization."""
    power_labels = ()
    name = "element"

    def bind(self, model):
        self.model = model

    @abstractmethod
    def add_loads(self, ctx, tau, Madd, Qq, excitation):
        """Add the element's loads at the state `ctx` to τ (and mass to Madd, joint-space forces to Qq)."""

    @abstractmethod
    def add_linear(self, omega, R, r, parts):
        """Add the element's linearization at frequency ω about the pose (R, r) to `parts`
        (body-coordinate matrices "M", "B", "K" and the complex force amplitude "F")."""

    def linear_dampers(self, lin):
        """Reduced damping matrix of each dissipative channel (for the power balance)."""
        return {}


class HydroLoads(Element):
    """Linear BEM loads of a HydroData on its wet bodies (WEC-4: τ_E, τ_H, τ_rad): at each
    body's reference point o, F = F_b − C ξ_o − B(ω_c) ν_o − A(ω_c) ν̇_o + Re Σ a X(β, ω_k) e^{i(ω_k t+φ_k)}
    with ξ_o the displacement of o and the rotation vector, F_b the buoyancy ρgV (a constant
    global force at o); carried to the CM with T.  `bodies` maps the HydroData's bodies to the
    model's; `coefficient_omega` is the frequency of the constant A and B (the wave's if one
    component); `ramp` a cosine ramp of the excitation, s."""
    power_labels = ("excitation", "radiation")

    def __init__(self, hydro: HydroData, bodies, wave: WaveComponents = None, coefficient_omega=None,
                 displaced_volume=None, ramp=0.0, name="hydro"):
        hydro.check()
        if len(bodies) != hydro.n_bodies:
            raise ValueError(f"{hydro.source or 'hydrodynamic data'}: {hydro.n_bodies} bodies, "
                             f"but {len(bodies)} model bodies are mapped to them")
        self.hd, self.body_names, self.wave, self.ramp, self.name = hydro, list(bodies), wave, ramp, name
        if displaced_volume is None:
            if hydro.displaced_volume is None:
                raise ValueError(f"{hydro.source or 'hydrodynamic data'}: no displaced volume in the data; "
                                 "give displaced_volume= for the buoyancy")
            displaced_volume = hydro.displaced_volume
        self.volume = np.asarray(displaced_volume, dtype=float).reshape(hydro.n_bodies)
        if coefficient_omega is None:
            if wave is None or len(wave.omega) != 1:
                raise ValueError("give coefficient_omega= (the frequency of the constant A and B) "
                                 "unless the wave is regular")
            coefficient_omega = float(wave.omega[0])
        self.omega_c = coefficient_omega
        self.A, self.B = self.coefficients(coefficient_omega)
        self.C = hydro.hydrostatic_stiffness

    def coefficients(self, omega):
        hd = self.hd
        if not hd.omega[0] <= omega <= hd.omega[-1]:
            raise ValueError(f"{hd.source or 'hydrodynamic data'}: ω = {omega:g} rad/s is outside the "
                             f"frequencies {hd.omega[0]:g} … {hd.omega[-1]:g} rad/s")
        k = int(np.clip(np.searchsorted(hd.omega, omega) - 1, 0, len(hd.omega) - 2))
        f = (omega - hd.omega[k]) / (hd.omega[k + 1] - hd.omega[k])
        A = (1 - f) * hd.added_mass[k] + f * hd.added_mass[k + 1]
        B = (1 - f) * hd.radiation_damping[k] + f * hd.radiation_damping[k + 1]
        return A, B

    def excitation_coefficient(self, omega, heading):
        hd = self.hd
        _ = self.coefficients(omega)                  # range check
        h = np.asarray(hd.headings)
        dist = np.abs(np.angle(np.exp(1j * (h - heading))))
        if dist.min() < 1e-9:
            Xh = hd.excitation[int(np.argmin(dist))]
        else:
            if len(h) < 2:
                raise ValueError(f"{hd.source or 'hydrodynamic data'}: heading {heading:g} rad not in the data")
            o = np.argsort(h)
            hs = h[o]
            m = int(np.clip(np.searchsorted(hs, heading) - 1, 0, len(hs) - 2))
            if not hs[m] <= heading <= hs[m + 1]:
                raise ValueError(f"{hd.source or 'hydrodynamic data'}: heading {heading:g} rad outside "
                                 f"{hs[0]:g} … {hs[-1]:g}")
            f = (heading - hs[m]) / (hs[m + 1] - hs[m])
            Xh = (1 - f) * hd.excitation[o[m]] + f * hd.excitation[o[m + 1]]
        k = int(np.clip(np.searchsorted(hd.omega, omega) - 1, 0, len(hd.omega) - 2))
        f = (omega - hd.omega[k]) / (hd.omega[k + 1] - hd.omega[k])
        return (1 - f) * Xh[k] + f * Xh[k + 1]

    def bind(self, model):
        self.model = model
        hd = self.hd
        self.idx = [model.body(n) for n in self.body_names]
        self.arm = []                               # o − c in the body frame
        self.R0 = []
        for b, i in enumerate(self.idx):
            body = model.bodies[i]
            self.arm.append(body.orientation.T @ (hd.reference_points[b] - body.position))
            self.R0.append(body.orientation)
        nb = hd.n_bodies
        self.Fb = np.zeros(6 * nb)
        for b in range(nb):
            Fz = hd.rho * hd.g * self.volume[b]
            self.Fb[6 * b + 2] = Fz
            if hd.centre_of_buoyancy is not None:
                self.Fb[6 * b + 3:6 * b + 6] = cross(hd.centre_of_buoyancy[b] - hd.reference_points[b],
                                                        [0.0, 0.0, Fz])
        self.Xa = []                                # complex force amplitude per wave component
        if self.wave is not None:
            for w, a, ph in zip(self.wave.omega, self.wave.amplitude, self.wave.phase):
                self.Xa.append((w, a * np.exp(1j * ph) * self.excitation_coefficient(w, self.wave.heading)))
        self.Xw = np.array([w for w, _ in self.Xa])
        self.Xm = np.array([x for _, x in self.Xa]).reshape(len(self.Xa), 6 * nb)

    def map(self, R, n6):
        """T (6Nh × 6N) and the current arms d = R (o − c)_body."""
        nb = self.hd.n_bodies
        T = np.zeros((6 * nb, n6))
        arms = []
        for b, i in enumerate(self.idx):
            d = R[i] @ self.arm[b]
            arms.append(d)
            T[6 * b:6 * b + 6, 6 * i:6 * i + 6] = transport(d)
        return T, arms

    def excitation_force(self, t):
        if len(self.Xw) == 0:
            return 0.0
        f = np.real(np.exp(1j * self.Xw * t) @ self.Xm)
        if self.ramp > 0.0 and t < self.ramp:
            f = f * 0.5 * (1.0 - math.cos(math.pi * t / self.ramp))
        return f

    def add_loads(self, ctx, tau, Madd, Qq, excitation):
        nb = self.hd.n_bodies
        T, arms = self.map(ctx.R, len(tau))
        nu = T @ ctx.V
        xi = np.empty(6 * nb)
        ddot = np.zeros(6 * nb)                     # Ṫ v: ω × (ω × d) at each o
        for b, i in enumerate(self.idx):
            xi[6 * b:6 * b + 3] = ctx.r[i] + arms[b] - self.hd.reference_points[b]
            xi[6 * b + 3:6 * b + 6] = R_to_rotvec(ctx.R[i] @ self.R0[b].T)
            w = ctx.V[6 * i + 3:6 * i + 6]
            ddot[6 * b:6 * b + 3] = cross(w, cross(w, arms[b]))
        Fex = self.excitation_force(ctx.t) if excitation else np.zeros(6 * nb)
        Frad = -self.B @ nu
        F = self.Fb - self.C @ xi + Frad + Fex - self.A @ ddot
        tau += T.T @ F
        Madd += T.T @ self.A @ T
        return [float(Fex @ nu), float(Frad @ nu)]

    def add_linear(self, omega, R, r, parts):
        T, arms = self.map(R, parts["M"].shape[0])
        A, B = self.coefficients(omega)
        parts["M"] += T.T @ A @ T
        parts["B"] += T.T @ B @ T
        parts["K"] += T.T @ self.C @ T
        for b, i in enumerate(self.idx):
            parts["K"][6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] += load_stiffness(self.Fb[6 * b:6 * b + 3], arms[b])
        for w, x in self.Xa:
            if abs(w - omega) <= 1e-12 * omega:
                parts["F"] += T.T @ x

    def linear_dampers(self, lin):
        R, _ = lin.model.pose(lin.model.q_ref)
        T, _ = self.map(R, 6 * lin.model.n)
        _, B = self.coefficients(lin.omega)
        return {"radiation": lin.PT.T @ T.T @ B @ T @ lin.PT}


class LinearMooring(Element):
    """WEC-11: τ_moor = −B_moor v − G_moor η on one body, at a point (default its CM): η the
    displacement of that point and the rotation vector from the reference, v its twist."""
    power_labels = ("damping",)

    def __init__(self, body, stiffness, damping, point=None, name="mooring"):
        self.body_name, self.name = body, name
        self.G = np.asarray(stiffness, dtype=float).reshape(6, 6)
        self.Bm = np.asarray(damping, dtype=float).reshape(6, 6)
        self.point = None if point is None else np.asarray(point, dtype=float)

    def bind(self, model):
        self.model = model
        self.i = model.body(self.body_name)
        b = model.bodies[self.i]
        p = b.position if self.point is None else self.point
        self.p0, self.arm, self.R0 = p, b.orientation.T @ (p - b.position), b.orientation

    def add_loads(self, ctx, tau, Madd, Qq, excitation):
        i = self.i
        d = ctx.R[i] @ self.arm
        T = transport(d)
        nu = T @ ctx.V[6 * i:6 * i + 6]
        eta = np.concatenate([ctx.r[i] + d - self.p0, R_to_rotvec(ctx.R[i] @ self.R0.T)])
        Fd = -self.Bm @ nu
        tau[6 * i:6 * i + 6] += T.T @ (Fd - self.G @ eta)
        return [float(Fd @ nu)]

    def add_linear(self, omega, R, r, parts):
        i = self.i
        T = transport(R[i] @ self.arm)
        sl = slice(6 * i, 6 * i + 6)
        parts["K"][sl, sl] += T.T @ self.G @ T
        parts["B"][sl, sl] += T.T @ self.Bm @ T

    def linear_dampers(self, lin):
        n6 = 6 * lin.model.n
        Bb = np.zeros((n6, n6))
        T = transport(lin.model.bodies[self.i].orientation @ self.arm)
        Bb[6 * self.i:6 * self.i + 6, 6 * self.i:6 * self.i + 6] = T.T @ self.Bm @ T
        return {"damping": lin.PT.T @ Bb @ lin.PT}


class SpringDamper(Element):
    """WEC-13…16: a translational spring (k, free length l0) and damper b between a point of
    body 1 and a point of body 2 (global points at the reference).  f₁ = (k(l − l₀) + b l̇) u on
    body 1, u the unit vector from its point to body 2's; −f₁ on body 2; moments s̃ f about
    each CM.  The damper's power b l̇² is the PTO's absorbed power."""
    power_labels = ("damper",)

    def __init__(self, body1, point1, body2, point2, stiffness, free_length, damping, name="pto"):
        self.names = (body1, body2)
        self.points = (np.asarray(point1, dtype=float), np.asarray(point2, dtype=float))
        self.k, self.l0, self.b, self.name = stiffness, free_length, damping, name

    def bind(self, model):
        self.model = model
        self.i = tuple(model.body(n) for n in self.names)
        self.arms = tuple(model.bodies[i].orientation.T @ (p - model.bodies[i].position)
                          for i, p in zip(self.i, self.points))

    def geometry(self, R, r, V=None):
        (i1, i2), (s1, s2) = self.i, self.arms
        d1, d2 = R[i1] @ s1, R[i2] @ s2
        delta = r[i2] + d2 - r[i1] - d1
        l = float(np.linalg.norm(delta))
        u = delta / l
        ldot = None
        if V is not None:
            rel = (V[6 * i2:6 * i2 + 3] + cross(V[6 * i2 + 3:6 * i2 + 6], d2)
                   - V[6 * i1:6 * i1 + 3] - cross(V[6 * i1 + 3:6 * i1 + 6], d1))
            ldot = float(u @ rel)
        return d1, d2, l, u, ldot

    def add_loads(self, ctx, tau, Madd, Qq, excitation):
        (i1, i2) = self.i
        d1, d2, l, u, ldot = self.geometry(ctx.R, ctx.r, ctx.V)
        f1 = (self.k * (l - self.l0) + self.b * ldot) * u
        tau[6 * i1:6 * i1 + 3] += f1
        tau[6 * i1 + 3:6 * i1 + 6] += cross(d1, f1)
        tau[6 * i2:6 * i2 + 3] -= f1
        tau[6 * i2 + 3:6 * i2 + 6] -= cross(d2, f1)
        return [-self.b * ldot * ldot]

    def jacobian(self, R, r):
        """G (3 × 6N): δ(x_a2 − x_a1) = G δξ, and the same map for the velocities."""
        (i1, i2) = self.i
        d1, d2, l, u, _ = self.geometry(R, r)
        G = np.zeros((3, 6 * self.model.n))
        G[:, 6 * i1:6 * i1 + 3] -= I3
        G[:, 6 * i1 + 3:6 * i1 + 6] += skew(d1)
        G[:, 6 * i2:6 * i2 + 3] += I3
        G[:, 6 * i2 + 3:6 * i2 + 6] -= skew(d2)
        return G, d1, d2, l, u

    def add_linear(self, omega, R, r, parts):
        (i1, i2) = self.i
        G, d1, d2, l, u = self.jacobian(R, r)
        f0 = self.k * (l - self.l0)
        Ks = self.k * np.outer(u, u) + (f0 / l) * (I3 - np.outer(u, u))
        parts["K"] += G.T @ Ks @ G
        parts["K"][6 * i1 + 3:6 * i1 + 6, 6 * i1 + 3:6 * i1 + 6] += load_stiffness(f0 * u, d1)
        parts["K"][6 * i2 + 3:6 * i2 + 6, 6 * i2 + 3:6 * i2 + 6] += load_stiffness(-f0 * u, d2)
        parts["B"] += self.b * G.T @ np.outer(u, u) @ G

    def elongation(self, lin, X=None):
        """Complex amplitude of the length change l − l_ref in the linear solution."""
        X = lin.X if X is None else X
        R, r = self.model.pose(self.model.q_ref)
        G, _, _, _, u = self.jacobian(R, r)
        return complex(u @ G @ lin.PT @ X)

    def linear_dampers(self, lin):
        R, r = self.model.pose(self.model.q_ref)
        G, _, _, _, u = self.jacobian(R, r)
        g = u @ G @ lin.PT
        return {"damper": self.b * np.outer(g, g)}

    def mean_power(self, lin):
        """½ ω² b |Δl|², the PTO's mean absorbed power in the linear solution."""
        return 0.5 * lin.omega ** 2 * self.b * abs(self.elongation(lin)) ** 2


class JointSpringDamper(Element):
    """A spring–damper on a joint coordinate (a hinge or slide PTO): Q = −k (x − x₀) − b ẋ on
    the joint's rate, the equal and opposite loads on its two bodies; power b ẋ² absorbed."""
    power_labels = ("damper",)

    def __init__(self, child, stiffness=0.0, damping=0.0, rest=0.0, name="pto"):
        self.child, self.k, self.b, self.x0, self.name = child, stiffness, damping, rest, name

    def bind(self, model):
        self.model = model
        self.k_s = model.joint_dof(self.child)
        i = model.body(self.child)
        self.k_q = int(model.qdof[i][0])

    def add_loads(self, ctx, tau, Madd, Qq, excitation):
        xd = ctx.s[self.k_s]
        Qq[self.k_s] += -self.k * (ctx.q[self.k_q] - self.x0) - self.b * xd
        return [-self.b * xd * xd]

    def add_linear(self, omega, R, r, parts):
        parts["Kq"][self.k_s, self.k_s] += self.k
        parts["Bq"][self.k_s, self.k_s] += self.b

    def linear_dampers(self, lin):
        B = np.zeros((lin.model.nf, lin.model.nf))
        B[self.k_s, self.k_s] = self.b
        return {"damper": B}

    def mean_power(self, lin):
        """½ ω² b |X_joint|²."""
        return 0.5 * lin.omega ** 2 * self.b * abs(lin.X[self.k_s]) ** 2


class Bushing(Element):
    """Six-component linear spring–damper between two bodies at a common point: translational
    stiffness/damping (3×3) on the points' separation and rotational (3×3) on the relative
    rotation vector, matrices given in body 1's frame at the reference (they turn with body 1).
    A stiff bushing free about one axis stands in for a revolute joint."""
    power_labels = ("damper",)

    def __init__(self, body1, body2, point, k_t, c_t, k_r, c_r, name="bushing"):
        self.names, self.point, self.name = (body1, body2), np.asarray(point, dtype=float), name
        self.kt, self.ct, self.kr, self.cr = (np.asarray(m, dtype=float).reshape(3, 3) for m in (k_t, c_t, k_r, c_r))

    def bind(self, model):
        self.model = model
        self.i = tuple(model.body(n) for n in self.names)
        self.arms = tuple(model.bodies[i].orientation.T @ (self.point - model.bodies[i].position) for i in self.i)
        self.R0 = tuple(model.bodies[i].orientation for i in self.i)

    def add_loads(self, ctx, tau, Madd, Qq, excitation):
        (i1, i2) = self.i
        R1 = ctx.R[i1] @ self.R0[0].T
        d1, d2 = ctx.R[i1] @ self.arms[0], ctx.R[i2] @ self.arms[1]
        V = ctx.V
        w1, w2 = V[6 * i1 + 3:6 * i1 + 6], V[6 * i2 + 3:6 * i2 + 6]
        delta = ctx.r[i2] + d2 - ctx.r[i1] - d1
        ddelta = V[6 * i2:6 * i2 + 3] + cross(w2, d2) - V[6 * i1:6 * i1 + 3] - cross(w1, d1)
        th = R_to_rotvec((ctx.R[i2] @ self.R0[1].T) @ R1.T)
        f2 = -R1 @ (self.kt @ (R1.T @ delta)) - R1 @ (self.ct @ (R1.T @ ddelta))
        m2 = -R1 @ (self.kr @ (R1.T @ th)) - R1 @ (self.cr @ (R1.T @ (w2 - w1)))
        tau[6 * i2:6 * i2 + 3] += f2
        tau[6 * i2 + 3:6 * i2 + 6] += cross(d2, f2) + m2
        tau[6 * i1:6 * i1 + 3] -= f2
        tau[6 * i1 + 3:6 * i1 + 6] -= cross(d1, f2) + m2
        pd = -(R1.T @ ddelta) @ self.ct @ (R1.T @ ddelta) - (R1.T @ (w2 - w1)) @ self.cr @ (R1.T @ (w2 - w1))
        return [float(pd)]

    def maps(self, R):
        (i1, i2) = self.i
        n6 = 6 * self.model.n
        d1, d2 = R[i1] @ self.arms[0], R[i2] @ self.arms[1]
        Gt = np.zeros((3, n6))
        Gt[:, 6 * i1:6 * i1 + 3] -= I3
        Gt[:, 6 * i1 + 3:6 * i1 + 6] += skew(d1)
        Gt[:, 6 * i2:6 * i2 + 3] += I3
        Gt[:, 6 * i2 + 3:6 * i2 + 6] -= skew(d2)
        Gr = np.zeros((3, n6))
        Gr[:, 6 * i1 + 3:6 * i1 + 6] -= I3
        Gr[:, 6 * i2 + 3:6 * i2 + 6] += I3
        return Gt, Gr

    def add_linear(self, omega, R, r, parts):
        Gt, Gr = self.maps(R)
        R1 = self.R0[0]
        R1 = R[self.i[0]] @ R1.T
        parts["K"] += Gt.T @ R1 @ self.kt @ R1.T @ Gt + Gr.T @ R1 @ self.kr @ R1.T @ Gr
        parts["B"] += Gt.T @ R1 @ self.ct @ R1.T @ Gt + Gr.T @ R1 @ self.cr @ R1.T @ Gr

    def linear_dampers(self, lin):
        R, _ = lin.model.pose(lin.model.q_ref)
        Gt, Gr = self.maps(R)
        B = Gt.T @ self.ct @ Gt + Gr.T @ self.cr @ Gr
        return {"damper": lin.PT.T @ B @ lin.PT}
