"""Aerodynamic body / beam2 / beam (theory manual Ch. 13; elements/aerodynamic.py) against
physics and against MBDyn 1.7.3:

- a rigid wing section in a steady stream gives the C81 table's lift, drag and moment
  exactly: F = ½ρV²·c·b·(cl, cd), M = ½ρV²·c²·b·cm at a table angle and Mach number;
- the standard atmosphere against its closed form (troposphere and stratosphere);
- a straight beam2/beam in a uniform stream: Σ nodal forces = the sectional force per unit
  span × the length (the spanwise Gauss weights and |∂x/∂s| of 13.5-13.6), Σ nodal moments
  about the origin = the mid-point × that force (the moment transfer to the nodes, 13.19);
- Theodorsen states: a harmonically plunging section's lift against the model's closed form
  (R. T. Jones's C(k) plus the apparent mass ik/2) within 1 % and Theodorsen's exact C(k)
  within 4 % at k = 0.05, 0.1, 0.5 (1 in the long form);
- objectivity: the free stream is fixed in space, so the loads are not objective under a
  rigid motion of the nodes alone (the generated objectivity checks of
  tests/test_element_checks.py do not list this family for that reason); turning the nodes
  *and* the free stream by Q turns the nodal loads by Q;
- MBDyn's decks c81/*, aero/{p0, p2, aerobody, aerosweep, front1d} against MBDyn's outputs
  (../shared/mbdyn-ref/wave2): node motion and clamp reactions (= the integrated aerodynamic
  loads) within 1e-4 (skipped when the shared folder is absent)."""
import os

import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.state import Context
from mbdae.engine.core import rotations as rot
from mbdae.engine.core import air as airmod
from scipy.special import hankel2

from mbdae.engine.core.airfoil import read_c81, write_c81
from mbdae.elements.aerodynamic import Airfoil, Shape, thin_airfoil_table
from mbdae.engine.io.mbdyn.deck import read_deck
from mbdae.engine.io.mbdyn import reference as mbdyn_ref

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
C81_FILE = os.path.join(SHARED, "mbdyn-tests", "aero", "naca0012.c81")
needs_c81 = pytest.mark.skipif(not os.path.isfile(C81_FILE), reason=f"{C81_FILE} not found")


def aero_family(model):
    return System(model).family_with("nodal_loads")


def loads(model, t=0.0):
    """(family, nodal loads (ne, 3, 6), kinematics) at the model's initial state."""
    system = System(model)
    st = system.initial_state(t)
    kin = system.kinematics(st, 0.5)
    fam = system.family_with("nodal_loads")
    return fam, fam.nodal_loads(Context(st.t, st.y, st.yp, kin, "regular", None, st.families)), kin


# ------------------------------------------------------------------ steady section vs table
@needs_c81
@pytest.mark.parametrize("alpha_deg,mach", [(4.0, 0.3), (-10.0, 0.5), (12.0, 0.2)])
def test_rigid_section_gives_the_table_loads(alpha_deg, mach):
    """A clamped wing segment (chord c, span b) at a table angle α and Mach number M of the
    C81 file: lift ⟂ and drag ∥ to the stream are ½ρV²cb·cl and ½ρV²cb·cd, the pitching
    moment ½ρV²c²b·cm, the raw table entries (no interpolation involved)."""
    table = read_c81(C81_FILE)
    rho, c_sound, chord, span = 1.225, 340.0, 0.7, 3.0
    V = mach * c_sound

    def entry(tab, mach_vec):
        i = int(np.flatnonzero(tab[:, 0] == alpha_deg)[0])
        j = int(np.flatnonzero(np.isclose(mach_vec, mach))[0])
        return tab[i, j + 1]

    cl, cd, cm = entry(table.al, table.ml), entry(table.ad, table.md), entry(table.am, table.mm)
    m = Model()
    m.structural_node(1, "static")
    m.c81_tables[1] = table
    m.air_properties(rho, [V, 0.0, 0.0], sound_speed=c_sound)
    # airfoil axis 1 (trailing → leading edge) along -x, axis 2 along +z, span along +y; the
    # twist sets the angle of attack
    Ra = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]).T
    m.aerodynamic_body(1, 1, orientation=Ra, span=span, chord=chord, twist=np.radians(alpha_deg), points=3,
                       airfoil=Airfoil("c81", (1,)))
    fam, L, _ = loads(m)
    q = 0.5 * rho * V * V
    F, M = L[0, 0, :3], L[0, 0, 3:]
    assert np.allclose(F, [q * chord * span * cd, 0.0, q * chord * span * cl], rtol=1e-12, atol=1e-9 * q)
    # moment about the span axis (+y): the airfoil's cm (nose up positive about axis 3 = +y)
    assert M[1] == pytest.approx(q * chord * chord * span * cm, rel=1e-12, abs=1e-9 * q)
    out = fam.outa[0]
    assert out[1] == pytest.approx(alpha_deg, abs=1e-9) and out[3] == pytest.approx(mach, rel=1e-12)
    assert (out[4], out[5], out[6]) == pytest.approx((cl, cd, cm), rel=1e-12)


