"""The shells (shell4eas, shell4easans) on the standard benchmarks, against published values.

Linear (the exact linear finite-element solution: one Newton step from the reference on the
free unknowns, the loads applied as consistent nodal forces):
- Scordelis-Lo roof: R = 25, L = 50, 2 × 40°, t = 0.25, E = 4.32e8, ν = 0, self-weight 90
  per unit area, ends on rigid diaphragms; vertical displacement at the middle of the free edge
  0.3024 (Belytschko et al., CMAME 51 (1985) 221-258, the deep-shell value also used by
  Simo, Fox & Rifai, CMAME 73 (1989) 53-92; MacNeal & Harder, FEAD 1 (1985) 3-20, quote 0.3086);
- pinched cylinder with rigid end diaphragms: R = 300, L = 600, t = 3, E = 3e6, ν = 0.3,
  two opposite unit loads at mid-length; displacement under the load 1.8248e-5 (Flügge's
  series solution as quoted by MacNeal & Harder 1985 and Belytschko et al. 1985);
- pinched hemisphere with an 18° hole: R = 10, t = 0.04, E = 6.825e7, ν = 0.3, four
  alternating radial loads of 2 on the equator; radial displacement under a load 0.094
  (MacNeal & Harder 1985; later converged values 0.093-0.0924);
- MacNeal-Harder twisted beam: L = 12, w = 1.1, t = 0.32, 90° twist, E = 29e6, ν = 0.22,
  unit tip loads; displacement along the load 5.424e-3 (in the tip's plane) and 1.754e-3
  (normal to it) (MacNeal & Harder 1985).

Large rotation (the static driver, load steps):
- Sze, Liu & Lo, FEAD 40 (2004) 1551-1569, §3.1 cantilever under an end shear force
  (L = 10, b = 1, h = 0.1, E = 1.2e6, ν = 0, P_max = 4; their Table for the 16 × 1 mesh);
- Sze et al. §3.3 slit annular plate under a lifting line force (R_i = 6, R_o = 10, h = 0.03,
  E = 21e6, ν = 0, q_max = 0.8; their Table, 10 × 80 mesh; CI runs 6 × 30 at two loads).

Eigenanalysis: a simply supported and a free-free square plate against Kirchhoff's
frequencies (Leissa, Vibration of Plates, NASA SP-160, 1969).

Run with -s to see the errors per mesh; MBDAE_LONG=1 adds the finest meshes."""
import os

import numpy as np
import pytest
from scipy.interpolate import CubicSpline
from scipy.sparse.linalg import spsolve

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.drivers.static import StaticProblem
from mbdae.engine.drivers.eigen import EigenSettings, analyze
from mbdae.engine.io.mbdyn.deck import parse_deck
from mbdae.elements.shell import isotropic_shell_law
from mbdae.elements.shell_meshes import (rectangle_mesh, cylinder_mesh, hemisphere_mesh, twisted_strip_mesh,
                                         annulus_mesh, nodal_loads)

LONG = os.environ.get("MBDAE_LONG") == "1"
KINDS = ("shell4eas", "shell4easans")
VARIANTS = pytest.mark.parametrize("mbdyn", [True, False], ids=["mbdyn", "consistent"])
X_, Y_, Z_ = 0, 1, 2


# ---------------------------------------------------------------------- helpers
def shell_model(X, quads, D, kind, node_kind="static", mbdyn=True):
    """Structural node k + 1 at point k (identity orientation), shell e + 1 on quads[e]
    (mbdyn: MBDyn's element, else the consistent variant)."""
    m = Model()
    for k, x in enumerate(np.asarray(X, float)):
        m.structural_node(k + 1, node_kind, position=x)
    for e, q in enumerate(quads):
        m.shell(e + 1, [int(p) + 1 for p in q], D, kind=kind, mbdyn=mbdyn)
    return m


class Constraints:
    """Fixed translation (x) and rotation (g) components of the nodes, by point index."""

    def __init__(self, n):
        self.x = np.zeros((n, 3), bool)
        self.g = np.zeros((n, 3), bool)

    def fix(self, where, translations=(), rotations=()):
        for k in translations:
            self.x[where, k] = True
        for k in rotations:
            self.g[where, k] = True

    def symmetry(self, where, normal):
        """A symmetry plane of normal axis `normal`: no translation along it, no rotation
        about the two axes in the plane."""
        self.fix(where, (normal,), [k for k in range(3) if k != normal])


