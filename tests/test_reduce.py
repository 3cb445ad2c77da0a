"""Reduced bodies from mbdae's own meshes (engine/reduce.py, issue 16): the FEM data
file written by `reduce_structure` and read back by the modal joint.

- a free-free beam of hexahedron8 solids (lumped mass): the modal body of its free-interface
  modes, floating on a modal node, has the full solid model's frequencies (both from mbdae's
  eigenanalysis, QZ) to 1e-6, and the Craig–Bampton body's (rigid end faces) bound them from above;
- a cantilever from the same mesh (root face fixed, one tip node as interface): the static
  tip deflection of the Craig–Bampton body equals the full model's (the constraint modes
  are the static response to interface loads), and the tip's response to a step load
  converges to the full model's as fixed-interface modes are added;
- the rigid-body inertia written to the file is the solid's (mass, centre, inertia of the
  lumped masses, closed form), the file reads back unchanged, and bad requests are refused
  with the node or set they name."""
import os

import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.mesh import Mesh, mbdyn_to_vtk
from mbdae.cli import main
from mbdae.engine.io.vtu import VTUWriter
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic
from mbdae.engine.drivers.eigen import EigenSettings, analyze
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.drivers.static import StaticProblem
from mbdae.engine.reduce import linear_structure, reduce_structure, cholmod_cholesky
from mbdae.elements.modal_fem import read_fem_file, write_fem_file
from mbdae.elements.solid_meshes import box_mesh
from mbdae.elements.shell_meshes import rectangle_mesh
from mbdae.elements.shell import isotropic_shell_law, shell_masses
from mbdae.elements.beam import beam3_node_shares
from mbdae.engine.core import constitutive as laws
from mbdae.engine.core.drives import PiecewiseLinearDrive
from mbdae.engine.core.tpldrive import VectorDrive

E, NU, RHO = 2.1e11, 0.3, 7800.0
L, H = 1.0, 0.1
X, CONN, _ = box_mesh("hexahedron8", (10, 2, 2), (L, H, H))
ROOT = [int(k) + 1 for k in np.flatnonzero(X[:, 0] < 1e-9)]
TIP = int(np.flatnonzero((np.abs(X - [L, H / 2, H / 2]) < 1e-9).all(axis=1))[0]) + 1     # tip face centre
SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "mbdyn-tests")
SOLVERS = ["scipy"] + (["cholmod"] if cholmod_cholesky is not None else [])


def solid_model(node_kind="dynamic displacement"):
    m = Model()
    Mesh(X, {"hexahedron8": CONN}).add_to_model(m, hookean_linear_elastic_isotropic(E, NU), RHO,
                                                node_kind=node_kind, lumped_mass=True)
    return m


def frequencies(model, c=1e-3):
    """Nonzero frequencies (Hz), ascending, of mbdae's eigenanalysis (dense QZ; c about 1/ω of
    the modes compared, where the pencil's eigenvalues are best conditioned)."""
    s = System(model)
    r = analyze(s, s.initial_state(0.0), EigenSettings(times=(0.0,), method="lapack", lower_frequency=0.5,
                                                      parameter=c))
    return np.sort(r.frequencies)


@pytest.fixture(scope="module")
def structure():
    return linear_structure(solid_model())


def modal_model(fem_path, clamped=False, interface=None):
    m = Model()
    if clamped:
        m.structural_node(1, "static", position=[0.0, 0.0, 0.0])
        m.clamp(1, 1)
    else:
        m.structural_node(1, "modal", position=[0.0, 0.0, 0.0])
    ifs = [] if interface is None else [(interface[0], interface[1], [0.0, 0.0, 0.0])]
    if interface is not None:
        m.structural_node(interface[1], "static", position=X[TIP - 1])
    m.modal_joint(1, None if clamped else 1, read_fem_file(fem_path), interfaces=ifs, damping=("no damping",))
    return m


