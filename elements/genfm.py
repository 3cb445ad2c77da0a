"""MBDyn's `generic aerodynamic force` (input manual, "Generic Aerodynamic Force"): a force and
a couple on one structural node from tables of six coefficients over the angle of attack α and
the sideslip β, scaled by the dynamic pressure (wind-tunnel data of a whole aircraft or part).

At the reference point o = R õ of the node, with the body frame R_a = R R̃_a (flight mechanics
axes: x forward, y right, z down):

    V = ẋ + ω × o − V∞,   Ṽ = R_aᵀ V,   q = ½ ρ(x + o) |V|²
    α first:  α = atan2(Ṽ3, sign(Ṽ1)·|(Ṽ1, Ṽ2)|),  β = −atan2(Ṽ2, |Ṽ1|)
    else:     α = atan2(Ṽ3, |Ṽ1|),                 β = −atan2(Ṽ2, sign(Ṽ1)·|(Ṽ1, Ṽ2)|)
    F̃ = q S c_F(α, β),  M̃ = q S L c_M(α, β)     (bilinear in α and β)
    F = R_a F̃,  M = R_a M̃ + o × F  on the node.

Outside the tables' α (or β) range the end row is kept and faded to zero with MBDyn's cosine
weight (1 + cos(α_max·ξ))/2, α_max = π/2 (α first) or π (β_max = π or π/2), ξ the distance
from the end over the distance from the end to −α_max (MBDyn uses −α_max at both ends, as
does mbdae).  The coefficient file: `#`/`%` comment lines, `nα nβ`, then nβ blocks of nα rows
`α β cFx cFy cFz cMx cMy cMz` (forces per dynamic pressure per S, moments per S·L; α fastest);
`angle units, degrees` (or `scale angles, s`) and `scale lengths, l` (forces × l², moments ×
l³) as MBDyn.

MBDyn evaluates the velocity of the reference point as ẋ + o × ω (its genfm.cc), the opposite
sign of the rigid-body term; mbdae uses ẋ + ω × o.  They differ only with an offset and a
rotating node.  MBDyn assembles no Jacobian for this element; mbdae's is the central
difference of the loads over the node's position, rotation, velocity and angular velocity,
chained to the Newton increments (as the aerodynamic elements' sectional Jacobian, theory
manual 13.2).  Gusts of the air properties are not seen (the uniform free stream is)."""
from dataclasses import dataclass
import math
import os

import numpy as np

from mbdae.elements.base import ElementFamily, one_node_pattern, vec, mat, random_nodes, random_rotation
from mbdae.engine.core import air as airmod
from mbdae.engine.core.assembly import kernel_jacobian_views
from mbdae.engine.core.compiled import (kernel, vload, mload, vadd, vsub, vcross, vscale, mvec, mtvec, mmul,
                                        mscale, madd, exp_rotvec)

ALPHA_MAX = (math.pi / 2, math.pi)        # by alpha_first (False, True): MBDyn's dAlphaMax
BETA_MAX = (math.pi, math.pi / 2)
FD_STEP = 1e-6                            # relative central-difference step of the Jacobian


@dataclass
class GenfmTable:
    """Coefficients c (nβ, nα, 6) over the increasing angles alpha (nα,) and beta (nβ,), rad."""
    alpha: np.ndarray
    beta: np.ndarray
    coef: np.ndarray
    name: str = ""


@dataclass
class GenfmSpec:
    label: int
    node: int
    table: GenfmTable
    offset: np.ndarray
    orientation: np.ndarray
    surface: float = 1.0
    length: float = 1.0
    alpha_first: bool = False
    output: bool = True


