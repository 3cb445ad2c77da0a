"""Runs under MPI (`mpiexec -n P mbdae run DECK`, and a Python script under mpiexec): the same
output files as the serial run — the motion to 1e-10 of the model's size, the same Newton
iterations in every step of `.out` — under `mpiexec -n 1` and `-n 2`; only rank 0 writes; a
failing run prints its message once and ends every process."""
import importlib.util
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
# one write per rank (a pipe write this short is atomic): the two ranks' lines cannot interleave
sys.stdout.write("iterations %d\\n" % (r["newton_iterations"] if isinstance(r, dict) else r.stats["newton_iterations"]))
sys.stdout.flush()
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


needs_mpi4py = pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None,
                                  reason="mpi4py not installed (extra mbdae[petsc]): MPI runs evaluate replicated")
CHAIN15 = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "body", "chain15", "chain15")
BATHE = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "solid", "bathe", "mbdyn_test_solid_0001.mbd")
DISTANCE = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "joints", "distance", "distance")


def mpi_note(prefix):
    return [line for line in open(prefix + ".out") if line.startswith("# MPI:")]


def serial_and_distributed(deck, tmp_path):
    """(serial prefix, `-n 2` prefix) of a deck run serially with MUMPS and distributed,
    checked for the same Newton iterations and motion."""
    serial, dist = str(tmp_path / "serial"), str(tmp_path / "dist")
    run(deck, serial, None, ["--linear-solver", "petsc-mumps"])
    run(deck, dist, 2)
    assert "distributed evaluation" in mpi_note(dist)[0]
    assert iterations(dist) == iterations(serial)
    assert_same_motion(serial, dist, 1.0)
    return serial, dist


@needs_mpi4py
def test_distributed_and_replicated_evaluation_give_the_same_run(tmp_path):
    """`mpiexec -n 2`: each process evaluates its share of the chain (the log says so, with
    the partition); the replicated evaluation of the same run writes the same motion (to
    1e-10 of the chain's size: the matrix rows reach MUMPS in another order) in the same
    Newton iterations."""
    deck = tmp_path / "chain.mbd"
    deck.write_text(chain_deck(20, final_time=0.05))
    dist, repl = str(tmp_path / "dist"), str(tmp_path / "repl")
    run(str(deck), dist, 2)
    run(str(deck), repl, 2, ["--mpi-evaluation", "replicated"])
    note = mpi_note(dist)
    assert len(note) == 1 and "distributed evaluation on 2 processes" in note[0] and "ghost" in note[0]
    assert mpi_note(repl) == []
    assert_same_motion(repl, dist, 2.0)
    assert iterations(dist) == iterations(repl)


@needs_mpi4py
@pytest.mark.skipif(not os.path.exists(CHAIN15), reason="MBDyn's body/chain15 deck (../shared) not available")
def test_joint_output_of_a_distributed_run_is_the_serial_one(tmp_path):
    """MBDyn's chain15 deck (15 bodies, 15 joints): the .jnt rows gathered from both processes
    come in the serial run's order with its values (up to one unit of the last printed digit,
    7 significant digits, or 1e-10 of the largest reaction), the bodies counted once (a
    doubled mass would double every reaction, not the motion)."""
    serial, dist = serial_and_distributed(CHAIN15, tmp_path)
    a, b = blocks(read_lines(serial + ".jnt")), blocks(read_lines(dist + ".jnt"))
    assert len(a) == len(b) > 1
    scale = max(np.abs(ra[k]).max() for ra in a for k in ra)
    for ra, rb in zip(a, b):
        assert list(ra) == list(rb)
        for k in ra:
            assert np.all(np.abs(ra[k] - rb[k]) <= 1.01e-6 * np.abs(ra[k]) + 1e-10 * scale)


@needs_mpi4py
@pytest.mark.skipif(not os.path.exists(BATHE), reason="MBDyn's solid/bathe decks (../shared) not available")
def test_solid_deck_distributed(tmp_path):
    """MBDyn's solid test deck bathe/0001 (solid elements on displacement nodes) under -n 2:
    each process owns part of the nodes; the motion and iterations are the serial run's."""
    serial_and_distributed(BATHE, tmp_path)


@needs_mpi4py
@pytest.mark.skipif(not os.path.exists(DISTANCE), reason="MBDyn's joints/distance deck (../shared) not available")
def test_model_that_does_not_split_runs_replicated_with_the_reason(tmp_path):
    """A `bind` card ties a parameter node to a joint on another process's share: the run
    falls back to the replicated evaluation, says why in .out, and matches the serial run."""
    serial, dist = str(tmp_path / "serial"), str(tmp_path / "dist")
    run(DISTANCE, serial, None, ["--linear-solver", "petsc-mumps", "--final-time", "0.2"])
    run(DISTANCE, dist, 2, ["--final-time", "0.2"])
    note = mpi_note(dist)
    assert len(note) == 1 and "replicated evaluation" in note[0] and "parameter node" in note[0]
    assert_same_motion(serial, dist, 1.0)


RESULTS_SCRIPT = """
import sys
import numpy as np
sys.path.insert(0, {benchmarks!r})
from decks import chain_deck
from mbdae.engine.io.mbdyn.deck import parse_deck
deck = parse_deck(chain_deck(8, final_time=0.02), echo=lambda *a: None)
r = deck.problem(None, linear_solver="petsc-mumps", progress=False, keep_results=True).run()
if not isinstance(r, dict):        # rank 0 (and a serial run) keeps the results
    np.savez({out!r}, x=np.array(r.x), a=np.array(r.a), F=np.array(r.joint_force), labels=r.joint_labels)
"""


@needs_mpi4py
def test_results_in_memory_of_a_distributed_run(tmp_path):
    """The Python API's Results under `mpiexec -n 2` (distributed): rank 0 holds every node's
    motion and accelerations and every joint's reaction, gathered from both processes, equal
    to the serial run's (to 1e-10 of the model's size, accelerations and reactions to 1e-7
    of their largest value)."""
    found = {}
    for n in (None, 2):
        out = str(tmp_path / f"results{n}.npz")
        script = tmp_path / f"results{n}.py"
        script.write_text(RESULTS_SCRIPT.format(benchmarks=os.path.join(HERE, "..", "benchmarks"), out=out))
        done = subprocess.run(mpiexec(n) + [sys.executable, str(script)], capture_output=True, text=True,
                              env=clean_environment(), timeout=600)
        assert done.returncode == 0, done.stderr
        found[n] = np.load(out)
    a, b = found[None], found[2]
    assert list(a["labels"]) == list(b["labels"])
    assert np.abs(a["x"] - b["x"]).max() <= 1e-10 * 1.0
    for key in ("a", "F"):
        assert a[key].shape == b[key].shape
        assert np.abs(a[key] - b[key]).max() <= 1e-7 * np.abs(a[key]).max()
