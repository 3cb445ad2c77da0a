"""Private data of nodes and elements and MBDyn's `model::node::<type>` and
`model::element::<type>` math functions (input manual §2.2.1, table "Functions in the model
namespace": `node::<type>(label, "name")`, `element::<type>(label, "name")`).

The names are MBDyn's (input manual, "Private Data" paragraph of each element and §6.5 for
structural nodes).  Each element family answers `private_data_names(i)` (the names
instance i defines) and `private_data(ctx, name)` (the value for all its instances, one
vectorized evaluation).  A `ModelNamespace` registers the functions in a MathParser and,
once a System is built for the model (`model.namespace`), reads them from the state the
System is evaluating: `System.evaluate` binds its Context before any family runs, so a
string drive that calls `model::element::body(1, "E")` sees the current Newton iterate.

Such a drive depends on the state, not on time: its time derivative does not exist (the
math parser refuses to differentiate it, as MBDyn's string drive callers are not
differentiable) and the element using it must re-evaluate it at every residual instead of
once per time step (elements/forces.py does; other elements refuse it, see `attach`)."""
import re
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.drives import Drive

ELEMENT_KINDS = ("body", "joint", "force", "beam", "inertia", "solid", "aerodynamic element")
"""MBDyn element types the model namespace knows here (`model::element::<kind>`)."""

_NODE_NAME = re.compile(r"^\s*(X|x|Phi|XP|xP|Omega|omega|E|E313|E321|PE|XPP|xPP|OmegaP|omegaP)\[(\d)\]\s*$")


def unwrap_rotation_vector(previous, theta):
    """MBDyn's Unwrap(θ_prev, θ) (libmbmath), vectorized over rows: the rotation vector θ of
    norm ≤ π rescaled along its own axis by a multiple of 2π so that its signed angle (negative
    when θ points against θ_prev) lies within π of |θ_prev|.  A relative rotation about a
    fixed axis thus keeps counting turns when it is unwrapped step after step."""
    previous = np.asarray(previous, float)
    theta = np.asarray(theta, float)
    angle = np.linalg.norm(theta, axis=-1)
    prev_angle = np.linalg.norm(previous, axis=-1)
    signed = np.where(np.einsum('...i,...i->...', previous, theta) < 0, -angle, angle)
    turns = np.round((prev_angle - signed) / (2 * np.pi))
    shifted = signed + 2 * np.pi * turns
    use = (angle > 0) & (prev_angle > np.finfo(float).eps) & (turns != 0)
    scale = np.where(use, shifted / np.where(signed != 0, signed, 1.0), 1.0)
    return theta * scale[..., None]


def node_private_data(kin, quantity, accelerations=None):
    """Structural-node private datum `quantity` (the part before "[i]") for all nodes, (n, 3)
    or (n, 4) for PE (input manual §6.5): X, x = Rᵀ X, Phi (minimal rotation vector), XP,
    xP = Rᵀ ẋ, Omega, omega = Rᵀ ω, E/E313/E321 (Cardan angles, radians), PE (Euler
    parameters of Phi, PE[0] = cos(|Phi|/2)); XPP, xPP, OmegaP, omegaP from `accelerations`
    = (a, ω̇) when given."""
    R = kin.R
    if quantity == "X":
        return kin.x
    if quantity == "x":
        return rot.mattvec(R, kin.x)
    if quantity == "Phi":
        return rot.log_rotvec(R)
    if quantity == "XP":
        return kin.v
    if quantity == "xP":
        return rot.mattvec(R, kin.v)
    if quantity == "Omega":
        return kin.w
    if quantity == "omega":
        return rot.mattvec(R, kin.w)
    if quantity == "E":
        return rot.R_to_euler123(R)
    if quantity == "E313":
        return rot.R_to_euler313(R)
    if quantity == "E321":
        return rot.R_to_euler321(R)
    if quantity == "PE":
        phi = rot.log_rotvec(R)
        angle = np.linalg.norm(phi, axis=-1)
        half = np.where(angle > 0, np.sin(0.5 * angle) / np.where(angle > 0, angle, 1.0), 0.5)
        return np.concatenate([np.cos(0.5 * angle)[:, None], half[:, None] * phi], axis=1)
    if accelerations is None:
        raise ValueError(f'node private datum "{quantity}" needs accelerations')
    a, wd = accelerations
    return {"XPP": a, "xPP": rot.mattvec(R, a), "OmegaP": wd, "omegaP": rot.mattvec(R, wd)}[quantity]


