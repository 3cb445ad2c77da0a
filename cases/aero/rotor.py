"""A 4-blade articulated rotor with beam blades in forward flight, trimmed (issue 21).

The rotor is written as an MBDyn input deck (`deck()`), run by `mbdae run` (or MBDyn 1.7.3),
and trimmed by an outer quasi-Newton loop over short runs (`trim()`):

- hub node spun at constant Ω by an `axial rotation` joint on a clamped craft node whose
  axis 3 is the shaft, tilted forward by α_s (the free stream blows along global +x, the
  craft flies along −x);
- each blade: flap `revolute hinge` (axis in the disk plane, normal to the blade) and lag
  `revolute hinge` (axis along the shaft) at the same offset e, a viscous lag damper
  (`deformable hinge`, `linear viscoelastic generic`), a pitch bearing (`total joint` whose
  relative rotation about the span axis is θ(ψ) = θ0 + θ1c cos ψ + θ1s sin ψ, a `sine` drive
  of time), then a `beam3` shank (e → x0 R) and three `beam3` elements carrying `aerodynamic
  beam` elements with MBDyn's built-in NACA 0012, linear twist;
- a `uniform` `induced velocity` element (momentum theory, Glauert's forward-flight relation
  λ = μ tan α_d + C_T / (2 √(μ² + λ²))) summing the blades' loads.

Data (cite): UH-60A main rotor geometry as given for the NASA/Army UH-60A Airloads Program
(Kufeld, Balough, Cross, Studebaker, Jennison, Bousman, "Flight Testing the UH-60A Airloads
Aircraft", AHS 50th Annual Forum, 1994): 4 blades, R = 26.83 ft = 8.178 m, chord 1.73 ft =
0.527 m (published solidity 0.0826; 0.0820 here from this chord on a rectangular planform),
Ω = 27.0 rad/s (ΩR = 221 m/s), coincident flap/lag hinge offset 15 in = 0.381 m, nominal
twist −18° (linear here; the real twist is nonlinear).  Chosen, not published (said so
wherever printed): MBDyn's built-in NACA 0012 in place of the SC1095 sections, a uniform
blade of m' = 14 kg/m (Lock number γ = ρ a c R⁴ / I_β = 8.6 with the NACA 0012's a = 6.57
at M(0.75 R) = 0.49), the section stiffnesses, the lag damper, the root cut-out x0 = 0.2,
the shaft tilt α_s = 4°, the flight condition μ = 0.2 and the target C_T/σ = 0.08.

    python cases/aero/rotor.py trim                 # trim, write cases/aero/rotor.mbd, print residuals
    python cases/aero/rotor.py run --revs 6         # run the written deck's controls, print harmonics
    python cases/aero/rotor.py deck --controls .13 0 -.05 --out /tmp/r.mbd   # a deck with given controls
    mbdae run cases/aero/rotor.mbd -o out/rotor     # the trimmed deck (6 revolutions)
"""
import argparse
import math
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

import mbdae
from mbdae.engine.core import airfoil as af
from mbdae.engine.io.mbdyn.deck import read_deck

HERE = Path(__file__).resolve().parent
DECK = HERE / "rotor.mbd"


