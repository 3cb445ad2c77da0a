"""Hydrodynamic bodies (issue 19): the linear potential-flow loads of Cummins' equation on
dynamic structural nodes, one instance per body of a HydroData (engine/core/hydro_data.py),

    (M + A∞) ν̇ + ∫₀ᵗ K(t−τ) ν(τ) dτ + C η = F_ex(t) + F_drag + (weight, buoyancy, …)

(Cummins 1962; MBS4WEC eq. WEC-4 with τ_H = −G η, τ_rad = −D v), about each body's
equilibrium, in the global frame, with `interaction` the off-diagonal 6×6 blocks between
the bodies of one HydroData (BEM's multi-body terms).

Kinematics.  Body b sits on node i with its reference point P at the node-frame offset õ,
r = R õ: the generalized velocity ν = (v_P, ω), v_P = ẋ + ω×r, and the displacement
η = (x_P − x_P0, log(R R_eqᵀ)) (x_P0: the data's reference point; R_eq: the node's
orientation at equilibrium, by default its initial one).  Loads at P (F, M_P) reach the
node as (F, M_P + r×F).

Hydrostatics, split so that nothing is counted twice.  The data's C holds the buoyancy and
waterplane terms about P (WAMIT's convention, without the body's weight): C₃₃ = ρgA_wp,
C₄₄ = ρg(I₂₂ + V z_b), C₅₅ = ρg(I₁₁ + V z_b), C₄₆ = −ρgV x_b, C₅₆ = −ρgV y_b, …
(b = x_B − x_P at equilibrium).  The family applies the equilibrium buoyancy ρgV ẑ at the
body-fixed centre of buoyancy (x_B = x + R õ_B): a constant force at a moving point, whose
tangent stiffness about P is K_B = ρgV (z_b I − b e_zᵀ) on the rotations (K₄₄ = K₅₅ = ρgV z_b,
K₄₆ = −ρgV x_b, K₅₆ = −ρgV y_b, K₆₆ = 0); the linear restoring is −(C − K_B) η (the
waterplane terms), and the body element with gravity gives the weight and its −m g z_G
terms.  Small motions of a floating body then have C_total = ρg(I_wp + V z_B) − m g z_G.
With buoyancy=False the whole C is applied as −C η and no constant force (for bodies whose
weight is balanced otherwise); hydrostatics=False applies neither (for a nonlinear hull
buoyancy of another family).  The restoring moment is Γ⁻ᵀ(η_r) times the rotational part
of −C η, the exact work-conjugate of η (elements/hydro_body_kernel.py).

Added mass A∞ (6N×6N; A(ω₀) with radiation=("frequency", ω₀)) enters the nodes' momentum
definitions, as elements/shell_mass.py does for a consistent mass: β_b += p_A,
γ_b += h_A + r×p_A with (p_A; h_A) = Σ_c A_bc ν_c, and −v_P×p_A on the moment row, which
removes the ẋ×β and ṙ×p_A parts the node's moment row (γ̇ + ẋ×β) adds: the node then feels
exactly −A ν̇ at P (linear theory, A constant in the global frame) and ½ νᵀ A ν is the added
kinetic energy the equations conserve.

Radiation memory, one of: "off"; a RadiationStateSpace (ż = A z + B ν, load −(C z + D ν),
the states z are this family's own differential unknowns); a RadiationKernel (the direct
convolution −Σ_j w_j K(s_j) ν(t − s_j), trapezoid rule on the kernel's samples, the body
velocities kept at the kernel's step in a ring buffer in State, committed after each
converged step and interpolated linearly in between); ("damping", B): −B ν (MBS4WEC's
τ_rad = −D v); ("frequency", ω₀): −B(ω₀) ν with A(ω₀) in place of A∞.

Wave excitation from WaveComponents: F_ex(t) = Σ_k a_k Re[X(β, ω_k) e^{i(ω_k t + φ_k)}], X
interpolated linearly in ω (real and imaginary parts) and in the heading.  Viscous drag per
dof, F_i = −½ρ C_d,i A_i |ν_i − u_i|(ν_i − u_i) − b_i (ν_i − u_i), u the Airy particle velocity
of the waves at P (translations; deep water or finite depth, z clipped at the still water
level), global axes (Morison-type; MBS4WEC's τ_other).

Output (`.hyd`): per body and output step, label, η (6), then the load (F, M about P, global)
of restoring with buoyancy, radiation, excitation, drag and added mass (−A ν̇ from the
nodes' accelerations), and the incident wave elevation at the equilibrium reference point."""
from dataclasses import dataclass, field
import math
import os
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern, DIFFERENTIAL, DIM, kernel_jacobian_views
from mbdae.engine.core.hydro_data import (HydroData, HydroDataError, WaveComponents, RadiationStateSpace,
                                          RadiationKernel)
from mbdae.elements.base import ElementFamily, random_rotation
from mbdae.engine.core.hydro_files import read_hydro_data
from mbdae.engine.core.hydro_radiation import impulse_response, fit_radiation_state_space
from mbdae.engine.core.hydro_waves import irregular_sea, wavenumbers
from mbdae.elements.hydro_body_kernel import hydro_equations, history_commit

DRAG_KEYS = ("cd", "area", "linear")


@dataclass
class HydroGroupSpec:
    """One `hydro_bodies` call: the bodies of one HydroData on their nodes."""
    first_label: int
    nodes: tuple
    data: HydroData
    waves: WaveComponents = None
    radiation: object = "off"
    drag: dict = field(default_factory=dict)         # {"cd", "area", "linear": (N, 6)}
    interaction: bool = True
    equilibrium: list = None                         # per body (position, orientation) or None
    buoyancy: bool = True
    output: bool = True
    hydrostatics: bool = True                        # False: neither C nor the buoyancy (another family's)


@dataclass
class HydroBodySpec:
    """One body (instance of the family): its label, node, group and index in its HydroData."""
    label: int
    node: int
    group: int
    body: int
    output: bool = True


# ---------------------------------------------------------------------- data helpers
def _where(data):
    return data.source or "hydrodynamic data"


def at_frequency(data, values, omega, what):
    """values (nw, ...) linear in ω at the frequencies omega (array): (len(omega), ...); a
    frequency outside the data's range is a HydroDataError naming it."""
    grid = data.omega
    om = np.atleast_1d(np.asarray(omega, float))
    tol = 1e-9 * grid[-1]
    bad = (om < grid[0] - tol) | (om > grid[-1] + tol)
    if bad.any():
        raise HydroDataError(f"{_where(data)}: {what} at {om[bad][0]:.6g} rad/s: outside the data's frequencies "
                             f"{grid[0]:.6g} … {grid[-1]:.6g} rad/s")
    k = np.clip(np.searchsorted(grid, om, side="right") - 1, 0, len(grid) - 2)
    f = np.clip((om - grid[k]) / (grid[k + 1] - grid[k]), 0.0, 1.0).reshape((-1,) + (1,) * (values.ndim - 1))
    return values[k] * (1.0 - f) + values[k + 1] * f


