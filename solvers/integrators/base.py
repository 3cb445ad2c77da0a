"""The integrator protocol (spec/integrators.md §2): a method gives, for the step h_n (and the
previous step h_{n-1}), the corrector
    y_n = Σ_k a_k y_{n-k} + b_0 ẏ_n + Σ_k b_k ẏ_{n-k}      (dCoef = b_0)
and a predictor for ẏ_n, and owns its step (`Method.step`): the predictor, the corrector
and the one place its dCoef is computed and passed to the Newton solver."""
from dataclasses import dataclass
import numpy as np

from mbdae.solvers.kernels import corrector, hermite_derivative

@dataclass
class Coefficients:
    a: np.ndarray        # a_1..a_K on y_{n-1}..y_{n-K}
    b0: float
    b: np.ndarray        # b_1..b_K on ẏ_{n-1}..ẏ_{n-K}


class Method:
    name = "method"
    history = 1          # past points the corrector needs
    order = 2
    variable_step = True

    def coefficients(self, h, h_prev, memory=None):
        raise ValueError(f"{self.name}: no coefficients")

    def predict(self, ys, yps, h, h_prev):
        """Predicted ẏ_n from the history lists (newest first)."""
        return yps[0].copy()

    @property
    def nonlinear_order(self):
        """Order on nonlinear problems (multistep methods: their order)."""
        return self.order

    @property
    def damps_infinity(self):
        """|R(∞)| < 1: the method damps the error modes of the multipliers (ρ∞ < 1)."""
        return getattr(self, "rho", 0.0) < 1.0

    @property
    def constrained_orders(self):
        """Predicted global orders on index-3 multibody DAEs (position constraints, MBDyn's
        direct formulation) for (positions, velocities, multipliers); None where the theory
        gives no convergence.  Multistep methods strictly stable at infinity keep their order
        in every component (BDF: Lötstedt & Petzold 1986; Hairer & Wanner 1996 §VII.3); at
        ρ∞ = 1 the multiplier errors are not damped and need not converge."""
        p = self.order
        return (p, p, p if self.damps_infinity else None)

    def corrector_extra(self, yps, h, memory=None):
        """Additional known part of the corrector (methods with intermediate vectors), or None."""
        return None

    def accepted(self, hist, memory=None):
        """The method's memory after an accepted regular step (`hist`: the history, newest
        first, the step's point included), for methods with internal phases or intermediate
        vectors.  The memory lives in the History (State.history), never in the method
        object, so a kept State restarts or rolls back the method too."""
        return memory

    def startup(self, k):
        """The method for regular step k after a (re)start: Crank-Nicolson first, as MBDyn."""
        return CrankNicolson() if k == 0 else self

    def step(self, system, newton, history, h):
        """One step of size h from the history (newest point first): predict ẏ_n, form y_n
        by the corrector, extrapolate the multipliers, and solve with dCoef = b_0.
        Returns (state at t_n, Newton iterations, error, converged on the solution test)."""
        K = min(self.history, len(history))
        lam_weights = history.algebraic_weights(h)
        ys, yps = history.vectors(system, max(K, min(2, len(history)), len(lam_weights)))
        h_prev = history.previous_step(h)
        memory = history.memory.get(self.name)
        coef = self.coefficients(h, h_prev, memory)
        yp = self.predict(ys, yps, h, h_prev) if K >= self.history else yps[0].copy()
        # y_n = b0 ẏ_n + Σ a_k y_{n-k} + b_k ẏ_{n-k}; multipliers extrapolated, their ẏ = 0
        y = corrector(coef.b0, coef.a[:K], coef.b[:K], ys, yps, yp, system.alg_index, lam_weights)
        extra = self.corrector_extra(yps, h, memory)  # intermediate vectors (ss2/ss3/ss4)
        if extra is not None:
            diff = ~system.is_alg
            y[diff] += extra[diff]
        st = history.trial_state(system, history[0].t + h, y, yp)
        if hasattr(system, "rebase_rotations"):
            system.rebase_rotations(st)        # rotations about the predicted orientation (MBDyn)
        it, err, solconv = newton.solve(system, st, coef.b0, mode="regular")
        return st, it, err, solconv


class CrankNicolson(Method):
    """Trapezoidal rule, ρ∞ = 1: y_n = y_{n-1} + h/2 (ẏ_n + ẏ_{n-1})."""
    name = "crank nicolson"
    rho = 1.0

    def coefficients(self, h, h_prev, memory=None):
        return Coefficients(np.array([1.0]), 0.5 * h, np.array([0.5 * h]))


class ImplicitEuler(Method):
    """Backward Euler, first order, ρ∞ = 0."""
    name = "implicit euler"
    order = 1

    def coefficients(self, h, h_prev, memory=None):
        return Coefficients(np.array([1.0]), h, np.array([0.0]))
