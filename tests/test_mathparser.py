"""Tests for mbdae.engine.core.mathparser (MBDyn input manual section 2.2; spec section 1.8)."""

import math

import numpy as np
import pytest

from mbdae.engine.core.mathparser import MAX_NESTING, MathError, MathParser, MathStop


@pytest.fixture
def parser():
    return MathParser()


def evaluate(text):
    return MathParser().evaluate(text)


# --------------------------------------------------------------------------- precedence


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2+3*4^2", 50),
        ("-2^2", 4),  # unary minus binds tighter than ^
        ("2^3^2", 512),  # ^ is right associative
        ("4^3^2", 262144),
        ("(4^3)^2", 4096),
        ("0.5^-1", 2.0),
        ("2-3-4", -5),  # left associative
        ("12/3/2", 2),
        ("2*3%4", 2),
        ("1+2 > 2", True),
        ("1 < 2 == 1", True),  # relational operators share one level, left to right
        ("!0 + 1", 2),  # ! binds tighter than +
        ("1 || 0 && 0", False),  # && || ~| share one level: (1 || 0) && 0
        ("0 && 0 || 1", True),
        ("- 2", -2),
        ("+ 3", 3),
        ("(1 + 1) * (2 + 2)", 8),
    ],
)
def test_precedence_and_associativity(text, expected):
    result = evaluate(text)
    assert result == expected
    assert type(result) is type(expected)


# --------------------------------------------------------------------------- types


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1/2", 0),
        ("1./2", 0.5),
        ("1/2.", 0.5),
        ("-7/2", -3),  # C truncation toward zero
        ("7/-2", -3),
        ("7%4", 3),
        ("-7%3", -1),
        ("1/3*3", 0),
        ("2^-1", 0),  # integer power with negative exponent
        ("2^10", 1024),
        ("1+2.5", 3.5),
        ("TRUE+TRUE", 2),
        ("4.2/2.1", 2.0),
        ("1d3", 1000.0),
        ("1.5e-3", 0.0015),
        (".5", 0.5),
        ("5.", 5.0),
        ("1000000000000000.", 1e15),
    ],
)
def test_integer_and_real_arithmetic(text, expected):
    result = evaluate(text)
    assert result == pytest.approx(expected)
    assert type(result) is type(expected)


def test_integer_literal_overflow_is_an_error():
    with pytest.raises(MathError, match="overflows"):
        evaluate("1000000000000000")


def test_declared_type_casts_value(parser):
    assert parser.evaluate("real x = 1/3") == 0.0
    assert isinstance(parser.get_variable("x"), float)
    assert parser.evaluate("integer i = 2.7") == 2
    assert parser.evaluate("bool b = 5") is True
    assert parser.evaluate("string s = 22.5") == "2.250000e+01"
    assert parser.evaluate("i = 9.9") == 9  # assignment keeps the variable's type


@pytest.mark.parametrize(
    "text, expected",
    [
        ("5 && 2", True), ("5 && 0", False), ("0 && 2", False), ("0 && 0", False),
        ("5 || 2", True), ("5 || 0", True), ("0 || 2", True), ("0 || 0", False),
        ("5 ~| 2", False), ("5 ~| 0", True), ("0 ~| 2", True), ("0 ~| 0", False),
        ("!0", True), ("!9", False),
        ("9 == 9", True), ("9 == 7", False), ("9 != 9", False), ("9 != 7", True),
        ("9 >= 10", False), ("9 >= 9", True), ("9 > 9", False), ("9 > 8", True),
        ("9 <= 8", False), ("9 <= 9", True), ("9 < 9", False), ("9 < 10", True),
        ("1.5 > 1", True), ("TRUE", True), ("FALSE", False),
    ],
)
def test_comparison_and_logical_operators(text, expected):
    assert evaluate(text) is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ('"node"', "node"),
        ('"node_" + 10', "node_10"),
        ('"time_" + 1e-3', "time_1.000000e-03"),
        ('10 + "_x"', "10_x"),
        ('"\\"" + 10 + "::" + 20 + "\\""', '"10::20"'),
        ("string(22.5)", "2.250000e+01"),
        ("string(99)", "99"),
        ("string(TRUE)", "1"),
        ('string("ciao")', "ciao"),
        ('sprintf("%04d", 9)', "0009"),
        ('sprintf("%.2f", pi)', "3.14"),
    ],
)
def test_strings(text, expected):
    assert evaluate(text) == expected


