"""Reader for MBDyn input decks: text → mbdae Model + InitialValueProblem settings.

References: MBDyn input manual chapters 1-8 (sections cited per function);
spec/mbdyn-input-language.md sections 1-7.  Written from the documentation.

    from mbdae.engine.io.mbdyn.deck import read_deck
    deck = read_deck("tests/body/chain15/chain15")
    results = deck.run(output_prefix="out/chain15", final_time=0.1)

Layers, bottom up:

* ``Source`` / ``scan_cards``: a file's text with comments blanked out (same offsets), cut into
  cards (``<description> [: <arg>, <arg> ...] ;``) whose words keep file, line and column.
* ``Args``: a cursor over one card's arguments (keywords, numbers through MathParser, strings).
* ``DeckReader``: directives valid anywhere (``set``, ``include``, ``reference`` ...), the blocks
  (data, initial value, control data, nodes, elements), geometry with relative frames, drive
  callers, template drives and 1-D constitutive laws, mapped onto ``mbdae.engine.model.Model``.

Policy: anything the engine cannot honour stops reading with a ``DeckError``
("not supported yet: ..."), never a silent skip.  Cards that change nothing mbdae computes
(threads, linear-solver orderings, NetCDF or solver-debug output ...) are accepted and listed
in ``Deck.notes``.
"""
from __future__ import annotations

import bisect
import math
import os
import re
from dataclasses import dataclass, field, replace

import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core import constitutive
from mbdae.engine.core.drives import (ArgumentExpressionDrive, ComposedDrive, ConstDrive, CosineDrive,
                                      CubicDrive, DoubleRampDrive, DoubleStepDrive, Drive,
                                      ExponentialDrive, ExpressionDrive, LinearDrive, NullDrive, OneDrive,
                                      ParabolicDrive, PeriodicDrive, PiecewiseLinearDrive, PostponedDrive,
                                      ProductDrive, RampDrive, SineDrive, Step5Drive, StepDrive, SumDrive,
                                      TanhDrive, TimeDrive, constant_value)
from mbdae.engine.core.mathparser import MathError, MathParser, MathStop
from mbdae.engine.model import Model
from mbdae.engine.core.privdata import ModelNamespace
from mbdae.engine.core.tpldrive import VectorDrive

__all__ = ["DeckError", "DeckStop", "Deck", "DeckReader", "read_deck", "parse_deck",
           "scan_cards", "Source", "Frame"]

I3 = np.eye(3)
MAX_INCLUDE_DEPTH = 100


# =========================================================================== errors

class DeckError(Exception):
    """An input error at a word of the deck; str is ``file:line:column: message (at 'word')``."""

    def __init__(self, file, line, column, word, message):
        self.file, self.line, self.column = file, line, column
        self.word, self.message = word, message
        super().__init__(str(self))

    def __str__(self):
        return f"{self.file}:{self.line}:{self.column}: {self.message} (at '{self.word}')"


class DeckStop(Exception):
    """The deck called ``stop(condition, code)`` with a true condition (manual §2.2)."""

    def __init__(self, code, where):
        self.code = code
        super().__init__(f"{where}: stop() requested exit with code {code}")


def not_supported(what):
    return f"not supported yet: {what}"


def _shown(text, limit=40):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# =========================================================================== source text

class Source:
    """One input file: its text with comments replaced by blanks (offsets preserved) and the
    line table used to turn offsets into line/column (manual §2.13 for comment rules)."""

    def __init__(self, path, text=None, name=None):
        self.path = path
        self.name = name or path
        if text is None:
            with open(path, encoding="latin-1") as f:
                text = f.read()
        self.raw = text
        self.line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        self.text = self._blank_comments(text)

    @property
    def directory(self):
        return os.path.dirname(os.path.abspath(self.path))

    def where(self, offset):
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def error(self, offset, word, message):
        line, col = self.where(offset)
        return DeckError(self.name, line, col, _shown(word), message)

    def _blank_comments(self, text):
        """`#` to end of line (a backslash before the newline continues it) and `/* */` become
        blanks; newlines are kept; strings are left alone (comments never start inside one)."""
        out = list(text)
        i, n = 0, len(text)
        while i < n:
            c = text[i]
            if c == '"':
                i = self._skip_string(text, i)
            elif c == "#":
                while i < n and text[i] != "\n":
                    if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                        out[i] = " "
                        i += 2
                        continue
                    out[i] = " "
                    i += 1
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0:
                    raise self.error(i, "/*", "unterminated /* comment")
                for k in range(i, end + 2):
                    if out[k] != "\n":
                        out[k] = " "
                i = end + 2
            else:
                i += 1
        return "".join(out)

    def _skip_string(self, text, i):
        start, n = i, len(text)
        i += 1
        while i < n and text[i] != '"':
            i += 2 if text[i] == "\\" else 1
        if i >= n:
            raise self.error(start, text[start:start + 20], "unterminated string")
        return i + 1


@dataclass
class Word:
    """A piece of a card (description or argument): stripped text and where it starts."""
    text: str
    source: Source
    offset: int

    def where(self):
        return self.source.where(self.offset)

    def error(self, message, column_in_text=None):
        offset = self.offset + (column_in_text - 1 if column_in_text else 0)
        return self.source.error(offset, self.text or "<empty argument>", message)

    @property
    def keyword(self):
        """Whitespace-free lower-case form if the word is keyword-shaped (manual §2.1.1), else None."""
        return normalize(self.text) if KEYWORD_SHAPE.match(self.text) else None


@dataclass
class Card:
    """``<description> [: <args>] ;`` (manual §1.2)."""
    name: Word
    args: list
    body: Word          # everything between ':' and ';'
    end: Word           # the ';'

    @property
    def key(self):
        return normalize(self.name.text)

    @property
    def source(self):
        return self.name.source


KEYWORD_SHAPE = re.compile(r"[A-Za-z_][A-Za-z0-9_\s]*\Z")


def normalize(text):
    """Keywords compare case- and whitespace-insensitively (manual §2.1.1)."""
    return "".join(text.split()).lower()


def _word(source, start, end):
    raw = source.text[start:end]
    stripped = raw.strip()
    lead = len(raw) - len(raw.lstrip())
    return Word(stripped, source, start + lead if stripped else start)


def scan_cards(source):
    """Yield the cards of a source in order.  A card ends at a `;` outside strings and
    brackets; its description ends at the first `:` that is not part of `::`; arguments are
    split at top-level commas (spec §1.9, steps 1-2)."""
    text, n, i = source.text, len(source.text), 0
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return
        start, colon, commas, depth = i, None, [], 0
        while i < n and not (text[i] == ";" and depth == 0):
            c = text[i]
            if c == '"':
                i = source._skip_string(text, i)
                continue
            if c in "([":
                depth += 1
            elif c in ")]" and depth > 0:
                depth -= 1
            elif c == ":" and depth == 0:
                if text.startswith("::", i):
                    i += 2
                    continue
                if colon is None:
                    colon = i
            elif c == "," and depth == 0 and colon is not None:
                commas.append(i)
            i += 1
        if i >= n:
            raise source.error(start, text[start:start + 30], "';' expected: the card is not terminated")
        yield _make_card(source, start, colon, commas, i)
        i += 1


def _make_card(source, start, colon, commas, end):
    semicolon = Word(";", source, end)
    if colon is None:
        return Card(_word(source, start, end), [], Word("", source, end), semicolon)
    bounds = [colon] + commas + [end]
    args = [_word(source, a + 1, b) for a, b in zip(bounds[:-1], bounds[1:])]
    if len(args) == 1 and not args[0].text:
        args = []
    return Card(_word(source, start, colon), args, _word(source, colon + 1, end), semicolon)


# =========================================================================== argument cursor

class Args:
    """Cursor over one card's arguments, mirroring MBDyn's recursive-descent readers:
    keywords are tried first, then the argument is evaluated as a math expression
    (spec §1.3, §1.9 step 4)."""

    def __init__(self, reader, card):
        self.reader = reader
        self.card = card
        self.words = card.args
        self.i = 0

    def more(self):
        return self.i < len(self.words)

    def peek(self):
        return self.words[self.i] if self.more() else None

    def peek_keyword(self):
        w = self.peek()
        return w.keyword if w is not None else None

    def take(self, what):
        if not self.more():
            raise self.card.end.error(f"syntax error: {what} expected before ';'")
        w = self.words[self.i]
        self.i += 1
        return w

    def is_keyword(self, *names):
        """Consume the next argument if it is one of the keywords; return its normalized name."""
        kw = self.peek_keyword()
        if kw is not None and kw in {normalize(n) for n in names}:
            self.i += 1
            return kw
        return None

    def expect_keyword(self, *names, what=None):
        w = self.peek()
        kw = self.is_keyword(*names)
        if kw is None:
            listed = ", ".join(f"'{n}'" for n in names)
            what = what or (f"one of {listed}" if len(names) > 1 else listed)
            if w is None:
                raise self.card.end.error(f"syntax error: {what} expected before ';'")
            raise w.error(f"syntax error: {what} expected")
        return kw

    def value(self, what):
        return self.reader.evaluate(self.take(what))

    def real(self, what="a real number"):
        w = self.take(what)
        return self.reader.as_real(w, self.reader.evaluate(w), what)

    def integer(self, what="an integer"):
        w = self.take(what)
        return self.reader.as_integer(w, self.reader.evaluate(w), what)

    def label(self, what="a label"):
        w = self.take(what)
        value = self.reader.as_integer(w, self.reader.evaluate(w), what)
        if value < 0:
            raise w.error(f"{what} must not be negative")
        return value

    def string(self, what="a string"):
        w = self.take(what)
        value = self.reader.evaluate(w)
        if not isinstance(value, str):
            raise w.error(f"syntax error: {what} (in double quotes) expected")
        return value

    def boolean(self, what="yes, no or a boolean value"):
        kw = self.is_keyword("yes", "no")
        if kw is not None:
            return kw == "yes"
        return bool(self.integer(what))

    def optional_name(self):
        """`name, "<string>"` after a label (spec §1.7)."""
        if self.is_keyword("name"):
            return self.string("a name")
        return None

    def expect_end(self):
        if self.more():
            w = self.peek()
            raise w.error("syntax error: ';' expected (unexpected argument)")


# =========================================================================== geometry

@dataclass(frozen=True)
class Frame:
    """Position, orientation, velocity and angular velocity of a frame in the global frame."""
    x: np.ndarray = field(default_factory=lambda: np.zeros(3))
    R: np.ndarray = field(default_factory=lambda: np.eye(3))
    v: np.ndarray = field(default_factory=lambda: np.zeros(3))
    w: np.ndarray = field(default_factory=lambda: np.zeros(3))


GLOBAL = Frame()


@dataclass
class Site:
    """Where a geometric input is read (manual §2.4.8.1): the caller frame (a node's initial
    frame, or the global one) and, for the second node of a two-node joint, node 1's frame,
    joint offset and hinge orientation (for `reference, other position|orientation|node`)."""
    frame: Frame = GLOBAL
    node: int = None
    other: Frame = None
    other_offset: np.ndarray = None
    other_orientation: np.ndarray = None


GLOBAL_SITE = Site()

# reading kinds of spec §3.2: relative kinds default to the caller frame, absolute ones to global
RELATIVE_KINDS = ("rel position", "rel direction")


def vector_to_global(kind, value, P, at):
    if kind in ("rel position", "abs position"):
        return P.x + P.R @ value
    if kind in ("rel direction", "abs direction"):
        return P.R @ value
    if kind == "abs velocity":
        return P.v + P.R @ value + np.cross(P.w, at - P.x)
    return P.w + P.R @ value


def vector_from_global(kind, g, C):
    if kind == "rel position":
        return C.R.T @ (g - C.x)
    if kind == "rel direction":
        return C.R.T @ g
    return g


def two_vector_orientation(i1, v1, i2, v2, word):
    """Orientation from axis i1 along v1 and axis i2 in the plane of v1, v2 (manual §2.3.4)."""
    if i1 not in (1, 2, 3) or i2 not in (1, 2, 3) or i1 == i2:
        raise word.error(f"orientation: axis indices must be two different values among 1, 2, 3 "
                         f"(got {i1} and {i2})")
    n1 = np.linalg.norm(v1)
    if n1 == 0:
        raise word.error("orientation: the first vector is null")
    j, k = i1 % 3 + 1, (i1 + 1) % 3 + 1
    R = np.zeros((3, 3))
    R[:, i1 - 1] = v1 / n1
    if i2 == j:
        c = np.cross(R[:, i1 - 1], v2)
        slot, other = k, j
    else:
        c = np.cross(v2, R[:, i1 - 1])
        slot, other = j, k
    nc = np.linalg.norm(c)
    if nc <= 1e-12 * max(1.0, np.linalg.norm(v2)):
        raise word.error("orientation: the second vector is null or parallel to the first")
    R[:, slot - 1] = c / nc
    if i2 == j:
        R[:, other - 1] = np.cross(R[:, slot - 1], R[:, i1 - 1])
    else:
        R[:, other - 1] = np.cross(R[:, i1 - 1], R[:, slot - 1])
    return R


def guess_orthogonal(v1):
    """`guess`: a vector orthogonal to v1 (reference implementation's index choice, spec §3.5)."""
    a = np.abs(v1)
    imax = imin = 0
    if a[1] > a[0]:
        imax = 1
    else:
        imin = 1
    if a[2] > a[imax]:
        imax = 2
    elif a[2] < a[imin]:
        imin = 2
    v2 = np.zeros(3)
    v2[imin] = 1.0
    v2[imax] = -v1[imin] / v1[imax]
    return v2


def denavit_hartenberg(P, d, theta, a, alpha):
    """Frame from Denavit-Hartenberg parameters relative to frame P (spec §3.1)."""
    Rt = rot.euler123_to_R([0.0, 0.0, theta])
    Ra = rot.euler123_to_R([alpha, 0.0, 0.0])
    arm = P.R @ (d * I3[2] + Rt @ (a * I3[0]))
    return Frame(P.x + arm, P.R @ Rt @ Ra, P.v + np.cross(P.w, arm), P.w.copy())


# =========================================================================== vocabulary

# MBDyn names of things mbdae does not have: reading one stops with "not supported yet"
UNSUPPORTED_DRIVES = ("timestep", "file", "dof", "node", "meter", "closest next", "random",
                      "sample and hold", "discrete filter", "bistop", "scalar function", "ginac",
                      "frequency sweep", "fourier series", "shared", "socket")
UNSUPPORTED_ELEMENTS = (
    "automatic structural", "hbeam2",
    "plate", "membrane4eas", "shell4eas", "shell4easans", "solid", "surface loads", "pressure load",
    "traction load", "air properties", "aerodynamic body", "aerodynamic beam", "aerodynamic beam2",
    "aerodynamic beam3", "aircraft instruments", "generic aerodynamic force", "induced velocity",
    "rotor", "aeromodal", "aerodynamic external", "aerodynamic external modal", "electric",
    "thermal", "hydraulic", "bulk", "loadable", "user defined", "stream output",
    "stream motion output", "rtai output", "gust")
UNSUPPORTED_JOINTS = (
    "revolute rotation", "cardano pin", "cardano rotation", "universal pin", "universal rotation",
    "plane rotation", "gimbal rotation", "modal", "beam slider",
    "brake", "screw", "plane displacement", "plane displacement pin", "linear velocity",
    "angular velocity", "linear acceleration", "angular acceleration", "imposed orientation",
    "kinematic", "offset displacement joint", "rigid body displacement joint", "point contact",
    "coincidence", "total reaction", "gimbal hinge",
    "continuous contact", "hydraulic actuator")
NODE_TYPES = ("structural", "abstract", "electric", "hydraulic", "thermal", "parameter")

# control-data counters (manual §5.4): normalized card name -> family
COUNTERS = {
    "structuralnodes": "structural nodes", "abstractnodes": "abstract nodes",
    "electricnodes": "electric nodes", "hydraulicnodes": "hydraulic nodes",
    "thermalnodes": "thermal nodes", "parameternodes": "parameter nodes",
    "filedrivers": "file drivers", "rigidbodies": "rigid bodies", "joints": "joints",
    "jointregularizations": "joint regularizations", "beams": "beams", "forces": "forces",
    "genels": "genels", "plates": "plates", "solids": "solids", "surfaceloads": "surface loads",
    "aerodynamicelements": "aerodynamic elements", "aeromodals": "aeromodals",
    "inducedvelocityelements": "induced velocity elements", "rotors": "induced velocity elements",
    "electricelements": "electric elements", "electricbulkelements": "electric bulk elements",
    "thermalelements": "thermal elements", "hydraulicelements": "hydraulic elements",
    "bulkelements": "bulk elements", "loadableelements": "loadable elements",
    "externalelements": "external elements", "outputelements": "output elements",
    "inertia": "inertia",
}
# MBDyn's names in count messages (psNodeNames / psElemNames and the "exceeds" wording)
FAMILY_MESSAGES = {
    "structural nodes": ("Structural", "structural nodes number", "Structural"),
    "abstract nodes": ("Abstract", "abstract nodes number", "Abstract"),
    "electric nodes": ("Electric", "electric nodes number", "Electric"),
    "thermal nodes": ("Thermal", "thermal nodes number", "Thermal"),
    "parameter nodes": ("Parameter", "parameter nodes number", "Parameter"),
    "hydraulic nodes": ("Hydraulic", "hydraulic nodes number", "Hydraulic"),
    "rigid bodies": ("Body", "rigid body elements number", "Rigid Body"),
    "joints": ("Joint", "joint elements number", "Joint"),
    "joint regularizations": ("JointRegularization", "joint regularization elements number",
                              "Joint Regularization"),
    "beams": ("Beam", "beam elements number", "Beam"),
    "plates": ("Plate", "plate elements number", "Plate"),
    "forces": ("Force", "force elements number", "Force"),
    "genels": ("Genel", "genel elements number", "GENEL"),
    "aerodynamic elements": ("AerodynamicElement", "aerodynamic elements number", "Aerodynamic Element"),
    "gravity": ("Gravity", "gravity", "Gravity"),
}
MBDYN_TYPE_ORDER = ("abstract nodes", "structural nodes", "electric nodes", "thermal nodes",
                    "parameter nodes", "hydraulic nodes", "gravity", "rigid bodies", "joints",
                    "joint regularizations", "beams", "plates", "forces")   # order in MBDyn's messages
NODE_FAMILIES = ("structural nodes", "abstract nodes", "electric nodes", "hydraulic nodes",
                 "thermal nodes", "parameter nodes")
