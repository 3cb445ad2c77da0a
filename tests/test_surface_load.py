"""Surface loads (elements/surface_load.py, theory manual §12.0.7) against physics:

- a uniform pressure on a flat or curved face gives the total force -p ∫n dA, the area
  vector computed independently by Stokes' theorem, ½∮ x × dx along the face's edges;
- on a closed surface (the faces of a curved solid element, from `solid_faces`) a uniform
  pressure gives zero total force and moment, the nodal loads are -p ∂V/∂x̂ with V the
  element's volume (from the solid's own shape functions), so the virtual work is -p δV,
  and the load stiffness is p ∂²V/∂x̂² (symmetric: the load is conservative);
- tractions: a uniform absolute traction gives t·A and is a dead load; a relative one turns
  with a rigid rotation of the surface (objectivity) and grows with its area;
- the faces table matches the pressure faces of MBDyn's own solid test meshes;
- constant-stress patch tests: blocks of distorted solids of every shape, symmetry supports
  on three faces and a uniform pressure on the opposite one, solved statically, reproduce
  the uniaxial-stress closed form of the St. Venant–Kirchhoff law (small and large strain);
- the deck cards, and their errors naming file, line and word."""
import glob
import itertools
import os
import re

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.sparse.linalg import spsolve

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.drives import ConstDrive, TimeDrive
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic, hookean_matrix
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from mbdae.elements.solid_shapes import solid_shape, surface_shape, SURFACE_SHAPES, SOLID_SHAPES, ShapeFunctions
from mbdae.elements.surface_load import solid_faces, curved_surface_nodes
from mbdae.elements.solid_meshes import block_mesh

HERE = os.path.dirname(__file__)
SOLID_TESTS = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "solid")
BASE_SHAPES = ("hexahedron8", "hexahedron20", "hexahedron20r", "hexahedron27", "pentahedron15", "tetrahedron10")


# ---------------------------------------------------------------------- helpers
def load_system(X, add_loads, abstract=()):
    """A System of static displacement nodes 1..n at X, with the loads `add_loads(model)`."""
    m = Model()
    for k, x in enumerate(X, start=1):
        m.structural_node(k, "static displacement", position=x)
    for label, value in abstract:
        m.abstract_node(label, "algebraic", value=value)
    add_loads(m)
    return System(m)


def nodal_loads(system, x=None, t=0.0):
    """The loads on the structural nodes (n, 3) at positions x (default: the reference)."""
    st = system.initial_state(t)
    if x is not None:
        st.y[system.nodes.ix] = x
    f, _, _ = system.evaluate(st, 1.0, want_jac=False)
    return -f[system.nodes.ix]


def load_jacobian(system, x):
    """∂r/∂x̂ (3n, 3n) of the node rows at positions x (static nodes, dCoef = 1)."""
    st = system.initial_state(0.0)
    st.y[system.nodes.ix] = x
    _, _, J = system.evaluate(st, 1.0)
    ix = system.nodes.ix.ravel()
    return J.toarray()[np.ix_(ix, ix)]


def boundary_edges(shape):
    """The edges of a surface shape, counterclockwise in its natural coordinates, as node
    index tuples (corner, [midside,] corner)."""
    xi = surface_shape(shape).shape.nodes
    nc = 3 if shape == "t6" else 4
    d1, d2 = xi[1] - xi[0], xi[2] - xi[0]
    assert d1[0] * d2[1] - d1[1] * d2[0] > 0                     # counterclockwise corners
    if shape == "q4":
        return [(i, (i + 1) % nc) for i in range(nc)]
    edges = []
    for i in range(nc):
        a, b = i, (i + 1) % nc
        mid = [k for k in range(nc, len(xi)) if np.allclose(xi[k], 0.5 * (xi[a] + xi[b]))]
        edges.append((a, mid[0], b))
    return edges


def area_vector(X, shape):
    """∫ n dA = ½ ∮ x × dx (Stokes) along the edges, each the Lagrange curve through its
    nodes, integrated exactly (Gauss, 4 points, for a cubic integrand)."""
    s, w = np.polynomial.legendre.leggauss(4)
    total = np.zeros(3)
    for edge in boundary_edges(shape):
        P = X[list(edge)]
        if len(edge) == 2:
            h = np.column_stack([(1 - s) / 2, (1 + s) / 2])
            dh = np.tile([-0.5, 0.5], (len(s), 1))
        else:
            h = np.column_stack([s * (s - 1) / 2, 1 - s * s, s * (s + 1) / 2])
            dh = np.column_stack([s - 0.5, -2 * s, s + 0.5])
        total += 0.5 * np.einsum("g,gi->i", w, np.cross(h @ P, dh @ P))
    return total


