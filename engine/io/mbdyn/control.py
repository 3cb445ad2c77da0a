"""The control data block of MBDyn decks (manual ch. 5): element and node counters, default
output and orientation, assembly settings; the counts checked against the declared numbers
(§5.4): the reader's ``ControlCards`` part and its card tables."""
from __future__ import annotations

import numpy as np

from mbdae.engine.core.rbk import RigidBodyKinematics
from mbdae.engine.drivers.output_meter import ClosestNextMeter, DriveMeter
from mbdae.engine.io.mbdyn.geometry import GLOBAL_SITE
from mbdae.engine.io.mbdyn.lexer import normalize, not_supported, table
from mbdae.engine.io.mbdyn.problem import ProblemCards

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
# items of the `use: ..., in assembly` card (manual §5.2.2, and MBDyn's surface loads)
USE_ITEM_NAMES = ("rigid bodies", "gravity", "forces", "beams", "aerodynamic elements", "loadable elements",
                  "surface loads")
USE_ITEMS = {normalize(k) for k in USE_ITEM_NAMES}
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
# rigid body kinematics: input word -> RigidBodyKinematics quantity, in the card's order
RBK_WORDS = (("position", "position"), ("orientation", "orientation"), ("velocity", "velocity"),
             ("angular velocity", "angular_velocity"), ("acceleration", "acceleration"),
             ("angular acceleration", "angular_acceleration"))
STATIC_RBK = ("rigid body kinematics with model: static (the frame's inertial loads belong to the inertia "
              "a static model drops)")
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


