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

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core.privdata import state_sources
from mbdae.engine.core.tpldrive import VectorDriveArray
from mbdae.elements.base import (ElementFamily, two_node_columns, write_blocks, vec, vector_drive,
                                 random_rotation, random_nodes)
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
        self.value = VectorDriveArray([s.value for s in S])
        self.state_sources = list(dict.fromkeys(src for s in S for src in state_sources(s.value)))

    def build_pattern(self):
        p = self.pattern = Pattern()
        rows, rot_columns = two_node_columns(self.nodes, self.n1, self.n2)
        p.add_res(rows)
        p.add_jac(rows, rot_columns)
        return p

    def _drive_values(self, t):
        """F̃(t) (n, 3).  The drives' DriveArray returns the same array object while t is
        unchanged, so the sparse product is redone only when the drive values change (once
        per time step instead of once per Newton iteration)."""
        vd = self.value
        if vd.empty:
            return vd.values(t)
        if self.state_sources:            # values follow the state: no caching at equal t
            vd.array.clear_cache()
            return vd.values(t)
        d = vd.array.values(t)
        if d is not getattr(self, "_last_drive_values", None):
            P = vd.values(t)
            P.flags.writeable = False
            self._last_drive_values, self._last_P = d, P
        return self._last_P

    def applied(self, ctx):
        """Value vector P (global) and offsets o1, o2 (global)."""
        kin = ctx.kin
        R1 = kin.R[self.n1]
        P = self._drive_values(ctx.t)
        P = np.where(self.follower[:, None], rot.matvec(R1, P), P)
        o1 = rot.matvec(R1, self.o1)
        o2 = rot.matvec(kin.R[np.maximum(self.n2, 0)], self.o2)
        return P, o1, o2

    def evaluate(self, ctx, res_views, jac_views):
        want_jac = jac_views is not None
        P, o1, o2 = self.applied(ctx)
        isF = self.is_force[:, None].astype(float)
        isC = 1.0 - isF
        h2 = self.has2[:, None].astype(float)
        # equation terms f = -(applied load); node 2 of an internal element gets the opposite load
        f = np.concatenate([-isF * P, -isF * rot.cross(o1, P) - isC * P,
                            h2 * isF * P, h2 * (isF * rot.cross(o2, P) + isC * P)], axis=1)
        if not want_jac:
            write_blocks(res_views, [f])
            return
        Px, o1x, o2x = rot.skew(P), rot.skew(o1), rot.skew(o2)
        DP = np.where(self.follower[:, None, None], -Px, 0.0)
        isF3, isC3, h23 = isF[:, :, None], isC[:, :, None], h2[:, :, None]
        D = np.zeros((self.ne, 12, 6))
        D[:, 0:3, 0:3] = -isF3 * DP
        D[:, 3:6, 0:3] = -isF3 * (Px @ o1x + o1x @ DP) - isC3 * DP
        D[:, 6:9, 0:3] = h23 * isF3 * DP
        D[:, 9:12, 0:3] = h23 * (isF3 * (o2x @ DP) + isC3 * DP)
        D[:, 9:12, 3:6] = h23 * isF3 * (Px @ o2x)
        kin = ctx.kin
        J = np.empty_like(D)
        J[:, :, 0:3] = D[:, :, 0:3] @ kin.Tth[self.n1]
        J[:, :, 3:6] = D[:, :, 3:6] @ kin.Tth[np.maximum(self.n2, 0)]
        write_blocks(res_views, [f])
        write_blocks(jac_views, [J])

    def output_groups(self, ctx):
        """.frc rows (spec §7.6): force: node, force (global), application point x1 + R1 õ1;
        internal force: node 1, F, point 1, node 2, -F, point 2; couple: node, couple;
        internal couple: node 1, M, node 2, -M.  Node labels are written as numbers."""
        for src in self.state_sources:
            src.bind(ctx)
        P, o1, o2 = self.applied(ctx)
        kin = ctx.kin
        n1 = self.nodes.labels[self.n1].astype(float)[:, None]
        n2 = np.where(self.has2, self.nodes.labels[np.maximum(self.n2, 0)], 0).astype(float)[:, None]
        p1 = kin.x[self.n1] + o1
        p2 = kin.x[np.maximum(self.n2, 0)] + o2
        out = np.array([s.output for s in self.specs], bool)
        groups = []
        for force in (True, False):
            for internal in (False, True):
                sel = out & (self.is_force == force) & (self.has2 == internal)
                if not sel.any():
                    continue
                if force:
                    cols = [n1, P, p1] + ([n2, -P, p2] if internal else [])
                else:
                    cols = [n1, P] + ([n2, -P] if internal else [])
                groups.append((self.labels[sel], np.concatenate(cols, axis=1)[sel]))
        return groups


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
    known = ("total", "totalinternal", "abstract", "abstractinternal", "modal", "externalstructural",
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