def element_volume(shape, x):
    """(V, ∂V/∂x (N, 3)) of a solid element with node positions x, by its shape functions
    and its consistent-mass rule (exact for det J of the quadratic shapes)."""
    sh = solid_shape(shape)
    points, weights = sh.mass_rule
    dh = sh.shape.dh(points)                                   # (g, N, 3)
    J = np.einsum("gki,kj->gij", dh, x)
    det = np.linalg.det(J)
    inv = np.linalg.inv(J)
    V = np.dot(weights, det)
    dV = np.einsum("g,g,gji,gki->kj", weights, det, inv, dh)
    return V, dV


def curved_element(shape, rng, distortion=0.15):
    """A curved, distorted element: the reference nodes moved at random (midside nodes too)."""
    X = solid_shape(shape).shape.nodes
    return X + distortion * rng.uniform(-1, 1, X.shape)


def closed_surface(shape):
    """Pressure loads on every face of one `shape` element (nodes 1..N), pressure 1.5."""
    def add(m):
        for k, face in enumerate(solid_faces(shape), start=1):
            m.pressure_load(k, face.surface, [n + 1 for n in face.nodes], pressure=1.5)
    return add


# ---------------------------------------------------------------------- pressure: total force
@pytest.mark.parametrize("shape", SURFACE_SHAPES)
@pytest.mark.parametrize("distortion", [0.0, 0.3])
def test_uniform_pressure_total_force_is_p_times_area_vector(shape, distortion):
    """Σ f̂_k = -p ∫ n dA on flat (distortion 0: in-plane only) and curved faces, also at a
    deformed state."""
    rng = np.random.default_rng(11)
    X = curved_surface_nodes(shape, rng, size=2.0, distortion=0.0)
    if distortion:
        X = X + distortion * rng.uniform(-0.5, 0.5, X.shape)
    else:                                           # in-plane distortion of a flat face
        n = np.cross(X[1] - X[0], X[2] - X[0])
        d = rng.uniform(-0.2, 0.2, X.shape)
        X = X + d - np.outer(d @ n, n) / (n @ n)
    p = 3.7
    system = load_system(X, lambda m: m.pressure_load(1, shape, range(1, len(X) + 1), pressure=p))
    A = area_vector(X, shape)
    F = nodal_loads(system).sum(axis=0)
    assert np.allclose(F, -p * A, rtol=0, atol=1e-13 * p * np.linalg.norm(A))
    x = X + 0.2 * rng.normal(size=X.shape)
    F = nodal_loads(system, x).sum(axis=0)
    assert np.allclose(F, -p * area_vector(x, shape), rtol=0, atol=1e-13 * p * np.linalg.norm(A))


def test_flat_square_pressure_nodal_loads():
    """A unit square q4 under p: a quarter of -p n̂ on each node (n̂ = +z for the
    counterclockwise node order)."""
    X = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0], [1, 0, 0]], float)
    system = load_system(X, lambda m: m.pressure_load(1, "q4", [1, 2, 3, 4], pressure=2.0))
    assert np.allclose(nodal_loads(system), np.tile([0, 0, -0.5], (4, 1)), atol=1e-15)


def test_pressure_from_drives_and_from_abstract_nodes_agree():
    """The same nodal pressures from drives (one per node, at time t) and from abstract
    nodes give the same loads."""
    rng = np.random.default_rng(3)
    X = curved_surface_nodes("q8", rng)
    values = rng.uniform(1, 2, 8)
    a = load_system(X, lambda m: m.pressure_load(1, "q8", range(1, 9), pressure=[ConstDrive(v) for v in values]))
    b = load_system(X, lambda m: m.pressure_load(1, "q8", range(1, 9), pressure_nodes=range(50, 58)),
                    abstract=list(zip(range(50, 58), values)))
    assert np.allclose(nodal_loads(a), nodal_loads(b), rtol=1e-14, atol=0)
    c = load_system(X, lambda m: m.pressure_load(1, "q8", range(1, 9), pressure=TimeDrive()))
    d = load_system(X, lambda m: m.pressure_load(1, "q8", range(1, 9), pressure=1.0))
    assert np.allclose(nodal_loads(c, t=2.5), 2.5 * nodal_loads(d), rtol=1e-14, atol=0)


