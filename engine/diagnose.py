"""Diagnosis of a singular or ill-conditioned iteration matrix (issue 18): which equations
are redundant, which nodes carry no inertia, which directions nothing constrains.

The iteration matrix J = ∂f/∂ẏ + dCoef ∂f/∂y is equilibrated (rows and columns scaled by
their largest entries, a few Ruiz passes) and split into the connected components of its
graph; each component is analysed densely with a rank-revealing QR factorization with
column pivoting (LAPACK geqp3 through scipy.linalg.qr):

* redundant equations: the algebraic rows of the elements (joint constraint rows and the
  like) form C = J[rows, :]; a pivoted QR of Cᵀ ranks them, the rows it pivots last with a
  negligible diagonal are the dependent ones, and R₁₁⁻¹R₁₂ expresses each as a combination
  of the independent rows, which names the joints it repeats (two hinges on the same nodes)
  or the loop it closes (a 3-D four-bar of revolute hinges);
* nodes without inertia and free directions: the right null space of J (pivoted QR of J,
  N = P[-R₁₁⁻¹R₁₂; I]) restricted to the node unknowns; per node, the translations and
  rotations it spans, and whether the node has any mass or rotational inertia in J.

Rows and unknowns are named through the System (owner family, label, what), and by the deck
line of the card that defined them when the model came from a deck (Model.origins).

Cost: each component is first factorized sparsely (SuperLU, partial pivoting); one whose
pivots stay above RTOL has full rank and costs no more than that.  Only a component that
fails this screen is factorized densely, O(k³) for k unknowns (about 1.5 s at k = 1500, 10 s
at 3000 on this 2-core machine); a component larger than `max_dense` unknowns is then only
checked for redundant equations (when its constraint rows are at most `max_dense`), else
skipped with a note."""
from dataclasses import dataclass, field
import numpy as np
import scipy.sparse as sp

from mbdae.engine.core.assembly import ALGEBRAIC
from mbdae.engine.system import System

RTOL = 1e-9             # a pivot below RTOL × the largest one (equilibrated matrix) is zero
ILL = 1e-7              # ... below ILL: the matrix is called ill-conditioned
MAX_DENSE = 3000
AXES = "xyz"


@dataclass
class Redundancy:
    """Equations (`rows`: what each constrains) of one element that depend on those of
    `depends_on` ([(family, label, type)]); `repeats`: each is ± one equation of another."""
    family: str
    label: int
    type: str
    origin: str
    rows: list
    depends_on: list
    depends_origin: list
    repeats: bool
    indices: list = field(default_factory=list)     # the rows' equation indices

    def text(self):
        one = len(self.rows) == 1
        verb = ("repeats" if one else "repeat") if self.repeats else ("depends on" if one else "depend on")
        others = _element_list(self.depends_on, self.depends_origin)
        return (f"{_element(self.family, self.label, self.type, self.origin)}: {', '.join(self.rows)} "
                f"{verb} {others}")


@dataclass
class FreeNode:
    """A node in the null space of J: the translations and rotations (unit vectors, global
    frame) nothing determines, and what inertia the node carries."""
    label: int
    kind: str
    origin: str
    translations: list
    rotations: list
    mass: bool
    rotational_inertia: bool

    def text(self):
        free = []
        if self.translations:
            free.append("translation " + _directions(self.translations, "along"))
        if self.rotations:
            free.append("rotation " + _directions(self.rotations, "about"))
        if self.kind.startswith("static"):
            inertia = "a static node, no inertia"
        elif not self.mass and not self.rotational_inertia:
            inertia = "no mass and no rotational inertia"
        elif not self.mass:
            inertia = "no mass"
        elif not self.rotational_inertia and self.rotations:
            inertia = "no rotational inertia"
        else:
            inertia = "inertia cancelled by its stiffness"
        where = f", {self.origin}" if self.origin else ""
        return (f"structural node {self.label} ({self.kind}{where}): {' and '.join(free)} "
                f"{'is' if len(free) == 1 else 'are'} free ({inertia})")


