"""Compiled kernels of the 4-node EAS membrane (MBDyn's `membrane4eas`; input manual
"Membrane4", technical manual "shell" chapter, the membrane part of Witkowski's EAS shell).

Quadrilateral geometry (small kernels, shared by any 4-node surface element):
  quad_shape        bilinear shape functions N_k(ξ, η) and ∂N_k/∂(ξ, η), MBDyn's node order
                    (ξ_k, η_k) = (1, 1), (-1, 1), (-1, -1), (1, -1)
  quad_tangents     g_a = Σ_k x_k ∂N_k/∂ξ_a
  quad_frame        the local frame T = [t1 t2 t3]: t1 = g1/|g1|, t3 = g1×g2/|g1×g2|, t2 = t3×t1
                    (MBDyn's, at every Gauss point and at the centre)
  quad_frame_aligned  t3 as above, t1 the projection of the centre's t1 (the variant's frame)
  quad_metric       S_ab = t_a·g_b (the 2×2 Jacobian of the local Cartesian coordinates),
                    returns α = det S (the area factor)
  eas_interpolation H(ξ, η) (3×7): ε̂_ξ = H β with modes ξ, ξη on ε11; η, ξη on ε22;
                    ξ, ξη, η on ε12 (MBDyn's 7 parameters)
  eas_push_forward  M0 (3×3) of S0 = S at the element centre (MBDyn's Voigt transformation);
                    the enhanced strain at a point is ε̂ = (α0/α) M0⁻ᵀ H(ξ, η) β
  eas_push_forward_inverse  M0⁻¹, or the matrix MBDyn 1.7.3 uses in its place

Two variants (`mbdyn` per element):
  MBDyn's (default): the strain components in the frame of quad_frame at each Gauss point and
    MBDyn's matrix in place of M0⁻¹ (eas_push_forward_inverse);
  the consistent variant: one frame direction for the whole element (quad_frame_aligned with
    the centre's t1) and M0⁻¹ itself.
  The EAS rows at a uniform stress are Σ_i α0 Hᵀ(ξ_i) M0⁻¹ n_i, zero when the n_i are the same
  components in the same frame: with MBDyn's frames, which turn from point to point on a
  distorted element, they are not, β ≠ 0 and the element fails the patch test there (tests/
  test_membrane.py measures it); the variant passes it.

Membrane strain (Green–Lagrange, Voigt with engineering shear, as MBDyn's AssRes): with
y_a = Σ_k x_k L_ka, L = (∂N/∂ξ) S⁻¹ the reference-local derivatives,
  ε = (½(y1·y1 - 1), ½(y2·y2 - 1), y1·y2) - ε0 + P β,  P = (α0/α) M0⁻ᵀ H,
ε0 the same at the reference positions (zero up to round-off); n = D ε + n0 (prestress n0).
Residual rows (mbdae's r = -f; MBDyn's f = -Σ_i α_i w_i (B̄ᵀ n, Pᵀ n)):
  node force rows  r_k = Σ_i α_i w_i B_kᵀ n,  B_k = [L_k1 y1ᵀ; L_k2 y2ᵀ; L_k1 y2ᵀ + L_k2 y1ᵀ]
  EAS rows         r_β = Σ_i α_i w_i Pᵀ n
Jacobian on the Newton increments (Δẋ of the node positions, x += dCoef Δẋ; Δβ of the
algebraic EAS parameters):
  ∂r_k/∂x_m = Σ α w (B_kᵀ D B_m + (n1 L_k1 L_m1 + n2 L_k2 L_m2 + n3 (L_k1 L_m2 + L_k2 L_m1)) I) · dCoef
  ∂r_k/∂β = Σ α w B_kᵀ D P,  ∂r_β/∂x_m = Σ α w Pᵀ D B_m · dCoef,  ∂r_β/∂β = Σ α w Pᵀ D P.
In the initial assembly the element is out (rows 0; the EAS rows hold β: ∂r_β/∂β = I)."""
import numpy as np

from mbdae.engine.core.compiled import kernel
from mbdae.engine.core.solid_laws import inverse3

