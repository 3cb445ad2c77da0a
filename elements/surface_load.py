"""Surface loads (theory manual §12.0.7; input manual "Surface Loads"): pressures and
tractions on the faces of solid elements, on isoparametric surface elements q4, q8, q8r,
q9 and t6 (elements/solid_shapes.surface_shape), one family per (kind, shape) present,
each evaluated by one compiled call (elements/surface_load_kernel.surface_equations).

- pressure<shape>: a follower load along the deformed normal n = x,r1 × x,r2,
  ᴬf = -p n/|n| (eqs. 12.70–12.74), p interpolated from nodal pressures given by drives or
  read from abstract nodes; its load stiffness (and the Jacobian on the abstract nodes)
  is in the Jacobian.  A positive pressure pushes against the normal: number the nodes so
  that n points out of the loaded body (`solid_faces` gives the faces of the solid shapes
  so numbered).
- traction<shape>: ᴬf = ᴬR ᴬ⁰Rᵀ R_f ᴬf̄ on the deformed area (eqs. 12.75–12.83), ᴬf̄
  interpolated from nodal template drives, R_f one orientation per integration point
  (identity by default): the traction turns and stretches with the surface.
  `absolute` tractions ᴬf = R_f ᴬf̄ act on the reference area and do not change when the
  surface moves or deforms (input manual: "do not change their direction and magnitude"):
  constant nodal loads, no stiffness.
- Nodes: any structural nodes (displacement nodes of the solid elements, or nodes with
  rotations, whose rotation is not involved); a node may repeat (a collapsed quadrangle).
- Initial assembly: only with `use: surface loads, in assembly` (control data), in the
  position subproblem (see SurfaceLoads.evaluate)."""
from dataclasses import dataclass
from functools import lru_cache
import itertools
import numpy as np

from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core.drives import DriveArray
from mbdae.engine.core.tpldrive import VectorDrive, VectorDriveArray
from mbdae.elements.base import ElementFamily, scalar_drive, vector_drive, element_nodes
from mbdae.elements.solid_shapes import surface_shape, SURFACE_SHAPES, solid_shape, SOLID_SHAPES, ShapeFunctions
from mbdae.elements.surface_load_kernel import surface_equations, PRESSURE, RELATIVE_TRACTION, ABSOLUTE_TRACTION

KINDS = ("pressure", "traction")


@dataclass
class SurfaceLoadSpec:
    label: int
    kind: str                    # "pressure" | "traction"
    shape: str                   # one of SURFACE_SHAPES
    nodes: tuple                 # structural node labels, MBDyn's node order
    pressure: tuple = ()         # pressure: one drive per node (from drives)
    pressure_nodes: tuple = ()   # pressure: one abstract node label per node (from nodes)
    traction: tuple = ()         # traction: one VectorDrive per node
    orientations: np.ndarray = None   # traction: R_f per integration point (ng, 3, 3)
    absolute: bool = False
    where: str = None            # deck position (file:line) for error messages


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def _surface(label, kind, shape, nodes):
    """(SurfaceShape, node labels) after the checks common to both kinds."""
    try:
        sh = surface_shape(shape)
    except KeyError:
        raise ValueError(f"{kind} load {label}: unknown shape {shape!r} (one of {', '.join(SURFACE_SHAPES)})") \
            from None
    nodes = tuple(int(n) for n in nodes)
    if len(nodes) != sh.n_nodes:
        raise ValueError(f"{kind}{shape} {label}: {sh.n_nodes} nodes required, got {len(nodes)}")
    return sh, nodes


def _check_label(model, label, kind, shape):
    if any(s.label == label for s in model.surface_loads):
        raise ValueError(f"{kind}{shape} {label}: surface load {label} is already defined")


