"""Driven elements (MBDyn input manual §8.20.2, `driven`; hints §2.6.41).

An element whose spec carries a `DrivenSpec` is active while its drive is non-zero at the
time of the evaluation (the step's time).  While inactive it contributes nothing: its
residual and Jacobian blocks are zeroed, and each unknown it owns (a joint's multipliers)
gets the identity row λ = 0 (f = λ, ∂f/∂Δλ = 1; dCoef for a differential unknown), so the
matrix stays regular.  That is what MBDyn's DrivenElem does (its AssRes/AssJac put -X and
1 or dCoef on the element's own unknowns).  An inactive element writes no output row.

`DrivenActivity` does this for every family at once.  The System appends it as the last
family, so it runs after the families it masks: one compiled call (`driven_mask`) zeroes the
inactive instances' entries of their residual and Jacobian blocks (ranges of the System's
buffers found once) and writes the identity rows itself.  Models without driven elements
do not build it (zero cost).

Activation hints (MBDyn's Hints, applied by the element's SetValue when the drive becomes
non-zero): at the first evaluation of a step whose time makes an inactive element active
(in MBDyn after the prediction, so on the predicted state of that step), the hints are
applied on that state:

* `offset{1}`: f1 = R1ᵀ(x2 + R2 f2 - x1) — the point of joint side 1 is re-taken where the
  point of side 2 is now (the joint engages without a jump);
* `offset{2}`: f2 = R2ᵀ(x1 + R1 f1 + R1 R1h x̃0(t) - x2);
* `drive{...}` (distance), `position-drive3{...}`, `orientation-drive3{...}` (total joints,
  drive displacement, drive hinge): new drives built by a callable from a `NodeStateView`
  (the deck reader re-parses the hint text there, `model::` functions on the current state).

Which state counts as "previous" for hints: the last committed step (System.commit).
Hints apply in regular steps only (not in the initial assembly or the derivatives phase).
"""
from dataclasses import dataclass
from functools import cached_property
import re

import numpy as np

from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core.compiled import kernel
from mbdae.engine.core.drives import DriveArray, NullDrive
from mbdae.engine.core.tpldrive import VectorDriveArray
from mbdae.elements.base import ElementFamily, scalar_drive, random_rotation, random_nodes
from mbdae.engine.core.drives import StepDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.constitutive import LinearViscoelastic1D


@dataclass
class DrivenSpec:
    """What makes an element driven: active while `drive` ≠ 0; `hints` applied at each
    activation; `initial_state` (None: from the drive at the initial time) is the state the
    element is considered to be in before the first step (MBDyn's `initial state`)."""
    drive: object
    hints: tuple = ()
    initial_state: object = None


@dataclass(frozen=True)
class Hint:
    """One activation hint.  kind: "offset" (which = 1 or 2), "drive", "position drive" or
    "orientation drive" (make(view) → the new Drive / VectorDrive); text: as written."""
    kind: str
    which: int = 0
    make: object = None
    text: str = ""


HINT_KINDS = ("offset", "drive", "position drive", "orientation drive")
_OFFSET = re.compile(r"^\s*offset\s*\{\s*([12])\s*\}\s*$", re.IGNORECASE)