@dataclass
class Diagnosis:
    """What diagnose found: `redundant` (Redundancy), `free_nodes` (FreeNode), `free_unknowns`
    (other unknowns in the null space, as owner texts), the size, the rank deficiency found,
    the smallest relative pivot and notes (limits reached)."""
    n: int
    deficiency: int = 0
    smallest_pivot: float = 1.0
    redundant: list = field(default_factory=list)
    free_nodes: list = field(default_factory=list)
    free_unknowns: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    where: str = ""

    @property
    def singular(self):
        return self.deficiency > 0

    def lines(self):
        """Short text lines: a head line, then one line per finding."""
        if not self.singular:
            cond = ("" if self.smallest_pivot > ILL else
                    f", but ill-conditioned (smallest relative pivot {self.smallest_pivot:.1e})")
            out = [f"no redundancy found: the iteration matrix{self.where} has full rank "
                   f"({self.n} unknowns{cond})"]
        else:
            out = [f"the iteration matrix{self.where} ({self.n} unknowns) is singular: rank deficiency "
                   f"{self.deficiency}"]
            out += [f"  redundant equations: {r.text()}" for r in self.redundant]
            out += [f"  {f.text()}" for f in self.free_nodes]
            out += [f"  free unknown: {u}" for u in self.free_unknowns]
            if self.redundant:
                out.append("  hint: remove a repeated joint; in a closed loop use joints with fewer equations "
                           "(e.g. one revolute hinge replaced by a spherical hinge or an in-line joint)")
            if self.free_nodes:
                out.append("  hint: give the node inertia (a body), or constrain or restrain its free directions")
        out += [f"  note: {n}" for n in self.notes]
        return out

    def __str__(self):
        return "\n".join(self.lines())


# ---------------------------------------------------------------------- entry points
def diagnose(model, dcoef=None, time=None):
    """Rank test of the first-step iteration matrix at the initial configuration of `model`
    (a Model, or a Deck: its model, initial time and time step).  dCoef: b0·h of the first
    (Crank-Nicolson) step, h/2 (the deck's step, else 1e-3 s).  Returns a Diagnosis
    (`print(d)`, `d.singular`, `d.redundant`, `d.free_nodes`)."""
    settings = getattr(model, "settings", None) or {}
    model = getattr(model, "model", model)
    if dcoef is None:
        dcoef = 0.5 * settings.get("time_step", 1e-3)
    if time is None:
        time = settings.get("initial_time", 0.0)
    system = System(model)
    d = diagnose_system(system, system.initial_state(time), dcoef)
    d.where = f" of the first step at the initial configuration (dCoef {dcoef:g})"
    return d


def diagnose_system(system, state, dcoef, mode="regular", matrix=None, max_dense=MAX_DENSE):
    """Diagnosis of the iteration matrix of `system` at `state` (assembled here, in `mode` at
    `dcoef`, unless `matrix` is given: e.g. the one whose factorization failed)."""
    if matrix is None:
        matrix = system.evaluate(state, dcoef, mode, want_jac=True, want_abs=False)[2]
    J = sp.csr_matrix(matrix)
    n = J.shape[0]
    d = Diagnosis(n)
    if J.shape != (system.n, system.n):
        d.notes.append(f"matrix of {J.shape[0]} rows for a system of {system.n} unknowns: not diagnosed")
        return d
    A = _equilibrate(J)
    names = Names(system, J)
    for comp in _components(A):
        _diagnose_component(A, comp, names, d, max_dense)
    d.redundant = _merge(d.redundant)
    d.free_nodes = names.free_nodes(d.free_nodes)
    return d


def describe_failure(system, state, matrix, dcoef, mode, step_dcoef=1e-3):
    """Text lines of the diagnosis of a failed factorization (the drivers append them to their
    failure message).  The failed matrix itself, except in the derivatives phase, whose dCoef
    (h·1e-6) puts the inertia and stiffness terms below any rank tolerance: there the
    regular-step matrix at `state` and `step_dcoef` (b0·h of a step) is diagnosed, and the
    failed one only if that has full rank."""
    try:
        if mode == "derivatives":
            d = diagnose_system(system, state, step_dcoef)
            d.where = f" of a regular step (dCoef {step_dcoef:g})"
            if d.singular:
                return d.lines()
        d = diagnose_system(system, state, dcoef, mode, matrix=matrix)
        return d.lines()
    except Exception as e:      # noqa: BLE001 - a failed diagnosis must not hide the failure itself
        return [f"(no diagnosis: {type(e).__name__}: {e})"]