def test_model_method_errors():
    X = curved_surface_nodes("q4", np.random.default_rng(1))
    m = Model()
    with pytest.raises(ValueError, match="unknown shape 'q6'"):
        m.pressure_load(1, "q6", [1, 2, 3, 4], pressure=1.0)
    with pytest.raises(ValueError, match="pressureq4 1: 4 nodes required, got 3"):
        m.pressure_load(1, "q4", [1, 2, 3], pressure=1.0)
    with pytest.raises(ValueError, match="either pressure"):
        m.pressure_load(1, "q4", [1, 2, 3, 4], pressure=1.0, pressure_nodes=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="tractionq4 1: 4 nodal tractions required, got 2"):
        m.traction_load(1, "q4", [1, 2, 3, 4], [(1, 0, 0), (0, 1, 0)])
    with pytest.raises(ValueError, match="tractionq4 1: 4 orientation matrices"):
        m.traction_load(1, "q4", [1, 2, 3, 4], (1, 0, 0), orientations=[np.eye(3)] * 9)
    m.pressure_load(1, "q4", [1, 2, 3, 4], pressure=1.0)
    with pytest.raises(ValueError, match="surface load 1 is already defined"):
        m.traction_load(1, "q4", [1, 2, 3, 4], (1, 0, 0))
    with pytest.raises(ValueError, match="pressureq4 2: abstract node 7 is not defined"):
        load_system(X, lambda m: m.pressure_load(2, "q4", [1, 2, 3, 4], pressure_nodes=[7, 7, 7, 7]))
    with pytest.raises(ValueError, match="pressureq4 2: structural node 9 is not defined"):
        load_system(X, lambda m: m.pressure_load(2, "q4", [1, 2, 3, 9], pressure=1.0))
    with pytest.raises(ValueError, match="tractionq4 3: degenerate surface"):
        load_system(X, lambda m: m.traction_load(3, "q4", [1, 1, 2, 2], (1, 0, 0)))


# ---------------------------------------------------------------------- pressure: closed surfaces
@pytest.mark.parametrize("shape", BASE_SHAPES)
def test_closed_surface_zero_force_and_moment(shape):
    """The faces of a curved element under a uniform pressure: Σ f̂ = 0 and Σ x̂ × f̂ = 0,
    at the reference and at a deformed state."""
    rng = np.random.default_rng(5)
    X = curved_element(shape, rng)
    system = load_system(X, closed_surface(shape))
    for x in (X, X + 0.1 * rng.normal(size=X.shape)):
        f = nodal_loads(system, x)
        scale = np.abs(f).max()
        assert np.abs(f.sum(axis=0)).max() < 1e-13 * scale
        assert np.abs(np.cross(x, f).sum(axis=0)).max() < 1e-13 * scale


@pytest.mark.parametrize("shape", BASE_SHAPES)
def test_closed_surface_virtual_work_is_minus_p_volume_change(shape):
    """f̂ = -p ∂V/∂x̂ node by node (δW = f̂·δx̂ = -p δV for every δx̂), V from the solid's
    shape functions; and to first order along a random direction, by differences of V."""
    rng = np.random.default_rng(7)
    X = curved_element(shape, rng)
    x = X + 0.1 * rng.normal(size=X.shape)
    system = load_system(X, closed_surface(shape))
    f = nodal_loads(system, x)
    V, dV = element_volume(shape, x)
    assert V > 0
    assert np.allclose(f, -1.5 * dV, rtol=0, atol=1e-12 * np.abs(f).max())
    d = rng.normal(size=x.shape)
    eps = 1e-5
    dVd = (element_volume(shape, x + eps * d)[0] - element_volume(shape, x - eps * d)[0]) / (2 * eps)
    assert np.isclose(np.sum(f * d), -1.5 * dVd, rtol=1e-8)


@pytest.mark.parametrize("shape", BASE_SHAPES)
def test_closed_surface_load_stiffness_is_p_times_volume_hessian(shape):
    """The Jacobian of the pressure rows, ∂r/∂x̂ = -∂f̂/∂x̂ = p ∂²V/∂x̂²: symmetric (the load
    is conservative) and equal to the differences of the exact volume gradient."""
    rng = np.random.default_rng(9)
    X = curved_element(shape, rng)
    x = X + 0.1 * rng.normal(size=X.shape)
    system = load_system(X, closed_surface(shape))
    J = load_jacobian(system, x)
    n = x.size
    H = np.empty((n, n))
    eps = 1e-6
    for j in range(n):
        e = np.zeros(n)
        e[j] = eps
        H[:, j] = (element_volume(shape, x + e.reshape(x.shape))[1] -
                   element_volume(shape, x - e.reshape(x.shape))[1]).ravel() / (2 * eps)
    scale = np.abs(J).max()
    assert np.abs(J - J.T).max() < 1e-12 * scale
    assert np.abs(J - 1.5 * H).max() < 1e-7 * scale


