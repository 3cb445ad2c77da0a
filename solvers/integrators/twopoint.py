"""The two-point method `thirdorder` (spec/integrators.md §2.5)."""
from dataclasses import dataclass
import numpy as np

from mbdae.solvers.integrators.base import Method
from mbdae.solvers.coupled import coupled_step

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

    @property
    def constrained_orders(self):
        """Index-3 orders (positions, velocities, multipliers).  Ad hoc form = 2-stage Radau
        IIA: (2s-1, s, s-1) = (3, 2, 1) (Hairer, Lubich & Roche 1989).  Tunable form: the
        interior point is the cubic Hermite interpolant (stage order 3), so (3, 3, 2) for
        ρ∞ < 1; at ρ∞ = 1 (θ = -1/2, |R(∞)| = 1) positions and velocities drop to 2 and the
        multipliers need not converge."""
        if self.ad_hoc:
            return (3, 2, 1)
        return (3, 3, 2) if self.rho < 1.0 else (2, 2, None)

    def jacobian_multipliers(self, h):
        """[[jx11, jx12], [jx21, jx22]]: ∂(y_n, y_θ)/∂(ẏ_n, ẏ_θ) (the chain rule of the two formulas)."""
        c = self.parameters()
        return h * np.array([[c.w0, c.w1], [c.m0 * c.w0 + c.n0, c.m0 * c.w1]])

    @property
    def nonlinear_order(self):
        """3; 4 at ρ∞ = 1, where θ = -1/2 makes it Simpson's rule with the Hermite midpoint:
        the 3-stage Lobatto IIIA collocation method (order 4)."""
        return 4 if (not self.ad_hoc and self.rho == 1.0) else 3

    def coefficients(self, h, h_prev, memory=None):
        raise ValueError("thirdorder is a two-point method: its step is solvers/coupled.coupled_step")

    def step(self, system, newton, history, h):
        """End point and interior point solved together (solvers/coupled.py)."""
        return coupled_step(self, system, newton, history, h)

    def startup(self, k):
        return self
