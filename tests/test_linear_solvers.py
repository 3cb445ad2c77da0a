"""Linear back ends agree with each other on a real model, and symbolic reuse is real."""
import numpy as np
import pytest

from mbdae.solvers.linear import make_linear_solver, available_linear_solvers, SingularMatrix
from mbdae.engine.drivers.ivp import InitialValueProblem
from samples import SAMPLES


@pytest.mark.parametrize("name", ["superlu", "klu", "kvxopt-umfpack"])
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


def test_klu_refactorization_reuses_pivots_and_falls_back_when_they_go_bad():
    """Refactorization keeps KLU's pivot order; when a new matrix makes that order poor
    (a pivot that was large becomes tiny) a full factorization with fresh pivoting follows,
    and every solve is exact either way."""
    if "klu" not in available_linear_solvers():
        pytest.skip("klu needs a KLU library (libklu1 or the optional extra mbdae[klu])")
    import scipy.sparse as sp
    from mbdae.solvers.klu import KLUFactorization
    rng = np.random.default_rng(0)
    n = 40
    base = sp.random(n, n, density=0.1, random_state=1) + sp.eye(n) * 5
    A = sp.csc_matrix(base)
    klu = KLUFactorization()
    for k in range(4):
        Ak = A.copy()
        Ak.data = A.data * (1 + 0.01 * rng.normal(size=A.nnz))
        klu.factor(Ak.indptr, Ak.indices, Ak.data)
        b = rng.normal(size=n)
        assert np.linalg.norm(Ak @ klu.solve(b) - b) <= 1e-12 * np.linalg.norm(b) * 10
    assert (klu.analyses, klu.full_factorizations, klu.refactorizations) == (1, 1, 3)
    # a 2x2 block whose pivot order must change: [[1, 1], [1, 0]] → [[1e-14, 1], [1, 0]]
    P = sp.csc_matrix(np.array([[1.0, 1.0, 0], [1.0, 0.0, 1.0], [0, 1.0, 3.0]]))
    Q = P.copy()
    Q.data = np.where(np.isclose(P.toarray()[P.indices, np.repeat(np.arange(3), np.diff(P.indptr))], 1.0)
                      & (P.indices == 0) & (np.repeat(np.arange(3), np.diff(P.indptr)) == 0), 1e-14, P.data)
    klu2 = KLUFactorization()
    klu2.factor(P.indptr, P.indices, P.data)
    klu2.factor(Q.indptr, Q.indices, Q.data)
    b = np.array([1.0, 2.0, 3.0])
    assert np.allclose(Q @ klu2.solve(b), b, atol=1e-10)
    assert klu2.full_factorizations == 2


def test_klu_singular_matrix_is_reported():
    if "klu" not in available_linear_solvers():
        pytest.skip("klu needs a KLU library")
    import scipy.sparse as sp
    solver = make_linear_solver("klu")
    with pytest.raises(SingularMatrix):
        solver.factor(sp.csc_matrix(np.array([[1.0, 2.0], [2.0, 4.0]])))
