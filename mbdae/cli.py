"""The `mbdae` command: run or check an MBDyn input deck.

    python -m mbdae run DECK [-o PREFIX] [--final-time T]   # like `mbdyn -f DECK -o PREFIX`
    python -m mbdae check DECK                              # read only: model summary
    python -m mbdae plot PREFIX --node N --what x|v|w|euler # PNG of a node's motion
    python -m mbdae plot PREFIX --hydro L | --rao L         # a floating body's loads, its RAOs
    python -m mbdae conformance DIR [--budget S] [-o PREFIX] [--ref REF] # every deck: table
    python -m mbdae compare TARGET --steps H... [--methods M[:RHO]...]  # integrator bench
    python -m mbdae reduce MESH -o BODY.fem --young E --poisson NU --density RHO ...  # modal body

Errors in the deck or in the run are one line on stderr and exit code 1; `--debug` shows
the traceback instead.  A deck that calls `stop(true, code)` exits with that code.
`run` stopped by SIGINT or SIGTERM ends on a whole step and exits 130 or 143; a write
failure of its output is one line naming the file, exit code 74 (README, "Using it from
Python").
"""
import argparse
import glob
import importlib
import os
import sys
import time
import traceback
from collections import Counter
from importlib import metadata
from dataclasses import replace

from mbdae.engine.io.mbdyn.deck import DeckError, DeckStop, read_deck
from mbdae.engine.io.mbdm.build import MbdmCase, read_mbdm_case
from mbdae.engine.io.mbdm.reader import is_mbdm_file
from mbdae.engine.drivers.ivp import SimulationFailed
from mbdae.engine.drivers.kinematic import NotFullyDriven, OverConstrained
from mbdae.engine.drivers.time_span import InvalidTimeSettings, check_time_span
from mbdae.engine.system import System
from mbdae.engine.errors import InputError
from mbdae.engine.core.state import InvalidConfiguration
from mbdae.engine.diagnose import diagnose
from mbdae.engine.io.vtu import VTUWriter
from mbdae.engine.io.failures import OutputError
from mbdae.engine.core.stop import StopRequested, stop_on_signals
from mbdae.solvers.linear import choose_linear_solver
from mbdae.solvers.petsc import mpi_abort, mpi_rank, mpi_world_size, petsc_settings

# The sub-commands that live in their own modules, loaded (importlib.import_module) only when
# that command runs: `run` and `check` then import only what a deck needs (no plotting,
# integrator comparison or conformance code).  Each module has add_arguments(parser) and
# command(args).  (tests/test_architecture.py counts these modules as imports of this file.)
SUBCOMMAND_MODULES = {"conformance": "mbdae.cmd_conformance", "plot": "mbdae.cmd_plot",
                      "compare": "mbdae.cmd_compare", "reduce": "mbdae.cmd_reduce"}
SUBCOMMAND_HELP = {
    "conformance": "read and run every deck under DIR; Markdown and CSV table",
    "plot": "plot a node's motion, a floating body's loads or its RAOs to a PNG",
    "compare": "compare integrators on a deck or Python case",
    "reduce": "a modal body (MBDyn FEM data file) from a solid or shell mesh",
}


