"""Scalar elements on one degree of freedom (a `NodeDof`, input manual §2.5 / spec §7.10):
the `spring support`, `cross spring support` and `clamp` genels (manual §8.9, "Genel
Element") and the `abstract` force (manual §8.8, theory manual §14.1).

A NodeDof names a scalar unknown: an abstract or a hydraulic node (elements/abstract_nodes.py),
or a position component (index 1-3) of a structural node (of any kind, the displacement-only
nodes included: their position rows are laid out like the others').  Its equation row
receives the loads.

Spring support: a 1-D elastic law of the dof value, F(x - x0(t)); MBDyn gives the law the value
x only (strain rate 0, the dof order must be `algebraic`), and the row receives -F:
    f = +F(x),   J = ∂F/∂x · (dCoef for a differential dof | 1 for an algebraic one).
Cross spring support: the same law of the value of a second (`col`) dof, on the first
(`row`) dof's equation: f_row = +F(x_col), J[row, col] = ∂F/∂x · (dCoef | 1).
Abstract force: a scalar drive F(t) added to the row, f = -F.  The drive may read the model
state (`element` drives, model::element): it is then evaluated at every residual and, as in
MBDyn (whose AbstractForce assembles no Jacobian), contributes no Jacobian term.
Clamp: the dof value x is held at a drive's value v(t) (`from node`: at the dof's input
value) by one algebraic multiplier λ the family owns.  As in MBDyn's GenelClamp, the dof's
row receives +λ (so λ balances what the other terms put on that row: on a static node
loaded by F along the dof, λ = F; the reaction the clamp applies is -λ) and the
multiplier's row is the constraint
    f_λ = (x - v(t)) / dCoef  on a differential dof (a structural position, a differential
                              abstract node: x += dCoef Δẋ, so ∂f_λ/∂Δẋ = 1),
    f_λ =  x - v(t)           on an algebraic dof (an algebraic abstract or a hydraulic node:
                              x += Δ, ∂f_λ/∂Δ = 1).
Only the `algebraic` order (the value) is implemented; a `differential` one is refused.
In the derivatives phase a divided row is written at velocity level, (ẋ - v̇)/dCoef, as the
joints' position rows are (ẋ is what that phase solves for).  MBDyn's genels take no part in
the initial assembly (they are not initial-assembly elements; the manual's assembly involves
joints, and deformable and force elements on request): there the family only holds λ at zero.
After the assembly MBDyn writes v(t0) into the dof (GenelClamp::SetValue); mbdae does not
(a family's initial values are set without the initial time), so a drive whose v(t0) differs
from the dof's input value is imposed from the first step on.
Output (.gen, manual §8.9, "Clamp"): one row per clamp, `label, λ` (MBDyn's "value of the
reaction unknown"); spring supports write nothing in it; abstract forces write .frc rows
`label, node label, F`."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core.assembly import Pattern, ALGEBRAIC, DIM, kernel_jacobian_views
from mbdae.engine.core.compiled import kernel
from mbdae.engine.core.privdata import state_sources
from mbdae.engine.core.drives import DriveArray
from mbdae.engine.core.constitutive import ScalarLaws, law_into
from mbdae.engine.core.state import DERIVATIVES
from mbdae.elements.base import ElementFamily, scalar_drive, random_rotation, random_nodes
from mbdae.engine.core.constitutive import LinearElastic1D, cubic_elastic
from mbdae.engine.core.drives import LinearDrive, SineDrive, ConstDrive

SCALAR_NODE_TYPES = ("abstract", "hydraulic")   # NodeDof node types owned by scalar-node families
IA_MODES = ("ia_position", "ia_velocity")


@dataclass
class NodeDof:
    """`<node label>, <node type> [, <index>] [, {algebraic | differential}]`."""
    node: int
    node_type: str = "abstract"     # "abstract" | "hydraulic" | "structural"
    index: int = 1                  # structural: 1-3 (position components)
    order: str = "algebraic"        # "algebraic" (the value) | "differential" (the derivative)


@dataclass
class SpringSupportSpec:
    label: int
    dof: NodeDof
    law: object                     # 1-D elastic law (constitutive.Law or LinearElastic1D)
    output: bool = True


@dataclass
class CrossSpringSupportSpec:
    label: int
    row: NodeDof                    # the dof whose equation receives the law's value
    col: NodeDof                    # the dof whose value the law reads
    law: object                     # 1-D elastic law
    output: bool = True


@dataclass
class AbstractForceSpec:
    label: int
    dof: NodeDof
    drive: object                   # scalar drive
    output: bool = True


@dataclass
class GenelClampSpec:
    label: int
    dof: NodeDof
    drive: object                   # scalar drive of the imposed value; None: the dof's input value
    output: bool = True


def scalar_node_families(built):
    """{node type: family} of the scalar-node families among `built` (elements/abstract_nodes.py:
    the families whose `node_type` is one of SCALAR_NODE_TYPES)."""
    return {fam.node_type: fam for fam in built if getattr(fam, "node_type", None) in SCALAR_NODE_TYPES}


def _scalar_family(scalar, d, label, what):
    fam = scalar.get(d.node_type)
    if fam is None:
        raise KeyError(f"{what} {label}: {d.node_type} node {d.node} is not defined (the model has none)")
    try:
        return fam, fam.index(d.node)
    except KeyError as e:
        raise KeyError(f"{what} {label}: {e.args[0]}") from None


def _structural_index(nodes, d, label, what):
    if d.index not in (1, 2, 3):
        raise ValueError(f"{what} {label}: structural node dof index {d.index} not supported "
                         "(positions 1-3 only)")
    try:
        return nodes.index(d.node)
    except KeyError:
        raise KeyError(f"{what} {label}: structural node {d.node} is not defined") from None


def resolve_dofs(dofs, nodes, scalar, what):
    """(rows, differential flags) of NodeDofs [(element label, NodeDof)]; `scalar`: the
    scalar-node families by node type (scalar_node_families).  Valid once the System has laid
    out the unknowns (build_pattern)."""
    rows, diff = [], []
    for label, d in dofs:
        if d.node_type in SCALAR_NODE_TYPES:
            fam, i = _scalar_family(scalar, d, label, what)
            rows.append(fam.rows[i])
            diff.append(bool(fam.differential[i]))
        elif d.node_type == "structural":
            i = _structural_index(nodes, d, label, what)
            rows.append(nodes.ix[i, d.index - 1])
            diff.append(True)
        else:
            raise ValueError(f"{what} {label}: node type {d.node_type!r} is not one of abstract, "
                             "hydraulic, structural")
    return np.array(rows, np.int64), np.array(diff, bool)


def input_dof_values(dofs, nodes, scalar, what):
    """The input (initial) values of NodeDofs [(element label, NodeDof)]: a structural node's
    input position component, a scalar node's input value (`from node`, manual §8.9, "Clamp")."""
    values = []
    for label, d in dofs:
        if d.node_type in SCALAR_NODE_TYPES:
            fam, i = _scalar_family(scalar, d, label, what)
            values.append(fam.x0[i])
        else:
            values.append(nodes.x0[_structural_index(nodes, d, label, what), d.index - 1])
    return np.array(values, float)


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


