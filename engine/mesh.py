"""Meshes in through meshio (gmsh, Abaqus, VTK, ...) for MBDyn's solid elements.

meshio keeps every cell in VTK's node order.  The permutation from each VTK cell to the
matching MBDyn shape is derived here from the natural coordinates of both reference
elements (the affine map between them that takes corners onto corners with a positive
Jacobian), never typed in.  After the permutation every element is checked in physical
space: one with a negative Jacobian (a mirrored cell, e.g. a quadratic wedge in VTK's own
orientation, whose base normal points out of the wedge) is mirrored back, and every face
is oriented so that its normal ∂x/∂r × ∂x/∂s points out of the solid it bounds (MBDyn's
pressure load acts as -p n: a positive pressure pushes on the surface).

    mesh = read_mesh("block.msh")                 # gmsh physical groups -> named sets
    nodes, elements = mesh.add_to_model(model, law, density=7800.0)
    mesh.clamp(model, "fixed", first_label=1000)
    mesh.pressure(model, "top", 1e5, first_label=2000)
    mesh.boundary_faces("loaded")                 # faces from a node set (Abaqus *NSET)

Results go to ParaView through engine/io/vtu.py (VTUWriter).
"""
from functools import cache
from itertools import combinations, permutations

import numpy as np

from mbdae.elements.shell_meshes import nodal_loads


@cache
def load_meshio():
    """meshio, the optional extra `mesh`, imported on first use (it takes 0.7 s, which `mbdae
    run` and `check` should not pay when they write no VTU); ImportError with the install
    line when it is missing."""
    try:
        import meshio
    except ImportError:
        raise ImportError("meshes and VTU output need meshio: pip install 'mbdae[mesh]'") from None
    # meshio 5.3.5 has no quadratic wedge in its table of cell dimensions (meshio issue
    # 1247): without the entry no wedge15 cell can be read or written
    dims = getattr(getattr(meshio, "_mesh", None), "topological_dimension", None)
    if isinstance(dims, dict):
        dims.setdefault("wedge15", 3)
    return meshio


def _nodes(r, s, t=None):
    cols = (r, s) if t is None else (r, s, t)
    return np.array(cols, float).T


# ---------------------------------------------------------------- reference elements
# MBDyn's natural coordinates of node 1..N (solidshape.h)
_HEX8 = ([1, -1, -1, 1, 1, -1, -1, 1], [1, 1, -1, -1, 1, 1, -1, -1], [1, 1, 1, 1, -1, -1, -1, -1])
MBDYN_NODES = {
    "hexahedron8": _nodes(*_HEX8),
    "hexahedron20": _nodes(
        [1, -1, -1, 1, 1, -1, -1, 1, 0, -1, 0, 1, 0, -1, 0, 1, 1, -1, -1, 1],
        [1, 1, -1, -1, 1, 1, -1, -1, 1, 0, -1, 0, 1, 0, -1, 0, 1, 1, -1, -1],
        [1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 0, 0, 0, 0]),
    "hexahedron20r": _nodes(
        [-1, 1, 1, -1, -1, 1, 1, -1, 0, 1, 0, -1, 0, 1, 0, -1, -1, 1, 1, -1],
        [-1, -1, 1, 1, -1, -1, 1, 1, -1, 0, 1, 0, -1, 0, 1, 0, -1, -1, 1, 1],
        [-1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1, 0, 0, 0, 0]),
    "hexahedron27": _nodes(
        [-1, 1, 1, -1, -1, 1, 1, -1, 0, 1, 0, -1, -1, 1, 1, -1, 0, 1, 0, -1, 0, 0, 1, 0, -1, 0, 0],
        [-1, -1, 1, 1, -1, -1, 1, 1, -1, 0, 1, 0, -1, -1, 1, 1, -1, 0, 1, 0, 0, -1, 0, 1, 0, 0, 0],
        [-1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 1, -1, 0, 0, 0, 0, 1, 0]),
    "pentahedron15": _nodes(
        [0, 1, 0, 0, 1, 0, .5, .5, 0, .5, .5, 0, 0, 1, 0],
        [0, 0, 1, 0, 0, 1, 0, .5, .5, 0, .5, .5, 0, 0, 1],
        [-1, -1, -1, 1, 1, 1, -1, -1, -1, 1, 1, 1, 0, 0, 0]),
    "tetrahedron10": _nodes(
        [0, 0, 0, 1, 0, 0, 0, .5, .5, .5],
        [1, 0, 0, 0, .5, 0, .5, .5, 0, 0],
        [0, 1, 0, 0, .5, .5, 0, 0, .5, 0]),
    "q4": _nodes([1, -1, -1, 1], [1, 1, -1, -1]),
    "q8": _nodes([1, -1, -1, 1, 0, -1, 0, 1], [1, 1, -1, -1, 1, 0, -1, 0]),
    "q8r": _nodes([-1, 1, 1, -1, 0, 1, 0, -1], [-1, -1, 1, 1, -1, 0, 1, 0]),
    "q9": _nodes([-1, 1, 1, -1, 0, 1, 0, -1, 0], [-1, -1, 1, 1, -1, 0, 1, 0, 0]),
    "t6": _nodes([0, 1, 0, .5, .5, 0], [0, 0, 1, 0, .5, .5]),
}

