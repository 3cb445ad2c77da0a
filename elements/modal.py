"""The modal joint (MBDyn `joint: <label>, modal, ...`, input manual "Modal" joint; theory
manual §9.4): a component-mode-synthesis flexible body whose floating frame is a `modal`
structural node (or fixed: `clamped`), deformed by M mode shapes of an FEM data file
(elements/modal_fem.py), and clamped to multibody interface nodes at FEM nodes.

Unknowns of each instance, in MBDyn's velocity form: the modal coordinates q and the modal
velocities b (differential; rows: the modal equations and b = q̇), 6 multipliers per
interface node (algebraic).  The modal node's second half of unknowns holds its velocity v
and angular velocity ω (not momenta: engine/core/nodes.py), whose rows (force, moment and
the definitions v = ẋ, ω = ω(g, ġ)) this family writes (modal_kernel).  Inertia invariants I₁…I₉ (eqs.
9.407-9.415) come from the lumped nodal inertia (record 11); record 12 replaces I₁, I₂, I₇;
I₉ only with `use invariant 9` (MBDyn's default drops it); M_qq, K_qq are the file's generalized
matrices; the nodal inertia J_i is kept in the floating frame (truncation 9.419, no I₁₀).
Damping: `no damping`, `damping from file` (record 13), `rayleigh damping`, `single factor
damping` (and its deprecated name `proportional damping`), `diag damping` (c_ii = 2 ξ_i
√(k_ii m_ii)).  Gravity acts on the modal body (force m g, moment S×g, modal loads (R I₃)ᵀg).

Output (`.mod`, MBDyn's layout): per step `label.mode q q̇ q̈` for every mode, then, for
interface nodes with output, `label@node F M`: the force on the interface node (global) and
the couple on it in its own frame; q̈ is ḃ.  Stress stiffening (§9.4.6, eq. 9.433) when the
FEM file has record 19: K_qq + Σ c_k K₀ₖ, the coefficients c_k from the floating frame's
motion and the interface reactions (modal_kernel)."""
from dataclasses import dataclass
import os
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern, DIFFERENTIAL, ALGEBRAIC, DIM, kernel_jacobian_views
from mbdae.engine.core.drives import DriveArray
from mbdae.engine.core.rbk import RigidBodyKinematics
from mbdae.elements.base import ElementFamily, vec, mat, scalar_drive, random_rotation, random_nodes
from mbdae.elements.modal_fem import FemData, read_fem_file
from mbdae.elements.modal_kernel import modal_family, modal_force_loads
from mbdae.engine.mesh import load_meshio

DAMPING = ("no damping", "damping from file", "rayleigh damping", "single factor damping", "diag damping")


@dataclass
class Interface:
    fem_label: str
    node: int
    offset: np.ndarray                # FEM node's offset from the multibody node, node frame
    output: bool = False


@dataclass
class ModalSpec:
    label: int
    node: int                         # modal node label, or None (clamped)
    fem: FemData
    modes: list                       # 1-based mode numbers of the file used, in order
    interfaces: list
    position: np.ndarray = None       # clamped: the FEM frame's origin and orientation
    orientation: np.ndarray = None
    origin: np.ndarray = None         # FEM-frame point placed at the modal node (origin node/position)
    damping: tuple = ("damping from file",)
    initial: tuple = None             # (q0, q̇0) per selected mode: replaces records 3, 4
    use_invariant_9: bool = False
    thresholds: tuple = (0.0, 0.0, 0.0)   # mass, damping, stiffness
    output: bool = True


def modal_joint(model, label, node, fem, modes=None, interfaces=(), position=None, orientation=None,
                origin=None, damping=("damping from file",), initial=None, use_invariant_9=False,
                thresholds=(0.0, 0.0, 0.0), output=True):
    """A modal joint (module docstring): `fem` a FemData or the path of an FEM data file,
    `modes` the 1-based modes used (default: the first M = all), `interfaces` a list of
    (FEM node label, node label, offset in the node's frame[, output])."""
    fem = fem if isinstance(fem, FemData) else read_fem_file(fem)
    modes = list(range(1, fem.n_modes + 1)) if modes is None else [int(k) for k in modes]
    if not modes or min(modes) < 1 or max(modes) > fem.n_modes or len(set(modes)) != len(modes):
        raise ValueError(f"modal joint {label}: modes {modes} are not distinct modes 1..{fem.n_modes} of {fem.path}")
    ifs = []
    for it in interfaces:
        fem_label, n, off = it[0], it[1], it[2]
        if str(fem_label) not in fem.labels:
            raise ValueError(f"modal joint {label}: FEM node '{fem_label}' is not in {fem.path}")
        ifs.append(Interface(str(fem_label), int(n), vec(off), bool(it[3]) if len(it) > 3 else False))
    if damping[0] not in DAMPING:
        raise ValueError(f"modal joint {label}: damping '{damping[0]}' is not one of {DAMPING}")
    model.modal_joints.append(ModalSpec(label, node, fem, modes, ifs, vec(position), mat(orientation),
                                        None if origin is None else vec(origin), tuple(damping), initial,
                                        bool(use_invariant_9), tuple(thresholds), output))


@dataclass
class ModalForceSpec:
    label: int
    joint: int                        # label of the modal joint
    modes: list                       # FEM mode numbers excited (each used by the joint)
    drives: list                      # one scalar drive per mode
    resultants: np.ndarray = None     # (n, 6): force and moment per unit drive, floating frame
    output: bool = True


def modal_force(model, label, joint, drives, modes=None, resultants=None):
    """MBDyn's `force: <label>, modal` (input manual "Modal" force): generalized forces
    drives[k](t) on the modal equations of `modes` (FEM mode numbers; default: every mode
    of the joint) and, on a modal node, the resultants R f d, R m d."""
    model.modal_forces.append(ModalForceSpec(label, joint, None if modes is None else list(modes),
                                             [scalar_drive(d) for d in drives],
                                             None if resultants is None else np.asarray(resultants, float)))


MODEL_FIELDS = {"modal_joints": list, "modal_forces": list}
MODEL_METHODS = (modal_joint, modal_force)


def build(model, nodes, built):
    if not model.modal_joints:
        if model.modal_forces:
            raise ValueError(f"modal force {model.modal_forces[0].label}: no modal joint in the model")
        return []
    joints = ModalJoints(model.modal_joints, nodes, getattr(model, "gravity_vector", None),
                         getattr(model, "gravity_drive", None), getattr(model, "rigid_body_kinematics", None))
    return [joints] + ([ModalForces(model.modal_forces, joints)] if model.modal_forces else [])


