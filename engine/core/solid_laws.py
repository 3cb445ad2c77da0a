"""Constitutive laws of the solid elements (theory manual §12.0.1, 12.0.4; input manual
"Solid elements" and §2.10 "Hookean linear elastic isotropic" ... "Linear viscoelastic
Maxwell"): the 2nd Piola–Kirchhoff stress S from the Green–Lagrange strain G and its scaled
rate Ġ* = C⁻¹ Ġ C⁻¹ det F (eq. 12.17), in MBDyn's Voigt order

    ε = (G11, G22, G33, 2 G12, 2 G23, 2 G31),   σ = (S11, S22, S33, S12, S23, S31),

(ε̇* likewise, shears doubled) and, for the u/p-c elements (7-D laws, eqs. 12.34, 12.41), a
7th strain component p̃ (the pressure interpolated from the hydraulic nodes) and a 7th stress
component (p̄ - p̃)/κ, the volumetric compatibility.  C = I + 2 G, J = det F = √det C.

A law is a `SolidLaw`: an integer code, a parameter vector and the size of its internal
state per integration point (plastic strain, Maxwell branches).  The element kernels call
`solid_law` once per integration point; it dispatches on the code, so one compiled kernel
serves every law.  The family groups the distinct laws of a model in one table
(`law_table`): per integration point only an index into it is stored.

The formulas are those of MBDyn's mbdyn/struct/solidcsl.cc (facts only, the code is ours);
each constructor's docstring gives its law."""
from dataclasses import dataclass, field
import math

import numpy as np

from mbdae.engine.core.compiled import kernel

# law codes (the compiled dispatch)
LINEAR_ELASTIC = 0          # S = D ε                      params: D (36, row-major)
LINEAR_VISCOELASTIC = 1     # S = D ε + Dv ε̇*              params: D (36), Dv (36)
NEO_HOOKEAN = 2             # Kübler's compressible Neo-Hookean (+ β D ε̇*)   params: μ, λ, β
MOONEY_RIVLIN = 3           # Bathe's Mooney–Rivlin         params: C1, C2, κ, 1/κ
MOONEY_RIVLIN_UPC = 4       # its u/p-c form (7-D)          params: C1, C2, κ (0 if infinite), 1/κ
HOOKEAN_UPC = 5             # Hooke's law, u/p-c (7-D)      params: μ, γ = λ/κ, 1/κ
BILINEAR_HARDENING = 6      # J2 plasticity, linear isotropic hardening (small strain on G)
BILINEAR_HARDENING_UPC = 7  # its u/p-c form (7-D)          params: E, ν, E_T, σ_y0, μ, κ (0 if infinite),
                            #                                       1/κ, E_P
MAXWELL = 8                 # generalized Maxwell           params: E0, n, C (36), (E1, η1) × n

MAXWELL_MAX_BRANCHES = 8    # Maxwell branches of one law (6 internal values each)
N_PARAMS = 72               # length of a parameter row of the law table
N_HISTORY = 6 * MAXWELL_MAX_BRANCHES   # largest internal state per integration point
N_PLASTIC_HISTORY = 7       # plastic strain (tensor components, Voigt order) and yield stress

# Voigt index pairs: component a is S[VI[a], VJ[a]]
VI = (0, 1, 2, 0, 1, 2)
VJ = (0, 1, 2, 1, 2, 0)


@dataclass(frozen=True, eq=False)
class SolidLaw:
    """A solid constitutive law: `code` (the compiled dispatch), `params` (≤ N_PARAMS
    values), `upc` (a 7-D law for the u/p-c elements), `n_history` (internal values per
    integration point, committed at converged steps), `viscous` (uses ε̇*)."""
    name: str
    code: int
    params: np.ndarray
    upc: bool = False
    n_history: int = 0
    viscous: bool = False
    history0: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def dim(self):
        """6, or 7 for the u/p-c laws (the `constitutive law:` dimension)."""
        return 7 if self.upc else 6


def isotropic_constants(E, nu):
    """(μ, λ, κ) of Young's modulus and Poisson's ratio; κ = inf for ν = 1/2."""
    mu = E / (2.0 * (1.0 + nu))
    if nu == 0.5:
        return mu, math.inf, math.inf
    lam = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))
    return mu, lam, E / (3.0 * (1.0 - 2.0 * nu))


