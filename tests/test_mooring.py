"""Mooring families (issue 19, elements/mooring.py) against physics and published values:

- catenary lines: the inextensible catenary y = a cosh(x/a) in closed form (suspended, touching
  the seabed, hanging below its anchor), V = w × suspended length; the elastic line with seabed
  contact and seabed friction against an independently discretized line (N lumped weights and
  elastic segments marched from the fairlead, its two end conditions solved by scipy's fsolve);
  the slack state and its continuity;
- the OC3-Hywind mooring system (Jonkman 2010, "Definition of the Floating System for Phase IV
  of OC3", NREL/TP-500-47535): the linearized stiffness about the undisplaced position from
  the element's analytic Jacobian against the report's values, and the total vertical
  pretension against buoyancy minus weight of the published system;
- taut springs: a body on an axial spring oscillates at √(k/m); springs only conserve the
  energy; a slack tension-only line carries nothing;
- the mooring matrix (MBS4WEC eq. 11) against the formula, and a body on it against the
  linear modal solution (surge-pitch coupling through the point's offset, damped heave);
- deck cards (misspelled keywords rejected by name) and the error naming a line that cannot
  reach its anchor, at set-up and during a run.
The FD Jacobians are the registry's generated checks (tests/test_element_checks.py)."""
import math

import numpy as np
import pytest
from scipy.optimize import fsolve
from scipy.spatial.transform import Rotation

from mbdae import Model, run, solve_static, SimulationFailed
from mbdae.engine.system import System
from mbdae.engine.core.state import Context, InvalidConfiguration
from mbdae.engine.core.drives import LinearDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.io.mbdyn import reference as mr
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from mbdae.elements.mooring_kernel import catenary_batch, SUSPENDED, TOUCHING, SLACK, OK

G = 9.80665


def solve_lines(xF, zF, L, w, EA, CB=0.0, seabed=True):
    """(H, V, state, status) of independent lines by the element's compiled solver."""
    xF = np.atleast_1d(np.asarray(xF, float))
    n = len(xF)
    arr = lambda v: np.broadcast_to(np.asarray(v, float), (n,)).copy()      # noqa: E731
    out = np.zeros((n, 4))
    catenary_batch(xF, arr(zF), arr(L), arr(w), 1.0 / arr(EA), arr(CB), np.broadcast_to(seabed, (n,)).copy(), out)
    return out[:, 0], out[:, 1], out[:, 2].astype(int), out[:, 3].astype(int)


def family_blocks(model, dcoef=1.0, st=None):
    """(rows (ne, 6), Jacobian (ne, 6, 6), family, context) of the model's only family."""
    system = System(model)
    st = system.initial_state(0.0) if st is None else st
    fam = system.families[0]
    ctx = Context(st.t, st.y, st.yp, system.kinematics(st, dcoef))
    res = [np.zeros(r.shape) for r in fam.pattern.res]
    jac = [np.zeros(R.shape) for R, C in fam.pattern.jac]
    fam.evaluate(ctx, res, jac)
    return res[0], jac[0], fam, ctx


# =========================================================================== catenary closed forms

@pytest.mark.parametrize("a,x1,x2,seabed", [(50.0, 10.0, 80.0, True), (200.0, 30.0, 400.0, True),
                                            (40.0, -30.0, 60.0, False), (80.0, -90.0, -10.0, False)])
def test_inextensible_suspended_catenary(a, x1, x2, seabed):
    """A line along y = a cosh(x/a) from the anchor at x1 to the fairlead at x2 (Irvine 1981):
    L = a (sinh(x2/a) - sinh(x1/a)), H = w a, V = w a sinh(x2/a), the anchor's vertical
    tension w a sinh(x1/a) (negative: the line first descends from its anchor, no seabed)."""
    w = 3.7
    L = a * (math.sinh(x2 / a) - math.sinh(x1 / a))
    xF, zF = x2 - x1, a * (math.cosh(x2 / a) - math.cosh(x1 / a))
    H, V, state, status = solve_lines(xF, zF, L, w, np.inf, seabed=seabed)
    assert status[0] == OK and state[0] == SUSPENDED
    np.testing.assert_allclose([H[0], V[0]], [w * a, w * a * math.sinh(x2 / a)], rtol=1e-10)
    np.testing.assert_allclose(V[0] - w * L, w * a * math.sinh(x1 / a), rtol=1e-9, atol=1e-9 * w * a)


