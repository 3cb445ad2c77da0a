"""Linear solver back ends, chosen by name (`make_linear_solver`, `choose_linear_solver`):

* `klu` (solvers/klu.py): SuiteSparse KLU through ctypes; the symbolic analysis is kept while
  the sparsity pattern is fixed and each factorization after the first is a numeric
  refactorization with the kept pivot order (a full one with fresh pivoting when that order
  has become poor).  The default (`default`, or no name) whenever a KLU library is found.
* `superlu`: SciPy's SuperLU (COLAMD ordering).  SciPy does not expose SuperLU's symbolic
  factorization for reuse, so each factorization is a fresh one.  The fallback when no KLU
  library is found.
* `umfpack`, `naive`: what MBDyn decks ask for (`linear solver: umfpack;`, `naive`), both
  direct solvers that reuse their factorization work (MBDyn's naive solver refactorizes with
  its kept pivots too): KLU with refactorization (the same direct solution), else SuperLU.
* `kvxopt-umfpack`, `kvxopt-klu`: UMFPACK or KLU through kvxopt (optional extra `mbdae[klu]`),
  symbolic analysis kept, a full numeric factorization each time.

* `petsc`, `petsc-<solver>` or a PETScSettings (solvers/petsc.py, optional extra
  `mbdae[petsc]`): PETSc's KLU, UMFPACK, MUMPS or SuperLU
  factorization, or a preconditioned Krylov method (GMRES, FGMRES, BiCGStab).  Under MPI
  (mpiexec -n P, P > 1) every name that is not a PETSc one means `petsc-mumps`.

With PETSc and its MUMPS installed, large mesh patterns (3-D solids, and shell or membrane
meshes of ≥ 20000 unknowns; `mumps_pattern`) get `petsc-mumps` for `default`, `umfpack` and
`naive`: 1.3–2.6× faster per factorization than the best other back end there
(benchmarks/RESULTS.md, "PETSc back ends").  Without PETSc:

Large 3-D finite-element patterns (`finite_element_pattern`: thousands of unknowns of solid
elements' nodes, tens of entries per column) get UMFPACK through kvxopt for `default`,
`umfpack` and `naive` (SuperLU without kvxopt): KLU does not use dense supernodal kernels and
its fill on 3-D meshes makes it 4–10x slower there (benchmarks/RESULTS.md, "Linear solver on
solid meshes").  Surface meshes (shells, membranes: a 2-D graph, 55–60 entries per column)
stay with KLU, 1.1–6x faster than UMFPACK on them (RESULTS.md, "Shells").

Every back end has `name` (what runs), `description` (as the run's .log shows it, e.g.
`klu (requested: umfpack; refactorization with kept pivots)`), `factorizations` and
`refactorizations`; `solver_statistics` gives the run statistics' entries."""
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from mbdae.solvers.errors import SingularMatrix
from mbdae.solvers.klu import KLUFactorization, KLUError, load_klu
from mbdae.solvers.petsc import (MPI_DEFAULT_SOLVER, PETScSettings, PETScSolver, available_petsc_solvers,
                                 check_petsc_settings, mpi_world_size, package_available, petsc_available,
                                 petsc_settings)
from mbdae.solvers.kernels import schur_factor, schur_rhs, schur_back

# names make_linear_solver accepts
SOLVER_NAMES = ("default", "klu", "superlu", "umfpack", "naive", "kvxopt-umfpack", "kvxopt-klu")
# MBDyn's solvers that get KLU with refactorization when a KLU library is found
REFACTORIZING_REQUESTS = ("umfpack", "naive")
KLU_DETAIL = "refactorization with kept pivots"
NO_KLU = "no KLU library found"
# surface meshes at least this large and dense get MUMPS when PETSc has it (mumps_pattern)
MUMPS_SURFACE_MIN_UNKNOWNS = 20000
MUMPS_SURFACE_MIN_ENTRIES_PER_COLUMN = 30
MUMPS = PETScSettings(solver="mumps")
# a pattern at least this large and dense is a finite-element one (see finite_element_pattern)
FE_MIN_UNKNOWNS = 2000
FE_MIN_ENTRIES_PER_COLUMN = 40


