"""Compiled kernels of the mooring families (elements/mooring.py): the wrench of a mooring on
a body point and its Jacobian on the node's Newton increments, and the quasi-static elastic
catenary line solved per line by Newton.

Sign and chain rule (the families' common shape, as elements/viscous_body.py): the body point
p = x + o, o = R õ, moves with its node (δp = δx - o×θ, δṗ = δv - o×δω - ω×o×θ); a wrench
(F, M) applied at p gives the node rows r = -[F; M + o×F]; the Newton increments enter through
J_x = dCoef ∂r/∂x + ∂r/∂v, J_g = ∂r/∂θ dCoef G + ∂r/∂ω T_ω (G8).

Catenary (Irvine 1981; Jonkman 2007, NREL/TP-500-41958, §4.2, the quasi-static line of FAST
and MAP): in the vertical plane through anchor and fairlead, with x_F, z_F the fairlead's
horizontal and vertical distances from the anchor, unstretched length L, weight per length in
water w, compliance c = 1/EA and the horizontal and vertical fairlead tensions H, V:

  fully suspended (V ≥ wL, or no seabed):
    x_F = H/w [asinh(V/H) - asinh((V - wL)/H)] + H L c
    z_F = H/w [√(1 + (V/H)²) - √(1 + ((V - wL)/H)²)] + c (V L - w L²/2)
  on the seabed (V < wL; the seabed is the horizontal plane through the anchor), L_B = L - V/w:
    x_F = L_B + H/w asinh(V/H) + H L c + (C_B w c/2) [-L_B² + (L_B - H/(C_B w)) max(L_B - H/(C_B w), 0)]
    z_F = H/w [√(1 + (V/H)²) - 1] + c V²/(2w)
  with the seabed friction coefficient C_B (0: frictionless; the friction term is the
  stretch lost where the seabed friction relieves the tension towards the anchor).
A line whose fairlead is close enough to lie slack (x_F ≤ L - V_s/w with V_s the tension of
the vertical hanging part, z_F = V_s/w + c V_s²/(2w)) carries H = 0, V = V_s.  The Jacobian of
(H, V) on (x_F, z_F) is the inverse of that of the profile (implicit function theorem)."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, vload, mload, vadd, vsub, vscale, vdot, vnorm, vcross, skew,
                                        outer, mvec, mmul, madd, msub, mscale, mdiag, set_row3, log_rotvec,
                                        gamma_inv, mmult)

# catenary line states (the output's column "state") and failures (status)
SUSPENDED, TOUCHING, SLACK = 0, 1, 2
OK, BELOW_SEABED, OUT_OF_REACH, NO_CONVERGENCE, ABOVE_ANCHOR = 0, 1, 2, 3, 4
MAX_ITERATIONS = 200


# ---------------------------------------------------------------- wrench at a body point
@kernel
def get33(A, r0, c0):
    """A[r0:r0+3, c0:c0+3] of a 2-D array as a matrix (tuple)."""
    return ((A[r0, c0], A[r0, c0 + 1], A[r0, c0 + 2]),
            (A[r0 + 1, c0], A[r0 + 1, c0 + 1], A[r0 + 1, c0 + 2]),
            (A[r0 + 2, c0], A[r0 + 2, c0 + 1], A[r0 + 2, c0 + 2]))


@kernel
def add_point_wrench(r, j, e, want_jac, dcoef, F, M, o, w, G, Tw, AFp, AMp, AFv, AMv, AFt, AMt, AFw, AMw):
    """Add the rows r = -[F; M + o×F] of a wrench (F, M) applied at the body point p = x + o
    to r[e] (6) and, when want_jac, their Jacobian on (Δẋ, Δġ) to j[e] (6, 6).  Partials of
    the wrench: AFp, AMp on p; AFv, AMv on ṗ; AFt, AMt on θ and AFw, AMw on ω besides those
    through p and ṗ.  With δp = δx - o×θ, δṗ = δv - o×δω - ω×o×θ and δo = -o×θ:
    ∂r/∂x = -[A_p], ∂r/∂v = -[A_v], ∂r/∂ω = -[A_w - A_v o×],
    ∂r/∂θ = -[A_t - A_p o× - A_v ω×o×] (+ -F×o× on the moment rows, from δo×F),
    each moment row block being A_M + o× A_F."""
    ox = skew(o)
    r[e, 0] -= F[0]
    r[e, 1] -= F[1]
    r[e, 2] -= F[2]
    mo = vadd(M, vcross(o, F))
    r[e, 3] -= mo[0]
    r[e, 4] -= mo[1]
    r[e, 5] -= mo[2]
    if not want_jac:
        return
    wox = mmul(skew(w), ox)
    # wrench partials on (x, θ, v, ω)
    Fx, Mx = AFp, AMp
    Ft = msub(msub(AFt, mmul(AFp, ox)), mmul(AFv, wox))
    Mt = msub(msub(AMt, mmul(AMp, ox)), mmul(AMv, wox))
    Fv, Mv = AFv, AMv
    Fw = msub(AFw, mmul(AFv, ox))
    Mw = msub(AMw, mmul(AMv, ox))
    # rows: force -F_*, moment -(M_* + o× F_*), plus -F×o× on θ
    Rx = madd(Mx, mmul(ox, Fx))
    Rt = madd(madd(Mt, mmul(ox, Ft)), mmul(skew(F), ox))
    Rv = madd(Mv, mmul(ox, Fv))
    Rw = madd(Mw, mmul(ox, Fw))
    Tth = mscale(dcoef, G)
    Jxx = madd(mscale(dcoef, Fx), Fv)
    Jxg = madd(mmul(Ft, Tth), mmul(Fw, Tw))
    Jgx = madd(mscale(dcoef, Rx), Rv)
    Jgg = madd(mmul(Rt, Tth), mmul(Rw, Tw))
    for a in range(3):
        for b in range(3):
            j[e, a, b] -= Jxx[a][b]
            j[e, a, 3 + b] -= Jxg[a][b]
            j[e, 3 + a, b] -= Jgx[a][b]
            j[e, 3 + a, 3 + b] -= Jgg[a][b]


@kernel
def body_point(e, node, o_local, x, v, R, w):
    """(p, ṗ, o, ω, R) of instance e's body point p = x + R õ."""
    i = node[e]
    Ri = mload(R, i)
    o = mvec(Ri, vload(o_local, e))
    wi = vload(w, i)
    return vadd(vload(x, i), o), vadd(vload(v, i), vcross(wi, o)), o, wi, Ri


