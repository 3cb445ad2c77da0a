"""MBDyn's scalar functions (input manual, "Scalar functions"): named functions f(x) of one real
argument with their first derivative, defined by the `scalar function: "<name>", <type>, ...`
card and used by wind profiles (`gust, scalar function, "<name>"`) and by the `scalar function`
drive caller (f of the time).

    const c                      f = c
    exp [base b] [coefficient c] m     f = m b^(c x)
    log [base b] [coefficient c] m     f = m log_b(c x)   (x c > 0)
    pow p                        f = x^p
    linear x1, y1, x2, y2        the line through the two points
    multilinear (x, y)...        piecewise linear; beyond the ends the slope of the end pair
                                 (`do not extrapolate`: the end value)
    cubicspline (x, y)...        natural cubic spline (zero second derivative at the ends);
                                 beyond the ends the end cubic (`do not extrapolate`: the end value)
    chebychev a, b, c0, c1, ...  Σ c_k T_k(ξ), ξ = (2x − (b + a))/(b − a)
                                 (`do not extrapolate`: x clamped to [a, b])
    sum/sub/mul/div f1, f2       f1 ± f2, f1 f2, f1 / f2
"""
from abc import ABC, abstractmethod
import math

import numpy as np
from scipy.interpolate import CubicSpline

from mbdae.engine.core.drives import Drive


class ScalarFunction(ABC):
    """f(x) and f'(x) (`value`, `derivative`), scalar x."""
    name = ""

    @abstractmethod
    def value(self, x):
        """f(x)."""

    @abstractmethod
    def derivative(self, x):
        """f'(x)."""


class ConstFunction(ScalarFunction):
    def __init__(self, c):
        self.c = float(c)

    def value(self, x):
        return self.c

    def derivative(self, x):
        return 0.0


class ExpFunction(ScalarFunction):
    def __init__(self, multiplier, base=math.e, coefficient=1.0):
        if not base > 0:
            raise ValueError(f"exp scalar function: the base must be positive, got {base}")
        self.m, self.lb, self.c = float(multiplier), math.log(base), float(coefficient)

    def value(self, x):
        return self.m * math.exp(self.lb * self.c * x)

    def derivative(self, x):
        return self.lb * self.c * self.value(x)


class LogFunction(ScalarFunction):
    def __init__(self, multiplier, base=math.e, coefficient=1.0):
        if not base > 0 or base == 1.0:
            raise ValueError(f"log scalar function: the base must be positive and not 1, got {base}")
        self.m, self.lb, self.c = float(multiplier), math.log(base), float(coefficient)

    def value(self, x):
        if not self.c * x > 0:
            raise ValueError(f"log scalar function: argument {self.c * x} is not positive")
        return self.m * math.log(self.c * x) / self.lb

    def derivative(self, x):
        return self.m / (self.lb * x)


class PowFunction(ScalarFunction):
    def __init__(self, exponent):
        self.p = float(exponent)

    def value(self, x):
        return x ** self.p

    def derivative(self, x):
        return self.p * x ** (self.p - 1.0) if self.p != 0 else 0.0


class MultilinearFunction(ScalarFunction):
    """Piecewise linear through the points (also MBDyn's `linear`, two points)."""

    def __init__(self, x, y, extrapolate=True):
        self.x, self.y = np.asarray(x, float), np.asarray(y, float)
        if len(self.x) < 2 or np.any(np.diff(self.x) <= 0):
            raise ValueError("multilinear scalar function: at least two points with increasing x")
        self.extrapolate = extrapolate

    def _segment(self, x):
        return int(np.clip(np.searchsorted(self.x, x) - 1, 0, len(self.x) - 2))

    def value(self, x):
        if not self.extrapolate and (x <= self.x[0] or x >= self.x[-1]):
            return float(self.y[0] if x <= self.x[0] else self.y[-1])
        k = self._segment(x)
        return float(self.y[k] + (self.y[k + 1] - self.y[k]) / (self.x[k + 1] - self.x[k]) * (x - self.x[k]))

    def derivative(self, x):
        if not self.extrapolate and (x < self.x[0] or x > self.x[-1]):
            return 0.0
        k = self._segment(x)
        return float((self.y[k + 1] - self.y[k]) / (self.x[k + 1] - self.x[k]))


class CubicSplineFunction(ScalarFunction):
    def __init__(self, x, y, extrapolate=True):
        x, y = np.asarray(x, float), np.asarray(y, float)
        if len(x) < 3 or np.any(np.diff(x) <= 0):
            raise ValueError("cubic spline scalar function: at least three points with increasing x")
        self.spline = CubicSpline(x, y, bc_type="natural", extrapolate=True)
        self.lo, self.hi, self.extrapolate = x[0], x[-1], extrapolate

    def value(self, x):
        if not self.extrapolate:
            x = min(max(x, self.lo), self.hi)
        return float(self.spline(x))

    def derivative(self, x):
        if not self.extrapolate and (x < self.lo or x > self.hi):
            return 0.0
        return float(self.spline(x, 1))


class ChebychevFunction(ScalarFunction):
    def __init__(self, lower, upper, coefficients, extrapolate=True):
        if not upper > lower:
            raise ValueError("chebychev scalar function: the upper bound must exceed the lower one")
        self.a, self.b = float(lower), float(upper)
        self.series = np.polynomial.chebyshev.Chebyshev(np.asarray(coefficients, float))
        self.extrapolate = extrapolate

    def _xi(self, x):
        if not self.extrapolate:
            x = min(max(x, self.a), self.b)
        return (2.0 * x - (self.b + self.a)) / (self.b - self.a)

    def value(self, x):
        return float(self.series(self._xi(x)))

    def derivative(self, x):
        if not self.extrapolate and (x < self.a or x > self.b):
            return 0.0
        return float(self.series.deriv()(self._xi(x))) * 2.0 / (self.b - self.a)


class BinaryFunction(ScalarFunction):
    """f1 op f2 for op in sum, sub, mul, div."""

    def __init__(self, op, f1, f2):
        if op not in ("sum", "sub", "mul", "div"):
            raise ValueError(f"unknown scalar function operation '{op}'")
        self.op, self.f1, self.f2 = op, f1, f2

    def value(self, x):
        a, b = self.f1.value(x), self.f2.value(x)
        return {"sum": a + b, "sub": a - b, "mul": a * b, "div": a / b if self.op == "div" else 0.0}[self.op]

    def derivative(self, x):
        a, b = self.f1.value(x), self.f2.value(x)
        da, db = self.f1.derivative(x), self.f2.derivative(x)
        if self.op == "sum":
            return da + db
        if self.op == "sub":
            return da - db
        if self.op == "mul":
            return da * b + a * db
        return (da * b - a * db) / (b * b)


class ScalarFunctionDrive(Drive):
    """MBDyn's `scalar function, "<name>"` drive caller: f(t), f'(t) (its second derivative:
    by a central difference of f')."""

    def __init__(self, function):
        self.function = function
        self.parameters = {}

    def __repr__(self):
        return f"ScalarFunctionDrive({self.function.name!r})"

    def _evaluate_single(self, t, order):
        t_array = np.asarray(t, float)
        if t_array.ndim:
            return np.array([self._evaluate_single(float(s), order) for s in t_array.ravel()]).reshape(t_array.shape)
        t = float(t)
        if order == 0:
            return self.function.value(t)
        if order == 1:
            return self.function.derivative(t)
        h = 1e-6 * max(1.0, abs(t))
        return (self.function.derivative(t + h) - self.function.derivative(t - h)) / (2 * h)
