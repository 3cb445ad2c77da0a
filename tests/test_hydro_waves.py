"""Linear waves (engine/core/hydro_waves.py) against physics: the dispersion relation and its
deep and shallow limits, the spectra's m0 = Hs²/16 and peak at Tp, JONSWAP → Pierson–Moskowitz
at γ = 1 and DNV's A_γ, the sea-state discretizations (band energy, the documented repeat
period, seeded phases), and the Airy kinematics: continuity, irrotationality, the kinematic and
dynamic free-surface conditions and the bottom condition by finite differences."""
import math

import numba
import numpy as np
import pytest

from mbdae.engine.core import hydro_waves as hw
from mbdae.engine.errors import InputError

G = 9.81


def quad(f, x):
    return float(np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(x)))


# ---------------------------------------------------------------------------- dispersion
def test_dispersion_relation_holds_over_depths_and_frequencies():
    omega = np.linspace(0.01, 6.0, 400)
    for h in (0.5, 3.0, 20.0, 300.0):
        k = hw.wave_number(omega, h, G)
        assert np.max(np.abs(G * k * np.tanh(k * h) / omega ** 2 - 1.0)) < 1e-13


def test_dispersion_deep_and_shallow_limits():
    omega = np.array([1.0, 2.0, 4.0])
    k = hw.wave_number(omega, 200.0, G)                    # kh ≥ 20: tanh = 1 to 1e-17
    assert np.allclose(k, omega ** 2 / G, rtol=1e-14)
    assert np.array_equal(hw.wave_number(omega, math.inf, G), omega ** 2 / G)
    h = 0.2
    omega = np.array([0.05, 0.1, 0.2])                     # kh ≤ 0.03: c = sqrt(g h) (1 − (kh)²/6)
    k = hw.wave_number(omega, h, G)
    kh = k * h
    assert np.all(kh < 0.03)
    shallow = omega / math.sqrt(G * h)
    assert np.all(np.abs(k / shallow - 1.0) <= kh ** 2 / 6.0 * 1.01 + 1e-15)
    assert np.all(np.abs(k / shallow - 1.0) >= kh ** 2 / 6.0 * 0.99)


def test_bad_wave_inputs_are_named():
    with pytest.raises(InputError, match="water depth"):
        hw.wave_number([1.0], -2.0)
    with pytest.raises(InputError, match="significant wave height"):
        hw.irregular_sea("jonswap", 0.0, 8.0)
    with pytest.raises(InputError, match="unknown wave spectrum 'jonswep'"):
        hw.irregular_sea("jonswep", 2.0, 8.0)
    with pytest.raises(InputError, match="γ must be at least 1"):
        hw.jonswap([1.0], 2.0, 8.0, gamma=0.5)


# ---------------------------------------------------------------------------- spectra
def test_pierson_moskowitz_m0_peak_and_closed_form_cdf():
    hs, tp = 3.0, 9.0
    wp = 2 * math.pi / tp
    w = np.linspace(1e-3, 40 * wp, 400001)
    s = hw.pierson_moskowitz(w, hs, tp)
    assert quad(s, w) == pytest.approx(hs ** 2 / 16, rel=2e-6)          # tail beyond 40 ωp: 5e-8
    fine = np.linspace(0.9 * wp, 1.1 * wp, 20001)
    assert fine[np.argmax(hw.pierson_moskowitz(fine, hs, tp))] == pytest.approx(wp, abs=2e-5)
    x = 1.7 * wp                                                          # ∫₀ˣ S = m0 exp(−5/4 (ωp/x)⁴)
    part = np.linspace(1e-3, x, 200001)
    assert quad(hw.pierson_moskowitz(part, hs, tp), part) == pytest.approx(
        hs ** 2 / 16 * math.exp(-1.25 * (wp / x) ** 4), rel=1e-7)


@pytest.mark.parametrize("gamma", [1.5, 3.3, 6.0])
def test_jonswap_m0_peak_and_dnv_normalization(gamma):
    hs, tp = 2.5, 7.0
    wp = 2 * math.pi / tp
    w = np.linspace(1e-3, 40 * wp, 400001)
    assert quad(hw.jonswap(w, hs, tp, gamma), w) == pytest.approx(hs ** 2 / 16, rel=2e-6)
    fine = np.linspace(0.9 * wp, 1.1 * wp, 20001)
    assert fine[np.argmax(hw.jonswap(fine, hs, tp, gamma))] == pytest.approx(wp, abs=2e-5)
    # DNV-RP-C205 §3.5.5: A_γ ≈ 1 − 0.287 ln γ (an approximation, good to about 1 %)
    assert hw.jonswap_normalization(gamma) == pytest.approx(1 - 0.287 * math.log(gamma), rel=0.012)


