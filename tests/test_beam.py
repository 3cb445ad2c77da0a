"""Finite-volume beams (manual ch. 10) against beam theory: cantilever under a small tip
load (Timoshenko), the cantilever rolled into a full circle by a tip couple (geometrically
exact, static analysis with load stepping), bending frequencies of a cantilever
(Euler-Bernoulli); objectivity and action = reaction of the element loads."""
import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.state import Context
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core import rotations as rot
from mbdae.engine.drivers.static import solve_static, StaticProblem
from samples import SAMPLES, randomize_state, rigid_motion

EA, GA, GJ, EI, L = 1e7, 4e6, 800.0, 1000.0, 1.0


def cantilever(ne, kind="static", beam="beam3", section=None, rotation=None):
    """Cantilever along x (or along R·x) clamped at node 0; returns (model, node labels)."""
    R = np.eye(3) if rotation is None else rotation
    m = Model()
    per = 2 if beam == "beam3" else 1
    nn = per * ne + 1
    s = np.linspace(0.0, L, nn)
    for i in range(nn):
        m.structural_node(i, kind, position=R @ [s[i], 0.0, 0.0], orientation=R)
    law = section or cl.beam_section(EA, GA, GA, GJ, EI, EI)
    for e in range(ne):
        if beam == "beam3":
            m.beam3(100 + e, 2 * e, 2 * e + 1, 2 * e + 2, law, orientation=R)
        else:
            m.beam2(100 + e, e, e + 1, law, orientation=R)
    m.clamp(1, 0)
    return m, np.arange(nn)


def rotated_cantilever_tip(cantilever, ne, P=1.0, **kw):
    """A cantilever along an arbitrary direction Rm x under a small tip load P along -Rm y,
    static: the tip displacement d and rotation vector φ in the beam's frame, and the
    Timoshenko deflection δ = P L³/(3 EI) + P L/GA (the tip rotation is P L²/(2 EI))."""
    Rm = rot.exp_rotvec([0.3, -0.5, 0.8])
    m, nodes = cantilever(ne, rotation=Rm, **kw)
    m.force(1, nodes[-1], Rm @ [0.0, -P, 0.0])
    res = solve_static(m, steps=1, tolerance=1e-6)
    x, R, _, _ = res.node(nodes[-1])
    d = Rm.T @ (x[-1] - Rm @ [L, 0, 0])
    phi = rot.log_rotvec(Rm.T @ R[-1])
    return d, phi, P * L ** 3 / (3 * EI) + P * L / GA


@pytest.mark.parametrize("beam,ne,tol", [("beam3", 10, 5e-3), ("beam2", 40, 5e-3)])
def test_cantilever_tip_load_timoshenko(beam, ne, tol):
    """δ = P L³/(3 EI) + P L/GA and φ = P L²/(2 EI) (Timoshenko, small load)."""
    P = 1.0
    d, phi, delta = rotated_cantilever_tip(cantilever, ne, P, beam=beam)
    assert abs(-d[1] - delta) <= tol * delta, (-d[1], delta)
    assert abs(-phi[2] - P * L ** 2 / (2 * EI)) <= tol * P * L ** 2 / (2 * EI)
    assert abs(d[2]) < 1e-9 and abs(phi[0]) < 1e-9


def test_cantilever_tip_load_timoshenko_half_percent():
    """10 beam3: tip deflection and rotation within 0.5 % of Timoshenko-beam theory."""
    P = 1.0
    m, nodes = cantilever(10)
    m.force(1, nodes[-1], [0.0, -P, 0.0])
    res = solve_static(m, steps=1, tolerance=1e-6)
    x, R, _, _ = res.node(nodes[-1])
    delta = P * L ** 3 / (3 * EI) + P * L / GA
    rot_z = rot.log_rotvec(R[-1])[2]
    assert abs(-(x[-1, 1]) / delta - 1) < 5e-3
    assert abs(-rot_z / (P * L ** 2 / (2 * EI)) - 1) < 5e-3
    # axial and shear/torsion loading: exact for the finite-volume beam
    m, nodes = cantilever(10)
    m.force(1, nodes[-1], [5.0, 0.0, 0.0])
    m.couple(2, nodes[-1], [0.3, 0.0, 0.0])
    res = solve_static(m, steps=1, tolerance=1e-6)
    x, R, _, _ = res.node(nodes[-1])
    assert np.isclose(x[-1, 0] - L, 5.0 * L / EA, rtol=1e-6)
    assert np.isclose(rot.log_rotvec(R[-1])[0], 0.3 * L / GJ, rtol=1e-6)


