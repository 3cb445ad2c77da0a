"""One step of a two-point ("coupled") method: MBDyn's `thirdorder` (spec/integrators.md §2.5).

The end point t_n and the interior point t_n + θh are solved together: the unknowns are
(ẏ_n, ẏ_θ) and the equations f(y_n, ẏ_n, t_n) = 0, f(y_θ, ẏ_θ, t_θ) = 0 with

    y_n = y_{n-1} + h (w0 ẏ_n + w1 ẏ_θ + w2 ẏ_{n-1})
    y_θ = m0 y_n + m1 y_{n-1} + h (n0 ẏ_n + n1 ẏ_{n-1})

on the differential unknowns (algebraic unknowns are solved at each point directly).  A
Newton increment (Δ_n, Δ_θ) moves y_n by jx11 Δ_n + jx12 Δ_θ and y_θ by jx21 Δ_n + jx22 Δ_θ,
so the iteration matrix is the 2 × 2 block matrix

    [ f_n/ẏ + jx11 f_n/y    jx12 f_n/y        ]
    [ jx21 f_θ/y            f_θ/ẏ + jx22 f_θ/y ]

Both points are evaluated with the same dCoef d_s = h, which only sets the scale of the
position-constraint rows (φ/dCoef, as in MBDyn: the System divides them by dCoef); the
System's J(d) = f/ẏ + d f/y (linear in d) at d_s and 2 d_s gives f/ẏ and f/y, hence every
block (_point_blocks): two Jacobian evaluations per point and iteration.  Evaluating with a
fixed d_s instead of jx11 matters: jx11 = (2ρ-1)h/(6ρ) vanishes at ρ∞ = 1/2.
Full Newton (the doubled matrix is rebuilt and factorized at every iteration)."""
import numpy as np
import scipy.sparse as sp



def coupled_step(method, sysm, newton, history, h):
    """Solve one step of `method` (a ThirdOrder) from `history` (solvers/history.py);
    returns (state at t_n, iterations, error, solconv)."""
    s = newton.settings
    alg = sysm.is_alg
    c = method.parameters()
    jx = method.jacobian_multipliers(h)
    ys, yps = history.vectors(sysm, min(2, len(history)))
    y0, yp0 = ys[0], yps[0]
    t0 = history[0].t
    c_theta = 1.0 + c.theta                       # interior time in units of h from t_{n-1}
    # predictor: derivatives extrapolated linearly through the last two points (constant
    # after a (re)start); positions from the corrector formulas, so that they are consistent
    if len(history) > 1:
        slope = (yps[0] - yps[1]) / ((history[0].t - history[1].t) / h)
        yp_n, yp_t = yp0 + slope, yp0 + c_theta * slope
    else:
        yp_n, yp_t = yp0.copy(), yp0.copy()
    yp_n[alg] = 0.0
    yp_t[alg] = 0.0
    y_n = y0 + h * (c.w0 * yp_n + c.w1 * yp_t + c.w2 * yp0)
    y_t = c.m0 * y_n + c.m1 * y0 + h * (c.n0 * yp_n + c.n1 * yp0)
    y_n[alg] = history.predict_algebraic(alg, h)
    y_t[alg] = history.predict_algebraic(alg, c_theta * h)
    st_n = history.trial_state(sysm, t0 + h, y_n, yp_n)
    st_t = history.trial_state(sysm, t0 + c_theta * h, y_t, yp_t)
    pair = [st_n, st_t]
    doubled = DoubledSystem(sysm, h, jx, newton.settings.test in ("relnorm", "sepnorm"))
    newton.invalidate()                    # the linear solver will hold the doubled matrix
    try:
        it, err, solconv = newton.solve(doubled, pair, h, mode="regular")
    finally:
        newton.invalidate()
    return st_n, it, err, solconv


