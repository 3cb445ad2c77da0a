"""Multistage (ESDIRK-type) methods: `bathe`, `msstc3/4/5`, `mssth3/4/5`, `DIRK33/43/54`
(spec/integrators.md §3.4)."""
from math import comb, factorial
import numpy as np

from mbdae.solvers.integrators.base import Method, Coefficients

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

    def coefficients(self, h, h_prev, memory=None):
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
            st = history.trial_state(system, history[0].t + c[s_] * h, y, yp)
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

    @property
    def stage_order(self):
        """Largest q with Σ_j a_ij c_j^(k-1) = c_i^k / k for k ≤ q at every stage (C(q))."""
        a, b, c = self.butcher_tableau()
        q = 0
        for k in range(1, 6):
            if np.max(np.abs(a @ c ** (k - 1) - c ** k / k)) > 1e-10:
                break
            q = k
        return q

    @property
    def constrained_orders(self):
        """On index-3 DAEs a stiffly accurate Runge-Kutta method is limited by its stage
        order q, not its classical order (Hairer, Lubich & Roche 1989; Hairer & Wanner 1996
        §VII.4, where Radau IIA gives O(h^(2s-1)), O(h^s), O(h^(s-1)) in positions, velocities,
        multipliers): velocities O(h^q), multipliers O(h^(q-1)), positions O(h^q).  Every
        method here has an explicit first stage and one diagonal γ, hence q = 2 (Kennedy &
        Carpenter 2016): (2, 2, 1), whatever its order on ODEs.  ρ∞ = 1 (all-trapezoidal
        MSSTC) leaves the multiplier errors undamped."""
        q = min(self.stage_order, self.nonlinear_order)
        return (q, q, q - 1 if self.damps_infinity else None)


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
    from scipy.optimize import brentq      # scipy.optimize only for these methods (start-up time)
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
    from scipy.optimize import fsolve      # scipy.optimize only for these methods (start-up time)
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
