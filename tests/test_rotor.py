"""Induced velocity (rotor) elements, elements/rotor.py: momentum theory in hover and forward
flight (13.185-13.191), the Glauert and Mangler-Squire distributions (13.192-13.203), the
Pitt-Peters dynamic inflow time constant and steady state (13.216-13.219), the ground effect
factor, the family's committed mean inflow and its deck cards.  (The FD Jacobian comes from
the registry's generated checks, tests/test_element_checks.py -k "induced velocity".)"""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mbdae.engine.model import Model
from mbdae.engine.system import System
import mbdae
from mbdae.engine.io.mbdyn.deck import parse_deck, read_deck, DeckError
from mbdae.engine.checks import jacobian_mismatch
from mbdae.elements import rotor_kernel as rk
from mbdae.elements.aerodynamic import Airfoil
from mbdae.elements.base import random_nodes, random_rotation

RHO, RADIUS, OMEGA = 1.225, 5.0, 40.0
AREA = math.pi * RADIUS ** 2


def instance(model="uniform", gtype=0, max_iter=100, tol=1e-14, ground=False, kh=1.0, kff=1.0):
    ip = np.array([{"no": rk.NO, "uniform": rk.UNIFORM, "glauert": rk.GLAUERT,
                                            "mangler": rk.MANGLER, "dynamic inflow": rk.DYNAMIC_INFLOW}[model],
                   gtype, max_iter, int(ground)], np.int64)
    fp = np.array([OMEGA, RADIUS, tol, 1.0, kh, kff, *np.eye(3).ravel()])
    return ip, fp


def nodes_kin(omega=OMEGA, v_rotor=(0.0, 0.0, 0.0), ground_height=None):
    """Craft node at rest at the origin, rotor node spinning about z at `omega`."""
    nk = np.zeros((3, 18))
    for a in range(3):
        nk[a, 3:12] = np.eye(3).ravel()
    nk[1, 12:15] = v_rotor
    nk[1, 17] = omega
    if ground_height is not None:
        nk[2, 2] = -ground_height
    return nk


def params(ip, fp, thrust, nk, vinf=(0.0, 0.0, 0.0), u_prev=0.0, s=(0.0, 0.0, 0.0), w=0.0):
    z = np.zeros(rk.NZ)
    z[2] = thrust
    z[rk.Z_S:rk.Z_S + 3] = s
    z[rk.Z_UPREV], z[rk.Z_W] = u_prev, w
    air = np.array([RHO, 340.0, *vinf])
    P = np.empty(rk.NP)
    rk.rotor_param(ip, fp, z, nk, air, P)
    return P, z, air


def test_hover_mean_inflow_is_momentum_theory():
    """Hover (no free stream): the converged local Newton gives u = √(T/(2ρA)) and λ = u/(ΩR)."""
    ip, fp = instance()
    for T in (1e3, 2.5e4, 8e4):
        P, _, _ = params(ip, fp, T, nodes_kin())
        u = math.sqrt(T / (2 * RHO * AREA))
        assert P[rk.P_UMEAN] == pytest.approx(u, rel=1e-10)
        assert P[rk.P_LAMBDA] == pytest.approx(u / (OMEGA * RADIUS), rel=1e-10)
        assert P[rk.P_CONV] == 1.0 and P[rk.P_MU] == 0.0


def test_forward_flight_inflow_ratio_satisfies_glauerts_momentum_relation():
    """Forward flight at disk angle α: μ = V cos α/(ΩR), λ = μ tan α + C_T/(2√(μ² + λ²))
    (Glauert), and at high μ the induced part tends to C_T/(2μ)."""
    ip, fp = instance()
    T = 2e4
    ct = T / (RHO * AREA * (OMEGA * RADIUS) ** 2)
    for V, alpha in ((10.0, 0.05), (30.0, -0.1), (60.0, 0.0)):
        vinf = (V * math.cos(alpha), 0.0, V * math.sin(alpha))   # air towards +x and +z: sin α_d = −v₃/V
        P, _, _ = params(ip, fp, T, nodes_kin(), vinf=vinf)
        mu = V * math.cos(alpha) / (OMEGA * RADIUS)
        lam0 = -V * math.sin(alpha) / (OMEGA * RADIUS)
        lam = P[rk.P_LAMBDA]
        assert P[rk.P_MU] == pytest.approx(mu, rel=1e-12)
        assert lam - lam0 == pytest.approx(ct / (2 * math.sqrt(mu ** 2 + lam ** 2)), rel=1e-10)
        assert P[rk.P_CHI] == pytest.approx(math.atan2(mu, lam), rel=1e-12)
        assert P[rk.P_PSI0] == pytest.approx(0.0, abs=1e-12)
    P, _, _ = params(ip, fp, T, nodes_kin(), vinf=(80.0, 0.0, 0.0))
    mu = 80.0 / (OMEGA * RADIUS)
    assert P[rk.P_LAMBDA] == pytest.approx(ct / (2 * mu), rel=2e-3)


