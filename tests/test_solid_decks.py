"""MBDyn's solid decks (../shared/mbdyn-tests/solid) that mbdae reads today run to their final
time (MBDyn 1.7.3 runs none of them: the solid family is in MBDyn's development branch, so
there is no reference output; the physics of the family is checked in tests/test_solid.py,
test_solid_laws.py and test_surface_load.py).  The short form runs two decks and the
rotordynamics deck 0004 (with its physics); MBDAE_LONG=1 runs every deck listed."""
import os

import numpy as np
import pytest

from mbdae.engine.io.mbdyn.deck import read_deck
from mbdae.elements.registry import element_cards
from mbdae.engine.core.rotations import euler123_to_R
from mbdae.engine.io.mbdyn.reference import blocks, read_lines, output_times

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
DECKS = os.path.join(SHARED, "mbdyn-tests", "solid")
pytestmark = pytest.mark.skipif(not os.path.isdir(DECKS), reason="MBDyn's solid decks (../shared) not available")
LONG = os.environ.get("MBDAE_LONG") == "1"
SHORT = ["bathe/mbdyn_test_solid_0001.mbd", "pressure/pressureload2.mbd"]
RUNNING = SHORT + [f"bathe/mbdyn_test_solid_{k:04d}.mbd" for k in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 23, 24, 25, 26, 27)] \
    + ["sedlan/mbdyn_test_solid_0006.mbd"]


@pytest.mark.parametrize("deck", RUNNING if LONG else SHORT)
def test_solid_deck_runs_to_its_final_time(deck, tmp_path):
    d = read_deck(os.path.join(DECKS, deck), echo=lambda *a: None)
    prefix = str(tmp_path / os.path.basename(deck))
    d.run(prefix)
    mov = blocks(read_lines(f"{prefix}.mov"))
    assert len(mov) >= 2
    last = np.array(list(mov[-1].values()), float)
    assert np.isfinite(last).all()
    steps = [line.split() for line in open(f"{prefix}.out") if line.startswith("Step")]
    assert len(mov) == 1 + sum(int(s[-1]) for s in steps[1:])          # a block per output step
    assert steps[-1][-1] == "1" and float(steps[-1][2]) > 0


# ------------------------------------------------------------ decks with a closed-form check
# (the joints and pressure decks couple displacement nodes to nodes with rotation; sedlan's
# decks are solids held and driven through offset displacement joints)
SEDLAN = [f"sedlan/mbdyn_test_solid_{k:04d}.mbd" for k in (1, 2, 4, 8, 10, 11, 13, 14, 15)]


# shear moduli of the sedlan decks twisted by a small angle (Mooney-Rivlin: 2 (C1 + C2);
# E, ν forms: E / (2 (1 + ν))) and the angle (degrees)
SMALL_TWIST = {"sedlan/mbdyn_test_solid_0010.mbd": (5.0 / 3.0, 10.0),
               "sedlan/mbdyn_test_solid_0014.mbd": (2 * (6.6711140760507004e-01 + 1.6677785190126751e-01), 1.0),
               "sedlan/mbdyn_test_solid_0015.mbd": (5.0 / (2 * 1.499), 1.0)}


