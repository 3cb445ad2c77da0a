"""`mbdae reduce MESH -o BODY.fem --young E --poisson NU --density RHO [--thickness H]
[--interface SET ...] [--fixed SET ...] [--modes N] [--method craig-bampton|free]
[--solver auto|cholmod|scipy] [--consistent-mass] [--stress-stiffening]`: a modal body from a mesh, written as
MBDyn's FEM data file for `joint: ..., modal, ...` (engine/reduce.py).

The mesh (any format meshio reads; gmsh physical groups or Abaqus NSETs give the node sets)
holds solids (a Hookean isotropic law; lumped masses unless --consistent-mass) or
4-node quadrilaterals (shell4easans of thickness H, nodal bodies as shell_masses).
Each --interface set becomes one boundary node: the set's node when it has one, else a
rigid 6-dof master at its centroid named after the set (the FEM node label to clamp a
multibody node to).  --fixed sets are clamped.  Prints the modes' frequencies and the time
of each part.  Beside BODY.fem, BODY.fem.vtu holds the mesh with each point's FEM node
label: `mbdae run --vtu` then writes the modal body's deformed mesh."""
import sys
import time

import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.mesh import read_mesh, load_meshio
from mbdae.engine.io.vtu import vtk_cells
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic
from mbdae.elements.shell import isotropic_shell_law, shell_masses
from mbdae.elements.modal_fem import write_fem_file
from mbdae.engine.reduce import linear_structure, reduce_structure, METHODS, SOLVERS


def add_arguments(p):
    p.add_argument("mesh", help="mesh file (meshio: .msh, .inp, .vtu, ...)")
    p.add_argument("-o", "--output", required=True, help="the FEM data file to write")
    p.add_argument("--young", type=float, required=True, help="Young's modulus")
    p.add_argument("--poisson", type=float, required=True, help="Poisson's ratio")
    p.add_argument("--density", type=float, required=True, help="mass density")
    p.add_argument("--thickness", type=float, help="shell thickness (quadrilateral meshes)")
    p.add_argument("--interface", nargs="+", default=[], metavar="SET", help="interface node sets")
    p.add_argument("--fixed", nargs="+", default=[], metavar="SET", help="clamped node sets")
    p.add_argument("--modes", type=int, default=10,
                   help="fixed-interface modes (craig-bampton) or modes (free); default 10")
    p.add_argument("--method", choices=METHODS, default="craig-bampton")
    p.add_argument("--solver", choices=SOLVERS, default="auto",
                   help="sparse SPD factorization: CHOLMOD (scikit-sparse) when found, else SciPy's SuperLU")
    p.add_argument("--consistent-mass", action="store_true", help="solids: consistent instead of lumped mass")
    p.add_argument("--stress-stiffening", action="store_true",
                   help="solids: also write the stress stiffening matrices (record 19), prestress with the fixed "
                        "sets held; list the interfaces in the modal joint in the order given here")
    p.add_argument("--hex20r", action="store_true", help="20-node hexahedra are MBDyn's hexahedron20r")


def mesh_model(mesh, args):
    """(Model, {point: node label}) of the mesh's solids, or of its quadrilaterals as shells."""
    model = Model()
    if mesh.solids:
        law = hookean_linear_elastic_isotropic(args.young, args.poisson)
        labels, _ = mesh.add_to_model(model, law, args.density, node_kind="dynamic displacement",
                                      lumped_mass=not args.consistent_mass)
        return model, labels
    if "q4" not in mesh.faces:
        raise ValueError(f"{args.mesh}: no solid cells and no 4-node quadrilaterals to reduce")
    if args.thickness is None:
        raise ValueError(f"{args.mesh}: a quadrilateral (shell) mesh needs --thickness")
    D = isotropic_shell_law(E=args.young, nu=args.poisson, thickness=args.thickness)
    labels, _ = mesh.add_shells_to_model(model, D, node_kind="dynamic")
    shell_masses(model, max(labels.values()) + 1, args.density, args.thickness)
    return model, labels


def write_mesh_beside(path, mesh, labels):
    """`<path>.vtu`: the mesh's cells (VTK order) with the FEM node label of each point
    (`fem_label`, -1 for points of no node): the modal joint reads it to write its deformed
    mesh in `mbdae run --vtu` (elements/modal.py)."""
    cells = [vtk_cells(shape, conn) for shape, conn in mesh.solids.items()]
    if not mesh.solids and "q4" in mesh.faces:
        cells = [("quad", mesh.faces["q4"])]
    fem_label = np.full(len(mesh.points), -1, np.int64)
    for p, label in labels.items():
        fem_label[p] = label
    load_meshio().write(f"{path}.vtu", load_meshio().Mesh(mesh.points, cells, point_data={"fem_label": fem_label}))


def node_set(mesh, labels, name, what):
    if name not in mesh.node_sets:
        known = ", ".join(sorted(mesh.node_sets)) or "none"
        raise ValueError(f"{what} {name!r}: no such node set in the mesh (sets: {known})")
    return [labels[int(p)] for p in mesh.node_sets[name] if int(p) in labels]


def command(args):
    t0 = time.perf_counter()
    mesh = read_mesh(args.mesh, hex20="hexahedron20r" if args.hex20r else "hexahedron20")
    model, labels = mesh_model(mesh, args)
    interfaces = {name: node_set(mesh, labels, name, "--interface") for name in args.interface}
    fixed = [n for name in args.fixed for n in node_set(mesh, labels, name, "--fixed")]
    t_read = time.perf_counter() - t0
    t0 = time.perf_counter()
    structure = linear_structure(model)
    t_structure = time.perf_counter() - t0
    red = reduce_structure(structure, interfaces, fixed, args.modes, args.method, args.solver, path=args.output,
                           stress_stiffening=args.stress_stiffening)
    t0 = time.perf_counter()
    write_fem_file(args.output, red.fem, comment=f"mbdae reduce {args.mesh}: {args.method}, "
                                                 f"{red.n_boundary} boundary unknowns, "
                                                 f"{red.n_fixed_interface} fixed-interface modes")
    write_mesh_beside(args.output, mesh, labels)
    t_write = time.perf_counter() - t0
    out = sys.stdout
    print(f"mbdae reduce: {len(structure.labels)} nodes, {structure.n_dof} unknowns; {args.method}: "
          f"{red.n_boundary} boundary unknowns, {red.n_fixed_interface} "
          f"{'fixed-interface ' if args.method == 'craig-bampton' else ''}modes, {red.n_rigid} rigid modes "
          f"dropped; {red.fem.n_modes} modes written to {args.output}", file=out)
    print("frequencies (Hz): " + " ".join(f"{f:.6g}" for f in red.frequencies), file=out)
    parts = {"mesh and model": t_read, "K and M": t_structure, **red.timings, "writing": t_write}
    print(f"time ({red.solver}): " + ", ".join(f"{k} {v:.3g} s" for k, v in parts.items()), file=out)
    return 0
