"""Compiled kernel of the hull buoyancy family (elements/hull_buoyancy.py): the hydrostatic
(and, in waves, Froude–Krylov) force and moment on a closed triangulated hull in its current
pose, and their exact derivatives.

Pressure p = ρ g max(0, q) with the pressure head q(X): q = h - e·X in still water (the depth
below the plane e·X = h, e the upward unit vector), plus Σ a f(z) cos θ for incident Airy
waves (pressure_head).  A hull triangle T of body-fixed vertices r̃_i (in the node frame) has
global vertices X_i = x + r_i, r_i = R r̃_i, heads d_i = q(X_i) with gradients g_i = ∇q(X_i)
and, on its plane, d = Σ λ_i d_i (λ the barycentric coordinates: exact in still water, where
q is linear; second order in the panel size in waves).  With the area vector
S = ½ (r_1 - r_0) × (r_2 - r_0) (outward: the vertices counter-clockwise seen from outside)
and dS n = 2 S dλ,

    F_T = -∫_T p n dS = -2ρg Φ S,              Φ   = ∫ max(0, Σ λ_j d_j) dλ = a·d
    M_T = -∫_T r × p n dS = -2ρg m × S,        m   = Σ_i Ψ_i r_i,  Ψ_i = ∫ λ_i max(0, ·) dλ = (B d)_i

where a_j = ∫_W λ_j dλ and B_ij = ∫_W λ_i λ_j dλ over the wet part W = {Σ λ_j d_j > 0} of the
reference triangle (area ½): the whole triangle, nothing, the sub-triangle cut off at the one
wet vertex, or the whole minus the sub-triangle cut off at the one dry vertex (the exact
polygon clipping of the panel by the waterline, wet_moments).  The wet part is clipped where
the pressure vanishes, so moving the waterline crossing adds no boundary term: ∂Φ/∂d_j = a_j
and ∂Ψ_i/∂d_j = B_ij exactly (Φ and Ψ are homogeneous of degree one in d), and Φ, Ψ are
continuously differentiable in the pose.

Derivatives in the node's position x and rotation θ (δR = θ× R; MBDyn's incremental rotation,
on the Newton increment Δġ through T_θ = dCoef G): δd_i = g_i·δx + (r_i × g_i)·θ, and a
rotation at fixed heads turns F_T and M_T with the body, so

    ∂F/∂x = -2ρg Σ_T S (Σ_j a_j g_j)ᵀ               ∂F/∂θ = -F× - 2ρg Σ_T S (Σ_i a_i r_i × g_i)ᵀ
    ∂M/∂x = 2ρg Σ_T Σ_j (S × w_j) g_jᵀ              ∂M/∂θ = -M× + 2ρg Σ_T Σ_i (S × w_i)(r_i × g_i)ᵀ

with w_j = Σ_i B_ij r_i.  In still water g_i = -e; on a closed hull 2 Σ_T (Σ_j a_j) S = -A_wp e
(the wet surface closed by the waterplane), so ∂F_z/∂z = -ρ g A_wp: the heave restoring
coefficient C33.

Also accumulated (outputs, elements/hull_buoyancy.py): the waterplane area A_wp = -2 e·Σ_T
(Σ_j a_j) S (in waves: the horizontal projection of the wet surface's free-surface cut) and,
in still water, the depth moment of the displaced volume ∫_V d dV = -e·Σ_T S dᵀB d (Gauss:
div(½ d² e) = -d, and d = 0 on the waterplane)."""
import numpy as np

from mbdae.engine.core.compiled import (kernel, vload, mload, vadd, vsub, vscale, vdot, vcross, skew, outer,
                                        mvec, mmul, madd, mscale, set_block, zero3, mdiag)


