"""The compiled kernel of the rigid joints (manual §9.1): the constraint rows, reaction
loads and Jacobian blocks of one group of joints (instances with the same rows), in one
call.  The row codes and their formulas are listed in elements/joints.py's docstring:

  0-2  position  e_kᵀ d - x̃0_k(t),  d = x2 + f2 - x1 - f1, e_k the columns of R1 R1h
  3-5  rotation  [exp⁻¹((R1 R1r)ᵀ R2 R2r R0(t)ᵀ)]_k with the multiplier of eq. 9.15
  6-8  relative velocity, 9-11 relative angular velocity (non-holonomic, eqs. 9.114, 9.116)
  12-13 axis orthogonality (R1 a1)ᵀ(R2 a2), 14 distance ‖d‖ - l(t)

Per row r: value c_r, reaction map B_r on (x1, θ1, x2, θ2), position gradient C_r,
velocity gradient Cv_r and, for the position-level rows, the explicit time derivative φ_t;
per joint the geometric stiffness K = Σ λ_r ∂B_r/∂(x1, θ1, x2, θ2).  One compiled function
computes each of these per instance (`instance_rows`, `row_rate`, `geometric_stiffness`);
two entries call them: `joint_group`, the residual and Jacobian of the family (node loads
Σ B_r λ_r; the Jacobian follows the chain rule of G8 with T_θ = dCoef G and T_ω, and
position-level rows divided by dCoef, G2), and `joint_group_terms`, the raw terms in the
full 15-row layout (inverse dynamics, engine/drivers/inverse_terms.py)."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, vload, mload, mstore, vstore, vadd, vsub, vscale, vdot,
                                        vnorm, vcross, zero3, eye3, skew, outer, mvec, mtvec, mmul, mmult,
                                        mtrans, msub, mscale, exp_rotvec, log_rotvec, gamma, gamma_inv)
from mbdae.engine.core.state import IA_POSITION, IA_VELOCITY, DERIVATIVES



@kernel
def position_level(r):
    """Rows 0-5 and 12-14 are position-level (divided by dCoef in a step), 6-11 velocity-level."""
    return r <= 5 or r >= 12


@kernel
def _add_block(K, r0, c0, A, s):
    """K[r0:r0+3, c0:c0+3] += s A."""
    for i in range(3):
        for j in range(3):
            K[r0 + i, c0 + j] += s * A[i][j]


@kernel
def _set_row(out, k, c0, v):
    """out[k, c0:c0+3] = v."""
    out[k, c0] = v[0]
    out[k, c0 + 1] = v[1]
    out[k, c0 + 2] = v[2]


@kernel
def _row(a, k, c0):
    """a[k, c0:c0+3] as a vector."""
    return (a[k, c0], a[k, c0 + 1], a[k, c0 + 2])


@kernel
def row_kinds(used):
    """(has_rot, has_dist): whether the rows `used` include rotation rows, the distance row."""
    has_rot = has_dist = False
    for r in used:
        if 3 <= r <= 5:
            has_rot = True
        elif r == 14:
            has_dist = True
    return has_rot, has_dist


@kernel
def instance_rows(used, has_rot, has_dist, i, n1, n2, f1_local, f2_local, R1h, R1r, R2r, a1, a2,
                  pos_val, rot_val, vel_val, avel_val, dist_val, x, v, R, w, c, B, C, Cv):
    """The rows `used` (row codes) of joint i: values c (u), reaction map B, position gradient
    C on (x1, θ1, x2, θ2) and velocity gradient Cv on (v1, ω1, v2, ω2), (u, 12), written into
    the scratch arrays.  Returns the geometry the callers go on with: (v1, ω1, v2, ω2, R1, R2,
    f1, f2, b1, Eᵀ, Erᵀ, θ, Ad, u, dist), with Eᵀ the rows e_k of R1 R1h, Erᵀ those of R1 R1r,
    Ad = Erᵀ R2 R2r R0ᵀ and θ = exp⁻¹(Ad) (identity and 0 without rotation rows), u = d/dist
    (0 and 1 without the distance row)."""
    nu = len(used)
    I3 = eye3()
    a, b = n1[i], n2[i]
    if a < 0:             # the ground: at rest at the origin, identity frame
        x1, R1, v1, w1 = zero3(), I3, zero3(), zero3()
    else:
        x1, R1, v1, w1 = vload(x, a), mload(R, a), vload(v, a), vload(w, a)
    x2, R2, v2, w2 = vload(x, b), mload(R, b), vload(v, b), vload(w, b)
    f1 = mvec(R1, vload(f1_local, i))
    f2 = mvec(R2, vload(f2_local, i))
    Et = mtrans(mmul(R1, mload(R1h, i)))          # rows e_k of the position frame
    Ert = mtrans(mmul(R1, mload(R1r, i)))         # rows of node 1's rotation frame
    E2r = mmul(R2, mload(R2r, i))
    b1 = vsub(vadd(x2, f2), x1)
    d = vsub(b1, f1)
    dw = vsub(w2, w1)
    wrel = vsub(vsub(vadd(v2, vcross(w2, f2)), v1), vcross(w1, b1))
    Ebx = mmul(Et, skew(b1))                      # rows (Eᵀ b1×)_k
    Ef2x = mmul(Et, skew(f2))
    th, Ad, Gi, u, dist = zero3(), I3, I3, zero3(), 1.0
    if has_rot:
        Ad = mmult(mmul(Ert, E2r), exp_rotvec(vload(rot_val, i)))
        th = log_rotvec(Ad)
        Gi = mmul(gamma_inv(th), Ert)
    if has_dist:
        dist = vnorm(d)
        if dist <= 0.0:
            dist = 1.0
        u = vscale(1.0 / dist, d)
    B[:] = 0.0
    C[:] = 0.0
    Cv[:] = 0.0
    for k in range(nu):
        r = used[k]
        if r <= 2 or 6 <= r <= 8:
            q = r if r <= 2 else r - 6
            _set_row(B, k, 0, vscale(-1.0, Et[q]))
            _set_row(B, k, 3, Ebx[q])
            _set_row(B, k, 6, Et[q])
            _set_row(B, k, 9, vscale(-1.0, Ef2x[q]))
            if r <= 2:
                c[k] = vdot(Et[q], d) - pos_val[i, q]
                C[k] = B[k]
            else:
                c[k] = vdot(Et[q], wrel) - vel_val[i, q]
                Cv[k] = B[k]
                Ew1 = vcross(w1, Et[q])          # row q of Eᵀ w1× is e_q × w1 = -Ew1
                _set_row(C, k, 0, vscale(-1.0, Ew1))
                _set_row(C, k, 3, vscale(-1.0, vcross(wrel, Et[q])))
                _set_row(C, k, 6, Ew1)
                _set_row(C, k, 9, vscale(-1.0, mtvec(skew(f2), vscale(-1.0, vcross(dw, Et[q])))))
        elif r <= 5:
            q = r - 3
            c[k] = th[q]
            _set_row(B, k, 3, vscale(-1.0, Ert[q]))
            _set_row(B, k, 9, Ert[q])
            _set_row(C, k, 3, vscale(-1.0, Gi[q]))
            _set_row(C, k, 9, Gi[q])
        elif r <= 11:
            q = r - 9
            c[k] = vdot(Ert[q], dw) - avel_val[i, q]
            _set_row(B, k, 3, vscale(-1.0, Ert[q]))
            _set_row(B, k, 9, Ert[q])
            _set_row(Cv, k, 3, vscale(-1.0, Ert[q]))
            _set_row(Cv, k, 9, Ert[q])
            _set_row(C, k, 3, vscale(-1.0, vcross(dw, Ert[q])))
        elif r <= 13:
            q = r - 12
            e1 = mvec(R1, vload(a1[i], q))
            e2 = mvec(R2, vload(a2[i], q))
            c[k] = vdot(e1, e2)
            n12 = vcross(e1, e2)
            _set_row(B, k, 3, n12)
            _set_row(B, k, 9, vscale(-1.0, n12))
            C[k] = B[k]
        else:
            c[k] = dist - dist_val[i]
            _set_row(B, k, 0, vscale(-1.0, u))
            _set_row(B, k, 3, vscale(-1.0, vcross(f1, u)))
            _set_row(B, k, 6, u)
            _set_row(B, k, 9, vcross(f2, u))
            C[k] = B[k]
    return v1, w1, v2, w2, R1, R2, f1, f2, b1, Et, Ert, th, Ad, u, dist


@kernel
def row_rate(r, i, th, Ad, rot_val, pos_der, rot_der, dist_der):
    """φ_t of the position-level row r of joint i (r in 0-5 or 14; the orthogonality rows
    have none): minus the rate of the imposed value, for the rotation rows Γ⁻¹(θ) Ad w0 with
    w0 = Γ(θ0) θ̇0 the angular velocity of R0(t)."""
    if r <= 2:
        return -pos_der[i, r]
    if r <= 5:
        w0 = mvec(gamma(vload(rot_val, i)), vload(rot_der, i))
        return -mvec(mmul(gamma_inv(th), Ad), w0)[r - 3]
    return -dist_der[i]


@kernel
def geometric_stiffness(K, used, lam, i, R1, R2, a1, a2, f1, f2, b1, Et, Ert, u, dist):
    """K = Σ_k lam[k] ∂B_k/∂(x1, θ1, x2, θ2) (12, 12) over the rows `used` of joint i, with
    the geometry instance_rows returns."""
    nu = len(used)
    K[:] = 0.0
    Fl0 = Fl1 = Fl2 = Ml0 = Ml1 = Ml2 = 0.0
    for k in range(nu):
        r = used[k]
        q = r % 3
        if r <= 2 or 6 <= r <= 8:
            if q == 0:
                Fl0 += lam[k]
            elif q == 1:
                Fl1 += lam[k]
            else:
                Fl2 += lam[k]
        elif r <= 11:
            if q == 0:
                Ml0 += lam[k]
            elif q == 1:
                Ml1 += lam[k]
            else:
                Ml2 += lam[k]
    Fx = skew(mtvec(Et, (Fl0, Fl1, Fl2)))
    f2x = skew(f2)
    Fxf2x = mmul(Fx, f2x)
    _add_block(K, 0, 3, Fx, 1.0)
    _add_block(K, 3, 3, mmul(skew(b1), Fx), 1.0)
    _add_block(K, 3, 6, Fx, 1.0)
    _add_block(K, 3, 9, Fxf2x, -1.0)
    _add_block(K, 3, 0, Fx, -1.0)
    _add_block(K, 6, 3, Fx, -1.0)
    _add_block(K, 9, 9, Fxf2x, 1.0)
    _add_block(K, 9, 3, mmul(f2x, Fx), -1.0)
    Mx = skew(mtvec(Ert, (Ml0, Ml1, Ml2)))
    _add_block(K, 3, 3, Mx, 1.0)
    _add_block(K, 9, 3, Mx, -1.0)
    for k in range(nu):
        r = used[k]
        if r == 12 or r == 13:
            e1x = skew(mvec(R1, vload(a1[i], r - 12)))
            e2x = skew(mvec(R2, vload(a2[i], r - 12)))
            A11 = mmul(e2x, e1x)
            A12 = mmul(e1x, e2x)
            _add_block(K, 3, 3, A11, lam[k])
            _add_block(K, 3, 9, A12, -lam[k])
            _add_block(K, 9, 3, A11, -lam[k])
            _add_block(K, 9, 9, A12, lam[k])
        elif r == 14:
            distance_stiffness(K, u, dist, f1, f2, lam[k])


@kernel
def joint_group(mode, dcoef, used, inst, n1, n2, mult, load_mult, f1_local, f2_local, R1h, R1r, R2r,
                a1, a2, pos_val, rot_val, vel_val, avel_val, dist_val, pos_der, rot_der, dist_der,
                y, x, v, R, w, G, Tw, want_jac, r_node, r_c, j_bt, j_c, j_k, j_diag):
    """Rows `used` (row codes) of the joints `inst`; outputs shaped (len(inst), …) as the
    group's pattern blocks: node loads (12), row values (u), Bᵀ (12, u), row Jacobian (u, 12),
    geometric stiffness (12, 12) and the multiplier diagonal of the assembly (u, 1, 1)."""
    nu = len(used)
    has_rot, has_dist = row_kinds(used)
    velocity_form = mode == IA_VELOCITY or mode == DERIVATIVES
    # per-instance scratch, allocated once per call
    c = np.empty(nu)
    B = np.empty((nu, 12))
    C = np.empty((nu, 12))
    Cv = np.empty((nu, 12))
    lam = np.empty(nu)
    laml = np.empty(nu)
    K = np.empty((12, 12))
    I3 = eye3()
    for e in range(len(inst)):
        i = inst[e]
        a, b = n1[i], n2[i]
        if a < 0:             # the ground: identity frame
            G1, Tw1 = I3, I3
        else:
            G1, Tw1 = mload(G, a), mload(Tw, a)
        G2, Tw2 = mload(G, b), mload(Tw, b)
        v1, w1, v2, w2, R1, R2, f1, f2, b1, Et, Ert, th, Ad, u, dist = instance_rows(
            used, has_rot, has_dist, i, n1, n2, f1_local, f2_local, R1h, R1r, R2r, a1, a2, pos_val,
            rot_val, vel_val, avel_val, dist_val, x, v, R, w, c, B, C, Cv)
        for k in range(nu):
            m = mult[e, k]
            lam[k] = y[m] if m >= 0 else 0.0
            ml = load_mult[e, k]
            laml[k] = y[ml] if ml >= 0 else 0.0
        # residual: node loads Σ B_r λ_r (load multipliers), then the rows by mode
        for j in range(12):
            s = 0.0
            for k in range(nu):
                s += B[k, j] * laml[k]
            r_node[e, j] = s
        for k in range(nu):
            r = used[k]
            if velocity_form:
                if position_level(r):
                    # φ_q v + φ_t: position-level rows at velocity level
                    val = (vdot(_row(C, k, 0), v1) + vdot(_row(C, k, 3), w1) + vdot(_row(C, k, 6), v2)
                           + vdot(_row(C, k, 9), w2))
                    if r != 12 and r != 13:
                        val += row_rate(r, i, th, Ad, rot_val, pos_der, rot_der, dist_der)
                else:
                    val = c[k]
                if mode == DERIVATIVES:
                    val /= dcoef
            elif mode == IA_POSITION:
                val = c[k] if position_level(r) else lam[k]
            else:
                val = c[k] / dcoef if position_level(r) else c[k]
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
            j_diag[e, k, 0, 0] = 0.0
            if position_level(r):
                # C_x on Δẋ, C_θ G on Δġ (the dCoef of T_θ cancels the row's 1/dCoef)
                _set_row(j_c[e], k, 0, _row(C, k, 0))
                _set_row(j_c[e], k, 3, mtvec(Gr1, _row(C, k, 3)))
                _set_row(j_c[e], k, 6, _row(C, k, 6))
                _set_row(j_c[e], k, 9, mtvec(Gr2, _row(C, k, 9)))
            elif mode == IA_POSITION:
                for j in range(12):
                    j_c[e, k, j] = 0.0
                j_diag[e, k, 0, 0] = 1.0
                continue
            else:
                # velocity-level rows: dCoef C_x + Cv_v on Δẋ, C_θ T_θ + Cv_ω T_ω on Δġ
                _set_row(j_c[e], k, 0, vadd(vscale(dcoef, _row(C, k, 0)), _row(Cv, k, 0)))
                _set_row(j_c[e], k, 6, vadd(vscale(dcoef, _row(C, k, 6)), _row(Cv, k, 6)))
                _set_row(j_c[e], k, 3, vadd(vscale(dcoef, mtvec(G1, _row(C, k, 3))), mtvec(Tw1, _row(Cv, k, 3))))
                _set_row(j_c[e], k, 9, vadd(vscale(dcoef, mtvec(G2, _row(C, k, 9))), mtvec(Tw2, _row(Cv, k, 9))))
            if mode == DERIVATIVES:
                for j in range(12):
                    j_c[e, k, j] /= dcoef
        # geometric stiffness with the load multipliers; chain rule on (Δẋ, Δġ): dCoef K on
        # the x columns, K_θ T_θ (T_θ = dCoef G) on the g columns
        geometric_stiffness(K, used, laml, i, R1, R2, a1, a2, f1, f2, b1, Et, Ert, u, dist)
        for j in range(12):
            _set_row(j_k[e], j, 0, vscale(dcoef, _row(K, j, 0)))
            _set_row(j_k[e], j, 6, vscale(dcoef, _row(K, j, 6)))
            _set_row(j_k[e], j, 3, vscale(dcoef, mtvec(G1, _row(K, j, 3))))
            _set_row(j_k[e], j, 9, vscale(dcoef, mtvec(G2, _row(K, j, 9))))


@kernel
def joint_group_terms(used, inst, n1, n2, f1_local, f2_local, R1h, R1r, R2r, a1, a2, pos_val, rot_val,
                      vel_val, avel_val, dist_val, pos_der, rot_der, dist_der, lam, want_K, x, v, R, w,
                      out_c, out_B, out_C, out_Cv, out_phi_t, out_K, out_Ad, out_th, out_e1, out_e2):
    """The raw terms of the rows `used` of the joints `inst`, written at their row codes into
    the full-layout outputs over all joints: c (ne, 15), B, C, Cv (ne, 15, 12), φ_t (ne, 15;
    0 on the velocity-level and orthogonality rows), the geometry Ad (ne, 3, 3), θ (ne, 3)
    and the orthogonality axes e1 = R1 a1, e2 = R2 a2 (ne, 2, 3) and, if want_K, the
    geometric stiffness K (ne, 12, 12) for the multipliers lam (ne, 15)."""
    nu = len(used)
    has_rot, has_dist = row_kinds(used)
    c = np.empty(nu)
    B = np.empty((nu, 12))
    C = np.empty((nu, 12))
    Cv = np.empty((nu, 12))
    laml = np.empty(nu)
    K = np.empty((12, 12))
    for e in range(len(inst)):
        i = inst[e]
        v1, w1, v2, w2, R1, R2, f1, f2, b1, Et, Ert, th, Ad, u, dist = instance_rows(
            used, has_rot, has_dist, i, n1, n2, f1_local, f2_local, R1h, R1r, R2r, a1, a2, pos_val,
            rot_val, vel_val, avel_val, dist_val, x, v, R, w, c, B, C, Cv)
        for k in range(nu):
            r = used[k]
            out_c[i, r] = c[k]
            for j in range(12):
                out_B[i, r, j] = B[k, j]
                out_C[i, r, j] = C[k, j]
                out_Cv[i, r, j] = Cv[k, j]
            if r <= 5 or r == 14:
                out_phi_t[i, r] = row_rate(r, i, th, Ad, rot_val, pos_der, rot_der, dist_der)
            else:
                out_phi_t[i, r] = 0.0
            if r == 12 or r == 13:
                vstore(out_e1[i], r - 12, mvec(R1, vload(a1[i], r - 12)))
                vstore(out_e2[i], r - 12, mvec(R2, vload(a2[i], r - 12)))
            laml[k] = lam[i, r]
        mstore(out_Ad, i, Ad)
        vstore(out_th, i, th)
        if want_K:
            geometric_stiffness(K, used, laml, i, R1, R2, a1, a2, f1, f2, b1, Et, Ert, u, dist)
            for j in range(12):
                for q in range(12):
                    out_K[i, j, q] = K[j, q]


@kernel
def distance_stiffness(K, u, dist, f1, f2, lam):
    """K += λ ∂B/∂(x1, θ1, x2, θ2) for B = [-u, -f1×u, u, f2×u], u = d/‖d‖,
    d = x2 + f2 - x1 - f1 (the distance joint, eq. 9.33, and the rod, eq. 9.246);
    u, f1, f2 are vectors (tuples)."""
    P = mscale(1.0 / dist, msub(eye3(), outer(u, u)))
    f1x, f2x, ux = skew(f1), skew(f2), skew(u)
    # P Dd with Dd = [-I, f1×, I, -f2×], by 3-column blocks
    PD = (mscale(-1.0, P), mmul(P, f1x), P, mscale(-1.0, mmul(P, f2x)))
    for blk in range(4):
        A = PD[blk]
        _add_block(K, 0, 3 * blk, A, -lam)
        _add_block(K, 6, 3 * blk, A, lam)
        _add_block(K, 3, 3 * blk, mmul(f1x, A), -lam)
        _add_block(K, 9, 3 * blk, mmul(f2x, A), lam)
    _add_block(K, 3, 3, mmul(ux, f1x), -lam)
    _add_block(K, 9, 9, mmul(ux, f2x), lam)
