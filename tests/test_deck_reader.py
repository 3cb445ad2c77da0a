"""MBDyn input-deck reader (engine/io/mbdyn_deck.py) and the `mbdae` command.

Unit tests use small decks written to tmp_path.  Integration tests read real decks from
../shared/mbdyn-tests (third-party data, read in place) and compare the node motion in the
.mov file with MBDyn 1.7.3's own output in ../shared/mbdyn-ref; they skip when absent."""
import gzip
import math
import os

import numpy as np
import pytest

from mbdae.engine.core import rotations as rot
from mbdae.engine.io.mbdyn import reference as mbdyn_ref
from mbdae.engine.io.mbdyn.deck import (DeckError, Source, parse_deck, read_deck, scan_cards)
from mbdae.cli import main as cli_main

HERE = os.path.dirname(__file__)
SHARED = os.path.join(HERE, "..", "..", "shared")
TESTS_DIR = os.path.join(SHARED, "mbdyn-tests")
REF_DIR = os.path.join(SHARED, "mbdyn-ref", "visible")

DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: {final};
    time step: 1e-2;
{problem}
end: initial value;
begin: control data;
{control}
end: control data;
{pre}
begin: nodes;
{nodes}
end: nodes;
begin: elements;
{elements}
end: elements;
"""
ONE_NODE = "    structural: 1, dynamic, null, eye, null, null;"


def deck_text(nodes=ONE_NODE, elements="", control="    structural nodes: 1;", problem="", pre="",
              final="0.1"):
    return DECK.format(nodes=nodes, elements=elements, control=control, problem=problem, pre=pre,
                       final=final)


def parse(text, tmp_path, name="deck.mbd"):
    path = tmp_path / name
    path.write_text(text)
    return read_deck(str(path), echo=lambda *a: None)


def position(text, needle, nth=0):
    """(line, column) of the nth occurrence of needle in text, 1-based."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


def expect_error(tmp_path, text, needle, message, nth=0, name="deck.mbd"):
    with pytest.raises(DeckError) as info:
        parse(text, tmp_path, name)
    line, col = position(text, needle, nth)
    assert str(info.value) == f"{tmp_path / name}:{line}:{col}: {message}"
    return info.value


# =========================================================================== tokenizer

def test_cards_split_on_semicolons_outside_strings_and_comments():
    text = ('set: real A = 1; # a comment; with a semicolon\n'
            'remark: "a;b#c", A;  /* block; comment\n over lines */ print symbol table;\n'
            'set: real B = (real r = 2.; r*3);\n')
    cards = list(scan_cards(Source("x.mbd", text)))
    assert [c.key for c in cards] == ["set", "remark", "printsymboltable", "set"]
    assert [a.text for a in cards[1].args] == ['"a;b#c"', "A"]
    assert cards[3].body.text == "real B = (real r = 2.; r*3)"


def test_words_keep_file_line_and_column():
    text = "begin: data;\n  problem :\n     initial   value ;\n"
    cards = list(scan_cards(Source("f.mbd", text)))
    assert cards[1].name.where() == (2, 3)
    assert cards[1].args[0].where() == (3, 6)
    assert cards[1].args[0].keyword == "initialvalue"


def test_comments_inside_multiline_expressions(tmp_path):
    d = parse(deck_text(control="    structural nodes:\n        +1 # ground\n        +1 # body\n    ;",
                        nodes="    structural: 1, static, null, eye, null, null;\n" + ONE_NODE.replace("1,", "2,", 1)),
              tmp_path)
    assert [n.label for n in d.model.nodes] == [1, 2]


def test_keywords_are_case_and_blank_insensitive(tmp_path):
    text = deck_text(final="0.5").replace("begin: control data;", "BEGIN: Control   Data;") \
        .replace("end: control data;", "end: controldata;").replace("final time", "Final  TIME")
    d = parse(text, tmp_path)
    assert d.settings["final_time"] == 0.5


def test_unterminated_card_and_string_are_reported(tmp_path):
    text = deck_text()
    text = text[:text.index("begin: elements;")] + "begin: elements;\n    set: real X = 1\n"
    expect_error(tmp_path, text, "set: real X", "';' expected: the card is not terminated "
                 "(at 'set: real X = 1')")
    text = deck_text(pre='remark: "oops;')
    expect_error(tmp_path, text, '"oops', "unterminated string (at '\"oops; begin: nodes;')")


# =========================================================================== math, set:, include

def test_set_precedence_types_and_ifndef(tmp_path):
    pre = ("set: real A = -2^2;\nset: real B = 4^3^2;\nset: integer I = 7/2;\nset: real Q = 1/3;\n"
           "set: const real C = 2.;\nset: ifndef real C = 5.;\nset: real S = 1 + 2*3 - (1 > 0) * 10;\n")
    nodes = "    structural: 1, dynamic, A, B/1e5, I, eye, C, Q, S, null;"
    d = parse(deck_text(pre=pre, nodes=nodes), tmp_path)
    spec = d.model.nodes[0]
    np.testing.assert_allclose(spec.x, [4.0, 2.62144, 3.0])
    np.testing.assert_allclose(spec.v, [2.0, 0.0, -3.0])


def test_redefinition_and_const_assignment_are_errors(tmp_path):
    text = deck_text(pre="set: real X = 1.;\nset: real X = 2.;")
    err = expect_error(tmp_path, text, "real X = 2.",
                       'math error: cannot redefine variable "X"; assign it with "X = ..." instead '
                       "(at 'real X = 2.')")
    assert err.line == 14


def test_include_is_relative_to_the_including_file_and_reparsed(tmp_path):
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "sub" / "nodes.inc").write_text('include: "deeper/one.inc";\ninclude: "deeper/one.inc";\n')
    (tmp_path / "sub" / "deeper" / "one.inc").write_text(
        "set: CURR = CURR + 1;\nstructural: CURR, static, CURR, 0., 0., eye, null, null;\n")
    text = deck_text(pre="set: integer CURR = 0;", control="    structural nodes: 2;",
                     nodes='    include: "sub/nodes.inc";')
    d = parse(text, tmp_path)
    assert [n.label for n in d.model.nodes] == [1, 2]
    assert d.model.nodes[1].x[0] == 2.0


def test_errors_in_included_files_name_that_file(tmp_path):
    included = "# header\n  joint: 1, gimbal rotation, 1, 1;\n"
    (tmp_path / "bad.inc").write_text(included)
    text = deck_text(control="    structural nodes: 1;\n    joints: 1;", elements='    include: "bad.inc";')
    with pytest.raises(DeckError) as info:
        parse(text, tmp_path)
    line, col = position(included, "gimbal")
    assert (line, col) == (2, 13)
    assert str(info.value) == f"{tmp_path}/bad.inc:2:13: not supported yet: gimbal rotation (joint) (at 'gimbal rotation')"


