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
computes each of these on value types (`joint_frames`, `joint_row`, `row_rate`,
`geometric_stiffness`);
two entries call them: `joint_group`, the residual and Jacobian of the family (node loads
Σ B_r λ_r; the Jacobian follows the chain rule of G8 with T_θ = dCoef G and T_ω, and
position-level rows divided by dCoef, G2), and `joint_group_terms`, the raw terms in the
full 15-row layout (inverse dynamics, engine/drivers/inverse_terms.py)."""
import numba
import numpy as np

from mbdae.engine.core.compiled import (kernel, add_block, set_row3, vload, mload, mstore, vstore, vadd, vsub, vscale, vdot,
                                        vnorm, vcross, zero3, eye3, skew, outer, mvec, mtvec, mmul, mmult,
                                        mtrans, msub, mscale, exp_rotvec, log_rotvec, gamma, gamma_inv)
from mbdae.engine.core.state import IA_POSITION, IA_VELOCITY, DERIVATIVES

# the per-joint functions the two entries share, inlined into them by numba (inline="always",
# in its IR): compiled as separate functions, their calls (tuples pass as a hundred scalar
# arguments) made the residual 1.8× slower at 1000 joints
inlined_kernel = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")


@kernel
def position_level(r):
    """Rows 0-5 and 12-14 are position-level (divided by dCoef in a step), 6-11 velocity-level."""
    return r <= 5 or r >= 12


@kernel
def _set_row12(out, k, blocks):
    """out[k, 0:12] = the four 3-blocks."""
    for b in range(4):
        set_row3(out, k, 3 * b, blocks[b])


@kernel
def _set_entry12(out, i, r, blocks):
    """out[i, r, 0:12] = the four 3-blocks."""
    for b in range(4):
        for j in range(3):
            out[i, r, 3 * b + j] = blocks[b][j]


@kernel
def _row(a, k, c0):
    """a[k, c0:c0+3] as a vector."""
    return (a[k, c0], a[k, c0 + 1], a[k, c0 + 2])


@kernel
def _axes(a, i):
    """The two orthogonality axes of joint i (a: (ne, 2, 3)) as vectors."""
    return (a[i, 0, 0], a[i, 0, 1], a[i, 0, 2]), (a[i, 1, 0], a[i, 1, 1], a[i, 1, 2])


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


@inlined_kernel
def joint_frames(has_rot, has_dist, x1, R1, v1, w1, x2, R2, v2, w2, f1_local, f2_local, R1h, R1r, R2r,
                 rot0):
    """The geometry of one joint (vectors and matrices as tuples) from its nodes' poses and
    velocities, its offsets, frames and imposed rotation vector: (f1, f2, b1, d, Δω, w_rel,
    Eᵀ, Erᵀ, θ, Ad, Γ⁻¹(θ) Erᵀ, u, dist) with Eᵀ the rows e_k of R1 R1h, Erᵀ those of
    R1 R1r, Ad = Erᵀ R2 R2r R0ᵀ and θ = exp⁻¹(Ad) (identity and 0 unless has_rot),
    u = d/dist (0 and 1 unless has_dist)."""
    f1 = mvec(R1, f1_local)
    f2 = mvec(R2, f2_local)
    Et = mtrans(mmul(R1, R1h))                    # rows e_k of the position frame
    Ert = mtrans(mmul(R1, R1r))                   # rows of node 1's rotation frame
    E2r = mmul(R2, R2r)
    b1 = vsub(vadd(x2, f2), x1)
    d = vsub(b1, f1)
    dw = vsub(w2, w1)
    wrel = vsub(vsub(vadd(v2, vcross(w2, f2)), v1), vcross(w1, b1))
    th, Ad, Gi, u, dist = zero3(), eye3(), eye3(), zero3(), 1.0
    if has_rot:
        Ad = mmult(mmul(Ert, E2r), exp_rotvec(rot0))
        th = log_rotvec(Ad)
        Gi = mmul(gamma_inv(th), Ert)
    if has_dist:
        dist = vnorm(d)
        if dist <= 0.0:
            dist = 1.0
        u = vscale(1.0 / dist, d)
    return f1, f2, b1, d, dw, wrel, Et, Ert, th, Ad, Gi, u, dist


@inlined_kernel
def joint_row(r, R1, R2, w1, geo, a1, a2, pos, vel, avel, dist_imposed):
    """Row r of one joint: (c, B, C, Cv), value, reaction map, position gradient on
    (x1, θ1, x2, θ2) and velocity gradient on (v1, ω1, v2, ω2), each map as four 3-blocks;
    geo from joint_frames, a1, a2 the orthogonality axes (two vectors each), pos, vel, avel
    (vectors) and dist_imposed the imposed values."""
    f1, f2, b1, d, dw, wrel, Et, Ert, th, Ad, Gi, u, dist = geo
    z = zero3()
    none = (z, z, z, z)
    if r <= 2 or 6 <= r <= 8:
        q = r if r <= 2 else r - 6
        e = Et[q]
        # rows e_k × b1 = (Eᵀ b1×)_k and -(Eᵀ f2×)_k
        B = (vscale(-1.0, e), mtvec(skew(b1), e), e, vscale(-1.0, mtvec(skew(f2), e)))
        if r <= 2:
            return vdot(e, d) - pos[q], B, B, none
        Ew1 = vcross(w1, e)                       # row q of Eᵀ w1× is e_q × w1 = -Ew1
        C = (vscale(-1.0, Ew1), vscale(-1.0, vcross(wrel, e)), Ew1,
             vscale(-1.0, mtvec(skew(f2), vscale(-1.0, vcross(dw, e)))))
        return vdot(e, wrel) - vel[q], B, C, B
    if r <= 5:
        q = r - 3
        B = (z, vscale(-1.0, Ert[q]), z, Ert[q])
        return th[q], B, (z, vscale(-1.0, Gi[q]), z, Gi[q]), none
    if r <= 11:
        q = r - 9
        B = (z, vscale(-1.0, Ert[q]), z, Ert[q])
        return vdot(Ert[q], dw) - avel[q], B, (z, vscale(-1.0, vcross(dw, Ert[q])), z, z), B
    if r <= 13:
        q = r - 12
        e1 = mvec(R1, a1[q])
        e2 = mvec(R2, a2[q])
        n12 = vcross(e1, e2)
        B = (z, n12, z, vscale(-1.0, n12))
        return vdot(e1, e2), B, B, none
    B = (vscale(-1.0, u), vscale(-1.0, vcross(f1, u)), u, vcross(f2, u))
    return dist - dist_imposed, B, B, none


@inlined_kernel
def row_rate(r, th, Ad, rot0, pos_rate, rot_rate, dist_rate):
    """φ_t of the position-level row r of one joint (r in 0-5 or 14; the orthogonality rows
    have none): minus the rate of the imposed value; for the rotation rows Γ⁻¹(θ) Ad w0 with
    w0 = Γ(θ0) θ̇0 the angular velocity of R0(t)."""
    if r <= 2:
        return -pos_rate[r]
    if r <= 5:
        w0 = mvec(gamma(rot0), rot_rate)
        return -mvec(mmul(gamma_inv(th), Ad), w0)[r - 3]
    return -dist_rate


@inlined_kernel
def geometric_stiffness(K, used, lam, R1, R2, a1, a2, geo):
    """K = Σ_k lam[k] ∂B_k/∂(x1, θ1, x2, θ2) (12, 12) over the rows `used` of one joint
    (geo from joint_frames, a1, a2 its orthogonality axes)."""
    f1, f2, b1, d, dw, wrel, Et, Ert, th, Ad, Gi, u, dist = geo
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
    add_block(K, 0, 3, Fx, 1.0)
    add_block(K, 3, 3, mmul(skew(b1), Fx), 1.0)
    add_block(K, 3, 6, Fx, 1.0)
    add_block(K, 3, 9, Fxf2x, -1.0)
    add_block(K, 3, 0, Fx, -1.0)
    add_block(K, 6, 3, Fx, -1.0)
    add_block(K, 9, 9, Fxf2x, 1.0)
    add_block(K, 9, 3, mmul(f2x, Fx), -1.0)
    Mx = skew(mtvec(Ert, (Ml0, Ml1, Ml2)))
    add_block(K, 3, 3, Mx, 1.0)
    add_block(K, 9, 3, Mx, -1.0)
    for k in range(nu):
        r = used[k]
        if r == 12 or r == 13:
            e1x = skew(mvec(R1, a1[r - 12]))
            e2x = skew(mvec(R2, a2[r - 12]))
            A11 = mmul(e2x, e1x)
            A12 = mmul(e1x, e2x)
            add_block(K, 3, 3, A11, lam[k])
            add_block(K, 3, 9, A12, -lam[k])
            add_block(K, 9, 3, A11, -lam[k])
            add_block(K, 9, 9, A12, lam[k])
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
        if a < 0:             # the ground: at rest at the origin, identity frame
            x1, R1, v1, w1, G1, Tw1 = zero3(), I3, zero3(), zero3(), I3, I3
        else:
            x1, R1, v1, w1 = vload(x, a), mload(R, a), vload(v, a), vload(w, a)
            G1, Tw1 = mload(G, a), mload(Tw, a)
        x2, R2, v2, w2 = vload(x, b), mload(R, b), vload(v, b), vload(w, b)
        G2, Tw2 = mload(G, b), mload(Tw, b)
        A1, A2 = _axes(a1, i), _axes(a2, i)
        rot0 = vload(rot_val, i)
        geo = joint_frames(has_rot, has_dist, x1, R1, v1, w1, x2, R2, v2, w2, vload(f1_local, i),
                           vload(f2_local, i), mload(R1h, i), mload(R1r, i), mload(R2r, i), rot0)
        th, Ad = geo[8], geo[9]
        pos, vel, avel = vload(pos_val, i), vload(vel_val, i), vload(avel_val, i)
        for k in range(nu):
            ck, Bk, Ck, Cvk = joint_row(used[k], R1, R2, w1, geo, A1, A2, pos, vel, avel, dist_val[i])
            c[k] = ck
            _set_row12(B, k, Bk)
            _set_row12(C, k, Ck)
            _set_row12(Cv, k, Cvk)
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
                    if r <= 5 or r == 14:
                        val += row_rate(r, th, Ad, rot0, vload(pos_der, i), vload(rot_der, i), dist_der[i])
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
                set_row3(j_c[e], k, 0, _row(C, k, 0))
                set_row3(j_c[e], k, 3, mtvec(Gr1, _row(C, k, 3)))
                set_row3(j_c[e], k, 6, _row(C, k, 6))
                set_row3(j_c[e], k, 9, mtvec(Gr2, _row(C, k, 9)))
            elif mode == IA_POSITION:
                for j in range(12):
                    j_c[e, k, j] = 0.0
                j_diag[e, k, 0, 0] = 1.0
                continue
            else:
                # velocity-level rows: dCoef C_x + Cv_v on Δẋ, C_θ T_θ + Cv_ω T_ω on Δġ
                set_row3(j_c[e], k, 0, vadd(vscale(dcoef, _row(C, k, 0)), _row(Cv, k, 0)))
                set_row3(j_c[e], k, 6, vadd(vscale(dcoef, _row(C, k, 6)), _row(Cv, k, 6)))
                set_row3(j_c[e], k, 3, vadd(vscale(dcoef, mtvec(G1, _row(C, k, 3))), mtvec(Tw1, _row(Cv, k, 3))))
                set_row3(j_c[e], k, 9, vadd(vscale(dcoef, mtvec(G2, _row(C, k, 9))), mtvec(Tw2, _row(Cv, k, 9))))
            if mode == DERIVATIVES:
                for j in range(12):
                    j_c[e, k, j] /= dcoef
        # geometric stiffness with the load multipliers; chain rule on (Δẋ, Δġ): dCoef K on
        # the x columns, K_θ T_θ (T_θ = dCoef G) on the g columns
        geometric_stiffness(K, used, laml, R1, R2, A1, A2, geo)
        for j in range(12):
            set_row3(j_k[e], j, 0, vscale(dcoef, _row(K, j, 0)))
            set_row3(j_k[e], j, 6, vscale(dcoef, _row(K, j, 6)))
            set_row3(j_k[e], j, 3, vscale(dcoef, mtvec(G1, _row(K, j, 3))))
            set_row3(j_k[e], j, 9, vscale(dcoef, mtvec(G2, _row(K, j, 9))))


@kernel
def joint_group_terms(used, inst, n1, n2, f1_local, f2_local, R1h, R1r, R2r, a1, a2, pos_val, rot_val,
                      vel_val, avel_val, dist_val, pos_der, rot_der, dist_der, lam, want_K, x, v, R, w,
                      out_c, out_B, out_C, out_Cv, out_phi_t, out_K, out_Ad, out_th, out_e1, out_e2):
    """The raw terms of the rows `used` of the joints `inst` (the functions joint_group
    uses), written at their row codes into full-layout outputs over all joints: c (ne, 15),
    B, C, Cv (ne, 15, 12), φ_t (ne, 15; 0 on the velocity-level and orthogonality rows), the
    geometry Ad (ne, 3, 3), θ (ne, 3), the orthogonality axes e1 = R1 a1, e2 = R2 a2
    (ne, 2, 3) and, if want_K, the geometric stiffness K (ne, 12, 12) for the multipliers
    lam (ne, 15)."""
    nu = len(used)
    has_rot, has_dist = row_kinds(used)
    laml = np.empty(nu)
    K = np.empty((12, 12))
    I3 = eye3()
    for e in range(len(inst)):
        i = inst[e]
        a, b = n1[i], n2[i]
        if a < 0:             # the ground: at rest at the origin, identity frame
            x1, R1, v1, w1 = zero3(), I3, zero3(), zero3()
        else:
            x1, R1, v1, w1 = vload(x, a), mload(R, a), vload(v, a), vload(w, a)
        x2, R2, v2, w2 = vload(x, b), mload(R, b), vload(v, b), vload(w, b)
        A1, A2 = _axes(a1, i), _axes(a2, i)
        rot0 = vload(rot_val, i)
        geo = joint_frames(has_rot, has_dist, x1, R1, v1, w1, x2, R2, v2, w2, vload(f1_local, i),
                           vload(f2_local, i), mload(R1h, i), mload(R1r, i), mload(R2r, i), rot0)
        th, Ad = geo[8], geo[9]
        pos, vel, avel = vload(pos_val, i), vload(vel_val, i), vload(avel_val, i)
        for k in range(nu):
            r = used[k]
            ck, Bk, Ck, Cvk = joint_row(r, R1, R2, w1, geo, A1, A2, pos, vel, avel, dist_val[i])
            out_c[i, r] = ck
            _set_entry12(out_B, i, r, Bk)
            _set_entry12(out_C, i, r, Ck)
            _set_entry12(out_Cv, i, r, Cvk)
            if r <= 5 or r == 14:
                out_phi_t[i, r] = row_rate(r, th, Ad, rot0, vload(pos_der, i), vload(rot_der, i), dist_der[i])
            if r == 12 or r == 13:
                vstore(out_e1[i], r - 12, mvec(R1, A1[r - 12]))
                vstore(out_e2[i], r - 12, mvec(R2, A2[r - 12]))
            laml[k] = lam[i, r]
        mstore(out_Ad, i, Ad)
        vstore(out_th, i, th)
        if want_K:
            geometric_stiffness(K, used, laml, R1, R2, A1, A2, geo)
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
        add_block(K, 0, 3 * blk, A, -lam)
        add_block(K, 6, 3 * blk, A, lam)
        add_block(K, 3, 3 * blk, mmul(f1x, A), -lam)
        add_block(K, 9, 3 * blk, mmul(f2x, A), lam)
    add_block(K, 3, 3, mmul(ux, f1x), -lam)
    add_block(K, 9, 9, mmul(ux, f2x), lam)
