"""Which linear solver a run uses: KLU (with numeric refactorization, kept pivots) by default
whenever a KLU library is found, for decks and for the Python API; MBDyn's `umfpack` and
`naive` get KLU with refactorization too; SuperLU when no KLU library is found; large
finite-element patterns get UMFPACK.  The run's .log names the choice and the run statistics
name the solver that ran.  The momenta of dynamic displacement nodes are condensed before
the factorization, with the same solution."""
import numpy as np
import pytest

import mbdae
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.drivers.static import StaticProblem
from mbdae.engine.io.mbdyn.deck import parse_deck
from mbdae.engine.model import Model
from mbdae.elements.shell import isotropic_shell_law
from mbdae.elements.membrane import isotropic_membrane_law
from mbdae.solvers import linear
from test_inverse_dynamics import arm
from mbdae.solvers.linear import (CondensedBlocksSolver, KLUSolver, SuperLUSolver, choose_linear_solver,
                                  klu_available, make_linear_solver)
import scipy.sparse.linalg as spla
from mbdae.engine.system import System
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic
from mbdae.elements.solid_meshes import block_mesh

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


def solid_cube(n, with_body=False):
    """A cube of hexahedron20 elements on dynamic displacement nodes, clamped on x = 0 by
    genel clamps (multiplier rows), with a structural force on one free node; `with_body`
    adds a rigid body with a revolute pin to show mixed models keep their other unknowns."""
    P, conn, _ = block_mesh("hexahedron20", n, 1.0, 0.2, np.random.default_rng(3))
    m = Model()
    for k, x in enumerate(P):
        m.structural_node(k + 1, "dynamic displacement", position=x)
    for e, c in enumerate(conn):
        m.solid(e + 1, "hexahedron20", c + 1, hookean_linear_elastic_isotropic(2e5, 0.3), 1000.0)
    label = 1
    for k in np.flatnonzero(P[:, 0] < 1e-9):
        for c in (1, 2, 3):
            m.genel_clamp(label, int(k + 1), node_type="structural", index=c, value=None)
            label += 1
    tip = int(np.argmax(P.sum(axis=1))) + 1
    m.force(1, tip, [0.0, 0.0, -50.0])
    if with_body:
        m.structural_node(len(P) + 1, "dynamic", position=[2.0, 0.0, 0.0])
        m.body(len(conn) + 1, len(P) + 1, 1.0, inertia=np.diag([0.1, 0.1, 0.1]))
        m.spherical_pin(label, len(P) + 1, offset=[-1.0, 0, 0], absolute_position=[1.0, 0, 0])
        m.gravity([0, -9.81, 0])
    return m


@pytest.mark.parametrize("with_body", [False, True])
def test_condensed_momenta_give_the_full_solution(with_body):
    """Eliminating the dynamic displacement nodes' momenta (a Schur complement on their
    3×3 pivot blocks) solves J Δ = b exactly as a factorization of the whole J does."""
    system = System(solid_cube(2, with_body))
    F, B = system.momentum_blocks()
    assert len(B) == system.nodes.n - with_body          # every displacement node, not the body's
    st = system.initial_state(0.0)
    rng = np.random.default_rng(0)
    st.y[system.nodes.ix[:len(B)]] += 1e-3 * rng.normal(size=(len(B), 3))
    st.yp[:] = rng.normal(size=system.n)
    for dcoef in (1e-6, 1e-3, 0.5):
        J = system.evaluate(st, dcoef)[2].tocsc()
        b = rng.normal(size=system.n)
        exact = spla.spsolve(J, b)
        solver = CondensedBlocksSolver(make_linear_solver("superlu"), system.n, [B])
        solver.factor(J)
        x = solver.solve(b)
        assert np.abs(x - exact).max() <= 1e-8 * np.abs(exact).max(), dcoef
    n_kept, nnz_kept, continuum = system.linear_pattern()
    assert n_kept == system.n - 3 * len(B)
    solid_nodes = np.unique(np.concatenate([f.conn.ravel() for f in system.families if hasattr(f, "conn")]))
    assert continuum == 3 * len(solid_nodes) > 0
    S_pattern = solver.backend.lu.shape
    assert S_pattern == (n_kept, n_kept)


def test_runs_with_condensed_momenta_match_the_full_solver():
    """A dynamic run of a clamped solid cube with the momenta condensed (the IVP's default)
    follows the run that factorizes the whole Jacobian, to the Newton tolerance."""
    runs = []
    for condense in (True, False):
        problem = InitialValueProblem(solid_cube(2), final_time=2e-3, time_step=5e-4, tolerance=1e-10,
                                      linear_solver="superlu")
        if not condense:
            problem.newton.linear = make_linear_solver("superlu")
        assert isinstance(problem.newton.linear, CondensedBlocksSolver) == condense
        runs.append(problem.run().x)
    scale = np.abs(runs[1][-1] - runs[1][0]).max()
    assert scale > 1e-6
    assert np.abs(runs[0] - runs[1]).max() < 1e-9 * scale + 1e-12


