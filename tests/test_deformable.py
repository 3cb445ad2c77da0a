"""Deformable hinge and deformable displacement joint against analytic responses."""
import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.problem import InitialValueProblem
from mbdae.engine.constitutive import LinearLaw3D
from test_joint_physics import crossings


def test_torsional_spring_inertia_frequency():
    """Body (J = 2 about z) on a revolute pin, held by a deformable hinge of stiffness k = 50:
    period 2π sqrt(J/k); the elastic couple reverses the twist of a large initial rotation."""
    J, k = 2.0, 50.0
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    m.structural_node(2, "dynamic", angular_velocity=[0, 0, 3.0])
    m.body(2, 2, 1.0, inertia=np.diag([1.0, 1.0, J]))
    m.revolute_pin(3, 2)
    m.deformable_hinge(4, 1, 2, LinearLaw3D(k))
    T = 2 * np.pi * np.sqrt(J / k)
    r = InitialValueProblem(m, final_time=1.2 * T, time_step=T / 1000, method="crank nicolson").run()
    wz = r.w[:, 1, 2]
    tc = crossings(r.t[1:], wz[1:])
    assert abs(2 * (tc[1] - tc[0]) - T) / T < 1e-4
    # amplitude of the twist: ω0 / sqrt(k/J)
    angle = np.arctan2(r.R[:, 1, 1, 0], r.R[:, 1, 0, 0])
    assert np.isclose(angle.max(), 3.0 / np.sqrt(k / J), rtol=1e-4)


def test_viscoelastic_displacement_joint_damped_oscillation():
    """Mass on a deformable displacement joint (k, c) along x: ζω = c/(2m), ω_d = sqrt(k/m - ζ²ω²)."""
    mass, k, c = 2.0, 200.0, 4.0
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    m.structural_node(2, "dynamic", position=[1.05, 0, 0])
    m.body(2, 2, mass, inertia=np.eye(3))
    m.total_pin_joint(3, 2, position_status=("inactive", "active", "active"),
                      orientation_status=("active", "active", "active"))
    m.deformable_displacement_joint(4, 1, 2, LinearLaw3D([k, k, k], [c, c, c]), offset1=[1.0, 0, 0])
    sigma = c / (2 * mass)
    wd = np.sqrt(k / mass - sigma ** 2)
    r = InitialValueProblem(m, final_time=2.0, time_step=5e-4, method="ms", rho=0.6).run()
    exact = 0.05 * np.exp(-sigma * r.t) * (np.cos(wd * r.t) + sigma / wd * np.sin(wd * r.t))
    assert np.max(np.abs(r.x[:, 1, 0] - 1.0 - exact)) < 2e-4