# VTK's parametric coordinates (GetParametricCoords of vtkHexahedron, vtkQuadraticHexahedron,
# vtkTriQuadraticHexahedron, vtkQuadraticWedge, vtkQuadraticTetra, vtkQuad, vtkQuadraticQuad,
# vtkBiQuadraticQuad, vtkQuadraticTriangle), under meshio's cell type names
_VTK_HEX27 = _nodes(
    [0, 1, 1, 0, 0, 1, 1, 0, .5, 1, .5, 0, .5, 1, .5, 0, 0, 1, 1, 0, 0, 1, .5, .5, .5, .5, .5],
    [0, 0, 1, 1, 0, 0, 1, 1, 0, .5, 1, .5, 0, .5, 1, .5, 0, 0, 1, 1, .5, .5, 0, 1, .5, .5, .5],
    [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, .5, .5, .5, .5, .5, .5, .5, .5, 0, 1, .5])
_VTK_QUAD9 = _nodes([0, 1, 1, 0, .5, 1, .5, 0, .5], [0, 0, 1, 1, 0, .5, 1, .5, .5])
VTK_NODES = {
    "hexahedron": _VTK_HEX27[:8],
    "hexahedron20": _VTK_HEX27[:20],
    "hexahedron27": _VTK_HEX27,
    "wedge15": _nodes([0, 1, 0, 0, 1, 0, .5, .5, 0, .5, .5, 0, 0, 1, 0],
                      [0, 0, 1, 0, 0, 1, 0, .5, .5, 0, .5, .5, 0, 0, 1],
                      [0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, .5, .5, .5]),
    "tetra10": _nodes([0, 1, 0, 0, .5, .5, 0, 0, .5, 0],
                      [0, 0, 1, 0, 0, .5, .5, 0, 0, .5],
                      [0, 0, 0, 1, 0, 0, 0, .5, .5, .5]),
    "quad": _VTK_QUAD9[:4],
    "quad8": _VTK_QUAD9[:8],
    "quad9": _VTK_QUAD9,
    "triangle6": _nodes([0, 1, 0, .5, .5, 0], [0, 0, 1, 0, .5, .5]),
}

# family of each shape: number of corners (listed first in both tables), dimension
_FAMILY = {"hexahedron8": "hex", "hexahedron20": "hex", "hexahedron20r": "hex", "hexahedron27": "hex",
           "pentahedron15": "wedge", "tetrahedron10": "tet", "q4": "quad", "q8": "quad", "q8r": "quad",
           "q9": "quad", "t6": "tri", "hexahedron": "hex", "wedge15": "wedge", "tetra10": "tet",
           "quad": "quad", "quad8": "quad", "quad9": "quad", "triangle6": "tri"}
CORNERS = {"hex": 8, "wedge": 6, "tet": 4, "quad": 4, "tri": 3}

SOLID_SHAPES = ("hexahedron8", "hexahedron20", "hexahedron20r", "hexahedron27", "pentahedron15", "tetrahedron10")
SURFACE_SHAPES = ("q4", "q8", "q8r", "q9", "t6")
# MBDyn shape -> meshio (VTK) cell type, and back (hexahedron20 and quad8: see
# Mesh.from_meshio's `hex20`)
VTK_TYPE = {"hexahedron8": "hexahedron", "hexahedron20": "hexahedron20", "hexahedron20r": "hexahedron20",
            "hexahedron27": "hexahedron27", "pentahedron15": "wedge15", "tetrahedron10": "tetra10",
            "q4": "quad", "q8": "quad8", "q8r": "quad8", "q9": "quad9", "t6": "triangle6"}
MESHIO_SOLIDS = {VTK_TYPE[s]: s for s in SOLID_SHAPES if s != "hexahedron20r"}
MESHIO_FACES = {VTK_TYPE[s]: s for s in SURFACE_SHAPES if s != "q8r"}
# u/p-c shapes: their name, and the element nodes that carry the pressure (None: one per element)
UPC = {"hexahedron8": ("hexahedron8upc", None), "hexahedron20": ("hexahedron20upc", 8),
       "hexahedron20r": ("hexahedron20upcr", 8), "pentahedron15": ("pentahedron15upc", 6),
       "tetrahedron10": ("tetrahedron10upc", 4)}

