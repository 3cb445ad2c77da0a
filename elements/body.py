"""Rigid body (MBDyn `body`) on a dynamic structural node (on a dynamic displacement node: a
point mass, MBDyn's `Mass`, s = 0 and J = 0): adds m, s = m b and the
inertia about the node J = J_cg - m b×b× to the momentum definitions (manual eq. 8.1):
    f_β += -(m ẋ + ω×s),   f_γ += -(s×ẋ + J ω)
with the perturbations of eq. 8.4.  Several bodies may share a node.  On a modal node,
whose unknowns are v, ω rather than momenta (MBDyn's ModalBody), a body writes its inertia
forces m v̇ + ω̇×s + ω×(ω×s) and s×v̇ + J ω̇ + ω×(J ω) on the node's force and moment rows.

With `rigid body kinematics` (engine/core/rbk.py: the model is written in a frame of
angular velocity ω₀, angular acceleration ω̇₀ and origin acceleration a₀, all in frame
components) each body adds the inertial loads of the frame motion (eq. 8.41 less the node's
Coriolis terms 2ω₀×β, ω₀×γ of eq. 8.42), with A = ω̇₀× + ω₀×ω₀×:
    force row   += m a₀ + A (m x + s)
    moment row  += s×(a₀ + A x + ω₀×ẋ) + ẋ×(ω₀×s) + J (ω̇₀ + ω₀×ω) + (ω₀ + ω)×(J ω₀)
(derived from Σ m r×(a₀ + ω̇₀×p + ω₀×ω₀×p + 2ω₀×ṗ) over the body's particles p = x + r; with
the node's ω₀×γ the Coriolis part sums to 2 s×(ω₀×ẋ) + 2 Σ m r×(ω₀×(ω×r))).  Their Jacobian
is exact (body_equations)."""
from dataclasses import dataclass
from functools import cached_property
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.engine.core.compiled import (kernel, vload, mload, vstore, mstore, vadd, vscale, vcross, mvec,
                                        mmul, mmult, madd, msub, mscale, mdiag, skew)
from mbdae.elements.base import (ElementFamily, vec, mat, scalar_drive,
                                 random_rotation, random_nodes)
from mbdae.engine.core.drives import ConstDrive, DriveArray
from mbdae.engine.core.drives import LinearDrive
from mbdae.engine.core.rbk import RigidBodyKinematics


@dataclass
class BodySpec:
    label: int
    node: int
    mass: float
    xcg: np.ndarray            # centre of mass in the node frame
    J_cg: np.ndarray           # inertia about the centre of mass, node frame


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def body(model, label, node, mass, center_of_mass=None, inertia=None, inertia_orientation=None):
    """Rigid body: mass, centre of mass and inertia about it, in the node frame (§8.1.1)."""
    J = np.zeros((3, 3)) if inertia is None else np.asarray(inertia, float)
    if J.shape == (3,):
        J = np.diag(J)
    if inertia_orientation is not None:
        Rj = mat(inertia_orientation)
        J = Rj @ J @ Rj.T
    model.bodies.append(BodySpec(label, node, float(mass), vec(center_of_mass), J))
    return label


def gravity(model, acceleration, drive=None):
    """Uniform gravity: acceleration vector (times an optional scalar drive)."""
    model.gravity_vector = vec(acceleration)
    model.gravity_drive = scalar_drive(drive) or ConstDrive(1.0)


MODEL_FIELDS = {"bodies": list, "gravity_vector": None, "gravity_drive": None}   # Model attributes: factory (None: None)
MODEL_METHODS = (body, gravity,)


def build(model, nodes, built):
    """The rigid bodies of the model and, with gravity, the gravity family on them."""
    if not model.bodies:
        return []
    bodies = RigidBodies(model.bodies, nodes, getattr(model, "rigid_body_kinematics", None))
    if model.gravity_vector is None:
        return [bodies]
    return [bodies, Gravity(bodies, model.gravity_vector, model.gravity_drive)]


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def body_sample(model, rng):
    m = model
    random_nodes(m, rng, 2)
    J = rng.normal(size=(3, 3))
    m.body(1, 1, 2.0, center_of_mass=rng.normal(size=3), inertia=J @ J.T + np.eye(3))
    m.body(2, 1, 0.5, center_of_mass=rng.normal(size=3), inertia=np.diag([1.0, 2.0, 3.0]))
    m.body(3, 2, 1.5, center_of_mass=rng.normal(size=3), inertia=np.diag([0.3, 0.2, 0.4]),
           inertia_orientation=random_rotation(rng))
    return m