def test_string_concatenation_with_variables(parser):
    parser.evaluate('string pippero = "PIPPERO + "')
    parser.evaluate("integer pippuno = 1000")
    parser.evaluate('pippero = pippero + 5 + " + " + pippuno')
    assert parser.get_variable("pippero") == "PIPPERO + 5 + 1000"


def test_strings_only_support_plus():
    with pytest.raises(MathError, match="not defined for strings"):
        evaluate('"a" - 1')


# --------------------------------------------------------------------------- variables


def test_declarations_persist_across_calls(parser):
    assert parser.evaluate("real x = 1.") == 1.0
    assert parser.evaluate("x + 1") == 2.0
    parser.evaluate("x = x + 1")
    assert parser.get_variable("x") == 2.0
    assert parser.evaluate("integer n") == 0
    assert parser.evaluate("(integer i = 5; i = i + 1; i*2)") == 12
    assert parser.get_variable("i") == 6
    assert parser.evaluate("integer default::j = 9") == 9
    assert parser.evaluate("j") == 9


def test_redeclaration_is_an_error_unless_allowed(parser):
    parser.evaluate("real x = 1.")
    with pytest.raises(MathError, match="cannot redefine"):
        parser.evaluate("real x = 2.")
    parser.allow_redefinition = True
    parser.evaluate("real x = 2.")
    assert parser.get_variable("x") == 2.0


def test_const_cannot_be_reassigned(parser):
    assert parser.evaluate("const integer N = 3") == 3
    with pytest.raises(MathError, match="const"):
        parser.evaluate("N = 4")
    with pytest.raises(MathError, match="const"):
        parser.evaluate("pi = 3")
    with pytest.raises(MathError, match="const"):
        parser.set_variable("N", 5, "integer")
    with pytest.raises(MathError, match="needs a value"):
        parser.evaluate("const real z")
    assert parser.get_variable("N") == 3


def test_ifndef_does_not_overwrite(parser):
    parser.evaluate("integer W = 10")
    assert parser.evaluate("ifndef integer W = 11") == 10
    assert parser.evaluate("ifndef real W = 12.") == 10  # different type: still skipped
    assert parser.get_variable("W") == 10
    assert parser.evaluate("ifndef integer W2 = 11") == 11
    assert parser.evaluate("(const integer k = 5; ifndef integer k = 10)") == 5


def test_assignment_needs_an_existing_variable(parser):
    with pytest.raises(MathError, match='unknown variable "v"'):
        parser.evaluate("v = 2")


def test_keywords_cannot_be_variables(parser):
    with pytest.raises(MathError, match="keyword"):
        parser.evaluate("real sin = 1.")
    with pytest.raises(MathError, match="keyword"):
        parser.evaluate("integer real = 1")


def test_set_and_get_variable(parser):
    parser.set_variable("Time", 0.25)
    parser.set_variable("Step", 3.7, "integer")
    assert parser.evaluate("Time*4") == 1.0
    assert parser.get_variable("Step") == 3
    assert parser.variable_type("Step") == "integer"
    with pytest.raises(MathError, match="unknown variable"):
        parser.get_variable("nothing")


def test_comments_inside_expressions():
    assert evaluate("1 + # comment\n 2") == 3
    assert evaluate("1 /* c */ + 2") == 3


# --------------------------------------------------------------------------- functions and constants


