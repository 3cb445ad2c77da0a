"""Reader for MBDyn input decks: text → mbdae Model + InitialValueProblem settings.

References: MBDyn input manual chapters 1-8 (sections cited per function);
spec/mbdyn-input-language.md sections 1-7.  Written from the documentation.

    from mbdae.engine.io.mbdyn.deck import read_deck
    deck = read_deck("tests/body/chain15/chain15")
    results = deck.run(output_prefix="out/chain15", final_time=0.1)

Parts (engine/io/mbdyn/), bottom up:

* ``lexer``: ``Source`` / ``scan_cards``: a file's text with comments blanked out (same offsets),
  cut into cards (``<description> [: <arg>, <arg> ...] ;``) whose words keep file, line and
  column; ``DeckError`` names them.
* ``args``: the ``Args`` cursor over one card's arguments (keywords, numbers through
  MathParser, strings) and plain values (vectors, matrices, output flags).
* ``geometry``, ``drive_callers``, ``laws``: relative frames, drive callers and template drives,
  constitutive laws.
* ``directives``, ``problem``, ``control``, ``nodes``, ``elements_block``: the cards of each block;
  element cards are read by the family modules (elements/*.py ``CARDS``, through
  elements/registry.py).
* here: ``DeckReader`` composes the parts (one reader object; each part is a class of its
  methods) and reads the blocks in order into a ``Deck``.

Policy: anything the engine cannot honour stops reading with a ``DeckError``
("not supported yet: ..."), never a silent skip.  Cards that change nothing mbdae computes
(threads, linear-solver orderings, NetCDF or solver-debug output ...) are accepted and listed
in ``Deck.notes``.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from mbdae.engine.core.drives import PostponedDrive, constant_value
from mbdae.engine.core.mathparser import MathParser
from mbdae.engine.drivers.inverse import InverseDynamicsProblem
from mbdae.engine.drivers.kinematic import KinematicAnalysis
from mbdae.engine.drivers.ivp import InitialValueProblem, Settings
from mbdae.engine.io.mbdyn.output import writers_for
from mbdae.engine.drivers.static import static_model
from mbdae.engine.io.mbdyn.args import Args, Values
from mbdae.engine.io.mbdyn.control import (NODE_FAMILIES, OUTPUT_CATEGORIES, UNSUPPORTED_CONTROL_CARDS,
                                           ControlCards)
from mbdae.engine.io.mbdyn.directives import DIRECTIVES, Directives
from mbdae.engine.io.mbdyn.drive_callers import DriveCallers
from mbdae.engine.io.mbdyn.elements_block import ElementCards
from mbdae.engine.io.mbdyn.geometry import Frame, Geometry
from mbdae.engine.io.mbdyn.laws import Laws
from mbdae.engine.io.mbdyn.lexer import DeckError, DeckStop, Source, normalize, not_supported, scan_cards, shown
from mbdae.engine.io.mbdyn.nodes import NodeCards
from mbdae.engine.io.mbdyn.problem import UNSUPPORTED_KINEMATIC_CARDS, UNSUPPORTED_PROBLEM_CARDS, ProblemCards
from mbdae.engine.model import Model
from mbdae.solvers.linear import add_solver_statistics, choose_linear_solver
from mbdae.solvers.petsc import mpi_rank

__all__ = ["DeckError", "DeckStop", "Deck", "DeckReader", "read_deck", "parse_deck",
           "scan_cards", "Source", "Frame"]

BLOCK_ORDER = ("data", "problem", "controldata", "nodes", "drivers", "elements")
UNSUPPORTED_CARDS = {"initial value": UNSUPPORTED_PROBLEM_CARDS, "control data": UNSUPPORTED_CONTROL_CARDS,
                     "kinematic analysis": UNSUPPORTED_KINEMATIC_CARDS}


@dataclass
class Deck:
    """What a deck describes: the model, the InitialValueProblem settings and what the
    reader had to say (notes for accepted-but-ignored options, remarks, log lines)."""
    path: str
    model: Model
    settings: dict
    notes: list
    title: str = None
    abort_after: tuple = None
    remarks: list = field(default_factory=list)
    log_lines: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    linear_solver_request: str = None      # the `linear solver` card's solver (None: no card)

    def problem(self, output_prefix=None, observers=(), **overrides):
        """An InitialValueProblem with the deck's settings (overrides win, e.g. final_time);
        `observers`: more observers beside the MBDyn writer (e.g. engine/io/vtu.py VTUWriter)."""
        if "inverse_dynamics" in self.settings:
            overrides.pop("mpi_evaluation", None)      # inverse dynamics evaluates replicated under MPI
            return self.inverse_problem(output_prefix, observers, **overrides)
        if "kinematic_analysis" in self.settings:
            overrides.pop("mpi_evaluation", None)      # so does the kinematic analysis
            return self.kinematic_problem(output_prefix, observers, **overrides)
        s = dict(self.settings)
        s.update(overrides)
        if output_prefix is not None:
            s["output_prefix"] = output_prefix
        settings = Settings(**s)
        choice = self.linear_solver_choice(overrides)
        return InitialValueProblem(self.model, settings, observers=writers_for(settings, choice) + list(observers))

    def linear_solver_choice(self, overrides=None):
        """The linear solver a run of the deck uses (LinearSolverChoice: back end, what the deck
        asked for, why), as the run's .log reports it."""
        s = {**self.settings, **(overrides or {})}
        requested = None if "linear_solver" in (overrides or {}) else self.linear_solver_request
        return choose_linear_solver(s.get("linear_solver"), requested)

    def run(self, output_prefix=None, observers=(), **overrides):
        """Run the deck (honouring `abort after`, manual §4.1.4); with output_prefix writes
        MBDyn-style .out/.mov/.jnt/.log; `observers`: more observers (see problem).  Returns
        Results, or None after `abort after: input`."""
        kind, steps = self.abort_after or (None, None)
        if kind == "input":
            return None
        if "inverse_dynamics" in self.settings:
            results = self.inverse_problem(output_prefix, observers, **overrides).run()   # stats name the solver
            self.append_log(output_prefix)
            return results
        if "kinematic_analysis" in self.settings:
            problem = self.kinematic_problem(output_prefix, observers, **overrides)
            results = problem.run()
            self.append_log(output_prefix or self.settings.get("output_prefix"), problem.log_lines)
            return results
        if kind == "regularstep":
            s = {**self.settings, **overrides}
            overrides["final_time"] = min(s.get("final_time", 0.0),
                                          s.get("initial_time", 0.0) + steps * s.get("time_step", 1e-3))
        problem = self.problem(output_prefix, observers, **overrides)
        if kind == "derivatives":
            try:
                problem.prepare()
            finally:
                for obs in problem.observers:
                    obs.finish()
            results = problem.results.finalize() if problem.results is not None else None
        else:
            results = problem.run()
        add_solver_statistics(results, problem.newton.linear)
        self.append_log(problem.settings.output_prefix)
        return results

    def inverse_problem(self, output_prefix=None, observers=(), **overrides):
        """An InverseDynamicsProblem (`problem: inverse dynamics`, manual §6.3) with the deck's
        times, tolerance, problem type and weights."""
        return self._instants_problem(InverseDynamicsProblem, "inverse_dynamics", 1e-6, output_prefix, observers,
                                      overrides)

    def kinematic_problem(self, output_prefix=None, observers=(), **overrides):
        """A KinematicAnalysis (`problem: kinematic analysis`, an mbdae extension: MBDM's
        kinematic mode, engine/drivers/kinematic.py) with the deck's times, tolerance, max
        iterations, linear solver and `reactions` card.  Raises NotFullyDriven /
        OverConstrained when the joints do not determine every coordinate."""
        return self._instants_problem(KinematicAnalysis, "kinematic_analysis", 1e-10, output_prefix, observers,
                                      overrides)

    def _instants_problem(self, cls, key, tolerance, output_prefix, observers, overrides):
        """A driver solving instant by instant (inverse dynamics, kinematic analysis) with the
        deck's times, Newton settings, linear solver and its own block's settings[key]."""
        s = {**self.settings, **overrides}
        return cls(
            self.model, initial_time=s.get("initial_time", 0.0), final_time=s["final_time"],
            time_step=s["time_step"], tolerance=s.get("tolerance", tolerance),
            max_iterations=s.get("max_iterations", 20), linear_solver=s.get("linear_solver", "default"),
            observers=writers_for(Settings(output_prefix=output_prefix or s.get("output_prefix"),
                                           output_precision=s.get("output_precision", 6)),
                                  self.linear_solver_choice(overrides)) + list(observers),
            **s[key])

    def append_log(self, prefix, more=()):
        lines = list(self.log_lines) + list(more)
        if prefix and lines and mpi_rank() == 0:
            with open(prefix + ".log", "a") as f:
                f.writelines(line + "\n" for line in lines)