@kernel
def _add_cut(k, d, s, V, a, B):
    """Add s × (a, B) of the sub-triangle of the reference triangle at vertex k cut by the
    zero line of Σ λ_j d_j (d_k of one sign, the other two of the other sign or zero):
    vertices e_k, e_k + t_j (e_j - e_k), e_k + t_l (e_l - e_k), t = d_k/(d_k - d_other),
    area ½ t_j t_l; ∫ λ_i = A Σ_m V_mi / 3, ∫ λ_i λ_j = A (Σ_m V_mi V_mj + Σ_m V_mi Σ_m V_mj) / 12
    (the exact moments of linear functions on a triangle)."""
    j = (k + 1) % 3
    l = (k + 2) % 3
    tj = d[k] / (d[k] - d[j])
    tl = d[k] / (d[k] - d[l])
    for m in range(3):
        for i in range(3):
            V[m, i] = 0.0
    V[0, k] = 1.0
    V[1, k] = 1.0 - tj
    V[1, j] = tj
    V[2, k] = 1.0 - tl
    V[2, l] = tl
    area = 0.5 * tj * tl
    for i in range(3):
        si = V[0, i] + V[1, i] + V[2, i]
        a[i] += s * area * si / 3.0
        for q in range(3):
            sq = V[0, q] + V[1, q] + V[2, q]
            B[i, q] += s * area * (V[0, i] * V[0, q] + V[1, i] * V[1, q] + V[2, i] * V[2, q] + si * sq) / 12.0


@kernel
def wet_moments(d, V, a, B):
    """a_j = ∫_W λ_j dλ and B_ij = ∫_W λ_i λ_j dλ over the wet part W = {Σ λ_j d_j > 0} of the
    reference triangle (area ½), into a (3,) and B (3, 3); V: (3, 3) scratch.  Returns the
    number of wet vertices (d_j > 0)."""
    n_wet = 0
    for i in range(3):
        a[i] = 0.0
        for q in range(3):
            B[i, q] = 0.0
        if d[i] > 0.0:
            n_wet += 1
    if n_wet == 0:
        return 0
    if n_wet >= 2:                       # the whole triangle (minus the dry corner below)
        for i in range(3):
            a[i] = 1.0 / 6.0
            for q in range(3):
                B[i, q] = (2.0 if i == q else 1.0) / 24.0
    if n_wet == 3:
        return 3
    for k in range(3):
        if n_wet == 1 and d[k] > 0.0:
            _add_cut(k, d, 1.0, V, a, B)
        elif n_wet == 2 and not d[k] > 0.0:
            _add_cut(k, d, -1.0, V, a, B)
    return n_wet


@kernel
def pressure_head(X, ev, level, c0, c1, wamp, wkx, wky, wk, wphase, wdepth):
    """(q, ∇q) at the global point X: the pressure head p/(ρg) = h - e·X of still water plus,
    for the wave components c0 … c1-1 (then e = +z), Airy's incident pressure
    a f(z) cos θ, θ = ωt + φ - k (x cos β + y sin β), f = cosh(k(z̄ + D))/cosh(kD) with
    z̄ = min(z, 0) (the pressure at the still level held above it; e^{kz̄} in deep water,
    D = ∞), written as (e^{kz̄} + e^{-k(z̄+2D)})/(1 + e^{-2kD}) so that neither overflows."""
    q = level - vdot(ev, X)
    g = vscale(-1.0, ev)
    if c1 > c0:
        zb = min(-q, 0.0)
        above = q <= 0.0
        g0 = g[0]
        g1 = g[1]
        g2 = g[2]
        for c in range(c0, c1):
            k = wk[c]
            th = wphase[c] - wkx[c] * X[0] - wky[c] * X[1]
            ct = np.cos(th)
            st = np.sin(th)
            up = np.exp(k * zb)
            deep = 0.0
            scale = 1.0
            if wdepth[c] < np.inf:
                deep = np.exp(-k * (zb + 2.0 * wdepth[c]))
                scale = 1.0 / (1.0 + np.exp(-2.0 * k * wdepth[c]))
            f = (up + deep) * scale
            fp = 0.0 if above else k * (up - deep) * scale
            a = wamp[c]
            q += a * f * ct
            g0 += a * f * st * wkx[c]
            g1 += a * f * st * wky[c]
            g2 += a * fp * ct
        g = (g0, g1, g2)
    return q, g


