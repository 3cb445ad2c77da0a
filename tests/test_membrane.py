"""The 4-node EAS membrane (`membrane4eas`, elements/membrane.py): action = reaction and
objectivity, the patch test, a uniaxial large stretch against the Saint-Venant–Kirchhoff
closed form, the vibration of a prestressed square membrane against ω_mn, agreement with
MBDyn 1.7.3 on a deck, the deck card's errors and the point masses on displacement nodes.
(The FD Jacobian checks are the generated ones, tests/test_element_checks.py.)"""
import os

import numpy as np
import pytest

from mbdae.cli import main
from mbdae.engine.core import rotations as rot
from mbdae.engine.core.state import Context
from mbdae.engine.drivers.eigen import EigenSettings, analyze
from mbdae.engine.io.mbdyn import reference as mr
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.elements.membrane import isotropic_membrane_law, SAMPLES as MEMBRANE_SAMPLES
from samples import randomize_state, rigid_motion

LONG = os.environ.get("MBDAE_LONG") == "1"


def blocks_of(system, st, dcoef=0.4):
    fam = system.families[0]
    ctx = Context(st.t, st.y, st.yp, system.kinematics(st, dcoef), "regular")
    return fam, ctx, fam.residual_blocks(ctx)


@pytest.mark.parametrize("i", range(len(MEMBRANE_SAMPLES["membrane"])))
def test_action_reaction_and_objectivity(i):
    """Σ node forces = 0, Σ x × f = 0; a rigid motion turns the node forces and leaves the EAS
    rows and the resultants unchanged."""
    rng = np.random.default_rng(21 + i)
    system = System(MEMBRANE_SAMPLES["membrane"][i](Model(), rng))
    st = randomize_state(system, rng)
    st.y[system.nodes.ig_rot] = 0.0
    fam, ctx, (fx, fb) = blocks_of(system, st)
    f = fx.reshape(4, 3)
    x = ctx.kin.x[fam.conn[0]]
    scale = np.abs(f).max()
    assert scale > 1.0
    assert np.allclose(f.sum(axis=0), 0.0, atol=1e-12 * scale)
    assert np.allclose(np.cross(x, f).sum(axis=0), 0.0, atol=1e-11 * scale * np.abs(x).max())
    Q = rot.exp_rotvec(rng.normal(size=3))
    st2 = rigid_motion(st, system.nodes, Q, rng.normal(size=3), rng.normal(size=3), rng.normal(size=3))
    _, ctx2, (gx, gb) = blocks_of(system, st2)
    assert np.allclose(f @ Q.T, gx.reshape(4, 3), atol=1e-11 * scale)
    assert np.allclose(fb, gb, atol=1e-11 * np.abs(fb).max())
    assert np.allclose(fam.resultants(ctx), fam.resultants(ctx2), rtol=1e-11)


# ------------------------------------------------------------------ static solves by hand
def solve(system, st, free, tol=1e-11):
    """Newton on the rows/unknowns `free` (the others held at their values in st)."""
    for _ in range(30):
        f, _, J = system.evaluate(st, 1.0)
        if np.abs(f[free]).max() < tol:
            return f
        st.y[free] -= np.linalg.solve(J.toarray()[np.ix_(free, free)], f[free])
    raise AssertionError(f"no convergence: |f| = {np.abs(f[free]).max():.3e}")


def isotropic_continuum(E, nu, h):
    """n = D ε with the engineering shear ε12: D33 = G h (an isotropic relation)."""
    C = E * h / (1 - nu ** 2)
    return np.array([[C, C * nu, 0.0], [C * nu, C, 0.0], [0.0, 0.0, E * h / (2 * (1 + nu))]])