# ---------------------------------------------------------------------- tractions
@pytest.mark.parametrize("shape", SURFACE_SHAPES)
def test_uniform_absolute_traction_total_force_and_dead_load(shape):
    """A uniform absolute traction on a flat face: Σ f̂ = R_f t A; unchanged when the
    surface moves or deforms (the reference area, the global frame)."""
    rng = np.random.default_rng(13)
    X = curved_surface_nodes(shape, rng, size=2.0, distortion=0.0)
    t = np.array([0.3, -1.2, 2.0])
    Rf = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    Rf *= np.sign(np.linalg.det(Rf))
    system = load_system(X, lambda m: m.traction_load(1, shape, range(1, len(X) + 1), t, orientations=Rf,
                                                      absolute=True))
    A = np.linalg.norm(area_vector(X, shape))
    f0 = nodal_loads(system)
    assert np.allclose(f0.sum(axis=0), Rf @ t * A, rtol=0, atol=1e-13 * A * np.linalg.norm(t))
    f1 = nodal_loads(system, X + 0.3 * rng.normal(size=X.shape))
    assert np.array_equal(f0, f1)


@pytest.mark.parametrize("shape", SURFACE_SHAPES)
def test_relative_traction_objectivity_and_stretch(shape):
    """A relative traction: at the reference, the absolute one; after a rigid motion
    x → Q x + c of a curved surface, Q times the loads; after an in-plane stretch of a flat
    face in its own axes, the same global traction on the stretched area."""
    rng = np.random.default_rng(17)
    X = curved_surface_nodes(shape, rng, distortion=0.3)
    N = len(X)
    tr = [VectorDrive.constant(rng.normal(size=3)) for _ in range(N)]
    rel = load_system(X, lambda m: m.traction_load(1, shape, range(1, N + 1), tr))
    ab = load_system(X, lambda m: m.traction_load(1, shape, range(1, N + 1), tr, absolute=True))
    f = nodal_loads(rel)
    assert np.allclose(f, nodal_loads(ab), rtol=0, atol=1e-14 * np.abs(f).max())
    x = X + 0.1 * rng.normal(size=X.shape)
    Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    Q *= np.sign(np.linalg.det(Q))
    f = nodal_loads(rel, x)
    fq = nodal_loads(rel, x @ Q.T + rng.normal(size=3))
    assert np.allclose(fq, f @ Q.T, rtol=0, atol=1e-13 * np.abs(f).max())
    # a flat face in the x-y plane, e1 along x at every point: stretched by (2, 3) in-plane
    xi = surface_shape(shape).shape.nodes
    F = np.column_stack([xi, np.zeros(N)])
    t = np.array([0.5, -0.25, 1.0])
    flat = load_system(F, lambda m: m.traction_load(1, shape, range(1, N + 1), t))
    A = np.linalg.norm(area_vector(F, shape))
    f = nodal_loads(flat, F * [2.0, 3.0, 1.0])
    assert np.allclose(f.sum(axis=0), 6.0 * A * t, rtol=0, atol=1e-13 * A)


# ---------------------------------------------------------------------- faces table
def test_faces_of_every_solid_shape():
    """Every solid shape (u/p-c variants too): 6, 5 or 4 faces, each with its surface
    shape's number of nodes, all on one face plane, and x,r1 × x,r2 of the face (on the
    reference element, at every integration point) along the outward normal."""
    for shape in SOLID_SHAPES:
        faces = solid_faces(shape)
        sh = solid_shape(shape)
        assert len(faces) == {8: 6, 6: 5, 4: 4}[sh.corners]
        assert len({frozenset(f.nodes) for f in faces}) == len(faces)
        for face in faces:
            ss = surface_shape(face.surface)
            assert len(face.nodes) == ss.n_nodes
            R = sh.shape.nodes[list(face.nodes)]
            m = np.asarray(face.normal)
            assert np.ptp(R @ m) < 1e-14                          # on one plane
            assert (R @ m)[0] > sh.shape.nodes.mean(axis=0) @ m    # on the outer side
            dh = ss.shape.dh(ss.rule[0])                           # (g, N, 2)
            n = np.cross(dh[:, :, 0] @ R, dh[:, :, 1] @ R)
            assert np.allclose(n / np.linalg.norm(n, axis=1)[:, None], m, atol=1e-14)


