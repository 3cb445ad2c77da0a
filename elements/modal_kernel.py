"""Compiled evaluation of the modal joint family (elements/modal.py), theory manual §9.4.

Each instance owns a local, padded layout of L = 12 + 2 M + 12 NI unknowns and rows:
    0:12          modal node x, g, v, ω (columns; rows: force, moment, v = ẋ, ω = ω(g, ġ))
    12:12+M       modal coordinates q (rows: the modal equations)
    12+M:12+2M    modal velocities b (rows: b = q̇)
    per interface node k, at b = 12 + 2M + 12k:  x_N, g_N, λ, μ (rows: force, moment of N,
                  the position and the rotation constraint)
The residual is written once, on complex numbers; its Jacobian is the complex-step derivative
(exact to rounding) along each local unknown and its rate, chained to the Newton increments
as the other families do (G8): dCoef ∂f/∂y + ∂f/∂ẏ, rotations through T_θ = dCoef G and T_ω.

MBDyn's velocity form: the node's velocities v, ω and the modal velocities b are unknowns
and the inertia forces are written with their rates (the same discrete solution as MBDyn's
modal element; a momentum form would differ from it by the integrator's truncation error).
With Ω = R₀ᵀω, A = R₀ᵀ(ẍ₀ - g) and the invariants (eqs. 9.407-9.419) s = I₂ + I₃ q,
J = I₇ + Σⱼ qⱼ (I₈ⱼ + I₈ⱼᵀ) - Σⱼₖ qⱼ qₖ I₉ⱼₖ (I₉ only with `use invariant 9`),
B = I₄ + Σⱼ qⱼ I₅ⱼ, the equations of motion of T = ½ I₁ V·V + V·(Ω × s) + V·I₃ q̇ + ½ ΩᵀJΩ +
ΩᵀB q̇ + ½ q̇ᵀM_qq q̇ are, in the floating frame,
    force   I₁ A + s×ᵀΩ̇ + Ω×(Ω×s) + I₃ q̈ + 2 Ω×I₃ q̇                 = R₀ᵀ F
    moment  s×A + J Ω̇ + Ω×JΩ + B q̈ + J̇ Ω + Ω×B q̇                     = R₀ᵀ M
    modal   M_qq q̈ + I₃ᵀA + BᵀΩ̇ + 2 Σⱼ q̇ⱼ I₅ⱼᵀΩ - ½ Ω·∂J/∂q Ω + C q̇ + K q = Q
(J̇ Ω + Ω×B q̇ is MBDyn's 2 (Σ q̇ⱼ I₈ⱼ - Σ qⱼ q̇ₖ I₉ⱼₖ) Ω by Jacobi's identity).  Without I₉,
MBDyn drops its partner Ω × Σⱼ qⱼ I₅ⱼ q̇ from the moment too, and so does this kernel: the
equations are then MBDyn's, not those of a T (angular momentum is conserved with I₉ only).
Interface node N on FEM node P (eqs. 9.422-9.423, rotations linearized as in 9.389):
    c_x = x_N + R_N o_N - x₀ - R₀ (f_P + U_P q),   c_θ = ax(skew(R_Nᵀ R₀ (I + (V_P q)×)))
with λ the force on N (global) and μ the couple on N (N's frame), loading the modal node,
the modal equations (U_Pᵀ R₀ᵀ λ + V_Pᵀ R₀ᵀ R_N μ) and N as eq. 9.428 writes them (as MBDyn:
the loads are those of the physical model, not the transpose of the rows' Jacobian).

Stress stiffening (§9.4.6, eq. 9.433; FEM record 19): the modal rows get (Σ_k c_k K₀ₖ) q with,
in the floating frame, c₁…₆ = Ω₁², Ω₂², Ω₃², Ω₁Ω₂, Ω₂Ω₃, Ω₃Ω₁ (eq. 9.436), c₇…₉ = R₀ᵀω̇
(9.435), c₁₀…₁₂ = R₀ᵀ(ẍ₀ - g) (9.434), and per interface node j, c = -R₀ᵀλⱼ and
-R₀ᵀR_N μⱼ (9.438-9.439), the accelerations being the rates of the node's velocity unknowns."""
import numpy as np

from mbdae.engine.core.compiled import kernel
from mbdae.engine.core.state import REGULAR, IA_POSITION, IA_VELOCITY, DERIVATIVES