def linear_response(system, constraints, F):
    """Displacements (n, 3) and rotations (n, 3) of the linear static response to the nodal
    forces F (n, 3): K Δ = F on the free unknowns at the reference (every other unknown, the
    EAS parameters included, free)."""
    st = system.initial_state(0.0)
    f, _, J = system.evaluate(st, 1.0)
    nodes = system.nodes
    assert np.array_equal(nodes.labels, np.arange(1, nodes.n + 1))
    rhs = -f.copy()
    rhs[nodes.ix] += F
    keep = np.ones(system.n, bool)
    keep[nodes.ix[constraints.x]] = False
    keep[nodes.ig[constraints.g]] = False
    free = np.flatnonzero(keep)
    d = np.zeros(system.n)
    d[free] = spsolve(J.tocsr()[free][:, free].tocsc(), rhs[free])
    return d[nodes.ix], d[nodes.ig]


def variant(mbdyn):
    return "MBDyn's" if mbdyn else "consistent"


def report(name, rows):
    print(f"\n{name}")
    for mesh, value, reference in rows:
        print(f"  {mesh:>8}: {value:.6g}  (reference {reference:.6g}, error {value / reference - 1:+.2%})")


# ---------------------------------------------------------------------- Scordelis-Lo
def scordelis_lo(n, kind, mbdyn=True):
    """Quarter of the roof: x in [0, 25] (x = 0 mid-span), φ in [0, 40°] (φ = 0 crown)."""
    R, half_length, t, E, nu, weight = 25.0, 25.0, 0.25, 4.32e8, 0.0, 90.0
    X, quads, lat = cylinder_mesh(R, 0.0, half_length, 0.0, np.radians(40.0), n, n)
    D = isotropic_shell_law(E=E, nu=nu, thickness=t)
    system = System(shell_model(X, quads, D, kind, mbdyn=mbdyn))
    c = Constraints(len(X))
    c.fix(lat[:, 0] == n, (Y_, Z_), (X_,))          # rigid diaphragm
    c.symmetry(lat[:, 0] == 0, X_)                  # mid-span
    c.symmetry(lat[:, 1] == 0, Y_)                  # crown
    F = nodal_loads(X, quads, (0.0, 0.0, -weight))
    # the loads on the symmetry-plane halves: nodal_loads integrates over the modelled part
    u, _ = linear_response(system, c, F)
    corner = np.flatnonzero((lat[:, 0] == 0) & (lat[:, 1] == n))[0]
    return -u[corner, Z_]


@VARIANTS
@pytest.mark.parametrize("kind", KINDS)
def test_scordelis_lo_roof(kind, mbdyn):
    meshes = (4, 8, 16, 32) if LONG else (4, 8, 16)
    ref = 0.3024
    values = [scordelis_lo(n, kind, mbdyn) for n in meshes]
    report(f"Scordelis-Lo roof, {kind}, {variant(mbdyn)}", [(f"{n}x{n}", v, ref) for n, v in zip(meshes, values)])
    errors = np.abs(np.array(values) / ref - 1)
    assert errors[-1] < (0.01 if LONG else 0.02)
    assert errors[-1] < errors[0]


# ---------------------------------------------------------------------- pinched cylinder
def pinched_cylinder(n, kind, mbdyn=True):
    """Octant: x in [0, 300] (x = 0 the loaded section), φ in [0, 90°] from the +z crown."""
    R, half_length, t, E, nu, P = 300.0, 300.0, 3.0, 3e6, 0.3, 1.0
    X, quads, lat = cylinder_mesh(R, 0.0, half_length, 0.0, np.pi / 2, n, n)
    D = isotropic_shell_law(E=E, nu=nu, thickness=t)
    system = System(shell_model(X, quads, D, kind, mbdyn=mbdyn))
    c = Constraints(len(X))
    c.fix(lat[:, 0] == n, (Y_, Z_), (X_,))          # rigid diaphragm
    c.symmetry(lat[:, 0] == 0, X_)
    c.symmetry(lat[:, 1] == 0, Y_)
    c.symmetry(lat[:, 1] == n, Z_)
    load = np.flatnonzero((lat[:, 0] == 0) & (lat[:, 1] == 0))[0]
    F = np.zeros_like(X)
    F[load, Z_] = -P / 4
    u, _ = linear_response(system, c, F)
    return -u[load, Z_]


