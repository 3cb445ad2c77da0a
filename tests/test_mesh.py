"""Meshes in through meshio (engine/mesh.py) and VTU results out (engine/io/vtu.py): the
VTK -> MBDyn node permutations against the geometry of both reference elements, block
meshes written by meshio in gmsh 4.1, Abaqus and VTU and read back (positive volumes,
total volume, named sets, outward faces), and the VTU/PVD writer against closed-form
stresses.  The tests that build a model need the Model API of the solid elements
(structural displacement nodes, model.solid, pressure_load, genel_clamp)."""
import itertools
import os
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import numpy as np
import pytest

meshio = pytest.importorskip("meshio")

from mbdae import Model, run, solve_static
from mbdae.engine import mesh as M
from mbdae.engine.io import vtu
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic

# ---------------------------------------------------------------- facts from VTK's documentation
# mid-edge (and mid-face, centre) nodes of VTK's cells as the corners they lie between
VTK_EDGES = {
    "hexahedron20": [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)],
    "wedge15": [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (0, 3), (1, 4), (2, 5)],
    "tetra10": [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)],
    "quad8": [(0, 1), (1, 2), (2, 3), (3, 0)],
    "triangle6": [(0, 1), (1, 2), (2, 0)],
}
VTK_EDGES["hexahedron27"] = VTK_EDGES["hexahedron20"] + [
    (0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 2, 6, 7), (0, 1, 2, 3), (4, 5, 6, 7), tuple(range(8))]
VTK_EDGES["quad9"] = VTK_EDGES["quad8"] + [(0, 1, 2, 3)]
# corners: vtkHexahedron/vtkQuad: (0,1,2,3) counter-clockwise seen from (4,5,6,7) / from +z;
# vtkTetra: the normal of (0,1,2) points at 3; the parametric wedge: (0,1,2) counter-clockwise about +t
VTK_CORNERS = {"hexahedron": [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)],
               "wedge15": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1)],
               "tetra10": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],
               "quad": [(0, 0), (1, 0), (1, 1), (0, 1)], "triangle6": [(0, 0), (1, 0), (0, 1)]}
for _t, _c in (("hexahedron20", "hexahedron"), ("hexahedron27", "hexahedron"), ("quad8", "quad"), ("quad9", "quad")):
    VTK_CORNERS[_t] = VTK_CORNERS[_c]

PAIRS = [("hexahedron", "hexahedron8"), ("hexahedron20", "hexahedron20"), ("hexahedron20", "hexahedron20r"),
         ("hexahedron27", "hexahedron27"), ("wedge15", "pentahedron15"), ("tetra10", "tetrahedron10"),
         ("quad", "q4"), ("quad8", "q8"), ("quad8", "q8r"), ("quad9", "q9"), ("triangle6", "t6")]
SOLID_PAIRS = PAIRS[:6]
REFERENCE_VOLUME = {"hexahedron": 1.0, "wedge15": 0.5, "tetra10": 1.0 / 6.0}     # VTK's reference cells
VOLUME_FAMILY = {"hexahedron": "hexahedron", "hexahedron20": "hexahedron", "hexahedron27": "hexahedron",
                 "wedge15": "wedge15", "tetra10": "tetra10"}
# a general affine map with det > 0 (rotation, shear, stretch)
G = np.array([[1.3, 0.2, -0.1], [-0.3, 0.9, 0.25], [0.15, -0.2, 1.1]])
C = np.array([0.4, -1.2, 2.0])


@pytest.mark.parametrize("cell_type", sorted(VTK_EDGES))
def test_vtk_reference_nodes_are_vtks(cell_type):
    X = M.VTK_NODES[cell_type]
    corners = VTK_CORNERS[cell_type]
    np.testing.assert_array_equal(X[:len(corners)], corners)
    for k, between in enumerate(VTK_EDGES[cell_type], start=len(corners)):
        np.testing.assert_allclose(X[k], X[list(between)].mean(axis=0), atol=1e-15)
    assert len(X) == len(corners) + len(VTK_EDGES[cell_type])


@pytest.mark.parametrize("shape", M.SOLID_SHAPES + M.SURFACE_SHAPES)
def test_mbdyn_corners_come_first(shape):
    """The first nodes of each MBDyn table are the vertices of its reference element."""
    X = M.MBDYN_NODES[shape]
    fam = M._FAMILY[shape]
    vertices = {"hex": set(itertools.product((-1, 1), repeat=3)), "quad": set(itertools.product((-1, 1), repeat=2)),
                "wedge": {(r, s, t) for (r, s) in ((0, 0), (1, 0), (0, 1)) for t in (-1, 1)},
                "tet": {(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)}, "tri": {(0, 0), (1, 0), (0, 1)}}[fam]
    k = M.CORNERS[fam]
    assert {tuple(x) for x in X[:k].tolist()} == vertices
    assert len({tuple(x) for x in X.tolist()}) == len(X)


def affine_fit(xi, X):
    """Least-squares A, b with X = xi A^T + b, and the largest residual."""
    S = np.hstack([xi, np.ones((len(xi), 1))])
    Mt, *_ = np.linalg.lstsq(S, X, rcond=None)
    return Mt[:-1].T, Mt[-1], np.abs(S @ Mt - X).max()


@pytest.mark.parametrize("cell_type,shape", PAIRS)
def test_permutation_maps_vtk_geometry_onto_mbdyn_table(cell_type, shape):
    """VTK's nodes, permuted, are an affine image of MBDyn's table with a positive Jacobian."""
    p = M.vtk_to_mbdyn(cell_type, shape)
    assert sorted(p.tolist()) == list(range(len(p)))
    A, b, residual = affine_fit(M.MBDYN_NODES[shape], M.VTK_NODES[cell_type][p])
    assert residual < 1e-14
    assert np.linalg.det(A) > 0