def cross_spring_support(model, label, row_node, col_node, law, row_type="abstract", row_index=1,
                         col_type="abstract", col_index=1):
    """`genel: cross spring support` (input manual §8.9): a 1-D elastic law of the value of
    the `col` dof written to the equation of the `row` dof (elements/genel.py)."""
    model.cross_spring_supports.append(CrossSpringSupportSpec(
        label, NodeDof(row_node, row_type, row_index), NodeDof(col_node, col_type, col_index), law))
    return label


def abstract_force(model, label, node, drive, node_type="abstract", index=1):
    """`force: abstract` (input manual §8.8): a scalar drive on a dof's equation."""
    model.abstract_forces.append(
        AbstractForceSpec(label, NodeDof(node, node_type, index), scalar_drive(drive)))
    return label


def genel_clamp(model, label, node, node_type="structural", index=1, value=None, order="algebraic",
                output=True):
    """`genel: clamp` (input manual §8.9, "Clamp"): holds one dof at `value` (a number or a scalar
    drive; None: `from node`, the dof's input value) with a multiplier (elements/genel.py)."""
    model.genel_clamps.append(
        GenelClampSpec(label, NodeDof(node, node_type, index, order), scalar_drive(value), output))
    return label


MODEL_FIELDS = {"spring_supports": list, "cross_spring_supports": list, "abstract_forces": list,
                "genel_clamps": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (spring_support, cross_spring_support, abstract_force, genel_clamp,)


def build(model, nodes, built):
    """Spring supports, abstract forces and clamps, on the scalar nodes built before them."""
    scalar = scalar_node_families(built)
    families = []
    if model.spring_supports:
        families.append(SpringSupports(model.spring_supports, nodes, scalar))
    if model.cross_spring_supports:
        families.append(CrossSpringSupports(model.cross_spring_supports, nodes, scalar))
    if model.abstract_forces:
        families.append(AbstractForces(model.abstract_forces, nodes, scalar))
    if model.genel_clamps:
        families.append(GenelClamps(model.genel_clamps, nodes, scalar))
    return families


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def genel_sample(model, rng):
    """Abstract nodes (differential and algebraic) and hydraulic nodes with spring supports,
    abstract forces and clamps (driven and `from node` ones, on differential and algebraic
    dofs), and a spring support, an abstract force and clamps on structural position dofs."""
    m = model
    random_nodes(m, rng, 1)
    m.abstract_node(1, "differential", rng.normal(), rng.normal())
    m.abstract_node(2, "algebraic", rng.normal())
    m.abstract_node(3, "differential")
    m.hydraulic_node(1, rng.normal())
    m.hydraulic_node(2, rng.normal())
    m.spring_support(1, 1, LinearElastic1D(3.0, LinearDrive(0.1, 0.2)))
    m.spring_support(2, 2, LinearElastic1D(5.0))
    m.spring_support(3, 1, LinearElastic1D(7.0), node_type="structural", index=2)
    m.spring_support(4, 3, LinearElastic1D(2.0))
    m.spring_support(5, 2, cubic_elastic(1, 1.0, 20.0, 300.0))
    m.spring_support(6, 2, LinearElastic1D(4.0), node_type="hydraulic")
    m.cross_spring_support(21, 2, 1, LinearElastic1D(6.0, LinearDrive(0.2, -0.1)))
    m.cross_spring_support(22, 1, 1, cubic_elastic(1, 2.0, 10.0, 30.0), row_type="abstract",
                           col_type="structural", col_index=3)
    m.cross_spring_support(23, 1, 2, LinearElastic1D(-9.0), row_type="structural", row_index=1,
                           col_type="abstract")
    m.cross_spring_support(24, 1, 2, LinearElastic1D(1.5), row_type="hydraulic", col_type="hydraulic")
    m.abstract_force(5, 1, SineDrive(0.0, 3.0, 2.0, "forever", 0.5))
    m.abstract_force(6, 2, LinearDrive(1.0, 0.5))
    m.abstract_force(7, 1, ConstDrive(0.3), node_type="structural", index=3)
    m.abstract_force(8, 1, ConstDrive(-0.4), node_type="hydraulic")
    m.genel_clamp(11, 3, "abstract", value=SineDrive(0.0, 2.0, 0.5, "forever", 0.1))
    m.genel_clamp(12, 1, "hydraulic", value=LinearDrive(0.3, -0.2))
    m.genel_clamp(13, 2, "hydraulic")
    m.genel_clamp(14, 1, "structural", index=1, value=LinearDrive(0.1, 0.7))
    m.genel_clamp(15, 1, "structural", index=3)
    return m


SAMPLES = {"spring support": [genel_sample], "cross spring support": [genel_sample],
           "abstract force": [genel_sample],
           "genel clamp": [genel_sample]}


class SpringSupports(ElementFamily):
    name = "spring support"

    def __init__(self, specs, nodes, scalar=None):
        super().__init__(specs, nodes)
        self.scalar = {} if scalar is None else scalar
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
                                                    self.nodes, self.scalar, "genel")
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


