"""`mbdae conformance DIR` on a small tree: a deck that runs, one with an unsupported
element (named, with file:line:column), one with a syntax error, and a non-deck file; the
comparison with MBDyn-format reference outputs (engine/io/mbdyn_ref.py) against an exact
motion and a perturbed copy of it, and on real decks with MBDyn 1.7.3's outputs."""
import csv
import gzip
import os

import numpy as np
import pytest

from mbdae.cli import main
from mbdae.engine.io.mbdyn.conformance import conformance, totals, write_reports

GOOD = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3; end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; end: control data;
begin: nodes; structural: 1, dynamic, null, eye, null, null; end: nodes;
begin: elements; body: 1, 1, 1., null, eye; end: elements;
"""
UNSUPPORTED = GOOD.replace("rigid bodies: 1;", "rigid bodies: 1; joints: 1;").replace(
    "body: 1, 1, 1., null, eye;", "body: 1, 1, 1., null, eye;\n joint: 2, gimbal rotation, 1, 1;")
BROKEN = GOOD.replace("final time: 0.01;", "final time 0.01;")


def test_conformance_table(tmp_path, capsys):
    root = tmp_path / "decks"
    (root / "sub").mkdir(parents=True)
    (root / "good.mbd").write_text(GOOD)
    (root / "sub" / "unsupported").write_text(UNSUPPORTED)
    (root / "sub" / "broken.mbd").write_text(BROKEN)
    (root / "notes.txt").write_text("not a deck\n")
    prefix = str(tmp_path / "reports" / "new" / "report")      # a folder that does not exist yet
    assert main(["conformance", str(root), "--budget", "60", "-o", prefix]) == 0
    assert "decks found: 3, parsed: 1, ran to completion: 1" in capsys.readouterr().out
    rows = {r["deck"]: r for r in csv.DictReader(open(prefix + ".csv"))}
    assert rows["good.mbd"]["ran"] == "True" and int(rows["good.mbd"]["steps"]) == 10
    bad = rows[os.path.join("sub", "unsupported")]
    assert bad["parsed"] == "False" and "gimbal rotation" in bad["first_error"] and "unsupported:" in bad["first_error"]
    assert rows[os.path.join("sub", "broken.mbd")]["parsed"] == "False"
    md = open(prefix + ".md").read()
    assert "| good.mbd | yes | yes | 10 |" in md


# =========================================================================== comparison with MBDyn

FALL = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.; time step: 1e-2; method: ms, .6; end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; gravity; end: control data;
begin: nodes; structural: 1, dynamic, null, eye, null, null; end: nodes;
begin: elements; body: 1, 1, 1., null, eye; gravity: uniform, 0., 0., -1., const, 9.81; end: elements;
"""
G = 9.81


def write_reference(ref_root, deck, shift=None, subset="visible"):
    """An MBDyn-format reference folder (in ref_root/subset) for FALL from the exact free fall
    z = -g t²/2, vz = -g t, kept every 10th step; `shift` = (block, column, amount) perturbs
    one value."""
    key = deck.replace("/", "__")
    folder = os.path.join(ref_root, subset, key)
    os.makedirs(folder)
    open(os.path.join(ref_root, "manifest.csv"), "w").write("set,deck,status\n")
    steps = np.arange(0, 101, 10)
    times = steps * 1e-2
    with gzip.open(os.path.join(folder, key + ".kept_steps.csv.gz"), "wt") as f:
        f.write("block,step,time\n" + "".join(f"{s},{s},{t:g}\n" for s, t in zip(steps, times)))
    with gzip.open(os.path.join(folder, key + ".log.gz"), "wt") as f:
        f.write("structural node: 1 0 0 0 euler123 0 0 0\n")
    rows = np.zeros((len(times), 12))
    rows[:, 2] = -0.5 * G * times ** 2
    rows[:, 8] = -G * times
    if shift:
        rows[shift[0], shift[1] - 2] += shift[2]
    with gzip.open(os.path.join(folder, key + ".mov.gz"), "wt") as f:
        f.writelines("%8d" % 1 + "".join(f" {v:.6e}" for v in r) + "\n" for r in rows)