def test_ground_effect_factor():
    """k_GE = 1 − (R/4h)² (Cheeseman & Bennett, NASA TR-3021) on the hover mean inflow."""
    ip, fp = instance(ground=True)
    T = 2e4
    free, _, _ = params(*instance(), T, nodes_kin())
    for h in (2.0, 5.0, 10.0):
        P, _, _ = params(ip, fp, T, nodes_kin(ground_height=h))
        assert P[rk.P_UMEAN] / free[rk.P_UMEAN] == pytest.approx(1.0 - (RADIUS / (4 * h)) ** 2, rel=1e-12)


def disk_point(r, psi, psi0=0.0):
    a = psi + psi0
    return np.array([r * RADIUS * math.cos(a), r * RADIUS * math.sin(a), 0.0])


@pytest.mark.parametrize("gtype,kx", [
    (rk.G_GLAUERT, lambda mu, lam, chi: 4 / 3 * (1 - 1.8 * mu ** 2) * math.tan(chi / 2)),
    (rk.G_COLEMAN, lambda mu, lam, chi: math.tan(chi / 2)),
    (rk.G_PITT_PETERS, lambda mu, lam, chi: 15 * math.pi / 32 * math.tan(chi / 2)),
    (rk.G_WHITE_BLAKE, lambda mu, lam, chi: math.sqrt(2) * math.sin(chi))])
def test_glauert_distribution(gtype, kx):
    """u(r, ψ) = u₀ (1 + k_x r cos ψ) along the rotor axis, ψ from the wind direction
    (Leishman, Principles of Helicopter Aerodynamics, 2nd ed., Table 3.2)."""
    ip, fp = instance("glauert", gtype)
    vinf = (20.0, 12.0, 1.0)
    nk = nodes_kin()
    P, z, air = params(ip, fp, 2e4, nk, vinf=vinf, u_prev=3.0)
    psi0 = math.atan2(12.0, 20.0)
    assert P[rk.P_PSI0] == pytest.approx(psi0)
    mu, lam = P[rk.P_MU], P[rk.P_LAMBDA]
    chi = math.atan2(mu, lam)
    for r, psi in ((0.3, 0.0), (0.9, 1.0), (0.6, 2.5), (1.0, math.pi)):
        u = rk.rotor_inflow(ip, fp, z, nk, air, disk_point(r, psi, psi0))
        assert np.allclose(u, [0.0, 0.0, 3.0 * (1 + kx(mu, lam, chi) * r * math.cos(psi))], rtol=1e-12, atol=1e-12)


def test_uniform_and_dynamic_inflow_distributions():
    """Uniform: u₀ n everywhere; dynamic inflow: (ν₀ + r(ν_c cos ψ + ν_s sin ψ)) ΩR n (13.220)."""
    ip, fp = instance("uniform")
    nk = nodes_kin()
    P, z, air = params(ip, fp, 2e4, nk, u_prev=2.5)
    for x in (disk_point(0.5, 1.0), disk_point(0.9, -2.0)):
        assert np.allclose(rk.rotor_inflow(ip, fp, z, nk, air, x), [0, 0, 2.5])
    ip, fp = instance("dynamic inflow")
    s = (0.03, 0.01, -0.02)
    P, z, air = params(ip, fp, 2e4, nk, vinf=(15.0, 0.0, 0.0), s=s)
    for r, psi in ((0.5, 1.0), (0.9, -2.0)):
        u = rk.rotor_inflow(ip, fp, z, nk, air, disk_point(r, psi))
        expected = (s[0] + r * (s[2] * math.cos(psi) + s[1] * math.sin(psi))) * OMEGA * RADIUS
        assert np.allclose(u, [0, 0, expected], rtol=1e-12)