def state_sources(drive, _seen=None):
    """The ModelNamespace objects whose state a drive (scalar, composite or VectorDrive)
    reads at evaluation time; empty for a function of time only."""
    seen = set() if _seen is None else _seen
    if drive is None or id(drive) in seen:
        return []
    seen.add(id(drive))
    found = []
    expression = getattr(drive, "expression", None)
    if expression is not None and hasattr(expression, "state_sources"):
        found += expression.state_sources
    if isinstance(drive, ElementDrive):
        found.append(drive.namespace)
    children = []
    if hasattr(drive, "terms"):                          # VectorDrive: [(vector, drive)]
        children += [d for _, d in drive.terms]
    if getattr(drive, "registry", None) is not None and getattr(drive, "label", None) in drive.registry:
        children.append(drive.registry[drive.label])      # postponed drive
    for name in ("drives",):
        children += list(getattr(drive, name, None) or [])
    for name in ("d1", "d2", "outer", "inner"):
        if hasattr(drive, name):
            children.append(getattr(drive, name))
    for child in children:
        found += state_sources(child, seen)
    return list(dict.fromkeys(found))


class ModelNamespace:
    """`model::node::structural(label, "X[1]")` and `model::element::<kind>(label, "name")`
    on the state of the System that is evaluating (see the module docstring)."""

    def __init__(self):
        self.system = None
        self.context = None
        self._values = {}            # (family id, name) -> values of the bound context
        self._resolved = {}          # (kind, label, name) -> (family, index)

    # ------------------------------------------------------------------ wiring
    def register(self, parser):
        """Add the functions to a MathParser; each is flagged as reading this namespace's
        state (no derivative, re-evaluated at every residual)."""
        for kind in ELEMENT_KINDS:
            parser.register_function(f"model::element::{kind.split()[0]}",
                                     lambda label, name, kind=kind: self.element(kind, label, name),
                                     2, state_source=self)
        parser.register_function("model::node::structural", self.node, 2, state_source=self)
        parser.register_function("model::node::abstract", self.abstract_node, 2, state_source=self)
        parser.model_namespace = self
        return self

    def attach(self, system):
        """Called by System.__init__ for a model whose `namespace` is this object: labels are
        looked up in this system from now on.  State-dependent drives are accepted only where
        they are re-evaluated at every residual (forces and couples)."""
        self.system = system
        self.context = None
        self._values = {}
        self._resolved = {}
        model = system.model
        for what, specs in (("joint", model.joints), ("rod", model.rods), ("deformable joint", model.deformable),
                            ("body", model.bodies)):
            for spec in specs:
                for value in vars(spec).values():
                    is_drive = hasattr(value, "terms") or hasattr(value, "_evaluate_single")
                    if is_drive and state_sources(value):
                        raise ValueError(f"{what} {spec.label}: a drive that reads the model state "
                                         "(model::node/model::element) is accepted only by forces and couples")

    def bind(self, ctx):
        """The Context whose state the functions read until the next bind."""
        if ctx is not self.context:
            self.context = ctx
            self._values = {}

    def _require_state(self, what):
        if self.system is None or self.context is None:
            raise ValueError(f"{what}: the model state is not available here (only while a "
                             "simulation evaluates the model)")

    # ------------------------------------------------------------------ nodes
    def node(self, label, name):
        """`model::node::structural(label, "X[i]")` (input manual §6.5)."""
        what = f'model::node::structural({label}, "{name}")'
        self._require_state(what)
        m = _NODE_NAME.match(str(name))
        if not m:
            raise ValueError(f"{what}: unknown structural node private datum (X, x, Phi, XP, xP, Omega, "
                             "omega, E, E313, E321 [1-3], PE [0-3]; XPP, xPP, OmegaP, omegaP [1-3])")
        quantity, k = m.group(1), int(m.group(2))
        if not (0 <= k <= 3 if quantity == "PE" else 1 <= k <= 3):
            raise ValueError(f"{what}: index {k} out of range")
        nodes = self.system.nodes
        try:
            i = nodes.index(int(label))
        except KeyError:
            raise ValueError(f"{what}: structural node {int(label)} is not defined") from None
        key = ("node", quantity)
        if key not in self._values:
            acc = None
            if quantity in ("XPP", "xPP", "OmegaP", "omegaP"):
                acc = self._accelerations()
            self._values[key] = node_private_data(self.context.kin, quantity, acc)
        value = self._values[key][i, k if quantity == "PE" else k - 1]
        if not np.isfinite(value):
            raise ValueError(f"{what}: no acceleration for node {int(label)} (it carries no body)")
        return float(value)

    def abstract_node(self, label, name):
        """`model::node::abstract(label, "x" | "xP")` (input manual §6.1, private data)."""
        what = f'model::node::abstract({label}, "{name}")'
        self._require_state(what)
        fam = next((f for f in self.system.families if f.name == "abstract node"), None)
        if fam is None:
            raise ValueError(f"{what}: the model has no abstract nodes")
        try:
            i = fam.index(int(label))
        except KeyError:
            raise ValueError(f"{what}: abstract node {int(label)} is not defined") from None
        if name not in ("x", "xP"):
            raise ValueError(f'{what}: unknown abstract node private datum (x, xP)')
        return float(fam.private_data(self.context, name)[i])

    def _accelerations(self):
        return self.system.node_accelerations(self.context.yp, self.context.kin)

    # ------------------------------------------------------------------ elements
    def element(self, kind, label, name):
        """`model::element::<kind>(label, "name")`: the private datum of one element."""
        what = f'model::element::{kind}({label}, "{name}")'
        self._require_state(what)
        key = (kind, int(label), str(name))
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = self._resolve(kind, int(label), str(name), what)
        family, index = found
        vkey = (id(family), key[2])
        values = self._values.get(vkey)
        if values is None:
            values = self._values[vkey] = private_data(family, self.context, key[2])
        return float(values[index])

    def _resolve(self, kind, label, name, what):
        families = [f for f in self.system.families if _element_kind(f) == kind]
        for fam in families:
            hits = np.flatnonzero(fam.labels == label)
            if len(hits):
                i = int(hits[0])
                if not has_private_data(fam):
                    raise ValueError(f"{what}: {fam.name} {label} has no private data in mbdae")
                names = private_data_names(fam, i)
                if name not in names:
                    listed = ", ".join(f'"{n}"' for n in names) or "none"
                    raise ValueError(f'{what}: {fam.name} {label} has no private datum "{name}" '
                                     f"(it has: {listed})")
                return fam, i
        if kind == "force":
            raise ValueError(f"{what}: forces and couples have no private data (MBDyn's manual lists none)")
        raise ValueError(f"{what}: no {kind} with label {label}")


