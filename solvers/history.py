"""The integrator's history: the last committed points (newest first) and the predictors
that read them (spec/integrators.md §1).

A point holds t, y, ẏ, the committed node orientations R and angular velocities ω, and the
families' internal arrays of that point, so a step started from it needs nothing else.
Rotation slots are re-expressed about the newest orientation by the system
(`System.history_vectors`, G3): the history depends only on the system protocol."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core.state import State

ALGEBRAIC_PREDICTOR_ORDER = {"constant": 1, "linear": 2, "quadratic": 3}


@dataclass
class HistoryPoint:
    t: float
    y: np.ndarray
    yp: np.ndarray
    R: np.ndarray
    w: np.ndarray
    families: dict = field(default_factory=dict)


class History:
    """Committed points, newest first, at most `size` of them, and the methods' memories
    (`memory`: method name → what its `accepted` returned: Hope's phase, the intermediate
    vectors of ss2–ss4); `algebraic_predictor` is the extrapolation of the multipliers
    ("constant", "linear" or "quadratic").  A History is never changed once made: an
    accepted step makes a new one (`after`), which the step's State keeps
    (State.history), so a kept State restarts the integrator exactly."""

    def __init__(self, size, algebraic_predictor="linear", points=(), memory=None):
        self.size = int(size)
        self.algebraic_predictor = algebraic_predictor
        self.points = list(points)[:self.size]
        self.memory = dict(memory or {})
        self.algebraic_order = ALGEBRAIC_PREDICTOR_ORDER[algebraic_predictor]

    def __len__(self):
        return len(self.points)

    def __getitem__(self, k):
        return self.points[k]

    def after(self, system, state, method=None):
        """The history once the committed `state` (g = 0, so R = R_ref and ω = ġ) is
        accepted: its point first, and `method`'s memory advanced by its `accepted`."""
        w = system.nodes.omega_of(state.yp)
        point = HistoryPoint(state.t, state.y.copy(), state.yp.copy(), state.R_ref.copy(), w, state.families)
        new = History(self.size, self.algebraic_predictor, [point] + self.points, self.memory)
        if method is not None:
            new.memory[method.name] = method.accepted(new, self.memory.get(method.name))
        return new

    def vectors(self, system, K):
        """(ys, ẏs) of the newest K points, rotations about the newest orientation."""
        return system.history_vectors(self.points[:K])

    def previous_step(self, h):
        """h_{n-1}, or h when there is a single point."""
        return self.points[0].t - self.points[1].t if len(self.points) > 1 else h

    def trial_state(self, system, t, y, yp):
        """The predicted State at t, about the newest point's orientation, with its families'
        arrays as the step starts from them (System.begin_step: activation hints)."""
        newest = self.points[0]
        return system.begin_step(State(t, y, yp, newest.R.copy(), families=newest.families))

    def algebraic_weights(self, h):
        """Weights w_k of the Lagrange extrapolation of the algebraic unknowns to
        t_{n-1} + h through the newest 1, 2 or 3 points: λ_n = Σ_k w_k λ_{n-k}."""
        pts = self.points[:min(self.algebraic_order, len(self.points))]
        t = self.points[0].t + h
        weights = np.ones(len(pts))
        for i, P in enumerate(pts):
            for j, Q in enumerate(pts):
                if j != i:
                    weights[i] *= (t - Q.t) / (P.t - Q.t)
        return weights

    def predict_algebraic(self, alg, h):
        """The algebraic unknowns extrapolated to t_{n-1} + h (algebraic_weights)."""
        lam = np.zeros(int(alg.sum()))
        for w, P in zip(self.algebraic_weights(h), self.points):
            lam += w * P.y[alg]
        return lam