def hookean_matrix(E, nu):
    """The isotropic elasticity matrix D (6×6) in MBDyn's Voigt order (engineering shears)."""
    lam = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))
    mu = E / (2.0 * (1.0 + nu))
    return lame_matrix(mu, lam)


def lame_matrix(mu, lam):
    """D (6×6) of the Lamé constants: S = 2μ G + λ tr G I in Voigt form."""
    D = np.zeros((6, 6))
    D[:3, :3] = lam
    D[[0, 1, 2], [0, 1, 2]] += 2.0 * mu
    D[[3, 4, 5], [3, 4, 5]] = mu
    return D


def _check_young(E, nu, upc, what):
    """MBDyn's ranges (solidcsl.cc readers): E > 0, 0 ≤ ν ≤ 1/2, ν = 1/2 only for 7-D laws."""
    if not E > 0.0:
        raise ValueError(f"{what}: E must be greater than zero")
    if not 0.0 <= nu <= 0.5:
        raise ValueError(f"{what}: nu must be between 0 and 0.5")
    if nu == 0.5 and not upc:
        raise ValueError(f"{what}: nu must be less than 0.5 for a 6-D law; use a 7-D (u/p-c) law")


def _params(values):
    p = np.asarray(values, float).ravel()
    if p.size > N_PARAMS:
        raise ValueError(f"{p.size} law parameters, at most {N_PARAMS}")
    return p


def linear_elastic_generic(D):
    """`linear elastic generic, D` (6-D): S = D ε (St. Venant–Kirchhoff at large strain)."""
    D = np.asarray(D, float).reshape(6, 6)
    return SolidLaw("linear elastic generic", LINEAR_ELASTIC, np.concatenate([D.ravel(), np.zeros(36)]))


def hookean_linear_elastic_isotropic(E, nu, upc=False):
    """`hookean linear elastic isotropic, E, e, nu, ν` (input manual eq. SEC:CL:hookean:sigma):
    6-D S = 2μ G + λ tr G I.  7-D (u/p-c, MBDyn's HookeanLinearElasticIsotropicIncompressible):
    S = 2μ G - γ p̃ I with γ = λ/κ = 3ν/(1+ν), σ7 = (p̄ - p̃)/κ with p̄ = -κ tr G, so that
    S = S̄ + γ (p̄ - p̃) I: the 6-D stress when p̃ = p̄ (ν = 1/2 allowed, γ = 1, 1/κ = 0)."""
    _check_young(E, nu, upc, "hookean linear elastic isotropic")
    if not upc:
        law = linear_elastic_generic(hookean_matrix(E, nu))
        return SolidLaw("hookean linear elastic isotropic", law.code, law.params)
    mu = E / (2.0 * (1.0 + nu))
    inv_kappa = 3.0 * (1.0 - 2.0 * nu) / E
    return SolidLaw("hookean linear elastic isotropic", HOOKEAN_UPC,
                    _params([mu, 3.0 * nu / (1.0 + nu), inv_kappa]), upc=True)


def linear_viscoelastic_generic(D, Dv):
    """`linear viscoelastic generic, D, {Dv | proportional, r}` (6-D): S = D ε + Dv ε̇*
    (Kelvin–Voigt; Dv = r D when proportional)."""
    D = np.asarray(D, float).reshape(6, 6)
    Dv = np.asarray(Dv, float).reshape(6, 6)
    return SolidLaw("linear viscoelastic generic", LINEAR_VISCOELASTIC,
                    np.concatenate([D.ravel(), Dv.ravel()]), viscous=True)


def hookean_linear_viscoelastic_isotropic(E, nu, beta):
    """`hookean linear viscoelastic isotropic, E, e, nu, ν, beta, β` (6-D, input manual eq.
    SEC:CL:hookean:sigma): S = 2μ (G + β Ġ*) + λ (tr G + β tr Ġ*) I, i.e. D ε + β D ε̇*;
    β = 0 is the elastic law (as MBDyn)."""
    _check_young(E, nu, False, "hookean linear viscoelastic isotropic")
    if beta < 0.0:
        raise ValueError("hookean linear viscoelastic isotropic: beta must be greater than or equal to zero")
    D = hookean_matrix(E, nu)
    if beta == 0.0:
        law = linear_elastic_generic(D)
    else:
        law = linear_viscoelastic_generic(D, beta * D)
    return SolidLaw("hookean linear viscoelastic isotropic", law.code, law.params, viscous=law.viscous)


