"""State (every value that changes during a run) and Context (what a family sees in one
evaluation)."""
from dataclasses import dataclass
import numpy as np


@dataclass
class State:
    """Mutable state: time, y, ẏ and the committed node reference orientations.
    `t_constraint`: the time at which the joints evaluate their imposed motion, when it is
    not t (the derivatives phase: loads at t0 as MBDyn, constraints at t0 + dCoef)."""
    t: float
    y: np.ndarray
    yp: np.ndarray
    R_ref: np.ndarray
    t_constraint: float = None

    def copy(self):
        return State(self.t, self.y.copy(), self.yp.copy(), self.R_ref.copy(), self.t_constraint)


class Context:
    """What an element family sees during one evaluation."""

    def __init__(self, t, y, yp, kin, dcoef, mode, t_constraint=None):
        self.t, self.y, self.yp, self.kin, self.dcoef, self.mode = t, y, yp, kin, dcoef, mode
        # time of the joints' imposed motion (drive hinge, total joint, ...): t except in
        # the derivatives phase (State.t_constraint)
        self.t_constraint = t if t_constraint is None else t_constraint
