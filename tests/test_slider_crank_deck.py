"""cases/slider_crank.mbd (a deck written for mbdae: MBDM's kinematic slider-crank, E2) run
with the `mbdae` command reproduces the Python-API case `cases/mbdm_slider_crank.py
kinematic` and the closed-form slider motion; `mbdae plot` draws it."""
import os
import sys

import numpy as np
import pytest

from mbdae.cli import main

HERE = os.path.dirname(__file__)
DECK = os.path.join(HERE, "..", "cases", "slider_crank.mbd")
sys.path.insert(0, os.path.join(HERE, "..", "cases"))
import mbdm_slider_crank as sc  # noqa: E402


@pytest.fixture(scope="module")
def deck_run(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("sc") / "slider_crank")
    assert main(["run", DECK, "-o", prefix, "-q"]) == 0
    mov = np.loadtxt(prefix + ".mov")
    times = np.array([float(l.split()[2]) for l in open(prefix + ".out") if l.startswith("Step")])
    return prefix, times, {n: mov[mov[:, 0] == n] for n in (1, 2, 3)}


def test_deck_reproduces_the_python_case(deck_run):
    _, times, rows = deck_run
    r = sc.run("kinematic", time_step=1e-3)
    np.testing.assert_allclose(times, r.t, atol=1e-12)
    for node in (sc.CRANK, sc.ROD, sc.SLIDER):
        k = r.index(node)
        np.testing.assert_allclose(rows[node][:, 1:4], r.x[:, k], atol=1e-6)     # .mov: 6 digits
        np.testing.assert_allclose(rows[node][:, 7:10], r.v[:, k], atol=1e-5 * max(np.abs(r.v[:, k]).max(), 1))
        np.testing.assert_allclose(rows[node][:, 10:13], r.w[:, k], atol=1e-5 * max(np.abs(r.w[:, k]).max(), 1))


def test_deck_follows_the_closed_form(deck_run):
    _, times, rows = deck_run
    x, xd, _ = sc.slider_closed_form(times)
    slider = rows[sc.SLIDER]
    assert np.max(np.abs(slider[:, 1] - x)) < 1e-4 * np.max(np.abs(x))
    assert np.max(np.abs(slider[:, 7] - xd)) < 1e-4 * np.max(np.abs(xd))
    np.testing.assert_allclose(slider[:, 2:4], 0.0, atol=1e-9)                  # on the x axis
    crank_angle = np.unwrap(np.radians(rows[sc.CRANK][:, 6]))
    np.testing.assert_allclose(crank_angle, np.pi / 4 + 2 * np.pi * times, atol=1e-5)


def test_plot_of_the_deck_output(deck_run, tmp_path):
    pytest.importorskip("matplotlib")
    prefix, _, _ = deck_run
    out = tmp_path / "slider.png"
    assert main(["plot", prefix, "--node", "3", "--what", "x", "--out", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