@kernel
def hull_instance(e, node, vstart, verts, tstart, tris, level, up, wstart, wamp, wkx, wky, wk, wphase, wdepth, x, R,
                  want_jac, rv, qv, gv, d, V, a, B):
    """Hull e: (F, M about the node, ∂F/∂x, ∂F/∂θ, ∂M/∂x, ∂M/∂θ, A_wp, ∫_V d dV), all divided
    by ρg (see the module's docstring).  Its vertices verts[vstart[e]:vstart[e+1]] (node
    frame) are turned once, r_i = R r̃_i, into rv with their heads d_i in qv and gradients g_i
    in gv (pressure_head); its triangles tris[tstart[e]:tstart[e+1]] index them from 0.  The
    derivatives are zero unless want_jac.  rv, gv (nv, 3), qv (nv,): scratch of at least the
    hull's vertex count; d (3,), V (3, 3), a (3,), B (3, 3): scratch."""
    i = node[e]
    Ri = mload(R, i)
    xi = vload(x, i)
    ev = vload(up, e)
    h = level[e]
    c0 = wstart[e]
    c1 = wstart[e + 1]
    v0 = vstart[e]
    for v in range(v0, vstart[e + 1]):
        r = mvec(Ri, vload(verts, v))
        q, g = pressure_head(vadd(xi, r), ev, h, c0, c1, wamp, wkx, wky, wk, wphase, wdepth)
        k = v - v0
        for c in range(3):
            rv[k, c] = r[c]
            gv[k, c] = g[c]
        qv[k] = q
    F = zero3()
    M = zero3()
    Fx = mdiag(0.0)
    Ft = mdiag(0.0)
    Mx = mdiag(0.0)
    Mt = mdiag(0.0)
    awp = 0.0
    dint = 0.0
    for t in range(tstart[e], tstart[e + 1]):
        k0 = tris[t, 0]
        k1 = tris[t, 1]
        k2 = tris[t, 2]
        d[0] = qv[k0]
        d[1] = qv[k1]
        d[2] = qv[k2]
        if wet_moments(d, V, a, B) == 0:
            continue
        r0 = vload(rv, k0)
        r1 = vload(rv, k1)
        r2 = vload(rv, k2)
        S = vscale(0.5, vcross(vsub(r1, r0), vsub(r2, r0)))
        phi = a[0] * d[0] + a[1] * d[1] + a[2] * d[2]
        psi0 = B[0, 0] * d[0] + B[0, 1] * d[1] + B[0, 2] * d[2]
        psi1 = B[1, 0] * d[0] + B[1, 1] * d[1] + B[1, 2] * d[2]
        psi2 = B[2, 0] * d[0] + B[2, 1] * d[1] + B[2, 2] * d[2]
        m = vadd(vadd(vscale(psi0, r0), vscale(psi1, r1)), vscale(psi2, r2))
        F = vadd(F, vscale(-2.0 * phi, S))
        M = vadd(M, vscale(-2.0, vcross(m, S)))
        eS = vdot(ev, S)
        sa = a[0] + a[1] + a[2]
        awp -= 2.0 * sa * eS
        dint -= (d[0] * psi0 + d[1] * psi1 + d[2] * psi2) * eS
        if not want_jac:
            continue
        g0 = vload(gv, k0)
        g1 = vload(gv, k1)
        g2 = vload(gv, k2)
        w0 = vadd(vadd(vscale(B[0, 0], r0), vscale(B[1, 0], r1)), vscale(B[2, 0], r2))
        w1 = vadd(vadd(vscale(B[0, 1], r0), vscale(B[1, 1], r1)), vscale(B[2, 1], r2))
        w2 = vadd(vadd(vscale(B[0, 2], r0), vscale(B[1, 2], r1)), vscale(B[2, 2], r2))
        ga = vadd(vadd(vscale(a[0], g0), vscale(a[1], g1)), vscale(a[2], g2))
        Fx = madd(Fx, mscale(-2.0, outer(S, ga)))
        Mx = madd(Mx, mscale(2.0, madd(madd(outer(vcross(S, w0), g0), outer(vcross(S, w1), g1)),
                                       outer(vcross(S, w2), g2))))
        c0v = vcross(r0, g0)                      # ∂d_i/∂θ = (r_i × g_i)ᵀ (still water: e × r_i)
        c1v = vcross(r1, g1)
        c2v = vcross(r2, g2)
        ca = vadd(vadd(vscale(a[0], c0v), vscale(a[1], c1v)), vscale(a[2], c2v))
        Ft = madd(Ft, mscale(-2.0, outer(S, ca)))
        Mt = madd(Mt, mscale(2.0, madd(madd(outer(vcross(S, w0), c0v), outer(vcross(S, w1), c1v)),
                                       outer(vcross(S, w2), c2v))))
    if want_jac:
        Ft = madd(Ft, mscale(-1.0, skew(F)))
        Mt = madd(Mt, mscale(-1.0, skew(M)))
    return F, M, Fx, Ft, Mx, Mt, awp, dint