@pytest.mark.parametrize("a,LB,x2", [(50.0, 100.0, 70.0), (300.0, 20.0, 500.0), (10.0, 1.0, 5.0)])
def test_inextensible_catenary_touching_the_seabed(a, LB, x2):
    """The line lies LB on the seabed up to the catenary's vertex, then follows y = a(cosh(x/a) - 1)
    to the fairlead: H = w a and V = w a sinh(x2/a) = w × the suspended length; through the
    element (fairlead on a node at azimuth φ from its anchor) the force on the body is
    -H ĥ - V e and the output gives both tensions and the length on the seabed."""
    w = 2.5
    Ls = a * math.sinh(x2 / a)
    L, xF, zF = LB + Ls, LB + x2, a * (math.cosh(x2 / a) - 1.0)
    H, V, state, status = solve_lines(xF, zF, L, w, np.inf)
    assert status[0] == OK and state[0] == TOUCHING
    np.testing.assert_allclose([H[0], V[0]], [w * a, w * Ls], rtol=1e-10)
    phi = 0.7
    h = np.array([math.cos(phi), math.sin(phi), 0.0])
    anchor = np.array([3.0, -2.0, -5.0])
    m = Model()
    m.structural_node(1, "static", position=anchor + xF * h + [0.0, 0.0, zF - 1.0])
    m.catenary_mooring(4, 1, [[0.0, 0.0, 1.0]], [anchor], L, w, np.inf)
    r, J, fam, ctx = family_blocks(m)
    labels, line, rows = fam.line_outputs(ctx)
    assert labels.tolist() == [4] and line.tolist() == [1] and rows[0, 0] == TOUCHING
    np.testing.assert_allclose(rows[0, 1:8], [math.hypot(w * a, w * Ls), w * a, w * a, w * Ls, w * a, 0.0, LB],
                               rtol=1e-9)
    F = -w * a * h - w * Ls * np.array([0.0, 0.0, 1.0])
    np.testing.assert_allclose(rows[0, 11:14], F, rtol=1e-9)
    np.testing.assert_allclose(r[0, :3], -F, rtol=1e-9)                   # node rows: -(applied load)
    np.testing.assert_allclose(r[0, 3:], -np.cross([0.0, 0.0, 1.0], F), rtol=1e-9, atol=1e-9 * w * a)


def march(HV, xF, zF, L, w, EA, N, CB):
    """End point of a discretized line hung from the fairlead (xF, zF) with fairlead tensions
    (H, V), the anchor being the origin: N elastic segments of unstretched length L/N
    (stretched by T/EA) and lumped weights w L/N (half at the ends), marched down from the
    fairlead; a segment whose vertical tension is not positive lies horizontal on the seabed,
    its tension decreasing node by node by the friction C_B × the node's weight (not below 0).
    Returns (end point - anchor, the last segment's tension)."""
    H, V = HV
    l0 = L / N
    x, z = xF, zF
    Vj, Hj = V - 0.5 * w * l0, H
    lying = 0
    for _ in range(N):
        if Vj <= 0.0:
            if lying:
                Hj = max(Hj - CB * w * l0, 0.0)
            lying += 1
            x -= l0 * (1.0 + Hj / EA)
            continue
        T = math.hypot(Hj, Vj)
        s = l0 * (1.0 + T / EA) / T
        x -= s * Hj
        z -= s * Vj
        Vj -= w * l0
    return [x, z], Hj


@pytest.mark.parametrize("xF,zF,CB,state", [(80.0, 30.0, 0.0, TOUCHING), (70.0, 60.0, 0.0, TOUCHING),
                                            (60.0, 80.0, 0.0, SUSPENDED), (80.0, 30.0, 0.05, TOUCHING),
                                            (80.0, 30.0, 0.5, TOUCHING)])
def test_elastic_catenary_matches_a_discretized_line(xF, zF, CB, state):
    """The elastic catenary with seabed contact (and the seabed friction of FAST/MAP, whose
    tension at the anchor is max(H - C_B w L_B, 0)) equals the limit of a discretized line
    (1000 segments): fairlead tensions to 1e-4, the anchor's horizontal tension too (within the
    friction of two lumped nodes)."""
    L, w, EA, N = 100.0, 1.0, 2000.0, 1000
    H, V, st, status = solve_lines(xF, zF, L, w, EA, CB)
    assert status[0] == OK and st[0] == state
    guess = np.array([1.3 * H[0], 0.8 * V[0]])           # the discrete solution does not depend on it
    sol, info, ier, msg = fsolve(lambda q: march(q, xF, zF, L, w, EA, N, CB)[0], guess, full_output=True,
                                 xtol=1e-13)
    assert ier == 1, msg
    np.testing.assert_allclose([H[0], V[0]], sol, rtol=1e-4)
    HA_discrete = march(sol, xF, zF, L, w, EA, N, CB)[1]
    LB = L - V[0] / w if st[0] == TOUCHING else 0.0
    HA = max(H[0] - CB * w * LB, 0.0)
    assert abs(HA - HA_discrete) <= 2e-4 * H[0] + 2 * CB * w * L / N      # the friction acts per lumped node
    if CB == 0.5:
        assert HA == 0.0            # the friction takes the whole tension before the anchor
    if CB == 0.05:
        assert HA > 0.0             # the tension reaches the anchor


