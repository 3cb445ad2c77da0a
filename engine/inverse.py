"""Inverse dynamics, fully actuated collocated case (manual §6.3.1): the motion is prescribed
by driven joints (ψ(x) = α(t), e.g. total joints with imposed rotations at the actuated
hinges) besides the passive joints (φ(x) = 0); at each instant mbdae solves

  1. positions: Newton on [φ; ψ] (the position subproblem, eq. 6.34, with the initial-
     assembly machinery; the constraint Jacobian is square, so the result is the unique
     configuration),
  2. velocities: the linear velocity subproblem (eq. 6.36),
  3. accelerations and reactions together: M ẍ + [φ/x; ψ/x]ᵀ{λ; c} = f (eqs. 6.38 and 6.40).

Step 3 is the derivatives phase (a tiny index-2 implicit Euler step, engine.problem) taken
forward and backward in time and averaged, which cancels its O(dCoef) error; the
multipliers c of the driving constraints are the actuator loads (the reaction couples or
forces the driven joints apply to their second node).  No time integration is involved:
the loads at each instant follow from the prescribed motion alone."""
from dataclasses import dataclass, field
import numpy as np

from .problem import InitialValueProblem
from .system import Context


@dataclass
class InverseDynamicsResults:
    t: np.ndarray
    x: np.ndarray
    R: np.ndarray
    v: np.ndarray
    w: np.ndarray
    a: np.ndarray
    wd: np.ndarray
    joint_labels: np.ndarray
    joint_force: np.ndarray          # force each joint applies to its second node (global)
    joint_moment: np.ndarray         # couple each joint applies to its second node (global)
    node_labels: np.ndarray = None
    stats: dict = field(default_factory=dict)

    def joint(self, label):
        k = int(np.flatnonzero(self.joint_labels == label)[0])
        return self.joint_force[:, k], self.joint_moment[:, k]

    def index(self, label):
        return int(np.flatnonzero(self.node_labels == label)[0])


class InverseDynamicsProblem(InitialValueProblem):
    """Solve the prescribed-motion problem at the instants `times`."""

    def __init__(self, model, times, derivatives_coefficient=1e-3, **kw):
        super().__init__(model, time_step=kw.pop("time_step", 1e-3),
                         derivatives_coefficient=derivatives_coefficient, **kw)
        self.times = np.asarray(times, float)

    def _instant(self, st):
        """Positions, velocities, then accelerations and reactions at st.t."""
        self.initial_assembly(st)
        self.set_momenta(st)
        fwd, bwd = st.copy(), st.copy()
        self.derivatives(fwd)
        self.settings.time_step = -self.settings.time_step
        try:
            self.derivatives(bwd)
        finally:
            self.settings.time_step = -self.settings.time_step
        alg = self.system.is_alg
        st.y[alg] = 0.5 * (fwd.y[alg] + bwd.y[alg])
        st.yp[:] = 0.5 * (fwd.yp + bwd.yp)
        nodes = self.system.nodes
        st.yp[nodes.ix] = fwd.yp[nodes.ix]          # velocities: from step 2, unchanged by step 3
        st.yp[nodes.ig] = fwd.yp[nodes.ig]

    def run(self):
        from mbdae.elements.joints import RigidJoints
        sysm = self.system
        st = sysm.initial_state(self.times[0])
        out = {k: [] for k in ("x", "R", "v", "w", "a", "wd", "F", "M")}
        joints = sysm.family(RigidJoints)
        for t in self.times:
            st.t = float(t)
            self._instant(st)
            kin = sysm.kinematics(st)
            a, wd = self.accelerations(st, kin)
            _, F, M = joints.reactions(Context(st.t, st.y, st.yp, kin, 0.0, "regular"))
            for k, v in zip(out, (kin.x, kin.R, kin.v, kin.w, a, wd, F, M)):
                out[k].append(v.copy())
            sysm.commit_rotations(st)
        arr = {k: np.array(v) for k, v in out.items()}
        return InverseDynamicsResults(self.times, arr["x"], arr["R"], arr["v"], arr["w"], arr["a"], arr["wd"],
                                      joints.labels, arr["F"], arr["M"], sysm.nodes.labels.copy(),
                                      dict(instants=len(self.times),
                                           newton_iterations=self.newton.total_iterations))
