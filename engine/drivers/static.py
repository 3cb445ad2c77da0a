"""Static analysis (MBDyn `model: static`): equilibrium under load with inertia dropped.

The model is copied with every dynamic node made static and the rigid bodies removed; with
gravity, each body's weight m g becomes an absolute force at its centre of mass.  The load
path is followed in `steps` load steps of a pseudo-time t from `initial_time` to `final_time`:
loads given by drives of t follow their drives, and with `ramp=True` every force, couple and
weight is also multiplied by the load parameter λ = (t - t0)/(t1 - t0).  Each step is one
Newton solve of the static equations from the previous equilibrium (node velocities are the
backward differences over the step, as in an implicit Euler step, so viscous laws see a
quasi-static rate and purely elastic models see none), with the rotations committed after
every step (G3).  Joints are assembled first (manual §6.1).
"""
import copy
import numpy as np

from mbdae.engine.core.drives import Drive, LinearDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.stop import between_steps, publish_step, step_loop
from mbdae.engine.core.state import StepEvent
from mbdae.engine.distributed import replicated_note
from mbdae.engine.drivers.ivp import InitialValueProblem, Results, SimulationFailed
from mbdae.solvers.linear import solver_statistics
from mbdae.solvers.newton import NoConvergence
from mbdae.solvers.convergence import SimulationDiverged


class ScaledDrive(Drive):
    """d(t) · λ(t) (product of two drives)."""

    def __init__(self, drive, factor):
        self.drive, self.factor = drive, factor
        self.parameters = {}

    def _evaluate_single(self, t, order):
        a, b = self.drive, self.factor
        if order == 0:
            return a.value(t) * b.value(t)
        if order == 1:
            return a.derivative(t) * b.value(t) + a.value(t) * b.derivative(t)
        return (a.second_derivative(t) * b.value(t) + 2 * a.derivative(t) * b.derivative(t)
                + a.value(t) * b.second_derivative(t))


def static_model(model, ramp=None):
    """A copy of `model` for static analysis (`static_model` set): static nodes (dynamic
    displacement nodes become static displacement ones, as MBDyn's `model: static` does), no
    inertia, weights as forces, loads (forces, couples, weights) multiplied by the scalar drive
    `ramp` when given."""
    if getattr(model, "rigid_body_kinematics", None) is not None:
        raise ValueError("static analysis of a model with rigid body kinematics is not supported (the frame's "
                         "inertial loads belong to the inertia a static model drops)")
    m = copy.copy(model)
    m.static_model = True
    m.nodes = [copy.copy(s) for s in model.nodes]
    for s in m.nodes:
        s.kind = "static displacement" if s.kind.endswith("displacement") else "static"
    m.forces = list(model.forces)
    m.bodies = []
    m.shell_mass_elements = []
    if model.gravity_vector is not None:
        g = np.asarray(model.gravity_vector, float)
        label = max({f.label for f in model.forces} | {0}) + 1
        for b in model.bodies:
            if b.mass == 0.0:
                continue
            w = VectorDrive.single(b.mass * g, model.gravity_drive)
            m.force(label, b.node, w, "absolute", offset=np.asarray(b.xcg, float))
            label += 1
        shares = {}                    # consistent shell masses: ∫ρh N_a dA per node
        for s in getattr(model, "shell_mass_elements", []):
            for node, share in zip(s.nodes, s.M.sum(axis=1)):
                shares[node] = shares.get(node, 0.0) + share
        for node, share in shares.items():
            m.force(label, node, VectorDrive.single(share * g, model.gravity_drive), "absolute")
            label += 1
    m.gravity_vector = None
    m.gravity_drive = None
    if ramp is not None:
        m.forces = [_scaled_force(f, ramp) for f in m.forces]
    return m


def _scaled_force(spec, ramp):
    s = copy.copy(spec)
    s.value = VectorDrive([(a, ScaledDrive(d, ramp)) for a, d in spec.value.terms])
    return s


