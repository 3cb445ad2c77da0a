"""Inverse dynamics, fully actuated collocated case: a planar two-link arm whose joint
angles follow smooth prescribed laws.  Torques against the closed-form Lagrange torques,
and the round trip through forward dynamics."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.inverse import InverseDynamicsProblem
from mbdae.engine.problem import InitialValueProblem
from mbdae.engine.drives import ExpressionDrive, PiecewiseLinearDrive
from mbdae.engine.tpldrive import VectorDrive
from mbdae.engine.rotations import euler123_to_R

M1, M2, L1, LC1, LC2, I1, I2, G = 2.0, 1.5, 0.8, 0.35, 0.3, 0.12, 0.08, 9.81
Q1 = "0.3 + 0.5*sin(2*Time)"
Q2 = "-0.2 + 0.7*sin(3*Time + 0.4)"


def q_exact(t):
    q1 = 0.3 + 0.5 * np.sin(2 * t)
    q2 = -0.2 + 0.7 * np.sin(3 * t + 0.4)
    d1, d2 = np.cos(2 * t), 2.1 * np.cos(3 * t + 0.4)
    a1, a2 = -2.0 * np.sin(2 * t), -6.3 * np.sin(3 * t + 0.4)
    return q1, q2, d1, d2, a1, a2


def lagrange_torques(t):
    q1, q2, d1, d2, a1, a2 = q_exact(t)
    c2, s2 = np.cos(q2), np.sin(q2)
    m11 = M1 * LC1 ** 2 + I1 + M2 * (L1 ** 2 + LC2 ** 2 + 2 * L1 * LC2 * c2) + I2
    m12 = M2 * (LC2 ** 2 + L1 * LC2 * c2) + I2
    m22 = M2 * LC2 ** 2 + I2
    h = M2 * L1 * LC2 * s2
    g1 = (M1 * LC1 + M2 * L1) * G * np.cos(q1) + M2 * LC2 * G * np.cos(q1 + q2)
    g2 = M2 * LC2 * G * np.cos(q1 + q2)
    tau1 = m11 * a1 + m12 * a2 - h * (2 * d1 * d2 + d2 ** 2) + g1
    tau2 = m12 * a1 + m22 * a2 + h * d1 ** 2 + g2
    return tau1, tau2


def arm(driven=True, torques=None):
    """Link 1: node 1 at the shoulder (origin); link 2: node 2 at the elbow; angles about z."""
    q1, q2 = q_exact(0.0)[:2]
    m = Model()
    m.structural_node(1, "dynamic", orientation=euler123_to_R([0, 0, q1]))
    m.structural_node(2, "dynamic", position=[L1 * np.cos(q1), L1 * np.sin(q1), 0],
                      orientation=euler123_to_R([0, 0, q1 + q2]))
    m.body(1, 1, M1, center_of_mass=[LC1, 0, 0], inertia=np.diag([I1, I1, I1]))
    m.body(2, 2, M2, center_of_mass=[LC2, 0, 0], inertia=np.diag([I2, I2, I2]))
    m.revolute_pin(1, 1, absolute_orientation=np.eye(3))
    m.revolute_hinge(2, 1, 2, offset1=[L1, 0, 0])
    m.gravity([0, -G, 0])
    if driven:     # actuators: imposed shoulder and elbow angles (rotation about z only)
        m.total_pin_joint(3, 1, orientation_status=("inactive", "inactive", "active"),
                          orientation_drive=VectorDrive.single([0, 0, 1], ExpressionDrive(Q1)),
                          absolute_rotation_orientation=np.eye(3))
        m.total_joint(4, 1, 2, orientation_status=("inactive", "inactive", "active"),
                      orientation_drive=VectorDrive.single([0, 0, 1], ExpressionDrive(Q2)))
    else:          # the same arm driven by the computed torques
        t, tau1, tau2 = torques
        m.couple(3, 1, VectorDrive.single([0, 0, 1], PiecewiseLinearDrive(list(zip(t, tau1)))))
        m.couple(4, 2, VectorDrive.single([0, 0, 1], PiecewiseLinearDrive(list(zip(t, tau2)))))
        m.couple(5, 1, VectorDrive.single([0, 0, -1], PiecewiseLinearDrive(list(zip(t, tau2)))))
    return m


@pytest.fixture(scope="module")
def inverse():
    t = np.linspace(0.0, 1.0, 4001)
    return InverseDynamicsProblem(arm(), t).run()


def test_joint_torques_match_lagrange(inverse):
    r = inverse
    tau1, tau2 = lagrange_torques(r.t)
    _, M3 = r.joint(3)             # couple of the shoulder actuator on link 1
    _, M4 = r.joint(4)             # couple of the elbow actuator on link 2
    # generalized forces of q1 and q2 are the shoulder and elbow actuator couples
    assert np.allclose(M3[:, 2], tau1, rtol=0, atol=1e-8 * np.abs(tau1).max())
    assert np.allclose(M4[:, 2], tau2, rtol=0, atol=1e-8 * np.abs(tau2).max())
    # prescribed motion reproduced exactly at every instant
    q1, q2, d1, d2, a1, a2 = q_exact(r.t)
    ang1 = np.arctan2(r.R[:, 0, 1, 0], r.R[:, 0, 0, 0])
    assert np.allclose(ang1, q1, atol=1e-12)
    assert np.allclose(r.w[:, 0, 2], d1, atol=1e-10)
    assert np.allclose(r.wd[:, 0, 2], a1, atol=1e-7 * np.abs(a1).max())


def test_round_trip_through_forward_dynamics(inverse):
    r = inverse
    _, M3 = r.joint(3)
    _, M4 = r.joint(4)
    tau1, tau2 = M3[:, 2], M4[:, 2]
    fwd = arm(driven=False, torques=(r.t, tau1, tau2))
    q1, q2, d1, d2 = q_exact(0.0)[:4]
    fwd.nodes[0].w = np.array([0, 0, d1])
    fwd.nodes[1].w = np.array([0, 0, d1 + d2])
    fwd.nodes[1].v = np.cross([0, 0, d1], [L1 * np.cos(q1), L1 * np.sin(q1), 0])
    f = InitialValueProblem(fwd, final_time=1.0, time_step=2.5e-4, method="ms", rho=0.6).run()
    ang1 = np.unwrap(np.arctan2(f.R[:, 0, 1, 0], f.R[:, 0, 0, 0]))
    ang2 = np.unwrap(np.arctan2(f.R[:, 1, 1, 0], f.R[:, 1, 0, 0]))
    e1, e2 = q_exact(f.t)[:2]
    assert np.max(np.abs(ang1 - e1)) < 1e-5 * np.max(np.abs(e1))
    assert np.max(np.abs(ang2 - ang1 - e2)) < 1e-5 * np.max(np.abs(e2))
