"""System: the DOF layout of a Model, its state and its vectorized assembly.

Unknowns: node blocks first (x, g [, β, γ]), then each family's own unknowns (joint
multipliers).  Equation i is paired with unknown i.  `evaluate` returns f (the equation
values; the Newton right-hand side is -f), Σ|f_e| per row, and the iteration matrix
J = ∂f/∂ẏ + dCoef ∂f/∂y on Newton increments (G1, G8).

The families come from one loop over elements/registry.py (`build_families`); each writes
its residual and Jacobian blocks into its views of the System's two preallocated buffers
(`ElementFamily.evaluate(ctx, res_views, jac_views)`).  The System never changes during a
run: the families' changing arrays live in `State.families[family.state_key]`, filled by
`initial_state` and replaced by `commit` after each converged step or phase."""
import numpy as np

from mbdae.engine.core.assembly import SparseAssembler, ALGEBRAIC, DIMENSIONS, DIM
from mbdae.engine.core.nodes import StructuralNodes, Kinematics
from mbdae.engine.core.state import State, Context, InvalidConfiguration
from mbdae.engine.core.drives import Drive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.mathparser import MathError
from mbdae.engine.core.compiled import scatter, history_row, newton_update, rebase_rotation_slots
from mbdae.elements.registry import build_families

IA_MODES = ("ia_position", "ia_velocity")


