"""Compiled kernels of the induced velocity (rotor) family, elements/rotor.py (theory manual
13.8, eqs. 13.183-13.220; MBDyn 1.7.3 rotor.cc read for the formulas and their order).

One rotor instance k is described by
- iparams[k] (NI,): model code, Glauert variant, max iterations, has ground node;
- fparams[k] (NF,): reference Ω, radius R, tolerance, η, hover and forward-flight
  correction factors k_H, k_FF, the orientation R_h (9, row-major) of the rotor in the craft frame;
- z (NZ,): its unknowns F (3), M (3) (global, moment about the craft node's position, as MBDyn's Res), the dynamic
  inflow states s = (ν₀, ν_s, ν_c) and their committed companions: the mean induced velocity
  of the last converged step u_prev, the start of the local Newton u_ref, the memory factor w;
- nodes_kin (3, 18): x (3), R (9, row-major), v (3), ω (3) of the craft, rotor and ground nodes;
- air (5,): density, sound celerity, free-stream velocity (3) at the rotor node.

`rotor_param` is InitParam (13.183-13.191): disk frame, advance ratio μ, inflow ratio λ by
the local Newton on f(λ_u) = λ_u − C_T/(2√(μ² + λ²)) (13.185-13.189) and the nominal mean
inflow u = (1 − w) k_GE V_tip C_T / (2√(μ*² + λ*²)) + w u_prev.  `rotor_inflow` is the
induced velocity at a point (uniform, Glauert 13.192-13.198 with Table 13.3, Mangler-Squire
13.199-13.203, dynamic inflow 13.220).  `rotor_equations` writes the family's rows."""
import math
import numpy as np

from mbdae.engine.core.compiled import kernel, vload, vsub, vdot, vcross, vnorm, mvec, mtvec, mmul, mtrans, \
    exp_rotvec, mscale, mload
from mbdae.engine.core.air import air_state

# model codes (iparams[0])
NO, UNIFORM, GLAUERT, MANGLER, DYNAMIC_INFLOW = 0, 1, 2, 3, 4
# Glauert variants (iparams[1]), MBDyn's GlauertRotor::Type
G_GLAUERT, G_COLEMAN, G_DREES, G_PAYNE, G_WHITE_BLAKE, G_PITT_PETERS, G_HOWLETT = 0, 1, 2, 3, 4, 5, 6
NI, NF, NZ = 4, 15, 12
# z layout
Z_F, Z_M, Z_S, Z_UPREV, Z_UREF, Z_W = 0, 3, 6, 9, 10, 11
VTIP_THRESHOLD = 1e-6           # MBDyn's dVTipTreshold
EPS = 2.220446049250313e-16
# Pitt-Peters apparent mass (13.219; Pitt & Peters 1981, corrected M11 = 128/(75π))
M11 = 128.0 / (75.0 * math.pi)
M22 = -16.0 / (45.0 * math.pi)
M33 = -16.0 / (45.0 * math.pi)
# rotor_param result indices (P_*)
NP = 16
P_OMEGA, P_PSI0, P_VEL, P_SINA, P_COSA, P_MU, P_LAMBDA, P_CHI, P_UMEAN, P_CONV, P_ITER, P_UREF, P_T, \
    P_GE, P_VTIP, P_RHO = range(NP)


@kernel
def node_x(nk, i):
    return (nk[i, 0], nk[i, 1], nk[i, 2])


@kernel
def node_R(nk, i):
    return ((nk[i, 3], nk[i, 4], nk[i, 5]), (nk[i, 6], nk[i, 7], nk[i, 8]), (nk[i, 9], nk[i, 10], nk[i, 11]))


@kernel
def node_v(nk, i):
    return (nk[i, 12], nk[i, 13], nk[i, 14])


@kernel
def node_w(nk, i):
    return (nk[i, 15], nk[i, 16], nk[i, 17])