@pytest.mark.parametrize("solver", SOLVERS)
def test_free_free_modal_body_has_the_solid_frequencies(structure, solver, tmp_path):
    full = frequencies(solid_model())
    red = reduce_structure(structure, {}, (), 8, "free", solver=solver)
    assert red.n_rigid == 6 and red.fem.n_modes == 8
    path = tmp_path / "free.fem"
    write_fem_file(path, red.fem)
    modal = frequencies(modal_model(path))
    print(f"\nfree interface ({solver}): full {full[:8]}\n  modal {modal[:8]}")
    assert np.abs(modal[:8] / full[:8] - 1).max() < 1e-6
    assert np.abs(red.frequencies / full[:8] - 1).max() < 1e-6
    # Craig–Bampton on both end faces (two rigid masters, which stiffen the ends: their
    # frequencies bound the full model's from above, by 0.07 % to 6 % here)
    root = [l for l in structure.labels if X[l - 1, 0] < 1e-9]
    tip = [l for l in structure.labels if X[l - 1, 0] > L - 1e-9]
    cb = reduce_structure(structure, {"root": root, "tip": tip}, (), 8, solver=solver)
    assert cb.n_boundary == 12 and cb.fem.n_modes == 12 + 8 - 6
    assert (cb.frequencies[:6] >= full[:6] * (1 - 1e-9)).all()
    write_fem_file(path, cb.fem)
    modal = frequencies(modal_model(path))
    assert np.abs(modal[:10] / cb.frequencies[:10] - 1).max() < 1e-6


def test_free_free_shell_plate(tmp_path):
    """The same for a free aluminium plate of shell4easans (6-dof nodes, nodal bodies with
    rotary inertia, the EAS parameters condensed element by element)."""
    P, Q, _ = rectangle_mesh(1.0, 0.5, 8, 4)

    def plate():
        m = Model()
        Mesh(P, faces={"q4": Q}).add_shells_to_model(m, isotropic_shell_law(E=7e10, nu=0.3, thickness=0.01),
                                                     node_kind="dynamic")
        shell_masses(m, 1000, 2700.0, 0.01)
        return m
    full = frequencies(plate(), c=1e-2)
    red = reduce_structure(linear_structure(plate()), {}, (), 6, "free")
    path = tmp_path / "plate.fem"
    write_fem_file(path, red.fem)
    modal = frequencies(modal_model(path), c=1e-2)
    print(f"\nplate: full {full[:6]}\n  modal {modal[:6]}")
    assert np.abs(modal[:6] / full[:6] - 1).max() < 1e-6
    assert np.abs(red.fem.shapes_r).max() > 0.1 * np.abs(red.fem.shapes_t).max()     # rotations written


def test_rigid_body_inertia_and_file_round_trip(structure, tmp_path):
    red = reduce_structure(structure, {}, (), 3, "free")
    mass, c, J = red.fem.rigid
    m_node = RHO * L * H * H / len(X)           # not uniform: check against the lumped masses instead
    lumped = red.fem.lumped[:, 0]
    assert abs(mass - RHO * L * H * H) < 1e-9 * mass and abs(lumped.sum() - mass) < 1e-9 * mass
    xc = (lumped[:, None] * X).sum(axis=0) / mass
    d = X - xc
    Jx = (lumped[:, None, None] * (np.einsum("ni,ni->n", d, d)[:, None, None] * np.eye(3)
                                   - np.einsum("ni,nj->nij", d, d))).sum(axis=0)
    assert np.allclose(c, [L / 2, H / 2, H / 2], atol=1e-12) and np.allclose(c, xc, atol=1e-12)
    assert np.abs(J - Jx).max() < 1e-9 * np.abs(Jx).max() and m_node > 0
    path = tmp_path / "r.fem"
    write_fem_file(path, red.fem, comment="round trip")
    back = read_fem_file(path)
    assert back.labels == red.fem.labels
    for a in ("x", "shapes_t", "shapes_r", "mass", "stiffness", "lumped"):
        assert np.array_equal(getattr(back, a), getattr(red.fem, a)), a
    assert back.rigid[0] == mass and np.array_equal(back.rigid[2], J)


