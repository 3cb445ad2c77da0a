"""The pieces of the rotordynamics decks (shared/mbdyn-tests/solid/rotordynamics, issue 14):
MBDyn's `strategy: change` (time step from a drive), `model::drive`, the `angular velocity`
joint and `rigid body kinematics` applied to bodies, nodes and solids, against closed forms,
finite differences and the same motion written in the inertial frame."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core.constitutive import LinearElastic1D
from mbdae.engine.core.drives import ExpressionDrive, ConstDrive
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from mbdae.solvers.stepcontrol import ChangeStrategy, make_strategy
from mbdae.solvers.integrators import make_method

DECK = """begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: {final_time};
    time step: {time_step};
    tolerance: 1e-10;
{problem}
end: initial value;
begin: control data;
{control}
end: control data;
begin: nodes;
{nodes}
end: nodes;
begin: elements;
{elements}
end: elements;
"""


def deck(tmp_path, nodes, elements, control, problem="", final_time=1.0, time_step=1e-3):
    path = tmp_path / "deck.mbd"
    path.write_text(DECK.format(nodes=nodes, elements=elements, control=control, problem=problem,
                                final_time=final_time, time_step=time_step))
    return read_deck(str(path), echo=lambda *a: None)


# =========================================================================== strategy: change
K_SPRING, MASS, L0 = 4.0, 1.0, 1.0          # ω = 2 rad/s


def oscillator(x0):
    """A body on a rod spring along x (the axial motion is ẍ = -(k/m) x)."""
    m = Model()
    m.structural_node(1, "static", position=[0.0, 0, 0])
    m.clamp(1, 1)
    m.structural_node(2, "dynamic", position=[L0 + x0, 0, 0])
    m.body(2, 2, MASS, inertia=np.eye(3))
    m.rod(3, 1, 2, LinearElastic1D(K_SPRING * L0), length=L0)
    return m


def step_drive(c):
    """A step that varies by a factor 3 over the run: h(t) = c (1 + 0.5 sin(3 t))."""
    return ExpressionDrive(f"{c} * (1. + 0.5 * sin(3. * Time))")


def run_change(c, final_time=3.0, x0=1e-3):
    h0 = 0.7 * c
    p = InitialValueProblem(oscillator(x0), final_time=final_time, time_step=h0, method="ms", rho=0.6,
                            tolerance=1e-13, max_iterations=8, strategy=("change", step_drive(c)))
    return p, p.run()


def test_change_strategy_steps_follow_the_drive():
    """The first step is `time step`; every later step is the drive at the time just reached
    (MBDyn's ChangeStep evaluates it after the step at the new time), the last one shortened
    to land on the final time."""
    c = 0.02
    p, r = run_change(c)
    t = np.asarray(r.t)
    h = np.diff(t)
    assert np.isclose(h[0], 0.7 * c, rtol=1e-12)
    expect = c * (1 + 0.5 * np.sin(3 * t[1:-2]))
    np.testing.assert_allclose(h[1:-1], expect, rtol=1e-12)
    assert h[-1] <= expect[-1] * (1 + 1e-12) if len(expect) else True
    assert np.isclose(t[-1], 3.0)
    assert h.max() / h.min() > 2.5                 # the step really varies (by 3 over the run)


def test_change_strategy_stays_second_order_accurate():
    """The oscillator's x(t) against x0 cos(ωt) at every step, on the drive-given grid: halving
    the drive halves every step and divides the error by 4 (ms is second order on variable
    steps); the error is that of a fixed step of the same average size."""
    w = np.sqrt(K_SPRING / MASS)
    errs = []
    for c in (0.04, 0.02):
        p, r = run_change(c)
        x = np.asarray(r.x)[:, 1, 0] - L0
        errs.append(np.max(np.abs(x - 1e-3 * np.cos(w * np.asarray(r.t)))))
    order = np.log2(errs[0] / errs[1])
    assert 1.8 < order < 2.3, (errs, order)
    assert errs[1] < 2e-3 * 1e-3                    # 0.2 % of the amplitude over 1 period
    fixed = InitialValueProblem(oscillator(1e-3), final_time=3.0, time_step=0.02, method="ms", rho=0.6,
                                tolerance=1e-13, max_iterations=8).run()
    x = np.asarray(fixed.x)[:, 1, 0] - L0
    e_fixed = np.max(np.abs(x - 1e-3 * np.cos(w * np.asarray(fixed.t))))
    assert errs[1] < 2.0 * e_fixed


def test_change_strategy_rules():
    """Clipping to [min, max] time step; a failed step is retried only when the drive gives a
    smaller step at the failed step's end time; a step that is not positive is an error."""
    s = ChangeStrategy(1e-3, 5e-2, ExpressionDrive("0.1 * Time"))
    assert s.after_step(1e-2, 1e-2, 3, t=0.2) == pytest.approx(0.02)
    assert s.after_step(1e-2, 1e-2, 3, t=5.0) == 5e-2          # clipped to max
    assert s.after_step(1e-2, 1e-2, 3, t=1e-3) == 1e-3          # clipped to min
    assert s.after_failure(0.03, t=0.2) == pytest.approx(0.02)  # smaller: retry
    assert s.after_failure(0.02, t=0.2) is None                  # the same step: give up
    with pytest.raises(ValueError, match="must be positive"):
        ChangeStrategy(0.0, np.inf, ExpressionDrive("-1. + 0. * Time")).after_step(1e-2, 1e-2, 3, t=0.0)
    with pytest.raises(ValueError, match="cannot change the time step"):
        make_strategy(("change", ConstDrive(1e-3)), 0.0, np.inf, make_method("ms3", 0.6))


def test_change_strategy_postponed_drive_from_a_deck(tmp_path):
    """`strategy: change, postponed, 2;` with drive caller 2 defined in the elements block
    through `model::drive` of drive 1 (the rotordynamics decks' pattern): the steps after the
    first are 2π / (360 ω(t))."""
    d = deck(tmp_path, nodes="    structural: 1, static, null, eye, null, null;",
             control="    structural nodes: 1;\n    joints: 1;",
             problem="    strategy: change, postponed, 2;",
             elements="""    drive caller: 1, string, "10. + 20. * Time";
    drive caller: 2, string, "2. * pi / (max(1., 360. * abs(model::drive(1, Time))))";
    joint: 1, clamp, 1, node, node;""", final_time=0.05, time_step=1e-3)
    kind, drive = d.settings["strategy"]
    assert kind == "change"
    assert drive.value(0.5) == pytest.approx(2 * np.pi / (360 * 20.0))
    r = d.run(progress=False)
    t = np.asarray(r.t)
    h = np.diff(t)
    assert h[0] == pytest.approx(1e-3)
    np.testing.assert_allclose(h[1:-1], 2 * np.pi / (360 * (10 + 20 * t[1:-2])), rtol=1e-12)


def test_model_drive_function(tmp_path):
    """`model::drive(label, t)` (manual §2.2.1): drive `label` at t, and its time derivative
    through the argument (chain rule)."""
    d = deck(tmp_path, nodes="    structural: 1, static, null, eye, null, null;",
             control="    structural nodes: 1;\n    joints: 1;",
             problem="    strategy: change, postponed, 2;",
             elements="""    drive caller: 1, string, "3. * Time^2";
    drive caller: 2, string, "1e-3 * (model::drive(1, 2. * Time) + 1.)";
    joint: 1, clamp, 1, node, node;""")
    drive = d.settings["strategy"][1]
    assert drive.value(0.5) == pytest.approx(1e-3 * (3.0 * 1.0 + 1.0))
    assert drive.derivative(0.5) == pytest.approx(1e-3 * 24.0 * 0.5)
