"""Deck-level parser checks the issue asks for that tests/test_deck_reader.py and
tests/test_mathparser.py do not cover yet: MBDyn's precedence and integer division where
the reader expects reals, string drives (values, derivatives, composition, errors),
includes resolved per including file, relative references in hinge orientations, the
Euler forms in degrees and the orientation descriptions of the .mov output (round trip
through engine/rotations.py), and exact file:line:column in messages."""
import math

import numpy as np
import pytest

from mbdae.engine.core import rotations as rot
from mbdae.engine.io.mbdyn import reference as mbdyn_ref
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from test_deck_reader import ONE_NODE, deck_text, expect_error, parse, position


def node_position(expressions, tmp_path, pre=""):
    nodes = f"    structural: 1, dynamic, {', '.join(expressions)}, eye, null, null;"
    return parse(deck_text(nodes=nodes, pre=pre), tmp_path).model.nodes[0].x


# =========================================================================== precedence, division

@pytest.mark.parametrize("text,expected", [
    ("2*3^2", 18.0), ("2^3^2", 512.0), ("-2^2", 4.0), ("-2*3", -6.0), ("10-2-3", 5.0), ("12/3/2", 2.0),
    ("(1+2)*3", 9.0), ("1+2 > 2", 1.0), ("!0 + 1", 2.0), ("2*3 % 4", 2.0), ("0 && 0 || 1", 1.0),
])
def test_precedence_in_deck_values(tmp_path, text, expected):
    """MBDyn's precedence (unary minus binds tighter than ^: -2^2 = 4; ^ right-associative;
    relational and logical operators below arithmetic) where the reader expects a real."""
    assert node_position([text, "0.", "0."], tmp_path)[0] == expected


def test_integer_division_where_reals_are_expected(tmp_path):
    """Integer operands divide as integers (C truncation) even where a real is read: 1/2 is
    0, 7/2 is 3, -7/2 is -3; one real operand makes the division real."""
    x = node_position(["1/2", "1./2", "7/2"], tmp_path)
    np.testing.assert_array_equal(x, [0.0, 0.5, 3.0])
    pre = "set: integer N = 5;\nset: real H = 1/2;\nset: real G = N/2;"
    x = node_position(["-7/2", "H + N/2.", "G"], tmp_path, pre=pre)
    np.testing.assert_array_equal(x, [-3.0, 2.5, 2.0])


# =========================================================================== string drives

def force_drive(tmp_path, drive, pre=""):
    elements = f"    force: 1, absolute, 1, position, null, 1., 0., 0., {drive};"
    d = parse(deck_text(pre=pre, elements=elements, control="    structural nodes: 1;\n    forces: 1;"), tmp_path)
    return d.model.forces[0].value


def test_string_drive_value_and_derivative(tmp_path):
    """`string, "<expr>"` reads `set:` variables, built-in functions, integer division and
    Time; its time derivative matches central differences."""
    drive = force_drive(tmp_path, 'string, "A*sin(2*Time) + Time^2/2 + 1/2"', pre="set: real A = 3.;")
    for t in (0.0, 0.3, 1.7):
        assert drive.value(t)[0] == pytest.approx(3 * math.sin(2 * t) + t * t / 2, abs=1e-15)
        fd = (drive.value(t + 1e-6)[0] - drive.value(t - 1e-6)[0]) / 2e-6
        assert drive.derivative(t)[0] == pytest.approx(fd, rel=1e-8)
        assert drive.derivative(t)[0] == pytest.approx(6 * math.cos(2 * t) + t, rel=1e-12)


def test_string_drive_of_another_drive(tmp_path):
    """`drive, string, "Var^2", <inner>`: the string's Var is the inner drive's value."""
    drive = force_drive(tmp_path, 'drive, string, "Var^2 + 1", linear, 1., 2.')
    for t in (0.0, 0.25, 2.0):
        assert drive.value(t)[0] == pytest.approx((1 + 2 * t) ** 2 + 1)
        assert drive.derivative(t)[0] == pytest.approx(2 * (1 + 2 * t) * 2)


def string_force_deck(expr):
    return deck_text(control="    structural nodes: 1;\n    forces: 1;",
                     elements=f'    force: 1, absolute, 1, position, null, 1., 0., 0., {expr};')