class CrossSpringSupports(ElementFamily):
    """Cross spring supports (input manual §8.9, "Cross spring support"): the 1-D elastic law
    F of the value x_c of the `col` dof, on the equation of the `row` dof (as MBDyn's, whose
    residual gets -F): f_row = +F(x_c), ∂f_row/∂Δ_c = ∂F/∂x · (dCoef for a differential col
    dof | 1 for an algebraic one), by the spring supports' kernel read at the col dofs."""
    name = "cross spring support"
    output_file = "gen"

    def __init__(self, specs, nodes, scalar=None):
        super().__init__(specs, nodes)
        self.scalar = {} if scalar is None else scalar
        for s in self.specs:
            if s.col.order != "algebraic":
                raise ValueError(f"genel {s.label}: a cross spring support reads the value of its "
                                 "column dof: its order must be 'algebraic'")
        self.laws = ScalarLaws([s.law for s in self.specs], [f"genel {s.label}" for s in self.specs])
        for s, law in zip(self.specs, self.laws.laws):
            if law.viscous or not law.elastic:
                raise ValueError(f"genel {s.label}: a cross spring support takes an elastic 1-D law "
                                 "(it gets no strain rate)")

    def build_pattern(self):
        self.rows, _ = resolve_dofs([(s.label, s.row) for s in self.specs], self.nodes, self.scalar, "genel")
        self.cols, self.differential = resolve_dofs([(s.label, s.col) for s in self.specs], self.nodes,
                                                    self.scalar, "genel")
        p = self.pattern = Pattern()
        p.add_res(self.rows[:, None])
        p.add_jac(self.rows[:, None], self.cols[:, None])
        return p

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (spring_support_loads at the col dofs) over all instances."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        laws = self.laws.vectorized
        spring_support_loads(ctx.y, self.cols, self.differential, float(ctx.dcoef), *laws.arrays,
                             *laws.time_values(ctx.t), want_jac, res_views[0], jac[0])

    def output_groups(self, ctx):
        """MBDyn writes no .gen rows for a cross spring support."""
        return []


