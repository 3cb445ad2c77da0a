"""Unsteady airfoil models (engine/core/airfoil.py): the alpha-rate memory against exact
derivatives of a parabola, Bielawa's corrections (symmetry, steady limit, stall delay), and
the two-state Theodorsen/Wagner model against Theodorsen's function C(k) = F + iG from
Hankel functions, its quasi-steady limit and its state Jacobian by finite differences."""
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import hankel2

from mbdae.engine.core import airfoil as af

SHARED = Path("/work/shared/mbdyn-tests")
NACA = SHARED / "aero" / "naca0012.c81"
THIN = SHARED / "aero" / "ThinAirfoil2.c81"
need_shared = pytest.mark.skipif(not NACA.exists(), reason="MBDyn test data not present")
RHO, CS = 1.225, 340.0


# ------------------------------------------------------------------------ alpha memory

@pytest.mark.parametrize("t0", [0.3, 250.0])
def test_alpha_rates_exact_on_a_parabola(t0):
    """AeroMemory::Predict fits the parabola through the last two committed (t, α) and the
    current one: exact α̇ and α̈ for α(t) = a + b t + c t², any steps; zero until three
    steps were committed.  MBDyn forms the parabola's coefficients in absolute time
    (polcoe), which loses about (t/Δt)² ε of relative accuracy: the tolerance is 1e4 times
    that bound."""
    a, b, c = 0.1, 0.3, -0.7
    alpha = lambda t: a + b * (t - t0) + c * (t - t0) ** 2
    ha, ht = np.zeros(2), np.zeros(2)
    times = [t0, t0 + 0.02, t0 + 0.035, t0 + 0.041]
    tol = 1e4 * np.finfo(float).eps * (times[-1] / 0.006) ** 2
    n = 0
    for k, t in enumerate(times):
        a1, a2 = af.predict_alpha_rates(alpha(t), t, ha, ht, n)
        if n < 3:
            assert (a1, a2) == (0.0, 0.0)
        else:
            assert a1 == pytest.approx(b + 2 * c * (t - t0), rel=tol)
            assert a2 == pytest.approx(2 * c, rel=tol)
        af.update_alpha_history(alpha(t), t, ha, ht)
        n += 1
    a1, a2 = af.predict_alpha_rates(alpha(times[-1] + 0.01), times[-1] + 0.01, ha, ht, n)
    assert a2 == pytest.approx(2 * c, rel=tol)


# ---------------------------------------------------------------------------- Bielawa

def _loads(model, alpha_deg, V, alf1, alf2, chord=0.5):
    ints, floats, starts = af.pack_airfoils([model])
    a = math.radians(alpha_deg)
    W = np.array([V * math.cos(a), -V * math.sin(a), 0.0, 0.0, 0.0, 0.0])
    TNG, OUTA = np.zeros(6), np.zeros(20)
    rc = af.airfoil_loads(ints, floats, starts[0], W, np.array([RHO, CS, chord, 0.0, 0.0, 0.0]),
                          alf1, alf2, TNG, OUTA)
    assert rc == 0
    return TNG, OUTA


def _models():
    out = [af.AirfoilModel("naca0012", "bielawa")]
    if NACA.exists():
        out.append(af.AirfoilModel("c81", "bielawa", tables=(af.read_c81(NACA),)))
    return out


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.kind)
def test_bielawa_is_odd_for_a_symmetric_airfoil(model):
    """NACA 0012 is symmetric: turning the motion over (α, α̇, α̈) → (−α, −α̇, −α̈) turns cl,
    cm over and keeps cd."""
    for alpha, a1, a2 in ((6.0, 0.8, -3.0), (13.0, 2.5, 40.0), (17.0, -1.2, 10.0)):
        T1, O1 = _loads(model, alpha, 110.0, a1, a2)
        T2, O2 = _loads(model, -alpha, 110.0, -a1, -a2)
        assert O2[4] == pytest.approx(-O1[4], rel=1e-12, abs=1e-13)
        assert O2[5] == pytest.approx(O1[5], rel=1e-12, abs=1e-13)
        assert O2[6] == pytest.approx(-O1[6], rel=1e-12, abs=1e-13)