def as_hint(h):
    """A Hint from a Hint, the strings "offset{1}"/"offset{2}", or (kind, make) with kind in
    "drive", "position drive", "orientation drive" and make(view) → drive."""
    if isinstance(h, Hint):
        return h
    if isinstance(h, str):
        m = _OFFSET.match(h)
        if m:
            return Hint("offset", int(m.group(1)), text=h)
        word = h.split("{")[0].strip() or h
        raise ValueError(f"not supported yet: hint {word}")
    kind, make = h
    if kind not in HINT_KINDS[1:]:
        raise ValueError(f"hint kind must be one of {HINT_KINDS[1:]}, not {kind!r}")
    if not callable(make):
        raise ValueError(f"hint {kind!r}: a callable make(view) -> drive is required")
    return Hint(kind, make=make, text=kind)


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def driven(model, label, drive, kind="joint", hints=(), initial_state=None):
    """Make element `label` a driven element (manual §8.20.2): active while drive(t) ≠ 0,
    contributing nothing otherwise (a joint's multipliers are then held at 0).  kind:
    "joint" (joints, rods, deformable joints, viscous bodies: MBDyn's joint labels),
    "force" (forces and couples), "body", "beam" or "aerodynamic" (generic aerodynamic
    forces).  hints (applied at each activation,
    on the state of the step in which the drive becomes non-zero; joints only):
    "offset{1}" / "offset{2}" (re-take that side's offset so the joint engages where
    the nodes are), ("drive", make) for a distance joint's length, ("position drive",
    make) / ("orientation drive", make) for imposed relative position / rotation, where
    make(view) returns the new drive from an elements.driven.NodeStateView.
    initial_state: None (from the drive at the initial time), True or False: the state
    before the first step, which decides whether the hints apply at the first step.
    Honoured by InitialValueProblem, static runs and the inverse-dynamics problem (which
    rebuilds its row partition when a driven joint switches; hints, driven bodies and
    forces are refused there)."""
    pools = {"joint": model.joints + model.rods + model.deformable + model.viscous_bodies,
             "force": model.forces, "body": model.bodies, "beam": model.beams + model.hbeams,
             "aerodynamic": model.generic_aerodynamic_forces}
    if kind not in pools:
        raise ValueError(f"driven {label}: kind must be one of {sorted(pools)}, not {kind!r}")
    specs = [s for s in pools[kind] if s.label == label]
    if not specs:
        raise KeyError(f"driven: {kind} {label} is not defined")
    if getattr(specs[0], "driven", None) is not None:
        raise ValueError(f"driven: {kind} {label} is already driven")
    specs[0].driven = DrivenSpec(scalar_drive(drive), tuple(as_hint(h) for h in hints), initial_state)
    return label


MODEL_METHODS = (driven,)


def build(model, nodes, built):
    """The activity family over the driven instances of the families built before it
    (None of them driven: no family, zero cost)."""
    groups = []
    for k, fam in enumerate(built, start=1):
        inst = [i for i, s in enumerate(fam.specs) if getattr(s, "driven", None) is not None]
        if inst:
            groups.append((k, fam, inst))
    return [DrivenActivity(nodes, groups)] if groups else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def driven_sample(model, rng):
    """Driven elements (elements/driven.py) at the sample time t = 0.37: joints 2 (spherical
    hinge), 4 (total joint) and rod 5 active, joints 3 (distance), 6 (revolute hinge), rod 7 and
    force 8 inactive; joint 4 starts "inactive" with an offset{1} hint, so its hint is applied
    at the first evaluation and the checks see the joint after re-taking its offset."""
    m = model
    random_nodes(m, rng, 4)
    v = lambda: rng.normal(size=3)
    on = lambda: StepDrive(0.2, 1.0, 0.0)          # 1 after t = 0.2
    off = lambda: StepDrive(0.3, -1.0, 1.0)        # 0 after t = 0.3
    m.spherical_hinge(2, 1, 2, offset1=v(), offset2=v())
    m.driven(2, on())
    m.distance(3, 2, 3, length=1.3, offset1=v(), offset2=v())
    m.driven(3, off())
    m.total_joint(4, 3, 4, offset1=v(), position_orientation1=random_rotation(rng), offset2=v(),
                  position_status=("active", "active", "inactive"),
                  orientation_status=("active", "inactive", "active"))
    m.driven(4, on(), hints=("offset{1}",), initial_state=False)
    m.revolute_hinge(6, 1, 4, offset1=v(), orientation1=random_rotation(rng), offset2=v(), orientation2=random_rotation(rng))
    m.driven(6, off())
    m.rod(5, 1, 3, LinearViscoelastic1D(80.0, 2.0), offset1=v(), offset2=v())
    m.driven(5, on())
    m.rod(7, 2, 4, LinearViscoelastic1D(30.0, 1.0), length=1.7)
    m.driven(7, off())
    m.force(8, 2, VectorDrive.constant(v()), "follower", offset=v())
    m.driven(8, off(), kind="force")
    m.force(9, 3, VectorDrive.constant(v()), "follower", offset=v())
    return m


SAMPLES = {"driven": [driven_sample]}


