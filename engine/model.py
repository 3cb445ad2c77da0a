"""Model: the plain description of a multibody system (what the user built), and the
Python API to build it.  Nothing here computes; `System(model)` lays out the unknowns and
`InitialValueProblem` runs it.

Orientation matrices are 3×3 arrays; offsets of joints, forces and bodies are in the
node frame unless the argument name says `absolute`.  Drives are objects of
mbdae.engine.core.drives (scalar) or mbdae.engine.core.tpldrive.VectorDrive (vectors); a plain
number or 3-vector is taken as a constant.
"""
from mbdae.engine.core.nodes import NodeSpec, DummyNodeSpec, NODE_KINDS
from mbdae.engine.core.privdata import ElementDrive, ModelNamespace
from mbdae.elements.base import vec, mat, scalar_drive
from mbdae.elements.registry import ENTRIES

# family name (System) -> the deck reader's family of its cards (Model.origins keys)
DECK_FAMILY = {"structural node": "structural nodes", "joint": "joints", "rod": "joints",
               "deformable joint": "joints", "viscous body": "joints", "angular velocity": "joints",
               "rigid body displacement joint": "joints", "modal joint": "joints", "body": "rigid bodies",
               "beam3": "beams", "beam2": "beams", "hbeam": "beams", "force": "forces", "shell": "plates",
               "membrane": "plates", "abstract node": "abstract nodes", "hydraulic node": "hydraulic nodes",
               "spring support": "genels", "cross spring support": "genels", "genel clamp": "genels",
               "abstract force": "forces", "joint regularization": "joint regularizations",
               "hull buoyancy": "forces"}


class Model:
    """The user's model: node and element specs, gravity, settings.  The element builder
    methods (`body`, `revolute_hinge`, `beam3`, ...) are the families' own (each module's
    MODEL_METHODS, attached below from the registry), so a new family adds its methods in
    its module only."""

    def __init__(self):
        self.nodes = []
        self.dummy_nodes = []
        for entry in ENTRIES:            # the families' spec lists: bodies, joints, beams, ...
            for name, factory in entry.model_fields.items():
                setattr(self, name, None if factory is None else factory())
        self.inverse_flags = {}          # label -> {flag: bool}, see inverse_dynamics_flags
        # `model: static` (control data, input manual "Model"): dynamic nodes are static and
        # inertia is ignored; engine/drivers/static.py static_model sets it on the static copy it
        # makes, and families with inertia of their own (the solids) read it
        self.static_model = False
        # `rigid body kinematics` (control data): engine/core/rbk.py RigidBodyKinematics, or None
        self.rigid_body_kinematics = None
        # where each node and element was defined when the model came from a deck: (the deck
        # reader's family, e.g. "joints" or "structural nodes", label) -> "file:line"
        # (engine/io/mbdyn/control.py count); engine/diagnose.py names them with it
        self.origins = {}

    def origin(self, family, label):
        """"file:line" of the deck card that defined element or node `label` of the System's
        family `family` (e.g. "joint", "structural node"), or "" (a model built in Python)."""
        return self.origins.get((DECK_FAMILY.get(family, family), int(label))) or ""

    # ------------------------------------------------------------------ nodes
    def structural_node(self, label, kind="dynamic", position=None, orientation=None,
                        velocity=None, angular_velocity=None, output=True,
                        orientation_description="euler123", assembly_stiffness=None):
        """Static (6 unknowns) or dynamic (12 unknowns) structural node (manual §8.1.1-2), or
        a displacement-only node of the solid elements (theory manual §12.0.6): `static
        displacement` (x, 3 unknowns) or `dynamic displacement` (x and β, 6 unknowns), whose
        orientation and angular velocity are not used."""
        if kind not in NODE_KINDS:
            raise ValueError(f"structural node {label}: kind must be one of {', '.join(NODE_KINDS)}, not {kind!r}")
        spec = NodeSpec(label, kind, vec(position), mat(orientation), vec(velocity), vec(angular_velocity), output,
                        orientation_description, assembly_stiffness)
        cache = self.__dict__.get("_node_cache")
        self.nodes.append(spec)
        if cache is not None and cache[0] is self.nodes and cache[1] == len(self.nodes) - 1:
            cache[2].setdefault(spec.label, spec)
            self._node_cache = (self.nodes, len(self.nodes), cache[2])
        return label

    def dummy_node(self, label, base, offset=None, orientation=None, output=True,
                   orientation_description="euler123"):
        """Offset dummy node: output of the point x + R f with orientation R R_h (eq. 8.27)."""
        self.dummy_nodes.append(DummyNodeSpec(label, base, vec(offset), mat(orientation), output,
                                              orientation_description))
        return label

    # ------------------------------------------------------------------ inverse dynamics
    def inverse_dynamics_flags(self, label, torque=None, prescribed_motion=None, right_hand_side=None,
                               ergonomy=None):
        """Role of joint/element `label` in an inverse-dynamics problem (MBDyn's `inverse
        dynamics` flags, manual §6.3): `torque` (its rows enter the dynamics subproblem),
        `prescribed motion` (its rows enter the kinematics), `right hand side` / `ergonomy`
        for deformable elements (their loads in f / their energy in the position objective).
        Flags not given keep their defaults (torque, prescribed motion, right hand side: yes)."""
        f = self.inverse_flags.setdefault(label, {})
        for key, val in (("torque", torque), ("prescribed motion", prescribed_motion),
                         ("right hand side", right_hand_side), ("ergonomy", ergonomy)):
            if val is not None:
                f[key] = bool(val)
        return label

    def element_drive(self, kind, label, name, drive):
        """`element` drive caller: drive(private datum `name` of element `label` of type
        `kind`) on the current state (engine/privdata.py ElementDrive)."""
        if getattr(self, "namespace", None) is None:
            self.namespace = ModelNamespace()
        return ElementDrive(self.namespace, kind, label, name, scalar_drive(drive))

    # ------------------------------------------------------------------ helpers
    def nodes_by_label(self):
        """{label: NodeSpec} of the structural nodes (the first of a repeated label), kept up
        to date as nodes are added and rebuilt when the list was replaced: model builders look
        nodes up in constant time (10⁵ shells or joints on 10⁵ nodes)."""
        cache = self.__dict__.get("_node_cache")
        if cache is None or cache[0] is not self.nodes or cache[1] != len(self.nodes):
            found = {}
            for spec in self.nodes:
                found.setdefault(spec.label, spec)
            cache = self._node_cache = (self.nodes, len(self.nodes), found)
        return cache[2]

    def _node_spec(self, label):
        try:
            return self.nodes_by_label()[label]
        except KeyError:
            raise KeyError(f"structural node {label} is not defined") from None

    def _point_of(self, node, offset):
        s = self._node_spec(node)
        return s.x + s.R @ vec(offset)


def _attach_family_methods():
    """Each registry module's MODEL_METHODS become Model methods, under their own names."""
    for entry in ENTRIES:
        for method in entry.model_methods:
            if hasattr(Model, method.__name__):
                raise ValueError(f"Model.{method.__name__} is defined twice ({entry.name})")
            setattr(Model, method.__name__, method)


_attach_family_methods()
