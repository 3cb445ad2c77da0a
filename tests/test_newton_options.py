"""MBDyn's `max iterations: n, at most`: a step that has not converged after n iterations is
accepted when its residual fell, and the .out file says so; without `at most` the same run stops."""
import numpy as np
import pytest

from mbdae import initial_value_problem
from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem, SimulationFailed


def pendulum():
    m = Model()
    m.structural_node(1, "dynamic", position=[1.0, 0, 0])
    m.body(1, 1, 1.0, inertia=np.diag([1e-3, 1e-3, 1e-3]))
    m.revolute_pin(2, 1, offset=[-1.0, 0, 0], absolute_position=[0, 0, 0])
    m.gravity([0, -9.81, 0])
    return m


def test_at_most_accepts_unconverged_steps_and_logs_them(tmp_path):
    common = dict(final_time=0.05, time_step=1e-2, tolerance=1e-14, max_iterations=1, min_time_step=1e-2)
    with pytest.raises(SimulationFailed):
        InitialValueProblem(pendulum(), **common).run()
    prefix = str(tmp_path / "p")
    r = initial_value_problem(pendulum(), max_iterations_at_most=True, output_prefix=prefix, **common).run()
    assert r.stats["unconverged_steps"] >= 1
    assert "(max iterations, at most)" in open(prefix + ".out").read()
    # one Newton iteration from the predictor is close to the converged answer
    ref = InitialValueProblem(pendulum(), final_time=0.05, time_step=1e-2, tolerance=1e-12).run()
    assert np.abs(r.x[-1] - ref.x[-1]).max() < 1e-3


def test_fixed_step_methods_reach_a_final_time_that_rounding_puts_off_the_grid():
    """0.03 / 5e-5 steps: the accumulated time misses t_end by rounding; the last step must
    still be h, or ms4 (fixed step) would refuse it."""
    r = InitialValueProblem(pendulum(), final_time=0.03, time_step=5e-5, method="ms4", rho=0.6).run()
    assert len(r.t) == 601 and abs(r.t[-1] - 0.03) < 1e-12
