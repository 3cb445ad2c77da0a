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
rule (G8) maps them to the Newton increments.

Every evaluation is one call of the compiled kernel `helicoidal_beams`
(elements/hbeam_kernel.py) over all instances; outputs and private data read the same
kernel's per-instance strains and loads."""
from dataclasses import dataclass
from functools import cached_property
import numpy as np

from mbdae.engine.core.assembly import kernel_jacobian_views
from mbdae.engine.core.constitutive import Laws
from mbdae.elements.base import ElementFamily, two_node_pattern, vec, mat, beam_list, random_rotation
from mbdae.elements.beam import _three_moving_nodes, _beam_laws
from mbdae.elements.hbeam_kernel import helicoidal_beams, screw_logarithms

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
    """All hbeam instances; each evaluation is one call of the compiled kernel
    `helicoidal_beams` (elements/hbeam_kernel.py)."""
    name = "hbeam"
    NN = 2
    output_file = "act"
    INFO = 36          # per instance from the kernel: e, ė, f (6 each), F, M, p (3 each), R(½) (9)

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
        # initial configuration: arc length ℓ = |ρ| and reference strains η₀ = (ρ, φ)
        eta0 = np.empty((ne, 6))
        screw_logarithms(nodes.x0, nodes.R0, self.n1, self.n2, self.f, self.Rh, eta0)
        ell = np.linalg.norm(eta0[:, 0:3], axis=-1)
        bad = ell <= 1e-12 * np.maximum(1.0, np.abs(nodes.x0[self.nidx]).max(axis=(1, 2)))
        if np.any(bad):
            raise ValueError(f"hbeam {self.labels[bad][0]}: singular metric (zero length between the end points)")
        self.ell = ell
        self.eta0 = eta0

    # ------------------------------------------------------------------ pattern
    def build_pattern(self):
        self.pattern = two_node_pattern(self.nodes, self.n1, self.n2)
        return self.pattern

    # ------------------------------------------------------------------ residual and Jacobian
    def _run(self, ctx, res, jac, want_jac, info):
        """One call of the compiled kernel over all instances."""
        kin = ctx.kin
        helicoidal_beams(float(kin.dcoef), self.n1, self.n2, self.f, self.Rh, self.ell, self.eta0, self.viscous,
                         *self.laws.arrays, *self.laws.time_values(ctx.t), kin.x, kin.v, kin.R, kin.w, kin.G,
                         kin.Tw, want_jac, res, jac, info)

    @cached_property
    def _no_info(self):
        return np.zeros((0, self.INFO))

    def evaluate(self, ctx, res_views, jac_views):
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        self._run(ctx, res_views[0], jac[0], want_jac, self._no_info)

    def kernel_info(self, ctx):
        """Per instance (ne, 36), from the kernel: the generalized strain e and its rate
        (section frame), the law output f = (section force, moment), the mid-point loads
        F, M in the global frame, the mid-point p(½) and the section frame R(½) by rows."""
        info = np.empty((self.ne, self.INFO))
        jac, _ = kernel_jacobian_views(self, None)
        self._run(ctx, np.empty((self.ne, 12)), jac[0], False, info)
        return info

    # ------------------------------------------------------------------ output
    def output_groups(self, ctx):
        """.act rows as MBDyn's hbeam writes them: label, then the section force and moment at
        the mid-point in the section frame (6 values)."""
        f = self.kernel_info(ctx)[:, 12:18]
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], f[out])]

    def section_loads(self, ctx):
        """(F, M) at the mid-point in the global frame, (ne, 3) each."""
        info = self.kernel_info(ctx)
        return info[:, 18:21], info[:, 21:24]

    def strains(self, ctx):
        """Generalized strains (ε, κ) and their rates in the section frame, (ne, 6) each."""
        info = self.kernel_info(ctx)
        return info[:, 0:6], info[:, 6:12]

    def midpoint(self, ctx):
        """Mid-point p(½) of the helicoidal reference line and the section frame R(½)."""
        info = self.kernel_info(ctx)
        return info[:, 24:27], info[:, 27:36].reshape(self.ne, 3, 3)

    def private_data_names(self, i):
        """MBDyn's hbeam private data: "ex" axial strain, "kx", "ky", "kz" curvatures, "Fx" axial
        force, "Mx", "My", "Mz" moments (section frame; MBDyn refuses the shear components)."""
        return ("ex", "kx", "ky", "kz", "Fx", "Mx", "My", "Mz")

    def private_data(self, ctx, name):
        columns = {"ex": 0, "kx": 3, "ky": 4, "kz": 5, "Fx": 12, "Mx": 15, "My": 16, "Mz": 17}
        if name not in columns:
            raise ValueError(f'hbeam private datum "{name}" does not exist (ex, kx, ky, kz, Fx, Mx, My, Mz)')
        return self.kernel_info(ctx)[:, columns[name]]


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
