"""MBS4WEC's T1 (three hinged barges) and T2 (buoy with a sliding reaction mass) as mbdae DAE
models (issue 19), from the same data as the joint-coordinate solver (wec_cases.T1, T2):

* a dynamic structural node at each body's CM with its `body` and `gravity`;
* T1: `revolute hinge` joints at the hinge points, axis 3 of the hinge frame along global y;
  each hinge's PTO a `deformable hinge` with a linear viscous law c (MBS4WEC's τ = −c θ̇ on the
  joint rate) declared `power_take_off`;
* T2: the reaction mass on an `in line` joint (the buoy's axis) and a `prismatic` joint; the
  preloaded spring (keel to the mass's underside) and the PTO damper (top anchor to the mass's
  top) as two `rod`s with moment arms (MBS4WEC eqs. 13–16): an elastic law EA = k l0 with the
  free length l0, a viscous law η = b L; the damper rod is the `power_take_off`;
* `mooring_matrix` on the root (MBS4WEC eq. 11);
* `hydro_bodies` with the HydroData (interaction on), radiation "constant" (A(ω), B(ω) at the
  wave frequency, MBS4WEC's τ_rad = −D v and the frequency-domain model's assumption),
  "state space" (fit_radiation_state_space) or "convolution" (impulse_response).

Hydrostatics.  hydrostatics="reference point" (default) applies them as MBS4WEC does: the whole
C on η (buoyancy=False) and the equilibrium buoyancy ρgV as a constant global force at the
body-fixed reference point (a `force` with an offset), so both solvers have the same nonlinear
loads; "centre of buoyancy" uses hydro_bodies' own split (ρgV at the body-fixed centre of
buoyancy plus the waterplane part of C): the same linearization, another large-rotation form.

    python cases/marine/wec_dae.py t1 [--height 6] [--periods 20] [--radiation "state space"] [--method ms]
"""
import argparse
import dataclasses
import math
import os
import sys

import numpy as np

from mbdae import Model, run, laws
from mbdae.engine.core.hydro_waves import regular_wave
from mbdae.engine.core.hydro_radiation import fit_radiation_state_space, impulse_response

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mbs4wec as mb  # noqa: E402
import wec_cases as wc  # noqa: E402

HYDRO_LABEL = 100
# the hinge frame: axis 3 along global y (x × (−z) = y)
HINGE_FRAME = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])


def _radiation(hydro, radiation, omega, dt=None):
    if radiation == "constant":
        return ("frequency", float(omega))
    if radiation == "state space":
        return fit_radiation_state_space(hydro)
    if radiation == "convolution":
        return impulse_response(hydro, dt if dt is not None else 0.05)
    raise ValueError(f"radiation '{radiation}' is not 'constant', 'state space' or 'convolution'")


def _start(case, start):
    """Node labels and initial CM pose and velocity of each body.  start: None (rest at the
    reference configuration) or (R (N,3,3), r (N,3), V (6N,)) in the order of case["bodies"]."""
    out = []
    for i, b in enumerate(case["bodies"]):
        if start is None:
            out.append((np.asarray(b["cm"], float), np.eye(3), np.zeros(3), np.zeros(3)))
        else:
            R, r, V = start
            out.append((r[i], R[i], V[6 * i:6 * i + 3], V[6 * i + 3:6 * i + 6]))
    return out


