"""Constitutive laws of the solid elements (engine/core/solid_laws.py; theory manual ch. 12,
input manual §2.10 "Hookean linear elastic isotropic" ... "Linear viscoelastic Maxwell") and
their deck syntax (engine/io/mbdyn/laws.py).  Checked against finite differences, strain
energies, closed forms (uniaxial Neo-Hookean stretch, the 1-D bilinear bar, Maxwell
relaxation) and the small-strain limit; the decks of ../shared/mbdyn-tests/solid are read in
place (the tests that need them skip when they are absent)."""
import glob
import math
import os
import re

import numpy as np
import pytest

from mbdae.engine.core import solid_laws as sl
from mbdae.engine.io.mbdyn.args import Args
from mbdae.engine.io.mbdyn.deck import DeckError, DeckReader, Source, scan_cards

HERE = os.path.dirname(__file__)
SOLID_DIR = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "solid")
CSL_FILES = sorted(glob.glob(os.path.join(SOLID_DIR, "*", "*.csl")))
ELM_FILES = sorted(glob.glob(os.path.join(SOLID_DIR, "*", "*.elm")))
needs_decks = pytest.mark.skipif(not CSL_FILES, reason="../shared/mbdyn-tests/solid is absent")


def evaluate(law, eps, epsd=None, dt=0.0, hold=None):
    """(σ (7,), D (7, 7), Dd (7, 6), hnew) of one law through the law table, as an element does."""
    codes, params, _, _, history0, index, _ = sl.law_table([law])
    k = index[0]
    e = np.zeros(7)
    e[:len(eps)] = eps
    ed = np.zeros(6) if epsd is None else np.asarray(epsd, float)
    h_old = history0[k].copy()
    if hold is not None:
        h_old[:len(hold)] = hold
    h_new = np.zeros_like(h_old)
    sig, D, Dd = np.zeros(7), np.zeros((7, 7)), np.zeros((7, 6))
    sl.solid_law(codes[k], params[k], e, ed, dt, h_old, h_new, sig, D, Dd)
    return sig, D, Dd, h_new


def voigt_of(M):
    """Voigt strain (engineering shears) of a symmetric tensor."""
    return np.array([M[0, 0], M[1, 1], M[2, 2], 2 * M[0, 1], 2 * M[1, 2], 2 * M[2, 0]])


def tensor_of(s):
    """Symmetric tensor of a Voigt stress."""
    return np.array([[s[0], s[3], s[5]], [s[3], s[1], s[4]], [s[5], s[4], s[2]]])


def rotation(rng):
    Q, R = np.linalg.qr(rng.normal(size=(3, 3)))
    return Q * np.sign(np.diag(R))


# --------------------------------------------------------------------- the laws under test
E, NU = 55.0, 0.3
MR = sl.mooney_rivlin_constants(5.0, 0.45, 0.25)
_rng = np.random.default_rng(7)
_A = _rng.normal(size=(6, 6))
SPD = _A @ _A.T + 6 * np.eye(6)
SPD_V = 0.01 * (SPD + np.diag(np.arange(6.0)))
CISO = sl.maxwell_isotropic_matrix(0.3)
PLASTIC_STATE = np.array([0.004, -0.001, -0.003, 0.002, -0.001, 0.0015, 0.9])   # e^P (deviatoric), σ_y

