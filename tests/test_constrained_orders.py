"""Integrator orders on constrained (index-3) problems, per component (issue 13).

* Every method's observed order in positions, velocities and multipliers on the pendulum
  equals its predicted order on index-3 DAEs (Method.constrained_orders), with at least
  three steps on the fitted line and a Newton tolerance that does not limit the error.
  The slider-crank and Andrews' squeezer (IVP test set reference) run in the long form.
* mbdae's errors are the methods' own: an independent textbook discretization of the same
  pendulum (tests/textbook_dae.py, Cartesian coordinates, exact Newton) gives the same errors
  within 1 %, so the order reductions (bathe, mssth3, DIRK33, DIRK54, hope) are properties of
  the methods on index-3 problems, not of mbdae's implementation.
"""
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "cases", "integrators"))
import constrained  # noqa: E402
import textbook_dae as textbook  # noqa: E402

from mbdae.engine.compare import order_study, order_agrees, run_one, components_of, order_table_markdown  # noqa: E402
from mbdae.solvers.integrators import make_method  # noqa: E402
from mbdae.solvers.integrators.multistep import ms_coefficients  # noqa: E402
from mbdae.engine.drivers.ivp import InitialValueProblem  # noqa: E402
from mbdae.cli import main as cli_main  # noqa: E402

LONG = os.environ.get("MBDAE_LONG") == "1"


@pytest.fixture(scope="module")
def pendulum_case():
    return constrained.pendulum()


def engine_errors(case, name, rho, h):
    row = run_one(case, name, rho, h, min_time_step=h)
    assert not row["failure"], row["failure"]
    ref = components_of(case.reference)
    return np.array([np.max(np.abs(row["observed"][k] - ref[k])) for k in ("positions", "velocities", "multipliers")])


def crank_nicolson(h):
    return np.array([1.0]), h / 2, np.array([h / 2])


def ms_steps(rho, h):
    """mbdae's ms: a Crank-Nicolson first step (as MBDyn), then the two-step formula."""
    def coefficients(k):
        if k == 0:
            return crank_nicolson(h)
        c = ms_coefficients(rho, h, h)
        return c.a, c.b0, c.b
    return coefficients


def hope_steps(rho, h):
    """hope: the Crank-Nicolson start-up step, then hope's own steps from its Crank-Nicolson
    phase: Crank-Nicolson and the two-step formula with A = 4ρ/(3+ρ) on alternate steps."""
    A = 4 * rho / (3 + rho)

    def coefficients(k):
        if k == 0 or (k - 1) % 2 == 0:
            return crank_nicolson(h)
        return np.array([(4 - A) / 3, (A - 1) / 3]), h * (4 - A) / 6, np.array([h * A / 2, 0.0])
    return coefficients


@pytest.mark.parametrize("name,rho", [("bathe", 0.6), ("mssth3", 0.6), ("dirk33", 0.0), ("dirk54", 0.0),
                                      ("msstc3", 0.6)])
def test_multistage_errors_are_the_textbook_methods(name, rho, pendulum_case):
    h = 0.01
    ours = engine_errors(pendulum_case, name, rho, h)
    theirs = np.array(textbook.errors(*textbook.runge_kutta(make_method(name, rho).butcher_tableau(), h),
                                      pendulum_case.reference))
    assert np.allclose(ours, theirs, rtol=1e-2), (name, ours, theirs)


@pytest.mark.parametrize("name,rho,steps", [("ms", 0.6, ms_steps), ("hope", 0.4, hope_steps)])
def test_multistep_errors_are_the_textbook_methods(name, rho, steps, pendulum_case):
    h = 0.01
    ours = engine_errors(pendulum_case, name, rho, h)
    theirs = np.array(textbook.errors(*textbook.multistep(steps(rho, h), h), pendulum_case.reference))
    assert np.allclose(ours, theirs, rtol=1e-2), (name, ours, theirs)


# ------------------------------------------------------------------ observed orders per component
ALL_METHODS = [("implicit euler", 0.0), ("bdf", 0.0), ("ms", 0.6), ("ms", 1.0), ("crank nicolson", 1.0),
               ("hope", 0.4), ("ms3", 0.6), ("ms4", 0.6), ("ss2", 0.6), ("ss3", 0.6), ("ss4", 0.6),
               ("bathe", 0.6), ("bathe", 0.0), ("msstc3", 0.6), ("msstc4", 0.6), ("msstc5", 0.6),
               ("mssth3", 0.6), ("mssth4", 0.6), ("mssth5", 0.0), ("dirk33", 0.0), ("dirk43", 0.0),
               ("dirk54", 0.0), ("thirdorder", 0.6), ("thirdorder ad hoc", 0.0)]
SHORT = {("implicit euler", 0.0), ("ms", 0.6), ("hope", 0.4), ("bathe", 0.0), ("dirk33", 0.0),
         ("thirdorder ad hoc", 0.0)}
