"""Implicit multistep integrators as data (spec/integrators.md §2).

A method gives, for the step h_n (and the previous step h_{n-1}), the corrector
    y_n = Σ_k a_k y_{n-k} + b_0 ẏ_n + Σ_k b_k ẏ_{n-k}      (dCoef = b_0)
and a predictor for ẏ_n.  Each method owns its step (`Method.step`): the predictor, the
corrector and the one place its dCoef is computed and passed to the Newton solver."""
from dataclasses import dataclass
from math import comb, factorial
import numpy as np
from scipy.optimize import brentq, fsolve

from mbdae.solvers.coupled import coupled_step


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

    @property
    def nonlinear_order(self):
        """Order on nonlinear problems (multistep methods: their order)."""
        return self.order

    def corrector_extra(self, yps, h):
        """Additional known part of the corrector (methods with intermediate vectors), or None."""
        return None

    def accepted(self, hist=None):
        """Called after each accepted regular step with the history (newest first), for
        methods with internal phases or intermediate vectors."""

    def startup(self, k):
        """The method for regular step k after a (re)start: Crank-Nicolson first, as MBDyn."""
        return CrankNicolson() if k == 0 else self

    def step(self, system, newton, history, h):
        """One step of size h from the history (newest point first): predict ẏ_n, form y_n
        by the corrector, extrapolate the multipliers, and solve with dCoef = b_0.
        Returns (state at t_n, Newton iterations, error, converged on the solution test)."""
        K = min(self.history, len(history))
        ys, yps = history.vectors(system, max(K, min(2, len(history))))
        h_prev = history.previous_step(h)
        coef = self.coefficients(h, h_prev)
        alg = system.is_alg
        yp = self.predict(ys, yps, h, h_prev) if K >= self.history else yps[0].copy()
        y = coef.b0 * yp
        for k in range(K):
            y += coef.a[k] * ys[k] + coef.b[k] * yps[k]
        extra = self.corrector_extra(yps, h)          # intermediate vectors (ss2/ss3/ss4)
        if extra is not None:
            y += extra
        y[alg] = history.predict_algebraic(alg, h)
        yp[alg] = 0.0
        st = history.trial_state(history[0].t + h, y, yp)
        it, err, solconv = newton.solve(system, st, coef.b0, mode="regular")
        return st, it, err, solconv


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

    def accepted(self, hist=None):
        self.cn_step = not self.cn_step


# ------------------------------------------------------------------ three- and four-step methods
class MultistepMS3(Method):
    """MBDyn `ms3` (Zhang et al. 2021): 3-step, 2nd order, ρ∞ tunable, fixed step only
    (spec/integrators.md §3.1).  Start-up: Crank-Nicolson, then ms2 with the same ρ∞."""
    history = 3
    variable_step = False

    def __init__(self, rho=0.6):
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"ms3: rho_infinity must lie in [0, 1], got {rho}")
        self.rho = float(rho)
        self.name = "ms3"

    def coefficients(self, h, h_prev):
        _fixed_step(self, h, h_prev)
        r = self.rho
        D = r * r - 5 * r + 10
        B = (1 + r) * D
        a = np.array([3 * (2 * r * r - 9 * r + 5), -3 * (5 * r * r - 9 * r + 2), 10 * r * r - 5 * r + 1]) / D
        b = h * 6 * np.array([1.0, 3 * r, 3 * r * r, r ** 3]) / B
        return Coefficients(a, b[0], b[1:])

    def predict(self, ys, yps, h, h_prev):
        return hermite_derivative(ys[0], ys[1], yps[0], yps[1], h_prev, h / h_prev)

    def startup(self, k):
        return [CrankNicolson(), MultistepMS(self.rho)][k] if k < 2 else self