@pytest.mark.parametrize(
    "text, expected",
    [
        ("pi", math.pi), ("e", math.e), ("deg2rad", math.pi / 180), ("rad2deg", 180 / math.pi),
        ("in2m", 0.0254), ("m2in", 1 / 0.0254), ("in2mm", 25.4), ("ft2m", 0.3048), ("lb2kg", 0.45359237),
        ("slug2kg", 14.5939), ("kg2slug", 1 / 14.5939),
        ("sin(pi/2)", 1.0), ("cos(0)", 1.0), ("5*cos(0)", 5.0), ("tan(pi/4)", 1.0),
        ("asin(1)", math.pi / 2), ("acos(0)", math.pi / 2), ("atan(1)", math.pi / 4),
        ("atan2(1, -1)", 3 * math.pi / 4), ("actan(1)", math.pi / 4), ("actan2(1, 1)", math.pi / 4),
        ("ctan(pi/4)", 1.0), ("ctanh(1)", 1 / math.tanh(1)), ("actanh(2)", math.atanh(0.5)),
        ("sinh(1)", math.sinh(1)), ("cosh(1)", math.cosh(1)), ("tanh(1)", math.tanh(1)),
        ("asinh(1)", math.asinh(1)), ("acosh(2)", math.acosh(2)), ("atanh(0.5)", math.atanh(0.5)),
        ("exp(1)", math.e), ("log(e)", 1.0), ("log10(1000)", 3.0), ("sqrt(16)", 4.0),
        ("abs(-2.5)", 2.5), ("copysign(3, -1)", -3.0), ("min(1, 2)", 1.0), ("max(1, 2)", 2.0),
        ("step(-1)", 0.0), ("step(0)", 0.5), ("step(2)", 1.0),
        ("ramp(-1)", 0.0), ("ramp(2)", 2.0), ("par(-3)", 0.0), ("par(3)", 9.0),
        ("sramp(-1, 2)", 0.0), ("sramp(1, 2)", 1.0), ("sramp(3, 2)", 2.0),
        ("real(3)", 3.0), ("default::cos(0)", 1.0),
    ],
)
def test_real_functions_and_constants(text, expected):
    result = evaluate(text)
    assert isinstance(result, float)
    assert result == pytest.approx(expected, rel=1e-14, abs=1e-15)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("INT_MAX", 2147483647), ("INT_MIN", -2147483648), ("RAND_MAX", 2147483647),
        ("floor(-2.5)", -3), ("ceil(2.1)", 3), ("round(2.6)", 3), ("sign(-3.)", -1), ("sign(0.)", 0),
        ("integer(22.5)", 22), ("integer(-22.5)", -22), ("10 + integer(22.5)", 32),
        ("100*(integer(22.5) + 10)", 3200), ("floor(7.5)/2", 3),
    ],
)
def test_integer_valued_functions(text, expected):
    result = evaluate(text)
    assert result == expected
    assert type(result) is int


@pytest.mark.parametrize(
    "text, expected",
    [
        ("in_ll(-1., -1., 1.)", False), ("in_ll(-1., 0., 1.)", True), ("in_ll(-1., 1., 1.)", False),
        ("in_le(-1., -1., 1.)", False), ("in_le(-1., 1., 1.)", True),
        ("in_el(-1., -1., 1.)", True), ("in_el(-1., 1., 1.)", False),
        ("in_ee(-1., -1., 1.)", True), ("in_ee(-1., 1., 1.)", True), ("in_ee(-1., 2., 1.)", False),
        ("bool(10.5)", True), ("bool(0.e-3)", False), ("bool(22)", True),
    ],
)
def test_boolean_functions(text, expected):
    assert evaluate(text) is expected


def test_random_functions_are_in_range(parser):
    parser.evaluate("seed(3)")
    first = parser.evaluate("rand()")
    assert 0 <= first <= 2147483647
    assert -1.0 <= parser.evaluate("random()") <= 1.0
    parser.evaluate("seed(3)")
    assert parser.evaluate("rand()") == first


def test_stop_raises_with_exit_code():
    assert evaluate("stop(0, 3)") == 0
    with pytest.raises(MathStop) as info:
        evaluate("stop(1 > 0, 3)")
    assert info.value.exit_code == 3


@pytest.mark.parametrize("text", ["sqrt(-1.)", "log(0.)", "asin(2.)", "acos(-1.5)", "atanh(1.)", "1/0", "1./0."])
def test_domain_errors(text):
    with pytest.raises(MathError):
        evaluate(text)


def test_negative_base_with_non_positive_exponent_is_an_error():
    with pytest.raises(MathError, match="negative base"):
        evaluate("(-2)^-1")


# --------------------------------------------------------------------------- errors name the column


@pytest.mark.parametrize(
    "text, column, words",
    [
        ("1 +", 4, "expected an expression"),
        ("foo(1)", 1, 'unknown function "foo"'),
        ("2 * bar", 5, 'unknown name "bar"'),
        ("(1+2", 5, "expected ')'"),
        ("sin(1, 2)", 1, 'function "sin" takes 1'),
        ("1 $ 2", 3, "unexpected character"),
        ("1 2", 3, "expected an operator"),
        ("3 * * 2", 5, "expected an expression"),
        ("real 5 = 1", 6, "expected a variable name"),
        ('"abc', 1, "unterminated string"),
        ("2.3.4", 1, "malformed number"),
        ("1e+", 1, "malformed exponent"),
    ],
)
def test_error_messages_contain_the_column(text, column, words):
    with pytest.raises(MathError) as info:
        MathParser().evaluate(text)
    error = info.value
    assert error.column == column
    assert f"column {column}" in str(error)
    assert words in str(error)
    assert text in str(error)


