"""Cantilever benchmark (issue 4): beam along x, L = 1 m, clamped root, NE three-node beams
(2 NE + 1 nodes), section EA = 1e7 N, GA = 4e6 N (both shear directions), GJ = 800 N m²,
EI = 1000 N m² (both bending directions); 1 kg/m lumped on the nodes by finite volumes
(rotary inertia 1e-4 kg m per metre about the bending axes, 2e-4 about the axis); tip force
100 N along -y from t = 0; `ms` with ρ∞ = 0.6, h = 1e-3 up to 1 s.

Prints, per NE: wall and CPU time (time.process_time: the machine may be shared), steps,
Newton iterations, factorizations, wall and CPU cost per step, the time of one residual and
of one residual + Jacobian evaluation (to show they grow linearly with NE) and the tip
deflection.  The Newton settings used are printed first.

Default settings (`--newton modified`): residual test `relnorm` (‖f‖/‖f̃‖, f̃_i = Σ_e |f_i(e)|,
manual §3.6) ≤ 1e-6 — a relative equilibrium error, scale- and size-free, so it means the
same for every NE (the absolute 2-norm has a round-off floor of about EA·eps·|x|/l_e per force
row, which grows with NE); the iteration matrix is built and factored (KLU with numeric
refactorization, solvers/klu.py) at each step's prediction and kept for that step unless an
iteration reduces the error by less than half (modified Newton within the step).
`--newton full` rebuilds it at every iteration.

    python benchmarks/beam.py                 # NE = 10, 100 (1 s), 1000 (0.1 s)
    python benchmarks/beam.py --ne 100 --final-time 1
    python benchmarks/beam.py --ne 10 --newton full --test norm --tolerance 1e-4 --linear-solver superlu
"""
import argparse
import time

import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.system import System
from mbdae.engine.core import constitutive as cl
from mbdae.solvers.linear import available_linear_solvers

EA, GA, GJ, EI, L = 1e7, 4e6, 800.0, 1000.0, 1.0
MU, JB, JT = 1.0, 1e-4, 2e-4


def cantilever_model(ne, tip_force=100.0, interpolation="total"):
    m = Model()
    nn = 2 * ne + 1
    s = np.linspace(0.0, L, nn)
    for i in range(nn):
        m.structural_node(i, "dynamic", position=[s[i], 0.0, 0.0])
    law = cl.beam_section(EA, GA, GA, GJ, EI, EI)
    from mbdae.elements.beam import beam3_node_shares
    share = beam3_node_shares(ne, L)              # finite-volume node shares
    for e in range(ne):
        m.beam3(e + 1, 2 * e, 2 * e + 1, 2 * e + 2, law)
    for b in m.beams:
        b.interpolation = interpolation
    for i in range(nn):
        m.body(i, i, MU * share[i], inertia=np.diag([JT, JB, JB]) * share[i])
    m.clamp(1, 0)
    m.force(1, nn - 1, [0.0, -tip_force, 0.0])
    return m


def evaluation_times(ne, interpolation="total", repeat=30):
    """CPU ms of one residual and of one residual + Jacobian evaluation at a deformed state
    (median over `repeat` calls; the beams' per-state cache is cleared before each call)."""
    system = System(cantilever_model(ne, interpolation=interpolation))
    st = system.initial_state(0.0)
    rng = np.random.default_rng(0)
    st.y[system.nodes.ix] += 1e-3 * rng.standard_normal(system.nodes.ix.shape)
    st.y[system.nodes.ig] = 1e-2 * rng.standard_normal(system.nodes.ig.shape)
    st.yp[:] = 0.1 * rng.standard_normal(system.n)

    def one(jac):
        for fam in system.families:            # time the computation, not the per-iterate cache
            if hasattr(fam, "_cache"):
                fam._cache.clear()
        c0 = time.process_time()
        system.evaluate(st, 1e-3, want_jac=jac, want_abs=False)
        return time.process_time() - c0

    out = []
    for jac in (False, True):
        one(jac)
        out.append(1e3 * float(np.median([one(jac) for _ in range(repeat)])))
    return out