def excitation_at(data, heading, omega):
    """X(β, ω_k) (nk, 6N) complex: linear in the heading between the data's headings (a single
    heading must match) and in ω (real and imaginary parts)."""
    hs = np.asarray(data.headings, float)
    X = np.asarray(data.excitation)
    order = np.argsort(hs)
    hs, X = hs[order], X[order]
    beta = None
    for shift in (0.0, 2 * math.pi, -2 * math.pi):
        b = heading + shift
        if len(hs) == 1:
            if abs(b - hs[0]) < 1e-6:
                beta = b
        elif hs[0] - 1e-9 <= b <= hs[-1] + 1e-9:
            beta = b
        if beta is not None:
            break
    if beta is None:
        raise HydroDataError(f"{_where(data)}: excitation: the wave heading {heading:.6g} rad is not covered by "
                             f"the data's headings {', '.join(f'{h:.6g}' for h in hs)} rad")
    if len(hs) == 1:
        Xb = X[0]
    else:
        k = int(np.clip(np.searchsorted(hs, beta, side="right") - 1, 0, len(hs) - 2))
        f = min(max((beta - hs[k]) / (hs[k + 1] - hs[k]), 0.0), 1.0)
        Xb = X[k] * (1.0 - f) + X[k + 1] * f
    return at_frequency(data, Xb, omega, "excitation")


def blocks(M, N):
    """(N, N, 6, 6) body blocks of a 6N×6N matrix."""
    return np.asarray(M, float).reshape(N, 6, N, 6).transpose(0, 2, 1, 3)


def split_state_space(ss, N, where):
    """Per body b, (A, B (ns_b, 6), C (6, ns_b)) of the states that read and write body b
    only; states that carry the interaction between two bodies are dropped; a block of states
    (coupled through A) that mixes the two raises ValueError (interaction=False)."""
    A, B, C = (np.asarray(a, float) for a in (ss.A, ss.B, ss.C))
    ns = A.shape[0]
    parent = list(range(ns))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for i, j in zip(*np.nonzero(A)):
        a, b = root(int(i)), root(int(j))
        if a != b:
            parent[a] = b
    comps = {}
    for i in range(ns):
        comps.setdefault(root(i), []).append(i)
    ins = np.abs(B).reshape(ns, N, 6).sum(axis=2) > 0          # (ns, N)
    outs = np.abs(C).reshape(N, 6, ns).sum(axis=1).T > 0        # (ns, N)
    per = [[] for _ in range(N)]
    for states in comps.values():
        bi = set(np.flatnonzero(ins[states].any(axis=0)).tolist())
        bo = set(np.flatnonzero(outs[states].any(axis=0)).tolist())
        if not bo or not bi:
            continue
        if len(bo) == 1 and bi == bo:
            per[next(iter(bo))] += states
        elif len(bo) == 1 and len(bi) == 1:
            continue                                             # body c's motion on body b: interaction
        else:
            raise ValueError(f"{where}: radiation states {states[0] + 1}… couple bodies "
                             f"{sorted(b + 1 for b in bi | bo)} in one block; with interaction off, give a "
                             f"realization fitted per body (or per pair of dofs)")
    out = []
    for b in range(N):
        s = np.array(sorted(per[b]), np.int64)
        out.append((A[np.ix_(s, s)], B[s][:, 6 * b:6 * b + 6], C[6 * b:6 * b + 6][:, s]))
    return out


def drag_arrays(drag, N, where):
    """{"cd", "area", "linear": (N, 6)} from the `drag` argument (None, or a mapping of those
    keys to a number, a 6-vector or an (N, 6) array)."""
    drag = {} if drag is None else dict(drag)
    for key in drag:
        if key not in DRAG_KEYS:
            raise ValueError(f"{where}: unknown drag parameter '{key}' (expected {', '.join(DRAG_KEYS)})")
    out = {}
    for key in DRAG_KEYS:
        value = np.asarray(drag.get(key, 0.0), float)
        try:
            value = np.broadcast_to(value if value.ndim != 1 else value[None, :], (N, 6)).copy()
        except ValueError:
            raise ValueError(f"{where}: drag '{key}' has shape {value.shape}; a number, 6 values or "
                             f"({N}, 6) expected") from None
        if not np.all(np.isfinite(value)) or np.any(value < 0):
            raise ValueError(f"{where}: drag '{key}' must be finite and non-negative")
        out[key] = value
    return out


def check_radiation(radiation, data, where):
    """The radiation argument, checked against the data's size; returns it normalized."""
    n = 6 * data.n_bodies
    if radiation is None or (isinstance(radiation, str) and radiation == "off"):
        return "off"
    if isinstance(radiation, RadiationStateSpace):
        A, B, C = (np.asarray(a, float) for a in (radiation.A, radiation.B, radiation.C))
        ns = A.shape[0] if A.ndim == 2 else -1
        if A.shape != (ns, ns) or B.shape != (ns, n) or C.shape != (n, ns) or \
                (radiation.D is not None and np.shape(radiation.D) != (n, n)):
            raise ValueError(f"{where}: radiation state space: A {A.shape}, B {B.shape}, C {C.shape} do not fit "
                             f"{data.n_bodies} bodies ((ns, ns), (ns, {n}), ({n}, ns))")
        if ns == 0:
            raise ValueError(f"{where}: radiation state space without states")
        return radiation
    if isinstance(radiation, RadiationKernel):
        K = np.asarray(radiation.K, float)
        if K.ndim != 3 or K.shape[1:] != (n, n) or K.shape[0] < 2 or not radiation.dt > 0:
            raise ValueError(f"{where}: radiation kernel of shape {K.shape}, step {radiation.dt}: (nt ≥ 2, {n}, {n}) "
                             f"samples at a positive step expected")
        return radiation
    if isinstance(radiation, tuple) and len(radiation) == 2 and radiation[0] in ("damping", "frequency"):
        if radiation[0] == "damping":
            B = np.asarray(radiation[1], float)
            if B.shape != (n, n):
                raise ValueError(f"{where}: radiation damping matrix of shape {B.shape}, ({n}, {n}) expected")
            return ("damping", B)
        return ("frequency", float(radiation[1]))
    raise ValueError(f"{where}: radiation must be 'off', a RadiationStateSpace, a RadiationKernel, "
                     f"('damping', B) or ('frequency', ω), not {radiation!r}")