CASES = {   # name: (law, committed state or None, dt)
    "linear elastic generic": (sl.linear_elastic_generic(SPD), None, 0.0),
    "linear viscoelastic generic": (sl.linear_viscoelastic_generic(SPD, SPD_V), None, 0.0),
    "hookean": (sl.hookean_linear_elastic_isotropic(E, NU), None, 0.0),
    "hookean upc": (sl.hookean_linear_elastic_isotropic(E, NU, upc=True), None, 0.0),
    "hookean upc nu=1/2": (sl.hookean_linear_elastic_isotropic(E, 0.5, upc=True), None, 0.0),
    "hookean viscoelastic": (sl.hookean_linear_viscoelastic_isotropic(E, NU, 0.1), None, 0.0),
    "neo hookean elastic": (sl.neo_hookean_elastic(5.0, 0.45), None, 0.0),
    "neo hookean viscoelastic": (sl.neo_hookean_viscoelastic(5.0, 0.45, 0.2), None, 0.0),
    "mooney rivlin": (sl.mooney_rivlin_elastic(*MR), None, 0.0),
    "mooney rivlin upc": (sl.mooney_rivlin_elastic(*MR, upc=True), None, 0.0),
    "mooney rivlin upc nu=1/2": (sl.mooney_rivlin_elastic(*sl.mooney_rivlin_constants(5.0, 0.5, 0.25), upc=True),
                                 None, 0.0),
    "bilinear elastic regime": (sl.bilinear_isotropic_hardening(200.0, 0.3, 20.0, 1e3), None, 0.0),
    "bilinear plastic regime": (sl.bilinear_isotropic_hardening(200.0, 0.3, 20.0, 0.5), None, 0.0),
    "bilinear plastic, hardened": (sl.bilinear_isotropic_hardening(200.0, 0.3, 20.0, 0.5), PLASTIC_STATE, 0.0),
    "bilinear perfectly plastic": (sl.bilinear_isotropic_hardening(200.0, 0.3, 0.0, 0.5), None, 0.0),
    "bilinear upc elastic regime": (sl.bilinear_isotropic_hardening(200.0, 0.3, 20.0, 1e3, upc=True), None, 0.0),
    "bilinear upc plastic regime": (sl.bilinear_isotropic_hardening(200.0, 0.3, 20.0, 0.5, upc=True),
                                    PLASTIC_STATE, 0.0),
    "maxwell 1": (sl.linear_viscoelastic_maxwell_1(2.0, 1.5, 0.7, CISO), np.full(6, 0.01), 0.05),
    "maxwell n": (sl.linear_viscoelastic_maxwell(2.0, [(1.5, 0.7), (0.5, 3.0), (2.0, 0.1)], SPD),
                  np.linspace(-0.05, 0.05, 18), 0.3),
    "maxwell n, dt = 0": (sl.linear_viscoelastic_maxwell(2.0, [(1.5, 0.7), (0.5, 3.0)], CISO),
                          np.linspace(-0.05, 0.05, 12), 0.0),
}


def random_state(law, rng):
    """A moderate strain (|G| up to 0.2), a strain rate and, for 7-D laws, a pressure p̃."""
    eps = np.zeros(7)
    eps[:6] = rng.uniform(-0.2, 0.2, 6) * rng.choice([0.25, 1.0])
    if np.abs(eps[:6]).max() < 0.05:
        eps[:6] *= 0.05 / np.abs(eps[:6]).max()
    if law.upc:
        eps[6] = rng.uniform(-2.0, 2.0)
    return eps, rng.uniform(-1.0, 1.0, 6)


@pytest.mark.parametrize("name", list(CASES))
def test_tangents_match_central_differences(name):
    """D = ∂σ/∂ε (7×7 for u/p-c) and Dd = ∂σ/∂ε̇* against central differences of σ."""
    law, hold, dt = CASES[name]
    rng = np.random.default_rng(abs(hash(name)) % 2 ** 32)
    n = law.dim
    for _ in range(3):
        eps, epsd = random_state(law, rng)
        sig, D, Dd, _ = evaluate(law, eps, epsd, dt, hold)
        h = 1e-6
        Dfd, Ddfd = np.zeros((7, 7)), np.zeros((7, 6))
        for j in range(n):
            d = h * np.eye(7)[j]
            Dfd[:, j] = evaluate(law, eps + d, epsd, dt, hold)[0] - evaluate(law, eps - d, epsd, dt, hold)[0]
        for j in range(6):
            d = h * np.eye(6)[j]
            Ddfd[:, j] = evaluate(law, eps, epsd + d, dt, hold)[0] - evaluate(law, eps, epsd - d, dt, hold)[0]
        Dfd, Ddfd = Dfd / (2 * h), Ddfd / (2 * h)
        scale = np.abs(D).max()
        assert np.allclose(D, Dfd, rtol=1e-6, atol=1e-7 * scale), name
        assert np.allclose(Dd, Ddfd, rtol=1e-6, atol=1e-7 * scale), name
        if n == 6:
            assert not np.any(D[6]) and not np.any(D[:, 6]) and sig[6] == 0.0
        assert bool(np.any(Dd)) == law.viscous


@pytest.mark.parametrize("name", list(CASES))
def test_zero_stress_at_zero_strain_and_rate(name):
    """No stress in the reference state: viscous laws at rest, the plastic law from its virgin
    state, Maxwell laws with relaxed branches after any dt."""
    law, _, dt = CASES[name]
    sig, _, _, hnew = evaluate(law, np.zeros(7), np.zeros(6), dt)
    assert np.allclose(sig, 0.0, atol=1e-12)
    assert np.array_equal(hnew[:law.n_history], law.history0)


def condensed(D):
    """The 6×6 tangent of a 7-D law with p̃ eliminated through σ7 = 0."""
    return D[:6, :6] - np.outer(D[:6, 6], D[6, :6]) / D[6, 6]