def test_remark_prints_like_mbdyn(tmp_path):
    lines = []
    path = tmp_path / "d.mbd"
    path.write_text(deck_text(pre='set: real X = 2.5;\nremark: "X is", X, 2*3;'))
    d = read_deck(str(path), echo=lines.append)
    assert lines == ["line 14, file <%s>: X is, 2.5, 6" % path]
    assert d.remarks == lines


# =========================================================================== error messages

def test_unsupported_element_names_the_type(tmp_path):
    text = deck_text(control="    structural nodes: 1;\n    beams: 1;", elements="    hbeam2: 1, 1, null;")
    expect_error(tmp_path, text, "hbeam2", "not supported yet: hbeam2 (element) (at 'hbeam2')")


def test_unsupported_problem_keyword(tmp_path):
    text = deck_text(problem="    real time: posix;")
    expect_error(tmp_path, text, "real time", "not supported yet: real time (at 'real time')")
    text = deck_text(control="    structural nodes: 1;\n    default scale: structural nodes, 2.;")
    expect_error(tmp_path, text, "default scale",
                 "not supported yet: default scale (residual scaling) (at 'default scale')")


def test_syntax_error_says_what_was_expected(tmp_path):
    text = deck_text(control="    structural nodes: 1;\n    joints: 1;",
                     elements="    joint: 1, clamp, 1, node, node, 3;")
    expect_error(tmp_path, text, "3;", "syntax error: 'output' or ';' expected (at '3')")
    text = deck_text(nodes="    structural: 1, dynamic, null, eye, null; # missing")
    expect_error(tmp_path, text, "; # missing", "syntax error: a vector component expected before ';' (at ';')")


def test_math_error_points_at_the_column(tmp_path):
    text = deck_text(nodes="    structural: 1, dynamic, 1. + * 2., 0., 0., eye, null, null;")
    expect_error(tmp_path, text, "* 2.", "math error: expected an expression but found '*' (at '1. + * 2.')")


def test_unknown_description_and_undefined_node(tmp_path):
    text = deck_text(problem="    frobnicate: 3;")
    expect_error(tmp_path, text, "frobnicate", "syntax error: unknown description 'frobnicate' in the "
                 "initial value block (at 'frobnicate')")
    text = deck_text(control="    structural nodes: 1;\n    rigid bodies: 1;", elements="    body: 1, 7, 1., null, eye;")
    expect_error(tmp_path, text, "7, 1.", "Structural(7) not defined (at '7')")


def test_counts_are_checked_like_mbdyn(tmp_path):
    clamp = "    joint: {0}, clamp, 1, node, node;"
    text = deck_text(control="    structural nodes: 1;\n    joints: 1;",
                     elements=clamp.format(1) + "\n" + clamp.format(2))
    expect_error(tmp_path, text, "2, clamp", "Joint(2) exceeds joint elements number (at '2')")
    text = deck_text(control="    structural nodes: 1;\n    joints: 2;\n    rigid bodies: 1;",
                     elements=clamp.format(1))
    expect_error(tmp_path, text, "end: elements", "2 elements are missing; 1 Rigid Body, 1 Joint (at 'end')")
    text = deck_text(control="    structural nodes: 2;")
    expect_error(tmp_path, text, "end: nodes", "1 nodes are missing; 1 Structural (at 'end')")
    text = deck_text(elements="    gravity: 0., 0., -1., 9.81;")
    expect_error(tmp_path, text, "gravity:", "Gravity is not defined (add 'gravity;' to the control data) "
                 "(at 'gravity')")


def test_blocks_must_come_in_order(tmp_path):
    text = deck_text().replace("begin: initial value;", "begin: control data;\nend: control data;\n"
                               "begin: initial value;", 1)
    expect_error(tmp_path, text, "control data;", "syntax error: 'begin: initial value;' expected before "
                 "'begin: control data;' (at 'control data')")
    text = deck_text().replace("begin: nodes;", "begin: elements;\nend: elements;\nbegin: nodes;")
    expect_error(tmp_path, text, "elements;", "syntax error: 'begin: nodes;' expected before 'begin: elements;' "
                 "(at 'elements')")


# =========================================================================== geometry

def R_z(a):
    return rot.euler123_to_R([0.0, 0.0, a])


def test_reference_frames_chain_and_relative_inputs(tmp_path):
    pre = ("reference: 1, 1., 0., 0., euler123, 0., 0., pi/2, null, 0., 0., 2.;\n"
           "reference: 2, reference, 1, 0., 1., 0., reference, 1, eye, reference, 1, null, reference, 1, null;\n")
    nodes = ("    structural: 1, dynamic, reference, 2, null, reference, 2, eye, reference, 2, null, "
             "reference, 2, null;\n"
             "    structural: 2, static, reference, 1, 1., 0., 0., reference, 1, eye, null, null;")
    elements = ("    body: 1, 1, 2., reference, global, 0., 0., 0., reference, global, diag, 1., 2., 3.;\n"
                "    joint: 1, spherical hinge, 1, reference, global, 0., 1., 0.,\n"
                "        2, reference, other node, 0., 0., 0.;")
    d = parse(deck_text(pre=pre, nodes=nodes, elements=elements,
                        control="    structural nodes: 2;\n    rigid bodies: 1;\n    joints: 1;"), tmp_path)
    n1, n2 = d.model.nodes
    np.testing.assert_allclose(n1.x, [0.0, 0.0, 0.0], atol=1e-15)        # (1,0,0) + Rz(90°)(0,1,0)
    np.testing.assert_allclose(n1.R, R_z(math.pi / 2), atol=1e-15)
    np.testing.assert_allclose(n1.v, [0.0, -2.0, 0.0], atol=1e-15)       # ω × (x - xp) = 2z × (-x)
    np.testing.assert_allclose(n1.w, [0.0, 0.0, 2.0])
    np.testing.assert_allclose(n2.x, [1.0, 1.0, 0.0], atol=1e-15)
    body = d.model.bodies[0]
    np.testing.assert_allclose(body.xcg, [0.0, 0.0, 0.0], atol=1e-15)   # Rᵀ(0 - x1)
    np.testing.assert_allclose(body.J_cg, np.diag([2.0, 1.0, 3.0]), atol=1e-15)   # Rᵀ J R
    joint = d.model.joints[0]
    np.testing.assert_allclose(joint.f1, [1.0, 0.0, 0.0], atol=1e-15)   # Rz(90)ᵀ (0,1,0)
    np.testing.assert_allclose(joint.f2, [-1.0, 1.0, 0.0], atol=1e-15)   # R2ᵀ(x1 + R1·0 - x2)