def test_jonswap_is_pierson_moskowitz_at_gamma_one():
    w = np.linspace(0.05, 5.0, 1000)
    assert np.array_equal(hw.jonswap(w, 2.0, 8.0, gamma=1.0), hw.pierson_moskowitz(w, 2.0, 8.0))


# ---------------------------------------------------------------------------- sea states
def test_regular_wave_is_one_component():
    wave = hw.regular_wave(6.0, 6.8966, heading=0.3, water_depth=50.0)
    assert wave.amplitude.tolist() == [3.0]
    assert wave.omega[0] == pytest.approx(2 * math.pi / 6.8966)
    assert hw.elevation(wave, 0.0, 0.0, 0.0) == pytest.approx(3.0)
    assert wave.wavenumber[0] == pytest.approx(hw.wave_number(wave.omega, 50.0)[0])


def test_equal_energy_sea_holds_the_band_energy_exactly():
    hs, tp = 4.0, 10.0
    wp = 2 * math.pi / tp
    sea = hw.irregular_sea("pm", hs, tp, n_components=120, seed=3)
    m0 = np.sum(sea.amplitude ** 2) / 2
    band = hs ** 2 / 16 * (math.exp(-1.25 / 5 ** 4) - math.exp(-1.25 / 0.5 ** 4))   # the PM CDF at 5 ωp and ωp/2
    assert m0 == pytest.approx(band, rel=1e-6)
    assert sea.omega.min() > 0.5 * wp and sea.omega.max() < 5 * wp
    assert np.all(np.diff(sea.omega) > 0)


def test_equal_spacing_sea_m0_to_the_discretization():
    sea = hw.irregular_sea("jonswap", 2.0, 8.0, n_components=300, spacing="equal", seed=1,
                           omega_min=0.2, omega_max=4.0)
    w = np.linspace(0.2, 4.0, 200001)
    band = quad(hw.jonswap(w, 2.0, 8.0), w)
    assert np.sum(sea.amplitude ** 2) / 2 == pytest.approx(band, rel=2e-4)
    assert band == pytest.approx(2.0 ** 2 / 16, rel=0.01)


def test_equal_spacing_record_repeats_after_two_pi_over_delta_omega():
    n, w1 = 100, 2.01
    w0 = w1 / (2 * n + 1)                       # ω_k = (k + 1) Δω: commensurate, period 2π/Δω
    sea = hw.irregular_sea("jonswap", 2.0, 8.0, n_components=n, spacing="equal", seed=5,
                           omega_min=w0, omega_max=w1)
    dw = (w1 - w0) / n
    t = np.linspace(0.0, 40.0, 81)
    period = 2 * math.pi / dw
    assert np.allclose(hw.elevation(sea, 3.0, -1.0, t + period), hw.elevation(sea, 3.0, -1.0, t), atol=1e-9)
    assert not np.allclose(hw.elevation(sea, 3.0, -1.0, t + 0.5 * period), hw.elevation(sea, 3.0, -1.0, t), atol=1e-3)


def test_seeded_phases_repeat_and_differ():
    a = hw.irregular_sea("jonswap", 2.0, 8.0, seed=42)
    b = hw.irregular_sea("jonswap", 2.0, 8.0, seed=42)
    c = hw.irregular_sea("jonswap", 2.0, 8.0, seed=43)
    assert np.array_equal(a.phase, b.phase)
    assert not np.allclose(a.phase, c.phase)
    assert np.all((a.phase >= 0) & (a.phase < 2 * math.pi))
    assert np.array_equal(a.omega, c.omega)


# ---------------------------------------------------------------------------- kinematics
SEAS = {"finite": dict(water_depth=12.0), "deep": dict(water_depth=math.inf)}


@pytest.fixture(params=sorted(SEAS))
def sea(request):
    return hw.irregular_sea("jonswap", 1.5, 6.0, heading=math.radians(30), n_components=25, seed=7,
                            omega_min=0.6, omega_max=2.5, **SEAS[request.param])


def velocity(sea, p, t):
    return hw.kinematics(sea, np.atleast_2d(p), t)[0][0]