def test_slack_line_and_its_continuity():
    """A fairlead close enough to its anchor lets the line lie slack: H = 0 and V the weight of
    the vertical part (z_F = V/w + V²/(2 w EA)); just beyond that point Newton's solution
    leaves it continuously (H → 0, V → V_slack)."""
    L, w, EA, zF = 100.0, 2.0, 1e4, 30.0
    Vs = (-1.0 + math.sqrt(1.0 + 2.0 * zF * w / EA)) * EA     # root of zF = V/w + V²/(2 w EA)
    x_edge = L - Vs / w
    H, V, st, status = solve_lines([0.5 * x_edge, x_edge - 1e-9, x_edge + 1e-6, x_edge + 1e-3], zF, L, w, EA)
    assert (status == OK).all() and st.tolist()[:2] == [SLACK, SLACK] and st[2] == TOUCHING
    np.testing.assert_allclose(V[:2], Vs, rtol=1e-12)
    assert H[0] == 0.0 and 0.0 < H[2] < H[3] < 1e-2 * w * L
    assert abs(V[2] - Vs) < 1e-3 * Vs and V[2] < V[3]


# =========================================================================== OC3-Hywind

def oc3_model():
    """The OC3-Hywind mooring system (NREL/TP-500-47535, its mooring table; the same data in
    public MAP/MoorDyn inputs): 3 lines at 120°, anchors at radius 853.87 m and 320 m depth,
    fairleads at radius 5.2 m and 70 m below the still water line (the platform reference
    point, here a static node at the origin), unstretched length 902.2 m, apparent weight in
    water 698.094 N/m, EA 384,243,000 N; seabed frictionless."""
    ang = np.radians([180.0, 60.0, -60.0])
    fair = np.column_stack([5.2 * np.cos(ang), 5.2 * np.sin(ang), np.full(3, -70.0)])
    anchor = np.column_stack([853.87 * np.cos(ang), 853.87 * np.sin(ang), np.full(3, -320.0)])
    m = Model()
    m.structural_node(1, "static")
    m.catenary_mooring(1, 1, fair, anchor, 902.2, 698.094, 384243000.0)
    return m


def test_oc3_hywind_linearized_stiffness_and_vertical_pretension():
    """The stiffness about the undisplaced position, K = ∂(node rows)/∂(x, θ) from the element's
    analytic Jacobian (dCoef = 1, g = 0), against the report's "linearized restoring" of the
    mooring system without its additional yaw spring: K11 = K22 = 41,180 N/m,
    K33 = 11,940 N/m, K44 = K55 = 311,100,000 N·m/rad, K15 = -K24 = -2,821,000 N/rad,
    K66 = 11,560,000 N·m/rad (4 significant digits; 0.5 % here), symmetric (a frictionless
    line is conservative).  The vertical pretension balances the published system: buoyancy of
    the spar (6.5 m diameter from +10 m to -4 m, taper to 9.4 m at -12 m, 9.4 m to -120 m;
    ρ = 1025 kg/m³) minus the weight of platform (7,466,330 kg), tower (249,718 kg) and
    rotor-nacelle assembly (350,000 kg), with g = 9.80665 m/s²."""
    r, J, fam, ctx = family_blocks(oc3_model())
    K = J[0]
    for (i, j), value in {(0, 0): 41180.0, (1, 1): 41180.0, (2, 2): 11940.0, (3, 3): 311.1e6, (4, 4): 311.1e6,
                          (0, 4): -2.821e6, (4, 0): -2.821e6, (1, 3): 2.821e6, (5, 5): 11.56e6}.items():
        assert abs(K[i, j] / value - 1.0) < 5e-3, (i, j, K[i, j], value)
    np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-9 * np.abs(K).max())
    volume = (math.pi / 4 * 6.5 ** 2 * 14.0 + math.pi * 8.0 / 12.0 * (9.4 ** 2 + 9.4 * 6.5 + 6.5 ** 2)
              + math.pi / 4 * 9.4 ** 2 * 108.0) - math.pi / 4 * 6.5 ** 2 * 10.0         # wetted: below z = 0
    net = 1025.0 * G * volume - (7466330.0 + 249718.0 + 350000.0) * G
    assert abs(r[0, 2] / net - 1.0) < 1e-4                 # node row = -(mooring load): downward pull
    np.testing.assert_allclose(r[0, [0, 1, 3, 4, 5]], 0.0, atol=1e-6 * net)
    labels, line, rows = fam.line_outputs(ctx)
    assert (rows[:, 0] == TOUCHING).all()
    np.testing.assert_allclose(rows[:, 4].sum(), net, rtol=1e-4)     # V per line, summed
    np.testing.assert_allclose(rows[:, 4], 698.094 * (902.2 - rows[:, 7]), rtol=1e-12)   # V = w × suspended