# --------------------------------------------------------------------------- compiled expressions


def test_compiled_expression_keeps_time_symbolic_and_vectorizes(parser):
    expression = parser.compile("sin(2*pi*Time) + Time^2")
    assert expression(Time=0.25) == pytest.approx(1.0 + 0.0625)
    times = np.linspace(0.0, 1.0, 11)
    np.testing.assert_allclose(expression(Time=times), np.sin(2 * np.pi * times) + times**2, rtol=1e-14)


def test_constant_expression_broadcasts_to_time_shape(parser):
    expression = parser.compile("3")
    assert expression(Time=0.5) == 3.0
    np.testing.assert_array_equal(expression(Time=np.zeros(4)), np.full(4, 3.0))


def test_compiled_expression_reads_variables_at_call_time(parser):
    parser.evaluate("real VAL = 5.5")
    late = parser.compile("VAL")
    frozen = parser.compile("real_eval(VAL)")
    parser.evaluate("VAL = VAL + 2")
    assert late(Time=0.0) == 7.5
    assert frozen(Time=0.0) == 5.5


def test_compiled_expression_local_bindings_do_not_leak(parser):
    expression = parser.compile("(real r = 2.*pi; integer k = 3; sin(k*r*Time + .87))")
    assert expression(Time=0.1) == pytest.approx(math.sin(6 * math.pi * 0.1 + 0.87))
    assert not parser.has_variable("r")
    assert not parser.has_variable("k")


def test_compiled_expression_boolean_value(parser):
    parser.evaluate("real T1 = 0.5")
    expression = parser.compile("Time > T1")
    np.testing.assert_array_equal(expression(Time=np.array([0.2, 0.5, 0.7])), [0.0, 0.0, 1.0])


def test_compile_rejects_unknown_names_with_column(parser):
    with pytest.raises(MathError) as info:
        parser.compile("Time + foo")
    assert info.value.column == 8
    with pytest.raises(MathError, match='unknown variable "v"'):
        parser.compile("v = sin(Time); v")


def test_compiled_expression_with_two_free_variables(parser):
    expression = parser.compile("Var*Time", free=("Time", "Var"))
    assert expression(Time=2.0, Var=3.0) == 6.0
    assert expression.derivative("Var")(Time=2.0, Var=3.0) == 2.0
    with pytest.raises(MathError):
        expression(Time=1.0, Other=2.0)


# --------------------------------------------------------------------------- symbolic derivatives


DERIVATIVE_CASES = [
    "sin(2*pi*Time) + Time^2",
    "cos(3*Time)*exp(-Time)",
    "Time^Time",
    "Time^-1 + Time^3 - 2*Time^0.5",
    "sqrt(1 + Time^2)/(2 + tan(Time))",
    "log(Time)*log10(Time + 1)",
    "atan2(Time, 2.) + atan(Time) + asin(Time/3) + acos(Time/4)",
    "sinh(Time)*cosh(Time) - tanh(Time)",
    "asinh(Time) + acosh(Time + 1) + atanh(Time/2)",
    "ctan(Time + 0.3) + ctanh(Time + 0.2) + actan(Time) + actan2(Time, 1.5) + actanh(Time + 2)",
    "abs(Time - 0.7) + max(Time, 0.4)*min(Time, 1.) + copysign(Time, -1.)",
    "ramp(Time - 0.2) + par(Time - 0.3) + sramp(Time, 1.2)",
    "1. - (Time > .01)*.2*(1 - cos(pi*(Time - .01)))",
    "(real r = 2.*pi; integer k = 3; sin(k*r*Time + .87))",
    "(real x = Time; x = x*x; x*Time)",
    "Time/2 + 1/Time",
    "real(Time)*integer(3.7) + floor(Time)*Time",
    "-Time^2 + exp(sin(Time))^2",
]