class ControlCards:
    """Reader part: the control data block and the per-family counts."""

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
        """`air properties;` (a count word: the elements block holds the card)."""

    def cd_skip_initial_joint_assembly(self, card, args):
        self.settings["skip_initial_assembly"] = True

    def cd_use(self, card, args):
        """`use: <item> [, ...], in assembly;` (manual §5.2.2, "Use"): the items' elements take
        part in the initial assembly.  mbdae supports `surface loads` (their loads enter the
        position subproblem, as MBDyn's InitialAssRes of the pressure loads does); `joints`
        and `beams` are MBDyn's defaults (mbdae's assembly has the joints only)."""
        items = []
        while args.more() and args.peek_keyword() != "inassembly":
            w = args.take("an item")
            kw = normalize(w.text)
            if kw == "surfaceloads":
                items.append(kw)
            elif kw in USE_ITEMS:
                raise w.error(not_supported(f"use: {w.text.strip()}, in assembly (mbdae's initial assembly "
                                            "takes the joints and, on request, the surface loads)"))
            else:
                raise w.error(f"syntax error: unknown item '{w.text.strip()}' in 'use' (one of "
                              f"{', '.join(USE_ITEM_NAMES)})")
        if not items:
            raise card.name.error("use: an item list is expected before 'in assembly'")
        args.expect_keyword("in assembly")
        self.model.surface_loads_in_assembly = True

    def cd_model(self, card, args):
        """`model: static;` (manual, control data, "Model"): every dynamic node becomes static
        (dynamic displacement nodes static displacement ones) and inertia is ignored: the
        Model's `static_model` is set (the solid elements read it) and, once the deck is read,
        the model is converted (weights become forces, engine/drivers/static.py static_model);
        each time step then solves a static equilibrium at the loads of its time."""
        args.expect_keyword("static")
        if self.model.rigid_body_kinematics is not None:
            raise card.name.error(not_supported(STATIC_RBK))
        self.static_model = True
        self.model.static_model = True

    def cd_rigid_body_kinematics(self, card, args):
        """`rigid body kinematics: {const | drive} [, position, X] [, orientation, R | θ(t)]
        [, velocity, V] [, angular velocity, W] [, acceleration, A] [, angular acceleration,
        Ẇ];` (manual, control data, "Rigid Body Kinematics"): constant vectors and an
        orientation matrix, or template drives (the orientation as a rotation vector).  Stored
        as the Model's `rigid_body_kinematics` (engine/core/rbk.py): the nodes, rigid bodies
        and solid elements add the frame's inertial loads; a null constant one is ignored, as
        MBDyn ignores it."""
        kind = args.expect_keyword("const", "drive")
        given = {}
        for word, name in RBK_WORDS:
            if args.is_keyword(word):
                if kind == "const":
                    given[name] = self.read_orientation(args, "abs") if name == "orientation" else \
                        self.read_vec3(args, "abs position" if name == "position" else "abs direction")
                else:
                    given[name] = self.read_tpl_vec3(args, "abs direction", GLOBAL_SITE)
        if not given:
            raise card.args[0].error("rigid body kinematics: at least one of position, orientation, "
                                     "velocity, angular velocity, acceleration, angular acceleration expected")
        if self.static_model:
            raise card.name.error(not_supported(STATIC_RBK))
        if kind == "const":
            if all(np.array_equal(v, np.eye(3)) if k == "orientation" else not np.any(v) for k, v in given.items()):
                self.note(card.name, "null rigid body kinematics ignored (as MBDyn does)")
                return
            self.model.rigid_body_kinematics = RigidBodyKinematics.constant(**given)
        else:
            self.model.rigid_body_kinematics = RigidBodyKinematics("drive", given)

    def cd_output_meter(self, card, args):
        """`output meter: (DriveCaller) meter;` (manual, control data, "Output Meter"): output
        only at the steps where the meter is not zero (the initial configuration always);
        `closest next, t_start, {forever | t_end}, Δ` (manual, "Closest next drive") is read
        here, as the meter it is (engine/drivers/output_meter.py).  It replaces an `output
        frequency` (as MBDyn's meter does)."""
        if self.problem_name in ("inversedynamics", "kinematicanalysis"):
            what = "an inverse dynamics" if self.problem_name == "inversedynamics" else "a kinematic analysis"
            raise card.name.error(not_supported(f"output meter in {what} problem"))
        if args.is_keyword("closest next"):
            start = args.real("the initial time")
            end = None if args.is_keyword("forever") else args.real("the final time")
            meter = ClosestNextMeter(start, end, self.read_drive(args))
        else:
            meter = DriveMeter(self.read_drive(args))
        self.settings["output_meter"] = meter
        self.settings.pop("output_frequency", None)

    def cd_automatic_differentiation(self, card, args):
        """`use automatic differentiation;` (manual, control data): mbdae's Jacobians are the
        families' own analytic ones."""
        self.note(card.name, "use automatic differentiation: mbdae assembles its own analytic "
                             "Jacobians (no effect)")

    def cd_initial_assembly_of_deformable(self, card, args):
        """`initial assembly of deformable and force elements;` (manual, control data): MBDyn
        lets deformable and force elements take part in its initial assembly; mbdae's initial
        assembly (§6.1) solves the joints' constraints only, which leaves a model whose
        deformable elements start undeformed unchanged; said in one note."""
        self.note(card.name, "initial assembly of deformable and force elements: mbdae's initial "
                             "assembly involves the joints only (deformable and force elements keep "
                             "their input configuration)")

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
        if n > 1 and self.problem_name == "kinematicanalysis":
            raise w.error(not_supported("output frequency in a kinematic analysis (every instant is written)"))
        self.settings["output_frequency"] = n
        self.settings.pop("output_meter", None)       # the later of the two cards counts

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
        self.model.origins[(family, label)] = f"{word.source.name}:{word.where()[0]}"

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


R, P = ControlCards, ProblemCards
CONTROL_CARDS = table(
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
        ("default orientation", R.cd_default_orientation), ("output units", P.card_accepted_note),
        ("select timeout", P.card_accepted_note), ("default beam output", P.card_accepted_note),
        ("default aerodynamic output", P.card_accepted_note), ("loadable path", P.card_accepted_note),
        ("use automatic differentiation", R.cd_automatic_differentiation),
        ("rigid body kinematics", R.cd_rigid_body_kinematics), ("output meter", R.cd_output_meter),
        ("initial assembly of deformable and force elements", R.cd_initial_assembly_of_deformable),
        ("finite difference jacobian meter", P.card_accepted_note),
        ("linear solver", P.iv_linear_solver), ("solver", P.iv_linear_solver),
        ("threads", P.iv_threads), ("model", R.cd_model), ("use", R.cd_use),
    ])
UNSUPPORTED_CONTROL_CARDS = table([
    ("make restart file", None), ("load restart file", None),
    ("default scale", "residual scaling"), ("jacobian check", None),
])
del R, P