QUAD_NODES = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])   # MBDyn's node order
_G = 1.0 / np.sqrt(3.0)
QUAD_GAUSS = np.array([[-_G, -_G], [_G, -_G], [_G, _G], [-_G, _G]])           # MBDyn's point order
QUAD_WEIGHTS = np.ones(4)
N_EAS = 7
WARP_LIMIT = 0.2          # |d·n0| / √A above which an element is refused as warped
# geometry status codes of membrane_reference
GEOMETRY_OK, ZERO_AREA, BAD_ORDER, WARPED = 0, 1, 2, 3


@kernel
def quad_shape(xi, eta, N, dN):
    """N (4,) and dN (4, 2) = ∂N_k/∂(ξ, η) of the bilinear quadrilateral at (ξ, η)."""
    for k in range(4):
        a = QUAD_NODES[k, 0]
        b = QUAD_NODES[k, 1]
        N[k] = 0.25 * (1.0 + a * xi) * (1.0 + b * eta)
        dN[k, 0] = 0.25 * a * (1.0 + b * eta)
        dN[k, 1] = 0.25 * b * (1.0 + a * xi)


@kernel
def quad_tangents(x, nodes, dN, g1, g2):
    """g_a = Σ_k x[nodes[k]] ∂N_k/∂ξ_a (3,) each."""
    for c in range(3):
        s1 = 0.0
        s2 = 0.0
        for k in range(4):
            s1 += x[nodes[k], c] * dN[k, 0]
            s2 += x[nodes[k], c] * dN[k, 1]
        g1[c] = s1
        g2[c] = s2


@kernel
def quad_frame(g1, g2, T):
    """T (3×3), columns t1 = g1/|g1|, t2 = t3×t1, t3 = g1×g2/|g1×g2|."""
    quad_frame_aligned(g1, g2, g1, T)


@kernel
def quad_frame_aligned(g1, g2, a, T):
    """T (3×3), columns t1 = the unit projection of a onto the tangent plane, t2 = t3×t1,
    t3 = g1×g2/|g1×g2| (a frame that follows a common direction a across the element)."""
    n3x = g1[1] * g2[2] - g1[2] * g2[1]
    n3y = g1[2] * g2[0] - g1[0] * g2[2]
    n3z = g1[0] * g2[1] - g1[1] * g2[0]
    n3 = np.sqrt(n3x * n3x + n3y * n3y + n3z * n3z)
    T[0, 2] = n3x / n3
    T[1, 2] = n3y / n3
    T[2, 2] = n3z / n3
    an = a[0] * T[0, 2] + a[1] * T[1, 2] + a[2] * T[2, 2]
    t1x = a[0] - an * T[0, 2]
    t1y = a[1] - an * T[1, 2]
    t1z = a[2] - an * T[2, 2]
    n1 = np.sqrt(t1x * t1x + t1y * t1y + t1z * t1z)
    T[0, 0] = t1x / n1
    T[1, 0] = t1y / n1
    T[2, 0] = t1z / n1
    T[0, 1] = T[1, 2] * T[2, 0] - T[2, 2] * T[1, 0]
    T[1, 1] = T[2, 2] * T[0, 0] - T[0, 2] * T[2, 0]
    T[2, 1] = T[0, 2] * T[1, 0] - T[1, 2] * T[0, 0]


@kernel
def quad_metric(T, g1, g2, S):
    """S_ab = t_a·g_b (2×2); returns α = det S."""
    for a in range(2):
        S[a, 0] = T[0, a] * g1[0] + T[1, a] * g1[1] + T[2, a] * g1[2]
        S[a, 1] = T[0, a] * g2[0] + T[1, a] * g2[1] + T[2, a] * g2[2]
    return S[0, 0] * S[1, 1] - S[0, 1] * S[1, 0]


@kernel
def eas_interpolation(xi, eta, H):
    """H (3×7) of the enhanced natural membrane strains at (ξ, η)."""
    for r in range(3):
        for c in range(N_EAS):
            H[r, c] = 0.0
    t = xi * eta
    H[0, 0] = xi
    H[0, 1] = t
    H[1, 2] = eta
    H[1, 3] = t
    H[2, 4] = xi
    H[2, 5] = t
    H[2, 6] = eta


