"""Hull buoyancy: the exact nonlinear hydrostatic force and moment of still water on a closed
hull, a body-fixed triangulated surface carried by one structural node, in its current pose
(issue 19, "the nonlinear buoyancy of a body described by a simple hull").

    F = -∫_wet p n dS,   M = -∫_wet (X - x) × p n dS,   p = ρ g max(0, h - e·X)

(n the outward normal, e the upward unit vector, h the still-water level along e; x the
node).  Every panel is clipped exactly by the waterline plane, so F and M are continuously
differentiable in the pose; on a closed hull they equal Archimedes' ρ g V_sub e through the
centre of buoyancy, at any draft and angle (large heel, capsize, full submersion, a hull
out of the water).  The Jacobian is exact (elements/hull_buoyancy_kernel.py): at equilibrium
it is minus the linear hydrostatic restoring matrix about the node (C33 = ρ g A_wp,
C44 = ρ g (∫y² dA + V z_B), ...).  This is the nonlinear replacement of a linear restoring
matrix; the body's weight is the body element's with gravity, added mass, radiation and wave
excitation are other families' (the hydrodynamic body).

In waves (`wave`: engine/core/hydro_data.WaveComponents, a regular wave or the components of
an irregular sea; z up) the pressure adds the incident (Froude–Krylov) pressure of Airy's
theory, p = ρ g (-z + Σ a f(z) cos(ωt - k(x cos β + y sin β) + φ)), f = cosh(k(z + D))/cosh(kD)
(e^{kz} in deep water) held at its z = 0 value above the still level, on the part of the hull
below the instantaneous free surface (where that head is positive): the nonlinear
Froude–Krylov force of the body's exact pose, without diffraction or radiation.  The head is
interpolated linearly over each panel from its corners (exact in still water, second order in
the panel size in waves); `wave_ramp` T_r multiplies the amplitudes by ½(1 - cos(π t/T_r))
for t < T_r.

Hulls (body-fixed, in the hull's own frame, placed in the node frame by `offset` and
`orientation`): `box_hull`, `cylinder_hull` (vertical: axis along the hull's z), `sphere_hull`,
`hull_from_mesh(vertices, faces)` and `read_hull(path)` (any surface mesh meshio reads).
The mesh must be closed and consistently oriented (checked; an inward orientation is turned
outward); it is split into triangles, each flat, so the loads are exact for the polyhedron.

    model.hull_buoyancy(label, node, box_hull(10.0, 4.0, 3.0), density=1025.0, gravity=9.81)

Deck (mbdae's card, in the style of MBDyn's force cards; counted among the forces):

    force: <label>, hull buoyancy, <node>, [position, <Vec3>,] [orientation, <OrientationMatrix>,]
        { box, <length>, <breadth>, <height>
        | cylinder, <radius>, <height> [, sides, <n>]
        | sphere, <radius> [, divisions, <n>]
        | mesh, "<file>" [, scale, <s>]
        | panels, <nv>, <Vec3> ..., <nf>, { <k>, <k vertex numbers (from 1)> } ... }
        [, density, <ρ>] [, gravity, <g>] [, water level, <h>] [, upward, <Vec3>]
        [, regular wave, <amplitude>, <ω> [, heading, <β>] [, phase, <φ>] [, water depth, <D>]
          [, ramp, <T_r>]]
        [, output, { yes | no | default }] ;

Output: `<prefix>.buo`, one row per element and step: label, F (3, global), M about the node
(3, global), V = e·F/(ρg) (in still water the submerged volume of the closed hull), waterplane
area A_wp, centre of buoyancy (3, global; NaN when dry, and in waves)."""
from dataclasses import dataclass, field
import os

import numpy as np

from mbdae.engine.core.assembly import kernel_jacobian_views
from mbdae.engine.core.hydro_data import WaveComponents
from mbdae.engine.core.hydro_waves import wavenumbers
from mbdae.engine.mesh import load_meshio
from mbdae.elements.base import ElementFamily, one_node_pattern, vec, mat, random_rotation, random_nodes
from mbdae.elements.hull_buoyancy_kernel import hull_equations, hull_loads

