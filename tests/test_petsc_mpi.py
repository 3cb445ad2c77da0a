"""Runs under MPI (`mpiexec -n P mbdae run DECK`, and a Python script under mpiexec): the same
output files as the serial run — the motion to 1e-10 of the model's size, the same Newton
iterations in every step of `.out` — under `mpiexec -n 1` and `-n 2`; only rank 0 writes; a
failing run prints its message once and ends every process."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from mbdae.engine.io.mbdyn.reference import blocks, read_lines
from mbdae.solvers.petsc import petsc_available

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "benchmarks"))
from decks import beam_deck, chain_deck   # noqa: E402
from shell_decks import dynamic_cantilever_deck   # noqa: E402

MPIEXEC = shutil.which("mpiexec")
pytestmark = pytest.mark.skipif(not petsc_available() or MPIEXEC is None,
                                reason="petsc4py or mpiexec not installed: the optional extra mbdae[petsc] "
                                       "(README, Dependencies) runs these tests")
INVDYN = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "invdyn", "invdyn")
MBDAE = [sys.executable, "-m", "mbdae"]



def clean_environment():
    """This process's environment as Python saw it at start-up: MPI's initialization in this
    process (petsc4py) adds variables at C level that would make a child's mpiexec fail."""
    return dict(os.environ)


def mpiexec(n):
    return [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-n", str(n)] if n else []


def run(deck, prefix, n=None, extra=()):
    """`mbdae run deck -o prefix` serially (n None) or under mpiexec -n n."""
    done = subprocess.run(mpiexec(n) + MBDAE + ["run", deck, "-o", prefix, "-q"] + list(extra),
                          capture_output=True, text=True, env=clean_environment(), timeout=600)
    assert done.returncode == 0, (done.args, done.stdout, done.stderr)
    return done


def iterations(prefix):
    """(step, iterations) of every `Step` line of .out (MBDyn's columns: Step, step number,
    time, time step, iterations, ...)."""
    rows = [line.split() for line in open(prefix + ".out") if line.startswith("Step ")]
    return [(r[1], r[4]) for r in rows]


def assert_same_motion(ref, ours, size):
    a, b = blocks(read_lines(ref + ".mov")), blocks(read_lines(ours + ".mov"))
    assert len(a) == len(b) > 1
    worst = max(float(np.abs(ra[k][:3] - rb[k][:3]).max()) for ra, rb in zip(a, b) for k in ra)
    assert worst <= 1e-10 * size


def chain_text():
    return chain_deck(6, final_time=0.05)


def beam_text():
    return beam_deck(4, final_time=0.05)


def shell_text():
    return dynamic_cantilever_deck("shell4easans")


DECKS = {"chain": (chain_text, 0.6), "beam": (beam_text, 1.0), "shell": (shell_text, 1.0)}


@pytest.mark.parametrize("name", sorted(DECKS))
def test_deck_under_mpiexec_1_and_2_matches_the_serial_run(name, tmp_path):
    text, size = DECKS[name]
    deck = tmp_path / f"{name}.mbd"
    deck.write_text(text())
    serial = str(tmp_path / "serial")
    run(str(deck), serial)
    for n in (1, 2):
        prefix = str(tmp_path / f"mpi{n}")
        run(str(deck), prefix, n)
        assert_same_motion(serial, prefix, size)
        assert iterations(prefix) == iterations(serial)
        log = open(prefix + ".log").read()           # one process: the serial run's solver
        assert ("linear solver: petsc-mumps" in log and "MPI, 2 processes" in log) == (n == 2)


@pytest.mark.skipif(not os.path.exists(INVDYN), reason="MBDyn's invdyn decks (../shared) not available")
def test_inverse_dynamics_deck_under_mpiexec_2(tmp_path):
    serial, prefix = str(tmp_path / "serial"), str(tmp_path / "mpi2")
    run(INVDYN, serial)
    run(INVDYN, prefix, 2)
    assert_same_motion(serial, prefix, 1.0)
    a, b = blocks(read_lines(serial + ".jnt")), blocks(read_lines(prefix + ".jnt"))
    for ra, rb in zip(a, b):
        for k in ra:
            assert np.abs(ra[k] - rb[k]).max() <= 1e-9 * max(1.0, np.abs(ra[k]).max())


SCRIPT = """
import sys
sys.path.insert(0, {benchmarks!r})
from solid_dynamic import cube_model
import mbdae
model = cube_model(2, output=True)[0]
r = mbdae.run(model, output_prefix={prefix!r}, final_time=5e-4, time_step=1e-4, method="ms", rho=0.6,
              tolerance=1e-9, test="relnorm", keep_results=False, linear_solver={solver!r})
print("iterations", r["newton_iterations"] if isinstance(r, dict) else r.stats["newton_iterations"])
"""


def test_python_api_solid_under_mpiexec_2(tmp_path):
    """A solid cube built with the Python API, run by a script under mpiexec -n 2 (the
    momenta condensed before PETSc sees the matrix): rank 0 writes the serial run's motion."""
    outs = {}
    for n, solver in ((None, "klu"), (2, "default")):
        prefix = str(tmp_path / f"cube{n}")
        script = tmp_path / f"cube{n}.py"
        script.write_text(SCRIPT.format(benchmarks=os.path.join(HERE, "..", "benchmarks"), prefix=prefix,
                                        solver=solver))
        done = subprocess.run(mpiexec(n) + [sys.executable, str(script)], capture_output=True, text=True, env=clean_environment(),
                              timeout=600)
        assert done.returncode == 0, done.stderr
        outs[n] = (prefix, [line for line in done.stdout.splitlines() if line.startswith("iterations")])
    assert len(outs[2][1]) == 2 and outs[2][1][0] == outs[2][1][1] == outs[None][1][0]
    assert_same_motion(outs[None][0], outs[2][0], 1.0)


def test_failing_run_prints_once_and_ends_every_process(tmp_path):
    deck = tmp_path / "bad.mbd"
    deck.write_text(chain_text().replace("spherical hinge", "spherical hing", 1))
    done = subprocess.run(mpiexec(2) + MBDAE + ["run", str(deck), "-o", str(tmp_path / "bad"), "-q"],
                          capture_output=True, text=True, env=clean_environment(), timeout=120)
    assert done.returncode != 0
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("mbdae")]
    assert len(lines) == 1 and "bad.mbd:" in lines[0] and "spherical hing" in lines[0]


