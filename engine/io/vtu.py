"""Results for ParaView: a .pvd collection and one .vtu file per output step (written by
meshio, the optional extra `mesh`).

Points are the structural nodes, in the reference configuration with the displacement as
point data (ParaView: Warp By Vector) or in the deformed one; cells are those of the
families that offer `cells()` (solids, shells, membranes: an MBDyn shape and
structural-node indices in MBDyn's order, or a VTK cell type and indices in VTK's order),
nodes in no cell are vertex cells.  Point data: displacement, velocity, rotation (the
rotation vector of R R₀ᵀ, from the reference orientation) and, with solids, cauchy_stress
(Voigt order xx, yy, zz, xy, yz, zx), cauchy_stress_tensor (3×3, row major) and von_mises,
the stress averaged at the nodes (`family.nodal_cauchy_stress(ctx)`).  Cell data: what the
families give per cell (`family.cell_data(ctx)` -> {name: (ne, k)}, e.g. the shells'
membrane and bending resultants), zero on the cells of the other families.

Families may also bring points of their own after the structural nodes (`vtu_cells()` ->
[(VTK cell type, own point indices)], `vtu_points(ctx)` -> (reference, current, velocity)):
the FE mesh of a modal body reduced by `mbdae reduce` (elements/modal.py), deformed by its
modes; their rotation and stresses are written as zero."""
import os
from html import escape     # (xml.sax.saxutils would import urllib, http and ssl: 45 ms)

import numpy as np

from mbdae.engine.core.rotations import log_rotvec
from mbdae.engine.io.failures import write_failure
from mbdae.engine.mesh import MBDYN_NODES, UPC, load_meshio, mbdyn_to_vtk


# VTK cell type names (vtkCellType.h) -> meshio's
VTK_NAMES = {"VTK_VERTEX": "vertex", "VTK_HEXAHEDRON": "hexahedron", "VTK_QUADRATIC_HEXAHEDRON": "hexahedron20",
             "VTK_TRIQUADRATIC_HEXAHEDRON": "hexahedron27", "VTK_QUADRATIC_WEDGE": "wedge15",
             "VTK_QUADRATIC_TETRA": "tetra10", "VTK_TETRA": "tetra", "VTK_WEDGE": "wedge",
             "VTK_QUAD": "quad", "VTK_QUADRATIC_QUAD": "quad8", "VTK_BIQUADRATIC_QUAD": "quad9",
             "VTK_QUADRATIC_TRIANGLE": "triangle6", "VTK_TRIANGLE": "triangle"}

# u/p-c shape -> its displacement shape (the same nodes)
_UPC_BASE = {name: base for base, (name, _) in UPC.items()}

VOIGT = ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (2, 0))        # xx, yy, zz, xy, yz, zx


def stress_tensor(s):
    """(n, 3, 3) symmetric tensors from Voigt rows (n, 6) xx, yy, zz, xy, yz, zx."""
    s = np.asarray(s, float).reshape(-1, 6)
    T = np.empty((len(s), 3, 3))
    for k, (i, j) in enumerate(VOIGT):
        T[:, i, j] = T[:, j, i] = s[:, k]
    return T


def von_mises(s):
    """Von Mises stress of Voigt rows (n, 6)."""
    s = np.asarray(s, float).reshape(-1, 6)
    xx, yy, zz, xy, yz, zx = s.T
    return np.sqrt(0.5 * ((xx - yy) ** 2 + (yy - zz) ** 2 + (zz - xx) ** 2) + 3.0 * (xy ** 2 + yz ** 2 + zx ** 2))


def vtk_cells(kind, conn):
    """(meshio cell type, connectivity in VTK order) of cells given by an MBDyn shape name
    (MBDyn order, u/p-c names too) or by a VTK/meshio cell type (VTK order)."""
    shape = _UPC_BASE.get(kind, kind)
    conn = np.asarray(conn, np.int64)
    if shape in MBDYN_NODES:
        cell_type, p = mbdyn_to_vtk(shape)
        return cell_type, conn.reshape(len(conn), -1)[:, p]
    return VTK_NAMES.get(kind, kind), conn


