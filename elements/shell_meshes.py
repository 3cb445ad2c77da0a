"""Quadrilateral meshes of the classical shell benchmarks (set-up helpers, not hot path).

Every generator maps a structured (nu + 1) × (nv + 1) lattice of parameters (u, v) onto a
surface and returns `(X, quads, lattice)`: points (n, 3), quadrilaterals (ne, 4) as point
indices in MBDyn's node order (counter-clockwise about the normal ∂x/∂u × ∂x/∂v, starting
from the corner of largest u and v, as the `shell4` figure of MBDyn's input manual numbers
them), and the (n, 2) integer lattice coordinates (i, j) of every point.

- rectangle_mesh: a flat plate, optionally with interior nodes displaced (distorted mesh);
- cylinder_mesh: a patch of a circular cylinder of axis x (Scordelis-Lo roof, pinched
  cylinder), the angle measured from the +z crown towards +y;
- hemisphere_mesh: a quarter of a sphere between two polar angles (pinched hemisphere with a
  hole), azimuth from +x towards +y;
- twisted_strip_mesh: the MacNeal-Harder twisted beam, a strip whose cross-section line turns
  uniformly about the x axis;
- annulus_mesh: a flat annulus (slit annular plate: the slit at angle 0 keeps two distinct
  point rows at 0 and 2π).

`nodal_loads(X, quads, traction)` turns a load per unit area into consistent nodal forces of
the bilinear interpolation (2×2 Gauss on every quadrilateral)."""
import numpy as np

GAUSS_2 = np.array([-1.0, 1.0]) / np.sqrt(3.0)


def _lattice(nu, nv):
    """(n, 2) lattice coordinates, point k = j (nu + 1) + i, and the quads in MBDyn order."""
    i, j = np.meshgrid(np.arange(nu + 1), np.arange(nv + 1), indexing="xy")
    lattice = np.stack([i.ravel(), j.ravel()], axis=1)
    k = lambda a, b: b * (nu + 1) + a
    quads = np.array([[k(a + 1, b + 1), k(a, b + 1), k(a, b), k(a + 1, b)]
                      for b in range(nv) for a in range(nu)], dtype=np.int64)
    return lattice, quads


def _grid(nu, nv, u0, u1, v0, v1):
    lattice, quads = _lattice(nu, nv)
    u = u0 + (u1 - u0) * lattice[:, 0] / nu
    v = v0 + (v1 - v0) * lattice[:, 1] / nv
    return u, v, lattice, quads


def rectangle_mesh(a, b, nu, nv, distortion=0.0, rng=None):
    """The plate [0, a] × [0, b] in the plane z = 0; `distortion` moves every interior point
    by up to that fraction of the element size in x and y (random, `rng`)."""
    u, v, lattice, quads = _grid(nu, nv, 0.0, a, 0.0, b)
    X = np.stack([u, v, np.zeros_like(u)], axis=1)
    if distortion:
        rng = np.random.default_rng(0) if rng is None else rng
        inner = (lattice[:, 0] > 0) & (lattice[:, 0] < nu) & (lattice[:, 1] > 0) & (lattice[:, 1] < nv)
        shift = distortion * rng.uniform(-1.0, 1.0, (int(inner.sum()), 2)) * [a / nu, b / nv]
        X[inner, :2] += shift
    return X, quads, lattice


def cylinder_mesh(radius, x0, x1, phi0, phi1, nx, nphi):
    """Points (x, R sin φ, R cos φ) for x in [x0, x1], φ in [phi0, phi1] (radians); the
    normal ∂x/∂x × ∂x/∂φ points outwards."""
    x, phi, lattice, quads = _grid(nx, nphi, x0, x1, phi0, phi1)
    X = np.stack([x, radius * np.sin(phi), radius * np.cos(phi)], axis=1)
    return X, quads, lattice


def hemisphere_mesh(radius, theta0, theta1, n_azimuth, n_polar):
    """The quarter sphere of azimuth φ in [0, π/2] (from +x towards +y) and polar angle θ in
    [theta0, theta1] (from +z): points R (sin θ cos φ, sin θ sin φ, cos θ).  The lattice runs
    with u = φ and v = -θ so that the normal points outwards."""
    phi, mtheta, lattice, quads = _grid(n_azimuth, n_polar, 0.0, np.pi / 2, -theta1, -theta0)
    theta = -mtheta
    X = radius * np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], axis=1)
    return X, quads, lattice


def twisted_strip_mesh(length, width, twist, nx, nw):
    """The strip x in [0, L], s in [-w/2, w/2], whose cross-section line makes the angle
    α = twist · x / L with the y axis: points (x, s cos α, s sin α)."""
    x, s, lattice, quads = _grid(nx, nw, 0.0, length, -width / 2, width / 2)
    alpha = twist * x / length
    X = np.stack([x, s * np.cos(alpha), s * np.sin(alpha)], axis=1)
    return X, quads, lattice


def annulus_mesh(r_inner, r_outer, n_radial, n_angular, angle=2 * np.pi):
    """The flat annulus r in [Ri, Ro], θ in [0, angle] in the plane z = 0 (angle = 2π: a
    slit annulus, rows θ = 0 and θ = 2π distinct points).  u = r, v = θ (normal +z)."""
    r, theta, lattice, quads = _grid(n_radial, n_angular, r_inner, r_outer, 0.0, angle)
    X = np.stack([r * np.cos(theta), r * np.sin(theta), np.zeros_like(r)], axis=1)
    return X, quads, lattice


def _gauss_area_weights(X, quads):
    """(ne, 4 points, 4 nodes) shape-function values L_k and (ne, 4 points) area elements
    |∂x/∂ξ × ∂x/∂η| at the 2×2 Gauss points of the bilinear quadrilaterals (unit weights)."""
    P = np.asarray(X, float)[np.asarray(quads, np.int64)]                # (ne, 4, 3)
    corners = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], float)     # MBDyn order
    xi, eta = np.meshgrid(GAUSS_2, GAUSS_2, indexing="ij")
    xi, eta = xi.ravel(), eta.ravel()
    L = 0.25 * (1 + np.outer(xi, corners[:, 0])) * (1 + np.outer(eta, corners[:, 1]))
    dxi = 0.25 * corners[:, 0] * (1 + np.outer(eta, corners[:, 1]))
    deta = 0.25 * corners[:, 1] * (1 + np.outer(xi, corners[:, 0]))
    a = np.einsum("gk,ekc->egc", dxi, P)
    b = np.einsum("gk,ekc->egc", deta, P)
    return L, np.linalg.norm(np.cross(a, b), axis=2)


def nodal_loads(X, quads, traction):
    """(n, 3) consistent nodal forces of a constant load per unit area `traction` (3,) on the
    bilinear surface of the quadrilaterals: Σ ∫ L_k t dA with 2×2 Gauss."""
    L, dA = _gauss_area_weights(X, quads)
    share = np.einsum("gk,eg->ek", L, dA)                                # ∫ L_k dA per element
    w = np.zeros(len(X))
    np.add.at(w, np.asarray(quads, np.int64).ravel(), share.ravel())
    return np.outer(w, np.asarray(traction, float))


def quad_areas(X, quads):
    """Area of every bilinear quadrilateral (2×2 Gauss)."""
    return _gauss_area_weights(X, quads)[1].sum(axis=1)
