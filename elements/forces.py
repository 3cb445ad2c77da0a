"""Structural forces and couples (manual §14.2): absolute or follower, on one node or
internal between two nodes.  The value is a template drive F(t); a follower value is
expressed in node 1's frame, F = R1 F̃(t).  A force acts at the offset point o1 = R1 õ1
of node 1 (internal: -F at o2 = R2 õ2 of node 2); a couple has no point.  Jacobian: the
perturbation table of eqs. 14.5 and 14.7.

A value may read the model state (string drives with `model::element::...` or
`model::node::...`, engine/privdata.py): such drives are re-evaluated at every residual
instead of once per time step, and their dependence on the unknowns is left out of the
Jacobian, as in MBDyn, whose forces assemble only the terms above (the drive is a plain
number to them); Newton then converges linearly in that coupling."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.engine.core.compiled import (kernel, set_row3, set_block, vload, mload, vadd, vscale, vcross,
                                        zero3, skew, mvec, mmul, madd, mscale, mdiag)
from mbdae.engine.core.privdata import state_sources
from mbdae.engine.core.tpldrive import VectorDriveArray
from mbdae.elements.modal import read_modal_force
from mbdae.elements.hull_buoyancy import read_hull_buoyancy
from mbdae.elements.base import ElementFamily, two_node_columns, vec, vector_drive, random_nodes
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.drives import SineDrive


@dataclass
class ForceSpec:
    label: int
    kind: str            # "force" | "couple"
    frame: str           # "absolute" | "follower"
    node1: int
    value: object        # VectorDrive
    node2: object = None
    o1: np.ndarray = field(default_factory=lambda: np.zeros(3))
    o2: np.ndarray = field(default_factory=lambda: np.zeros(3))
    output: bool = True


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def force(model, label, node, value, frame="absolute", offset=None, node2=None, offset2=None):
    """Structural force (absolute or follower; internal when node2 is given), §14.2.1."""
    model.forces.append(ForceSpec(label, "force", frame, node, vector_drive(value), node2,
                                 vec(offset), vec(offset2)))
    return label


def couple(model, label, node, value, frame="absolute", node2=None):
    """Structural couple (absolute or follower; internal when node2 is given), §14.2.2."""
    model.forces.append(ForceSpec(label, "couple", frame, node, vector_drive(value), node2))
    return label


MODEL_FIELDS = {"forces": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (force, couple,)


def build(model, nodes, built):
    return [StructuralForces(model.forces, nodes)] if model.forces else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def force_sample(model, rng):
    m = model
    random_nodes(m, rng, 3)
    vd = lambda: VectorDrive.single(rng.normal(size=3), SineDrive(0.0, 3.0, 2.0, "forever", 0.5))
    m.force(1, 1, vd(), "absolute", offset=rng.normal(size=3))
    m.force(2, 2, vd(), "follower", offset=rng.normal(size=3))
    m.force(3, 1, vd(), "absolute", offset=rng.normal(size=3), node2=3, offset2=rng.normal(size=3))
    m.force(4, 2, vd(), "follower", offset=rng.normal(size=3), node2=3, offset2=rng.normal(size=3))
    m.couple(5, 3, vd(), "absolute")
    m.couple(6, 1, vd(), "follower")
    m.couple(7, 2, vd(), "follower", node2=1)
    m.couple(8, 3, vd(), "absolute", node2=2)
    return m


SAMPLES = {"force": [force_sample]}


class StructuralForces(ElementFamily):
    name = "force"
    output_file = "frc"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        for s in S:
            if s.kind not in ("force", "couple") or s.frame not in ("absolute", "follower"):
                raise ValueError(f"{s.kind} {s.label}: unknown type {s.frame} {s.kind}")
        self.n1 = self.node_index([s.node1 for s in S])
        self.n2 = self.node_index([s.node2 for s in S])
        self.has2 = self.n2 >= 0
        self.is_force = np.array([s.kind == "force" for s in S])
        self.follower = np.array([s.frame == "follower" for s in S])
        self.o1 = np.array([s.o1 for s in S], float).reshape(-1, 3)
        self.o2 = np.array([s.o2 for s in S], float).reshape(-1, 3)
        # values of time only (evaluated once per time step) and values that read the model
        # state (re-evaluated at every residual): two arrays, each with zero rows for the other
        sources = [state_sources(s.value) for s in S]
        self.state_sources = list(dict.fromkeys(src for found in sources for src in found))
        self.value = VectorDriveArray([None if found else s.value for s, found in zip(S, sources)])
        self.state_value = VectorDriveArray([s.value if found else None for s, found in zip(S, sources)])
        # .frc row sets (output_groups): (labels, instances, columns) per kind, fixed
        out = np.array([s.output for s in S], bool)
        self.output_sets = []
        for force in (True, False):
            for internal in (False, True):
                sel = np.flatnonzero(out & (self.is_force == force) & (self.has2 == internal))
                if sel.size:
                    width = (7 if force else 4) * (2 if internal else 1)
                    self.output_sets.append((self.labels[sel], sel, width))

    def build_pattern(self):
        p = self.pattern = Pattern()
        rows, rot_columns = two_node_columns(self.nodes, self.n1, self.n2)
        p.add_res(rows)
        p.add_jac(rows, rot_columns)
        return p

    def drive_values(self, t):
        """F̃(t) (n, 3), read-only.  The values of time only come from their VectorDriveArray,
        which redoes its product only when its drives' values change (once per time step);
        the values that read the model state are re-evaluated at every call (their
        DriveArray's values at equal t are dropped) and added (each array has zero rows for
        the other's instances)."""
        P = self.value.values(t)
        if not self.state_sources:
            return P
        self.state_value.array.clear_cache()
        P = P + self.state_value.values(t)
        P.flags.writeable = False
        return P

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (force_loads) over all forces and couples; the drive values
        are evaluated here, once."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        force_loads(float(kin.dcoef), self.n1, self.n2, self.is_force, self.follower, self.o1, self.o2,
                    self.drive_values(ctx.t), kin.R, kin.G, want_jac, res_views[0], jac[0])

    def output_groups(self, ctx):
        """.frc rows (spec §7.6): force: node, force (global), application point x1 + R1 õ1;
        internal force: node 1, F, point 1, node 2, -F, point 2; couple: node, couple;
        internal couple: node 1, M, node 2, -M.  Node labels are written as numbers."""
        for src in self.state_sources:
            src.bind(ctx)
        rows = np.empty((self.ne, 14))
        kin = ctx.kin
        force_output_rows(self.n1, self.n2, self.is_force, self.follower, self.o1, self.o2,
                          self.drive_values(ctx.t), kin.x, kin.R, self.nodes.labels, rows)
        return [(labels, rows[sel, :width]) for labels, sel, width in self.output_sets]


