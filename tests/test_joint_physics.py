"""Per-component physics checks of joints, rods, static nodes and the solution phases
(digest §5.2), each against an analytic answer."""
import os
import numpy as np
import pytest

from mbdae import initial_value_problem
from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem, SimulationFailed
from mbdae.engine.core.drives import SineDrive, LinearDrive, ConstDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.constitutive import LinearElastic1D
from mbdae.engine.core import rotations as rot


def crossings(t, s):
    k = np.flatnonzero(np.sign(s[1:]) != np.sign(s[:-1]))
    return t[k] - s[k] * (t[k + 1] - t[k]) / (s[k + 1] - s[k])


def test_rod_spring_mass_frequency():
    """Mass on a rod (EA = E, l0 = 1) from a clamped node: period 2π sqrt(m l0 / EA)."""
    m_, E, l0 = 2.0, 800.0, 1.0
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    m.structural_node(2, "dynamic", position=[l0 + 0.01, 0, 0])
    m.body(2, 2, m_, inertia=np.eye(3) * 1e-2)
    m.rod(3, 1, 2, LinearElastic1D(E), length=l0)
    T = 2 * np.pi * np.sqrt(m_ * l0 / E)
    r = InitialValueProblem(m, final_time=1.2 * T, time_step=T / 2000, method="ms", rho=1.0).run()
    tc = crossings(r.t[1:], r.v[1:, 1, 0])
    assert abs(tc[1] - T) / T < 1e-4
    # amplitude kept (ρ∞ = 1: no numerical dissipation) and the rod tension is E ε
    assert np.isclose(r.x[:, 1, 0].min(), l0 - 0.01, atol=1e-5)


def test_static_node_equilibrium():
    """A static node held by two rods in series under a constant force settles at F/k."""
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    m.structural_node(2, "static", position=[1.0, 0, 0])
    m.structural_node(3, "static", position=[2.0, 0, 0])
    m.rod(1, 1, 2, LinearElastic1D(1000.0))
    m.rod(2, 2, 3, LinearElastic1D(3000.0))
    m.force(1, 3, [60.0, 0, 0])
    # rods carry no moments: lock the rotations of the free static nodes
    m.total_pin_joint(2, 2, position_status=("inactive", "active", "active"),
                      orientation_status=("active", "active", "active"))
    m.total_pin_joint(3, 3, position_status=("inactive", "active", "active"),
                      orientation_status=("active", "active", "active"))
    r = InitialValueProblem(m, final_time=0.01, time_step=0.01).run()
    assert np.isclose(r.x[-1, 1, 0], 1.0 + 60.0 / 1000.0, rtol=1e-10)
    assert np.isclose(r.x[-1, 2, 0], 2.0 + 60.0 / 1000.0 + 60.0 / 3000.0, rtol=1e-10)


def test_revolute_hinge_spin_up_and_axial_rotation():
    """Constant torque about a revolute hinge axis: ω = T t / J; an axial rotation joint
    imposes ω(t) exactly."""
    J = np.diag([2.0, 3.0, 4.0])
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    tilt = rot.exp_rotvec(np.array([0.3, -0.2, 0.0]))
    m.structural_node(2, "dynamic", orientation=tilt)
    m.body(2, 2, 1.0, inertia=J)
    m.revolute_hinge(3, 1, 2, orientation1=tilt, orientation2=np.eye(3))
    m.couple(4, 2, VectorDrive.single(tilt[:, 2], ConstDrive(8.0)))
    m.structural_node(5, "dynamic")
    m.body(5, 5, 1.0, inertia=J)
    m.axial_rotation(6, 1, 5, SineDrive(0.0, 3.0, 2.0, "forever", 0.5))
    r = InitialValueProblem(m, final_time=1.0, time_step=1e-3).run()
    w = np.einsum('ki,i->k', r.w[:, 1], tilt[:, 2])
    assert np.allclose(w, 8.0 / 4.0 * r.t, atol=1e-8)
    assert np.allclose(np.cross(r.w[:, 1], tilt[:, 2]), 0.0, atol=1e-8)
    assert np.allclose(r.w[:, 2, 2], 0.5 + 2.0 * np.sin(3.0 * r.t), atol=1e-8)


