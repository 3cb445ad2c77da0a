"""Power take-offs (issue 19): the measured output of a wave energy converter's PTO, declared
on an existing rod or deformable joint, whose own law and kernel are the PTO's physics.

MBS4WEC's spring, damper and actuator with moment arms (eqs. 13-16: f = k(l - l0) u + b l̇ u
between the attachment points) are a `rod` (with offsets) with a linear viscoelastic law
T = EA ε + η ε̇, ε = l/l0 - 1, i.e. k = EA/l0, b = η/l0; an actuator is a rod whose law
gives a force of time, e.g. `scaled(linear_viscous(1, 0, prestress=1), F(t))` (MBDyn's
`drive caller wrapper, <F(t)>, linear viscous, 0., prestress, 1.`) or a prestrain drive
of an elastic law.  The rotational and multi-axis PTOs of hinged barges are deformable
hinges, displacement, axial or 6-D deformable joints with viscoelastic laws.

A power take-off writes no equations.  Per instance and converged step it reads its
element's strain ε, strain rate ε̇ and law output f from that element family's own compiled
kernel (elements/rod.py `Rods.tension`, elements/deformable.py `kernel_info`) and reports

    P = fᵀ ε̇,

the power the element takes from the bodies, i.e. minus the work rate of its loads on the
two nodes: the loads are Bᵀ f with B = ∂ε̇/∂(v1, ω1, v2, ω2) the element's virtual strain
map, so -(loads · twists) = -(-fᵀ B q̇) = fᵀ ε̇ exactly (rod: T l̇; deformable hinge
M̃ · ω̄; deformable joint [F̃; M̃] · [d̃̇; ω̄] in the law frame, attached or invariant).
A driven element (elements/driven.py) that is inactive takes nothing: P = 0.

The absorbed energy E(t) = ∫ P dt is the trapezoidal sum over the converged steps from the
initial time (reset by the initial assembly and derivatives phases), kept in
State.families["power take-off"] (`energy`, the last `power`, and `time` = [t0, t_last]);
the mean absorbed power is E / (t - t0).  Output file PREFIX.pto (one row per PTO and
output step, columns per element type: `output_groups`) and, at the end of a run, one line
per PTO in the .out file and the values in Results.stats (`run_summary`)."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core.constitutive import LinearViscoelastic1D, LinearLaw3D, linear_viscoelastic
from mbdae.elements.base import ElementFamily, random_nodes, random_rotation

# element types a PTO may sit on: {type: (family name, deformable joint type or None)}
ELEMENT_TYPES = {
    "rod": ("rod", None),
    "deformable hinge": ("deformable joint", "deformable hinge"),
    "deformable displacement joint": ("deformable joint", "deformable displacement joint"),
    "deformable joint": ("deformable joint", "deformable joint"),
    "deformable axial joint": ("deformable joint", "deformable axial joint"),
}
# deck words of the element type (the element cards' names) -> element type
DECK_TYPES = {"rod": "rod", "rod with offset": "rod", "deformable hinge": "deformable hinge",
              "invariant deformable hinge": "deformable hinge",
              "deformable displacement joint": "deformable displacement joint",
              "deformable displacement hinge": "deformable displacement joint",
              "invariant deformable displacement joint": "deformable displacement joint",
              "deformable joint": "deformable joint", "invariant deformable joint": "deformable joint",
              "deformable axial joint": "deformable axial joint"}
# strain components [d̃; θ] of each deformable type (elements/deformable.py COMPONENTS)
_COMPONENTS = {"deformable hinge": slice(3, 6), "deformable displacement joint": slice(0, 3),
               "deformable joint": slice(0, 6), "deformable axial joint": slice(5, 6)}


@dataclass
class PowerTakeOffSpec:
    label: int
    element_type: str            # a key of ELEMENT_TYPES
    element: int                 # the element's label
    output: bool = True
    where: str = ""              # "file:line" of its deck card (errors)


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def power_take_off(model, label, element_type, element_label, output=True, where=""):
    """Declare the `element_type` element `element_label` (rod, deformable hinge, deformable
    displacement joint, deformable joint, deformable axial joint) a power take-off: its
    stroke, rate, force, power P = fᵀ ε̇, absorbed energy and mean absorbed power go to
    PREFIX.pto (module docstring).  The element keeps its own physics."""
    kind = " ".join(str(element_type).lower().replace("_", " ").split())
    if kind not in ELEMENT_TYPES:
        raise ValueError(f"power take-off {label}: element type {element_type!r} is not one of "
                         f"{', '.join(ELEMENT_TYPES)}")
    if any(s.label == label for s in model.power_take_offs):
        raise ValueError(f"power take-off {label} is already defined")
    model.power_take_offs.append(PowerTakeOffSpec(label, kind, int(element_label), bool(output), where or ""))
    return label


MODEL_FIELDS = {"power_take_offs": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (power_take_off,)


def build(model, nodes, built):
    """The PTO family over the rods and deformable joints built before it (and the driven
    elements' activity)."""
    if not model.power_take_offs:
        return []
    return [PowerTakeOffs(model.power_take_offs, nodes, built)]


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def power_take_off_sample(model, rng):
    """Every element type a PTO takes (rod with offsets, attached and invariant deformable
    hinge, displacement joint, 6-D joint, axial joint), each declared a PTO."""
    m = model
    random_nodes(m, rng, 3)
    v = lambda: rng.normal(size=3)
    R = lambda: random_rotation(rng)
    K6 = rng.normal(size=(6, 6))
    m.rod(1, 1, 2, LinearViscoelastic1D(100.0, 3.0), offset1=v(), offset2=v())
    m.deformable_hinge(2, 2, 3, LinearLaw3D(np.diag([5.0, 6.0, 7.0]), np.diag([0.5, 0.2, 0.3])),
                       orientation1=R(), orientation2=R(), invariant=True)
    m.deformable_displacement_joint(3, 3, 1, LinearLaw3D([10.0, 20.0, 30.0], 0.5), offset1=v(),
                                    orientation1=R(), offset2=v())
    m.deformable_joint(4, 1, 3, linear_viscoelastic(6, K6 @ K6.T + np.eye(6), np.diag([1.0, 2, 3, 0.4, 0.5, 0.6])),
                       offset1=v(), orientation1=R(), offset2=v())
    m.deformable_axial_joint(5, 2, 1, LinearViscoelastic1D(7.0, 0.4), orientation1=R())
    for k, kind in enumerate(ELEMENT_TYPES, start=1):
        m.power_take_off(100 + k, kind, k)
    return m


SAMPLES = {"power take-off": [power_take_off_sample]}


class PowerTakeOffs(ElementFamily):
    """No rows: the power of existing elements and its integral (module docstring)."""
    name = "power take-off"
    output_file = "pto"
    has_state = True

    def __init__(self, specs, nodes, built):
        super().__init__(specs, nodes)
        by_name = {fam.name: fam for fam in built}
        self.types = [s.element_type for s in self.specs]
        self.rods = by_name.get("rod")
        self.deformable = by_name.get("deformable joint")
        self.instance = np.zeros(self.ne, np.int64)      # the element's index in its family
        taken = {}
        for e, s in enumerate(self.specs):
            where = f"power take-off {s.label}" + (f" ({s.where})" if s.where else "")
            if s.element_type not in ELEMENT_TYPES:
                raise ValueError(f"{where}: unknown element type {s.element_type!r}")
            family_name, dtype = ELEMENT_TYPES[s.element_type]
            fam = by_name.get(family_name)
            hits = [] if fam is None else [i for i, spec in enumerate(fam.specs) if spec.label == s.element
                                           and (dtype is None or spec.type == dtype)]
            if not hits:
                raise ValueError(f"{where}: {s.element_type} {s.element} is not defined")
            if len(hits) > 1:
                raise ValueError(f"{where}: {len(hits)} elements are {s.element_type} {s.element}")
            key = (s.element_type, s.element)
            if key in taken:
                raise ValueError(f"{where}: {s.element_type} {s.element} is already power take-off {taken[key]}")
            taken[key] = s.label
            self.instance[e] = hits[0]
        self.is_rod = np.array([t == "rod" for t in self.types], bool)
        self.rod_inst = self.instance[self.is_rod]
        self.def_inst = self.instance[~self.is_rod]
        # the driven instances among the elements: (PTO indices, positions in the driven
        # family's activity array)
        self.driven = by_name.get("driven")
        self.switched = self._driven_positions()

    def _driven_positions(self):
        if self.driven is None:
            return None
        position = {}
        for g, part in zip(self.driven.groups, self.driven.slices):
            for j, i in enumerate(g.inst):
                position[(id(g.fam), int(i))] = part.start + j
        pto, pos = [], []
        for e, t in enumerate(self.types):
            fam = self.rods if t == "rod" else self.deformable
            p = position.get((id(fam), int(self.instance[e])))
            if p is not None:
                pto.append(e)
                pos.append(p)
        return (np.array(pto, np.int64), np.array(pos, np.int64)) if pto else None

    def build_pattern(self):
        self.pattern = Pattern()
        return self.pattern

    def evaluate(self, ctx, res_views, jac_views):
        """No equations."""

    # ------------------------------------------------------------------ measurements
    def measure(self, ctx):
        """(ε (ne, 6), ε̇ (ne, 6), f (ne, 6), P (ne,)) at ctx from the elements' own kernels:
        rods in slot 0 (stroke l - l0, rate l̇, tension T), deformable joints on their
        [d̃; θ] slots (law frame); P = fᵀ ε̇ (zero for an inactive driven element)."""
        eps, rate, f = np.zeros((self.ne, 6)), np.zeros((self.ne, 6)), np.zeros((self.ne, 6))
        if len(self.rod_inst):
            T, l, _, ldot = self.rods.tension(ctx)
            i = self.rod_inst
            eps[self.is_rod, 0] = l[i] - self.rods.l0[i]
            rate[self.is_rod, 0] = ldot[i]
            f[self.is_rod, 0] = T[i]
        if len(self.def_inst):
            info = self.deformable.kernel_info(ctx)[self.def_inst]
            eps[~self.is_rod] = info[:, 0:6]
            rate[~self.is_rod] = info[:, 6:12]
            f[~self.is_rod] = info[:, 12:18]          # zero outside the law's components
        if self.switched is not None:
            pto, pos = self.switched
            off = ~self.driven.activity(ctx.t)[pos]
            f[pto[off]] = 0.0
        return eps, rate, f, np.einsum("ij,ij->i", f, rate)

    def power(self, ctx):
        """P (ne,): the power each PTO takes from the bodies at ctx."""
        return self.measure(ctx)[3]

    # ------------------------------------------------------------------ state
    def initial_state(self):
        return {"energy": np.zeros(self.ne), "power": np.zeros(self.ne), "time": np.full(2, np.nan)}

    def commit(self, ctx, arrays):
        """E += ½ (P_last + P) (t - t_last) after a converged step; the initial assembly and
        the derivatives phase (and a first commit) start the sum at their time."""
        P = self.power(ctx)
        t = float(ctx.t)
        t0, t_last = arrays["time"]
        if ctx.mode in ("initial assembly", "derivatives") or not np.isfinite(t_last):
            return {"energy": np.zeros(self.ne), "power": P, "time": np.array([t, t])}
        return {"energy": arrays["energy"] + 0.5 * (arrays["power"] + P) * (t - t_last), "power": P,
                "time": np.array([t0, t])}

    def absorbed(self, ctx):
        """(E, mean power E / (t - t0), t - t0) of every PTO at the committed state of ctx
        (mean 0 at t0)."""
        arrays = self.state_arrays(ctx)
        E = arrays["energy"]
        t0, t_last = arrays["time"]
        span = float(t_last - t0) if np.isfinite(t_last) else 0.0
        return E, (E / span if span > 0 else np.zeros(self.ne)), span

    # ------------------------------------------------------------------ outputs
    def output_groups(self, ctx):
        """.pto rows, one group per element type: the strain, its rate and the law output
        on the type's components, then P, E and E / (t - t0):
        rod: l - l0, l̇, T (6 columns); deformable hinge: θ, ω̄, M̃ (12); displacement joint:
        d̃, d̃̇, F̃ (12); deformable joint: d̃, θ, d̃̇, ω̄, F̃, M̃ (21); axial joint: θz, ω̄z,
        M̃z (6); law-frame components (elements/deformable.py)."""
        eps, rate, f, P = self.measure(ctx)
        E, mean, _ = self.absorbed(ctx)
        out = np.array([s.output for s in self.specs], bool)
        tail = np.stack([P, E, mean], axis=1)
        groups = []
        for t in dict.fromkeys(self.types):
            sel = np.array([ty == t for ty in self.types]) & out
            if not sel.any():
                continue
            c = slice(0, 1) if t == "rod" else _COMPONENTS[t]
            groups.append((self.labels[sel], np.concatenate([eps[sel, c], rate[sel, c], f[sel, c], tail[sel]],
                                                            axis=1)))
        return groups

    def run_summary(self, ctx):
        """(lines, values) at the end of a run: per PTO its absorbed energy and mean absorbed
        power since the initial time (the .out file's last lines; Results.stats)."""
        E, mean, span = self.absorbed(ctx)
        lines = [f"power take-off {s.label} ({s.element_type} {s.element}): absorbed energy {E[e]:.6e} "
                 f"over {span:.6g} s, mean absorbed power {mean[e]:.6e}" for e, s in enumerate(self.specs)]
        labels = [int(s.label) for s in self.specs]
        return lines, {"absorbed_energy": dict(zip(labels, E.tolist())),
                       "mean_absorbed_power": dict(zip(labels, mean.tolist()))}


# ---------------------------------------------------------------- MBDyn deck card
# mbdae's own (MBDyn has no power take-off), a joint type like MBDyn's rod, called by
# engine/io/mbdyn/elements_block.py as read(reader, model, args, label, word) after
# `joint: <label>, power take off` (counted in `joints: N` of the control data); its options
# end the card (`output` included); an unknown word is rejected by name at its position.

def read_power_take_off(reader, model, args, label, word):
    """`joint: <label>, power take off, <element type>, <element label> [, output, <flag>]`,
    element type: rod (or rod with offset), [invariant] deformable hinge, [invariant]
    deformable displacement joint, [invariant] deformable joint, deformable axial joint;
    the element must be defined before the card."""
    tw = args.peek()
    kw = args.is_keyword(*DECK_TYPES)
    if kw is None:
        listed = ", ".join(f"'{t}'" for t in ELEMENT_TYPES)
        if tw is None:
            raise args.card.end.error(f"power take off: an element type ({listed}) expected before ';'")
        raise tw.error(f"power take off: unknown element type (expected one of {listed})")
    kind = {reader.normalize(k): v for k, v in DECK_TYPES.items()}[kw]
    lw = args.peek()
    element = args.label(f"a {kind} label")
    family_name, dtype = ELEMENT_TYPES[kind]
    pool = model.rods if family_name == "rod" else model.deformable
    if not any(s.label == element and (dtype is None or s.type == dtype) for s in pool):
        raise lw.error(f"power take off: {kind} {element} is not defined")
    output = "joints" in reader.default_output
    while args.more():
        w = args.peek()
        if w.keyword != "output":
            raise w.error("power take off: unknown keyword (expected 'output' or ';')")
        args.i += 1
        output = reader.read_output_flag(args, "joints")
    try:
        model.power_take_off(label, kind, element, output=output,
                             where=f"{word.source.name}:{word.where()[0]}")
    except ValueError as e:
        raise word.error(str(e)) from None


CARDS = {"power take off": read_power_take_off}
