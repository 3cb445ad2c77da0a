"""Andrews' squeezer as MBDyn's own deck (../shared/mbdyn-tests/benchmarks/andrewssqueezer,
with its `.set`/`.ref` includes), read in place; and its `_int` variant, whose extra force on
the clamped node C carries the kinetic energy, the spring energy and the motor's work as
string drives of element private data (model::element::body/joint).

The deck rounds the initial crank angle to β0 = -0.0620 (the IVP test set's exact value is
-0.06171389...), so it does not reproduce the test set's reference; MBDyn 1.7.3 on this
deck gives the unwrapped rotation of node 1600 (the crank O-F) at t = 0.03 s as 15.7942 rad
at h = 1e-5 and 15.7996 rad at h = 1e-6 (issue 3).  mbdae must land within 2e-3 rad of
MBDyn at the same step (mbdae: 15.79424 and 15.79959; h = 1e-6 is marked slow and runs
with MBDAE_LONG=1).  The short form checks
the deck's model on 0.003 s against the Python-API model of the test set and the energy
balance."""
import os
import sys

import numpy as np
import pytest

from mbdae.engine.io.mbdyn.deck import read_deck

HERE = os.path.dirname(__file__)
DECK = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "benchmarks", "andrewssqueezer", "andrewssqueezer")
DECK_INT = DECK + "_int"
CRANK = 1600                                   # LINK_O_F in andrewssqueezer.set
MBDYN_CRANK_003 = {1e-5: 15.7942, 1e-6: 15.7996}


def deck(path=DECK):
    if not os.path.isfile(path):
        pytest.skip(f"Andrews' squeezer deck not found at {os.path.normpath(path)} "
                    "(../shared/mbdyn-tests relative to the repository)")
    return read_deck(path, echo=lambda *a: None)


def crank_angle(res):
    """Unwrapped rotation of the crank node about z over the output steps."""
    R = res.R[:, res.index(CRANK)]
    return np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0]))


def run_deck(h, final_time):
    d = deck()
    assert d.settings["time_step"] == 1e-6 and d.settings["final_time"] == 0.05   # the deck's own
    res = d.run(final_time=final_time, time_step=h, progress=False)
    assert res.t[-1] == pytest.approx(final_time) and res.stats["steps"] == round(final_time / h)
    return d, res


@pytest.mark.parametrize("h", [1e-5, pytest.param(1e-6, marks=pytest.mark.slow)])
def test_crank_angle_at_003_matches_mbdyn(h):
    """3000 (h = 1e-5) or 30000 (h = 1e-6, slow) steps: about 10 s or 100 s of CPU."""
    if h < 1e-5 and not os.environ.get("MBDAE_LONG"):
        pytest.skip("long check (marked slow): run with MBDAE_LONG=1")
    _, res = run_deck(h, 0.03)
    beta = crank_angle(res)
    assert beta[0] == pytest.approx(-0.0620, abs=1e-12)
    assert abs(beta[-1] - MBDYN_CRANK_003[h]) < 2e-3, beta[-1]


def energy_terms(d, res):
    """Kinetic energy of the bodies, spring energy of the rod, work of the motor couple."""
    m = d.model
    T = np.zeros(len(res.t))
    for b in m.bodies:
        k = res.index(b.node)
        R, w = res.R[:, k], res.w[:, k]
        arm = np.einsum("tij,j->ti", R, b.xcg)
        vcg = res.v[:, k] + np.cross(w, arm)
        J = np.einsum("tij,jk,tlk->til", R, b.J_cg, R)
        T += 0.5 * b.mass * np.sum(vcg ** 2, 1) + 0.5 * np.einsum("ti,tij,tj->t", w, J, w)
    (rod,) = m.rods
    ends = [res.x[:, res.index(n)] + np.einsum("tij,j->ti", res.R[:, res.index(n)], f)
            for n, f in ((rod.node1, rod.f1), (rod.node2, rod.f2))]
    length = np.linalg.norm(ends[1] - ends[0], axis=1)
    V = 0.5 * rod.law.K[0, 0] / rod.l0 * (length - rod.l0) ** 2      # F = EA (l - l0) / l0
    (couple,) = [f for f in m.forces if f.kind == "couple"]
    torque = couple.value.value(0.0)[2]
    W = torque * (crank_angle(res) - crank_angle(res)[0])
    return T, V, W