def _common(model, case, hydro, waves, radiation, omega, dt, hydrostatics, interaction):
    """Nodes, bodies, gravity, hydrodynamic bodies, buoyancy and the mooring of a case."""
    names = [b["name"] for b in case["bodies"]]
    node = {n: i + 1 for i, n in enumerate(names)}
    model.gravity([0.0, 0.0, -wc.G])
    wet = [h["name"] for h in case["hulls"]]
    if tuple(hydro.body_names or wet) != tuple(wet):
        raise ValueError(f"{hydro.source}: bodies {hydro.body_names}, the case's hulls are {wet}")
    cms = {b["name"]: np.asarray(b["cm"], float) for b in case["bodies"]}
    # the buoyancy of the hulls' exact volumes (the masses balance them), as wec_cases.build_t*
    # give mbs4wec, not a mesh's approximation of them
    hydro = dataclasses.replace(hydro, displaced_volume=np.array([h["displaced_volume"] for h in case["hulls"]], float))
    if hydrostatics == "reference point":
        # MBS4WEC's τ_H: −C η plus the constant buoyancy ρgV ẑ at the body-fixed reference point
        for k, name in enumerate(wet):
            o = hydro.reference_points[k]
            Fz = hydro.rho * hydro.g * hydro.displaced_volume[k]
            model.force(HYDRO_LABEL + 50 + k, node[name], [0.0, 0.0, Fz], "absolute", offset=o - cms[name])
            if hydro.centre_of_buoyancy is not None:
                Mb = np.cross(hydro.centre_of_buoyancy[k] - o, [0.0, 0.0, Fz])
                if np.any(Mb != 0.0):
                    model.couple(HYDRO_LABEL + 70 + k, node[name], Mb, "absolute")
        buoyancy = False
    elif hydrostatics == "centre of buoyancy":
        buoyancy = True
    else:
        raise ValueError(f"hydrostatics '{hydrostatics}' is not 'reference point' or 'centre of buoyancy'")
    model.hydro_bodies(HYDRO_LABEL, [node[n] for n in wet], hydro, waves=waves,
                       radiation=_radiation(hydro, radiation, omega, dt), interaction=interaction,
                       buoyancy=buoyancy, equilibrium=[(cms[n], np.eye(3)) for n in wet])
    m = case["mooring"]
    point = np.asarray(m.get("point", cms[m["body"]]), float)
    model.mooring_matrix(20, node[m["body"]], stiffness=m["stiffness"], damping=m["damping"],
                         offset=point - cms[m["body"]], reference_position=point, reference_orientation=np.eye(3))
    return node


def _nodes_and_bodies(model, case, start):
    for i, (b, (x, R, v, w)) in enumerate(zip(case["bodies"], _start(case, start))):
        model.structural_node(i + 1, "dynamic", position=x, orientation=R, velocity=v, angular_velocity=w)
        model.body(i + 1, i + 1, b["mass"], inertia=b["inertia"])


def t1_model(case=None, hydro=None, waves=None, radiation="constant", start=None, pto_damping=None, dt=None,
             hydrostatics="reference point", interaction=True):
    """T1 as an mbdae Model: 3 barge nodes, 2 revolute hinges (labels 31, 32) with their viscous
    deformable hinges (41, 42) declared PTOs 1 and 2, the mooring on barge 1, the hydrodynamic
    bodies (interaction on).  waves: WaveComponents (default the paper's regular wave)."""
    case = wc.T1 if case is None else case
    waves = regular_wave(wc.WAVE_HEIGHT, wc.WAVE_PERIOD, g=wc.G) if waves is None else waves
    hydro = wc.approximate_hydro(case["hulls"], wc.frequency_grid(waves.omega[0])) if hydro is None else hydro
    c = case["hinge_pto_damping"] if pto_damping is None else pto_damping
    model = Model()
    _nodes_and_bodies(model, case, start)
    node = _common(model, case, hydro, waves, radiation, waves.omega[0], dt, hydrostatics, interaction)
    cms = {b["name"]: np.asarray(b["cm"], float) for b in case["bodies"]}
    for k, j in enumerate(case["joints"]):
        a, b = j["bodies"]
        p = np.asarray(j["point"], float)
        if not np.allclose(np.abs(j["axis"]), [0.0, 1.0, 0.0]):
            raise ValueError("T1's hinges turn about global y")
        model.revolute_hinge(31 + k, node[a], node[b], offset1=p - cms[a], orientation1=HINGE_FRAME,
                             offset2=p - cms[b], orientation2=HINGE_FRAME)
        model.deformable_hinge(41 + k, node[a], node[b], laws.LinearLaw3D(0.0, c),
                               orientation1=HINGE_FRAME, orientation2=HINGE_FRAME)
        model.power_take_off(1 + k, "deformable hinge", 41 + k)
    return model