class MultistepMS4(MultistepMS3):
    """MBDyn `ms4` (Zhang et al. 2021): 4-step, 2nd order, ρ∞ tunable, fixed step only
    (spec/integrators.md §3.2).  Start-up: Crank-Nicolson, ms2, ms3."""
    history = 4

    def __init__(self, rho=0.6):
        super().__init__(rho)
        self.name = "ms4"

    def coefficients(self, h, h_prev):
        _fixed_step(self, h, h_prev)
        r = self.rho
        D = -r ** 3 + 7 * r * r - 21 * r + 35
        B = (1 + r) * D
        a = np.array([4 * (-2 * r ** 3 + 13 * r * r - 35 * r + 14),
                      -4 * (1 - r) * (7 * r * r - 34 * r + 7),
                      -4 * (14 * r ** 3 - 35 * r * r + 13 * r - 2),
                      35 * r ** 3 - 21 * r * r + 7 * r - 1]) / D
        b = h * 20 * np.array([1.0, 4 * r, 6 * r * r, 4 * r ** 3, r ** 4]) / B
        return Coefficients(a, b[0], b[1:])

    def startup(self, k):
        return [CrankNicolson(), MultistepMS(self.rho), MultistepMS3(self.rho)][k] if k < 3 else self


def _fixed_step(method, h, h_prev):
    if not np.isclose(h, h_prev, rtol=1e-12, atol=0.0):
        raise ValueError(f"{method.name} is not implemented for a variable time step "
                         f"(h = {h:g}, previous {h_prev:g})")


# ------------------------------------------------------------------ multistage (ESDIRK-type) methods
class Multistage(Method):
    """Methods with an explicit first stage and equal diagonal γ (spec/integrators.md §3.4):
    stage s solves y_s = y_{n-1} + h (Σ_j A[s, j] ẏ_j + γ ẏ_s) at t_{n-1} + c_s h, where
    column 0 of A multiplies ẏ_{n-1}; every stage is a Newton solve with dCoef = γ h and the
    last stage is y_n.  Single-step: any step size, no start-up."""
    kind = "multistage"
    history = 1

    def tableau(self):
        """(γ, A (S, S) lower triangular over ẏ_{n-1}, ẏ_1 … ẏ_{S-1}, c (S,))."""
        return self.gamma, self.A, self.c

    def coefficients(self, h, h_prev):
        return Coefficients(np.array([1.0]), self.gamma * h, np.array([0.0]))

    def startup(self, k):
        return self                                # single-step: no starter

    def step(self, system, newton, history, h):
        """Stages y_s = y_{n-1} + h(Σ_j A[s,j] ẏ_j + γ ẏ_s) solved in turn with dCoef = γh,
        all about the orientation of t_{n-1} (no commit between stages); ẏ_s predicted
        linearly through the last two derivative points."""
        alg = system.is_alg
        gamma, A, c = self.tableau()
        ys, yps = history.vectors(system, min(2, len(history)))
        y0, stage_yp = ys[0], [yps[0]]
        points = [(0.0, yps[0])]            # (stage time in units of h, ẏ)
        if len(history) > 1:
            points.insert(0, ((history[1].t - history[0].t) / h, yps[1]))
        lam = history.predict_algebraic(alg, c[0] * h)
        total_it, err, solconv = 0, 0.0, False
        for s_ in range(len(c)):
            if len(points) > 1:
                (ta, ya), (tb, yb) = points[-2], points[-1]
                yp = yb + (c[s_] - tb) / (tb - ta) * (yb - ya)
            else:
                yp = points[-1][1].copy()
            y = y0 + gamma * h * yp
            for j in range(s_ + 1):
                y += h * A[s_, j] * stage_yp[j]
            y[alg] = lam
            yp[alg] = 0.0
            st = history.trial_state(history[0].t + c[s_] * h, y, yp)
            it, err, solconv = newton.solve(system, st, gamma * h, mode="regular")
            total_it += it
            stage_yp.append(st.yp.copy())
            points.append((c[s_], stage_yp[-1]))
            lam = st.y[alg].copy()
        return st, total_it, err, solconv

    def butcher_tableau(self):
        """Full Butcher tableau (a, b, c) with the explicit first stage."""
        gamma, A, c = self.tableau()
        S = len(c) + 1
        a = np.zeros((S, S))
        for s in range(S - 1):
            a[s + 1, :s + 1] = A[s, :s + 1]
            a[s + 1, s + 1] = gamma
        return a, a[-1].copy(), np.concatenate([[0.0], c])

    @property
    def nonlinear_order(self):
        """Order on nonlinear problems: the Runge-Kutta order conditions the tableau meets."""
        return runge_kutta_order(*self.butcher_tableau())


