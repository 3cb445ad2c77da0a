"""MBDyn's math expression language: tokenizer, parser, typed evaluator and symbolic derivatives.

Reference: MBDyn input manual, sections 2.1.3 (Numeric Values) and 2.2 (Variables);
spec/mbdyn-input-language.md section 1.8.  Written from the documentation; no MBDyn code is reused.

Two ways to use it:

* ``MathParser.evaluate(text)`` runs one statement (or a ``;``-separated statement list) right
  away, with MBDyn's types (bool, integer, real, string), integer division, declarations and
  assignments that persist in the parser's variable table.  This is what ``set:`` cards and
  every numeric argument of a deck need.
* ``MathParser.compile(text, free=("Time",))`` parses once and returns an ``Expression`` whose
  free names stay symbolic (``string`` drive callers).  Other variables are looked up in the
  parser's table *at call time*, as MBDyn does (use ``real_eval(...)`` to freeze a value at
  compile time).  Declarations and assignments inside a compiled expression bind local names
  that live for one call only.  ``Expression`` accepts numpy arrays and has an exact symbolic
  ``derivative``.

Operator precedence, highest first (MBDyn reference implementation):
unary ``+ - !``; ``^`` (right associative, so ``-2^2 == 4`` and ``4^3^2 == 262144``);
``* / %``; ``+ -``; ``> >= == <= < !=``; ``&& || ~|`` (xor); ``=`` (statement level).
"""

from __future__ import annotations

import math
import operator
import random as _random_module
import sys

import numpy as np

__all__ = ["MathError", "MathStop", "MathParser", "Expression", "TYPE_NAMES"]

INT_MAX = 2**31 - 1
INT_MIN = -(2**31)
RAND_MAX = 2**31 - 1

TYPE_NAMES = ("bool", "integer", "real", "string")
_MODIFIERS = ("ifndef", "const")
_NAME_START = "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NAME_CHARS = _NAME_START + "0123456789"
_EXPONENT_LETTERS = "eEdDfFgG"
_TWO_CHAR_OPERATORS = ("==", "!=", "<=", ">=", "&&", "||", "~|")
_ONE_CHAR_OPERATORS = "+-*/%^(),;=<>!"
# binary operators by precedence (unary + - ! bind tighter than all of them)
_PRECEDENCE = {"&&": 1, "||": 1, "~|": 1, ">": 2, ">=": 2, "==": 2, "<=": 2, "<": 2, "!=": 2,
               "+": 3, "-": 3, "*": 4, "/": 4, "%": 4, "^": 5}
# levels of parentheses and function arguments an expression may nest (far beyond any deck;
# the parser spends two or three Python frames per level)
MAX_NESTING = 200


# --------------------------------------------------------------------------- errors


class MathError(Exception):
    """Error in an MBDyn math expression; the message names the offending text and column."""

    def __init__(self, message, text=None, column=None):
        self.message = message
        self.text = text
        self.column = column
        where = ""
        if column is not None:
            where += f" at column {column}"
        if text is not None:
            where += f' in "{text}"'
        super().__init__(message + where)


class MathStop(MathError):
    """Raised by the built-in ``stop(condition, code)`` when the condition is true."""

    def __init__(self, exit_code, text=None, column=None):
        self.exit_code = exit_code
        super().__init__(f"stop() requested exit with code {exit_code}", text, column)


class _Where:
    """Text and column used to build error messages outside the parse tree."""

    __slots__ = ("text", "column")

    def __init__(self, text, column=None):
        self.text = text
        self.column = column

    def error(self, message, error_class=MathError):
        return error_class(message, self.text, self.column)


# --------------------------------------------------------------------------- values and types


def _kind(value):
    """MBDyn type name of a Python/numpy value: bool, integer, real or string."""
    if isinstance(value, np.ndarray):
        letter = value.dtype.kind
        if letter == "b":
            return "bool"
        if letter in "iu":
            return "integer"
        if letter == "f":
            return "real"
        return "string"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "integer"
    if isinstance(value, (float, np.floating)):
        return "real"
    if isinstance(value, str):
        return "string"
    raise TypeError(f"unsupported value {value!r}")


def _is_array(value):
    return isinstance(value, np.ndarray) and value.ndim > 0


def _plain(value):
    """numpy scalars and 0-d arrays become Python scalars; arrays stay arrays."""
    if isinstance(value, np.ndarray):
        return value if value.ndim > 0 else value[()].item()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _numeric(value):
    """bool promoted to integer (bool -> integer -> real promotion)."""
    if isinstance(value, np.ndarray):
        return value.astype(np.int64) if value.dtype.kind == "b" else value
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    return value


def _as_real(value, where, what="a real value"):
    kind = _kind(value)
    if kind == "string":
        raise where.error(f"expected {what}, got string \"{value}\"")
    if isinstance(value, np.ndarray):
        return value if value.dtype.kind == "f" else value.astype(float)
    return float(value)


def _truth(value, where):
    if _kind(value) == "string":
        raise where.error("logical operators are not defined for strings")
    if isinstance(value, np.ndarray):
        return value != 0
    return bool(value != 0)


