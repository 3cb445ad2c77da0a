"""Hydrodynamic bodies (elements/hydro_body.py) against closed forms of linear seakeeping,
conservation laws and finite differences, on hand-made HydroData of a floating vertical
cylinder (hydrostatics from its geometry; added mass, damping, excitation chosen):

- the equilibrium is at rest; small heave, roll and pitch oscillate at √(C_total/(M + A)),
  C_total = ρg(I_wp + V z_B) − m g z_G (roll and pitch with the sway/surge coupling of the
  free body's inertia: the closed form of the 2-dof linear system);
- heave in a regular wave with constant added mass and damping: the steady state equals
  X a/(−ω²(M + A) + iωB + C) in amplitude and phase; the free decay has the damped period;
- a 2nd-order radiation state space against the convolution with its exact kernel
  K(t) = C e^{At} B, and the convolution's history (ring buffer over steps of any size)
  against the exact integral of a known velocity history;
- two bodies coupled only by off-diagonal A∞ and C blocks against the 2-dof modal solution;
- quadratic drag: v(t) = v₀/(1 + k v₀ t/(m + A));
- energy ½ν(M + A∞)ν + hydrostatic potential conserved with restoring and added mass only,
  never gained with radiation;
- the `.hyd` output against the formulas of each component, the nodes' accelerations with
  the added mass, the deck card and bad input named."""
import math

import numpy as np
import pytest
from scipy.linalg import expm, eigh
from scipy.optimize import brentq

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core import rotations as rot
from mbdae.engine.core.hydro_data import (HydroData, HydroDataError, WaveComponents, RadiationStateSpace,
                                          RadiationKernel)
from mbdae.engine.checks import jacobian_mismatch
from mbdae.engine.io.mbdyn.deck import read_deck, DeckError
from mbdae.api import run as run_model
from mbdae.elements import hydro_body
from mbdae.elements.hydro_body import split_state_space
from mbdae.engine.core.hydro_waves import wave_number
from mbdae.engine.core.hydro_files import write_hydro_data
from mbdae.engine.core.hydro_radiation import impulse_response, added_mass_from_kernel
from samples import SAMPLES, randomize_state

RHO, G = 1025.0, 9.81
A_CYL, D_CYL = 2.0, 4.0                       # radius, draft of the cylinder
V = math.pi * A_CYL ** 2 * D_CYL
AWP = math.pi * A_CYL ** 2
IWP = math.pi * A_CYL ** 4 / 4
ZB = -D_CYL / 2
MASS = RHO * V                                # floats: weight = buoyancy
ZG = -2.5                                     # centre of mass below the centre of buoyancy
JG = MASS * np.array([2.0, 2.5, 1.5])         # inertia about the centre of mass
NODE = np.array([0.0, 0.0, -1.0])             # the node: neither at P (waterline) nor at G
OMEGA = np.linspace(0.2, 4.0, 20)


def crossings(t, s):
    """Times where s changes sign (linear interpolation)."""
    k = np.flatnonzero(np.sign(s[1:]) != np.sign(s[:-1]))
    return t[k] - s[k] * (t[k + 1] - t[k]) / (s[k + 1] - s[k])


def cylinder_C():
    """Buoyancy and waterplane hydrostatic stiffness about P (waterline, on the axis)."""
    C = np.zeros((6, 6))
    C[2, 2] = RHO * G * AWP
    C[3, 3] = C[4, 4] = RHO * G * (IWP + V * ZB)
    return C


def hydro_data(C, Ainf, *, X=None, B=None, refs=((0.0, 0.0, 0.0),), volume=(V,), cob=((0.0, 0.0, ZB),),
               headings=(0.0,), depth=math.inf):
    """HydroData on the frequency grid OMEGA: A(ω) = A∞, B(ω) = B (zero), X(β, ω) = X (nw, 6N)
    at every heading (zero)."""
    n = len(Ainf)
    nw = len(OMEGA)
    X = np.zeros((nw, n), complex) if X is None else X
    B = np.zeros((n, n)) if B is None else B
    return HydroData(OMEGA, np.repeat(Ainf[None], nw, 0), np.repeat(B[None], nw, 0), Ainf, C,
                     np.array(headings, float), np.repeat(X[None], len(headings), 0), np.array(refs, float),
                     displaced_volume=np.array(volume, float), centre_of_buoyancy=np.array(cob, float),
                     rho=RHO, g=G, water_depth=depth, source="test data")


A_DIAG = np.diag([0.4, 0.4, 0.3, 0.15, 0.2, 0.1]) * MASS * np.array([1, 1, 1, 4, 4, 4])


def floating(data=None, *, Q=np.eye(3), shift=np.zeros(3), velocity=np.zeros(3), gravity=True, **kw):
    """The floating cylinder: node at NODE (its equilibrium pose), body with its centre of mass
    at z_G, the hydrodynamic body with P at the origin; the node starts rotated by Q about P
    and shifted."""
    m = Model()
    x0 = Q @ NODE + shift
    m.structural_node(1, "dynamic", position=x0, orientation=Q, velocity=velocity)
    m.body(1, 1, MASS, center_of_mass=[0.0, 0.0, ZG - NODE[2]], inertia=np.diag(JG))
    if gravity:
        m.gravity([0.0, 0.0, -G])
    m.hydro_bodies(100, [1], data or hydro_data(cylinder_C(), A_DIAG), equilibrium=[(NODE, np.eye(3))], **kw)
    return m


def run(model, T, h, method="crank nicolson", observers=(), **kw):
    p = InitialValueProblem(model, final_time=T, time_step=h, method=method, tolerance=1e-9,
                            observers=observers, **kw)
    return p.run(), p


def test_floating_equilibrium_is_at_rest():
    """At the equilibrium pose the weight, the buoyancy and the restoring balance: the whole
    residual is zero and a run stays put."""
    m = floating()
    system = System(m)
    st = system.initial_state(0.0)
    f = system.evaluate(st, 0.1, want_jac=False)[0]
    assert np.abs(f).max() < 1e-9 * RHO * G * V
    r, _ = run(floating(), 2.0, 0.05)
    assert np.abs(r.x[:, 0] - NODE).max() < 1e-9
    assert np.abs(r.w).max() < 1e-10