@kernel
def clear_rows(r, j, e, want_jac):
    for a in range(6):
        r[e, a] = 0.0
        if want_jac:
            for b in range(6):
                j[e, a, b] = 0.0


# ---------------------------------------------------------------- mooring matrix (MBS4WEC eq. 11)
@kernel
def wrench_row(e, a, K, C, P0, eta, nu):
    """Row a of τ = P0 - K η - C ν of instance e."""
    s = P0[e, a]
    for b in range(6):
        s -= K[e, a, b] * eta[b] + C[e, a, b] * nu[b]
    return s


@kernel
def matrix_state(e, node, o_local, p0, R0, K, C, P0, x, v, R, w):
    """Instance e of the mooring matrix: η = [p - p0; θ] with θ the rotation vector of R R0ᵀ,
    ν = [ṗ; ω] and the wrench τ = -C ν - K η + P0 at p: returns (p, ṗ, o, ω, θ, F, M)."""
    p, pd, o, wi, Ri = body_point(e, node, o_local, x, v, R, w)
    th = log_rotvec(mmult(Ri, mload(R0, e)))
    d = vsub(p, vload(p0, e))
    eta = (d[0], d[1], d[2], th[0], th[1], th[2])
    nu = (pd[0], pd[1], pd[2], wi[0], wi[1], wi[2])
    F = (wrench_row(e, 0, K, C, P0, eta, nu), wrench_row(e, 1, K, C, P0, eta, nu),
         wrench_row(e, 2, K, C, P0, eta, nu))
    M = (wrench_row(e, 3, K, C, P0, eta, nu), wrench_row(e, 4, K, C, P0, eta, nu),
         wrench_row(e, 5, K, C, P0, eta, nu))
    return p, pd, o, wi, th, F, M