def neo_hookean(E, nu, beta=0.0):
    """`neo hookean elastic, E, e, nu, ν` and `neo hookean viscoelastic, ..., beta, β` (6-D,
    input manual "Neo-Hookean", after Kübler 2005): strain energy per unit volume

        W = μ/2 (I_C - 3) - μ ln J + λ/2 (J - 1)²,

    S = 2 ∂W/∂C = μ I + [λ (III_C - √III_C) - μ] C⁻¹, plus β (2μ Ġ* + λ tr Ġ* I) = β D ε̇*
    for the viscoelastic law (damping proportional to the initial stiffness)."""
    what = "neo hookean viscoelastic" if beta else "neo hookean elastic"
    _check_young(E, nu, False, what)
    if beta < 0.0:
        raise ValueError(f"{what}: beta must be greater than or equal to zero")
    mu, lam, _ = isotropic_constants(E, nu)
    return SolidLaw(what, NEO_HOOKEAN, _params([mu, lam, beta]), viscous=beta > 0.0)


def neo_hookean_elastic(E, nu):
    """`neo hookean elastic, E, e, nu, ν` (see neo_hookean)."""
    return neo_hookean(E, nu)


def neo_hookean_viscoelastic(E, nu, beta):
    """`neo hookean viscoelastic, E, e, nu, ν, beta, β` (see neo_hookean; β = 0: elastic)."""
    law = neo_hookean(E, nu, beta)
    return SolidLaw("neo hookean viscoelastic", law.code, law.params, viscous=law.viscous)


def mooney_rivlin_constants(E, nu, delta=0.0):
    """(C1, C2, κ) of `E, e, nu, ν [, delta, δ]` (input manual eqs. mooney-rivlin:param1-4):
    G = E/(2(1+ν)), C1 = G/(2(1+δ)), C2 = δ C1, κ = E/(3(1-2ν)) (inf for ν = 1/2)."""
    if not E > 0.0:
        raise ValueError("mooney rivlin elastic: E must be greater than zero")
    if not 0.0 <= nu <= 0.5:
        raise ValueError("mooney rivlin elastic: nu must be between 0 and 0.5")
    if delta < 0.0:
        raise ValueError("mooney rivlin elastic: delta must be greater than or equal to zero")
    G = E / (2.0 * (1.0 + nu))
    C1 = G / (2.0 * (1.0 + delta))
    kappa = math.inf if nu == 0.5 else E / (3.0 * (1.0 - 2.0 * nu))
    return C1, delta * C1, kappa


def mooney_rivlin_elastic(C1, C2, kappa, upc=False):
    """`mooney rivlin elastic, {C1, c1, C2, c2, kappa, κ | E, e, nu, ν [, delta, δ]}` (input
    manual eq. mooney-rivlin:stress, after Bathe §6.6.2): strain energy per unit volume

        W = C1 (I_C III_C^(-1/3) - 3) + C2 (II_C III_C^(-2/3) - 3) + κ/2 (J - 1)²,

    S = 2 ∂W/∂C = 2 C1 III^(-1/3) I + 2 C2 III^(-2/3) (I_C I - C) + h C⁻¹ with
    h = κ (III - J) - 2/3 C1 I_C III^(-1/3) - 4/3 C2 II_C III^(-2/3).
    7-D (u/p-c, Bathe §6.4.1): p̄ = κ (1 - J), eq. 12.34 replaces κ (III - J) by -p̃ J and
    σ7 = 1 - J - p̃/κ (κ = inf allowed: fully incompressible)."""
    if not C1 > 0.0:
        raise ValueError("mooney rivlin elastic: C1 must be greater than zero")
    if C2 < 0.0:
        raise ValueError("mooney rivlin elastic: C2 must be greater than or equal to zero")
    if not kappa > 0.0:
        raise ValueError("mooney rivlin elastic: kappa must be greater than zero")
    if math.isinf(kappa) and not upc:
        raise ValueError("mooney rivlin elastic: nu must be less than 0.5 for a 6-D law; use a 7-D (u/p-c) law")
    code = MOONEY_RIVLIN_UPC if upc else MOONEY_RIVLIN
    finite = 0.0 if math.isinf(kappa) else kappa          # no inf in the law table
    return SolidLaw("mooney rivlin elastic", code, _params([C1, C2, finite, 1.0 / kappa]), upc=upc)


