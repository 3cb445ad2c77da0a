"""Deformable hinge and deformable displacement joint against analytic responses."""
import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core.constitutive import LinearLaw3D
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


# =========================================================================== deformable joint (6-D),
# invariant variants, deformable axial joint, viscous body
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core import rotations as rot
from mbdae.engine.drivers.static import solve_static
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.drives import ConstDrive


def _clamped_pair(**node2):
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    m.structural_node(2, "dynamic", **node2)
    return m


def _coupled_stiffness():
    A = np.array([[1.0, 0.2, 0.0, 0.1, 0.0, 0.3], [0.0, 1.5, 0.1, 0.0, 0.2, 0.0], [0.3, 0.0, 2.0, 0.0, 0.0, 0.1],
                  [0.0, 0.1, 0.0, 0.8, 0.1, 0.0], [0.2, 0.0, 0.0, 0.0, 1.2, 0.1], [0.0, 0.0, 0.2, 0.1, 0.0, 0.9]])
    return 100.0 * (A @ A.T + np.eye(6))


def test_deformable_joint_static_strain_is_the_law_inverse():
    """Attached deformable joint (eq. 9.351) from a clamped node 1 (identity hinge frame, offset
    f1) to node 2: node 2 in equilibrium under an external force F and couple M (at the node)
    needs the law output [F; M] itself, so the strain [d; θ] = K⁻¹[F; M] exactly, whatever its
    size: d = x2 - f1 and exp(θ×) = R2.  Large load (|θ| > 0.8 rad), coupled 6×6 K."""
    K = _coupled_stiffness()
    load = np.array([30.0, -50.0, 80.0, 100.0, -60.0, 110.0])
    f1 = np.array([0.5, 0.0, 0.0])
    m = _clamped_pair(position=f1)
    m.deformable_joint(3, 1, 2, cl.linear_elastic(6, K), offset1=f1)
    m.force(4, 2, VectorDrive.single(load[:3], ConstDrive(1.0)))
    m.couple(5, 2, VectorDrive.single(load[3:], ConstDrive(1.0)))
    r = solve_static(m, steps=4, ramp=True, tolerance=1e-10)
    eps = np.linalg.solve(K, load)
    assert np.linalg.norm(eps[3:]) > 0.8
    np.testing.assert_allclose(r.x[-1, 1] - f1, eps[:3], atol=1e-9)
    np.testing.assert_allclose(rot.log_rotvec(r.R[-1, 1]), eps[3:], atol=1e-9)


def test_deformable_joint_oscillation_frequencies():
    """Mass m (inertia J) on a diagonal 6-D deformable joint: the translation along y and the
    rotation about z oscillate independently with periods 2π sqrt(m/k_y) and 2π sqrt(J/k_rz)."""
    mass, J = 2.0, 0.5
    k = np.array([300.0, 200.0, 400.0, 50.0, 60.0, 80.0])
    m = _clamped_pair(velocity=[0, 0.01, 0], angular_velocity=[0, 0, 0.02])
    m.body(2, 2, mass, inertia=np.diag([J, J, J]))
    m.deformable_joint(3, 1, 2, cl.linear_elastic(6, k))
    Ty, Tz = 2 * np.pi * np.sqrt(mass / k[1]), 2 * np.pi * np.sqrt(J / k[5])
    r = InitialValueProblem(m, final_time=1.2 * max(Ty, Tz), time_step=Ty / 2000, method="crank nicolson").run()
    for s, T in ((r.v[:, 1, 1], Ty), (r.w[:, 1, 2], Tz)):
        tc = crossings(r.t[1:], s[1:])
        assert abs(2 * (tc[1] - tc[0]) - T) / T < 1e-4
    assert np.isclose(r.x[:, 1, 1].max(), 0.01 / np.sqrt(k[1] / mass), rtol=1e-4)


def _swapped_runs(add, swap, final_time=0.2):
    """Two free bodies joined by one element, built node-1→2 or 2→1, spinning and stretched."""
    m = Model()
    m.structural_node(1, "dynamic", position=[0, 0, 0], velocity=[0.1, -0.2, 0.3], angular_velocity=[1.0, 2.0, -3.0])
    m.structural_node(2, "dynamic", position=[0.3, 0.1, -0.1], orientation=rot.exp_rotvec([0.4, -0.3, 0.5]),
                      velocity=[-0.2, 0.4, 0.0], angular_velocity=[-2.0, 3.0, 1.0])
    m.body(1, 1, 1.0, inertia=np.diag([0.1, 0.2, 0.3]))
    m.body(2, 2, 1.5, inertia=np.diag([0.3, 0.2, 0.1]))
    add(m, *((2, 1) if swap else (1, 2)))
    return InitialValueProblem(m, final_time=final_time, time_step=1e-3, method="ms", rho=0.6, tolerance=1e-11).run()


def _node_order_difference(add):
    a, b = _swapped_runs(add, False), _swapped_runs(add, True)
    return max(np.abs(a.x - b.x).max(), np.abs(a.R - b.R).max())


K3 = np.diag([100.0, 20.0, 5.0])