@dataclass(frozen=True)
class Rotor:
    """Rotor, blade and flight data (see the module docstring for the sources)."""
    blades: int = 4
    radius: float = 8.178             # m, UH-60A (26.83 ft)
    chord: float = 0.527              # m, UH-60A (1.73 ft)
    omega: float = 27.0               # rad/s, UH-60A nominal
    hinge: float = 0.381              # m, UH-60A flap/lag hinge offset (15 in)
    twist: float = math.radians(-18.0)  # linear over the radius (UH-60A nominal −18°, nonlinear there)
    cutout: float = 0.2               # r/R where the aerodynamic span starts (chosen)
    mass: float = 14.0                # kg/m, uniform (chosen: Lock number 8.6)
    pitch_gyration: float = 0.25      # section polar radius of gyration / chord (chosen)
    EA: float = 2.0e8                 # N        (section stiffnesses: chosen)
    GA: float = 5.0e7                 # N
    GJ: float = 2.0e5                 # N m²
    EI_flap: float = 4.0e5            # N m²
    EI_lag: float = 4.0e6             # N m²
    damping: float = 5.0e-4           # s, stiffness-proportional beam damping (chosen)
    lag_damper: float = 2.0e4         # N m s/rad (chosen: lag mode ζ ≈ 0.6)
    lag_spring: float = 0.0           # N m/rad (none: a pure damper; large values lock the lag)
    aero_elements: int = 3            # beam3 elements over the aerodynamic span
    rho: float = 1.225                # kg/m³, sea level ISA
    sound: float = 340.3              # m/s
    mu: float = 0.2                   # advance ratio V cos α_s / ΩR (chosen)
    shaft_tilt: float = math.radians(4.0)   # forward (chosen)
    target_ct_sigma: float = 0.08     # trim target (chosen)
    inflow: str = "uniform"

    @property
    def tip_speed(self):
        return self.omega * self.radius

    @property
    def solidity(self):
        return self.blades * self.chord / (math.pi * self.radius)

    @property
    def speed(self):
        """Free-stream speed V (m/s): μ = V cos α_s / ΩR."""
        return self.mu * self.tip_speed / math.cos(self.shaft_tilt)

    def flap_inertia(self):
        """I_β = ∫ m' (r − e)² dr and S_β = ∫ m' (r − e) dr over the blade (e to R)."""
        L = self.radius - self.hinge
        return self.mass * L ** 3 / 3, self.mass * L ** 2 / 2

    def lock_number(self, lift_slope=2 * math.pi):
        return self.rho * lift_slope * self.chord * self.radius ** 4 / self.flap_inertia()[0]

    def flap_frequency(self):
        """ν_β² = 1 + e S_β / I_β (per rev)."""
        I, S = self.flap_inertia()
        return math.sqrt(1 + self.hinge * S / I)


def stations(rotor):
    """Radial positions of the beam nodes: shank e → x0 R (one beam3), then the aerodynamic
    span in `aero_elements` beam3 elements."""
    r0, r1, R = rotor.hinge, rotor.cutout * rotor.radius, rotor.radius
    pts = [r0, 0.5 * (r0 + r1), r1]
    n = rotor.aero_elements
    for i in range(n):
        a, b = r1 + (R - r1) * i / n, r1 + (R - r1) * (i + 1) / n
        pts += [0.5 * (a + b), b]
    return np.array(pts)