def test_bead_on_rotating_rod():
    """In-line joint on an arm spun at Ω by a drive hinge: r(t) = r0 cosh(Ω t)."""
    Om, r0 = 2.0, 0.1
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    m.structural_node(2, "dynamic")
    m.body(2, 2, 1.0, inertia=np.eye(3))
    m.spherical_pin(3, 2)
    m.drive_hinge(4, 1, 2, VectorDrive.single([0, 0, 1], LinearDrive(0.0, Om)))
    m.structural_node(5, "dynamic", position=[r0, 0, 0], velocity=[0, Om * r0, 0])
    m.body(5, 5, 0.5, inertia=np.eye(3) * 1e-3)
    line = rot.frame_from_axis3([1.0, 0, 0])
    m.in_line(6, 2, [0, 0, 0], line, 5)
    r = InitialValueProblem(m, final_time=1.0, time_step=1e-3, method="ms", rho=0.6).run()
    radius = np.linalg.norm(r.x[:, 2, :2], axis=1)
    assert np.allclose(radius, r0 * np.cosh(Om * r.t), rtol=2e-5)
    # the reaction is normal to the rod (frictionless line): no work along it
    F, _ = r.joint(6)
    arm = np.einsum('kij,j->ki', r.R[:, 1], [1.0, 0, 0])
    assert np.max(np.abs(np.einsum('ki,ki->k', F, arm))) < 1e-8 * np.max(np.abs(F))


def test_drive_displacement_reaction_is_mass_times_acceleration():
    """A mass moved along x by a drive displacement pin: reaction = m ẍ(t)."""
    A, om, mass = 0.2, 5.0, 3.0
    m = Model()
    m.structural_node(1, "dynamic")
    m.body(1, 1, mass, inertia=np.eye(3))
    # the sine starts at t = -1 so that it is smooth at t0 (MBDyn's sine drive returns half
    # the derivative at its start time, as the drive tests check)
    m.drive_displacement_pin(2, 1, VectorDrive.single([1, 0, 0], SineDrive(-1.0, om, A, "forever", 0.0)))
    r = InitialValueProblem(m, final_time=1.0, time_step=1e-3, method="ms", rho=0.6).run()
    phase = om * (r.t + 1.0)
    assert np.allclose(r.x[:, 0, 0], A * np.sin(phase), atol=1e-12)
    F, _ = r.joint(2)
    settled = r.t > 0.05
    expect = mass * (-A * om ** 2 * np.sin(phase))
    assert np.allclose(F[settled, 0], expect[settled], atol=1e-3 * mass * A * om ** 2)


def test_total_pin_joint_reproduces_revolute_pin():
    """A pendulum on a total pin joint (position, rotations about x and y) moves exactly
    like the same pendulum on a revolute pin."""
    def pendulum(kind):
        m = Model()
        m.structural_node(1, "dynamic", orientation=rot.exp_rotvec(np.array([0, 0, 0.4])))
        m.body(1, 1, 1.0, center_of_mass=[1.0, 0, 0], inertia=np.diag([0.1, 0.2, 0.3]))
        if kind == "revolute":
            m.revolute_pin(2, 1, absolute_orientation=np.eye(3))
        else:
            m.total_pin_joint(2, 1, position_status=("active",) * 3,
                              orientation_status=("active", "active", "inactive"))
        m.gravity([0, -9.81, 0])
        return InitialValueProblem(m, final_time=1.0, time_step=1e-3).run()
    a, b = pendulum("revolute"), pendulum("total")
    assert np.allclose(a.R, b.R, atol=1e-7)
    assert np.allclose(a.joint_force, b.joint_force, atol=1e-5)


def test_distance_pendulum_small_amplitude_period():
    L, g, th0 = 2.0, 9.81, 0.05
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    m.structural_node(2, "dynamic", position=[L * np.sin(th0), -L * np.cos(th0), 0])
    m.body(2, 2, 1.0, inertia=np.eye(3) * 1e-3)
    m.distance(3, 1, 2)
    m.gravity([0, -g, 0])
    exact = 2 * np.pi * np.sqrt(L / g) * (1 + th0 ** 2 / 16)
    r = InitialValueProblem(m, final_time=1.2 * exact, time_step=1e-3, method="ms", rho=0.6).run()
    tc = crossings(r.t[1:], r.v[1:, 1, 0])
    assert abs(tc[1] - exact) / exact < 2e-4
    # tension at the lowest point: m (g + v²/L)
    F, _ = r.joint(3)
    k = np.argmin(np.abs(r.x[:, 1, 0]))
    v2 = np.sum(r.v[k, 1] ** 2)
    assert np.isclose(np.linalg.norm(F[k]), g + v2 / L, rtol=1e-3)


