"""Compiled kernels of the solid elements (theory manual §12.0.1–12.0.6): total Lagrangian,
isoparametric, any shape (the shape enters as tables at the integration points), any
solid law (engine/core/solid_laws.solid_law), u/p-c pressure unknowns, consistent or
lumped mass, gravity, the inertial loads of a moving frame (`rigid body kinematics`).

Residual rows (mbdae's r = -f, MBDyn eqs. 12.58–12.60):
  node force rows     r_u = ⁱk̂ - ᵇf̂          (the node adds β̂̇ and, in a moving frame,
                                               the Coriolis load 2 ω₀×β̂)
  momentum rows       r_b = -M u̇              (the node adds β̂)
  hydraulic rows      r_p = ĉ                 (u/p-c only, eq. 12.41)
with ⁱk̂_a = Σ_g P h0d_a dV, P = F S (eq. 12.26), ĉ_q = Σ_g σ₇ g_q dV.
Jacobian on the Newton increments (Δẋ of the node positions, x += dCoef Δẋ; Δp̂ of the
algebraic pressures): dCoef ∂r/∂x + ∂r/∂ẋ and ∂r/∂p̂.  Tangent of the internal forces per
integration point: ∂ⁱk̂_a/∂x_b = (B_aᵀ D B_b + h0d_aᵀ S h0d_b I) dV plus the viscous terms
B_aᵀ D_d ∂ε̇*/∂x_b, and ∂ⁱk̂_a/∂ẋ_b = B_aᵀ D_d ∂ε̇*/∂ẋ_b dV, with B_a the Voigt map
δε = B_a δx_a (eq. 12.23) and ε̇* the Voigt form of Ġ* = det F C⁻¹ Ġ C⁻¹ (eq. 12.17),
differentiated exactly (the derivative through C⁻¹ and det F included).
Body loads ᵇf̂_a = ∫ρ h_a b dV (eq. 12.48) with b = g - ā₀ - ω̄̇₀×x - ω̄₀×ω̄₀×x (eq. 12.46, the
Coriolis part left to the nodes): the gravity part is ∫ρ h_a dV g, the frame part, with
x = Σ h_b x_b, is -Σ_b M_ab (ā₀ + A x_b), A = ω̄̇₀× + ω̄₀×ω̄₀× (M the element's mass matrix,
consistent or lumped; none for elements without inertia), whose Jacobian is dCoef M_ab A."""
import numpy as np

from mbdae.engine.core.compiled import kernel
from mbdae.engine.core.solid_laws import solid_law, inverse3


# Voigt pairs of MBDyn's order (11, 22, 33, 12, 23, 31)
VI = np.array([0, 1, 2, 0, 1, 2], np.int64)
VJ = np.array([0, 1, 2, 1, 2, 0], np.int64)


@kernel
def strain_voigt(E, out):
    """(E11, E22, E33, 2E12, 2E23, 2E31) of a symmetric 3×3 tensor."""
    out[0] = E[0, 0]
    out[1] = E[1, 1]
    out[2] = E[2, 2]
    out[3] = E[0, 1] + E[1, 0]
    out[4] = E[1, 2] + E[2, 1]
    out[5] = E[2, 0] + E[0, 2]


@kernel
def sandwich(A, M, out):
    """out = A M A (3×3)."""
    for i in range(3):
        for j in range(3):
            s = 0.0
            for k in range(3):
                for m in range(3):
                    s += A[i, k] * M[k, m] * A[m, j]
            out[i, j] = s