def moving_frame(rng):
    """A frame with every motion the inertial loads use (and an orientation, so that they are
    projected): engine/core/rbk.RigidBodyKinematics."""
    return RigidBodyKinematics.constant(orientation=random_rotation(rng), angular_velocity=rng.normal(size=3),
                                        angular_acceleration=rng.normal(size=3), acceleration=rng.normal(size=3))


def body_frame_sample(model, rng):
    """Bodies (with and without offsets, on a shared node) in a moving frame."""
    m = body_sample(model, rng)
    m.structural_node(3, "dynamic", position=rng.normal(size=3), velocity=rng.normal(size=3),
                      angular_velocity=rng.normal(size=3))
    m.body(4, 3, 0.7, inertia=np.diag([0.2, 0.3, 0.5]))
    m.rigid_body_kinematics = moving_frame(rng)
    return m


def gravity_sample(model, rng):
    m = body_sample(model, rng)
    m.gravity([0.3, -9.81, 1.1], LinearDrive(1.0, 0.5))
    return m


def point_mass_sample(model, rng):
    """Point masses on dynamic displacement nodes (MBDyn's `Mass`), beside a body, under gravity."""
    m = body_sample(model, rng)
    for k in (4, 5):
        m.structural_node(k, "dynamic displacement", position=rng.normal(size=3), velocity=rng.normal(size=3))
        m.body(k, k, 0.5 * k)
    m.gravity([0.3, -9.81, 1.1])
    return m