def test_airy_continuity_and_irrotationality(sea):
    e = 1e-4
    for p in ([1.0, 2.0, -1.5], [-3.0, 0.5, -6.0]):
        p = np.array(p)
        J = np.column_stack([(velocity(sea, p + e * d, 0.7) - velocity(sea, p - e * d, 0.7)) / (2 * e)
                             for d in np.eye(3)])                          # J[i, j] = ∂u_i/∂x_j
        scale = np.max(np.abs(J))
        assert abs(np.trace(J)) < 1e-6 * scale                              # ∇·u = 0
        assert np.max(np.abs(J - J.T)) < 1e-6 * scale                       # ∇×u = 0


def test_airy_free_surface_and_bottom_conditions(sea):
    e = 1e-5
    cb, sb = math.cos(sea.heading), math.sin(sea.heading)
    x, y = 2.0, -1.0
    checked = 0
    # kinematic: ∂η/∂t = w at z = 0 (at the times the mean level is under water, η ≥ 0)
    for t in np.linspace(0.0, 6.0, 13):
        vel, acc, eta = hw.kinematics(sea, [[x, y, 0.0]], t)
        if eta[0] < 0.0:
            continue
        checked += 1
        deta_dt = (hw.elevation(sea, x, y, t + e) - hw.elevation(sea, x, y, t - e)) / (2 * e)
        assert vel[0, 2] == pytest.approx(deta_dt, rel=1e-6, abs=1e-9)
        # dynamic (its horizontal gradient): ∂u_h/∂t + g ∂η/∂x' = 0 at z = 0
        deta_dx = (hw.elevation(sea, x + e * cb, y + e * sb, t) - hw.elevation(sea, x - e * cb, y - e * sb, t)) / (2 * e)
        a_h = acc[0, 0] * cb + acc[0, 1] * sb
        assert a_h + sea.g * deta_dx == pytest.approx(0.0, abs=1e-6 * sea.g * abs(deta_dx) + 1e-9)
    assert checked >= 3
    if math.isfinite(sea.water_depth):
        vel = hw.kinematics(sea, [[x, y, -sea.water_depth]], 0.4)[0]
        assert abs(vel[0, 2]) < 1e-12                                        # w = 0 on the bottom
        assert abs(vel[0, 0]) > 1e-3


def test_airy_acceleration_is_the_time_derivative_of_velocity(sea):
    e = 1e-5
    p = [[0.5, 1.5, -2.0]]
    for t in (0.0, 2.2, 5.1):
        acc = hw.kinematics(sea, p, t)[1][0]
        fd = (hw.kinematics(sea, p, t + e)[0][0] - hw.kinematics(sea, p, t - e)[0][0]) / (2 * e)
        assert np.allclose(acc, fd, rtol=1e-6, atol=1e-9)


def test_kinematics_above_the_mean_level_and_the_surface():
    wave = hw.regular_wave(2.0, 7.0)
    vel, acc, eta = hw.kinematics(wave, [[0, 0, 0.5], [0, 0, 0.0], [0, 0, 1.5]], 0.0)   # crest η = 1
    assert np.array_equal(vel[0], vel[1]) and np.array_equal(acc[0], acc[1])          # z ∈ (0, η]: as at z = 0
    assert vel[1, 0] == pytest.approx(wave.omega[0] * 1.0)                              # u = aω at the crest
    assert np.all(vel[2] == 0) and np.all(acc[2] == 0)                                  # above the surface


def test_the_sums_compile_inside_another_kernel():
    """The family kernels call elevation_at / kinematics_at from their own compiled code."""
    @numba.njit
    def family_like(omega, k, amp, phase, cb, sb, depth, pts, t):
        v = np.empty(3)
        a = np.empty(3)
        total = 0.0
        for p in range(pts.shape[0]):
            total += hw.kinematics_at(omega, k, amp, phase, cb, sb, depth, pts[p, 0], pts[p, 1], pts[p, 2], t, v, a)
            total += v[0] + a[2]
        return total
    sea = hw.irregular_sea("pm", 1.0, 5.0, n_components=10, seed=0, water_depth=30.0)
    pts = np.array([[0.0, 0.0, -1.0], [4.0, 1.0, -3.0]])
    vel, acc, eta = hw.kinematics(sea, pts, 2.0)
    expected = float(np.sum(eta) + np.sum(vel[:, 0]) + np.sum(acc[:, 2]))
    got = family_like(sea.omega, sea.wavenumber, sea.amplitude, sea.phase, math.cos(sea.heading),
                      math.sin(sea.heading), sea.water_depth, pts, 2.0)
    assert got == pytest.approx(expected, rel=1e-14)
