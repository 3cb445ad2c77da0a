"""Integrator coefficients (spec/integrators.md §2) and their basic properties."""
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
    m.accepted()
    c2 = m.coefficients(h, h)
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
    got = hermite_derivative(f(t1), f(t2), fd(t1), fd(t2), h_prev, alpha)
    assert np.isclose(got, fd(tn))