@pytest.mark.parametrize("text", DERIVATIVE_CASES)
def test_symbolic_derivative_matches_central_differences(parser, text):
    expression = parser.compile(text)
    first = expression.derivative("Time")
    second = first.derivative("Time")
    times = np.array([0.15, 0.45, 0.83, 1.37])  # away from kinks of the non-smooth cases
    h = 1e-5
    fd_first = (expression(Time=times + h) - expression(Time=times - h)) / (2 * h)
    fd_second = (first(Time=times + h) - first(Time=times - h)) / (2 * h)
    np.testing.assert_allclose(first(Time=times), fd_first, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(second(Time=times), fd_second, rtol=1e-6, atol=1e-6)
    # scalar calls agree with vectorized calls
    assert first(Time=float(times[1])) == pytest.approx(first(Time=times)[1], rel=1e-14)


def test_derivative_is_exact(parser):
    first = parser.compile("sin(2*pi*Time) + Time^2").derivative("Time")
    second = first.derivative("Time")
    times = np.linspace(-1.0, 2.0, 31)
    np.testing.assert_allclose(first(Time=times), 2 * np.pi * np.cos(2 * np.pi * times) + 2 * times,
                               rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(second(Time=times), -4 * np.pi**2 * np.sin(2 * np.pi * times) + 2,
                               rtol=1e-13, atol=1e-11)


def test_derivative_of_piecewise_constant_parts_is_zero(parser):
    expression = parser.compile("(Time > 1)*3 + floor(Time) + sign(Time) + step(Time - 2)")
    assert expression.is_constant("Time")
    assert expression.derivative("Time")(Time=1.0) == 0.0
    absolute = parser.compile("abs(Time)").derivative("Time")
    assert absolute(Time=-2.0) == -1.0
    assert absolute(Time=3.0) == 1.0


def test_derivative_only_for_free_variables(parser):
    with pytest.raises(MathError, match="not a free variable"):
        parser.compile("Time").derivative("Var")


def test_registered_function_with_hidden_time_dependence(parser):
    # a stand-in for model::drive(label): value 2 t label, time derivative 2 label
    parser.register_function("model::drive", lambda label: 2.0 * label * parser.get_variable("Time"),
                             n_args=1, derivatives={"Time": lambda label: 2.0 * label})
    parser.set_variable("Time", 0.5)
    assert parser.evaluate("model::drive(3)") == 3.0
    expression = parser.compile("Time*model::drive(3)")
    assert expression.derivative("Time")(Time=0.5) == pytest.approx(3.0 + 0.5 * 6.0)


# --------------------------------------------------------------------------- depth and length (issue 18)


def test_long_chains_and_sign_runs_need_no_recursion():
    from_parser = MathParser()
    assert from_parser.evaluate("+".join(["1"] * 100_000)) == 100_000
    assert from_parser.evaluate("-" * 5000 + "2") == 2 and from_parser.evaluate("-" * 5001 + "2") == -2
    assert from_parser.evaluate("!" * 5001 + "0") is True
    assert from_parser.evaluate("(" * 75 + "1.5" + ")" * 75) == 1.5
    assert from_parser.evaluate("1" + "-1" * 3000) == -2999        # left associative all the way
    assert from_parser.evaluate("2.^" * 3 + "2.") == 65536.0         # ^ still right associative


def test_long_compiled_expressions_and_their_derivatives():
    parser = MathParser()
    e = parser.compile("+".join(["Time"] * 2000) + " - " + "-" * 4000 + "Time*Time")
    assert e(Time=3.0) == pytest.approx(2000 * 3.0 - 9.0)
    assert e.derivative("Time")(Time=3.0) == pytest.approx(2000 - 6.0)
    p = parser.compile("*".join(["Time"] * 300))
    assert p.derivative("Time")(Time=1.001) == pytest.approx(300 * 1.001 ** 299)
    assert e.called_functions() == [] and p.is_constant("Time") is False


def test_nesting_limit_is_a_located_error():

    text = "(" * MAX_NESTING + "1" + ")" * MAX_NESTING
    assert MathParser().evaluate(text) == 1
    assert MathParser().evaluate("sin(" * (MAX_NESTING - 1) + "0." + ")" * (MAX_NESTING - 1)) == 0.0
    with pytest.raises(MathError) as info:
        MathParser().evaluate("(" + text + ")")
    assert "nested too deeply" in info.value.message and info.value.column == MAX_NESTING + 1


def test_integer_power_beyond_64_bits_is_an_error():
    assert evaluate("2^62") == 2**62 and evaluate("(-3)^3") == -27
    with pytest.raises(MathError, match="integer overflow"):
        evaluate("2^2^2^2^2^2")
    assert evaluate("2.^2^2^2") == 65536.0 and evaluate("2^2^2^2") == 65536