@kernel
def rate_maps(F, Fd, detF, A, Finv, Ed, T, dGsdF, work):
    """The scaled strain rate's derivatives at one point: T (6×6), the map from the Voigt
    strain rate ε̇ to ε̇* (Ġ* = det F A Ġ A, A = C⁻¹), and dGsdF (9×6): ∂ε̇*/∂F_mj at fixed Ḟ,
    row 3m + j (with δC = δFᵀF + FᵀδF, δA = -A δC A, δĠ = sym(δFᵀ Ḟ), δdet F = det F F⁻¹_jm).
    work: (5, 3, 3) scratch."""
    M, S1, S2, dA, dE = work[0], work[1], work[2], work[3], work[4]
    v = np.empty(6)
    for c in range(6):
        for i in range(3):
            for j in range(3):
                M[i, j] = 0.0
        if c < 3:
            M[c, c] = 1.0
        else:
            M[VI[c], VJ[c]] = 0.5
            M[VJ[c], VI[c]] = 0.5
        sandwich(A, M, S1)
        strain_voigt(S1, v)
        for r in range(6):
            T[r, c] = detF * v[r]
    sandwich(A, Ed, S2)                       # A Ė A
    for m in range(3):
        for j in range(3):
            # δC = e_j F[m,:] + F[m,:]ᵀ e_jᵀ ; δA = -A δC A
            for p in range(3):
                for q in range(3):
                    M[p, q] = (F[m, q] if p == j else 0.0) + (F[m, p] if q == j else 0.0)
            sandwich(A, M, dA)
            for p in range(3):
                for q in range(3):
                    dA[p, q] = -dA[p, q]
            # δĖ = sym(δFᵀ Ḟ): (δFᵀ Ḟ)_pq = δ_pj Ḟ_mq
            for p in range(3):
                for q in range(3):
                    dE[p, q] = 0.5 * ((Fd[m, q] if p == j else 0.0) + (Fd[m, p] if q == j else 0.0))
            ddet = detF * Finv[j, m]
            # δGs = det F (δA Ė A + A Ė δA + A δĖ A) + δdet F A Ė A
            for p in range(3):
                for q in range(3):
                    s = 0.0
                    for k in range(3):
                        for l in range(3):
                            s += dA[p, k] * Ed[k, l] * A[l, q] + A[p, k] * Ed[k, l] * dA[l, q] \
                                + A[p, k] * dE[k, l] * A[l, q]
                    S1[p, q] = detF * s + ddet * S2[p, q]
            strain_voigt(S1, v)
            for r in range(6):
                dGsdF[3 * m + j, r] = v[r]


@kernel
def reference_gradients(dH, g, X0, nodes, J0, iJ, h0d):
    """At integration point g of the element on `nodes`: the reference Jacobian
    ⁰J_ij = Σ_k ∂h_k/∂r_i X_kj (eq. 12.8) into J0, its inverse into iJ and the reference
    shape-function gradients h0d = h_d ⁰J⁻ᵀ (eq. 12.12) into h0d; returns det ⁰J."""
    N = nodes.shape[0]
    for i in range(3):
        for j in range(3):
            s = 0.0
            for k in range(N):
                s += dH[g, k, i] * X0[nodes[k], j]
            J0[i, j] = s
    detJ = inverse3(J0, iJ)
    for k in range(N):
        for j in range(3):
            h0d[k, j] = dH[g, k, 0] * iJ[j, 0] + dH[g, k, 1] * iJ[j, 1] + dH[g, k, 2] * iJ[j, 2]
    return detJ