def runge_kutta_order(a, b, c, tol=1e-10):
    """Highest p ≤ 5 such that the tableau meets every order condition (Butcher trees) up to p."""
    Ac = a @ c
    trees = {1: [(b.sum(), 1)], 2: [(b @ c, 1 / 2)],
             3: [(b @ c ** 2, 1 / 3), (b @ Ac, 1 / 6)],
             4: [(b @ c ** 3, 1 / 4), (b @ (c * Ac), 1 / 8), (b @ a @ c ** 2, 1 / 12), (b @ a @ Ac, 1 / 24)],
             5: [(b @ c ** 4, 1 / 5), (b @ (c ** 2 * Ac), 1 / 10), (b @ Ac ** 2, 1 / 20),
                 (b @ (c * (a @ c ** 2)), 1 / 15), (b @ (c * (a @ Ac)), 1 / 30), (b @ a @ c ** 3, 1 / 20),
                 (b @ a @ (c * Ac), 1 / 40), (b @ a @ a @ c ** 2, 1 / 60), (b @ a @ a @ Ac, 1 / 120)]}
    p = 0
    for order in range(1, 6):
        if any(abs(got - want) > tol for got, want in trees[order]):
            break
        p = order
    return p


def _poly_abs2_coefficients(p):
    """Coefficients in τ² of |P(iτ)|² for a real polynomial P (coefficients ascending in z)."""
    p = np.asarray(p, float)
    q = np.convolve(p, p * (-1.0) ** np.arange(len(p)))          # P(z) P(-z), only even powers
    even = q[0::2]
    return even * (-1.0) ** np.arange(len(even))                 # z² = -τ²


def msst_weights(n, gamma, a):
    """Weights q_0..q_{n-1} of the last sub-step of an n-sub-step method whose first n-1
    sub-steps are trapezoidal rules of length 2γh, such that its amplification factor is
    (1 + a1 z + … + a_n z^n)/(1 - γz)^n (Zhang et al. 2020, [NLD20])."""
    P = np.polynomial.polynomial
    one_minus = np.array([1.0, -gamma])
    one_plus = np.array([1.0, gamma])
    target = np.concatenate([[1.0], a])[:n + 1] - np.pad(P.polypow(one_minus, n - 1), (0, 1))
    M = np.zeros((n + 1, n))
    for j in range(n):
        term = P.polymul(P.polymul([0.0, 1.0], P.polypow(one_plus, j)), P.polypow(one_minus, n - 1 - j))
        M[:len(term), j] = term
    q, *_ = np.linalg.lstsq(M[1:], target[1:], rcond=None)
    return q


class CompositeMSST(Multistage):
    """n-sub-step composite methods of [NLD20]: n-1 trapezoidal sub-steps of 2γh, then one
    general sub-step; `msstc` (conserving, 2nd order) or `mssth` (order n on linear
    problems).  Bathe is the n = 2 case of both.  The sub-step weights follow from the
    amplification polynomial (msst_weights).  MBDyn's own mssth uses non-trapezoidal
    interior stages; this is the paper's trapezoidal form, which has the paper's stability
    function (order n on linear problems, `order`) but meets the nonlinear Runge-Kutta order
    conditions only up to 3 for n = 4, 5 (`nonlinear_order`)."""

    def __init__(self, n, rho, family):
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"{family}{n}: rho_infinity must lie in [0, 1], got {rho}")
        self.n, self.rho, self.family = n, float(rho), family
        self.name = "bathe" if n == 2 else f"{family}{n}"
        self.order = n if family == "mssth" else 2
        self.gamma, a = (msstc_parameters if family == "msstc" else mssth_parameters)(n, self.rho)
        self.a = a
        q = msst_weights(n, self.gamma, a)
        S = n
        A = np.zeros((S, S))
        for s in range(S - 1):               # trapezoidal sub-steps: y_s = y_{s-1} + γh(ẏ_{s-1} + ẏ_s)
            A[s, 0] = self.gamma
            A[s, 1:s + 1] = 2 * self.gamma
        A[S - 1, :] = q
        self.A = A
        self.c = np.concatenate([2 * self.gamma * np.arange(1, S), [1.0]])


