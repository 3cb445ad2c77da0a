"""The matrix-free Newton step: MBDyn's `nonlinear solver: matrix free` (input manual §4.1.1,
"Matrix free"), an inexact Newton-Krylov method after Kelley (1995).

Each Newton iteration solves J Δ = -f only approximately, with GMRES or BiCGStab, to a
residual below η·err (err: the Newton residual test's error).  The products J·w come from
one residual evaluation each, by a forward difference through the solver's own update rule,

    J w ≈ (f(x ⊕ τ w) - f(x)) / τ,   τ = τ₀ max(1, |σ|) sign(σ) / ‖w‖,   σ = x·w / ‖w‖,

and the Krylov method is right-preconditioned by the factorized iteration matrix (MBDyn's
"full jacobian matrix" preconditioner), which is kept across iterations and time steps until
`preconditioner_steps` Krylov iterations have been spent on it.  The forcing term η follows
Eisenstat and Walker's second choice as MBDyn applies it: η starts at η_max in every solve;
after an iteration η = min(η_max, max(γ r, γ η² if γ η² > 0.1)) with r = err²/err_prev² and
γ = 0.9, and never below 0.5 tol/err (no oversolving).  MBDyn starts err_prev at 1, so the
first update uses r = err²; kept as it is."""
from dataclasses import dataclass
import math

import numpy as np


KRYLOV_METHODS = ("gmres", "bicgstab")


@dataclass
class MatrixFreeSettings:
    method: str = "gmres"              # "gmres" or "bicgstab"
    max_steps: int = 20                # Krylov iterations per Newton iteration (MBDyn's `steps`)
    tau: float = 1e-7                  # relative perturbation of the J·w products (`tau`)
    eta_max: float = 0.9               # bound of the forcing term (`eta`)
    preconditioner_steps: int = 20     # Krylov iterations before the preconditioner is rebuilt
    gamma: float = 0.9                 # Eisenstat-Walker's γ (fixed in MBDyn)

    def __post_init__(self):
        if self.method not in KRYLOV_METHODS:
            raise ValueError(f"unknown matrix-free method '{self.method}' (one of {', '.join(KRYLOV_METHODS)})")
        if self.max_steps < 1:
            raise ValueError("matrix free: the number of Krylov steps must be at least 1")

    def describe(self):
        return (f"matrix free, {self.method} (at most {self.max_steps} steps per iteration, tau {self.tau:g}, "
                f"eta {self.eta_max:g}; preconditioner: the factorized Jacobian, rebuilt after "
                f"{self.preconditioner_steps} Krylov steps)")


class JacobianProduct:
    """w -> J w by one residual evaluation at x ⊕ τ w (the Newton update applied to a copy
    of the unknowns, then undone), f(x) given."""

    def __init__(self, system, state, dcoef, mode, ia, bias, f, tau):
        self.system, self.state, self.dcoef, self.mode, self.ia, self.bias = system, state, dcoef, mode, ia, bias
        self.f = f
        self.tau = tau
        self.evaluations = 0

    def __call__(self, w):
        nw = float(np.linalg.norm(w))
        if nw < np.finfo(float).eps:
            return np.zeros_like(w)
        state = self.state
        sigma = float(state.y @ w) / nw
        tau = self.tau
        if abs(sigma) > np.finfo(float).eps:
            tau = math.copysign(tau * max(1.0, abs(sigma)), sigma)
        tau /= nw
        y, yp = state.y.copy(), state.yp.copy()
        self.system.update(state, tau * w, self.dcoef)
        try:
            f_tau = self.system.evaluate(state, self.dcoef, self.mode, want_jac=False, ia=self.ia,
                                         want_abs=False)[0]
        finally:
            state.y[:] = y
            state.yp[:] = yp
        self.evaluations += 1
        if self.bias is not None:
            f_tau = f_tau - self.bias
        return (f_tau - self.f) / tau


