"""Solid-element assembly throughput (issue 14): mbdae's nonlinear residual + Jacobian of
hexahedron8, hexahedron20 and tetrahedron10 block meshes, 10³–10⁵ elements, against
scikit-fem assembling the linear-elastic stiffness of a mesh of the same elements in the
same run (the reference for vectorized finite-element assembly in Python).

    python benchmarks/solid.py [--sizes 1000 10000 100000] [--shapes hexahedron8 ...]

Prints, per shape and size: elements, mbdae kernel time (one compiled call: residual and
Jacobian blocks of every element), mbdae full evaluation (kernel + scatter into the CSC
matrix), scikit-fem's `asm` of the linear elasticity form (into a CSR matrix), elements per
second, and the time per element of mbdae's full evaluation over scikit-fem's.
scikit-fem is an optional dependency of this script only (pip install scikit-fem); its
quadrature is set to the degree of mbdae's rules (SKFEM_INTORDER)."""
import argparse
import numpy as np

from timing import best_of
from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.state import Context
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic
from mbdae.elements.solid_meshes import block_mesh

try:
    import skfem
    from skfem.models.elasticity import linear_elasticity, lame_parameters
except ImportError:              # the comparison column is left out
    skfem = None

E, NU = 210e9, 0.3
CELLS_PER_ELEMENT = {"hexahedron8": 1, "hexahedron20": 1, "tetrahedron10": 6}
# scikit-fem's quadrature degree matched to mbdae's rules (2×2×2 Gauss, 3×3×3 Gauss, the
# 5-point tetrahedron rule: exact to degree 3, 5, 3); scikit-fem's default would use more points
SKFEM_INTORDER = {"hexahedron8": 3, "hexahedron20": 5, "tetrahedron10": 3}


def mbdae_times(shape, n, repeat):
    P, conn, _ = block_mesh(shape, n, 1.0, 0.2, np.random.default_rng(0))
    m = Model()
    for k, x in enumerate(P):
        m.structural_node(k + 1, "dynamic displacement", position=x)
    law = hookean_linear_elastic_isotropic(E, NU)
    for e, c in enumerate(conn):
        m.solid(e + 1, shape, c + 1, law, 7850.0)
    system = System(m)
    st = system.initial_state(0.0)
    st.y[system.nodes.ix] += 1e-4 * np.random.default_rng(1).normal(size=(len(P), 3))
    fam = system.families[0]
    res = [np.zeros(r.shape) for r in fam.pattern.res]
    jac = [np.zeros(R.shape) for R, C in fam.pattern.jac]
    ctx = Context(0.0, st.y, st.yp, system.kinematics(st, 1e-3), "regular", None, st.families)
    fam.evaluate(ctx, res, jac)                          # compiled (or loaded) once
    kernel = best_of(lambda: fam.evaluate(ctx, res, jac), repeat)
    system.evaluate(st, 1e-3)
    full = best_of(lambda: system.evaluate(st, 1e-3), repeat)
    return len(conn), kernel, full, system.n


def skfem_time(shape, n, repeat):
    if skfem is None:
        return None, None
    if shape == "tetrahedron10":
        mesh = skfem.MeshTet.init_tensor(*(np.linspace(0, 1, n + 1),) * 3)
        element = skfem.ElementTetP2()
    else:
        mesh = skfem.MeshHex.init_tensor(*(np.linspace(0, 1, n + 1),) * 3)
        element = skfem.ElementHex1() if shape == "hexahedron8" else skfem.ElementHexS2()
    basis = skfem.Basis(mesh, skfem.ElementVector(element), intorder=SKFEM_INTORDER[shape])
    form = linear_elasticity(*lame_parameters(E, NU))
    skfem.asm(form, basis)
    return mesh.t.shape[1], best_of(lambda: skfem.asm(form, basis), repeat)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--shapes", nargs="+", default=["hexahedron8", "hexahedron20", "tetrahedron10"])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    print(f"{'shape':14s} {'elements':>9s} {'unknowns':>9s} {'kernel s':>9s} {'full s':>9s} {'skfem s':>9s} "
          f"{'kernel el/s':>12s} {'skfem el/s':>11s} {'full/skfem':>12s}")
    for shape in a.shapes:
        for size in a.sizes:
            n = max(1, round((size / CELLS_PER_ELEMENT[shape]) ** (1 / 3)))
            ne, kernel, full, nunk = mbdae_times(shape, n, a.repeat)
            ne_s, t_s = skfem_time(shape, n, a.repeat)
            ratio = f"{(full / ne) / (t_s / ne_s):12.2f}" if t_s else f"{'-':>12s}"
            sk = f"{t_s:9.3f}" if t_s else f"{'-':>9s}"
            sk_rate = f"{ne_s / t_s:11.0f}" if t_s else f"{'-':>11s}"
            print(f"{shape:14s} {ne:9d} {nunk:9d} {kernel:9.3f} {full:9.3f} {sk} {ne / kernel:12.0f} {sk_rate} {ratio}",
                  flush=True)


if __name__ == "__main__":
    main()