@kernel
def solid_equations(conn, X0, x, v, H, dH, W, Hp, prow, y, law_idx, codes, params, hold, hnew, dt,
                    Me, inertial, fg, gvec, frame, w0, wp0, a0, dcoef, want_jac, bad,
                    r_u, r_p, r_b, j_uu, j_up, j_pu, j_pp, j_bu):
    """All elements of one shape: residual blocks r_u (ne, 3N), r_p (ne, Np), r_b (ne, 3N)
    and, when want_jac, the Jacobian blocks j_uu (ne, 3N, 3N), j_up (ne, 3N, Np),
    j_pu (ne, Np, 3N), j_pp (ne, Np, Np), j_bu (ne, 3, N, N) (momentum rows on the node
    velocities, per component).  H (ng, N), dH (ng, N, 3), W (ng,): shape functions, their
    natural derivatives and weights at the integration points; Hp (ng, Np) the pressure
    interpolation; prow (ne, Np) the rows of the hydraulic unknowns in y.  frame: the model
    is written in a moving frame of angular velocity w0, angular acceleration wp0 and origin
    acceleration a0 (frame components; module docstring).  hnew receives
    the laws' internal state at this iterate.  bad[0] receives the first element with
    det F ≤ 0 (or -1), bad[1] the integration point."""
    ne, N = conn.shape
    ng = W.shape[0]
    Np = Hp.shape[1]
    ue = np.empty((N, 3))
    ve = np.empty((N, 3))
    pe = np.empty(max(Np, 1))
    J0 = np.empty((3, 3))
    iJ = np.empty((3, 3))
    h0d = np.empty((N, 3))
    F = np.empty((3, 3))
    Fd = np.empty((3, 3))
    Finv = np.empty((3, 3))
    C = np.empty((3, 3))
    A = np.empty((3, 3))
    E = np.empty((3, 3))
    Ed = np.empty((3, 3))
    Gs = np.empty((3, 3))
    S = np.empty((3, 3))
    P = np.empty((3, 3))
    eps = np.empty(7)
    epsd = np.empty(6)
    sig = np.empty(7)
    D = np.empty((7, 7))
    Dd = np.empty((7, 6))
    B = np.empty((N, 6, 3))
    Q = np.empty((N, 6, 3))
    T = np.empty((6, 6))
    dGsdF = np.empty((9, 6))
    DdT = np.empty((6, 6))
    DdG = np.empty((9, 6))
    work = np.empty((5, 3, 3))
    # Af = A = ω̄̇₀× + ω̄₀×ω̄₀× of the moving frame (the name A is C⁻¹ below)
    Af = np.empty((3, 3))
    W0 = np.array([[0.0, -w0[2], w0[1]], [w0[2], 0.0, -w0[0]], [-w0[1], w0[0], 0.0]])
    for i in range(3):
        for k in range(3):
            Af[i, k] = W0[i, 0] * W0[0, k] + W0[i, 1] * W0[1, k] + W0[i, 2] * W0[2, k]
    Af[0, 1] -= wp0[2]
    Af[0, 2] += wp0[1]
    Af[1, 0] += wp0[2]
    Af[1, 2] -= wp0[0]
    Af[2, 0] -= wp0[1]
    Af[2, 1] += wp0[0]
    bad[0] = -1
    bad[1] = -1
    for e in range(ne):
        for k in range(N):
            nd = conn[e, k]
            for i in range(3):
                ue[k, i] = x[nd, i] - X0[nd, i]
                ve[k, i] = v[nd, i]
        for q in range(Np):
            pe[q] = y[prow[e, q]]
        for a in range(3 * N):
            r_u[e, a] = 0.0
        for q in range(Np):
            r_p[e, q] = 0.0
        if want_jac:
            for a in range(3 * N):
                for b in range(3 * N):
                    j_uu[e, a, b] = 0.0
                for q in range(Np):
                    j_up[e, a, q] = 0.0
                    j_pu[e, q, a] = 0.0
            for q in range(Np):
                for s in range(Np):
                    j_pp[e, q, s] = 0.0
        for g in range(ng):
            dV = reference_gradients(dH, g, X0, conn[e], J0, iJ, h0d) * W[g]
            # F = I + Σ û_k h0d_kᵀ, Ḟ = Σ û̇_k h0d_kᵀ (eqs. 12.10-12.11)
            for i in range(3):
                for j in range(3):
                    s = 1.0 if i == j else 0.0
                    sd = 0.0
                    for k in range(N):
                        s += ue[k, i] * h0d[k, j]
                        sd += ve[k, i] * h0d[k, j]
                    F[i, j] = s
                    Fd[i, j] = sd
            detF = inverse3(F, Finv)
            if not detF > 0.0 and bad[0] < 0:
                bad[0] = e
                bad[1] = g
            # C, G, Ġ, Ġ* (eqs. 12.14-12.17)
            for i in range(3):
                for j in range(3):
                    s = 0.0
                    sd = 0.0
                    for k in range(3):
                        s += F[k, i] * F[k, j]
                        sd += F[k, i] * Fd[k, j] + Fd[k, i] * F[k, j]
                    C[i, j] = s
                    E[i, j] = 0.5 * (s - (1.0 if i == j else 0.0))
                    Ed[i, j] = 0.5 * sd
            inverse3(C, A)
            sandwich(A, Ed, Gs)
            for i in range(3):
                for j in range(3):
                    Gs[i, j] *= detF
            strain_voigt(E, eps)
            ptil = 0.0
            for q in range(Np):
                ptil += Hp[g, q] * pe[q]
            eps[6] = ptil
            strain_voigt(Gs, epsd)
            solid_law(codes[law_idx[e, g]], params[law_idx[e, g]], eps, epsd, dt, hold[e, g], hnew[e, g],
                      sig, D, Dd)
            for c in range(6):
                S[VI[c], VJ[c]] = sig[c]
                S[VJ[c], VI[c]] = sig[c]
            for i in range(3):
                for j in range(3):
                    P[i, j] = F[i, 0] * S[0, j] + F[i, 1] * S[1, j] + F[i, 2] * S[2, j]
            # internal forces (eq. 12.26) and volumetric compatibility (eq. 12.41)
            for a in range(N):
                for i in range(3):
                    r_u[e, 3 * a + i] += dV * (P[i, 0] * h0d[a, 0] + P[i, 1] * h0d[a, 1] + P[i, 2] * h0d[a, 2])
            for q in range(Np):
                r_p[e, q] += dV * sig[6] * Hp[g, q]
            if not want_jac:
                continue
            # B_a: δε = B_a δx_a (eq. 12.23 in Voigt form)
            for a in range(N):
                for m in range(3):
                    B[a, 0, m] = F[m, 0] * h0d[a, 0]
                    B[a, 1, m] = F[m, 1] * h0d[a, 1]
                    B[a, 2, m] = F[m, 2] * h0d[a, 2]
                    B[a, 3, m] = F[m, 0] * h0d[a, 1] + F[m, 1] * h0d[a, 0]
                    B[a, 4, m] = F[m, 1] * h0d[a, 2] + F[m, 2] * h0d[a, 1]
                    B[a, 5, m] = F[m, 2] * h0d[a, 0] + F[m, 0] * h0d[a, 2]
            viscous = False
            for r in range(7):
                for c in range(6):
                    if Dd[r, c] != 0.0:
                        viscous = True
            if viscous:
                rate_maps(F, Fd, detF, A, Finv, Ed, T, dGsdF, work)
                for r in range(7 if Np > 0 else 6):
                    pass
                for r in range(6):
                    for c in range(6):
                        s = 0.0
                        for k in range(6):
                            s += Dd[r, k] * T[k, c]
                        DdT[r, c] = s
                    for c in range(9):
                        s = 0.0
                        for k in range(6):
                            s += Dd[r, k] * dGsdF[c, k]
                        DdG[c, r] = s
            # Q_b = dCoef (D B_b + D_d ∂ε̇*/∂x_b) + D_d T B_b: the stress change per Newton increment
            for b in range(N):
                for r in range(6):
                    for n in range(3):
                        s = 0.0
                        for c in range(6):
                            s += D[r, c] * B[b, c, n]
                        s *= dcoef
                        if viscous:
                            sv = 0.0
                            for c in range(6):
                                sv += DdT[r, c] * B[b, c, n]
                            sx = 0.0
                            for j in range(3):
                                sx += DdG[3 * n + j, r] * h0d[b, j]
                            s += sv + dcoef * sx
                        Q[b, r, n] = s
            for a in range(N):
                for b in range(N):
                    geo = dcoef * dV * (h0d[a, 0] * (S[0, 0] * h0d[b, 0] + S[0, 1] * h0d[b, 1] + S[0, 2] * h0d[b, 2])
                                        + h0d[a, 1] * (S[1, 0] * h0d[b, 0] + S[1, 1] * h0d[b, 1] + S[1, 2] * h0d[b, 2])
                                        + h0d[a, 2] * (S[2, 0] * h0d[b, 0] + S[2, 1] * h0d[b, 1] + S[2, 2] * h0d[b, 2]))
                    for m in range(3):
                        for n in range(3):
                            s = 0.0
                            for c in range(6):
                                s += B[a, c, m] * Q[b, c, n]
                            j_uu[e, 3 * a + m, 3 * b + n] += dV * s + (geo if m == n else 0.0)
            if Np > 0:
                for a in range(N):
                    for m in range(3):
                        s = 0.0
                        for c in range(6):
                            s += B[a, c, m] * D[c, 6]
                        for q in range(Np):
                            j_up[e, 3 * a + m, q] += dV * s * Hp[g, q]
                for b in range(N):
                    for n in range(3):
                        s = 0.0
                        for c in range(6):
                            s += D[6, c] * B[b, c, n]
                        s *= dcoef
                        if viscous:
                            for c in range(6):
                                sv = 0.0
                                for k in range(6):
                                    sv += Dd[6, k] * T[k, c]
                                s += sv * B[b, c, n]
                            for j in range(3):
                                sx = 0.0
                                for k in range(6):
                                    sx += Dd[6, k] * dGsdF[3 * n + j, k]
                                s += dcoef * sx * h0d[b, j]
                        for q in range(Np):
                            j_pu[e, q, 3 * b + n] += dV * Hp[g, q] * s
                for q in range(Np):
                    for s_ in range(Np):
                        j_pp[e, q, s_] += dV * Hp[g, q] * D[6, 6] * Hp[g, s_]
        # gravity (eq. 12.48 with b = g) and inertia (eq. 12.58)
        for a in range(N):
            for i in range(3):
                r_u[e, 3 * a + i] -= fg[e, a] * gvec[i]
        if inertial and frame:
            # the moving frame's loads Σ_b M_ab (ā₀ + A x_b) on the force rows, and dCoef M_ab A
            for a in range(N):
                for b in range(N):
                    mab = Me[e, a, b]
                    if mab == 0.0:
                        continue
                    xb = x[conn[e, b]]
                    for i in range(3):
                        s = a0[i]
                        for k in range(3):
                            s += Af[i, k] * xb[k]
                        r_u[e, 3 * a + i] += mab * s
                    if want_jac:
                        for i in range(3):
                            for k in range(3):
                                j_uu[e, 3 * a + i, 3 * b + k] += dcoef * mab * Af[i, k]
        if inertial:
            for a in range(N):
                for i in range(3):
                    s = 0.0
                    for b in range(N):
                        s += Me[e, a, b] * ve[b, i]
                    r_b[e, 3 * a + i] = -s
            if want_jac:
                for i in range(3):
                    for a in range(N):
                        for b in range(N):
                            j_bu[e, i, a, b] = -Me[e, a, b]