def write_vtu(path, points, cells, point_data, cell_data=None):
    """One .vtu file: points (n, 3), cells [(kind, (ne, nn) point indices)] (see
    vtk_cells), point data {name: (n,) or (n, k)}, cell data {name: [(ne, k) per cells
    entry]}; a stress in Voigt rows under "cauchy_stress" also gives
    "cauchy_stress_tensor" and "von_mises".  Points in no cell become vertex cells (zero
    cell data)."""
    points = np.asarray(points, float).reshape(-1, 3)
    cell_data = cell_data or {}
    blocks, used, kept = [], np.zeros(len(points), bool), []
    for i, (kind, conn) in enumerate(cells):
        kind, conn = vtk_cells(kind, conn)
        if len(conn):
            blocks.append((kind, conn))
            kept.append(i)
            used[conn.ravel()] = True
    data_blocks = {name: [np.asarray(v[i], float) for i in kept] for name, v in cell_data.items()}
    if not used.all():
        free = np.flatnonzero(~used)
        blocks.append(("vertex", free[:, None]))
        for name, v in data_blocks.items():
            v.append(np.zeros((len(free),) + v[0].shape[1:]) if v else np.zeros(len(free)))
    data = {k: np.asarray(v, float) for k, v in point_data.items()}
    if "cauchy_stress" in data:
        s = data["cauchy_stress"].reshape(len(points), 6)
        data["cauchy_stress_tensor"] = stress_tensor(s).reshape(len(points), 9)
        data["von_mises"] = von_mises(s)
    meshio = load_meshio()
    meshio.write(path, meshio.Mesh(points, blocks, point_data=data, cell_data=data_blocks or None),
                 file_format="vtu")


def write_pvd(path, entries):
    """A ParaView collection of (time, file) pairs; file names relative to the .pvd."""
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">', "<Collection>"]
    lines += [f'<DataSet timestep="{t!r}" group="" part="0" file="{escape(f, quote=True)}"/>' for t, f in entries]
    lines += ["</Collection>", "</VTKFile>", ""]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


def nodal_average(stresses, counts):
    """Stress at the nodes from several families: each family's nodal average (n, 6)
    weighted by its number of elements at each node (n,)."""
    total = np.zeros(len(counts[0]) if counts else 0)
    out = np.zeros((len(total), 6))
    for s, c in zip(stresses, counts):
        out += np.asarray(s, float) * c[:, None]
        total = total + c
    hit = total > 0
    out[hit] /= total[hit, None]
    return out