def roll_inertia(m_surge, I_G, A_rot):
    """Effective inertia of the free body's roll (or pitch) about P: the rotation coupled to the
    horizontal translation by the centre of mass's height, I_G + m z_G² + A − (m z_G)²/(m + A_t)."""
    return I_G + MASS * ZG ** 2 + A_rot - (MASS * ZG) ** 2 / (MASS + m_surge)


@pytest.mark.parametrize("dof", ["heave", "roll", "pitch"])
def test_small_amplitude_natural_frequencies(dof):
    """Free oscillation of the floating cylinder released from a small displacement: period
    2π/ω, ω² = C_total/(M + A) with C_total = ρg(I_wp + V z_B) − m g z_G (roll, pitch) and
    ρgA_wp (heave), within 1e-3 (Crank-Nicolson, T/400)."""
    C_tot = RHO * G * (IWP + V * ZB) - MASS * G * ZG
    if dof == "heave":
        w2 = RHO * G * AWP / (MASS + A_DIAG[2, 2])
        kw = dict(shift=np.array([0.0, 0.0, 0.02]))
    elif dof == "roll":
        w2 = C_tot / roll_inertia(A_DIAG[1, 1], JG[0], A_DIAG[3, 3])
        kw = dict(Q=rot.exp_rotvec([0.005, 0.0, 0.0]))
    else:
        w2 = C_tot / roll_inertia(A_DIAG[0, 0], JG[1], A_DIAG[4, 4])
        kw = dict(Q=rot.exp_rotvec([0.0, 0.005, 0.0]))
    T = 2 * math.pi / math.sqrt(w2)
    r, _ = run(floating(**kw), 2.7 * T, T / 400)
    if dof == "heave":
        s = r.x[:, 0, 2] - NODE[2]
    else:
        s = np.array([rot.log_rotvec(R) for R in r.R[:, 0]])[:, {"roll": 0, "pitch": 1}[dof]]
    tc = crossings(r.t, s)
    assert len(tc) >= 5
    period = 2 * np.mean(np.diff(tc))
    assert abs(period / T - 1) < 1e-3, (dof, period, T)


# ---------------------------------------------------------------- heave in waves, decay
C33 = RHO * G * AWP
M33 = MASS + A_DIAG[2, 2]
WN = math.sqrt(C33 / M33)


def heave_excitation(w):
    """X₃(ω): linear in ω on the data grid (so the interpolation at a wave frequency between
    grid points is exact), N/m."""
    return (0.8 + 0.3 * w) * C33 + 1j * (0.2 - 0.5 * w) * C33


def heave_data():
    X = np.zeros((len(OMEGA), 6), complex)
    X[:, 2] = heave_excitation(OMEGA)
    return hydro_data(cylinder_C(), A_DIAG, X=X)


def damping(zeta):
    B = np.zeros((6, 6))
    B[2, 2] = 2 * zeta * math.sqrt(C33 * M33)
    return B


@pytest.mark.parametrize("w", [0.9, 2.13])
def test_heave_in_a_regular_wave_equals_the_frequency_domain_solution(w):
    """Started on the steady state z = Re[ẑ e^{i(ωt + φ)}], ẑ = a X(ω)/(−ω²(M + A) + iωB + C),
    the heave stays on it: amplitude and phase of the last two wave periods within 1e-3
    (Crank-Nicolson, T/200), and the other dofs at rest."""
    a, phase, zeta = 0.4, 0.7, 0.12
    B = damping(zeta)
    zhat = a * heave_excitation(w) / (-w * w * M33 + 1j * w * B[2, 2] + C33) * np.exp(1j * phase)
    waves = WaveComponents(np.array([w]), np.array([a]), np.array([phase]))
    m = floating(heave_data(), shift=np.array([0.0, 0.0, zhat.real]),
                 velocity=np.array([0.0, 0.0, (1j * w * zhat).real]), waves=waves, radiation=("damping", B))
    T = 2 * math.pi / w
    r, _ = run(m, 6 * T, T / 200)
    z = r.x[:, 0, 2] - NODE[2]
    last = r.t >= 4 * T - 1e-9
    basis = np.column_stack([np.cos(w * r.t[last]), -np.sin(w * r.t[last])])
    c, *_ = np.linalg.lstsq(basis, z[last], rcond=None)
    fitted = c[0] + 1j * c[1]
    assert abs(fitted / zhat - 1) < 1e-3, (fitted, zhat)
    assert np.abs(z - (zhat * np.exp(1j * w * r.t)).real).max() < 2e-3 * abs(zhat)
    assert np.abs(r.x[:, 0, :2]).max() < 1e-9 * abs(zhat) and np.abs(r.w).max() < 1e-9 * w * abs(zhat)


def test_heave_decay_has_the_damped_period():
    """Released 5 cm above equilibrium with constant damping ζ = 0.1: zero crossings every
    T_d/2, T_d = 2π/(ω_n √(1 − ζ²)), within 1e-3; the amplitude ratio of successive
    half-cycles e^{−ζπ/√(1−ζ²)} within 1e-3."""
    zeta = 0.1
    m = floating(shift=np.array([0.0, 0.0, 0.05]), radiation=("damping", damping(zeta)))
    Td = 2 * math.pi / (WN * math.sqrt(1 - zeta ** 2))
    r, _ = run(m, 3.2 * Td, Td / 400)
    z = r.x[:, 0, 2] - NODE[2]
    tc = crossings(r.t, z)
    assert abs(2 * np.mean(np.diff(tc)) / Td - 1) < 1e-3
    peaks = [np.abs(z[(r.t > a) & (r.t < b)]).max() for a, b in zip(tc[:-1], tc[1:])]
    ratio = np.array(peaks[1:]) / np.array(peaks[:-1])
    assert np.allclose(ratio, math.exp(-zeta * math.pi / math.sqrt(1 - zeta ** 2)), rtol=1e-3)


