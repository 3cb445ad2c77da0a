"""Faulty decks stop the reader with a located one-line DeckError, never another exception
(issue 18): a constitutive law's name missing, expressions deep or long enough to reach
Python's recursion limit, labels out of range or not integers, inf/NaN constants in cards,
and the crashes tests/fuzz found.  Each message names file:line:column and the word."""
import os
import re

import pytest

from mbdae.engine.core.mathparser import MAX_NESTING
from mbdae.engine.io.mbdyn.args import LABEL_MAX
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from tests.test_deck_reader import parse, position as located

DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 1.;
    time step: 1e-2;
end: initial value;
begin: control data;
    structural nodes: 2;
{control}
end: control data;
{pre}
begin: nodes;
    structural: 1, static, null, eye, null, null;
    structural: 2, dynamic, {position}, eye, null, null;
end: nodes;
begin: elements;
{elements}
end: elements;
"""


def deck(elements="", control="", pre="", position="1., 0., 0."):
    return DECK.format(elements=elements, control=control, pre=pre, position=position)


def read(tmp_path, text):
    return parse(text, tmp_path)


def expect_error(tmp_path, text, needle, *fragments, nth=0):
    """The reader stops at `needle` with a one-line message holding every fragment."""
    with pytest.raises(DeckError) as info:
        read(tmp_path, text)
    message = str(info.value)
    line, col = located(text, needle, nth)
    assert message.startswith(f"{tmp_path / 'deck.mbd'}:{line}:{col}: "), message
    assert "\n" not in message and len(message) < 400 + len(str(tmp_path)), message
    for fragment in fragments:
        assert fragment in message, message
    return message


# ---------------------------------------------------------------- a law's name missing

@pytest.mark.parametrize("card, needle", [
    ("joint: 4, rod, 1, 2, from nodes, 100.;", "100."),
    ("joint: 4, rod, 1, 2, from nodes, 1 + 2, prestress, 5.;", "1 + 2"),
    ("joint: 3, deformable hinge, 1, 2, 100.;", "100."),
    ("joint: 3, deformable displacement joint, 1, null, 2, null, 1.e3;", "1.e3"),
    ("joint: 3, deformable joint, 1, null, 2, null, 7;", "7;"),
    ("joint: 3, deformable axial joint, 1, 2, \"linear elastic\";", "\"linear elastic\""),
])
def test_missing_law_name_is_a_located_error(tmp_path, card, needle):
    text = deck(elements="    " + card, control="    joints: 1;")
    message = expect_error(tmp_path, text, needle, "the name of a constitutive law expected")
    assert f"(at '{needle.rstrip(';')}')" in message


def test_missing_law_before_the_end_of_the_card(tmp_path):
    text = deck(elements="    joint: 4, rod, 1, 2, from nodes;", control="    joints: 1;")
    expect_error(tmp_path, text, ";", "a constitutive law expected before ';'",
                 nth=text.count(";", 0, text.index("from nodes")))


# ---------------------------------------------------------------- expressions

@pytest.mark.parametrize("expression", [
    ("(" * 75 + "1.5" + ")" * 75, 1.5),
    ("(" * MAX_NESTING + "2" + ")" * MAX_NESTING, 2.0),
    ("+".join(["1"] * 1000), 1000.0),
    ("1" + "+1-1+1" * 2000, 2001.0),
    ("-" * 5000 + "3", 3.0),
    ("-" * 5001 + "3", -3.0),
    ("2" + "*(1+(2-1)" * 70 + ")" * 70, 142.0),
    ("sin(" * 100 + "0." + ")" * 100, 0.0),
])
def test_deep_and_long_expressions_evaluate(tmp_path, expression):
    """75 nested parentheses, 1000+ terms, 5000 leading signs: the right value (echoed by
    `remark`), no RecursionError."""
    expression, value = expression
    echoed = []
    path = tmp_path / "deck.mbd"
    path.write_text(deck(pre=f"set: real X = {expression};\nremark: \"X\", X;"))
    read_deck(str(path), echo=echoed.append)
    assert float(echoed[0].rsplit(",", 1)[1]) == pytest.approx(value, rel=1e-5)


def test_nesting_beyond_the_limit_is_a_located_error(tmp_path):
    depth = MAX_NESTING + 1
    text = deck(pre="set: real X = " + "(" * depth + "1" + ")" * depth + ";")
    message = expect_error(tmp_path, text, "(1)", "nested too deeply")     # at the 201st '('
    assert f"more than {MAX_NESTING} levels" in message


def test_integer_power_overflow_is_an_error_not_a_hang(tmp_path):
    text = deck(pre="set: integer N = 2^2^2^2^2^2;")
    expect_error(tmp_path, text, "^2^2^2^2;", "integer overflow in '^'")


# ---------------------------------------------------------------- labels

@pytest.mark.parametrize("label, fragment", [
    ("1e308", "must be an integer between 0 and"),
    ("3e9", "must be an integer between 0 and"),
    (str(LABEL_MAX + 1) + ".", "must be an integer between 0 and"),
    ("-1", "must be an integer between 0 and"),
    ("2.5", "must be an integer, found 2.5"),
    ("1e999", "expected, found inf"),
    ("\"one\"", "expected, found the string"),
])
def test_bad_labels_are_located_errors(tmp_path, label, fragment):
    text = deck(elements=f"    joint: {label}, clamp, 1, node, node;", control="    joints: 1;")
    message = expect_error(tmp_path, text, label, fragment)
    assert "label" in message


def test_labels_up_to_the_largest_c_int_are_accepted(tmp_path):
    text = deck(elements=f"    joint: {LABEL_MAX}., clamp, 1, node, node;\n"
                         "    joint: 7., clamp, 2, node, node;", control="    joints: 2;")
    d = read(tmp_path, text)
    assert sorted(j.label for j in d.model.joints) == [7, LABEL_MAX]


# ---------------------------------------------------------------- inf and NaN constants

@pytest.mark.parametrize("where, value", [
    ("position", "1e999"), ("position", "1e999 - 1e999"), ("position", "-1e999"),
    ("mass", "1e999"), ("mass", "1e999 * 0"), ("inertia", "1e999"), ("inertia", "1e999 - 1e999"),
])
def test_non_finite_constants_are_caught_at_read_time(tmp_path, where, value):
    position, mass, inertia = "1., 0., 0.", "1.", "1."
    if where == "position":
        position = f"{value}, 0., 0."
    elif where == "mass":
        mass = value
    else:
        inertia = value
    text = deck(elements=f"    body: 1, 2, {mass}, null, diag, 1., {inertia}, 1.;",
                control="    rigid bodies: 1;", position=position)
    message = expect_error(tmp_path, text, value, "must be finite", nth=0 if where != "mass" else 0)
    assert re.search(r"found (inf|-inf|nan)", message)


# ---------------------------------------------------------------- messages

def test_a_huge_word_is_elided_in_the_message(tmp_path):
    word = "x" * 10_000
    text = deck(elements=f"    joint: 1, {word}, 1, node, node;", control="    joints: 1;")
    message = expect_error(tmp_path, text, word, "…")
    assert len(message) < 300 + len(str(tmp_path)) and "x" * 100 not in message


def test_a_multiline_word_stays_on_one_line(tmp_path):
    text = deck(elements="    joint: 1, rod, 1, 2, from nodes,\n  1\n  +\n  2;", control="    joints: 1;")
    message = expect_error(tmp_path, text, "1\n  +", "constitutive law")
    assert "\n" not in message


def test_every_message_of_this_file_has_a_location():
    # a guard on the helper above: DeckError's text always starts file:line:col
    e = DeckError("f.mbd", 3, 4, "w" * 500, "a\nb " + "y" * 500)
    assert re.match(r"f\.mbd:3:4: a b y{59}… \(at 'w{39}…'\)$", str(e)), str(e)
    assert os.linesep not in str(e)


# ---------------------------------------------------------------- found by tests/fuzz

@pytest.mark.parametrize("kind", ["sine", "cosine"])
def test_harmonic_drive_with_zero_omega_forever_is_constant(tmp_path, kind):
    """`sine, t0, 0., A, forever, f0` divided by omega for its (infinite) end time."""
    text = deck(pre=f"drive caller: 1, {kind}, 0., 0., 100., forever, 3.;")
    d = read(tmp_path, text)
    assert d is not None


@pytest.mark.parametrize("kind", ["sine", "cosine"])
def test_harmonic_drive_with_zero_omega_and_cycles_is_a_located_error(tmp_path, kind):
    text = deck(pre=f"drive caller: 1, {kind}, 0., pi/1e999, 100., one, 3.;")
    expect_error(tmp_path, text, kind, "omega must be nonzero")


@pytest.mark.parametrize("expression, fragment", [
    ("model::xposition(7)", "model::xposition: structural node 7 is not defined"),
    ("model::distance(1, 3e9)", "model::distance: structural node 3000000000 is not defined"),
    ("model::zanglerel(1, 1e999)", "model::zanglerel: cannot convert float infinity to integer"),
    ("model::drive(9, 0.)", "model::drive: drive caller 9 is not defined"),
])
def test_model_function_failures_are_math_errors_at_the_call(tmp_path, expression, fragment):
    text = deck(elements=f"    set: real V = {expression};")
    expect_error(tmp_path, text, expression, "math error: " + fragment)


FEM = """** MBDyn MODAL DATA FILE
** RECORD GROUP 1, HEADER
      REV0         2         1         0         0         0