STEP = 1e-30          # complex step


@kernel
def _frame(Rb, th):
    """(I + θ×) R_b: the orientation perturbed by θ (exact to first order, all the complex
    step needs)."""
    out = np.empty((3, 3), np.complex128)
    for i in range(3):
        for j in range(3):
            out[i, j] = Rb[i, j] + (-th[2] * Rb[1, j] + th[1] * Rb[2, j] if i == 0 else
                                    (th[2] * Rb[0, j] - th[0] * Rb[2, j] if i == 1 else
                                     -th[1] * Rb[0, j] + th[0] * Rb[1, j]))
    return out


@kernel
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@kernel
def _mv(A, x):
    """A x for a 2-D A of any layout (the kernels' slices of padded arrays)."""
    out = np.zeros(A.shape[0], np.complex128)
    for i in range(A.shape[0]):
        acc = 0.0j
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        out[i] = acc
    return out


@kernel
def _mtv(A, x):
    """Aᵀ x for a 2-D A of any layout."""
    out = np.zeros(A.shape[1], np.complex128)
    for j in range(A.shape[1]):
        acc = 0.0j
        for i in range(A.shape[0]):
            acc += A[i, j] * x[i]
        out[j] = acc
    return out


@kernel
def stiffening_coefficients(e, z, n0, NI, M, Om, Omd, Ag, R0, RbN, c):
    """The coefficients c (12 + 6 NI) of the stress stiffening matrices (module docstring):
    Ω products, Ω̇ and R₀ᵀ(ẍ₀ - g) in the floating frame, the interface reactions."""
    c[:] = 0.0
    c[0], c[1], c[2] = Om[0] * Om[0], Om[1] * Om[1], Om[2] * Om[2]
    c[3], c[4], c[5] = Om[0] * Om[1], Om[1] * Om[2], Om[2] * Om[0]
    c[6:9] = Omd
    c[9:12] = Ag
    m = M[e]
    for k in range(NI[e]):
        b = 12 + 2 * m + 12 * k
        RN = _frame(RbN[e, k], z[b + 3:b + 6])
        c[12 + 6 * k:15 + 6 * k] = -(R0.T @ z[b + 6:b + 9])
        c[15 + 6 * k:18 + 6 * k] = -(R0.T @ (RN @ z[b + 9:b + 12]))