OUTPUT_CATEGORIES = ("reference frames", "drive callers", "accelerations", "structural nodes",
                     "abstract nodes", "electric nodes", "hydraulic nodes", "thermal nodes",
                     "parameter nodes", "joints", "forces", "beams", "rigid bodies", "gravity",
                     "genels", "plates", "aerodynamic elements", "loadable elements",
                     "inertia", "induced velocity elements", "air properties", "hydraulic elements",
                     "electric elements", "thermal elements", "bulk elements", "external elements",
                     "joint regularizations", "solids", "surface loads", "aeromodals")
ORIENTATION_DESCRIPTIONS = {"euler123": "euler123", "euler313": "euler313", "euler321": "euler321",
                            "orientationvector": "orientation vector",
                            "orientationmatrix": "orientation matrix"}
BLOCK_ORDER = ("data", "problem", "controldata", "nodes", "drivers", "elements")


# =========================================================================== result

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

    def problem(self, output_prefix=None, **overrides):
        """An InitialValueProblem with the deck's settings (overrides win, e.g. final_time)."""
        from mbdae.engine.drivers.ivp import InitialValueProblem, Settings
        if "inverse_dynamics" in self.settings:
            return self.inverse_problem(output_prefix, **overrides)
        s = dict(self.settings)
        s.update(overrides)
        if output_prefix is not None:
            s["output_prefix"] = output_prefix
        return InitialValueProblem(self.model, Settings(**s))

    def run(self, output_prefix=None, **overrides):
        """Run the deck (honouring `abort after`, manual §4.1.4); with output_prefix writes
        MBDyn-style .out/.mov/.jnt/.log.  Returns Results, or None after `abort after: input`."""
        kind, steps = self.abort_after or (None, None)
        if kind == "input":
            return None
        if "inverse_dynamics" in self.settings:
            results = self.inverse_problem(output_prefix, **overrides).run()
            self.append_log(output_prefix)
            return results
        if kind == "regularstep":
            s = {**self.settings, **overrides}
            overrides["final_time"] = min(s.get("final_time", 0.0),
                                          s.get("initial_time", 0.0) + steps * s.get("time_step", 1e-3))
        problem = self.problem(output_prefix, **overrides)
        if kind == "derivatives":
            try:
                problem.prepare()
            finally:
                if problem.output:
                    problem.output.close()
            results = problem.results.finalize() if problem.results is not None else None
        else:
            results = problem.run()
        self.append_log(problem.settings.output_prefix)
        return results

    def inverse_problem(self, output_prefix=None, **overrides):
        """An InverseDynamicsProblem (`problem: inverse dynamics`, manual §6.3) with the deck's
        times, tolerance, problem type and weights."""
        from mbdae.engine.drivers.inverse import InverseDynamicsProblem
        s = {**self.settings, **overrides}
        return InverseDynamicsProblem(
            self.model, initial_time=s.get("initial_time", 0.0), final_time=s["final_time"],
            time_step=s["time_step"], tolerance=s.get("tolerance", 1e-6),
            max_iterations=s.get("max_iterations", 20),
            output_prefix=output_prefix or s.get("output_prefix"),
            output_precision=s.get("output_precision", 6), **s["inverse_dynamics"])

    def append_log(self, prefix):
        if prefix and self.log_lines:
            with open(prefix + ".log", "a") as f:
                f.writelines(line + "\n" for line in self.log_lines)


def read_deck(path, echo=print):
    """Read an MBDyn input file (``mbdyn -f path``) into a Deck."""
    return DeckReader(path, echo=echo).read()


def parse_deck(text, name="<string>", directory=".", echo=print):
    """Read a deck given as text; includes are resolved against `directory`."""
    return DeckReader(os.path.join(directory, name), text=text, name=name, echo=echo).read()


# =========================================================================== the reader

@dataclass
class NodeInfo:
    label: int
    kind: str                 # static | dynamic | dummy
    frame: Frame
    spec: object = None


