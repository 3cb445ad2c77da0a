"""Structural nodes (manual §8.1): static (x, g) and dynamic (x, g, β, γ) nodes.

Rotation unknowns are incremental Gibbs-Rodrigues parameters g about a reference
orientation R_ref committed after each converged step (G3): R = R(g) R_ref with R_ref
fixed during the step, so ω = G(g) ġ exactly (at g = 0, ġ = ω).  The family also carries the "automatic structural" inertia
terms of dynamic nodes: force row β̇, moment row γ̇ + ẋ×β (eq. 8.3), and the β, γ
parts of the momentum definition rows (eq. 8.1); rigid bodies add the rest.
"""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern, DIFFERENTIAL, DIM

I3 = np.eye(3)


@dataclass
class NodeSpec:
    label: int
    kind: str                  # "static" | "dynamic"
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


class Kinematics:
    """Node kinematics at the current iterate, shared by all element families."""

    def __init__(self, nodes, y, yp, R_ref, dcoef):
        g = y[nodes.ig]
        gd = yp[nodes.ig]
        Rg, G = rot.cayley_R_G(g)
        self.x = y[nodes.ix]
        self.v = yp[nodes.ix]
        self.R = Rg @ R_ref
        self.w = rot.matvec(G, gd)
        self.g = g
        self.gd = gd
        self.G = G
        self.dcoef = dcoef

    # maps from the Newton increment Δġ to the rotation perturbation θ and to δω, built on
    # first use (a residual-only evaluation does not need them)
    @property
    def Tth(self):
        if not hasattr(self, "_Tth"):
            self._Tth = self.dcoef * self.G
        return self._Tth

    @property
    def Tw(self):
        if not hasattr(self, "_Tw"):
            self._Tw = self.G + self.dcoef * rot.dGg_dg(self.g, self.gd)
        return self._Tw


class StructuralNodes:
    """All structural nodes of a model, as arrays."""
    name = "structural node"

    def __init__(self, specs):
        self.specs = list(specs)
        n = len(self.specs)
        self.n = n
        self.labels = np.array([s.label for s in self.specs], dtype=np.int64)
        if len(set(self.labels.tolist())) != n:
            raise ValueError("duplicate structural node labels")
        self.index_of = {int(l): i for i, l in enumerate(self.labels)}
        self.dynamic = np.array([s.kind == "dynamic" for s in self.specs], bool)
        self.x0 = np.array([s.x for s in self.specs], float).reshape(n, 3)
        self.R0 = np.array([s.R for s in self.specs], float).reshape(n, 3, 3)
        self.v0 = np.array([s.v for s in self.specs], float).reshape(n, 3)
        self.w0 = np.array([s.w for s in self.specs], float).reshape(n, 3)
        self.ndof = np.where(self.dynamic, 12, 6)
        self.start = np.concatenate([[0], np.cumsum(self.ndof)[:-1]]).astype(np.int64)
        self.total = int(self.ndof.sum())
        self.ix = self.start[:, None] + np.arange(3)
        self.ig = self.ix + 3
        self.ib = np.where(self.dynamic[:, None], self.ix + 6, -1)
        self.ic = np.where(self.dynamic[:, None], self.ix + 9, -1)
        self.dyn = np.flatnonzero(self.dynamic)
        self._ib_dyn, self._ic_dyn = self.ib[self.dyn], self.ic[self.dyn]
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

    # ------------------------------------------------------------------ layout
    def dof_info(self):
        kind = np.full(self.total, DIFFERENTIAL)
        dim = np.empty(self.total, np.int64)
        dim[self.ix] = DIM["force"]
        dim[self.ig] = DIM["moment"]
        d = self.dyn
        dim[self.ib[d]] = DIM["momentum"]
        dim[self.ic[d]] = DIM["angular momentum"]
        labels = np.repeat(self.labels, self.ndof)
        names = np.empty(self.total, dtype=object)
        for rows, word in ((self.ix, "force"), (self.ig, "moment"), (self.ib[d], "momentum"),
                           (self.ic[d], "angular momentum")):
            names[rows] = np.array([f"{word} x", f"{word} y", f"{word} z"], dtype=object)
        return kind, dim, labels, list(names)

    def initial_state(self, y, yp):
        y[self.ix] = self.x0
        yp[self.ix] = self.v0
        y[self.ig] = 0.0
        yp[self.ig] = self.w0
        return self.R0.copy()

    # ------------------------------------------------------------------ pattern
    def build_pattern(self):
        p = Pattern()
        d = self.dyn
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
        protocol)."""
        res, jac = self._blocks(ctx, jac_views is not None)
        for view, values in zip(res_views, res, strict=True):
            view[...] = values
        if jac_views is not None:
            for view, values in zip(jac_views, jac, strict=True):
                view[...] = values

    def _blocks(self, ctx, want_jac):
        """Residual and Jacobian of the node equations for the current phase."""
        kin, y, yp, mode = ctx.kin, ctx.y, ctx.yp, ctx.mode
        n, d = self.n, self.dyn
        nd = len(d)
        ib, ic = self._ib_dyn, self._ic_dyn
        beta, gamma = y[ib], y[ic]
        if mode not in ("ia_position", "ia_velocity"):
            # regular steps and the derivatives phase: force row β̇, moment row γ̇ + ẋ×β and
            # the β, γ parts of the momentum definitions (eqs. 8.1, 8.3)
            betad, gammad = yp[ib], yp[ic]
            vd = kin.v if self._all_dynamic else kin.v[d]
            if self._all_dynamic:
                res = [betad, gammad + rot.cross(vd, beta), beta, gamma]
            else:
                r0, r1 = np.zeros((n, 3)), np.zeros((n, 3))
                r0[d] = betad
                r1[d] = gammad + rot.cross(vd, beta)
                res = [r0, r1, beta, gamma]
            if not want_jac:
                return res, None
            dc = ctx.dcoef
            dcI = dc * I3
            return res, [0.0, 0.0, dcI, dcI, I3, I3, -rot.skew(beta), dc * rot.skew(vd)]
        zeros3 = np.zeros((n, 3))
        res = [zeros3, zeros3.copy(), np.zeros((nd, 3)), np.zeros((nd, 3))]
        jac = [0.0] * 8
        Ib = np.broadcast_to(I3, (nd, 3, 3))
        if mode == "ia_position":
            # momenta are not unknowns of the assembly: identity rows keep the matrix regular
            res[0] = self.wx[:, None] * (kin.x - ctx.ia_x)
            res[1] = self.wx[:, None] * kin.g
            res[2], res[3] = beta, gamma
            if want_jac:
                jac[0] = self.wx[:, None, None] * I3
                jac[1] = self.wx[:, None, None] * I3
                jac[2] = Ib
                jac[3] = Ib
        elif mode == "ia_velocity":
            res[0] = self.wv[:, None] * (kin.v - ctx.ia_v)
            res[1] = self.wv[:, None] * (kin.w - ctx.ia_w)
            res[2], res[3] = yp[ib], yp[ic]
            if want_jac:
                jac[0] = self.wv[:, None, None] * I3
                jac[1] = self.wv[:, None, None] * kin.Tw
                jac[2] = Ib
                jac[3] = Ib
        return res, (jac if want_jac else None)

    # ------------------------------------------------------------------ output helpers
    def momenta_rows(self):
        return self.ib[self.dyn], self.ic[self.dyn]