def _binom(n, k):
    return comb(n, k)


def mssth_coefficients(n, gamma):
    """a_s = Σ_{j=0}^{s} (-1)^j C(n, j) γ^j / (s-j)!  (order n) [NLD20]."""
    return np.array([sum((-1) ** j * _binom(n, j) * gamma ** j / factorial(s - j) for j in range(s + 1))
                     for s in range(1, n + 1)])


MSSTH_GAMMA_BOUNDS = {2: (0.25, 0.78868), 3: (1 / 3, 1.06858), 4: (0.39434, 1.28058),
                      5: (0.24651, 0.36180)}


def mssth_parameters(n, rho):
    """γ: the smallest root in the unconditional-stability interval of a_n = ±ρ γ^n
    (i.e. |a_n| = ρ γ^n, so that |R(∞)| = ρ), [NLD20] Table 3."""
    lo, hi = MSSTH_GAMMA_BOUNDS[n]
    grid = np.linspace(lo - 2e-3, hi + 2e-3, 4001)
    roots = []
    for sign in (1.0, -1.0):
        f = lambda g: mssth_coefficients(n, g)[-1] - sign * rho * g ** n
        vals = np.array([f(g) for g in grid])
        for k in np.flatnonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) <= 0):
            roots.append(brentq(f, grid[k], grid[k + 1], xtol=1e-15) if vals[k] != vals[k + 1] else grid[k])
    if not roots:
        raise ValueError(f"mssth{n}: no γ for rho_infinity = {rho}")
    g = min(roots)
    return g, mssth_coefficients(n, g)


def msstc_parameters(n, rho):
    """[NLD20] MSSTC(n): a1 = 1 - nγ, a2 = 1/2 - nγ + n(n-1)γ²/2, a_n = ρ γ^n and the
    flatness conditions c_4 = … = c_{2n-2} = 0 on S(τ) = |D(iτ)|² - |N(iτ)|² fix γ and
    a_3 … a_{n-1}."""
    if n == 2:
        g = 0.25 if rho == 1.0 else (2 - np.sqrt(2 + 2 * rho)) / (2 * (1 - rho))
        return g, np.array([1 - 2 * g, 0.5 - 2 * g + g * g])

    def coeffs(x):
        g = x[0]
        a = np.zeros(n)
        a[0] = 1 - n * g
        a[1] = 0.5 - n * g + n * (n - 1) * g * g / 2
        a[2:n - 1] = x[1:]
        a[n - 1] = rho * g ** n
        return g, a

    def flatness(x):
        g, a = coeffs(x)
        D = np.polynomial.polynomial.polypow([1.0, -g], n)
        N = np.concatenate([[1.0], a])
        c = _poly_abs2_coefficients(D) - _poly_abs2_coefficients(N)
        return c[2:n]                            # c_4, c_6, …, c_{2n-2}

    guess = {3: 0.18, 4: 0.13, 5: 0.10}[n]
    # starting points: the all-trapezoidal method (ρ = 1, numerator (1 + γz)^n) and zeros
    trapezoidal = np.concatenate([[guess], [_binom(n, k) * guess ** k for k in range(3, n)]])
    zeros = np.concatenate([[guess], np.zeros(n - 3)])
    best = None
    for trial in (trapezoidal, zeros, trapezoidal * 0.9, zeros * 1.1):
        x, info, ok, msg = fsolve(flatness, trial, full_output=True, xtol=1e-14)
        solved = ok == 1 or np.max(np.abs(flatness(x))) < 1e-14      # "xtol too small" at the root
        if solved and 0 < x[0] < 1 and (best is None or x[0] < best[0]):
            best = x
    if best is None:
        raise ValueError(f"msstc{n}: no coefficients found for rho_infinity = {rho}")
    return coeffs(best)