def test_initial_assembly_corrects_positions_and_velocities():
    """A double pendulum given off its constraints and with incompatible velocities is
    brought onto them; with `skip initial assembly` the input is left untouched."""
    def model():
        m = Model()
        m.structural_node(1, "dynamic", position=[0.52, 0.03, 0], velocity=[0.3, 0.2, 0.1])
        m.structural_node(2, "dynamic", position=[1.49, -0.02, 0.01])
        for n in (1, 2):
            m.body(n, n, 1.0, inertia=np.eye(3) * 0.01)
        m.spherical_pin(1, 1, offset=[-0.5, 0, 0], absolute_position=[0, 0, 0])
        m.spherical_hinge(2, 1, 2, offset1=[0.5, 0, 0], offset2=[-0.5, 0, 0])
        return m
    p = InitialValueProblem(model(), final_time=1e-3, time_step=1e-3)
    st = p.prepare()
    kin = p.system.kinematics(st)
    pin = kin.x[0] + kin.R[0] @ [-0.5, 0, 0]
    hinge1 = kin.x[0] + kin.R[0] @ [0.5, 0, 0]
    hinge2 = kin.x[1] + kin.R[1] @ [-0.5, 0, 0]
    assert np.allclose(pin, 0, atol=1e-10) and np.allclose(hinge1, hinge2, atol=1e-10)
    # velocities compatible: the pin point and the hinge points move consistently
    vpin = kin.v[0] + np.cross(kin.w[0], kin.R[0] @ [-0.5, 0, 0])
    v1 = kin.v[0] + np.cross(kin.w[0], kin.R[0] @ [0.5, 0, 0])
    v2 = kin.v[1] + np.cross(kin.w[1], kin.R[1] @ [-0.5, 0, 0])
    assert np.allclose(vpin, 0, atol=1e-10) and np.allclose(v1, v2, atol=1e-10)
    # skipping the assembly leaves the input as given
    p2 = InitialValueProblem(model(), final_time=1e-3, time_step=1e-3, skip_initial_assembly=True,
                             derivatives_tolerance=1e10)
    st2 = p2.prepare()
    assert np.allclose(p2.system.kinematics(st2).x[0], [0.52, 0.03, 0])


def test_divergence_stops_with_diagnosis_and_keeps_output(tmp_path):
    """An exploding force: the run stops naming step, time and the worst equation, and the
    output written so far stays on disk."""
    def runaway(t, x, v):
        F = np.zeros_like(x)
        F[:, 0] = 1e3 * np.exp(20 * x[:, 0])
        dF = np.zeros(x.shape + (3,))
        dF[:, 0, 0] = 2e4 * np.exp(20 * x[:, 0])
        return F, dF, np.zeros_like(dF)
    m = Model()
    m.structural_node(7, "dynamic")
    m.body(7, 7, 1.0, inertia=np.eye(3))
    m.user_force(1, 7, runaway)
    prefix = str(tmp_path / "run")
    p = initial_value_problem(m, final_time=1.0, time_step=1e-2, min_time_step=1e-3, output_prefix=prefix)
    with pytest.raises(SimulationFailed) as err:
        p.run()
    msg = str(err.value)
    assert "step" in msg and "time" in msg and "structural node 7" in msg
    out = open(prefix + ".out").read()
    steps = [l for l in out.splitlines() if l.startswith("Step")]
    mov = open(prefix + ".mov").read().splitlines()
    assert len(steps) >= 2 and len(mov) == len(steps)
    assert "retrying with time step" in out


def test_output_files_are_mbdyn_compatible(tmp_path):
    """.out/.mov/.jnt rows: label then numbers; Euler 1-2-3 angles in degrees; dummy node."""
    m = Model()
    R0 = rot.euler123_to_R(np.radians([10.0, 20.0, 30.0]))
    m.structural_node(3, "dynamic", position=[1, 2, 3], orientation=R0, angular_velocity=[0, 0, 1])
    m.body(1, 3, 1.0, inertia=np.eye(3))
    m.dummy_node(9, 3, offset=[1.0, 0, 0], orientation=np.eye(3))
    m.spherical_pin(5, 3)
    prefix = str(tmp_path / "o")
    initial_value_problem(m, final_time=0.01, time_step=1e-3, output_prefix=prefix).run()
    out = [l.split() for l in open(prefix + ".out") if l.startswith("Step")]
    assert len(out) == 11 and all(len(l) == 9 for l in out)
    assert float(out[5][2]) == pytest.approx(0.005)
    mov = np.loadtxt(prefix + ".mov")
    assert mov.shape == (22, 13)
    first = mov[mov[:, 0] == 3][0]
    assert np.allclose(first[1:4], [1, 2, 3]) and np.allclose(first[4:7], [10, 20, 30], atol=1e-4)
    dummy = mov[mov[:, 0] == 9][0]
    assert np.allclose(dummy[1:4], np.array([1, 2, 3]) + R0 @ [1.0, 0, 0], atol=1e-5)
    jnt = [l.split() for l in open(prefix + ".jnt")]
    assert all(len(l) == 16 for l in jnt) and jnt[0][0] == "5"
