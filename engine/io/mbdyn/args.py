"""Argument reading of MBDyn cards: the ``Args`` cursor over one card's arguments (keywords,
labels, numbers and strings through the math parser) and the ``Values`` part of the reader
(evaluation, vectors and matrices without frames, output flags, label lists); errors name the
file, line and word (lexer.DeckError)."""
from __future__ import annotations

import math

import numpy as np

from mbdae.engine.core.mathparser import MathError, MathStop
from mbdae.engine.io.mbdyn.lexer import DeckStop, normalize, not_supported, shown


# labels and integers of a deck are the math parser's integers, C ints (MBDyn's `integer`)
LABEL_MAX = 2**31 - 1
INTEGER_MIN, INTEGER_MAX = -2**31, 2**31 - 1


class Args:
    """Cursor over one card's arguments, mirroring MBDyn's recursive-descent readers:
    keywords are tried first, then the argument is evaluated as a math expression
    (spec §1.3, §1.9 step 4)."""

    def __init__(self, reader, card):
        self.reader = reader
        self.card = card
        self.words = card.args
        self.i = 0

    def more(self):
        return self.i < len(self.words)

    def peek(self):
        return self.words[self.i] if self.more() else None

    def peek_keyword(self):
        w = self.peek()
        return w.keyword if w is not None else None

    def take(self, what):
        if not self.more():
            raise self.card.end.error(f"syntax error: {what} expected before ';'")
        w = self.words[self.i]
        self.i += 1
        return w

    def is_keyword(self, *names):
        """Consume the next argument if it is one of the keywords; return its normalized name."""
        kw = self.peek_keyword()
        if kw is not None and kw in {normalize(n) for n in names}:
            self.i += 1
            return kw
        return None

    def expect_keyword(self, *names, what=None):
        w = self.peek()
        kw = self.is_keyword(*names)
        if kw is None:
            listed = ", ".join(f"'{n}'" for n in names)
            what = what or (f"one of {listed}" if len(names) > 1 else listed)
            if w is None:
                raise self.card.end.error(f"syntax error: {what} expected before ';'")
            raise w.error(f"syntax error: {what} expected")
        return kw

    def value(self, what):
        return self.reader.evaluate(self.take(what))

    def real(self, what="a real number"):
        w = self.take(what)
        return self.reader.as_real(w, self.reader.evaluate(w), what)

    def integer(self, what="an integer"):
        w = self.take(what)
        return self.reader.as_integer(w, self.reader.evaluate(w), what)

    def label(self, what="a label"):
        """A label: an integer 0 … LABEL_MAX (MBDyn reads labels as the math parser's integer, a
        C int, into an unsigned int); an integral real such as `2.` is accepted, `2.5` is not."""
        w = self.take(what)
        value = self.reader.evaluate(w)
        if not isinstance(value, str) and math.isfinite(value):
            if value != int(value):
                raise w.error(f"{what} must be an integer, found {value:g}")
            if not 0 <= value <= LABEL_MAX:
                raise w.error(f"{what} must be an integer between 0 and {LABEL_MAX}, found {value:.6g}")
        return self.reader.as_integer(w, value, what)

    def string(self, what="a string"):
        w = self.take(what)
        value = self.reader.evaluate(w)
        if not isinstance(value, str):
            raise w.error(f"syntax error: {what} (in double quotes) expected")
        return value

    def boolean(self, what="yes, no or a boolean value"):
        kw = self.is_keyword("yes", "no")
        if kw is not None:
            return kw == "yes"
        return bool(self.integer(what))

    def optional_name(self):
        """`name, "<string>"` after a label (spec §1.7)."""
        if self.is_keyword("name"):
            return self.string("a name")
        return None

    def expect_end(self):
        if self.more():
            w = self.peek()
            raise w.error("syntax error: ';' expected (unexpected argument)")


class Values:
    """Reader part: values of words (math expressions) and frame-free vectors and matrices."""
    # the message helpers, for the element modules' card readers (which do not import io)
    normalize = staticmethod(normalize)
    not_supported = staticmethod(not_supported)
    shown = staticmethod(shown)

    def evaluate(self, word):
        """A math expression (manual §2.2); an empty argument is 0 (the default)."""
        if not word.text:
            return 0
        try:
            return self.parser.evaluate(word.text)
        except MathStop as e:
            line, col = word.where()
            raise DeckStop(e.exit_code, f"{word.source.name}:{line}:{col}") from None
        except MathError as e:
            raise word.error(f"math error: {e.message}", e.column) from None

    @staticmethod
    def as_real(word, value, what):
        """A finite real: a constant of a card is never inf or NaN (1e999, 0./0. ... stop here,
        naming the card's word, rather than in the first step of a run)."""
        if isinstance(value, str):
            raise word.error(f"syntax error: {what} expected, found the string \"{shown(value)}\"")
        value = float(value)
        if not math.isfinite(value):
            raise word.error(f"{what} must be finite, found {value}")
        return value

    @staticmethod
    def as_integer(word, value, what):
        """An integer of the math parser's range (a C int, as MBDyn); reals are truncated."""
        if isinstance(value, str):
            raise word.error(f"syntax error: {what} expected, found the string \"{shown(value)}\"")
        if isinstance(value, float) and not math.isfinite(value):
            raise word.error(f"syntax error: {what} expected, found {value}")
        if not INTEGER_MIN <= value <= INTEGER_MAX:
            raise word.error(f"{what} out of the integer range {INTEGER_MIN} … {INTEGER_MAX}")
        return int(value)

    def note(self, word, text):
        line, col = word.where()
        self.notes.append(f"{word.source.name}:{line}:{col}: {text}")

    def read_plain_vec3(self, args):
        """`null | default | x, y, z [, scale, s]` (manual §2.3.1)."""
        return self.read_plain_vector(args, 3)

    def read_plain_vector(self, args, n):
        """An n-vector without frame: `null | default | n components [, scale, s]`."""
        if args.is_keyword("null", "default"):
            return np.zeros(n)
        v = np.array([args.real("a vector component") for _ in range(n)])
        if args.is_keyword("scale"):
            v = v * args.real("a scale factor")
        return v

    def read_mat6(self, args):
        """A Mat6x6: `null | eye | [matr,] 36 | sym, 21 | diag, 6` [, scale, s] (manual §2.3.3)."""
        kw = args.is_keyword("null", "default", "eye", "matr", "sym", "diag")
        if kw in ("null", "default"):
            K = np.zeros((6, 6))
        elif kw == "eye":
            K = np.eye(6)
        elif kw == "diag":
            K = np.diag([args.real("a diagonal entry") for _ in range(6)])
        elif kw == "sym":
            K = np.zeros((6, 6))
            for i in range(6):
                for j in range(i, 6):
                    K[i, j] = K[j, i] = args.real("a matrix entry")
        else:
            K = np.array([args.real("a matrix entry") for _ in range(36)]).reshape(6, 6)
        if args.is_keyword("scale"):
            K = K * args.real("a scale factor")
        return K

    def read_vec6(self, args):
        """`null | default | 6 components [, scale, s]`."""
        return self.read_plain_vector(args, 6)

    def read_output_flag(self, args, category):
        """`output, {yes|no|default|<bool>}` (manual §6.1)."""
        if args.is_keyword("default"):
            return category in self.default_output
        return args.boolean()

    def read_label_list(self, args):
        labels = []
        while args.more():
            if args.is_keyword("range"):
                a, b = args.label("the first label"), args.label("the last label")
                labels += list(range(a, b + 1))
            else:
                labels.append(args.label())
        return labels