# ---------------------------------------------------------------- radiation memory
def second_order_realization(w0=1.5, z0=0.3, gain=3e4):
    """ż = A z + B ν₃, F₃ = −C z: H(s) = gain s/(s² + 2ζ₀ω₀ s + ω₀²), Re H(iω) ≥ 0 (passive)."""
    A = np.array([[0.0, 1.0], [-w0 ** 2, -2 * z0 * w0]])
    B = np.zeros((2, 6))
    B[1, 2] = 1.0
    C = np.zeros((6, 2))
    C[2, 1] = gain
    return RadiationStateSpace(A, B, C)


def exact_kernel(ss, dt, t_end):
    """K(t_j) = C e^{A t_j} B at t_j = j dt up to t_end."""
    E, step = np.eye(len(ss.A)), expm(ss.A * dt)
    K = []
    for _ in range(int(round(t_end / dt)) + 1):
        K.append(ss.C @ E @ ss.B)
        E = E @ step
    return RadiationKernel(dt, np.array(K))


def test_state_space_and_convolution_with_its_exact_kernel_agree():
    """A free heave decay with the radiation as a 2nd-order state space (own unknowns) and as
    the convolution with its exact kernel sampled at the step: the two paths differ by
    O(h²): below 2e-4 of the amplitude at h = 0.02 and four times less at h = 0.01."""
    ss = second_order_realization()
    diffs = []
    for h in (0.02, 0.01):
        zs = []
        for rad in (ss, exact_kernel(ss, h, 30.0)):
            r, _ = run(floating(shift=np.array([0.0, 0.0, 0.05]), radiation=rad), 8.0, h)
            zs.append(r.x[:, 0, 2] - NODE[2])
        diffs.append(np.abs(zs[0] - zs[1]).max() / 0.05)
        assert np.abs(zs[0]).max() == pytest.approx(0.05, rel=1e-6)
        assert np.abs(zs[0][r.t > 6.0]).max() < 0.5 * 0.05          # the radiation damps it
    assert diffs[0] < 2e-4 and diffs[1] < diffs[0] / 3.5, diffs


def convolution_system(nt=201, dt=0.01):
    """One body with K(s) = e^{−s} K₀ (K₀ a fixed 6×6) sampled at dt, no other load."""
    K0 = np.arange(36.0).reshape(6, 6) / 10 - 1.5
    K = np.exp(-dt * np.arange(nt))[:, None, None] * K0
    m = Model()
    m.structural_node(1, "dynamic")
    m.body(1, 1, 1.0, inertia=np.eye(3))
    data = hydro_data(np.zeros((6, 6)), np.zeros((6, 6)))
    m.hydro_bodies(1, [1], data, radiation=RadiationKernel(dt, K), buoyancy=False)
    return System(m), K0


def set_velocity(system, st, nu):
    nodes = system.nodes
    st.yp[nodes.ix[0]] = nu[:3]
    st.yp[nodes.ig[0]] = nu[3:]


def test_convolution_history_over_steps_of_any_size():
    """Committed states of a known velocity ν(t) = sin(2t) c at irregular steps (shorter and
    longer than the kernel's 0.01 s, 340 of them: the ring of 204 samples wraps): the
    radiation load at a later time equals −∫₀^{2 s} K(s) ν(t − s) ds (exact) within 1e-3
    of its size; before the first commit ν = 0."""
    system, K0 = convolution_system()
    fam = system.families[-1]
    c = np.array([1.0, -0.5, 0.3, 0.2, -0.1, 0.4])
    rng = np.random.default_rng(3)
    st = system.initial_state(0.0)
    t = 0.0
    while t < 3.4:
        st = st.trial(t, st.y.copy(), st.yp.copy())
        set_velocity(system, st, math.sin(2 * t) * c)
        system.commit(st)
        t += rng.uniform(0.002, 0.02)
    for tq in (t, t + 0.004):
        trial = st.trial(tq, st.y.copy(), st.yp.copy())
        set_velocity(system, trial, math.sin(2 * tq) * c)
        F = fam.components(system.context(trial))[0, 2]
        # ∫₀^S e^{−s} sin(2(t − s)) ds, S = 2 s (the kernel's length)
        S = 2.0
        s = np.linspace(0, S, 200001)
        f = np.exp(-s) * np.sin(2 * (tq - s))
        integral = np.sum((f[1:] + f[:-1]) / 2 * np.diff(s))
        expected = -integral * (K0 @ c)
        assert np.abs(F - expected).max() < 1e-3 * np.abs(expected).max(), (F, expected)
    # the history's Jacobian: the current velocity's weight within the step
    err, scale, *_ = jacobian_mismatch(system, trial, 0.003, eps=1e-6)
    assert err < 1e-7 * scale


def test_jacobian_with_a_committed_history():
    """The registry's convolution sample after three committed steps of random states, at a
    time inside the next step: FD Jacobian through the update rule."""
    rng = np.random.default_rng(4)
    system = System(SAMPLES["hydrodynamic body"][1](rng))
    st = randomize_state(system, rng, t=0.0)
    for t in (0.0, 0.07, 0.12):
        st = st.trial(t, st.y + 0.1 * rng.normal(size=system.n), st.yp + rng.normal(size=system.n))
        system.commit(st)
    trial = st.trial(0.155, st.y.copy(), st.yp + rng.normal(size=system.n))
    for dcoef in (1e-3, 0.3):
        err, scale, r, c, Ja, Jf = jacobian_mismatch(system, trial, dcoef, eps=1e-6)
        assert err < 1e-6 * scale, (system.owner_text(r), system.owner_text(c), Ja[r, c], Jf[r, c])