def _to_string(value, where):
    """MBDyn's string conversion: integers as %ld, reals as C %e, bools as 1/0."""
    if _is_array(value):
        raise where.error("cannot convert a time-dependent value to a string")
    value = _plain(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    return "%e" % value


def _truncate_to_integer(value, where):
    if isinstance(value, np.ndarray):
        return np.trunc(value).astype(np.int64)
    try:
        return int(value)
    except (ValueError, OverflowError):
        raise where.error(f"cannot convert {value} to an integer") from None


def _default_value(type_name):
    return {"bool": False, "integer": 0, "real": 0.0, "string": ""}[type_name]


def _cast(value, type_name, where):
    """Cast a value to an MBDyn type (``integer(22.5) == 22``, ``string(22.5) == "2.250000e+01"``)."""
    kind = _kind(value)
    if type_name == "string":
        return _to_string(value, where)
    if kind == "string":
        raise where.error(f'cannot cast string "{value}" to {type_name}')
    if type_name == "real":
        return _as_real(value, where)
    if type_name == "integer":
        if kind == "real":
            return _truncate_to_integer(value, where)
        return _plain(_numeric(value))
    if type_name == "bool":
        return _truth(value, where)
    raise where.error(f'unknown type "{type_name}"')


# --------------------------------------------------------------------------- operators


def _trunc_div(a, b):
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _is_integer_like(kind):
    return kind in ("bool", "integer")


def _add(a, b, where, strict=True):
    if _kind(a) == "string" or _kind(b) == "string":
        return _to_string(a, where) + _to_string(b, where)
    return _plain(_numeric(a) + _numeric(b))


def _subtract(a, b, where, strict=True):
    if _kind(a) == "string" or _kind(b) == "string":
        raise where.error("operator '-' is not defined for strings")
    return _plain(_numeric(a) - _numeric(b))


def _multiply(a, b, where, strict=True):
    if _kind(a) == "string" or _kind(b) == "string":
        raise where.error("operator '*' is not defined for strings")
    return _plain(_numeric(a) * _numeric(b))


def _divide(a, b, where, strict=True):
    kind_a, kind_b = _kind(a), _kind(b)
    if kind_a == "string" or kind_b == "string":
        raise where.error("operator '/' is not defined for strings")
    if strict and np.any(np.asarray(b) == 0):
        raise where.error("division by zero")
    if strict and _is_integer_like(kind_a) and _is_integer_like(kind_b):
        a, b = _numeric(a), _numeric(b)
        if _is_array(a) or _is_array(b):
            return (a - np.fmod(a, b)) // b
        return _trunc_div(a, b)
    a, b = _as_real(a, where), _as_real(b, where)
    if strict and not (_is_array(a) or _is_array(b)):
        return a / b
    with np.errstate(all="ignore"):
        return _plain(np.true_divide(a, b))


def _modulo(a, b, where, strict=True):
    if not (_is_integer_like(_kind(a)) and _is_integer_like(_kind(b))):
        raise where.error("operator '%' requires integer operands")
    a, b = _numeric(a), _numeric(b)
    if np.any(np.asarray(b) == 0):
        raise where.error("modulus by zero")
    if _is_array(a) or _is_array(b):
        return np.fmod(a, b)
    return a - b * _trunc_div(a, b)


def _power(a, b, where, strict=True):
    kind_a, kind_b = _kind(a), _kind(b)
    if kind_a == "string" or kind_b == "string":
        raise where.error("operator '^' is not defined for strings")
    a, b = _numeric(a), _numeric(b)
    if strict and np.any((np.asarray(a) < 0) & (np.asarray(b) <= 0)):
        raise where.error("negative base with non-positive exponent in '^'")
    if strict and _is_integer_like(kind_a) and _is_integer_like(kind_b):
        if _is_array(a) or _is_array(b):
            return np.where(b < 0, 0, np.power(a, np.maximum(b, 0)))
        if b < 0:
            return 0
        if abs(a) > 1 and b * math.log2(abs(a)) > 64:
            # Python integers have no bound: 2^2^2^2^2^2 would take all memory and time
            raise where.error("integer overflow in '^' (the result exceeds 64 bits; write a real "
                              "operand, e.g. 2.^n)")
        return a**b
    a, b = _as_real(a, where), _as_real(b, where)
    with np.errstate(all="ignore"):
        return _plain(np.power(a, b))


_COMPARISONS = {
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "<=": operator.le,
    "<": operator.lt,
    "!=": operator.ne,
}


def _make_comparison(symbol):
    compare = _COMPARISONS[symbol]

    def comparison(a, b, where, strict=True):
        if (_kind(a) == "string") != (_kind(b) == "string"):
            raise where.error(f"cannot compare a string with a number using '{symbol}'")
        result = compare(a, b)
        return result if _is_array(result) else bool(result)

    return comparison


def _logical_and(a, b, where, strict=True):
    return _plain(np.logical_and(_truth(a, where), _truth(b, where)))


def _logical_or(a, b, where, strict=True):
    return _plain(np.logical_or(_truth(a, where), _truth(b, where)))


def _logical_xor(a, b, where, strict=True):
    return _plain(np.logical_xor(_truth(a, where), _truth(b, where)))


_BINARY_OPERATIONS = {
    "+": _add,
    "-": _subtract,
    "*": _multiply,
    "/": _divide,
    "%": _modulo,
    "^": _power,
    "&&": _logical_and,
    "||": _logical_or,
    "~|": _logical_xor,
}
_BINARY_OPERATIONS.update({symbol: _make_comparison(symbol) for symbol in _COMPARISONS})


def _unary_operation(symbol, value, where):
    if _kind(value) == "string":
        raise where.error(f"unary '{symbol}' is not defined for strings")
    if symbol == "-":
        return _plain(-_numeric(value))
    if symbol == "+":
        return value
    return _plain(np.logical_not(_truth(value, where)))


# --------------------------------------------------------------------------- tokenizer


class _Token:
    __slots__ = ("kind", "value", "raw", "column")

    def __init__(self, kind, value, raw, column):
        self.kind = kind  # "number", "string", "name", "op", "end"
        self.value = value
        self.raw = raw
        self.column = column

    def is_op(self, *symbols):
        return self.kind == "op" and self.value in symbols

    def describe(self):
        if self.kind == "end":
            return "end of expression"
        if self.kind == "string":
            return f'string "{self.value}"'
        if self.kind == "name":
            return f'name "{self.value}"'
        return f"'{self.raw}'"


def _skip_blanks_and_comments(text, i):
    n = len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1  # backslash-newline continues the comment
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise MathError("unterminated /* comment", text, i + 1)
            i = end + 2
        else:
            break
    return i


def _read_number(text, i):
    """Digits with at most one '.', optional exponent (letter e E d D f F g G)."""
    n = len(text)
    start = i
    seen_dot = False
    while i < n and (text[i].isdigit() or text[i] == "."):
        if text[i] == ".":
            if seen_dot:
                raise MathError("malformed number (two decimal points)", text, start + 1)
            seen_dot = True
        i += 1
    mantissa = text[start:i]
    if mantissa == ".":
        raise MathError("malformed number '.'", text, start + 1)
    is_real = seen_dot
    exponent = ""
    if i < n and text[i] in _EXPONENT_LETTERS:
        j = i + 1
        if j < n and text[j] in "+-":
            j += 1
        if j >= n or not text[j].isdigit():
            raise MathError("malformed exponent in number", text, start + 1)
        while j < n and text[j].isdigit():
            j += 1
        exponent = text[i + 1 : j]
        is_real = True
        i = j
    raw = text[start:i]
    if is_real:
        value = float(mantissa + ("e" + exponent if exponent else ""))
    else:
        value = int(mantissa)
        if value > INT_MAX:
            raise MathError(
                f"integer literal {mantissa} overflows a C int; write {mantissa}. or use an exponent",
                text,
                start + 1,
            )
    return _Token("number", value, raw, start + 1), i


def _read_name(text, i):
    """An identifier, optionally namespace-qualified (ns::name, ns::sub::name)."""
    n = len(text)
    start = i
    parts = []
    while True:
        j = i
        while j < n and text[j] in _NAME_CHARS:
            j += 1
        parts.append(text[i:j])
        k = j
        while k < n and text[k] in " \t":
            k += 1
        if text.startswith("::", k):
            k += 2
            while k < n and text[k] in " \t":
                k += 1
            if k >= n or text[k] not in _NAME_START:
                raise MathError("name expected after '::'", text, k + 1)
            i = k
            continue
        qualified = "::".join(parts)
        return _Token("name", qualified, text[start:j], start + 1), j


def _read_string(text, i):
    n = len(text)
    start = i
    i += 1
    characters = []
    while i < n and text[i] != '"':
        if text[i] == "\\" and i + 1 < n:
            i += 1
        characters.append(text[i])
        i += 1
    if i >= n:
        raise MathError("unterminated string", text, start + 1)
    value = "".join(characters)
    return _Token("string", value, text[start : i + 1], start + 1), i + 1


def _tokenize(text):
    tokens = []
    i = 0
    n = len(text)
    while True:
        i = _skip_blanks_and_comments(text, i)
        if i >= n:
            tokens.append(_Token("end", None, "", n + 1))
            return tokens
        c = text[i]
        if c.isdigit() or c == ".":
            token, i = _read_number(text, i)
        elif c in _NAME_START:
            token, i = _read_name(text, i)
        elif c == '"':
            token, i = _read_string(text, i)
        elif text[i : i + 2] in _TWO_CHAR_OPERATORS:
            token = _Token("op", text[i : i + 2], text[i : i + 2], i + 1)
            i += 2
        elif c in _ONE_CHAR_OPERATORS:
            token = _Token("op", c, c, i + 1)
            i += 1
        elif c == "[":
            raise MathError("plugin variables ([...]) are not supported", text, i + 1)
        else:
            raise MathError(f"unexpected character '{c}'", text, i + 1)
        tokens.append(token)


# --------------------------------------------------------------------------- parse tree
#
# Trees are walked without Python recursion: a chain of a thousand terms is a left-deep tree a
# thousand levels deep, five thousand leading signs five thousand levels of _Unary, and a deck
# may hold either.  Every node tells its children (children(scope), evaluated left to right)
# and how it combines their values (combine(scope, values)); _evaluate runs one explicit stack.


def _evaluate(root, scope):
    """Value of a tree in scope: children left to right, then the node (the order of the
    recursive definition: side effects of declarations and assignments come in text order)."""
    values = []
    stack = [(root, None)]
    while stack:
        node, children = stack.pop()
        if children is None:
            children = node.children(scope)
            if children:
                stack.append((node, children))
                stack.extend((child, None) for child in reversed(children))
                continue
            values.append(node.combine(scope, ()))
            continue
        start = len(values) - len(children)
        value = node.combine(scope, values[start:])
        del values[start:]
        values.append(value)
    return values[0]


class _Node:
    __slots__ = ("text", "column")

    def error(self, message, error_class=MathError):
        return error_class(message, self.text, self.column)

    def ev(self, scope):
        return _evaluate(self, scope)


class _Constant(_Node):
    __slots__ = ("value",)

    def __init__(self, value, text=None, column=None):
        self.value = value
        self.text = text
        self.column = column

    def children(self, scope):
        return ()

    def combine(self, scope, values):
        return self.value


class _Name(_Node):
    __slots__ = ("name",)

    def __init__(self, name, text=None, column=None):
        self.name = name
        self.text = text
        self.column = column

    def children(self, scope):
        return ()

    def combine(self, scope, values):
        return scope.lookup(self.name, self)


class _Unary(_Node):
    __slots__ = ("symbol", "operand")

    def __init__(self, symbol, operand, text=None, column=None):
        self.symbol = symbol
        self.operand = operand
        self.text = text
        self.column = column

    def children(self, scope):
        return (self.operand,)

    def combine(self, scope, values):
        return _unary_operation(self.symbol, values[0], self)


class _Binary(_Node):
    __slots__ = ("symbol", "left", "right", "strict", "operation")

    def __init__(self, symbol, left, right, text=None, column=None, strict=True):
        """strict=False (only in derivative trees): real division/power without MBDyn's error checks."""
        self.symbol = symbol
        self.left = left
        self.right = right
        self.strict = strict
        self.operation = _BINARY_OPERATIONS[symbol]
        self.text = text
        self.column = column

    def children(self, scope):
        return (self.left, self.right)

    def combine(self, scope, values):
        return self.operation(values[0], values[1], self, self.strict)


class _Call(_Node):
    __slots__ = ("function", "arguments")

    def __init__(self, function, arguments, text=None, column=None):
        self.function = function
        self.arguments = arguments
        self.text = text
        self.column = column

    def children(self, scope):
        return self.arguments

    def combine(self, scope, values):
        return self.function.implementation(list(values), self, scope)


class _StatementList(_Node):
    __slots__ = ("statements",)

    def __init__(self, statements, text=None, column=None):
        self.statements = statements
        self.text = text
        self.column = column

    def children(self, scope):
        return self.statements

    def combine(self, scope, values):
        return values[-1]


class _Declaration(_Node):
    __slots__ = ("ifndef", "const", "type_name", "name", "expression")

    def __init__(self, ifndef, const, type_name, name, expression, text=None, column=None):
        self.ifndef = ifndef
        self.const = const
        self.type_name = type_name
        self.name = name
        self.expression = expression
        self.text = text
        self.column = column

    def children(self, scope):
        if self.expression is None or scope.keeps_declared(self):
            return ()
        return (self.expression,)

    def combine(self, scope, values):
        return scope.declare(self, values[0] if values else None)


class _Assignment(_Node):
    __slots__ = ("name", "expression")

    def __init__(self, name, expression, text=None, column=None):
        self.name = name
        self.expression = expression
        self.text = text
        self.column = column

    def children(self, scope):
        return (self.expression,)

    def combine(self, scope, values):
        return scope.assign(self, values[0])


# --------------------------------------------------------------------------- functions


class _Function:
    """A callable name of the math language.

    implementation(values, node, scope) -> value.
    partials: "zero" (piecewise constant), None (no derivative), or one builder per argument:
    builder(differentiator, argument_nodes) -> node of the partial derivative.
    implicit_partials: {free variable name: _Function} for hidden dependence (model:: functions).
    state_source: None, or the object whose model state the function reads at call time
    (``model::element::...``, ``model::node::...``): such a function has no derivative.
    """

    __slots__ = ("name", "min_arguments", "max_arguments", "implementation", "partials",
                 "returns", "evaluate_at_parse_time", "implicit_partials", "state_source")

    def __init__(self, name, min_arguments, max_arguments, implementation, partials, returns,
                 evaluate_at_parse_time=False, implicit_partials=None, state_source=None):
        self.name = name
        self.min_arguments = min_arguments
        self.max_arguments = max_arguments
        self.implementation = implementation
        self.partials = partials
        self.returns = returns
        self.evaluate_at_parse_time = evaluate_at_parse_time
        self.implicit_partials = implicit_partials or {}
        self.state_source = state_source

    def describe_arity(self):
        if self.min_arguments == self.max_arguments:
            return f"{self.min_arguments} argument(s)"
        if self.max_arguments is None:
            return f"at least {self.min_arguments} argument(s)"
        return f"{self.min_arguments} to {self.max_arguments} arguments"


def _real_arguments(values, node):
    return [_as_real(v, node, f'a real argument for function "{node.function.name}"') for v in values]


def _check_domain(x, node, inside):
    if not _is_array(x) and not inside(x):
        raise node.error(f'argument {x!r} is outside the domain of function "{node.function.name}"')


def _real_function(numpy_function, domain=None):
    def implementation(values, node, scope):
        (x,) = _real_arguments(values, node)
        if domain is not None:
            _check_domain(x, node, domain)
        with np.errstate(all="ignore"):
            return _plain(numpy_function(x))

    return implementation


def _real_function_2(numpy_function):
    def implementation(values, node, scope):
        a, b = _real_arguments(values, node)
        with np.errstate(all="ignore"):
            return _plain(numpy_function(a, b))

    return implementation


def _integer_function(numpy_function):
    def implementation(values, node, scope):
        (x,) = _real_arguments(values, node)
        return _truncate_to_integer(_plain(numpy_function(x)), node)

    return implementation


def _sign(values, node, scope):
    (x,) = _real_arguments(values, node)
    if _is_array(x):
        return np.sign(x).astype(np.int64)
    return 0 if x == 0 else (1 if x > 0 else -1)


def _step(values, node, scope):
    (x,) = _real_arguments(values, node)
    return _plain(np.where(x > 0, 1.0, np.where(x < 0, 0.0, 0.5)))


def _ramp(values, node, scope):
    (x,) = _real_arguments(values, node)
    return _plain(np.where(x > 0, x, 0.0))


def _parabola(values, node, scope):
    (x,) = _real_arguments(values, node)
    return _plain(np.where(x > 0, x * x, 0.0))


def _saturated_ramp(values, node, scope):
    x, top = _real_arguments(values, node)
    return _plain(np.where(x < 0, 0.0, np.where(x > top, top, x)))


def _make_interval_test(lower_inclusive, upper_inclusive):
    def implementation(values, node, scope):
        lower, x, upper = _real_arguments(values, node)
        above = (x >= lower) if lower_inclusive else (x > lower)
        below = (x <= upper) if upper_inclusive else (x < upper)
        return _plain(np.logical_and(above, below))

    return implementation


def _reciprocal_tangent(values, node, scope):
    (x,) = _real_arguments(values, node)
    _check_domain(x, node, lambda v: math.tan(v) != 0)
    with np.errstate(all="ignore"):
        return _plain(1.0 / np.tan(x))


def _reciprocal_tanh(values, node, scope):
    (x,) = _real_arguments(values, node)
    _check_domain(x, node, lambda v: v != 0)
    with np.errstate(all="ignore"):
        return _plain(1.0 / np.tanh(x))


def _rand(values, node, scope):
    return scope.math_parser._random_generator.randint(0, RAND_MAX)


def _random(values, node, scope):
    return scope.math_parser._random_generator.uniform(-1.0, 1.0)


def _seed(values, node, scope):
    seed = _cast(values[0], "integer", node)
    scope.math_parser._random_generator.seed(seed)
    return 0


def _print(values, node, scope):
    print(values[0])
    return values[0]


def _stop(values, node, scope):
    condition = _truth(values[0], node)
    code = _cast(values[1], "integer", node)
    if np.any(condition):
        raise MathStop(code, node.text, node.column)
    return 0


def _sprintf(values, node, scope):
    form, value = values
    if _kind(form) != "string":
        raise node.error('sprintf() expects a format string as first argument')
    if _is_array(value):
        raise node.error("sprintf() cannot format a time-dependent value")
    value = _plain(value)
    if isinstance(value, bool):
        value = int(value)
    try:
        return form % value
    except (TypeError, ValueError) as exc:
        raise node.error(f'sprintf() format "{form}" does not fit value {value!r} ({exc})') from None


def _make_cast(type_name):
    def implementation(values, node, scope):
        return _cast(values[0], type_name, node)

    return implementation


# --- partial derivative builders (d = differentiator, a = argument nodes)


def _builtin_functions():
    ln10 = math.log(10.0)
    zero = "zero"
    table = {}

    def add(name, n_min, n_max, implementation, partials, returns="real", at_parse_time=False):
        table[name] = _Function(name, n_min, n_max, implementation, partials, returns, at_parse_time)

    real_fn = _real_function
    add("abs", 1, 1, real_fn(np.abs), [lambda d, a: d.call("sign", a[0])])
    add("acos", 1, 1, real_fn(np.arccos, lambda x: -1 <= x <= 1),
        [lambda d, a: d.negate(d.divide(d.one(), d.call("sqrt", d.subtract(d.one(), d.square(a[0])))))])
    add("acosh", 1, 1, real_fn(np.arccosh, lambda x: x >= 1),
        [lambda d, a: d.divide(d.one(), d.call("sqrt", d.subtract(d.square(a[0]), d.one())))])
    add("actan", 1, 1, real_fn(lambda x: np.arctan2(1.0, x)),
        [lambda d, a: d.negate(d.divide(d.one(), d.add(d.one(), d.square(a[0]))))])
    # actan2(a1, a2) = atan2(a2, a1)
    add("actan2", 2, 2, _real_function_2(lambda p, q: np.arctan2(q, p)),
        [lambda d, a: d.negate(d.divide(a[1], d.add(d.square(a[0]), d.square(a[1])))),
         lambda d, a: d.divide(a[0], d.add(d.square(a[0]), d.square(a[1])))])
    add("actanh", 1, 1, real_fn(lambda x: np.arctanh(1.0 / x), lambda x: abs(x) > 1),
        [lambda d, a: d.divide(d.one(), d.subtract(d.one(), d.square(a[0])))])
    add("asin", 1, 1, real_fn(np.arcsin, lambda x: -1 <= x <= 1),
        [lambda d, a: d.divide(d.one(), d.call("sqrt", d.subtract(d.one(), d.square(a[0]))))])
    add("asinh", 1, 1, real_fn(np.arcsinh),
        [lambda d, a: d.divide(d.one(), d.call("sqrt", d.add(d.square(a[0]), d.one())))])
    add("atan", 1, 1, real_fn(np.arctan),
        [lambda d, a: d.divide(d.one(), d.add(d.one(), d.square(a[0])))])
    add("atan2", 2, 2, _real_function_2(np.arctan2),
        [lambda d, a: d.divide(a[1], d.add(d.square(a[0]), d.square(a[1]))),
         lambda d, a: d.negate(d.divide(a[0], d.add(d.square(a[0]), d.square(a[1]))))])
    add("atanh", 1, 1, real_fn(np.arctanh, lambda x: -1 < x < 1),
        [lambda d, a: d.divide(d.one(), d.subtract(d.one(), d.square(a[0])))])
    add("ceil", 1, 1, _integer_function(np.ceil), zero, "integer")
    add("copysign", 2, 2, _real_function_2(np.copysign),
        [lambda d, a: d.multiply(d.call("sign", a[0]), d.call("copysign", d.one(), a[1])),
         lambda d, a: d.zero()])
    add("cos", 1, 1, real_fn(np.cos), [lambda d, a: d.negate(d.call("sin", a[0]))])
    add("cosh", 1, 1, real_fn(np.cosh), [lambda d, a: d.call("sinh", a[0])])
    add("ctan", 1, 1, _reciprocal_tangent,
        [lambda d, a: d.negate(d.divide(d.one(), d.square(d.call("sin", a[0]))))])
    add("ctanh", 1, 1, _reciprocal_tanh,
        [lambda d, a: d.negate(d.divide(d.one(), d.square(d.call("sinh", a[0]))))])
    add("exp", 1, 1, real_fn(np.exp), [lambda d, a: d.call("exp", a[0])])
    add("floor", 1, 1, _integer_function(np.floor), zero, "integer")
    add("in_ee", 3, 3, _make_interval_test(True, True), zero, "bool")
    add("in_el", 3, 3, _make_interval_test(True, False), zero, "bool")
    add("in_le", 3, 3, _make_interval_test(False, True), zero, "bool")
    add("in_ll", 3, 3, _make_interval_test(False, False), zero, "bool")
    add("log", 1, 1, real_fn(np.log, lambda x: x > 0), [lambda d, a: d.divide(d.one(), a[0])])
    add("log10", 1, 1, real_fn(np.log10, lambda x: x > 0),
        [lambda d, a: d.divide(d.one(), d.multiply(a[0], d.constant(ln10)))])
    add("max", 2, 2, _real_function_2(np.maximum),
        [lambda d, a: d.as_real(d.compare(">=", a[0], a[1])),
         lambda d, a: d.as_real(d.compare("<", a[0], a[1]))])
    add("min", 2, 2, _real_function_2(np.minimum),
        [lambda d, a: d.as_real(d.compare("<=", a[0], a[1])),
         lambda d, a: d.as_real(d.compare(">", a[0], a[1]))])
    add("par", 1, 1, _parabola,
        [lambda d, a: d.multiply(d.constant(2.0), d.call("ramp", a[0]))])
    add("print", 1, 1, _print, [lambda d, a: d.one()], "any")
    add("ramp", 1, 1, _ramp, [lambda d, a: d.as_real(d.compare(">", a[0], d.zero()))])
    add("rand", 0, 0, _rand, zero, "integer")
    add("random", 0, 0, _random, zero)
    add("round", 1, 1, _integer_function(np.rint), zero, "integer")
    add("seed", 1, 1, _seed, zero, "integer")
    add("sign", 1, 1, _sign, zero, "integer")
    add("sin", 1, 1, real_fn(np.sin), [lambda d, a: d.call("cos", a[0])])
    add("sinh", 1, 1, real_fn(np.sinh), [lambda d, a: d.call("cosh", a[0])])
    add("sprintf", 2, 2, _sprintf, None, "string")
    add("sqrt", 1, 1, real_fn(np.sqrt, lambda x: x >= 0),
        [lambda d, a: d.divide(d.constant(0.5), d.call("sqrt", a[0]))])
    add("sramp", 2, 2, _saturated_ramp,
        [lambda d, a: d.as_real(d.logical("&&", d.compare(">=", a[0], d.zero()),
                                          d.compare("<=", a[0], a[1]))),
         lambda d, a: d.as_real(d.compare(">", a[0], a[1]))])
    add("step", 1, 1, _step, zero)
    add("stop", 2, 2, _stop, zero, "integer")
    add("tan", 1, 1, real_fn(np.tan),
        [lambda d, a: d.add(d.one(), d.square(d.call("tan", a[0])))])
    add("tanh", 1, 1, real_fn(np.tanh),
        [lambda d, a: d.subtract(d.one(), d.square(d.call("tanh", a[0])))])
    for type_name in TYPE_NAMES:
        partials = [lambda d, a: d.one()] if type_name == "real" else zero
        if type_name == "string":
            partials = None
        add(type_name, 1, 1, _make_cast(type_name), partials, type_name)
        add(type_name + "_eval", 1, 1, _make_cast(type_name), partials, type_name, at_parse_time=True)
    return table


_BUILTIN_FUNCTIONS = _builtin_functions()


def _builtin_constants():
    return [
        ("e", "real", math.e),
        ("pi", "real", math.pi),
        ("TRUE", "bool", True),
        ("FALSE", "bool", False),
        ("INT_MAX", "integer", INT_MAX),
        ("INT_MIN", "integer", INT_MIN),
        ("RAND_MAX", "integer", RAND_MAX),
        ("REAL_MAX", "real", sys.float_info.max),
        ("REAL_MIN", "real", sys.float_info.min),
        ("in2m", "real", 0.0254),
        ("m2in", "real", 1.0 / 0.0254),
        ("in2mm", "real", 25.4),
        ("mm2in", "real", 1.0 / 25.4),
        ("ft2m", "real", 0.3048),
        ("m2ft", "real", 1.0 / 0.3048),
        ("lb2kg", "real", 0.45359237),
        ("kg2lb", "real", 1.0 / 0.45359237),
        ("deg2rad", "real", math.pi / 180.0),
        ("rad2deg", "real", 180.0 / math.pi),
        ("slug2kg", "real", 14.5939),
        ("kg2slug", "real", 1.0 / 14.5939),
    ]


# --------------------------------------------------------------------------- parser


class _Parser:
    """Recursive-descent parser producing the tree of _Node objects."""

    def __init__(self, text, math_parser, evaluate_eval_functions):
        self.text = text
        self.tokens = _tokenize(text)
        self.position = 0
        self.depth = 0
        self.math_parser = math_parser
        self.evaluate_eval_functions = evaluate_eval_functions

    # token helpers
    def peek(self, ahead=0):
        return self.tokens[min(self.position + ahead, len(self.tokens) - 1)]

    def advance(self):
        token = self.tokens[self.position]
        if token.kind != "end":
            self.position += 1
        return token

    def error(self, message, token):
        return MathError(message, self.text, token.column)

    def expect_operator(self, symbol, context):
        token = self.peek()
        if token.is_op(symbol):
            return self.advance()
        raise self.error(f"expected '{symbol}' {context} but found {token.describe()}", token)

    # grammar
    def parse(self):
        if self.peek().kind == "end":
            return _Constant(0.0, self.text, 1)  # empty argument: MBDyn's default is zero
        tree = self.statement_list()
        token = self.peek()
        if token.kind != "end":
            raise self.error(f"expected an operator, ';' or end of expression but found {token.describe()}", token)
        return tree

    def statement_list(self):
        """Statements separated by ';' (one statement: the statement itself).  A statement is a
        declaration, an assignment or an expression; each level of parentheses or of function
        arguments costs two Python frames here (statement_list, expression), so the nesting
        limit MAX_NESTING stays far below Python's recursion limit."""
        first = self.peek()
        statements = []
        while True:
            token = self.peek()
            word = token.value if token.kind == "name" else None
            if word in _MODIFIERS or (word in TYPE_NAMES and not self.peek(1).is_op("(")):
                statements.append(self.declaration())
            elif word is not None and self.peek(1).is_op("="):
                self.advance()
                self.advance()
                name = self.variable_name(token)
                statements.append(_Assignment(name, self.expression(), self.text, token.column))
            else:
                statements.append(self.expression())
            if not self.peek().is_op(";"):
                break
            self.advance()
            token = self.peek()
            if token.kind == "end" or token.is_op(")", ","):
                break  # trailing ';'
        if len(statements) == 1:
            return statements[0]
        return _StatementList(statements, self.text, first.column)

    def variable_name(self, token):
        name = token.value
        if name.startswith("default::"):
            name = name[len("default::"):]
        if "::" in name:
            raise self.error(f'namespace of "{name}" does not hold variables', token)
        return name

    def declaration(self):
        first = self.peek()
        ifndef = const = False
        token = self.advance()
        if token.kind == "name" and token.value == "ifndef":
            ifndef = True
            token = self.advance()
        if token.kind == "name" and token.value == "const":
            const = True
            token = self.advance()
        if token.kind != "name" or token.value not in TYPE_NAMES:
            raise self.error(f"expected a type (bool, integer, real, string) but found {token.describe()}", token)
        type_name = token.value
        name_token = self.advance()
        if name_token.kind != "name":
            raise self.error(
                f"expected a variable name after '{type_name}' but found {name_token.describe()}", name_token)
        name = self.variable_name(name_token)
        if self.math_parser._is_keyword(name):
            raise self.error(f'name "{name}" is a keyword and cannot be a variable', name_token)
        expression = None
        if self.peek().is_op("="):
            self.advance()
            expression = self.expression()
        elif const:
            raise self.error(f'const variable "{name}" needs a value', name_token)
        return _Declaration(ifndef, const, type_name, name, expression, self.text, first.column)

    def expression(self):
        """Operands (prefix signs, then a primary) joined by binary operators, by precedence
        climbing over explicit stacks: chains of any length and any number of signs cost no
        recursion.  ``^`` is right associative, the other levels left associative."""
        operands, operators = [], []
        while True:
            signs = []
            while self.peek().is_op("-", "+", "!"):
                signs.append(self.advance())
            token = self.peek()
            if token.is_op("("):
                self.advance()
                if self.peek().is_op(")"):
                    raise self.error("expected an expression inside '()'", self.peek())
                self.enter(token)
                node = self.statement_list()
                self.depth -= 1
                self.expect_operator(")", f"to close '(' opened at column {token.column}")
            else:
                node = self.primary()
            for sign in reversed(signs):
                node = _Unary(sign.value, node, self.text, sign.column)
            operands.append(node)
            token = self.peek()
            level = _PRECEDENCE.get(token.value) if token.kind == "op" else None
            while operators and level is not None and (
                    _PRECEDENCE[operators[-1].value] > level
                    or (_PRECEDENCE[operators[-1].value] == level and token.value != "^")):
                self.reduce(operands, operators)
            if level is None:
                break
            operators.append(self.advance())
        while operators:
            self.reduce(operands, operators)
        return operands[0]

    def reduce(self, operands, operators):
        token = operators.pop()
        right = operands.pop()
        operands[-1] = _Binary(token.value, operands[-1], right, self.text, token.column)

    def enter(self, token):
        """One more level of parentheses or function arguments, opened at token."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"expression nested too deeply (more than {MAX_NESTING} levels of "
                             "parentheses or function calls)", token)

    def primary(self):
        token = self.advance()
        if token.kind in ("number", "string"):
            return _Constant(token.value, self.text, token.column)
        if token.kind == "name":
            name = token.value
            if name.startswith("default::"):
                name = name[len("default::"):]
            if self.peek().is_op("("):
                return self.call(name, token)
            if name in TYPE_NAMES or name in _MODIFIERS:
                raise self.error(f"unexpected keyword '{name}'", token)
            return _Name(name, self.text, token.column)
        if token.kind == "end":
            raise self.error("expected an expression but found end of expression", token)
        raise self.error(f"expected an expression but found {token.describe()}", token)

    def call(self, name, name_token):
        function = self.math_parser._functions.get(name)
        if function is None:
            raise self.error(f'unknown function "{name}"', name_token)
        self.enter(self.advance())  # '('
        arguments = []
        if not self.peek().is_op(")"):
            arguments.append(self.statement_list())
            while self.peek().is_op(","):
                self.advance()
                arguments.append(self.statement_list())
        self.depth -= 1
        self.expect_operator(")", f'after the arguments of function "{name}"')
        count = len(arguments)
        if count < function.min_arguments or (
                function.max_arguments is not None and count > function.max_arguments):
            raise self.error(
                f'function "{name}" takes {function.describe_arity()}, {count} given', name_token)
        node = _Call(function, arguments, self.text, name_token.column)
        if function.evaluate_at_parse_time and self.evaluate_eval_functions:
            scope = _Scope(self.math_parser, writes_global=False)
            return _Constant(_plain(node.ev(scope)), self.text, name_token.column)
        return node


# --------------------------------------------------------------------------- evaluation scope


class _Variable:
    __slots__ = ("type_name", "value", "const")

    def __init__(self, type_name, value, const):
        self.type_name = type_name
        self.value = value
        self.const = const


class _Scope:
    """Name resolution during one evaluation.

    writes_global=True: declarations/assignments change the parser's table (evaluate()).
    writes_global=False: they bind local names for this evaluation only (compiled expressions).
    """

    def __init__(self, math_parser, local_values=None, writes_global=True):
        self.math_parser = math_parser
        self.local_values = dict(local_values or {})
        self.local_types = {name: "real" for name in self.local_values}
        self.writes_global = writes_global

    def lookup(self, name, node):
        if name in self.local_values:
            return self.local_values[name]
        variable = self.math_parser._variables.get(name)
        if variable is None:
            raise node.error(f'unknown name "{name}"')
        return variable.value

    def keeps_declared(self, node):
        """A local `ifndef` declaration of a name already bound: its expression is not evaluated."""
        return (not self.writes_global and node.ifndef
                and (node.name in self.local_values or node.name in self.math_parser._variables))

    def declare(self, node, value):
        """Declaration with its evaluated expression (None: no expression, or not evaluated)."""
        if self.writes_global:
            return self.math_parser._declare_global(node, value)
        name = node.name
        if self.keeps_declared(node):
            return self.lookup(name, node)
        if node.expression is None:
            value = _default_value(node.type_name)
        else:
            value = _cast(value, node.type_name, node)
        self.local_values[name] = value
        self.local_types[name] = node.type_name
        return value

    def assign(self, node, value):
        if self.writes_global:
            return self.math_parser._assign_global(node, value)
        name = node.name
        if name in self.local_values:
            type_name = self.local_types[name]
        else:
            variable = self.math_parser._variables.get(name)
            if variable is None:
                raise node.error(f'unknown variable "{name}" in assignment')
            if variable.const:
                raise node.error(f'cannot assign const variable "{name}"')
            type_name = variable.type_name
        value = _cast(value, type_name, node)
        self.local_values[name] = value
        self.local_types[name] = type_name
        return value


def _check_names(root, known, math_parser):
    """Compile-time check that every name is free, bound earlier, or in the variable table
    (in text order: a binding counts from its statement on; an explicit stack, no recursion)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str):                      # a binding's name, after its expression
            known.add(node)
        elif isinstance(node, _Name):
            if node.name not in known and node.name not in math_parser._variables:
                raise node.error(f'unknown name "{node.name}"')
        elif isinstance(node, _Assignment):
            if node.name not in known and node.name not in math_parser._variables:
                stack.append(_UnknownAssignment(node))
            else:
                stack.append(node.name)
            stack.append(node.expression)
        elif isinstance(node, _Declaration):
            stack.append(node.name)
            if node.expression is not None:
                stack.append(node.expression)
        elif isinstance(node, _UnknownAssignment):
            raise node.node.error(f'unknown variable "{node.node.name}" in assignment')
        elif not isinstance(node, _Constant):
            stack.extend(reversed(node.children(None)))


