"""Compiled kernels of the aerodynamic elements (theory manual Ch. 13; MBDyn's aeroelem.cc):
the section kinematics of `aerodynamic body` (1 node), `aerodynamic beam2` (2 nodes) and
`aerodynamic beam` (3 nodes), the airfoil's sectional loads at each Gauss point, their
integration along the span onto the nodes, and the element Jacobian.

Section kinematics (13.4-13.6), as MBDyn passes them to AeroData::GetForces:
- body: arm r = R (f̃ + Ra₃ (b/2) ξ), point x + r, velocity v + ω × r, angular velocity ω,
  frame RR = R Ra; weight (b/2) w_g; the moment about the node.
- beam2: the offset points X_i = x_i + R_i f̃_i and their velocities v_i + ω_i × R_i f̃_i
  interpolated linearly, N₁ = (1 - s)/2, N₂ = (1 + s)/2, ω likewise; frame
  RR₁ exp(((1 + s)/2) θ̄), θ̄ = ½ log(RR₁ᵀ RR₂); each node takes the half span s ∈ [-1, 0]
  or [0, 1], split into the element's Gauss points; weight |∂x/∂s| (ds/dξ) w_g with
  |∂x/∂s| = |x₂ - x₁|/2 (node positions); the moment about the node.
- beam (3 nodes): quadratic N₁ = s(s - 1)/2, N₂ = 1 - s², N₃ = s(s + 1)/2, frame
  RR₂ exp(N₁ g₁ + N₃ g₃), g_k = log(RR₂ᵀ RR_k); node k takes s ∈ [-1, -1/√3], [-1/√3, 1/√3], [1/√3, 1].
In every section the free stream is subtracted (V_r = V - V∞), the twist τ (shape + control
drive) turns the frame, RRloc = RR [[cos τ, -sin τ, 0], [sin τ, cos τ, 0], [0, 0, 1]], and the
airfoil gets W = [RRlocᵀ V_r; RRlocᵀ ω] and vam = (ρ, c, chord, force point, velocity point,
τ).  Its loads per unit span TNG (lift component scaled by the tip loss) come back as
F = RRloc TNG₁₋₃ w, M = RRloc TNG₄₋₆ w + r × F (13.7, 13.19).

Jacobian: numerical, as MBDyn's 13.2, but of the element's nodal loads with respect to the
perturbations of its nodes (δx, θ, δv, δω; central differences inside the kernel), chained to
the Newton increments (Δẋ, Δġ) with T_θ = dCoef G and T_ω (G8).  It is always assembled (also
for `jacobian, no`): converged results are those of MBDyn, Newton converges faster."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, vload, mload, vadd, vsub, vscale, vcross, vnorm, mvec, mtvec,
                                        mmul, mtmul, exp_rotvec, log_rotvec, zero3)
from mbdae.engine.core.air import air_state
from mbdae.elements.rotor_kernel import (rotor_inflow, perturb_node,      # rotor coupling (elements/rotor.py)
                                         GLAUERT, MANGLER, DYNAMIC_INFLOW, NI, NF, NZ)
from mbdae.engine.core.airfoil import airfoil_loads, predict_alpha_rates, theodorsen_section

N_OUTA = 20
FD_STEP = 1e-6


@kernel
def _row(A, k):
    return (A[k, 0], A[k, 1], A[k, 2])


@kernel
def _mat(A, k):
    return ((A[k, 0, 0], A[k, 0, 1], A[k, 0, 2]), (A[k, 1, 0], A[k, 1, 1], A[k, 1, 2]),
            (A[k, 2, 0], A[k, 2, 1], A[k, 2, 2]))


@kernel
def element_loads(e, nn, ng, xl, Rl, vl, wl, f_loc, Ra, pstart, ds, wpre, sdata, mstart, unsteady,
                  ctrl, air, vgust, ai, af, t, hist_a, hist_t, n_upd, theo, qv, qdv, prev, gout, rates, out, write,
                  outa, alpha_out, W, vam, TNG, OUTA, riv, rip, rfp, rz, rnk, rair, rout):
    """Nodal loads (F, M per node slot, out (18,), the applied loads) of element e from the
    local node kinematics xl, vl, wl (3, 3) and Rl (3, 3, 3); with `write` = 1, the airfoil's
    outputs per point into outa and the angle of attack (rad) into alpha_out; with `write` =
    2 only the section points, into outa[p, :3] (the gusts' positions).  vgust (npts, 3): the
    gust velocity at each point (held fixed in the Jacobian, as MBDyn's).  Points with
    `theo`: the Theodorsen model with states qv, rates qdv (npts, 2), its state residual into
    gout (npts, 2) and its pivot angle and rates into rates (npts, 4); `prev` (npts, 3):
    those committed at the last converged step (13.69-13.71).
    Rotor coupling (elements/rotor.py): riv[e] ≥ 0 names the element's rotor, whose induced
    velocity rotor_inflow(rip, rfp, rz, rnk, rair)[riv[e]] at the section point is added to
    the air-relative velocity (MBDyn's aeroelem.cc, Vr += GetInducedVelocity(X)); rout (6,)
    gets the loads the rotor sums, F and the moment about the craft node (MBDyn's pole)."""
    for k in range(18):
        out[k] = 0.0
    for k in range(6):
        rout[k] = 0.0
    iv = riv[e]
    n = nn[e]
    # reference point of the air properties: node (body), mid point (beam2), node 2 (beam)
    if n == 1:
        xref = _row(xl, 0)
    elif n == 2:
        xref = vscale(0.5, vadd(_row(xl, 0), _row(xl, 1)))
    else:
        xref = _row(xl, 1)
    rho, c, vinf = air_state(air, xref)
    RR0 = mmul(_mat(Rl, 0), mload(Ra[e], 0))
    RR1 = mmul(_mat(Rl, 1), mload(Ra[e], 1)) if n > 1 else RR0
    RR2 = mmul(_mat(Rl, 2), mload(Ra[e], 2)) if n > 2 else RR0
    # offset points and their velocities
    Xo0 = vadd(_row(xl, 0), mvec(_mat(Rl, 0), vload(f_loc[e], 0)))
    Xo1 = vadd(_row(xl, 1), mvec(_mat(Rl, 1), vload(f_loc[e], 1)))
    Xo2 = vadd(_row(xl, 2), mvec(_mat(Rl, 2), vload(f_loc[e], 2)))
    Vo0 = vadd(_row(vl, 0), vcross(_row(wl, 0), mvec(_mat(Rl, 0), vload(f_loc[e], 0))))
    Vo1 = vadd(_row(vl, 1), vcross(_row(wl, 1), mvec(_mat(Rl, 1), vload(f_loc[e], 1))))
    Vo2 = vadd(_row(vl, 2), vcross(_row(wl, 2), mvec(_mat(Rl, 2), vload(f_loc[e], 2))))
    th = zero3()
    if n == 2:
        th = vscale(0.5, log_rotvec(mtmul(RR0, RR1)))
    g1 = zero3()
    g3 = zero3()
    if n == 3:
        g1 = log_rotvec(mtmul(RR1, RR0))
        g3 = log_rotvec(mtmul(RR1, RR2))
    p0 = pstart[e]
    for k in range(n):
        for q in range(ng[e]):
            p = p0 + k * ng[e] + q
            s = ds[p]
            if n == 1:
                # body: ds holds the span abscissa times b/2 along Ra₃ (sdata[p, 5])
                arm_l = vadd(vload(f_loc[e], 0), vscale(sdata[p, 5] * s, mcol3(mload(Ra[e], 0), 2)))
                r = mvec(_mat(Rl, 0), arm_l)
                X = vadd(_row(xl, 0), r)
                V = vadd(_row(vl, 0), vcross(_row(wl, 0), r))
                Wr = _row(wl, 0)
                RR = RR0
                wgt = wpre[p]
                arm = r
            elif n == 2:
                N1 = 0.5 * (1.0 - s)
                N2 = 0.5 * (1.0 + s)
                X = vadd(vscale(N1, Xo0), vscale(N2, Xo1))
                V = vadd(vscale(N1, Vo0), vscale(N2, Vo1))
                Wr = vadd(vscale(N1, _row(wl, 0)), vscale(N2, _row(wl, 1)))
                RR = mmul(RR0, exp_rotvec(vscale(0.5 * (1.0 + N2 - N1), th)))
                dX = vscale(0.5, vsub(_row(xl, 1), _row(xl, 0)))
                dd = dX[0] * dX[0] + dX[1] * dX[1] + dX[2] * dX[2]
                wgt = wpre[p] * (np.sqrt(dd) if dd > 2.220446049250313e-16 else 0.0)
                arm = vsub(X, _row(xl, k))
            else:
                N1 = 0.5 * s * (s - 1.0)
                N2 = 1.0 - s * s
                N3 = 0.5 * s * (s + 1.0)
                X = vadd(vadd(vscale(N1, Xo0), vscale(N2, Xo1)), vscale(N3, Xo2))
                V = vadd(vadd(vscale(N1, Vo0), vscale(N2, Vo1)), vscale(N3, Vo2))
                Wr = vadd(vadd(vscale(N1, _row(wl, 0)), vscale(N2, _row(wl, 1))), vscale(N3, _row(wl, 2)))
                RR = mmul(RR1, exp_rotvec(vadd(vscale(N1, g1), vscale(N3, g3))))
                dX = vadd(vadd(vscale(s - 0.5, _row(xl, 0)), vscale(-2.0 * s, _row(xl, 1))),
                          vscale(s + 0.5, _row(xl, 2)))
                dd = dX[0] * dX[0] + dX[1] * dX[1] + dX[2] * dX[2]
                wgt = wpre[p] * (np.sqrt(dd) if dd > 2.220446049250313e-16 else 0.0)
                arm = vsub(X, _row(xl, k))
            if write == 2:
                for jj in range(3):
                    outa[p, jj] = X[jj]
                continue
            Vr = vsub(vsub(V, vinf), vload(vgust, p))
            if iv >= 0:                                                 # rotor coupling
                Vr = vadd(Vr, rotor_inflow(rip[iv], rfp[iv], rz[iv], rnk[iv], rair[iv], X))
            tw = sdata[p, 3] + ctrl[e]
            if tw != 0.0:
                ct, st = np.cos(tw), np.sin(tw)
                RTw = ((ct, -st, 0.0), (st, ct, 0.0), (0.0, 0.0, 1.0))   # MBDyn's Mat3x3(c, s, 0, -s, c, 0, ...) is by columns
                RR = mmul(RR, RTw)
            Vl = mtvec(RR, Vr)
            Wl = mtvec(RR, Wr)
            for j in range(3):
                W[j] = Vl[j]
                W[3 + j] = Wl[j]
            vam[0] = rho
            vam[1] = c
            vam[2] = sdata[p, 0]
            vam[3] = sdata[p, 1]
            vam[4] = sdata[p, 2]
            vam[5] = tw
            alpha = np.arctan2(-W[1], W[0])
            alf1 = 0.0
            alf2 = 0.0
            if unsteady[p]:
                alf1, alf2 = predict_alpha_rates(alpha, t, hist_a[p], hist_t[p], n_upd[0])
            for j in range(N_OUTA):
                OUTA[j] = 0.0
            if theo[p]:
                theodorsen_section(ai, af, mstart[p], W, vam, qv[p], qdv[p], t, prev[p], rates[p], TNG, OUTA,
                                   gout[p])
            else:
                airfoil_loads(ai, af, mstart[p], W, vam, alf1, alf2, TNG, OUTA)
            tl = sdata[p, 4]
            Fl = (TNG[0], TNG[1] * tl, TNG[2])
            F = vscale(wgt, mvec(RR, Fl))
            M = vadd(vscale(wgt, mvec(RR, (TNG[3], TNG[4], TNG[5]))), vcross(arm, F))
            for j in range(3):
                out[6 * k + j] += F[j]
                out[6 * k + 3 + j] += M[j]
            if iv >= 0:                                                 # rotor coupling
                Mp = vadd(vsub(M, vcross(arm, F)), vcross(vsub(X, (rnk[iv, 0, 0], rnk[iv, 0, 1], rnk[iv, 0, 2])), F))
                for j in range(3):
                    rout[j] += F[j]
                    rout[3 + j] += Mp[j]
            if write == 1:
                for j in range(N_OUTA):
                    outa[p, j] = OUTA[j]
                # MBDyn's `gauss` output: atan2(-W₂, W₁) (deg) and TNG₂ (tip loss applied), TNG₁, TNG₆
                outa[p, 14] = np.degrees(np.arctan2(-Vl[1], Vl[0]))
                outa[p, 15] = TNG[1] * tl
                outa[p, 16] = TNG[0]
                outa[p, 17] = TNG[5]
                outa[p, 8] = alf1
                outa[p, 9] = alf2
                alpha_out[p] = alpha


@kernel
def mcol3(A, k):
    return (A[0][k], A[1][k], A[2][k])


@kernel
def _load_local(e, nodes, x, R, v, w, xl, Rl, vl, wl):
    for k in range(3):
        i = nodes[e, k]
        if i < 0:
            i = nodes[e, 0]
        for a in range(3):
            xl[k, a] = x[i, a]
            vl[k, a] = v[i, a]
            wl[k, a] = w[i, a]
            for b in range(3):
                Rl[k, a, b] = R[i, a, b]


@kernel
def section_points(nn, ng, nodes, f_loc, Ra, pstart, ds, wpre, sdata, mstart, unsteady, ctrl, air, vgust, ai,
                   af, t, hist_a, hist_t, n_upd, theo, soff, prev, rates, x, R, v, w, xpts):
    """The global position of every section point into xpts (npts, ≥ 3)."""
    xl = np.empty((3, 3))
    vl = np.empty((3, 3))
    wl = np.empty((3, 3))
    Rl = np.empty((3, 3, 3))
    out = np.empty(18)
    W = np.empty(6)
    vam = np.empty(6)
    TNG = np.empty(6)
    OUTA = np.empty(N_OUTA)
    alpha_out = np.empty(1)
    noriv = np.full(len(nn), -1, np.int64)                              # rotor coupling: none here
    rout = np.empty(6)
    for e in range(len(nn)):
        _load_local(e, nodes, x, R, v, w, xl, Rl, vl, wl)
        element_loads(e, nn, ng, xl, Rl, vl, wl, f_loc, Ra, pstart, ds, wpre, sdata, mstart, unsteady, ctrl,
                      air, vgust, ai, af, t, hist_a, hist_t, n_upd, theo, prev, prev, prev, prev, rates, out, 2,
                      xpts, alpha_out, W, vam, TNG, OUTA, noriv, np.zeros((0, NI), np.int64), np.zeros((0, NF)),
                      np.zeros((0, NZ)), np.zeros((0, 3, 18)), np.zeros((0, 5)), rout)


@kernel
def aero_equations(dcoef, nn, ng, nodes, f_loc, Ra, pstart, ds, wpre, sdata, mstart, unsteady, ctrl, air,
                   vgust, ai, af, t, hist_a, hist_t, n_upd, theo, soff, prev, rates, x, R, v, w, G, Tw, y, yp,
                   want_jac, r, j, outa, alpha_out, riv, rpass, rip, rfp, rz, rnk, rair, rnodes, rr, j_nr, j_rn, j_rr):
    """Residual rows of every element: -(F, M) on its nodes' (x, g) rows (the first 18) and
    the Theodorsen state rows g of its points (18 + 2k, 18 + 2k + 1, when it has states);
    with want_jac, the Jacobian blocks by central differences of the element's loads and
    state residuals over (δx, θ, δv, δω) of each node and over the states q, chained to the
    increments: ∂/∂Δẋ = ∂/∂v + dCoef ∂/∂x, ∂/∂Δġ = dCoef ∂/∂θ G + ∂/∂ω T_ω,
    ∂/∂Δq̇ = ∂/∂q̇ + dCoef ∂/∂q (∂g/∂q̇ = I)."""
    nr = r.shape[1]
    npmax = (nr - 18) // 2
    xl = np.empty((3, 3))
    vl = np.empty((3, 3))
    wl = np.empty((3, 3))
    Rl = np.empty((3, 3, 3))
    out = np.empty(18)
    op = np.empty(18)
    om = np.empty(18)
    W = np.empty(6)
    vam = np.empty(6)
    TNG = np.empty(6)
    OUTA = np.empty(N_OUTA)
    dth = np.empty((nr, 3))
    dom = np.empty((nr, 3))
    npts = len(theo)
    qv = np.zeros((npts, 2))
    qdv = np.zeros((npts, 2))
    gout = np.zeros((npts, 2))
    gp = np.zeros((npts, 2))
    gm = np.zeros((npts, 2))
    rscr = np.zeros((npts, 4))
    rout = np.empty(6)                # rotor coupling: the loads the rotor sums and their differences
    rop = np.empty(6)
    rom = np.empty(6)
    rth = np.empty((6, 3))
    rom_w = np.empty((6, 3))
    for p in range(npts):
        if soff[p] >= 0:
            for c in range(2):
                qv[p, c] = y[soff[p] + c]
                qdv[p, c] = yp[soff[p] + c]
    for e in range(len(nn)):
        p0 = pstart[e]
        m = nn[e] * ng[e]
        has_q = theo[p0]
        _load_local(e, nodes, x, R, v, w, xl, Rl, vl, wl)
        element_loads(e, nn, ng, xl, Rl, vl, wl, f_loc, Ra, pstart, ds, wpre, sdata, mstart, unsteady, ctrl,
                      air, vgust, ai, af, t, hist_a, hist_t, n_upd, theo, qv, qdv, prev, gout, rates, out, 1, outa,
                      alpha_out, W, vam, TNG, OUTA, riv, rip, rfp, rz, rnk, rair, rout)
        for k in range(18):
            r[e, k] = -out[k]
        coupled = riv[e] >= 0 and rr.shape[0] > 0                       # rotor coupling
        if coupled:
            for k in range(6):
                rr[e, k] = 0.0 if rpass[e] else rout[k]                 # the rotor's rows: Σ − [F; M]
        for k in range(18, nr):
            r[e, k] = 0.0
        if has_q:
            for q in range(m):
                r[e, 18 + 2 * q] = gout[p0 + q, 0]
                r[e, 18 + 2 * q + 1] = gout[p0 + q, 1]
        if not want_jac:
            continue
        for a in range(nr):
            for b in range(nr):
                j[e, a, b] = 0.0
        if coupled:
            for a in range(6):
                for b in range(nr):
                    j_rn[e, a, b] = 0.0
        for k in range(nn[e]):
            i = nodes[e, k]
            for comp in range(4):
                for c in range(3):
                    for sgn in range(2):
                        h = FD_STEP if sgn == 0 else -FD_STEP
                        if comp == 0:
                            xl[k, c] += h
                        elif comp == 2:
                            vl[k, c] += h
                        elif comp == 3:
                            wl[k, c] += h
                        else:
                            th = (h if c == 0 else 0.0, h if c == 1 else 0.0, h if c == 2 else 0.0)
                            Rp = mmul(exp_rotvec(th), mload(R, i))
                            for a in range(3):
                                for b in range(3):
                                    Rl[k, a, b] = Rp[a][b]
                        dst = op if sgn == 0 else om
                        gdst = gp if sgn == 0 else gm
                        rdst = rop if sgn == 0 else rom
                        element_loads(e, nn, ng, xl, Rl, vl, wl, f_loc, Ra, pstart, ds, wpre, sdata, mstart,
                                      unsteady, ctrl, air, vgust, ai, af, t, hist_a, hist_t, n_upd, theo, qv, qdv,
                                      prev, gdst, rscr, dst, 0, outa, alpha_out, W, vam, TNG, OUTA, riv, rip, rfp,
                                      rz, rnk, rair, rdst)
                        if comp == 0:
                            xl[k, c] -= h
                        elif comp == 2:
                            vl[k, c] -= h
                        elif comp == 3:
                            wl[k, c] -= h
                        else:
                            for a in range(3):
                                for b in range(3):
                                    Rl[k, a, b] = R[i, a, b]
                    for a in range(nr):
                        if a < 18:
                            d = -(op[a] - om[a]) / (2.0 * FD_STEP)      # rows are -(loads)
                        elif has_q and (a - 18) // 2 < m:
                            pq = p0 + (a - 18) // 2
                            cq = (a - 18) % 2
                            d = (gp[pq, cq] - gm[pq, cq]) / (2.0 * FD_STEP)
                        else:
                            d = 0.0
                        if comp == 0:
                            j[e, a, 6 * k + c] += dcoef * d
                        elif comp == 2:
                            j[e, a, 6 * k + c] += d
                        elif comp == 1:
                            dth[a, c] = d
                        else:
                            dom[a, c] = d
                    if coupled and not rpass[e]:                    # rotor rows: + the summed loads
                        for a in range(6):
                            d = (rop[a] - rom[a]) / (2.0 * FD_STEP)
                            if comp == 0:
                                j_rn[e, a, 6 * k + c] += dcoef * d
                            elif comp == 2:
                                j_rn[e, a, 6 * k + c] += d
                            elif comp == 1:
                                rth[a, c] = d
                            else:
                                rom_w[a, c] = d
            for a in range(nr):
                for c in range(3):
                    s = 0.0
                    for b in range(3):
                        s += dcoef * dth[a, b] * G[i, b, c] + dom[a, b] * Tw[i, b, c]
                    j[e, a, 6 * k + 3 + c] += s
            if coupled and not rpass[e]:
                for a in range(6):
                    for c in range(3):
                        s = 0.0
                        for b in range(3):
                            s += dcoef * rth[a, b] * G[i, b, c] + rom_w[a, b] * Tw[i, b, c]
                        j_rn[e, a, 6 * k + 3 + c] += s
        if has_q:
            for q in range(m):
                pq = p0 + q
                for c in range(2):
                    col = 18 + 2 * q + c
                    j[e, col, col] += 1.0                            # ∂g/∂q̇ = I
                    for sgn in range(2):
                        h = FD_STEP if sgn == 0 else -FD_STEP
                        qv[pq, c] += h
                        dst = op if sgn == 0 else om
                        gdst = gp if sgn == 0 else gm
                        rdst = rop if sgn == 0 else rom
                        element_loads(e, nn, ng, xl, Rl, vl, wl, f_loc, Ra, pstart, ds, wpre, sdata, mstart,
                                      unsteady, ctrl, air, vgust, ai, af, t, hist_a, hist_t, n_upd, theo, qv, qdv,
                                      prev, gdst, rscr, dst, 0, outa, alpha_out, W, vam, TNG, OUTA, riv, rip, rfp,
                                      rz, rnk, rair, rdst)
                        qv[pq, c] -= h
                    for a in range(18):
                        j[e, a, col] += -dcoef * (op[a] - om[a]) / (2.0 * FD_STEP)
                    if coupled and not rpass[e]:                        # rotor coupling
                        for a in range(6):
                            j_rn[e, a, col] += dcoef * (rop[a] - rom[a]) / (2.0 * FD_STEP)
                    for q2 in range(m):
                        for c2 in range(2):
                            j[e, 18 + 2 * q2 + c2, col] += dcoef * (gp[p0 + q2, c2] - gm[p0 + q2, c2]) / (2.0 * FD_STEP)
        if coupled:
            rotor_columns(e, dcoef, nn, ng, f_loc, Ra, pstart, ds, wpre, sdata, mstart, unsteady, ctrl, air, vgust,
                          ai, af, t, hist_a, hist_t, n_upd, theo, qv, qdv, prev, gp, gm, rscr, G, Tw, xl, Rl, vl, wl,
                          outa, alpha_out, W, vam, TNG, OUTA, riv, rpass, rip, rfp, rz, rnk, rair, rnodes, op, om, rop,
                          rom, nr, j_nr, j_rr)


# ---------------------------------------------------------------- rotor coupling (elements/rotor.py)
@kernel
def rotor_columns(e, dcoef, nn, ng, f_loc, Ra, pstart, ds, wpre, sdata, mstart, unsteady, ctrl, air, vgust, ai, af,
                  t, hist_a, hist_t, n_upd, theo, qv, qdv, prev, gp, gm, rscr, G, Tw, xl, Rl, vl, wl, outa,
                  alpha_out, W, vam, TNG, OUTA, riv, rpass, rip, rfp, rz, rnk, rair, rnodes, op, om, rop, rom, nr,
                  j_nr, j_rr):
    """The columns of element e's rotor (its unknowns F, M, ν, then Δẋ, Δġ of its craft and
    rotor nodes) in the element's rows j_nr (nr, 21: node rows, Theodorsen state rows) and in
    the rotor's rows j_rr (6, 21), by central differences of the loads through the induced
    velocity (and of the moment arm about the craft node), chained to the Newton increments
    as the node columns are."""
    iv = riv[e]
    p0 = pstart[e]
    m = nn[e] * ng[e]
    has_q = theo[p0]
    for a in range(nr):
        for c in range(21):
            j_nr[e, a, c] = 0.0
    for a in range(6):
        for c in range(21):
            j_rr[e, a, c] = 0.0
    dq = np.zeros((nr + 6, 12))       # rows: the element's rows then the rotor's; cols (x, θ, v, ω)
    dz = np.zeros(nr + 6)
    model = rip[iv, 0]
    nd, kind, cc = 0, 0, 0
    for c in range(9 + 24):
        if c < 9:
            # u depends on F, M only through λ, μ, χ (Glauert, Mangler) and on ν only for dynamic inflow
            if (c < 6 and model != GLAUERT and model != MANGLER) or (c >= 6 and model != DYNAMIC_INFLOW):
                continue
            h = FD_STEP * (1.0 + abs(rz[iv, c]))
        else:
            nd, kind, cc = (c - 9) // 12, ((c - 9) % 12) // 3, (c - 9) % 3
            if rnodes[iv, nd] < 0:
                continue
            h = FD_STEP
            if kind != 1:
                h = FD_STEP * (1.0 + abs(rnk[iv, nd, (0, 0, 12, 15)[kind] + cc]))
        for sgn in range(2):
            hh = h if sgn == 0 else -h
            if c < 9:
                rz[iv, c] += hh
            else:
                perturb_node(rnk[iv], nd, kind, cc, hh)
            dst = op if sgn == 0 else om
            gdst = gp if sgn == 0 else gm
            rdst = rop if sgn == 0 else rom
            element_loads(e, nn, ng, xl, Rl, vl, wl, f_loc, Ra, pstart, ds, wpre, sdata, mstart, unsteady, ctrl, air,
                          vgust, ai, af, t, hist_a, hist_t, n_upd, theo, qv, qdv, prev, gdst, rscr, dst, 0, outa,
                          alpha_out, W, vam, TNG, OUTA, riv, rip, rfp, rz, rnk, rair, rdst)
            if c < 9:
                rz[iv, c] -= hh
            else:
                perturb_node(rnk[iv], nd, kind, cc, -hh)
        for a in range(nr + 6):
            if a < 18:
                d = -(op[a] - om[a]) / (2.0 * h)                        # rows are -(loads)
            elif a < nr:
                d = 0.0
                if has_q and (a - 18) // 2 < m:
                    d = (gp[p0 + (a - 18) // 2, (a - 18) % 2] - gm[p0 + (a - 18) // 2, (a - 18) % 2]) / (2.0 * h)
            else:
                d = 0.0 if rpass[e] else (rop[a - nr] - rom[a - nr]) / (2.0 * h)
            if c < 9:
                dz[a] = d * (dcoef if c >= 6 else 1.0)      # F, M algebraic (Δ); ν differential (dCoef Δ)
            else:
                dq[a, 3 * kind + cc] = d
        if c < 9:
            for a in range(nr + 6):
                if a < nr:
                    j_nr[e, a, c] = dz[a]
                else:
                    j_rr[e, a - nr, c] = dz[a]
        elif (c - 9) % 12 == 11:                                        # a node done: chain its columns
            i = rnodes[iv, nd]
            col = 9 + 6 * nd
            for a in range(nr + 6):
                for k in range(3):
                    gx = dcoef * dq[a, k] + dq[a, 6 + k]
                    sg = 0.0
                    for b in range(3):
                        sg += dcoef * dq[a, 3 + b] * G[i, b, k] + dq[a, 9 + b] * Tw[i, b, k]
                    if a < nr:
                        j_nr[e, a, col + k] = gx
                        j_nr[e, a, col + 3 + k] = sg
                    else:
                        j_rr[e, a - nr, col + k] = gx
                        j_rr[e, a - nr, col + 3 + k] = sg