@pytest.mark.parametrize("cell_type,shape", SOLID_PAIRS)
def test_permuted_elements_have_positive_jacobian_and_exact_volume(cell_type, shape):
    """A unit cube / wedge / tetrahedron and an affine image of it, through the permuted
    nodes: det J > 0 at every quadrature point, volume = det(G) × reference volume."""
    ref = REFERENCE_VOLUME[VOLUME_FAMILY[cell_type]]
    p = M.vtk_to_mbdyn(cell_type, shape)
    for A, b in ((np.eye(3), np.zeros(3)), (G, C)):
        X = (M.VTK_NODES[cell_type] @ A.T + b)[p]
        q, _ = M.quadrature(shape)
        _, dN = M.shape_functions(shape, q)
        detJ = np.linalg.det(np.einsum("qna,nc->qac", dN, X))
        assert (detJ > 0).all()
        assert M.element_volumes(shape, X[None])[0] == pytest.approx(np.linalg.det(A) * ref, rel=1e-13)
        # mirrored, the same element is inside out
        assert M.element_volumes(shape, X[None][:, M.mirror(shape)])[0] == pytest.approx(-np.linalg.det(A) * ref,
                                                                                      rel=1e-13)


@pytest.mark.parametrize("cell_type,shape", PAIRS[6:])
def test_permuted_faces_keep_the_normal(cell_type, shape):
    """A face in the plane z = 0, counter-clockwise seen from +z: normal +z, area exact."""
    ref = {"quad": 1.0, "quad8": 1.0, "quad9": 1.0, "triangle6": 0.5}[cell_type]
    X = np.hstack([M.VTK_NODES[cell_type] * 2.0, np.zeros((len(M.VTK_NODES[cell_type]), 1))])
    a = M.face_vector_areas(shape, X[M.vtk_to_mbdyn(cell_type, shape)][None])[0]
    np.testing.assert_allclose(a, [0, 0, 4 * ref], atol=1e-14)
    a = M.face_vector_areas(shape, X[M.vtk_to_mbdyn(cell_type, shape)][M.mirror(shape)][None])[0]
    np.testing.assert_allclose(a, [0, 0, -4 * ref], atol=1e-14)


def test_hexahedron20r_is_vtks_order_and_known_permutations():
    """MBDyn's hexahedron20r lists its nodes as VTK (and Abaqus C3D20) do; hexahedron8 starts
    at VTK's corner 6 = (1, 1, 1)."""
    assert M.vtk_to_mbdyn("hexahedron20", "hexahedron20r").tolist() == list(range(20))
    assert M.vtk_to_mbdyn("hexahedron", "hexahedron8").tolist() == [6, 7, 4, 5, 2, 3, 0, 1]
    assert M.vtk_to_mbdyn("tetra10", "tetrahedron10")[:4].tolist() == [2, 3, 0, 1]


@pytest.mark.parametrize("shape", ["hexahedron8", "hexahedron20", "hexahedron27", "pentahedron15",
                                   "tetrahedron10", "q8", "q9", "t6"])
