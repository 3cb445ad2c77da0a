"""Numerical checks usable on any model: the finite-difference Jacobian through the
solver's own update rule (digest §5.1 test 1)."""
import numpy as np


def apply_increment(system, state, delta, dcoef):
    """The Newton update rule: differential ẏ += Δ, y += dCoef Δ; algebraic y += Δ."""
    alg = system.is_alg
    state.yp[~alg] += delta[~alg]
    state.y[~alg] += dcoef * delta[~alg]
    state.y[alg] += delta[alg]


def fd_jacobian(system, state, dcoef, mode="regular", ia=None, eps=1e-6):
    """Central finite-difference iteration matrix ∂f/∂Δ, column by column."""
    n = system.n
    J = np.zeros((n, n))
    for j in range(n):
        d = np.zeros(n)
        d[j] = eps
        sp = state.copy()
        apply_increment(system, sp, d, dcoef)
        sm = state.copy()
        apply_increment(system, sm, -d, dcoef)
        fp = system.evaluate(sp, dcoef, mode, want_jac=False, ia=ia)[0]
        fm = system.evaluate(sm, dcoef, mode, want_jac=False, ia=ia)[0]
        J[:, j] = (fp - fm) / (2 * eps)
    return J


def jacobian_mismatch(system, state, dcoef, mode="regular", ia=None, eps=1e-6):
    """(max abs error, scale, row, col) between the assembled and the FD Jacobian."""
    Ja = system.evaluate(state, dcoef, mode, want_jac=True, ia=ia)[2].toarray()
    Jf = fd_jacobian(system, state, dcoef, mode, ia, eps)
    err = np.abs(Ja - Jf)
    k = int(np.argmax(err))
    return float(err.max()), float(np.abs(Jf).max()), k // system.n, k % system.n, Ja, Jf
