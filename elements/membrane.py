"""Membranes: MBDyn's 4-node EAS membrane `membrane4eas` (input manual "Membrane4"; technical
manual, shell chapter, membrane part), one family evaluated by one compiled call
(elements/membrane_kernel.membrane_equations) over all its elements.

- Nodes: static or dynamic displacement nodes, or 6-dof structural nodes (the membrane loads
  their positions only), in MBDyn's order: natural coordinates (1, 1), (-1, 1), (-1, -1),
  (1, -1) (counter-clockwise about the element normal).
- Kinematics: total Lagrangian, geometrically nonlinear; the strain is the membrane
  Green–Lagrange strain in the local Cartesian frame of each Gauss point (2×2 rule),
  ε = (E11, E22, 2 E12) (engineering shear, as MBDyn computes it), plus the enhanced strain
  ε̂ = (α0/α) M0⁻ᵀ H(ξ, η) β of 7 EAS parameters.
- Law: n = D ε + n0 (n11, n22, n12 force fluxes; D 3×3 as the manual's eq., n0 the
  prestress).  `isotropic` gives MBDyn's matrix, D33 = 2 G h: with the engineering shear
  strain this is twice the continuum's shear stiffness G h; it is kept so that decks give
  MBDyn's numbers (a user wanting n12 = G h γ writes `matr` or `sym` with D33 = G h).
- EAS parameters: MBDyn makes them element unknowns (iGetNumDof = 7, algebraic), solved with
  the nodes rather than condensed per element.  Here they are the family's own algebraic
  unknowns (n_internal, dof_info, set_offset, as the joints' multipliers) for the same
  reason and one more: with them among the unknowns the residual is an explicit function of
  the state, so the generated checks difference the full Jacobian (the node–EAS coupling
  included) through the solver's update rule; a static condensation would hide that
  coupling inside the element and leave it unchecked.
- Variants (`mbdyn`, per element): MBDyn 1.7.3's element (default; the deck card), which
  misses the patch test on distorted meshes, or a consistent one that passes it
  (elements/membrane_kernel.py docstring).
- Geometry checked once at build: zero area, a corner normal against the centre's (crossed
  or non-convex: badly ordered nodes), warp |d·n0| > 0.2 √A are refused with the element's
  deck position and nodes (MBDyn accepts them silently).
- No inertia (as in MBDyn): for dynamics put point masses on the nodes
  (`body: label, <displacement node>, m;`, elements/body.py).
- Output (`.pla`, MBDyn's Output): label, then n11, n22, n12 at the four Gauss points in
  MBDyn's order (-,-), (+,-), (+,+), (-,+)."""
from dataclasses import dataclass
from functools import cached_property
import numpy as np

from mbdae.engine.core.assembly import Pattern, ALGEBRAIC, DIM, kernel_jacobian_views
from mbdae.engine.core.constitutive import isotropic_constants
from mbdae.elements.base import ElementFamily, element_nodes
from mbdae.elements.membrane_kernel import (membrane_reference, membrane_equations, N_EAS, QUAD_WEIGHTS,
                                            ZERO_AREA, BAD_ORDER, WARPED, WARP_LIMIT)

IA_MODES = ("ia_position", "ia_velocity")


@dataclass
class MembraneSpec:
    label: int
    nodes: tuple                 # 4 structural node labels, MBDyn's order
    D: np.ndarray                # (3, 3): n = D ε + prestress
    prestress: np.ndarray        # (3,): n11, n22, n12
    mbdyn: bool = True           # MBDyn 1.7.3's element, else the consistent variant (membrane_kernel)
    output: bool = True
    where: str = None            # deck position (file:line) for error messages


def isotropic_membrane_law(E=None, nu=None, G=None, thickness=None):
    """MBDyn's `isotropic` membrane matrix (membrane.cc ReadMembraneConstLaw): two of E, ν,
    G (all three must satisfy G = E / (2 (1 + ν))), and the thickness h:
    D = [[C, C ν, 0], [C ν, C, 0], [0, 0, 2 G h]], C = E h / (1 - ν²)."""
    E, nu, G = isotropic_constants(E, nu, G, "isotropic membrane law")
    if thickness is None or not thickness > 0:
        raise ValueError(f"isotropic membrane law: a positive thickness is required (got {thickness})")
    C = E * thickness / (1.0 - nu * nu)
    return np.array([[C, C * nu, 0.0], [C * nu, C, 0.0], [0.0, 0.0, 2.0 * G * thickness]])


