"""Initial-value problem driver (manual ch. 6): initial assembly (§6.1), derivatives
(§6.2.1), optional dummy steps, regular steps with a predictor and Newton corrector,
time-step reduction on failure, and output.

Policies the manual leaves open, stated here:
* Initial assembly solves the position subproblem (per-node penalty weights, index-3
  joint rows, velocity-level rows held at λ = 0), commits the rotations, then the linear
  velocity subproblem φ_q v + φ_t = 0 and the non-holonomic rows; the joints take part
  (and the surface loads in the position subproblem with `use: surface loads, in assembly`).
* The derivatives phase is a Newton solve (residual test, and a solution test when
  `derivatives tolerance` gives its second value) with dCoef = h0 · coefficient that updates
  ẏ += Δ and, consistently, y += dCoef Δ (a tiny implicit Euler step), so a position
  residual left by the assembly is absorbed instead of turned into a spurious velocity.
* The first regular step is Crank-Nicolson (as MBDyn); then the chosen method.
* On a failed step the step is halved down to `min_time_step`; after an easy step it is
  doubled back up to `max_time_step`.  When the step cannot be reduced further the run
  stops with a diagnosis (step, time, worst equation and its owner); output written so
  far stays on disk.
"""
from dataclasses import dataclass, field, replace
import sys as _sys
import time as _time
import numpy as np

from mbdae.engine.system import System
from mbdae.engine.distributed import build_system
from mbdae.engine.core.state import StepEvent
from mbdae.engine.core.stop import StopRequested, between_steps, publish_step, step_loop
from mbdae.engine.core.assembly import DIM
from mbdae.engine.drivers.eigen import EigenSchedule
from mbdae.engine.drivers.time_span import check_time_span
from mbdae.engine.diagnose import describe_failure
from mbdae.solvers.newton import NewtonRaphson, NewtonSettings, NoConvergence
from mbdae.solvers.linear import CondensedBlocksSolver, make_linear_solver
from mbdae.solvers.petsc import mpi_rank
from mbdae.solvers.convergence import SimulationDiverged
from mbdae.solvers.integrators import make_method, CrankNicolson, ImplicitEuler
from mbdae.solvers.history import History
from mbdae.solvers.stepcontrol import make_strategy


# rows whose residual at t0 the derivatives phase keeps (the assembled constraints)
CONSTRAINT_DIMS = [DIM[d] for d in ("position constraint", "rotation constraint", "velocity constraint",
                                    "angular velocity constraint")]


class SimulationFailed(RuntimeError):
    """The run could not continue; the message names step, time and the worst equation."""