def test_standard_atmosphere_closed_form():
    """ρ, c at altitudes below and above z1 against T = T0 + a z, ρ = ρ0 (T/T0)^-(g/(aR)+1)
    and the isothermal exponential above (ISA: ρ(0) = 1.225, ρ(11 km) ≈ 0.3639, c(0) ≈ 340.3)."""
    m = Model()
    m.air_properties(None, [0.0, 0.0, 0.0], std="SI", reference_altitude=1000.0)
    arr = airmod.air_arrays(m.air, 0.0)
    for z in (-1000.0, 2000.0, 10000.0, 15000.0):
        rho, c, _ = airmod.air_state(arr, (0.0, 0.0, z))
        zz = z + 1000.0
        T = 288.16 - 6.5e-3 * min(zz, 11000.0)
        n = 9.81 / (-6.5e-3 * 287.0)
        expect = 1.225 * (T / 288.16) ** (-(n + 1.0))
        if zz > 11000.0:
            expect *= np.exp(-9.81 / (287.0 * T) * (zz - 11000.0))
        assert rho == pytest.approx(expect, rel=1e-13) and c == pytest.approx(np.sqrt(1.4 * 287.0 * T), rel=1e-13)
    rho0, c0, _ = airmod.air_state(airmod.air_arrays(m.air, 0.0), (0.0, 0.0, -1000.0))
    assert rho0 == pytest.approx(1.225, rel=1e-12) and c0 == pytest.approx(340.3, abs=0.1)
    rho11, _, _ = airmod.air_state(airmod.air_arrays(m.air, 0.0), (0.0, 0.0, 10000.0))
    assert rho11 == pytest.approx(0.3639, rel=2e-3)


# ------------------------------------------------------------------ beams: integration onto nodes
@pytest.mark.parametrize("kind", ["beam2", "beam3"])
def test_straight_beam_integrates_the_section_load(kind):
    """A straight beam of length L along y (nodes at rest, same orientation) in a uniform
    stream: every section sees the same W, so Σ F = f L with f the load per unit span of one
    aerodynamic body of unit span (one point, same section), and Σ (M_k + x_k × F_k) =
    x_mid × Σ F + L m (the section moment m per unit span)."""
    rng = np.random.default_rng(3)
    Q = rot.exp_rotvec(rng.normal(size=3))
    x0, L = rng.normal(size=3), 2.5
    axis = Q[:, 2]
    n = 2 if kind == "beam2" else 3
    V = np.array([60.0, 5.0, -4.0])
    m = Model()
    labels = list(range(1, n + 1))
    for k, lab in enumerate(labels):
        m.structural_node(lab, "static", position=x0 + axis * L * k / (n - 1), orientation=Q)
    m.structural_node(10, "static", position=x0 + axis * L / 2, orientation=Q)
    m.air_properties(1.1, V, sound_speed=330.0)
    Ra = rot.exp_rotvec(np.array([0.1, -0.2, 0.05]))
    common = dict(chord=0.4, force_point=0.05, velocity_point=-0.1, twist=0.03, points=3)
    if kind == "beam2":
        m.aerodynamic_beam2(1, labels, orientations=[Ra, Ra], **common)
    else:
        m.aerodynamic_beam(1, labels, orientations=[Ra, Ra, Ra], **common)
    m.aerodynamic_body(2, 10, orientation=Ra, span=1.0, **common)
    fam, Lds, kin = loads(m)
    body = Lds[1, 0]
    beam = Lds[0, :n]
    xs = kin.x[fam.nodes_idx[0, :n]]
    F = beam[:, :3].sum(axis=0)
    M = (beam[:, 3:] + np.cross(xs, beam[:, :3])).sum(axis=0)
    xmid = x0 + axis * L / 2
    assert np.allclose(F, L * body[:3], rtol=1e-12, atol=1e-12 * np.abs(body).max())
    assert np.allclose(M, np.cross(xmid, F) + L * body[3:], rtol=1e-11, atol=1e-11 * np.abs(M).max())