# ---------------------------------------------------------------------- Model builder methods
def membrane(model, label, nodes, D, prestress=None, mbdyn=True, output=True, where=None):
    """A 4-node EAS membrane (`membrane4eas`): `nodes` 4 structural (or displacement) node
    labels in MBDyn's order, `D` the 3×3 matrix of n = D ε + prestress (ε11, ε22 and the
    engineering shear ε12), `prestress` (n11, n22, n12) force per unit length.
    `mbdyn`: MBDyn 1.7.3's element (default, as the deck card), else the consistent variant,
    which passes the patch test on distorted meshes (elements/membrane_kernel.py)."""
    nodes = tuple(int(n) for n in nodes)
    if len(nodes) != 4:
        raise ValueError(f"membrane4eas {label}: 4 nodes required, got {len(nodes)}")
    D = np.asarray(D, float)
    if D.shape != (3, 3) or not np.isfinite(D).all():
        raise ValueError(f"membrane4eas {label}: D must be a finite 3x3 matrix")
    n0 = np.zeros(3) if prestress is None else np.asarray(prestress, float).reshape(3)
    model.membranes.append(MembraneSpec(int(label), nodes, D.copy(), n0, bool(mbdyn), bool(output), where))
    return label


MODEL_FIELDS = {"membranes": list}
MODEL_METHODS = (membrane,)


def build(model, nodes, built):
    return [Membranes(model.membranes, nodes)] if model.membranes else []