def settings_for(newton, test, tolerance, linear_solver):
    s = dict(test=test, tolerance=tolerance, linear_solver=linear_solver, max_iterations=20)
    if newton == "full":
        s.update(modified_newton=False)
    elif newton == "modified":
        s.update(modified_newton=True, iterations_before_assembly=20, refresh_contraction=0.5)
    elif newton == "modified-across":
        s.update(modified_newton=True, iterations_before_assembly=20, refresh_contraction=0.5,
                 reuse_factorization_across_steps=True)
    else:
        raise ValueError(f"unknown Newton variant '{newton}' (full, modified, modified-across)")
    return s


DEFAULT_SOLVER = "klu" if "klu" in available_linear_solvers() else "superlu"


def run(ne, final_time=1.0, h=1e-3, newton="modified", test="relnorm", tolerance=1e-6,
        linear_solver=DEFAULT_SOLVER, interpolation="total"):
    model = cantilever_model(ne, interpolation=interpolation)
    prob = InitialValueProblem(model, time_step=h, final_time=final_time, method="ms", rho=0.6,
                               progress=False, keep_results=False,
                               **settings_for(newton, test, tolerance, linear_solver))
    c0 = time.process_time()
    st = prob.run()
    cpu = time.process_time() - c0
    tip = prob.system.kinematics(prob.state).x[-1]
    res, jac = evaluation_times(ne, interpolation)
    steps = max(st["steps"], 1)
    return dict(ne=ne, final_time=final_time, wall=st["wall_time"], cpu=cpu, steps=st["steps"],
                iterations=st["newton_iterations"], factorizations=st["factorizations"],
                per_step_ms=1e3 * st["wall_time"] / steps, cpu_step_ms=1e3 * cpu / steps,
                tip_y=tip[1], res_ms=res, jac_ms=jac, unknowns=st["unknowns"],
                reductions=st["step_reductions"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ne", type=int, nargs="*", default=None)
    ap.add_argument("--final-time", type=float, default=None)
    ap.add_argument("--newton", default="modified", help="full | modified (default) | modified-across")
    ap.add_argument("--test", default="relnorm", help="residual test: relnorm (default), norm, minmax, sepnorm")
    ap.add_argument("--tolerance", type=float, default=1e-6)
    ap.add_argument("--linear-solver", default=DEFAULT_SOLVER,
                    help="klu (the default when a KLU library is found, else superlu), superlu, umfpack")
    ap.add_argument("--interpolation", default="total", help="beam rotation interpolation: total | incremental")
    a = ap.parse_args()
    cases = [(n, a.final_time or 1.0) for n in a.ne] if a.ne else [(10, 1.0), (100, 1.0), (1000, 0.1)]
    print(f"# Newton: {a.newton}, test {a.test} <= {a.tolerance:g}, linear solver {a.linear_solver}, "
          f"beam interpolation {a.interpolation}; ms rho 0.6, h 1e-3", flush=True)
    print(f"{'NE':>5} {'unknowns':>8} {'T':>5} {'wall s':>8} {'cpu s':>8} {'steps':>6} {'iters':>6} {'factor':>6} "
          f"{'ms/step':>8} {'cpu/step':>8} {'res ms':>7} {'jac ms':>7} {'tip y':>10}")
    for ne, T in cases:
        r = run(ne, T, newton=a.newton, test=a.test, tolerance=a.tolerance, linear_solver=a.linear_solver,
                interpolation=a.interpolation)
        print(f"{r['ne']:5d} {r['unknowns']:8d} {r['final_time']:5g} {r['wall']:8.2f} {r['cpu']:8.2f} {r['steps']:6d} "
              f"{r['iterations']:6d} {r['factorizations']:6d} {r['per_step_ms']:8.2f} {r['cpu_step_ms']:8.2f} "
              f"{r['res_ms']:7.3f} {r['jac_ms']:7.3f} {r['tip_y']:10.6f}"
              + (f"  ({r['reductions']} step reductions)" if r["reductions"] else ""), flush=True)


if __name__ == "__main__":
    main()
