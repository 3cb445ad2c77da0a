"""The problem cards of MBDyn decks: the `begin: data` block (manual §3.1), `initial value`
(§4.1: times, method, tolerances, nonlinear and linear solvers, solver output, eigenanalysis),
`inverse dynamics` (§6.3) and `kinematic analysis` (an mbdae extension: MBDM's mode 0,
engine/drivers/kinematic.py): the reader's ``ProblemCards`` part and its card tables."""
from __future__ import annotations

from mbdae.engine.core.drives import Drive, PostponedDrive, constant_value
from mbdae.engine.drivers.eigen import EigenSettings
from mbdae.engine.drivers.ivp import Settings
from mbdae.engine.drivers.time_span import InvalidTimeSettings, check_time_span
from mbdae.engine.drivers.inverse import PROBLEM_TYPES, explicit_derivatives
from mbdae.engine.io.mbdyn.lexer import normalize, not_supported, shown, table
from mbdae.solvers.integrators import METHOD_NAMES, make_method
from mbdae.solvers.linear import choose_linear_solver, klu_available
from mbdae.solvers.petsc import PETScSettings, check_petsc_settings, petsc_settings
from mbdae.solvers.krylov import MatrixFreeSettings


class ProblemCards:
    """Reader part: the data, initial value and inverse dynamics blocks."""

    def read_data_block(self, word):
        self.block_cards(word, "data", DATA_CARDS, "data")
        if self.problem_name is None:
            self.problem_name = "initialvalue"

    def card_problem(self, card, args):
        kind = args.expect_keyword("initial value", "multistep", "inverse dynamics", "kinematic analysis")
        self.problem_name = "initialvalue"
        if kind == "inversedynamics":
            self.problem_name = "inversedynamics"
            self.settings["inverse_dynamics"] = dict(problem_type="fully actuated collocated")
        elif kind == "kinematicanalysis":     # mbdae extension (MBDM's kinematic mode)
            self.problem_name = "kinematicanalysis"
            self.settings["kinematic_analysis"] = {}

    # -- initial value (manual §4.1)
    def read_problem_block(self, word):
        self.time_words = {}
        if self.problem_name == "inversedynamics":
            self.block_cards(word, "inversedynamics", INVERSE_CARDS, "inverse dynamics")
            self.check_time_cards(word)
            return
        if self.problem_name == "kinematicanalysis":
            self.block_cards(word, "kinematicanalysis", KINEMATIC_CARDS, "kinematic analysis")
            self.check_time_cards(word)
            return
        self.block_cards(word, self.problem_name, PROBLEM_CARDS, "initial value")
        self.check_time_cards(word)
        if getattr(self, "_constraint_scale_per_step", False):
            self.settings["constraint_test_scale"] = 1.0 / self.settings.get("time_step", Settings.time_step)

    # -- inverse dynamics (§6.3)
    def id_problem_type(self, card, args):
        """`problem type: <type> [, weights, w1_pos, w2_pos, w1_vel, w2_vel [, w1_acc, w2_acc]]`
        (spec §2.3).  Per level MBDyn's w1 weights the identity-metric distance from the
        backward difference of the previous level (x_prev, (x - x_prev)/h, (ẋ - ẋ_prev)/h), w2
        the mass-metric distance from the previous value (defaults w1 = 1, w2 = 0)."""
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

    # -- kinematic analysis (mbdae extension; engine/drivers/kinematic.py)
    def ka_tolerance(self, card, args):
        """`tolerance: r;` the position Newton's tolerance on the 2-norm of the constraints."""
        w = args.peek()
        tol = args.real("the tolerance")
        if not tol > 0:
            raise w.error("the kinematic analysis tolerance must be positive")
        self.settings["tolerance"] = tol

    def ka_reactions(self, card, args):
        """`reactions: {yes | no};` whether the joint reactions are computed (default yes)."""
        self.settings["kinematic_analysis"]["reactions"] = bool(args.boolean())

    def id_max_iterations(self, card, args):
        self.settings["max_iterations"] = max(args.integer("the maximum number of iterations"), 1)
        if args.is_keyword("at most"):
            self.note(card.name, "max iterations ..., at most: mbdae always requires convergence")

    def read_inverse_derivatives(self, args, value, site):
        """In inverse dynamics a total joint constraint reads two more template drives, the
        imposed rate and acceleration (spec §2.3)."""
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
        self.time_words["initial_time"] = args.peek()
        self.settings["initial_time"] = args.real("the initial time")

    def iv_final_time(self, card, args):
        w = self.time_words["final_time"] = args.peek()
        if args.is_keyword("forever"):
            raise w.error(not_supported("final time: forever"))
        self.settings["final_time"] = args.real("the final time")

    def iv_time_step(self, card, args):
        self.time_words["time_step"] = args.peek()
        self.settings["time_step"] = args.real("the time step")

    def check_time_cards(self, block_word):
        """Initial time, final time and time step that can make a run (engine/drivers/time_span.py),
        else an error at the card that breaks it (MBDyn warns and aborts, or flips the sign of
        a negative step; mbdae stops with the reason)."""
        s = self.settings
        try:
            check_time_span(s.get("initial_time", Settings.initial_time), s.get("final_time", Settings.final_time),
                            s.get("time_step", Settings.time_step))
        except InvalidTimeSettings as err:
            word = self.time_words.get(err.setting, block_word)
            raise word.error(str(err)) from None

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
        before raise, min iterations [, max iterations]`, `strategy: no change` and `strategy:
        change, (DriveCaller) time step pattern` (manual §4.1.1; solvers/stepcontrol.py)."""
        w = args.peek()
        kind = args.expect_keyword("factor", "no change", "change")
        if kind == "factor":
            values = ["factor", args.real("the reduction factor"), args.integer("the steps before reduction"),
                      args.real("the raise factor"), args.integer("the steps before raise"),
                      args.integer("the minimum iterations")]
            if args.more():
                values.append(args.integer("the maximum iterations"))
            self.settings["strategy"] = tuple(values)
        elif kind == "change":
            self.settings["strategy"] = ("change", self.read_drive(args))

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
        method = self.read_method_name(args)
        if method in METHODS_WITHOUT_RADIUS:
            self.settings.update(method=method, rho=0.0)
            return
        if method == "thirdorder" and args.is_keyword("ad hoc"):      # `thirdorder, ad hoc;`
            self.settings.update(method="thirdorder ad hoc", rho=0.0)
            return
        self.settings.update(method=method, rho=self.read_method_radii(args, method))

    def read_method_name(self, args):
        """The method (a make_method name), with `bdf, order, 1` read as implicit euler."""
        w = args.take("an integration method")
        name = normalize(w.text)
        method = METHOD_ALIASES.get(name, " ".join(w.text.split()).lower())
        try:
            make_method(method, 0.5)
        except ValueError:
            message = not_supported(f"method {shown(w.text)}") if name in KNOWN_METHODS else \
                f"syntax error: unknown integration method '{w.text}'"
            raise w.error(message) from None
        if method == "bdf" and args.is_keyword("order"):
            ow = args.peek()
            order = args.integer("the BDF order")
            if order not in (1, 2):
                raise ow.error("bdf order must be 1 or 2")
            method = "implicit euler" if order == 1 else method
        return method

    def read_method_radii(self, args, method):
        """`rho [, rho_alg]`: the spectral radius (the algebraic one is noted and ignored)."""
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
        return rho

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
        [, honor element requests]]` and `matrix free, {default | gmres | bicgstab} [, tolerance,
        t] [, steps, n] [, tau, τ] [, eta, η] [, preconditioner, full jacobian matrix [, steps,
        n] [, honor element requests]]` (manual §4.1.1, Nonlinear Solver; solvers/krylov.py).
        `nox` and `line search` (same section) are read, options included, and the run uses
        mbdae's own Newton-Raphson (full Newton, direct linear solver: the same solution where
        both converge), said in one note; the other solvers are not supported."""
        w = args.peek()
        kind = args.expect_keyword("newton raphson", "line search", "bfgs", "matrix free", "nox",
                                   "mcp newton fb", "mcp newton min fb", "default", what="a nonlinear solver")
        if kind in REPLACED_NONLINEAR_SOLVERS:
            options = self.read_replaced_solver_options(args, REPLACED_NONLINEAR_SOLVERS[kind])
            listed = f" and its options ({', '.join(options)})" if options else ""
            self.note(w, f"nonlinear solver {w.text}{listed} not available in mbdae: the run uses mbdae's "
                         "Newton-Raphson (full Newton, direct linear solver)")
            return
        if kind == "matrixfree":
            self.settings["matrix_free"] = self.read_matrix_free(args)
            return
        if kind not in ("newtonraphson", "default"):
            raise w.error(not_supported(f"nonlinear solver: {w.text}"))
        self.read_newton_options(args)

    def read_matrix_free(self, args):
        """The options of `nonlinear solver: matrix free`; MBDyn's defaults (steps 20, tau 1e-7,
        eta 0.9, preconditioner steps 20).  `tolerance` is read and, as in MBDyn, not used: the
        Krylov tolerance is η times the residual error.  `honor element requests` has no
        effect (no mbdae element changes its equations' structure)."""
        method = args.expect_keyword("default", "gmres", "bicgstab", what="a matrix-free iterative solver")
        options = {"method": "bicgstab" if method == "bicgstab" else "gmres"}
        if args.is_keyword("tolerance"):
            self.positive_real(args, "the iterative solver tolerance")
        if args.is_keyword("steps"):
            options["max_steps"] = self.positive_integer(args, "the number of iterative solver steps")
        if args.is_keyword("tau"):
            options["tau"] = self.positive_real(args, "tau")
        if args.is_keyword("eta"):
            options["eta_max"] = self.positive_real(args, "eta")
        if args.is_keyword("preconditioner"):
            args.expect_keyword("full jacobian matrix", "full jacobian", what="a preconditioner")
            if args.is_keyword("steps"):
                options["preconditioner_steps"] = self.positive_integer(args, "the preconditioner steps")
            args.is_keyword("honor element requests")
        return MatrixFreeSettings(**options)

    @staticmethod
    def positive_real(args, what):
        w = args.peek()
        value = args.real(what)
        if not value > 0.0:
            raise w.error(f"{what} must be positive (got {value})")
        return value

    @staticmethod
    def positive_integer(args, what):
        w = args.peek()
        n = args.integer(what)
        if n < 1:
            raise w.error(f"{what} must be at least 1 (got {n})")
        return n

    def read_replaced_solver_options(self, args, grammar):
        """The options of a nonlinear solver mbdae replaces by its Newton-Raphson, checked
        against the manual's grammar (`grammar`: option -> its values, NOX_OPTIONS or
        LINE_SEARCH_OPTIONS) and ignored; returns the option words as written."""
        options = []
        if args.is_keyword("true"):
            options.append("true")
        elif args.is_keyword("modified"):
            options.append(f"modified, {args.integer('iterations before assembly')}")
            while args.is_keyword("keep jacobian matrix", "honor element requests"):
                options.append(args.card.args[args.i - 1].text)
        while args.more():
            ow = args.peek()
            kw = args.expect_keyword(*grammar, what="a nonlinear solver option")
            name = next(n for n in grammar if normalize(n) == kw)
            for value in grammar[name]:
                if value == "real":
                    args.real(f"a value for '{ow.text}'")
                elif value == "integer":
                    args.integer(f"a value for '{ow.text}'")
                elif value == "bool":
                    if not args.is_keyword("yes", "no", "true", "false"):
                        args.integer(f"yes, no or a number for '{ow.text}'")
                elif isinstance(value, tuple) and value[0] == "optional":
                    if args.is_keyword(value[1]):
                        for sub in value[2:]:
                            if sub == "bool":
                                if not args.is_keyword("yes", "no", "true", "false"):
                                    args.integer(f"yes, no or a number for '{value[1]}'")
                            else:
                                args.real(f"a value for '{value[1]}'")
                else:
                    args.expect_keyword(*value, what=f"one of {', '.join(repr(v) for v in value)} for '{ow.text}'")
            options.append(ow.text)
        return options

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
        w = args.take("a linear solver")
        if normalize(w.text) == "petsc":
            self.linear_solver_request = "petsc"
            self.settings["linear_solver"] = self.read_petsc(w, args)
            return
        self.settings["linear_solver"] = self.linear_solver_for(w)
        options = self.read_linear_solver_options(args)
        if options:
            self.note(w, f"linear solver options {', '.join(options)} are performance hints, ignored")

    def linear_solver_for(self, w):
        """The mbdae linear solver (solvers/linear.py name) standing for MBDyn's solver named by
        word w: `klu` is KLU (SuperLU when no KLU library is found), `umfpack` and `naive` are
        KLU with refactorization (else SuperLU), `superlu` is SuperLU, MBDyn's other direct
        solvers get the default (KLU, else SuperLU).  The run's .log names the choice."""
        name = normalize(w.text)
        if name not in LINEAR_SOLVERS:
            known = ("aztecoo", "amesos", "siconosdense", "siconossparse")
            raise w.error(not_supported(f"linear solver {w.text}") if name in known else
                          f"syntax error: unknown linear solver '{w.text}'")
        self.linear_solver_request = name
        chosen = LINEAR_SOLVERS[name]
        if chosen == "klu" and not klu_available():
            self.note(w, f"linear solver {w.text}: no KLU library found (apt-get install libklu1, or "
                         f"pip install 'mbdae[klu]'), using superlu")
            chosen = "superlu"
        elif chosen == "default":
            used = choose_linear_solver(chosen).name
            self.note(w, f"linear solver {w.text} is not available in mbdae, using {used} (direct, same solution)")
        return chosen

    def read_petsc(self, w, args):
        """mbdae's card for the PETSc back end (MBDyn has no PETSc solver; solvers/petsc.py):
        `linear solver: petsc [, {klu | umfpack | mumps | superlu | gmres | fgmres | bicgstab}]
        [, preconditioner, {ilu | asm | gamg | hypre | jacobi | none}] [, tolerance, t]
        [, max iterations, n] [, options, "<PETSc options>"]`; tolerance, max iterations and
        preconditioner as in MBDyn's iterative linear solvers.  A solver or preconditioner that
        is unknown or missing from the PETSc build is an error at its word."""
        options = {}
        blame = w
        if args.more() and args.peek_keyword() not in PETSC_OPTION_WORDS:
            blame = args.take("a PETSc solver")
            options["solver"] = PETSC_SOLVER_WORDS.get(blame.keyword, blame.text)
        while args.more():
            kw = args.expect_keyword(*PETSC_OPTION_WORDS, what="a PETSc linear solver option")
            if kw == "preconditioner":
                blame = args.take("a preconditioner")
                options["preconditioner"] = blame.keyword
            elif kw == "tolerance":
                options["tolerance"] = self.positive_real(args, "the linear solver tolerance")
            elif kw == "maxiterations":
                options["max_iterations"] = self.positive_integer(args, "the linear solver max iterations")
            else:
                options["options"] = args.string("PETSc options")
        settings = PETScSettings(**options)
        try:
            petsc_settings(settings)
            check_petsc_settings(settings)
        except ValueError as err:
            raise blame.error(str(err)) from None
        return settings

    @staticmethod
    def read_linear_solver_options(args):
        """The options after the solver name (all hints); returns their words."""
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
        return options

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
            # their sub-options (MBDyn's solver.cc): `solver condition number [, stat, yes|no]`,
            # `matrix condition number [, norm, {inf | 1}]`
            if w.keyword == "solverconditionnumber" and args.is_keyword("stat"):
                args.boolean()
            elif w.keyword == "matrixconditionnumber" and args.is_keyword("norm"):
                args.is_keyword("inf") or args.real("a norm (inf or 1)")
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
        """`derivatives tolerance: {null|r} [, {null|s}]`: the residual tolerance of the
        derivatives phase and, as in the `tolerance` card (§4.1.2), an optional tolerance of
        its solution test (norm of the Newton increment; the first test that passes ends the
        phase).  Without it the phase has no solution test, as MBDyn's derivative solver."""
        res = 0.0 if args.is_keyword("null") else args.real("the derivatives tolerance")
        sol = 0.0
        if args.more():
            sol = 0.0 if args.is_keyword("null") else args.real("the derivatives solution tolerance")
        if res <= 0 and sol <= 0:
            raise card.name.error("derivatives tolerance: a residual or a solution tolerance must be positive")
        self.settings["derivatives_tolerance"] = res
        self.settings["derivatives_solution_tolerance"] = max(sol, 0.0)

    def iv_enforce_constraint_equations(self, card, args):
        """`enforce constraint equations: {constraint violations [, scale factor, s] |
        constraint violation rates}` (manual §4.1.2): with `constraint violations` the residual
        test of a regular step sees the constraint rows divided by dCoef times dCoef·s, i.e.
        s times the constraint violation (default s = 1/initial time step); `constraint
        violation rates` keeps the rows as they are (the default)."""
        kind = args.expect_keyword("constraint violations", "constraint violation rates")
        if kind == "constraintviolationrates":
            self.settings["constraint_test_scale"] = None
            self._constraint_scale_per_step = False
            return
        self._constraint_scale_per_step = False
        if args.is_keyword("scale factor"):
            self.settings["constraint_test_scale"] = args.real("a scale factor")
        else:
            self._constraint_scale_per_step = True        # 1/time step, once the block is read

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
        Eigenanalysis); engine/drivers/eigen.py does the analysis."""
        if args.is_keyword("list"):
            n = args.integer("the number of eigenanalysis times")
            if n < 1:
                raise card.name.error("eigenanalysis: the list needs at least one time")
            times = tuple(args.real("an eigenanalysis time") for _ in range(n))
        else:
            times = (args.real("the eigenanalysis time"),)
        opt = {"method": None}          # without `use lapack | arpack` MBDyn only writes the matrices
        while args.more():
            self.read_eigen_option(args, opt)
        try:
            self.settings["eigenanalysis"] = EigenSettings(times, **opt)
        except ValueError as e:
            raise card.name.error(str(e)) from None

    def read_eigen_option(self, args, opt):
        """One eigenanalysis option into opt (EigenSettings keywords)."""
        w = args.peek()
        kw = args.expect_keyword(*EIGEN_OPTIONS, what="an eigenanalysis option")
        if kw in EIGEN_VALUES:
            key, kind, what = EIGEN_VALUES[kw]
            opt[key] = getattr(args, kind)(what)
        elif kw in EIGEN_FLAGS:
            key, value = EIGEN_FLAGS[kw]
            opt[key] = value
        elif kw == "suffixwidth":
            opt["suffix_width"] = None if args.is_keyword("compute") else args.integer("a width")
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

    def iv_dummy_steps_ratio(self, card, args):
        self.settings["dummy_steps_ratio"] = args.real("the dummy steps ratio")

    def iv_dummy_steps_tolerance(self, card, args):
        """`dummy steps tolerance: tol` (manual §4.1.3): the residual tolerance of the dummy steps."""
        w = args.peek()
        tol = args.real("the dummy steps tolerance")
        if tol <= 0:
            raise w.error("the dummy steps tolerance must be positive")
        self.settings["dummy_steps_tolerance"] = tol

    def iv_dummy_steps_max_iterations(self, card, args):
        self.settings["dummy_steps_max_iterations"] = max(args.integer("a number of iterations"), 1)

    def iv_dummy_steps_method(self, card, args):
        """`dummy steps method: <method_data>` (manual §4.1.3), as the `method` card; the first
        dummy step is Crank-Nicolson (as MBDyn's), the others use this method."""
        method = self.read_method_name(args)
        rho = 0.0 if method in METHODS_WITHOUT_RADIUS else self.read_method_radii(args, method)
        self.settings["dummy_steps_method"] = (method, rho)

    def card_accepted_note(self, card, args):
        while args.more():
            args.take("an argument")
        self.note(card.name, f"'{shown(card.name.text)}' has no effect in mbdae")


# option grammars of the nonlinear solvers mbdae replaces by its Newton-Raphson (manual §4.1.1,
# Nonlinear Solver): option -> the values it takes, in order ("real", "integer", "bool" = yes/no
# or a number, a tuple of keywords = one of them, ("optional", keyword, values...) = an
# optional keyword with its values)
NOX_OPTIONS = {
    "linear solver": (("gmres", "cg", "cgs", "tfqmr", "bicgstab"),),
    "linear solver tolerance": ("real",), "linear solver max iterations": ("integer",),
    "krylov subspace size": ("integer",), "inner iterations before assembly": ("integer",),
    "weighted rms relative tolerance": ("real",), "weighted rms absolute tolerance": ("real",),
    "forcing term": (("constant", "type 1", "type 2"),), "forcing term min tolerance": ("real",),
    "forcing term max tolerance": ("real",), "forcing term alpha": ("real",),
    "forcing term gamma": ("real",), "use preconditioner as solver": ("bool",),
    "jacobian operator": (("newton", "newton krylov"),),
    "direction": (("newton", "steepest descent", "nonlinear cg", "broyden"),),
    "solver": (("line search based", "trust region based", "inexact trust region based", "tensor based"),),
    "line search method": (("backtrack", "polynomial", "more thuente"),),
    "sufficient decrease condition": (("armijo goldstein", "ared pred"),),
    "line search max iterations": ("integer",), "minimum step": ("real",), "recovery step": ("real",),
    "recovery step type": (("constant", "last computed step"),), "verbose": ("bool",),
    "print convergence info": ("bool",),
}
LINE_SEARCH_OPTIONS = {
    "tolerance x": ("real",), "tolerance min": ("real",), "max iterations": ("integer",),
    "alpha": ("real",), "alpha full": ("real",), "alpha modified": ("real",),
    "lambda min": ("real", ("optional", "relative", "bool")),
    "lambda factor min": ("real",), "max step": ("real",), "zero gradient": (("continue",), "bool"),
    "divergence check": ("bool", ("optional", "factor", "real")), "algorithm": (("cubic", "factor"),),
    "scale newton step": ("bool", ("optional", "min scale", "real")), "print convergence info": ("bool",),
    "verbose": ("bool",), "abort at lambda min": ("bool",), "mcp tolerance": ("real",),
    "mcp sigma": ("real",), "mcp rho": ("real",), "mcp p": ("real",),
    "non negative slope continue": ("bool",), "time step tolerance": ("real",), "update ratio": ("real",),
    "default solver options": (("moderate nonlinear", "heavy nonlinear"),),
}
REPLACED_NONLINEAR_SOLVERS = {"nox": NOX_OPTIONS, "linesearch": LINE_SEARCH_OPTIONS}

R = ProblemCards
DATA_CARDS = table([("problem", R.card_problem), ("integrator", R.card_problem)])
PROBLEM_CARDS = table([
    ("initial time", R.iv_initial_time), ("final time", R.iv_final_time), ("time step", R.iv_time_step),
    ("min time step", R.iv_min_time_step), ("max time step", R.iv_max_time_step),
    ("strategy", R.iv_strategy), ("tolerance", R.iv_tolerance), ("max iterations", R.iv_max_iterations),
    ("method", R.iv_method), ("nonlinear solver", R.iv_nonlinear_solver),
    ("newton raphson", R.iv_newton_raphson), ("linear solver", R.iv_linear_solver),
    ("solver", R.iv_linear_solver), ("threads", R.iv_threads), ("output", R.iv_output),
    ("output meter", R.iv_output_meter), ("abort after", R.iv_abort_after),
    ("derivatives tolerance", R.iv_derivatives_tolerance),
    ("enforce constraint equations", R.iv_enforce_constraint_equations),
    ("derivatives max iterations", R.iv_derivatives_max_iterations),
    ("derivatives coefficient", R.iv_derivatives_coefficient),
    ("dummy steps number", R.iv_dummy_steps_number), ("dummy steps ratio", R.iv_dummy_steps_ratio),
    ("fictitious steps number", R.iv_dummy_steps_number),
    ("fictitious steps ratio", R.iv_dummy_steps_ratio),
    ("dummy steps tolerance", R.iv_dummy_steps_tolerance),
    ("fictitious steps tolerance", R.iv_dummy_steps_tolerance),
    ("dummy steps max iterations", R.iv_dummy_steps_max_iterations),
    ("fictitious steps max iterations", R.iv_dummy_steps_max_iterations),
    ("dummy steps method", R.iv_dummy_steps_method), ("fictitious steps method", R.iv_dummy_steps_method),
    ("eigenanalysis", R.iv_eigenanalysis), ("eigen analysis", R.iv_eigenanalysis),
])
INVERSE_CARDS = {**PROBLEM_CARDS, **table([
    ("problem type", R.id_problem_type), ("max iterations", R.id_max_iterations),
    ("modify residual test", R.card_accepted_note), ("full residual test", R.card_accepted_note),
])}
KINEMATIC_CARDS = table([
    ("initial time", R.iv_initial_time), ("final time", R.iv_final_time), ("time step", R.iv_time_step),
    ("tolerance", R.ka_tolerance), ("max iterations", R.id_max_iterations),
    ("linear solver", R.iv_linear_solver), ("solver", R.iv_linear_solver), ("threads", R.iv_threads),
    ("output", R.iv_output), ("reactions", R.ka_reactions),
])
# initial-value cards that mean nothing in a kinematic analysis (it integrates nothing)
UNSUPPORTED_KINEMATIC_CARDS = table([(k, "a kinematic analysis integrates nothing") for k in (
    "method", "min time step", "max time step", "strategy", "derivatives tolerance",
    "derivatives max iterations", "derivatives coefficient", "dummy steps number", "dummy steps ratio",
    "eigenanalysis")] + [("nonlinear solver", "the positions are solved by full Newton-Raphson")])
UNSUPPORTED_PROBLEM_CARDS = table([
    ("modify residual test", None),
    ("real time", None),
    ("problem type", "inverse dynamics"), ("full residual test", None),
])
del R
METHOD_ALIASES = {"cranknicolson": "crank nicolson", "cranknicholson": "crank nicolson",
                  "impliciteuler": "implicit euler", "ms2": "ms", "nostro": "ms", "thirdorder": "thirdorder"}
METHODS_WITHOUT_RADIUS = ("crank nicolson", "implicit euler", "bdf", "dirk33", "dirk43", "dirk54")
# MBDyn's methods mbdae does not have (the others are solvers.integrators.METHOD_NAMES)
UNSUPPORTED_METHODS = ("hybrid",)
KNOWN_METHODS = {normalize(k) for k in METHOD_NAMES + UNSUPPORTED_METHODS} | set(METHOD_ALIASES)
SOLVER_OUTPUT_ITEMS = ("iterations", "residual", "solution", "jacobian matrix", "jacobian", "messages",
                       "counter", "bailout", "matrix condition number", "solver condition number",
                       "cpu time", "none")
# MBDyn's direct linear solvers -> the mbdae solver used for them (solvers/linear.py names;
# umfpack and naive: KLU with refactorization when a KLU library is found, else SuperLU)
LINEAR_SOLVERS = {"naive": "naive", "superlu": "superlu", "umfpack": "umfpack", "klu": "klu",
                  "lapack": "default", "y12": "default", "taucs": "default", "pardiso": "default",
                  "pardiso64": "default", "watson": "default", "pastix": "default", "qr": "default",
                  "spqr": "default", "cholmod": "default"}
# `linear solver: petsc, <solver>` words → solvers/petsc.py names
PETSC_SOLVER_WORDS = {"klu": "klu", "umfpack": "umfpack", "mumps": "mumps", "superlu": "superlu",
                      "superludist": "superlu_dist", "lu": "lu", "gmres": "gmres", "fgmres": "fgmres",
                      "bicgstab": "bicgstab", "bcgs": "bicgstab"}
PETSC_OPTION_WORDS = ("preconditioner", "tolerance", "maxiterations", "options")
LINEAR_SOLVER_FLAGS = {normalize(k) for k in ("map", "cc", "dir", "grad", "colamd", "mmdata", "amd",
                                              "given", "metis", "nested dissection", "rcmk", "king",
                                              "sloan", "md", "ccamd", "sparse", "dense")}
LINEAR_SOLVER_VALUES = {normalize(k): n for k, n in (
    ("mt", 1), ("multithread", 1), ("workspace size", 1), ("pivot factor", 1), ("drop tolerance", 1),
    ("block size", 1), ("scale", 0), ("scale tolerance", 1), ("scale iterations", 1),
    ("verbose", 1))}
LINEAR_SOLVER_SCALINGS = ("no", "always", "once", "row max", "row sum", "column max", "column sum",
                          "lapack", "iterative", "row max column max")
EIGEN_OPTIONS = ("suffix width", "suffix format", "output matrices", "output full matrices",
                 "output sparse matrices", "output eigenvectors", "output geometry",
                 "matrix output precision", "results output precision", "parameter",
                 "lower frequency limit", "upper frequency limit", "use lapack", "use arpack",
                 "use jdqz", "use external", "mode", "balance")
# eigenanalysis options with one value: option -> (EigenSettings keyword, Args reader, what)
EIGEN_VALUES = table([
    ("suffix format", ("suffix_format", "string", "a format")),
    ("matrix output precision", ("matrix_precision", "integer", "a precision")),
    ("results output precision", ("results_precision", "integer", "a precision")),
    ("parameter", ("parameter", "real", "the eigenanalysis parameter")),
    ("lower frequency limit", ("lower_frequency", "real", "a frequency (Hz)")),
    ("upper frequency limit", ("upper_frequency", "real", "a frequency (Hz)")),
])
# eigenanalysis options without a value: option -> (EigenSettings keyword, value)
EIGEN_FLAGS = table([
    ("output matrices", ("output_matrices", "full")), ("output full matrices", ("output_matrices", "full")),
    ("output sparse matrices", ("output_matrices", "sparse")),
    ("output eigenvectors", ("output_eigenvectors", True)), ("output geometry", ("output_geometry", True)),
    ("use lapack", ("method", "lapack")),
])