def _elm_cards(path):
    """(solids [(shape, node labels)], pressure faces [(shape, node labels)]) of an .elm file."""
    solids, loads = [], []
    for card in open(path).read().split(";"):
        m = re.match(r"\s*([a-z0-9]+)\s*:(.*)", card, re.S)
        if not m:
            continue
        name, words = m.group(1), [w.strip() for w in m.group(2).split(",")][1:]
        if name in SOLID_SHAPES:
            ints = [int(w) for w in words if re.fullmatch(r"\d+", w)]
            solids.append((name, ints[:solid_shape(name).n_nodes]))
        elif name.startswith("pressure"):
            shape = name[len("pressure"):]
            loads.append((shape, [int(w) for w in words[:surface_shape(shape).n_nodes]]))
    return solids, loads


@pytest.mark.skipif(not os.path.isdir(SOLID_TESTS), reason="MBDyn's solid test decks are not available")
def test_faces_match_the_pressure_faces_of_mbdyn_test_meshes():
    """Every pressure card of MBDyn's solid tests (meshes by Gmsh, read in place) loads a
    face of one of its solids in the order `solid_faces` gives, up to the starting corner:
    the same surface shape, the same cycle, the same (outward) orientation."""
    checked = 0
    for path in sorted(glob.glob(os.path.join(SOLID_TESTS, "*", "*.elm"))):
        solids, loads = _elm_cards(path)
        faces = {}
        for shape, nodes in solids:
            for face in solid_faces(shape):
                labels = [nodes[i] for i in face.nodes]
                faces[frozenset(labels)] = (face.surface, labels)
        for shape, labels in loads:
            surface, ours = faces[frozenset(labels)]
            assert surface == shape
            nc = 3 if shape == "t6" else 4
            shifts = [ours[:nc][i:] + ours[:nc][:i] for i in range(nc)]
            assert labels[:nc] in shifts, (path, labels, ours)
            i = shifts.index(labels[:nc])
            mids = ours[nc:2 * nc]                     # the midside node of edge j follows corner j
            assert labels == shifts[i] + mids[i:] + mids[:i] + ours[2 * nc:], (path, labels, ours)
            checked += 1
    assert checked > 500


# ---------------------------------------------------------------------- patch tests
def lattice_mesh(shape, cells, lengths, rng, distortion=0.4):
    """A block [0, L]³ of `shape` solids on a distorted grid of cells: corner points moved
    at random (boundary points within their planes), straight edges; hexahedra one per
    cell, pentahedra two per cell (prisms along z), tetrahedra six per cell (Kuhn).
    Returns (X (n, 3), lattice (n, 3) integer keys (2 × grid index), elements [(N,)])."""
    n = np.asarray(cells)
    L = np.asarray(lengths, float)
    grid = {}
    for ijk in itertools.product(*(range(c + 1) for c in n)):
        ijk = np.array(ijk)
        p = ijk * L / n
        move = (ijk > 0) & (ijk < n)
        p = p + np.where(move, distortion * (L / n) * rng.uniform(-0.5, 0.5, 3), 0.0)
        grid[tuple(ijk)] = p
    sh = solid_shape(shape)
    space = {8: "hex8", 6: "wedge6", 4: "tet4"}[sh.corners]
    corners = ShapeFunctions(tuple(sh.shape.nodes[:sh.corners].T), space)
    hc = corners.h(sh.shape.nodes)                               # (N, corners)
    pieces = _cell_pieces(sh)
    keys, X, elements = {}, [], []
    for ijk in itertools.product(*(range(c) for c in n)):
        for unit in pieces:                                      # corners in cell units
            C = np.array([grid[tuple(np.array(ijk) + u)] for u in unit])
            K = 2 * (np.array(ijk) + np.array(unit))
            elem = []
            for k in range(sh.n_nodes):
                key = tuple(int(round(v)) for v in hc[k] @ K)
                if key not in keys:
                    keys[key] = len(X)
                    X.append(hc[k] @ C)
                elem.append(keys[key])
            elements.append(elem)
    lattice = np.zeros((len(X), 3), np.int64)
    for key, i in keys.items():
        lattice[i] = key
    return np.array(X), lattice, elements