def finite_element_pattern(pattern):
    """Whether a Jacobian pattern `(unknowns, entries, continuum unknowns)` is a large 3-D
    finite-element one: ≥ FE_MIN_UNKNOWNS position unknowns of solid elements' nodes
    (System.linear_pattern) and ≥ FE_MIN_ENTRIES_PER_COLUMN entries per column on average
    (multibody patterns have 5–25 entries per column, solid meshes 60–150)."""
    if pattern is None:
        return False
    n, nnz, continuum = pattern
    return continuum >= FE_MIN_UNKNOWNS and nnz >= FE_MIN_ENTRIES_PER_COLUMN * n


@dataclass(frozen=True)
class LinearSolverChoice:
    """The back end that runs (`name`) for the solver asked for (`requested`), and why."""
    name: str
    requested: str
    detail: str = ""
    asked: object = "default"   # the mbdae name (or PETScSettings) the choice was made for

    def for_pattern(self, pattern):
        """The choice once the Jacobian's (unknowns, entries) are known (a finite-element
        pattern changes what `default`, `umfpack` and `naive` run)."""
        return choose_linear_solver(self.asked, self.requested, pattern)

    def describe(self):
        """`klu (requested: umfpack; refactorization with kept pivots)`, `superlu`, ..."""
        words = []
        if self.requested == "default":
            words.append("default")
        elif self.requested != self.name:
            words.append(f"requested: {self.requested}")
        if self.detail:
            words.append(self.detail)
        return self.name + (f" ({'; '.join(words)})" if words else "")


def mumps_available():
    """Whether PETSc (extra mbdae[petsc]) with MUMPS is installed."""
    return petsc_available() and package_available("mumps")


def klu_available():
    """Whether a KLU library was found (solvers/klu.py)."""
    return load_klu() is not None


def kvxopt_available():
    try:
        import kvxopt  # noqa: F401
    except ImportError:
        return False
    return True


def choose_linear_solver(name=None, requested=None, pattern=None):
    """The LinearSolverChoice for the solver `name` (None: `default`).  `requested`: the name
    the user wrote when it differs from `name` (a deck's `linear solver` card mapped to one
    of these names), shown in the description.  `pattern`: the Jacobian's (unknowns,
    entries) when known; a finite-element one (finite_element_pattern) gets UMFPACK for
    `default`, `umfpack` and `naive`.  An explicit `klu` without a KLU library, a
    `kvxopt-*` without kvxopt or an unknown name is a ValueError."""
    petsc = petsc_settings(name)
    if petsc is None and mpi_world_size() > 1:
        # an MPI run: every solver name means the distributed direct one
        petsc = PETScSettings(solver=MPI_DEFAULT_SOLVER)
        check_petsc_settings(petsc)
        requested = (requested or name or "default").lower()
        return LinearSolverChoice(petsc.name, requested, f"{petsc.describe()}; MPI, {mpi_world_size()} processes",
                                  asked=petsc)
    if petsc is not None:
        check_petsc_settings(petsc)
        requested = (requested or (name if isinstance(name, str) else petsc.name)).lower()
        processes = mpi_world_size()
        where = f"; MPI, {processes} processes" if processes > 1 else ""
        return LinearSolverChoice(petsc.name, requested, petsc.describe() + where, asked=petsc)
    name = (name or "default").lower()
    requested = (requested or name).lower()
    return replace(_choice(name, requested, pattern), asked=name)


