"""A flexible pendulum: a steel strip of shells on a hub that turns in a revolute pin, released
from horizontal under gravity, against the same strip made of beam3 elements.

* hub: a dynamic structural node at the origin with a rigid body (2 kg, 0.01 kg m²), on a
  revolute pin to the ground whose axis is y (the pendulum swings in the x-z plane);
* strip: L = 1 m along x, w = 0.1 m along y, t = 5 mm, E = 210 GPa, ν = 0 (so that plate and
  beam bending stiffness agree: EI = E w t³/12 = 218.75 N m²), ρ = 7800 kg/m³ (3.9 kg/m);
  its root section is held rigidly to the hub (total joints, every component);
* shell model: nx × 2 `shell4easans` (default nx = 10), masses lumped on the nodes by
  `model.shell_masses` (tributary areas);
* beam model: nx/2 `beam3` on nodes at the same stations, EA = E w t, GA = E w t/2 · 5/6,
  GJ = G w t³/3, EI_y = E w t³/12 (out of the strip's plane), EI_z = E t w³/12, with the
  same station masses as the shell columns on bodies (rotary inertia of the section about x).

Both discretize the same Euler-Bernoulli strip (t/L = 1/200: transverse shear negligible);
the swing (hub angle) and the tip's flexible deflection agree to the discretization error
(tests/test_shell_case.py).  The first bending frequency of the clamped strip is
1.875² √(EI/(μL⁴))/2π = 4.2 Hz: the strip lags behind the hub visibly while it swings.

Run: python cases/flexible/shell_pendulum.py [--final-time T] [--nx N] [--vtu PREFIX]"""
import argparse

import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.core import constitutive as cl
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.io.vtu import VTUWriter
from mbdae.elements.shell import isotropic_shell_law
from mbdae.elements.shell_meshes import rectangle_mesh

L, W, T, E, RHO, G_ACC = 1.0, 0.1, 0.005, 210e9, 7800.0, 9.81
HUB_MASS, HUB_INERTIA = 2.0, 0.01
HUB, TIP = 1, None
AXIS_Y = np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]])   # its axis 3 is the global y axis


def _hub(m):
    m.structural_node(HUB, "dynamic")
    m.body(2, HUB, HUB_MASS, inertia=[HUB_INERTIA] * 3)
    m.revolute_pin(3, HUB, orientation=AXIS_Y)
    m.gravity((0.0, 0.0, -G_ACC))


def _hold(m, label, node, x):
    """The strip's root node held to the hub at offset x (every component)."""
    m.total_joint(label, HUB, node, offset1=x, position_status=("active",) * 3, orientation_status=("active",) * 3)


def shell_model(nx=10, kind="shell4easans"):
    """The shell strip; returns (model, tip node label)."""
    m = Model()
    _hub(m)
    X, quads, lat = rectangle_mesh(L, W, nx, 2)
    X[:, 1] -= W / 2
    for k, x in enumerate(X):
        m.structural_node(100 + k, "dynamic", position=x)
    D = isotropic_shell_law(E=E, nu=0.0, thickness=T)
    for e, q in enumerate(quads):
        m.shell(1000 + e, [100 + int(p) for p in q], D, kind=kind)
    m.shell_masses(2000, RHO, T)
    for j, k in enumerate(np.flatnonzero(lat[:, 0] == 0)):
        _hold(m, 10 + j, 100 + int(k), X[k])
    tip = 100 + int(np.flatnonzero((lat[:, 0] == nx) & (lat[:, 1] == 1))[0])
    return m, tip


def station_masses(nx):
    """Mass of each station (node column) of the strip: ρ w t Δx, half at the ends."""
    m = np.full(nx + 1, RHO * W * T * L / nx)
    m[[0, -1]] /= 2
    return m


def beam_model(nx=10):
    """The beam3 strip with the shell columns' masses; returns (model, tip node label)."""
    if nx % 2:
        raise ValueError("beam model: nx must be even (beam3 elements span two stations)")
    m = Model()
    _hub(m)
    x = np.linspace(0.0, L, nx + 1)
    for i, xi in enumerate(x):
        m.structural_node(100 + i, "dynamic", position=(xi, 0.0, 0.0))
    G = E / 2
    law = cl.beam_section(E * W * T, 5 / 6 * G * W * T, 5 / 6 * G * W * T, G * W * T ** 3 / 3,
                          E * W * T ** 3 / 12, E * T * W ** 3 / 12)
    for e in range(nx // 2):
        m.beam3(1000 + e, 100 + 2 * e, 101 + 2 * e, 102 + 2 * e, law)
    for i, mi in enumerate(station_masses(nx)):
        m.body(2000 + i, 100 + i, mi, inertia=[mi * W ** 2 / 12, mi * T ** 2 / 12, mi * W ** 2 / 12])
    _hold(m, 10, 100, (0.0, 0.0, 0.0))
    return m, 100 + nx


def run(model, final_time=1.0, h=1e-3, observers=()):
    """Runs `model` (ms, ρ∞ = 0.6); Results with every step."""
    problem = InitialValueProblem(model, time_step=h, final_time=final_time, method="ms", rho=0.6,
                                  tolerance=1e-5, max_iterations=20, observers=observers)
    return problem.run()


def swing(res, tip):
    """(t, hub angle about y, tip deflection normal to the hub's x axis) of a run."""
    _, R, _, _ = res.node(HUB)
    x_tip, _, _, _ = res.node(tip)
    angle = np.arctan2(-R[:, 2, 0], R[:, 0, 0])           # the hub's x axis turned about y
    normal = R[:, :, 2]
    deflection = np.einsum("ti,ti->t", x_tip, normal)       # tip off the hub's x axis
    return res.t, angle, deflection


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--final-time", type=float, default=1.0)
    ap.add_argument("--nx", type=int, default=10)
    ap.add_argument("--vtu", help="VTU series of the shell run (needs meshio)")
    args = ap.parse_args()
    observers = []
    if args.vtu:
        observers.append(VTUWriter(args.vtu, "deformed"))
    shell, tip_s = shell_model(args.nx)
    beam, tip_b = beam_model(args.nx)
    ts, a_s, d_s = swing(run(shell, args.final_time, observers=observers), tip_s)
    tb, a_b, d_b = swing(run(beam, args.final_time), tip_b)
    print(" t [s]   hub angle shell / beam [deg]   tip deflection shell / beam [mm]")
    for k in range(0, len(ts), max(1, len(ts) // 10)):
        print(f"{ts[k]:6.3f}   {np.degrees(a_s[k]):9.3f} {np.degrees(a_b[k]):9.3f}"
              f"          {1e3 * d_s[k]:8.3f} {1e3 * d_b[k]:8.3f}")


if __name__ == "__main__":
    main()
