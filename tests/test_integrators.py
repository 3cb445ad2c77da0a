"""Integrator coefficients (spec/integrators.md §2) and their basic properties."""
import math
import numpy as np
import pytest

from mbdae.solvers.integrators import MultistepMS, CrankNicolson, ImplicitEuler, Hope, make_method, hermite_derivative


def test_ms_special_cases():
    h = 0.1
    c = MultistepMS(0.0).coefficients(h, h)          # BDF2
    assert np.allclose(c.a, [4 / 3, -1 / 3]) and np.isclose(c.b0, 2 * h / 3) and np.allclose(c.b, 0)
    c = MultistepMS(0.6).coefficients(h, h)
    assert np.allclose(c.a, [0.666667, 0.333333], atol=1e-6)
    assert np.allclose([c.b0 / h, c.b[0] / h, c.b[1] / h], [0.520833, 0.625, 0.1875], atol=1e-6)
    c = MultistepMS(1.0).coefficients(h, h)          # trapezoidal over 2h
    assert np.allclose(c.a, [0, 1]) and np.isclose(c.b0, h / 2) and np.allclose(c.b, [h, h / 2])


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.6, 1.0])
@pytest.mark.parametrize("alpha", [1.0, 0.5, 2.0])
def test_ms_is_second_order_and_exact_on_quadratics(rho, alpha):
    """Corrector consistency: exact for y = t² on a variable grid."""
    h_prev = 0.1
    h = alpha * h_prev
    c = MultistepMS(rho).coefficients(h, h_prev)
    t = np.array([0.0, h_prev, h_prev + h])           # t_{n-2}, t_{n-1}, t_n
    for p in (0, 1, 2):
        y = t ** p
        yd = p * t ** (p - 1) if p else np.zeros(3)
        lhs = y[2]
        rhs = c.a[0] * y[1] + c.a[1] * y[0] + c.b0 * yd[2] + c.b[0] * yd[1] + c.b[1] * yd[0]
        assert np.isclose(lhs, rhs, atol=1e-12), (p, lhs, rhs)


@pytest.mark.parametrize("rho", [0.0, 0.6, 1.0])
def test_ms_spectral_radius_at_infinity(rho):
    """For y' = λy with λh → -∞ the roots of the characteristic polynomial have modulus ρ∞."""
    h = 1.0
    c = MultistepMS(rho).coefficients(h, h)
    # (1 - b0 z) ζ² - (a1 + b1 z) ζ - (a2 + b2 z) = 0, z = λh → ∞: b0 ζ² + b1 ζ + b2 = 0
    roots = np.roots([c.b0, c.b[0], c.b[1]]) if c.b[1] != 0 or c.b[0] != 0 else np.array([0.0])
    assert np.allclose(np.abs(roots), rho, atol=1e-7)


def test_cn_and_euler():
    assert CrankNicolson().coefficients(0.2, 0.2).b0 == 0.1
    assert ImplicitEuler().coefficients(0.2, 0.2).b0 == 0.2
    assert make_method("crank nicholson").name == "crank nicolson"
    assert make_method("bdf").rho == 0.0
    with pytest.raises(ValueError):
        make_method("no such method")
    with pytest.raises(ValueError):
        MultistepMS(1.5)


def test_hope_alternates_and_is_consistent():
    m = Hope(0.4)
    h = 0.1
    c1 = m.coefficients(h, h)
    assert np.isclose(c1.b0, h / 2)
    phase = m.accepted([], None)                 # Hope's memory after its first step
    c2 = m.coefficients(h, h, phase)
    t = np.array([0.0, h, 2 * h])
    for p in (0, 1, 2):
        y = t ** p
        yd = p * t ** (p - 1) if p else np.zeros(3)
        rhs = c2.a[0] * y[1] + c2.a[1] * y[0] + c2.b0 * yd[2] + c2.b[0] * yd[1] + c2.b[1] * yd[0]
        assert np.isclose(y[2], rhs, atol=1e-12)


def test_hermite_predictor_exact_for_cubics():
    h_prev, alpha = 0.2, 1.5
    t2, t1 = 0.0, h_prev
    tn = t1 + alpha * h_prev
    f = lambda t: 2 * t ** 3 - t ** 2 + 3 * t + 1
    fd = lambda t: 6 * t ** 2 - 2 * t + 3
    vec = lambda v: np.array([v])          # the predictor works on whole vectors of unknowns
    got = hermite_derivative(vec(f(t1)), vec(f(t2)), vec(fd(t1)), vec(fd(t2)), h_prev, alpha)
    assert np.isclose(got[0], fd(tn))


