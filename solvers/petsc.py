"""PETSc linear back end (optional extra `mbdae[petsc]`: Debian's `petsc-dev` and petsc4py
built against it, README "Dependencies").

The Jacobian's fixed CSC pattern becomes a PETSc AIJ (CSR) matrix once per pattern: the
matrix is created on arrays this module owns (`createAIJWithArrays` shares them), so each
factorization writes the new values in place through a fixed permutation of the CSC values
(one `numpy.take`) and bumps the matrix state; PETSc then keeps the symbolic analysis of
the unchanged pattern and redoes only the numeric factorization, and a solve between two
`factor` calls reuses the factorization (modified Newton).

Solvers (`PETScSettings.solver`; the back end's name is `petsc-<solver>`):

* direct LU: `klu`, `umfpack`, `mumps`, `superlu` (`KSPPREONLY` + `PCLU` with that factor
  package).  Not offered (NOT_OFFERED says why): PETSc's own LU (no pivoting: the
  multipliers' zero diagonal stops it) and SuperLU_dist (Debian's build lacks the MC64 row
  permutation its static pivoting needs on these saddle-point matrices);
* Krylov: `gmres`, `fgmres`, `bicgstab`, right-preconditioned (the relative tolerance is on
  the unpreconditioned residual ‖b − A x‖ / ‖b‖) by `ilu` (ILU(2), zero pivots shifted),
  `asm` (ILU(2) blocks), `gamg`, `hypre`, `jacobi` or `none`; the preconditioner is rebuilt
  at each `factor`, the Krylov iterations solve the matrix last given to `factor`, as the
  direct solvers do.  The Newton convergence test is the same whatever the back end.
  Multibody matrices (joints' multipliers) are hard for these preconditioners: Krylov
  methods are for large flexible models (benchmarks/RESULTS.md, "PETSc back ends").

PETSc options (`-ksp_type`, `-pc_type`, `-pc_factor_mat_solver_type`, `-ksp_monitor`, ...)
given in `PETScSettings.options`, on `mbdae run --petsc-options`, or in the environment's
PETSC_OPTIONS are applied after mbdae's settings (`KSPSetFromOptions`), so they override
them.  Transposed solves (inverse dynamics) use PETSc's `KSPSolveTranspose` with the
packages that implement it (checked: lu, klu, umfpack, mumps, superlu) and a second matrix
on the CSC arrays themselves (CSR of Aᵀ) for the others."""
import ctypes
import ctypes.util
import os
import re
import sys
from dataclasses import dataclass

import numpy as np

from mbdae.solvers.errors import SingularMatrix

DIRECT = {"klu": "klu", "umfpack": "umfpack", "mumps": "mumps", "superlu": "superlu"}
# known to PETSc, refused here with the reason
NOT_OFFERED = {
    "lu": "PETSc's own LU does not pivot: the joints' multipliers (zero diagonal) stop it",
    "superlu_dist": "Debian's SuperLU_dist lacks the MC64 row permutation its static pivoting needs "
                    "on multibody matrices (zero pivots; its AWPM alternative corrupted memory here); "
                    "use petsc-mumps"}
# mbdae's Krylov names → PETSc's KSP types
KRYLOV = {"gmres": "gmres", "fgmres": "fgmres", "bicgstab": "bcgs"}
PRECONDITIONERS = ("ilu", "asm", "gamg", "hypre", "jacobi", "none")
# ILU fill level of `ilu` and of `asm`'s blocks: ILU(0) and ILU(1) of a multibody matrix
# (zero diagonal in the multipliers' rows) do not converge on the chain benchmark, ILU(2) does
ILU_LEVELS = 2
# direct packages that run on several MPI processes; the one an MPI run gets by default
MPI_DIRECT = ("mumps",)
MPI_DEFAULT_SOLVER = "mumps"
# MPICH's MPI_COMM_WORLD handle (mpi.h)
MPICH_COMM_WORLD = 0x44000000
# what mpiexec sets: Open MPI, MPICH/Hydra
MPI_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
# factor packages whose KSPSolveTranspose gives Aᵀx = b (checked against SciPy)
NATIVE_TRANSPOSE = ("klu", "umfpack", "mumps", "superlu")
# the solver `petsc` alone stands for (benchmarks/RESULTS.md, "PETSc back ends")
DEFAULT_SOLVER = "klu"
# MUMPS's extra workspace (ICNTL(14), %) is raised up to this after INFOG(1) = -8, -9, -17 or -20
MUMPS_MAX_EXTRA_WORKSPACE = 10000
MUMPS_WORKSPACE_ERRORS = (-8, -9, -17, -20)
DEFAULT_KRYLOV_PRECONDITIONER = "ilu"