class NodeStateView:
    """Node poses a hint sees: the state of the evaluation (`position`, `orientation`,
    `velocity`, `angular_velocity`) and the last committed step (`prev=True`)."""

    def __init__(self, nodes, kin, prev):
        self.nodes, self.kin, self.prev = nodes, kin, prev

    def _pick(self, label, k, prev):
        i = self.nodes.index(int(label))
        return (self.prev if prev else self.kin_arrays)[k][i]

    @property
    def kin_arrays(self):
        return self.kin.x, self.kin.R, self.kin.v, self.kin.w

    def position(self, label, prev=False):
        return self._pick(label, 0, prev).copy()

    def orientation(self, label, prev=False):
        return self._pick(label, 1, prev).copy()

    def velocity(self, label, prev=False):
        return self._pick(label, 2, prev).copy()

    def angular_velocity(self, label, prev=False):
        return self._pick(label, 3, prev).copy()


class _Group:
    """Driven instances of one family: indices, own unknowns, hints."""

    def __init__(self, k, fam, inst):
        self.k, self.fam, self.inst = k, fam, np.asarray(inst, np.int64)
        specs = [fam.specs[i].driven for i in self.inst]
        self.drives = [s.drive for s in specs]
        self.hints = [tuple(as_hint(h) for h in s.hints) for s in specs]
        self.has_hints = np.array([bool(h) for h in self.hints])
        # activity before the first step: 1/0 as given, -1 from the drive at the first evaluation
        self.initial = np.array([-1 if s.initial_state is None else int(bool(s.initial_state)) for s in specs],
                                np.int8)
        self.any_hints = bool(self.has_hints.any())
        if self.has_hints.any():
            _check_hints(fam, self)

    def bind(self, system):
        """Own unknowns per driven instance (rows owned by the family with its label)."""
        rows = np.flatnonzero(system.row_owner == self.k)
        self.own = [rows[system.row_label[rows] == self.fam.labels[i]] for i in self.inst]