** RECORD GROUP 2, FINITE ELEMENT NODE LIST
     1001 1002
** RECORD GROUP 3, INITIAL MODAL DISPLACEMENTS
 0
** RECORD GROUP 4, INITIAL MODALVELOCITIES
 0
** RECORD GROUP 5, NODAL X COORDINATES
 0
 0
** RECORD GROUP 6, NODAL Y COORDINATES
 0
 2.
** RECORD GROUP 7, NODAL Z COORDINATES
 0
 0
** RECORD GROUP 8, MODE SHAPES
**    NORMAL MODE SHAPE #  1
0 0 0 0 0 0
0 0 1 0 0 0
** RECORD GROUP 9, MODAL MASS MATRIX
1
** RECORD GROUP 10, MODAL STIFFNESS MATRIX
1
** RECORD GROUP 11, DIAGONAL OF LUMPED MASS MATRIX
1 1 1 1 1 1
1 1 1 1 1 1
"""
MODAL_DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3; end: initial value;
begin: control data; structural nodes: 2; joints: 1; end: control data;
begin: nodes;
    structural: 1, modal, null, eye, null, null;
    structural: 2, static, 0., 2., 0., eye, null, null;
end: nodes;
begin: elements;
    joint: 1, modal, 1, 1, 2, no damping, "m.fem", {origin}1, {iface}, 2, null;
end: elements;
"""