@dataclass(frozen=True)
class PETScSettings:
    """What the PETSc back end runs: `solver` (a direct package or a Krylov method, see the
    module docstring; `default`: DEFAULT_SOLVER), `preconditioner` (Krylov methods only;
    `default`: ILU), `tolerance` and `max_iterations` of the Krylov method (relative to
    ‖b‖), and PETSc `options` passed through (a string of `-key value` words)."""
    solver: str = "default"
    preconditioner: str = "default"
    tolerance: float = 1e-10
    max_iterations: int = 1000
    options: str = ""

    @property
    def resolved_solver(self):
        return DEFAULT_SOLVER if self.solver == "default" else self.solver

    @property
    def krylov(self):
        return self.resolved_solver in KRYLOV

    @property
    def resolved_preconditioner(self):
        if not self.krylov:
            return None
        return DEFAULT_KRYLOV_PRECONDITIONER if self.preconditioner == "default" else self.preconditioner

    @property
    def name(self):
        """The back end's name: petsc-klu, petsc-gmres, ..."""
        return f"petsc-{self.resolved_solver}"

    def describe(self):
        """What the run's .log says after the name."""
        if self.krylov:
            words = [f"preconditioner {self.resolved_preconditioner}", f"tolerance {self.tolerance:g}",
                     f"max iterations {self.max_iterations}"]
        else:
            words = ["symbolic analysis kept while the pattern holds"]
        if self.options:
            words.append(f"options '{self.options}'")
        return "; ".join(words)


def petsc_settings(spec):
    """PETScSettings for a linear-solver spec: a PETScSettings, or a name `petsc` or
    `petsc-<solver>` (None for any other name).  An unknown solver or preconditioner is a
    ValueError naming the alternatives."""
    if isinstance(spec, PETScSettings):
        settings = spec
    elif isinstance(spec, str) and (spec.lower() == "petsc" or spec.lower().startswith("petsc-")):
        solver = spec.lower()[len("petsc-"):] if "-" in spec else "default"
        settings = PETScSettings(solver=solver.replace("-", "_") if solver.startswith("superlu") else solver)
    else:
        return None
    if settings.solver in NOT_OFFERED:
        raise ValueError(f"linear solver 'petsc-{settings.solver}' is not offered: {NOT_OFFERED[settings.solver]}")
    if settings.solver != "default" and settings.solver not in DIRECT and settings.solver not in KRYLOV:
        raise ValueError(f"unknown PETSc linear solver '{settings.solver}' (known: "
                         f"{', '.join(list(DIRECT) + list(KRYLOV))})")
    if settings.preconditioner != "default" and settings.preconditioner not in PRECONDITIONERS:
        raise ValueError(f"unknown PETSc preconditioner '{settings.preconditioner}' (known: "
                         f"{', '.join(PRECONDITIONERS)})")
    if settings.preconditioner != "default" and not settings.krylov:
        raise ValueError(f"a preconditioner is for the Krylov solvers ({', '.join(KRYLOV)}), not for "
                         f"the direct solver '{settings.resolved_solver}'")
    return settings


_PETSC = []


