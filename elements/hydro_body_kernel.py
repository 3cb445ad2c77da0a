"""Compiled kernels of the hydrodynamic bodies (elements/hydro_body.py): one call evaluates
every body of the model (the equations, their Jacobian and, for the output, the load of each
component), one call commits the radiation velocity history.

Per body b (node i, reference point P = x + r, r = R õ): ν = (v_P, ω), v_P = ẋ + ω×r;
η = (x_P − x_P0, log(R R_eqᵀ)); the loads on P are gathered as "equation-side" 6-vectors
X (f_x = X_t, f_g = X_r + r×X_t: the residual is minus the load), their derivatives on the
local columns (Δẋ, Δġ of each body of the coupling group; δx = dCoef Δẋ, δv = Δẋ,
δφ = T_θ Δġ = dCoef G Δġ, δω = T_ω Δġ, G8):

    ∂ν/∂Δẋ = [I; 0],   ∂ν/∂Δġ = N_g = [−r× T_ω − ω× r× T_θ; T_ω],
    ∂η/∂Δẋ = [dCoef I; 0],   ∂η/∂Δġ = E_g = [−r× T_θ; Γ⁻¹(η_r) T_θ].

The restoring generalized force −C η is conjugate to η, so its moment on P is Γ⁻ᵀ(η_r) times
its rotational part (the exact derivative of ½ ηᵀCη for a symmetric C: energy is
conserved at any amplitude); the other loads are physical forces and moments at P."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, vload, mload, vadd, vsub, vscale, vcross, vdot, mvec, mmul,
                                        mmult, skew, log_rotvec)

SERIES = 0.05           # below this angle, d(φ) and d'(φ)/φ by their series


@kernel
def ginv_coefficients(phi):
    """(d, d'/φ) of Γ⁻¹(θ) = I − ½θ× + d(φ) θ×θ×, d = (1 − (φ/2) cot(φ/2))/φ² (φ = |θ|)."""
    if phi < SERIES:
        p2 = phi * phi
        return 1.0 / 12.0 + p2 / 720.0 + p2 * p2 / 30240.0, 1.0 / 360.0 + p2 / 7560.0
    h = 0.5 * phi
    sh = np.sin(h)
    cot = np.cos(h) / sh
    f = 1.0 - h * cot
    fp = -0.5 * cot + 0.25 * phi / (sh * sh)
    p2 = phi * phi
    return f / p2, fp / (p2 * phi) - 2.0 * f / (p2 * p2)


@kernel
def ginv(theta):
    """Γ⁻¹(θ) (3×3 tuple)."""
    d, _ = ginv_coefficients(np.sqrt(vdot(theta, theta)))
    S = skew(theta)
    out = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    SS = mmul(S, S)
    return (vadd(vadd(out[0], vscale(-0.5, S[0])), vscale(d, SS[0])),
            vadd(vadd(out[1], vscale(-0.5, S[1])), vscale(d, SS[1])),
            vadd(vadd(out[2], vscale(-0.5, S[2])), vscale(d, SS[2])))


@kernel
def ginv_t_times(theta, q):
    """Γ⁻ᵀ(θ) q = q + ½ θ×q + d θ×(θ×q)."""
    d, _ = ginv_coefficients(np.sqrt(vdot(theta, theta)))
    tq = vcross(theta, q)
    return vadd(vadd(q, vscale(0.5, tq)), vscale(d, vcross(theta, tq)))


@kernel
def ginv_t_derivative(theta, q):
    """∂(Γ⁻ᵀ(θ) q)/∂θ = −½ q× + d (θ qᵀ + (θ·q) I − 2 q θᵀ) + (d'/φ) (θ×(θ×q)) θᵀ."""
    d, dd = ginv_coefficients(np.sqrt(vdot(theta, theta)))
    ttq = vcross(theta, vcross(theta, q))
    tq = vdot(theta, q)
    out = np.empty((3, 3))
    for a in range(3):
        for c in range(3):
            out[a, c] = d * (theta[a] * q[c] - 2.0 * q[a] * theta[c]) + dd * ttq[a] * theta[c]
        out[a, a] += d * tq
    out[0, 1] += 0.5 * q[2]
    out[0, 2] -= 0.5 * q[1]
    out[1, 0] -= 0.5 * q[2]
    out[1, 2] += 0.5 * q[0]
    out[2, 0] += 0.5 * q[1]
    out[2, 1] -= 0.5 * q[0]
    return out


@kernel
def wave_velocity(b, t, p, wnk, wa, ww, wkn, wph, wdir, wdepth, u, du):
    """Airy particle velocity u (3) of body b's waves at the point p and ∂u/∂p (3, 3), into
    u and du: u_h = a ω f(z) cos θ along the heading, u_z = −a ω g(z) sin θ,
    θ = ω t − k (x cos β + y sin β) + φ, with f = g = e^{kz} in deep water and
    f = cosh k(z+h) / sinh kh, g = sinh k(z+h) / sinh kh at depth h (z clipped to the
    still water level and the seabed)."""
    for a in range(3):
        u[a] = 0.0
        for c in range(3):
            du[a, c] = 0.0
    cb, sb = wdir[b, 0], wdir[b, 1]
    h = wdepth[b]
    z = p[2]
    active = True
    if z > 0.0:
        z = 0.0
        active = False
    deep = np.isinf(h)
    if not deep and z < -h:
        z = -h
        active = False
    for k in range(wnk[b]):
        a, om, kk = wa[b, k], ww[b, k], wkn[b, k]
        th = om * t - kk * (p[0] * cb + p[1] * sb) + wph[b, k]
        ch, sn = np.cos(th), np.sin(th)
        if deep or kk * h > 20.0:
            f = np.exp(kk * z)
            gz = f
        else:
            s = np.sinh(kk * h)
            f = np.cosh(kk * (z + h)) / s
            gz = np.sinh(kk * (z + h)) / s
        uh = a * om * f * ch
        u[0] += uh * cb
        u[1] += uh * sb
        u[2] -= a * om * gz * sn
        # ∂θ/∂x = −k cos β, ∂θ/∂y = −k sin β; ∂f/∂z = k g, ∂g/∂z = k f
        dh = a * om * f * sn * kk                    # ∂u_h/∂θ · (−∂θ/∂(x, y)) / (cos β, sin β)
        dv = a * om * gz * ch * kk
        du[0, 0] += dh * cb * cb
        du[0, 1] += dh * cb * sb
        du[1, 0] += dh * sb * cb
        du[1, 1] += dh * sb * sb
        du[2, 0] += dv * cb
        du[2, 1] += dv * sb
        if active:
            dz = a * om * ch * kk * gz
            du[0, 2] += dz * cb
            du[1, 2] += dz * sb
            du[2, 2] -= a * om * sn * kk * f


@kernel
def history_value(c, tau, dtc, ring, count, org, tl, nu_last, out):
    """ν of body c at a past time org ≤ τ ≤ t_last from its history (samples at org + k dtc
    in the ring, the last committed (t_last, ν_last)), linear in between, into out (6)."""
    L = ring.shape[1]
    n = count[c]
    tg = org + (n - 1) * dtc
    eps = 1e-12 * max(1.0, abs(tl))
    if tau >= tg:
        last = (n - 1) % L
        beta = (tau - tg) / (tl - tg) if tl - tg > eps else 0.0
        for p in range(6):
            out[p] = (1.0 - beta) * ring[c, last, p] + beta * nu_last[c, p]
        return
    kf = (tau - org) / dtc
    k0 = int(np.floor(kf))
    if k0 < 0:
        k0 = 0
        kf = 0.0
    beta = kf - k0
    for p in range(6):
        out[p] = (1.0 - beta) * ring[c, k0 % L, p] + beta * ring[c, (k0 + 1) % L, p]


@kernel
def hydro_equations(t, dcoef, want_jac, want_comp,
                    node, inertial, o_loc, xP0, Req, FB, oB, kq, kl,
                    wnk, wa, ww, wkn, wph, wdir, wdepth, exr, exi,
                    gb, gn, Clin, Ainf, Bd, cdt, cnt, Kc, zoff, ns, As, Bs, Cs,
                    ring, count, times, nu_last,
                    x, v, R, w, G, Tw, y, yp,
                    r_load, r_mom, r_z, j_n, j_nz, j_zn, j_zz, comp):
    """Residual and Jacobian of every hydrodynamic body (module docstring; elements/hydro_body.py
    for the physics).  Per coupling group g (its bodies gb[g, :gn[g]]) and body k of it:

        X_r(estoring) = Σ_l C_kl η_l,  X = Σ_l B_kl ν_l + Σ_l Σ_j w_j K_kl(s_j) ν_l(t − s_j)
                        + C_ss,k z − F_ex,k(t) + ½ρC_dA |ν − u|(ν − u) + b (ν − u),
        f_x = X_r,t + X_t − F_B,  f_g = Γ⁻ᵀ X_r,r + X_r + r×(X_r,t + X_t) − s_B×F_B,
        f_β = −p_A,  f_γ = −(h_A + r×p_A),  f_g −= v_P×p_A,  (p_A; h_A) = Σ_l A_kl ν_l,
        f_z = ż − A z − B ν  (the group's radiation states).

    Jacobian blocks: j_n (ng, 12 NB, 6 NB) rows (x, g, β, γ) × columns (x, g) of the group's
    bodies, j_nz (x, g) × z, j_zn z × (x, g), j_zz z × z.  want_comp: comp[b] = (η, and the
    load (F, M about P) of restoring with buoyancy, radiation, excitation, drag)."""
    nb = len(node)
    NB = gb.shape[1]
    S = As.shape[1]
    NT = Kc.shape[3]
    rr = np.empty((nb, 3))
    xP = np.empty((nb, 3))
    nu = np.empty((nb, 6))
    eta = np.empty((nb, 6))
    Ng = np.zeros((nb, 6, 3))
    Eg = np.zeros((nb, 6, 3))
    Gi = np.empty((nb, 3, 3))
    Tth = np.empty((nb, 3, 3))
    for b in range(nb):
        i = node[b]
        Ri = mload(R, i)
        r = mvec(Ri, vload(o_loc, b))
        wi = vload(w, i)
        vP = vadd(vload(v, i), vcross(wi, r))
        th = log_rotvec(mmult(Ri, mload(Req, b)))
        for a in range(3):
            rr[b, a] = r[a]
            xP[b, a] = x[i, a] + r[a]
            nu[b, a] = vP[a]
            nu[b, 3 + a] = wi[a]
            eta[b, a] = xP[b, a] - xP0[b, a]
            eta[b, 3 + a] = th[a]
        Gm = ginv(th)
        T = ((dcoef * G[i, 0, 0], dcoef * G[i, 0, 1], dcoef * G[i, 0, 2]),
             (dcoef * G[i, 1, 0], dcoef * G[i, 1, 1], dcoef * G[i, 1, 2]),
             (dcoef * G[i, 2, 0], dcoef * G[i, 2, 1], dcoef * G[i, 2, 2]))
        Twi = mload(Tw, i)
        rx = skew(r)
        A1 = mmul(rx, Twi)
        A2 = mmul(mmul(skew(wi), rx), T)
        A3 = mmul(rx, T)
        A4 = mmul(Gm, T)
        for a in range(3):
            for c in range(3):
                Gi[b, a, c] = Gm[a][c]
                Tth[b, a, c] = T[a][c]
                Ng[b, a, c] = -A1[a][c] - A2[a][c]
                Ng[b, 3 + a, c] = Twi[a][c]
                Eg[b, a, c] = -A3[a][c]
                Eg[b, 3 + a, c] = A4[a][c]
    X = np.empty(6)
    Xr = np.empty(6)
    Xrad = np.empty(6)
    Xdrag = np.empty(6)
    Fex = np.empty(6)
    dX = np.zeros((6, 6 * NB))
    dXr = np.zeros((6, 6 * NB))
    dXz = np.zeros((6, max(S, 1)))
    dP = np.zeros((6, 6 * NB))
    W = np.empty((6, 6))
    Hv = np.zeros((NB, max(NT, 1), 6))
    alpha = np.zeros(max(NT, 1))
    hval = np.empty(6)
    u = np.empty(3)
    du = np.empty((3, 3))
    rel = np.empty(6)
    duT = np.empty((3, 3))
    pA = np.empty(6)
    org, tl, init = times[0], times[1], times[2] > 0.0
    span = t - tl
    eps = 1e-12 * max(1.0, abs(t))
    for g in range(len(gn)):
        n = gn[g]
        m = ns[g]
        z0 = zoff[g]
        if want_jac:
            j_n[g, :, :] = 0.0
            j_nz[g, :, :] = 0.0
            j_zn[g, :, :] = 0.0
            j_zz[g, :, :] = 0.0
        # radiation velocity history of the group's bodies at t − j dt (trapezoid rule)
        nt = cnt[g]
        dtc = cdt[g]
        for j in range(nt):
            tau = t - j * dtc
            for l in range(n):
                for p in range(6):
                    Hv[l, j, p] = 0.0
            alpha[j] = 0.0
            if not init or (span <= eps and j == 0):
                if j == 0:
                    alpha[j] = 1.0
            elif span > eps and tau > tl:
                a = (tau - tl) / span
                alpha[j] = a
                for l in range(n):
                    c = gb[g, l]
                    for p in range(6):
                        Hv[l, j, p] = (1.0 - a) * nu_last[c, p]
            elif tau >= org - eps:
                for l in range(n):
                    c = gb[g, l]
                    history_value(c, tau, dtc, ring, count, org, tl, nu_last, hval)
                    for p in range(6):
                        Hv[l, j, p] = hval[p]
        for k in range(n):
            b = gb[g, k]
            for p in range(6):
                Xr[p] = 0.0
                Xrad[p] = 0.0
                Xdrag[p] = 0.0
                Fex[p] = 0.0
            if want_jac:
                dX[:, :] = 0.0
                dXr[:, :] = 0.0
                dXz[:, :] = 0.0
            for l in range(n):
                c = gb[g, l]
                for p in range(6):
                    sr = 0.0
                    sd = 0.0
                    for q in range(6):
                        sr += Clin[g, k, l, p, q] * eta[c, q]
                        sd += Bd[g, k, l, p, q] * nu[c, q]
                    Xr[p] += sr
                    Xrad[p] += sd
                if want_jac:
                    for p in range(6):
                        for q in range(3):
                            dXr[p, 6 * l + q] += dcoef * Clin[g, k, l, p, q]
                            dX[p, 6 * l + q] += Bd[g, k, l, p, q]
                            sr = 0.0
                            sd = 0.0
                            for mm in range(6):
                                sr += Clin[g, k, l, p, mm] * Eg[c, mm, q]
                                sd += Bd[g, k, l, p, mm] * Ng[c, mm, q]
                            dXr[p, 6 * l + 3 + q] += sr
                            dX[p, 6 * l + 3 + q] += sd
                if nt > 0:              # Cummins convolution Σ_j w_j K(s_j) ν(t − s_j)
                    W[:, :] = 0.0
                    for j in range(nt):
                        wj = 0.5 * dtc if (j == 0 or j == nt - 1) else dtc
                        aj = alpha[j]
                        for p in range(6):
                            acc = 0.0
                            for q in range(6):
                                K = wj * Kc[g, k, l, j, p, q]
                                acc += K * Hv[l, j, q]
                                W[p, q] += K * aj
                            Xrad[p] += acc
                    for p in range(6):
                        acc = 0.0
                        for q in range(6):
                            acc += W[p, q] * nu[c, q]
                        Xrad[p] += acc
                    if want_jac:
                        for p in range(6):
                            for q in range(3):
                                dX[p, 6 * l + q] += W[p, q]
                                acc = 0.0
                                for mm in range(6):
                                    acc += W[p, mm] * Ng[c, mm, q]
                                dX[p, 6 * l + 3 + q] += acc
            if m > 0:                   # radiation state space, −C z on the loads
                for p in range(6):
                    acc = 0.0
                    for j in range(m):
                        acc += Cs[g, 6 * k + p, j] * y[z0 + j]
                        if want_jac:
                            dXz[p, j] = dcoef * Cs[g, 6 * k + p, j]
                    Xrad[p] += acc
            for kk in range(wnk[b]):    # wave excitation Σ Re[c_k e^{iω_k t}]
                ck, sk = np.cos(ww[b, kk] * t), np.sin(ww[b, kk] * t)
                for p in range(6):
                    Fex[p] += exr[b, kk, p] * ck - exi[b, kk, p] * sk
            drag = False
            for p in range(6):
                if kq[b, p] != 0.0 or kl[b, p] != 0.0:
                    drag = True
            if drag:                    # ½ρC_dA|ν − u|(ν − u) + b(ν − u)
                wave_velocity(b, t, xP[b], wnk, wa, ww, wkn, wph, wdir, wdepth, u, du)
                for p in range(6):
                    rel[p] = nu[b, p] - (u[p] if p < 3 else 0.0)
                    Xdrag[p] = kq[b, p] * abs(rel[p]) * rel[p] + kl[b, p] * rel[p]
                if want_jac:
                    # ∂u/∂Δġ = ∂u/∂x_P (−r× T_θ)
                    for a in range(3):
                        for c in range(3):
                            acc = 0.0
                            for mm in range(3):
                                rxT = (rr[b, (mm + 1) % 3] * Tth[b, (mm + 2) % 3, c]
                                       - rr[b, (mm + 2) % 3] * Tth[b, (mm + 1) % 3, c])
                                acc -= du[a, mm] * rxT
                            duT[a, c] = acc
                    for p in range(6):
                        fac = 2.0 * kq[b, p] * abs(rel[p]) + kl[b, p]
                        if fac == 0.0:
                            continue
                        for q in range(3):
                            dx = (1.0 if p == q else 0.0) - (dcoef * du[p, q] if p < 3 else 0.0)
                            dg = Ng[b, p, q] - (duT[p, q] if p < 3 else 0.0)
                            dX[p, 6 * k + q] += fac * dx
                            dX[p, 6 * k + 3 + q] += fac * dg
            for p in range(6):
                X[p] = Xrad[p] - Fex[p] + Xdrag[p]
            # rows (x, g) of the node: f_x = X_r,t + X_t − F_B, f_g = Γ⁻ᵀ X_r,r + X_r + r×Y − s_B×F_B
            i = node[b]
            r = vload(rr, b)
            th = (eta[b, 3], eta[b, 4], eta[b, 5])
            Y = (Xr[0] + X[0], Xr[1] + X[1], Xr[2] + X[2])
            FBv = (0.0, 0.0, FB[b])
            sB = mvec(mload(R, i), vload(oB, b))
            GXr = ginv_t_times(th, (Xr[3], Xr[4], Xr[5]))
            rY = vcross(r, Y)
            sF = vcross(sB, FBv)
            for a in range(3):
                r_load[b, a] = Y[a] - FBv[a]
                r_load[b, 3 + a] = GXr[a] + X[3 + a] + rY[a] - sF[a]
            if want_comp:
                rs = vsub(sB, r)
                MB = vcross(rs, FBv)
                for a in range(3):
                    comp[b, 0, a] = eta[b, a]
                    comp[b, 0, 3 + a] = eta[b, 3 + a]
                    comp[b, 1, a] = FBv[a] - Xr[a]
                    comp[b, 1, 3 + a] = MB[a] - GXr[a]
                    comp[b, 2, a] = -Xrad[a]
                    comp[b, 2, 3 + a] = -Xrad[3 + a]
                    comp[b, 3, a] = Fex[a]
                    comp[b, 3, 3 + a] = Fex[3 + a]
                    comp[b, 4, a] = -Xdrag[a]
                    comp[b, 4, 3 + a] = -Xdrag[3 + a]
            if want_jac:
                Gt = ((Gi[b, 0, 0], Gi[b, 1, 0], Gi[b, 2, 0]), (Gi[b, 0, 1], Gi[b, 1, 1], Gi[b, 2, 1]),
                      (Gi[b, 0, 2], Gi[b, 1, 2], Gi[b, 2, 2]))
                for col in range(6 * n):
                    yt = (dXr[0, col] + dX[0, col], dXr[1, col] + dX[1, col], dXr[2, col] + dX[2, col])
                    gr = mvec(Gt, (dXr[3, col], dXr[4, col], dXr[5, col]))
                    ry = vcross(r, yt)
                    for a in range(3):
                        j_n[g, 12 * k + a, col] = yt[a]
                        j_n[g, 12 * k + 3 + a, col] = gr[a] + dX[3 + a, col] + ry[a]
                for j in range(m):
                    yt = (dXz[0, j], dXz[1, j], dXz[2, j])
                    ry = vcross(r, yt)
                    for a in range(3):
                        j_nz[g, 6 * k + a, j] = yt[a]
                        j_nz[g, 6 * k + 3 + a, j] = dXz[3 + a, j] + ry[a]
                # own rotation columns: ∂(r×Y)/∂φ = Y× r×, ∂(Γ⁻ᵀq)/∂θ Γ⁻¹, ∂(−s_B×F_B)/∂φ = −F_B× s_B×
                Dq = ginv_t_derivative(th, (Xr[3], Xr[4], Xr[5]))
                YR = mmul(skew(Y), skew(r))
                FS = mmul(skew(FBv), skew(sB))
                for a in range(3):
                    for c in range(3):
                        acc = 0.0
                        for mm in range(3):
                            dG = 0.0
                            for q in range(3):
                                dG += Dq[a, q] * Gi[b, q, mm]
                            acc += (YR[a][mm] - FS[a][mm] + dG) * Tth[b, mm, c]
                        j_n[g, 12 * k + 3 + a, 6 * k + 3 + c] += acc
            # added mass on the momentum definitions (elements/hydro_body.py)
            if not inertial[b]:
                for a in range(6):
                    r_mom[b, a] = 0.0
                continue
            pA[:] = 0.0
            for l in range(n):
                c = gb[g, l]
                for p in range(6):
                    acc = 0.0
                    for q in range(6):
                        acc += Ainf[g, k, l, p, q] * nu[c, q]
                    pA[p] += acc
            p3 = (pA[0], pA[1], pA[2])
            rp = vcross(r, p3)
            vP = (nu[b, 0], nu[b, 1], nu[b, 2])
            vp = vcross(vP, p3)
            for a in range(3):
                r_mom[b, a] = -pA[a]
                r_mom[b, 3 + a] = -(pA[3 + a] + rp[a])
                r_load[b, 3 + a] -= vp[a]
            if not want_jac:
                continue
            dP[:, :] = 0.0
            for l in range(n):
                c = gb[g, l]
                for p in range(6):
                    for q in range(3):
                        dP[p, 6 * l + q] = Ainf[g, k, l, p, q]
                        acc = 0.0
                        for mm in range(6):
                            acc += Ainf[g, k, l, p, mm] * Ng[c, mm, q]
                        dP[p, 6 * l + 3 + q] = acc
            for col in range(6 * n):
                pt = (dP[0, col], dP[1, col], dP[2, col])
                rpt = vcross(r, pt)
                vpt = vcross(vP, pt)
                for a in range(3):
                    j_n[g, 12 * k + 6 + a, col] = -pt[a]
                    j_n[g, 12 * k + 9 + a, col] = -(dP[3 + a, col] + rpt[a])
                    j_n[g, 12 * k + 3 + a, col] -= vpt[a]
            # own columns: −p_A× r× T_θ on γ; p_A× ∂v_P on the moment row
            PR = mmul(skew(p3), skew(r))
            Px = skew(p3)
            for a in range(3):
                for c in range(3):
                    acc = 0.0
                    accg = 0.0
                    for mm in range(3):
                        acc += PR[a][mm] * Tth[b, mm, c]
                        accg += Px[a][mm] * Ng[b, mm, c]
                    j_n[g, 12 * k + 9 + a, 6 * k + 3 + c] -= acc
                    j_n[g, 12 * k + 3 + a, 6 * k + 3 + c] += accg
                    j_n[g, 12 * k + 3 + a, 6 * k + c] += Px[a][c]
        # the group's radiation states: f_z = ż − A z − B ν
        for j in range(S):
            if j >= m:
                r_z[g, j] = 0.0
                continue
            acc = yp[z0 + j]
            for q in range(m):
                acc -= As[g, j, q] * y[z0 + q]
            for l in range(n):
                c = gb[g, l]
                for p in range(6):
                    acc -= Bs[g, j, 6 * l + p] * nu[c, p]
            r_z[g, j] = acc
            if not want_jac:
                continue
            for q in range(m):
                j_zz[g, j, q] = (1.0 if j == q else 0.0) - dcoef * As[g, j, q]
            for l in range(n):
                c = gb[g, l]
                for q in range(3):
                    j_zn[g, j, 6 * l + q] = -Bs[g, j, 6 * l + q]
                    acc = 0.0
                    for p in range(6):
                        acc += Bs[g, j, 6 * l + p] * Ng[c, p, q]
                    j_zn[g, j, 6 * l + 3 + q] = -acc


@kernel
def history_commit(t, nu, cdt_body, ring, count, times, nu_last):
    """The radiation velocity history after a converged step (or phase) at time t with body
    velocities ν (nb, 6), in place on copies: the first commit sets the grid origin; later ones
    add the samples at the grid times org + k dt in (t_last, t] (linear between the two
    committed states) and keep (t, ν) as the last committed point."""
    L = ring.shape[1]
    nb = nu.shape[0]
    eps = 1e-12 * max(1.0, abs(t))
    if times[2] == 0.0:
        times[0] = t
        times[1] = t
        times[2] = 1.0
        for c in range(nb):
            for p in range(6):
                ring[c, 0, p] = nu[c, p]
                nu_last[c, p] = nu[c, p]
            count[c] = 1
        return
    org, tl = times[0], times[1]
    if t > tl + eps:
        for c in range(nb):
            dtc = cdt_body[c]
            while dtc > 0.0:
                tk = org + count[c] * dtc
                if tk > t + eps:
                    break
                a = (tk - tl) / (t - tl)
                slot = count[c] % L
                for p in range(6):
                    ring[c, slot, p] = (1.0 - a) * nu_last[c, p] + a * nu[c, p]
                count[c] += 1
            for p in range(6):
                nu_last[c, p] = nu[c, p]
        times[1] = t
        return
    for c in range(nb):                 # a phase committed again at the same time
        for p in range(6):
            nu_last[c, p] = nu[c, p]
        if cdt_body[c] > 0.0 and abs(org + (count[c] - 1) * cdt_body[c] - t) <= eps:
            for p in range(6):
                ring[c, (count[c] - 1) % L, p] = nu[c, p]
