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

from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core.drives import DriveArray
from mbdae.engine.core.constitutive import ScalarLaws
from mbdae.elements.base import ElementFamily


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

    def evaluate(self, ctx, want_jac):
        x = ctx.y[self.rows]
        F, E, _ = self.laws.evaluate(x, 0.0, ctx.t)
        res = [F[:, None]]
        if not want_jac:
            return res, None
        w = np.where(self.differential, ctx.dcoef, 1.0)
        return res, [(E * w)[:, None, None]]

    output_file = "gen"

    def output_groups(self, ctx):
        """MBDyn opens a .gen file for genels; a spring support writes no rows in it."""
        return []

    def force(self, ctx):
        """The law's value F per instance (MBDyn's private datum "F")."""
        return self.laws.evaluate(ctx.y[self.rows], 0.0, ctx.t)[0]


class AbstractForces(ElementFamily):
    name = "abstract force"
    output_file = "frc"

    def __init__(self, specs, nodes, abstract=None):
        super().__init__(specs, nodes)
        self.abstract = abstract
        self.drives = DriveArray([s.drive for s in self.specs])
        from mbdae.engine.core.privdata import state_sources
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

    def evaluate(self, ctx, want_jac):
        res = [-self.values(ctx.t)[:, None]]
        return res, ([] if want_jac else None)

    def output_groups(self, ctx):
        """.frc rows: label, node label, F."""
        for src in self.state_sources:
            src.bind(ctx)
        F = self.values(ctx.t)
        out = np.array([s.output for s in self.specs], bool)
        vals = np.stack([_dof_node_labels(self.specs), F], axis=1)
        return [(self.labels[out], vals[out])]


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
