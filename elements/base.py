"""Shared pieces of element families: the family interface, spec argument helpers, check
samples and the node row/column layout of one- and two-node elements.  The chain rule from
the perturbations (δx, θ, δv, δω) of a node to its Newton increments (Δẋ, Δġ) (G8) is done
inside each family's compiled kernel (e.g. elements/deformable_kernel.chain_rule12)."""
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core.drives import ConstDrive
from mbdae.engine.core.tpldrive import VectorDrive

I3 = np.eye(3)


# ---------------------------------------------------------------------- spec arguments
def vec(v, n=3):
    """A vector argument (None: zeros)."""
    return np.zeros(n) if v is None else np.asarray(v, float).reshape(n)


def mat(R):
    """An orientation argument (None: the identity)."""
    return I3.copy() if R is None else np.asarray(R, float).reshape(3, 3)


def scalar_drive(d):
    """A scalar drive argument: a drive object, a number (constant) or None."""
    if d is None:
        return None
    return d if hasattr(d, "value") else ConstDrive(float(d))


def vector_drive(d):
    """A vector drive argument: a VectorDrive, a 3-vector (constant) or None."""
    if d is None:
        return None
    if isinstance(d, VectorDrive):
        return d
    return VectorDrive.constant(vec(d))


def status_flags(flags, allowed):
    """Constraint status words (or booleans) mapped through `allowed`."""
    out = []
    for f in flags:
        if isinstance(f, str):
            f = f.lower()
            if f not in allowed:
                raise ValueError(f"constraint status '{f}' is not one of {sorted(allowed)}")
            out.append(allowed[f])
        else:
            out.append("active" if f else "inactive")
    return out


POSITION_STATUS = {"inactive": "inactive", "active": "active", "position": "active", "velocity": "velocity"}
ROTATION_STATUS = {"inactive": "inactive", "active": "active", "rotation": "active",
                   "angular velocity": "angular velocity"}


def random_rotation(rng):
    """A random orientation (the families' check samples)."""
    return rot.exp_rotvec(rng.normal(size=3))


def random_nodes(model, rng, n, kind="dynamic", start=1):
    """n structural nodes with random poses and velocities (the families' check samples)."""
    for i in range(n):
        model.structural_node(start + i, kind, position=rng.normal(size=3), orientation=random_rotation(rng),
                              velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))


def beam_list(values, n, conv):
    """Per-node beam data: None, or n entries (each None or a value)."""
    if values is None:
        return None
    values = list(values)
    if len(values) != n:
        raise ValueError(f"beam: {n} per-node values required, got {len(values)}")
    return [None if v is None else conv(v) for v in values]


