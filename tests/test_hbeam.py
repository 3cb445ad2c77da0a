"""Helicoidal two-node beam (MBDyn `hbeam`, elements/hbeam.py): action = reaction and
objectivity of the element loads; a cantilever under a small tip load against Timoshenko beam
theory; the exact circular arc under a pure end moment (closed form R = EI/M, φ = ML/EI, for
any load magnitude: the property of the helicoidal interpolation); MBDyn's decks beam/h and
beam/h_legacy against MBDyn 1.7.3's output.  The Jacobian-vs-finite-difference checks of the
family run in tests/test_element_checks.py (SAMPLES["hbeam"])."""
import numpy as np
import pytest

from mbdae import initial_value_problem
from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core.state import Context
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core import rotations as rot
from mbdae.engine.drivers.static import solve_static, StaticProblem
from samples import SAMPLES, randomize_state, rigid_motion

EA, GA, GJ, EI, L = 1e7, 4e6, 800.0, 1000.0, 1.0


def cantilever(ne, rotation=None, section=None, beam="hbeam"):
    """Cantilever of ne two-node beams along R·x clamped at node 0; returns (model, node labels)."""
    R = np.eye(3) if rotation is None else rotation
    m = Model()
    s = np.linspace(0.0, L, ne + 1)
    for i in range(ne + 1):
        m.structural_node(i, "static", position=R @ [s[i], 0.0, 0.0], orientation=R)
    law = section or cl.beam_section(EA, GA, GA, GJ, EI, EI)
    for e in range(ne):
        if beam == "hbeam":
            m.hbeam(100 + e, e, e + 1, law)
        else:
            m.beam2(100 + e, e, e + 1, law)
    m.clamp(1, 0)
    return m, np.arange(ne + 1)


def _loads(system, fam, state, dcoef=0.3):
    ctx = Context(state.t, state.y, state.yp, system.kinematics(state, dcoef), "regular")
    return fam.residual_blocks(ctx)[0].reshape(fam.ne, 2, 2, 3)


def test_action_reaction_and_objectivity():
    rng = np.random.default_rng(11)
    system = System(SAMPLES["hbeam"][0](rng))
    fam = system.families[0]
    assert fam.name == "hbeam"
    st = randomize_state(system, rng)
    st.y[system.nodes.ig] = 0.0
    kin = system.kinematics(st, 0.3)
    r0 = _loads(system, fam, st)
    F, M = r0[:, :, 0], r0[:, :, 1]
    x = kin.x[fam.nidx]
    scale = np.abs(r0).max()
    assert scale > 1.0                      # a generic, loaded state
    assert np.allclose(F.sum(axis=1), 0.0, atol=1e-10 * scale)
    assert np.allclose((M + rot.cross(x, F)).sum(axis=1), 0.0, atol=1e-9 * scale)
    # rigid rotation Q, translation c and a superimposed rigid velocity field v0 + w0 × x
    Q = rot.exp_rotvec(rng.normal(size=3))
    c, v0, w0 = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    st2 = rigid_motion(st, system.nodes, Q, c, v0, w0)
    r1 = _loads(system, fam, st2)
    assert np.allclose(rot.matvec(Q, r0), r1, atol=1e-9 * scale)


def test_rigid_motion_is_strain_free():
    """A large rigid rotation and translation of the initial configuration: no strain, no load."""
    rng = np.random.default_rng(4)
    model = SAMPLES["hbeam"][0](rng)
    system = System(model)
    st = system.initial_state(0.0)
    st.yp[:] = 0.0
    Q = rot.exp_rotvec([2.0, -1.0, 0.5])
    st2 = rigid_motion(st, system.nodes, Q, rng.normal(size=3), rng.normal(size=3), rng.normal(size=3))
    ctx = Context(0.0, st2.y, st2.yp, system.kinematics(st2), "regular")
    strain, rate = system.families[0].strains(ctx)
    assert np.abs(strain).max() < 1e-12 and np.abs(rate).max() < 1e-12


@pytest.mark.parametrize("ne", [1, 4, 10, 40])
def test_cantilever_tip_load_timoshenko(ne):
    """δ = P L³/(3 EI) + P L/GA and φ = P L²/(2 EI) (small load).  One section per element
    at its mid-point: the bending deflection is the mid-point rule of ∫(L - s)² ds P/EI, i.e.
    P L³/(3 EI) (1 - 1/(4 ne²)), while the tip rotation (mid-point rule of a linear moment)
    is exact; so 10 elements are within 0.25 %, 40 within 0.016 %."""
    from test_beam import rotated_cantilever_tip
    P = 1.0
    d, phi, delta = rotated_cantilever_tip(cantilever, ne, P)
    midpoint_rule = P * L ** 3 / (3 * EI) * (1 - 1 / (4 * ne ** 2)) + P * L / GA
    assert abs(-d[1] / midpoint_rule - 1) < 1e-5, -d[1] / midpoint_rule - 1
    assert abs(-d[1] / delta - 1) <= 1 / (4 * ne ** 2) + 1e-5
    assert abs(-phi[2] / (P * L ** 2 / (2 * EI)) - 1) <= 1e-6     # exact up to O(P²)
    assert abs(d[2]) < 1e-9 and abs(phi[0]) < 1e-9


