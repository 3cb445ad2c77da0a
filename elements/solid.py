"""Solid elements (theory manual ch. 12; input manual "Solid elements"): MBDyn's family of
isoparametric total-Lagrangian continuum elements on displacement nodes, one family per
shape (hexahedron8, hexahedron20, hexahedron20r, hexahedron27, pentahedron15,
tetrahedron10 and the u/p-c variants hexahedron8upc, hexahedron20upc, hexahedron20upcr,
pentahedron15upc, tetrahedron10upc), each evaluated by one compiled call
(elements/solid_kernel.solid_equations) over all its elements.

- Nodes: static or dynamic displacement nodes (engine/core/nodes.py); structural nodes
  with rotations are accepted too (their rotation is not involved).
- Laws: one per integration point (engine/core/solid_laws.py), 6-D, or 7-D for the u/p-c
  shapes, whose pressure unknowns are hydraulic nodes (elements/abstract_nodes.py).
- Mass: consistent (eq. 12.47) or lumped (eqs. 12.50–12.52, the consistent diagonal scaled
  to the element mass), from the nodal densities interpolated by the shape functions;
  none for static elements (`static`, or `model: static`) or on static nodes.
- Body loads: gravity, ᵇf̂_k = ∫ρ h_k dV g (eq. 12.48), and with `rigid body kinematics`
  (engine/core/rbk.py) the moving frame's -Σ_l M_kl (ā₀ + (ω̄̇₀× + ω̄₀×ω̄₀×) x_l) (eq. 12.46;
  the Coriolis part is the nodes' 2 ω̄₀×β̂), on the elements with inertia only.
- det F > 0 is checked at every evaluation: a violation raises InvalidConfiguration
  naming the element, its integration point and the time.
- The laws' internal state (plastic strain, Maxwell branches) is per integration point in
  the State, committed after each converged step."""
from dataclasses import dataclass
from functools import cached_property
import numpy as np

from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.engine.core.drives import DriveArray
from mbdae.engine.core.solid_laws import law_table, hookean_linear_elastic_isotropic, linear_viscoelastic_generic, \
    hookean_matrix, SolidLaw, bilinear_isotropic_hardening, neo_hookean_viscoelastic
from mbdae.engine.core.state import InvalidConfiguration
from mbdae.elements.base import ElementFamily, cards_per_kind, element_nodes
from mbdae.elements.body import moving_frame
from mbdae.elements.solid_shapes import solid_shape, SOLID_SHAPES, ShapeFunctions
from mbdae.elements.solid_kernel import solid_equations, solid_stresses


@dataclass
class SolidSpec:
    label: int
    shape: str
    nodes: tuple                 # structural node labels, MBDyn's node order
    laws: tuple                  # one SolidLaw per integration point
    density: np.ndarray          # per node
    pressure_nodes: tuple = ()   # hydraulic node labels (u/p-c shapes)
    lumped_mass: bool = False
    static: bool = False
    output: bool = True
    where: str = None            # deck position (file:line) for error messages


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def solid(model, label, shape, nodes, law, density, pressure_nodes=None, lumped_mass=False, static=False,
          output=True, where=None):
    """A solid element (input manual "Solid elements"): `shape` one of SOLID_SHAPES, `nodes`
    its structural (displacement) node labels in MBDyn's node order, `law` one solid law or
    a list of one per integration point, `density` a number or one per node,
    `pressure_nodes` the hydraulic node labels of a u/p-c shape."""
    try:
        sh = solid_shape(shape)
    except KeyError:
        raise ValueError(f"solid {label}: unknown shape {shape!r} (one of {', '.join(SOLID_SHAPES)})") from None
    nodes = tuple(int(n) for n in nodes)
    if len(nodes) != sh.n_nodes:
        raise ValueError(f"{shape} {label}: {sh.n_nodes} nodes required, got {len(nodes)}")
    ng = len(sh.rule[1])
    laws = tuple(law) if isinstance(law, (list, tuple)) else (law,) * ng
    if len(laws) != ng:
        raise ValueError(f"{shape} {label}: {ng} laws (one per integration point) required, got {len(laws)}")
    for lw in laws:
        if not isinstance(lw, SolidLaw):
            raise ValueError(f"{shape} {label}: {lw!r} is not a solid constitutive law")
        if lw.upc != sh.upc:
            raise ValueError(f"{shape} {label}: a {'7' if sh.upc else '6'}-D law is required, "
                             f"{lw.name} is {'7' if lw.upc else '6'}-D")
    rho = np.broadcast_to(np.asarray(density, float), (sh.n_nodes,)).copy()
    p_nodes = tuple(int(n) for n in (pressure_nodes or ()))
    if len(p_nodes) != sh.n_pressure:
        raise ValueError(f"{shape} {label}: {sh.n_pressure} hydraulic nodes required, got {len(p_nodes)}")
    model.solids.append(SolidSpec(label, shape, nodes, laws, rho, p_nodes, bool(lumped_mass), bool(static),
                                  output, where))
    return label