def modal_node_body_sample(model, rng):
    """Bodies on a modal node (one offset with inertia, one point mass) beside bodies on a
    dynamic node, under gravity.  The modal node's v, ω unknowns take random values in the
    checks, so the inertia forces' every term is exercised."""
    m = body_sample(model, rng)
    m.structural_node(7, "modal", position=rng.normal(size=3), orientation=random_rotation(rng),
                      velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
    J = rng.normal(size=(3, 3))
    m.body(7, 7, 1.3, center_of_mass=rng.normal(size=3), inertia=J @ J.T + np.eye(3))
    m.body(8, 7, 0.4, center_of_mass=rng.normal(size=3))
    m.gravity([0.3, -9.81, 1.1])
    return m


def modal_node_body_frame_sample(model, rng):
    """Bodies on a modal node and on a dynamic node in a moving frame."""
    m = modal_node_body_sample(model, rng)
    m.rigid_body_kinematics = moving_frame(rng)
    return m


SAMPLES = {"body": [body_sample, body_frame_sample, point_mass_sample, modal_node_body_sample,
                    modal_node_body_frame_sample],
           "gravity": [gravity_sample]}


class RigidBodies(ElementFamily):
    name = "body"

    def __init__(self, specs, nodes, frame=None):
        super().__init__(specs, nodes)
        self.frame = frame             # engine/core/rbk.RigidBodyKinematics, or None (inertial frame)
        self.node = self.node_index([s.node for s in self.specs])
        for s, i in zip(self.specs, self.node):
            if not nodes.dynamic[i]:
                raise ValueError(f"body {s.label}: node {s.node} is static; a body needs a dynamic node")
            if s.mass < 0:
                raise ValueError(f"body {s.label}: negative mass {s.mass}")
            if not nodes.rotating[i] and (np.any(s.xcg) or np.any(s.J_cg)):
                raise ValueError(f"body {s.label}: node {s.node} is a displacement node; a body on it is a "
                                 f"point mass (no centre of mass offset, no inertia)")
        self.m = np.array([s.mass for s in self.specs], float)
        b = np.array([s.xcg for s in self.specs], float).reshape(-1, 3)
        Jcg = np.array([s.J_cg for s in self.specs], float).reshape(-1, 3, 3)
        self.s_local = self.m[:, None] * b
        Bx = rot.skew(b)
        self.J_local = Jcg - self.m[:, None, None] * (Bx @ Bx)
        # every centre of mass on its node (s = 0): the s-terms of eq. 8.4 vanish (gravity's moment)
        self.centered = not np.any(self.s_local)
        # bodies on momentum nodes (eq. 8.1 rows) and on modal nodes (velocity form: MBDyn's
        # ModalBody writes the inertia forces on the node's equilibrium rows)
        on_modal = np.array([nodes.kinds[i] == "modal" for i in self.node], bool)
        self.on_momentum, self.on_modal = np.flatnonzero(~on_modal), np.flatnonzero(on_modal)
        self.momentum_data = self._subset(self.on_momentum)
        self.modal_data = self._subset(self.on_modal)
        self.momentum_centered = not np.any(self.momentum_data[2])

    def _subset(self, k):
        """(node, m, s_local, J_local) of the bodies k, contiguous for the kernels."""
        return (np.ascontiguousarray(self.node[k]), np.ascontiguousarray(self.m[k]),
                np.ascontiguousarray(self.s_local[k]), np.ascontiguousarray(self.J_local[k]))

    def build_pattern(self):
        """Bodies on momentum nodes: residual on the momentum rows (β, γ); Jacobian on (β, x),
        (γ, g) and, with centre of mass offsets, (β, g), (γ, x).  Bodies on modal nodes:
        residual on the force and moment rows (x, g); Jacobian on their v, ω and g columns."""
        p = self.pattern = Pattern()
        n = self.nodes
        if len(self.on_momentum):
            node = self.momentum_data[0]
            ib, ic = n.ib[node], n.ic[node]
            ix, ig = n.ix[node], n.ig[node]
            p.add_res(ib)
            p.add_res(ic)
            p.add_jac(ib, ix)
            p.add_jac(ic, ig)
            if not self.momentum_centered:
                p.add_jac(ib, ig)
                p.add_jac(ic, ix)
            if self.frame is not None:      # the moving frame's inertial loads
                p.add_res(ix)
                p.add_res(ig)
                p.add_jac(ix, ix)
                p.add_jac(ix, ig)
                p.add_jac(ig, ix)
                p.add_jac(ig, ig)
        if len(self.on_modal):
            node = self.modal_data[0]
            ix, ig, ib, ic = n.ix[node], n.ig[node], n.ib[node], n.ic[node]
            p.add_res(ix)
            p.add_res(ig)
            for rows in (ix, ig):
                for cols in (ib, ic, ig, ix):
                    p.add_jac(rows, cols)
        return p

    def world_inertia(self, kin):
        R = kin.R[self.node]
        s = rot.matvec(R, self.s_local)
        J = R @ self.J_local @ np.swapaxes(R, -1, -2)
        return s, J

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call over the bodies on momentum nodes (body_equations) and one over
        those on modal nodes (modal_node_body_equations)."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        jac, res = list(jac), list(res_views)
        kin = ctx.kin
        if self.frame is None:
            w0, wp0, a0 = self._no_frame_blocks[2]
        else:
            w0, wp0, a0 = self.frame.inertial_terms(ctx.t)
        if len(self.on_modal):
            node, m, s_local, J_local = self.modal_data
            modal_node_body_equations(float(kin.dcoef), node, self.nodes.ib, self.nodes.ic, m, s_local, J_local,
                                      ctx.y, ctx.yp, kin.x, kin.R, kin.G, w0, wp0, a0, want_jac, *res[-2:], *jac[-8:])
            res, jac = res[:-2], jac[:-8]
        if not len(self.on_momentum):
            return
        if self.momentum_centered:
            jac = jac[:2] + self._no_offset_blocks + jac[2:]
        if self.frame is None:
            res += self._no_frame_blocks[0]
            jac += self._no_frame_blocks[1]
        node, m, s_local, J_local = self.momentum_data
        body_equations(float(kin.dcoef), node, m, s_local, J_local, kin.x, kin.v, kin.w,
                       kin.R, kin.G, kin.Tw, not self.momentum_centered, self.frame is not None, w0, wp0, a0,
                       want_jac, *res, *jac)

    @cached_property
    def _no_offset_blocks(self):
        """Scratch arrays for the offset blocks centred bodies do not have."""
        n = len(self.on_momentum)
        return [np.zeros((n, 3, 3)), np.zeros((n, 3, 3))]

    @cached_property
    def _no_frame_blocks(self):
        """Scratch residual and Jacobian blocks of the frame's inertial loads, and zero frame
        motion, for a model written in the inertial frame."""
        n = len(self.on_momentum)
        return ([np.zeros((n, 3)), np.zeros((n, 3))], [np.zeros((n, 3, 3)) for _ in range(4)],
                (np.zeros(3), np.zeros(3), np.zeros(3)))

    def node_momenta(self, kin):
        """Σ over bodies of (m ẋ + ω×s, s×ẋ + Jω) per node (consistent initial β, γ)."""
        v, w = kin.v[self.node], kin.w[self.node]
        s, J = self.world_inertia(kin)
        beta = np.zeros((self.nodes.n, 3))
        gamma = np.zeros((self.nodes.n, 3))
        np.add.at(beta, self.node, self.m[:, None] * v + rot.cross(w, s))
        np.add.at(gamma, self.node, rot.cross(s, v) + rot.matvec(J, w))
        return beta, gamma

    def node_inertia(self, kin):
        """Mass m, first moment S and inertia J (about the node, global frame) of every node,
        summed over its bodies: (n,), (n, 3), (n, 3, 3)."""
        n = self.nodes.n
        s, J = self.world_inertia(kin)
        m = np.bincount(self.node, weights=self.m, minlength=n)
        S = np.zeros((n, 3))
        Jn = np.zeros((n, 3, 3))
        np.add.at(S, self.node, s)
        np.add.at(Jn, self.node, J)
        return m, S, Jn

    def node_accelerations(self, kin, betad, gammad):
        """Linear and angular accelerations of every node carrying bodies (eqs. 8.6-8.9):
        [m I, -s×; s×, J] [a; ω̇] = [β̇ - ω×(ω×s); γ̇ - (ω×s)×ẋ - ω×(Jω)]."""
        n = self.nodes.n
        m, S, Jn = self.node_inertia(kin)
        w, v = kin.w, kin.v
        ws = rot.cross(w, S)
        rhs = np.concatenate([betad - rot.cross(w, ws),
                              gammad - rot.cross(ws, v) - rot.cross(w, rot.matvec(Jn, w))], axis=1)
        M = np.zeros((n, 6, 6))
        M[:, 0:3, 0:3] = m[:, None, None] * np.eye(3)
        M[:, 0:3, 3:6] = -rot.skew(S)
        M[:, 3:6, 0:3] = rot.skew(S)
        M[:, 3:6, 3:6] = Jn
        has = m > 0
        out = np.full((n, 6), np.nan)
        if has.any():      # pseudo-inverse: a point mass has no inertia about its own axis
            out[has] = (np.linalg.pinv(M[has]) @ rhs[has][..., None])[..., 0]
        return out[:, 0:3], out[:, 3:6]

    def kinetic_energy(self, kin):
        v, w = kin.v[self.node], kin.w[self.node]
        s, J = self.world_inertia(kin)
        return float(np.sum(0.5 * self.m * np.einsum('ij,ij->i', v, v)
                            + np.einsum('ij,ij->i', v, rot.cross(w, s))
                            + 0.5 * np.einsum('ij,ij->i', w, rot.matvec(J, w))))

    # ------------------------------------------------------------------ private data
    PRIVATE_DATA = ("E", "V", "m")

    def private_data_names(self, i):
        """MBDyn's body private data (input manual §8.2): "E" kinetic energy, "V" potential
        (gravitational) energy, "m" mass."""
        return self.PRIVATE_DATA

    def private_data(self, ctx, name):
        """Values over all bodies: E = ½ m |ẋ + ω×b|² + ½ ω·J_cg ω (b the centre of mass arm),
        V = -m g·(x + b) with the model's gravity (0 without), m."""
        kin = ctx.kin
        if name == "E":
            v, w = kin.v[self.node], kin.w[self.node]
            s, J = self.world_inertia(kin)
            # ½ m v² + v·(ω×s) + ½ ω·J_node ω equals the centre-of-mass form above
            return (0.5 * self.m * np.einsum('ij,ij->i', v, v) + np.einsum('ij,ij->i', v, rot.cross(w, s))
                    + 0.5 * np.einsum('ij,ij->i', w, rot.matvec(J, w)))
        if name == "V":
            gravity = getattr(self, "gravity", None)
            if gravity is None:
                return np.zeros(self.ne)
            g = gravity.g(ctx.t)
            xc = kin.x[self.node] + rot.matvec(kin.R[self.node], self.s_local) / np.where(
                self.m > 0, self.m, 1.0)[:, None]
            return -self.m * (xc @ g)
        if name == "m":
            return self.m.copy()
        raise ValueError(f'body private datum "{name}" does not exist ({", ".join(self.PRIVATE_DATA)})')

    def angular_momentum(self, kin, about=np.zeros(3)):
        """Total angular momentum about a fixed point (inertial frame)."""
        v, w, x = kin.v[self.node], kin.w[self.node], kin.x[self.node]
        s, J = self.world_inertia(kin)
        beta = self.m[:, None] * v + rot.cross(w, s)
        gamma = rot.cross(s, v) + rot.matvec(J, w)
        return np.sum(gamma + rot.cross(x - about, beta), axis=0)


class Gravity(ElementFamily):
    """Uniform gravity (MBDyn `gravity`) acting on every rigid body: force m g at the node
    and moment s×g (s = R m b)."""
    name = "gravity"

    def __init__(self, bodies, direction, drive):
        super().__init__(bodies.specs, bodies.nodes)
        self.bodies = bodies
        bodies.gravity = self            # the bodies' potential energy (private datum "V")
        self.direction = np.asarray(direction, float)
        self.drive = drive

    def build_pattern(self):
        p = self.pattern = Pattern()
        n, b = self.nodes, self.bodies
        p.add_res(n.ix[b.node])
        if not b.centered:            # the moment s×g and its Jacobian exist only with offsets
            p.add_res(n.ig[b.node])
            p.add_jac(n.ig[b.node], n.ig[b.node])
        return p

    def g(self, t):
        """Gravity vector at time t."""
        return self.direction * self._drive_array.values(t)[0]

    @cached_property
    def _drive_array(self):
        """The drive as a DriveArray (its values are kept for the last time asked)."""
        return DriveArray([self.drive])

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (gravity_loads) over all bodies."""
        b = self.bodies
        if b.centered:
            gravity_loads(float(ctx.kin.dcoef), b.node, b.m, b.s_local, self.g(ctx.t), ctx.kin.R, ctx.kin.G,
                          False, False, res_views[0], self._no_moment[0], self._no_moment[1])
            return
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        gravity_loads(float(ctx.kin.dcoef), b.node, b.m, b.s_local, self.g(ctx.t), ctx.kin.R, ctx.kin.G,
                      True, want_jac, res_views[0], res_views[1], jac[0])

    @cached_property
    def _no_moment(self):
        """Scratch arrays for the moment blocks that gravity on centred bodies does not have."""
        return np.zeros((self.ne, 3)), np.zeros((self.ne, 3, 3))

    def potential_energy(self, kin, t):
        """-Σ m g·x_cm at time t."""
        b = self.bodies
        g = self.g(t)
        xc = kin.x[b.node] + rot.matvec(kin.R[b.node], b.s_local) / np.where(b.m > 0, b.m, 1.0)[:, None]
        return float(-np.sum(b.m * (xc @ g)))


# ---------------------------------------------------------------- kernels
@kernel
def body_equations(dcoef, node, m, s_local, J_local, x, v, w, R, G, Tw, offsets, frame, w0, wp0, a0, want_jac,
                   r_b, r_c, r_fx, r_fg, j_bx, j_cg, j_bg, j_cx, j_fxx, j_fxg, j_fgx, j_fgg):
    """Momentum definition terms of rigid bodies (eq. 8.1): f_β = -(m ẋ + ω×s),
    f_γ = -(s×ẋ + J ω) with s = R m b, J = R J_node Rᵀ; Jacobian by eq. 8.4 and the chain
    rule of G8 (T_θ = dCoef G, T_ω): ∂f_β/∂ẋ = -m I, ∂f_β/∂ω = s×, ∂f_β/∂θ = ω×s×,
    ∂f_γ/∂ẋ = -s×, ∂f_γ/∂ω = -J, ∂f_γ/∂θ = -ẋ×s× + (Jω)× - J ω×.  `offsets` False: every
    s = 0 and the blocks (β, g), (γ, x) are not written.
    `frame` True: the moving frame's inertial loads on the force rows r_fx and moment rows
    r_fg (module docstring; w0, wp0, a0 = ω₀, ω̇₀, a₀ in frame components), A = ω̇₀× + ω₀×ω₀×,
    c = a₀ + A x + ω₀×ẋ, u = ω̇₀ + ω₀×ω, K = J ω₀× - (J ω₀)×:
    ∂f/∂x = m A, ∂f/∂θ = -A s×; ∂M/∂x = s× A, ∂M/∂ẋ = s× ω₀× - (ω₀×s)×, ∂M/∂ω = K,
    ∂M/∂θ = c× s× - ẋ× ω₀× s× + J u× - (J u)× + (ω₀ + ω)× K."""
    W0 = skew((w0[0], w0[1], w0[2]))
    w0v, wp0v, a0v = (w0[0], w0[1], w0[2]), (wp0[0], wp0[1], wp0[2]), (a0[0], a0[1], a0[2])
    A = madd(skew(wp0v), mmul(W0, W0))
    for e in range(len(node)):
        i = node[e]
        Ri = mload(R, i)
        vi, wi = vload(v, i), vload(w, i)
        J = mmult(mmul(Ri, mload(J_local, e)), Ri)
        Jw = mvec(J, wi)
        s = mvec(Ri, vload(s_local, e))
        vstore(r_b, e, vscale(-1.0, vadd(vscale(m[e], vi), vcross(wi, s))))
        vstore(r_c, e, vscale(-1.0, vadd(vcross(s, vi), Jw)))
        if frame:
            xi = vload(x, i)
            ws = vcross(w0v, s)
            c = vadd(vadd(a0v, mvec(A, xi)), vcross(w0v, vi))
            u = vadd(wp0v, vcross(w0v, wi))
            Jw0 = mvec(J, w0v)
            Ju = mvec(J, u)
            vstore(r_fx, e, vadd(vscale(m[e], a0v), mvec(A, vadd(vscale(m[e], xi), s))))
            vstore(r_fg, e, vadd(vadd(vcross(s, c), vcross(vi, ws)), vadd(Ju, vcross(vadd(w0v, wi), Jw0))))
        if not want_jac:
            continue
        Gi, Twi = mload(G, i), mload(Tw, i)
        # ∂f_γ/∂θ T_θ + ∂f_γ/∂ω T_ω
        dth = msub(skew(Jw), mmul(J, skew(wi)))
        if offsets:
            dth = msub(dth, mmul(skew(vi), skew(s)))
        mstore(j_bx, e, mdiag(-m[e]))
        mstore(j_cg, e, msub(mscale(dcoef, mmul(dth, Gi)), mmul(J, Twi)))
        if offsets:
            S = skew(s)
            mstore(j_bg, e, madd(mscale(dcoef, mmul(mmul(skew(wi), S), Gi)), mmul(S, Twi)))
            mstore(j_cx, e, mscale(-1.0, S))
        if frame:
            S = skew(s)
            K = msub(mmul(J, W0), skew(Jw0))
            mstore(j_fxx, e, mscale(dcoef * m[e], A))
            mstore(j_fxg, e, mscale(-dcoef, mmul(mmul(A, S), Gi)))
            mstore(j_fgx, e, madd(mscale(dcoef, mmul(S, A)), msub(mmul(S, W0), skew(ws))))
            dM = madd(msub(mmul(skew(c), S), mmul(mmul(skew(vi), W0), S)),
                      madd(msub(mmul(J, skew(u)), skew(Ju)), mmul(skew(vadd(w0v, wi)), K)))
            mstore(j_fgg, e, madd(mscale(dcoef, mmul(dM, Gi)), mmul(K, Twi)))


@kernel
def modal_node_body_equations(dcoef, node, ib, ic, m, s_local, J_local, y, yp, x, R, G, w0, wp0, a0, want_jac,
                              r_x, r_g, j_xv, j_xw, j_xg, j_xx, j_gv, j_gw, j_gg, j_gx):
    """Bodies on modal nodes (MBDyn's ModalBody), whose second six unknowns are v, ω
    (velocity form): the inertia forces on the node's force and moment rows,
        f_x += m a + α×s + Ω×(Ω×s),   f_g += s×a + J α + Ω×(J Ω),
    s = R m b, J = R J_node Rᵀ, with the node's absolute motion in the frame's components
    (rigid body kinematics; ω₀ = ω̇₀ = a₀ = 0 in the inertial frame): Ω = ω₀ + ω,
    α = ω̇₀ + ω̇ + ω₀×ω, a = a₀ + A x + 2 ω₀×v + v̇ (A = ω̇₀× + ω₀×ω₀×), v, ω the unknowns and
    v̇, ω̇ their rates.  Jacobian on Δv̇, Δω̇ (Δv = dCoef Δv̇), Δẋ (Δx = dCoef Δẋ) and on Δġ
    through T_θ = dCoef G (δs = -s× δθ, δJ = δθ× J - J δθ×):
    ∂f_x/∂v̇ = m I, ∂f_x/∂v = 2m ω₀×, ∂f_x/∂x = m A, ∂f_x/∂ω̇ = -s×,
    ∂f_x/∂ω = -s× ω₀× - (Ω×s)× - Ω× s×, ∂f_x/∂θ = -(α× + Ω× Ω×) s×;
    ∂f_g/∂v̇ = s×, ∂f_g/∂v = 2 s× ω₀×, ∂f_g/∂x = s× A, ∂f_g/∂ω̇ = J,
    ∂f_g/∂ω = J ω₀× + Ω× J - (JΩ)×, ∂f_g/∂θ = a× s× + J α× - (J α)× + Ω× (J Ω× - (J Ω)×)."""
    w0v, wp0v = (w0[0], w0[1], w0[2]), (wp0[0], wp0[1], wp0[2])
    W0 = skew(w0v)
    A = madd(skew(wp0v), mmul(W0, W0))
    for e in range(len(node)):
        i = node[e]
        b0, c0 = ib[i, 0], ic[i, 0]
        v = (y[b0], y[b0 + 1], y[b0 + 2])
        w = (y[c0], y[c0 + 1], y[c0 + 2])
        Om = vadd(w0v, w)
        al = vadd(vadd(wp0v, (yp[c0], yp[c0 + 1], yp[c0 + 2])), vcross(w0v, w))
        a = vadd(vadd((a0[0], a0[1], a0[2]), mvec(A, vload(x, i))),
                 vadd(vscale(2.0, vcross(w0v, v)), (yp[b0], yp[b0 + 1], yp[b0 + 2])))
        Ri = mload(R, i)
        s = mvec(Ri, vload(s_local, e))
        J = mmult(mmul(Ri, mload(J_local, e)), Ri)
        Os = vcross(Om, s)
        JO = mvec(J, Om)
        Ja = mvec(J, al)
        vstore(r_x, e, vadd(vadd(vscale(m[e], a), vcross(al, s)), vcross(Om, Os)))
        vstore(r_g, e, vadd(vadd(vcross(s, a), Ja), vcross(Om, JO)))
        if not want_jac:
            continue
        Gi = mload(G, i)
        S, W = skew(s), skew(Om)
        mstore(j_xv, e, madd(mdiag(m[e]), mscale(2.0 * dcoef * m[e], W0)))
        mstore(j_xx, e, mscale(dcoef * m[e], A))
        mstore(j_xw, e, msub(mscale(-1.0, S), mscale(dcoef, madd(mmul(S, W0), madd(skew(Os), mmul(W, S))))))
        mstore(j_xg, e, mscale(-dcoef, mmul(mmul(madd(skew(al), mmul(W, W)), S), Gi)))
        mstore(j_gv, e, madd(S, mscale(2.0 * dcoef, mmul(S, W0))))
        mstore(j_gx, e, mscale(dcoef, mmul(S, A)))
        mstore(j_gw, e, madd(J, mscale(dcoef, madd(mmul(J, W0), msub(mmul(W, J), skew(JO))))))
        WJ = msub(mmul(J, W), skew(JO))
        dth = madd(madd(mmul(skew(a), S), msub(mmul(J, skew(al)), skew(Ja))), mmul(W, WJ))
        mstore(j_gg, e, mscale(dcoef, mmul(dth, Gi)))


@kernel
def gravity_loads(dcoef, node, m, s_local, g, R, G, offsets, want_jac, r_x, r_g, j_gg):
    """Gravity on rigid bodies: force m g at the node and, with offsets, moment s×g
    (residual rows -m g, -s×g; ∂(-s×g)/∂θ = -g× s×, on Δġ through T_θ = dCoef G)."""
    gv = (g[0], g[1], g[2])
    for e in range(len(node)):
        vstore(r_x, e, vscale(-m[e], gv))
        if not offsets:
            continue
        i = node[e]
        s = mvec(mload(R, i), vload(s_local, e))
        vstore(r_g, e, vscale(-1.0, vcross(s, gv)))
        if want_jac:
            mstore(j_gg, e, mscale(-dcoef, mmul(mmul(skew(gv), skew(s)), mload(G, i))))


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_body(reader, model, args, label, word):
    """`body: label, node, { [allow negative mass,] m, Xcg, J [, orientation, R]
    | condense, n, ... }` (manual §8.4)."""
    node_word = args.peek()
    node = reader.structural_node(args)
    if node.kind.endswith("displacement"):
        return read_point_mass(reader, model, args, label, node, node_word)
    if node.kind not in ("dynamic", "modal") and reader.problem_name != "inversedynamics":   # inverse: explicit mass
        raise node_word.error(f"Body({label}): Structural({node.label}) is static; a body needs a dynamic node")
    site = reader.make_site(node.frame, node.label)
    if args.is_keyword("variable mass"):
        raise args.words[args.i - 1].error(reader.not_supported("variable mass bodies"))
    n = 1
    if args.is_keyword("condense"):
        n = args.integer("the number of masses")
    masses = [read_one_body(reader, args, site) for _ in range(n)]
    m, xcg, J = condense_masses(masses)
    model.body(label, node.label, m, xcg, J)


def read_point_mass(reader, model, args, label, node, node_word):
    """`body: label, <displacement node>, { [allow negative mass,] m | condense, n, m1, ... }`:
    on a displacement node MBDyn's body is a point mass (its `Mass` element: no centre of mass
    offset, no inertia), which needs a dynamic displacement node."""
    if node.kind != "dynamic displacement" and reader.problem_name != "inversedynamics":
        raise node_word.error(f"Mass({label}): illegal structural node type for StructDispNode({node.label}) "
                              f"(a mass needs a dynamic displacement node)")
    n = args.integer("the number of masses") if args.is_keyword("condense") else 1
    allow_negative = bool(args.is_keyword("allow negative mass"))
    m = 0.0
    for _ in range(n):
        w = args.peek()
        mi = args.real("the mass")
        if mi < 0:
            raise w.error(reader.not_supported("negative mass") if allow_negative else
                          "negative mass (use 'allow negative mass')")
        m += mi
    model.body(label, node.label, m)


def read_one_body(reader, args, site):
    """`[allow negative mass,] m, Xcg, J [, orientation, R]`: one mass of a body."""
    allow_negative = bool(args.is_keyword("allow negative mass"))
    w = args.peek()
    m = args.real("the mass")
    if m < 0 and not allow_negative:
        raise w.error("negative mass (use 'allow negative mass')")
    if m < 0:
        raise w.error(reader.not_supported("negative mass"))
    xcg = reader.read_vec3(args, "rel position", site)
    J = reader.read_mat3(args, site)
    if args.is_keyword("orientation", "inertial"):
        Rj = reader.read_orientation(args, "rel", site)
        J = Rj @ J @ Rj.T
    return m, xcg, J


def condense_masses(masses):
    """`condense`: total mass, centre of mass and inertia about it (manual §8.4)."""
    m = sum(mi for mi, _, _ in masses)
    if m == 0:
        return 0.0, np.zeros(3), sum(J for _, _, J in masses)
    xcg = sum(mi * xi for mi, xi, _ in masses) / m
    J_node = sum(Ji - mi * rot.skew(xi) @ rot.skew(xi) for mi, xi, Ji in masses)
    return m, xcg, J_node + m * rot.skew(xcg) @ rot.skew(xcg)


CARDS = {
    "body": read_body,
}