# ---------------------------------------------------------------- interaction, drag
def test_two_bodies_coupled_by_off_diagonal_blocks():
    """Two bodies in heave coupled only through A∞₁₂ and C₁₂ (no gravity, no buoyancy): body 1
    released from 0.1 m follows q(t) = Φ cos(Ωt) Φᵀ M q₀ of the 2-dof system
    M = diag(m) + A∞, K = C (within 1e-3 of the amplitude), and so do the nodes' accelerations;
    interaction off: body 1 alone, body 2 stays."""
    masses = np.array([1000.0, 1500.0])
    Ah = np.array([[300.0, 120.0], [120.0, 450.0]])
    Kh = np.array([[4e4, -1e4], [-1e4, 6e4]])
    Ainf = np.zeros((12, 12))
    C = np.zeros((12, 12))
    Ainf[np.ix_([2, 8], [2, 8])] = Ah
    C[np.ix_([2, 8], [2, 8])] = Kh
    data = hydro_data(C, Ainf, refs=((0, 0, 0), (5, 0, 0)), volume=(1, 1), cob=((0, 0, -1), (5, 0, -1)))
    w2, Phi = eigh(Kh, np.diag(masses) + Ah)
    T = 2 * math.pi / math.sqrt(w2.max())
    q0 = np.array([0.1, 0.0])
    for interaction in (True, False):
        m = Model()
        for k, x in enumerate(((0, 0, 0.1), (5, 0, 0))):
            m.structural_node(k + 1, "dynamic", position=x)
            m.body(k + 1, k + 1, masses[k], inertia=np.eye(3) * 100)
        m.hydro_bodies(1, [1, 2], data, buoyancy=False, interaction=interaction,
                       equilibrium=[((0, 0, 0), np.eye(3)), ((5, 0, 0), np.eye(3))])
        r, _ = run(m, 2 * 2 * math.pi / math.sqrt(w2.min()), T / 300)
        z = r.x[:, :, 2]
        if interaction:
            modal = Phi.T @ (np.diag(masses) + Ah) @ q0
            expected = (Phi * np.cos(np.sqrt(w2) * r.t[:, None])[:, None, :]) @ modal
            accel = (Phi * (-w2 * np.cos(np.sqrt(w2) * r.t[:, None]))[:, None, :]) @ modal
        else:
            wn = math.sqrt(Kh[0, 0] / (masses[0] + Ah[0, 0]))
            expected = np.column_stack([q0[0] * np.cos(wn * r.t), np.zeros_like(r.t)])
            accel = -wn * wn * expected
        assert np.abs(z - expected).max() < 1e-3 * q0[0], interaction
        # the nodes' accelerations (Results.a) with the coupled added mass
        assert np.abs(r.a[:, :, 2] - accel).max() < 2e-3 * w2.max() * q0[0], interaction
        assert np.abs(r.x[:, :, :2] - r.x[:1, :, :2]).max() < 1e-12


@pytest.mark.parametrize("kind", ["quadratic", "linear"])
def test_drag_decay_of_a_released_body(kind):
    """A body released in surge at v₀ = 2 m/s with drag only: quadratic v = v₀/(1 + k v₀ t/(m + A)),
    k = ½ρC_dA; linear v = v₀ e^{−b t/(m + A)}; within 1e-4 of v₀."""
    v0, cd, area, b = 2.0, 1.1, 8.0, 3000.0
    drag = {"cd": [cd, 0, 0, 0, 0, 0], "area": [area, 0, 0, 0, 0, 0]} if kind == "quadratic" else \
        {"linear": [b, 0, 0, 0, 0, 0]}
    m = Model()                     # the reference point at the centre of mass: pure surge
    m.structural_node(1, "dynamic", position=(0.0, 0.0, 0.0), velocity=(v0, 0.0, 0.0))
    m.body(1, 1, MASS, inertia=np.diag(JG))
    m.hydro_bodies(1, [1], hydro_data(np.zeros((6, 6)), A_DIAG), buoyancy=False, drag=drag)
    M = MASS + A_DIAG[0, 0]
    r, _ = run(m, 20.0, 0.02)
    if kind == "quadratic":
        k = 0.5 * RHO * cd * area
        expected = v0 / (1 + k * v0 * r.t / M)
    else:
        expected = v0 * np.exp(-b * r.t / M)
    assert expected[-1] < 0.5 * v0
    assert np.abs(r.v[:, 0, 0] - expected).max() < 1e-4 * v0


def airy_velocity(a, w, phase, beta, depth, p, t):
    """The incident wave's particle velocity (independent of the kernel: potential
    φ = (g a/ω) cosh k(z+h)/cosh kh sin θ differentiated)."""
    if math.isinf(depth):
        k = w * w / G
        fz, gz = math.exp(k * p[2]), math.exp(k * p[2])
    else:
        k = brentq(lambda k: G * k * math.tanh(k * depth) - w * w, 1e-9, 100.0)
        fz = math.cosh(k * (p[2] + depth)) / math.sinh(k * depth)
        gz = math.sinh(k * (p[2] + depth)) / math.sinh(k * depth)
    th = w * t - k * (p[0] * math.cos(beta) + p[1] * math.sin(beta)) + phase
    uh = a * w * fz * math.cos(th)
    return np.array([uh * math.cos(beta), uh * math.sin(beta), -a * w * gz * math.sin(th)]), k