def check_waves(data, waves, where):
    """WaveComponents that fit the data: equal lengths, the data's water depth, frequencies
    and heading inside the data's (HydroDataError naming the data's source otherwise);
    returns (ω, a, φ) as arrays and X(β, ω_k) (nk, 6N)."""
    om, a, ph = (np.asarray(v, float) for v in (waves.omega, waves.amplitude, waves.phase))
    if not (om.shape == a.shape == ph.shape) or om.ndim != 1:
        raise ValueError(f"{where}: wave components of unequal lengths")
    if math.isinf(waves.water_depth) or math.isinf(data.water_depth):
        same = math.isinf(waves.water_depth) and math.isinf(data.water_depth)
    else:
        same = abs(waves.water_depth - data.water_depth) <= 1e-9 * data.water_depth
    if not same:
        raise ValueError(f"{where}: the waves' water depth {waves.water_depth} differs from the hydrodynamic "
                         f"data's {data.water_depth} ({_where(data)})")
    return om, a, ph, excitation_at(data, float(waves.heading), om)


# ---------------------------------------------------------------------- Model builder method
def hydro_bodies(model, first_label, nodes, data, waves=None, radiation="off", drag=None, interaction=True,
                 equilibrium=None, buoyancy=True, output=True, hydrostatics=True):
    """Hydrodynamic bodies (module docstring): body k of `data` (a HydroData) on structural
    node nodes[k], labels first_label + k.  waves: WaveComponents or None; radiation: "off",
    RadiationStateSpace, RadiationKernel, ("damping", B 6N×6N) or ("frequency", ω₀); drag:
    {"cd", "area", "linear"} per dof (a number, 6 values or (N, 6)); equilibrium: per body
    None or (position, orientation) of the node at equilibrium (default: its initial pose);
    buoyancy: apply ρgV ẑ at the centre of buoyancy and C minus its stiffness (False: C whole);
    hydrostatics=False: no hydrostatic load at all (e.g. a nonlinear hull buoyancy instead)."""
    where = f"hydrodynamic body {first_label}"
    if not isinstance(data, HydroData):
        raise ValueError(f"{where}: data must be a HydroData (engine/core/hydro_data.py), not {type(data).__name__}")
    data.check()
    N = data.n_bodies
    nodes = tuple(int(n) for n in nodes)
    if len(nodes) != N:
        raise ValueError(f"{where}: {len(nodes)} nodes for the {N} bodies of {_where(data)}")
    if waves is not None and not isinstance(waves, WaveComponents):
        raise ValueError(f"{where}: waves must be WaveComponents (engine/core/hydro_data.py) or None")
    if hydrostatics and buoyancy and (data.displaced_volume is None or data.centre_of_buoyancy is None):
        raise HydroDataError(f"{_where(data)}: the displaced volume and the centre of buoyancy are needed for the "
                             f"equilibrium buoyancy of {where} (or buoyancy=False)")
    if equilibrium is not None and len(equilibrium) != N:
        raise ValueError(f"{where}: {len(equilibrium)} equilibrium poses for {N} bodies")
    labels = {s.first_label + k for s in model.hydro_body_groups for k in range(len(s.nodes))}
    for k in range(N):
        if first_label + k in labels:
            raise ValueError(f"hydrodynamic body {first_label + k} is already defined")
    radiation = check_radiation(radiation, data, where)
    if isinstance(radiation, tuple) and radiation[0] == "frequency":
        at_frequency(data, data.added_mass, radiation[1], "added mass")
    if waves is not None:
        check_waves(data, waves, where)
    spec = HydroGroupSpec(int(first_label), nodes, data, waves, radiation,
                          drag_arrays(drag, N, where), bool(interaction),
                          None if equilibrium is None else list(equilibrium), bool(buoyancy), bool(output),
                          bool(hydrostatics))
    model.hydro_body_groups.append(spec)
    return first_label


MODEL_FIELDS = {"hydro_body_groups": list}
MODEL_METHODS = (hydro_bodies,)


def build(model, nodes, built):
    if not model.hydro_body_groups:
        return []
    inertia = next((f for f in built if hasattr(f, "node_inertia")), None)
    return [HydroBodies(model.hydro_body_groups, nodes, inertia, bool(getattr(model, "static_model", False)))]


# ---------------------------------------------------------------------- samples
def sample_data(rng, N, nw=5, nb=2, depth=math.inf):
    """A HydroData of N bodies with random coefficients (the generated checks)."""
    n = 6 * N
    omega = np.linspace(0.3, 3.0, nw)
    sym = lambda s: (lambda a: a @ a.T + n * np.eye(n))(s * rng.normal(size=(n, n)))    # noqa: E731
    return HydroData(omega, np.array([sym(0.3) for _ in omega]), np.array([sym(0.1) for _ in omega]),
                     sym(0.3), sym(0.5), np.linspace(-0.5, 0.5, nb),
                     rng.normal(size=(nb, nw, n)) + 1j * rng.normal(size=(nb, nw, n)),
                     rng.normal(size=(N, 3)), displaced_volume=rng.uniform(0.5, 2.0, N),
                     centre_of_buoyancy=rng.normal(size=(N, 3)), rho=1.2, g=2.0, water_depth=depth)


def _sample_nodes(model, rng, n, start):
    for k in range(n):
        model.structural_node(start + k, "dynamic", position=rng.normal(size=3), orientation=random_rotation(rng),
                              velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))


def hydro_interaction_sample(model, rng):
    """Two interacting bodies (offsets, random equilibrium), a coupled radiation state space,
    quadratic and linear drag in finite-depth waves, buoyancy; a body on one node too."""
    _sample_nodes(model, rng, 2, 1)
    data = sample_data(rng, 2, depth=3.0)
    ns = 5
    ss = RadiationStateSpace(-np.eye(ns) + 0.3 * rng.normal(size=(ns, ns)), rng.normal(size=(ns, 12)),
                             rng.normal(size=(12, ns)), 0.2 * rng.normal(size=(12, 12)))
    waves = WaveComponents(np.array([0.8, 1.7]), np.array([0.3, 0.2]), np.array([0.1, 2.0]), 0.2, 3.0, 2.0)
    model.body(1, 1, 2.0, center_of_mass=rng.normal(size=3), inertia=np.diag([1.0, 2.0, 1.5]))
    model.hydro_bodies(10, [1, 2], data, waves=waves, radiation=ss,
                       drag={"cd": rng.uniform(0.5, 1.5, 6), "area": rng.uniform(0.5, 2.0, 6), "linear": 0.3},
                       equilibrium=[(rng.normal(size=3), random_rotation(rng)), None])
    return model