@pytest.mark.parametrize("law", [
    sl.neo_hookean_elastic(E, NU), sl.neo_hookean_viscoelastic(E, NU, 0.3),
    sl.mooney_rivlin_elastic(*sl.mooney_rivlin_constants(E, NU)),
    sl.mooney_rivlin_elastic(*sl.mooney_rivlin_constants(E, NU, 0.4)),
    sl.mooney_rivlin_elastic(*sl.mooney_rivlin_constants(E, NU, 0.4), upc=True),
    sl.hookean_linear_elastic_isotropic(E, NU, upc=True),
    sl.bilinear_isotropic_hardening(E, NU, 5.0, 1.0), sl.bilinear_isotropic_hardening(E, NU, 5.0, 1.0, upc=True),
], ids=lambda law: f"{law.name} {law.dim}-D")
def test_small_strain_limit_is_hookean(law):
    """At small strain every law is Hooke's with the same E, ν (μ = E/(2(1+ν)), λ = Eν/((1+ν)(1-2ν));
    Mooney–Rivlin: μ = 2 (C1 + C2), κ); the u/p-c laws after eliminating p̃ by σ7 = 0."""
    H = sl.hookean_matrix(E, NU)
    _, D, Dd, _ = evaluate(law, np.zeros(7))
    D0 = condensed(D) if law.upc else D[:6, :6]
    assert np.allclose(D0, H, rtol=1e-12, atol=1e-12 * E)
    if law.viscous:
        assert np.allclose(Dd[:6], 0.3 * H, rtol=1e-12)
    eps = np.random.default_rng(3).uniform(-1e-7, 1e-7, 6)
    e7 = np.append(eps, 0.0)
    if law.upc:
        e7[6] = -(D[6, :6] @ eps) / D[6, 6]
    sig = evaluate(law, e7)[0]
    assert np.allclose(sig[:6], H @ eps, rtol=1e-5, atol=1e-6 * np.abs(H @ eps).max())


def neo_hookean_energy(mu, lam, eps):
    C = np.eye(3) + 2 * tensor_of(np.r_[eps[:3], eps[3:] / 2])
    J = math.sqrt(np.linalg.det(C))
    return mu / 2 * (np.trace(C) - 3) - mu * math.log(J) + lam / 2 * (J - 1) ** 2


def mooney_rivlin_energy(C1, C2, kappa, eps, upc):
    """Bathe's Mooney–Rivlin energy; for u/p-c the modified potential of eq. 12.27 with
    p̄ = κ (1 - J): W̄ - (p̄ - p̃)²/(2κ)."""
    C = np.eye(3) + 2 * tensor_of(np.r_[eps[:3], eps[3:6] / 2])
    III = np.linalg.det(C)
    I1 = np.trace(C)
    I2 = 0.5 * (I1 ** 2 - np.trace(C @ C))
    J = math.sqrt(III)
    W = C1 * (I1 * III ** (-1 / 3) - 3) + C2 * (I2 * III ** (-2 / 3) - 3) + kappa / 2 * (J - 1) ** 2
    if upc:
        W -= (kappa * (1 - J) - eps[6]) ** 2 / (2 * kappa)
    return W


@pytest.mark.parametrize("upc", [False, True])
def test_hyperelastic_stress_is_the_gradient_of_the_strain_energy(upc):
    """σ_a = ∂W/∂ε_a (Voigt, engineering shears; σ7 = ∂W/∂p̃ for u/p-c) for the strain
    energies of neo_hookean and mooney_rivlin_elastic."""
    rng = np.random.default_rng(11)
    mu, lam, _ = sl.isotropic_constants(5.0, 0.45)
    laws = [(sl.mooney_rivlin_elastic(*MR, upc=upc), lambda e: mooney_rivlin_energy(*MR, e, upc))]
    if not upc:
        laws.append((sl.neo_hookean_elastic(5.0, 0.45), lambda e: neo_hookean_energy(mu, lam, e)))
    for law, W in laws:
        for _ in range(3):
            eps, _ = random_state(law, rng)
            sig = evaluate(law, eps)[0]
            h = 1e-6
            grad = [(W(eps + h * np.eye(7)[a]) - W(eps - h * np.eye(7)[a])) / (2 * h) for a in range(law.dim)]
            assert np.allclose(sig[:law.dim], grad, rtol=1e-7, atol=1e-8 * np.abs(sig).max())