def read_deck(path, echo=print):
    """Read an MBDyn input file (``mbdyn -f path``) into a Deck."""
    return DeckReader(path, echo=echo).read()


def parse_deck(text, name="<string>", directory=".", echo=print):
    """Read a deck given as text; includes are resolved against `directory`."""
    return DeckReader(os.path.join(directory, name), text=text, name=name, echo=echo).read()


class DeckReader(Directives, ProblemCards, ControlCards, NodeCards, ElementCards, Laws, DriveCallers,
                 Geometry, Values):
    """Reads one deck (with its includes) into a Deck (manual chapters 3-8)."""

    def __init__(self, path, text=None, name=None, echo=print):
        self.path = path
        self.echo = echo
        self.parser = MathParser()
        for var, kind, value in (("Time", "real", 0.0), ("TimeStep", "real", -1.0), ("Step", "integer", -1)):
            self.parser.set_variable(var, value, kind)
        self.register_model_functions()
        self.main = Source(path, text, name)
        self.stack = []                    # (source, card generator)
        self.model = Model()
        self.settings = {"method": "ms", "rho": 0.0, "final_time": 0.0,    # MBDyn defaults (§4.1)
                         "time_step": 1.0}
        self.notes = []
        self.remarks = []
        self.log_lines = []
        self.title = None
        self.abort_after = None
        self.frames = {}                   # reference frames
        self.drives = {}                   # drive callers
        self.scalar_functions = {}         # name -> engine/core/scalar_functions.ScalarFunction
        self.postponed = []
        self.tpl_drives = {}               # template drive callers: label -> (dim, drive)
        self.laws = {}                     # constitutive laws: (dim, label) -> law (MBDyn's per-dimension labels)
        self.solid_views = {}              # id of a 6-D constitutive.Law -> (law, its solid_laws.SolidLaw)
        self.nodes = {}                    # structural nodes (and dummies): label -> NodeInfo
        self.element_labels = {}           # family -> set of labels
        self.declared = {}                 # control-data counters
        self.found = {}
        self.gravity_declared = False
        self.default_output = set(OUTPUT_CATEGORIES) - {"gravity", "reference frames", "drive callers",
                                                        "accelerations"}
        self.default_orientation = "euler123"
        self.default_assembly_stiffness = None
        self.problem_name = None
        self.blocks_seen = []
        self.current = {}                  # model::current() values while reading an element
        self.parameter_nodes = {}          # parameter node label -> kind
        self.bound_parameters = set()
        self.static_model = False
        self.linear_solver_request = None  # the `linear solver` card's solver, normalized
        self.live_view = None              # a driven element's state view while re-reading a hint
        self.done = False
        self.exited = False

    def read(self):
        """Blocks in MBDyn's fixed order; reading stops after `end: elements;` (spec §1.4)."""
        self.stack.append((self.main, scan_cards(self.main)))
        while not self.done:
            card = self.next_card()
            if card is None:
                break
            if card.key == "begin":
                self.read_block(card)
            elif card.key == "end":
                raise card.name.error("syntax error: 'end' without a matching 'begin'")
            else:
                raise card.name.error(f"syntax error: 'begin: <block>;' expected, found the card "
                                      f"'{shown(card.name.text)}' outside any block")
        if not self.exited:
            self.finish()
        if self.static_model:      # `model: static`: static nodes, no inertia
            self.model = static_model(self.model)
        self.model.namespace = self.namespace
        return Deck(self.path, self.model, self.settings, self.notes, self.title, self.abort_after,
                    self.remarks, self.log_lines, self.summary(), self.linear_solver_request)

    def finish(self):
        if "data" not in self.blocks_seen:
            raise self.main.error(len(self.main.text), "", "syntax error: 'begin: data;' block missing")
        if "controldata" not in self.blocks_seen:
            raise self.main.error(len(self.main.text), "", "syntax error: 'begin: control data;' block missing")
        end = len(self.main.text)
        if self.declares_nodes() and "nodes" not in self.blocks_seen:
            raise self.main.error(end, "", "syntax error: 'begin: nodes;' block missing (the control data declares nodes)")
        if self.declares_elements() and "elements" not in self.blocks_seen:
            raise self.main.error(end, "", "syntax error: 'begin: elements;' block missing "
                                           "(the control data declares elements)")
        for drive in self.postponed:
            if drive.label not in self.drives:
                raise drive.word.error(f"postponed drive caller {drive.label} is never defined")
        for key, what in (("rho", "a time-varying spectral radius"),
                          ("max_time_step", "a time-varying max time step")):
            drive = self.settings.get(key)
            if isinstance(drive, PostponedDrive):
                value = constant_value(drive)
                if value is None:
                    raise drive.word.error(not_supported(what))
                self.settings[key] = value

    def next_card(self):
        """Next card that is not a directive; directives (valid anywhere, manual §2.4) run here."""
        while self.stack:
            source, cards = self.stack[-1]
            card = next(cards, None)
            if card is None:
                self.stack.pop()
                continue
            handler = DIRECTIVES.get(card.key)
            if handler is None:
                return card
            handler(self, card)
            if self.done:
                return None
        return None

    def read_block(self, card):
        args = Args(self, card)
        name = normalize(args.take("a block name").text)
        word = card.args[0]
        args.expect_end()
        if name == "multistep":
            name = "initialvalue"
        kind = "problem" if name in ("initialvalue", "inversedynamics", "kinematicanalysis") else name
        if kind not in BLOCK_ORDER:
            raise word.error(f"syntax error: unknown block '{word.text}' (expected data, initial value, "
                             "control data, nodes, drivers or elements)")
        self.check_block_order(word, kind, name)
        reader = {"data": self.read_data_block, "problem": self.read_problem_block,
                  "controldata": self.read_control_block, "nodes": self.read_nodes_block,
                  "drivers": self.read_drivers_block, "elements": self.read_elements_block}[kind]
        reader(word)
        self.blocks_seen.append(kind)
        if kind == "elements":
            self.done = True

    def check_block_order(self, word, kind, name):
        """data, problem, control data are mandatory and come first; nodes, drivers, elements
        follow in this order (spec §1.4)."""
        titles = {"problem": "initial value", "controldata": "control data"}
        if kind in self.blocks_seen:
            raise word.error(f"syntax error: block '{word.text}' appears twice")
        position = BLOCK_ORDER.index(kind)
        later = [b for b in self.blocks_seen if BLOCK_ORDER.index(b) > position]
        if later:
            raise word.error(f"syntax error: 'begin: {word.text};' must come before "
                             f"'begin: {titles.get(later[0], later[0])};'")
        required = ["data", "problem", "controldata"] + (["nodes"] if self.declares_nodes() else [])
        for need in required:
            if BLOCK_ORDER.index(need) < position and need not in self.blocks_seen:
                raise word.error(f"syntax error: 'begin: {titles.get(need, need)};' expected before "
                                 f"'begin: {word.text};'")
        if kind == "problem" and name != (self.problem_name or "initialvalue"):
            raise word.error(f"syntax error: the data block declares another problem, not '{word.text}'")

    def declares_nodes(self):
        return any(self.declared.get(f, 0) > 0 for f in NODE_FAMILIES)

    def declares_elements(self):
        return self.gravity_declared or any(n > 0 for f, n in self.declared.items()
                                            if f not in NODE_FAMILIES and f != "file drivers")

    def block_cards(self, word, name, handlers, block_title):
        """Cards of a block up to `end: <name>;`, dispatched to handlers[key](card, args)."""
        while True:
            card = self.next_card()
            if card is None and self.exited:
                return word
            if card is None:
                raise word.error(f"syntax error: 'end: {block_title};' expected before the end of input")
            key = card.key
            if key == "end":
                args = Args(self, card)
                end_word = args.take("a block name")
                end_name = normalize(end_word.text)
                if end_name == "multistep":
                    end_name = "initialvalue"
                if end_name != name:
                    raise end_word.error(f"syntax error: 'end: {block_title};' expected")
                args.expect_end()
                return card
            if key == "begin":
                raise card.name.error(f"syntax error: 'end: {block_title};' expected before a new block")
            handler = handlers.get(key)
            if handler is None:
                raise card.name.error(self.unknown_card_message(card, block_title))
            args = Args(self, card)
            handler(self, card, args)
            args.expect_end()

    def unknown_card_message(self, card, block_title):
        name = shown(card.name.text)
        unsupported = UNSUPPORTED_CARDS.get(block_title, {})
        if card.key in unsupported:
            reason = unsupported[card.key]
            return not_supported(name + (f" ({reason})" if reason else ""))
        return f"syntax error: unknown description '{name}' in the {block_title} block"

    def summary(self):
        m = self.model
        return dict(
            nodes=Counter(s.kind for s in m.nodes), dummy_nodes=len(m.dummy_nodes),
            bodies=len(m.bodies), rods=len(m.rods),
            joints=Counter([s.type for s in m.joints] + ["angular velocity"] * len(m.angular_velocity_joints)),
            forces=Counter(f"{s.frame} {s.kind}{' internal' if s.node2 is not None else ''}" for s in m.forces),
            gravity=m.gravity_vector is not None)
