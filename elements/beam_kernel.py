"""The compiled kernel of the finite-volume beams (elements/beam.py, manual ch. 10): the node
loads of every beam of a family, their Jacobian and, on request, the section quantities at
the evaluation points, in one call.  The formulas are those of elements/beam.py's docstring;
`beam_equations` documents the Jacobian's chain rule.

Values: 3-vectors and 3×3 matrices as tuples (engine/core/compiled.py); a 6×3 block of the
section's 6-D quantities is a pair (top, bottom) of 3×3 matrices.  Per-node values of the
element in hand (at most three nodes) sit in small scratch arrays allocated once per call."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, get_block, set_block, vload, mload, vstore, mstore, vadd, vsub, vscale, vdot,
                                        vcross, zero3, eye3, skew, mvec, mtvec, mmul, mmult, madd, msub,
                                        mscale, log_rotvec, gamma_inv)
from mbdae.engine.core.constitutive import law_into
from mbdae.elements.hbeam_kernel import screw_coefficients


@kernel
def _load2(a, e, k):
    """a[e, k] of an (n, m, 3) array as a vector."""
    return (a[e, k, 0], a[e, k, 1], a[e, k, 2])


@kernel
def _mload2(A, e, k):
    """A[e, k] of an (n, m, 3, 3) array as a matrix."""
    return ((A[e, k, 0, 0], A[e, k, 0, 1], A[e, k, 0, 2]), (A[e, k, 1, 0], A[e, k, 1, 1], A[e, k, 1, 2]),
            (A[e, k, 2, 0], A[e, k, 2, 1], A[e, k, 2, 2]))


@kernel
def _spatial(R, D, r0, c0):
    """R D[r0:r0+3, c0:c0+3] Rᵀ (a 3×3 block of the section matrix in the global frame)."""
    return mmult(mmul(R, get_block(D, r0, c0)), R)


@kernel
def _combine(a, A, b, B):
    """a A + b B."""
    return madd(mscale(a, A), mscale(b, B))


@kernel
def _put(X, c0, top, bottom):
    """X[0:3, c0:c0+3] = top, X[3:6, c0:c0+3] = bottom (a 6×3 block of a 6-row array)."""
    set_block(X, 0, c0, top)
    set_block(X, 3, c0, bottom)


@kernel
def _put_point(Y, J, c0, top, bottom):
    """Y[J, 0:3, c0:c0+3] = top, Y[J, 3:6, c0:c0+3] = bottom."""
    for i in range(3):
        for j in range(3):
            Y[J, i, c0 + j] = top[i][j]
            Y[J, 3 + i, c0 + j] = bottom[i][j]


@kernel
def point_jacobian(incremental, viscous, offsets, dcoef, ref, e, J, nidx, N, dNs, RJ, D, Dv, L, F, M,
                   Gm, S, S2, phiJ, dphiJ, b, c_, bp, cp, gJ, dgJ, cc, expJ, kv, av, wJ, dwJ, o, H, HE,
                   Tth, wn, Tw, P, B, Y):
    """Evaluation point J's columns of element e's matrix (see beam_equations): the point's
    loads (δF_J, δM_J) as 6×3 factors of θ_J, θ'_J, δp'_J (and of the velocities), kept in the
    scratch arrays P (6, 6) and B (6, 15), expanded by node into Y[J] (6, 6 NN) on the
    Newton increments of the element's nodes (node_rows maps them to the node rows)."""
    NN = nidx.shape[1]
    NX = 3 * NN
    I3 = eye3()
    # section stiffness in the global frame and the 6×3 factors of θ_J, δp'_J
    C11, C12 = _spatial(RJ, D, 0, 0), _spatial(RJ, D, 0, 3)
    C21, C22 = _spatial(RJ, D, 3, 0), _spatial(RJ, D, 3, 3)
    Lx, Fx = skew(L), skew(F)
    TUt = msub(mmul(C11, Lx), Fx)                            # multiplies θ_J
    TUb = msub(mmul(C21, Lx), skew(M))
    if viscous:
        V11, V12 = _spatial(RJ, Dv, 0, 0), _spatial(RJ, Dv, 0, 3)
        V21, V22 = _spatial(RJ, Dv, 3, 0), _spatial(RJ, Dv, 3, 3)
        ax, dwx = skew(av), skew(dwJ)
        TUt = madd(madd(TUt, mmul(V11, ax)), mmul(V12, dwx))
        TUb = madd(madd(TUb, mmul(V21, ax)), mmul(V22, dwx))
        wJx = skew(wJ)
        _put(B, 0, msub(C11, mmul(V11, wJx)), msub(C21, mmul(V21, wJx)))     # multiplies δp'_J
        _put(B, 3, V11, V21)                                 # δṗ'_J
        _put(B, 6, mmul(V11, Lx), mmul(V21, Lx))             # δω_J
        _put(B, 9, V12, V22)                                 # δω'_J
    else:
        _put(B, 0, C11, C21)
    # dΓ_J in the direction of the interpolated derivative (total: of φ'_J, incremental: g'_J)
    if incremental:
        MG = madd(mscale(-0.5 * cc * cc * vdot(gJ, dgJ), madd(I3, mscale(0.5, S))), mscale(0.5 * cc, skew(dgJ)))
    else:
        pd = vdot(phiJ, dphiJ)
        A = skew(dphiJ)
        MG = madd(madd(madd(mscale(bp * pd, S), mscale(b, A)), mscale(cp * pd, S2)),
                  mscale(c_, madd(mmul(A, S), mmul(S, A))))
    # [θ_J, θ'_J] ↦ loads: P = [TU Γ + Cr dΓ, Cr Γ]
    _put(P, 0, madd(mmul(TUt, Gm), mmul(C12, MG)), madd(mmul(TUb, Gm), mmul(C22, MG)))
    _put(P, 3, mmul(C12, Gm), mmul(C22, Gm))
    if not incremental:
        # the reference node's column: (TU + Cr k×) exp(φ_J) - P [Σ_k N_Jk H_k E_k; Σ_k dN_Jk H_k E_k]
        SHt = SHb = mscale(0.0, I3)
        for k in range(NN):
            if k != ref:
                HEk = mload(HE, k)
                SHt = madd(SHt, mscale(N[J, k], HEk))
                SHb = madd(SHb, mscale(dNs[e, J, k], HEk))
        kx = skew(kv)
        P0t = madd(TUt, mmul(C12, kx))
        P0b = madd(TUb, mmul(C22, kx))
        _put(B, 12, msub(mmul(P0t, expJ), madd(mmul(get_block(P, 0, 0), SHt), mmul(get_block(P, 0, 3), SHb))),
             msub(mmul(P0b, expJ), madd(mmul(get_block(P, 3, 0), SHt), mmul(get_block(P, 3, 3), SHb))))
    for k in range(NN):
        n = nidx[e, k]
        Nk, dk = N[J, k], dNs[e, J, k]
        Tk = mload(Tth, k)
        # Δẋ columns: δp'_J through Cx, -F_J×δp_J on the moment rows
        Xt = mscale(dk, get_block(B, 0, 0))
        Xb = msub(mscale(dk, get_block(B, 3, 0)), mscale(Nk, Fx))
        # Δġ columns
        if incremental:
            Vt = mscale(dcoef, _combine(Nk, get_block(P, 0, 0), dk, get_block(P, 0, 3)))
            Vb = mscale(dcoef, _combine(Nk, get_block(P, 3, 0), dk, get_block(P, 3, 3)))
        elif k == ref:
            Vt, Vb = mmul(get_block(B, 0, 12), Tk), mmul(get_block(B, 3, 12), Tk)
        else:
            HT = mmul(mload(H, k), Tk)
            Vt = mmul(_combine(Nk, get_block(P, 0, 0), dk, get_block(P, 0, 3)), HT)
            Vb = mmul(_combine(Nk, get_block(P, 3, 0), dk, get_block(P, 3, 3)), HT)
        Ok = skew(vload(o, k))
        if offsets:                                          # δy_k = δx_k - o_k×θ_k
            OT = mmul(Ok, Tk)
            Vt = msub(Vt, mmul(Xt, OT))
            Vb = msub(Vb, mmul(Xb, OT))
        Yxt, Yxb = mscale(dcoef, Xt), mscale(dcoef, Xb)
        if viscous:
            # velocity columns: δṗ'_J = Σ dN_Jk (δv_k - o_k×δω_k), δω_J = Σ N_Jk δω_k, δω'_J
            Twk = mload(Tw, n)
            Xvt, Xvb = mscale(dk, get_block(B, 0, 3)), mscale(dk, get_block(B, 3, 3))
            Vt = madd(Vt, mmul(_combine(Nk, get_block(B, 0, 6), dk, get_block(B, 0, 9)), Twk))
            Vb = madd(Vb, mmul(_combine(Nk, get_block(B, 3, 6), dk, get_block(B, 3, 9)), Twk))
            if offsets:                                      # δẏ_k = δv_k - ω_k×(o_k×θ_k) - o_k×δω_k
                Mo = madd(mmul(Ok, Twk), mmul(mmul(skew(vload(wn, n)), Ok), Tk))
                Vt = msub(Vt, mmul(Xvt, Mo))
                Vb = msub(Vb, mmul(Xvb, Mo))
            Yxt, Yxb = madd(Yxt, Xvt), madd(Yxb, Xvb)
        _put_point(Y, J, 3 * k, Yxt, Yxb)
        _put_point(Y, J, NX + 3 * k, Vt, Vb)