class Membranes(ElementFamily):
    """All membrane4eas elements."""
    name = "membrane"
    output_file = "pla"
    in_initial_assembly = True     # out of the assembly, but its EAS rows hold β (kernel)

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        self.conn = element_nodes(nodes, S, 4, self.where)
        self.D = np.array([s.D for s in S], float).reshape(self.ne, 3, 3)
        self.n0 = np.array([s.prestress for s in S], float).reshape(self.ne, 3)
        self.W = QUAD_WEIGHTS.copy()
        self.L = np.zeros((self.ne, 4, 4, 2))
        self.alpha = np.zeros((self.ne, 4))
        self.P = np.zeros((self.ne, 4, 3, N_EAS))
        self.eps0 = np.zeros((self.ne, 4, 3))
        status = np.zeros((self.ne, 2), np.int64)
        mbdyn = np.array([s.mbdyn for s in S], np.bool_)
        membrane_reference(self.conn, nodes.x0, mbdyn, self.L, self.alpha, self.P, self.eps0, status)
        self._check_geometry(status)
        self.n_internal = N_EAS * self.ne
        self.brow = np.zeros((self.ne, N_EAS), np.int64)

    @staticmethod
    def where(spec):
        shown = f"{spec.where}: " if spec.where else ""
        return f"{shown}membrane4eas {spec.label}: "

    def _check_geometry(self, status):
        bad = np.flatnonzero(status[:, 0])
        if not len(bad):
            return
        e = bad[0]
        s = self.specs[e]
        nodes = ", ".join(map(str, s.nodes))
        code = status[e, 0]
        if code == ZERO_AREA:
            text = f"zero-area quadrilateral (nodes {nodes})"
        elif code == BAD_ORDER:
            text = (f"badly ordered or non-convex quadrilateral: the normal at node {s.nodes[status[e, 1]]} "
                    f"turns against the element's; MBDyn's order goes round the element (nodes {nodes})")
        else:
            text = (f"warped quadrilateral: its nodes lie off the mean plane by more than {WARP_LIMIT} √area "
                    f"(nodes {nodes})")
        raise ValueError(f"{self.where(s)}{text}")

    # ------------------------------------------------------------------ layout
    def set_offset(self, start):
        self.offset = start
        self.brow = start + np.arange(self.n_internal, dtype=np.int64).reshape(self.ne, N_EAS)

    def dof_info(self):
        kind = np.full(self.n_internal, ALGEBRAIC)
        dim = np.full(self.n_internal, DIM["other"])
        labels = np.repeat(self.labels, N_EAS)
        what = [f"EAS parameter {j + 1}" for _ in range(self.ne) for j in range(N_EAS)]
        return kind, dim, labels, what

    def build_pattern(self):
        self.ix = self.nodes.ix[self.conn].reshape(self.ne, 12)
        p = self.pattern = Pattern()
        p.add_res(self.ix)
        p.add_res(self.brow)
        p.add_jac(self.ix, self.ix)
        p.add_jac(self.ix, self.brow)
        p.add_jac(self.brow, self.ix)
        p.add_jac(self.brow, self.brow)
        return p

    # ------------------------------------------------------------------ evaluation
    @cached_property
    def _nout(self):
        return np.zeros((self.ne, 4, 3))

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (membrane_equations) over all membranes."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        membrane_equations(self.conn, ctx.kin.x, self.L, self.alpha, self.W, self.P, self.eps0, self.D, self.n0,
                           ctx.y, self.brow, float(ctx.kin.dcoef), ctx.mode in IA_MODES, want_jac,
                           res_views[0], res_views[1], jac[0], jac[1], jac[2], jac[3], self._nout)

    # ------------------------------------------------------------------ results
    def gauss_resultants(self, ctx):
        """(ne, 4, 3): n11, n22, n12 (local frame of each point) at the Gauss points, MBDyn's order."""
        res = [np.zeros(rows.shape) for rows in self.pattern.res]
        nout = np.zeros((self.ne, 4, 3))
        jac, _ = kernel_jacobian_views(self, None)
        membrane_equations(self.conn, ctx.kin.x, self.L, self.alpha, self.W, self.P, self.eps0, self.D, self.n0,
                           ctx.y, self.brow, float(ctx.kin.dcoef), False, False,
                           res[0], res[1], jac[0], jac[1], jac[2], jac[3], nout)
        return nout

    def resultants(self, ctx):
        """(ne, 3): the element averages of n11, n22, n12 (weighted by the Gauss points' areas)."""
        nout = self.gauss_resultants(ctx)
        w = self.alpha * self.W
        return np.einsum("ei,eir->er", w, nout) / w.sum(axis=1)[:, None]

    def cell_data(self, ctx):
        """Per-cell data of the VTU writer (engine/io/vtu.py): the element-average resultants."""
        return {"membrane_resultant": self.resultants(ctx)}

    def output_groups(self, ctx):
        """.pla rows: label, then n11, n22, n12 at each Gauss point (MBDyn's Membrane4EAS::Output)."""
        out = np.array([s.output for s in self.specs], bool)
        vals = self.gauss_resultants(ctx).reshape(self.ne, 12)
        return [(self.labels[out], vals[out])]

    def cells(self):
        """("quad", (ne, 4) structural node indices): MBDyn's order goes round the element as
        VTK's quad does."""
        return "quad", self.conn

    def areas(self):
        """(ne,) reference areas Σ α_i w_i."""
        return (self.alpha * self.W).sum(axis=1)


# ---------------------------------------------------------------------- samples
def _square_positions(rng, distortion=0.0, warp=0.0, size=1.0):
    """Node positions of one element in MBDyn's order, randomly rotated and shifted:
    a square (side `size`) with in-plane distortion and out-of-plane warp of its corners."""
    X = 0.5 * size * np.array([[1.0, 1.0, 0.0], [-1.0, 1.0, 0.0], [-1.0, -1.0, 0.0], [1.0, -1.0, 0.0]])
    X[:, :2] += distortion * size * rng.uniform(-0.5, 0.5, (4, 2))
    X[:, 2] += warp * size * np.array([1.0, -1.0, 1.0, -1.0])
    Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    Q *= np.sign(np.linalg.det(Q))
    return X @ Q.T + rng.normal(size=3)