# ---------------------------------------------------------------------- numerics
def _equilibrate(J, passes=3):
    """J scaled as D_r J D_c with the largest entry of every row and column near 1 (Ruiz);
    empty rows and columns stay as they are."""
    A = sp.csr_matrix(J, dtype=float, copy=True)
    A.eliminate_zeros()
    for _ in range(passes):
        r = np.sqrt(abs(A).max(axis=1).toarray().ravel())
        r[r == 0] = 1.0
        A = sp.diags(1.0 / r) @ A
        c = np.sqrt(abs(A).max(axis=0).toarray().ravel())
        c[c == 0] = 1.0
        A = (A @ sp.diags(1.0 / c)).tocsr()
    return A


def _components(A):
    """Unknown index arrays of the connected components of J's graph (rows paired with
    unknowns), the ones with entries only."""
    import scipy.sparse.csgraph as csgraph
    k, lab = csgraph.connected_components(abs(A) + abs(A).T, directed=False)
    order = np.argsort(lab, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(lab[order])) + 1)


def _pivoted_qr(M):
    """(rank, pivots, R, smallest relative pivot) of M P = Q R."""
    import scipy.linalg as la
    if M.shape[0] == 0 or M.shape[1] == 0:
        return 0, np.arange(M.shape[1]), np.zeros((0, M.shape[1])), 1.0
    R, P = la.qr(M, mode="r", pivoting=True)
    diag = np.abs(np.diag(R))
    top = diag[0] if len(diag) and diag[0] > 0 else 1.0
    rank = int(np.sum(diag > RTOL * top))
    smallest = float(diag[min(len(diag), M.shape[1]) - 1] / top) if len(diag) else 1.0
    if len(diag) < M.shape[1]:
        smallest = 0.0
    return rank, P, R, smallest


def _combination(R, rank):
    """R₁₁⁻¹R₁₂: the pivoted-last columns as combinations of the first `rank` ones."""
    import scipy.linalg as la
    if rank == 0:
        return np.zeros((0, R.shape[1]))
    return la.solve_triangular(R[:rank, :rank], R[:rank, rank:])


def _sparse_screen(M):
    """Smallest |U_ii| / max |U_ii| of a sparse LU with partial pivoting of the equilibrated
    block (0 when SuperLU finds it exactly singular).  A rank-deficient matrix always shows a
    pivot at rounding level, so a block that passes (ratio > RTOL) has full rank and needs no
    dense factorization; one that fails is decided by the pivoted QR."""
    import scipy.sparse.linalg as sla
    try:
        lu = sla.splu(sp.csc_matrix(M), permc_spec="COLAMD", diag_pivot_thresh=1.0)
    except RuntimeError:
        return 0.0
    u = np.abs(lu.U.diagonal())
    return float(u.min() / u.max()) if len(u) and u.max() > 0 else 0.0


def _diagnose_component(A, comp, names, d, max_dense):
    rows_alg = comp[names.constraint[comp]]
    k = len(comp)
    screened = _sparse_screen(A[comp][:, comp])
    if screened > RTOL:
        d.smallest_pivot = min(d.smallest_pivot, screened)
        return
    if k <= max_dense:
        dense = A[comp][:, comp].toarray()
        rank, P, R, smallest = _pivoted_qr(dense)
        d.smallest_pivot = min(d.smallest_pivot, smallest)
        if rank == k:
            return
        d.deficiency += k - rank
        N = np.zeros((k, k - rank))
        N[P[:rank]] = -_combination(R, rank)
        N[P[rank:], np.arange(k - rank)] = 1.0
        names.collect_null_space(comp, N, d)
    elif len(rows_alg) > max_dense:
        d.notes.append(f"a connected part of {k} unknowns and {len(rows_alg)} constraint equations is larger "
                       f"than the dense limit ({max_dense}): not diagnosed")
        return
    else:
        d.notes.append(f"a connected part of {k} unknowns exceeds the dense limit ({max_dense}): only its "
                       f"{len(rows_alg)} constraint equations were checked for redundancy, not its nodes")
    if len(rows_alg):
        C = A[rows_alg].tocsc()
        cols = np.flatnonzero(np.diff(C.indptr))
        Ct = C[:, cols].toarray().T
        Ct /= np.maximum(np.linalg.norm(Ct, axis=0), 1e-300)
        # a slightly larger norm for earlier rows: among equal rows the pivoting keeps the first
        # defined and reports the later as the dependent one (column scaling keeps the rank)
        Ct *= 1.0 + 1e-6 * np.arange(Ct.shape[1], 0, -1) / Ct.shape[1]
        rank, P, R, smallest = _pivoted_qr(Ct)
        if k > max_dense:
            d.deficiency += len(rows_alg) - rank
            d.smallest_pivot = min(d.smallest_pivot, smallest)
        if rank < len(rows_alg):
            names.collect_redundancy(rows_alg, P, _combination(R, rank), rank, d)


