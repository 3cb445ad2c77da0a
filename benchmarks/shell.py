"""Shell assembly throughput (issue 15): residual + Jacobian of shell4easans and shell4eas
on an n × n plate mesh against beam3 (a chain of beam3 elements) in the same process, per
element, 10³ and 10⁴ elements (10⁵ with --sizes ... 100000).

    python benchmarks/shell.py [--sizes 1000 10000] [--repeat 5]

Prints, per family and size: elements, the family's kernel time (one compiled call:
residual and Jacobian blocks of every element), elements per second, and the time per
element relative to beam3's at the same size.  The states are deformed (random node
displacements and rotations), so no branch of the kernels is skipped."""
import argparse
import numpy as np

from timing import best_of
from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.state import Context
from mbdae.engine.core import constitutive as cl
from mbdae.elements.shell import isotropic_shell_law


def shell_model(kind, ne):
    n = int(round(np.sqrt(ne)))
    m = Model()
    lab = lambda i, j: 1 + i + (n + 1) * j          # noqa: E731
    for j in range(n + 1):
        for i in range(n + 1):
            m.structural_node(lab(i, j), "static", position=[i / n, j / n, 0.0])
    D = isotropic_shell_law(E=2.1e11, nu=0.3, thickness=0.01)
    for j in range(n):
        for i in range(n):
            m.shell(1 + i + n * j, (lab(i + 1, j + 1), lab(i, j + 1), lab(i, j), lab(i + 1, j)), D, kind)
    return m


def beam3_model(ne):
    m = Model()
    for k in range(2 * ne + 1):
        m.structural_node(k, "static", position=[k / (2 * ne), 0.0, 0.0])
    law = cl.beam_section(1e7, 4e6, 4e6, 800.0, 1000.0, 1000.0)
    for e in range(ne):
        m.beam3(e + 1, 2 * e, 2 * e + 1, 2 * e + 2, law)
    return m


def family_time(model, repeat):
    system = System(model)
    st = system.initial_state(0.0)
    rng = np.random.default_rng(1)
    n = system.nodes
    st.y[n.ix] += 1e-3 * rng.normal(size=(n.n, 3))
    st.y[n.ig_rot] = 1e-2 * rng.normal(size=(len(n.rot), 3))
    fam = system.families[0]
    res = [np.zeros(r.shape) for r in fam.pattern.res]
    jac = [np.zeros(R.shape) for R, C in fam.pattern.jac]
    ctx = Context(0.0, st.y, st.yp, system.kinematics(st, 1e-3), "regular", None, st.families)
    fam.evaluate(ctx, res, jac)                          # compiled (or loaded) once
    return fam.ne, best_of(lambda: fam.evaluate(ctx, res, jac), repeat)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    print(f"{'family':>14} {'elements':>9} {'kernel s':>10} {'elements/s':>12} {'per element / beam3':>20}")
    for size in a.sizes:
        ne_b, t_b = family_time(beam3_model(size), a.repeat)
        print(f"{'beam3':>14} {ne_b:9d} {t_b:10.4f} {ne_b / t_b:12.0f} {1.0:20.2f}")
        for kind in ("shell4easans", "shell4eas"):
            ne, t = family_time(shell_model(kind, size), a.repeat)
            print(f"{kind:>14} {ne:9d} {t:10.4f} {ne / t:12.0f} {(t / ne) / (t_b / ne_b):20.2f}")


if __name__ == "__main__":
    main()