def test_mangler_distribution_averages_to_the_mean_inflow():
    """Mangler-Squire type III: the disk average of 4[c₀/2 − Σ c_n cos nψ] is 1 (∫ 15/4 r²√(1−r²)
    2r dr = 1), it vanishes at the centre and the tip, and it is axisymmetric in axial flight."""
    ip, fp = instance("mangler")
    nk = nodes_kin()
    P, z, air = params(ip, fp, 2e4, nk, vinf=(25.0, 0.0, -3.0), u_prev=1.0)
    rs = (np.arange(400) + 0.5) / 400
    psis = 2 * np.pi * np.arange(64) / 64
    total = sum(rk.rotor_inflow(ip, fp, z, nk, air, disk_point(r, p))[2] * 2 * r / 400 / 64 for r in rs for p in psis)
    assert total == pytest.approx(1.0, rel=1e-4)
    assert abs(rk.rotor_inflow(ip, fp, z, nk, air, disk_point(0.0, 0.3))[2]) < 1e-12
    P, z, air = params(ip, fp, 2e4, nk, vinf=(0.0, 0.0, -3.0), u_prev=1.0)    # climb: sin α_d = 1
    vals = [rk.rotor_inflow(ip, fp, z, nk, air, disk_point(0.7, p))[2] for p in psis]
    assert np.ptp(vals) < 1e-12 and vals[0] == pytest.approx(15 / 4 * 0.49 * math.sqrt(0.51), rel=1e-12)


def test_dynamic_inflow_time_constant_and_steady_state():
    """Hover, a thrust step at t = 0 from ν = 0: M₁₁ ν̇₀ + 2Ωλ ν₀ = T/(ρAΩR²) (Pitt & Peters 1981,
    M₁₁ = 128/(75π)) relaxes with τ = M₁₁/(2Ωλ) to ν₀ΩR = √(T/(2ρA)) (momentum theory)."""
    ip, fp = instance("dynamic inflow")
    nk = nodes_kin()
    T = 2e4
    u_mt = math.sqrt(T / (2 * RHO * AREA))
    lam = u_mt / (OMEGA * RADIUS)
    tau = 128 / (75 * math.pi) / (2 * OMEGA * lam)
    air = np.array([RHO, 340.0, 0.0, 0.0, 0.0])
    P = np.empty(rk.NP)
    out = np.empty(3)
    Mdiag = np.array([rk.M11, rk.M22, rk.M33])

    def rate(t, s):
        z = np.zeros(rk.NZ)
        z[2] = T
        z[rk.Z_S:rk.Z_S + 3] = s
        rk.dynamic_inflow_rows(ip, fp, z, np.zeros(3), nk, air, P, out)
        return out / Mdiag            # rows C − M ν̇ − L ν = 0 with M diagonal

    ts = tau * np.array([0.5, 1.0, 2.0, 5.0, 20.0])
    sol = solve_ivp(rate, (0, ts[-1]), np.zeros(3), t_eval=ts, rtol=1e-10, atol=1e-12)
    v_ss = u_mt / (OMEGA * RADIUS)
    assert np.allclose(sol.y[0], v_ss * (1 - np.exp(-ts / tau)), rtol=1e-6)
    assert sol.y[0, -1] * OMEGA * RADIUS == pytest.approx(u_mt, rel=1e-8)
    assert np.allclose(sol.y[1:], 0.0, atol=1e-14)


def rotor_model(kind="uniform", thrust_air=(RHO, 340.0, (0.0, 0.0, 0.0)), **kw):
    m = Model()
    m.structural_node(1, "static", position=np.zeros(3))
    m.structural_node(2, "static", position=np.array([0.0, 0.0, 1.0]), angular_velocity=np.array([0, 0, OMEGA]))
    m.induced_velocity(7, 1, 2, kind, OMEGA, RADIUS, air=thrust_air, max_iterations=100, tolerance=1e-14, **kw)
    return m


def test_family_commits_the_momentum_mean_inflow_and_outputs_rot_rows():
    """The family: F set to a thrust, commit → u_prev = √(T/(2ρA)), in effect from the next
    step on (MBDyn's dUMeanPrev): the inflow at a blade point is zero until the step begins,
    then that along the rotor axis; the .rot row has MBDyn's 15 columns."""
    system = System(rotor_model())
    fam = system.families[0]
    st = system.initial_state(0.0)
    T = 3e4
    st.y[fam.off[0] + 2] = T
    system.commit(st)
    u_mt = math.sqrt(T / (2 * RHO * AREA))
    assert st.families[fam.state_key]["pending"][0, 0] == pytest.approx(u_mt, rel=1e-10)
    point = np.array([3.0, 1.0, 1.0])
    ip, fp, z, nk, air = fam.inflow_data(system.context(st))
    assert np.allclose(rk.rotor_inflow(ip[0], fp[0], z[0], nk[0], air[0], point), 0.0)
    st = system.begin_step(st)
    ctx = system.context(st)
    ip, fp, z, nk, air = fam.inflow_data(ctx)
    u = rk.rotor_inflow(ip[0], fp[0], z[0], nk[0], air[0], point)
    assert np.allclose(u, [0, 0, u_mt], rtol=1e-10)
    (labels, rows), = fam.output_groups(ctx)
    assert labels.tolist() == [7] and rows.shape == (1, 15)
    assert rows[0, 2] == pytest.approx(T) and rows[0, 6] == pytest.approx(u_mt, rel=1e-10)
    assert fam.private_data(ctx, "Tz")[0] == pytest.approx(T)