@kernel
def eas_push_forward(S0, M0):
    """M0 (3×3) from the centre metric S0: rows (S11², S12², S11 S12), (S21², S22², S21 S22),
    (S11 S21, S12 S22, S11 S22 + S12 S21) (MBDyn's M_0)."""
    M0[0, 0] = S0[0, 0] * S0[0, 0]
    M0[0, 1] = S0[0, 1] * S0[0, 1]
    M0[0, 2] = S0[0, 0] * S0[0, 1]
    M0[1, 0] = S0[1, 0] * S0[1, 0]
    M0[1, 1] = S0[1, 1] * S0[1, 1]
    M0[1, 2] = S0[1, 0] * S0[1, 1]
    M0[2, 0] = S0[0, 0] * S0[1, 0]
    M0[2, 1] = S0[0, 1] * S0[1, 1]
    M0[2, 2] = S0[0, 0] * S0[1, 1] + S0[0, 1] * S0[1, 0]


@kernel
def eas_push_forward_inverse(M0, mbdyn, M0i):
    """M0i = M0⁻¹, or with mbdyn, the matrix MBDyn 1.7.3 uses in its place (its Inv3x3):
    M0⁻¹ with the cofactors of entries (1,2), (2,1), (2,3), (3,2) taken with the wrong sign
    of their second product, i.e. M0⁻¹_12 - 2 a13 a32/det, M0⁻¹_21 - 2 a23 a31/det,
    M0⁻¹_23 - 2 a13 a21/det, M0⁻¹_32 - 2 a12 a31/det.  With the local frame of quad_frame
    (S21 = 0) only the first differs, when the element is skewed at its centre (S12 ≠ 0).
    Either matrix passes the patch test (Σ_i H(ξ_i) = 0); MBDyn's is kept by default so that
    decks reproduce MBDyn's numbers.  Returns det M0."""
    det = inverse3(M0, M0i)
    if mbdyn:
        M0i[0, 1] -= 2.0 * M0[0, 2] * M0[2, 1] / det
        M0i[1, 0] -= 2.0 * M0[1, 2] * M0[2, 0] / det
        M0i[1, 2] -= 2.0 * M0[0, 2] * M0[1, 0] / det
        M0i[2, 1] -= 2.0 * M0[0, 1] * M0[2, 0] / det
    return det


@kernel
def membrane_strain(x, nodes, L, i, y1, y2, eps):
    """y_a = Σ_k x_k L[i, k, a] and ε = (½(y1·y1 - 1), ½(y2·y2 - 1), y1·y2) at point i."""
    for c in range(3):
        s1 = 0.0
        s2 = 0.0
        for k in range(4):
            s1 += x[nodes[k], c] * L[i, k, 0]
            s2 += x[nodes[k], c] * L[i, k, 1]
        y1[c] = s1
        y2[c] = s2
    eps[0] = 0.5 * (y1[0] * y1[0] + y1[1] * y1[1] + y1[2] * y1[2] - 1.0)
    eps[1] = 0.5 * (y2[0] * y2[0] + y2[1] * y2[1] + y2[2] * y2[2] - 1.0)
    eps[2] = y1[0] * y2[0] + y1[1] * y2[1] + y1[2] * y2[2]