def bilinear_isotropic_hardening(E, nu, ET, sigmayv, upc=False):
    """`bilinear isotropic hardening, E, e, nu, ν, ET, E_T, sigmayv, σ_y0` (input manual
    "Bilinear isotropic hardening"; Bathe §6.6.3 as solidcsl.cc): von Mises plasticity with
    linear isotropic hardening, small strain on G (additive split, total Lagrangian):
    e = dev G - e^P, trial s* = 2μ e, σ̄* = √(3/2 s*:s*); if σ̄* > σ_y (radial return)
    σ̄ = (E_P σ̄* + 3μ σ_y)/(E_P + 3μ), s = (σ̄/σ̄*) s*, Δe^P = (1 - σ̄/σ̄*) e, σ_y ← σ̄, with
    E_P = E E_T/(E - E_T).  S = s + σ_m I, σ_m = κ tr G (6-D) or -p̃ (7-D, p̄ = -κ tr G,
    σ7 = -tr G - p̃/κ).  Internal state: e^P (tensor components, Voigt order) and σ_y."""
    what = "bilinear isotropic hardening"
    if not E > 0.0:
        raise ValueError(f"{what}: E must be greater than zero")
    if nu < 0.0 or nu > 0.5 or (nu == 0.5 and not upc):
        raise ValueError(f"{what}: nu must be between 0 and 0.5" + ("" if upc else " (0.5 excluded for a 6-D law)"))
    if ET < 0.0 or ET >= E:
        raise ValueError(f"{what}: ET must be between zero and E")
    if not sigmayv > 0.0:
        raise ValueError(f"{what}: sigmayv must be greater than zero")
    mu = E / (2.0 * (1.0 + nu))
    inv_kappa = 3.0 * (1.0 - 2.0 * nu) / E
    kappa = 0.0 if inv_kappa == 0.0 else 1.0 / inv_kappa   # κ = inf (ν = 1/2, 7-D only) kept out of the table
    EP = E * ET / (E - ET)
    code = BILINEAR_HARDENING_UPC if upc else BILINEAR_HARDENING
    h0 = np.zeros(N_PLASTIC_HISTORY)
    h0[6] = sigmayv
    return SolidLaw(what, code, _params([E, nu, ET, sigmayv, mu, kappa, inv_kappa, EP]), upc=upc,
                    n_history=N_PLASTIC_HISTORY, history0=h0)


def linear_viscoelastic_maxwell(E0, branches, C, name="linear viscoelastic maxwell n"):
    """`linear viscoelastic maxwell n, E0, e0, n, {E1, e1, eta1, η1} × n, C, <Mat6x6>` and
    `linear viscoelastic maxwell 1, E0, e0, E1, e1, eta1, η1, C, <Mat6x6>` (6-D, input manual
    eqs. CSL:Maxwell:stress, CSL:Maxwell:strain_rate):

        σ = E0 C ε + Σ_i E1_i C (ε - ε_i^v),   ε̇_i^v = (E1_i/η1_i) C (ε - ε_i^v),

    integrated by implicit Euler over dt as MBDyn (solidcsl.cc): (I/dt + (E1/η1) C) ε^v =
    (E1/η1) C ε + ε^v_old/dt; D = C (E0 + Σ E1) - Σ (E1²/η1) C (I/dt + (E1/η1) C)⁻¹ C, and
    ε^v = ε^v_old, D = C (E0 + Σ E1) when dt = 0.  ε̇* is not used (MBDyn's type ELASTIC)."""
    branches = [(float(e), float(h)) for e, h in branches]
    if not E0 > 0.0:
        raise ValueError(f"{name}: E0 must be greater than zero")
    if not 1 <= len(branches) <= MAXWELL_MAX_BRANCHES:
        raise ValueError(f"{name}: between 1 and {MAXWELL_MAX_BRANCHES} Maxwell elements (mbdae's limit), "
                         f"got {len(branches)}")
    for E1, eta1 in branches:
        if E1 < 0.0:
            raise ValueError(f"{name}: E1 must be greater than or equal to zero")
        if not eta1 > 0.0:
            raise ValueError(f"{name}: eta1 must be greater than zero")
    C = np.asarray(C, float).reshape(6, 6)
    n = len(branches)
    p = np.concatenate([[E0, n], C.ravel(), np.ravel(branches)])
    return SolidLaw(name, MAXWELL, _params(p), n_history=6 * n, history0=np.zeros(6 * n))


