"""Structural nodes (manual §8.1): static (x, g) and dynamic (x, g, β, γ) nodes, and the
displacement-only nodes of the solid elements (theory manual §12.0.6): static displacement
(x) and dynamic displacement (x, β) nodes.  A displacement node has no rotation unknowns:
its orientation stays the identity, ω = 0, and the rotation rows and columns other
families write for it fall on index -1, which the assembly discards.

Rotation unknowns are incremental Gibbs-Rodrigues parameters g about a reference
orientation R_ref committed after each converged step (G3): R = R(g) R_ref with R_ref
fixed during the step, so ω = G(g) ġ exactly (at g = 0, ġ = ω).  The family also carries the "automatic structural" inertia
terms of dynamic nodes: force row β̇, moment row γ̇ + ẋ×β (eq. 8.3), and the β, γ
parts of the momentum definition rows (eq. 8.1); rigid bodies add the rest.  A `modal`
node (MBDyn's ModalNode, input manual "Modal" joint) has the same unknowns in MBDyn's
velocity form: v, ω in place of β, γ, and the modal joint (elements/modal.py) writes all its
inertia rows and the definitions v = ẋ, ω = ω(g, ġ); this family writes none of them.  With `rigid
body kinematics` (engine/core/rbk.py) the model is written in a moving frame and these terms
gain the frame's Coriolis part, 2 ω̄₀×β on the force row and ω̄₀×γ on the moment row
(eq. 8.42); the momenta stay the relative ones.
"""
from dataclasses import dataclass
from functools import cached_property
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern, DIFFERENTIAL, DIM, kernel_jacobian_views
from mbdae.engine.core.compiled import node_kinematics, kernel, vcross, vload, skew
from mbdae.engine.core.state import IA_POSITION, IA_VELOCITY

I3 = np.eye(3)


@dataclass
class NodeSpec:
    label: int
    kind: str                  # "static" | "dynamic" | "modal" | "static displacement" | "dynamic displacement"
    x: np.ndarray
    R: np.ndarray
    v: np.ndarray
    w: np.ndarray
    output: bool = True
    orientation_description: str = "euler123"
    assembly_stiffness: tuple = None   # (position, velocity) initial-assembly weights


@dataclass
class DummyNodeSpec:
    """Offset dummy node (manual §8.1.3, eq. 8.27): output only."""
    label: int
    base: int
    offset: np.ndarray
    R: np.ndarray
    output: bool = True
    orientation_description: str = "euler123"


NODE_KINDS = ("static", "dynamic", "modal", "static displacement", "dynamic displacement")


class Kinematics:
    """Node kinematics at the current iterate, shared by all element families: x, ẋ, g, ġ
    (n, 3), R = R(g) R_ref, G(g), ω = G ġ + R(g) ω_ref and the Newton-increment maps
    T_θ = dCoef G and T_ω = ∂ω/∂Δ (G8), computed by one compiled call.  `w_ref`: the
    reference angular velocities of a step re-based on its prediction (None: zero)."""

    def __init__(self, nodes, y, yp, R_ref, dcoef, w_ref=None):
        n = nodes.n
        self.x, self.v, self.w = np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3))
        self.g, self.gd = np.empty((n, 3)), np.empty((n, 3))
        self.R, self.G, self.Tw = np.empty((n, 3, 3)), np.empty((n, 3, 3)), np.empty((n, 3, 3))
        self.dcoef = dcoef
        if w_ref is None:
            w_ref = nodes.zero_vectors
        node_kinematics(y, yp, R_ref, w_ref, nodes.start, nodes.gstart, float(dcoef), self.x, self.v, self.R,
                        self.w, self.g, self.gd, self.G, self.Tw)

    @property
    def Tth(self):
        """The map from the Newton increment Δġ to the rotation perturbation θ."""
        return self.dcoef * self.G


