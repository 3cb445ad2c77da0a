"""Multistep methods: MBDyn's `ms`/`bdf`, `hope`, `ms3`, `ms4` and their single-step forms
`ss2`–`ss4` (spec/integrators.md §2–3)."""
import numpy as np

from mbdae.solvers.integrators.base import Method, Coefficients, CrankNicolson
from mbdae.solvers.kernels import hermite_derivative

def ms_coefficients(r, h, h_prev):
    """`ms` coefficients for ρ∞ = r, step h after h_prev."""
    alpha = h / h_prev
    den = 2 * (1 + alpha) - (1 - r) ** 2
    beta = alpha * ((1 - r) ** 2 * (2 + alpha) + 2 * (2 * r - 1) * (1 + alpha)) / den
    delta = 0.5 * alpha ** 2 * (1 - r) ** 2 / den
    a = np.array([1 - beta, beta])
    b0 = h_prev * (delta / alpha + alpha / 2)
    b = np.array([h_prev * (beta / 2 + alpha / 2 - delta / alpha * (1 + alpha)),
                  h_prev * (beta / 2 + delta)])
    return Coefficients(a, b0, b)


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

    def coefficients(self, h, h_prev, memory=None):
        return ms_coefficients(self.rho, h, h_prev)

    def predict(self, ys, yps, h, h_prev):
        return hermite_derivative(ys[0], ys[1], yps[0], yps[1], h_prev, h / h_prev)


class Hope(MultistepMS):
    """MBDyn `hope`: Crank-Nicolson and a ρ∞-dependent two-step formula on alternate steps."""

    def __init__(self, rho=0.6):
        super().__init__(rho, "hope")

    def coefficients(self, h, h_prev, memory=None):
        """memory: whether this step is a Crank-Nicolson one (None: the first, yes)."""
        if memory is None or memory:
            return Coefficients(np.array([1.0, 0.0]), 0.5 * h, np.array([0.5 * h, 0.0]))
        A = 4 * self.rho / (3 + self.rho)
        alpha = h / h_prev
        a = np.array([(4 - A) / 3, (A - 1) / 3])
        return Coefficients(a, h_prev * alpha * (4 - A) / 6, np.array([h_prev * alpha * A / 2, 0.0]))

    def accepted(self, hist, memory=None):
        return not (memory is None or memory)

    @property
    def constrained_orders(self):
        """Positions and velocities 2; multipliers 1: every other step is Crank-Nicolson
        (ρ = 1), whose step leaves the multiplier error undamped, and the alternation does not
        cancel the O(h) part of its local multiplier error (measured: tests/test_constrained_orders.py,
        the same in an independent textbook discretization)."""
        return (2, 2, 1 if self.rho < 1.0 else None)


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

    def coefficients(self, h, h_prev, memory=None):
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

    def coefficients(self, h, h_prev, memory=None):
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

    def startup(self, k):
        return self

    def _affine_levels(self, levels, yp_prev):
        """L_j,n = A_j + B_j ẏ_n for the unknown ẏ_n (j = 1 … k-1, from the innermost)."""
        q, m = self.q, len(self.p)
        A, B = [None] * m, [None] * m
        inner_old, inner_A, inner_B = yp_prev, 0.0, 1.0                  # level k is ẏ itself
        for j in range(m - 1, -1, -1):
            p = self.p[j]
            A[j] = (q * inner_A + (1 - q) * inner_old - (1 - p) * levels[j]) / p
            B[j] = q * inner_B / p
            inner_old, inner_A, inner_B = levels[j], A[j], B[j]
        return A, B

    def coefficients(self, h, h_prev, memory=None):
        B1 = self.q ** len(self.p) / np.prod(self.p)
        return Coefficients(np.array([1.0]), h * self.q * float(np.real(B1)), np.array([0.0]))

    def corrector_extra(self, yps, h, memory=None):
        """Part of y_n that depends on the intermediate vectors and ẏ_{n-1}: h[γ_0 A_1 + (1-γ_0) L_1,n-1].
        memory: the vectors L_1 … L_{k-1} at t_{n-1} (None: the steady start L_j = ẏ_0)."""
        levels = self._levels(memory, yps[0])
        A, _ = self._affine_levels(levels, yps[0])
        extra = h * (self.q * A[0] + (1 - self.q) * levels[0])
        return extra.real if np.isrealobj(yps[0]) else extra        # real: the pair p_j, p̄_j closes

    def _levels(self, memory, yp0):
        return [yp0.astype(complex) for _ in self.p] if memory is None else memory

    def accepted(self, hist, memory=None):
        """The intermediate vectors advanced with the converged ẏ_n (hist[0]) and ẏ_{n-1} (hist[1])."""
        if len(hist) < 2:
            return memory
        levels = self._levels(memory, hist[1].yp)
        A, B = self._affine_levels(levels, hist[1].yp)
        return [a + b * hist[0].yp for a, b in zip(A, B)]