def load_petsc():
    """The petsc4py.PETSc module, initialized once (None when petsc4py is not installed)."""
    if not _PETSC:
        try:
            import petsc4py
            petsc4py.init(["-no_signal_handler"])
            from petsc4py import PETSc
        except ImportError:
            PETSc = None
        _PETSC.append(PETSc)
    return _PETSC[0]


def petsc_available():
    return load_petsc() is not None


_PACKAGES = {}


def package_available(package):
    """Whether this PETSc build has the LU factor package (petsc, klu, mumps, ...): one 1×1
    factorization, cached."""
    if package not in _PACKAGES:
        PETSc = load_petsc()
        try:
            M = PETSc.Mat().createAIJ((1, 1), nnz=1, comm=PETSc.COMM_SELF)
            M.setValue(0, 0, 1.0)
            M.assemble()
            ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
            ksp.setOperators(M)
            ksp.setType("preonly")
            ksp.getPC().setType("lu")
            ksp.getPC().setFactorSolverType(package)
            ksp.setUp()
            _PACKAGES[package] = True
        except PETSc.Error:
            _PACKAGES[package] = False
    return _PACKAGES[package]


def preconditioner_available(pc_type):
    """Whether this PETSc build has the preconditioner (hypre is an optional package)."""
    key = "pc:" + pc_type
    if key not in _PACKAGES:
        PETSc = load_petsc()
        try:
            PETSc.PC().create(comm=PETSc.COMM_SELF).setType(pc_type)
            _PACKAGES[key] = True
        except PETSc.Error:
            _PACKAGES[key] = False
    return _PACKAGES[key]


def available_petsc_solvers():
    """The `petsc-<solver>` names this PETSc build runs (empty without petsc4py)."""
    if not petsc_available():
        return []
    return [f"petsc-{s}" for s, package in DIRECT.items() if package_available(package)] + \
        [f"petsc-{s}" for s in KRYLOV]


def check_petsc_settings(settings):
    """A ValueError naming the alternatives when petsc4py is missing or the PETSc build lacks
    the solver or the preconditioner."""
    if not petsc_available():
        raise ValueError(f"linear solver '{settings.name}' needs petsc4py: install the extra "
                         f"mbdae[petsc] (README, Dependencies)")
    solver = settings.resolved_solver
    if solver in DIRECT and not package_available(DIRECT[solver]):
        raise ValueError(f"linear solver '{settings.name}': this PETSc build has no {DIRECT[solver]} "
                         f"(available: {', '.join(available_petsc_solvers())})")
    pc = settings.resolved_preconditioner
    if pc is not None and pc != "none" and not preconditioner_available(pc):
        have = [p for p in PRECONDITIONERS if p == "none" or preconditioner_available(p)]
        raise ValueError(f"linear solver '{settings.name}': this PETSc build has no preconditioner "
                         f"'{pc}' (available: {', '.join(have)})")


def first_line_of(error):
    """The informative line of a PETSc.Error's message (its last line)."""
    lines = [re.sub(r"^\[\d+\]\s*", "", ln.strip()) for ln in str(error).splitlines() if ln.strip()]
    return lines[-1] if lines else str(error)


def mpi_world_size():
    """The number of MPI processes of this run (1 outside mpiexec).  Read from the launcher's
    environment first, so that a serial run never initializes PETSc for it; under mpiexec
    with several processes petsc4py is required (ValueError otherwise)."""
    size = max(int(os.environ.get(key, "1") or 1) for key in MPI_SIZE_VARIABLES)
    if size <= 1:
        return 1
    if not petsc_available():
        raise ValueError(f"an MPI run ({size} processes) needs the extra mbdae[petsc] (README, Dependencies)")
    return load_petsc().COMM_WORLD.getSize()


def mpi_rank():
    """This process's rank in an MPI run (0 outside mpiexec)."""
    return load_petsc().COMM_WORLD.getRank() if mpi_world_size() > 1 else 0


