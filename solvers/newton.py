"""Newton-Raphson, full or modified (manual §3.4 and 6.2.1).

Solves J Δ = -f with J = ∂f/∂ẏ + dCoef ∂f/∂y, then updates differential unknowns
ẏ += Δ, y += dCoef Δ and algebraic unknowns y += Δ (G1).  Modified Newton rebuilds and
refactors J only every `iterations_before_assembly` iterations; with
`reuse_across_steps` it also keeps the factorization across time steps while dCoef is
unchanged (refactoring as soon as an iteration fails to reduce the error).  With
`matrix_free` settings the increment comes from a Krylov method on J·w products instead,
preconditioned by the kept factorization (solvers/krylov.py, MBDyn's `matrix free`)."""
from dataclasses import dataclass
import numpy as np

from mbdae.solvers.convergence import residual_error, solution_error, SimulationDiverged
from mbdae.solvers.linear import make_linear_solver, SingularMatrix
from mbdae.solvers.krylov import MatrixFreeStep, JacobianProduct
from mbdae.engine.core.compiled import all_finite
from mbdae.engine.core.state import InvalidConfiguration


@dataclass
class NewtonSettings:
    tolerance: float = 1e-6
    test: str = "norm"
    solution_tolerance: float = 0.0
    solution_test: str = "none"
    max_iterations: int = 20
    at_most: bool = False                  # MBDyn's `max iterations: n, at most`: after n
                                           # iterations accept the step if the residual decreased
    modified: bool = False
    iterations_before_assembly: int = 1
    reuse_across_steps: bool = False
    refresh_contraction: float = 0.5        # modified Newton: rebuild J when err/prev_err exceeds this
    linear_solver: str = "default"         # KLU when a KLU library is found, else SuperLU (solvers/linear.py)
    constraint_test_scale: float = None    # MBDyn's `enforce constraint equations: constraint
                                           # violations, scale factor, s`: in the regular steps'
                                           # residual test the rows divided by dCoef count as
                                           # dCoef·s·f (s times the constraint violation); None: as f
    matrix_free: object = None             # solvers/krylov.MatrixFreeSettings: inexact Newton-Krylov


class NoConvergence(RuntimeError):
    """`matrix`, `dcoef`, `mode`: the iteration matrix whose factorization failed (singular)
    and where it was assembled, for a diagnosis by the caller (engine/diagnose.py); else None."""

    def __init__(self, message, worst_row=None, error=None, matrix=None, dcoef=None, mode=None):
        super().__init__(message)
        self.worst_row = worst_row
        self.error = error
        self.matrix, self.dcoef, self.mode = matrix, dcoef, mode