def _cut(A, threshold):
    return np.where(np.abs(A) < threshold, 0.0, A) if threshold > 0 else A


def modal_mass_properties(spec, x0, R0):
    """(m, ∫x dm, ∫x xᵀ dm) of a modal body at its initial modal coordinates, its floating
    frame at x0, R0 (global): m = I₁, ∫x dm = m x0 + R0 s, ∫x xᵀ dm = m x0 x0ᵀ + x0 (R0 s)ᵀ
    + (R0 s) x0ᵀ + ½ tr(J) I - J with s = I₂ + I₃ q₀ and J = R0 (I₇ + Σⱼ q₀ⱼ (I₈ⱼ + I₈ⱼᵀ)
    - Σⱼₖ q₀ⱼ q₀ₖ I₉ⱼₖ) R0ᵀ (the inertia of the modal body about its frame's origin)."""
    inv = invariants(spec)
    I1, I2, I3, I7, I8, I9, q0 = inv[0], inv[1], inv[2], inv[5], inv[6], inv[7], inv[11]
    s = R0 @ (I2 + I3 @ q0)
    J = I7 + np.einsum("j,jab->ab", q0, I8 + np.swapaxes(I8, 1, 2)) - np.einsum("j,k,jkab->ab", q0, q0, I9)
    J = R0 @ J @ R0.T
    first = I1 * x0 + s
    second = I1 * np.outer(x0, x0) + np.outer(x0, s) + np.outer(s, x0) + 0.5 * np.trace(J) * np.eye(3) - J
    return float(I1), first, second


def invariants(spec):
    """(I1, I2, I3, I4, I5, I7, I8, I9, Mqq, Kqq, Cqq, q0, qd0, x, Ut, Ur) of a spec in the FEM
    frame shifted to the origin (module docstring, eqs. 9.407-9.415)."""
    fem = spec.fem
    sel = np.array(spec.modes) - 1
    m = len(sel)
    origin = np.zeros(3) if spec.origin is None else spec.origin
    x = fem.x - origin
    Ut, Ur = fem.shapes_t[sel], fem.shapes_r[sel]                # (M, N, 3)
    I1, I2, I7 = 0.0, np.zeros(3), np.zeros((3, 3))
    I3, I4 = np.zeros((3, m)), np.zeros((3, m))
    I5, I8, I9 = np.zeros((m, 3, m)), np.zeros((m, 3, 3)), np.zeros((m, m, 3, 3))
    if fem.lumped is not None:
        mi = fem.lumped[:, 0]
        Ji = fem.lumped[:, 3:6]
        X = rot.skew(x)                                            # (N, 3, 3)
        I1 = float(mi.sum())
        I2 = mi @ x
        I7 = np.einsum("n,nij->ij", -mi, X @ X) + np.diag(Ji.sum(axis=0))
        I3 = np.einsum("n,kni->ik", mi, Ut)
        I4 = np.einsum("n,nij,knj->ik", mi, X, Ut) + np.einsum("ni,kni->ik", Ji, Ur)
        UX = rot.skew(Ut)                                          # (M, N, 3, 3)
        I5 = np.einsum("n,jnab,knb->jak", mi, UX, Ut)
        I8 = -np.einsum("n,nab,jnbc->jac", mi, X, UX)
        if spec.use_invariant_9:
            I9 = np.einsum("n,jnab,knbc->jkac", mi, UX, UX)
    # records 14-18 (about the FEM origin) replace record 11's; shifted to the origin o:
    # I₄' = I₄ - o× I₃, I₈ⱼ' = I₈ⱼ + o× (I₃ⱼ)× (I₃, I₅, I₉ do not depend on it)
    given = fem.invariants or {}
    ox = rot.skew(origin)
    if "I3" in given:
        I3 = given["I3"][:, sel]
    if "I4" in given:
        I4 = given["I4"][:, sel] - ox @ given["I3"][:, sel] if "I3" in given else given["I4"][:, sel]
    if "I5" in given:
        I5 = given["I5"][np.ix_(sel, [0, 1, 2], sel)]
    if "I8" in given:
        I8 = given["I8"][sel] + (ox @ rot.skew(given["I3"][:, sel].T) if "I3" in given else 0.0)
    if "I9" in given and spec.use_invariant_9:
        I9 = given["I9"][np.ix_(sel, sel, [0, 1, 2], [0, 1, 2])]
    if fem.rigid is not None:
        mass, xcg, Jcm = fem.rigid
        c = xcg - origin
        I1, I2 = mass, mass * c
        I7 = Jcm - mass * rot.skew(c) @ rot.skew(c)
    tm, td, tk = spec.thresholds
    Mqq = _cut(fem.mass, tm)[np.ix_(sel, sel)]
    Kqq = _cut(fem.stiffness, tk)[np.ix_(sel, sel)]
    kind = spec.damping[0]
    if kind == "damping from file":
        Cqq = np.zeros((m, m)) if fem.damping is None else _cut(fem.damping, td)[np.ix_(sel, sel)]
    elif kind == "no damping":
        Cqq = np.zeros((m, m))
    elif kind == "rayleigh damping":
        Cqq = spec.damping[1] * Mqq + spec.damping[2] * Kqq
    else:
        xi = np.full(m, spec.damping[1]) if kind == "single factor damping" else np.asarray(spec.damping[1], float)
        Cqq = np.diag(2.0 * xi * np.sqrt(np.abs(np.diag(Kqq) * np.diag(Mqq))))
    if spec.initial is not None:
        q0, qd0 = (np.asarray(a, float) for a in spec.initial)
    else:
        q0, qd0 = fem.q0[sel], fem.qd0[sel]
    return I1, I2, I3, I4, I5, I7, I8, I9, Mqq, Kqq, Cqq, q0, qd0, x, Ut, Ur


STIFFENING_CASES = 12          # record 19 indices 1-12: ω products, angular and linear acceleration


