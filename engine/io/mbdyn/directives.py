"""Directives of MBDyn decks, valid anywhere (manual §2.4): `set`, `include`, `reference`,
`drive caller`, `constitutive law` ..., and the `model::` functions of the math parser
(§2.2.1): the reader's ``Directives`` part and its table."""
from __future__ import annotations

import math
import os

import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core import scalar_functions as sf
from mbdae.engine.core.privdata import ModelNamespace
from mbdae.elements.aerodynamic import read_c81_data
from mbdae.engine.io.mbdyn.args import Args
from mbdae.engine.io.mbdyn.geometry import GLOBAL, GLOBAL_SITE, Frame, denavit_hartenberg
from mbdae.engine.io.mbdyn.lexer import Source, normalize, not_supported, scan_cards, shown, table

MAX_INCLUDE_DEPTH = 100


class Directives:
    """Reader part: the directives and the `model::` functions."""

    def register_model_functions(self):
        """`model::` functions evaluated at input time on the initial configuration (manual §2.2.1)."""
        frame = self.model_node_frame
        register = self.parser.register_function
        register("model::distance", lambda a, b: float(np.linalg.norm(frame(b).x - frame(a).x)), 2)
        # previous step (at input: the initial configuration) and relative rotation vector
        # of R_aᵀ R_b (`anglerel`), as MBDyn's model namespace
        register("model::distance_prev", lambda a, b: float(np.linalg.norm(frame(b, True).x - frame(a, True).x)), 2)
        for suffix, prev in (("", False), ("_prev", True)):
            register(f"model::anglerel{suffix}",
                     lambda a, b, p=prev: float(np.linalg.norm(self.model_anglerel(a, b, p))), 2)
            for k, axis in enumerate("xyz"):
                register(f"model::{axis}anglerel{suffix}",
                         lambda a, b, k=k, p=prev: float(self.model_anglerel(a, b, p)[k]), 2)
        self.register_model_components()
        register("model::current", self.model_current, 1)
        # `model::drive(label, t)`: drive caller `label` at t (§2.2.1); a function of its
        # arguments only (no model state), with its time derivative
        register("model::drive", lambda label, t: self.model_drive(label).value(t), 2,
                 derivatives={1: lambda label, t: self.model_drive(label).derivative(t)})
        # model::node::structural and model::element::<type> on the simulation state
        self.namespace = ModelNamespace().register(self.parser)

    def register_model_components(self):
        """`model::{x|y|z}{distance|position}[_prev]` and `model::{x|y|z}velocity`."""
        frame = self.model_node_frame
        register = self.parser.register_function
        for k, axis in enumerate("xyz"):
            register(f"model::{axis}distance_prev",
                     lambda a, b, k=k: float(frame(b, True).x[k] - frame(a, True).x[k]), 2)
            register(f"model::{axis}position_prev", lambda a, k=k: float(frame(a, True).x[k]), 1)
        for k, axis in enumerate("xyz"):
            register(f"model::{axis}distance", lambda a, b, k=k: float(frame(b).x[k] - frame(a).x[k]), 2)
            register(f"model::{axis}position", lambda a, k=k: float(frame(a).x[k]), 1)
            register(f"model::{axis}velocity", lambda a, k=k: float(frame(a).v[k]), 1)

    def model_node_frame(self, label, prev=False):
        """The frame of structural node `label` for the `model::` functions: initial, or the
        state's while a driven element's hint is re-read."""
        view = self.live_view
        if view is not None:
            return Frame(*(np.array(f(int(label), prev)) for f in (
                view.position, view.orientation, view.velocity, view.angular_velocity)))
        info = self.nodes.get(int(label))
        if info is None:
            raise ValueError(f"structural node {int(label)} is not defined")
        return info.frame

    def model_anglerel(self, a, b, prev=False):
        """Rotation vector of R_aᵀ R_b."""
        return rot.log_rotvec(self.model_node_frame(a, prev).R.T @ self.model_node_frame(b, prev).R)

    def model_drive(self, label):
        """The drive caller `label` (defined by the time the expression is evaluated)."""
        drive = self.drives.get(int(label))
        if drive is None:
            raise ValueError(f"model::drive: drive caller {int(label)} is not defined")
        return drive

    def model_current(self, name):
        """`model::current("<name>")`: a value the element being read provides (L, L0)."""
        if name not in self.current:
            raise ValueError(f'model::current("{name}") is not available here')
        return self.current[name]

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
        text = f"line {line}, file <{card.source.name}>: " + ", ".join(format_remark(v) for v in values)
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

    def dir_c81_data(self, card):
        """`c81 data: <label>, "<file>" ...` (elements/aerodynamic.py reads it)."""
        read_c81_data(self, self.model, Args(self, card), card.name)

    def dir_unsupported(self, card):
        raise card.name.error(not_supported(f"'{shown(card.name.text)}' card"))

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
        """`constitutive law: label, [name, "...",] dim, <law>` (manual §2.4.1); dimension 1, 3, 6
        or 7 (7: the u/p-c solid laws); each dimension has its own labels, as in MBDyn."""
        args = Args(self, card)
        word = args.peek()
        label = args.label("a constitutive law label")
        args.optional_name()
        dim_word = args.peek()
        dim = args.integer("the dimension of the law")
        if dim == 9:
            raise dim_word.error(not_supported("9-D constitutive laws (MBDyn's deformation-gradient laws "
                                               "of solid elements: mooney rivlin elastic, mfront finite strain)"))
        if dim not in (1, 3, 6, 7):
            raise dim_word.error(not_supported(f"{dim}-D constitutive laws (mbdae has 1, 3, 6 and 7)"))
        if (dim, label) in self.laws:
            raise word.error(f"constitutive law {label} is already defined as a {dim}-D law")
        self.laws[(dim, label)] = self.read_law(args, dim)
        args.expect_end()

    def dir_scalar_function(self, card):
        """`scalar function: "<name>", [<type>,] <args>` (input manual, "Scalar functions";
        engine/core/scalar_functions.py)."""
        args = Args(self, card)
        self.read_scalar_function(args, definition=True)
        args.expect_end()

    def read_scalar_function(self, args, definition=False):
        """A scalar function: `"<name>"` of a defined one or, when `definition` (the card) or a
        type word follows the name, a new one stored under that name."""
        word = args.peek()
        name = args.string("a scalar function name")
        kinds = ("const", "exp", "log", "pow", "linear", "cubicspline", "cubic spline", "multilinear",
                 "chebychev", "sum", "sub", "mul", "div")
        if not definition and args.peek_keyword() not in {normalize(k) for k in kinds}:
            if name not in self.scalar_functions:
                raise word.error(f'scalar function "{name}" is not defined')
            return self.scalar_functions[name]
        if name in self.scalar_functions:
            raise word.error(f'scalar function "{name}" is already defined')
        kind = args.is_keyword(*kinds) or "const"
        tw = args.words[args.i - 1] if args.i else word
        try:
            if kind == "const":
                f = sf.ConstFunction(args.real("the constant"))
            elif kind in ("exp", "log"):
                base = args.real("the base") if args.is_keyword("base") else math.e
                coef = args.real("the coefficient") if args.is_keyword("coefficient") else 1.0
                cls = sf.ExpFunction if kind == "exp" else sf.LogFunction
                f = cls(args.real("the multiplier"), base, coef)
            elif kind == "pow":
                f = sf.PowFunction(args.real("the exponent"))
            elif kind == "linear":
                x1, y1, x2, y2 = (args.real(w) for w in ("x1", "y1", "x2", "y2"))
                f = sf.MultilinearFunction([x1, x2], [y1, y2])
            elif kind in ("cubicspline", "multilinear"):
                extrapolate = not args.is_keyword("do not extrapolate")
                xs, ys = [], []
                while args.more() and not args.is_keyword("end"):
                    xs.append(args.real("x"))
                    ys.append(args.real("y"))
                cls = sf.CubicSplineFunction if kind == "cubicspline" else sf.MultilinearFunction
                f = cls(xs, ys, extrapolate)
            elif kind == "chebychev":
                a, b = args.real("the lower bound"), args.real("the upper bound")
                extrapolate = not args.is_keyword("do not extrapolate")
                coefs = []
                while args.more() and not args.is_keyword("end"):
                    coefs.append(args.real("a coefficient"))
                f = sf.ChebychevFunction(a, b, coefs, extrapolate)
            else:
                f1 = self.read_scalar_function(args)
                f2 = self.read_scalar_function(args)
                f = sf.BinaryFunction(kind, f1, f2)
        except ValueError as err:
            raise tw.error(str(err)) from None
        f.name = name
        self.scalar_functions[name] = f
        return f


def format_remark(value):
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


R = Directives
DIRECTIVES = table([
    ("set", R.dir_set), ("remark", R.dir_remark), ("include", R.dir_include),
    ("print symbol table", R.dir_print_symbol_table), ("setenv", R.dir_setenv), ("exit", R.dir_exit),
    ("license", R.dir_license), ("warranty", R.dir_license), ("reference", R.dir_reference),
    ("drive caller", R.dir_drive_caller), ("template drive caller", R.dir_template_drive_caller),
    ("constitutive law", R.dir_constitutive_law), ("scalar function", R.dir_scalar_function),
    ("chdir", R.dir_unsupported), ("module load", R.dir_unsupported),
    ("hydraulic fluid", R.dir_unsupported), ("c81 data", R.dir_c81_data),
])
del R