@VARIANTS
@pytest.mark.parametrize("kind", KINDS)
def test_pinched_cylinder(kind, mbdyn):
    meshes = (8, 16, 32, 64) if LONG else (8, 16, 32)
    ref = 1.8248e-5
    values = [pinched_cylinder(n, kind, mbdyn) for n in meshes]
    report(f"Pinched cylinder, {kind}, {variant(mbdyn)}", [(f"{n}x{n}", v, ref) for n, v in zip(meshes, values)])
    errors = np.abs(np.array(values) / ref - 1)
    # under a point load a shear-deformable shell converges slightly above Flügge's thin-shell
    # value (64 x 64: +1.35 % shell4eas, +0.44 % shell4easans)
    assert errors[-1] < 0.02
    assert np.all(np.diff(errors[:3]) < 0)


# ---------------------------------------------------------------------- pinched hemisphere
def pinched_hemisphere(n, kind, mbdyn=True):
    """Quarter with the 18° hole: a unit outward load at (R, 0, 0) and a unit inward one at
    (0, R, 0) (half of the loads of 2 on the symmetry planes)."""
    R, t, E, nu, P = 10.0, 0.04, 6.825e7, 0.3, 1.0
    X, quads, lat = hemisphere_mesh(R, np.radians(18.0), np.pi / 2, n, n)
    D = isotropic_shell_law(E=E, nu=nu, thickness=t)
    system = System(shell_model(X, quads, D, kind, mbdyn=mbdyn))
    c = Constraints(len(X))
    c.symmetry(lat[:, 0] == 0, Y_)                  # azimuth 0: the plane y = 0
    c.symmetry(lat[:, 0] == n, X_)                  # azimuth 90°: the plane x = 0
    equator = lat[:, 1] == 0                        # v = -θ runs from the equator to the hole
    a = np.flatnonzero(equator & (lat[:, 0] == 0))[0]
    b = np.flatnonzero(equator & (lat[:, 0] == n))[0]
    c.fix([a], (Z_,))                               # the rigid translation along z
    F = np.zeros_like(X)
    F[a, X_] = P
    F[b, Y_] = -P
    u, _ = linear_response(system, c, F)
    return u[a, X_], -u[b, Y_]


@VARIANTS
@pytest.mark.parametrize("kind", KINDS)
def test_pinched_hemisphere(kind, mbdyn):
    meshes = (8, 16, 32, 64) if LONG else (8, 16, 32)
    ref = 0.094
    values = [pinched_hemisphere(n, kind, mbdyn) for n in meshes]
    for ua, ub in values:
        assert abs(ua - ub) < 1e-6 * ua          # the two loaded points move alike (symmetry)
    report(f"Pinched hemisphere, {kind}, {variant(mbdyn)}", [(f"{n}x{n}", v[0], ref) for n, v in zip(meshes, values)])
    errors = np.abs(np.array([v[0] for v in values]) / ref - 1)
    assert errors[-1] < 0.02
    assert np.all(np.diff(errors[:3]) < 0)


# ---------------------------------------------------------------------- twisted beam
def twisted_beam(nx, nw, kind, mbdyn=True):
    L, w, t, E, nu = 12.0, 1.1, 0.32, 29e6, 0.22
    X, quads, lat = twisted_strip_mesh(L, w, np.pi / 2, nx, nw)
    D = isotropic_shell_law(E=E, nu=nu, thickness=t)
    system = System(shell_model(X, quads, D, kind, mbdyn=mbdyn))
    c = Constraints(len(X))
    c.fix(lat[:, 0] == 0, (X_, Y_, Z_), (X_, Y_, Z_))
    tip = np.flatnonzero(lat[:, 0] == nx)
    out = []
    for axis in (Z_, Y_):                    # at the tip the width lies along z, the normal along y
        F = np.zeros_like(X)
        F[tip, axis] = 1.0 / len(tip)
        u, _ = linear_response(system, c, F)
        out.append(u[tip, axis].mean())
    return out


@VARIANTS
@pytest.mark.parametrize("kind", KINDS)
def test_twisted_beam(kind, mbdyn):
    meshes = ((12, 2), (24, 4), (48, 8)) if LONG else ((12, 2), (24, 4))
    ref_in, ref_out = 5.424e-3, 1.754e-3
    values = [twisted_beam(nx, nw, kind, mbdyn) for nx, nw in meshes]
    report(f"Twisted beam, in-plane load, {kind}, {variant(mbdyn)}", [(f"{a}x{b}", v[0], ref_in) for (a, b), v in zip(meshes, values)])
    report(f"Twisted beam, out-of-plane load, {kind}, {variant(mbdyn)}", [(f"{a}x{b}", v[1], ref_out) for (a, b), v in zip(meshes, values)])
    assert abs(values[-1][0] / ref_in - 1) < 0.02
    assert abs(values[-1][1] / ref_out - 1) < 0.02


