"""Integrator study on a flexible case: a cantilever of 10 `beam3` elements (the thin beam of
Bauchau's lateral-buckling benchmark: EA 73e6 N, EJ_z 608.3 N m², 2.68 kg/m, L = 1 m) under a
tip force applied quickly (quintic `step5` ramp over T_R = 0.01 s, an eighth of the first
period: a truly sudden load excites the axial and shear modes, which the L-stable reference
damps and ρ∞ = 1 methods keep, so no method would converge to it), run over 0.25 s (about two periods of the first bending
mode, ω1 = 1.8751² √(EJ_z/(m L⁴)) = 53 rad/s).  The axial and shear modes of the
discretized beam reach ω ≈ 1e5 rad/s: at h = 1e-3 the problem is stiff (ωh up to ~100).

Every method of the Andrews study (MBDyn's benchmark list plus CN, implicit Euler, hope) and
thirdorder runs at equal work: its step is the base step times its implicit solves per step
(thirdorder counts 2: one Newton solve of the doubled system, two points evaluated).  The
error is the max-norm of the tip displacement at t = 0.25 s against a fine dirk54 run.  The
energy E = T + U - F·u_tip (kinetic energy of the lumped node masses, strain energy of the
sections at the evaluation points with weights ℓ/2, work of the constant tip force) is
constant for the semi-discrete model once the load is constant (checked by the reference
run); its change from T_R to the end, divided by the static work F·u_static, measures what
each method dissipates.

Run: python cases/integrators/flexible_study.py [--out DIR] [--steps 1e-3 5e-4 2.5e-4] [--final-time 0.25]
Writes flexible.csv, flexible.md and flexible.png (error vs step, error vs CPU time, energy)."""
import argparse
import os
import sys
import time
import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.core import constitutive as cl
from mbdae.engine.drivers.ivp import InitialValueProblem, SimulationFailed
from mbdae.engine.core.state import Context
from mbdae.engine.compare import solves_per_step
from mbdae.solvers.integrators import make_method

HERE = os.path.dirname(os.path.abspath(__file__))

L, NE = 1.0, 10
EA, GAY, GAZ, GJ, EJY, EJZ = 73e6, 5.025e6, 23.40e6, 877.2, 60830.0, 608.3
MU = 2.68                                    # kg/m
TIP_FORCE = np.array([0.0, 50.0, 0.0])       # N, in the weak bending plane (EJ_z)
T_RAMP = 0.01                                # s
SECTION = np.diag([EA, GAY, GAZ, GJ, EJY, EJZ])
TIP = 2 * NE
U_STATIC = TIP_FORCE[1] * L ** 3 / (3 * EJZ)            # Euler-Bernoulli tip deflection
W_STATIC = TIP_FORCE[1] * U_STATIC                       # energy scale (twice the static strain energy)

METHODS = [("crank nicolson", 1.0), ("implicit euler", 0.0), ("bdf", 0.0), ("ms", 0.6), ("hope", 0.6),
           ("ms3", 0.0), ("ms3", 0.6), ("ms4", 0.0), ("ms4", 0.6), ("ss2", 0.0), ("ss2", 0.6), ("ss3", 0.0),
           ("ss3", 0.6), ("ss4", 0.0), ("ss4", 0.6), ("bathe", 0.0), ("bathe", 0.6), ("msstc3", 0.0),
           ("msstc3", 0.6), ("msstc4", 0.0), ("msstc4", 0.6), ("msstc5", 0.0), ("msstc5", 0.6),
           ("mssth3", 0.0), ("mssth4", 0.0), ("mssth5", 0.0), ("dirk33", 0.0), ("dirk43", 0.0),
           ("dirk54", 0.0), ("thirdorder", 0.6), ("thirdorder", 1.0), ("thirdorder ad hoc", 0.0)]
"""The Andrews study's list (MBDyn's benchmark methods + CN, implicit Euler, hope) and thirdorder."""

SETTINGS = dict(tolerance=1e-6, max_iterations=20, min_time_step=1e-7)


def cantilever():
    """Clamped at node 0, nodes along x, masses lumped by finite volumes (node shares
    (1-1/√3)/2, 1/√3, (1-1/√3)/2 of each element), tip force ramped up over T_RAMP."""
    m = Model()
    nn = 2 * NE + 1
    s = np.linspace(0.0, L, nn)
    for i in range(nn):
        m.structural_node(i, "static" if i == 0 else "dynamic", position=[s[i], 0, 0])
    law = cl.beam_section(EA, GAY, GAZ, GJ, EJY, EJZ)
    for e in range(NE):
        m.beam3(100 + e, 2 * e, 2 * e + 1, 2 * e + 2, law)
    m.clamp(1, 0)
    from mbdae.elements.beam import beam3_node_shares
    share = beam3_node_shares(NE, L)
    for i in range(1, nn):
        # rotary inertia of the thin section lumped on the node (ρJ ℓ ≈ m ℓ r², r ~ 1 cm)
        m.body(1000 + i, i, MU * share[i], inertia=np.array([2e-4, 1e-4, 1e-4]) * MU * share[i])
    from mbdae.engine.core.tpldrive import VectorDrive
    from mbdae.engine.core.drives import Step5Drive
    m.force(2000, TIP, VectorDrive.single(TIP_FORCE, Step5Drive(0.0, 0.0, T_RAMP, 1.0)))
    return m