def hydro_convolution_sample(model, rng):
    """One body with the convolution (constant damping besides), deep-water waves, no buoyancy;
    and two independent bodies (interaction off) with a per-body state space."""
    _sample_nodes(model, rng, 3, 1)
    data = sample_data(rng, 1)
    kernel = RadiationKernel(0.05, rng.normal(size=(4, 6, 6)))
    waves = WaveComponents(np.array([1.1]), np.array([0.4]), np.array([0.7]), -0.1)
    model.hydro_bodies(1, [1], data, waves=waves, radiation=kernel, buoyancy=False,
                       drag={"cd": 1.0, "area": rng.uniform(0.5, 2.0, 6)})
    data2 = sample_data(rng, 2)
    A = np.zeros((4, 4))
    A[:2, :2] = [[-1.0, 2.0], [-2.0, -0.5]]
    A[2:, 2:] = [[-0.7, 1.0], [-1.0, -0.3]]
    B = np.zeros((4, 12))
    C = np.zeros((12, 4))
    B[:2, :6] = rng.normal(size=(2, 6))
    C[:6, :2] = rng.normal(size=(6, 2))
    B[2:, 6:] = rng.normal(size=(2, 6))
    C[6:, 2:] = rng.normal(size=(6, 2))
    model.hydro_bodies(5, [2, 3], data2, radiation=RadiationStateSpace(A, B, C), interaction=False)
    return model


SAMPLES = {"hydrodynamic body": [hydro_interaction_sample, hydro_convolution_sample]}