class DrivenActivity(ElementFamily):
    """Pseudo-family that switches driven instances of the other families on and off.

    State (State.families["driven"]): `committed`, the activity at the last committed step
    per driven instance (all groups concatenated; -1 before the first step when it comes
    from the drive) and, when some hint reads the previous step, its node poses `x`, `R`,
    `v`, `w`.

    Evaluation: one compiled call (driven_mask) over all driven instances.  The entries of
    an instance in the masked family's blocks are contiguous ranges of the System's residual
    and Jacobian buffers (one per block, the block's leading index being the instance);
    they are found once, at the first evaluation (the buffers exist only once every
    family's pattern is built, after `bind`).  The family's own blocks: one row per driven
    instance and one column per own unknown (-1 padded), identity rows of the idle ones."""
    name = "driven"
    in_initial_assembly = True
    has_state = True

    def __init__(self, nodes, groups):
        self.groups = [_Group(k, fam, inst) for k, fam, inst in groups]
        self.specs = []
        self.ne = sum(len(g.inst) for g in self.groups)
        self.nodes = nodes
        self.labels = np.concatenate([g.fam.labels[g.inst] for g in self.groups])
        self.drives = DriveArray([d for g in self.groups for d in g.drives])
        self.need_prev = any(g.has_hints.any() for g in self.groups)
        self.has_step_start = self.need_prev          # System.begin_step applies the hints
        bounds = np.cumsum([0] + [len(g.inst) for g in self.groups])
        self.slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        for g, part in zip(self.groups, self.slices):
            if hasattr(g.fam, "output_groups"):
                g.fam.output_groups = _filtered_output(g.fam.output_groups, g, self, part)

    def bind(self, system):
        """Own unknowns of the driven instances, (ne, m) with -1 padding, and whether each is
        algebraic (identity weight 1) or differential (dCoef)."""
        self.system = system
        for g in self.groups:
            g.bind(system)
        per = [r for g in self.groups for r in g.own]
        m = max((len(r) for r in per), default=0)
        self.own = np.full((self.ne, m), -1, np.int64)
        for j, r in enumerate(per):
            self.own[j, :len(r)] = r
        self.own_alg = system.is_alg[np.maximum(self.own, 0)]

    def initial_state(self):
        return {"committed": np.concatenate([g.initial for g in self.groups])}

    def build_pattern(self):
        p = self.pattern = Pattern()
        if self.own.shape[1]:
            p.add_res(self.own)
            p.add_jac(self.own[..., None], self.own[..., None])
        return p

    def activity(self, t):
        """Activity of every driven instance at t (drive ≠ 0), all groups concatenated."""
        return np.asarray(self.drives.values(t)) != 0.0

    @cached_property
    def _mask(self):
        """(residual ranges, Jacobian ranges) of the masked families' entries per driven
        instance in the System's buffers (`_instance_ranges`), and the arrays the kernel
        takes for the family's own blocks when it has none."""
        s = self.system
        res = _instance_ranges(self, s._res_buffer, [s._res_views[g.k] for g in self.groups], 0)
        jac = _instance_ranges(self, s._jac_buffer, [s._jac_views[g.k] for g in self.groups], 1)
        return res, jac, np.zeros((self.ne, 0)), np.zeros((self.ne, 0, 1, 1))

    def evaluate(self, ctx, res, jac):
        """One compiled call (driven_mask): the inactive instances' entries in the masked
        families' blocks zeroed, and their own unknowns' identity rows."""
        (rp, rs, rl), (jp, js, jl), no_res, no_jac = self._mask
        s = self.system
        want_jac = jac is not None
        r_own = res[0] if res else no_res
        j_own = jac[0] if want_jac and jac else no_jac
        driven_mask(np.asarray(self.drives.values(ctx.t), float), ctx.y, self.own, self.own_alg,
                    float(ctx.dcoef), want_jac, s._res_buffer, rp, rs, rl, s._jac_buffer, jp, js, jl,
                    r_own, j_own)

    def commit(self, ctx, arrays):
        """Activity of the committed step (hints apply when it changes) and, for hints that
        read the previous step, its node poses.  As MBDyn's DrivenElem, whose state changes
        only at the prediction of a time step, the commits of the initial assembly and of the
        derivatives phase leave the activity as it was at input (`initial state`)."""
        new = dict(arrays)
        if ctx.mode == "regular":
            new["committed"] = self.activity(ctx.t).astype(np.int8)
        if self.need_prev:
            kin = ctx.kin
            new.update(x=kin.x.copy(), R=kin.R.copy(), v=kin.v.copy(), w=kin.w.copy())
        return new

    def active(self, t):
        """{(family name, label): active} at time t (for inspection and tests)."""
        act = self.activity(t)
        return {(g.fam.name, int(l)): bool(a) for g, part in zip(self.groups, self.slices)
                for l, a in zip(g.fam.labels[g.inst], act[part])}

    # ------------------------------------------------------------------ hints
    def begin_step(self, ctx, families):
        """On the predicted state of a step (as MBDyn, after the prediction): the hints of
        the instances that switch on at this step (active now, inactive at the last commit)
        set their joints' offsets and drives.  Returns the State's family arrays with the
        joints' hinted values (`joints.hint_key`) replaced, in a new dict; the committed
        arrays are never changed, so a retried step starts from them again."""
        arrays = families.get(self.state_key) or self.initial_state()
        kin = ctx.kin
        prev = tuple(arrays[k] for k in "xRvw") if "x" in arrays else (kin.x, kin.R, kin.v, kin.w)
        view = NodeStateView(self.nodes, kin, prev)
        new = None
        act_all = self.activity(ctx.t)
        for g, part in zip(self.groups, self.slices):
            if not g.any_hints:
                continue
            act = act_all[part]
            committed = arrays["committed"][part]
            committed = np.where(committed < 0, act, committed == 1)   # before the first step: at input
            start = np.flatnonzero(act & ~committed & g.has_hints)
            if start.size == 0:
                continue
            new = dict(families) if new is None else new
            hinted = _hinted_copy(g.fam, new.get(g.fam.hint_key))
            for j in start:
                _apply_joint_hints(g.fam, hinted, int(g.inst[j]), g.hints[j], ctx, view)
            new[g.fam.hint_key] = hinted
        return families if new is None else new


def _hinted_copy(fam, hinted):
    """A copy of a joint family's hinted offsets and drives (first: the model's) that hints
    may change."""
    base = fam.model_values if hinted is None else hinted
    out = dict(base)
    out["f1"], out["f2"] = base["f1"].copy(), base["f2"].copy()
    out["drive lists"] = {k: list(v) for k, v in base.get("drive lists", {}).items()}
    return out