@pytest.mark.parametrize("deck", SEDLAN if LONG else [])
def test_sedlan_deck_twists_the_bar(deck, tmp_path):
    """A bar (radius 5, length 20; static solids, Mooney-Rivlin, neo-Hookean, u/p-c) between
    two end nodes coupled to its end faces by offset displacement joints, one held and one
    turned by total pin joints, run to the final time (0008: to its `abort after: regular
    step, 10`; the output meter, closest next t1/20, need not write the last step).  The end
    reactions balance (no other load); twisted by 1° or 10° the torque is Saint-Venant's
    G J φ / L (J = π r⁴/2; the rigid end faces do not warp a circular section) within 0.5 %
    (a faceted circle, nonlinear laws)."""
    d = read_deck(os.path.join(DECKS, deck), echo=lambda *a: None)
    prefix = str(tmp_path / os.path.basename(deck))
    r = d.run(prefix)
    mov = blocks(read_lines(f"{prefix}.mov"))
    assert np.isfinite(np.array(list(mov[-1].values()), float)).all()
    steps = [line.split() for line in open(f"{prefix}.out") if line.startswith("Step")]
    assert len(mov) == 1 + sum(int(s[-1]) for s in steps[1:])
    end = 10 * d.settings["time_step"] if d.abort_after else d.settings["final_time"]
    assert np.isclose(float(steps[-1][2]), end)
    F1, M1 = (h[-1] for h in r.joint(1))
    F2, M2 = (h[-1] for h in r.joint(2))
    scale = np.abs(np.concatenate([M1, M2])).max()
    pins = {s.label: s.node2 for s in d.model.joints if s.type == "total pin joint"}
    x1, x2 = r.x[-1, r.index(pins[1])], r.x[-1, r.index(pins[2])]
    assert np.allclose(F1 + F2, 0.0, atol=1e-3 * scale)
    assert np.allclose(M1 + M2 + np.cross(x1, F1) + np.cross(x2, F2), 0.0, atol=1e-3 * scale)
    if deck in SMALL_TWIST:
        G, degrees = SMALL_TWIST[deck]
        torque = G * np.pi * 5.0 ** 4 / 2 * np.radians(degrees) / 20.0
        assert abs(M2[0] - torque) < 5e-3 * torque


def _run(deck, tmp_path):
    d = read_deck(os.path.join(DECKS, deck), echo=lambda *a: None)
    prefix = str(tmp_path / os.path.basename(deck))
    results = d.run(prefix)
    times = output_times(read_lines(f"{prefix}.out"))
    return d, results, prefix, times


def test_rigid_body_displacement_joint_deck_carries_the_master_load(tmp_path):
    """joints/rigidbodydisplacementjoint (static): the master node 7 carries the force
    (0, 0, t) applied at the point P = (1, 0, 0) fixed to it, and the slaves (offset points of
    the spinning node 2) take it all: the joint's .jnt force is (0, 0, t) and its couple the
    moment of that force about node 7, (P(t) - x7) × F, to the deck's tolerance (1e-5)."""
    _, r, prefix, times = _run("joints/rigidbodydisplacementjoint.mbd", tmp_path)
    jnt = blocks(read_lines(f"{prefix}.jnt"))
    k7 = r.index(7)
    x70 = r.x[0, k7]
    arm0 = r.R[0, k7].T @ (np.array([1.0, 0.0, 0.0]) - x70)
    assert len(jnt) == len(times) == len(r.t) and np.isclose(times[-1], 1.0)
    for t, row, x7, R7 in zip(r.t, jnt, r.x[:, k7], r.R[:, k7]):
        F = np.array([0.0, 0.0, t])
        values = np.array(row[6], float)
        assert np.allclose(values[6:9], F, atol=1e-8)
        assert np.allclose(values[9:12], np.cross(R7 @ arm0, F), atol=1e-6)
        assert np.allclose(values[0:3], R7.T @ F, atol=1e-8)


