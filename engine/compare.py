"""Integrator comparison bench: run one model over a grid of methods × step sizes (× ρ∞)
against a reference and tabulate error, cost, Newton iterations and factorizations.

At equal work the step of a method is the base step times its implicit solves per step
(Bathe 2, msstc3 3, dirk54 5, …), the convention of the MBDyn benchmark inputs and of
Zhang et al. 2020.  Observed orders are fitted per method (least squares of log error on
log step).  Plots need matplotlib (optional extra `plot`).
"""
from dataclasses import dataclass, field
import csv
import time
import numpy as np

from mbdae.engine.drivers.ivp import InitialValueProblem, SimulationFailed
from mbdae.solvers.integrators import make_method


@dataclass
class ComparisonCase:
    """What to compare: `build()` returns a fresh Model; `observe(results)` returns the
    observed vector at the final time; `reference` is that vector for the exact solution
    (None: computed by a fine run of `reference_method`)."""
    name: str
    build: object
    final_time: float
    observe: object
    reference: np.ndarray = None
    settings: dict = field(default_factory=dict)
    reference_method: tuple = ("dirk54", 0.0)
    reference_step: float = None
    monitors: object = None          # optional: results -> {"energy": array, "constraint drift": array, …}


def solves_per_step(method):
    """Implicit (Newton) solves one step of the method needs."""
    return len(method.tableau()[2]) if getattr(method, "kind", "lms") == "multistage" else 1


def run_one(case, name, rho, h, **settings):
    """One run; returns a row dict (with the failure reason when the run stops)."""
    method = make_method(name, rho)
    opts = dict(case.settings)
    opts.update(settings)
    row = dict(method=method.name, rho=rho, h=h, solves=solves_per_step(method), error=np.nan,
               cpu=np.nan, steps=0, newton_iterations=0, factorizations=0, failure="")
    t0 = time.process_time()
    try:
        prob = InitialValueProblem(case.build(), final_time=case.final_time, time_step=h, method=name,
                                   rho=rho, **opts)
        r = prob.run()
        observed = case.observe(r)
        row["observed"] = components_of(observed) if isinstance(observed, dict) else np.asarray(observed, float)
        if case.monitors is not None:
            row["series"] = (np.asarray(r.t), {k: np.asarray(v, float) for k, v in case.monitors(r).items()})
        row.update(steps=r.stats["steps"], newton_iterations=r.stats["newton_iterations"],
                   factorizations=r.stats["factorizations"])
    except (SimulationFailed, ValueError) as e:
        row["failure"] = str(e).splitlines()[0][:200]
    row["cpu"] = time.process_time() - t0
    return row


def reference_solution(case):
    if case.reference is not None:
        return np.asarray(case.reference, float)
    name, rho = case.reference_method
    h = case.reference_step or case.final_time / 4000
    row = run_one(case, name, rho, h)
    if row["failure"]:
        raise SimulationFailed(f"reference run failed: {row['failure']}")
    return row["observed"]


def compare(case, methods, base_steps, equal_work=True, **settings):
    """Rows for every (method, ρ∞) in `methods` and every base step; the error is the
    max-norm of observed - reference."""
    ref = reference_solution(case)
    rows = []
    for name, rho in methods:
        k = solves_per_step(make_method(name, rho)) if equal_work else 1
        for hb in base_steps:
            row = run_one(case, name, rho, hb * k, **settings)
            row["base_step"] = hb
            if "observed" in row:
                row["error"] = float(np.max(np.abs(row["observed"] - ref)))
            rows.append(row)
    return rows


def fitted_orders(rows):
    """Observed order per (method, ρ∞): slope of log(error) against log(step)."""
    out = {}
    keys = dict.fromkeys((r["method"], r["rho"]) for r in rows)
    for key in keys:
        pts = [(r["h"], r["error"]) for r in rows if (r["method"], r["rho"]) == key
               and np.isfinite(r["error"]) and r["error"] > 0]
        if len(pts) >= 2:
            h, e = np.log(np.array(pts)).T
            out[key] = float(np.polyfit(h, e, 1)[0])
    return out


COLUMNS = ["method", "rho", "base_step", "h", "solves", "error", "cpu", "steps", "newton_iterations",
           "factorizations", "failure"]


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def read_csv(path):
    """Rows written by write_csv, with numbers converted back."""
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            for k in ("rho", "base_step", "h", "error", "cpu"):
                r[k] = float(r[k]) if r[k] not in ("", "nan") else np.nan
            for k in ("solves", "steps", "newton_iterations", "factorizations"):
                r[k] = int(float(r[k])) if r[k] else 0
            rows.append(r)
    return rows