def test_delay_is_the_memory_factor_of_the_previous_step():
    """`delay` w: u = (1 − w) u_nominal + w u_prev, w taken at the previous commit."""
    system = System(rotor_model(delay=0.25))
    fam = system.families[0]
    st = system.initial_state(0.0)
    T = 3e4
    st.y[fam.off[0] + 2] = T
    system.commit(st)                   # w = 0 in the first step, then 0.25
    u1 = st.families[fam.state_key]["pending"][0, 0]
    st = system.begin_step(st)
    system.commit(st)
    u2 = st.families[fam.state_key]["pending"][0, 0]
    u_mt = math.sqrt(T / (2 * RHO * AREA))
    assert u1 == pytest.approx(u_mt, rel=1e-10)
    assert u2 == pytest.approx(0.75 * u_mt + 0.25 * u1, rel=1e-10)


DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.; time step: 1e-2; end: initial value;
begin: control data; structural nodes: 3; {count}: 1; end: control data;
begin: nodes;
  structural: 1, static, null, eye, null, null;
  structural: 2, static, 0., 0., 1., eye, null, 0., 0., 40.;
  structural: 3, static, 0., 0., -4., eye, null, null;
end: nodes;
begin: elements;
{card}
end: elements;
"""


@pytest.mark.parametrize("count,card,check", [
    ("induced velocity elements", "induced velocity: 5, rotor, 1, 2, induced velocity, no;",
     dict(model="no", radius=0.0)),
    ("rotors", "rotor: 5, 1, orientation, eye, 2, induced velocity, uniform, 40., 5., delay, .5, "
     "correction, 1.2, 1.8, ground, 3;", dict(model="uniform", radius=5.0, ground=3, hover_correction=1.2)),
    ("rotors", "rotor: 5, 1, 2, induced velocity, glauert, type, pitt and peters, 40., 5., max iterations, 10, "
     "tolerance, 1e-6, eta, .5;", dict(model="glauert", glauert_type="pitt and peters", max_iterations=10,
                                       tolerance=1e-6, eta=0.5)),
    ("induced velocity elements", "induced velocity: 5, rotor, 1, 2, induced velocity, dynamic inflow, 40., 5., "
     "initial value, .01, .02, .03, output, no;", dict(model="dynamic inflow", output=False)),
    ("rotors", "rotor: 5, 1, 2, induced velocity, mangler, 40., 5.;", dict(model="mangler", omega_ref=40.0)),
    ("rotors", "rotor: 5, 1, 2, induced velocity, uniform, 40., 5., eta, .5, set, 2, node, 3, local, 2, 7, 8, "
     "external, 1, 9, output, yes;", dict(sets=(("local", 3, (7, 8)), ("external", None, (9,))), output=True)),
])
def test_deck_cards(count, card, check):
    deck = parse_deck(DECK.format(count=count, card=card), echo=lambda *a, **k: None)
    spec, = deck.model.induced_velocities
    for k, v in check.items():
        assert getattr(spec, k) == v, k
    if spec.model == "dynamic inflow":
        assert np.allclose(spec.initial_value, [0.01, 0.02, 0.03])


@pytest.mark.parametrize("card,needle", [
    ("rotor: 5, 1, 2, induced velocity, uniform, 40., 5., tolerence, 1e-6;", "tolerence"),
    ("rotor: 5, 1, 2, induced velocity, unifrom, 40., 5.;", "unifrom"),
    ("rotor: 5, 1, 2, induced velocity, glauert, type, gluert, 40., 5.;", "gluert"),
    ("rotor: 5, 1, 2, induced velocity, dynamic inflow, 40., 5., delay, .5;", "delay"),
    ("rotor: 5, 1, 2, induced velocity, uniform, -40., 5.;", "-40."),
    ("rotor: 5, 1, 2, induced velocity, uniform, 40., 5., set, 1, nodes, 3, 1, 7;", "nodes"),
])
def test_deck_card_faults_are_located(card, needle):
    with pytest.raises(DeckError) as e:
        parse_deck(DECK.format(count="rotors", card=card), echo=lambda *a, **k: None)
    assert needle in str(e.value)


def _frame(a, b):
    """MBDyn's `1, a, 2, b` orientation: axis 1 along a, axis 2 in the plane of a and b."""
    e1 = np.asarray(a, float) / np.linalg.norm(a)
    e3 = np.cross(e1, b)
    e3 /= np.linalg.norm(e3)
    return np.column_stack([e1, np.cross(e3, e1), e3])


