"""Constitutive laws of the solid elements (theory manual §12.0.1, 12.0.4; input manual
"Solid elements"): the 2nd Piola–Kirchhoff stress S from the Green–Lagrange strain G and
its scaled rate Ġ* = C⁻¹ Ġ C⁻¹ det F (eq. 12.17), in MBDyn's Voigt order

    ε = (G11, G22, G33, 2 G12, 2 G23, 2 G31),   σ = (S11, S22, S33, S12, S23, S31),

and, for the u/p-c elements (7-D laws, eqs. 12.34, 12.41), a 7th strain component p̃ (the
pressure interpolated from the hydraulic nodes) and a 7th stress component
(p̄ - p̃)/κ, the volumetric compatibility.

A law is a `SolidLaw`: an integer code, a parameter vector and the size of its internal
state per integration point (plastic strain, Maxwell branches).  The element kernels call
`solid_law` once per integration point; it dispatches on the code, so one compiled kernel
serves every law.  The family groups the distinct laws of a model in one table
(`law_table`): per integration point only an index into it is stored."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core.compiled import kernel

# law codes (the compiled dispatch)
LINEAR_ELASTIC = 0          # S = D ε                      params: D (36, row-major)
LINEAR_VISCOELASTIC = 1     # S = D ε + Dv ε̇*              params: D (36), Dv (36)

N_PARAMS = 72               # length of a parameter row of the law table
N_HISTORY = 0               # largest internal state per integration point


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


def hookean_matrix(E, nu):
    """The isotropic elasticity matrix D (6×6) in MBDyn's Voigt order (engineering shears)."""
    lam = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))
    mu = E / (2.0 * (1.0 + nu))
    D = np.zeros((6, 6))
    D[:3, :3] = lam
    D[[0, 1, 2], [0, 1, 2]] += 2.0 * mu
    D[[3, 4, 5], [3, 4, 5]] = mu
    return D


def linear_elastic_generic(D):
    """`linear elastic generic, D` (6-D): S = D ε (St. Venant–Kirchhoff at large strain)."""
    D = np.asarray(D, float).reshape(6, 6)
    return SolidLaw("linear elastic generic", LINEAR_ELASTIC, np.concatenate([D.ravel(), np.zeros(36)]))


def hookean_linear_elastic_isotropic(E, nu):
    """`hookean linear elastic isotropic, E, e, nu, ν` (6-D): S = D(E, ν) ε."""
    law = linear_elastic_generic(hookean_matrix(E, nu))
    return SolidLaw("hookean linear elastic isotropic", law.code, law.params)


def linear_viscoelastic_generic(D, Dv):
    """`linear viscoelastic generic, D, Dv` (6-D): S = D ε + Dv ε̇* (Kelvin–Voigt)."""
    D = np.asarray(D, float).reshape(6, 6)
    Dv = np.asarray(Dv, float).reshape(6, 6)
    return SolidLaw("linear viscoelastic generic", LINEAR_VISCOELASTIC,
                    np.concatenate([D.ravel(), Dv.ravel()]), viscous=True)


def law_table(laws):
    """(codes (m,), params (m, N_PARAMS), upc (m,), n_history (m,), history0 (m, N_HISTORY
    or 1)) of the distinct laws in `laws` (by identity), and the index of each law into it."""
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
    width = max(1, N_HISTORY)
    history0 = np.zeros((m, width))
    for k, law in enumerate(distinct):
        history0[k, :len(law.history0)] = law.history0
    return codes, params, upc, n_history, history0, np.array(index, np.int64), distinct


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
