"""Every integrator runs a real model; variable step (step halving and regrowth) keeps ms
second-order accurate."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem


def pendulum():
    m = Model()
    m.structural_node(1, "dynamic")
    m.body(1, 1, 1.0, center_of_mass=[1.0, 0, 0], inertia=np.eye(3) * 0.01)
    m.revolute_pin(2, 1)
    m.gravity([0, -9.81, 0])
    return m


def angle(r):
    return np.arctan2(r.R[:, 0, 1, 0], r.R[:, 0, 0, 0])


@pytest.fixture(scope="module")
def reference():
    r = InitialValueProblem(pendulum(), final_time=1.0, time_step=1e-4, method="ms", rho=0.6).run()
    return angle(r)[-1]


@pytest.mark.parametrize("method,rho,order", [("crank nicolson", 1.0, 2), ("ms", 0.6, 2), ("ms", 0.0, 2),
                                              ("bdf", 0.0, 2), ("hope", 0.4, 2), ("implicit euler", 0.0, 1)])
def test_methods_converge_with_their_order(method, rho, order, reference):
    errs = []
    for h in (4e-3, 2e-3):
        r = InitialValueProblem(pendulum(), final_time=1.0, time_step=h, method=method, rho=rho).run()
        errs.append(abs(angle(r)[-1] - reference))
    observed = np.log2(errs[0] / errs[1])
    assert observed > order - 0.3, (method, errs, observed)


def test_step_halving_and_regrowth_keep_ms_accurate(reference):
    """With one Newton iteration allowed per step, large steps fail and are halved; the run
    completes on a variable grid (variable-step ms coefficients) and its error is that of
    the coarse nominal step, not worse."""
    h = 0.05
    p = InitialValueProblem(pendulum(), final_time=1.0, time_step=h, method="ms", rho=0.6,
                            max_iterations=1, tolerance=1e-7, test="relnorm", min_time_step=h / 64)
    r = p.run()
    steps = np.diff(r.t)
    assert p.stats["step_reductions"] > 0
    assert steps.min() < h / 2 and np.isclose(steps.max(), h)
    assert np.isclose(r.t[-1], 1.0)
    fixed = InitialValueProblem(pendulum(), final_time=1.0, time_step=h, method="ms", rho=0.6).run()
    assert abs(angle(r)[-1] - reference) <= 1.5 * abs(angle(fixed)[-1] - reference) + 1e-6


@pytest.mark.parametrize("method,rho,order", [("ms3", 0.6, 2), ("ms4", 0.6, 2), ("bathe", 0.0, 2), ("dirk54", 0.0, 2),
                                              ("msstc3", 0.6, 2), ("mssth3", 0.0, 2)])
def test_new_methods_run_the_pendulum_with_their_order(method, rho, order, reference):
    """Multistage methods and the 3/4-step methods through the engine (rotations, constraints).
    On this constrained (index-3) problem the composite methods are second order in the
    positions whatever their linear order."""
    errs = []
    steps = (0.05, 0.025) if method == "dirk54" else (8e-3, 4e-3)   # 4th order: stay above the reference's error
    for h in steps:
        r = InitialValueProblem(pendulum(), final_time=1.0, time_step=h, method=method, rho=rho).run()
        errs.append(abs(angle(r)[-1] - reference))
    assert np.log2(errs[0] / errs[1]) > order - 0.3, errs


def test_fixed_step_method_restarts_when_the_step_changes():
    p = InitialValueProblem(pendulum(), final_time=1.0, time_step=0.05, method="ms3", rho=0.6,
                            max_iterations=1, tolerance=1e-7, test="relnorm", min_time_step=0.05 / 64)
    r = p.run()
    assert np.isclose(r.t[-1], 1.0)
    assert any("cannot change the time step" in l for l in p.log_lines)


# ------------------------------------------------------------------ MBDyn's `strategy: factor`
from mbdae.solvers.stepcontrol import FactorStrategy, make_strategy
from mbdae.solvers.integrators import make_method


def test_factor_strategy_rules():
    """Reduction on failure with one last chance at the minimum step, then give up; raise
    after enough easy steps, capped at the maximum; reduce after too many iterations."""
    s = FactorStrategy(1e-3, 8e-3, 0.5, 2, 2.0, 1, 1, 5)
    assert s.after_failure(3e-3) == 1.5e-3
    assert s.after_failure(1.5e-3) == 1e-3            # 0.75e-3 < min: last chance at the minimum
    assert s.after_failure(1e-3) is None              # nothing left
    s = FactorStrategy(1e-3, 8e-3, 0.5, 2, 2.0, 1, 1, 5)
    h = 2e-3
    seq = []
    for _ in range(8):                                # easy steps: raise every other step after 2
        h = s.after_step(h, h, 1)
        seq.append(h)
    assert seq == [2e-3, 2e-3, 4e-3, 4e-3, 8e-3, 8e-3, 8e-3, 8e-3]
    assert s.after_step(8e-3, 8e-3, 6) == 4e-3        # more than max iterations
    assert s.after_step(4e-3, 4e-3, 3) == 4e-3        # between min and max: keep


def test_factor_strategy_rejected_for_fixed_step_methods():
    for name in ("ms3", "ms4"):
        with pytest.raises(ValueError, match="cannot change the time step"):
            make_strategy(("factor", 0.5, 1, 2.0, 1, 1), 1e-4, 1e-2, make_method(name, 0.6))
        with pytest.raises(ValueError, match="cannot change the time step"):
            InitialValueProblem(pendulum(), final_time=0.1, time_step=1e-2, method=name, rho=0.6,
                                strategy=("factor", 0.5, 1, 2.0, 1, 1))


@pytest.mark.parametrize("method", ["ms", "ss2", "bathe"])
def test_factor_strategy_run_varies_the_step_and_stays_accurate(method, reference):
    """Pendulum started at a step ten times smaller than allowed: `factor` raises it by 2
    every 3 easy steps up to max time step; failures (1 Newton iteration allowed at a tight
    tolerance would fail) are not needed here.  The error stays that of the largest step."""
    h0, hmax = 1e-3, 8e-3
    p = InitialValueProblem(pendulum(), final_time=1.0, time_step=h0, method=method, rho=0.6,
                            max_time_step=hmax, strategy=("factor", 0.5, 2, 2.0, 2, 3))
    r = p.run()
    steps = np.diff(r.t)
    assert np.isclose(steps[0], h0) and np.isclose(steps[:-1].max(), hmax)
    assert np.isclose(r.t[-1], 1.0)
    fixed = InitialValueProblem(pendulum(), final_time=1.0, time_step=hmax, method=method, rho=0.6).run()
    assert abs(angle(r)[-1] - reference) <= 1.5 * abs(angle(fixed)[-1] - reference) + 1e-7


def test_factor_strategy_reduces_failed_steps(reference):
    h = 0.05
    p = InitialValueProblem(pendulum(), final_time=1.0, time_step=h, method="ms", rho=0.6, max_iterations=1,
                            tolerance=1e-7, test="relnorm", min_time_step=h / 64, max_time_step=h,
                            strategy=("factor", 0.5, 3, 2.0, 3, 1))
    r = p.run()
    steps = np.diff(r.t)
    assert p.stats["step_reductions"] > 0 and steps.min() < h / 2 and np.isclose(r.t[-1], 1.0)
    assert any("retrying with time step" in l for l in p.log_lines)


# ------------------------------------------------------------------ thirdorder (two-point, doubled system)
@pytest.mark.parametrize("method,rho", [("thirdorder", 0.6), ("thirdorder", 0.5), ("thirdorder ad hoc", 0.0)])
def test_thirdorder_runs_the_constrained_pendulum(method, rho, reference):
    """The doubled Newton system with rotations and a revolute pin (position-level rows
    scaled by 1/dCoef at both points): ρ∞ = 0.5 makes jx11 = 0 (the end point's own
    derivative drops out of its formula); every variant converges with order ≥ 2 in the
    angle on this index-3 problem and is more accurate than ms at the same step."""
    errs = []
    for h in (2e-2, 1e-2):
        r = InitialValueProblem(pendulum(), final_time=1.0, time_step=h, method=method, rho=rho).run()
        assert np.isclose(r.t[-1], 1.0)
        errs.append(abs(angle(r)[-1] - reference))
    assert np.log2(errs[0] / errs[1]) > 2 - 0.3, errs
    ms = InitialValueProblem(pendulum(), final_time=1.0, time_step=1e-2, method="ms", rho=0.6).run()
    assert errs[1] < abs(angle(ms)[-1] - reference), (errs, angle(ms)[-1] - reference)


THIRDORDER_DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 0.05;
    time step: 1e-2;
    {method}
end: initial value;
begin: control data;
    structural nodes: 1;
end: control data;
begin: nodes;
    structural: 1, dynamic, null, eye, null, null;
end: nodes;
"""