@kernel
def matrix_equations(dcoef, node, o_local, p0, R0, K, C, P0, x, v, R, w, G, Tw, want_jac, r, j):
    """Mooring matrix (MBS4WEC eq. 11, τ = -C ν - K η + P0; also a linearized restoring
    matrix about a point): rows and Jacobian by add_point_wrench with A_p = -K[:, :3],
    A_ṗ = -C[:, :3], A_θ = -K[:, 3:] Γ⁻¹(θ) (δθ_η = Γ⁻¹ θ), A_ω = -C[:, 3:]."""
    for e in range(len(node)):
        clear_rows(r, j, e, want_jac)
        p, pd, o, wi, th, F, M = matrix_state(e, node, o_local, p0, R0, K, C, P0, x, v, R, w)
        Gi = gamma_inv(th)
        Ke, Ce = K[e], C[e]
        AFp = mscale(-1.0, get33(Ke, 0, 0))
        AMp = mscale(-1.0, get33(Ke, 3, 0))
        AFv = mscale(-1.0, get33(Ce, 0, 0))
        AMv = mscale(-1.0, get33(Ce, 3, 0))
        AFt = mscale(-1.0, mmul(get33(Ke, 0, 3), Gi))
        AMt = mscale(-1.0, mmul(get33(Ke, 3, 3), Gi))
        AFw = mscale(-1.0, get33(Ce, 0, 3))
        AMw = mscale(-1.0, get33(Ce, 3, 3))
        n = node[e]
        add_point_wrench(r, j, e, want_jac, dcoef, F, M, o, wi, mload(G, n), mload(Tw, n),
                         AFp, AMp, AFv, AMv, AFt, AMt, AFw, AMw)


@kernel
def matrix_outputs(node, o_local, p0, R0, K, C, P0, x, v, R, w, out):
    """Rows (n, 12): F, M (the wrench on the body at p, global), η (6)."""
    for e in range(len(node)):
        p, pd, o, wi, th, F, M = matrix_state(e, node, o_local, p0, R0, K, C, P0, x, v, R, w)
        d = vsub(p, vload(p0, e))
        set_row3(out, e, 0, F)
        set_row3(out, e, 3, M)
        set_row3(out, e, 6, d)
        set_row3(out, e, 9, th)


# ---------------------------------------------------------------- taut mooring (MCM §8 springs)
@kernel
def taut_state(e, node, o_local, anchor, k, L0, c, tension_only, x, v, R, w):
    """Instance e of the taut line: d = a - p, l = ‖d‖, u = d/l, l̇ = -u·ṗ, T = k(l - L0) + c l̇
    (tension only: T = 0 when l < L0 or T < 0): returns (p, ṗ, o, ω, l, u, l̇, T, taut)."""
    p, pd, o, wi, Ri = body_point(e, node, o_local, x, v, R, w)
    d = vsub(vload(anchor, e), p)
    l = vnorm(d)
    u = (d[0] / l, d[1] / l, d[2] / l)
    ldot = -vdot(u, pd)
    T = k[e] * (l - L0[e]) + c[e] * ldot
    taut = True
    if tension_only[e] and (l < L0[e] or T < 0.0):
        T = 0.0
        taut = False
    return p, pd, o, wi, l, u, ldot, T, taut


@kernel
def taut_equations(dcoef, node, o_local, anchor, k, L0, c, tension_only, x, v, R, w, G, Tw, want_jac, r, j):
    """Axial spring-damper from the fairlead p to the anchor a: force F = T u on the body.
    With P = I - u uᵀ: ∂u/∂p = -P/l, ∂l/∂p = -uᵀ, ∂l̇/∂p = ṗᵀP/l, ∂l̇/∂ṗ = -uᵀ, so
    A_p = u (-k uᵀ + c ṗᵀP/l) - T P/l and A_ṗ = -c u uᵀ (zero when slack)."""
    Z = mdiag(0.0)
    for e in range(len(node)):
        clear_rows(r, j, e, want_jac)
        p, pd, o, wi, l, u, ldot, T, taut = taut_state(e, node, o_local, anchor, k, L0, c, tension_only,
                                                       x, v, R, w)
        F = vscale(T, u)
        AFp, AFv = Z, Z
        if taut:
            P = msub(mdiag(1.0), outer(u, u))
            Pd = mvec(P, pd)
            g = vadd(vscale(-k[e], u), vscale(c[e] / l, Pd))
            AFp = msub(outer(u, g), mscale(T / l, P))
            AFv = mscale(-c[e], outer(u, u))
        n = node[e]
        add_point_wrench(r, j, e, want_jac, dcoef, F, (0.0, 0.0, 0.0), o, wi, mload(G, n), mload(Tw, n),
                         AFp, Z, AFv, Z, Z, Z, Z, Z)


