"""The compiled kernel of the 4-node shells shell4eas / shell4easans (elements/shell.py,
theory manual ch. 11): the reference data of every element (`shell_reference`, once) and
the node loads, EAS rows and their exact Jacobian of all elements of a family in one call
(`shell_equations`).

General quadrilateral geometry (bilinear shape functions, tangent frame, S matrix and area
factor, EAS interpolation H(ξ) and push-forward M₀) are separate small kernels so that
other 4-node surface elements can share them.

Values: 3-vectors and 3×3 matrices as tuples (engine/core/compiled.py)."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, add_block, set_row3, vload, mload, vstore, mstore, vadd, vsub,
                                        vscale, vdot, vnorm,
                                        vcross, zero3, eye3, skew, outer, mvec, mcol, mtrans, mtvec, mmul,
                                        mtmul, madd, msub, mscale, mdiag, eye_plus, log_rotvec,
                                        gamma_inv)
from mbdae.elements.hbeam_kernel import gamma_derivative_times

# natural coordinates: nodes counter-clockwise from the upper right one (manual eq. 11.21),
# 2×2 Gauss points in MBDyn's order, ANS points a, b, c, d at the mid-sides (eq. 11.20)
XI_NODES = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
_G = 1.0 / np.sqrt(3.0)
XI_GAUSS = np.array([[-_G, -_G], [_G, -_G], [_G, _G], [-_G, _G]])
XI_ANS = np.array([[0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [1.0, 0.0]])
# strain points of an element: the 4 Gauss points, then the 4 ANS points
XI_POINTS = np.concatenate([XI_GAUSS, XI_ANS])
# ANS (eq. 11.74): ε₁₃ at Gauss point i from a (0) and c (2), ε₂₃ from b (1) and d (3)
ANS_13 = np.array([[0.5 * (1 + x[1]), 0.0, 0.5 * (1 - x[1]), 0.0] for x in XI_GAUSS])
ANS_23 = np.array([[0.0, 0.5 * (1 - x[0]), 0.0, 0.5 * (1 + x[0])] for x in XI_GAUSS])
SMALL2 = 0.09          # θ² below which the rotation coefficients come from their series


# ---------------------------------------------------------------------- quad geometry
@kernel
def bilinear(xi1, xi2, L, dL):
    """Shape functions L_n (4,) and their natural derivatives dL (4, 2) at (ξ₁, ξ₂) (eq. 11.21)."""
    for n in range(4):
        a, b = XI_NODES[n, 0], XI_NODES[n, 1]
        L[n] = 0.25 * (1.0 + a * xi1) * (1.0 + b * xi2)
        dL[n, 0] = 0.25 * a * (1.0 + b * xi2)
        dL[n, 1] = 0.25 * b * (1.0 + a * xi1)


@kernel
def natural_tangents(X, dL):
    """x,ξ₁ and x,ξ₂ of the quad with corners X (4, 3) (eq. 11.46)."""
    t1, t2 = zero3(), zero3()
    for n in range(4):
        xn = vload(X, n)
        t1 = vadd(t1, vscale(dL[n, 0], xn))
        t2 = vadd(t2, vscale(dL[n, 1], xn))
    return t1, t2


@kernel
def tangent_frame(x1, x2):
    """[t₁ t₂ t₃]: t₁ along x,ξ₁, t₃ normal, t₂ = t₃×t₁ (MBDyn's nodal and point frames)."""
    t1 = vscale(1.0 / vnorm(x1), x1)
    t3 = vcross(t1, vscale(1.0 / vnorm(x2), x2))
    t3 = vscale(1.0 / vnorm(t3), t3)
    t2 = vcross(t3, t1)
    return mtrans((t1, t2, t3))


@kernel
def aligned_frame(x1, x2, a):
    """[t₁ t₂ t₃]: t₃ the unit normal x,ξ₁ × x,ξ₂, t₁ the unit projection of the direction a
    on the tangent plane, t₂ = t₃×t₁ (the consistent variant's point frames: one direction a
    per element, so that the frames of a flat element coincide)."""
    t3 = vcross(x1, x2)
    t3 = vscale(1.0 / vnorm(t3), t3)
    t1 = vsub(a, vscale(vdot(a, t3), t3))
    t1 = vscale(1.0 / vnorm(t1), t1)
    return mtrans((t1, vcross(t3, t1), t3))


@kernel
def s_matrix(T, x1, x2):
    """S_αβ = [t_α · x,ξβ] (eq. 11.47) as (s11, s12, s21, s22) and α = det S (eq. 11.51)."""
    c1, c2 = mcol(T, 0), mcol(T, 1)
    s11, s12, s21, s22 = vdot(c1, x1), vdot(c1, x2), vdot(c2, x1), vdot(c2, x2)
    return s11, s12, s21, s22, s11 * s22 - s12 * s21


@kernel
def arc_derivatives(dL, s11, s12, s21, s22, det, Lab):
    """L_αβ = L_αB S⁻¹ (eq. 11.49): derivatives of the shape functions along the arc lengths."""
    i11, i12, i21, i22 = s22 / det, -s12 / det, -s21 / det, s11 / det
    for n in range(4):
        Lab[n, 0] = dL[n, 0] * i11 + dL[n, 1] * i21
        Lab[n, 1] = dL[n, 0] * i12 + dL[n, 1] * i22


@kernel
def eas_membrane_push_forward(s11, s12, s21, s22, M0):
    """M₀ (eq. 11.54) of S(ξ₀), the membrane block, into M0 (4, 4); the strain order is
    (ε₁₁, ε₂₂, ε₁₂, ε₂₁)."""
    M0[0, 0], M0[0, 1], M0[0, 2], M0[0, 3] = s11 * s11, s12 * s12, s12 * s11, s11 * s12
    M0[1, 0], M0[1, 1], M0[1, 2], M0[1, 3] = s21 * s21, s22 * s22, s22 * s21, s21 * s22
    M0[2, 0], M0[2, 1], M0[2, 2], M0[2, 3] = s11 * s21, s12 * s22, s11 * s22, s12 * s21
    M0[3, 0], M0[3, 1], M0[3, 2], M0[3, 3] = s11 * s21, s12 * s22, s12 * s21, s11 * s22


@kernel
def eas_membrane_modes(xi1, xi2, H):
    """H(ξ) (eq. 11.53), the 7 membrane modes, into H[0:4, 0:7]."""
    t = xi1 * xi2
    H[0, 0], H[0, 1] = xi1, t
    H[1, 2], H[1, 3] = xi2, t
    H[2, 4], H[2, 5] = xi1, t
    H[3, 5], H[3, 6] = t, xi2


@kernel
def eas_shear_modes(xi1, xi2, H):
    """shell4eas's 6 transverse-shear modes (MBDyn's element has 13 EAS parameters), into
    H[4:6, 7:13]: with a = 2ξ₁(ξ₂² - 1), b = 2ξ₂(ξ₁² - 1), rows (a, b, ab) and (b, a, ab)."""
    a = 2.0 * xi1 * (xi2 * xi2 - 1.0)
    b = 2.0 * xi2 * (xi1 * xi1 - 1.0)
    H[4, 7], H[4, 8], H[4, 9] = a, b, a * b
    H[5, 10], H[5, 11], H[5, 12] = b, a, a * b


# ---------------------------------------------------------------------- rotations
@kernel
def rotation_coefficients2(phi):
    """a = sin θ/θ, b = (1 - cos θ)/θ², c = (θ - sin θ)/θ³ of θ = |φ|, their f' = (df/dθ)/θ
    and f'' = (df'/dθ)/θ (Rot = I + a φ× + b φ×φ×, Γ = I + b φ× + c φ×φ×, eq. 4.8)."""
    t2 = vdot(phi, phi)
    if t2 < SMALL2:
        a = 1.0 + t2 * (-1 / 6 + t2 * (1 / 120 + t2 * (-1 / 5040 + t2 / 362880)))
        b = 0.5 + t2 * (-1 / 24 + t2 * (1 / 720 + t2 * (-1 / 40320 + t2 / 3628800)))
        c = 1 / 6 + t2 * (-1 / 120 + t2 * (1 / 5040 + t2 * (-1 / 362880 + t2 / 39916800)))
        ap = -1 / 3 + t2 * (1 / 30 + t2 * (-1 / 840 + t2 / 45360))
        bp = -1 / 12 + t2 * (1 / 180 + t2 * (-1 / 6720 + t2 / 453600))
        cp = -1 / 60 + t2 * (1 / 1260 + t2 * (-1 / 60480 + t2 / 4989600))
        app = 1 / 15 + t2 * (-1 / 210 + t2 * (1 / 7560 - t2 / 498960))
        bpp = 1 / 90 + t2 * (-1 / 1680 + t2 * (1 / 75600 - t2 / 5987520))
        cpp = 1 / 630 + t2 * (-1 / 15120 + t2 * (1 / 831600 - t2 / 77837760))
        return a, b, c, ap, bp, cp, app, bpp, cpp
    t = np.sqrt(t2)
    s, co = np.sin(t), np.cos(t)
    omc = 1.0 - co
    t4 = t2 * t2
    return (s / t, omc / t2, (t - s) / (t2 * t), (t * co - s) / (t2 * t), (t * s - 2.0 * omc) / t4,
            (t * omc - 3.0 * (t - s)) / (t4 * t), (3.0 * s - t2 * s - 3.0 * t * co) / (t4 * t),
            (t2 * co - 5.0 * t * s + 8.0 * omc) / (t4 * t2),
            (8.0 * t + 7.0 * t * co + t2 * s - 15.0 * s) / (t4 * t2 * t))


@kernel
def vecrot(M):
    """The rotation vector of a 3×3 matrix, orthogonal or not, as MBDyn's VecRot defines it
    (eq. 11.36: T̄ = Rot(VecRot(T_avg))): from the skew part when tr M > 1, else from the
    symmetric part's dominant column."""
    cosphi = 0.5 * (M[0][0] + M[1][1] + M[2][2] - 1.0)
    ax = (0.5 * (M[2][1] - M[1][2]), 0.5 * (M[0][2] - M[2][0]), 0.5 * (M[1][0] - M[0][1]))
    if cosphi > 0.0:
        phi = np.arctan2(vnorm(ax), cosphi)
        a = 1.0 - phi * phi / 6.0 if phi < 1e-4 else np.sin(phi) / phi
        return vscale(1.0 / a, ax)
    E = ((M[0][0] - cosphi, 0.5 * (M[0][1] + M[1][0]), 0.5 * (M[0][2] + M[2][0])),
         (0.5 * (M[1][0] + M[0][1]), M[1][1] - cosphi, 0.5 * (M[1][2] + M[2][1])),
         (0.5 * (M[2][0] + M[0][2]), 0.5 * (M[2][1] + M[1][2]), M[2][2] - cosphi))
    k = 0
    if E[1][1] > E[0][0]:
        k = 1
    if E[2][2] > E[k][k]:
        k = 2
    u = vscale(1.0 / np.sqrt(E[k][k] * (1.0 - cosphi)), mcol(E, k))
    UM = mmul(skew(u), M)
    sinphi = -0.5 * (UM[0][0] + UM[1][1] + UM[2][2])
    return vscale(np.arctan2(sinphi, cosphi), u)


@kernel
def rot_and_gamma(phi, a, b, c):
    S = skew(phi)
    return eye_plus(a, S, b), eye_plus(b, S, c)


@kernel
def quadratic_hessian(al, alp, alpp, be, bep, bepp, phi, p, Q):
    """Hessian of s(φ) = α(θ) p·φ + β(θ) φᵀQφ (Q symmetric), α' = (dα/dθ)/θ, α'' likewise:
    the second derivatives of u·Rot(φ)n and d·Γ(φ)m."""
    pf = vdot(p, phi)
    Qf = mvec(Q, phi)
    fQf = vdot(phi, Qf)
    H = mscale(alpp * pf + bepp * fQf, outer(phi, phi))
    H = madd(H, mscale(alp, madd(outer(phi, p), outer(p, phi))))
    H = madd(H, mdiag(alp * pf + bep * fQf))
    H = madd(H, mscale(2.0 * bep, madd(outer(phi, Qf), outer(Qf, phi))))
    return madd(H, mscale(2.0 * be, Q))


@kernel
def sym_q(u, n):
    """Q = ½(u nᵀ + n uᵀ) - (u·n) I: u·(φ×(φ×n)) = φᵀQφ."""
    return msub(mscale(0.5, madd(outer(u, n), outer(n, u))), mdiag(vdot(u, n)))


@kernel
def interpolated_rotation(L, phit):
    """φ̃ = Σ L_n φ̃_n (eq. 11.39) of the shape functions L (4,) and nodal φ̃ (4, 3), with
    its Rot(φ̃) and Γ(φ̃)."""
    ph = zero3()
    for n in range(4):
        ph = vadd(ph, vscale(L[n], vload(phit, n)))
    a, b, c, _, _, _, _, _, _ = rotation_coefficients2(ph)
    R, G = rot_and_gamma(ph, a, b, c)
    return ph, R, G


# ---------------------------------------------------------------------- reference data
@kernel
def mean_frame(Tn):
    """T̄ = Rot(VecRot(¼ Σ T_n)) of the nodal frames Tn (4, 3, 3) (eqs. 11.35-11.36)."""
    avg = mscale(0.0, eye3())
    for n in range(4):
        avg = madd(avg, mscale(0.25, mload(Tn, n)))
    pb = vecrot(avg)
    a, b, _, _, _, _, _, _, _ = rotation_coefficients2(pb)
    return eye_plus(a, skew(pb), b)


@kernel
def relative_rotations(Tb, Tn, phit, Hn, want_h):
    """φ̃_n = VecRot(T̄ᵀ T_n) (eqs. 11.37-11.38) into phit (4, 3), Γ(φ̃_n)⁻¹ into Hn (4, 3, 3)
    when want_h."""
    for n in range(4):
        p = log_rotvec(mtmul(Tb, mload(Tn, n)))
        vstore(phit, n, p)
        if want_h:
            mstore(Hn, n, gamma_inv(p))


@kernel
def shell_mean_frames(nidx, R, iTa, Tbar):
    """T̄ (ne, 3, 3) of every element from its nodes' orientations R (MBDyn takes the nodes'
    reference orientations of the step, i.e. the predicted ones)."""
    Tn = np.empty((4, 3, 3))
    for e in range(nidx.shape[0]):
        for n in range(4):
            mstore(Tn, n, mmul(mload(R, nidx[e, n]), mload(iTa[e], n)))
        mstore(Tbar, e, mean_frame(Tn))


@kernel
def shell_reference(X, R0, nb, mbdyn, iTa, A, Lab, alpha, e0, k0, P, Cans, bad):
    """Reference data of elements with corners X (ne, 4, 3) and node orientations R0
    (ne, 4, 3, 3) (MBDyn's initial configuration, §11.5.1-11.5.3): nodal frames iTa
    (ne, 4, 3, 3) = R0ᵀ [t₁ t₂ t₃] at the nodes; per strain point (4 Gauss, 4 ANS) the
    constant A (ne, 8, 3, 3) with T = T̄ Rot(φ̃) A equal to the point's frame in the
    reference, L_αβ (ne, 8, 4, 2), α = det S (ne, 8), the reference strains e0
    (ne, 8, 2, 3) and curvatures k0 (ne, 4, 2, 3); per Gauss point the EAS matrix P
    (ne, 4, 12, nb) = α₀/α P₁₂ M₀⁻ᵀ H(ξ) (eq. 11.55) and the ANS map Cans (ne, 4, 2, 8):
    (ε₁₃, ε₂₃) at Gauss point i = Σ Cans[i, a, 2q + c] (ε₁₃, ε₂₃)[c] at ANS point q.
    bad[e] = 1 where α ≤ 0 somewhere.

    mbdyn[e] (MBDyn 1.7.3's element): the nodal and point frames are the tangent frames (t₁
    along x,ξ₁ at each point), M₀ is taken in T̄ Rot(φ̃(0)) and ANS copies the Cartesian
    components (eq. 11.74).  Otherwise (the consistent variant): the nodal and point frames
    share the centre's t₁ (aligned_frame: on a flat element they coincide, so the reference
    φ̃_n vanish and the interpolated rotation increments are the bilinear interpolation of
    the nodes'), M₀ is taken in the centre's frame, and ANS interpolates the covariant
    shears γ_β = d·x,ξβ = Σ_α S_αβ ε_α3 (ξ₁-shear from a, c, ξ₂-shear from b, d) and maps
    them back with S⁻ᵀ of the Gauss point (MITC4's assumed shear)."""
    ne = X.shape[0]
    L, dL = np.empty(4), np.empty((4, 2))
    Xe, Tn, phit, Hn = np.empty((4, 3)), np.empty((4, 3, 3)), np.empty((4, 3)), np.empty((4, 3, 3))
    M0 = np.zeros((6, 6))
    H = np.zeros((6, nb))
    Sp = np.zeros((8, 4))
    PERM = (0, 4, 1, 3, 2, 5)       # rows (ε₁₁, ε₂₂, ε₁₂, ε₂₁, ε₁₃, ε₂₃) of M₀⁻ᵀH in ε
    for e in range(ne):
        bad[e] = 0
        for n in range(4):
            vstore(Xe, n, vload(X[e], n))
        bilinear(0.0, 0.0, L, dL)
        c1, c2 = natural_tangents(Xe, dL)
        Fc = tangent_frame(c1, c2)
        dirc = mcol(Fc, 0)
        for n in range(4):
            bilinear(XI_NODES[n, 0], XI_NODES[n, 1], L, dL)
            x1, x2 = natural_tangents(Xe, dL)
            F = tangent_frame(x1, x2) if mbdyn[e] else aligned_frame(x1, x2, dirc)
            R = mload(R0[e], n)
            mstore(iTa[e], n, mtmul(R, F))
            mstore(Tn, n, F)
        Tb = mean_frame(Tn)
        relative_rotations(Tb, Tn, phit, Hn, False)
        for p in range(8):
            bilinear(XI_POINTS[p, 0], XI_POINTS[p, 1], L, dL)
            ph, Rp, Gp = interpolated_rotation(L, phit)
            x1, x2 = natural_tangents(Xe, dL)
            F = tangent_frame(x1, x2) if mbdyn[e] else aligned_frame(x1, x2, dirc)
            mstore(A[e], p, mtmul(mmul(Tb, Rp), F))
            s11, s12, s21, s22, det = s_matrix(F, x1, x2)
            Sp[p, 0], Sp[p, 1], Sp[p, 2], Sp[p, 3] = s11, s12, s21, s22
            alpha[e, p] = det
            if det <= 0.0:
                bad[e] = 1
                det = 1.0
            arc_derivatives(dL, s11, s12, s21, s22, det, Lab[e, p])
            for k in range(2):
                y, d = zero3(), zero3()
                for n in range(4):
                    y = vadd(y, vscale(Lab[e, p, n, k], vload(Xe, n)))
                    d = vadd(d, vscale(Lab[e, p, n, k], vload(phit, n)))
                ek = mtvec(F, y)
                for j in range(3):
                    e0[e, p, k, j] = ek[j]
                if p < 4:
                    kk = mtvec(F, mvec(Tb, mvec(Gp, d)))
                    for j in range(3):
                        k0[e, p, k, j] = kk[j]
        # ANS map: MBDyn's copies ε₁₃ from a, c and ε₂₃ from b, d; the consistent one the
        # covariant shears, γ_β(i) = Σ_q w_iβq Σ_c S_q[c, β] ε_c3(q), ε_a3(i) = Σ_β S_i⁻¹[β, a] γ_β(i)
        Cans[e, :, :, :] = 0.0
        for i in range(4):
            if mbdyn[e]:
                Cans[e, i, 0, 0] = ANS_13[i, 0]
                Cans[e, i, 0, 4] = ANS_13[i, 2]
                Cans[e, i, 1, 3] = ANS_23[i, 1]
                Cans[e, i, 1, 7] = ANS_23[i, 3]
                continue
            dt = Sp[i, 0] * Sp[i, 3] - Sp[i, 1] * Sp[i, 2]
            if dt <= 0.0:
                continue
            Si = ((Sp[i, 3] / dt, -Sp[i, 1] / dt), (-Sp[i, 2] / dt, Sp[i, 0] / dt))
            for beta in range(2):
                for q in range(4):
                    wq = ANS_13[i, q] if beta == 0 else ANS_23[i, q]
                    if wq == 0.0:
                        continue
                    for c in range(2):
                        sq = Sp[4 + q, 2 * c + beta]             # S_q[c, β]
                        for a in range(2):
                            Cans[e, i, a, 2 * q + c] += Si[beta][a] * wq * sq
        # EAS push-forward at the centre, T₀ = T̄ Rot(φ̃(ξ₀)) (MBDyn's choice), or the
        # centre's tangent frame (consistent: the frame of every point of a flat element)
        bilinear(0.0, 0.0, L, dL)
        ph, Rp, _ = interpolated_rotation(L, phit)
        x1, x2 = natural_tangents(Xe, dL)
        s11, s12, s21, s22, det0 = s_matrix(mmul(Tb, Rp) if mbdyn[e] else Fc, x1, x2)
        if det0 <= 0.0:
            bad[e] = 1
            continue
        M0[:, :] = 0.0
        eas_membrane_push_forward(s11, s12, s21, s22, M0)
        M0[4, 4], M0[4, 5], M0[5, 4], M0[5, 5] = s11, s12, s21, s22
        nr = 6 if nb > 7 else 4
        MinvT = np.linalg.inv(np.ascontiguousarray(M0[:nr, :nr])).T
        for i in range(4):
            H[:, :] = 0.0
            eas_membrane_modes(XI_GAUSS[i, 0], XI_GAUSS[i, 1], H)
            if nb > 7:
                eas_shear_modes(XI_GAUSS[i, 0], XI_GAUSS[i, 1], H)
            f = det0 / alpha[e, i] if alpha[e, i] > 0.0 else 0.0
            P[e, i, :, :] = 0.0
            for r in range(nr):
                row = PERM[r]
                for j in range(nb):
                    s = 0.0
                    for q in range(nr):
                        s += MinvT[r, q] * H[q, j]
                    P[e, i, row, j] = f * s


def shell_eas_products(P, D, aw):
    """(DPw (ne, 48, nb), Kbb (ne, nb, nb)): the constant EAS products of the Jacobian (numpy,
    once): αw D P of the Gauss points stacked and Σ αw PᵀDP."""
    ne, _, _, nb = P.shape
    DP = np.einsum("erj,eijb,ei->eirb", D, P, aw)
    DPw = np.ascontiguousarray(DP.reshape(ne, 48, nb))
    Kbb = np.ascontiguousarray(np.einsum("eira,eirb->eab", P, DP))
    return DPw, Kbb


# ---------------------------------------------------------------------- equations
@kernel
def point_kinematics(e, p, Lv, Lab, A, xn, phit, Tb, ph, Rp, Gp, co, up, dp):
    """Strain point p of element e: φ̃(ξ) (eq. 11.39), Rot, Γ, their coefficients, the
    T̄-frame position derivatives u_k = T̄ᵀy,k (eq. 11.63) and φ̃,k (eq. 11.61)."""
    phi = zero3()
    for n in range(4):
        phi = vadd(phi, vscale(Lv[p, n], vload(phit, n)))
    vstore(ph, p, phi)
    cf = rotation_coefficients2(phi)
    for j in range(9):
        co[p, j] = cf[j]
    R, G = rot_and_gamma(phi, cf[0], cf[1], cf[2])
    mstore(Rp, p, R)
    mstore(Gp, p, G)
    for k in range(2):
        y, d = zero3(), zero3()
        for n in range(4):
            y = vadd(y, vscale(Lab[e, p, n, k], vload(xn, n)))
            d = vadd(d, vscale(Lab[e, p, n, k], vload(phit, n)))
        vstore(up[p], k, mtvec(Tb, y))
        vstore(dp[p], k, d)


@kernel
def point_strain_rows(e, p, with_curvature, Lv, Lab, A, Tb, Rp, Gp, ph, up, dp, e0, k0, eps, B):
    """Strains ε_k = AᵀRᵀu_k - e0, κ_k = AᵀΓᵀφ̃,k - k0 (eqs. 11.75-11.76) of point p into
    eps (12,) and their derivatives B (12, 24) on (x_n, φ̃_n) (T̄ fixed within the step):
    ∂ε_k/∂x_n = AᵀRᵀT̄ᵀ L_n,k, ∂ε_k/∂φ̃_n = AᵀRᵀ u_k× Γ L_n,
    ∂κ_k/∂φ̃_n = -Aᵀ 𝓛(-φ̃, φ̃,k) L_n + AᵀΓᵀ L_n,k (𝓛(φ, r) = ∂(Γ(φ) r)/∂φ)."""
    Ap = mload(A[e], p)
    R, G = mload(Rp, p), mload(Gp, p)
    phi = vload(ph, p)
    ART = mtmul(Ap, mtrans(R))                 # AᵀRᵀ
    ARTB = mmul(ART, mtrans(Tb))               # AᵀRᵀT̄ᵀ
    AGT = mtmul(Ap, mtrans(G))                 # AᵀΓᵀ
    mphi = vscale(-1.0, phi)
    for k in range(2):
        u = vload(up[p], k)
        ek = vsub(mvec(ART, u), vload(e0[e, p], k))
        for j in range(3):
            eps[3 * k + j] = ek[j]
        Ue = mmul(mmul(ART, skew(u)), G)
        for n in range(4):
            X = mscale(Lab[e, p, n, k], ARTB)
            Y = mscale(Lv[p, n], Ue)
            for i in range(3):
                set_row3(B, 3 * k + i, 6 * n, X[i])
                set_row3(B, 3 * k + i, 6 * n + 3, Y[i])
        if with_curvature:
            d = vload(dp[p], k)
            kk = vsub(mvec(AGT, d), vload(k0[e, p], k))
            for j in range(3):
                eps[6 + 3 * k + j] = kk[j]
            Ld = mtmul(Ap, gamma_derivative_times(mphi, d))
            for n in range(4):
                Y = msub(mscale(Lab[e, p, n, k], AGT), mscale(Lv[p, n], Ld))
                for i in range(3):
                    set_row3(B, 6 + 3 * k + i, 6 * n, zero3())
                    set_row3(B, 6 + 3 * k + i, 6 * n + 3, Y[i])


@kernel
def point_geometric(e, p, with_curvature, upper, mu, Lv, Lab, A, Tb, Rp, Gp, co, ph, up, dp, Qn, Un, K):
    """K (24, 24) += the second derivative of μ·ε at point p for fixed μ (the geometric part
    of eq. 11.84, on (x_n, φ̃_n)): with ñ_k = A n_k, m̃_k = A m_k,
    μ·ε = Σ_k u_k·Rot(φ̃)ñ_k + φ̃,k·Γ(φ̃)m̃_k + const (the m̃ part only with_curvature).
    upper: only the node blocks on and above the diagonal (the rest by symmetry).
    Qn (5, 3, 3), Un (4, 3, 3): scratch for the per-node sums over k (Qn[4]: the Hessian)."""
    Ap = mload(A[e], p)
    R, G = mload(Rp, p), mload(Gp, p)
    phi = vload(ph, p)
    a, b, c, ap, bp, cp, app, bpp, cpp = (co[p, 0], co[p, 1], co[p, 2], co[p, 3], co[p, 4], co[p, 5],
                                          co[p, 6], co[p, 7], co[p, 8])
    Hpp = mscale(0.0, eye3())
    Cu0 = Cu1 = Cd0 = Cd1 = Hpp
    GTb = mtrans(G)
    TbT = mtrans(Tb)
    for k in range(2):
        nt = mvec(Ap, (mu[3 * k], mu[3 * k + 1], mu[3 * k + 2]))
        u = vload(up[p], k)
        Hpp = madd(Hpp, quadratic_hessian(a, ap, app, b, bp, bpp, phi, vcross(nt, u), sym_q(u, nt)))
        Cu = mmul(mmul(GTb, skew(mvec(R, nt))), TbT)                    # ∂²/∂φ∂y,k = Γᵀ(Rñ)× T̄ᵀ
        Cd = Hpp
        if with_curvature:
            mt = mvec(Ap, (mu[6 + 3 * k], mu[7 + 3 * k], mu[8 + 3 * k]))
            d = vload(dp[p], k)
            Hpp = madd(Hpp, quadratic_hessian(b, bp, bpp, c, cp, cpp, phi, vcross(mt, d), sym_q(d, mt)))
            Cd = mtrans(gamma_derivative_times(phi, mt))                # ∂²/∂φ∂φ̃,k = 𝓛(φ̃, m̃)ᵀ
        if k == 0:
            Cu0, Cd0 = Cu, Cd
        else:
            Cu1, Cd1 = Cu, Cd
    for n in range(4):
        l0, l1 = Lab[e, p, n, 0], Lab[e, p, n, 1]
        mstore(Un, n, madd(mscale(l0, Cu0), mscale(l1, Cu1)))
        if with_curvature:
            mstore(Qn, n, madd(mscale(l0, mtrans(Cd0)), mscale(l1, mtrans(Cd1))))
    mstore(Qn, 4, Hpp)                                  # an array: indexed by the loop variables below
    # T_nm = L_n L_m H + L_n Q_mᵀ + L_m Q_n, C_nm = L_n U_m (symmetric: with `upper` only the
    # node blocks n ≤ m, the rows x_n / columns φ_m part of C_mn written in block (n, m))
    for n in range(4):
        ln = Lv[p, n]
        for m in range(n if upper else 0, 4):
            lm = Lv[p, m]
            for i in range(3):
                for j in range(3):
                    t = ln * lm * Qn[4, i, j]
                    if with_curvature:
                        t += ln * Qn[m, j, i] + lm * Qn[n, i, j]
                    K[6 * n + 3 + i, 6 * m + 3 + j] += t
                    K[6 * n + 3 + i, 6 * m + j] += ln * Un[m, i, j]
                    if upper:
                        K[6 * n + j, 6 * m + 3 + i] += lm * Un[n, i, j]
                    else:
                        K[6 * m + j, 6 * n + 3 + i] += ln * Un[m, i, j]


@kernel
def shell_equations(ans, nb, dcoef, nidx, x, R, G, Tbar, iTa, A, Lv, Lab, aw, e0, k0, P, Cans, DPw, Kbb, D,
                    Dsym, dcnt, dcols, sig0, boff, y, want_jac, want_out, res, jac, out_sigma, out_eps):
    """Node loads and EAS rows res (ne, 24 + nb) of the shells with nodes nidx (ne, 4): per
    node force and moment (the element's internal forces, the engine's sign), then r_β
    (eq. 11.90, force-like: not divided by dCoef as MBDyn does, see elements/shell.py); unless want_jac is False, jac
    (ne, 24 + nb, 24 + nb) on the Newton increments (Δẋ_n, Δġ_n of each node, then Δβ).
    With want_out: σ and ε + ε̂ (ne, 4, 12) at the Gauss points.  dcnt (12,), dcols (12, 12):
    per row, the columns where some element's law has a nonzero entry, Dsym (ne,): the law is
    symmetric; DPw (ne, 48, nb),
    Kbb (ne, nb, nb): αw D P of the Gauss points stacked and Σ αw PᵀDP (shell_eas_products).

    Residual (the engine's sign, opposite to MBDyn's AssRes): f = Σ_i α_i w_i B_iᵀσ_i,
    σ = D(ε + Pβ) + σ₀ (eqs. 11.77-11.78, 11.89), with ANS (eqs. 11.68-11.74) replacing
    ε₁₃, ε₂₃ by interpolation from a, b, c, d (Cans, shell_reference).  B is taken on (x_n, φ̃_n); the node rotation
    rows are T̄ Γ(φ̃_n)⁻ᵀ f_φ̃n since δφ̃_n = Γ(φ̃_n)⁻¹T̄ᵀθ_n (eq. 11.25).  Jacobian: the exact
    derivative, Σ αw (BᵀDB) plus the second derivative of Σ μ·ε for fixed stresses μ
    (point_geometric), plus the derivative of Γ(φ̃_n)⁻ᵀ, chained by θ_n = dCoef G(g_n) Δġ_n,
    δx_n = dCoef Δẋ_n."""
    ne = nidx.shape[0]
    NP = 8 if ans else 4
    NQ = 24 + nb
    xn, Tn = np.empty((4, 3)), np.empty((4, 3, 3))
    phit, Hn = np.empty((4, 3)), np.empty((4, 3, 3))
    ph, Rp, Gp, co = np.empty((8, 3)), np.empty((8, 3, 3)), np.empty((8, 3, 3)), np.empty((8, 9))
    up, dp = np.empty((8, 2, 3)), np.empty((8, 2, 3))
    Bi = np.zeros((4, 12, 24))            # B (12, 24) per Gauss point
    BA = np.zeros((4, 12, 24))
    epsi = np.zeros((4, 12))
    epsA = np.zeros((4, 12))
    sw = np.zeros((4, 12))
    muA = np.zeros((4, 12))
    DB = np.zeros((12, 24))
    K = np.zeros((NQ, NQ))
    f = np.zeros(NQ)
    Qn, Un, Cm = np.zeros((5, 3, 3)), np.zeros((4, 3, 3)), np.zeros((4, 3, 3))
    beta = np.zeros(nb)
    for e in range(ne):
        for n in range(4):
            k = nidx[e, n]
            vstore(xn, n, vload(x, k))
            mstore(Tn, n, mmul(mload(R, k), mload(iTa[e], n)))
        Tb = mload(Tbar, e)                                   # the step's mean frame (shell_mean_frames)
        relative_rotations(Tb, Tn, phit, Hn, True)
        for j in range(nb):
            beta[j] = y[boff[e, j]]
        for p in range(NP):
            point_kinematics(e, p, Lv, Lab, A, xn, phit, Tb, ph, Rp, Gp, co, up, dp)
        for i in range(4):
            point_strain_rows(e, i, True, Lv, Lab, A, Tb, Rp, Gp, ph, up, dp, e0, k0, epsi[i], Bi[i])
        if ans:
            for q in range(4):
                point_strain_rows(e, 4 + q, False, Lv, Lab, A, Tb, Rp, Gp, ph, up, dp, e0, k0, epsA[q], BA[q])
            for i in range(4):
                for a in range(2):
                    r = 2 + 3 * a
                    s = 0.0
                    for q in range(4):
                        s += Cans[e, i, a, 2 * q] * epsA[q, 2] + Cans[e, i, a, 2 * q + 1] * epsA[q, 5]
                    epsi[i, r] = s
                    for c in range(24):
                        s = 0.0
                        for q in range(4):
                            s += Cans[e, i, a, 2 * q] * BA[q, 2, c] + Cans[e, i, a, 2 * q + 1] * BA[q, 5, c]
                        Bi[i, r, c] = s
        # stresses and the residual
        for c in range(NQ):
            f[c] = 0.0
        for i in range(4):
            w = aw[e, i]
            for r in range(12):
                s = 0.0
                for j in range(nb):
                    s += P[e, i, r, j] * beta[j]
                epsi[i, r] += s
            for r in range(12):
                s = sig0[e, r]
                for j in range(12):
                    s += D[e, r, j] * epsi[i, j]
                sw[i, r] = w * s
                if want_out:
                    out_sigma[e, i, r] = s
                    out_eps[e, i, r] = epsi[i, r]
            for c in range(24):
                s = 0.0
                for r in range(12):
                    s += Bi[i, r, c] * sw[i, r]
                f[c] += s
            for j in range(nb):
                s = 0.0
                for r in range(12):
                    s += P[e, i, r, j] * sw[i, r]
                f[24 + j] += s
        for n in range(4):
            fx = (f[6 * n], f[6 * n + 1], f[6 * n + 2])
            fp = (f[6 * n + 3], f[6 * n + 4], f[6 * n + 5])
            ft = mvec(Tb, mtvec(mload(Hn, n), fp))
            for j in range(3):
                res[e, 6 * n + j] = fx[j]
                res[e, 6 * n + 3 + j] = ft[j]
        for j in range(nb):
            res[e, 24 + j] = f[24 + j]
        if not want_jac:
            continue
        # Jacobian on (x_n, φ̃_n, β): material part Σ αw [BᵀDB, BᵀDP; PᵀDB, PᵀDP] by loops over
        # the nonzeros (D's through dcnt/dcols, the curvature rows of B vanish on the x
        # columns, P's zeros skipped); with a symmetric law only the node blocks on and above
        # the diagonal of BᵀDB and PᵀDB are formed (BᵀDP = (PᵀDB)ᵀ); αw DP, PᵀDP constant (DPw, Kbb)
        sym = Dsym[e]
        for a in range(NQ):
            for c in range(NQ):
                K[a, c] = 0.0
        for i in range(4):
            w = aw[e, i]
            for r in range(12):
                for c in range(24):
                    DB[r, c] = 0.0
                for q in range(dcnt[r]):
                    j = dcols[r, q]
                    v = w * D[e, r, j]
                    if v != 0.0:
                        for c in range(24):
                            DB[r, c] += v * Bi[i, j, c]
            for a in range(24):
                nr = 6 if a % 6 < 3 else 12
                c0 = 6 * (a // 6) if sym else 0
                for r in range(nr):
                    bv = Bi[i, r, a]
                    if bv == 0.0:
                        continue
                    for c in range(c0, 24):
                        K[a, c] += bv * DB[r, c]
                    if not sym:
                        for c in range(nb):
                            K[a, 24 + c] += bv * DPw[e, 12 * i + r, c]
            for r in range(12):
                for j in range(nb):
                    pv = P[e, i, r, j]
                    if pv == 0.0:
                        continue
                    for c in range(24):
                        K[24 + j, c] += pv * DB[r, c]
        if sym:
            for a in range(24):
                for c in range(nb):
                    K[a, 24 + c] = K[24 + c, a]
        for a in range(nb):
            for c in range(nb):
                K[24 + a, 24 + c] = Kbb[e, a, c]
        # geometric part: the Gauss points' stresses, the ANS points' shear multipliers
        if ans:
            for q in range(4):
                for r in range(12):
                    muA[q, r] = 0.0
            for i in range(4):
                for a in range(2):
                    s = sw[i, 2 + 3 * a]
                    for q in range(4):
                        muA[q, 2] += Cans[e, i, a, 2 * q] * s
                        muA[q, 5] += Cans[e, i, a, 2 * q + 1] * s
                s2, s5 = sw[i, 2], sw[i, 5]
                sw[i, 2] = 0.0
                sw[i, 5] = 0.0
                point_geometric(e, i, True, sym, sw[i], Lv, Lab, A, Tb, Rp, Gp, co, ph, up, dp, Qn, Un, K)
                sw[i, 2], sw[i, 5] = s2, s5
            for q in range(4):
                point_geometric(e, 4 + q, False, sym, muA[q], Lv, Lab, A, Tb, Rp, Gp, co, ph, up, dp, Qn, Un, K)
        else:
            for i in range(4):
                point_geometric(e, i, True, sym, sw[i], Lv, Lab, A, Tb, Rp, Gp, co, ph, up, dp, Qn, Un, K)
        if sym:                               # the node blocks below the diagonal
            for a in range(24):
                for c in range(6 * (a // 6)):
                    K[a, c] = K[c, a]
        # rows: θ_n = T̄ Γ(φ̃_n)⁻ᵀ (·), plus ∂(Γ⁻ᵀ v)/∂φ̃_n = Γ⁻ᵀ 𝓛(-φ̃_n, Γ⁻ᵀ v) (its Γ⁻ᵀ with the rows')
        # columns: x_n ← dCoef Δẋ_n, φ̃_n ← Γ(φ̃_n)⁻¹ T̄ᵀ dCoef G_n Δġ_n, β ← Δβ
        for n in range(4):
            HT = mtrans(mload(Hn, n))
            fp = (f[6 * n + 3], f[6 * n + 4], f[6 * n + 5])
            v = mvec(HT, fp)
            add_block(K, 6 * n + 3, 6 * n + 3, gamma_derivative_times(vscale(-1.0, vload(phit, n)), v), 1.0)
        # rows θ_n ← T̄ Γ⁻ᵀ (φ̃_n rows)
        for n in range(4):
            Rn = mtrans(mmul(mload(Hn, n), mtrans(Tb)))                 # T̄ Γ⁻ᵀ
            for c in range(NQ):
                v = mvec(Rn, (K[6 * n + 3, c], K[6 * n + 4, c], K[6 * n + 5, c]))
                K[6 * n + 3, c], K[6 * n + 4, c], K[6 * n + 5, c] = v[0], v[1], v[2]
        # columns φ̃_m → Γ(φ̃_m)⁻¹ T̄ᵀ G_m Δġ_m fused with the writing of the block, dCoef on the
        # node columns (both x and θ columns carry it), none on the β columns
        for m in range(4):
            mstore(Cm, m, mmul(mmul(mload(Hn, m), mtrans(Tb)), mload(G, nidx[e, m])))   # Γ⁻¹ T̄ᵀ G
        jac_e = jac[e]
        for r in range(NQ):
            for m in range(4):
                c = 6 * m
                jac_e[r, c] = dcoef * K[r, c]
                jac_e[r, c + 1] = dcoef * K[r, c + 1]
                jac_e[r, c + 2] = dcoef * K[r, c + 2]
                k0_, k1_, k2_ = K[r, c + 3], K[r, c + 4], K[r, c + 5]
                for j in range(3):
                    jac_e[r, c + 3 + j] = dcoef * (Cm[m, 0, j] * k0_ + Cm[m, 1, j] * k1_ + Cm[m, 2, j] * k2_)
            for c in range(24, NQ):
                jac_e[r, c] = K[r, c]
