"""Geometrically exact finite-volume beams (manual ch. 10; Ghiringhelli, Masarati and
Mantegazza, "Multibody implementation of finite volume C0 beams", AIAA J. 38(1), 2000):
`beam3` (three nodes, evaluation points ξ = ∓1/√3) and `beam2` (two nodes, ξ = 0).

Kinematics (ch. 10.1, total form about a reference node):
* reference line p(ξ) = Σ N_k(ξ) y_k with y_k = x_k + R_k f̃_k (offsets in the node frames);
* orientation R(ξ) = exp(φ(ξ)×) R̄_r C_J with φ(ξ) = Σ N_k(ξ) φ_k, φ_k = log(R̄_k R̄_rᵀ), R̄_k = R_k R_hk
  and r the middle node (beam3) or node 1 (beam2).  Interpolating relative rotation vectors
  about a node of the element keeps the strains objective and path independent; the constant
  C_J turns the interpolated frame into the section frame given at the evaluation point;
* ( ' = d/ds, s the arc length of the initial reference line)
  ε = Rᵀ p' - ε₀ and κ = Rᵀ Γ(φ) φ' - κ₀, both zero in the initial configuration;
* strain rates ε̇ = Rᵀ(ṗ' - ω×p'), κ̇ = Rᵀ ω' with the section angular velocity ω(ξ) = Σ N_k ω_k
  interpolated from the nodes (zero under any rigid motion).
* interpolation="incremental" is MBDyn's updated form (manual ch. 10.1): the nodes' rotation
  increments g_k since the last converged step (their Gibbs-Rodrigues unknowns) are
  interpolated, R = R(g(ξ)) R_prev and κ = Rᵀ G(g) g' + κ_prev with the section frame and
  curvature of the last converged step stored per evaluation point (`commit`).  It follows
  MBDyn's results; the total form is path independent.

Section loads (F, M) = R f(ε, κ, ε̇, κ̇) from a 6-D law (axis 1 along the beam).  Finite-volume
balance: each node owns the piece of beam between the evaluation points around it, so
node 1 receives (F_I, M_I + (p_I - x_1)×F_I), node 2 receives the difference of the actions
at II and I with their arms, node 3 the opposite of the action at II (beam2: ±the single
action).  The Jacobian is exact: first variations of ε, κ, ε̇, κ̇ through the rotation
perturbation field θ(ξ) and its derivative θ'(ξ), δκ = Rᵀθ' (no second variations are needed
because the residual is written with section loads, not with a virtual-work integral)."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.engine.core.constitutive import Laws
from mbdae.elements.base import (ElementFamily, node_columns, vec, mat,
                                 beam_list, random_rotation, random_nodes)
from mbdae.elements.beam_kernel import beam_equations
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core.drives import LinearDrive, SineDrive

I3 = np.eye(3)


@dataclass
class BeamSpec:
    label: int
    nodes: tuple                       # 2 or 3 node labels
    laws: list                         # one 6-D constitutive.Law per evaluation point
    offsets: list = None               # node-frame offsets of the reference line (None: zero)
    node_orientations: list = None     # node-frame orientations R_hk (None: identity)
    section_orientations: list = None  # absolute section frames per point (None: from nodes)
    output: bool = True
    interpolation: str = "total"       # "total" (objective) or "incremental" (MBDyn's updated form)


def beam3_node_shares(ne, length):
    """Length of a straight line of `ne` equal beam3 elements (2 ne + 1 nodes) that the
    finite volumes give each node: (1-1/√3)/2, 1/√3, (1-1/√3)/2 of every element (the
    evaluation points at ξ = ∓1/√3 bound the volumes), for lumping masses as MBDyn models do."""
    a = (1.0 - 1.0 / np.sqrt(3.0)) / 2.0
    share = np.zeros(2 * ne + 1)
    le = length / ne
    for k, w in enumerate((a, 1.0 - 2.0 * a, a)):
        share[k:2 * ne + k:2] += w * le
    return share


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def beam3(model, label, node1, node2, node3, law, law2=None, offsets=None, node_orientations=None,
          orientation=None, orientation2=None, output=True, interpolation="total"):
    """Three-node finite-volume beam (manual ch. 10; MBDyn `beam3`): 6-D section laws at the
    evaluation points ξ = ∓1/√3 (law2 None: the same law), offsets of the reference line in
    the node frames, absolute section orientations (None: interpolated from the nodes;
    orientation2 None: the same rule as the first point).  interpolation: "total" (objective,
    path independent) or "incremental" (MBDyn's updated rotation interpolation)."""
    law2 = law if law2 is None else law2
    orientation2 = orientation if orientation2 is None else orientation2
    model.beams.append(BeamSpec(label, (node1, node2, node3), [law, law2], beam_list(offsets, 3, vec),
                               beam_list(node_orientations, 3, mat),
                               [None if R is None else mat(R) for R in (orientation, orientation2)], output,
                               interpolation))
    return label


def beam2(model, label, node1, node2, law, offsets=None, node_orientations=None, orientation=None,
          output=True, interpolation="total"):
    """Two-node finite-volume beam (MBDyn `beam2`): one 6-D section law at mid-span."""
    model.beams.append(BeamSpec(label, (node1, node2), [law], beam_list(offsets, 2, vec),
                               beam_list(node_orientations, 2, mat),
                               [None if orientation is None else mat(orientation)], output, interpolation))
    return label


MODEL_FIELDS = {"beams": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (beam3, beam2,)


def build(model, nodes, built):
    """One family per beam kind (three- and two-node) and interpolation."""
    families = []
    for cls in (Beams3, Beams2):
        for mode in ("total", "incremental"):
            group = [b for b in model.beams if len(b.nodes) == cls.NN and b.interpolation == mode]
            if group:
                families.append(cls(group, nodes))
    return families


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def _beam_laws(rng):
    K = rng.normal(size=(6, 6))
    C = rng.normal(size=(6, 6))
    pre = cl.TemplateDrive(6, [(rng.normal(size=6) * 0.05, LinearDrive(0.1, 0.3))])
    return [cl.linear_viscoelastic(6, K @ K.T + np.eye(6), C @ C.T, prestrain=pre),
            cl.beam_section(10.0, 5.0, 6.0, 2.0, 3.0, 4.0),
            cl.cubic_elastic(6, [10.0, 5.0, 6.0, 2.0, 3.0, 4.0], 3.0, 20.0),
            cl.scaled(cl.linear_viscous(6, np.diag([1.0, 2.0, 3.0, 0.5, 0.4, 0.3])), SineDrive(0.0, 2.0, 0.5, "forever", 1.0))]


def beam3_sample(model, rng):
    """Two curved three-node beams sharing a node, with offsets, node and section frames."""
    m = model
    base = np.array([[0.0, 0, 0], [0.5, 0.1, 0], [1.0, 0.3, 0.1], [1.5, 0.6, 0.1], [2.0, 0.8, 0.3]])
    for i, x in enumerate(base):
        m.structural_node(i + 1, "dynamic", position=x + 0.05 * rng.normal(size=3), orientation=random_rotation(rng),
                          velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
    laws = _beam_laws(rng)
    v = lambda: 0.05 * rng.normal(size=3)
    m.beam3(1, 1, 2, 3, laws[0], laws[2], offsets=[v(), v(), v()], node_orientations=[random_rotation(rng), None, random_rotation(rng)],
            orientation=random_rotation(rng))
    m.beam3(2, 3, 4, 5, laws[1], laws[3], orientation=random_rotation(rng), orientation2=random_rotation(rng))
    return m


def _three_moving_nodes(model, rng):
    """Three dynamic nodes on a slightly curved line, random frames and velocities."""
    m = model
    for i in range(3):
        m.structural_node(i + 1, "dynamic", position=[0.7 * i, 0.1 * i * i, 0.0] + 0.05 * rng.normal(size=3),
                          orientation=random_rotation(rng), velocity=rng.normal(size=3),
                          angular_velocity=rng.normal(size=3))
    return m


def beam2_sample(model, rng):
    m = _three_moving_nodes(model, rng)
    laws = _beam_laws(rng)
    m.beam2(1, 1, 2, laws[0], offsets=[0.05 * rng.normal(size=3), None], orientation=random_rotation(rng))
    m.beam2(2, 2, 3, laws[2], node_orientations=[None, random_rotation(rng)])
    m.beam2(3, 3, 1, laws[3])
    return m


def beam3_incremental_sample(model, rng):
    """MBDyn's incremental rotation interpolation (section frame and curvature of the last step)."""
    m = beam3_sample(model, rng)
    for b in m.beams:
        b.interpolation = "incremental"
    return m


def beam2_incremental_sample(model, rng):
    m = beam2_sample(model, rng)
    for b in m.beams:
        b.interpolation = "incremental"
    return m


def _plain_linear_laws(m, rng):
    """Only plain linear section laws (elastic and viscoelastic, no drive, no prestrain)."""
    K = rng.normal(size=(6, 6))
    C = rng.normal(size=(6, 6))
    laws = [cl.beam_section(10.0, 5.0, 6.0, 2.0, 3.0, 4.0), cl.linear_viscoelastic(6, K @ K.T + np.eye(6), C @ C.T)]
    for k, b in enumerate(m.beams):
        b.laws = [laws[(k + j) % 2] for j in range(len(b.laws))]
    return m


def beam3_plain_sample(model, rng):
    return _plain_linear_laws(beam3_sample(model, rng), rng)


def beam2_plain_sample(model, rng):
    return _plain_linear_laws(beam2_incremental_sample(model, rng), rng)


SAMPLES = {"beam3": [beam3_sample, beam3_incremental_sample, beam3_plain_sample],
           "beam2": [beam2_sample, beam2_incremental_sample, beam2_plain_sample]}


class _Beams(ElementFamily):
    """Shared implementation; subclasses fix the node count, points and shape functions.

    Evaluation is one call of the compiled kernel elements/beam_kernel.py:beam_equations over
    all instances (residual, Jacobian and, for outputs, private data and the incremental
    form's commit, the section quantities at the evaluation points).  The family holds only
    the fixed data: node indices, offsets, node and section frames, shape functions and the
    reference strains of the initial configuration."""
    # Beams3 and Beams2 define: NN nodes, evaluation points XI, the reference node REF, the
    # (NN, NP) finite-volume weights W of the point actions on each node, and shape(ξ) →
    # (N(ξ), dN/dξ)
    output_file = "act"
    OUTPUTS = ("strain", "rate", "f", "FM", "R", "ph")

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S, NN, NP = self.specs, self.NN, len(self.XI)
        self.NP = NP
        for s in S:
            if len(s.nodes) != NN:
                raise ValueError(f"{self.name} {s.label}: needs {NN} nodes, got {len(s.nodes)}")
            if len(s.laws) != NP:
                raise ValueError(f"{self.name} {s.label}: needs {NP} section laws, got {len(s.laws)}")
            for law in s.laws:
                if getattr(law, "dim", None) != 6:
                    raise ValueError(f"{self.name} {s.label}: the section law must be 6-D")
            if len(set(s.nodes)) != NN:
                raise ValueError(f"{self.name} {s.label}: the nodes must be distinct")
        ne = self.ne
        self.nidx = np.array([self.node_index(s.nodes) for s in S], np.int64).reshape(ne, NN)
        self.f = np.array([[np.zeros(3) if s.offsets is None or s.offsets[k] is None else s.offsets[k]
                            for k in range(NN)] for s in S], float).reshape(ne, NN, 3)
        self.Rh = np.array([[I3 if s.node_orientations is None or s.node_orientations[k] is None
                             else s.node_orientations[k] for k in range(NN)] for s in S],
                           float).reshape(ne, NN, 3, 3)
        self.has_offsets = bool(np.any(self.f))
        N, dN = zip(*(self.shape(x) for x in self.XI))
        self.N = np.array(N)            # (NP, NN)
        self.dN = np.array(dN)          # d/dξ
        self.Wt = np.ascontiguousarray(self.W, dtype=float)
        modes = {s.interpolation for s in S}
        if not modes <= {"total", "incremental"} or len(modes) != 1:
            raise ValueError(f"{self.name}: interpolation must be 'total' or 'incremental', one per family")
        self.incremental = modes.pop() == "incremental"
        self.laws = Laws([law for s in S for law in s.laws])
        self.viscous = self.laws.viscous
        # empty arrays in the kernel's places of what a call does not use
        self._no_prev = np.zeros((0, NP, 3, 3))
        self._no_out = (np.zeros((0, NP, 6)),) * 4 + (np.zeros((0, NP, 3, 3)), np.zeros((0, NP, 3)))
        self._no_jac = np.zeros((0, 6 * NN, 6 * NN))
        # initial configuration (total form, unit metric, no section frame): the kernel gives the
        # interpolated frames R_int and (R_intᵀ p', R_intᵀ k) per unit ξ; from them the metric
        # ds/dξ, the section frames R_sec = R_int C and the reference strains
        self.dNs = np.ascontiguousarray(np.broadcast_to(self.dN, (ne, NP, NN)))
        self.Csec = np.ascontiguousarray(np.broadcast_to(I3, (ne, NP, 3, 3)))
        self.eps0 = self.kappa0 = np.zeros((ne, NP, 3))
        ref = self._points(False, nodes.x0, nodes.x0, nodes.R0, nodes.x0, nodes.x0, nodes.R0,
                           None, None, zero_laws=True)
        strain, Rint = ref["strain"], ref["R"]
        dsdxi = np.linalg.norm(strain[..., 0:3], axis=-1)
        if np.any(dsdxi <= 1e-12 * (1.0 + np.abs(nodes.x0[self.nidx]).max())):
            raise ValueError(f"{self.name}: degenerate reference line (zero length at an evaluation point)")
        self.dsinv = 1.0 / dsdxi                                        # (ne, NP)
        self.dNs = np.ascontiguousarray(self.dN * self.dsinv[..., None])  # dN/ds (ne, NP, NN)
        Rsec = Rint.copy()
        for i, s in enumerate(S):
            if s.section_orientations is not None:
                for J in range(NP):
                    if s.section_orientations[J] is not None:
                        Rsec[i, J] = np.asarray(s.section_orientations[J], float).reshape(3, 3)
        Csec = np.swapaxes(Rint, -1, -2) @ Rsec                          # R_sec = R_int C
        if not np.allclose(Csec, I3, rtol=0.0, atol=1e-15):
            self.Csec = np.ascontiguousarray(Csec)
        # strain = (Rᵀ p', Rᵀ k) - (ε₀, κ₀); the incremental form adds κ of the last step instead
        # of subtracting κ₀ (State arrays: section frames R_prev and curvatures kappa_prev of the
        # last converged step)
        self.eps0 = np.ascontiguousarray(rot.mattvec(self.Csec, strain[..., 0:3]) * self.dsinv[..., None])
        self.kappa0 = np.ascontiguousarray(rot.mattvec(self.Csec, strain[..., 3:6]) * self.dsinv[..., None])
        self.has_state = self.incremental
        self.R_sec0 = Rsec

    def initial_state(self):
        if not self.incremental:
            return {}
        return {"R_prev": self.R_sec0.copy(), "kappa_prev": np.zeros((self.ne, self.NP, 3))}

    # ------------------------------------------------------------------ pattern
    def build_pattern(self):
        p = self.pattern = Pattern()
        NN, ne = self.NN, self.ne
        ix, ig = node_columns(self.nodes, self.nidx)                   # (ne, NN, 3)
        rows = np.concatenate([ix, ig], axis=-1)                        # (ne, NN, 6)
        self.rows = rows.reshape(ne, 6 * NN)
        p.add_res(self.rows)
        # Jacobian: rows (node i: force, moment), columns (x of every node, then g of every node)
        p.add_jac(self.rows, np.concatenate([ix.reshape(ne, 3 * NN), ig.reshape(ne, 3 * NN)], axis=-1))
        return p

    # ------------------------------------------------------------------ residual and Jacobian
    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (beam_kernel.beam_equations) over all beams."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        R_prev, kappa_ref = self._reference(ctx)
        beam_equations(self.incremental, self.viscous, self.has_offsets, float(kin.dcoef), self.REF, self.nidx,
                       self.Wt, self.N, self.dNs, self.f, self.Rh, self.Csec, R_prev, self.eps0, kappa_ref,
                       *self.laws.arrays, *self.laws.time_values(ctx.t), kin.x, kin.v, kin.R, kin.w, kin.g,
                       kin.G, kin.Tw, want_jac, False, res_views[0], jac[0], *self._no_out)

    def _reference(self, ctx):
        """(R_prev, the curvature the kernel subtracts or adds): the State arrays of the
        incremental form, the initial curvature κ₀ of the total form."""
        if not self.incremental:
            return self._no_prev, self.kappa0
        arrays = self.state_arrays(ctx)
        return arrays["R_prev"], arrays["kappa_prev"]

    def _points(self, incremental, x, v, R, w, g, G, R_prev, kappa_ref, t=0.0, zero_laws=False):
        """The kernel's section quantities at the evaluation points (OUTPUTS, each (ne, NP, …)):
        strains and rates (section frame), the law's loads f, the loads (F, M) in the global
        frame, the section frame and the reference line point relative to the reference node.
        zero_laws: the laws' time values all zero (no drive evaluated; f = 0)."""
        ne, NN, NP = self.ne, self.NN, self.NP
        out = tuple(np.empty((ne, NP) + tail) for tail in ((6,), (6,), (6,), (6,), (3, 3), (3,)))
        if zero_laws:
            n = self.laws.n
            times = (np.zeros((n, 6)), np.zeros(n), np.zeros(n), np.zeros(n))
        else:
            times = self.laws.time_values(t)
        beam_equations(incremental, self.viscous and not zero_laws, self.has_offsets, 0.0, self.REF, self.nidx,
                       self.Wt, self.N, self.dNs, self.f, self.Rh, self.Csec,
                       self._no_prev if R_prev is None else R_prev, self.eps0,
                       self.kappa0 if kappa_ref is None else kappa_ref, *self.laws.arrays, *times,
                       x, v, R, w, g, G, G, False, True, np.empty((ne, 6 * NN)), self._no_jac, *out)
        return dict(zip(self.OUTPUTS, out))

    def _state(self, ctx):
        """The section quantities at ctx (see _points; engine/core/privdata.py reads them)."""
        kin = ctx.kin
        R_prev, kappa_ref = self._reference(ctx)
        return self._points(self.incremental, kin.x, kin.v, kin.R, kin.w, kin.g, kin.G, R_prev, kappa_ref,
                            ctx.t)

    def rebase(self, ctx, arrays):
        """A step re-based on its prediction (System.rebase_rotations): the incremental form's
        section frames and curvatures at the predicted configuration (MBDyn's AfterPredict)."""
        return self.commit(ctx, arrays)

    def commit(self, ctx, arrays):
        """After a converged step or phase, before the nodes' increments are reset (G3): the
        incremental form's new section frames and curvatures (MBDyn's AfterConvergence)."""
        if not self.incremental:
            return arrays
        st = self._state(ctx)
        return {"R_prev": st["R"], "kappa_prev": np.ascontiguousarray(st["strain"][..., 3:6])}

    # ------------------------------------------------------------------ output
    def output_groups(self, ctx):
        """.act rows: for each evaluation point the internal force and moment in the section frame."""
        vals = self._state(ctx)["f"].reshape(self.ne, 6 * self.NP)
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], vals[out])]

    def section_loads(self, ctx):
        """(F, M) at the evaluation points in the global frame, (ne, NP, 3) each."""
        FM = self._state(ctx)["FM"]
        return FM[..., 0:3], FM[..., 3:6]

    def strains(self, ctx):
        """Generalized strains (ε, κ) and rates at the evaluation points, section frame (ne, NP, 6)."""
        st = self._state(ctx)
        return st["strain"], st["rate"]