def test_oc3_hywind_static_offset_under_a_mean_surge_load():
    """Static equilibrium (load-stepped static driver) of the OC3 spar held in rotation, its
    net buoyancy and waterplane stiffness ρ g A_wp (diameter 6.5 m) as a mooring matrix with a
    vertical pretension about the still water line, under a surge force of 0.2 m × the report's
    K11: the spar drifts 0.2 m (1 %: the catenaries' stiffness changes little over that) and
    stays at its draft (the lines balance the net buoyancy)."""
    m = oc3_model()
    volume = (math.pi / 4 * 6.5 ** 2 * 4.0 + math.pi * 8.0 / 12.0 * (9.4 ** 2 + 9.4 * 6.5 + 6.5 ** 2)
              + math.pi / 4 * 9.4 ** 2 * 108.0)
    net = 1025.0 * G * volume - (7466330.0 + 249718.0 + 350000.0) * G
    K = np.zeros((6, 6))
    K[2, 2] = 1025.0 * G * math.pi / 4 * 6.5 ** 2
    m.mooring_matrix(2, 1, stiffness=K, pretension=[0.0, 0.0, net, 0.0, 0.0, 0.0])
    m.total_pin_joint(3, 1, orientation_status=("active",) * 3)
    m.force(4, 1, [0.2 * 41180.0, 0.0, 0.0], "absolute")
    res = solve_static(m, steps=4)
    x = res.node(1)[0][-1]
    assert abs(x[0] / 0.2 - 1.0) < 1e-2
    assert abs(x[1]) < 1e-9 and abs(x[2]) < 1e-3


# =========================================================================== taut springs (MCM)

def spring_on_body(k, L0, m, stretch, tension_only=False, damping=0.0):
    """A dynamic node with a rigid body of mass m at its origin, an axial spring to the anchor
    L0 + stretch below it (MCM's mooring lines: straight axial springs); no gravity."""
    model = Model()
    model.structural_node(1, "dynamic")
    model.body(1, 1, m, inertia=np.diag([1e7, 1e7, 1e7]))
    model.taut_mooring(2, 1, [0.0, 0.0, -(L0 + stretch)], stiffness=k, length=L0, damping=damping,
                       tension_only=tension_only)
    return model


def test_body_on_a_taut_spring_oscillates_at_sqrt_k_over_m():
    """MCM's line, k = 6.81e5 N/m, L0 = 564 m, on a 1e6 kg body stretched by 2 m:
    z(t) = -2 + 2 cos(√(k/m) t) along the line (Crank-Nicolson, 400 steps per period: its
    phase error (ωh)²/12 is 2e-5 of a period)."""
    k, L0, m, s = 6.81e5, 564.0, 1.0e6, 2.0
    omega = math.sqrt(k / m)
    period = 2 * math.pi / omega
    res = run(spring_on_body(k, L0, m, s), final_time=2 * period, time_step=period / 400, method="crank nicolson",
              tolerance=1e-6)
    x = res.node(1)[0]
    t = res.t
    np.testing.assert_allclose(x[:, 2], -s + s * np.cos(omega * t), rtol=0, atol=2e-3 * s)
    np.testing.assert_allclose(x[:, :2], 0.0, atol=1e-9)
    # the period from the upward zero crossings of z + s
    u = x[:, 2] + s
    cross = [t[i] - u[i] * (t[i + 1] - t[i]) / (u[i + 1] - u[i]) for i in range(len(u) - 1) if u[i] < 0 <= u[i + 1]]
    assert len(cross) == 2
    assert abs((cross[1] - cross[0]) / period - 1.0) < 1e-4