@kernel
def taut_outputs(node, o_local, anchor, k, L0, c, tension_only, x, v, R, w, out):
    """Rows (n, 9): T, l, l̇, F (on the body, global), p."""
    for e in range(len(node)):
        p, pd, o, wi, l, u, ldot, T, taut = taut_state(e, node, o_local, anchor, k, L0, c, tension_only,
                                                       x, v, R, w)
        out[e, 0] = T
        out[e, 1] = l
        out[e, 2] = ldot
        set_row3(out, e, 3, vscale(T, u))
        set_row3(out, e, 6, p)


# ---------------------------------------------------------------- catenary line
@kernel
def catenary_profile(H, V, L, w, c, CB, seabed):
    """(x_F, z_F, ∂x/∂H, ∂x/∂V, ∂z/∂H, ∂z/∂V, state) of a line with fairlead tensions H > 0, V
    (module docstring)."""
    a = V / H
    sa = np.sqrt(1.0 + a * a)
    if seabed and V < w * L:
        LB = L - V / w
        x = LB + H / w * np.arcsinh(a) + H * L * c
        z = H / w * (sa - 1.0) + 0.5 * c * V * V / w
        xH = (np.arcsinh(a) - a / sa) / w + L * c
        xV = (1.0 / sa - 1.0) / w
        zH = xV
        zV = a / sa / w + c * V / w
        if CB > 0.0:
            s = LB - H / (CB * w)
            if s > 0.0:
                x += 0.5 * CB * w * c * (s * s - LB * LB)
                xH -= c * s
                xV += c * H / w
            else:
                x -= 0.5 * CB * w * c * LB * LB
                xV += CB * c * LB
        return x, z, xH, xV, zH, zV, TOUCHING
    b = (V - w * L) / H
    sb = np.sqrt(1.0 + b * b)
    x = H / w * (np.arcsinh(a) - np.arcsinh(b)) + H * L * c
    z = H / w * (sa - sb) + c * (V * L - 0.5 * w * L * L)
    xH = (np.arcsinh(a) - np.arcsinh(b) - a / sa + b / sb) / w + L * c
    xV = (1.0 / sa - 1.0 / sb) / w
    zH = xV
    zV = (a / sa - b / sb) / w + L * c
    return x, z, xH, xV, zH, zV, SUSPENDED


@kernel
def slack_tension(zF, w, c):
    """V of a vertical hanging part of height zF: zF = V/w + c V²/(2w) (stable root)."""
    return 2.0 * w * zF / (1.0 + np.sqrt(1.0 + 2.0 * c * w * zF))