def markdown_table(rows, orders=None):
    lines = ["| method | ρ∞ | h | error | CPU (s) | Newton it./step | factorizations | note |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        per = r["newton_iterations"] / r["steps"] if r["steps"] else float("nan")
        lines.append(f"| {r['method']} | {r['rho']:g} | {r['h']:.3g} | {r['error']:.3e} | {r['cpu']:.2f} | "
                     f"{per:.2f} | {r['factorizations']} | {r['failure']} |")
    if orders:
        lines += ["", "| method | ρ∞ | observed order |", "|---|---|---|"]
        lines += [f"| {m} | {rho:g} | {p:.2f} |" for (m, rho), p in orders.items()]
    return "\n".join(lines) + "\n"


def _pyplot():
    """matplotlib's pyplot on the file-only Agg back end (optional dependency)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _finish(fig, ax, xlabel, ylabel, title, path, which="major"):
    """Labels, grid and legend of one plot, written to `path`; returns the path."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which=which, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    _pyplot().close(fig)
    return path


def plot(rows, prefix, title=""):
    """error vs step and error vs CPU time, one line per method (PNG files); needs matplotlib."""
    plt = _pyplot()
    keys = list(dict.fromkeys((r["method"], r["rho"]) for r in rows))
    colors = plt.get_cmap("tab20")(np.linspace(0, 1, max(len(keys), 2)))
    paths = []
    for xkey, xlabel, suffix in (("h", "time step h (s)", "error_vs_step"), ("cpu", "CPU time (s)", "error_vs_cpu")):
        fig, ax = plt.subplots(figsize=(6.4, 4.8))
        for i, key in enumerate(keys):
            pts = sorted((r[xkey], r["error"]) for r in rows if (r["method"], r["rho"]) == key
                         and np.isfinite(r["error"]))
            if pts:
                x, y = zip(*pts)
                ax.loglog(x, y, "os^v<>"[i % 6] + ("-" if i % 2 == 0 else "--"), color=colors[i],
                          label=f"{key[0]} ρ∞={key[1]:g}")
        paths.append(_finish(fig, ax, xlabel, "max |error| at final time", title, f"{prefix}_{suffix}.png",
                             which="both"))
    return paths


def plot_costs(rows, prefix, title=""):
    """Newton iterations and factorizations per step against the step, one line per method."""
    plt = _pyplot()
    keys = list(dict.fromkeys((r["method"], r["rho"]) for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for i, key in enumerate(keys):
        pts = sorted((r["h"], r["newton_iterations"] / r["steps"], r["factorizations"] / r["steps"])
                     for r in rows if (r["method"], r["rho"]) == key and r["steps"])
        if pts:
            h, it, fa = zip(*pts)
            style = "os^v<>"[i % 6] + ("-" if i % 2 == 0 else "--")
            axes[0].semilogx(h, it, style, label=f"{key[0]} ρ∞={key[1]:g}")
            axes[1].semilogx(h, fa, style)
    axes[0].set_ylabel("Newton iterations per step")
    axes[1].set_ylabel("factorizations per step")
    for ax in axes:
        ax.set_xlabel("time step h (s)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    path = f"{prefix}_costs.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def finest_runs(rows):
    """{(method, ρ∞): the row of its smallest step} among the rows that carry a `series`."""
    finest = {}
    for r in rows:
        key = (r["method"], r["rho"])
        if "series" in r and (key not in finest or r["h"] < finest[key]["h"]):
            finest[key] = r
    return finest


def plot_series(rows, prefix, title=""):
    """Monitored series over time (energy, constraint drift, …) of the finest run of each
    method; one PNG per series name.  Needs rows from a case with `monitors`."""
    plt = _pyplot()
    finest = finest_runs(rows)
    names = list(dict.fromkeys(k for r in finest.values() for k in r["series"][1]))
    paths = []
    for name in names:
        fig, ax = plt.subplots(figsize=(6.4, 4.8))
        for i, (key, r) in enumerate(finest.items()):
            t, series = r["series"]
            if name in series:
                ax.plot(t, series[name], "-" if i % 2 == 0 else "--", label=f"{key[0]} ρ∞={key[1]:g} h={r['h']:.3g}")
        paths.append(_finish(fig, ax, "time (s)", name, title, f"{prefix}_{name.replace(' ', '_')}.png"))
    return paths


# ------------------------------------------------------------------ observed orders per component
COMPONENTS = ("positions", "velocities", "multipliers")


def components_of(observed):
    """{component: vector} from a case's observation (a bare vector counts as positions)."""
    if isinstance(observed, dict):
        return {k: np.asarray(v, float).ravel() for k, v in observed.items()}
    return {"positions": np.asarray(observed, float).ravel()}


@dataclass
class OrderFit:
    """Least-squares line log e = p log h + c over the steps, and how well it holds: the
    points within `band` (in units of log 2, i.e. a factor 2^band) of the line, and the
    local slopes between consecutive steps."""
    order: float
    on_line: int
    local: list
    errors: list

    @property
    def asymptotic(self):
        return self.on_line >= 3 and len(self.errors) >= 3


def fit_order(steps, errors, band=0.1, least=3):
    """The asymptotic range is the fine end: the longest run of the finest steps (at least
    `least`) whose errors lie within `band` of their own least-squares line gives the order;
    if none does, the finest `least` points are fitted and fewer than `least` count as on
    the line.  `steps` are in decreasing order."""
    h, e = np.log2(np.asarray(steps, float)), np.log2(np.asarray(errors, float))
    local = list(np.diff(e) / np.diff(h))
    if not np.all(np.isfinite(e)) or len(e) < 2:
        return OrderFit(np.nan, 0, local, list(errors))
    best = None
    for start in range(len(e) - min(least, len(e)), -1, -1):
        p, c = np.polyfit(h[start:], e[start:], 1)
        on_line = int(np.sum(np.abs(e[start:] - (p * h[start:] + c)) <= band))
        if on_line == len(e) - start or best is None:
            best = (float(p), on_line)
        if on_line < len(e) - start:
            break
    return OrderFit(best[0], best[1], local, list(errors))


def order_study(case, methods, steps, tolerance_factor=10.0, **settings):
    """Observed order of every (method, ρ∞) per component (positions, velocities,
    multipliers) over `steps` (as given: the order study is not an equal-work comparison).
    The case's `settings` must hold a tight Newton tolerance; to show that it never limits
    the error, the finest step is run again with the tolerance × `tolerance_factor` (looser:
    a tighter one hits round-off in the residual) and the largest relative change of any
    component's error is reported (`tolerance_effect`): when even a 10× looser tolerance
    leaves the error unchanged, the study's tolerance is far below it.  Every run
    keeps its step (min_time_step = h): a step that fails is a failure, not a smaller step."""
    ref = components_of(case.reference)
    steps = sorted(steps, reverse=True)
    out = []
    for name, rho in methods:
        method = make_method(name, rho)
        errs = {k: [] for k in ref}
        failure = ""
        for h in steps:
            row = run_one(case, name, rho, h, **dict(settings, min_time_step=h))
            failure = failure or row["failure"]
            got = components_of(row["observed"]) if "observed" in row else {}
            for k in ref:
                errs[k].append(float(np.max(np.abs(got[k] - ref[k]))) if k in got else np.nan)
        effect = np.nan
        if not failure:
            tol = dict(case.settings, **settings).get("tolerance", 1e-6) * tolerance_factor
            row = run_one(case, name, rho, steps[-1], **dict(settings, tolerance=tol, min_time_step=steps[-1]))
            if "observed" in row:
                got = components_of(row["observed"])
                effect = max(abs(float(np.max(np.abs(got[k] - ref[k]))) - errs[k][-1]) / errs[k][-1]
                             for k in ref if errs[k][-1] > 0)
        out.append(dict(method=method.name, rho=rho, steps=list(steps), failure=failure,
                        predicted=dict(zip(COMPONENTS, method.constrained_orders)),
                        fits={k: fit_order(steps, v) for k, v in errs.items()}, tolerance_effect=effect))
    return out


def order_agrees(row, component, slack=0.15):
    """The observed order of `component` equals the predicted one within `slack` on at
    least three steps on the fitted line; a component the theory does not predict (None)
    agrees when it simply is not claimed."""
    want = row["predicted"].get(component)
    fit = row["fits"].get(component)
    if want is None or fit is None:
        return True
    return fit.asymptotic and abs(fit.order - want) <= slack


def order_table_markdown(rows, title=""):
    """One line per method: predicted and observed orders per component, points on the
    fitted line, and the effect of a 10× looser Newton tolerance on the finest error."""
    comps = [c for c in COMPONENTS if any(c in r["fits"] for r in rows)]
    head = " | ".join(f"{c} (pred./obs., on line)" for c in comps)
    lines = ([f"## {title}", ""] if title else []) + [
        f"| method | ρ∞ | {head} | finest errors | tol. ×10 effect | agrees | note |",
        "|---|---|" + "---|" * len(comps) + "---|---|---|---|"]
    for r in rows:
        cells, agree = [], True
        for c in comps:
            f = r["fits"][c]
            want = r["predicted"].get(c)
            cells.append(f"{'—' if want is None else want} / {f.order:.2f} ({f.on_line}/{len(f.errors)})")
            agree &= order_agrees(r, c)
        finest = ", ".join(f"{r['fits'][c].errors[-1]:.1e}" for c in comps)
        lines.append(f"| {r['method']} | {r['rho']:g} | " + " | ".join(cells) +
                     f" | {finest} | {r['tolerance_effect']:.1e} | {'yes' if agree and not r['failure'] else 'NO'} "
                     f"| {r['failure']} |")
    return "\n".join(lines) + "\n"
