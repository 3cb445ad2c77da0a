"""Structured meshes of every solid shape (tests, benchmarks and examples): a box of cells,
each cell one hexahedron, two wedges (prisms along z) or six tetrahedra (Kuhn's split),
element nodes placed by mapping the shape's natural node coordinates into the cell and
merged where they coincide; optionally the box is then mapped onto another domain (every
node, midside ones too: isoparametric curved edges), or its corner nodes distorted at
random (edges kept straight).

- block_mesh: the cube [0, size]³ of n³ cells (distortion optional);
- box_mesh: a box of (nx, ny, nz) cells, any lengths, any mapping of the box;
- cook_membrane_mesh: Cook's tapered panel (0,0), (48,44), (48,60), (0,44), extruded;
- thick_cylinder_mesh: a quarter of a thick-walled ring a ≤ r ≤ b, extruded;
- faces_on: the element faces (surface shape, node indices) lying in a set of points."""
import itertools
import math
import numpy as np

from mbdae.elements.solid_shapes import solid_shape, ShapeFunctions
from mbdae.elements.surface_load import solid_faces


def _kind(shape):
    return "hex" if shape.startswith("hexa") else "wedge" if shape.startswith("penta") else "tet"


def _unit_cell_maps(kind):
    """Maps from the reference element to the pieces of the unit cell [0, 1]³."""
    if kind == "hex":
        return [lambda r: (np.asarray(r) + 1.0) / 2.0]
    if kind == "wedge":
        def lower(r):
            r = np.asarray(r)
            return np.stack([r[:, 0], r[:, 1], (r[:, 2] + 1) / 2], axis=1)

        def upper(r):
            r = np.asarray(r)
            return np.stack([1 - r[:, 0], 1 - r[:, 1], (r[:, 2] + 1) / 2], axis=1)
        return [lower, upper]
    maps = []
    for perm in itertools.permutations(range(3)):
        v = [np.zeros(3)]
        for axis in perm:
            w = v[-1].copy()
            w[axis] = 1.0
            v.append(w)
        V = np.array(v)
        A = np.stack([V[1] - V[0], V[2] - V[0], V[3] - V[0]], axis=1)
        if np.linalg.det(A) < 0:
            A[:, [1, 2]] = A[:, [2, 1]]
        maps.append(lambda r, A=A: np.asarray(r) @ A.T)
    return maps


def box_mesh(shape, cells, lengths=(1.0, 1.0, 1.0), mapping=None, distortion=0.0, rng=None):
    """(points (m, 3), connectivity (ne, N) point indices in MBDyn's node order, lattice
    (m, 3) integers) of the box [0, Lx]×[0, Ly]×[0, Lz] of (nx, ny, nz) cells of `shape`
    elements (any solid shape, u/p-c ones too); `lattice` is twice each point's grid
    coordinate (0 ... 2 n along each axis: exact face and edge selection whatever the
    mapping).  `distortion`: the corner nodes moved at random by up to that fraction of
    the cell size, those on a side of the box within its plane, every other node then
    placed by its element's linear corner map (straight edges: the distorted patch of the
    constant-stress tests).  `mapping`, if given, then takes the box points (m, 3) to the
    domain's (m, 3); it must keep the Jacobian positive."""
    sh = solid_shape(shape)
    n = np.asarray(cells, np.int64)
    L = np.asarray(lengths, float)
    ref = sh.shape.nodes
    pieces = [f(ref) for f in _unit_cell_maps(_kind(shape))]        # (N, 3) in cell units
    keys, index, conn = [], {}, []
    for ijk in itertools.product(*(range(c) for c in n)):
        for U in pieces:
            K = np.rint(2.0 * (np.array(ijk) + U)).astype(np.int64)
            ids = []
            for key in map(tuple, K):
                if key not in index:
                    index[key] = len(keys)
                    keys.append(key)
                ids.append(index[key])
            conn.append(ids)
    lattice = np.array(keys, np.int64)
    P = lattice * (L / (2 * n))
    conn = np.array(conn, np.int64)
    if distortion:
        rng = rng or np.random.default_rng(0)
        corners = np.unique(conn[:, :sh.corners])
        inside = (lattice[corners] > 0) & (lattice[corners] < 2 * n)
        P[corners] += np.where(inside, distortion * (L / n) * rng.uniform(-0.5, 0.5, (len(corners), 3)), 0.0)
        _straight_edges(sh, P, conn)
    if mapping is not None:
        P = np.asarray(mapping(P), float)
    return P, conn, lattice


