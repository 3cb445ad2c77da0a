"""Rigid body displacement joint (input manual, "Rigid body displacement joint", MBDyn's
RBE3-like coupling): a master structural node (with rotation) follows the weighted rigid
motion of N ≥ 3 slave nodes (any structural nodes, usually the displacement nodes of solid
elements), without stiffening the slaves.  One family, one compiled call over all instances.

Per instance, with a_j = R_m o_j (o_j = R_m0ᵀ(X_j - x_m0), X_j the slave's given or initial
position), Δ_j = x_m - x_j and weights w_j, six constraint rows

    c_t = Σ w_j (Δ_j + a_j) = 0,        c_r = Σ w_j a_j × Δ_j = 0,

the first placing the master at the weighted centre of the slaves' offset points, the second
turning it with their weighted rigid rotation.  MBDyn scales the given weights by
α / Σ w_j (α = N² / Σ|o_j|² unless given): this scales the rows and their multipliers
λ = (λt, λr), never the loads.  The loads are Cᵀλ (C = ∂c/∂(x_m, θ_m, x_j)):

    master force   Σw λt + Σ w_j λr × a_j        master couple  Σ w_j a_j × (λt + Δ_j × λr)
    slave j force  w_j (a_j × λr - λt)

so their sum and their moment vanish (action = reaction) and the force and couple on the
master, moved to the slaves, are the loads the slaves get.  Rows are position-level:
divided by dCoef in a step (G2), at velocity level (ċ = C v) in the initial assembly's
velocity subproblem and the derivatives phase, as the joints' (elements/joint_kernel.py).

Output (.jnt, as MBDyn): label, the force and couple the joint takes from the master (the
opposite of what it applies to it) in the master's frame, then global.  Private data Fx,
Fy, Fz, Mx, My, Mz (master frame) and fx, fy, fz, mx, my, mz (global) are those columns."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core.assembly import Pattern, ALGEBRAIC, DIM, kernel_jacobian_views
from mbdae.engine.core.compiled import kernel, vload, mload, vadd, vsub, vscale, vcross, skew, mmul, mvec, zero3, add_block
from mbdae.engine.core.state import IA_POSITION, IA_VELOCITY, DERIVATIVES
from mbdae.elements.base import ElementFamily, vec, random_nodes, node_columns
from mbdae.engine.core import rotations as rot

PRIVATE_NAMES = tuple(q + a for q in "FMfm" for a in "xyz")


@dataclass
class RigidBodyDisplacementSpec:
    label: int
    master: int
    slaves: tuple                   # slave node labels
    offsets: np.ndarray             # (N, 3) o_j in the master's frame
    weights: np.ndarray             # (N,) scaled weights (α w_j / Σ w)
    output: bool = True


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def rigid_body_displacement_joint(model, label, master, slaves, positions=None, weights=None, alpha=None):
    """Rigid body displacement joint (elements/rigid_body_displacement.py): `master` a node
    with rotation, `slaves` N ≥ 3 node labels; `positions` (N entries, each None or an
    absolute point, default the slave's initial position) give the offsets
    o_j = R_m0ᵀ(X_j - x_m0); `weights` (default 1 each, total > 0) are scaled by α/Σw with
    α = N²/Σ|o_j|² unless `alpha` is given (manual, "Scaling")."""
    spec_m = model._node_spec(master)
    if spec_m.kind.endswith("displacement"):
        raise ValueError(f"rigid body displacement joint {label}: the master node ({master}) must have "
                         "rotation, not be a displacement node")
    slaves = tuple(int(s) for s in slaves)
    n = len(slaves)
    if n < 3:
        raise ValueError(f"rigid body displacement joint {label}: at least three slave nodes are required")
    positions = [None] * n if positions is None else list(positions)
    w = np.ones(n) if weights is None else np.array([1.0 if x is None else float(x) for x in weights])
    if len(positions) != n or len(w) != n:
        raise ValueError(f"rigid body displacement joint {label}: one position and one weight per slave node")
    X = np.array([model._node_spec(s).x if p is None else vec(p) for s, p in zip(slaves, positions)], float)
    o = (X - spec_m.x) @ spec_m.R          # rows R_m0ᵀ(X_j - x_m0)
    if w.sum() <= 0:
        raise ValueError(f"rigid body displacement joint {label}: the total weight must be greater than zero")
    sq = float((o * o).sum())
    if sq <= 0:
        raise ValueError(f"rigid body displacement joint {label}: the slave points all coincide with the master")
    a = n * n / sq if alpha is None else float(alpha)
    model.rigid_body_displacement_joints.append(
        RigidBodyDisplacementSpec(label, int(master), slaves, o, w * a / w.sum()))
    return label


MODEL_FIELDS = {"rigid_body_displacement_joints": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (rigid_body_displacement_joint,)


def build(model, nodes, built):
    specs = model.rigid_body_displacement_joints
    return [RigidBodyDisplacementJoints(specs, nodes)] if specs else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def rigid_body_displacement_sample(model, rng):
    """Two joints: four displacement slaves with given points and unequal (one negative)
    weights, and three slaves (one a node with rotation) at their own positions."""
    m = model
    random_nodes(m, rng, 2)
    for k in range(6):
        m.structural_node(10 + k, "static displacement", position=rng.normal(size=3), velocity=rng.normal(size=3))
    m.rigid_body_displacement_joint(1, 1, (10, 11, 12, 13), positions=[rng.normal(size=3) for _ in range(4)],
                                    weights=(1.0, 2.0, -0.5, 1.5))
    m.rigid_body_displacement_joint(2, 2, (14, 15, 1))
    return m


SAMPLES = {"rigid body displacement joint": [rigid_body_displacement_sample]}


class RigidBodyDisplacementJoints(ElementFamily):
    name = "rigid body displacement joint"
    in_initial_assembly = True
    output_file = "jnt"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        self.master = self.node_index([s.master for s in self.specs])
        if not nodes.rotating[self.master].all():
            raise ValueError("rigid body displacement joint: the master node must have rotation")
        counts = np.array([len(s.slaves) for s in self.specs], np.int64)
        self.ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.owner = np.repeat(np.arange(self.ne), counts)
        self.slave = self.node_index([l for s in self.specs for l in s.slaves])
        self.offsets = np.concatenate([s.offsets for s in self.specs]).reshape(-1, 3)
        self.weights = np.concatenate([s.weights for s in self.specs]).astype(float)
        self.n_internal = 6 * self.ne

    def set_offset(self, start):
        self.offset = start
        self.mult = start + np.arange(6 * self.ne, dtype=np.int64).reshape(self.ne, 6)

    def dof_info(self):
        kind = np.full(6 * self.ne, ALGEBRAIC)
        dim = np.tile([DIM["position constraint"]] * 3 + [DIM["rotation constraint"]] * 3, self.ne)
        labels = np.repeat(self.labels, 6)
        what = [f"rigid body displacement joint {w}" for _ in range(self.ne)
                for w in ("position x", "position y", "position z", "rotation x", "rotation y", "rotation z")]
        return kind, dim.astype(np.int64), labels, what

    def build_pattern(self):
        """Residual: master loads (ne, 6), rows (ne, 6), slave loads (nk, 3); Jacobian: Cᵀ and
        C on master and slaves, geometric stiffness master-master, slave-master, master-slave."""
        ixm, igm = node_columns(self.nodes, self.master)
        self.master_rows = np.concatenate([ixm, igm], axis=1)                   # (ne, 6)
        self.slave_rows, _ = node_columns(self.nodes, self.slave)               # (nk, 3)
        mr_k, mult_k = self.master_rows[self.owner], self.mult[self.owner]       # per slave entry
        p = self.pattern = Pattern()
        p.add_res(self.master_rows)
        p.add_res(self.mult)
        p.add_res(self.slave_rows)
        p.add_jac(self.master_rows, self.mult)
        p.add_jac(self.mult, self.master_rows)
        p.add_jac(self.slave_rows, mult_k)
        p.add_jac(mult_k, self.slave_rows)
        p.add_jac(self.master_rows, self.master_rows)
        p.add_jac(self.slave_rows, mr_k)
        p.add_jac(mr_k, self.slave_rows)
        return p

    def block_instances(self):
        every = np.arange(self.ne)
        return [every, every, self.owner], [every, every, self.owner, self.owner, every, self.owner, self.owner]

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (rigid_body_displacement_rows) over all instances."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        rigid_body_displacement_rows(ctx.mode_code, float(kin.dcoef), self.ptr, self.master, self.slave,
                                     self.offsets, self.weights, self.mult, ctx.y, kin.x, kin.v, kin.R,
                                     kin.w, kin.G, kin.Tw, want_jac, *res_views, *jac)

    # ------------------------------------------------------------------ output
    def master_loads(self, ctx):
        """(F, M) (ne, 3) each: the load the joint takes from its master (minus what it
        applies to it), global, from the family's kernel."""
        res = self.residual_blocks(ctx)
        return res[0][:, 0:3], res[0][:, 3:6]

    def _columns(self, ctx):
        F, M = self.master_loads(ctx)
        R = ctx.kin.R[self.master]
        return rot.mattvec(R, F), rot.mattvec(R, M), F, M

    def output_groups(self, ctx):
        """.jnt rows: label, F, M in the master's frame, F, M global (module docstring)."""
        out = np.array([s.output for s in self.specs], bool)
        vals = np.concatenate(self._columns(ctx), axis=1)
        return [(self.labels[out], vals[out])]

    def private_data_names(self, i):
        return PRIVATE_NAMES

    def private_data(self, ctx, name):
        if name not in PRIVATE_NAMES:
            raise ValueError(f'rigid body displacement joint private datum "{name}" does not exist')
        k = PRIVATE_NAMES.index(name)
        return self._columns(ctx)[k // 3][:, k % 3]


# ---------------------------------------------------------------- kernel
@kernel
def _cross_block(a, s):
    """s [a×] as a matrix."""
    A = skew(a)
    return ((s * A[0][0], s * A[0][1], s * A[0][2]), (s * A[1][0], s * A[1][1], s * A[1][2]),
            (s * A[2][0], s * A[2][1], s * A[2][2]))


@kernel
def rigid_body_displacement_rows(mode, dcoef, ptr, master, slave, offsets, weights, mult, y, x, v, R, w, G, Tw,
                                 want_jac, r_m, r_c, r_s, j_mc, j_cm, j_sc, j_cs, j_mm, j_sm, j_ms):
    """Rows, loads and Jacobian blocks of every rigid body displacement joint (module
    docstring): r_m master loads (ne, 6), r_c rows (ne, 6), r_s slave loads (nk, 3); j_mc
    Cᵀ on the master, j_cm C of the master columns, j_sc / j_cs the same for each slave,
    j_mm, j_sm, j_ms the geometric stiffness.  Chain rule of G8: x columns get dCoef, θ
    columns dCoef G (T_ω for the velocity-level rows)."""
    velocity_form = mode == IA_VELOCITY or mode == DERIVATIVES
    C = np.empty((6, 6))          # ∂c/∂(x_m, θ_m)
    K = np.empty((6, 6))          # ∂(master loads)/∂(x_m, θ_m)
    for e in range(len(master)):
        m = master[e]
        xm, Rm, vm, wm = vload(x, m), mload(R, m), vload(v, m), vload(w, m)
        Gm = mload(G, m)                                   # θ = dCoef G Δġ (loads)
        Gr = mload(Tw, m) if velocity_form else Gm         # rows at velocity level: ω = T_ω Δġ
        lt = (y[mult[e, 0]], y[mult[e, 1]], y[mult[e, 2]])
        lr = (y[mult[e, 3]], y[mult[e, 4]], y[mult[e, 5]])
        Lr = skew(lr)
        C[:] = 0.0
        K[:] = 0.0
        ct, cr, vt, vr = zero3(), zero3(), zero3(), zero3()
        Fm, Mm = zero3(), zero3()
        for k in range(ptr[e], ptr[e + 1]):
            j = slave[k]
            wk = weights[k]
            a = mvec(Rm, vload(offsets, k))
            d = vsub(xm, vload(x, j))                     # Δ_j
            ct = vadd(ct, vscale(wk, vadd(d, a)))
            cr = vadd(cr, vscale(wk, vcross(a, d)))
            A = skew(a)
            Cx_r = _cross_block(a, wk)                    # ∂c_r/∂x_m = w [a×] = -∂c_r/∂x_j
            Cth_t = _cross_block(a, -wk)                  # ∂c_t/∂θ = -w [a×]
            Cth_r = mmul(_cross_block(d, wk), A)          # ∂c_r/∂θ = w [Δ×][a×]
            for p in range(3):
                C[p, p] += wk
                for q in range(3):
                    C[p, 3 + q] += Cth_t[p][q]
                    C[3 + p, q] += Cx_r[p][q]
                    C[3 + p, 3 + q] += Cth_r[p][q]
            vj = vload(v, j)
            vt = vsub(vt, vscale(wk, vj))                 # slave part of ċ_t: -w v_j
            vr = vsub(vr, vscale(wk, vcross(a, vj)))      # slave part of ċ_r: -w a × v_j
            # loads: master force Σw λt + Σ w λr × a (λt part added below), couple Σ w a × u
            u = vadd(lt, vcross(d, lr))
            Fm = vadd(Fm, vscale(wk, vcross(lr, a)))
            Mm = vadd(Mm, vscale(wk, vcross(a, u)))
            fs = vscale(wk, vsub(vcross(a, lr), lt))      # slave load w (a × λr - λt)
            for p in range(3):
                r_s[k, p] = fs[p]
            if want_jac:
                # slave rows × multipliers: Cjᵀ = [-w I, w [a×]]; multipliers × slave cols: Cj
                for p in range(3):
                    for q in range(3):
                        j_sc[k, p, q] = -wk if p == q else 0.0
                        j_cs[k, p, q] = -wk if p == q else 0.0
                        j_sc[k, p, 3 + q] = -Cx_r[q][p]
                        j_cs[k, 3 + p, q] = -Cx_r[p][q]
                scale = 1.0
                if mode == DERIVATIVES:
                    scale = 1.0 / dcoef
                for p in range(6):
                    for q in range(3):
                        j_cs[k, p, q] *= scale
                # geometric stiffness: K_mm, slave-master (θ cols), master-slave (θ rows)
                LrA = mmul(Lr, A)
                ALr = mmul(A, Lr)
                UA = mmul(skew(u), A)
                add_block(K, 0, 3, LrA, -wk)
                add_block(K, 3, 3, UA, wk)
                add_block(K, 3, 0, ALr, -wk)
                # chain rule: master θ columns dCoef G, slave x columns dCoef
                LrAG = mmul(LrA, Gm)
                for p in range(3):
                    for q in range(3):
                        j_sm[k, p, q] = 0.0
                        j_sm[k, p, 3 + q] = dcoef * wk * LrAG[p][q]
                        j_ms[k, p, q] = 0.0
                        j_ms[k, 3 + p, q] = dcoef * wk * ALr[p][q]
        Sw = 0.0
        for k in range(ptr[e], ptr[e + 1]):
            Sw += weights[k]
        Fm = vadd(Fm, vscale(Sw, lt))
        for p in range(3):
            r_m[e, p] = Fm[p]
            r_m[e, 3 + p] = Mm[p]
        # rows
        if velocity_form:
            for p in range(3):
                s_t = vt[p]
                s_r = vr[p]
                for q in range(3):
                    s_t += C[p, q] * vm[q] + C[p, 3 + q] * wm[q]
                    s_r += C[3 + p, q] * vm[q] + C[3 + p, 3 + q] * wm[q]
                r_c[e, p] = s_t
                r_c[e, 3 + p] = s_r
            if mode == DERIVATIVES:
                for p in range(6):
                    r_c[e, p] /= dcoef
        elif mode == IA_POSITION:
            for p in range(3):
                r_c[e, p] = ct[p]
                r_c[e, 3 + p] = cr[p]
        else:
            for p in range(3):
                r_c[e, p] = ct[p] / dcoef
                r_c[e, 3 + p] = cr[p] / dcoef
        if not want_jac:
            continue
        scale = 1.0 / dcoef if mode == DERIVATIVES else 1.0
        for p in range(6):
            for q in range(3):
                j_mc[e, q, p] = C[p, q]
                j_mc[e, 3 + q, p] = C[p, 3 + q]
                j_cm[e, p, q] = C[p, q] * scale
                s = 0.0
                for r in range(3):
                    s += C[p, 3 + r] * Gr[r][q]
                j_cm[e, p, 3 + q] = s * scale
        for p in range(6):
            for q in range(3):
                j_mm[e, p, q] = dcoef * K[p, q]
                s = 0.0
                for r in range(3):
                    s += K[p, 3 + r] * Gm[r][q]
                j_mm[e, p, 3 + q] = dcoef * s


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`joint: <label>,
# <joint type>`).  The reader and the Model are used duck-typed (no engine.io import here).

def read_rigid_body_displacement_joint(reader, model, args, label, word):
    """`rigid body displacement joint, <master>, <N>, N × (<slave> [, position, <Vec3>]
    [, weight, <w>]) [, alpha, <alpha>]` (input manual, "Rigid body displacement joint"):
    each position is absolute, read relative to its slave node's frame (as MBDyn's)."""
    wm = args.peek()
    nm, _ = reader.node_site(args)
    if nm.kind.endswith("displacement"):
        raise wm.error(f"rigid body displacement joint: the master node (Structural({nm.label})) must "
                       "have rotation (it is a displacement node)")
    nw = args.peek()
    n = args.integer("the number of slave nodes")
    if n < 3:
        raise nw.error("rigid body displacement joint: at least three slave nodes are required")
    slaves, positions, weights = [], [], []
    for _ in range(n):
        ns, site = reader.node_site(args, "a slave node")
        slaves.append(ns.label)
        positions.append(reader.read_vec3(args, "abs position", site) if args.is_keyword("position") else None)
        weights.append(args.real("a weight") if args.is_keyword("weight") else 1.0)
    if sum(weights) <= 0:
        raise nw.error("rigid body displacement joint: the total weight must be greater than zero")
    alpha = args.real("alpha") if args.is_keyword("alpha") else None
    model.rigid_body_displacement_joint(label, nm.label, slaves, positions, weights, alpha)


CARDS = {"rigid body displacement joint": read_rigid_body_displacement_joint}
