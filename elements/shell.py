"""4-node shells shell4eas and shell4easans (theory manual ch. 11, Morandini & Vescovini;
input manual elemplate.tex "Shell elements") on 6-dof structural nodes, static or dynamic,
one family per kind, each evaluated by one compiled call (elements/shell_kernel.py).

Formulation (facts from the manual and MBDyn 1.7.3's element):
- nodes counter-clockwise from the upper-right one (eq. 11.21); 2×2 Gauss points, unit
  weights; nodal frames T_n = R_n iTa_n with iTa_n from the reference tangents (eqs.
  11.33-11.34); the mean frame T̄ = Rot(VecRot(¼ Σ R_ref,n iTa_n)) from the nodes'
  orientations at the start of the step, as MBDyn (GetRRef), so T̄ is constant within a
  step; interpolated relative rotation vectors φ̃ (eqs. 11.37-11.43).
- compatible strains ε_k = Tᵀy,k, κ_k = TᵀT̄Γ(φ̃)φ̃,k, both measured from the reference
  configuration (MBDyn subtracts the reference values, so a curved or warped element is
  stress-free in its reference), at frames T = T̄ Rot(φ̃) A with A fixing T to the point's
  tangent frame in the reference (eqs. 11.6-11.9, 11.62-11.63, 11.75-11.76).
- σ = D(ε + ε̂) + σ₀ with the 12×12 law D in MBDyn's order (n₁₁ n₁₂ n₁₃ n₂₁ n₂₂ n₂₃
  m₁₁ … m₂₃ against ε₁₁ … κ₂₃) and the prestress σ₀; MBDyn's shell card has no viscous
  law, so the damping terms of §11.4 are not part of this element.
- EAS (eqs. 11.52-11.56): ε̂ = (α₀/α) P₁₂ M₀⁻ᵀ H(ξ) β, membrane enhancement with 7
  parameters for shell4easans; shell4eas has MBDyn's 13 (the 7 membrane ones and 6
  transverse-shear modes 2ξ₁(ξ₂²-1), 2ξ₂(ξ₁²-1) and their product, iGetNumDof = 13).
- ANS (shell4easans, eqs. 11.68-11.74): ε₁₃ from a (0, 1) and c (0, -1), ε₂₃ from b (-1, 0)
  and d (1, 0), each point with its own interpolated frame.

Variants (`mbdyn`, per element; shell_kernel.shell_reference): MBDyn 1.7.3's element
(default, the deck cards) as above, and the consistent variant (mbdyn=False): nodal and
point frames with one in-plane direction per element (the centre's t₁, so that on a flat
element all frames coincide and the reference φ̃_n vanish), M₀ in the centre's frame, and
for shell4easans the covariant ANS shear of MITC4 (γ_β = d·x,ξβ sampled at a, c / b, d and
mapped back with S⁻ᵀ of the Gauss point).  MBDyn's per-point frames make the EAS rows
nonzero at a uniform stress and its ANS interpolate non-covariant components, so it fails
the membrane and bending patch tests on non-parallelograms; the consistent shell4easans
passes both (tests/test_shell.py).  On rectangles the two variants are the same element.

EAS parameters as unknowns.  MBDyn keeps β as element-internal algebraic unknowns
(iGetNumDof 7 or 13, DofOrder::ALGEBRAIC).  This family does the same: the β are its own
unknowns (n_internal, dof_info, set_offset, as the joints' multipliers), so they sit in the
generated FD-Jacobian checks, the Newton iteration converges β with the nodes (no local
iteration per element), and the element's residual is a plain function of the unknowns.
Static condensation was not implemented (it would need the element's β held in the State
and a local solve per evaluation).  One departure from MBDyn: its β rows are r_β/dCoef;
here they are r_β = Σ αw Pᵀσ itself (a force-like row, as the membrane's), with the node
columns of those rows ×dCoef.  Newton's iterates are the same (a row scaling), but MBDyn's
scaling multiplies the rows' round-off by 1/dCoef: a steel strip in a dynamic run (E h =
1e9 N/m, dCoef ≈ 6e-4) then has a residual floor near 1e-2 that no tolerance below it can
meet (cases/flexible/shell_pendulum.py), where the unscaled rows stop at 2e-6.

Jacobian: exact derivative of the residual on the Newton increments, MBDyn's form (node
columns ×dCoef through θ = dCoef G Δġ, β columns unscaled); it includes
the derivatives of Γ(φ̃)⁻¹ and of Γ in the curvature that the manual's K_g (eqs.
11.84-11.88) leaves out.  Row 3 of eq. 11.88 reads -T n₁; the exact second derivative of
m₁·κ₁ (the term it stands for) is in `shell_kernel.point_geometric` and passes the FD
check, i.e. the entry is -T m₁ (the digest's erratum).

Drilling: MBDyn's isotropic law gives the in-plane rotation its stiffness through
n₁₂ = 2Gh ε₁₂, n₂₁ = 2Gh ε₂₁ (ε₁₂ - ε₂₁ measures the drilling rotation against the
membrane's) and the curvatures κ₁₃, κ₂₃ (factor `at`); a single element has exactly 6
zero-stiffness modes (tests/test_shell.py).

Geometry checks at input (one-line error naming the element, its nodes and deck line): the
node order defines the normal (right-hand rule, MBDyn's counter-clockwise order seen from
it); the corner Jacobians x,ξ₁ × x,ξ₂ at the four nodes must point the same way as the
element normal (x₃ - x₁)×(x₄ - x₂) (else the quadrilateral is self-intersecting, concave
or its nodes are not in a cyclic order), each within WARP_DEGREES = 45° of it (else warped
beyond tolerance: beyond that the flat-facet strains of §11.5.2 no longer describe the
element), and the area must not vanish."""
from dataclasses import dataclass
from functools import cached_property
import numpy as np

