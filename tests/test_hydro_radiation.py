"""The radiation memory (engine/core/hydro_radiation.py): the Cummins kernel against a closed
form, Ogilvie's relation (Kramers–Kronig) back to A(ω) − A∞, the state-space realization's
poles, frequency response, impulse response and stability — on a kernel known in closed form
and on Capytaine's coefficients of a floating vertical cylinder (skipped without Capytaine)."""

import numpy as np
import pytest

from mbdae.engine.core import hydro_radiation as hr
from mbdae.engine.core.hydro_data import HydroData
from mbdae.engine.core.hydro_files import compute_hydro_data

# A kernel known in closed form: K(t) = Σ 2Re(c e^{pt}) over two pole pairs plus one real pole,
# the real residue chosen so that ∫K dt = K̂(0) = 0 (B(0) = 0, as for a 3-D body).
PAIRS = [(-0.4 + 1.1j, 3.0 - 0.5j), (-0.9 + 2.5j, 1.2 + 0.8j)]
REAL_POLE = -1.5
REAL_RESIDUE = REAL_POLE * sum(2 * (c / (-p)).real for p, c in PAIRS)     # c_r/(−p_r) = −Σ 2Re(c/(−p))
TAIL = "omega^-2"           # the closed form's B decays as −K'(0)/ω² beyond the data (K'(0) ≠ 0)
POLES = sorted([p for p, _ in PAIRS] + [np.conj(p) for p, _ in PAIRS] + [REAL_POLE], key=lambda z: (z.real, z.imag))


def k_closed(t):
    t = np.asarray(t, dtype=float)
    return sum(2 * (c * np.exp(p * t)).real for p, c in PAIRS) + REAL_RESIDUE * np.exp(REAL_POLE * t)


def khat_closed(omega):
    s = 1j * np.asarray(omega, dtype=float)
    return sum(c / (s - p) + np.conj(c) / (s - np.conj(p)) for p, c in PAIRS) + REAL_RESIDUE / (s - REAL_POLE)


def synthetic(n_bodies=1, coupling=0.0):
    """HydroData whose heave (and surge, pitch scaled) follow the closed form; with two bodies
    the heave–heave interaction entry is `coupling` times the closed form."""
    omega = np.linspace(0.05, 12.0, 240)
    H = khat_closed(omega)
    n = 6 * n_bodies
    A = np.zeros((len(omega), n, n))
    B = np.zeros((len(omega), n, n))
    A_inf = np.diag(np.tile([100.0, 100.0, 5e4, 10.0, 10.0, 10.0], n_bodies))
    scales = {0: 10.0, 2: 1e4, 4: 1.0}
    for b in range(n_bodies):
        for d, sc in scales.items():
            i = 6 * b + d
            B[:, i, i] = sc * H.real
            A[:, i, i] = sc * H.imag / omega + A_inf[i, i]
    if n_bodies == 2 and coupling:
        for i, j in ((2, 8), (8, 2)):
            B[:, i, j] = coupling * 1e4 * H.real
            A[:, i, j] = coupling * 1e4 * H.imag / omega
    return HydroData(omega=omega, added_mass=A, radiation_damping=B, added_mass_infinite=A_inf,
                     hydrostatic_stiffness=np.zeros((n, n)), headings=np.array([0.0]),
                     excitation=np.zeros((1, len(omega), n), complex),
                     reference_points=np.zeros((n_bodies, 3))).check()


@pytest.fixture(scope="module")
def closed():
    return synthetic()


def test_kernel_matches_the_closed_form(closed):
    kernel = hr.impulse_response(closed, 0.05, tail=TAIL)
    t = kernel.dt * np.arange(len(kernel.K))
    exact = k_closed(t)
    assert np.max(np.abs(kernel.K[:, 2, 2] / 1e4 - exact)) < 5e-3 * np.max(np.abs(exact))
    assert 10.0 < t[-1] < 40.0                                       # K has died out (e^{−0.4 t} < 1e-3)
    assert np.all(kernel.K[:, 5, 5] == 0) and np.all(kernel.K[:, 2, 4] == 0)


def test_kramers_kronig_recovers_the_added_mass(closed):
    kernel = hr.impulse_response(closed, 0.02, tail=TAIL)
    recovered = hr.added_mass_from_kernel(kernel, closed.omega)[:, 2, 2]
    expected = closed.added_mass[:, 2, 2] - closed.added_mass_infinite[2, 2]
    assert np.max(np.abs(recovered - expected)) < 6e-3 * np.max(np.abs(expected))
    estimate = hr.added_mass_infinite_estimate(closed.omega, closed.added_mass, closed.radiation_damping, tail=TAIL)
    assert estimate[2, 2] == pytest.approx(5e4, rel=1e-4)


@pytest.mark.parametrize("residues", ["frequency", "impulse"])
def test_realization_finds_the_poles_and_reproduces_the_data(closed, residues):
    ss = hr.fit_radiation_state_space(closed, tolerance=2e-3, residues=residues, tail=TAIL)
    assert ss.orders[2, 2] == 5 and ss.fit_error[2, 2] <= 2e-3
    assert ss.orders[5, 5] == 0 and ss.orders[2, 4] == 0                # zero entries stay zero
    poles = np.linalg.eigvals(ss.A)
    assert np.max(poles.real) < 0
    assert len(poles) == 15
    for p in POLES:                                   # each true pole, once in each of the 3 entries
        assert np.sum(np.abs(poles - p) < 2e-2 * abs(p)) == 3
    da, b = hr.state_space_frequency_response(ss, closed.omega)
    H = khat_closed(closed.omega)
    assert np.max(np.abs(b[:, 2, 2] / 1e4 - H.real)) < 5e-3 * np.max(np.abs(H.real))
    assert np.max(np.abs(da[:, 2, 2] / 1e4 - H.imag / closed.omega)) < 5e-3 * np.max(np.abs(H.imag / closed.omega))
    t = np.linspace(0, 20, 401)
    assert np.max(np.abs(hr.state_space_impulse_response(ss, t)[:, 2, 2] / 1e4 - k_closed(t))) < 5e-3 * abs(k_closed(0)[()])


