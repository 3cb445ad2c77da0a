"""Whole-process wall time of `mbdae run` on MBDyn decks, side by side with Exudyn (and with
MBDyn itself when an `mbdyn` program is found), alternating the engines, medians of repeats.

Models (1 s at h = 1e-3, `ms` with ρ∞ = 0.6 in the decks; the other engines get the same
model and the same integrator family, see below):
- chain of N steel links (0.1 × 0.01 × 0.01 m, 7800 kg/m³) joined by spherical hinges,
  pinned at one end, released from horizontal under gravity −y (benchmarks/chain.py's model);
  the deck has no `linear solver` card, MBDyn's default `norm` test at 1e-6, and
  `derivatives tolerance: 1e-4` (MBDyn's initial derivatives do not converge at its
  default on the chain of 100);
- cantilever of NE three-node `beam3` elements (benchmarks/beam.py's model: L = 1 m,
  EA = 1e7 N, GA = 4e6 N, GJ = 800 N m², EI = 1000 N m², 1 kg/m lumped on the nodes by
  finite volumes, tip force 100 N along −y), with `linear solver: umfpack` as MBDyn's own
  beam deck (tests/beam/b100) asks and the `norm` test at 1e-4 N (the round-off floor of
  the force rows grows with NE: 1.1e-5 N at NE = 100), `derivatives tolerance: 1e-4` as
  the chain.

Exudyn (pip install exudyn) runs the chain as rigid bodies with spherical joints and its
generalized-α integrator at ρ∞ = 0.6 (MBDyn's `ms` is a two-step method with the same
spectral radius; both are second order), Newton with its default relative tolerance and
its sparse direct solver (EigenSparse; Exudyn's default dense solver takes 61 s on the
chain of 100); the
beam has no Exudyn counterpart here (its beam elements are not MBDyn's finite-volume beam3).

Every engine runs as its own process (`python -c`, `mbdae run`, `mbdyn -f`) so start-up is
included; the kernel cache is warm (the first run of a fresh install compiles the kernels
once: `--first-run` measures that separately with an empty cache folder).

    python benchmarks/decks.py                       # all models, 3 repeats
    python benchmarks/decks.py --chain 10 100 --beam --repeat 5
    python benchmarks/decks.py --write-decks out/decks   # only write the decks
    python benchmarks/decks.py --other-mbdae ../old/.venv/bin/mbdae   # also an older tree, alternately
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mbdae.elements.beam import beam3_node_shares

LINK, SECTION, RHO = 0.1, 0.01, 7800.0
EA, GA, GJ, EI, L = 1e7, 4e6, 800.0, 1000.0, 1.0
MU, JB, JT = 1.0, 1e-4, 2e-4
TIP_FORCE = 100.0

HEADER = """begin: data;
    problem: initial value;
end: data;

