"""MBDyn's body/chain15 deck with each of its two element files (issue 3).  The deck ships
with both `include:` lines commented out (MBDyn's reference output is for that default
"hanging, case 2" form, compared in test_deck_reader.py); the two other cases switch the
`.ref` include, the joint count and the element include as the deck's comments say.  The
variant is written to a temporary folder with absolute includes (MBDyn's files are read in
place, never copied into the project).  MBDyn's reference holds no output for these two
forms, so the checks are physical: case 1 pins the chain's free end at (0, 3 DY, 0); the
initialization case pulls nodes 5, 10, 15 with driven-length distance joints, whose lengths
the run must keep (their drives start at t = 0.01 T = 1 s)."""
import os

import numpy as np
import pytest

from mbdae.engine.io.mbdyn.deck import read_deck

HERE = os.path.dirname(__file__)
FOLDER = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "body", "chain15")


def variant(tmp_path, case):
    if not os.path.isdir(FOLDER):
        pytest.skip("../shared/mbdyn-tests/body/chain15 is not present")
    text = open(os.path.join(FOLDER, "chain15")).read()
    ref, elm, joints = {"free": ("chain15f.ref", "chain15f.elm", "1 + 15 + 3"),
                        "hanging": ("chain15h.ref", "chain15h.elm", "1 + 15 + 1")}[case]
    path = lambda name: os.path.abspath(os.path.join(FOLDER, name))
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith('#include: "chain15f.ref"'):
            line = f'include: "{path(ref)}";'
        elif stripped.startswith('include: "chain15h.ref"'):
            line = "# " + line
        elif stripped.startswith("set: real T = 1.;") and case == "free":
            line = "set: real T = 100.;"
        elif stripped.startswith("joints: 1 + 15;"):
            line = f"joints: {joints};"
        elif stripped.startswith(f'# include: "{elm}"'):
            line = f'include: "{path(elm)}";'
        lines.append(line)
    out = tmp_path / f"chain15_{case}.mbd"
    out.write_text("\n".join(lines) + "\n")
    return read_deck(str(out), echo=lambda *a: None)


def test_hanging_case_1_pins_the_free_end(tmp_path):
    deck = variant(tmp_path, "hanging")
    labels = [j.label for j in deck.model.joints]
    assert 15 in labels and len(labels) == 17
    r = deck.run(final_time=0.2, progress=False)
    assert r.t[-1] == pytest.approx(0.2)
    i = r.index(15)
    L, DY = 1.0, 3.0                               # the deck's `set: real L = 1.; DY = 3.`
    tip = r.x[:, i] + np.einsum('kij,j->ki', r.R[:, i], [0.0, 0.0, -L / 2])
    assert np.abs(tip - [0.0, 3 * DY, 0.0]).max() < 1e-6      # held by the spherical pin


def test_free_initialization_case_follows_the_driven_distances(tmp_path):
    deck = variant(tmp_path, "free")
    assert len(deck.model.joints) == 19
    r = deck.run(final_time=0.05, progress=False)
    assert r.t[-1] == pytest.approx(0.05)
    L, DY, DELTA = 1.0, 3.0, 1e-6
    # before the cosine drives start (at 0.01 T = 1 s) each distance keeps its initial value
    for k, node in enumerate((5, 10, 15), start=1):
        i = r.index(node)
        end = r.x[:, i] + np.einsum('kij,j->ki', r.R[:, i], [0.0, 0.0, -L / 2])
        dist = np.linalg.norm(end - [0.0, k * DY, DELTA], axis=1)
        np.testing.assert_allclose(dist, np.sqrt((k * DY) ** 2 + (5 * k * L + DELTA) ** 2), rtol=1e-9)