@need_shared
def test_bielawa_steady_limit_and_stall_delay():
    """Without pitch rates the corrections vanish (cl, cd, cm of the table); pitching up
    past the static stall angle delays stall (the lift exceeds the static value, Bielawa
    1975), pitching down lowers it."""
    t = af.read_c81(NACA)
    st = af.AirfoilModel("c81", "steady", tables=(t,))
    un = af.AirfoilModel("c81", "bielawa", tables=(t,))
    V = 0.3 * CS
    for alpha in (4.0, 12.0, 15.0):
        _, Os = _loads(st, alpha, V, 0.0, 0.0)
        _, Ou = _loads(un, alpha, V, 0.0, 0.0)
        assert Ou[4:7] == pytest.approx(Os[4:7], rel=1e-12, abs=1e-14)
        assert Ou[10:14] == pytest.approx([0.0] * 4, abs=1e-15)
    _, Os = _loads(st, 15.0, V, 0.0, 0.0)
    _, Up = _loads(un, 15.0, V, 3.0, 0.0)
    _, Dn = _loads(un, 15.0, V, -3.0, 0.0)
    assert Up[4] > Os[4] > Dn[4]


# ------------------------------------------------------------------------ Theodorsen

def _theodorsen():
    t = af.read_c81(THIN, "free format")
    model = af.AirfoilModel("theodorsen", tables=(t,))
    return af.pack_airfoils([model])


def _theo(packed, W, vam, q, qdot, t=0.0, prev=(0.0, 0.0, 0.0)):
    ints, floats, starts = packed
    TNG, OUTA, g, rates = np.zeros(6), np.zeros(20), np.zeros(2), np.zeros(4)
    af.theodorsen_section(ints, floats, starts[0], np.asarray(W, float), np.asarray(vam, float),
                          np.asarray(q, float), np.asarray(qdot, float), t, np.asarray(prev, float),
                          rates, TNG, OUTA, g)
    return TNG, OUTA, g, rates


def C_exact(k):
    """Theodorsen's function C(k) = H1⁽²⁾(k) / (H1⁽²⁾(k) + i H0⁽²⁾(k))."""
    return hankel2(1, k) / (hankel2(1, k) + 1j * hankel2(0, k))


@need_shared
@pytest.mark.parametrize("k", [0.05, 0.1, 0.2, 0.5, 1.0])
def test_theodorsen_states_reproduce_C_of_k(k):
    """A section at speed U whose 3/4-chord angle oscillates, u2 = u0 sin(ωt), k = ωc/(2U):
    the states integrated in time give the effective angle α_eff = |H| u0 sin(ωt + arg H).
    H must be Jones' rational approximation of C(k) (to the integration tolerance, 1e-6)
    and C(k) itself within that approximation's own error: max |H − C| over
    0.05 ≤ k ≤ 1 is 0.0145 (at k ≈ 0.41; amplitude within 0.013, phase within 1.31°), so
    the test allows 0.015."""
    packed = _theodorsen()
    U, chord, d34 = 1.0, 2.0, 0.5
    d = 2 * U / chord
    omega = k * d
    u0 = 1e-3                           # d = 2U/(c cos u2): O(u0²) nonlinearity below 1e-7
    vam = [RHO, CS, chord, -0.5, d34, 0.0]

    def W_of(t):
        u2 = u0 * math.sin(omega * t)
        return [U, -U * math.tan(u2), 0.0, 0.0, 0.0, 0.0]

    def rhs(t, q):
        _, _, g, _ = _theo(packed, W_of(t), vam, q, np.zeros(2))
        return -g                       # g = q̇ − A q − B u, so q̇ = −g(q, q̇ = 0)

    period = 2 * math.pi / omega
    t_end = 400.0 / d + 3 * period      # transients decay as exp(−0.0455 d t): e^-18
    ts = np.linspace(t_end - 2 * period, t_end, 801)
    sol = solve_ivp(rhs, (0.0, t_end), [0.0, 0.0], method="DOP853", rtol=1e-11, atol=1e-14, t_eval=ts)
    y = np.array([math.radians(_theo(packed, W_of(t), vam, q, np.zeros(2))[1][1]) for t, q in zip(ts, sol.y.T)])
    M = np.column_stack([np.sin(omega * ts), np.cos(omega * ts)])
    (s, c), *_ = np.linalg.lstsq(M, y / u0, rcond=None)
    H_time = s + 1j * c                 # y = Re[H e^{iωt}]/u0 ... as sin: s sin + c cos
    A1, A2, b1, b2 = af.THEODORSEN_PARAMS[0]
    H = 1 - A1 * 1j * k / (1j * k + b1) - A2 * 1j * k / (1j * k + b2)
    assert abs(H_time - H) < 1e-6
    assert abs(H - C_exact(k)) < 0.015
    assert abs(H_time - C_exact(k)) < 0.015


