"""MBDyn-compatible text output (.out, .mov, .jnt, .frc, .log), flushed as it goes so a
run that stops keeps everything up to its last converged step.  Rows: label right-aligned
in 8 characters, then numbers in C++ scientific notation with `precision` digits."""
import os
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.compiled import node_motion_rows, ORIENTATION_CODES
from mbdae.solvers.linear import choose_linear_solver
from mbdae.solvers.petsc import mpi_rank


def orientation_columns(R, description):
    """Columns 5- of a .mov row for orientation matrices R (n,3,3)."""
    d = description.lower()
    if d in ("euler123", "euler 123"):
        return np.degrees(rot.R_to_euler123(R))
    if d in ("euler313", "euler 313"):
        return np.degrees(rot.R_to_euler313(R))
    if d in ("euler321", "euler 321"):
        return np.degrees(rot.R_to_euler321(R))
    if d in ("orientation vector", "vector"):
        return rot.log_rotvec(R)
    if d in ("orientation matrix", "matrix"):
        return R.reshape(len(R), 9)
    raise ValueError(f"unknown orientation description '{description}'")


class TextOutput:
    def __init__(self, prefix, precision=6):
        self.prefix = prefix
        self.fmt = " %." + str(int(precision)) + "e"
        self.files = {}
        self.row_formats = {}           # columns -> "%8d %.6e ... \n"
        d = os.path.dirname(prefix)
        if d:
            os.makedirs(d, exist_ok=True)

    def file(self, ext):
        f = self.files.get(ext)
        if f is None:
            f = self.files[ext] = open(self.prefix + "." + ext, "w")
        return f

    def rows(self, ext, labels, values):
        """Write one row per label: label then the values (2-D array)."""
        if len(labels) == 0:
            return
        f = self.file(ext)
        values = np.asarray(values, float).reshape(len(labels), -1)
        labels = np.asarray(labels)
        text = labels.dtype.kind in "OUS"       # labels such as the modal joint's "2.1", "2@100"
        key = (values.shape[1], text)
        fmt = self.row_formats.get(key)
        if fmt is None:
            fmt = self.row_formats[key] = ("%8s" if text else "%8d") + self.fmt * values.shape[1] + "\n"
        labels = labels.tolist() if text else labels.astype(np.int64).tolist()
        f.writelines([fmt % ((l,) + tuple(v)) for l, v in zip(labels, values.tolist())])

    def line(self, ext, text):
        self.file(ext).write(text + "\n")

    def flush(self):
        for f in self.files.values():
            f.flush()

    def close(self):
        for f in self.files.values():
            f.close()
        self.files = {}