@kernel
def disk_frame(fparams, nk):
    """R_d = R_craft R_h (its third column is the rotor axis)."""
    Rh = ((fparams[6], fparams[7], fparams[8]), (fparams[9], fparams[10], fparams[11]),
          (fparams[12], fparams[13], fparams[14]))
    return mmul(node_R(nk, 0), Rh)


@kernel
def rotor_param(iparams, fparams, z, nk, air, P):
    """rotor_values into the array P (NP,)."""
    v = rotor_values(iparams, fparams, z, nk, air)
    for k in range(NP):
        P[k] = v[k]


@kernel
def rotor_values(iparams, fparams, z, nk, air):
    """MBDyn's Rotor::InitParam (13.183-13.191) as a tuple indexed by P_* (no allocation): Ω = |ω_rotor − ω_craft|, the
    disk-frame velocity ṽ = R_dᵀ(v∞ − v_rotor), ψ₀ = atan2(ṽ₂, ṽ₁), sin α_d = −ṽ₃/|ṽ|,
    μ = |ṽ| cos α_d / V_tip, λ = λ₀ + λ_u with λ₀ = |ṽ| sin α_d / V_tip and λ_u from at most
    `max iterations` steps of the local Newton (13.185-13.189, relaxation η, one sign retry),
    χ = atan2(μ, λ), the ground-effect factor k_GE = 1 − (R/4h)² (Cheeseman & Bennett,
    NASA TR-3021; h/(R/4) clamped at 1/4 as MBDyn does) and the nominal mean inflow
    u = (1 − w) k_GE V_tip C_T/(2√((μ/k_FF)² + (λ/k_H²)²)) + w u_prev (13.190-13.191)."""
    model = iparams[0]
    Omega_ref, radius, tol, eta, kh, kff = fparams[0], fparams[1], fparams[2], fparams[3], fparams[4], fparams[5]
    area = math.pi * radius * radius
    vtip_ref = Omega_ref * radius
    Rd = disk_frame(fparams, nk)
    n3 = (Rd[0][2], Rd[1][2], Rd[2][2])
    Omega = vnorm(vsub(node_w(nk, 1), node_w(nk, 0)))
    vinf = (air[2], air[3], air[4])
    vc = vsub(vinf, node_v(nk, 1))
    vt = mtvec(Rd, vc)
    vv = vt[0] * vt[0] + vt[1] * vt[1]
    V = math.sqrt(vv)
    psi0 = math.atan2(vt[1], vt[0])
    vel = math.sqrt(vt[2] * vt[2] + vv)
    sina, cosa = 1.0, 0.0
    if vel > VTIP_THRESHOLD * vtip_ref:
        sina = -vt[2] / vel
        cosa = V / vel
    u_prev, u_ref, w = z[Z_UPREV], z[Z_UREF], z[Z_W]
    F = (z[Z_F], z[Z_F + 1], z[Z_F + 2])
    T = vdot(n3, F)
    rho = air[0]
    if model == NO or rho <= EPS:
        return (Omega, psi0, vel, sina, cosa, 0.0, 1.0, 0.0, u_prev, 0.0, 0.0, u_ref, T, 1.0, Omega * radius, rho)
    vtip = Omega * radius
    mu, lam = 0.0, 0.0
    if vtip > VTIP_THRESHOLD * vtip_ref:
        mu = vel * cosa / vtip
    if abs(u_ref) < EPS and abs(T) > EPS:
        u_ref = math.copysign(math.sqrt(abs(T) / (2.0 * rho * area)), T)
    ge = 1.0
    if iparams[3] != 0:
        Rg = node_R(nk, 2)
        p = vdot((Rg[0][2], Rg[1][2], Rg[2][2]), vsub(node_x(nk, 1), node_x(nk, 2)))
        zg = p / (radius / 4.0)
        if zg < 0.25:
            zg = 0.25
        ge -= 1.0 / (zg * zg)
    conv = 0.0
    it = 0
    if vtip > VTIP_THRESHOLD * vtip_ref:
        ct = T / (rho * area * vtip * vtip)
        lam0 = vel * sina / vtip
        lam_ind = u_ref / vtip
        for attempt in range(2):
            for it in range(iparams[2] + 1):
                if it == iparams[2]:
                    break
                lam = lam0 + lam_ind
                ref0 = mu * mu + lam * lam
                ref1 = 2.0 * math.sqrt(ref0)
                ref2 = ref1 * ref0
                f = 0.0
                if ref1 > EPS:
                    f = lam_ind - ct / ref1
                    fp = 1.0 + (ct / ref2) * lam
                    lam_ind -= eta * f / fp
                if abs(f) <= tol:
                    conv = 1.0
                    break
            # the induced velocity takes the sign of the thrust: retry once from the opposite sign
            if lam_ind * ct < 0.0 and attempt == 0:
                lam_ind = -lam_ind
                conv = 0.0
                continue
            break
        lam = lam0 + lam_ind
        u_ref = lam_ind * vtip
    chi = 0.0
    if abs(mu) >= EPS:
        chi = math.atan2(mu, lam)
    umean = u_prev
    if vtip > VTIP_THRESHOLD * vtip_ref:
        mut = mu / kff
        lamt = lam / (kh * kh)
        ref = 2.0 * math.sqrt(mut * mut + lamt * lamt)
        ct = T / (rho * area * vtip * vtip)
        if ref > abs(ct):
            umean = (1.0 - w) * ge * vtip * ct / ref + w * u_prev
    return (Omega, psi0, vel, sina, cosa, mu, lam, chi, umean, conv, float(it), u_ref, T, ge, Omega * radius, rho)