# polynomial space of each shape (exponents of r, s, t): its nodal basis is the shape functions
_SPACE = {
    "hexahedron8": [(a, b, c) for a in range(2) for b in range(2) for c in range(2)],
    "hexahedron20": [(a, b, c) for a in range(3) for b in range(3) for c in range(3)
                     if (a, b, c).count(2) < 2 and not (a == b == c == 2)],
    "hexahedron27": [(a, b, c) for a in range(3) for b in range(3) for c in range(3)],
    "pentahedron15": [(a, b, c) for a in range(3) for b in range(3) for c in range(2) if a + b <= 2]
    + [(0, 0, 2), (1, 0, 2), (0, 1, 2)],
    "tetrahedron10": [(a, b, c) for a in range(3) for b in range(3) for c in range(3) if a + b + c <= 2],
    "q4": [(a, b) for a in range(2) for b in range(2)],
    "q8": [(a, b) for a in range(3) for b in range(3) if (a, b) != (2, 2)],
    "q9": [(a, b) for a in range(3) for b in range(3)],
    "t6": [(a, b) for a in range(3) for b in range(3) if a + b <= 2],
}
_SPACE["hexahedron20r"] = _SPACE["hexahedron20"]
_SPACE["q8r"] = _SPACE["q8"]

TOL = 1e-9


# ---------------------------------------------------------------- node permutations
def _match(a, b):
    """For each row of `a`, the index of the equal row of `b`; None unless a bijection."""
    d = np.abs(a[:, None, :] - b[None, :, :]).max(axis=2)
    hit = d < TOL
    if len(a) != len(b) or not (hit.sum(axis=1) == 1).all() or not (hit.sum(axis=0) == 1).all():
        return None
    return hit.argmax(axis=1)


def _corner_maps(src, dst, sign):
    """Affine maps ξ -> A ξ + b taking the corner set `src` onto the corner set `dst`
    with sign(det A) = sign, as [(A, b)]."""
    d = src.shape[1]
    base = [0]
    for i in range(1, len(src)):               # d + 1 affinely independent corners
        if np.linalg.matrix_rank(src[base + [i]] - src[0]) == len(base):
            base.append(i)
        if len(base) == d + 1:
            break
    S = np.hstack([src[base], np.ones((d + 1, 1))])
    maps = []
    for image in permutations(range(len(dst)), d + 1):
        M = np.linalg.solve(S, dst[list(image)])
        A, b = M[:d].T, M[d]
        if sign * np.linalg.det(A) > TOL and _match(src @ A.T + b, dst) is not None:
            maps.append((A, b))
    return maps


def _frozen(a):
    """A cached permutation, read-only."""
    a.flags.writeable = False
    return a


def _closest_to_identity(maps):
    return max(maps, key=lambda m: np.trace(m[0]))     # first of the ties


@cache
def vtk_to_mbdyn(cell_type, shape):
    """Permutation p with mbdyn_connectivity = vtk_connectivity[:, p] (meshio cell type ->
    MBDyn shape): the affine map between the reference elements that takes VTK's corners
    onto MBDyn's with a positive Jacobian (the one closest to the identity), then node by node."""
    src, dst = VTK_NODES[cell_type], MBDYN_NODES[shape]
    k = CORNERS[_FAMILY[shape]]
    if len(src) != len(dst) or _FAMILY[cell_type] != _FAMILY[shape]:
        raise ValueError(f"a {cell_type} cell is no {shape}")
    A, b = _closest_to_identity(_corner_maps(src[:k], dst[:k], +1))
    p = _match(dst, src @ A.T + b)
    if p is None:
        raise ValueError(f"{cell_type} -> {shape}: the nodes do not match")
    return _frozen(p)


@cache
def mirror(shape):
    """Permutation of the nodes of `shape` that mirrors its reference element onto itself
    (det = -1): conn[:, mirror(shape)] turns an inside-out element right side out."""
    X = MBDYN_NODES[shape]
    k = CORNERS[_FAMILY[shape]]
    A, b = _closest_to_identity(_corner_maps(X[:k], X[:k], -1))
    return _frozen(_match(X @ A.T + b, X))


@cache
def mbdyn_to_vtk(shape):
    """(meshio cell type, p) with vtk_connectivity = mbdyn_connectivity[:, p], for writing
    results.  The quadratic wedge is written in VTK's own orientation (the normal of its
    base (0, 1, 2) points away from (3, 4, 5), as vtkWedge), so ParaView sees positive
    volumes; meshio's readers leave gmsh/Abaqus wedges in the opposite one, which
    from_meshio accepts as well (it orients every element from its geometry)."""
    cell_type = VTK_TYPE[shape]
    p = np.argsort(vtk_to_mbdyn(cell_type, shape))
    if cell_type == "wedge15":
        p = p[mirror_vtk(cell_type)]
    return cell_type, _frozen(p)


@cache
def mirror_vtk(cell_type):
    """Mirroring permutation of a VTK reference element (as `mirror`)."""
    X = VTK_NODES[cell_type]
    k = CORNERS[_FAMILY[cell_type]]
    A, b = _closest_to_identity(_corner_maps(X[:k], X[:k], -1))
    return _frozen(_match(X @ A.T + b, X))


