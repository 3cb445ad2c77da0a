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
from mbdae.engine.io.mbdyn.reference import blocks, read_lines

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
