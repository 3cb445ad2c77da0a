"""The two test cases of MBS4WEC (seed 004) with data stated here, since the paper gives none:

* T1: three hinged barges in a chain along x (2 revolute joints about global y in the still
  water plane, mooring matrices on the root barge 1, a linear damper on each hinge as PTO);
* T2: a heaving vertical cylinder (buoy) with an internal reaction mass on a prismatic joint
  along its axis, a preloaded spring and a damper (PTO) between them, mooring on the buoy.

The wave of the paper: regular, H = 6 m, period 6.8966 s (the paper's "f"), travelling along +x.

The geometry is plain data (T1, T2 below: dimensions, drafts, masses in floating equilibrium,
inertias, joint points, spring and damper points, mooring matrices) so that a BEM computation
(Capytaine, from the hull descriptions `hulls`) and mbdae's DAE model use the same numbers.
Global frame: z up, still water at z = 0, SI units.  "bodies": name, mass, inertia about the CM
(body axes = global axes at rest), "cm".  "hulls" (the wet ones): "shape" "box" (length along x,
beam along y, height, draft) or "cylinder" (radius, height, draft; axis vertical), "centre" (the
point of the hull's vertical axis in the still water plane), "reference_point" (where the BEM
forces and moments are taken and its rotations are centred), "displaced_volume".  "joints":
kind, the two bodies, a point and an axis at rest.
`approximate_hydro` builds a HydroData by hand for these hulls in deep water: exact hydrostatics,
Froude–Krylov excitation by Gauss quadrature over the wetted surface, radiation damping from the
Haskind relation applied to that excitation, and frequency-independent added mass from strip and
disk estimates.  It is an approximation (no diffraction, no frequency dependence of the added
mass), used by the tests and as the default; pass the BEM HydroData of the same hulls for real
coefficients.

    python cases/marine/wec_cases.py t1 [--height 6] [--time 200] [--hydro capytaine]
"""
import argparse
import dataclasses
import math
import os
import sys

import numpy as np

from mbdae.engine.core.hydro_data import HydroData
from mbdae.engine.core.hydro_files import compute_hydro_data

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mbs4wec as mb  # noqa: E402

RHO, G = 1025.0, 9.81
WAVE_HEIGHT, WAVE_PERIOD = 6.0, 6.8966        # the paper's regular wave ("f = 6.8966 s")
WAVE_OMEGA = 2.0 * math.pi / WAVE_PERIOD      # 0.91106 rad/s


def _box_inertia(m, a, b, c):
    """Homogeneous box of sides a (x), b (y), c (z) about its centre."""
    return m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


# ---------------------------------------------------------------------- T1: three hinged barges
# Each barge: a homogeneous box 30 m × 10 m × 5 m of density ρ/2, floating at draft 2.5 m with
# its centre (the CM) in the still water plane; a 1 m gap between barges, the hinges at the
# middle of the gaps, in the still water plane, axes along global y.  Global frame = the middle
# barge's CM frame (the paper's b2).  Roll stability: GM = z_B + B²/(12T) − z_G = 2.08 m.
_L, _B, _H, _T, _GAP = 30.0, 10.0, 5.0, 2.5, 1.0
_MB = RHO * _L * _B * _T                                # 768 750 kg, = ρ × displaced volume
_XC = (-(_L + _GAP), 0.0, _L + _GAP)
T1 = {
    "bodies": [{"name": f"barge{i + 1}", "mass": _MB, "inertia": _box_inertia(_MB, _L, _B, _H),
                "cm": [x, 0.0, 0.0]} for i, x in enumerate(_XC)],
    "hulls": [{"name": f"barge{i + 1}", "shape": "box", "length": _L, "beam": _B, "height": _H,
               "draft": _T, "centre": [x, 0.0, 0.0], "reference_point": [x, 0.0, 0.0],
               "displaced_volume": _L * _B * _T} for i, x in enumerate(_XC)],
    "joints": [{"kind": "revolute", "bodies": ("barge1", "barge2"), "point": [-(_L + _GAP) / 2, 0.0, 0.0],
                "axis": [0.0, 1.0, 0.0]},
               {"kind": "revolute", "bodies": ("barge2", "barge3"), "point": [(_L + _GAP) / 2, 0.0, 0.0],
                "axis": [0.0, 1.0, 0.0]}],
    "root": "barge1",
    # WEC-11 on the root's CM: surge/sway 3e4 N/m (surge period of the chain ≈ 56 s), yaw 1e7 N m/rad
    "mooring": {"body": "barge1", "stiffness": np.diag([3.0e4, 3.0e4, 0.0, 0.0, 0.0, 1.0e7]),
                "damping": np.diag([1.0e5, 1.0e5, 0.0, 0.0, 0.0, 1.0e7])},
    "hinge_pto_damping": 5.0e7,                         # N m s/rad on each hinge
}