class NewtonRaphson:
    """The one Newton loop.  It sees the problem only through the system protocol:
    `evaluate(state, dcoef, mode, want_jac, ia, want_abs) -> (f, f̃, J)`, `update(state, Δ,
    dcoef)`, `dim`, `owner_text(row)`, `last_kinematics`; the structural System (G1 update)
    and the inverse-dynamics position subproblem (rotation update) both offer it.
    `linear`: a linear back end to use instead of the one `settings.linear_solver` names."""

    def __init__(self, settings=None, linear=None):
        self.settings = settings or NewtonSettings()
        self.linear = linear if linear is not None else make_linear_solver(self.settings.linear_solver)
        self.total_iterations = 0
        self.converged_kinematics = None
        self.accepted_unconverged = 0          # steps accepted by `at most` without converging
        self._factor_dcoef = None
        self._factor_mode = None
        mf = self.settings.matrix_free
        self.matrix_free = MatrixFreeStep(mf) if mf is not None else None

    @property
    def factorizations(self):
        return self.linear.factorizations

    def invalidate(self):
        """Forget the kept factorization (and, for back ends that refactor with a kept pivot
        order, that order too: after a failure the next factorization pivots afresh)."""
        self._factor_dcoef = None
        if self.matrix_free is not None:
            self.matrix_free.forget()
        if hasattr(self.linear, "forget_pivots"):
            self.linear.forget_pivots()

    def _tested(self, system, f, fabs, dcoef, mode):
        """(f, f̃) as the residual test sees them: with `constraint_test_scale` s, in a regular
        step, the position-level constraint rows (divided by dCoef, System.scaled_rows) count
        times dCoef·s (manual §4.1.2, "Enforce Constraint Equations")."""
        s = self.settings.constraint_test_scale
        rows = getattr(system, "scaled_rows", None)
        if s is None or mode != "regular" or rows is None:
            return f, fabs
        f = f.copy()
        f[rows] *= dcoef * s
        if fabs is not None:
            fabs = fabs.copy()
            fabs[rows] *= dcoef * s
        return f, fabs

    def _worst(self, system, f):
        row = int(np.argmax(np.abs(np.where(np.isfinite(f), f, np.inf))))
        return row, system.owner_text(row)

    def solve(self, system, state, dcoef, mode="regular", ia=None, tolerance=None,
              max_iterations=None, test=None, bias=None, solution_tolerance=None, solution_test=None):
        """Iterate until the residual test passes (or the solution test, when it has a positive
        tolerance: the first that passes ends the loop, manual §4.1.2); `bias` is subtracted
        from f (used by the derivatives phase); tolerance, max_iterations, test,
        solution_tolerance and solution_test override the settings' ones for this solve.
        Returns (iterations, error, converged on the solution test).
        An element that cannot be evaluated at an iterate (InvalidConfiguration, e.g. an
        inverted solid element) ends the solve as a diverged one, with its message."""
        try:
            return self._solve(system, state, dcoef, mode, ia, tolerance, max_iterations, test, bias,
                               solution_tolerance, solution_test)
        except InvalidConfiguration as e:
            self.invalidate()
            raise SimulationDiverged(str(e)) from None

    def _solve(self, system, state, dcoef, mode, ia, tolerance, max_iterations, test, bias,
               solution_tolerance, solution_test):
        s = self.settings
        tol = s.tolerance if tolerance is None else tolerance
        sol_tol = s.solution_tolerance if solution_tolerance is None else solution_tolerance
        sol_test = s.solution_test if solution_test is None else solution_test
        maxit = s.max_iterations if max_iterations is None else max_iterations
        test = s.test if test is None else test
        modified = s.modified and not getattr(system, "full_newton", False)
        every = max(1, s.iterations_before_assembly) if modified else 1
        want_abs = test in ("relnorm", "sepnorm")
        mf = self.matrix_free
        if mf is not None:
            mf.start()
        it = 0
        since_factor = 0
        prev_err = np.inf
        while True:
            if mf is not None:       # the preconditioner is kept until it has served its Krylov steps
                reuse = not mf.preconditioner_stale() and self._factor_dcoef == dcoef and self._factor_mode == mode
            else:
                reuse = (modified and self._factor_dcoef == dcoef and self._factor_mode == mode
                         and (it > 0 or s.reuse_across_steps) and since_factor < every)
            # after an update the residual is tested first; the Jacobian is built only if needed
            f, fabs, J = system.evaluate(state, dcoef, mode, want_jac=not reuse and it == 0, ia=ia,
                                         want_abs=want_abs)
            if bias is not None:
                f = f - bias
            try:
                err = residual_error(test, *self._tested(system, f, fabs, dcoef, mode), system.dim,
                                     reduction=getattr(system, "reduction", None))
            except SimulationDiverged:
                row, owner = self._worst(system, f)
                raise SimulationDiverged(f"non-finite residual at iteration {it}; worst equation "
                                         f"{row}: {owner}") from None
            if it == 0:
                first_err = err
            if err <= tol:
                # the state is left exactly as last evaluated: its kinematics serve the commit
                self.converged_kinematics = system.last_kinematics
                return it, err, False
            if it >= maxit and s.at_most and mode == "regular" and err < first_err:
                self.accepted_unconverged += 1
                self.converged_kinematics = system.last_kinematics
                return it, err, False
            if it >= maxit:
                row, owner = self._worst(system, f)
                raise NoConvergence(f"no convergence after {it} iterations (error {err:.3e} > {tol:.1e}); "
                                    f"worst equation {row}: {owner}, value {f[row]:.3e}", row, err)
            if reuse and mf is None and err > s.refresh_contraction * prev_err:
                reuse = False      # the kept factorization converges too slowly: rebuild it now
            if not reuse and J is None:
                f, fabs, J = system.evaluate(state, dcoef, mode, want_jac=True, ia=ia, want_abs=want_abs)
                if bias is not None:
                    f = f - bias
            if not reuse:
                try:
                    self.linear.factor(J)
                except SingularMatrix as e:
                    row, owner = self._worst(system, f)
                    self.invalidate()
                    raise NoConvergence(f"singular iteration matrix ({e}); worst equation {row}: {owner}",
                                        row, err, matrix=J, dcoef=dcoef, mode=mode) from None
                self._factor_dcoef, self._factor_mode = dcoef, mode
                since_factor = 0
                if mf is not None:
                    mf.preconditioner_built()
            if mf is not None:
                product = JacobianProduct(system, state, dcoef, mode, ia, bias, f.copy(), mf.settings.tau)
                dx = mf.increment(product, lambda v: self.linear.solve(v).copy(), f, err, tol)
            else:
                try:
                    dx = self.linear.solve(-f)
                except SingularMatrix as e:      # an iterative back end that did not converge
                    row, owner = self._worst(system, f)
                    self.invalidate()
                    raise NoConvergence(f"linear solve failed ({e}); worst equation {row}: {owner}",
                                        row, err) from None
            if not all_finite(dx):
                self.invalidate()
                row, owner = self._worst(system, f)
                raise SimulationDiverged(f"non-finite solution increment at iteration {it}; worst "
                                         f"equation {row}: {owner}")
            system.update(state, dx, dcoef)
            it += 1
            since_factor += 1
            self.total_iterations += 1
            prev_err = err
            if sol_tol > 0 and sol_test != "none":
                if solution_error(sol_test, dx, getattr(system, "reduction", None)) <= sol_tol:
                    self.converged_kinematics = None      # the state moved after the evaluation
                    return it, err, True
