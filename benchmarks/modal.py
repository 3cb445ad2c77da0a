"""Modal links against beam3 links (issue 16): a chain of 6 flexible steel links (0.5 m,
10 mm square, revolute hinges about z, the first pinned to the ground) released horizontally
under gravity, 1 s at h = 1e-3, `ms` ρ∞ = 0.6.  Every link is either 4 beam3 elements with
lumped bodies, or the modal body reduced from that very beam3 link by `mbdae reduce`'s API
(Craig–Bampton, both end nodes as interfaces, 14 fixed-interface modes: 20 modes per link).

    python benchmarks/modal.py [--links 6] [--modes 14] [--final-time 1] [--repeat 3]

Prints, per model: unknowns, wall time of the run (best of --repeat), time per step, and the
tip's distance from the beam3 chain's tip (largest over the run and at the end, relative to
the chain's length); also the same for a rigid-link chain (modal links with no mode), which
shows how much of the motion is elastic."""
import argparse
import os
import tempfile
import time

import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.core import constitutive as laws
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.reduce import linear_structure, reduce_structure
from mbdae.elements.beam import beam3_node_shares
from mbdae.elements.modal_fem import write_fem_file, read_fem_file

LINK, SIDE, E, NU, RHO, NE = 0.5, 0.01, 2.1e11, 0.3, 7800.0, 4
LAW = laws.isotropic_beam_section(E, SIDE * SIDE, 0.141 * SIDE ** 4, SIDE ** 4 / 12, SIDE ** 4 / 12, nu=NU)
Z_AXIS = np.eye(3)          # revolute axis: the nodes' axis 3 = global z


def beam_link(model, first, x0):
    """Nodes first … first + 2 NE along x from x0 with lumped bodies, NE beam3 elements."""
    share = beam3_node_shares(NE, LINK)
    for k in range(2 * NE + 1):
        model.structural_node(first + k, "dynamic", position=[x0 + LINK * k / (2 * NE), 0.0, 0.0])
        m = RHO * SIDE * SIDE * share[k]
        model.body(first + k, first + k, m, inertia=[m * SIDE ** 2 / 6, m * SIDE ** 2 / 12, m * SIDE ** 2 / 12])
    for e in range(NE):
        model.beam3(first + e, first + 2 * e, first + 2 * e + 1, first + 2 * e + 2, LAW)
    return first, first + 2 * NE


def beam_chain(links):
    m = Model()
    ends = [beam_link(m, 100 * (k + 1), k * LINK) for k in range(links)]
    m.revolute_pin(1, ends[0][0], orientation=Z_AXIS)
    for k in range(1, links):
        m.revolute_hinge(1 + k, ends[k - 1][1], ends[k][0], orientation1=Z_AXIS, orientation2=Z_AXIS)
    m.gravity([0.0, -9.81, 0.0])
    return m, ends[-1][1]


def link_fem(path, modes):
    """The FEM data file of one beam3 link (its own frame: x from 0 to LINK)."""
    m = Model()
    a, b = beam_link(m, 1, 0.0)
    red = reduce_structure(linear_structure(m), {"a": [a], "b": [b]}, (), modes)
    write_fem_file(path, red.fem)
    return red, str(a), str(b)


def modal_chain(links, path, a, b):
    m = Model()
    fem = read_fem_file(path)
    for k in range(links):
        node, start, end = 1000 + k, 2000 + 2 * k, 2001 + 2 * k
        m.structural_node(node, "modal", position=[k * LINK, 0.0, 0.0])
        m.structural_node(start, "static", position=[k * LINK, 0.0, 0.0])
        m.structural_node(end, "static", position=[(k + 1) * LINK, 0.0, 0.0])
        m.modal_joint(k + 1, node, fem, interfaces=[(a, start, [0, 0, 0]), (b, end, [0, 0, 0])],
                      damping=("no damping",))
    m.revolute_pin(1, 2000, orientation=Z_AXIS)
    for k in range(1, links):
        m.revolute_hinge(1 + k, 2001 + 2 * (k - 1), 2000 + 2 * k, orientation1=Z_AXIS, orientation2=Z_AXIS)
    m.gravity([0.0, -9.81, 0.0])
    return m, 2001 + 2 * (links - 1)


def run(model, tip, offset, final_time, repeat):
    """(best wall time, unknowns, steps, times, tip positions): the tip is node `tip` moved
    by `offset` in its frame."""
    best, res = np.inf, None
    for _ in range(repeat):
        p = InitialValueProblem(model, final_time=final_time, time_step=1e-3, method="ms", rho=0.6, tolerance=1e-5)
        t0 = time.perf_counter()
        res = p.run()
        best = min(best, time.perf_counter() - t0)
    x, R = res.node(tip)[0], res.node(tip)[1]
    return best, p.system.n, len(res.t) - 1, np.asarray(res.t), x + R @ np.asarray(offset, float)


def rigid_chain(links):
    """The same chain of rigid links (one body per link at its centre)."""
    m = Model()
    mass = RHO * SIDE * SIDE * LINK
    J = mass * LINK ** 2 / 12
    for k in range(links):
        m.structural_node(10 + k, "dynamic", position=[(k + 0.5) * LINK, 0.0, 0.0])
        m.body(10 + k, 10 + k, mass, inertia=[mass * SIDE ** 2 / 6, J, J])
    m.revolute_pin(1, 10, offset=[-LINK / 2, 0, 0], orientation=Z_AXIS)
    for k in range(1, links):
        m.revolute_hinge(1 + k, 10 + k - 1, 10 + k, offset1=[LINK / 2, 0, 0], orientation1=Z_AXIS,
                         offset2=[-LINK / 2, 0, 0], orientation2=Z_AXIS)
    m.gravity([0.0, -9.81, 0.0])
    return m, 10 + links - 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--links", type=int, default=6)
    ap.add_argument("--modes", type=int, default=14)
    ap.add_argument("--final-time", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    zero = [0.0, 0.0, 0.0]
    rows = []
    beam, tip = beam_chain(a.links)
    rows.append(("beam3 links",) + run(beam, tip, zero, a.final_time, a.repeat))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "link.fem")
        red, ia, ib = link_fem(path, a.modes)
        model, mtip = modal_chain(a.links, path, ia, ib)
        rows.append((f"modal links ({red.fem.n_modes} modes)",) + run(model, mtip, zero, a.final_time, a.repeat))
    model, rtip = rigid_chain(a.links)
    rows.append(("rigid links",) + run(model, rtip, [LINK / 2, 0, 0], a.final_time, a.repeat))
    xb = rows[0][5]
    print(f"{'model':>28} {'unknowns':>9} {'run s':>7} {'ms/step':>8} {'max tip dist/L':>15} {'final':>10}")
    for name, wall, n, steps, t, x in rows:
        k = min(len(x), len(xb))
        err = np.linalg.norm(x[:k] - xb[:k], axis=1) / (a.links * LINK)
        print(f"{name:>28} {n:9d} {wall:7.2f} {1e3 * wall / steps:8.3f} {err.max():15.2e} {err[-1]:10.2e}")


if __name__ == "__main__":
    main()