def test_neo_hookean_principal_stretches_and_uniaxial_stretch():
    """S in the principal frame of a rotated stretch, S_i = (1/λ_i) ∂W/∂λ_i = μ (1 - 1/λ_i²) +
    λ J (J - 1)/λ_i²; and a uniaxial stretch λ1 with free lateral stretch (S22 = S33 = 0 solved
    by Newton with the law's tangent): the closed form gives S_2 = 0 at the lateral stretch
    found and S_1 = the law's S11."""
    mu, lam, _ = sl.isotropic_constants(5.0, 0.45)
    law = sl.neo_hookean_elastic(5.0, 0.45)

    def principal(s):
        J = np.prod(s)
        return mu * (1 - 1 / s ** 2) + lam * J * (J - 1) / s ** 2

    rng = np.random.default_rng(5)
    for _ in range(3):
        s, Q = rng.uniform(0.7, 1.4, 3), rotation(rng)
        G = 0.5 * (Q @ np.diag(s ** 2) @ Q.T - np.eye(3))
        S = tensor_of(evaluate(law, voigt_of(G))[0])
        assert np.allclose(S, Q @ np.diag(principal(s)) @ Q.T, rtol=1e-12, atol=1e-12)
    for stretch in (0.6, 1.3, 2.0):
        eps = np.zeros(6)
        eps[0] = 0.5 * (stretch ** 2 - 1)
        for _ in range(30):
            sig, D, _, _ = evaluate(law, eps)
            if np.abs(sig[1:3]).max() < 1e-13:
                break
            eps[1:3] -= np.linalg.solve(D[1:3, 1:3], sig[1:3])
        lateral = math.sqrt(1 + 2 * eps[1])
        closed = principal(np.array([stretch, lateral, lateral]))
        assert abs(closed[1]) < 1e-10
        assert sig[0] == pytest.approx(closed[0], rel=1e-12)
        assert (sig[0] > 0) == (stretch > 1)


def bar_closed_form(e, e_max, Y, Et, sy):
    """1-D bilinear bar with isotropic hardening, loaded monotonically to e_max then unloaded
    to e: elastic, hardening with slope E_t, elastic unloading, reverse yield at -σ_max."""
    ey = sy / Y
    if e_max <= ey:
        return Y * e
    s_max = sy + Et * (e_max - ey)
    e_rev = e_max - 2 * s_max / Y
    return s_max - Y * (e_max - e) if e >= e_rev else -s_max - Et * (e_rev - e)


@pytest.mark.parametrize("upc", [False, True])
def test_bilinear_bar_loading_past_yield_and_unloading(upc):
    """Uniaxial stress (S22 = S33 = 0, and σ7 = 0 for u/p-c, solved by Newton with the law's
    tangent, the state committed after each step): the S11–G11 path follows the 1-D closed
    form with E, E_T, σ_y, past yield, on elastic unloading and in reverse yielding (the J2
    law with E_P = E E_T/(E - E_T) has the uniaxial tangent E_T)."""
    Y, nu, Et, sy = 200.0, 0.3, 20.0, 0.4
    law = sl.bilinear_isotropic_hardening(Y, nu, Et, sy, upc=upc)
    ey = sy / Y
    e_max = 5 * ey
    path = np.r_[np.linspace(0, e_max, 21)[1:], np.linspace(e_max, -3 * ey, 33)[1:]]
    free = [1, 2, 6] if upc else [1, 2]
    hold = law.history0.copy()
    eps = np.zeros(7)
    e_top = 0.0
    for e11 in path:
        eps[0] = e11
        for _ in range(30):
            sig, D, _, hnew = evaluate(law, eps, hold=hold)
            if np.abs(sig[free]).max() < 1e-14:
                break
            eps[free] -= np.linalg.solve(D[np.ix_(free, free)], sig[free])
        else:
            raise AssertionError("lateral Newton did not converge")
        hold = hnew[:law.n_history].copy()
        e_top = max(e_top, e11)
        expected = bar_closed_form(e11, e_top, Y, Et, sy)
        assert sig[0] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert hold[6] > sy + Et * (e_max - ey)          # the reverse yield hardened further