from mbdae.elements.shell_mass import ShellMassSpec, consistent_mass
from mbdae.engine.core.assembly import Pattern, ALGEBRAIC, DIM
from mbdae.engine.core.constitutive import isotropic_constants
from mbdae.elements.base import ElementFamily, cards_per_kind, element_nodes, random_rotation
from mbdae.elements.shell_kernel import (shell_reference, shell_equations, shell_mean_frames, shell_eas_products,
                                         bilinear, XI_POINTS, XI_NODES)

KINDS = ("shell4eas", "shell4easans")
N_BETA = {"shell4eas": 13, "shell4easans": 7}
ALPHA_S, ALPHA_T = 1.0, 0.01        # MBDyn's defaults of `as` and `at` (struct/shell.cc)
WARP_DEGREES = 45.0                 # largest angle between a corner normal and the element normal


@dataclass
class ShellSpec:
    label: int
    kind: str
    nodes: tuple                 # 4 structural node labels, MBDyn's order
    D: np.ndarray                # (12, 12)
    prestress: np.ndarray        # (12,)
    mbdyn: bool = True           # MBDyn 1.7.3's element, else the consistent variant
    output: bool = True
    where: str = None


def isotropic_shell_law(E=None, nu=None, G=None, thickness=None, alpha_s=ALPHA_S, alpha_t=ALPHA_T):
    """MBDyn's `isotropic` shell law (12, 12) (struct/shell.cc): two of E, nu, G (a third
    must agree), C = Eh/(1-ν²), D = Ch²/12, membrane n₁₁ = C(ε₁₁ + ν ε₂₂), n₁₂ = 2Gh ε₁₂,
    n₂₁ = 2Gh ε₂₁, shear Gh α_s, bending m₁₂ = D(κ₁₂ - ν κ₂₁), m₂₁ = D(κ₂₁ - ν κ₁₂),
    twist 2Gh³/12, drilling curvature Gh³/12 α_t."""
    if thickness is None or thickness <= 0:
        raise ValueError(f"isotropic shell law: thickness must be positive (got {thickness})")
    if alpha_s <= 0 or alpha_t <= 0:
        raise ValueError(f"isotropic shell law: as and at must be positive (got {alpha_s}, {alpha_t})")
    E, nu, G = isotropic_constants(E, nu, G, "isotropic shell law")
    h = float(thickness)
    C = E / (1 - nu * nu) * h
    Db = C * h * h / 12
    Gh = G * h
    F = Gh * h * h / 12
    D = np.zeros((12, 12))
    D[0, 0] = D[4, 4] = C
    D[0, 4] = D[4, 0] = C * nu
    D[1, 1] = D[3, 3] = 2 * Gh
    D[2, 2] = D[5, 5] = Gh * alpha_s
    D[6, 6] = D[10, 10] = 2 * F
    D[7, 7] = D[9, 9] = Db
    D[7, 9] = D[9, 7] = -Db * nu
    D[8, 8] = D[11, 11] = F * alpha_t
    return D