def t2_model(case=None, hydro=None, waves=None, radiation="constant", start=None, pto_damping=None, dt=None,
             hydrostatics="reference point"):
    """T2 as an mbdae Model: buoy node 1, reaction-mass node 2 on an in-line (31) and a
    prismatic (32) joint along the buoy's axis, the preloaded spring rod 41 and the damper rod
    42 (PTO 1), the mooring at the buoy's waterline point, the hydrodynamic body."""
    case = wc.T2 if case is None else case
    waves = regular_wave(wc.WAVE_HEIGHT, wc.WAVE_PERIOD, g=wc.G) if waves is None else waves
    hydro = wc.approximate_hydro(case["hulls"], wc.frequency_grid(waves.omega[0])) if hydro is None else hydro
    model = Model()
    _nodes_and_bodies(model, case, start)
    node = _common(model, case, hydro, waves, radiation, waves.omega[0], dt, hydrostatics, True)
    cms = {b["name"]: np.asarray(b["cm"], float) for b in case["bodies"]}
    j = case["joints"][0]
    a, b = j["bodies"]
    axis = np.asarray(j["axis"], float)
    if not np.allclose(np.abs(axis), [0.0, 0.0, 1.0]):
        raise ValueError("T2's reaction mass slides along the buoy's vertical axis")
    model.in_line(31, node[a], np.asarray(j["point"], float) - cms[a], np.eye(3), node[b],
                  offset2=np.asarray(j["point"], float) - cms[b])
    model.prismatic(32, node[a], node[b])
    s, d = case["spring"], case["damper"]
    (p1, p2), l0, k = s["points"], s["free_length"], s["stiffness"]
    model.rod(41, node["buoy"], node["mass"], laws.LinearElastic1D(k * l0), length=l0,
              offset1=np.asarray(p1, float) - cms["buoy"], offset2=np.asarray(p2, float) - cms["mass"])
    bd = d["damping"] if pto_damping is None else pto_damping
    (q1, q2) = d["points"]
    L = float(np.linalg.norm(np.subtract(q2, q1)))
    model.rod(42, node["buoy"], node["mass"], laws.LinearViscous1D(bd * L), length=L,
              offset1=np.asarray(q1, float) - cms["buoy"], offset2=np.asarray(q2, float) - cms["mass"])
    model.power_take_off(1, "rod", 42)
    return model


def linear_start(fd_model, lin, case):
    """(R, r, V) of every body, in case["bodies"]'s order, at t = 0 of the linear steady state
    of the joint-coordinate model (mbs4wec.LinearModel.initial_state: consistent poses)."""
    ctx = fd_model.state(0.0, lin.initial_state())
    order = [fd_model.body(b["name"]) for b in case["bodies"]]
    V = np.concatenate([ctx.V[6 * i:6 * i + 6] for i in order])
    return ctx.R[order], ctx.r[order], V


def motions(res, case):
    """(t, body motions (nt, N, 6): CM displacement and rotation vector of R) from Results."""
    out = []
    for i, b in enumerate(case["bodies"]):
        x, R = res.node(i + 1)[:2]
        th = np.array([mb.R_to_rotvec(Rk) for Rk in R])
        out.append(np.concatenate([x - np.asarray(b["cm"], float), th], axis=1))
    return res.t, np.stack(out, axis=1)


def hinge_angles(res, n=3):
    """Relative rotation about global y of barge i+1 to barge i (rad), (nt, n−1)."""
    Rs = [res.node(i + 1)[1] for i in range(n)]
    return np.stack([np.array([mb.R_to_rotvec(A.T @ B)[1] for A, B in zip(Rs[i], Rs[i + 1])])
                     for i in range(n - 1)], axis=1)


def stroke(res, case=None):
    """The mass's displacement along the buoy's axis relative to its rest position (m)."""
    case = wc.T2 if case is None else case
    x1, R1 = res.node(1)[:2]
    x2 = res.node(2)[0]
    d0 = np.subtract(case["bodies"][1]["cm"], case["bodies"][0]["cm"])[2]
    return np.einsum("tij,ti->tj", R1, x2 - x1)[:, 2] - d0