@kernel
def _scratch(vstart):
    """(rv, qv, gv, d, V, a, B) of hull_instance, sized for the largest hull."""
    nv = 0
    for e in range(len(vstart) - 1):
        nv = max(nv, vstart[e + 1] - vstart[e])
    return (np.empty((nv, 3)), np.empty(nv), np.empty((nv, 3)), np.empty(3), np.empty((3, 3)), np.empty(3),
            np.empty((3, 3)))


@kernel
def hull_equations(dcoef, node, vstart, verts, tstart, tris, rho_g, level, up, wstart, wamp, wkx, wky, wk, wphase,
                   wdepth, x, R, G, want_jac, r, j):
    """Residual rows -F, -M of every hull on its node's (x, g) rows and, when want_jac, their
    Jacobian on (Δẋ, Δġ): -dCoef [∂F/∂x, ∂F/∂θ G; ∂M/∂x, ∂M/∂θ G]."""
    rv, qv, gv, d, V, a, B = _scratch(vstart)
    for e in range(len(node)):
        F, M, Fx, Ft, Mx, Mt, awp, dint = hull_instance(e, node, vstart, verts, tstart, tris, level, up, wstart, wamp,
                                                         wkx, wky, wk, wphase, wdepth, x, R, want_jac, rv, qv, gv,
                                                         d, V, a, B)
        s = rho_g[e]
        for k in range(3):
            r[e, k] = -s * F[k]
            r[e, 3 + k] = -s * M[k]
        if not want_jac:
            continue
        c = -s * dcoef
        Gi = mload(G, node[e])
        set_block(j[e], 0, 0, mscale(c, Fx))
        set_block(j[e], 3, 0, mscale(c, Mx))
        set_block(j[e], 0, 3, mscale(c, mmul(Ft, Gi)))
        set_block(j[e], 3, 3, mscale(c, mmul(Mt, Gi)))


@kernel
def hull_loads(node, vstart, verts, tstart, tris, rho_g, level, up, wstart, wamp, wkx, wky, wk, wphase, wdepth, x, R,
               out):
    """Per hull into out (n, 8): F (3), M about the node (3), A_wp, ∫_V d dV."""
    rv, qv, gv, d, V, a, B = _scratch(vstart)
    for e in range(len(node)):
        F, M, Fx, Ft, Mx, Mt, awp, dint = hull_instance(e, node, vstart, verts, tstart, tris, level, up, wstart, wamp,
                                                         wkx, wky, wk, wphase, wdepth, x, R, False, rv, qv, gv,
                                                         d, V, a, B)
        s = rho_g[e]
        for k in range(3):
            out[e, k] = s * F[k]
            out[e, 3 + k] = s * M[k]
        out[e, 6] = awp
        out[e, 7] = dint