def test_conformance_compares_with_a_reference(tmp_path, capsys):
    """Free fall against its exact motion written as an MBDyn reference: agrees (ms, ρ∞ = .6
    integrates a constant acceleration exactly); the same deck against a reference with one
    y value moved by 1e-2 of the model size (g/2 m) at t = 0.5 is reported with that size,
    file, label, column and time, and agrees only until t = 0.4 (that reference sits in the
    second set's folder, wave2/)."""
    root, ref = tmp_path / "decks", str(tmp_path / "ref")
    (root / "sub").mkdir(parents=True)
    (root / "fall.mbd").write_text(FALL)
    (root / "sub" / "shifted.mbd").write_text(FALL)
    (root / "alone.mbd").write_text(FALL)
    write_reference(ref, "fall.mbd")
    size = 0.5 * G
    write_reference(ref, "sub/shifted.mbd", shift=(5, 3, 1e-2 * size), subset="wave2")   # second set
    prefix = str(tmp_path / "report")
    assert main(["conformance", str(root), "--ref", ref, "-o", prefix]) == 0
    assert ("decks found: 3, parsed: 3, ran to completion: 3, compared with MBDyn: 2, agree: 1 "
            "(node motion alone: 1)") in capsys.readouterr().out
    rows = {r["deck"]: r for r in csv.DictReader(open(prefix + ".csv"))}
    good = rows["fall.mbd"]
    assert good["agrees"] == "True" and int(good["compared_steps"]) == 11
    assert float(good["position"]) < 1e-9 and float(good["agrees_until"]) == 1.0
    bad = rows[os.path.join("sub", "shifted.mbd")]
    extent = size * np.hypot(1.0, 1e-2)            # the moved value widens the model's extent
    assert bad["agrees"] == "False" and float(bad["position"]) == pytest.approx(1e-2 * size / extent, rel=1e-6)
    assert bad["worst_at"] == ".mov label 1 column 3 t=0.5" and float(bad["agrees_until"]) == pytest.approx(0.4)
    assert rows["alone.mbd"]["compared_steps"] == "0" and rows["alone.mbd"]["reference"] == "False"
    md = open(prefix + ".md").read()
    assert "| alone.mbd | yes | yes | 100 |" in md and "| no reference |" in md


# =========================================================================== real decks

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
TESTS_DIR = os.path.join(SHARED, "mbdyn-tests")
REF_ROOT = os.path.join(SHARED, "mbdyn-ref")


def test_conformance_on_mbdyn_decks(tmp_path):
    """A few quick real decks through the conformance machinery with MBDyn 1.7.3's outputs:
    body/body agrees in full; imp's node motion agrees and its reactions differ only at the
    first kept step, named as MBDyn's start-up; chain15's difference is named as MBDyn's
    derivatives-phase momentum."""
    decks = ["body/body", "joints/impdisp/imp", "body/chain15/chain15"]
    if not all(os.path.isfile(os.path.join(TESTS_DIR, d)) for d in decks) or not os.path.isdir(REF_ROOT):
        pytest.skip(f"MBDyn test decks or reference outputs not found under {SHARED} "
                    "(../shared/mbdyn-tests and ../shared/mbdyn-ref relative to the repository)")
    out = {os.path.relpath(o.deck, TESTS_DIR): o
           for o in conformance(TESTS_DIR, budget=120, decks=decks, scratch=str(tmp_path))}
    assert totals(out.values()) == dict(found=3, parsed=3, ran=3, compared=3, agree=1, motion_agree=2)
    body, imp, chain = out["body/body"], out["joints/impdisp/imp"], out["body/chain15/chain15"]
    assert body.agrees and body.compared_steps == 50 and body.position < 1e-6
    assert imp.motion_agrees and not imp.agrees and imp.reaction < 1e-3
    assert imp.explanation.startswith("MBDyn: start-up transient")
    assert imp.worst_at == ".jnt label 1 column 2 t=0.02"
    assert not chain.motion_agrees and chain.explanation.startswith("MBDyn: derivatives phase")