@pytest.mark.parametrize("expr,message", [
    ('string, "2*Time + * 3"',
     "math error in string drive: expected an expression but found '*' at column 10 in \"2*Time + * 3\""),
    ('string, "2*Tme"', 'math error in string drive: unknown name "Tme" at column 3 in "2*Tme"'),
    ('string, "model::xposition(1)*Time"',
     "not supported yet: model:: functions in string drives (state-dependent drives)"),
])
def test_string_drive_errors_point_at_the_string(tmp_path, expr, message):
    text = string_force_deck(expr)
    quoted = expr[expr.index('"'):]
    expect_error(tmp_path, text, quoted, f"{message} (at '{quoted}')")


def test_time_in_a_string_drive_of_another_drive_is_an_error(tmp_path):
    text = string_force_deck('drive, string, "Var*Time", time')
    with pytest.raises(DeckError) as info:
        parse(text, tmp_path)
    line, col = position(text, '"Var*Time"')
    assert (info.value.line, info.value.column) == (line, col)
    assert "'Time' in a string drive whose argument is not time" in str(info.value)


# =========================================================================== includes

def test_missing_include_names_file_line_column(tmp_path):
    text = deck_text(pre='include: "nothere.inc";')
    expect_error(tmp_path, text, '"nothere.inc"',
                 f'cannot open include file "nothere.inc" (looked for {tmp_path}/nothere.inc) '
                 "(at '\"nothere.inc\"')")


def test_include_paths_follow_each_including_file(tmp_path):
    """a/x.inc includes "y.inc" (a/y.inc); the main deck's later "y.inc" is its own
    folder's: the including file's folder does not leak.  Variables set in an include are
    visible after it."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.inc").write_text('include: "y.inc";\nset: real FROM_X = 10.;\n')
    (tmp_path / "a" / "y.inc").write_text("set: real INNER = 1.;\n")
    (tmp_path / "y.inc").write_text("set: real OUTER = 2.;\n")
    pre = 'include: "a/x.inc";\ninclude: "y.inc";'
    x = node_position(["INNER", "OUTER", "FROM_X"], tmp_path, pre=pre)
    np.testing.assert_array_equal(x, [1.0, 2.0, 10.0])


def test_error_in_a_nested_include_names_the_innermost_file(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.inc").write_text('# x\ninclude: "y.inc";\n')
    inner = "set: real OK = 1.;\n\tset: real BAD = 2 +;\n"
    (tmp_path / "a" / "y.inc").write_text(inner)
    with pytest.raises(DeckError) as info:
        parse(deck_text(pre='include: "a/x.inc";'), tmp_path)
    line, col = position(inner, ";", nth=1)                        # the expression ends at the ';'
    assert (line, col) == (2, 21)                                  # a tab counts as one column
    assert str(info.value) == (f"{tmp_path}/a/y.inc:2:21: math error: expected an expression but found "
                               "end of expression (at 'real BAD = 2 +')")


# =========================================================================== relative references

def test_hinge_orientation_prefixes(tmp_path):
    """Hinge orientations relative to node 1 given in the global frame, in node 1's frame,
    in a reference frame, and for node 2 in the other node's frame."""
    pre = "reference: 7, null, euler123, 0.3, 0., 0., null, null;"
    nodes = ("    structural: 1, static, null, euler123, 0., 0., pi/2, null, null;\n"
             "    structural: 2, static, 1., 0., 0., euler123, 0., pi/4, 0., null, null;")
    hinge = "    joint: {label}, revolute hinge, 1, null, orientation, {o1}, 2, null, orientation, {o2};"
    A = "euler123, 0.1, 0.2, 0.3"
    elements = "\n".join(hinge.format(label=k + 1, o1=o1, o2=o2) for k, (o1, o2) in enumerate([
        (f"reference, global, {A}", f"reference, global, {A}"),
        (f"reference, node, {A}", f"reference, other node, {A}"),
        (f"reference, 7, {A}", f"reference, 7, {A}"),
        (A, "reference, other node, eye"),
    ]))
    d = parse(deck_text(pre=pre, nodes=nodes, elements=elements,
                        control="    structural nodes: 2;\n    joints: 4;"), tmp_path)
    R1 = rot.euler123_to_R([0.0, 0.0, math.pi / 2])
    R2 = rot.euler123_to_R([0.0, math.pi / 4, 0.0])
    Ra = rot.euler123_to_R([0.1, 0.2, 0.3])
    R7 = rot.euler123_to_R([0.3, 0.0, 0.0])
    expected = [(R1.T @ Ra, R2.T @ Ra), (Ra, R2.T @ R1 @ Ra), (R1.T @ R7 @ Ra, R2.T @ R7 @ Ra),
                (Ra, R2.T @ R1)]
    for joint, (e1, e2) in zip(d.model.joints, expected):
        np.testing.assert_allclose(joint.R1h, e1, atol=1e-14)
        np.testing.assert_allclose(joint.R2r, e2, atol=1e-14)