def mumps_pattern(pattern):
    """Whether PETSc's MUMPS (when installed) is the fastest back end for a Jacobian pattern
    `(unknowns, entries, continuum unknowns)` (benchmarks/RESULTS.md, "PETSc back ends"): a 3-D
    finite-element one (finite_element_pattern), or a large surface mesh (shells, membranes:
    ≥ MUMPS_SURFACE_MIN_UNKNOWNS unknowns, ≥ MUMPS_SURFACE_MIN_ENTRIES_PER_COLUMN entries per
    column; multibody and beam patterns have 5–20)."""
    if pattern is None:
        return False
    n, nnz, _ = pattern
    return finite_element_pattern(pattern) or (n >= MUMPS_SURFACE_MIN_UNKNOWNS
                                               and nnz >= MUMPS_SURFACE_MIN_ENTRIES_PER_COLUMN * n)


def _choice(name, requested, pattern):
    klu = klu_available()
    if name in ("default",) + REFACTORIZING_REQUESTS and mumps_pattern(pattern) and mumps_available():
        n, nnz, _ = pattern
        return LinearSolverChoice("petsc-mumps", requested, f"mesh pattern, {n} unknowns, {nnz / n:.0f} entries per "
                                                            f"column; {MUMPS.describe()}")
    if name in ("default",) + REFACTORIZING_REQUESTS and finite_element_pattern(pattern):
        n, nnz, _ = pattern
        why = f"finite-element pattern, {n} unknowns, {nnz / n:.0f} entries per column"
        if kvxopt_available():
            return LinearSolverChoice("kvxopt-umfpack", requested, why)
        return LinearSolverChoice("superlu", requested, why + "; kvxopt not installed")
    if name in ("default",) + REFACTORIZING_REQUESTS:
        return LinearSolverChoice("klu", requested, KLU_DETAIL) if klu else \
            LinearSolverChoice("superlu", requested, NO_KLU)
    if name == "klu":
        if not klu:
            raise ValueError("linear solver 'klu' is not available: no KLU library found (apt-get install "
                             "libklu1 or libsuitesparse-dev, or pip install 'mbdae[klu]')")
        return LinearSolverChoice("klu", requested, KLU_DETAIL)
    if name == "superlu":
        return LinearSolverChoice("superlu", requested, NO_KLU if requested == "klu" else "")
    if name in ("kvxopt-umfpack", "kvxopt-klu"):
        if not kvxopt_available():
            raise ValueError(f"linear solver '{name}' needs kvxopt: pip install 'mbdae[klu]'")
        return LinearSolverChoice(name, requested, "symbolic analysis kept, full numeric factorizations")
    raise ValueError(f"linear solver '{name}' is not available (available: "
                     f"{', '.join(available_linear_solvers())})")


class SuperLUSolver:
    """SuperLU with COLAMD column ordering.  `pivot_factor` is SuperLU's diagonal pivot
    threshold (MBDyn's `pivot factor`): 1 is classic partial pivoting, smaller values keep
    the diagonal pivot when it is within that fraction of the column's largest entry,
    which preserves the ordering's sparsity and is faster on these saddle-point matrices."""
    name = "superlu"
    description = "superlu"
    refactorizations = 0

    def __init__(self, permc_spec="COLAMD", pivot_factor=0.1, symmetric_mode=True):
        # scipy.sparse.linalg only where SuperLU runs: the KLU path does not need it, and it is
        # a good part of the start-up time
        import scipy.sparse.linalg as spla
        self.splu = spla.splu
        self.permc_spec = permc_spec
        self.pivot_factor = pivot_factor
        self.symmetric_mode = symmetric_mode
        self.lu = None
        self.factorizations = 0

    def factor(self, A):
        try:
            self.lu = self.splu(A, permc_spec=self.permc_spec, diag_pivot_thresh=self.pivot_factor,
                                options={"SymmetricMode": self.symmetric_mode})
        except RuntimeError as err:   # "Factor is exactly singular"
            raise SingularMatrix(str(err)) from None
        self.factorizations += 1

    def solve(self, b, transpose=False):
        return self.lu.solve(b, trans="T") if transpose else self.lu.solve(b)