@kernel
def solid_stresses(conn, X0, x, H, dH, W, Hp, prow, y, law_idx, codes, params, hold, dt, cauchy, green):
    """Cauchy stress τ = F S Fᵀ / det F and Green–Lagrange strain (Voigt, MBDyn's order) at
    every integration point: cauchy, green (ne, ng, 6) (output)."""
    ne, N = conn.shape
    ng = W.shape[0]
    Np = Hp.shape[1]
    J0 = np.empty((3, 3))
    iJ = np.empty((3, 3))
    F = np.empty((3, 3))
    Finv = np.empty((3, 3))
    E = np.empty((3, 3))
    S = np.empty((3, 3))
    h0d = np.empty((N, 3))
    eps = np.empty(7)
    epsd = np.zeros(6)
    sig = np.empty(7)
    D = np.empty((7, 7))
    Dd = np.empty((7, 6))
    hnew = np.empty(hold.shape[2])
    tau = np.empty((3, 3))
    for e in range(ne):
        for g in range(ng):
            reference_gradients(dH, g, X0, conn[e], J0, iJ, h0d)
            for i in range(3):
                for j in range(3):
                    s = 1.0 if i == j else 0.0
                    for k in range(N):
                        nd = conn[e, k]
                        s += (x[nd, i] - X0[nd, i]) * h0d[k, j]
                    F[i, j] = s
            detF = inverse3(F, Finv)
            for i in range(3):
                for j in range(3):
                    s = 0.0
                    for k in range(3):
                        s += F[k, i] * F[k, j]
                    E[i, j] = 0.5 * (s - (1.0 if i == j else 0.0))
            strain_voigt(E, eps)
            ptil = 0.0
            for q in range(Np):
                ptil += Hp[g, q] * y[prow[e, q]]
            eps[6] = ptil
            solid_law(codes[law_idx[e, g]], params[law_idx[e, g]], eps, epsd, dt, hold[e, g], hnew, sig, D, Dd)
            for c in range(6):
                S[VI[c], VJ[c]] = sig[c]
                S[VJ[c], VI[c]] = sig[c]
            for i in range(3):
                for j in range(3):
                    s = 0.0
                    for k in range(3):
                        for m in range(3):
                            s += F[i, k] * S[k, m] * F[j, m]
                    tau[i, j] = s / detF
            for c in range(6):
                cauchy[e, g, c] = tau[VI[c], VJ[c]]
                green[e, g, c] = E[VI[c], VJ[c]]