DEFAULT_DENSITY = 1025.0          # sea water, kg/m³
DEFAULT_GRAVITY = 9.81            # m/s²


# ---------------------------------------------------------------------- hulls
@dataclass(frozen=True, eq=False)
class Hull:
    """A closed, outward-oriented triangulated surface: vertices (nv, 3) and triangles
    (nt, 3) of vertex indices, counter-clockwise seen from outside."""
    vertices: np.ndarray
    triangles: np.ndarray
    name: str = "mesh"

    @property
    def panels(self):
        """The triangles' corners (nt, 3, 3)."""
        return self.vertices[self.triangles]

    @property
    def volume(self):
        """Enclosed volume (divergence theorem: Σ X0·(X1 × X2)/6)."""
        P = self.panels
        return float(np.einsum("ij,ij->i", P[:, 0], np.cross(P[:, 1], P[:, 2])).sum() / 6.0)

    @property
    def centroid(self):
        """Centroid of the enclosed volume (tetrahedra on the origin)."""
        P = self.panels
        v = np.einsum("ij,ij->i", P[:, 0], np.cross(P[:, 1], P[:, 2])) / 6.0
        return (v[:, None] * P.sum(axis=1)).sum(axis=0) / (4.0 * v.sum())

    def transformed(self, offset=None, orientation=None):
        """The hull placed by X ↦ offset + orientation X."""
        return Hull(vec(offset) + self.vertices @ mat(orientation).T, self.triangles, self.name)


def _triangulate(faces):
    """Triangles (n, 3) of polygon faces (each a sequence of >= 3 vertex indices), by fans;
    triangles with a repeated vertex (collapsed quadrangles) dropped."""
    tris = []
    for f in faces:
        f = [int(i) for i in f]
        if len(f) < 3:
            raise ValueError(f"a face needs at least 3 vertices, got {f}")
        tris += [(f[0], f[k], f[k + 1]) for k in range(1, len(f) - 1)]
    tris = np.array(tris, np.int64).reshape(-1, 3)
    keep = (tris[:, 0] != tris[:, 1]) & (tris[:, 1] != tris[:, 2]) & (tris[:, 2] != tris[:, 0])
    return tris[keep]


def _merge_vertices(V, T, tol):
    """Coincident vertices (within tol) merged; unused ones dropped."""
    key = np.round(V / tol).astype(np.int64)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    T = inverse[T]
    used, T = np.unique(T, return_inverse=True)
    return V[first][used], T.reshape(-1, 3)


def hull_from_mesh(vertices, faces, name="mesh"):
    """A Hull from vertices (nv, 3) and faces (triangles, quadrangles or polygons: sequences
    of 0-based vertex indices).  Coincident vertices are merged; the surface must be closed
    (every edge shared by exactly two faces) and consistently oriented (each edge run in
    opposite directions by its two faces), else ValueError naming an edge; a mesh oriented
    inward is turned outward (its volume is then positive)."""
    V = np.asarray(vertices, float).reshape(-1, 3)
    if not np.isfinite(V).all():
        raise ValueError(f"hull {name}: non-finite vertex coordinates")
    T = _triangulate(faces)
    if len(T) == 0:
        raise ValueError(f"hull {name}: no faces")
    if T.min() < 0 or T.max() >= len(V):
        raise ValueError(f"hull {name}: vertex index out of range 0..{len(V) - 1}")
    size = float(np.ptp(V, axis=0).max())
    if size <= 0:
        raise ValueError(f"hull {name}: all vertices coincide")
    V, T = _merge_vertices(V, T, 1e-9 * size)
    edges = np.concatenate([T[:, [0, 1]], T[:, [1, 2]], T[:, [2, 0]]])
    directed, count = np.unique(edges, axis=0, return_counts=True)
    if (count > 1).any():
        a, b = directed[np.argmax(count > 1)]
        raise ValueError(f"hull {name}: faces inconsistently oriented (edge {a}-{b} run twice in the same direction)")
    undirected, ucount = np.unique(np.sort(edges, axis=1), axis=0, return_counts=True)
    if (ucount != 2).any():
        k = int(np.argmax(ucount != 2))
        a, b = undirected[k]
        raise ValueError(f"hull {name}: the surface is not closed (edge {a}-{b} belongs to {ucount[k]} face(s)); "
                         "buoyancy needs the whole closed hull, deck included")
    hull = Hull(V, T, name)
    volume = hull.volume
    if abs(volume) <= 1e-12 * size ** 3:
        raise ValueError(f"hull {name}: the surface encloses no volume")
    if volume < 0:
        hull = Hull(V, T[:, ::-1].copy(), name)
    return hull