@kernel
def membrane_reference(conn, X0, mbdyn, L, alpha, P, eps0, status):
    """Reference tables of every element (mbdyn (ne,): MBDyn's element, else the consistent
    variant, module docstring): L (ne, 4, 4, 2) reference-local shape derivatives at the
    Gauss points, α (ne, 4), P (ne, 4, 3, 7) the EAS maps (α0/α) M0⁻ᵀ H, ε0 (ne, 4, 3) and
    status (ne, 2): the geometry code (GEOMETRY_OK, ZERO_AREA, BAD_ORDER, WARPED) and the
    node (BAD_ORDER: the corner 0..3 whose normal turns against the centre's)."""
    ne = conn.shape[0]
    N = np.empty(4)
    dN = np.empty((4, 2))
    g1 = np.empty(3)
    g2 = np.empty(3)
    T = np.empty((3, 3))
    S = np.empty((2, 2))
    M0 = np.empty((3, 3))
    M0i = np.empty((3, 3))
    H = np.empty((3, N_EAS))
    t10 = np.empty(3)
    y1 = np.empty(3)
    y2 = np.empty(3)
    for e in range(ne):
        nodes = conn[e]
        status[e, 0] = GEOMETRY_OK
        status[e, 1] = -1
        # centre: area, normal, warp
        quad_shape(0.0, 0.0, N, dN)
        quad_tangents(X0, nodes, dN, g1, g2)
        nx = g1[1] * g2[2] - g1[2] * g2[1]
        ny = g1[2] * g2[0] - g1[0] * g2[2]
        nz = g1[0] * g2[1] - g1[1] * g2[0]
        area = 4.0 * np.sqrt(nx * nx + ny * ny + nz * nz)
        edge = 0.0
        for k in range(4):
            m = (k + 1) % 4
            s = 0.0
            for c in range(3):
                d = X0[nodes[m], c] - X0[nodes[k], c]
                s += d * d
            edge = max(edge, s)
        if not area > 1e-10 * edge:
            status[e, 0] = ZERO_AREA
            continue
        quad_frame(g1, g2, T)
        alpha0 = quad_metric(T, g1, g2, S)
        eas_push_forward(S, M0)
        eas_push_forward_inverse(M0, mbdyn[e], M0i)
        for c in range(3):
            t10[c] = T[c, 0]
        warp = 0.0
        for c in range(3):
            d = 0.0
            for k in range(4):
                d += 0.25 * QUAD_NODES[k, 0] * QUAD_NODES[k, 1] * X0[nodes[k], c]
            warp += d * T[c, 2]
        for k in range(4):
            quad_shape(QUAD_NODES[k, 0], QUAD_NODES[k, 1], N, dN)
            quad_tangents(X0, nodes, dN, g1, g2)
            cx = g1[1] * g2[2] - g1[2] * g2[1]
            cy = g1[2] * g2[0] - g1[0] * g2[2]
            cz = g1[0] * g2[1] - g1[1] * g2[0]
            if not cx * T[0, 2] + cy * T[1, 2] + cz * T[2, 2] > 1e-8 * area and status[e, 0] == GEOMETRY_OK:
                status[e, 0] = BAD_ORDER
                status[e, 1] = k
        if status[e, 0] == GEOMETRY_OK and abs(warp) > WARP_LIMIT * np.sqrt(area):
            status[e, 0] = WARPED
        if status[e, 0] != GEOMETRY_OK:
            continue
        for i in range(4):
            xi = QUAD_GAUSS[i, 0]
            eta = QUAD_GAUSS[i, 1]
            quad_shape(xi, eta, N, dN)
            quad_tangents(X0, nodes, dN, g1, g2)
            if mbdyn[e]:
                quad_frame(g1, g2, T)
            else:
                quad_frame_aligned(g1, g2, t10, T)
            a = quad_metric(T, g1, g2, S)
            alpha[e, i] = a
            # L = dN S⁻¹
            for k in range(4):
                L[e, i, k, 0] = (dN[k, 0] * S[1, 1] - dN[k, 1] * S[1, 0]) / a
                L[e, i, k, 1] = (-dN[k, 0] * S[0, 1] + dN[k, 1] * S[0, 0]) / a
            eas_interpolation(xi, eta, H)
            for r in range(3):
                for c in range(N_EAS):
                    s = 0.0
                    for q in range(3):
                        s += M0i[q, r] * H[q, c]
                    P[e, i, r, c] = alpha0 / a * s
            membrane_strain(X0, nodes, L[e], i, y1, y2, eps0[e, i])


