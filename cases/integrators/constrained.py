"""Constrained (index-3) benchmarks for the observed-order study of issue 13: each returns an
engine.compare.ComparisonCase whose observation and reference have three components,
positions, velocities and multipliers (joint reactions), at the final time.

* pendulum(): a dynamic structural node with a body, on a revolute pin, released from
  horizontal; t = 1.6 s.  Reference: the 1-DOF equation (J + mL²)θ̈ = -mgL cos θ solved by
  DOP853 at rtol 1e-13; the pin's force on the body is m a - m g.
* slider_crank(): crank on a revolute pin, connecting rod on a revolute hinge, slider on the
  x axis (an in-line joint at the rod's end), gravity; t = 1 s.  Reference: the reduced
  equation M(θ)θ̈ + C(θ)θ̇² = Q(θ) in the crank angle (DOP853, rtol 1e-13) and the hinge
  forces from Newton-Euler on the rod and the slider.
* andrews(): Andrews' squeezing mechanism (cases/andrews_squeezer.py) to t = 0.03 s against
  the IVP test set's published solution (PSIDE, tolerances 1e-14): the 7 coordinates, their
  rates and the 6 multipliers, which are the forces at the three closure hinges at E.

    mbdae compare cases/integrators/constrained.py:pendulum --orders --steps 0.01 0.005 0.0025 0.00125
"""
import os
import sys

import numpy as np
from scipy.integrate import solve_ivp

from mbdae.engine.compare import ComparisonCase
from mbdae.engine.model import Model
from mbdae.engine.core.rotations import euler123_to_R
from mbdae.engine.core.constitutive import LinearElastic1D  # noqa: F401  (re-exported for case modules)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import andrews_squeezer as aq  # noqa: E402

G = 9.81
TIGHT = dict(tolerance=1e-11, test="norm", max_iterations=30)


def planar_z(R):
    return np.arctan2(R[..., 1, 0], R[..., 0, 0])


# ------------------------------------------------------------------ pendulum
PEND_L, PEND_M, PEND_J, PEND_T = 1.0, 1.0, 0.01, 1.6


def pendulum_model():
    m = Model()
    m.structural_node(1, "dynamic", position=[PEND_L, 0, 0])
    m.body(1, 1, PEND_M, inertia=np.eye(3) * PEND_J)
    m.revolute_pin(2, 1, offset=[-PEND_L, 0, 0])
    m.gravity([0, -G, 0])
    return m


def pendulum_reference(T=PEND_T):
    I = PEND_J + PEND_M * PEND_L ** 2
    sol = solve_ivp(lambda t, u: [u[1], -PEND_M * G * PEND_L * np.cos(u[0]) / I], (0, T), [0.0, 0.0],
                    method="DOP853", rtol=1e-13, atol=1e-14)
    th, om = sol.y[:, -1]
    al = -PEND_M * G * PEND_L * np.cos(th) / I
    e, t = np.array([np.cos(th), np.sin(th)]), np.array([-np.sin(th), np.cos(th)])
    acc = PEND_L * (al * t - om ** 2 * e)
    return {"positions": PEND_L * e, "velocities": PEND_L * om * t,
            "multipliers": PEND_M * acc - PEND_M * np.array([0.0, -G])}


def pendulum_observe(r):
    return {"positions": r.x[-1, 0, :2], "velocities": r.v[-1, 0, :2], "multipliers": r.joint(2)[0][-1, :2]}


def pendulum(T=PEND_T):
    return ComparisonCase("pendulum", pendulum_model, T, pendulum_observe, reference=pendulum_reference(T),
                          settings=dict(TIGHT))


# ------------------------------------------------------------------ slider-crank
SC_R, SC_L = 0.4, 1.0                      # crank and rod lengths
SC_M = (1.0, 2.0, 1.5)                     # crank, rod, slider masses
SC_J = (SC_M[0] * SC_R ** 2 / 12, SC_M[1] * SC_L ** 2 / 12, 0.01)
SC_THETA0, SC_OMEGA0, SC_T = np.pi / 3, 3.0, 1.0


def slider_crank_geometry(th):
    """Centres of mass (crank, rod, slider), rod angle, crank tip A and rod end B; works for
    complex θ (complex-step derivatives)."""
    A = SC_R * np.array([np.cos(th), np.sin(th)])
    phi = np.arcsin(-SC_R * np.sin(th) / SC_L)
    B = A + SC_L * np.array([np.cos(phi), np.sin(phi)])
    return np.array([A / 2, (A + B) / 2, B]), phi, A, B


def _d_dtheta(th):
    """First derivatives (complex step) of the centres of mass (3, 2) and of the rod angle."""
    eps = 1e-30
    c, phi, _, _ = slider_crank_geometry(th + 1j * eps)
    return np.imag(c) / eps, np.imag(phi) / eps


def _d2_dtheta2(th, d=1e-5):
    (cp, pp), (cm, pm) = _d_dtheta(th + d), _d_dtheta(th - d)
    return (cp - cm) / (2 * d), (pp - pm) / (2 * d)


def slider_crank_accel(th, om):
    Jc, Jp = _d_dtheta(th)
    Hc, Hp = _d2_dtheta2(th)
    m = np.array(SC_M)[:, None]
    M = np.sum(m * Jc * Jc) + SC_J[0] + SC_J[1] * Jp ** 2
    C = np.sum(m * Jc * Hc) + SC_J[1] * Jp * Hp
    Q = np.sum(m[:, 0] * Jc[:, 1] * (-G))
    return (Q - C * om ** 2) / M


