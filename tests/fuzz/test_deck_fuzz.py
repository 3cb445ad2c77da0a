"""Property-based fuzzing of the MBDyn deck reader (issue 18).

The real decks under ../shared/mbdyn-tests (read in place, never copied) are mutated —
tokens or lines deleted, duplicated or swapped, numbers replaced by huge, non-finite,
negative or non-integer values, deep nesting and long chains, garbage characters, huge
words, truncation — and read by the same code as `mbdae check` before it builds any
kernel (engine/io/mbdyn/deck.py parse_deck → DeckReader.read).  The property: the reader
either accepts the text or stops with its own located error (DeckError; DeckStop for a
`stop()` the deck asks for), whose message is one line of bounded length that starts
`file:line:column:`; never another exception, never a hang.

Examples: MBDAE_FUZZ_EXAMPLES (default 40, a few seconds; 2000 with MBDAE_LONG=1),
derandomized (the same examples every run) unless MBDAE_FUZZ_SEED=<int> picks others.
A failure prints the deck and the mutations that produced it."""
import os
import re
import signal
import string

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from mbdae.engine.io.mbdyn.conformance import find_decks  # noqa: E402
from mbdae.engine.io.mbdyn.deck import DeckError, DeckStop, parse_deck  # noqa: E402

HERE = os.path.dirname(__file__)
DECKS_ROOT = os.environ.get("MBDAE_MBDYN_TESTS", os.path.join(HERE, "..", "..", "..", "shared", "mbdyn-tests"))
LONG = bool(os.environ.get("MBDAE_LONG"))
EXAMPLES = int(os.environ.get("MBDAE_FUZZ_EXAMPLES") or (2000 if LONG else 40))
SEED = os.environ.get("MBDAE_FUZZ_SEED") or None
SECONDS_PER_DECK = float(os.environ.get("MBDAE_FUZZ_TIMEOUT", 20.0))
MESSAGE_LIMIT = 700            # characters of a message beyond its file name
FILE_NAME_LIMIT = 400          # the file name (a deck path, an include's, or "<deck> (hint ...)")

DECKS = find_decks(DECKS_ROOT) if os.path.isdir(DECKS_ROOT) else []
TEXTS = {}

# the words a mutation puts where a number was
NUMBERS = ["1e308", "-1e308", "1e999", "-1e999", "(1e999 - 1e999)", "0./0.", "1/0", "-1", "-7", "2.5",
           "-0.5", "3e9", "2147483648", "4294967296.", "1e-320", "0", "0.", "999999999999.", "1e15",
           "2^2^2^2^2^2", "2.^1024", "integer(1e300)", "\"text\"", "", "Time", "nan", "inf"]
GARBAGE = [";", ":", ",", "(", ")", "\"", "#", "/*", "*/", "\\", "[", "]", "{", "}", "@", "$", "::",
           "\x00", "\xff", "\t", "\n", "\u00e9", "begin: nodes;", "end: elements;", "begin: data;",
           "include: \"nowhere\";", "set: real X = ;", "x" * 10_000, "(" * 300, "-" * 6000]
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+\.?\d*(?:[eEdD][+-]?\d+)?|\.\d+(?:[eEdD][+-]?\d+)?|\"[^\"\n]*\"|\S")
NUMBER = re.compile(r"(?<![A-Za-z_0-9.])(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?![A-Za-z_0-9.])")


def deck_text(path):
    if path not in TEXTS:
        with open(path, encoding="latin-1") as f:
            TEXTS[path] = f.read()
    return TEXTS[path]


def spans(pattern, text):
    return [m.span() for m in pattern.finditer(text)]


def lines(text):
    """(start, end) of every line, newline included."""
    out, start = [], 0
    for i, c in enumerate(text):
        if c == "\n":
            out.append((start, i + 1))
            start = i + 1
    if start < len(text):
        out.append((start, len(text)))
    return out


def pick(items, k):
    return items[k % len(items)] if items else None


def splice(text, span, new):
    return text[:span[0]] + new + text[span[1]:]


def swap(text, a, b):
    if a == b:
        return text
    a, b = sorted((a, b))
    if a[1] > b[0]:
        return text
    return text[:a[0]] + text[b[0]:b[1]] + text[a[1]:b[0]] + text[a[0]:a[1]] + text[b[1]:]