def mpi_abort(code=1):
    """End every process of an MPI run (MPI_Abort on MPI_COMM_WORLD, called through ctypes:
    petsc4py 3.18 does not offer it), so that no rank is left waiting in a collective call
    for one that failed.  Without a usable MPI library, exit at once without finalizing MPI,
    which makes the launcher end the others."""
    sys.stdout.flush()
    sys.stderr.flush()
    name = ctypes.util.find_library("mpi")
    if name is not None:
        lib = ctypes.CDLL(name)
        try:       # Open MPI: MPI_COMM_WORLD is the address of ompi_mpi_comm_world
            world = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "ompi_mpi_comm_world")))
        except ValueError:   # MPICH and its derivatives: an integer handle
            world = ctypes.c_int(MPICH_COMM_WORLD)
        lib.MPI_Abort(world, ctypes.c_int(code))
    os._exit(code)


def row_block(n, size, rank):
    """The rows [r0, r1) that process `rank` of `size` owns: PETSc's default layout, n/size
    consecutive rows each (the first n % size processes one more)."""
    base, extra = divmod(n, size)
    r0 = rank * base + min(rank, extra)
    return r0, r0 + base + (rank < extra)


class RowBlockMatrix:
    """The AIJ matrix of a fixed CSR pattern whose values are `data[perm]` of a source array.
    `indptr`, `indices`, `perm`: the rows [r0, r0 + m) this process owns, columns numbered
    0..n-1.  On one process a SeqAIJ on arrays this object owns (the values are written in
    place); under MPI an MPIAIJ whose owned rows are set row by row (`MatSetValuesCSR`)."""

    def __init__(self, PETSc, comm, indptr, indices, perm, r0, n):
        self.r0, self.r1 = r0, r0 + len(indptr) - 1
        self.indptr = (indptr - indptr[0]).astype(PETSc.IntType)
        self.indices = np.ascontiguousarray(indices, dtype=PETSc.IntType)
        self.perm = np.ascontiguousarray(perm, dtype=np.int64)
        self.values = np.zeros(len(self.indices), dtype=PETSc.ScalarType)
        self.distributed = comm.getSize() > 1
        if self.distributed:
            rows = self.r1 - self.r0
            self.mat = PETSc.Mat().createAIJ(((rows, n), (rows, n)), csr=(self.indptr, self.indices, self.values),
                                             comm=comm)
        else:
            self.mat = PETSc.Mat().createAIJWithArrays((n, n), (self.indptr, self.indices, self.values), comm=comm)
        self.mat.assemble()

    @classmethod
    def row_block_of(cls, PETSc, comm, indptr, indices, perm):
        """The matrix of a whole CSR pattern of which this process owns PETSc's default row
        block (row_block): every process holds the whole pattern (replicated evaluation)."""
        n = len(indptr) - 1
        r0, r1 = row_block(n, comm.getSize(), comm.getRank())
        lo, hi = indptr[r0], indptr[r1]
        return cls(PETSc, comm, indptr[r0:r1 + 1], indices[lo:hi], perm[lo:hi], r0, n)

    def update(self, data):
        np.take(data, self.perm, out=self.values)
        if self.distributed:
            self.mat.setValuesCSR(self.indptr, self.indices, self.values)
        self.mat.assemble()              # new values: PETSc refactors at the next set-up