class _UnknownAssignment:
    """_check_names: an assignment to an unknown name, reported after its expression is checked."""
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node


# --------------------------------------------------------------------------- symbolic derivative


def _constant_number(node):
    """Numeric value of a constant (possibly signed) node, else None."""
    negative = False
    while isinstance(node, _Unary) and node.symbol in "+-":
        negative ^= node.symbol == "-"
        node = node.operand
    if isinstance(node, _Constant) and _kind(node.value) != "string":
        return -float(node.value) if negative else float(node.value)
    return None


def _is_zero(node):
    return isinstance(node, _Constant) and _kind(node.value) != "string" and node.value == 0


def _is_one(node):
    return isinstance(node, _Constant) and _kind(node.value) != "string" and node.value == 1


def _static_kind(root):
    """Type of a node when it is known without evaluating it, else None (no recursion)."""
    # the nodes whose kind follows from their operands'; every other kind is known at once
    pending, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, _Binary) and node.strict and node.symbol in "+-*/^":
            pending.append(node)
            stack += (node.left, node.right)
        elif isinstance(node, _Unary) and node.symbol != "!":
            pending.append(node)
            stack.append(node.operand)
        elif isinstance(node, _StatementList):
            pending.append(node)
            stack.append(node.statements[-1])
    kinds = {}
    for node in reversed(pending):     # children before their parents
        if isinstance(node, _Binary):
            pair = (_known_kind(node.left, kinds), _known_kind(node.right, kinds))
            kinds[id(node)] = "real" if "real" in pair and "string" not in pair else None
        elif isinstance(node, _Unary):
            kinds[id(node)] = _known_kind(node.operand, kinds)
        else:
            kinds[id(node)] = _known_kind(node.statements[-1], kinds)
    return _known_kind(root, kinds)