# ---------------------------------------------------------------------- family
class HydroBodies(ElementFamily):
    """Every hydrodynamic body of the model: one compiled call (hydro_body_kernel.hydro_equations)
    per evaluation.  Coupling groups: the bodies of one HydroData with interaction, else each
    body alone; the arrays are padded to the largest group."""
    name = "hydrodynamic body"
    output_file = "hyd"

    def __init__(self, groups, nodes, inertia=None, static_model=False):
        self.groups = list(groups)
        specs = [HydroBodySpec(g.first_label + k, n, gi, k, g.output)
                 for gi, g in enumerate(self.groups) for k, n in enumerate(g.nodes)]
        super().__init__(specs, nodes)
        self.inertia = inertia            # the rigid bodies (node_inertia), for the accelerations
        nb = self.ne
        self.node = np.empty(nb, np.int64)
        for b, s in enumerate(self.specs):
            try:
                self.node[b] = nodes.index(s.node)
            except KeyError:
                raise ValueError(f"hydrodynamic body {s.label}: structural node {s.node} is not defined") from None
            kind = nodes.kinds[self.node[b]]
            if kind not in ("static", "dynamic"):
                raise ValueError(f"hydrodynamic body {s.label}: structural node {s.node} is a {kind} node; "
                                 f"a hydrodynamic body needs a static or dynamic structural node")
        if len(set(self.node.tolist())) != nb:
            k = next(i for i in range(nb) if list(self.node).count(self.node[i]) > 1)
            raise ValueError(f"hydrodynamic body {self.specs[k].label}: node {self.specs[k].node} carries "
                             f"another hydrodynamic body")
        self.inertial = nodes.dynamic[self.node] & (not static_model)
        self.o_loc = np.zeros((nb, 3))
        self.xP0 = np.zeros((nb, 3))
        self.Req = np.zeros((nb, 3, 3))
        self.FB = np.zeros(nb)
        self.oB = np.zeros((nb, 3))
        self.kq = np.zeros((nb, 6))
        self.kl = np.zeros((nb, 6))
        nk = [0 if g.waves is None else len(g.waves.omega) for g in self.groups]
        K = max(max(nk), 1)
        self.wnk = np.zeros(nb, np.int64)
        self.wa, self.ww, self.wkn, self.wph = (np.zeros((nb, K)) for _ in range(4))
        self.wdir = np.zeros((nb, 2))
        self.wdepth = np.full(nb, np.inf)
        self.exr, self.exi = np.zeros((nb, K, 6)), np.zeros((nb, K, 6))
        coupling = []                   # (bodies, Clin, A, Bd, conv (dt, K) or None, ss (A, B, C) or None)
        b0 = 0
        for g in self.groups:
            coupling += self._group(g, b0)
            b0 += len(g.nodes)
        self._pad(coupling)
        self.has_state = bool(self.cnt.any())
        self.cdt_body = np.zeros(nb)
        for gi in range(len(self.gn)):
            self.cdt_body[self.gb[gi, :self.gn[gi]]] = self.cdt[gi] if self.cnt[gi] else 0.0
        self.L = int(self.cnt.max()) + 3 if self.has_state else 1

    # ------------------------------------------------------------------ set-up
    def _group(self, g, b0):
        """Per-body arrays of the bodies of group g (global indices b0 …) and its coupling
        groups."""
        data = g.data
        N = data.n_bodies
        nodes = self.nodes
        rho, grav = data.rho, data.g
        Cb = blocks(data.hydrostatic_stiffness, N)
        Ab = blocks(data.added_mass_infinite, N)
        Bb = np.zeros((N, N, 6, 6))
        rad = g.radiation
        conv = ss = None
        if isinstance(rad, tuple) and rad[0] == "damping":
            Bb = blocks(rad[1], N)
        elif isinstance(rad, tuple):
            Ab = blocks(at_frequency(data, data.added_mass, rad[1], "added mass")[0], N)
            Bb = blocks(at_frequency(data, data.radiation_damping, rad[1], "radiation damping")[0], N)
        elif isinstance(rad, RadiationKernel):
            Kt = np.asarray(rad.K, float)
            conv = (float(rad.dt), Kt.reshape(len(Kt), N, 6, N, 6).transpose(1, 3, 0, 2, 4))
        elif isinstance(rad, RadiationStateSpace):
            ss = rad
            if rad.D is not None:
                Bb = Bb + blocks(rad.D, N)
        Cl = Cb.copy() if g.hydrostatics else np.zeros_like(Cb)
        for k in range(N):
            b = b0 + k
            label = g.first_label + k
            i = self.node[b]
            if g.equilibrium is None or g.equilibrium[k] is None:
                xe, Re = nodes.x0[i], nodes.R0[i]
            else:
                xe, Re = np.asarray(g.equilibrium[k][0], float).reshape(3), \
                    np.asarray(g.equilibrium[k][1], float).reshape(3, 3)
            ref = np.asarray(data.reference_points[k], float)
            self.xP0[b] = ref
            self.Req[b] = Re
            self.o_loc[b] = Re.T @ (ref - xe)
            if g.hydrostatics and g.buoyancy:
                V = float(data.displaced_volume[k])
                cb = np.asarray(data.centre_of_buoyancy[k], float)
                self.FB[b] = rho * grav * V
                self.oB[b] = Re.T @ (cb - xe)
                d = cb - ref
                KB = rho * grav * V * (d[2] * np.eye(3) - np.outer(d, [0.0, 0.0, 1.0]))
                Cl[k, k, 3:, 3:] -= KB
            self.kq[b] = 0.5 * rho * g.drag["cd"][k] * g.drag["area"][k]
            self.kl[b] = g.drag["linear"][k]
            if g.waves is not None:
                self._waves(g, k, b, label)
        if g.interaction:
            idx = np.arange(b0, b0 + N)
            return [(idx, Cl, Ab, Bb, conv, None if ss is None else (ss.A, ss.B, ss.C), g.first_label)]
        per = split_state_space(ss, N, f"hydrodynamic body {g.first_label}") if ss is not None else [None] * N
        out = []
        for k in range(N):
            sl = np.s_[k:k + 1, k:k + 1]
            ck = None if conv is None else (conv[0], conv[1][sl])
            sk = per[k] if per[k] is not None and len(per[k][0]) else None
            out.append((np.array([b0 + k]), Cl[sl], Ab[sl], Bb[sl], ck, sk, g.first_label + k))
        return out

    def _waves(self, g, k, b, label):
        """Body b's wave kinematics and excitation arrays from the group's WaveComponents."""
        data, wv = g.data, g.waves
        om, a, ph, X = check_waves(data, wv, f"hydrodynamic body {label}")
        n = len(om)
        self.wnk[b] = n
        self.wa[b, :n], self.ww[b, :n], self.wph[b, :n] = a, om, ph
        self.wkn[b, :n] = wavenumbers(wv)
        self.wdir[b] = np.cos(wv.heading), np.sin(wv.heading)
        self.wdepth[b] = wv.water_depth
        if n:
            c = a[:, None] * X[:, 6 * k:6 * k + 6] * np.exp(1j * ph)[:, None]
            self.exr[b, :n], self.exi[b, :n] = c.real, c.imag

    def _pad(self, coupling):
        """The coupling groups' arrays, padded to the largest (NB bodies, S states, NT samples)."""
        ng = len(coupling)
        NB = max(len(c[0]) for c in coupling)
        S = max(0 if c[5] is None else len(c[5][0]) for c in coupling)
        NT = max(0 if c[4] is None else c[4][1].shape[2] for c in coupling)
        self.NB, self.S = NB, S
        self.gb = np.full((ng, NB), -1, np.int64)
        self.gn = np.zeros(ng, np.int64)
        self.Clin, self.Ainf, self.Bd = (np.zeros((ng, NB, NB, 6, 6)) for _ in range(3))
        self.cdt = np.zeros(ng)
        self.cnt = np.zeros(ng, np.int64)
        self.Kc = np.zeros((ng, NB, NB, NT, 6, 6))
        self.ns = np.zeros(ng, np.int64)
        self.As, self.Bs, self.Cs = np.zeros((ng, S, S)), np.zeros((ng, S, 6 * NB)), np.zeros((ng, 6 * NB, S))
        self.group_label = np.zeros(ng, np.int64)
        for gi, (idx, Cl, Ab, Bb, conv, ss, label) in enumerate(coupling):
            n = len(idx)
            self.gb[gi, :n], self.gn[gi] = idx, n
            self.Clin[gi, :n, :n], self.Ainf[gi, :n, :n], self.Bd[gi, :n, :n] = Cl, Ab, Bb
            self.group_label[gi] = label
            if conv is not None:
                self.cdt[gi] = conv[0]
                self.cnt[gi] = conv[1].shape[2]
                self.Kc[gi, :n, :n, :self.cnt[gi]] = conv[1]
            if ss is not None:
                m = len(ss[0])
                self.ns[gi] = m
                self.As[gi, :m, :m] = ss[0]
                self.Bs[gi, :m, :6 * n] = ss[1]
                self.Cs[gi, :6 * n, :m] = ss[2]
        self.n_internal = int(self.ns.sum())
        self.zoff = np.zeros(ng, np.int64)

    # ------------------------------------------------------------------ layout
    def set_offset(self, start):
        self.offset = start
        self.zoff = start + np.concatenate([[0], np.cumsum(self.ns)[:-1]]).astype(np.int64)

    def dof_info(self):
        n = self.n_internal
        labels = np.repeat(self.group_label, self.ns)
        what = [f"radiation state {j + 1}" for m in self.ns for j in range(m)]
        return np.full(n, DIFFERENTIAL, np.int64), np.full(n, DIM["other"], np.int64), labels, what

    def kept_unknowns(self):
        """The radiation states: the derivatives phase keeps their values (as the nodes')."""
        return np.arange(self.offset, self.offset + self.n_internal) if self.n_internal else np.zeros(0, np.int64)

    def z_rows(self):
        """(ng, S) rows of the radiation states (−1 padding)."""
        rows = np.full((len(self.gn), self.S), -1, np.int64)
        for gi, m in enumerate(self.ns):
            rows[gi, :m] = self.zoff[gi] + np.arange(m)
        return rows

    def build_pattern(self):
        """Residual: the nodes' (x, g) and (β, γ) rows per body, the radiation states' rows.
        Jacobian per coupling group: (x, g, β, γ) × (x, g) of its bodies (dense), and with
        radiation states (x, g) × z, z × (x, g), z × z on the realization's non-zeros."""
        nd = self.nodes
        node = self.node
        ib = np.where(self.inertial[:, None], nd.ib[node], -1)
        ic = np.where(self.inertial[:, None], nd.ic[node], -1)
        load = np.concatenate([nd.ix[node], nd.ig[node]], axis=1)                  # (nb, 6)
        mom = np.concatenate([ib, ic], axis=1)
        p = self.pattern = Pattern()
        p.add_res(load)
        p.add_res(mom)
        ng, NB = self.gb.shape
        rows = np.full((ng, NB, 12), -1, np.int64)
        cols = np.full((ng, NB, 6), -1, np.int64)
        for gi in range(ng):
            n = self.gn[gi]
            bs = self.gb[gi, :n]
            rows[gi, :n] = np.concatenate([load[bs], mom[bs]], axis=1)
            cols[gi, :n] = load[bs]
        p.add_jac(rows.reshape(ng, 12 * NB), cols.reshape(ng, 6 * NB))
        if self.S:
            z = self.z_rows()
            lrows = cols.reshape(ng, 6 * NB)
            p.add_res(z)
            body_of = np.repeat(np.arange(NB), 6)
            Cn = np.abs(self.Cs).reshape(ng, NB, 6, self.S).sum(axis=2) > 0        # (ng, NB, S)
            Bn = np.abs(self.Bs).reshape(ng, self.S, NB, 6).sum(axis=3) > 0        # (ng, S, NB)
            p.add_jac(lrows, z, valid=Cn[:, body_of, :])
            p.add_jac(z, lrows, valid=Bn[:, :, body_of])
            p.add_jac(z, z, valid=(self.As != 0) | np.eye(self.S, dtype=bool)[None])
        return p

    # ------------------------------------------------------------------ state (convolution history)
    def initial_state(self):
        if not self.has_state:
            return {}
        return {"ring": np.zeros((self.ne, self.L, 6)), "count": np.zeros(self.ne, np.int64),
                "times": np.zeros(3), "nu_last": np.zeros((self.ne, 6))}

    def commit(self, ctx, arrays):
        """The radiation velocity history with this converged state's body velocities (new
        arrays: a kept state keeps the old ones)."""
        new = {k: v.copy() for k, v in arrays.items()}
        history_commit(float(ctx.t), self.velocities(ctx.kin), self.cdt_body, new["ring"], new["count"],
                       new["times"], new["nu_last"])
        return new

    def _state(self, ctx):
        if self.has_state:
            a = self.state_arrays(ctx)
            return a["ring"], a["count"], a["times"], a["nu_last"]
        return self._no_state

    # ------------------------------------------------------------------ evaluation
    def _call(self, ctx, res, jac, want_jac, comp=None):
        kin = ctx.kin
        S = self.S
        if S:
            r_z, j_nz, j_zn, j_zz = res[2], jac[1], jac[2], jac[3]
        else:
            r_z, j_nz, j_zn, j_zz = self._no_states
        out = self._no_comp if comp is None else comp
        hydro_equations(float(ctx.t), float(kin.dcoef), want_jac, comp is not None,
                        self.node, self.inertial, self.o_loc, self.xP0, self.Req, self.FB, self.oB, self.kq, self.kl,
                        self.wnk, self.wa, self.ww, self.wkn, self.wph, self.wdir, self.wdepth, self.exr, self.exi,
                        self.gb, self.gn, self.Clin, self.Ainf, self.Bd, self.cdt, self.cnt, self.Kc, self.zoff,
                        self.ns, self.As, self.Bs, self.Cs, *self._state(ctx),
                        kin.x, kin.v, kin.R, kin.w, kin.G, kin.Tw, ctx.y, ctx.yp,
                        res[0], res[1], r_z, jac[0], j_nz, j_zn, j_zz, out)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (hydro_body_kernel.hydro_equations) over every body."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        self._call(ctx, res_views, jac, want_jac)

    @property
    def _no_states(self):
        found = self.__dict__.get("_no_states_arrays")
        if found is None:
            ng, NB = self.gb.shape
            found = self._no_states_arrays = (np.zeros((ng, 0)), np.zeros((ng, 6 * NB, 0)),
                                              np.zeros((ng, 0, 6 * NB)), np.zeros((ng, 0, 0)))
        return found

    @property
    def _no_state(self):
        found = self.__dict__.get("_no_state_arrays")
        if found is None:
            found = self._no_state_arrays = (np.zeros((self.ne, 1, 6)), np.zeros(self.ne, np.int64), np.zeros(3),
                                             np.zeros((self.ne, 6)))
        return found

    @property
    def _no_comp(self):
        found = self.__dict__.get("_no_comp_array")
        if found is None:
            found = self._no_comp_array = np.zeros((self.ne, 5, 6))
        return found

    # ------------------------------------------------------------------ quantities (drivers, outputs, tests)
    def offsets(self, kin):
        """r = R õ (nb, 3): the reference points' offsets from their nodes, global."""
        return rot.matvec(kin.R[self.node], self.o_loc)

    def velocities(self, kin):
        """ν = (v_P, ω) (nb, 6) of every body."""
        r = self.offsets(kin)
        w = kin.w[self.node]
        return np.concatenate([kin.v[self.node] + rot.cross(w, r), w], axis=1)

    def displacements(self, kin):
        """η = (x_P − x_P0, log(R R_eqᵀ)) (nb, 6)."""
        R = kin.R[self.node]
        th = np.array([rot.log_rotvec(Ri @ Re.T) for Ri, Re in zip(R, self.Req)]).reshape(-1, 3)
        return np.concatenate([kin.x[self.node] + self.offsets(kin) - self.xP0, th], axis=1)

    def _group_sum(self, M, values):
        """Σ_c M_bc values_c (nb, 6) over each body's coupling group (M: (ng, NB, NB, 6, 6),
        values: (nb, 6))."""
        valid = self.gb >= 0
        safe = np.where(valid, self.gb, 0)
        out = np.zeros((self.ne, 6))
        per = np.einsum("gklpq,glq->gkp", M, np.where(valid[..., None], values[safe], 0.0))
        out[self.gb[valid]] = per[valid]
        return out

    def added_momenta(self, kin):
        """(p_A; h_A) = Σ_c A_bc ν_c (nb, 6) about the reference points."""
        return self._group_sum(self.Ainf, self.velocities(kin))

    def node_momenta(self, kin):
        """The added mass's share of the nodes' momenta (consistent initial β, γ): p_A and
        h_A + r×p_A on each inertial body's node."""
        P = self.added_momenta(kin)
        r = self.offsets(kin)
        beta, gamma = np.zeros((self.nodes.n, 3)), np.zeros((self.nodes.n, 3))
        sel = self.inertial
        beta[self.node[sel]] = P[sel, :3]
        gamma[self.node[sel]] = P[sel, 3:] + rot.cross(r[sel], P[sel, :3])
        return beta, gamma

    def added_mass_energy(self, kin):
        """½ Σ νᵀ A ν over the inertial bodies."""
        nu = self.velocities(kin)
        P = self.added_momenta(kin)
        return float(0.5 * np.sum(nu[self.inertial] * P[self.inertial]))

    def hydrostatic_energy(self, kin):
        """½ ηᵀ C_lin η − Σ ρgV z_B (the potential of the restoring and the buoyancy; with the
        bodies' gravity potential, the whole hydrostatic potential)."""
        eta = self.displacements(kin)
        zB = kin.x[self.node, 2] + rot.matvec(kin.R[self.node], self.oB)[:, 2]
        return float(0.5 * np.sum(eta * self._group_sum(self.Clin, eta)) - np.sum(self.FB * zB))

    def components(self, ctx):
        """(nb, 5, 6): η and the loads (F, M about P, global) of restoring with buoyancy,
        radiation, excitation and drag at ctx (one compiled call)."""
        comp = np.zeros((self.ne, 5, 6))
        res = [np.zeros(r.shape) for r in self.pattern.res]
        jac, _ = kernel_jacobian_views(self, None)
        self._call(ctx, res, jac, False, comp)
        return comp

    def accelerations(self, kin, yp):
        """(a, ω̇) (nb, 3) of the bodies' nodes and ν̇ (nb, 6) from the nodes' momentum rates:
        per coupling group (all groups in one batched solve), the linear system of the rigid
        bodies' inertia about the nodes (the `node_inertia` of the family that has it) and the
        added mass,
            [β̇; γ̇] = M_n [a; ω̇] + q + T Σ_c A (N_c [a_c; ω̇_c] + [ω_c×(ω_c×r_c); 0]) + [0; (ω×r)×p_A],
        T = [I 0; r× I], N = [I −r×; 0 I] (module docstring: β, γ with the added momenta),
        q = [ω×(ω×s); (ω×s)×ẋ + ω×(Jω)].  NaN for the groups with a node that is not inertial."""
        nd = self.nodes
        node = self.node
        nb = self.ne
        if self.inertia is not None:
            m, S, J = self.inertia.node_inertia(kin)
            m, S, J = m[node], S[node], J[node]
        else:
            m, S, J = np.zeros(nb), np.zeros((nb, 3)), np.zeros((nb, 3, 3))
        r = self.offsets(kin)
        w, v = kin.w[node], kin.v[node]
        P = self.added_momenta(kin)
        E = np.eye(3)
        Mn = np.zeros((nb, 6, 6))
        Mn[:, :3, :3] = m[:, None, None] * E
        Mn[:, :3, 3:] = -rot.skew(S)
        Mn[:, 3:, :3] = rot.skew(S)
        Mn[:, 3:, 3:] = J
        T = np.broadcast_to(np.eye(6), (nb, 6, 6)).copy()
        T[:, 3:, :3] = rot.skew(r)
        N = np.broadcast_to(np.eye(6), (nb, 6, 6)).copy()
        N[:, :3, 3:] = -rot.skew(r)
        cv = np.concatenate([rot.cross(w, rot.cross(w, r)), np.zeros((nb, 3))], axis=1)
        ws = rot.cross(w, S)
        inertial = self.inertial
        rates = np.zeros((nb, 6))
        rates[inertial, :3] = yp[nd.ib[node[inertial]]]
        rates[inertial, 3:] = yp[nd.ic[node[inertial]]]
        q = np.concatenate([rates[:, :3] - rot.cross(w, ws),
                            rates[:, 3:] - rot.cross(ws, v) - rot.cross(w, rot.matvec(J, w))
                            - rot.cross(rot.cross(w, r), P[:, :3])], axis=1)
        gb = self.gb
        ng, NB = gb.shape
        valid = gb >= 0
        safe = np.where(valid, gb, 0)
        TA = np.einsum("gkpq,gklqs->gklps", T[safe], self.Ainf)
        blocks_ = np.einsum("gklps,glsq->gklpq", TA, N[safe])
        k = np.arange(NB)
        blocks_[:, k, k] += np.where(valid[..., None, None], Mn[safe], np.eye(6))
        rhs = np.where(valid[..., None], q[safe], 0.0) - np.einsum("gklps,gls->gkp", TA, cv[safe])
        Mg = blocks_.transpose(0, 1, 3, 2, 4).reshape(ng, 6 * NB, 6 * NB)
        ok = np.array([inertial[gb[g, :self.gn[g]]].all() for g in range(ng)], bool)
        u = np.full((ng, NB, 6), np.nan)
        if ok.any():
            u[ok] = np.linalg.solve(Mg[ok], rhs.reshape(ng, 6 * NB)[ok][..., None])[..., 0].reshape(-1, NB, 6)
        acc = np.full((nb, 6), np.nan)
        acc[gb[valid]] = u[valid]
        nudot = np.concatenate([acc[:, :3] + rot.cross(acc[:, 3:], r) + cv[:, :3], acc[:, 3:]], axis=1)
        return acc[:, :3], acc[:, 3:], nudot

    def correct_node_accelerations(self, kin, yp, a, wd):
        """The accelerations of the bodies' nodes in place of the rigid bodies' (whose momenta
        now carry the added mass): System.node_accelerations."""
        an, wdn, _ = self.accelerations(kin, yp)
        ok = np.isfinite(an).all(axis=1)
        a[self.node[ok]] = an[ok]
        wd[self.node[ok]] = wdn[ok]

    def added_mass_loads(self, kin, yp):
        """−A ν̇ (nb, 6) at the reference points (NaN where the accelerations are unknown,
        zero on bodies without inertia)."""
        _, _, nudot = self.accelerations(kin, yp)
        return np.where(self.inertial[:, None], -self._group_sum(self.Ainf, nudot), 0.0)

    def wave_elevation(self, t):
        """The incident wave elevation (nb,) at the equilibrium reference points."""
        th = (self.ww * t - self.wkn * (self.xP0[:, :1] * self.wdir[:, :1] + self.xP0[:, 1:2] * self.wdir[:, 1:])
              + self.wph)
        return np.sum(self.wa * np.cos(th), axis=1)

    def output_groups(self, ctx):
        """`.hyd` rows (module docstring): label, η, restoring, radiation, excitation, drag,
        added mass (each F, M about P, global), wave elevation."""
        sel = np.array([s.output for s in self.specs], bool)
        if not sel.any():
            return []
        comp = self.components(ctx)
        am = self.added_mass_loads(ctx.kin, ctx.yp)
        rows = np.concatenate([comp.reshape(self.ne, 30), am, self.wave_elevation(ctx.t)[:, None]], axis=1)
        return [(self.labels[sel], rows[sel])]