# ---------------------------------------------------------------------- T2: buoy with a reaction mass
def t2_data(radius=7.0, draft=5.0, freeboard=3.0, buoy_cm=-4.0, buoy_gyration=3.5, mass2=1.2e5, mass2_cm=-1.5,
            mass2_radius=2.5, mass2_height=1.0, omega_internal=0.9, pto_damping=3.0e5):
    """T2's data (defaults: a float 14 m across, draft 5 m, ballasted low: GM = 3.6 m).  Buoy:
    vertical cylinder (radius, draft, freeboard); its frame b1 (the hydrodynamic reference
    point) at the still water plane on the axis, the global frame = b1 at t = 0.  The reaction
    mass (a solid cylinder mass2_radius × mass2_height) slides on the axis (prismatic joint, z);
    a preloaded spring (k = m₂ ω_internal², free length l0 = l_eq + m₂g/k, as a gas spring) from
    the buoy's keel to the mass's underside holds it at mass2_cm; a damper (the PTO) from the
    buoy's top anchor (0.5 m below the deck) to the mass's top.  Buoy mass = ρ × displaced
    volume − mass2.  The spring and damper lengths must stay well above zero over the stroke
    (no end stops are modelled)."""
    vol = math.pi * radius ** 2 * draft
    m1 = RHO * vol - mass2
    k = mass2 * omega_internal ** 2
    low, mass_low = -draft, mass2_cm - mass2_height / 2
    top, mass_top = freeboard - 0.5, mass2_cm + mass2_height / 2
    rg2 = buoy_gyration ** 2
    jr = (3 * mass2_radius ** 2 + mass2_height ** 2) / 12
    return {
        "bodies": [{"name": "buoy", "mass": m1, "inertia": m1 * np.diag([rg2, rg2, rg2]), "cm": [0.0, 0.0, buoy_cm]},
                   {"name": "mass", "mass": mass2, "inertia": mass2 * np.diag([jr, jr, mass2_radius ** 2 / 2]),
                    "cm": [0.0, 0.0, mass2_cm]}],
        "hulls": [{"name": "buoy", "shape": "cylinder", "radius": radius, "draft": draft, "height": draft + freeboard,
                   "centre": [0.0, 0.0, 0.0], "reference_point": [0.0, 0.0, 0.0], "displaced_volume": vol}],
        "joints": [{"kind": "prismatic", "bodies": ("buoy", "mass"), "point": [0.0, 0.0, mass2_cm],
                    "axis": [0.0, 0.0, 1.0]}],
        "root": "buoy",
        "spring": {"points": ([0.0, 0.0, low], [0.0, 0.0, mass_low]), "stiffness": k,
                   "free_length": (mass_low - low) + mass2 * G / k},
        "damper": {"points": ([0.0, 0.0, top], [0.0, 0.0, mass_top]), "damping": pto_damping},
        "mooring": {"body": "buoy", "point": [0.0, 0.0, 0.0],
                    "stiffness": np.diag([2.0e4, 2.0e4, 0.0, 0.0, 0.0, 1.0e6]),
                    "damping": np.diag([5.0e4, 5.0e4, 0.0, 0.0, 0.0, 1.0e6])},
    }


T2 = t2_data()


# ---------------------------------------------------------------------- hand-made hydrodynamics
def _gauss(a, b, n):
    x, w = np.polynomial.legendre.leggauss(n)
    return 0.5 * (b - a) * x + 0.5 * (b + a), 0.5 * (b - a) * w