def _instance_ranges(activity, buffer, views, which):
    """The entries of each driven instance in its family's residual (which = 0) or Jacobian
    (1) blocks as ranges of `buffer`, grouped by instance: (ptr (ne + 1,), start, length),
    instance j's ranges being ptr[j]:ptr[j + 1].  A block's view is a contiguous piece of the
    buffer whose leading index p is the instance `block_instances()` gives for p."""
    owner, start, length = [], [], []
    for g, part, fam_views in zip(activity.groups, activity.slices, views):
        block_inst = g.fam.block_instances()[which]
        if len(block_inst) != len(fam_views) or any(
                v.shape[0] != len(b) for v, b in zip(fam_views, block_inst)):
            raise ValueError(f"not supported yet: driven {g.fam.name} (its blocks are not indexed by instance)")
        for v, b in zip(fam_views, block_inst):
            if v.size == 0:
                continue
            offset = (v.__array_interface__["data"][0] - buffer.__array_interface__["data"][0]) // buffer.itemsize
            if not (v.flags.c_contiguous and 0 <= offset and offset + v.size <= buffer.size):
                raise ValueError(f"driven {g.fam.name}: a block view is not a piece of the System's buffer")
            stride = v.size // v.shape[0]
            b = np.asarray(b, np.int64)
            j = np.searchsorted(g.inst, b)
            hit = np.flatnonzero((j < len(g.inst)) & (g.inst[np.minimum(j, len(g.inst) - 1)] == b))
            owner.append(part.start + j[hit])
            start.append(offset + hit * stride)
            length.append(np.full(len(hit), stride, np.int64))
    owner, start, length = (np.concatenate(a).astype(np.int64) if a else np.zeros(0, np.int64)
                            for a in (owner, start, length))
    order = np.argsort(owner, kind="stable")
    ptr = np.searchsorted(owner[order], np.arange(activity.ne + 1)).astype(np.int64)
    return ptr, start[order], length[order]


def _filtered_output(output_groups, g, activity, part):
    """The family's output_groups without the rows of its inactive instances (MBDyn's
    DrivenElem writes nothing while inactive)."""
    def filtered(ctx):
        off = g.fam.labels[g.inst[~activity.activity(ctx.t)[part]]]
        out = []
        for labels, vals in output_groups(ctx):
            keep = ~np.isin(labels, off)
            if keep.any():
                out.append((np.asarray(labels)[keep], np.asarray(vals)[keep]))
        return out
    return filtered


# ====================================================================== joint hints

def _check_hints(fam, g):
    """Hints are implemented for the rigid joints (the decks' use); anything else stops."""
    for j, hints in enumerate(g.hints):
        if not hints:
            continue
        label = fam.labels[g.inst[j]]
        if fam.name != "joint":
            raise ValueError(f"not supported yet: hints on a driven {fam.name} ({label})")
        jtype = fam.types[g.inst[j]]
        for h in hints:
            if h.kind == "drive" and jtype != "distance":
                raise ValueError(f"joint {label}: hint drive{{}} applies to distance joints, not a {jtype}")
            if h.kind == "position drive" and not fam.active[g.inst[j], 0:3].any():
                raise ValueError(f"joint {label}: hint position-drive3{{}} needs position constraint rows")
            if h.kind == "orientation drive" and not fam.active[g.inst[j], 3:6].any():
                raise ValueError(f"joint {label}: hint orientation-drive3{{}} needs rotation constraint rows")


def _apply_joint_hints(fam, hinted, i, hints, ctx, view):
    """Apply the hints of joint instance i on the step's predicted state (MBDyn's SetValue)
    to `hinted`, the joint family's offsets and drives for this step."""
    kin = ctx.kin
    n1, n2 = fam.n1[i], fam.n2[i]
    x1, R1 = (np.zeros(3), np.eye(3)) if n1 < 0 else (kin.x[n1], kin.R[n1])
    x2, R2 = kin.x[n2], kin.R[n2]
    f1, f2 = hinted["f1"], hinted["f2"]
    for h in hints:
        if h.kind == "offset" and h.which == 1:
            f1[i] = R1.T @ (x2 + R2 @ f2[i] - x1)
        elif h.kind == "offset":
            x0 = hinted["pos_drive"].values(ctx.t)[i]
            f2[i] = R2.T @ (x1 + R1 @ f1[i] + R1 @ fam.R1h[i] @ x0 - x2)
        elif h.kind == "drive":
            _replace(fam, hinted, "dist_drive", i, h.make(view), DriveArray, NullDrive)
        elif h.kind == "position drive":
            _replace(fam, hinted, "pos_drive", i, h.make(view), VectorDriveArray, None)
        elif h.kind == "orientation drive":
            _replace(fam, hinted, "rot_drive", i, h.make(view), VectorDriveArray, None)