# MBDyn 1.7.3's .rot rows (columns 8-19) of this model written as a deck (clamped craft node 1; rotor
# node 2 dynamic, at 1, 2, 3, orientation 1, (.1, .2, 1), 2, (0, 1, 0), velocity (3, -4, 1.5), angular
# velocity (.3, -.2, 40); body 10 kg, diag(1, 1, 2); air properties 1.225, 340., 1., 0., .5, const, 10.;
# `induced velocity: 5, rotor, 1, orientation, 1, .2, 0., 1., 2, 0., 1., 0., 2, induced velocity,
# dynamic inflow, 40., 5., initial value, .01, .02, -.03;` ms .6, h = .01, tolerance 1e-9), at t = 0 and .05
MBDYN_ROT = np.array([
    [2.000081e+00, 8.789198e+00, 7.794234e-01, 3.125834e-02, 3.088704e-02, 7.913729e-01, 6.942421e-01, 1, 0,
     1.000000e-02, 2.000000e-02, -3.000000e-02],
    [1.705053e+00, 8.789198e+00, 7.794234e-01, 3.125502e-02, 3.088375e-02, 7.913729e-01, 6.942421e-01, 1, 0,
     8.524012e-03, 1.367772e-02, -1.628414e-02]])


def test_dynamic_inflow_rot_rows_agree_with_mbdyn(tmp_path):
    """A spinning, precessing rotor node in a free stream, no thrust: the dynamic inflow states
    decay under Ω L⁻¹ and the .rot columns (mean inflow, velocity, disk angle, μ, λ, χ, ψ₀,
    convergence, iterations, ν₀, ν_s, ν_c) agree with MBDyn 1.7.3's to its 7 printed digits."""
    m = Model()
    m.structural_node(1, "static", position=np.zeros(3))
    m.structural_node(2, "dynamic", position=np.array([1.0, 2.0, 3.0]), orientation=_frame([0.1, 0.2, 1.0], [0, 1, 0]),
                      velocity=np.array([3.0, -4.0, 1.5]), angular_velocity=np.array([0.3, -0.2, 40.0]))
    m.body(2, 2, 10.0, np.zeros(3), np.diag([1.0, 1.0, 2.0]))
    m.clamp(1, 1)
    m.induced_velocity(5, 1, 2, "dynamic inflow", 40.0, 5.0, orientation=_frame([0.2, 0.0, 1.0], [0, 1, 0]),
                       initial_value=[0.01, 0.02, -0.03], air=(1.225, 340.0, np.array([10.0, 0.0, 5.0])))
    mbdae.run(m, final_time=0.05, time_step=1e-2, tolerance=1e-9, output_prefix=str(tmp_path / "r"))
    rows = np.loadtxt(tmp_path / "r.rot")
    assert rows.shape == (6, 19)
    assert np.allclose(rows[[0, -1], 7:], MBDYN_ROT, rtol=2e-6, atol=1e-9)
    assert np.all(rows[:, 1:7] == 0.0)


