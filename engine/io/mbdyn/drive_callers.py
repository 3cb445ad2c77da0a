"""Drive callers of MBDyn decks (manual §2.6) and template drive callers (§2.6.42): the
reader's ``DriveCallers`` part and the table of drive types it reads."""
from __future__ import annotations

import re

import numpy as np

from mbdae.engine.core import constitutive
from mbdae.engine.core.drives import (ArgumentExpressionDrive, ComposedDrive, ConstDrive, CosineDrive,
                                      CubicDrive, DoubleRampDrive, DoubleStepDrive, ExponentialDrive,
                                      ExpressionDrive, LinearDrive, NullDrive, OneDrive, ParabolicDrive,
                                      PeriodicDrive, PiecewiseLinearDrive, PostponedDrive, ProductDrive,
                                      RampDrive, SineDrive, Step5Drive, StepDrive, SumDrive, TanhDrive,
                                      TimeDrive)
from mbdae.engine.core.mathparser import MathError
from mbdae.engine.core.privdata import ElementDrive
from mbdae.engine.core.scalar_functions import ScalarFunctionDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.io.mbdyn.lexer import normalize, not_supported, shown, table

# MBDyn names of drive callers mbdae does not have: reading one stops with "not supported yet"
UNSUPPORTED_DRIVES = ("timestep", "file", "dof", "node", "meter", "closest next", "random",
                      "sample and hold", "discrete filter", "bistop", "ginac",
                      "frequency sweep", "fourier series", "shared", "socket")
# model:: functions of their arguments only (no model state), allowed in string drives
TIME_FUNCTIONS = ("model::drive",)


class DriveCallers:
    """Reader part: DriveCaller, TplDriveCaller<scalar | Vec3 | Vec6>."""

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
            raise w.error(not_supported(f"{shown(w.text)} (drive caller)"))
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
        # (engine/privdata.py); model::drive is a function of its arguments; the other
        # model:: functions are evaluated on the initial configuration only, which would be
        # wrong at run time
        if any(f.name.startswith("model::") and f.state_source is None and f.name not in TIME_FUNCTIONS
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

    def d_scalar_function(self, args, w, at):
        """`scalar function, "<name>"` (input manual §2.6, "Scalar function drive"): f(t)."""
        return ScalarFunctionDrive(self.read_scalar_function(args))

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

    def read_single_tpl(self, args, vector):
        """The template drive `vector × <DriveCaller>` (the drive is read here)."""
        return VectorDrive.single(vector, self.read_drive(args))


R = DriveCallers
DRIVE_READERS = table([
    ("const", R.d_const), ("null", R.d_null), ("zero", R.d_null), ("unit", R.d_unit), ("one", R.d_unit),
    ("time", R.d_time), ("direct", R.d_direct), ("linear", R.d_linear), ("parabolic", R.d_parabolic),
    ("cubic", R.d_cubic), ("step", R.d_step), ("double step", R.d_double_step), ("ramp", R.d_ramp),
    ("double ramp", R.d_double_ramp), ("sine", R.d_sine), ("cosine", R.d_cosine), ("tanh", R.d_tanh),
    ("step5", R.d_step5), ("exponential", R.d_exponential), ("piecewise linear", R.d_piecewise_linear),
    ("string", R.d_string), ("mult", R.d_mult), ("array", R.d_array), ("drive", R.d_drive),
    ("periodic", R.d_periodic), ("reference", R.d_reference), ("postponed", R.d_postponed),
    ("element", R.d_element),
    ("scalar function", R.d_scalar_function),
])
del R
