"""The public entry points: build a problem for a Model or a deck, with MBDyn's text files
written by the observer of engine/io/mbdyn/output.py when `output_prefix` is given."""
from mbdae.engine.drivers.ivp import InitialValueProblem, Settings
from mbdae.engine.drivers.inverse import InverseDynamicsProblem
from mbdae.engine.drivers.kinematic import KinematicAnalysis
from mbdae.engine.io.mbdyn.deck import Deck
from mbdae.engine.io.mbdyn.output import writers_for
from mbdae.solvers.linear import add_solver_statistics, choose_linear_solver


def initial_value_problem(model, observers=(), **settings):
    """The initial-value driver for `model` with `settings` (engine/drivers/ivp.Settings);
    MBDyn's files are written under `output_prefix` when it is given."""
    s = Settings(**settings)
    return InitialValueProblem(model, s, observers=list(observers) + writers_for(s))


def inverse_dynamics_problem(model, times=None, output_prefix=None, output_precision=6, observers=(), **kw):
    """The inverse-dynamics driver (manual §6.3) with MBDyn's files under `output_prefix`."""
    writers = writers_for(Settings(output_prefix=output_prefix, output_precision=output_precision),
                          choose_linear_solver(kw.get("linear_solver")))
    return InverseDynamicsProblem(model, times, observers=list(observers) + writers, **kw)


def kinematic_analysis(model, output_prefix=None, output_precision=6, observers=(), **kw):
    """The kinematic analysis of a fully driven model (engine/drivers/kinematic.py, MBDM's
    mode 0) with MBDyn's files under `output_prefix`; keywords as KinematicAnalysis
    (initial_time, final_time, time_step, tolerance, max_iterations, linear_solver,
    reactions).  Returns the problem: kinematic_analysis(model, ...).run()."""
    writers = writers_for(Settings(output_prefix=output_prefix, output_precision=output_precision),
                          choose_linear_solver(kw.get("linear_solver")))
    return KinematicAnalysis(model, observers=list(observers) + writers, **kw)


def run(model, observers=(), **settings):
    """Run a Model (initial value problem: Results) or a Deck (as its problem card says).
    The statistics (`Results.stats`) name the linear solver that ran (`linear_solver`) and
    count its refactorizations."""
    if isinstance(model, Deck):
        return model.run(**settings)
    problem = initial_value_problem(model, observers, **settings)
    return add_solver_statistics(problem.run(), problem.newton.linear)
