"""Scalar elements on one degree of freedom (a `NodeDof`, input manual §2.5 / spec §7.10):
the `spring support` genel (manual §8.9) and the `abstract` force (manual §8.8, theory
manual §14.1).

A NodeDof names a scalar unknown: an abstract node (engine/abstract_nodes.py), or a
position component (index 1-3) of a structural node.  Its equation row receives the loads.

Spring support: a 1-D elastic law of the dof value, F(x - x0(t)); MBDyn gives the law the value
x only (strain rate 0, the dof order must be `algebraic`), and the row receives -F:
    f = +F(x),   J = ∂F/∂x · (dCoef for a differential dof | 1 for an algebraic one).
Abstract force: a scalar drive F(t) added to the row, f = -F.  The drive may read the model
state (`element` drives, model::element): it is then evaluated at every residual and, as in
MBDyn (whose AbstractForce assembles no Jacobian), contributes no Jacobian term.
Output: spring supports write nothing (MBDyn's .gen stays empty); abstract forces write .frc
rows `label, node label, F`."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.engine.core.compiled import kernel
from mbdae.engine.core.privdata import state_sources
from mbdae.engine.core.drives import DriveArray
from mbdae.engine.core.constitutive import ScalarLaws, law_into
from mbdae.elements.base import ElementFamily, scalar_drive, random_rotation, random_nodes
from mbdae.engine.core.constitutive import LinearElastic1D, cubic_elastic
from mbdae.engine.core.drives import LinearDrive, SineDrive, ConstDrive


@dataclass
class NodeDof:
    """`<node label>, <node type> [, <index>] [, {algebraic | differential}]`."""
    node: int
    node_type: str = "abstract"     # "abstract" | "structural"
    index: int = 1                  # structural: 1-3 (position components)
    order: str = "algebraic"        # "algebraic" (the value) | "differential" (the derivative)


@dataclass
class SpringSupportSpec:
    label: int
    dof: NodeDof
    law: object                     # 1-D elastic law (constitutive.Law or LinearElastic1D)
    output: bool = True


@dataclass
class AbstractForceSpec:
    label: int
    dof: NodeDof
    drive: object                   # scalar drive
    output: bool = True


def resolve_dofs(dofs, nodes, abstract, what):
    """(rows, differential flags) of NodeDofs; `abstract` is the AbstractNodes family or None."""
    rows, diff = [], []
    for label, d in dofs:
        if d.node_type == "abstract":
            if abstract is None:
                raise KeyError(f"{what} {label}: abstract node {d.node} is not defined (the model has none)")
            try:
                i = abstract.index(d.node)
            except KeyError as e:
                raise KeyError(f"{what} {label}: {e.args[0]}") from None
            rows.append(abstract.rows[i])
            diff.append(bool(abstract.differential[i]))
        elif d.node_type == "structural":
            if d.index not in (1, 2, 3):
                raise ValueError(f"{what} {label}: structural node dof index {d.index} not supported "
                                 "(positions 1-3 only)")
            try:
                i = nodes.index(d.node)
            except KeyError:
                raise KeyError(f"{what} {label}: structural node {d.node} is not defined") from None
            rows.append(nodes.ix[i, d.index - 1])
            diff.append(True)
        else:
            raise ValueError(f"{what} {label}: node type {d.node_type!r} is not abstract or structural")
    return np.array(rows, np.int64), np.array(diff, bool)


def _dof_node_labels(specs):
    return np.array([s.dof.node for s in specs], float)


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def spring_support(model, label, node, law, node_type="abstract", index=1, order="algebraic"):
    """`genel: spring support` (input manual §8.9): a 1-D law of a dof value to the ground
    (elements/genel.py)."""
    model.spring_supports.append(
        SpringSupportSpec(label, NodeDof(node, node_type, index, order), law))
    return label


def abstract_force(model, label, node, drive, node_type="abstract", index=1):
    """`force: abstract` (input manual §8.8): a scalar drive on a dof's equation."""
    model.abstract_forces.append(
        AbstractForceSpec(label, NodeDof(node, node_type, index), scalar_drive(drive)))
    return label