# ---------------------------------------------------------------- MBDyn-style deck card
# `hydrodynamic body:` is mbdae's own card (MBDyn has no hydrodynamics), read as the other
# family cards: read(reader, model, args, label, word) once its label is read; the reader
# and the Model are used duck-typed (no engine.io import here).

OPTIONS = ("interaction", "hydrostatics", "buoyancy", "radiation", "waves", "viscous drag", "linear damping",
           "output")


def read_hydrodynamic_body(reader, model, args, label, word):
    """`hydrodynamic body: <first label>, "<hydrodynamic data file>",
        <node 1> [, equilibrium position, <Vec3>] [, equilibrium orientation, <orientation>], …, <node N>
        [, interaction, {yes | no}] [, hydrostatics, {yes | no}] [, buoyancy, {yes | no}]
        [, radiation, {off | frequency, <ω>
                      | state space [, tolerance, <tol>] [, max order, <n>]
                      | convolution, <dt> [, duration, <t>]}]
        [, waves, <sea state> [, heading, <β>]]
        [, viscous drag, [body, <k>,] <C_d: 6>, <areas: 6>] [, linear damping, [body, <k>,] <b: 6>]
        [, output, {yes | no}] ;`
    with <sea state>: `regular, {amplitude, <a> | height, <H>}, {frequency, <ω> | period, <T>}
    [, phase, <φ>]`, `components, <n>, <ω₁>, <a₁>, <φ₁>, …` or `{jonswap | pierson moskowitz},
    <Hs>, <Tp> [, gamma, <γ>] [, components, <n>] [, frequency range, <ω₀>, <ω₁>] [, seed, <s>]`.
    N is the number of bodies in the file (read by engine/core/hydro_files.read_hydro_data,
    relative to the deck's folder); the bodies are labelled first label … first label + N − 1."""
    fw = args.peek()
    path = args.string("the hydrodynamic data file name")
    full = path if os.path.isabs(path) else os.path.join(fw.source.directory, path)
    try:
        data = read_hydro_data(full)
    except (OSError, ValueError) as e:
        raise fw.error(f"HydroBody({label}): {e}") from None
    N = data.n_bodies
    nodes, equilibrium = [], []
    for k in range(N):
        n = reader.structural_node(args, f"the node of body {k + 1} of {N}")
        xe = Re = None
        if args.is_keyword("equilibrium position"):
            xe = reader.read_vec3(args, "abs position")
        if args.is_keyword("equilibrium orientation"):
            Re = reader.read_orientation(args, "abs")
        nodes.append(n.label)
        equilibrium.append(None if xe is None and Re is None else
                           (n.frame.x if xe is None else xe, n.frame.R if Re is None else Re))
    options = dict(interaction=True, hydrostatics=True, buoyancy=True, waves=None,
                   output="forces" in reader.default_output)
    radiation = ("off", None, {})
    drag = {key: np.zeros((N, 6)) for key in DRAG_KEYS}
    while args.more():
        w = args.peek()
        kw = args.is_keyword(*OPTIONS)
        if kw is None:
            raise w.error(f"HydroBody({label}): unknown option '{w.text}' (expected one of "
                          f"{', '.join(OPTIONS)} or ';')")
        if kw in ("interaction", "hydrostatics", "buoyancy"):
            options[kw] = args.boolean()
        elif kw == "output":
            options["output"] = reader.read_output_flag(args, "forces")
        elif kw == "radiation":
            radiation = _read_radiation(args, label)
        elif kw == "waves":
            options["waves"] = _read_waves(reader, args, label, data)
        else:
            sel = list(range(N))
            if args.is_keyword("body"):
                bw = args.peek()
                k = args.integer("a body index")
                if not 1 <= k <= N:
                    raise bw.error(f"HydroBody({label}): body {k} is not one of 1 … {N}")
                sel = [k - 1]
            if kw == reader.normalize("viscous drag"):
                cd, area = reader.read_vec6(args), reader.read_vec6(args)
                drag["cd"][sel], drag["area"][sel] = cd, area
            else:
                drag["linear"][sel] = reader.read_vec6(args)
    kind, rw, ropts = radiation
    try:
        if kind == "statespace":      # fitted once every option is read (interaction: the coupled entries)
            rad = fit_radiation_state_space(data, couple_bodies=options["interaction"], **ropts)
        elif kind == "convolution":
            rad = impulse_response(data, **ropts)
        else:
            rad = ropts.get("value", "off")
    except ValueError as e:
        raise rw.error(f"HydroBody({label}): {e}") from None
    for k in range(N):
        model.origins[("hydrodynamic body", label + k)] = f"{word.source.name}:{word.where()[0]}"
    try:
        model.hydro_bodies(label, nodes, data, radiation=rad, drag=drag, equilibrium=equilibrium, **options)
    except ValueError as e:
        raise word.error(f"HydroBody({label}): {e}") from None