class ESDIRK(Multistage):
    """Explicit-first-stage, stiffly accurate SDIRK method from its Butcher tableau (a, c),
    a[0] = 0 (explicit first stage), diagonal γ, last row = weights."""

    def __init__(self, name, a, c, order):
        a = np.asarray(a, float)
        self.name, self.order = name, order
        self.gamma = a[1, 1]
        S = len(c) - 1
        self.A = np.zeros((S, S))
        for s in range(S):
            self.A[s, :s + 1] = a[s + 1, :s + 1]
        self.c = np.asarray(c, float)[1:]
        self.butcher = (a, np.asarray(c, float))


def esdirk43_kennedy_carpenter():
    """MBDyn `DIRK54`: ESDIRK4(3)6L[2]SA_2 of Kennedy & Carpenter (Appl. Numer. Math. 146,
    2019, Table 9): 6 stages, 4th order, L-stable, stiffly accurate, γ = 31/125."""
    g = 31 / 125
    a = np.zeros((6, 6))
    a[1, :2] = [g, g]
    a[2, :3] = [-360286518617 / 7014585480527] * 2 + [g]
    a[3, :4] = [-506388693497 / 5937754990171] * 2 + [7149918333491 / 13390931526268, g]
    a[4, :5] = [-7628305438933 / 11061539393788] * 2 + [21592626537567 / 14352247503901,
                                                        11630056083252 / 17263101053231, g]
    a[5, :6] = [-12917657251 / 5222094901039] * 2 + [5602338284630 / 15643096342197,
                                                     9002339615474 / 18125249312447,
                                                     -2420307481369 / 24731958684496, g]
    c = [0.0, 62 / 125, 486119545908 / 3346201505189, 1043 / 1706, 1361 / 1300, 1.0]
    return ESDIRK("dirk54", a, c, 4)


def esdirk32_kennedy_carpenter():
    """MBDyn `DIRK33`: ESDIRK3(2)4L[2]SA of Kennedy & Carpenter (NASA/TM-2016-219173, Table 16):
    4 stages, 3rd order, stage order 2, L-stable, stiffly accurate, γ = 0.43586652150845899942
    (the root of 6γ³ - 18γ² + 9γ - 1 that makes R(∞) = 0), c = (0, 2γ, 3/5, 1).  Given γ and c,
    stage order 2 on the third stage and the three order conditions Σb = 1, Σbc = 1/2,
    Σbc² = 1/3 on the last row fix every coefficient (Σb(Ac) = 1/6 then follows)."""
    g = 0.43586652150845899941601945
    c2 = 3 / 5
    c = np.array([0.0, 2 * g, c2, 1.0])
    a = np.zeros((4, 4))
    a[1, :2] = [g, g]
    a21 = c2 * (c2 - 2 * g) / (4 * g)                    # Σ_j a_2j c_j = c_2²/2
    a[2, :3] = [c2 - a21 - g, a21, g]
    M = np.array([[1.0, 1.0, 1.0], [0.0, c[1], c2], [0.0, c[1] ** 2, c2 ** 2]])
    b012 = np.linalg.solve(M, [1 - g, 0.5 - g, 1 / 3 - g])
    a[3] = np.concatenate([b012, [g]])
    return ESDIRK("dirk33", a, c, 3)


