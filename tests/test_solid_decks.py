"""MBDyn's solid decks (../shared/mbdyn-tests/solid) that mbdae reads today run to their final
time (MBDyn 1.7.3 runs none of them: the solid family is in MBDyn's development branch, so
there is no reference output; the physics of the family is checked in tests/test_solid.py,
test_solid_laws.py and test_surface_load.py).  The short form runs two decks and the
rotordynamics deck 0004 (with its physics); MBDAE_LONG=1 runs every deck listed."""
import os

import numpy as np
import pytest

from mbdae.engine.io.mbdyn.deck import read_deck
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


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: the rotating-frame twin of deck 0004")
def test_rotor_in_rotating_frame_matches_the_inertial_spin(tmp_path):
    """Decks 0003 (rotating frame: `rigid body kinematics` with ω(t), ω̇; the rotor held at zero
    relative spin) and 0004 (inertial frame, spun by the joint) describe the same motion: the
    shaft nodes' whirl agrees once transformed by the frame's rotation φ(t) = ∫ω, to 1e-3 of
    the whirl amplitude (the two discretizations' difference)."""
    t3, _, n3, T = run_rotor_deck(3, tmp_path)
    t4, _, n4, _ = run_rotor_deck(4, tmp_path)
    np.testing.assert_allclose(t3, t4, rtol=1e-9)
    phi = OMEGA0 * t3 + 0.5 * (OMEGA1 - OMEGA0) / T * t3 ** 2
    c, s = np.cos(phi), np.sin(phi)
    for node in (2001, 2003, 2005):
        x3, x4 = n3[node][:, :3], n4[node][:, :3]
        back = np.stack([c * x3[:, 0] - s * x3[:, 1], s * x3[:, 0] + c * x3[:, 1], x3[:, 2]], axis=1)
        whirl = np.abs(x4[:, :2]).max()
        assert whirl > 0.5
        assert np.abs(x4 - back).max() < 1e-3 * whirl, node


def _has_card(name):
    from mbdae.elements.registry import element_cards
    return name in element_cards()


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: the solid rotordynamics decks")
@pytest.mark.skipif(not _has_card("rigid body displacement joint"),
                    reason="the solid rotor decks need the rigid body displacement joint (branch solid-joints)")
@pytest.mark.parametrize("k", [1, 5, 7, 8, 9, 10])
def test_solid_rotor_decks_run(k, tmp_path):
    """The solid-element rotor decks run to their final time; where the rotor is spun by the
    angular velocity joint (0005, 0007, 0009, 0010) its spin about its axis follows the drive,
    where the frame spins (0001, 0008: the rotor at zero relative spin) it stays 0."""
    t, _, nodes, T = run_rotor_deck(k, tmp_path)
    assert t[-1] == pytest.approx(T, rel=1e-9)
    omega = OMEGA0 + (OMEGA1 - OMEGA0) * t / T
    w = spin(nodes[654])
    if k in (1, 8):
        np.testing.assert_allclose(w, 0.0, atol=1e-9 * OMEGA1)
    else:
        np.testing.assert_allclose(w, omega, rtol=1e-8)