# ------------------------------------------------------------------ objectivity with the stream
def _random_model(rng, Q=np.eye(3), c=np.zeros(3)):
    """Random nodes and elements of the three kinds; Q, c: a rigid motion applied to the
    nodes and to the free stream."""
    m = Model()
    for i in range(4):
        x, R = rng.normal(size=3), rot.exp_rotvec(rng.normal(size=3))
        v, w = rng.normal(size=3), rng.normal(size=3)
        m.structural_node(i + 1, "dynamic", position=Q @ x + c, orientation=Q @ R, velocity=Q @ v,
                          angular_velocity=Q @ w)
    Vinf = rng.normal(size=3) * 20.0
    m.air_properties(1.2, Q @ Vinf, sound_speed=340.0)
    Ra = [rot.exp_rotvec(rng.normal(size=3)) for _ in range(3)]
    f = [rng.normal(size=3) * 0.1 for _ in range(3)]
    m.aerodynamic_body(1, 1, offset=f[0], orientation=Ra[0], span=1.5, chord=Shape("linear", (0.5, 0.1)),
                       points=2, twist=0.1)
    m.aerodynamic_beam2(2, (2, 3), offsets=f[:2], orientations=Ra[:2], points=3, tip_loss=0.9)
    m.aerodynamic_beam(3, (2, 3, 4), offsets=f, orientations=Ra, points=2,
                       chord=Shape("piecewise linear", (), (-1.0, 0.2, 1.0), (0.6, 0.5, 0.2)))
    return m


def test_loads_turn_with_nodes_and_stream():
    seed = 11
    Q = rot.exp_rotvec(np.array([0.4, -1.1, 0.7]))
    c = np.array([1.0, -2.0, 0.5])
    _, L0, _ = loads(_random_model(np.random.default_rng(seed)))
    _, L1, _ = loads(_random_model(np.random.default_rng(seed), Q, c))
    a = L0.reshape(-1, 3)
    assert np.abs(a).max() > 1.0
    # forces turn by Q; moments are about each node, so they turn by Q too
    assert np.allclose(rot.matvec(Q, a), L1.reshape(-1, 3), atol=1e-10 * np.abs(a).max())


def test_loads_are_not_objective_without_the_stream():
    """Turning the nodes alone changes the relative wind: the loads do not just turn."""
    Q = rot.exp_rotvec(np.array([0.4, -1.1, 0.7]))
    _, L0, _ = loads(_random_model(np.random.default_rng(11)))
    m = _random_model(np.random.default_rng(11), Q)
    m.air.velocity = _random_model(np.random.default_rng(11)).air.velocity
    _, L1, _ = loads(m)
    a = L0.reshape(-1, 3)
    assert not np.allclose(rot.matvec(Q, a), L1.reshape(-1, 3), atol=1e-3 * np.abs(a).max())


# ------------------------------------------------------------------ MBDyn's decks
DECKS = ["c81/c81", "c81/c81x", "c81/multiple", "c81/c81-2", "aero/p0", "aero/p2"]
SLOW_DECKS = ["c81/c81x-2", "aero/aerobody", "aero/aerosweep", "c81/c81-3", "aero/front1d"]