class SuiteSparseSolver:
    """KLU or UMFPACK through kvxopt (optional extra `mbdae[klu]`; names `kvxopt-klu`,
    `kvxopt-umfpack`).  The symbolic analysis is done once per sparsity pattern and reused:
    each factorization after the first is numeric only (a full one: kvxopt has no
    refactorization), with the new values written into the same sparse matrix."""
    refactorizations = 0

    def __init__(self, kind="umfpack"):
        try:
            import kvxopt
            from kvxopt import klu, umfpack
        except ImportError:
            raise ValueError(f"linear solver 'kvxopt-{kind}' needs kvxopt: pip install 'mbdae[klu]'") from None
        self.kvx = kvxopt
        self.mod = klu if kind == "klu" else umfpack
        self.kind = kind
        self.name = self.description = f"kvxopt-{kind}"
        self.pattern = None
        self.factorizations = 0
        self.symbolic_analyses = 0

    def factor(self, A):
        kvx = self.kvx
        same = (self.pattern is not None and len(self.pattern[0]) == len(A.indices)
                and np.array_equal(self.pattern[1], A.indptr) and np.array_equal(self.pattern[0], A.indices))
        if not same:
            cols = np.repeat(np.arange(A.shape[1], dtype=np.int64), np.diff(A.indptr))
            self.K = kvx.spmatrix(A.data, A.indices.astype(np.int64), cols, A.shape)
            self.symbolic = self.mod.symbolic(self.K)
            self.pattern = (A.indices.copy(), A.indptr.copy())
            self.symbolic_analyses += 1
        else:
            self.K.V = kvx.matrix(A.data)
        try:
            self.numeric = self.mod.numeric(self.K, self.symbolic)
        except ArithmeticError as err:
            raise SingularMatrix(str(err)) from None
        self.factorizations += 1

    def solve(self, b, transpose=False):
        x = self.kvx.matrix(np.ascontiguousarray(b, dtype=float))
        trans = "T" if transpose else "N"
        if self.kind == "klu":
            self.mod.solve(self.K, self.symbolic, self.numeric, x, trans=trans)
        else:
            self.mod.solve(self.K, self.numeric, x, trans=trans)
        return np.array(x).ravel()


class KLUSolver:
    """KLU (SuiteSparse) with the symbolic analysis kept while the pattern is fixed and
    numeric refactorization (same pivot order) between full factorizations; see
    solvers/klu.py for where the library comes from."""
    name = "klu"
    description = f"klu ({KLU_DETAIL})"

    def __init__(self):
        self.klu = KLUFactorization()

    @property
    def factorizations(self):
        return self.klu.full_factorizations + self.klu.refactorizations

    @property
    def refactorizations(self):
        return self.klu.refactorizations

    @property
    def symbolic_analyses(self):
        return self.klu.analyses

    def factor(self, A):
        try:
            self.klu.factor(A.indptr, A.indices, A.data)
        except KLUError as err:
            raise SingularMatrix(str(err)) from None

    def solve(self, b, transpose=False):
        return self.klu.solve(b, transpose)

    def forget_pivots(self):
        self.klu.forget_pivots()


def available_linear_solvers():
    """The back ends that can run here (names for make_linear_solver); `default`, `umfpack`
    and `naive` are always accepted (they map to one of these)."""
    names = ["superlu"]
    if klu_available():
        names.append("klu")
    if kvxopt_available():
        names += ["kvxopt-umfpack", "kvxopt-klu"]
    return names + available_petsc_solvers()


