"""Compiled vector work of a time step (spec/integrators.md §1-2): the Hermite predictor and
the multistep corrector with the multipliers' extrapolation (the Newton update and the
history's rotation slots are the System's, in engine/core/compiled.py).  Each is one pass
over the unknowns without temporaries: at 10-1000 nodes a numpy expression of a few
operations on whole vectors costs more in call overhead than in arithmetic."""
import numpy as np

from mbdae.engine.core.compiled import kernel


@kernel
def hermite_derivative(y1, y2, yp1, yp2, h_prev, alpha):
    """ẏ at t_{n-1} + α h_{n-1} of the cubic Hermite through (t_{n-2}, y2, ẏ2), (t_{n-1}, y1, ẏ1)."""
    s = 1.0 + alpha
    c_y = (6.0 * s * s - 6.0 * s) / h_prev
    c2 = 3.0 * s * s - 4.0 * s + 1.0
    c1 = 3.0 * s * s - 2.0 * s
    out = np.empty(len(y1))
    for i in range(len(y1)):
        out[i] = c_y * (y2[i] - y1[i]) + c2 * yp2[i] + c1 * yp1[i]
    return out


@kernel
def corrector(b0, a, b, ys, yps, yp, alg_index, lam_weights):
    """The predicted y_n = b_0 ẏ_n + Σ_k a_k y_{n-k} + b_k ẏ_{n-k} (k < len(a)) from the history
    rows ys, yps (newest first), then on the algebraic unknowns y = Σ_k w_k y_{n-k} (Lagrange
    extrapolation weights `lam_weights`) and ẏ = 0 (written into yp).  Returns y."""
    n = len(yp)
    y = np.empty(n)
    for i in range(n):
        y[i] = b0 * yp[i]
    for k in range(len(a)):
        ak, bk = a[k], b[k]
        for i in range(n):
            y[i] += ak * ys[k, i] + bk * yps[k, i]
    for j in range(len(alg_index)):
        i = alg_index[j]
        s = 0.0
        for k in range(len(lam_weights)):
            s += lam_weights[k] * ys[k, i]
        y[i] = s
        yp[i] = 0.0
    return y


# ---------------------------------------------------------------------- condensed blocks
@kernel
def schur_factor(Adata, zz_a, zz_s, kq, d_ptr, d_pos, zb_ptr, zb_a, zb_row, zb_col, bz_ptr, bz_a, bz_row, bz_col,
                 nrq, ncq, w_ptr, j_ptr, s_ptr, s_pos, Sdata, Dinv, W, Jbz):
    """Numeric Schur complement S = J_zz − J_zb D⁻¹ J_bz on a fixed pattern
    (solvers/linear.py CondensedBlocksSolver prepares the index arrays).  Sdata: the kept
    entries (A positions zz_a → S positions zz_s); then for each block q of kq[q] unknowns:
    its pivot block D (A positions d_pos[d_ptr[q]:], -1 for an absent entry) inverted by
    Gauss-Jordan with partial pivoting into Dinv[d_ptr[q]:]; the dense J_zb (nrq[q] rows
    of the kept unknowns its columns reach) and J_bz (ncq[q] kept columns its rows reach)
    from their entries; W = J_zb D⁻¹ into W[w_ptr[q]:] and J_bz into Jbz[j_ptr[q]:] (for
    schur_solve); S[a, b] −= (W J_bz)[a, b] at s_pos[s_ptr[q] + a ncq + b].  Returns -1, or
    the first block whose pivot block is singular."""
    Sdata[:] = 0.0
    for t in range(zz_a.size):
        Sdata[zz_s[t]] += Adata[zz_a[t]]
    for q in range(kq.size):
        k = kq[q]
        d0 = d_ptr[q]
        M = np.zeros((k, 2 * k))
        for i in range(k):
            for j in range(k):
                p = d_pos[d0 + i * k + j]
                if p >= 0:
                    M[i, j] = Adata[p]
            M[i, k + i] = 1.0
        for c in range(k):                       # Gauss-Jordan with partial pivoting
            piv = c
            big = abs(M[c, c])
            for r in range(c + 1, k):
                if abs(M[r, c]) > big:
                    big = abs(M[r, c])
                    piv = r
            if big == 0.0:
                return q
            if piv != c:
                for j in range(2 * k):
                    tmp = M[c, j]
                    M[c, j] = M[piv, j]
                    M[piv, j] = tmp
            inv = 1.0 / M[c, c]
            for j in range(2 * k):
                M[c, j] *= inv
            for r in range(k):
                if r != c:
                    f = M[r, c]
                    if f != 0.0:
                        for j in range(2 * k):
                            M[r, j] -= f * M[c, j]
        for i in range(k):
            for j in range(k):
                Dinv[d0 + i * k + j] = M[i, k + j]
        nr = nrq[q]
        nc = ncq[q]
        Jzb = np.zeros((nr, k))
        for t in range(zb_ptr[q], zb_ptr[q + 1]):
            Jzb[zb_row[t], zb_col[t]] += Adata[zb_a[t]]
        w0 = w_ptr[q]
        for a in range(nr):
            for j in range(k):
                acc = 0.0
                for i in range(k):
                    acc += Jzb[a, i] * M[i, k + j]
                W[w0 + a * k + j] = acc
        j0 = j_ptr[q]
        for t in range(j0, j0 + k * nc):
            Jbz[t] = 0.0
        for t in range(bz_ptr[q], bz_ptr[q + 1]):
            Jbz[j0 + bz_row[t] * nc + bz_col[t]] += Adata[bz_a[t]]
        s0 = s_ptr[q]
        for a in range(nr):
            for b in range(nc):
                acc = 0.0
                for i in range(k):
                    acc += W[w0 + a * k + i] * Jbz[j0 + i * nc + b]
                Sdata[s_pos[s0 + a * nc + b]] -= acc
    return -1


@kernel
def schur_rhs(b, kept, blocks, kq, b_ptr, nrq, w_ptr, r_ptr, r_list, W, bz):
    """bz = b_z − Σ_q (W_q b_q) scattered on each block's rows (kept numbering r_list)."""
    for t in range(kept.size):
        bz[t] = b[kept[t]]
    for q in range(kq.size):
        k = kq[q]
        b0 = b_ptr[q]
        w0 = w_ptr[q]
        r0 = r_ptr[q]
        for a in range(nrq[q]):
            acc = 0.0
            for i in range(k):
                acc += W[w0 + a * k + i] * b[blocks[b0 + i]]
            bz[r_list[r0 + a]] -= acc


@kernel
def schur_back(b, z, kept, blocks, kq, b_ptr, d_ptr, ncq, j_ptr, c_ptr, c_list, Dinv, Jbz, x):
    """x_z = z; x_q = D_q⁻¹ (b_q − J_bz,q z) for every block."""
    for t in range(kept.size):
        x[kept[t]] = z[t]
    for q in range(kq.size):
        k = kq[q]
        b0 = b_ptr[q]
        j0 = j_ptr[q]
        c0 = c_ptr[q]
        nc = ncq[q]
        r = np.empty(k)
        for i in range(k):
            acc = b[blocks[b0 + i]]
            for c in range(nc):
                acc -= Jbz[j0 + i * nc + c] * z[c_list[c0 + c]]
            r[i] = acc
        d0 = d_ptr[q]
        for i in range(k):
            acc = 0.0
            for j in range(k):
                acc += Dinv[d0 + i * k + j] * r[j]
            x[blocks[b0 + i]] = acc