def test_roll_up_full_circle():
    """Tip couple M = 2π EI/L bends the cantilever into a full circle (16 beam3, static analysis
    with load stepping): the tip returns to the root and has turned by 2π."""
    m, nodes = cantilever(16)
    M = 2 * np.pi * EI / L
    m.couple(1, nodes[-1], [0.0, 0.0, M])
    prob = StaticProblem(m, steps=20, ramp=True, tolerance=1e-6)
    res = prob.run()
    x, R, _, _ = res.node(nodes[-1])
    assert np.linalg.norm(x[-1]) < 1e-3 * L, x[-1]
    # half way (M/2): a half circle, tip at (0, 2 R, 0) with R = L/π
    half = 10
    assert np.allclose(x[half], [0.0, 2 * L / np.pi, 0.0], atol=1e-3 * L), x[half]
    # the axis turned by 2π in total: tip orientation back to the identity, midpoint at π
    assert np.allclose(R[-1], np.eye(3), atol=1e-3)
    xm = res.node(nodes[len(nodes) // 2])[0][-1]
    assert np.allclose(xm, [0.0, 2 * L / (2 * np.pi), 0.0], atol=1e-3 * L), xm


def test_cantilever_bending_frequencies():
    """First three bending frequencies of a cantilever, tangent stiffness of 10 beam3 with the
    mass lumped on the nodes by finite volumes, vs Euler-Bernoulli (β L = 1.8751, 4.6941, 7.8548)."""
    mu = 1.0
    ne = 10
    m, nodes = cantilever(ne, section=cl.beam_section(EA, 1e4 * GA, 1e4 * GA, GJ, EI, EI))
    m.joints = []                                   # clamp by removing the root node's unknowns
    system = System(m)
    st = system.initial_state(0.0)
    K = system.evaluate(st, 1.0)[2].toarray()       # dCoef = 1, static nodes: ∂f/∂y
    n = system.nodes
    uy = n.ix[1:, 1]
    tz = n.ig[1:, 2]
    Kuu, Kut, Ktt = K[np.ix_(uy, uy)], K[np.ix_(uy, tz)], K[np.ix_(tz, tz)]
    Kc = Kuu - Kut @ np.linalg.solve(Ktt, K[np.ix_(tz, uy)])      # no rotary inertia (Euler-Bernoulli)
    # finite-volume lumping: node shares (1-1/√3)/2, 1/√3, (1-1/√3)/2 of each element
    from mbdae.elements.beam import beam3_node_shares
    Mlump = mu * beam3_node_shares(ne, L)[1:]
    w2 = np.sort(np.linalg.eigvals(Kc / Mlump[:, None]).real)
    f = np.sqrt(w2[:3])
    exact = np.array([1.875104, 4.694091, 7.854757]) ** 2 * np.sqrt(EI / (mu * L ** 4))
    assert np.all(np.abs(f / exact - 1) < 1e-2), f / exact


@pytest.mark.parametrize("name", ["beam3", "beam2"])
def test_action_reaction_and_objectivity(name):
    rng = np.random.default_rng(11)
    system = System(SAMPLES[name][0](rng))
    fam = system.families[0]
    st = randomize_state(system, rng)
    st.y[system.nodes.ig] = 0.0
    kin = system.kinematics(st, 0.3)

    def loads(state):
        ctx = Context(state.t, state.y, state.yp, system.kinematics(state, 0.3), "regular")
        return fam.residual_blocks(ctx)[0].reshape(fam.ne, fam.NN, 2, 3)

    r0 = loads(st)
    F, M = r0[:, :, 0], r0[:, :, 1]
    x = kin.x[fam.nidx]
    scale = np.abs(r0).max()
    assert np.allclose(F.sum(axis=1), 0.0, atol=1e-10 * scale)
    assert np.allclose((M + rot.cross(x, F)).sum(axis=1), 0.0, atol=1e-9 * scale)
    # rigid rotation Q, translation c and a superimposed rigid velocity field v0 + w0 × x
    nodes = system.nodes
    Q = rot.exp_rotvec(rng.normal(size=3))
    c, v0, w0 = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    st2 = rigid_motion(st, nodes, Q, c, v0, w0)
    r1 = loads(st2)
    assert np.allclose(rot.matvec(Q, r0), r1, atol=1e-9 * scale)


def test_initial_configuration_is_unstressed():
    rng = np.random.default_rng(2)
    for name in ("beam3", "beam2", "hbeam"):
        model = SAMPLES[name][0](rng)
        for s in model.nodes:
            s.v[:] = 0.0
            s.w[:] = 0.0
        system = System(model)
        st = system.initial_state(0.0)
        strain, rate = system.families[0].strains(Context(0.0, st.y, st.yp, system.kinematics(st), "regular"))
        assert np.abs(strain).max() < 1e-12 and np.abs(rate).max() < 1e-12


def test_bad_input():
    m, nodes = cantilever(2)
    m.beam3(200, 0, 0, 1, cl.beam_section(1, 1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match="distinct"):
        System(m)
    m, nodes = cantilever(2)
    m.beam2(200, 0, 1, cl.linear_elastic(3, 1.0))
    with pytest.raises(ValueError, match="6-D"):
        System(m)


# ----------------------------------------------------------------------------- MBDyn's beam decks
import os

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
TESTS_DIR = os.path.join(SHARED, "mbdyn-tests")
REF_DIR = os.path.join(SHARED, "mbdyn-ref", "visible")


def _compare_deck(deck_name, tmp_path, final_time):
    """Run an MBDyn beam deck and compare node positions (.mov, relative to the model size), node
    orientations (key "rotation": the angle between the two, rad) and beam internal actions (.act, relative to their largest value) with MBDyn 1.7.3's output at
    the kept steps up to final_time."""
    from mbdae.engine.io.mbdyn.deck import read_deck
    from mbdae.engine.io.mbdyn.reference import orientation_of, blocks, read_lines, kept_times, output_times
    from mbdae.engine.core.rotations import log_rotvec
    key = deck_name.replace("/", "__")
    ref = os.path.join(REF_DIR, key)
    if not (os.path.isfile(os.path.join(TESTS_DIR, deck_name)) and os.path.isdir(ref)):
        pytest.skip(f"MBDyn deck or reference output for {deck_name} not found under {SHARED}")
    deck = read_deck(os.path.join(TESTS_DIR, deck_name), echo=lambda *a: None)
    prefix = str(tmp_path / "run")
    deck.run(output_prefix=prefix, progress=False, final_time=final_time)
    kept = kept_times(ref)
    times = output_times(read_lines(prefix + ".out"))
    result = {}
    for ext in ("mov", "act"):
        if not os.path.exists(os.path.join(ref, f"{key}.{ext}.gz")):
            continue
        rb = blocks(read_lines(os.path.join(ref, f"{key}.{ext}.gz")))
        ob = blocks(read_lines(f"{prefix}.{ext}"))
        vals = np.array([v[:3] if ext == "mov" else v for b in rb for v in b.values()])
        scale = np.linalg.norm(vals.max(0) - vals.min(0)) if ext == "mov" else np.abs(vals).max()
        worst, worst_angle, compared = 0.0, 0.0, 0
        for t, b in zip(kept, rb):
            hit = np.flatnonzero(np.abs(times - t) <= 1e-9 * max(1.0, abs(t)))
            if len(hit) == 0:
                continue
            compared += 1
            for label, v in b.items():
                o = ob[hit[0]][label]
                d = np.linalg.norm(o[:3] - v[:3]) if ext == "mov" else np.abs(o - v).max()
                worst = max(worst, d / scale)
                if ext == "mov":           # orientations: these decks print Euler 1-2-3 angles
                    dR = orientation_of(o[3:6], "euler123").T @ orientation_of(v[3:6], "euler123")
                    worst_angle = max(worst_angle, float(np.linalg.norm(log_rotvec(dR))))
        result[ext] = (worst, compared)
        if ext == "mov":
            result["rotation"] = (worst_angle, compared)
    return result


@pytest.mark.parametrize("deck_name,final_time", [("beam/bb", 0.3), ("beam/bcurl", 3e5), ("beam/b", 0.2),
                                                   ("beam/DETC2007-35511/beam", 0.41)])
def test_mbdyn_beam_decks_agree(tmp_path, deck_name, final_time):
    """bb: one beam3 (planar, dynamic tip); bcurl: four beam2 rolled up in 3-D by a tip couple and
    force (quasi-static, large rotations: needs MBDyn's incremental interpolation); b: ten beam3;
    DETC2007-35511/beam: five beam3 on a pinned hub driven by a couple that steps at t = 0 (the
    derivatives phase must see the drive's value at t0, half the step, as MBDyn does: with the
    value just after t0 the rotations differed by 2e-4 rad at t = 0.2 s)."""
    res = _compare_deck(deck_name, tmp_path, final_time)
    assert "mov" in res
    for ext, (worst, compared) in res.items():
        assert compared >= 2, (ext, compared)
        assert worst < 1e-4, f"{deck_name}.{ext}: worst difference {worst:.2e}"