PENDULUM_STEPS = (0.005, 0.0025, 0.00125, 0.000625)


@pytest.mark.parametrize("name,rho", [pytest.param(n, r, id=f"{n}-{r:g}",
                                                   marks=() if (n, r) in SHORT else pytest.mark.slow)
                                      for n, r in ALL_METHODS])
def test_observed_orders_on_the_pendulum(name, rho, pendulum_case):
    """Positions, velocities and multipliers each converge at the predicted order, on at
    least three steps on the fitted line, with the Newton tolerance (1e-11, norm) far below
    the error: even 10× looser changes the finest error by less than 1 % of itself.  Short form
    (CI): three steps, the methods of SHORT; MBDAE_LONG=1: four steps, every method."""
    steps = PENDULUM_STEPS if LONG else PENDULUM_STEPS[:3]
    row, = order_study(pendulum_case, [(name, rho)], steps)
    print(order_table_markdown([row]))
    assert not row["failure"], row["failure"]
    for component in ("positions", "velocities", "multipliers"):
        assert order_agrees(row, component), (component, row["fits"][component], row["predicted"])
    if row["predicted"]["multipliers"] is not None:     # ρ∞ = 1: undamped multiplier noise
        assert row["tolerance_effect"] < 1e-2, row["tolerance_effect"]


def test_compare_command_measures_orders_per_component(tmp_path, capsys):
    """`mbdae compare case.py:NAME --orders --check`: the order table per component, written
    and printed; exit 0 when every observed order agrees with the predicted one."""
    target = os.path.join(HERE, "..", "cases", "integrators", "constrained.py") + ":pendulum"
    prefix = str(tmp_path / "pend")
    assert cli_main(["compare", target, "--orders", "--check", "--methods", "ms:0.6", "dirk33",
                     "--steps", "0.005", "0.0025", "0.00125", "-o", prefix]) == 0
    out = capsys.readouterr().out
    assert "| ms | 0.6 | 2 / 2.00 (3/3) | 2 / 2.00 (3/3) | 2 / 2.00 (3/3)" in out
    assert "| dirk33 | 0 | 2 / 2.0" in out and "| 1 / 1.0" in out
    assert os.path.getsize(prefix + "_orders.md") > 200


def test_no_extra_step_from_accumulated_time_rounding():
    """12 000 steps of 2.5e-6 add up to 3.5e-15 less than 0.03; that remainder used to be
    taken as a last step, whose dCoef ~ 1e-15 turned the multipliers into ~1e11 (found by the
    Andrews order study).  The run ends after exactly 12 000 steps with the right pin force."""
    p = InitialValueProblem(constrained.pendulum_model(), final_time=0.03, time_step=2.5e-6, method="ms", rho=0.6,
                            tolerance=1e-10)
    r = p.run()
    assert p.stats["steps"] == 12000
    assert abs(r.t[-1] - 0.03) < 1e-12
    F_ref = constrained.pendulum_reference(0.03)["multipliers"]
    assert np.linalg.norm(r.joint(2)[0][-1, :2] - F_ref) < 1e-2 * np.linalg.norm(F_ref)


@pytest.mark.parametrize("name,rho", [pytest.param("ms", 0.6, id="ms-0.6")] +
                         [pytest.param(n, r, id=f"{n}-{r:g}", marks=pytest.mark.slow)
                          for n, r in (("dirk54", 0.0), ("bathe", 0.6), ("hope", 0.4))])
def test_observed_orders_on_the_slider_crank(name, rho):
    """The slider-crank against its reduced 1-DOF reference.  The multistage methods' and
    hope's multipliers settle at order 1 only below h ≈ 6e-4 (local slopes 0.68 → 0.97 for
    DIRK54 from 2.5e-3 to 1.56e-4), so their long form runs down to 1.56e-4."""
    steps = (0.0025, 0.00125, 0.000625) if name == "ms" else (0.000625, 0.0003125, 0.00015625)
    row, = order_study(constrained.slider_crank(), [(name, rho)], steps)
    print(order_table_markdown([row]))
    assert not row["failure"], row["failure"]
    for component in ("positions", "velocities", "multipliers"):
        assert order_agrees(row, component), (component, row["fits"][component], row["predicted"])
    assert row["tolerance_effect"] < 1e-2


@pytest.mark.slow
def test_observed_orders_on_andrews_squeezer():
    """ms, ρ∞ = 0.6 on Andrews' squeezer against the IVP test set's q, q̇ and λ at 0.03 s."""
    row, = order_study(constrained.andrews(), [("ms", 0.6)], (2e-5, 1e-5, 5e-6))
    print(order_table_markdown([row]))
    assert not row["failure"], row["failure"]
    for component in ("positions", "velocities", "multipliers"):
        assert order_agrees(row, component), (component, row["fits"][component], row["predicted"])