class DistributedLayout:
    """The unknowns of one process of a distributed system (engine/distributed.py) in PETSc's
    numbering: `petsc_index[u]`, the global row of each local unknown u (owned and ghost);
    `owned`, the local unknowns this process owns, in the order of its PETSc rows [r0, r1)
    (PETSc's rows are numbered process after process).  `exchange` gives every local unknown
    its owner's value (one PETSc scatter of the owned values)."""

    def __init__(self, petsc_index, owned, n_global):
        PETSc = self.PETSc = load_petsc()
        self.comm = PETSc.COMM_WORLD
        self.petsc_index = np.asarray(petsc_index, np.int64)
        self.owned = np.asarray(owned, np.int64)
        self.n_local, self.n_global = len(self.petsc_index), int(n_global)
        self.vec = PETSc.Vec().createMPI((len(self.owned), self.n_global), comm=self.comm)
        self.r0, self.r1 = self.vec.getOwnershipRange()
        if not np.array_equal(self.petsc_index[self.owned], np.arange(self.r0, self.r1)):
            raise ValueError("distributed layout: the owned unknowns are not this process's PETSc rows")
        self.local = PETSc.Vec().createSeq(self.n_local, comm=PETSc.COMM_SELF)
        where = PETSc.IS().createGeneral(self.petsc_index.astype(PETSc.IntType), comm=PETSc.COMM_SELF)
        self.scatter = PETSc.Scatter().create(self.vec, where, self.local, None)

    def gather_local(self, vec):
        """The values of the MPI vector `vec` (this layout's) at every local unknown (a new array)."""
        self.scatter.scatter(vec, self.local, addv=self.PETSc.InsertMode.INSERT,
                             mode=self.PETSc.ScatterMode.FORWARD)
        return self.local.getArray().copy()

    def exchange(self, values):
        """`values` (one per local unknown) with every unknown set to its owner's value."""
        self.vec.getArray()[:] = values[self.owned]
        return self.gather_local(self.vec)


