"""Two-node helicoidal beam (MBDyn `hbeam`; input manual §8.3, "hbeam"): the reference line
and the section frames are interpolated along the screw motion (SE(3) geodesic) between the
two end poses (Borri and Bottasso, "An intrinsic beam model based on a helicoidal
approximation", IJNME 37, 1994; Borri, Trainelli and Bottasso, "On representations and
parameterizations of motion", Multibody Syst. Dyn. 4, 2000).

Kinematics.  End poses: y_k = x_k + R_k f̃_k (offsets in the node frames) and R̄_k = R_k R_hk.
The relative motion of end 2 seen from end 1, A₁⁻¹A₂ = (R̄₁ᵀR̄₂, R̄₁ᵀ(y₂ - y₁)), has the screw
logarithm η = (ρ, φ):

    φ = log(R̄₁ᵀ R̄₂),   ρ = Γ(φ)⁻¹ R̄₁ᵀ (y₂ - y₁)

with Γ the SO(3) tangent operator of manual eq. 4.8 (the translation block of the SE(3)
exponential is Γ(φ)ρ).  Along ξ ∈ [0, 1] the section frame is R(ξ) = R̄₁ exp(ξφ×) and the
reference line p(ξ) = y₁ + R̄₁ ξΓ(ξφ)ρ, a helix; its section-frame strains are constant:
Rᵀp' = ρ/ℓ and the curvature Rᵀk = φ/ℓ, with ℓ = |ρ| in the initial configuration (arc
length of the helix).  The generalized strain is e = η/ℓ - η₀/ℓ (zero initially).  These are
the facts of MBDyn's hbeam (the spatial form A₂A₁⁻¹ of its HmFe interpolation gives the same
strains in the section frame: the helix's body-frame strains do not depend on ξ).

Loads.  As in MBDyn, the section loads (F, M) = R(½) f(e, ė) at the mid-point ξ = ½ are
assigned to the nodes like the finite-volume beam2 (elements/beam.py): node 1 receives
(F, M + (p - x₁)×F), node 2 the opposite of (F, M + (p - x₂)×F), p = p(½).  Action and
reaction balance exactly; a pure end moment (F = 0, M constant) is in exact equilibrium with
a circular arc, which this interpolation represents exactly.

Strain rates (viscous and viscoelastic laws) use beam2's measure with linearly interpolated
velocities: ε̇ = Rᵀ(ẏ₂ - ẏ₁ - ω̄×(y₂ - y₁))/ℓ, κ̇ = Rᵀ(ω₂ - ω₁)/ℓ with ω̄ = (ω₁ + ω₂)/2 and
R = R(½); zero under any rigid motion.

The Jacobian is exact: the variations of φ, ρ, p and of the section frame are written as
3×12 matrices on the node perturbations (δx₁, θ₁, δx₂, θ₂) (δR_k = θ_k× R_k), with
δφ = Γ(φ)⁻¹ R̄₁ᵀ(θ₂ - θ₁) and δρ = Γ(φ)⁻¹(δd - dΓ[δφ] ρ), d = R̄₁ᵀ(y₂ - y₁); the node update
rule (chain12) maps them to the Newton increments."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.constitutive import Laws
from mbdae.elements.base import (ElementFamily, chain12, two_node_pattern, StateCache, write_blocks, vec,
                                 mat, beam_list, random_rotation, random_nodes)
from mbdae.elements.beam import _log_rotvec, _exp_gamma, _coefficients
from mbdae.elements.beam import _three_moving_nodes, _beam_laws

I3 = np.eye(3)


@dataclass
class HBeamSpec:
    label: int
    node1: int
    node2: int
    law: object                        # 6-D constitutive law (axis 1 along the beam)
    offsets: list = None               # node-frame offsets f̃_1, f̃_2 (None: zero)
    node_orientations: list = None     # node-frame orientations R_h1, R_h2 (None: identity)
    output: bool = True


def _mv(A, v):
    return (A @ v[..., None])[..., 0]


def gamma_derivative_times(phi, r):
    """Q with dΓ(φ)[d] r = Q d (…,3,3): Γ = I + b φ× + c φ×φ× (manual eq. 4.8), so
    Q = b' (φ×r) φᵀ - b r× + c' (φ×(φ×r)) φᵀ - c ((φ×r)× + φ× r×), b' = (db/dφ)/φ, c' likewise."""
    co = _coefficients(phi)
    b, c, bp, cp = (co[..., k, None, None] for k in (1, 2, 3, 4))
    pr = rot.cross(phi, r)
    ppr = rot.cross(phi, pr)
    outer = lambda u: u[..., :, None] * phi[..., None, :]
    return bp * outer(pr) - b * rot.skew(r) + cp * outer(ppr) - c * (rot.skew(pr) + rot.skew(phi) @ rot.skew(r))


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def hbeam(model, label, node1, node2, law, offsets=None, node_orientations=None, output=True):
    """Two-node helicoidal beam (MBDyn `hbeam`, elements/hbeam.py): one 6-D section law,
    strains from the screw logarithm of the relative end poses; offsets and orientations
    of the reference line in the node frames (None: zero offset, node frame)."""
    model.hbeams.append(HBeamSpec(label, node1, node2, law, beam_list(offsets, 2, vec),
                                 beam_list(node_orientations, 2, mat), output))
    return label


MODEL_FIELDS = {"hbeams": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (hbeam,)


def build(model, nodes, built):
    return [HelicoidalBeams(model.hbeams, nodes)] if model.hbeams else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def hbeam_sample(model, rng):
    """Four helicoidal beams on three nodes, with offsets and node-frame orientations, every kind
    of section law (coupled viscoelastic with prestrain, plain elastic, cubic, scaled viscous)."""
    m = _three_moving_nodes(model, rng)
    laws = _beam_laws(rng)
    m.hbeam(1, 1, 2, laws[0], offsets=[0.05 * rng.normal(size=3), None], node_orientations=[random_rotation(rng), None])
    m.hbeam(2, 2, 3, laws[2], offsets=[None, 0.05 * rng.normal(size=3)], node_orientations=[None, random_rotation(rng)])
    m.hbeam(3, 3, 1, laws[3])
    m.hbeam(4, 1, 3, laws[1], offsets=[0.05 * rng.normal(size=3), 0.05 * rng.normal(size=3)])
    return m


SAMPLES = {"hbeam": [hbeam_sample]}


class HelicoidalBeams(ElementFamily):
    """All hbeam instances; evaluation batched over instances (no loop over elements)."""
    name = "hbeam"
    NN = 2
    output_file = "act"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        ne = self.ne
        for s in S:
            if getattr(s.law, "dim", None) != 6:
                raise ValueError(f"hbeam {s.label}: the section law must be 6-D")
            if s.node1 == s.node2:
                raise ValueError(f"hbeam {s.label}: the nodes must be distinct")
            for what, v in (("offsets", s.offsets), ("node_orientations", s.node_orientations)):
                if v is not None and len(v) != 2:
                    raise ValueError(f"hbeam {s.label}: {what} needs 2 entries, got {len(v)}")
        self.n1 = self.node_index([s.node1 for s in S])
        self.n2 = self.node_index([s.node2 for s in S])
        self.nidx = np.stack([self.n1, self.n2], axis=1)
        self.f = np.array([[np.zeros(3) if s.offsets is None or s.offsets[k] is None else s.offsets[k]
                            for k in range(2)] for s in S], float).reshape(ne, 2, 3)
        self.Rh = np.array([[I3 if s.node_orientations is None or s.node_orientations[k] is None
                             else s.node_orientations[k] for k in range(2)] for s in S], float).reshape(ne, 2, 3, 3)
        self.laws = Laws([s.law for s in S])
        self.viscous = self.laws.viscous
        self.ground = np.zeros(ne, bool)
        # initial configuration: arc length ℓ and reference strains
        self.ell = np.ones(ne)
        self.eta0 = np.zeros((ne, 6))
        g = self._geometry(nodes.x0[self.nidx], nodes.R0[self.nidx])
        ell = np.linalg.norm(g["rho"], axis=-1)
        bad = ell <= 1e-12 * np.maximum(1.0, np.abs(nodes.x0[self.nidx]).max(axis=(1, 2)))
        if np.any(bad):
            raise ValueError(f"hbeam {self.labels[bad][0]}: singular metric (zero length between the end points)")
        self.ell = ell
        self.eta0 = np.concatenate([g["rho"], g["phi"]], axis=-1)
        self._cache = StateCache()

    # ------------------------------------------------------------------ pattern
    def build_pattern(self):
        self.pattern = two_node_pattern(self.nodes, self.n1, self.n2)
        return self.pattern

    # ------------------------------------------------------------------ kinematics
    def _geometry(self, x, Rn):
        """Screw logarithm and mid-point quantities from node positions x (ne,2,3) and node
        orientations Rn (ne,2,3,3)."""
        o = _mv(Rn, self.f)                                             # R_k f̃_k
        y = x + o
        R = Rn @ self.Rh                                                # R̄_k
        R1 = R[:, 0]
        E = np.swapaxes(R1, -1, -2) @ R[:, 1]
        phi = _log_rotvec(E)
        Dy = y[:, 1] - y[:, 0]
        d = rot.mattvec(R1, Dy)
        Ginv = rot.gamma_inv(phi)
        rho = _mv(Ginv, d)
        exph, Gh, _ = _exp_gamma(0.5 * phi)
        u = 0.5 * _mv(Gh, rho)                                          # p(½) - y₁ in frame 1
        Rs = R1 @ exph                                                  # section frame R(½)
        p = y[:, 0] + _mv(R1, u)
        return dict(x=x, o=o, y=y, R1=R1, phi=phi, Dy=Dy, rho=rho, Ginv=Ginv, Gh=Gh, u=u, Rs=Rs, p=p)

    def _state(self, ctx):
        kin = ctx.kin
        x, Rn = kin.x[self.nidx], kin.R[self.nidx]
        key = [x, Rn]
        if self.viscous:
            key += [kin.v[self.nidx], kin.w[self.nidx]]
        return self._cache.get(ctx.t, key, self._compute_state)

    def _compute_state(self, t, key):
        ne = self.ne
        st = self._geometry(key[0], key[1])
        ell = self.ell[:, None]
        strain = (np.concatenate([st["rho"], st["phi"]], axis=-1) - self.eta0) / ell
        Rs = st["Rs"]
        if self.viscous:
            v, w = key[2], key[3]
            yd = v + rot.cross(w, st["o"])
            wbar = 0.5 * (w[:, 0] + w[:, 1])
            a = yd[:, 1] - yd[:, 0] - rot.cross(wbar, st["Dy"])
            c = w[:, 1] - w[:, 0]
            rate = np.concatenate([rot.mattvec(Rs, a), rot.mattvec(Rs, c)], axis=-1) / ell
            st.update(w=w, wbar=wbar, a=a, c=c)
        else:
            rate = np.zeros((ne, 6))
        f, D, Dv = self.laws.evaluate(strain, rate, t)
        F, M = _mv(Rs, f[:, 0:3]), _mv(Rs, f[:, 3:6])
        x1, x2 = st["x"][:, 0], st["x"][:, 1]
        p = st["p"]
        M1 = M + rot.cross(p - x1, F)
        M2 = M + rot.cross(p - x2, F)
        res = np.concatenate([-F, -M1, F, M2], axis=-1)
        st.update(strain=strain, rate=rate, f=f, D=D, Dv=Dv, F=F, M=M, res=res)
        return st

    # ------------------------------------------------------------------ residual and Jacobian
    def evaluate(self, ctx, res_views, jac_views):
        want_jac = jac_views is not None
        st = self._state(ctx)
        res = [st["res"]]
        if not want_jac:
            write_blocks(res_views, res)
            return
        dF_dq, dF_dV = self._partials(st)
        write_blocks(res_views, res)
        write_blocks(jac_views, [chain12(ctx.kin, self.n1, self.n2, self.ground, dF_dq=dF_dq, dF_dV=dF_dV)])

    def _partials(self, st):
        """∂res/∂(δx₁, θ₁, δx₂, θ₂) and ∂res/∂(δv₁, δω₁, δv₂, δω₂), (ne, 12, 12) each."""
        ne = self.ne
        R1, phi, rho, Ginv, Gh, u, Rs = (st[k] for k in ("R1", "phi", "rho", "Ginv", "Gh", "u", "Rs"))
        o1x, o2x = rot.skew(st["o"][:, 0]), rot.skew(st["o"][:, 1])
        R1t = np.swapaxes(R1, -1, -2)
        Z = np.zeros((ne, 3, 12))
        # δy₁, δy₂ (δy_k = δx_k - o_k× θ_k) and δx₁, δx₂
        Dx1, Dx2 = Z.copy(), Z.copy()
        Dx1[:, :, 0:3] = I3
        Dx2[:, :, 6:9] = I3
        Dy1, Dy2 = Dx1.copy(), Dx2.copy()
        Dy1[:, :, 3:6] = -o1x
        Dy2[:, :, 9:12] = -o2x
        # δφ = Γ⁻¹ R̄₁ᵀ (θ₂ - θ₁)
        Wr = Z.copy()
        Wr[:, :, 3:6] = -R1t
        Wr[:, :, 9:12] = R1t
        Bphi = Ginv @ Wr
        # δd = R̄₁ᵀ (δy₂ - δy₁ + (y₂ - y₁)×θ₁);  δρ = Γ⁻¹ (δd - Q(φ, ρ) δφ)
        Bd = Dy2 - Dy1
        Bd[:, :, 3:6] += rot.skew(st["Dy"])
        Bd = R1t @ Bd
        Brho = Ginv @ (Bd - gamma_derivative_times(phi, rho) @ Bphi)
        # section frame at ξ = ½: θ_s = θ₁ + R̄₁ Γ(φ/2) δφ/2
        Bths = 0.5 * (R1 @ Gh) @ Bphi
        Bths[:, :, 3:6] += I3
        # mid-point: p = y₁ + R̄₁ u, u = Γ(φ/2) ρ/2
        Bu = 0.5 * (0.5 * gamma_derivative_times(0.5 * phi, rho) @ Bphi + Gh @ Brho)
        Bp = Dy1 + R1 @ Bu
        Bp[:, :, 3:6] -= rot.skew(_mv(R1, u))
        ell = self.ell[:, None, None]
        Be = np.concatenate([Brho, Bphi], axis=1) / ell                # δe (ne, 6, 12)
        dfq = st["D"] @ Be
        dfV = None
        if self.viscous:
            a, c, w = st["a"], st["c"], st["w"]
            Rst = np.swapaxes(Rs, -1, -2)
            # rate part on (δx, θ): δa = ω₁×(o₁×θ₁) - ω₂×(o₂×θ₂) - ω̄×(δy₂ - δy₁); δ(Rᵀv) = Rᵀ(δv + v×θ_s)
            da = -rot.skew(st["wbar"]) @ (Dy2 - Dy1)
            da[:, :, 3:6] += rot.skew(w[:, 0]) @ o1x
            da[:, :, 9:12] -= rot.skew(w[:, 1]) @ o2x
            Bed = np.concatenate([Rst @ (da + rot.skew(a) @ Bths), Rst @ (rot.skew(c) @ Bths)], axis=1) / ell
            dfq = dfq + st["Dv"] @ Bed
            # velocity columns: δẏ_k = δv_k - o_k× δω_k, δω̄ = (δω₁ + δω₂)/2
            hDy = 0.5 * rot.skew(st["Dy"])
            Av, Cv = Z.copy(), Z.copy()
            Av[:, :, 0:3] = -I3
            Av[:, :, 3:6] = o1x + hDy
            Av[:, :, 6:9] = I3
            Av[:, :, 9:12] = -o2x + hDy
            Cv[:, :, 3:6] = -I3
            Cv[:, :, 9:12] = I3
            BeV = np.concatenate([Rst @ Av, Rst @ Cv], axis=1) / ell
            dfV = st["Dv"] @ BeV
        out = []
        for df, geometric in ((dfq, True), (dfV, False)):
            if df is None:
                out.append(None)
                continue
            dF = Rs @ df[:, 0:3]
            dM = Rs @ df[:, 3:6]
            if geometric:
                dF = dF - rot.skew(st["F"]) @ Bths
                dM = dM - rot.skew(st["M"]) @ Bths
            Fx = rot.skew(st["F"])
            p, x1, x2 = st["p"], st["x"][:, 0], st["x"][:, 1]
            dM1 = dM + rot.skew(p - x1) @ dF
            dM2 = dM + rot.skew(p - x2) @ dF
            if geometric:
                dM1 = dM1 - Fx @ (Bp - Dx1)
                dM2 = dM2 - Fx @ (Bp - Dx2)
            out.append(np.concatenate([-dF, -dM1, dF, dM2], axis=1))
        return out[0], out[1]

    # ------------------------------------------------------------------ output
    def output_groups(self, ctx):
        """.act rows as MBDyn's hbeam writes them: label, then the section force and moment at
        the mid-point in the section frame (6 values)."""
        st = self._state(ctx)
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], st["f"][out])]

    def section_loads(self, ctx):
        """(F, M) at the mid-point in the global frame, (ne, 3) each."""
        st = self._state(ctx)
        return st["F"], st["M"]

    def strains(self, ctx):
        """Generalized strains (ε, κ) and their rates in the section frame, (ne, 6) each."""
        st = self._state(ctx)
        return st["strain"], st["rate"]

    def midpoint(self, ctx):
        """Mid-point p(½) of the helicoidal reference line and the section frame R(½)."""
        st = self._state(ctx)
        return st["p"], st["Rs"]

    def private_data_names(self, i):
        """MBDyn's hbeam private data: "ex" axial strain, "kx", "ky", "kz" curvatures, "Fx" axial
        force, "Mx", "My", "Mz" moments (section frame; MBDyn refuses the shear components)."""
        return ("ex", "kx", "ky", "kz", "Fx", "Mx", "My", "Mz")

    def private_data(self, ctx, name):
        st = self._state(ctx)
        cols = {"ex": ("strain", 0), "kx": ("strain", 3), "ky": ("strain", 4), "kz": ("strain", 5),
                "Fx": ("f", 0), "Mx": ("f", 3), "My": ("f", 4), "Mz": ("f", 5)}
        if name not in cols:
            raise ValueError(f'hbeam private datum "{name}" does not exist (ex, kx, ky, kz, Fx, Mx, My, Mz)')
        what, k = cols[name]
        return st[what][:, k]

    def clear_cache(self):
        """The cached state belongs to the previous step's reference orientations."""
        self._cache.clear()


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_hbeam(reader, model, args, label, word):
    """`hbeam: label, 2 × (node, [position,] offset [, {orientation | rot}, R]), law_6D
    [, output, ...]` (input manual §8.3, experimental; elements/hbeam.py).  Without an
    orientation the end frame is the node frame (MBDyn 1.7's reader uses node 1's input
    orientation as the relative orientation of both ends instead: the same for nodes input
    with `eye`, as in its tests beam/h and hcurl)."""
    labels, offsets, orientations = reader.read_node_ends(args, 2, "hbeam node")
    law = reader.read_law(args, 6)
    output = "beams" in reader.default_output
    while args.more():
        ow = args.peek()
        kw = args.expect_keyword("output", "piezoelectric actuator", what="'output' or ';'")
        if kw == "output":
            output = reader.read_output_flag(args, "beams")
        else:
            raise ow.error(reader.not_supported("piezoelectric beams"))
    model.hbeam(label, labels[0], labels[1], law, offsets=offsets, node_orientations=orientations,
                output=output)


CARDS = {
    "hbeam": read_hbeam,
}