class Beams3(_Beams):
    """Three-node beam: nodes at ξ = -1, 0, 1, evaluation points at ξ = ∓1/√3."""
    name = "beam3"
    NN = 3
    XI = (-1.0 / np.sqrt(3.0), 1.0 / np.sqrt(3.0))
    REF = 1
    W = np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]])

    @staticmethod
    def shape(xi):
        return ([0.5 * xi * (xi - 1.0), 1.0 - xi * xi, 0.5 * xi * (xi + 1.0)],
                [xi - 0.5, -2.0 * xi, xi + 0.5])


class Beams2(_Beams):
    """Two-node beam: nodes at ξ = ∓1, one evaluation point at ξ = 0."""
    name = "beam2"
    NN = 2
    XI = (0.0,)
    REF = 0
    W = np.array([[1.0], [-1.0]])

    @staticmethod
    def shape(xi):
        return [0.5 * (1.0 - xi), 0.5 * (1.0 + xi)], [-0.5, 0.5]


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_beam3(reader, model, args, label, word):
    """`beam3: label, 3 × (node, [position,] offset [, orientation, R]), {R_I | from nodes},
    law_I, {same | R_II | from nodes}, {same | law_II} [, custom output, ...] [, output, ...]`
    (input manual §8.3.2; `beam` is an alias)."""
    read_beam(reader, model, args, label, 3)


