"""The benchmark scripts run (short forms): they are not tests of speed (tests never time
anything), but a script that no longer runs would leave benchmarks/RESULTS.md unreproducible."""
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..")


def _run(*args):
    out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_beam_benchmark_short_form():
    """Two beam3 elements for 10 steps: one table row with 10 steps and a downward tip."""
    rows = [line.split() for line in _run("benchmarks/beam.py", "--ne", "2", "--final-time", "0.01").splitlines()
            if line.split() and line.split()[0] == "2"]
    assert len(rows) == 1
    assert int(rows[0][5]) == 10                     # the steps column
    assert float(rows[0][-1]) < 0.0                 # the tip moves along the load (-y)


def test_chain_benchmark_short_form():
    """A three-link chain for 10 steps: the run line reports 10 steps and the tip falling."""
    line = _run("benchmarks/chain.py", "3", "--final-time", "0.01").strip().splitlines()[-1]
    assert "steps    10" in line
    tip_y = float(line.split("tip x,y =")[1].split(",")[1])
    assert tip_y < 0.0


def test_marine_benchmark_short_form():
    """Farms of 1 and 4 floating cylinders for 5 s: two rows, each with a positive wall time per
    simulated second."""
    out = _run("benchmarks/marine.py", "--quick")
    rows = [line.split() for line in out.splitlines() if line.split() and line.split()[0] in ("1", "4")]
    assert [r[0] for r in rows] == ["1", "4"]
    assert all(float(r[1]) > 0.0 for r in rows)
