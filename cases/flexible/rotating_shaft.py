"""Rotating shaft with an unbalanced disk (flexible multibody benchmark of Bauchau et al.,
Multibody Syst Dyn 37:29-48, 2016; MBDyn's benchmarks/rotatingshaft).

MBDyn's main deck includes four files its Octave script writes (rotatingshaft_m.set, .ref,
.nod, .elm); `write_includes` writes our own versions from the model's data:

* a hollow steel shaft, L = 6 m, r_o = 50 mm, r_i = 45 mm (ρ = 7800 kg/m³: m = 11.64 kg/m),
  EA = 313.4e6 N, GA = 60.5e6 N, GJ = 272.7e3 N m², EJ = 354.5e3 N m², 16 beam3 elements
  along x; node masses m l (l = L/32; half at the ends, centre moved l/4 inwards), inertias
  l·2J_xx about the axis and m l³/12 + l J_xx about the transverse axes;
* a disk at mid-span (70.573 kg, radius 0.24 m, thickness 0.05 m) whose centre of mass sits
  D = 0.05 m off the axis (along the node's axis 3): the unbalance;
* the shaft end R is held in position and in the two bending rotations, its spin imposed
  through an angular-velocity constraint: ω(t) = A1 Ω (1 - cos(πt/T1))/2 up to T1 = 0.5 s,
  held at A1 Ω = 48 rad/s, then raised by (A2 - A1) Ω (1 - cos(π(t - T2)/(T3 - T2)))/2 to
  A2 Ω = 72 rad/s between T2 = 1 s and T3 = 1.25 s; the end T is held sideways and in the
  bending rotations, free along the axis; gravity along -z.

MBDyn's main deck lets the shaft settle under gravity from t = -10 s with a viscous rod that a
`driven` element switches off at t = -2.5 s; mbdae has no `driven` elements, so `model`
writes a deck of its own with the same parts from t = 0 and `problem` starts it from the
static equilibrium under gravity (engine/static.py), where MBDyn's damped settling ends.

First bending frequency (clamped-clamped beam with the disk at mid-span, Rayleigh): k =
192 EJ/L³ (+ shear), m_eff = m_disk + 0.371 m L: ω_1 ≈ 57 rad/s, between the two spin
speeds: the first hold is subcritical (the disk whirls with its heavy side outwards, in phase
with the unbalance), the second supercritical (heavy side inwards, phase opposite: the
Jeffcott rotor's phase flip).

Run: python cases/flexible/rotating_shaft.py [--final-time T] [--out PREFIX]
"""
import argparse
import os
import sys
import tempfile

import numpy as np

N_BEAMS = 16
L = 6.0
RHO, R_IN, R_OUT = 7800.0, 0.045, 0.05
EA, GA, GJ, EJ = 313.4e6, 60.5e6, 272.7e3, 354.5e3
DISK_MASS, DISK_RADIUS, DISK_THICKNESS, UNBALANCE = 70.573, 0.24, 0.05, 0.05
A1, A2, T0, T1, T2, T3, OMEGA = 0.8, 1.2, 0.0, 0.5, 1.0, 1.25, 60.0
MASS_PER_LENGTH = np.pi * RHO * (R_OUT ** 2 - R_IN ** 2)
JXX = np.pi / 4 * RHO * (R_OUT ** 4 - R_IN ** 4)      # per unit length, about a diameter
MID = N_BEAMS                                          # label of the disk's node


def _num(x):
    return f"{x:+.12e}"


