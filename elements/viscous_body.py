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

from mbdae.engine.core import constitutive as cl
from mbdae.engine.core.assembly import kernel_jacobian_views
from mbdae.engine.core.compiled import (kernel, get_block, set_block, vload, mload, vadd, vcross, skew, mvec,
                                        mtvec, mmul, mtrans, madd, msub, mscale)
from mbdae.engine.core.constitutive import law_into
from mbdae.elements.base import ElementFamily, one_node_pattern, vec, mat, random_rotation, random_nodes
from mbdae.engine.core.drives import LinearDrive


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
        self.pattern = one_node_pattern(self.nodes, self.n)
        return self.pattern

    def _law_inputs(self, t):
        """The laws' constant arrays and their time values at t, in `law_into`'s order."""
        return self.laws.arrays + self.laws.time_values(t)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (viscous_body_equations) over all viscous bodies."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        viscous_body_equations(float(kin.dcoef), self.n, self.o, self.Rh, *self._law_inputs(ctx.t),
                               kin.v, kin.R, kin.w, kin.G, kin.Tw, want_jac, res_views[0], jac[0])

    def output_groups(self, ctx):
        """.jnt rows (spec §8.6): law force and couple in the body frame, then global, then
        the linear and angular velocity in the body frame."""
        sel = np.array([s.output for s in self.specs], bool)
        if not sel.any():
            return []
        out = np.empty((self.ne, 18))
        kin = ctx.kin
        viscous_body_outputs(self.n, self.o, self.Rh, *self._law_inputs(ctx.t), kin.v, kin.R, kin.w, out)
        return [(self.labels[sel], out[sel])]


# ---------------------------------------------------------------- kernels
@kernel
def viscous_body_state(e, node, o_local, Rh, K, C, k2, k3, sigma0, e0, sK, sC, sW, v, R, w, eps, epsdot,
                       lf, ldK, Ad):
    """Viscous body e: R_f = R R_h, o = R õ, the offset point's velocity vp = ẋ + ω×o, the
    law at ε = 0, ε̇ = [R_fᵀ vp; R_fᵀ ω] (eps, epsdot: (6,) scratch arrays; lf, ldK, Ad: the law's outputs) and the law's
    force f̃ and couple m̃: returns (R_f, o, vp, ω, f̃, m̃, ∂f/∂ε̇ (6, 6))."""
    i = node[e]
    Ri = mload(R, i)
    Rf = mmul(Ri, mload(Rh, e))
    o = mvec(Ri, vload(o_local, e))
    wi = vload(w, i)
    vp = vadd(vload(v, i), vcross(wi, o))
    vt, wt = mtvec(Rf, vp), mtvec(Rf, wi)
    for k in range(3):
        eps[k] = 0.0
        eps[k + 3] = 0.0
        epsdot[k] = vt[k]
        epsdot[k + 3] = wt[k]
    law_into(K, C, k2, k3, sigma0, e0, sK, sC, sW, e, eps, epsdot, lf, ldK, Ad)
    return Rf, o, vp, wi, (lf[0], lf[1], lf[2]), (lf[3], lf[4], lf[5]), Ad


@kernel
def viscous_body_outputs(node, o_local, Rh, K, C, k2, k3, sigma0, e0, sK, sC, sW, v, R, w, out):
    """Output rows (n, 18): f̃, m̃, R_f f̃, R_f m̃, ṽ = R_fᵀ vp, ω̃ = R_fᵀ ω."""
    eps, epsdot = np.empty(6), np.empty(6)
    lf, ldK, lAd = np.empty(6), np.empty((6, 6)), np.empty((6, 6))
    for e in range(len(node)):
        Rf, o, vp, wi, ft, mt, Ad = viscous_body_state(e, node, o_local, Rh, K, C, k2, k3, sigma0, e0, sK, sC,
                                                       sW, v, R, w, eps, epsdot, lf, ldK, lAd)
        for k, vec3 in enumerate((ft, mt, mvec(Rf, ft), mvec(Rf, mt), mtvec(Rf, vp), mtvec(Rf, wi))):
            out[e, 3 * k] = vec3[0]
            out[e, 3 * k + 1] = vec3[1]
            out[e, 3 * k + 2] = vec3[2]


