"""Shell models from mesh files (meshio: Abaqus .inp, gmsh .msh) with named node sets for the
supports and the loads, and their VTU series.

The Scordelis-Lo roof (tests/test_shell_benchmarks.py) written to each format by meshio and
read back: the node sets hold the symmetry planes and the diaphragm (total pin joints), the
self-weight is applied as consistent nodal forces on every quadrilateral, and the linear
response (one Newton step from the reference with the joints' multipliers) gives the
benchmark's deflection, the same as the model built from the generator to round-off."""
import numpy as np
import pytest
from scipy.sparse.linalg import spsolve

meshio = pytest.importorskip("meshio")

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.mesh import read_mesh
from mbdae.elements.shell import isotropic_shell_law
from mbdae.elements.shell_meshes import cylinder_mesh

R, HALF_LENGTH, T, E, WEIGHT, N = 25.0, 25.0, 0.25, 4.32e8, 90.0, 16


def roof_file(path, file_format):
    """The quarter roof as a meshio file with node sets diaphragm, midspan, crown, corner."""
    X, quads, lat = cylinder_mesh(R, 0.0, HALF_LENGTH, 0.0, np.radians(40.0), N, N)
    vtk = quads[:, [2, 3, 0, 1]]                 # MBDyn's order (+,+) first -> VTK's (-,-) first
    sets = {"diaphragm": lat[:, 0] == N, "midspan": lat[:, 0] == 0, "crown": lat[:, 1] == 0,
            "corner": (lat[:, 0] == 0) & (lat[:, 1] == N)}
    point_sets = {k: np.flatnonzero(v) for k, v in sets.items()}
    m = meshio.Mesh(X, [("quad", vtk)], point_sets=point_sets)
    if file_format == "gmsh22":
        # gmsh names sets by physical groups: one vertex cell per set point, tagged by set
        names = list(point_sets)
        cells = [("quad", vtk)] + [("vertex", point_sets[k][:, None]) for k in names]
        tags = [np.ones(len(vtk), int)] + [np.full(len(point_sets[k]), 2 + i) for i, k in enumerate(names)]
        m = meshio.Mesh(X, cells, cell_data={"gmsh:physical": tags, "gmsh:geometrical": tags},
                        field_data={"roof": np.array([1, 2]), **{k: np.array([2 + i, 0]) for i, k in enumerate(names)}})
    meshio.write(path, m, file_format=file_format)
    return X


@pytest.mark.parametrize("file_format,suffix", [("abaqus", ".inp"), ("gmsh22", ".msh")])
def test_roof_from_a_mesh_file(tmp_path, file_format, suffix):
    path = str(tmp_path / f"roof{suffix}")
    X = roof_file(path, file_format)
    mesh = read_mesh(path)
    assert set(mesh.faces) == {"q4"} and len(mesh.faces["q4"]) == N * N
    model = Model()
    nodes, shells = mesh.add_shells_to_model(model, isotropic_shell_law(E=E, nu=0.0, thickness=T), "shell4easans")
    assert len(shells) == N * N
    holds = mesh.hold(model, {"diaphragm": ((2, 3), (1,)), "midspan": ((1,), (2, 3)), "crown": ((2,), (1, 3))},
                      10_000)
    assert len(holds) == 3 * N + 1               # the sets share two corner nodes
    loads = mesh.shell_load(model, (0.0, 0.0, -WEIGHT), 40_000)
    assert len(loads) == len(X)
    system = System(model)
    st = system.initial_state(0.0)
    f, _, J = system.evaluate(st, 1.0)
    dx = spsolve(J.tocsc(), -f)
    corner = mesh.node_sets["corner"]
    assert len(corner) == 1
    k = system.nodes.index(nodes[int(corner[0])])
    w = -dx[system.nodes.ix[k, 2]]
    # the same discretization as test_shell_benchmarks.py's 16 x 16 roof: 0.3024 within 1 %
    assert abs(w / 0.3024 - 1) < 0.01, w
    # the total load the nodal forces carry: the weight of the quarter roof
    area = R * np.radians(40.0) * HALF_LENGTH
    total = sum(s.value.value(0.0) for s in model.forces)[2]
    assert abs(total + WEIGHT * area) < 2e-3 * WEIGHT * area