@cache
def facets(shape):
    """Corner indices of each facet of a solid shape (maximal sets of corners on a plane
    that leaves every other corner on one side), in ascending order."""
    X = MBDYN_NODES[shape][:CORNERS[_FAMILY[shape]]]
    found = set()
    for tri in combinations(range(len(X)), 3):
        n = np.cross(X[tri[1]] - X[tri[0]], X[tri[2]] - X[tri[0]])
        if np.linalg.norm(n) < TOL:
            continue
        side = (X - X[tri[0]]) @ n
        on = np.abs(side) < TOL
        if (side[~on] > 0).all() or (side[~on] < 0).all():
            found.add(tuple(int(i) for i in np.flatnonzero(on)))
    return sorted(found)


# surface shape of the facets of each solid (by number of corners)
FACET_SHAPE = {("hexahedron8", 4): "q4", ("hexahedron20", 4): "q8", ("hexahedron20r", 4): "q8r",
               ("hexahedron27", 4): "q9", ("pentahedron15", 3): "t6", ("pentahedron15", 4): "q8",
               ("tetrahedron10", 3): "t6"}


@cache
def facet_nodes(shape):
    """[(surface shape, element node indices)] of each facet of a solid shape, in the
    surface shape's order with its normal ∂x/∂r × ∂x/∂s pointing out of the element."""
    X = MBDYN_NODES[shape]
    center = X[:CORNERS[_FAMILY[shape]]].mean(axis=0)
    out = []
    for f in facets(shape):
        P = X[list(f)]
        n = np.cross(P[1] - P[0], P[2] - P[0])
        on = np.flatnonzero(np.abs((X - P[0]) @ n) < TOL)
        surf = FACET_SHAPE[(shape, len(f))]
        S = MBDYN_NODES[surf]
        Sb = np.hstack([S[:3], np.ones((3, 1))])
        for image in permutations(range(len(f)), 3):
            Mt = np.linalg.solve(Sb, P[list(image)])
            A, b = Mt[:2].T, Mt[2]
            if np.cross(A[:, 0], A[:, 1]) @ (P.mean(axis=0) - center) <= 0:
                continue
            if _match(S[:len(f)] @ A.T + b, P) is None:
                continue
            idx = _match(S @ A.T + b, X[on])
            out.append((surf, _frozen(on[idx])))
            break
    return out


# ---------------------------------------------------------------- shape functions, volumes
@cache
def _basis(shape):
    """Coefficients C with N(ξ) = C.T m(ξ), m the monomials of the shape's space."""
    X = MBDYN_NODES[shape]
    E = np.array(_SPACE[shape])
    V = np.prod(X[:, None, :] ** E[None, :, :], axis=2)
    return E, np.linalg.inv(V)


def shape_functions(shape, xi):
    """N (q, n) and dN/dξ (q, n, d) of an MBDyn shape at points ξ (q, d)."""
    E, C = _basis(shape)
    xi = np.atleast_2d(np.asarray(xi, float))
    m = np.prod(xi[:, None, :] ** E[None, :, :], axis=2)
    dm = np.empty(m.shape + (xi.shape[1],))
    for a in range(xi.shape[1]):
        Ea = E.copy()
        Ea[:, a] = np.maximum(E[:, a] - 1, 0)
        dm[..., a] = E[:, a] * np.prod(xi[:, None, :] ** Ea[None, :, :], axis=2)
    return m @ C, np.einsum("qkd,kn->qnd", dm, C)


@cache
def quadrature(shape, n=4):
    """Points (q, d) and weights (q,) over the reference element of `shape` (Gauss rules;
    simplices through the collapsed (Duffy) map), n points per direction."""
    x, w = np.polynomial.legendre.leggauss(n)
    u, wu = (x + 1) / 2, w / 2                           # on [0, 1]
    fam = _FAMILY[shape]
    if fam in ("hex", "quad"):
        d = 3 if fam == "hex" else 2
        pts = np.array(np.meshgrid(*[x] * d, indexing="ij")).reshape(d, -1).T
        wts = np.prod(np.array(np.meshgrid(*[w] * d, indexing="ij")).reshape(d, -1), axis=0)
        return pts, wts
    a, b = [g.ravel() for g in np.meshgrid(u, u, indexing="ij")]
    wa, wb = [g.ravel() for g in np.meshgrid(wu, wu, indexing="ij")]
    tri = np.stack([a, b * (1 - a)], 1), wa * wb * (1 - a)
    if fam == "tri":
        return tri
    if fam == "wedge":
        pts = np.hstack([np.repeat(tri[0], n, 0), np.tile(x, len(tri[1]))[:, None]])
        return pts, np.repeat(tri[1], n) * np.tile(w, len(tri[1]))
    a, b, c = [g.ravel() for g in np.meshgrid(u, u, u, indexing="ij")]
    wa, wb, wc = [g.ravel() for g in np.meshgrid(wu, wu, wu, indexing="ij")]
    pts = np.stack([a, b * (1 - a), c * (1 - a) * (1 - b)], 1)
    return pts, wa * wb * wc * (1 - a) ** 2 * (1 - b)