def test_other_position_and_local_prefixes(tmp_path):
    nodes = ("    structural: 1, static, null, euler123, 0., 0., pi/2, null, null;\n"
             "    structural: 2, static, 3., 0., 0., eye, null, null;")
    elements = ("    joint: 1, spherical hinge, 1, 1., 0., 0., 2, reference, other position, 1., 0., 0.;\n"
                "    joint: 2, spherical hinge, 1, reference, local, euler123, 0., 0., -pi/2, 1., 0., 0.,"
                " 2, reference, other orientation, null;")
    d = parse(deck_text(nodes=nodes, elements=elements,
                        control="    structural nodes: 2;\n    joints: 2;"), tmp_path)
    j1, j2 = d.model.joints
    np.testing.assert_allclose(j1.f2, [-3.0, 2.0, 0.0], atol=1e-15)     # x1 + R1(f1 + p) - x2
    np.testing.assert_allclose(j2.f1, [0.0, -1.0, 0.0], atol=1e-15)     # M·v with M = Rz(-90°)


ORIENTATION_FORMS = {
    "matr": lambda R, a: "matr, " + ", ".join(f"{v:.17g}" for v in R.ravel()),
    "euler123": lambda R, a: "euler123, " + ", ".join(f"{v:.17g}" for v in rot.R_to_euler123(R)),
    "euler": lambda R, a: "euler, " + ", ".join(f"{v:.17g}" for v in rot.R_to_euler123(R)),
    "euler degrees": lambda R, a: "euler, degrees, " + ", ".join(f"{v:.17g}" for v in np.degrees(rot.R_to_euler123(R))),
    "euler313": lambda R, a: "euler313, " + ", ".join(f"{v:.17g}" for v in rot.R_to_euler313(R)),
    "euler321": lambda R, a: "euler321, " + ", ".join(f"{v:.17g}" for v in rot.R_to_euler321(R)),
    "vector": lambda R, a: "vector, " + ", ".join(f"{v:.17g}" for v in rot.log_rotvec(R)),
    "two vectors 1,2": lambda R, a: _two(R, 1, 2, a),
    "two vectors 1,3": lambda R, a: _two(R, 1, 3, a),
    "two vectors 2,3": lambda R, a: _two(R, 2, 3, a),
    "two vectors 2,1": lambda R, a: _two(R, 2, 1, a),
    "two vectors 3,1": lambda R, a: _two(R, 3, 1, a),
    "two vectors 3,2": lambda R, a: _two(R, 3, 2, a),
}


def _two(R, i, j, a):
    """Axis i along (scaled) column i, axis j given by a non-orthogonal vector in the plane."""
    v1 = 2.5 * R[:, i - 1]
    v2 = R[:, j - 1] + a * R[:, i - 1]
    fmt = lambda v: ", ".join(f"{x:.17g}" for x in v)
    return f"{i}, {fmt(v1)}, {j}, {fmt(v2)}"


@pytest.mark.parametrize("form", sorted(ORIENTATION_FORMS))
def test_orientation_forms_round_trip(tmp_path, form):
    rng = np.random.default_rng(7)
    Rs = [rot.exp_rotvec(rng.normal(size=3)) for _ in range(4)]
    nodes = "\n".join(f"    structural: {k + 1}, static, null, {ORIENTATION_FORMS[form](R, 0.3)}, null, null;"
                      for k, R in enumerate(Rs))
    d = parse(deck_text(nodes=nodes, control=f"    structural nodes: {len(Rs)};"), tmp_path)
    for spec, R in zip(d.model.nodes, Rs):
        np.testing.assert_allclose(spec.R, R, atol=1e-12)


def test_orientation_guess_and_eye(tmp_path):
    nodes = ("    structural: 1, static, null, 3, 0., 0.2, 1., 1, guess, null, null;\n"
             "    structural: 2, static, null, eye, null, null;")
    d = parse(deck_text(nodes=nodes, control="    structural nodes: 2;"), tmp_path)
    R = d.model.nodes[0].R
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(R[:, 2], np.array([0.0, 0.2, 1.0]) / math.hypot(0.2, 1.0))
    assert np.linalg.det(R) == pytest.approx(1.0)
    np.testing.assert_array_equal(d.model.nodes[1].R, np.eye(3))


def test_matrix_forms_and_condensed_body(tmp_path):
    body = ("    body: 1, 1, condense, 4,\n"
            "        1., null, diag, 1., 2., 3.,\n"
            "        2., 1., 0., 0., sym, 1., .1, .2, 2., .3, 3., scale, 2.,\n"
            "        1., null, matr, 1., 0., 0., 0., 1., 0., 0., 0., 1.,\n"
            "        1., null, eye, orientation, euler123, 0., 0., pi/2;")
    d = parse(deck_text(elements=body, control="    structural nodes: 1;\n    rigid bodies: 1;"), tmp_path)
    b = d.model.bodies[0]
    assert b.mass == 5.0
    np.testing.assert_allclose(b.xcg, [0.4, 0.0, 0.0])
    sym = 2 * np.array([[1, .1, .2], [.1, 2, .3], [.2, .3, 3]])
    J_node = np.diag([1., 2., 3.]) + sym + np.diag([0., 2., 2.]) + 2 * np.eye(3)
    J_cg = J_node - 5.0 * np.diag([0., .16, .16])
    np.testing.assert_allclose(b.J_cg, J_cg, atol=1e-14)


# =========================================================================== drives

