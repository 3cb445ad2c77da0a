"""MBDyn-compatible text output (.out, .mov, .jnt, .frc, .log), written a whole step at a
time: a step's text for every file is formatted in memory, then written file by file; a
write error (full disk, file size limit) or an interruption while it is written truncates
every file back to the previous step, so the files always end on the same whole step.  Rows: label right-aligned
in 8 characters, then numbers in C++ scientific notation with `precision` digits."""
import os
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.compiled import node_motion_rows, ORIENTATION_CODES
from mbdae.engine.io.failures import OutputError, write_failure  # noqa: F401 (OutputError: re-exported)
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
    """The text files of one prefix, written a step at a time: `rows`/`line` collect a
    step's text in memory, `commit` writes it file by file (.out last, so that a .out step
    line means its rows are on disk) and records where each file ends, `rollback` truncates
    every file back there.  A write error in `commit` rolls the step back and raises
    OutputError; so does a KeyboardInterrupt (re-raised as is)."""

    def __init__(self, prefix, precision=6):
        self.prefix = prefix
        self.fmt = " %." + str(int(precision)) + "e"
        self.fds = {}                   # ext -> file descriptor
        self.ends = {}                  # ext -> size at the last commit
        self.pending = {}               # ext -> [text] of the step being formatted
        self.row_formats = {}           # columns -> "%8d %.6e ... \n"
        self.failed = False
        self.previous = {}
        d = os.path.dirname(prefix)
        if d:
            try:
                os.makedirs(d, exist_ok=True)
            except OSError as e:
                raise write_failure(prefix + ".*", e) from None

    def path(self, ext):
        return self.prefix + "." + ext

    def file(self, ext):
        """PREFIX.ext will exist from the next commit on (created empty, as MBDyn's files
        with no rows)."""
        self.pending.setdefault(ext, [])

    def _open(self, ext):
        self.fds[ext] = os.open(self.path(ext), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        self.ends[ext] = 0

    def rows(self, ext, labels, values):
        """One row per label: label then the values (2-D array)."""
        if len(labels) == 0:
            return
        values = np.asarray(values, float).reshape(len(labels), -1)
        labels = np.asarray(labels)
        text = labels.dtype.kind in "OUS"       # labels such as the modal joint's "2.1", "2@100"
        key = (values.shape[1], text)
        fmt = self.row_formats.get(key)
        if fmt is None:
            fmt = self.row_formats[key] = ("%8s" if text else "%8d") + self.fmt * values.shape[1] + "\n"
        labels = labels.tolist() if text else labels.astype(np.int64).tolist()
        self.pending.setdefault(ext, []).append("".join([fmt % ((l,) + tuple(v))
                                                         for l, v in zip(labels, values.tolist())]))

    def line(self, ext, text):
        self.pending.setdefault(ext, []).append(text + "\n")

    def commit(self, step=None, t=None, last=None):
        """Write the collected text, .out last; on failure truncate every file back to its
        last commit and raise (OutputError naming the file for a write error).  `step`, `t`,
        `last`: the step written and the last whole one before it, for the message."""
        if self.failed:
            self.pending = {}
            return
        pending, self.pending = self.pending, {}
        order = sorted(pending, key=lambda ext: ext == "out")
        ext = None
        try:
            for ext in order:
                data = "".join(pending[ext]).encode()
                if ext not in self.fds:
                    self._open(ext)
                fd, view = self.fds[ext], memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            self.previous = dict(self.ends)
            for ext in order:
                self.ends[ext] = os.lseek(self.fds[ext], 0, os.SEEK_CUR)
        except OSError as e:
            self.rollback()
            self.failed = True
            self.note_failure(f"# output stopped: cannot write {self.path(ext)}"
                              + ("" if step is None else f" at step {step}") + f": {e.strerror or e}")
            raise write_failure(self.path(ext), e, step, t, last) from None
        except BaseException:
            self.rollback()
            raise

    def undo_commit(self):
        """Take the last commit back (another observer could not write the same step)."""
        self.ends = dict(self.previous)
        self.rollback()

    def rollback(self):
        """Truncate every file back to its size at the last commit."""
        for ext, fd in self.fds.items():
            try:
                os.ftruncate(fd, self.ends[ext])
                os.lseek(fd, self.ends[ext], os.SEEK_SET)
            except OSError:
                pass

    def note_failure(self, text):
        """A comment line at the end of the .out, if it can still be written."""
        fd = self.fds.get("out")
        if fd is None or text is None:
            return
        try:
            os.write(fd, (text + "\n").encode())
            self.ends["out"] = os.lseek(fd, 0, os.SEEK_CUR)
        except OSError:
            self.rollback()

    def flush(self):
        """Nothing is buffered between commits (kept for callers of the former interface)."""

    def close(self):
        for fd in self.fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = {}


class MBDynWriter:
    """The MBDyn text files of a run (.out, .log, .mov and the element files), as an
    observer of any driver (initial value, static, inverse dynamics).  The driver calls
    `start(system, model, method)` once, `log(text)` for each line of the run log,
    `step(event)` after each step (solvers' StepEvent, engine/core/state.py), then
    `commit_step()` (engine/core/stop.publish_step) and `finish()` at the end, also when the
    run fails: every file keeps every whole step up to the last one written."""

    def __init__(self, prefix, precision=6, linear_solver=None, nonlinear_solver=None):
        self.prefix = prefix
        self.nonlinear_solver = nonlinear_solver   # the .log line's text when not Newton-Raphson
        self.out = TextOutput(prefix, precision)
        self.node_groups = None
        self.linear_solver = linear_solver     # the .log line's description (LinearSolverChoice)
        self.staged = None                     # (step, t) formatted, not yet written
        self.last_step = self.previous_step = None   # the last step written whole, and the one before

    def start(self, system, model, method=None):
        """The .log summary; the node groups of the .mov file (one per orientation
        description) and the offset dummy nodes, computed once."""
        nodes = system.nodes
        log = lambda text: self.out.line("log", text)
        log(f"mbdae model: {nodes.n} structural nodes, {system.n} unknowns "
            f"({int(system.is_alg.sum())} algebraic), Jacobian pattern {system.assembler.nnz} entries")
        for fam in system.families:
            log(f"{fam.name}: {fam.ne} instances, {fam.n_internal} unknowns")
        if method is not None:
            log(f"method: {method.name}" + (f", rho {method.rho}" if hasattr(method, 'rho') else ""))
        if self.linear_solver is not None:
            used = self.linear_solver.for_pattern(system.linear_pattern())
            log(f"linear solver: {used.describe()}")
        if self.nonlinear_solver is not None:
            log(f"nonlinear solver: {self.nonlinear_solver}")
        self.out.commit()
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
        """Format the step's rows into memory; commit_step() writes them (a driver that
        does not call it gets them written at the next step or at finish())."""
        if self.staged is not None:
            self.commit_step()
        out = self.out
        out.line("out", f"Step {event.step} {event.t:.10g} {event.h:.10g} {event.iterations} "
                        f"{event.error:.6g} 0 {int(event.solution_converged)} {int(event.written)}")
        self.staged = (event.step, float(event.t))
        if not event.written:
            return
        kin = event.kinematics
        for code, labels, idx in self.node_groups:
            out.rows("mov", labels, node_motion_rows(kin.x, kin.R, kin.v, kin.w, idx, code))
        self._dummy_rows(kin)
        self._element_rows(event.outputs)

    def commit_step(self):
        """Write the formatted step to every file, or none of it (OutputError on a write
        error, naming the file; the files then end on the previous step)."""
        if self.staged is None:
            return
        (step, t), self.staged = self.staged, None
        self.out.commit(step, t, self.last_step)
        self.previous_step, self.last_step = self.last_step, step

    def discard_step(self):
        """Forget the formatted step (another observer failed to format it)."""
        if self.staged is not None:
            self.staged = None
            self.out.pending = {}

    def rollback_step(self):
        """Take back the step of the last commit_step()."""
        self.out.undo_commit()
        self.last_step = self.previous_step

    def finish(self):
        """Write what is left (the last log lines) and close the files."""
        try:
            if self.staged is not None:
                self.commit_step()
            self.out.commit(None, None, self.last_step)
        finally:
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
