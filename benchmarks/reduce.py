"""Cost of `mbdae reduce` (engine/reduce.py, issue 16): a hexahedron8 bar (4:1:1, lumped
mass) of about N nodes, Craig–Bampton with both end faces as rigid interface masters and
20 fixed-interface modes, with CHOLMOD and with SciPy's SuperLU; each case in its own
process so that its peak memory (ru_maxrss) is its own.

    python benchmarks/reduce.py [--nodes 10000 33000 100000] [--solvers cholmod scipy] [--modes 20]

Prints per case: nodes, unknowns, the time of each part (K and M from the model's iteration
matrix, the interface map, factorization of K_ii, ARPACK's shift-invert eigenproblem, the
constraint modes, the projection, writing the FEM file) and the peak memory."""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.mesh import Mesh
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic
from mbdae.engine.reduce import linear_structure, reduce_structure
from mbdae.elements.modal_fem import write_fem_file
from mbdae.elements.solid_meshes import box_mesh


def cells_for(nodes):
    """(nx, ny, nz) of a 4:1:1 hexahedron8 bar with about `nodes` nodes."""
    n = max(1, round((nodes / 4) ** (1 / 3) - 1))
    return 4 * n + 3, n, n


def one_case(nodes, solver, modes):
    cells = cells_for(nodes)
    X, conn, _ = box_mesh("hexahedron8", cells, (4.0, 1.0, 1.0))
    t0 = time.perf_counter()
    m = Model()
    Mesh(X, {"hexahedron8": conn}).add_to_model(m, hookean_linear_elastic_isotropic(2.1e11, 0.3), 7800.0,
                                                node_kind="dynamic displacement", lumped_mass=True)
    t_model = time.perf_counter() - t0
    t0 = time.perf_counter()
    st = linear_structure(m)
    t_km = time.perf_counter() - t0
    ends = {"root": [int(k) + 1 for k in np.flatnonzero(X[:, 0] < 1e-9)],
            "tip": [int(k) + 1 for k in np.flatnonzero(X[:, 0] > 4.0 - 1e-9)]}
    red = reduce_structure(st, ends, (), modes, solver=solver)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        write_fem_file(os.path.join(d, "bar.fem"), red.fem)
        t_write = time.perf_counter() - t0
    return {"nodes": len(X), "unknowns": st.n_dof, "elements": len(conn), "model": t_model, "K and M": t_km,
            **red.timings, "writing": t_write, "modes": red.fem.n_modes, "f1": float(red.frequencies[0]),
            "peak GB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[10000, 33000])
    ap.add_argument("--solvers", nargs="+", default=["cholmod", "scipy"])
    ap.add_argument("--modes", type=int, default=20)
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one_case(int(a.one[0]), a.one[1], a.modes)))
        return
    parts = ("K and M", "interfaces", "factorization", "eigen", "constraint modes", "projection", "writing")
    print("| nodes | unknowns | solver | " + " | ".join(parts) + " | total | peak memory | f₁ (Hz) |")
    print("|---" * (len(parts) + 6) + "|")
    for n in a.nodes:
        for solver in a.solvers:
            out = subprocess.run([sys.executable, __file__, "--modes", str(a.modes), "--one", str(n), solver],
                                 capture_output=True, text=True)
            if out.returncode:
                last = (out.stderr.strip().splitlines() or ["?"])[-1]
                print(f"| {n} | | {solver} | failed: {last} |")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            total = sum(r[p] for p in parts)
            print(f"| {r['nodes']} | {r['unknowns']} | {solver} | " + " | ".join(f"{r[p]:.2f} s" for p in parts)
                  + f" | {total:.1f} s | {r['peak GB']:.2f} GB | {r['f1']:.4f} |", flush=True)


if __name__ == "__main__":
    main()