def patch_mesh(distorted, mbdyn):
    """2×2 elements on a 3×3-node unit-spaced patch, in a tilted plane; `distorted`: the
    interior and mid-side nodes moved (general quadrilaterals), else a uniformly sheared
    (parallelogram) mesh."""
    X = np.array([[i * 1.0, j * 1.0, 0.0] for j in range(3) for i in range(3)])
    if distorted:
        X[4, :2] += [0.23, -0.17]
        X[1, 0] += 0.15
        X[7, 0] -= 0.2
        X[3, 1] += 0.1
        X[5, 1] -= 0.12
    else:
        X[:, 0] += 0.3 * X[:, 1]
    R = rot.exp_rotvec(np.array([0.3, -0.5, 0.2]))
    X = X @ R.T
    m = Model()
    for k, x in enumerate(X):
        m.structural_node(k + 1, "static displacement", position=x)
    D = isotropic_continuum(1.0e3, 0.3, 0.1)
    q = lambda i, j: 3 * j + i + 1                           # noqa: E731
    for e, (i, j) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1)]):
        m.membrane(e + 1, (q(i + 1, j + 1), q(i, j + 1), q(i, j), q(i + 1, j)), D, prestress=(3.0, 3.0, 0.0),
                   mbdyn=mbdyn)
    return m, X


def patch_error(distorted, mbdyn):
    """Boundary nodes on an affine (finite) deformation x = A X + c; the interior node and the
    EAS parameters solved: (error of the interior node, spread of the resultant tensor over
    the Gauss points, max |β|)."""
    m, X = patch_mesh(distorted, mbdyn)
    system = System(m)
    st = system.initial_state(0.0)
    A = np.eye(3) + np.array([[0.3, 0.1, 0.05], [-0.05, 0.2, 0.1], [0.1, -0.2, 0.15]])
    c = np.array([0.1, 0.2, 0.3])
    ix = system.nodes.ix
    st.y[ix] = X @ A.T + c
    st.y[ix[4]] += 0.05                                  # start the interior node off the solution
    fam = system.families[0]
    solve(system, st, np.concatenate([ix[4], fam.brow.ravel()]))
    err = np.abs(st.y[ix[4]] - (A @ X[4] + c)).max()
    # the resultant tensor (reference-local components → global) is the same at every point
    # uniform resultants: the invariants of the tensor (its components are in each element's
    # own frame) are the same at every Gauss point
    ctx = Context(st.t, st.y, st.yp, system.kinematics(st, 1.0), "regular")
    n = fam.gauss_resultants(ctx).reshape(-1, 3)
    invariants = np.c_[n[:, 0] + n[:, 1], (n[:, 0] * n[:, 1] - n[:, 2] ** 2) / np.abs(n).max()]
    return err, np.ptp(invariants, axis=0).max(), np.abs(st.y[fam.brow]).max(), n


def test_patch_test_distorted_mesh():
    """The consistent variant (mbdyn=False) reproduces the affine field to 1e-9 with uniform
    resultants and β = 0 on a distorted mesh."""
    err, spread, beta, n = patch_error(distorted=True, mbdyn=False)
    assert err < 1e-9 and spread < 1e-9 * np.abs(n).max() and beta < 1e-9, (err, spread, beta)


def test_patch_test_mbdyn_element():
    """MBDyn's element passes the patch test where its per-point frames agree (a parallelogram
    mesh), and misses it on a distorted mesh (its strain frames turn between the Gauss
    points, so the EAS rows do not vanish at a uniform stress: membrane_kernel docstring)."""
    err, spread, beta, n = patch_error(distorted=False, mbdyn=True)
    assert err < 1e-9 and spread < 1e-9 * np.abs(n).max() and beta < 1e-9, (err, spread, beta)
    err, spread, beta, n = patch_error(distorted=True, mbdyn=True)
    assert 1e-4 < err < 1e-2 and beta > 1e-4, (err, beta)