# ------------------------------------------------------------------ ms3, ms4, composite methods
from mbdae.solvers.integrators import (MultistepMS3, MultistepMS4, CompositeMSST, msstc_parameters,
                                       mssth_parameters, msst_weights)


@pytest.mark.parametrize("cls,b0", [(MultistepMS3, [0.6, 0.509511]), (MultistepMS4, [4 / 7, 0.505991])])
def test_ms3_ms4_coefficients_and_spectral_radius(cls, b0):
    for rho, expect in zip((0.0, 0.6), b0):
        c = cls(rho).coefficients(1.0, 1.0)
        assert np.isclose(c.b0, expect, atol=1e-6)
        assert np.isclose(c.a.sum(), 1.0)                      # consistency
        k = np.arange(1, len(c.a) + 1)
        assert np.isclose(c.b0 + c.b.sum(), -(c.a * -k).sum())  # first order condition: Σb = Σ k a_k
        # the b-polynomial is b0 (ζ + ρ)^k: all roots at -ρ (ρ∞ = ρ)
        k = len(c.b)
        binomial = [math.comb(k, j) for j in range(k + 1)]
        assert np.allclose(np.concatenate([[c.b0], c.b]) / c.b0, np.array(binomial) * rho ** np.arange(k + 1))
    assert np.allclose(MultistepMS3(0.0).coefficients(1.0, 1.0).a, [1.5, -0.6, 0.1])
    with pytest.raises(ValueError, match="variable time step"):
        MultistepMS3(0.5).coefficients(0.1, 0.2)


def test_composite_gamma_tables():
    """[NLD20] Tables 4 and 5 and spec/integrators.md §3.4."""
    assert np.isclose(msstc_parameters(2, 0.0)[0], 1 - 1 / np.sqrt(2))
    assert np.isclose(msstc_parameters(2, 0.6)[0], 0.263932, atol=1e-6)
    assert np.isclose(msstc_parameters(3, 0.0)[0], 0.180425306429398, atol=1e-12)
    assert np.isclose(msstc_parameters(3, 0.6)[0], 0.171248618590691, atol=1e-12)
    assert np.isclose(msstc_parameters(4, 0.0)[0], 0.131378736730466, atol=1e-12)
    assert np.isclose(msstc_parameters(4, 0.6)[0], 0.127139265902084, atol=1e-12)
    assert np.isclose(msstc_parameters(5, 0.0)[0], 0.103557108920215, atol=1e-12)
    assert np.isclose(msstc_parameters(5, 0.6)[0], 0.101196115073181, atol=1e-12)
    for n, g in ((3, 1 / 6), (4, 1 / 8), (5, 1 / 10)):
        assert np.isclose(msstc_parameters(n, 1.0)[0], g)
    # the a3 = 0.0045353 quoted beside Table 5 is that of n = 4 (for n = 3, a3 = ρ γ³ = 0)
    assert np.isclose(msstc_parameters(4, 0.0)[1][2], 0.0045353, atol=1e-7)
    assert np.isclose(mssth_parameters(3, 0.0)[0], 0.4358665215084597, atol=1e-12)
    assert np.isclose(mssth_parameters(3, 0.6)[0], 0.3661428101033469, atol=1e-12)
    table4 = {0.0: [0.29289, 0.43587, 0.57282, 0.27805], 0.5: [0.26795, 0.37560, 0.47048, 0.26052],
              1.0: [0.25, 0.33333, 0.39434, 0.24651]}
    for rho, gammas in table4.items():
        for n, g in zip((2, 3, 4, 5), gammas):
            assert np.isclose(mssth_parameters(n, rho)[0], g, atol=6e-6), (n, rho)


def test_bathe_weights_match_the_closed_form():
    for rho in (0.0, 0.6, 1.0):
        m = CompositeMSST(2, rho, "msstc")
        g = m.gamma
        assert np.allclose(m.A[1], [-(4 * g * g - 6 * g + 1) / (4 * g), (1 - 2 * g) / (4 * g)])


def test_msstc3_weights_match_nld20_table2():
    g, a = msstc_parameters(3, 0.6)
    q = msst_weights(3, g, a)
    a1, a2, a3 = a
    expect = [3 * g / 4 + a1 / 4 - a2 / (4 * g) + a3 / (4 * g * g), g + a1 / 2 - a3 / (2 * g * g),
              g / 4 + a1 / 4 + a2 / (4 * g) + a3 / (4 * g * g)]
    assert np.allclose(q, expect)