@kernel
def membrane_equations(conn, x, L, alpha, W, P, eps0, D, n0, y, brow, dcoef, ia, want_jac,
                       r_x, r_b, j_xx, j_xb, j_bx, j_bb, nout):
    """All membranes: residual blocks r_x (ne, 12), r_b (ne, 7) and, when want_jac, the
    Jacobian blocks j_xx (ne, 12, 12), j_xb (ne, 12, 7), j_bx (ne, 7, 12), j_bb (ne, 7, 7)
    (module docstring); nout (ne, 4, 3) receives n = D ε + n0 at the Gauss points.  brow
    (ne, 7): the rows of the EAS parameters in y.  ia: initial assembly (element out)."""
    ne = conn.shape[0]
    y1 = np.empty(3)
    y2 = np.empty(3)
    eps = np.empty(3)
    n = np.empty(3)
    beta = np.empty(N_EAS)
    B = np.empty((4, 3, 3))          # B[k, r, c]: δε_r per δx_k,c
    DB = np.empty((4, 3, 3))
    DP = np.empty((3, N_EAS))
    for e in range(ne):
        nodes = conn[e]
        for a in range(12):
            r_x[e, a] = 0.0
        for j in range(N_EAS):
            r_b[e, j] = 0.0
            beta[j] = y[brow[e, j]]
        if want_jac:
            for a in range(12):
                for b in range(12):
                    j_xx[e, a, b] = 0.0
                for j in range(N_EAS):
                    j_xb[e, a, j] = 0.0
                    j_bx[e, j, a] = 0.0
            for j in range(N_EAS):
                for m in range(N_EAS):
                    j_bb[e, j, m] = 1.0 if (ia and j == m) else 0.0
        if ia:
            continue
        for i in range(4):
            membrane_strain(x, nodes, L[e], i, y1, y2, eps)
            for r in range(3):
                s = eps[r] - eps0[e, i, r]
                for j in range(N_EAS):
                    s += P[e, i, r, j] * beta[j]
                eps[r] = s
            for r in range(3):
                n[r] = n0[e, r] + D[e, r, 0] * eps[0] + D[e, r, 1] * eps[1] + D[e, r, 2] * eps[2]
                nout[e, i, r] = n[r]
            aw = alpha[e, i] * W[i]
            for k in range(4):
                l1 = L[e, i, k, 0]
                l2 = L[e, i, k, 1]
                for c in range(3):
                    B[k, 0, c] = l1 * y1[c]
                    B[k, 1, c] = l2 * y2[c]
                    B[k, 2, c] = l1 * y2[c] + l2 * y1[c]
                for c in range(3):
                    r_x[e, 3 * k + c] += aw * (B[k, 0, c] * n[0] + B[k, 1, c] * n[1] + B[k, 2, c] * n[2])
            for j in range(N_EAS):
                r_b[e, j] += aw * (P[e, i, 0, j] * n[0] + P[e, i, 1, j] * n[1] + P[e, i, 2, j] * n[2])
            if not want_jac:
                continue
            for k in range(4):
                for r in range(3):
                    for c in range(3):
                        DB[k, r, c] = D[e, r, 0] * B[k, 0, c] + D[e, r, 1] * B[k, 1, c] + D[e, r, 2] * B[k, 2, c]
            for r in range(3):
                for j in range(N_EAS):
                    DP[r, j] = D[e, r, 0] * P[e, i, 0, j] + D[e, r, 1] * P[e, i, 1, j] + D[e, r, 2] * P[e, i, 2, j]
            awc = aw * dcoef
            for k in range(4):
                lk1 = L[e, i, k, 0]
                lk2 = L[e, i, k, 1]
                for m in range(4):
                    lm1 = L[e, i, m, 0]
                    lm2 = L[e, i, m, 1]
                    geo = n[0] * lk1 * lm1 + n[1] * lk2 * lm2 + n[2] * (lk1 * lm2 + lk2 * lm1)
                    for c in range(3):
                        for d in range(3):
                            s = B[k, 0, c] * DB[m, 0, d] + B[k, 1, c] * DB[m, 1, d] + B[k, 2, c] * DB[m, 2, d]
                            if c == d:
                                s += geo
                            j_xx[e, 3 * k + c, 3 * m + d] += awc * s
                for c in range(3):
                    for j in range(N_EAS):
                        j_xb[e, 3 * k + c, j] += aw * (B[k, 0, c] * DP[0, j] + B[k, 1, c] * DP[1, j]
                                                       + B[k, 2, c] * DP[2, j])
                    for j in range(N_EAS):
                        j_bx[e, j, 3 * k + c] += awc * (P[e, i, 0, j] * DB[k, 0, c] + P[e, i, 1, j] * DB[k, 1, c]
                                                        + P[e, i, 2, j] * DB[k, 2, c])
            for j in range(N_EAS):
                for m in range(N_EAS):
                    j_bb[e, j, m] += aw * (P[e, i, 0, j] * DP[0, m] + P[e, i, 1, j] * DP[1, m]
                                           + P[e, i, 2, j] * DP[2, m])