@dataclass
class Settings:
    initial_time: float = 0.0
    final_time: float = 1.0
    time_step: float = 1e-3
    min_time_step: float = None          # default: time_step / 64 (strategy change: none)
    max_time_step: float = None          # default: time_step (strategy change: unlimited)
    method: str = "ms"
    rho: float = 0.6
    tolerance: float = 1e-6
    test: str = "norm"
    solution_tolerance: float = 0.0
    solution_test: str = "none"
    max_iterations: int = 20
    max_iterations_at_most: bool = False    # accept a step after max_iterations if the error fell
    modified_newton: bool = False
    iterations_before_assembly: int = 2
    reuse_factorization_across_steps: bool = False
    refresh_contraction: float = 0.5
    linear_solver: str = "default"         # KLU when a KLU library is found, else SuperLU (solvers/linear.py)
    derivatives_coefficient: float = 1e-6
    derivatives_tolerance: float = 1e-6
    derivatives_solution_tolerance: float = 0.0   # > 0: also a solution (norm) test ends the phase
    derivatives_max_iterations: int = 10
    derivatives_retries: int = 3            # retries with the coefficient × and ÷ the factor
    derivatives_retry_factor: float = 10.0
    dummy_steps: int = 0
    dummy_steps_ratio: float = 1e-3
    dummy_steps_tolerance: float = None     # None: `tolerance`
    dummy_steps_max_iterations: int = None  # None: `max_iterations`
    dummy_steps_method: tuple = None        # (name, rho) after the first (Crank-Nicolson) dummy step;
                                            # None: Crank-Nicolson throughout
    skip_initial_assembly: bool = False
    assembly_tolerance: float = 1e-10
    assembly_max_iterations: int = 50
    output_prefix: str = None
    output_frequency: int = 1
    output_meter: object = None             # engine/drivers/output_meter.py (`output meter` card)
    output_precision: int = 6
    progress: object = None              # None: only on a terminal
    keep_results: bool = True
    algebraic_predictor: str = "linear"     # "constant", "linear" or "quadratic" extrapolation
    strategy: tuple = None                  # None: halving; ("factor", red, n_red, raise, n_raise, min_it[, max_it]);
                                            # ("change", drive): the step from a drive of time
    eigenanalysis: object = None            # engine.eigen.EigenSettings (`eigenanalysis` card)
    constraint_test_scale: float = None     # `enforce constraint equations` (solvers/newton.py)
    matrix_free: object = None              # solvers/krylov.MatrixFreeSettings: MBDyn's `matrix free`
    mpi_evaluation: str = "distributed"     # under mpiexec (P > 1): "distributed" (engine/distributed.py)
                                            # or "replicated" (every process evaluates the whole model)


@dataclass
class Results:
    """Output steps as arrays (index 0 is the initial configuration after derivatives)."""
    node_labels: np.ndarray
    t: list = field(default_factory=list)
    x: list = field(default_factory=list)
    R: list = field(default_factory=list)
    v: list = field(default_factory=list)
    w: list = field(default_factory=list)
    joint_labels: np.ndarray = None
    joint_force: list = field(default_factory=list)    # force each joint applies to its node 2
    joint_moment: list = field(default_factory=list)   # couple (global frame)
    a: list = field(default_factory=list)        # linear accelerations (nodes with bodies)
    wd: list = field(default_factory=list)       # angular accelerations
    iterations: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)

    def finalize(self):
        for k in ("t", "x", "R", "v", "w", "a", "wd", "iterations", "joint_force", "joint_moment"):
            setattr(self, k, np.asarray(getattr(self, k)))
        return self

    def node(self, label):
        """(x, R, v, w) histories of one node."""
        i = self.index(label)
        return self.x[:, i], self.R[:, i], self.v[:, i], self.w[:, i]

    def joint(self, label):
        """(force, couple) histories that joint `label` applies to its second node."""
        k = int(np.flatnonzero(self.joint_labels == label)[0])
        return self.joint_force[:, k], self.joint_moment[:, k]

    def index(self, label):
        hit = np.flatnonzero(self.node_labels == label)
        if len(hit) == 0:
            raise KeyError(f"no structural node {label} in the results")
        return int(hit[0])