@kernel
def node_rows(e, W, pJ, xh, sFQ, dcoef, Y, jac):
    """Element e's matrix from its points' columns Y (NP, 6, 6 NN): node i's rows
    -Σ_J W_iJ [Y_J top; (p_J - x_i)× Y_J top + Y_J bottom] (pJ: the points p_J, xh: the nodes,
    both relative to the reference node), and + (Σ_J W_iJ F_J) × δx_i on node i's moment rows."""
    NN, NP = W.shape
    for i in range(NN):
        r = 6 * i
        for c in range(6 * NN):
            t0 = t1 = t2 = m0 = m1 = m2 = 0.0
            for J in range(NP):
                wi = W[i, J]
                if wi == 0.0:
                    continue
                a0, a1, a2 = pJ[J, 0] - xh[i, 0], pJ[J, 1] - xh[i, 1], pJ[J, 2] - xh[i, 2]
                y0, y1, y2 = Y[J, 0, c], Y[J, 1, c], Y[J, 2, c]
                t0 += wi * y0
                t1 += wi * y1
                t2 += wi * y2
                m0 += wi * (a1 * y2 - a2 * y1 + Y[J, 3, c])
                m1 += wi * (a2 * y0 - a0 * y2 + Y[J, 4, c])
                m2 += wi * (a0 * y1 - a1 * y0 + Y[J, 5, c])
            jac[e, r, c] = -t0
            jac[e, r + 1, c] = -t1
            jac[e, r + 2, c] = -t2
            jac[e, r + 3, c] = -m0
            jac[e, r + 4, c] = -m1
            jac[e, r + 5, c] = -m2
        sFx = skew((sFQ[i, 0], sFQ[i, 1], sFQ[i, 2]))
        for a in range(3):
            for b in range(3):
                jac[e, r + 3 + a, 3 * i + b] -= dcoef * sFx[a][b]


