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
# factor packages whose KSPSolveTranspose gives Aᵀx = b (checked against SciPy)
NATIVE_TRANSPOSE = ("klu", "umfpack", "mumps", "superlu")
# the solver `petsc` alone stands for (benchmarks/RESULTS.md, "PETSc back ends")
DEFAULT_SOLVER = "klu"
# MUMPS's extra workspace (ICNTL(14), %) is raised up to this after INFOG(1) = -8 / -9
MUMPS_MAX_EXTRA_WORKSPACE = 10000
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
    lines = [ln.strip() for ln in str(error).splitlines() if ln.strip()]
    return lines[-1].lstrip("[0] ") if lines else str(error)


class PETScSolver:
    """A PETSc KSP on the Jacobian's pattern (module docstring).  factor(A) takes a SciPy CSC
    matrix; solve(b, transpose) returns a new array."""

    def __init__(self, settings):
        check_petsc_settings(settings)
        self.PETSc = load_petsc()
        self.settings = settings
        self.name = settings.name
        self.description = f"{settings.name} ({settings.describe()})"
        if settings.options:
            self.PETSc.Options().insertString(settings.options)
        self.package = DIRECT.get(settings.resolved_solver)
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
        ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
        ksp.setOperators(mat)
        pc = ksp.getPC()
        if s.krylov:
            ksp.setType(KRYLOV[s.resolved_solver])
            ksp.setPCSide(PETSc.PC.Side.RIGHT)
            ksp.setTolerances(rtol=s.tolerance, atol=0.0, max_it=s.max_iterations)
            pc_type = s.resolved_preconditioner
            pc.setType(pc_type)
            if pc_type == "ilu":
                # the multipliers' rows have zero diagonals: shift zero pivots (a preconditioner)
                pc.setFactorShift(shift_type=PETSc.Mat.FactorShiftType.NONZERO)
                pc.setFactorLevels(ILU_LEVELS)
            elif pc_type == "asm":
                PETSc.Options().insertString(f"-sub_pc_factor_shift_type nonzero "
                                             f"-sub_pc_factor_levels {ILU_LEVELS}")
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
        """The AIJ matrix, vectors and KSP for A's pattern; the CSC → CSR permutation."""
        PETSc = self.PETSc
        n = A.shape[0]
        nnz = len(A.indices)
        # CSR of A from its CSC pattern: transpose the (positions) matrix once
        csc_pos = type(A)((np.arange(nnz, dtype=float), A.indices, A.indptr), shape=A.shape)
        csr = csc_pos.tocsr()
        csr.sort_indices()
        self.perm = csr.data.astype(np.int64)
        self.indptr_csr = csr.indptr.astype(PETSc.IntType)
        self.indices_csr = csr.indices.astype(PETSc.IntType)
        self.values = np.zeros(nnz, dtype=PETSc.ScalarType)
        self.mat = PETSc.Mat().createAIJWithArrays((n, n), (self.indptr_csr, self.indices_csr, self.values),
                                                   comm=PETSc.COMM_SELF)
        self.mat.assemble()
        self.b = np.zeros(n)
        self.x = np.zeros(n)
        self.bvec = PETSc.Vec().createWithArray(self.b, comm=PETSc.COMM_SELF)
        self.xvec = PETSc.Vec().createWithArray(self.x, comm=PETSc.COMM_SELF)
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
        np.take(A.data, self.perm, out=self.values)
        self.mat.assemble()              # the new values: PETSc refactors at the next set-up
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

    def _set_up(self, ksp):
        try:
            ksp.setUp()
        except self.PETSc.Error as err:
            raise SingularMatrix(f"PETSc {self.settings.resolved_solver}: {first_line_of(err)}") from None

    def _mumps_out_of_workspace(self, ksp):
        """MUMPS's INFOG(1) = -8 or -9 (its workspace, estimated by the analysis, is too small
        for the pivots delayed by the multipliers' zero diagonal): raise ICNTL(14), the
        percentage of extra workspace, fourfold (at least 100 %) and say to factor again."""
        if self.settings.krylov:
            return False
        F = ksp.getPC().getFactorMatrix()
        if F.getMumpsInfog(1) not in (-8, -9):
            return False
        extra = F.getMumpsIcntl(14)
        if extra >= MUMPS_MAX_EXTRA_WORKSPACE:
            raise SingularMatrix(f"PETSc mumps: workspace too small with {extra} % extra (INFOG(1) = "
                                 f"{F.getMumpsInfog(1)})")
        self.mumps_extra_workspace = max(100, 4 * extra)
        return True

    def solve(self, b, transpose=False):
        if transpose and not self.settings.krylov and self.package in NATIVE_TRANSPOSE:
            return self._run(self.ksp, b, transpose=True)
        if transpose:
            return self._run(self._transposed_ksp(), b)
        return self._run(self.ksp, b)

    def _run(self, ksp, b, transpose=False):
        self.b[:] = b
        try:
            if transpose:
                ksp.solveTranspose(self.bvec, self.xvec)
            else:
                ksp.solve(self.bvec, self.xvec)
        except self.PETSc.Error as err:
            raise SingularMatrix(f"PETSc {self.settings.resolved_solver}: {first_line_of(err)}") from None
        reason = ksp.getConvergedReason()
        self.krylov_iterations += ksp.getIterationNumber()
        if reason < 0:
            raise SingularMatrix(f"PETSc {self.settings.resolved_solver}: {converged_reason_text(self.PETSc, reason)}"
                                 f" after {ksp.getIterationNumber()} iterations")
        if not np.all(np.isfinite(self.x)):         # UMFPACK returns inf for a zero pivot
            raise SingularMatrix(f"PETSc {self.settings.resolved_solver}: non-finite solution (singular matrix)")
        return self.x.copy()

    def _transposed_ksp(self):
        """A KSP on Aᵀ, whose CSR arrays are A's CSC ones (the last factored values)."""
        PETSc = self.PETSc
        if self._transposed is None:
            n = len(self._indptr) - 1
            self._t_indptr = self._indptr.astype(PETSc.IntType)
            self._t_indices = self._indices.astype(PETSc.IntType)
            self._t_values = np.zeros(len(self._indices), dtype=PETSc.ScalarType)
            mat = PETSc.Mat().createAIJWithArrays((n, n), (self._t_indptr, self._t_indices, self._t_values),
                                                  comm=PETSc.COMM_SELF)
            self._transposed = (mat, self._make_ksp(mat))
        mat, ksp = self._transposed
        if not self._transposed_current:
            self._t_values[:] = self._csc_data
            mat.assemble()
            try:
                ksp.setUp()
            except PETSc.Error as err:
                raise SingularMatrix(f"PETSc {self.settings.resolved_solver}: {first_line_of(err)}") from None
            self._transposed_current = True
        return ksp

    def forget_pivots(self):
        """After a failure the next factorization starts afresh (PETSc keeps no pivot order
        beyond the symbolic analysis, which stays valid for the pattern)."""


def converged_reason_text(PETSc, reason):
    names = {v: k for k, v in vars(PETSc.KSP.ConvergedReason).items() if isinstance(v, int)}
    return names.get(reason, f"reason {reason}").lower().replace("_", " ")