def _sample(kind, distortion, warp, prestress=None, law="isotropic", mbdyn=True):
    def sample(model, rng):
        X = _square_positions(rng, distortion, warp)
        kinds = kind if isinstance(kind, tuple) else (kind,) * 4
        for k, (x, nk) in enumerate(zip(X, kinds), start=1):
            model.structural_node(k, nk, position=x, velocity=0.1 * rng.normal(size=3))
        if law == "isotropic":
            D = isotropic_membrane_law(E=2.0e3, nu=0.3, thickness=0.1)
        else:                                    # a general (non-symmetric) matrix
            D = 1.0e2 * (np.eye(3) + 0.2 * rng.uniform(-1.0, 1.0, (3, 3)))
        model.membrane(1, (1, 2, 3, 4), D, prestress, mbdyn=mbdyn)
        return model
    sample.__name__ = f"membrane_{'_'.join(kind) if isinstance(kind, tuple) else kind}_sample".replace(" ", "_")
    return sample


SAMPLES = {"membrane": [_sample("static displacement", 0.0, 0.0),
                        _sample("dynamic displacement", 0.3, 0.0, prestress=(5.0, 3.0, 1.0)),
                        _sample("static displacement", 0.3, 0.05, prestress=(2.0, -1.0, 0.5), law="general",
                                mbdyn=False),
                        _sample(("static", "dynamic", "static displacement", "dynamic displacement"), 0.2, 0.03,
                                prestress=(1.0, 2.0, 0.0))]}


# ---------------------------------------------------------------- MBDyn deck card
def read_membrane_law(reader, args, label):
    """`{ [matr,] <3x3> | sym, <upper 3x3> | diag, <3> | isotropic, <data> } [, prestress, <3>]`
    (input manual "Membrane4"): (D, prestress)."""
    D = np.zeros((3, 3))
    if args.is_keyword("diag"):
        for r in range(3):
            D[r, r] = args.real(f"D{r + 1}{r + 1} of membrane4eas {label}")
    elif args.is_keyword("sym"):
        for r in range(3):
            for c in range(r, 3):
                D[r, c] = D[c, r] = args.real(f"D{r + 1}{c + 1} of membrane4eas {label}")
    elif args.is_keyword("isotropic"):
        D = read_isotropic(args, label)
    else:
        args.is_keyword("matr")
        for r in range(3):
            for c in range(3):
                D[r, c] = args.real(f"D{r + 1}{c + 1} of membrane4eas {label}")
    n0 = np.zeros(3)
    if args.is_keyword("prestress"):
        n0 = np.array([args.real(f"prestress {k} of membrane4eas {label}") for k in ("T11", "T22", "T12")])
    return D, n0


ISOTROPIC_WORDS = (("e", "youngmodulus"), ("nu", "poissonmodulus"), ("g", "shearmodulus"), ("thickness",))


def read_isotropic(args, label):
    """`{E | Young modulus}, v | {nu | Poisson modulus}, v | {G | shear modulus}, v |
    thickness, v` in any order, each at most once."""
    values = {}
    first = args.peek()
    while args.more():
        w = args.peek()
        for names, key in zip(ISOTROPIC_WORDS, ("E", "nu", "G", "thickness")):
            if w.keyword in names:
                break
        else:
            break
        args.take("a keyword")
        if key in values:
            raise w.error(f"membrane4eas {label}: isotropic {key} given twice")
        values[key] = args.real(f"the isotropic {key} of membrane4eas {label}")
    try:
        return isotropic_membrane_law(**values)
    except ValueError as e:
        raise first.error(f"membrane4eas {label}: {e}") from None


def read_membrane4eas(reader, model, args, label, word):
    """`membrane4eas: <label>, <4 nodes>, <law> [, prestress, T11, T22, T12] [, output, ...]`."""
    nodes = []
    for k in range(4):
        w = args.peek()
        node = args.label(f"node {k + 1} of membrane4eas {label}")
        info = reader.nodes.get(node)
        if info is None or info.kind == "dummy":
            why = "not defined" if info is None else "a dummy node"
            raise w.error(f"membrane4eas {label}: node {k + 1}, Structural({node}) is {why} (a membrane needs "
                          f"structural or displacement nodes)")
        nodes.append(node)
    D, n0 = read_membrane_law(reader, args, label)
    output = "plates" in reader.default_output
    if args.is_keyword("output"):
        output = reader.read_output_flag(args, "plates")
    try:
        model.membrane(label, nodes, D, n0, output=output, where=f"{word.source.name}:{word.where()[0]}")
    except ValueError as e:
        raise word.error(str(e)) from None


CARDS = {"membrane4eas": read_membrane4eas}