# ---------------------------------------------------------------------- Sze et al. §3.1
# P/P_max, -u_tip, w_tip: Sze, Liu & Lo (2004), Table for the cantilever under end shear (16 × 1)
SZE_31 = np.array([[0.05, 0.026, 0.663], [0.10, 0.103, 1.309], [0.20, 0.381, 2.493], [0.30, 0.763, 3.488],
                   [0.40, 1.184, 4.292], [0.50, 1.604, 4.933], [0.60, 2.002, 5.444], [0.70, 2.370, 5.855],
                   [0.80, 2.705, 6.190], [0.90, 3.010, 6.467], [1.00, 3.286, 6.698]])


def sze_cantilever(kind, n=16, steps=20, mbdyn=True):
    L, b, h, E, nu, Pmax = 10.0, 1.0, 0.1, 1.2e6, 0.0, 4.0
    X, quads, lat = rectangle_mesh(L, b, n, 1)
    m = shell_model(X, quads, isotropic_shell_law(E=E, nu=nu, thickness=h), kind, mbdyn=mbdyn)
    for k in np.flatnonzero(lat[:, 0] == 0):
        m.clamp(100_000 + k, int(k) + 1)
    tip = np.flatnonzero(lat[:, 0] == n)
    for k in tip:
        m.force(200_000 + k, int(k) + 1, (0.0, 0.0, Pmax / len(tip)), "absolute")
    problem = StaticProblem(m, steps=steps, ramp=True, tolerance=1e-8, max_iterations=30)
    res = problem.run()
    rows = []
    for i, t in enumerate(res.t):
        x = res.x[i][tip].mean(axis=0)
        rows.append((t, -(x[X_] - L), x[Z_]))
    return np.array(rows)


@VARIANTS
@pytest.mark.parametrize("kind", KINDS)
def test_sze_cantilever_end_shear(kind, mbdyn):
    rows = sze_cantilever(kind, mbdyn=mbdyn)
    print(f"\nSze 3.1 cantilever, {kind}, {variant(mbdyn)}: P/Pmax, -u_tip (ref), w_tip (ref)")
    for lam, u_ref, w_ref in SZE_31:
        k = np.argmin(np.abs(rows[:, 0] - lam))
        if abs(rows[k, 0] - lam) > 1e-9:
            continue
        u, w = rows[k, 1], rows[k, 2]
        print(f"  {lam:.2f}: {u:.4f} ({u_ref:.3f})  {w:.4f} ({w_ref:.3f})")
        # the table's 3 decimals: half a unit of the last digit, plus 0.1 %
        assert abs(w - w_ref) < 1e-3 * w_ref + 5e-4
        assert abs(u - u_ref) < 1e-3 * u_ref + 5e-4


# ---------------------------------------------------------------------- Sze et al. §3.3
# P/P_max, w_A (inner edge), w_B (outer edge): Sze et al. (2004), slit annular plate (10 × 80)
SZE_33 = np.array([[0.10, 4.277, 5.876], [0.20, 6.725, 9.160], [0.30, 8.340, 11.213], [0.40, 9.529, 12.661],
                   [0.50, 10.468, 13.768], [0.60, 11.257, 14.674], [0.70, 11.970, 15.469],
                   [0.80, 12.642, 16.202], [0.90, 13.282, 16.886], [1.00, 13.891, 17.528]])
# MBDyn 1.7.3 (/opt/mbdyn/bin/mbdyn -f deck -o out) on slit_annular_deck(6, 30) with tolerance
# 1e-5 and 1e-7 alike: z of points A (node 1) and B (node 6001) at the last step, t = 0.99
SZE_33_MBDYN_6x30 = (13.38810, 17.01424)


