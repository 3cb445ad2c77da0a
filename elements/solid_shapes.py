"""Shapes of MBDyn's solid and surface-load elements (theory manual §12.0.1, §12.0.7; input
manual "Solid elements", "Surface loads"): node natural coordinates in MBDyn's node order,
shape functions, integration rules.  Set-up only (numpy); the kernels receive the tables
at the integration points.

Shape functions are built from the node coordinates and the element's polynomial space:
h(r) = m(r) V⁻¹ with V_ij = m_j(r_i), the unique interpolant of that space (serendipity
for hexahedron20 and quadrangle8, Lagrange for hexahedron27 and quadrangle9, complete
quadratics for tetrahedron10 and triangle6, the 15-node wedge space for pentahedron15).

Integration rules (as MBDyn's, input manual tables): Gauss 2×2×2 (hexahedron8,
hexahedron20r), 3×3×3 (hexahedron20, hexahedron27), the 7-point degree-5 triangle rule ×
3-point Gauss (pentahedron15, 21 points), the 5-point tetrahedron rule (tetrahedron10,
weights -2/15 and 3/40); surfaces: Gauss 2×2 (q4), 3×3
(q8, q8r, q9), 7 points (t6).  The consistent mass (eq. 12.47, a degree-4 integrand for
quadratic elements) uses a rule exact for it: 3×3×3 on hexahedra, 7×3 on wedges, a
27-point conical-product rule on tetrahedra."""
from dataclasses import dataclass
from functools import lru_cache
import itertools
import numpy as np

# ---------------------------------------------------------------------- node coordinates
_HEX8 = ([1, -1, -1, 1, 1, -1, -1, 1], [1, 1, -1, -1, 1, 1, -1, -1], [1, 1, 1, 1, -1, -1, -1, -1])
_HEX8P = ([-1, 1, 1, -1, -1, 1, 1, -1], [-1, -1, 1, 1, -1, -1, 1, 1], [-1, -1, -1, -1, 1, 1, 1, 1])
_HEX20 = ([1, -1, -1, 1, 1, -1, -1, 1, 0, -1, 0, 1, 0, -1, 0, 1, 1, -1, -1, 1],
          [1, 1, -1, -1, 1, 1, -1, -1, 1, 0, -1, 0, 1, 0, -1, 0, 1, 1, -1, -1],
          [1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 0, 0, 0, 0])
_HEX20R = ([-1, 1, 1, -1, -1, 1, 1, -1, 0, 1, 0, -1, 0, 1, 0, -1, -1, 1, 1, -1],
           [-1, -1, 1, 1, -1, -1, 1, 1, -1, 0, 1, 0, -1, 0, 1, 0, -1, -1, 1, 1],
           [-1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1, 0, 0, 0, 0])
_HEX27 = ([-1, 1, 1, -1, -1, 1, 1, -1, 0, 1, 0, -1, -1, 1, 1, -1, 0, 1, 0, -1, 0, 0, 1, 0, -1, 0, 0],
          [-1, -1, 1, 1, -1, -1, 1, 1, -1, 0, 1, 0, -1, -1, 1, 1, -1, 0, 1, 0, 0, -1, 0, 1, 0, 0, 0],
          [-1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 1, -1, 0, 0, 0, 0, 1, 0])
_PENTA15 = ([0, 1, 0, 0, 1, 0, .5, .5, 0, .5, .5, 0, 0, 1, 0],
            [0, 0, 1, 0, 0, 1, 0, .5, .5, 0, .5, .5, 0, 0, 1],
            [-1, -1, -1, 1, 1, 1, -1, -1, -1, 1, 1, 1, 0, 0, 0])
_TET10 = ([0, 0, 0, 1, 0, 0, 0, .5, .5, .5], [1, 0, 0, 0, .5, 0, .5, .5, 0, 0],
          [0, 1, 0, 0, .5, .5, 0, 0, .5, 0])
_Q4 = ([1, -1, -1, 1], [1, 1, -1, -1])
_Q8 = ([1, -1, -1, 1, 0, -1, 0, 1], [1, 1, -1, -1, 1, 0, -1, 0])
_Q8R = ([-1, 1, 1, -1, 0, 1, 0, -1], [-1, -1, 1, 1, -1, 0, 1, 0])
_Q9 = ([-1, 1, 1, -1, 0, 1, 0, -1, 0], [-1, -1, 1, 1, -1, 0, 1, 0, 0])
_T6 = ([0, 1, 0, .5, .5, 0], [0, 0, 1, 0, .5, .5])


