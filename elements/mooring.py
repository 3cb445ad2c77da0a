"""Mooring element families on structural nodes (issue 19), each vectorized over its
instances with one compiled call per evaluation (kernels in elements/mooring_kernel.py):

- `mooring matrix` (MBS4WEC eq. 11, τ_moor = -B_moor ν - G_moor η): a linear 6×6 stiffness
  K and damping C, global, about a body point p = x + R õ: η = [p - p0; θ] with θ the rotation
  vector of R R0ᵀ, ν = [ṗ; ω], τ = -C ν - K η + τ0 (τ0 a constant pretension force and
  moment) applied at p.  Also the linearized 6×6 "restoring matrix" (mooring + buoyancy)
  about a fixed point of the MCM paper's FAST comparison.
- `taut mooring` (the MCM example's straight axial springs, k = 6.81e5 N/m, 564 m): an axial
  spring-damper from a fairlead on the body to a fixed anchor, T = k(l - L0) + c l̇, k or EA/L0;
  tension only as an option (a slack line carries nothing).
- `catenary mooring`: quasi-static elastic catenary lines with seabed contact (frictionless or
  with the seabed friction coefficient of FAST/MAP; Jonkman 2007, NREL/TP-500-41958 §4.2),
  each line's fairlead tensions (H, V) solved by Newton inside the kernel, their Jacobian by
  the implicit function theorem.  A line that cannot reach its anchor stops the
  configuration with an error naming the element and the line (InvalidConfiguration during a
  run, ValueError at the initial configuration).

The loads act between a node and the ground (anchors, reference positions and matrices are
global): they are not objective and have no reaction on another node, so only the FD
Jacobian of the generated checks applies (elements/__init__.py)."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import kernel_jacobian_views
from mbdae.engine.core.state import InvalidConfiguration
from mbdae.elements.base import ElementFamily, one_node_pattern, vec, mat, random_rotation, random_nodes
from mbdae.elements.mooring_kernel import (matrix_equations, matrix_outputs, taut_equations, taut_outputs,
                                           catenary_equations, catenary_lines, OK, BELOW_SEABED, OUT_OF_REACH,
                                           NO_CONVERGENCE, ABOVE_ANCHOR)


# ---------------------------------------------------------------------- specs
@dataclass
class MooringMatrixSpec:
    label: int
    node: int
    K: np.ndarray                      # (6, 6) global stiffness on η
    C: np.ndarray                      # (6, 6) global damping on ν
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    reference_position: object = None      # None: the body point's initial position
    reference_orientation: object = None   # None: the node's initial orientation
    pretension: np.ndarray = field(default_factory=lambda: np.zeros(6))
    output: bool = True
    where: str = None                  # deck position (file:line) for error messages


@dataclass
class TautMooringSpec:
    label: int
    node: int
    anchor: np.ndarray
    stiffness: object = None           # k (N/m), or None when EA is given
    EA: object = None                  # k = EA / L0
    length: object = None              # L0; None: the initial fairlead-anchor distance
    damping: float = 0.0
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    tension_only: bool = False
    output: bool = True
    where: str = None


@dataclass
class CatenaryMooringSpec:
    label: int
    node: int
    fairleads: np.ndarray              # (n, 3) in the node frame
    anchors: np.ndarray                # (n, 3) global
    length: np.ndarray                 # (n,) unstretched lengths
    weight: np.ndarray                 # (n,) weight per length in water
    EA: np.ndarray                     # (n,) axial stiffness (inf: inextensible)
    friction: np.ndarray               # (n,) seabed friction coefficient C_B (0: frictionless)
    seabed: bool = True
    vertical: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    output: bool = True
    where: str = None


def _where(spec):
    return f" ({spec.where})" if spec.where else ""


def _mat6(value, what, label):
    if value is None:
        return np.zeros((6, 6))
    A = np.asarray(value, float)
    if A.shape == (6,):
        A = np.diag(A)
    if A.shape != (6, 6):
        raise ValueError(f"mooring matrix {label}: the {what} must be a 6×6 matrix (or its 6 diagonal entries), "
                         f"got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"mooring matrix {label}: the {what} has non-finite entries")
    return A


def _per_line(value, n, what, label, allow_inf=False):
    a = np.asarray(value, float)
    a = np.full(n, float(a)) if a.ndim == 0 else a.reshape(-1)
    if a.size != n:
        raise ValueError(f"catenary mooring {label}: {n} lines but {a.size} values of the {what}")
    if np.any(np.isnan(a)) or (not allow_inf and not np.all(np.isfinite(a))):
        raise ValueError(f"catenary mooring {label}: the {what} must be finite")
    return a


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def mooring_matrix(model, label, node, stiffness=None, damping=None, offset=None, reference_position=None,
                   reference_orientation=None, pretension=None, output=True, where=None):
    """Linear mooring (MBS4WEC eq. 11) or restoring matrix about the body point at `offset`
    (node frame): τ = -damping ν - stiffness η + pretension, 6×6 global matrices (or their 6
    diagonal entries), η = [p - p0; rotation vector of R R0ᵀ], ν = [ṗ; ω]; p0 and R0 default to
    the initial point and node orientation; pretension: a constant force and moment at p."""
    K = _mat6(stiffness, "stiffness", label)
    C = _mat6(damping, "damping", label)
    model.mooring_matrices.append(MooringMatrixSpec(
        label, node, K, C, vec(offset), None if reference_position is None else vec(reference_position),
        None if reference_orientation is None else mat(reference_orientation), vec(pretension, 6), output, where))
    return label


def taut_mooring(model, label, node, anchor, stiffness=None, EA=None, length=None, damping=0.0, offset=None,
                 tension_only=False, output=True, where=None):
    """Axial spring-damper from the fairlead at `offset` (node frame) to the fixed `anchor`
    (global): T = k(l - L0) + damping l̇ pulls the fairlead towards the anchor; k = `stiffness`
    or EA/L0; L0 = `length` (None: the initial distance); tension_only: no load when l < L0
    or T < 0 (a slack line), else the spring also pushes (MCM's springs)."""
    if (stiffness is None) == (EA is None):
        raise ValueError(f"taut mooring {label}: give either the stiffness k or EA")
    k = stiffness if stiffness is not None else EA
    if not np.isfinite(k) or k <= 0:
        raise ValueError(f"taut mooring {label}: the {'stiffness' if EA is None else 'EA'} must be positive")
    if length is not None and not length > 0:
        raise ValueError(f"taut mooring {label}: the unstretched length must be positive")
    if not np.isfinite(damping) or damping < 0:
        raise ValueError(f"taut mooring {label}: the damping must be non-negative")
    opt = lambda v: None if v is None else float(v)        # noqa: E731
    model.taut_moorings.append(TautMooringSpec(label, node, vec(anchor), opt(stiffness), opt(EA), opt(length),
                                               float(damping), vec(offset), bool(tension_only), output, where))
    return label


def catenary_mooring(model, label, node, fairleads, anchors, length, weight, EA, friction=0.0, seabed=True,
                     vertical=None, output=True, where=None):
    """Quasi-static elastic catenary lines from fairleads (n×3, node frame) to fixed anchors
    (n×3, global); per line (or one value for all): unstretched `length`, `weight` per length
    in water, `EA` (inf: inextensible), seabed `friction` coefficient C_B.  `seabed`: the
    lines may lie on the horizontal plane through their anchor (else fully suspended only);
    `vertical`: the upward direction (default global z)."""
    F = np.asarray(fairleads, float).reshape(-1, 3)
    A = np.asarray(anchors, float).reshape(-1, 3)
    n = len(F)
    if n == 0 or len(A) != n:
        raise ValueError(f"catenary mooring {label}: {n} fairleads and {len(A)} anchors (one of each per line)")
    L = _per_line(length, n, "unstretched length", label)
    w = _per_line(weight, n, "weight per length", label)
    ea = _per_line(EA, n, "EA", label, allow_inf=True)
    cb = _per_line(friction, n, "seabed friction coefficient", label)
    for what, a in (("unstretched length", L), ("weight per length", w), ("EA", ea)):
        if np.any(a <= 0):
            k = int(np.flatnonzero(a <= 0)[0])
            raise ValueError(f"catenary mooring {label}, line {k + 1}: the {what} must be positive")
    if np.any(cb < 0):
        raise ValueError(f"catenary mooring {label}: the seabed friction coefficient must be non-negative")
    up = np.array([0.0, 0.0, 1.0]) if vertical is None else vec(vertical)
    norm = np.linalg.norm(up)
    if not norm > 0:
        raise ValueError(f"catenary mooring {label}: the vertical direction is null")
    model.catenary_moorings.append(CatenaryMooringSpec(label, node, F, A, L, w, ea, cb, bool(seabed), up / norm,
                                                       output, where))
    return label


MODEL_FIELDS = {"mooring_matrices": list, "taut_moorings": list, "catenary_moorings": list}
MODEL_METHODS = (mooring_matrix, taut_mooring, catenary_mooring)


def build(model, nodes, built):
    families = []
    if model.mooring_matrices:
        families.append(MooringMatrices(model.mooring_matrices, nodes))
    if model.taut_moorings:
        families.append(TautMoorings(model.taut_moorings, nodes))
    if model.catenary_moorings:
        families.append(CatenaryMoorings(model.catenary_moorings, nodes))
    return families


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def mooring_matrix_sample(model, rng):
    m = model
    random_nodes(m, rng, 2)
    m.mooring_matrix(1, 1, stiffness=rng.normal(size=(6, 6)), damping=rng.normal(size=(6, 6)),
                     offset=rng.normal(size=3), reference_position=rng.normal(size=3),
                     reference_orientation=random_rotation(rng), pretension=rng.normal(size=6))
    m.mooring_matrix(2, 2, stiffness=np.abs(rng.normal(size=6)), offset=rng.normal(size=3))
    m.mooring_matrix(3, 1, damping=rng.normal(size=(6, 6)))
    return m


def taut_mooring_sample(model, rng):
    m = model
    random_nodes(m, rng, 2)
    m.taut_mooring(1, 1, [8.0, 1.0, -6.0], stiffness=40.0, damping=3.0, offset=rng.normal(size=3))
    m.taut_mooring(2, 2, [-7.0, 3.0, -5.0], EA=500.0, length=6.0, damping=2.0, offset=rng.normal(size=3),
                   tension_only=True)                                  # taut
    m.taut_mooring(3, 2, [0.0, -9.0, -4.0], stiffness=30.0, length=20.0, tension_only=True)   # slack
    m.taut_mooring(4, 1, [1.0, 2.0, -3.0], stiffness=25.0, length=9.0)                # pushes
    return m


def catenary_mooring_sample(model, rng):
    """Lines on the seabed, suspended, slack, with friction, inextensible and about a tilted
    vertical, from random node poses (the fairleads stay within a few units of the origin)."""
    m = model
    random_nodes(m, rng, 2)
    f = 0.5 * rng.normal(size=(3, 3))
    m.catenary_mooring(1, 1, f, [[30.0, 0.0, -20.0], [-25.0, 5.0, -20.0], [0.0, 25.0, -10.0]],
                       length=[40.0, 33.0, 45.0], weight=2.0, EA=[1e4, 5e3, 1e4], friction=[0.05, 0.0, 0.3])
    m.catenary_mooring(2, 2, 0.5 * rng.normal(size=(2, 3)), [[5.0, -30.0, -20.0], [20.0, 20.0, -15.0]],
                       length=[45.0, 38.0], weight=[1.5, 1.0], EA=[2e4, np.inf], friction=[0.5, 0.0])
    m.catenary_mooring(3, 1, 0.5 * rng.normal(size=(1, 3)), [[-20.0, -20.0, -18.0]], length=32.0, weight=1.0,
                       EA=1e3, vertical=[0.1, -0.05, 1.0])
    m.catenary_mooring(4, 2, 0.5 * rng.normal(size=(1, 3)), [[22.0, -3.0, -30.0]], length=45.0, weight=1.0,
                       EA=1e4, seabed=False)
    return m


SAMPLES = {"mooring matrix": [mooring_matrix_sample], "taut mooring": [taut_mooring_sample],
           "catenary mooring": [catenary_mooring_sample]}


# ---------------------------------------------------------------------- families
class _NodeLoads(ElementFamily):
    """A load on one structural node per instance: its 6 rows (x, g) and their 6×6 Jacobian."""

    def _nodes(self):
        self.n = self.node_index([s.node for s in self.specs])
        for s, i in zip(self.specs, self.n):
            if i < 0:
                raise ValueError(f"{self.name} {s.label}{_where(s)}: a structural node is required")

    def build_pattern(self):
        self.pattern = one_node_pattern(self.nodes, self.n)
        return self.pattern

    def _selected(self):
        return np.array([s.output for s in self.specs], bool)


class MooringMatrices(_NodeLoads):
    name = "mooring matrix"
    output_file = "mrm"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        self._nodes()
        self.o = np.array([s.offset for s in S], float).reshape(-1, 3)
        self.K = np.array([s.K for s in S], float).reshape(-1, 6, 6)
        self.C = np.array([s.C for s in S], float).reshape(-1, 6, 6)
        self.P0 = np.array([s.pretension for s in S], float).reshape(-1, 6)
        x0, R0 = nodes.x0[self.n], nodes.R0[self.n]
        p_init = x0 + rot.matvec(R0, self.o)
        self.p0 = np.array([p_init[e] if s.reference_position is None else s.reference_position
                            for e, s in enumerate(S)], float).reshape(-1, 3)
        self.R0 = np.array([R0[e] if s.reference_orientation is None else s.reference_orientation
                            for e, s in enumerate(S)], float).reshape(-1, 3, 3)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (matrix_equations) over all mooring matrices."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        matrix_equations(float(kin.dcoef), self.n, self.o, self.p0, self.R0, self.K, self.C, self.P0,
                         kin.x, kin.v, kin.R, kin.w, kin.G, kin.Tw, want_jac, res_views[0], jac[0])

    def wrench(self, ctx):
        """(F, M, η) over all instances ((n, 3), (n, 3), (n, 6)): the wrench on the body at its
        point and the displacement η, by the kernel's formula."""
        out = np.empty((self.ne, 12))
        kin = ctx.kin
        matrix_outputs(self.n, self.o, self.p0, self.R0, self.K, self.C, self.P0, kin.x, kin.v, kin.R, kin.w, out)
        return out[:, 0:3], out[:, 3:6], out[:, 6:12]

    def output_groups(self, ctx):
        """.mrm rows: the force and the moment on the body at its point (global), η (the
        point's displacement, the rotation vector of R R0ᵀ)."""
        sel = self._selected()
        if not sel.any():
            return []
        F, M, eta = self.wrench(ctx)
        return [(self.labels[sel], np.concatenate([F, M, eta], axis=1)[sel])]


