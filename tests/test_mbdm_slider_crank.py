"""MBDM's 2-D slider-crank (seed 000 E2/E3, spec/seed-systems-digest.md §1.4)."""
import os
import sys
import numpy as np
import pytest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "cases"))
import mbdm_slider_crank as sc  # noqa: E402

SHARED = os.path.join(HERE, "..", "..", "shared", "mbdm-examples")

# digest §1.4 E3 reference table: independent 1-DOF Lagrangian model (RK4, dt = 1e-4),
# which agrees with MBDM's own result file to about 4 digits
E3_REFERENCE = np.array([
    # t,   x3,     x3dot,   omega_crank
    [0.1, 5.2281, 22.466, 17.8754],
    [0.2, 2.9581, -43.642, 21.2165],
    [0.3, 2.1882, 40.621, 30.1084],
    [0.4, 5.3591, -18.548, 20.1062],
    [0.5, 1.7207, -18.444, 27.2827],
    [0.6, 4.2887, 54.821, 24.6165],
    [0.7, 4.0491, -44.514, 19.3536],
    [0.8, 1.5775, 11.672, 30.8738],
    [0.9, 5.4528, 10.081, 18.6280],
    [1.0, 2.3976, -36.982, 23.3212],
])


@pytest.fixture(scope="module")
def dynamic_run():
    return sc.run("dynamic", time_step=2.5e-4)


def _at(r, t):
    k = int(np.argmin(np.abs(r.t - t)))
    assert abs(r.t[k] - t) < 1e-9
    return k


def test_dynamic_slider_crank_matches_reference_table(dynamic_run):
    r = dynamic_run
    i, c = r.index(sc.SLIDER), r.index(sc.CRANK)
    for t, x, xd, w in E3_REFERENCE:
        k = _at(r, t)
        got = np.array([r.x[k, i, 0], r.v[k, i, 0], r.w[k, c, 2]])
        ref = np.array([x, xd, w])
        assert np.all(np.abs(got - ref) <= 5e-3 * np.abs(ref)), (t, got, ref)


@pytest.mark.skipif(not os.path.isdir(SHARED), reason="../shared/mbdm-examples is not present")
def test_dynamic_slider_crank_matches_mbdm_result_file(dynamic_run):
    """MBDM's own output (3D_PLANAR_results.dat: t, x3, ẋ3, ω) within 0.5 % of the range."""
    data = np.loadtxt(os.path.join(SHARED, "02_Slider_Crank_2D_Dynamic", "3D_PLANAR_results.dat"))
    r = dynamic_run
    i, c = r.index(sc.SLIDER), r.index(sc.CRANK)
    sel = data[(data[:, 0] <= 1.0)][::50]
    x = np.interp(sel[:, 0], r.t, r.x[:, i, 0])
    xd = np.interp(sel[:, 0], r.t, r.v[:, i, 0])
    w = np.interp(sel[:, 0], r.t, r.w[:, c, 2])
    for got, ref in ((x, sel[:, 1]), (xd, sel[:, 2]), (w, sel[:, 3])):
        span = np.ptp(ref)
        assert np.max(np.abs(got - ref)) < 5e-3 * span


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