def solves(name, rho):
    method = make_method(name, rho)
    return 2 if getattr(method, "kind", "") == "coupled" else solves_per_step(method)


def energy(problem, st):
    """E = T + U - F·(x_tip - x_tip0) of the state st (see the module docstring)."""
    from mbdae.elements.body import RigidBodies
    from mbdae.elements.beam import Beams3
    sysm = problem.system
    kin = sysm.kinematics(st)
    T = sysm.family(RigidBodies).kinetic_energy(kin)
    beams = sysm.family(Beams3)
    strain, _ = beams.strains(Context(st.t, st.y, st.yp, kin, "regular"))
    U = 0.5 * (L / NE / 2) * float(np.einsum('epi,ij,epj->', strain, SECTION, strain))
    tip = kin.x[sysm.nodes.index(TIP)] - np.array([L, 0.0, 0.0])
    return T + U - TIP_FORCE @ tip, tip


class EnergyRecorder:
    """Observer of the run (its `step` is set per run); the other events are not needed."""

    def start(self, system, model, method=None):
        pass

    def log(self, text):
        pass

    def step(self, event):
        pass

    def finish(self):
        pass


def run(name, rho, h, final_time=0.25, **settings):
    """One run; a row with the tip displacement at the end, the energy history and the cost."""
    opts = dict(SETTINGS)
    opts.update(settings)
    row = dict(method=make_method(name, rho).name, rho=rho, h=h, solves=solves(name, rho), error=np.nan,
               cpu=np.nan, steps=0, newton_iterations=0, factorizations=0, energy_change=np.nan, failure="")
    t0 = time.process_time()
    hist_t, hist_e = [], []
    try:
        prob = InitialValueProblem(cantilever(), final_time=final_time, time_step=h, method=name, rho=rho,
                                   keep_results=False, observers=[EnergyRecorder()], **opts)

        def record(event):
            e, tip = energy(prob, event.state)
            hist_t.append(event.t)
            hist_e.append(e)
            row["tip"] = tip
        prob.observers[0].step = record
        stats = prob.run()
        row.update(steps=stats["steps"], newton_iterations=stats["newton_iterations"],
                   factorizations=stats["factorizations"])
        k0 = int(np.searchsorted(np.array(hist_t), T_RAMP - 1e-12))   # first output with the full load
        row["energy_change"] = (hist_e[-1] - hist_e[k0]) / W_STATIC
    except (SimulationFailed, ValueError) as e:
        row["failure"] = str(e).splitlines()[0][:160]
        row.pop("tip", None)
    row["cpu"] = time.process_time() - t0
    row["series"] = (np.array(hist_t), np.array(hist_e) / W_STATIC)
    return row


def study(methods, base_steps, final_time, reference_step):
    ref = run("dirk54", 0.0, reference_step, final_time)
    if ref["failure"]:
        raise SimulationFailed(f"reference run failed: {ref['failure']}")
    rows = []
    for name, rho in methods:
        k = solves(name, rho)
        for hb in base_steps:
            row = run(name, rho, hb * k, final_time)
            row["base_step"] = hb
            if "tip" in row:
                row["error"] = float(np.max(np.abs(row["tip"] - ref["tip"])))
            rows.append(row)
            print(f"{row['method']:18s} {rho:4.2f} h={row['h']:.2e} err={row['error']:.3e} "
                  f"dE={row['energy_change']:+.3e} it={row['newton_iterations']} cpu={row['cpu']:.1f}s "
                  f"{row['failure']}", flush=True)
    return ref, rows


def fitted_orders(rows):
    """Observed order per (method, ρ∞) between its two finest steps (the coarser steps of the
    study lie outside the asymptotic range for the mid-frequency bending modes the ramp excites)."""
    out = {}
    for key in dict.fromkeys((r["method"], r["rho"]) for r in rows):
        pts = sorted((r["h"], r["error"]) for r in rows if (r["method"], r["rho"]) == key
                     and np.isfinite(r["error"]) and r["error"] > 0)
        if len(pts) >= 2:
            (h1, e1), (h2, e2) = pts[:2]
            out[key] = float(np.log(e2 / e1) / np.log(h2 / h1))
    return out


NOMINAL = {"crank nicolson": 2, "implicit euler": 1, "bdf": 2, "ms": 2, "hope": 2, "ms3": 2, "ms4": 2, "ss2": 2,
           "ss3": 2, "ss4": 2, "bathe": 2, "msstc3": 2, "msstc4": 2, "msstc5": 2, "mssth3": 3, "mssth4": 4,
           "mssth5": 5, "dirk33": 3, "dirk43": 3, "dirk54": 4, "thirdorder": 3, "thirdorder ad hoc": 3}