@need_shared
def test_theodorsen_step_response_is_wagner():
    """A step of the 3/4-chord angle u0 at s = 0 (states at rest): α_eff(s) = u0 φ(s) with
    the two-exponential Wagner function φ(s) = 1 − A1 e^{−b1 s} − A2 e^{−b2 s}, s = 2Ut/c
    (the indicial response the model is built on, theory manual 13.7)."""
    packed = _theodorsen()
    A1, A2, b1, b2 = af.THEODORSEN_PARAMS[0]
    U, chord, d34, u0 = 15.0, 1.5, 0.25, 2e-3
    vam = [RHO, CS, chord, -0.25, d34, 0.0]
    W = [U, -U * math.tan(u0), 0.0, 0.0, 0.0, 0.0]
    Uinf = U / math.cos(u0)
    d = 2 * Uinf / chord
    s_eval = np.array([0.0, 0.5, 2.0, 5.0, 10.0, 20.0, 40.0, 80.0])
    sol = solve_ivp(lambda t, q: -_theo(packed, W, vam, q, np.zeros(2))[2], (0.0, s_eval[-1] / d), [0.0, 0.0],
                    method="DOP853", rtol=1e-12, atol=1e-16, t_eval=s_eval / d)
    for s, q in zip(s_eval, sol.y.T):
        y = math.radians(_theo(packed, W, vam, q, np.zeros(2))[1][1])
        assert y / u0 == pytest.approx(1 - A1 * math.exp(-b1 * s) - A2 * math.exp(-b2 * s), abs=1e-9)


@need_shared
def test_theodorsen_quasi_steady_limit():
    """At rest in steady flow the states settle at q = (u2/(b1 b2 d²), 0): α_eff = u2
    (C(0) = 1) and, with no pitch rates, the lift is the table's (2π α for ThinAirfoil2)."""
    packed = _theodorsen()
    A1, A2, b1, b2 = af.THEODORSEN_PARAMS[0]
    U, chord, d34 = 40.0, 1.2, 0.3
    a = math.radians(4.0)
    W = [U * math.cos(a), -U * math.sin(a), 0.0, 0.0, 0.0, 0.0]
    d = 2 * U / chord
    q = [a / (b1 * b2 * d * d), 0.0]
    TNG, OUTA, g, rates = _theo(packed, W, [RHO, CS, chord, -0.3, d34, 0.0], q, [0.0, 0.0], t=1.0,
                                prev=(a, 0.0, 0.9))
    assert g == pytest.approx([0.0, 0.0], abs=1e-12)
    assert math.radians(OUTA[1]) == pytest.approx(a, rel=1e-12)
    assert OUTA[4] == pytest.approx(2 * math.pi * a, abs=1e-6)
    vp = U
    L = TNG[0] * (-W[1]) / vp + TNG[1] * W[0] / vp
    assert L == pytest.approx(0.5 * RHO * U * U * chord * OUTA[4], rel=1e-12)
    assert rates[2] == pytest.approx(0.0, abs=1e-12) and rates[3] == pytest.approx(0.0, abs=1e-12)


@need_shared
def test_theodorsen_state_jacobian_matches_finite_differences():
    packed = _theodorsen()
    ints, floats, starts = packed
    W = np.array([35.0, -2.0, 1.0, 0.1, -0.2, 0.7])
    vam = np.array([RHO, CS, 0.8, -0.2, 0.2, 0.0])
    q, qd = np.array([1e-3, -2e-3]), np.array([0.3, -0.1])
    J, JW = np.zeros((2, 2)), np.zeros((2, 6))
    af.theodorsen_section_jacobian(ints, floats, starts[0], W, vam, q, J, JW)
    for j in range(2):
        h = 1e-6
        qp, qm = q.copy(), q.copy()
        qp[j] += h
        qm[j] -= h
        gp = _theo(packed, W, vam, qp, qd)[2]
        gm = _theo(packed, W, vam, qm, qd)[2]
        assert (gp - gm) / (2 * h) == pytest.approx(J[:, j], rel=1e-7, abs=1e-9)
    for j in range(6):
        h = 1e-6 * max(1.0, abs(W[j]))
        Wp, Wm = W.copy(), W.copy()
        Wp[j] += h
        Wm[j] -= h
        gp = _theo(packed, Wp, vam, q, qd)[2]
        gm = _theo(packed, Wm, vam, q, qd)[2]
        assert (gp - gm) / (2 * h) == pytest.approx(JW[:, j], rel=1e-6, abs=1e-9)
    # ∂g/∂q̇ = I
    g0 = _theo(packed, W, vam, q, qd)[2]
    g1 = _theo(packed, W, vam, q, qd + [1.0, 2.0])[2]
    assert g1 - g0 == pytest.approx([1.0, 2.0], rel=1e-12)


