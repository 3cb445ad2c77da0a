"""Parameter nodes, `bind`, beam private data and the `element` drive (engine/parameters.py,
engine/privdata.py): a beam strain gage against the strain of a cantilever under known
loads, MBDyn's beam/bind/bind deck against MBDyn 1.7.3's outputs, and bad input."""
import os

import numpy as np
import pytest

from mbdae import initial_value_problem
from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core.drives import LinearDrive
from mbdae.engine.io.mbdyn import reference as mr
from mbdae.engine.io.mbdyn.deck import DeckError, parse_deck

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
DECK = os.path.join(SHARED, "mbdyn-tests", "beam", "bind", "bind")
REF = os.path.join(SHARED, "mbdyn-ref", "visible", "beam__bind__bind")

EA, EIy, EIz = 1e6, 2e5, 1e5
F, MY, MZ = 10.0, 10.0, 2.0               # rotations ~1e-4, axial force × deflection ~F L²/EI = 1e-4 M
Y, Z = 0.1, 0.2                           # gage fibre


def _cantilever():
    """beam3 along x, clamped at node 1; tip axial force F and tip couples My, Mz (absolute,
    constant): ν = F/EA, κ_y = My/EIy, κ_z = Mz/EIz all along the beam."""
    m = Model()
    for i in range(3):
        m.structural_node(i + 1, "static", position=[0.5 * i, 0.0, 0.0])
    m.clamp(1, 1)
    law = cl.linear_elastic(6, np.diag([EA, 0.8e6, 0.8e6, 1e5, EIy, EIz]))
    m.beam3(10, 1, 2, 3, law)
    m.force(1, 3, [F, 0.0, 0.0])
    m.couple(2, 3, [0.0, MY, MZ])
    m.parameter_node(1, "beam strain gage", y=Y, z=Z)
    m.parameter_node(2, "beam strain gage", y=Y, z=Z)
    m.parameter_node(3, "element")
    m.parameter_node(4, "element")
    m.parameter_node(5, "value", value=-3.5)
    m.bind(10, "beam", 1, index=1)
    m.bind(10, "beam", 2, index=2)
    m.bind(10, "beam", 3, name="pII.kz")
    m.bind(10, "beam", 4, index=5)                  # MBDyn's index 5 of a beam3: "pI.ky"
    return m


def test_beam_strain_gage_matches_cantilever_strain(tmp_path):
    prefix = str(tmp_path / "cant")
    initial_value_problem(_cantilever(), final_time=0.003, time_step=1e-3, tolerance=1e-9,
                        output_prefix=prefix, output_precision=16, progress=False).run()
    last = mr.blocks(mr.read_lines(prefix + ".prm"))[-1]
    nu, ky, kz = F / EA, MY / EIy, MZ / EIz
    gage = nu + Z * ky - Y * kz
    scale = abs(nu) + abs(Z * ky) + abs(Y * kz)
    for label in (1, 2):                              # both evaluation points
        assert abs(last[label][0] - gage) < 1e-3 * scale, (label, last[label][0], gage)
    assert abs(last[3][0] - kz) < 1e-3 * kz
    assert abs(last[4][0] - ky) < 1e-3 * ky
    assert last[5][0] == -3.5


def test_element_drive_reads_beam_private_data(tmp_path):
    """Abstract forces from `element` drives of the beam's strain and curvatures on a unit
    spring support: x = ν + z κ_y - y κ_z (the deck's construction, here against the analytic
    strains).  The drives have no time derivative (they read the state)."""
    m = _cantilever()
    m.abstract_node(1, "algebraic")
    m.spring_support(1, 1, cl.LinearElastic1D(1.0))
    m.abstract_force(2, 1, m.element_drive("beam", 10, "pI.ex", LinearDrive(0.0, 1.0)))
    m.abstract_force(3, 1, m.element_drive("beam", 10, "pI.ky", LinearDrive(0.0, Z)))
    m.abstract_force(4, 1, m.element_drive("beam", 10, "pI.kz", LinearDrive(0.0, -Y)))
    prefix = str(tmp_path / "drv")
    initial_value_problem(m, final_time=0.003, time_step=1e-3, tolerance=1e-9,
                        output_prefix=prefix, output_precision=16, progress=False).run()
    x = mr.blocks(mr.read_lines(prefix + ".abs"))[-1][1][0]
    gage = mr.blocks(mr.read_lines(prefix + ".prm"))[-1][1][0]
    exact = F / EA + Z * MY / EIy - Y * MZ / EIz
    assert abs(x - exact) < 1e-3 * abs(exact)
    assert abs(x - gage) < 1e-9 * abs(exact)           # same quantity through two paths
    with pytest.raises(ValueError, match="not differentiable"):
        m.abstract_forces[0].drive.derivative(0.0)