def closure(q):
    """The test set's six position constraints g(q) = 0 of the mechanism (Hairer & Wanner
    II, §VII.7): the loops through B, A (twice) from the crank joint P."""
    sys.path.insert(0, os.path.join(HERE, "..", "cases"))
    import andrews_squeezer as aq
    b, th, ga, ph, de, om, ep = q
    c, s = np.cos, np.sin
    xp, yp = aq.RR * c(b) - aq.D * c(b + th), aq.RR * s(b) - aq.D * s(b + th)
    return np.array([xp - aq.SS * s(ga) - aq.XB, yp + aq.SS * c(ga) - aq.YB,
                     xp - aq.E * s(ph + de) - aq.ZT * c(de) - aq.XA, yp + aq.E * c(ph + de) - aq.ZT * s(de) - aq.YA,
                     xp - aq.ZF * c(om + ep) - aq.U * s(ep) - aq.XA, yp - aq.ZF * s(om + ep) + aq.U * c(ep) - aq.YA])


def test_short_run_matches_the_python_model_and_balances_energy():
    """h = 1e-5 to 0.003 s.  (1) With a converged derivatives phase the deck's crank follows
    the Python-API model of the test set (cases/andrews_squeezer.py, validated against the
    test set's reference) started from the deck's configuration (β0 = -0.0620, the other
    coordinates from the closure equations) within 1e-8 rad: same masses, geometry, spring
    and motor.  (2) As written the deck accepts its derivatives phase untested
    (`derivatives tolerance: 1e6`), which leaves an O(h) start error (3e-4 rad here, halving
    with h) that MBDyn's reference numbers share.  (3) T + V - τ(β - β0) stays constant within
    1e-4 of the motor's work."""
    from scipy.optimize import fsolve
    sys.path.insert(0, os.path.join(HERE, "..", "cases"))
    import andrews_squeezer as aq
    from mbdae.engine.drivers.ivp import InitialValueProblem
    rest = fsolve(lambda r: closure(np.r_[-0.062, r]), aq.Q0[1:], xtol=1e-13)
    q0 = np.r_[-0.062, rest]
    assert np.abs(closure(q0)).max() < 1e-15 and np.abs(closure(aq.Q0)).max() < 1e-15
    python = InitialValueProblem(aq.squeezer_model(q0), final_time=0.003, time_step=1e-5, method="ms", rho=0.6,
                                 tolerance=1e-10, test="relnorm").run()
    crank = python.R[:, python.index(1)]                              # body 1 of the test set
    beta_python = np.unwrap(np.arctan2(crank[:, 1, 0], crank[:, 0, 0]))

    d = deck()
    converged = d.run(final_time=0.003, time_step=1e-5, derivatives_tolerance=1e-8, progress=False)
    np.testing.assert_allclose(crank_angle(converged), beta_python, atol=1e-8)

    d, res = run_deck(1e-5, 0.003)
    beta = crank_angle(res)
    assert beta[-1] - beta[0] > 0.07                                  # the crank turns 0.075 rad
    assert 1e-4 < beta_python[-1] - beta[-1] < 1e-3                   # the untested start
    T, V, W = energy_terms(d, res)
    assert T[0] < 1e-12 and W[-1] > 1e-3                              # starts at rest, the motor works
    balance = T + V - W - V[0]
    assert np.max(np.abs(balance)) < 1e-4 * W[-1], np.max(np.abs(balance)) / W[-1]