def linear_viscoelastic_maxwell_1(E0, E1, eta1, C):
    """`linear viscoelastic maxwell 1, E0, e0, E1, e1, eta1, η1, C, <Mat6x6>` (Zener model)."""
    return linear_viscoelastic_maxwell(E0, [(E1, eta1)], C, name="linear viscoelastic maxwell 1")


def maxwell_isotropic_matrix(nu):
    """The input manual's C for isotropic Maxwell laws (E0 is then Young's modulus):
    hookean_matrix(1, ν)."""
    return hookean_matrix(1.0, nu)


def law_table(laws):
    """(codes (m,), params (m, N_PARAMS), upc (m,), n_history (m,), history0 (m, w)) of the
    distinct laws in `laws` (by identity), and the index of each law into it; w, the width of
    the internal state, is the largest n_history of these laws (≤ N_HISTORY), at least 1."""
    distinct, index, where = [], [], {}
    for law in laws:
        k = where.get(id(law))
        if k is None:
            k = where[id(law)] = len(distinct)
            distinct.append(law)
        index.append(k)
    m = len(distinct)
    codes = np.array([law.code for law in distinct], np.int64)
    params = np.zeros((m, N_PARAMS))
    for k, law in enumerate(distinct):
        params[k, :len(law.params)] = law.params
    upc = np.array([law.upc for law in distinct], bool)
    n_history = np.array([law.n_history for law in distinct], np.int64)
    width = max(1, int(n_history.max(initial=0)))
    history0 = np.zeros((m, width))
    for k, law in enumerate(distinct):
        history0[k, :len(law.history0)] = law.history0
    return codes, params, upc, n_history, history0, np.array(index, np.int64), distinct


# ------------------------------------------------------------------ compiled helpers

@kernel
def _right_cauchy_green(eps, C):
    """C = I + 2 G from the Voigt strain (engineering shears)."""
    C[0, 0] = 1.0 + 2.0 * eps[0]
    C[1, 1] = 1.0 + 2.0 * eps[1]
    C[2, 2] = 1.0 + 2.0 * eps[2]
    C[0, 1] = C[1, 0] = eps[3]
    C[1, 2] = C[2, 1] = eps[4]
    C[2, 0] = C[0, 2] = eps[5]


@kernel
def inverse3(A, Ai):
    """Ai = A⁻¹ (3×3); returns det A."""
    c00 = A[1, 1] * A[2, 2] - A[1, 2] * A[2, 1]
    c01 = A[1, 2] * A[2, 0] - A[1, 0] * A[2, 2]
    c02 = A[1, 0] * A[2, 1] - A[1, 1] * A[2, 0]
    det = A[0, 0] * c00 + A[0, 1] * c01 + A[0, 2] * c02
    r = 1.0 / det
    Ai[0, 0] = c00 * r
    Ai[1, 0] = c01 * r
    Ai[2, 0] = c02 * r
    Ai[0, 1] = (A[0, 2] * A[2, 1] - A[0, 1] * A[2, 2]) * r
    Ai[1, 1] = (A[0, 0] * A[2, 2] - A[0, 2] * A[2, 0]) * r
    Ai[2, 1] = (A[0, 1] * A[2, 0] - A[0, 0] * A[2, 1]) * r
    Ai[0, 2] = (A[0, 1] * A[1, 2] - A[0, 2] * A[1, 1]) * r
    Ai[1, 2] = (A[0, 2] * A[1, 0] - A[0, 0] * A[1, 2]) * r
    Ai[2, 2] = (A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]) * r
    return det


@kernel
def _dinv(Ci, m, n, b):
    """(Ci dC_b Ci)[m, n] for the strain direction b: dC_b = ∂C/∂ε_b (2 e_k e_kᵀ for a normal
    component, e_i e_jᵀ + e_j e_iᵀ for a shear), so that ∂C⁻¹/∂ε_b = -Ci dC_b Ci."""
    i = VI[b]
    j = VJ[b]
    return Ci[m, i] * Ci[j, n] + Ci[m, j] * Ci[i, n]


