"""Lateral buckling of a thin beam (flexible multibody benchmark of Bauchau et al., Multibody
Syst Dyn 37:29-48, 2016), run from MBDyn's deck benchmarks/lateralbuckling/lateralbuckling
read in place.  That deck includes four files that MBDyn's Octave script writes
(lateralbuckling.set/.ref/.nod/.elm); this module writes its own versions of them from the
model's data (a generator of ours, nothing of MBDyn's is copied into the repository):

* a thin cantilever (beam, 1 m along x, 5 beam3 elements) clamped at R; its tip T carries a
  spherical hinge at C = T + (0, D, 0), D = 0.1 mm (the imperfection), to a link (0.25 m,
  hanging along -z, 1 beam3) whose lower end B hinges (revolute, axis y) on a crank
  (0.05 m along -x from B to its ground hinge G, 1 beam3);
* the crank turns by π(1 - cos(πt/T))/2 about -y (T = 0.4 s) through a total pin joint: it
  lifts B by up to 5 cm, so the link pushes the beam tip up (bending about the strong axis,
  EJ_y = 60830 N m²) until the beam buckles sideways (weak axis EJ_z = 608.3 N m², GJ = 877.2 N m²);
* sections: EA, GA_y, GA_z, GJ, EJ_y, EJ_z per part; mass lumped on the nodes as in MBDyn's
  script: each node of a part gets m l (l = L/(2n); half at the ends, with its centre moved a
  quarter of l inwards), rotary inertias J_ii l plus (s m/12)(s l)³ about the transverse axes
  (s = 1, or 1/2 at the ends).

The link holds the beam tip sideways (its lateral stiffness is 125 times the beam's), so the
beam buckles as a cantilever whose tip may twist but not move sideways: the analytic
critical tip load is P_cr = 6.982 sqrt(EJ_z GJ) / L² = 5100 N (buckling_coefficient derives
it; a free tip would give Timoshenko & Gere's 4.013, 2931 N).

Run: python cases/flexible/lateral_buckling.py [--static] [--steps N] [--out PREFIX]
"""
import argparse
import os
import sys
import tempfile
from dataclasses import dataclass

import numpy as np

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared")
DECK = os.path.join(SHARED, "mbdyn-tests", "benchmarks", "lateralbuckling", "lateralbuckling")


@dataclass
class Part:
    name: str
    label: int          # node/body/beam label base, reference frame and law label
    elements: int
    length: float
    EA: float
    GAy: float
    GAz: float
    GJ: float
    EJy: float
    EJz: float
    m: float            # kg/m
    J22: float          # kg m²/m
    J33: float

    @property
    def J11(self):
        return self.J22 + self.J33


BEAM = Part("BEAM", 1000, 5, 1.0, 73e6, 5.025e6, 23.40e6, 877.2, 60830.0, 608.3, 2.68, 2233e-6, 22.33e-6)
LINK = Part("LINK", 2000, 1, 0.25, 33.02e6, 10.81e6, 10.81e6, 914.5, 1189.0, 1189.0, 1.212, 43.65e-6, 43.65e-6)
CRANK = Part("CRANK", 3000, 1, 0.05, 132.1e6, 43.22e6, 43.22e6, 14630.0, 19020.0, 19020.0, 4.85, 698.3e-6, 698.3e-6)
IMPERFECTION = 0.1e-3             # D, m
PERIOD = 0.4                      # T, s
POINTS = dict(POINT_R=100, POINT_T=200, POINT_C=300, POINT_B=400, POINT_G=500)