# =========================================================================== the _int variant

TAU, BETA0 = 0.033, -0.0620                    # andrewssqueezer.set
FORCE_C = 300                                  # the output force on node POINT_C


def test_int_deck_moves_as_the_plain_deck():
    """The `_int` deck differs from the plain one by a force on the clamped node C whose
    components are string drives of private data (the energies): it cannot change the
    motion.  With the `_int` file's method (ms4, ρ∞ = 0.6) on both decks, h = 1e-4 to 0.03 s
    and Newton converged to 1e-10, the crank angles agree to 1e-10 rad at every step.  (At
    the decks' own tolerance 1e-6 they differ by ~1e-8: the drives' dependence on the state
    is not in the Jacobian, as in MBDyn, so Newton stops at other iterates.)"""
    d_int = deck(DECK_INT)
    assert (d_int.settings["method"], d_int.settings["rho"], d_int.settings["time_step"]) == ("ms4", 0.6, 1e-5)
    runs = [d.run(final_time=0.03, time_step=1e-4, method="ms4", rho=0.6, tolerance=1e-10, progress=False)
            for d in (deck(), d_int)]
    plain, with_output = (crank_angle(r) for r in runs)
    assert len(plain) == 301 and plain[-1] > 15.7                        # 2.5 turns
    assert np.max(np.abs(plain - with_output)) < 1e-10


_INT_RUNS = {}


def int_run(h, tmp_path_factory):
    """The `_int` deck to 0.03 s at step h with its own settings, its .frc rows."""
    if h not in _INT_RUNS:
        d = deck(DECK_INT)
        prefix = str(tmp_path_factory.mktemp("andrews_int") / "out")
        res = d.run(output_prefix=prefix, final_time=0.03, time_step=h, progress=False)
        frc = np.loadtxt(prefix + ".frc")
        assert (frc[:, 0] == FORCE_C).all() and len(frc) == len(res.t)
        _INT_RUNS[h] = (d, res, frc)
    return _INT_RUNS[h]


def test_int_deck_force_holds_the_energies(tmp_path_factory):
    """.frc force columns of node C = (Σ body "E", K/2 (rod "L" - L0)², τ (total pin "rz" -
    β0)): equal to the kinetic energy computed from the node motion, the spring energy of
    the rod length and τ times the crank rotation unwrapped over its 2.5 turns (the joint's
    "rz" keeps counting turns, as MBDyn's unwrapped private datum does)."""
    d, res, frc = int_run(1e-4, tmp_path_factory)
    T, V, W = energy_terms(d, res)
    assert T.max() > 1.0 and W[-1] > 0.5
    np.testing.assert_allclose(frc[:, 2], T, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(frc[:, 3], V, rtol=1e-12)
    beta = crank_angle(res)
    assert beta[0] == pytest.approx(BETA0, abs=1e-12) and beta[-1] > 5 * np.pi
    np.testing.assert_allclose(frc[:, 4], TAU * (beta - BETA0), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(W, TAU * (beta - BETA0), rtol=1e-12, atol=1e-15)


def test_int_deck_energy_balance_converges_at_second_order(tmp_path_factory):
    """E + V - W stays at its initial value V0 up to the integrator's error: ms4 with
    ρ∞ = 0.6 dissipates, at second order in h.  Over 0.03 s the largest departure is 4.2e-2
    (2e-4) and 1.1e-2 (1e-4) of the motor's work; the ratio gives an order within 2 ± 0.2."""
    worst = {}
    for h in (2e-4, 1e-4):
        _, res, frc = int_run(h, tmp_path_factory)
        E, V, W = frc[:, 2], frc[:, 3], frc[:, 4]
        worst[h] = np.max(np.abs(E + V - W - V[0])) / W[-1]
    assert worst[1e-4] < 1.2e-2
    order = np.log2(worst[2e-4] / worst[1e-4])
    assert abs(order - 2.0) < 0.2, order