def test_inflow_jacobian_for_the_aerodynamic_elements():
    """rotor_inflow_jacobian: dynamic inflow u = (ν₀ + r(ν_c cos ψ + ν_s sin ψ)) ΩR n has
    ∂u/∂ν₀ = ΩR n, ∂u/∂ν_c = r cos ψ ΩR n; turning the craft node by θ turns n: ∂u/∂θ = −u×
    (hover, point on the axis, r = 0); the thrust enters λ only (no effect on u here)."""
    ip, fp = instance("dynamic inflow")
    nk = nodes_kin()
    s = (0.03, 0.01, -0.02)
    P, z, air = params(ip, fp, 2e4, nk, s=s)
    du_dx, du_dz, du_dn = np.empty((3, 3)), np.empty((3, 9)), np.empty((3, 24))
    r, psi = 0.6, 0.8
    rk.rotor_inflow_jacobian(ip, fp, z, nk, air, disk_point(r, psi), du_dx, du_dz, du_dn)
    vt = OMEGA * RADIUS
    assert np.allclose(du_dz[:, 6], [0, 0, vt], rtol=1e-8)
    assert np.allclose(du_dz[:, 8], [0, 0, r * math.cos(psi) * vt], rtol=1e-7)
    assert np.allclose(du_dz[:, 7], [0, 0, r * math.sin(psi) * vt], rtol=1e-7)
    assert np.allclose(du_dz[:, :6], 0.0, atol=1e-6)
    rk.rotor_inflow_jacobian(ip, fp, z, nk, air, np.zeros(3), du_dx, du_dz, du_dn)
    u = np.array([0.0, 0.0, s[0] * vt])
    skew_u = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    assert np.allclose(du_dn[:, 3:6], -skew_u, atol=1e-6)


THIN_AIRFOIL = "/work/shared/mbdyn-tests/aero/ThinAirfoil2.c81"      # c_l = 2πα (to 9°), c_d = c_m = 0
HOVER_DECK = """begin: data; problem: initial value; end: data;
begin: initial value;
    initial time: 0.; final time: 0.1; time step: 1e-3;
    method: ms, .6; tolerance: 1e-8; max iterations: 30;
    derivatives tolerance: 1e+4; derivatives max iterations: 20;
end: initial value;
begin: control data;
    structural nodes: 2; joints: 2; air properties; induced velocity elements: 1; aerodynamic elements: 4;
end: control data;
set: real omega = 20.; set: real R = 2.; set: real x0 = .2; set: real theta = 8.*deg2rad; set: real c = .1;
begin: nodes;
    structural: 1, static, null, eye, null, null;
    structural: 2, static, null, eye, null, 0., 0., omega;
end: nodes;
begin: elements;
    joint: 1, clamp, 1, node, node;
    joint: 2, axial rotation, 1, null, hinge, eye, 2, null, hinge, eye, const, omega;
    air properties: 1.225, 340., 1., 0., 0., const, 0.;
    c81 data: 1, "{c81}", free format;
    induced velocity: 1, rotor, 1, 2, induced velocity, uniform, omega, R, max iterations, 50, tolerance, 1e-12;
{blades}
end: elements;
"""
BLADE = """    aerodynamic body: {label}, 2, induced velocity, 1, {cx}*(x0 + 1.)*R/2., {cy}*(x0 + 1.)*R/2., 0.,
        1, {ux}, {uy}, 0., 3, {cx}, {cy}, 0.,
        (1. - x0)*R, const, c, const, 0., const, 0., const, theta, 5, c81, 1;"""


@pytest.mark.skipif(not __import__("os").path.exists(THIN_AIRFOIL), reason="MBDyn's test decks not available")
def test_hovering_rotor_with_aerodynamic_blades(tmp_path):
    """Four rigid blades (aerodynamic bodies, c_l = 2πα, no drag, root cut-out x₀ = 0.2, pitch θ)
    on a rotor spun at Ω, uniform inflow fed by their thrust: the steady thrust and inflow are the
    blade-element/momentum solution C_T = (σa/2)(θ(1 − x₀³)/3 − λ(1 − x₀²)/2), C_T = 2λ²
    (Leishman, Principles of Helicopter Aerodynamics, 2nd ed., 3.3) up to the small-angle
    approximations (0.5 %), u = √(T/(2ρA)) exactly, and MBDyn 1.7.3's .rot numbers for this deck
    (T = 114.1169 N, u = 1.925249 m/s, λ = 0.04813124)."""
    blades = "\n".join(BLADE.format(label=11 + k, cx=cx, cy=cy, ux=ux, uy=uy) for k, (cx, cy, ux, uy) in
                       enumerate(((1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0))))
    path = tmp_path / "hover.mbd"
    path.write_text(HOVER_DECK.format(c81=THIN_AIRFOIL, blades=blades))
    mbdae.run(read_deck(str(path), echo=lambda *a, **k: None), output_prefix=str(tmp_path / "h"))
    row = np.loadtxt(tmp_path / "h.rot")[-1]
    T, u, lam = row[3], row[7], row[11]
    R, Om, rho = 2.0, 20.0, 1.225
    sigma, a, theta, x0 = 4 * 0.1 / (math.pi * R), 2 * math.pi, math.radians(8.0), 0.2
    B2, B3 = 1 - x0 ** 2, (1 - x0 ** 3) / 3
    p, q = sigma * a / 4 * B2, -sigma * a / 2 * theta * B3           # 2λ² + pλ + q = 0
    lam_bemt = (-p + math.sqrt(p * p - 8 * q)) / 4
    T_bemt = 2 * lam_bemt ** 2 * rho * math.pi * R ** 2 * (Om * R) ** 2
    assert T == pytest.approx(T_bemt, rel=5e-3) and lam == pytest.approx(lam_bemt, rel=5e-3)
    assert u == pytest.approx(math.sqrt(T / (2 * rho * math.pi * R ** 2)), rel=1e-6)     # .rot: 7 digits
    assert (T, u, lam) == pytest.approx((114.1169, 1.925249, 0.04813124), rel=2e-6)