def pressure_load(model, label, shape, nodes, pressure=None, pressure_nodes=None, where=None):
    """A pressure load (input manual "Pressure Loads", theory eqs. 12.70–12.74): `shape` one
    of q4, q8, q8r, q9, t6, `nodes` its structural node labels in MBDyn's order; the nodal
    pressures either `pressure` (a number, a drive, or one per node) or `pressure_nodes`
    (one abstract node label per node)."""
    sh, nodes = _surface(label, "pressure", shape, nodes)
    _check_label(model, label, "pressure", shape)
    if (pressure is None) == (pressure_nodes is None):
        raise ValueError(f"pressure{shape} {label}: give either pressure (drives) or pressure_nodes (abstract nodes)")
    drives, p_nodes = (), ()
    if pressure_nodes is not None:
        p_nodes = tuple(int(n) for n in pressure_nodes)
        if len(p_nodes) != sh.n_nodes:
            raise ValueError(f"pressure{shape} {label}: {sh.n_nodes} abstract nodes required, got {len(p_nodes)}")
    else:
        values = list(pressure) if isinstance(pressure, (list, tuple, np.ndarray)) else [pressure] * sh.n_nodes
        if len(values) != sh.n_nodes:
            raise ValueError(f"pressure{shape} {label}: {sh.n_nodes} nodal pressures required, got {len(values)}")
        drives = tuple(scalar_drive(v) for v in values)
    model.surface_loads.append(SurfaceLoadSpec(label, "pressure", shape, nodes, pressure=drives,
                                               pressure_nodes=p_nodes, where=where))
    return label


def traction_load(model, label, shape, nodes, traction, orientations=None, absolute=False, where=None):
    """A surface traction (input manual "Surface Traction's", theory eqs. 12.75–12.83):
    `traction` one Vec3 or VectorDrive per node, or one for all; `orientations` R_f, one
    per integration point (or one for all; identity by default); `absolute`: fixed in the
    global frame, on the reference area."""
    sh, nodes = _surface(label, "traction", shape, nodes)
    _check_label(model, label, "traction", shape)
    one = isinstance(traction, VectorDrive) or (np.ndim(traction) == 1 and all(np.isscalar(v) for v in traction))
    values = [traction] * sh.n_nodes if one else list(traction)
    if len(values) != sh.n_nodes:
        raise ValueError(f"traction{shape} {label}: {sh.n_nodes} nodal tractions required, got {len(values)}")
    drives = tuple(vector_drive(v) for v in values)
    ng = len(sh.rule[1])
    if orientations is None:
        R = np.broadcast_to(np.eye(3), (ng, 3, 3)).copy()
    else:
        R = np.asarray(orientations, float)
        if R.shape == (3, 3):
            R = np.broadcast_to(R, (ng, 3, 3)).copy()
        if R.shape != (ng, 3, 3):
            raise ValueError(f"traction{shape} {label}: {ng} orientation matrices (one per integration point) "
                             f"required, got an array of shape {R.shape}")
    model.surface_loads.append(SurfaceLoadSpec(label, "traction", shape, nodes, traction=drives, orientations=R,
                                               absolute=bool(absolute), where=where))
    return label


MODEL_FIELDS = {"surface_loads": list,           # Model attributes: factory (None: None)
                "surface_loads_in_assembly": None}   # `use: surface loads, in assembly`
MODEL_METHODS = (pressure_load, traction_load)


def build(model, nodes, built):
    """One family per (kind, shape) present, kinds then SURFACE_SHAPES order; with
    `surface_loads_in_assembly` they take part in the initial assembly."""
    families = [SurfaceLoads([s for s in model.surface_loads if (s.kind, s.shape) == (kind, shape)], nodes, kind,
                             shape) for kind in KINDS for shape in SURFACE_SHAPES
                if any((s.kind, s.shape) == (kind, shape) for s in model.surface_loads)]
    for fam in families:
        fam.in_initial_assembly = bool(model.surface_loads_in_assembly)
    return families


# ---------------------------------------------------------------------- faces of the solid shapes
@dataclass(frozen=True)
class SolidFace:
    """One face of a solid shape: the surface shape, the element's node indices (0-based,
    in the surface shape's node order, so that x,r1 × x,r2 points out of the element) and
    the outward normal in the solid's natural coordinates."""
    surface: str
    nodes: tuple
    normal: tuple


