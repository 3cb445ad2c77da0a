"""Compiled kernel of the surface loads (theory manual §12.0.7): pressures and tractions on
isoparametric surface elements (q4, q8, q8r, q9, t6; the shape enters as tables at the
integration points).

At an integration point of natural weight α, with a = x,r1, b = x,r2 (eqs. 12.64–12.65) and
n = a × b (eq. 12.72, |n| dr1 dr2 = dA, eq. 12.63), the load per natural area is

  pressure (eqs. 12.70–12.74)            F = -p n,                p = Σ h_k p̂_k (eq. 12.71)
  relative traction (eqs. 12.75–12.83)   F = |n| ᴬR c,            c = ᴬ⁰Rᵀ R_f Σ h_k f̄_k
  absolute traction                      F = |n₀| R_f Σ h_k f̄_k   (fixed: reference area, global frame)

with ᴬR = [e1 e2 e3], e1 = a/|a|, e3 = n/|n|, e2 = e3 × e1 (eqs. 12.75–12.79), so that
|n| ᴬR c = c1 |n| a/|a| + c2 (n × a)/|a| + c3 n; a pressure is the case c = (0, 0, -p).
Nodal loads f̂_k = Σ_g α h_k F (eqs. 12.69, 12.74, 12.83); the residual rows are r_k = -f̂_k.

Load stiffness (exact): dF = K_n dn + K_a da with dn = -[b]× da + [a]× db and
  K_n = c1 e1 e3ᵀ - (c2/|a|) [a]× + c3 I,
  K_a = c1 (|n|/|a|)(I - e1 e1ᵀ) + (c2/|a|)([n]× - (n × e1) e1ᵀ),
so ∂F/∂x_m = (K_a - K_n [b]×) ∂h_m/∂r1 + K_n [a]× ∂h_m/∂r2; on the Newton increments of the
node positions dCoef ∂r/∂x.  Pressures of abstract nodes: ∂r_k/∂p̂_m = Σ_g α h_k h_m n (times
dCoef for a differential node)."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, mload, vadd, vscale, vnorm, vcross, skew, outer,
                                        mvec, mmul, madd, msub, mscale, mdiag)

PRESSURE = 0
RELATIVE_TRACTION = 1
ABSOLUTE_TRACTION = 2


@kernel
def surface_equations(mode, conn, x, H, dH, W, pval, prow, pdiff, y, tbar, M, dA0, dcoef, want_jac,
                      r_u, j_uu, j_up):
    """All surface loads of one shape: residual rows r_u (ne, 3N) and, when want_jac, the
    Jacobian blocks j_uu (ne, 3N, 3N) on the node positions and j_up (ne, 3N, N) on the
    abstract-node pressures.  mode (ne,): PRESSURE, RELATIVE_TRACTION or ABSOLUTE_TRACTION;
    H (ng, N), dH (ng, N, 2), W (ng,): shape functions, natural derivatives and weights at
    the integration points; pval (ne, N) the nodal pressures of drives, prow (ne, N) the rows
    in y of the abstract-node pressures (-1: from pval), pdiff (ne, N) 1 for a differential
    abstract node; tbar (ne, N, 3) the nodal tractions; M (ne·ng, 3, 3) ᴬ⁰Rᵀ R_f (relative)
    or R_f (absolute); dA0 (ne, ng) the reference |n₀| α."""
    ne, N = conn.shape
    ng = W.shape[0]
    pe = np.empty(N)
    for e in range(ne):
        md = mode[e]
        for i in range(3 * N):
            r_u[e, i] = 0.0
        if want_jac:
            for i in range(3 * N):
                for j in range(3 * N):
                    j_uu[e, i, j] = 0.0
                for m in range(N):
                    j_up[e, i, m] = 0.0
        for k in range(N):
            pe[k] = y[prow[e, k]] if prow[e, k] >= 0 else pval[e, k]
        for g in range(ng):
            w = W[g]
            fb0 = 0.0
            fb1 = 0.0
            fb2 = 0.0
            p = 0.0
            for k in range(N):
                h = H[g, k]
                p += h * pe[k]
                fb0 += h * tbar[e, k, 0]
                fb1 += h * tbar[e, k, 1]
                fb2 += h * tbar[e, k, 2]
            fb = (fb0, fb1, fb2)
            Mg = mload(M, e * ng + g)
            if md == ABSOLUTE_TRACTION:
                F = vscale(dA0[e, g] / w, mvec(Mg, fb))
                for k in range(N):
                    s = w * H[g, k]
                    for i in range(3):
                        r_u[e, 3 * k + i] -= s * F[i]
                continue
            a0 = 0.0
            a1 = 0.0
            a2 = 0.0
            b0 = 0.0
            b1 = 0.0
            b2 = 0.0
            for k in range(N):
                nd = conn[e, k]
                a0 += dH[g, k, 0] * x[nd, 0]
                a1 += dH[g, k, 0] * x[nd, 1]
                a2 += dH[g, k, 0] * x[nd, 2]
                b0 += dH[g, k, 1] * x[nd, 0]
                b1 += dH[g, k, 1] * x[nd, 1]
                b2 += dH[g, k, 1] * x[nd, 2]
            a = (a0, a1, a2)
            b = (b0, b1, b2)
            n = vcross(a, b)
            if md == PRESSURE:
                F = vscale(-p, n)
                Kn = mdiag(-p)
                Ka = mdiag(0.0)
            else:
                c = mvec(Mg, fb)
                la = vnorm(a)
                ln = vnorm(n)
                e1 = vscale(1.0 / la, a)
                e3 = vscale(1.0 / ln, n)
                nxa = vcross(n, a)
                F = vadd(vadd(vscale(c[0] * ln / la, a), vscale(c[1] / la, nxa)), vscale(c[2], n))
                Kn = madd(msub(mscale(c[0], outer(e1, e3)), mscale(c[1] / la, skew(a))), mdiag(c[2]))
                Ka = madd(mscale(c[0] * ln / la, msub(mdiag(1.0), outer(e1, e1))),
                          mscale(c[1] / la, msub(skew(n), outer(vcross(n, e1), e1))))
            for k in range(N):
                s = w * H[g, k]
                for i in range(3):
                    r_u[e, 3 * k + i] -= s * F[i]
            if not want_jac:
                continue
            Aa = msub(Ka, mmul(Kn, skew(b)))
            Ab = mmul(Kn, skew(a))
            for k in range(N):
                s = dcoef * w * H[g, k]
                for m in range(N):
                    d1 = s * dH[g, m, 0]
                    d2 = s * dH[g, m, 1]
                    for i in range(3):
                        for j in range(3):
                            j_uu[e, 3 * k + i, 3 * m + j] -= Aa[i][j] * d1 + Ab[i][j] * d2
            if md == PRESSURE:
                for k in range(N):
                    for m in range(N):
                        if prow[e, m] < 0:
                            continue
                        s = w * H[g, k] * H[g, m] * (dcoef if pdiff[e, m] != 0 else 1.0)
                        for i in range(3):
                            j_up[e, 3 * k + i, m] += s * n[i]

