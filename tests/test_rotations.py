"""Rotation kernel (manual ch. 4): round trips, behaviour near 0 and π, tangent operators."""
import numpy as np
import pytest

from mbdae.engine.core import rotations as rot

rng = np.random.default_rng(11)


def random_rotvecs(n, max_angle):
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    return axis * rng.uniform(0, max_angle, size=(n, 1))


def test_exp_log_round_trip_including_small_and_near_pi():
    th = np.concatenate([random_rotvecs(200, np.pi - 1e-6), random_rotvecs(20, 1e-7),
                         random_rotvecs(20, 1e-3)])
    R = rot.exp_rotvec(th)
    assert np.allclose(R @ np.swapaxes(R, 1, 2), np.eye(3), atol=1e-13)
    assert np.allclose(rot.log_rotvec(R), th, atol=1e-9)


def test_log_at_pi_recovers_axis():
    n = np.array([1.0, 2.0, -2.0]) / 3.0
    for angle in (np.pi, np.pi - 1e-9):
        th = rot.log_rotvec(rot.exp_rotvec(angle * n)[None])[0]
        assert np.isclose(np.linalg.norm(th), angle, atol=1e-8)
        assert np.isclose(abs(th @ n) / np.linalg.norm(th), 1.0, atol=1e-8)
        assert np.allclose(rot.exp_rotvec(th), rot.exp_rotvec(angle * n), atol=1e-8)


def test_gamma_is_the_tangent_of_exp_and_gamma_inv_its_inverse():
    th = random_rotvecs(20, 3.0)
    G = rot.gamma(th)
    Gi = rot.gamma_inv(th)
    assert np.allclose(G @ Gi, np.eye(3), atol=1e-10)
    eps = 1e-6
    for k in range(3):
        d = np.zeros(3)
        d[k] = eps
        dR = (rot.exp_rotvec(th + d) - rot.exp_rotvec(th - d)) / (2 * eps)
        W = dR @ np.swapaxes(rot.exp_rotvec(th), 1, 2)
        assert np.allclose(rot.ax(W), G[:, :, k], atol=1e-8)


def test_cayley_parameters():
    g = rng.normal(size=(30, 3))
    R = rot.cayley(g)
    assert np.allclose(R @ np.swapaxes(R, 1, 2), np.eye(3), atol=1e-13)
    assert np.allclose(rot.cayley_inverse(R), g, atol=1e-10)
    # g = 2 tan(φ/2) n
    th = rot.log_rotvec(R)
    phi = np.linalg.norm(th, axis=1)
    assert np.allclose(np.linalg.norm(g, axis=1), 2 * np.tan(phi / 2), rtol=1e-10)
    # G(g) is the tangent: δR Rᵀ = (G δg)×
    G = rot.cayley_G(g)
    eps = 1e-6
    for k in range(3):
        d = np.zeros(3)
        d[k] = eps
        W = (rot.cayley(g + d) - rot.cayley(g - d)) / (2 * eps) @ np.swapaxes(R, 1, 2)
        assert np.allclose(rot.ax(W), G[:, :, k], atol=1e-8)
    assert np.allclose(rot.cayley_G_inv(g) @ G, np.eye(3), atol=1e-12)


def test_dGg_dg_by_finite_differences():
    g = rng.normal(size=(10, 3))
    gd = rng.normal(size=(10, 3))
    D = rot.dGg_dg(g, gd)
    eps = 1e-6
    for k in range(3):
        d = np.zeros(3)
        d[k] = eps
        fd = (rot.matvec(rot.cayley_G(g + d), gd) - rot.matvec(rot.cayley_G(g - d), gd)) / (2 * eps)
        assert np.allclose(D[:, :, k], fd, atol=1e-8)


@pytest.mark.parametrize("to_R,from_R", [(rot.euler123_to_R, rot.R_to_euler123),
                                         (rot.euler313_to_R, rot.R_to_euler313),
                                         (rot.euler321_to_R, rot.R_to_euler321)])
def test_euler_round_trips(to_R, from_R):
    a = rng.uniform(-np.pi, np.pi, size=(100, 3))
    a[:, 1] = rng.uniform(0.1, np.pi / 2 - 0.1, size=100)    # away from the singular middle angle
    R = to_R(a)
    assert np.allclose(to_R(from_R(R)), R, atol=1e-12)
    assert np.allclose(from_R(R), a, atol=1e-10)


def test_euler123_is_R1_R2_R3_and_matches_manual_extraction():
    a, b, c = 0.3, -0.7, 1.2
    R = rot.euler123_to_R([a, b, c])
    Rx = rot.exp_rotvec(np.array([a, 0, 0]))
    Ry = rot.exp_rotvec(np.array([0, b, 0]))
    Rz = rot.exp_rotvec(np.array([0, 0, c]))
    assert np.allclose(R, Rx @ Ry @ Rz)
    assert np.allclose(rot.R_to_euler123(R), [a, b, c])


def test_skew_ax_cross():
    a, b = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    assert np.allclose(rot.skew(a) @ b[..., None], np.cross(a, b)[..., None])
    assert np.allclose(rot.ax(rot.skew(a)), a)
    assert np.allclose(rot.cross(a, b), np.cross(a, b))