def test_small_deformation_agrees_with_beam2():
    """Under a small tip load hbeam and beam2 (same mid-point law) give the same tip deflection."""
    tips = []
    for beam in ("hbeam", "beam2"):
        m, nodes = cantilever(10, beam=beam)
        m.force(1, nodes[-1], [0.0, -1.0, 0.3])
        m.couple(2, nodes[-1], [0.2, 0.0, 0.0])
        x = solve_static(m, steps=1, tolerance=1e-6).node(nodes[-1])[0][-1]
        tips.append(x - [L, 0.0, 0.0])
    assert np.allclose(tips[0], tips[1], rtol=0, atol=1e-5 * np.abs(tips[1]).max()), tips


def _arc(ne, M, steps):
    """Cantilever of ne hbeams rolled by a tip couple M about z (static analysis, load ramp)."""
    m, nodes = cantilever(ne)
    m.couple(1, nodes[-1], [0.0, 0.0, M])
    res = StaticProblem(m, steps=steps, ramp=True, tolerance=1e-7).run()
    return res, nodes


@pytest.mark.parametrize("phi_tip", [1e-3, 0.5, 2.0, 3.0])
def test_single_element_circular_arc(phi_tip):
    """One hbeam under a pure end moment: exact circle for any magnitude, tip at
    (R sin φ, R (1 - cos φ)) with R = EI/M, tip rotation φ = ML/EI (φ < π: one element's
    relative rotation is a minimal rotation vector)."""
    M = phi_tip * EI / L
    res, nodes = _arc(1, M, steps=max(1, int(np.ceil(phi_tip / 0.25))))
    x, R, _, _ = res.node(nodes[-1])
    rad = EI / M
    exact = [rad * np.sin(phi_tip), rad * (1 - np.cos(phi_tip)), 0.0]
    assert np.allclose(x[-1], exact, rtol=0, atol=1e-9 * L), (x[-1], exact)
    assert np.allclose(rot.log_rotvec(R[-1]), [0.0, 0.0, phi_tip], rtol=0, atol=1e-9)


def test_three_elements_full_circle():
    """Three hbeams, tip couple 2π EI/L: a full circle, every node exactly on it."""
    M = 2 * np.pi * EI / L
    res, nodes = _arc(3, M, steps=8)
    rad = L / (2 * np.pi)
    for k, n in enumerate(nodes):
        x, R, _, _ = res.node(n)
        a = 2 * np.pi * k / 3
        assert np.allclose(x[-1], [rad * np.sin(a), rad * (1 - np.cos(a)), 0.0], atol=1e-9), (k, x[-1])
        assert np.allclose(R[-1], rot.exp_rotvec([0.0, 0.0, a]), atol=1e-9)


