"""cases/large/cable.py, the 10⁶-unknown case of issue 17, in a short form: the same model
with 200 elements.  Released unstressed, every point of the line falls freely until the pin's
reaction reaches it as an axial wave (4 km of steel: 0.8 s), so over the first 10 ms the
clump's fall is g t²/2."""
import os
import sys

import numpy as np

from mbdae.engine.drivers.ivp import InitialValueProblem

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cases", "large"))
from cable import LENGTH, cable_model   # noqa: E402


def test_cable_clump_falls_freely_before_the_wave_arrives():
    model, nn = cable_model(200)
    prob = InitialValueProblem(model, final_time=1e-2, time_step=1e-3, method="ms", rho=0.6, tolerance=1e-8,
                               test="relnorm", keep_results=False)
    prob.run()
    x = prob.system.kinematics(prob.state).x
    assert prob.system.n == 12 * nn + 3
    fall = x[-1] - LENGTH / np.sqrt(2.0) * np.array([1.0, 0.0, -1.0])
    assert abs(fall[2] + 0.5 * 9.81 * 1e-2 ** 2) <= 1e-9
    assert np.abs(fall[:2]).max() <= 1e-14 * LENGTH          # round-off of 2.8 km coordinates
    assert np.abs(x[0]).max() <= 1e-12                 # the pinned top