# MBDyn 1.7.3 numbers for a pitching section: one static node 1 (`structural: 1, static, null,
# euler, 0., 10.*deg2rad, 0., null, 0., 120.*deg2rad, 0.;`) whose rotation a `total pin joint`
# imposes about global Y, `sine, 0., 20., 6.*deg2rad, forever, 10.*deg2rad` (α = 10° + 6° sin 20t);
# `air properties: 1.225, 340., single, 1., 0., 0., const, 80.;`; `aerodynamic body: 1, 1,
# reference, node, null, reference, node, 1, -1., 0., 0., 3, 0., 1., 0., 1., const, 0.5, const,
# 0., const, 0., const, 0., 1, AIRFOIL;` with AIRFOIL `c81, 1, unsteady, bielawa` (naca0012.c81)
# or `naca0012, unsteady, bielawa`; time step 1e-3, tolerance 1e-9; `mbdyn -f deck -o deck`.
# Columns 2-9 of .aer line n (t = n Δt): α, γ, Mach, cl, cd, cm, α̇, α̈.  The memory sequence
# matching them commits t = 0 (the initial derivatives) as the first update.
MBDYN_PITCH = [
    ('c81b', 3, [10.359784038876668, -0.0, 0.23529411764705882, 1.1252236005595835, 0.05310656081172822, -0.00800740433377918, 2.0909052843594815, -1.6750134782050736]),
    ('c81b', 57, [15.451800976695306, -0.0, 0.23529411764705882, 1.3019686349819672, 0.12411502894757365, -0.06549458140621849, 0.8747282872889466, -37.70206286088796]),
    ('c81b', 150, [10.846720048359193, -0.0, 0.2352941176470587, 1.1077150896443393, -0.0043676621957678165, 0.007177459744725365, -2.0737112645612803, -6.739133111521369]),
    ('c81b', 300, [8.323507010806471, -0.0, 0.2352941176470589, 0.9055481533333601, 0.042108797204923026, -0.008342498987779364, 2.011242884052629, 12.505724065878894]),
    ('n12b', 3, [10.359783753928504, -0.0, 0.23529411764705882, 1.0851427568947456, 0.008923694378316263, 0.021595024619935302, 2.0909052843594815, -1.6750134782050736]),
    ('n12b', 57, [15.451800551690082, -0.0, 0.23529411764705882, 0.984045474369917, 0.17637127084646104, -0.008209683448703094, 0.8747282872889466, -37.70206286088796]),
    ('n12b', 150, [10.846719750017744, -0.0, 0.2352941176470587, 0.797337157519015, 0.12408451968334028, 0.013781726821975041, -2.0737112645612803, -6.739133111521369]),
    ('n12b', 300, [8.32350678186656, -0.0, 0.2352941176470589, 0.872762192355823, 0.007694935469330345, 0.020552837769234278, 2.011242884052629, 12.505724065878894]),
]


@need_shared
def test_bielawa_pitching_against_mbdyn():
    """The memory and Bielawa's corrections along MBDyn's pitching run (numbers above): the
    joint holds α to MBDyn's tolerance (~1e-11 rad), which α̈, a second difference over
    Δt = 1e-3 s, amplifies by 1/Δt² (hence 3e-5 on α̈; the loads and α̇ agree to 1e-7)."""
    models = {"c81b": af.AirfoilModel("c81", "bielawa", tables=(af.read_c81(NACA),)),
              "n12b": af.AirfoilModel("naca0012", "bielawa")}
    V, dt, chord = 80.0, 1e-3, 0.5
    th = lambda t: math.radians(10.0 + 6.0 * math.sin(20.0 * t))
    thd = lambda t: math.radians(120.0 * math.cos(20.0 * t))
    for name, model in models.items():
        ints, floats, starts = af.pack_airfoils([model])
        want = {n: v for k, n, v in MBDYN_PITCH if k == name}
        ha, ht, n_up = np.zeros(2), np.zeros(2), 0
        for n in range(max(want) + 1):
            t = n * dt
            W = np.array([V * math.cos(th(t)), -V * math.sin(th(t)), 0.0, 0.0, 0.0, thd(t)])
            a1, a2 = af.predict_alpha_rates(th(t), t, ha, ht, n_up)
            TNG, OUTA = np.zeros(6), np.zeros(20)
            af.airfoil_loads(ints, floats, starts[0], W, np.array([RHO, CS, chord, 0.0, 0.0, 0.0]), a1, a2, TNG, OUTA)
            if n in want:
                assert np.r_[OUTA[1:7], OUTA[8]] == pytest.approx(want[n][:7], rel=1e-7, abs=1e-7)
                assert OUTA[9] == pytest.approx(want[n][7], abs=3e-5)
            af.update_alpha_history(th(t), t, ha, ht)
            n_up += 1


