"""MBDM's 2-D slider-crank (seed 000 E2, spec/seed-systems-digest.md §1.4) built with the Python API
and run dynamically (E3 and E2 from MBDM's own files: tests/test_mbdm_files.py)."""
import os
import sys
import numpy as np

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "cases"))
import mbdm_slider_crank as sc  # noqa: E402


def test_kinematic_slider_crank_closed_form():
    """E2: crank driven at 2π rad/s through a drive hinge; slider x, ẋ, ẍ within 1e-4 of the
    closed form (the initial assembly corrects MBDM's rounded initial estimates)."""
    r = sc.run("kinematic", time_step=1e-3)
    i = r.index(sc.SLIDER)
    x, xd, xdd = sc.slider_closed_form(r.t)
    assert np.max(np.abs(r.x[:, i, 0] - x)) < 1e-4 * np.max(np.abs(x))
    assert np.max(np.abs(r.v[:, i, 0] - xd)) < 1e-4 * np.max(np.abs(xd))
    # accelerations: the first (Crank-Nicolson) step leaves the O(h²) velocity error of the
    # index-3 formulation divided by h in the accelerations; ms damps it by ρ∞ per step
    settled = r.t >= 0.05
    assert np.max(np.abs(r.a[settled, i, 0] - xdd[settled])) < 1e-4 * np.max(np.abs(xdd))
    assert np.max(np.abs(r.a[:, i, 0] - xdd)) < 1e-2 * np.max(np.abs(xdd))
    # and at t = 0 (after assembly and derivatives) the state is already consistent
    x0, xd0, xdd0 = sc.slider_closed_form(np.array([0.0]))
    assert abs(r.x[0, i, 0] - x0[0]) < 1e-8
    assert abs(r.v[0, i, 0] - xd0[0]) < 1e-6 * abs(xd0[0])
    assert abs(r.a[0, i, 0] - xdd0[0]) < 1e-4 * abs(xdd0[0])
    # the rod stays on the line y = 0 through the slider and 3.5 m long
    rod = r.index(sc.ROD)
    crank = r.index(sc.CRANK)
    pin_crank = r.x[:, crank] + np.einsum('kij,j->ki', r.R[:, crank], [2.0, 0, 0])
    end_rod = r.x[:, rod] + np.einsum('kij,j->ki', r.R[:, rod], [1.75, 0, 0])
    start_rod = r.x[:, rod] + np.einsum('kij,j->ki', r.R[:, rod], [-1.75, 0, 0])
    assert np.allclose(start_rod, pin_crank, atol=1e-9)
    assert np.allclose(end_rod[:, :2], r.x[:, i, :2], atol=1e-9)