def _run_deck(name, tmp_path, tol=1e-4):
    path = os.path.join(SHARED, "mbdyn-tests", name)
    ref = os.path.join(SHARED, "mbdyn-ref", "wave2", mbdyn_ref.ref_key(name))
    if not (os.path.isfile(path) and os.path.isdir(ref)):
        pytest.skip(f"{name} or MBDyn's outputs for it not found under {SHARED}")
    d = read_deck(path, echo=lambda *a: None)
    descriptions = {s.label: s.orientation_description for s in d.model.nodes + d.model.dummy_nodes}
    prefix = str(tmp_path / "run")
    d.run(prefix, progress=False)
    c = mbdyn_ref.compare_outputs(ref, prefix, descriptions)
    assert c.compared_steps >= 3 and not c.problems, c.problems
    assert c.position.value <= tol, (c.position.value, c.position.where())
    assert c.rotation.value <= tol, (c.rotation.value, c.rotation.where())
    assert c.reaction.value <= tol, (c.reaction.value, c.reaction.where())


@pytest.mark.parametrize("name", DECKS)
def test_deck_agrees_with_mbdyn(name, tmp_path):
    _run_deck(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_DECKS)
def test_long_deck_agrees_with_mbdyn(name, tmp_path):
    _run_deck(name, tmp_path, tol=2e-4 if name == "c81/c81x-2" else 1e-4)


# ------------------------------------------------------------------ Theodorsen: harmonic plunge
THEODORSEN_DECK = """
begin: data; problem: initial value; end: data;
begin: initial value;
    initial time: 0.; final time: {tf}; time step: {dt};
    tolerance: 1.e-9; max iterations: 20;
    method: ms, .6, .6;
end: initial value;
begin: control data;
    structural nodes: 1; joints: 1; air properties; aerodynamic elements: 1;
end: control data;
begin: nodes;
    structural: 1, static, null, eye, null, null;
end: nodes;
begin: elements;
    joint: 1, total pin joint, 1,
            position, null, position orientation, eye, rotation orientation, eye,
            position, null, position orientation, eye, rotation orientation, eye,
        position constraint, active, active, active,
            0., 0., 1., sine, 0., {omega}, {h0}, forever, 0.,
        orientation constraint, active, active, active, null;
    air properties: 1.225, 1.e6, single, 1., 0., 0., const, {U};
    c81 data: 1, "thin.c81", free format;
    aerodynamic body: 1, 1, reference, node, null,
        reference, node, 1, -1., 0., 0., 3, 0., 1., 0.,
        {span}, const, {chord}, const, {d14}, const, {d34}, const, 0., 1,
        theodorsen, c81, 1, jacobian, yes;
end: elements;
"""


def jones_C(k):
    """R. T. Jones's two-term approximation of Theodorsen's C(k) that the model integrates
    (13.69-13.71): 1 - A1 ik/(ik + b1) - A2 ik/(ik + b2)."""
    s = 1j * k
    return 1.0 - 0.165 * s / (s + 0.0455) - 0.335 * s / (s + 0.3)


def theodorsen_C(k):
    """Theodorsen's function C(k) = H1⁽²⁾(k) / (H1⁽²⁾(k) + i H0⁽²⁾(k))."""
    return hankel2(1, k) / (hankel2(1, k) + 1j * hankel2(0, k))


def _plunge_lift(k, tmp_path, periods_per_step=400):   # steps per period
    """(lift phasor per unit plunge, expected phasors): a section plunging h = h0 sin ωt
    across a stream U at reduced frequency k = ωc/2U; the lift of the last two periods
    fitted as A sin ωt + B cos ωt + C (phasor A + iB)."""
    U, chord, span, h0 = 100.0, 0.5, 2.0, 1e-3
    omega = 2.0 * U * k / chord
    T = 2 * np.pi / omega
    dt = T / periods_per_step
    tf = 0.5 + 2 * T
    write_c81(thin_airfoil_table(), str(tmp_path / "thin.c81"), free_format=True)
    deck = tmp_path / "plunge.mbd"
    deck.write_text(THEODORSEN_DECK.format(tf=tf, dt=dt, omega=omega, h0=h0, U=U, span=span, chord=chord,
                                           d14=0.25 * chord, d34=-0.25 * chord))
    d = read_deck(str(deck), echo=lambda *a: None)
    prefix = str(tmp_path / "run")
    d.run(prefix, progress=False)
    jnt = np.loadtxt(prefix + ".jnt")
    t = np.arange(len(jnt)) * dt
    sel = t >= tf - 2 * T - 1e-12
    A = np.column_stack([np.sin(omega * t[sel]), np.cos(omega * t[sel]), np.ones(sel.sum())])
    coef = np.linalg.lstsq(A, jnt[sel, 3], rcond=None)[0]
    L = (coef[0] + 1j * coef[1]) / h0
    # quasi-steady angle α = -ḣ/U (phasor -iωĥ/U); lift = ½ρU²c b 2π (C(k) + ik/2) α
    q = 0.5 * 1.225 * U * U * chord * span * 2 * np.pi
    alpha = -1j * omega / U
    return L, q * (jones_C(k) + 0.5j * k) * alpha, q * (theodorsen_C(k) + 0.5j * k) * alpha