def buckling_coefficient(tip_restrained=True):
    """γ of P_cr = γ sqrt(EJ_z GJ) / L² for lateral-torsional buckling of a cantilever under a
    vertical tip load applied at the centroid (no warping stiffness, thin strip).

    With s = 1 - x/L (0 at the tip), twist φ and lateral deflection v, equilibrium of the
    deformed beam gives EJ_z v'' = s (P φ + R) L and GJ φ' = -P (v + s v'), R the lateral
    force at the tip.  Free tip (R = 0, Timoshenko & Gere §6.3): φ'' + γ² s² φ = 0, φ = 0 at
    the root, φ' = 0 at the tip, γ = 4.013.  Here the tip is held sideways by the link (a
    0.25 m cantilever from the crank, lateral stiffness 3 EJ/ℓ³ ≈ 2.3e5 N/m against the beam's
    1.8e3 N/m): v(L) = 0 with R unknown; y = 1 + Pφ/R then satisfies y'' + γ² s² y = 0 with
    y' = 0 at both ends (φ = φ' = 0 at the root, ∫ s² y = 0 for v(L) = 0), γ = 6.982."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq

    def end_slope(g):
        rhs = lambda x, y: [y[1], -g * g * (1 - x) ** 2 * y[0]]
        y0 = [1.0, 0.0] if tip_restrained else [0.0, 1.0]
        return solve_ivp(rhs, [0.0, 1.0], y0, rtol=1e-12, atol=1e-14).y[1, -1]

    grid = np.linspace(1.0, 12.0, 111)
    vals = [end_slope(g) for g in grid]
    k = int(np.flatnonzero(np.sign(vals[:-1]) != np.sign(vals[1:]))[0])
    return brentq(end_slope, grid[k], grid[k + 1], xtol=1e-12)


def critical_load(beam=BEAM, tip_restrained=True):
    """Analytic critical tip load (N): γ sqrt(EJ_z GJ)/L² (buckling_coefficient)."""
    return buckling_coefficient(tip_restrained) * np.sqrt(beam.EJz * beam.GJ) / beam.length ** 2


def _num(x):
    return f"{x:.12e}"


def write_includes(folder, beam=BEAM, link=LINK, crank=CRANK, imperfection=IMPERFECTION, period=PERIOD,
                   damping=0.0):
    """Write lateralbuckling.set, .ref, .nod, .elm into `folder`."""
    parts = (beam, link, crank)
    nodes = sum(2 * p.elements + 1 for p in parts)
    lines = ["# written by mbdae cases/flexible/lateral_buckling.py", "",
             f"set: const integer N_BEAM_NODES = {nodes};",
             f"set: const integer N_BEAMS = {sum(p.elements for p in parts)};"]
    lines += [f"set: const integer {k} = {v};" for k, v in POINTS.items()]
    lines += [f"set: const integer {p.name} = {p.label};" for p in parts]
    lines += ["set: const integer BEAM_POINT_R = BEAM;",
              f"set: const integer BEAM_POINT_T = BEAM_POINT_R + {2 * beam.elements};",
              "set: const integer LINK_POINT_C = LINK;",
              f"set: const integer LINK_POINT_B = LINK_POINT_C + {2 * link.elements};",
              "set: const integer CRANK_POINT_B = CRANK;",
              f"set: const integer CRANK_POINT_G = CRANK_POINT_B + {2 * crank.elements};",
              f"set: const real D = {_num(imperfection)};"]
    for p in parts:
        for key in ("length", "EA", "GAy", "GAz", "GJ", "EJy", "EJz", "m", "J11", "J22", "J33"):
            name = {"length": "L", "m": "M", "GAy": "GAY", "GAz": "GAZ", "EJy": "EJY", "EJz": "EJZ"}.get(key, key)
            lines.append(f"set: const real {p.name}_{name} = {_num(getattr(p, key))};")
    lines += [f"set: real DAMPING_FACTOR = {_num(damping)};", f"set: real T = {_num(period)};"]
    _write(folder, "lateralbuckling.set", lines)

    def frame(label, base, offset, orientation="eye"):
        return [f"reference: {label},", f"    reference, {base}, {offset},", f"    reference, {base}, {orientation},",
                f"    reference, {base}, null,", f"    reference, {base}, null;"]
    ref = frame("POINT_R", "global", "null") + frame("POINT_T", "POINT_R", "BEAM_L, 0., 0.") \
        + frame("POINT_C", "POINT_T", "0., D, 0.") + frame("POINT_B", "POINT_C", "0., 0., -LINK_L") \
        + frame("POINT_G", "POINT_B", "-CRANK_L, 0., 0.") + frame("BEAM", "POINT_R", "null") \
        + frame("LINK", "POINT_C", "null", "1, 0., 0., -1., 2, 0., 1., 0.") \
        + frame("CRANK", "POINT_B", "null", "1, -1., 0., 0., 2, 0., 1., 0.")
    _write(folder, "lateralbuckling.ref", ref)

    nod = []
    for p in parts:
        dl = p.length / (2 * p.elements)
        for i in range(2 * p.elements + 1):
            nod += [f"structural: {p.name} + {i}, dynamic,", f"    reference, {p.name}, {_num(i * dl)}, 0., 0.,",
                    f"    reference, {p.name}, eye,", f"    reference, {p.name}, null,",
                    f"    reference, {p.name}, null;"]
    _write(folder, "lateralbuckling.nod", nod)

    elm = []
    for p in parts:
        n2 = 2 * p.elements
        dl = p.length / n2
        for i in range(n2 + 1):
            end = i in (0, n2)
            share = 0.5 if end else 1.0                      # fraction of a node's segment
            shift = (0.25 if i == 0 else -0.25) * dl if end else 0.0
            mass = share * p.m * dl
            seg = (share * p.m / 12.0) * (share * dl) ** 3      # as MBDyn's script writes it
            elm += [f"body: {p.name} + {i}, {p.name} + {i},", f"    {_num(mass)},",
                    f"    reference, node, {_num(shift)}, 0., 0.,",
                    f"    diag, {_num(share * p.J11 * dl)}, {_num(share * p.J22 * dl + seg)}, "
                    f"{_num(share * p.J33 * dl + seg)};"]
        elm += [f"constitutive law: {p.name}, 6, linear viscoelastic generic, diag,",
                f"    {p.name}_EA, {p.name}_GAY, {p.name}_GAZ, {p.name}_GJ, {p.name}_EJY, {p.name}_EJZ,",
                "    proportional, DAMPING_FACTOR;"]
        for e in range(1, p.elements + 1):
            elm += [f"beam3: {p.name} + {e},"]
            elm += [f"    {p.name} + {2 * e - 2 + k}, position, reference, node, null," for k in range(3)]
            elm += [f"    reference, {p.name}, eye,", f"    reference, {p.name},", "    same,", "    same;"]
    _write(folder, "lateralbuckling.elm", elm)


def _write(folder, name, lines):
    with open(os.path.join(folder, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def read(folder, deck=DECK, static=False, **params):
    """MBDyn's main deck read in place with the includes written into `folder`; with
    static=True, `model: static` (each time step a static equilibrium, engine/static.py)."""
    from mbdae.engine.io.mbdyn.deck import parse_deck
    from mbdae.engine.drivers.static import static_model
    if not os.path.isfile(deck):
        raise FileNotFoundError(f"MBDyn's lateral buckling deck not found: {deck}")
    write_includes(folder, **params)
    with open(deck) as f:
        d = parse_deck(f.read(), name="lateralbuckling", directory=folder, echo=lambda *a, **k: None)
    if static:
        d.model = static_model(d.model)
    return d


def tip_history(results):
    """(t, tip load P (N): the vertical force of the link on the beam tip, lateral displacement
    of the beam's mid-span node (m), twist of the tip section (rad))."""
    F, _ = results.joint(POINTS["POINT_C"])           # applied by the hinge to its node 2 (the link)
    mid = results.index(BEAM.label + BEAM.elements)
    tip = results.index(BEAM.label + 2 * BEAM.elements)
    R = results.R[:, tip]
    return results.t, -F[:, 2], results.x[:, mid, 1], np.arctan2(R[:, 2, 1], R[:, 1, 1])


def southwell(P, u, lo, hi):
    """Critical load from the Southwell plot of the imperfection growth u(P) = a (P/Pcr)/(1 - P/Pcr)
    + u0: u/P = u/Pcr + a/Pcr is linear in u for lo <= P <= hi; returns Pcr = 1/slope."""
    sel = (P >= lo) & (P <= hi)
    slope = np.polyfit(u[sel], u[sel] / P[sel], 1)[0]
    return 1.0 / slope


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--static", action="store_true", help="model: static (load steps)")
    ap.add_argument("--final-time", type=float, default=None)
    ap.add_argument("--step", type=float, default=None)
    ap.add_argument("--out", default=None, help="output prefix (MBDyn-style files)")
    a = ap.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="lateralbuckling-")
    deck = read(folder, static=a.static)
    over = {k: v for k, v in (("final_time", a.final_time), ("time_step", a.step)) if v is not None}
    r = deck.run(a.out, **over)
    t, P, u, twist = tip_history(r)
    print(f"analytic critical tip load {critical_load():.0f} N (free tip: {critical_load(tip_restrained=False):.0f} N)")
    print("     t (s)     P (N)   mid-span lateral displacement (mm)   tip twist (rad)")
    for k in range(0, len(t), max(1, len(t) // 40)):
        print(f"{t[k]:10.4f} {P[k]:9.1f} {1e3 * u[k]:14.4f} {twist[k]:22.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
