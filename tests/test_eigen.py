"""Eigenanalysis (engine/eigen.py, MBDyn input manual §4.1.1): a damped mass-spring against
its exact eigenvalues, a cantilever of 10 beam3 against Euler-Bernoulli frequencies, the
DETC2007-35511 beam deck against the modes MBDyn 1.7.3 printed in its .out, and the card."""
import gzip
import os

import numpy as np
import pytest

from mbdae import initial_value_problem
from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.core import constitutive as cl
from mbdae.engine.drivers.eigen import EigenSettings, analyze, continuous
from mbdae.engine.drivers.ivp import InitialValueProblem, Settings

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
DETC = "beam/DETC2007-35511/beam"


def committed_state(model, t=0.0):
    system = System(model)
    return system, system.initial_state(t)


@pytest.mark.parametrize("c", [1.0, 0.05])
def test_damped_mass_spring_exact(c):
    """m ẍ + d ẋ + k x = 0 along each axis: λ = -ζω ± iω√(1-ζ²), whatever the parameter c."""
    m_, k, d = 2.0, 800.0, 4.0
    model = Model()
    model.structural_node(0, "static")
    model.structural_node(1, "dynamic")
    model.clamp(10, 0)
    model.body(1, 1, m_, inertia=[1.0, 1.0, 1.0])
    model.deformable_displacement_joint(2, 0, 1, cl.linear_viscoelastic(3, k, d))
    # the rotation of node 1 is held by a deformable hinge of known stiffness (torsional oscillator)
    kt = 50.0
    model.deformable_hinge(3, 0, 1, cl.linear_elastic(3, kt))
    system, st = committed_state(model)
    res = analyze(system, st, EigenSettings((0.0,), parameter=c, output_eigenvectors=True))
    lam = res.lam[res.selected]
    lam = lam[lam.imag > 0]
    w = np.sqrt(k / m_)
    zeta = d / (2 * np.sqrt(k * m_))
    exact_lin = -zeta * w + 1j * w * np.sqrt(1 - zeta ** 2)
    exact_rot = 1j * np.sqrt(kt / 1.0)
    expect = np.sort_complex(np.array([exact_rot] * 3 + [exact_lin] * 3))
    got = np.sort_complex(lam)
    assert len(got) == 6, got
    assert np.allclose(got, expect, rtol=1e-9, atol=1e-9), (got, expect)
    # right eigenvectors solve the linearized equations (λ f/ẏ + f/y) v = 0 of the assembled
    # iteration matrices, f/ẏ = (J(+c) + J(-c))/2, f/y = (J(+c) - J(-c))/(2c)
    fyp = ((res.Aplus + res.Aminus) * 0.5).toarray()
    fy = ((res.Aplus - res.Aminus) * (0.5 / c)).toarray()
    for j, k in enumerate(res.selected):
        v = res.VR[:, j].copy()
        v[res.divided_columns] /= res.lam[k]
        r = (res.lam[k] * fyp + fy) @ v
        assert np.linalg.norm(r) <= 1e-9 * np.linalg.norm(fy) * np.linalg.norm(v)


def test_transform_back_to_continuous_time():
    """Λ = (1 + cλ)/(1 - cλ) inverts to λ; Λ = -1 (algebraic unknowns) gives ∞."""
    lam = np.array([0.3 - 2.0j, -1.5 + 0.1j, 7j])
    c = 0.2
    Lam = (1 + c * lam) / (1 - c * lam)
    assert np.allclose(continuous(Lam, np.ones(3), c), lam)
    assert np.isinf(continuous(np.array([-1.0 + 0j]), np.array([1.0]), c)[0])


def test_cantilever_euler_bernoulli_frequencies():
    """10 beam3 clamped at one end, masses lumped on the nodes by finite volumes (node shares
    (1-1/√3)/2, 1/√3, (1-1/√3)/2 of each element): the first three bending frequencies within
    1 % of Euler-Bernoulli, β L = 1.8751, 4.6941, 7.8548 (both bending planes)."""
    EA, GA, GJ, EI, L, mu, ne = 1e7, 4e8, 800.0, 1000.0, 1.0, 1.0, 10
    model = Model()
    nn = 2 * ne + 1
    s = np.linspace(0.0, L, nn)
    for i in range(nn):
        model.structural_node(i, "static" if i == 0 else "dynamic", position=[s[i], 0, 0])
    law = cl.beam_section(EA, GA, GA, GJ, EI, EI)
    for e in range(ne):
        model.beam3(100 + e, 2 * e, 2 * e + 1, 2 * e + 2, law)
    model.clamp(1, 0)
    from mbdae.elements.beam import beam3_node_shares
    share = beam3_node_shares(ne, L)
    for i in range(1, nn):
        model.body(1000 + i, i, mu * share[i], inertia=[1e-6, 1e-9, 1e-9])
    system, st = committed_state(model)
    # parameter c ~ 1/ω of the band of interest keeps Λ = (1 + cλ)/(1 - cλ) well separated
    res = analyze(system, st, EigenSettings((0.0,), parameter=1e-2, lower_frequency=1.0, upper_frequency=400.0))
    f = np.sort(res.frequencies)
    exact = np.array([1.875104, 4.694091, 7.854757]) ** 2 * np.sqrt(EI / (mu * L ** 4)) / (2 * np.pi)
    # two bending planes: every frequency twice; torsion lies above 400 Hz
    assert len(f) == 6, f
    assert np.all(np.abs(f.reshape(3, 2) / exact[:, None] - 1) < 1e-2), f
    assert np.all(np.abs(res.lam[res.selected].real) < 1e-6 * np.abs(res.lam[res.selected]))   # undamped