@pytest.mark.parametrize("mbdyn", [True, False])
def test_uniaxial_large_stretch(mbdyn):
    """A rectangle (2×2 unequal elements) stretched to λ = 1.6 along x, free laterally: the
    Saint-Venant–Kirchhoff membrane (n = D E) gives the lateral stretch μ = √(1 - ν(λ² - 1))
    and the end force F = E h b λ (λ² - 1)/2 (n11 = E h E11, F = n11 λ b per reference width)."""
    E, nu, h, a, b, lam = 2.0e3, 0.3, 0.05, 2.0, 1.0, 1.6
    xs, ys = [0.0, 0.7, a], [0.0, 0.4, b]
    m = Model()
    lab = lambda i, j: 3 * j + i + 1                      # noqa: E731
    for j in range(3):
        for i in range(3):
            m.structural_node(lab(i, j), "static displacement", position=[xs[i], ys[j], 0.0])
    law = isotropic_membrane_law(E=E, nu=nu, thickness=h) if mbdyn else isotropic_continuum(E, nu, h)
    for j in range(2):
        for i in range(2):
            m.membrane(2 * j + i + 1, (lab(i + 1, j + 1), lab(i, j + 1), lab(i, j), lab(i + 1, j)), law, mbdyn=mbdyn)
    system = System(m)
    st = system.initial_state(0.0)
    ix = system.nodes.ix
    left = [lab(0, j) - 1 for j in range(3)]
    right = [lab(2, j) - 1 for j in range(3)]
    st.y[ix[right, 0]] = lam * a
    held = np.zeros(system.n, bool)
    held[ix[left, 0]] = held[ix[right, 0]] = True
    held[ix[0, 1]] = True                                    # y of one corner
    held[ix[:, 2]] = True                                    # flat: no out-of-plane stiffness
    f = solve(system, st, np.flatnonzero(~held))
    mu = np.sqrt(1 - nu * (lam ** 2 - 1))
    y = st.y[ix[:, 1]].reshape(3, 3)
    assert np.allclose(y, np.array(ys)[:, None] * mu, rtol=1e-10, atol=1e-12)
    F = -f[ix[right, 0]].sum()                  # the load that holds the right end (r = -f_ext)
    assert F == pytest.approx(-E * h * b * lam * (lam ** 2 - 1) / 2, rel=1e-10)


# ------------------------------------------------------------------ vibration
def prestressed_square(N, a=1.0, T=10.0, rho_h=0.5, mbdyn=True):
    """N×N membrane elements on a clamped boundary (static structural nodes held by clamps),
    isotropic prestress T, interior dynamic displacement nodes with lumped masses ρh Δ²
    (bodies on displacement nodes: point masses), in-plane stiffness 100 T (in-plane modes
    far above the first transverse ones)."""
    m = Model()
    d = a / N
    lab = lambda i, j: (N + 1) * j + i + 1               # noqa: E731
    for j in range(N + 1):
        for i in range(N + 1):
            edge = i in (0, N) or j in (0, N)
            m.structural_node(lab(i, j), "static" if edge else "dynamic displacement", position=[i * d, j * d, 0.0])
            if edge:
                m.clamp(lab(i, j), lab(i, j))
            else:
                m.body(lab(i, j), lab(i, j), rho_h * d * d)
    C = 100.0 * T
    D = np.array([[C, 0.3 * C, 0.0], [0.3 * C, C, 0.0], [0.0, 0.0, 0.35 * C]])
    for j in range(N):
        for i in range(N):
            m.membrane(N * j + i + 1, (lab(i + 1, j + 1), lab(i, j + 1), lab(i, j), lab(i + 1, j)), D, (T, T, 0.0),
                       mbdyn=mbdyn)
    return m


def transverse_frequencies(N, **kw):
    system = System(prestressed_square(N, **kw))
    res = analyze(system, system.initial_state(0.0), EigenSettings((0.0,)))
    lam = res.lam[res.selected]
    return np.sort(lam.imag[lam.imag > 1e-6])[:4]