class DeckReader:
    """Reads one deck (with its includes) into a Deck (manual chapters 3-8)."""

    def __init__(self, path, text=None, name=None, echo=print):
        self.path = path
        self.echo = echo
        self.parser = MathParser()
        for var, kind, value in (("Time", "real", 0.0), ("TimeStep", "real", -1.0), ("Step", "integer", -1)):
            self.parser.set_variable(var, value, kind)
        self._register_model_functions()
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
        self.postponed = []
        self.tpl_drives = {}               # template drive callers: label -> (dim, drive)
        self.laws = {}                     # constitutive laws: label -> (dim, law or None)
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
        self.done = False
        self.exited = False

    # ------------------------------------------------------------------ top level
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
                                      f"'{_shown(card.name.text)}' outside any block")
        if not self.exited:
            self.finish()
        if getattr(self, "static_model", False):      # `model: static`: static nodes, no inertia
            from mbdae.engine.drivers.static import static_model
            self.model = static_model(self.model)
        self.model.namespace = self.namespace
        return Deck(self.path, self.model, self.settings, self.notes, self.title, self.abort_after,
                    self.remarks, self.log_lines, self.summary())

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
        kind = "problem" if name in ("initialvalue", "inversedynamics") else name
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
        name = _shown(card.name.text)
        unsupported = UNSUPPORTED_CARDS.get(block_title, {})
        if card.key in unsupported:
            reason = unsupported[card.key]
            return not_supported(name + (f" ({reason})" if reason else ""))
        return f"syntax error: unknown description '{name}' in the {block_title} block"

    # ------------------------------------------------------------------ values
    def evaluate(self, word):
        """A math expression (manual §2.2); an empty argument is 0 (the default)."""
        if not word.text:
            return 0
        try:
            return self.parser.evaluate(word.text)
        except MathStop as e:
            line, col = word.where()
            raise DeckStop(e.exit_code, f"{word.source.name}:{line}:{col}") from None
        except MathError as e:
            raise word.error(f"math error: {e.message}", e.column) from None

    @staticmethod
    def as_real(word, value, what):
        if isinstance(value, str):
            raise word.error(f"syntax error: {what} expected, found the string \"{value}\"")
        return float(value)

    @staticmethod
    def as_integer(word, value, what):
        if isinstance(value, str):
            raise word.error(f"syntax error: {what} expected, found the string \"{value}\"")
        if isinstance(value, float):
            if not math.isfinite(value):
                raise word.error(f"syntax error: {what} expected, found {value}")
            return int(value)
        return int(value)

    def note(self, word, text):
        line, col = word.where()
        self.notes.append(f"{word.source.name}:{line}:{col}: {text}")

    def _register_model_functions(self):
        """`model::` functions evaluated at input time on the initial configuration (manual §2.2.1)."""
        def node_frame(label, prev=False):
            view = getattr(self, "live_view", None)       # a driven element's hint at run time
            if view is not None:
                return Frame(*(np.array(f(int(label), prev)) for f in (
                    view.position, view.orientation, view.velocity, view.angular_velocity)))
            info = self.nodes.get(int(label))
            if info is None:
                raise ValueError(f"structural node {int(label)} is not defined")
            return info.frame

        def distance(a, b):
            return float(np.linalg.norm(node_frame(b).x - node_frame(a).x))

        def current(name):
            if name not in self.current:
                raise ValueError(f'model::current("{name}") is not available here')
            return self.current[name]

        self.parser.register_function("model::distance", distance, 2)
        # previous step (at input: the initial configuration) and relative rotation vector
        # of R_aᵀ R_b (`anglerel`), as MBDyn's model namespace
        self.parser.register_function("model::distance_prev", lambda a, b: float(np.linalg.norm(
            node_frame(b, True).x - node_frame(a, True).x)), 2)
        anglerel = lambda a, b, prev=False: rot.log_rotvec(node_frame(a, prev).R.T @ node_frame(b, prev).R)
        for suffix, prev in (("", False), ("_prev", True)):
            self.parser.register_function(f"model::anglerel{suffix}",
                                          lambda a, b, p=prev: float(np.linalg.norm(anglerel(a, b, p))), 2)
            for k, axis in enumerate("xyz"):
                self.parser.register_function(f"model::{axis}anglerel{suffix}",
                                              lambda a, b, k=k, p=prev: float(anglerel(a, b, p)[k]), 2)
        for k, axis in enumerate("xyz"):
            self.parser.register_function(f"model::{axis}distance_prev", lambda a, b, k=k: float(
                node_frame(b, True).x[k] - node_frame(a, True).x[k]), 2)
            self.parser.register_function(f"model::{axis}position_prev",
                                          lambda a, k=k: float(node_frame(a, True).x[k]), 1)
        for k, axis in enumerate("xyz"):
            self.parser.register_function(f"model::{axis}distance",
                                          lambda a, b, k=k: float(node_frame(b).x[k] - node_frame(a).x[k]), 2)
            self.parser.register_function(f"model::{axis}position", lambda a, k=k: float(node_frame(a).x[k]), 1)
            self.parser.register_function(f"model::{axis}velocity", lambda a, k=k: float(node_frame(a).v[k]), 1)
        self.parser.register_function("model::current", current, 1)
        # model::node::structural and model::element::<type> on the simulation state
        self.namespace = ModelNamespace().register(self.parser)

    # ------------------------------------------------------------------ directives (manual §2.4)
    def dir_set(self, card):
        if not card.body.text:
            raise card.end.error("syntax error: a math statement expected after 'set:'")
        self.evaluate(card.body)

    def dir_remark(self, card):
        args = Args(self, card)
        values = []
        while args.more():
            values.append(args.value("a value"))
        line, _ = card.name.where()
        text = f"line {line}, file <{card.source.name}>: " + ", ".join(_format_remark(v) for v in values)
        self.remarks.append(text)
        self.echo(text)

    def dir_include(self, card):
        args = Args(self, card)
        word = args.peek()
        name = args.string("a file name")
        args.expect_end()
        path = os.path.expanduser(os.path.expandvars(name))
        if not os.path.isabs(path):
            path = os.path.join(card.source.directory, path)
        if len(self.stack) >= MAX_INCLUDE_DEPTH:
            raise word.error(f"include nesting deeper than {MAX_INCLUDE_DEPTH} (recursive include?)")
        if not os.path.isfile(path):
            raise word.error(f"cannot open include file \"{name}\" (looked for {path})")
        shown = name if os.path.isabs(name) else \
            os.path.normpath(os.path.join(os.path.dirname(card.source.name), name))
        source = Source(path, name=shown)
        self.stack.append((source, scan_cards(source)))

    def dir_print_symbol_table(self, card):
        for name, kind, value, const in self.parser.symbol_table():
            self.echo(f"  {'const ' if const else ''}{kind} {name} = {value}")

    def dir_setenv(self, card):
        args = Args(self, card)
        overwrite = False
        if args.is_keyword("overwrite"):
            overwrite = args.boolean()
        text = args.string("\"NAME[=value]\"")
        args.expect_end()
        name, eq, value = text.partition("=")
        if not eq:
            os.environ.pop(name, None)
        elif overwrite or name not in os.environ:
            os.environ[name] = value

    def dir_exit(self, card):
        """`exit;`: stop reading; MBDyn then terminates without running (spec §1.5)."""
        self.done = self.exited = True
        self.abort_after = ("input", None)

    def dir_license(self, card):
        pass

    def dir_unsupported(self, card):
        raise card.name.error(not_supported(f"'{_shown(card.name.text)}' card"))

    def dir_reference(self, card):
        """`reference: label, [name,] position, orientation [, velocity [, angular velocity]]`
        or `Denavit Hartenberg` (manual §2.4.8)."""
        args = Args(self, card)
        word = args.peek()
        label = args.label("a reference label")
        args.optional_name()
        if label in self.frames:
            raise word.error(f"reference {label} is already defined")
        if args.is_keyword("denavit hartenberg"):
            P = GLOBAL
            if args.is_keyword("reference"):
                P = GLOBAL if args.is_keyword("global") else self.frame_by_label(args)
            d, theta, a, alpha = (args.real(n) for n in ("d", "theta", "a", "alpha"))
            self.frames[label] = denavit_hartenberg(P, d, theta, a, alpha)
            args.expect_end()
            return
        args.is_keyword("position")
        x = self.read_vec3(args, "abs position")
        args.is_keyword("orientation")
        R = self.read_orientation(args, "abs")
        v = w = np.zeros(3)
        if args.more() and args.peek_keyword() != "orientationdescription":
            args.is_keyword("velocity")
            v = self.read_vec3(args, "abs velocity", at=x)
            if args.more() and args.peek_keyword() != "orientationdescription":
                args.is_keyword("angular velocity")
                w = self.read_vec3(args, "abs angular velocity")
        if args.is_keyword("orientation description"):
            self.read_orientation_description(args)
        args.expect_end()
        self.frames[label] = Frame(x, R, v, w)

    def frame_by_label(self, args):
        word = args.peek()
        label = args.label("a reference label")
        frame = self.frames.get(label)
        if frame is None:
            raise word.error(f"reference {label} is not defined")
        return frame

    def dir_drive_caller(self, card):
        """`drive caller: label, [name, "n",] <DriveCaller> [, output, ...]` (manual §2.4.3)."""
        args = Args(self, card)
        word = args.peek()
        label = args.label("a drive caller label")
        args.optional_name()
        if label in self.drives:
            raise word.error(f"drive caller {label} is already defined")
        self.drives[label] = self.read_drive(args)
        if args.is_keyword("output"):
            if not args.is_keyword("value", "derivative"):
                args.boolean()
            while args.more():
                args.take("an output option")
            self.note(word, "drive caller output (.drv) is not written by mbdae")
        if args.is_keyword("output trace"):
            while args.more():
                args.take("an output option")
            self.note(word, "drive caller output trace (.trc) is not written by mbdae")
        args.expect_end()

    def dir_template_drive_caller(self, card):
        """`template drive caller: label, dim, <TplDriveCaller>` (manual §2.4.12)."""
        args = Args(self, card)
        word = args.peek()
        label = args.label("a template drive caller label")
        dim_word = args.take("a dimension")
        dim = dim_word.text.strip('"').lower()
        if dim not in ("1", "3"):
            raise dim_word.error(not_supported(f"template drive callers of dimension {dim_word.text}"))
        if label in self.tpl_drives:
            raise word.error(f"template drive caller {label} is already defined")
        drive = self.read_tpl_scalar(args) if dim == "1" else self.read_tpl_vec3(args, "abs direction", GLOBAL_SITE)
        self.tpl_drives[label] = (int(dim), drive)
        args.expect_end()

    def dir_constitutive_law(self, card):
        """`constitutive law: label, [name,] dim, <law>` (manual §2.4.1); dimension 1, 3 or 6."""
        args = Args(self, card)
        word = args.peek()
        label = args.label("a constitutive law label")
        args.optional_name()
        dim_word = args.peek()
        dim = args.integer("the dimension of the law")
        if label in self.laws:
            raise word.error(f"constitutive law {label} is already defined")
        if dim not in (1, 3, 6):
            raise dim_word.error(not_supported(f"{dim}-D constitutive laws (mbdae has 1, 3 and 6)"))
        self.laws[label] = (dim, self.read_law(args, dim))
        args.expect_end()

    def dir_scalar_function(self, card):
        args = Args(self, card)
        word = args.peek()
        name = args.string("a scalar function name")
        while args.more():
            args.take("function data")
        self.note(word, f"scalar function \"{name}\" stored unread: scalar functions are not supported "
                        "yet, any use of it stops the reader")

    # ------------------------------------------------------------------ data block (manual §3.1)
    def read_data_block(self, word):
        self.block_cards(word, "data", DATA_CARDS, "data")
        if self.problem_name is None:
            self.problem_name = "initialvalue"

    def card_problem(self, card, args):
        w = args.peek()
        kind = args.expect_keyword("initial value", "multistep", "inverse dynamics")
        self.problem_name = "initialvalue"
        if kind == "inversedynamics":
            self.problem_name = "inversedynamics"
            self.settings["inverse_dynamics"] = dict(problem_type="fully actuated collocated")

    # ------------------------------------------------------------------ initial value (manual §4.1)
    def read_problem_block(self, word):
        if self.problem_name == "inversedynamics":
            self.block_cards(word, "inversedynamics", INVERSE_CARDS, "inverse dynamics")
            return
        self.block_cards(word, self.problem_name, PROBLEM_CARDS, "initial value")

    # ------------------------------------------------------------------ inverse dynamics (§6.3)
    def id_problem_type(self, card, args):
        """`problem type: <type> [, weights, w1_pos, w2_pos, w1_vel, w2_vel [, w1_acc, w2_acc]]`
        (spec §2.3).  Per level MBDyn's w1 weights the identity-metric distance from the
        backward difference of the previous level (x_prev, (x - x_prev)/h, (ẋ - ẋ_prev)/h), w2
        the mass-metric distance from the previous value (defaults w1 = 1, w2 = 0)."""
        from mbdae.engine.drivers.inverse import PROBLEM_TYPES
        w = args.peek()
        kind = args.expect_keyword(*PROBLEM_TYPES)
        name = next(n for n in PROBLEM_TYPES if normalize(n) == kind)
        inv = self.settings["inverse_dynamics"]
        inv["problem_type"] = name
        vals = [1.0, 0.0] * 3
        if args.is_keyword("weights"):
            if not name.startswith("underdetermined"):
                raise w.error("syntax error: weights apply to the underdetermined problem types only")
            levels = 3 if name == "underdetermined fully actuated" else 2
            vals = [args.real("a weight") for _ in range(2 * levels)] + [0.0, 0.0] * (3 - levels)
        if name.startswith("underdetermined"):
            inv.update(unit_weights=(vals[0], vals[2], vals[4]), weights=(vals[1], vals[3], vals[5]),
                       acceleration_base=0.0)

    def id_max_iterations(self, card, args):
        self.settings["max_iterations"] = max(args.integer("the maximum number of iterations"), 1)
        if args.is_keyword("at most"):
            self.note(card.name, "max iterations ..., at most: mbdae always requires convergence")

    def read_inverse_derivatives(self, args, value, site):
        """In inverse dynamics a total joint constraint reads two more template drives, the
        imposed rate and acceleration (spec §2.3)."""
        from mbdae.engine.drivers.inverse import explicit_derivatives
        rate = self.read_tpl_vec3(args, "rel direction", site)
        acc = self.read_tpl_vec3(args, "rel direction", site)
        return explicit_derivatives(value, rate, acc)

    def read_inverse_dynamics_flags(self, args, label, joint=True):
        """`inverse dynamics [, torque, b] [, prescribed motion, b] [, right hand side, b]
        [, ergonomy, b]` after a joint or beam (spec §2.3): for joints the keyword resets
        torque and prescribed motion to false before reading the flags."""
        keys = {"torque": "torque", "prescribedmotion": "prescribed_motion",
                "righthandside": "right_hand_side", "ergonomy": "ergonomy"}
        flags = dict(torque=False, prescribed_motion=False) if joint else {}
        while args.peek_keyword() in keys:
            kw = args.expect_keyword("torque", "prescribed motion", "right hand side", "ergonomy")
            flags[keys[kw]] = args.boolean()
        self.model.inverse_dynamics_flags(label, **flags)

    def iv_initial_time(self, card, args):
        self.settings["initial_time"] = args.real("the initial time")

    def iv_final_time(self, card, args):
        w = args.peek()
        if args.is_keyword("forever"):
            raise w.error(not_supported("final time: forever"))
        self.settings["final_time"] = args.real("the final time")

    def iv_time_step(self, card, args):
        w = args.peek()
        dt = abs(args.real("the time step"))
        if dt == 0:
            raise w.error("the time step must not be zero")
        self.settings["time_step"] = dt

    def iv_min_time_step(self, card, args):
        self.settings["min_time_step"] = args.real("the minimum time step")

    def iv_max_time_step(self, card, args):
        w = args.peek()
        if not args.is_keyword("unlimited"):
            drive = self.read_drive(args)
            value = drive if isinstance(drive, PostponedDrive) else constant_value(drive)
            if value is None:
                raise w.error(not_supported("a time-varying max time step"))
            self.settings["max_time_step"] = value
        if args.is_keyword("hard limit"):
            args.boolean()

    def iv_strategy(self, card, args):
        """`strategy: factor, reduction factor, steps before reduction, raise factor, steps
        before raise, min iterations [, max iterations]` (manual §4.1.1; solvers/stepcontrol.py)."""
        w = args.peek()
        kind = args.expect_keyword("factor", "no change", "change")
        if kind == "factor":
            values = ["factor", args.real("the reduction factor"), args.integer("the steps before reduction"),
                      args.real("the raise factor"), args.integer("the steps before raise"),
                      args.integer("the minimum iterations")]
            if args.more():
                values.append(args.integer("the maximum iterations"))
            self.settings["strategy"] = tuple(values)
        elif kind != "nochange":
            raise w.error(not_supported(f"strategy: {w.text} (mbdae has 'factor' and 'no change')"))

    def iv_tolerance(self, card, args):
        """`tolerance: {null|r} [, test, kind [, scale]] [, {null|s} [, test, kind]]` (§4.1.2)."""
        res = 0.0 if args.is_keyword("null") else args.real("the residual tolerance")
        test = "norm"
        if args.is_keyword("test"):
            test = args.expect_keyword("none", "norm", "minmax", "relnorm", "sepnorm")
            w = args.peek()
            if args.is_keyword("scale"):
                raise w.error(not_supported("scaled residual test (tolerance ..., test, ..., scale)"))
        self.settings["tolerance"] = res
        self.settings["test"] = test if res > 0 else "none"
        if args.more():
            sol = 0.0 if args.is_keyword("null") else args.real("the solution tolerance")
            stest = "norm"
            if args.is_keyword("test"):
                stest = args.expect_keyword("none", "norm", "minmax")
            self.settings["solution_tolerance"] = sol
            self.settings["solution_test"] = stest if sol > 0 else "none"
        if res <= 0 and self.settings.get("solution_tolerance", 0.0) <= 0:
            raise card.name.error("a null residual tolerance requires a solution tolerance")

    def iv_max_iterations(self, card, args):
        n = args.integer("the maximum number of iterations")
        self.settings["max_iterations"] = max(n, 1)
        if args.is_keyword("at most"):
            self.settings["max_iterations_at_most"] = True

    def iv_method(self, card, args):
        """`method: {ms | hope | ms3 | ms4 | Bathe | msst*}, rho [, rho_alg]`, `crank nicolson`,
        `implicit euler`, `DIRK*`, `bdf [, order, n]` (manual §4.1.1, Method): any method the
        engine's make_method knows is accepted."""
        from mbdae.solvers.integrators import make_method
        w = args.take("an integration method")
        name = normalize(w.text)
        method = METHOD_ALIASES.get(name, " ".join(w.text.split()).lower())
        try:
            make_method(method, 0.5)
        except ValueError:
            message = not_supported(f"method {_shown(w.text)}") if name in KNOWN_METHODS else \
                f"syntax error: unknown integration method '{w.text}'"
            raise w.error(message) from None
        if method == "bdf" and args.is_keyword("order"):
            ow = args.peek()
            order = args.integer("the BDF order")
            if order not in (1, 2):
                raise ow.error("bdf order must be 1 or 2")
            method = "implicit euler" if order == 1 else method
        if method in METHODS_WITHOUT_RADIUS:
            self.settings.update(method=method, rho=0.0)
            return
        if method == "thirdorder" and args.is_keyword("ad hoc"):      # `thirdorder, ad hoc;`
            self.settings.update(method="thirdorder ad hoc", rho=0.0)
            return
        rw = args.peek()
        rho = self.read_spectral_radius(args)
        if method == "thirdorder" and not isinstance(rho, Drive) and rho <= 0.0:
            raise rw.error("thirdorder needs a spectral radius in (0, 1] (its interior point is at "
                           "θ = -ρ/(1+ρ)), or `ad hoc`")
        if args.more():
            rw = args.peek()
            alg = self.read_spectral_radius(args)
            if not isinstance(rho, Drive) and not isinstance(alg, Drive) and abs(alg - rho) > 1e-15:
                # MBDyn integrates the multipliers only to predict them; mbdae solves them at t_n
                self.note(rw, f"algebraic spectral radius {alg:g} ignored: mbdae solves the multipliers "
                              "at the new time and predicts them by extrapolation, so they have no "
                              "integration formula of their own")
        self.settings.update(method=method, rho=rho)

    def read_spectral_radius(self, args):
        w = args.peek()
        drive = self.read_drive(args)
        if isinstance(drive, PostponedDrive):
            return drive
        value = constant_value(drive)
        if value is None:
            raise w.error(not_supported("a time-varying spectral radius"))
        if not 0.0 <= value <= 1.0:
            raise w.error(f"the spectral radius must lie in [0, 1] (got {value})")
        return value

    def iv_nonlinear_solver(self, card, args):
        """`nonlinear solver: newton raphson [, true | modified, n [, keep jacobian matrix]
        [, honor element requests]]` (manual §4.1.1, Nonlinear Solver)."""
        w = args.peek()
        kind = args.expect_keyword("newton raphson", "line search", "bfgs", "matrix free", "nox",
                                   "mcp newton fb", "mcp newton min fb", "default", what="a nonlinear solver")
        if kind not in ("newtonraphson", "default"):
            raise w.error(not_supported(f"nonlinear solver: {w.text}"))
        self.read_newton_options(args)

    def iv_newton_raphson(self, card, args):
        """Deprecated `newton raphson: { true | modified [, n] };` card."""
        self.read_newton_options(args)

    def read_newton_options(self, args):
        if not args.more():
            return
        mode = args.expect_keyword("true", "modified")
        if mode == "true":
            self.settings["modified_newton"] = False
            return
        self.settings["modified_newton"] = True
        self.settings["iterations_before_assembly"] = 2
        if args.more() and args.peek_keyword() not in ("keepjacobianmatrix", "honorelementrequests", "keepjacobian"):
            self.settings["iterations_before_assembly"] = max(args.integer("iterations before assembly"), 1)
        while args.more():
            w = args.peek()
            opt = args.expect_keyword("keep jacobian matrix", "keep jacobian", "honor element requests")
            if opt.startswith("keepjacobian"):
                self.settings["reuse_factorization_across_steps"] = True
            else:
                self.note(w, "nonlinear solver: 'honor element requests' has no effect in mbdae")

    def iv_linear_solver(self, card, args):
        """`linear solver: <name> [, options]` (manual §4.1.1, Linear Solver): the solver maps to
        what mbdae has; orderings, threads, workspace, pivoting and scaling options are hints."""
        from mbdae.solvers.linear import available_linear_solvers
        w = args.take("a linear solver")
        name = normalize(w.text)
        direct = {"naive": "naive", "superlu": "superlu", "umfpack": "umfpack", "klu": "klu",
                  "lapack": "superlu", "y12": "superlu", "taucs": "superlu", "pardiso": "superlu",
                  "pardiso64": "superlu", "watson": "superlu", "pastix": "superlu", "qr": "superlu",
                  "spqr": "superlu", "cholmod": "superlu"}
        if name not in direct:
            known = ("aztecoo", "amesos", "siconosdense", "siconossparse")
            raise w.error(not_supported(f"linear solver {w.text}") if name in known else
                          f"syntax error: unknown linear solver '{w.text}'")
        chosen = direct[name]
        if chosen in ("klu", "umfpack") and chosen not in available_linear_solvers():
            self.note(w, f"linear solver {w.text}: kvxopt is not installed, using superlu")
            chosen = "superlu"
        elif chosen == "superlu" and name != "superlu":
            self.note(w, f"linear solver {w.text} is not available in mbdae, using superlu (direct, same solution)")
        self.settings["linear_solver"] = chosen
        options = []
        scaled = False
        while args.more():
            ow = args.peek()
            kw = ow.keyword
            if kw in LINEAR_SOLVER_FLAGS:
                args.i += 1
            elif kw in LINEAR_SOLVER_VALUES:
                args.i += 1
                for _ in range(LINEAR_SOLVER_VALUES[kw]):
                    args.take(f"a value for '{ow.text}'")
                if kw == "scale":
                    scaled = True
                    while args.is_keyword(*LINEAR_SOLVER_SCALINGS):   # method and/or when
                        pass
            elif kw in ("tolerance", "maxiterations") and scaled:
                args.i += 1                     # the iterative scaling's tolerance / iterations
                args.take(f"a value for '{ow.text}'")
            elif kw in ("tolerance", "maxiterations", "preconditioner"):
                raise ow.error(not_supported(f"iterative linear solver option '{ow.text}'"))
            else:
                raise ow.error(f"syntax error: unknown linear solver option '{ow.text}'")
            options.append(ow.text)
        if options:
            self.note(w, f"linear solver options {', '.join(options)} are performance hints, ignored")

    def iv_threads(self, card, args):
        w = args.peek()
        if args.is_keyword("disable"):
            return
        if not args.is_keyword("auto"):
            args.is_keyword("assembly", "solver")
            args.integer("a number of threads")
        self.note(w, "threads: mbdae runs single-threaded (performance hint ignored)")

    def iv_output(self, card, args):
        """`output: item, ...` (solver messages, manual §4.1): mbdae's .out always lists the
        iterations and residual of each step; other items are noted, unknown ones ignored with a
        note as MBDyn does."""
        items, unknown = [], []
        known = {normalize(i) for i in SOLVER_OUTPUT_ITEMS}
        while args.more():
            w = args.take("a solver output item")
            if w.keyword not in known:
                unknown.append(w.text)
            elif w.keyword not in ("none", "iterations", "residual", "messages"):
                items.append(w.text)
        if items:
            self.note(card.name, f"solver output items {', '.join(items)} are not written by mbdae "
                                 "(its .out file lists iterations and residual of every step)")
        if unknown:
            self.note(card.name, f"unknown output flag {', '.join(unknown)} ignored")

    def iv_output_meter(self, card, args):
        while args.more():
            args.take("a drive caller")
        self.note(card.name, "output meter of the solver's debug output is ignored")

    def iv_abort_after(self, card, args):
        w = args.peek()
        kind = args.expect_keyword("input", "assembly", "derivatives", "dummy steps", "regular step")
        if kind in ("assembly", "dummysteps"):
            raise w.error(not_supported(f"abort after: {w.text}"))
        steps = args.integer("a number of steps") if kind == "regularstep" else None
        self.abort_after = (kind, steps)

    def iv_derivatives_tolerance(self, card, args):
        self.settings["derivatives_tolerance"] = args.real("the derivatives tolerance")
        w = args.peek()
        if w is not None:
            raise w.error(not_supported("a solution tolerance for the derivatives phase"))

    def iv_derivatives_max_iterations(self, card, args):
        self.settings["derivatives_max_iterations"] = max(args.integer("a number of iterations"), 1)

    def iv_derivatives_coefficient(self, card, args):
        """`derivatives coefficient: { c | [c,] auto [, max iterations, n] [, factor, f] }`."""
        if args.peek_keyword() != "auto":
            self.settings["derivatives_coefficient"] = args.real("the derivatives coefficient")
        if args.is_keyword("auto"):
            self.settings["derivatives_retries"] = 6
            self.settings["derivatives_retry_factor"] = 10.0
            while args.more():
                opt = args.expect_keyword("max iterations", "factor")
                if opt == "maxiterations":
                    self.settings["derivatives_retries"] = args.integer("a number of retries")
                else:
                    self.settings["derivatives_retry_factor"] = args.real("a factor")

    def iv_dummy_steps_number(self, card, args):
        self.settings["dummy_steps"] = args.integer("the number of dummy steps")

    def iv_eigenanalysis(self, card, args):
        """`eigenanalysis: { <when> | list, <n>, <when>, ... } [, options]` (manual §4.1.1,
        Eigenanalysis); engine/eigen.py does the analysis."""
        from mbdae.engine.drivers.eigen import EigenSettings
        if args.is_keyword("list"):
            n = args.integer("the number of eigenanalysis times")
            if n < 1:
                raise card.name.error("eigenanalysis: the list needs at least one time")
            times = tuple(args.real("an eigenanalysis time") for _ in range(n))
        else:
            times = (args.real("the eigenanalysis time"),)
        opt = {"method": None}          # without `use lapack | arpack` MBDyn only writes the matrices
        while args.more():
            w = args.peek()
            kw = args.expect_keyword(
                "suffix width", "suffix format", "output matrices", "output full matrices",
                "output sparse matrices", "output eigenvectors", "output geometry",
                "matrix output precision", "results output precision", "parameter",
                "lower frequency limit", "upper frequency limit", "use lapack", "use arpack",
                "use jdqz", "use external", "mode", "balance", what="an eigenanalysis option")
            if kw == "suffixwidth":
                opt["suffix_width"] = None if args.is_keyword("compute") else args.integer("a width")
            elif kw == "suffixformat":
                opt["suffix_format"] = args.string("a format")
            elif kw in ("outputmatrices", "outputfullmatrices"):
                opt["output_matrices"] = "full"
            elif kw == "outputsparsematrices":
                opt["output_matrices"] = "sparse"
            elif kw == "outputeigenvectors":
                opt["output_eigenvectors"] = True
            elif kw == "outputgeometry":
                opt["output_geometry"] = True
            elif kw == "matrixoutputprecision":
                opt["matrix_precision"] = args.integer("a precision")
            elif kw == "resultsoutputprecision":
                opt["results_precision"] = args.integer("a precision")
            elif kw == "parameter":
                opt["parameter"] = args.real("the eigenanalysis parameter")
            elif kw == "lowerfrequencylimit":
                opt["lower_frequency"] = args.real("a frequency (Hz)")
            elif kw == "upperfrequencylimit":
                opt["upper_frequency"] = args.real("a frequency (Hz)")
            elif kw == "uselapack":
                opt["method"] = "lapack"
            elif kw == "balance":
                opt["balance"] = args.expect_keyword("no", "scale", "permute", "all")
                if opt["balance"] != "no":
                    self.note(w, "eigenanalysis: 'balance' is not applied (scipy's QZ has no dggevx)")
            elif kw == "usearpack":
                nev = args.integer("nev")
                ncv = args.integer("ncv")
                tol = args.real("tol")
                if args.is_keyword("max iterations"):
                    args.integer("a number of iterations")
                opt.update(method="arpack", arpack=(nev, ncv, tol))
            elif kw == "mode":
                args.expect_keyword("largest magnitude", "smallest magnitude", "largest real part",
                                    "smallest real part", "largest imaginary part", "smallest imaginary part")
                self.note(w, "eigenanalysis: 'mode' is ignored (arpack runs in shift-invert mode)")
            else:
                raise w.error(not_supported(f"eigenanalysis: {w.text}"))
        try:
            self.settings["eigenanalysis"] = EigenSettings(times, **opt)
        except ValueError as e:
            raise card.name.error(str(e)) from None

    def iv_dummy_steps_ratio(self, card, args):
        self.settings["dummy_steps_ratio"] = args.real("the dummy steps ratio")

    # ------------------------------------------------------------------ control data (manual ch. 5)
    def read_control_block(self, word):
        self.block_cards(word, "controldata", CONTROL_CARDS, "control data")

    def cd_counter(self, card, args):
        family = COUNTERS[card.key]
        if not args.more():          # `beams: ;` (every entry commented out): MBDyn reads 0
            self.declared[family] = 0
            return
        n = args.integer(f"the number of {family}")
        if n < 0:
            raise card.args[0].error(f"the number of {family} must not be negative")
        self.declared[family] = n

    def cd_automatic_structural(self, card, args):
        args.integer("a number")

    def cd_gravity(self, card, args):
        self.gravity_declared = True

    def cd_air_properties(self, card, args):
        raise card.name.error(not_supported("air properties"))

    def cd_skip_initial_joint_assembly(self, card, args):
        self.settings["skip_initial_assembly"] = True

    def cd_model(self, card, args):
        """`model: static;` (manual §5.2): every dynamic node becomes static and inertia is
        dropped (weights become forces, engine/static.py static_model); each time step then
        solves a static equilibrium at the loads of its time."""
        args.expect_keyword("static")
        self.static_model = True

    def cd_initial_stiffness(self, card, args):
        p = args.real("the position stiffness")
        v = args.real("the velocity stiffness") if args.more() else p
        self.default_assembly_stiffness = (p, v)

    def cd_omega_rotates(self, card, args):
        w = args.peek()
        if args.boolean():
            raise w.error(not_supported("omega rotates: yes"))

    def cd_tolerance(self, card, args):
        self.settings["assembly_tolerance"] = args.real("the assembly tolerance")

    def cd_max_iterations(self, card, args):
        self.settings["assembly_max_iterations"] = max(args.integer("the assembly iterations"), 1)

    def cd_title(self, card, args):
        self.title = args.string("a title")

    def cd_print(self, card, args):
        while args.more():
            args.take("a print item")
        self.note(card.name, "print: model statistics/descriptions are not printed by mbdae "
                             "(use 'mbdae check')")

    def cd_accepted_note(self, card, args):
        while args.more():
            args.take("an argument")
        self.note(card.name, f"'{_shown(card.name.text)}' has no effect in mbdae")

    def cd_default_output(self, card, args):
        """`default output: item, ...` (manual §5.3.9): `none` clears, `all` sets, items add."""
        while args.more():
            w = args.peek()
            kw = args.expect_keyword("all", "none", *OUTPUT_CATEGORIES, what="an output category")
            if kw == "none":
                self.default_output = set()
            elif kw == "all":
                self.default_output = set(OUTPUT_CATEGORIES)
            else:
                name = next(c for c in OUTPUT_CATEGORIES if normalize(c) == kw)
                self.default_output.add(name)
                if name in ("reference frames", "drive callers", "accelerations"):
                    self.note(w, f"default output: {name} is not written by mbdae")

    def cd_output_frequency(self, card, args):
        w = args.peek()
        n = args.integer("the output frequency")
        if n < 1:
            raise w.error("the output frequency must be at least 1")
        self.settings["output_frequency"] = n

    def cd_output_precision(self, card, args):
        self.settings["output_precision"] = args.integer("the output precision")

    def cd_output_results(self, card, args):
        while args.more():
            w = args.peek()
            if args.is_keyword("no text"):
                raise w.error(not_supported("output results: ..., no text (mbdae writes text output only)"))
            args.take("an output format")
        self.note(card.name, "output results: NetCDF is not written by mbdae (text output only)")

    def cd_default_orientation(self, card, args):
        self.default_orientation = self.read_orientation_description(args)

    def read_orientation_description(self, args):
        kw = args.expect_keyword("euler123", "euler313", "euler321", "orientation vector",
                                 "orientation matrix", what="an orientation description")
        return ORIENTATION_DESCRIPTIONS[kw]

    # ------------------------------------------------------------------ counts (manual §5.4)
    def count(self, family, label, word):
        """One more card of a family; MBDyn's messages when it exceeds the declared number."""
        n = self.found.get(family, 0) + 1
        self.found[family] = n
        name, number, _ = FAMILY_MESSAGES.get(family, (family, f"{family} number", family))
        if family == "gravity":
            if not self.gravity_declared:
                raise word.error("Gravity is not defined (add 'gravity;' to the control data)")
            if n > 1:
                raise word.error("Gravity is already defined")
        elif n > self.declared.get(family, 0):
            raise word.error(f"{name}({label}) exceeds {number}")
        labels = self.element_labels.setdefault(family, set())
        if label in labels:
            raise word.error(f"{name}({label}) already defined")
        labels.add(label)

    def check_missing(self, word, families, what):
        families = sorted(families, key=lambda f: MBDYN_TYPE_ORDER.index(f) if f in MBDYN_TYPE_ORDER else 99)
        missing = [(self.declared.get(f, 0) - self.found.get(f, 0), f) for f in families]
        missing = [(k, f) for k, f in missing if k > 0]
        if "gravity" in families and self.gravity_declared and not self.found.get("gravity"):
            missing.insert(0, (1, "gravity"))
        if missing:
            total = sum(k for k, _ in missing)
            listed = ", ".join(f"{k} {FAMILY_MESSAGES.get(f, (f, f, f))[2]}" for k, f in missing)
            raise word.error(f"{total} {what} are missing; {listed}")

    # ------------------------------------------------------------------ nodes (manual ch. 6)
    def read_nodes_block(self, word):
        end = self.block_cards(word, "nodes", NODE_CARDS, "nodes")
        if not self.exited:
            self.check_missing(end.name, NODE_FAMILIES, "nodes")

    def node_unsupported(self, card, args):
        raise card.name.error(not_supported(f"{_shown(card.name.text)} (node)"))

    def node_parameter(self, card, args):
        """`parameter: <label>, {[value,] <v> | element | beam strain gage, <y>, <z>}
        [, output, ...]` (manual §6.6; engine/parameters.py)."""
        w = args.peek()
        label = args.label("a parameter node label")
        self.count("parameter nodes", label, w)
        kind, value, y, z = "value", 0.0, 0.0, 0.0
        if args.is_keyword("element"):
            kind = "element"
        elif args.is_keyword("beam strain gage"):
            kind = "beam strain gage"
            y, z = args.real("the fibre y coordinate"), args.real("the fibre z coordinate")
        else:
            kw = args.peek()
            if args.is_keyword("sample and hold", "beam slider"):
                raise kw.error(not_supported(f"{_shown(kw.text)} parameter node"))
            args.is_keyword("value")
            value = args.real("an initial value")
        output = self.read_output_flag(args, "parameter nodes") if args.is_keyword("output") \
            else "parameter nodes" in self.default_output
        self.parameter_nodes = getattr(self, "parameter_nodes", {})
        self.parameter_nodes[label] = kind
        self.model.parameter_node(label, kind, value, y, z, output)

    def node_abstract(self, card, args):
        """`abstract: <label> [, {algebraic | differential}] [, [value,] <x0> [, derivative,
        <xp0>]] [, output, ...]` (manual §6.1; engine/abstract_nodes.py)."""
        w = args.peek()
        label = args.label("an abstract node label")
        self.count("abstract nodes", label, w)
        kind = args.is_keyword("algebraic", "differential") or "differential"
        x0 = xp0 = 0.0
        if args.more() and args.peek_keyword() not in ("output", "scale", "derivative"):
            args.is_keyword("value")
            x0 = args.real("the initial value")
        if args.is_keyword("derivative"):
            if kind == "algebraic":
                raise args.card.args[args.i - 1].error("an algebraic abstract node has no derivative")
            xp0 = args.real("the initial derivative")
        if args.is_keyword("scale"):
            args.is_keyword("default") or args.real("a scale factor")
        output = self.read_output_flag(args, "abstract nodes") if args.is_keyword("output") \
            else "abstract nodes" in self.default_output
        self.model.abstract_node(label, kind, x0, xp0, output)

    def read_node_dof(self, args, order=True):
        """(NodeDof) `<label>, {abstract | structural, <index>} [, {algebraic | differential}]`
        (manual §2.5); elements/genel.py NodeDof."""
        from mbdae.elements.genel import NodeDof
        w = args.peek()
        label = args.label("a node label")
        tw = args.peek()
        ntype = args.expect_keyword("abstract", "structural", what="a node type (abstract or structural)")
        index = 1
        if ntype == "abstract":
            if label not in self.element_labels.get("abstract nodes", set()):
                raise w.error(f"Abstract({label}) is not defined")
        else:
            if label not in self.nodes:
                raise w.error(f"Structural({label}) is not defined")
            iw = args.peek()
            index = args.integer("a structural dof index")
            if index not in (1, 2, 3):
                raise iw.error(not_supported(f"structural node dof index {index} (positions 1-3 only)"))
        dof_order = "algebraic"
        if order:
            dof_order = args.is_keyword("algebraic", "differential") or "algebraic"
        del tw
        return NodeDof(label, ntype, index, dof_order)

    def genel(self, card, args):
        """`genel: <label>, [name,] spring support, (NodeDof), (ConstitutiveLaw<1D>) [, output ...]`
        (manual §8.9; elements/genel.py).  Other genels are not supported."""
        word = args.peek()
        label = args.label("a genel label")
        args.optional_name()
        self.count("genels", label, word)
        tw = args.peek()
        if not args.is_keyword("spring support"):
            raise tw.error(not_supported(f"{_shown(tw.text) if tw else 'this'} (genel)"))
        dw = args.peek()
        dof = self.read_node_dof(args)
        if dof.order != "algebraic":
            raise dw.error("spring support: the dof order must be 'algebraic' (the law acts on the value)")
        lw = args.peek()
        law = self.read_law(args, 1)
        if law.viscous:
            raise lw.error("spring support: MBDyn gives the law no strain rate; a viscous law is refused")
        if args.is_keyword("output"):
            self.read_output_flag(args, "genels")
        self.model.spring_support(label, dof.node, law, dof.node_type, dof.index, dof.order)

    def read_abstract_force(self, args, label, word):
        """`force: <label>, abstract, (NodeDof), (DriveCaller) [, output ...]` (manual §8.8)."""
        dof = self.read_node_dof(args)
        drive = self.read_drive(args)
        output = self.read_output_flag(args, "forces") if args.is_keyword("output") else "forces" in self.default_output
        self.model.abstract_force(label, dof.node, drive, dof.node_type, dof.index)
        self.model.abstract_forces[-1].output = output

    def node_structural(self, card, args):
        """`structural: label, [name,] {static|dynamic|dummy ...}, X, R, V, W [, options]`
        (manual §6.5)."""
        word = args.peek()
        label = args.label("a node label")
        args.optional_name()
        kw_word = args.peek()
        kind = args.expect_keyword("static", "dynamic", "dummy", "modal", "static displacement",
                                   "dynamic displacement", what="a structural node type")
        self.count("structural nodes", label, word)
        if kind == "dummy":
            return self.read_dummy_node(args, label, word)
        if kind not in ("static", "dynamic"):
            raise kw_word.error(not_supported(f"{_shown(kw_word.text)} (structural node)"))
        od = self.default_orientation
        if args.is_keyword("at reference"):
            frame = self.frame_by_label(args)
            x, R, v, w = frame.x, frame.R, frame.v, frame.w
        else:
            args.is_keyword("position")
            x = self.read_vec3(args, "abs position")
            args.is_keyword("orientation")
            R = self.read_orientation(args, "abs")
            if args.is_keyword("orientation description"):
                od = self.read_orientation_description(args)
            args.is_keyword("velocity")
            v = self.read_vec3(args, "abs velocity", at=x)
            args.is_keyword("angular velocity")
            w = self.read_vec3(args, "abs angular velocity")
        if args.is_keyword("orientation description"):
            od = self.read_orientation_description(args)
        options = self.read_node_options(args)
        output = options.pop("output", "structural nodes" in self.default_output)
        spec_kw = dict(position=x, orientation=R, velocity=v, angular_velocity=w, output=output,
                       orientation_description=od,
                       assembly_stiffness=options.get("assembly", self.default_assembly_stiffness))
        self.model.structural_node(label, kind, **spec_kw)
        self.nodes[label] = NodeInfo(label, kind, Frame(x, R, v, w), self.model.nodes[-1])

    def read_node_options(self, args):
        options = {}
        while args.more():
            w = args.peek()
            kw = args.expect_keyword("assembly", "scale", "output", "accelerations", "output inertia",
                                     "prediction node", "orientation description", what="a node option")
            if kw == "assembly":
                p, v = args.real("the position stiffness"), args.real("the velocity stiffness")
                ow = args.peek()
                if args.boolean():
                    raise ow.error(not_supported("omega rotates in the node assembly option"))
                options["assembly"] = (p, v)
            elif kw == "scale":
                if not args.is_keyword("default"):
                    sw = args.peek()
                    if args.real("a scale factor") != 1.0:
                        raise sw.error(not_supported("node residual scaling"))
            elif kw == "output":
                options["output"] = self.read_output_flag(args, "structural nodes")
            elif kw == "accelerations":
                if args.more() and args.peek_keyword() not in NODE_OPTION_WORDS:
                    args.boolean()
                self.note(w, "node accelerations are not written to the .mov file by mbdae")
            elif kw == "outputinertia":
                args.boolean()
                self.note(w, "output inertia (.ine) is not written by mbdae")
            elif kw == "orientationdescription":
                raise w.error("syntax error: 'orientation description' must follow the orientation")
            else:
                raise w.error(not_supported("prediction node"))
        return options

    def read_output_flag(self, args, category):
        """`output, {yes|no|default|<bool>}` (manual §6.1)."""
        if args.is_keyword("default"):
            return category in self.default_output
        return args.boolean()

    def read_dummy_node(self, args, label, word):
        """`structural: label, dummy, base, offset, f, R [, od] [, output]` (manual §6.5.5)."""
        base = self.structural_node(args, what="the base node of a dummy node")
        w = args.peek()
        if args.is_keyword("relative frame"):
            raise w.error(not_supported("dummy nodes of type 'relative frame'"))
        args.expect_keyword("offset")
        site = Site(base.frame, base.label)
        f = self.read_vec3(args, "rel position", site)
        R = self.read_orientation(args, "rel", site)
        od = base.spec.orientation_description
        output = "structural nodes" in self.default_output
        while args.more():
            kw = args.expect_keyword("orientation description", "output")
            if kw == "output":
                output = self.read_output_flag(args, "structural nodes")
            else:
                od = self.read_orientation_description(args)
        self.model.dummy_node(label, base.label, f, R, output, od)
        x = base.frame.x + base.frame.R @ f
        self.nodes[label] = NodeInfo(label, "dummy", Frame(x, base.frame.R @ R, base.frame.v, base.frame.w),
                                     self.model.dummy_nodes[-1])

    def node_output(self, card, args):
        """`output: structural, labels... | range, a, b` (manual §6.7.1)."""
        w = args.peek()
        kind = args.expect_keyword(*NODE_TYPES, what="a node type")
        if kind != "structural":
            raise w.error(not_supported(f"{_shown(w.text)} (node)"))
        for label in self.read_label_list(args):
            info = self.nodes.get(label)
            if info is None:
                raise w.error(f"Structural({label}) is not defined; output cannot be modified")
            info.spec.output = True

    def read_label_list(self, args):
        labels = []
        while args.more():
            if args.is_keyword("range"):
                a, b = args.label("the first label"), args.label("the last label")
                labels += list(range(a, b + 1))
            else:
                labels.append(args.label())
        return labels

    # ------------------------------------------------------------------ drivers (manual §7.1)
    def read_drivers_block(self, word):
        self.block_cards(word, "drivers", DRIVER_CARDS, "drivers")

    def driver_file(self, card, args):
        raise card.name.error(not_supported("file drivers"))

    # ------------------------------------------------------------------ elements (manual ch. 8)
    def read_elements_block(self, word):
        end = self.block_cards(word, "elements", ELEMENT_CARDS, "elements")
        if self.exited:
            return
        families = [f for f in self.declared if f not in NODE_FAMILIES and f != "file drivers"]
        self.check_missing(end.name, families + ["gravity"], "elements")

    def element_unsupported(self, card, args):
        raise card.name.error(not_supported(f"{_shown(card.name.text)} (element)"))

    def element_output(self, card, args):
        """`output: <element type>, labels... | range, a, b` (manual §8.20.4)."""
        w = args.peek()
        kind = args.expect_keyword("joint", "force", "couple", "body", what="an element type")
        pools = {"joint": self.model.joints + self.model.rods, "force": self.model.forces,
                 "couple": self.model.forces, "body": []}
        for label in self.read_label_list(args):
            specs = [s for s in pools[kind] if s.label == label]
            if not specs:
                raise w.error(f"{w.text.strip().capitalize()}({label}) is not defined; output cannot be modified")
            for s in specs:
                s.output = True

    def driven(self, card, args):
        """`driven: <label>, <drive> [, initial state, {from drive | active | inactive | <bool>}]
        [, hint, "<hint>" ...], {existing: <type>, <label> | <element card>}` (manual §8.20.2):
        the inner card is read by its own reader (and counted in its own family); the element
        is active while the drive is non-zero (elements/driven.py)."""
        from mbdae.elements.driven import DrivenSpec
        lw = args.peek()
        label = args.label("a driven element label")
        drive = self.read_drive(args)
        initial, hints = None, []
        while True:
            if args.is_keyword("initial state"):
                kw = args.is_keyword("from drive", "active", "inactive")
                initial = None if kw == "fromdrive" else (kw == "active") if kw else args.boolean()
            elif args.is_keyword("hint"):
                hw = args.peek()
                hints.append(self.read_hint(hw, args.string("a hint in double quotes")))
            else:
                break
        inner = args.take("the driven element card")
        colon = re.search(r"(?<!:):(?!:)", inner.text)
        if colon is None:
            raise inner.error("syntax error: '<element type>: <label>, ...' or 'existing: <type>, <label>' "
                              "expected in a driven element")
        kind_text = inner.text[:colon.start()].strip()
        rest = inner.text[colon.end():]
        first = Word(rest.strip(), inner.source, inner.offset + colon.end() + len(rest) - len(rest.lstrip()))
        sub = Card(Word(kind_text, inner.source, inner.offset), [first] + args.words[args.i:],
                   Word("", inner.source, inner.offset), card.end)
        args.i = len(args.words)
        sub_args = Args(self, sub)
        m = self.model
        pools = {"joint": (m.joints, m.rods, m.deformable, m.viscous_bodies), "force": (m.forces,),
                 "couple": (m.forces,), "body": (m.bodies,), "beam": (m.beams, m.hbeams), "beam2": (m.beams,),
                 "beam3": (m.beams,), "hbeam": (m.hbeams,)}
        kind = normalize(kind_text)
        if kind == "existing":
            tw = sub_args.peek()
            etype = sub_args.expect_keyword(*pools, what="an element type (joint, force, couple, body, beam)")
            ew = sub_args.peek()
            elabel = sub_args.label("an element label")
            specs = [s for pool in pools[etype] for s in pool if s.label == elabel]
            if not specs:
                raise ew.error(f"{tw.text.strip()} {elabel} is not defined")
        else:
            if kind not in pools:
                raise sub.name.error(not_supported(f"driven {_shown(kind_text)}"))
            before = [len(pool) for pool in pools[kind]]
            ELEMENT_CARDS[kind](self, sub, sub_args)
            specs = [s for pool, n in zip(pools[kind], before) for s in pool[n:]]
        sub_args.expect_end()
        for s in specs:
            if s.label != label:
                raise lw.error(f"driven element {label} wraps {kind_text} {s.label}: the labels must be equal")
            if getattr(s, "driven", None) is not None:
                raise lw.error(f"{kind_text} {s.label} is already driven")
            s.driven = DrivenSpec(drive, tuple(hints), initial)

    def joint_regularization(self, card, args):
        """`joint regularization: <joint label>, tikhonov [, {<c> | list, c1, ..., cn}]` (manual
        §8.13; c defaults to 1e-6): the joint's rows become φ = c λ (elements/regularization.py)."""
        w = args.peek()
        label = args.label("a joint label")
        self.count("joint regularizations", label, w)
        if not any(s.label == label for s in self.model.joints):
            raise w.error(f"JointRegularization({label}): unable to find Joint({label}) with multipliers")
        tw = args.peek()
        kind = args.expect_keyword("tikhonov", "dynamic", "jacobian", what="a joint regularization type")
        if kind != "tikhonov":
            raise tw.error(not_supported(f"{_shown(tw.text)} joint regularization"))
        c = 1e-6
        if args.is_keyword("list"):
            spec = next(s for s in self.model.joints if s.label == label)
            n = int(np.count_nonzero(spec.active)) + len(spec.dot_axes) + (spec.distance_drive is not None)
            values = [args.real("a regularization coefficient") for _ in range(n)]
            if len(set(values)) > 1:
                raise tw.error(not_supported("different regularization coefficients per joint row"))
            c = values[0]
        elif args.more():
            c = args.real("a regularization coefficient")
        self.model.joint_regularization(label, c)

    def bind(self, card, args):
        """`bind: <element label>, <element type>, <parameter node>, {name | string, "<datum>" |
        [index,] <i>}` (manual §8.20.1): the parameter node takes the element's private datum
        (a beam strain gage: the index is the evaluation point); engine/parameters.py."""
        w = args.peek()
        elabel, kind = self.read_element_reference(args, "bind")
        pw = args.peek()
        plabel = args.label("a parameter node label")
        pkind = getattr(self, "parameter_nodes", {}).get(plabel)
        if pkind is None:
            raise pw.error(f"parameter node {plabel} is not defined")
        if pkind == "value":
            raise pw.error(f"parameter node {plabel} holds a value; only 'element' and 'beam strain gage' "
                           "parameter nodes can be bound")
        bound = self.__dict__.setdefault("bound_parameters", set())
        if plabel in bound:
            raise pw.error(f"parameter node {plabel} is already bound")
        bound.add(plabel)
        name = index = None
        nw = args.peek()
        if args.is_keyword("name", "string"):
            nw = args.peek()
            name = args.string("a private data name")
            self.check_private_name(nw, kind, elabel, name)
        else:
            args.is_keyword("index")
            nw = args.peek()
            index = args.integer("a private data index")
            if index < 1:
                raise nw.error(f"private data index {index} must be positive")
            if pkind == "beam strain gage":
                beam = next(b for b in self.model.beams if b.label == elabel)
                if index > len(beam.laws):
                    raise nw.error(f"beam strain gage: evaluation point {index} out of range 1..{len(beam.laws)}")
        if pkind == "beam strain gage" and (kind != "beam" or name is not None):
            raise (nw or w).error("a beam strain gage binds to a beam evaluation point index")
        self.model.bind(elabel, kind, plabel, name=name, index=index)

    def read_element_reference(self, args, what):
        """`<label>, <type>` of a defined element whose private data are read (`bind`, the
        `element` drive): (label, MBDyn element type, `couple` read as `force`)."""
        lw = args.peek()
        label = args.label("an element label")
        kind = args.expect_keyword("joint", "force", "couple", "body", "beam", what="an element type")
        kind = {"couple": "force"}.get(kind, kind)
        family = {"joint": "joints", "force": "forces", "body": "rigid bodies", "beam": "beams"}[kind]
        if label not in self.element_labels.get(family, set()):
            raise lw.error(f"{what}: {kind} {label} is not defined")
        return label, kind

    def check_private_name(self, word, kind, label, name):
        """A private datum name the element type defines (beams: manual, beam "Private Data")."""
        if kind == "beam":
            beam = next((b for b in self.model.beams if b.label == label), None)
            prefix = r"(pI\.|pII\.)" if beam is not None and len(beam.nodes) == 3 else ""
            if not re.fullmatch(prefix + r"(e|k|F|M|X|Phi|Omega|eP|kP)[xyz]", name):
                raise word.error(f'beam {label} has no private datum "{name}" (names: '
                                 f'{"pI.|pII." if prefix else ""}{{e,k,F,M,X,Phi,Omega,eP,kP}}{{x,y,z}})')

    def read_hint(self, word, text):
        """A hint of a driven element (manual §2.6.41): `offset{1|2}`, `drive{<DriveCaller>}`,
        `position-drive3{<TplDriveCaller<Vec3>>}`, `orientation-drive3{...}`.  Drives are
        re-read when the element activates, `model::` functions on the state of that step."""
        from mbdae.elements.driven import Hint
        m = re.fullmatch(r"\s*([A-Za-z0-9_-]+)\s*\{(.*)\}\s*", text, re.S)
        if m is None:
            raise word.error(f'syntax error: hint "{text}" is not <word>{{...}}')
        name, body = m.group(1).lower(), m.group(2)
        if name == "offset":
            if body.strip() not in ("1", "2"):
                raise word.error(f'syntax error: hint "{text}": offset{{1}} or offset{{2}} expected')
            return Hint("offset", int(body), text=text)
        kinds = {"drive": "drive", "position-drive3": "position drive", "orientation-drive3": "orientation drive"}
        if name not in kinds:
            raise word.error(not_supported(f"hint {name}"))
        vector = name != "drive"

        def make(view):
            self.live_view = view
            try:
                src = Source(word.source.path, text=f"hint: {body};", name=f'{word.source.name} (hint "{text}")')
                hargs = Args(self, next(scan_cards(src)))
                drive = self.read_tpl_vec3(hargs, "rel direction", GLOBAL_SITE) if vector else self.read_drive(hargs)
                hargs.expect_end()
                return drive
            finally:
                self.live_view = None
        make(None)              # syntax now (model:: functions on the initial configuration)
        return Hint(kinds[name], make=make, text=text)

    def structural_node(self, args, what="a structural node"):
        """A label of a (non-dummy) structural node already defined."""
        w = args.peek()
        label = args.label(what)
        info = self.nodes.get(label)
        if info is None or info.kind == "dummy":
            raise w.error(f"Structural({label}) not defined" if info is None else
                          f"Structural({label}) is a dummy node; elements cannot connect to it")
        return info

    def body(self, card, args):
        """`body: label, node, { [allow negative mass,] m, Xcg, J [, orientation, R]
        | condense, n, ... }` (manual §8.4)."""
        word = args.peek()
        label = args.label("a body label")
        args.optional_name()
        self.count("rigid bodies", label, word)
        node_word = args.peek()
        node = self.structural_node(args)
        if node.kind != "dynamic" and self.problem_name != "inversedynamics":   # inverse: explicit mass
            raise node_word.error(f"Body({label}): Structural({node.label}) is static; a body needs a dynamic node")
        site = Site(node.frame, node.label)
        if args.is_keyword("variable mass"):
            raise card.args[args.i - 1].error(not_supported("variable mass bodies"))
        n = 1
        if args.is_keyword("condense"):
            n = args.integer("the number of masses")
        masses = [self.read_one_body(args, site) for _ in range(n)]
        m, xcg, J = condense_masses(masses)
        self.model.body(label, node.label, m, xcg, J)

    def read_one_body(self, args, site):
        allow_negative = bool(args.is_keyword("allow negative mass"))
        w = args.peek()
        m = args.real("the mass")
        if m < 0 and not allow_negative:
            raise w.error("negative mass (use 'allow negative mass')")
        if m < 0:
            raise w.error(not_supported("negative mass"))
        xcg = self.read_vec3(args, "rel position", site)
        J = self.read_mat3(args, site)
        if args.is_keyword("orientation", "inertial"):
            Rj = self.read_orientation(args, "rel", site)
            J = Rj @ J @ Rj.T
        return m, xcg, J

    def gravity(self, card, args):
        """`gravity: [uniform,] <TplDriveCaller<Vec3>> [, output]` (manual §8.10)."""
        self.count("gravity", 1, card.name)
        w = args.peek()
        if args.is_keyword("central"):
            raise w.error(not_supported("central gravity"))
        args.is_keyword("uniform")
        drive = self.read_tpl_vec3(args, "abs direction", GLOBAL_SITE)
        if args.is_keyword("output"):
            self.read_output_flag(args, "gravity")
            self.note(w, "gravity output (.grv) is not written by mbdae")
        vector, scalar = single_term(drive, w, "gravity")
        self.model.gravity(vector, scalar)

    def inertia(self, card, args):
        """`inertia: label, [name,] [position, X] [, orientation, R], body, {all | labels}
        [, output, ...]` (manual §8.20.3): mass properties of bodies at the initial configuration,
        written to the .log file."""
        word = args.peek()
        label = args.label("an inertia label")
        name = args.optional_name()
        X, R = np.zeros(3), I3
        if args.is_keyword("position"):
            X = self.read_vec3(args, "abs position")
        if args.is_keyword("orientation"):
            R = self.read_orientation(args, "abs")
        labels = []
        while args.more() and args.peek_keyword() != "output":
            tw = args.peek()
            kind = args.expect_keyword("body", "joint", "solid", "loadable", what="an element type")
            if kind != "body":
                raise tw.error(not_supported(f"inertia of {tw.text} elements"))
            if args.is_keyword("all"):
                labels = None
            else:
                while args.more() and args.peek_keyword() not in ("output", "body", "joint"):
                    labels.append(args.label("a body label"))
        if args.is_keyword("output"):
            ow = args.peek()
            mode = args.expect_keyword("no", "yes", "log", "both", "always")
            if mode in ("always", "both"):
                raise ow.error(not_supported(f"inertia output '{ow.text}' (only the .log summary)"))
            if mode == "no":
                return
        self.log_lines += inertia_summary(label, name, self.model, self.nodes, labels, X, R, word)

    # ------------------------------------------------------------------ forces (manual §8.8, §8.6)
    def force(self, card, args):
        self.read_force(card, args, couple=False)

    def couple(self, card, args):
        self.read_force(card, args, couple=True)

    def read_force(self, card, args, couple):
        """`force|couple: label, [name,] {absolute|follower} [internal], node, ...` (manual §8.8,
        §8.6); absolute values are global, follower values in the node frame."""
        word = args.peek()
        label = args.label("a force label")
        args.optional_name()
        self.count("forces", label, word)
        if not couple and args.is_keyword("abstract"):
            return self.read_abstract_force(args, label, word)
        frame, internal = self.force_type(args.take("a force type"), couple)
        kind = "abs direction" if frame == "absolute" else "rel direction"
        n1 = self.structural_node(args)
        s1 = Site(n1.frame, n1.label)
        n2, arm2 = None, None
        if internal:
            arm1 = self.read_force_arm(args, s1, couple)
            n2 = self.structural_node(args)
            arm2 = self.read_force_arm(args, Site(n2.frame, n2.label, other=n1.frame, other_offset=arm1,
                                                  other_orientation=I3), couple)
            value = self.read_tpl_vec3(args, kind, s1)
        elif couple or args.peek_keyword() == "position":
            arm1 = self.read_force_arm(args, s1, couple)
            value = self.read_tpl_vec3(args, kind, s1)
        else:
            arm1, value = self.read_legacy_force(args, kind, s1)
        if args.is_keyword("output relative"):
            self.note(card.name, "output relative: mbdae writes the .frc force in the global frame")
        output = self.read_output_flag(args, "forces") if args.is_keyword("output") else "forces" in self.default_output
        node2 = n2.label if internal else None
        if couple:
            self.model.couple(label, n1.label, value, frame, node2=node2)
        else:
            self.model.force(label, n1.label, value, frame, offset=arm1, node2=node2, offset2=arm2)
        self.model.forces[-1].output = output

    @staticmethod
    def force_type(word, couple):
        """(frame, internal) of `{absolute | follower | conservative} [internal]`."""
        what = "couple" if couple else "force"
        ftype = normalize(word.text)
        ftype = {"conservative": "absolute", "conservativeinternal": "absoluteinternal"}.get(ftype, ftype)
        if ftype in ("absolute", "follower", "absoluteinternal", "followerinternal"):
            return ftype.replace("internal", ""), ftype.endswith("internal")
        known = ("total", "totalinternal", "abstract", "abstractinternal", "modal", "externalstructural",
                 "externalmodal", "externalstructuralmapping", "externalmodalmapping",
                 "absolutedisplacement", "absoluteinternaldisplacement")
        if ftype in known:
            raise word.error(not_supported(f"{_shown(word.text)} ({what})"))
        raise word.error(f"syntax error: unknown {what} type '{word.text}'")

    def read_legacy_force(self, args, kind, site):
        """Force without `position` (legacy): direction, arm, magnitude drive (spec §7.6)."""
        dw = args.peek()
        direction = self.read_vec3(args, kind, site)
        norm = np.linalg.norm(direction)
        if norm == 0:
            raise dw.error("force direction is null")
        arm = self.read_vec3(args, "rel position", site)
        return arm, VectorDrive.single(direction / norm, self.read_drive(args))

    def read_force_arm(self, args, site, couple):
        if couple:
            if args.is_keyword("position"):
                return self.read_vec3(args, "rel position", site)
            return np.zeros(3)
        args.expect_keyword("position")
        return self.read_vec3(args, "rel position", site)

    # ------------------------------------------------------------------ joints (manual §8.12)
    def joint(self, card, args):
        word = args.peek()
        label = args.label("a joint label")
        args.optional_name()
        self.count("joints", label, word)
        tw = args.take("a joint type")
        jtype = normalize(tw.text)
        reader = JOINT_READERS.get(jtype)
        if reader is None:
            if jtype in {normalize(j) for j in UNSUPPORTED_JOINTS}:
                raise tw.error(not_supported(f"{_shown(tw.text)} (joint)"))
            raise tw.error(f"syntax error: unknown joint type '{tw.text}'")
        before = (len(self.model.joints), len(self.model.rods), len(self.model.deformable),
                  len(self.model.viscous_bodies))
        reader(self, label, args, tw)
        output = "joints" in self.default_output
        while args.more():
            ow = args.peek()
            kw = args.expect_keyword("output", "orientation description", "initial theta",
                                     "inverse dynamics", "initial state", "friction",
                                     what="'output' or ';'")
            if kw == "output":
                output = self.read_output_flag(args, "joints")
            elif kw == "orientationdescription":
                self.read_orientation_description(args)
                self.note(ow, "joint orientation description: mbdae writes joint orientations "
                              "as Euler 1-2-3 angles")
            elif kw == "inversedynamics":
                self.read_inverse_dynamics_flags(args, label)
            else:
                raise ow.error(not_supported(f"joint option '{ow.text}'"))
        m = self.model
        for spec in (m.joints[before[0]:] + m.rods[before[1]:] + m.deformable[before[2]:]
                     + m.viscous_bodies[before[3]:]):
            spec.output = output

    # -- shared pieces
    def offset(self, args, site, keyword="position", required=True):
        """`[position,] <Vec3>` (keyword optional, vector mandatory) or, when not required,
        an optional `position, <Vec3>` group."""
        if required:
            args.is_keyword(keyword)
            return self.read_vec3(args, "rel position", site)
        if args.is_keyword(keyword):
            return self.read_vec3(args, "rel position", site)
        return np.zeros(3)

    def hinge(self, args, site):
        """Optional `{orientation|hinge}, <OrientationMatrix>` (relative)."""
        if args.is_keyword("orientation", "hinge"):
            return self.read_orientation(args, "rel", site)
        return I3.copy()

    def second_site(self, args, n1, f1, R1h=None, what="the second node"):
        n2 = self.structural_node(args, what)
        return n2, Site(n2.frame, n2.label, other=n1.frame, other_offset=f1,
                        other_orientation=I3 if R1h is None else R1h)

    def node_site(self, args, what="a structural node"):
        n = self.structural_node(args, what)
        return n, Site(n.frame, n.label)

    def j_clamp(self, label, args, tw):
        n, site = self.node_site(args)
        args.is_keyword("position")
        X = None if args.is_keyword("node") else self.read_vec3(args, "abs position", site)
        args.is_keyword("orientation")
        R = None if args.is_keyword("node") else self.read_orientation(args, "abs", site)
        self.model.clamp(label, n.label, X, R)

    def two_node_hinge_sites(self, args):
        """`<node1>, [position,] f1 [, orientation, R1h], <node2>, [position,] f2
        [, orientation, R2h]`: the common head of the two-node hinge-type joints."""
        n1, s1 = self.node_site(args)
        f1 = self.offset(args, s1)
        R1h = self.hinge(args, s1)
        n2, s2 = self.second_site(args, n1, f1, R1h)
        f2 = self.offset(args, s2)
        R2h = self.hinge(args, s2)
        return n1, f1, R1h, n2, f2, R2h

    def j_spherical_hinge(self, label, args, tw):
        n1, f1, R1h, n2, f2, R2h = self.two_node_hinge_sites(args)
        self.model.spherical_hinge(label, n1.label, n2.label, f1, f2, R1h, R2h)

    def j_spherical_pin(self, label, args, tw):
        n, site = self.node_site(args)
        f = self.offset(args, site)
        self.hinge(args, site)
        args.is_keyword("position")
        X0 = self.read_vec3(args, "abs position", site)
        if args.is_keyword("orientation", "hinge"):
            self.read_orientation(args, "abs", site)
        self.model.spherical_pin(label, n.label, f, X0)

    def j_revolute_hinge(self, label, args, tw, cardano=False):
        n1, f1, R1h, n2, f2, R2h = self.two_node_hinge_sites(args)
        make = self.model.cardano_hinge if cardano else self.model.revolute_hinge
        make(label, n1.label, n2.label, f1, R1h, f2, R2h)

    def j_cardano_hinge(self, label, args, tw):
        self.j_revolute_hinge(label, args, tw, cardano=True)

    def j_revolute_pin(self, label, args, tw):
        n, site = self.node_site(args)
        f = self.offset(args, site)
        Rh = self.hinge(args, site)
        args.is_keyword("position")
        X0 = self.read_vec3(args, "abs position", site)
        R0 = None
        if args.is_keyword("orientation", "hinge"):
            R0 = self.read_orientation(args, "abs", site)
        self.model.revolute_pin(label, n.label, f, Rh, X0, R0)

    def j_in_line(self, label, args, tw):
        n1, s1 = self.node_site(args)
        p = self.offset(args, s1)
        args.is_keyword("orientation")
        R = self.read_orientation(args, "rel", s1)
        n2, s2 = self.second_site(args, n1, p, R)
        q = self.offset(args, s2, "offset", required=False)
        self.model.in_line(label, n1.label, p, R, n2.label, q)

    def j_in_plane(self, label, args, tw):
        n1, s1 = self.node_site(args)
        p = self.offset(args, s1)
        nw = args.peek()
        normal = self.read_vec3(args, "rel direction", s1)
        if np.linalg.norm(normal) == 0:
            raise nw.error("in plane: the plane normal is null")
        n2, s2 = self.second_site(args, n1, p)
        q = self.offset(args, s2, "offset", required=False)
        self.model.in_plane(label, n1.label, p, normal, n2.label, q)

    def j_prismatic(self, label, args, tw):
        n1, s1 = self.node_site(args)
        R1h = self.hinge(args, s1)
        n2, s2 = self.second_site(args, n1, np.zeros(3), R1h)
        R2h = self.hinge(args, s2)
        self.model.prismatic(label, n1.label, n2.label, R1h, R2h)

    def j_distance(self, label, args, tw, with_offset=False):
        n1, s1 = self.node_site(args)
        f1 = self.offset(args, s1, required=with_offset)
        n2, s2 = self.second_site(args, n1, f1)
        f2 = self.offset(args, s2, required=with_offset)
        x1 = n1.frame.x + n1.frame.R @ f1
        x2 = n2.frame.x + n2.frame.R @ f2
        length0 = float(np.linalg.norm(x2 - x1))
        if length0 == 0:
            raise tw.error("distance joint: the two points coincide (zero distance is not allowed)")
        self.current = {"L": length0}
        try:
            length = None if args.is_keyword("from nodes") else self.read_drive(args)
        finally:
            self.current = {}
        self.model.distance(label, n1.label, n2.label, length, f1, f2)

    def j_distance_with_offset(self, label, args, tw):
        self.j_distance(label, args, tw, with_offset=True)

    def j_drive_hinge(self, label, args, tw):
        n1, s1 = self.node_site(args)
        R1h = self.hinge(args, s1)
        n2, s2 = self.second_site(args, n1, np.zeros(3), R1h)
        R2h = self.hinge(args, s2)
        hinge_site = Site(replace(n1.frame, R=n1.frame.R @ R1h), n1.label)
        theta = self.read_tpl_vec3(args, "rel direction", hinge_site)
        self.model.drive_hinge(label, n1.label, n2.label, theta, R1h, R2h)

    def j_drive_displacement(self, label, args, tw):
        n1, s1 = self.node_site(args)
        f1 = self.offset(args, s1)
        n2, s2 = self.second_site(args, n1, f1)
        f2 = self.offset(args, s2)
        d = self.read_tpl_vec3(args, "rel direction", s1)
        self.model.drive_displacement(label, n1.label, n2.label, d, f1, f2)

    def j_drive_displacement_pin(self, label, args, tw):
        n, site = self.node_site(args)
        f = self.offset(args, site)
        args.is_keyword("position")
        X0 = self.read_vec3(args, "abs position", site)
        d = self.read_tpl_vec3(args, "abs direction", site)
        self.model.drive_displacement_pin(label, n.label, d, f, X0)

    def j_imposed_displacement(self, label, args, tw):
        """One constraint row (spec §7.5.15, manual §9.1.11): the relative displacement along
        the direction e (in node 1's frame) equals s(t); built as a total joint whose
        position frame has e as axis 3, with only that component active."""
        n1, s1 = self.node_site(args)
        f1 = self.read_vec3(args, "rel position", s1)
        n2, s2 = self.second_site(args, n1, f1)
        f2 = self.read_vec3(args, "rel position", s2)
        direction, drive = self.read_imposed_direction_drive(args, "rel direction", s1)
        self.model.total_joint(label, n1.label, n2.label, offset1=f1, offset2=f2,
                               position_orientation1=rot.frame_from_axis3(direction),
                               output_orientation1=np.eye(3),
                               position_status=("inactive", "inactive", "active"), position_drive=drive)

    def j_imposed_displacement_pin(self, label, args, tw):
        """One constraint row (manual §9.1.12): eᵀ(x + f - X0) = s(t), e absolute."""
        n, site = self.node_site(args)
        f = self.read_vec3(args, "rel position", site)
        X0 = self.read_vec3(args, "abs position", site)
        direction, drive = self.read_imposed_direction_drive(args, "abs direction", site)
        self.model.total_pin_joint(label, n.label, offset=f, absolute_position=X0,
                                   absolute_position_orientation=rot.frame_from_axis3(direction),
                                   absolute_output_orientation=np.eye(3),
                                   absolute_rotation_orientation=n.frame.R,
                                   position_status=("inactive", "inactive", "active"), position_drive=drive)

    def read_imposed_direction_drive(self, args, kind, site):
        if args.is_keyword("single"):
            pass
        w = args.peek()
        direction = self.read_vec3(args, kind, site)
        norm = np.linalg.norm(direction)
        if norm == 0:
            raise w.error("imposed displacement: the direction is null")
        # the imposed displacement is s(t) times the given (not normalized) vector
        return direction / norm, VectorDrive.single([0.0, 0.0, norm], self.read_drive(args))

    def j_axial_rotation(self, label, args, tw):
        n1, f1, R1h, n2, f2, R2h = self.two_node_hinge_sites(args)
        omega = self.read_drive(args)
        self.model.axial_rotation(label, n1.label, n2.label, omega, f1, R1h, f2, R2h)

    def read_total_frames(self, args, site, absolute=False):
        """Optional `position, v`, `position orientation, R`, `rotation orientation, R` in order."""
        kind_v, kind_R = ("abs position", "abs") if absolute else ("rel position", "rel")
        f = self.read_vec3(args, kind_v, site) if args.is_keyword("position") else None
        Rp = self.read_orientation(args, kind_R, site) if args.is_keyword("position orientation") else None
        Rr = self.read_orientation(args, kind_R, site) if args.is_keyword("rotation orientation") else None
        return f, Rp, Rr

    def read_total_constraints(self, args, pos_site, rot_site, pin=False):
        """`[position constraint, s1, s2, s3, <tpl>] [orientation constraint, s1, s2, s3, <tpl>]`."""
        out = dict(position_status=("inactive",) * 3, position_drive=None,
                   orientation_status=("inactive",) * 3, orientation_drive=None)
        if args.is_keyword("position constraint"):
            out["position_status"] = self.read_statuses(args, ("inactive", "active", "position", "velocity"), pin)
            out["position_drive"] = self.read_tpl_vec3(args, "rel direction", pos_site)
            if self.problem_name == "inversedynamics":
                out["position_drive"] = self.read_inverse_derivatives(args, out["position_drive"], pos_site)
        if args.is_keyword("orientation constraint"):
            out["orientation_status"] = self.read_statuses(args, ("inactive", "active", "rotation",
                                                                  "angular velocity"), pin)
            out["orientation_drive"] = self.read_tpl_vec3(args, "rel direction", rot_site)
            if self.problem_name == "inversedynamics":
                out["orientation_drive"] = self.read_inverse_derivatives(args, out["orientation_drive"], rot_site)
        return out

    def read_statuses(self, args, words, pin):
        statuses = []
        for _ in range(3):
            w = args.peek()
            kw = args.is_keyword(*words)
            if kw is None:
                kw = "active" if args.integer("a constraint status") else "inactive"
            name = next(x for x in words if normalize(x) == kw)
            if pin and name in ("velocity", "angular velocity"):
                raise w.error(not_supported(f"'{name}' constraints in total pin joints"))
            statuses.append(name)
        return tuple(statuses)

    def j_total_equation(self, label, args, tw):
        """`total equation` (manual §8.12.47, undocumented): a total joint's card; its rows
        load no node (their multipliers act through a `total internal reaction`)."""
        self.j_total_joint(label, args, tw, type_="total equation")

    def j_total_internal_reaction(self, label, args, tw):
        """`total internal reaction` (manual §8.12.50, undocumented): a total joint's frames,
        `position constraint` / `orientation constraint` statuses (active or inactive, no
        drives), then `total equation, <label>` of a total equation defined before."""
        n1, s1 = self.node_site(args)
        f1, R1p, R1r = self.read_total_frames(args, s1)
        f1 = np.zeros(3) if f1 is None else f1
        R1p = I3 if R1p is None else R1p
        n2, s2 = self.second_site(args, n1, f1, R1p)
        f2, R2p, R2r = self.read_total_frames(args, s2)
        status = {}
        for group in ("position constraint", "orientation constraint"):
            if args.is_keyword(group):
                status[group] = self.read_statuses(args, ("inactive", "active"), False)
        w = args.peek()
        args.expect_keyword("total equation")
        equation = args.label("a total equation label")
        if not any(s.label == equation and s.type == "total equation" for s in self.model.joints):
            raise w.error(f"TotalEquation({equation}) needed by TotalReaction({label}) is not defined")
        self.model.total_internal_reaction(
            label, n1.label, n2.label, equation, offset1=f1, position_orientation1=R1p,
            rotation_orientation1=R1r, offset2=f2, position_orientation2=R2p, rotation_orientation2=R2r,
            position_status=status.get("position constraint", ("inactive",) * 3),
            orientation_status=status.get("orientation constraint", ("inactive",) * 3))

    def j_total_joint(self, label, args, tw, type_="total joint"):
        """`total joint` (manual §8.12.48): frames of both nodes, then constraint groups whose
        imposed values are expressed in node 1's position / rotation frames."""
        n1, s1 = self.node_site(args)
        f1, R1p, R1r = self.read_total_frames(args, s1)
        f1 = np.zeros(3) if f1 is None else f1
        R1p = I3 if R1p is None else R1p
        R1r = I3 if R1r is None else R1r
        n2, s2 = self.second_site(args, n1, f1, R1p)
        f2, R2p, R2r = self.read_total_frames(args, s2)
        pos_site = Site(replace(n1.frame, R=n1.frame.R @ R1p), n1.label)
        rot_site = Site(replace(n1.frame, R=n1.frame.R @ R1r), n1.label)
        constraints = self.read_total_constraints(args, pos_site, rot_site)
        self.model.total_joint(label, n1.label, n2.label, offset1=f1, position_orientation1=R1p,
                               rotation_orientation1=R1r, offset2=f2, position_orientation2=R2p,
                               rotation_orientation2=R2r, type_=type_, **constraints)

    def j_total_pin_joint(self, label, args, tw):
        """`total pin joint` (manual §8.12.49): node group (relative), then ground group (absolute)."""
        n, site = self.node_site(args)
        f, _, Rr = self.read_total_frames(args, site)
        f = np.zeros(3) if f is None else f
        ground_site = Site(n.frame, n.label, other=n.frame, other_offset=f, other_orientation=I3)
        Xc, Rcp, Rcr = self.read_total_frames(args, ground_site, absolute=True)
        x_point = n.frame.x + n.frame.R @ f
        Rr_abs = n.frame.R @ (I3 if Rr is None else Rr)
        pos_site = Site(Frame(x_point, I3 if Rcp is None else Rcp), None)
        rot_site = Site(Frame(x_point, Rr_abs if Rcr is None else Rcr), None)
        constraints = self.read_total_constraints(args, pos_site, rot_site, pin=True)
        self.model.total_pin_joint(label, n.label, offset=f, rotation_orientation=Rr,
                                   absolute_position=Xc, absolute_position_orientation=Rcp,
                                   absolute_rotation_orientation=Rcr, **constraints)

    def j_rod(self, label, args, tw, with_offset=False):
        """`rod` / `rod with offset` (manual §8.12.42-43): L0 or `from nodes`, then a 1-D law."""
        n1, s1 = self.node_site(args)
        f1 = self.offset(args, s1, required=with_offset)
        n2, s2 = self.second_site(args, n1, f1)
        f2 = self.offset(args, s2, required=with_offset)
        lw = args.peek()
        L0 = None if args.is_keyword("from nodes") else args.real("the rod length")
        if not with_offset and args.is_keyword("offset"):          # legacy: L0, offset, f1, f2
            f1 = self.read_vec3(args, "rel position", s1)
            f2 = self.read_vec3(args, "rel position", s2)
        x1 = n1.frame.x + n1.frame.R @ f1
        x2 = n2.frame.x + n2.frame.R @ f2
        length = float(np.linalg.norm(x2 - x1))
        L0 = length if L0 is None else L0
        if L0 <= 0:
            raise lw.error("rod: the reference length must be positive")
        self.current = {"L0": L0, "L": length}
        try:
            law = self.read_law(args, 1)
        finally:
            self.current = {}
        self.model.rod(label, n1.label, n2.label, law, L0, f1, f2)

    def j_rod_with_offset(self, label, args, tw):
        self.j_rod(label, args, tw, with_offset=True)

    def hinge_sites_without_offsets(self, args):
        """`<node1> [, position, <f1>] [, orientation, <R1h>], <node2> [, position, <f2>]
        [, orientation, <R2h>]`: the head of the deformable hinge and axial joint (offsets ignored)."""
        n1, s1 = self.node_site(args)
        if args.is_keyword("position"):
            self.read_vec3(args, "rel position", s1)
        R1h = self.hinge(args, s1)
        n2, s2 = self.second_site(args, n1, np.zeros(3), R1h)
        if args.is_keyword("position"):
            self.read_vec3(args, "rel position", s2)
        R2h = self.hinge(args, s2)
        return n1, R1h, n2, R2h

    def j_deformable_hinge(self, label, args, tw, invariant=False):
        """`[invariant] deformable hinge` (manual §8.12.14, §8.12.28): offsets are ignored, a 3-D
        law of the relative rotation in the node-1 hinge frame (invariant: the mid frame)."""
        n1, R1h, n2, R2h = self.hinge_sites_without_offsets(args)
        law = self.read_law(args, 3)
        self.model.deformable_hinge(label, n1.label, n2.label, law, R1h, R2h, invariant=invariant)

    def j_invariant_deformable_hinge(self, label, args, tw):
        self.j_deformable_hinge(label, args, tw, invariant=True)

    def j_deformable_displacement_joint(self, label, args, tw, invariant=False):
        """`[invariant] deformable displacement joint` (manual §8.12.13): a 3-D law of the
        relative position of the offset points in the node-1 hinge frame (invariant: mid frame)."""
        n1, f1, R1h, n2, f2, R2h = self.two_node_hinge_sites(args)
        law = self.read_law(args, 3)
        self.model.deformable_displacement_joint(label, n1.label, n2.label, law, f1, R1h, f2, R2h,
                                                 invariant=invariant)

    def j_invariant_deformable_displacement_joint(self, label, args, tw):
        self.j_deformable_displacement_joint(label, args, tw, invariant=True)

    def j_deformable_joint(self, label, args, tw, invariant=False):
        """`[invariant] deformable joint` (manual §8.12.15): a 6-D law of the relative
        displacement and rotation (and rates) in the node-1 hinge frame (invariant: mid frame)."""
        n1, f1, R1h, n2, f2, R2h = self.two_node_hinge_sites(args)
        law = self.read_law(args, 6)
        self.model.deformable_joint(label, n1.label, n2.label, law, f1, R1h, f2, R2h, invariant=invariant)

    def j_invariant_deformable_joint(self, label, args, tw):
        self.j_deformable_joint(label, args, tw, invariant=True)

    def j_deformable_axial_joint(self, label, args, tw):
        """`deformable axial joint` (manual §8.12.11): a 1-D law of the relative rotation about
        axis 3 of the node-1 hinge frame; offsets are ignored."""
        n1, R1h, n2, R2h = self.hinge_sites_without_offsets(args)
        law = self.read_law(args, 1)
        self.model.deformable_axial_joint(label, n1.label, n2.label, law, R1h, R2h)

    def j_viscous_body(self, label, args, tw):
        """`viscous body, <node>, [position,] <f> [, orientation, <R>], <6-D viscous law>`
        (manual §8.12.54)."""
        n, site = self.node_site(args)
        f = self.offset(args, site)
        Rh = self.hinge(args, site)
        lw = args.peek()
        law = self.read_law(args, 6)
        if law.elastic:
            raise lw.error("viscous body: the constitutive law must be viscous")
        self.model.viscous_body(label, n.label, law, f, Rh)

    # ------------------------------------------------------------------ beams (§8.3)
    def beam3(self, card, args):
        """`beam3: label, 3 × (node, [position,] offset [, orientation, R]), {R_I | from nodes},
        law_I, {same | R_II | from nodes}, {same | law_II} [, custom output, ...] [, output, ...]`
        (input manual §8.3.2; `beam` is an alias)."""
        self.read_beam(card, args, 3)

    def beam2(self, card, args):
        """`beam2: label, 2 × (node, [position,] offset [, orientation, R]), {R_I | from nodes},
        law_I [, custom output, ...] [, output, ...]` (input manual §8.3.3)."""
        self.read_beam(card, args, 2)

    def read_beam(self, card, args, nn):
        """Beams from decks use MBDyn's incremental rotation interpolation (elements/beam.py)."""
        word = args.peek()
        label = args.label("a beam label")
        args.optional_name()
        self.count("beams", label, word)
        labels, offsets, orientations = [], [], []
        for k in range(nn):
            n, site = self.node_site(args, f"beam node {k + 1}")
            labels.append(n.label)
            offsets.append(self.offset(args, site))
            orientations.append(self.read_orientation(args, "rel", site)
                                if args.is_keyword("orientation", "rot") else None)
        sections, laws = [], []
        for J in range(nn - 1):
            if J > 0 and args.is_keyword("same"):
                sections.append(sections[0])
            elif args.is_keyword("from nodes"):
                sections.append(None)
            else:
                sections.append(self.read_orientation(args, "abs", GLOBAL_SITE))
            if J > 0 and args.is_keyword("same"):
                laws.append(laws[0])
            else:
                laws.append(self.read_law(args, 6))
        output = "beams" in self.default_output
        while args.more():
            ow = args.peek()
            kw = args.expect_keyword("output", "custom output", "piezoelectric actuator",
                                     "inverse dynamics", what="'output' or ';'")
            if kw == "output":
                output = self.read_output_flag(args, "beams")
            elif kw == "inversedynamics":
                self.read_inverse_dynamics_flags(args, ("beam", label), joint=False)
            elif kw == "customoutput":
                while args.more() and args.peek_keyword() != "output":
                    args.take("a custom output flag")
                self.note(ow, "beam custom output affects NetCDF output only; ignored")
            else:
                raise ow.error(not_supported("piezoelectric beams"))
        if nn == 3:
            self.model.beam3(label, *labels, laws[0], laws[1], offsets=offsets, node_orientations=orientations,
                             orientation=sections[0], orientation2=sections[1], output=output,
                             interpolation="incremental")
        else:
            self.model.beam2(label, *labels, laws[0], offsets=offsets, node_orientations=orientations,
                             orientation=sections[0], output=output, interpolation="incremental")

    def hbeam(self, card, args):
        """`hbeam: label, 2 × (node, [position,] offset [, {orientation | rot}, R]), law_6D
        [, output, ...]` (input manual §8.3, experimental; elements/hbeam.py).  Without an
        orientation the end frame is the node frame (MBDyn 1.7's reader uses node 1's input
        orientation as the relative orientation of both ends instead: the same for nodes input
        with `eye`, as in its tests beam/h and hcurl)."""
        word = args.peek()
        label = args.label("a beam label")
        args.optional_name()
        self.count("beams", label, word)
        labels, offsets, orientations = [], [], []
        for k in range(2):
            n, site = self.node_site(args, f"hbeam node {k + 1}")
            labels.append(n.label)
            offsets.append(self.offset(args, site))
            orientations.append(self.read_orientation(args, "rel", site)
                                if args.is_keyword("orientation", "rot") else None)
        law = self.read_law(args, 6)
        output = "beams" in self.default_output
        while args.more():
            ow = args.peek()
            kw = args.expect_keyword("output", "piezoelectric actuator", what="'output' or ';'")
            if kw == "output":
                output = self.read_output_flag(args, "beams")
            else:
                raise ow.error(not_supported("piezoelectric beams"))
        self.model.hbeam(label, labels[0], labels[1], law, offsets=offsets, node_orientations=orientations,
                         output=output)

    def read_mat6(self, args):
        """A Mat6x6: `null | eye | [matr,] 36 | sym, 21 | diag, 6` [, scale, s] (manual §2.3.3)."""
        kw = args.is_keyword("null", "default", "eye", "matr", "sym", "diag")
        if kw in ("null", "default"):
            K = np.zeros((6, 6))
        elif kw == "eye":
            K = np.eye(6)
        elif kw == "diag":
            K = np.diag([args.real("a diagonal entry") for _ in range(6)])
        elif kw == "sym":
            K = np.zeros((6, 6))
            for i in range(6):
                for j in range(i, 6):
                    K[i, j] = K[j, i] = args.real("a matrix entry")
        else:
            K = np.array([args.real("a matrix entry") for _ in range(36)]).reshape(6, 6)
        if args.is_keyword("scale"):
            K = K * args.real("a scale factor")
        return K

    def read_vec6(self, args):
        """`null | default | 6 components [, scale, s]`."""
        return self.read_plain_vector(args, 6)

    def read_tpl_vec6(self, args):
        """TplDriveCaller<Vec6>: `null | [single,] Vec6, d | component, 6 × d | array, n, ...`."""
        if args.is_keyword("null", "zero"):
            return constitutive.TemplateDrive(6)
        if args.is_keyword("component"):
            terms = []
            for k in range(6):
                if not args.is_keyword("inactive"):
                    terms.append((np.eye(6)[k], self.read_drive(args)))
            return constitutive.TemplateDrive(6, terms)
        if args.is_keyword("array"):
            n = args.integer("the number of template drives")
            terms = []
            for _ in range(n):
                terms += self.read_tpl_vec6(args).terms
            return constitutive.TemplateDrive(6, terms)
        args.is_keyword("single")
        v = self.read_vec6(args)
        return constitutive.TemplateDrive(6, [(v, self.read_drive(args))])

    # ------------------------------------------------------------------ constitutive laws (§2.10)
    def law_reference(self, args, dim):
        """`reference, label` to a `constitutive law:` of the given dimension (manual §2.10)."""
        lw = args.peek()
        label = args.label("a constitutive law label")
        entry = self.laws.get(label)
        if entry is None:
            raise lw.error(f"constitutive law {label} is not defined")
        if entry[0] != dim:
            raise lw.error(f"constitutive law {label} is {entry[0]}-D; a {dim}-D law is required")
        return entry[1]

    def unknown_law(self, name):
        if name.keyword in KNOWN_LAWS:
            return name.error(not_supported(f"{_shown(name.text)} (constitutive law)"))
        return name.error(f"syntax error: unknown constitutive law '{name.text}'")

    def read_law(self, args, dim):
        """A constitutive law of dimension 1, 3 or 6 (input manual §2.10), as a constitutive.Law:
        `linear elastic [isotropic], k`, `linear elastic generic, K`, `linear viscous [isotropic |
        generic], C`, `linear viscoelastic [isotropic | generic], K, {C | proportional, r}`,
        `linear time variant viscoelastic generic, K, sK, {C | proportional, r}, {same | sC}`,
        `cubic elastic generic, k1, k2, k3` (1-D and 3-D, as MBDyn), `drive caller wrapper, w,
        <law>`, `reference, <label>`; then [, prestress, <Entity>] [, prestrain, <TplDriveCaller>].
        The scalars, matrices and vectors are those of the dimension (scalar, Mat3x3/Vec3,
        Mat6x6/Vec6)."""
        if args.is_keyword("reference"):
            return self.law_reference(args, dim)
        name = args.take("a constitutive law")
        kw = name.keyword
        cl = constitutive
        if kw == "drivecallerwrapper":
            w = self.read_drive(args)
            return cl.scaled(self.read_law(args, dim), w)
        generic = kw.endswith("generic")

        def matrix(what):             # (DerivativeOf)Entity: scalar, Mat3x3 or Mat6x6
            if not generic or dim == 1:
                return args.real(what)
            return self.read_mat3(args) if dim == 3 else self.read_mat6(args)

        def viscosity_of(K):          # `C` or `proportional, r`
            if args.is_keyword("proportional"):
                return np.asarray(K, float) * args.real("the proportional factor")
            return matrix("the viscosity")

        if kw in ("linearelastic", "linearelasticisotropic", "linearelasticgeneric"):
            law = cl.linear_elastic(dim, matrix("the stiffness"))
        elif kw in ("linearviscous", "linearviscousisotropic", "linearviscousgeneric"):
            law = cl.linear_viscous(dim, matrix("the viscosity"))
        elif kw in ("linearviscoelastic", "linearviscoelasticisotropic", "linearviscoelasticgeneric"):
            K = matrix("the stiffness")
            law = cl.linear_viscoelastic(dim, K, viscosity_of(K))
        elif kw == "lineartimevariantviscoelasticgeneric":
            K = matrix("the stiffness")
            sK = self.read_drive(args)
            C = viscosity_of(K)
            sC = sK if args.is_keyword("same") else self.read_drive(args)
            law = cl.linear_viscoelastic(dim, K, C, stiffness_scale=sK, viscosity_scale=sC)
        elif kw == "cubicelasticgeneric" and dim in (1, 3):
            k1, k2, k3 = (self.read_entity(args, dim, what) for what in
                          ("the linear coefficient", "the quadratic coefficient", "the cubic coefficient"))
            law = cl.cubic_elastic(dim, k1, k2, k3)
        else:
            raise self.unknown_law(name)
        while args.peek_keyword() in ("prestress", "prestrain"):
            pw = args.peek()
            if args.is_keyword("prestress"):
                law.prestress = self.read_entity(args, dim, "the prestress") * np.ones(dim)
            else:
                args.is_keyword("prestrain")
                if not law.elastic:
                    raise pw.error("a viscous law has no prestrain")
                law.prestrain = self.read_tpl_entity(args, dim)
        return law

    def read_entity(self, args, dim, what):
        """An Entity of the law's dimension: a scalar, a Vec3 or a Vec6."""
        if dim == 1:
            return np.array([args.real(what)])
        return self.read_plain_vector(args, dim)

    def read_tpl_entity(self, args, dim):
        """TplDriveCaller<Entity> of the law's dimension, as a constitutive.TemplateDrive."""
        if dim == 1:
            return constitutive.TemplateDrive(1, [(np.ones(1), self.read_tpl_scalar(args))])
        if dim == 3:
            return constitutive.TemplateDrive.of(self.read_tpl_vec3(args, "rel direction", GLOBAL_SITE), 3)
        return self.read_tpl_vec6(args)

    # ------------------------------------------------------------------ geometry readers (§2.3)
    def read_prefix(self, args, site, vector):
        """`reference, {global | node | local | other position | other orientation | other node
        | <label>}` (manual §2.4.8.1): the frame P the entity is given in, or None."""
        if not args.is_keyword("reference"):
            return None
        w = args.peek()
        kw = args.is_keyword("global", "node", "local", "other position", "other orientation", "other node")
        if kw == "global":
            return GLOBAL
        if kw == "node":
            return site.frame
        if kw == "local":
            if vector:
                M = self.read_plain_orientation(args)
                return replace(site.frame, R=site.frame.R @ M)
            return site.frame
        if kw is not None:
            if site.other is None:
                raise w.error(f"'reference, {w.text}' is only valid for the second node of a joint")
            o = site.other
            if kw == "otherposition":
                return replace(o, x=o.x + o.R @ site.other_offset)
            if kw == "otherorientation":
                return replace(o, R=o.R @ site.other_orientation)
            return o
        return self.frame_by_label(args)

    def read_vec3(self, args, kind, site=GLOBAL_SITE, at=None):
        """A Vec3 of the given kind (spec §3.2 table), with its optional frame prefix."""
        P = self.read_prefix(args, site, vector=True)
        value = self.read_plain_vec3(args)
        if P is None:
            P = site.frame if kind in RELATIVE_KINDS else GLOBAL
        g = vector_to_global(kind, value, P, at if at is not None else P.x)
        return vector_from_global(kind, g, site.frame)

    def read_plain_vec3(self, args):
        """`null | default | x, y, z [, scale, s]` (manual §2.3.1)."""
        return self.read_plain_vector(args, 3)

    def read_plain_vector(self, args, n):
        """An n-vector without frame: `null | default | n components [, scale, s]`."""
        if args.is_keyword("null", "default"):
            return np.zeros(n)
        v = np.array([args.real("a vector component") for _ in range(n)])
        if args.is_keyword("scale"):
            v = v * args.real("a scale factor")
        return v

    def read_orientation(self, args, kind, site=GLOBAL_SITE):
        """An orientation matrix, relative ('rel') or absolute ('abs') (spec §3.2, §3.5)."""
        P = self.read_prefix(args, site, vector=False)
        A = self.read_plain_orientation(args)
        if P is None:
            P = site.frame if kind == "rel" else GLOBAL
        Rg = P.R @ A
        return site.frame.R.T @ Rg if kind == "rel" else Rg

    def read_plain_orientation(self, args):
        """`eye | matr, 9 [, tolerance, t] | euler*, [degrees,] 3 | vector, 3 | two vectors`."""
        w = args.peek()
        kw = args.is_keyword("eye", "matr", "euler", "euler123", "euler313", "euler321", "vector",
                             "null", "euler parameters")
        if kw == "eye":
            return I3.copy()
        if kw == "matr":
            R = np.array([args.real("a matrix entry") for _ in range(9)]).reshape(3, 3)
            tol = args.real("a tolerance") if args.is_keyword("tolerance") else 1e-12
            if np.abs(R.T @ R - I3).max() > max(tol, 1e-12):
                self.note(w, "orientation matrix given with 'matr' is not orthogonal within the tolerance")
            return R
        if kw in ("euler", "euler123", "euler313", "euler321"):
            scale = math.pi / 180.0 if args.is_keyword("degrees") else 1.0
            angles = np.array([args.real("an Euler angle") for _ in range(3)]) * scale
            to_R = {"euler313": rot.euler313_to_R, "euler321": rot.euler321_to_R}.get(kw, rot.euler123_to_R)
            return to_R(angles)
        if kw == "vector":
            return rot.exp_rotvec(np.array([args.real("a rotation vector component") for _ in range(3)]))
        if kw == "null":
            raise w.error("syntax error: 'null' is not an orientation matrix (use 'eye')")
        if kw == "eulerparameters":
            raise w.error(not_supported("euler parameters"))
        i1 = args.integer("an orientation: 'eye', 'matr', 'euler', 'vector' or an axis index (1, 2, 3)")
        v1 = np.array([args.real("a vector component") for _ in range(3)])
        i2 = args.integer("the second axis index (1, 2, 3)")
        if args.is_keyword("guess"):
            if np.linalg.norm(v1) == 0:
                raise w.error("orientation: the first vector is null")
            v2 = guess_orthogonal(v1)
        else:
            v2 = np.array([args.real("a vector component") for _ in range(3)])
        return two_vector_orientation(i1, v1, i2, v2, w)

    def read_mat3(self, args, site=GLOBAL_SITE):
        """A Mat3x3 of the relative kind (body inertia, spec §3.2): `null | default | eye |
        [matr,] 9 | sym, 6 | diag, 3 | skew, 3`, optional `scale, s` (manual §2.3.3)."""
        P = self.read_prefix(args, site, vector=False)
        w = args.peek()
        kw = args.is_keyword("null", "default", "eye", "matr", "sym", "diag", "skew")
        if kw in ("null", "default"):
            return np.zeros((3, 3))
        if kw == "eye":
            J = I3.copy()
        elif kw == "sym":
            a = [args.real("a matrix entry") for _ in range(6)]
            J = np.array([[a[0], a[1], a[2]], [a[1], a[3], a[4]], [a[2], a[4], a[5]]])
        elif kw == "diag":
            J = np.diag([args.real("a diagonal entry") for _ in range(3)])
        elif kw == "skew":
            J = rot.skew(np.array([args.real("a vector component") for _ in range(3)])).T
            self.note(w, "skew matrix: built as the transpose of v× (reference implementation)")
        else:
            J = np.array([args.real("a matrix entry") for _ in range(9)]).reshape(3, 3)
        if args.is_keyword("scale"):
            J = J * args.real("a scale factor")
        if P is None:
            return J
        Jg = P.R @ J @ P.R.T
        return site.frame.R.T @ Jg @ site.frame.R

    # ------------------------------------------------------------------ drive callers (§2.6)
    def read_drive(self, args, argument_is_time=True):
        """A DriveCaller (manual §2.6): a type keyword and its data, `reference, label`, or a
        plain number (a `const` drive)."""
        w = args.peek()
        if w is None:
            raise args.card.end.error("syntax error: a drive caller expected before ';'")
        kw = w.keyword
        reader = DRIVE_READERS.get(kw)
        if reader is not None:
            args.i += 1
            try:
                return reader(self, args, w, argument_is_time)
            except ValueError as e:
                raise w.error(f"{w.text} drive: {e}") from None
        if kw in {normalize(d) for d in UNSUPPORTED_DRIVES}:
            raise w.error(not_supported(f"{_shown(w.text)} (drive caller)"))
        return ConstDrive(args.real("a drive caller"))

    def d_const(self, args, w, at):
        return ConstDrive(args.real("the constant value"))

    def d_null(self, args, w, at):
        return NullDrive()

    def d_unit(self, args, w, at):
        return OneDrive()

    def d_time(self, args, w, at):
        return TimeDrive()

    def d_linear(self, args, w, at):
        return LinearDrive(*(args.real(n) for n in ("the constant term", "the slope")))

    def d_parabolic(self, args, w, at):
        return ParabolicDrive(*(args.real("a coefficient") for _ in range(3)))

    def d_cubic(self, args, w, at):
        return CubicDrive(*(args.real("a coefficient") for _ in range(4)))

    def d_step(self, args, w, at):
        return StepDrive(*(args.real(n) for n in ("the initial time", "the step value", "the initial value")))

    def d_double_step(self, args, w, at):
        return DoubleStepDrive(*(args.real(n) for n in ("the initial time", "the final time",
                                                         "the step value", "the initial value")))

    def time_or_forever(self, args, what):
        return "forever" if args.is_keyword("forever") else args.real(what)

    def d_ramp(self, args, w, at):
        slope, t0 = args.real("the slope"), args.real("the initial time")
        t1 = self.time_or_forever(args, "the final time")
        return RampDrive(slope, t0, t1, args.real("the initial value"))

    def d_double_ramp(self, args, w, at):
        a = [args.real("the ascending slope"), args.real("the ascending initial time"),
             args.real("the ascending final time"), args.real("the descending slope"),
             self.time_or_forever(args, "the descending initial time"),
             self.time_or_forever(args, "the descending final time"), args.real("the initial value")]
        return DoubleRampDrive(*a)

    def read_harmonic(self, args, cls):
        t0, omega, amp = args.real("the initial time"), args.real("omega"), args.real("the amplitude")
        cycles = args.is_keyword("forever", "one", "half")
        if cycles is None:
            cycles = args.integer("the number of cycles")
        return cls(t0, omega, amp, cycles, args.real("the initial value"))

    def d_sine(self, args, w, at):
        return self.read_harmonic(args, SineDrive)

    def d_cosine(self, args, w, at):
        return self.read_harmonic(args, CosineDrive)

    def d_tanh(self, args, w, at):
        return TanhDrive(*(args.real(n) for n in ("the initial time", "the amplitude", "the slope",
                                                   "the initial value")))

    def d_step5(self, args, w, at):
        return Step5Drive(*(args.real(n) for n in ("the initial time", "the initial value",
                                                    "the final time", "the final value")))

    def d_exponential(self, args, w, at):
        return ExponentialDrive(*(args.real(n) for n in ("the amplitude", "the time constant",
                                                          "the initial time", "the initial value")))

    def d_piecewise_linear(self, args, w, at):
        n = args.integer("the number of points")
        if n < 2:
            raise w.error("piecewise linear drive: at least two points are needed")
        return PiecewiseLinearDrive([[args.real("an abscissa"), args.real("a value")] for _ in range(n)])

    def d_string(self, args, w, at):
        """`string, "<expression>"` (manual §2.6.33): compiled once; `Time` and `Var` free."""
        sw = args.peek()
        text = args.string("an expression in double quotes")
        uses_var = re.search(r"\bVar\b", text) is not None
        uses_time = re.search(r"\bTime\b", text) is not None
        try:
            if at and uses_var:
                drive = ArgumentExpressionDrive(text, self.parser)
            elif not at:
                if uses_time:
                    raise sw.error(not_supported("'Time' in a string drive whose argument is not time"))
                drive = ExpressionDrive(text, self.parser, variable="Var")
            else:
                drive = ExpressionDrive(text, self.parser, variable="Time")
        except MathError as e:
            raise sw.error(f"math error in string drive: {e}") from None
        # model::node::<type> and model::element::<type> read the simulation state
        # (engine/privdata.py); the other model:: functions are evaluated on the initial
        # configuration only, which would be wrong at run time
        if any(f.name.startswith("model::") and f.state_source is None
               for f in drive.expression.called_functions()):
            raise sw.error(not_supported("model:: functions in string drives (state-dependent drives)"))
        return drive

    def d_mult(self, args, w, at):
        return ProductDrive(self.read_drive(args, at), self.read_drive(args, at))

    def d_array(self, args, w, at):
        n = args.integer("the number of drives")
        if n < 1:
            raise w.error("array drive: at least one drive is needed")
        drives = [self.read_drive(args, at) for _ in range(n)]
        return drives[0] if n == 1 else SumDrive(drives)

    def d_drive(self, args, w, at):
        outer = self.read_drive(args, argument_is_time=False)
        inner = self.read_drive(args, at)
        return ComposedDrive(outer, inner)

    def d_element(self, args, w, at):
        """`element, <label>, <type>, [{string, "<name>" | name, "<name>" | index, <i>},]
        (DriveCaller)` (manual §2.6): the drive of an element private datum on the current
        state (engine/privdata.py ElementDrive)."""
        from mbdae.engine.core.privdata import ElementDrive
        label, kind = self.read_element_reference(args, "element drive")
        nw = args.peek()
        if args.is_keyword("string", "name"):
            nw = args.peek()
            name = args.string("a private data name")
            self.check_private_name(nw, kind, label, name)
        elif args.is_keyword("index"):
            raise nw.error(not_supported("element drive by private data index (use string, \"<name>\")"))
        else:
            raise nw.error("syntax error: string, \"<private data name>\" expected")
        return ElementDrive(self.namespace, kind, label, name, self.read_drive(args, argument_is_time=False))

    def d_periodic(self, args, w, at):
        t0, period = args.real("the initial time"), args.real("the period")
        return PeriodicDrive(t0, period, self.read_drive(args, argument_is_time=False))

    def d_direct(self, args, w, at):
        return TimeDrive()

    def d_reference(self, args, w, at):
        lw = args.peek()
        label = args.label("a drive caller label")
        drive = self.drives.get(label)
        if drive is None:
            raise lw.error(f"drive caller {label} is not defined")
        return drive

    def d_postponed(self, args, w, at):
        lw = args.peek()
        drive = PostponedDrive(args.label("a drive caller label"), self.drives, lw)
        self.postponed.append(drive)
        return drive

    # ------------------------------------------------------------------ template drives (§2.6.42)
    def read_tpl_vec3(self, args, kind, site):
        """TplDriveCaller<Vec3>: `reference, label | null | [single,] v, d | component, d1, d2, d3
        | array, n, ...` (spec §5.3)."""
        w = args.peek()
        if args.is_keyword("reference"):
            lw = args.peek()
            label = args.label("a template drive caller label")
            entry = self.tpl_drives.get(label)
            if entry is None:
                raise lw.error(f"template drive caller {label} is not defined")
            if entry[0] != 3:
                raise lw.error(f"template drive caller {label} is not 3-D")
            return entry[1]
        if args.is_keyword("null", "zero"):
            return VectorDrive.null()
        if args.is_keyword("component"):
            if args.is_keyword("sym", "diag"):
                raise w.error("syntax error: 'sym'/'diag' apply to matrix template drives only")
            drives = [None if args.is_keyword("inactive") else self.read_drive(args) for _ in range(3)]
            return VectorDrive.component(drives)
        if args.is_keyword("array"):
            n = args.integer("the number of template drives")
            terms = []
            for _ in range(n):
                terms += self.read_tpl_vec3(args, kind, site).terms
            return VectorDrive(terms)
        args.is_keyword("single")
        vector = self.read_vec3(args, kind, site)
        return VectorDrive.single(vector, self.read_drive(args))

    def read_tpl_scalar(self, args):
        """TplDriveCaller<scalar> (prestrain): `reference, label | null | single, d | component, d
        | array, n, ... | d` (spec §5.3)."""
        if args.is_keyword("reference"):
            lw = args.peek()
            label = args.label("a template drive caller label")
            entry = self.tpl_drives.get(label)
            if entry is None or entry[0] != 1:
                raise lw.error(f"1-D template drive caller {label} is not defined")
            return entry[1]
        if args.is_keyword("null", "zero"):
            return NullDrive()
        if args.is_keyword("array"):
            n = args.integer("the number of template drives")
            return SumDrive([self.read_tpl_scalar(args) for _ in range(n)])
        args.is_keyword("single", "component")
        return self.read_drive(args)

    # ------------------------------------------------------------------ summary
    def summary(self):
        from collections import Counter
        m = self.model
        return dict(
            nodes=Counter(s.kind for s in m.nodes), dummy_nodes=len(m.dummy_nodes),
            bodies=len(m.bodies), joints=Counter(s.type for s in m.joints), rods=len(m.rods),
            forces=Counter(f"{s.frame} {s.kind}{' internal' if s.node2 is not None else ''}" for s in m.forces),
            gravity=m.gravity_vector is not None)


