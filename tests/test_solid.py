"""Solid elements against physics (issue 14): objectivity, action = reaction, constant-stress
patch tests on distorted meshes (static, large strain), exact mass and inertia, momentum
conservation, cantilever bending frequencies against Euler–Bernoulli."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.state import Context, InvalidConfiguration
from mbdae.engine.core import rotations as rot
from mbdae.engine.core.solid_laws import hookean_linear_elastic_isotropic, linear_viscoelastic_generic, hookean_matrix
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.elements.solid_shapes import solid_shape
from mbdae.elements.solid_meshes import block_mesh, box_mesh

SHAPES = ("hexahedron8", "hexahedron20", "hexahedron20r", "hexahedron27", "pentahedron15", "tetrahedron10")
E, NU = 1000.0, 0.3


def mesh_model(shape, points, conn, law, kind="static displacement", density=1.0, lumped=False, velocity=None):
    m = Model()
    for k, x in enumerate(points):
        m.structural_node(k + 1, kind, position=x, velocity=None if velocity is None else velocity[k])
    for e, c in enumerate(conn):
        m.solid(e + 1, shape, c + 1, law, density, lumped_mass=lumped)
    return m


def internal_forces(system, st, dcoef=0.5):
    """(ne, N, 3) element loads r_u of the (single) solid family at state st."""
    fam = system.families[0]
    ctx = Context(st.t, st.y, st.yp, system.kinematics(st, dcoef), "regular", None, st.families)
    res = fam.residual_blocks(ctx)
    return res[fam._blocks["r_u"]].reshape(fam.ne, -1, 3), fam


def deformed_state(system, rng, strain=0.1, rate=1.0):
    st = system.initial_state(0.0)
    nodes = system.nodes
    A = strain * rng.normal(size=(3, 3))
    st.y[nodes.ix] = nodes.x0 + nodes.x0 @ A.T + 0.02 * rng.normal(size=nodes.x0.shape)
    st.yp[nodes.ix] = rate * rng.normal(size=nodes.x0.shape)
    return st


def kelvin_voigt():
    D = hookean_matrix(E, NU)
    return linear_viscoelastic_generic(D, 0.05 * D)


@pytest.mark.parametrize("shape", SHAPES)
def test_objectivity_and_action_reaction(shape):
    """Internal forces of a deformed, moving element: Σ f = 0 and Σ x × f = 0 (action =
    reaction), and a rigid rotation Q plus a rigid velocity field rotates them by Q."""
    rng = np.random.default_rng(1)
    P, conn, _ = block_mesh(shape, 1, 1.0, 0.2, rng)
    system = System(mesh_model(shape, P, conn, kelvin_voigt(), kind="dynamic displacement"))
    st = deformed_state(system, rng)
    f, fam = internal_forces(system, st)
    x = st.y[system.nodes.ix][fam.conn]
    scale = np.abs(f).max()
    assert scale > 1.0
    assert np.allclose(f.sum(axis=1), 0.0, atol=1e-12 * scale)
    assert np.allclose(np.cross(x, f).sum(axis=1), 0.0, atol=1e-12 * scale)
    Q = rot.exp_rotvec(rng.normal(size=3))
    c, v0, w0 = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    st2 = st.copy()
    nodes = system.nodes
    xq = st.y[nodes.ix] @ Q.T + c
    st2.y[nodes.ix] = xq
    st2.yp[nodes.ix] = st.yp[nodes.ix] @ Q.T + v0 + np.cross(w0, xq)
    f2, _ = internal_forces(system, st2)
    assert np.allclose(f2, f @ Q.T, atol=1e-11 * scale)


def solve_free(system, st, free, tol=1e-12, maxit=30):
    """Static Newton on the free position rows (dCoef = 1: x += Δ) with the others held."""
    for _ in range(maxit):
        f, _, J = system.evaluate(st, 1.0)
        if np.abs(f[free]).max() < tol:
            return st
        J = J.tocsc()[free][:, free].toarray()
        dx = np.linalg.solve(J, -f[free])
        st.y[free] += dx
    raise AssertionError(f"no convergence: {np.abs(f[free]).max()}")


@pytest.mark.parametrize("shape", SHAPES)
def test_patch_test_large_strain(shape):
    """Constant-stress patch test on a distorted mesh at large strain (St. Venant–Kirchhoff):
    with the boundary nodes on an affine field x = X + A X + b (strains ~15 %), the interior
    nodes are in equilibrium there (residual 0) and Newton from a perturbed start returns
    to it to 1e-9 relative."""
    rng = np.random.default_rng(2)
    P, conn, on_boundary = block_mesh(shape, 3 if shape == "hexahedron8" else 2, 1.0, 0.25, rng)
    system = System(mesh_model(shape, P, conn, hookean_linear_elastic_isotropic(E, NU)))
    nodes = system.nodes
    A = 0.15 * rng.normal(size=(3, 3))
    b = rng.normal(size=3)
    affine = nodes.x0 + nodes.x0 @ A.T + b
    st = system.initial_state(0.0)
    st.y[nodes.ix] = affine
    f = system.evaluate(st, 1.0, want_jac=False)[0]
    interior = nodes.ix[~on_boundary].ravel()
    force_scale = E * 0.15 / len(conn) ** (1 / 3)
    assert np.abs(f[interior]).max() < 1e-9 * force_scale
    assert np.abs(f[nodes.ix[on_boundary]]).max() > 1e-3 * force_scale      # the boundary carries the stress
    st.y[interior] += 0.02 * rng.normal(size=len(interior))
    solve_free(system, st, interior, tol=1e-12 * force_scale)
    assert np.abs(st.y[nodes.ix] - affine).max() < 1e-9 * np.abs(nodes.x0 @ A.T).max()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("lumped", [False, True])
def test_mass_and_inertia(shape, lumped):
    """Total mass ρV exactly (consistent and lumped, eqs. 12.47–12.52); the consistent mass
    gives the exact second moment ∫ρ x xᵀ dV of the box; the lumped one converges to it."""
    rho = 7.5
    exact = rho * (np.full((3, 3), 0.25) + np.eye(3) * (1 / 3 - 0.25))     # ∫ x_i x_j over [0, 1]³
    errors = []
    for n in (2, 4):
        P, conn, _ = block_mesh(shape, n)
        fam = System(mesh_model(shape, P, conn, hookean_linear_elastic_isotropic(E, NU), density=rho,
                                kind="dynamic displacement", lumped=lumped)).families[0]
        assert abs(fam.Me.sum() - rho) < 1e-12 * rho
        x = P[conn]
        second = np.einsum("eab,eai,ebj->ij", fam.Me, x, x)
        errors.append(np.abs(second - exact).max())
    if not lumped:
        assert errors[0] < 1e-12 * rho
    else:
        assert errors[1] < max(errors[0] / 3.5, 1e-12 * rho), errors          # O(h²) (or exact: hexahedron27)


def test_inverted_element_is_named():
    """det F <= 0 raises InvalidConfiguration naming the element and the time."""
    P, conn, _ = block_mesh("hexahedron8", 1)
    system = System(mesh_model("hexahedron8", P, conn, hookean_linear_elastic_isotropic(E, NU)))
    st = system.initial_state(0.25)
    st.y[system.nodes.ix[:, 0]] *= -1.0                   # mirror: det F = -1
    with pytest.raises(InvalidConfiguration, match=r"hexahedron8 1: det F <= 0 .* t = 0\.25"):
        system.evaluate(st, 1.0)


def test_degenerate_element_is_refused():
    P, conn, _ = block_mesh("tetrahedron10", 1)
    P[:, 0] *= -1.0                                   # mirrored: every element inside out
    with pytest.raises(ValueError, match=r"tetrahedron10 1: degenerate or inverted element"):
        System(mesh_model("tetrahedron10", P, conn, hookean_linear_elastic_isotropic(E, NU)))


def test_semi_discrete_momenta_are_conserved():
    """d/dt Σβ = -Σ k = 0 and d/dt Σ x × β = Σ ẋ × M ẋ - Σ x × k = 0 at any state (consistent
    mass, free body, no gravity)."""
    rng = np.random.default_rng(4)
    P, conn, _ = block_mesh("hexahedron20", 2, 1.0, 0.2, rng)
    system = System(mesh_model("hexahedron20", P, conn, kelvin_voigt(), kind="dynamic displacement", density=3.0))
    st = deformed_state(system, rng)
    f, fam = internal_forces(system, st)
    nodes = system.nodes
    k = np.zeros((nodes.n, 3))
    np.add.at(k, fam.conn.ravel(), f.reshape(-1, 3))
    x, v = st.y[nodes.ix], st.yp[nodes.ix]
    beta = np.zeros((nodes.n, 3))
    np.add.at(beta, fam.conn.ravel(), np.einsum("eab,ebi->eai", fam.Me, v[fam.conn]).reshape(-1, 3))
    dL = np.cross(v, beta).sum(axis=0) - np.cross(x, k).sum(axis=0)
    assert np.abs(k.sum(axis=0)).max() < 1e-12 * np.abs(k).max()
    assert np.abs(dL).max() < 1e-12 * (np.abs(k).max() + np.abs(beta).max())


def test_free_flight_momentum():
    """A spinning, vibrating free block (hexahedron8, St. Venant–Kirchhoff, consistent mass):
    the linear momentum keeps its initial value to 1e-10 relative (every method conserves
    linear invariants); the angular momentum, conserved exactly by the semi-discrete
    equations (test above), drifts at the integrator's second order: halving h divides
    the drift by about 4 (no MBDyn integrator conserves quadratic invariants exactly)."""
    rng = np.random.default_rng(5)
    P, conn, _ = block_mesh("hexahedron8", 2, 0.1, 0.2, rng)
    w = np.array([0.0, 0.0, 20.0])
    v0 = np.cross(w, P - P.mean(axis=0)) + 0.5 * rng.normal(size=P.shape) + np.array([1.0, 2.0, 0.5])
    model = mesh_model("hexahedron8", P, conn, hookean_linear_elastic_isotropic(2e5, 0.3), kind="dynamic displacement",
                       density=1000.0, velocity=v0)
    fam = System(model).families[0]
    Ms = np.zeros((len(P), len(P)))
    for e, c in enumerate(fam.conn):
        Ms[np.ix_(c, c)] += fam.Me[e]
    drift = []
    for h in (2e-3, 1e-3):
        r = InitialValueProblem(model, final_time=0.04, time_step=h, method="ms", rho=0.6, tolerance=1e-12).run()
        p = np.einsum("ab,tbi->ti", Ms, r.v)
        L = np.einsum("ab,tai,tbj->tij", Ms, r.x, r.v)
        L = np.stack([L[:, 1, 2] - L[:, 2, 1], L[:, 2, 0] - L[:, 0, 2], L[:, 0, 1] - L[:, 1, 0]], axis=1)
        assert np.abs(p - p[0]).max() < 1e-10 * np.abs(p[0]).max()
        drift.append(np.abs(L[-1] - L[0]).max() / np.abs(L[0]).max())
    assert drift[1] < drift[0] / 3.5, drift


@pytest.mark.parametrize("shape,n", [("hexahedron20", (10, 1)), ("hexahedron27", (10, 1)),
                                     ("tetrahedron10", (10, 2)), ("pentahedron15", (10, 1))])
def test_cantilever_bending_frequency(shape, n):
    """First bending frequency of a clamped slender bar (L/h = 10 or 20) against Euler–Bernoulli,
    ω = (1.8751)² √(EI/(ρA L⁴)), within the shear/rotary-inertia correction (< 2 %)."""
    L, h, rho = 1.0, 0.1, 1000.0
    nx, ny = n
    P, conn, _ = box_mesh(shape, (nx * ny, ny, ny), (nx * h, h, h))
    system = System(mesh_model(shape, P, conn, hookean_linear_elastic_isotropic(E, 0.0), density=rho,
                               kind="dynamic displacement"))
    fam = system.families[0]
    nodes = system.nodes
    st = system.initial_state(0.0)
    J = system.evaluate(st, 1.0)[2].tocsc()
    free_nodes = np.flatnonzero(P[:, 0] > 1e-9)
    free = nodes.ix[free_nodes].ravel()
    K = J[free][:, free]
    N = fam.conn.shape[1]
    rows = np.repeat(fam.conn, N, axis=1).ravel()
    cols = np.tile(fam.conn, (1, N)).ravel()
    M = sp.csc_matrix((fam.Me.ravel(), (rows, cols)), shape=(len(P), len(P)))
    Mf = sp.kron(M[free_nodes][:, free_nodes], sp.eye(3)).tocsc()
    w2 = eigsh(K, k=2, M=Mf, sigma=0.0, which="LM")[0]
    from_eig = np.sqrt(np.sort(w2))
    I, A = h ** 4 / 12, h * h
    exact = 1.8751 ** 2 * np.sqrt(E * I / (rho * A * (nx * h) ** 4))
    assert abs(from_eig[0] - exact) / exact < 0.02, (from_eig, exact)
