"""cases/slider_crank_dynamic.mbd (MBDM's dynamic slider-crank E3 as a deck written for mbdae,
the README's flagship) run with the `mbdae` command: slider position, velocity and crank
speed within 0.5 % of the E3 reference table (an independent 1-DOF Lagrangian solution),
the gas force written from a string drive that reads the slider's state."""
import os
import sys

import numpy as np
import pytest

from mbdae.cli import main

HERE = os.path.dirname(__file__)
DECK = os.path.join(HERE, "..", "cases", "slider_crank_dynamic.mbd")
sys.path.insert(0, HERE)
from test_mbdm_files import E3_REFERENCE  # noqa: E402


@pytest.fixture(scope="module")
def deck_run(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("scd") / "slider_crank")
    assert main(["run", DECK, "-o", prefix, "-q"]) == 0
    mov = np.loadtxt(prefix + ".mov")
    times = np.array([float(l.split()[2]) for l in open(prefix + ".out") if l.startswith("Step")])
    return prefix, times, {n: mov[mov[:, 0] == n] for n in (1, 2, 3)}


def test_dynamic_deck_matches_the_reference_table(deck_run):
    _, times, rows = deck_run
    for t, x, xd, w in E3_REFERENCE:
        k = int(np.argmin(np.abs(times - t)))
        assert abs(times[k] - t) < 1e-9
        got = np.array([rows[3][k, 1], rows[3][k, 7], rows[1][k, 12]])
        ref = np.array([x, xd, w])
        assert np.all(np.abs(got - ref) <= 5e-3 * np.abs(ref)), (t, got, ref)


def test_gas_force_acts_only_while_the_slider_moves_outward(deck_run):
    prefix, times, rows = deck_run
    gas = np.array([[float(v) for v in line.split()] for line in open(prefix + ".frc")
                    if line.split()[0] == "11"])
    assert len(gas) == len(times)
    fx = gas[:, 2]
    xs, vs = rows[3][:, 1], rows[3][:, 7]
    # the force of a step is computed from that step's state
    inward = vs < -1e-3
    assert np.all(np.abs(fx[inward]) == 0.0)
    outward = (vs > 1e-3) & (xs > 1.6) & (xs < 4.9)
    expected = -282857.0 / (6.0 - xs[outward]) + 62857.0
    np.testing.assert_allclose(fx[outward], expected, rtol=1e-5, atol=1e-2)