# =========================================================================== helpers

def condense_masses(masses):
    """`condense`: total mass, centre of mass and inertia about it (manual §8.4)."""
    m = sum(mi for mi, _, _ in masses)
    if m == 0:
        return 0.0, np.zeros(3), sum(J for _, _, J in masses)
    xcg = sum(mi * xi for mi, xi, _ in masses) / m
    J_node = sum(Ji - mi * rot.skew(xi) @ rot.skew(xi) for mi, xi, Ji in masses)
    return m, xcg, J_node + m * rot.skew(xcg) @ rot.skew(xcg)


def single_term(drive, word, what):
    """(vector, scalar drive) of a template drive usable as vector × drive."""
    if drive.is_null:
        return np.zeros(3), ConstDrive(0.0)
    if len(drive.terms) == 1:
        return drive.terms[0]
    if all(d is drive.terms[0][1] for _, d in drive.terms):
        return sum(a for a, _ in drive.terms), drive.terms[0][1]
    values = [constant_value(d) for _, d in drive.terms]
    if all(v is not None for v in values):
        return sum(a * v for (a, _), v in zip(drive.terms, values)), ConstDrive(1.0)
    raise word.error(not_supported(f"{what} with independently driven components"))


def inertia_summary(label, name, model, nodes, labels, X, R, word):
    """Mass, centre of mass and inertia (about it, in frame R) of the selected bodies at the
    initial configuration, as .log lines."""
    specs = [b for b in model.bodies if labels is None or b.label in labels]
    if labels is not None:
        missing = sorted(set(labels) - {b.label for b in specs})
        if missing:
            raise word.error(f"inertia {label}: Body({missing[0]}) is not defined")
    m, s, J = 0.0, np.zeros(3), np.zeros((3, 3))
    points = []
    for b in specs:
        f = nodes[b.node].frame
        c = f.x + f.R @ b.xcg
        points.append((b.mass, c, f.R @ b.J_cg @ f.R.T))
        m += b.mass
        s += b.mass * c
    cg = s / m if m else np.zeros(3)
    for mi, c, Jc in points:
        d = c - cg
        J += Jc + mi * (d @ d * I3 - np.outer(d, d))
    J_local = R.T @ J @ R
    fmt = lambda a: " ".join(f"{v:.6e}" for v in np.ravel(a))
    head = f"inertia: {label}" + (f" \"{name}\"" if name else "")
    return [head, f"    mass:        {m:.6e}", f"    J:           {fmt(J_local)}",
            f"    Xcg:         {fmt(R.T @ (cg - X))}", f"    bodies:      {len(specs)}"]