class MBDynWriter:
    """The MBDyn text files of a run (.out, .log, .mov and the element files), as an
    observer of any driver (initial value, static, inverse dynamics).  The driver calls
    `start(system, model, method)` once, `log(text)` for each line of the run log,
    `step(event)` after each step (solvers' StepEvent, engine/core/state.py) and `finish()`
    at the end, also when the run fails: everything up to the last step stays on disk."""

    def __init__(self, prefix, precision=6, linear_solver=None, nonlinear_solver=None):
        self.prefix = prefix
        self.nonlinear_solver = nonlinear_solver   # the .log line's text when not Newton-Raphson
        self.out = TextOutput(prefix, precision)
        self.node_groups = None
        self.linear_solver = linear_solver     # the .log line's description (LinearSolverChoice)

    def start(self, system, model, method=None):
        """The .log summary; the node groups of the .mov file (one per orientation
        description) and the offset dummy nodes, computed once."""
        nodes = system.nodes
        f = self.out.file("log")
        f.write(f"mbdae model: {nodes.n} structural nodes, {system.n} unknowns "
                f"({int(system.is_alg.sum())} algebraic), Jacobian pattern {system.assembler.nnz} entries\n")
        for fam in system.families:
            f.write(f"{fam.name}: {fam.ne} instances, {fam.n_internal} unknowns\n")
        if method is not None:
            f.write(f"method: {method.name}" + (f", rho {method.rho}" if hasattr(method, 'rho') else "") + "\n")
        if self.linear_solver is not None:
            used = self.linear_solver.for_pattern(system.linear_pattern())
            f.write(f"linear solver: {used.describe()}\n")
        if self.nonlinear_solver is not None:
            f.write(f"nonlinear solver: {self.nonlinear_solver}\n")
        f.flush()
        specs = nodes.specs
        descs = [sp.orientation_description for sp in specs]
        outmask = np.array([sp.output for sp in specs], bool)
        self.node_groups = []
        for d in dict.fromkeys(descs):
            sel = outmask & np.array([x == d for x in descs])
            if sel.any():
                code = ORIENTATION_CODES.get(d.lower())
                if code is None:
                    raise ValueError(f"unknown orientation description '{d}'")
                self.node_groups.append((code, nodes.labels[sel], np.flatnonzero(sel)))
        self.dummy_groups = _dummy_groups(model, nodes)
        self.output_on = {}

    def log(self, text):
        self.out.line("out", text)

    def step(self, event):
        out = self.out
        out.line("out", f"Step {event.step} {event.t:.10g} {event.h:.10g} {event.iterations} "
                        f"{event.error:.6g} 0 {int(event.solution_converged)} {int(event.written)}")
        if not event.written:
            return
        kin = event.kinematics
        for code, labels, idx in self.node_groups:
            out.rows("mov", labels, node_motion_rows(kin.x, kin.R, kin.v, kin.w, idx, code))
        self._dummy_rows(kin)
        self._element_rows(event.outputs)
        out.flush()

    def finish(self):
        self.out.close()

    def _opens_file(self, fam):
        """Whether any instance of the family has its output on (cached per family)."""
        on = self.output_on.get(id(fam))
        if on is None:
            on = self.output_on[id(fam)] = any(getattr(spec, "output", True) for spec in fam.specs)
        return on

    def _element_rows(self, outputs):
        """Rows of the families' files (.jnt, .frc, .act, ...) from [(families, context)];
        with several sets, a label already written to a file is not written again."""
        out = self.out
        done = set() if len(outputs) > 1 else None
        for families, ctx in outputs:
            for fam in families:
                if not (hasattr(fam, "output_groups") and self._opens_file(fam)):
                    continue
                ext = getattr(fam, "output_file", "jnt")
                out.file(ext)                 # as MBDyn: the file exists even with no row in it
                for labels, vals in fam.output_groups(ctx):
                    if done is not None:
                        keep = np.array([(ext, int(l)) not in done for l in labels], bool)
                        done.update((ext, int(l)) for l in labels)
                        labels, vals = np.asarray(labels)[keep], np.asarray(vals)[keep]
                    out.rows(ext, labels, vals)

    def _dummy_rows(self, kin):
        """Offset dummy nodes (eq. 8.27): x + R f, R R_h, v + ω×(R f), ω."""
        for desc, labels, base, offset, Rh in self.dummy_groups:
            Rb = kin.R[base]
            f = rot.matvec(Rb, offset)
            self.out.rows("mov", labels, np.concatenate(
                [kin.x[base] + f, orientation_columns(Rb @ Rh, desc), kin.v[base] + rot.cross(kin.w[base], f),
                 kin.w[base]], axis=1))


def _dummy_groups(model, nodes):
    """(description, labels, base node indices, offsets, relative orientations) of the
    offset dummy nodes with output on, one group per orientation description."""
    dummies = [d for d in getattr(model, "dummy_nodes", []) if d.output]
    groups = []
    for desc in dict.fromkeys(d.orientation_description for d in dummies):
        grp = [d for d in dummies if d.orientation_description == desc]
        groups.append((desc, np.array([d.label for d in grp]), np.array([nodes.index(d.base) for d in grp]),
                       np.array([d.offset for d in grp]).reshape(-1, 3), np.array([d.R for d in grp]).reshape(-1, 3, 3)))
    return groups


def writers_for(settings, linear_solver=None):
    """The MBDyn writer a run's settings ask for (`output_prefix`), as a list of observers.
    `linear_solver`: the LinearSolverChoice the run's .log reports (default: the one for
    `settings.linear_solver`, solvers/linear.py)."""
    prefix = getattr(settings, "output_prefix", None)
    if not prefix or mpi_rank() > 0:       # in an MPI run only rank 0 writes
        return []
    if linear_solver is None:
        linear_solver = choose_linear_solver(getattr(settings, "linear_solver", None))
    matrix_free = getattr(settings, "matrix_free", None)
    return [MBDynWriter(prefix, getattr(settings, "output_precision", 6), linear_solver,
                        matrix_free.describe() if matrix_free is not None else None)]
