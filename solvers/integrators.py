"""Implicit multistep integrators as data (spec/integrators.md §2).

A method gives, for the step h_n (and the previous step h_{n-1}), the corrector
    y_n = Σ_k a_k y_{n-k} + b_0 ẏ_n + Σ_k b_k ẏ_{n-k}      (dCoef = b_0)
and a predictor for ẏ_n.  One generic loop (engine.problem) runs them all."""
from dataclasses import dataclass
import numpy as np


@dataclass
class Coefficients:
    a: np.ndarray        # a_1..a_K on y_{n-1}..y_{n-K}
    b0: float
    b: np.ndarray        # b_1..b_K on ẏ_{n-1}..ẏ_{n-K}


def hermite_derivative(y1, y2, yp1, yp2, h_prev, alpha):
    """ẏ at t_{n-1} + α h_{n-1} of the cubic Hermite through (t_{n-2}, y2, ẏ2), (t_{n-1}, y1, ẏ1)."""
    s = 1.0 + alpha
    return ((6 * s * s - 6 * s) * (y2 - y1) / h_prev + (3 * s * s - 4 * s + 1) * yp2
            + (3 * s * s - 2 * s) * yp1)


class Method:
    name = "method"
    history = 1          # past points the corrector needs
    order = 2
    variable_step = True

    def coefficients(self, h, h_prev):
        raise ValueError(f"{self.name}: no coefficients")

    def predict(self, ys, yps, h, h_prev):
        """Predicted ẏ_n from the history lists (newest first)."""
        return yps[0].copy()

    def accepted(self):
        """Called after each accepted regular step (for methods with internal phases)."""


class CrankNicolson(Method):
    """Trapezoidal rule, ρ∞ = 1: y_n = y_{n-1} + h/2 (ẏ_n + ẏ_{n-1})."""
    name = "crank nicolson"

    def coefficients(self, h, h_prev):
        return Coefficients(np.array([1.0]), 0.5 * h, np.array([0.5 * h]))


class ImplicitEuler(Method):
    """Backward Euler, first order, ρ∞ = 0."""
    name = "implicit euler"
    order = 1

    def coefficients(self, h, h_prev):
        return Coefficients(np.array([1.0]), h, np.array([0.0]))


class MultistepMS(Method):
    """MBDyn `ms` (Masarati-Lanz-Mantegazza two-step method) with spectral radius ρ∞ at
    infinity and variable step ratio α = h_n/h_{n-1} (spec/integrators.md §2.3).
    ρ∞ = 0 is BDF2 (`bdf`); ρ∞ = 1 the two-step trapezoidal rule."""
    history = 2

    def __init__(self, rho=0.6, name="ms"):
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"{name}: rho_infinity must lie in [0, 1], got {rho}")
        self.rho = float(rho)
        self.name = name

    def coefficients(self, h, h_prev):
        r = self.rho
        alpha = h / h_prev
        den = 2 * (1 + alpha) - (1 - r) ** 2
        beta = alpha * ((1 - r) ** 2 * (2 + alpha) + 2 * (2 * r - 1) * (1 + alpha)) / den
        delta = 0.5 * alpha ** 2 * (1 - r) ** 2 / den
        a = np.array([1 - beta, beta])
        b0 = h_prev * (delta / alpha + alpha / 2)
        b = np.array([h_prev * (beta / 2 + alpha / 2 - delta / alpha * (1 + alpha)),
                      h_prev * (beta / 2 + delta)])
        return Coefficients(a, b0, b)

    def predict(self, ys, yps, h, h_prev):
        return hermite_derivative(ys[0], ys[1], yps[0], yps[1], h_prev, h / h_prev)


class Hope(MultistepMS):
    """MBDyn `hope`: Crank-Nicolson and a ρ∞-dependent two-step formula on alternate steps."""

    def __init__(self, rho=0.6):
        super().__init__(rho, "hope")
        self.cn_step = True

    def coefficients(self, h, h_prev):
        if self.cn_step:
            return Coefficients(np.array([1.0, 0.0]), 0.5 * h, np.array([0.5 * h, 0.0]))
        A = 4 * self.rho / (3 + self.rho)
        alpha = h / h_prev
        a = np.array([(4 - A) / 3, (A - 1) / 3])
        return Coefficients(a, h_prev * alpha * (4 - A) / 6, np.array([h_prev * alpha * A / 2, 0.0]))

    def accepted(self):
        self.cn_step = not self.cn_step


def make_method(name="ms", rho=None):
    """Method by MBDyn keyword: crank nicolson, implicit euler, ms, bdf, hope."""
    key = " ".join(name.lower().replace("-", " ").split())
    if key in ("crank nicolson", "crank nicholson", "cn", "trapezoidal"):
        return CrankNicolson()
    if key in ("implicit euler", "euler", "bdf1"):
        return ImplicitEuler()
    if key in ("ms", "ms2", "nostro"):
        return MultistepMS(0.0 if rho is None else rho, "ms")
    if key == "bdf":
        return MultistepMS(0.0, "bdf")
    if key == "hope":
        return Hope(0.0 if rho is None else rho)
    raise ValueError(f"integration method '{name}' is not available "
                     "(crank nicolson, implicit euler, ms, bdf, hope)")