@kernel
def disk_position(fparams, nk, psi0, x):
    """(r/R, ψ) of the global point x on the disk (MBDyn's Rotor::GetPos): the in-plane
    distance from the rotor node over R and the azimuth from the wind direction ψ₀."""
    Rd = disk_frame(fparams, nk)
    xr = mtvec(Rd, vsub(x, node_x(nk, 1)))
    d = math.sqrt(xr[0] * xr[0] + xr[1] * xr[1])
    return d / fparams[1], math.atan2(xr[1], xr[0]) - psi0


@kernel
def glauert_factor(gtype, r, psi, mu, lam, chi):
    """1 + r (k_x cos ψ + k_y sin ψ) of the Glauert-type inflow (13.192, Table 13.3 as MBDyn
    1.7.3 codes it: default k_x = 4/3 (1 − 1.8μ²) tan(χ/2); Coleman tan(χ/2); Drees
    4/3 (tan(χ/2) − 1.8 λμ/cos χ), k_y = −2μ; Payne 4/3 μ/(1.2λ + μ); White and Blake
    √2 sin χ; Pitt and Peters 15π/32 tan(χ/2); Howlett sin²χ)."""
    k2 = 0.0
    if gtype == G_GLAUERT:
        k1 = 4.0 / 3.0 * (1.0 - 1.8 * mu * mu) * math.tan(chi / 2.0)
    elif gtype == G_COLEMAN:
        k1 = math.tan(chi / 2.0)
    elif gtype == G_DREES:
        k1 = 4.0 / 3.0 * (math.tan(chi / 2.0) - 1.8 * lam * mu / math.cos(chi))
        k2 = -2.0 * mu
    elif gtype == G_PAYNE:
        k1 = 4.0 / 3.0 * mu / (1.2 * lam + mu)
    elif gtype == G_WHITE_BLAKE:
        k1 = math.sqrt(2.0) * math.sin(chi)
    elif gtype == G_PITT_PETERS:
        k1 = 15.0 * math.pi / 32.0 * math.tan(chi / 2.0)
    else:
        k1 = math.sin(chi) ** 2
    return 1.0 + r * (k1 * math.cos(psi) + k2 * math.sin(psi))