def wetted_surface(hull, n=24):
    """Quadrature points, weights and outward unit normals of the wetted surface (z ≤ 0)."""
    cx, cy, _ = hull["centre"]
    T = hull["draft"]
    pts, wts, nrm = [], [], []

    def face(P, W, N):
        pts.append(P)
        wts.append(W)
        nrm.append(np.broadcast_to(N, P.shape))

    zs, wz = _gauss(-T, 0.0, n)
    if hull["shape"] == "box":
        L, B = hull["length"], hull["beam"]
        xs, wx = _gauss(cx - L / 2, cx + L / 2, n)
        ys, wy = _gauss(cy - B / 2, cy + B / 2, n)
        X, Y = np.meshgrid(xs, ys, indexing="ij")
        face(np.stack([X.ravel(), Y.ravel(), np.full(X.size, -T)], 1), np.outer(wx, wy).ravel(), [0, 0, -1.0])
        for sgn in (-1.0, 1.0):
            Y, Z = np.meshgrid(ys, zs, indexing="ij")
            face(np.stack([np.full(Y.size, cx + sgn * L / 2), Y.ravel(), Z.ravel()], 1),
                 np.outer(wy, wz).ravel(), [sgn, 0, 0])
            X, Z = np.meshgrid(xs, zs, indexing="ij")
            face(np.stack([X.ravel(), np.full(X.size, cy + sgn * B / 2), Z.ravel()], 1),
                 np.outer(wx, wz).ravel(), [0, sgn, 0])
    elif hull["shape"] == "cylinder":
        a = hull["radius"]
        th = 2 * np.pi * np.arange(2 * n) / (2 * n)
        wth = np.full(2 * n, 2 * np.pi / (2 * n))
        rs, wr = _gauss(0.0, a, n)
        Rr, Th = np.meshgrid(rs, th, indexing="ij")
        face(np.stack([cx + (Rr * np.cos(Th)).ravel(), cy + (Rr * np.sin(Th)).ravel(), np.full(Rr.size, -T)], 1),
             np.outer(wr * rs, wth).ravel(), [0, 0, -1.0])
        Th, Z = np.meshgrid(th, zs, indexing="ij")
        P = np.stack([cx + a * np.cos(Th).ravel(), cy + a * np.sin(Th).ravel(), Z.ravel()], 1)
        pts.append(P)
        wts.append(a * np.outer(wth, wz).ravel())
        nrm.append(np.stack([np.cos(Th).ravel(), np.sin(Th).ravel(), np.zeros(Th.size)], 1))
    else:
        raise ValueError(f"hull '{hull['name']}': shape '{hull['shape']}' is not box or cylinder")
    return np.concatenate(pts), np.concatenate(wts), np.concatenate(nrm)


def hydrostatics(hull, rho=RHO, g=G):
    """C (6×6) about the reference point: buoyancy and waterplane terms only (WAMIT's form)."""
    ox, oy, oz = hull["reference_point"]
    cx, cy, _ = hull["centre"]
    T = hull["draft"]
    if hull["shape"] == "box":
        L, B = hull["length"], hull["beam"]
        S, Sxx, Syy = L * B, B * L ** 3 / 12, L * B ** 3 / 12
    else:
        a = hull["radius"]
        S = math.pi * a * a
        Sxx = Syy = math.pi * a ** 4 / 4
    V = S * T
    dx, dy, zb = cx - ox, cy - oy, -T / 2 - oz
    C = np.zeros((6, 6))
    C[2, 2] = rho * g * S
    C[2, 3] = C[3, 2] = rho * g * S * dy
    C[2, 4] = C[4, 2] = -rho * g * S * dx
    C[3, 3] = rho * g * (Syy + S * dy * dy + V * zb)
    C[4, 4] = rho * g * (Sxx + S * dx * dx + V * zb)
    C[3, 4] = C[4, 3] = -rho * g * S * dx * dy
    C[3, 5] = -rho * g * V * dx
    C[4, 5] = -rho * g * V * dy
    return C, V