@pytest.mark.parametrize("depth", [math.inf, 12.0])
def test_drag_in_waves_and_the_output_components(depth):
    """A body at rest below the surface in a two-component sea: the drag component is
    −½ρC_dA|ν − u|(ν − u) with the Airy velocity u at P, the excitation Σ a Re[X e^{i(ωt+φ)}],
    the elevation Σ a cos(ωt − k·x + φ), the restoring −C η + buoyancy (none with
    hydrostatics=False, the rest unchanged)."""
    w, a, ph, beta = np.array([0.9, 1.6]), np.array([0.5, 0.2]), np.array([0.3, -1.0]), 0.4
    X = np.zeros((len(OMEGA), 6), complex)
    X[:] = (1.0 + 0.2j) * OMEGA[:, None] * np.arange(1, 7) * 1e3
    data = hydro_data(cylinder_C(), A_DIAG, X=X, refs=((1.0, -2.0, -3.0),), cob=((1.0, -2.0, -5.0),),
                      headings=(0.0, 1.0), depth=depth)
    cd, area = np.array([1.0, 0.8, 1.2, 0.0, 0.0, 0.0]), np.array([2.0, 2.5, 3.0, 0.0, 0.0, 0.0])
    m = Model()
    m.structural_node(1, "dynamic", position=(1.0, -2.0, -2.5))
    m.body(1, 1, MASS, inertia=np.eye(3))
    m.hydro_bodies(1, [1], data, waves=WaveComponents(w, a, ph, beta, depth), drag={"cd": cd, "area": area})
    system = System(m)
    fam = system.families[-1]
    t = 1.7
    st = system.initial_state(t)
    st.y[system.nodes.ix[0]] += [0.0, 0.0, 0.01]
    comp = fam.components(system.context(st))[0]
    P = np.array([1.0, -2.0, -2.99])
    u = sum(airy_velocity(a[k], w[k], ph[k], beta, depth, P, t)[0] for k in range(2))
    drag = 0.5 * RHO * cd[:3] * area[:3] * np.abs(u) * u
    assert np.allclose(comp[4, :3], drag, rtol=1e-10) and np.abs(drag).max() > 1.0
    Xw = (1.0 + 0.2j) * w[:, None] * np.arange(1, 7) * 1e3          # heading 0.4 between 0 and 1: same X
    Fex = np.real(a[:, None] * Xw * np.exp(1j * (w[:, None] * t + ph[:, None]))).sum(axis=0)
    assert np.allclose(comp[3], Fex, rtol=1e-12)
    eta = np.zeros(6)
    eta[2] = 0.01
    F_rest = -cylinder_C() @ eta
    assert np.allclose(comp[0], eta, atol=1e-14)
    assert np.allclose(comp[1, :3], F_rest[:3] + [0, 0, RHO * G * V], rtol=1e-12)
    m.hydro_body_groups[0].hydrostatics = False        # no hydrostatic load at all
    off = System(m).families[-1].components(system.context(st))[0]
    assert np.abs(off[1]).max() == 0.0 and np.allclose(off[2:], comp[2:], rtol=1e-14, atol=0.0)
    ks = [airy_velocity(a[k], w[k], ph[k], beta, depth, P, t)[1] for k in range(2)]
    elevation = sum(a[k] * math.cos(w[k] * t - ks[k] * (1.0 * math.cos(beta) - 2.0 * math.sin(beta)) + ph[k])
                    for k in range(2))
    assert fam.wave_elevation(t)[0] == pytest.approx(elevation, rel=1e-10)
    assert np.allclose(wave_number(w, depth, G), ks, rtol=1e-12)


# ---------------------------------------------------------------- energy
class EnergyRecorder:
    """Per output step: kinetic (rigid + added) and potential (hydrostatic + gravity) energy."""

    def __init__(self):
        self.E = []

    def start(self, system, model, method=None):
        self.system = system
        self.fam = system.families[-1]
        self.bodies = system.family_with("node_inertia")
        self.gravity = next(f for f in system.families if f.name == "gravity")

    def log(self, text):
        pass

    def energy(self, kin, t):
        return (self.bodies.kinetic_energy(kin) + self.fam.added_mass_energy(kin)
                + self.fam.hydrostatic_energy(kin) + self.gravity.potential_energy(kin, t))

    def step(self, event):
        self.E.append(self.energy(self.system.kinematics(event.state), event.t))

    def finish(self):
        pass


def full_added_mass(rng):
    L = rng.normal(size=(6, 6))
    return MASS * (0.3 * np.eye(6) + 0.05 * L @ L.T) * np.array([1, 1, 1, 3, 3, 3])[:, None] ** 0.5 \
        * np.array([1, 1, 1, 3, 3, 3])[None, :] ** 0.5


def test_energy_is_conserved_with_restoring_and_added_mass():
    """Restoring, buoyancy, gravity and a full symmetric A∞, released rotated by 0.25 rad about
    a skew axis and moving: the energy ½ν(M + A∞)ν + ½ηCη − ρgV z_B + m g z_G stays within
    the integrator's error (Crank-Nicolson: drift 1e-4 of the motion's energy at h = 0.02,
    four times less at h = 0.01)."""
    A = full_added_mass(np.random.default_rng(0))
    data = hydro_data(cylinder_C(), A)
    drifts = []
    for h in (0.02, 0.01):
        m = floating(data, Q=rot.exp_rotvec([0.15, -0.2, 0.05]), velocity=np.array([0.2, -0.1, 0.3]))
        m.nodes[0].w = np.array([0.05, 0.1, -0.2])
        rec = EnergyRecorder()
        run(m, 8.0, h, observers=[rec])
        at_rest = System(floating(data))
        E0 = rec.energy(at_rest.kinematics(at_rest.initial_state(0.0)), 0.0)
        E = np.array(rec.E) - E0
        drifts.append(np.abs(E - E[0]).max() / E[0])
    assert drifts[0] < 1e-4 and drifts[1] < drifts[0] / 3.5, drifts


@pytest.mark.parametrize("radiation", ["damping", "state space", "convolution"])
def test_radiation_never_gives_energy(radiation):
    """Heave decay: with a passive radiation model the motion's energy never exceeds its initial value
    (dissipated energy ≥ 0 at every step; with constant damping, at every step's end the
    energy decreased) and falls by at least half over 15 s."""
    ss = second_order_realization()
    rad = {"damping": ("damping", damping(0.05)), "state space": ss, "convolution": exact_kernel(ss, 0.02, 30.0)}
    m = floating(radiation=rad[radiation], shift=np.array([0.0, 0.0, 0.05]))
    rec = EnergyRecorder()
    run(m, 15.0, 0.02, observers=[rec])
    at_rest = System(floating())
    E = np.array(rec.E) - rec.energy(at_rest.kinematics(at_rest.initial_state(0.0)), 0.0)
    tol = 1e-6 * E[0]
    assert np.all(E <= E[0] + tol)
    assert E[-1] < 0.5 * E[0]
    if radiation == "damping":
        assert np.all(np.diff(E) <= tol)