def tip_static(model, node, F):
    model.force(900, node, F, "absolute")
    res = StaticProblem(model, steps=1, tolerance=1e-4, max_iterations=20).run()     # round-off floor ~3e-6 N; K ~ 1e9 N/m
    return res.node(node)[0][-1]


@pytest.mark.parametrize("solver", SOLVERS)
def test_cantilever_static_tip_deflection_is_exact_with_craig_bampton(structure, solver, tmp_path):
    F = np.array([0.0, 0.0, -10.0])                   # tip deflection ~ 1e-6 L: linear to 1e-6
    full = solid_model("static displacement")
    for k, node in enumerate(ROOT):
        full.total_pin_joint(1000 + k, node, absolute_position=X[node - 1],
                             position_status=("active",) * 3, orientation_status=("inactive",) * 3)
    u_full = tip_static(full, TIP, F) - X[TIP - 1]
    red = reduce_structure(structure, {"tip": [TIP]}, ROOT, 0, solver=solver)
    assert red.n_rigid == 0 and red.n_boundary == 3 and red.fem.n_modes == 3
    path = tmp_path / "cb.fem"
    write_fem_file(path, red.fem)
    u_modal = tip_static(modal_model(path, clamped=True, interface=(str(TIP), 2)), 2, F) - X[TIP - 1]
    print(f"\ntip deflection: full {u_full}, Craig–Bampton {u_modal}")
    assert np.abs(u_modal - u_full).max() < 1e-5 * np.abs(u_full).max()


def tip_history(model, node, F, T, h):
    model.force(900, node, F, "absolute")
    p = InitialValueProblem(model, final_time=T, time_step=h, method="ms", rho=0.6, tolerance=1e-5)
    res = p.run()
    return res.node(node)[0][:, 2]


def test_cantilever_step_response_converges_with_modes(structure, tmp_path):
    F, T, h = np.array([0.0, 0.0, -1e3]), 0.03, 2e-4
    full = solid_model()
    for k, node in enumerate(ROOT):
        full.total_pin_joint(1000 + k, node, absolute_position=X[node - 1],
                             position_status=("active",) * 3, orientation_status=("inactive",) * 3)
    z_full = tip_history(full, TIP, F, T, h)
    errors = []
    for n in (0, 2, 6, 14):
        red = reduce_structure(structure, {"tip": [TIP]}, ROOT, n)
        path = tmp_path / f"cb{n}.fem"
        write_fem_file(path, red.fem)
        z = tip_history(modal_model(path, clamped=True, interface=(str(TIP), 2)), 2, F, T, h)
        errors.append(np.abs(z - z_full).max() / np.abs(z_full - z_full[0]).max())
    print(f"\nstep response, max error / max deflection with 0, 2, 6, 14 modes: {errors}")
    assert errors[0] > 0.05 and errors[-1] < 0.01
    assert all(b < a for a, b in zip(errors, errors[1:]))


@pytest.mark.parametrize("args,words", [
    (dict(interfaces={"a": [99999]}), "node 99999 is not in the model"),
    (dict(interfaces={"a": [1], "b": [1, 2]}), "node 1 is in interfaces 'a' and 'b'"),
    (dict(interfaces={"a": [ROOT[0]]}, fixed=ROOT), "also fixed"),
    (dict(interfaces={"a": [TIP]}), "do not hold the body's rigid motion"),
    (dict(interfaces={}, method="modal"), "method 'modal'"),
    (dict(interfaces={}), "Craig–Bampton needs interface nodes"),
])
def test_bad_requests(structure, args, words):
    with pytest.raises(ValueError, match=words):
        reduce_structure(structure, **args)


def test_constraints_are_refused():
    m = solid_model()
    m.total_pin_joint(1, 1, absolute_position=X[0], position_status=("active",) * 3,
                      orientation_status=("inactive",) * 3)
    with pytest.raises(ValueError, match="constraint equations"):
        linear_structure(m)


