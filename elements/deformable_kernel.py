"""The compiled kernel of the deformable joints (elements/deformable.py, manual §9.2.2-9.2.5):
strains, law, node loads and the exact Jacobian of every instance in one call.

Per instance, with the notation of elements/deformable.py's docstring: ε = [d̃; θ],
ε̇ = [d̃̇; ω̄]; virtual strain map B = ∂ε̇/∂(v1, ω1, v2, ω2), C = ∂ε/∂(x1, θ1, x2, θ2),
Cr = ∂ε̇/∂(x1, θ1, x2, θ2) (6×12); law f(ε, ε̇) on the components [c0, c0 + dim) the type
uses (1-, 3- or 6-D `law_into`); node loads Bᵀ f; position partials Bᵀ(A C + Aᵈ Cr) + K
(K the geometric stiffness at fixed f), velocity partials Bᵀ Aᵈ B."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, set_block, add_block, chain_rule12, vload, mload, vadd, vsub, vscale, vnorm, vcross,
                                        eye3, skew, outer, mvec, mtvec, mmul, mtmul, mmult, mtrans, madd,
                                        msub, mscale, mdiag, exp_rotvec, log_rotvec, gamma_inv)
from mbdae.engine.core.constitutive import law_into

SMALL_HALF_TANGENT = 1e-3     # series branch of τ(s) = tan(s/4)/s


# ---------------------------------------------------------------- deformable joints
@kernel
def half_tangent_coefs(s):
    """τ(s) = tan(s/4)/s and τ'(s)/s, with series near s = 0 (u = τ(|θ|) θ)."""
    x2 = (s / 4.0) ** 2
    if s < SMALL_HALF_TANGENT:
        return 0.25 * (1.0 + x2 / 3.0 + 2.0 * x2 * x2 / 15.0), (2.0 / 3.0 + 8.0 * x2 / 15.0) / 64.0
    t = np.tan(s / 4.0)
    return t / s, (s * (1.0 + t * t) / 4.0 - t) / (s * s * s)


@kernel
def _law(L, j, eps, epsd, f, dK, dC):
    """Law j of the group L = (K, C, k2, k3, σ0, ε0, sK, sC, w) at (ε, ε̇), into f, dK, dC."""
    law_into(L[0], L[1], L[2], L[3], L[4], L[5], L[6], L[7], L[8], j, eps, epsd, f, dK, dC)


