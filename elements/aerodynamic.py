"""Aerodynamic elements (theory manual Ch. 13; MBDyn input manual, "Aerodynamic Elements"):
`aerodynamic body` (one node, a wing segment of span b about an offset point), `aerodynamic
beam2` and `aerodynamic beam` (the aerodynamic surface of a 2- or 3-node beam), with the air
(`air properties`, engine/core/air.py) and the airfoil data (`c81 data`, built-in NACA 0012;
engine/core/airfoil.py).  Sectional 2-D loads at Gauss-Legendre points along the span are
integrated onto the nodes (13.4-13.7, 13.19); kinematics and Jacobian in
elements/aerodynamic_kernel.py.

Chord, aerodynamic centre (force point), boundary-condition point (velocity point), twist and
tip loss are shapes of the span abscissa (`const`, `linear`, `piecewise const`, `piecewise
linear`, `parabolic`, as MBDyn's shape.cc); they do not change in time, so their values at the
Gauss points are computed once here.  As in MBDyn: the twist of the beams is read at the beam
abscissa s, the tip loss (and the choice among `c81, multiple` tables) at the Gauss point's
own coordinate ξ ∈ [-1, 1] inside its node's part of the span.

The unsteady angle-of-attack memory (`unsteady, bielawa`) lives in the State: per Gauss point
the two last committed (t, α) and the number of committed steps."""
from dataclasses import dataclass, field
import os
import tempfile

import numpy as np

from mbdae.engine.core import air as airmod
from mbdae.elements import rotor_kernel as rk                          # rotor coupling
from mbdae.engine.core import airfoil as af
from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views, DIFFERENTIAL, DIM
from mbdae.engine.core.drives import ConstDrive, LinearDrive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.state import IA_POSITION, IA_VELOCITY
from mbdae.elements.base import ElementFamily, node_columns, vec, mat, random_nodes, random_rotation
from mbdae.elements.aerodynamic_kernel import aero_equations, section_points, N_OUTA

KINDS = {"body": 1, "beam2": 2, "beam3": 3}
# the part of the span abscissa s each node takes (aeroelem.cc pdsi/pdsf: beam3 splits at ±1/√3)
_S3 = 1.0 / np.sqrt(3.0)
SPAN_SPLIT = {1: [(-1.0, 1.0)], 2: [(-1.0, 0.0), (0.0, 1.0)], 3: [(-1.0, -_S3), (-_S3, _S3), (_S3, 1.0)]}
OUTPUT_MODES = ("std", "gauss", "node")


# ---------------------------------------------------------------------- shapes
@dataclass(frozen=True)
class Shape:
    """A 1-D shape of the span abscissa (MBDyn's shape.cc): kind "const" (a), "linear"
    (a0 + a1 d), "parabolic" (a0 + a1 d + a2 d²), "piecewise const" / "piecewise linear"
    (points x, values v; constant outside)."""
    kind: str
    coef: tuple = ()
    x: tuple = ()
    v: tuple = ()

    def value(self, d):
        d = np.asarray(d, float)
        if self.kind == "const":
            return np.full(d.shape, self.coef[0])
        if self.kind == "linear":
            return self.coef[0] + self.coef[1] * d
        if self.kind == "parabolic":
            return self.coef[0] + (self.coef[1] + self.coef[2] * d) * d
        x, v = np.asarray(self.x), np.asarray(self.v)
        if self.kind == "piecewise linear":
            return np.interp(d, x, v)
        if self.kind == "piecewise const":
            k = np.searchsorted(x, d, side="right") - 1      # v[i-1] for x[i-1] <= d < x[i]
            return np.where(d <= x[0], v[0], v[np.clip(k, 0, len(v) - 1)])
        raise ValueError(f"unknown shape '{self.kind}'")


def shape(value):
    """A Shape, a number (constant) or a (kind, ...) tuple."""
    if isinstance(value, Shape):
        return value
    return Shape("const", (float(value),))


# ---------------------------------------------------------------------- specs
@dataclass(frozen=True)
class Airfoil:
    """The airfoil of an element: kind "naca0012" (MBDyn's built-in, the default), "rae9671",
    "c81" or "theodorsen" (c81 tables under the two-state Wagner model, 13.7); mode "single" (labels[0]), "multiple" (tables switched along the span at their
    upper bounds) or "interpolated" (tables merged at their positions, `tolerance` as the
    card's); unsteady "steady" or "bielawa"."""
    kind: str = "naca0012"
    labels: tuple = ()
    bounds: tuple = ()
    unsteady: str = "steady"
    mode: str = "single"
    tolerance: float = 1e-6

    def model(self, tables):
        """AIRFOIL's AirfoilModel (engine/core/airfoil.py) of this choice."""
        return af.AirfoilModel(self.kind, self.unsteady, tuple(tables[l] for l in self.labels), self.mode,
                               tuple(self.bounds), self.tolerance)


@dataclass
class AeroSpec:
    label: int
    kind: str                         # "body" | "beam2" | "beam3"
    nodes: tuple
    offsets: list                     # per node f̃ (node frame)
    orientations: list                # per node Ra (node frame)
    span: float = 0.0                 # body only
    chord: Shape = field(default_factory=lambda: Shape("const", (1.0,)))
    force_point: Shape = field(default_factory=lambda: Shape("const", (0.0,)))
    velocity_point: Shape = field(default_factory=lambda: Shape("const", (0.0,)))
    twist: Shape = field(default_factory=lambda: Shape("const", (0.0,)))
    tip_loss: Shape = field(default_factory=lambda: Shape("const", (1.0,)))
    points: int = 1
    control: object = None           # scalar drive added to the twist (None: 0)
    airfoil: Airfoil = field(default_factory=Airfoil)
    jacobian: bool = False            # MBDyn's `jacobian, yes|no` (mbdae always assembles one)
    induced_velocity: int = None      # label of an `induced velocity` element (wired by the rotor)
    passive: bool = False
    output_mode: str = "std"
    output: bool = True
    beam: int = None                  # the beam label of an aerodynamic beam (`node` output)