class PETScSolver:
    """A PETSc KSP on the Jacobian's pattern (module docstring).  factor(A) takes a SciPy CSC
    matrix; solve(b, transpose) returns a new array.  Under MPI (mpiexec -n P, P > 1) every
    process holds the whole matrix and right-hand side (the evaluation is replicated), gives
    PETSc the rows it owns (row_block) and gets the whole solution back."""

    def __init__(self, settings, layout=None):
        check_petsc_settings(settings)
        self.layout = layout
        self.PETSc = PETSc = load_petsc()
        self.settings = settings
        self.processes = mpi_world_size()
        self.comm = PETSc.COMM_WORLD if self.processes > 1 else PETSc.COMM_SELF
        self.package = DIRECT.get(settings.resolved_solver)
        if self.processes > 1 and self.package is not None and self.package not in MPI_DIRECT:
            raise ValueError(f"linear solver '{settings.name}' runs on one process only; under MPI use "
                             f"{', '.join('petsc-' + s for s in MPI_DIRECT)} or a Krylov method "
                             f"({', '.join('petsc-' + k for k in KRYLOV)})")
        self.name = settings.name
        where = f"; MPI, {self.processes} processes" if self.processes > 1 else ""
        self.description = f"{settings.name} ({settings.describe()}{where})"
        if settings.options:
            PETSc.Options().insertString(settings.options)
        self._indices = self._indptr = None
        self.factorizations = 0
        self.refactorizations = 0
        self.symbolic_analyses = 0
        self.krylov_iterations = 0
        self._transposed = None
        self.mumps_extra_workspace = None     # MUMPS's ICNTL(14) once raised (_mumps_out_of_workspace)

    # -------------------------------------------------------------- set-up
    def _make_ksp(self, mat):
        PETSc = self.PETSc
        s = self.settings
        ksp = PETSc.KSP().create(comm=self.comm)
        ksp.setOperators(mat)
        pc = ksp.getPC()
        if s.krylov:
            ksp.setType(KRYLOV[s.resolved_solver])
            ksp.setPCSide(PETSc.PC.Side.RIGHT)
            ksp.setTolerances(rtol=s.tolerance, atol=0.0, max_it=s.max_iterations)
            pc_type = s.resolved_preconditioner
            ilu = f"-sub_pc_factor_shift_type nonzero -sub_pc_factor_levels {ILU_LEVELS}"
            if pc_type == "ilu" and self.processes > 1:
                pc.setType("bjacobi")        # ILU of each process's diagonal block
                PETSc.Options().insertString("-sub_pc_type ilu " + ilu)
            elif pc_type == "ilu":
                # the multipliers' rows have zero diagonals: shift zero pivots (a preconditioner)
                pc.setType("ilu")
                pc.setFactorShift(shift_type=PETSc.Mat.FactorShiftType.NONZERO)
                pc.setFactorLevels(ILU_LEVELS)
            else:
                pc.setType(pc_type)
                if pc_type == "asm":
                    PETSc.Options().insertString(ilu)
        else:
            ksp.setType("preonly")
            pc.setType("lu")
            pc.setFactorSolverType(self.package)
            if self.package == "mumps" and self.mumps_extra_workspace is not None:
                pc.setFactorSetUpSolverType()
                pc.getFactorMatrix().setMumpsIcntl(14, self.mumps_extra_workspace)
        ksp.setFromOptions()           # the user's PETSc options override the settings above
        return ksp

    def _setup(self, A):
        """The AIJ matrix, vectors and KSP for A's pattern; the CSC → CSR permutation.  With a
        DistributedLayout, A is this process's local matrix: its owned rows, columns renumbered
        to PETSc's global unknowns, are this process's rows of the MPIAIJ matrix."""
        PETSc = self.PETSc
        nnz = len(A.indices)
        # CSR of A from its CSC pattern: transpose the (positions) matrix once
        csc_pos = type(A)((np.arange(nnz, dtype=float), A.indices, A.indptr), shape=A.shape)
        csr = csc_pos.tocsr()
        layout = self.layout
        if layout is None:
            n = A.shape[0]
            csr.sort_indices()
            self.matrix = RowBlockMatrix.row_block_of(PETSc, self.comm, csr.indptr, csr.indices,
                                                      csr.data.astype(np.int64))
        else:
            n = layout.n_global
            rows = csr[layout.owned]
            owned = type(csr)((rows.data, layout.petsc_index[rows.indices], rows.indptr), shape=(len(layout.owned), n))
            owned.sort_indices()
            self.matrix = RowBlockMatrix(PETSc, self.comm, owned.indptr, owned.indices, owned.data.astype(np.int64),
                                         layout.r0, n)
        self.mat = self.matrix.mat
        r0, r1 = self.matrix.r0, self.matrix.r1
        self.b = np.zeros(r1 - r0)
        self.x = np.zeros(r1 - r0)
        self.bvec = PETSc.Vec().createWithArray(self.b, size=(r1 - r0, n), comm=self.comm)
        self.xvec = PETSc.Vec().createWithArray(self.x, size=(r1 - r0, n), comm=self.comm)
        if self.processes > 1 and layout is None:
            self.gather, self.x_all = PETSc.Scatter.toAll(self.xvec)
        self.ksp = self._make_ksp(self.mat)
        self._indices, self._indptr = A.indices, A.indptr
        self._transposed = None
        self.symbolic_analyses += 1
        self._fresh = True

    def _same_pattern(self, A):
        if self._indices is None:
            return False
        if A.indices is self._indices and A.indptr is self._indptr:
            return True
        return np.array_equal(A.indptr, self._indptr) and np.array_equal(A.indices, self._indices)

    # -------------------------------------------------------------- protocol
    def factor(self, A):
        if not self._same_pattern(A):
            self._setup(A)
        self.matrix.update(A.data)
        self._csc_data = A.data
        self._transposed_current = False
        self._set_up(self.ksp)
        while self.package == "mumps" and self._mumps_out_of_workspace(self.ksp):
            self.ksp = self._make_ksp(self.mat)     # a new factorization with more room
            self._set_up(self.ksp)
        if not self._fresh:
            self.refactorizations += 1
        self._fresh = False
        self.factorizations += 1

    def failure(self, what):
        """The SingularMatrix that a failed factorization or solve raises (Newton reports it
        with the worst equation)."""
        return SingularMatrix(f"PETSc {self.settings.resolved_solver}: {what}")

    def _set_up(self, ksp):
        try:
            ksp.setUp()
        except self.PETSc.Error as err:
            raise self.failure(first_line_of(err)) from None

    def _mumps_out_of_workspace(self, ksp):
        """MUMPS's INFOG(1) = -8 or -9 (its workspace, estimated by the analysis, is too small
        for the pivots delayed by the multipliers' zero diagonal) or, on several processes,
        -17 or -20 (its send or reception buffer, sized from the same estimate): raise
        ICNTL(14), the percentage of extra workspace, fourfold (at least 100 %) and say to
        factor again."""
        if self.settings.krylov:
            return False
        F = ksp.getPC().getFactorMatrix()
        if F.getMumpsInfog(1) not in MUMPS_WORKSPACE_ERRORS:
            return False
        extra = F.getMumpsIcntl(14)
        if extra >= MUMPS_MAX_EXTRA_WORKSPACE:
            raise SingularMatrix(f"PETSc mumps: workspace too small with {extra} % extra (INFOG(1) = "
                                 f"{F.getMumpsInfog(1)})")
        self.mumps_extra_workspace = max(100, 4 * extra)
        return True

    def solve(self, b, transpose=False):
        if transpose and self.layout is not None:
            raise ValueError("transposed solves are not distributed (inverse dynamics and eigenanalysis "
                             "run with the replicated evaluation under MPI)")
        if transpose and not self.settings.krylov and self.package in NATIVE_TRANSPOSE:
            return self._run(self.ksp, b, transpose=True)
        if transpose:
            return self._run(self._transposed_ksp(), b)
        return self._run(self.ksp, b)

    def _run(self, ksp, b, transpose=False):
        layout = self.layout
        if layout is None:
            self.b[:] = b[self.matrix.r0:self.matrix.r1]
        else:
            np.take(b, layout.owned, out=self.b)
        try:
            if transpose:
                ksp.solveTranspose(self.bvec, self.xvec)
            else:
                ksp.solve(self.bvec, self.xvec)
        except self.PETSc.Error as err:
            raise self.failure(first_line_of(err)) from None
        reason = ksp.getConvergedReason()
        self.krylov_iterations += ksp.getIterationNumber()
        if reason < 0:
            raise self.failure(f"{converged_reason_text(self.PETSc, reason)} after {ksp.getIterationNumber()} "
                               f"iterations")
        if layout is not None:
            # a collective test, so that every process raises together (UMFPACK and MUMPS
            # return inf for a zero pivot)
            if not np.isfinite(self.xvec.norm()):
                raise self.failure("non-finite solution (singular matrix)")
            return layout.gather_local(self.xvec)
        if self.processes > 1:
            self.gather.scatter(self.xvec, self.x_all, addv=self.PETSc.InsertMode.INSERT,
                                mode=self.PETSc.ScatterMode.FORWARD)
            x = self.x_all.array.copy()
        else:
            x = self.x.copy()
        if not np.all(np.isfinite(x)):         # UMFPACK returns inf for a zero pivot
            raise self.failure("non-finite solution (singular matrix)")
        return x

    def _transposed_ksp(self):
        """A KSP on Aᵀ, whose CSR arrays are A's CSC ones (the last factored values)."""
        if self._transposed is None:
            matrix = RowBlockMatrix.row_block_of(self.PETSc, self.comm, self._indptr, self._indices,
                                                 np.arange(len(self._indices), dtype=np.int64))
            self._transposed = (matrix, self._make_ksp(matrix.mat))
        matrix, ksp = self._transposed
        if not self._transposed_current:
            matrix.update(self._csc_data)
            self._set_up(ksp)
            self._transposed_current = True
        return ksp

    def forget_pivots(self):
        """After a failure the next factorization starts afresh (PETSc keeps no pivot order
        beyond the symbolic analysis, which stays valid for the pattern)."""


def converged_reason_text(PETSc, reason):
    names = {v: k for k, v in vars(PETSc.KSP.ConvergedReason).items() if isinstance(v, int)}
    return names.get(reason, f"reason {reason}").lower().replace("_", " ")