def element_volumes(shape, X):
    """Volumes ∫ det J of solid elements with node positions X (ne, nn, 3) in MBDyn order
    (negative for inside-out elements)."""
    q, w = quadrature(shape)
    _, dN = shape_functions(shape, q)
    J = np.einsum("qna,enc->eqac", dN, np.asarray(X, float))
    return np.linalg.det(J) @ w


def face_vector_areas(shape, X):
    """∫ ∂x/∂r × ∂x/∂s dr ds of faces with node positions X (nf, nn, 3): the area times the
    mean normal (exact for plane faces)."""
    q, w = quadrature(shape)
    _, dN = shape_functions(shape, q)
    J = np.einsum("qna,enc->eqac", dN, np.asarray(X, float))
    return np.einsum("eqc,q->ec", np.cross(J[:, :, 0], J[:, :, 1]), w)


def _corner_fit(shape, X):
    """Rows ∂x/∂ξ (ne, d, 3) of the affine least-squares fit of the corners of elements X."""
    xi = MBDYN_NODES[shape][:CORNERS[_FAMILY[shape]]]
    d = xi.shape[1]
    P = np.linalg.pinv(np.hstack([xi, np.ones((len(xi), 1))]))
    return np.einsum("ak,ekc->eac", P, X[:, :len(xi)])[:, :d]


# ---------------------------------------------------------------- the mesh
def read_mesh(path, **options):
    """A Mesh from any file meshio reads (options: Mesh.from_meshio's)."""
    return Mesh.from_meshio(load_meshio().read(path), **options)


def _pick(sets, shape_rows):
    """{shape: connectivity} of a set given as {shape: row indices}."""
    return {s: shape_rows[s][np.asarray(r, np.int64)] for s, r in sets.items() if len(r)}