def _straight_edges(sh, P, conn):
    """Every node but the corners where its element's linear (trilinear, wedge or
    tetrahedral) corner map places it."""
    ref = sh.shape.nodes
    space = {8: "hex8", 6: "wedge6", 4: "tet4"}[sh.corners]
    H = ShapeFunctions(tuple(ref[:sh.corners].T), space).h(ref)          # (N, corners)
    for e in conn:
        P[e[sh.corners:]] = H[sh.corners:] @ P[e[:sh.corners]]


def block_mesh(shape, n=2, size=1.0, distortion=0.0, rng=None):
    """(points (m, 3), connectivity (ne, N) point indices in MBDyn's node order, on the
    box's boundary (m,)) of a box [0, size]³ meshed with `shape` elements; `distortion`
    moves every point by up to that fraction of the cell size (uniformly at random)."""
    sh = solid_shape(shape)
    P, conn, lattice = box_mesh(shape, (n, n, n), (size, size, size))
    on_boundary = np.any((lattice == 0) | (lattice == 2 * n), axis=1)
    if distortion:
        # move the corner nodes, then put every other node where the element's linear
        # (trilinear, wedge or tetrahedral) corner map places it: straight edges, the
        # distortion a constant-stress patch must tolerate
        h = size / n
        rng = rng or np.random.default_rng(0)
        corners = np.unique(conn[:, :sh.corners])
        P[corners] += distortion * h * rng.uniform(-0.5, 0.5, (len(corners), 3))
        _straight_edges(sh, P, conn)
    return P, conn, on_boundary


def cook_membrane_mesh(shape, n, thickness=1.0):
    """Cook's membrane (Cook 1974): the panel with corners (0, 0), (48, 44), (48, 60),
    (0, 44), n × n cells in the plane (the bilinear map of the unit square: straight
    edges), one cell through the thickness 0 ≤ z ≤ thickness.  Returns box_mesh's tuple:
    lattice[:, 0] = 0 on the clamped edge x = 0, 2n on the loaded edge x = 48."""
    def panel(P):
        s, t = P[:, 0], P[:, 1]
        return np.column_stack([48.0 * s, 44.0 * s + t * (44.0 - 28.0 * s), P[:, 2]])
    return box_mesh(shape, (n, n, 1), (1.0, 1.0, thickness), panel)


def thick_cylinder_mesh(shape, n_radial, n_hoop, a, b, thickness=1.0):
    """A quarter of the ring a ≤ r ≤ b, 0 ≤ θ ≤ π/2, n_radial × n_hoop cells, one cell
    through the thickness 0 ≤ z ≤ thickness; every node on its circle (curved edges for
    the quadratic shapes).  Returns box_mesh's tuple: lattice[:, 0] = 0 on the inner face,
    2 n_radial on the outer one; lattice[:, 1] = 0 on θ = 0 (y = 0), 2 n_hoop on θ = π/2
    (x = 0)."""
    def ring(P):
        r = a + (b - a) * P[:, 0]
        theta = 0.5 * math.pi * P[:, 1]
        return np.column_stack([r * np.cos(theta), r * np.sin(theta), P[:, 2]])
    return box_mesh(shape, (n_radial, n_hoop, 1), (1.0, 1.0, thickness), ring)


def faces_on(shape, conn, inside):
    """The faces of the elements whose nodes all lie in the point set `inside` (a boolean
    mask): [(surface shape, point indices in the surface's node order, normal outward)]
    (on the boundary of a box mesh: the faces of one of its sides)."""
    found = []
    for e in conn:
        for face in solid_faces(shape):
            nodes = e[list(face.nodes)]
            if inside[nodes].all():
                found.append((face.surface, nodes))
    return found
