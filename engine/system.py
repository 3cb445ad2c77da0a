"""System: the DOF layout of a Model, its state and its vectorized assembly.

Unknowns: node blocks first (x, g [, β, γ]), then each family's own unknowns (joint
multipliers).  Equation i is paired with unknown i.  `evaluate` returns f (the equation
values; the Newton right-hand side is -f), Σ|f_e| per row, and the iteration matrix
J = ∂f/∂ẏ + dCoef ∂f/∂y on Newton increments (G1, G8)."""
import numpy as np

from mbdae.engine.core.assembly import SparseAssembler, DIFFERENTIAL, ALGEBRAIC, DIMENSIONS
from mbdae.engine.core.nodes import StructuralNodes, Kinematics
from mbdae.engine.core import rotations as rot
from mbdae.engine.core.state import State, Context

IA_MODES = ("ia_position", "ia_velocity")


class System:
    def __init__(self, model):
        from mbdae.engine.model import build_families
        self.model = model
        self.nodes = StructuralNodes(model.nodes)
        self.families = build_families(model, self.nodes)
        kind, dim, labels, what = self.nodes.dof_info()
        kinds, dims, labs, whats = [kind], [dim], [labels], list(what)
        owners = [np.zeros(self.nodes.total, np.int64)]
        offset = self.nodes.total
        for k, fam in enumerate(self.families, start=1):
            if fam.n_internal:
                fam.set_offset(offset)
                kd, dm, lb, wt = fam.dof_info()
                kinds.append(kd)
                dims.append(dm)
                labs.append(lb)
                whats += wt
                owners.append(np.full(fam.n_internal, k, np.int64))
                offset += fam.n_internal
        self.n = offset
        self.kind = np.concatenate(kinds)
        self.is_alg = self.kind == ALGEBRAIC
        # Newton update weights (G1): ẏ += w_yp Δ, y += (dCoef w_yp + w_alg) Δ
        self.diff_weight = (~self.is_alg).astype(float)
        self.alg_weight = self.is_alg.astype(float)
        self.dim = np.concatenate(dims)
        self.row_label = np.concatenate(labs)
        self.row_what = whats
        self.row_owner = np.concatenate(owners)
        self.all_families = [self.nodes] + self.families
        # driven elements (elements/driven.py): a last family that masks inactive instances
        from mbdae.elements.driven import DrivenActivity
        driven = DrivenActivity.of(self)
        if driven is not None:
            self.families.append(driven)
            self.all_families.append(driven)
        rows_r, rows_j, cols_j = [], [], []
        self.res_len, self.jac_len = [], []
        for fam in self.all_families:
            p = fam.build_pattern()
            r = p.res_indices()
            jr, jc = p.jac_indices()
            rows_r.append(r)
            rows_j.append(jr)
            cols_j.append(jc)
            self.res_len.append(len(r))
            self.jac_len.append(len(jr))
        rr = np.concatenate(rows_r)
        self.res_rows = np.where(rr >= 0, rr, self.n)          # discarded entries → slot n
        # one buffer each for all residual and all Jacobian values; every block of every
        # family writes its values (broadcast to the block's shape) into its own view
        self._res_buffer = np.zeros(len(rr))
        self._jac_buffer = np.zeros(sum(self.jac_len))
        self._res_views, self._jac_views = [], []
        ro = jo = 0
        for fam in self.all_families:
            views = []
            for rows in fam.pattern.res:
                views.append(self._res_buffer[ro:ro + rows.size].reshape(rows.shape))
                ro += rows.size
            self._res_views.append(views)
            views = []
            for R, C in fam.pattern.jac:
                views.append(self._jac_buffer[jo:jo + R.size].reshape(R.shape))
                jo += R.size
            self._jac_views.append(views)
        self.assembler = SparseAssembler(self.n, np.concatenate(rows_j), np.concatenate(cols_j))
        self.jac_pattern_size = len(self.assembler.map)
        # model:: functions of string drives read the state this system evaluates (privdata.py)
        self.namespace = getattr(model, "namespace", None)
        if self.namespace is not None:
            self.namespace.attach(self)

    # ------------------------------------------------------------------ state
    def initial_state(self, t0):
        y = np.zeros(self.n)
        yp = np.zeros(self.n)
        R_ref = self.nodes.initial_state(y, yp)
        for fam in self.families:          # families with initial values (abstract nodes)
            if hasattr(fam, "initial_values"):
                fam.initial_values(y, yp)
        return State(t0, y, yp, R_ref)

    def kinematics(self, state, dcoef=0.0):
        return Kinematics(self.nodes, state.y, state.yp, state.R_ref, dcoef)

    def commit_rotations(self, state, kin=None):
        """R_ref ← R(g) R_ref, g ← 0, ġ ← ω (after a converged step or phase, G3).  Families
        with a `commit(system, state)` method store their own state first (incremental beams).
        `kin`: the kinematics of this very state when the caller has them (Newton's last
        evaluation), to save recomputing them."""
        for fam in self.families:
            if hasattr(fam, "commit"):
                fam.commit(self, state)
        if kin is None:
            kin = self.kinematics(state)
        state.R_ref = kin.R
        state.y[self.nodes.ig] = 0.0
        state.yp[self.nodes.ig] = kin.w

    def owner_text(self, row):
        fam = self.all_families[self.row_owner[row]]
        return f"{fam.name} {self.row_label[row]} ({self.row_what[row]}, {DIMENSIONS[self.dim[row]]})"

    # ------------------------------------------------------------------ assembly
    def evaluate(self, state, dcoef, mode="regular", want_jac=True, ia=None, want_abs=True):
        """(f, f̃, J): residual, Σ_e |f_e| per row (None unless want_abs; for relnorm and
        sepnorm) and the iteration matrix f/ẏ + dCoef f/y (None unless want_jac)."""
        kin = self.last_kinematics = self.kinematics(state, dcoef)
        ctx = Context(state.t, state.y, state.yp, kin, dcoef, mode, state.t_constraint)
        if ia is not None:
            ctx.ia_x, ctx.ia_v, ctx.ia_w = ia
        if self.namespace is not None:
            self.namespace.bind(ctx)
        for fam, res_views, jac_views in zip(self.all_families, self._res_views, self._jac_views):
            if mode in IA_MODES and fam is not self.nodes and not fam.in_initial_assembly:
                for view in res_views + (jac_views if want_jac else []):
                    view[...] = 0.0
                continue
            res, jac = fam.evaluate(ctx, want_jac)
            for view, values in zip(res_views, res, strict=True):
                view[...] = values
            if want_jac:
                for view, values in zip(jac_views, jac, strict=True):
                    view[...] = values
        rv = self._res_buffer
        f = np.bincount(self.res_rows, weights=rv, minlength=self.n + 1)[:self.n]
        fabs = np.bincount(self.res_rows, weights=np.abs(rv), minlength=self.n + 1)[:self.n] if want_abs else None
        J = self.assembler.matrix(self._jac_buffer) if want_jac else None
        return f, fabs, J

    def family(self, cls):
        for fam in self.families:
            if isinstance(fam, cls):
                return fam
        return None