@pytest.mark.parametrize("origin, iface, needle", [
    ("", "(1e999 - 1e999)", "(1e999 - 1e999)"),
    ("", "-1e999", "-1e999"),
    ("origin node, 1e999, ", "1002", "1e999"),
])
def test_non_finite_fem_node_labels_are_located_errors(tmp_path, origin, iface, needle):
    (tmp_path / "m.fem").write_text(FEM)
    text = MODAL_DECK.format(origin=origin, iface=iface)
    expect_error(tmp_path, text, needle, "FEM node", "expected, found")


def test_hint_errors_name_the_deck_and_stay_short(tmp_path):
    """A hint's text is read as its own source named after the deck's line: the name holds
    the hint text elided, not all of it."""
    long_sum = "+".join(["1."] * 400)
    text = deck(elements="    driven: 1, string, \"Time > .5\",\n"
                         f"        hint, \"drive{{model::xposition(1e999)*({long_sum})}}\",\n"
                         "    joint: 1, clamp, 2, node, node;",
                control="    joints: 1;")
    path = tmp_path / "deck.mbd"
    path.write_text(text)
    with pytest.raises(DeckError) as info:
        read_deck(str(path), echo=lambda *a: None)
    message = str(info.value)
    line, _ = located(text, "hint,")
    assert message.startswith(f"{path} (hint \"drive{{model::xposition") and f"of line {line}):1:" in message
    assert "model::xposition: cannot convert float infinity to integer" in message
    assert "\n" not in message and len(message) < 400 + len(str(tmp_path)), message
