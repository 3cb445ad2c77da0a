"""`mbdae run DECK --vtu`: a ParaView series beside MBDyn's files, one .vtu per output step,
whose point data are the run's own results (read back with meshio and compared with the
.mov file the same run wrote)."""
import os

import numpy as np
import pytest

from mbdae.cli import main
from mbdae.engine.io.mbdyn.reference import blocks, read_lines

meshio = pytest.importorskip("meshio")
DECK = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "mbdyn-tests", "solid", "bathe",
                    "mbdyn_test_solid_0001.mbd")
pytestmark = pytest.mark.skipif(not os.path.isfile(DECK), reason="MBDyn's solid decks (../shared) not available")


@pytest.mark.parametrize("configuration", ["reference", "deformed"])
def test_vtu_series_holds_the_runs_displacements(tmp_path, configuration):
    prefix = str(tmp_path / "bathe1")
    assert main(["run", DECK, "-o", prefix, "-q", "--vtu", configuration]) == 0
    mov = blocks(read_lines(prefix + ".mov"))
    pvd = open(prefix + ".pvd").read()
    files = sorted(f for f in os.listdir(tmp_path) if f.endswith(".vtu"))
    assert len(files) == len(mov) >= 2 and all(f in pvd for f in files)
    labels = np.array(sorted(mov[0]))
    x0 = np.array([mov[0][k][:3] for k in labels], float)
    for block, name in zip(mov, files):
        m = meshio.read(str(tmp_path / name))
        x = np.array([block[k][:3] for k in labels], float)
        u = m.point_data["displacement"]
        assert u.shape == x.shape and np.allclose(u, x - x0, rtol=0, atol=1e-5 * np.abs(x0).max())
        expected_points = x if configuration == "deformed" else x0
        assert np.allclose(m.points, expected_points, rtol=0, atol=1e-5 * np.abs(x0).max())
        assert {"velocity", "cauchy_stress", "von_mises"} <= set(m.point_data) | set(m.cell_data)
    assert np.abs(u).max() > 0                       # the deck does deform its block