class AbstractForces(ElementFamily):
    name = "abstract force"
    output_file = "frc"

    def __init__(self, specs, nodes, scalar=None):
        super().__init__(specs, nodes)
        self.scalar = {} if scalar is None else scalar
        self.drives = DriveArray([s.drive for s in self.specs])
        self.state_sources = list(dict.fromkeys(src for s in self.specs for src in state_sources(s.drive)))

    def build_pattern(self):
        self.rows, self.differential = resolve_dofs([(s.label, s.dof) for s in self.specs],
                                                    self.nodes, self.scalar, "abstract force")
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


class GenelClamps(ElementFamily):
    """Clamp genels (manual §8.9, "Clamp"): one multiplier λ per clamp (see the module docstring)."""
    name = "genel clamp"
    output_file = "gen"
    # in the initial assembly only λ is held at zero (MBDyn's genels take no part in it)
    in_initial_assembly = True

    def __init__(self, specs, nodes, scalar=None):
        super().__init__(specs, nodes)
        self.scalar = {} if scalar is None else scalar
        for s in self.specs:
            if s.dof.order != "algebraic":
                raise ValueError(f"genel {s.label}: clamp of the '{s.dof.order}' order of a dof is not "
                                 "supported yet (only 'algebraic': the dof value)")
        dofs = [(s.label, s.dof) for s in self.specs]
        x0 = input_dof_values(dofs, nodes, self.scalar, "genel")      # also checks the dofs exist
        self.drives = DriveArray([s.drive if s.drive is not None else ConstDrive(float(x))
                                  for s, x in zip(self.specs, x0)])
        self.state_sources = list(dict.fromkeys(src for s in self.specs if s.drive is not None
                                                for src in state_sources(s.drive)))
        # rows divided by dCoef: those of differential dofs (structural positions, differential
        # abstract nodes)
        self.divided = np.array([self._differential(label, d) for label, d in dofs], bool)
        self.n_internal = self.ne
        self._zero_rates = np.zeros(self.ne)

    def _differential(self, label, d):
        if d.node_type not in SCALAR_NODE_TYPES:
            return True
        fam, i = _scalar_family(self.scalar, d, label, "genel")
        return bool(fam.differential[i])

    def set_offset(self, start):
        self.offset = start
        self.mult = start + np.arange(self.ne, dtype=np.int64)

    def dof_info(self):
        """One algebraic unknown per clamp; rows divided by dCoef count as position
        constraints (System.scaled_rows), the others as "other"."""
        kind = np.full(self.ne, ALGEBRAIC, np.int64)
        dim = np.where(self.divided, DIM["position constraint"], DIM["other"]).astype(np.int64)
        what = [f"clamp of {s.dof.node_type} {s.dof.node}"
                + (f" dof {s.dof.index}" if s.dof.node_type == "structural" else "") for s in self.specs]
        return kind, dim, self.labels.copy(), what

    def build_pattern(self):
        self.rows, _ = resolve_dofs([(s.label, s.dof) for s in self.specs], self.nodes, self.scalar, "genel")
        p = self.pattern = Pattern()
        rows, mult = self.rows[:, None], self.mult[:, None]
        p.add_res(rows)
        p.add_res(mult)
        p.add_jac(rows, mult)
        p.add_jac(mult, rows)
        p.add_jac(mult, mult)
        return p

    def values(self, t):
        if self.state_sources:               # values follow the state: no caching at equal t
            self.drives.clear_cache()
        return np.asarray(self.drives.values(t), float)

    def imposed(self, ctx):
        """(v, v̇): the imposed values, at ctx.t_constraint on the divided rows (as the joints'
        imposed motion) and at ctx.t on the others, and the rates at ctx.t_constraint (read in
        the derivatives phase only)."""
        v = self.values(ctx.t_constraint)
        if ctx.t_constraint != ctx.t:
            v = np.where(self.divided, v, self.values(ctx.t))
        if ctx.mode != "derivatives":
            return v, self._zero_rates
        return v, np.asarray(self.drives.derivatives(ctx.t_constraint), float)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (genel_clamp_rows) over all clamps."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        v, rate = self.imposed(ctx)
        genel_clamp_rows(ctx.mode in IA_MODES, ctx.mode_code == DERIVATIVES, float(ctx.dcoef), ctx.y, ctx.yp,
                         self.rows, self.mult, self.divided, v, rate, want_jac, res_views[0], res_views[1],
                         jac[0], jac[1], jac[2])

    def multipliers(self, ctx):
        """λ of every clamp (MBDyn's "value of the reaction unknown").  (Not named `reactions`:
        the drivers find the joints by that method, System.family_with.)"""
        return ctx.y[self.mult].copy()

    def output_groups(self, ctx):
        """.gen rows: label, λ."""
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], self.multipliers(ctx)[out][:, None])]


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


