"""`mbdae plot PREFIX --node N --what x|v|w|euler`: reads the .mov written by a short run
and draws the node's columns against the output times of the .out."""
import math
import sys

import numpy as np
import pytest

from mbdae.cli import main

DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: .2; time step: 1e-2; end: initial value;
begin: control data; structural nodes: 2; rigid bodies: 2; output frequency: 2; {default} end: control data;
begin: nodes;
    structural: 1, dynamic, 1., 2., 3., eye, 1., 0., .5, 0., 0., 2.;
    structural: 2, dynamic, null, eye, 0., -1., 0., .3, 0., 0.;
end: nodes;
begin: elements; body: 1, 1, 1., null, eye; body: 2, 2, 2., null, diag, 1., 2., 3.; end: elements;
"""


@pytest.fixture
def run(tmp_path):
    def _run(default=""):
        deck = tmp_path / "free.mbd"
        deck.write_text(DECK.format(default=default))
        prefix = str(tmp_path / "free")
        assert main(["run", str(deck), "-o", prefix, "-q"]) == 0
        return prefix
    return _run


def file_columns(prefix, node):
    """Output times (the .out's Step lines with Out = 1) and node's .mov rows, read directly."""
    times = [float(l.split()[2]) for l in open(prefix + ".out") if l.startswith("Step") and l.split()[-1] == "1"]
    mov = np.loadtxt(prefix + ".mov", ndmin=2)
    return np.array(times), mov[mov[:, 0] == node]


def plotted(fig):
    return [(ax.lines[0].get_xdata(), ax.lines[0].get_ydata()) for ax in fig.axes]


@pytest.mark.parametrize("what,cols", [("x", [1, 2, 3]), ("v", [7, 8, 9]), ("w", [10, 11, 12]),
                                       ("euler", [4, 5, 6])])
def test_plot_shows_the_file_columns(run, tmp_path, what, cols):
    pytest.importorskip("matplotlib")
    from mbdae.cmd_plot import make_figure
    prefix = run()
    out = tmp_path / f"{what}.png"
    assert main(["plot", prefix, "--node", "1", "--what", what, "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
    times, rows = file_columns(prefix, 1)
    assert len(times) == 11 and len(rows) == 11                  # output every other step, t = 0 .. 0.2
    fig = make_figure(prefix, [1], what)
    for (t, y), c in zip(plotted(fig), cols):
        np.testing.assert_array_equal(t, times)
        np.testing.assert_array_equal(y, rows[:, c])


def test_plot_free_motion_and_matrix_orientation(run, tmp_path):
    """With `default orientation: orientation matrix` the .mov has 9 orientation columns;
    --what euler converts them to Euler 1-2-3 angles.  Node 1 spins about z at 2 rad/s and
    translates at (1, 0, .5) with no load: the plot shows x = x0 + v t and φ3 = 2t (deg)."""
    pytest.importorskip("matplotlib")
    from mbdae.cmd_plot import make_figure
    prefix = run("default orientation: orientation matrix;")
    times, rows = file_columns(prefix, 1)
    assert rows.shape[1] == 1 + 3 + 9 + 3 + 3
    (t, x), (_, y), (_, z) = plotted(make_figure(prefix, [1], "x"))
    np.testing.assert_allclose(np.stack([x, y, z], 1), [1, 2, 3] + np.outer(t, [1.0, 0.0, 0.5]), atol=1e-12)
    lines = plotted(make_figure(prefix, [1], "euler"))
    np.testing.assert_allclose(lines[0][1], 0.0, atol=1e-9)
    np.testing.assert_allclose(lines[1][1], 0.0, atol=1e-9)
    from mbdae.engine.core.rotations import R_to_euler123
    R = rows[:, 4:13].reshape(-1, 3, 3)                                  # the file's matrices, row-major
    np.testing.assert_array_equal(np.stack([y for _, y in lines], 1), np.degrees(R_to_euler123(R)))
    np.testing.assert_allclose(lines[2][1], np.degrees(2 * t), rtol=1e-4)   # integrator's rotation error
    (_, vx), (_, vy), _ = plotted(make_figure(prefix, [2], "v"))   # node 2: v = (0, -1, 0)
    np.testing.assert_allclose(vy, -1.0)
    out = tmp_path / "two.png"
    assert main(["plot", prefix, "--node", "1", "2", "--what", "w", "--out", str(out)]) == 0
    assert out.exists()
    assert main(["plot", prefix, "--node", "2"]) == 0                   # default name
    assert (tmp_path / "free.x.node2.png").exists()


def test_plot_errors(run, tmp_path, capsys, monkeypatch):
    prefix = run()
    assert main(["plot", prefix, "--node", "7"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"mbdae: node 7 is not in {prefix}.mov (nodes: 1, 2)"      # one line, no type name
    assert main(["plot", str(tmp_path / "nothing"), "--node", "1"]) == 1
    assert "nothing.mov not found" in capsys.readouterr().err
    open(tmp_path / "empty.mov", "w").close()
    open(tmp_path / "empty.out", "w").write("Step 0 0 0 0 0 0 0 1\n")
    assert main(["plot", str(tmp_path / "empty"), "--node", "1"]) == 1
    assert "empty.mov has no node rows" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib", None)              # as if not installed
    assert main(["plot", prefix, "--node", "1"]) == 1
    err = capsys.readouterr().err
    assert "needs matplotlib" in err and "pip install 'mbdae[plot]'" in err