def _replace(fam, hinted, attr, i, drive, array_cls, null):
    """Swap instance i's drive in the hinted drive array (rebuilt: a rare event)."""
    lists = hinted["drive lists"]
    if attr not in lists:
        field = {"dist_drive": "distance_drive"}.get(attr, attr)
        lists[attr] = [getattr(s, field) for s in fam.specs]
        if null is not None:
            lists[attr] = [null() if d is None else d for d in lists[attr]]
    lists[attr][i] = drive
    hinted[attr] = array_cls(lists[attr])


# ---------------------------------------------------------------- kernel
@kernel
def driven_mask(values, y, own, own_alg, dcoef, want_jac, res_buffer, res_ptr, res_start, res_len,
                jac_buffer, jac_ptr, jac_start, jac_len, r_own, j_own):
    """Driven instance j is inactive when its drive value is 0: its entries in the masked
    family's blocks (ranges res_ptr[j]:res_ptr[j + 1] of the residual buffer, likewise of
    the Jacobian buffer) are zeroed and each own unknown λ gets the identity row f = λ,
    ∂f/∂Δλ = 1 (algebraic) or dCoef (differential); active instances' own rows are 0."""
    for j in range(len(values)):
        idle = values[j] == 0.0
        if idle:
            for q in range(res_ptr[j], res_ptr[j + 1]):
                for p in range(res_start[q], res_start[q] + res_len[q]):
                    res_buffer[p] = 0.0
            if want_jac:
                for q in range(jac_ptr[j], jac_ptr[j + 1]):
                    for p in range(jac_start[q], jac_start[q] + jac_len[q]):
                        jac_buffer[p] = 0.0
        for c in range(own.shape[1]):
            row = own[j, c]
            on = idle and row >= 0
            r_own[j, c] = y[row] if on else 0.0
            if want_jac:
                j_own[j, c, 0, 0] = (1.0 if own_alg[j, c] else dcoef) if on else 0.0


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_driven(reader, model, args, label, word):
    """`driven: <label>, <drive> [, initial state, {from drive | active | inactive | <bool>}]
    [, hint, "<hint>" ...], {existing: <type>, <label> | <element card>}` (manual §8.20.2):
    the inner card is read by its own reader (and counted in its own family); the element
    is active while the drive is non-zero."""
    drive = reader.read_drive(args)
    initial, hints = read_driven_options(reader, args)
    sub_args = reader.inner_element_card(args)
    sub = sub_args.card
    kind_text = sub.name.text
    m = model
    pools = {"joint": (m.joints, m.rods, m.deformable, m.viscous_bodies), "force": (m.forces,),
             "couple": (m.forces,), "body": (m.bodies,), "beam": (m.beams, m.hbeams), "beam2": (m.beams,),
             "beam3": (m.beams,), "hbeam": (m.hbeams,),
             "genericaerodynamicforce": (m.generic_aerodynamic_forces,)}
    kind = reader.normalize(kind_text)
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
            raise sub.name.error(reader.not_supported(f"driven {reader.shown(kind_text)}"))
        before = [len(pool) for pool in pools[kind]]
        reader.read_element_card(sub_args)
        specs = [s for pool, n in zip(pools[kind], before) for s in pool[n:]]
    sub_args.expect_end()
    for s in specs:
        if s.label != label:
            raise word.error(f"driven element {label} wraps {kind_text} {s.label}: the labels must be equal")
        if getattr(s, "driven", None) is not None:
            raise word.error(f"{kind_text} {s.label} is already driven")
        s.driven = DrivenSpec(drive, tuple(hints), initial)


def read_driven_options(reader, args):
    """`[initial state, ...] [, hint, "<hint>" ...]`: (initial state or None, hints)."""
    initial, hints = None, []
    while True:
        if args.is_keyword("initial state"):
            kw = args.is_keyword("from drive", "active", "inactive")
            initial = None if kw == "fromdrive" else (kw == "active") if kw else args.boolean()
        elif args.is_keyword("hint"):
            hw = args.peek()
            hints.append(reader.read_hint(hw, args.string("a hint in double quotes")))
        else:
            return initial, hints


CARDS = {
    "driven": read_driven,
}