def gmres(product, precondition, b, tolerance, max_steps):
    """Right-preconditioned GMRES(m) from x = 0, one cycle of at most `max_steps` Arnoldi steps
    (Givens rotations on the Hessenberg matrix): returns (x, iterations, converged) with
    ‖b - J x‖ < tolerance when converged; x = P u, P the preconditioner."""
    n = len(b)
    beta = float(np.linalg.norm(b))
    if beta < tolerance or beta == 0.0:
        return np.zeros(n), 0, True
    V = np.zeros((max_steps + 1, n))
    H = np.zeros((max_steps + 1, max_steps))
    cs, sn = np.zeros(max_steps), np.zeros(max_steps)
    g = np.zeros(max_steps + 1)
    g[0] = beta
    V[0] = b / beta
    k = 0
    converged = breakdown = False
    while k < max_steps:
        w = product(precondition(V[k]))
        norm_w = float(np.linalg.norm(w))
        for i in range(k + 1):                       # modified Gram-Schmidt
            H[i, k] = V[i] @ w
            w -= H[i, k] * V[i]
        H[k + 1, k] = float(np.linalg.norm(w))
        if H[k + 1, k] < 1e-3 * norm_w:              # lost orthogonality: once more
            for i in range(k + 1):
                h = V[i] @ w
                H[i, k] += h
                w -= h * V[i]
            H[k + 1, k] = float(np.linalg.norm(w))
        breakdown = H[k + 1, k] <= np.finfo(float).eps      # the exact solution is in the space
        if not breakdown:
            V[k + 1] = w / H[k + 1, k]
        for i in range(k):                           # earlier rotations on the new column
            H[i, k], H[i + 1, k] = cs[i] * H[i, k] + sn[i] * H[i + 1, k], -sn[i] * H[i, k] + cs[i] * H[i + 1, k]
        r = math.hypot(H[k, k], H[k + 1, k])
        cs[k], sn[k] = (1.0, 0.0) if r == 0.0 else (H[k, k] / r, H[k + 1, k] / r)
        H[k, k], H[k + 1, k] = r, 0.0
        g[k], g[k + 1] = cs[k] * g[k], -sn[k] * g[k]
        k += 1
        if abs(g[k]) < tolerance:
            converged = True
            break
        if breakdown:
            break
    y = np.zeros(k)
    for i in range(k - 1, -1, -1):                   # back substitution
        y[i] = (g[i] - H[i, i + 1:k] @ y[i + 1:]) / H[i, i] if H[i, i] != 0.0 else 0.0
    return precondition(V[:k].T @ y), k, converged


def bicgstab(product, precondition, b, tolerance, max_steps):
    """Right-preconditioned BiCGStab from x = 0 (van der Vorst 1992): returns (x, iterations,
    converged); a breakdown (ρ or ω vanishing) ends it with the iterate reached."""
    x = np.zeros(len(b))
    r = b.copy()
    r_hat = b.copy()
    if np.linalg.norm(r) < tolerance:
        return x, 0, True
    rho_prev = alpha = omega = 1.0
    v = p = np.zeros(len(b))
    eps = np.finfo(float).eps
    for k in range(1, max_steps + 1):
        rho = float(r_hat @ r)
        if abs(rho) < eps:
            return x, k - 1, False
        if k == 1:
            p = r.copy()
        else:
            p = r + (rho / rho_prev) * (alpha / omega) * (p - omega * v)
        p_hat = precondition(p)
        v = product(p_hat)
        alpha = rho / float(r_hat @ v)
        s = r - alpha * v
        if np.linalg.norm(s) < tolerance:
            return x + alpha * p_hat, k, True
        s_hat = precondition(s)
        t = product(s_hat)
        tt = float(t @ t)
        omega = float(t @ s) / tt if tt > 0.0 else 0.0
        x = x + alpha * p_hat + omega * s_hat
        r = s - omega * t
        rho_prev = rho
        if np.linalg.norm(r) < tolerance:
            return x, k, True
        if abs(omega) < eps:
            return x, k, False
    return x, max_steps, False


class MatrixFreeStep:
    """The increment of one Newton iteration by a Krylov method on J·w products, with the
    forcing term of the current solve and the count of Krylov iterations spent on the kept
    preconditioner (the NewtonRaphson loop owns the factorization and asks
    `preconditioner_stale()` before each iteration)."""

    def __init__(self, settings):
        self.settings = settings
        self.iterations_on_preconditioner = None     # None: no preconditioner yet
        self.linear_iterations = 0
        self.unconverged_solves = 0
        self.eta = settings.eta_max
        self.err_prev_squared = 1.0

    def start(self):
        """A new nonlinear solve: the forcing term starts at η_max again."""
        self.eta = self.settings.eta_max
        self.err_prev_squared = 1.0

    def forget(self):
        self.iterations_on_preconditioner = None

    def preconditioner_stale(self):
        n = self.iterations_on_preconditioner
        return n is None or n >= self.settings.preconditioner_steps

    def preconditioner_built(self):
        self.iterations_on_preconditioner = 0

    def increment(self, product, precondition, f, err, tol):
        """Δ with ‖J Δ + f‖ < η err (or the best of `max_steps` Krylov iterations), then the
        forcing term for the next iteration."""
        s = self.settings
        ratio = err * err / self.err_prev_squared
        self.err_prev_squared = err * err
        solve = gmres if s.method == "gmres" else bicgstab
        dx, k, converged = solve(product, precondition, -f, self.eta * err, s.max_steps)
        self.iterations_on_preconditioner += k
        self.linear_iterations += k
        if not converged:
            self.unconverged_solves += 1
        eta = s.gamma * ratio
        if s.gamma * self.eta ** 2 > 0.1:
            eta = max(eta, s.gamma * self.eta ** 2)
        self.eta = max(min(eta, s.eta_max), 0.5 * tol / err)
        return dx