def test_hydrostatic2_deck_floats_in_equilibrium(tmp_path):
    """pressure/hydrostatic2: a plate as dense as the liquid, fully submerged, spinning freely:
    the abstract nodes hold p = ρ g (-z) at the corners (spring + cross spring supports), the
    buoyancy of the pressure on the closed surface balances the weight (the centre stays) and
    carries no moment (|ω| stays: a torque-free symmetric top)."""
    _, r, prefix, times = _run("pressure/hydrostatic2.mbd", tmp_path)
    k0 = r.index(0)
    assert r.t[-1] > 9.98               # its output meter (closest next, 1e-3) writes every other step
    assert np.abs(r.x[:, k0] - r.x[0, k0]).max() < 1e-8
    w = np.linalg.norm(r.w[:, k0], axis=1)
    assert np.abs(w - w[0]).max() < 1e-6 * w[0]
    ab = blocks(read_lines(f"{prefix}.abs"))
    assert len(ab) == len(r.x)
    for row, x in zip(ab, r.x):                   # t0 too: the derivatives phase solves p (as MBDyn)
        z = np.array([x[r.index(label)][2] for label in row])
        p = np.array([v[0] for v in row.values()], float)
        assert np.allclose(p, -1000 * 9.81 * z, rtol=1e-9)


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: 10 000 steps")
def test_hydrostatic_deck_pressures(tmp_path):
    """pressure/hydrostatic: p = ρ g (-z) at the twelve nodes at every output step (its face 3,
    4-3-11-10, leaves the surface open, so the block is not in equilibrium and drifts, in
    MBDyn too)."""
    _, r, prefix, _ = _run("pressure/hydrostatic.mbd", tmp_path)
    ab = blocks(read_lines(f"{prefix}.abs"))
    for row, x in zip(ab, r.x):
        z = np.array([x[r.index(label)][2] for label in row])
        assert np.allclose(np.array([v[0] for v in row.values()], float), -1000 * 9.81 * z, rtol=1e-9)


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: 10 000 steps")
def test_offset_displacement_joint_deck_closed_form(tmp_path):
    """joints/offsetdisplacementjoint: node 3 (displacement) stays at node 2's offset point
    (0.2, 0.3, 0.4), node 2 spinning at 2π rad/s: x3 = x2 + R2 (0.2, 0.3, 0.4)."""
    _, r, _, _ = _run("joints/offsetdisplacementjoint.mbd", tmp_path)
    k2, k3 = r.index(2), r.index(3)
    expected = r.x[:, k2] + np.einsum("nij,j->ni", r.R[:, k2], [0.2, 0.3, 0.4])
    assert np.isclose(r.t[-1], 1.0) and np.allclose(r.x[:, k3], expected, atol=1e-9)


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1")
def test_pressureload_deck_clamp_reactions(tmp_path):
    """pressure/pressureload: a collapsed quadrangle (a triangle of half the a(1+t) × b(1+t)
    rectangle) turning about y under p = 15 MPa · t from abstract nodes: the clamps' reactions
    add up to the pressure resultant, p A along the face normal."""
    _, r, prefix, _ = _run("pressure/pressureload.mbd", tmp_path)
    gen = blocks(read_lines(f"{prefix}.gen"))
    a, b = 10e-3, 30e-3
    for t, row in zip(r.t, gen):
        lam = np.array([row[label][0] for label in range(1, 13)], float).reshape(4, 3).sum(axis=0)
        area = 0.5 * a * b * (1 + t) ** 2
        normal = np.array([np.sin(2 * np.pi * t), 0.0, -np.cos(2 * np.pi * t)])
        assert np.allclose(lam, 15e6 * t * area * normal * np.sign(lam @ normal), atol=1e-6 * 15e6 * area + 1e-9)


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1")
def test_rigid_body_displacement_joint2_deck_runs(tmp_path):
    """joints/rigidbodydisplacementjoint2: the master of four clamped, moving slaves with 100
    dummy steps (implicit Euler) before msstc5 steps."""
    test_solid_deck_runs_to_its_final_time("joints/rigidbodydisplacementjoint2.mbd", tmp_path)


# ------------------------------------------------------------------ rotordynamics
ROTOR = "rotordynamics/mbdyn_test_solid_{:04d}.mbd"
OMEGA0, OMEGA1 = 1.0471975511965977e-01, 1.0471975511965976e+00      # the decks' mbdyn_test_solid_1.set


def run_rotor_deck(k, tmp_path):
    """(times, steps, {node: (steps, 12) .mov rows}, final time) of rotordynamics deck k
    (times and steps as the .out writes them: 10 significant digits)."""
    d = read_deck(os.path.join(DECKS, ROTOR.format(k)), echo=lambda *a: None)
    prefix = str(tmp_path / f"rotor{k}")
    d.run(prefix)
    mov = blocks(read_lines(f"{prefix}.mov"))
    rows = [s.split() for s in open(f"{prefix}.out") if s.startswith("Step")]
    t = np.array([float(r[2]) for r in rows])              # "Step 0" is the initial configuration
    h = np.array([float(r[3]) for r in rows[1:]])
    nodes = {n: np.array([b[n] for b in mov], float) for n in mov[0]}
    return t, h, nodes, d.settings["final_time"]