def box_hull(length, breadth, height):
    """A box [-L/2, L/2] × [-B/2, B/2] × [-H/2, H/2] (12 triangles)."""
    L, B, H = (float(v) for v in (length, breadth, height))
    if min(L, B, H) <= 0:
        raise ValueError(f"box hull: the dimensions must be positive, got {L}, {B}, {H}")
    V = np.array([[x, y, z] for z in (-H / 2, H / 2) for y in (-B / 2, B / 2) for x in (-L / 2, L / 2)])
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return hull_from_mesh(V, faces, "box")


def cylinder_hull(radius, height, sides=32, rings=1, layers=1):
    """A vertical circular cylinder (axis along z, from -H/2 to H/2) as the prism on the
    regular polygon of `sides` vertices on the circle; `rings` concentric rings on each cap and
    `layers` bands on the side refine the panels (for the pressure of waves; the still-water
    loads are exact with one of each)."""
    R, H, n, nr, nl = float(radius), float(height), int(sides), int(rings), int(layers)
    if R <= 0 or H <= 0 or n < 3 or nr < 1 or nl < 1:
        raise ValueError(f"cylinder hull: radius and height must be positive, sides >= 3, rings and layers >= 1, "
                         f"got {R}, {H}, {n}, {nr}, {nl}")
    a = 2 * np.pi * np.arange(n) / n
    ring = np.stack([np.cos(a), np.sin(a)], axis=1)
    V, faces = [], []

    def add(points):
        V.extend(points)
        return len(V) - len(points)

    side = [add(np.c_[R * ring, np.full(n, z)]) for z in np.linspace(-H / 2, H / 2, nl + 1)]
    k = np.arange(n)
    k1 = (k + 1) % n
    for b, t in zip(side[:-1], side[1:]):
        faces += [(b + i, b + j, t + j, t + i) for i, j in zip(k, k1)]
    for z, outer_ring, sign in ((-H / 2, side[0], -1), (H / 2, side[-1], 1)):
        centre = add([[0.0, 0.0, z]])
        rings_ = [add(np.c_[r * ring, np.full(n, z)]) for r in R * np.arange(1, nr) / nr] + [outer_ring]
        cap = [(centre, rings_[0] + i, rings_[0] + j) for i, j in zip(k, k1)]
        for p, o in zip(rings_[:-1], rings_[1:]):
            cap += [(p + i, o + i, o + j, p + j) for i, j in zip(k, k1)]
        faces += [f[::-1] if sign < 0 else f for f in cap]
    return hull_from_mesh(np.array(V), faces, "cylinder")


def sphere_hull(radius, divisions=16):
    """A sphere centred at the origin: `divisions` bands of latitude, 2 × divisions meridians,
    vertices on the sphere (polyhedral error O(divisions⁻²))."""
    R, n = float(radius), int(divisions)
    if R <= 0 or n < 2:
        raise ValueError(f"sphere hull: radius must be positive and divisions >= 2, got {R}, {n}")
    m = 2 * n
    th = np.pi * np.arange(1, n) / n                  # colatitudes of the inner rings
    ph = 2 * np.pi * np.arange(m) / m
    ring = np.stack([np.outer(np.sin(th), np.cos(ph)), np.outer(np.sin(th), np.sin(ph)),
                     np.outer(np.cos(th), np.ones(m))], axis=-1).reshape(-1, 3)
    V = R * np.concatenate([[[0.0, 0.0, 1.0]], ring, [[0.0, 0.0, -1.0]]])
    top, bottom = 0, len(V) - 1
    idx = lambda i, j: 1 + i * m + j % m             # noqa: E731  ring i (0 = northmost), meridian j
    faces = [(top, idx(0, j), idx(0, j + 1)) for j in range(m)]
    faces += [(idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)) for i in range(n - 2) for j in range(m)]
    faces += [(bottom, idx(n - 2, j + 1), idx(n - 2, j)) for j in range(m)]
    return hull_from_mesh(V, faces, "sphere")