def test_the_tolerance_sets_the_order(closed):
    coarse = hr.fit_radiation_state_space(closed, tolerance=0.3, tail=TAIL)
    fine = hr.fit_radiation_state_space(closed, tolerance=1e-3, tail=TAIL)
    assert coarse.orders[2, 2] < fine.orders[2, 2]
    assert coarse.fit_error[2, 2] <= 0.3 and fine.fit_error[2, 2] <= 1e-3
    assert coarse.A.shape[0] < fine.A.shape[0]


def test_couple_bodies_keeps_or_drops_the_interaction():
    data = synthetic(n_bodies=2, coupling=0.3)
    coupled = hr.fit_radiation_state_space(data, tolerance=5e-3, tail=TAIL)
    apart = hr.fit_radiation_state_space(data, tolerance=5e-3, couple_bodies=False, tail=TAIL)
    assert coupled.orders[2, 8] == coupled.orders[8, 2] == 5
    assert apart.orders[2, 8] == apart.orders[8, 2] == 0
    assert apart.A.shape[0] == coupled.A.shape[0] - 10
    _, b = hr.state_space_frequency_response(coupled, data.omega)
    assert np.allclose(b[:, 2, 8], data.radiation_damping[:, 2, 8], atol=5e-3 * np.max(data.radiation_damping[:, 2, 8]))
    _, b = hr.state_space_frequency_response(apart, data.omega)
    assert np.all(b[:, 2, 8] == 0) and np.all(b[:, 8, 2] == 0)


def test_noisy_data_still_give_a_stable_realization(closed):
    rng = np.random.default_rng(11)
    noisy = HydroData(**{**closed.__dict__, "radiation_damping":
                         closed.radiation_damping * (1 + 0.03 * rng.standard_normal(closed.radiation_damping.shape))})
    for residues in ("frequency", "impulse"):
        ss = hr.fit_radiation_state_space(noisy, tolerance=1e-4, max_order=16, residues=residues, tail=TAIL)
        assert np.max(np.linalg.eigvals(ss.A).real) < 0                 # left half plane, whatever the order


# ---------------------------------------------------------------------------- Capytaine data
@pytest.fixture(scope="module")
def cylinder(tmp_path_factory):
    pytest.importorskip("capytaine")
    return compute_hydro_data([{"shape": "cylinder", "radius": 1.0, "draft": 2.0, "panel_size": 0.4}],
                              np.linspace(0.2, 5.0, 21), headings=[0.0], rho=1025.0, g=9.81,
                              cache=tmp_path_factory.mktemp("hydro-cache"))


ENTRIES = [(0, 0), (2, 2), (4, 4), (0, 4)]                                  # surge, heave, pitch, surge–pitch


def test_kramers_kronig_on_bem_data(cylinder):
    """Ogilvie's relation from K (built from B alone) gives Capytaine's own A(ω) − A∞ within 8 %
    of its range at every frequency, 3.5 % in the median (the data end at 5 rad/s; the ω⁻³ tail
    beyond is the kernel's assumption)."""
    kernel = hr.impulse_response(cylinder, 0.02)
    recovered = hr.added_mass_from_kernel(kernel, cylinder.omega)
    for i, j in ENTRIES:
        bem = cylinder.added_mass[:, i, j] - cylinder.added_mass_infinite[i, j]
        err = np.abs(recovered[:, i, j] - bem) / np.max(np.abs(bem))
        assert err.max() < 0.08 and np.median(err) < 0.035, (i, j, err.max(), np.median(err))


def test_state_space_reproduces_the_bem_transfer_function(cylinder):
    ss = hr.fit_radiation_state_space(cylinder)
    assert np.max(np.linalg.eigvals(ss.A).real) < 0
    da, b = hr.state_space_frequency_response(ss, cylinder.omega)
    w = cylinder.omega
    for i, j in ENTRIES:
        assert 0 < ss.orders[i, j] <= 12 and ss.fit_error[i, j] <= 0.01
        bem = cylinder.radiation_damping[:, i, j] + 1j * w * (cylinder.added_mass[:, i, j] - cylinder.added_mass_infinite[i, j])
        fit = b[:, i, j] + 1j * w * da[:, i, j]
        assert np.max(np.abs(fit - bem)) < 0.025 * np.max(np.abs(bem)), (i, j)
        assert np.max(np.abs(b[:, i, j] - bem.real)) < 0.02 * np.max(np.abs(bem.real)), (i, j)
    assert ss.orders[5, 5] == 0                                              # a body of revolution: no yaw radiation


def test_impulse_fit_reproduces_the_kernel(cylinder):
    ss = hr.fit_radiation_state_space(cylinder, residues="impulse")
    assert np.max(np.linalg.eigvals(ss.A).real) < 0
    t = np.arange(0.0, 20.0, 0.02)
    K = hr.kernel_samples(cylinder.omega, cylinder.radiation_damping, t)
    Kfit = hr.state_space_impulse_response(ss, t)
    for i, j in ENTRIES:
        assert np.linalg.norm(Kfit[:, i, j] - K[:, i, j]) < 0.02 * np.linalg.norm(K[:, i, j]), (i, j)