class TautMoorings(_NodeLoads):
    name = "taut mooring"
    output_file = "mrt"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        self._nodes()
        self.o = np.array([s.offset for s in S], float).reshape(-1, 3)
        self.anchor = np.array([s.anchor for s in S], float).reshape(-1, 3)
        x0, R0 = nodes.x0[self.n], nodes.R0[self.n]
        lini = np.linalg.norm(self.anchor - x0 - rot.matvec(R0, self.o), axis=1)
        self.L0 = np.array([lini[e] if s.length is None else s.length for e, s in enumerate(S)], float)
        for s, L0 in zip(S, self.L0):
            if not L0 > 0:
                raise ValueError(f"taut mooring {s.label}{_where(s)}: the unstretched length is zero "
                                 f"(the fairlead is at the anchor)")
        self.k = np.array([s.stiffness if s.EA is None else s.EA / L0 for s, L0 in zip(S, self.L0)], float)
        self.c = np.array([s.damping for s in S], float)
        self.tension_only = np.array([s.tension_only for s in S], bool)

    def _arrays(self):
        return self.n, self.o, self.anchor, self.k, self.L0, self.c, self.tension_only

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (taut_equations) over all taut lines."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        taut_equations(float(kin.dcoef), *self._arrays(), kin.x, kin.v, kin.R, kin.w, kin.G, kin.Tw, want_jac,
                       res_views[0], jac[0])

    def tension(self, ctx):
        """(T, l, l̇, F, p) over all lines: tension, length and its rate, the force on the body
        (global) and the fairlead position."""
        out = np.empty((self.ne, 9))
        kin = ctx.kin
        taut_outputs(*self._arrays(), kin.x, kin.v, kin.R, kin.w, out)
        return out[:, 0], out[:, 1], out[:, 2], out[:, 3:6], out[:, 6:9]

    def output_groups(self, ctx):
        """.mrt rows: tension, length, length rate, force on the body (global), fairlead."""
        sel = self._selected()
        if not sel.any():
            return []
        T, l, ldot, F, p = self.tension(ctx)
        return [(self.labels[sel], np.column_stack([T, l, ldot, F, p])[sel])]