class InitialValueProblem:
    """The initial-value driver: phases, the time loop and step control; each step is the
    integrator's (`method.step`), each event goes to the observers (`observers`: e.g. the
    MBDyn writer of engine/io/mbdyn/output.py, attached by mbdae.run and the deck reader)."""

    def __init__(self, model, settings=None, observers=(), **kw):
        self.settings = settings or Settings(**kw)
        s = self.settings
        warning = check_time_span(s.initial_time, s.final_time, s.time_step, empty=True)
        self.model = model
        self.system, self.evaluation_note = self.build_system(model)
        self.distributed = hasattr(self.system, "layout")
        self.newton = NewtonRaphson(NewtonSettings(
            tolerance=s.tolerance, test=s.test, solution_tolerance=s.solution_tolerance,
            solution_test=s.solution_test, max_iterations=s.max_iterations, at_most=s.max_iterations_at_most,
            modified=s.modified_newton,
            iterations_before_assembly=s.iterations_before_assembly,
            reuse_across_steps=s.reuse_factorization_across_steps, linear_solver=s.linear_solver,
            refresh_contraction=s.refresh_contraction, constraint_test_scale=s.constraint_test_scale,
            matrix_free=s.matrix_free),
            linear=self.linear_solver())
        self.method = make_method(s.method, s.rho)
        # MBDyn's `strategy: change` has no bounds unless given; mbdae's own default is
        # halving down to h/64 and doubling back up to h
        change = s.strategy is not None and s.strategy[0] == "change"
        self.min_h = s.min_time_step if s.min_time_step is not None else (0.0 if change else s.time_step / 64)
        self.max_h = s.max_time_step if s.max_time_step is not None else (np.inf if change else s.time_step)
        self.strategy = make_strategy(s.strategy, self.min_h, self.max_h, self.method)
        self.observers = list(observers)
        # the families the driver reads (found by what they offer, not by class)
        self.joints = self.system.family_with("reactions")
        self.momentum_families = [f for f in self.system.families if hasattr(f, "node_momenta")]
        if (s.output_prefix and mpi_rank() == 0
                and not any(getattr(o, "prefix", None) == s.output_prefix for o in self.observers)):
            raise ValueError("output_prefix: the driver writes no files itself; run the model with "
                             "mbdae.run(model, output_prefix=...) or attach an MBDyn writer observer")
        self.state = None
        self.step = 0
        if self.distributed:        # rank 0 keeps the full model's results
            summary = self.system.summary
            self.results = Results(summary.nodes.labels.copy()) if s.keep_results and summary else None
        else:
            self.results = Results(self.system.nodes.labels.copy()) if s.keep_results else None
        self.log_lines = []
        if warning is not None:
            self.log(f"# warning: {warning}")
            if mpi_rank() == 0:
                print(f"mbdae: warning: {warning}", file=_sys.stderr)
        self.eigen = EigenSchedule(s.eigenanalysis) if s.eigenanalysis is not None else None

    def build_system(self, model):
        """(System, note for the log): under MPI with several processes, the distributed
        System of this process's share (engine/distributed.py) unless the settings ask for
        the replicated evaluation or use what is not distributed (eigenanalysis, matrix-free
        Newton), or the model does not split; else the System of the whole model."""
        s = self.settings
        if s.mpi_evaluation not in ("distributed", "replicated"):
            raise ValueError(f"mpi_evaluation must be 'distributed' or 'replicated', not {s.mpi_evaluation!r}")
        if s.mpi_evaluation == "distributed":
            refused = ("eigenanalysis" if s.eigenanalysis is not None else
                       "matrix-free Newton" if s.matrix_free is not None else None)
            system, note = build_system(model, s.initial_time, refused)
            if system is not None:
                return system, note
        else:
            note = None
        return System(model), note

    def linear_solver(self):
        """The settings' linear back end for this system's pattern, with the momenta of
        dynamic displacement nodes condensed when there are any (System.condensed_blocks,
        solvers/linear.py); the distributed system's rows for a distributed one."""
        sysm = self.system
        if self.distributed:
            return make_linear_solver(self.settings.linear_solver, pattern=sysm.linear_pattern(), layout=sysm.layout)
        linear = make_linear_solver(self.settings.linear_solver, pattern=sysm.linear_pattern())
        groups, what = sysm.condensed_blocks()
        return CondensedBlocksSolver(linear, sysm.n, groups, what) if groups else linear

    # ------------------------------------------------------------------ phases
    def initial_assembly(self, st):
        """Position then velocity subproblems of manual §6.1 (minimum-weighted-change form)."""
        sysm = self.system
        nodes = sysm.nodes
        x_in = st.y[nodes.ix].copy()
        v_in = st.yp[nodes.ix].copy()
        w_in = nodes.omega_of(st.yp)
        ia = st.copy()
        ia.yp[:] = 0.0
        self._assembly_subproblem(ia, "positions", 1.0, "ia_position", (x_in, None, None))
        ia.yp[:] = 0.0
        ia.yp[nodes.ix] = v_in
        nodes.reset_rotations(ia.y, ia.yp, w_in)
        self._assembly_subproblem(ia, "velocities", 0.0, "ia_velocity", (None, v_in, w_in))
        st.y[nodes.ix] = ia.y[nodes.ix]
        st.yp[nodes.ix] = ia.yp[nodes.ix]
        st.R_ref = ia.R_ref
        nodes.reset_rotations(st.y, st.yp, nodes.omega_of(ia.yp))

    def _assembly_subproblem(self, ia, what, dcoef, mode, targets):
        """One Newton solve of the initial assembly; multipliers start from zero."""
        s = self.settings
        ia.y[self.system.is_alg] = 0.0
        try:
            it, err, _ = self.newton.solve(self.system, ia, dcoef, mode=mode, ia=targets,
                                           tolerance=s.assembly_tolerance,
                                           max_iterations=s.assembly_max_iterations, test="norm")
        except (NoConvergence, SimulationDiverged) as e:
            raise SimulationFailed(f"initial assembly ({what}) failed: {self.diagnosed(e, ia)}") from None
        self.newton.invalidate()
        self.system.commit(ia, phase="initial assembly")
        self.log(f"# Initial assembly: {what} in {it} iterations, error {err:.6g}")

    def set_momenta(self, st):
        """β = Σ(m ẋ + ω×s), γ = Σ(s×ẋ + Jω) from the (consistent) initial velocities: the
        sum over the families that carry mass (rigid bodies, solid elements: β = M u̇); the
        families with velocity unknowns of their own (modal joints: the modal node's v, ω
        and the modal velocities) set them from the same velocities."""
        sysm = self.system
        nodes = sysm.nodes
        own = [f for f in sysm.families if hasattr(f, "set_own_velocities")]
        d = nodes.inertial
        if own or (self.momentum_families and len(d)):
            kin = sysm.kinematics(st)
            beta, gamma = np.zeros((nodes.n, 3)), np.zeros((nodes.n, 3))
            for fam in self.momentum_families:
                b, g = fam.node_momenta(kin)
                beta += b
                gamma += g
            st.y[nodes.ib[d]] = beta[d]
            st.y[nodes.ic[nodes.inertial_rot]] = gamma[nodes.inertial_rot]
            for fam in own:
                fam.set_own_velocities(kin, st.y, st.yp)
        if self.distributed:       # a ghost node's momenta are summed whole by its owner only
            sysm.exchange_state(st)

    def derivatives(self, st):
        """Consistent ẏ (accelerations, momentum rates) and multipliers at t0 (manual §6.2.1).

        A Newton solve with dCoef = h0 · coefficient of one tiny implicit Euler step from t0
        to t0 + dCoef, in which the joints' position-level rows are imposed at velocity level
        (φ_q v + φ_t = 0).  Loads are evaluated at t0 itself, the joints' drives at t0 + dCoef.  That index-2 step gives the accelerations and reactions to O(dCoef)
        including the convective and φ_tt terms, which the index-3 form would get O(1) wrong.
        Afterwards the structural nodes' y and velocities are restored: ẏ of the momenta and
        y, ẏ of every other unknown (multipliers, abstract and hydraulic nodes: solved, not
        biased, unless a constraint row) are taken from the step."""
        s = self.settings
        nodes = self.system.nodes
        coef = s.derivatives_coefficient
        fac = s.derivatives_retry_factor
        tries = [coef] + [coef * fac ** k for k in range(1, s.derivatives_retries + 1)] \
            + [coef / fac ** k for k in range(1, s.derivatives_retries + 1)]
        base = st.copy()
        keep = np.zeros(self.system.n, bool)
        keep[nodes.ix] = True
        keep[nodes.ig_rot] = True
        # the structural nodes' unknowns keep their y (given positions, consistent momenta);
        # every other unknown keeps the step's y0 + dCoef ẏ, as MBDyn's derivatives phase:
        # multipliers, and abstract or hydraulic node values an algebraic equation fixes
        structural = keep.copy()
        for index in (nodes.ib, nodes.ic):
            structural[index[index >= 0]] = True
        for fam in self.system.families:       # differential unknowns of families kept as the nodes'
            if hasattr(fam, "kept_unknowns"):
                structural[fam.kept_unknowns()] = True
        # the constraint rows keep their t0 residual (they were assembled); the other
        # algebraic rows (hydraulic and abstract algebraic nodes, the u/p-c pressures) are
        # solved, so their unknowns start consistent, as MBDyn's derivatives phase leaves them
        constraint_rows = self.system.is_alg & np.isin(self.system.dim, CONSTRAINT_DIMS)
        last = None
        for c in tries:
            trial = base.copy()
            dcoef = ImplicitEuler().coefficients(s.time_step * c, None).b0    # the step's dCoef
            alg = self.system.is_alg
            f0 = self.system.evaluate(base, dcoef, mode="derivatives", want_jac=False)[0]
            bias = np.where(constraint_rows, f0, 0.0)
            # loads at t0 (as MBDyn: a drive that steps at t0 enters with its value there,
            # e.g. half the step for `double step`); the joints' imposed motion at t0 + dCoef,
            # so that the velocity-level rows' difference quotient carries φ_tt
            trial.t_constraint = base.t + dcoef
            trial.y[~alg] += dcoef * trial.yp[~alg]      # implicit Euler: y = y0 + dCoef ẏ
            try:
                it, err, _ = self.newton.solve(self.system, trial, dcoef, mode="derivatives",
                                               tolerance=s.derivatives_tolerance,
                                               max_iterations=s.derivatives_max_iterations,
                                               bias=bias,
                                               solution_tolerance=s.derivatives_solution_tolerance,
                                               solution_test="norm")
            except (NoConvergence, SimulationDiverged) as e:
                last = e
                self.newton.invalidate()
                continue
            self.newton.invalidate()
            st.y[~structural] = trial.y[~structural]
            st.yp[~keep] = trial.yp[~keep]
            st.yp[alg] = 0.0
            self.derivatives_info = (it, err)
            self.log(f"# Derivatives solution step at time {st.t:g} performed in {it} iterations "
                     f"with {err:g} error")
            return
        raise SimulationFailed(f"derivatives phase at time {st.t:g} failed: {self.diagnosed(last, base)}")

    def diagnosed(self, error, state, log=True, t=None):
        """The text of a failed solve: with a singular iteration matrix, followed by lines of its
        diagnosis (engine/diagnose.py: redundant equations, nodes without inertia, free
        directions); all of it also goes to the log (.out) unless `log` is False."""
        J = getattr(error, "matrix", None)
        if "non-finite" in str(error) and not self.distributed and state is not None:
            lines = self.system.nonfinite_sources(state.t if t is None else t)
            if log:
                for line in [str(error)] + lines:
                    self.log("# " + line)
            return "\n".join([str(error)] + lines)
        if J is None or self.distributed or state is None:
            return str(error)
        lines = describe_failure(self.system, state, J, error.dcoef, error.mode, 0.5 * self.settings.time_step)
        if log:
            for line in [str(error)] + lines:
                self.log("# " + line)
        return "\n".join([str(error)] + lines)

    # ------------------------------------------------------------------ output
    def log(self, text):
        self.log_lines.append(text)
        for obs in self.observers:
            obs.log(text)

    def publish(self, st, step, h, it, err, solconv):
        """Results in memory and a StepEvent to the observers."""
        s = self.settings
        metered = s.output_meter is None or s.output_meter.due(st.t, step)     # asked at every step
        written = metered and step % s.output_frequency == 0
        if self.distributed:
            return self._publish_gathered(st, step, h, it, err, solconv, written)
        if not self.observers and (not written or self.results is None):
            return
        sysm = self.system
        kin = ctx = None                      # built only for an output step
        if written:
            kin = sysm.kinematics(st)
            ctx = sysm.context(st, kin=kin)
            if self.results is not None:
                self._keep(st, kin, ctx, it)
        event = StepEvent(step, st.t, h, it, err, solconv, written, st, kin,
                          [(sysm.families, ctx)] if written else [])
        publish_step(self.observers, event)
        self.published = (step, float(st.t))

    def _publish_gathered(self, st, step, h, it, err, solconv, written):
        """publish() of a distributed run: on an output step every process sends its owned
        nodes and home element rows to rank 0 (the same steps on every process), which keeps
        the results and tells the observers."""
        sysm = self.system
        if self.output_wanted is None:       # whether rank 0 writes or keeps anything (the same on every rank)
            readers = any(getattr(o, "wants_output", True) for o in self.observers)
            self.output_wanted, self.results_wanted = sysm.comm.bcast(
                (readers or self.results is not None, self.results is not None), root=0)
        kin = families = reactions = None
        if written and self.output_wanted:
            local_kin = sysm.kinematics(st)
            ctx = sysm.context(st, kin=local_kin)
            kin, families, reactions = sysm.gather_output(st, local_kin, ctx, accelerations=self.results_wanted,
                                                          reactions=self.results_wanted)
        if sysm.rank != 0:
            return
        if kin is not None and self.results is not None:
            r = self.results
            r.t.append(st.t)
            for name, values in (("x", kin.x), ("R", kin.R), ("v", kin.v), ("w", kin.w), ("a", kin.a),
                                 ("wd", kin.wd)):
                getattr(r, name).append(values.copy())
            r.iterations.append(it)
            if reactions is not None:
                r.joint_labels, F, M = reactions
                r.joint_force.append(F)
                r.joint_moment.append(M)
        event = StepEvent(step, st.t, h, it, err, solconv, written, st, kin,
                          [(families, None)] if written and families is not None else [])
        publish_step(self.observers, event)
        self.published = (step, float(st.t))

    def _keep(self, st, kin, ctx, it):
        r = self.results
        r.t.append(st.t)
        r.x.append(kin.x.copy())
        r.R.append(kin.R.copy())
        r.v.append(kin.v.copy())
        r.w.append(kin.w.copy())
        r.iterations.append(it)
        a, wd = self.accelerations(st, kin)
        r.a.append(a)
        r.wd.append(wd)
        joints = self.joints
        if joints is not None:
            _, F, M = joints.reactions(ctx)
            r.joint_labels = joints.labels
            r.joint_force.append(F)
            r.joint_moment.append(M)

    def accelerations(self, st, kin):
        return self.system.node_accelerations(st.yp, kin)

    # ------------------------------------------------------------------ driver
    def prepare(self):
        s = self.settings
        sysm = self.system
        st = sysm.initial_state(s.initial_time)
        self.output_wanted = None
        for obs in self.observers:
            obs.start(sysm.summary if self.distributed else sysm, self.model, self.method)
        if self.evaluation_note:
            self.log("# MPI: " + self.evaluation_note)
        if not s.skip_initial_assembly and sysm.anywhere(sysm.is_alg.any()):
            self.initial_assembly(st)
        self.set_momenta(st)
        self._eigen_due(st, before_derivatives=True)
        self.derivatives(st)
        sysm.commit(st, phase="derivatives")
        self._eigen_due(st)
        self.state = st
        for obs in self.observers:
            obs.log("# Key for lines starting with \"Step\":")
            obs.log("# Step Time TStep NIter ResErr SolErr SolConv Out")
        it, err = getattr(self, "derivatives_info", (0, 0.0))
        self.publish(st, 0, 0.0, it, err, False)
        return st

    def run(self):
        wall0 = _time.perf_counter()
        self.published = None
        try:
            self.prepare()
            self._run_steps()
        except StopRequested as e:
            self._stopped(e)
            raise
        finally:
            self._end_of_run()
            for obs in self.observers:
                obs.finish()
        wall = _time.perf_counter() - wall0
        stats = dict(wall_time=wall, final_time=float(self.state.t), steps=self.step,
                     newton_iterations=self.newton.total_iterations,
                     factorizations=self.newton.factorizations, unknowns=self.system.n,
                     step_reductions=getattr(self, "reductions", 0),
                     unconverged_steps=self.newton.accepted_unconverged)
        if self.newton.matrix_free is not None:
            stats["krylov_iterations"] = self.newton.matrix_free.linear_iterations
        stats.update(self.summaries)
        self.stats = stats
        if self.results is not None:
            self.results.stats = stats
            return self.results.finalize()
        return stats

    def _end_of_run(self):
        """The families' end-of-run summaries (`run_summary(ctx)` -> (lines, values), e.g. the
        power take-offs' mean absorbed power) at the last committed state, also after a failed
        or stopped run: the lines to the log (.out), the values for the statistics."""
        self.summaries = {}
        if self.state is None or self.distributed:
            return
        ctx = self.system.context(self.state)
        for fam in self.system.families:
            if hasattr(fam, "run_summary"):
                lines, values = fam.run_summary(ctx)
                for line in lines:
                    self.log("# " + line)
                self.summaries.update(values)

    def _stopped(self, stop):
        """Note a stop on a signal in the log and on the exception: the last whole step."""
        if stop.step is None and self.published is not None:
            stop.step, stop.t = self.published
        self.log(f"# run stopped by {stop.name}" + (f" after step {stop.step} (t = {stop.t:.10g})"
                                                     if stop.step is not None else " before the first step"))

    def _run_steps(self):
        with step_loop():
            self._step_loop()

    def _step_loop(self):
        s = self.settings
        sysm = self.system
        hist = History(max(4, self.method.history), s.algebraic_predictor).after(sysm, self.state)
        self.state.history = hist
        self.reductions = 0
        hist = self._dummy_steps(hist)
        h = s.time_step
        k_start = 0                 # regular steps since the (re)start of the method's start-up
        last_h = None
        progress = Progress(s)
        t_end = s.final_time
        # the accumulated time drifts by up to N ulps over N steps (12 000 steps of 2.5e-6 end
        # 3.5e-15 short of 0.03): a remainder below 1e-3 h is that drift, never a step (a step
        # of 1e-15 s would divide the constraint rows by dCoef ~ 1e-15), and a last step that
        # differs from h by such a remainder is h (fixed-step methods must not see a change)
        eps_t = 1e-3 * s.time_step
        while hist[0].t < t_end - eps_t:
            between_steps()                  # a signal (mbdae run) stops here, between whole steps
            rest = t_end - hist[0].t
            h_try = h if abs(rest - h) <= 1e-3 * h else min(h, rest)
            while True:
                if (not self.method.variable_step and last_h is not None and k_start > 0
                        and not np.isclose(h_try, last_h, rtol=1e-12)):
                    self.log(f"# {self.method.name} cannot change the time step: its start-up "
                             f"sequence restarts at time {hist[0].t:.10g} with step {h_try:g}")
                    k_start = 0
                method = self.method.startup(k_start)
                try:
                    st, it, err, solconv = method.step(sysm, self.newton, hist, h_try)
                    break
                except (NoConvergence, SimulationDiverged) as e:
                    self.newton.invalidate()
                    h_next = self.strategy.after_failure(h_try, t=hist[0].t + h_try)
                    if h_next is not None:
                        h_try = h_next
                        self.reductions += 1
                        self.log(f"# step {self.step + 1}: {e}; retrying with time step {h_try:g}")
                        continue
                    msg = (f"step {self.step + 1}, time {hist[0].t + h_try:.10g} (time step {h_try:g}): "
                           f"{self.diagnosed(e, self.state, log=False, t=hist[0].t + h_try)}")
                    self.log("# " + msg.replace("\n", "\n# "))
                    raise SimulationFailed(msg) from None
            self.step += 1
            if err > s.tolerance and not solconv:
                self.log(f"# step {self.step}: accepted after {it} iterations with error {err:g} "
                         f"(max iterations, at most)")
            k_start += 1
            last_h = h_try
            sysm.commit(st, self.newton.converged_kinematics)
            hist = st.history = hist.after(sysm, st, method)
            self.state = st
            self.publish(st, self.step, h_try, it, err, solconv)
            self._eigen_due(st)
            h = self.strategy.after_step(h, h_try, it, t=st.t)   # solvers/stepcontrol.py
            progress.report(self.step, hist[0].t, it)
        progress.close()

    def _eigen_due(self, st, before_derivatives=False):
        """Run the eigenanalysis due at st.t (engine/eigen.py), if any."""
        if self.eigen is not None:
            k = self.eigen.due(st.t, before_derivatives, 1e-9 * self.settings.time_step)
            if k is not None:
                self.eigen.run(self, st, k)

    def _dummy_steps(self, hist):
        """`dummy steps number`: small steps of h·ratio that advance time and build the
        start-up history (not written to output): Crank-Nicolson, or after a first
        Crank-Nicolson step the `dummy steps method`, solved to the dummy steps' tolerance and
        max iterations (manual §4.1.3; the regular ones when not given)."""
        s = self.settings
        if s.dummy_steps <= 0:
            return hist
        base = self.newton.settings
        newton = NewtonRaphson(replace(
            base, tolerance=base.tolerance if s.dummy_steps_tolerance is None else s.dummy_steps_tolerance,
            test="norm" if s.dummy_steps_tolerance is not None else base.test,
            max_iterations=(base.max_iterations if s.dummy_steps_max_iterations is None
                            else s.dummy_steps_max_iterations), modified=False), linear=self.linear_solver())
        dummy = CrankNicolson() if s.dummy_steps_method is None else make_method(*s.dummy_steps_method)
        for k in range(s.dummy_steps):
            h = s.time_step * s.dummy_steps_ratio
            method = dummy.startup(k)
            try:
                st, it, err, _ = method.step(self.system, newton, hist, h)
            except (NoConvergence, SimulationDiverged) as e:
                raise SimulationFailed(f"dummy step {k + 1} failed: {self.diagnosed(e, self.state)}") from None
            finally:
                newton.invalidate()
            self.system.commit(st, newton.converged_kinematics)
            hist = st.history = hist.after(self.system, st, method)
            self.state = st
            self.log(f"# dummy step {k + 1} at time {st.t:g} in {it} iterations")
        return hist


class Progress:
    """One status line on stderr, at most once a second (Settings.progress; None: only on a
    terminal): step, time, iterations, done fraction and the time left."""

    def __init__(self, settings):
        self.on = (settings.progress if settings.progress is not None else _sys.stderr.isatty()) and mpi_rank() == 0
        self.t0, self.t_end = settings.initial_time, settings.final_time
        self.wall0 = self.last = _time.perf_counter()

    def report(self, step, t, it):
        if not self.on or _time.perf_counter() - self.last <= 1.0:
            return
        self.last = _time.perf_counter()
        frac = (t - self.t0) / (self.t_end - self.t0)
        eta = (self.last - self.wall0) * (1 - frac) / max(frac, 1e-12)
        _sys.stderr.write(f"\rstep {step} t={t:.6g} it={it} {100 * frac:5.1f}% ETA {eta:6.1f}s ")
        _sys.stderr.flush()

    def close(self):
        if self.on:
            _sys.stderr.write("\n")