def test_dynamic_inflow_rows_are_invariant_to_a_turn_about_the_rotor_axis():
    """Turning the free stream and the rotor's moment together by β about the rotor axis leaves
    the dynamic inflow rows unchanged: C_l and C_m are taken in the wind frame (ψ₀ from the wind
    direction, moment turned by R_z(−ψ₀)), and a roll moment about the wind axis drives ν_s only."""
    ip, fp = instance("dynamic inflow")
    nk = nodes_kin()
    air0 = np.array([RHO, 340.0, 12.0, 5.0, -1.0])
    z = np.zeros(rk.NZ)
    z[:6] = [30.0, -20.0, 2e4, 900.0, -400.0, 50.0]
    z[rk.Z_S:rk.Z_S + 3] = (0.03, 0.01, -0.02)
    P = np.empty(rk.NP)
    ref = np.empty(3)
    rk.dynamic_inflow_rows(ip, fp, z, np.zeros(3), nk, air0, P, ref)
    for beta in (0.4, 2.0, -2.9):
        c, s = math.cos(beta), math.sin(beta)
        Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        air, zt, out = air0.copy(), z.copy(), np.empty(3)
        air[2:5] = Rz @ air0[2:5]
        zt[0:3], zt[3:6] = Rz @ z[0:3], Rz @ z[3:6]
        rk.dynamic_inflow_rows(ip, fp, zt, np.zeros(3), nk, air, P, out)
        assert np.allclose(out, ref, rtol=1e-12, atol=1e-12)
    # a moment about the wind axis (roll): only the ν_s row sees it
    psi0 = math.atan2(5.0, 12.0)
    z2 = z.copy()
    z2[3:6] += 500.0 * np.array([math.cos(psi0), math.sin(psi0), 0.0])
    out = np.empty(3)
    rk.dynamic_inflow_rows(ip, fp, z2, np.zeros(3), nk, air0, P, out)
    dim = RHO * AREA * OMEGA * RADIUS ** 3
    assert out[0] == pytest.approx(ref[0], rel=1e-12) and out[2] == pytest.approx(ref[2], rel=1e-12)
    assert out[1] - ref[1] == pytest.approx(-500.0 / dim, rel=1e-10)


@pytest.mark.skipif(not __import__("os").path.exists(THIN_AIRFOIL), reason="MBDyn's test decks not available")
@pytest.mark.parametrize("dcoef", [1e-2, 1.0])
def test_coupled_jacobian_with_theodorsen_states(dcoef):
    """Rotor coupling with aerodynamic elements that own Theodorsen states (13.69-13.71): the
    assembled Jacobian, rotor rows and columns included, against central differences through
    the solver's update rule."""
    import sys
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    from samples import randomize_state
    rng = np.random.default_rng(3)
    m = Model()
    random_nodes(m, rng, 4)
    m.air_properties(1.225, [6.0, 1.0, -0.5], sound_speed=340.0)
    m.c81_data(1, THIN_AIRFOIL, "free format")
    m.induced_velocity(1, 1, 2, "dynamic inflow", 40.0, 5.0, initial_value=[0.02, 0.01, -0.01])
    m.induced_velocity(2, 1, 2, "mangler", 40.0, 5.0, orientation=random_rotation(rng))
    m.aerodynamic_body(11, 3, span=1.0, chord=0.3, points=2, induced_velocity=1, airfoil=Airfoil("theodorsen", (1,)))
    m.aerodynamic_beam2(12, (3, 4), chord=0.2, points=1, induced_velocity=2, airfoil=Airfoil("theodorsen", (1,)))
    system = System(m)
    st = randomize_state(system, rng)
    st.y[system.nodes.ig_rot] *= 0.1
    err, scale, r, c, Ja, Jf = jacobian_mismatch(system, st, dcoef, eps=1e-6)
    assert err <= 1e-5 * max(scale, 1.0), (system.owner_text(r), system.owner_text(c), Ja[r, c], Jf[r, c])