class ElementFamily:
    """One object per element kind; arrays over all its instances, fixed once built (the
    Model's data).  What changes during a run lives in the State, under `state_key`.

    Subclasses set `name`, implement `build_pattern()` and `evaluate(ctx, res_views, jac_views)`, and,
    when they own unknowns, `n_internal`, `dof_info()` and `set_offset()`.  The protocol:

    - `evaluate(ctx, res_views, jac_views)`: write the residual blocks into the
      preallocated views `res_views` (one per `pattern.res` block, shaped as it) and, unless
      `jac_views` is None, the Jacobian blocks into `jac_views` (one per `pattern.jac`
      block), in place; returns nothing.  (Σ|f| per row comes from the same residual
      buffer, so there are no separate absolute-value views.)  Inputs: the family's own arrays, the
      node kinematics `ctx.kin`, `ctx.dcoef` and the family's State arrays
      (`self.state_arrays(ctx)`).
    - `initial_state()` -> {name: array}: the family's internal arrays before the first step
      ({} for families without internal state).
    - `commit(ctx, arrays)` -> {name: array}: the new internal arrays after the converged
      step whose state `ctx` describes; pure (the System stores them in the State).
    - `bind(system)`: called once the System has laid out the unknowns (families that need the
      row layout of others, e.g. the driven elements).
    """
    name = "element"
    in_initial_assembly = False   # joints take part in initial assembly (manual §6.1)
    n_internal = 0
    has_state = False             # True: initial_state()/commit() carry internal arrays
    state_key = None              # the family's key in State.families (set by the System)
    _initial_arrays = None

    def __init__(self, specs, nodes):
        self.specs = list(specs)
        self.nodes = nodes
        self.ne = len(self.specs)
        self.labels = np.array([s.label for s in self.specs], dtype=np.int64)

    def node_index(self, labels):
        return np.array([self.nodes.index(l) if l is not None else -1 for l in labels], dtype=np.int64)

    def set_offset(self, start):
        self.offset = start

    def dof_info(self):
        """(kind, dim, labels, what) of the family's own unknowns/equations; none by default."""
        e = np.zeros(0, np.int64)
        return e, e, e, []

    def output_rows(self, ctx):
        """Rows for the text output file of this family (list of (label, values))."""
        return []

    def continuum_nodes(self):
        """Structural node indices of the family's 3-D continuum elements (the solids'), whose
        unknowns make the Jacobian a 3-D finite-element pattern (solvers/linear.py); none by
        default."""
        return np.zeros(0, np.int64)

    def bind(self, system):
        """Hook called after the System's DOF layout; nothing by default."""

    def initial_state(self):
        return {}

    def commit(self, ctx, arrays):
        return arrays

    def state_arrays(self, ctx):
        """The family's internal arrays in this evaluation: from the State the context was
        built from, or the initial ones when the context carries none (a Context built by
        hand at the initial configuration)."""
        arrays = ctx.families.get(self.state_key)
        if arrays is None:
            if self._initial_arrays is None:
                self._initial_arrays = self.initial_state()
            arrays = self._initial_arrays
        return arrays

    def block_instances(self):
        """(res, jac): for each residual and Jacobian block of the pattern, the instance of
        the family behind each index of its leading axis (by default the instances in
        order; families that evaluate instances in groups, like the joints, map them)."""
        every = np.arange(self.ne)
        return [every] * len(self.pattern.res), [every] * len(self.pattern.jac)

    def residual_blocks(self, ctx):
        """The residual blocks at ctx in new arrays (inspection and tests)."""
        res = [np.zeros(rows.shape) for rows in self.pattern.res]
        self.evaluate(ctx, res, None)
        return res


def cards_per_kind(kinds, read):
    """{card name: reader} of cards that differ only by the element kind they name (solid
    shapes, shell kinds): each calls read(reader, model, args, label, word, kind)."""
    def make(kind):
        def card(reader, model, args, label, word):
            read(reader, model, args, label, word, kind)
        card.__name__ = f"read_{kind}"
        return card
    return {kind: make(kind) for kind in kinds}


def element_nodes(nodes, specs, n, where):
    """(len(specs), n) structural node indices of the elements' `nodes` labels; an undefined
    node raises ValueError prefixed by where(spec) (the element and its deck position)."""
    idx = np.empty((len(specs), n), np.int64)
    for e, spec in enumerate(specs):
        for k, label in enumerate(spec.nodes):
            try:
                idx[e, k] = nodes.index(label)
            except KeyError:
                raise ValueError(f"{where(spec)}structural node {label} is not defined") from None
    return idx


def node_columns(nodes, idx):
    """Global x and g column/row indices of node indices idx (-1 → ground, all -1)."""
    idx = np.asarray(idx)
    safe = np.where(idx >= 0, idx, 0)
    ix = np.where((idx >= 0)[..., None], nodes.ix[safe], -1)
    ig = np.where((idx >= 0)[..., None], nodes.ig[safe], -1)
    return ix, ig


def two_node_columns(nodes, n1, n2):
    """Rows/columns (x1, g1, x2, g2) of two-node elements, (ne, 12), and the rotation ones
    (g1, g2), (ne, 6); ground nodes (-1) give -1 entries, which the pattern discards."""
    ix1, ig1 = node_columns(nodes, n1)
    ix2, ig2 = node_columns(nodes, n2)
    return np.concatenate([ix1, ig1, ix2, ig2], axis=1), np.concatenate([ig1, ig2], axis=1)


def one_node_pattern(nodes, n):
    """Pattern of one-node elements whose 6 load rows depend on all 6 node unknowns."""
    ix, ig = node_columns(nodes, n)
    rows = np.concatenate([ix, ig], axis=1)
    p = Pattern()
    p.add_res(rows)
    p.add_jac(rows, rows)
    return p


def two_node_pattern(nodes, n1, n2):
    """Pattern of two-node elements whose 12 load rows depend on all 12 node unknowns."""
    rows, _ = two_node_columns(nodes, n1, n2)
    p = Pattern()
    p.add_res(rows)
    p.add_jac(rows, rows)
    return p