def test_prestressed_membrane_frequencies_converge():
    """ω_mn = π √(T/(ρh)) √((m/a)² + (n/a)²) for (1,1), (1,2), (2,1), (2,2): the eigen driver's
    frequencies approach them from below at O(Δ²) (lumped mass).  Observed relative errors
    (N = 4, 8, 12): ω11 -7.43 %, -1.91 %, -0.853 %; ω22 -26.5 %, -7.43 %, -3.37 %."""
    T, rho_h, a = 10.0, 0.5, 1.0
    exact = np.pi * np.sqrt(T / rho_h) * np.sqrt(np.array([2.0, 5.0, 5.0, 8.0])) / a
    meshes = (4, 8, 12) if LONG else (4, 8)
    errors = [transverse_frequencies(N, T=T, rho_h=rho_h, a=a) / exact - 1 for N in meshes]
    assert np.allclose(errors[0], [-0.0743, -0.1563, -0.1563, -0.2649], atol=5e-4)
    assert np.allclose(errors[1], [-0.0191, -0.0416, -0.0416, -0.0743], atol=5e-4)
    for coarse, fine, ratio in zip(errors, errors[1:], [(8 / 4) ** 2, (12 / 8) ** 2]):
        assert np.all(fine < 0) and np.all(coarse / fine > 0.85 * ratio)
        assert coarse[0] / fine[0] == pytest.approx(ratio, rel=0.05)


# ------------------------------------------------------------------ MBDyn 1.7.3
MBDYN_DECK = """begin: data;
  problem: initial value;
end: data;
begin: initial value;
  initial time: 0.;
  final time: 1.;
  time step: 0.5;
  method: ms, .6;
  tolerance: 1e-10;
  max iterations: 30;
  derivatives tolerance: 1e10;
end: initial value;
begin: control data;
  structural nodes: 6;
  joints: 2;
  plates: 2;
  forces: 4;
end: control data;
begin: nodes;
  structural: 1, static displacement, 1.1, 0.9, 0., null;
  structural: 2, static displacement, 0., 1., 0., null;
  structural: 3, static, 0., 0., 0., eye, null, null;
  structural: 4, static, 1., 0.1, 0., eye, null, null;
  structural: 5, static displacement, 1.2, 2.0, 0., null;
  structural: 6, static displacement, 0.1, 2.1, 0.2, null;
end: nodes;
begin: elements;
  joint: 3, clamp, 3, node, node;
  joint: 4, clamp, 4, node, node;
  membrane4eas: 10, 1, 2, 3, 4, isotropic, E, 1.e6, nu, 0.3, thickness, 0.01, prestress, 100., 200., 10.;
  membrane4eas: 20, 5, 6, 2, 1, sym, 1.e4, 3.e3, 100., 2.e4, -200., 5.e3, prestress, 150., 50., 0.;
  force: 1, absolute displacement, 1, 1., 0.5, 0.3, mult, time, const, 1000.;
  force: 2, absolute displacement, 2, -0.2, 1., 0.1, mult, time, const, 1000.;
  force: 5, absolute displacement, 5, 0.1, 1., -0.5, mult, time, const, 300.;
  force: 6, absolute displacement, 6, -0.3, 1., 0.4, mult, time, const, 300.;
end: elements;
"""
# MBDyn 1.7.3 (/opt/mbdyn/bin/mbdyn -f deck.mbd -o out) on MBDYN_DECK: the last block of
# out.pla (n11, n22, n12 at the four Gauss points) and of out.mov (positions, velocities)
MBDYN_PLA = {
    10: [7.180321e+02, 2.282630e+03, 4.601772e+02, 7.097289e+02, 1.385880e+03, 4.103578e+02,
         1.271580e+03, 1.385880e+03, 4.103578e+02, 1.279883e+03, 2.282630e+03, 4.601772e+02],
    20: [7.795967e+01, 2.391032e+02, -1.443042e+02, 7.807391e+01, 8.151959e+02, -1.489881e+02,
         2.566031e+02, 8.151959e+02, -1.489881e+02, 2.564888e+02, 2.391032e+02, -1.443042e+02]}