@kernel
def local_residual(mode, dcoef, e, z, zd, n0, X0c, R0c, Rb0, M, NI, I1, I2, I3, I4, I5, I7, I8, I9, use9,
                   Mqq, Kqq, Cqq, q0, qd0, RbN, oN, fP, UP, VP, gvec, gravity, ss, K0, fk, cs, out):
    """The local residual of instance e (module docstring) at local values z and rates zd
    (every data array complex, for the complex step); fk the moving frame's ω₀, ω̇₀, a₀
    (zeros in the inertial frame)."""
    m = M[e]
    out[:] = 0.0
    assembly = mode == IA_POSITION or mode == IA_VELOCITY
    velocity_rows = mode == IA_VELOCITY or mode == DERIVATIVES
    if n0[e] >= 0:
        x0 = z[0:3]
        R0 = _frame(Rb0[e], z[3:6])
        v0 = zd[0:3]
        w0 = zd[3:6]
    else:
        x0 = X0c[e]
        R0 = R0c[e]
        v0 = np.zeros(3, np.complex128)
        w0 = np.zeros(3, np.complex128)
    q = z[12:12 + m]
    qd = zd[12:12 + m]
    b = z[12 + m:12 + 2 * m]         # modal velocities (unknowns) and their rates
    bd = zd[12 + m:12 + 2 * m]
    # body-frame inertia at q (explicit loops: no temporaries per mode, no BLAS calls on
    # these tiny arrays; the complex-step Jacobian evaluates this once per local unknown)
    s = np.empty(3, np.complex128)
    J = np.empty((3, 3), np.complex128)
    Bm = np.empty((3, m), np.complex128)
    for i in range(3):
        acc = I2[e, i]
        for j in range(m):
            acc += I3[e, i, j] * q[j]
        s[i] = acc
        for c in range(3):
            acc = I7[e, i, c]
            for j in range(m):
                acc += q[j] * (I8[e, j, i, c] + I8[e, j, c, i])
            if use9:
                for j in range(m):
                    for k in range(m):
                        acc -= q[j] * q[k] * I9[e, j, k, i, c]
            J[i, c] = acc
        for k in range(m):
            acc = I4[e, i, k]
            for j in range(m):
                acc += q[j] * I5[e, j, i, k]
            Bm[i, k] = acc
    g = gravity * gvec
    framed = n0[e] >= 0
    if framed:
        vu = z[6:9]                   # the modal node's velocity unknowns and their rates
        wu = z[9:12]
        a0 = zd[6:9]
        wd0 = zd[9:12]
    else:
        vu = np.zeros(3, np.complex128)
        wu = np.zeros(3, np.complex128)
        a0 = np.zeros(3, np.complex128)
        wd0 = np.zeros(3, np.complex128)
    # in a moving frame (rigid body kinematics) the inertia forces take the floating frame's
    # absolute motion, in the moving frame's components: ω₀ + ω, ω̇₀ + ω̇ + ω₀×ω and
    # a₀ + ω̇₀×x₀ + ω₀×(ω₀×x₀) + 2 ω₀×v + v̇ (a clamped body moves with the frame)
    W0, WP0 = fk[0], fk[1]
    w_rel = wu                            # the unknown ω, relative to the moving frame
    wu = w_rel + W0
    wd0 = wd0 + WP0 + _cross(W0, w_rel)
    a0 = a0 + fk[2] + _cross(WP0, x0) + _cross(W0, _cross(W0, x0)) + 2.0 * _cross(W0, vu)
    Om = np.empty(3, np.complex128)      # R₀ᵀω, R₀ᵀω̇, R₀ᵀ(ẍ₀ - g)
    Omd = np.empty(3, np.complex128)
    Ag = np.empty(3, np.complex128)
    for i in range(3):
        Om[i] = R0[0, i] * wu[0] + R0[1, i] * wu[1] + R0[2, i] * wu[2]
        Omd[i] = R0[0, i] * wd0[0] + R0[1, i] * wd0[1] + R0[2, i] * wd0[2]
        Ag[i] = R0[0, i] * (a0[0] - g[0]) + R0[1, i] * (a0[1] - g[1]) + R0[2, i] * (a0[2] - g[2])
    if not assembly:
        if framed:
            # force: I₁(ẍ₀ - g) + R(s×ᵀ Ω̇ + Ω×(Ω×s) + I₃ q̈ + 2 Ω×I₃ q̇)
            # moment: R(s×(R₀ᵀ(ẍ₀ - g)) + J Ω̇ + Ω×J Ω + B q̈ + J̇ Ω + Ω×B q̇), in the floating frame
            I3b, I3bd, Bb, Bbd, JO, JdO = (np.zeros(3, np.complex128), np.zeros(3, np.complex128),
                                           np.zeros(3, np.complex128), np.zeros(3, np.complex128),
                                           np.zeros(3, np.complex128), np.zeros(3, np.complex128))
            for i in range(3):
                for j in range(m):
                    I3b[i] += I3[e, i, j] * b[j]
                    I3bd[i] += I3[e, i, j] * bd[j]
                    Bb[i] += Bm[i, j] * b[j]
                    Bbd[i] += Bm[i, j] * bd[j]
                for c in range(3):
                    JO[i] += J[i, c] * Om[c]
                    jd = 0.0j                  # J̇ = Σⱼ q̇ⱼ (I₈ⱼ + I₈ⱼᵀ) - Σⱼₖ (q̇ⱼ qₖ + qⱼ q̇ₖ) I₉ⱼₖ
                    for j in range(m):
                        jd += b[j] * (I8[e, j, i, c] + I8[e, j, c, i])
                        if use9:
                            for k in range(m):
                                jd -= (b[j] * q[k] + q[j] * b[k]) * I9[e, j, k, i, c]
                    JdO[i] += jd * Om[c]
            if not use9:
                # without I₉, MBDyn's moment equation also lacks its partner Ω × Σⱼ qⱼ I₅ⱼ q̇
                # (with I₉ the two make -2 Σ qⱼ q̇ₖ I₉ⱼₖ Ω): taken out
                for i in range(3):
                    acc = 0.0j
                    for k in range(m):
                        for j in range(m):
                            acc += q[j] * I5[e, j, i, k] * b[k]
                    Bb[i] -= acc
            Os = _cross(Om, s)
            OOs = _cross(Om, Os)
            sOd = _cross(s, Omd)
            OI3b = _cross(Om, I3b)
            sA = _cross(s, Ag)
            OJO = _cross(Om, JO)
            OBb = _cross(Om, Bb)
            fl = np.empty(3, np.complex128)
            ml = np.empty(3, np.complex128)
            for i in range(3):
                fl[i] = -sOd[i] + OOs[i] + I3bd[i] + 2.0 * OI3b[i]
                acc = 0.0j
                for c in range(3):
                    acc += J[i, c] * Omd[c]
                ml[i] = sA[i] + acc + OJO[i] + Bbd[i] + JdO[i] + OBb[i]
            for i in range(3):
                out[i] += I1[e] * (a0[i] - g[i]) + R0[i, 0] * fl[0] + R0[i, 1] * fl[1] + R0[i, 2] * fl[2]
                out[3 + i] += R0[i, 0] * ml[0] + R0[i, 1] * ml[1] + R0[i, 2] * ml[2]
                # the velocity unknowns' definitions (relative to the moving frame)
                out[6 + i] = vu[i] - v0[i]
                out[9 + i] = w_rel[i] - w0[i]
        for k in range(m):
            # M_qq q̈ + I₃ₖ·R₀ᵀ(ẍ₀ - g) + Bₖ·Ω̇ + 2 Σⱼ q̇ⱼ I₅ⱼ[:, k]·Ω - ½ Ω·Jₖ Ω + C q̇ + K q,
            # Jₖ = ∂J/∂qₖ = I₈ₖ + I₈ₖᵀ (- Σⱼ qⱼ (I₉ₖⱼ + I₉ⱼₖ))
            oJo = 0.0j
            for i in range(3):
                for c in range(3):
                    w = 2.0 * I8[e, k, i, c]
                    if use9:
                        for j in range(m):
                            w -= q[j] * (I9[e, k, j, i, c] + I9[e, j, k, i, c])
                    oJo += Om[i] * w * Om[c]
            acc = -0.5 * oJo
            for i in range(3):
                acc += I3[e, i, k] * Ag[i] + Bm[i, k] * Omd[i]
                for j in range(m):
                    acc += 2.0 * b[j] * I5[e, j, i, k] * Om[i]
            for j in range(m):
                acc += Mqq[e, k, j] * bd[j] + Kqq[e, k, j] * q[j] + Cqq[e, k, j] * b[j]
            out[12 + k] = acc
            out[12 + m + k] = b[k] - qd[k]
        if ss[e]:
            stiffening_coefficients(e, z, n0, NI, M, Om, Omd, Ag, R0, RbN, cs)
            for i in range(12 + 6 * NI[e]):
                if cs[i] == 0.0:
                    continue
                for k in range(m):
                    acc = 0.0j
                    for j in range(m):
                        acc += K0[e, i, k, j] * q[j]
                    out[12 + k] += cs[i] * acc
    elif mode == IA_POSITION:
        # the initial assembly solves positions and velocities only: identity rows on the rest
        for i in range(6):
            out[6 + i] = z[6 + i]
        for k in range(m):
            out[12 + k] = q[k] - q0[e, k]
            out[12 + m + k] = b[k]
    else:
        for i in range(6):
            out[6 + i] = zd[6 + i]
        for k in range(m):
            out[12 + k] = qd[k] - qd0[e, k]
            out[12 + m + k] = bd[k]
    # interface nodes
    for k in range(NI[e]):
        b = 12 + 2 * m + 12 * k
        xN = z[b:b + 3]
        RN = _frame(RbN[e, k], z[b + 3:b + 6])
        vN = zd[b:b + 3]
        wN = zd[b + 3:b + 6]
        lam = z[b + 6:b + 9]
        mu = z[b + 9:b + 12]
        d = fP[e, k] + _mv(UP[e, k, :, :m], q)
        Rd = R0 @ d
        ro = RN @ oN[e, k]
        phi = _mv(VP[e, k, :, :m], q)
        # X = R_Nᵀ R₀ (I + φ×): the interface node relative to the (linearized) FEM node frame
        Rf = R0.copy()
        for i in range(3):
            Rf[i, 0] += R0[i, 1] * phi[2] - R0[i, 2] * phi[1]
            Rf[i, 1] += R0[i, 2] * phi[0] - R0[i, 0] * phi[2]
            Rf[i, 2] += R0[i, 0] * phi[1] - R0[i, 1] * phi[0]
        X = RN.T @ Rf
        RNmu = RN @ mu
        # loads of eq. 9.428 (MBDyn's form): λ the force on N (global), μ the couple on N (N's frame)
        if n0[e] >= 0:
            out[0:3] += lam
            out[3:6] += _cross(Rd, lam) + RNmu
        RUl = _mtv(UP[e, k, :, :m], R0.T @ lam)
        Vm = _mtv(VP[e, k, :, :m], R0.T @ RNmu)
        for j in range(m):
            out[12 + j] += RUl[j] + Vm[j]
        out[b:b + 3] -= lam
        out[b + 3:b + 6] -= _cross(ro, lam) + RNmu
        # constraint rows (eqs. 9.422-9.423; ax∘skew vanishes where the rotation vector does)
        if velocity_rows:
            cx = vN + _cross(wN, ro) - v0 - _cross(w0, Rd) - R0 @ _mv(UP[e, k, :, :m], qd)
            ct = RN.T @ (w0 - wN) + _mv(VP[e, k, :, :m], qd)
        else:
            cx = xN + ro - x0 - Rd
            ct = 0.5 * np.array([X[2, 1] - X[1, 2], X[0, 2] - X[2, 0], X[1, 0] - X[0, 1]])
        scale = 1.0 / dcoef if (mode == REGULAR or mode == DERIVATIVES) else 1.0
        out[b + 6:b + 9] = cx * scale
        out[b + 9:b + 12] = ct * scale