@pytest.mark.parametrize("card,method,rho", [("method: thirdorder, .6;", "thirdorder", 0.6),
                                             ("method: third order, 1.;", "thirdorder", 1.0),
                                             ("method: thirdorder, ad hoc;", "thirdorder ad hoc", 0.0)])
def test_thirdorder_deck_keywords(tmp_path, card, method, rho):
    from mbdae.engine.io.mbdyn.deck import read_deck
    path = tmp_path / "deck.mbd"
    path.write_text(THIRDORDER_DECK.format(method=card))
    d = read_deck(str(path), echo=lambda *a: None)
    assert (d.settings["method"], d.settings["rho"]) == (method, rho)


def test_thirdorder_rejects_a_null_spectral_radius(tmp_path):
    from mbdae.engine.io.mbdyn.deck import read_deck, DeckError
    from mbdae.solvers.integrators import make_method
    path = tmp_path / "deck.mbd"
    path.write_text(THIRDORDER_DECK.format(method="method: thirdorder, 0.;"))
    with pytest.raises(DeckError, match="thirdorder needs a spectral radius in"):
        read_deck(str(path), echo=lambda *a: None)
    with pytest.raises(ValueError, match="must lie in"):
        make_method("thirdorder", 0.0)


# ------------------------------------------------------------------ the flexible case of the integrator study
def _flexible_study():
    import importlib
    import os
    import sys
    here = os.path.join(os.path.dirname(__file__), "..", "cases", "integrators")
    if here not in sys.path:
        sys.path.insert(0, here)
    return importlib.import_module("flexible_study")