def stiffening_matrices(spec):
    """(12 + 6 NI, m, m): the stress stiffening matrices of record 19 (elements/modal_fem.py)
    on the selected modes, zero where the file has none; None without record 19."""
    fem = spec.fem
    if not fem.stiffening:
        return None
    sel = np.array(spec.modes) - 1
    nk = STIFFENING_CASES + 6 * len(spec.interfaces)
    K0 = np.zeros((nk, len(sel), len(sel)))
    for index, A in fem.stiffening.items():
        if index > nk:
            raise ValueError(f"modal joint {spec.label}: {fem.path}:{fem.lines.get(19, 1)}: stress stiffening "
                             f"load case {index} belongs to interface node {(index - STIFFENING_CASES - 1) // 6 + 1}; "
                             f"the joint has {len(spec.interfaces)} interface nodes")
        K0[index - 1] = A[np.ix_(sel, sel)]
    return K0


class ModalJoints(ElementFamily):
    """All modal joints: one compiled call (modal_kernel.modal_family) per evaluation."""
    name = "modal joint"
    in_initial_assembly = True
    output_file = "mod"

    def __init__(self, specs, nodes, gravity_vector=None, gravity_drive=None, frame=None):
        super().__init__(specs, nodes)
        self.frame = frame             # engine/core/rbk.RigidBodyKinematics, or None (inertial frame)
        self._inertial_frame = np.zeros((3, 3), np.complex128)      # ω₀, ω̇₀, a₀ of the inertial frame
        S = self.specs
        ne = self.ne
        self.M = np.array([len(s.modes) for s in S], np.int64)
        self.NI = np.array([len(s.interfaces) for s in S], np.int64)
        Mx, Nx = int(self.M.max()), max(int(self.NI.max()), 1)
        self.L = 12 + 2 * Mx + 12 * Nx
        self.n0 = np.array([-1 if s.node is None else self._node(s, s.node) for s in S], np.int64)
        for s, n in zip(S, self.n0):
            if n >= 0 and nodes.specs[n].kind != "modal":
                raise ValueError(f"modal joint {s.label}: structural node {s.node} is not a modal node")
        C = np.complex128
        self.X0c = np.array([s.position for s in S], C).reshape(ne, 3)
        self.R0c = np.array([s.orientation for s in S], C).reshape(ne, 3, 3)
        z = lambda *shape: np.zeros((ne,) + shape, C)
        self.I1, self.I2, self.I3, self.I4 = z(), z(3), z(3, Mx), z(3, Mx)
        self.I5, self.I7, self.I8, self.I9 = z(Mx, 3, Mx), z(3, 3), z(Mx, 3, 3), z(Mx, Mx, 3, 3)
        self.Mqq, self.Kqq, self.Cqq = z(Mx, Mx), z(Mx, Mx), z(Mx, Mx)
        self.q0, self.qd0 = np.zeros((ne, Mx)), np.zeros((ne, Mx))
        self.inode = np.zeros((ne, Nx), np.int64)
        self.oN, self.fP = z(Nx, 3), z(Nx, 3)
        self.UP, self.VP = z(Nx, 3, Mx), z(Nx, 3, Mx)
        self.use9 = any(s.use_invariant_9 for s in S)
        # stress stiffening (§9.4.6): K0 (ne, 12 + 6 Nx, Mx, Mx), ss[e] whether instance e has it
        self.K0 = z(STIFFENING_CASES + 6 * Nx, Mx, Mx)
        self.ss = np.zeros(ne, np.bool_)
        nd = self.nodes
        self.ib0 = np.array([nd.ib[n] if n >= 0 else [-1, -1, -1] for n in self.n0], np.int64).reshape(ne, 3)
        self.ic0 = np.array([nd.ic[n] if n >= 0 else [-1, -1, -1] for n in self.n0], np.int64).reshape(ne, 3)
        self.fem_x, self.fem_Ut = [], []
        for e, s in enumerate(S):
            m = self.M[e]
            I1, I2, I3, I4, I5, I7, I8, I9, Mqq, Kqq, Cqq, q0, qd0, x, Ut, Ur = invariants(s)
            self.I1[e], self.I2[e], self.I3[e, :, :m], self.I4[e, :, :m] = I1, I2, I3, I4
            self.I5[e, :m, :, :m], self.I7[e], self.I8[e, :m], self.I9[e, :m, :m] = I5, I7, I8, I9
            self.Mqq[e, :m, :m], self.Kqq[e, :m, :m], self.Cqq[e, :m, :m] = Mqq, Kqq, Cqq
            self.q0[e, :m], self.qd0[e, :m] = q0, qd0
            self.fem_x.append(x)
            self.fem_Ut.append(Ut)
            K0 = stiffening_matrices(s)
            if K0 is not None:
                self.ss[e] = True
                self.K0[e, :len(K0), :m, :m] = K0
            for k, it in enumerate(s.interfaces):
                i = s.fem.labels.index(it.fem_label)
                self.inode[e, k] = self._node(s, it.node)
                self.oN[e, k] = it.offset
                self.fP[e, k] = x[i]
                self.UP[e, k, :, :m] = Ut[:, i, :].T
                self.VP[e, k, :, :m] = Ur[:, i, :].T
        self.n_internal = int((2 * self.M + 6 * self.NI).sum())
        self.gravity_vector = None if gravity_vector is None else np.asarray(gravity_vector, float)
        self._gravity = None if gravity_vector is None else DriveArray([gravity_drive])

    def _node(self, spec, label):
        try:
            return self.nodes.index(label)
        except KeyError:
            raise ValueError(f"modal joint {spec.label}: structural node {label} is not defined") from None

    # ------------------------------------------------------------------ layout
    def set_offset(self, start):
        self.offset = start
        sizes = 2 * self.M + 6 * self.NI
        self.qoff = start + np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.moff = np.full(self.inode.shape, -1, np.int64)
        for e in range(self.ne):
            for k in range(self.NI[e]):
                self.moff[e, k] = self.qoff[e] + 2 * self.M[e] + 6 * k

    def dof_info(self):
        kind, dim, labels, what = [], [], [], []
        for e, s in enumerate(self.specs):
            m = self.M[e]
            kind += [DIFFERENTIAL] * (2 * m) + [ALGEBRAIC] * (6 * self.NI[e])
            dim += [DIM["force"]] * m + [DIM["velocity constraint"]] * m
            what += [f"modal equation {k}" for k in s.modes] + [f"modal velocity {k}" for k in s.modes]
            for it in s.interfaces:
                dim += [DIM["position constraint"]] * 3 + [DIM["rotation constraint"]] * 3
                what += [f"interface {it.node} position {c}" for c in "xyz"] + \
                        [f"interface {it.node} rotation {c}" for c in "xyz"]
            labels += [s.label] * (2 * m + 6 * self.NI[e])
        return (np.array(kind, np.int64), np.array(dim, np.int64), np.array(labels, np.int64), what)

    def local_rows(self):
        """(ne, L) global rows (= columns) of each instance's local layout (-1: padding)."""
        n = self.nodes
        rows = np.full((self.ne, self.L), -1, np.int64)
        for e in range(self.ne):
            m = self.M[e]
            i = self.n0[e]
            if i >= 0:
                rows[e, 0:3], rows[e, 3:6], rows[e, 6:9], rows[e, 9:12] = n.ix[i], n.ig[i], n.ib[i], n.ic[i]
            rows[e, 12:12 + 2 * m] = self.qoff[e] + np.arange(2 * m)
            for k in range(self.NI[e]):
                b = 12 + 2 * m + 12 * k
                N = self.inode[e, k]
                rows[e, b:b + 3], rows[e, b + 3:b + 6] = n.ix[N], n.ig[N]
                rows[e, b + 6:b + 12] = self.moff[e, k] + np.arange(6)
        return rows

    def build_pattern(self):
        p = self.pattern = Pattern()
        rows = self.local_rows()
        p.add_res(rows)
        p.add_jac(rows, rows)
        return p

    def kept_unknowns(self):
        """The q and b unknowns: the derivatives phase keeps their values (as the nodes')."""
        return np.concatenate([self.qoff[e] + np.arange(2 * self.M[e]) for e in range(self.ne)])

    # ------------------------------------------------------------------ evaluation
    def gravity(self, t):
        if self._gravity is None:
            return np.zeros(3, np.complex128), 0.0
        return (self.gravity_vector * self._gravity.values(t)[0]).astype(np.complex128), 1.0

    def evaluate(self, ctx, res_views, jac_views):
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        gvec, on = self.gravity(ctx.t)
        fk = self._inertial_frame if self.frame is None else np.array(self.frame.inertial_terms(ctx.t), np.complex128)
        modal_family(ctx.mode_code, float(kin.dcoef), self.n0, self.X0c, self.R0c, self.M, self.NI, self.I1,
                     self.I2, self.I3, self.I4, self.I5, self.I7, self.I8, self.I9, self.use9, self.Mqq, self.Kqq,
                     self.Cqq, self.q0, self.qd0, self.inode, self.oN, self.fP, self.UP, self.VP, self.qoff,
                     self.moff, ctx.y, ctx.yp, kin.x, kin.v, kin.R, kin.w, kin.G, kin.Tw, gvec, on, self.ss, self.K0,
                     fk, self.ib0, self.ic0, want_jac, res_views[0], jac[0])

    # ------------------------------------------------------------------ initial values
    def initial_values(self, y, yp):
        """q = q₀, q̇ = b = q̇₀ (records 3, 4 or the card's `initial value`)."""
        for e in range(self.ne):
            m = self.M[e]
            o = self.qoff[e]
            y[o:o + m] = self.q0[e, :m]
            yp[o:o + m] = self.qd0[e, :m]
            y[o + m:o + 2 * m] = self.qd0[e, :m]

    def set_own_velocities(self, kin, y, yp):
        """The velocity unknowns from the (consistent) initial velocities: the modal nodes' v, ω
        from their kinematics, the modal velocities b = q̇."""
        nd = self.nodes
        for e in range(self.ne):
            m, o, n = self.M[e], self.qoff[e], self.n0[e]
            y[o + m:o + 2 * m] = yp[o:o + m]
            if n >= 0:
                y[nd.ib[n]] = kin.v[n]
                y[nd.ic[n]] = kin.w[n]

    def momenta(self, kin, y, yp, e):
        """(β, γ, p) = (∂T/∂ẋ₀, ∂T/∂ω, ∂T/∂q̇) of instance e at the state (module
        modal_kernel docstring): the body's momentum and angular momentum about the modal
        node, and the modal momenta."""
        m = self.M[e]
        q, qd = y[self.qoff[e]:self.qoff[e] + m], yp[self.qoff[e]:self.qoff[e] + m]
        n = self.n0[e]
        R = kin.R[n] if n >= 0 else self.R0c[e].real
        v = kin.v[n] if n >= 0 else np.zeros(3)
        w = kin.w[n] if n >= 0 else np.zeros(3)
        I3, I4 = self.I3[e, :, :m].real, self.I4[e, :, :m].real
        s = self.I2[e].real + I3 @ q
        J = self.I7[e].real.copy()
        B = I4.copy()
        for j in range(m):
            J += q[j] * (self.I8[e, j] + self.I8[e, j].T).real
            B += q[j] * self.I5[e, j, :, :m].real
            if self.use9:
                for k in range(m):
                    J -= q[j] * q[k] * self.I9[e, j, k].real
        Om, V = R.T @ w, R.T @ v
        beta = self.I1[e].real * v + np.cross(w, R @ s) + R @ (I3 @ qd)
        gamma = np.cross(R @ s, v) + R @ (J @ Om + B @ qd)
        p = I3.T @ V + B.T @ Om + self.Mqq[e, :m, :m].real @ qd
        return beta, gamma, p

    # ------------------------------------------------------------------ output
    def accelerations(self, ctx, e):
        """(ẍ₀, ω̇, q̈) of instance e: the rates of the velocity unknowns (zero for a clamped
        frame)."""
        m, o, n = self.M[e], self.qoff[e], self.n0[e]
        qdd = ctx.yp[o + m:o + 2 * m].copy()
        if n < 0:
            return np.zeros(3), np.zeros(3), qdd
        nd = self.nodes
        return ctx.yp[nd.ib[n]].copy(), ctx.yp[nd.ic[n]].copy(), qdd

    def output_groups(self, ctx):
        """`.mod` rows (module docstring)."""
        labels, values = [], []
        iflabels, ifvalues = [], []
        for e, s in enumerate(self.specs):
            if not s.output:
                continue
            m = self.M[e]
            q, qd = ctx.y[self.qoff[e]:self.qoff[e] + m], ctx.yp[self.qoff[e]:self.qoff[e] + m]
            qdd = self.accelerations(ctx, e)[2]
            for j in range(m):
                labels.append(f"{s.label}.{s.modes[j]}")
                values.append((q[j], qd[j], qdd[j]))
            for i, it in enumerate(s.interfaces):
                if not it.output:
                    continue
                lam = ctx.y[self.moff[e, i]:self.moff[e, i] + 3]
                mu = ctx.y[self.moff[e, i] + 3:self.moff[e, i] + 6]
                iflabels.append(f"{s.label}@{it.node}")
                ifvalues.append(np.concatenate([lam, mu]))
        groups = []
        if labels:
            groups.append((np.array(labels, dtype=object), np.array(values, float)))
        if iflabels:
            groups.append((np.array(iflabels, dtype=object), np.array(ifvalues, float)))
        return groups

    # ------------------------------------------------------------------ private data
    MODE_DATA = ("q", "qP", "qPP")
    NODE_DATA = ("x", "xP", "xPP", "w", "wP")

    def private_data_names(self, i):
        """MBDyn's modal joint private data (input manual, "Modal" joint, "Private Data"):
        q[m], qP[m], qPP[m] for each mode m (its FEM number, or #j its index), and x, xP, xPP,
        w, wP [n,c] of each FEM node n (global components c = 1..3)."""
        s = self.specs[i]
        modes = [str(k) for k in s.modes] + [f"#{j + 1}" for j in range(len(s.modes))]
        return ([f"{d}[{k}]" for d in self.MODE_DATA for k in modes]
                + [f"{d}[{n},{c}]" for d in self.NODE_DATA for n in s.fem.labels for c in (1, 2, 3)])

    def private_data(self, ctx, name):
        """Values of datum `name` over all instances (NaN where an instance lacks it): FEM
        node kinematics x = x₀ + R₀ d, d = f + U q (the origin-shifted FEM frame), ẋ = v₀ +
        ω×R₀d + R₀Uq̇, ẍ = a₀ + ω̇×R₀d + ω×(ω×R₀d) + 2ω×R₀Uq̇ + R₀Uq̈ (eqs. 9.391), ω_P = ω +
        R₀Vq̇, ω̇_P = ω̇ + ω×R₀Vq̇ + R₀Vq̈."""
        out = np.full(self.ne, np.nan)
        head, _, rest = name.partition("[")
        arg = rest[:-1] if rest.endswith("]") else None
        if arg is None or head not in self.MODE_DATA + self.NODE_DATA:
            raise ValueError(f'modal joint: private datum "{name}" does not exist (q[m], qP[m], qPP[m], '
                             'x[n,c], xP[n,c], xPP[n,c], w[n,c], wP[n,c])')
        for e, s in enumerate(self.specs):
            if name not in self.private_data_names(e):
                continue
            m = self.M[e]
            o = self.qoff[e]
            q, qd = ctx.y[o:o + m], ctx.yp[o:o + m]
            a0, wd, qdd = self.accelerations(ctx, e)
            if head in self.MODE_DATA:
                j = int(arg[1:]) - 1 if arg.startswith("#") else s.modes.index(int(arg))
                out[e] = (q, qd, qdd)[self.MODE_DATA.index(head)][j]
                continue
            label, c = arg.rsplit(",", 1)
            i = s.fem.labels.index(label)
            n = self.n0[e]
            if n >= 0:
                x0, R0, v0, w0 = ctx.kin.x[n], ctx.kin.R[n], ctx.kin.v[n], ctx.kin.w[n]
            else:
                x0, R0, v0, w0 = self.X0c[e].real, self.R0c[e].real, np.zeros(3), np.zeros(3)
            U = self.fem_Ut[e][:, i, :].T
            V = s.fem.shapes_r[np.array(s.modes) - 1][:, i, :].T
            Rd = R0 @ (self.fem_x[e][i] + U @ q)
            RUd, RVd = R0 @ (U @ qd), R0 @ (V @ qd)
            value = {"x": lambda: x0 + Rd,
                     "xP": lambda: v0 + np.cross(w0, Rd) + RUd,
                     "xPP": lambda: (a0 + np.cross(wd, Rd) + np.cross(w0, np.cross(w0, Rd)) + 2 * np.cross(w0, RUd)
                                     + R0 @ (U @ qdd)),
                     "w": lambda: w0 + RVd,
                     "wP": lambda: wd + np.cross(w0, RVd) + R0 @ (V @ qdd)}[head]()
            out[e] = value[int(c) - 1]
        return out

    # ------------------------------------------------------------------ VTU of the FE mesh
    def _fe_meshes(self):
        """[(instance, FE node indices (n,), [(VTK cell type, conn over those n points)])] of
        the instances whose FEM file has its mesh beside it (`<FEM file>.vtu`, written by
        `mbdae reduce`: the mesh's cells and a point array `fem_label`); read once, on the
        first VTU output (meshio is the optional extra `mesh`)."""
        if getattr(self, "_fe_mesh_cache", None) is None:
            found = []
            for e, s in enumerate(self.specs):
                path = f"{s.fem.path}.vtu"
                if not os.path.isfile(path):
                    continue
                m = load_meshio().read(path)
                labels = np.asarray(m.point_data.get("fem_label", []), np.int64).ravel()
                if len(labels) != len(m.points):
                    raise ValueError(f"{path}: no point array 'fem_label' (one FEM node label per point)")
                index = {lab: k for k, lab in enumerate(s.fem.labels)}
                used = sorted({int(v) for b in m.cells for v in np.asarray(b.data).ravel()})
                try:
                    fem_nodes = np.array([index[str(labels[p])] for p in used], np.int64)
                except KeyError as err:
                    raise ValueError(f"{path}: point label {err.args[0]} is not a FEM node of {s.fem.path}") from None
                local = np.full(len(m.points), -1, np.int64)
                local[used] = np.arange(len(used))
                found.append((e, fem_nodes, [(b.type, local[np.asarray(b.data, np.int64)]) for b in m.cells]))
            self._fe_mesh_cache = found
        return self._fe_mesh_cache

    def vtu_cells(self):
        """[(VTK cell type, point indices)] of the FE meshes (_fe_meshes), their points
        numbered over the instances in order (engine/io/vtu.py's extra points)."""
        out, offset = [], 0
        for _, fem_nodes, cells in self._fe_meshes():
            out += [(kind, conn + offset) for kind, conn in cells]
            offset += len(fem_nodes)
        return out

    def vtu_points(self, ctx):
        """(reference, current, velocity) (n, 3) of the FE mesh points of vtu_cells: the
        reference at q = 0 on the floating frame's initial placement, the current x₀ + R₀ d
        (d = f + U q) and its rate ẋ₀ + ω × R₀ d + R₀ U q̇."""
        ref, cur, vel = [], [], []
        nd = self.nodes
        for e, fem_nodes, _ in self._fe_meshes():
            m = self.M[e]
            q, qd = ctx.y[self.qoff[e]:self.qoff[e] + m], ctx.yp[self.qoff[e]:self.qoff[e] + m]
            n = self.n0[e]
            x0, R0 = (ctx.kin.x[n], ctx.kin.R[n]) if n >= 0 else (self.X0c[e].real, self.R0c[e].real)
            xi, Ri = (nd.x0[n], nd.R0[n]) if n >= 0 else (self.X0c[e].real, self.R0c[e].real)
            v0, w0 = (ctx.kin.v[n], ctx.kin.w[n]) if n >= 0 else (np.zeros(3), np.zeros(3))
            f = self.fem_x[e][fem_nodes]
            U = self.fem_Ut[e][:, fem_nodes]
            Rd = (f + np.einsum("knj,k->nj", U, q)) @ R0.T
            ref.append(xi + f @ Ri.T)
            cur.append(x0 + Rd)
            vel.append(v0 + np.cross(w0, Rd) + np.einsum("knj,k->nj", U, qd) @ R0.T)
        if not ref:
            return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3))
        return np.concatenate(ref), np.concatenate(cur), np.concatenate(vel)

    def fem_positions(self, ctx, e):
        """(N, 3) global positions of the FEM nodes of instance e (input manual, "Output":
        x = x_modal + R_modal (f₀ + f₁ q))."""
        m = self.M[e]
        q = ctx.y[self.qoff[e]:self.qoff[e] + m]
        n = self.n0[e]
        x0 = ctx.kin.x[n] if n >= 0 else self.X0c[e].real
        R0 = ctx.kin.R[n] if n >= 0 else self.R0c[e].real
        d = self.fem_x[e] + np.einsum("knj,k->nj", self.fem_Ut[e], q)
        return x0 + d @ R0.T


