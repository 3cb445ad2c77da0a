"""Viscous body (manual §9.3): a force and a couple on one node from a 6-D viscous law of
the absolute velocity of an offset point and the angular velocity, both seen in the frame
R_f = R R_h attached to the node:

    ṽ = R_fᵀ(ẋ + ω × o),  ω̃ = R_fᵀ ω,  o = R õ                       (eqs. 9.375, 9.377)
    [f̃; m̃] = law(ε̇ = [ṽ; ω̃]),  f = R_f f̃,  m = R_f m̃ + o × f          (eqs. 9.374, 9.376)

The node receives -f and -m (a positive viscosity opposes the motion, as a deformable
joint opposes the motion of its node 2).  The Jacobian is the exact one of this residual
(eq. 9.381 before the updated-updated simplification of eq. 9.383)."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core.assembly import Pattern
from mbdae.elements.base import (ElementFamily, node_columns, chain, write_blocks, vec, mat,
                                 random_rotation, random_nodes)
from mbdae.engine.core.drives import LinearDrive

I3 = np.eye(3)


@dataclass
class ViscousBodySpec:
    label: int
    node: int
    law: object                  # constitutive.Law of dimension 6, viscous only
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    Rh: np.ndarray = field(default_factory=lambda: np.eye(3))
    output: bool = True


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def viscous_body(model, label, node, law, offset=None, orientation=None):
    """Viscous body (§9.3): force and couple on a node from a 6-D law of the absolute
    velocity of the offset point and the angular velocity, in the frame R R_h."""
    model.viscous_bodies.append(ViscousBodySpec(label, node, law, vec(offset), mat(orientation)))
    return label


MODEL_FIELDS = {"viscous_bodies": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (viscous_body,)


def build(model, nodes, built):
    return [ViscousBodies(model.viscous_bodies, nodes)] if model.viscous_bodies else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def viscous_body_sample(model, rng):
    m = model
    random_nodes(m, rng, 2)
    C = rng.normal(size=(6, 6))
    m.viscous_body(1, 1, cl.linear_viscous(6, C @ C.T), offset=rng.normal(size=3), orientation=random_rotation(rng))
    m.viscous_body(2, 2, cl.scaled(cl.linear_viscous(6, rng.normal(size=(6, 6))), LinearDrive(1.0, 0.5)))
    m.viscous_body(3, 1, cl.linear_viscous(6, 2.0), offset=rng.normal(size=3))
    return m


SAMPLES = {"viscous body": [viscous_body_sample]}


class ViscousBodies(ElementFamily):
    name = "viscous body"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        ne = self.ne
        for s in S:
            if not isinstance(s.law, cl.Law) or s.law.dim != 6:
                raise ValueError(f"viscous body {s.label}: a 6-D constitutive law is required")
            if s.law.elastic:
                raise ValueError(f"viscous body {s.label}: the constitutive law must be viscous (no stiffness)")
        self.n = self.node_index([s.node for s in S])
        if np.any(self.n < 0):
            raise ValueError("viscous body: a structural node is required")
        self.o = np.array([s.offset for s in S], float).reshape(ne, 3)
        self.Rh = np.array([s.Rh for s in S], float).reshape(ne, 3, 3)
        self.laws = cl.Laws([s.law for s in S])

    def build_pattern(self):
        p = self.pattern = Pattern()
        ix, ig = node_columns(self.nodes, self.n)
        rows = np.concatenate([ix, ig], axis=1)
        p.add_res(rows)
        p.add_jac(rows, rows)
        return p

    def _state(self, ctx):
        kin = ctx.kin
        R, v, w = kin.R[self.n], kin.v[self.n], kin.w[self.n]
        Rf = R @ self.Rh
        Rft = np.swapaxes(Rf, -1, -2)
        o = rot.matvec(R, self.o)
        vp = v + rot.cross(w, o)                           # velocity of the offset point
        epsd = np.concatenate([rot.matvec(Rft, vp), rot.matvec(Rft, w)], axis=1)
        f, _, Ad = self.laws.evaluate(np.zeros_like(epsd), epsd, ctx.t)
        return Rf, Rft, o, vp, w, epsd, f, Ad

    def evaluate(self, ctx, res_views, jac_views):
        want_jac = jac_views is not None
        Rf, Rft, o, vp, w, epsd, f, Ad = self._state(ctx)
        F = rot.matvec(Rf, f[:, 0:3])
        M = rot.matvec(Rf, f[:, 3:6])
        res = [np.concatenate([F, rot.cross(o, F) + M], axis=1)]
        if not want_jac:
            write_blocks(res_views, res)
            return
        ne = self.ne
        ox = rot.skew(o)
        B = np.zeros((ne, 6, 6))                           # ε̇ over (v, ω); also the virtual map
        B[:, 0:3, 0:3] = Rft
        B[:, 0:3, 3:6] = -Rft @ ox
        B[:, 3:6, 3:6] = Rft
        Cr = np.zeros((ne, 6, 6))                          # ε̇ over θ (columns 3:6)
        Cr[:, 0:3, 3:6] = Rft @ (rot.skew(vp) - rot.skew(w) @ ox)
        Cr[:, 3:6, 3:6] = Rft @ rot.skew(w)
        Bt = np.swapaxes(B, 1, 2)
        Fx, Mx = rot.skew(F), rot.skew(M)
        K = Bt @ Ad @ Cr
        K[:, 0:3, 3:6] -= Fx
        K[:, 3:6, 3:6] += Fx @ ox - ox @ Fx - Mx
        dV = Bt @ Ad @ B
        Jx, Jg = chain(ctx.kin, self.n, dF_dx=None, dF_dth=K[:, :, 3:6], dF_dv=dV[:, :, 0:3],
                       dF_dw=dV[:, :, 3:6])
        write_blocks(res_views, res)
        write_blocks(jac_views, [np.concatenate([np.broadcast_to(Jx, (ne, 6, 3)), Jg], axis=2)])

    def output_groups(self, ctx):
        """.jnt rows (spec §8.6): law force and couple in the body frame, then global, then
        the linear and angular velocity in the body frame."""
        Rf, Rft, o, vp, w, epsd, f, Ad = self._state(ctx)
        sel = np.array([s.output for s in self.specs], bool)
        if not sel.any():
            return []
        vals = np.concatenate([f, rot.matvec(Rf, f[:, 0:3]), rot.matvec(Rf, f[:, 3:6]), epsd], axis=1)
        return [(self.labels[sel], vals[sel])]


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_viscous_body(reader, model, args, label, word):
    """`viscous body, <node>, [position,] <f> [, orientation, <R>], <6-D viscous law>`
    (manual §8.12.54)."""
    n, site = reader.node_site(args)
    f = reader.offset(args, site)
    Rh = reader.hinge(args, site)
    lw = args.peek()
    law = reader.read_law(args, 6)
    if law.elastic:
        raise lw.error("viscous body: the constitutive law must be viscous")
    model.viscous_body(label, n.label, law, f, Rh)


CARDS = {
    "viscous body": read_viscous_body,
}