# decks of ../shared/mbdyn-tests that must parse and run to completion (the list grows with
# each element family), those whose node motion agrees with MBDyn 1.7.3's within 1e-4
# (positions / model size, rotations in rad) over the deck's whole run, and those whose
# joint reactions agree too (engine/io/mbdyn_ref.py); MOTION_AGREES and AGREES as measured on
# 2026-11-26 with rotations re-based on the prediction (`mbdae conformance ../shared/mbdyn-tests
# --budget 60`: 305 found, 160 parsed, 153 ran, 104 compared, 67 agree, 84 in node motion)
MUST_RUN = [
    "beam/b", "beam/bb", "beam/bb_legacy", "beam/bcurl", "benchmarks/6barmech/6barmech",
    "benchmarks/andrewssqueezer/andrewssqueezer_assembler", "benchmarks/srskm/srscm", "body/body",
    "body/bullet", "body/chain15/chain15", "body/spinningbody", "body/spintop/spintop",
    "drives/drivecallers/periodic", "invdyn/beam2/idcheck.mbd", "invdyn/beam2/ivcheck.mbd",
    "joints/deformablehinge/deformableaxialjoint", "joints/deformablehinge/deformabledisplacementjoint",
    "joints/deformablehinge/deformabledisplacementjoint0",
    "joints/deformablehinge/deformabledisplacementjointoffset",
    "joints/deformablehinge/deformablejoint", "joints/deformablehinge/deformablejoint-beam",
    "joints/deformablehinge/deformablejoint2", "joints/deformablehinge/invariantdeformablehinge",
    "joints/drvdisp/drv", "joints/drvdisp/drvpin", "joints/drvhinge/drv",
    "joints/flywheel/flywheel_drive", "joints/impdisp/imp", "joints/impdisp/imp0",
    "joints/impdisp/imppin0", "joints/modal/two-beams/bauchau0", "joints/modal/two-beams/beam",
    "joints/modal/two-beams/beam-force", "joints/modal/two-beams/rigid",
    "joints/modal/two-beams/rigid-force", "joints/plane/output", "joints/rod/rodwithoffset2",
    "joints/spherical/spherical", "joints/total/piecewiseConstantVelocity", "joints/total/total",
    "joints/total/total_err", "joints/total/totalpin", "joints/total/totalvel",
    "joints/viscousbody/viscousbody", "stiff/Swing4"
]
AGREES = [
    "beam/DETC2007-35511/beam", "beam/DETC2007-35511/beam_legacy", "beam/DETC2007-35511/modal",
    "beam/DETC2007-35511/modal_legacy", "beam/b", "beam/bb", "beam/bb_legacy", "beam/bcurl",
    "beam/beig", "beam/beig_legacy", "beam/bind/bind", "beam/h", "beam/h_legacy", "beam/r",
    "beam/r_legacy", "benchmarks/andrewssqueezer/andrewssqueezer_assembler", "body/body",
    "body/bullet", "body/spinningbody", "drives/drivecallers/closestnext",
    "drives/drivecallers/drive_string_nested", "drives/drivecallers/periodic", "forces/modal/modal",
    "forces/modal/modal-clamped", "invdyn/beam2/ivcheck.mbd", "invdyn/eqreac/twomasses.mbd",
    "invdyn/eqreac/twomasses2.mbd", "invdyn/eqreac/twomasses3.mbd",
    "invdyn/eqreac/twomasses_elastic.mbd", "invdyn/invdyn1",
    "joints/deformablehinge/deformableaxialjoint",
    "joints/deformablehinge/deformabledisplacementjoint0", "joints/deformablehinge/deformablejoint",
    "joints/deformablehinge/deformablejoint-beam", "joints/deformablehinge/deformablejoint2",
    "joints/deformablehinge/deformablejointeig", "joints/deformablehinge/deformablejointeig2",
    "joints/deformablehinge/invariantdeformablehinge", "joints/distance/distance",
    "joints/distance/distancedisp", "joints/flywheel/flywheel_axial", "joints/modal/beam/beam.mbd",
    "joints/modal/beam/beam_clamped.mbd", "joints/modal/code-aster/model",
    "joints/modal/floating-frame-beam/floating-frame-beam", "joints/modal/hand-made/2mk_decoupled",
    "joints/modal/hand-made/2mk_decoupled_hidden", "joints/modal/hand-made/2mk_grounded",
    "joints/modal/hand-made/2mk_grounded_hidden", "joints/modal/hand-made/hand-made",
    "joints/modal/hand-made/ssbeam", "joints/modal/hand-made/ssbeam_clamped",
    "joints/modal/hand-made/ssbeam_i", "joints/modal/puma/airframe.mbd",
    "joints/modal/two-beams/bauchau0", "joints/modal/two-beams/beam",
    "joints/modal/two-beams/beam-force", "joints/modal/two-beams/modal-force",
    "joints/modal/two-beams/rigid-force", "joints/plane/output", "joints/rod/rodwithprestrain",
    "joints/spherical/spherical", "joints/total/piecewiseConstantVelocity",
    "joints/total/totaleq/triangle", "joints/total/totaleq/triangle2",
    "joints/viscousbody/viscousbody", "stiff/pendulum_reg"
]
# node motion agrees, reactions not (or not compared)
MOTION_ONLY = [
    "invdyn/beam/planar_3link_rod.mbd", "invdyn/pa10_test_traj", "invdyn/pa10_test_traj3",
    "invdyn/planar_3link.mbd", "invdyn/planar_3link_ergo.mbd", "invdyn/planar_3link_ergo2.mbd",
    "invdyn/planar_3link_ergo2_driven.mbd", "invdyn/planar_3link_ergo_gravity.mbd",
    "joints/flywheel/flywheel_drive", "joints/impdisp/imp", "joints/total/total",
    "joints/total/total_err", "joints/total/totaleq/compute_torque", "joints/total/totalhint",
    "joints/total/totalpin", "joints/total/totalvel", "stiff/Swing4"
]
MOTION_AGREES = AGREES + MOTION_ONLY