@kernel
def viscous_body_equations(dcoef, node, o_local, Rh, K, C, k2, k3, sigma0, e0, sK, sC, sW, v, R, w, G, Tw,
                           want_jac, r, j):
    """Residual [F; o×F + M] (F = R_f f̃, M = R_f m̃) on the node's (x, g) rows and its exact
    Jacobian: with B = [R_fᵀ, -R_fᵀ o×; 0, R_fᵀ] (ε̇ over (v, ω), also the virtual map) and
    C_θ = [R_fᵀ(vp× - ω× o×); R_fᵀ ω×] (ε̇ over θ),
    ∂f/∂θ = Bᵀ A C_θ - [F×; M× + o× F× - F× o×], ∂f/∂(v, ω) = Bᵀ A B (A = ∂f/∂ε̇),
    on (Δẋ, Δġ) by the chain rule of G8 (T_θ = dCoef G, T_ω)."""
    eps, epsdot = np.empty(6), np.empty(6)
    lf, ldK, lAd = np.empty(6), np.empty((6, 6)), np.empty((6, 6))
    for e in range(len(node)):
        Rf, o, vp, wi, ft, mt, Ad = viscous_body_state(e, node, o_local, Rh, K, C, k2, k3, sigma0, e0, sK, sC,
                                                       sW, v, R, w, eps, epsdot, lf, ldK, lAd)
        F = mvec(Rf, ft)
        M = mvec(Rf, mt)
        for k in range(3):
            r[e, k] = F[k]
        mo = vadd(vcross(o, F), M)
        for k in range(3):
            r[e, 3 + k] = mo[k]
        if not want_jac:
            continue
        i = node[e]
        ox = skew(o)
        Rft = mtrans(Rf)
        # Q = Bᵀ A, Bᵀ = [R_f, 0; o× R_f, R_f]
        RA11, RA12 = mmul(Rf, get_block(Ad, 0, 0)), mmul(Rf, get_block(Ad, 0, 3))
        RA21, RA22 = mmul(Rf, get_block(Ad, 3, 0)), mmul(Rf, get_block(Ad, 3, 3))
        Q11, Q12 = RA11, RA12
        Q21, Q22 = madd(mmul(ox, RA11), RA21), madd(mmul(ox, RA12), RA22)
        Ct = mmul(Rft, msub(skew(vp), mmul(skew(wi), ox)))
        Cb = mmul(Rft, skew(wi))
        Fx, Mx = skew(F), skew(M)
        Kt = msub(madd(mmul(Q11, Ct), mmul(Q12, Cb)), Fx)
        Kb = madd(madd(mmul(Q21, Ct), mmul(Q22, Cb)), msub(msub(mmul(Fx, ox), mmul(ox, Fx)), Mx))
        # Bᵀ A B: columns v = Q R_fᵀ, columns ω = -Q R_fᵀ o× + Q R_fᵀ (by rows of Q)
        V1t, V1b = mmul(Q11, Rft), mmul(Q21, Rft)
        W1t = madd(mscale(-1.0, mmul(V1t, ox)), mmul(Q12, Rft))
        W1b = madd(mscale(-1.0, mmul(V1b, ox)), mmul(Q22, Rft))
        Tth = mscale(dcoef, mload(G, i))
        Twi = mload(Tw, i)
        set_block(j[e], 0, 0, V1t)
        set_block(j[e], 3, 0, V1b)
        set_block(j[e], 0, 3, madd(mmul(Kt, Tth), mmul(W1t, Twi)))
        set_block(j[e], 3, 3, madd(mmul(Kb, Tth), mmul(W1b, Twi)))


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