def read_genfm_table(path, angle_scale=1.0, length_scale=1.0):
    """The coefficient file (module docstring); errors `ValueError("path:line: problem")`."""
    lines = open(path).read().splitlines()
    numbers, where = [], []
    head = None
    for k, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text[0] in "#%":
            continue
        fields = text.split()
        try:
            values = [float(f) for f in fields]
        except ValueError:
            raise ValueError(f"{path}:{k}: a number expected, got '{text[:40]}'") from None
        if head is None:
            if len(values) < 2 or values[0] != int(values[0]) or values[1] != int(values[1]):
                raise ValueError(f"{path}:{k}: the numbers of angles of attack and of sideslip expected")
            head = (int(values[0]), int(values[1]))
            if head[0] <= 0 or head[1] <= 0:
                raise ValueError(f"{path}:{k}: the numbers of angles must be positive, got {head}")
            continue
        numbers += values
        where += [k] * len(values)
    if head is None:
        raise ValueError(f"{path}: no data (the numbers of angles expected)")
    na, nb = head
    need = na * nb * 8
    if len(numbers) < need:
        raise ValueError(f"{path}:{len(lines)}: {na}×{nb} rows of 8 numbers expected, "
                         f"the file ends after {len(numbers)} numbers")
    rows = np.array(numbers[:need]).reshape(nb, na, 8)
    line_of = np.array(where[:need]).reshape(nb, na, 8)[:, :, 0]
    alpha, beta = rows[0, :, 0], rows[:, 0, 1]
    for b in range(nb):
        for a in range(na):
            if rows[b, a, 0] != alpha[a]:
                raise ValueError(f"{path}:{line_of[b, a]}: angle of attack {rows[b, a, 0]} differs from "
                                 f"{alpha[a]} of the first block")
            if rows[b, a, 1] != beta[b]:
                raise ValueError(f"{path}:{line_of[b, a]}: sideslip {rows[b, a, 1]} differs from {beta[b]} "
                                 "of the block's first row")
    for name, v, lines_v in (("angle of attack", alpha, line_of[0, :]), ("sideslip", beta, line_of[:, 0])):
        bad = np.flatnonzero(np.diff(v) <= 0)
        if len(bad):
            raise ValueError(f"{path}:{lines_v[bad[0] + 1]}: the {name} values must increase")
    scale = np.array([length_scale ** 2] * 3 + [length_scale ** 3] * 3)
    return GenfmTable(alpha * angle_scale, beta * angle_scale, rows[:, :, 2:] * scale, str(path))


def generic_aerodynamic_force(model, label, node, table, offset=None, orientation=None, surface=1.0,
                              length=1.0, alpha_first=False, output=True):
    """A generic aerodynamic force on structural node `node` from `table` (a GenfmTable or
    a coefficient file path in radians), reference point `offset` and body axes
    `orientation` relative to the node, reference surface and length."""
    if not isinstance(table, GenfmTable):
        table = read_genfm_table(table)
    model.generic_aerodynamic_forces.append(GenfmSpec(int(label), node, table, vec(offset), mat(orientation),
                                                      float(surface), float(length), bool(alpha_first),
                                                      bool(output)))


MODEL_FIELDS = {"generic_aerodynamic_forces": list}
MODEL_METHODS = (generic_aerodynamic_force,)


def build(model, nodes, built):
    specs = model.generic_aerodynamic_forces
    return [GenericAerodynamicForces(specs, nodes, getattr(model, "air", None))] if specs else []


def genfm_sample(model, rng):
    """Two forces on random nodes in a random free stream, tables of random coefficients
    over part of the angle ranges (the cosine fade-out is exercised too)."""
    random_nodes(model, rng, 2)
    model.air_properties(1.2, rng.normal(size=3) * 5.0, sound_speed=340.0)
    for e, first in enumerate((False, True)):
        alpha = np.linspace(-0.6, 0.8, 5) if e == 0 else np.linspace(-math.pi / 2, math.pi / 2, 7)
        beta = np.linspace(-0.5, 0.4, 4)
        table = GenfmTable(alpha, beta, rng.normal(size=(len(beta), len(alpha), 6)))
        model.generic_aerodynamic_force(e + 1, e + 1, table, offset=rng.normal(size=3),
                                        orientation=random_rotation(rng), surface=1.5, length=0.7,
                                        alpha_first=first)
    return model


SAMPLES = {"generic aerodynamic force": [genfm_sample]}