class DoubledSystem:
    """The two points of one step as one system for the Newton solver (its protocol:
    evaluate, update, dim, owner_text, last_kinematics); the state is the pair
    [end point, interior point].  Both points are evaluated with dCoef d_s = h."""
    full_newton = True          # the doubled matrix is rebuilt at every iteration

    def __init__(self, sysm, h, jx, want_abs):
        self.sysm, self.d_s, self.jx, self.want_abs = sysm, h, jx, want_abs
        self.dim = np.concatenate([sysm.dim, sysm.dim])
        self.last_kinematics = None
        self._cache = None

    def evaluate(self, pair, dcoef, mode="regular", want_jac=True, ia=None, want_abs=True):
        """(f, f̃, K) of both points; K the 2 × 2 block iteration matrix (full Newton: built
        at every iterate, once: the Newton asks again for the matrix after an update)."""
        if self._cache is not None:
            return self._cache
        sysm, d_s, jx = self.sysm, self.d_s, self.jx
        st_n, st_t = pair
        # interior point first: the end point's kinematics stay the last evaluated ones
        f_t, a_t, J_t = sysm.evaluate(st_t, d_s, "regular", want_jac=True, want_abs=self.want_abs)
        f_n, a_n, J_n = sysm.evaluate(st_n, d_s, "regular", want_jac=True, want_abs=self.want_abs)
        self.last_kinematics = sysm.last_kinematics
        f = np.concatenate([f_n, f_t])
        fabs = np.concatenate([a_n, a_t]) if self.want_abs else None
        K = None
        if np.all(np.isfinite(f)):
            scaled = sysm.scaled_rows
            J_nn, J_nt = _point_blocks(sysm, st_n, J_n, d_s, jx[0, 0], jx[0, 1], scaled)
            J_tt, J_tn = _point_blocks(sysm, st_t, J_t, d_s, jx[1, 1], jx[1, 0], scaled)
            K = sp.bmat([[J_nn, J_nt], [J_tn, J_tt]], format="csc")
        self._cache = (f, fabs, K)
        return self._cache

    def update(self, pair, dx, dcoef):
        """Δ = (Δ_n, Δ_θ): ẏ += Δ per point; y_n += jx11 Δ_n + jx12 Δ_θ, y_θ += jx21 Δ_n
        + jx22 Δ_θ on the differential unknowns; algebraic y += Δ."""
        sysm, jx = self.sysm, self.jx
        dw = sysm.diff_weight
        d_n, d_t = dx[:sysm.n], dx[sysm.n:]
        st_n, st_t = pair
        st_n.yp += dw * d_n
        st_t.yp += dw * d_t
        st_n.y += dw * (jx[0, 0] * d_n + jx[0, 1] * d_t) + sysm.alg_weight * d_n
        st_t.y += dw * (jx[1, 0] * d_n + jx[1, 1] * d_t) + sysm.alg_weight * d_t
        self._cache = None

    def owner_text(self, row):
        n = self.sysm.n
        where = "end" if row < n else "interior"
        return f"{self.sysm.owner_text(row % n)} at the {where} point"


def _point_blocks(sysm, st, J1, d_s, d_diag, d_off, scaled):
    """(diagonal block, off-diagonal block) of one point's rows from J1 = J(d_s) and a second
    evaluation J2 = J(2 d_s), all on the same pattern:
      differential columns, ordinary rows: A + d B with B = (J2 - J1)/d_s, A = J1 - d_s B;
      differential columns, scaled rows (φ/d_s): (d/d_s) J1;
      algebraic columns: J1 on the diagonal block, nothing off it."""
    J2 = sysm.evaluate(st, 2 * d_s, "regular", want_jac=True, want_abs=False)[2]
    cols = np.repeat(np.arange(sysm.n), np.diff(J1.indptr))
    rows = J1.indices
    diff_col = sysm.diff_weight[cols] > 0
    row_scaled = scaled[rows]
    B = (J2.data - J1.data) / d_s
    diag = np.where(~diff_col, J1.data,
                    np.where(row_scaled, J1.data * (d_diag / d_s), J1.data + (d_diag - d_s) * B))
    off = np.where(~diff_col, 0.0, np.where(row_scaled, J1.data * (d_off / d_s), d_off * B))
    make = lambda data: sp.csc_matrix((data, J1.indices, J1.indptr), shape=J1.shape)
    return make(diag), make(off)