def added_mass_estimate(hull, rho=RHO):
    """Frequency-independent added mass (6×6 about the reference point) from strip and disk
    estimates: box — a half-immersed flat plate per strip in heave (ρπb²/2 per metre), a vertical
    plate of depth T in surge and sway (ρπT²/2 per metre of width); cylinder — a disk at the
    free surface in heave (4ρa³/3), a circle per strip in surge and sway (ρπa² per metre of
    depth); rotations from the strips' lever arms."""
    T = hull["draft"]
    A = np.zeros((6, 6))
    if hull["shape"] == "box":
        L, B = hull["length"], hull["beam"]
        A[0, 0] = rho * math.pi * T * T / 2 * B
        A[1, 1] = rho * math.pi * T * T / 2 * L
        A[2, 2] = rho * math.pi * B * B / 8 * L
        A[3, 3] = rho * math.pi * (B / 2) ** 4 / 16 * L + A[1, 1] * T * T / 3
        A[4, 4] = A[2, 2] * L * L / 12 + A[0, 0] * T * T / 3
        A[5, 5] = A[1, 1] * L * L / 12 + A[0, 0] * B * B / 12
        A[0, 4] = A[4, 0] = -A[0, 0] * T / 2
        A[1, 3] = A[3, 1] = A[1, 1] * T / 2
    else:
        a = hull["radius"]
        A[0, 0] = A[1, 1] = rho * math.pi * a * a * T
        A[2, 2] = 4.0 * rho * a ** 3 / 3.0
        A[3, 3] = A[4, 4] = rho * math.pi * a * a * T ** 3 / 3 + 8.0 * rho * a ** 5 / 45.0
        A[0, 4] = A[4, 0] = -A[0, 0] * T / 2
        A[1, 3] = A[3, 1] = A[0, 0] * T / 2
    # the estimates are about the waterline point above the hull centre; carry them to o
    wl = np.array([hull["centre"][0], hull["centre"][1], 0.0])
    Tm = mb.transport(wl - np.asarray(hull["reference_point"], dtype=float))
    return Tm.T @ A @ Tm


def froude_krylov(hulls, omega, headings, rho=RHO, g=G, n=24):
    """X(β, ω) (nβ, 6N) per unit amplitude of the incident wave η = Re[e^{i(ωt − k(x cosβ +
    y sinβ))}] in deep water: −∫ p n_j dS with p = ρ g e^{kz} e^{−ik(x cosβ + y sinβ)}."""
    k = omega * omega / g
    headings = np.asarray(headings, dtype=float)
    X = np.zeros((len(headings), 6 * len(hulls)), dtype=complex)
    for b, hull in enumerate(hulls):
        P, W, N = wetted_surface(hull, n)
        arm = P - np.asarray(hull["reference_point"], dtype=float)
        gen = np.concatenate([N, np.cross(arm, N)], axis=1)          # generalized normals
        phase = np.exp(-1j * k * (np.outer(np.cos(headings), P[:, 0]) + np.outer(np.sin(headings), P[:, 1])))
        X[:, 6 * b:6 * b + 6] = -(phase * (rho * g * np.exp(k * P[:, 2]) * W)) @ gen
    return X


def approximate_hydro(hulls, omegas, headings=(0.0,), rho=RHO, g=G, n_beta=72):
    """A HydroData for these hulls (deep water) built by hand: hydrostatics exact, excitation
    Froude–Krylov, radiation damping from the Haskind relation on that excitation,
    B_ij(ω) = k/(8πρg c_g) ∫ Re[X_i X_j*] dβ with c_g = g/(2ω), added mass from strip estimates."""
    omegas = np.asarray(omegas, dtype=float)
    nb = len(hulls)
    n6 = 6 * nb
    betas = 2 * np.pi * np.arange(n_beta) / n_beta
    A = np.zeros((n6, n6))
    C = np.zeros((n6, n6))
    vol = np.zeros(nb)
    for b, hull in enumerate(hulls):
        A[6 * b:6 * b + 6, 6 * b:6 * b + 6] = added_mass_estimate(hull, rho)
        C[6 * b:6 * b + 6, 6 * b:6 * b + 6], vol[b] = hydrostatics(hull, rho, g)
    Bw = np.zeros((len(omegas), n6, n6))
    Xw = np.zeros((len(headings), len(omegas), n6), dtype=complex)
    for iw, w in enumerate(omegas):
        k, cg = w * w / g, g / (2 * w)
        Xall = froude_krylov(hulls, w, betas, rho, g)
        Bw[iw] = k / (8 * np.pi * rho * g * cg) * np.real(Xall.T @ Xall.conj()) * (2 * np.pi / n_beta)
        Xw[:, iw, :] = froude_krylov(hulls, w, headings, rho, g)
    cob = np.array([[h["centre"][0], h["centre"][1], -h["draft"] / 2] for h in hulls])
    return HydroData(omega=omegas, added_mass=np.broadcast_to(A, (len(omegas), n6, n6)).copy(),
                     radiation_damping=Bw, added_mass_infinite=A, hydrostatic_stiffness=C,
                     headings=np.asarray(headings, dtype=float), excitation=Xw,
                     reference_points=np.array([h["reference_point"] for h in hulls], dtype=float),
                     body_names=tuple(h["name"] for h in hulls), displaced_volume=vol,
                     centre_of_buoyancy=cob, rho=rho, g=g,
                     source="wec_cases.approximate_hydro (Froude-Krylov + Haskind + strip added mass)").check()