class StaticProblem:
    """Load-stepped static equilibrium of a Model (see the module docstring)."""

    def __init__(self, model, steps=10, initial_time=0.0, final_time=1.0, ramp=False, tolerance=1e-6,
                 max_iterations=50, test="norm", linear_solver="default", skip_initial_assembly=False,
                 observers=()):
        if steps < 1:
            raise ValueError("static analysis: at least one load step is required")
        if not final_time > initial_time:
            raise ValueError("static analysis: final time must exceed the initial time")
        self.steps = int(steps)
        self.t0, self.t1 = float(initial_time), float(final_time)
        lam = None
        if ramp:
            T = self.t1 - self.t0
            lam = LinearDrive(-self.t0 / T, 1.0 / T)
        self.model = static_model(model, lam)
        h = (self.t1 - self.t0) / self.steps
        self.ivp = InitialValueProblem(self.model, time_step=h, initial_time=self.t0, final_time=self.t1,
                                       tolerance=tolerance, max_iterations=max_iterations, test=test,
                                       linear_solver=linear_solver, keep_results=False,
                                       skip_initial_assembly=skip_initial_assembly,
                                       mpi_evaluation="replicated")   # its own output: not gathered
        self.system = self.ivp.system
        self.h = h
        self.observers = list(observers)

    def run(self):
        """Solve the load steps; returns Results (index 0: the assembled initial configuration)."""
        sysm, ivp = self.system, self.ivp
        newton = ivp.newton
        st = sysm.initial_state(self.t0)
        if not ivp.settings.skip_initial_assembly and sysm.is_alg.any():
            ivp.initial_assembly(st)
        diff = ~sysm.is_alg
        st.yp[diff] = 0.0
        res = Results(sysm.nodes.labels.copy())
        note = replicated_note("static analysis")
        for obs in self.observers:
            obs.start(sysm, self.model)
            if note:
                obs.log(note)
            obs.log("# Step Time TStep NIter ResErr SolErr SolConv Out")
        try:
            self._record(res, st, 0, 0.0)
            with step_loop():
                self._load_steps(res, st)
        finally:
            for obs in self.observers:
                obs.finish()
        res.stats = dict(steps=self.steps, newton_iterations=newton.total_iterations,
                         factorizations=newton.factorizations, unknowns=sysm.n,
                         **solver_statistics(newton.linear))
        return res.finalize()

    def _load_steps(self, res, st):
        sysm, newton = self.system, self.ivp.newton
        diff = ~sysm.is_alg
        for k in range(1, self.steps + 1):
            between_steps()                  # a signal (mbdae run) stops here, between whole steps
            st.t = self.t0 + k * self.h
            st.yp[diff] = 0.0
            sysm.begin_step(st)
            try:
                it, err, _ = newton.solve(sysm, st, self.h, mode="regular")
            except (NoConvergence, SimulationDiverged) as e:
                raise SimulationFailed(f"static analysis: load step {k} (t = {st.t:g}) failed: "
                                       f"{self.ivp.diagnosed(e, st)}") from None
            sysm.commit(st)
            self._record(res, st, it, err)
            self.state = st

    def _record(self, res, st, it, err):
        """Results in memory and a StepEvent (load step) to the observers."""
        kin = self.system.kinematics(st)
        if self.observers:
            step = int(round((st.t - self.t0) / self.h))
            event = StepEvent(step, st.t, self.h if step else 0.0, it, err, False, True, st, kin,
                              [(self.system.families, self.system.context(st, kin=kin))])
            publish_step(self.observers, event)
        res.t.append(st.t)
        res.x.append(kin.x.copy())
        res.R.append(kin.R.copy())
        res.v.append(np.zeros_like(kin.x))
        res.w.append(np.zeros_like(kin.x))
        res.iterations.append(it)


def solve_static(model, steps=10, **kw):
    """Static equilibrium of `model` in `steps` load steps (StaticProblem); returns Results."""
    return StaticProblem(model, steps=steps, **kw).run()
