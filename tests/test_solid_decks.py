"""MBDyn's solid decks (../shared/mbdyn-tests/solid) that mbdae reads today run to their final
time (MBDyn 1.7.3 runs none of them: the solid family is in MBDyn's development branch, so
there is no reference output; the physics of the family is checked in tests/test_solid.py,
test_solid_laws.py and test_surface_load.py).  The short form runs two decks; MBDAE_LONG=1
runs every deck listed."""
import os

import numpy as np
import pytest

from mbdae.engine.io.mbdyn.deck import read_deck
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