def _format_remark(value):
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# =========================================================================== dispatch tables

def _table(pairs):
    return {normalize(k): v for k, v in pairs}


R = DeckReader
DIRECTIVES = _table([
    ("set", R.dir_set), ("remark", R.dir_remark), ("include", R.dir_include),
    ("print symbol table", R.dir_print_symbol_table), ("setenv", R.dir_setenv), ("exit", R.dir_exit),
    ("license", R.dir_license), ("warranty", R.dir_license), ("reference", R.dir_reference),
    ("drive caller", R.dir_drive_caller), ("template drive caller", R.dir_template_drive_caller),
    ("constitutive law", R.dir_constitutive_law), ("scalar function", R.dir_scalar_function),
    ("chdir", R.dir_unsupported), ("module load", R.dir_unsupported),
    ("hydraulic fluid", R.dir_unsupported), ("c81 data", R.dir_unsupported),
])
DATA_CARDS = _table([("problem", R.card_problem), ("integrator", R.card_problem)])
PROBLEM_CARDS = _table([
    ("initial time", R.iv_initial_time), ("final time", R.iv_final_time), ("time step", R.iv_time_step),
    ("min time step", R.iv_min_time_step), ("max time step", R.iv_max_time_step),
    ("strategy", R.iv_strategy), ("tolerance", R.iv_tolerance), ("max iterations", R.iv_max_iterations),
    ("method", R.iv_method), ("nonlinear solver", R.iv_nonlinear_solver),
    ("newton raphson", R.iv_newton_raphson), ("linear solver", R.iv_linear_solver),
    ("solver", R.iv_linear_solver), ("threads", R.iv_threads), ("output", R.iv_output),
    ("output meter", R.iv_output_meter), ("abort after", R.iv_abort_after),
    ("derivatives tolerance", R.iv_derivatives_tolerance),
    ("derivatives max iterations", R.iv_derivatives_max_iterations),
    ("derivatives coefficient", R.iv_derivatives_coefficient),
    ("dummy steps number", R.iv_dummy_steps_number), ("dummy steps ratio", R.iv_dummy_steps_ratio),
    ("fictitious steps number", R.iv_dummy_steps_number),
    ("fictitious steps ratio", R.iv_dummy_steps_ratio),
    ("eigenanalysis", R.iv_eigenanalysis), ("eigen analysis", R.iv_eigenanalysis),
])
INVERSE_CARDS = {**PROBLEM_CARDS, **_table([
    ("problem type", R.id_problem_type), ("max iterations", R.id_max_iterations),
    ("modify residual test", R.cd_accepted_note), ("full residual test", R.cd_accepted_note),
])}
UNSUPPORTED_PROBLEM_CARDS = _table([
    ("modify residual test", None), ("enforce constraint equations", None),
    ("real time", None), ("dummy steps tolerance", None),
    ("dummy steps max iterations", None), ("dummy steps method", "dummy steps use Crank-Nicolson"),
    ("fictitious steps tolerance", None), ("fictitious steps max iterations", None),
    ("fictitious steps method", "dummy steps use Crank-Nicolson"),
    ("problem type", "inverse dynamics"), ("full residual test", None),
])
CONTROL_CARDS = _table(
    [(k, R.cd_counter) for k in COUNTERS] + [
        ("automatic structural elements", R.cd_automatic_structural), ("gravity", R.cd_gravity),
        ("air properties", R.cd_air_properties),
        ("skip initial joint assembly", R.cd_skip_initial_joint_assembly),
        ("initial stiffness", R.cd_initial_stiffness), ("stiffness", R.cd_initial_stiffness),
        ("omega rotates", R.cd_omega_rotates), ("tolerance", R.cd_tolerance),
        ("initial tolerance", R.cd_tolerance), ("max iterations", R.cd_max_iterations),
        ("max initial iterations", R.cd_max_iterations), ("title", R.cd_title), ("print", R.cd_print),
        ("default output", R.cd_default_output), ("output frequency", R.cd_output_frequency),
        ("output precision", R.cd_output_precision), ("output results", R.cd_output_results),
        ("default orientation", R.cd_default_orientation), ("output units", R.cd_accepted_note),
        ("select timeout", R.cd_accepted_note), ("default beam output", R.cd_accepted_note),
        ("default aerodynamic output", R.cd_accepted_note), ("loadable path", R.cd_accepted_note),
        ("use automatic differentiation", R.cd_accepted_note),
        ("finite difference jacobian meter", R.cd_accepted_note),
        ("linear solver", R.iv_linear_solver), ("solver", R.iv_linear_solver),
        ("threads", R.iv_threads), ("model", R.cd_model),
    ])