def air_properties(model, density, velocity, sound_speed=None, std=None, temperature_deviation=None,
                   reference_altitude=0.0, p0=None, T0=None, a=None, R=None, g0=None, z1=None, z2=None,
                   gusts=(), output=True):
    """The air (one per model): `density` a number or drive (ρ; the reference ρ0 of a custom
    standard atmosphere), `velocity` the free stream (3-vector or VectorDrive), and either
    `sound_speed` (explicit air) or `std="SI"|"British"` (MBDyn's standard atmosphere, with
    an optional temperature deviation) or the constants p0, T0, a, R, g0, z1, z2; `gusts`:
    engine.core.air.Gust1D fronts."""
    vel = velocity if isinstance(velocity, VectorDrive) else VectorDrive.constant(vec(velocity))
    if std is not None or p0 is not None:
        if std is not None:
            consts = airmod.standard(std, temperature_deviation)
            rho = ConstDrive(consts.pop("rho0"))
        else:
            consts = dict(p0=p0, T0=T0, a=a, R=R, g0=g0, z1=z1, z2=z2)
            rho = density if hasattr(density, "value") else ConstDrive(float(density))
        model.air = airmod.AirSpec("std", rho, vel, std=consts, z0=float(reference_altitude), output=output,
                                   gusts=list(gusts))
    else:
        rho = density if hasattr(density, "value") else ConstDrive(float(density))
        model.air = airmod.AirSpec("explicit", rho, vel, sound_speed=float(sound_speed), output=output,
                                   gusts=list(gusts))
    return model.air


def c81_data(model, label, path, fmt="c81", tolerance=1e-6, flip=False):
    """Airfoil table `label` read from a C81 file (AIRFOIL's reader, engine/core/airfoil.py;
    fmt "c81", "free format", "nrel" or "fc511")."""
    if label in model.c81_tables:
        raise ValueError(f"c81 data {label} is already defined")
    model.c81_tables[label] = af.read_c81(path, fmt, tolerance=tolerance, flip=flip)
    return label


def _aero(model, label, kind, nodes, offsets, orientations, span=0.0, chord=1.0, force_point=0.0,
          velocity_point=0.0, twist=0.0, tip_loss=1.0, points=1, control=None, airfoil=None,
          jacobian=False, induced_velocity=None, passive=False, output_mode="std"):
    n = KINDS[kind]
    offsets = [vec(None if offsets is None else offsets[k]) for k in range(n)]
    orientations = [mat(None if orientations is None else orientations[k]) for k in range(n)]
    if points < 1:
        raise ValueError(f"aerodynamic {kind} {label}: need at least 1 Gauss integration point")
    if output_mode not in OUTPUT_MODES:
        raise ValueError(f"aerodynamic {kind} {label}: unknown output mode '{output_mode}'")
    model.aero_elements.append(AeroSpec(
        label, kind, tuple(nodes), offsets, orientations, float(span), shape(chord), shape(force_point),
        shape(velocity_point), shape(twist), shape(tip_loss), min(int(points), 10),
        control if control is None or hasattr(control, "value") else ConstDrive(float(control)),
        airfoil or Airfoil(), bool(jacobian), induced_velocity, passive, output_mode))
    return label


def aerodynamic_body(model, label, node, offset=None, orientation=None, span=1.0, **kw):
    """Aerodynamic body (13.4): a wing segment of span b along axis 3 of R Ra, centred at the
    node's offset point f̃; keyword arguments as the shapes and options of AeroSpec."""
    return _aero(model, label, "body", (node,), [offset], [orientation], span=span, **kw)


def aerodynamic_beam2(model, label, nodes, offsets=None, orientations=None, **kw):
    """Aerodynamic beam2 (13.6) over two nodes (offset f̃_k and frame Ra_k per node)."""
    return _aero(model, label, "beam2", nodes, offsets, orientations, **kw)


def aerodynamic_beam(model, label, nodes, offsets=None, orientations=None, **kw):
    """Aerodynamic beam (13.5) over three nodes (offset f̃_k and frame Ra_k per node)."""
    return _aero(model, label, "beam3", nodes, offsets, orientations, **kw)


MODEL_FIELDS = {"air": None, "c81_tables": dict, "aero_elements": list}
MODEL_METHODS = (air_properties, c81_data, aerodynamic_body, aerodynamic_beam2, aerodynamic_beam)


def build(model, nodes, built):
    families = []
    if getattr(model, "air", None) is not None:
        families.append(AirProperties([model.air], nodes))
    if model.aero_elements:
        families.append(AerodynamicElements(model.aero_elements, nodes, getattr(model, "air", None),
                                            model.c81_tables))
        families[-1].couple_rotors(next((f for f in built if f.name == "induced velocity"), None))
    return families


# ---------------------------------------------------------------------- families
class AirProperties(ElementFamily):
    """The air: no equations; its `.air` rows (MBDyn's layout: label 1, ρ, c, V∞ at the
    origin)."""
    name = "air properties"
    output_file = "air"

    def build_pattern(self):
        self.pattern = Pattern()
        return self.pattern

    def evaluate(self, ctx, res_views, jac_views):
        return None

    def output_groups(self, ctx):
        s = self.specs[0]
        return [(np.array([s.label]), airmod.air_output_row(s, ctx.t)[None, :])]


def gauss_points(n):
    """Gauss-Legendre points and weights on [-1, 1] (MBDyn's gauss.cc table, 1-10 points)."""
    return np.polynomial.legendre.leggauss(n)