@pytest.mark.slow
def test_conformance_over_the_mbdyn_test_tree(tmp_path):
    """The whole of ../shared/mbdyn-tests (305 decks; about 30 minutes): the decks of
    MUST_RUN parse and run, and those of MOTION_AGREES / AGREES agree with MBDyn."""
    if not os.environ.get("MBDAE_LONG"):
        pytest.skip("long check (marked slow): run with MBDAE_LONG=1")
    if not os.path.isdir(TESTS_DIR) or not os.path.isdir(REF_ROOT):
        pytest.skip(f"MBDyn test decks or reference outputs not found under {SHARED} "
                    "(../shared/mbdyn-tests and ../shared/mbdyn-ref relative to the repository)")
    outcomes = conformance(TESTS_DIR, budget=120, scratch=str(tmp_path))
    write_reports(outcomes, TESTS_DIR, str(tmp_path / "report"))
    by_deck = {os.path.relpath(o.deck, TESTS_DIR): o for o in outcomes}
    assert not [d for d in MUST_RUN if not by_deck[d].ran], [(d, by_deck[d].first_error) for d in MUST_RUN]
    assert not [d for d in MOTION_AGREES if not by_deck[d].motion_agrees]
    assert not [d for d in AGREES if not by_deck[d].agrees]
    t = totals(outcomes)
    assert t["found"] == 305 and t["ran"] >= 153 and t["agree"] >= len(AGREES)