@kernel
def mangler_factor(r, psi, sina):
    """4 [c₀/2 − Σ c_n cos nψ] of the Mangler-Squire (type III) inflow (13.199-13.203 as MBDyn
    1.7.3 codes them: c₀ = 15/8 m r², m = √(1 − r²); c₁ = −15π/256 (9r² − 4) r a,
    c₃ = 45π/256 (a r)³ with a = √((1 − |sin α|)/(1 + |sin α|)); odd n > 3 zero; even n ≤ 10:
    c_n = (−1)^(n/2−1) 15/8 [(m + n)/(n² − 1) (3 − 9r² + n²) + 3m]/(n² − 9) ((1 − m)/(1 + m) a)^(n/2))."""
    r2 = r * r
    m2 = 1.0 - r2
    m = math.sqrt(m2) if m2 > 0.0 else 0.0
    sa = abs(sina)
    a = 1.0 + sa
    if a > 1e-9:
        a = (1.0 - sa) / a
    if a > 0.0:
        a = math.sqrt(a)
    d = 15.0 / 4.0 * m * r2
    c = -15.0 / 256.0 * math.pi * (9.0 * r2 - 4.0) * r * a
    d -= 4.0 * c * math.cos(psi)
    c = 45.0 / 256.0 * math.pi * (a * r) ** 3
    d -= 4.0 * c * math.cos(3.0 * psi)
    for n in range(2, 11, 2):
        sign = 1.0 if (n // 2 - 1) % 2 == 0 else -1.0
        c = (sign * 15.0 / 8.0 * ((m + n) / (n * n - 1.0) * (3.0 - 9.0 * r2 + n * n) + 3.0 * m) / (n * n - 9.0)
             * (((1.0 - m) / (1.0 + m)) * a) ** (n / 2.0))
        d -= 4.0 * c * math.cos(n * psi)
    return d


@kernel
def rotor_inflow(iparams, fparams, z, nodes_kin, air, x):
    """The induced velocity u (3,) at the global point x (global frame): along the rotor
    axis n = R_d e₃, u = n u_prev for `uniform`, n u_prev (1 + r(k_x cos ψ + k_y sin ψ))
    for `glauert`, n u_prev 4[c₀/2 − Σ c_n cos nψ] for `mangler` (u_prev: the mean inflow of
    the last converged step, as MBDyn's GetInducedVelocity uses it; μ, λ, χ, sin α_d of the
    current state), n (ν₀ + r(ν_c cos ψ + ν_s sin ψ)) Ω R for `dynamic inflow` (13.220), zero
    for `no`."""
    model = iparams[0]
    if model == NO:
        return (0.0, 0.0, 0.0)
    P = rotor_values(iparams, fparams, z, nodes_kin, air)
    Rd = disk_frame(fparams, nodes_kin)
    n3 = (Rd[0][2], Rd[1][2], Rd[2][2])
    u0 = z[Z_UPREV]
    if model == DYNAMIC_INFLOW:
        r, psi = disk_position(fparams, nodes_kin, P[P_PSI0], x)
        s = (z[Z_S] + r * (z[Z_S + 2] * math.cos(psi) + z[Z_S + 1] * math.sin(psi))) * fparams[1] * P[P_OMEGA]
        return (n3[0] * s, n3[1] * s, n3[2] * s)
    if model == UNIFORM or u0 == 0.0:
        return (n3[0] * u0, n3[1] * u0, n3[2] * u0)
    if model == GLAUERT:
        if abs(P[P_LAMBDA]) < 1e-9:
            return (n3[0] * u0, n3[1] * u0, n3[2] * u0)
        r, psi = disk_position(fparams, nodes_kin, P[P_PSI0], x)
        s = u0 * glauert_factor(iparams[1], r, psi, P[P_MU], P[P_LAMBDA], P[P_CHI])
    else:
        r, psi = disk_position(fparams, nodes_kin, P[P_PSI0], x)
        s = u0 * mangler_factor(r, psi, P[P_SINA])
    return (n3[0] * s, n3[1] * s, n3[2] * s)


@kernel
def dynamic_inflow_rows(iparams, fparams, z, zp, nk, air, P, out):
    """The three dynamic inflow rows (13.216-13.219, Pitt & Peters 1981, multiplied by Ω
    as MBDyn writes them): with D = ρAΩR², C_T = T/D, C_l = −M̃₁/(D R), C_m = −M̃₂/(D R)
    (M̃ = R_z(ψ₀)ᵀ R_dᵀ M, the moment in the wind-disk frame), V_T = √(λ*² + μ*²),
    V_m = (μ*² + λ*(λ* + ν₀))/V_T and
        out = [C_T − M₁₁ν̇₀ − L₁₁ν₀ − L₁₃ν_c, C_l − M₂₂ν̇_s − L₂₂ν_s, C_m − M₃₃ν̇_c − L₃₁ν₀ − L₃₃ν_c],
    L = Ω L̃⁻¹, L̃ = [[1/(2V_T), 0, d/V_m], [0, −4/(c V_m), 0], [d/V_T, 0, −4(c − 1)/(c V_m)]],
    d = 15π/64 tan(χ/2), c = 2cos²(χ/2)."""
    rotor_param(iparams, fparams, z, nk, air, P)
    Omega, radius = P[P_OMEGA], fparams[1]
    area = math.pi * radius * radius
    vtip_ref = fparams[0] * radius
    kh, kff = fparams[4], fparams[5]
    v0, vs, vc = z[Z_S], z[Z_S + 1], z[Z_S + 2]
    ct, cl, cm = 0.0, 0.0, 0.0
    L11, L13, L22, L31, L33 = 0.0, 0.0, 0.0, 0.0, 0.0
    dim = air[0] * area * Omega * radius * radius
    if dim > EPS:
        lamt = P[P_LAMBDA] / (kh * kh)
        mut = P[P_MU] / kff
        vT = math.sqrt(lamt * lamt + mut * mut)
        vm = 0.0
        if vT > VTIP_THRESHOLD * vtip_ref:
            vm = (mut * mut + lamt * (lamt + v0)) / vT
        Rd = disk_frame(fparams, nk)
        n3 = (Rd[0][2], Rd[1][2], Rd[2][2])
        T = vdot(n3, (z[Z_F], z[Z_F + 1], z[Z_F + 2]))
        Md = mtvec(Rd, (z[Z_M], z[Z_M + 1], z[Z_M + 2]))
        c, s = math.cos(P[P_PSI0]), math.sin(P[P_PSI0])
        m1 = c * Md[0] + s * Md[1]      # R_z(−ψ₀): MBDyn's Mat3x3(c, −s, 0, s, c, 0, …) lists columns
        m2 = -s * Md[0] + c * Md[1]
        ct = T / dim
        cl = -m1 / (dim * radius)
        cm = -m2 / (dim * radius)
        if vT > EPS and vm > EPS:
            l11 = 0.5 / vT
            d = 15.0 / 64.0 * math.pi * math.tan(P[P_CHI] / 2.0)
            l13 = d / vm
            l31 = d / vT
            c2 = math.cos(P[P_CHI] / 2.0)
            d = 2.0 * c2 * c2
            l22 = -4.0 / (d * vm)
            l33 = -4.0 * (d - 1.0) / (d * vm)
            det = l11 * l33 - l31 * l13
            L11 = Omega * l33 / det
            L31 = -Omega * l31 / det
            L13 = -Omega * l13 / det
            L33 = Omega * l11 / det
            L22 = Omega / l22
    out[0] = ct - M11 * zp[0] - L11 * v0 - L13 * vc
    out[1] = cl - M22 * zp[1] - L22 * vs
    out[2] = cm - M33 * zp[2] - L31 * v0 - L33 * vc


@kernel
def gather_nodes(nodes3, x, R, v, w, nk):
    """nodes_kin (3, 18) of one rotor from the node arrays (a node index −1: zeros)."""
    for a in range(3):
        i = nodes3[a]
        for k in range(18):
            nk[a, k] = 0.0
        if i < 0:
            continue
        for k in range(3):
            nk[a, k] = x[i, k]
            nk[a, 12 + k] = v[i, k]
            nk[a, 15 + k] = w[i, k]
            for b in range(3):
                nk[a, 3 + 3 * k + b] = R[i, k, b]


@kernel
def gather_z(k, off, y, yp, dyn, stz, z, zp):
    """z (NZ,) and the state rates zp (3,) of rotor k: unknowns at y[off[k]:], the committed
    companions from the family state stz (ne, 3)."""
    o = off[k]
    for a in range(6):
        z[a] = y[o + a]
    for a in range(3):
        z[Z_S + a] = y[o + 6 + a] if dyn else 0.0
        zp[a] = yp[o + 6 + a] if dyn else 0.0
    z[Z_UPREV], z[Z_UREF], z[Z_W] = stz[k, 0], stz[k, 1], stz[k, 2]


@kernel
def perturb_node(nk, a, kind, j, h):
    """Perturb node a of nodes_kin: kind 0 position, 1 rotation (R ← exp(h e_j) R),
    2 velocity, 3 angular velocity; returns nothing (in place)."""
    if kind == 0:
        nk[a, j] += h
    elif kind == 2:
        nk[a, 12 + j] += h
    elif kind == 3:
        nk[a, 15 + j] += h
    else:
        th = (h if j == 0 else 0.0, h if j == 1 else 0.0, h if j == 2 else 0.0)
        Q = exp_rotvec(th)
        R = node_R(nk, a)
        RR = mmul(Q, R)
        for p in range(3):
            for q in range(3):
                nk[a, 3 + 3 * p + q] = RR[p][q]


@kernel
def rotor_equations(iparams, fparams, off, dyn_index, nodes3, y, yp, stz, air, x, R, v, w, G, Tw, dcoef,
                    want_jac, r_fm, r_di, j_fm, j_di):
    """The family's rows: r_fm (ne, 6) = −[F; M] (the aerodynamic elements add their
    sectional forces and moments about the craft node, 13.3), ∂/∂[F; M] = −I; r_di (nd, 3):
    the dynamic inflow rows of the rotors with that model, their Jacobian j_di (nd, 3, 21)
    over (F, M, Δν̇, Δẋ_c, Δġ_c, Δẋ_r, Δġ_r) by central differences (manual 13.2) chained to
    the Newton increments (G8: Δẋ → δx = dCoef Δẋ, δv = Δẋ; Δġ → θ = dCoef G Δġ, δω = T_ω Δġ)."""
    ne = iparams.shape[0]
    z = np.empty(NZ)
    zp = np.empty(3)
    nk = np.empty((3, 18))
    P = np.empty(NP)
    rp = np.empty(3)
    rm = np.empty(3)
    dq = np.empty((3, 24))
    for k in range(ne):
        o = off[k]
        for a in range(6):
            r_fm[k, a] = -y[o + a]
            if want_jac:
                for b in range(6):
                    j_fm[k, a, b] = -1.0 if a == b else 0.0
        e = dyn_index[k]
        if e < 0:
            continue
        gather_z(k, off, y, yp, True, stz, z, zp)
        gather_nodes(nodes3[k], x, R, v, w, nk)
        dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rm)
        for a in range(3):
            r_di[e, a] = rm[a]
        if not want_jac:
            continue
        # F, M (algebraic): Δ directly
        for c in range(6):
            h = 1e-6 * (abs(z[c]) + 1.0)
            z[c] += h
            dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rp)
            z[c] -= 2.0 * h
            dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rm)
            z[c] += h
            for a in range(3):
                j_di[e, a, c] = (rp[a] - rm[a]) / (2.0 * h)
        # states (differential): ∂/∂ν̇ + dCoef ∂/∂ν
        for c in range(3):
            h = 1e-6 * (abs(z[Z_S + c]) + 1.0)
            z[Z_S + c] += h
            dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rp)
            z[Z_S + c] -= 2.0 * h
            dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rm)
            z[Z_S + c] += h
            for a in range(3):
                j_di[e, a, 6 + c] = dcoef * (rp[a] - rm[a]) / (2.0 * h)
            hp = 1e-6 * (abs(zp[c]) + 1.0)
            zp[c] += hp
            dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rp)
            zp[c] -= hp
            dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rm)
            for a in range(3):
                j_di[e, a, 6 + c] += (rp[a] - rm[a]) / hp
        # craft (a = 0) and rotor (a = 1) nodes: partials on (x, θ, v, ω)
        for nd in range(2):
            for kind in range(4):
                for j in range(3):
                    h = 1e-6
                    if kind != 1:       # position, velocity, angular velocity columns 0, 12, 15
                        h = 1e-6 * (1.0 + abs(nk[nd, (0, 0, 12, 15)[kind] + j]))
                    perturb_node(nk, nd, kind, j, h)
                    dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rp)
                    perturb_node(nk, nd, kind, j, -2.0 * h)
                    dynamic_inflow_rows(iparams[k], fparams[k], z, zp, nk, air[k], P, rm)
                    perturb_node(nk, nd, kind, j, h)
                    for a in range(3):
                        dq[a, 12 * nd + 3 * kind + j] = (rp[a] - rm[a]) / (2.0 * h)
        for nd in range(2):
            i = nodes3[k, nd]
            col = 9 + 6 * nd
            if i < 0:
                for a in range(3):
                    for c in range(6):
                        j_di[e, a, col + c] = 0.0
                continue
            Tth = mscale(dcoef, mload(G, i))
            Twi = mload(Tw, i)
            for a in range(3):
                b = 12 * nd
                qx = mtvec(Tth, (dq[a, b + 3], dq[a, b + 4], dq[a, b + 5]))
                qw = mtvec(Twi, (dq[a, b + 9], dq[a, b + 10], dq[a, b + 11]))
                for c in range(3):
                    j_di[e, a, col + c] = dcoef * dq[a, b + c] + dq[a, b + 6 + c]
                    j_di[e, a, col + 3 + c] = qx[c] + qw[c]