def _known_kind(node, kinds):
    """_static_kind of one node given the kinds already found for its pending descendants."""
    if id(node) in kinds:
        return kinds[id(node)]
    if isinstance(node, _Constant):
        return _kind(node.value)
    if isinstance(node, _Binary):
        if node.symbol in _COMPARISONS or node.symbol in ("&&", "||", "~|"):
            return "bool"
        if node.symbol in "+-*/^":
            return "real"           # strict=False (derivative trees)
        return None
    if isinstance(node, _Call):
        return node.function.returns if node.function.returns != "any" else None
    if isinstance(node, _Unary):
        return "bool"               # '!'
    if isinstance(node, _Declaration):
        return node.type_name
    return None


class _Differentiator:
    """Builds d(tree)/d(wrt); every derivative node evaluates to a real value."""

    passes = 0

    def __init__(self, expression, wrt):
        self.math_parser = expression.parser
        self.free = expression.free
        self.wrt = wrt
        self.text = expression.text
        self.column = None
        self.bindings = {}  # locally bound name -> node of its derivative
        self.local_types = {name: "real" for name in expression.free}
        _Differentiator.passes += 1
        self.serial = _Differentiator.passes

    # node builders with light simplification
    def constant(self, value):
        return _Constant(float(value), self.text, self.column)

    def zero(self):
        return self.constant(0.0)

    def one(self):
        return self.constant(1.0)

    def call(self, name, *arguments):
        return _Call(_BUILTIN_FUNCTIONS[name], list(arguments), self.text, self.column)

    def as_real(self, node):
        if _static_kind(node) == "real":
            return node
        return self.call("real", node)

    def add(self, a, b):
        if _is_zero(a):
            return self.as_real(b)
        if _is_zero(b):
            return self.as_real(a)
        return _Binary("+", a, b, self.text, self.column)

    def subtract(self, a, b):
        if _is_zero(b):
            return self.as_real(a)
        if _is_zero(a):
            return self.negate(b)
        return _Binary("-", a, b, self.text, self.column)

    def negate(self, a):
        if _is_zero(a):
            return self.zero()
        return self.as_real(_Unary("-", a, self.text, self.column))

    def multiply(self, a, b):
        if _is_zero(a) or _is_zero(b):
            return self.zero()
        if _is_one(a):
            return self.as_real(b)
        if _is_one(b):
            return self.as_real(a)
        return _Binary("*", a, b, self.text, self.column)

    def divide(self, a, b):
        if _is_zero(a):
            return self.zero()
        return _Binary("/", a, b, self.text, self.column, strict=False)

    def square(self, a):
        return _Binary("*", a, a, self.text, self.column)

    def real_power(self, base, exponent):
        return _Binary("^", base, exponent, self.text, self.column, strict=False)

    def compare(self, symbol, a, b):
        return _Binary(symbol, a, b, self.text, self.column)

    def logical(self, symbol, a, b):
        return _Binary(symbol, a, b, self.text, self.column)

    # differentiation
    def derivative_of_name(self, name):
        if name in self.bindings:
            return self.bindings[name]
        if name == self.wrt and name in self.free:
            return self.one()
        return self.zero()

    def d(self, root):
        """d(root)/d(wrt), without recursion over operator chains (an explicit stack as in
        _evaluate); statement lists and bindings, whose order matters, recurse (their depth is
        the nesting depth of parentheses, which the parser bounds)."""
        results = []
        stack = [(root, None)]
        while stack:
            node, children = stack.pop()
            if children is None:
                children = self.d_children(node)
                if children:
                    stack.append((node, children))
                    stack.extend((child, None) for child in reversed(children))
                    continue
                self.column = node.column
                results.append(self.d_combine(node, ()))
                continue
            start = len(results) - len(children)
            self.column = node.column
            value = self.d_combine(node, results[start:])
            del results[start:]
            results.append(value)
        return results[0]

    def d_children(self, node):
        """The operands whose derivatives d_combine needs."""
        if isinstance(node, _Unary):
            return () if node.symbol == "!" else (node.operand,)
        if isinstance(node, _Binary):
            if node.symbol in _COMPARISONS or node.symbol in ("&&", "||", "~|", "%"):
                return ()
            return (node.left, node.right)
        if isinstance(node, _Call):
            if node.function.state_source is not None:
                # the value follows the simulation state, not the free variables: there is no
                # derivative to build.  MBDyn's string drive callers are not differentiable at
                # all (DriveCaller::bIsDifferentiable() is false), so an error is what it does too.
                raise node.error(f'function "{node.function.name}" reads the model state, which has no '
                                 f'derivative with respect to "{self.wrt}" (MBDyn string drives that use '
                                 f'it are not differentiable)')
            return () if node.function.partials == "zero" else node.arguments
        return ()

    def d_combine(self, node, d_children):
        if isinstance(node, _Constant):
            return self.zero()
        if isinstance(node, _Name):
            return self.derivative_of_name(node.name)
        if isinstance(node, _Unary):
            if node.symbol == "!":
                return self.zero()
            return self.negate(d_children[0]) if node.symbol == "-" else d_children[0]
        if isinstance(node, _Binary):
            return self.d_binary(node, d_children)
        if isinstance(node, _Call):
            return self.d_call(node, d_children)
        if isinstance(node, _StatementList):
            return self.d_statements(node.statements, node)
        if isinstance(node, (_Declaration, _Assignment)):
            return self.d_statements([node], node)
        raise node.error("cannot differentiate this expression")

    def d_binary(self, node, d_children):
        symbol = node.symbol
        if not d_children:
            return self.zero()
        a, b = node.left, node.right
        da, db = d_children
        if symbol == "+":
            return self.add(da, db)
        if symbol == "-":
            return self.subtract(da, db)
        if symbol == "*":
            return self.add(self.multiply(da, b), self.multiply(a, db))
        if symbol == "/":
            return self.subtract(self.divide(da, b), self.divide(self.multiply(a, db), self.square(b)))
        return self.d_power(a, b, da, db)

    def d_power(self, base, exponent, d_base, d_exponent):
        if _is_zero(d_base) and _is_zero(d_exponent):
            return self.zero()
        if _is_zero(d_exponent):
            c = _constant_number(exponent)
            if c is None:
                real_exponent = self.as_real(exponent)
                factor = self.multiply(real_exponent,
                                       self.real_power(base, self.subtract(real_exponent, self.one())))
            elif c == 0:
                return self.zero()
            elif c == 1:
                factor = self.one()
            elif c == 2:
                factor = self.multiply(self.constant(2.0), base)
            else:
                factor = self.multiply(self.constant(c), self.real_power(base, self.constant(c - 1.0)))
            return self.multiply(factor, d_base)
        # general case: u^v (v' log u + v u'/u)
        log_term = self.multiply(d_exponent, self.call("log", base))
        base_term = self.divide(self.multiply(exponent, d_base), base)
        return self.multiply(self.real_power(base, exponent), self.add(log_term, base_term))

    def d_call(self, node, d_arguments):
        function = node.function
        if function.partials == "zero":
            return self.zero()
        total = self.zero()
        for index, d_argument in enumerate(d_arguments):
            if _is_zero(d_argument):
                continue
            self.column = node.column
            if function.partials is None or function.partials[index] is None:
                raise node.error(
                    f'function "{function.name}" has no derivative with respect to argument {index + 1}')
            partial = function.partials[index](self, node.arguments)
            total = self.add(total, self.multiply(partial, d_argument))
        implicit = function.implicit_partials.get(self.wrt)
        if implicit is not None and self.wrt in self.free:
            self.column = node.column
            total = self.add(total, self.as_real(_Call(implicit, node.arguments, self.text, node.column)))
        return total

    def d_statements(self, statements, origin):
        """Statement lists: each binding v = f gets a hidden binding v'wrt = f' evaluated before it."""
        emitted = []
        final = self.zero()
        for index, statement in enumerate(statements):
            last = index == len(statements) - 1
            if isinstance(statement, (_Declaration, _Assignment)):
                d_value = self.d_binding(statement, emitted)
                if last:
                    final = d_value
            elif last:
                final = self.d(statement)
            else:
                emitted.append(statement)
        if not emitted:
            return final
        return _StatementList(emitted + [final], self.text, origin.column)

    def d_binding(self, statement, emitted):
        name = statement.name
        if isinstance(statement, _Declaration):
            already_defined = (name in self.bindings or name in self.free
                               or name in self.math_parser._variables)
            if statement.ifndef and already_defined:
                emitted.append(statement)
                return self.derivative_of_name(name)
            type_name = statement.type_name
            d_value = self.zero() if statement.expression is None else self.d(statement.expression)
        else:
            type_name = self.local_types.get(name)
            if type_name is None:
                variable = self.math_parser._variables.get(name)
                type_name = variable.type_name if variable is not None else "real"
            d_value = self.d(statement.expression)
        if type_name != "real" or _is_zero(d_value):
            emitted.append(statement)
            self.bindings[name] = self.zero()
        else:
            # not a valid identifier, and unique per differentiation pass: cannot clash with any name
            hidden_name = f"d{self.wrt}#{self.serial}({name})"
            emitted.append(_Declaration(False, False, "real", hidden_name, d_value, self.text, statement.column))
            emitted.append(statement)
            self.bindings[name] = _Name(hidden_name, self.text, statement.column)
        self.local_types[name] = type_name
        return self.bindings[name]


