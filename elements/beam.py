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
from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core.constitutive import Laws
from mbdae.elements.base import (ElementFamily, node_columns, StateCache, write_blocks, vec, mat,
                                 beam_list, random_rotation, random_nodes)
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


def _mv(A, v):
    """Batched A @ v (matmul: less overhead than einsum on these small stacks)."""
    return (A @ v[..., None])[..., 0]


# [2 sinφ n, 1 + 2 cos φ] = E.ravel() @ _AX_TRACE for a rotation matrix E (angle φ, axis n)
_AX_TRACE = np.zeros((9, 4))
_AX_TRACE[[7, 2, 3], [0, 1, 2]] = 1.0
_AX_TRACE[[5, 6, 1], [0, 1, 2]] = -1.0
_AX_TRACE[[0, 4, 8], 3] = 1.0
# series in φ² (powers 0..3) of a = sinφ/φ, b = (1-cosφ)/φ², c = (φ-sinφ)/φ³ and of
# (db/dφ)/φ, (dc/dφ)/φ; used below φ = 0.05 (truncation below 1e-16)
_SERIES = np.array([[1.0, -1 / 6, 1 / 120, -1 / 5040],
                    [1 / 2, -1 / 24, 1 / 720, -1 / 40320],
                    [1 / 6, -1 / 120, 1 / 5040, -1 / 362880],
                    [-1 / 12, 1 / 180, -1 / 6720, 1 / 453600],
                    [-1 / 60, 1 / 1260, -1 / 60480, 1 / 4989600]]).T
_SMALL2 = 0.05 ** 2


def _log_rotvec(E):
    """Rotation vector of E (…,3,3) (manual ch. 4.2) with few array operations; angles
    beyond arccos(-0.9) go to rotations.log_rotvec (robust near π)."""
    v = E.reshape(E.shape[:-2] + (9,)) @ _AX_TRACE
    cphi = 0.5 * (v[..., 3] - 1.0)
    if np.any(cphi < -0.9):
        return rot.log_rotvec(E)
    sn = 0.5 * v[..., 0:3]                                              # sin φ n
    sphi = np.sqrt(np.einsum('...i,...i->...', sn, sn))
    phi = np.arctan2(sphi, cphi)
    p2 = phi * phi
    k = np.where(phi < 0.05, 1.0 + p2 * (1 / 6 + p2 * (7 / 360 + p2 * (31 / 15120 + p2 * 127 / 604800))),
                 phi / np.where(phi < 0.05, 1.0, sphi))                 # φ / sin φ
    return sn * k[..., None]


def _series(p2):
    """_SERIES evaluated at φ² = p2 by Horner's rule, (…, 5)."""
    x = p2[..., None]
    return ((_SERIES[3] * x + _SERIES[2]) * x + _SERIES[1]) * x + _SERIES[0]


def _coefficients(phi):
    """a, b, c, (db/dφ)/φ, (dc/dφ)/φ of _SERIES as (…, 5)."""
    p2 = np.einsum('...i,...i->...', phi, phi)
    small = p2 < _SMALL2
    if small.all():
        return _series(p2)
    q = np.sqrt(np.where(small, 1.0, p2))
    sq, cq = np.sin(q), np.cos(q)
    omc = 1.0 - cq
    qms = q - sq
    q2 = q * q
    out = np.stack([sq / q, omc / q2, qms / (q2 * q), (q * sq - 2.0 * omc) / (q2 * q2),
                    (omc * q - 3.0 * qms) / (q2 * q2 * q)], axis=-1)
    if small.any():
        out = np.where(small[..., None], _series(p2), out)
    return out


def _exp_gamma(phi):
    """exp(φ×), Γ(φ) (manual eq. 4.8; δR Rᵀ = (Γ δφ)×) and what dΓ needs: φ×, φ×φ×, the
    coefficients b = (1-cos φ)/φ², c = (φ-sin φ)/φ³ and (db/dφ)/φ, (dc/dφ)/φ."""
    co = _coefficients(phi)[..., None, None]
    a, b, c = co[..., 0, :, :], co[..., 1, :, :], co[..., 2, :, :]
    S = rot.skew(phi)
    S2 = S @ S
    return I3 + a * S + b * S2, I3 + b * S + c * S2, (S, S2, b, c, co[..., 3, :, :], co[..., 4, :, :])


