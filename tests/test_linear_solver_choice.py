"""Which linear solver a run uses: KLU (with numeric refactorization, kept pivots) by default
whenever a KLU library is found, for decks and for the Python API; MBDyn's `umfpack` and
`naive` get KLU with refactorization too; SuperLU when no KLU library is found.  The run's
.log names the choice and the run statistics name the solver that ran."""
import numpy as np
import pytest

import mbdae
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.drivers.static import StaticProblem
from mbdae.engine.io.mbdyn.deck import parse_deck
from mbdae.engine.model import Model
from mbdae.solvers import linear
from test_inverse_dynamics import arm
from mbdae.solvers.linear import (KLUSolver, SuperLUSolver, choose_linear_solver, klu_available,
                                  make_linear_solver)

needs_klu = pytest.mark.skipif(not klu_available(), reason="no KLU library (libklu1 or mbdae[klu])")

# a pendulum on a revolute pin: algebraic rows, Newton iterations at every step
DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.05; time step: 1e-2; tolerance: 1e-10;
{card}
end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; joints: 1; gravity; end: control data;
begin: nodes; structural: 1, dynamic, 1., 0., 0., eye, null, null; end: nodes;
begin: elements;
body: 1, 1, 1., null, eye;
joint: 2, revolute pin, 1, -1., 0., 0., hinge, eye, null, hinge, eye;
gravity: uniform, 0., -1., 0., const, 9.81;
end: elements;
"""


def deck(card="", tmp_path="."):
    return parse_deck(DECK.format(card=card), name="pendulum.mbd", directory=str(tmp_path),
                      echo=lambda *a: None)


def run_deck(d, tmp_path):
    prefix = str(tmp_path / "out" / "pendulum")
    results = d.run(output_prefix=prefix, progress=False)
    log = open(prefix + ".log").read().splitlines()
    return results, [line for line in log if line.startswith("linear solver:")]


def pendulum_model():
    m = Model()
    m.structural_node(1, "dynamic", position=[1.0, 0, 0])
    m.body(1, 1, 1.0, inertia=np.diag([0.01, 0.01, 0.01]))
    m.spherical_pin(1, 1, offset=[-1.0, 0, 0], absolute_position=[0, 0, 0])
    m.gravity([0, -9.81, 0])
    return m


@needs_klu
def test_deck_without_a_linear_solver_card_runs_klu(tmp_path):
    d = deck(tmp_path=tmp_path)
    assert d.linear_solver_request is None and "linear_solver" not in d.settings
    assert d.problem().newton.linear.name == "klu"
    results, lines = run_deck(d, tmp_path)
    assert lines == ["linear solver: klu (default; refactorization with kept pivots)"]
    assert results.stats["linear_solver"] == "klu" and results.stats["refactorizations"] > 0


@needs_klu
def test_python_api_defaults_to_klu():
    assert mbdae.Settings().linear_solver == "default"
    assert isinstance(make_linear_solver(), KLUSolver)
    assert InitialValueProblem(pendulum_model(), time_step=1e-2).newton.linear.name == "klu"
    r = mbdae.run(pendulum_model(), final_time=0.03, time_step=1e-2, progress=False)
    assert r.stats["linear_solver"] == "klu" and r.stats["refactorizations"] > 0
    assert StaticProblem(pendulum_model(), steps=2).ivp.newton.linear.name == "klu"
    # explicit names still give what they name
    assert isinstance(make_linear_solver("superlu"), SuperLUSolver)
    r = mbdae.run(pendulum_model(), final_time=0.03, time_step=1e-2, progress=False, linear_solver="superlu")
    assert r.stats["linear_solver"] == "superlu" and r.stats["refactorizations"] == 0


@needs_klu
@pytest.mark.parametrize("name", ["umfpack", "naive"])
def test_umfpack_and_naive_decks_run_klu_with_refactorization(tmp_path, name):
    d = deck(f"linear solver: {name}, cc;", tmp_path)
    assert d.settings["linear_solver"] == name and d.linear_solver_request == name
    problem = d.problem()
    assert problem.newton.linear.name == "klu"
    results, lines = run_deck(d, tmp_path)
    assert lines == [f"linear solver: klu (requested: {name}; refactorization with kept pivots)"]
    assert results.stats["linear_solver"] == "klu"
    assert results.stats["refactorizations"] > 0
    assert results.stats["refactorizations"] < results.stats["factorizations"]   # the first is full


@needs_klu
def test_klu_and_superlu_cards(tmp_path):
    _, lines = run_deck(deck("linear solver: klu;", tmp_path), tmp_path)
    assert lines == ["linear solver: klu (refactorization with kept pivots)"]
    results, lines = run_deck(deck("linear solver: superlu;", tmp_path), tmp_path)
    assert lines == ["linear solver: superlu"] and results.stats["linear_solver"] == "superlu"
    # a solver mbdae does not have gets the default, with a note
    d = deck("linear solver: y12;", tmp_path)
    assert any("y12 is not available in mbdae, using klu" in n for n in d.notes)
    _, lines = run_deck(d, tmp_path)
    assert lines == ["linear solver: klu (requested: y12; refactorization with kept pivots)"]
    # an override of the deck's solver is what the .log names
    results = d.run(output_prefix=str(tmp_path / "o"), progress=False, linear_solver="superlu")
    assert results.stats["linear_solver"] == "superlu"
    assert "linear solver: superlu" in open(str(tmp_path / "o.log")).read().splitlines()


def test_superlu_when_no_klu_library_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(linear, "load_klu", lambda: None)
    assert not klu_available()
    assert isinstance(make_linear_solver(), SuperLUSolver)
    assert isinstance(make_linear_solver("umfpack"), SuperLUSolver)
    with pytest.raises(ValueError, match="no KLU library"):
        make_linear_solver("klu")
    assert choose_linear_solver("naive").describe() == "superlu (requested: naive; no KLU library found)"
    results, lines = run_deck(deck(tmp_path=tmp_path), tmp_path)
    assert lines == ["linear solver: superlu (default; no KLU library found)"]
    assert results.stats["linear_solver"] == "superlu" and results.stats["refactorizations"] == 0
    _, lines = run_deck(deck("linear solver: umfpack;", tmp_path), tmp_path)
    assert lines == ["linear solver: superlu (requested: umfpack; no KLU library found)"]
    d = deck("linear solver: klu;", tmp_path)
    assert d.settings["linear_solver"] == "superlu"
    assert any("no KLU library found" in n and "using superlu" in n for n in d.notes)
    _, lines = run_deck(d, tmp_path)
    assert lines == ["linear solver: superlu (requested: klu; no KLU library found)"]
    r = mbdae.run(pendulum_model(), final_time=0.03, time_step=1e-2, progress=False)
    assert r.stats["linear_solver"] == "superlu"


@needs_klu
def test_inverse_dynamics_statistics_name_the_solver():
    res = mbdae.InverseDynamicsProblem(arm(), np.linspace(0.0, 0.02, 3)).run()
    assert res.stats["linear_solver"] == "klu"
    res = mbdae.InverseDynamicsProblem(arm(), np.linspace(0.0, 0.02, 3), linear_solver="superlu").run()
    assert res.stats["linear_solver"] == "superlu" and res.stats["refactorizations"] == 0