def _collect_calls(root, found):
    """Every _Function called in the tree, keyed by id, in order of appearance (an explicit
    stack over all node kinds)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, _Call):
            found.setdefault(id(node.function), node.function)
        if isinstance(node, (_Declaration, _Assignment)):
            children = () if node.expression is None else (node.expression,)
        else:
            children = node.children(None)
        stack.extend(reversed(children))


# --------------------------------------------------------------------------- public classes


class _stack_guard:
    """Turns a RecursionError into a MathError.  The parser and the walkers recurse only per
    level of nesting, which MAX_NESTING bounds well inside Python's limit; this is the last
    resort if a caller already sits deep in the stack."""

    def __init__(self, text):
        self.text = text

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is RecursionError:
            raise MathError("expression nested too deeply for the Python stack", self.text) from None
        return False


class Expression:
    """A compiled expression; free names are given at call time (scalars or numpy arrays)."""

    def __init__(self, parser, tree, free, text):
        self.parser = parser
        self.tree = tree
        self.free = tuple(free)
        self.text = text
        self._derivatives = {}

    def __repr__(self):
        return f"Expression({self.text!r}, free={self.free})"

    def __call__(self, **values):
        local_values = {}
        shape = None
        for name, value in values.items():
            if name not in self.free:
                raise MathError(f'"{name}" is not a free variable of this expression (free: {self.free})',
                                self.text)
            if isinstance(value, (np.ndarray, list, tuple)):
                array = np.asarray(value, dtype=float)
                if array.ndim > 0:
                    shape = array.shape if shape is None else np.broadcast_shapes(shape, array.shape)
                    local_values[name] = array
                    continue
                value = array[()]
            local_values[name] = float(value)
        for name in self.free:
            if name not in local_values:
                variable = self.parser._variables.get(name)
                if variable is None:
                    raise MathError(f'no value given for free variable "{name}"', self.text)
                local_values[name] = variable.value
        scope = _Scope(self.parser, local_values, writes_global=False)
        with np.errstate(all="ignore"):
            result = self.tree.ev(scope)
        if _kind(result) == "string":
            raise MathError(f'expression evaluates to the string "{result}", a number was expected', self.text)
        if _is_array(result):
            result = result.astype(float)
            if shape is not None and result.shape != shape:
                result = np.broadcast_to(result, shape).copy()
            return result
        if shape is not None:
            return np.full(shape, float(result))
        return float(result)

    def derivative(self, name):
        """Exact symbolic derivative with respect to a free variable (a.e. for non-smooth functions)."""
        if name not in self.free:
            raise MathError(f'cannot differentiate with respect to "{name}": not a free variable {self.free}',
                            self.text)
        if name not in self._derivatives:
            with _stack_guard(self.text):
                tree = _Differentiator(self, name).d(self.tree)
            text = f"d({self.text})/d{name}"
            self._derivatives[name] = Expression(self.parser, tree, self.free, text)
        return self._derivatives[name]

    def is_constant(self, name):
        """True when the derivative with respect to ``name`` is identically zero."""
        return _is_zero(self.derivative(name).tree)

    def called_functions(self):
        """The _Function objects the expression calls (each once, in order of appearance)."""
        found = {}
        _collect_calls(self.tree, found)
        return list(found.values())

    @property
    def state_sources(self):
        """Objects whose model state the expression reads at call time (see
        ``MathParser.register_function(..., state_source=...)``); empty for a function of the
        free variables only."""
        return list(dict.fromkeys(f.state_source for f in self.called_functions()
                                  if f.state_source is not None))


class MathParser:
    """MBDyn math parser with a persistent, typed variable table (constants pre-filled)."""

    def __init__(self):
        self._variables = {}
        self._functions = dict(_BUILTIN_FUNCTIONS)
        self._random_generator = _random_module.Random()
        self.allow_redefinition = False  # MBDyn's -r/--redefine option
        for name, type_name, value in _builtin_constants():
            self._variables[name] = _Variable(type_name, value, True)

    # variable table
    def set_variable(self, name, value, type_name="real", const=False):
        """Create or overwrite a variable (used by the engine for Time, TimeStep, Step, Var)."""
        where = _Where(name)
        if type_name not in TYPE_NAMES:
            raise where.error(f'unknown type "{type_name}"')
        if not name or name[0] not in _NAME_START or any(c not in _NAME_CHARS for c in name):
            raise where.error(f'invalid variable name "{name}"')
        if self._is_keyword(name):
            raise where.error(f'name "{name}" is a keyword and cannot be a variable')
        existing = self._variables.get(name)
        if existing is not None and existing.const:
            raise where.error(f'cannot assign const variable "{name}"')
        if _is_array(value):
            raise where.error("variables hold scalars only")
        self._variables[name] = _Variable(type_name, _cast(_plain(value), type_name, where), const)

    def get_variable(self, name):
        variable = self._variables.get(name)
        if variable is None:
            raise MathError(f'unknown variable "{name}"')
        return variable.value

    def has_variable(self, name):
        return name in self._variables

    def variable_type(self, name):
        if name not in self._variables:
            raise MathError(f'unknown variable "{name}"')
        return self._variables[name].type_name

    def symbol_table(self):
        """[(name, type, value, const)] sorted by name, like MBDyn's ``print symbol table``."""
        return sorted((name, v.type_name, v.value, v.const) for name, v in self._variables.items())

    def register_function(self, name, function, n_args=1, derivatives=None, returns="real",
                          state_source=None):
        """Add a function such as ``model::drive``.

        function(*values) gets scalars or numpy arrays.  n_args: int or (min, max) (max None =
        unbounded).  derivatives: {argument index: callable(*values)} for partial derivatives and
        {free variable name: callable(*values)} for a hidden dependence on that variable (e.g. the
        time derivative of ``model::drive(label)``).  A missing partial makes derivative() fail only
        when that argument actually depends on the differentiation variable.
        state_source: the object whose model state the function reads at call time (e.g. the
        engine.privdata.ModelNamespace of ``model::element::body``); it is reported by
        ``Expression.state_sources`` and makes derivative() an error for expressions using it.
        """
        min_arguments, max_arguments = (n_args, n_args) if isinstance(n_args, int) else n_args
        derivatives = dict(derivatives or {})

        def wrap(python_function, function_name, result_type):
            def implementation(values, node, scope):
                try:
                    result = python_function(*values)
                except (ValueError, TypeError, ArithmeticError) as e:
                    # e.g. model::position(1e999) or of a node that does not exist: the
                    # expression's error, at the call
                    text = str(e)
                    raise node.error(text if text.startswith(function_name) else f'{function_name}: {text}') from None
                return _plain(result) if result_type != "real" else _plain(_as_real(result, node))

            return _Function(function_name, min_arguments, max_arguments, implementation, None, result_type)

        positional_partials = None
        if any(isinstance(key, int) for key in derivatives) or max_arguments == 0:
            positional_partials = []
            for index in range(max_arguments if max_arguments is not None else min_arguments):
                partial_function = derivatives.get(index)
                if partial_function is None:
                    positional_partials.append(None)
                    continue
                partial = wrap(partial_function, f"d{name}/d[{index + 1}]", "real")
                positional_partials.append(lambda d, a, partial=partial: _Call(partial, a, d.text, d.column))
        implicit = {key: wrap(value, f"d{name}/d{key}", "real")
                    for key, value in derivatives.items() if isinstance(key, str)}
        spec = wrap(function, name, returns)
        spec.partials = positional_partials
        spec.implicit_partials = implicit
        spec.state_source = state_source
        self._functions[name] = spec

    def _is_keyword(self, name):
        return name in TYPE_NAMES or name in _MODIFIERS or name in self._functions

    # statements
    def _declare_global(self, node, value):
        name = node.name
        existing = self._variables.get(name)
        if existing is not None:
            if node.ifndef:
                return existing.value
            if existing.const:
                raise node.error(f'cannot redefine const variable "{name}"')
            if not self.allow_redefinition:
                raise node.error(f'cannot redefine variable "{name}"; assign it with "{name} = ..." instead')
        new_value = _default_value(node.type_name) if value is None else _cast(value, node.type_name, node)
        self._variables[name] = _Variable(node.type_name, new_value, node.const)
        return new_value

    def _assign_global(self, node, value):
        variable = self._variables.get(node.name)
        if variable is None:
            raise node.error(f'unknown variable "{node.name}" in assignment')
        if variable.const:
            raise node.error(f'cannot assign const variable "{node.name}"')
        variable.value = _cast(value, variable.type_name, node)
        return variable.value

    # public entry points
    def evaluate(self, text: str):
        """Evaluate one statement or statement list now; returns bool, int, float or str."""
        with _stack_guard(text):
            tree = _Parser(text, self, evaluate_eval_functions=False).parse()
            return _plain(tree.ev(_Scope(self, writes_global=True)))

    def compile(self, text: str, free=("Time",)) -> Expression:
        """Parse once; names in ``free`` stay symbolic, other variables are read at call time."""
        free = tuple(free)
        for name in free:
            if not name or name[0] not in _NAME_START or any(c not in _NAME_CHARS for c in name):
                raise MathError(f'invalid free variable name "{name}"', text)
        with _stack_guard(text):
            tree = _Parser(text, self, evaluate_eval_functions=True).parse()
        _check_names(tree, set(free), self)
        return Expression(self, tree, free, text)