def _cell_pieces(sh):
    """The corners (cell units) of the elements of one cell, in the solid's corner order."""
    if sh.corners == 8:                    # hexahedron: natural r → cell (r + 1)/2
        return [((sh.shape.nodes[:8] + 1) / 2).astype(int)]
    if sh.corners == 6:                     # two prisms along z, diagonal (0,0)-(1,1)
        pieces = []
        for tri in (((0, 0), (1, 0), (1, 1)), ((0, 0), (1, 1), (0, 1))):
            pieces.append(np.array([(a, b, 0) for a, b in tri] + [(a, b, 1) for a, b in tri]))
        return pieces
    # six Kuhn tetrahedra along the diagonal (0,0,0)-(1,1,1); natural corners of
    # tetrahedron10: node 1 s, node 2 t, node 3 origin, node 4 r
    pieces = []
    for perm in itertools.permutations(range(3)):
        u0 = np.zeros(3, int)
        u1 = u0 + np.eye(3, dtype=int)[perm[0]]
        u2 = u1 + np.eye(3, dtype=int)[perm[1]]
        u3 = np.ones(3, int)
        r, s, t = u1 - u0, u2 - u0, u3 - u0
        if np.linalg.det(np.array([r, s, t])) > 0:
            pieces.append(np.array([u2, u3, u0, u1]))
        else:
            pieces.append(np.array([u3, u2, u0, u1]))
    return pieces


def uniaxial_closed_form(p, E, nu):
    """(λ1, λ2) of uniaxial Cauchy stress σ11 = -p under St. Venant–Kirchhoff: F = diag(λ1,
    λ2, λ2), S = D E, S22 = 0, σ11 = λ1 S11/λ2²."""
    D = hookean_matrix(E, nu)

    def stretches(l1):
        E1 = 0.5 * (l1 * l1 - 1.0)
        E2 = -D[1, 0] * E1 / (D[1, 1] + D[1, 2])
        S11 = D[0, 0] * E1 + 2 * D[0, 1] * E2
        l2 = np.sqrt(1.0 + 2.0 * E2)
        return l2, l1 * S11 / l2 ** 2 + p

    l1 = brentq(lambda l1: stretches(l1)[1], 0.6, 1.6, xtol=1e-16, rtol=4 * np.finfo(float).eps, maxiter=200)
    return l1, stretches(l1)[0]


PATCH_CASES = [("hexahedron8", 0), ("hexahedron20", 1), ("hexahedron20r", 2), ("hexahedron27", 0),
               ("tetrahedron10", 1), ("pentahedron15", 2), ("pentahedron15", 0)]


@pytest.mark.parametrize("shape,axis", PATCH_CASES)
@pytest.mark.parametrize("p", [0.5, 60.0, -300.0])
def test_patch_uniaxial_pressure(shape, axis, p):
    """A block of distorted `shape` solids (E = 1000, ν = 0.3), symmetry supports on the
    planes X_a = 0 and a uniform pressure p on the face X_axis = L (pentahedra: t6 faces
    for axis 2, q8 otherwise), solved statically by Newton on the free dofs: x = diag(λ)X
    with the closed-form stretches, to 1e-9 of the displacement (p = 0.5: small strain,
    60: 9 % compression, -300: 20 % tension)."""
    rng = np.random.default_rng(21)
    E, nu = 1000.0, 0.3
    X, lattice, elements = lattice_mesh(shape, (2, 2, 2), (1.0, 1.3, 0.8), rng)
    top = lattice[:, axis].max()
    m = Model()
    for k, x in enumerate(X, start=1):
        m.structural_node(k, "static displacement", position=x)
    law = hookean_linear_elastic_isotropic(E, nu)
    label = 1
    for elem in elements:
        m.solid(label, shape, [n + 1 for n in elem], law, 1.0, static=True)
        label += 1
    loaded = {}
    for elem in elements:
        for face in solid_faces(shape):
            nodes = [elem[i] for i in face.nodes]
            if (lattice[nodes, axis] == top).all():
                loaded[face.surface] = loaded.get(face.surface, 0) + 1
                m.pressure_load(label, face.surface, [n + 1 for n in nodes], pressure=TimeDrive())
                label += 1
    if shape == "pentahedron15":
        assert set(loaded) == {"t6" if axis == 2 else "q8"}
    else:
        assert set(loaded) == {f.surface for f in solid_faces(shape)}
    system = System(m)
    ix = system.nodes.ix
    fixed = np.zeros(ix.shape, bool)
    for a in range(3):
        fixed[:, a] = lattice[:, a] == 0
    free = ix[~fixed]
    st = system.initial_state(0.0)
    steps = 1 if abs(p) < 1 else 6
    for step in range(1, steps + 1):
        st.t = p * step / steps                       # the pressure drives read the time
        for it in range(30):
            f, _, J = system.evaluate(st, 1.0)
            dx = spsolve(J.tocsr()[free][:, free].tocsc(), -f[free])
            st.y[free] += dx
            if np.abs(dx).max() < 1e-14 * max(1.0, np.abs(st.y[ix]).max()):
                break
        assert it <= 5, f"load step {step}: {it + 1} Newton iterations (the Jacobian is exact: 3-5)"
    l1, l2 = uniaxial_closed_form(p, E, nu)
    stretch = np.full(3, l2)
    stretch[axis] = l1
    x = st.y[ix]
    expected_x = X * stretch
    u = np.abs(expected_x - X).max()
    assert np.abs(x - expected_x).max() < 1e-9 * u, (l1, l2, np.abs(x - expected_x).max() / u)


