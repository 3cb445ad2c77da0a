"""Rod with offsets (manual §9.2.1): axial force from a 1-D law of the strain
ε = l/l0 - 1, l = ‖x2 + f2 - x1 - f1‖; loads F1 = T u at f1, F2 = -T u at f2.
Jacobian of eqs. 9.240-9.246 (exact, including the strain-rate terms)."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import kernel_jacobian_views
from mbdae.engine.core.compiled import (kernel, vload, mload, vadd, vsub, vscale, vdot, vnorm, vcross, skew,
                                        mvec, mtvec, mmul)
from mbdae.engine.core.constitutive import ScalarLaws, law_into
from mbdae.elements.base import ElementFamily, two_node_pattern, vec, random_nodes
from mbdae.elements.joint_kernel import distance_stiffness
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

    def build_pattern(self):
        self.pattern = two_node_pattern(self.nodes, self.n1, self.n2)
        return self.pattern

    def _law_inputs(self, t):
        """The laws' constant arrays and their time values at t, in `law_into`'s order."""
        laws = self.law.vectorized
        return laws.arrays + laws.time_values(t)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (rod_equations) over all rods."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        rod_equations(float(kin.dcoef), self.n1, self.n2, self.f1, self.f2, self.l0, *self._law_inputs(ctx.t),
                      kin.x, kin.v, kin.R, kin.w, kin.G, kin.Tw, want_jac, res_views[0], jac[0])

    def tension(self, ctx):
        """(T, l, u, l̇) over all rods ((n,), (n,), (n, 3), (n,)), by the kernels' own
        formula (rod_state)."""
        out = np.empty((self.ne, 6))
        kin = ctx.kin
        rod_tensions(self.n1, self.n2, self.f1, self.f2, self.l0, *self._law_inputs(ctx.t),
                     kin.x, kin.v, kin.R, kin.w, out)
        return out[:, 0], out[:, 1], out[:, 3:6], out[:, 2]

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


# ---------------------------------------------------------------- kernels
@kernel
def rod_state(e, n1, n2, f1_local, f2_local, l0, K, C, k2, k3, sigma0, e0, sK, sC, sW, x, v, R, w,
              eps, epsdot, lf, ldK, ldC):
    """Rod e: offsets f1 = R1 f̃1, f2 = R2 f̃2, d = x2 + f2 - x1 - f1, l = ‖d‖, u = d/l,
    l̇ = u·ḋ and the law at ε = l/l0 - 1, ε̇ = l̇/l0 (eps, epsdot: (1,) scratch arrays; lf, ldK, ldC: the law's outputs):
    returns (f1, f2, w1, w2, ḋ, l, u, l̇, T, ∂T/∂ε, ∂T/∂ε̇)."""
    a, b = n1[e], n2[e]
    f1 = mvec(mload(R, a), vload(f1_local, e))
    f2 = mvec(mload(R, b), vload(f2_local, e))
    w1, w2 = vload(w, a), vload(w, b)
    d = vsub(vadd(vload(x, b), f2), vadd(vload(x, a), f1))
    ddot = vsub(vadd(vload(v, b), vcross(w2, f2)), vadd(vload(v, a), vcross(w1, f1)))
    l = vnorm(d)
    u = (d[0] / l, d[1] / l, d[2] / l)          # divided, not scaled by 1/l: u = ±e_k exactly on an axis
    ldot = vdot(u, ddot)
    eps[0] = l / l0[e] - 1.0
    epsdot[0] = ldot / l0[e]
    law_into(K, C, k2, k3, sigma0, e0, sK, sC, sW, e, eps, epsdot, lf, ldK, ldC)
    return f1, f2, w1, w2, ddot, l, u, ldot, lf[0], ldK[0, 0], ldC[0, 0]


@kernel
def _set3(a, k, vec):
    """a[k:k+3] = vec."""
    a[k] = vec[0]
    a[k + 1] = vec[1]
    a[k + 2] = vec[2]


@kernel
def rod_tensions(n1, n2, f1_local, f2_local, l0, K, C, k2, k3, sigma0, e0, sK, sC, sW, x, v, R, w, out):
    """(T, l, l̇, u) of every rod into out (n, 6)."""
    eps, epsdot = np.empty(1), np.empty(1)
    lf, ldK, ldC = np.empty(1), np.empty((1, 1)), np.empty((1, 1))
    for e in range(len(n1)):
        s = rod_state(e, n1, n2, f1_local, f2_local, l0, K, C, k2, k3, sigma0, e0, sK, sC, sW, x, v, R, w,
                      eps, epsdot, lf, ldK, ldC)
        out[e, 0] = s[8]
        out[e, 1] = s[5]
        out[e, 2] = s[7]
        _set3(out[e], 3, s[6])


@kernel
def rod_equations(dcoef, n1, n2, f1_local, f2_local, l0, K, C, k2, k3, sigma0, e0, sK, sC, sW,
                  x, v, R, w, G, Tw, want_jac, r, j):
    """Rod loads f = T B, B = [-u, -f1×u, u, f2×u] on (x1, g1, x2, g2), and their Jacobian
    (eqs. 9.240-9.246): ∂f/∂q = T ∂B/∂q + (∂T/∂ε/l0) B Bᵀ + (∂T/∂ε̇/l0) B (∂l̇/∂q)ᵀ,
    ∂f/∂(v, ω) = (∂T/∂ε̇/l0) B Bᵀ, with ∂l̇/∂q = ḋᵀ P Dd + (u·(ω1× f1×) on θ1, -u·(ω2× f2×)
    on θ2), P = (I - u uᵀ)/l, Dd = [-I, f1×, I, -f2×]; on (Δẋ, Δġ) by the chain rule of G8
    (T_θ = dCoef G, T_ω)."""
    eps, epsdot = np.empty(1), np.empty(1)
    lf, ldK, ldC = np.empty(1), np.empty((1, 1)), np.empty((1, 1))
    B = np.empty(12)
    dl = np.empty(12)
    Kg = np.empty((12, 12))
    for e in range(len(n1)):
        f1, f2, w1, w2, ddot, l, u, ldot, T, dTe, dTd = rod_state(
            e, n1, n2, f1_local, f2_local, l0, K, C, k2, k3, sigma0, e0, sK, sC, sW, x, v, R, w, eps, epsdot,
            lf, ldK, ldC)
        _set3(B, 0, vscale(-1.0, u))
        _set3(B, 3, vscale(-1.0, vcross(f1, u)))
        _set3(B, 6, u)
        _set3(B, 9, vcross(f2, u))
        for k in range(12):
            r[e, k] = T * B[k]
        if not want_jac:
            continue
        pd = vscale(1.0 / l, vsub(ddot, vscale(ldot, u)))            # P ḋ
        _set3(dl, 0, vscale(-1.0, pd))
        _set3(dl, 3, vadd(vcross(pd, f1), mtvec(mmul(skew(w1), skew(f1)), u)))
        _set3(dl, 6, pd)
        _set3(dl, 9, vsub(vscale(-1.0, vcross(pd, f2)), mtvec(mmul(skew(w2), skew(f2)), u)))
        Kg[:] = 0.0
        distance_stiffness(Kg, u, l, f1, f2, T)
        a = dTe / l0[e]
        b = dTd / l0[e]
        G1, G2 = mload(G, n1[e]), mload(G, n2[e])
        Tw1, Tw2 = mload(Tw, n1[e]), mload(Tw, n2[e])
        for i in range(12):
            for blk in range(4):
                c = 3 * blk
                q = (Kg[i, c] + B[i] * (a * B[c] + b * dl[c]), Kg[i, c + 1] + B[i] * (a * B[c + 1] + b * dl[c + 1]),
                     Kg[i, c + 2] + B[i] * (a * B[c + 2] + b * dl[c + 2]))
                s = b * B[i]
                vv = (s * B[c], s * B[c + 1], s * B[c + 2])
                if blk == 0 or blk == 2:
                    out = vadd(vscale(dcoef, q), vv)
                elif blk == 1:
                    out = vadd(vscale(dcoef, mtvec(G1, q)), mtvec(Tw1, vv))
                else:
                    out = vadd(vscale(dcoef, mtvec(G2, q)), mtvec(Tw2, vv))
                j[e, i, c] = out[0]
                j[e, i, c + 1] = out[1]
                j[e, i, c + 2] = out[2]


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