@kernel
def genel_clamp_rows(ia, derivatives, dcoef, y, yp, rows, mult, divided, value, rate, want_jac,
                     r_dof, r_c, j_dl, j_ld, j_ll):
    """Clamps: the dof's row gets λ, the multiplier's row (x - v)/dCoef (divided) or x - v;
    in the derivatives phase a divided row is (ẋ - v̇)/dCoef; in the initial assembly only
    λ = 0 (row λ, ∂/∂λ = 1)."""
    for e in range(len(rows)):
        lam = y[mult[e]]
        if ia:
            r_dof[e, 0] = 0.0
            r_c[e, 0] = lam
        else:
            r_dof[e, 0] = lam
            if not divided[e]:
                r_c[e, 0] = y[rows[e]] - value[e]
            elif derivatives:
                r_c[e, 0] = (yp[rows[e]] - rate[e]) / dcoef
            else:
                r_c[e, 0] = (y[rows[e]] - value[e]) / dcoef
        if want_jac:
            j_dl[e, 0, 0] = 0.0 if ia else 1.0
            j_ld[e, 0, 0] = 0.0 if ia else (1.0 / dcoef if derivatives and divided[e] else 1.0)
            j_ll[e, 0, 0] = 1.0 if ia else 0.0


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_genel(reader, model, args, label, word):
    """`genel: <label>, [name,] {spring support | clamp}, ...` (manual §8.9; elements/genel.py).
    Other genels are not supported."""
    tw = args.peek()
    kind = args.is_keyword("spring support", "cross spring support", "clamp")
    if not kind:
        raise tw.error(reader.not_supported(f"{reader.shown(tw.text) if tw else 'this'} (genel)"))
    if kind == "clamp":
        return read_genel_clamp(reader, model, args, label)
    if kind == "crossspringsupport":
        return read_cross_spring_support(reader, model, args, label)
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


def read_cross_spring_support(reader, model, args, label):
    """`cross spring support, (NodeDof) row, (NodeDof) col, (ConstitutiveLaw<1D>) [, output, ...]`
    (manual §8.9): the law of col's algebraic value on row's equation (row's order does not
    matter: the equation is the dof's)."""
    row = reader.read_node_dof(args)
    cw = args.peek()
    col = reader.read_node_dof(args)
    if col.order != "algebraic":
        raise cw.error("cross spring support: the column dof order must be 'algebraic' (the law reads "
                       "its value)")
    lw = args.peek()
    law = reader.read_law(args, 1)
    if law.viscous:
        raise lw.error(reader.not_supported("a viscous law in a cross spring support (MBDyn's cross "
                                            "spring damper support)"))
    if args.is_keyword("output"):
        reader.read_output_flag(args, "genels")
    model.cross_spring_support(label, row.node, col.node, law, row.node_type, row.index,
                               col.node_type, col.index)


def read_genel_clamp(reader, model, args, label):
    """`clamp, (NodeDof), {from node | (DriveCaller)} [, output, ...]` (manual §8.9, "Clamp")."""
    dw = args.peek()
    dof = reader.read_node_dof(args)
    if dof.order != "algebraic":
        raise dw.error(reader.not_supported(f"clamp of the '{dof.order}' order of a dof (genel)"))
    drive = None if args.is_keyword("from node") else reader.read_drive(args)
    output = reader.read_output_flag(args, "genels") if args.is_keyword("output") \
        else "genels" in reader.default_output
    model.genel_clamp(label, dof.node, dof.node_type, dof.index, drive, dof.order, output)


CARDS = {
    "genel": read_genel,
}