# ---------------------------------------------------------------- kernels
@kernel
def applied_load(e, n1, n2, follower, o1_local, o2_local, P_local, R):
    """(P, o1, o2) of instance e: the value P = F̃ (absolute) or R1 F̃ (follower) and the
    offsets o1 = R1 õ1, o2 = R2 õ2 (zero without node 2), global."""
    R1 = mload(R, n1[e])
    P = vload(P_local, e)
    if follower[e]:
        P = mvec(R1, P)
    o2 = zero3()
    if n2[e] >= 0:
        o2 = mvec(mload(R, n2[e]), vload(o2_local, e))
    return P, mvec(R1, vload(o1_local, e)), o2


@kernel
def force_output_rows(n1, n2, is_force, follower, o1_local, o2_local, P_local, x, R, labels, out):
    """.frc row of every instance into out (n, 14): force: node 1, P, x1 + o1 [, node 2, -P,
    x2 + o2]; couple: node 1, P [, node 2, -P] (the columns after a row's width are unset)."""
    for e in range(len(n1)):
        P, o1, o2 = applied_load(e, n1, n2, follower, o1_local, o2_local, P_local, R)
        out[e, 0] = labels[n1[e]]
        set_row3(out, e, 1, P)
        c = 4
        if is_force[e]:
            set_row3(out, e, 4, vadd(vload(x, n1[e]), o1))
            c = 7
        if n2[e] >= 0:
            out[e, c] = labels[n2[e]]
            set_row3(out, e, c + 1, vscale(-1.0, P))
            if is_force[e]:
                set_row3(out, e, c + 4, vadd(vload(x, n2[e]), o2))