@pytest.mark.parametrize("k", [0.05, 0.1])
def test_theodorsen_plunge_against_closed_form(k, tmp_path):
    """Lift of a harmonically plunging Theodorsen section: amplitude and phase against the
    closed form of the model (Jones's C(k), apparent mass ik/2) within 1 %, and against
    Theodorsen's exact C(k) within the approximation's few per cent."""
    L, model, exact = _plunge_lift(k, tmp_path)
    assert abs(L / model - 1.0) < 1e-2, (L, model)
    assert abs(L / exact - 1.0) < 4e-2, (L, exact)


@pytest.mark.slow
@pytest.mark.parametrize("k", [0.5, 1.0])
def test_theodorsen_plunge_long(k, tmp_path):
    L, model, exact = _plunge_lift(k, tmp_path, periods_per_step=800)
    assert abs(L / model - 1.0) < 1e-2, (L, model)
    assert abs(L / exact - 1.0) < 4e-2, (L, exact)


# ------------------------------------------------------------------ deck cards
CARD_DECK = """
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.e-3; time step: 1.e-3; end: initial value;
begin: control data; structural nodes: 1; joints: 1; air properties; aerodynamic elements: 1; end: control data;
begin: nodes; structural: 1, static, null, eye, null, null; end: nodes;
begin: elements;
    joint: 1, clamp, 1, node, node;
    air properties: std, SI, temperature deviation, -10., reference altitude, 100., single, 1., 0., 0., const, 50.;
    aerodynamic body: 1, 1, reference, node, null, reference, node, 1, -1., 0., 0., 2, 0., 0., 1., 2.,
        linear, 1.2, .8, piecewise linear, 2, -1., .1, 1., .2, parabolic, 0., .05, 0., const, .03,
        tip loss, const, .9, 2, {airfoil};
end: elements;
"""


def _card_deck(tmp_path, airfoil):
    path = tmp_path / "cards.mbd"
    path.write_text(CARD_DECK.format(airfoil=airfoil))
    return read_deck(str(path), echo=lambda *a: None)


def test_cards_read_into_the_model(tmp_path):
    """The card's shapes, tip loss, points and the standard atmosphere with its options."""
    d = _card_deck(tmp_path, "naca0012")
    s = d.model.aero_elements[0]
    assert s.kind == "body" and s.span == 2.0 and s.points == 2 and s.airfoil.kind == "naca0012"
    assert s.chord.value(np.array([-1.0, 1.0])) == pytest.approx([1.2, 0.8])
    assert s.force_point.value(np.array([0.0])) == pytest.approx([0.15])
    assert s.velocity_point.value(np.array([-1.0, 0.0, 1.0])) == pytest.approx([0.0, 0.05, 0.0])
    assert s.tip_loss.value(np.array([0.3])) == pytest.approx([0.9])
    air = d.model.air
    assert air.kind == "std" and air.z0 == 100.0
    assert air.std["T0"] == pytest.approx(278.16) and air.density.value(0.0) == pytest.approx(1.225 * 288.16 / 278.16)


@pytest.mark.parametrize("airfoil,message", [
    ("c81, 7", "c81 data 7 is not defined"),
    ("c81, 7, unsteady, harris", "c81 data 7 is not defined"),
    ("naca0012, unsteady, harris", "Harris"),
    ("theodorsen, c81, 7", "c81 data 7 is not defined"),
])
def test_card_errors_name_the_word(tmp_path, airfoil, message):
    with pytest.raises(Exception) as err:
        _card_deck(tmp_path, airfoil)
    assert message in str(err.value) and "cards.mbd:" in str(err.value)