def _write(folder, name, lines):
    with open(os.path.join(folder, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_includes(folder, damping=0.0):
    """rotatingshaft_m.set, .ref, .nod, .elm in `folder`."""
    _write(folder, "rotatingshaft_m.set", [
        "# written by mbdae cases/flexible/rotating_shaft.py",
        f"set: const integer N_BEAMS = {N_BEAMS};", f"set: const integer N_NODES = {2 * N_BEAMS + 1};",
        "set: const integer SHAFT_R = 0;", "set: const integer SHAFT_T = 2*N_BEAMS;",
        f"set: const real L = {_num(L)};", f"set: const real EA = {_num(EA)};", f"set: const real GA = {_num(GA)};",
        f"set: const real GJ = {_num(GJ)};", f"set: const real EJ = {_num(EJ)};",
        f"set: real DAMPING_FACTOR = {_num(damping)};"]
        + [f"set: const real {k} = {_num(v)};" for k, v in
           (("A1", A1), ("A2", A2), ("T0", T0), ("T1", T1), ("T2", T2), ("T3", T3), ("OMEGA", OMEGA))])
    ref = []
    for name, x in (("SHAFT_R", "null"), ("SHAFT_T", "L, 0., 0.")):
        ref += [f"reference: {name},", f"    reference, global, {x},", "    reference, global, eye,",
                "    reference, global, null,", "    reference, global, null;"]
    ref += ["constitutive law: 6, 6, linear viscoelastic generic,",
            "    diag, EA, GA, GA, GJ, EJ, EJ, proportional, DAMPING_FACTOR;"]
    _write(folder, "rotatingshaft_m.ref", ref)
    nod = []
    for i in range(2 * N_BEAMS + 1):
        nod += [f"structural: {i}, dynamic,", f"    reference, SHAFT_R, {i}*L/(2*N_BEAMS), 0., 0.,",
                "    reference, SHAFT_R, eye,", "    reference, SHAFT_R, null,", "    reference, SHAFT_R, null;"]
    _write(folder, "rotatingshaft_m.nod", nod)
    elm = []
    j_axis = DISK_MASS * DISK_RADIUS ** 2 / 2
    j_diam = DISK_MASS * (DISK_RADIUS ** 2 / 4 + DISK_THICKNESS ** 2 / 12)
    for i in range(2 * N_BEAMS + 1):
        dl = L / (2 * N_BEAMS)
        dx = 0.0
        if i in (0, 2 * N_BEAMS):
            dl /= 2
            dx = dl / 4 if i == 0 else -dl / 4
        dm = dl * MASS_PER_LENGTH
        shaft = [f"    {_num(dm)},", f"    reference, node, {_num(dx)}, 0., 0.,",
                 f"    diag, {_num(dl * 2 * JXX)}, {_num(dm * dl ** 2 / 12 + dl * JXX)}, {_num(dm * dl ** 2 / 12 + dl * JXX)}"]
        if i == MID:
            elm += [f"body: {i}, {i}, condense, 2,"] + [s for s in shaft] 
            elm[-1] += ","
            elm += [f"    {_num(DISK_MASS)},", f"    reference, node, 0., 0., {_num(UNBALANCE)},",
                    f"    diag, {_num(j_axis)}, {_num(j_diam)}, {_num(j_diam)};"]
        else:
            elm += [f"body: {i}, {i},"] + shaft
            elm[-1] += ";"
    for b in range(1, N_BEAMS + 1):
        elm += [f"beam3: {b},"]
        for j in range(3):
            elm += [f"    {2 * b + j - 2}, position, reference, node, null, orientation, reference, node, eye,"]
        elm += ["    from nodes, reference, 6, same, same;"]
    _write(folder, "rotatingshaft_m.elm", elm)


MAIN = """# written by mbdae cases/flexible/rotating_shaft.py: the rotating shaft from t = T0
begin: data; problem: initial value; end: data;
include: "rotatingshaft_m.set";
begin: initial value;
    initial time: T0; final time: {final}; time step: {step};
    method: ms, .6; tolerance: 1e-4; max iterations: 50;
end: initial value;
begin: control data;
    structural nodes: 1 + N_NODES; rigid bodies: N_NODES; beams: N_BEAMS; joints: 3; gravity;
end: control data;
include: "rotatingshaft_m.ref";
begin: nodes;
    structural: 999, static, reference, SHAFT_R, null, reference, SHAFT_R, eye, null, null;
    include: "rotatingshaft_m.nod";
end: nodes;
begin: elements;
    joint: 999, clamp, 999, node, node;
    # end R: position and bending rotations held, spin imposed (angular velocity about x)
    joint: 1000, total joint,
        999, position, reference, SHAFT_R, null,
            position orientation, reference, SHAFT_R, eye, rotation orientation, reference, SHAFT_R, eye,
        SHAFT_R, position, reference, SHAFT_R, null,
            position orientation, reference, SHAFT_R, eye, rotation orientation, reference, SHAFT_R, eye,
        position constraint, 1, 1, 1, null,
        orientation constraint, angular velocity, 1, 1, 1., 0., 0.,
            array, 2, cosine, T0, pi/T1, A1*OMEGA/2, half, 0., cosine, T2, pi/(T3 - T2), (A2 - A1)*OMEGA/2, half, 0.;
    # end T: held sideways and in bending, free along the axis and in spin
    joint: 1001, total joint,
        999, position, reference, SHAFT_T, null,
            position orientation, reference, SHAFT_T, eye, rotation orientation, reference, SHAFT_T, eye,
        SHAFT_T, position, reference, SHAFT_T, null,
            position orientation, reference, SHAFT_T, eye, rotation orientation, reference, SHAFT_T, eye,
        position constraint, 0, 1, 1, null,
        orientation constraint, 0, 1, 1, null;
    include: "rotatingshaft_m.elm";
    gravity: 0., 0., -1., const, 9.81;
end: elements;
"""


def model(folder, final_time=2 * T3, time_step=1e-3):
    """Write the includes and our main deck into `folder`; returns the Deck."""
    from mbdae.engine.io.mbdyn.deck import read_deck
    write_includes(folder)
    path = os.path.join(folder, "rotatingshaft.mbd")
    with open(path, "w") as f:
        f.write(MAIN.format(final=final_time, step=time_step))
    return read_deck(path, echo=lambda *a, **k: None)


def settle(deck, steps=4):
    """Static equilibrium under gravity (no spin at t = T0; engine/static.py); returns it."""
    from mbdae.engine.drivers.static import solve_static
    return solve_static(deck.model, steps=steps, ramp=True, tolerance=1e-5, initial_time=T0 - 1.0, final_time=T0)


def problem(deck, static, output_prefix=None):
    """The deck's InitialValueProblem started from the static state (node positions and
    orientations; the beams keep the straight shaft as their unstrained configuration)."""
    prob = deck.problem(output_prefix)
    sysm = prob.system
    plain = sysm.initial_state

    def initial_state(t0):
        st = plain(t0)
        st.y[sysm.nodes.ix] = static.x[-1]
        st.R_ref = static.R[-1].copy()
        return st
    sysm.initial_state = initial_state
    return prob


def static_sag():
    """Mid-span deflection of the clamped-clamped shaft under its weight and the disk's:
    q L⁴/(384 EJ) + P L³/(192 EJ) + shear (q L²/(8 GA) + P L/(4 GA))."""
    q = 9.81 * MASS_PER_LENGTH
    P = 9.81 * DISK_MASS
    return q * L ** 4 / (384 * EJ) + P * L ** 3 / (192 * EJ) + q * L ** 2 / (8 * GA) + P * L / (4 * GA)


def whirl(results):
    """(t, spin angle of the disk node, lateral displacement of the disk node (y, z) relative to
    the static sag, its component along the unbalance direction (node axis 3))."""
    k = results.index(MID)
    x = results.x[:, k]
    R = results.R[:, k]
    disp = x[:, 1:3] - x[0, 1:3]
    e3 = R[:, 1:3, 2]                          # unbalance direction projected on the y-z plane
    spin = np.unwrap(np.arctan2(R[:, 2, 1], R[:, 1, 1]))
    return results.t, spin, disp, np.einsum('ni,ni->n', disp, e3)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--final-time", type=float, default=2 * T3)
    ap.add_argument("--step", type=float, default=1e-3)
    ap.add_argument("--out", default=None, help="output prefix (MBDyn-style files)")
    a = ap.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="rotatingshaft-")
    deck = model(folder, a.final_time, a.step)
    r = problem(deck, settle(deck), a.out).run()
    t, spin, disp, along = whirl(r)
    print(f"static mid-span sag: analytic {1e3 * static_sag():.3f} mm")
    print("     t (s)   spin rate (rad/s)   whirl radius (mm)   along the unbalance (mm)")
    rate = np.gradient(spin, t)
    for k in range(0, len(t), max(1, len(t) // 50)):
        print(f"{t[k]:10.3f} {rate[k]:14.2f} {1e3 * np.linalg.norm(disp[k]):18.3f} {1e3 * along[k]:20.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