class ModalForces(ElementFamily):
    """Modal forces (MBDyn's ModalForce): residual -d_k on the modal equation of each excited
    mode and, for a joint on a modal node, -R₀ Σ f_k d_k, -R₀ Σ m_k d_k on the node's force
    and moment rows.  One compiled call (modal_kernel.modal_force_loads)."""
    name = "modal force"
    output_file = "frc"

    def __init__(self, specs, joints):
        super().__init__(specs, joints.nodes)
        self.joints = joints
        labels = [int(l) for l in joints.labels]
        rows, drives, owner, fvec = [], [], [], []
        self.node = np.full(self.ne, -1, np.int64)
        for e, s in enumerate(self.specs):
            if s.joint not in labels:
                raise ValueError(f"modal force {s.label}: modal joint {s.joint} is not defined")
            j = labels.index(s.joint)
            spec = joints.specs[j]
            modes = spec.modes if s.modes is None else s.modes
            if len(s.drives) != len(modes):
                raise ValueError(f"modal force {s.label}: {len(modes)} drives required, {len(s.drives)} given")
            for k, mode in enumerate(modes):
                if mode not in spec.modes:
                    raise ValueError(f"modal force {s.label}: mode {mode} is not active in modal joint {s.joint}")
                rows.append((j, spec.modes.index(mode)))
                owner.append(e)
                fvec.append(np.zeros(6) if s.resultants is None else s.resultants[k])
            drives += s.drives
            self.node[e] = joints.n0[j]
        self._modal_rows = rows
        self.owner = np.array(owner, np.int64)
        self.fm = np.array(fvec, float).reshape(-1, 6)
        self.drives = DriveArray(drives)
        n = self.nodes
        safe = np.maximum(self.node, 0)
        self.ix = np.where((self.node >= 0)[:, None], n.ix[safe], -1)
        self.ig = np.where((self.node >= 0)[:, None], n.ig[safe], -1)

    def bind(self, system):
        """The modal equations' rows, once the joints have their offsets."""
        self.q_rows = np.array([self.joints.qoff[j] + k for j, k in self._modal_rows], np.int64)

    def build_pattern(self):
        p = self.pattern = Pattern()
        p.add_res(self.q_rows)
        p.add_res(self.ix)
        p.add_res(self.ig)
        p.add_jac(self.ix, self.ig)
        p.add_jac(self.ig, self.ig)
        return p

    def resultants(self, t):
        """(F, M) (ne, 3) in the floating frame and the drive values (n,)."""
        d = self.drives.values(t)
        F, M = np.zeros((self.ne, 3)), np.zeros((self.ne, 3))
        np.add.at(F, self.owner, self.fm[:, :3] * d[:, None])
        np.add.at(M, self.owner, self.fm[:, 3:] * d[:, None])
        return F, M, d

    def evaluate(self, ctx, res_views, jac_views):
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        F, M, d = self.resultants(ctx.t)
        kin = ctx.kin
        modal_force_loads(float(kin.dcoef), self.node, d, F, M, kin.R, kin.G, want_jac, *res_views, *jac)

    def output_groups(self, ctx):
        """.frc rows as MBDyn's: label, [F, M (floating frame) on a modal node,] the drive values."""
        F, M, d = self.resultants(ctx.t)
        out = {}
        for e, s in enumerate(self.specs):
            if not s.output:
                continue
            vals = d[self.owner == e]
            row = np.concatenate([F[e], M[e], vals]) if self.node[e] >= 0 else vals
            out.setdefault(len(row), ([], []))
            out[len(row)][0].append(s.label)
            out[len(row)][1].append(row)
        return [(np.array(l, np.int64), np.array(v)) for l, v in out.values()]