def _read_radiation(args, label):
    """(kind, word, options): `off | frequency, <ω> | state space [, tolerance, <tol>]
    [, max order, <n>] | convolution, <dt> [, duration, <t>]` (the realization and the
    kernel are computed from the data by engine/core/hydro_radiation once the card is read)."""
    w = args.peek()
    kind = args.expect_keyword("off", "state space", "convolution", "frequency", what="a radiation model "
                               "('off', 'state space', 'convolution' or 'frequency')")
    if kind == "off":
        return kind, w, {}
    if kind == "frequency":
        return kind, w, {"value": ("frequency", args.real("the frequency of the added mass and damping (rad/s)"))}
    opts = {}
    if kind == "convolution":
        opts["dt"] = _positive(args, label, "the kernel's time step")
        if args.is_keyword("duration"):
            opts["t_end"] = _positive(args, label, "the kernel's duration")
        return kind, w, opts
    while True:
        o = args.is_keyword("tolerance", "max order")
        if o is None:
            return kind, w, opts
        if o == "tolerance":
            opts["tolerance"] = _positive(args, label, "the fit tolerance")
        else:
            ow = args.peek()
            opts["max_order"] = args.integer("the largest order of an entry")
            if opts["max_order"] < 1:
                raise ow.error(f"HydroBody({label}): the order must be at least 1, found {opts['max_order']}")


