"""Andrews' squeezing mechanism (IFToMM benchmark A03; Hairer & Wanner II, §VII.7; the IVP
test set's `andrews` problem) built with mbdae's Python API as a 3-D model of 7 planar
bodies, from the test set's exact consistent initial values.

Geometry and inertia data are the test set's.  Each body is a dynamic node at its centre
of mass, rotating about z; the bodies pinned to the ground (1, 3, 5, 7) use revolute pins,
the others are kept in the plane by a total pin joint (z, rotations about x and y), and
the six body-to-body hinges O-P, P, E (three), G, H are total joints on the in-plane
position components only, so the 3-D model has exactly the planar mechanism's single
degree of freedom.  The spring C-D is a rod with EA = c0 l0 and reference length l0; the
motor torque drives body 1.

Run: python cases/andrews_squeezer.py [--time-step H] [--method ms] [--rho 0.6]
"""
import argparse
import sys
import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core.rotations import euler123_to_R
from mbdae.engine.core.constitutive import LinearElastic1D

# IVP test set data
M = [0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498]
J = [2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5]
XA, YA, XB, YB, XC, YC = -0.06934, -0.00227, -0.03635, 0.03273, 0.014, 0.072
D, DA, E, EA = 28e-3, 115e-4, 2e-2, 1421e-5
RR, RA = 7e-3, 92e-5
SS, SA, SB, SC, SD = 35e-3, 1874e-5, 1043e-5, 18e-3, 2e-2
TA, TB = 2308e-5, 916e-5
U, UA, UB = 4e-2, 1228e-5, 449e-5
ZF, ZT, FA = 2e-2, 4e-2, 1421e-5
MOM, C0, L0 = 0.033, 4530.0, 0.07785

# exact consistent initial values q = (β, Θ, γ, Φ, δ, Ω, ε), q̇ = 0, and the reference at 0.03 s
Q0 = np.array([-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
               0.222668390165885884674473185609, 0.487364979543842550225598953530,
               -0.222668390165885884674473185609, 1.23054744454982119249735015568])
Q_REF_003 = np.array([15.81077119629904, -15.75637105984298, 0.04082224013073101,
                      -0.5347301163226948, 0.5244099658805304, 0.5347301163226948, 1.048080741042263])

GROUND = 8


def body_angles(q):
    """Absolute rotation angles of bodies 1..7 from the test set's coordinates."""
    b, th, g, ph, de, om, ep = q
    return np.array([b, b + th, g, ph + de, de, om + ep, ep])


def coordinates(angles):
    """Inverse of body_angles."""
    a1, a2, a3, a4, a5, a6, a7 = angles
    return np.array([a1, a2 - a1, a3, a4 - a5, a5, a6 - a7, a7])


def centres_of_mass(q):
    b, th, g, ph, de, om, ep = q
    c, s = np.cos, np.sin
    return np.array([
        [RA * c(b), RA * s(b)],
        [RR * c(b) - DA * c(b + th), RR * s(b) - DA * s(b + th)],
        [XB + SA * s(g) + SB * c(g), YB - SA * c(g) + SB * s(g)],
        [XA + ZT * c(de) + (E - EA) * s(ph + de), YA + ZT * s(de) - (E - EA) * c(ph + de)],
        [XA + TA * c(de) - TB * s(de), YA + TA * s(de) + TB * c(de)],
        [XA + U * s(ep) + (ZF - FA) * c(om + ep), YA - U * c(ep) + (ZF - FA) * s(om + ep)],
        [XA + UA * s(ep) - UB * c(ep), YA - UA * c(ep) - UB * s(ep)],
    ])


def Rz(a):
    return euler123_to_R([0.0, 0.0, a])


def p3(x, y):
    return [x, y, 0.0]


def squeezer_model(q0=Q0):
    m = Model()
    angles = body_angles(q0)
    cm = centres_of_mass(q0)
    for k in range(7):
        m.structural_node(k + 1, "dynamic", position=p3(*cm[k]), orientation=Rz(angles[k]))
        m.body(k + 1, k + 1, M[k], inertia=np.diag([J[k], J[k], J[k]]))
    m.structural_node(GROUND, "static", position=p3(XC, YC))
    m.clamp(100, GROUND)
    # attachment points in the body frames (relative to the centres of mass)
    O1, P1 = p3(-RA, 0), p3(RR - RA, 0)
    P2, E2 = p3(DA, 0), p3(DA - D, 0)
    B3, E3, D3 = p3(-SB, SA), p3(-SB, SA - SS), p3(SD - SB, SA - SC)
    E4, G4 = p3(0, -EA), p3(0, E - EA)
    A5, G5 = p3(-TA, -TB), p3(ZT - TA, -TB)
    H6, E6 = p3(-(ZF - FA), 0), p3(FA, 0)
    A7, H7 = p3(UB, UA), p3(UB, UA - U)
    # ground pins (revolute about z)
    m.revolute_pin(1, 1, offset=O1, absolute_position=p3(0, 0), absolute_orientation=np.eye(3))
    m.revolute_pin(3, 3, offset=B3, absolute_position=p3(XB, YB), absolute_orientation=np.eye(3))
    m.revolute_pin(5, 5, offset=A5, absolute_position=p3(XA, YA), absolute_orientation=np.eye(3))
    m.revolute_pin(7, 7, offset=A7, absolute_position=p3(XA, YA), absolute_orientation=np.eye(3))
    # bodies 2, 4, 6 kept in the plane
    for k in (2, 4, 6):
        m.total_pin_joint(10 + k, k, position_status=("inactive", "inactive", "active"),
                          orientation_status=("active", "active", "inactive"))
    # in-plane hinges between bodies
    planar = dict(position_status=("active", "active", "inactive"))
    m.total_joint(21, 1, 2, offset1=P1, offset2=P2, **planar)
    m.total_joint(22, 2, 3, offset1=E2, offset2=E3, **planar)
    m.total_joint(23, 2, 4, offset1=E2, offset2=E4, **planar)
    m.total_joint(24, 2, 6, offset1=E2, offset2=E6, **planar)
    m.total_joint(25, 4, 5, offset1=G4, offset2=G5, **planar)
    m.total_joint(26, 6, 7, offset1=H6, offset2=H7, **planar)
    # spring C-D and motor torque
    m.rod(30, GROUND, 3, LinearElastic1D(C0 * L0), length=L0, offset2=D3)
    m.couple(31, 1, [0, 0, MOM])
    return m


def unwrapped_angles(r):
    """Absolute body angles over the output steps, unwrapped."""
    a = np.arctan2(r.R[:, :7, 1, 0], r.R[:, :7, 0, 0])
    return np.unwrap(a, axis=0)


def run(time_step=1e-5, final_time=0.03, method="ms", rho=0.6, **kw):
    prob = InitialValueProblem(squeezer_model(), final_time=final_time, time_step=time_step, method=method,
                               rho=rho, tolerance=1e-10, test="relnorm", **kw)
    r = prob.run()
    return r, np.array([coordinates(a) for a in unwrapped_angles(r)])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-step", type=float, default=1e-5)
    ap.add_argument("--method", default="ms")
    ap.add_argument("--rho", type=float, default=0.6)
    a = ap.parse_args(argv)
    r, q = run(a.time_step, method=a.method, rho=a.rho)
    print(f"{r.stats['steps']} steps, {r.stats['newton_iterations']} Newton iterations, {r.stats['wall_time']:.2f} s")
    print("q(0.03)  =", np.array2string(q[-1], precision=8))
    print("reference", np.array2string(Q_REF_003, precision=8))
    print("max |error| =", np.max(np.abs(q[-1] - Q_REF_003)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