class VTUWriter:
    """Observer of any driver: `base`.pvd and `base`_NNNNN.vtu per output step.
    `configuration`: "reference" (points at the initial node positions, displacement as
    point data) or "deformed".  The .pvd is rewritten at each step, so a run that stops
    keeps a valid collection.  A step's .vtu is written under a temporary name by `step()`
    and renamed with the .pvd rewritten by `commit_step()` (engine/core/stop.publish_step),
    so the collection lists whole steps only, the same as the text files'."""

    def __init__(self, base, configuration="reference"):
        if configuration not in ("reference", "deformed"):
            raise ValueError(f"configuration must be 'reference' or 'deformed', not {configuration!r}")
        load_meshio()
        self.base, self.configuration = base, configuration
        self.entries = []
        self.staged = None          # (temporary file, final file, entry, step) of the step written
        self.last_step = self.previous_step = None     # the last step the collection lists, the one before

    def start(self, system, model, method=None):
        """The reference positions and orientations, the families with cells (`cells()`) and
        their cells, once."""
        d = os.path.dirname(self.base)
        try:
            if d:
                os.makedirs(d, exist_ok=True)
            write_pvd(self.base + ".pvd", [])
        except OSError as e:
            raise write_failure(self.base + ".pvd", e) from None
        self.x0 = system.nodes.x0.copy()
        self.R0 = system.nodes.R0.copy()
        self.meshed = [f for f in system.families if hasattr(f, "cells")]
        self.solids = [f for f in self.meshed if hasattr(f, "nodal_cauchy_stress")]
        self.cells, self.counts, self.owner = [], [], []   # cells; elements of each solid family at each node
        for k, f in enumerate(self.meshed):
            cells = f.cells()
            cells = [cells] if isinstance(cells[0], str) else list(cells)
            if f in self.solids:
                c = np.zeros(len(self.x0))
                for _, conn in cells:
                    np.add.at(c, np.asarray(conn, np.int64).ravel(), 1.0)
                self.counts.append(c)
            self.cells += cells
            self.owner += [k] * len(cells)
        # families with points of their own (after the structural nodes)
        self.extra, offset = [], len(self.x0)
        for f in system.families:
            cells = f.vtu_cells() if hasattr(f, "vtu_cells") else []
            if not cells:
                continue
            npts = 1 + max(int(np.asarray(c).max()) for _, c in cells)
            self.extra.append((f, offset, npts))
            self.cells += [(kind, np.asarray(c, np.int64) + offset) for kind, c in cells]
            self.owner += [-1] * len(cells)
            offset += npts
        self.entries = []

    def log(self, text):
        """The run log is not part of the VTU output."""

    def step(self, event):
        if not event.written:
            return
        kin = event.kinematics
        ref, cur, vel = [self.x0], [kin.x], [kin.v]
        ctx_of = {f.name: ctx for families, ctx in event.outputs for f in families}
        first = event.outputs[0][1] if event.outputs else None
        for f, _, npts in self.extra:
            r, c, v = f.vtu_points(ctx_of.get(f.name, first))
            ref.append(r), cur.append(c), vel.append(v)
        ref, cur, vel = np.concatenate(ref), np.concatenate(cur), np.concatenate(vel)
        rotation = log_rotvec(np.einsum("nij,nkj->nik", kin.R, self.R0))
        data = {"displacement": cur - ref, "velocity": vel,
                "rotation": np.concatenate([rotation, np.zeros((len(ref) - len(rotation), 3))])}
        evaluated = self._evaluated(event)
        if self.solids:
            stress = nodal_average([f.nodal_cauchy_stress(ctx) for f, ctx in evaluated if f in self.solids],
                                   self.counts)
            data["cauchy_stress"] = np.concatenate([stress, np.zeros((len(ref) - len(stress), 6))])
        name = f"{os.path.basename(self.base)}_{len(self.entries):05d}.vtu"
        points = ref if self.configuration == "reference" else cur
        path = os.path.join(os.path.dirname(self.base), name)
        tmp = path + ".tmp"
        try:
            write_vtu(tmp, points, self.cells, data, self._cell_data(evaluated))
        except BaseException as e:
            _remove(tmp)
            if isinstance(e, OSError):
                raise write_failure(path, e, event.step, float(event.t), self.last_step) from None
            raise
        self.staged = (tmp, path, (float(event.t), name), event.step)

    def commit_step(self):
        """The staged .vtu under its name and in the .pvd (OutputError on a write error)."""
        if self.staged is None:
            return
        (tmp, path, entry, step), self.staged = self.staged, None
        try:
            os.replace(tmp, path)
            write_pvd(self.base + ".pvd", self.entries + [entry])
        except BaseException as e:
            _remove(tmp)
            _remove(path)
            if isinstance(e, OSError):
                raise write_failure(self.base + ".pvd", e, step, entry[0], self.last_step) from None
            raise
        self.entries.append(entry)
        self.previous_step, self.last_step = self.last_step, step

    def discard_step(self):
        if self.staged is not None:
            _remove(self.staged[0])
            self.staged = None

    def rollback_step(self):
        """Take the last committed step out of the collection."""
        t, name = self.entries.pop()
        self.last_step = self.previous_step
        write_pvd(self.base + ".pvd", self.entries)
        _remove(os.path.join(os.path.dirname(self.base), name))

    def _cell_data(self, evaluated):
        """{name: [(ne, k) per cells entry]}: each family's own data, zeros elsewhere."""
        given = [f.cell_data(ctx) if hasattr(f, "cell_data") else {} for f, ctx in evaluated]
        widths = {}
        for d in given:
            for name, v in d.items():
                widths[name] = np.asarray(v).shape[1:]
        out = {}
        for name, width in widths.items():
            out[name] = [np.asarray(given[k][name], float) if k >= 0 and name in given[k]
                         else np.zeros((len(np.asarray(conn)),) + width)
                         for k, (_, conn) in zip(self.owner, self.cells)]
        return out

    def _evaluated(self, event):
        """(family, context) of each family with cells from the step's outputs, found by name
        (the inverse-dynamics driver evaluates deformable elements in systems of its own)."""
        found = {}
        for families, ctx in event.outputs:
            for f in families:
                found.setdefault(f.name, (f, ctx))
        first = event.outputs[0][1] if event.outputs else None
        return [found.get(f.name, (f, first)) for f in self.meshed]

    def finish(self):
        if self.staged is not None:        # a driver that does not call commit_step()
            self.commit_step()


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
