"""State: every value that changes during a run (manual ch. 6), and Context: what an
element family sees in one evaluation.

A State holds the time, the unknowns y and their derivatives ẏ, the committed reference
orientations of the structural nodes (G3), the internal arrays of every element family
(`families[name]`: e.g. a beam's curvature at the last converged step) and the
integrator's history.  Families read their internal arrays from the State and write their
updated values into a new dict at commit; the drivers keep, copy and roll back States, so
no family object ever changes during a run."""
from dataclasses import dataclass, field
import numpy as np


def _copy_tree(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {k: _copy_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_tree(v) for v in value)
    return value


class InvalidConfiguration(ArithmeticError):
    """An element met a configuration it cannot evaluate (e.g. a solid element with
    det F <= 0); the message names the element and the time.  Newton treats it as a
    diverged iteration, so a step may be retried with a smaller time step."""


@dataclass
class State:
    """t, y, ẏ, the node reference orientations (and angular velocities, in a re-based step),
    the families' internal arrays and the integrator's history.  `t_constraint`: the time at which the joints evaluate
    their imposed motion, when it is not t (the derivatives phase: loads at t0 as MBDyn,
    constraints at t0 + dCoef)."""
    t: float
    y: np.ndarray
    yp: np.ndarray
    R_ref: np.ndarray
    t_constraint: float = None
    families: dict = field(default_factory=dict)     # family name -> {array name: array}
    history: object = None                           # the integrator's history (solvers/history.py)
    w_ref: np.ndarray = None                         # reference angular velocities (n, 3) of a
                                                     # step re-based on its prediction; None: 0

    def copy(self):
        return State(self.t, self.y.copy(), self.yp.copy(), self.R_ref.copy(), self.t_constraint,
                     _copy_tree(self.families), self.history,
                     None if self.w_ref is None else self.w_ref.copy())

    def trial(self, t, y, yp):
        """A new iterate at time t with the given unknowns, sharing this state's committed
        reference orientations and family arrays (read-only during Newton iterations)."""
        return State(t, y, yp, self.R_ref.copy(), None, self.families, self.history,
                     None if self.w_ref is None else self.w_ref.copy())


# evaluation modes as the compiled kernels see them (Context.mode_code)
REGULAR, IA_POSITION, IA_VELOCITY, DERIVATIVES = 0, 1, 2, 3
MODE_CODE = {"regular": REGULAR, "ia_position": IA_POSITION, "ia_velocity": IA_VELOCITY,
             "derivatives": DERIVATIVES}


class Context:
    """What an element family sees during one evaluation.  dCoef is the one of the
    kinematics (`kin.dcoef`, stored once): the integrator computes it and the System builds
    the kinematics with it."""

    def __init__(self, t, y, yp, kin, mode="regular", t_constraint=None, families=None):
        self.t, self.y, self.yp, self.kin, self.mode = t, y, yp, kin, mode
        # time of the joints' imposed motion (drive hinge, total joint, ...): t except in
        # the derivatives phase (State.t_constraint)
        self.t_constraint = t if t_constraint is None else t_constraint
        self.families = {} if families is None else families

    @property
    def dcoef(self):
        return self.kin.dcoef

    @property
    def mode_code(self):
        """The mode as an integer for the compiled kernels (REGULAR, IA_POSITION, ...)."""
        return MODE_CODE.get(self.mode, REGULAR)


@dataclass
class StepEvent:
    """What a driver publishes to its observers after each step (step 0: the initial
    configuration).  `written`: whether this step is an output step; `outputs`: the
    element families whose output files this step writes, each set with the Context to
    evaluate them in ([(families, context)])."""
    step: int
    t: float
    h: float
    iterations: int
    error: float
    solution_converged: bool
    written: bool
    state: State
    kinematics: object
    outputs: list = field(default_factory=list)