# =========================================================================== orientation forms

@pytest.mark.parametrize("form,to_angles", [
    ("euler123", rot.R_to_euler123), ("euler313", rot.R_to_euler313), ("euler321", rot.R_to_euler321)])
def test_euler_forms_in_degrees_round_trip(tmp_path, form, to_angles):
    rng = np.random.default_rng(11)
    Rs = [rot.exp_rotvec(rng.normal(size=3)) for _ in range(3)]
    nodes = "\n".join(f"    structural: {k + 1}, static, null, {form}, degrees, "
                      + ", ".join(f"{a:.17g}" for a in np.degrees(to_angles(R))) + ", null, null;"
                      for k, R in enumerate(Rs))
    d = parse(deck_text(nodes=nodes, control=f"    structural nodes: {len(Rs)};"), tmp_path)
    for spec, R in zip(d.model.nodes, Rs):
        np.testing.assert_allclose(spec.R, R, atol=1e-12)


def test_matr_tolerance_and_non_orthogonal_note(tmp_path):
    R = rot.exp_rotvec([0.2, -0.4, 0.1])
    good = ", ".join(f"{v:.6f}" for v in R.ravel())
    nodes = (f"    structural: 1, static, null, matr, {good}, tolerance, 1e-5, null, null;\n"
             f"    structural: 2, static, null, matr, {good}, null, null;")
    d = parse(deck_text(nodes=nodes, control="    structural nodes: 2;"), tmp_path)
    np.testing.assert_allclose(d.model.nodes[0].R, R, atol=1e-6)
    assert sum("not orthogonal" in n for n in d.notes) == 1       # rounded to 6 digits: only node 2


@pytest.mark.parametrize("description", ["euler123", "euler313", "euler321", "orientation vector",
                                         "orientation matrix"])
def test_orientation_description_round_trip_through_the_mov(tmp_path, description):
    """A node's `orientation description` picks the .mov orientation columns; reading them
    back with the rotation helpers gives the node's orientation (to the file's 7 digits)."""
    R = rot.exp_rotvec([0.7, -0.5, 1.1])
    angles = ", ".join(f"{a:.17g}" for a in rot.log_rotvec(R))
    nodes = (f"    structural: 1, static, null, vector, {angles}, orientation description, {description}, "
             "null, null;")
    text = deck_text(nodes=nodes, final="0.02")
    path = tmp_path / "d.mbd"
    path.write_text(text)
    deck = read_deck(str(path), echo=lambda *a: None)
    assert deck.model.nodes[0].orientation_description == description
    deck.run(output_prefix=str(tmp_path / "out"), progress=False)
    rows = np.loadtxt(tmp_path / "out.mov", ndmin=2)
    assert rows.shape[1] == (19 if description == "orientation matrix" else 13)
    back = mbdyn_ref.orientation_of(rows[0, 4:], description)
    assert np.linalg.norm(rot.log_rotvec(back.T @ R)) < 1e-5


# =========================================================================== positions in messages

def test_line_and_column_after_block_comments_and_tabs(tmp_path):
    nodes = "/* a comment\n   over two lines */\tstructural: 1,\tdynamic,\tnull, eye, null, frob;"
    text = deck_text(nodes=nodes)
    expect_error(tmp_path, text, "frob", "math error: unknown name \"frob\" (at 'frob')")


def test_error_on_a_continuation_line(tmp_path):
    elements = ("    body: 1, 1,\n"
                "        1.,\n"
                "        null,\n"
                "        diag, 1., 2.;")
    text = deck_text(elements=elements, control="    structural nodes: 1;\n    rigid bodies: 1;")
    expect_error(tmp_path, text, ";", "syntax error: a diagonal entry expected before ';' (at ';')",
                 nth=text.count(";", 0, text.index("diag, 1., 2.;")))
