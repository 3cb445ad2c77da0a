"""The drivers and elements blocks of MBDyn decks (manual ch. 7-8): the element dispatch
(family cards from elements/registry.py, read by the family modules' CARDS readers), the
joint card's head and options, and the element cards of no family (gravity, inertia, output,
bind): the reader's ``ElementCards`` part and its card tables.

A family reader is called as ``reader(deck_reader, model, args, label, word)`` after the card's
head was read here: for a joint type (`joint: <label>, <type>, ...`) `word` is the type word;
for another element card (ELEMENT_HEADS) the label and name are read and counted here and
`word` is the label word."""
from __future__ import annotations

import re

import numpy as np

from mbdae.elements.driven import Hint
from mbdae.elements.solid import solid_mass_properties
from mbdae.elements.modal import modal_mass_properties
from mbdae.elements.aerodynamic import read_air_properties
from mbdae.elements.solid_shapes import SOLID_SHAPES, SURFACE_SHAPES
from mbdae.elements.registry import element_cards
from mbdae.engine.core.drives import ConstDrive, constant_value
from mbdae.engine.io.mbdyn.args import Args
from mbdae.engine.io.mbdyn.control import NODE_FAMILIES
from mbdae.engine.io.mbdyn.geometry import GLOBAL_SITE, I3
from mbdae.engine.io.mbdyn.lexer import Card, Source, Word, normalize, not_supported, scan_cards, shown, table

# MBDyn elements and joint types mbdae does not have: reading one stops with "not supported yet"
UNSUPPORTED_ELEMENTS = (
    "automatic structural", "hbeam2",
    "plate", "solid", "surface loads", "pressure load",
    "traction load",
    "aeromodal", "aerodynamic external", "aerodynamic external modal", "electric",
    "thermal", "hydraulic", "bulk", "loadable", "user defined", "stream output",
    "stream motion output", "rtai output", "gust")
UNSUPPORTED_JOINTS = (
    "revolute rotation", "cardano pin", "cardano rotation", "universal pin", "universal rotation",
    "plane rotation", "gimbal rotation", "beam slider",
    "brake", "screw", "plane displacement", "plane displacement pin", "linear velocity",
    "linear acceleration", "angular acceleration", "imposed orientation",
    "kinematic", "point contact",
    "coincidence", "total reaction", "gimbal hinge",
    "continuous contact", "hydraulic actuator")
# element cards read by a family module: what the label is, whether `name, "..."` may follow
# it, the family counted (the other family cards are joint types)
ELEMENT_HEADS = table([
    ("body", ("a body label", True, "rigid bodies")), ("force", ("a force label", True, "forces")),
    ("couple", ("a force label", True, "forces")), ("beam", ("a beam label", True, "beams")),
    ("beam3", ("a beam label", True, "beams")), ("beam2", ("a beam label", True, "beams")),
    ("hbeam", ("a beam label", True, "beams")), ("genel", ("a genel label", True, "genels")),
    ("joint regularization", ("a joint label", False, "joint regularizations")),
    ("driven", ("a driven element label", False, None)),
    ("hydrodynamic body", ("a hydrodynamic body label", False, None)),
    ("membrane4eas", ("a plate label", True, "plates")),
    ("shell4eas", ("a plate label", True, "plates")), ("shell4easans", ("a plate label", True, "plates")),
    ("induced velocity", ("an induced velocity label", True, "induced velocity elements")),
    ("rotor", ("a rotor label", True, "induced velocity elements")),
    ("aerodynamic body", ("an aerodynamic element label", True, "aerodynamic elements")),
    ("aerodynamic beam2", ("an aerodynamic element label", True, "aerodynamic elements")),
    ("aerodynamic beam", ("an aerodynamic element label", True, "aerodynamic elements")),
    ("aerodynamic beam3", ("an aerodynamic element label", True, "aerodynamic elements")),
    ("aircraft instruments", ("an aerodynamic element label", False, "aerodynamic elements")),
    ("generic aerodynamic force", ("an aerodynamic element label", False, "aerodynamic elements")),
] + [(shape, ("a solid label", True, "solids")) for shape in SOLID_SHAPES]
  + [(f"{kind}{shape}", ("a surface load label", True, "surface loads"))
     for kind in ("pressure", "traction") for shape in SURFACE_SHAPES])