def slider_crank_model():
    c, phi, _, _ = slider_crank_geometry(SC_THETA0)
    Jc, Jp = _d_dtheta(SC_THETA0)
    m = Model()
    angles = (SC_THETA0, phi, 0.0)
    rates = (SC_OMEGA0, Jp * SC_OMEGA0, 0.0)
    for k in range(3):
        m.structural_node(k + 1, "dynamic", position=[*c[k], 0.0], orientation=euler123_to_R([0, 0, angles[k]]),
                          velocity=[*(Jc[k] * SC_OMEGA0), 0.0], angular_velocity=[0, 0, rates[k]])
        m.body(k + 1, k + 1, SC_M[k], inertia=np.eye(3) * SC_J[k])
    m.revolute_pin(1, 1, offset=[-SC_R / 2, 0, 0], absolute_position=[0, 0, 0], absolute_orientation=np.eye(3))
    m.revolute_hinge(2, 1, 2, offset1=[SC_R / 2, 0, 0], offset2=[-SC_L / 2, 0, 0])
    m.in_line(3, 2, [SC_L / 2, 0, 0], np.eye(3), 3)
    m.total_pin_joint(4, 3, position_status=("inactive", "active", "active"),
                      orientation_status=("active", "active", "active"))
    m.gravity([0, -G, 0])
    return m


def slider_crank_reference(T=SC_T):
    sol = solve_ivp(lambda t, u: [u[1], slider_crank_accel(u[0], u[1])], (0, T), [SC_THETA0, SC_OMEGA0],
                    method="DOP853", rtol=1e-13, atol=1e-13)
    th, om = sol.y[:, -1]
    al = slider_crank_accel(th, om)
    c, phi, A, B = slider_crank_geometry(th)
    Jc, Jp = _d_dtheta(th)
    Hc, Hp = _d2_dtheta2(th)
    v = Jc * om
    a = Jc * al + Hc * om ** 2
    phi_dd = Jp * al + Hp * om ** 2
    m1, m2, m3 = SC_M
    g = np.array([0.0, -G])
    F_Bx = -m3 * a[2, 0]                                   # slider along x: only the rod pushes it
    F_Ax = m2 * a[1, 0] - F_Bx
    d = A - c[1]                                           # rod CoM -> A;  B - c2 = -d
    S = m2 * a[1, 1] - m2 * g[1]                           # F_Ay + F_By
    D = (SC_J[1] * phi_dd + d[1] * (F_Ax - F_Bx)) / d[0]    # F_Ay - F_By (moment about the rod's CoM)
    F_A = np.array([F_Ax, (S + D) / 2])                    # the crank's force on the rod
    F_pin = m1 * a[0] + F_A - m1 * g                       # the pin's force on the crank
    return {"positions": c.ravel(), "velocities": v.ravel(), "multipliers": np.concatenate([F_pin, F_A])}


def slider_crank_observe(r):
    return {"positions": r.x[-1, :3, :2].ravel(), "velocities": r.v[-1, :3, :2].ravel(),
            "multipliers": np.concatenate([r.joint(1)[0][-1, :2], r.joint(2)[0][-1, :2]])}


def slider_crank(T=SC_T):
    return ComparisonCase("slider-crank", slider_crank_model, T, slider_crank_observe,
                          reference=slider_crank_reference(T), settings=dict(TIGHT, tolerance=1e-9))


# ------------------------------------------------------------------ Andrews' squeezer
ANDREWS_REF_003 = {   # IVP test set `andrews` SOLN at t = 0.03 (PSIDE, rtol = atol = 1e-14)
    "positions": aq.Q_REF_003,
    "velocities": np.array([0.1139920302151208e4, -0.1424379294994111e4, 0.1103291221937134e2,
                            0.1929337464421385e2, 0.5735699284790808, -0.1929337464421385e2,
                            0.3231791658026955]),
    "multipliers": np.array([0.1991753333731910e3, -0.2975531228015052e2, 0.2306654119098399e2,
                             0.3145271365475927e2, 0.2264249232082739e2, 0.1161740700019673e2]),
}
ANDREWS_CLOSURES = (22, 23, 24)     # hinges at E between body 2 and bodies 3, 4, 6 (test-set λ pairs)
ANDREWS_SIGN = 1.0                  # the test set's λ pair = the force each hinge applies to body 3, 4, 6


def andrews_observe(r):
    angles = aq.unwrapped_angles(r)[-1]
    rates = r.w[-1, :7, 2]
    forces = [r.joint(label)[0][-1, :2] for label in ANDREWS_CLOSURES]
    return {"positions": aq.coordinates(angles), "velocities": aq.coordinates(rates),
            "multipliers": ANDREWS_SIGN * np.concatenate(forces)}


def andrews():
    return ComparisonCase("andrews", aq.squeezer_model, 0.03, andrews_observe, reference=ANDREWS_REF_003,
                          settings=dict(tolerance=1e-10, test="relnorm", max_iterations=30))


CASES = {"pendulum": pendulum, "slider-crank": slider_crank, "slider_crank": slider_crank, "andrews": andrews}


def case():
    """Default case of `mbdae compare cases/integrators/constrained.py`: the pendulum."""
    return pendulum()