UNSUPPORTED_CONTROL_CARDS = _table([
    ("use", "only joints take part in mbdae's initial assembly"),
    ("initial assembly of deformable and force elements", "only joints take part in mbdae's initial assembly"),
    ("make restart file", None), ("load restart file", None),
    ("output meter", "use 'output frequency'"), ("default scale", "residual scaling"),
    ("rigid body kinematics", "moving-frame models"), ("jacobian check", None),
])
UNSUPPORTED_CARDS = {"initial value": UNSUPPORTED_PROBLEM_CARDS, "control data": UNSUPPORTED_CONTROL_CARDS}
NODE_CARDS = _table([("structural", R.node_structural), ("output", R.node_output),
                     ("parameter", R.node_parameter), ("abstract", R.node_abstract)]
                    + [(k, R.node_unsupported) for k in NODE_TYPES if k not in ("structural", "parameter", "abstract")])
DRIVER_CARDS = _table([("file", R.driver_file)])
ELEMENT_CARDS = _table(
    [("body", R.body), ("gravity", R.gravity), ("force", R.force), ("couple", R.couple),
     ("joint", R.joint), ("inertia", R.inertia), ("output", R.element_output),
     ("beam", R.beam3), ("beam3", R.beam3), ("beam2", R.beam2), ("hbeam", R.hbeam), ("driven", R.driven), ("bind", R.bind),
     ("joint regularization", R.joint_regularization), ("genel", R.genel)]
    + [(k, R.element_unsupported) for k in UNSUPPORTED_ELEMENTS])
