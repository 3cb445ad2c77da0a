"""The suite passes with none of the optional extras (issue 18: `pip install -e '.[test]'`
without `klu` made the beam benchmark's test fail).  The tests that touch the extras run in a
child pytest whose interpreter (and every process it starts, through a sitecustomize on
PYTHONPATH) sees no kvxopt, matplotlib, meshio, scikit-sparse, petsc4py or mpi4py and no KLU
library: they must pass or skip, naming the extra.  (The whole suite in a venv of the `test`
extra alone was run by hand: see the README, Dependencies.)"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ("kvxopt", "matplotlib", "meshio", "sksparse", "petsc4py", "mpi4py", "capytaine")
TOUCHING_EXTRAS = ["tests/test_benchmarks.py", "tests/test_plot.py", "tests/test_readme.py",
                   "tests/test_linear_solver_choice.py", "tests/test_linear_solvers.py", "tests/test_cli_vtu.py",
                   "tests/test_petsc.py", "tests/test_hydro_files.py", "tests/test_hydro_radiation.py",
                   "tests/test_hydro_waves.py"]

SITECUSTOMIZE = f"""\
import sys
for name in {HIDDEN!r}:
    sys.modules[name] = None            # import fails as if not installed
import mbdae.solvers.klu as klu
klu._LIB = False                        # no KLU library found
"""


def test_the_tests_that_touch_extras_pass_without_any_extra(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop("MBDAE_LONG", None)
    probe = subprocess.run([sys.executable, "-c", "import mbdae.solvers.linear as l; print(l.available_linear_solvers())"],
                           env=env, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0 and probe.stdout.strip() == "['superlu']", probe.stdout + probe.stderr
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *TOUCHING_EXTRAS],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " skipped" in done.stdout
