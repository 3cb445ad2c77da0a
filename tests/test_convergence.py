"""Residual tests of manual §3.6 on hand-made vectors."""
import numpy as np
import pytest

from mbdae.solvers.convergence import (norm_test, minmax_test, relnorm_test, sepnorm_test,
                                       residual_error, SimulationDiverged)
from mbdae.engine.core.assembly import DIM

F, M, P = DIM["force"], DIM["moment"], DIM["position constraint"]


def test_norm_and_minmax():
    f = np.array([3.0, -4.0, 0.0])
    assert norm_test(f) == 5.0
    assert minmax_test(f) == 4.0


def test_relnorm_is_scale_invariant_and_zero_without_contributions():
    f = np.array([1e-3, -2e-3, 0.5e-3])
    fabs = np.array([10.0, 20.0, 5.0])
    r = relnorm_test(f, fabs)
    assert np.isclose(r, np.linalg.norm(f) / np.linalg.norm(fabs))
    assert np.isclose(relnorm_test(1e6 * f, 1e6 * fabs), r)
    assert relnorm_test(np.zeros(3), np.zeros(3)) == 0.0


def test_norm_passes_where_relnorm_fails():
    # tiny loads: the absolute norm is small although nothing balances
    f = np.array([1e-7, -1e-7])
    fabs = np.array([1e-7, 1e-7])
    assert norm_test(f) < 1e-6
    assert relnorm_test(f, fabs) > 0.5


def test_sepnorm_takes_the_worst_group():
    f = np.array([1e-3, 0.0, 1e-6, 0.0, 1e-4])
    fabs = np.array([1.0, 1.0, 1.0, 1.0, 1.0])
    dim = np.array([F, F, M, M, P])
    expect = max(1e-3 / np.sqrt(2), 1e-6 / np.sqrt(2), 1e-4)
    assert np.isclose(sepnorm_test(f, fabs, dim), expect)


def test_sepnorm_ignores_group_without_contributions():
    f = np.array([1e-8, 0.0, 0.3])
    fabs = np.array([1.0, 1.0, 0.0])
    dim = np.array([F, F, M])
    assert np.isclose(sepnorm_test(f, fabs, dim), 1e-8)


def test_sepnorm_drops_tiny_noisy_group():
    # the moment group is 1e-7 of the force scale (< ε2 = 1e-5) and its ratio exceeds ε1:
    # inactive by the second rule of §3.6
    f = np.array([1e-9, 0.0, 5e-6])
    fabs = np.array([100.0, 100.0, 1e-5])
    dim = np.array([F, F, M])
    assert np.isclose(sepnorm_test(f, fabs, dim), 1e-9 / np.linalg.norm([100.0, 100.0]))
    # the same group is kept when it is not tiny compared with the others
    fabs2 = np.array([100.0, 100.0, 1e-2])
    assert sepnorm_test(f, fabs2, dim) > 1e-6


def test_non_finite_residual_is_divergence():
    with pytest.raises(SimulationDiverged):
        residual_error("norm", np.array([1.0, np.nan]))