@kernel
def force_loads(dcoef, n1, n2, is_force, follower, o1_local, o2_local, P_local, R, G, want_jac, r, j):
    """Equation terms f = -(applied load) of forces and couples on the rows (x1, g1, x2, g2)
    (node 2 of an internal element gets the opposite load; no node 2: zero rows):
    force -P at o1 (moment -o1×P), +P at o2 (moment o2×P); couple -P, +P.
    Jacobian (eqs. 14.5, 14.7) on the rotation columns (g1, g2) through T_θ = dCoef G:
    a follower value moves with node 1 (δP = -P× θ1), an offset with its node
    (δ(o×P) = P× o× θ + o× δP)."""
    Z = mdiag(0.0)
    for e in range(len(n1)):
        P, o1, o2 = applied_load(e, n1, n2, follower, o1_local, o2_local, P_local, R)
        force = is_force[e]
        has2 = n2[e] >= 0
        set_row3(r, e, 0, vscale(-1.0, P) if force else zero3())
        set_row3(r, e, 3, vscale(-1.0, vcross(o1, P) if force else P))
        if has2:
            set_row3(r, e, 6, P if force else zero3())
            set_row3(r, e, 9, vcross(o2, P) if force else P)
        else:
            set_row3(r, e, 6, zero3())
            set_row3(r, e, 9, zero3())
        if not want_jac:
            continue
        Px = skew(P)
        DP = mscale(-1.0, Px) if follower[e] else Z          # ∂P/∂θ1
        if force:
            A0 = mscale(-1.0, DP)
            A1 = mscale(-1.0, madd(mmul(Px, skew(o1)), mmul(skew(o1), DP)))
        else:
            A0 = Z
            A1 = mscale(-1.0, DP)
        A2, A3, B3 = Z, Z, Z                                 # node-2 rows on θ1; (x2.., g2) on θ2
        if has2:
            if force:
                A2 = DP
                A3 = mmul(skew(o2), DP)
                B3 = mmul(Px, skew(o2))
            else:
                A3 = DP
        T1 = mscale(dcoef, mload(G, n1[e]))
        set_block(j[e], 0, 0, mmul(A0, T1))
        set_block(j[e], 3, 0, mmul(A1, T1))
        set_block(j[e], 6, 0, mmul(A2, T1))
        set_block(j[e], 9, 0, mmul(A3, T1))
        set_block(j[e], 0, 3, Z)
        set_block(j[e], 3, 3, Z)
        set_block(j[e], 6, 3, Z)
        set_block(j[e], 9, 3, mmul(B3, mscale(dcoef, mload(G, n2[e]))) if has2 else Z)


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_force(reader, model, args, label, word, couple=False):
    """`force|couple: label, [name,] {absolute|follower} [internal], node, ...` (manual §8.8,
    §8.6); absolute values are global, follower values in the node frame."""
    if not couple and args.is_keyword("abstract"):
        return read_abstract_force(reader, model, args, label)
    if not couple and args.is_keyword("modal"):
        return read_modal_force(reader, model, args, label)
    if not couple and args.is_keyword("absolute displacement"):
        return read_displacement_force(reader, model, args, label)
    if not couple and args.is_keyword("hull buoyancy"):
        return read_hull_buoyancy(reader, model, args, label)
    frame, internal = force_type(reader, args.take("a force type"), couple)
    kind = "abs direction" if frame == "absolute" else "rel direction"
    n1 = reader.structural_node(args)
    s1 = reader.make_site(n1.frame, n1.label)
    n2, arm2 = None, None
    if internal:
        arm1 = read_force_arm(reader, args, s1, couple)
        n2 = reader.structural_node(args)
        s2 = reader.make_site(n2.frame, n2.label, other=n1.frame, other_offset=arm1, other_orientation=np.eye(3))
        arm2 = read_force_arm(reader, args, s2, couple)
        value = reader.read_tpl_vec3(args, kind, s1)
    elif couple or args.peek_keyword() == "position":
        arm1 = read_force_arm(reader, args, s1, couple)
        value = reader.read_tpl_vec3(args, kind, s1)
    else:
        arm1, value = read_legacy_force(reader, args, kind, s1)
    if args.is_keyword("output relative"):
        reader.note(args.card.name, "output relative: mbdae writes the .frc force in the global frame")
    output = reader.read_output_flag(args, "forces") if args.is_keyword("output") else "forces" in reader.default_output
    node2 = n2.label if internal else None
    if couple:
        model.couple(label, n1.label, value, frame, node2=node2)
    else:
        model.force(label, n1.label, value, frame, offset=arm1, node2=node2, offset2=arm2)
    model.forces[-1].output = output


