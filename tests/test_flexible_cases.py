"""MBDyn's flexible benchmarks (benchmarks/lateralbuckling, benchmarks/rotatingshaft) read in
place, with their generated include files written by cases/flexible/*.py into a temporary
folder (MBDyn 1.7.3 did not run these decks: their includes come from Octave scripts)."""
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cases", "flexible"))
import lateral_buckling as lb          # noqa: E402


def need(path):
    if not os.path.isfile(path):
        pytest.skip(f"MBDyn's deck not found: {path} (../shared/mbdyn-tests relative to the repository)")


def test_lateral_buckling_coefficients():
    """γ of the cantilever's lateral-torsional buckling: Timoshenko & Gere's 4.013 for a free
    tip (checks the shooting solver), 6.98 with the tip held sideways."""
    assert lb.buckling_coefficient(tip_restrained=False) == pytest.approx(4.0126, abs=1e-4)
    assert lb.buckling_coefficient() == pytest.approx(6.982, abs=1e-3)
    assert lb.critical_load() == pytest.approx(5100, rel=1e-3)


def test_lateral_buckling_static_branch(tmp_path):
    """`model: static` on MBDyn's deck (the crank lifts the link, the link pushes the beam tip up):
    below 0.8 P_cr the mid-span lateral displacement stays at the imperfection's scale (< 0.1 mm,
    D = 0.1 mm); it passes 5 mm within 2 % of the analytic P_cr and then grows by more than 10 mm
    while the load rises by less than 2 % (the post-buckling branch); the Southwell plot of the
    pre-buckling growth (P from 3000 N to 0.95 P_cr) gives P_cr within 2 %."""
    need(lb.DECK)
    deck = lb.read(str(tmp_path), static=True)
    r = deck.run(None, final_time=0.14, time_step=0.002)
    t, P, u, twist = lb.tip_history(r)
    u = np.abs(u)
    Pcr = lb.critical_load()
    below = P < 0.8 * Pcr
    assert below.sum() > 30 and u[below].max() < 1e-4
    k = int(np.flatnonzero(u > 5e-3)[0])
    assert abs(P[k] - Pcr) < 0.02 * Pcr, (P[k], Pcr)
    assert u[-1] - u[k] > 10e-3 and P[-1] - P[k] < 0.02 * Pcr
    assert twist[-1] > 0.1 and u[-1] > 20e-3
    pre = (P >= 3000) & (P <= 0.95 * Pcr)
    assert abs(lb.southwell(P[pre], u[pre], 0, np.inf) - Pcr) < 0.02 * Pcr


@pytest.mark.slow
def test_lateral_buckling_dynamic_run(tmp_path):
    """The deck as MBDyn's file states it (bdf, h = T/800, 2T = 0.8 s, 1600 steps, about 25 s):
    until the tip load first reaches the static critical load the mid-span lateral
    displacement stays below 5 D = 0.5 mm; then the beam swings sideways by more than 10 mm
    (the load keeps rising while the lateral mode grows: 1 mm is passed near 1.2 P_cr)."""
    if not os.environ.get("MBDAE_LONG"):
        pytest.skip("long check (marked slow): run with MBDAE_LONG=1")
    need(lb.DECK)
    deck = lb.read(str(tmp_path))
    r = deck.run(str(tmp_path / "lateralbuckling"))
    t, P, u, twist = lb.tip_history(r)
    u = np.abs(u)
    Pcr = lb.critical_load()
    k = int(np.flatnonzero(P >= Pcr)[0])
    assert u[:k].max() < 5 * lb.IMPERFECTION and u[k:].max() > 10e-3
    assert t[-1] == pytest.approx(2 * lb.PERIOD)


# =========================================================================== rotating shaft
import rotating_shaft as rs            # noqa: E402


def _shaft_run(tmp_path, final_time):
    deck = rs.model(str(tmp_path), final_time=final_time)
    static = rs.settle(deck)
    return static, rs.problem(deck, static).run()


def test_rotating_shaft_sag_and_subcritical_whirl(tmp_path):
    """Static sag of the disk node under gravity against the clamped-clamped beam formula with
    shear deformation (1e-4); then the spin-up to A1 Ω = 48 rad/s, below the first bending
    frequency (Rayleigh: sqrt(k/(m_disk + 13/35 m L)) ≈ 57 rad/s): over the hold the disk whirls
    with its unbalance outwards (displacement along the unbalance direction > 0 at every step),
    whirl radius bounded by 0.2 m."""
    static, r = _shaft_run(tmp_path, 0.75)
    mid = static.index(rs.MID)
    assert -static.x[-1, mid, 2] == pytest.approx(rs.static_sag(), rel=1e-4)
    t, spin, disp, along = rs.whirl(r)
    rate = np.gradient(spin, t)
    hold = t >= rs.T1
    assert np.allclose(rate[hold], rs.A1 * rs.OMEGA, atol=0.5)
    assert along[hold].min() > 0 and np.linalg.norm(disp, axis=1).max() < 0.2


@pytest.mark.slow
def test_rotating_shaft_phase_flip_above_the_critical_speed(tmp_path):
    """The whole run (2.5 s, 2500 steps, about 25 s): after the second spin-up to 72 rad/s,
    above the first bending frequency, the disk's displacement along its unbalance direction is
    negative on average (the Jeffcott rotor's phase flip: heavy side inwards), opposite to the
    subcritical hold; the whirl stays bounded (radius < 0.3 m) in both holds (no damping, so
    the free whirl beats with the synchronous response)."""
    if not os.environ.get("MBDAE_LONG"):
        pytest.skip("long check (marked slow): run with MBDAE_LONG=1")
    static, r = _shaft_run(tmp_path, 2 * rs.T3)
    t, spin, disp, along = rs.whirl(r)
    sub = (t >= rs.T1) & (t <= rs.T2)
    sup = t >= rs.T3 + 0.05
    assert along[sub].mean() > 0.05 and along[sup].mean() < -0.05
    assert np.linalg.norm(disp, axis=1).max() < 0.3