def test_flexible_cantilever_energy_and_methods_agree():
    """cases/integrators/flexible_study.py, 0.1 s: the 10-beam3 cantilever under the ramped tip
    load.  Once the load is constant, E = T + U - F·u_tip is an invariant of the semi-discrete
    model: Crank-Nicolson (ρ∞ = 1) keeps it to 1e-4 F·u_static, implicit Euler loses more than
    2 % of it; thirdorder (ρ∞ = 0.6, doubled system on 252 unknowns with beams) and dirk54, two
    unrelated higher-order methods, give the same tip displacement to 0.1 % of the static
    deflection F L³/(3 EJ) (measured 0.014 %; ms at thirdorder's step differs by 0.3 %); the
    tip stays in the load plane."""
    fs = _flexible_study()
    T = 0.1
    cn = fs.run("crank nicolson", 1.0, 5e-4, final_time=T)
    ie = fs.run("implicit euler", 0.0, 5e-4, final_time=T)
    to = fs.run("thirdorder", 0.6, 1e-3, final_time=T)
    dk = fs.run("dirk54", 0.0, 1.25e-3, final_time=T)
    for r in (cn, ie, to, dk):
        assert r["failure"] == "", r["failure"]
    assert abs(cn["energy_change"]) < 1e-4, cn["energy_change"]
    assert ie["energy_change"] < -0.02, ie["energy_change"]
    assert np.max(np.abs(to["tip"] - dk["tip"])) < 1e-3 * fs.U_STATIC, (to["tip"], dk["tip"])
    assert abs(to["tip"][2]) < 1e-12 and abs(dk["tip"][2]) < 1e-12