# faces as planes m·r = c of the natural coordinates, the element on the side m·r < c
_FACE_PLANES = {
    "hex": [((1, 0, 0), 1), ((-1, 0, 0), 1), ((0, 1, 0), 1), ((0, -1, 0), 1), ((0, 0, 1), 1), ((0, 0, -1), 1)],
    "wedge": [((0, 0, -1), 1), ((0, 0, 1), 1), ((0, -1, 0), 0), ((1, 1, 0), 1), ((-1, 0, 0), 0)],
    "tet": [((-1, 0, 0), 0), ((0, -1, 0), 0), ((0, 0, -1), 0), ((1, 1, 1), 1)],
}
# surface shape of a face with that many nodes, per solid shape (u/p-c variants: their base)
_FACE_SHAPES = {"hexahedron8": {4: "q4"}, "hexahedron20": {8: "q8"}, "hexahedron20r": {8: "q8r"},
                "hexahedron27": {9: "q9"}, "pentahedron15": {6: "t6", 8: "q8"}, "tetrahedron10": {6: "t6"}}


def _base_shape(name):
    if name.endswith("upcr"):
        return name[:-4] + "r"
    return name[:-3] if name.endswith("upc") else name


@lru_cache(maxsize=None)
def solid_faces(shape_name, quadrangle=None):
    """The faces of a solid shape (SOLID_SHAPES) as SolidFace records, the surface shapes
    being q4 (hexahedron8), q8 (hexahedron20), q8r (hexahedron20r), q9 (hexahedron27), t6
    and q8 (pentahedron15), t6 (tetrahedron10); `quadrangle` ("q8" or "q8r") overrides the
    8-node quadrangle.  Built from the node coordinates: the surface's corners are mapped
    onto the face's corners (the first admissible assignment with outward normal), and
    every surface node must then land on a face node."""
    if shape_name not in SOLID_SHAPES:
        raise ValueError(f"unknown solid shape {shape_name!r} (one of {', '.join(SOLID_SHAPES)})")
    base = _base_shape(shape_name)
    sh = solid_shape(shape_name)
    R = sh.shape.nodes
    planes = _FACE_PLANES[{8: "hex", 6: "wedge", 4: "tet"}[sh.corners]]
    faces = []
    for m, c in planes:
        m = np.asarray(m, float)
        on = np.flatnonzero(np.abs(R @ m - c) < 1e-12)
        surf = _FACE_SHAPES[base][len(on)]
        if surf in ("q8", "q8r") and quadrangle is not None:
            surf = quadrangle
        faces.append(SolidFace(surf, _face_order(R, on, sh.corners, surf, m), tuple(m / np.linalg.norm(m))))
    return tuple(faces)


def _corner_count(surface):
    """Corners of a surface shape (they come first in its node order)."""
    return 3 if surface.startswith("t") else 4


def _corner_keys(corners):
    """Rows of corner node indices, sorted and padded to 4 with −1, to compare faces."""
    keys = np.sort(corners, axis=1)
    return np.pad(keys, ((0, 0), (0, 4 - keys.shape[1])), constant_values=-1)


def _corner_interpolation(surf, xi):
    """The interpolation through the corners of a surface shape at its nodes xi (ns, nc)
    and its derivatives at the centre (nc, 2): bilinear (quadrangles) or linear (t6)."""
    if surf == "t6":
        return np.column_stack([1.0 - xi[:, 0] - xi[:, 1], xi[:, 0], xi[:, 1]]), \
            np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
    corners = ShapeFunctions(tuple(xi[:4].T), "quad4")
    return corners.h(xi), corners.dh(np.zeros((1, 2)))[0]


def _face_order(R, on, n_corners, surf, m):
    """The element node indices of the face `on` in the order of surface shape `surf`."""
    xi = surface_shape(surf).shape.nodes                 # (ns, 2)
    h, dh = _corner_interpolation(surf, xi)
    corners = [i for i in on if i < n_corners]
    for perm in itertools.permutations(corners):
        C = R[list(perm)]
        r = h @ C                                        # surface nodes in the solid's natural coordinates
        d = np.abs(r[:, None, :] - R[on][None, :, :]).max(axis=2)
        hit = d.argmin(axis=1)
        if d[np.arange(len(xi)), hit].max() > 1e-12 or len(set(hit.tolist())) != len(on):
            continue
        t = dh.T @ C                                     # the tangents at the centre
        if np.dot(np.cross(t[0], t[1]), m) > 0:
            return tuple(int(on[k]) for k in hit)
    raise AssertionError(f"no node order of {surf} fits a face")


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def curved_surface_nodes(shape, rng, size=1.0, distortion=0.15):
    """Node positions of one `shape` surface element: its reference element (natural
    coordinates, z = 0) scaled, randomly rotated, translated and distorted out of plane."""
    xi = surface_shape(shape).shape.nodes
    X = np.column_stack([xi * size * 0.5, np.zeros(len(xi))])
    X += distortion * size * rng.uniform(-0.5, 0.5, X.shape)
    Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    return X @ Q.T + rng.normal(size=3)