def spin(rows):
    """(Rᵀω)_z of a node's .mov rows (Euler 1-2-3 angles in degrees, ω global)."""
    R = euler123_to_R(np.radians(rows[:, 3:6]))
    return np.einsum("ti,ti->t", R[:, :, 2], rows[:, 9:12])


def test_rotor_speed_and_time_step_follow_their_drives(tmp_path):
    """Rotordynamics deck 0004 (beam3 shaft on two bearings, rigid rotor with an unbalance,
    spun up in the inertial frame by an `angular velocity` joint, time step from a drive by
    `strategy: change`): the rotor's spin about its own axis (Rᵀω)_z equals
    ω(t) = ω0 + (ω1 - ω0) t/T at every step (its global ω_z differs by the whirl's tilt,
    4e-6 relative), and every step after the first is 2π/(360 ω) at the time the previous
    one reached."""
    t, h, nodes, T = run_rotor_deck(4, tmp_path)
    assert t[-1] == pytest.approx(T, rel=1e-9) and len(t) > 3000
    omega = OMEGA0 + (OMEGA1 - OMEGA0) * t / T
    np.testing.assert_allclose(spin(nodes[2001]), omega, rtol=1e-8)
    assert h[0] == pytest.approx(2 * np.pi / (360 * OMEGA0), rel=1e-9)
    np.testing.assert_allclose(h[1:-1], 2 * np.pi / (360 * omega[1:-2]), rtol=1e-8)


def assert_same_whirl(t, rotating, inertial, T, nodes, tolerance):
    """The rotating-frame run's node positions, rotated back by φ(t) = ∫ω, equal the inertial
    run's to `tolerance` of the whirl amplitude."""
    phi = OMEGA0 * t + 0.5 * (OMEGA1 - OMEGA0) / T * t ** 2
    c, s = np.cos(phi), np.sin(phi)
    for node in nodes:
        xr, xi = rotating[node][:, :3], inertial[node][:, :3]
        back = np.stack([c * xr[:, 0] - s * xr[:, 1], s * xr[:, 0] + c * xr[:, 1], xr[:, 2]], axis=1)
        whirl = np.abs(xi[:, :2]).max()
        assert whirl > 0.5
        assert np.abs(xi - back).max() < tolerance * whirl, node


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: the rotating-frame twin of deck 0004")
def test_rotor_in_rotating_frame_matches_the_inertial_spin(tmp_path):
    """Decks 0003 (rotating frame: `rigid body kinematics` with ω(t), ω̇; the rotor held at zero
    relative spin) and 0004 (inertial frame, spun by the joint) describe the same motion: the
    shaft's whirl agrees once rotated back by the frame's rotation φ(t) = ∫ω, to 1e-3 of the
    whirl amplitude (the two discretizations' difference; measured 6e-4)."""
    t3, _, n3, T = run_rotor_deck(3, tmp_path)
    t4, _, n4, _ = run_rotor_deck(4, tmp_path)
    np.testing.assert_allclose(t3, t4, rtol=1e-9)
    assert_same_whirl(t3, n3, n4, T, (2001, 2003, 2005), 1e-3)