def test_problem_runs_analysis_at_requested_times(tmp_path):
    """`list` of times: analyses after the derivatives (t0) and at the first step with t ≥ when;
    the run continues; the .m file holds dCoef and alpha consistent with the .out table."""
    model = Model()
    model.structural_node(0, "static")
    model.structural_node(1, "dynamic")
    model.clamp(10, 0)
    model.body(1, 1, 1.0, inertia=[1.0, 1.0, 1.0])
    model.deformable_joint(2, 0, 1, cl.linear_elastic(6, 100.0))
    eig = EigenSettings((0.0, 0.0105), output_eigenvectors=True, lower_frequency=0.1)
    prefix = str(tmp_path / "ms")
    p = initial_value_problem(model, final_time=0.02, time_step=1e-3, output_prefix=prefix,
                              eigenanalysis=eig)
    p.run()
    times = [r.time for r in p.eigen.results]
    assert times[0] == 0.0 and abs(times[1] - 0.011) < 1e-12
    for r in p.eigen.results:
        assert np.allclose(r.frequencies, 10.0 / (2 * np.pi), rtol=1e-9)
    ns = read_octave(prefix + "_0.m")
    al = ns["alpha"].real
    Lam = (al[:, 0] + 1j * al[:, 1]) / al[:, 2]
    assert np.allclose((Lam - 1) / (ns["dCoef"] * (Lam + 1)), p.eigen.results[0].lam[p.eigen.results[0].selected])
    VR = ns["VR"]
    assert np.allclose(VR, p.eigen.results[0].VR, rtol=1e-12, atol=1e-14)
    out = open(prefix + ".out").read()
    assert out.count("Mode n.") == 2
    assert os.path.exists(prefix + "_1.m")


def read_octave(path):
    """Real scalars and matrices `name = value;` / `name = [ rows; ... ];` of an .m file."""
    ns = {}
    lines = [l for l in open(path).read().splitlines() if not l.startswith("%")]
    i = 0
    while i < len(lines):
        name, _, rest = lines[i].partition(" = ")
        if rest == "[":
            rows = []
            i += 1
            while lines[i] != "];":
                rows.append([complex(v.replace("i", "j")) for v in lines[i].rstrip(";").split()])
                i += 1
            ns[name] = np.array(rows)
        elif rest.endswith(";") and "i" not in rest:
            ns[name] = float(rest[:-1])
        i += 1
    return ns


def _mbdyn_modes(deck):
    path = os.path.join(SHARED, "mbdyn-ref", "visible", deck.replace("/", "__"),
                        deck.replace("/", "__") + ".out.gz")
    if not os.path.exists(path):
        pytest.skip(f"MBDyn reference outputs not found at {path}")
    modes = []
    with gzip.open(path, "rt") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 7 and parts[0].endswith(":") and parts[0][:-1].isdigit() and parts[4] == "j":
                modes.append((int(parts[0][:-1]), float(parts[1]), float(parts[3]), float(parts[6])))
    return np.array(modes)