def esdirk3_5stage_kennedy_carpenter():
    """MBDyn `DIRK43`: the 5-stage, 3rd-order, stage-order-2, L-stable, stiffly accurate ESDIRK
    of Kennedy & Carpenter (NASA/TM-2016-219173, ESDIRK3(2)5L[2]SA; MBDyn's name
    ESDIRK3(3)5L[2]SA), γ = 9/40, c = (0, 9/20, 9(2+√2)/40, 3/5, 1)."""
    g = 9 / 40
    s2 = np.sqrt(2.0)
    a = np.zeros((5, 5))
    a[1, :2] = [g, g]
    a[2, :3] = [9 * (1 + s2) / 80, 9 * (1 + s2) / 80, g]
    a[3, :4] = [(22 + 15 * s2) / (80 * (1 + s2)), (22 + 15 * s2) / (80 * (1 + s2)), -7 / (40 * (1 + s2)), g]
    a[4, :5] = [(2398 + 1205 * s2) / (2835 * (4 + 3 * s2)), (2398 + 1205 * s2) / (2835 * (4 + 3 * s2)),
                -2374 * (1 + 2 * s2) / (2835 * (5 + 3 * s2)), 5827 / 7560, g]
    c = [0.0, 2 * g, 9 * (2 + s2) / 40, 3 / 5, 1.0]
    return ESDIRK("dirk43", a, c, 3)


# ------------------------------------------------------------------ single-step equivalents ss2/ss3/ss4
class SingleStepSS(Method):
    """MBDyn `ss2`, `ss3`, `ss4` (Zhang et al., spec/integrators.md §3.3): single-step forms of
    ms2/ms3/ms4 that carry k-1 intermediate derivative vectors L_1 … L_{k-1} (L_k = ẏ):

        y_n - y_{n-1}                     = h [γ_0 L_1,n + (1 - γ_0) L_1,n-1]
        p_j L_j,n + (1 - p_j) L_j,n-1     = γ_0 L_{j+1},n + (1 - γ_0) L_{j+1},n-1,   j = 1 … k-1

    with γ_0 = 1/(1+ρ∞) (so the derivative side is ∝ (ζ + ρ∞)^k, as ms_k) and p_j = 1/(1 - r_j)
    for the roots r_j ≠ 1 of ms_k's first characteristic polynomial (a complex pair gives a
    complex pair p_j, p̄_j: MBDyn's γ1, γ3 = γ̄1 of ss3).  Eliminating the L_j gives exactly
    ms_k's recursion, so at a fixed step ss_k ≡ ms_k; it starts itself (L_j,0 = ẏ_0, the steady
    state for a constant derivative: no Crank-Nicolson starter) and its coefficients depend
    on h only, as MBDyn's, which lets it run on a variable step (then it is no longer ms_k)."""
    variable_step = True

    def __init__(self, k, rho=0.6):
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"ss{k}: rho_infinity must lie in [0, 1], got {rho}")
        self.k, self.rho, self.name = k, float(rho), f"ss{k}"
        lms = {2: MultistepMS, 3: MultistepMS3, 4: MultistepMS4}[k](self.rho).coefficients(1.0, 1.0)
        char = np.concatenate([[1.0], -lms.a])                          # ζ^k - a_1 ζ^{k-1} - …
        roots, _ = np.polydiv(char, [1.0, -1.0])                         # divide out ζ - 1
        r = np.roots(roots) if len(roots) > 1 else np.array([])
        r = r[np.argsort(np.abs(r.imag))]                                # real roots first, pairs adjacent
        self.p = 1.0 / (1.0 - r.astype(complex))
        self.q = 1.0 / (1.0 + self.rho)
        self.levels = None                                               # L_1 … L_{k-1} at t_{n-1}

    def startup(self, k):
        return self

    def _affine_levels(self, yp_prev):
        """L_j,n = A_j + B_j ẏ_n for the unknown ẏ_n (j = 1 … k-1, from the innermost)."""
        q, m = self.q, len(self.p)
        A, B = [None] * m, [None] * m
        inner_old, inner_A, inner_B = yp_prev, 0.0, 1.0                  # level k is ẏ itself
        for j in range(m - 1, -1, -1):
            p = self.p[j]
            A[j] = (q * inner_A + (1 - q) * inner_old - (1 - p) * self.levels[j]) / p
            B[j] = q * inner_B / p
            inner_old, inner_A, inner_B = self.levels[j], A[j], B[j]
        return A, B

    def coefficients(self, h, h_prev):
        B1 = self.q ** len(self.p) / np.prod(self.p)
        return Coefficients(np.array([1.0]), h * self.q * float(np.real(B1)), np.array([0.0]))

    def corrector_extra(self, yps, h):
        """Part of y_n that depends on the intermediate vectors and ẏ_{n-1}: h[γ_0 A_1 + (1-γ_0) L_1,n-1]."""
        if self.levels is None:
            self.levels = [yps[0].astype(complex) for _ in self.p]
        A, _ = self._affine_levels(yps[0])
        extra = h * (self.q * A[0] + (1 - self.q) * self.levels[0])
        return extra.real if np.isrealobj(yps[0]) else extra        # real: the pair p_j, p̄_j closes

    def accepted(self, hist=None):
        """Advance the intermediate vectors with the converged ẏ_n (hist[0]) and ẏ_{n-1} (hist[1])."""
        if hist is None or self.levels is None or len(hist) < 2:
            return
        A, B = self._affine_levels(hist[1].yp)
        self.levels = [a + b * hist[0].yp for a, b in zip(A, B)]