def test_failure_on_rank_0_alone_ends_the_other_rank(tmp_path):
    """Rank 0 alone cannot open its output files (rank 1 writes none and goes on to the first
    factorization, a collective call): the run still ends, with rank 0's message once."""
    deck = tmp_path / "chain.mbd"
    deck.write_text(chain_text())
    (tmp_path / "blocker").write_text("a file where the output folder should be")
    done = subprocess.run(mpiexec(2) + MBDAE + ["run", str(deck), "-o", str(tmp_path / "blocker" / "c"), "-q"],
                          capture_output=True, text=True, env=clean_environment(), timeout=120)
    assert done.returncode != 0
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("mbdae")]
    assert len(lines) == 1 and "blocker" in lines[0]


def test_one_process_solver_is_refused_under_mpi(tmp_path):
    deck = tmp_path / "chain.mbd"
    deck.write_text(chain_text())
    done = subprocess.run(mpiexec(2) + MBDAE + ["run", str(deck), "-o", str(tmp_path / "c"), "-q",
                                                "--linear-solver", "petsc-klu"],
                          capture_output=True, text=True, env=clean_environment(), timeout=120)
    assert done.returncode != 0
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("mbdae")]
    assert len(lines) == 1 and "runs on one process only" in lines[0] and "petsc-mumps" in lines[0]