def check_quads(X, specs, where):
    """ValueError naming the first bad element and its nodes unless every quadrilateral of
    corners X (ne, 4, 3) is valid (module docstring): not degenerate, a simple cyclic order
    (no bow-tie, not concave) and no corner normal more than WARP_DEGREES from the element
    normal.  `where(spec)` prefixes the message.  Vectorized over the elements."""
    X = np.asarray(X, float).reshape(-1, 4, 3)
    dL = np.empty((4, 4, 2))
    L = np.empty(4)
    for k in range(4):
        bilinear(XI_NODES[k, 0], XI_NODES[k, 1], L, dL[k])
    t1 = np.einsum("kn,enc->ekc", dL[:, :, 0], X)                # x,ξ₁ at each corner (ne, 4, 3)
    t2 = np.einsum("kn,enc->ekc", dL[:, :, 1], X)
    corners = np.cross(t1, t2)                                    # corner normals (ne, 4, 3)
    size2 = ((X - X.mean(axis=1, keepdims=True)) ** 2).sum(axis=(1, 2))
    cn = np.linalg.norm(corners, axis=2)
    normal = np.cross(X[:, 2] - X[:, 0], X[:, 3] - X[:, 1])
    nn = np.linalg.norm(normal, axis=1)
    cosang = np.einsum("ekc,ec->ek", corners, normal) / np.maximum(cn * nn[:, None], 1e-300)
    cosang[cn == 0] = -1.0
    zero = (size2 == 0) | (cn.max(axis=1) <= 1e-12 * size2)
    crossed = ~zero & (nn <= 1e-10 * size2)
    failing = (cosang <= 0) | (cosang < np.cos(np.radians(WARP_DEGREES)))     # per corner
    bad = np.flatnonzero(zero | crossed | failing.any(axis=1))
    if not len(bad):
        return
    e = int(bad[0])
    spec = specs[e]
    nodes = ", ".join(map(str, spec.nodes))
    if zero[e]:
        raise ValueError(f"{where(spec)}zero-area quadrilateral (nodes {nodes})")
    if crossed[e]:
        raise ValueError(f"{where(spec)}self-intersecting quadrilateral (nodes {nodes} are not in a cyclic order)")
    k = int(np.flatnonzero(failing[e])[0])                     # the first corner in order
    if cosang[e, k] <= 0:
        raise ValueError(f"{where(spec)}self-intersecting or concave quadrilateral at node {spec.nodes[k]} "
                         f"(nodes {nodes} must go around the element in order)")
    raise ValueError(f"{where(spec)}warped beyond {WARP_DEGREES:g}° at node {spec.nodes[k]} (nodes {nodes}; "
                     f"corner normal {np.degrees(np.arccos(cosang[e, k])):.1f}° from the element normal)")