def slit_annular_deck(nr, nc, kind="shell4eas", steps=60, tolerance=1e-5):
    """An MBDyn deck of the slit annular plate as MBDyn's own test (tests/plates/sze2004 of its
    sources) poses it: static nodes, `ms`, the line force raised by a half cosine over t in
    [0, 1] (P/P_max = (1 - cos πt)/2), the edge θ = 2π clamped; node 1000 r + c + 1 at radius
    R_i + r (R_o - R_i)/nr and angle 2πc/nc; A = node 1, B = node 1000 nr + 1."""
    E, Ri, Ro, h, qmax = 21e6, 6.0, 10.0, 0.03, 0.8
    lab = lambda r, c: 1000 * r + c + 1            # noqa: E731
    lines = ["begin: data; problem: initial value; end: data;",
             f"begin: initial value; initial time: 0.; final time: .99; time step: 1./{steps}; "
             f"tolerance: {tolerance}; max iterations: 50; method: ms, .6; end: initial value;",
             f"begin: control data; structural nodes: {(nr + 1) * (nc + 1)}; joints: {nr + 1}; plates: {nr * nc}; "
             f"forces: {nr + 1}; default output: none; end: control data;", "begin: nodes;"]
    for r in range(nr + 1):
        rho = Ri + r / nr * (Ro - Ri)
        for c in range(nc + 1):
            th = 2 * np.pi * c / nc
            out = ", output, yes" if c == 0 and r in (0, nr) else ""
            lines.append(f"structural: {lab(r, c)}, static, {float(rho * np.cos(th))!r}, {float(rho * np.sin(th))!r}, "
                         f"0., eye, null, null{out};")
    lines += ["end: nodes;", "begin: elements;"]
    lines += [f"joint: {lab(r, nc)}, clamp, {lab(r, nc)}, node, node;" for r in range(nr + 1)]
    for r in range(nr + 1):
        share = nr * (2 if r in (0, nr) else 1)
        lines.append(f"force: {lab(r, 0)}, absolute, {lab(r, 0)}, position, null, 0., 0., 1., "
                     f"cosine, 0., pi/1., ({qmax}*({Ro}-{Ri})/{share})/2, half, 0.;")
    for r in range(1, nr + 1):
        for c in range(1, nc + 1):
            lines.append(f"{kind}: {lab(r, c)}, {lab(r, c - 1)}, {lab(r, c)}, {lab(r - 1, c)}, {lab(r - 1, c - 1)}, "
                         f"isotropic, E, {E}, nu, 0., thickness, {h};")
    lines.append("end: elements;")
    return "\n".join(lines) + "\n"


def slit_annular_plate(nr, nc, kind="shell4eas", steps=60):
    """(P/P_max, w_A, w_B) at every step of the deck's run."""
    res = parse_deck(slit_annular_deck(nr, nc, kind, steps), echo=lambda *a: None).run()
    a, b = res.index(1), res.index(1000 * nr + 1)
    load = (1 - np.cos(np.pi * res.t)) / 2
    return np.stack([load, res.x[:, a, Z_], res.x[:, b, Z_]], axis=1)


@pytest.mark.parametrize("kind", ("shell4eas",) if not LONG else KINDS)
def test_sze_slit_annular_plate(kind):
    """Sze's table (10 × 80) within 1 % on the 10 × 80 mesh (MBDAE_LONG) and 4 % on 6 × 30
    (CI), read off at the table's loads by cubic interpolation of the steps; the 6 × 30 deck's
    last step against MBDyn 1.7.3's on the same deck (1e-4: MBDyn's and mbdae's T̄ updates
    differ by their predictors at these rotations per step)."""
    nr, nc, tol = (10, 80, 0.01) if LONG else (6, 30, 0.04)
    rows = slit_annular_plate(nr, nc, kind)
    wa, wb = CubicSpline(rows[:, 0], rows[:, 1]), CubicSpline(rows[:, 0], rows[:, 2])
    print(f"\nSze 3.3 slit annular plate {nr}x{nc}, {kind}: P/Pmax, w_A (ref), w_B (ref)")
    for lam, a_ref, b_ref in SZE_33:
        if lam > rows[-1, 0]:
            continue
        a, b = float(wa(lam)), float(wb(lam))
        print(f"  {lam:.2f}: {a:.3f} ({a_ref:.3f})  {b:.3f} ({b_ref:.3f})")
        assert abs(a / a_ref - 1) < tol and abs(b / b_ref - 1) < tol
    if (nr, nc, kind) == (6, 30, "shell4eas"):
        print(f"  last step: {rows[-1, 1]:.5f} {rows[-1, 2]:.5f} (MBDyn 1.7.3 {SZE_33_MBDYN_6x30})")
        assert np.allclose(rows[-1, 1:], SZE_33_MBDYN_6x30, rtol=2e-4, atol=0)


# ---------------------------------------------------------------------- plate frequencies
PLATE = dict(a=1.0, h=0.01, E=2.1e11, nu=0.3, rho=7800.0)