def make_linear_solver(name=None, requested=None, pattern=None, layout=None):
    """The back end for `name` (see the module docstring; None or `default`: KLU when a KLU
    library is found, else SuperLU; UMFPACK for a finite-element `pattern`), with its
    `description` for the run's log.  `layout`: the rows of a distributed system
    (solvers/petsc.py DistributedLayout; the choice is then a PETSc one, as under MPI)."""
    choice = choose_linear_solver(name, requested, pattern)
    if isinstance(choice.asked, PETScSettings):
        solver = PETScSolver(choice.asked, layout)
    elif choice.name.startswith("petsc-"):          # chosen for the pattern (mumps_pattern)
        solver = PETScSolver(petsc_settings(choice.name), layout)
    elif choice.name == "klu":
        try:
            solver = KLUSolver()
        except ImportError as err:
            raise ValueError(f"linear solver 'klu' is not available: {err}") from None
    elif choice.name == "superlu":
        solver = SuperLUSolver()
    else:
        solver = SuiteSparseSolver(choice.name.replace("kvxopt-", ""))
    solver.requested = choice.requested
    solver.description = choice.describe()
    return solver


def solver_statistics(linear):
    """Run-statistics entries of a linear back end (or of a ReusingSolver around one): which
    solver ran (`linear_solver`: klu, superlu, kvxopt-umfpack, kvxopt-klu) and how many of its
    factorizations were numeric refactorizations with kept pivots (`refactorizations`)."""
    backend = getattr(linear, "backend", linear)
    return dict(linear_solver=backend.name, refactorizations=int(getattr(backend, "refactorizations", 0)))


def add_solver_statistics(results, linear):
    """Add `solver_statistics(linear)` to a run's statistics: `results` is the statistics dict
    itself or what has one as `stats` (Results); returns `results`."""
    stats = results if isinstance(results, dict) else getattr(results, "stats", None)
    if stats is not None:
        stats.update(solver_statistics(linear))
    return results


class ReusingSolver:
    """A linear back end that factorizes a matrix only when it differs from the last one it
    factorized (same pattern, values equal to rounding), and solves with it or with its
    transpose: the inverse-dynamics subproblems share one matrix or its transpose (manual
    §6.3).  `reuse=False` factorizes every matrix."""

    def __init__(self, backend, reuse=True):
        self.backend = backend
        self.reuse = reuse
        self.A = None
        self.factorizations = 0
        self.reused = 0
        self.solves = 0

    def factor(self, A):
        A = sp.csc_matrix(A)
        A.sort_indices()
        if self.reuse and self.A is not None and same_matrix(self.A, A):
            self.reused += 1
            return
        self.A = None
        self.backend.factor(A)
        self.A = A
        self.factorizations += 1

    def solve(self, b, transpose=False):
        self.solves += 1
        return self.backend.solve(np.asarray(b, float), transpose)

    def forget_pivots(self):
        self.A = None
        if hasattr(self.backend, "forget_pivots"):
            self.backend.forget_pivots()