def _element_kind(family):
    """MBDyn element type of a family (rods, deformable joints and viscous bodies are joints)."""
    name = family.name
    if name == "body":
        return "body"
    if name in ("joint", "rod", "deformable joint", "viscous body", "angular velocity",
                "rigid body displacement joint", "modal joint"):
        return "joint"
    if name == "force":
        return "force"
    if name.startswith("beam") or name == "hbeam":
        return "beam"
    if name == "inertia":
        return "inertia"
    if name == "solid":
        return "solid"
    if name in ("aircraft instruments", "generic aerodynamic force"):
        return "aerodynamic element"
    return None


# ---------------------------------------------------------------------------- beams
_BEAM_QUANTITIES = ("e", "k", "F", "M", "X", "Phi", "Omega")     # + "eP", "kP" for viscous laws


def beam_private_data_names(family):
    """MBDyn's beam private data, in MBDyn's index order (input manual, beam "Private Data"):
    per evaluation point e{x,y,z} strains, k{x,y,z} curvatures, F, M internal loads (section
    frame), X position, Phi rotation vector, Omega angular velocity, and for viscous laws eP,
    kP strain rates; beam3 prefixes "pI." / "pII.", beam2 has no prefix.  Same for all
    instances of a family (its laws are all viscous or not)."""
    quantities = _BEAM_QUANTITIES + (("eP", "kP") if family.viscous else ())
    prefixes = ("pI.", "pII.") if family.NP == 2 else ("",)
    return [f"{p}{q}{c}" for p in prefixes for q in quantities for c in "xyz"]