def read_hull(path, scale=1.0):
    """A Hull from a surface mesh file meshio reads (STL, OBJ, PLY, gmsh, VTK, ...): its
    triangle, quadrangle and polygon cells (other cells ignored), coordinates times `scale`
    (meshio: the optional extra `mesh`)."""
    meshio = load_meshio()
    try:
        m = meshio.read(path)
    except Exception as e:            # meshio raises its own ReadError, OSError, ValueError, ...
        raise ValueError(f"{path}: cannot read the hull mesh ({e})") from None
    faces = []
    for block in m.cells:
        if block.type in ("triangle", "quad") or block.type.startswith("polygon"):
            faces += np.asarray(block.data, np.int64).tolist()
    if not faces:
        raise ValueError(f"{path}: no triangle, quadrangle or polygon cells")
    try:
        return hull_from_mesh(float(scale) * np.asarray(m.points, float)[:, :3], faces, os.path.basename(path))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


# ---------------------------------------------------------------------- waves
def ramp_factors(t, ramps):
    """½ (1 - cos(π t/T_r)) for 0 <= t < T_r, 0 before, 1 after, per ramp time T_r (0: no ramp)."""
    ramps = np.asarray(ramps, float)
    out = np.ones(ramps.shape)
    on = ramps > 0
    out[on] = 0.5 * (1 - np.cos(np.pi * np.clip(t / ramps[on], 0.0, 1.0)))
    return out


# ---------------------------------------------------------------------- spec and builder
@dataclass
class HullBuoyancySpec:
    label: int
    node: int
    hull: Hull
    density: float = DEFAULT_DENSITY
    gravity: float = DEFAULT_GRAVITY
    water_level: float = 0.0
    upward: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    orientation: np.ndarray = field(default_factory=lambda: np.eye(3))
    output: bool = True
    wave: WaveComponents = None
    wave_ramp: float = 0.0


# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def hull_buoyancy(model, label, node, hull, density=DEFAULT_DENSITY, gravity=DEFAULT_GRAVITY, water_level=0.0,
                  upward=None, offset=None, orientation=None, output=True, wave=None, wave_ramp=0.0):
    """Nonlinear hydrostatic buoyancy of a closed hull (a Hull: box_hull, cylinder_hull,
    sphere_hull, hull_from_mesh, read_hull) on a structural node: pressure ρ g × depth below
    the still-water plane upward·X = water_level (upward: unit vector, default +z); the hull
    is placed in the node frame by X̃ = offset + orientation X_hull.  `wave`: a WaveComponents
    (engine/core/hydro_data.py) whose incident pressure is added (nonlinear Froude–Krylov;
    upward must be +z), its amplitudes ramped up over `wave_ramp` seconds."""
    if not isinstance(hull, Hull):
        raise TypeError(f"hull buoyancy {label}: hull must be a Hull (box_hull, cylinder_hull, sphere_hull, "
                        f"hull_from_mesh, read_hull), not {type(hull).__name__}")
    if any(s.label == label for s in model.hull_buoyancies):
        raise ValueError(f"hull buoyancy {label} is already defined")
    density, gravity = float(density), float(gravity)
    if not density > 0 or not gravity > 0:
        raise ValueError(f"hull buoyancy {label}: density and gravity must be positive, got {density}, {gravity}")
    up = vec([0.0, 0.0, 1.0] if upward is None else upward)
    norm = np.linalg.norm(up)
    if not norm > 0:
        raise ValueError(f"hull buoyancy {label}: the upward direction is null")
    up = up / norm
    if wave is not None:
        if not isinstance(wave, WaveComponents):
            raise TypeError(f"hull buoyancy {label}: wave must be a WaveComponents, not {type(wave).__name__}")
        if not np.allclose(up, [0.0, 0.0, 1.0]):
            raise ValueError(f"hull buoyancy {label}: waves need the upward direction +z (their heading is "
                             "measured from the global x axis)")
        n = np.size(wave.omega)
        parts = [np.asarray(getattr(wave, k), float) for k in ("omega", "amplitude", "phase")]
        if any(p.shape != (n,) for p in parts) or n == 0:
            raise ValueError(f"hull buoyancy {label}: the wave's omega, amplitude and phase must be 1-D arrays of one "
                             f"length, got shapes {[p.shape for p in parts]}")
        if not (np.all(parts[0] > 0) and all(np.isfinite(p).all() for p in parts) and wave.water_depth > 0
                and wave.g > 0 and np.isfinite(wave.heading)):
            raise ValueError(f"hull buoyancy {label}: the wave needs positive finite frequencies, finite amplitudes "
                             "and phases, a positive depth and gravity")
    if not float(wave_ramp) >= 0:
        raise ValueError(f"hull buoyancy {label}: the wave ramp must be >= 0, got {wave_ramp}")
    model.hull_buoyancies.append(HullBuoyancySpec(label, node, hull, density, gravity, float(water_level),
                                                  up, vec(offset), mat(orientation), bool(output), wave,
                                                  float(wave_ramp)))
    return label