MBDYN_MOV = {
    1: [1.261380e+00, 8.902216e-01, 2.285901e-01, -1.522871e-01, 2.521182e-01, -7.021561e-01],
    2: [1.003033e-01, 1.190482e+00, 1.103918e-01, -1.063969e-01, -7.098142e-02, -4.060051e-01],
    5: [1.206369e+00, 2.016952e+00, -3.663887e-01, 1.327639e-01, 3.703433e-01, 1.076294e+00],
    6: [5.852653e-01, 2.163658e+00, 7.126879e-01, -1.011848e+00, 1.287210e-01, -1.408910e+00]}


def run_deck(tmp_path, text, name="deck.mbd"):
    path = tmp_path / name
    path.write_text(text)
    d = read_deck(str(path), echo=lambda *a: None)
    prefix = str(tmp_path / "out")
    d.run(prefix)
    return prefix


def test_agrees_with_mbdyn(tmp_path):
    """Two membranes (a skewed one with the isotropic law, a warped one with `sym`; prestress;
    displacement and clamped structural nodes; absolute displacement forces) to MBDyn's
    printed digits (7 significant)."""
    prefix = run_deck(tmp_path, MBDYN_DECK)
    pla = mr.blocks(mr.read_lines(prefix + ".pla"))
    mov = mr.blocks(mr.read_lines(prefix + ".mov"))
    assert len(pla) == 3
    for label, ref in MBDYN_PLA.items():
        assert np.allclose(pla[-1][label], ref, rtol=6e-7, atol=1e-9), label
    for label, ref in MBDYN_MOV.items():
        got = np.asarray(mov[-1][label], float)
        assert np.allclose(np.r_[got[0:3], got[6:9]], ref, rtol=6e-7, atol=1e-9), label


def dynamic_deck(N=3, T=10.0, m=0.05):
    """A clamped square membrane (N×N elements, unit side, prestress T) with point masses on its
    interior dynamic displacement nodes, the interior nodes given a transverse velocity."""
    nodes, elems, joints, bodies = [], [], [], []
    lab = lambda i, j: (N + 1) * j + i + 1
    for j in range(N + 1):
        for i in range(N + 1):
            x, y = i / N + (0.03 * (j - 1) if 0 < i < N else 0.0), j / N + (0.02 * i if 0 < j < N else 0.0)
            if i in (0, N) or j in (0, N):
                nodes.append(f"  structural: {lab(i, j)}, static, {x!r}, {y!r}, 0., eye, null, null;")
                joints.append(f"  joint: {lab(i, j)}, clamp, {lab(i, j)}, node, node;")
            else:
                vz = 0.5 * (i + 2 * j)
                nodes.append(f"  structural: {lab(i, j)}, dynamic displacement, {x!r}, {y!r}, 0., 0.1, 0., {vz!r};")
                bodies.append(f"  body: {lab(i, j)}, {lab(i, j)}, {m!r};")
    for j in range(N):
        for i in range(N):
            elems.append(f"  membrane4eas: {N * j + i + 1}, {lab(i + 1, j + 1)}, {lab(i, j + 1)}, {lab(i, j)}, "
                         f"{lab(i + 1, j)}, isotropic, E, 1.e4, nu, 0.3, thickness, 0.01, prestress, {T!r}, {T!r}, 0.;")
    return "\n".join([
        "begin: data;", "  problem: initial value;", "end: data;",
        "begin: initial value;", "  initial time: 0.;", "  final time: 0.2;", "  time step: 1e-3;",
        "  method: ms, .6;", "  tolerance: 1e-10;", "  max iterations: 20;", "  derivatives tolerance: 1e10;",
        "end: initial value;",
        "begin: control data;", f"  structural nodes: {len(nodes)};", f"  joints: {len(joints)};",
        f"  rigid bodies: {len(bodies)};", f"  plates: {len(elems)};", "end: control data;",
        "begin: nodes;"] + nodes + ["end: nodes;", "begin: elements;"] + joints + bodies + elems
        + ["end: elements;", ""])


