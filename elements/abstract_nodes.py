"""Scalar nodes: abstract nodes (MBDyn input manual §6.1 "Abstract Node", spec/mbdyn-input-
language.md §4.5) and hydraulic nodes (input manual, Nodes, "Hydraulic Node"): scalar unknowns with
no equation of their own.  A `differential` abstract node has a value x and its derivative ẋ
(the Newton increment is Δẋ, x += dCoef Δẋ); an `algebraic` one, and every hydraulic node
(a pressure), only has x (x += Δ).  Genels and abstract forces (elements/genel.py) and, for
hydraulic nodes, the solid u/p-c elements write the equation rows.

Two sibling families own the unknowns (a block each after the structural nodes), with
separate label spaces: AbstractNodes and HydraulicNodes (`node_type` "abstract" or
"hydraulic").  Other families look them up by node type among the families built before
them (elements/genel.py `scalar_node_families(built)`, which needs their registry entry to come
after this one) and, once the System has laid out the unknowns (in build_pattern or bind),
take the rows/columns of their nodes from

    rows = family.rows_of(labels, node_type="hydraulic")

(AbstractNodes.rows_of, here; either family answers for both node types, so the one
System.family_with("rows_of") finds serves).  The families write no residual, except in the initial
assembly, where only joints take part: there each scalar unknown is held at its value (row
Δ = 0), so the assembly matrix stays regular.

Output, one row per node: .abs (abstract) label, x, and ẋ for a differential node; .prs
(hydraulic, MBDyn's pressure-node file) label, x."""
from dataclasses import dataclass
import numpy as np

from mbdae.elements.base import ElementFamily
from mbdae.engine.core.assembly import Pattern, DIFFERENTIAL, ALGEBRAIC, DIM, kernel_jacobian_views
from mbdae.engine.core.compiled import kernel
from mbdae.elements.genel import genel_sample

KINDS = ("differential", "algebraic")
NODE_TYPES = ("abstract", "hydraulic")       # the families' node types (NodeDof node types)
IA_MODES = ("ia_position", "ia_velocity")


@dataclass
class AbstractNodeSpec:
    label: int
    kind: str = "differential"      # "differential" | "algebraic"
    value: float = 0.0              # x0
    derivative: float = 0.0         # ẋ0 (differential only)
    output: bool = True


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def abstract_node(model, label, kind="differential", value=0.0, derivative=0.0, output=True):
    """Abstract node (input manual §6.1): a scalar unknown x, with ẋ when differential
    (elements/abstract_nodes.py)."""
    nodes = model.abstract_nodes
    if any(s.label == label for s in nodes):
        raise ValueError(f"abstract node {label} is already defined")
    nodes.append(AbstractNodeSpec(label, kind, float(value), float(derivative), output))
    return label


def hydraulic_node(model, label, value=0.0, output=True):
    """Hydraulic node (input manual "Hydraulic Node"): an algebraic scalar unknown, a pressure
    (elements/abstract_nodes.py); its label space is not the abstract nodes' one."""
    nodes = model.hydraulic_nodes
    if any(s.label == label for s in nodes):
        raise ValueError(f"hydraulic node {label} is already defined")
    nodes.append(AbstractNodeSpec(label, "algebraic", float(value), 0.0, output))
    return label