def capytaine_hydro(hulls, omegas, headings=(0.0,), rho=RHO, g=G, panel=1.0, cache=True, lid=False):
    """The same HydroData from Capytaine (optional extra mbdae[hydro]) through the data layer's
    `compute_hydro_data` (engine/core/hydro_files.py, NetCDF cache): the hulls meshed with panels
    of about `panel` m, all bodies in one problem (interaction included), deep water, each
    reference point at the hull's centre in the still water plane; the excitation conjugated
    to HydroData's e^{iωt} by the data layer.  The hydrostatics, displaced volumes and centres
    of buoyancy are replaced by the exact ones of `hydrostatics` (the mesh's polygonal
    waterline gives a volume 0.3 % short for T2's cylinder, which the masses do not balance)."""
    specs = []
    for h in hulls:
        if h["shape"] == "box":
            spec = {"shape": "box", "length": h["length"], "width": h["beam"], "draft": h["draft"]}
        else:
            spec = {"shape": "cylinder", "radius": h["radius"], "draft": h["draft"]}
        spec.update(position=tuple(h["centre"][:2]), panel_size=panel, name=h["name"])
        specs.append(spec)
    data = compute_hydro_data(specs, omegas, headings=headings, rho=rho, g=g, cache=cache, lid=lid,
                              reference_points=[h["reference_point"] for h in hulls])
    n6 = 6 * len(hulls)
    C = np.zeros((n6, n6))
    vol = np.zeros(len(hulls))
    for b, h in enumerate(hulls):
        C[6 * b:6 * b + 6, 6 * b:6 * b + 6], vol[b] = hydrostatics(h, rho, g)
    cob = np.array([[h["centre"][0], h["centre"][1], -h["draft"] / 2] for h in hulls])
    return dataclasses.replace(data, hydrostatic_stiffness=C, displaced_volume=vol, centre_of_buoyancy=cob).check()


def frequency_grid(omega=WAVE_OMEGA, lo=0.2, hi=2.5, step=0.1):
    """A grid from lo to hi that contains ω exactly."""
    w = np.arange(lo, hi + 1e-9, step)
    return np.unique(np.concatenate([w[np.abs(w - omega) > 1e-6], [omega]]))


# ---------------------------------------------------------------------- building the models
def _bodies(case):
    return [mb.Body(b["name"], b["mass"], b["inertia"], b["cm"]) for b in case["bodies"]]


def _joints(case):
    return [mb.Joint(j["kind"], j["bodies"][0], j["bodies"][1], j["point"], j["axis"]) for j in case["joints"]]


def _wave(height, period, heading=0.0):
    return mb.regular_wave(height, period, heading, g=G)


def build_t1(hydro=None, height=WAVE_HEIGHT, period=WAVE_PERIOD, pto_damping=None, ramp=0.0, data=None):
    """T1: the three hinged barges in the paper's regular wave (heading 0, along the chain)."""
    c = T1 if data is None else data
    model = mb.JointCoordinateModel(_bodies(c), _joints(c), roots=[c["root"]], gravity=G)
    wave = _wave(height, period)
    hydro = approximate_hydro(c["hulls"], frequency_grid(wave.omega[0])) if hydro is None else hydro
    model.add(mb.HydroLoads(hydro, [h["name"] for h in c["hulls"]], wave,
                            displaced_volume=[h["displaced_volume"] for h in c["hulls"]], ramp=ramp))
    m = c["mooring"]
    model.add(mb.LinearMooring(m["body"], m["stiffness"], m["damping"]))
    b = c["hinge_pto_damping"] if pto_damping is None else pto_damping
    for name in ("barge2", "barge3"):
        model.add(mb.JointSpringDamper(name, damping=b, name=f"pto_{name}"))
    return model


def build_t2(hydro=None, height=WAVE_HEIGHT, period=WAVE_PERIOD, pto_damping=None, ramp=0.0, data=None):
    """T2: the buoy with its sliding reaction mass in the paper's regular wave."""
    c = T2 if data is None else data
    model = mb.JointCoordinateModel(_bodies(c), _joints(c), roots=[c["root"]], gravity=G)
    wave = _wave(height, period)
    hydro = approximate_hydro(c["hulls"], frequency_grid(wave.omega[0])) if hydro is None else hydro
    model.add(mb.HydroLoads(hydro, ["buoy"], wave, displaced_volume=[c["hulls"][0]["displaced_volume"]],
                            ramp=ramp))
    m = c["mooring"]
    model.add(mb.LinearMooring(m["body"], m["stiffness"], m["damping"], point=m["point"]))
    s, d = c["spring"], c["damper"]
    model.add(mb.SpringDamper("buoy", s["points"][0], "mass", s["points"][1], s["stiffness"], s["free_length"],
                              0.0, name="spring"))
    b = d["damping"] if pto_damping is None else pto_damping
    p1, p2 = d["points"]
    model.add(mb.SpringDamper("buoy", p1, "mass", p2, 0.0, abs(p2[2] - p1[2]), b, name="pto"))
    return model