# MBDyn 1.7.3 (/opt/mbdyn/bin/mbdyn -f deck.mbd -o out) on dynamic_deck(): x_z, v_z of the
# interior nodes in out.mov and n11, n22, n12 at the first Gauss point of element 5 in
# out.pla, at t = 0.1 and 0.2
MBDYN_DYNAMIC = {
    100: ({6: [0.08757496, -0.4454336], 7: [0.09821186, -0.9491501], 10: [0.09646689, -1.44726],
           11: [0.08033839, -2.197017]}, [12.26133, 12.67834, -0.1162666]),
    200: ({6: [-0.07287119, -1.724961], 7: [-0.09292701, -1.507267], 10: [-0.1016415, -1.062597],
           11: [-0.1015669, 0.1252234]}, [11.79658, 12.67298, -0.3209595])}


def test_dynamic_deck_agrees_with_mbdyn(tmp_path):
    """A clamped, prestressed 3×3 membrane with point masses on its interior dynamic
    displacement nodes, set vibrating: 200 steps of `ms` to MBDyn's printed digits."""
    prefix = run_deck(tmp_path, dynamic_deck())
    mov = mr.blocks(mr.read_lines(prefix + ".mov"))
    pla = mr.blocks(mr.read_lines(prefix + ".pla"))
    assert len(mov) == len(pla) == 201
    for step, (nodes, n) in MBDYN_DYNAMIC.items():
        for label, ref in nodes.items():
            got = np.asarray(mov[step][label], float)
            assert np.allclose(got[[2, 8]], ref, rtol=6e-7, atol=1e-12), (step, label)
        assert np.allclose(np.asarray(pla[step][5], float)[:3], n, rtol=6e-7), step


# ------------------------------------------------------------------ card and errors
def parse(tmp_path, text):
    path = tmp_path / "deck.mbd"
    path.write_text(text)
    return read_deck(str(path), echo=lambda *a: None)


def with_membrane(card, extra_nodes=""):
    """MBDYN_DECK with its first membrane card replaced."""
    old = "  membrane4eas: 10, 1, 2, 3, 4, isotropic, E, 1.e6, nu, 0.3, thickness, 0.01, prestress, 100., 200., 10.;"
    text = MBDYN_DECK.replace(old, card)
    return text.replace("end: nodes;", extra_nodes + "end: nodes;")


def line_of(text, needle):
    return text[:text.index(needle)].count("\n") + 1


ISO = [[3200 / 3, 800 / 3, 0], [800 / 3, 3200 / 3, 0], [0, 0, 800]]


