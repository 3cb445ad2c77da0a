"""The slit annular plate's full load path (Sze, Liu & Lo 2004, §3.3), timed: the MBDyn deck
that tests/test_shell_benchmarks.py generates (static nodes, `ms`, a half-cosine load ramp in
60 steps, tolerance 1e-5, as MBDyn's own test of this benchmark), run

* by mbdae, the EAS parameters of the shells kept in the factorized matrix (the default),
* by mbdae with the EAS parameters eliminated before the factorization (solvers/linear.py
  CondensedBlocksSolver on every element's pivot block, a Schur complement on the nodes),
* by MBDyn 1.7.3 when an `mbdyn` program is found (its `naive` default solver),

whole processes (`mbdae run`, `mbdyn -f`), alternating, medians of the repeats, with the
final deflections of points A and B.

    python benchmarks/shell_load_path.py --mesh 6x30 10x80 --repeat 3
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from test_shell_benchmarks import slit_annular_deck       # noqa: E402

CONDENSE_EAS = """import sys
import mbdae.engine.drivers.ivp as ivp
from mbdae.solvers.linear import CondensedBlocksSolver, make_linear_solver
def linear_solver(self):
    eas = [f.boff for f in self.system.families if f.name.startswith("shell")]
    return CondensedBlocksSolver(make_linear_solver(self.settings.linear_solver), self.system.n, eas, "EAS")
ivp.InitialValueProblem.linear_solver = linear_solver
from mbdae.cli import main
sys.exit(main(sys.argv[1:]))
"""


def last_z(mov, labels):
    """z of the given node labels in the last block of a .mov file."""
    rows = {}
    with open(mov) as f:
        for line in f:
            parts = line.split()
            if parts and int(parts[0]) in labels:
                rows[int(parts[0])] = float(parts[3])
    return [rows[k] for k in labels]


def timed(cmd, cwd):
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr[-2000:]}")
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mesh", nargs="+", default=["6x30", "10x80"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mbdyn", default=shutil.which("mbdyn") or "/opt/mbdyn/bin/mbdyn")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()}")
    mbdae = [os.path.join(os.path.dirname(sys.executable), "mbdae")]
    engines = {"mbdae (EAS in the matrix)": lambda deck, out: mbdae + ["run", deck, "-o", out],
               "mbdae (EAS condensed)": lambda deck, out: [sys.executable, "-c", CONDENSE_EAS, "run", deck, "-o", out]}
    if os.path.exists(args.mbdyn):
        engines["MBDyn 1.7.3"] = lambda deck, out: [args.mbdyn, "-f", deck, "-o", out]
    with tempfile.TemporaryDirectory() as tmp:
        for mesh in args.mesh:
            nr, nc = (int(v) for v in mesh.split("x"))
            deck = os.path.join(tmp, f"sze33_{mesh}.mbd")
            with open(deck, "w") as f:
                f.write(slit_annular_deck(nr, nc))
            times = {k: [] for k in engines}
            for _ in range(args.repeat):
                for name, cmd in engines.items():
                    times[name].append(timed(cmd(deck, os.path.join(tmp, "out")), tmp))
                    if _ == 0:
                        times[name + " z"] = last_z(os.path.join(tmp, "out.mov"), [1, 1000 * nr + 1])
            print(f"\nslit annular plate {mesh} ({nr * nc} shell4eas, 60 steps)")
            for name in engines:
                z = times[name + " z"]
                print(f"  {name:28s} {statistics.median(times[name]):7.2f} s  (runs {', '.join(f'{t:.2f}' for t in times[name])})"
                      f"  w_A = {z[0]:.5f}, w_B = {z[1]:.5f}")


if __name__ == "__main__":
    main()
