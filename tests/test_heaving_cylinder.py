"""The heaving vertical cylinder (cases/marine/heaving_cylinder.py: radius 5 m, draft 10 m, BEM
data shipped in cases/marine/data/cylinder.nc): mbdae's time-domain Cummins model against the
frequency-domain heave RAO of the same data, the free decay against the natural period the
frequency-domain model predicts, and the shipped data against a fresh Capytaine run."""
import importlib.util
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cases", "marine"))
import heaving_cylinder as hc  # noqa: E402
from mbdae.engine.core.hydro_files import compute_hydro_data  # noqa: E402

AMPLITUDE = 0.05        # m: heave ≤ 0.23 m, pitch ≤ 1 deg (linear regime)
STEP, DURATION = 0.05, 200.0
OMEGAS = [0.45, 0.6, 0.8, 0.9, 1.0, 1.25]      # periods 13.96 … 5.03 s, grid points of the data


@pytest.fixture(scope="module")
def data():
    return hc.load_data()


def _steady_heave(data, radiation, omega, step=STEP):
    """Complex heave amplitude per metre of wave amplitude (TD), with the free decaying mode of
    the frequency-domain natural frequency fitted out of the last 5 periods."""
    w0, zeta = hc.natural_frequency(data)
    t, z = hc.simulate(data, radiation, omega=omega, amplitude=AMPLITUDE, final_time=DURATION, time_step=step)
    return hc.harmonic(t, z, omega, 5, free=(zeta * w0, w0 * math.sqrt(1.0 - zeta ** 2))) / AMPLITUDE


def _check_sweep(data, radiation, omegas, tol=0.01):
    for w in omegas:
        Z, X = _steady_heave(data, radiation, w), hc.heave_rao(data, w)
        assert abs(abs(Z) / abs(X) - 1.0) < tol, (w, abs(Z), abs(X))
        assert abs(np.angle(Z / X)) < tol, (w, math.degrees(np.angle(Z)), math.degrees(np.angle(X)))


def test_shipped_data_are_the_cylinder(data):
    """The file is the stated hull: V = πa²d and C₃₃ = ρgπa² within 1 % (the mesh's 32-sided
    section has 0.64 % less area), the centre of buoyancy at −d/2, and the heave excitation
    → C₃₃ as ω → 0 (long waves)."""
    V = math.pi * hc.RADIUS ** 2 * hc.DRAFT
    assert data.n_bodies == 1 and len(data.omega) == 60
    assert abs(data.displaced_volume[0] / V - 1.0) < 0.01
    assert abs(data.centre_of_buoyancy[0, 2] + hc.DRAFT / 2) < 0.01
    C33 = data.rho * data.g * math.pi * hc.RADIUS ** 2
    assert abs(data.hydrostatic_stiffness[2, 2] / C33 - 1.0) < 0.01
    assert abs(abs(data.excitation[0, 0, 2]) / data.hydrostatic_stiffness[2, 2] - 1.0) < 0.01


def test_regular_waves_match_frequency_domain_state_space(data):
    """Steady heave amplitude and phase in regular waves (T = 5.0 … 14.0 s, through the heave
    resonance at 7.2 s) equal X = F_ex / (−ω²(M + A(ω)) + iωB(ω) + C) within 1 % and 0.01 rad,
    with the state-space radiation fitted at the default tolerance 0.01 (39 states)."""
    ss = hc.radiation_model(data, "state-space", tolerance=0.01)
    assert ss.fit_error[2, 2] <= 0.01
    _check_sweep(data, ss, OMEGAS)


def test_the_radiation_memory_matters(data):
    """The same run with the memory off (A∞ only, no radiation damping) misses the resonance
    by far: the test above can fail."""
    Z, X = _steady_heave(data, "off", 0.8), hc.heave_rao(data, 0.8)
    assert abs(abs(Z) / abs(X) - 1.0) > 0.05


def test_decay_period(data):
    """Released 0.1 m above equilibrium in still water: the mean period of the upward zero
    crossings over 150 s (20 periods) equals 2π/(ω₀√(1 − ζ²)), ω₀ solving C − ω²(M + A(ω)) = 0,
    within 0.2 % (the added mass moves it from 2π√(M/C) = 6.34 s to 7.21 s)."""
    w0, zeta = hc.natural_frequency(data)
    T_fd = 2.0 * math.pi / (w0 * math.sqrt(1.0 - zeta ** 2))
    assert 7.0 < T_fd < 7.5
    ss = hc.radiation_model(data, "state-space", tolerance=0.01)
    t, z = hc.simulate(data, ss, heave0=0.1, final_time=150.0, time_step=STEP)
    T_td, n = hc.zero_crossing_period(t, z)
    assert n >= 20
    assert abs(T_td / T_fd - 1.0) < 0.002, (T_td, T_fd)
    # the envelope decays at the rate ζω₀ of the frequency-domain model (within 10 %)
    peaks = [np.max(z[(t >= k * T_fd) & (t < (k + 1) * T_fd)]) for k in range(1, 19)]
    rate = -np.polyfit(np.arange(1, 19) * T_fd, np.log(peaks), 1)[0]
    assert abs(rate / (zeta * w0) - 1.0) < 0.1, (rate, zeta * w0)


@pytest.mark.slow
def test_regular_waves_match_frequency_domain_convolution_and_tight_fit(data):
    """The convolution alternative and a tighter state-space fit (tolerance 0.002) over the sweep."""
    _check_sweep(data, hc.radiation_model(data, "convolution", dt=STEP), OMEGAS)
    _check_sweep(data, hc.radiation_model(data, "state-space", tolerance=0.002), OMEGAS)


HAVE_CAPYTAINE = importlib.util.find_spec("capytaine") is not None


def _compare(fresh, data, index):
    for name in ("added_mass", "radiation_damping", "excitation"):
        a, b = getattr(fresh, name), getattr(data, name)
        b = b[:, index] if name == "excitation" else b[index]
        scale = np.abs(b).max()
        assert np.abs(a - b).max() <= 1e-6 * scale, name
    assert np.allclose(fresh.added_mass_infinite, data.added_mass_infinite, rtol=0, atol=1e-6 * np.abs(data.added_mass_infinite).max())
    assert np.allclose(fresh.hydrostatic_stiffness, data.hydrostatic_stiffness, rtol=1e-9, atol=1e-6)


@pytest.mark.skipif(not HAVE_CAPYTAINE, reason="Capytaine (mbdae[hydro]) is not installed")
def test_capytaine_reproduces_shipped_data_at_some_frequencies(data):
    """Capytaine on the same mesh at 3 of the file's frequencies gives its coefficients to 1e-6."""
    index = np.array([8, 17, 29])
    fresh = compute_hydro_data([{"shape": "cylinder", "radius": hc.RADIUS, "draft": hc.DRAFT, "panel_size": hc.PANEL,
                                 "name": "cylinder"}], omegas=hc.OMEGAS[index], headings=[0.0], rho=hc.RHO,
                               g=hc.G, cache=False)
    _compare(fresh, data, index)


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_CAPYTAINE, reason="Capytaine (mbdae[hydro]) is not installed")
def test_make_data_reproduces_shipped_file(data, tmp_path):
    """`--make-data` (make_data) regenerates the whole file to 1e-6 of each coefficient's scale."""
    fresh = hc.make_data(tmp_path / "cylinder.nc")
    _compare(fresh, data, np.arange(len(data.omega)))