def _sample_nodes(model, rng, shape):
    X = curved_surface_nodes(shape, rng)
    for k, x in enumerate(X, start=1):
        kind = "dynamic displacement" if k % 2 else "static displacement"
        model.structural_node(k, kind, position=x, velocity=0.1 * rng.normal(size=3))
    return list(range(1, len(X) + 1))


def _pressure_sample(shape):
    def sample(model, rng):
        nodes = _sample_nodes(model, rng, shape)
        N = len(nodes)
        model.pressure_load(1, shape, nodes, pressure=list(rng.uniform(0.5, 2.0, N)))
        for k in range(N):
            model.abstract_node(100 + k, "differential" if k % 2 else "algebraic", value=rng.normal())
        model.pressure_load(2, shape, nodes, pressure_nodes=range(100, 100 + N))
        return model
    sample.__name__ = f"pressure{shape}_sample"
    return sample


def _traction_sample(shape):
    def sample(model, rng):
        nodes = _sample_nodes(model, rng, shape)
        N = len(nodes)
        ng = len(surface_shape(shape).rule[1])
        R = [np.linalg.qr(rng.normal(size=(3, 3)))[0] for _ in range(ng)]
        R = [Q * np.sign(np.linalg.det(Q)) for Q in R]
        model.traction_load(1, shape, nodes, [rng.normal(size=3) for _ in range(N)], orientations=R)
        model.traction_load(2, shape, nodes, rng.normal(size=3), absolute=True)
        return model
    sample.__name__ = f"traction{shape}_sample"
    return sample


SAMPLES = {"surface load": [f(shape) for shape in SURFACE_SHAPES for f in (_pressure_sample, _traction_sample)]}


