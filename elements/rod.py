"""Rod with offsets (manual §9.2.1): axial force from a 1-D law of the strain
ε = l/l0 - 1, l = ‖x2 + f2 - x1 - f1‖; loads F1 = T u at f1, F2 = -T u at f2.
Jacobian of eqs. 9.240-9.246 (exact, including the strain-rate terms)."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.constitutive import ScalarLaws
from mbdae.elements.base import (ElementFamily, distance_geometric_stiffness, chain12, two_node_pattern,
                                 write_blocks, vec, random_rotation, random_nodes)
from mbdae.engine.core.constitutive import LinearViscoelastic1D, cubic_elastic


@dataclass
class RodSpec:
    label: int
    node1: int
    node2: int
    law: object
    l0: object = None          # None: initial distance
    f1: np.ndarray = field(default_factory=lambda: np.zeros(3))
    f2: np.ndarray = field(default_factory=lambda: np.zeros(3))
    output: bool = True


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def rod(model, label, node1, node2, law, length=None, offset1=None, offset2=None):
    """Rod (with offsets), §9.2.1; length None = initial distance."""
    model.rods.append(RodSpec(label, node1, node2, law, length, vec(offset1), vec(offset2)))
    return label


MODEL_FIELDS = {"rods": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (rod,)


def build(model, nodes, built):
    return [Rods(model.rods, nodes)] if model.rods else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def rod_sample(model, rng):
    m = model
    random_nodes(m, rng, 3)
    m.rod(1, 1, 2, LinearViscoelastic1D(100.0, 3.0, 0.01), offset1=rng.normal(size=3), offset2=rng.normal(size=3))
    m.rod(2, 2, 3, LinearViscoelastic1D(50.0, 0.0), length=2.5)
    m.rod(3, 3, 1, cubic_elastic(1, 20.0, 300.0, 4000.0), length=1.7)      # nonlinear tangent
    return m


SAMPLES = {"rod": [rod_sample]}


class Rods(ElementFamily):
    name = "rod"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        self.n1 = self.node_index([s.node1 for s in S])
        self.n2 = self.node_index([s.node2 for s in S])
        self.f1 = np.array([s.f1 for s in S], float).reshape(-1, 3)
        self.f2 = np.array([s.f2 for s in S], float).reshape(-1, 3)
        self.law = ScalarLaws([s.law for s in S], [f"rod {s.label}" for s in S])
        x1, R1 = nodes.x0[self.n1], nodes.R0[self.n1]
        x2, R2 = nodes.x0[self.n2], nodes.R0[self.n2]
        lini = np.linalg.norm(x2 + rot.matvec(R2, self.f2) - x1 - rot.matvec(R1, self.f1), axis=1)
        self.l0 = np.array([lini[i] if s.l0 is None else float(s.l0) for i, s in enumerate(S)])
        if np.any(self.l0 <= 0):
            raise ValueError("rod: reference length must be positive")
        self.ground = np.zeros(self.ne, bool)

    def build_pattern(self):
        self.pattern = two_node_pattern(self.nodes, self.n1, self.n2)
        return self.pattern

    def kinematics(self, ctx):
        kin = ctx.kin
        R1, R2 = kin.R[self.n1], kin.R[self.n2]
        f1, f2 = rot.matvec(R1, self.f1), rot.matvec(R2, self.f2)
        w1, w2 = kin.w[self.n1], kin.w[self.n2]
        d = kin.x[self.n2] + f2 - kin.x[self.n1] - f1
        ddot = kin.v[self.n2] + rot.cross(w2, f2) - kin.v[self.n1] - rot.cross(w1, f1)
        l = np.linalg.norm(d, axis=1)
        u = d / l[:, None]
        ldot = np.einsum('ni,ni->n', u, ddot)
        return f1, f2, w1, w2, d, ddot, l, u, ldot

    def tension(self, ctx):
        f1, f2, w1, w2, d, ddot, l, u, ldot = self.kinematics(ctx)
        T, dT, dTd = self.law.evaluate(l / self.l0 - 1.0, ldot / self.l0, ctx.t)
        return T, l, u, ldot

    def evaluate(self, ctx, res_views, jac_views):
        want_jac = jac_views is not None
        f1, f2, w1, w2, d, ddot, l, u, ldot = self.kinematics(ctx)
        T, dT_de, dT_ded = self.law.evaluate(l / self.l0 - 1.0, ldot / self.l0, ctx.t)
        Bl = np.concatenate([-u, -rot.cross(f1, u), u, rot.cross(f2, u)], axis=1)
        res = [T[:, None] * Bl]
        if not want_jac:
            write_blocks(res_views, res)
            return
        K, PD, _ = distance_geometric_stiffness(u, l, f1, f2, T)
        dldot_dq = np.einsum('ni,nij->nj', ddot, PD)
        w1x, w2x = rot.skew(w1), rot.skew(w2)
        dldot_dq[:, 3:6] += np.einsum('ni,nij->nj', u, w1x @ rot.skew(f1))
        dldot_dq[:, 9:12] -= np.einsum('ni,nij->nj', u, w2x @ rot.skew(f2))
        a = (dT_de / self.l0)[:, None, None]
        b = (dT_ded / self.l0)[:, None, None]
        dF_dq = K + a * np.einsum('ni,nj->nij', Bl, Bl) + b * np.einsum('ni,nj->nij', Bl, dldot_dq)
        dF_dV = b * np.einsum('ni,nj->nij', Bl, Bl)
        J = chain12(ctx.kin, self.n1, self.n2, self.ground, dF_dq=dF_dq, dF_dV=dF_dV)
        write_blocks(res_views, res)
        write_blocks(jac_views, [J])

    def private_data_names(self, i):
        """MBDyn's rod private data (input manual §8.12.42): "F" axial force, "L" length,
        "LPrime" length rate (and the law's, not available here)."""
        return ("F", "L", "LPrime")

    def private_data(self, ctx, name):
        """F = T, L = l, LPrime = l̇ over all rods."""
        T, l, u, ldot = self.tension(ctx)
        values = {"F": T, "L": l, "LPrime": ldot}.get(name)
        if values is None:
            raise ValueError(f'rod private datum "{name}" does not exist (F, L, LPrime)')
        return values

    def output_groups(self, ctx):
        """.jnt rows: axial force, zeros, global force T u (u from node 1 towards node 2, as
        MBDyn writes it: checked on joints/rod/rodwithoffset2), zeros, length, axis, length
        rate."""
        T, l, u, ldot = self.tension(ctx)
        z3 = np.zeros((self.ne, 3))
        F = T[:, None] * u
        vals = np.concatenate([np.stack([T, 0 * T, 0 * T], axis=1), z3, F, z3, l[:, None], u, ldot[:, None]],
                              axis=1)
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], vals[out])]


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_rod(reader, model, args, label, word, with_offset=False):
    """`rod` / `rod with offset` (manual §8.12.42-43): L0 or `from nodes`, then a 1-D law."""
    n1, s1 = reader.node_site(args)
    f1 = reader.offset(args, s1, required=with_offset)
    n2, s2 = reader.second_site(args, n1, f1)
    f2 = reader.offset(args, s2, required=with_offset)
    lw = args.peek()
    L0 = None if args.is_keyword("from nodes") else args.real("the rod length")
    if not with_offset and args.is_keyword("offset"):          # legacy: L0, offset, f1, f2
        f1 = reader.read_vec3(args, "rel position", s1)
        f2 = reader.read_vec3(args, "rel position", s2)
    x1 = n1.frame.x + n1.frame.R @ f1
    x2 = n2.frame.x + n2.frame.R @ f2
    length = float(np.linalg.norm(x2 - x1))
    L0 = length if L0 is None else L0
    if L0 <= 0:
        raise lw.error("rod: the reference length must be positive")
    reader.current = {"L0": L0, "L": length}
    try:
        law = reader.read_law(args, 1)
    finally:
        reader.current = {}
    model.rod(label, n1.label, n2.label, law, L0, f1, f2)


def read_rod_with_offset(reader, model, args, label, word):
    read_rod(reader, model, args, label, word, with_offset=True)


CARDS = {
    "rod": read_rod, "rod with offset": read_rod_with_offset,
}