# MBDyn 1.7.3 running its own test deck ../shared/mbdyn-tests/aero/rigidss0 (Theodorsen on
# ThinAirfoil2, chord 2, force point 0.25c, velocity point −0.25c, VINF = 10, plunge
# 0.1 sin(5t) along Z and pitch 1° sin(8t) about Y, std SI air, time step 1e-3) with its final
# time set to 2 and `output precision: 16;` (`mbdyn -f rigidss0 -o rs0`): .aer line n (t = n Δt)
# columns 2, 5, 6, 7 (α_eff, cl, cd, cm of the first Gauss point) and the clamp's .jnt
# columns 8, 10, 12 (global Fx, Fz, My on node 1; span 10, three identical Gauss points).
MBDYN_RIGIDSS0 = [
    (700, [1.5003435301936716, 0.1645311725516286, 0.0, 0.0], [-10.964465492876117, 209.883992305711, 76.68613518982713]),
    (1000, [0.561828065341879, 0.06161118930152113, 0.0, 0.0], [-0.3713730176601482, -24.433811763883902, 46.97380020681504]),
    (1500, [-1.2465037656302769, -0.13669434245031306, -0.0, -0.0], [-0.3671259834023272, -32.08732529796888, -109.2897901247398]),
    (2000, [1.4146281542297798, 0.15513136727730034, 0.0, 0.0], [-3.0542352451272685, 86.60330552101016, 119.32965201734308]),
]


@need_shared
def test_theodorsen_rigidss0_against_mbdyn():
    """The section model along rigidss0's prescribed motion, states integrated accurately
    (DOP853) from rest, against MBDyn, which integrates them with its own second-order
    scheme at Δt = 1e-3: α_eff to 1e-4 deg and forces to 1e-5 of their range (a 0.47 range
    of cl, 614 N of lift, 313 N m of moment; measured 1.6e-5 deg and 6e-6)."""
    packed = _theodorsen()
    VINF, CHORD, dt = 10.0, 2.0, 1e-3
    wz, wt = 0.5 * VINF / (CHORD / 2), 0.8 * VINF / (CHORD / 2)
    th = lambda t: math.radians(1.0) * math.sin(wt * t)
    thd = lambda t: math.radians(1.0) * wt * math.cos(wt * t)
    zd = lambda t: 0.1 * wz * math.cos(wz * t)

    def frame(t):
        c, s = math.cos(th(t)), math.sin(th(t))
        return np.array([[-c, s, 0.0], [0.0, 0.0, 1.0], [s, c, 0.0]])      # columns e1, e2, e3

    def W_of(t):
        R = frame(t)
        v = np.array([-VINF, 0.0, zd(t)])
        return np.r_[R.T @ v, 0.0, 0.0, thd(t)]

    vam = [1.225, 340.26855276384271, CHORD, 0.25 * CHORD, -0.25 * CHORD, 0.0]
    sol = solve_ivp(lambda t, q: -_theo(packed, W_of(t), vam, q, np.zeros(2))[2], (0.0, 2.0), [0.0, 0.0],
                    method="DOP853", rtol=1e-12, atol=1e-15, dense_output=True)
    for n, aer, jnt in MBDYN_RIGIDSS0:
        t0, t = (n - 1) * dt, n * dt
        rates = _theo(packed, W_of(t0), vam, sol.sol(t0), np.zeros(2))[3]
        TNG, OUTA, _, _ = _theo(packed, W_of(t), vam, sol.sol(t), np.zeros(2), t, (rates[0], rates[1], t0))
        assert OUTA[1] == pytest.approx(aer[0], abs=1e-4)
        assert OUTA[4] == pytest.approx(aer[1], abs=1e-5 * 0.47)
        R = frame(t)
        F, M = 10.0 * R @ TNG[:3], 10.0 * R @ TNG[3:]
        assert F[0] == pytest.approx(jnt[0], abs=1e-5 * 614)
        assert F[2] == pytest.approx(jnt[1], abs=1e-5 * 614)
        assert M[1] == pytest.approx(jnt[2], abs=1e-5 * 313)