MODEL_FIELDS = {"hull_buoyancies": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (hull_buoyancy,)


def build(model, nodes, built):
    if not model.hull_buoyancies:
        return []
    if getattr(model, "rigid_body_kinematics", None) is not None:
        raise ValueError("hull buoyancy: not available with rigid body kinematics (the still water is the "
                         "global frame's)")
    return [HullBuoyancies(model.hull_buoyancies, nodes)]


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it; hulls about the size of the random
# node positions, so that they cut the water.  A buoyancy load is not objective (the water
# does not turn with the system): no objectivity or action = reaction check applies.

def hull_buoyancy_sample(model, rng):
    m = model
    random_nodes(m, rng, 3)
    prism = hull_from_mesh([[0, 0, 0], [2.5, 0, 0], [0, 2.2, 0], [0, 0, 2.4], [2.5, 0, 2.4], [0, 2.2, 2.4]],
                           [(0, 2, 1), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)], "prism")
    m.hull_buoyancy(1, 1, box_hull(3.0, 2.5, 2.5), offset=rng.normal(size=3) * 0.3,
                    orientation=random_rotation(rng))
    sea = WaveComponents(omega=np.array([1.9, 3.1]), amplitude=np.array([0.4, 0.25]), phase=np.array([0.3, -1.0]),
                         heading=0.6, water_depth=2.0)
    m.hull_buoyancy(2, 2, cylinder_hull(1.2, 3.0, sides=7), density=1000.0, water_level=0.3, wave=sea,
                    wave_ramp=1.0)
    m.hull_buoyancy(3, 3, sphere_hull(1.8, 4), upward=rng.normal(size=3), water_level=-0.2)
    m.hull_buoyancy(4, 1, prism, gravity=3.7, offset=[-0.8, -0.7, -1.2], orientation=random_rotation(rng),
                    wave=WaveComponents(omega=np.array([2.8]), amplitude=np.array([0.5]), phase=np.array([0.2]),
                                        heading=-2.0))
    return m


SAMPLES = {"hull buoyancy": [hull_buoyancy_sample]}