class CondensedBlocksSolver:
    """Solves J Δ = b with blocks of unknowns eliminated first: the momenta β of a dynamic
    displacement node (3) or the EAS parameters of a shell or membrane (7 or 13).  A block's
    own rows hold entries only in its own columns and in kept unknowns (a node's force rows,
    β̇: I; an element's node rows), and its columns only in its own rows and in kept rows, so
    with D = blockdiag(J_bb) the Schur complement on the kept unknowns z

        S = J_zz − J_zb D⁻¹ J_bz

    couples only kept unknowns that a block's rows and columns reach (a node's own
    displacement, an element's nodes); the inner back end factorizes S and
    Δ_b = D⁻¹ (b_b − J_bz Δz).  The same solution as factorizing J (the pivots of the
    blocks are D's).  For momenta, S is the effective matrix M/dCoef + C + dCoef·K of the
    displacements: half the size of J, a quarter of its entries; for shells, a third of the
    unknowns.  The index work is done once per sparsity pattern; each factorization and
    solve is one compiled call (solvers/kernels.py schur_factor, schur_rhs, schur_back).
    `groups`: [(m, k) unknown indices of m blocks of k]; `what`: the blocks, for the .log."""

    def __init__(self, backend, n, groups, what="blocks"):
        self.backend = backend
        self.n = n
        groups = [np.asarray(g, np.int64) for g in groups if len(g)]
        self.blocks = np.ascontiguousarray(np.concatenate([g.ravel() for g in groups]))
        self.kq = np.concatenate([np.full(len(g), g.shape[1], np.int64) for g in groups])
        self.b_ptr = np.concatenate([[0], np.cumsum(self.kq)])
        self.block_of = np.full(n, -1, np.int64)
        self.local = np.zeros(n, np.int64)
        self.block_of[self.blocks] = np.repeat(np.arange(len(self.kq)), self.kq)
        self.local[self.blocks] = np.arange(len(self.blocks)) - np.repeat(self.b_ptr[:-1], self.kq)
        self.kept = np.flatnonzero(self.block_of < 0)
        self.position = np.full(n, -1, np.int64)
        self.position[self.kept] = np.arange(len(self.kept))
        self._indptr = self._indices = None
        self.name = backend.name
        self.requested = getattr(backend, "requested", backend.name)
        self.description = f"{backend.description}; {what} condensed"

    @property
    def factorizations(self):
        return self.backend.factorizations

    @property
    def refactorizations(self):
        return getattr(self.backend, "refactorizations", 0)

    def _setup(self, A):
        """The index arrays of the kernels for A's sparsity pattern."""
        n, nk, nq = self.n, len(self.kept), len(self.kq)
        self._indptr, self._indices = A.indptr.copy(), A.indices.copy()
        col = np.repeat(np.arange(n), np.diff(A.indptr))
        row = A.indices.astype(np.int64)
        apos = np.arange(len(row))
        qr, qc = self.block_of[row], self.block_of[col]
        zz, zb, bz, bb = (qr < 0) & (qc < 0), (qr < 0) & (qc >= 0), (qr >= 0) & (qc < 0), (qr >= 0) & (qc >= 0)
        if np.any(qr[bb] != qc[bb]):
            raise ValueError("condensed unknowns: two blocks are coupled to each other")

        def reach(q, other):
            """Per block, the sorted kept unknowns `other` its entries reach: (ptr, list in
            kept numbering, local index of each entry)."""
            keys = q * n + other
            uniq = np.unique(keys)
            ptr = np.concatenate([[0], np.cumsum(np.bincount(uniq // n, minlength=nq))])
            local = np.searchsorted(uniq, keys) - ptr[q]
            return ptr, self.position[uniq % n], local

        r_ptr, r_list, zb_local_row = reach(qc[zb], row[zb])
        c_ptr, c_list, bz_local_col = reach(qr[bz], col[bz])
        order = np.argsort(qc[zb], kind="stable")
        self.zb_ptr = np.concatenate([[0], np.cumsum(np.bincount(qc[zb], minlength=nq))])
        self.zb_a, self.zb_row = apos[zb][order], zb_local_row[order]
        self.zb_col = self.local[col[zb]][order]
        order = np.argsort(qr[bz], kind="stable")
        self.bz_ptr = np.concatenate([[0], np.cumsum(np.bincount(qr[bz], minlength=nq))])
        self.bz_a, self.bz_row = apos[bz][order], self.local[row[bz]][order]
        self.bz_col = bz_local_col[order]
        self.d_ptr = np.concatenate([[0], np.cumsum(self.kq ** 2)])
        self.d_pos = np.full(self.d_ptr[-1], -1, np.int64)
        q = qr[bb]
        self.d_pos[self.d_ptr[q] + self.local[row[bb]] * self.kq[q] + self.local[col[bb]]] = apos[bb]
        self.nrq, self.ncq = np.diff(r_ptr), np.diff(c_ptr)
        self.r_ptr, self.r_list, self.c_ptr, self.c_list = r_ptr, r_list, c_ptr, c_list
        self.w_ptr = np.concatenate([[0], np.cumsum(self.nrq * self.kq)])
        self.j_ptr = np.concatenate([[0], np.cumsum(self.kq * self.ncq)])
        self.s_ptr = np.concatenate([[0], np.cumsum(self.nrq * self.ncq)])
        # S's pattern: the kept entries of A and every block's rows × columns
        pair_r = [self.position[row[zz]]]
        pair_c = [self.position[col[zz]]]
        for b in range(nq):
            rr = r_list[r_ptr[b]:r_ptr[b + 1]]
            cc = c_list[c_ptr[b]:c_ptr[b + 1]]
            pair_r.append(np.repeat(rr, len(cc)))
            pair_c.append(np.tile(cc, len(rr)))
        pr, pc = np.concatenate(pair_r), np.concatenate(pair_c)
        keys = pc * nk + pr
        uniq = np.unique(keys)
        self.S_indices = np.ascontiguousarray(uniq % nk, dtype=A.indices.dtype)
        self.S_indptr = np.concatenate([[0], np.cumsum(np.bincount(uniq // nk, minlength=nk))]).astype(A.indptr.dtype)
        where = np.searchsorted(uniq, keys)
        nzz = int(zz.sum())
        self.zz_a, self.zz_s = apos[zz], where[:nzz]
        self.s_pos = where[nzz:]
        self.Sdata = np.zeros(len(uniq))
        self.Dinv = np.zeros(self.d_ptr[-1])
        self.W = np.zeros(self.w_ptr[-1])
        self.Jbz = np.zeros(self.j_ptr[-1])

    def factor(self, A):
        A = sp.csc_matrix(A)
        if (self._indptr is None or not np.array_equal(A.indptr, self._indptr)
                or not np.array_equal(A.indices, self._indices)):
            self._setup(A)
        data = np.ascontiguousarray(A.data, dtype=float)
        bad = schur_factor(data, self.zz_a, self.zz_s, self.kq, self.d_ptr, self.d_pos, self.zb_ptr, self.zb_a,
                           self.zb_row, self.zb_col, self.bz_ptr, self.bz_a, self.bz_row, self.bz_col, self.nrq,
                           self.ncq, self.w_ptr, self.j_ptr, self.s_ptr, self.s_pos, self.Sdata, self.Dinv, self.W,
                           self.Jbz)
        if bad >= 0:
            raise SingularMatrix(f"singular pivot block of condensed unknowns {self.blocks[self.b_ptr[bad]:self.b_ptr[bad + 1]]}")
        nk = len(self.kept)
        self.backend.factor(sp.csc_matrix((self.Sdata.copy(), self.S_indices, self.S_indptr), shape=(nk, nk)))

    def solve(self, b):
        b = np.ascontiguousarray(b, dtype=float)
        bz = np.empty(len(self.kept))
        schur_rhs(b, self.kept, self.blocks, self.kq, self.b_ptr, self.nrq, self.w_ptr, self.r_ptr, self.r_list,
                  self.W, bz)
        z = np.ascontiguousarray(self.backend.solve(bz), dtype=float)
        x = np.empty(self.n)
        schur_back(b, z, self.kept, self.blocks, self.kq, self.b_ptr, self.d_ptr, self.ncq, self.j_ptr, self.c_ptr,
                   self.c_list, self.Dinv, self.Jbz, x)
        return x

    def forget_pivots(self):
        if hasattr(self.backend, "forget_pivots"):
            self.backend.forget_pivots()


def same_matrix(A, B, rtol=1e-13):
    """Same pattern and values equal to rounding (relative to the largest entry)."""
    if not (A.shape == B.shape and A.nnz == B.nnz and np.array_equal(A.indptr, B.indptr)
            and np.array_equal(A.indices, B.indices)):
        return False
    scale = np.abs(A.data).max(initial=0.0)
    return bool(np.all(np.abs(A.data - B.data) <= rtol * scale))