JOINT_READERS = _table([
    ("clamp", R.j_clamp), ("spherical hinge", R.j_spherical_hinge), ("spherical pin", R.j_spherical_pin),
    ("pin", R.j_spherical_pin), ("revolute hinge", R.j_revolute_hinge), ("plane hinge", R.j_revolute_hinge),
    ("revolute pin", R.j_revolute_pin), ("plane pin", R.j_revolute_pin),
    ("cardano hinge", R.j_cardano_hinge), ("universal hinge", R.j_cardano_hinge),
    ("in line", R.j_in_line), ("in plane", R.j_in_plane), ("prismatic", R.j_prismatic),
    ("distance", R.j_distance), ("distance with offset", R.j_distance_with_offset),
    ("drive hinge", R.j_drive_hinge), ("drive displacement", R.j_drive_displacement),
    ("drive displacement pin", R.j_drive_displacement_pin),
    ("imposed displacement", R.j_imposed_displacement),
    ("imposed displacement pin", R.j_imposed_displacement_pin),
    ("axial rotation", R.j_axial_rotation), ("total joint", R.j_total_joint),
    ("total pin joint", R.j_total_pin_joint), ("total equation", R.j_total_equation),
    ("total internal reaction", R.j_total_internal_reaction), ("rod", R.j_rod), ("rod with offset", R.j_rod_with_offset),
    ("deformable hinge", R.j_deformable_hinge),
    ("deformable displacement joint", R.j_deformable_displacement_joint),
    ("deformable displacement hinge", R.j_deformable_displacement_joint),
    ("invariant deformable hinge", R.j_invariant_deformable_hinge),
    ("invariant deformable displacement joint", R.j_invariant_deformable_displacement_joint),
    ("deformable joint", R.j_deformable_joint), ("invariant deformable joint", R.j_invariant_deformable_joint),
    ("deformable axial joint", R.j_deformable_axial_joint), ("viscous body", R.j_viscous_body),
])
DRIVE_READERS = _table([
    ("const", R.d_const), ("null", R.d_null), ("zero", R.d_null), ("unit", R.d_unit), ("one", R.d_unit),
    ("time", R.d_time), ("direct", R.d_direct), ("linear", R.d_linear), ("parabolic", R.d_parabolic),
    ("cubic", R.d_cubic), ("step", R.d_step), ("double step", R.d_double_step), ("ramp", R.d_ramp),
    ("double ramp", R.d_double_ramp), ("sine", R.d_sine), ("cosine", R.d_cosine), ("tanh", R.d_tanh),
    ("step5", R.d_step5), ("exponential", R.d_exponential), ("piecewise linear", R.d_piecewise_linear),
    ("string", R.d_string), ("mult", R.d_mult), ("array", R.d_array), ("drive", R.d_drive),
    ("periodic", R.d_periodic), ("reference", R.d_reference), ("postponed", R.d_postponed),
    ("element", R.d_element),
])
del R
KNOWN_LAWS = {normalize(k) for k in (
    "linear elastic generic axial torsion coupling", "cubic elastic generic", "inverse square elastic",
    "log elastic", "linear elastic bistop", "double linear elastic", "isotropic hardening elastic",
    "scalar function elastic", "scalar function elastic isotropic", "scalar function elastic orthotropic",
    "linear time variant viscoelastic generic", "linear viscoelastic generic axial torsion coupling",
    "cubic viscoelastic generic", "double linear viscoelastic", "turbulent viscoelastic",
    "linear viscoelastic bistop", "shock absorber", "symbolic elastic", "symbolic viscous",
    "symbolic viscoelastic", "ann elastic", "ann viscoelastic", "nlsf elastic", "nlsf viscous",
    "nlsf viscoelastic", "nlp elastic", "nlp viscous", "nlp viscoelastic", "array", "axial wrapper",
    "bistop", "drive caller wrapper", "invariant angular", "contact elastic")}