class GenericAerodynamicForces(ElementFamily):
    """Every generic aerodynamic force: one compiled call (genfm_equations)."""
    name = "generic aerodynamic force"
    output_file = "aer"

    def __init__(self, specs, nodes, air):
        super().__init__(specs, nodes)
        if air is None:
            raise ValueError(f"generic aerodynamic force {self.specs[0].label}: air properties are not defined")
        self.air_spec = air
        S = self.specs
        self.n = self.node_index([s.node for s in S])
        self.o = np.array([s.offset for s in S]).reshape(self.ne, 3)
        self.Ra = np.array([s.orientation for s in S]).reshape(self.ne, 3, 3)
        self.scale = np.array([[s.surface, s.surface * s.length] for s in S]).reshape(self.ne, 2)
        self.first = np.array([s.alpha_first for s in S], np.bool_)
        self.na = np.array([len(s.table.alpha) for s in S], np.int64)
        self.nb = np.array([len(s.table.beta) for s in S], np.int64)
        self.a0 = np.concatenate([[0], np.cumsum(self.na)[:-1]]).astype(np.int64)
        self.b0 = np.concatenate([[0], np.cumsum(self.nb)[:-1]]).astype(np.int64)
        self.c0 = np.concatenate([[0], np.cumsum(6 * self.na * self.nb)[:-1]]).astype(np.int64)
        self.alpha = np.concatenate([s.table.alpha for s in S]).astype(float)
        self.beta = np.concatenate([s.table.beta for s in S]).astype(float)
        self.coef = np.concatenate([np.asarray(s.table.coef, float).ravel() for s in S])

    def build_pattern(self):
        self.pattern = one_node_pattern(self.nodes, self.n)
        return self.pattern

    def _tables(self):
        return (self.first, self.scale, self.na, self.nb, self.a0, self.b0, self.c0, self.alpha, self.beta,
                self.coef)

    def evaluate(self, ctx, res_views, jac_views):
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        genfm_equations(float(kin.dcoef), self.n, self.o, self.Ra, *self._tables(),
                        airmod.air_arrays(self.air_spec, ctx.t), kin.x, kin.v, kin.R, kin.w, kin.G, kin.Tw,
                        want_jac, res_views[0], jac[0])

    def output_groups(self, ctx):
        """.aer rows (MBDyn's): label, α, β (deg), F̃, M̃ (body axes), F, M (global)."""
        sel = np.array([s.output for s in self.specs], bool)
        if not sel.any():
            return []
        out = np.empty((self.ne, 14))
        kin = ctx.kin
        genfm_outputs(self.n, self.o, self.Ra, *self._tables(), airmod.air_arrays(self.air_spec, ctx.t),
                      kin.x, kin.v, kin.R, kin.w, out)
        return [(self.labels[sel], out[sel])]

    def private_data_names(self, i):
        return ("Fx", "Fy", "Fz", "Mx", "My", "Mz", "fx", "fy", "fz", "mx", "my", "mz", "alpha", "beta")

    def private_data(self, ctx, name):
        names = self.private_data_names(0)
        if name not in names:
            raise ValueError(f'generic aerodynamic force private datum "{name}" does not exist')
        out = np.empty((self.ne, 14))
        kin = ctx.kin
        genfm_outputs(self.n, self.o, self.Ra, *self._tables(), airmod.air_arrays(self.air_spec, ctx.t),
                      kin.x, kin.v, kin.R, kin.w, out)
        k = names.index(name)
        order = [8, 9, 10, 11, 12, 13, 2, 3, 4, 5, 6, 7]      # F, M global; f, m body (radians for angles)
        return out[:, order[k]] if k < 12 else np.radians(out[:, k - 12])


# ---------------------------------------------------------------- kernels
@kernel
def _find(values, start, n, x):
    """Index i of the interval [v_i, v_i+1] holding x (start..start+n-2), for v_0 ≤ x ≤ v_n-1."""
    lo, hi = 0, n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if values[start + mid] <= x:
            lo = mid
        else:
            hi = mid
    return lo


@kernel
def _weights(values, start, n, x, amax):
    """(i0, w0, i1, w1): the two table indices and weights of x, with MBDyn's cosine fade to
    zero beyond the ends (module docstring)."""
    first, last = values[start], values[start + n - 1]
    if x < first:
        xi = (x - first) / (-amax - first)
        return 0, 0.5 * (math.cos(amax * xi) + 1.0), 0, 0.0
    if x > last:
        xi = (x - last) / (-amax - last)
        return n - 1, 0.5 * (math.cos(amax * xi) + 1.0), n - 1, 0.0
    if n == 1:
        return 0, 1.0, 0, 0.0
    i = _find(values, start, n, x)
    d = values[start + i + 1] - values[start + i]
    return i, (values[start + i + 1] - x) / d, i + 1, (x - values[start + i]) / d