LINE_STATES = ("suspended", "on the seabed", "slack")


class CatenaryMoorings(_NodeLoads):
    name = "catenary mooring"
    output_file = "mrc"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        self._nodes()
        counts = np.array([len(s.fairleads) for s in S], np.int64)
        self.first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.owner = np.repeat(np.arange(self.ne), counts)
        self.line_node = self.n[self.owner]

        def cat(name):
            return np.concatenate([np.asarray(getattr(s, name), float).reshape(len(s.fairleads), -1) for s in S])
        self.fair = cat("fairleads")
        self.anchor = cat("anchors")
        self.L = cat("length").ravel()
        self.w = cat("weight").ravel()
        self.c = 1.0 / cat("EA").ravel()                # compliance; 0: inextensible
        self.CB = cat("friction").ravel()
        self.seabed = np.repeat(np.array([s.seabed for s in S], bool), counts)
        self.up = np.repeat(np.array([s.vertical for s in S], float).reshape(-1, 3), counts, axis=0)
        self.status = np.zeros(len(self.L), np.int64)
        # every line must reach its anchor at the initial configuration
        rows, status = self.line_rows(nodes.x0, nodes.R0)
        bad = np.flatnonzero(status != OK)
        if bad.size:
            raise ValueError(self.fault_text(bad[0], status[bad[0]], nodes.x0, nodes.R0))

    def _line_arrays(self):
        return self.fair, self.anchor, self.L, self.w, self.c, self.CB, self.seabed, self.up

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (catenary_equations) over all lines; a line without solution
        raises InvalidConfiguration naming the element and the line."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        catenary_equations(float(kin.dcoef), self.n, self.first, *self._line_arrays(), kin.x, kin.v, kin.R, kin.w,
                           kin.G, kin.Tw, want_jac, res_views[0], jac[0], self.status)
        if self.status.any():
            k = int(np.flatnonzero(self.status)[0])
            raise InvalidConfiguration(self.fault_text(k, self.status[k], kin.x, kin.R, ctx.t))

    def line_rows(self, x, R):
        """((nl, 14) rows of catenary_lines, (nl,) status) at node positions x, orientations R."""
        out = np.zeros((len(self.L), 14))
        status = np.zeros(len(self.L), np.int64)
        catenary_lines(self.line_node, *self._line_arrays(), x, R, out, status)
        return out, status

    def fault_text(self, k, status, x, R, t=None):
        """The message of line k's failure: element, deck position, line, why, where."""
        e = int(self.owner[k])
        s = self.specs[e]
        i = self.line_node[k]
        p = x[i] + R[i] @ self.fair[k]
        d = p - self.anchor[k]
        zF = float(d @ self.up[k])
        xF = float(np.linalg.norm(d - zF * self.up[k]))
        dist = float(np.linalg.norm(d))
        if status == BELOW_SEABED:
            why = (f"its fairlead is not above the seabed through its anchor (height {zF:.6g}); "
                   f"use 'no seabed' for a line hanging between two points")
        elif status == OUT_OF_REACH:
            why = (f"it cannot reach its anchor: the fairlead-anchor distance {dist:.10g} is not shorter than "
                   f"the inextensible line's length {self.L[k]:.10g}")
        elif status == ABOVE_ANCHOR:
            why = "its fairlead is directly above its anchor and the line cannot lie slack on the seabed"
        elif status == NO_CONVERGENCE:
            why = (f"it cannot reach its anchor: no catenary solution for the fairlead {xF:.6g} horizontally "
                   f"and {zF:.6g} vertically from the anchor (length {self.L[k]:.6g})")
        else:
            why = f"failure code {status}"
        when = f" at t = {t:.10g}" if t is not None else " at the initial configuration"
        return f"catenary mooring {s.label}{_where(s)}, line {k - self.first[e] + 1}: {why}{when}"

    def line_outputs(self, ctx):
        """(element labels, line numbers (1-based), rows (nl, 14)) at ctx: state (0 suspended,
        1 on the seabed, 2 slack), fairlead and anchor tensions, H, V, H_A, V_A, the unstretched
        length on the seabed, the fairlead position and the force on the body (global)."""
        rows, status = self.line_rows(ctx.kin.x, ctx.kin.R)
        if status.any():
            k = int(np.flatnonzero(status)[0])
            raise InvalidConfiguration(self.fault_text(k, status[k], ctx.kin.x, ctx.kin.R, ctx.t))
        line = np.arange(len(self.L)) - self.first[self.owner] + 1
        return self.labels[self.owner], line, rows

    def output_groups(self, ctx):
        """.mrc rows, one per element (as MBDyn's files: one row per label and step): the label,
        then for each of its lines in order the 14 columns of line_outputs (state, fairlead
        and anchor tensions, H, V, H_A, V_A, L_B, fairlead position, force on the body); one
        group per number of lines."""
        sel = self._selected()
        if not sel.any():
            return []
        labels, line, rows = self.line_outputs(ctx)
        counts = np.diff(self.first)
        groups = []
        for n in np.unique(counts[sel]):
            elems = np.flatnonzero(sel & (counts == n))
            idx = self.first[elems][:, None] + np.arange(n)[None, :]
            groups.append((self.labels[elems], rows[idx].reshape(len(elems), 14 * n)))
        return groups


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards (mbdae's own: MBDyn has no mooring element), joint types
# like MBDyn's rod and viscous body, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) after `joint: <label>, <type>` (counted in
# `joints: N` of the control data).  Their options end the card (`output` included); an
# unknown keyword is rejected by name at its position.  The reader and the Model are used
# duck-typed (no engine.io import here).

def _options(reader, args, card, allowed):
    """Yield (keyword, word) for the card's trailing options; an unknown word is an error."""
    names = {reader.normalize(a): a for a in allowed + ("output",)}
    while args.more():
        w = args.peek()
        kw = w.keyword
        if kw not in names:
            listed = ", ".join(f"'{a}'" for a in names.values())
            raise w.error(f"{card}: unknown keyword (expected one of {listed})")
        args.i += 1
        yield kw, w


def _where_text(word):
    return f"{word.source.name}:{word.where()[0]}"


def read_mooring_matrix(reader, model, args, label, word):
    """`joint: <label>, mooring matrix, <node> [, position, <offset>], stiffness, <Mat6x6>
    [, damping, <Mat6x6>] [, reference position, <Vec3>] [, reference orientation,
    <orientation>] [, pretension, <Vec6>] [, output, <flag>]` (stiffness or damping required;
    global matrices; MBS4WEC eq. 11)."""
    n, site = reader.node_site(args)
    f = reader.offset(args, site, required=False)
    found = {}
    output = "joints" in reader.default_output
    for kw, w in _options(reader, args, "mooring matrix", ("stiffness", "damping", "reference position",
                                                             "reference orientation", "pretension")):
        if kw in found:
            raise w.error("mooring matrix: keyword given twice")
        if kw in ("stiffness", "damping"):
            found[kw] = reader.read_mat6(args)
        elif kw == "referenceposition":
            found[kw] = reader.read_vec3(args, "abs position")
        elif kw == "referenceorientation":
            found[kw] = reader.read_orientation(args, "abs")
        elif kw == "pretension":
            found[kw] = reader.read_vec6(args)
        else:
            output = reader.read_output_flag(args, "joints")
    if "stiffness" not in found and "damping" not in found:
        raise word.error("mooring matrix: 'stiffness' or 'damping' is required")
    model.mooring_matrix(label, n.label, found.get("stiffness"), found.get("damping"), f,
                         found.get("referenceposition"), found.get("referenceorientation"), found.get("pretension"),
                         output=output, where=_where_text(word))


def read_taut_mooring(reader, model, args, label, word):
    """`joint: <label>, taut mooring, <node>, [position,] <fairlead>, anchor, <Vec3>,
    {stiffness, <k> | EA, <EA>} [, length, {<L0> | from nodes}] [, damping, <c>]
    [, tension only] [, output, <flag>]` (L0 default: the initial distance)."""
    n, site = reader.node_site(args)
    f = reader.offset(args, site)
    args.expect_keyword("anchor")
    anchor = reader.read_vec3(args, "abs position")
    found = {}
    output = "joints" in reader.default_output
    for kw, w in _options(reader, args, "taut mooring", ("stiffness", "EA", "length", "damping", "tension only")):
        if kw in found or (kw in ("stiffness", "ea") and ({"stiffness", "ea"} & set(found))):
            raise w.error("taut mooring: keyword given twice (or both stiffness and EA)")
        if kw == "tensiononly":
            found[kw] = True
        elif kw == "length":
            found[kw] = None if args.is_keyword("from nodes") else args.real("the unstretched length")
            if found[kw] is not None and found[kw] <= 0:
                raise w.error("taut mooring: the unstretched length must be positive")
        elif kw == "output":
            output = reader.read_output_flag(args, "joints")
        else:
            vw = args.peek()
            value = args.real(f"the {w.text.strip()}")
            if value < 0 or (value == 0 and kw != "damping"):
                sign = "non-negative" if kw == "damping" else "positive"
                raise vw.error(f"taut mooring: the {w.text.strip()} must be {sign}")
            found[kw] = value
    if "stiffness" not in found and "ea" not in found:
        raise word.error("taut mooring: 'stiffness' or 'EA' is required")
    model.taut_mooring(label, n.label, anchor, found.get("stiffness"), found.get("ea"), found.get("length"),
                       found.get("damping", 0.0), f, found.get("tensiononly", False), output=output,
                       where=_where_text(word))


def read_catenary_mooring(reader, model, args, label, word):
    """`joint: <label>, catenary mooring, <node>, lines, <n>, <line> × n [, seabed friction,
    <C_B>] [, no seabed] [, vertical, <Vec3>] [, output, <flag>]` with
    <line> = `[position,] <fairlead>, anchor, <Vec3>, length, <L>, weight, <w>, EA,
    {<EA> | inextensible}` (fairlead in the node frame, anchor global, w the weight per
    length in water)."""
    n, site = reader.node_site(args)
    args.expect_keyword("lines")
    cw = args.peek()
    count = args.integer("the number of lines")
    if count < 1:
        raise cw.error("catenary mooring: at least one line is required")
    F, A, L, W, EA = [], [], [], [], []
    for k in range(count):
        F.append(reader.offset(args, site))
        args.expect_keyword("anchor")
        A.append(reader.read_vec3(args, "abs position"))
        for what, out in (("length", L), ("weight", W)):
            args.expect_keyword(what)
            vw = args.peek()
            value = args.real(f"the line's {what}")
            if value <= 0:
                raise vw.error(f"catenary mooring, line {k + 1}: the {what} must be positive")
            out.append(value)
        args.expect_keyword("EA")
        vw = args.peek()
        if args.is_keyword("inextensible"):
            EA.append(np.inf)
        else:
            value = args.real("the line's EA (or 'inextensible')")
            if value <= 0:
                raise vw.error(f"catenary mooring, line {k + 1}: EA must be positive")
            EA.append(value)
    friction, seabed, vertical = 0.0, True, None
    output = "joints" in reader.default_output
    seen = set()
    for kw, w in _options(reader, args, "catenary mooring", ("seabed friction", "no seabed", "vertical")):
        if kw in seen:
            raise w.error("catenary mooring: keyword given twice")
        seen.add(kw)
        if kw == "seabedfriction":
            vw = args.peek()
            friction = args.real("the seabed friction coefficient")
            if friction < 0:
                raise vw.error("catenary mooring: the seabed friction coefficient must be non-negative")
        elif kw == "noseabed":
            seabed = False
        elif kw == "vertical":
            vw = args.peek()
            vertical = reader.read_vec3(args, "abs direction")
            if not np.linalg.norm(vertical) > 0:
                raise vw.error("catenary mooring: the vertical direction is null")
        else:
            output = reader.read_output_flag(args, "joints")
    model.catenary_mooring(label, n.label, F, A, L, W, EA, friction, seabed, vertical, output=output,
                           where=_where_text(word))


CARDS = {
    "mooring matrix": read_mooring_matrix, "taut mooring": read_taut_mooring,
    "catenary mooring": read_catenary_mooring,
}