MODEL_FIELDS = {"solids": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (solid,)


def build(model, nodes, built):
    """One family per shape present, in SOLID_SHAPES order."""
    if not model.solids:
        return []
    static_model = bool(getattr(model, "static_model", False))
    gravity = (getattr(model, "gravity_vector", None), getattr(model, "gravity_drive", None))
    frame = getattr(model, "rigid_body_kinematics", None)
    return [Solids([s for s in model.solids if s.shape == shape], nodes, shape, static_model, gravity, frame)
            for shape in SOLID_SHAPES if any(s.shape == shape for s in model.solids)]


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def distorted_element_nodes(shape, rng, center=(0.0, 0.0, 0.0), size=1.0, distortion=0.1):
    """Node positions of one `shape` element: its reference element (natural coordinates)
    scaled, randomly rotated and distorted (positive Jacobian) around `center`."""
    sh = solid_shape(shape)
    X = sh.shape.nodes * size * 0.5
    Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    Q *= np.sign(np.linalg.det(Q))
    return np.asarray(center) + (X + distortion * size * rng.uniform(-0.5, 0.5, X.shape)) @ Q.T


def _solid_sample(shape, law, dynamic=True, lumped=False, frame=False):
    def sample(model, rng):
        sh = solid_shape(shape)
        X = distorted_element_nodes(shape, rng)
        kind = "dynamic displacement" if dynamic else "static displacement"
        for k, x in enumerate(X, start=1):
            model.structural_node(k, kind, position=x, velocity=0.1 * rng.normal(size=3))
        pressure = []
        if sh.upc:
            for q in range(sh.n_pressure):
                model.hydraulic_node(100 + q, value=rng.normal())
                pressure.append(100 + q)
        model.gravity((0.0, 0.0, -9.81))
        model.solid(1, shape, range(1, sh.n_nodes + 1), law(sh.upc), rng.uniform(500.0, 1500.0, sh.n_nodes),
                    pressure_nodes=pressure, lumped_mass=lumped)
        if frame:
            model.rigid_body_kinematics = moving_frame(rng)
        return model
    sample.__name__ = f"{shape}{'_frame' if frame else ''}_sample"
    return sample


def _kelvin_voigt(upc):
    D = hookean_matrix(2.0e3, 0.3)
    return linear_viscoelastic_generic(D, 0.05 * D)


def _hookean(upc):
    return hookean_linear_elastic_isotropic(2.0e3, 0.3)


def _upc_hookean(upc):
    return hookean_linear_elastic_isotropic(2.0e3, 0.45, upc=True)


def _upc_plastic(upc):
    return bilinear_isotropic_hardening(2.0e3, 0.3, 2.0e2, 1.0, upc=True)


def _neo_hookean(upc):
    return neo_hookean_viscoelastic(2.0e3, 0.3, 0.05)


SAMPLES = {"solid": [_solid_sample("hexahedron8upc", _upc_hookean), _solid_sample("hexahedron20upc", _upc_plastic),
                     _solid_sample("hexahedron20upcr", _upc_hookean), _solid_sample("pentahedron15upc", _upc_hookean),
                     _solid_sample("tetrahedron10upc", _upc_plastic), _solid_sample("hexahedron8", _neo_hookean),
                     _solid_sample("hexahedron8", _kelvin_voigt), _solid_sample("hexahedron20", _hookean, lumped=True),
                     _solid_sample("hexahedron20r", _kelvin_voigt, dynamic=False),
                     _solid_sample("hexahedron27", _hookean), _solid_sample("pentahedron15", _kelvin_voigt),
                     _solid_sample("tetrahedron10", _kelvin_voigt, lumped=True),
                     _solid_sample("hexahedron20", _hookean, frame=True),
                     _solid_sample("pentahedron15", _hookean, lumped=True, frame=True)]}


class Solids(ElementFamily):
    """All solid elements of one shape."""
    name = "solid"

    def __init__(self, specs, nodes, shape, static_model=False, gravity=(None, None), frame=None):
        super().__init__(specs, nodes)
        self.frame = frame               # engine/core/rbk.RigidBodyKinematics, or None (inertial frame)
        sh = self.shape = solid_shape(shape)
        S = self.specs
        self.conn = element_nodes(nodes, S, sh.n_nodes, self.where)
        points, weights = sh.rule
        self.H = sh.shape.h(points)
        self.dH = sh.shape.dh(points)
        self.W = np.asarray(weights, float)
        self.ng = len(self.W)
        self.Hp = sh.pressure.h(points) if sh.upc else np.zeros((self.ng, 0))
        self.codes, self.params, _, self.n_history, history0, index, self.distinct_laws = \
            law_table([lw for s in S for lw in s.laws])
        self.law_idx = index.reshape(self.ne, self.ng)
        self.history0 = history0[self.law_idx]
        self.has_state = bool(self.n_history.max(initial=0) > 0)
        self._check_reference_volumes()
        self.Me, self.fg, self.mass = self._mass_tables()
        has_momentum = nodes.dynamic[self.conn].any(axis=1)
        self.inertial_elements = has_momentum & ~np.array([s.static for s in S], bool) & (not static_model)
        self.inertial = bool(self.inertial_elements.any())
        self.Me[~self.inertial_elements] = 0.0
        gvec, gdrive = gravity
        self.gravity_vector = np.zeros(3) if gvec is None else np.asarray(gvec, float)
        self._gravity_drive = DriveArray([gdrive]) if gvec is not None and gdrive is not None else None
        self.prow = np.zeros((self.ne, sh.n_pressure), np.int64)

    @cached_property
    def _no_frame(self):
        """ω̄₀, ω̄̇₀, ā₀ = 0: the model is written in the inertial frame."""
        return np.zeros(3), np.zeros(3), np.zeros(3)

    @staticmethod
    def where(spec):
        shown = f"{spec.where}: " if spec.where else ""
        return f"{shown}{spec.shape} {spec.label}: "

    def _reference_jacobians(self, points):
        """det ⁰J (ne, ng) at the given natural points."""
        dH = self.shape.shape.dh(points)
        X = self.nodes.x0[self.conn]                              # (ne, N, 3)
        J = np.einsum("gki,ekj->egij", dH, X)
        return np.linalg.det(J)

    def _check_reference_volumes(self):
        """det ⁰J > 0 at every integration point, once at load (§12.0.1)."""
        det = self._reference_jacobians(self.shape.rule[0])
        bad = np.flatnonzero((det <= 0).any(axis=1))
        if len(bad):
            s = self.specs[bad[0]]
            raise ValueError(f"{self.where(s)}degenerate or inverted element (det J = {det[bad[0]].min():.3g} "
                             f"at an integration point; nodes {', '.join(map(str, s.nodes))})")

    def _mass_tables(self):
        """Mass matrices, ∫ρ h_k dV and element masses (mass_tables) of these elements."""
        return mass_tables(self.shape, self.nodes.x0[self.conn], np.array([s.density for s in self.specs], float),
                           np.array([s.lumped_mass for s in self.specs], bool))

    # ------------------------------------------------------------------ layout
    def bind(self, system):
        """The rows of the hydraulic (pressure) nodes of the u/p-c shapes."""
        if not self.shape.upc:
            return
        owner = system.family_with("rows_of")
        if owner is None:
            raise ValueError(f"{self.where(self.specs[0])}hydraulic nodes are required (the model has none)")
        for e, s in enumerate(self.specs):
            try:
                self.prow[e] = owner.rows_of(s.pressure_nodes, node_type="hydraulic")
            except KeyError as err:
                raise ValueError(f"{self.where(s)}{err.args[0]}") from None

    def build_pattern(self):
        n, sh = self.nodes, self.shape
        N, Np = sh.n_nodes, sh.n_pressure
        ix = n.ix[self.conn].reshape(self.ne, 3 * N)
        p = self.pattern = Pattern()
        self._blocks = {}
        self._blocks["r_u"] = p.add_res(ix)
        if Np:
            self._blocks["r_p"] = p.add_res(self.prow)
        if self.inertial:
            ib = n.ib[self.conn].reshape(self.ne, 3 * N)
            self._blocks["r_b"] = p.add_res(np.where(self.inertial_elements[:, None], ib, -1))
        self._jblocks = {}
        self._jblocks["j_uu"] = p.add_jac(ix, ix)
        if Np:
            self._jblocks["j_up"] = p.add_jac(ix, self.prow)
            self._jblocks["j_pu"] = p.add_jac(self.prow, ix)
            self._jblocks["j_pp"] = p.add_jac(self.prow, self.prow)
        if self.inertial:
            ib3 = np.where(self.inertial_elements[:, None, None], n.ib[self.conn], -1).transpose(0, 2, 1)
            ix3 = n.ix[self.conn].transpose(0, 2, 1)
            self._jblocks["j_bu"] = p.add_jac(ib3, ix3)
        return p

    @cached_property
    def _scratch(self):
        """Zero-size or unused blocks the kernel takes as arrays."""
        N, Np = self.shape.n_nodes, self.shape.n_pressure
        return {"r_p": np.zeros((self.ne, Np)), "r_b": np.zeros((self.ne, 3 * N)),
                "j_up": np.zeros((self.ne, 3 * N, Np)), "j_pu": np.zeros((self.ne, Np, 3 * N)),
                "j_pp": np.zeros((self.ne, Np, Np)), "j_bu": np.zeros((self.ne, 3, N, N)),
                "hnew": np.zeros_like(self.history0), "bad": np.zeros(2, np.int64)}

    # ------------------------------------------------------------------ state
    def initial_state(self):
        return {"history": self.history0.copy(), "t": np.zeros(1)}

    def _history(self, ctx):
        if not self.has_state:
            return self.history0, 0.0
        arrays = self.state_arrays(ctx)
        return arrays["history"], float(ctx.t - arrays["t"][0])

    def commit(self, ctx, arrays):
        """The laws' internal state at the converged state of `ctx`."""
        hnew = np.empty_like(self.history0)
        self._run(ctx, None, hnew, want_jac=False, res_views=None)
        return {"history": hnew, "t": np.array([ctx.t])}

    # ------------------------------------------------------------------ evaluation
    def g(self, t):
        """The gravity vector at time t."""
        if self._gravity_drive is None:
            return self.gravity_vector
        return self.gravity_vector * self._gravity_drive.values(t)[0]

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (solid_equations) over all elements of this shape."""
        self._run(ctx, jac_views, self._scratch["hnew"], jac_views is not None, res_views)

    def _run(self, ctx, jac_views, hnew, want_jac, res_views):
        sc = self._scratch
        res = dict(sc)
        if res_views is None:
            res["r_u"] = np.zeros((self.ne, 3 * self.shape.n_nodes))
        else:
            for key, k in self._blocks.items():
                res[key] = res_views[k]
        jac = dict(sc)
        if want_jac:
            for key, k in self._jblocks.items():
                jac[key] = jac_views[k]
        else:
            jac["j_uu"] = kernel_jacobian_views(self, None)[0][self._jblocks["j_uu"]]
        hold, dt = self._history(ctx)
        kin = ctx.kin
        bad = sc["bad"]
        w0, wp0, a0 = self._no_frame if self.frame is None else self.frame.inertial_terms(ctx.t)
        solid_equations(self.conn, self.nodes.x0, kin.x, kin.v, self.H, self.dH, self.W, self.Hp, self.prow, ctx.y,
                        self.law_idx, self.codes, self.params, hold, hnew, dt, self.Me, self.inertial, self.fg,
                        self.g(ctx.t), self.frame is not None, w0, wp0, a0, float(kin.dcoef), want_jac, bad,
                        res["r_u"], res["r_p"], res["r_b"], jac["j_uu"], jac["j_up"], jac["j_pu"], jac["j_pp"],
                        jac["j_bu"])
        if bad[0] >= 0:
            s = self.specs[bad[0]]
            raise InvalidConfiguration(f"{self.where(s)}det F <= 0 at integration point {bad[1] + 1} at t = {ctx.t:.6g} "
                                       f"(the element is inverted or excessively distorted)")

    # ------------------------------------------------------------------ results
    def stresses(self, ctx):
        """(Cauchy stress, Green–Lagrange strain) at the integration points, (ne, ng, 6)
        each, MBDyn's Voigt order (xx, yy, zz, xy, yz, zx)."""
        cauchy = np.empty((self.ne, self.ng, 6))
        green = np.empty((self.ne, self.ng, 6))
        hold, dt = self._history(ctx)
        solid_stresses(self.conn, self.nodes.x0, ctx.kin.x, self.H, self.dH, self.W, self.Hp, self.prow, ctx.y,
                       self.law_idx, self.codes, self.params, hold, dt, cauchy, green)
        return cauchy, green

    @cached_property
    def extrapolation(self):
        """(N, ng): integration-point values to nodal values, by a least-squares fit of the
        corner nodes' linear (trilinear / wedge / tetrahedral) interpolation, evaluated at
        every node (the fit MBDyn's output uses, input manual "Output of stress")."""
        sh = self.shape
        corners = sh.shape.nodes[:sh.corners]
        space = {8: "hex8", 6: "wedge6", 4: "tet4"}[sh.corners]
        lin = _linear_shape(corners, space)
        A = lin.h(sh.rule[0])                              # (ng, corners)
        return lin.h(sh.shape.nodes) @ np.linalg.pinv(A)

    def nodal_cauchy_stress(self, ctx):
        """(structural nodes, 6): Cauchy stress extrapolated to the nodes and averaged over
        the elements of this family that share a node (nodes of no element: zero)."""
        cauchy, _ = self.stresses(ctx)
        nodal = np.einsum("kg,egc->ekc", self.extrapolation, cauchy)
        total = np.zeros((self.nodes.n, 6))
        count = np.zeros(self.nodes.n)
        np.add.at(total, self.conn.ravel(), nodal.reshape(-1, 6))
        np.add.at(count, self.conn.ravel(), 1.0)
        return total / np.maximum(count, 1.0)[:, None]

    def stress_stiffness(self, stress):
        """(ne, N, N): the geometric (initial-stress) stiffness of the elements at their
        reference for the stresses `stress` (ne, ng, 6) at the integration points (Voigt, as
        `stresses`): block (a, b) is G_ab I₃ with G_ab = Σ_g w_g det J ∇N_a·S ∇N_b (the
        second derivative of ∫ S : E, E the Green–Lagrange strain, for fixed S).  Used for
        the stress stiffening matrices of reduced bodies (engine/reduce.py)."""
        X = self.nodes.x0[self.conn]                                  # (ne, N, 3)
        J = np.einsum("gki,ekj->egij", self.dH, X)                    # dX/dξ (ne, ng, 3, 3)
        grad = np.einsum("egji,gki->egkj", np.linalg.inv(J), self.dH)  # ∇N (ne, ng, N, 3)
        S = np.empty(stress.shape[:2] + (3, 3))
        for (i, j), k in zip(((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (2, 0)), range(6)):
            S[..., i, j] = S[..., j, i] = stress[..., k]
        w = self.W[None, :] * np.linalg.det(J)                        # (ne, ng)
        return np.einsum("eg,egai,egij,egbj->eab", w, grad, S, grad)

    def cells(self):
        """(shape name, (ne, N) structural node indices in MBDyn's order)."""
        return self.shape.name, self.conn

    def continuum_nodes(self):
        return np.unique(self.conn)

    def node_momenta(self, kin):
        """(β, γ) per structural node: Σ_e M u̇ (eq. 12.56) and no moment of momentum (the
        consistent initial momenta)."""
        beta = np.zeros((self.nodes.n, 3))
        np.add.at(beta, self.conn.ravel(), np.einsum("eab,ebi->eai", self.Me, kin.v[self.conn]).reshape(-1, 3))
        return beta, np.zeros((self.nodes.n, 3))

    def kinetic_energy(self, ctx):
        """½ Σ u̇ᵀ M u̇ (the private datum "E")."""
        v = ctx.kin.v[self.conn]
        return 0.5 * np.einsum("eai,eab,ebi->e", v, self.Me, v)

    def private_data(self, ctx, name):
        if name == "E":
            return self.kinetic_energy(ctx)
        raise ValueError(f'solid private datum "{name}" does not exist ("E")')

    def private_data_names(self, i):
        return ("E",)


def mass_tables(sh, X, rho, lumped):
    """Consistent mass (ne, N, N) (eq. 12.47), or the lumped one (eqs. 12.50–12.52) where
    `lumped`, ∫ρ h_k dV (ne, N) (gravity, eq. 12.48) and the element masses (eq. 12.52) of
    elements of shape `sh` with node positions X (ne, N, 3) and nodal densities rho (ne, N)."""
    points, weights = sh.mass_rule
    h = sh.shape.h(points)                                           # (gm, N)
    dV = np.linalg.det(np.einsum("gki,ekj->egij", sh.shape.dh(points), X)) * weights    # (ne, gm)
    w = (rho @ h.T) * dV
    M = np.einsum("eg,ga,gb->eab", w, h, h)
    fg = np.einsum("eg,ga->ea", w, h)
    mass = w.sum(axis=1)
    lumped = np.flatnonzero(lumped)
    if len(lumped):
        diag = np.einsum("eaa->ea", M[lumped])
        diag *= (mass[lumped] / diag.sum(axis=1))[:, None]
        ML = np.zeros_like(M[lumped])
        k = np.arange(M.shape[1])
        ML[:, k, k] = diag
        M[lumped] = ML
    return M, fg, mass


def solid_mass_properties(specs, positions):
    """(m, ∫x dm, ∫x xᵀ dm) of solid elements (SolidSpec) whose nodes are at positions
    ({node label: x}), from their mass matrices: Σ M_ab x_b and Σ M_ab x_a x_bᵀ, exact for
    the consistent mass (x is interpolated by the same shape functions)."""
    m, s1, s2 = 0.0, np.zeros(3), np.zeros((3, 3))
    for shape in SOLID_SHAPES:
        group = [s for s in specs if s.shape == shape]
        if not group:
            continue
        X = np.array([[positions[n] for n in s.nodes] for s in group], float)
        M, _, mass = mass_tables(solid_shape(shape), X, np.array([s.density for s in group], float),
                                 np.array([s.lumped_mass for s in group], bool))
        m += float(mass.sum())
        s1 += np.einsum("eab,ebi->i", M, X)
        s2 += np.einsum("eab,eai,ebj->ij", M, X, X)
    return m, s1, s2


def _linear_shape(corners, space):
    return ShapeFunctions(tuple(np.asarray(corners, float).T), space)


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<shape>: <label>`):
# `reader` is the deck reader, `args` the cursor over the card's remaining arguments, `word`
# the label's word.  The reader and the Model are used duck-typed (no engine.io import here).

def read_solid(reader, model, args, label, word, shape):
    """`<shape>: <label>, [static,] [lumped mass,] <N structural nodes>, [<Np hydraulic
    nodes>,] <N nodal densities>, <law>, {<law> | same} ...` with one 6-D (7-D for u/p-c
    shapes) law per integration point (input manual "Solid elements")."""
    sh = solid_shape(shape)
    static = args.is_keyword("static")
    lumped = args.is_keyword("lumped mass")
    nodes = []
    for k in range(sh.n_nodes):
        info = reader.structural_node(args, f"structural node {k + 1} of {shape} {label}")
        nodes.append(info.label)        # repeated nodes (collapsed elements) are allowed, as in MBDyn
    pressure = [args.label(f"hydraulic node {q + 1} of {shape} {label}") for q in range(sh.n_pressure)]
    density = [args.real(f"the density at node {k + 1}") for k in range(sh.n_nodes)]
    laws = reader.read_solid_laws(args, 7 if sh.upc else 6, len(sh.rule[1]))
    if args.is_keyword("output"):
        reader.read_output_flag(args, "solids")
    try:
        model.solid(label, shape, nodes, laws, density, pressure, lumped, static, where=word.where())
    except ValueError as e:
        raise word.error(str(e)) from None


CARDS = cards_per_kind(SOLID_SHAPES, read_solid)