class System:
    def __init__(self, model):
        self.model = model
        self.nodes = StructuralNodes(model.nodes, getattr(model, "rigid_body_kinematics", None))
        self.families = build_families(model, self.nodes)
        self._set_state_keys()
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
        self.alg_index = np.flatnonzero(self.is_alg)
        # Newton update weights (G1): ẏ += w_yp Δ, y += (dCoef w_yp + w_alg) Δ
        self.diff_weight = (~self.is_alg).astype(float)
        self.alg_weight = self.is_alg.astype(float)
        self.dim = np.concatenate(dims)
        self.row_label = np.concatenate(labs)
        self.row_what = whats
        self.row_owner = np.concatenate(owners)
        self.all_families = [self.nodes] + self.families
        for fam in self.families:          # families that need the row layout (driven elements)
            fam.bind(self)
        self.stateful = [fam for fam in self.families if fam.has_state]
        self._build_buffers()
        # model:: functions of string drives read the state this system evaluates (privdata.py)
        self.namespace = getattr(model, "namespace", None)
        if self.namespace is not None:
            self.namespace.attach(self)

    def _set_state_keys(self):
        """Each family's key in State.families: its name, numbered when several families
        share one (beams of both interpolations)."""
        names = [fam.name for fam in self.families]
        for k, fam in enumerate(self.families):
            fam.state_key = fam.name if names.count(fam.name) == 1 else f"{fam.name}#{names[:k].count(fam.name)}"

    def _build_buffers(self):
        """The fixed pattern, one residual and one Jacobian buffer for all families, and each
        family's views on them (one per block, shaped as the block)."""
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
        # the buffer entries that reach the system (a pattern's discarded entries, row -1 or
        # masked, stay in the buffers so that blocks keep their shapes, but are not scattered)
        self.res_src = np.flatnonzero(rr >= 0)
        self.res_rows = rr[self.res_src]
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
        self.jac_src = np.flatnonzero(self.assembler.map < self.assembler.nnz)
        self.jac_dst = self.assembler.map[self.jac_src]
        # families with a step-start action (driven elements' activation hints)
        self.step_starters = [fam for fam in self.families if getattr(fam, "has_step_start", False)]
        # families whose internal arrays refer to the nodes' rotation reference (the beams'
        # incremental form): re-based with it (rebase_rotations)
        self.rebasing = [fam for fam in self.stateful if hasattr(fam, "rebase")]
        # rows the System divides by dCoef in a regular step (MBDyn's φ/dCoef): position-level
        # constraint rows; their Jacobian does not depend on dCoef (solvers/coupled.py)
        self.scaled_rows = self.is_alg & np.isin(self.dim, [DIM["position constraint"],
                                                            DIM["rotation constraint"]])

    # ------------------------------------------------------------------ linear solver
    def momentum_blocks(self):
        """(force rows, momentum unknowns), each (m, 3), of the dynamic displacement nodes whose
        momentum columns hold entries only in their own force and momentum-definition rows
        (solvers/linear.py CondensedBlocksSolver eliminates them); (m = 0) when none."""
        nodes = self.nodes
        sel = np.flatnonzero(nodes.dynamic & ~nodes.rotating)
        F, B = nodes.ix[sel], nodes.ib[sel]
        pattern = self.assembler.matrix_from_data(np.ones(self.assembler.nnz))[:, B.ravel()].tocoo()
        node = pattern.col // 3                  # the node whose momentum column holds the entry
        own_row = (pattern.row[:, None] == F[node]).any(axis=1) | (pattern.row[:, None] == B[node]).any(axis=1)
        keep = np.bincount(node[~own_row], minlength=len(sel)) == 0
        return F[keep], B[keep]

    def condensed_blocks(self):
        """([(m, k) unknown indices of m blocks of k], what) that the linear back end
        eliminates before factorizing (solvers/linear.py CondensedBlocksSolver): the momenta of
        the dynamic displacement nodes (momentum_blocks); ([], "") when none.  (The EAS
        parameters of shells and membranes stay in the factorized matrix: KLU's ordering
        eliminates them first anyway, and condensing them beforehand measured no faster,
        benchmarks/RESULTS.md "Shells".)"""
        F, B = self.momentum_blocks()
        if not len(B):
            return [], ""
        return [B], f"momenta of {len(B)} displacement nodes"

    def linear_pattern(self):
        """(unknowns, entries, continuum unknowns) of the matrix the linear back end
        factorizes: J, or its Schur complement without the condensed blocks
        (condensed_blocks), whose pattern is J's on the kept unknowns; continuum unknowns: the
        kept position unknowns of the nodes of 3-D continuum elements
        (`family.continuum_nodes()`, the solids), which make the pattern a 3-D finite-element
        one (solvers/linear.py finite_element_pattern)."""
        groups, _ = self.condensed_blocks()
        a = self.assembler
        kept = np.ones(self.n, bool)
        for g in groups:
            kept[g.ravel()] = False
        nodes = np.unique(np.concatenate([np.asarray(f.continuum_nodes(), np.int64).ravel()
                                          for f in self.families] + [np.zeros(0, np.int64)]))
        continuum = int(kept[self.nodes.ix[nodes]].sum()) if len(nodes) else 0
        if not groups:
            return self.n, a.nnz, continuum
        cols = np.repeat(np.arange(self.n), np.diff(a.indptr))
        return int(kept.sum()), int((kept[cols] & kept[a.indices]).sum()), continuum

    # ------------------------------------------------------------------ state
    def initial_state(self, t0):
        y = np.zeros(self.n)
        yp = np.zeros(self.n)
        R_ref = self.nodes.initial_state(y, yp)
        for fam in self.families:          # families with initial values (abstract nodes)
            if hasattr(fam, "initial_values"):
                fam.initial_values(y, yp)
        families = {fam.state_key: fam.initial_state() for fam in self.stateful}
        return State(t0, y, yp, R_ref, families=families)

    def kinematics(self, state, dcoef=0.0):
        return Kinematics(self.nodes, state.y, state.yp, state.R_ref, dcoef, state.w_ref)

    def context(self, state, dcoef=0.0, mode="regular", kin=None):
        """The Context the families see at `state` (its kinematics, unless given)."""
        if kin is None:
            kin = self.kinematics(state, dcoef)
        return Context(state.t, state.y, state.yp, kin, mode, state.t_constraint, state.families)

    def begin_step(self, state):
        """Before the Newton iterations of a step, on its predicted state: the families with
        a step-start action (the activation hints of driven elements) replace their arrays
        in the state's family dict (a new dict: the committed one stays as it was)."""
        if self.step_starters:
            ctx = self.context(state)
            for fam in self.step_starters:
                state.families = fam.begin_step(ctx, state.families)
        return state

    def commit(self, state, kin=None, phase="regular"):
        """After a converged step or phase: every family's internal arrays are replaced by
        the ones its `commit` computes from this state (in a new dict: states that shared the
        old one keep it, so a kept state rolls back), then R_ref ← R(g) R_ref, g ← 0, ġ ← ω
        (G3).  `kin`: the kinematics of this very state when the caller has them (Newton's
        last evaluation), to save recomputing them.  `phase`: "regular" for the steps;
        the initial assembly and the derivatives phase commit as themselves (the activity of
        driven elements stays as at input until the first step, as MBDyn's)."""
        if kin is None:
            kin = self.kinematics(state)
        if self.stateful:
            ctx = Context(state.t, state.y, state.yp, kin, phase, None, state.families)
            families = dict(state.families)
            for fam in self.stateful:
                families[fam.state_key] = fam.commit(ctx, fam.state_arrays(ctx))
            state.families = families
        state.R_ref = kin.R
        state.w_ref = None
        self.nodes.reset_rotations(state.y, state.yp, kin.w)

    def rebase_rotations(self, state):
        """A predicted step state re-based on its prediction, as MBDyn's nodes do (its
        StructNode::AfterPredict): R_ref ← R(g) R_ref, ω_ref ← G(g) ġ, g ← 0, ġ ← 0, so that
        within the step R = R(g) R_ref and ω = G(g) ġ + R(g) ω_ref with g = dCoef ġ about the
        prediction (the corrector of the multistep methods leaves y - dCoef ẏ unchanged).  The
        families whose arrays refer to that reference (the beams' incremental form, MBDyn's
        Beam::AfterPredict) take them at the predicted configuration."""
        nodes = self.nodes
        if len(nodes.rot) == 0:
            return state
        if self.rebasing:
            kin = self.kinematics(state)
            ctx = Context(state.t, state.y, state.yp, kin, "regular", None, state.families)
            families = dict(state.families)
            for fam in self.rebasing:
                families[fam.state_key] = fam.rebase(ctx, fam.state_arrays(ctx))
            state.families = families
        R, w = np.empty_like(state.R_ref), np.empty((nodes.n, 3))
        w_ref = nodes.zero_vectors if state.w_ref is None else state.w_ref
        rebase_rotation_slots(state.y, state.yp, state.R_ref, w_ref, nodes.gstart, R, w)
        state.R_ref, state.w_ref = R, w
        return state

    def update(self, state, dx, dcoef):
        """Newton update (G1): differential unknowns ẏ += Δ, y += dCoef Δ; algebraic y += Δ."""
        newton_update(state.y, state.yp, dx, float(dcoef), self.is_alg)

    def history_vectors(self, points):
        """(ys, ẏs), arrays (K, n), of committed history points (newest first: t, y, ẏ, R,
        ω), the rotation slots re-expressed about the newest orientation R_0 (G3):
        g_k = cayley⁻¹(R_k R_0ᵀ), ġ_k = G(g_k)⁻¹ ω_k (one compiled call per point)."""
        K = len(points)
        ys, yps = np.empty((K, self.n)), np.empty((K, self.n))
        R_ref = points[0].R
        gstart = self.nodes.gstart
        for k, P in enumerate(points):
            history_row(P.y, P.yp, P.R, P.w, R_ref, gstart, k == 0, ys[k], yps[k])
        return ys, yps

    def node_accelerations(self, yp, kin):
        """(a, ω̇), arrays (n, 3), of every structural node at a state with rates ẏ: from the
        momentum rates through the rigid bodies' inertia (eqs. 8.6-8.9; NaN for a node that
        carries none), and directly from ẏ for the modal nodes (velocity form)."""
        nodes = self.nodes
        a, wd = np.full((nodes.n, 3), np.nan), np.full((nodes.n, 3), np.nan)
        bodies = self.family_with("node_accelerations")
        if bodies is not None:
            betad, gammad = np.zeros((nodes.n, 3)), np.zeros((nodes.n, 3))
            d, dr = nodes.inertial, nodes.inertial_rot
            betad[d] = yp[nodes.ib[d]]
            gammad[dr] = yp[nodes.ic[dr]]
            a, wd = bodies.node_accelerations(kin, betad, gammad)
        for fam in self.families:      # nodes whose momenta carry more than the bodies' (added mass)
            if hasattr(fam, "correct_node_accelerations"):
                fam.correct_node_accelerations(kin, yp, a, wd)
        vf = nodes.velocity_form
        a[vf] = yp[nodes.ib[vf]]
        wd[vf] = yp[nodes.ic[vf]]
        return a, wd

    def anywhere(self, flag):
        """Whether `flag` holds on any process (a distributed system's decisions must be the
        same on every process, engine/distributed.py); here `flag` itself."""
        return bool(flag)

    def family_with(self, capability):
        """The first family offering the method `capability` (e.g. the joints' `reactions`,
        the rigid bodies' `node_momenta`), or None: the drivers find families by what they
        do, without importing element classes."""
        for fam in self.families:
            if hasattr(fam, capability):
                return fam
        return None

    def owner_text(self, row):
        fam = self.all_families[self.row_owner[row]]
        return f"{fam.name} {self.row_label[row]} ({self.row_what[row]}, {DIMENSIONS[self.dim[row]]})"

    def element_text(self, fam, label):
        """`family label (file:line)`: an element or node by its System family and label, with
        the deck line that defined it when the model came from a deck."""
        where = self.model.origin(fam.name, label)
        return f"{fam.name} {label}" + (f" ({where})" if where else "")

    def drive_fault(self, fam, t, error):
        """The text of a MathError raised while `fam` was evaluated at time t: the instances
        whose drives fail at t, with the drive and the deck line (else the family)."""
        found = [f"{self.element_text(fam, label)}: drive {drive!r} at t = {t:.10g}: {problem}"
                 for label, drive, problem in faulty_drives(fam, t)]
        return "; ".join(found) if found else f"{fam.name} elements at t = {t:.10g}: {error}"

    def nonfinite_sources(self, t, limit=5):
        """Lines naming what put non-finite values into the last evaluated residual: per family,
        the instances whose drives are not finite (or fail) at t, else the instances whose
        blocks hold them (blocks with one row per instance), else the family."""
        lines = []
        for fam, views in zip(self.all_families, self._res_views):
            bad_views = [v for v in views if not np.isfinite(v).all()]
            if not bad_views:
                continue
            drives = faulty_drives(fam, t)
            if drives:
                lines += [f"{self.element_text(fam, label)}: drive {drive!r} at t = {t:.10g}: {problem}"
                          for label, drive, problem in drives[:limit]]
                continue
            instances = set()
            for v in bad_views:
                if v.ndim >= 1 and v.shape[0] == len(getattr(fam, "labels", ())) > 0:
                    instances.update(np.flatnonzero(~np.isfinite(v.reshape(v.shape[0], -1)).all(axis=1)).tolist())
            if instances:
                names = [self.element_text(fam, fam.labels[i]) for i in sorted(instances)[:limit]]
                more = f" and {len(instances) - limit} more" if len(instances) > limit else ""
                lines.append(f"non-finite contributions from {', '.join(names)}{more}")
            else:
                lines.append(f"non-finite contributions from the {fam.name} family")
        return lines

    # ------------------------------------------------------------------ assembly
    def evaluate(self, state, dcoef, mode="regular", want_jac=True, ia=None, want_abs=True):
        """(f, f̃, J): residual, Σ_e |f_e| per row (None unless want_abs; for relnorm and
        sepnorm) and the iteration matrix f/ẏ + dCoef f/y (None unless want_jac)."""
        kin = self.last_kinematics = self.kinematics(state, dcoef)
        ctx = Context(state.t, state.y, state.yp, kin, mode, state.t_constraint, state.families)
        if ia is not None:
            ctx.ia_x, ctx.ia_v, ctx.ia_w = ia
        if self.namespace is not None:
            self.namespace.bind(ctx)
        try:
            for fam, res_views, jac_views in zip(self.all_families, self._res_views, self._jac_views):
                if mode in IA_MODES and fam is not self.nodes and not fam.in_initial_assembly:
                    for view in res_views + (jac_views if want_jac else []):
                        view[...] = 0.0
                    continue
                fam.evaluate(ctx, res_views, jac_views if want_jac else None)
        except MathError as e:         # a string drive outside its domain: name the element
            raise InvalidConfiguration(self.drive_fault(fam, state.t, e)) from None
        f, fabs, data = scatter(self.res_src, self.res_rows, self._res_buffer, self.n, want_abs, self.jac_src,
                                self.jac_dst, self._jac_buffer, self.assembler.nnz, want_jac)
        J = self.assembler.matrix_from_data(data) if want_jac else None
        return f, (fabs if want_abs else None), J

    def family(self, cls):
        for fam in self.families:
            if isinstance(fam, cls):
                return fam
        return None


def spec_drives(spec):
    """The drives of an element spec (its fields that are drives, template drives' terms, or
    lists of them)."""
    found = []
    values = list(vars(spec).values()) if hasattr(spec, "__dict__") else []
    while values:
        v = values.pop()
        if isinstance(v, Drive):
            found.append(v)
        elif isinstance(v, VectorDrive):
            found += [d for _, d in v.terms]
        elif isinstance(v, (list, tuple)):
            values += [x for x in v if isinstance(x, (Drive, VectorDrive, list, tuple))]
    return found


def faulty_drives(fam, t):
    """[(label, drive, what)] of the family's instances whose drives raise a MathError or are
    not finite at time t (looked for after a failure only: one Python call per drive)."""
    out = []
    for spec in getattr(fam, "specs", ()):
        for drive in spec_drives(spec):
            try:
                value = drive.value(t)
            except MathError as e:
                out.append((spec.label, drive, str(e)))
                continue
            except Exception:          # noqa: BLE001 - a drive reading the state: not judged here
                continue
            if not np.all(np.isfinite(value)):
                out.append((spec.label, drive, f"value {value}"))
    return out