@kernel
def _neo_hookean(prm, eps, epsd, sig, D, Dd):
    """Kübler's Neo-Hookean law (see neo_hookean) with its tangent."""
    mu = prm[0]
    lam = prm[1]
    beta = prm[2]
    C = np.empty((3, 3))
    Ci = np.empty((3, 3))
    _right_cauchy_green(eps, C)
    III = inverse3(C, Ci)
    J = math.sqrt(III)
    g = lam * (III - J) - mu
    dg = lam * (III - 0.5 * J)            # ∂g/∂ε_b = dg tr(C⁻¹ dC_b), tr(C⁻¹ dC_b) = 2 C⁻¹[i, j]
    for a in range(6):
        m = VI[a]
        n = VJ[a]
        sig[a] = g * Ci[m, n] + (mu if a < 3 else 0.0)
        for b in range(6):
            D[a, b] = dg * 2.0 * Ci[VI[b], VJ[b]] * Ci[m, n] - g * _dinv(Ci, m, n, b)
    if beta != 0.0:
        tr = epsd[0] + epsd[1] + epsd[2]
        for a in range(6):
            if a < 3:
                sig[a] += beta * (2.0 * mu * epsd[a] + lam * tr)
                for b in range(3):
                    Dd[a, b] = beta * lam
                Dd[a, a] += 2.0 * beta * mu
            else:
                sig[a] += beta * mu * epsd[a]
                Dd[a, a] = beta * mu


@kernel
def _mooney_rivlin(prm, eps, upc, sig, D):
    """Bathe's Mooney–Rivlin law (see mooney_rivlin_elastic) with its tangent; u/p-c form when
    upc (eps[6] = p̃)."""
    C1 = prm[0]
    C2 = prm[1]
    kappa = prm[2]
    inv_kappa = prm[3]
    C = np.empty((3, 3))
    Ci = np.empty((3, 3))
    _right_cauchy_green(eps, C)
    III = inverse3(C, Ci)
    J = math.sqrt(III)
    IC = C[0, 0] + C[1, 1] + C[2, 2]
    IIC = (C[0, 0] * C[1, 1] + C[1, 1] * C[2, 2] + C[2, 2] * C[0, 0]
           - C[0, 1] * C[1, 0] - C[1, 2] * C[2, 1] - C[2, 0] * C[0, 2])
    p = III ** (-1.0 / 3.0)
    q = p * p
    if upc:
        pt = eps[6]
        h = -pt * J
        dh_vol = -0.5 * pt * J            # coefficient of t_b = tr(C⁻¹ dC_b)
    else:
        pt = 0.0
        h = kappa * (III - J)
        dh_vol = kappa * (III - 0.5 * J)
    h -= 2.0 / 3.0 * C1 * IC * p + 4.0 / 3.0 * C2 * IIC * q
    for a in range(6):
        m = VI[a]
        n = VJ[a]
        delta = 1.0 if a < 3 else 0.0
        sig[a] = 2.0 * C1 * p * delta + 2.0 * C2 * q * (IC * delta - C[m, n]) + h * Ci[m, n]
        for b in range(6):
            i = VI[b]
            j = VJ[b]
            t = 2.0 * Ci[i, j]
            dI = 2.0 if b < 3 else 0.0
            dII = IC * dI - 2.0 * C[i, j]
            dp = -p * t / 3.0
            dq = -2.0 * q * t / 3.0
            dCmn = (1.0 if (m == i and n == j) else 0.0) + (1.0 if (m == j and n == i) else 0.0)
            dh = (dh_vol * t - 2.0 / 3.0 * C1 * (dI * p + IC * dp)
                  - 4.0 / 3.0 * C2 * (dII * q + IIC * dq))
            D[a, b] = (2.0 * C1 * dp * delta + 2.0 * C2 * (dq * (IC * delta - C[m, n]) + q * (dI * delta - dCmn))
                       + dh * Ci[m, n] - h * _dinv(Ci, m, n, b))
    if upc:
        for a in range(6):
            D[a, 6] = -J * Ci[VI[a], VJ[a]]
            D[6, a] = -J * Ci[VI[a], VJ[a]]
        sig[6] = 1.0 - J - pt * inv_kappa
        D[6, 6] = -inv_kappa