def mutate(text, mutation):
    """Apply one mutation (kind, k1, k2, choice) to the text."""
    kind, k1, k2, choice = mutation
    if kind in ("delete token", "duplicate token", "swap tokens"):
        units = spans(TOKEN, text)
    elif kind in ("delete line", "duplicate line", "swap lines"):
        units = lines(text)
    else:
        units = spans(NUMBER, text)
    a, b = pick(units, k1), pick(units, k2)
    if kind.startswith("delete"):
        return splice(text, a, "") if a else text
    if kind.startswith("duplicate"):
        return splice(text, a, text[a[0]:a[1]] * 2 + ("" if kind.endswith("line") else " ")) if a else text
    if kind.startswith("swap"):
        return swap(text, a, b) if a else text
    if kind == "replace number":
        return splice(text, a, pick(NUMBERS, choice)) if a else text
    if kind == "nest number":
        if not a:
            return text
        n = text[a[0]:a[1]]
        depth = pick([75, 150, 200, 201, 1000], choice)
        forms = ["(" * depth + n + ")" * depth, "-" * (depth * 10) + n, "+".join([n] * (depth * 5)),
                 "sin(" * depth + n + ")" * depth, n + "*(1+(2-1)" * depth + ")" * depth]
        return splice(text, a, pick(forms, k2))
    if kind == "truncate":
        return text[:k1 % (len(text) + 1)]
    if kind == "insert garbage":
        at = k1 % (len(text) + 1)
        return text[:at] + pick(GARBAGE, choice) + text[at:]
    if kind == "insert characters":
        at = k1 % (len(text) + 1)
        alphabet = string.printable
        return text[:at] + "".join(alphabet[(k2 >> (5 * i)) % len(alphabet)] for i in range(1 + choice % 6)) + text[at:]
    raise AssertionError(kind)


KINDS = ["delete token", "duplicate token", "swap tokens", "delete line", "duplicate line", "swap lines",
         "replace number", "nest number", "truncate", "insert garbage", "insert characters"]
# positions: Hypothesis favours small integers, a multiplicative hash spreads them over the deck
POSITION = st.integers(0, 2**31).map(lambda k: k * 2654435761 % 2**31)
MUTATION = st.tuples(st.sampled_from(KINDS), POSITION, POSITION, st.integers(0, 1000))


class ReaderTimeout(Exception):
    pass


def _timeout(signum, frame):
    raise ReaderTimeout(f"the reader took more than {SECONDS_PER_DECK:g} s")


def read(text, path):
    """Read the text as the deck at path (includes resolve next to it), as `mbdae check` does."""
    previous = signal.signal(signal.SIGALRM, _timeout)
    signal.setitimer(signal.ITIMER_REAL, SECONDS_PER_DECK)
    try:
        return parse_deck(text, name=path, directory="", echo=lambda *a: None)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check_rejection(error):
    """A located one-line message of bounded length: file:line:column: ..."""
    message = str(error)
    assert "\n" not in message and "\r" not in message, repr(message)
    if isinstance(error, DeckError):
        assert re.match(r".+:\d+:\d+: \S", message), message
        assert isinstance(error.line, int) and error.line >= 1 and error.column >= 1, message
        assert len(str(error.file)) <= FILE_NAME_LIMIT, message
        assert len(message) <= len(str(error.file)) + MESSAGE_LIMIT, message
    else:        # DeckStop: "file:line:col: stop() requested exit with code N"
        assert re.match(r".+:\d+:\d+: stop\(\) requested exit", message), message


def fuzz_settings():
    chosen = dict(max_examples=EXAMPLES, deadline=None, database=None, derandomize=SEED is None,
                  suppress_health_check=list(HealthCheck), print_blob=True)
    return settings(**chosen)


@pytest.mark.skipif(not DECKS, reason=f"no MBDyn decks under {DECKS_ROOT} (third-party data, read in place)")
def test_mutated_real_decks_are_read_or_rejected_with_a_location():
    test = given(deck=st.sampled_from(DECKS), mutations=st.lists(MUTATION, min_size=1, max_size=3))(_one)
    test = fuzz_settings()(test)
    if SEED is not None:
        test = hypothesis.seed(int(SEED))(test)
    test()


def _one(deck, mutations):
    text = deck_text(deck)
    for mutation in mutations:
        text = mutate(text, mutation)
    try:
        read(text, deck)
    except (DeckError, DeckStop) as error:
        check_rejection(error)


@pytest.mark.skipif(not DECKS, reason=f"no MBDyn decks under {DECKS_ROOT} (third-party data, read in place)")
def test_mutations_change_the_text():
    """A guard on the mutators themselves: each kind changes a real deck."""
    text = deck_text(DECKS[0])
    for kind in KINDS:
        assert any(mutate(text, (kind, k, k + 3, k)) != text for k in range(1, 40)), kind