# ---------------------------------------------------------------------- deck cards
DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 0.1;
    time step: 1e-2;
end: initial value;
begin: control data;
    structural nodes: 4;
    abstract nodes: 2;
    surface loads: {count};
end: control data;
reference: 10,
    position, reference, global, null,
    orientation, reference, global, 1, 0., 1., 0., 2, 1., 0., 0.,
    velocity, reference, global, null,
    angular velocity, reference, global, null;
begin: nodes;
    structural: 1, static, 1., 1., 0., eye, null, null;
    structural: 2, static, -1., 1., 0., eye, null, null;
    structural: 3, static, -1., -1., 0., eye, null, null;
    structural: 4, static, 1., -1., 0., eye, null, null;
    abstract: 20, algebraic, 2.;
    abstract: 21, differential, 3.;
end: nodes;
begin: elements;
{elements}
end: elements;
"""


def read(tmp_path, elements, count=1):
    path = tmp_path / "deck.mbd"
    text = DECK.format(elements=elements, count=count)
    path.write_text(text)
    return read_deck(str(path), echo=lambda *a: None), text


def test_deck_pressure_and_traction_cards(tmp_path):
    deck, text = read(tmp_path, """
    drive caller: 5, const, 4.;
    pressureq4: 1, 1, 2, 3, 4, from drives, const, 2., 2., mult, const, 1., time, reference, 5;
    pressureq4: 2, 2, 3, 4, 2, from nodes, 20, 21, 20, 21;
    template drive caller: 7, 3, component, const, 1., 0., time;
    tractionq4: 3, absolute, 1, 2, 3, 4, from drives,
        single, 1., 0., 0., const, 3., component, 3., 0., 0., null, reference, 7,
        orientation, reference, 10, eye, eye, eye, eye;
    tractionq4: 4, 1, 2, 3, 4, from drives, null, null, null, 0., 0., 1., const, 2.;
