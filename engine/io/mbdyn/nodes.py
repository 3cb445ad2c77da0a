"""The nodes block of MBDyn decks (manual ch. 6): structural (static, dynamic, static and
dynamic displacement, dummy), abstract, hydraulic and parameter nodes, node output, and the
NodeDof reference (§2.5): the reader's ``NodeCards`` part and its card table."""
from __future__ import annotations

import numpy as np

from mbdae.elements.genel import NodeDof
from mbdae.engine.io.mbdyn.control import NODE_FAMILIES
from mbdae.engine.io.mbdyn.geometry import Frame, NodeInfo, Site
from mbdae.engine.io.mbdyn.lexer import normalize, not_supported, shown, table

NODE_TYPES = ("structural", "abstract", "electric", "hydraulic", "thermal", "parameter")
# structural node keywords (normalized) -> the Model's node kinds
STRUCTURAL_KINDS = {"static": "static", "dynamic": "dynamic", "modal": "modal", "staticdisplacement": "static displacement",
                    "dynamicdisplacement": "dynamic displacement"}


class NodeCards:
    """Reader part: the nodes block."""

    def read_nodes_block(self, word):
        end = self.block_cards(word, "nodes", NODE_CARDS, "nodes")
        if not self.exited:
            self.check_missing(end.name, NODE_FAMILIES, "nodes")

    def node_unsupported(self, card, args):
        raise card.name.error(not_supported(f"{shown(card.name.text)} (node)"))

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
                raise kw.error(not_supported(f"{shown(kw.text)} parameter node"))
            args.is_keyword("value")
            value = args.real("an initial value")
        output = self.read_output_flag(args, "parameter nodes") if args.is_keyword("output") \
            else "parameter nodes" in self.default_output
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

    def node_hydraulic(self, card, args):
        """`hydraulic: <label> [, [value,] <p0>] [, scale, ...] [, output, ...]` (manual, Nodes,
        "Hydraulic Node": an algebraic scalar node, a pressure; elements/abstract_nodes.py)."""
        w = args.peek()
        label = args.label("a hydraulic node label")
        self.count("hydraulic nodes", label, w)
        p0 = 0.0
        if args.more() and args.peek_keyword() not in ("output", "scale"):
            args.is_keyword("value")
            p0 = args.real("the initial value")
        if args.is_keyword("scale"):
            args.is_keyword("default") or args.real("a scale factor")
        output = self.read_output_flag(args, "hydraulic nodes") if args.is_keyword("output") \
            else "hydraulic nodes" in self.default_output
        self.model.hydraulic_node(label, p0, output)

    def read_node_dof(self, args, order=True):
        """(NodeDof) `<label>, {abstract | hydraulic | structural, <index>} [, {algebraic |
        differential}]` (manual §2.5); elements/genel.py NodeDof."""
        w = args.peek()
        label = args.label("a node label")
        tw = args.peek()
        ntype = args.expect_keyword("abstract", "hydraulic", "structural",
                                    what="a node type (abstract, hydraulic or structural)")
        index = 1
        if ntype in ("abstract", "hydraulic"):
            if label not in self.element_labels.get(f"{ntype} nodes", set()):
                raise w.error(f"{ntype.capitalize()}({label}) is not defined")
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

    def node_structural(self, card, args):
        """`structural: label, [name,] {static | dynamic | dummy ...}, X, R, V, W [, options]`
        and `structural: label, [name,] {static displacement | dynamic displacement}, X, V
        [, options]` (manual §6.5, "Syntax": displacement nodes have no orientation and no
        angular velocity; `at reference, <frame>` takes X, V (and R, W) from a frame; their
        `assembly` option has no omega-rotates flag).  A displacement node's frame is the
        identity at rest."""
        word = args.peek()
        label = args.label("a node label")
        args.optional_name()
        kw_word = args.peek()
        kind = args.expect_keyword("static", "dynamic", "dummy", "modal", "static displacement",
                                   "dynamic displacement", what="a structural node type")
        self.count("structural nodes", label, word)
        if kind == "dummy":
            return self.read_dummy_node(args, label, word)
        if kind not in STRUCTURAL_KINDS:
            raise kw_word.error(not_supported(f"{shown(kw_word.text)} (structural node)"))
        kind = STRUCTURAL_KINDS[kind]
        displacement = kind.endswith("displacement")
        od = self.default_orientation
        R, w = np.eye(3), np.zeros(3)
        if args.is_keyword("at reference"):
            frame = self.frame_by_label(args)
            x, v = frame.x, frame.v
            if not displacement:
                R, w = frame.R, frame.w
        else:
            args.is_keyword("position")
            x = self.read_vec3(args, "abs position")
            if not displacement:
                args.is_keyword("orientation")
                R = self.read_orientation(args, "abs")
                if args.is_keyword("orientation description"):
                    od = self.read_orientation_description(args)
            args.is_keyword("velocity")
            v = self.read_vec3(args, "abs velocity", at=x)
            if not displacement:
                args.is_keyword("angular velocity")
                w = self.read_vec3(args, "abs angular velocity")
        if not displacement and args.is_keyword("orientation description"):
            od = self.read_orientation_description(args)
        options = self.read_node_options(args, displacement)
        output = options.pop("output", "structural nodes" in self.default_output)
        spec_kw = dict(position=x, velocity=v, output=output,
                       assembly_stiffness=options.get("assembly", self.default_assembly_stiffness))
        if not displacement:
            spec_kw.update(orientation=R, angular_velocity=w, orientation_description=od)
        self.model.structural_node(label, kind, **spec_kw)
        self.nodes[label] = NodeInfo(label, kind, Frame(x, R, v, w), self.model.nodes[-1])

    def read_node_options(self, args, displacement=False):
        """The options after a node's kinematics: `assembly, p, v [, omega rotates]` (no flag
        for displacement nodes), `scale`, `output`, `accelerations`, `output inertia`."""
        options = {}
        while args.more():
            w = args.peek()
            kw = args.expect_keyword("assembly", "scale", "output", "accelerations", "output inertia",
                                     "prediction node", "orientation description", what="a node option")
            if kw == "assembly":
                p, v = args.real("the position stiffness"), args.real("the velocity stiffness")
                ow = args.peek()
                if not displacement and args.boolean():
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
                raise w.error("syntax error: a displacement node has no orientation" if displacement else
                              "syntax error: 'orientation description' must follow the orientation")
            else:
                raise w.error(not_supported("prediction node"))
        return options

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
            raise w.error(not_supported(f"{shown(w.text)} (node)"))
        for label in self.read_label_list(args):
            info = self.nodes.get(label)
            if info is None:
                raise w.error(f"Structural({label}) is not defined; output cannot be modified")
            info.spec.output = True


R = NodeCards
NODE_CARDS = table([("structural", R.node_structural), ("output", R.node_output),
                     ("parameter", R.node_parameter), ("abstract", R.node_abstract),
                     ("hydraulic", R.node_hydraulic)]
                    + [(k, R.node_unsupported) for k in NODE_TYPES
                       if k not in ("structural", "parameter", "abstract", "hydraulic")])
del R
NODE_OPTION_WORDS = {normalize(k) for k in ("assembly", "scale", "output", "accelerations",
                                            "output inertia", "prediction node")}