@kernel
def rotor_outputs(iparams, fparams, off, dyn_index, nodes3, y, yp, stz, air, x, R, v, w, out, new_state):
    """The .rot rows (ne, 19: MBDyn's Rotor::Output columns 2-19; the dynamic inflow states
    are zero for the other models) and the companions to commit (ne, 3): u_prev ← u (the
    mean inflow; ν₀ Ω R for dynamic inflow), u_ref ← the local Newton's result."""
    ne = iparams.shape[0]
    z = np.empty(NZ)
    zp = np.empty(3)
    nk = np.empty((3, 18))
    P = np.empty(NP)
    for k in range(ne):
        dyn = dyn_index[k] >= 0
        gather_z(k, off, y, yp, dyn, stz, z, zp)
        gather_nodes(nodes3[k], x, R, v, w, nk)
        rotor_param(iparams[k], fparams[k], z, nk, air[k], P)
        Rd = disk_frame(fparams[k], nk)
        Fd = mtvec(Rd, (z[0], z[1], z[2]))
        Md = mtvec(Rd, (z[3], z[4], z[5]))
        umean = P[P_UMEAN]
        if dyn:
            umean = z[Z_S] * P[P_OMEGA] * fparams[k, 1]
        if iparams[k, 0] == NO:
            umean = 0.0
        for a in range(3):
            out[k, a] = Fd[a]
            out[k, 3 + a] = Md[a]
        out[k, 6] = umean
        out[k, 7] = P[P_VEL]
        out[k, 8] = math.atan2(P[P_SINA], P[P_COSA])
        out[k, 9] = P[P_MU]
        out[k, 10] = P[P_LAMBDA]
        out[k, 11] = P[P_CHI]
        out[k, 12] = P[P_PSI0]
        out[k, 13] = P[P_CONV]
        out[k, 14] = P[P_ITER]
        out[k, 15] = z[Z_S]
        out[k, 16] = z[Z_S + 1]
        out[k, 17] = z[Z_S + 2]
        out[k, 18] = P[P_T]
        new_state[k, 0] = umean
        new_state[k, 1] = P[P_UREF]
        new_state[k, 2] = stz[k, 2]