# ---------------------------------------------------------------- output, accelerations
def test_hyd_output_and_node_accelerations(tmp_path):
    """The `.hyd` file of the heave steady state: η₃ = z, restoring −C₃₃z + ρgV, radiation
    −B₃₃ż, excitation Re[aX e^{i(ωt+φ)}], added mass A₃₃ω²z (−A ν̇), elevation a cos(ωt + φ);
    Newton's law m z̈ = Σ components − m g holds row by row; the nodes' accelerations
    (Results.a, corrected for the added mass) equal −ω² z."""
    w, a, phase = 1.3, 0.3, 0.4
    B = damping(0.1)
    zhat = a * heave_excitation(w) / (-w * w * M33 + 1j * w * B[2, 2] + C33) * np.exp(1j * phase)
    waves = WaveComponents(np.array([w]), np.array([a]), np.array([phase]))
    m = floating(heave_data(), shift=np.array([0.0, 0.0, zhat.real]),
                 velocity=np.array([0.0, 0.0, (1j * w * zhat).real]), waves=waves, radiation=("damping", B))
    T = 2 * math.pi / w
    prefix = str(tmp_path / "heave")
    r = run_model(m, output_prefix=prefix, final_time=T, time_step=T / 400, method="crank nicolson",
                  tolerance=1e-9, output_precision=12)
    rows = np.loadtxt(prefix + ".hyd")
    assert rows.shape == (len(r.t), 38) and np.all(rows[:, 0] == 100)
    t = r.t
    z = (zhat * np.exp(1j * w * t)).real
    zd = (1j * w * zhat * np.exp(1j * w * t)).real
    eta, rest, rad, exc, drag, am = (rows[:, 1 + 6 * k:7 + 6 * k] for k in range(6))
    elev = rows[:, 37]
    scale = C33 * abs(zhat)
    assert np.allclose(eta[:, 2], z, atol=2e-3 * abs(zhat))
    assert np.allclose(rest[:, 2], -C33 * eta[:, 2] + RHO * G * V, atol=1e-9 * RHO * G * V)
    assert np.allclose(rad[:, 2], -B[2, 2] * zd, atol=2e-3 * scale)
    assert np.allclose(exc[:, 2], (a * heave_excitation(w) * np.exp(1j * (w * t + phase))).real, rtol=1e-10)
    assert np.allclose(am[:, 2], A_DIAG[2, 2] * w * w * z, atol=3e-3 * scale)
    assert np.abs(drag).max() == 0.0
    assert np.allclose(elev, a * np.cos(w * t + phase), rtol=1e-10)
    zdd = r.a[:, 0, 2]
    assert np.allclose(zdd, -w * w * z, atol=3e-3 * w * w * abs(zhat))
    total = rest[:, 2] + rad[:, 2] + exc[:, 2] + am[:, 2] - MASS * G
    assert np.allclose(MASS * zdd, total, atol=1e-6 * scale)


# ---------------------------------------------------------------- deck card
DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 1.;
    time step: 1e-2;
    method: crank nicolson;
    tolerance: 1e-9;
end: initial value;
begin: control data;
    structural nodes: 1;
    rigid bodies: 1;
    gravity;
end: control data;
begin: nodes;
    structural: 1, dynamic, 0., 0., -0.9, eye, null, null;
end: nodes;
begin: elements;
    body: 1, 1, {mass}, 0., 0., -1.5, diag, {jx}, {jy}, {jz};
    gravity: uniform, 0., 0., -1., const, 9.81;
    hydrodynamic body: 100, "cylinder.nc", 1, equilibrium position, 0., 0., -1.,
        {options};
end: elements;
"""
OPTIONS = ("radiation, frequency, 1.2, waves, regular, amplitude, 0.3, frequency, 1.1, phase, 0.2, heading, 0.,\n"
           "        viscous drag, 1., 1., 1., 0., 0., 0., 2., 2., 2., 0., 0., 0.,\n"
           "        linear damping, body, 1, 0., 0., 100., 0., 0., 0., output, yes")


def deck_data():
    X = np.zeros((len(OMEGA), 6), complex)
    X[:, 2] = heave_excitation(OMEGA)
    B = np.zeros((len(OMEGA), 6, 6))
    B[:, 2, 2] = 1e3 * OMEGA
    Aw = np.repeat(A_DIAG[None], len(OMEGA), 0) * (1 + 0.1 * OMEGA)[:, None, None]
    d = hydro_data(cylinder_C(), A_DIAG, X=X)
    return HydroData(d.omega, Aw, B, d.added_mass_infinite, d.hydrostatic_stiffness, d.headings, d.excitation,
                     d.reference_points, displaced_volume=d.displaced_volume, centre_of_buoyancy=d.centre_of_buoyancy,
                     rho=RHO, g=G, source="cylinder.nc")


def write_deck(tmp_path, options=OPTIONS):
    path = tmp_path / "hydro.mbd"
    path.write_text(DECK.format(mass=MASS, jx=JG[0], jy=JG[1], jz=JG[2], options=options))
    return path


@pytest.fixture
def data_file(tmp_path):
    """deck_data() in mbdae's NetCDF file beside the deck (engine/core/hydro_files)."""
    return write_hydro_data(deck_data(), tmp_path / "cylinder.nc")