# ---------------------------------------------------------------------- naming
class Names:
    """Rows and unknowns of a System by owner: nodes by label and unknown group, element rows
    by family, label, type and what they constrain; deck lines from Model.origins."""

    def __init__(self, system, J):
        self.system = system
        self.J = J
        self.nodes = nodes = system.nodes
        self.node_of = np.full(system.n, -1, np.int64)
        self.group_of = np.full(system.n, -1, np.int64)        # 0 x, 1 g, 2 β, 3 γ
        for g, index in enumerate((nodes.ix, nodes.ig, nodes.ib, nodes.ic)):
            for i in range(nodes.n):
                if index[i, 0] >= 0:
                    self.node_of[index[i]] = i
                    self.group_of[index[i]] = g
        self.constraint = (system.kind == ALGEBRAIC) & (system.row_owner > 0)
        self.null_basis = []            # null vectors' node parts: {unknown: value}

    def origin(self, family, label):
        return self.system.model.origin(family, label)

    def element_of_row(self, row):
        """(family, label, type, what) of an element's row."""
        s = self.system
        fam = s.all_families[s.row_owner[row]]
        label = int(s.row_label[row])
        what = str(s.row_what[row])
        kind = fam.name
        types = getattr(fam, "types", None)
        labels = getattr(fam, "labels", None)
        if types is not None and labels is not None:
            hit = np.flatnonzero(np.asarray(labels) == label)
            if len(hit):
                kind = types[hit[0]]
                if what.startswith(kind + " "):
                    what = what[len(kind) + 1:]
        return fam.name, label, kind, what

    def collect_redundancy(self, rows, P, W, rank, d):
        """One Redundancy per dependent row: rows[P[rank + j]] = Σ W[i, j] rows[P[i]]."""
        for j in range(W.shape[1]):
            row = rows[P[rank + j]]
            fam, label, kind, what = self.element_of_row(row)
            w = W[:, j]
            big = np.flatnonzero(np.abs(w) > 1e-6 * max(np.abs(w).max(), 1e-300))
            others, seen = [], set()
            for i in big:
                of, ol, ok, _ = self.element_of_row(rows[P[i]])
                if (of, ol) != (fam, label) and (of, ol) not in seen:
                    seen.add((of, ol))
                    others.append((of, ol, ok))
            if not others:          # rows of one element that depend on each other
                others = [(fam, label, kind)]
            repeats = len(big) == 1 and np.isclose(abs(w[big[0]]), 1.0, rtol=1e-6)
            d.redundant.append(Redundancy(fam, label, kind, self.origin(fam, label), [what], others,
                                          [self.origin(f, l) for f, l, _ in others], bool(repeats),
                                          [int(row)]))

    def collect_null_space(self, comp, N, d):
        """The null vectors N (columns over the unknowns `comp`): an orthonormal basis of their
        node parts is kept (free_nodes names it per node); unknowns of other families in them
        are named; their parts on the multipliers are the redundancies collect_redundancy
        names from the constraint rows."""
        scale = np.abs(N).max()
        node_part = self.node_of[comp] >= 0
        V = N[node_part]
        if V.size:
            U, s, _ = np.linalg.svd(V, full_matrices=False)
            keep = s > 1e-6 * scale
            for v in U[:, keep].T:
                self.null_basis.append(dict(zip(comp[node_part].tolist(), v)))
        other = ~node_part & ~self.constraint[comp]
        if other.any():
            mag = np.abs(N[other]).max(axis=1)
            for r in comp[other][mag > 1e-6 * scale]:
                d.free_unknowns.append(self.system.owner_text(int(r)))

    def free_nodes(self, found):
        """FreeNode per node of the null space: the translations and rotations it spans, and
        whether it carries mass and rotational inertia in J (∂f_β/∂ẋ = -m, ∂f_γ/∂ġ = -J G)."""
        nodes = self.nodes
        out = list(found)
        touched = sorted({int(self.node_of[r]) for v in self.null_basis for r in v})
        for i in touched:
            def block(index):
                if index[i, 0] < 0:
                    return np.zeros((3, 0))
                return np.array([[v.get(int(r), 0.0) for v in self.null_basis] for r in index[i]])
            trans, rots = _span(block(nodes.ix)), _span(block(nodes.ig))
            if not trans and not rots:
                continue
            mass = nodes.ib[i, 0] >= 0 and abs(self.J[nodes.ib[i]][:, nodes.ix[i]]).max() > 0
            inertia = (nodes.ic[i, 0] >= 0 and nodes.ig[i, 0] >= 0
                       and abs(self.J[nodes.ic[i]][:, nodes.ig[i]]).max() > 0)
            out.append(FreeNode(int(nodes.labels[i]), nodes.specs[i].kind,
                                self.origin("structural node", nodes.labels[i]), trans, rots, bool(mass),
                                bool(inertia)))
        return out