class AerodynamicElements(ElementFamily):
    """Every aerodynamic body, beam2 and beam of the model, padded to three node slots."""
    name = "aerodynamic element"
    output_file = "aer"
    has_state = True
    in_initial_assembly = True        # only to keep its Theodorsen states' rows (evaluate)

    def __init__(self, specs, nodes, air, tables):
        super().__init__(specs, nodes)
        S = self.specs
        if air is None:
            raise ValueError(f"aerodynamic element {S[0].label}: air properties are not defined")
        self.air_spec = air
        ne = self.ne
        self.nn = np.array([KINDS[s.kind] for s in S], np.int64)
        self.ng = np.array([s.points for s in S], np.int64)
        self.nodes_idx = np.full((ne, 3), -1, np.int64)
        self.f_loc = np.zeros((ne, 3, 3))
        self.Ra = np.tile(np.eye(3), (ne, 3, 1, 1))
        for e, s in enumerate(S):
            for k, lab in enumerate(s.nodes):
                try:
                    self.nodes_idx[e, k] = nodes.index(lab)
                except KeyError:
                    raise ValueError(f"aerodynamic {s.kind} {s.label}: structural node {lab} is not defined") from None
                self.f_loc[e, k] = s.offsets[k]
                self.Ra[e, k] = s.orientations[k]
        npts = self.nn * self.ng
        self.pstart = np.concatenate([[0], np.cumsum(npts)[:-1]]).astype(np.int64)
        self.npts = int(npts.sum())
        self.ds = np.zeros(self.npts)
        self.csi = np.zeros(self.npts)
        self.wpre = np.zeros(self.npts)
        self.sdata = np.zeros((self.npts, 6))
        self.unsteady = np.zeros(self.npts, np.bool_)
        models, keys = [], {}
        mindex = np.zeros(self.npts, np.int64)
        for e, s in enumerate(S):
            try:
                whole = s.airfoil.model(tables)
            except (KeyError, ValueError) as err:
                raise ValueError(f"aerodynamic {s.kind} {s.label}: airfoil: {err}") from None
            xi, wg = gauss_points(s.points)
            n = self.nn[e]
            p = self.pstart[e]
            for k, (a, b) in enumerate(SPAN_SPLIT[n]):
                sm, sd = 0.5 * (a + b), 0.5 * (b - a)
                d = sm + sd * xi                     # beam abscissa (body: ξ itself)
                sl = slice(p + k * s.points, p + (k + 1) * s.points)
                self.ds[sl] = d
                self.csi[sl] = xi
                self.wpre[sl] = 0.5 * s.span * wg if n == 1 else sd * wg
                self.sdata[sl, 0] = s.chord.value(d)
                self.sdata[sl, 1] = s.force_point.value(d)
                self.sdata[sl, 2] = s.velocity_point.value(d)
                self.sdata[sl, 3] = s.twist.value(d)
                self.sdata[sl, 4] = s.tip_loss.value(xi)      # MBDyn: at the Gauss coordinate
                self.sdata[sl, 5] = 0.5 * s.span
                self.unsteady[sl] = s.airfoil.unsteady != "steady"
                for q in range(s.points):
                    key = self._table_key(s.airfoil, xi[q])
                    if key not in keys:
                        keys[key] = len(models)
                        models.append(whole.at(xi[q]))
                    mindex[sl.start + q] = keys[key]
        self.theo = np.zeros(self.npts, np.bool_)
        for e, s in enumerate(S):
            if s.airfoil.kind == "theodorsen":
                self.theo[self.pstart[e]:self.pstart[e] + self.nn[e] * self.ng[e]] = True
        # Theodorsen states: two differential unknowns per point of such elements (13.69-13.70)
        self.n_internal = 2 * int(self.theo.sum())
        self.soff = np.full(self.npts, -1, np.int64)
        self.n_rows = 18 + 2 * int(max([(self.nn[e] * self.ng[e]) if self.theo[self.pstart[e]] else 0
                                        for e in range(ne)] + [0]))
        self.rates = np.zeros((self.npts, 4))
        self.ai, self.af, starts = af.pack_airfoils(models)
        self.mstart = np.asarray(starts, np.int64)[mindex]
        self.control = [s.control for s in S]
        self.has_control = any(c is not None for c in self.control)
        self._ctrl = np.zeros(ne)
        self.outa = np.zeros((self.npts, N_OUTA))
        self.alpha = np.zeros(self.npts)
        self.vgust = np.zeros((self.npts, 3))
        self._xpts = np.zeros((self.npts, 3))
        self.rotors, self.coupled = None, False              # rotor coupling: couple_rotors (build)
        self.riv = np.full(self.ne, -1, np.int64)
        self.rpass = np.zeros(self.ne, np.bool_)

    # ------------------------------------------------------------ rotor coupling (elements/rotor.py)
    def couple_rotors(self, rotors):
        """Link the elements that name an `induced velocity` element to the rotor family
        `rotors` (built before this one): riv[e] its index (−1: none), rpass[e] passive."""
        self.rotors = rotors
        self.riv = np.full(self.ne, -1, np.int64)
        self.rpass = np.array([bool(s.passive) for s in self.specs], np.bool_)
        for e, s in enumerate(self.specs):
            if s.induced_velocity is None:
                continue
            idx = np.flatnonzero(rotors.labels == s.induced_velocity) if rotors is not None else []
            if len(idx) == 0:
                raise ValueError(f"aerodynamic {s.kind} {s.label}: induced velocity {s.induced_velocity} "
                                 "is not defined")
            self.riv[e] = idx[0]
        self.coupled = bool((self.riv >= 0).any())
        if rotors is not None:
            rotors.aero = self                                  # the rotors' resultant sets (.rot)

    def _rotor_inputs(self, ctx):
        """(rip, rfp, rz, rnk, rair, rnodes) of the rotor family at ctx (empty without rotors)."""
        if not self.coupled:
            return (np.zeros((0, rk.NI), np.int64), np.zeros((0, rk.NF)), np.zeros((0, rk.NZ)),
                    np.zeros((0, 3, 18)), np.zeros((0, 5)), np.zeros((0, 3), np.int64))
        return (*self.rotors.inflow_data(ctx), self.rotors.nodes3)

    def _rotor_rows_cols(self):
        """(rows (ne, 6), cols (ne, 21)) of each element's rotor: its F, M rows (−1 when
        passive or uncoupled), its unknowns (F, M, ν) and its craft and rotor nodes' (x, g)."""
        rows = np.full((self.ne, 6), -1, np.int64)
        cols = np.full((self.ne, 21), -1, np.int64)
        rot = self.rotors
        for e in np.flatnonzero(self.riv >= 0):
            k = self.riv[e]
            if not self.rpass[e]:
                rows[e] = rot.fm_rows(k)
            cols[e, :int(rot.counts[k])] = rot.off[k] + np.arange(int(rot.counts[k]))
            for a in range(2):
                n = rot.nodes3[k, a]
                cols[e, 9 + 6 * a:12 + 6 * a] = self.nodes.ix[n]
                cols[e, 12 + 6 * a:15 + 6 * a] = self.nodes.ig[n]
        return rows, cols

    def _coupling_scratch(self):
        """Scratch (rr, j_nr, j_rn, j_rr) when the rotor rows are not wanted (outputs, commit)."""
        s = self.__dict__.get("_rotor_scratch")
        if s is None:
            n, nr = (self.ne if self.coupled else 0), self.n_rows
            s = self._rotor_scratch = (np.zeros((n, 6)), np.zeros((n, nr, 21)), np.zeros((n, 6, nr)),
                                       np.zeros((n, 6, 21)))
        return s

    @staticmethod
    def _table_key(a, xi):
        """What identifies the single-table model of choice `a` at Gauss coordinate ξ:
        `multiple` switches tables at the upper bounds (C81MultipleAeroData: the first, from
        the top, whose bound ξ exceeds), `interpolated` merges them at ξ itself."""
        if a.mode == "single":
            return (a, None)
        if a.mode == "interpolated":
            return (a, float(xi))
        cur = 0
        for i in range(len(a.labels) - 2, -1, -1):
            if xi > a.bounds[i]:
                cur = i + 1
                break
        return (a, cur)

    def set_offset(self, start):
        self.offset = start
        sel = np.flatnonzero(self.theo)
        self.soff[sel] = start + 2 * np.arange(len(sel))

    def dof_info(self):
        """Two differential unknowns (the Wagner states q₁, q₂) per point of the Theodorsen
        elements."""
        labels, what = [], []
        for e, s in enumerate(self.specs):
            if self.theo[self.pstart[e]]:
                for q in range(self.nn[e] * self.ng[e]):
                    labels += [s.label, s.label]
                    what += [f"aerodynamic {s.kind} Theodorsen state {c + 1} at point {q}" for c in range(2)]
        n = len(labels)
        return (np.full(n, DIFFERENTIAL, np.int64), np.full(n, DIM["other"], np.int64),
                np.array(labels, np.int64), what)

    def kept_unknowns(self):
        """The Theodorsen states: the derivatives phase keeps their values (as the nodes')."""
        return self.soff[self.soff >= 0]

    def build_pattern(self):
        ix, ig = node_columns(self.nodes, self.nodes_idx)       # (ne, 3, 3) each
        rows = np.concatenate([ix, ig], axis=2).reshape(self.ne, 18)
        if self.n_rows > 18:
            extra = np.full((self.ne, self.n_rows - 18), -1, np.int64)
            for e in range(self.ne):
                p0, m = self.pstart[e], self.nn[e] * self.ng[e]
                if self.theo[p0]:
                    extra[e, :2 * m] = (self.soff[p0:p0 + m, None] + np.arange(2)[None, :]).ravel()
            rows = np.concatenate([rows, extra], axis=1)
        p = self.pattern = Pattern()
        p.add_res(rows)
        p.add_jac(rows, rows)
        if self.coupled:                                                # rotor coupling
            rrows, rcols = self._rotor_rows_cols()
            p.add_res(rrows)
            p.add_jac(rows, rcols)
            p.add_jac(rrows, rows)
            p.add_jac(rrows, rcols)
        return p

    def initial_state(self):
        # prev: (α_pivot, α̇, t) of the Theodorsen points at the last converged step (t NaN
        # before the first: no backward differences, as MBDyn's first evaluation)
        prev = np.zeros((self.npts, 3))
        prev[:, 2] = np.nan
        return {"hist_a": np.zeros((self.npts, 2)), "hist_t": np.zeros((self.npts, 2)),
                "n_upd": np.zeros(1, np.int64), "prev": prev,
                "outa": np.zeros((self.npts, N_OUTA)), "loads": np.zeros((self.ne, 18))}

    def _controls(self, t):
        if self.has_control:
            for e, c in enumerate(self.control):
                self._ctrl[e] = 0.0 if c is None else float(c.value(t))
        return self._ctrl

    def _run(self, ctx, res, jac, want_jac, coupling=None):
        st = self.state_arrays(ctx)
        kin = ctx.kin
        air = airmod.air_arrays(self.air_spec, ctx.t)
        ctrl = self._controls(ctx.t)
        args = (self.nn, self.ng, self.nodes_idx, self.f_loc, self.Ra, self.pstart, self.ds, self.wpre, self.sdata,
                self.mstart, self.unsteady, ctrl, air, self.vgust, self.ai, self.af, float(ctx.t), st["hist_a"],
                st["hist_t"], st["n_upd"], self.theo, self.soff, st["prev"], self.rates)
        if self.air_spec.gusts:
            # the gusts at the section points of this iterate (drives of the points' abscissae)
            section_points(*args, kin.x, kin.R, kin.v, kin.w, self._xpts)
            self.vgust[:] = airmod.gust_velocities(self.air_spec, self._xpts, ctx.t)
        aero_equations(float(kin.dcoef), *args, kin.x, kin.R, kin.v, kin.w, kin.G, kin.Tw, ctx.y, ctx.yp, want_jac,
                       res, jac, self.outa, self.alpha, self.riv, self.rpass, *self._rotor_inputs(ctx),
                       *(coupling if coupling is not None else self._coupling_scratch()))

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (aero_equations) over all elements; drives evaluated here.  In
        the initial assembly the elements take no part (as MBDyn's without `use: aerodynamic
        elements, in assembly`); their Theodorsen states keep their values (unit rows)."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        if ctx.mode_code in (IA_POSITION, IA_VELOCITY):
            for view in list(res_views) + (list(jac) if want_jac else []):     # (and the rotor coupling's)
                view[...] = 0.0
            if want_jac:
                states = np.arange(18, self.n_rows)
                jac[0][:, states, states] = 1.0
            return
        coupling = (res_views[1], jac[1], jac[2], jac[3]) if self.coupled else None      # rotor coupling
        self._run(ctx, res_views[0], jac[0], want_jac, coupling)

    def commit(self, ctx, arrays):
        """The angle-of-attack memory after a converged step: (t, α) of every point shifted in
        (MBDyn's AeroMemory::Update)."""
        if not (self.unsteady.any() or self.theo.any()) or ctx.mode == "initial assembly":
            return arrays                 # MBDyn's memory counts the derivatives phase and the steps
        res = np.zeros((self.ne, self.n_rows))
        self._run(ctx, res, self._scratch(), False)
        ha = np.column_stack([arrays["hist_a"][:, 1], self.alpha])
        ht = np.column_stack([arrays["hist_t"][:, 1], np.full(self.npts, ctx.t)])
        prev = np.where(self.theo[:, None], np.column_stack([self.rates[:, :2], np.full(self.npts, ctx.t)]),
                        arrays["prev"])
        # the step's airfoil outputs and nodal loads, for the output of this step (MBDyn writes
        # those of its last residual, before the memory moves on)
        return {"hist_a": ha, "hist_t": ht, "n_upd": arrays["n_upd"] + 1, "prev": prev, "outa": self.outa.copy(),
                "loads": -res[:, :18]}

    def _scratch(self):
        s = self.__dict__.get("_jac_scratch")
        if s is None:
            s = self._jac_scratch = np.zeros((self.ne, self.n_rows, self.n_rows))
        return s

    def nodal_loads(self, ctx):
        """The applied nodal loads (ne, 3, 6): F, M of each node slot (tests)."""
        res = np.zeros((self.ne, self.n_rows))
        self._run(ctx, res, self._scratch(), False)
        return -res[:, :18].reshape(self.ne, 3, 6)

    def output_groups(self, ctx):
        """.aer rows (MBDyn's AerodynamicBody/Beam::Output): `std`: per point α, γ, Mach, cl,
        cd, cm, α̇, α̈ (airfoil outputs 1-6, 8, 9); `node`: the node (body) or beam label,
        then F, M per node (global, moments about the node); `gauss`: per point
        atan2(-W₂, W₁) (deg) and TNG₂ (tip loss applied), TNG₁, TNG₆ (the airfoil's outputs
        14-17 are unused by MBDyn; the kernel keeps these there)."""
        if self.unsteady.any() or self.theo.any():
            # memory models: the outputs of the step as committed (re-evaluating after the
            # commit would see the step's own values in the memory)
            st = self.state_arrays(ctx)
            outa, loads = st["outa"], st["loads"].reshape(self.ne, 3, 6)
        else:
            res = np.zeros((self.ne, self.n_rows))
            self._run(ctx, res, self._scratch(), False)
            outa, loads = self.outa, -res[:, :18].reshape(self.ne, 3, 6)
        groups = []
        for mode in OUTPUT_MODES:
            for n in (1, 2, 3):
                sel = [e for e, s in enumerate(self.specs) if s.output and s.output_mode == mode and self.nn[e] == n]
                if not sel:
                    continue
                by_width = {}
                for e in sel:
                    p0, m = self.pstart[e], self.nn[e] * self.ng[e]
                    if mode == "std":
                        row = outa[p0:p0 + m][:, [1, 2, 3, 4, 5, 6, 8, 9]].ravel()
                    elif mode == "gauss":
                        row = outa[p0:p0 + m, 14:18].ravel()
                    else:
                        s = self.specs[e]
                        owner = s.nodes[0] if s.beam is None else s.beam
                        row = loads[e, :n].ravel()
                        # the node's or beam's label as an integer column (MBDyn's setw(8))
                        by_width.setdefault(("node", row.size), []).append((f"{self.labels[e]:8d} {owner:8d}", row))
                        continue
                    by_width.setdefault(row.size, []).append((self.labels[e], row))
                for rows in by_width.values():
                    labels = [r[0] for r in rows]
                    groups.append((np.array(labels, dtype=object if isinstance(labels[0], str) else None),
                                   np.array([r[1] for r in rows])))
        return groups


# ---------------------------------------------------------------------- samples
def aero_sample(model, rng):
    """A body, a beam2 and a beam over random nodes in a free stream, C81-free (NACA 0012),
    with shapes, twist and a control drive."""
    m = model
    random_nodes(m, rng, 4)
    m.air_properties(1.225, [30.0, 2.0, -1.0], sound_speed=340.0)
    m.aerodynamic_body(1, 1, offset=rng.normal(size=3) * 0.1, orientation=random_rotation(rng), span=2.0,
                       chord=Shape("linear", (0.5, 0.1)), force_point=0.05, velocity_point=-0.1,
                       twist=0.05, points=2)
    m.aerodynamic_beam2(2, (2, 3), offsets=[rng.normal(size=3) * 0.1, rng.normal(size=3) * 0.1],
                        orientations=[random_rotation(rng), random_rotation(rng)],
                        chord=Shape("piecewise linear", (), (-1.0, 1.0), (0.6, 0.3)), points=2,
                        control=LinearDrive(0.01, 0.1))
    m.aerodynamic_beam(3, (1, 3, 4), points=1, twist=Shape("parabolic", (0.02, 0.01, -0.03)),
                       tip_loss=Shape("const", (0.9,)))
    return m


def thin_airfoil_table():
    """A C81 table of thin-airfoil theory (cl = 2π α up to ±12°, then falling; cd = 0.01 +
    α²/100; cm = -α/50, α in rad) at Mach 0 and 0.8, built in memory through AIRFOIL's
    writer and reader (the generated checks run without data files)."""
    deg = np.array([-180.0, -90.0, -30.0, -12.0, -4.0, 0.0, 4.0, 12.0, 30.0, 90.0, 180.0])
    a = np.radians(deg)
    cl = np.where(np.abs(deg) <= 12.0, 2 * np.pi * a, 2 * np.pi * np.radians(12.0) * np.sign(a) * np.cos(a - np.sign(a) * np.radians(12.0)))
    cl[[0, -1]] = 0.0
    cols = lambda v: np.column_stack([deg, v, v])          # noqa: E731
    mach = np.array([0.0, 0.8])
    table = af.C81Table("thin airfoil (mbdae sample)", mach, cols(cl), mach.copy(), cols(0.01 + a * a / 100.0),
                        mach.copy(), cols(-a / 50.0))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "thin.c81")
        af.write_c81(table, path, free_format=True)
        return af.read_c81(path, "free format")


def theodorsen_sample(model, rng):
    """A Theodorsen body and beam2 (states as unknowns) on random nodes."""
    m = model
    random_nodes(m, rng, 3)
    m.c81_tables[1] = thin_airfoil_table()
    # slow air and a long chord keep the reduced frequency d = 2U/c near 1, so that the
    # random O(1) states of the checks give moderate effective angles
    m.air_properties(1.225, [2.0, 0.3, 0.1], sound_speed=340.0)
    m.aerodynamic_body(1, 1, offset=rng.normal(size=3) * 0.1, orientation=random_rotation(rng), span=1.5,
                       chord=3.0, force_point=0.5, velocity_point=-0.6, points=2,
                       airfoil=Airfoil("theodorsen", (1,)), jacobian=True)
    m.aerodynamic_beam2(2, (2, 3), orientations=[random_rotation(rng), random_rotation(rng)], chord=2.5,
                        force_point=0.4, velocity_point=-0.5, points=1, airfoil=Airfoil("theodorsen", (1,)),
                        jacobian=True)
    return m


SAMPLES = {"aerodynamic element": [aero_sample, theodorsen_sample], "air properties": []}


# ---------------------------------------------------------------- MBDyn deck cards
# Readers called by engine/io/mbdyn (duck-typed reader and model, no engine.io import here).

def read_shape(reader, args):
    """A shape: `[const,] v | linear, {v₋₁, v₊₁ | coefficients, a0, a1} | piecewise {const |
    linear}, n, x₁, v₁, … | parabolic, v₋₁, v₀, v₊₁` (MBDyn's ReadShape)."""
    kw = args.is_keyword("const", "piecewise const", "linear", "piecewise linear", "parabolic")
    if kw in (None, "const"):
        return Shape("const", (args.real("a shape value"),))
    if kw == "linear":
        if args.is_keyword("coefficients"):
            return Shape("linear", (args.real("a coefficient"), args.real("a coefficient")))
        m, p = args.real("the value at -1"), args.real("the value at +1")
        return Shape("linear", ((p + m) / 2.0, (p - m) / 2.0))
    if kw == "parabolic":
        m, a0, p = args.real("the value at -1"), args.real("the value at 0"), args.real("the value at +1")
        return Shape("parabolic", (a0, (p - m) / 2.0, (p + m) / 2.0 - a0))
    what = "piecewise const" if kw == "piecewiseconst" else "piecewise linear"
    w = args.peek()
    n = args.integer("the number of points")
    if n <= 0:
        raise w.error(f"Illegal number of points {n} for {what} shape")
    xs, vs = [], []
    for i in range(n):
        xw = args.peek()
        x = args.real("a point abscissa")
        if (i == 0 and not -1.0 <= x <= 1.0) or (i > 0 and not xs[-1] < x <= 1.0):
            raise xw.error(f"Illegal value {x} for point {i + 1} abscissa in {what} shape")
        xs.append(x)
        vs.append(args.real("a point value"))
    return Shape(what, (), tuple(xs), tuple(vs))


def read_unsteady(reader, args):
    """`[unsteady, {steady | bielawa | harris | <int>}]` (MBDyn's ReadUnsteadyFlag)."""
    if not args.is_keyword("unsteady"):
        return "steady"
    w = args.peek()
    kw = args.is_keyword("steady", "harris", "bielawa")
    if kw is None:
        i = args.integer("an unsteady model")
        kw = {0: "steady", 1: "harris", 2: "bielawa"}.get(i)
        if kw is None:
            raise w.error(f"illegal unsteady flag numeric value {i}")
    if kw == "harris":
        raise w.error("\"Harris\" unsteady aerodynamics are not available")
    return kw


def read_airfoil(reader, model, args):
    """The airfoil: `naca0012 | rae9671 | c81, {<label> | multiple, n, (label, upper bound) … |
    interpolated, [tolerance, t,] n, (label, position) …} | theodorsen, …` then the unsteady
    flag (MBDyn's ReadAeroData; no airfoil word: NACA 0012)."""
    w = args.peek()
    if not args.more():
        return Airfoil()
    kw = args.is_keyword("naca0012", "rae9671", "c81", "theodorsen")
    if kw is None:
        # MBDyn warns ("unknown airfoil type ...; using default (NACA0012)"), swallows the
        # word and reads the NACA 0012's unsteady flag
        args.take("an airfoil type")
        reader.note(w, f"unknown airfoil type '{w.text.strip()}'; using default (NACA0012), as MBDyn")
        return Airfoil("naca0012", unsteady=read_unsteady(reader, args))
    if kw == "theodorsen":
        if not args.is_keyword("c81"):
            reader.note(w, "Theodorsen aerodata: assuming \"c81\" (as MBDyn)")
        inner = _read_c81_choice(reader, model, args, w)
        return Airfoil("theodorsen", inner.labels, inner.bounds, "steady", inner.mode, inner.tolerance)
    if kw in ("naca0012", "rae9671"):
        return Airfoil(kw, unsteady=read_unsteady(reader, args))
    return _read_c81_choice(reader, model, args, w)


def _read_c81_choice(reader, model, args, w):
    """`<label> | multiple, … | interpolated, …` then the unsteady flag (a c81 airfoil)."""
    mode = args.is_keyword("multiple", "interpolated") or "single"
    if mode == "single":
        lw = args.peek()
        lab = args.label("a c81 data label")
        if lab not in model.c81_tables:
            raise lw.error(f"c81 data {lab} is not defined")
        return Airfoil("c81", (lab,), (), read_unsteady(reader, args))
    tol = 1e-6
    if mode == "interpolated" and args.is_keyword("tolerance"):
        tw = args.peek()
        tol = args.real("a tolerance")
        if tol <= 0.0:
            raise tw.error("invalid c81 data tolerance")
    nw = args.peek()
    n = args.integer("the number of airfoils")
    if n <= 0:
        raise nw.error("Need at least one airfoil")
    labels, bounds = [], []
    for i in range(n):
        lw = args.peek()
        lab = args.label("a c81 data label")
        bw = args.peek()
        ub = args.real("an upper bound")
        low = ub < -1.0 if mode == "interpolated" else ub <= -1.0
        if low or ub > 1.0 or (bounds and ub <= bounds[-1]):
            raise bw.error(f"upper bound {i + 1} = {ub} out of [-1, 1] or not in increasing order")
        if lab not in model.c81_tables:
            raise lw.error(f"Unable to find airfoil {lab}")
        labels.append(lab)
        bounds.append(ub)
    return Airfoil("c81", tuple(labels), tuple(bounds), read_unsteady(reader, args), mode, tol)


def _read_common(reader, model, args, label, word, kind, nodes, offsets, orientations, span=0.0):
    chord = read_shape(reader, args)
    force = read_shape(reader, args)
    velocity = read_shape(reader, args)
    twist = read_shape(reader, args)
    tip = read_shape(reader, args) if args.is_keyword("tip loss") else Shape("const", (1.0,))
    pw = args.peek()
    npts = args.integer("the number of Gauss points")
    if npts <= 0:
        raise pw.error("need at least 1 Gauss integration point")
    control = reader.read_drive(args) if args.is_keyword("control") else None
    airfoil = read_airfoil(reader, model, args)
    jac = args.boolean() if args.is_keyword("jacobian") else False
    if airfoil.kind == "theodorsen" and not jac:
        raise args.words[max(args.i - 1, 0)].error(
            f"Aerodynamic{kind.capitalize()}({label}): aerodynamic model needs \"jacobian, yes\"")
    if args.is_keyword("custom output"):
        cw = args.words[args.i - 1]
        while args.is_keyword("position", "orientation", "velocity", "angular velocity", "configuration",
                              "force", "moment", "forces", "all") is not None:
            if args.words[args.i - 1].keyword in ("orientation", "all"):
                # MBDyn's ReadOptionalOrientationDescription after a flag that includes the orientation
                if args.is_keyword("orientation description"):
                    reader.read_orientation_description(args)
                elif args.peek_keyword() in ("euler123", "euler313", "euler321", "orientationvector",
                                             "orientationmatrix"):
                    args.take("an orientation description")
        reader.note(cw, "custom output of aerodynamic elements: MBDyn writes it to NetCDF only; ignored")
    output = "aerodynamic elements" in reader.default_output
    if args.is_keyword("output"):
        output = reader.read_output_flag(args, "aerodynamic elements")
    mode = "std"
    if args.more():
        mw = args.peek()
        mode = args.is_keyword("std", "gauss", "node")
        if mode is None:
            raise mw.error(f"aerodynamic {kind}({label}): unknown output mode '{mw.text.strip()}'")
    args.expect_end()
    _aero(model, label, kind, nodes, offsets, orientations, span, chord, force, velocity, twist, tip, npts,
          control, airfoil, jac, None, False, mode)
    spec = model.aero_elements[-1]
    spec.output = output
    return spec


def _read_induced_velocity(reader, args):
    """`[induced velocity | rotor, <label> [, passive]]`: the label (wired by the rotor)."""
    kw = args.is_keyword("induced velocity", "rotor", "user defined induced velocity")
    if kw is None:
        return None, False
    if kw == "userdefinedinducedvelocity":
        raise args.words[args.i - 1].error(reader.not_supported("user defined induced velocity"))
    lab = args.label("an induced velocity label")
    return lab, bool(args.is_keyword("passive"))


def read_aerodynamic_body(reader, model, args, label, word):
    """`aerodynamic body: <label>, <node>, [induced velocity, <iv>,] <offset>, <orientation>,
    <span>, <chord>, <aero centre>, <bc point>, <twist>, [tip loss, <shape>,] <points>
    [, control, <drive>], <airfoil> [, jacobian, <bool>] [, output, …] [, std|gauss|node]`."""
    n, site = reader.node_site(args)
    iv, passive = _read_induced_velocity(reader, args)
    f = reader.read_vec3(args, "rel position", site)
    Ra = reader.read_orientation(args, "rel", site)
    span = args.real("the span")
    spec = _read_common(reader, model, args, label, word, "body", (n.label,), [f], [Ra], span)
    spec.induced_velocity, spec.passive = iv, passive


def _read_beam(reader, model, args, label, word, kind, n):
    bw = args.peek()
    beam = args.label("a beam label")
    info = getattr(reader, "beam_nodes", {}).get(beam) if hasattr(reader, "beam_nodes") else None
    if info is None:
        info = _beam_nodes(model, beam)
    if info is None or len(info) != n:
        raise bw.error(f"aerodynamic {kind}({label}): {'3' if n == 3 else '2'}-node beam {beam} is not defined")
    iv, passive = _read_induced_velocity(reader, args)
    offsets, orients = [], []
    for lab in info:
        site = reader.make_site(reader.nodes[lab].frame, lab)
        offsets.append(reader.read_vec3(args, "rel position", site))
        orients.append(reader.read_orientation(args, "rel", site))
    spec = _read_common(reader, model, args, label, word, kind, tuple(info), offsets, orients)
    spec.induced_velocity, spec.passive, spec.beam = iv, passive, beam


def _beam_nodes(model, label):
    for b in getattr(model, "beams", []):
        if b.label == label:
            return tuple(b.nodes)
    return None


def read_aerodynamic_beam(reader, model, args, label, word):
    """`aerodynamic beam: <label>, <beam3>, [induced velocity, <iv>,] 3 × (<offset>,
    <orientation>), <chord>, …` (as the body without the span)."""
    _read_beam(reader, model, args, label, word, "beam3", 3)


def read_aerodynamic_beam2(reader, model, args, label, word):
    """`aerodynamic beam2: <label>, <beam2>, [induced velocity, <iv>,] 2 × (<offset>,
    <orientation>), <chord>, …`."""
    _read_beam(reader, model, args, label, word, "beam2", 2)


def read_air_properties(reader, model, args, word, site):
    """`air properties: {<ρ drive>, <c> | std, {SI | British | <p0>, <ρ0 drive>, <T0>, <a>, <R>,
    <g0>, <z1>, <z2>} [, temperature deviation, ΔT] [, reference altitude, z0]},
    <free-stream template drive> [, gust, …] [, output, …]` (MBDyn's ReadAirProperties);
    `site`: the global site the free stream is read in."""
    if getattr(model, "air", None) is not None:
        raise word.error("air properties are already defined")
    if args.is_keyword("std"):
        sys = args.is_keyword("SI", "british")
        if sys is not None:
            dw = args.peek()
            dT = args.real("a temperature deviation") if args.is_keyword("temperature deviation") else None
            try:
                consts = airmod.standard("SI" if sys == "si" else "british", dT)
            except ValueError as err:
                raise dw.error(str(err)) from None
            rho = ConstDrive(consts.pop("rho0"))
        else:
            p0 = args.real("the reference pressure")
            rho = reader.read_drive(args)
            consts = dict(p0=p0, T0=args.real("the reference temperature"), a=args.real("the temperature gradient"),
                          R=args.real("the gas constant"), g0=args.real("the gravity acceleration"),
                          z1=args.real("the troposphere altitude"), z2=args.real("the stratosphere altitude"))
        z0 = args.real("the reference altitude") if args.is_keyword("reference altitude") else 0.0
        velocity = reader.read_tpl_vec3(args, "abs direction", site)
        spec_args = dict(kind="std", density=rho, velocity=velocity, std=consts, z0=z0)
    else:
        rho = reader.read_drive(args)
        cw = args.peek()
        c = args.real("the sound celerity")
        if c <= 0.0:
            raise cw.error("illegal null or negative sound speed")
        velocity = reader.read_tpl_vec3(args, "abs direction", site)
        spec_args = dict(kind="explicit", density=rho, velocity=velocity, sound_speed=c)
    gusts = []
    while args.is_keyword("gust"):
        gw = args.peek()
        kind = args.is_keyword("front 1D", "scalar function", "power law", "logarithmic")
        if kind is None:
            raise gw.error(f"unknown gust type '{gw.text.strip() if gw else ''}'")
        if kind == "front1d":
            front = reader.read_vec3(args, "abs direction", site)
            direction = reader.read_vec3(args, "abs direction", site)
            gusts.append(airmod.Gust1D(front, direction, args.real("the front velocity"), reader.read_drive(args)))
        else:
            gusts.append(read_wind_profile(reader, args, kind, gw, site))
    spec_args["gusts"] = gusts
    output = "air properties" in reader.default_output
    if args.is_keyword("output"):
        output = reader.read_output_flag(args, "air properties")
    args.expect_end()
    try:
        model.air = airmod.AirSpec(output=output, **spec_args)
    except ValueError as err:
        raise word.error(str(err)) from None


def read_wind_profile(reader, args, kind, word, site):
    """A wind profile gust (MBDyn's windprof.cc): `scalar function, [reference position, <X0>,]
    [reference orientation, <R0>,] "<function>"` | `power law, reference elevation, <z_ref>,
    reference velocity, <drive>, exponent, <p>` | `logarithmic, reference elevation, <z_ref>,
    reference velocity, <drive>, surface roughness length, <z0>` (the power law and logarithmic
    options in any order, with the reference position and orientation)."""
    X0, R0, got = np.zeros(3), np.eye(3), {}
    names = {"referenceposition": "position", "referenceorientation": "orientation"}
    if kind != "scalarfunction":
        names.update({"referenceelevation": "elevation", "referencevelocity": "velocity"})
        names["exponent" if kind == "powerlaw" else "surfaceroughnesslength"] = "third"
    while True:
        kw_word = args.peek()
        kw = args.is_keyword(*["reference position", "reference orientation", "reference elevation",
                               "reference velocity", "exponent", "surface roughness length"])
        if kw is None:
            break
        if kw not in names:
            raise kw_word.error(f"{kind} gust: unexpected '{kw_word.text.strip()}'")
        what = names[kw]
        if what in got:
            raise kw_word.error(f"{kind} gust: {kw_word.text.strip()} given twice")
        if what == "position":
            got[what] = reader.read_vec3(args, "abs position", site)
        elif what == "orientation":
            got[what] = reader.read_orientation(args, "abs", site)
        elif what == "velocity":
            got[what] = reader.read_drive(args)
        else:
            vw = args.peek()
            got[what] = args.real(what)
            if not got[what] > 0:
                raise vw.error(f"{kind} gust: the {kw_word.text.strip()} must be positive")
    X0, R0 = got.get("position", X0), got.get("orientation", R0)
    if kind == "scalarfunction":
        return airmod.ScalarFunctionWind(X0, R0, reader.read_scalar_function(args))
    for what, text in (("elevation", "reference elevation"), ("velocity", "reference velocity"),
                       ("third", "exponent" if kind == "powerlaw" else "surface roughness length")):
        if what not in got:
            raise word.error(f"{kind} gust: {text} missing")
    cls = airmod.PowerLawWind if kind == "powerlaw" else airmod.LogarithmicWind
    return cls(X0, R0, got["elevation"], got["velocity"], got["third"])


def read_c81_data(reader, model, args, word):
    """`c81 data: <label>, [name, "<name>",] "<file>" [, tolerance, <t>] [, fc511 | nrel |
    free format] [, flip]` (MBDyn's mbpar.cc; a relative path from the deck's folder; read by
    AIRFOIL's read_c81)."""
    lw = args.peek()
    label = args.label("a c81 data label")
    args.optional_name()
    fw = args.peek()
    name = args.string("a c81 file name")
    tol = 1e-6
    if args.is_keyword("tolerance"):
        tw = args.peek()
        tol = args.real("a tolerance")
        if tol <= 0.0:
            raise tw.error(f"C81Data({label}): invalid c81 data tolerance")
    fmt = {"fc511": "fc511", "nrel": "nrel", "freeformat": "free format"}.get(
        args.is_keyword("fc511", "nrel", "free format"), "c81")
    flip = bool(args.is_keyword("flip"))
    args.expect_end()
    path = name if os.path.isabs(name) else os.path.join(os.path.dirname(word.source.name), name)
    if label in model.c81_tables:
        raise lw.error(f"c81 data {label} is already defined")
    line, col = fw.where()
    try:
        model.c81_tables[label] = af.read_c81(path, fmt, where=f"{fw.source.name}:{line}:{col}", tolerance=tol,
                                              flip=flip)
    except (OSError, ValueError) as err:
        raise fw.error(f"C81Data({label}): {err}") from None


CARDS = {
    "aerodynamic body": read_aerodynamic_body,
    "aerodynamic beam2": read_aerodynamic_beam2,
    "aerodynamic beam": read_aerodynamic_beam,
    "aerodynamic beam3": read_aerodynamic_beam,
}