def test_bad_input():
    m, nodes = cantilever(2)
    m.hbeam(200, 0, 0, cl.beam_section(1, 1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match="distinct"):
        System(m)
    m, nodes = cantilever(2)
    m.hbeam(200, 0, 1, cl.linear_elastic(3, 1.0))
    with pytest.raises(ValueError, match="6-D"):
        System(m)
    m = Model()
    m.structural_node(1, "static", position=[0.0, 0.0, 0.0])
    m.structural_node(2, "static", position=[0.0, 0.0, 0.0])
    m.hbeam(1, 1, 2, cl.beam_section(1, 1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match="singular metric"):
        System(m)


# ----------------------------------------------------------------------------- MBDyn's decks
@pytest.mark.parametrize("deck_name", ["beam/h", "beam/h_legacy"])
def test_mbdyn_hbeam_decks_agree(tmp_path, deck_name):
    """One hbeam cantilever with a tip mass, step tip force (dynamic, 1000 steps): node
    positions (.mov) and internal actions (.act) within 1e-4 of MBDyn 1.7.3's."""
    from test_beam import _compare_deck
    res = _compare_deck(deck_name, tmp_path, 1.0)
    assert {"mov", "act"} <= set(res)
    for ext, (worst, compared) in res.items():       # (a "rotation" entry: angle in rad)
        assert compared == 50, (ext, compared)          # every kept step of the reference
        assert worst < 1e-4, f"{deck_name}.{ext}: worst difference {worst:.2e}"


def test_mbdyn_hcurl_rolls_onto_the_exact_arc(tmp_path):
    """MBDyn's beam/hcurl (four hbeams, tip couple growing to 1e5 about -y, time step 1e3 s:
    quasi-static; MBDyn 1.7.3 stops at step 170, no reference output): every node of the final
    step lies on the exact arc p(s) = Γ(κ s) s e₁, κ = M/EI (tip rotation -10 rad)."""
    import os
    from test_beam import TESTS_DIR
    from mbdae.engine.io.mbdyn.deck import read_deck
    path = os.path.join(TESTS_DIR, "beam", "hcurl")
    if not os.path.isfile(path):
        pytest.skip(f"MBDyn deck {path} not found")
    deck = read_deck(path, echo=lambda *a: None)
    prefix = str(tmp_path / "run")
    deck.run(output_prefix=prefix, progress=False)
    with open(prefix + ".mov") as f:
        rows = [line.split() for line in f if line.strip()]
    final = {int(r[0]): np.array(r[1:7], float) for r in rows[-5:]}
    M, EI_deck = -1e2 / 1e3 * 1e6, 1e4
    for k in range(5):
        s = k / 4
        exact = rot.gamma([0.0, M * s / EI_deck, 0.0]) @ [s, 0.0, 0.0]
        assert np.allclose(final[k + 1][:3], exact, rtol=0, atol=1e-6), (k, final[k + 1][:3], exact)


def test_viscous_section_rates():
    """Viscous law, straight beam along x of length 2 (rotated as a whole by Q): an axial
    velocity difference Δv gives the axial force C₁₁ Δv/ℓ, a twist rate difference Δω the
    torque C₄₄ Δω/ℓ, and a rigid rotation rate of the whole beam no load at all."""
    C = np.diag([3.0, 5.0, 7.0, 0.4, 0.6, 0.8])
    Q = rot.exp_rotvec([0.4, 0.9, -0.3])
    ell = 2.0

    def loads(v2, w1, w2, v1=(0.0, 0.0, 0.0)):
        m = Model()
        m.structural_node(1, "dynamic", position=[0.0, 0.0, 0.0], orientation=Q, velocity=Q @ v1,
                          angular_velocity=Q @ w1)
        m.structural_node(2, "dynamic", position=Q @ [ell, 0.0, 0.0], orientation=Q, velocity=Q @ v2,
                          angular_velocity=Q @ w2)
        m.hbeam(1, 1, 2, cl.linear_viscous(6, C))
        system = System(m)
        st = system.initial_state(0.0)
        fam = system.families[0]
        r = _loads(system, fam, st).reshape(2, 2, 3)
        return Q.T @ r[1, 0], Q.T @ r[1, 1]          # node 2 force and moment in the beam frame

    F, M = loads([0.3, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    assert np.allclose(F, [C[0, 0] * 0.3 / ell, 0, 0], atol=1e-12) and np.allclose(M, 0.0, atol=1e-12)
    F, M = loads([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.5, 0.0, 0.0])
    assert np.allclose(F, 0.0, atol=1e-12) and np.allclose(M, [C[3, 3] * 0.5 / ell, 0, 0], atol=1e-12)
    w0 = np.array([0.2, -0.7, 1.1])                  # rigid rotation rate about node 1
    F, M = loads(np.cross(w0, [ell, 0.0, 0.0]), w0, w0, v1=(0.0, 0.0, 0.0))
    assert np.allclose(F, 0.0, atol=1e-12) and np.allclose(M, 0.0, atol=1e-12)


def test_driven_hbeam():
    """A driven hbeam (Model.driven kind "beam"; the deck's `driven: ..., existing: beam, l`)
    loads its nodes while the drive is non-zero and not at all afterwards."""
    from mbdae.engine.core.drives import StepDrive
    m = Model()
    m.structural_node(1, "static", position=[0.0, 0.0, 0.0])
    m.structural_node(2, "static", position=[1.0, 0.0, 0.0])
    m.hbeam(1, 1, 2, cl.beam_section(EA, GA, GA, GJ, EI, EI))
    m.driven(1, StepDrive(0.3, -1.0, 1.0), kind="beam")           # 1 until t = 0.3, then 0
    system = System(m)
    st = system.initial_state(0.1)
    st.y[system.nodes.ix[1]] += [1e-3, 2e-3, 0.0]
    on = system.evaluate(st, 1.0, want_jac=False)[0]
    st.t = 0.5
    off = system.evaluate(st, 1.0, want_jac=False)[0]
    rows = np.concatenate([system.nodes.ix.ravel(), system.nodes.ig.ravel()])
    assert np.abs(on[rows]).max() > 1e3 and np.abs(off[rows]).max() == 0.0


def test_private_data_through_bind(tmp_path):
    """The hbeam's private data reach parameter nodes through `bind` (an element of MBDyn type
    "beam"): one hbeam under a tip couple M about z (static nodes) has κ_z = M/EI and M_z = M
    exactly, whatever the magnitude (the helicoidal strain is uniform)."""
    from mbdae.engine.drivers.ivp import InitialValueProblem
    from mbdae.engine.io.mbdyn import reference as mr
    M = 0.5 * EI / L
    m, nodes = cantilever(1)
    m.couple(1, nodes[-1], [0.0, 0.0, M])
    m.parameter_node(1, "element")
    m.parameter_node(2, "element")
    m.bind(100, "beam", 1, name="kz")
    m.bind(100, "beam", 2, name="Mz")
    prefix = str(tmp_path / "hb")
    initial_value_problem(m, time_step=1e-3, final_time=2e-3, tolerance=1e-8,
                          output_prefix=prefix, output_precision=16, progress=False).run()
    last = mr.blocks(mr.read_lines(prefix + ".prm"))[-1]
    assert abs(last[1][0] - M / EI) <= 1e-9 * M / EI
    assert abs(last[2][0] - M) <= 1e-9 * M
