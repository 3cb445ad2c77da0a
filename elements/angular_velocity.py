"""MBDyn's `angular velocity` joint (input manual §8.12, "Angular velocity"): the component of
a node's angular velocity along a unit direction d̃ fixed in the node (d = R d̃, it rotates
with the node) equals a drive, one non-holonomic row per joint with one algebraic
multiplier λ:

    c = dᵀω - w(t) = 0,         the node's moment row receives +λ d

(mbdae's rows read inertia minus loads, so the couple the joint applies to the node is -λ d).
Jacobian on the Newton increments (θ = dCoef G Δġ, δω = T_ω Δġ, G8), with δd = θ×d:
    ∂c/∂Δġ = dCoef (d×ω)ᵀ G + dᵀ T_ω,   ∂(λ d)/∂Δġ = -λ dCoef d× G,   ∂(λ d)/∂λ = d
(MBDyn's AngularVelocityJoint omits the first term; this Jacobian is exact).  The row is a
velocity-level one, written as the joints' velocity rows are (elements/joint_kernel.py): as
is in a step and in the initial assembly's velocity phase, divided by dCoef in the
derivatives phase, λ = 0 in the initial assembly's position phase.

Output (.jnt, as MBDyn's AngularVelocityJoint writes it): label, the local force (0), the
local couple (μ, 0, 0), the global force (0), the global couple μ d, the direction d and
the imposed value w(t), with μ = λ = -(couple applied to the node)·d: what the node applies
to the ground.  Private datum "w": the imposed angular velocity."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern, ALGEBRAIC, DIM, kernel_jacobian_views
from mbdae.engine.core.compiled import (kernel, vload, mload, vstore, mstore, vcross, vdot, vscale, mvec,
                                        mtvec, mmul, mscale, skew)
from mbdae.engine.core.drives import DriveArray, LinearDrive, SineDrive
from mbdae.engine.core.state import IA_POSITION, DERIVATIVES
from mbdae.elements.base import ElementFamily, vec, scalar_drive, random_nodes


@dataclass
class AngularVelocitySpec:
    label: int
    node: int
    direction: np.ndarray      # unit vector in the node frame
    drive: object              # scalar drive of the imposed angular velocity
    output: bool = True


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def angular_velocity(model, label, node, direction, drive):
    """`angular velocity` joint: ω·(R d̃) = w(t), d̃ (normalized here) in the node frame."""
    d = vec(direction)
    norm = np.linalg.norm(d)
    if norm == 0:
        raise ValueError(f"angular velocity joint {label}: the direction is null")
    model.angular_velocity_joints.append(AngularVelocitySpec(label, node, d / norm, scalar_drive(drive)))
    return label


MODEL_FIELDS = {"angular_velocity_joints": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (angular_velocity,)


def build(model, nodes, built):
    if not model.angular_velocity_joints:
        return []
    return [AngularVelocityJoints(model.angular_velocity_joints, nodes)]


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def angular_velocity_sample(model, rng):
    m = model
    random_nodes(m, rng, 2)
    random_nodes(m, rng, 1, kind="static", start=3)
    m.angular_velocity(1, 1, rng.normal(size=3), LinearDrive(0.5, 2.0))
    m.angular_velocity(2, 1, rng.normal(size=3), SineDrive(0.1, 3.0, 0.4, "forever", 0.2))
    m.angular_velocity(3, 2, rng.normal(size=3), 1.5)
    m.angular_velocity(4, 3, rng.normal(size=3), -0.7)
    return m


SAMPLES = {"angular velocity": [angular_velocity_sample]}


class AngularVelocityJoints(ElementFamily):
    """All angular velocity joints (see the module docstring)."""
    name = "angular velocity"
    in_initial_assembly = True        # its row is imposed in the velocity phase, λ = 0 in the position one

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        self.node = self.node_index([s.node for s in self.specs])
        for s, i in zip(self.specs, self.node):
            if not nodes.rotating[i]:
                raise ValueError(f"angular velocity joint {s.label}: node {s.node} has no rotation "
                                 "(a displacement node)")
        self.d_local = np.array([s.direction for s in self.specs], float).reshape(self.ne, 3)
        self.drives = DriveArray([s.drive for s in self.specs])
        self.n_internal = self.ne

    def set_offset(self, start):
        self.offset = start
        self.mult = start + np.arange(self.ne, dtype=np.int64)

    def dof_info(self):
        kind = np.full(self.ne, ALGEBRAIC, np.int64)
        dim = np.full(self.ne, DIM["angular velocity constraint"], np.int64)
        return kind, dim, self.labels.copy(), ["angular velocity"] * self.ne

    def build_pattern(self):
        """Node moment rows and the joints' rows; (moment, λ), (moment, g), (row, g), (row, λ)."""
        p = self.pattern = Pattern()
        ig, mult = self.nodes.ig[self.node], self.mult[:, None]
        p.add_res(ig)
        p.add_res(mult)
        p.add_jac(ig, mult)
        p.add_jac(ig, ig)
        p.add_jac(mult, ig)
        p.add_jac(mult, mult)
        return p

    def imposed(self, t):
        return np.asarray(self.drives.values(t), float)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (angular_velocity_rows) over all joints."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        angular_velocity_rows(ctx.mode_code, float(kin.dcoef), self.node, self.mult, self.d_local,
                              self.imposed(ctx.t_constraint), ctx.y, kin.R, kin.w, kin.G, kin.Tw, want_jac,
                              res_views[0], res_views[1], jac[0], jac[1], jac[2], jac[3])

    # ------------------------------------------------------------------ output and private data
    def output_groups(self, ctx):
        """.jnt rows as MBDyn's AngularVelocityJoint writes them (module docstring)."""
        lam = ctx.y[self.mult]
        d = rot.matvec(ctx.kin.R[self.node], self.d_local)
        z = np.zeros((self.ne, 3))
        local_m = np.zeros((self.ne, 3))
        local_m[:, 0] = lam
        vals = np.concatenate([z, local_m, z, lam[:, None] * d, d, self.imposed(ctx.t)[:, None]], axis=1)
        sel = np.array([s.output for s in self.specs], bool)
        return [(self.labels[sel], vals[sel])] if sel.any() else []

    def private_data_names(self, i):
        """MBDyn's private data of the angular velocity joint: "w", the imposed value."""
        return ("w",)

    def private_data(self, ctx, name):
        if name != "w":
            raise ValueError(f'angular velocity joint private datum "{name}" does not exist ("w")')
        return self.imposed(ctx.t)