""", count=4)
    p1, p2, t3, t4 = deck.model.surface_loads
    assert (p1.kind, p1.shape, p1.nodes) == ("pressure", "q4", (1, 2, 3, 4))
    assert [d.value(0.5) for d in p1.pressure] == [2.0, 2.0, 0.5, 4.0]
    assert p2.nodes == (2, 3, 4, 2) and p2.pressure_nodes == (20, 21, 20, 21) and not p2.pressure
    assert t3.absolute and not t4.absolute
    assert [list(v.value(2.0)) for v in t3.traction] == [[3, 0, 0], [3, 0, 0], [0, 0, 0], [1, 0, 2]]
    assert np.allclose(t3.orientations, [[[0, 1, 0], [1, 0, 0], [0, 0, -1]]] + [np.eye(3)] * 3)   # prefix: first only
    assert np.allclose(t4.orientations, np.eye(3)) and list(t4.traction[3].value(0)) == [0, 0, 2]
    assert p1.where == f"{tmp_path / 'deck.mbd'}:{text[:text.index('pressureq4: 1,')].count(chr(10)) + 1}"
    system = System(deck.model)                     # the collapsed quadrangle evaluates
    st = system.initial_state(0.0)
    f, _, J = system.evaluate(st, 1.0)
    assert np.isfinite(f).all() and np.isfinite(J.toarray()).all()


def expect_error(tmp_path, elements, needle, message, count=1):
    """Reading fails at the first `needle` of the deck with an error starting `message`."""
    path = tmp_path / "deck.mbd"
    text = DECK.format(elements=elements, count=count)
    path.write_text(text)
    with pytest.raises(DeckError) as info:
        read_deck(str(path), echo=lambda *a: None)
    i = text.index(needle)
    line, col = text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)
    assert str(info.value).startswith(f"{path}:{line}:{col}: {message}"), str(info.value)


def test_deck_errors_name_file_line_and_word(tmp_path):
    expect_error(tmp_path, "    pressureq4: 1, 1, 2, 3, 9, from drives, 1., 1., 1., 1.;", "9, from",
                 "Structural(9) not defined")
    expect_error(tmp_path, "    pressureq4: 1, 1, 2, 3, 4, from nodes, 20, 21, 22, 20;", "22,",
                 "Abstract(22) is not defined")
    expect_error(tmp_path, "    pressuret6: 1, 1, 2, 3, 4, 1, 2, drives, 1.;", "drives",
                 "syntax error: 'from drives' or 'from nodes' expected")
    expect_error(tmp_path, "    tractionq4: 1, 1, 2, 3, 4, from nodes, 20, 21, 20, 21;", "from nodes",
                 "syntax error: 'from drives' expected")
    expect_error(tmp_path, "    tractionq4: 1, 1, 2, 3, 4, from drives, null, null, null, null, orientation, eye;",
                 ";\nend: elements", "syntax error")
    expect_error(tmp_path, "    pressureq4: 1, 1, 2, 3, 4, from drives, 1., 1., 1., 1.;\n"
                 "    pressureq8: 1, 1, 2, 3, 4, 1, 2, 3, 4, from drives, 1., 1., 1., 1., 1., 1., 1., 1.;",
                 "1, 1, 2, 3, 4, 1, 2", "", count=2)
    with pytest.raises(DeckError, match=r"\(1\) already defined"):
        read(tmp_path, "    pressureq4: 1, 1, 2, 3, 4, from drives, 1., 1., 1., 1.;\n"
             "    tractionq4: 1, 1, 2, 3, 4, from drives, null, null, null, null;", count=2)


@pytest.mark.parametrize("name", ["pressureload.mbd", "pressureload2.mbd", "hydrostatic.mbd", "hydrostatic2.mbd"])
def test_mbdyn_pressure_decks(name):
    """MBDyn's pressure decks, read in place: their surface loads as written (skipped while
    one of their other cards is not supported by mbdae)."""
    path = os.path.join(SOLID_TESTS, "pressure", name)
    if not os.path.exists(path):
        pytest.skip("MBDyn's pressure decks are not available")
    try:
        deck = read_deck(path, echo=lambda *a: None)
    except DeckError as e:
        if "not supported yet" in str(e) and not re.search(r"\((?:pressure|traction)", str(e)):
            pytest.skip(f"another card of the deck: {e}")
        raise
    text = open(path).read()
    cards = re.findall(r"^\s*pressure(q4|q8|q8r|q9|t6)\s*:\s*([^;]*);", text, re.M)
    assert len(deck.model.surface_loads) == len(cards) > 0
    for spec, (shape, args) in zip(deck.model.surface_loads, cards):
        words = [w.strip() for w in args.split(",")]
        n = surface_shape(shape).n_nodes
        assert spec.shape == shape and spec.nodes == tuple(int(w) for w in words[1:1 + n])
    System(deck.model)


def test_surface_not_on_a_solid_face_is_refused(tmp_path):
    """In a model with solid elements, a surface load must lie on a face of one of them (its
    corners in any order or orientation); otherwise the card is named with its nodes."""
    P, conn, _ = block_mesh("hexahedron8", 1, 1.0)
    faces = solid_faces("hexahedron8")
    def model(surface_nodes):
        m = Model()
        for k, x in enumerate(P):
            m.structural_node(k + 1, "static displacement", position=x)
        m.solid(1, "hexahedron8", conn[0] + 1, hookean_linear_elastic_isotropic(1e3, 0.3), 1.0)
        m.pressure_load(2, "q4", surface_nodes, 1.0, where="deck.mbd:7")
        return m
    for face in faces:                                   # every face, also with reversed orientation
        nodes = conn[0][list(face.nodes)] + 1
        System(model(nodes))
        System(model(nodes[::-1]))
    diagonal = conn[0][[0, 1, 6, 7]] + 1
    with pytest.raises(ValueError, match=r"^deck.mbd:7: pressureq4 2: nodes .* are not a face of any solid element"):
        System(model(diagonal))