# ---------------------------------------------------------------------- family
class HullBuoyancies(ElementFamily):
    """All hull buoyancy elements: their vertices (in their node frames) and triangles
    concatenated, evaluated by one compiled call (hull_buoyancy_kernel.hull_equations)."""
    name = "hull buoyancy"
    output_file = "buo"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        for s in S:
            if s.node not in nodes.index_of:
                raise ValueError(f"hull buoyancy {s.label}: structural node {s.node} is not defined")
        self.n = self.node_index([s.node for s in S])
        if not nodes.rotating[self.n].all():
            s = S[int(np.argmin(nodes.rotating[self.n]))]
            raise ValueError(f"hull buoyancy {s.label}: structural node {s.node} has no rotation "
                             "(a hull needs a 6-dof node)")
        hulls = [s.hull.transformed(s.offset, s.orientation) for s in S]
        self.vstart = np.concatenate([[0], np.cumsum([len(h.vertices) for h in hulls])]).astype(np.int64)
        self.tstart = np.concatenate([[0], np.cumsum([len(h.triangles) for h in hulls])]).astype(np.int64)
        self.verts = np.ascontiguousarray(np.concatenate([h.vertices for h in hulls]))      # node frame
        self.tris = np.ascontiguousarray(np.concatenate([h.triangles for h in hulls]), np.int64)   # per hull from 0
        self.rho_g = np.array([s.density * s.gravity for s in S], float)
        self.level = np.array([s.water_level for s in S], float)
        self.up = np.array([s.upward for s in S], float).reshape(-1, 3)
        # the wave components of all instances, concatenated (instance e: wstart[e] … wstart[e+1]-1)
        waves = [s.wave for s in S if s.wave is not None]
        count = [0 if s.wave is None else len(s.wave.omega) for s in S]
        self.wstart = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)

        def components(value):
            """value(wave) (a scalar or one per component) over all components."""
            return np.concatenate([np.broadcast_to(np.asarray(value(w), float), (len(w.omega),)) for w in waves]
                                  + [np.zeros(0)])

        self.womega = components(lambda w: w.omega)
        self.wamp = components(lambda w: w.amplitude)
        self.wphi = components(lambda w: w.phase)
        self.wdepth = components(lambda w: w.water_depth)
        self.wk = components(wavenumbers)
        self.wkx = self.wk * components(lambda w: np.cos(w.heading))
        self.wky = self.wk * components(lambda w: np.sin(w.heading))
        self.wramp = np.repeat(np.array([s.wave_ramp for s in S], float), count)
        self.in_waves = np.array(count) > 0

    def wave_state(self, t):
        """(amplitudes, phases ωt + φ) of the wave components at time t (ramped)."""
        return self.wamp * ramp_factors(t, self.wramp), self.womega * t + self.wphi

    def build_pattern(self):
        self.pattern = one_node_pattern(self.nodes, self.n)
        return self.pattern

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (hull_equations) over all hulls and their panels."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        amp, phase = self.wave_state(ctx.t)
        hull_equations(float(kin.dcoef), self.n, self.vstart, self.verts, self.tstart, self.tris, self.rho_g,
                       self.level, self.up, self.wstart, amp, self.wkx, self.wky, self.wk, phase, self.wdepth,
                       kin.x, kin.R, kin.G, want_jac, res_views[0], jac[0])

    def loads(self, ctx):
        """{"F", "M", "V", "Awp", "B"} over all hulls: force and moment about the node (global),
        V = e·F/(ρg) (in still water the displaced volume), waterplane area, centre of buoyancy
        (the point of the line of action of F whose depth is ∫_V d dV / V; NaN when dry and in
        waves)."""
        out = np.empty((self.ne, 8))
        kin = ctx.kin
        amp, phase = self.wave_state(ctx.t)
        hull_loads(self.n, self.vstart, self.verts, self.tstart, self.tris, self.rho_g, self.level, self.up,
                   self.wstart, amp, self.wkx, self.wky, self.wk, phase, self.wdepth, kin.x, kin.R, out)
        F, M = out[:, 0:3], out[:, 3:6]
        V = np.einsum("ij,ij->i", F, self.up) / self.rho_g
        x = kin.x[self.n]
        with np.errstate(invalid="ignore", divide="ignore"):
            F2 = np.einsum("ij,ij->i", F, F)
            arm = np.cross(F, M) / F2[:, None]                  # the foot of the node on the line of action
            foot = x + arm
            depth = self.level - np.einsum("ij,ij->i", foot, self.up)
            B = foot + (depth - out[:, 7] / V)[:, None] * self.up
        B[~(V > 0) | self.in_waves] = np.nan
        return {"F": F, "M": M, "V": V, "Awp": out[:, 6], "B": B}

    def output_groups(self, ctx):
        """.buo rows: F (3), M about the node (3), V, A_wp, centre of buoyancy (3)."""
        sel = np.array([s.output for s in self.specs], bool)
        if not sel.any():
            return []
        L = self.loads(ctx)
        rows = np.concatenate([L["F"], L["M"], L["V"][:, None], L["Awp"][:, None], L["B"]], axis=1)
        return [(self.labels[sel], rows[sel])]

    def private_data_names(self, i):
        """Private data for string drives (model::element::...): F_x..M_z, volume, waterplane area."""
        return ("Fx", "Fy", "Fz", "Mx", "My", "Mz", "V", "Awp")

    def private_data(self, ctx, name):
        L = self.loads(ctx)
        columns = {"Fx": L["F"][:, 0], "Fy": L["F"][:, 1], "Fz": L["F"][:, 2], "Mx": L["M"][:, 0],
                   "My": L["M"][:, 1], "Mz": L["M"][:, 2], "V": L["V"], "Awp": L["Awp"]}
        if name not in columns:
            raise ValueError(f'hull buoyancy private datum "{name}" does not exist ({", ".join(columns)})')
        return columns[name]