def test_maxwell_relaxation_closed_form():
    """A strain step held constant: implicit Euler gives ε^v_n = ε (1 - (1 + r dt)^-n), r = E1/η,
    so σ_n = C ε (E0 + E1 (1 + r dt)^-n) (C = I); as dt → 0 the exact relaxation
    E0 + E1 exp(-t E1/η), with a first-order error; long after, σ = E0 C ε."""
    E0, E1, eta = 2.0, 3.0, 1.5
    law = sl.linear_viscoelastic_maxwell_1(E0, E1, eta, np.eye(6))
    eps = np.array([0.01, -0.02, 0.005, 0.03, 0.002, -0.01])
    r = E1 / eta
    errors = []
    for dt in (2e-3, 1e-3):
        hold = np.zeros(6)
        n = int(round(1.0 / dt))
        for k in range(1, n + 1):
            sig, _, _, hnew = evaluate(law, eps, dt=dt, hold=hold)
            hold = hnew[:6].copy()
            if k in (1, n):
                assert np.allclose(sig[:6], eps * (E0 + E1 * (1 + r * dt) ** -k), rtol=1e-12)
        errors.append(np.abs(sig[:6] / eps - (E0 + E1 * math.exp(-r))).max())
    assert errors[1] < 2e-3 * E1 and errors[0] / errors[1] == pytest.approx(2.0, rel=0.05)
    sig = evaluate(law, eps, dt=1e6, hold=hold)[0]
    assert np.allclose(sig[:6], E0 * eps, rtol=1e-6)
    law = sl.linear_viscoelastic_maxwell(E0, [(E1, eta), (1.0, 0.2)], CISO)
    _, D, _, _ = evaluate(law, eps, dt=0.0)
    assert np.allclose(D[:6, :6], (E0 + E1 + 1.0) * CISO)      # instantaneous modulus


@pytest.mark.parametrize("name", ["hookean upc", "hookean upc nu=1/2", "mooney rivlin upc",
                                  "bilinear upc elastic regime", "bilinear upc plastic regime"])
def test_upc_laws_at_the_displacement_pressure(name):
    """At p̃ = p̄ a u/p-c law gives the displacement-based stress and σ7 = (p̄ - p̃)/κ = 0
    (eq. 12.34); D[6,6] = -1/κ.  p̄ is the pressure of the 6-D law: -tr S̄/3 = -κ tr G for
    Hooke's and the bilinear law (small strain), the Cauchy pressure -tr(F S̄ Fᵀ)/(3J) =
    κ (1 - J) for Mooney–Rivlin."""
    law, hold, _ = CASES[name]
    p = law.params
    if law.code == sl.HOOKEAN_UPC:
        nu = p[1] / (3 - p[1])                               # from γ = 3ν/(1+ν)
        E = 2 * p[0] * (1 + nu)
        six, inv_kappa = (sl.hookean_linear_elastic_isotropic(E, nu) if nu < 0.5 else None), p[2]
    elif law.code == sl.MOONEY_RIVLIN_UPC:
        six, inv_kappa = sl.mooney_rivlin_elastic(*p[:3]), p[3]
    else:
        six, inv_kappa = sl.bilinear_isotropic_hardening(*p[:4]), p[6]
    rng = np.random.default_rng(2)
    for _ in range(3):
        eps, _ = random_state(law, rng)
        G = tensor_of(np.r_[eps[:3], eps[3:6] / 2])
        if six is None:                                       # ν = 1/2: p̄ = -κ tr G with 1/κ = 0
            sig, D, _, _ = evaluate(law, eps)
            assert sig[6] == pytest.approx(-np.trace(G)) and D[6, 6] == 0.0
            continue
        Sbar, _, _, hbar = evaluate(six, eps[:6], hold=hold)
        if law.code == sl.MOONEY_RIVLIN_UPC:
            U = np.linalg.cholesky(np.eye(3) + 2 * G).T       # F = U has Fᵀ F = C
            J = np.linalg.det(U)
            pbar = -np.trace(U @ tensor_of(Sbar) @ U.T) / (3 * J)
            assert pbar == pytest.approx((1 - J) / inv_kappa, rel=1e-10)
        else:
            pbar = -Sbar[:3].sum() / 3
        eps[6] = pbar
        sig, D, _, hnew = evaluate(law, eps, hold=hold)
        assert np.allclose(sig[:6], Sbar[:6], rtol=1e-10, atol=1e-12 * np.abs(Sbar).max())
        assert abs(sig[6]) < 1e-12
        assert D[6, 6] == pytest.approx(-inv_kappa, rel=1e-14)
        assert np.allclose(hnew, hbar)
        eps[6] = pbar + 0.3                                   # σ7 is linear in p̃
        assert evaluate(law, eps, hold=hold)[0][6] == pytest.approx(-0.3 * inv_kappa, rel=1e-9)


