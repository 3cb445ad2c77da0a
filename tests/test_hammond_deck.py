"""Hammond's ground-resonance rotor (../shared/mbdyn-tests/Hammond/GR_MBDyn/GR_rotor.mbd: a
4-blade articulated rotor with lead-lag dampers on an airframe held by springs and dampers,
Hammond 1974, JAHS 19(4)) against MBDyn 1.7.3's outputs (../shared/mbdyn-ref/wave2): node
positions relative to the model size, rotations (rad) and joint reactions within 1e-4 at
MBDyn's kept steps.  The short form compares the first 1.5 s (1500 steps); MBDAE_LONG=1 runs the
deck's whole 60 s (60 000 steps, 18 revolutions)."""
import os

import pytest

from mbdae.engine.io.mbdyn.deck import read_deck
from mbdae.engine.io.mbdyn import reference as mbdyn_ref

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
DECK = "Hammond/GR_MBDyn/GR_rotor.mbd"
DECK_PATH = os.path.join(SHARED, "mbdyn-tests", DECK)
REF = os.path.join(SHARED, "mbdyn-ref", "wave2", mbdyn_ref.ref_key(DECK))
LONG = os.environ.get("MBDAE_LONG") == "1"
TOL = 1e-4


@pytest.mark.skipif(not (os.path.isfile(DECK_PATH) and os.path.isdir(REF)),
                    reason=f"Hammond deck or MBDyn's outputs for it not found under {SHARED}")
def test_hammond_ground_resonance_rotor_agrees_with_mbdyn(tmp_path):
    d = read_deck(DECK_PATH, echo=lambda *a: None)
    descriptions = {s.label: s.orientation_description for s in d.model.nodes + d.model.dummy_nodes}
    prefix = str(tmp_path / "run")
    d.run(prefix, progress=False, **({} if LONG else {"final_time": 1.5}))
    c = mbdyn_ref.compare_outputs(REF, prefix, descriptions)
    assert c.compared_steps >= (49 if LONG else 2) and not c.problems, c.problems
    assert c.position.value <= TOL, (c.position.value, c.position.where())
    assert c.rotation.value <= TOL, (c.rotation.value, c.rotation.where())
    assert c.reaction.value <= TOL, (c.reaction.value, c.reaction.where())