class Mesh:
    """Points (n, 3); `solids` {MBDyn shape: (ne, nn) point indices in MBDyn order};
    `faces` {surface shape: (nf, nn)}; named sets `node_sets` {name: point indices},
    `element_sets` and `face_sets` {name: {shape: connectivity}}.  `reoriented`
    {shape: count} of mirrored elements and flipped faces, `ignored` {meshio type: count}
    of cells with no MBDyn counterpart (points, lines, linear triangles).  After
    add_to_model, `node_label` {point: structural node label} and `pressure_label`
    {point or ("element", shape, row): hydraulic node label}."""

    def __init__(self, points, solids=None, faces=None, node_sets=None, element_sets=None, face_sets=None):
        self.points = np.asarray(points, float).reshape(-1, 3)
        self.solids = {k: np.asarray(v, np.int64) for k, v in (solids or {}).items()}
        self.faces = {k: np.asarray(v, np.int64) for k, v in (faces or {}).items()}
        self.node_sets = {k: np.asarray(v, np.int64) for k, v in (node_sets or {}).items()}
        self.element_sets = element_sets or {}
        self.face_sets = face_sets or {}
        self.reoriented, self.ignored = {}, {}
        self.node_label, self.pressure_label = {}, {}

    # ------------------------------------------------------------ from meshio
    @classmethod
    def from_meshio(cls, m, hex20="hexahedron20", orient=True):
        """Convert a meshio.Mesh.  `hex20`: "hexahedron20" (faces "q8") or "hexahedron20r"
        (faces "q8r") for 20-node hexahedra.  `orient`: mirror inside-out elements and turn
        faces outward (see the module text)."""
        if hex20 not in ("hexahedron20", "hexahedron20r"):
            raise ValueError(f"hex20 must be 'hexahedron20' or 'hexahedron20r', not {hex20!r}")
        solid_of = {**MESHIO_SOLIDS, "hexahedron20": hex20}
        face_of = {**MESHIO_FACES, "quad8": "q8" if hex20 == "hexahedron20" else "q8r"}
        mesh = cls(m.points[:, :3] if m.points.shape[1] >= 3 else
                   np.hstack([m.points, np.zeros((len(m.points), 3 - m.points.shape[1]))]))
        blocks, where = {}, []                   # where[block] = (kind, shape, first row)
        for block in m.cells:
            t, data = block.type, np.asarray(block.data, np.int64)
            if t in solid_of:
                kind, shape = "solids", solid_of[t]
            elif t in face_of:
                kind, shape = "faces", face_of[t]
            else:
                if block.dim == 3:
                    raise ValueError(f"{t} cells: MBDyn has no such solid (shapes: {', '.join(SOLID_SHAPES)}); "
                                     "mesh with second-order elements or hexahedra")
                mesh.ignored[t] = mesh.ignored.get(t, 0) + len(data)
                where.append((None, t, 0))
                continue
            rows = blocks.setdefault((kind, shape), [])
            where.append((kind, shape, sum(len(r) for r in rows)))
            rows.append(data[:, vtk_to_mbdyn(t, shape)])
        for (kind, shape), rows in blocks.items():
            getattr(mesh, kind)[shape] = np.concatenate(rows)
        if orient:
            mesh._orient_solids()
            mesh._orient_faces()
        mesh._read_sets(m, where)
        return mesh

    def _orient_solids(self):
        for shape, conn in self.solids.items():
            fit = _corner_fit(shape, self.points[conn])
            det = np.linalg.det(fit)
            if (np.abs(det) <= 1e-10 * np.prod(np.linalg.norm(fit, axis=2), axis=1)).any():
                raise ValueError(f"{shape}: degenerate elements (zero volume)")
            bad = det < 0
            if bad.any():
                conn[bad] = conn[bad][:, mirror(shape)]
                self.reoriented[shape] = int(bad.sum())

    def _orient_faces(self):
        """Turn each face whose corners are a facet of a solid so that its normal points out
        of that solid."""
        centers = {}
        for shape, conn in self.solids.items():
            mid = self.points[conn[:, :CORNERS[_FAMILY[shape]]]].mean(axis=1)
            for f in facets(shape):
                keys = np.sort(conn[:, list(f)], axis=1)
                centers.update(zip(map(tuple, keys.tolist()), mid))
        for shape, conn in self.faces.items():
            k = CORNERS[_FAMILY[shape]]
            fit = _corner_fit(shape, self.points[conn])
            normal = np.cross(fit[:, 0], fit[:, 1])
            outward = self.points[conn[:, :k]].mean(axis=1)
            keys = map(tuple, np.sort(conn[:, :k], axis=1).tolist())
            inside = np.array([centers.get(key, c) for key, c in zip(keys, outward)]).reshape(-1, 3)
            flip = np.einsum("ec,ec->e", normal, outward - inside) < 0
            if flip.any():
                conn[flip] = conn[flip][:, mirror(shape)]
                self.reoriented[shape] = self.reoriented.get(shape, 0) + int(flip.sum())

    def _read_sets(self, m, where):
        """Named sets from meshio's cell_sets (gmsh physical names, Abaqus *ELSET), the
        physical tags of gmsh files (cell_data "gmsh:physical" with field_data names) and
        point_sets (Abaqus *NSET).  A cell set also names the points of its cells."""
        cell_sets = {}                               # name -> [(block, local rows)]
        for name, per_block in (m.cell_sets or {}).items():
            if name.startswith("gmsh:"):
                continue
            for b, rows in enumerate(per_block):
                if rows is not None and len(rows):
                    cell_sets.setdefault(name, []).append((b, np.asarray(rows, np.int64)))
        tags = m.cell_data.get("gmsh:physical")
        if tags is not None:
            names = {(int(v[0]), int(v[1])): k for k, v in (m.field_data or {}).items()}
            for b, (block, tag) in enumerate(zip(m.cells, tags)):
                dim = block.dim
                for t in np.unique(tag):
                    name = names.get((int(t), dim), f"physical {int(t)}")
                    if name in (m.cell_sets or {}):
                        continue                         # meshio made that set already
                    cell_sets.setdefault(name, []).append((b, np.flatnonzero(tag == t)))
        for name, parts in cell_sets.items():
            points, solids, faces = [], {}, {}
            for b, rows in parts:
                kind, shape, first = where[b]
                points.append(np.asarray(m.cells[b].data, np.int64)[rows].ravel())
                if kind == "solids":
                    solids.setdefault(shape, []).append(first + rows)
                elif kind == "faces":
                    faces.setdefault(shape, []).append(first + rows)
            if solids:
                self.element_sets[name] = _pick({s: np.concatenate(r) for s, r in solids.items()}, self.solids)
            if faces:
                self.face_sets[name] = _pick({s: np.concatenate(r) for s, r in faces.items()}, self.faces)
            self.node_sets[name] = np.unique(np.concatenate(points))
        for name, pts in (m.point_sets or {}).items():
            self.node_sets[name] = np.unique(np.asarray(pts, np.int64))

    # ------------------------------------------------------------ geometry
    def volumes(self):
        """{shape: element volumes}."""
        return {s: element_volumes(s, self.points[c]) for s, c in self.solids.items()}

    def vector_areas(self, face_set=None):
        """{shape: ∫ n dA of each face} of all faces or of a named face set."""
        return self.vector_areas_of(self.faces if face_set is None else self.face_sets[face_set])

    def vector_areas_of(self, faces):
        """{shape: ∫ n dA of each face} of faces {shape: connectivity}."""
        return {s: face_vector_areas(s, self.points[c]) for s, c in faces.items()}

    def boundary_faces(self, node_set, name=None):
        """The faces of the solids on the boundary (in one element only) whose nodes all
        lie in a named node set (e.g. an Abaqus *NSET), oriented outward, kept as face set
        `name` (default: the node set's name); returns {surface shape: connectivity}."""
        inside = np.zeros(len(self.points), bool)
        inside[self.node_sets[node_set]] = True
        found, count = [], {}
        for shape, conn in self.solids.items():
            for surf, idx in facet_nodes(shape):
                F = conn[:, idx]
                keys = list(map(tuple, np.sort(F[:, :CORNERS[_FAMILY[surf]]], axis=1).tolist()))
                for key in keys:
                    count[key] = count.get(key, 0) + 1
                found.append((surf, F, keys))
        faces = {}
        for surf, F, keys in found:
            keep = inside[F].all(axis=1) & np.array([count[k] == 1 for k in keys], bool)
            if keep.any():
                faces.setdefault(surf, []).append(F[keep])
        faces = {s: np.concatenate(f) for s, f in faces.items()}
        self.face_sets[node_set if name is None else name] = faces
        return faces

    # ------------------------------------------------------------ into a model
    def add_to_model(self, model, law, density, node_kind="dynamic displacement", first_node_label=1,
                     first_element_label=1, upc=False, lumped_mass=False, element_set=None,
                     first_pressure_label=None, velocity=None):
        """Structural nodes at the points the elements use (labels from first_node_label, in
        point order; points already added keep their node) and one solid element per cell
        (labels from first_element_label).  `density`: a number or one value per point;
        `velocity`: the nodes' initial velocity, one 3-vector or one per point (n, 3).
        `upc`: u/p-c elements, with hydraulic nodes at the corners (one per element for
        hexahedron8upc), labelled from first_pressure_label (default: after the last
        structural label).  Returns ({point: node label}, {shape: element labels})."""
        solids = self.solids if element_set is None else self.element_sets[element_set]
        if upc and (bad := [s for s in solids if s not in UPC]):
            raise ValueError(f"{', '.join(bad)}: MBDyn has no u/p-c form")
        density = np.asarray(density, float)
        if density.ndim and density.shape != (len(self.points),):
            raise ValueError(f"density: a number or one value per point ({len(self.points)}), "
                             f"not shape {density.shape}")
        static = node_kind.split()[0] == "static"
        v0 = np.zeros((len(self.points), 3)) if velocity is None else \
            np.broadcast_to(np.asarray(velocity, float), (len(self.points), 3))
        used = np.unique(np.concatenate([c.ravel() for c in solids.values()])) if solids else []
        label = first_node_label
        for p in used:
            p = int(p)
            if p not in self.node_label:
                model.structural_node(label, node_kind, position=self.points[p], velocity=v0[p])
                self.node_label[p] = label
                label += 1
        plabel = first_pressure_label if first_pressure_label is not None else \
            max(self.node_label.values(), default=first_node_label - 1) + 1
        labels, elabel = {}, first_element_label
        for shape, conn in solids.items():
            name = UPC[shape][0] if upc else shape
            press = [None] * len(conn)
            if upc:
                press, plabel = self._pressure_nodes(model, shape, conn, plabel)
            out = labels[shape] = np.arange(elabel, elabel + len(conn))
            for e, pn, lab in zip(conn.tolist(), press, out.tolist()):
                model.solid(lab, name, [self.node_label[p] for p in e], law,
                            float(density) if not density.ndim else density[e].tolist(),
                            pressure_nodes=pn, lumped_mass=lumped_mass, static=static)
            elabel += len(conn)
        return {int(p): self.node_label[int(p)] for p in used}, labels

    def _pressure_nodes(self, model, shape, conn, label):
        """Hydraulic nodes of u/p-c elements (labels from `label`; existing ones kept):
        ([pressure node labels of each element], next label)."""
        npress = UPC[shape][1]
        if npress is None:                       # hexahedron8upc: one per element
            row = {tuple(r): i for i, r in enumerate(self.solids[shape].tolist())}
            keys = [[("element", shape, row[tuple(r)])] for r in conn.tolist()]
        else:                                    # at the corners, shared
            keys = conn[:, :npress].tolist()
        out = []
        for element in keys:
            for key in element:
                if key not in self.pressure_label:
                    model.hydraulic_node(label, value=0.0)
                    self.pressure_label[key] = label
                    label += 1
            out.append([self.pressure_label[k] for k in element])
        return out, label

    def _labels(self, points, what):
        try:
            return [self.node_label[int(p)] for p in points]
        except KeyError as e:
            raise KeyError(f"{what}: point {e.args[0]} has no node (add_to_model first)") from None

    def add_shells_to_model(self, model, D, kind="shell4easans", node_kind="static", face_set=None,
                            first_node_label=1, first_element_label=1, prestress=None, velocity=None):
        """Structural nodes (6 unknowns, identity orientation; points already added keep their
        node) at the corners of the 4-node quadrilaterals ("q4" faces: meshio's quad cells,
        whose order is the shell4 one) of the mesh or of a named face set, and one `kind`
        shell (shell4eas, shell4easans) per quadrilateral with the 12×12 law D.  Returns
        ({point: node label}, element labels)."""
        faces = self.faces if face_set is None else self.face_sets[face_set]
        others = sorted(s for s in faces if s != "q4")
        if others:
            raise ValueError(f"shells are 4-node quadrilaterals; the mesh also has {', '.join(others)} faces")
        conn = faces.get("q4", np.zeros((0, 4), np.int64))
        v0 = np.zeros((len(self.points), 3)) if velocity is None else \
            np.broadcast_to(np.asarray(velocity, float), (len(self.points), 3))
        used = np.unique(conn.ravel())
        label = first_node_label
        for p in used.tolist():
            if p not in self.node_label:
                model.structural_node(label, node_kind, position=self.points[p], velocity=v0[p])
                self.node_label[p] = label
                label += 1
        labels = np.arange(first_element_label, first_element_label + len(conn))
        for e, lab in zip(conn.tolist(), labels.tolist()):
            model.shell(lab, [self.node_label[p] for p in e], D, kind=kind, prestress=prestress)
        return {int(p): self.node_label[int(p)] for p in used}, labels

    def hold(self, model, holds, first_label):
        """Hold position components (1, 2, 3: x, y, z) and rotation components (about x, y, z)
        of the structural nodes of named sets at their initial values: `holds` {node set:
        (positions, rotations)} (symmetry planes, simple supports, clamps).  A node in several
        sets gets one total pin joint holding the union of their components.  Returns the
        joint labels."""
        wanted = {}
        for name, (positions, rotations) in holds.items():
            for p in self.node_sets[name].tolist():
                pos, rot = wanted.setdefault(p, (set(), set()))
                pos.update(positions)
                rot.update(rotations)
        labels, label = [], first_label
        for p, (pos, rot) in sorted(wanted.items()):
            node = self._labels([p], "hold")[0]
            model.total_pin_joint(label, node, absolute_position=self.points[p],
                                  position_status=tuple("active" if k in pos else "inactive" for k in (1, 2, 3)),
                                  orientation_status=tuple("active" if k in rot else "inactive" for k in (1, 2, 3)))
            labels.append(label)
            label += 1
        return labels

    def shell_load(self, model, load_per_area, first_label, face_set=None):
        """An absolute load per unit area (3-vector, e.g. a self-weight) on the quadrilaterals
        of the mesh or of a named face set, as the consistent nodal forces of the bilinear
        interpolation (one structural force per loaded node); returns the labels."""
        faces = self.faces if face_set is None else self.face_sets[face_set]
        conn = faces.get("q4", np.zeros((0, 4), np.int64))
        F = nodal_loads(self.points, conn, load_per_area)
        labels, label = [], first_label
        for p in np.unique(conn.ravel()).tolist():
            model.force(label, self._labels([p], "shell load")[0], F[p], "absolute")
            labels.append(label)
            label += 1
        return labels

    def clamp(self, model, node_set, first_label, components=(1, 2, 3)):
        """Clamp the displacement components (1, 2, 3: x, y, z) of the nodes of a named set
        at their initial values (genel clamp); returns the labels."""
        labels, label = [], first_label
        for node in self._labels(self.node_sets[node_set], f"clamp {node_set!r}"):
            for c in components:
                model.genel_clamp(label, node, node_type="structural", index=int(c), value=None)
                labels.append(label)
                label += 1
        return labels

    def _face_loads(self, face_set, first_label, value, add, per_point):
        faces = self.faces if face_set is None else self.face_sets[face_set]
        labels, label = [], first_label
        for shape, conn in faces.items():
            for f in conn.tolist():
                add(label, shape, self._labels(f, f"face set {face_set!r}"),
                    np.asarray(value)[f].tolist() if per_point else value)
                labels.append(label)
                label += 1
        return labels

    def pressure(self, model, face_set, pressure, first_label):
        """A pressure load on every face of a named set (None: all faces): `pressure` a
        number, a drive or one value per point; returns the labels."""
        per_point = np.ndim(pressure) == 1 and len(pressure) == len(self.points)
        return self._face_loads(face_set, first_label, pressure,
                                lambda lab, shape, nodes, p: model.pressure_load(lab, shape, nodes, p), per_point)

    def traction(self, model, face_set, traction, first_label, absolute=False):
        """A surface traction on every face of a named set (None: all faces): `traction` a
        3-vector, a vector drive or one 3-vector per point (n, 3); returns the labels."""
        per_point = np.shape(traction) == (len(self.points), 3)
        return self._face_loads(face_set, first_label, traction,
                                lambda lab, shape, nodes, t: model.traction_load(lab, shape, nodes, t,
                                                                                absolute=absolute), per_point)