# ---------------------------------------------------------------------- samples
def _sample_fem(rng, nn=3, nm=2, rigid=False):
    """A small random FEM data set (lumped inertia, coupled generalized matrices)."""
    A = rng.normal(size=(nm, nm))
    Bk = rng.normal(size=(nm, nm))
    return FemData("sample.fem", [f"n{i}" for i in range(nn)], rng.normal(size=(nn, 3)),
                   0.3 * rng.normal(size=(nm, nn, 3)), 0.3 * rng.normal(size=(nm, nn, 3)),
                   A @ A.T + np.eye(nm), Bk @ Bk.T + np.eye(nm), 0.1 * np.eye(nm), np.zeros(nm), np.zeros(nm),
                   np.column_stack([np.repeat(rng.uniform(0.5, 2.0, nn)[:, None], 3, 1),
                                    rng.uniform(0.1, 0.5, (nn, 3))]),
                   (2.0, rng.normal(size=3), np.diag([1.0, 2.0, 3.0])) if rigid else None)


def modal_sample(model, rng):
    """A floating modal body (modal node, two interface nodes, one with an offset, gravity)
    and a clamped one with invariant 9 and Rayleigh damping."""
    m = model
    m.structural_node(1, "modal", position=rng.normal(size=3), orientation=random_rotation(rng),
                      velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
    random_nodes(m, rng, 1, kind="static", start=2)
    random_nodes(m, rng, 2, kind="dynamic", start=3)
    m.modal_joint(1, 1, _sample_fem(rng), interfaces=[("n0", 2, rng.normal(size=3)), ("n2", 3, np.zeros(3))],
                  origin=rng.normal(size=3), damping=("damping from file",))
    m.modal_joint(2, None, _sample_fem(rng, 4, 3, rigid=True), modes=[3, 1], interfaces=[("n1", 4, np.zeros(3))],
                  position=rng.normal(size=3), orientation=random_rotation(rng),
                  damping=("rayleigh damping", 0.1, 0.01), use_invariant_9=True)
    m.gravity([0.0, 0.0, -9.81])
    return m


def modal_stiffened_sample(model, rng):
    """A floating modal body with stress stiffening on every load case (record 19) and the
    invariants given by the file (records 14-18), one interface node, gravity."""
    m = model
    m.structural_node(1, "modal", position=rng.normal(size=3), orientation=random_rotation(rng),
                      velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
    random_nodes(m, rng, 1, kind="dynamic", start=2)
    fem = _sample_fem(rng, 3, 2, rigid=True)
    nm = fem.n_modes
    sym = lambda: (lambda A: A + A.T)(0.2 * rng.normal(size=(nm, nm)))          # noqa: E731
    fem.invariants = {"I3": 0.3 * rng.normal(size=(3, nm)), "I4": 0.3 * rng.normal(size=(3, nm)),
                      "I5": 0.1 * rng.normal(size=(nm, 3, nm)), "I8": 0.1 * rng.normal(size=(nm, 3, 3)),
                      "I9": 0.1 * rng.normal(size=(nm, nm, 3, 3))}
    fem.stiffening = {k: sym() for k in range(1, STIFFENING_CASES + 6 + 1)}
    m.modal_joint(1, 1, fem, interfaces=[("n1", 2, rng.normal(size=3))], origin=rng.normal(size=3))
    m.gravity([0.0, 0.0, -9.81])
    return m


def modal_frame_sample(model, rng):
    """The floating and the clamped modal bodies of modal_sample in a moving frame (rigid
    body kinematics with every motion)."""
    m = modal_sample(model, rng)
    m.rigid_body_kinematics = RigidBodyKinematics.constant(
        orientation=random_rotation(rng), angular_velocity=rng.normal(size=3),
        angular_acceleration=rng.normal(size=3), acceleration=rng.normal(size=3))
    return m


def modal_force_sample(model, rng):
    """Modal forces with resultants on the floating body and on the clamped one."""
    m = modal_sample(model, rng)
    m.modal_force(1, 1, [0.3, 1.2], resultants=rng.normal(size=(2, 6)))
    m.modal_force(2, 2, [0.5], modes=[1])
    return m


SAMPLES = {"modal joint": [modal_sample, modal_stiffened_sample, modal_frame_sample], "modal force": [modal_force_sample]}


# ---------------------------------------------------------------------- MBDyn deck card
def read_modal(reader, model, args, label, word):
    """`joint: <label>, modal, {<modal node> | clamped [, position, <X>] [, orientation, <R>]},
    <mode number> [, list, <mode>, ...] [, initial value, {mode, j, q, q̇ [, ...] | q, q̇ ...}],
    {<FEM node number> | from file} [, <damping>], "<FEM file>" [, [mass | damping | stiffness]
    threshold, <t>] [, create binary | use binary | update binary ...] [, echo, "<file>"
    [, precision, <n>]] [, use invariant 9] [, origin node, "<FEM label>" | origin position,
    <Vec3>], <interface nodes number> [, output, <flag>], {"<FEM label>", <node>, <offset>
    [, output, <flag>]} ... [, use invariant 9]` (input manual, "Modal" joint; MBDyn 1.7.3
    reads `use invariant 9` after the interface nodes)."""
    node = None
    position = orientation = None
    if args.is_keyword("clamped"):
        if args.is_keyword("position"):
            position = reader.read_vec3(args, "abs position")
        if args.is_keyword("orientation"):
            orientation = reader.read_orientation(args, "abs")
    else:
        w = args.peek()
        if args.peek_keyword() in ("null", "ground"):
            raise w.error(f"Modal({label}): a modal node label or 'clamped' expected (MBDyn's keyword for a "
                          "modal joint fixed to the ground is 'clamped')")
        info = reader.structural_node(args, "the modal node")
        if info.kind != "modal":
            raise w.error(f"Modal({label}): StructuralNode({info.label}) is {info.kind}, a modal node is required "
                          "(or 'clamped')")
        node = info.label
    w = args.peek()
    nmodes = args.integer("the number of modes")
    if nmodes <= 0:
        raise w.error(f"Modal({label}): illegal number of modes {nmodes}")
    modes = None
    if args.is_keyword("list"):
        modes = []
        for i in range(nmodes):
            w = args.peek()
            k = args.integer("a mode number")
            if k <= 0:
                raise w.error(f"Modal({label}): illegal mode number {k} for mode #{i + 1}")
            if k in modes:
                raise w.error(f"Modal({label}): mode {k} given twice")
            modes.append(k)
    selected = modes if modes is not None else list(range(1, nmodes + 1))
    initial = None
    if args.is_keyword("initial value"):
        q0, qd0 = np.zeros(nmodes), np.zeros(nmodes)
        if args.peek_keyword() == "mode":
            while args.is_keyword("mode"):
                w = args.peek()
                k = args.integer("a mode number")
                if k not in selected:
                    raise w.error(f"Modal({label}): mode {k} is not used by this joint")
                j = selected.index(k)
                q0[j], qd0[j] = args.real("the initial modal value"), args.real("the initial modal rate")
        else:
            for j in range(nmodes):
                q0[j], qd0[j] = args.real("the initial modal value"), args.real("the initial modal rate")
        initial = (q0, qd0)
    nfem = None
    if not args.is_keyword("from file"):
        w_nfem = args.peek()
        nfem = args.integer("the number of FEM nodes")
        if nfem <= 0:
            raise w_nfem.error(f"Modal({label}): illegal number of FEM nodes {nfem}")
    damping = ("damping from file",)
    kw = args.is_keyword("no damping", "damping from file", "rayleigh damping", "single factor damping",
                         "proportional damping", "diag damping")
    if kw == reader.normalize("no damping"):
        damping = ("no damping",)
    elif kw == reader.normalize("rayleigh damping"):
        damping = ("rayleigh damping", args.real("the mass damping coefficient"),
                   args.real("the stiffness damping coefficient"))
    elif kw in (reader.normalize("single factor damping"), reader.normalize("proportional damping")):
        damping = ("single factor damping", args.real("the damping factor"))
    elif kw == reader.normalize("diag damping"):
        ratios = np.zeros(nmodes)
        if args.is_keyword("all"):
            ratios[:] = [args.real("a damping factor") for _ in range(nmodes)]
        else:
            w = args.peek()
            nd = args.integer("the number of damped modes")
            if not 0 < nd <= nmodes:
                raise w.error(f"Modal({label}): illegal number of damped modes {nd} (1 to {nmodes})")
            for _ in range(nd):
                w = args.peek()
                k = args.integer("a damped mode index")
                if not 0 < k <= nmodes:
                    raise w.error(f"Modal({label}): damped mode index {k} out of range (1 to {nmodes})")
                ratios[k - 1] = args.real("a damping factor")
        damping = ("diag damping", ratios)
    fw = args.peek()
    fname = args.string("the FEM data file name")
    path = fname if os.path.isabs(fname) else os.path.join(fw.source.directory, fname)
    try:
        fem = read_fem_file(path)
    except ValueError as e:
        raise fw.error(f"Modal({label}): {e}") from None
    if nfem is not None and nfem != fem.n_nodes:
        raise w_nfem.error(f"Modal({label}): {nfem} FEM nodes given, the FEM file {fname} has {fem.n_nodes}")
    if max(selected) > fem.n_modes:
        raise w.error(f"Modal({label}): mode {max(selected)} is not in {fname} ({fem.n_modes} modes)")
    thresholds = [0.0, 0.0, 0.0]
    while True:
        kw = args.is_keyword("threshold", "mass threshold", "damping threshold", "stiffness threshold")
        if kw is None:
            break
        w = args.peek()
        t = args.real("a threshold")
        if t < 0:
            raise w.error(f"Modal({label}): negative threshold {t}")
        which = {reader.normalize("mass threshold"): [0], reader.normalize("damping threshold"): [1],
                 reader.normalize("stiffness threshold"): [2]}.get(kw, [0, 1, 2])
        for i in which:
            thresholds[i] = t
    while args.is_keyword("create binary", "use binary", "update binary"):
        pass                      # a binary cache of the text file in MBDyn: the text is read
    if args.is_keyword("echo"):
        args.string("the echo file name")
        if args.is_keyword("precision"):
            args.integer("the echo precision")
    use9 = bool(args.is_keyword("use invariant 9"))
    origin = None
    if args.is_keyword("origin node"):
        w = args.peek()
        v = reader.evaluate(args.take("the origin FEM node"))
        lab = v if isinstance(v, str) else str(reader.as_integer(w, v, "the origin FEM node"))
        if lab not in fem.labels:
            raise w.error(f"Modal({label}): origin node '{lab}' is not a FEM node of {fname}")
        origin = fem.x[fem.labels.index(lab)].copy()
    elif args.is_keyword("origin position"):
        origin = reader.read_plain_vec3(args)
    w = args.peek()
    ni = args.integer("the number of interface nodes")
    if ni < 0:
        raise w.error(f"Modal({label}): illegal number of interface nodes {ni}")
    all_out = args.boolean() if args.is_keyword("output") else False
    interfaces = []
    for _ in range(ni):
        w = args.peek()
        v = reader.evaluate(args.take("a FEM node label"))
        lab = v if isinstance(v, str) else str(reader.as_integer(w, v, "a FEM node label"))
        if lab not in fem.labels:
            raise w.error(f"Modal({label}): FEM node '{lab}' is not in {fname}")
        n, site = reader.node_site(args, "an interface node")
        off = reader.read_vec3(args, "rel position", site)
        if args.is_keyword("hinge", "orientation"):
            reader.read_orientation(args, "rel", site)       # read, unused (as MBDyn)
        out = args.boolean() if args.is_keyword("output") else all_out
        interfaces.append((lab, n.label, off, out or all_out))
    # MBDyn 1.7.3 reads `use invariant 9` here, after the interface nodes (the manual places
    # it before `origin node`): both places are accepted
    use9 = bool(args.is_keyword("use invariant 9")) or use9
    model.modal_joint(label, node, fem, modes=selected, interfaces=interfaces, position=position,
                      orientation=orientation, origin=origin, damping=damping, initial=initial,
                      use_invariant_9=use9, thresholds=tuple(thresholds))


def read_modal_force(reader, model, args, label):
    """`force: <label>, modal, <modal joint>, [list, <n>, <mode> ...,] <drive> [, resultant,
    <f>, <m>] ...` (input manual "Modal" force; MBDyn reads `resultant` only for a joint on a
    modal node)."""
    w = args.peek()
    joint = args.label("a modal joint label")
    spec = next((s for s in model.modal_joints if s.label == joint), None)
    if spec is None:
        raise w.error(f"ModalForce({label}): modal joint {joint} is not defined")
    modes = None
    if args.is_keyword("list"):
        w = args.peek()
        n = args.integer("the number of modes")
        if not 0 < n <= len(spec.modes):
            raise w.error(f"ModalForce({label}): illegal number of modes {n} (1 to {len(spec.modes)})")
        modes = []
        for _ in range(n):
            w = args.peek()
            k = args.integer("a mode number")
            if k not in spec.modes:
                raise w.error(f"ModalForce({label}): mode {k} is not active in Modal({joint})")
            if k in modes:
                raise w.error(f"ModalForce({label}): mode {k} given twice")
            modes.append(k)
    count = len(spec.modes) if modes is None else len(modes)
    drives, res = [], np.zeros((count, 6))
    for k in range(count):
        drives.append(reader.read_drive(args))
        if spec.node is not None and args.is_keyword("resultant"):
            res[k] = [args.real("a resultant component") for _ in range(6)]
    model.modal_force(label, joint, drives, modes=modes, resultants=res)
    model.modal_forces[-1].output = (reader.read_output_flag(args, "forces") if args.is_keyword("output")
                                     else "forces" in reader.default_output)


CARDS = {"modal": read_modal}
