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
    path = tmp_path / "deck.mbd"
    path.write_text(text)
    return read_deck(str(path), echo=lambda *a: None)


def located(text, needle, nth=0):
    """line, column (1-based) of the nth occurrence of needle."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


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