def test_constructors_check_mbdyn_ranges():
    for make in (lambda: sl.hookean_linear_elastic_isotropic(1.0, 0.5),
                 lambda: sl.hookean_linear_elastic_isotropic(-1.0, 0.3),
                 lambda: sl.neo_hookean_viscoelastic(1.0, 0.3, -1.0),
                 lambda: sl.mooney_rivlin_elastic(*sl.mooney_rivlin_constants(1.0, 0.5)),
                 lambda: sl.bilinear_isotropic_hardening(1.0, 0.3, 1.0, 0.1),
                 lambda: sl.bilinear_isotropic_hardening(1.0, 0.3, 0.1, 0.0),
                 lambda: sl.linear_viscoelastic_maxwell(1.0, [(1.0, 1.0)] * (sl.MAXWELL_MAX_BRANCHES + 1), CISO),
                 lambda: sl.linear_viscoelastic_maxwell_1(1.0, 1.0, 0.0, CISO)):
        with pytest.raises(ValueError):
            make()
    law = sl.linear_viscoelastic_maxwell(1.0, [(1.0, 1.0)] * sl.MAXWELL_MAX_BRANCHES, CISO)
    assert law.n_history == sl.N_HISTORY and len(law.params) <= sl.N_PARAMS


# --------------------------------------------------------------------- deck syntax
HEAD = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.; time step: 1e-2; end: initial value;
begin: control data; end: control data;
"""


def read_laws(tmp_path, text, name="laws.mbd"):
    """A reader that has read the deck HEAD + text (the directives only)."""
    path = tmp_path / name
    path.write_text(HEAD + text)
    reader = DeckReader(str(path), echo=lambda *a: None)
    reader.read()
    return reader


def card_args(reader, text):
    """The Args of a one-card text (`x: <args>;`)."""
    return Args(reader, next(scan_cards(Source("<card>", text))))


@needs_decks
@pytest.mark.parametrize("path", CSL_FILES, ids=lambda p: os.path.relpath(p, SOLID_DIR))
def test_every_solid_csl_file_parses(tmp_path, path):
    """Every `constitutive law:` of the test decks gives a solid law of its dimension (6 or
    7; label 1 is both a 6-D and a 7-D law in most files, as MBDyn allows)."""
    reader = read_laws(tmp_path, f'include: "{os.path.abspath(path)}";\n')
    with open(path) as f:
        text = f.read()
    card = r"constitutive law:\s*(\d+)\s*,\s*name\s*,\s*\"[^\"]*\"\s*,\s*(\d)\s*,\s*([a-z ]+),([^;]*);"
    cards = re.findall(card, text)
    assert cards and len(cards) == len(reader.laws)
    for label, dim, name, data in cards:
        law = reader.laws[(int(dim), int(label))]
        assert isinstance(law, sl.SolidLaw) and law.dim == int(dim) and law.upc == (dim == "7")
        assert law.name == name.strip()
        values = dict(zip(*[iter(w.strip() for w in data.split(","))] * 2))
        if "E" in values and "nu" in values:
            mu = float(values["E"]) / (2 * (1 + float(values["nu"])))
            _, D, Dd, _ = evaluate(law, np.zeros(7))
            assert D[3, 3] == pytest.approx(mu, rel=1e-12)
            assert law.viscous == ("beta" in values)
            if "beta" in values:
                assert Dd[3, 3] == pytest.approx(float(values["beta"]) * mu, rel=1e-12)


SOLID_TYPES = re.compile(r"(hexahedron|pentahedron|tetrahedron)\w*")


@needs_decks
@pytest.mark.parametrize("path", ELM_FILES, ids=lambda p: os.path.relpath(p, SOLID_DIR))
def test_solid_element_cards_reference_their_laws(tmp_path, path):
    """The law part of the first card of each solid element type in the .elm files (`reference,
    1, ...`, one per integration point) reads as laws of the element's dimension (7 for the
    u/p-c types), all one SolidLaw object."""
    folder, stem = os.path.split(path)
    csl = os.path.join(folder, stem.replace(".elm", ".csl"))
    if not os.path.exists(csl):
        csl = os.path.join(folder, "mbdyn_test_solid_elastic.csl")
    reader = read_laws(tmp_path, f'include: "{os.path.abspath(csl)}";\n')
    seen = {}
    for card in scan_cards(Source(path)):
        kind = card.key
        if not SOLID_TYPES.fullmatch(kind) or kind in seen:
            continue
        args = Args(reader, card)
        args.i = next(i for i, w in enumerate(card.args) if w.keyword == "reference")
        count = sum(w.keyword in ("reference", "same") for w in card.args[args.i:])
        dim = 7 if "upc" in kind else 6
        laws = reader.read_solid_laws(args, dim, count)
        args.expect_end()
        assert all(law is reader.laws[(dim, 1)] or law is reader.laws.get((dim, 2)) for law in laws)
        seen[kind] = len(laws)
    if "cms" not in stem:
        assert seen


def test_solid_law_list_same_reference_and_generic_laws(tmp_path):
    """`same` repeats the previous law; a `reference` is the same object every time (one row
    of the law table); a 6-D generic law (`proportional, r`: Dv = r D) serves solids too;
    inline laws of every kind read in place."""
    reader = read_laws(tmp_path, """\