@kernel
def rotor_inflow_jacobian(iparams, fparams, z, nodes_kin, air, x, du_dx, du_dz, du_dn):
    """Central differences (manual 13.2) of rotor_inflow for the aerodynamic elements' Jacobian:
    du_dx (3, 3) over the point x, du_dz (3, 9) over the rotor's unknowns (F, M, ν), du_dn
    (3, 24) over (δx, θ, δv, δω) of the craft then the rotor node (θ: R ← exp(θ×) R); the
    caller chains du_dn to its Newton increments as rotor_equations does."""
    xp = np.empty(3)
    zz = z.copy()
    nk = nodes_kin.copy()
    for j in range(3):
        h = 1e-6 * (1.0 + abs(x[j]))
        for k in range(3):
            xp[k] = x[k]
        xp[j] = x[j] + h
        up = rotor_inflow(iparams, fparams, zz, nk, air, xp)
        xp[j] = x[j] - h
        um = rotor_inflow(iparams, fparams, zz, nk, air, xp)
        for a in range(3):
            du_dx[a, j] = (up[a] - um[a]) / (2.0 * h)
    for c in range(9):
        h = 1e-6 * (1.0 + abs(zz[c]))
        zz[c] += h
        up = rotor_inflow(iparams, fparams, zz, nk, air, x)
        zz[c] -= 2.0 * h
        um = rotor_inflow(iparams, fparams, zz, nk, air, x)
        zz[c] += h
        for a in range(3):
            du_dz[a, c] = (up[a] - um[a]) / (2.0 * h)
    for nd in range(2):
        for kind in range(4):
            for j in range(3):
                h = 1e-6
                if kind != 1:
                    h = 1e-6 * (1.0 + abs(nk[nd, (0, 0, 12, 15)[kind] + j]))
                perturb_node(nk, nd, kind, j, h)
                up = rotor_inflow(iparams, fparams, zz, nk, air, x)
                perturb_node(nk, nd, kind, j, -2.0 * h)
                um = rotor_inflow(iparams, fparams, zz, nk, air, x)
                perturb_node(nk, nd, kind, j, h)
                for a in range(3):
                    du_dn[a, 12 * nd + 3 * kind + j] = (up[a] - um[a]) / (2.0 * h)


@kernel
def rotor_air(air_arr, nodes3, x, out):
    """out (ne, 5): ρ, c, V∞ of the model's air (engine/core/air.py air_state) at each rotor node."""
    for k in range(nodes3.shape[0]):
        i = nodes3[k, 1]
        rho, c, v = air_state(air_arr, (x[i, 0], x[i, 1], x[i, 2]))
        out[k, 0], out[k, 1] = rho, c
        out[k, 2], out[k, 3], out[k, 4] = v[0], v[1], v[2]


@kernel
def gather_inflow(off, dyn_index, nodes3, y, yp, stz, x, R, v, w, z, nk):
    """z (ne, NZ) and nodes_kin (ne, 3, 18) of every rotor (the inputs of rotor_inflow)."""
    zp = np.empty(3)
    for k in range(off.shape[0]):
        gather_z(k, off, y, yp, dyn_index[k] >= 0, stz, z[k], zp)
        gather_nodes(nodes3[k], x, R, v, w, nk[k])