MODEL_FIELDS = {"abstract_nodes": list, "hydraulic_nodes": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (abstract_node, hydraulic_node,)


def build(model, nodes, built):
    """The abstract and the hydraulic node families (each when the model has such nodes), each
    knowing the other for rows_of."""
    families = []
    if model.abstract_nodes:
        families.append(AbstractNodes(model.abstract_nodes, nodes))
    if model.hydraulic_nodes:
        families.append(HydraulicNodes(model.hydraulic_nodes, nodes))
    siblings = {fam.node_type: fam for fam in families}
    for fam in families:
        fam.siblings = siblings
    return families


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

SAMPLES = {"abstract node": [genel_sample], "hydraulic node": [genel_sample]}


class AbstractNodes(ElementFamily):
    name = "abstract node"
    node_type = "abstract"          # the NodeDof node type of its nodes (elements/genel.py)
    output_file = "abs"
    in_initial_assembly = True
    private_names = ("x", "xP")     # private data (input manual §6.1)

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        self.siblings = {self.node_type: self}   # the scalar-node families by node type (build)
        for s in self.specs:
            if s.kind not in KINDS:
                raise ValueError(f"{self.name} {s.label}: kind must be one of {KINDS}, not {s.kind!r}")
        if len(set(self.labels.tolist())) != self.ne:
            raise ValueError(f"{self.name}s: duplicate labels")
        self.differential = np.array([s.kind == "differential" for s in self.specs], bool)
        self.x0 = np.array([s.value for s in self.specs], float)
        self.xp0 = np.where(self.differential, [s.derivative for s in self.specs], 0.0)
        self.n_internal = self.ne
        self._index = {int(l): i for i, l in enumerate(self.labels)}

    def set_offset(self, start):
        self.offset = start
        self.rows = start + np.arange(self.ne, dtype=np.int64)

    def dof_info(self):
        kind = np.where(self.differential, DIFFERENTIAL, ALGEBRAIC).astype(np.int64)
        dim = np.full(self.ne, DIM["other"], np.int64)
        return kind, dim, self.labels.copy(), [f"{self.node_type} x"] * self.ne

    def index(self, label):
        try:
            return self._index[int(label)]
        except KeyError:
            raise KeyError(f"{self.name} {label} is not defined") from None

    def rows_of(self, labels, node_type=None):
        """The global rows (= columns) of the unknowns of the `node_type` nodes `labels` (an int
        array of their shape; node_type None: this family's type).  Either scalar-node family
        answers for both types (a family found by System.family_with("rows_of") serves), with a
        KeyError naming a node that is not defined.  Valid once the System has laid out the
        unknowns (from build_pattern or bind on)."""
        node_type = self.node_type if node_type is None else node_type
        if node_type not in NODE_TYPES:
            raise ValueError(f"scalar node type must be one of {NODE_TYPES}, not {node_type!r}")
        fam = self.siblings.get(node_type)
        if fam is None:
            raise KeyError(f"{node_type} node {int(np.ravel(labels)[0])} is not defined (the model has none)")
        labels = np.asarray(labels, np.int64)
        index = np.array([fam.index(l) for l in labels.ravel()], np.int64).reshape(labels.shape)
        return fam.rows[index]

    def initial_values(self, y, yp):
        """x0 and ẋ0 into the initial state (called by System.initial_state)."""
        y[self.rows] = self.x0
        yp[self.rows] = self.xp0

    def build_pattern(self):
        p = self.pattern = Pattern()
        p.add_res(self.rows[:, None])
        p.add_jac(self.rows[:, None], self.rows[:, None])
        return p

    def evaluate(self, ctx, res_views, jac_views):
        """No equation of its own; in the initial assembly the identity (Δ = 0): one
        compiled call (abstract_node_equations)."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        abstract_node_equations(ctx.mode in IA_MODES, want_jac, res_views[0], jac[0])

    def values(self, y, yp):
        """(x, ẋ) of all nodes (ẋ = 0 for algebraic ones)."""
        return y[self.rows], np.where(self.differential, yp[self.rows], 0.0)

    def private_data(self, ctx, name):
        """Private data `x` and `xP` (input manual §6.1; hydraulic nodes: `x` only)."""
        x, xp = self.values(ctx.y, ctx.yp)
        if name not in self.private_names:
            raise ValueError(f'{self.name} private datum "{name}" is not one of '
                             + ", ".join(f'"{n}"' for n in self.private_names))
        return x if name == "x" else xp

    def output_groups(self, ctx):
        """.abs rows: label, x [, ẋ] (differential nodes write the derivative too)."""
        out = np.array([s.output for s in self.specs], bool)
        x, xp = self.values(ctx.y, ctx.yp)
        groups = []
        for diff in (True, False):
            sel = out & (self.differential == diff)
            if sel.any():
                vals = np.stack([x, xp], axis=1) if diff else x[:, None]
                groups.append((self.labels[sel], vals[sel]))
        return groups


class HydraulicNodes(AbstractNodes):
    """Hydraulic nodes (input manual "Hydraulic Node"): algebraic scalar unknowns (pressures);
    output .prs rows `label, x` (MBDyn's pressure-node file), private datum "x"."""
    name = "hydraulic node"
    node_type = "hydraulic"
    output_file = "prs"
    private_names = ("x",)


# ---------------------------------------------------------------- kernels
@kernel
def abstract_node_equations(ia, want_jac, r, j):
    """Abstract nodes' rows: f = 0, and ∂f/∂Δ = 1 in the initial assembly (the node is held
    at its value), 0 otherwise."""
    for e in range(r.shape[0]):
        r[e, 0] = 0.0
        if want_jac:
            j[e, 0, 0] = 1.0 if ia else 0.0
