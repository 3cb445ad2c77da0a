"""Linear back ends agree with each other on a real model, and symbolic reuse is real."""
import numpy as np
import pytest

from mbdae.solvers.linear import make_linear_solver, available_linear_solvers, SingularMatrix
from mbdae.engine.problem import InitialValueProblem
from samples import SAMPLES


@pytest.mark.parametrize("name", ["superlu", "klu", "umfpack"])
def test_backend_solves_a_model_jacobian(name):
    if name not in available_linear_solvers():
        pytest.skip(f"{name} needs the optional extra mbdae[klu] (kvxopt)")
    from mbdae.engine.model import Model
    m = Model()                               # a well-posed model: a 5-link pendulum chain
    for i in range(5):
        m.structural_node(i + 1, "dynamic", position=[i + 0.5, 0, 0], angular_velocity=[0, 0, 0.3])
        m.body(i + 1, i + 1, 1.0, inertia=np.diag([0.01, 0.1, 0.1]))
    m.spherical_pin(1, 1, offset=[-0.5, 0, 0], absolute_position=[0, 0, 0])
    for i in range(1, 5):
        m.spherical_hinge(i + 1, i, i + 1, offset1=[0.5, 0, 0], offset2=[-0.5, 0, 0])
    m.gravity([0, -9.81, 0])
    p = InitialValueProblem(m, time_step=1e-3)
    st = p.prepare()
    system = p.system
    solver = make_linear_solver(name)
    for k in range(3):                      # same pattern, new values
        f, _, J = system.evaluate(st, 0.01 * (k + 1))
        solver.factor(J)
        x = solver.solve(f)
        assert np.linalg.norm(J @ x - f) <= 1e-9 * np.linalg.norm(f)
    if name != "superlu":
        assert solver.symbolic_analyses == 1 and solver.factorizations == 3


def test_singular_matrix_is_reported():
    import scipy.sparse as sp
    solver = make_linear_solver("superlu")
    with pytest.raises(SingularMatrix):
        solver.factor(sp.csc_matrix(np.array([[1.0, 2.0], [2.0, 4.0]])))


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="not available"):
        make_linear_solver("nonesuch")


def test_klu_run_matches_superlu_run():
    if "klu" not in available_linear_solvers():
        pytest.skip("klu needs the optional extra mbdae[klu] (kvxopt)")
    runs = []
    for ls in ("superlu", "klu"):
        m = SAMPLES["gravity"][0](np.random.default_rng(4))
        m.spherical_pin(1, 1, absolute_position=[0.0, 0.0, 0.0])
        runs.append(InitialValueProblem(m, final_time=0.05, time_step=1e-3, linear_solver=ls).run())
    assert np.allclose(runs[0].x, runs[1].x, atol=1e-10)