# ---------------------------------------------------------------------- Model builder methods
def shell(model, label, nodes, D, kind="shell4easans", prestress=None, mbdyn=True, output=True, where=None):
    """A 4-node shell (`kind` shell4eas or shell4easans): `nodes` 4 structural node labels in
    MBDyn's order (counter-clockwise about the normal, from the upper-right one), `D` the
    12×12 law, `prestress` a 12-vector (None: zero); `mbdyn`: MBDyn 1.7.3's element (as the
    deck cards), else the consistent variant (module docstring)."""
    if kind not in KINDS:
        raise ValueError(f"shell {label}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    nodes = tuple(int(n) for n in nodes)
    if len(nodes) != 4:
        raise ValueError(f"{kind} {label}: 4 nodes required, got {len(nodes)}")
    if len(set(nodes)) != 4:
        raise ValueError(f"{kind} {label}: repeated node in {nodes}")
    D = np.asarray(D, float)
    if D.shape != (12, 12) or not np.isfinite(D).all():
        raise ValueError(f"{kind} {label}: the law must be a finite 12×12 matrix (got shape {D.shape})")
    s0 = np.zeros(12) if prestress is None else np.asarray(prestress, float).reshape(-1)
    if s0.shape != (12,):
        raise ValueError(f"{kind} {label}: prestress must have 12 components, got {s0.size}")
    spec = ShellSpec(int(label), kind, nodes, D.copy(), s0.copy(), bool(mbdyn), bool(output), where)
    known = model.nodes_by_label()
    if all(n in known for n in nodes):             # else checked when the family is built
        check_quads(np.array([known[n].x for n in nodes], float), [spec], lambda _: f"{kind} {label}: ")
    model.shells.append(spec)
    return label


def shell_masses(model, first_label, density, thickness, labels=None, consistent=False):
    """Rigid bodies on the shells' nodes (MBDyn users' way: shells have no inertia): per
    element corner the tributary mass ρhA/4 and the slab's rotary inertia (m h²/12 about
    the two in-plane axes, m h²/6 about the normal, in the element's corner frame), summed
    per node into one body labelled first_label, first_label + 1, … in node order.  The
    shells (all, or those of `labels`) and their nodes must already be defined.
    `consistent`: the translational mass is each shell's consistent mass matrix instead
    (elements/shell_mass.py) and the bodies carry the rotary inertia only."""
    chosen = [s for s in model.shells if labels is None or s.label in set(labels)]
    if not chosen:
        raise ValueError("shell_masses: no shells")
    pos = model.nodes_by_label()
    mass, J = {}, {}
    L, dL = np.empty(4), np.empty((4, 2))
    for s in chosen:
        try:
            X = np.array([pos[n].x for n in s.nodes])
        except KeyError as e:
            raise ValueError(f"shell_masses: {s.kind} {s.label}: structural node {e.args[0]} is not defined") from None
        area = 0.0
        for xi in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            bilinear(xi[0] / np.sqrt(3), xi[1] / np.sqrt(3), L, dL)
            area += np.linalg.norm(np.cross(dL[:, 0] @ X, dL[:, 1] @ X))
        m = density * thickness * area / 4
        if consistent:
            model.shell_mass_elements.append(ShellMassSpec(s.label, s.nodes, consistent_mass(X, density, thickness)))
        for k, n in enumerate(s.nodes):
            bilinear(XI_NODES[k, 0], XI_NODES[k, 1], L, dL)
            nrm = np.cross(dL[:, 0] @ X, dL[:, 1] @ X)
            nrm /= np.linalg.norm(nrm)
            Jk = m * thickness ** 2 / 12 * (np.eye(3) + np.outer(nrm, nrm))
            mass[n] = mass.get(n, 0.0) + m
            J[n] = J.get(n, 0.0) + Jk
    for k, n in enumerate(sorted(mass)):
        R = pos[n].R
        model.body(first_label + k, n, 0.0 if consistent else mass[n], inertia=R.T @ J[n] @ R)
    return first_label + len(mass) - 1


MODEL_FIELDS = {"shells": list}
MODEL_METHODS = (shell, shell_masses)


def build(model, nodes, built):
    """One family per kind present, in KINDS order."""
    return [Shells([s for s in model.shells if s.kind == k], nodes, k) for k in KINDS
            if any(s.kind == k for s in model.shells)]


# ---------------------------------------------------------------------- samples
def shell_quad(rng, distortion=0.0, warp=0.0, size=1.0):
    """Corners of a quad in MBDyn's order (upper right first, counter-clockwise), randomly
    rotated and placed, with in-plane distortion and out-of-plane warp (fractions of size)."""
    X = 0.5 * size * XI_NODES.astype(float)
    X = X + distortion * size * rng.uniform(-0.5, 0.5, X.shape)
    z = warp * size * np.array([1.0, -1.0, 1.0, -1.0])
    P = np.column_stack([X, z])
    Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    Q *= np.sign(np.linalg.det(Q))
    return rng.normal(size=3) + P @ Q.T


def _shell_sample(kind, node_kind, distortion, warp, prestress, second=False, law="full", mbdyn=True):
    """law: "full" (isotropic plus a random symmetric positive part), "isotropic" (MBDyn's
    sparse law), "nonsymmetric" (isotropic plus a random full matrix, as `matr` allows)."""
    def sample(model, rng):
        X = shell_quad(rng, distortion, warp)
        for k, x in enumerate(X, start=1):
            model.structural_node(k, node_kind, position=x, orientation=random_rotation(rng),
                                  velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
        D = isotropic_shell_law(E=2.0e3, nu=0.3, thickness=0.05, alpha_t=0.2)
        if law == "full":
            D = D + 0.05 * np.abs(D).max() * (lambda A: A @ A.T)(rng.normal(size=(12, 12))) / 12
        elif law == "nonsymmetric":
            D = D + 0.05 * np.abs(D).max() * rng.normal(size=(12, 12))
        s0 = rng.normal(size=12) if prestress else None
        model.shell(1, (1, 2, 3, 4), D, kind, prestress=s0, mbdyn=mbdyn)
        if second:             # a neighbour sharing the edge 2-3 (nodes 2, 3 become its 1, 4)
            Y = X[[1, 2]] + (X[1] - X[0])
            for k, x in enumerate(Y, start=5):
                model.structural_node(k, node_kind, position=x, orientation=random_rotation(rng))
            model.shell(2, (2, 5, 6, 3), D, kind)          # MBDyn's: a mixed family when mbdyn is False
        return model
    sample.__name__ = (f"{kind}_{node_kind}_d{distortion}_w{warp}_{law}{'_prestress' if prestress else ''}"
                       f"{'' if mbdyn else '_consistent'}")
    return sample


SAMPLES = {"shell": [_shell_sample("shell4easans", "dynamic", 0.0, 0.0, True),
                     _shell_sample("shell4easans", "static", 0.2, 0.1, True),
                     _shell_sample("shell4eas", "dynamic", 0.2, 0.1, True),
                     _shell_sample("shell4eas", "static", 0.0, 0.0, False),
                     _shell_sample("shell4easans", "dynamic", 0.15, 0.05, False, second=True),
                     _shell_sample("shell4easans", "static", 0.2, 0.1, True, law="isotropic"),
                     _shell_sample("shell4eas", "dynamic", 0.2, 0.1, True, law="nonsymmetric"),
                     _shell_sample("shell4easans", "static", 0.1, 0.05, False, second=True, law="nonsymmetric"),
                     _shell_sample("shell4easans", "dynamic", 0.3, 0.1, True, mbdyn=False),
                     _shell_sample("shell4eas", "static", 0.3, 0.1, True, law="nonsymmetric", mbdyn=False),
                     _shell_sample("shell4easans", "static", 0.2, 0.05, True, second=True, mbdyn=False)]}


# ---------------------------------------------------------------------- family
class Shells(ElementFamily):
    """All shells of one kind.  State (per element): the step's mean frame T̄ (set on the
    predicted state of each step, as MBDyn's RRef) and the converged step's σ, ε + ε̂ at the
    Gauss points (MBDyn's output writes the stresses of the last residual of the step)."""
    name = "shell"
    output_file = "pla"
    has_state = True
    has_step_start = True

    def __init__(self, specs, nodes, kind):
        super().__init__(specs, nodes)
        self.kind = kind
        self.ans = kind == "shell4easans"
        self.nb = N_BETA[kind]
        self.n_internal = self.ne * self.nb
        S = self.specs
        self.conn = element_nodes(nodes, S, 4, self.where)
        rotating = nodes.rotating[self.conn]
        if not rotating.all():
            e = int(np.flatnonzero(~rotating.all(axis=1))[0])
            raise ValueError(f"{self.where(S[e])}structural node {S[e].nodes[int(np.flatnonzero(~rotating[e])[0])]} "
                             f"has no rotation (displacement-only); shells need 6-dof nodes")
        X = np.ascontiguousarray(nodes.x0[self.conn])
        self._check_geometry(X)
        R0 = np.ascontiguousarray(nodes.R0[self.conn])
        ne = self.ne
        self.iTa = np.empty((ne, 4, 3, 3))
        self.A = np.empty((ne, 8, 3, 3))
        self.Lab = np.empty((ne, 8, 4, 2))
        self.alpha = np.empty((ne, 8))
        self.e0 = np.empty((ne, 8, 2, 3))
        self.k0 = np.zeros((ne, 4, 2, 3))
        self.P = np.zeros((ne, 4, 12, self.nb))
        self.Cans = np.zeros((ne, 4, 2, 8))
        bad = np.zeros(ne, np.int64)
        mbdyn = np.array([s.mbdyn for s in S], np.bool_)
        shell_reference(X, R0, self.nb, mbdyn, self.iTa, self.A, self.Lab, self.alpha, self.e0, self.k0, self.P,
                        self.Cans, bad)
        if bad.any():
            e = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{self.where(S[e])}area factor det S <= 0 at an integration point "
                             f"(nodes {', '.join(map(str, S[e].nodes))}): degenerate quadrilateral")
        self.aw = np.ascontiguousarray(self.alpha[:, :4])          # unit Gauss weights
        L, dL = np.empty(4), np.empty((4, 2))
        self.Lv = np.empty((8, 4))
        for p in range(8):
            bilinear(XI_POINTS[p, 0], XI_POINTS[p, 1], L, dL)
            self.Lv[p] = L
        self.D = np.ascontiguousarray([s.D for s in S])
        used = (self.D != 0).any(axis=0)                               # (12, 12)
        self.dcnt = used.sum(axis=1).astype(np.int64)
        self.dcols = np.zeros((12, 12), np.int64)
        for r in range(12):
            self.dcols[r, :self.dcnt[r]] = np.flatnonzero(used[r])
        self.Dsym = np.array([np.array_equal(d, d.T) for d in self.D], np.bool_)
        self.sig0 = np.ascontiguousarray([s.prestress for s in S])
        self.DPw, self.Kbb = shell_eas_products(self.P, self.D, self.aw)
        self.boff = np.zeros((ne, self.nb), np.int64)

    @staticmethod
    def where(spec):
        shown = f"{spec.where}: " if spec.where else ""
        return f"{shown}{spec.kind} {spec.label}: "

    def _check_geometry(self, X):
        check_quads(X, self.specs, self.where)

    # ------------------------------------------------------------------ layout
    def set_offset(self, start):
        self.offset = start
        self.boff = start + np.arange(self.n_internal, dtype=np.int64).reshape(self.ne, self.nb)

    def dof_info(self):
        kind = np.full(self.n_internal, ALGEBRAIC)
        dim = np.full(self.n_internal, DIM["other"], np.int64)
        labels = np.repeat(self.labels, self.nb)
        what = [f"{self.kind} EAS parameter {j + 1}" for _ in range(self.ne) for j in range(self.nb)]
        return kind, dim, labels, what

    def build_pattern(self):
        n = self.nodes
        ix, ig = n.ix[self.conn], n.ig[self.conn]                       # (ne, 4, 3)
        rows = np.concatenate([np.concatenate([ix, ig], axis=2).reshape(self.ne, 24), self.boff], axis=1)
        p = self.pattern = Pattern()
        p.add_res(rows)
        p.add_jac(rows, rows)
        return p

    @cached_property
    def _no_out(self):
        return np.zeros((self.ne, 4, 12)), np.zeros((self.ne, 4, 12)), np.zeros((1, 1, 1))

    # ------------------------------------------------------------------ state
    def mean_frames(self, R):
        """T̄ (ne, 3, 3) from the node orientations R (nodes.n, 3, 3)."""
        Tbar = np.empty((self.ne, 3, 3))
        shell_mean_frames(self.conn, np.ascontiguousarray(R), self.iTa, Tbar)
        return Tbar

    def initial_state(self):
        sig = np.broadcast_to(self.sig0[:, None, :], (self.ne, 4, 12)).copy()
        return {"Tbar": self.mean_frames(self.nodes.R0), "sigma": sig, "eps": np.zeros((self.ne, 4, 12))}

    def begin_step(self, ctx, families):
        """On the predicted state of a step: T̄ from the predicted node orientations (MBDyn's
        RRef after the prediction), in a new dict (the committed arrays stay)."""
        arrays = dict(families.get(self.state_key) or self.initial_state())
        arrays["Tbar"] = self.mean_frames(ctx.kin.R)
        families = dict(families)
        families[self.state_key] = arrays
        return families

    def commit(self, ctx, arrays):
        """The converged step's stresses (for the output), with the step's T̄."""
        sig, eps = self.stresses(ctx)
        return {"Tbar": arrays["Tbar"], "sigma": sig, "eps": eps}

    # ------------------------------------------------------------------ evaluation
    def _call(self, ctx, res, jac, want_jac, out=None):
        kin = ctx.kin
        so, eo, dummy = self._no_out if out is None else (out[0], out[1], None)
        Tbar = self.state_arrays(ctx)["Tbar"]
        shell_equations(self.ans, self.nb, float(kin.dcoef), self.conn, kin.x, kin.R, kin.G, Tbar, self.iTa,
                        self.A, self.Lv, self.Lab, self.aw, self.e0, self.k0, self.P, self.Cans, self.DPw, self.Kbb,
                        self.D, self.Dsym, self.dcnt, self.dcols, self.sig0, self.boff, ctx.y, want_jac, out is not None, res,
                        jac if want_jac else self._no_out[2], so, eo)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (shell_equations) over all shells of this kind."""
        want = jac_views is not None
        self._call(ctx, res_views[0], jac_views[0] if want else None, want)

    def stresses(self, ctx):
        """(σ, ε + ε̂) at the Gauss points, (ne, 4, 12) each, local frames, MBDyn's order,
        computed at ctx (with the T̄ of ctx's step)."""
        sig, eps = np.empty((self.ne, 4, 12)), np.empty((self.ne, 4, 12))
        self._call(ctx, np.empty((self.ne, 24 + self.nb)), None, False, (sig, eps))
        return sig, eps

    def resultants(self, ctx):
        """(ne, 12): element-average membrane and bending resultants n₁, n₂, m₁, m₂ (local
        frames, MBDyn's order), the Gauss points' values weighted by their area elements α:
        of the converged step when ctx carries the family's state, else computed at ctx."""
        arrays = ctx.families.get(self.state_key) if ctx.families else None
        sig = arrays["sigma"] if arrays is not None else self.stresses(ctx)[0]
        return np.einsum("ei,eir->er", self.aw, sig) / self.aw.sum(axis=1)[:, None]

    def cell_data(self, ctx):
        """Per-cell data of the VTU writer (engine/io/vtu.py): the element-average membrane
        (n₁, n₂) and bending (m₁, m₂) resultants, local frames, MBDyn's order."""
        r = self.resultants(ctx)
        return {"shell_membrane_resultant": r[:, :6], "shell_bending_resultant": r[:, 6:]}

    def output_groups(self, ctx):
        """.pla rows (MBDyn's Shell Output): the label and σ (12) at each of the 4 Gauss points
        of the converged step."""
        sig = self.state_arrays(ctx)["sigma"].reshape(self.ne, 48)
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], sig[out])]

    def cells(self):
        """("quad", (ne, 4) structural node indices in MBDyn's order)."""
        return "quad", self.conn