begin: initial value;
    initial time: 0.;
    final time: {final_time};
    time step: 1.e-3;
    method: ms, .6;
    tolerance: {tolerance};
    max iterations: 20;
{extra}    threads: disable;
end: initial value;
"""


def chain_deck(n, final_time=1.0):
    """MBDyn deck of the chain of n links (benchmarks/chain.py's model)."""
    mass = RHO * LINK * SECTION * SECTION
    jx = mass * (2 * SECTION ** 2) / 12
    jt = mass * (LINK ** 2 + SECTION ** 2) / 12
    # MBDyn's derivatives phase needs a looser tolerance than its default on the chain of 100
    lines = [HEADER.format(final_time=final_time, tolerance="1.e-6", extra="    derivatives tolerance: 1.e-4;\n"),
             "begin: control data;",
             f"    structural nodes: {n};", f"    rigid bodies: {n};", f"    joints: {n};",
             "    gravity;", "    default output: none;", "end: control data;", "", "begin: nodes;"]
    for i in range(n):
        lines.append(f"    structural: {i + 1}, dynamic, {(i + 0.5) * LINK!r}, 0., 0., eye, null, null;")
    lines += [f"    output: structural, {n};", "end: nodes;", "", "begin: elements;"]
    for i in range(n):
        lines.append(f"    body: {i + 1}, {i + 1}, {mass!r}, null, diag, {jx!r}, {jt!r}, {jt!r};")
    lines.append(f"    joint: 1, spherical pin, 1, position, {-LINK / 2!r}, 0., 0., position, 0., 0., 0.;")
    for i in range(1, n):
        lines.append(f"    joint: {i + 1}, spherical hinge, {i}, position, {LINK / 2!r}, 0., 0., "
                     f"{i + 1}, position, {-LINK / 2!r}, 0., 0.;")
    lines += ["    gravity: uniform, 0., -1., 0., const, 9.81;", "end: elements;", ""]
    return "\n".join(lines)


def beam_deck(ne, final_time=1.0):
    """MBDyn deck of the beam3 cantilever of ne elements (benchmarks/beam.py's model)."""
    nn = 2 * ne + 1
    s = np.linspace(0.0, L, nn)
    share = beam3_node_shares(ne, L)
    lines = [HEADER.format(final_time=final_time, tolerance="1.e-4",
                           extra="    derivatives tolerance: 1.e-4;\n    linear solver: umfpack;\n"),
             "begin: control data;",
             f"    structural nodes: {nn};", f"    rigid bodies: {nn};", f"    beams: {ne};",
             "    joints: 1;", "    forces: 1;", "    default output: none;", "end: control data;", "",
             "begin: nodes;"]
    for i in range(nn):
        lines.append(f"    structural: {i}, dynamic, {float(s[i])!r}, 0., 0., eye, null, null;")
    lines += [f"    output: structural, {nn - 1};", "end: nodes;", "", "begin: elements;",
              "    joint: 1, clamp, 0, node, node;"]
    for i in range(nn):
        m, jt, jb = (float(MU * share[i]), float(JT * share[i]), float(JB * share[i]))
        lines.append(f"    body: {i}, {i}, {m!r}, null, diag, {jt!r}, {jb!r}, {jb!r};")
    law = f"linear elastic generic, diag, {EA!r}, {GA!r}, {GA!r}, {GJ!r}, {EI!r}, {EI!r}"
    for e in range(ne):
        lines.append(f"    beam3: {e + 1}, {2 * e}, null, {2 * e + 1}, null, {2 * e + 2}, null, "
                     f"eye, {law}, same, same;")
    lines += [f"    force: 1, absolute, {nn - 1}, position, null, single, 0., -1., 0., const, {TIP_FORCE!r};",
              "end: elements;", ""]
    return "\n".join(lines)


EXUDYN_CHAIN = r"""
import sys, warnings
warnings.simplefilter("ignore", DeprecationWarning)
import exudyn as exu
from exudyn.utilities import InertiaCuboid
n = int(sys.argv[1]); T = float(sys.argv[2])
LINK, SECTION, RHO = {LINK}, {SECTION}, {RHO}
SC = exu.SystemContainer(); mbs = SC.AddSystem()
inertia = InertiaCuboid(RHO, [LINK, SECTION, SECTION])
prev = mbs.CreateGround(referencePosition=[0, 0, 0])
for i in range(n):
    body = mbs.CreateRigidBody(inertia=inertia, referencePosition=[(i + 0.5) * LINK, 0, 0],
                               gravity=[0, -9.81, 0])
    mbs.CreateSphericalJoint(itemNumbers=[prev, body], position=[i * LINK, 0, 0])
    prev = body
mbs.Assemble()
s = exu.SimulationSettings()
s.timeIntegration.numberOfSteps = int(round(T / 1e-3)); s.timeIntegration.endTime = T
s.timeIntegration.generalizedAlpha.spectralRadius = 0.6
s.timeIntegration.verboseMode = 0
s.linearSolverType = exu.LinearSolverType.EigenSparse
s.solutionSettings.writeSolutionToFile = False
s.displayStatistics = False; s.displayComputationTime = False
mbs.SolveDynamic(s)
node = mbs.GetObject(prev)["nodeNumber"]
print("last link centre", list(mbs.GetNodeOutput(node, exu.OutputVariableType.Position)))
"""


# the environment of the timed processes: Python writes and reuses its bytecode (.pyc), as in
# a user's install (a shell with PYTHONDONTWRITEBYTECODE=1 makes every start-up recompile
# mbdae's sources: 0.3 s more on this machine)
RUN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd, cwd):
    """(wall time, completed process) of one run; a failed run is reported, not raised (MBDyn
    1.7.3 diverges on the chain of 1000)."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=RUN_ENV)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or ["?"])[-1]
        print(f"    {Path(cmd[0]).name} failed after {wall:.3f} s (exit {p.returncode}): {last[:200]}", flush=True)
    return wall, p


def mbdae_command():
    exe = Path(sys.executable).with_name("mbdae")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mbdae"]


def have_exudyn():
    return subprocess.run([sys.executable, "-c", "import exudyn"], capture_output=True).returncode == 0


def steps_of(out_file):
    """Steps, total Newton iterations of an MBDyn-style .out file."""
    steps = its = 0
    for line in Path(out_file).read_text().splitlines():
        if line.startswith("Step "):
            w = line.split()
            if int(w[1]) > 0:
                steps += 1
                its += int(w[4])
    return steps, its


def bench(name, deck_text, workdir, repeat, exudyn_args=None, mbdyn=None, other_mbdae=None):
    deck = workdir / f"{name}.mbd"
    deck.write_text(deck_text)
    engines = {"mbdae": lambda: timed(mbdae_command() + ["run", str(deck), "-o", str(workdir / f"{name}.mbdae")],
                                      workdir)}
    if other_mbdae is not None:
        engines["mbdae-other"] = lambda: timed([other_mbdae, "run", str(deck), "-o", str(workdir / f"{name}.other")],
                                               workdir)
    if exudyn_args is not None:
        script = workdir / "exudyn_chain.py"
        script.write_text(EXUDYN_CHAIN.format(LINK=LINK, SECTION=SECTION, RHO=RHO))
        engines["exudyn"] = lambda: timed([sys.executable, str(script)] + exudyn_args, workdir)
    if mbdyn is not None:
        engines["mbdyn"] = lambda: timed([mbdyn, "-f", str(deck), "-o", str(workdir / f"{name}.mbdyn")], workdir)
    # one short untimed run: kernels this deck needs compiled and cached before timing
    subprocess.run(mbdae_command() + ["run", str(deck), "-o", str(workdir / "warm"), "--final-time", "0.002"],
                   cwd=workdir, capture_output=True, env=RUN_ENV)
    walls = {k: [] for k in engines}
    for _ in range(repeat):                       # alternate the engines
        for k, run in engines.items():
            walls[k].append(run()[0])
    row = {k: statistics.median(v) for k, v in walls.items()}
    info = ""
    out = workdir / f"{name}.mbdae.out"
    if out.exists():
        steps, its = steps_of(out)
        info = f"  mbdae: {steps} steps, {its} Newton iterations"
    print(f"{name:10s} " + "  ".join(f"{k} {row[k]:7.3f} s (runs {', '.join(f'{w:.3f}' for w in walls[k])})"
                                      for k in walls) + info, flush=True)
    return row


def first_run(workdir):
    """Whole-process time of the first run of a fresh install (empty kernel cache: the
    kernels compile), then of the second (cache warm), on the 10-link chain."""
    deck = workdir / "first.mbd"
    deck.write_text(chain_deck(10))
    cache = Path(tempfile.mkdtemp(prefix="mbdae-kernels-"))
    env = dict(RUN_ENV, MBDAE_CACHE_DIR=str(cache / "k"))
    try:
        for label in ("first run (compiles the kernels)", "second run (cached kernels)"):
            t0 = time.perf_counter()
            subprocess.run(mbdae_command() + ["run", str(deck), "-o", str(workdir / "first")], env=env,
                           check=True, capture_output=True)
            print(f"chain N=10 {label}: {time.perf_counter() - t0:.2f} s", flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chain", type=int, nargs="*", default=[10, 100, 1000])
    ap.add_argument("--beam", type=int, nargs="*", default=[10, 100])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--final-time", type=float, default=1.0)
    ap.add_argument("--no-exudyn", action="store_true")
    ap.add_argument("--mbdyn", default=shutil.which("mbdyn"), help="path of the mbdyn program (default: on PATH)")
    ap.add_argument("--first-run", action="store_true", help="also time a run with an empty kernel cache")
    ap.add_argument("--other-mbdae", help="the mbdae program of another tree (e.g. an older commit's venv), "
                                          "run alternately as 'mbdae-other'")
    ap.add_argument("--write-decks", metavar="DIR", help="write the decks to DIR and stop")
    a = ap.parse_args()
    if a.write_decks:
        d = Path(a.write_decks)
        d.mkdir(parents=True, exist_ok=True)
        for n in a.chain:
            (d / f"chain{n}.mbd").write_text(chain_deck(n, a.final_time))
        for ne in a.beam:
            (d / f"beam{ne}.mbd").write_text(beam_deck(ne, a.final_time))
        print(f"decks written to {d}")
        return
    exudyn = not a.no_exudyn and have_exudyn()
    print(f"load average {np.round(os.getloadavg(), 2).tolist()}; engines: mbdae"
          f"{', exudyn' if exudyn else ''}{', mbdyn ' + a.mbdyn if a.mbdyn else ''}"
          f"{', mbdae-other ' + a.other_mbdae if a.other_mbdae else ''}; median of {a.repeat}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="mbdae-decks-") as tmp:
        work = Path(tmp)
        if a.first_run:
            first_run(work)
        for n in a.chain:
            bench(f"chain{n}", chain_deck(n, a.final_time), work, a.repeat,
                  exudyn_args=[str(n), str(a.final_time)] if exudyn else None, mbdyn=a.mbdyn,
                  other_mbdae=a.other_mbdae)
        for ne in a.beam:
            bench(f"beam{ne}", beam_deck(ne, a.final_time), work, a.repeat, mbdyn=a.mbdyn, other_mbdae=a.other_mbdae)
    print(f"load average {np.round(os.getloadavg(), 2).tolist()}")


if __name__ == "__main__":
    main()