def test_drive_callers_and_template_drives(tmp_path):
    pre = ('drive caller: 5, cosine, 0., pi/.1, 2., half, 1.;\n'
           'template drive caller: 7, 3, component, linear, 0., 1., inactive, const, 3.;')
    forces = [
        "0., 0., 1., reference, 5",                                   # legacy vec + named drive
        "single, reference, global, 1., 0., 0., string, \"2*Time^2\"",
        "component, step, 0.5, 1., 0., null, mult, time, const, 2.",
        "array, 2, 1., 0., 0., const, 1., single, 0., 1., 0., array, 2, time, double ramp, 1., 0., 1., -1., 2., 3., 0.",
        "reference, 7",
        "null",
        "1., 1., 0., periodic, 0., 0.5, time",
        "0., 0., 1., drive, sine, 0., 1., 1., forever, 0., linear, 0., 2.",
    ]
    elements = "\n".join(f"    force: {k + 1}, absolute, 1, position, null, {f};" for k, f in enumerate(forces))
    d = parse(deck_text(pre=pre, elements=elements,
                        control=f"    structural nodes: 1;\n    forces: {len(forces)};"), tmp_path)
    t = 0.7
    values = [f.value.value(t) for f in d.model.forces]
    np.testing.assert_allclose(values[0], [0, 0, 5.0])                       # f0 + 2A after the half wave
    np.testing.assert_allclose(values[1], [2 * t * t, 0, 0])
    np.testing.assert_allclose(values[2], [1.0, 0.0, 2 * t])
    np.testing.assert_allclose(values[3], [1.0, t + 0.7, 0.0])
    np.testing.assert_allclose(values[4], [t, 0.0, 3.0])
    np.testing.assert_allclose(values[5], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(values[6], [0.2, 0.2, 0.0])
    np.testing.assert_allclose(values[7], [0.0, 0.0, math.sin(2 * t)])
    np.testing.assert_allclose(d.model.forces[1].value.derivative(t), [4 * t, 0, 0])
    np.testing.assert_allclose(d.model.forces[7].value.derivative(t), [0, 0, 2 * math.cos(2 * t)])


def test_unsupported_drive_names_the_type(tmp_path):
    elements = "    force: 1, absolute, 1, position, null, 1., 0., 0., file, 1, 1;"
    text = deck_text(elements=elements, control="    structural nodes: 1;\n    forces: 1;")
    expect_error(tmp_path, text, "file, 1", "not supported yet: file (drive caller) (at 'file')")


def test_postponed_drive_for_the_spectral_radius(tmp_path):
    text = deck_text(problem="    method: ms, postponed, 99;", elements="    drive caller: 99, const, .3;")
    d = parse(text, tmp_path)
    assert d.settings["method"] == "ms" and d.settings["rho"] == 0.3


# =========================================================================== blocks and settings

def test_initial_value_block_maps_to_settings(tmp_path):
    problem = """\
    tolerance: 1e-8, test, minmax, 1e-6, test, norm;
    max iterations: 12;
    method: hope, .4;
    nonlinear solver: newton raphson, modified, 3, keep jacobian matrix;
    linear solver: naive, colamd, mt, 1, pivot factor, 1e-5;
    threads: disable;
    derivatives coefficient: 1e-4, auto, max iterations, 3, factor, 5.;
    derivatives tolerance: 1e-7;
    derivatives max iterations: 4;
    fictitious steps number: 2;
    dummy steps ratio: 1e-2;
    output: iterations, residual, cpu time;
    min time step: 1e-4;"""
    control = ("    structural nodes: 1;\n    skip initial joint assembly;\n    output frequency: 5;\n"
               "    initial stiffness: 2., 3.;\n    max iterations: 7;\n    tolerance: 1e-9;\n"
               "    default orientation: orientation vector;\n    default output: none, joints;\n"
               "    output precision: 8;")
    d = parse(deck_text(problem=problem, control=control), tmp_path)
    s = d.settings
    assert (s["tolerance"], s["test"], s["solution_tolerance"], s["solution_test"]) == (1e-8, "minmax", 1e-6, "norm")
    assert (s["max_iterations"], s["method"], s["rho"]) == (12, "hope", 0.4)
    assert s["modified_newton"] and s["iterations_before_assembly"] == 3 and s["reuse_factorization_across_steps"]
    assert s["linear_solver"] == "naive"
    assert (s["derivatives_coefficient"], s["derivatives_retries"], s["derivatives_retry_factor"]) == (1e-4, 3, 5.0)
    assert (s["derivatives_tolerance"], s["derivatives_max_iterations"]) == (1e-7, 4)
    assert (s["dummy_steps"], s["dummy_steps_ratio"], s["min_time_step"]) == (2, 1e-2, 1e-4)
    assert s["skip_initial_assembly"] and s["output_frequency"] == 5 and s["output_precision"] == 8
    assert (s["assembly_max_iterations"], s["assembly_tolerance"]) == (7, 1e-9)
    node = d.model.nodes[0]
    assert node.assembly_stiffness == (2.0, 3.0)
    assert node.orientation_description == "orientation vector" and node.output is False
    assert any("cpu time" in n for n in d.notes) and any("colamd" in n for n in d.notes)


@pytest.mark.parametrize("card,method,rho", [
    ("method: ms, .6;", "ms", 0.6), ("method: crank nicholson;", "crank nicolson", 0.0),
    ("method: bdf, order, 1;", "implicit euler", 0.0), ("method: bdf;", "bdf", 0.0),
    ("method: ms, const, .2, .2;", "ms", 0.2), ("method: Bathe, .5;", "bathe", 0.5)])
def test_integration_methods(tmp_path, card, method, rho):
    d = parse(deck_text(problem="    " + card), tmp_path)
    assert (d.settings["method"], d.settings["rho"]) == (method, rho)


def test_mbdyn_defaults_when_the_deck_is_silent(tmp_path):
    d = parse(deck_text(), tmp_path)
    assert d.settings["method"] == "ms" and d.settings["rho"] == 0.0     # ms, ρ∞ = 0 (BDF-2)


def test_joints_map_to_the_model(tmp_path):
    nodes = ("    structural: 1, static, null, eye, null, null;\n"
             "    structural: 2, dynamic, 1., 0., 0., eye, null, null;\n"
             "    structural: 3, dummy, 2, offset, 0., 1., 0., euler123, 0., 0., 1.;")
    elements = """\
    joint: 1, clamp, 1, node, node;
    joint: 2, revolute hinge, 1, null, hinge, 3, 0., -1., 0., 1, 1., 0., 0., 2, 0., 0., 0., orientation, eye;
    joint: 3, total joint, 1, position, 1., 0., 0., rotation orientation, euler123, 0., 0., pi/2,
        2, position, null, position constraint, active, active, inactive, null,
        orientation constraint, 1, 0, angular velocity, 0., 0., 1., const, 2., output, no;
    joint: 4, rod, 1, 2, from nodes, linear viscoelastic generic, 100., proportional, .1, prestress, 5.;
    joint: 5, distance, 1, position, 0., 0., 1., 2, from nodes;
    joint: 6, imposed displacement, 1, null, 2, null, 1., 0., 0., const, 1.;
    joint: 7, axial rotation, 1, null, 2, null, linear, 0., 1.;
    body: 2, 2, 1., null, eye;
    couple: 1, follower internal, 1, 2, 0., 0., 1., const, 1.;"""
    control = "    structural nodes: 3;\n    joints: 7;\n    rigid bodies: 1;\n    forces: 1;"
    d = parse(deck_text(nodes=nodes, elements=elements, control=control), tmp_path)
    m = d.model
    assert [j.type for j in m.joints] == ["clamp", "revolute hinge", "total joint", "distance",
                                          "total joint", "axial rotation"]
    hinge = m.joints[1]
    np.testing.assert_allclose(hinge.R1h[:, 2], [0.0, -1.0, 0.0], atol=1e-15)
    total = m.joints[2]
    assert total.output is False and total.active[[0, 1, 3, 11]].all() and not total.active[[2, 4, 5]].any()
    np.testing.assert_allclose(total.avel_drive.value(0.0), [0.0, 0.0, 2.0])
    rod = m.rods[0]
    assert (rod.law.K[0, 0], rod.law.C[0, 0]) == (100.0, 10.0) and rod.l0 == 1.0
    assert rod.law.prestress[0] == 5.0 and rod.law.prestrain.value(0.0)[0] == 0.0
    assert m.joints[3].distance_drive is None or m.joints[3].distance_drive.value(0) == pytest.approx(math.sqrt(2))
    imposed = m.joints[4]                # one row along the direction: axis 3 of its position frame
    assert imposed.active[2] and not imposed.active[[0, 1, 3, 4, 5]].any()
    np.testing.assert_allclose(imposed.R1h[:, 2], [1.0, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(imposed.pos_drive.value(0.0), [0.0, 0.0, 1.0])
    dummy = m.dummy_nodes[0]
    np.testing.assert_allclose(dummy.offset, [0.0, 1.0, 0.0])
    assert m.forces[0].kind == "couple" and m.forces[0].node2 == 2


def test_deformable_joints_and_3d_laws(tmp_path):
    nodes = ("    structural: 1, static, null, eye, null, null;\n"
             "    structural: 2, dynamic, 1., 0., 0., eye, null, null;")
    elements = """\
    constitutive law: 9, 3, linear viscoelastic generic, diag, 1., 2., 3., proportional, .5;
    joint: 1, deformable hinge, 1, hinge, euler123, 0., 0., pi/2, 2, reference, 9;
    joint: 2, deformable displacement joint, 1, null, 2, reference, other node, 1., 0., 0.,
        linear elastic isotropic, 10., prestress, 1., 0., 0., prestrain, single, 0., 0., 1., const, .2;
    joint: 3, deformable hinge, 1, 2, linear viscous generic, sym, 1., 0., 0., 1., 0., 1.;"""
    d = parse(deck_text(nodes=nodes, elements=elements,
                        control="    structural nodes: 2;\n    joints: 3;"), tmp_path)
    hinge, disp, visc = d.model.deformable
    assert hinge.type == "deformable hinge" and disp.type == "deformable displacement joint"
    np.testing.assert_allclose(hinge.law.K, np.diag([1., 2., 3.]))
    np.testing.assert_allclose(hinge.law.C, np.diag([.5, 1., 1.5]))
    np.testing.assert_allclose(hinge.R1h, R_z(math.pi / 2), atol=1e-15)
    np.testing.assert_allclose(disp.f2, [0.0, 0.0, 0.0], atol=1e-15)     # R2ᵀ(x1 + R1 p - x2)
    np.testing.assert_allclose(disp.law.prestress, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(disp.law.prestrain.value(0.0), [0.0, 0.0, 0.2])
    assert visc.law.viscous and not np.any(visc.law.K)


def test_deformable_joint_family_keywords_and_static_model(tmp_path):
    """`deformable joint` (6-D law), the `invariant` forms, `deformable axial joint` (1-D law),
    `viscous body` (6-D viscous law, offset and frame), and `model: static` in control data
    (dynamic nodes become static, bodies become weights)."""
    nodes = ("    structural: 1, static, null, eye, null, null;\n"
             "    structural: 2, dynamic, 1., 0., 0., eye, null, null;")
    elements = """\
    body: 1, 2, 3., null, eye;
    gravity: uniform, 0., 0., -1., const, 9.81;
    joint: 1, deformable joint, 1, null, hinge, euler123, 0., 0., pi/2, 2, null,
        linear viscoelastic generic, diag, 1., 2., 3., 4., 5., 6., proportional, .1;
    joint: 2, invariant deformable joint, 1, 0.5, 0., 0., 2, null, linear elastic, 7.;
    joint: 3, invariant deformable hinge, 1, 2, linear elastic isotropic, 2.;
    joint: 4, invariant deformable displacement joint, 1, null, 2, null, linear elastic, 3.;
    joint: 5, deformable axial joint, 1, orientation, euler123, pi/2, 0., 0., 2, linear viscoelastic, 8., .2;
    joint: 6, viscous body, 2, position, 0., 0.1, 0., orientation, euler123, 0., 0., pi/2,
        linear viscous generic, diag, 1., 1., 1., .5, .5, .5;"""
    control = "    structural nodes: 2;\n    rigid bodies: 1;\n    joints: 6;\n    gravity;\n    model: static;"
    d = parse(deck_text(nodes=nodes, elements=elements, control=control), tmp_path)
    m = d.model
    six, inv6, hinge, disp, axial = m.deformable
    assert [s.type for s in m.deformable] == ["deformable joint", "deformable joint", "deformable hinge",
                                              "deformable displacement joint", "deformable axial joint"]
    assert [s.invariant for s in m.deformable] == [False, True, True, True, False]
    np.testing.assert_allclose(six.law.K, np.diag([1., 2., 3., 4., 5., 6.]))
    np.testing.assert_allclose(six.law.C, 0.1 * np.diag([1., 2., 3., 4., 5., 6.]))
    np.testing.assert_allclose(six.R1h, R_z(math.pi / 2), atol=1e-15)
    np.testing.assert_allclose(inv6.law.K, 7.0 * np.eye(6))
    np.testing.assert_allclose(inv6.f1, [0.5, 0.0, 0.0])
    assert (axial.law.K[0, 0], axial.law.C[0, 0]) == (8.0, 0.2)
    np.testing.assert_allclose(axial.R1h[:, 2], [0.0, -1.0, 0.0], atol=1e-15)
    vb, = m.viscous_bodies
    np.testing.assert_allclose(vb.offset, [0.0, 0.1, 0.0])
    np.testing.assert_allclose(vb.Rh, R_z(math.pi / 2), atol=1e-15)
    np.testing.assert_allclose(vb.law.C, np.diag([1., 1., 1., .5, .5, .5]))
    assert [n.kind for n in m.nodes] == ["static", "static"] and not m.bodies
    weight, = m.forces                                  # model: static turns the body into its weight
    np.testing.assert_allclose(weight.value.value(0.0), [0.0, 0.0, -3.0 * 9.81])
    bad = deck_text(nodes=nodes, control="    structural nodes: 2;\n    joints: 1;",
                    elements="    joint: 6, viscous body, 2, null, linear elastic, 1.;")
    expect_error(tmp_path, bad, "linear elastic", "viscous body: the constitutive law must be viscous (at 'linear elastic')")


# =========================================================================== command line

SMALL_RUN = deck_text(final="0.05", control="    structural nodes: 1;\n    rigid bodies: 1;\n    gravity;",
                      elements="    body: 1, 1, 1., null, eye;\n    gravity: uniform, 0., 0., -1., const, 9.81;")


def test_cli_run_writes_mbdyn_files(tmp_path, capsys):
    path = tmp_path / "fall.mbd"
    path.write_text(SMALL_RUN)
    assert cli_main(["run", str(path), "-o", str(tmp_path / "out" / "fall"), "-q"]) == 0
    mov = np.loadtxt(tmp_path / "out" / "fall.mov")
    assert mov.shape == (6, 13)
    assert mov[-1, 3] == pytest.approx(-0.5 * 9.81 * 0.05 ** 2, rel=1e-6)
    assert (tmp_path / "out" / "fall.out").exists()
    assert cli_main(["run", str(path), "-q"]) == 0              # default prefix: the deck path
    assert (tmp_path / "fall.mbd.mov").exists()


def test_cli_check_and_errors(tmp_path, capsys):
    path = tmp_path / "fall.mbd"
    path.write_text(SMALL_RUN)
    assert cli_main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "unknowns: 12 (12 differential, 0 algebraic)" in out and "rigid bodies: 1" in out
    bad = tmp_path / "bad.mbd"
    bad.write_text(SMALL_RUN.replace("body: 1, 1,", "body: 1, 1, variable mass,"))
    assert cli_main(["check", str(bad)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mbdae: {bad}:") and "not supported yet" in err[0]
    with pytest.raises(DeckError):
        cli_main(["check", str(bad), "--debug"])
    with pytest.raises(DeckError):
        cli_main(["--debug", "check", str(bad)])


def test_exit_stops_reading(tmp_path):
    text = deck_text(nodes=ONE_NODE + "\n    exit;\n    this is not read;")
    d = parse(text, tmp_path)
    assert d.abort_after == ("input", None) and len(d.model.nodes) == 1


def test_abort_after(tmp_path, capsys):
    path = tmp_path / "a.mbd"
    path.write_text(SMALL_RUN.replace("time step: 1e-2;", "time step: 1e-2;\n    abort after: input;"))
    assert cli_main(["run", str(path), "-q"]) == 0
    assert not (tmp_path / "a.mbd.mov").exists()
    path.write_text(SMALL_RUN.replace("time step: 1e-2;", "time step: 1e-2;\n    abort after: regular step, 3;"))
    res = read_deck(str(path), echo=lambda *a: None).run(progress=False)
    assert len(res.t) == 4 and res.t[-1] == pytest.approx(0.03)


# =========================================================================== real decks

ref_key = mbdyn_ref.ref_key


def have_deck(deck):
    return os.path.isfile(os.path.join(TESTS_DIR, deck)) and os.path.isdir(os.path.join(REF_DIR, ref_key(deck)))


def need(deck):
    if not have_deck(deck):
        pytest.skip(f"MBDyn test deck or reference output for {deck} not found under {SHARED} "
                    "(../shared/mbdyn-tests and ../shared/mbdyn-ref relative to the repository)")


def compare_with_mbdyn(deck_name, tmp_path, deck=None, **overrides):
    """Run a deck and compare with MBDyn's decimated outputs at the kept steps both runs
    reached (engine/io/mbdyn_ref.py): returns the Comparison (position / model size,
    rotation angle, reaction / load scale, with where the worst of each is)."""
    deck = deck or read_deck(os.path.join(TESTS_DIR, deck_name), echo=lambda *a: None)
    descriptions = {s.label: s.orientation_description for s in deck.model.nodes + deck.model.dummy_nodes}
    prefix = str(tmp_path / "run")
    deck.run(output_prefix=prefix, progress=False, **overrides)
    return mbdyn_ref.compare_outputs(os.path.join(REF_DIR, ref_key(deck_name)), prefix, descriptions)


# deck, final time used here (MBDyn ran the deck's own), reason for a shorter window
AGREEING_DECKS = [
    ("body/body", None),
    ("body/bullet", 10.0),
    ("body/spintop/spintop", 2.5),
    ("body/spinningbody", 2.1),          # intermediate-axis spin: unstable, e^{5.7 t} growth of any difference
    ("joints/spherical/spherical", 0.3),
    ("joints/impdisp/imp", 0.3),
    ("joints/total/total", 0.3),
    ("joints/total/totalpin", 0.3),
    ("joints/total/totalvel", None),
    ("joints/total/piecewiseConstantVelocity", 2.0),
    ("joints/total/total_err", 3.0),
    ("joints/plane/output", 0.3),
    ("joints/rod/rodwithoffset2", 1.6),   # double pendulum: differences grow past t ≈ 1.8
    ("joints/flywheel/flywheel_drive", 0.3),
    ("benchmarks/6barmech/6barmech", 2.0),
    ("benchmarks/srskm/srscm", 0.25),    # crank phase drifts 2e-4 rad/s from MBDyn's, 5x below h's own error
    ("joints/modal/two-beams/bauchau0", 10.0),
    ("joints/modal/two-beams/rigid-force", 5.0),
    ("joints/modal/two-beams/rigid", 4.1),    # unstable flapping equilibrium: rounding grows ×2.7/s
    ("joints/deformablehinge/deformabledisplacementjoint0", 1.0),
    ("joints/deformablehinge/deformablejoint", 1.0),
    ("joints/deformablehinge/deformablejoint2", 1.0),
    ("joints/deformablehinge/deformablejoint-beam", 1.0),
    ("joints/deformablehinge/deformableaxialjoint", 1.0),
    ("joints/deformablehinge/invariantdeformablehinge", 1.0),
    ("joints/viscousbody/viscousbody", None),
    ("benchmarks/andrewssqueezer/andrewssqueezer_assembler", None),     # model: static
    ("beam/r", 2.5),     # driven deformable hinges switched off at t = 2 (MBDyn ran 5 s: agrees to 1e-5 there too)
    ("joints/total/totalhint", None),    # driven total joints, position/orientation-drive3 hints, Tikhonov
    ("stiff/pendulum_reg", None),        # Tikhonov-regularized pin
    ("invdyn/eqreac/twomasses.mbd", 3.0),    # total equation + total internal reaction (motion; see below)
    ("invdyn/eqreac/twomasses2.mbd", 3.0),
    ("invdyn/eqreac/twomasses3.mbd", 3.0),
    ("invdyn/eqreac/twomasses_elastic.mbd", None),
    ("joints/rod/rodwithprestrain", None),        # eigenanalysis at t = 0 and 10 (engine/eigen.py)
    ("joints/deformablehinge/deformablejointeig", None),
    ("joints/deformablehinge/deformablejointeig2", None),
    ("joints/total/totaleq/triangle", 1.0),     # (its eigenanalysis card is inside /* */)
]


# decks of AGREEING_DECKS whose .jnt reactions also agree within 1e-4 of the load scale, at
# every kept step after t0 ("all") or after the first one ("after start-up": MBDyn's
# multipliers start from zero or from its derivatives phase, see mbdyn_ref.explain)
REACTIONS_AGREE = {"joints/spherical/spherical": "all", "joints/total/piecewiseConstantVelocity": "all",
                   "body/spintop/spintop": "after start-up", "joints/impdisp/imp": "after start-up",
                   **{f"joints/deformablehinge/{d}": "all" for d in (
                       "deformabledisplacementjoint0", "deformablejoint", "deformablejoint2", "deformablejoint-beam",
                       "deformableaxialjoint", "invariantdeformablehinge")},
                   "joints/viscousbody/viscousbody": "all",
                   "benchmarks/andrewssqueezer/andrewssqueezer_assembler": "all",
                   "joints/total/totalhint": "after start-up",
                   "stiff/pendulum_reg": "all",
                   "joints/plane/output": "all", "joints/rod/rodwithoffset2": "all", "beam/r": "all",
                   "invdyn/eqreac/twomasses.mbd": "all",
                   "invdyn/eqreac/twomasses2.mbd": "all", "invdyn/eqreac/twomasses3.mbd": "all"}


@pytest.mark.parametrize("deck_name,final_time", AGREEING_DECKS, ids=[d for d, _ in AGREEING_DECKS])
def test_real_deck_agrees_with_mbdyn(tmp_path, deck_name, final_time):
    need(deck_name)
    overrides = {} if final_time is None else {"final_time": final_time}
    c = compare_with_mbdyn(deck_name, tmp_path, **overrides)
    assert c.compared_steps >= 2 and not c.problems, c.problems
    assert c.position.value < 1e-4, f"{deck_name}: worst position difference {c.position.value:.2e} of the model size at {c.position.where()}"
    assert c.rotation.value < 1e-4, f"{deck_name}: worst orientation difference {c.rotation.value:.2e} rad at {c.rotation.where()}"
    if deck_name in REACTIONS_AGREE:
        assert c.reaction_steps >= (1 if REACTIONS_AGREE[deck_name] == "all" else 2)
        worst = c.reaction.value if REACTIONS_AGREE[deck_name] == "all" else c.reaction_later
        assert worst < 1e-4, f"{deck_name}: worst reaction difference {worst:.2e} of the load scale"


def test_chain15_agrees_once_mbdyn_derivatives_momentum_is_reproduced(tmp_path):
    """chain15 (which includes chain15h.ref) sets `derivatives coefficient: 1` and accepts the
    derivatives phase at a 1e-1 tolerance: MBDyn keeps the momenta β = dCoef·β̇ of that phase
    (its .ine shows β = 1e-3·β̇ at step 0), i.e. the chain starts with v = h·coef·a0 instead of
    0.  mbdae restores the initial state after its derivatives phase, so it differs by that
    velocity offset (worst 3e-3 of the model size at t = 1).  Starting mbdae from the same
    perturbed velocities, the two runs agree."""
    deck_name = "body/chain15/chain15"
    need(deck_name)
    deck = read_deck(os.path.join(TESTS_DIR, deck_name), echo=lambda *a: None)
    assert [round(n.x[1], 6) for n in deck.model.nodes[1:3]] == [0.18659, 0.68659]   # from chain15h.ref
    plain = compare_with_mbdyn(deck_name, tmp_path, deck=deck, final_time=0.2).position.value
    assert plain > 1e-4
    h, coef = deck.settings["time_step"], deck.settings["derivatives_coefficient"]
    start = deck.run(final_time=deck.settings["initial_time"], progress=False)
    for k, spec in enumerate(deck.model.nodes):
        if spec.kind == "dynamic":
            spec.v = spec.v + coef * h * start.a[0][k]
            spec.w = spec.w + coef * h * start.wd[0][k]
    c = compare_with_mbdyn(deck_name, tmp_path, deck=deck, final_time=0.5)
    assert c.compared_steps >= 20 and c.position.value < 1e-4 and c.rotation.value < 1e-3


def _arm_angle(t_end, omega0, pin_driven):
    """Exact motion of the point mass at the end of a massless arm of driven length
    r(t) = 2 - cos(20πt), free to rotate about z at a hinge that is fixed or moves with
    x = r(t) (joints/drvdisp/drv and drvpin): no torque about the hinge, so
    r θ̈ + 2 ṙ θ̇ = ẍ_hinge · e_θ."""
    from scipy.integrate import solve_ivp
    W = 20 * math.pi
    r = lambda t: 2 - math.cos(W * t)
    rd = lambda t: W * math.sin(W * t)
    rdd = lambda t: W * W * math.cos(W * t)

    def rhs(t, y):
        hinge = rdd(t) * math.sin(y[0]) if pin_driven else 0.0
        return [y[1], (hinge - 2 * rd(t) * y[1]) / r(t)]

    return solve_ivp(rhs, (0.0, t_end), [0.0, omega0], rtol=1e-12, atol=1e-12, dense_output=True).sol, r


@pytest.mark.parametrize("deck_name,pin_driven", [("joints/drvdisp/drv", False), ("joints/drvdisp/drvpin", True)])
def test_drive_displacement_decks_follow_the_exact_motion(deck_name, pin_driven):
    """MBDyn itself is 2.5e-4 rad off the exact arm angle after 20 steps of these decks (mbdae:
    2e-6 rad), and both accumulate step errors of ~3e-3 by t = 1 s (drvpin pumps the arm to
    900 rad/s, unresolved by h = 1e-3), so these decks are checked against the exact solution
    with a finer step instead of against MBDyn."""
    if not os.path.isfile(os.path.join(TESTS_DIR, deck_name)):
        pytest.skip(f"{deck_name} not found under {TESTS_DIR}")
    deck = read_deck(os.path.join(TESTS_DIR, deck_name), echo=lambda *a: None)
    res = deck.run(final_time=0.04, time_step=2.5e-4, max_time_step=2.5e-4, progress=False)
    exact, r = _arm_angle(0.04, 20.4, pin_driven)
    i2, i3 = res.index(2), res.index(3)
    arm = res.x[:, i3] - res.x[:, i2]
    theta = np.unwrap(np.arctan2(arm[:, 1], arm[:, 0]))
    np.testing.assert_allclose(np.linalg.norm(arm, axis=1), [r(t) for t in res.t], atol=1e-9)
    np.testing.assert_allclose(theta, exact(res.t)[0], atol=2e-5)


def test_drive_hinge_deck_follows_the_exact_motion():
    """joints/drvhinge/drv: the body is carried by node 2 (free about z) with its relative
    rotation about the radial axis imposed; J = I and no torque about z keep ω_z = Ω = 20π, so
    node 3 moves on x = (cos Ωt, sin Ωt, 0).  At the deck's own step mbdae's phase error is
    4e-3 rad at t = 1 s and MBDyn's 3e-2 rad; here a finer step checks the model itself."""
    deck_name = "joints/drvhinge/drv"
    if not os.path.isfile(os.path.join(TESTS_DIR, deck_name)):
        pytest.skip(f"{deck_name} not found under {TESTS_DIR}")
    deck = read_deck(os.path.join(TESTS_DIR, deck_name), echo=lambda *a: None)
    res = deck.run(final_time=0.04, time_step=2.5e-4, max_time_step=2.5e-4, progress=False)
    omega = 20 * math.pi
    exact = np.stack([np.cos(omega * res.t), np.sin(omega * res.t), 0 * res.t], axis=1)
    np.testing.assert_allclose(res.x[:, res.index(3)], exact, atol=1e-5)



def test_chain15_joint_output_follows_mbdyn_conventions(tmp_path):
    """.jnt sign and column conventions on the hanging chain at t = 0, where MBDyn's and
    mbdae's reactions are close (the static part dominates): spherical pin = the force the
    node exerts on the ground, spherical hinge = the force on its second node, couple
    columns 0 for spherical joints, local frame = node-1 frame."""
    deck_name = "body/chain15/chain15"
    need(deck_name)
    key = ref_key(deck_name)
    with gzip.open(os.path.join(REF_DIR, key, key + ".jnt.gz"), "rt") as f:
        ref = {int(l.split()[0]): np.array([float(v) for v in l.split()[1:]]) for l in list(f)[:17]}
    deck = read_deck(os.path.join(TESTS_DIR, deck_name), echo=lambda *a: None)
    prefix = str(tmp_path / "run")
    deck.run(output_prefix=prefix, progress=False, final_time=0.001)
    with open(prefix + ".jnt") as f:
        ours = {int(l.split()[0]): np.array([float(v) for v in l.split()[1:]]) for l in list(f)[:17]}
    assert set(ref) == set(ours)
    scale = max(np.abs(v[:12]).max() for v in ref.values())
    for label in set(ref) & set(ours):
        r, o = ref[label][:12], ours[label][:12]
        assert np.allclose(o, r, atol=2e-3 * scale), (label, o, r)


@pytest.mark.parametrize("deck_name", ["joints/plane/output", "joints/impdisp/imp", "joints/flywheel/flywheel_drive",
                                       "joints/total/total", "joints/total/totalpin", "joints/spherical/spherical"])
def test_joint_reactions_match_mbdyn_sign_and_frame(tmp_path, deck_name):
    """.jnt columns 2-13 at MBDyn's third kept output step (past step 0, whose reactions
    depend on MBDyn's derivatives phase): clamp, spherical and revolute hinges, total joint,
    total pin joint and drive hinge, within 1e-3 of the block's largest reaction (the
    multipliers of the index-3 constraints carry the integrator's transients)."""
    need(deck_name)
    key = ref_key(deck_name)
    ref_dir = os.path.join(REF_DIR, key)
    with gzip.open(os.path.join(ref_dir, key + ".kept_steps.csv.gz"), "rt") as f:
        kept = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
    with gzip.open(os.path.join(ref_dir, key + ".jnt.gz"), "rt") as f:
        ref = mbdyn_ref.blocks(f)[2]
    t2 = kept[2, 2]
    deck = read_deck(os.path.join(TESTS_DIR, deck_name), echo=lambda *a: None)
    prefix = str(tmp_path / "run")
    deck.run(output_prefix=prefix, progress=False, final_time=t2)
    with open(prefix + ".out") as f:
        times = mbdyn_ref.output_times(f)
    with open(prefix + ".jnt") as f:
        ours = mbdyn_ref.blocks(f)[int(np.argmin(np.abs(times - t2)))]
    scale = max(np.abs(v[:12]).max() for v in ref.values())
    for label, values in ref.items():
        assert np.allclose(ours[label][:12], values[:12], atol=1e-3 * scale), (label, ours[label][:12], values[:12])


def test_one_law_reader_for_every_dimension(tmp_path):
    """The deck's law syntax is read the same way in 1, 3 and 6 dimensions (input manual §2.10):
    a `cubic elastic generic` rod and deformable hinge reach the equilibrium of their cubic
    law under a tip load (the nodes' other motions held by linear deformable joints), and a
    6-D `constitutive law:` card is referenced by a beam whose static tip deflection is the
    Euler-Bernoulli one."""
    k1, k3, F = 100.0, 4.0e4, 30.0
    nodes = """\
    structural: 1, static, null, eye, null, null;
    structural: 2, static, 1., 0., 0., eye, null, null;
    structural: 3, static, 0., 2., 0., eye, null, null;
    structural: 4, static, 0., 2., 0., eye, null, null;
    structural: 5, static, 0., -1., 0., eye, null, null;
    structural: 6, static, .5, -1., 0., eye, null, null;
    structural: 7, static, 1., -1., 0., eye, null, null;"""
    elements = f"""\
    constitutive law: 60, 6, linear elastic generic, diag, 1e7, 1e7, 1e7, 1e4, 2e3, 2e3;
    joint: 1, clamp, 1, node, node;
    joint: 2, rod, 1, 2, from nodes, cubic elastic generic, {k1}, 0., {k3};
    joint: 3, clamp, 3, node, node;
    joint: 4, deformable hinge, 3, 4, cubic elastic generic, {k1}, {k1}, {k1}, 0., 0., 0., {k3}, {k3}, {k3};
    joint: 5, clamp, 5, node, node;
    joint: 6, deformable joint, 1, null, 2, null, linear elastic generic, diag, 0., 1e6, 1e6, 1e6, 1e6, 1e6;
    joint: 7, deformable displacement joint, 3, null, 4, null, linear elastic, 1e6;
    beam3: 6, 5, null, 6, null, 7, null, eye, reference, 60, same, same;
    force: 1, absolute, 2, position, null, {F}, 0., 0., const, 1.;
    couple: 2, absolute, 4, 0., 0., {F}, const, 1.;
    force: 3, absolute, 7, position, null, 0., -1., 0., const, 1.;"""
    text = deck_text(nodes=nodes, elements=elements, final="0.002",
                     control="    structural nodes: 7;\n    joints: 7;\n    beams: 1;\n    forces: 3;")
    d = parse(text, tmp_path)
    prefix = str(tmp_path / "laws")
    d.run(output_prefix=prefix, progress=False, tolerance=1e-8, output_precision=16)
    last = np.loadtxt(prefix + ".mov")[-7:]
    eps = last[1, 1] - 1.0                              # rod strain (length 1)
    assert k1 * eps + k3 * eps ** 3 == pytest.approx(F, rel=1e-8)
    assert 0.0 < eps < 0.5 * F / k1                    # the cubic term carries most of the load
    phi = math.radians(last[3, 6])                      # hinge rotation about z (Euler 1-2-3, degrees)
    assert k1 * phi + k3 * phi ** 3 == pytest.approx(F, rel=1e-6)
    # cantilever of length 1 under a unit tip load, EI = 2e3: δ = P L³ / (3 EI) + P L / GA
    assert -(last[6, 2] + 1.0) == pytest.approx(1.0 / (3 * 2e3) + 1.0 / 1e7, rel=1e-6)