"""Nominal (linear) orders, spec/integrators.md §3.5 (thirdorder at ρ∞ = 1: 4, Lobatto IIIA)."""

COLUMNS = ["method", "rho", "base_step", "h", "solves", "error", "energy_change", "cpu", "steps",
           "newton_iterations", "factorizations", "failure"]


def write_csv(rows, path):
    import csv
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r.get(c, "") for c in COLUMNS])


def markdown(rows, orders, ref, final_time):
    lines = [f"# Flexible cantilever (10 beam3, tip load ramped over 0.01 s): tip displacement at t = {final_time:g} s, "
             "equal work\n",
             f"Reference: dirk54, h = {ref['h']:g} ({ref['steps']} steps, {ref['cpu']:.0f} s CPU); its energy "
             f"change over the run: {ref['energy_change']:+.2e} F·u_static.  Error: max-norm of the tip "
             f"displacement (m); static tip deflection {U_STATIC * 1e3:.1f} mm.  ΔE: energy change over the "
             "run after the load ramp (t ≥ T_R) / (F·u_static) (negative: dissipated).  `order`: slope of log error on log h "
             "between the two finest steps (nominal in brackets).\n",
             "| method | ρ∞ | base h | h | error | ΔE | CPU s | Newton it. | factorizations | order | failure |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        key = (r["method"], r["rho"])
        nom = 4 if (r["method"] == "thirdorder" and r["rho"] == 1.0) else NOMINAL.get(r["method"], "")
        o = f"{orders[key]:.2f} ({nom})" if key in orders else f"– ({nom})"
        lines.append(f"| {r['method']} | {r['rho']:g} | {r['base_step']:g} | {r['h']:.3g} | {r['error']:.3e} | "
                     f"{r['energy_change']:+.2e} | {r['cpu']:.1f} | {r['newton_iterations']} | "
                     f"{r['factorizations']} | {o} | {r['failure']} |")
    return "\n".join(lines) + "\n"


def _after_ramp(series):
    """(t, E(t) - E(T_R)) for t ≥ T_R: the energy is an invariant only under the constant load."""
    t, e = series
    k0 = int(np.searchsorted(t, T_RAMP - 1e-12))
    return t[k0:], e[k0:] - e[k0]


def plot(rows, ref, path, final_time):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(18, 6))
    keys = list(dict.fromkeys((r["method"], r["rho"]) for r in rows))
    styles = ["-o", "--s", "-.^", ":v"]
    for i, key in enumerate(keys):
        rs = sorted([r for r in rows if (r["method"], r["rho"]) == key and np.isfinite(r["error"])],
                    key=lambda r: r["h"])
        if not rs:
            continue
        lab = f"{key[0]} {key[1]:g}"
        st = styles[i % len(styles)]
        axes[0].loglog([r["base_step"] for r in rs], [r["error"] for r in rs], st, ms=3, label=lab)
        axes[1].loglog([r["cpu"] for r in rs], [r["error"] for r in rs], st, ms=3, label=lab)
        finest = rs[0]
        axes[2].plot(*_after_ramp(finest["series"]), st[:-1] if len(st) > 2 else st[0], lw=1, label=lab)
    axes[2].plot(*_after_ramp(ref["series"]), "k-", lw=2, label="reference dirk54")
    axes[2].set_yscale("symlog", linthresh=1e-6)
    axes[0].set_xlabel("base step (step / solves per step)")
    axes[0].set_ylabel(f"tip displacement error at t = {final_time:g} s (m)")
    axes[1].set_xlabel("CPU time (s)")
    axes[2].set_xlabel("time (s)")
    axes[2].set_ylabel("(E(t) - E(T_R)) / (F u_static), finest run (symlog)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    axes[2].legend(fontsize=6, ncol=2)
    fig.suptitle("Cantilever, 10 beam3, tip load ramped over 0.01 s: all methods at equal work")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--steps", type=float, nargs="+", default=[1e-3, 5e-4, 2.5e-4])
    ap.add_argument("--final-time", type=float, default=0.25)
    ap.add_argument("--reference-step", type=float, default=2.5e-4)
    ap.add_argument("--methods", nargs="*", default=None, help="subset, as name:rho")
    a = ap.parse_args(argv)
    methods = METHODS if not a.methods else [(m.split(":")[0], float(m.split(":")[1])) for m in a.methods]
    os.makedirs(a.out, exist_ok=True)
    ref, rows = study(methods, a.steps, a.final_time, a.reference_step)
    orders = fitted_orders(rows)
    write_csv(rows, os.path.join(a.out, "flexible.csv"))
    text = markdown(rows, orders, ref, a.final_time)
    with open(os.path.join(a.out, "flexible.md"), "w") as f:
        f.write(text)
    try:
        plot(rows, ref, os.path.join(a.out, "flexible.png"), a.final_time)
    except ImportError:
        print("matplotlib not installed: no plot")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