@kernel
def genfm_section(e, first, scale, na, nb, a0, b0, c0, alpha, beta, coef, air, xp, vrel, Ra):
    """(α, β, F̃, M̃) of element e for the reference point at xp with air-relative velocity
    vrel (global) and body axes Ra."""
    Vt = mtvec(Ra, vrel)
    h = math.sqrt(Vt[0] * Vt[0] + Vt[1] * Vt[1])
    if first[e]:
        al = math.atan2(Vt[2], math.copysign(h, Vt[0]))
        be = -math.atan2(Vt[1], abs(Vt[0]))
    else:
        al = math.atan2(Vt[2], abs(Vt[0]))
        be = -math.atan2(Vt[1], math.copysign(h, Vt[0]))
    k = 1 if first[e] else 0
    ia0, wa0, ia1, wa1 = _weights(alpha, a0[e], na[e], al, ALPHA_MAX[k])
    ib0, wb0, ib1, wb1 = _weights(beta, b0[e], nb[e], be, BETA_MAX[k])
    rho, c, vinf = airmod.air_state(air, (xp[0], xp[1], xp[2]))
    q = 0.5 * rho * (vrel[0] * vrel[0] + vrel[1] * vrel[1] + vrel[2] * vrel[2])
    out = np.zeros(6)
    n_a = na[e]
    for ib, wb in ((ib0, wb0), (ib1, wb1)):
        for ia, wa in ((ia0, wa0), (ia1, wa1)):
            w = wa * wb
            if w == 0.0:
                continue
            base = c0[e] + 6 * (ib * n_a + ia)
            for m in range(6):
                out[m] += w * coef[base + m]
    sf, sm = q * scale[e, 0], q * scale[e, 1]
    return al, be, (out[0] * sf, out[1] * sf, out[2] * sf), (out[3] * sm, out[4] * sm, out[5] * sm)


@kernel
def genfm_loads(e, node, o_local, Ra_local, first, scale, na, nb, a0, b0, c0, alpha, beta, coef, air,
                xn, vn, Rn, wn):
    """(F, M on the node, α, β, F̃, M̃) of element e at the node state (xn, vn, Rn, wn)."""
    o = mvec(Rn, vload(o_local, e))
    Ra = mmul(Rn, mload(Ra_local, e))
    xp = vadd(xn, o)
    vinf = (air[11], air[12], air[13])
    vrel = vsub(vadd(vn, vcross(wn, o)), vinf)
    al, be, Ft, Mt = genfm_section(e, first, scale, na, nb, a0, b0, c0, alpha, beta, coef, air, xp, vrel, Ra)
    F = mvec(Ra, Ft)
    M = vadd(mvec(Ra, Mt), vcross(o, F))
    return F, M, al, be, Ft, Mt


@kernel
def genfm_outputs(node, o_local, Ra_local, first, scale, na, nb, a0, b0, c0, alpha, beta, coef, air, x, v, R, w,
                  out):
    """Output rows (ne, 14): α, β (deg), F̃, M̃, F, M."""
    for e in range(len(node)):
        i = node[e]
        F, M, al, be, Ft, Mt = genfm_loads(e, node, o_local, Ra_local, first, scale, na, nb, a0, b0, c0, alpha,
                                           beta, coef, air, vload(x, i), vload(v, i), mload(R, i), vload(w, i))
        out[e, 0] = math.degrees(al)
        out[e, 1] = math.degrees(be)
        for k in range(3):
            out[e, 2 + k] = Ft[k]
            out[e, 5 + k] = Mt[k]
            out[e, 8 + k] = F[k]
            out[e, 11 + k] = M[k]