def test_deck_card_builds_the_same_model_as_the_api(tmp_path, data_file):
    """`hydrodynamic body:` with every option: the NetCDF data file is read beside the deck and
    a run equals the run of the model built through Model.hydro_bodies."""
    path = write_deck(tmp_path)
    deck = read_deck(str(path), echo=lambda *a: None)
    (g,) = deck.model.hydro_body_groups
    assert g.radiation == ("frequency", 1.2) and g.interaction and g.buoyancy and g.output
    assert np.allclose(g.drag["cd"], [[1, 1, 1, 0, 0, 0]]) and np.allclose(g.drag["linear"], [[0, 0, 100, 0, 0, 0]])
    assert g.waves.omega.tolist() == [1.1] and g.waves.amplitude.tolist() == [0.3]
    line = path.read_text().split("\n").index("    hydrodynamic body: 100, \"cylinder.nc\", 1, equilibrium position, 0., 0., -1.,") + 1
    assert deck.model.origin("hydrodynamic body", 100) == f"{path}:{line}"
    r_deck = deck.problem(final_time=1.0).run()
    m = Model()
    m.structural_node(1, "dynamic", position=(0.0, 0.0, -0.9))
    m.body(1, 1, MASS, center_of_mass=[0.0, 0.0, -1.5], inertia=np.diag(JG))
    m.gravity([0.0, 0.0, -G])
    m.hydro_bodies(100, [1], deck_data(), radiation=("frequency", 1.2),
                   waves=WaveComponents(np.array([1.1]), np.array([0.3]), np.array([0.2])),
                   drag={"cd": [1, 1, 1, 0, 0, 0], "area": [2, 2, 2, 0, 0, 0], "linear": [0, 0, 100, 0, 0, 0]},
                   equilibrium=[((0.0, 0.0, -1.0), np.eye(3))])
    r_api, _ = run(m, 1.0, 1e-2)
    assert np.abs(r_deck.x - r_api.x).max() < 1e-12
    assert np.abs(r_api.x[-1, 0, 2] - (-0.9)) > 1e-3              # it moved


@pytest.mark.parametrize("options,needle,message", [
    ("radiaton, off", "radiaton", "unknown option 'radiaton'"),
    ("radiation, convolutio, 0.1", "convolutio", "a radiation model"),
    ("waves, irregular, 3", "irregular", "a sea state"),
    ("waves, regular, amplitude, 1., frequency, 0., heading, 0.", "0., heading", "wave frequency must be positive"),
    ("waves, regular, amplitude, 1., perod, 3.", "perod", "'frequency', 'period'"),
    ("linear damping, body, 2, 0., 0., 1., 0., 0., 0.", "2, 0.", "body 2 is not one of 1 … 1"),
    ("waves, regular, amplitude, 1., frequency, 9.", "hydrodynamic body: 100", "outside the data's frequencies"),
])
def test_deck_card_errors_name_the_word(tmp_path, data_file, options, needle, message):
    """Misspelled keywords and bad values: DeckError at file:line:col of the word."""
    path = write_deck(tmp_path, options)
    text = path.read_text()
    line = text[:text.index(needle)].count("\n") + 1
    with pytest.raises(DeckError) as e:
        read_deck(str(path), echo=lambda *a: None)
    assert f"{path.name}:{line}:" in str(e.value) and message in str(e.value), str(e.value)


def test_deck_card_data_file_errors(tmp_path, data_file):
    """A file the reader cannot read stops at the file name's word, naming the file."""
    path = tmp_path / "hydro.mbd"
    path.write_text(write_deck(tmp_path).read_text().replace("cylinder.nc", "missing.nc"))
    with pytest.raises(DeckError, match=r"hydro.mbd:22:29: HydroBody\(100\): .*missing.nc: no such file"):
        read_deck(str(path), echo=lambda *a: None)


def test_deck_card_radiation_and_seas_from_the_data_layer(tmp_path, data_file, monkeypatch):
    """`radiation, state space | convolution` and the irregular seas are computed by the data
    layer's functions (engine/core/hydro_radiation, hydro_waves; replaced here by recorders)
    with the card's options, the fit once `interaction` is known (after it on the card).  A
    regular wave by height and period; the on/off options."""
    calls = []
    ss = second_order_realization()

    def fit(data, **kw):
        calls.append(("fit", kw))
        return ss

    def irf(data, **kw):
        calls.append(("irf", kw))
        return exact_kernel(ss, kw["dt"], 1.0)

    def sea(*a, **kw):
        calls.append(("sea", a, kw))
        return WaveComponents(np.array([1.0]), np.array([0.1]), np.array([0.0]))
    monkeypatch.setattr(hydro_body, "fit_radiation_state_space", fit)
    monkeypatch.setattr(hydro_body, "impulse_response", irf)
    monkeypatch.setattr(hydro_body, "irregular_sea", sea)
    deck = read_deck(str(write_deck(tmp_path, "radiation, state space, tolerance, 0.02, max order, 6, "
                                               "interaction, no")), echo=lambda *a: None)
    assert calls == [("fit", {"couple_bodies": False, "tolerance": 0.02, "max_order": 6})]
    assert deck.model.hydro_body_groups[0].radiation is ss
    calls.clear()
    deck = read_deck(str(write_deck(tmp_path, "radiation, convolution, 0.05, duration, 20., waves, jonswap, 2., 8., "
                                              "gamma, 2., components, 50, frequency range, 0.3, 3., seed, 7, "
                                              "heading, 0.1")), echo=lambda *a: None)
    assert calls == [("sea", ("jonswap", 2.0, 8.0), dict(heading=0.1, water_depth=math.inf, g=G, gamma=2.0,
                                                         n_components=50, omega_min=0.3, omega_max=3.0, seed=7)),
                     ("irf", {"dt": 0.05, "t_end": 20.0})]
    with pytest.raises(DeckError, match=r"hydro.mbd:23:44: HydroBody\(100\): the order must be at least 1, found 0"):
        read_deck(str(write_deck(tmp_path, "radiation, state space, max order, 0")), echo=lambda *a: None)
    g = read_deck(str(write_deck(tmp_path, "waves, regular, height, 0.6, period, 5., heading, 0.")),
                  echo=lambda *a: None).model.hydro_body_groups[0]
    assert g.waves.amplitude.tolist() == [0.3] and g.waves.omega[0] == pytest.approx(2 * math.pi / 5)
    g = read_deck(str(write_deck(tmp_path, "hydrostatics, no, buoyancy, no, interaction, yes, output, no")),
                  echo=lambda *a: None).model.hydro_body_groups[0]
    assert (g.hydrostatics, g.buoyancy, g.interaction, g.output) == (False, False, True, False)