def test_invariant_variants_do_not_depend_on_the_node_order():
    """The invariant forms (law in the mid frame R̂, eqs. 9.263-9.264, 9.333, 9.356) give the
    same loads whichever node comes first, even with anisotropic laws and large relative
    rotations (manual §9.2.2: 'the resulting internal moment does not depend on the node
    sequence'); the attached forms do not (law attached to node 1)."""
    K6 = _coupled_stiffness()
    makers = {
        "hinge": lambda inv: (lambda m, a, b: m.deformable_hinge(9, a, b, cl.linear_elastic(3, K3), invariant=inv)),
        "displacement": lambda inv: (lambda m, a, b: m.deformable_displacement_joint(
            9, a, b, cl.linear_viscoelastic(3, 10 * K3, 0.1 * K3), invariant=inv)),
        "6-D": lambda inv: (lambda m, a, b: m.deformable_joint(9, a, b, cl.linear_viscoelastic(6, K6, 0.01 * K6),
                                                               invariant=inv)),
    }
    for name, make in makers.items():
        assert _node_order_difference(make(True)) < 1e-8, name
        assert _node_order_difference(make(False)) > 1e-3, name


def test_invariant_hinge_static_moment_is_applied_in_the_mid_frame():
    """Invariant deformable hinge from a clamped node 1 (identity frames) to node 2 under a
    couple M (a spherical pin holds its position): equilibrium M = R̂ K θ with θ = exp⁻¹(R2) and R̂ = exp(θ/2) (eq. 9.305); the
    attached hinge instead gives M = K θ (eq. 9.258).  Anisotropic K, |θ| ≈ 1 rad."""
    M = np.array([40.0, 10.0, 4.0])
    for inv in (True, False):
        m = _clamped_pair()
        m.deformable_hinge(3, 1, 2, cl.linear_elastic(3, K3), invariant=inv)
        m.spherical_pin(5, 2)
        m.couple(4, 2, VectorDrive.single(M, ConstDrive(1.0)))
        r = solve_static(m, steps=5, ramp=True, tolerance=1e-11)
        th = rot.log_rotvec(r.R[-1, 1])
        assert np.linalg.norm(th) > 0.5
        frame = rot.exp_rotvec(0.5 * th) if inv else np.eye(3)
        np.testing.assert_allclose(frame @ K3 @ th, M, atol=1e-8)


def test_deformable_axial_joint_damped_torsion():
    """Body (J about z) on a revolute pin with a deformable axial joint (k, c) about z, given an
    initial spin ω0: θ(t) = ω0/ω_d e^{-σt} sin(ω_d t), σ = c/(2J), ω_d = sqrt(k/J - σ²) (eq. 9.364);
    the hinge frames turn the axis (hinge axis 3 along the global z through R1h = R2h)."""
    J, k, c, w0 = 0.5, 80.0, 0.6, 2.0
    Rh = rot.exp_rotvec([np.pi / 2, 0, 0]) @ rot.exp_rotvec([0, 0, 0.3])   # axis 3 → -y; use -y as spin axis
    axis = Rh[:, 2]
    m = _clamped_pair(angular_velocity=w0 * axis)
    m.body(2, 2, 1.0, inertia=J * np.outer(axis, axis) + 2.0 * (np.eye(3) - np.outer(axis, axis)))
    m.revolute_pin(3, 2, orientation=Rh, absolute_orientation=Rh)
    m.deformable_axial_joint(4, 1, 2, cl.linear_viscoelastic(1, k, c), orientation1=Rh, orientation2=Rh)
    sigma = c / (2 * J)
    wd = np.sqrt(k / J - sigma ** 2)
    r = InitialValueProblem(m, final_time=0.6, time_step=4e-4, method="crank nicolson").run()
    angle = rot.log_rotvec(r.R[:, 1]) @ axis
    exact = w0 / wd * np.exp(-sigma * r.t) * np.sin(wd * r.t)
    assert np.abs(angle - exact).max() < 1e-4 * np.abs(exact).max()


def test_viscous_body_velocity_decay():
    """Free body with a viscous body element (manual §9.3): linear viscosity c in the frame
    R_h along its axis 1 and angular viscosity c_w about all axes, spinning about that axis: the
    velocity component along it decays as e^{-c t/m}, the transverse velocity stays, and the
    spin decays as e^{-c_w t/J}."""
    mass, J, c, cw = 2.0, 0.4, 3.0, 0.8
    Rh = rot.exp_rotvec([0.3, -0.2, 0.5])
    e1 = Rh[:, 0]
    v0 = 1.5 * e1 + 0.7 * Rh[:, 1]
    m = Model()
    m.structural_node(1, "dynamic", velocity=v0, angular_velocity=2.0 * e1)
    m.body(1, 1, mass, inertia=J * np.eye(3))
    m.viscous_body(2, 1, cl.linear_viscous(6, np.diag([c, 0, 0, cw, cw, cw])), orientation=Rh)
    r = InitialValueProblem(m, final_time=1.0, time_step=1e-3, method="crank nicolson").run()
    t = r.t
    np.testing.assert_allclose(r.v[:, 0] @ e1, 1.5 * np.exp(-c * t / mass), rtol=2e-5)
    np.testing.assert_allclose(r.v[:, 0] - np.outer(r.v[:, 0] @ e1, e1), np.tile(0.7 * Rh[:, 1], (len(t), 1)), atol=1e-9)
    np.testing.assert_allclose(r.w[:, 0] @ e1, 2.0 * np.exp(-cw * t / J), rtol=2e-5)