@kernel
def catenary_solve(xF, zF, L, w, c, CB, seabed):
    """(H, V, state, status) of one line: the slack state when its fairlead lets it lie on the
    seabed, else Newton on the profile equations from the initial guess of Peyrot and Goulois
    (as MAP and FAST), with step halving that keeps H > 0 and decreases the residual; after
    convergence (|r| ≤ 1e-11 of the line's size) one more full step reaches machine precision.
    status: OK, BELOW_SEABED (z_F ≤ 0 with a seabed), OUT_OF_REACH (an inextensible line not
    longer than the fairlead-anchor distance), ABOVE_ANCHOR (x_F = 0 and not slack) or
    NO_CONVERGENCE."""
    if seabed:
        if zF <= 0.0:
            return 0.0, 0.0, SLACK, BELOW_SEABED
        Vs = slack_tension(zF, w, c)
        if Vs < w * L and xF <= L - Vs / w:
            return 0.0, Vs, SLACK, OK
    if c == 0.0 and xF * xF + zF * zF >= L * L:
        return 0.0, 0.0, SUSPENDED, OUT_OF_REACH
    scale = L + xF + abs(zF)
    if xF <= 1e-12 * scale:
        return 0.0, 0.0, SUSPENDED, ABOVE_ANCHOR
    if L * L <= xF * xF + zF * zF:
        lam = 0.2
    else:
        lam = np.sqrt(3.0 * ((L * L - zF * zF) / (xF * xF) - 1.0))
    H = max(abs(0.5 * w * xF / lam), 1e-8 * w * L)
    V = 0.5 * w * (zF / np.tanh(lam) + L)
    tol = 1e-11 * scale
    for it in range(MAX_ITERATIONS):
        x, z, xH, xV, zH, zV, state = catenary_profile(H, V, L, w, c, CB, seabed)
        rx, rz = x - xF, z - zF
        err = abs(rx) + abs(rz)
        det = xH * zV - xV * zH
        if not np.isfinite(err) or det == 0.0 or not np.isfinite(det):
            return H, V, state, NO_CONVERGENCE
        dH = -(zV * rx - xV * rz) / det
        dV = -(xH * rz - zH * rx) / det
        if err <= tol:                      # converged: one more full step, then done
            if H + dH > 0.0:
                H, V = H + dH, V + dV
            x, z, xH, xV, zH, zV, state = catenary_profile(H, V, L, w, c, CB, seabed)
            return H, V, state, OK
        alpha = 1.0
        Hn, Vn = H, V
        while H + alpha * dH <= 0.0:
            alpha *= 0.5
        for k in range(40):
            Hn, Vn = H + alpha * dH, V + alpha * dV
            xn, zn, a1, a2, a3, a4, s1 = catenary_profile(Hn, Vn, L, w, c, CB, seabed)
            if abs(xn - xF) + abs(zn - zF) < err:
                break
            alpha *= 0.5
        H, V = Hn, Vn
    return H, V, SUSPENDED, NO_CONVERGENCE


@kernel
def catenary_line(k, fair_local, anchor, L, w, c, CB, seabed, up, Ri, xi):
    """Line k on a body at (x_i, R_i): fairlead p = x_i + R_i f̃, d = p - a, z_F = d·e (e: the
    upward vertical), horizontal part d_h = d - z_F e, x_F = ‖d_h‖, ĥ = d_h/x_F (any horizontal
    unit vector when x_F = 0) and the solved (H, V, state, status): returns
    (p, o, xF, zF, ĥ, e, H, V, state, status)."""
    o = mvec(Ri, vload(fair_local, k))
    p = vadd(xi, o)
    e = vload(up, k)
    d = vsub(p, vload(anchor, k))
    zF = vdot(d, e)
    dh = vsub(d, vscale(zF, e))
    xF = vnorm(dh)
    if xF > 0.0:
        h = vscale(1.0 / xF, dh)
    else:                                   # unused (slack: horizontal tension zero)
        t = (1.0, 0.0, 0.0) if abs(e[0]) < 0.9 else (0.0, 1.0, 0.0)
        h = vsub(t, vscale(vdot(t, e), e))
        h = vscale(1.0 / vnorm(h), h)
    H, V, state, status = catenary_solve(xF, zF, L[k], w[k], c[k], CB[k], seabed[k])
    return p, o, xF, zF, h, e, H, V, state, status


@kernel
def catenary_stiffness(xF, H, V, L, w, c, CB, seabed, state, h, e):
    """∂F/∂p of the fairlead force F = -H ĥ - V e: with (dH, dV) = J⁻¹ (dx_F, dz_F), dx_F = ĥ·dp,
    dz_F = e·dp and dĥ = (I - ĥĥᵀ - eeᵀ) dp / x_F:
    K_p = -ĥ (H_x ĥ + H_z e)ᵀ - e (V_x ĥ + V_z e)ᵀ - H (I - ĥĥᵀ - eeᵀ)/x_F; slack: -e V_z eᵀ with
    V_z = w/(1 + c V)."""
    if state == SLACK:
        return mscale(-w / (1.0 + c * V), outer(e, e))
    x, z, xH, xV, zH, zV, s = catenary_profile(H, V, L, w, c, CB, seabed)
    det = xH * zV - xV * zH
    Hx, Hz = zV / det, -xV / det
    Vx, Vz = -zH / det, xH / det
    gH = vadd(vscale(Hx, h), vscale(Hz, e))
    gV = vadd(vscale(Vx, h), vscale(Vz, e))
    Ph = msub(msub(mdiag(1.0), outer(h, h)), outer(e, e))
    return msub(mscale(-1.0, madd(outer(h, gH), outer(e, gV))), mscale(H / xF, Ph))