# ---------------------------------------------------------------- MBDyn-style deck card
# Read by elements/forces.py's reader after `force: <label>, hull buoyancy` (the card counts
# among the forces, as MBDyn's force types); the reader and the Model are used duck-typed (no
# engine.io import here).

HULL_KINDS = ("box", "cylinder", "sphere", "mesh", "panels")
OPTIONS = ("density", "gravity", "water level", "upward", "regular wave", "output")
WAVE_OPTIONS = ("heading", "phase", "water depth", "ramp")


def _positive(args, what):
    w = args.peek()
    value = args.real(what)
    if not value > 0:
        raise w.error(f"hull buoyancy: {what} must be positive, found {value:g}")
    return value


def _count(args, what, smallest):
    w = args.peek()
    value = args.integer(what)
    if value < smallest:
        raise w.error(f"hull buoyancy: {what} must be at least {smallest}, found {value}")
    return value


def _keyword_error(reader, args, allowed, what):
    """The error for the next word where one of `allowed` keywords was expected: a keyword-
    shaped word is named as an unknown keyword (a misspelling), anything else as a syntax error."""
    w = args.peek()
    listed = ", ".join(allowed)
    if w is None:
        return args.card.end.error(f"syntax error: {what} ({listed}) expected before ';'")
    if w.keyword is not None:
        return w.error(f"hull buoyancy: unknown {what} '{w.text}' (one of {listed})")
    return w.error(f"syntax error: {what} ({listed}) expected")


def read_hull_card(reader, args):
    """The hull of the card (HULL_KINDS)."""
    kind = args.is_keyword(*HULL_KINDS)
    if kind is None:
        raise _keyword_error(reader, args, HULL_KINDS, "hull type")
    if kind == "box":
        return box_hull(_positive(args, "the box length"), _positive(args, "the box breadth"),
                        _positive(args, "the box height"))
    if kind == "cylinder":
        R, H = _positive(args, "the cylinder radius"), _positive(args, "the cylinder height")
        n = _count(args, "the number of sides", 3) if args.is_keyword("sides") else 32
        return cylinder_hull(R, H, n)
    if kind == "sphere":
        R = _positive(args, "the sphere radius")
        n = _count(args, "the number of divisions", 2) if args.is_keyword("divisions") else 16
        return sphere_hull(R, n)
    if kind == "mesh":
        fw = args.peek()
        fname = args.string("the hull mesh file name")
        path = fname if os.path.isabs(fname) else os.path.join(fw.source.directory, fname)
        scale = _positive(args, "the scale") if args.is_keyword("scale") else 1.0
        try:
            return read_hull(path, scale)
        except (ValueError, ImportError) as e:
            raise fw.error(f"hull buoyancy: {e}") from None
    w = args.peek()
    nv = _count(args, "the number of vertices", 4)
    V = np.array([reader.read_plain_vec3(args) for _ in range(nv)], float)
    nf = _count(args, "the number of faces", 4)
    faces = []
    for _ in range(nf):
        k = _count(args, "the number of vertices of a face", 3)
        face = []
        for _ in range(k):
            vw = args.peek()
            i = args.integer("a vertex number")
            if not 1 <= i <= nv:
                raise vw.error(f"hull buoyancy: vertex number {i} out of range 1..{nv}")
            face.append(i - 1)
        faces.append(face)
    try:
        return hull_from_mesh(V, faces, "panels")
    except ValueError as e:
        raise w.error(f"hull buoyancy: {e}") from None