def _gamma_derivative(parts, phi, d):
    """d/dτ Γ(φ + τ d) at τ = 0 (…,3,3), from the parts returned by _exp_gamma."""
    S, S2, b, c, bp, cp = parts
    pd = np.einsum('...i,...i->...', phi, d)[..., None, None]
    A = rot.skew(d)
    return (bp * pd) * S + b * A + (cp * pd) * S2 + c * (A @ S + S @ A)


def _cayley_G_derivative(g, c, d):
    """d/dτ G(g + τ d) for G = c (I + ½ g×), c = 4/(4 + g·g) (rotations.cayley_G)."""
    gd = np.einsum('...i,...i->...', g, d)
    e = lambda v: v[..., None, None]
    return e(-0.5 * c * c * gd) * (I3 + 0.5 * rot.skew(g)) + e(0.5 * c) * rot.skew(d)


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
    """Only plain linear section laws (elastic and viscoelastic, no drive, no prestrain): the
    beams' direct matrix-product path."""
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

    Evaluation is batched over all instances with a fixed number of numpy calls: node
    quantities are interpolated by one matrix product with the per-instance rows
    [N(ξ_J); dN/ds(ξ_J)]; the Jacobian is built per evaluation point as 6 × 6NN section-load
    variations (per-node 3×3 factors expanded by the shape functions) and mapped to the node
    rows by one (6NN × 6NP)(6NP × 6NN) product per element.  The state of the last residual
    evaluation is kept and reused by a Jacobian evaluation at the same node poses and time
    (Newton tests the residual before building J); commit() drops it."""
    # Beams3 and Beams2 define: NN nodes, evaluation points XI, the reference node REF, the
    # (NN, NP) finite-volume weights W of the point actions on each node, and shape(ξ) →
    # (N(ξ), dN/dξ)
    output_file = "act"

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
        self.has_Rh = not np.array_equal(self.Rh, np.broadcast_to(I3, self.Rh.shape))
        N, dN = zip(*(self.shape(x) for x in self.XI))
        self.N = np.array(N)            # (NP, NN)
        self.dN = np.array(dN)          # d/dξ
        self.sub = np.array([k for k in range(NN) if k != self.REF])     # nodes other than the reference
        self.Wt = np.ascontiguousarray(self.W)
        modes = {s.interpolation for s in S}
        if not modes <= {"total", "incremental"} or len(modes) != 1:
            raise ValueError(f"{self.name}: interpolation must be 'total' or 'incremental', one per family")
        self.incremental = modes.pop() == "incremental"
        self.laws = Laws([law for s in S for law in s.laws])
        self.viscous = self.laws.viscous
        lw = self.laws
        # linear laws without drives: f = K e + C ė + σ0 evaluated here with matrix products
        self.plain_law = (not lw.nonlinear and lw.prestrain.empty and lw.sK is None and lw.sC is None
                          and lw.w is None)
        if self.plain_law:
            self.K = lw.K.reshape(ne, NP, 6, 6)
            self.Cv = lw.C.reshape(ne, NP, 6, 6)
            self.sigma0 = lw.sigma0.reshape(ne, NP, 6)
            self.has_sigma0 = bool(np.any(self.sigma0))
        # initial configuration: metric ds/dξ, section frames, reference strains
        x0, R0 = nodes.x0[self.nidx], nodes.R0[self.nidx]
        self.Csec = self.S = None
        self.incremental, incremental = False, self.incremental      # the initial geometry: total form
        S0 = np.concatenate([np.broadcast_to(self.N, (ne, NP, NN)), np.broadcast_to(self.dN, (ne, NP, NN))], axis=1)
        geo = self._geometry(x0, R0, None, S0)
        self.incremental = incremental
        dsdxi = np.linalg.norm(geo["L"], axis=-1)
        if np.any(dsdxi <= 1e-12 * (1.0 + np.abs(x0).max())):
            raise ValueError(f"{self.name}: degenerate reference line (zero length at an evaluation point)")
        self.dsinv = 1.0 / dsdxi                                        # (ne, NP)
        self.dNs = self.dN * self.dsinv[..., None]                      # dN/ds (ne, NP, NN)
        self.S = np.concatenate([S0[:, :NP], self.dNs], axis=1)         # (ne, 2 NP, NN)
        self.S_sub = np.ascontiguousarray(self.S[:, :, self.sub])
        SJ = self.S.reshape(ne, 2, NP, NN).swapaxes(1, 2)               # (ne, NP, [N, dN], NN)
        self.S_spread = np.ascontiguousarray(np.broadcast_to(
            SJ[:, :, :, None, :, None], (ne, NP, 2, 3, NN, 3))).reshape(ne, NP, 2, 3, 3 * NN)
        self.I_expanded = self._expand(np.broadcast_to(I3, (ne, NN, 3, 3)))
        self.N_expanded = np.ascontiguousarray(self.I_expanded[0, :, 0:3])   # [N_Jk I]_k (NP, 3, 3NN)
        self.dN_expanded = np.ascontiguousarray(self.I_expanded[:, :, 3:6])  # [dN_Jk I]_k (ne, NP, 3, 3NN)
        self.MW = np.einsum('ij,ab->iajb', self.W, np.eye(6))           # W_iJ I6 as (NN, 6, NP, 6)
        Rint = geo["R"]
        Rsec = Rint.copy()
        for i, s in enumerate(S):
            if s.section_orientations is not None:
                for J in range(NP):
                    if s.section_orientations[J] is not None:
                        Rsec[i, J] = np.asarray(s.section_orientations[J], float).reshape(3, 3)
        Csec = np.swapaxes(Rint, -1, -2) @ Rsec                          # R_sec = R_int C
        self.Csec = None if np.allclose(Csec, I3, rtol=0.0, atol=1e-15) else Csec
        eps0 = rot.mattvec(Rsec, geo["L"] * self.dsinv[..., None])
        kappa0 = rot.mattvec(Rsec, geo["k"] * self.dsinv[..., None])
        # strain = (Rᵀ p', Rᵀ k) - strain_ref; the incremental form adds κ of the last step instead
        # (State arrays: section frames R_prev and curvatures kappa_prev of the last converged step)
        self.has_state = self.incremental
        self.eps0 = eps0
        self.R_sec0 = Rsec
        if not self.incremental:
            self.strain_ref = np.concatenate([eps0, kappa0], axis=-1)
        self._cache = StateCache()

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

    # ------------------------------------------------------------------ kinematics
    def _geometry(self, x, R, g, S, R_prev=None):
        """Interpolated geometry at the evaluation points from node poses x (ne,NN,3),
        R (ne,NN,3,3), with S = [N; dN/ds] (ne, 2NP, NN); incremental form: node rotation
        increments g (ne,NN,3).  Positions are relative to the reference node (xh, ph)."""
        NP = self.NP
        xr = x[:, self.REF, None]
        xh = x - xr
        if self.has_offsets:
            o = _mv(R, self.f)                                          # R_k f̃_k
            yh = xh + o
        else:
            o = None
            yh = xh
        py = S @ yh
        out = dict(xh=xh, o=o, ph=py[:, :NP], L=py[:, NP:])
        if not self.incremental:
            Rb = R @ self.Rh if self.has_Rh else R                      # R̄_k
            Rr = Rb[:, self.REF]
            E = Rb[:, self.sub] @ np.swapaxes(Rr, -1, -2)[:, None]      # R̄_k R̄_rᵀ, k ≠ r
            phi = _log_rotvec(E)
            pj = self.S_sub @ phi if S is self.S else S[:, :, self.sub] @ phi
            phiJ, dphiJ = pj[:, :NP], pj[:, NP:]
            expJ, G, parts = _exp_gamma(phiJ)
            RJ = expJ @ Rr[:, None]
            if self.Csec is not None:
                RJ = RJ @ self.Csec
            out.update(E=E, phi=phi, phiJ=phiJ, dphiJ=dphiJ, expJ=expJ, G=G, parts=parts,
                       k=_mv(G, dphiJ))
        else:
            gj = S @ g
            gJ, dgJ = gj[:, :NP], gj[:, NP:]
            c = 4.0 / (4.0 + np.einsum('...i,...i->...', gJ, gJ))
            Sg = rot.skew(gJ)
            ce = c[..., None, None]
            RJ = (I3 + ce * (Sg + 0.5 * Sg @ Sg)) @ R_prev
            G = ce * (I3 + 0.5 * Sg)
            out.update(g=g, gJ=gJ, dgJ=dgJ, cJ=c, G=G, k=_mv(G, dgJ))
        out["R"] = RJ
        return out

    def _state(self, ctx):
        kin = ctx.kin
        nidx = self.nidx
        x, R = kin.x[nidx], kin.R[nidx]
        key = [x, R]
        if self.viscous:
            key += [kin.v[nidx], kin.w[nidx]]
        if self.incremental:
            arrays = self.state_arrays(ctx)
            key += [arrays["R_prev"], arrays["kappa_prev"], kin.g[nidx]]
        return self._cache.get(ctx.t, key, self._compute_state)

    def _compute_state(self, t, key):
        x, R = key[0], key[1]
        ne, NP = self.ne, self.NP
        if self.incremental:
            R_prev, kappa_prev, g = key[-3:]
            strain_ref = np.concatenate([self.eps0, -kappa_prev], axis=-1)
            st = self._geometry(x, R, g, self.S, R_prev)
        else:
            strain_ref = self.strain_ref
            st = self._geometry(x, R, None, self.S)
        RJ, L = st["R"], st["L"]
        RJt = np.swapaxes(RJ, -1, -2)
        strain = np.swapaxes(RJt @ np.stack([L, st["k"]], axis=-1), -1, -2).reshape(ne, NP, 6) - strain_ref
        if self.viscous:
            v, w = key[2], key[3]
            yd = v + rot.cross(w, st["o"]) if self.has_offsets else v
            q = self.S @ np.concatenate([yd, w], axis=-1)               # (ne, 2NP, 6)
            Ld, wJ, dwJ = q[:, NP:, 0:3], q[:, :NP, 3:6], q[:, NP:, 3:6]
            a = Ld - rot.cross(wJ, L)                                   # ṗ' - ω×p'
            rate = np.swapaxes(RJt @ np.stack([a, dwJ], axis=-1), -1, -2).reshape(ne, NP, 6)
            st.update(w=w, wJ=wJ, dwJ=dwJ, a=a)
        else:
            rate = np.zeros((ne, NP, 6))
        if self.plain_law:
            fl = _mv(self.K, strain)
            if self.viscous:
                fl += _mv(self.Cv, rate)
            if self.has_sigma0:
                fl += self.sigma0
            D, Dv = self.K, self.Cv
        else:
            fl, D, Dv = self.laws.evaluate(strain.reshape(ne * NP, 6), rate.reshape(ne * NP, 6), t)
            fl, D, Dv = fl.reshape(ne, NP, 6), D.reshape(ne, NP, 6, 6), Dv.reshape(ne, NP, 6, 6)
        FM = np.swapaxes(RJ @ np.swapaxes(fl.reshape(ne, NP, 2, 3), -1, -2), -1, -2)   # (ne,NP,2,3): F, M
        F = FM[:, :, 0]
        # node k load: Σ_J W_kJ (F_J, M_J + (p_J - x_k)×F_J) = (ΣWF, ΣW(M + p̂×F) - x̂_k×ΣWF)
        FQ = np.concatenate([F, FM[:, :, 1] + rot.cross(st["ph"], F)], axis=-1)
        sFQ = self.Wt @ FQ                                              # (ne, NN, 6)
        sF = sFQ[..., 0:3]
        res = -sFQ
        res[..., 3:6] += rot.cross(st["xh"], sF)
        st.update(strain=strain, rate=rate, f=fl, D=D, Dv=Dv, FM=FM, sF=sF,
                  res=res.reshape(ne, 6 * self.NN))
        return st

    # ------------------------------------------------------------------ residual and Jacobian
    def evaluate(self, ctx, res_views, jac_views):
        want_jac = jac_views is not None
        st = self._state(ctx)
        res = [st["res"]]
        if not want_jac:
            write_blocks(res_views, res)
            return
        write_blocks(res_views, res)
        write_blocks(jac_views, self._jacobian(ctx, st))

    @staticmethod
    def _spatial(RJ, D):
        """C = R D Rᵀ with R = diag(R_J, R_J), returned as its 6×3 halves [C11; C21], [C12; C22]
        (one 6×6 product per point: fewer, larger matrix products are faster than 3×3 blocks)."""
        ne, NP = D.shape[:2]
        R6 = np.zeros((ne, NP, 6, 6))
        R6[..., 0:3, 0:3] = RJ
        R6[..., 3:6, 3:6] = RJ
        C = R6 @ D @ np.swapaxes(R6, -1, -2)
        return C[..., 0:3], C[..., 3:6]

    def _expand(self, M):
        """Per-node 3×3 matrices M_k (ne,NN,3,3) → (ne,NP,6,3NN): rows [N_Jk M_k; dN_Jk M_k],
        columns by node k (one product with the shape functions spread over (2, 3, 3NN))."""
        ne, NN, NP = self.ne, self.NN, self.NP
        Mc = np.swapaxes(M, 1, 2).reshape(ne, 1, 1, 3, 3 * NN)
        return (self.S_spread * Mc).reshape(ne, NP, 6, 3 * NN)

    def _by_node(self, X, M):
        """Column blocks X_Jk (ne,NP,6,3NN) times per-node M_k (ne,NN,3,3), same layout."""
        ne, NN, NP = self.ne, self.NN, self.NP
        Xk = np.swapaxes(X.reshape(ne, NP, 6, NN, 3), 2, 3)
        return np.swapaxes(Xk @ M[:, None], 2, 3).reshape(ne, NP, 6, 3 * NN)

    def _jacobian(self, ctx, st):
        """Element matrix on the Newton increments, rows (node i: force, moment), columns
        (Δẋ_k for all k, then Δġ_k for all k).

        Rotation field: θ(ξ_J) = Σ A_Jk θ_k, θ'(ξ_J) = Σ B_Jk θ_k with A_Jk = N_Jk Γ_J H_k,
        B_Jk = (N_Jk dΓ_J + dN_Jk Γ_J) H_k (H_k = Γ(φ_k)⁻¹; incremental: G, dG, G(g_k)⁻¹); the
        total form's reference node gets exp(φ_J) - Σ_k A_Jk E_k (and k_J× exp(φ_J) - Σ_k B_Jk E_k).
        Section loads: δF_J = -F_J×θ_J + C11(δp'_J + p'_J×θ_J) + C12 θ'_J, δM_J likewise with
        C21, C22 (C = R D Rᵀ; viscous terms from δε̇, δκ̇ with C^v = R D_v Rᵀ).  Node i rows:
        Σ_J W_iJ [δF_J; δM_J + (p_J - x_i)×δF_J - F_J×(δp_J - δx_i)], one 18×12 by 12×18
        product per element.  The node chain rule (G8: dCoef on Δẋ, T_θ = dCoef G on Δġ, T_ω on
        the velocity part) is applied to the per-node factors H_k before expansion."""
        ne, NN, NP = self.ne, self.NN, self.NP
        dc = ctx.dcoef
        kin = ctx.kin
        RJ, L, FM = st["R"], st["L"], st["FM"]
        Cl, Cr = self._spatial(RJ, st["D"])
        FMx = rot.skew(FM).reshape(ne, NP, 6, 3)                        # [F×; M×]
        TU = Cl @ rot.skew(L) - FMx                                     # multiplies θ_J
        if self.viscous:
            Clv, Crv = self._spatial(RJ, st["Dv"])
            TU = TU + Clv @ rot.skew(st["a"]) + Crv @ rot.skew(st["dwJ"])
            Cx = Cl - Clv @ rot.skew(st["wJ"])                          # multiplies δp'_J
        else:
            Cx = Cl
        G = st["G"]
        Tth = kin.Tth[self.nidx]                                        # (ne, NN, 3, 3)
        if self.incremental:
            MG = _cayley_G_derivative(st["gJ"], st["cJ"], st["dgJ"])
            HT = dc * self.I_expanded                                   # G(g_k)⁻¹ T_θk = dCoef I
        else:
            MG = _gamma_derivative(st["parts"], st["phiJ"], st["dphiJ"])
            H = rot.gamma_inv(st["phi"])                                # (ne, NN-1, 3, 3)
            Hf = np.zeros((ne, NN, 3, 3))
            Hf[:, self.sub] = H @ Tth[:, self.sub]
            HT = self._expand(Hf)
        PQ = np.concatenate([TU @ G + Cr @ MG, Cr @ G], axis=-1)       # (ne, NP, 6, 6)
        V = PQ @ HT                                                     # Δġ columns (ne, NP, 6, 3NN)
        if not self.incremental:
            r = self.REF
            HE = (H @ st["E"]).reshape(ne, NN - 1, 9)
            SHE = (self.S_sub @ HE).reshape(ne, 2, NP, 3, 3).swapaxes(1, 2).reshape(ne, NP, 6, 3)
            P0 = TU + Cr @ rot.skew(st["k"])
            V[..., 3 * r:3 * r + 3] = (P0 @ st["expJ"] - PQ @ SHE) @ Tth[:, None, r]
        # Δẋ columns: δp'_J = Σ dN_Jk δx_k through Cx, -F_J × δp_J on the moment rows
        X = Cx @ self.dN_expanded                                       # (ne, NP, 6, 3NN)
        X[:, :, 3:6] -= FMx[:, :, 0:3] @ self.N_expanded
        if self.has_offsets:                                            # δy_k = δx_k - O_k θ_k
            O = rot.skew(st["o"])
            V -= self._by_node(X, O @ Tth)
        Xc = dc * X
        if self.viscous:
            # velocity columns: δṗ'_J = Σ dN_Jk (δv_k - O_k δω_k), δω_J = Σ N_Jk δω_k, δω'_J
            Tw = kin.Tw[self.nidx]
            Xv = Clv @ self.dN_expanded
            PQv = np.concatenate([Clv @ rot.skew(L), Crv], axis=-1)
            V += PQv @ self._expand(Tw)
            if self.has_offsets:                                        # δṗ_k = -ω_k×(o_k×θ_k) - o_k×δω_k
                V -= self._by_node(Xv, O @ Tw + rot.skew(st["w"]) @ O @ Tth)
            Xc += Xv
        Y = np.concatenate([Xc, V], axis=-1).reshape(ne, NP * 6, NN * 6)
        # node rows: W_iJ [[I, 0], [(p_J - x_i)×, I]]
        Mb = np.empty((ne, NN, 6, NP, 6))
        Mb[...] = self.MW
        arm = rot.skew(st["ph"][:, None] - st["xh"][:, :, None])        # (ne, NN, NP, 3, 3)
        Mb[:, :, 3:6, :, 0:3] = self.W[None, :, None, :, None] * np.swapaxes(arm, 2, 3)
        J = -(Mb.reshape(ne, NN * 6, NP * 6) @ Y)
        Jd = J.reshape(ne, NN, 6, 2, NN, 3)
        sFx = dc * rot.skew(st["sF"])
        for k in range(NN):                                             # + (Σ_J W_kJ F_J) × δx_k
            Jd[:, k, 3:6, 0, k] -= sFx[:, k]
        return [J]

    def commit(self, ctx, arrays):
        """After a converged step or phase, before the nodes' increments are reset (G3): the
        incremental form's new section frames and curvatures (MBDyn's AfterConvergence)."""
        if not self.incremental:
            return arrays
        kin = ctx.kin
        g = self._geometry(kin.x[self.nidx], kin.R[self.nidx], kin.g[self.nidx], self.S, arrays["R_prev"])
        return {"R_prev": g["R"], "kappa_prev": rot.mattvec(g["R"], g["k"]) + arrays["kappa_prev"]}

    # ------------------------------------------------------------------ output
    def output_groups(self, ctx):
        """.act rows: for each evaluation point the internal force and moment in the section frame."""
        g = self._state(ctx)
        vals = g["f"].reshape(self.ne, 6 * self.NP)
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], vals[out])]

    def section_loads(self, ctx):
        """(F, M) at the evaluation points in the global frame, (ne, NP, 3) each."""
        g = self._state(ctx)
        return g["FM"][:, :, 0], g["FM"][:, :, 1]

    def strains(self, ctx):
        """Generalized strains (ε, κ) and rates at the evaluation points, section frame (ne, NP, 6)."""
        g = self._state(ctx)
        return g["strain"], g["rate"]


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
