"""MBDM's 2-D slider-crank (seed 000, examples E2 and E3; spec/seed-systems-digest.md §1.4),
modelled in 3-D with mbdae's Python API.

Bodies (MBDM Table 24): crank 200 kg (J 450), rod 35 kg (J 35, 3.5 m, CoG at mid-length),
slider 25 kg (J 0.02); crank length 2 m.  Joints: crank revolute to the ground at the
origin (axis z), crank-rod revolute hinge, rod end on a line through the slider along z
(`in line`, MBDM's cylindrical joint), slider kept on the x axis with its orientation
locked (`total pin joint`).

* kinematic (E2): the crank turns at 2π rad/s from π/4, imposed by a drive hinge from a
  clamped ground node; the rod and slider start from MBDM's rounded estimates and the
  initial assembly corrects them.
* dynamic (E3): crank at π with 30 rad/s, gravity +9.81 along +x, crank torque 41 450 N·m,
  and the gas force on the slider while it moves outward (ẋ3 > 0), code sign (erratum 8).

Run: python cases/mbdm_slider_crank.py [kinematic|dynamic] [--out PREFIX]
"""
import argparse
import sys
import numpy as np

from mbdae import initial_value_problem
from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core.drives import LinearDrive, ConstDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.rotations import euler123_to_R
from mbdm.gas_force import gas_force        # cases/mbdm/gas_force.py: MBDM eq. (94), the code's sign

CRANK, ROD, SLIDER, GROUND = 1, 2, 3, 4


def Rz(a):
    return euler123_to_R([0.0, 0.0, a])


def _mechanism(m, crank_angle, rod_pos, rod_angle, slider_x, crank_w=0.0, rod_v=None, rod_w=0.0,
               slider_v=0.0):
    m.structural_node(CRANK, "dynamic", orientation=Rz(crank_angle), angular_velocity=[0, 0, crank_w])
    m.structural_node(ROD, "dynamic", position=rod_pos, orientation=Rz(rod_angle),
                      velocity=rod_v, angular_velocity=[0, 0, rod_w])
    m.structural_node(SLIDER, "dynamic", position=[slider_x, 0, 0], velocity=[slider_v, 0, 0])
    m.body(CRANK, CRANK, 200.0, inertia=np.diag([450.0] * 3))
    m.body(ROD, ROD, 35.0, inertia=np.diag([35.0] * 3))
    m.body(SLIDER, SLIDER, 25.0, inertia=np.diag([0.02] * 3))
    m.revolute_hinge(2, CRANK, ROD, offset1=[2.0, 0, 0], offset2=[-1.75, 0, 0])
    m.in_line(3, ROD, [1.75, 0, 0], np.eye(3), SLIDER)
    m.total_pin_joint(4, SLIDER, absolute_position=[0, 0, 0],
                      position_status=("inactive", "active", "active"), position_drive=None,
                      orientation_status=("active", "active", "active"), orientation_drive=None)


def dynamic_model():
    """MBDM E3: free crank, torque, gravity along +x, gas force."""
    m = Model()
    _mechanism(m, np.pi, [-0.25, 0, 0], 0.0, 1.5, crank_w=30.0, rod_v=[0, -30.0, 0], rod_w=60.0 / 3.5)
    m.revolute_pin(1, CRANK, absolute_position=[0, 0, 0], absolute_orientation=np.eye(3))
    m.gravity([9.81, 0, 0])
    m.couple(10, CRANK, [0, 0, 41450.0])
    m.user_force(11, SLIDER, gas_force)
    return m


def kinematic_model():
    """MBDM E2: crank driven at 2π rad/s by a drive hinge from a clamped ground node."""
    m = Model()
    _mechanism(m, np.pi / 4, [3.0152, 0.7066, 0], -0.4158, 4.6162)
    m.structural_node(GROUND, "static")
    m.clamp(5, GROUND)
    m.spherical_pin(1, CRANK, absolute_position=[0, 0, 0])
    m.drive_hinge(6, GROUND, CRANK, VectorDrive.single([0, 0, 1], LinearDrive(0.0, 2 * np.pi)),
                  orientation2=Rz(np.pi / 4).T)
    return m


def slider_closed_form(t):
    """x3, ẋ3, ẍ3 of the kinematic case: x3 = 2 cos φ + sqrt(3.5² - 4 sin² φ), φ = π/4 + 2πt."""
    phi = np.pi / 4 + 2 * np.pi * t
    w = 2 * np.pi
    s, c = np.sin(phi), np.cos(phi)
    q = np.sqrt(3.5 ** 2 - 4 * s * s)
    x = 2 * c + q
    xd = w * (-2 * s - 4 * s * c / q)
    dq = -4 * s * c / q
    ddq = -4 * (c * c - s * s) / q - 4 * s * c * (4 * s * c) / q ** 3
    xdd = w * w * (-2 * c + ddq)
    return x, xd, xdd


def run(case="dynamic", time_step=None, prefix=None, **kw):
    model = dynamic_model() if case == "dynamic" else kinematic_model()
    h = time_step or (2.5e-4 if case == "dynamic" else 1e-3)
    prob = initial_value_problem(model, final_time=1.0, time_step=h, method="ms", rho=0.6,
                               tolerance=1e-6, test="relnorm", output_prefix=prefix, **kw)
    return prob.run()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", nargs="?", default="dynamic", choices=["dynamic", "kinematic"])
    ap.add_argument("--out", default=None, help="output prefix for .out/.mov/.jnt/.log")
    ap.add_argument("--time-step", type=float, default=None)
    a = ap.parse_args(argv)
    r = run(a.case, a.time_step, a.out)
    i = r.index(SLIDER)
    print(f"{a.case} slider-crank: {r.stats['steps']} steps, {r.stats['newton_iterations']} Newton iterations, "
          f"{r.stats['wall_time']:.2f} s")
    print("   t       x3        x3dot     crank omega")
    for tq in np.arange(0.1, 1.0001, 0.1):
        k = int(np.argmin(np.abs(r.t - tq)))
        print(f"{r.t[k]:5.2f} {r.x[k, i, 0]:9.4f} {r.v[k, i, 0]:10.3f} {r.w[k, r.index(CRANK), 2]:10.4f}")
    if a.out:
        print(f"MBDyn-style output written to {a.out}.out/.mov/.jnt/.log")
    return 0


if __name__ == "__main__":
    sys.exit(main())