# ---------------------------------------------------------------------- polynomial spaces
def _exponents(kind):
    """Monomial exponents of a shape's polynomial space."""
    cube = lambda p, d: [e for e in itertools.product(range(p + 1), repeat=d)]
    total = lambda p, d: [e for e in itertools.product(range(p + 1), repeat=d) if sum(e) <= p]
    if kind == "hex1":
        return [(0, 0, 0)]
    if kind == "hex8":
        return cube(1, 3)
    if kind == "hex20":                     # serendipity: at most one exponent equal to 2
        return [e for e in cube(2, 3) if sum(1 for a in e if a == 2) <= 1]
    if kind == "hex27":
        return cube(2, 3)
    if kind == "wedge6":
        return [(a, b, c) for (a, b) in total(1, 2) for c in range(2)]
    if kind == "wedge15":                   # P2(r, s) × P1(t) plus P1(r, s) t²
        return [(a, b, c) for (a, b) in total(2, 2) for c in range(2)] + [(a, b, 2) for (a, b) in total(1, 2)]
    if kind == "tet4":
        return total(1, 3)
    if kind == "tet10":
        return total(2, 3)
    if kind == "quad4":
        return cube(1, 2)
    if kind == "quad8":
        return [e for e in cube(2, 2) if sum(1 for a in e if a == 2) <= 1]
    if kind == "quad9":
        return cube(2, 2)
    if kind == "tri6":
        return total(2, 2)
    raise ValueError(kind)


class ShapeFunctions:
    """h(r) and ∂h/∂r of the interpolant of a polynomial space through given nodes."""

    def __init__(self, nodes, space):
        self.nodes = np.asarray(nodes, float).T.copy()          # (N, dim)
        self.exps = np.array(_exponents(space), np.int64)       # (M, dim)
        N, dim = self.nodes.shape
        if len(self.exps) != N or self.exps.shape[1] != dim:
            raise ValueError(f"{space}: {len(self.exps)} monomials for {N} nodes")
        V = self._monomials(self.nodes)
        self.coef = np.linalg.inv(V)                           # h = m(r) @ coef

    def _monomials(self, r):
        r = np.atleast_2d(r)
        return np.prod(r[:, None, :] ** self.exps[None, :, :], axis=2)

    def h(self, r):
        """(n, N) shape functions at the points r (n, dim)."""
        return self._monomials(r) @ self.coef

    def dh(self, r):
        """(n, N, dim) derivatives ∂h_k/∂r_i at the points r (n, dim)."""
        r = np.atleast_2d(r)
        n, dim = r.shape
        out = np.empty((n, len(self.exps), dim))
        for i in range(dim):
            e = self.exps.copy()
            factor = e[:, i].astype(float)
            e[:, i] = np.maximum(e[:, i] - 1, 0)
            out[:, :, i] = factor * np.prod(r[:, None, :] ** e[None, :, :], axis=2)
        return np.einsum("nmi,mk->nki", out, self.coef)


# ---------------------------------------------------------------------- integration rules
def gauss_line(n):
    return np.polynomial.legendre.leggauss(n)


def gauss_box(n, dim):
    x, w = gauss_line(n)
    pts = np.array(list(itertools.product(x, repeat=dim)))
    wts = np.prod(np.array(list(itertools.product(w, repeat=dim))), axis=1)
    return pts, wts


def triangle7():
    """The 7-point degree-5 rule on the unit triangle (area ½)."""
    a, b = (6 - np.sqrt(15)) / 21, (6 + np.sqrt(15)) / 21
    wa, wb = (155 - np.sqrt(15)) / 2400, (155 + np.sqrt(15)) / 2400
    pts = [(1 / 3, 1 / 3), (a, a), (1 - 2 * a, a), (a, 1 - 2 * a), (b, b), (1 - 2 * b, b), (b, 1 - 2 * b)]
    return np.array(pts), np.array([9 / 80, wa, wa, wa, wb, wb, wb])


def wedge21():
    tp, tw = triangle7()
    x, w = gauss_line(3)
    pts = np.array([(p[0], p[1], t) for t in x for p in tp])
    wts = np.array([a * b for b in w for a in tw])
    return pts, wts


def tet5():
    """The 5-point degree-3 rule on the unit tetrahedron (volume 1/6): the centroid with
    weight -2/15, the point (1/6, 1/6, 1/6) and its permutations with ½ with weight 3/40."""
    b, c = 1 / 6, 1 / 2
    pts = [(0.25, 0.25, 0.25), (b, b, b), (c, b, b), (b, c, b), (b, b, c)]
    return np.array(pts), np.array([-2 / 15, 3 / 40, 3 / 40, 3 / 40, 3 / 40])