def test_springs_only_conserve_energy():
    """A free rigid body (offset centre of mass, full inertia) held by four taut springs at
    offset fairleads, no damping nor gravity, set moving and spinning: kinetic + spring energy
    is conserved up to the integrator's error, which Crank-Nicolson makes O(h²) without drift
    (halving h divides it by 4: the spring forces are conservative); with the fourth line
    tension only, going slack and taut again, the error stays within the same bound; with
    damping the energy decreases monotonically."""
    def model(damping, tension_only):
        m = Model()
        m.structural_node(1, "dynamic", velocity=[0.3, -0.2, 0.1], angular_velocity=[0.05, 0.1, -0.08])
        m.body(1, 1, 50.0, center_of_mass=[0.1, -0.2, 0.05], inertia=[[20.0, 1.0, 0.5], [1.0, 30.0, -2.0],
                                                                       [0.5, -2.0, 25.0]])
        m.taut_mooring(1, 1, [10.0, 0.0, -5.0], stiffness=400.0, length=10.0, offset=[1.0, 0.5, -1.0],
                       damping=damping)
        m.taut_mooring(2, 1, [-10.0, 2.0, -5.0], stiffness=300.0, length=10.5, offset=[-1.0, 0.0, -1.0],
                       damping=damping)
        m.taut_mooring(3, 1, [0.0, 10.0, -5.0], EA=3000.0, length=10.0, offset=[0.0, 1.0, -1.0], damping=damping)
        m.taut_mooring(4, 1, [0.0, -11.0, -6.0], stiffness=500.0, length=12.3, offset=[0.0, -1.0, -1.0],
                       tension_only=tension_only, damping=damping)
        return m

    def energy(damping, tension_only, h):
        """Kinetic energy of the body (velocity of its centre of mass, inertia about it) plus
        the springs' ½ k (l - L0)² (tension only: of the stretch), over a 4 s run; and the
        fourth line's stretch."""
        model_ = model(damping, tension_only)
        res = run(model_, final_time=4.0, time_step=h, method="crank nicolson", tolerance=1e-11)
        x, R, v, w = res.node(1)
        spec = model_.bodies[0]
        s = np.einsum("tij,j->ti", R, spec.xcg)
        vc = v + np.cross(w, s)
        Jc = np.einsum("tij,jk,tlk->til", R, spec.J_cg, R)
        E = 0.5 * spec.mass * np.einsum("ti,ti->t", vc, vc) + 0.5 * np.einsum("ti,tij,tj->t", w, Jc, w)
        fam = [f for f in System(model_).families if f.name == "taut mooring"][0]
        for e, sp in enumerate(model_.taut_moorings):
            p = x + np.einsum("tij,j->ti", R, sp.offset)
            stretch = np.linalg.norm(p - sp.anchor, axis=1) - fam.L0[e]
            E += 0.5 * fam.k[e] * (np.maximum(stretch, 0.0) if sp.tension_only else stretch) ** 2
        return E, stretch

    E1, _ = energy(0.0, False, 4e-3)
    E2, _ = energy(0.0, False, 2e-3)
    err1, err2 = np.abs(E1 / E1[0] - 1.0).max(), np.abs(E2 / E2[0] - 1.0).max()
    assert err2 < 5e-5 and 3.5 < err1 / err2 < 4.5
    E3, stretch4 = energy(0.0, True, 2e-3)
    assert stretch4.min() < -0.5 and stretch4.max() > 0.1          # the tension-only line goes slack and taut
    assert np.abs(E3 / E3[0] - 1.0).max() < 2 * err2
    E4, _ = energy(20.0, True, 4e-3)
    assert E4[-1] < 0.7 * E4[0] and np.all(np.diff(E4) < 1e-9 * E4[0])


def test_tension_only_slack_line_carries_nothing():
    """Tension only: T = k(l - L0) + c l̇ when taut, nothing (rows and Jacobian zero) when
    l < L0 or when a fast shortening makes T < 0; without the option the spring pushes."""
    k, c, L0 = 1000.0, 50.0, 10.0
    for dz, vz, expect in ((-1.0, 0.0, 0.0), (0.5, 0.0, k * 0.5), (0.5, -20.0, 0.0), (0.5, -2.0, k * 0.5 - c * 2.0)):
        for tension_only in (True, False):
            m = Model()
            m.structural_node(1, "dynamic", position=[0.0, 0.0, L0 + dz], velocity=[0.0, 0.0, vz])
            m.taut_mooring(1, 1, [0.0, 0.0, 0.0], stiffness=k, length=L0, damping=c, tension_only=tension_only)
            r, J, fam, ctx = family_blocks(m, dcoef=0.3)
            T_free = k * dz + c * vz
            T = expect if tension_only else T_free
            np.testing.assert_allclose(r[0], [0.0, 0.0, T, 0.0, 0.0, 0.0], atol=1e-9)   # -(force -T e_z)
            if tension_only and expect == 0.0:
                assert not J.any()
            assert np.isclose(fam.tension(ctx)[0][0], T)