def _span(M):
    """Orthonormal directions (3-vectors) spanned by the columns of M (3 × k)."""
    if M.size == 0:
        return []
    U, s, _ = np.linalg.svd(M, full_matrices=False)
    if not len(s) or s.max() < 1e-6:
        return []
    return [U[:, j] for j in range(len(s)) if s[j] > 1e-6]


def _directions(vectors, word):
    """'about z', 'about x, y and z', 'along (0.6, 0.8, 0)'."""
    if len(vectors) == 3:
        return f"{word} x, y and z"
    B = np.array(vectors).T
    axes = [k for k in range(3) if np.linalg.norm(B.T @ np.eye(3)[k]) > 1 - 1e-6]
    if len(axes) == len(vectors):
        names = [AXES[k] for k in axes]
        return f"{word} {' and '.join(names)}"
    if len(vectors) == 1:
        v = vectors[0] * np.sign(vectors[0][np.argmax(np.abs(vectors[0]))])
        return f"{word} ({', '.join(f'{c:.3g}' for c in v + 0.0)})"
    nrm = np.cross(vectors[0], vectors[1])
    return f"in the plane normal to ({', '.join(f'{c:.3g}' for c in nrm + 0.0)})"


def _element(family, label, kind, origin):
    return f"{family} {label} ({kind}{', ' + origin if origin else ''})"


def _element_list(elements, origins):
    return ", ".join(_element(f, l, k, o) for (f, l, k), o in zip(elements, origins))


def _merge(found):
    """One Redundancy per element: its dependent rows together, the elements they depend on
    (by label)."""
    merged = {}
    for r in found:
        key = (r.family, r.label)
        if key not in merged:
            merged[key] = r
            continue
        m = merged[key]
        m.rows += r.rows
        m.indices += r.indices
        m.repeats = m.repeats and r.repeats and m.depends_on == r.depends_on
        for e, o in zip(r.depends_on, r.depends_origin):
            if e not in m.depends_on:
                m.depends_on.append(e)
                m.depends_origin.append(o)
    for m in merged.values():
        m.rows = [w for _, w in sorted(zip(m.indices, m.rows))]
        m.indices = sorted(m.indices)
        order = sorted(range(len(m.depends_on)), key=lambda k: (m.depends_on[k][0], m.depends_on[k][1]))
        m.depends_on = [m.depends_on[k] for k in order]
        m.depends_origin = [m.depends_origin[k] for k in order]
    return list(merged.values())
