"""Hull buoyancy (elements/hull_buoyancy.py) against hydrostatics:

- Archimedes: a box and a vertical cylinder heeled, trimmed and drawn to several drafts (the
  waterline on the side walls: a truncated prism, whose volume, centroid and waterplane have
  closed forms from the section's area and second moments) carry F = ρ g V_sub e through the
  centre of buoyancy; fully submerged, ρ g V through the centroid at any orientation; above
  the water, nothing;
- the Jacobian at equilibrium is the linear hydrostatic restoring matrix about the node
  (C33 = ρ g A_wp, C44 = ρ g (∫y² dA + V z_B), ..., the yaw column -ρ g V x_B, -ρ g V y_B:
  the standard linear restoring coefficients, as in WAMIT's .hst matrix), for the node anywhere;
- large angles: the righting arm of a rectangular barge is the wall-sided formula
  GZ = sin φ (GM + ½ BM tan² φ) up to deck edge immersion;
- dynamics with a rigid body under gravity: a box settles at the draft m/(ρ A_wp), heaves
  at the period 2π √(m/(ρ g A_wp)) (exactly linear while wall-sided), rolls about upright at
  2π √(I/(m g GM)) when GM > 0, and with GM < 0 lolls to tan φ = √(-2 GM/BM);
- polyhedral hulls of a sphere and a cylinder converge to the closed forms at second order;
- hull meshes (builders, meshio files, checks) and the deck card with its errors."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.state import Context
from mbdae.engine.core import rotations as rot
from mbdae.engine.core import constitutive as cl
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.io.mbdyn.deck import DeckError, parse_deck, read_deck
from mbdae.engine.core.hydro_data import WaveComponents
from mbdae.engine.core.hydro_waves import wave_number
from mbdae.elements.hull_buoyancy import Hull, box_hull, cylinder_hull, sphere_hull, hull_from_mesh, read_hull

RHO, G = 1025.0, 9.81
EZ = np.array([0.0, 0.0, 1.0])


def rx(a):
    return rot.exp_rotvec(np.array([a, 0.0, 0.0]))


def pose(heel=0.0, trim=0.0, yaw=0.0):
    """R = Rz(yaw) Ry(trim) Rx(heel)."""
    return rot.exp_rotvec(np.array([0, 0, yaw])) @ rot.exp_rotvec(np.array([0, trim, 0])) @ rx(heel)


def evaluate(hull, x, R, offset=None, **kw):
    """(loads dict of the family, Jacobian (6, 6) on (Δẋ, Δġ) at g = 0 and dCoef = 1, i.e.
    -∂(F, M)/∂(x, θ)) of one hull on a static node at pose (x, R)."""
    m = Model()
    m.structural_node(1, "static", position=x, orientation=R)
    m.hull_buoyancy(1, 1, hull, density=kw.pop("density", RHO), gravity=kw.pop("gravity", G), offset=offset, **kw)
    system = System(m)
    st = system.initial_state(0.0)
    f, _, J = system.evaluate(st, 1.0)
    fam = system.families[0]
    loads = fam.loads(Context(st.t, st.y, st.yp, system.kinematics(st, 1.0)))
    loads = {k: v[0] for k, v in loads.items()}
    assert np.allclose(f, -np.concatenate([loads["F"], loads["M"]]), rtol=0, atol=1e-12 * (1 + abs(f).max()))
    return loads, J.toarray()


# ---------------------------------------------------------------------- closed forms
def polygon_moments(P):
    """Area, centroid and second moments ∫x², ∫xy, ∫y² (about the origin) of a polygon P (n, 2)
    counter-clockwise (the shoelace formulas)."""
    x, y = P[:, 0], P[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    c = x * yn - xn * y
    A = c.sum() / 2
    cx, cy = ((x + xn) * c).sum() / (6 * A), ((y + yn) * c).sum() / (6 * A)
    Ixx = ((x * x + x * xn + xn * xn) * c).sum() / 12
    Iyy = ((y * y + y * yn + yn * yn) * c).sum() / 12
    Ixy = ((x * yn + 2 * x * y + 2 * xn * yn + xn * y) * c).sum() / 24
    return A, np.array([cx, cy]), Ixx, Ixy, Iyy


def truncated_prism(section, height, x, R, level=0.0):
    """(V, centre of buoyancy (global), waterplane area) of a vertical prism on `section`
    (centroid at the origin), from -H/2 to H/2 along its z, at pose (x, R), cut by the still
    water on its side walls only: in the body frame the waterline is z = c + s·(x, y), so
    V = A (c + H/2), ∫(x, y) dV = (s_x Ixx + s_y Ixy, s_x Ixy + s_y Iyy),
    ∫z dV = ½ [A (c² - H²/4) + s_x² Ixx + 2 s_x s_y Ixy + s_y² Iyy], A_wp = A / n_z."""
    A, cen, Ixx, Ixy, Iyy = polygon_moments(section)
    assert np.allclose(cen, 0, atol=1e-12)
    n = R.T @ EZ
    c = (level - x[2]) / n[2]
    sx, sy = -n[0] / n[2], -n[1] / n[2]
    z = c + section @ np.array([sx, sy])
    assert np.all(np.abs(z) < height / 2), "the waterline leaves the side walls"
    V = A * (c + height / 2)
    b = np.array([sx * Ixx + sy * Ixy, sx * Ixy + sy * Iyy,
                  0.5 * (A * (c * c - height ** 2 / 4) + sx * sx * Ixx + 2 * sx * sy * Ixy + sy * sy * Iyy)]) / V
    return V, x + R @ b, A / n[2]


def rectangle(L, B):
    return np.array([[-L / 2, -B / 2], [L / 2, -B / 2], [L / 2, B / 2], [-L / 2, B / 2]])


def regular_polygon(radius, n):
    a = 2 * np.pi * np.arange(n) / n
    return radius * np.stack([np.cos(a), np.sin(a)], axis=1)


PRISMS = {"box": (box_hull(12.0, 5.0, 4.0), rectangle(12.0, 5.0), 4.0),
          "cylinder": (cylinder_hull(3.0, 8.0, sides=24), regular_polygon(3.0, 24), 8.0)}
POSES = [((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), ((0.3, -0.2, 0.9), (0.12, 0.0, 0.0)),
         ((1.0, 2.0, -0.7), (-0.08, 0.05, 0.4)), ((-3.0, 0.5, 0.6), (0.2, -0.08, -1.1)),
         ((0.0, 0.0, -0.8), (0.0, 0.12, 2.0))]


# ---------------------------------------------------------------------- Archimedes
@pytest.mark.parametrize("name", PRISMS)
@pytest.mark.parametrize("x,angles", POSES)
def test_archimedes_truncated_prism(name, x, angles):
    """Box and cylinder at several drafts and tilts: F = ρ g V_sub e, moment (x_B - x) × F,
    V, A_wp and the centre of buoyancy against the truncated-prism closed form (the polygon
    of the cylinder's hull: exact to rounding)."""
    hull, section, H = PRISMS[name]
    x, R = np.array(x), pose(*angles)
    V, xB, Awp = truncated_prism(section, H, x, R)
    L, _ = evaluate(hull, x, R)
    W = RHO * G * V
    assert np.allclose(L["F"], W * EZ, rtol=0, atol=1e-11 * W)
    assert np.allclose(L["M"], np.cross(xB - x, W * EZ), rtol=0, atol=1e-11 * W * H)
    assert abs(L["V"] - V) < 1e-12 * V and abs(L["Awp"] - Awp) < 1e-12 * Awp
    assert np.allclose(L["B"], xB, rtol=0, atol=1e-11 * H)


def test_archimedes_true_cylinder_within_polygon_error():
    """The 64-sided cylinder against the circle's closed forms (A = π R², ∫x² = π R⁴/4):
    within the polygon's area defect (2π/n)²/6."""
    R0, H, n = 3.0, 8.0, 64
    x, Rm = np.array([0.4, -0.3, 0.8]), pose(0.1, -0.07, 0.3)
    nz = Rm.T @ EZ
    c, s = (0 - x[2]) / nz[2], -nz[:2] / nz[2]
    A, I = np.pi * R0 ** 2, np.pi * R0 ** 4 / 4
    V = A * (c + H / 2)
    b = np.array([s[0] * I, s[1] * I, 0.5 * (A * (c * c - H * H / 4) + (s @ s) * I)]) / V
    L, _ = evaluate(cylinder_hull(R0, H, n), x, Rm)
    defect = (2 * np.pi / n) ** 2 / 6
    assert abs(L["V"] / V - 1) < 1.05 * defect and abs(L["V"] / V - 1) > 0.5 * defect
    assert np.allclose(L["B"], x + Rm @ b, rtol=0, atol=2 * defect * R0)


@pytest.mark.parametrize("hull,volume", [(box_hull(3.0, 2.0, 1.5), 9.0),
                                         (cylinder_hull(1.0, 2.0, 12), 12 * np.sin(2 * np.pi / 12)),
                                         (sphere_hull(1.2, 6), None)])
def test_fully_submerged_and_dry(hull, volume):
    """Fully submerged at random orientations: ρ g V through the hull's centroid (the box's
    and the polygon prism's volumes in closed form; the sphere's polyhedron by its own
    volume); above the water: nothing."""
    rng = np.random.default_rng(3)
    volume = hull.volume if volume is None else volume
    assert abs(hull.volume - volume) < 1e-12 * volume
    offset = np.array([0.3, -0.2, 0.1])
    for _ in range(4):
        R = rot.exp_rotvec(rng.normal(size=3))
        x = np.array([*rng.normal(size=2), -5.0])
        L, J = evaluate(hull, x, R, offset=offset)
        W = RHO * G * volume
        c = R @ (offset + hull.centroid)
        assert np.allclose(L["F"], W * EZ, rtol=0, atol=1e-11 * W)
        assert np.allclose(L["M"], np.cross(c, W * EZ), rtol=0, atol=1e-11 * W)
        assert abs(L["Awp"]) < 1e-12 and np.allclose(L["B"], x + c, atol=1e-11)
        # submerged: no waterplane, so no stiffness but the turning arm of the constant force:
        # ∂M/∂θ = W e× c× = W (c eᵀ - (c·e) I), and J = -∂(F, M)/∂(x, θ)
        assert np.allclose(J[:, :3], 0, atol=1e-9 * W) and np.allclose(J[:3], 0, atol=1e-9 * W)
        assert np.allclose(J[3:, 3:], -W * (np.outer(c, EZ) - np.dot(c, EZ) * np.eye(3)), atol=1e-9 * W)
        L, J = evaluate(hull, np.array([0.0, 0.0, 5.0]), R, offset=offset)
        assert not L["F"].any() and not L["M"].any() and L["V"] == 0 and L["Awp"] == 0 and np.isnan(L["B"]).all()
        assert not J.any()


# ---------------------------------------------------------------------- linear hydrostatics
def hydrostatic_matrix(rho_g, A, Sx, Sy, Sxx, Sxy, Syy, V, xB, yB, zB):
    """The linear hydrostatic restoring matrix of the buoyancy about a point O (waterplane
    moments ∫x dA, ..., and the centre of buoyancy relative to O): WAMIT's C(3,3) ... C(5,6)
    without the weight's terms."""
    C = np.zeros((6, 6))
    C[2, 2] = A
    C[2, 3] = C[3, 2] = Sy
    C[2, 4] = C[4, 2] = -Sx
    C[3, 3] = Syy + V * zB
    C[3, 4] = C[4, 3] = -Sxy
    C[3, 5] = -V * xB
    C[4, 4] = Sxx + V * zB
    C[4, 5] = -V * yB
    return rho_g * C


@pytest.mark.parametrize("name", PRISMS)
@pytest.mark.parametrize("node", [(0.0, 0.0, 0.0), (0.0, 0.0, 1.2), (0.7, -0.4, -0.9), (-2.0, 1.0, 2.5)])
def test_jacobian_at_equilibrium_is_hydrostatic_stiffness(name, node):
    """Upright at draft T, the node at any point O: the Jacobian on (Δẋ, Δġ) (dCoef = 1,
    g = 0) is C about O, with the waterplane moments from the section's closed forms."""
    hull, section, H = PRISMS[name]
    T = 0.4 * H
    O = np.array(node)
    centre = np.array([0.0, 0.0, H / 2 - T])              # the hull's centre, global
    L, J = evaluate(hull, O, np.eye(3), offset=centre - O)
    A, _, Ixx, Ixy, Iyy = polygon_moments(section)
    xc, yc = -O[0], -O[1]                                 # the section's centroid relative to O
    V = A * T
    C = hydrostatic_matrix(RHO * G, A, A * xc, A * yc, Ixx + A * xc * xc, Ixy + A * xc * yc, Iyy + A * yc * yc,
                           V, xc, yc, -T / 2 - O[2])
    assert np.allclose(J, C, rtol=0, atol=1e-10 * np.abs(C).max()), np.abs(J - C).max()
    assert abs(C[2, 2] - RHO * G * L["Awp"]) < 1e-10 * C[2, 2]


# ---------------------------------------------------------------------- large angles
def test_wall_sided_righting_arm():
    """A barge L × B × D at draft T heeled about the waterline centreline (constant
    displacement while wall-sided): GZ about G = -M_G,x/(ρ g V) equals
    sin φ (GM + ½ BM tan² φ), BM = B²/(12 T), KB = T/2, up to the deck edge (tan φ < f/(B/2))."""
    Lb, B, D, T = 20.0, 8.0, 6.0, 3.0
    hull = box_hull(Lb, B, D)
    V = Lb * B * T
    BM, KB = B * B / (12 * T), T / 2
    for KG in (2.5, 3.6, 4.2):
        GM = KB + BM - KG
        for phi in np.radians([2.0, 10.0, 20.0, 30.0, 36.0]):
            R = rx(phi)
            L, _ = evaluate(hull, np.zeros(3), R, offset=[0.0, 0.0, D / 2 - T])
            assert abs(L["V"] - V) < 1e-12 * V
            G_arm = R @ np.array([0.0, 0.0, KG - T])                 # G relative to the node
            MG = L["M"] - np.cross(G_arm, L["F"])
            GZ = -MG[0] / (RHO * G * V)
            expected = np.sin(phi) * (GM + 0.5 * BM * np.tan(phi) ** 2)
            assert abs(GZ - expected) < 1e-12 * B, (KG, np.degrees(phi), GZ, expected)


def floating_box(KG, T, heel=0.0, dz=0.0, damping=None, Lb=20.0, B=8.0, D=6.0, k=None):
    """A box barge as a rigid body on a dynamic node at G: mass ρ L B T (floats at draft T),
    roll radius of gyration k, gravity and hull buoyancy; released at heel `heel` about G,
    dz above its upright equilibrium; optional 6-D linear damping (viscous body) at G."""
    m = Model()
    mass = RHO * Lb * B * T
    k = 0.35 * B if k is None else k
    J = mass * np.diag([k * k, (Lb * Lb + D * D) / 12, (Lb * Lb + B * B) / 12])
    m.structural_node(1, "dynamic", position=[0.0, 0.0, KG - T + dz], orientation=rx(heel))
    m.body(1, 1, mass, inertia=J)
    m.gravity([0.0, 0.0, -G])
    m.hull_buoyancy(2, 1, box_hull(Lb, B, D), density=RHO, gravity=G, offset=[0.0, 0.0, D / 2 - KG])
    if damping is not None:
        m.viscous_body(3, 1, cl.linear_viscous(6, np.diag(damping)))
    return m, mass, J


def roll_angles(r):
    """Heel angle about x of node 1 over the run."""
    R = r.R[:, 0]
    return np.arctan2(R[:, 2, 1], R[:, 2, 2])


def crossings(t, s):
    k = np.flatnonzero(np.sign(s[1:]) != np.sign(s[:-1]))
    return t[k] - s[k] * (t[k + 1] - t[k]) / (s[k + 1] - s[k])


def test_box_heave_period_and_settled_draft():
    """Released 0.3 m below its equilibrium: a wall-sided box heaves exactly linearly at
    2π √(m/(ρ g A_wp)) = 2π √(T/g) (no added mass in this element); with damping it settles
    at the draft m/(ρ A_wp) = T."""
    KG, T = 2.5, 3.0
    m, mass, _ = floating_box(KG, T, dz=-0.3)
    r = InitialValueProblem(m, final_time=8.0, time_step=0.01, method="crank nicolson").run()
    z = r.x[:, 0, 2] - (KG - T)
    tc = crossings(r.t, z)
    period = 2 * np.pi * np.sqrt(T / G)
    assert len(tc) >= 4
    assert np.allclose(np.diff(tc), period / 2, rtol=1e-4), (np.diff(tc), period / 2)   # CN: (ωh)²/12 = 2.7e-5
    assert abs(z.max() - 0.3) < 1e-3 and abs(z.min() + 0.3) < 1e-9
    m, mass, J = floating_box(KG, T, dz=0.5, damping=[2e5, 2e5, 2 * mass * np.sqrt(G / T), 1e7, 1e7, 1e7])
    r = InitialValueProblem(m, final_time=20.0, time_step=0.05).run()
    draft = -(r.x[-1, 0, 2] - KG)                                   # keel at G - KG
    assert abs(draft - mass / (RHO * 20.0 * 8.0)) < 1e-9, draft


def test_stable_box_rolls_about_upright():
    """GM > 0, released at 3° heel: the roll oscillates symmetrically about upright at the
    period 2π √(I_xx/(m g GM)) (small angles; the wall-sided stiffening at 3° is 0.4 %)."""
    KG, T = 2.5, 3.0
    BM, KB = 8.0 ** 2 / (12 * T), T / 2
    GM = KB + BM - KG
    phi0 = np.radians(3.0)
    m, mass, J = floating_box(KG, T, heel=phi0)
    period = 2 * np.pi * np.sqrt(J[0, 0] / (mass * G * GM))
    r = InitialValueProblem(m, final_time=2.2 * period, time_step=period / 400, method="crank nicolson").run()
    phi = roll_angles(r)
    tc = crossings(r.t, phi)
    assert len(tc) >= 4
    half = np.diff(tc)
    assert np.allclose(half, period / 2, rtol=3e-3), (half, period / 2)
    assert abs(phi.max() - phi0) < 1e-3 * phi0 and abs(phi.min() + phi0) < 1e-2 * phi0


def test_unstable_box_lolls_to_its_stable_angle():
    """GM < 0: from 2° the box capsizes towards the angle of loll tan φ = √(-2 GM/BM) (GZ = 0
    of the wall-sided formula) and settles there under damping; with GM > 0 it settles
    upright."""
    T = 3.0
    BM, KB = 8.0 ** 2 / (12 * T), T / 2
    for KG in (3.6, 2.5):
        GM = KB + BM - KG
        _, mass, J = floating_box(KG, T)
        roll = 1.2 * np.sqrt(J[0, 0] * mass * G * abs(GM))
        m, _, _ = floating_box(KG, T, heel=np.radians(2.0),
                               damping=[1e6, 1e6, 2 * mass * np.sqrt(G / T), roll, 1e8, 1e8])
        r = InitialValueProblem(m, final_time=60.0, time_step=0.05).run()
        phi = roll_angles(r)
        expected = np.arctan(np.sqrt(-2 * GM / BM)) if GM < 0 else 0.0
        assert abs(phi[-1] - expected) < 1e-8, (KG, np.degrees(phi[-1]), np.degrees(expected))
        if GM < 0:
            assert np.degrees(expected) > 25 and phi.max() > expected           # it did capsize from 2°


# ---------------------------------------------------------------------- accuracy vs mesh
def observed_orders(errors):
    e = np.abs(np.asarray(errors))
    return np.log2(e[:-1] / e[1:])


def test_sphere_and_cylinder_meshes_converge_at_second_order():
    """A sphere cut at draft h (cap volume π h² (3R - h)/3, cap centroid depth) and a
    cylinder at draft T (π R² T): the polyhedral hulls' errors fall as (mesh size)²."""
    R0 = 1.0
    x = np.array([0.0, 0.0, 0.35])                       # centre above the water: cap of height 0.65
    h = R0 - x[2]
    Vcap = np.pi * h * h * (3 * R0 - h) / 3
    zcap = x[2] - 3 * (2 * R0 - h) ** 2 / (4 * (3 * R0 - h))     # the cap's centroid
    errV, errB = [], []
    for n in (8, 16, 32, 64):
        L, _ = evaluate(sphere_hull(R0, n), x, pose(0.3, 0.2, 0.1))
        errV.append(L["V"] / Vcap - 1)
        errB.append(L["B"][2] - zcap)
    assert np.all((observed_orders(errV) > 1.9) & (observed_orders(errV) < 2.1)), observed_orders(errV)
    assert np.all((observed_orders(errB) > 1.8) & (observed_orders(errB) < 2.2)), observed_orders(errB)
    assert abs(errV[-1]) < 2e-3
    errC = []
    for n in (8, 16, 32, 64):
        L, _ = evaluate(cylinder_hull(R0, 3.0, n), np.array([0.0, 0.0, 0.3]), np.eye(3))
        errC.append(L["V"] / (np.pi * R0 ** 2 * 1.2) - 1)
    assert np.all(np.abs(observed_orders(errC) - 2) < 0.05), observed_orders(errC)


# ---------------------------------------------------------------------- waves
def airy_profile(k, depth):
    """(f, f') of Airy's pressure decay f(z) = cosh(k(z + D))/cosh(kD) (e^{kz} in deep water)."""
    if np.isinf(depth):
        return lambda z: np.exp(k * z), lambda z: k * np.exp(k * z)
    c = np.cosh(k * depth)
    return lambda z: np.cosh(k * (z + depth)) / c, lambda z: k * np.sinh(k * (z + depth)) / c


def regular(a, omega, heading=0.0, phase=0.0, depth=np.inf):
    return WaveComponents(omega=np.array([omega]), amplitude=np.array([a]), phase=np.array([phase]),
                          heading=heading, water_depth=depth, g=G)


@pytest.mark.parametrize("depth", [np.inf, 5.0])
def test_submerged_sphere_froude_krylov_mean_value(depth):
    """A sphere fully under a regular wave: the incident pressure f(z) cos θ is harmonic, so by
    the mean-value property its force -∮ p n dS is -ρ g a V ∇(f cos θ)(centre) exactly, and the
    moment about the centre vanishes (every normal through it).  The polyhedral hulls' wave
    force (the total less ρ g V_poly e, their exact still-water part) and moment converge to
    both at second order."""
    R0, a, omega, beta, phi, t = 1.0, 0.3, 3.0, 0.4, 0.7, 0.9
    c = np.array([0.3, -0.2, -2.2])
    wave = regular(a, omega, beta, phi, depth)
    k = wave_number(np.array([omega]), depth, G)[0]
    f, fp = airy_profile(k, depth)
    th = omega * t + phi - k * (c[0] * np.cos(beta) + c[1] * np.sin(beta))
    grad = np.array([f(c[2]) * np.sin(th) * k * np.cos(beta), f(c[2]) * np.sin(th) * k * np.sin(beta),
                     fp(c[2]) * np.cos(th)])
    V = 4 * np.pi * R0 ** 3 / 3
    expected = -RHO * G * V * a * grad
    fk = np.linalg.norm(expected)
    errF, errM = [], []
    for n in (6, 12, 24, 48):
        m = Model()
        m.structural_node(1, "static", position=c, orientation=pose(0.2, 0.1, 0.3))
        hull = sphere_hull(R0, n)
        m.hull_buoyancy(1, 1, hull, density=RHO, gravity=G, wave=wave)
        system = System(m)
        st = system.initial_state(t)
        L = system.families[0].loads(Context(t, st.y, st.yp, system.kinematics(st, 1.0)))
        errF.append(np.linalg.norm(L["F"][0] - RHO * G * hull.volume * EZ - expected) / fk)
        errM.append(np.linalg.norm(L["M"][0]) / (fk * R0))
        assert np.isnan(L["B"][0]).all()
    assert errF[-1] < 2e-3 and errM[-1] < 2e-3, (errF, errM)
    for e in (errF, errM):
        assert np.all(observed_orders(e) > 1.7) and np.all(observed_orders(e)[1:] > 1.9), (errF, errM)


def cylinder_in_wave(R0, T, H, wave, t, sides, rings, layers, ramp=0.0):
    m = Model()
    m.structural_node(1, "static", position=[0.0, 0.0, H / 2 - T])
    m.hull_buoyancy(1, 1, cylinder_hull(R0, H, sides, rings, layers), density=RHO, gravity=G, wave=wave,
                    wave_ramp=ramp)
    system = System(m)
    st = system.initial_state(t)
    L = system.families[0].loads(Context(t, st.y, st.yp, system.kinematics(st, 1.0)))
    return {key: v[0] for key, v in L.items()}


def test_floating_cylinder_froude_krylov_heave_and_surge():
    """A vertical cylinder (radius R, draft T, deck dry) in a regular wave: its vertical force
    comes from the bottom only, ρ g [π R² T + a f(-T) cos(ωt + φ) π R² 2 J1(kR)/(kR)] at any
    amplitude (converging at second order in the panels); at small amplitude the horizontal
    force is the linear Froude–Krylov force -ρ g a 2π R J1(kR) sin(ωt + φ) ∫_{-T}^0 f dz."""
    from scipy.special import j1
    R0, T, H, omega, phi = 1.0, 2.0, 4.0, 2.2, 0.4
    for depth in (np.inf, 6.0):
        k = wave_number(np.array([omega]), depth, G)[0]
        f, _ = airy_profile(k, depth)
        A = np.pi * R0 ** 2
        errs = []
        for t in (0.0, 0.7):
            wave = regular(0.5, omega, 0.0, phi, depth)
            Fz = RHO * G * (A * T + 0.5 * f(-T) * np.cos(omega * t + phi) * A * 2 * j1(k * R0) / (k * R0))
            errs.append([abs(cylinder_in_wave(R0, T, H, wave, t, n, n // 4, 1)["F"][2] / Fz - 1)
                         for n in (16, 32, 64, 128)])
        orders = observed_orders(np.array(errs).sum(axis=0))
        assert np.all(np.abs(orders - 2) < 0.15), orders
        a = 0.005
        t = 0.3
        wave = regular(a, omega, 0.0, phi, depth)
        integral = ((1 - np.exp(-k * T)) / k if np.isinf(depth)
                    else (np.sinh(k * depth) - np.sinh(k * (depth - T))) / (k * np.cosh(k * depth)))
        Fx = -RHO * G * a * 2 * np.pi * R0 * j1(k * R0) * np.sin(omega * t + phi) * integral
        L = cylinder_in_wave(R0, T, H, wave, t, 128, 4, 32)
        assert abs(L["F"][0] / Fx - 1) < 3e-3, (L["F"][0], Fx)
        assert abs(L["F"][1]) < 1e-3 * abs(Fx)      # zero by symmetry, but for the panels' diagonals


def test_wave_ramp():
    """The ramp scales the incident pressure: at half the ramp time the wave part of the
    (fully submerged, so linear in the amplitude) sphere's force is half of the unramped one,
    zero before t = 0 and whole after the ramp."""
    def force(t, ramp):
        m = Model()
        m.structural_node(1, "static", position=[0.0, 0.0, -3.0])
        m.hull_buoyancy(1, 1, sphere_hull(1.0, 8), wave=regular(0.4, 2.0, 0.3, 0.1), wave_ramp=ramp)
        system = System(m)
        st = system.initial_state(t)
        return system.families[0].loads(Context(t, st.y, st.yp, system.kinematics(st, 1.0)))["F"][0]
    still = force(-1.0, 10.0)
    assert np.allclose(still, RHO * G * sphere_hull(1.0, 8).volume * EZ, rtol=1e-13)
    assert np.allclose(force(5.0, 10.0) - still, 0.5 * (force(5.0, 0.0) - still), rtol=1e-12)
    assert np.allclose(force(12.0, 10.0), force(12.0, 0.0), rtol=1e-14)
    assert np.linalg.norm(force(5.0, 0.0) - still) > 1e-2 * np.linalg.norm(still)


# ---------------------------------------------------------------------- hulls
def test_hull_meshes_are_checked_and_oriented():
    """Closed and consistently oriented (else the error names an edge); an inward mesh is
    turned outward; quadrangles and polygons are split; duplicate vertices merged."""
    box = box_hull(2.0, 3.0, 4.0)
    assert abs(box.volume - 24.0) < 1e-12 and np.allclose(box.centroid, 0)
    inward = hull_from_mesh(box.vertices, box.triangles[:, ::-1])
    assert abs(inward.volume - 24.0) < 1e-12
    with pytest.raises(ValueError, match="not closed"):
        hull_from_mesh(box.vertices, box.triangles[1:])
    flipped = box.triangles.copy()
    flipped[0] = flipped[0, ::-1]
    with pytest.raises(ValueError, match="inconsistently oriented"):
        hull_from_mesh(box.vertices, flipped)
    # a pyramid with a square base as one polygon, every face with its own vertex copies
    P = np.array([[0, 0, 0], [2, 0, 0], [2, 2, 0], [0, 2, 0], [1, 1, 3.0]])
    faces = [(0, 3, 2, 1), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)]
    V = np.concatenate([P[list(f)] for f in faces])
    k = np.cumsum([0] + [len(f) for f in faces])
    pyramid = hull_from_mesh(V, [list(range(k[i], k[i + 1])) for i in range(len(faces))])
    assert len(pyramid.vertices) == 5 and abs(pyramid.volume - 4.0) < 1e-12
    assert np.allclose(pyramid.centroid, [1, 1, 0.75])
    with pytest.raises(ValueError, match="encloses no volume"):
        hull_from_mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [(0, 1, 2), (0, 2, 1)])


@pytest.mark.parametrize("fmt", ["stl", "obj", "vtk"])
def test_read_hull_with_meshio(tmp_path, fmt):
    """A cylinder written by meshio (binary STL: triangles with their own float32 vertices,
    merged back; OBJ, VTK: shared vertices) reads back as the same hull, scaled."""
    meshio = pytest.importorskip("meshio")
    cyl = cylinder_hull(1.5, 2.0, 10)
    path = str(tmp_path / f"hull.{fmt}")
    meshio.write(path, meshio.Mesh(cyl.vertices, [("triangle", cyl.triangles)]), **({"binary": True} if fmt == "stl" else {}))
    hull = read_hull(path, scale=2.0)
    assert abs(hull.volume - 8 * cyl.volume) < (1e-6 if fmt == "stl" else 1e-9) * cyl.volume   # binary STL: float32
    assert len(hull.triangles) == len(cyl.triangles)


# ---------------------------------------------------------------------- deck card
DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 0.02;
    time step: 0.01;
    method: ms, 0.6;
end: initial value;
begin: control data;
    structural nodes: 2;
    rigid bodies: 1;
    joints: 1;
    forces: {count};
    gravity;
end: control data;
begin: nodes;
    structural: 1, dynamic, 0., 0., 0., eye, null, null;
    structural: 2, static, 5., 0., 0., eye, null, null;
end: nodes;
begin: elements;
    body: 1, 1, 1025.*4.*2.*1., null, diag, 1000., 1000., 1000.;
    gravity: uniform, 0., 0., -1., const, 9.81;
    joint: 9, clamp, 2, node, node;
{elements}
end: elements;
"""


def deck_errors(text, needle, message, count=1):
    with pytest.raises(DeckError) as info:
        parse_deck(DECK.format(elements=text, count=count), echo=lambda *a: None)
    full = DECK.format(elements=text, count=count)
    i = full.index(needle, full.index("begin: elements"))
    line, col = full.count("\n", 0, i) + 1, i - full.rfind("\n", 0, i)
    assert f":{line}:{col}: {message}" in str(info.value), str(info.value)


def test_deck_card_reads_every_hull_and_runs(tmp_path):
    """The card with each hull kind and the options; the box floating at its equilibrium
    draft stays there, and the .buo file holds ρ g V, V = L B T, A_wp = L B and B."""
    meshio = pytest.importorskip("meshio")
    cyl = cylinder_hull(0.5, 1.0, 8)
    meshio.write(str(tmp_path / "cyl.obj"), meshio.Mesh(cyl.vertices, [("triangle", cyl.triangles)]))
    elements = """
    force: 1, hull buoyancy, 1, box, 4., 2., 2., density, 1025., gravity, 9.81;
    force: 2, hull buoyancy, 2, position, 0., 0., 0.2, orientation, euler123, 0.1, 0., 0.,
        cylinder, 0.5, 1., sides, 8, water level, 0.1, output, no;
    force: 3, hull buoyancy, 2, sphere, 0.4, divisions, 6, upward, 0., 0.6, 0.8;
    force: 4, hull buoyancy, 2, mesh, "cyl.obj", scale, 1.;
    force: 5, hull buoyancy, 2, panels, 4, 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0., 1.,
        4, 3, 1, 3, 2, 3, 1, 2, 4, 3, 2, 3, 4, 3, 3, 1, 4, gravity, 1.62, density, 1000.;
    force: 6, hull buoyancy, 2, cylinder, 0.5, 1., regular wave, 0.1, 2., phase, 0.5, water depth, 30.,
        heading, pi/4, ramp, 3., gravity, 9.8;
"""
    text = DECK.format(elements=elements, count=6)
    (tmp_path / "deck.mbd").write_text(text)
    deck = read_deck(str(tmp_path / "deck.mbd"), echo=lambda *a: None)
    s = deck.model.hull_buoyancies
    assert [x.label for x in s] == [1, 2, 3, 4, 5, 6]
    w = s[5].wave
    assert (list(w.amplitude), list(w.omega), list(w.phase), w.heading, w.water_depth, w.g, s[5].wave_ramp) == \
        ([0.1], [2.0], [0.5], np.pi / 4, 30.0, 9.8, 3.0) and s[0].wave is None
    assert abs(s[0].hull.volume - 16.0) < 1e-12 and s[0].density == 1025.0 and s[0].gravity == 9.81
    assert s[1].water_level == 0.1 and not s[1].output and np.allclose(s[1].offset, [0, 0, 0.2])
    assert np.allclose(s[1].orientation, rx(0.1)) and abs(s[1].hull.volume - cyl.volume) < 1e-12
    assert np.allclose(s[2].upward, [0, 0.6, 0.8]) and len(s[2].hull.triangles) == 2 * 6 * 2 * 6 - 2 * 12
    assert abs(s[3].hull.volume - cyl.volume) < 1e-12
    assert abs(s[4].hull.volume - 1 / 6) < 1e-12 and s[4].gravity == 1.62 and s[4].density == 1000.0
    assert deck.model.origin("hull buoyancy", 3).endswith(f"deck.mbd:{text[:text.index('force: 3')].count(chr(10)) + 1}")
    r = deck.run(output_prefix=str(tmp_path / "out"))
    assert np.allclose(r.x[:, 0], 0, atol=1e-10)        # the box 4 × 2 × 2 at draft 1 m: m = ρ 4·2·1
    rows = np.loadtxt(tmp_path / "out.buo")
    labels = rows[:, 0].astype(int)
    assert set(labels) == {1, 3, 4, 5, 6}
    last = rows[labels == 1][-1, 1:]
    W = 1025 * 9.81 * 8.0
    assert np.allclose(last[0:3], [0, 0, W], atol=1e-8 * W) and np.allclose(last[3:6], 0, atol=1e-8 * W)
    assert np.allclose(last[6:8], [8.0, 8.0], rtol=1e-6) and np.allclose(last[8:11], [0, 0, -0.5], atol=1e-6)


def test_deck_card_errors_name_the_word():
    """Misspelled keywords are rejected by name; bad values and open panel meshes point at
    their word."""
    deck_errors("    force: 1, hull buoyancy, 1, boxx, 1., 1., 1.;", "boxx",
                "hull buoyancy: unknown hull type 'boxx' (one of box, cylinder, sphere, mesh, panels)")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., 1., 1., densty, 1000.;", "densty",
                "hull buoyancy: unknown option 'densty' (one of density, gravity, water level, upward, regular wave, "
                "output)")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., 1., 1., regular wave, 0.1, 1., heading, 0.3, heding, 1.;",
                "heding", "hull buoyancy: unknown option 'heding'")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., 1., 1., density, 1., phase, 1.;", "phase",
                "hull buoyancy: 'phase' belongs right after 'regular wave, <amplitude>, <omega>'")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., 1., 1., regular wave, 0.1, -2.;", "-2.;",
                "hull buoyancy: the wave frequency must be positive")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., 1., 1., upward, 1., 0., 0., regular wave, 0.1, 1.;",
                "regular wave", "hull buoyancy 1: waves need the upward direction +z")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., 1., 1., water levle, 1.;", "water levle",
                "hull buoyancy: unknown option 'water levle'")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., -1., 1.;", "-1., 1.;",
                "hull buoyancy: the box breadth must be positive")
    deck_errors("    force: 1, hull buoyancy, 1, cylinder, 1., 1., sides, 2;", "2;\n",
                "hull buoyancy: the number of sides must be at least 3")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., 1., 1., density, 1., density, 2.;", "density, 2",
                "hull buoyancy: option 'density' given twice")
    deck_errors("    force: 1, hull buoyancy, 1, box, 1., 1., 1., upward, 0., 0., 0.;", "0., 0., 0.;",
                "hull buoyancy: the upward direction is null")
    deck_errors("    force: 1, hull buoyancy, 1, panels, 4, 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0., 1.,"
                " 4, 3, 1, 3, 2, 3, 1, 2, 4, 3, 2, 3, 5, 3, 3, 1, 4;", "5, 3, 3",
                "hull buoyancy: vertex number 5 out of range 1..4")
    deck_errors("    force: 1, hull buoyancy, 1, panels, 4, 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0., 1.,"
                " 4, 3, 1, 3, 2, 3, 1, 2, 4, 3, 2, 3, 4, 3, 3, 1, 2;", "4, 0., 0.",
                "hull buoyancy: hull panels: faces inconsistently oriented")
    deck_errors("    force: 1, hull buoyancy, 1, mesh, \"missing.stl\";", "\"missing.stl\"",
                "hull buoyancy: ")
    deck_errors("    force: 1, hull buoyancy, 3, box, 1., 1., 1.;", "3, box", "Structural(3) not defined")


def test_model_builder_errors():
    m = Model()
    m.structural_node(1, "static")
    m.structural_node(2, "static displacement")
    with pytest.raises(TypeError, match="hull must be a Hull"):
        m.hull_buoyancy(1, 1, "box")
    m.hull_buoyancy(1, 1, box_hull(1, 1, 1))
    with pytest.raises(ValueError, match="hull buoyancy 1 is already defined"):
        m.hull_buoyancy(1, 1, box_hull(1, 1, 1))
    with pytest.raises(ValueError, match="must be positive"):
        m.hull_buoyancy(2, 1, box_hull(1, 1, 1), density=-1.0)
    with pytest.raises(ValueError, match="upward direction is null"):
        m.hull_buoyancy(2, 1, box_hull(1, 1, 1), upward=[0, 0, 0])
    m.hull_buoyancy(2, 2, box_hull(1, 1, 1))
    with pytest.raises(ValueError, match="structural node 2 has no rotation"):
        System(m)
    m.hull_buoyancies[1].node = 7
    with pytest.raises(ValueError, match="structural node 7 is not defined"):
        System(m)
    assert isinstance(box_hull(1, 1, 1), Hull)