@kernel
def catenary_equations(dcoef, node, first, fair_local, anchor, L, w, c, CB, seabed, up, x, v, R, wv, G, Tw,
                       want_jac, r, j, status):
    """Catenary moorings: element e owns lines first[e]..first[e+1]-1 on its node; each line's
    fairlead force F = -H ĥ - V e at its fairlead (quasi-static: no velocity partials) and its
    stiffness by catenary_stiffness, summed by add_point_wrench.  status[k]: the line's
    failure (catenary_solve), whose rows are left zero."""
    Z = mdiag(0.0)
    for e in range(len(node)):
        clear_rows(r, j, e, want_jac)
        i = node[e]
        Ri, xi, wi = mload(R, i), vload(x, i), vload(wv, i)
        Gi, Twi = mload(G, i), mload(Tw, i)
        for k in range(first[e], first[e + 1]):
            p, o, xF, zF, h, ev, H, V, state, st = catenary_line(k, fair_local, anchor, L, w, c, CB, seabed, up,
                                                                 Ri, xi)
            status[k] = st
            if st != OK:
                continue
            F = vadd(vscale(-H, h), vscale(-V, ev))
            Kp = Z
            if want_jac:
                Kp = catenary_stiffness(xF, H, V, L[k], w[k], c[k], CB[k], seabed[k], state, h, ev)
            add_point_wrench(r, j, e, want_jac, dcoef, F, (0.0, 0.0, 0.0), o, wi, Gi, Twi,
                             Kp, Z, Z, Z, Z, Z, Z, Z)


@kernel
def catenary_lines(line_node, fair_local, anchor, L, w, c, CB, seabed, up, x, R, out, status):
    """Per line (rows of out (nl, 14)): state, fairlead tension √(H² + V²), anchor tension
    √(H_A² + V_A²), H, V, H_A, V_A, unstretched length on the seabed L_B, fairlead position p,
    force on the body F; anchor: suspended H_A = H, V_A = V - wL; on the seabed
    H_A = max(H - C_B w L_B, 0), V_A = 0; slack: H_A = 0, L_B = L - V/w."""
    for k in range(len(line_node)):
        i = line_node[k]
        p, o, xF, zF, h, ev, H, V, state, st = catenary_line(k, fair_local, anchor, L, w, c, CB, seabed, up,
                                                             mload(R, i), vload(x, i))
        status[k] = st
        Lk, wk = L[k], w[k]
        if state == SUSPENDED:
            HA, VA, LB = H, V - wk * Lk, 0.0
        else:
            LB = Lk - V / wk
            HA = max(H - CB[k] * wk * LB, 0.0)
            VA = 0.0
        out[k, 0] = state
        out[k, 1] = np.sqrt(H * H + V * V)
        out[k, 2] = np.sqrt(HA * HA + VA * VA)
        out[k, 3] = H
        out[k, 4] = V
        out[k, 5] = HA
        out[k, 6] = VA
        out[k, 7] = LB
        set_row3(out, k, 8, p)
        set_row3(out, k, 11, vadd(vscale(-H, h), vscale(-V, ev)))


@kernel
def catenary_batch(xF, zF, L, w, c, CB, seabed, out):
    """(H, V, state, status) of independent lines (n,) into out (n, 4): the 2-D solve alone
    (tests and set-up)."""
    for k in range(len(xF)):
        H, V, state, st = catenary_solve(xF[k], zF[k], L[k], w[k], c[k], CB[k], seabed[k])
        out[k, 0] = H
        out[k, 1] = V
        out[k, 2] = state
        out[k, 3] = st
