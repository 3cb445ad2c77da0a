"""The compiled kernel of the helicoidal two-node beam (elements/hbeam.py, MBDyn's hbeam):
screw logarithm strains, the section law at the mid-point, node loads and the exact Jacobian
of every instance in one call.

Variations are 3×12 matrices on the node perturbations (δx₁, θ₁, δx₂, θ₂), held as four
3×3 blocks (tuples of matrices, one per node unknown group); the law's 6×6 derivatives
multiply the 6×12 strain maps in scratch arrays allocated once per call."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, get_block, set_block, chain_rule12, vload, mload, vadd, vsub, vscale, vdot, vcross, skew, outer,
                                        mvec, mtvec, mmul, mtmul, mtrans, madd, msub, mscale, mdiag, eye3, eye_plus,
                                        log_rotvec, gamma_inv)
from mbdae.engine.core.constitutive import law_into

SMALL_SCREW2 = 0.05 ** 2      # φ² below which the coefficients come from their series
# series in φ² (powers 0..3) of a = sin φ/φ, b = (1 - cos φ)/φ², c = (φ - sin φ)/φ³ and of
# (db/dφ)/φ, (dc/dφ)/φ (truncation below 1e-16 under φ = 0.05)
A0, A1, A2, A3 = 1.0, -1 / 6, 1 / 120, -1 / 5040
B0, B1, B2, B3 = 1 / 2, -1 / 24, 1 / 720, -1 / 40320
C0, C1, C2, C3 = 1 / 6, -1 / 120, 1 / 5040, -1 / 362880
D0, D1, D2, D3 = -1 / 12, 1 / 180, -1 / 6720, 1 / 453600
E0, E1, E2, E3 = -1 / 60, 1 / 1260, -1 / 60480, 1 / 4989600


@kernel
def screw_coefficients(phi):
    """a, b, c, (db/dφ)/φ, (dc/dφ)/φ of the rotation vector φ (exp(φ×) = I + a φ× + b φ×φ×,
    Γ(φ) = I + b φ× + c φ×φ×, manual eq. 4.8)."""
    p2 = vdot(phi, phi)
    if p2 < SMALL_SCREW2:
        return (((A3 * p2 + A2) * p2 + A1) * p2 + A0, ((B3 * p2 + B2) * p2 + B1) * p2 + B0,
                ((C3 * p2 + C2) * p2 + C1) * p2 + C0, ((D3 * p2 + D2) * p2 + D1) * p2 + D0,
                ((E3 * p2 + E2) * p2 + E1) * p2 + E0)
    q = np.sqrt(p2)
    sq, cq = np.sin(q), np.cos(q)
    omc = 1.0 - cq
    qms = q - sq
    q2 = q * q
    return (sq / q, omc / q2, qms / (q2 * q), (q * sq - 2.0 * omc) / (q2 * q2),
            (omc * q - 3.0 * qms) / (q2 * q2 * q))


@kernel
def gamma_derivative_times(phi, r):
    """Q with dΓ(φ)[δ] r = Q δ: Γ = I + b φ× + c φ×φ×, so
    Q = b' (φ×r) φᵀ - b r× + c' (φ×(φ×r)) φᵀ - c ((φ×r)× + φ× r×), b' = (db/dφ)/φ, c' likewise."""
    _, b, c, bp, cp = screw_coefficients(phi)
    pr = vcross(phi, r)
    ppr = vcross(phi, pr)
    return msub(madd(msub(mscale(bp, outer(pr, phi)), mscale(b, skew(r))), mscale(cp, outer(ppr, phi))),
                mscale(c, madd(skew(pr), mmul(skew(phi), skew(r)))))


@kernel
def screw_log(x1, Rn1, x2, Rn2, f1, f2, Rh1, Rh2):
    """End poses y_k = x_k + R_k f̃_k, R̄_k = R_k R_hk and the screw logarithm of A₁⁻¹A₂:
    φ = log(R̄₁ᵀR̄₂), ρ = Γ(φ)⁻¹ R̄₁ᵀ(y₂ - y₁).  Returns (o₁, o₂, R̄₁, φ, y₂ - y₁, Γ(φ)⁻¹, ρ)
    with o_k = R_k f̃_k."""
    o1 = mvec(Rn1, f1)
    o2 = mvec(Rn2, f2)
    R1 = mmul(Rn1, Rh1)
    phi = log_rotvec(mtmul(R1, mmul(Rn2, Rh2)))
    Dy = vsub(vadd(x2, o2), vadd(x1, o1))
    Ginv = gamma_inv(phi)
    return o1, o2, R1, phi, Dy, Ginv, mvec(Ginv, mtvec(R1, Dy))


@kernel
def screw_logarithms(x, R, n1, n2, f, Rh, eta):
    """η = (ρ, φ) of every beam at the node poses x, R, written into eta (ne, 6)."""
    for i in range(len(n1)):
        a, b = n1[i], n2[i]
        _, _, _, phi, _, _, rho = screw_log(vload(x, a), mload(R, a), vload(x, b), mload(R, b),
                                            vload(f[i], 0), vload(f[i], 1), mload(Rh[i], 0), mload(Rh[i], 1))
        for k in range(3):
            eta[i, k] = rho[k]
            eta[i, 3 + k] = phi[k]


# ---------------------------------------------------------------- 3×12 rows as four 3×3 blocks
@kernel
def rmul(A, X):
    """A X for a 3×3 A and a 3×12 X."""
    return (mmul(A, X[0]), mmul(A, X[1]), mmul(A, X[2]), mmul(A, X[3]))


@kernel
def radd(X, Y):
    return (madd(X[0], Y[0]), madd(X[1], Y[1]), madd(X[2], Y[2]), madd(X[3], Y[3]))


@kernel
def rsub(X, Y):
    return (msub(X[0], Y[0]), msub(X[1], Y[1]), msub(X[2], Y[2]), msub(X[3], Y[3]))


@kernel
def rstore(M, r0, s, X):
    """M[r0:r0+3, :] = s X."""
    for k in range(4):
        set_block(M, r0, 3 * k, mscale(s, X[k]))


@kernel
def rload(M, r0):
    """M[r0:r0+3, :] as four blocks."""
    return (get_block(M, r0, 0), get_block(M, r0, 3), get_block(M, r0, 6), get_block(M, r0, 9))


@kernel
def law_times(D, X, out):
    """out (6, 12) = D (6, 6) X (6, 12)."""
    for r in range(6):
        for l in range(12):
            s = 0.0
            for c in range(6):
                s += D[r, c] * X[c, l]
            out[r, l] = s


@kernel
def node_partials(J, dfd, Rs, Fx, Mx, Bths, Bp1, Bp2, ax1, ax2, geometric):
    """J (12, 12) = ∂[-F, -M₁, F, M₂]/∂q from the law's δf (6, 12) in the section frame:
    δF = R δf_F (- F× δθ_s), δM = R δf_M (- M× δθ_s), δM_k = δM + (p - x_k)× δF (- F× δ(p - x_k)),
    the terms in brackets when `geometric` (position partials; Bp_k = δ(p - x_k))."""
    dF = rmul(Rs, rload(dfd, 0))
    dM = rmul(Rs, rload(dfd, 3))
    if geometric:
        dF = rsub(dF, rmul(Fx, Bths))
        dM = rsub(dM, rmul(Mx, Bths))
    dM1 = radd(dM, rmul(ax1, dF))
    dM2 = radd(dM, rmul(ax2, dF))
    if geometric:
        dM1 = rsub(dM1, rmul(Fx, Bp1))
        dM2 = rsub(dM2, rmul(Fx, Bp2))
    rstore(J, 0, -1.0, dF)
    rstore(J, 3, -1.0, dM1)
    rstore(J, 6, 1.0, dF)
    rstore(J, 9, 1.0, dM2)


@kernel
def helicoidal_beams(dcoef, n1, n2, f, Rh, ell, eta0, viscous, K, C, k2, k3, sigma0, e0, sK, sC, w_law,
                     x, v, R, w, G, Tw, want_jac, res, jac, info):
    """Every hbeam (elements/hbeam.py's docstring): node loads res (ne, 12) = [-F, -M₁, F, M₂]
    and, when want_jac, the Jacobian blocks jac (ne, 12, 12) on (Δẋ1, Δġ1, Δẋ2, Δġ2).
    `viscous`: the strain rates are computed (else zero).  When info has rows, row i
    receives the strain e and its rate (section frame), the law output f, F, M (global),
    the mid-point p and the section frame R(½) by rows (36 values)."""
    strain = np.empty(6)
    rate = np.empty(6)
    fl, D, Dv = np.empty(6), np.empty((6, 6)), np.empty((6, 6))      # the law's outputs (law_into)
    Be = np.empty((6, 12))
    Bv = np.empty((6, 12))
    dfd = np.empty((6, 12))
    dfv = np.empty((6, 12))
    dq = np.empty((12, 12))
    dV = np.empty((12, 12))
    I3 = eye3()
    Z3 = mdiag(0.0)
    with_info = info.shape[0] > 0
    for i in range(len(n1)):
        a, b = n1[i], n2[i]
        x1, x2 = vload(x, a), vload(x, b)
        o1, o2, R1, phi, Dy, Ginv, rho = screw_log(x1, mload(R, a), x2, mload(R, b), vload(f[i], 0),
                                                   vload(f[i], 1), mload(Rh[i], 0), mload(Rh[i], 1))
        hphi = vscale(0.5, phi)
        ah, bh, ch, _, _ = screw_coefficients(hphi)
        Sh = skew(hphi)
        Gh = eye_plus(bh, Sh, ch)                                  # Γ(φ/2)
        u = vscale(0.5, mvec(Gh, rho))                             # p(½) - y₁ in frame 1
        Rs = mmul(R1, eye_plus(ah, Sh, bh))                        # section frame R(½) = R̄₁ exp(φ/2)
        R1u = mvec(R1, u)
        p = vadd(vadd(x1, o1), R1u)
        li = 1.0 / ell[i]
        for k in range(3):
            strain[k] = (rho[k] - eta0[i, k]) / ell[i]
            strain[3 + k] = (phi[k] - eta0[i, 3 + k]) / ell[i]
        w1, w2 = vload(w, a), vload(w, b)
        wbar = vscale(0.5, vadd(w1, w2))
        va = vsub(vsub(vadd(vload(v, b), vcross(w2, o2)), vadd(vload(v, a), vcross(w1, o1))), vcross(wbar, Dy))
        vc = vsub(w2, w1)
        if viscous:
            ra = mtvec(Rs, va)
            rc = mtvec(Rs, vc)
            for k in range(3):
                rate[k] = ra[k] / ell[i]
                rate[3 + k] = rc[k] / ell[i]
        else:
            for k in range(6):
                rate[k] = 0.0
        law_into(K, C, k2, k3, sigma0, e0, sK, sC, w_law, i, strain, rate, fl, D, Dv)
        F = mvec(Rs, (fl[0], fl[1], fl[2]))
        M = mvec(Rs, (fl[3], fl[4], fl[5]))
        ax1 = vsub(p, x1)
        ax2 = vsub(p, x2)
        M1 = vadd(M, vcross(ax1, F))
        M2 = vadd(M, vcross(ax2, F))
        for k in range(3):
            res[i, k] = -F[k]
            res[i, 3 + k] = -M1[k]
            res[i, 6 + k] = F[k]
            res[i, 9 + k] = M2[k]
        if with_info:
            for k in range(6):
                info[i, k] = strain[k]
                info[i, 6 + k] = rate[k]
                info[i, 12 + k] = fl[k]
            for k in range(3):
                info[i, 18 + k] = F[k]
                info[i, 21 + k] = M[k]
                info[i, 24 + k] = p[k]
                for l in range(3):
                    info[i, 27 + 3 * k + l] = Rs[k][l]
        if not want_jac:
            continue
        # variations on (δx₁, θ₁, δx₂, θ₂) (δR_k = θ_k× R_k, δy_k = δx_k - o_k× θ_k)
        o1x, o2x = skew(o1), skew(o2)
        X = mmul(Ginv, mtrans(R1))                                # Γ⁻¹ R̄₁ᵀ
        mX = mscale(-1.0, X)
        Bphi = (Z3, mX, Z3, X)                                     # δφ = Γ⁻¹ R̄₁ᵀ (θ₂ - θ₁)
        # δρ = Γ⁻¹ (δd - Q(φ, ρ) δφ), δd = R̄₁ᵀ (δy₂ - δy₁ + (y₂ - y₁)×θ₁)
        GQX = mmul(Ginv, mmul(gamma_derivative_times(phi, rho), X))
        Brho = (mX, madd(mmul(X, madd(o1x, skew(Dy))), GQX), X, msub(mscale(-1.0, mmul(X, o2x)), GQX))
        # section frame at ξ = ½: θ_s = θ₁ + R̄₁ Γ(φ/2) δφ/2
        H = mscale(0.5, mmul(mmul(R1, Gh), X))
        Bths = (Z3, msub(I3, H), Z3, H)
        # mid-point: p = y₁ + R̄₁ u, u = Γ(φ/2) ρ/2
        Bu = radd(rmul(mscale(0.25, gamma_derivative_times(hphi, rho)), Bphi), rmul(mscale(0.5, Gh), Brho))
        RBu = rmul(R1, Bu)
        Bp1 = (RBu[0], msub(RBu[1], madd(o1x, skew(R1u))), RBu[2], RBu[3])     # δ(p - x₁)
        Bp2 = (madd(RBu[0], I3), Bp1[1], msub(RBu[2], I3), RBu[3])               # δ(p - x₂)
        rstore(Be, 0, li, Brho)
        rstore(Be, 3, li, Bphi)
        law_times(D, Be, dfd)
        Rst = mtrans(Rs)
        if viscous:
            # rate on (δx, θ): δa = ω₁×(o₁×θ₁) - ω₂×(o₂×θ₂) - ω̄×(δy₂ - δy₁); δ(Rᵀv) = Rᵀ(δv + v×θ_s)
            wbx = skew(wbar)
            da = (wbx, mmul(msub(skew(w1), wbx), o1x), mscale(-1.0, wbx), mmul(msub(wbx, skew(w2)), o2x))
            rstore(Bv, 0, li, rmul(Rst, radd(da, rmul(skew(va), Bths))))
            rstore(Bv, 3, li, rmul(Rst, rmul(skew(vc), Bths)))
            law_times(Dv, Bv, dfv)
            for r in range(6):
                for l in range(12):
                    dfd[r, l] += dfv[r, l]
        Fx, Mx = skew(F), skew(M)
        node_partials(dq, dfd, Rs, Fx, Mx, Bths, Bp1, Bp2, skew(ax1), skew(ax2), True)
        if viscous:
            # velocity columns: δẏ_k = δv_k - o_k× δω_k, δω̄ = (δω₁ + δω₂)/2
            hDy = mscale(0.5, skew(Dy))
            Av = (mscale(-1.0, I3), madd(o1x, hDy), I3, msub(hDy, o2x))
            Cv = (Z3, mscale(-1.0, I3), Z3, I3)
            rstore(Bv, 0, li, rmul(Rst, Av))
            rstore(Bv, 3, li, rmul(Rst, Cv))
            law_times(Dv, Bv, dfd)
            node_partials(dV, dfd, Rs, Fx, Mx, Bths, Bp1, Bp2, skew(ax1), skew(ax2), False)
        chain_rule12(jac[i], dq, dV, viscous, dcoef, mload(G, a), mload(G, b), mload(Tw, a), mload(Tw, b))