def read_beam2(reader, model, args, label, word):
    """`beam2: label, 2 × (node, [position,] offset [, orientation, R]), {R_I | from nodes},
    law_I [, custom output, ...] [, output, ...]` (input manual §8.3.3)."""
    read_beam(reader, model, args, label, 2)


def read_beam(reader, model, args, label, nn):
    """Beams from decks use MBDyn's incremental rotation interpolation (elements/beam.py)."""
    labels, offsets, orientations = reader.read_node_ends(args, nn, "beam node")
    sections, laws = read_beam_sections(reader, args, nn)
    output = read_beam_options(reader, args, label)
    if nn == 3:
        model.beam3(label, *labels, laws[0], laws[1], offsets=offsets, node_orientations=orientations,
                    orientation=sections[0], orientation2=sections[1], output=output,
                    interpolation="incremental")
    else:
        model.beam2(label, *labels, laws[0], offsets=offsets, node_orientations=orientations,
                    orientation=sections[0], output=output, interpolation="incremental")


def read_beam_sections(reader, args, nn):
    """Per evaluation point `{R | from nodes | same}, {law | same}`: (orientations, 6-D laws)."""
    sections, laws = [], []
    for J in range(nn - 1):
        if J > 0 and args.is_keyword("same"):
            sections.append(sections[0])
        elif args.is_keyword("from nodes"):
            sections.append(None)
        else:
            sections.append(reader.read_orientation(args, "abs"))
        if J > 0 and args.is_keyword("same"):
            laws.append(laws[0])
        else:
            laws.append(reader.read_law(args, 6))
    return sections, laws


def read_beam_options(reader, args, label):
    """`[, custom output, ...] [, inverse dynamics, ...] [, output, ...]`: the output flag."""
    output = "beams" in reader.default_output
    while args.more():
        ow = args.peek()
        kw = args.expect_keyword("output", "custom output", "piezoelectric actuator",
                                 "inverse dynamics", what="'output' or ';'")
        if kw == "output":
            output = reader.read_output_flag(args, "beams")
        elif kw == "inversedynamics":
            reader.read_inverse_dynamics_flags(args, ("beam", label), joint=False)
        elif kw == "customoutput":
            while args.more() and args.peek_keyword() != "output":
                args.take("a custom output flag")
            reader.note(ow, "beam custom output affects NetCDF output only; ignored")
        else:
            raise ow.error(reader.not_supported("piezoelectric beams"))
    return output

CARDS = {
    "beam": read_beam3, "beam3": read_beam3, "beam2": read_beam2,
}