def beam_private_data(family, ctx, name):
    """Values of beam private datum `name` for all instances of a beam family (ne,)."""
    names = beam_private_data_names(family)
    if name not in names:
        raise ValueError(f'{family.name}: no private datum "{name}"')
    k = names.index(name)
    per_point = len(names) // family.NP
    point, k = divmod(k, per_point)
    quantity, component = divmod(k, 3)
    st = family._state(ctx)
    if quantity < 2:                                   # strain, curvature (section frame)
        v = st["strain"][:, point, 3 * quantity:3 * quantity + 3]
    elif quantity < 4:                                 # force, moment (section frame)
        v = st["f"][:, point, 3 * (quantity - 2):3 * (quantity - 2) + 3]
    elif quantity == 4:                                # position of the reference line
        v = st["ph"][:, point] + ctx.kin.x[family.nidx[:, family.REF]]
    elif quantity == 5:
        v = rot.log_rotvec(st["R"][:, point])
    elif quantity == 6:                                # interpolated angular velocity
        v = np.einsum('k,nki->ni', family.N[point], ctx.kin.w[family.nidx])
    else:                                              # strain rates
        v = st["rate"][:, point, 3 * (quantity - 7):3 * (quantity - 7) + 3]
    return v[:, component]


def has_private_data(family):
    return hasattr(family, "private_data") or family.name.startswith("beam")


def private_data_names(family, i):
    """The private data names instance i of a family defines."""
    if hasattr(family, "private_data_names"):
        return family.private_data_names(i)
    if family.name.startswith("beam"):
        return beam_private_data_names(family)
    return []


def private_data(family, ctx, name):
    """Values of private datum `name` for all instances of a family."""
    if hasattr(family, "private_data"):
        return family.private_data(ctx, name)
    return beam_private_data(family, ctx, name)


# ---------------------------------------------------------------------------- element drive
class ElementDrive(Drive):
    """MBDyn's `element` drive caller (input manual §2.6, "Element drive"): the private datum
    `name` of element `label` of type `kind`, read on the state being evaluated through a
    ModelNamespace, passed as the argument of another drive: f = inner(datum).  It depends
    on the state, not on time: no time derivative (as MBDyn's, which is not differentiable);
    the elements using it re-evaluate it at every residual and take no Jacobian from it."""

    def __init__(self, namespace, kind, label, name, inner):
        if kind not in ELEMENT_KINDS:
            raise ValueError(f"element drive: element type {kind!r} is not one of {ELEMENT_KINDS}")
        self.namespace, self.kind, self.label, self.name, self.inner = namespace, kind, int(label), str(name), inner
        self.parameters = {}

    def __repr__(self):
        return f'ElementDrive({self.kind}, {self.label}, "{self.name}", {self.inner!r})'

    def _evaluate_single(self, t, order):
        if order != 0:
            raise ValueError(f'element drive ({self.kind} {self.label}, "{self.name}"): not differentiable')
        if np.ndim(t) != 0:
            raise ValueError("element drive: evaluated at one time only (it reads the current state)")
        return float(self.inner.value(self.namespace.element(self.kind, self.label, self.name)))