NEEDS_RBD = pytest.mark.skipif("rigid body displacement joint" not in element_cards(),
                               reason="the solid rotor decks need the rigid body displacement joint (branch solid-joints)")


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: the solid rotordynamics decks (5 min each)")
@NEEDS_RBD
@pytest.mark.parametrize("rotating,inertial", [(1, 5), (8, 9)])
def test_solid_rotor_twins(rotating, inertial, tmp_path):
    """The solid rotor written in the rotating frame (0001 elastic, 0008 viscoelastic: the
    rotor at zero relative spin) and spun in the inertial frame (0005, 0009: its spin about
    its axis follows the drive) whirls the same once rotated back (measured 5.7e-4 of the
    1.22 mm whirl for 0001/0005)."""
    tr, _, nr, T = run_rotor_deck(rotating, tmp_path)
    ti, _, ni, _ = run_rotor_deck(inertial, tmp_path)
    np.testing.assert_allclose(tr, ti, rtol=1e-9)
    assert tr[-1] == pytest.approx(T, rel=1e-9)
    np.testing.assert_allclose(spin(nr[654]), 0.0, atol=1e-9 * OMEGA1)
    np.testing.assert_allclose(spin(ni[654]), OMEGA0 + (OMEGA1 - OMEGA0) * ti / T, rtol=1e-8)
    assert_same_whirl(tr, nr, ni, T, (654,), 1e-3)


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: the solid rotordynamics decks (5 min each)")
@NEEDS_RBD
@pytest.mark.parametrize("k", [7, 10])
def test_solid_rotor_decks_with_gravity_run(k, tmp_path):
    """The lumped-mass solid rotors under gravity along the shaft (0007 elastic, 0010
    viscoelastic) run to their final time with the rotor's spin following the drive."""
    t, _, nodes, T = run_rotor_deck(k, tmp_path)
    assert t[-1] == pytest.approx(T, rel=1e-9)
    np.testing.assert_allclose(spin(nodes[654]), OMEGA0 + (OMEGA1 - OMEGA0) * t / T, rtol=1e-8)


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: the solid rotordynamics decks (5 min each)")
@NEEDS_RBD
def test_modal_rotor_follows_the_solid_rotor(tmp_path):
    """Deck 0002 (the rotor as a 22-mode modal body: FEM records 12-19, invariants from the FE
    program and stress stiffening) against deck 0005 (the same rotor as solid elements, spun
    the same way in the inertial frame): the rotor centre's whirl radius agrees to 2.5 % while
    the speed is well below the critical one (first 100 output steps; measured 1.9 %), its
    peak to 5 % (1.18 against 1.22 mm, -3.3 %) and the peak's time to 7 % (measured +3.3 %:
    the reduced rotor's critical speed is that much higher, 22 modes)."""
    tm, _, nm, T = run_rotor_deck(2, tmp_path)
    ts, _, ns, _ = run_rotor_deck(5, tmp_path)
    np.testing.assert_allclose(tm, ts, rtol=1e-9)
    rm, rs = (np.hypot(n[:, 0], n[:, 1]) for n in (nm[2002], ns[654]))
    assert np.abs(rm[:101] - rs[:101]).max() < 0.025 * rs[:101].max()
    assert abs(rm.max() / rs.max() - 1) < 0.05
    assert abs(tm[rm.argmax()] / ts[rs.argmax()] - 1) < 0.07


def inertia_lines(k):
    """{quantity: values} of the `inertia` summary rotordynamics deck k writes to its .log
    (computed when the deck is read, at the initial configuration)."""
    d = read_deck(os.path.join(DECKS, ROTOR.format(k)), echo=lambda *a: None)
    rows = [line.split(":", 1) for line in d.log_lines if line.startswith("    ")]
    return {key.strip(): np.array(value.split(), float) for key, value in rows}


def test_modal_rotor_has_the_inertia_of_the_solid_rotor():
    """The `inertia` card over `body, all, joint, all` of deck 0006 (the rotor as a modal
    joint: its mass properties at the initial modal coordinates, from the FEM file's
    invariants) gives the mass, centre of mass and inertia tensor of deck 0005's `body, all,
    solid, all` (the same rotor as 140 solid elements with their consistent mass): 2260.4 kg
    to 1e-9, J to 1e-7 of its largest entry."""
    modal, solid = inertia_lines(6), inertia_lines(5)
    assert modal["modal joints"] == 1 and solid["solids"] == 140
    assert modal["mass"][0] == pytest.approx(solid["mass"][0], rel=1e-9) and modal["mass"][0] > 2000
    np.testing.assert_allclose(modal["Xcg"], solid["Xcg"], rtol=0, atol=1e-6 * np.abs(solid["Xcg"]).max())
    np.testing.assert_allclose(modal["J"], solid["J"], rtol=0, atol=1e-7 * np.abs(solid["J"]).max())