@kernel
def genfm_equations(dcoef, node, o_local, Ra_local, first, scale, na, nb, a0, b0, c0, alpha, beta, coef, air,
                    x, v, R, w, G, Tw, want_jac, r, j):
    """Equation terms f = −(F, M) on the node's (x, g) rows; Jacobian by central differences
    over δx, θ (R ← exp(θ×) R), δv, δω, chained as f/ẏ + dCoef f/y: columns Δẋ = ∂/∂v +
    dCoef ∂/∂x, columns Δġ = ∂/∂θ dCoef G + ∂/∂ω T_ω."""
    D = np.empty((6, 12))
    for e in range(len(node)):
        i = node[e]
        xn, vn, Rn, wn = vload(x, i), vload(v, i), mload(R, i), vload(w, i)
        F, M, al, be, Ft, Mt = genfm_loads(e, node, o_local, Ra_local, first, scale, na, nb, a0, b0, c0, alpha,
                                           beta, coef, air, xn, vn, Rn, wn)
        for k in range(3):
            r[e, k] = -F[k]
            r[e, 3 + k] = -M[k]
        if not want_jac:
            continue
        lx = 1.0 + math.sqrt(xn[0] ** 2 + xn[1] ** 2 + xn[2] ** 2)
        lv = 1.0 + math.sqrt(vn[0] ** 2 + vn[1] ** 2 + vn[2] ** 2 + air[11] ** 2 + air[12] ** 2 + air[13] ** 2)
        lo = 1.0 + math.sqrt(o_local[e, 0] ** 2 + o_local[e, 1] ** 2 + o_local[e, 2] ** 2)
        for c in range(12):
            group, k = c // 3, c % 3
            h = FD_STEP * (lx if group == 0 else (1.0 if group == 1 else (lv if group == 2 else lv / lo)))
            for sgn in (1.0, -1.0):
                d = [0.0, 0.0, 0.0]
                d[k] = sgn * h
                dv = (d[0], d[1], d[2])
                xx, vv, RR, ww = xn, vn, Rn, wn
                if group == 0:
                    xx = vadd(xn, dv)
                elif group == 1:
                    RR = mmul(exp_rotvec(dv), Rn)
                elif group == 2:
                    vv = vadd(vn, dv)
                else:
                    ww = vadd(wn, dv)
                Fp, Mp, a_, b_, f_, m_ = genfm_loads(e, node, o_local, Ra_local, first, scale, na, nb, a0, b0, c0,
                                                     alpha, beta, coef, air, xx, vv, RR, ww)
                for m in range(3):
                    if sgn > 0:
                        D[m, c] = -Fp[m]
                        D[3 + m, c] = -Mp[m]
                    else:
                        D[m, c] = (D[m, c] + Fp[m]) / (2.0 * h)
                        D[3 + m, c] = (D[3 + m, c] + Mp[m]) / (2.0 * h)
        Gi, Twi = mload(G, i), mload(Tw, i)
        for m in range(6):
            for k in range(3):
                j[e, m, k] = D[m, 6 + k] + dcoef * D[m, k]
                acc = 0.0
                for l in range(3):
                    acc += D[m, 3 + l] * dcoef * Gi[l][k] + D[m, 9 + l] * Twi[l][k]
                j[e, m, 3 + k] = acc


# ---------------------------------------------------------------- MBDyn deck cards
def read_generic_aerodynamic_force(reader, model, args, label, word):
    """`generic aerodynamic force: <label>, <node> [, position, <offset>] [, orientation,
    <R>] [, reference surface, <S>] [, reference length, <L>] [, alpha first, {yes|no}],
    file, [{angle units, {radians|degrees} | scale angles, <s>},] [scale lengths, <l>,]
    "<file>" [, output, ...]` (input manual, "Generic Aerodynamic Force")."""
    n, site = reader.node_site(args)
    f = reader.read_vec3(args, "rel position", site) if args.is_keyword("position") else np.zeros(3)
    Ra = reader.read_orientation(args, "rel", site) if args.is_keyword("orientation") else np.eye(3)
    surface = length = 1.0
    if args.is_keyword("reference surface"):
        surface = args.real("the reference surface")
    if args.is_keyword("reference length"):
        length = args.real("the reference length")
    first = args.boolean() if args.is_keyword("alpha first") else False
    fw = args.peek()
    if args.is_keyword("reference"):
        raise fw.error(reader.not_supported("references to generic aerodynamic data (MBDyn has none either)"))
    if not args.is_keyword("file"):
        raise fw.error('generic aerodynamic force: keyword "file" expected')
    angle_scale = 1.0
    if args.is_keyword("angle units"):
        uw = args.peek()
        unit = args.expect_keyword("radians", "degrees", what="angle units")
        angle_scale = math.pi / 180.0 if unit == "degrees" else 1.0
    elif args.is_keyword("scale angles"):
        sw = args.peek()
        angle_scale = args.real("the angle scale factor")
        if angle_scale <= 0:
            raise sw.error(f"generic aerodynamic force: invalid angle scale factor {angle_scale}")
    length_scale = 1.0
    if args.is_keyword("scale lengths"):
        sw = args.peek()
        length_scale = args.real("the length scale factor")
        if length_scale <= 0:
            raise sw.error(f"generic aerodynamic force: invalid length scale factor {length_scale}")
    pw = args.peek()
    name = args.string("a file name")
    path = name if os.path.isabs(name) else os.path.join(os.path.dirname(pw.source.name), name)
    try:
        table = read_genfm_table(path, angle_scale, length_scale)
    except OSError as err:
        raise pw.error(f"generic aerodynamic force: cannot read '{path}': {err.strerror}") from None
    except ValueError as err:
        raise pw.error(f"generic aerodynamic force: {err}") from None
    output = "aerodynamic elements" in reader.default_output
    if args.is_keyword("output"):
        output = reader.read_output_flag(args, "aerodynamic elements")
    model.generic_aerodynamic_force(label, n.label, table, f, Ra, surface, length, first, output)


CARDS = {"generic aerodynamic force": read_generic_aerodynamic_force}