def test_shape_functions_are_a_nodal_basis(shape):
    X = M.MBDYN_NODES[shape]
    N, dN = M.shape_functions(shape, X)
    np.testing.assert_allclose(N, np.eye(len(X)), atol=1e-12)
    xi = M.quadrature(shape)[0]
    N, dN = M.shape_functions(shape, xi)
    np.testing.assert_allclose(N.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(dN.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.einsum("qn,nd->qd", N, X), xi, atol=1e-12)   # isoparametric


def test_hexahedron8_shape_functions_are_trilinear():
    X = M.MBDYN_NODES["hexahedron8"]
    xi = np.array([[0.3, -0.7, 0.1], [-1, 1, 0.5]])
    N, _ = M.shape_functions("hexahedron8", xi)
    closed = np.prod(1 + xi[:, None, :] * X[None], axis=2) / 8
    np.testing.assert_allclose(N, closed, atol=1e-14)


def test_mbdyn_to_vtk_inverts_and_writes_wedges_as_vtk_wants():
    for shape in ("hexahedron8", "hexahedron20", "hexahedron20r", "hexahedron27", "tetrahedron10", "q8", "t6"):
        cell_type, p = M.mbdyn_to_vtk(shape)
        assert M.vtk_to_mbdyn(cell_type, shape)[p].tolist() == list(range(len(p)))
    cell_type, p = M.mbdyn_to_vtk("pentahedron15")
    assert cell_type == "wedge15"
    X = M.MBDYN_NODES["pentahedron15"][p]             # a positive MBDyn wedge, in VTK order
    n = np.cross(X[1] - X[0], X[2] - X[0])
    assert n @ (X[3] - X[0]) < 0                      # vtkWedge: the base normal points away from 3, 4, 5
    for (a, b), k in zip(VTK_EDGES["wedge15"], range(6, 15)):
        np.testing.assert_allclose(X[k], (X[a] + X[b]) / 2)


def test_facets_of_the_solids():
    assert len(M.facets("hexahedron20")) == 6 and all(len(f) == 4 for f in M.facets("hexahedron8"))
    assert sorted(map(len, M.facets("pentahedron15"))) == [3, 3, 4, 4, 4]
    assert len(M.facets("tetrahedron10")) == 4


@pytest.mark.parametrize("shape", M.SOLID_SHAPES)
def test_facets_close_the_element_outward(shape):
    """The facets of an (affinely mapped) element, as surfaces: their vector areas sum to
    zero and (1/3) Σ ∫ x·n dA is the volume (divergence theorem), so all point outward."""
    X = M.MBDYN_NODES[shape] @ G.T + C
    total, flux = np.zeros(3), 0.0
    for surf, idx in M.facet_nodes(shape):
        Xf = X[idx]
        total += M.face_vector_areas(surf, Xf[None])[0]
        q, w = M.quadrature(surf)
        N, dN = M.shape_functions(surf, q)
        J = np.einsum("qna,nc->qac", dN, Xf)
        flux += np.einsum("qc,qc,q->", N @ Xf, np.cross(J[:, 0], J[:, 1]), w) / 3
    np.testing.assert_allclose(total, 0, atol=1e-13)
    assert flux == pytest.approx(M.element_volumes(shape, X[None])[0], rel=1e-13)


# ---------------------------------------------------------------- block meshes through meshio
L, N = 2.0, 2                 # a 2 × 2 × 2 block of unit cubes
FACE_OF = {"hexahedron": "quad", "hexahedron20": "quad8", "hexahedron27": "quad9", "wedge15": "triangle6",
           "tetra10": "triangle6"}
SHAPE_OF = {"hexahedron": "hexahedron8", "hexahedron20": "hexahedron20", "hexahedron27": "hexahedron27",
            "wedge15": "pentahedron15", "tetra10": "tetrahedron10"}
MBDYN_FACE = {"quad": "q4", "quad8": "q8", "quad9": "q9", "triangle6": "t6"}


def _affine_cells(cell_type, maps):
    ref = M.VTK_NODES[cell_type]
    return [ref @ A.T + b for A, b in maps]


def _cube_maps(cell_type, o):
    """Affine maps from VTK's reference cell onto the pieces of the unit cube at o."""
    e = np.eye(3)
    if cell_type.startswith("hexahedron"):
        return [(e, o)]
    if cell_type == "wedge15":
        return [(e, o), (np.diag([-1.0, -1.0, 1.0]), o + [1, 1, 0])]
    maps = []                                            # 6 tetrahedra about the diagonal
    for a, b, _ in itertools.permutations(range(3)):
        v1 = e[a]
        v2 = e[a] + e[b]
        A = np.column_stack([v1, v2, [1, 1, 1]])
        if np.linalg.det(A) < 0:
            A = A[:, [1, 0, 2]]
        maps.append((A, o))
    return maps


def _square_maps(face_type, o, normal_sign, tri_split):
    """Maps from VTK's reference face onto the pieces of the unit square at o (z fixed),
    with normal along normal_sign × z."""
    e = np.eye(3)[:, :2]
    if face_type == "triangle6":
        if tri_split == "wedge":                       # diagonal (1,0)-(0,1)
            maps = [(e, o), (-e, o + [1, 1, 0])]
        else:                                          # diagonal (0,0)-(1,1)
            maps = [(np.column_stack([[1, 0, 0], [1, 1, 0]]), o), (np.column_stack([[1, 1, 0], [0, 1, 0]]), o)]
    else:
        maps = [(e, o)]
    out = []
    for A, b in maps:
        if np.cross(A[:, 0], A[:, 1])[2] * normal_sign < 0:
            A = A[:, [1, 0]]
        out.append((A, b))
    return out


def block(cell_type):
    """points, solid cells, top faces (z = L, written with inward normals), bottom faces
    (z = 0, outward), all in VTK order."""
    nodes = []
    solids, top, bottom = [], [], []
    face = FACE_OF[cell_type]
    split = "wedge" if cell_type == "wedge15" else "tet"
    for i, j, k in itertools.product(range(N), repeat=3):
        solids += _affine_cells(cell_type, _cube_maps(cell_type, np.array([i, j, k], float)))
    for i, j in itertools.product(range(N), repeat=2):
        top += _affine_cells(face, _square_maps(face, np.array([i, j, L]), -1, split))
        bottom += _affine_cells(face, _square_maps(face, np.array([i, j, 0.0]), -1, split))
    allx = np.concatenate(solids + top + bottom)
    points, inverse = np.unique(np.round(allx, 12), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    conn, start = [], 0
    for group in (solids, top, bottom):
        n = sum(len(c) for c in group)
        conn.append(inverse[start:start + n].reshape(len(group), -1))
        start += n
    return points, conn


def meshio_block(cell_type, fmt, named=True):
    points, (cells, top, bottom) = block(cell_type)
    face = FACE_OF[cell_type]
    blocks = [(cell_type, cells), (face, top), (face, bottom)]
    on_top, on_bottom = points[:, 2] == L, points[:, 2] == 0
    if fmt == "gmsh":
        dim_tags = np.tile([3, 1], (len(points), 1))
        dim_tags[on_top] = [2, 1]
        dim_tags[on_bottom] = [2, 2]
        m = meshio.Mesh(points, blocks, point_data={"gmsh:dim_tags": dim_tags},
                        cell_data={"gmsh:physical": [np.full(len(c), t) for c, t in zip((cells, top, bottom), (3, 1, 2))],
                                   "gmsh:geometrical": [np.full(len(c), t) for c, t in zip((cells, top, bottom), (1, 1, 2))]},
                        field_data={"body": np.array([3, 3]), "top": np.array([1, 2]), "bottom": np.array([2, 2])}
                        if named else {})
    elif fmt == "abaqus":
        empty = np.array([], int)
        m = meshio.Mesh(points, blocks,
                        cell_sets={"body": [np.arange(len(cells)), empty, empty],
                                   "top": [empty, np.arange(len(top)), empty],
                                   "bottom": [empty, empty, np.arange(len(bottom))]},
                        point_sets={"fixed": np.flatnonzero(on_bottom)})
    else:
        m = meshio.Mesh(points, blocks)
    return m, len(cells), len(top), int(on_bottom.sum())


FORMATS = {"gmsh": ("msh", {"file_format": "gmsh", "binary": False}), "abaqus": ("inp", {}), "vtu": ("vtu", {})}
CASES = [(t, f) for t in FACE_OF for f in FORMATS if not (f == "abaqus" and t == "hexahedron27")]


@pytest.mark.parametrize("cell_type,fmt", CASES)
def test_block_mesh_round_trip(tmp_path, cell_type, fmt):
    m, ncells, ntop, nbottom_points = meshio_block(cell_type, fmt)
    ext, kw = FORMATS[fmt]
    path = str(tmp_path / f"block.{ext}")
    meshio.write(path, m, **kw)
    mesh = M.read_mesh(path)
    shape, face = SHAPE_OF[cell_type], MBDYN_FACE[FACE_OF[cell_type]]
    assert list(mesh.solids) == [shape] and list(mesh.faces) == [face]
    vol = mesh.volumes()[shape]
    assert len(vol) == ncells and (vol > 0).all()
    assert vol.sum() == pytest.approx(L ** 3, rel=1e-14)
    # the same cells, in MBDyn order: every element's nodes are an affine image of MBDyn's table
    for X in mesh.points[mesh.solids[shape]]:
        A, b, residual = affine_fit(M.MBDYN_NODES[shape], X)
        assert residual < 1e-12 and np.linalg.det(A) > 0
    # faces: all turned outward (top was written inward)
    assert mesh.reoriented == {face: ntop}
    areas = mesh.vector_areas()[face]
    z = mesh.points[mesh.faces[face][:, 0], 2]
    np.testing.assert_allclose(areas[z == L].sum(axis=0), [0, 0, L * L], atol=1e-12)
    np.testing.assert_allclose(areas[z == 0].sum(axis=0), [0, 0, -L * L], atol=1e-12)
    if fmt == "vtu":
        return
    assert {len(v) for v in mesh.element_sets["body"].values()} == {ncells}
    np.testing.assert_allclose(sum(mesh.vector_areas("top").values()).sum(axis=0), [0, 0, L * L], atol=1e-12)
    np.testing.assert_allclose(sum(mesh.vector_areas("bottom").values()).sum(axis=0), [0, 0, -L * L], atol=1e-12)
    fixed = mesh.node_sets["bottom" if fmt == "gmsh" else "fixed"]
    assert len(fixed) == nbottom_points and (mesh.points[fixed, 2] == 0).all()
    assert len(mesh.node_sets["top"]) == int((mesh.points[:, 2] == L).sum())


@pytest.mark.parametrize("cell_type,fmt", [c for c in CASES if c[1] != "vtu"])
def test_boundary_faces_of_a_node_set(tmp_path, cell_type, fmt):
    """Faces from node sets (an Abaqus *NSET, a gmsh physical surface's nodes): the boundary
    faces all of whose nodes are in the set, outward."""
    m, ncells, ntop, _ = meshio_block(cell_type, fmt)
    ext, kw = FORMATS[fmt]
    meshio.write(str(tmp_path / f"b.{ext}"), m, **kw)
    mesh = M.read_mesh(str(tmp_path / f"b.{ext}"))
    bottom = mesh.boundary_faces("bottom" if fmt == "gmsh" else "fixed", name="base")
    assert sum(len(c) for c in bottom.values()) == ntop and mesh.face_sets["base"] is bottom
    np.testing.assert_allclose(sum(mesh.vector_areas("base").values()).sum(axis=0), [0, 0, -L * L], atol=1e-12)
    mesh.node_sets["all"] = np.arange(len(mesh.points))
    areas = np.concatenate(list(mesh.vector_areas_of(mesh.boundary_faces("all")).values()))
    np.testing.assert_allclose(areas.sum(axis=0), 0, atol=1e-12)
    assert np.linalg.norm(areas, axis=1).sum() == pytest.approx(6 * L * L, rel=1e-13)
    centers = {s: mesh.points[c].mean(axis=1) for s, c in mesh.face_sets["all"].items()}
    for s, a in mesh.vector_areas_of(mesh.face_sets["all"]).items():      # outward: away from the centre
        assert (np.einsum("ec,ec->e", a, centers[s] - L / 2) > 0).all()


def test_unnamed_gmsh_physical_groups(tmp_path):
    m, ncells, ntop, _ = meshio_block("hexahedron", "gmsh", named=False)
    meshio.write(str(tmp_path / "b.msh"), m, file_format="gmsh")
    mesh = M.read_mesh(str(tmp_path / "b.msh"))
    assert len(mesh.element_sets["physical 3"]["hexahedron8"]) == ncells
    assert len(mesh.face_sets["physical 1"]["q4"]) == ntop


def test_hex20_reduced_order(tmp_path):
    m, ncells, _, _ = meshio_block("hexahedron20", "gmsh")
    meshio.write(str(tmp_path / "b.msh"), m, file_format="gmsh")
    mesh = M.read_mesh(str(tmp_path / "b.msh"), hex20="hexahedron20r")
    assert list(mesh.solids) == ["hexahedron20r"] and list(mesh.faces) == ["q8r"]
    assert (mesh.volumes()["hexahedron20r"] > 0).all()
    np.testing.assert_allclose(sum(mesh.vector_areas("top").values()).sum(axis=0), [0, 0, L * L], atol=1e-12)


def test_inside_out_cells_are_mirrored(tmp_path):
    """Quadratic wedges in VTK's own orientation (and mirrored hexahedra) come out positive."""
    points, (cells, _, _) = block("wedge15")
    hexes = block("hexahedron20")
    m = meshio.Mesh(points, [("wedge15", cells[:, M.mirror_vtk("wedge15")])])
    meshio.write(str(tmp_path / "w.vtu"), m)
    mesh = M.read_mesh(str(tmp_path / "w.vtu"))
    assert mesh.reoriented == {"pentahedron15": len(cells)}
    assert (mesh.volumes()["pentahedron15"] > 0).all() and mesh.volumes()["pentahedron15"].sum() == pytest.approx(8)
    flipped = hexes[1][0].copy()
    flipped[::2] = flipped[::2][:, M.mirror_vtk("hexahedron20")]
    mesh = M.Mesh.from_meshio(meshio.Mesh(hexes[0], [("hexahedron20", flipped)]))
    assert mesh.reoriented == {"hexahedron20": len(flipped[::2])}
    assert mesh.volumes()["hexahedron20"].sum() == pytest.approx(8, rel=1e-14)


def test_linear_tetrahedra_are_refused():
    m = meshio.Mesh(np.eye(4, 3), [("tetra", [[0, 1, 2, 3]]), ("line", [[0, 1]])])
    with pytest.raises(ValueError, match="tetra"):
        M.Mesh.from_meshio(m)
    m = meshio.Mesh(np.eye(4, 3), [("triangle", [[0, 1, 2]]), ("line", [[0, 1]])])
    assert M.Mesh.from_meshio(m).ignored == {"triangle": 1, "line": 1}


# ---------------------------------------------------------------- into a model
class Recorder:
    """The Model API of the solid elements (structural displacement and hydraulic nodes,
    solids, surface loads, genel clamps), recording what it is sent."""

    def __init__(self):
        self.nodes, self.hydraulic, self.solids, self.loads, self.clamps = {}, [], [], [], []
        self.velocity = {}

    def structural_node(self, label, kind, position=None, velocity=None):
        assert label not in self.nodes
        self.nodes[label] = (kind, np.array(position, float))
        self.velocity[label] = np.array(velocity, float)

    def hydraulic_node(self, label, value=0.0):
        self.hydraulic.append((label, value))

    def solid(self, label, shape, nodes, law, density, pressure_nodes=None, lumped_mass=False, static=False):
        self.solids.append(dict(label=label, shape=shape, nodes=nodes, law=law, density=density,
                                pressure_nodes=pressure_nodes, lumped_mass=lumped_mass, static=static))

    def pressure_load(self, label, shape, nodes, pressure):
        self.loads.append((label, shape, nodes, pressure))

    def traction_load(self, label, shape, nodes, traction, absolute=False):
        self.loads.append((label, shape, nodes, traction, absolute))

    def genel_clamp(self, label, node, node_type="structural", index=1, value=None):
        self.clamps.append((label, node, node_type, index, value))


def gmsh_block(tmp_path, cell_type, **options):
    m, *_ = meshio_block(cell_type, "gmsh")
    meshio.write(str(tmp_path / "b.msh"), m, file_format="gmsh")
    return M.read_mesh(str(tmp_path / "b.msh"), **options)


def test_add_to_model_sends_nodes_and_elements_in_mbdyn_order(tmp_path):
    mesh = gmsh_block(tmp_path, "hexahedron20")
    rec = Recorder()
    density = 1000.0 + mesh.points[:, 2]                     # one value per point
    spin = np.cross([0, 0, 1.0], mesh.points)                    # one velocity per point
    nodes, elements = mesh.add_to_model(rec, "law", density, node_kind="static displacement",
                                        first_node_label=101, first_element_label=7, lumped_mass=True,
                                        velocity=spin)
    assert all((rec.velocity[label] == spin[p]).all() for p, label in nodes.items())
    assert sorted(nodes.values()) == list(range(101, 101 + len(mesh.points)))
    for p, label in nodes.items():
        kind, x = rec.nodes[label]
        assert kind == "static displacement" and (x == mesh.points[p]).all()
    assert list(elements) == ["hexahedron20"] and elements["hexahedron20"].tolist() == list(range(7, 15))
    position = {label: x for label, (_, x) in rec.nodes.items()}
    density_at = {nodes[p]: density[p] for p in nodes}
    for e in rec.solids:
        assert e["shape"] == "hexahedron20" and e["law"] == "law" and e["static"] and e["lumped_mass"]
        assert e["pressure_nodes"] is None
        X = np.array([position[n] for n in e["nodes"]])
        assert M.element_volumes("hexahedron20", X[None])[0] == pytest.approx(1.0, rel=1e-14)
        assert e["density"] == [density_at[n] for n in e["nodes"]]


def test_add_to_model_element_set_and_labels_continue(tmp_path):
    mesh = gmsh_block(tmp_path, "hexahedron")
    mesh.element_sets["lower"] = {"hexahedron8": mesh.solids["hexahedron8"][
        mesh.points[mesh.solids["hexahedron8"]][:, :, 2].max(axis=1) <= 1.0]}
    rec = Recorder()
    nodes, elements = mesh.add_to_model(rec, "law", 1.0, element_set="lower")
    assert len(nodes) == 18 and all(mesh.points[p, 2] <= 1.0 for p in nodes)
    assert rec.solids[0]["density"] == 1.0 and not rec.solids[0]["static"]
    assert all((v == 0).all() for v in rec.velocity.values())
    nodes2, _ = mesh.add_to_model(rec, "law", 1.0, first_node_label=len(nodes) + 1, first_element_label=5)
    assert len(rec.nodes) == 27 and nodes2 == mesh.node_label          # shared points keep their node
    assert [e["label"] for e in rec.solids] == list(range(1, 5)) + list(range(5, 13))


@pytest.mark.parametrize("cell_type,upc_shape,per_element", [
    ("tetra10", "tetrahedron10upc", 4), ("wedge15", "pentahedron15upc", 6), ("hexahedron20", "hexahedron20upc", 8),
    ("hexahedron", "hexahedron8upc", None)])
def test_add_to_model_upc_pressure_nodes(tmp_path, cell_type, upc_shape, per_element):
    mesh = gmsh_block(tmp_path, cell_type)
    rec = Recorder()
    nodes, _ = mesh.add_to_model(rec, "law", 1.0, upc=True)
    shape = SHAPE_OF[cell_type]
    conn = mesh.solids[shape]
    first = max(nodes.values()) + 1
    if per_element is None:                                  # one per element
        assert [h[0] for h in rec.hydraulic] == list(range(first, first + len(conn)))
        assert [e["pressure_nodes"] for e in rec.solids] == [[first + k] for k in range(len(conn))]
    else:                                                    # shared at the corners
        corners = np.unique(conn[:, :per_element])
        assert [h[0] for h in rec.hydraulic] == list(range(first, first + len(corners)))
        at = {mesh.pressure_label[p]: p for p in corners.tolist()}
        for e, row in zip(rec.solids, conn):
            assert [at[h] for h in e["pressure_nodes"]] == row[:per_element].tolist()
    assert {e["shape"] for e in rec.solids} == {upc_shape}
    assert all(v == 0.0 for _, v in rec.hydraulic)


def test_upc_needs_an_mbdyn_upc_shape(tmp_path):
    mesh = gmsh_block(tmp_path, "hexahedron27")
    with pytest.raises(ValueError, match="hexahedron27"):
        mesh.add_to_model(Recorder(), "law", 1.0, upc=True)
    rec = Recorder()
    gmsh_block(tmp_path, "hexahedron20", hex20="hexahedron20r").add_to_model(rec, "law", 1.0, upc=True)
    assert {e["shape"] for e in rec.solids} == {"hexahedron20upcr"} and len(rec.hydraulic) == 27


def test_clamp_and_pressure_on_named_sets(tmp_path):
    mesh = gmsh_block(tmp_path, "hexahedron20")
    rec = Recorder()
    nodes, _ = mesh.add_to_model(rec, "law", 1.0)
    with pytest.raises(KeyError, match="add_to_model"):
        M.Mesh(mesh.points, node_sets={"a": [0]}).clamp(rec, "a", 1)
    labels = mesh.clamp(rec, "bottom", first_label=500)
    bottom = mesh.node_sets["bottom"]
    assert labels == list(range(500, 500 + 3 * len(bottom)))
    assert rec.clamps == [(500 + 3 * k + c, nodes[p], "structural", c + 1, None)
                          for k, p in enumerate(bottom.tolist()) for c in range(3)]
    labels = mesh.pressure(rec, "top", 2.5e5, first_label=900)
    assert labels == list(range(900, 904))
    position = {label: x for label, (_, x) in rec.nodes.items()}
    for label, shape, nodes_, p in rec.loads:
        assert shape == "q8" and p == 2.5e5
        X = np.array([position[n] for n in nodes_])
        np.testing.assert_allclose(M.face_vector_areas("q8", X[None])[0], [0, 0, 1], atol=1e-14)   # outward
    rec.loads.clear()
    ramp = mesh.points[:, 0] * 10.0                            # one value per point
    mesh.pressure(rec, "top", ramp, first_label=1)
    for _, _, nodes_, p in rec.loads:
        assert p == [position[n][0] * 10.0 for n in nodes_]
    rec.loads.clear()
    mesh.traction(rec, None, [0.0, 1.0, 0.0], first_label=1, absolute=True)
    assert len(rec.loads) == 8 and all(load[3] == [0.0, 1.0, 0.0] and load[4] for load in rec.loads)


# ---------------------------------------------------------------- with the solid elements' Model API
E, NU, P = 1.0e6, 0.3, 1.0                  # p / E = 1e-6: the linear regime


def compression_model(tmp_path, cell_type):
    """The block on three symmetry planes (u_x = 0 at x = 0, u_y = 0 at y = 0, u_z = 0 at
    z = 0) under a pressure on its top: a uniform uniaxial stress σ_zz = -p."""
    mesh = gmsh_block(tmp_path, cell_type)
    mesh.node_sets["x0"] = np.flatnonzero(mesh.points[:, 0] == 0)
    mesh.node_sets["y0"] = np.flatnonzero(mesh.points[:, 1] == 0)
    model = Model()
    mesh.add_to_model(model, hookean_linear_elastic_isotropic(E, NU), 7800.0, node_kind="static displacement")
    mesh.clamp(model, "bottom", 1000, components=(3,))
    mesh.clamp(model, "x0", 2000, components=(1,))
    mesh.clamp(model, "y0", 3000, components=(2,))
    mesh.pressure(model, "top", P, first_label=4000)
    return mesh, model


def uniaxial_displacement(X):
    """u of the uniaxial stress σ_zz = -p: ε_zz = -p/E, ε_xx = ε_yy = ν p/E."""
    return np.column_stack([NU * P / E * X[:, 0], NU * P / E * X[:, 1], -P / E * X[:, 2]])


@pytest.mark.parametrize("cell_type", ["hexahedron", "tetra10"])
def test_uniaxial_compression_of_a_meshed_block(tmp_path, cell_type):
    mesh, model = compression_model(tmp_path, cell_type)
    r = solve_static(model, steps=1)
    points = sorted(mesh.node_label)
    u = np.array([r.node(mesh.node_label[p])[0][-1] for p in points]) - mesh.points[points]
    np.testing.assert_allclose(u, uniaxial_displacement(mesh.points[points]), rtol=0, atol=1e-4 * P / E * L)


# ---------------------------------------------------------------- VTU results
def test_von_mises_of_known_stresses():
    s = np.zeros((5, 6))
    s[0, 0] = -3.0                                     # uniaxial
    s[1, 2] = 7.0
    s[2, 3] = 2.0                                      # pure shear xy, yz, zx
    s[3, 4] = -2.0
    s[4, :3] = 5.0                                     # hydrostatic
    np.testing.assert_allclose(vtu.von_mises(s), [3.0, 7.0, 2 * np.sqrt(3), 2 * np.sqrt(3), 0.0], atol=1e-14)
    T = vtu.stress_tensor([[1, 2, 3, 4, 5, 6]])[0]
    np.testing.assert_array_equal(T, [[1, 4, 6], [4, 2, 5], [6, 5, 3]])


def pvd_entries(path):
    root = ET.parse(path).getroot()
    assert root.get("type") == "Collection"
    return [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]


def test_write_vtu_holds_the_fields(tmp_path):
    mesh = gmsh_block(tmp_path, "hexahedron20")
    x = mesh.points
    cell_type, p = M.mbdyn_to_vtk("hexahedron20")
    cells = mesh.solids["hexahedron20"][:, p]
    extra = np.vstack([x, [[5.0, 5.0, 5.0]]])            # a point in no cell: a vertex cell
    u = np.column_stack([0.1 * x[:, 2], -0.2 * x[:, 0], 0.05 * x[:, 1]])
    u = np.vstack([u, [[1, 2, 3]]])
    sigma = np.zeros((len(extra), 6))
    sigma[:, 2] = -np.linspace(1, 2, len(extra))         # uniaxial: von Mises = |σ_zz|
    sigma[-1] = [0, 0, 0, 4.0, 0, 0]                     # pure shear: √3 τ
    path = str(tmp_path / "r.vtu")
    vtu.write_vtu(path, extra, [("VTK_QUADRATIC_HEXAHEDRON", cells)],
                  {"displacement": u, "velocity": 2 * u, "cauchy_stress": sigma})
    back = meshio.read(path)
    np.testing.assert_array_equal(back.points, extra)
    assert [(c.type, len(c.data)) for c in back.cells] == [("hexahedron20", 8), ("vertex", 1)]
    np.testing.assert_array_equal(back.cells[0].data, cells)
    np.testing.assert_array_equal(back.point_data["displacement"], u)
    np.testing.assert_array_equal(back.point_data["velocity"], 2 * u)
    np.testing.assert_array_equal(back.point_data["cauchy_stress"], sigma)
    np.testing.assert_allclose(back.point_data["von_mises"][:-1], -sigma[:-1, 2], rtol=1e-15)
    assert back.point_data["von_mises"][-1] == pytest.approx(4.0 * np.sqrt(3), rel=1e-15)
    T = back.point_data["cauchy_stress_tensor"].reshape(-1, 3, 3)
    np.testing.assert_array_equal(T, np.transpose(T, (0, 2, 1)))
    np.testing.assert_array_equal(T[:, 2, 2], sigma[:, 2])
    assert T[-1, 0, 1] == T[-1, 1, 0] == 4.0
    # the cells read back as a mesh: MBDyn order, positive volumes
    again = M.read_mesh(path)
    assert again.volumes()["hexahedron20"].sum() == pytest.approx(8.0, rel=1e-14)


@pytest.mark.parametrize("cell_type", ["wedge15", "hexahedron20", "tetra10"])
def test_write_vtu_takes_mbdyn_cells(tmp_path, cell_type):
    """Cells in MBDyn's order under their shape name (u/p-c names too) are written in VTK's
    order; wedges in VTK's own orientation (base normal away from the top)."""
    mesh = gmsh_block(tmp_path, cell_type)
    shape = SHAPE_OF[cell_type]
    conn = mesh.solids[shape]
    name = M.UPC[shape][0]
    path = str(tmp_path / "c.vtu")
    vtu.write_vtu(path, mesh.points, [(name, conn)], {})
    back = meshio.read(path)
    assert [c.type for c in back.cells] == [cell_type]
    X = back.points[back.cells[0].data]
    if cell_type == "wedge15":
        n = np.cross(X[:, 1] - X[:, 0], X[:, 2] - X[:, 0])
        assert (np.einsum("ec,ec->e", n, X[:, 3] - X[:, 0]) < 0).all()
    again = M.read_mesh(path)
    assert again.volumes()[shape].sum() == pytest.approx(L ** 3, rel=1e-14)
    assert sorted(map(sorted, again.solids[shape].tolist())) == sorted(map(sorted, conn.tolist()))


def pendulum():
    m = Model()
    m.structural_node(1, "dynamic")
    m.body(1, 1, 1.0, center_of_mass=[1.0, 0, 0])
    m.revolute_pin(2, 1)
    m.gravity([0, -9.81, 0])
    return m


@pytest.mark.parametrize("configuration", ["reference", "deformed"])
def test_vtu_writer_observes_a_run(tmp_path, configuration):
    """A pendulum run (no solid: its node is a vertex cell): one .vtu per output step, the
    .pvd lists them with their times, the displacement is x - x0."""
    base = str(tmp_path / "out" / "pendulum")
    r = run(pendulum(), final_time=0.05, time_step=1e-2, observers=[vtu.VTUWriter(base, configuration)])
    entries = pvd_entries(base + ".pvd")
    assert [t for t, _ in entries] == pytest.approx(list(r.t), abs=0)
    assert len(entries) == len(r.t) == 6
    for k, (t, name) in enumerate(entries):
        assert name == f"pendulum_{k:05d}.vtu"
        back = meshio.read(os.path.join(tmp_path, "out", name))
        x, v = np.asarray(r.x[k]), np.asarray(r.v[k])
        np.testing.assert_array_equal(back.point_data["displacement"], x - 0.0)
        np.testing.assert_array_equal(back.point_data["velocity"], v)
        np.testing.assert_array_equal(back.points, 0.0 * x if configuration == "reference" else x)
        assert [c.type for c in back.cells] == ["vertex"]


class SolidFamily:
    """What the VTU writer reads from a solid family: cells() and nodal_cauchy_stress(ctx)."""

    def __init__(self, name, cells, stress):
        self.name, self._cells, self._stress = name, cells, stress

    def cells(self):
        return self._cells

    def nodal_cauchy_stress(self, ctx):
        return self._stress * ctx.scale


def test_vtu_writer_reads_the_solid_families(tmp_path):
    """Two solid families sharing nodes 4..7: the stress there is averaged over the elements
    of both; a family that is no solid is left out."""
    x0 = np.array(list(itertools.product((0.0, 1.0), repeat=3)) + [[0.5, 0.5, 2.0]])[:, ::-1]
    hexa = SolidFamily("solid hexahedron8", ("VTK_HEXAHEDRON", [[0, 1, 3, 2, 4, 5, 7, 6]]),
                       np.where(np.arange(9)[:, None] < 8, [[1.0, 0, 0, 0, 0, 0]], 0.0))
    tets = [[4, 5, 7, 8], [4, 7, 6, 8]]
    counts = np.bincount(np.ravel(tets), minlength=9)
    tet = SolidFamily("solid tetrahedron", [("tetra", tets)],
                      np.where(counts[:, None] > 0, [[0, 0, 3.0, 0, 0, 0]], 0.0))
    other = SimpleNamespace(name="body")
    system = SimpleNamespace(nodes=SimpleNamespace(x0=x0, R0=np.tile(np.eye(3), (9, 1, 1))), families=[other, hexa, tet])
    w = vtu.VTUWriter(str(tmp_path / "s"), "deformed")
    w.start(system, None)
    w.log("ignored")
    ctx = SimpleNamespace(scale=2.0)
    for k, t in enumerate((0.0, 0.5)):
        kin = SimpleNamespace(x=x0 * (1 + t), v=x0 * t, R=np.tile(np.eye(3), (9, 1, 1)))
        outputs = [([other, hexa, tet], ctx)] if k == 0 else \
            [([other], SimpleNamespace(scale=0.0)), ([hexa, tet], ctx)]        # as the inverse-dynamics driver
        w.step(SimpleNamespace(written=True, t=t, step=k, kinematics=kin, outputs=outputs))
        w.commit_step()                 # a step's files are committed once every writer has it
    w.step(SimpleNamespace(written=False, t=0.7, step=2, kinematics=None, outputs=[]))
    w.commit_step()
    w.finish()
    assert pvd_entries(str(tmp_path / "s.pvd")) == [(0.0, "s_00000.vtu"), (0.5, "s_00001.vtu")]
    back = meshio.read(str(tmp_path / "s_00001.vtu"))
    np.testing.assert_array_equal(back.points, 1.5 * x0)
    np.testing.assert_array_equal(back.point_data["displacement"], 0.5 * x0)
    s = back.point_data["cauchy_stress"]
    np.testing.assert_array_equal(s[:4], [[2.0, 0, 0, 0, 0, 0]] * 4)            # hexahedron only
    np.testing.assert_array_equal(s[8], [0, 0, 6.0, 0, 0, 0])                   # tetrahedra only
    for i in range(4, 8):                                                       # shared
        c = counts[i]
        np.testing.assert_allclose(s[i], [2.0 / (1 + c), 0, 6.0 * c / (1 + c), 0, 0, 0], rtol=1e-15)
    assert [(c.type, len(c.data)) for c in back.cells] == [("hexahedron", 1), ("tetra", 2)]


class ShellFamily:
    """What the VTU writer reads from a shell family: cells() and cell_data(ctx)."""
    name = "shell4eas"

    def cells(self):
        return "VTK_QUAD", [[0, 1, 2, 3]]

    def cell_data(self, ctx):
        return {"membrane_resultant": [[1.0, 2.0, 3.0]], "thickness": [0.5]}


def test_vtu_writer_node_rotations_and_cell_data(tmp_path):
    """The rotation vector of R R0ᵀ at every node (a turn about z by t rad, from a reference
    turned about x), the shells' cell data on their quadrilateral and zeros on the vertex
    cell of the node in no element."""
    x0 = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [3, 3, 3]])
    c, s = np.cos(0.3), np.sin(0.3)
    R0 = np.tile([[1, 0, 0], [0, c, -s], [0, s, c]], (5, 1, 1))
    system = SimpleNamespace(nodes=SimpleNamespace(x0=x0, R0=R0), families=[ShellFamily()])
    w = vtu.VTUWriter(str(tmp_path / "q"))
    w.start(system, None)
    t = 0.4
    Rz = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    kin = SimpleNamespace(x=x0, v=0 * x0, R=np.einsum("ij,njk->nik", Rz, R0))
    w.step(SimpleNamespace(written=True, t=1.0, step=1, kinematics=kin, outputs=[(system.families, None)]))
    w.commit_step()
    back = meshio.read(str(tmp_path / "q_00000.vtu"))
    np.testing.assert_allclose(back.point_data["rotation"], [[0, 0, t]] * 5, atol=1e-15)
    assert [(b.type, len(b.data)) for b in back.cells] == [("quad", 1), ("vertex", 1)]
    np.testing.assert_array_equal(back.cell_data["membrane_resultant"][0], [[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(back.cell_data["membrane_resultant"][1], [[0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(np.ravel(back.cell_data["thickness"][0]), [0.5])


def test_vtu_of_a_compressed_block(tmp_path):
    """The meshed block in uniaxial compression written for ParaView: displacement of the
    closed form, σ_zz = -p and von Mises = p at every node."""
    mesh, model = compression_model(tmp_path, "hexahedron20")
    base = str(tmp_path / "block")
    solve_static(model, steps=1, observers=[vtu.VTUWriter(base)])
    entries = pvd_entries(base + ".pvd")
    assert [t for t, _ in entries] == [0.0, 1.0]
    back = meshio.read(str(tmp_path / entries[-1][1]))
    assert [c.type for c in back.cells] == ["hexahedron20"]
    np.testing.assert_allclose(back.point_data["displacement"], uniaxial_displacement(back.points),
                               rtol=0, atol=1e-4 * P / E * L)
    np.testing.assert_allclose(back.point_data["cauchy_stress"], np.tile([0, 0, -P, 0, 0, 0], (len(back.points), 1)),
                               rtol=0, atol=1e-3 * P)
    np.testing.assert_allclose(back.point_data["von_mises"], P, rtol=1e-3)


def test_a_meshed_block_in_free_flight(tmp_path):
    """Dynamic displacement nodes all moving at V and no load: the block translates rigidly
    (u = V t), unstrained (σ = 0); the VTU cells are the mesh's, positive."""
    mesh = gmsh_block(tmp_path, "hexahedron20")
    V = np.array([0.3, -0.2, 0.1])
    model = Model()
    mesh.add_to_model(model, hookean_linear_elastic_isotropic(1e5, NU), 1.0, velocity=V)
    base = str(tmp_path / "fly")
    r = run(model, final_time=0.02, time_step=5e-3, observers=[vtu.VTUWriter(base)])
    entries = pvd_entries(base + ".pvd")
    assert [t for t, _ in entries] == pytest.approx([0.0, 0.005, 0.01, 0.015, 0.02], abs=1e-15)
    for (t, name), x in zip(entries, r.x):
        back = meshio.read(str(tmp_path / name))
        np.testing.assert_allclose(back.point_data["displacement"], np.tile(V * t, (len(back.points), 1)),
                                   rtol=0, atol=1e-9)
        np.testing.assert_allclose(back.point_data["velocity"], np.tile(V, (len(back.points), 1)), rtol=0,
                                   atol=1e-9)
        np.testing.assert_allclose(back.point_data["cauchy_stress"], 0, atol=1e-6)
    again = M.read_mesh(str(tmp_path / entries[-1][1]))
    assert again.volumes()["hexahedron20"].sum() == pytest.approx(L ** 3, rel=1e-13)