def test_a_rotor_needs_air():
    """As MBDyn (which aborts "while no air properties are defined"), a rotor without air is an error."""
    m = Model()
    m.structural_node(1, "static", position=np.zeros(3))
    m.structural_node(2, "static", position=np.zeros(3))
    m.induced_velocity(3, 1, 2, "no")
    with pytest.raises(ValueError, match="air properties are not defined"):
        System(m)


@pytest.mark.skipif(not __import__("os").path.exists(THIN_AIRFOIL), reason="MBDyn's test decks not available")
def test_rotor_moment_is_taken_about_the_craft_node(tmp_path):
    """MBDyn sums the rotor's moment about the craft node's position (ResetForce's pole), not the
    rotor node's: the hovering rotor above with its craft node 1 at (0.3, −0.2, −1) and a 6 m/s
    edgewise stream; .rot columns 2-13 against MBDyn 1.7.3's at t = 0.05 s."""
    blades = "\n".join(BLADE.format(label=11 + k, cx=cx, cy=cy, ux=ux, uy=uy) for k, (cx, cy, ux, uy) in
                       enumerate(((1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0))))
    text = HOVER_DECK.format(c81=THIN_AIRFOIL, blades=blades)
    for a, b in (("structural: 1, static, null, eye, null, null;", "structural: 1, static, 0.3, -0.2, -1., eye, null, null;"),
                 ("axial rotation, 1, null, hinge", "axial rotation, 1, -0.3, 0.2, 1., hinge"),
                 ("1., 0., 0., const, 0.;", "1., 0., 0., const, 6.;"), ("final time: 0.1;", "final time: 0.05;")):
        assert a in text
        text = text.replace(a, b)
    path = tmp_path / "offset.mbd"
    path.write_text(text)
    mbdae.run(read_deck(str(path), echo=lambda *a, **k: None), output_prefix=str(tmp_path / "o"))
    row = np.loadtxt(tmp_path / "o.rot")[-1]
    mbdyn = [9.789048e-01, -5.273818e-06, 1.776196e+02, 9.533595e+01, 5.426466e+01, -8.336448e+00, 9.497083e-01,
             6.0, 0.0, 1.5e-01, 2.374271e-02, 1.413814e+00]
    assert np.allclose(row[1:13], mbdyn, rtol=2e-6, atol=1e-9)


@pytest.mark.skipif(not __import__("os").path.exists(THIN_AIRFOIL), reason="MBDyn's test decks not available")
def test_resultant_sets_agree_with_mbdyn(tmp_path):
    """`set, 2, node, 2, 2, 11, 12, node, 2, local, 2, 13, 14`: after each rotor row, the rows
    `label:i` with the loads of the set's blades about node 2 (global, then in the node's frame);
    each holds half the thrust, and MBDyn 1.7.3's rows at t = 0.013 s."""
    blades = "\n".join(BLADE.format(label=11 + k, cx=cx, cy=cy, ux=ux, uy=uy) for k, (cx, cy, ux, uy) in
                       enumerate(((1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0))))
    text = HOVER_DECK.format(c81=THIN_AIRFOIL, blades=blades)
    for a, b in (("tolerance, 1e-12;", "tolerance, 1e-12, set, 2, node, 2, 2, 11, 12, node, 2, local, 2, 13, 14;"),
                 ("final time: 0.1;", "final time: 0.013;")):
        text = text.replace(a, b)
    path = tmp_path / "sets.mbd"
    path.write_text(text)
    mbdae.run(read_deck(str(path), echo=lambda *a, **k: None), output_prefix=str(tmp_path / "s"))
    lines = (tmp_path / "s.rot").read_text().splitlines()[-3:]
    assert [ln.split()[0] for ln in lines] == ["1", "1:1", "1:2"] and lines[1].startswith("       1:1 ")
    main, s1, s2 = (np.array([float(v) for v in ln.split()[1:]]) for ln in lines)
    assert s1[2] == pytest.approx(main[2] / 2, rel=1e-6) and s2[2] == pytest.approx(main[2] / 2, rel=1e-6)
    assert np.allclose(s1, [2.081567, -1.206778, 57.06956, 57.25858, -33.19538, -5.492577], rtol=2e-6)
    assert np.allclose(s2, [-1.701358, 1.701358, 57.06956, -46.79999, 46.79999, -5.492577], rtol=2e-6)