@kernel
def deformable_joints(dcoef, n1, n2, f1_local, f2_local, R1h, R2h, invariant, law_dim, law_row, comp0,
                      viscous, L1, L3, L6, x, v, R, w, G, Tw, want_jac, res, jac, info):
    """Every deformable joint: node loads res (ne, 12) and, when want_jac, the Jacobian blocks
    jac (ne, 12, 12) on (Δẋ1, Δġ1, Δẋ2, Δġ2).  Instance i uses the law law_row[i] of the
    group of its dimension law_dim[i] (L1, L3, L6: the groups' law_at inputs) on the strain
    components [comp0[i], comp0[i] + law_dim[i]).  When info has rows, row i receives
    ε, ε̇, f (law output on the 6 slots), F = R_f f_d, M = R_f f_θ and θ (27 values)."""
    B = np.empty((6, 12))
    C = np.empty((6, 12))
    Cr = np.empty((6, 12))
    Mq = np.empty((6, 12))
    Nv = np.empty((6, 12))
    dq = np.empty((12, 12))
    dV = np.empty((12, 12))
    eps = np.empty(6)
    epsd = np.empty(6)
    f6 = np.empty(6)
    # the laws' outputs, per dimension (written by law_into: no allocation per instance)
    fl6, A6, Ad6 = np.empty(6), np.empty((6, 6)), np.empty((6, 6))
    fl3, A3, Ad3 = np.empty(3), np.empty((3, 3)), np.empty((3, 3))
    fl1, A1, Ad1 = np.empty(1), np.empty((1, 1)), np.empty((1, 1))
    all_cols = np.arange(12)
    rotation_cols = np.array([3, 4, 5, 9, 10, 11])
    I3 = eye3()
    Z3 = mdiag(0.0)
    with_info = info.shape[0] > 0
    for i in range(len(n1)):
        a, b = n1[i], n2[i]
        x1, R1, v1, w1 = vload(x, a), mload(R, a), vload(v, a), vload(w, a)
        x2, R2, v2, w2 = vload(x, b), mload(R, b), vload(v, b), vload(w, b)
        f1 = mvec(R1, vload(f1_local, i))
        f2 = mvec(R2, vload(f2_local, i))
        E1 = mmul(R1, mload(R1h, i))                              # R1h of eq. 9.248a (global)
        E2 = mmul(R2, mload(R2h, i))
        th = log_rotvec(mtmul(E1, E2))                             # eq. 9.247
        Gi = gamma_inv(th)
        d = vsub(vsub(vadd(x2, f2), x1), f1)                       # eq. 9.318
        dd = vsub(vsub(vadd(v2, vcross(w2, f2)), v1), vcross(w1, f1))   # eq. 9.319
        dw = vsub(w2, w1)
        if invariant[i]:
            tau, dtau = half_tangent_coefs(vnorm(th))
            Rf = mmul(E1, exp_rotvec(vscale(0.5, th)))             # R̂ = R1h R̃ (eq. 9.264a)
            ux = skew(mvec(E1, vscale(tau, th)))                   # Î = ½(I - u×)
            P1 = mscale(0.5, madd(I3, ux))                         # Îᵀ
            P2 = mscale(0.5, msub(I3, ux))                         # Î
            wf = vadd(mvec(P1, w1), mvec(P2, w2))                  # eq. 9.302
            # δu = U1 θ1 + U2 θ2: u = R1h τ θ, δθ = Γ⁻¹R1hᵀ(θ2 - θ1)
            W = madd(mdiag(tau), mscale(dtau, outer(th, th)))
            U2 = mmult(mmul(mmul(E1, W), Gi), E1)
            U1 = msub(mscale(-1.0, ux), U2)
        else:
            Rf, P1, P2, wf, U1, U2 = E1, I3, Z3, w1, Z3, Z3
        Rft = mtrans(Rf)
        s_vec = vsub(dd, vcross(wf, d))
        ed = mtvec(Rf, d)
        esd = mtvec(Rf, s_vec)
        ewd = mtvec(Rf, dw)
        for k in range(3):
            eps[k] = ed[k]
            eps[3 + k] = th[k]
            epsd[k] = esd[k]
            epsd[3 + k] = ewd[k]
        f1x, f2x, dx = skew(f1), skew(f2), skew(d)
        mRft = mscale(-1.0, Rft)
        set_block(B, 0, 0, mRft)
        set_block(B, 0, 3, mmul(Rft, madd(f1x, mmul(dx, P1))))
        set_block(B, 0, 6, Rft)
        set_block(B, 0, 9, mmul(Rft, msub(mmul(dx, P2), f2x)))
        set_block(B, 3, 0, Z3)
        set_block(B, 3, 3, mRft)
        set_block(B, 3, 6, Z3)
        set_block(B, 3, 9, Rft)
        # the law on its components
        nd, c0, j = law_dim[i], comp0[i], law_row[i]
        if nd == 6:
            fl, A, Ad = fl6, A6, Ad6
            _law(L6, j, eps, epsd, fl, A, Ad)
        elif nd == 3:
            fl, A, Ad = fl3, A3, Ad3
            _law(L3, j, eps[c0:c0 + 3], epsd[c0:c0 + 3], fl, A, Ad)
        else:
            fl, A, Ad = fl1, A1, Ad1
            _law(L1, j, eps[c0:c0 + 1], epsd[c0:c0 + 1], fl, A, Ad)
        for l in range(12):
            s = 0.0
            for r in range(nd):
                s += B[c0 + r, l] * fl[r]
            res[i, l] = s
        for k in range(6):
            f6[k] = 0.0
        for r in range(nd):
            f6[c0 + r] = fl[r]
        Fl = (f6[0], f6[1], f6[2])
        Ml = (f6[3], f6[4], f6[5])
        F = mvec(Rf, Fl)
        M = mvec(Rf, Ml)
        if with_info:
            for k in range(3):
                info[i, k] = eps[k]
                info[i, 3 + k] = eps[3 + k]
                info[i, 6 + k] = epsd[k]
                info[i, 9 + k] = epsd[3 + k]
                info[i, 12 + k] = Fl[k]
                info[i, 15 + k] = Ml[k]
                info[i, 18 + k] = F[k]
                info[i, 21 + k] = M[k]
                info[i, 24 + k] = th[k]
        if not want_jac:
            continue
        # C = ∂ε/∂q: B with δθ = Γ⁻¹ R1hᵀ (θ2 - θ1) in the rotation rows
        GiE = mmult(Gi, E1)
        for r in range(3):
            for l in range(12):
                C[r, l] = B[r, l]
        set_block(C, 3, 0, Z3)
        set_block(C, 3, 3, mscale(-1.0, GiE))
        set_block(C, 3, 6, Z3)
        set_block(C, 3, 9, GiE)
        # Cr = ∂ε̇/∂q
        wfx, sx, dwx = skew(wf), skew(s_vec), skew(dw)
        h = mscale(0.5, mmul(dx, dwx))
        a1 = madd(madd(msub(mmul(skew(w1), f1x), mmul(wfx, f1x)), mmul(sx, P1)), mmul(h, U1))
        a2 = madd(madd(msub(mmul(wfx, f2x), mmul(skew(w2), f2x)), mmul(sx, P2)), mmul(h, U2))
        Rwf = mmul(Rft, wfx)
        set_block(Cr, 0, 0, Rwf)
        set_block(Cr, 0, 3, mmul(Rft, a1))
        set_block(Cr, 0, 6, mscale(-1.0, Rwf))
        set_block(Cr, 0, 9, mmul(Rft, a2))
        Rdw = mmul(Rft, dwx)
        set_block(Cr, 3, 0, Z3)
        set_block(Cr, 3, 3, mmul(Rdw, P1))
        set_block(Cr, 3, 6, Z3)
        set_block(Cr, 3, 9, mmul(Rdw, P2))
        # dq = Bᵀ (A C + Aᵈ Cr) over the law's components; the rotation rows of B, C and Cr
        # are zero on the translation columns (l % 6 < 3): there only the d̃ rows count, and
        # rotation-only laws fill just the θ rows and columns
        cols = all_cols
        if c0 >= 3:
            cols = rotation_cols
            dq[:, :] = 0.0
            dV[:, :] = 0.0
        nt = max(0, min(nd, 3 - c0))          # the law's components in the d̃ rows
        for r in range(nd):
            for l in cols:
                s = 0.0
                for c in range(nd if l % 6 >= 3 else nt):
                    s += A[r, c] * C[c0 + c, l] + Ad[r, c] * Cr[c0 + c, l]
                Mq[r, l] = s
        for jj in cols:
            for l in cols:
                s = 0.0
                for r in range(nd if jj % 6 >= 3 else nt):
                    s += B[c0 + r, jj] * Mq[r, l]
                dq[jj, l] = s
        # geometric stiffness K = ∂(Bᵀ f)/∂(x1, θ1, x2, θ2) at fixed f
        Fx, Mx = skew(F), skew(M)
        P1t, P2t = mtrans(P1), mtrans(P2)
        FP1 = mmul(Fx, P1)
        FP2 = mmul(Fx, P2)
        dF = mmul(dx, Fx)
        Fa = madd(madd(mmul(f1x, Fx), mmul(P1t, dF)), Mx)        # r_θ1 through θ_f
        Fb = msub(madd(mscale(-1.0, mmul(f2x, Fx)), mmul(P2t, dF)), Mx)   # r_θ2 through θ_f
        P1F = mmul(P1t, Fx)
        P2F = mmul(P2t, Fx)
        hF = mscale(0.5, skew(vcross(F, d)))                       # δÎ (eq. 9.287) through δu
        hU1 = mmul(hF, U1)
        hU2 = mmul(hF, U2)
        add_block(dq, 0, 3, FP1, 1.0)
        add_block(dq, 0, 9, FP2, 1.0)
        add_block(dq, 6, 3, FP1, -1.0)
        add_block(dq, 6, 9, FP2, -1.0)
        add_block(dq, 3, 0, P1F, -1.0)
        add_block(dq, 3, 6, P1F, 1.0)
        add_block(dq, 3, 3, madd(msub(mmul(Fa, P1), mmul(Fx, f1x)), madd(mmul(P1F, f1x), hU1)), 1.0)
        add_block(dq, 3, 9, madd(msub(mmul(Fa, P2), mmul(P1F, f2x)), hU2), 1.0)
        add_block(dq, 9, 0, P2F, -1.0)
        add_block(dq, 9, 6, P2F, 1.0)
        add_block(dq, 9, 3, msub(madd(mmul(Fb, P1), mmul(P2F, f1x)), hU1), 1.0)
        add_block(dq, 9, 9, msub(msub(madd(mmul(Fb, P2), mmul(Fx, f2x)), mmul(P2F, f2x)), hU2), 1.0)
        # dV = Bᵀ Aᵈ B
        if viscous[i]:
            for r in range(nd):
                for l in cols:
                    s = 0.0
                    for c in range(nd if l % 6 >= 3 else nt):
                        s += Ad[r, c] * B[c0 + c, l]
                    Nv[r, l] = s
            for jj in cols:
                for l in cols:
                    s = 0.0
                    for r in range(nd if jj % 6 >= 3 else nt):
                        s += B[c0 + r, jj] * Nv[r, l]
                    dV[jj, l] = s
        chain_rule12(jac[i], dq, dV, viscous[i], dcoef, mload(G, a), mload(G, b), mload(Tw, a), mload(Tw, b))