constitutive law: 3, name, "generic", 6, linear viscoelastic generic, diag, 1., 2., 3., 4., 5., 6., proportional, .1;
constitutive law: 3, 7, bilinear isotropic hardening, E, 200., nu, .5, ET, 10., sigmayv, .3;
constitutive law: 4, 6, linear viscoelastic maxwell n, E0, 2., 2, E1, 1., eta1, 3., E1, .5, eta1, .1, C, eye;
""")
    laws = reader.read_solid_laws(card_args(reader, "x: reference, 3, same, reference, 3;"), 6, 3)
    assert laws[0] is laws[1] is laws[2]
    assert len(sl.law_table(laws)[6]) == 1
    _, D, Dd, _ = evaluate(laws[0], np.zeros(7))
    assert np.allclose(D[:6, :6], np.diag(np.arange(1.0, 7.0))) and np.allclose(Dd[:6], 0.1 * D[:6, :6])
    upc = reader.read_solid_laws(card_args(reader, "x: reference, 3, same;"), 7, 2)
    assert upc[0].code == sl.BILINEAR_HARDENING_UPC and upc[0].params[6] == 0.0
    maxwell = reader.laws[(6, 4)]
    assert maxwell.n_history == 12 and maxwell.name == "linear viscoelastic maxwell n"
    viscous = reader.read_solid_laws(card_args(reader, """x:
        hookean linear viscoelastic isotropic, E, 10., nu, .3, beta, .01,
        neo hookean viscoelastic, E, 10., nu, .3, beta, .01, linear viscoelastic, 3., .2;"""), 6, 3)
    assert [law.code for law in viscous] == [sl.LINEAR_VISCOELASTIC, sl.NEO_HOOKEAN, sl.LINEAR_VISCOELASTIC]
    inline = reader.read_solid_laws(card_args(reader, """x:
        linear viscoelastic maxwell 1, E0, 1., E1, 2., eta1, 3., C, eye,
        mooney rivlin elastic, E, 10., nu, .45, delta, .2,
        mooney rivlin elastic, C1, 1., C2, .2, kappa, 50.,
        linear elastic generic, eye, neo hookean elastic, E, 10., nu, .3;"""), 6, 5)
    assert [law.code for law in inline] == [sl.MAXWELL, sl.MOONEY_RIVLIN, sl.MOONEY_RIVLIN, sl.LINEAR_ELASTIC,
                                            sl.NEO_HOOKEAN]
    C1, C2, kappa = sl.mooney_rivlin_constants(10.0, 0.45, 0.2)
    assert np.allclose(inline[1].params[:3], [C1, C2, kappa])


def line_col(text, needle):
    i = text.index(needle, len(HEAD))
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


@pytest.mark.parametrize("card, needle, message", [
    ("constitutive law: 1, 7, neo hookean elastic, E, 1., nu, .3;", "neo hookean",
     "'neo hookean elastic' is not a 7-D constitutive law (the u/p-c laws are hookean linear elastic "
     "isotropic, mooney rivlin elastic, bilinear isotropic hardening) (at 'neo hookean elastic')"),
    ("constitutive law: 1, 6, hookean linear elastic isotropic, E, 5., mu, .3;", "mu,",
     "syntax error: 'nu' expected (at 'mu')"),
    ("constitutive law: 1, 6, hookean linear elastic isotropic, E, 5., nu, .5;", "hookean",
     "hookean linear elastic isotropic: nu must be less than 0.5 for a 6-D law; use a 7-D (u/p-c) law "
     "(at 'hookean linear elastic isotropic')"),
    ("constitutive law: 1, 7, linear elastic generic, eye;", "linear",
     "'linear elastic generic' is not a 7-D constitutive law (the u/p-c laws are hookean linear elastic "
     "isotropic, mooney rivlin elastic, bilinear isotropic hardening) (at 'linear elastic generic')"),
    ("constitutive law: 1, 6, mooney rivlin elastic, C1, 1., C2, .1;", ";",
     "syntax error: 'kappa' expected before ';' (at ';')"),
    ("constitutive law: 1, 6, bilinear isotropic hardening, E, 1., nu, .3, ET, 2., sigmayv, 1.;", "bilinear",
     "bilinear isotropic hardening: ET must be between zero and E (at 'bilinear isotropic hardening')"),
    ("constitutive law: 1, 6, linear viscoelastic maxwell n, E0, 1., 9, E1, 1.;", "9,",
     "the number of Maxwell elements must be between 1 and 8 (mbdae's limit) (at '9')"),
    ("constitutive law: 1, 6, hookean linear elastic isotropic, E, 5., nu, .3, prestress, 1., 0., 0., 0., 0., 0.;",
     "prestress", "not supported yet: prestress and prestrain of solid constitutive laws (at 'prestress')"),
    ("constitutive law: 1, 9, mooney rivlin elastic, E, 1., nu, .3;", "9,",
     "not supported yet: 9-D constitutive laws (MBDyn's deformation-gradient laws of solid elements: "
     "mooney rivlin elastic, mfront finite strain) (at '9')"),
    ("constitutive law: 1, 3, linear viscoelastic maxwell 1, E0, 1., E1, 1., eta1, 1., C, eye;", "linear",
     "not supported yet: linear viscoelastic maxwell 1 (constitutive law) outside solid elements "
     "(at 'linear viscoelastic maxwell 1')"),
    ("constitutive law: 1, 6, mfront small strain, x;", "mfront",
     "not supported yet: mfront small strain (constitutive law) (at 'mfront small strain')"),
    ("constitutive law: 1, 6, neo hookean elastic, E, 1., nu, .3;\n"
     "constitutive law: 1, 6, neo hookean elastic, E, 1., nu, .3;", "1, 6, neo hookean elastic, E, 1., nu, .3;\nc",
     "constitutive law 1 is already defined as a 6-D law (at '1')"),
])
def test_bad_law_cards_name_file_line_and_word(tmp_path, card, needle, message):
    text = HEAD + card + "\n"
    path = tmp_path / "bad.mbd"
    path.write_text(text)
    with pytest.raises(DeckError) as info:
        DeckReader(str(path), echo=lambda *a: None).read()
    if needle.endswith("\nc"):                               # the second card's label
        i = text.index(needle) + len(needle) - 1
        line, col = text.count("\n", 0, i) + 1, len("constitutive law: ") + 1
    else:
        line, col = line_col(text, needle)
    assert str(info.value) == f"{path}:{line}:{col}: {message}"
    assert "\n" not in str(info.value)


def test_references_check_dimension_and_use(tmp_path):
    """A 7-D reference to a label that only exists in 6-D, a solid law in 1-D or 3-D, and elastic
    and viscoelastic laws mixed in one element are errors at the word; read_law (MBDyn's
    GetConstLaw6D) gives solid laws as they are, read_solid_law the SolidLaw of a linear law."""
    reader = read_laws(tmp_path, """\