def tet_conical(n):
    """Conical-product (Stroud) rule on the unit tetrahedron, n³ points, exact to degree
    2n - 1 (Gauss–Jacobi on the collapsed coordinates)."""
    from scipy.special import roots_jacobi      # SciPy's special functions: only this rule needs them
    a2, w2 = roots_jacobi(n, 2, 0)
    a1, w1 = roots_jacobi(n, 1, 0)
    a0, w0 = roots_jacobi(n, 0, 0)
    u2, u1, u0 = (1 + a2) / 2, (1 + a1) / 2, (1 + a0) / 2
    pts, wts = [], []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                x = u2[i]
                y = (1 - x) * u1[j]
                z = (1 - x - y) * u0[k]
                pts.append((x, y, z))
                wts.append(w2[i] * w1[j] * w0[k] / 64.0)
    return np.array(pts), np.array(wts)


def _wedge_mass():
    return wedge21()


# ---------------------------------------------------------------------- the shapes
@dataclass(frozen=True)
class SolidShape:
    """One solid element type: `nodes` (N, 3) natural coordinates in MBDyn's order, shape
    functions, the stiffness rule (points, weights), the consistent-mass rule, the pressure
    interpolation of its u/p-c variant (Np nodes: the first Np element nodes; Np = 1 means
    an element-constant pressure) and the VTK cell type of its corner-node picture."""
    name: str
    shape: ShapeFunctions
    rule: tuple
    mass_rule: tuple
    pressure: ShapeFunctions = None
    n_pressure: int = 0
    upc: bool = False
    corners: int = 8

    @property
    def n_nodes(self):
        return len(self.shape.nodes)


@dataclass(frozen=True)
class SurfaceShape:
    """One surface-load element type (pressure*/traction*): node coordinates (N, 2), shape
    functions and the integration rule."""
    name: str
    shape: ShapeFunctions
    rule: tuple

    @property
    def n_nodes(self):
        return len(self.shape.nodes)


@lru_cache(maxsize=None)
def solid_shape(name):
    """The SolidShape of an MBDyn solid element name (hexahedron8, ..., tetrahedron10upc)."""
    g2, g3 = gauss_box(2, 3), gauss_box(3, 3)
    base = name[:-3] if name.endswith("upc") else name[:-4] + "r" if name.endswith("upcr") else name
    upc = name != base
    table = {
        "hexahedron8": (_HEX8, "hex8", g2, g3, 8),
        "hexahedron20": (_HEX20, "hex20", g3, g3, 8),
        "hexahedron20r": (_HEX20R, "hex20", g2, g3, 8),
        "hexahedron27": (_HEX27, "hex27", g3, g3, 8),
        "pentahedron15": (_PENTA15, "wedge15", wedge21(), _wedge_mass(), 6),
        "tetrahedron10": (_TET10, "tet10", tet5(), tet_conical(3), 4),
    }
    if base not in table or (upc and base == "hexahedron27"):
        raise KeyError(name)
    coords, space, rule, mass_rule, corners = table[base]
    shape = ShapeFunctions(coords, space)
    pressure, n_p = None, 0
    if upc:
        if base == "hexahedron8":
            pressure, n_p = ShapeFunctions(([0], [0], [0]), "hex1"), 1
        else:
            first = tuple(np.asarray(c)[:corners] for c in coords)
            space_p = {8: "hex8", 6: "wedge6", 4: "tet4"}[corners]
            pressure, n_p = ShapeFunctions(first, space_p), corners
    return SolidShape(name, shape, rule, mass_rule, pressure, n_p, upc, corners)


SOLID_SHAPES = ("hexahedron8", "hexahedron20", "hexahedron20r", "hexahedron27", "pentahedron15",
                "tetrahedron10", "hexahedron8upc", "hexahedron20upc", "hexahedron20upcr", "pentahedron15upc",
                "tetrahedron10upc")


@lru_cache(maxsize=None)
def surface_shape(name):
    """The SurfaceShape of q4, q8, q8r, q9 or t6."""
    table = {"q4": (_Q4, "quad4", gauss_box(2, 2)), "q8": (_Q8, "quad8", gauss_box(3, 2)),
             "q8r": (_Q8R, "quad8", gauss_box(3, 2)), "q9": (_Q9, "quad9", gauss_box(3, 2)),
             "t6": (_T6, "tri6", triangle7())}
    coords, space, rule = table[name]
    return SurfaceShape(name, ShapeFunctions(coords, space), rule)


SURFACE_SHAPES = ("q4", "q8", "q8r", "q9", "t6")