@kernel
def modal_family(mode, dcoef, n0, X0c, R0c, M, NI, I1, I2, I3, I4, I5, I7, I8, I9, use9, Mqq, Kqq, Cqq, q0, qd0,
                 inode, oN, fP, UP, VP, qoff, moff, y, yp, x, v, R, w, G, Tw, gvec, gravity, ss, K0, fk, ib0, ic0,
                 want_jac, res, jac):
    """All modal joints: residual res (ne, L) and, if want_jac, the dense local Jacobian
    jac (ne, L, L) on the Newton increments (module docstring)."""
    ne, L = res.shape
    z = np.zeros(L, np.complex128)
    zd = np.zeros(L, np.complex128)
    f = np.zeros(L, np.complex128)
    dz = np.zeros((L, L))
    dzd = np.zeros((L, L))
    Rb0 = np.empty((ne, 3, 3))
    RbN = np.empty((ne, inode.shape[1], 3, 3))
    cs = np.zeros(K0.shape[1], np.complex128)
    for e in range(ne):
        m = M[e]
        z[:] = 0.0
        zd[:] = 0.0
        n = n0[e]
        if n >= 0:
            Rb0[e] = R[n]
            for i in range(3):
                z[i] = x[n, i]
                zd[i] = v[n, i]
                zd[3 + i] = w[n, i]
                z[6 + i], zd[6 + i] = y[ib0[e, i]], yp[ib0[e, i]]      # the node's v, ω unknowns
                z[9 + i], zd[9 + i] = y[ic0[e, i]], yp[ic0[e, i]]
        for j in range(2 * m):
            z[12 + j] = y[qoff[e] + j]
            zd[12 + j] = yp[qoff[e] + j]
        for k in range(NI[e]):
            b = 12 + 2 * m + 12 * k
            N = inode[e, k]
            RbN[e, k] = R[N]
            for i in range(3):
                z[b + i] = x[N, i]
                zd[b + i] = v[N, i]
                zd[b + 3 + i] = w[N, i]
                z[b + 6 + i] = y[moff[e, k] + i]
                z[b + 9 + i] = y[moff[e, k] + 3 + i]
        local_residual(mode, dcoef, e, z, zd, n0, X0c, R0c, Rb0, M, NI, I1, I2, I3, I4, I5, I7, I8, I9, use9,
                       Mqq, Kqq, Cqq, q0, qd0, RbN, oN, fP, UP, VP, gvec, gravity, ss, K0, fk, cs, f)
        for i in range(L):
            res[e, i] = f[i].real
        if not want_jac:
            continue
        nl = 12 + 2 * m + 12 * NI[e]
        dz[:] = 0.0
        dzd[:] = 0.0
        for c in range(nl):
            if c < 12 and n < 0:
                continue
            z[c] += 1j * STEP
            local_residual(mode, dcoef, e, z, zd, n0, X0c, R0c, Rb0, M, NI, I1, I2, I3, I4, I5, I7, I8, I9, use9,
                           Mqq, Kqq, Cqq, q0, qd0, RbN, oN, fP, UP, VP, gvec, gravity, ss, K0, fk, cs, f)
            z[c] -= 1j * STEP
            for i in range(L):
                dz[i, c] = f[i].imag / STEP
            algebraic = c >= 12 + 2 * m and (c - 12 - 2 * m) % 12 >= 6
            if algebraic:
                continue
            if c >= 12 + 2 * m and not (mode == IA_VELOCITY or mode == DERIVATIVES):
                continue                      # interface node rates enter the velocity rows only
            zd[c] += 1j * STEP
            local_residual(mode, dcoef, e, z, zd, n0, X0c, R0c, Rb0, M, NI, I1, I2, I3, I4, I5, I7, I8, I9, use9,
                           Mqq, Kqq, Cqq, q0, qd0, RbN, oN, fP, UP, VP, gvec, gravity, ss, K0, fk, cs, f)
            zd[c] -= 1j * STEP
            for i in range(L):
                dzd[i, c] = f[i].imag / STEP
        jac[e] = 0.0
        for c in range(nl):
            if c >= 12 + 2 * m and (c - 12 - 2 * m) % 12 >= 6:
                for i in range(L):
                    jac[e, i, c] = dz[i, c]
            elif (c < 3 and n >= 0) or (c >= 6 and c < 12 and n >= 0) or (c >= 12 and c < 12 + 2 * m) or \
                    (c >= 12 + 2 * m and (c - 12 - 2 * m) % 12 < 3):
                for i in range(L):
                    jac[e, i, c] = dcoef * dz[i, c] + dzd[i, c]
        # rotations: θ = dCoef G Δġ, δω = T_ω Δġ
        for blk in range(1 + NI[e]):
            if blk == 0:
                if n < 0:
                    continue
                c0, Gi, Ti = 3, G[n], Tw[n]
            else:
                c0 = 12 + 2 * m + 12 * (blk - 1) + 3
                N = inode[e, blk - 1]
                Gi, Ti = G[N], Tw[N]
            for i in range(L):
                for a in range(3):
                    s = 0.0
                    for bb in range(3):
                        s += dz[i, c0 + bb] * dcoef * Gi[bb, a] + dzd[i, c0 + bb] * Ti[bb, a]
                    jac[e, i, c0 + a] = s