def read_couple(reader, model, args, label, word):
    read_force(reader, model, args, label, word, couple=True)


def force_type(reader, word, couple):
    """(frame, internal) of `{absolute | follower | conservative} [internal]`."""
    what = "couple" if couple else "force"
    ftype = reader.normalize(word.text)
    ftype = {"conservative": "absolute", "conservativeinternal": "absoluteinternal"}.get(ftype, ftype)
    if ftype in ("absolute", "follower", "absoluteinternal", "followerinternal"):
        return ftype.replace("internal", ""), ftype.endswith("internal")
    known = ("total", "totalinternal", "abstract", "abstractinternal", "externalstructural",
             "externalmodal", "externalstructuralmapping", "externalmodalmapping",
             "absolutedisplacement", "absoluteinternaldisplacement")
    if ftype in known:
        raise word.error(reader.not_supported(f"{reader.shown(word.text)} ({what})"))
    raise word.error(f"syntax error: unknown {what} type '{word.text}'")


def read_legacy_force(reader, args, kind, site):
    """Force without `position` (legacy): direction, arm, magnitude drive (spec §7.6)."""
    dw = args.peek()
    direction = reader.read_vec3(args, kind, site)
    norm = np.linalg.norm(direction)
    if norm == 0:
        raise dw.error("force direction is null")
    arm = reader.read_vec3(args, "rel position", site)
    return arm, reader.read_single_tpl(args, direction / norm)


def read_force_arm(reader, args, site, couple):
    """The arm: `position, <Vec3>` (optional for couples)."""
    if couple:
        if args.is_keyword("position"):
            return reader.read_vec3(args, "rel position", site)
        return np.zeros(3)
    args.expect_keyword("position")
    return reader.read_vec3(args, "rel position", site)


def read_displacement_force(reader, model, args, label):
    """`force: <label>, absolute displacement, <node>, (TplDriveCaller<Vec3>) [, output ...]`
    (input manual "Structural force"; MBDyn's force on a displacement node): an absolute
    force at the node's position, on any structural node (no moment)."""
    n1 = reader.structural_node(args)
    value = reader.read_tpl_vec3(args, "abs direction", reader.make_site(n1.frame, n1.label))
    output = reader.read_output_flag(args, "forces") if args.is_keyword("output") else "forces" in reader.default_output
    model.force(label, n1.label, value, "absolute")
    model.forces[-1].output = output


def read_abstract_force(reader, model, args, label):
    """`force: <label>, abstract, (NodeDof), (DriveCaller) [, output ...]` (manual §8.8)."""
    dof = reader.read_node_dof(args)
    drive = reader.read_drive(args)
    output = reader.read_output_flag(args, "forces") if args.is_keyword("output") else "forces" in reader.default_output
    model.abstract_force(label, dof.node, drive, dof.node_type, dof.index)
    model.abstract_forces[-1].output = output


CARDS = {
    "force": read_force, "couple": read_couple,
}
