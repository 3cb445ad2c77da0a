"""Induced velocity elements of helicopter rotors (MBDyn's `induced velocity: L, rotor, ...`
and the deprecated `rotor: L, ...`; input manual "Induced velocity", theory manual 13.8,
eqs. 13.183-13.220): no induced velocity, uniform, Glauert (with its variants), Mangler-Squire
and Pitt-Peters dynamic inflow, with MBDyn's `.rot` output.

Unknowns of each rotor: F (3), M (3), algebraic, the aerodynamic force and moment about the
craft node's position (global frame; MBDyn's ResetForce puts the pole there) summed over the aerodynamic elements that name the rotor, whose
rows are F = Σ f_sec, M = Σ (m_sec + (x_sec − x_craft) × f_sec) (the aerodynamic family writes
the Σ part into the rotor's rows, with its Jacobian), and for dynamic inflow the three inflow
states (ν₀, ν_s, ν_c), differential, of M ν̇ + Ω L⁻¹ ν = Ω [C_T, C_l, C_m] (13.216-13.219).
This is a fully implicit form of MBDyn's coupling, which sums the loads of the previous residual
evaluation; both agree once Newton has converged.  The mean inflow of the uniform, Glauert and
Mangler models is, as in MBDyn, the one of the last converged step (a committed family array),
and so is the start of the local Newton on λ (13.185-13.189).

Model builder: `model.induced_velocity(label, craft, rotor, model="uniform", omega_ref=...,
radius=..., ...)`; deck cards: `induced velocity: L, rotor, ...` and `rotor: L, ...`.
Kernels: elements/rotor_kernel.py (`rotor_inflow` is the induced velocity at a point, for
the aerodynamic elements)."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.elements.base import ElementFamily, mat, scalar_drive, random_nodes, random_rotation
from mbdae.engine.core.assembly import Pattern, DIFFERENTIAL, ALGEBRAIC, DIM, kernel_jacobian_views
from mbdae.elements import rotor_kernel as rk
from mbdae.engine.core import air as airmod

MODELS = {"no": rk.NO, "uniform": rk.UNIFORM, "uniform sectional": rk.UNIFORM, "glauert": rk.GLAUERT,
          "mangler": rk.MANGLER, "dynamic inflow": rk.DYNAMIC_INFLOW}
GLAUERT_TYPES = {"glauert": rk.G_GLAUERT, "coleman": rk.G_COLEMAN, "drees": rk.G_DREES, "drees 2": rk.G_DREES,
                 "payne": rk.G_PAYNE, "white and blake": rk.G_WHITE_BLAKE, "pitt and peters": rk.G_PITT_PETERS,
                 "howlett": rk.G_HOWLETT}
DOUBLE_MAX = np.finfo(float).max
ROT_PRIVATE = ("Tx", "Ty", "Tz", "Mx", "My", "Mz")


@dataclass
class InducedVelocitySpec:
    label: int
    craft: int
    rotor: int
    model: str = "uniform"
    omega_ref: float = 0.0
    radius: float = 0.0
    orientation: np.ndarray = field(default_factory=lambda: np.eye(3))
    glauert_type: str = "glauert"
    ground: object = None              # ground node label or None
    delay: object = None               # memory factor drive (uniform, glauert, mangler) or None
    max_iterations: int = 1
    tolerance: float = DOUBLE_MAX
    eta: float = 1.0
    hover_correction: float = 1.0
    forward_flight_correction: float = 1.0
    initial_value: np.ndarray = field(default_factory=lambda: np.zeros(3))
    air: object = None                 # (ρ, c, v∞ (3)) when the model has no air properties
    output: bool = True
    sets: tuple = ()                   # resultant sets: (kind "node" | "local" | "external", node, labels)


# ---------------------------------------------------------------------- Model builder methods
def induced_velocity(model, label, craft, rotor, model_type="uniform", omega_ref=0.0, radius=0.0,
                     orientation=None, glauert_type="glauert", ground=None, delay=None, max_iterations=1,
                     tolerance=None, eta=1.0, correction=(1.0, 1.0), initial_value=None, air=None, output=True,
                     sets=()):
    """Rotor induced velocity element (input manual "Induced velocity", theory 13.8): `craft`
    and `rotor` structural node labels (axis 3 of R_craft·orientation is the rotor axis);
    model_type one of no, uniform, glauert (glauert_type: glauert, coleman, drees, payne,
    white and blake, pitt and peters, howlett), mangler, dynamic inflow; reference Ω and
    radius; options ground node, delay (memory factor drive), max_iterations/tolerance/eta of
    the local Newton, correction (hover, forward flight), initial_value (ν₀, ν_s, ν_c) of
    dynamic inflow; `air` = (ρ, c, v∞) seen by the rotor when the model has no air properties;
    `sets`: resultant force sets written to .rot (MBDyn's `set`), each (kind, node, element labels)
    with kind "node" (about the node, global), "local" (about the node, in its frame) or "external"
    (about the origin, node None)."""
    kind = str(model_type).lower()
    if kind not in MODELS:
        raise ValueError(f"induced velocity {label}: model must be one of {sorted(MODELS)}, not {model_type!r}")
    if any(s.label == label for s in model.induced_velocities):
        raise ValueError(f"induced velocity {label} is already defined")
    gt = str(glauert_type).lower()
    if gt not in GLAUERT_TYPES:
        raise ValueError(f"induced velocity {label}: Glauert type must be one of {sorted(GLAUERT_TYPES)}")
    if kind != "no":
        if omega_ref <= 0.0:
            raise ValueError(f"induced velocity {label}: invalid reference speed {omega_ref}")
        if radius <= 0.0:
            raise ValueError(f"induced velocity {label}: invalid radius {radius}")
    if kind == "dynamic inflow" and delay is not None:
        raise ValueError(f"induced velocity {label}: 'delay' is not allowed with dynamic inflow")
    if int(max_iterations) <= 0 or eta <= 0.0 or (tolerance is not None and tolerance <= 0.0):
        raise ValueError(f"induced velocity {label}: max iterations, eta and tolerance must be positive")
    kh, kff = (float(c) for c in correction)
    if kh <= 0.0 or kff <= 0.0:
        raise ValueError(f"induced velocity {label}: correction factors must be positive")
    if air is not None:
        air = np.asarray([air[0], air[1], *np.asarray(air[2], float).reshape(3)], float)
    checked = []
    for kind_s, node, labels in sets:
        if kind_s not in ("node", "local", "external") or (node is None) != (kind_s == "external"):
            raise ValueError(f"induced velocity {label}: a set is (\"node\" | \"local\", node, labels) "
                             "or (\"external\", None, labels)")
        labels = tuple(int(l) for l in labels)
        if not labels or len(set(labels)) != len(labels):
            raise ValueError(f"induced velocity {label}: a set needs distinct element labels")
        checked.append((kind_s, node, labels))
    model.induced_velocities.append(InducedVelocitySpec(
        label, craft, rotor, kind, float(omega_ref), float(radius), mat(orientation), gt, ground,
        scalar_drive(delay), int(max_iterations), DOUBLE_MAX if tolerance is None else float(tolerance),
        float(eta), kh, kff, np.zeros(3) if initial_value is None else np.asarray(initial_value, float).reshape(3),
        air, output, tuple(checked)))
    return label


MODEL_FIELDS = {"induced_velocities": list}
MODEL_METHODS = (induced_velocity,)


def build(model, nodes, built):
    if not model.induced_velocities:
        return []
    return [InducedVelocities(model.induced_velocities, nodes, getattr(model, "air", None))]


# ---------------------------------------------------------------------- samples
def rotor_sample(model, rng):
    """Two craft/rotor pairs with every model; the aerodynamic rows are absent, so F and M are
    random unknowns of the check (dynamic inflow sees them as thrust and moments)."""
    random_nodes(model, rng, 5)
    air = (1.225, 340.0, rng.normal(size=3))
    model.induced_velocity(1, 1, 2, "dynamic inflow", 40.0, 5.0, orientation=random_rotation(rng),
                           max_iterations=10, tolerance=1e-9, air=air, initial_value=rng.normal(size=3) * 0.1)
    model.induced_velocity(2, 3, 4, "uniform", 40.0, 5.0, ground=5, air=air)
    model.induced_velocity(3, 1, 4, "glauert", 30.0, 4.0, glauert_type="drees", air=air)
    model.induced_velocity(4, 3, 2, "dynamic inflow", 20.0, 3.0, correction=(1.1, 1.3), air=air, ground=5)
    model.induced_velocity(5, 3, 2, "no", air=air)
    return model


def coupled_sample(model, rng):
    """Rotors with aerodynamic elements that name them (elements/aerodynamic.py): a body on a
    blade node and a beam2 over two blade nodes feeding a Glauert and a dynamic inflow rotor,
    a passive body; the air from the model's air properties."""
    random_nodes(model, rng, 5)
    model.air_properties(1.225, [8.0, 2.0, -1.0], sound_speed=340.0)
    model.induced_velocity(1, 1, 2, "glauert", 40.0, 5.0, orientation=random_rotation(rng), max_iterations=5,
                           tolerance=1e-12)
    model.induced_velocity(2, 1, 2, "dynamic inflow", 40.0, 5.0, initial_value=rng.normal(size=3) * 0.05)
    model.aerodynamic_body(11, 3, offset=rng.normal(size=3) * 0.1, orientation=random_rotation(rng), span=1.0,
                           chord=0.3, points=2, induced_velocity=1)
    model.aerodynamic_beam2(12, (4, 5), chord=0.2, points=1, induced_velocity=2)
    model.aerodynamic_body(13, 4, span=0.5, chord=0.2, points=1, induced_velocity=2, passive=True)
    return model


SAMPLES = {"induced velocity": [rotor_sample, coupled_sample]}


class InducedVelocities(ElementFamily):
    name = "induced velocity"
    output_file = "rot"
    has_state = True
    has_step_start = True             # the committed companions take effect at the next step (begin_step)

    def __init__(self, specs, nodes, air=None):
        super().__init__(specs, nodes)
        S = self.specs
        self.model_air = air            # the model's `air properties` (engine/core/air.py AirSpec) or None
        for s in S:
            if air is None and s.air is None:       # MBDyn: "... while no air properties are defined"
                raise ValueError(f"induced velocity {s.label}: air properties are not defined")
        if len(set(self.labels.tolist())) != self.ne:
            raise ValueError("induced velocity: duplicate labels")
        self.nodes3 = np.full((self.ne, 3), -1, np.int64)
        for k, s in enumerate(S):
            for a, lab in enumerate((s.craft, s.rotor, s.ground)):
                if lab is None:
                    continue
                try:
                    self.nodes3[k, a] = nodes.index(lab)
                except KeyError:
                    raise ValueError(f"induced velocity {s.label}: structural node {lab} is not defined") from None
        self.iparams = np.array([[MODELS[s.model], GLAUERT_TYPES[s.glauert_type], s.max_iterations,
                                  int(s.ground is not None)] for s in S], np.int64).reshape(self.ne, rk.NI)
        self.fparams = np.array([[s.omega_ref, s.radius, s.tolerance, s.eta, s.hover_correction,
                                  s.forward_flight_correction, *np.asarray(s.orientation).ravel()] for s in S],
                                float).reshape(self.ne, rk.NF)
        self.dynamic = np.array([s.model == "dynamic inflow" for s in S], bool)
        self.dyn_index = np.where(self.dynamic, np.cumsum(self.dynamic) - 1, -1).astype(np.int64)
        self.nd = int(self.dynamic.sum())
        self.counts = np.where(self.dynamic, 9, 6).astype(np.int64)
        self.n_internal = int(self.counts.sum())
        self.delays = [s.delay for s in S]
        self.aero = None                # the aerodynamic family (set by its couple_rotors): resultant sets
        self.own_air = np.array([np.zeros(5) if s.air is None else s.air for s in S], float).reshape(self.ne, 5)

    def set_offset(self, start):
        self.offset = start
        self.off = (start + np.concatenate([[0], np.cumsum(self.counts)[:-1]])).astype(np.int64)

    def dof_info(self):
        kind, dim, labels, what = [], [], [], []
        for k, s in enumerate(self.specs):
            kind += [ALGEBRAIC] * 6
            dim += [DIM["force"]] * 3 + [DIM["moment"]] * 3
            what += ["rotor force x", "rotor force y", "rotor force z",
                     "rotor moment x", "rotor moment y", "rotor moment z"]
            if self.dynamic[k]:
                kind += [DIFFERENTIAL] * 3
                dim += [DIM["other"]] * 3
                what += ["inflow constant", "inflow sine", "inflow cosine"]
            labels += [s.label] * int(self.counts[k])
        return (np.array(kind, np.int64), np.array(dim, np.int64), np.array(labels, np.int64), what)

    def fm_rows(self, k):
        """The global rows of rotor k's F (3) and M (3) (the aerodynamic elements add into them)."""
        return self.off[k] + np.arange(6)

    def initial_values(self, y, yp):
        for k, s in enumerate(self.specs):
            if self.dynamic[k]:
                y[self.off[k] + 6:self.off[k] + 9] = s.initial_value

    def build_pattern(self):
        nodes = self.nodes
        p = self.pattern = Pattern()
        fm = self.off[:, None] + np.arange(6)[None, :]
        p.add_res(fm)
        p.add_jac(fm, fm)
        if self.nd:
            d = np.flatnonzero(self.dynamic)
            rows = self.off[d, None] + 6 + np.arange(3)[None, :]
            cols = [self.off[d, None] + np.arange(9)[None, :]]
            for a in range(2):
                n = self.nodes3[d, a]
                cols += [nodes.ix[n], nodes.ig[n]]
            p.add_res(rows)
            p.add_jac(rows, np.concatenate(cols, axis=1))
        return p

    def initial_state(self):
        """Companions (ne, 3): mean inflow of the last step, start of the local Newton, memory
        factor (MBDyn's dUMeanPrev, dUMeanRef, dWeight); "pending": those of the last commit,
        which begin_step makes current (until then, outputs see the ones the step used, as
        MBDyn's output sees its last residual evaluation)."""
        return {"companions": np.zeros((self.ne, 3)), "pending": np.zeros((self.ne, 3))}

    def begin_step(self, ctx, families):
        """On the predicted state of a step: the companions of the last commit become current
        (a new dict; the committed arrays are unchanged, so a retried step starts again)."""
        arrays = families.get(self.state_key) or self.initial_state()
        out = dict(families)
        out[self.state_key] = {"companions": arrays["pending"], "pending": arrays["pending"]}
        return out

    def air(self, ctx):
        """(ne, 5): ρ, c, v∞ at each rotor node: the model's air properties (one compiled call),
        else each rotor's own `air` (one of them is required: __init__)."""
        out = np.empty((self.ne, 5))
        if self.model_air is not None:
            rk.rotor_air(airmod.air_arrays(self.model_air, ctx.t), self.nodes3, ctx.kin.x, out)
            return out
        return self.own_air

    def _kin(self, ctx):
        kin = ctx.kin
        return kin.x, kin.R, kin.v, kin.w

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (rotor_kernel.rotor_equations) over all rotors."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        stz = self.state_arrays(ctx)["companions"]
        r_di = res_views[1] if self.nd else np.zeros((0, 3))
        j_di = jac[1] if self.nd else np.zeros((0, 3, 21))
        kin = ctx.kin
        rk.rotor_equations(self.iparams, self.fparams, self.off, self.dyn_index, self.nodes3, ctx.y, ctx.yp,
                           stz, self.air(ctx), *self._kin(ctx), kin.G, kin.Tw, float(kin.dcoef), want_jac,
                           res_views[0], r_di, jac[0], j_di)

    def _outputs(self, ctx):
        stz = self.state_arrays(ctx)["companions"]
        out = np.empty((self.ne, 19))
        new = np.empty((self.ne, 3))
        rk.rotor_outputs(self.iparams, self.fparams, self.off, self.dyn_index, self.nodes3, ctx.y, ctx.yp, stz,
                         self.air(ctx), *self._kin(ctx), out, new)
        return out, new

    def commit(self, ctx, arrays):
        """u_prev ← the mean inflow at the converged state, u_ref ← the local Newton's λ_u V_tip,
        w ← the delay drive at t clamped to [0, 1] (MBDyn's Rotor::AfterConvergence)."""
        _, new = self._outputs(ctx)
        for k, d in enumerate(self.delays):
            new[k, 2] = 0.0 if d is None else min(max(float(d.value(ctx.t)), 0.0), 1.0)
        return {"companions": arrays["companions"], "pending": new}

    def inflow_data(self, ctx):
        """(iparams, fparams, z (ne, NZ), nodes_kin (ne, 3, 18), air (ne, 5)) of every rotor at
        ctx: the inputs of rotor_kernel.rotor_inflow."""
        stz = self.state_arrays(ctx)["companions"]
        z = np.empty((self.ne, rk.NZ))
        nk = np.empty((self.ne, 3, 18))
        rk.gather_inflow(self.off, self.dyn_index, self.nodes3, ctx.y, ctx.yp, stz, *self._kin(ctx), z, nk)
        return self.iparams, self.fparams, z, nk, self.air(ctx)

    def output_groups(self, ctx):
        """.rot rows (MBDyn's Rotor::Output): label, force and moment in the disk frame
        R_dᵀ F, R_dᵀ M, mean inflow, reference velocity, disk angle, μ, λ, χ, ψ₀, convergence
        flag, iterations; dynamic inflow adds ν₀, ν_s, ν_c."""
        out, _ = self._outputs(ctx)
        sel = np.array([s.output for s in self.specs], bool)
        if not any(s.sets for s in self.specs):
            groups = []
            for dyn, width in ((False, 15), (True, 18)):
                m = sel & (self.dynamic == dyn)
                if m.any():
                    groups.append((self.labels[m], out[m, :width]))
            return groups
        # with resultant sets, MBDyn writes each rotor's row then its sets' rows `label:i F M`
        sets = self.resultant_sets(ctx)
        groups = []
        for k in np.flatnonzero(sel):
            groups.append((self.labels[k:k + 1], out[k:k + 1, :18 if self.dynamic[k] else 15]))
            if sets[k]:
                groups.append((np.array([f"{self.labels[k]:8d}:{i + 1}" for i in range(len(sets[k]))]),
                               np.array(sets[k])))
        return groups

    def resultant_sets(self, ctx):
        """[[F (3) + M (3) per set] per rotor]: the loads of the set's aerodynamic elements that
        feed the rotor (not passive), the moment about the set's node (global, or in the node's
        frame for `local`) or the origin (`external`), as MBDyn's ResForceSet."""
        out = [[] for _ in range(self.ne)]
        aero = self.aero
        loads = aero.nodal_loads(ctx) if aero is not None else None
        x, R = ctx.kin.x, ctx.kin.R
        for k, spec in enumerate(self.specs):
            for kind, node, labels in spec.sets:
                F, M = np.zeros(3), np.zeros(3)
                pole = np.zeros(3) if node is None else x[self.nodes.index(node)]
                if aero is not None:
                    for e in np.flatnonzero((aero.riv == k) & ~aero.rpass & np.isin(aero.labels, labels)):
                        for a in range(aero.nn[e]):
                            f, m = loads[e, a, :3], loads[e, a, 3:]
                            F += f
                            M += m + np.cross(x[aero.nodes_idx[e, a]] - pole, f)
                if kind == "local":
                    Rn = R[self.nodes.index(node)]
                    F, M = Rn.T @ F, Rn.T @ M
                out[k].append(np.concatenate([F, M]))
        return out

    def private_data_names(self, i):
        """MBDyn's rotor private data: force and moment in the disk frame."""
        return ROT_PRIVATE

    def private_data(self, ctx, name):
        if name not in ROT_PRIVATE:
            raise ValueError(f'induced velocity private datum "{name}" does not exist ({", ".join(ROT_PRIVATE)})')
        out, _ = self._outputs(ctx)
        return out[:, ROT_PRIVATE.index(name)]


# ---------------------------------------------------------------- MBDyn deck cards
OPTIONS = ("ground", "initial value", "delay", "weight", "max iterations", "tolerance", "eta", "correction")


def _read_rotor(reader, model, args, label, word):
    """`<craft> [, orientation, <R>], <rotor> [, induced velocity, <model>, ...] [, output, ...]`
    (input manual "Induced velocity", MBDyn 1.7.3 ReadRotor)."""
    craft, site = reader.node_site(args, "the craft node")
    Rh = reader.hinge(args, site)
    rotor, _ = reader.node_site(args, "the rotor node")
    kind = "no"
    kw_args = {}
    if args.is_keyword("induced velocity"):
        mw = args.peek()
        kind = args.is_keyword(*MODELS)
        if kind is None:
            raise (mw or args.card.end).error("induced velocity: unknown model (expected one of "
                                              + ", ".join(f"'{m}'" for m in MODELS) + ")")
        kind = next(m for m in MODELS if reader.normalize(m) == kind)
    if kind == "no":
        if args.is_keyword("radius"):
            rw = args.peek()
            kw_args["radius"] = args.real("the rotor radius")
            if kw_args["radius"] <= 0:
                raise rw.error(f"invalid radius {kw_args['radius']}")
    else:
        if kind == "glauert" and args.is_keyword("type"):
            tw = args.peek()
            gt = args.is_keyword(*GLAUERT_TYPES)
            if gt is None:
                raise (tw or args.card.end).error("unknown variant of Glauert's induced velocity (expected one of "
                                                  + ", ".join(f"'{g}'" for g in GLAUERT_TYPES) + ")")
            kw_args["glauert_type"] = next(g for g in GLAUERT_TYPES if reader.normalize(g) == gt)
        ow = args.peek()
        kw_args["omega_ref"] = args.real("the reference rotor speed")
        if kw_args["omega_ref"] <= 0:
            raise ow.error(f"invalid reference speed {kw_args['omega_ref']}")
        rw = args.peek()
        kw_args["radius"] = args.real("the rotor radius")
        if kw_args["radius"] <= 0:
            raise rw.error(f"invalid radius {kw_args['radius']}")
        seen = set()
        while args.more():
            w = args.peek()
            kw = w.keyword
            if kw in ("output", "set"):
                break
            names = {reader.normalize(o): o for o in OPTIONS}
            if kw not in names:
                raise w.error("induced velocity: unknown keyword (expected one of "
                              + ", ".join(f"'{o}'" for o in OPTIONS + ("set", "output")) + ")")
            args.i += 1
            opt = names[kw]
            opt = "delay" if opt == "weight" else opt
            if opt in seen:
                raise w.error(f"induced velocity: '{opt}' given twice")
            seen.add(opt)
            if opt == "ground":
                g, _ = reader.node_site(args, "the ground node")
                kw_args["ground"] = g.label
            elif opt == "initial value":
                if kind != "dynamic inflow":
                    raise w.error("invalid parameter 'initial value' (dynamic inflow only)")
                kw_args["initial_value"] = [args.real("the constant inflow"), args.real("the sine inflow"),
                                            args.real("the cosine inflow")]
            elif opt == "delay":
                if kind == "dynamic inflow":
                    raise w.error("invalid parameter 'delay' (not with dynamic inflow)")
                kw_args["delay"] = reader.read_drive(args)
            elif opt == "max iterations":
                vw = args.peek()
                kw_args["max_iterations"] = args.integer("the max iterations")
                if kw_args["max_iterations"] <= 0:
                    raise vw.error("illegal max iterations")
            elif opt in ("tolerance", "eta"):
                vw = args.peek()
                kw_args[opt] = args.real(f"the {opt}")
                if kw_args[opt] <= 0:
                    raise vw.error(f"illegal {opt}")
            else:
                hw = args.peek()
                kh = args.real("the hover correction factor")
                fw = args.peek()
                kff = args.real("the forward-flight correction factor")
                if kh <= 0:
                    raise hw.error("illegal null or negative hover inflow correction")
                if kff <= 0:
                    raise fw.error("illegal null or negative forward-flight inflow correction")
                kw_args["correction"] = (kh, kff)
    if args.is_keyword("set"):
        kw_args["sets"] = _read_sets(reader, args)
    output = "induced velocity elements" in reader.default_output
    if args.is_keyword("output"):
        output = reader.read_output_flag(args, "induced velocity elements")
    args.expect_end()
    model.induced_velocity(label, craft.label, rotor.label, kind, orientation=Rh, output=output, **kw_args)


def _read_sets(reader, args):
    """`set, <n>, n × ({node, <node> [, local] | external}, <count>, <element labels>)` (MBDyn's
    ReadResSets): the resultant force sets written to .rot."""
    nw = args.peek()
    n = args.integer("the number of sets")
    if n < 1:
        raise nw.error(f"Illegal number of sets ({n})")
    sets = []
    for _ in range(n):
        tw = args.peek()
        kw = args.is_keyword("node", "external")
        if kw is None:
            raise (tw or args.card.end).error("unknown force set type (expected 'node' or 'external')")
        node = None
        kind = "external"
        if kw == "node":
            node = reader.node_site(args, "the set's node")[0].label
            kind = "local" if args.is_keyword("local") else "node"
        cw = args.peek()
        count = args.integer("the number of items in the set")
        if count < 1:
            raise cw.error(f"illegal number of items {count} in set")
        labels = []
        for _ in range(count):
            lw = args.peek()
            lab = args.label("an element label")
            if lab in labels:
                raise lw.error(f"unable to insert item {lab} in set")
            labels.append(lab)
        sets.append((kind, node, tuple(labels)))
    return sets


def read_induced_velocity(reader, model, args, label, word):
    """`induced velocity: <label>, rotor, <rotor data>` (the only type MBDyn 1.7.3 builds in)."""
    tw = args.peek()
    if args.is_keyword("rotor") is None:
        raise (tw or args.card.end).error("induced velocity: unknown type (expected 'rotor')")
    _read_rotor(reader, model, args, label, word)


def read_rotor(reader, model, args, label, word):
    """`rotor: <label>, <rotor data>` (deprecated form of `induced velocity: <label>, rotor`)."""
    _read_rotor(reader, model, args, label, word)


CARDS = {"induced velocity": read_induced_velocity, "rotor": read_rotor}
