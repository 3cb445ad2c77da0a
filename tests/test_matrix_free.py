"""MBDyn's `nonlinear solver: matrix free` (solvers/krylov.py): the Krylov methods against a
direct solve, the inexact Newton-Krylov run against the direct Newton run of the same model
(the same converged states, to the tolerance), and the card with its errors."""
import numpy as np
import pytest

from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.model import Model
from mbdae.engine.core import constitutive as cl
from mbdae.solvers.krylov import MatrixFreeSettings, gmres, bicgstab

from tests.test_deck_reader import deck_text, parse, expect_error


def poorly_preconditioned_system(n=40, seed=3):
    """A nonsymmetric, well-conditioned A, and a preconditioner that is the inverse of a
    perturbed A (as a kept Jacobian is for a later iterate)."""
    rng = np.random.default_rng(seed)
    A = np.eye(n) * 4.0 + rng.normal(size=(n, n)) / np.sqrt(n)
    P = np.linalg.inv(A + 0.3 * rng.normal(size=(n, n)) / np.sqrt(n))
    b = rng.normal(size=n)
    return A, P, b


@pytest.mark.parametrize("method", [gmres, bicgstab])
def test_krylov_methods_reach_the_direct_solution(method):
    A, P, b = poorly_preconditioned_system()
    x, k, converged = method(lambda v: A @ v, lambda v: P @ v, b, 1e-12 * np.linalg.norm(b), 40)
    assert converged and 1 < k < 40
    assert np.linalg.norm(x - np.linalg.solve(A, b)) < 1e-10 * np.linalg.norm(np.linalg.solve(A, b))


def test_gmres_with_the_exact_preconditioner_takes_one_step():
    A, _, b = poorly_preconditioned_system()
    Ainv = np.linalg.inv(A)
    x, k, converged = gmres(lambda v: A @ v, lambda v: Ainv @ v, b, 1e-10, 20)
    assert converged and k == 1
    assert np.allclose(A @ x, b, atol=1e-10)


def test_gmres_stops_at_max_steps_with_its_best_iterate():
    A, _, b = poorly_preconditioned_system()
    x, k, converged = gmres(lambda v: A @ v, lambda v: v, b, 1e-14, 3)
    assert not converged and k == 3
    # the minimal residual over a 3-dimensional Krylov space: below the residual of x = 0
    assert np.linalg.norm(A @ x - b) < 0.5 * np.linalg.norm(b)


def flexible_pendulum():
    """Two rigid links joined by a spherical hinge and a viscoelastic deformable hinge, the
    first pinned to the ground (axis z), under gravity along -y and a side load along z: a
    nonlinear model with constraints and a Jacobian that changes along the run."""
    m = Model()
    m.structural_node(1, "dynamic", position=[0.5, 0, 0])
    m.structural_node(2, "dynamic", position=[1.5, 0, 0])
    for n in (1, 2):
        m.body(n, n, 1.0, inertia=np.diag([1e-3, 0.08, 0.08]))
    m.revolute_pin(1, 1, offset=[-0.5, 0, 0], absolute_position=[0, 0, 0])
    m.spherical_hinge(2, 1, 2, offset1=[0.5, 0, 0], offset2=[-0.5, 0, 0])
    m.deformable_hinge(3, 1, 2, cl.linear_viscoelastic(3, 50.0, 0.1))
    m.gravity([0, -9.81, 0.5])
    return m


@pytest.mark.parametrize("method", ["gmres", "bicgstab"])
def test_matrix_free_newton_converges_to_the_direct_newton_states(method):
    common = dict(final_time=0.5, time_step=1e-3, tolerance=1e-7, max_iterations=50)
    direct = InitialValueProblem(flexible_pendulum(), **common)
    ref = direct.run()
    p = InitialValueProblem(flexible_pendulum(), matrix_free=MatrixFreeSettings(method=method), **common)
    r = p.run()
    assert np.abs(r.x - ref.x).max() < 1e-6 * 2.0            # model size 2 m, tolerance 1e-7 N
    assert np.abs(r.v - ref.v).max() < 1e-5
    mf = p.newton.matrix_free
    assert mf.linear_iterations > 0
    # the preconditioner is kept across steps: far fewer factorizations than Newton iterations
    assert p.newton.factorizations < 0.2 * p.newton.total_iterations
    assert direct.newton.factorizations >= direct.newton.total_iterations


def test_matrix_free_card_maps_to_settings(tmp_path):
    text = deck_text(problem="    nonlinear solver: matrix free, bicgstab, tolerance, 1e-8, steps, 30, tau, 1e-6, "
                             "eta, 0.5, preconditioner, full jacobian matrix, steps, 7, honor element requests;")
    mf = parse(text, tmp_path).settings["matrix_free"]
    assert mf == MatrixFreeSettings(method="bicgstab", max_steps=30, tau=1e-6, eta_max=0.5, preconditioner_steps=7)
    text = deck_text(problem="    nonlinear solver: matrix free, default;")
    assert parse(text, tmp_path).settings["matrix_free"] == MatrixFreeSettings()


@pytest.mark.parametrize("card,needle,message", [
    ("matrix free, cg;", "cg", "syntax error: a matrix-free iterative solver expected (at 'cg')"),
    ("matrix free, gmres, steps, 0;", "0;", "the number of iterative solver steps must be at least 1 (got 0) "
                                            "(at '0')"),
    ("matrix free, gmres, tau, -1.;", "-1.", "tau must be positive (got -1.0) (at '-1.')"),
    ("matrix free, gmres, preconditioner, identity;", "identity",
     "syntax error: a preconditioner expected (at 'identity')"),
])
def test_matrix_free_card_errors_name_the_word(tmp_path, card, needle, message):
    text = deck_text(problem=f"    nonlinear solver: {card}")
    expect_error(tmp_path, text, needle, message)