# ---------------------------------------------------------------------------- MBDyn's deck
def _manifest_sizes():
    with open(os.path.join(SHARED, "mbdyn-ref", "manifest.csv")) as f:
        for line in f:
            if line.startswith("visible,beam/bind/bind,"):
                return dict(kv.split(":") for kv in line.strip().split(",")[-1].split(";"))
    return {}


@pytest.fixture(scope="module")
def bind_run(tmp_path_factory):
    if not (os.path.exists(DECK) and os.path.isdir(REF)):
        pytest.skip("../shared (MBDyn decks and reference outputs) is not available")
    from mbdae.engine.io.mbdyn.deck import read_deck
    prefix = str(tmp_path_factory.mktemp("bind") / "bind")
    deck = read_deck(DECK, echo=lambda *a, **k: None)
    deck.run(output_prefix=prefix, progress=False)
    return prefix


def _ref_and_ours(prefix, ext):
    ref = mr.blocks(mr.read_lines(os.path.join(REF, f"beam__bind__bind.{ext}.gz")))
    ours = mr.blocks(mr.read_lines(f"{prefix}.{ext}"))
    times = mr.output_times(mr.read_lines(prefix + ".out"))
    k = mr._match(mr.kept_times(REF), np.asarray(times))
    assert len(ref) == len(k) and (k >= 0).all()
    return ref, [ours[j] for j in k]


def test_bind_deck_motion_and_beam_loads_agree_with_mbdyn(bind_run):
    c = mr.compare_outputs(REF, bind_run)
    assert c.compared_steps == 50 and not c.problems
    assert c.position.value <= 1e-4 and c.rotation.value <= 1e-4, (c.position.where(), c.rotation.where())
    ref, ours = _ref_and_ours(bind_run, "act")
    scale = max(np.abs(v).max() for b in ref for v in b.values())
    worst = max(np.abs(o[100] - r[100]).max() for r, o in zip(ref, ours)) / scale
    assert worst <= 1e-4, worst


def test_bind_deck_abstract_force_gage_and_abstract_node_agree_with_mbdyn(bind_run):
    """MBDyn's .frc row of abstract force 0 is ν + .01 κ_y - .01 κ_z at point I (the element
    drives); the same number is strain gage 204 (y = z = .01 at point I) and, through the unit
    spring support, the abstract node's x."""
    ref, ours = _ref_and_ours(bind_run, "frc")
    F_ref = np.array([b[0][-1] for b in ref])
    F_ours = np.array([b[0][-1] for b in ours])
    scale = np.abs(F_ref).max()
    assert np.abs(F_ours - F_ref).max() <= 1e-4 * scale
    assert all(b[0][0] == 0 for b in ours)                    # node label column
    times = mr.output_times(mr.read_lines(bind_run + ".out"))
    k = mr._match(mr.kept_times(REF), np.asarray(times))
    prm = mr.blocks(mr.read_lines(bind_run + ".prm"))
    gage = np.array([prm[j][204][0] for j in k])
    assert np.abs(gage - F_ref).max() <= 1e-4 * scale
    absx = mr.blocks(mr.read_lines(bind_run + ".abs"))
    x = np.array([absx[j][0][0] for j in k])
    # k x = F holds to the deck's residual tolerance (1e-6) only: F ~ 1e-5 is so small that a
    # predicted x within 1e-6 passes the convergence test without a correction
    assert np.abs(x - F_ref).max() <= 1e-6
    assert set(prm[-1]) == {201, 202, 203, 204, 211, 212, 213, 214}


