"""The compiled kernel of the rigid joints (manual §9.1): the constraint rows, reaction
loads and Jacobian blocks of one group of joints (instances with the same rows), in one
call.  The row codes and their formulas are listed in elements/joints.py's docstring:

  0-2  position  e_kᵀ d - x̃0_k(t),  d = x2 + f2 - x1 - f1, e_k the columns of R1 R1h
  3-5  rotation  [exp⁻¹((R1 R1r)ᵀ R2 R2r R0(t)ᵀ)]_k with the multiplier of eq. 9.15
  6-8  relative velocity, 9-11 relative angular velocity (non-holonomic, eqs. 9.114, 9.116)
  12-13 axis orthogonality (R1 a1)ᵀ(R2 a2), 14 distance ‖d‖ - l(t)

Per row r: value c_r, reaction map B_r on (x1, θ1, x2, θ2), position gradient C_r and
velocity gradient Cv_r.  Node loads Σ B_r λ_r; the Jacobian follows the chain rule of G8
with T_θ = dCoef G and T_ω, and position-level rows divided by dCoef (G2)."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, cross3, dot3, mv3, mm3, mtm3, skew3, outer3,
                                        exp_rotvec3, log_rotvec3, gamma3, gamma_inv3)
from mbdae.engine.core.state import IA_POSITION, IA_VELOCITY, DERIVATIVES

# rows 0-5, 12-14 are position-level (divided by dCoef in a step), 6-11 velocity-level
POSITION_LEVEL = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1], np.bool_)


@kernel
def _add_block(K, r0, c0, A, s):
    """K[r0:r0+3, c0:c0+3] += s A."""
    for i in range(3):
        for j in range(3):
            K[r0 + i, c0 + j] += s * A[i, j]


@kernel
def _right_times(row, c0, M):
    """row[c0:c0+3] ← row[c0:c0+3] M (a 3-column block of a row times a 3×3 matrix)."""
    a0, a1, a2 = row[c0], row[c0 + 1], row[c0 + 2]
    for j in range(3):
        row[c0 + j] = a0 * M[0, j] + a1 * M[1, j] + a2 * M[2, j]


@kernel
def joint_group(mode, dcoef, used, inst, n1, n2, mult, load_mult, f1_local, f2_local, R1h, R1r, R2r,
                a1, a2, pos_val, rot_val, vel_val, avel_val, dist_val, pos_der, rot_der, dist_der,
                y, x, v, R, w, G, Tw, want_jac, r_node, r_c, j_bt, j_c, j_k, j_diag):
    """Rows `used` (row codes) of the joints `inst`; outputs shaped (len(inst), …) as the
    group's pattern blocks: node loads (12), row values (u), Bᵀ (12, u), row Jacobian (u, 12),
    geometric stiffness (12, 12) and the multiplier diagonal of the assembly (u, 1, 1)."""
    nu = len(used)
    has_rot = has_dot = has_dist = False
    for r in used:
        if 3 <= r <= 5:
            has_rot = True
        elif r == 12 or r == 13:
            has_dot = True
        elif r == 14:
            has_dist = True
    velocity_form = mode == IA_VELOCITY or mode == DERIVATIVES
    I3 = np.eye(3)
    zero3 = np.zeros(3)
    c = np.empty(nu)
    B = np.empty((nu, 12))
    C = np.empty((nu, 12))
    Cv = np.empty((nu, 12))
    lam = np.empty(nu)
    laml = np.empty(nu)
    K = np.empty((12, 12))
    for e in range(len(inst)):
        i = inst[e]
        a, b = n1[i], n2[i]
        if a < 0:             # the ground: at rest at the origin, identity frame
            x1, R1, v1, w1 = zero3, I3, zero3, zero3
            G1, Tw1 = I3, I3
        else:
            x1, R1, v1, w1 = x[a], R[a], v[a], w[a]
            G1, Tw1 = G[a], Tw[a]
        x2, R2, v2, w2 = x[b], R[b], v[b], w[b]
        G2, Tw2 = G[b], Tw[b]
        f1 = mv3(R1, f1_local[i])
        f2 = mv3(R2, f2_local[i])
        E = mm3(R1, R1h[i])
        Er = mm3(R1, R1r[i])
        E2r = mm3(R2, R2r[i])
        b1 = x2 + f2 - x1
        d = b1 - f1
        dw = w2 - w1
        wrel = v2 + cross3(w2, f2) - v1 - cross3(w1, b1)
        Ebx = mtm3(E, skew3(b1))            # rows (Eᵀ b1×)_k
        Ef2x = mtm3(E, skew3(f2))
        th, Ad, Gi, u, dist = zero3, I3, I3, zero3, 1.0
        if has_rot:
            R0 = exp_rotvec3(rot_val[i])
            Ad = mm3(mtm3(Er, E2r), R0.T.copy())
            th = log_rotvec3(Ad)
            Gi = mm3(gamma_inv3(th), Er.T.copy())
        if has_dist:
            dist = np.sqrt(dot3(d, d))
            if dist <= 0.0:
                dist = 1.0
            u = d / dist
        B[:] = 0.0
        C[:] = 0.0
        Cv[:] = 0.0
        for k in range(nu):
            r = used[k]
            m = mult[e, k]
            lam[k] = y[m] if m >= 0 else 0.0
            ml = load_mult[e, k]
            laml[k] = y[ml] if ml >= 0 else 0.0
            if r <= 2 or 6 <= r <= 8:
                q = r if r <= 2 else r - 6
                for j in range(3):
                    B[k, j] = -E[j, q]
                    B[k, 3 + j] = Ebx[q, j]
                    B[k, 6 + j] = E[j, q]
                    B[k, 9 + j] = -Ef2x[q, j]
                if r <= 2:
                    c[k] = dot3(E[:, q], d) - pos_val[i, q]
                    C[k] = B[k]
                else:
                    c[k] = dot3(E[:, q], wrel) - vel_val[i, q]
                    Cv[k] = B[k]
                    Ew1 = mtm3(E, skew3(w1))
                    Ewr = mtm3(E, skew3(wrel))
                    Edf = mm3(mtm3(E, skew3(dw)), skew3(f2))
                    for j in range(3):
                        C[k, j] = Ew1[q, j]
                        C[k, 3 + j] = Ewr[q, j]
                        C[k, 6 + j] = -Ew1[q, j]
                        C[k, 9 + j] = -Edf[q, j]
            elif r <= 5:
                q = r - 3
                c[k] = th[q]
                for j in range(3):
                    B[k, 3 + j] = -Er[j, q]
                    B[k, 9 + j] = Er[j, q]
                    C[k, 3 + j] = -Gi[q, j]
                    C[k, 9 + j] = Gi[q, j]
            elif r <= 11:
                q = r - 9
                c[k] = dot3(Er[:, q], dw) - avel_val[i, q]
                Erw = mtm3(Er, skew3(dw))
                for j in range(3):
                    B[k, 3 + j] = -Er[j, q]
                    B[k, 9 + j] = Er[j, q]
                    Cv[k, 3 + j] = -Er[j, q]
                    Cv[k, 9 + j] = Er[j, q]
                    C[k, 3 + j] = Erw[q, j]
            elif r <= 13:
                q = r - 12
                e1 = mv3(R1, a1[i, q])
                e2 = mv3(R2, a2[i, q])
                c[k] = dot3(e1, e2)
                n12 = cross3(e1, e2)
                for j in range(3):
                    B[k, 3 + j] = n12[j]
                    B[k, 9 + j] = -n12[j]
                C[k] = B[k]
            else:
                c[k] = dist - dist_val[i]
                f1u = cross3(f1, u)
                f2u = cross3(f2, u)
                for j in range(3):
                    B[k, j] = -u[j]
                    B[k, 3 + j] = -f1u[j]
                    B[k, 6 + j] = u[j]
                    B[k, 9 + j] = f2u[j]
                C[k] = B[k]
        # residual: node loads Σ B_r λ_r (load multipliers), then the rows by mode
        for j in range(12):
            s = 0.0
            for k in range(nu):
                s += B[k, j] * laml[k]
            r_node[e, j] = s
        for k in range(nu):
            r = used[k]
            position_level = POSITION_LEVEL[r]
            if velocity_form:
                if position_level:
                    # φ_q v + φ_t: position-level rows at velocity level
                    val = (dot3(C[k, 0:3], v1) + dot3(C[k, 3:6], w1) + dot3(C[k, 6:9], v2)
                           + dot3(C[k, 9:12], w2))
                    if r <= 2:
                        val -= pos_der[i, r]
                    elif r <= 5:
                        w0 = mv3(gamma3(rot_val[i]), rot_der[i])
                        val -= mv3(mm3(gamma_inv3(th), Ad), w0)[r - 3]
                    elif r == 14:
                        val -= dist_der[i]
                else:
                    val = c[k]
                if mode == DERIVATIVES:
                    val /= dcoef
            elif mode == IA_POSITION:
                val = c[k] if position_level else lam[k]
            else:
                val = c[k] / dcoef if position_level else c[k]
            r_c[e, k] = val
        if not want_jac:
            continue
        # Jacobian: Bᵀ on the load multipliers
        for j in range(12):
            for k in range(nu):
                j_bt[e, j, k] = B[k, j]
        Gr1 = Tw1 if velocity_form else G1     # position-level rows at velocity level: Δġ → δω
        Gr2 = Tw2 if velocity_form else G2
        for k in range(nu):
            r = used[k]
            row = j_c[e, k]
            j_diag[e, k, 0, 0] = 0.0
            if POSITION_LEVEL[r]:
                # C_x on Δẋ, C_θ G on Δġ (the dCoef of T_θ cancels the row's 1/dCoef)
                for j in range(12):
                    row[j] = C[k, j]
                _right_times(row, 3, Gr1)
                _right_times(row, 9, Gr2)
            else:
                if mode == IA_POSITION:
                    for j in range(12):
                        row[j] = 0.0
                    j_diag[e, k, 0, 0] = 1.0
                    continue
                # velocity-level rows: dCoef C_x + Cv_v on Δẋ, C_θ T_θ + Cv_ω T_ω on Δġ
                for j in range(12):
                    row[j] = dcoef * C[k, j] + Cv[k, j]
                for c0, Gn, Twn in ((3, G1, Tw1), (9, G2, Tw2)):
                    for j in range(3):
                        s = 0.0
                        for l in range(3):
                            s += dcoef * C[k, c0 + l] * Gn[l, j] + Cv[k, c0 + l] * Twn[l, j]
                        row[c0 + j] = s
            if mode == DERIVATIVES:
                for j in range(12):
                    row[j] /= dcoef
        # geometric stiffness K = Σ λ_r ∂B_r/∂(x1, θ1, x2, θ2) with the load multipliers
        K[:] = 0.0
        Fl = np.zeros(3)
        Ml = np.zeros(3)
        for k in range(nu):
            r = used[k]
            if r <= 2:
                Fl[r] += laml[k]
            elif 6 <= r <= 8:
                Fl[r - 6] += laml[k]
            elif r <= 5:
                Ml[r - 3] += laml[k]
            elif 9 <= r <= 11:
                Ml[r - 9] += laml[k]
        F = mv3(E, Fl)
        Fx = skew3(F)
        f2x = skew3(f2)
        Fxf2x = mm3(Fx, f2x)
        _add_block(K, 0, 3, Fx, 1.0)
        _add_block(K, 3, 3, mm3(skew3(b1), Fx), 1.0)
        _add_block(K, 3, 6, Fx, 1.0)
        _add_block(K, 3, 9, Fxf2x, -1.0)
        _add_block(K, 3, 0, Fx, -1.0)
        _add_block(K, 6, 3, Fx, -1.0)
        _add_block(K, 9, 9, Fxf2x, 1.0)
        _add_block(K, 9, 3, mm3(f2x, Fx), -1.0)
        Mx = skew3(mv3(Er, Ml))
        _add_block(K, 3, 3, Mx, 1.0)
        _add_block(K, 9, 3, Mx, -1.0)
        for k in range(nu):
            r = used[k]
            if r == 12 or r == 13:
                e1x = skew3(mv3(R1, a1[i, r - 12]))
                e2x = skew3(mv3(R2, a2[i, r - 12]))
                A11 = mm3(e2x, e1x)
                A12 = mm3(e1x, e2x)
                _add_block(K, 3, 3, A11, laml[k])
                _add_block(K, 3, 9, A12, -laml[k])
                _add_block(K, 9, 3, A11, -laml[k])
                _add_block(K, 9, 9, A12, laml[k])
            elif r == 14:
                distance_stiffness(K, u, dist, f1, f2, laml[k])
        # chain rule on (Δẋ, Δġ): dCoef K on the x columns, K_θ T_θ (T_θ = dCoef G) on the g columns
        for j in range(12):
            for l in range(3):
                j_k[e, j, l] = dcoef * K[j, l]
                j_k[e, j, 6 + l] = dcoef * K[j, 6 + l]
                s1 = 0.0
                s2 = 0.0
                for q in range(3):
                    s1 += K[j, 3 + q] * G1[q, l]
                    s2 += K[j, 9 + q] * G2[q, l]
                j_k[e, j, 3 + l] = dcoef * s1
                j_k[e, j, 9 + l] = dcoef * s2


@kernel
def distance_stiffness(K, u, dist, f1, f2, lam):
    """K += λ ∂B/∂(x1, θ1, x2, θ2) for B = [-u, -f1×u, u, f2×u], u = d/‖d‖,
    d = x2 + f2 - x1 - f1 (the distance joint, eq. 9.33, and the rod, eq. 9.246)."""
    P = (np.eye(3) - outer3(u, u)) / dist
    f1x, f2x, ux = skew3(f1), skew3(f2), skew3(u)
    Dd = np.zeros((3, 12))
    for j in range(3):
        Dd[j, j] = -1.0
        Dd[j, 6 + j] = 1.0
        for l in range(3):
            Dd[j, 3 + l] = f1x[j, l]
            Dd[j, 9 + l] = -f2x[j, l]
    PD = np.zeros((3, 12))
    for j in range(3):
        for l in range(12):
            PD[j, l] = P[j, 0] * Dd[0, l] + P[j, 1] * Dd[1, l] + P[j, 2] * Dd[2, l]
    for j in range(3):
        for l in range(12):
            K[j, l] -= lam * PD[j, l]
            K[6 + j, l] += lam * PD[j, l]
            s1 = 0.0
            s2 = 0.0
            for q in range(3):
                s1 += f1x[j, q] * PD[q, l]
                s2 += f2x[j, q] * PD[q, l]
            K[3 + j, l] -= lam * s1
            K[9 + j, l] += lam * s2
    _add_block(K, 3, 3, mm3(ux, f1x), -lam)
    _add_block(K, 9, 9, mm3(ux, f2x), lam)