@kernel
def beam_equations(incremental, viscous, offsets, dcoef, ref, nidx, W, N, dNs, f_local, Rh, Csec, R_prev,
                   eps0, kappa_ref, K, C, k2, k3, sigma0, e0, sK, sC, w, x, v, R, wn, g, G, Tw,
                   want_jac, want_out, res, jac, out_strain, out_rate, out_f, out_FM, out_R, out_p):
    """Node loads (res, (ne, 6 NN): per node force, moment) of the beams with nodes `nidx`
    (ne, NN; `ref` the reference node), evaluation points with shape functions N (NP, NN),
    dN/ds (ne, NP, NN) and finite-volume weights W (NN, NP); unless `want_jac` is False, the
    element matrices jac (ne, 6 NN, 6 NN) on the Newton increments, columns (Δẋ_k for all k,
    then Δġ_k for all k); with `want_out`, per point the strains (ε, κ) and rates (section
    frame), the law's section loads f, the loads (F, M) = R f in the global frame, the
    section frame R and the point of the reference line relative to the reference node.

    Kinematics (incremental False: total form, node frames R_k Rh_k, section frames
    exp(φ_J) R̄_r Csec_J; True: R(g_J) R_prev_J), strains ε = Rᵀp' - ε₀ and κ = Rᵀ Γ φ' - κ₀
    (incremental: + κ_prev, passed as kappa_ref), rates Rᵀ(ṗ' - ω×p'), Rᵀω' when `viscous`;
    the section law is constitutive.law_into with law index e·NP + J (its arrays K … w).

    Jacobian: the rotation field θ_J = Σ A_Jk θ_k, θ'_J = Σ B_Jk θ_k with A_Jk = N_Jk Γ_J H_k,
    B_Jk = (N_Jk dΓ_J + dN_Jk Γ_J) H_k (H_k = Γ(φ_k)⁻¹; incremental: G, dG and G(g_k)⁻¹, whose
    product with T_θk = dCoef G(g_k) is dCoef I); the total form's reference node gets
    exp(φ_J) - Σ_k A_Jk E_k (and k_J× exp(φ_J) - Σ_k B_Jk E_k).  Section loads:
    δF_J = -F_J×θ_J + C11(δp'_J + p'_J×θ_J) + C12 θ'_J, δM_J likewise with C21, C22
    (C = R D Rᵀ; viscous terms from δε̇, δκ̇ with Cᵛ = R Dᵥ Rᵀ).  Node i rows:
    Σ_J W_iJ [δF_J; δM_J + (p_J - x_i)×δF_J - F_J×(δp_J - δx_i)], with δp_J = Σ N_Jk (δx_k -
    o_k×θ_k) for node offsets o_k; the node chain rule (G8: dCoef on Δẋ, T_θ = dCoef G on Δġ,
    T_ω on the velocity part) is applied per node column."""
    ne, NN = nidx.shape
    NP = N.shape[0]
    NX = 3 * NN                               # first Δġ column
    # per-element scratch (node values), allocated once per call
    xh = np.empty((NN, 3))                    # x_k - x_ref
    yh = np.empty((NN, 3))                    # reference line nodes y_k - x_ref
    o = np.zeros((NN, 3))                     # offsets R_k f̃_k
    phi = np.zeros((NN, 3))                   # total form: φ_k = log(R̄_k R̄_refᵀ)
    HE = np.empty((NN, 3, 3))                 # Γ(φ_k)⁻¹ R̄_k R̄_refᵀ
    H = np.empty((NN, 3, 3))                  # Γ(φ_k)⁻¹
    Tth = np.empty((NN, 3, 3))                # dCoef G_k
    sFQ = np.empty((NN, 6))                   # Σ_J W_kJ (F_J, M_J + p̂_J×F_J)
    eps = np.empty(6)                         # the law's inputs and outputs (law_into)
    epsd = np.zeros(6)
    fl, D, Dv = np.empty(6), np.empty((6, 6)), np.empty((6, 6))
    P = np.empty((6, 6))                      # per point: [TU Γ + Cr dΓ, Cr Γ]
    B = np.empty((6, 15))                     # per point: 6×3 factors (point_jacobian)
    Y = np.empty((NP, 6, 6 * NN))             # per point: its loads' columns (point_jacobian)
    pJ = np.empty((NP, 3))                    # per point: p_J - x_ref
    I3 = eye3()
    for e in range(ne):
        nr = nidx[e, ref]
        xr = vload(x, nr)
        for k in range(NN):
            n = nidx[e, k]
            xhk = vsub(vload(x, n), xr)
            vstore(xh, k, xhk)
            if offsets:
                ok = mvec(mload(R, n), _load2(f_local, e, k))
                vstore(o, k, ok)
                vstore(yh, k, vadd(xhk, ok))
            else:
                vstore(yh, k, xhk)
            if want_jac:
                mstore(Tth, k, mscale(dcoef, mload(G, n)))
            for c in range(6):
                sFQ[k, c] = 0.0
        Rr = I3
        if not incremental:
            Rr = mmul(mload(R, nr), _mload2(Rh, e, ref))
            for k in range(NN):
                if k == ref:
                    continue
                Ek = mmult(mmul(mload(R, nidx[e, k]), _mload2(Rh, e, k)), Rr)
                phik = log_rotvec(Ek)
                vstore(phi, k, phik)
                if want_jac:
                    Hk = gamma_inv(phik)
                    mstore(H, k, Hk)
                    mstore(HE, k, mmul(Hk, Ek))
        for J in range(NP):
            # reference line: p̂_J = Σ N_Jk ŷ_k, p'_J = Σ dN_Jk ŷ_k
            ph, L = zero3(), zero3()
            for k in range(NN):
                yk = vload(yh, k)
                ph = vadd(ph, vscale(N[J, k], yk))
                L = vadd(L, vscale(dNs[e, J, k], yk))
            vstore(pJ, J, ph)
            # section frame R_J, Γ_J and the curvature vector k_J = Γ_J φ'_J
            if incremental:
                gJ, dgJ = zero3(), zero3()
                for k in range(NN):
                    gk = vload(g, nidx[e, k])
                    gJ = vadd(gJ, vscale(N[J, k], gk))
                    dgJ = vadd(dgJ, vscale(dNs[e, J, k], gk))
                cc = 4.0 / (4.0 + vdot(gJ, gJ))
                S = skew(gJ)
                S2 = mmul(S, S)
                RJ = mmul(madd(I3, mscale(cc, madd(S, mscale(0.5, S2)))), _mload2(R_prev, e, J))
                Gm = mscale(cc, madd(I3, mscale(0.5, S)))
                kv = mvec(Gm, dgJ)
                kap = vadd(mtvec(RJ, kv), _load2(kappa_ref, e, J))
                expJ = I3
                phiJ = dphiJ = zero3()
                b = c_ = bp = cp = 0.0
            else:
                phiJ, dphiJ = zero3(), zero3()
                for k in range(NN):
                    if k != ref:
                        pk = vload(phi, k)
                        phiJ = vadd(phiJ, vscale(N[J, k], pk))
                        dphiJ = vadd(dphiJ, vscale(dNs[e, J, k], pk))
                a, b, c_, bp, cp = screw_coefficients(phiJ)
                S = skew(phiJ)
                S2 = mmul(S, S)
                expJ = madd(madd(I3, mscale(a, S)), mscale(b, S2))
                Gm = madd(madd(I3, mscale(b, S)), mscale(c_, S2))
                RJ = mmul(mmul(expJ, Rr), _mload2(Csec, e, J))
                kv = mvec(Gm, dphiJ)
                kap = vsub(mtvec(RJ, kv), _load2(kappa_ref, e, J))
                gJ = dgJ = zero3()
                cc = 0.0
            epsv = vsub(mtvec(RJ, L), _load2(eps0, e, J))
            # strain rates: ṗ' - ω_J×p' and ω'_J with ω interpolated from the nodes
            av = wJ = dwJ = zero3()
            if viscous:
                Ld = zero3()
                for k in range(NN):
                    n = nidx[e, k]
                    wk = vload(wn, n)
                    ydk = vload(v, n)
                    if offsets:
                        ydk = vadd(ydk, vcross(wk, vload(o, k)))
                    Ld = vadd(Ld, vscale(dNs[e, J, k], ydk))
                    wJ = vadd(wJ, vscale(N[J, k], wk))
                    dwJ = vadd(dwJ, vscale(dNs[e, J, k], wk))
                av = vsub(Ld, vcross(wJ, L))
                ra, rk = mtvec(RJ, av), mtvec(RJ, dwJ)
                for c in range(3):
                    epsd[c] = ra[c]
                    epsd[3 + c] = rk[c]
            for c in range(3):
                eps[c] = epsv[c]
                eps[3 + c] = kap[c]
            law_into(K, C, k2, k3, sigma0, e0, sK, sC, w, e * NP + J, eps, epsd, fl, D, Dv)
            F = mvec(RJ, (fl[0], fl[1], fl[2]))
            M = mvec(RJ, (fl[3], fl[4], fl[5]))
            Q = vadd(M, vcross(ph, F))
            for i in range(NN):
                wi = W[i, J]
                for c in range(3):
                    sFQ[i, c] += wi * F[c]
                    sFQ[i, 3 + c] += wi * Q[c]
            if want_out:
                for c in range(6):
                    out_strain[e, J, c] = eps[c]
                    out_rate[e, J, c] = epsd[c]
                    out_f[e, J, c] = fl[c]
                for c in range(3):
                    out_FM[e, J, c] = F[c]
                    out_FM[e, J, 3 + c] = M[c]
                    out_p[e, J, c] = ph[c]
                    for d in range(3):
                        out_R[e, J, c, d] = RJ[c][d]
            if want_jac:
                point_jacobian(incremental, viscous, offsets, dcoef, ref, e, J, nidx, N, dNs, RJ, D, Dv,
                               L, F, M, Gm, S, S2, phiJ, dphiJ, b, c_, bp, cp, gJ, dgJ, cc, expJ, kv,
                               av, wJ, dwJ, o, H, HE, Tth, wn, Tw, P, B, Y)
        # node k: -Σ_J W_kJ (F_J, M_J + (p_J - x_k)×F_J)
        for k in range(NN):
            sF = (sFQ[k, 0], sFQ[k, 1], sFQ[k, 2])
            mk = vadd(vscale(-1.0, (sFQ[k, 3], sFQ[k, 4], sFQ[k, 5])), vcross(vload(xh, k), sF))
            for c in range(3):
                res[e, 6 * k + c] = -sF[c]
                res[e, 6 * k + 3 + c] = mk[c]
        if want_jac:
            node_rows(e, W, pJ, xh, sFQ, dcoef, Y, jac)