METHOD_ALIASES = {"cranknicolson": "crank nicolson", "cranknicholson": "crank nicolson",
                  "impliciteuler": "implicit euler", "ms2": "ms", "nostro": "ms", "thirdorder": "thirdorder"}
METHODS_WITHOUT_RADIUS = ("crank nicolson", "implicit euler", "bdf", "dirk33", "dirk43", "dirk54")
KNOWN_METHODS = {normalize(k) for k in ("ms", "ms2", "ms3", "ms4", "ss2", "ss3", "ss4", "hope", "bathe",
                                        "msstc3", "mssth3", "msstc4", "mssth4", "msstc5", "mssth5",
                                        "crank nicolson", "implicit euler", "dirk33", "dirk43", "dirk54",
                                        "bdf", "hybrid", "third order", "nostro")}
SOLVER_OUTPUT_ITEMS = ("iterations", "residual", "solution", "jacobian matrix", "jacobian", "messages",
                       "counter", "bailout", "matrix condition number", "solver condition number",
                       "cpu time", "none")
LINEAR_SOLVER_FLAGS = {normalize(k) for k in ("map", "cc", "dir", "grad", "colamd", "mmdata", "amd",
                                              "given", "metis", "nested dissection", "rcmk", "king",
                                              "sloan", "md", "ccamd", "sparse", "dense")}
LINEAR_SOLVER_VALUES = {normalize(k): n for k, n in (
    ("mt", 1), ("multithread", 1), ("workspace size", 1), ("pivot factor", 1), ("drop tolerance", 1),
    ("block size", 1), ("scale", 0), ("scale tolerance", 1), ("scale iterations", 1),
    ("verbose", 1))}
LINEAR_SOLVER_SCALINGS = ("no", "always", "once", "row max", "row sum", "column max", "column sum",
                          "lapack", "iterative", "row max column max")
NODE_OPTION_WORDS = {normalize(k) for k in ("assembly", "scale", "output", "accelerations",
                                            "output inertia", "prediction node")}
