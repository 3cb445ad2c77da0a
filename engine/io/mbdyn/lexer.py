"""Lexing of MBDyn input decks: source text with comments blanked (offsets kept), cards
(``<description> [: <arg>, ...] ;``) cut into words that know their file, line and column,
and the error types that name them (manual §1.2, §2.13; spec §1.9 steps 1-2)."""
from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass

# =========================================================================== errors

class DeckError(Exception):
    """An input error at a word of the deck; str is ``file:line:column: message (at 'word')``,
    always one line of bounded length: the message's blanks (newlines too) are folded and its
    long words elided (a deck's word may be thousands of characters)."""

    def __init__(self, file, line, column, word, message):
        self.file, self.line, self.column = file, line, column
        self.word, self.message = shown(word), one_line(message)
        super().__init__(str(self))

    def __str__(self):
        return f"{self.file}:{self.line}:{self.column}: {self.message} (at '{self.word}')"


class DeckStop(Exception):
    """The deck called ``stop(condition, code)`` with a true condition (manual §2.2)."""

    def __init__(self, code, where):
        self.code = code
        super().__init__(f"{where}: stop() requested exit with code {code}")


def not_supported(what):
    return f"not supported yet: {what}"


def shown(text, limit=40):
    """text on one line, at most `limit` characters: the first ones and '…'."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


MESSAGE_WORD_LIMIT = 60      # characters of one word of a message (first ones kept, then '…')
MESSAGE_PATH_LIMIT = 250     # characters of a file path in a message (its middle elided)
MESSAGE_LIMIT = 600          # characters of a whole message


def _elided(word):
    if "/" in word or os.sep in word:
        if len(word) <= MESSAGE_PATH_LIMIT:
            return word
        half = (MESSAGE_PATH_LIMIT - 1) // 2
        return word[:half] + "…" + word[-half:]
    return word if len(word) <= MESSAGE_WORD_LIMIT else word[:MESSAGE_WORD_LIMIT - 1] + "…"


def one_line(message):
    """A message on one line: blanks folded, long words elided (paths in their middle), the
    whole at most MESSAGE_LIMIT characters."""
    return shown(" ".join(_elided(w) for w in str(message).split()), MESSAGE_LIMIT)


# =========================================================================== source text

class Source:
    """One input file: its text with comments replaced by blanks (offsets preserved) and the
    line table used to turn offsets into line/column (manual §2.13 for comment rules)."""

    def __init__(self, path, text=None, name=None):
        self.path = path
        self.name = name or path
        if text is None:
            with open(path, encoding="latin-1") as f:
                text = f.read()
        self.raw = text
        self.line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        self.text = self._blank_comments(text)

    @property
    def directory(self):
        return os.path.dirname(os.path.abspath(self.path))

    def where(self, offset):
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def error(self, offset, word, message):
        line, col = self.where(offset)
        return DeckError(self.name, line, col, shown(word), message)

    def _blank_comments(self, text):
        """`#` to end of line (a backslash before the newline continues it) and `/* */` become
        blanks; newlines are kept; strings are left alone (comments never start inside one)."""
        out = list(text)
        i, n = 0, len(text)
        while i < n:
            c = text[i]
            if c == '"':
                i = self._skip_string(text, i)
            elif c == "#":
                while i < n and text[i] != "\n":
                    if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                        out[i] = " "
                        i += 2
                        continue
                    out[i] = " "
                    i += 1
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0:
                    raise self.error(i, "/*", "unterminated /* comment")
                for k in range(i, end + 2):
                    if out[k] != "\n":
                        out[k] = " "
                i = end + 2
            else:
                i += 1
        return "".join(out)

    def _skip_string(self, text, i):
        start, n = i, len(text)
        i += 1
        while i < n and text[i] != '"':
            i += 2 if text[i] == "\\" else 1
        if i >= n:
            raise self.error(start, text[start:start + 20], "unterminated string")
        return i + 1


@dataclass
class Word:
    """A piece of a card (description or argument): stripped text and where it starts."""
    text: str
    source: Source
    offset: int

    def where(self):
        return self.source.where(self.offset)

    def error(self, message, column_in_text=None):
        offset = self.offset + (column_in_text - 1 if column_in_text else 0)
        return self.source.error(offset, self.text or "<empty argument>", message)

    @property
    def keyword(self):
        """Whitespace-free lower-case form if the word is keyword-shaped (manual §2.1.1), else None."""
        return normalize(self.text) if KEYWORD_SHAPE.match(self.text) else None


@dataclass
class Card:
    """``<description> [: <args>] ;`` (manual §1.2)."""
    name: Word
    args: list
    body: Word          # everything between ':' and ';'
    end: Word           # the ';'

    @property
    def key(self):
        return normalize(self.name.text)

    @property
    def source(self):
        return self.name.source


KEYWORD_SHAPE = re.compile(r"[A-Za-z_][A-Za-z0-9_\s]*\Z")


def normalize(text):
    """Keywords compare case- and whitespace-insensitively (manual §2.1.1)."""
    return "".join(text.split()).lower()


def _word(source, start, end):
    raw = source.text[start:end]
    stripped = raw.strip()
    lead = len(raw) - len(raw.lstrip())
    return Word(stripped, source, start + lead if stripped else start)


def scan_cards(source):
    """Yield the cards of a source in order.  A card ends at a `;` outside strings and
    brackets; its description ends at the first `:` that is not part of `::`; arguments are
    split at top-level commas (spec §1.9, steps 1-2)."""
    text, n, i = source.text, len(source.text), 0
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return
        start, colon, commas, depth = i, None, [], 0
        while i < n and not (text[i] == ";" and depth == 0):
            c = text[i]
            if c == '"':
                i = source._skip_string(text, i)
                continue
            if c in "([":
                depth += 1
            elif c in ")]" and depth > 0:
                depth -= 1
            elif c == ":" and depth == 0:
                if text.startswith("::", i):
                    i += 2
                    continue
                if colon is None:
                    colon = i
            elif c == "," and depth == 0 and colon is not None:
                commas.append(i)
            i += 1
        if i >= n:
            raise source.error(start, text[start:start + 30], "';' expected: the card is not terminated")
        yield _make_card(source, start, colon, commas, i)
        i += 1


def _make_card(source, start, colon, commas, end):
    semicolon = Word(";", source, end)
    if colon is None:
        return Card(_word(source, start, end), [], Word("", source, end), semicolon)
    bounds = [colon] + commas + [end]
    args = [_word(source, a + 1, b) for a, b in zip(bounds[:-1], bounds[1:])]
    if len(args) == 1 and not args[0].text:
        args = []
    return Card(_word(source, start, colon), args, _word(source, colon + 1, end), semicolon)


def table(pairs):
    """{normalized keyword: value} of (keyword as MBDyn writes it, value) pairs."""
    return {normalize(k): v for k, v in pairs}