def pto_power(model, lin):
    """Mean absorbed power of every PTO damper of the model in the linear solution, W."""
    out = {}
    for e in model.elements:
        if isinstance(e, (mb.JointSpringDamper, mb.SpringDamper)) and e.b > 0.0:
            out[e.name] = e.mean_power(lin)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", choices=["t1", "t2"])
    ap.add_argument("--height", type=float, default=WAVE_HEIGHT)
    ap.add_argument("--period", type=float, default=WAVE_PERIOD)
    ap.add_argument("--time", type=float, default=0.0, help="also integrate the nonlinear model this long, s")
    ap.add_argument("--hydro", choices=["approximate", "capytaine"], default="approximate",
                    help="hand-made coefficients (default) or Capytaine's BEM (optional extra)")
    args = ap.parse_args(argv)
    build, data = (build_t1, T1) if args.case == "t1" else (build_t2, T2)
    w = 2 * math.pi / args.period
    grid = [0.9 * w, w, 1.1 * w]
    hydro = (capytaine_hydro if args.hydro == "capytaine" else approximate_hydro)(data["hulls"], grid)
    model = build(hydro=hydro, height=args.height, period=args.period, ramp=3 * args.period)
    lin = model.linearize(w)
    lin.solve()
    xi = lin.body_motion()
    print(f"{args.case}: H = {args.height} m, T = {args.period} s, ω = {w:.5f} rad/s; {hydro.source}; "
          f"static residual {model.static_residual():.1e}")
    print("linear (frequency domain) amplitudes of the CMs: surge [m], heave [m], pitch [deg]")
    for i, name in enumerate(model.names):
        print(f"  {name:8s} {abs(xi[i, 0]):8.4f} {abs(xi[i, 2]):8.4f} {math.degrees(abs(xi[i, 4])):8.3f}")
    for i, name in enumerate(model.names):
        if model.parent[i] >= 0:
            x = abs(lin.X[model.sdof[i][0]])
            unit = f"{math.degrees(x):.3f} deg" if model.jkind[i] == "revolute" else f"{x:.4f} m"
            print(f"  joint {model.names[model.parent[i]]}-{name} ({model.jkind[i]}): {unit}")
    for name, p in pto_power(model, lin).items():
        print(f"  PTO {name}: mean absorbed power {p / 1e3:.1f} kW (linear)")
    if args.time > 0:
        nper = 3
        t_end = args.time
        t = np.linspace(t_end - nper * args.period, t_end, 60 * nper + 1)
        sol = model.simulate(t_end, t_eval=t, rtol=1e-7)
        mot = sol.body_motion()
        print("nonlinear (MBS4WEC, RK45) first harmonics over the last 3 periods:")
        for i, name in enumerate(model.names):
            amps = [abs(mb.first_harmonic(t, mot[:, i, c], w)[0]) for c in (0, 2, 4)]
            print(f"  {name:8s} {amps[0]:8.4f} {amps[1]:8.4f} {math.degrees(amps[2]):8.3f}")
        q = sol.coordinates()
        for i, name in enumerate(model.names):
            if model.parent[i] >= 0:
                x = abs(mb.first_harmonic(t, q[model.qdof[i][0]], w)[0])
                unit = f"{math.degrees(x):.3f} deg" if model.jkind[i] == "revolute" else f"{x:.4f} m"
                print(f"  joint {model.names[model.parent[i]]}-{name} ({model.jkind[i]}): {unit}")
        work = sol.work()
        for e in model.elements:
            if isinstance(e, (mb.JointSpringDamper, mb.SpringDamper)) and e.b > 0.0:
                W = work[f"{e.name}:damper"]
                print(f"  PTO {e.name}: mean absorbed power {-(W[-1] - W[0]) / (t[-1] - t[0]) / 1e3:.1f} kW (nonlinear)")


if __name__ == "__main__":
    main()