def plate_frequencies(n, kind, supported, mbdyn=True, consistent=False):
    a, h, E, nu, rho = (PLATE[k] for k in ("a", "h", "E", "nu", "rho"))
    X, quads, lat = rectangle_mesh(a, a, n, n)
    m = shell_model(X, quads, isotropic_shell_law(E=E, nu=nu, thickness=h), kind, node_kind="dynamic", mbdyn=mbdyn)
    m.shell_masses(500_000, rho, h, consistent=consistent)
    if supported:
        edge = np.flatnonzero((lat[:, 0] == 0) | (lat[:, 0] == n) | (lat[:, 1] == 0) | (lat[:, 1] == n))
        for j, k in enumerate(edge):
            m.total_pin_joint(300_000 + j, int(k) + 1, position_status=("inactive", "inactive", "active"),
                              absolute_position=X[k])
        # in-plane rigid motion held at two corners (no effect on the bending modes)
        m.total_pin_joint(400_000, 1, position_status=("active", "active", "inactive"), absolute_position=X[0])
        m.total_pin_joint(400_001, n + 1, position_status=("inactive", "active", "inactive"),
                          absolute_position=X[n])
    system = System(m)
    st = system.initial_state(0.0)
    D = E * h ** 3 / (12 * (1 - nu ** 2))
    scale = np.sqrt(D / (rho * h)) / a ** 2 / (2 * np.pi)          # f = λ · scale, λ = ω a² √(ρh/D)
    res = analyze(system, st, EigenSettings((0.0,), parameter=1.0 / (2 * np.pi * 40 * scale), method="arpack",
                                            arpack=(40, 0, 1e-10), lower_frequency=5 * scale,
                                            upper_frequency=100 * scale))
    return np.sort(res.frequencies) / scale


def plate_errors(kind, supported, exact, meshes, mbdyn=True):
    errors = []
    for n in meshes:
        lam = plate_frequencies(n, kind, supported, mbdyn)[:len(exact)]
        errors.append(lam / exact - 1)
        print(f"\n{'simply supported' if supported else 'free'} plate {n}x{n}, {kind}, {variant(mbdyn)}: λ = {np.round(lam, 3)} "
              f"(errors {np.round(100 * errors[-1], 2)} %)")
    return np.abs(errors)


@VARIANTS
@pytest.mark.parametrize("kind", KINDS)
def test_simply_supported_plate_frequencies(kind, mbdyn):
    """Kirchhoff: λ_mn = π² (m² + n²) for a square plate, λ = ω a² √(ρh/D) (h/a = 1/100:
    shear and rotary inertia below 0.1 %); lumped masses (shell_masses), ARPACK."""
    exact = np.pi ** 2 * np.array([2.0, 5.0, 5.0, 8.0])
    e = plate_errors(kind, True, exact, (8, 16, 32) if LONG else (8, 16), mbdyn)
    assert e[-1].max() < (0.005 if LONG else 0.015) and e[-1].max() < 0.5 * e[0].max()


def test_simply_supported_plate_frequencies_with_consistent_mass():
    """The same plate with the shells' consistent mass (shell_masses(..., consistent=True)):
    the first four frequencies lie above Kirchhoff's (measured +1.8, +6.7, +6.7, +7.6 % on
    8×8; +0.4, +1.5, +1.5, +1.7 % on 16×16; the lumped masses straddle them) and their
    errors fall by more than 3.5 per halving of the mesh (the O(h²) of a consistent mass)."""
    exact = np.pi ** 2 * np.array([2.0, 5.0, 5.0, 8.0])
    errors = [plate_frequencies(n, "shell4easans", True, consistent=True)[:4] / exact - 1 for n in (8, 16)]
    assert (errors[0] > 0).all() and (errors[1] > 0).all(), errors
    assert (errors[0] / errors[1] > 3.5).all() and errors[1].max() < 0.02, errors


@VARIANTS
@pytest.mark.parametrize("kind", KINDS)
def test_free_plate_frequencies(kind, mbdyn):
    """Free square plate, ν = 0.3: λ = 13.49, 19.79, 24.43 (Leissa, J. Sound Vib. 31 (1973)
    257-293; the values of code_aster's SDLS01 after Barton); the six rigid modes lie below
    the band."""
    exact = np.array([13.49, 19.79, 24.43])
    e = plate_errors(kind, False, exact, (8, 16, 32) if LONG else (8, 16), mbdyn)
    assert e[-1].max() < (0.01 if LONG else 0.025) and e[-1].max() < 0.5 * e[0].max()