def test_deck_card_with_the_data_layer_state_space_and_convolution_agree(tmp_path):
    """End to end with the data layer: a NetCDF file of consistent coefficients (B₃₃(ω) given,
    A₃₃(ω) from Ogilvie's relation), the deck's `radiation, state space` (the fitted
    realization) and `radiation, convolution` (the sampled kernel) in a JONSWAP sea: the heave
    histories agree within 0.5 % of their range over 30 s at h = 0.05."""
    om = np.linspace(0.05, 6.0, 120)
    B = np.zeros((len(om), 6, 6))
    B[:, 2, 2] = 4e4 * om ** 2 * np.exp(-0.6 * om ** 2)
    X = np.zeros((len(om), 6), complex)
    X[:, 2] = C33 * (1 + 0.2j) * np.exp(-0.1 * om)
    d = hydro_data(cylinder_C(), A_DIAG, X=X)
    d = HydroData(om, np.repeat(A_DIAG[None], len(om), 0), B, A_DIAG, d.hydrostatic_stiffness, d.headings,
                  X[None], d.reference_points, displaced_volume=d.displaced_volume,
                  centre_of_buoyancy=d.centre_of_buoyancy, rho=RHO, g=G)
    A = d.added_mass.copy()
    A[:, 2, 2] += added_mass_from_kernel(impulse_response(d, 0.02), om)[:, 2, 2]
    write_hydro_data(HydroData(om, A, B, A_DIAG, d.hydrostatic_stiffness, d.headings, d.excitation,
                               d.reference_points, displaced_volume=d.displaced_volume,
                               centre_of_buoyancy=d.centre_of_buoyancy, rho=RHO, g=G), tmp_path / "cylinder.nc")
    z = []
    for radiation in ("state space", "convolution, 0.05"):
        path = write_deck(tmp_path, f"radiation, {radiation}, waves, jonswap, 0.5, 8., components, 30, "
                                    f"frequency range, 0.3, 3., seed, 1")
        deck = read_deck(str(path), echo=lambda *a: None)
        rad = deck.model.hydro_body_groups[0].radiation
        assert isinstance(rad, (RadiationStateSpace, RadiationKernel))
        r = deck.problem(final_time=30.0, time_step=0.05).run()
        z.append(r.x[:, 0, 2])
    assert np.ptp(z[0]) > 0.5
    assert np.abs(z[0] - z[1]).max() < 5e-3 * np.ptp(z[0])


# ---------------------------------------------------------------- bad input
def test_bad_input_is_named():
    data = hydro_data(cylinder_C(), A_DIAG)
    m = Model()
    m.structural_node(1, "dynamic")
    m.structural_node(2, "static displacement")
    with pytest.raises(ValueError, match="2 nodes for the 1 bodies of test data"):
        m.hydro_bodies(1, [1, 2], data)
    with pytest.raises(ValueError, match="unknown drag parameter 'Cd'"):
        m.hydro_bodies(1, [1], data, drag={"Cd": 1.0})
    with pytest.raises(ValueError, match="radiation state space: A .* do not fit 1 bodies"):
        m.hydro_bodies(1, [1], data, radiation=RadiationStateSpace(np.eye(2), np.ones((2, 12)), np.ones((6, 2))))
    no_volume = HydroData(data.omega, data.added_mass, data.radiation_damping, data.added_mass_infinite,
                          data.hydrostatic_stiffness, data.headings, data.excitation, data.reference_points,
                          source="bare.h5")
    with pytest.raises(HydroDataError, match="bare.h5: the displaced volume and the centre of buoyancy"):
        m.hydro_bodies(1, [1], no_volume)
    m.hydro_bodies(1, [1], no_volume, buoyancy=False)
    m.hydro_bodies(3, [1], no_volume, hydrostatics=False)
    with pytest.raises(ValueError, match="hydrodynamic body 1 is already defined"):
        m.hydro_bodies(1, [1], data)
    cases = [
        (dict(waves=WaveComponents(np.array([5.0]), np.array([1.0]), np.array([0.0]))),
         HydroDataError, r"test data: excitation at 5 rad/s: outside the data's frequencies 0.2 … 4 rad/s"),
        (dict(waves=WaveComponents(np.array([1.0]), np.array([1.0]), np.array([0.0]), heading=0.5)),
         HydroDataError, r"test data: excitation: the wave heading 0.5 rad is not covered"),
        (dict(waves=WaveComponents(np.array([1.0]), np.array([1.0]), np.array([0.0]), water_depth=30.0)),
         ValueError, r"the waves' water depth 30.0 differs from the hydrodynamic data's inf"),
        (dict(radiation=("frequency", 0.1)), HydroDataError, r"added mass at 0.1 rad/s: outside"),
    ]
    for kw, error, message in cases:
        with pytest.raises(error, match=message):
            m.hydro_bodies(2, [1], data, **kw)
    for kind, message in (("static displacement", "structural node 1 is a static displacement node"),
                          (None, "structural node 1 is not defined")):
        m3 = Model()
        if kind:
            m3.structural_node(1, kind)
        m3.hydro_bodies(5, [1], data)
        with pytest.raises(ValueError, match=f"hydrodynamic body 5: {message}"):
            System(m3)


def test_state_space_split_per_body():
    """interaction=False: the states of a realization are kept per body, the pure interaction
    states dropped, and a block mixing two bodies refused."""
    A = -np.eye(3)
    B = np.zeros((3, 12))
    C = np.zeros((12, 3))
    B[0, 2], C[2, 0] = 1.0, 2.0          # body 1 on body 1
    B[1, 8], C[2, 1] = 1.0, 3.0          # body 2 on body 1: interaction
    B[2, 8], C[8, 2] = 1.0, 4.0          # body 2 on body 2
    per = split_state_space(RadiationStateSpace(A, B, C), 2, "here")
    assert [len(p[0]) for p in per] == [1, 1]
    assert per[0][2][2, 0] == 2.0 and per[1][1][0, 2] == 1.0 and per[1][2][2, 0] == 4.0
    A[0, 1] = 0.5                        # states 1 and 2 now one block: bodies 1 and 2 mixed
    with pytest.raises(ValueError, match="here: radiation states 1… couple bodies \\[1, 2\\]"):
        split_state_space(RadiationStateSpace(A, B, C), 2, "here")