class StructuralNodes:
    """All structural nodes of a model, as arrays."""
    name = "structural node"

    def __init__(self, specs, frame=None):
        self.specs = list(specs)
        self.frame = frame             # engine/core/rbk.RigidBodyKinematics of the model, or None
        n = len(self.specs)
        self.n = n
        self.labels = np.array([s.label for s in self.specs], dtype=np.int64)
        if len(set(self.labels.tolist())) != n:
            raise ValueError("duplicate structural node labels")
        self.index_of = {int(l): i for i, l in enumerate(self.labels)}
        kinds = self.kinds = [s.kind for s in self.specs]
        for s in self.specs:
            if s.kind not in NODE_KINDS:
                raise ValueError(f"structural node {s.label}: kind must be one of {NODE_KINDS}, not {s.kind!r}")
        self.rotating = np.array([not k.endswith("displacement") for k in kinds], bool)
        # owns momenta; a modal node is a dynamic node whose inertia the modal joint gives
        self.dynamic = np.array([k.startswith("dynamic") or k == "modal" for k in kinds], bool)
        self.x0 = np.array([s.x for s in self.specs], float).reshape(n, 3)
        self.R0 = np.array([s.R if r else I3 for s, r in zip(self.specs, self.rotating)], float).reshape(n, 3, 3)
        self.v0 = np.array([s.v for s in self.specs], float).reshape(n, 3)
        self.w0 = np.array([s.w if r else np.zeros(3) for s, r in zip(self.specs, self.rotating)],
                           float).reshape(n, 3)
        # unknowns per node: x (3), g (3, rotating), β (3, dynamic), γ (3, dynamic and rotating)
        self.ndof = 3 * (1 + self.rotating.astype(np.int64)) * (1 + self.dynamic.astype(np.int64))
        self.start = np.concatenate([[0], np.cumsum(self.ndof)[:-1]]).astype(np.int64)
        self.total = int(self.ndof.sum())
        self.ix = self.start[:, None] + np.arange(3)
        self.gstart = np.where(self.rotating, self.start + 3, -1).astype(np.int64)
        self.ig = np.where(self.rotating[:, None], self.ix + 3, -1)
        self.ib = np.where(self.dynamic[:, None], self.ix + np.where(self.rotating, 6, 3)[:, None], -1)
        self.ic = np.where((self.dynamic & self.rotating)[:, None], self.ix + 9, -1)
        self.rot = np.flatnonzero(self.rotating)
        self.ig_rot = self.ig[self.rot]
        self.dyn = np.flatnonzero(self.dynamic)
        self.dyn_rot = np.flatnonzero(self.dynamic & self.rotating)
        # the nodes whose inertia rows this family writes (not the modal nodes, velocity form)
        self.inertial = np.flatnonzero(self.dynamic & np.array([k != "modal" for k in kinds], bool))
        self.inertial_rot = np.intersect1d(self.inertial, self.dyn_rot)
        self.velocity_form = np.flatnonzero(np.array([k == "modal" for k in kinds], bool))
        self._ib_dyn, self._ic_dyn = self.ib[self.inertial], self.ic[self.inertial]
        self._all_dynamic = bool(self.dynamic.all())
        self.wx = np.ones(n)
        self.wv = np.ones(n)
        for i, s in enumerate(self.specs):
            if s.assembly_stiffness is not None:
                self.wx[i], self.wv[i] = s.assembly_stiffness

    def index(self, label):
        try:
            return self.index_of[int(label)]
        except KeyError:
            raise KeyError(f"structural node {label} is not defined") from None

    @cached_property
    def zero_vectors(self):
        """(n, 3) zeros: the reference angular velocities of a committed state."""
        return np.zeros((self.n, 3))

    def omega_of(self, yp):
        """Angular velocities (n, 3) from ẏ at a committed state (g = 0, so ω = ġ; zero for
        displacement nodes)."""
        w = np.zeros((self.n, 3))
        w[self.rot] = yp[self.ig_rot]
        return w

    def reset_rotations(self, y, yp, w):
        """A committed state's rotation slots (G3): g = 0 and ġ = ω (w: (n, 3))."""
        y[self.ig_rot] = 0.0
        yp[self.ig_rot] = w[self.rot]

    # ------------------------------------------------------------------ layout
    def dof_info(self):
        kind = np.full(self.total, DIFFERENTIAL)
        dim = np.empty(self.total, np.int64)
        dim[self.ix] = DIM["force"]
        dim[self.ig_rot] = DIM["moment"]
        d, dr, vf = self.dyn, self.dyn_rot, self.velocity_form
        dim[self.ib[d]] = DIM["momentum"]
        dim[self.ic[dr]] = DIM["angular momentum"]
        dim[self.ib[vf]] = DIM["velocity constraint"]
        dim[self.ic[vf]] = DIM["angular velocity constraint"]
        labels = np.repeat(self.labels, self.ndof)
        names = np.empty(self.total, dtype=object)
        for rows, word in ((self.ix, "force"), (self.ig_rot, "moment"), (self.ib[d], "momentum"),
                           (self.ic[dr], "angular momentum"), (self.ib[vf], "velocity"),
                           (self.ic[vf], "angular velocity")):
            names[rows] = np.array([f"{word} x", f"{word} y", f"{word} z"], dtype=object)
        return kind, dim, labels, list(names)

    def initial_state(self, y, yp):
        y[self.ix] = self.x0
        yp[self.ix] = self.v0
        self.reset_rotations(y, yp, self.w0)
        return self.R0.copy()

    # ------------------------------------------------------------------ pattern
    def build_pattern(self):
        p = Pattern()
        d = self.inertial
        ix, ig, ib, ic = self.ix, self.ig, self.ib[d], self.ic[d]
        p.add_res(ix)
        p.add_res(ig)
        p.add_res(ib)
        p.add_res(ic)
        p.add_jac(ix, ix)            # 0 assembly weights
        p.add_jac(ig, ig)            # 1
        p.add_jac(ib, ib)            # 2 momentum definition
        p.add_jac(ic, ic)            # 3
        p.add_jac(ix[d], ib)         # 4 force row: β̇
        p.add_jac(ig[d], ic)         # 5 moment row: γ̇
        p.add_jac(ig[d], ix[d])      # 6 moment row: ẋ×β wrt ẋ
        p.add_jac(ig[d], ib)         # 7 moment row: ẋ×β wrt β
        self.pattern = p
        return p

    def evaluate(self, ctx, res_views, jac_views):
        """Write the node equations' residual blocks into the views `res_views` and, unless
        `jac_views` is None, their Jacobian blocks into `jac_views` (the element family
        protocol): one compiled call."""
        kin, mode = ctx.kin, ctx.mode_code
        ia_x = ia_v = ia_w = self._no_ia
        if mode == IA_POSITION:
            ia_x = np.asarray(ctx.ia_x, float)
        elif mode == IA_VELOCITY:
            ia_v, ia_w = np.asarray(ctx.ia_v, float), np.asarray(ctx.ia_w, float)
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        w0 = self._no_frame if self.frame is None else self.frame.inertial_terms(ctx.t)[0]
        node_equations(mode, float(kin.dcoef), self.inertial, self._ib_dyn, self._ic_dyn, ctx.y, ctx.yp,
                       kin.x, kin.v, kin.w, kin.g, kin.Tw, ia_x, ia_v, ia_w, self.wx, self.wv, w0, want_jac,
                       *res_views, *jac)

    @cached_property
    def _no_frame(self):
        """ω̄₀ = 0: the model is written in the inertial frame."""
        return np.zeros(3)

    @cached_property
    def _no_ia(self):
        """Zeros in place of the initial-assembly targets outside the initial assembly."""
        return np.zeros((self.n, 3))

    # ------------------------------------------------------------------ output helpers
    def momenta_rows(self):
        return self.ib[self.dyn], self.ic[self.dyn]