def amplification(method, z):
    """R(z) of a multistage method on y' = λy, z = λh, from its tableau."""
    gamma, A, c = method.tableau()
    yd = [z]                               # ẏ_{n-1} for y_{n-1} = 1 (times 1/h)
    for s in range(len(c)):
        y = (1 + sum(A[s, j] * yd[j] for j in range(s + 1))) / (1 - gamma * z)
        yd.append(z * y)
    return y


@pytest.mark.parametrize("name", ["bathe", "msstc3", "msstc4", "msstc5", "mssth3", "mssth4", "mssth5"])
@pytest.mark.parametrize("rho", [0.0, 0.6, 1.0])
def test_composite_spectral_radius_stability_and_order(name, rho):
    m = make_method(name, rho)
    # ρ∞ at z → -∞, and |R| ≤ 1 on the imaginary axis up to ωh = 1e4 (A-stability)
    assert np.isclose(abs(amplification(m, -1e9)), rho, atol=1e-6)
    w = np.logspace(-3, 4, 400)
    assert np.all(np.abs([amplification(m, 1j * x) for x in w]) <= 1 + 1e-10)
    # order: R(z) - e^z = O(z^{p+1})
    z = 0.2
    e1 = abs(amplification(m, z) - np.exp(z))
    e2 = abs(amplification(m, z / 2) - np.exp(z / 2))
    assert np.log2(e1 / e2) > m.order + 1 - 0.3, (e1, e2)


def test_dirk54_order_conditions_and_l_stability():
    """ESDIRK4(3)6L[2]SA_2: the 8 order conditions up to order 4, stiff accuracy, L-stability."""
    m = make_method("dirk54")
    a, c = m.butcher
    b = a[-1]
    assert np.allclose(a.sum(axis=1), c)
    conds = [(b.sum(), 1), (b @ c, 1 / 2), (b @ c ** 2, 1 / 3), (b @ a @ c, 1 / 6), (b @ c ** 3, 1 / 4),
             (b @ (c * (a @ c)), 1 / 8), (b @ a @ c ** 2, 1 / 12), (b @ a @ a @ c, 1 / 24)]
    for got, want in conds:
        assert np.isclose(got, want, atol=1e-12)
    assert abs(amplification(m, -1e9)) < 1e-6
    w = np.logspace(-3, 4, 400)
    assert np.all(np.abs([amplification(m, 1j * x) for x in w]) <= 1 + 1e-10)


# ------------------------------------------------------------------ deck keywords
from mbdae.engine.io.mbdyn.deck import parse_deck

DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3; {lines}
end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; end: control data;
begin: nodes; structural: 1, dynamic, null, eye, null, null; end: nodes;
begin: elements; body: 1, 1, 1., null, eye; end: elements;
"""


@pytest.mark.parametrize("line,method,rho", [("method: ss3, 0.6;", "ss3", 0.6), ("method: ss2, 0.;", "ss2", 0.0),
                                             ("method: ss4, .3;", "ss4", 0.3), ("method: DIRK33;", "dirk33", 0.0),
                                             ("method: dirk43;", "dirk43", 0.0), ("method: Bathe, 0.6;", "bathe", 0.6)])
def test_deck_method_keywords(line, method, rho):
    deck = parse_deck(DECK.format(lines=line), echo=lambda *a: None)
    assert deck.settings["method"] == method and deck.settings["rho"] == rho
    r = deck.run()                                      # the free body runs with that method
    assert np.isclose(r.t[-1], 0.01)


def test_deck_algebraic_spectral_radius_is_noted():
    deck = parse_deck(DECK.format(lines="method: ms, 0.6, 0.2;"), echo=lambda *a: None)
    assert deck.settings["rho"] == 0.6
    assert any("algebraic spectral radius 0.2 ignored" in n for n in deck.notes)


def test_deck_strategy_factor():
    deck = parse_deck(DECK.format(lines="strategy: factor, .5, 2, 1.25, 3, 4, 10; max time step: 4e-3;"),
                      echo=lambda *a: None)
    assert deck.settings["strategy"] == ("factor", 0.5, 2, 1.25, 3, 4, 10)
    deck = parse_deck(DECK.format(lines="strategy: factor, .5, 2, 1.25, 3, 4;"), echo=lambda *a: None)
    assert deck.settings["strategy"] == ("factor", 0.5, 2, 1.25, 3, 4)
    deck = parse_deck(DECK.format(lines="method: ms3, 0.6; strategy: factor, .5, 2, 1.25, 3, 4;"),
                      echo=lambda *a: None)
    with pytest.raises(ValueError, match="ms3 cannot change the time step"):
        deck.run()
