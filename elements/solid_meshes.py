"""Block meshes of every solid shape (tests, benchmarks and examples): a box of n³ cells, each
cell one hexahedron, two wedges or six tetrahedra (Kuhn's split), element nodes placed by
mapping the shape's natural node coordinates into the cell and merged where they coincide,
then optionally distorted (corner nodes moved at random, edges kept straight)."""
import itertools
import numpy as np

from mbdae.elements.solid_shapes import solid_shape, ShapeFunctions


def _cell_maps(kind, corner, h):
    """Maps from the reference element to the pieces of the cell at `corner` (size h)."""
    c = np.asarray(corner, float)
    if kind == "hex":
        return [lambda r, c=c: c + h * (np.asarray(r) + 1.0) / 2.0]
    if kind == "wedge":
        def lower(r, c=c):
            r = np.asarray(r)
            return c + h * np.stack([r[:, 0], r[:, 1], (r[:, 2] + 1) / 2], axis=1)

        def upper(r, c=c):
            r = np.asarray(r)
            return c + h * np.stack([1 - r[:, 0], 1 - r[:, 1], (r[:, 2] + 1) / 2], axis=1)
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
        maps.append(lambda r, A=A, c=c: c + h * (np.asarray(r) @ A.T))
    return maps


def block_mesh(shape, n=2, size=1.0, distortion=0.0, rng=None):
    """(points (m, 3), connectivity (ne, N) point indices in MBDyn's node order, on the
    box's boundary (m,)) of a box [0, size]³ meshed with `shape` elements; `distortion`
    moves every point by up to that fraction of the cell size (uniformly at random)."""
    sh = solid_shape(shape)
    kind = "hex" if shape.startswith("hexa") else "wedge" if shape.startswith("penta") else "tet"
    h = size / n
    ref = sh.shape.nodes
    points, conn, index = [], [], {}
    for corner in itertools.product(range(n), repeat=3):
        for f in _cell_maps(kind, np.array(corner) * h, h):
            X = f(ref)
            ids = []
            for x in X:
                key = tuple(np.round(x / h * 1e6).astype(np.int64))
                if key not in index:
                    index[key] = len(points)
                    points.append(x)
                ids.append(index[key])
            conn.append(ids)
    P = np.array(points)
    on_boundary = np.any((P < 1e-9 * size) | (P > size * (1 - 1e-9)), axis=1)
    conn = np.array(conn, np.int64)
    if distortion:
        # move the corner nodes, then put every other node where the element's linear
        # (trilinear, wedge or tetrahedral) corner map places it: straight edges, the
        # distortion a constant-stress patch must tolerate
        rng = rng or np.random.default_rng(0)
        corners = np.unique(conn[:, :sh.corners])
        P[corners] += distortion * h * rng.uniform(-0.5, 0.5, (len(corners), 3))
        space = {8: "hex8", 6: "wedge6", 4: "tet4"}[sh.corners]
        lin = ShapeFunctions(tuple(ref[:sh.corners].T), space)
        H = lin.h(ref)                                   # (N, corners)
        for e in conn:
            P[e[sh.corners:]] = H[sh.corners:] @ P[e[:sh.corners]]
    return P, conn, on_boundary