# ------------------------------------------------------------------ two-point method `thirdorder`
@dataclass
class TwoPointParameters:
    theta: float         # interior point t_n + θh, θ ∈ (-1, 0)
    w0: float            # y_n = y_{n-1} + h (w0 ẏ_n + w1 ẏ_θ + w2 ẏ_{n-1})
    w1: float
    w2: float
    m0: float            # y_θ = m0 y_n + m1 y_{n-1} + h (n0 ẏ_n + n1 ẏ_{n-1})
    m1: float
    n0: float
    n1: float


class ThirdOrder(Method):
    """MBDyn `thirdorder` (Morandini's tunable third-order two-point method, spec/integrators.md
    §2.5): the end point and the interior point t_n + θh are solved together (solvers/coupled.py).
    Tunable form, ρ∞ ∈ (0, 1]: θ = -ρ/(1+ρ), the end point by the 3-point quadrature exact for
    quadratics on (t_{n-1}, t_n + θh, t_n), the interior point by the cubic Hermite interpolant
    through (y_{n-1}, ẏ_{n-1}) and (y_n, ẏ_n).  `ad hoc` form: θ = -2/3 and the end point from
    (ẏ_θ, ẏ_n) only, with y_θ from the quadratic through y_{n-1}, y_n, ẏ_n: the 2-stage Radau IIA
    collocation method (L-stable, ρ∞ = 0).  Single-step: any step size, no start-up."""
    kind = "coupled"
    history = 1
    order = 3
    variable_step = True

    def __init__(self, rho=0.6, ad_hoc=False):
        self.ad_hoc = bool(ad_hoc)
        if self.ad_hoc:
            self.rho, self.name = 0.0, "thirdorder ad hoc"
        else:
            if not 0.0 < rho <= 1.0:
                raise ValueError(f"thirdorder: rho_infinity must lie in (0, 1] (ρ∞ = 0 puts the interior "
                                 f"point on t_n: θ = -ρ/(1+ρ) = 0); got {rho}; use 'thirdorder, ad hoc' "
                                 f"for the L-stable variant")
            self.rho, self.name = float(rho), "thirdorder"

    def parameters(self):
        if self.ad_hoc:
            th = -2.0 / 3.0
            return TwoPointParameters(th, (2 * th + 1) / (2 * th), -1 / (2 * th), 0.0,
                                      1 - th * th, th * th, th * (1 + th), 0.0)
        th = -self.rho / (1 + self.rho)
        return TwoPointParameters(th, (1 + 3 * th) / (6 * th), -1 / (6 * th * (1 + th)),
                                  (2 + 3 * th) / (6 * (1 + th)), 1 - th * th * (3 + 2 * th),
                                  th * th * (3 + 2 * th), th * (1 + th) ** 2, th * th * (1 + th))

    def jacobian_multipliers(self, h):
        """[[jx11, jx12], [jx21, jx22]]: ∂(y_n, y_θ)/∂(ẏ_n, ẏ_θ) (the chain rule of the two formulas)."""
        c = self.parameters()
        return h * np.array([[c.w0, c.w1], [c.m0 * c.w0 + c.n0, c.m0 * c.w1]])

    @property
    def nonlinear_order(self):
        """3; 4 at ρ∞ = 1, where θ = -1/2 makes it Simpson's rule with the Hermite midpoint:
        the 3-stage Lobatto IIIA collocation method (order 4)."""
        return 4 if (not self.ad_hoc and self.rho == 1.0) else 3

    def coefficients(self, h, h_prev):
        raise ValueError("thirdorder is a two-point method: its step is solvers/coupled.coupled_step")

    def step(self, system, newton, history, h):
        """End point and interior point solved together (solvers/coupled.py)."""
        return coupled_step(self, system, newton, history, h)

    def startup(self, k):
        return self