# =========================================================================== mooring matrix (MBS4WEC eq. 11)

def test_mooring_matrix_is_eq_11_about_its_point():
    """τ = -C ν - K η + τ0 at the point p = x + R õ, η = [p - p0; rotation vector of R R0ᵀ],
    ν = [ṗ; ω] (computed here with scipy's rotation vector), the node rows -[F; M + o×F]."""
    rng = np.random.default_rng(3)
    K, C, P0 = rng.normal(size=(6, 6)), rng.normal(size=(6, 6)), rng.normal(size=6)
    R0 = Rotation.from_rotvec([0.2, -0.1, 0.3]).as_matrix()
    Rn = Rotation.from_rotvec([0.5, 0.4, -0.2]).as_matrix()
    off, p0 = np.array([0.3, -1.2, 0.8]), np.array([1.0, 2.0, -0.5])
    x, v, w = np.array([0.4, 1.7, -0.1]), np.array([0.2, -0.3, 0.5]), np.array([-0.4, 0.1, 0.6])
    m = Model()
    m.structural_node(1, "dynamic", position=x, orientation=Rn, velocity=v, angular_velocity=w)
    m.mooring_matrix(1, 1, K, C, offset=off, reference_position=p0, reference_orientation=R0, pretension=P0)
    r, J, fam, ctx = family_blocks(m)
    o = Rn @ off
    eta = np.concatenate([x + o - p0, Rotation.from_matrix(Rn @ R0.T).as_rotvec()])
    nu = np.concatenate([v + np.cross(w, o), w])
    tau = -C @ nu - K @ eta + P0
    F, M, eta_out = fam.wrench(ctx)
    np.testing.assert_allclose(np.concatenate([F[0], M[0]]), tau, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eta_out[0], eta, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r[0], -np.concatenate([tau[:3], tau[3:] + np.cross(o, tau[:3])]), atol=1e-12)


def test_body_on_a_mooring_matrix_follows_its_linear_modes():
    """A body (mass m, pitch inertia J at the node) on a mooring matrix at the point h above it,
    K11 = kx, K55 = kθ, and a heave spring-damper K33, C33: small surge-pitch motion follows the
    modes of M q̈ + K_n q = 0 with K_n = [[kx, kx h], [kx h, kθ + kx h²]] (the point's stiffness
    carried to the node), heave the damped oscillator z0 e^{-ζωt}(cos ω_d t + ζω/ω_d sin ω_d t)."""
    mass, J, h, kx, kth, kz, cz = 2.0e5, 5.0e6, 3.0, 4.0e4, 9.0e6, 6.0e4, 8.0e3
    x0, th0, z0 = 1e-4, 2e-5, 1e-4
    model = Model()
    model.structural_node(1, "dynamic", position=[x0, 0.0, z0],
                          orientation=Rotation.from_rotvec([0.0, th0, 0.0]).as_matrix())
    model.body(1, 1, mass, inertia=np.diag([J, J, J]))
    K = np.zeros((6, 6))
    K[0, 0], K[4, 4], K[2, 2] = kx, kth, kz
    C = np.zeros((6, 6))
    C[2, 2] = cz
    model.mooring_matrix(1, 1, K, C, offset=[0.0, 0.0, h], reference_position=[0.0, 0.0, h],
                         reference_orientation=np.eye(3))
    t_end = 40.0
    res = run(model, final_time=t_end, time_step=0.01, method="crank nicolson", tolerance=1e-14)
    x, R, v, w = res.node(1)
    t = res.t
    # surge-pitch: modal solution of the 2-DOF linear system (released from rest)
    Mq = np.diag([mass, J])
    Kq = np.array([[kx, kx * h], [kx * h, kth + kx * h * h]])
    lam, Phi = np.linalg.eig(np.linalg.solve(Mq, Kq))
    a = np.linalg.solve(Phi, [x0, th0])
    q = (Phi[None, :, :] * (a[None, None, :] * np.cos(np.sqrt(lam)[None, None, :] * t[:, None, None]))).sum(axis=2)
    pitch = Rotation.from_matrix(R).as_rotvec()[:, 1]
    np.testing.assert_allclose(x[:, 0], q[:, 0], rtol=0, atol=5e-3 * np.abs(q[:, 0]).max())
    np.testing.assert_allclose(pitch, q[:, 1], rtol=0, atol=5e-3 * np.abs(q[:, 1]).max())
    # heave: damped oscillator
    wn = math.sqrt(kz / mass)
    zeta = cz / (2 * math.sqrt(kz * mass))
    wd = wn * math.sqrt(1 - zeta ** 2)
    zt = z0 * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))
    np.testing.assert_allclose(x[:, 2], zt, rtol=0, atol=5e-3 * z0)