def read_regular_wave(args):
    """`<amplitude>, <ω> [, heading, <β>] [, phase, <φ>] [, water depth, <D>] [, ramp, <T_r>]`
    after `regular wave` (angles in radians): {amplitude, omega, heading, phase, waterdepth, ramp}."""
    wave = {"amplitude": args.real("the wave amplitude"), "omega": _positive(args, "the wave frequency"),
            "heading": 0.0, "phase": 0.0, "waterdepth": np.inf, "ramp": 0.0}
    seen = set()
    while True:
        w = args.peek()
        kw = args.is_keyword(*WAVE_OPTIONS)
        if kw is None:
            return wave
        if kw in seen:
            raise w.error(f"hull buoyancy: wave option '{w.text}' given twice")
        seen.add(kw)
        if kw == "waterdepth":
            wave[kw] = _positive(args, "the water depth")
        elif kw == "ramp":
            rw = args.peek()
            wave[kw] = args.real("the wave ramp time")
            if wave[kw] < 0:
                raise rw.error(f"hull buoyancy: the wave ramp time must be >= 0, found {wave[kw]:g}")
        else:
            wave[kw] = args.real(f"the wave {kw}")


def read_hull_buoyancy(reader, model, args, label):
    """`force: <label>, hull buoyancy, <node>, [position, <Vec3>,] [orientation, <R>,] <hull>
    [, density, <ρ>] [, gravity, <g>] [, water level, <h>] [, upward, <Vec3>]
    [, regular wave, <a>, <ω> [, heading, <β>] [, phase, <φ>] [, water depth, <D>] [, ramp, <T_r>]]
    [, output, <flag>]` (module docstring); the position and orientation place the hull in the
    node frame."""
    n, site = reader.node_site(args)
    offset = reader.offset(args, site, required=False)
    orientation = reader.hinge(args, site)
    hull = read_hull_card(reader, args)
    options = {"density": DEFAULT_DENSITY, "gravity": DEFAULT_GRAVITY, "waterlevel": 0.0,
               "upward": np.array([0.0, 0.0, 1.0]), "output": "forces" in reader.default_output,
               "regularwave": None}
    seen = set()
    wave_word = None
    while args.more():
        w = args.peek()
        kw = args.is_keyword(*OPTIONS)
        if kw is None:
            if w.keyword in {reader.normalize(k) for k in WAVE_OPTIONS}:
                raise w.error(f"hull buoyancy: '{w.text}' belongs right after 'regular wave, <amplitude>, <omega>'")
            raise _keyword_error(reader, args, OPTIONS, "option")
        if kw in seen:
            raise w.error(f"hull buoyancy: option '{w.text}' given twice")
        seen.add(kw)
        if kw in ("density", "gravity"):
            options[kw] = _positive(args, f"the {kw}")
        elif kw == "waterlevel":
            options[kw] = args.real("the water level")
        elif kw == "upward":
            uw = args.peek()
            up = reader.read_vec3(args, "abs direction")
            if not np.linalg.norm(up) > 0:
                raise uw.error("hull buoyancy: the upward direction is null")
            options[kw] = up
        elif kw == "regularwave":
            wave_word = w
            options[kw] = read_regular_wave(args)
        else:
            options[kw] = reader.read_output_flag(args, "forces")
    wave, ramp = None, 0.0
    if options["regularwave"] is not None:
        p = options["regularwave"]
        wave = WaveComponents(omega=np.array([p["omega"]]), amplitude=np.array([p["amplitude"]]),
                              phase=np.array([p["phase"]]), heading=p["heading"], water_depth=p["waterdepth"],
                              g=options["gravity"])
        ramp = p["ramp"]
    try:
        model.hull_buoyancy(label, n.label, hull, density=options["density"], gravity=options["gravity"],
                            water_level=options["waterlevel"], upward=options["upward"], offset=offset,
                            orientation=orientation, output=options["output"], wave=wave, wave_ramp=ramp)
    except ValueError as e:
        raise (wave_word or args.card.name).error(str(e)) from None
