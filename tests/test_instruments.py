"""The `aircraft instruments` element (elements/instruments.py): its measures on a node in a
known motion against their definitions worked by hand, and MBDyn's aero/instruments deck (a
roll/pitch/yaw-driven airframe whose rates feed a follower couple through `element` drives)
against MBDyn 1.7.3's outputs (../shared/mbdyn-ref/wave2): motion and the clamp's reaction
(the couple, built from the instruments' roll and yaw rates) within 1e-4."""
import math
import os

import numpy as np
import pytest

from mbdae import Model
from mbdae.engine.io.mbdyn.deck import read_deck
from mbdae.engine.io.mbdyn import reference as mbdyn_ref
from mbdae.engine.system import System
from mbdae.elements.instruments import MEASURES
from mbdae.engine.core import rotations as rot

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
DECK = "aero/instruments"
DECK_PATH = os.path.join(SHARED, "mbdyn-tests", DECK)
REF = os.path.join(SHARED, "mbdyn-ref", "wave2", mbdyn_ref.ref_key(DECK))


def test_measures_of_a_climbing_banked_node():
    """A node at (100, −50, 300) m moving at V = (60, 5, 3) m/s with body axes yawed 30°,
    pitched 10° nose up and banked 20° right wing down (flight mechanics axes: x forward, y
    right, z down, world z up), Ω = (0.1, −0.2, 0.3) rad/s, in a head wind V∞ = (−10, 0, 0)."""
    yaw, pitch, bank = math.radians(30), math.radians(10), math.radians(20)
    # body axes in the world (z up): heading −yaw about world z, nose up, then roll
    Rw = rot.exp_rotvec(np.array([0, 0, -yaw]))
    Rp = rot.exp_rotvec(np.array([0, pitch, 0]))       # about body y (right): nose up with z down
    Rb = rot.exp_rotvec(np.array([bank, 0, 0]))
    flip = np.diag([1.0, -1.0, -1.0])                   # body z down, y right in a z-up world
    R = Rw @ flip @ Rp @ Rb
    X, V, W = np.array([100.0, -50.0, 300.0]), np.array([60.0, 5.0, 3.0]), np.array([0.1, -0.2, 0.3])
    m = Model()
    m.structural_node(1, "static", position=X, orientation=R, velocity=V, angular_velocity=W)
    m.air_properties(1.225, [-10.0, 0.0, 0.0], sound_speed=340.0)
    m.aircraft_instruments(1, 1, initial_latitude=0.5, initial_longitude=1.0)
    s = System(m)
    fam = next(f for f in s.families if f.name == "aircraft instruments")
    got = dict(zip(MEASURES, fam.measures(s.context(s.initial_state(0.0)))[0]))
    VV = V - np.array([-10.0, 0.0, 0.0])
    e1, e2 = R[:, 0], R[:, 1]
    assert got["airspeed"] == pytest.approx(np.linalg.norm(VV), rel=1e-14)
    assert got["groundspeed"] == pytest.approx(math.hypot(60, 5), rel=1e-14)
    assert got["altitude"] == 300.0
    assert got["attitude"] == pytest.approx(math.asin(e1[2]), abs=1e-14)
    assert got["attitude"] == pytest.approx(pitch, abs=1e-12)                  # nose up by the pitch angle
    assert got["bank"] == pytest.approx(math.asin(-e2[2]), abs=1e-14)
    assert got["turn"] == pytest.approx(0.3 * 60, rel=1e-14)
    assert got["slip"] == pytest.approx(math.atan2(VV[1], VV[0]), abs=1e-14)
    assert got["verticalspeed"] == 3.0
    vb = R.T @ VV
    assert got["angleofattack"] == pytest.approx(-math.atan2(vb[2], vb[0]), abs=1e-14)
    # the nose points 30° from world x towards −y (MBDyn: world y points west): heading 30°
    assert got["heading"] == pytest.approx(yaw, abs=1e-12)
    assert got["longitude"] == 1.0 and got["latitude"] == 0.5                  # at the initial position
    assert np.allclose([got["rollrate"], got["pitchrate"], got["yawrate"]], R.T @ W, atol=1e-15)


@pytest.mark.skipif(not (os.path.isfile(DECK_PATH) and os.path.isdir(REF)),
                    reason=f"aero/instruments deck or MBDyn's outputs for it not found under {SHARED}")
def test_instruments_deck_agrees_with_mbdyn(tmp_path):
    d = read_deck(DECK_PATH, echo=lambda *a: None)
    descriptions = {s.label: s.orientation_description for s in d.model.nodes + d.model.dummy_nodes}
    prefix = str(tmp_path / "run")
    d.run(prefix, progress=False)
    c = mbdyn_ref.compare_outputs(REF, prefix, descriptions)
    assert c.compared_steps >= 40 and not c.problems, c.problems
    assert c.position.value <= 1e-4 and c.rotation.value <= 1e-4
    assert c.reaction.value <= 1e-4, (c.reaction.value, c.reaction.where())
    aer = np.loadtxt(prefix + ".aer")
    assert aer.shape[1] == 1 + len(MEASURES) and np.all(aer[:, 1] == pytest.approx(100.0))   # airspeed