FAMILY_CARDS = table(element_cards().items())
JOINT_TYPES = {k: reader for k, reader in FAMILY_CARDS.items() if k not in ELEMENT_HEADS}


class ElementCards:
    """Reader part: the drivers and elements blocks."""

    def read_drivers_block(self, word):
        self.block_cards(word, "drivers", DRIVER_CARDS, "drivers")

    def driver_file(self, card, args):
        raise card.name.error(not_supported("file drivers"))

    def read_elements_block(self, word):
        end = self.block_cards(word, "elements", ELEMENT_CARDS, "elements")
        if self.exited:
            return
        families = [f for f in self.declared if f not in NODE_FAMILIES and f != "file drivers"]
        self.check_missing(end.name, families + ["gravity"], "elements")

    def air_properties(self, card, args):
        """`air properties: ...;` (elements/aerodynamic.py reads it, free stream in the global frame)."""
        read_air_properties(self, self.model, args, card.name, GLOBAL_SITE)

    def element_unsupported(self, card, args):
        raise card.name.error(not_supported(f"{shown(card.name.text)} (element)"))

    def family_element(self, card, args):
        """An element card of a family (ELEMENT_HEADS): its head here, the rest by the family."""
        what, named, family = ELEMENT_HEADS[card.key]
        word = args.peek()
        label = args.label(what)
        if named:
            args.optional_name()
        if family is not None:
            self.count(family, label, word)
        FAMILY_CARDS[card.key](self, self.model, args, label, word)

    def read_element_card(self, args):
        """The element card of `args` (the inner card of a driven element)."""
        ELEMENT_CARDS[args.card.key](self, args.card, args)

    def inner_element_card(self, args):
        """The last arguments of a driven element, `<type>: <label>, ...`, as a card of its own
        (manual §8.20.2); returns its Args."""
        card = args.card
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
        return Args(self, sub)

    def joint(self, card, args):
        """`joint: <label>, [name,] <type>, ... [, output, ...]` (manual §8.12): the type's
        reader (a family's CARDS), then the options common to joints."""
        word = args.peek()
        label = args.label("a joint label")
        args.optional_name()
        self.count("joints", label, word)
        tw = args.take("a joint type")
        jtype = normalize(tw.text)
        reader = JOINT_TYPES.get(jtype)
        if reader is None:
            if jtype in {normalize(j) for j in UNSUPPORTED_JOINTS}:
                raise tw.error(not_supported(f"{shown(tw.text)} (joint)"))
            raise tw.error(f"syntax error: unknown joint type '{tw.text}'")
        m = self.model
        pools = (m.joints, m.rods, m.deformable, m.viscous_bodies, m.angular_velocity_joints,
                 m.rigid_body_displacement_joints, m.modal_joints)
        before = [len(pool) for pool in pools]
        reader(self, self.model, args, label, tw)
        output = self.read_joint_options(args, label)
        for pool, n in zip(pools, before):
            for spec in pool[n:]:
                spec.output = output

    def read_joint_options(self, args, label):
        """The options after any joint type: `output`, `orientation description`, `inverse
        dynamics`; returns the output flag."""
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
        return output

    def element_output(self, card, args):
        """`output: <element type>, labels... | range, a, b` (manual §8.20.4)."""
        w = args.peek()
        kind = args.expect_keyword("joint", "force", "couple", "body", what="an element type")
        pools = {"joint": self.model.joints + self.model.rods + self.model.angular_velocity_joints
                 + self.model.rigid_body_displacement_joints,
                 "force": self.model.forces,
                 "couple": self.model.forces, "body": []}
        for label in self.read_label_list(args):
            specs = [s for s in pools[kind] if s.label == label]
            if not specs:
                raise w.error(f"{w.text.strip().capitalize()}({label}) is not defined; output cannot be modified")
            for s in specs:
                s.output = True

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
        """`inertia: label, [name,] [position, X] [, orientation, R], <type>, {all | labels}
        [, ...] [, output, ...]` (manual §8.20.3): mass properties of the selected elements at
        the initial configuration, written to the .log file.  Types: body, solid (their mass
        matrices), joint (MBDyn's only joint with inertia is the modal joint: its mass
        properties at the initial modal coordinates; other joints add nothing) and loadable
        (mbdae has no loadable elements: they add nothing; listed labels must exist)."""
        word = args.peek()
        label = args.label("an inertia label")
        name = args.optional_name()
        X, R = np.zeros(3), I3
        if args.is_keyword("position"):
            X = self.read_vec3(args, "abs position")
        if args.is_keyword("orientation"):
            R = self.read_orientation(args, "abs")
        selected = {}                  # type -> None (all) or a list of labels
        families = {"body": "rigid bodies", "joint": "joints", "solid": "solids", "loadable": "loadable elements"}
        while args.more() and args.peek_keyword() != "output":
            tw = args.peek()
            kind = args.expect_keyword(*families, what="an element type")
            if kind in selected:
                raise tw.error(f"inertia {label}: {tw.text} elements listed twice")
            if args.is_keyword("all"):
                selected[kind] = None
                continue
            labels = selected[kind] = []
            while args.more() and args.peek_keyword() not in ("output", *families):
                lw = args.peek()
                element = args.label(f"a {kind} label")
                if element in labels:
                    raise lw.error(f"inertia {label}: {kind} {element} listed twice")
                if element not in self.element_labels.get(families[kind], set()):
                    raise lw.error(f"inertia {label}: {kind} {element} is not defined")
                labels.append(element)
        mode, ow = "log", None
        if args.is_keyword("output"):
            ow = args.peek()
            mode = args.expect_keyword("no", "yes", "log", "both", "always")
            if mode in ("yes", "both"):
                self.note(ow, f"inertia output '{ow.text}': mbdae writes the inertia summary to the .log "
                              "file only (not to standard output)")
        if mode == "no":
            return
        if mode == "always":
            # an element recomputed at each step (elements/inertia.py): its private data
            if selected.get("solid", []) != []:
                raise ow.error(not_supported("inertia output 'always' of solid elements (rigid bodies only)"))
            self.count("inertia", label, word)
            try:
                self.model.inertia_element(label, selected.get("body", []), X, R, name or "")
            except ValueError as e:
                raise word.error(str(e)) from None
            self.note(word, f"inertia {label}: output always: its mass properties are recomputed at every "
                            "step for its private data; MBDyn's per-step text output of inertia elements "
                            "is not written")
            return
        self.log_lines += inertia_summary(label, name, self.model, self.nodes, selected, X, R)

    def bind(self, card, args):
        """`bind: <element label>, <element type>, <parameter node>, {name | string, "<datum>" |
        [index,] <i>}` (manual §8.20.1): the parameter node takes the element's private datum
        (a beam strain gage: the index is the evaluation point); engine/parameters.py."""
        w = args.peek()
        elabel, kind = self.read_element_reference(args, "bind")
        pw = args.peek()
        plabel = args.label("a parameter node label")
        pkind = self.parameter_nodes.get(plabel)
        if pkind is None:
            raise pw.error(f"parameter node {plabel} is not defined")
        if pkind == "value":
            raise pw.error(f"parameter node {plabel} holds a value; only 'element' and 'beam strain gage' "
                           "parameter nodes can be bound")
        bound = self.bound_parameters
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
        kind = args.expect_keyword("joint", "force", "couple", "body", "beam", "inertia", "solid",
                                   "aerodynamic element", what="an element type")
        kind = {"couple": "force", "aerodynamicelement": "aerodynamic element"}.get(kind, kind)
        family = {"joint": "joints", "force": "forces", "body": "rigid bodies", "beam": "beams",
                  "inertia": "inertia", "solid": "solids", "aerodynamic element": "aerodynamic elements"}[kind]
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
                src = Source(word.source.path, text=f"hint: {body};",
                             name=f'{word.source.name} (hint "{shown(text)}" of line {word.where()[0]})')
                hargs = Args(self, next(scan_cards(src)))
                drive = self.read_tpl_vec3(hargs, "rel direction", GLOBAL_SITE) if vector else self.read_drive(hargs)
                hargs.expect_end()
                return drive
            finally:
                self.live_view = None
        make(None)              # syntax now (model:: functions on the initial configuration)
        return Hint(kinds[name], make=make, text=text)


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