def lumps(rotor):
    """Lumped masses of the beam nodes: each beam3 element's mass split as its finite volumes
    (boundaries at ξ = ±1/√3, manual ch. 10): ends (1 − 1/√3)/2, middle 1/√3 of its length."""
    r = stations(rotor)
    lengths = np.zeros(len(r))
    for e in range((len(r) - 1) // 2):
        L = r[2 * e + 2] - r[2 * e]
        lengths[2 * e] += L * (1 - 1 / math.sqrt(3)) / 2
        lengths[2 * e + 1] += L / math.sqrt(3)
        lengths[2 * e + 2] += L * (1 - 1 / math.sqrt(3)) / 2
    return r, lengths


def _f(x):
    return repr(float(x))


def deck(rotor=Rotor(), controls=(0.1, 0.0, 0.0), revolutions=6, steps_per_rev=180,
         tolerance=1e-3, output_every=1):
    """The MBDyn input deck of the rotor with collective and cyclic pitch `controls`
    (θ0 at 0.75 R, θ1c, θ1s; rad).  Blade k (1…4) sits at ψ = Ω t + (k − 1) π/2 from the
    downstream direction; hub x axis downstream, z along the shaft."""
    th0, th1c, th1s = map(float, controls)
    Om, R, e, c = rotor.omega, rotor.radius, rotor.hinge, rotor.chord
    dt = 2 * math.pi / (Om * steps_per_rev)
    # a hair under the whole number of steps: MBDyn steps while t < final time (a final time
    # rounded below N dt costs it a step more), mbdae lands on it; so both take N equal steps
    T = (revolutions * steps_per_rev - 1e-6) * dt
    r, lengths = lumps(rotor)
    nb, nn = rotor.blades, len(r)
    nbeam = (nn - 1) // 2
    m, Ith = rotor.mass, rotor.mass * (rotor.pitch_gyration * c) ** 2
    K = [rotor.EA, rotor.GA, rotor.GA, rotor.GJ, rotor.EI_flap, rotor.EI_lag]
    L = []
    w = L.append
    w(f"# {Path(__file__).name}: 4-blade articulated rotor with beam blades in forward flight")
    w(f"# (UH-60A geometry; see cases/aero/README.md).  Controls: theta0 = {th0:.9f}, "
      f"theta1c = {th1c:.9f}, theta1s = {th1s:.9f} rad")
    w("begin: data;\n    problem: initial value;\nend: data;\n")
    w("begin: initial value;")
    w(f"    initial time: 0.;\n    final time: {_f(T)};\n    time step: {_f(dt)};")
    w("    method: ms, .6;")
    w(f"    tolerance: {tolerance!r};\n    max iterations: 30;")
    w("    derivatives coefficient: 1e-6;\n    derivatives tolerance: 1e+2;\n    derivatives max iterations: 20;")
    w("    linear solver: naive, colamd;")
    w("end: initial value;\n")
    w("begin: control data;")
    w(f"    structural nodes: {2 + nb * (nn + 2)};")
    w(f"    rigid bodies: {nb * nn};")
    w(f"    joints: {2 + 4 * nb};")
    w(f"    beams: {nb * nbeam};")
    w("    air properties;")
    w("    induced velocity elements: 1;")
    w(f"    aerodynamic elements: {nb * rotor.aero_elements};")
    w("    default orientation: orientation matrix;")
    if output_every > 1:
        w(f"    output frequency: {output_every};")
    w("end: control data;\n")
    w(f"set: real Omega = {_f(Om)};")
    w(f"set: real R = {_f(R)};")
    w(f"set: real e_hinge = {_f(e)};")
    w(f"set: real alpha_s = {_f(rotor.shaft_tilt)};")
    w("# craft node frame: axis 3 along the shaft, tilted forward (towards -x) by alpha_s")
    w("reference: 1, reference, global, null,\n"
      "    reference, global, 2, 0., 1., 0., 3, -sin(alpha_s), 0., cos(alpha_s),\n"
      "    reference, global, null, reference, global, null;")
    w("reference: 2, reference, 1, null, reference, 1, eye, reference, 1, null, reference, 1, 0., 0., Omega;")
    pitch = []
    for k in range(1, nb + 1):
        p0 = (k - 1) * 2 * math.pi / nb
        th = th0 + th1c * math.cos(p0) + th1s * math.sin(p0)
        thd = Om * (-th1c * math.sin(p0) + th1s * math.cos(p0))
        pitch.append(th)
        w(f"# blade {k}: x spanwise, y towards the leading edge, z up; then pitched by theta(0)")
        w(f"reference: {10 * k}, reference, 2, null,\n"
          f"    reference, 2, 1, {_f(math.cos(p0))}, {_f(math.sin(p0))}, 0., 3, 0., 0., 1.,\n"
          f"    reference, 2, null, reference, 2, null;")
        w(f"reference: {10 * k + 1}, reference, {10 * k}, null,\n"
          f"    reference, {10 * k}, 1, 1., 0., 0., 2, 0., {_f(math.cos(th))}, {_f(math.sin(th))},\n"
          f"    reference, {10 * k}, null, reference, {10 * k}, {_f(thd)}, 0., 0.;")
    w("")
    w("begin: nodes;")
    w("    structural: 1, static, reference, 1, null, reference, 1, eye, reference, 1, null, reference, 1, null;")
    w("    structural: 2, static, reference, 2, null, reference, 2, eye, reference, 2, null, reference, 2, null;")
    for k in range(1, nb + 1):
        for lab in (100 * k + 91, 100 * k + 92):        # flap link, lag link (massless)
            w(f"    structural: {lab}, static, reference, {10 * k}, e_hinge, 0., 0., reference, {10 * k}, eye, "
              f"reference, {10 * k}, null, reference, {10 * k}, null;")
        for j in range(nn):
            w(f"    structural: {100 * k + j}, dynamic, reference, {10 * k + 1}, {_f(r[j])}, 0., 0., "
              f"reference, {10 * k + 1}, eye, reference, {10 * k + 1}, null, reference, {10 * k + 1}, null;")
    w("end: nodes;\n")
    w("begin: elements;")
    w("    joint: 1, clamp, 1, node, node;")
    w("    joint: 2, axial rotation, 1, reference, 1, null, hinge, reference, 1, eye,\n"
      "        2, reference, 2, null, hinge, reference, 2, eye, const, Omega;")
    w(f"    air properties: {_f(rotor.rho)}, {_f(rotor.sound)}, 1., 0., 0., const, {_f(rotor.speed)};")
    w("    # the rotor before the blades that name it (MBDyn reads elements in order)")
    w(f"    induced velocity: 1, rotor, 1, 2, induced velocity, {rotor.inflow}, Omega, R,\n"
      "        max iterations, 10, tolerance, 1e-8;")
    law = ("linear viscoelastic generic, diag, " + ", ".join(_f(x) for x in K)
           + f", proportional, {_f(rotor.damping)}")
    chord_frame = "1, 0., 1., 0., 3, 1., 0., 0."
    for k in range(1, nb + 1):
        ref = 10 * k
        F, Lg, B = 100 * k + 91, 100 * k + 92, 100 * k
        w(f"    # blade {k}")
        w(f"    joint: {F}, revolute hinge,     # flap: axis along the chord\n"
          f"        2, reference, {ref}, e_hinge, 0., 0., hinge, reference, {ref}, 1, 1., 0., 0., 3, 0., 1., 0.,\n"
          f"        {F}, reference, {ref}, e_hinge, 0., 0., hinge, reference, {ref}, 1, 1., 0., 0., 3, 0., 1., 0.;")
        w(f"    joint: {Lg}, revolute hinge,     # lag: axis along the shaft\n"
          f"        {F}, reference, {ref}, e_hinge, 0., 0., hinge, reference, {ref}, eye,\n"
          f"        {Lg}, reference, {ref}, e_hinge, 0., 0., hinge, reference, {ref}, eye;")
        w(f"    joint: {100 * k + 93}, deformable hinge,     # lag damper\n"
          f"        {F}, hinge, reference, {ref}, eye, {Lg}, hinge, reference, {ref}, eye,\n"
          f"        linear viscoelastic generic, diag, 0., 0., {_f(rotor.lag_spring)}, "
          f"diag, 0., 0., {_f(rotor.lag_damper)};")
        # θ0 + θ1c cos ψ + θ1s sin ψ = θ0 + A sin(Ω (t − t0)), ψ = Ω t + ψ_k: a `sine` drive, which
        # MBDyn differentiates for its initial assembly (a string drive it does not)
        A, phase = math.hypot(th1c, th1s), math.atan2(th1c, th1s)
        t0 = -((k - 1) * 2 * math.pi / nb + phase) / Om
        w(f"    joint: {100 * k + 94}, total joint,     # pitch bearing: theta0 + theta1c cos(psi) + theta1s sin(psi)\n"
          f"        {Lg}, position, reference, {ref}, e_hinge, 0., 0., position orientation, reference, {ref}, eye,\n"
          f"            rotation orientation, reference, {ref}, eye,\n"
          f"        {B}, position, reference, {ref}, e_hinge, 0., 0., position orientation, reference, {ref}, eye,\n"
          f"            rotation orientation, reference, {ref + 1}, eye,\n"
          f"        position constraint, active, active, active, null,\n"
          f"        orientation constraint, active, active, active,\n"
          f"            single, 1., 0., 0., sine, {_f(t0)}, Omega, {_f(A)}, forever, {_f(th0)};")
        for j in range(nn):
            ml = m * lengths[j]
            Ibend = ml * lengths[j] ** 2 / 12
            w(f"    body: {100 * k + j}, {100 * k + j}, {_f(ml)}, null, diag, {_f(Ith * lengths[j])}, "
              f"{_f(Ibend)}, {_f(Ibend + Ith * lengths[j])};")
        for b in range(nbeam):
            n1, n2, n3 = 100 * k + 2 * b, 100 * k + 2 * b + 1, 100 * k + 2 * b + 2
            w(f"    beam3: {100 * k + b}, {n1}, reference, node, null, {n2}, reference, node, null, "
              f"{n3}, reference, node, null,\n"
              f"        from nodes, {law},\n        same, same;")
        for b in range(rotor.aero_elements):
            n1 = 100 * k + 2 * (b + 1)
            ra, rb = r[2 * (b + 1)], r[2 * (b + 2)]
            # `linear, v(-1), v(+1)`: the twist at the element's ends (MBDyn's shape reader)
            a0, a1 = rotor.twist * (ra / R - 0.75), rotor.twist * (rb / R - 0.75)
            w(f"    aerodynamic beam: {100 * k + 10 + b}, {100 * k + b + 1}, induced velocity, 1,\n"
              + "".join(f"        reference, node, null, reference, node, {chord_frame},\n" for _ in range(3))
              + f"        const, {_f(c)}, const, 0., const, 0., linear, {_f(a0)}, {_f(a1)},\n"
              f"        3, naca0012;")
    w("end: elements;")
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------------------------------------
# Post-processing: thrust (.rot) and flapping/lag angles (.mov) over the last revolution

def _mov(prefix):
    """Rows of the .mov (orientation matrices): {label: (n_steps, 21) array}."""
    data = np.loadtxt(f"{prefix}.mov")
    return {int(l): data[data[:, 0] == l] for l in np.unique(data[:, 0])}


def harmonics(prefix, rotor, revolutions, steps_per_rev, output_every=1):
    """Mean thrust coefficient, inflow ratio and the flapping/lag harmonics of the last
    revolution (blade average; ψ_k = Ω t + (k − 1) π/2), and per-revolution series for the
    periodicity check."""
    rot = np.loadtxt(f"{prefix}.rot")
    mov = _mov(prefix)
    n = steps_per_rev // output_every
    t = np.arange(rot.shape[0]) * (2 * math.pi / (rotor.omega * steps_per_rev)) * output_every
    area, vt = math.pi * rotor.radius ** 2, rotor.tip_speed
    ct = rot[:, 3] / (rotor.rho * area * vt ** 2)
    shaft = mov[1][0, 4:13].reshape(3, 3)[:, 2]
    beta, zeta = [], []
    for k in range(1, rotor.blades + 1):
        RF = mov[100 * k + 91][:, 4:13].reshape(-1, 3, 3)
        RL = mov[100 * k + 92][:, 4:13].reshape(-1, 3, 3)
        beta.append(np.arcsin(RF[:, :, 0] @ shaft))                    # flap up positive
        zeta.append(np.arcsin(np.einsum("ni,ni->n", RL[:, :, 0], RF[:, :, 1])))   # lead positive
    beta, zeta = np.array(beta), np.array(zeta)
    last = slice(rot.shape[0] - n, rot.shape[0])                       # one revolution
    psi = rotor.omega * t[last]
    out = {"ct": ct[last].mean(), "ct_sigma": ct[last].mean() / rotor.solidity,
           "lambda": rot[last, 11].mean(), "mu": rot[last, 10].mean(), "inflow": rot[last, 7].mean(),
           "Mx": rot[last, 4].mean(), "My": rot[last, 5].mean(), "t": t, "ct_series": ct,
           "beta_series": beta, "zeta_series": zeta}
    b0 = b1c = b1s = z0 = 0.0
    for k in range(rotor.blades):
        p = psi + k * 2 * math.pi / rotor.blades
        b = beta[k, last]
        b0 += b.mean() / rotor.blades
        b1c += 2 * (b * np.cos(p)).mean() / rotor.blades
        b1s += 2 * (b * np.sin(p)).mean() / rotor.blades
        z0 += zeta[k, last].mean() / rotor.blades
    out.update(beta0=b0, beta1c=b1c, beta1s=b1s, zeta0=z0)
    return out


def run(rotor=Rotor(), controls=(0.1, 0.0, 0.0), revolutions=6, steps_per_rev=180, workdir=None,
        quiet=True, tolerance=1e-3):
    """Write the deck, run it with mbdae and return `harmonics` of its last revolution."""
    with tempfile.TemporaryDirectory(prefix="mbdae-rotorcase-") as tmp:
        work = Path(workdir or tmp)
        path = work / "rotor.mbd"
        path.write_text(deck(rotor, controls, revolutions, steps_per_rev, tolerance))
        d = read_deck(str(path), echo=(lambda *a, **k: None) if quiet else print)
        mbdae.run(d, output_prefix=str(work / "rotor"))
        return harmonics(work / "rotor", rotor, revolutions, steps_per_rev)


# ---------------------------------------------------------------------------------------------
# Classical estimate: rigid centrally-sprung blade, uniform inflow, strip theory (Johnson,
# Helicopter Theory, ch. 5; Leishman, Principles of Helicopter Aerodynamics, 2nd ed., 4.x)

def lift_slope(mach, alpha=math.radians(2.0)):
    """Lift slope (1/rad) of MBDyn's built-in NACA 0012 at Mach `mach` (a number or an
    array; secant through ±α)."""
    ints, floats, starts = af.pack_airfoils([af.AirfoilModel("naca0012")])
    vam = np.array([1.225, 340.3, 1.0, 0.0, 0.0, 0.0])
    TNG, OUTA = np.zeros(6), np.zeros(20)
    out = []
    for m in np.atleast_1d(np.asarray(mach, float)).ravel():
        cl = []
        for a in (alpha, -alpha):
            V = max(m, 1e-3) * 340.3
            W = np.array([V * math.cos(a), -V * math.sin(a), 0.0, 0.0, 0.0, 0.0])
            af.airfoil_loads(ints, floats, starts[0], W, vam, 0.0, 0.0, TNG, OUTA)
            cl.append(OUTA[4])
        out.append((cl[0] - cl[1]) / (2 * alpha))
    return out[0] if np.ndim(mach) == 0 else np.reshape(out, np.shape(mach))


def classical(rotor, controls, lam, a, n_psi=72, n_r=40):
    """Harmonic balance of the rigid flapping blade (hinge offset e, ν_β² = 1 + e S_β/I_β) in
    strip theory with c_l = a α (a a number, or "mach": the NACA 0012's slope at each
    point's Mach number (x + μ sin ψ) ΩR/c), uniform inflow ratio λ (positive down through the disk),
    root cut-out x0, linear twist, no reverse flow, no lag, small angles:
        β'' + ν_β² β = γ/(a) ∫ (x − ε) ½ a (u_T² θ − u_T u_P) dx,
        u_T = x + μ sin ψ,  u_P = λ + (x − ε) β' + μ β cos ψ.
    Returns (C_T/σ, β0, β1c, β1s); C_T/σ = (a/2) ⟨∫ (u_T² θ − u_T u_P) dx⟩_ψ."""
    th0, th1c, th1s = controls
    eps, x0, mu = rotor.hinge / rotor.radius, rotor.cutout, rotor.mu
    I, _ = rotor.flap_inertia()
    gamma_over_a = rotor.rho * rotor.chord * rotor.radius ** 4 / I
    nu2 = rotor.flap_frequency() ** 2
    xg, wg = np.polynomial.legendre.leggauss(n_r)
    x = x0 + (1 - x0) * (xg + 1) / 2
    wx = wg * (1 - x0) / 2
    psi = np.arange(n_psi) * 2 * math.pi / n_psi
    P, X = np.meshgrid(psi, x, indexing="ij")
    uT = X + mu * np.sin(P)
    if isinstance(a, str):
        a = lift_slope(np.abs(uT) * rotor.tip_speed / rotor.sound)
    theta = th0 + rotor.twist * (X - 0.75) + th1c * np.cos(P) + th1s * np.sin(P)

    def loads(b):
        beta = b[0] + b[1] * np.cos(P) + b[2] * np.sin(P)
        dbeta = -b[1] * np.sin(P) + b[2] * np.cos(P)
        uP = lam + (X - eps) * dbeta + mu * beta * np.cos(P)
        f = 0.5 * a * (uT ** 2 * theta - uT * uP)
        moment = gamma_over_a * (f * (X - eps)) @ wx        # γ/a ∫ (x − ε) f dx
        return f @ wx, moment, beta, dbeta

    def residual(b):
        _, moment, beta, _ = loads(b)
        # β'' + ν² β − M = 0 for the first-harmonic β: β'' = −(β − β0)
        beta_psi = b[0] + b[1] * np.cos(psi) + b[2] * np.sin(psi)
        r = -(beta_psi - b[0]) + nu2 * beta_psi - moment
        return np.array([r.mean(), 2 * (r * np.cos(psi)).mean(), 2 * (r * np.sin(psi)).mean()])

    r0 = residual(np.zeros(3))
    J = np.column_stack([residual(np.eye(3)[i]) - r0 for i in range(3)])
    b = np.linalg.solve(J, -r0)
    lift, _, _, _ = loads(b)
    return lift.mean(), b[0], b[1], b[2]          # f holds the ½ a: C_T/σ = ⟨∫ f dx⟩


def classical_trim(rotor, a, lam, ct_sigma):
    """Controls that the classical model trims to (C_T/σ, β1c = β1s = 0), by Newton."""
    x = np.array([0.1, 0.0, 0.0])
    for _ in range(20):
        f = np.array(classical(rotor, x, lam, a))[[0, 2, 3]] - [ct_sigma, 0, 0]
        J = np.column_stack([(np.array(classical(rotor, x + 1e-5 * np.eye(3)[i], lam, a))[[0, 2, 3]]
                              - [ct_sigma, 0, 0] - f) / 1e-5 for i in range(3)])
        dx = np.linalg.solve(J, -f)
        x = x + dx
        if np.abs(dx).max() < 1e-12:
            break
    return x, J


def momentum_lambda(rotor, ct):
    """Glauert's relation λ = μ tan α_s + C_T / (2 √(μ² + λ²)) by fixed point."""
    lam = math.sqrt(ct / 2)
    for _ in range(200):
        lam = rotor.mu * math.tan(rotor.shaft_tilt) + ct / (2 * math.sqrt(rotor.mu ** 2 + lam ** 2))
    return lam


# ---------------------------------------------------------------------------------------------
# Trim: quasi-Newton (Broyden) over short runs, started from the classical solution

def trim(rotor=Rotor(), revolutions=6, steps_per_rev=180, tol=(5e-5, 3e-5, 3e-5), max_iter=8,
         log=print):
    """Find (θ0, θ1c, θ1s) with C_T/σ = target and β1c = β1s = 0 (the tip-path plane normal to
    the shaft: zero first-harmonic flapping, hence zero hub pitch and roll moments of the
    hinge offset).  The residual is measured on the last of `revolutions` revolutions of a run
    from rest (the flap and lag transients decay within 3–4 revolutions).  Jacobian: the
    classical model's, updated by Broyden's rule.  Returns (controls, result, history)."""
    a = lift_slope(0.75 * rotor.tip_speed / rotor.sound)
    ct = rotor.target_ct_sigma * rotor.solidity
    x, J = classical_trim(rotor, a, momentum_lambda(rotor, ct), rotor.target_ct_sigma)
    history = []
    target = np.array([rotor.target_ct_sigma, 0.0, 0.0])
    f_old = None
    for it in range(max_iter):
        res = run(rotor, x, revolutions, steps_per_rev)
        f = np.array([res["ct_sigma"], res["beta1c"], res["beta1s"]]) - target
        history.append((x.copy(), f.copy(), res))
        log(f"trim {it}: theta0 {math.degrees(x[0]):8.4f}  theta1c {math.degrees(x[1]):8.4f}  "
            f"theta1s {math.degrees(x[2]):8.4f} deg | residuals CT/sigma {f[0]:+.2e}  "
            f"beta1c {math.degrees(f[1]):+.2e} deg  beta1s {math.degrees(f[2]):+.2e} deg", flush=True)
        if np.all(np.abs(f) < tol):
            return x, res, history
        if f_old is not None:
            dx, df = x - x_old, f - f_old
            J = J + np.outer(df - J @ dx, dx) / (dx @ dx)
        x_old, f_old = x.copy(), f.copy()
        x = x + np.linalg.solve(J, -f)
    return x, res, history


def controls_of(path=DECK):
    """The controls written in a deck's header line."""
    m = re.search(r"theta0 = ([-\d.e]+), theta1c = ([-\d.e]+), theta1s = ([-\d.e]+)", Path(path).read_text())
    return tuple(float(v) for v in m.groups())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["trim", "run", "deck"])
    ap.add_argument("--revs", type=int, default=6)
    ap.add_argument("--steps", type=int, default=180, help="steps per revolution")
    ap.add_argument("--inflow", default="uniform")
    ap.add_argument("--out", default=str(DECK), help="the deck written (trim, deck) or read (run)")
    ap.add_argument("--controls", type=float, nargs=3, metavar=("THETA0", "THETA1C", "THETA1S"),
                    help="deck: the controls (rad); default: those in --out's header")
    a = ap.parse_args(argv)
    rotor = replace(Rotor(), inflow=a.inflow)
    print(f"rotor: sigma {rotor.solidity:.4f}, Lock number {rotor.lock_number(lift_slope(0.75 * rotor.tip_speed / rotor.sound)):.2f}, "
          f"nu_beta {rotor.flap_frequency():.4f}/rev, V {rotor.speed:.2f} m/s, mu {rotor.mu}", flush=True)
    if a.what == "trim":
        x, res, hist = trim(rotor, a.revs, a.steps)
        Path(a.out).write_text(deck(rotor, x, a.revs, a.steps))
        print(f"trimmed: C_T/sigma {res['ct_sigma']:.5f}, lambda {res['lambda']:.5f}, "
              f"beta0 {math.degrees(res['beta0']):.3f} deg, zeta0 {math.degrees(res['zeta0']):.3f} deg; "
              f"deck written to {a.out}")
    elif a.what == "run":
        res = run(rotor, controls_of(a.out), a.revs, a.steps)
        print({k: v for k, v in res.items() if np.ndim(v) == 0})
    else:
        controls = a.controls if a.controls else controls_of(a.out)
        Path(a.out).write_text(deck(rotor, controls, a.revs, a.steps))


if __name__ == "__main__":
    main()