@kernel
def node_equations(mode, dcoef, dyn, ib, ic, y, yp, x, v, w, g, Tw, ia_x, ia_v, ia_w, wx, wv, w0, want_jac,
                   r_x, r_g, r_b, r_c, j_xx, j_gg, j_bb, j_cc, j_xb, j_gc, j_gx, j_gb):
    """The node equations.  Regular steps and the derivatives phase (eqs. 8.1, 8.3): force
    row β̇ + 2 ω̄₀×β, moment row γ̇ + ẋ×β + ω̄₀×γ (ω̄₀ the moving frame's angular velocity,
    eq. 8.42; zero in the inertial frame), momentum definitions β, γ (the bodies add the rest).
    Initial assembly (§6.1): weighted rows x - x_in, g (positions) or ẋ - v_in, ω - ω_in
    (velocities), and identity rows on the momenta, which are not its unknowns."""
    n = r_x.shape[0]
    assembly = mode == IA_POSITION or mode == IA_VELOCITY
    w0v = (w0[0], w0[1], w0[2])
    for i in range(n):
        for k in range(3):
            if mode == IA_POSITION:
                r_x[i, k] = wx[i] * (x[i, k] - ia_x[i, k])
                r_g[i, k] = wx[i] * g[i, k]
            elif mode == IA_VELOCITY:
                r_x[i, k] = wv[i] * (v[i, k] - ia_v[i, k])
                r_g[i, k] = wv[i] * (w[i, k] - ia_w[i, k])
            else:
                r_x[i, k] = 0.0
                r_g[i, k] = 0.0
    if want_jac:
        j_xx[:] = 0.0
        j_gg[:] = 0.0
        j_bb[:] = 0.0
        j_cc[:] = 0.0
        j_xb[:] = 0.0
        j_gc[:] = 0.0
        j_gx[:] = 0.0
        j_gb[:] = 0.0
        if mode == IA_POSITION:
            for i in range(n):
                for k in range(3):
                    j_xx[i, k, k] = wx[i]
                    j_gg[i, k, k] = wx[i]
        elif mode == IA_VELOCITY:
            for i in range(n):
                for k in range(3):
                    j_xx[i, k, k] = wv[i]
                    for m in range(3):
                        j_gg[i, k, m] = wv[i] * Tw[i, k, m]
    for a in range(len(dyn)):
        i = dyn[a]
        b0, c0 = ib[a, 0], ic[a, 0]
        rotating = c0 >= 0           # displacement nodes: no γ, no moment row (discarded)
        for k in range(3):
            if mode == IA_VELOCITY:
                r_b[a, k] = yp[b0 + k]
                r_c[a, k] = yp[c0 + k] if rotating else 0.0
            else:
                r_b[a, k] = y[b0 + k]
                r_c[a, k] = y[c0 + k] if rotating else 0.0
        if not assembly:
            # force row β̇ + 2 ω̄₀×β, moment row γ̇ + ẋ×β + ω̄₀×γ
            beta = (y[b0], y[b0 + 1], y[b0 + 2])
            vxb = vcross(vload(v, i), beta)
            wxb = vcross(w0v, beta)
            wxc = vcross(w0v, (y[c0], y[c0 + 1], y[c0 + 2])) if rotating else (0.0, 0.0, 0.0)
            for k in range(3):
                r_x[i, k] = yp[b0 + k] + 2.0 * wxb[k]
                r_g[i, k] = (yp[c0 + k] if rotating else 0.0) + vxb[k] + wxc[k]
        if not want_jac:
            continue
        diag = 1.0 if assembly else dcoef
        for k in range(3):
            j_bb[a, k, k] = diag
            j_cc[a, k, k] = diag
        if assembly:
            continue
        # β̇ + 2 ω̄₀×β on Δβ: I + 2 dCoef ω̄₀×; γ̇ + ω̄₀×γ on Δγ: I + dCoef ω̄₀×
        W0 = skew(w0v)
        for k in range(3):
            for m in range(3):
                j_xb[a, k, m] = (1.0 if k == m else 0.0) + 2.0 * dcoef * W0[k][m]
                j_gc[a, k, m] = (1.0 if k == m else 0.0) + dcoef * W0[k][m]
        # ẋ×β: -β× on Δẋ, dCoef ẋ× on Δβ
        for p in range(3):
            q, r = (p + 1) % 3, (p + 2) % 3
            j_gx[a, p, q] = y[b0 + r]
            j_gx[a, p, r] = -y[b0 + q]
            j_gb[a, p, q] = -dcoef * v[i, r]
            j_gb[a, p, r] = dcoef * v[i, q]