def test_finite_element_patterns_get_umfpack():
    """Large solid meshes (thousands of unknowns of solids' nodes, tens of entries per column)
    get PETSc's MUMPS (when installed, as do large surface meshes) or else UMFPACK for
    `default`, `umfpack` and `naive` (KLU is several times slower there, RESULTS.md); an
    explicit `klu` stays KLU, multibody patterns keep the default."""
    fe = (20000, 60 * 20000, 20000)
    assert linear.finite_element_pattern(fe) and not linear.finite_element_pattern((20000, 12 * 20000, 20000))
    assert not linear.finite_element_pattern((500, 60 * 500, 500))
    assert not linear.finite_element_pattern((20000, 60 * 20000, 0))     # shells
    mumps = linear.mumps_available()
    expected = "petsc-mumps" if mumps else "kvxopt-umfpack" if linear.kvxopt_available() else "superlu"
    why = "mesh pattern" if mumps else "finite-element pattern"
    for name in ("default", "umfpack", "naive"):
        choice = choose_linear_solver(name, pattern=fe)
        assert choice.name == expected and f"{why}, 20000 unknowns, 60 entries" in choice.describe()
    assert choose_linear_solver("superlu", pattern=fe).name == "superlu"
    if klu_available():
        assert choose_linear_solver("klu", pattern=fe).name == "klu"
        assert choose_linear_solver("default", pattern=(20000, 12 * 20000, 20000)).name == "klu"
        # surface meshes: MUMPS when PETSc has it and the mesh is large, else KLU
        assert choose_linear_solver("default", pattern=(20000, 40 * 20000, 0)).name == \
            ("petsc-mumps" if mumps else "klu")
        assert choose_linear_solver("default", pattern=(10000, 40 * 10000, 0)).name == "klu"
        # the .log's choice is refined once the pattern is known
        assert choose_linear_solver("default").for_pattern(fe).name == expected


def test_condensed_eas_parameters_give_the_full_solution():
    """The block elimination is general: shells' and membranes' EAS parameters (13 and 7 per
    element) with the momenta of the membrane's dynamic displacement nodes (3) eliminated on
    their pivot blocks give the same solution as SuperLU on the whole Jacobian, at random
    states and several dCoef.  (Runs keep the EAS parameters in the matrix: KLU orders them
    first anyway, RESULTS.md.)"""
    rng = np.random.default_rng(3)
    m = Model()
    for k in range(9):
        i, j = k % 3, k // 3
        m.structural_node(k + 1, "dynamic", position=[0.5 * i, 0.5 * j, 0.05 * (i * j % 2)])
        m.structural_node(k + 11, "dynamic displacement", position=[0.5 * i, 0.5 * j + 2.0, 0.0])
    quads = [(5, 4, 1, 2), (6, 5, 2, 3), (8, 7, 4, 5), (9, 8, 5, 6)]
    for e, q in enumerate(quads):
        m.shell(e + 1, q, isotropic_shell_law(E=1e6, nu=0.3, thickness=0.01), kind=("shell4eas", "shell4easans")[e % 2])
        m.membrane(e + 11, [n + 10 for n in q], isotropic_membrane_law(E=1e6, nu=0.3, thickness=0.01))
    m.shell_masses(100, 1000.0, 0.01)
    for k in range(9):
        m.body(300 + k, k + 11, 0.1)                 # point masses on the membrane's nodes
    for k in (1, 4, 7):
        m.clamp(200 + k, k)
    system = System(m)
    momenta, _ = system.condensed_blocks()
    shells = sorted((f for f in system.families if f.name.startswith("shell")), key=lambda f: f.name)
    membranes = next(f for f in system.families if f.name.startswith("membrane"))
    groups = momenta + [f.boff for f in shells] + [membranes.brow]
    assert sorted(g.shape for g in groups) == [(2, 7), (2, 13), (4, 7), (9, 3)]
    st = system.initial_state(0.0)
    st.y[:] += 1e-3 * rng.normal(size=system.n)
    st.yp[:] = rng.normal(size=system.n)
    for dcoef in (1e-4, 1e-2, 0.5):
        J = system.evaluate(st, dcoef)[2].tocsc()
        b = rng.normal(size=system.n)
        exact = spla.spsolve(J, b)
        solver = CondensedBlocksSolver(make_linear_solver("superlu"), system.n, groups, "test")
        solver.factor(J)
        assert np.abs(solver.solve(b) - exact).max() <= 1e-8 * np.abs(exact).max(), dcoef