def build_parser(command=None):
    """The argument parser; the sub-command `command` (one of SUBCOMMAND_MODULES) gets its
    full parser (its module is loaded), the others are listed with their help line only."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    p = argparse.ArgumentParser(prog="mbdae", description="Run MBDyn input decks with the mbdae engine.")
    p.add_argument("--debug", dest="debug_first", action="store_true", help="show tracebacks on errors")
    p.add_argument("--version", action="version", version=f"mbdae {package_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="{run,check,conformance,plot,compare,reduce}")
    run = sub.add_parser("run", parents=[common], help="read and run a deck (like mbdyn -f DECK)")
    run.add_argument("deck", help="MBDyn input file")
    run.add_argument("-o", "--output", dest="prefix",
                     help="output file prefix; without it the files are written beside the deck, named after "
                          "it (DECK.out, DECK.mov, ...: MBDyn's default)")
    run.add_argument("--final-time", type=float, help="override the deck's final time")
    run.add_argument("-q", "--quiet", action="store_true", help="no notes and no progress")
    run.add_argument("--vtu", nargs="?", const="reference", choices=("reference", "deformed"),
                     help="also write PREFIX.pvd and one PREFIX_NNNNN.vtu per output step (solid elements: "
                          "displacement, velocity, Cauchy and von Mises stress; needs meshio); points at the "
                          "reference (default) or deformed positions")
    run.add_argument("--linear-solver", metavar="NAME",
                     help="override the deck's linear solver: klu, superlu, umfpack, naive, kvxopt-umfpack, "
                          "kvxopt-klu, petsc, petsc-{klu,umfpack,mumps,superlu,gmres,fgmres,bicgstab} (the PETSc "
                          "ones need the extra mbdae[petsc])")
    run.add_argument("--petsc-options", metavar="OPTIONS", default="",
                     help="PETSc options passed through to the PETSc back end, e.g. \"-ksp_monitor "
                          "-pc_factor_mat_ordering_type nd\" (they override mbdae's settings)")
    run.add_argument("--mpi-evaluation", choices=("distributed", "replicated"), default=None,
                     help="under mpiexec: each process evaluates its share of the elements (distributed, "
                          "the default) or all of them (replicated); README, \"PETSc\"")
    check = sub.add_parser("check", parents=[common], help="read a deck and summarize the model")
    check.add_argument("deck", help="MBDyn input file")
    check.add_argument("--deep", action="store_true",
                       help="also rank-test the first step's iteration matrix at the initial configuration: "
                            "redundant joint equations, nodes without inertia, free directions (exit code 1 "
                            "when singular)")
    for name, help_line in SUBCOMMAND_HELP.items():
        if name == command:
            subcommand_module(name).add_arguments(sub.add_parser(name, parents=[common], help=help_line))
        else:
            sub.add_parser(name, help=help_line, add_help=False)
    return p


def package_version():
    """The installed distribution's version (pyproject.toml), or the source tree's marker."""
    try:
        return metadata.version("mbdae")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def subcommand_module(name):
    """The module of a sub-command of SUBCOMMAND_MODULES (imported on first use)."""
    return importlib.import_module(SUBCOMMAND_MODULES[name])


def command_name(argv):
    """The sub-command named in argv (its first word that is not an option), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(command_name(argv)).parse_args(argv)
    args.debug = args.debug or args.debug_first
    try:
        if args.command in SUBCOMMAND_MODULES:
            return subcommand_module(args.command).command(args)
        return COMMANDS[args.command](args)
    except DeckStop as e:
        print(f"mbdae: {e}", file=sys.stderr)
        return int(e.code)
    except KeyboardInterrupt:       # Ctrl-C outside a run's steps (reading, building): no file is half-written
        if args.debug:
            raise
        print("mbdae: interrupted (SIGINT)", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - one clear line unless --debug
        if args.debug and mpi_world_size() == 1:
            raise
        if args.debug:              # under MPI: the traceback of each failing rank, then abort
            traceback.print_exc()
        fail(f"mbdae: {describe(e)}")
        return 1


def fail(message):
    """Print a failing run's message; in an MPI run print it once and end every process: the
    ranks run the same steps and fail together, rank 0 prints at once and aborts; a rank that
    fails alone prints after MPI_ABORT_DELAY and aborts the others."""
    if mpi_world_size() == 1:
        print(message, file=sys.stderr)
        return
    rank = mpi_rank()
    if rank > 0:
        time.sleep(MPI_ABORT_DELAY)
        message = message.replace("mbdae:", f"mbdae (rank {rank}):", 1)
    print(message, file=sys.stderr, flush=True)
    mpi_abort(1)


# seconds a rank other than 0 waits before reporting its failure (rank 0 reports shared ones)
MPI_ABORT_DELAY = 1.0


def describe(error):
    if isinstance(error, DeckError):
        return str(error)
    if isinstance(error, InputError):
        return str(error)
    if isinstance(error, (SimulationFailed, InvalidConfiguration)):
        return f"simulation failed: {error}"
    if isinstance(error, OSError):          # write failures of the run name themselves (engine/io/failures.py)
        if not error.filename:
            return str(error)
        verb = "cannot read" if isinstance(error, (FileNotFoundError, IsADirectoryError)) else "cannot access"
        return f"{verb} {error.filename}: {error.strerror}"
    return f"{type(error).__name__}: {error} (rerun with --debug for the traceback)"


def print_notes(deck, stream=sys.stderr):
    for note in deck.notes:
        print(f"mbdae: note: {note}", file=stream)


def linear_solver_override(deck, name, petsc_options):
    """The `linear_solver` setting of `--linear-solver NAME` and `--petsc-options` (None: the
    deck's own).  PETSc options alone apply to the deck's PETSc solver; a non-PETSc one is an
    error, as is an unknown or unavailable solver (a ValueError naming the alternatives)."""
    if name is None and not petsc_options:
        return None
    spec = name if name is not None else deck.settings.get("linear_solver", "default")
    petsc = petsc_settings(spec)
    if petsc_options:
        if petsc is None:
            raise InputError(f"--petsc-options: the linear solver '{spec}' is not a PETSc one "
                             f"(use --linear-solver petsc-...)")
        petsc = replace(petsc, options=(petsc.options + " " + petsc_options).strip())
    spec = petsc if petsc is not None else spec
    try:
        choose_linear_solver(spec)          # unknown or unavailable: one clear line now
    except ValueError as err:
        raise InputError(f"--linear-solver {name}: {err}" if name is not None else str(err)) from None
    return spec


# exit status of a run whose output could not be written (sysexits.h EX_IOERR); a run stopped
# by a signal exits with 128 + the signal's number (130 SIGINT, 143 SIGTERM)
EXIT_WRITE_ERROR = 74


def command_run(args):
    """`mbdae run`, with SIGINT and SIGTERM stopping it between whole steps (one line, exit
    status 128 + signal) and a write failure reported as one line naming the file."""
    try:
        with stop_on_signals():
            return run_deck(args)
    except StopRequested as stop:
        came = {"writing": f", which was being written when the signal came",
                "step": f", which was being computed when the signal came"}.get(stop.during, "")
        at = (f" after step {stop.step} (t = {stop.t:.10g}){came}; the output files end on that step"
              if stop.step is not None else " before the first step; no step was written")
        fail(("\n" if sys.stderr.isatty() else "") + f"mbdae: stopped by {stop.name}{at}")
        return stop.exit_code
    except OutputError as e:
        if args.debug and mpi_world_size() == 1:
            raise
        fail(f"mbdae: {e}")
        return EXIT_WRITE_ERROR


def read_input(path, echo=print):
    """An MBDyn deck, or an MBDM input file (recognized by its header's `Kinematic (0),
    Dynamic (1):` line, engine/io/mbdm) with its `.expert.*` companions."""
    if is_mbdm_file(path):
        return read_mbdm_case(path)
    return read_deck(path, echo=echo)


def run_deck(args):
    if mpi_rank() > 0:                      # an MPI run: rank 0 prints and writes
        args.quiet = True
        args.vtu = None
    deck = read_input(args.deck, echo=print if mpi_rank() == 0 else (lambda *a, **k: None))
    if not args.quiet:
        print_notes(deck)
    if deck.abort_after and deck.abort_after[0] == "input":
        print("mbdae: abort after input: the deck was read, nothing was run", file=sys.stderr)
        return 0
    prefix = args.prefix or args.deck
    if prefix.endswith(os.sep):
        prefix = os.path.join(prefix, os.path.basename(args.deck))
    overrides = {}
    if args.final_time is not None:
        s = deck.settings
        try:
            check_time_span(s.get("initial_time", 0.0), args.final_time, s.get("time_step", 1e-3))
        except InvalidTimeSettings as err:
            raise InputError(f"--final-time {args.final_time:g}: {err}") from None
        overrides["final_time"] = args.final_time
    if args.quiet:
        overrides["progress"] = False
    if args.mpi_evaluation is not None:
        overrides["mpi_evaluation"] = args.mpi_evaluation
    linear = linear_solver_override(deck, args.linear_solver, args.petsc_options)
    if linear is not None:
        overrides["linear_solver"] = linear
    t0 = time.perf_counter()
    started = time.time()
    # the files are the results: nothing is kept in memory (a direct run returns its statistics)
    observers = [VTUWriter(prefix, args.vtu)] if args.vtu else []     # meshio is imported only then
    results = deck.run(output_prefix=prefix, observers=observers, keep_results=False, **overrides)
    wall = time.perf_counter() - t0
    if results is not None and not args.quiet:
        if isinstance(results, dict):
            stats, t_end = results, results.get("final_time", float("nan"))
        else:
            stats = results.stats or {}
            t_end = results.t[-1] if len(results.t) else float("nan")
        steps = stats.get("steps", stats.get("instants", 0))
        print(f"mbdae: {steps} {'instants' if 'instants' in stats else 'steps'} to time {t_end:g} in {wall:.2f} s; "
              f"output in {prefix}.{{{','.join(written_extensions(prefix, started))}}}", file=sys.stderr)
    return 0


def written_extensions(prefix, since):
    """Extensions of the files PREFIX.<ext> written since the time `since` (s since the epoch)."""
    found = []
    for path in glob.glob(glob.escape(prefix) + ".*"):
        ext = path[len(prefix) + 1:]
        if os.sep not in ext and os.path.getmtime(path) >= since - 1.0:
            found.append(ext)
    return sorted(found)


def command_check(args):
    deck = read_input(args.deck, echo=print)
    print_notes(deck)
    for line in check_report(deck):
        print(line)
    if getattr(args, "deep", False):
        if "inverse_dynamics" in deck.settings:
            print("diagnosis: not done for inverse dynamics (its subproblems have their own matrices)")
            return 0
        if "kinematic_analysis" in deck.settings:      # check_report printed its rank diagnosis
            return 0 if kinematic_diagnosis(deck)[1] else 1
        found = diagnose(deck)
        print("\n".join(found.lines()))
        return 1 if found.singular else 0
    return 0


def check_report(deck):
    """What `check` prints: nodes, elements by family, unknowns and equations, problem."""
    if isinstance(deck, MbdmCase):
        return deck.report()
    m = deck.model
    kinds = Counter(s.kind for s in m.nodes)
    lines = [f"deck: {deck.path}"]
    if deck.title:
        lines.append(f"title: {deck.title}")
    displacement = kinds.get("static displacement", 0) + kinds.get("dynamic displacement", 0)
    lines.append(f"structural nodes: {len(m.nodes) + len(m.dummy_nodes)} "
                 f"({kinds.get('static', 0)} static, {kinds.get('dynamic', 0)} dynamic, "
                 + (f"{displacement} displacement, " if displacement else "")
                 + f"{len(m.dummy_nodes)} dummy)")
    lines.append("elements:")
    lines.append(f"  rigid bodies: {len(m.bodies)}")
    joints = Counter([s.type for s in m.joints] + ["angular velocity"] * len(m.angular_velocity_joints))
    rbd = m.rigid_body_displacement_joints
    joints += Counter({"rod": len(m.rods)} if m.rods else {})
    joints += Counter({"rigid body displacement joint": len(rbd)} if rbd else {})
    lines.append(f"  joints: {len(m.joints) + len(m.rods) + len(rbd) + len(m.angular_velocity_joints)}"
                 + _breakdown(joints))
    forces = Counter(f"{s.frame}{' internal' if s.node2 is not None else ''} {s.kind}" for s in m.forces)
    lines.append(f"  forces: {len(m.forces)}" + _breakdown(forces))
    lines.append(f"  gravity: {'yes' if m.gravity_vector is not None else 'no'}")
    if m.rigid_body_kinematics is not None:
        rbk = m.rigid_body_kinematics
        lines.append(f"rigid body kinematics: {rbk.kind} ({', '.join(k.replace('_', ' ') for k in rbk.drives)}); "
                     "nodes, bodies and solids carry the frame's inertial loads")
    s = deck.settings
    if "inverse_dynamics" in s:
        # bodies may sit on static nodes there (the mass matrix is explicit): the inverse
        # problem builds its own systems, which `check` reports without running anything
        inv = deck.inverse_problem()
        lines.append(f"problem: inverse dynamics ({inv.problem_type}), {len(inv.times)} instants, "
                     f"t = {inv.times[0]:g} .. {inv.times[-1]:g}")
        return lines
    if "kinematic_analysis" in s:
        lines += kinematic_report(deck)
        return lines
    system = System(m)
    lines.append("element families (instances, own unknowns):")
    for fam in system.families:
        lines.append(f"  {fam.name}: {fam.ne}, {fam.n_internal}")
    n_alg = int(system.is_alg.sum())
    lines.append(f"unknowns: {system.n} ({system.n - n_alg} differential, {n_alg} algebraic)")
    lines.append(f"equations: {system.n}")
    method = s.get("method", "ms")
    rho = f", rho {s['rho']:g}" if method not in ("crank nicolson", "implicit euler", "bdf") else ""
    strategy = s.get("strategy")
    step = "" if strategy is None else {"factor": ", strategy factor", "change": ", time step from a drive "
                                        "(strategy change)"}[strategy[0]]
    lines.append(f"problem: initial value, t = {s.get('initial_time', 0.0):g} .. {s.get('final_time', 0.0):g}, "
                 f"time step {s.get('time_step', 1e-3):g}{step}, method {method}{rho}")
    return lines


def kinematic_diagnosis(deck):
    """(text, fully driven) of the rank diagnosis of a kinematic analysis deck at its initial
    configuration (engine/drivers/kinematic.py), without running anything."""
    try:
        return deck.kinematic_problem().diagnosis.summary(), True
    except (NotFullyDriven, OverConstrained) as e:
        return str(e), False


def kinematic_report(deck):
    """The problem line of a kinematic analysis deck and its rank diagnosis."""
    s = deck.settings
    return [f"problem: kinematic analysis, t = {s.get('initial_time', 0.0):g} .. {s.get('final_time', 0.0):g}, "
            f"time step {s.get('time_step', 1e-3):g}", f"diagnosis: {kinematic_diagnosis(deck)[0]}"]


def _breakdown(counter):
    if not counter:
        return ""
    return " (" + ", ".join(f"{n} {name}" for name, n in sorted(counter.items())) + ")"


COMMANDS = {"run": command_run, "check": command_check}

if __name__ == "__main__":
    sys.exit(main())
