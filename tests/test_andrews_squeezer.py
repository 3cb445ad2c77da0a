"""Andrews' squeezing mechanism from the IVP test set's exact initial values: q(0.03) within
1e-5 of the test set's reference solution (PSIDE, rtol = atol = 1e-14), and the energy
balance T + V - τ(β - β0) = const (IFToMM A03)."""
import os
import sys
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cases"))
import andrews_squeezer as aq  # noqa: E402


@pytest.fixture(scope="module")
def fine_run():
    return aq.run(time_step=3e-6)


def test_reference_solution_at_003(fine_run):
    r, q = fine_run
    assert np.isclose(r.t[-1], 0.03)
    err = np.abs(q[-1] - aq.Q_REF_003)
    assert err.max() < 1e-5, err


def test_initial_values_are_consistent(fine_run):
    r, q = fine_run
    assert np.allclose(q[0], aq.Q0, atol=1e-12)          # the initial assembly had nothing to fix
    assert np.allclose(r.v[0, :7], 0.0, atol=1e-12)


def test_energy_balance(fine_run):
    """Work of the motor torque = change of kinetic plus spring energy."""
    r, q = fine_run
    m = np.array(aq.M)
    J = np.array(aq.J)
    T = 0.5 * (np.einsum('k,tki->t', m, r.v[:, :7] ** 2) + np.einsum('k,tk->t', J, r.w[:, :7, 2] ** 2))
    D = r.x[:, 2] + np.einsum('tij,j->ti', r.R[:, 2], [aq.SD - aq.SB, aq.SA - aq.SC, 0.0])
    lspring = np.linalg.norm(D[:, :2] - np.array([aq.XC, aq.YC]), axis=1)
    V = 0.5 * aq.C0 * (lspring - aq.L0) ** 2
    W = aq.MOM * (q[:, 0] - q[0, 0])
    balance = T + V - W - V[0]
    assert np.max(np.abs(balance)) < 1e-4 * np.max(T)