def test_command_line_reduces_a_mesh_file(tmp_path, capsys):
    """`mbdae reduce` on an Abaqus .inp of the beam (node sets by NSET): the free-interface
    file's frequencies √(K/M) are the full solid model's; a missing set is one clear line."""
    meshio = pytest.importorskip("meshio")
    cell_type, p = mbdyn_to_vtk("hexahedron8")
    mesh = meshio.Mesh(X, [(cell_type, CONN[:, p])],
                       point_sets={"root": np.array(ROOT) - 1, "tip": np.array([TIP - 1])})
    path = str(tmp_path / "beam.inp")
    meshio.write(path, mesh)
    out = str(tmp_path / "beam.fem")
    common = [path, "-o", out, "--young", str(E), "--poisson", str(NU), "--density", str(RHO)]
    assert main(["reduce", *common, "--method", "free", "--modes", "6"]) == 0
    fem = read_fem_file(out)
    f = np.sqrt(np.diag(fem.stiffness) / np.diag(fem.mass)) / (2 * np.pi)
    full = frequencies(solid_model())
    assert np.abs(f / full[:6] - 1).max() < 1e-6
    assert "frequencies (Hz)" in capsys.readouterr().out
    assert main(["reduce", *common, "--interface", "tip", "--fixed", "root", "--modes", "4",
                 "--stress-stiffening"]) == 0
    fem = read_fem_file(out)
    assert fem.n_modes == 3 + 4 and str(TIP) in fem.labels and sorted(fem.stiffening) == list(range(1, 16))
    assert main(["reduce", *common, "--interface", "hub"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--interface 'hub': no such node set in the mesh (sets: root, tip)" in err[0]


# ---------------------------------------------------------------------- stress stiffening
BL, BE, BB, BNE = 1.0, 2.1e11, 0.02, 8                  # blade: length, E, square side, beam3 elements
BLADE_LAW = laws.isotropic_beam_section(BE, BB * BB, 0.141 * BB ** 4, BB ** 4 / 12, BB ** 4 / 12, nu=NU)


def beam3_blade(model, omega):
    """The blade as beam3 elements with lumped bodies, spinning at ω about z."""
    share = beam3_node_shares(BNE, BL)
    for k in range(2 * BNE + 1):
        x = np.array([BL * k / (2 * BNE), 0.0, 0.0])
        model.structural_node(1 + k, "dynamic", position=x, velocity=np.cross([0, 0, omega], x),
                              angular_velocity=[0, 0, omega])
        m = RHO * BB * BB * share[k]
        model.body(101 + k, 1 + k, m, inertia=[m * BB * BB / 6, m * BB * BB / 12, m * BB * BB / 12])
    for e in range(BNE):
        model.beam3(201 + e, 1 + 2 * e, 2 + 2 * e, 3 + 2 * e, BLADE_LAW)
    return 1 + 2 * BNE


def spun_tip_deflection(model, hub, tip, omega, F=10.0, ramp=1.0, final=1.4):
    """Mean flapwise tip deflection after a slow ramp of a tip force F (z) on a blade whose
    hub is pinned and spun at ω about z."""
    model.total_pin_joint(900, hub, absolute_position=[0, 0, 0], position_status=("active",) * 3,
                          orientation_status=("active", "active", "angular velocity"), orientation_drive=[0, 0, omega])
    model.force(999, tip, VectorDrive.single([0, 0, F], PiecewiseLinearDrive([(0.0, 0.0), (ramp, 1.0), (1e3, 1.0)])),
                "absolute")
    res = InitialValueProblem(model, final_time=final, time_step=1e-3, method="ms", rho=0.6, tolerance=1e-5).run()
    t, z = np.asarray(res.t), res.node(tip)[0][:, 2]
    return z[t > ramp + 0.05].mean()


def test_rotating_modal_blade_stiffens_only_with_stress_stiffening(tmp_path):
    """A steel blade (1 m, 20 mm square) as hexahedron20 solids reduced with its root fixed
    and its tip face as interface, stress stiffening on (record 19 from the solids' initial-
    stress stiffness), against the same blade as beam3 elements: spun at 100 rad/s (about its
    first flap frequency) with a tip flap force, the beam3 blade deflects 0.48× as much as at
    rest (centrifugal stiffening); the modal blade does the same to 1 % with the stiffening
    and not at all without it."""
    X, conn, _ = box_mesh("hexahedron20", (20, 1, 1), (BL, BB, BB))
    X[:, 1:] -= BB / 2
    m = Model()
    Mesh(X, {"hexahedron20": conn}).add_to_model(m, hookean_linear_elastic_isotropic(BE, NU), RHO,
                                                node_kind="dynamic displacement", lumped_mass=True)
    root = [int(k) + 1 for k in np.flatnonzero(X[:, 0] < 1e-9)]
    tip = [int(k) + 1 for k in np.flatnonzero(X[:, 0] > BL - 1e-9)]
    red = reduce_structure(linear_structure(m), {"tip": tip}, root, 6, stress_stiffening=True)
    assert sorted(red.fem.stiffening) == list(range(1, 19))         # 12 inertia cases, 6 at the tip
    path = tmp_path / "blade.fem"
    write_fem_file(path, red.fem)
    out = {}
    for omega in (0.0, 100.0):
        mb = Model()
        out["beam3", omega] = spun_tip_deflection(mb, 1, beam3_blade(mb, omega), omega)
        for stiffening in (True, False):
            fem = read_fem_file(path)
            if not stiffening:
                fem.stiffening = None
            mm = Model()
            mm.structural_node(1, "modal", position=[0, 0, 0], angular_velocity=[0, 0, omega])
            mm.structural_node(2, "static", position=[BL, 0, 0], velocity=[0, omega * BL, 0],
                               angular_velocity=[0, 0, omega])
            mm.modal_joint(1, 1, fem, interfaces=[("tip", 2, [0, 0, 0])], damping=("no damping",))
            out["modal", stiffening, omega] = spun_tip_deflection(mm, 1, 2, omega)
    print("\n" + "\n".join(f"{k}: {v:.6e}" for k, v in out.items()))
    ratio = out["beam3", 100.0] / out["beam3", 0.0]
    assert 0.4 < ratio < 0.55
    assert abs(out["modal", True, 0.0] / out["beam3", 0.0] - 1) < 0.015            # solid vs beam theory
    assert abs(out["modal", True, 100.0] / out["beam3", 100.0] - 1) < 0.015
    assert abs(out["modal", False, 100.0] / out["modal", False, 0.0] - 1) < 1e-3   # no stiffening without it


def test_records_14_to_19_read_and_write(tmp_path):
    """MBDyn's development-branch records in the rotordynamics FEM file (invariants 3, 4, 8,
    5, 9 and 24 stress stiffening matrices for 2 interface nodes) read, written and read back
    unchanged; a stiffening load case beyond the joint's interfaces is an error naming it."""
    path = os.path.join(SHARED, "solid", "rotordynamics", "mbdyn_test_solid_cms.fem")
    if not os.path.isfile(path):
        pytest.skip("MBDyn's rotordynamics FEM file (../shared) not available")
    fem = read_fem_file(path)
    assert fem.n_modes == 22 and sorted(fem.stiffening) == list(range(1, 25)) and fem.lumped is None
    assert {k: v.shape for k, v in fem.invariants.items()} == {"I3": (3, 22), "I4": (3, 22), "I8": (22, 3, 3),
                                                                "I5": (22, 3, 22), "I9": (22, 22, 3, 3)}
    out = tmp_path / "again.fem"
    write_fem_file(out, fem)
    back = read_fem_file(out)
    for k, v in fem.invariants.items():
        assert np.array_equal(back.invariants[k], v), k
    for k, v in fem.stiffening.items():
        assert np.array_equal(back.stiffening[k], v), k
    m = Model()
    m.structural_node(1, "modal", position=[0, 0, 0])
    m.structural_node(2, "static", position=[0, 0, 0])
    m.modal_joint(1, 1, fem, interfaces=[(fem.labels[1], 2, [0, 0, 0])])
    with pytest.raises(ValueError, match="load case 19 belongs to interface node 2; the joint has 1 interface"):
        System(m)


def test_beam3_blade_keeps_its_unsymmetric_stiffness(tmp_path):
    """MBDyn's beam3 is a finite-volume element with an unsymmetric K (symmetrized, the
    cantilever would be 8 % too soft): reduced with the root fixed and the tip node as
    interface, the modal blade has the beam3 blade's static tip deflection (its linear
    solution, the rest is the beam's geometric nonlinearity at this load) and first frequency
    (mbdae's eigenanalysis of the beam3 model)."""
    m = Model()
    tip = beam3_blade(m, 0.0)
    st = linear_structure(m)
    assert st.asymmetry > 1e-4
    red = reduce_structure(st, {"tip": [tip]}, [1], 4)
    clamped = Model()
    beam3_blade(clamped, 0.0)
    clamped.clamp(900, 1)
    full = frequencies(clamped, c=1e-2)
    assert abs(red.frequencies[0] / full[0] - 1) < 1e-4
    static = Model()
    beam3_blade(static, 0.0)
    static.clamp(900, 1)
    u_beam = tip_static(static, tip, [0.0, 0.0, 10.0])[2]
    path = tmp_path / "blade.fem"
    write_fem_file(path, red.fem)
    mm = Model()
    mm.structural_node(1, "static", position=[0.0, 0.0, 0.0])
    mm.clamp(1, 1)
    mm.structural_node(2, "static", position=[BL, 0.0, 0.0])
    mm.modal_joint(1, None, read_fem_file(path), interfaces=[(str(tip), 2, [0.0, 0.0, 0.0])])
    u_modal = tip_static(mm, 2, [0.0, 0.0, 10.0])[2]
    print(f"\nbeam3 blade: tip {u_beam:.6e} (beam3) {u_modal:.6e} (modal); f1 {full[0]:.6f} {red.frequencies[0]:.6f} Hz")
    assert abs(u_modal / u_beam - 1) < 2e-4


def test_vtu_of_the_deformed_modal_mesh(tmp_path):
    """`mbdae reduce` writes the mesh beside the FEM file; a run of the modal cantilever with
    VTU output writes the hexahedra deformed by the modes: the FE tip point moves as the
    interface node clamped to it (to rounding) and the root points not at all."""
    meshio = pytest.importorskip("meshio")
    cell_type, p = mbdyn_to_vtk("hexahedron8")
    path = str(tmp_path / "beam.inp")
    meshio.write(path, meshio.Mesh(X, [(cell_type, CONN[:, p])],
                                   point_sets={"root": np.array(ROOT) - 1, "tip": np.array([TIP - 1])}))
    fem = str(tmp_path / "beam.fem")
    assert main(["reduce", path, "-o", fem, "--young", str(E), "--poisson", str(NU), "--density", str(RHO),
                 "--interface", "tip", "--fixed", "root", "--modes", "4"]) == 0
    m = modal_model(fem, clamped=True, interface=(str(TIP), 2))
    m.force(900, 2, [0.0, 0.0, -1e3], "absolute")
    writer = VTUWriter(str(tmp_path / "out" / "beam"), "deformed")
    InitialValueProblem(m, final_time=2e-3, time_step=2e-4, method="ms", rho=0.6, tolerance=1e-6,
                        observers=[writer]).run()
    last = meshio.read(str(tmp_path / "out" / "beam_00010.vtu"))
    assert "hexahedron" in last.cells_dict and len(last.cells_dict["hexahedron"]) == len(CONN)
    n_struct = 2
    fe = last.points[n_struct:]
    assert len(fe) == len(X)
    u = last.point_data["displacement"]
    tip_node = last.points[1]                                    # structural node 2 (interface)
    assert np.abs(fe[TIP - 1] - tip_node).max() < 1e-12 and abs(u[1][2]) > 1e-7
    assert np.abs(u[n_struct:][np.array(ROOT) - 1]).max() == 0.0
