"""Compiled vector work of a time step (spec/integrators.md §1-2): the Hermite predictor and
the multistep corrector with the multipliers' extrapolation (the Newton update and the
history's rotation slots are the System's, in engine/core/compiled.py).  Each is one pass
over the unknowns without temporaries: at 10-1000 nodes a numpy expression of a few
operations on whole vectors costs more in call overhead than in arithmetic."""
import numpy as np

from mbdae.engine.core.compiled import kernel


@kernel
def hermite_derivative(y1, y2, yp1, yp2, h_prev, alpha):
    """ẏ at t_{n-1} + α h_{n-1} of the cubic Hermite through (t_{n-2}, y2, ẏ2), (t_{n-1}, y1, ẏ1)."""
    s = 1.0 + alpha
    c_y = (6.0 * s * s - 6.0 * s) / h_prev
    c2 = 3.0 * s * s - 4.0 * s + 1.0
    c1 = 3.0 * s * s - 2.0 * s
    out = np.empty(len(y1))
    for i in range(len(y1)):
        out[i] = c_y * (y2[i] - y1[i]) + c2 * yp2[i] + c1 * yp1[i]
    return out


@kernel
def corrector(b0, a, b, ys, yps, yp, alg_index, lam_weights):
    """The predicted y_n = b_0 ẏ_n + Σ_k a_k y_{n-k} + b_k ẏ_{n-k} (k < len(a)) from the history
    rows ys, yps (newest first), then on the algebraic unknowns y = Σ_k w_k y_{n-k} (Lagrange
    extrapolation weights `lam_weights`) and ẏ = 0 (written into yp).  Returns y."""
    n = len(yp)
    y = np.empty(n)
    for i in range(n):
        y[i] = b0 * yp[i]
    for k in range(len(a)):
        ak, bk = a[k], b[k]
        for i in range(n):
            y[i] += ak * ys[k, i] + bk * yps[k, i]
    for j in range(len(alg_index)):
        i = alg_index[j]
        s = 0.0
        for k in range(len(lam_weights)):
            s += lam_weights[k] * ys[k, i]
        y[i] = s
        yp[i] = 0.0
    return y