# =========================================================================== deck cards and errors

DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 0.05;
    time step: 1e-2;
    tolerance: 1e-9;
    method: crank nicolson;
end: initial value;
begin: control data;
    structural nodes: 1;
    rigid bodies: 1;
    joints: {joints};
end: control data;
begin: nodes;
    structural: 1, dynamic, 0., 0., 0., eye, null, null;
end: nodes;
begin: elements;
    body: 1, 1, 1000., null, diag, 100., 100., 100.;
{elements}
end: elements;
"""
CARDS = """\
    joint: 5, mooring matrix, 1, position, 0., 0., 1.,
        stiffness, diag, 10., 10., 20., 300., 300., 50.,
        damping, diag, 1., 1., 2., 3., 3., 4.,
        pretension, 0., 0., 5., 0., 0., 0.;
    joint: 6, taut mooring, 1, position, 1., 0., 0., anchor, 30., 0., -20.,
        EA, 5000., length, from nodes, damping, 2., tension only;
    joint: 7, catenary mooring, 1, lines, 2,
        1., 0., -1., anchor, 80., 0., -30., length, 100., weight, 1.5, EA, 1e5,
        position, -1., 0., -1., anchor, -80., 0., -30., length, 100., weight, 1.5, EA, inextensible,
        seabed friction, 0.2, output, yes;
"""


def _parse(tmp_path, text):
    path = tmp_path / "moor.mbd"
    path.write_text(text)
    return read_deck(str(path), echo=lambda *a: None)


def test_mooring_cards_read_run_and_write_their_files(tmp_path):
    """The three cards build the specs the Python API builds, the run writes .mrm, .mrt and .mrc
    (one row per element and step; a catenary element's row has 14 columns per line), whose
    first rows are the elements' loads at the initial configuration."""
    d = _parse(tmp_path, DECK.format(joints=3, elements=CARDS))
    m = d.model
    (mm,), (tm,), (cm,) = m.mooring_matrices, m.taut_moorings, m.catenary_moorings
    np.testing.assert_allclose(np.diag(mm.K), [10, 10, 20, 300, 300, 50])
    np.testing.assert_allclose(mm.pretension, [0, 0, 5, 0, 0, 0])
    np.testing.assert_allclose(mm.offset, [0, 0, 1])
    assert (tm.EA, tm.length, tm.damping, tm.tension_only, tm.stiffness) == (5000.0, None, 2.0, True, None)
    np.testing.assert_allclose(cm.anchors, [[80, 0, -30], [-80, 0, -30]])
    assert np.isinf(cm.EA[1]) and cm.EA[0] == 1e5 and cm.friction.tolist() == [0.2, 0.2] and cm.seabed
    text = DECK.format(joints=3, elements=CARDS)
    assert cm.where == f"{tmp_path / 'moor.mbd'}:{text.count(chr(10), 0, text.index('catenary mooring')) + 1}"
    prefix = str(tmp_path / "out")
    d.run(output_prefix=prefix)
    blocks = {ext: mr.blocks(mr.read_lines(f"{prefix}.{ext}")) for ext in ("mrm", "mrt", "mrc")}
    assert len(blocks["mrc"]) == len(blocks["mrt"]) == len(blocks["mrm"]) == 6     # steps 0 ... 5
    row = blocks["mrc"][0][7].reshape(2, 14)          # one row per element: 14 columns per line
    H, V, state, status = solve_lines([79.0, 79.0], 29.0, 100.0, 1.5, [1e5, np.inf], 0.2)
    np.testing.assert_allclose(row[:, 3], H, rtol=1e-5)
    np.testing.assert_allclose(row[:, 4], V, rtol=1e-5)
    np.testing.assert_allclose(row[:, 0], state)
    np.testing.assert_allclose(row[:, 8:11], [[1.0, 0.0, -1.0], [-1.0, 0.0, -1.0]], atol=1e-12)
    T = float(mr.read_lines(f"{prefix}.mrt")[0].split()[1])
    assert T == 0.0                       # `from nodes`: unstretched at the start, tension only
    mrm = list(map(float, mr.read_lines(f"{prefix}.mrm")[0].split()))
    np.testing.assert_allclose(mrm[1:7], [0, 0, 5, 0, 0, 0], atol=1e-12)   # pretension only at rest


@pytest.mark.parametrize("card,needle,message", [
    ("joint: 5, mooring matrix, 1, stifness, eye;", "stifness",
     "mooring matrix: unknown keyword (expected one of 'stiffness', 'damping', 'reference position', "
     "'reference orientation', 'pretension', 'output')"),
    ("joint: 5, mooring matrix, 1, position, 0., 0., 1.;", "mooring matrix",
     "mooring matrix: 'stiffness' or 'damping' is required"),
    ("joint: 5, mooring matrix, 1, stiffness, eye, stiffness, eye;", "stiffness, eye;",
     "mooring matrix: keyword given twice"),
    ("joint: 6, taut mooring, 1, null, anchor, 0., 0., -10., stiffness, 10., tension-only;", "tension-only",
     "taut mooring: unknown keyword (expected one of 'stiffness', 'EA', 'length', 'damping', "
     "'tension only', 'output')"),
    ("joint: 6, taut mooring, 1, null, anchor, 0., 0., -10., stiffness, 10., EA, 5.;", "EA",
     "taut mooring: keyword given twice (or both stiffness and EA)"),
    ("joint: 6, taut mooring, 1, null, ancor, 0., 0., -10., stiffness, 10.;", "ancor",
     "syntax error: 'anchor' expected"),
    ("joint: 7, catenary mooring, 1, lines, 1, null, anchor, 50., 0., -30., length, 100., weigth, 1., EA, 1e5;",
     "weigth", "syntax error: 'weight' expected"),
    ("joint: 7, catenary mooring, 1, lines, 1, null, anchor, 50., 0., -30., length, 100., weight, 1., EA, 1e5, "
     "seabed fricton, 0.1;", "seabed fricton",
     "catenary mooring: unknown keyword (expected one of 'seabed friction', 'no seabed', "
     "'vertical', 'output')"),
    ("joint: 7, catenary mooring, 1, lines, 1, null, anchor, 50., 0., -30., length, -100., weight, 1., EA, 1e5;",
     "-100.", "catenary mooring, line 1: the length must be positive"),
])
def test_misspelled_and_invalid_mooring_cards_are_rejected_by_name(tmp_path, card, needle, message):
    """An unknown keyword, a missing or repeated one, a wrong value: a DeckError at its word,
    which the message names."""
    text = DECK.format(joints=1, elements="    " + card)
    with pytest.raises(DeckError) as info:
        _parse(tmp_path, text)
    i = text.index(needle, text.index("joint:"))
    line, col = text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)
    word = needle.split(",")[0]
    assert str(info.value) == f"{tmp_path / 'moor.mbd'}:{line}:{col}: {message} (at '{word}')"