class SurfaceLoads(ElementFamily):
    """All surface loads of one kind and shape."""
    name = "surface load"

    def __init__(self, specs, nodes, kind, shape):
        super().__init__(specs, nodes)
        sh = self.shape = surface_shape(shape)
        self.shape_name = shape
        self.kind = kind
        S = self.specs
        N = sh.n_nodes
        self.conn = element_nodes(nodes, S, N, self.where)
        points, weights = sh.rule
        self.H = sh.shape.h(points)
        self.dH = sh.shape.dh(points)
        self.W = np.asarray(weights, float)
        self.ng = len(self.W)
        if kind == "pressure":
            self.mode = np.full(self.ne, PRESSURE, np.int64)
        else:
            self.mode = np.array([ABSOLUTE_TRACTION if s.absolute else RELATIVE_TRACTION for s in S], np.int64)
        self.dA0, R0 = self._reference_frames()
        self.M = np.zeros((self.ne, self.ng, 3, 3))
        for e, s in enumerate(S):
            if kind == "traction":
                Rf = s.orientations
                self.M[e] = Rf if s.absolute else np.einsum("gji,gjk->gik", R0[e], Rf)
        self.M = self.M.reshape(self.ne * self.ng, 3, 3)
        # nodal pressures of drives (rows of pval) and of abstract nodes (prow, bound later)
        self.pval = np.zeros((self.ne, N))
        drives = [(e * N + k, d) for e, s in enumerate(S) for k, d in enumerate(s.pressure)]
        self._pflat = np.array([i for i, _ in drives], np.int64)
        self._pdrives = DriveArray([d for _, d in drives]) if drives else None
        self.prow = np.full((self.ne, N), -1, np.int64)
        self.pdiff = np.zeros((self.ne, N), np.int64)
        tdrives = [d for s in S for d in (s.traction or (None,) * N)]
        self._tdrives = VectorDriveArray(tdrives)
        self.stiff = self.mode != ABSOLUTE_TRACTION
        self.from_nodes = np.array([bool(s.pressure_nodes) for s in S], bool)

    @staticmethod
    def where(spec):
        shown = f"{spec.where}: " if spec.where else ""
        return f"{shown}{spec.kind}{spec.shape} {spec.label}: "

    def _reference_frames(self):
        """|n₀| α (ne, ng) and the reference frames ᴬ⁰R (ne, ng, 3, 3) (eqs. 12.75–12.79);
        a face of zero area at an integration point is refused."""
        X = self.nodes.x0[self.conn]                                   # (ne, N, 3)
        a = np.einsum("gk,ekj->egj", self.dH[:, :, 0], X)
        b = np.einsum("gk,ekj->egj", self.dH[:, :, 1], X)
        n = np.cross(a, b)
        ln = np.linalg.norm(n, axis=2)
        la = np.linalg.norm(a, axis=2)
        scale = np.maximum(la * np.linalg.norm(b, axis=2), np.finfo(float).tiny)
        bad = np.flatnonzero((ln <= 1e-12 * scale).any(axis=1))
        if len(bad):
            s = self.specs[bad[0]]
            raise ValueError(f"{self.where(s)}degenerate surface (zero area at an integration point; nodes "
                             f"{', '.join(map(str, s.nodes))})")
        e1 = a / la[..., None]
        e3 = n / ln[..., None]
        e2 = np.cross(e3, e1)
        return ln * self.W, np.stack([e1, e2, e3], axis=-1)

    # ------------------------------------------------------------------ layout
    def bind(self, system):
        """The check that every surface lies on a solid face (when the model has solids) and
        the rows of the abstract nodes of `from nodes` pressures."""
        self._check_on_solid_faces(system)
        if not self.from_nodes.any():
            return
        abstract = next((f for f in system.families if f.name == "abstract node"), None)
        for e, s in enumerate(self.specs):
            if not s.pressure_nodes:
                continue
            if abstract is None:
                raise ValueError(f"{self.where(s)}abstract node {s.pressure_nodes[0]} is not defined "
                                 "(the model has none)")
            for k, label in enumerate(s.pressure_nodes):
                try:
                    i = abstract.index(label)
                except KeyError as err:
                    raise ValueError(f"{self.where(s)}{err.args[0]}") from None
                self.prow[e, k] = abstract.rows[i]
                self.pdiff[e, k] = int(abstract.differential[i])

    def _check_on_solid_faces(self, system):
        """In a model with solid elements, a surface whose corner nodes are not the corners
        of a face of one of them is bad input (named with its card and nodes).  Without
        solid elements surface loads stand alone on their nodes, as MBDyn allows."""
        faces = []
        for fam in system.families:
            if fam.name.startswith("solid") and hasattr(fam, "cells"):
                name, conn = fam.cells()
                for face in solid_faces(_base_shape(name)):
                    faces.append(_corner_keys(conn[:, list(face.nodes[:_corner_count(face.surface)])]))
        if not faces:
            return
        faces = np.concatenate(faces)
        mine = _corner_keys(self.conn[:, :_corner_count(self.shape_name)])
        _, inverse = np.unique(np.concatenate([faces, mine]), axis=0, return_inverse=True)
        inverse = inverse.ravel()
        off = np.flatnonzero(~np.isin(inverse[len(faces):], inverse[:len(faces)]))
        if len(off):
            spec = self.specs[off[0]]
            raise ValueError(f"{self.where(spec)}nodes {', '.join(map(str, spec.nodes))} are not a face of any "
                             f"solid element")

    def build_pattern(self):
        N = self.shape.n_nodes
        ix = self.nodes.ix[self.conn].reshape(self.ne, 3 * N)
        p = self.pattern = Pattern()
        p.add_res(ix)
        self._juu = p.add_jac(ix, ix, valid=self.stiff[:, None, None]) if self.stiff.any() else None
        self._jup = p.add_jac(ix, self.prow) if self.from_nodes.any() else None
        # the kernel's arrays for blocks absent or not wanted (their values are never read)
        self._idle_uu = np.zeros((self.ne, 3 * N, 3 * N))
        self._idle_up = np.zeros((self.ne, 3 * N, N))
        return p

    # ------------------------------------------------------------------ evaluation
    def pressures(self, t):
        """The nodal pressures of drives (ne, N) at time t (zero where abstract nodes give them)."""
        if self._pdrives is not None:
            self.pval.reshape(-1)[self._pflat] = self._pdrives.values(t)
        return self.pval

    def tractions(self, t):
        """The nodal tractions ᴬf̄ (ne, N, 3) at time t."""
        return self._tdrives.values(t).reshape(self.ne, self.shape.n_nodes, 3)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (surface_equations) over all loads of this kind and shape.  In the
        initial assembly (`use: surface loads, in assembly`) the loads act in its position
        subproblem (against the nodes' assembly springs, with dCoef = 1) and not in the
        velocity one, as MBDyn's InitialAssRes puts them on the position rows only."""
        want_jac = jac_views is not None
        if ctx.mode == "ia_velocity":
            for view in list(res_views) + (list(jac_views) if want_jac else []):
                view[...] = 0.0
            return
        j_uu = jac_views[self._juu] if want_jac and self._juu is not None else self._idle_uu
        j_up = jac_views[self._jup] if want_jac and self._jup is not None else self._idle_up
        kin = ctx.kin
        surface_equations(self.mode, self.conn, kin.x, self.H, self.dH, self.W, self.pressures(ctx.t), self.prow,
                          self.pdiff, ctx.y, self.tractions(ctx.t), self.M, self.dA0, float(kin.dcoef), want_jac,
                          res_views[0], j_uu, j_up)


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head (`<card>: <label>`) is read.
# The reader and the Model are used duck-typed (no engine.io import here).

def _deck_position(word):
    return f"{word.source.name}:{word.where()[0]}"


def _surface_nodes(reader, args, n):
    return [reader.structural_node(args, f"structural node {k + 1}").label for k in range(n)]


def read_pressure(reader, model, args, label, word, shape):
    """`pressure<shape>: <label>, <N nodes>, {from drives, <N DriveCaller> | from nodes,
    <N abstract nodes>}` (input manual "Pressure Loads")."""
    n = surface_shape(shape).n_nodes
    nodes = _surface_nodes(reader, args, n)
    source = args.expect_keyword("from drives", "from nodes", what="'from drives' or 'from nodes'")
    if source == reader.normalize("from drives"):
        model.pressure_load(label, shape, nodes, pressure=[reader.read_drive(args) for _ in range(n)],
                            where=_deck_position(word))
        return
    abstract = reader.element_labels.get("abstract nodes", set())
    p_nodes = []
    for k in range(n):
        w = args.peek()
        p = args.label(f"abstract node {k + 1}")
        if p not in abstract:
            raise w.error(f"Abstract({p}) is not defined")
        p_nodes.append(p)
    model.pressure_load(label, shape, nodes, pressure_nodes=p_nodes, where=_deck_position(word))


def read_traction(reader, model, args, label, word, shape):
    """`traction<shape>: <label>, [absolute,] <N nodes>, from drives, <N TplDriveCaller<Vec3>>
    [, orientation, <M OrientationMatrix>]` (input manual "Surface Traction's"; M: the
    number of integration points)."""
    sh = surface_shape(shape)
    n, ng = sh.n_nodes, len(sh.rule[1])
    absolute = args.is_keyword("absolute") is not None
    nodes = _surface_nodes(reader, args, n)
    args.expect_keyword("from drives")
    site = reader.make_site(reader.make_frame(np.zeros(3), np.eye(3)))
    traction = [reader.read_tpl_vec3(args, "abs direction", site) for _ in range(n)]
    orientations = None
    if args.is_keyword("orientation"):
        orientations = [reader.read_orientation(args, "abs") for _ in range(ng)]
    model.traction_load(label, shape, nodes, traction, orientations=orientations, absolute=absolute,
                        where=_deck_position(word))


def _card(read, shape):
    def card(reader, model, args, label, word):
        read(reader, model, args, label, word, shape)
    card.__name__ = f"{read.__name__}_{shape}"
    return card


CARDS = {**{f"pressure{shape}": _card(read_pressure, shape) for shape in SURFACE_SHAPES},
         **{f"traction{shape}": _card(read_traction, shape) for shape in SURFACE_SHAPES}}
