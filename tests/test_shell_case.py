"""cases/flexible/shell_pendulum.py: a strip of shells on a hub in a revolute pin, released
under gravity, against the same strip of beam3 elements (ν = 0: the plate's and the beam's
bending stiffness coincide; the same station masses).  The hub's swing agrees to 0.01°, and
the strip's flexible tip deflection (a few mm, the 4.2 Hz bending mode excited by the swing)
agrees to the discretization error, which falls as the stations are doubled."""
import os
import sys

import numpy as np

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "cases", "flexible"))

import shell_pendulum as case     # noqa: E402


def difference(nx, final_time):
    shell, tip_s = case.shell_model(nx)
    beam, tip_b = case.beam_model(nx)
    _, a_s, d_s = case.swing(case.run(shell, final_time), tip_s)
    _, a_b, d_b = case.swing(case.run(beam, final_time), tip_b)
    return np.abs(a_s - a_b).max(), np.abs(d_s - d_b).max(), np.abs(d_b).max(), a_b[-1]


def test_shell_strip_pendulum_follows_the_beam_model():
    final_time = 0.3
    coarse = difference(10, final_time)
    fine = difference(20, final_time)
    print(f"\nnx = 10: hub angle difference {np.degrees(coarse[0]):.4f} deg, tip deflection difference "
          f"{1e3 * coarse[1]:.3f} mm of {1e3 * coarse[2]:.2f} mm")
    print(f"nx = 20: hub angle difference {np.degrees(fine[0]):.4f} deg, tip deflection difference "
          f"{1e3 * fine[1]:.3f} mm of {1e3 * fine[2]:.2f} mm")
    assert np.degrees(coarse[0]) < 0.02 and np.degrees(fine[0]) < 0.02
    assert coarse[2] > 2e-3                                # the strip does bend (mm)
    assert coarse[1] < 0.1 * coarse[2]
    assert fine[1] < 0.5 * coarse[1]                       # the two models converge to each other
    assert 0.5 < fine[3] < 0.8                             # it swings (rad at 0.3 s)