constitutive law: 1, 6, hookean linear elastic isotropic, E, 5., nu, .3;
constitutive law: 2, 6, hookean linear viscoelastic isotropic, E, 5., nu, .3, beta, .1;
constitutive law: 3, 6, linear elastic generic, diag, 1., 2., 3., 4., 5., 6.;
""")
    with pytest.raises(DeckError, match=r"constitutive law 1 is not defined as a 7-D law \(it is 6-D\) \(at '1'\)"):
        reader.read_solid_law(card_args(reader, "x: reference, 1;"), 7)
    assert reader.read_law(card_args(reader, "x: reference, 1;"), 6) is reader.laws[(6, 1)]
    assert reader.read_law(card_args(reader, "x: neo hookean elastic, E, 1., nu, .3;"), 6).code == sl.NEO_HOOKEAN
    generic = reader.read_law(card_args(reader, "x: reference, 3;"), 6)
    assert not isinstance(generic, sl.SolidLaw)
    view = reader.read_solid_law(card_args(reader, "x: reference, 3;"), 6)
    assert view is reader.read_solid_law(card_args(reader, "x: reference, 3;"), 6)
    assert np.allclose(view.params[:36].reshape(6, 6), np.diag(np.arange(1.0, 7.0)))
    with pytest.raises(DeckError, match=r"'neo hookean elastic' is not a 1-D constitutive law \(a law of solid"):
        reader.read_law(card_args(reader, "x: neo hookean elastic, E, 1., nu, .3;"), 1)
    with pytest.raises(DeckError, match=r"must have the same type \(elastic or viscoelastic\) \(at 'reference'\)"):
        reader.read_solid_laws(card_args(reader, "x: reference, 1, reference, 2;"), 6, 2)
    with pytest.raises(DeckError, match=r"not supported yet: linear elastic law with prestress"):
        reader.read_solid_law(card_args(reader, "x: linear elastic generic, eye, prestress, 1, 0, 0, 0, 0, 0;"), 6)