METHOD_NAMES = ("crank nicolson", "implicit euler", "ms", "bdf", "hope", "ms3", "ms4", "ss2", "ss3", "ss4",
                "bathe", "msstc3", "msstc4", "msstc5", "mssth3", "mssth4", "mssth5", "dirk33", "dirk43",
                "dirk54", "thirdorder", "thirdorder ad hoc")
"""Every method make_method knows (MBDyn keywords; aliases aside)."""

FIXED_RHO = {"crank nicolson": 1.0, "implicit euler": 0.0, "bdf": 0.0, "dirk33": 0.0, "dirk43": 0.0,
             "dirk54": 0.0, "thirdorder ad hoc": 0.0}
"""Methods whose ρ∞ is fixed (no ρ∞ argument in MBDyn)."""

POSITIVE_RHO = ("thirdorder",)
"""Methods whose ρ∞ must be > 0 (thirdorder: ρ∞ = 0 is its ad hoc variant's business)."""


def make_method(name="ms", rho=None):
    """Method by MBDyn keyword (METHOD_NAMES): crank nicolson, implicit euler, ms (ms2), bdf,
    hope, ms3, ms4, ss2, ss3, ss4, bathe, msstc3/4/5, mssth3/4/5, dirk33, dirk43, dirk54,
    thirdorder (ρ∞ in (0, 1]), thirdorder ad hoc;
    `rho` is ρ∞ (ignored by the methods of FIXED_RHO)."""
    key = " ".join(name.lower().replace("-", " ").split())
    r = 0.0 if rho is None else rho
    if key in ("ss2", "ss3", "ss4"):
        return SingleStepSS(int(key[2]), r)
    if key == "dirk33":
        return esdirk32_kennedy_carpenter()
    if key == "dirk43":
        return esdirk3_5stage_kennedy_carpenter()
    if key in ("thirdorder ad hoc", "thirdorder, ad hoc", "third order ad hoc", "thirdorder adhoc"):
        return ThirdOrder(ad_hoc=True)
    if key in ("thirdorder", "third order", "tunable third order"):
        if rho is None:
            raise ValueError("thirdorder needs a spectral radius ρ∞ in (0, 1] or the 'ad hoc' variant "
                             "('thirdorder ad hoc'), as MBDyn's `method: thirdorder, {rho | ad hoc}`")
        return ThirdOrder(rho)
    if key == "ms3":
        return MultistepMS3(r)
    if key == "ms4":
        return MultistepMS4(r)
    if key == "dirk54":
        return esdirk43_kennedy_carpenter()
    if key == "bathe":
        return CompositeMSST(2, r, "msstc")
    for fam in ("msstc", "mssth"):
        if key.startswith(fam) and key[len(fam):] in ("3", "4", "5"):
            return CompositeMSST(int(key[len(fam):]), r, fam)
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
    raise ValueError(f"integration method '{name}' is not available ({', '.join(METHOD_NAMES)})")
