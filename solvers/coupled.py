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

from mbdae.engine.core.state import State
from mbdae.solvers.convergence import residual_error, solution_error, SimulationDiverged
from mbdae.solvers.linear import SingularMatrix
from mbdae.solvers.newton import NoConvergence


def coupled_step(problem, method, hist, h):
    """Solve one step of `method` (a ThirdOrder) from the history of `problem`
    (engine.problem.InitialValueProblem); returns (state at t_n, iterations, error, solconv)."""
    sysm, newton = problem.system, problem.newton
    s = newton.settings
    alg = sysm.is_alg
    c = method.parameters()
    jx = method.jacobian_multipliers(h)
    ys, yps = problem._history_vectors(hist, min(2, len(hist)))
    y0, yp0 = ys[0], yps[0]
    t0 = hist[0].t
    c_theta = 1.0 + c.theta                       # interior time in units of h from t_{n-1}
    # predictor: derivatives extrapolated linearly through the last two points (constant
    # after a (re)start); positions from the corrector formulas, so that they are consistent
    if len(hist) > 1:
        slope = (yps[0] - yps[1]) / ((hist[0].t - hist[1].t) / h)
        yp_n, yp_t = yp0 + slope, yp0 + c_theta * slope
    else:
        yp_n, yp_t = yp0.copy(), yp0.copy()
    yp_n[alg] = 0.0
    yp_t[alg] = 0.0
    y_n = y0 + h * (c.w0 * yp_n + c.w1 * yp_t + c.w2 * yp0)
    y_t = c.m0 * y_n + c.m1 * y0 + h * (c.n0 * yp_n + c.n1 * yp0)
    y_n[alg] = problem._predict_multipliers(hist, h)
    y_t[alg] = problem._predict_multipliers(hist, c_theta * h)
    st_n = State(t0 + h, y_n, yp_n, hist[0].R.copy(), families=problem.state.families)
    st_t = State(t0 + c_theta * h, y_t, yp_t, st_n.R_ref.copy(), families=st_n.families)
    dw = sysm.diff_weight
    scaled = scaled_rows(sysm)
    d_s = h                                # the dCoef the System evaluates both points with
    dim2 = np.concatenate([sysm.dim, sysm.dim])
    want_abs = s.test in ("relnorm", "sepnorm")
    newton.invalidate()                    # the linear solver will hold the doubled matrix
    it, first_err = 0, None
    try:
        while True:
            # interior point first: the end point's kinematics stay the last evaluated ones
            f_t, a_t, J_t = sysm.evaluate(st_t, d_s, "regular", want_jac=True, want_abs=want_abs)
            f_n, a_n, J_n = sysm.evaluate(st_n, d_s, "regular", want_jac=True, want_abs=want_abs)
            kin_n = sysm.last_kinematics
            f = np.concatenate([f_n, f_t])
            fabs = np.concatenate([a_n, a_t]) if want_abs else None
            try:
                err = residual_error(s.test, f, fabs, dim2)
            except SimulationDiverged:
                row = int(np.argmax(~np.isfinite(f)))
                raise SimulationDiverged(f"non-finite residual at iteration {it}; worst equation "
                                         f"{row % sysm.n}: {sysm.owner_text(row % sysm.n)}") from None
            if first_err is None:
                first_err = err
            if err <= s.tolerance or (it >= s.max_iterations and s.at_most and err < first_err):
                if err > s.tolerance:
                    newton.accepted_unconverged += 1
                newton.converged_kinematics = kin_n
                return st_n, it, err, False
            if it >= s.max_iterations:
                row = int(np.argmax(np.abs(f)))
                raise NoConvergence(f"no convergence after {it} iterations (error {err:.3e} > "
                                    f"{s.tolerance:.1e}); worst equation {row % sysm.n} at the "
                                    f"{'end' if row < sysm.n else 'interior'} point: "
                                    f"{sysm.owner_text(row % sysm.n)}, value {f[row]:.3e}", row % sysm.n, err)
            J_nn, J_nt = _point_blocks(sysm, st_n, J_n, d_s, jx[0, 0], jx[0, 1], scaled)
            J_tt, J_tn = _point_blocks(sysm, st_t, J_t, d_s, jx[1, 1], jx[1, 0], scaled)
            K = sp.bmat([[J_nn, J_nt], [J_tn, J_tt]], format="csc")
            try:
                newton.linear.factor(K)
            except SingularMatrix as e:
                raise NoConvergence(f"singular doubled iteration matrix ({e})", None, err) from None
            dx = newton.linear.solve(-f)
            if not np.all(np.isfinite(dx)):
                raise SimulationDiverged(f"non-finite solution increment at iteration {it}")
            d_n, d_t = dx[:sysm.n], dx[sysm.n:]
            st_n.yp += dw * d_n
            st_t.yp += dw * d_t
            st_n.y += dw * (jx[0, 0] * d_n + jx[0, 1] * d_t) + sysm.alg_weight * d_n
            st_t.y += dw * (jx[1, 0] * d_n + jx[1, 1] * d_t) + sysm.alg_weight * d_t
            it += 1
            newton.total_iterations += 1
            if s.solution_tolerance > 0 and s.solution_test != "none":
                if solution_error(s.solution_test, dx) <= s.solution_tolerance:
                    newton.converged_kinematics = None
                    return st_n, it, err, True
    finally:
        newton.invalidate()


def scaled_rows(sysm):
    """Rows whose residual the System divides by dCoef in a regular step: the position-level
    constraint rows (position and rotation constraints of joints, as MBDyn's φ/dCoef).  Their
    Jacobian does not depend on dCoef (∂(φ/d)/∂Δẏ = φ_y); all other rows give f/ẏ + dCoef f/y."""
    from mbdae.engine.core.assembly import DIM
    pos = np.isin(sysm.dim, [DIM["position constraint"], DIM["rotation constraint"]])
    return sysm.is_alg & pos


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