def test_a_line_that_cannot_reach_its_anchor_is_named(tmp_path):
    """At set-up: the deck's inextensible line 2 is shorter than its fairlead-anchor distance
    (the error names the element, its deck line and the line).  During a run: the node driven
    away from the anchors makes line 2 of element 7 unreachable; the run fails naming it."""
    bad = CARDS.replace("anchor, -80., 0., -30., length, 100.", "anchor, -80., 0., -30., length, 80.")
    text = DECK.format(joints=3, elements=bad)
    line7 = text.count("\n", 0, text.index("catenary mooring")) + 1
    with pytest.raises(ValueError) as info:
        System(_parse(tmp_path, text).model)
    assert str(info.value) == (f"catenary mooring 7 ({tmp_path / 'moor.mbd'}:{line7}), line 2: it cannot reach its "
                               f"anchor: the fairlead-anchor distance 84.1546196 is not shorter than the inextensible "
                               f"line's length 80 at the initial configuration")

    m = Model()
    m.structural_node(1, "static")
    m.total_pin_joint(1, 1, position_status=("active",) * 3, orientation_status=("active",) * 3,
                      position_drive=VectorDrive.single([1.0, 0.0, 0.0], LinearDrive(0.0, 10.0)))
    m.catenary_mooring(7, 1, [[1.0, 0.0, -1.0], [-1.0, 0.0, -1.0]], [[80.0, 0.0, -30.0], [-80.0, 0.0, -30.0]],
                       100.0, 1.5, [1e5, np.inf])
    system = System(m)
    st = system.initial_state(0.0)
    st.y[system.nodes.ix[0]] = [30.0, 0.0, 0.0]           # line 2 would need 112.8 > 100
    with pytest.raises(InvalidConfiguration, match=r"^catenary mooring 7, line 2: it cannot reach its anchor: "
                                                   r"the fairlead-anchor distance 112\.7918437 is not shorter than the "
                                                   r"inextensible line's length 100 at t = 0$"):
        system.evaluate(st, 0.1)
    with pytest.raises(SimulationFailed, match=r"catenary mooring 7, line 2: it cannot reach its anchor"):
        run(m, final_time=4.0, time_step=0.05)