@pytest.mark.parametrize("law,D", [
    ("matr, 1., 2., 3., 4., 5., 6., 7., 8., 9.", [[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
    ("1., 2., 3., 4., 5., 6., 7., 8., 9.", [[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
    ("sym, 1., 2., 3., 4., 5., 6.", [[1, 2, 3], [2, 4, 5], [3, 5, 6]]),
    ("diag, 1., 2., 3.", [[1, 0, 0], [0, 2, 0], [0, 0, 3]]),
    ("isotropic, Young modulus, 2e3, shear modulus, 800., thickness, 0.5", ISO),
    ("isotropic, nu, 0.25, G, 800., thickness, 0.5", ISO),
])
def test_card_law_forms(tmp_path, law, D):
    """The law forms of the input manual ("Membrane4"): C = E h/(1 - ν²), D33 = 2 G h (E = 2e3,
    G = 800, ν = 0.25, h = 0.5)."""
    d = parse(tmp_path, with_membrane(f"  membrane4eas: 10, 1, 2, 3, 4, {law}, prestress, 1., 2., 3.;"))
    spec = [s for s in d.model.membranes if s.label == 10][0]
    assert np.allclose(spec.D, D) and np.allclose(spec.prestress, [1, 2, 3]) and spec.nodes == (1, 2, 3, 4)


def test_isotropic_law_api():
    D = isotropic_membrane_law(E=2e3, nu=0.25, thickness=0.5)
    assert np.allclose(D, ISO)
    assert np.allclose(isotropic_membrane_law(E=2e3, G=800.0, thickness=0.5), D)
    assert np.allclose(isotropic_membrane_law(E=2e3, nu=0.25, G=800.0, thickness=0.5), D)
    with pytest.raises(ValueError, match="inconsistent"):
        isotropic_membrane_law(E=2e3, nu=0.25, G=801.0, thickness=0.5)
    with pytest.raises(ValueError, match="two of E, nu, G"):
        isotropic_membrane_law(E=2e3, thickness=0.5)
    with pytest.raises(ValueError, match="thickness"):
        isotropic_membrane_law(E=2e3, nu=0.3)


@pytest.mark.parametrize("card,needle,message", [
    ("membrane4eas: 10, 1, 2, 3, 4, isotropic, E, 1e6, nu, 0.3, G, 1e5, thickness, 0.01;", "isotropic",
     "inconsistent E"),
    ("membrane4eas: 10, 1, 2, 3, 4, isotropic, E, 1e6, nu, 0.3;", "isotropic", "thickness is required"),
    ("membrane4eas: 10, 1, 2, 3, 44, diag, 1., 2., 3.;", "44",
     r"membrane4eas 10: node 4, Structural\(44\) is not defined"),
    ("membrane4eas: 10, 1, 2, 3, 7, diag, 1., 2., 3.;", " 7,", r"membrane4eas 10: node 4, Structural\(7\) is not"),
])
def test_card_errors(tmp_path, card, needle, message):
    """One-line errors naming file:line, the element and the node (node 7 is a hydraulic node)."""
    text = with_membrane("  " + card, "  hydraulic: 7, 1.;\n").replace("structural nodes: 6;",
                                                                         "structural nodes: 6;\n  hydraulic nodes: 1;")
    with pytest.raises(DeckError, match=message) as info:
        parse(tmp_path, text)
    assert str(info.value).startswith(f"{tmp_path / 'deck.mbd'}:{line_of(text, card)}:")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("nodes,message", [
    ("1, 3, 2, 4", "badly ordered or non-convex quadrilateral: the normal at node"),
    ("1, 2, 2, 1", "zero-area quadrilateral"),
    ("1, 2, 3, 8", "warped quadrilateral"),
])
def test_bad_quadrilaterals(tmp_path, nodes, message):
    """Crossed (badly ordered), zero-area and warped elements stop the run with file:line,
    the element and its nodes."""
    card = f"  membrane4eas: 10, {nodes}, diag, 1., 2., 3.;"
    text = with_membrane(card, "  structural: 8, static displacement, 1., 0.1, 0.9, null;\n").replace(
        "structural nodes: 6;", "structural nodes: 7;")
    d = parse(tmp_path, text)
    with pytest.raises(ValueError, match=message) as info:
        System(d.model)
    assert str(info.value).startswith(f"{tmp_path / 'deck.mbd'}:{line_of(text, card)}")
    assert f"membrane4eas 10: " in str(info.value) and f"(nodes {nodes})" in str(info.value)


# ------------------------------------------------------------------ point masses
POINT_MASS_DECK = """begin: data;
  problem: initial value;
end: data;
begin: initial value;
  initial time: 0.;
  final time: 1.;
  time step: 0.01;
  method: ms, .6;
  tolerance: 1e-10;
  derivatives tolerance: 1e10;
end: initial value;
begin: control data;
  structural nodes: 1;
  rigid bodies: 1;
  gravity;
end: control data;
begin: nodes;
  structural: 1, %s displacement, 0., 0., 1., 2., 0., 3.;
end: nodes;
begin: elements;
  body: 1, 1, condense, 2, 1.5, 0.5;
  gravity: uniform, 0., 0., -1., const, 9.81;
end: elements;
"""


def test_point_mass_on_a_displacement_node(tmp_path):
    """`body` on a dynamic displacement node is MBDyn's point mass (its `Mass` element): the
    falling node at t = 0.5 and 1 as MBDyn 1.7.3 printed them for this deck (/opt/mbdyn/bin/mbdyn
    -f deck.mbd -o out, out.mov: x_z, v_z), and its free-fall acceleration -g between steps."""
    prefix = run_deck(tmp_path, POINT_MASS_DECK % "dynamic")
    mov = [np.asarray(b[1], float) for b in mr.blocks(mr.read_lines(prefix + ".mov"))]
    assert len(mov) == 101
    assert np.allclose([mov[50][2], mov[50][8], mov[100][2], mov[100][8]],
                       [1.298769e+00, -1.854417e+00, -8.546893e-01, -6.759417e+00], rtol=6e-7)
    assert np.allclose(mov[100][[0, 1, 6, 7]], [2.0, 0.0, 2.0, 0.0])
    assert (mov[100][8] - mov[50][8]) / 0.5 == pytest.approx(-9.81, rel=1e-9)


def test_point_mass_needs_a_dynamic_displacement_node(tmp_path):
    text = POINT_MASS_DECK % "static"
    with pytest.raises(DeckError, match=r"Mass\(1\): illegal structural node type for StructDispNode\(1\)"):
        parse(tmp_path, text)


def test_vtu_quads(tmp_path):
    """`mbdae run --vtu`: the membranes are VTK quads on their nodes (MBDyn's order)."""
    meshio = pytest.importorskip("meshio")
    path = tmp_path / "deck.mbd"
    path.write_text(MBDYN_DECK)
    prefix = str(tmp_path / "out")
    assert main(["run", str(path), "-o", prefix, "-q", "--vtu", "deformed"]) == 0
    files = sorted(f for f in os.listdir(tmp_path) if f.endswith(".vtu"))
    m = meshio.read(str(tmp_path / files[-1]))
    quads = [c.data for c in m.cells if c.type == "quad"]
    assert len(quads) == 1 and quads[0].tolist() == [[0, 1, 2, 3], [4, 5, 1, 0]]
    mov = mr.blocks(mr.read_lines(prefix + ".mov"))
    x = np.array([mov[-1][k][:3] for k in sorted(mov[-1])], float)
    assert np.allclose(m.points, x, atol=1e-5)
    # cell data: the .pla resultants of the Gauss points averaged with the reference area
    # elements |g1 × g2| of the points (bilinear map of the deck's node positions)
    pla = mr.blocks(mr.read_lines(prefix + ".pla"))[-1]
    k = [i for i, c in enumerate(m.cells) if c.type == "quad"][0]
    got = np.asarray(m.cell_data["membrane_resultant"][k])
    X0 = np.array([mov[0][label][:3] for label in sorted(mov[0])], float)
    corners = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], float)
    g = 1 / np.sqrt(3)
    for row, label, nodes in zip(got, (10, 20), ([0, 1, 2, 3], [4, 5, 1, 0])):
        n = np.asarray(pla[label], float).reshape(4, 3)
        area = []
        for xi, eta in [(-g, -g), (g, -g), (g, g), (-g, g)]:
            dxi = 0.25 * corners[:, 0] * (1 + corners[:, 1] * eta)
            deta = 0.25 * corners[:, 1] * (1 + corners[:, 0] * xi)
            area.append(np.linalg.norm(np.cross(dxi @ X0[nodes], deta @ X0[nodes])))
        assert np.allclose(row, np.asarray(area) @ n / np.sum(area), rtol=2e-6)