@kernel
def _hookean_upc(prm, eps, sig, D):
    """MBDyn's u/p-c Hooke law (see hookean_linear_elastic_isotropic): S = 2μ G - γ p̃ I,
    σ7 = -tr G - p̃/κ."""
    mu = prm[0]
    gamma = prm[1]
    inv_kappa = prm[2]
    pt = eps[6]
    for a in range(3):
        sig[a] = 2.0 * mu * eps[a] - gamma * pt
        D[a, a] = 2.0 * mu
        D[a, 6] = -gamma
        D[6, a] = -1.0
        sig[a + 3] = mu * eps[a + 3]
        D[a + 3, a + 3] = mu
    sig[6] = -(eps[0] + eps[1] + eps[2]) - pt * inv_kappa
    D[6, 6] = -inv_kappa


YIELD_TOLERANCE = 1e-12      # relative, on σ̄* > σ_y (the trial state's yield test)


@kernel
def _bilinear_hardening(prm, eps, upc, hold, hnew, sig, D):
    """Radial return of the bilinear isotropic hardening law (see
    bilinear_isotropic_hardening) with its consistent tangent
    ∂s/∂e = 2μ [β P - (9/2) μ σ_y/((E_P + 3μ) σ̄*³) s* s*ᵀ], β = σ̄/σ̄*, P the deviatoric
    projector from engineering strains to tensor components."""
    mu = prm[4]
    kappa = prm[5]
    inv_kappa = prm[6]
    EP = prm[7]
    em = (eps[0] + eps[1] + eps[2]) / 3.0
    e = np.empty(6)
    for a in range(3):
        e[a] = eps[a] - em - hold[a]
        e[a + 3] = 0.5 * eps[a + 3] - hold[a + 3]
    ee = 0.0
    for a in range(6):
        ee += (1.0 if a < 3 else 2.0) * e[a] * e[a]
    sy = hold[6]
    sbar_trial = 2.0 * mu * math.sqrt(1.5 * ee)
    beta = 1.0
    c = 0.0
    # yield only beyond round-off: points of one homogeneous state (the same σ̄* = σ_y up to
    # the last bits at the start of a reloading step) must not split into elastic and plastic
    # ones, which with tetrahedron10's negative-weight centre point makes the tangent indefinite
    if sbar_trial > sy * (1.0 + YIELD_TOLERANCE):
        sbar = (EP * sbar_trial + 3.0 * mu * sy) / (EP + 3.0 * mu)
        beta = sbar / sbar_trial
        c = 4.5 * mu * sy / ((EP + 3.0 * mu) * sbar_trial ** 3)
        for a in range(6):
            hnew[a] = hold[a] + (1.0 - beta) * e[a]
        hnew[6] = sbar
    for a in range(6):
        sa = 2.0 * mu * e[a]
        sig[a] = beta * sa
        for b in range(6):
            if a < 3 and b < 3:
                P = (1.0 if a == b else 0.0) - 1.0 / 3.0
            elif a == b:
                P = 0.5
            else:
                P = 0.0
            D[a, b] = 2.0 * mu * (beta * P - c * sa * 2.0 * mu * e[b])
    if upc:
        pt = eps[6]
        for a in range(3):
            sig[a] -= pt
            D[a, 6] = -1.0
            D[6, a] = -1.0
        sig[6] = -3.0 * em - pt * inv_kappa
        D[6, 6] = -inv_kappa
    else:
        for a in range(3):
            sig[a] += 3.0 * kappa * em
            for b in range(3):
                D[a, b] += kappa


@kernel
def _solve_in_place(A, B):
    """B ← A⁻¹ B by Gaussian elimination with partial pivoting (A is overwritten)."""
    n = A.shape[0]
    m = B.shape[1]
    for k in range(n):
        piv = k
        for r in range(k + 1, n):
            if abs(A[r, k]) > abs(A[piv, k]):
                piv = r
        if piv != k:
            for c in range(n):
                A[k, c], A[piv, c] = A[piv, c], A[k, c]
            for c in range(m):
                B[k, c], B[piv, c] = B[piv, c], B[k, c]
        r0 = 1.0 / A[k, k]
        for r in range(k + 1, n):
            f = A[r, k] * r0
            if f != 0.0:
                for c in range(k, n):
                    A[r, c] -= f * A[k, c]
                for c in range(m):
                    B[r, c] -= f * B[k, c]
    for k in range(n - 1, -1, -1):
        r0 = 1.0 / A[k, k]
        for c in range(m):
            s = B[k, c]
            for j in range(k + 1, n):
                s -= A[k, j] * B[j, c]
            B[k, c] = s * r0