def test_bind_deck_prm_file_matches_mbdyn_size(bind_run):
    """The reference .prm itself is not in ../shared, only its size (manifest.csv): 8 rows of
    `label value` per step, 22 characters plus one per minus sign.  The size tells how many
    gage values are negative: the bending term -y κ_z outweighs ν at both points after the
    z couple (as mbdae's point-II gages give; MBDyn 1.7.3's StrainGageParam with the index of
    the second point would read point I's force and moment instead, all positive here)."""
    sizes = _manifest_sizes()
    assert os.path.getsize(bind_run + ".prm") == int(sizes["prm"])


def test_bind_deck_writes_the_files_mbdyn_wrote(tmp_path, capsys):
    """`mbdae run` writes the same set of output files as MBDyn did for this deck (manifest.csv:
    abs, act, frc, gen, jnt, log, mov, out, prm), the .gen of the spring support empty as
    MBDyn's, and says so in its closing line."""
    if not (os.path.exists(DECK) and os.path.isdir(REF)):
        pytest.skip("../shared (MBDyn decks and reference outputs) is not available")
    from mbdae.cli import main as cli_main
    sizes = _manifest_sizes()
    prefix = str(tmp_path / "bind")
    assert cli_main(["run", DECK, "-o", prefix]) == 0
    written = sorted(f[len("bind."):] for f in os.listdir(tmp_path) if f.startswith("bind."))
    assert written == sorted(sizes)
    assert os.path.getsize(prefix + ".gen") == int(sizes["gen"]) == 0
    assert "output in " + prefix + ".{" + ",".join(sorted(sizes)) + "}" in capsys.readouterr().err


# ---------------------------------------------------------------------------- bad input
BASE = """
begin: data; problem: initial value; end: data;
begin: initial value; time step: 1e-3; initial time: 0; final time: 1e-3; end: initial value;
begin: control data; structural nodes: 3; parameter nodes: {npar}; joints: 1; beams: 1; end: control data;
begin: nodes;
    structural: 1, static, null, eye, null, null;
    structural: 2, static, .5, 0, 0, eye, null, null;
    structural: 3, static, 1, 0, 0, eye, null, null;
{params}
end: nodes;
begin: elements;
    joint: 1, clamp, 1, node, node;
    beam3: 10, 1, null, 2, null, 3, null, eye, linear elastic generic, diag, 1e6, 1e6, 1e6, 1e3, 1e3, 1e3,
        same, same;
{binds}
end: elements;
"""


def _deck(params, binds, npar):
    return BASE.format(params=params, binds=binds, npar=npar)


def test_good_deck_reads():
    parse_deck(_deck("    parameter: 5, element;", '    bind: 10, beam, 5, string, "pII.Mz";', 1),
               name="good.mbd", echo=lambda *a, **k: None)


@pytest.mark.parametrize("params,binds,npar,word,message", [
    ("    parameter: 5, element;", '    bind: 10, beam, 5, string, "pI.qx";', 1, '"pI.qx"', "no private datum"),
    ("    parameter: 5, element;", '    bind: 11, beam, 5, string, "pI.ex";', 1, "11", "beam 11 is not defined"),
    ("    parameter: 5, element;\n    parameter: 5, element;", "", 2, "5", "already defined"),
    ("    parameter: 5, element;", '    bind: 10, beam, 6, index, 1;', 1, "6", "parameter node 6 is not defined"),
    ("    parameter: 5, beam strain gage, .1, .1;", '    bind: 10, beam, 5, 3;', 1, "3", "out of range"),
])
def test_bad_bind_input_names_file_line_and_word(params, binds, npar, word, message):
    text = _deck(params, binds, npar)
    with pytest.raises(DeckError) as info:
        parse_deck(text, name="bad.mbd", echo=lambda *a, **k: None)
    e = info.value
    assert e.file == "bad.mbd" and message in e.message and e.word.strip() == word, str(e)
    assert word in text.splitlines()[e.line - 1]