def test_detc_deck_modes_agree_with_mbdyn(tmp_path):
    """The DETC2007-35511 space-manipulator beam (5 beam3, tip mass, pinned root): the four
    modes between 1e-3 and 20 Hz MBDyn printed at t = 0 (imaginary parts 5.27205, 20.6746,
    46.0087, 80.8237 rad/s) within 1e-5 relative."""
    from mbdae.engine.io.mbdyn.deck import read_deck
    deck = os.path.join(SHARED, "mbdyn-tests", DETC)
    if not os.path.exists(deck):
        pytest.skip(f"MBDyn test decks not found at {deck}")
    ref = _mbdyn_modes(DETC)
    assert len(ref) == 4
    d = read_deck(deck, echo=lambda *a: None)
    prefix = str(tmp_path / "beam")
    p = d.problem(prefix, final_time=d.settings["time_step"])
    p.run()
    res = p.eigen.results[0]
    lam = res.lam[res.selected]
    assert len(lam) == 4
    assert np.allclose(lam.imag, ref[:, 2], rtol=1e-5), (lam.imag, ref[:, 2])
    assert np.allclose(lam.imag / (2 * np.pi), ref[:, 3], rtol=1e-5)
    assert np.all(np.abs(lam.real) < 1e-5 * lam.imag)      # undamped, as MBDyn's ≈ 1e-6 %
    assert os.path.exists(prefix + "_0.m")
    # the same modes from ARPACK in shift-invert mode (use arpack, 10, 40, 0.)
    q = d.problem(None)
    st = q.prepare()
    eig = EigenSettings((0.0,), method="arpack", arpack=(10, 40, 0.0), lower_frequency=1e-3, upper_frequency=20.0)
    res = analyze(q.system, st, eig)
    assert np.allclose(res.lam[res.selected].imag, ref[:, 2], rtol=1e-5)


def _deck(tmp_path, card):
    deck = tmp_path / "d.mbd"
    deck.write_text(f"""begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.; time step: 1e-3; {card} end: initial value;
begin: control data; structural nodes: 1; end: control data;
begin: nodes; structural: 1, static, null, eye, null, null; end: nodes;
begin: elements; end: elements;
""")
    return str(deck)


def test_card_options(tmp_path):
    """The card's syntax (manual §4.1.1): list of times and every option read into EigenSettings."""
    from mbdae.engine.io.mbdyn.deck import read_deck
    card = ("eigenanalysis: list, 3, 0., 0.5, 1., parameter, 0.01, output sparse matrices, "
            "output eigenvectors, output geometry, suffix format, \"%03d\", matrix output precision, 8, "
            "results output precision, 10, use arpack, 6, 20, 1e-9, lower frequency limit, 0.1, "
            "upper frequency limit, 50.;")
    e = read_deck(_deck(tmp_path, card), echo=lambda *a: None).settings["eigenanalysis"]
    assert e.times == (0.0, 0.5, 1.0) and e.parameter == 0.01 and e.output_matrices == "sparse"
    assert e.output_eigenvectors and e.output_geometry and e.suffix_format == "%03d"
    assert (e.matrix_precision, e.results_precision) == (8, 10)
    assert e.method == "arpack" and e.arpack == (6, 20, 1e-9)
    assert (e.lower_frequency, e.upper_frequency) == (0.1, 50.0)


@pytest.mark.parametrize("deck_name,n_modes", [("joints/deformablehinge/deformablejointeig", 12),
                                               ("joints/rod/rodwithprestrain", 1)])
def test_decks_modes_agree_with_mbdyn(deck_name, n_modes):
    """Decks whose first eigenanalysis is at t0: every mode MBDyn printed (real and imaginary
    parts; deformablejointeig: six viscoelastic hinges with 10 % damping, both conjugates
    printed since no frequency limit is given; rodwithprestrain: a 100 Hz rod) within 1e-5."""
    from mbdae.engine.io.mbdyn.deck import read_deck
    deck = os.path.join(SHARED, "mbdyn-tests", deck_name)
    if not os.path.exists(deck):
        pytest.skip(f"MBDyn test decks not found at {deck}")
    ref = _mbdyn_modes(deck_name)[:n_modes]          # the table of the first analysis
    d = read_deck(deck, echo=lambda *a: None)
    p = d.problem(None, final_time=d.settings["initial_time"] + d.settings["time_step"])
    p.run()
    res = p.eigen.results[0]
    lam = res.lam[res.selected]
    expect = ref[:, 1] + 1j * ref[:, 2]
    assert len(lam) == n_modes
    nearest = np.abs(lam[None, :] - expect[:, None]).min(axis=1)      # MBDyn prints 6 digits
    assert np.all(nearest <= 1e-5 * np.abs(expect)), (lam, expect)
    assert len(set(np.abs(lam[None, :] - expect[:, None]).argmin(axis=1))) == n_modes


@pytest.mark.parametrize("card,message", [
    ("eigenanalysis: list, 0;", "at least one time"),
    ("eigenanalysis: 0., output wrong;", "eigenanalysis option"),
    ("eigenanalysis: 0., parameter, 0.;", "parameter must not be zero"),
    ("eigenanalysis: 0., lower frequency limit, 5., upper frequency limit, 1.;", "upper frequency limit"),
])
def test_bad_card(tmp_path, card, message):
    from mbdae.engine.io.mbdyn.deck import read_deck, DeckError
    with pytest.raises(DeckError, match=message):
        read_deck(_deck(tmp_path, card), echo=lambda *a: None)