MODEL_FIELDS = {"spring_supports": list, "abstract_forces": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (spring_support, abstract_force,)


def build(model, nodes, built):
    """Spring supports and abstract forces, on the abstract nodes built before them."""
    abstract = next((fam for fam in built if fam.name == "abstract node"), None)
    families = []
    if model.spring_supports:
        families.append(SpringSupports(model.spring_supports, nodes, abstract))
    if model.abstract_forces:
        families.append(AbstractForces(model.abstract_forces, nodes, abstract))
    return families


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def genel_sample(model, rng):
    """Abstract nodes (differential and algebraic) with spring supports and abstract forces,
    and a spring support and an abstract force on a structural position dof."""
    m = model
    random_nodes(m, rng, 1)
    m.abstract_node(1, "differential", rng.normal(), rng.normal())
    m.abstract_node(2, "algebraic", rng.normal())
    m.abstract_node(3, "differential")
    m.spring_support(1, 1, LinearElastic1D(3.0, LinearDrive(0.1, 0.2)))
    m.spring_support(2, 2, LinearElastic1D(5.0))
    m.spring_support(3, 1, LinearElastic1D(7.0), node_type="structural", index=2)
    m.spring_support(4, 3, LinearElastic1D(2.0))
    m.spring_support(5, 2, cubic_elastic(1, 1.0, 20.0, 300.0))
    m.abstract_force(5, 1, SineDrive(0.0, 3.0, 2.0, "forever", 0.5))
    m.abstract_force(6, 2, LinearDrive(1.0, 0.5))
    m.abstract_force(7, 1, ConstDrive(0.3), node_type="structural", index=3)
    return m


SAMPLES = {"spring support": [genel_sample], "abstract force": [genel_sample]}


class SpringSupports(ElementFamily):
    name = "spring support"

    def __init__(self, specs, nodes, abstract=None):
        super().__init__(specs, nodes)
        self.abstract = abstract
        for s in self.specs:
            if s.dof.order != "algebraic":
                raise ValueError(f"genel {s.label}: a spring support acts on the value of a dof: "
                                 "its order must be 'algebraic'")
        self.laws = ScalarLaws([s.law for s in self.specs], [f"genel {s.label}" for s in self.specs])
        for s, law in zip(self.specs, self.laws.laws):
            if law.viscous:
                raise ValueError(f"genel {s.label}: a spring support gets no strain rate (as in MBDyn): "
                                 "a viscous law is refused")
            if not law.elastic:
                raise ValueError(f"genel {s.label}: an elastic 1-D law is required")

    def build_pattern(self):
        self.rows, self.differential = resolve_dofs([(s.label, s.dof) for s in self.specs],
                                                    self.nodes, self.abstract, "genel")
        p = self.pattern = Pattern()
        p.add_res(self.rows[:, None])
        p.add_jac(self.rows[:, None], self.rows[:, None])
        return p

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (spring_support_loads) over all spring supports."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        self._loads(ctx, want_jac, res_views[0], jac[0])

    def _loads(self, ctx, want_jac, r, j):
        laws = self.laws.vectorized
        spring_support_loads(ctx.y, self.rows, self.differential, float(ctx.dcoef), *laws.arrays,
                             *laws.time_values(ctx.t), want_jac, r, j)

    output_file = "gen"

    def output_groups(self, ctx):
        """MBDyn opens a .gen file for genels; a spring support writes no rows in it."""
        return []

    def force(self, ctx):
        """The law's value F per instance (MBDyn's private datum "F"), by the family's kernel."""
        r = np.zeros((self.ne, 1))
        self._loads(ctx, False, r, np.zeros((self.ne, 1, 1)))
        return r[:, 0]


class AbstractForces(ElementFamily):
    name = "abstract force"
    output_file = "frc"

    def __init__(self, specs, nodes, abstract=None):
        super().__init__(specs, nodes)
        self.abstract = abstract
        self.drives = DriveArray([s.drive for s in self.specs])
        self.state_sources = list(dict.fromkeys(src for s in self.specs for src in state_sources(s.drive)))

    def build_pattern(self):
        self.rows, self.differential = resolve_dofs([(s.label, s.dof) for s in self.specs],
                                                    self.nodes, self.abstract, "abstract force")
        p = self.pattern = Pattern()
        p.add_res(self.rows[:, None])
        return p

    def values(self, t):
        if self.state_sources:               # values follow the state: no caching at equal t
            self.drives.clear_cache()
        return np.asarray(self.drives.values(t), float)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (abstract_force_loads); no Jacobian (the pattern has no block)."""
        abstract_force_loads(self.values(ctx.t), res_views[0])

    def output_groups(self, ctx):
        """.frc rows: label, node label, F."""
        for src in self.state_sources:
            src.bind(ctx)
        F = self.values(ctx.t)
        out = np.array([s.output for s in self.specs], bool)
        vals = np.stack([_dof_node_labels(self.specs), F], axis=1)
        return [(self.labels[out], vals[out])]


# ---------------------------------------------------------------- kernels
@kernel
def spring_support_loads(y, rows, differential, dcoef, K, C, k2, k3, sigma0, e0, sK, sC, w, want_jac, r, j):
    """Spring supports: f = F(x) of the 1-D law (`law_into`) at the dof value x = y[row] with
    no strain rate; ∂f/∂Δ = ∂F/∂x times dCoef on a differential dof, 1 on an algebraic one."""
    eps = np.empty(1)
    epsdot = np.zeros(1)
    f, dK, dC = np.empty(1), np.empty((1, 1)), np.empty((1, 1))
    for e in range(len(rows)):
        eps[0] = y[rows[e]]
        law_into(K, C, k2, k3, sigma0, e0, sK, sC, w, e, eps, epsdot, f, dK, dC)
        r[e, 0] = f[0]
        if want_jac:
            j[e, 0, 0] = dK[0, 0] * (dcoef if differential[e] else 1.0)


@kernel
def abstract_force_loads(F, r):
    """Abstract forces: f = -F(t) on the dof's row."""
    for e in range(len(F)):
        r[e, 0] = -F[e]


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_genel(reader, model, args, label, word):
    """`genel: <label>, [name,] spring support, (NodeDof), (ConstitutiveLaw<1D>) [, output ...]`
    (manual §8.9; elements/genel.py).  Other genels are not supported."""
    tw = args.peek()
    if not args.is_keyword("spring support"):
        raise tw.error(reader.not_supported(f"{reader.shown(tw.text) if tw else 'this'} (genel)"))
    dw = args.peek()
    dof = reader.read_node_dof(args)
    if dof.order != "algebraic":
        raise dw.error("spring support: the dof order must be 'algebraic' (the law acts on the value)")
    lw = args.peek()
    law = reader.read_law(args, 1)
    if law.viscous:
        raise lw.error("spring support: MBDyn gives the law no strain rate; a viscous law is refused")
    if args.is_keyword("output"):
        reader.read_output_flag(args, "genels")
    model.spring_support(label, dof.node, law, dof.node_type, dof.index, dof.order)


CARDS = {
    "genel": read_genel,
}