def _positive(args, label, what):
    w = args.peek()
    value = args.real(what)
    if not value > 0:
        raise w.error(f"HydroBody({label}): {what} must be positive, found {value:g}")
    return value


def _read_waves(reader, args, label, data):
    """<sea state> [, heading, <β>] (read_hydrodynamic_body): WaveComponents at the data's water
    depth and gravity; the irregular seas by engine/core/hydro_waves.irregular_sea."""
    w = args.peek()
    kind = args.expect_keyword("regular", "components", "jonswap", "pierson moskowitz",
                               what="a sea state ('regular', 'components', 'jonswap' or 'pierson moskowitz')")
    if kind == "regular":
        a = 0.5 * _positive(args, label, "the wave height") if args.expect_keyword("amplitude", "height") == "height" \
            else args.real("the wave amplitude")
        if args.expect_keyword("frequency", "period") == "period":
            om = 2 * math.pi / _positive(args, label, "the wave period")
        else:
            om = _positive(args, label, "the wave frequency")
        ph = args.real("the wave phase") if args.is_keyword("phase") else 0.0
        om, a, ph = np.array([om]), np.array([a]), np.array([ph])
    elif kind == "components":
        nw = args.peek()
        n = args.integer("the number of wave components")
        if n < 1:
            raise nw.error(f"HydroBody({label}): at least one wave component expected, found {n}")
        om, a, ph = np.empty(n), np.empty(n), np.empty(n)
        for k in range(n):
            om[k] = _positive(args, label, "a component's frequency")
            a[k], ph[k] = args.real("a component's amplitude"), args.real("a component's phase")
    else:
        hs = _positive(args, label, "the significant wave height")
        tp = _positive(args, label, "the peak period")
        sea = {}
        while True:
            o = args.is_keyword("gamma", "components", "frequency range", "seed")
            if o is None:
                break
            if o == "gamma":
                sea["gamma"] = _positive(args, label, "the peak enhancement factor")
            elif o == "components":
                sea["n_components"] = int(_positive(args, label, "the number of components"))
            elif o == "seed":
                sea["seed"] = args.integer("the seed of the random phases")
            else:
                sea["omega_min"] = _positive(args, label, "the lowest frequency")
                sea["omega_max"] = _positive(args, label, "the highest frequency")
        heading = args.real("the wave heading (rad)") if args.is_keyword("heading") else 0.0
        try:
            return irregular_sea("jonswap" if kind == "jonswap" else "pierson-moskowitz", hs, tp, heading=heading,
                                 water_depth=data.water_depth, g=data.g, **sea)
        except ValueError as e:
            raise w.error(f"HydroBody({label}): {e}") from None
    heading = args.real("the wave heading (rad)") if args.is_keyword("heading") else 0.0
    return WaveComponents(om, a, ph, heading, data.water_depth, data.g)


CARDS = {"hydrodynamic body": read_hydrodynamic_body}