# ---------------------------------------------------------------- MBDyn deck cards
def read_shell_law(reader, args):
    """`[matr,] 12×12 | sym, 78 (upper triangle by rows) | diag, 12 | isotropic, {E | Young
    modulus, v | nu | Poisson modulus, v | G | shear modulus, v | as, v | at, v | thickness,
    v} [, prestress, 12]` (struct/shell.cc ReadShellConstLaw): (D, prestress)."""
    w = args.peek()
    if args.is_keyword("diag"):
        D = np.diag([args.real("a diagonal entry") for _ in range(12)])
    elif args.is_keyword("sym"):
        D = np.zeros((12, 12))
        for i in range(12):
            for j in range(i, 12):
                D[i, j] = D[j, i] = args.real("an upper-triangular entry")
    elif args.is_keyword("isotropic"):
        vals = {}
        names = {"e": "E", "youngmodulus": "E", "nu": "nu", "poissonmodulus": "nu", "g": "G",
                 "shearmodulus": "G", "as": "alpha_s", "at": "alpha_t", "thickness": "thickness"}
        while True:
            kw_word = args.peek()
            kw = args.is_keyword("E", "Young modulus", "nu", "Poisson modulus", "G", "shear modulus", "as", "at",
                                 "thickness")
            if kw is None:
                break
            key = names[kw]
            if key in vals:
                raise kw_word.error(f"shell isotropic law: {key} already given")
            vals[key] = args.real(f"the value of {key}")
        try:
            D = isotropic_shell_law(**vals)
        except ValueError as e:
            raise w.error(str(e)) from None
    elif args.is_keyword("plane stress orthotropic"):
        raise w.error(reader.not_supported("the plane stress orthotropic shell law"))
    else:
        args.is_keyword("matr")
        D = np.array([args.real("a matrix entry") for _ in range(144)]).reshape(12, 12)
    s0 = None
    if args.is_keyword("prestress"):
        s0 = np.array([args.real("a prestress component") for _ in range(12)])
    return D, s0


def read_shell(reader, model, args, label, word, kind):
    """`<kind>: label, 4 × (node [, orientation, R]), <law> [, prestress, 12] [, output, flag]`
    (input manual "Shell elements"; MBDyn reads the per-node orientations and does not use
    them, neither does this reader)."""
    nodes = []
    for k in range(4):
        info = reader.structural_node(args, f"structural node {k + 1} of {kind} {label}")
        nodes.append(info.label)
        if args.is_keyword("orientation"):
            reader.read_orientation(args, "rel")
    D, s0 = read_shell_law(reader, args)
    output = "plates" in reader.default_output
    if args.is_keyword("output"):
        output = reader.read_output_flag(args, "plates")
    try:
        model.shell(label, nodes, D, kind, prestress=s0, output=output,
                    where=f"{word.source.name}:{word.where()[0]}")
    except ValueError as e:
        raise word.error(str(e)) from None


CARDS = cards_per_kind(KINDS, read_shell)