@kernel
def angular_velocity_rows(mode, dcoef, node, mult, d_local, w_imposed, y, R, w, G, Tw, want_jac,
                          r_m, r_c, j_ml, j_mg, j_cg, j_cc):
    """Residual and Jacobian blocks of the angular velocity joints (module docstring): node
    moment rows r_m (ne, 3), rows r_c (ne, 1); j_ml (ne, 3, 1), j_mg (ne, 3, 3),
    j_cg (ne, 1, 3), j_cc (ne, 1, 1)."""
    for e in range(len(node)):
        i = node[e]
        d = mvec(mload(R, i), vload(d_local, e))
        wi = vload(w, i)
        lam = y[mult[e]]
        vstore(r_m, e, vscale(lam, d))
        c = vdot(d, wi) - w_imposed[e]
        if mode == IA_POSITION:
            r_c[e, 0] = lam
        elif mode == DERIVATIVES:
            r_c[e, 0] = c / dcoef
        else:
            r_c[e, 0] = c
        if not want_jac:
            continue
        Gi, Twi = mload(G, i), mload(Tw, i)
        for k in range(3):
            j_ml[e, k, 0] = d[k]
        mstore(j_mg, e, mscale(-lam * dcoef, mmul(skew(d), Gi)))
        row = (0.0, 0.0, 0.0)
        if mode != IA_POSITION:
            row = mtvec(Gi, vscale(dcoef, vcross(d, wi)))
            tw = mtvec(Twi, d)
            row = (row[0] + tw[0], row[1] + tw[1], row[2] + tw[2])
            if mode == DERIVATIVES:
                row = vscale(1.0 / dcoef, row)
        for k in range(3):
            j_cg[e, 0, k] = row[k]
        j_cc[e, 0, 0] = 1.0 if mode == IA_POSITION else 0.0


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`joint: <label>,
# angular velocity`).  The reader and the Model are used duck-typed (no engine.io import here).

def read_angular_velocity(reader, model, args, label, word):
    """`joint: <label>, angular velocity, <node>, ((Unit)Vec3) <relative direction>,
    (DriveCaller) <angular velocity>` (input manual §8.12, "Angular velocity")."""
    n, site = reader.node_site(args)
    dw = args.peek()
    direction = reader.read_vec3(args, "rel direction", site)
    if np.linalg.norm(direction) == 0:
        raise dw.error("angular velocity: the direction is null")
    drive = reader.read_drive(args)
    model.angular_velocity(label, n.label, direction, drive)


CARDS = {"angular velocity": read_angular_velocity}