def _main_case(name, hydro_kind, height, periods, radiation, steps, method="ms"):
    case = wc.T1 if name == "t1" else wc.T2
    w = wc.WAVE_OMEGA
    grid = wc.frequency_grid(w) if radiation != "constant" or hydro_kind == "approximate" else [0.9 * w, w, 1.1 * w]
    hydro = (wc.capytaine_hydro if hydro_kind == "capytaine" else wc.approximate_hydro)(case["hulls"], grid)
    waves = regular_wave(height, wc.WAVE_PERIOD, g=wc.G)
    fd = (wc.build_t1 if name == "t1" else wc.build_t2)(hydro=hydro, height=height)
    lin = fd.linearize(w)
    lin.solve()
    T = wc.WAVE_PERIOD
    dt = T / steps
    build = t1_model if name == "t1" else t2_model
    model = build(case, hydro, waves, radiation=radiation, start=linear_start(fd, lin, case), dt=dt)
    res = run(model, final_time=periods * T, time_step=dt, method=method, tolerance=1e-6)
    t, mot = motions(res, case)
    last = t >= t[-1] - 3 * T - 1e-9
    print(f"{name}: H = {height} m, T = {T} s, radiation {radiation}, {hydro.source}; {periods} periods "
          f"from the linear steady state, first harmonics over the last 3 (linear model in brackets)")
    xi = lin.body_motion()
    for i, b in enumerate(case["bodies"]):
        k = fd.body(b["name"])
        amp = [abs(mb.first_harmonic(t[last], mot[last, i, c], w)[0]) for c in (0, 2, 4)]
        print(f"  {b['name']:8s} surge {amp[0]:7.4f} ({abs(xi[k, 0]):7.4f}) m  heave {amp[1]:7.4f} "
              f"({abs(xi[k, 2]):7.4f}) m  pitch {math.degrees(amp[2]):7.3f} ({math.degrees(abs(xi[k, 4])):7.3f}) deg")
    fdp = wc.pto_power(fd, lin)
    if name == "t1":
        th = hinge_angles(res)
        for j in range(2):
            a = abs(mb.first_harmonic(t[last], th[last, j], w)[0])
            x = abs(lin.X[fd.sdof[fd.body(f"barge{j + 2}")][0]])
            print(f"  hinge {j + 1}-{j + 2}: {math.degrees(a):.3f} ({math.degrees(x):.3f}) deg")
        keys = ["pto_barge2", "pto_barge3"]
    else:
        a = abs(mb.first_harmonic(t[last], stroke(res, case)[last], w)[0])
        print(f"  stroke of the mass: {a:.4f} ({abs(lin.X[fd.sdof[fd.body('mass')][0]]):.4f}) m")
        keys = ["pto"]
    for k, key in enumerate(keys):
        print(f"  PTO {k + 1}: mean absorbed power {res.stats['mean_absorbed_power'][k + 1] / 1e3:.1f} kW "
              f"over the run ({fdp[key] / 1e3:.1f} kW linear)")
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", choices=["t1", "t2"])
    ap.add_argument("--height", type=float, default=wc.WAVE_HEIGHT)
    ap.add_argument("--periods", type=int, default=6)
    ap.add_argument("--steps", type=int, default=100, help="time steps per wave period")
    ap.add_argument("--radiation", choices=["constant", "state space", "convolution"], default="constant")
    ap.add_argument("--hydro", choices=["approximate", "capytaine"], default="approximate")
    ap.add_argument("--method", default="ms", help="integrator (default MBDyn's ms, rho 0.6: Crank-Nicolson, "
                    "undamped, lets T1 at H = 6 m drift away after about 45 s)")
    args = ap.parse_args(argv)
    _main_case(args.case, args.hydro, args.height, args.periods, args.radiation, args.steps, args.method)


if __name__ == "__main__":
    main()