def inertia_summary(label, name, model, nodes, selected, X, R):
    """Mass, centre of mass and inertia (about it, in frame R) of the selected bodies and
    solids ({type: None (all) or labels}) at the initial configuration, as .log lines."""
    def chosen(kind, specs):
        labels = selected.get(kind, [])
        return [s for s in specs if labels is None or s.label in labels]
    bodies = chosen("body", model.bodies)
    solids = chosen("solid", model.solids)
    modal = chosen("joint", model.modal_joints)          # MBDyn's only joints with inertia
    m, s1, s2 = 0.0, np.zeros(3), np.zeros((3, 3))       # ∫dm, ∫x dm, ∫x xᵀ dm (global frame)
    for spec in modal:
        if spec.node is None:
            x0, R0 = np.asarray(spec.position, float), np.asarray(spec.orientation, float)
        else:
            x0, R0 = nodes[spec.node].frame.x, nodes[spec.node].frame.R
        mj, m1, m2 = modal_mass_properties(spec, x0, R0)
        m, s1, s2 = m + mj, s1 + m1, s2 + m2
    for b in bodies:
        f = nodes[b.node].frame
        c = f.x + f.R @ b.xcg
        Jc = f.R @ b.J_cg @ f.R.T
        m += b.mass
        s1 += b.mass * c
        s2 += b.mass * np.outer(c, c) + 0.5 * np.trace(Jc) * I3 - Jc
    if solids:
        ms, m1, m2 = solid_mass_properties(solids, {k: info.frame.x for k, info in nodes.items()})
        m, s1, s2 = m + ms, s1 + m1, s2 + m2
    cg = s1 / m if m else np.zeros(3)
    about_cg = s2 - m * np.outer(cg, cg)
    J = np.trace(about_cg) * I3 - about_cg
    J_local = R.T @ J @ R
    fmt = lambda a: " ".join(f"{v:.6e}" for v in np.ravel(a))
    head = f"inertia: {label}" + (f" \"{name}\"" if name else "")
    lines = [head, f"    mass:        {m:.6e}", f"    J:           {fmt(J_local)}",
             f"    Xcg:         {fmt(R.T @ (cg - X))}", f"    bodies:      {len(bodies)}"]
    if "solid" in selected:
        lines.append(f"    solids:      {len(solids)}")
    if modal:
        lines.append(f"    modal joints: {len(modal)}")
    return lines


R = ElementCards
DRIVER_CARDS = table([("file", R.driver_file)])
ELEMENT_CARDS = table(
    [("gravity", R.gravity), ("joint", R.joint), ("inertia", R.inertia), ("output", R.element_output),
     ("bind", R.bind), ("air properties", R.air_properties)]
    + [(k, R.family_element) for k in ELEMENT_HEADS]
    + [(k, R.element_unsupported) for k in UNSUPPORTED_ELEMENTS])
del R