@kernel
def modal_force_loads(dcoef, node, d, F, M, R, G, want_jac, r_q, r_x, r_g, j_xg, j_gg):
    """Modal forces: -d on the modal rows; -R F, -R M on the modal node (F, M in the floating
    frame), whose Jacobian on Δġ is (R F)× dCoef G, (R M)× dCoef G."""
    for k in range(len(d)):
        r_q[k] = -d[k]
    for e in range(len(node)):
        n = node[e]
        if n < 0:
            for i in range(3):
                r_x[e, i] = 0.0
                r_g[e, i] = 0.0
            continue
        RF = R[n] @ F[e]
        RM = R[n] @ M[e]
        for i in range(3):
            r_x[e, i] = -RF[i]
            r_g[e, i] = -RM[i]
        if want_jac:
            for a in range(3):
                for b in range(3):
                    sf = 0.0
                    sm = 0.0
                    for c in range(3):
                        # (v×)[a, c] = -ε_acx v_x
                        vxf = (0.0 if a == c else (-RF[3 - a - c] if (c - a) % 3 == 1 else RF[3 - a - c]))
                        vxm = (0.0 if a == c else (-RM[3 - a - c] if (c - a) % 3 == 1 else RM[3 - a - c]))
                        sf += vxf * G[n, c, b]
                        sm += vxm * G[n, c, b]
                    j_xg[e, a, b] = dcoef * sf
                    j_gg[e, a, b] = dcoef * sm