@kernel
def _maxwell(prm, eps, dt, hold, hnew, sig, D):
    """Generalized Maxwell law, implicit Euler over dt (see linear_viscoelastic_maxwell)."""
    E0 = prm[0]
    nb = int(prm[1])
    Eeq = E0
    for k in range(nb):
        Eeq += prm[38 + 2 * k]
    for a in range(6):
        for b in range(6):
            D[a, b] = Eeq * prm[2 + 6 * a + b]
    w = np.empty(6)                      # E0 ε + Σ E1 (ε - ε^v)
    for a in range(6):
        w[a] = Eeq * eps[a]
    A = np.empty((6, 6))
    B = np.empty((6, 7))
    for k in range(nb):
        E1 = prm[38 + 2 * k]
        r = E1 / prm[39 + 2 * k]
        o = 6 * k
        if dt > 0.0:
            for a in range(6):
                s = 0.0
                for b in range(6):
                    cab = prm[2 + 6 * a + b]
                    A[a, b] = r * cab
                    B[a, b] = cab
                    s += cab * eps[b]
                A[a, a] += 1.0 / dt
                B[a, 6] = r * s + hold[o + a] / dt
            _solve_in_place(A, B)        # B = [A⁻¹ C | ε^v]
            for a in range(6):
                hnew[o + a] = B[a, 6]
                for b in range(6):
                    s = 0.0
                    for c in range(6):
                        s += prm[2 + 6 * a + c] * B[c, b]
                    D[a, b] -= E1 * r * s
        else:
            for a in range(6):
                hnew[o + a] = hold[o + a]
        for a in range(6):
            w[a] -= E1 * hnew[o + a]
    for a in range(6):
        s = 0.0
        for b in range(6):
            s += prm[2 + 6 * a + b] * w[b]
        sig[a] = s


@kernel
def solid_law(code, prm, eps, epsd, dt, hold, hnew, sig, D, Dd):
    """One law at one integration point: σ (7,) from ε (7,; ε[6] = p̃ for 7-D laws) and
    ε̇* (6,), with D = ∂σ/∂ε (7, 7) and Dd = ∂σ/∂ε̇* (7, 6); hold: the committed internal
    state, hnew: the state at this iterate (written; the family commits it after a
    converged step); dt: the time since the committed state.  Rows and columns 6 stay zero
    for 6-D laws."""
    for i in range(7):
        sig[i] = 0.0
        for j in range(7):
            D[i, j] = 0.0
        for j in range(6):
            Dd[i, j] = 0.0
    for k in range(len(hnew)):
        hnew[k] = hold[k]
    if code == LINEAR_ELASTIC or code == LINEAR_VISCOELASTIC:
        for i in range(6):
            s = 0.0
            for j in range(6):
                D[i, j] = prm[6 * i + j]
                s += prm[6 * i + j] * eps[j]
            sig[i] = s
        if code == LINEAR_VISCOELASTIC:
            for i in range(6):
                s = 0.0
                for j in range(6):
                    Dd[i, j] = prm[36 + 6 * i + j]
                    s += prm[36 + 6 * i + j] * epsd[j]
                sig[i] += s
    elif code == NEO_HOOKEAN:
        _neo_hookean(prm, eps, epsd, sig, D, Dd)
    elif code == MOONEY_RIVLIN or code == MOONEY_RIVLIN_UPC:
        _mooney_rivlin(prm, eps, code == MOONEY_RIVLIN_UPC, sig, D)
    elif code == HOOKEAN_UPC:
        _hookean_upc(prm, eps, sig, D)
    elif code == BILINEAR_HARDENING or code == BILINEAR_HARDENING_UPC:
        _bilinear_hardening(prm, eps, code == BILINEAR_HARDENING_UPC, hold, hnew, sig, D)
    elif code == MAXWELL:
        _maxwell(prm, eps, dt, hold, hnew, sig, D)
