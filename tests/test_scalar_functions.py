"""MBDyn's scalar functions (engine/core/scalar_functions.py, `scalar function:` card) against
their closed forms and central differences of their derivatives, the `scalar function` drive,
and the wind profiles of the air properties (scalar function, power law, logarithmic) against
MBDyn's formulas (windprof.cc) on a deck read from text."""
import math

import numpy as np
import pytest

from mbdae.engine.core import scalar_functions as sf
from mbdae.engine.io.mbdyn.deck import DeckReader, parse_deck

DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3; end: initial value;
begin: control data; structural nodes: 1; joints: 1; air properties; end: control data;
scalar function: "c", const, 2.;
scalar function: "e", exp, base, 2., coefficient, 3., 0.5;
scalar function: "l", log, base, 10., coefficient, 2., 4.;
scalar function: "p", pow, 1.5;
scalar function: "lin", linear, 1., 2., 3., 6.;
scalar function: "ml", multilinear, 0., 0., 1., 2., 3., 3.;
scalar function: "mln", multilinear, do not extrapolate, 0., 0., 1., 2., 3., 3.;
scalar function: "cs", cubicspline, 0., 0., 1., 1., 2., 0., 3., 1.;
scalar function: "ch", chebychev, -1., 3., 1., 0.5, 0.25;
scalar function: "sum", sum, "c", "p";
scalar function: "div", div, "lin", "p";
begin: nodes; structural: 1, static, null, eye, null, null; end: nodes;
begin: elements;
    joint: 1, clamp, 1, node, node;
    air properties: 1.225, 340., single, 1., 0., 0., const, 0.,
        gust, scalar function, reference position, 0., 0., 10., "lin",
        gust, power law, reference elevation, 80., reference velocity, const, 12., exponent, .09,
        gust, logarithmic, reference orientation, 1, 0., 1., 0., 3, 1., 0., 0.,
            reference elevation, 80., reference velocity, const, 12., surface roughness length, .25;
end: elements;
"""


@pytest.fixture(scope="module")
def read():
    reader = DeckReader("scalar.mbd", text=DECK, name="scalar.mbd", echo=lambda *a: None)
    return reader, reader.read()


def test_closed_forms(read):
    f = read[0].scalar_functions
    x = 1.7
    assert f["c"].value(x) == 2.0
    assert f["e"].value(x) == pytest.approx(0.5 * 2.0 ** (3.0 * x), rel=1e-14)
    assert f["l"].value(x) == pytest.approx(4.0 * math.log10(2.0 * x), rel=1e-14)
    assert f["p"].value(x) == pytest.approx(x ** 1.5, rel=1e-14)
    assert f["lin"].value(x) == pytest.approx(2.0 + 2.0 * (x - 1.0), rel=1e-14)
    assert f["ml"].value(0.5) == 1.0 and f["ml"].value(2.0) == 2.5
    assert f["ml"].value(5.0) == pytest.approx(4.0) and f["ml"].value(-1.0) == pytest.approx(-2.0)  # end slopes
    assert f["mln"].value(5.0) == 3.0 and f["mln"].value(-1.0) == 0.0
    assert [f["cs"].value(v) for v in (0.0, 1.0, 2.0, 3.0)] == pytest.approx([0, 1, 0, 1], abs=1e-14)
    h = 1e-6
    for end in (0.0, 3.0):       # natural spline: zero second derivative at the ends
        d2 = (f["cs"].derivative(end + h) - f["cs"].derivative(end - h)) / (2 * h)
        assert abs(d2) < 1e-5
    xi = (2 * x - 2.0) / 4.0
    assert f["ch"].value(x) == pytest.approx(1.0 + 0.5 * xi + 0.25 * (2 * xi * xi - 1), rel=1e-14)
    assert f["sum"].value(x) == pytest.approx(2.0 + x ** 1.5, rel=1e-14)
    assert f["div"].value(x) == pytest.approx((2.0 + 2.0 * (x - 1.0)) / x ** 1.5, rel=1e-14)
    for name, g in f.items():        # derivatives against central differences
        if name == "mln":
            continue
        fd = (g.value(x + h) - g.value(x - h)) / (2 * h)
        assert g.derivative(x) == pytest.approx(fd, rel=1e-6, abs=1e-8), name


def test_scalar_function_drive():
    d = sf.ScalarFunctionDrive(sf.PowFunction(2.0))
    assert d.value(3.0) == 9.0 and d.derivative(3.0) == 6.0 and d.second_derivative(3.0) == pytest.approx(2.0)


def test_wind_profiles(read):
    """At a point x = (0, 0, 50): scalar function of z − 10 along global x; power law
    12 (50/80)^0.09 along x; logarithmic with R0 columns e1 = y, e3 = x (z = x·e3 = 0 here:
    no wind) — and at x = (30, 0, 50), 12 ln(30/0.25)/ln(80/0.25) along y."""
    air = read[1].model.air
    X = np.array([[0.0, 0.0, 50.0], [30.0, 0.0, 50.0]])
    v = sum(g.velocities(X, 0.0) for g in air.gusts)
    lin = 2.0 + 2.0 * (40.0 - 1.0)
    power = 12.0 * (50.0 / 80.0) ** 0.09
    assert v[0] == pytest.approx([lin + power, 0.0, 0.0], rel=1e-14)
    log = 12.0 * math.log(30.0 / 0.25) / math.log(80.0 / 0.25)
    assert v[1] == pytest.approx([lin + power, log, 0.0], rel=1e-14)


def test_errors():
    with pytest.raises(Exception, match=r"scalar.mbd:\d+:\d+: .*scalar function \"nope\" is not defined"):
        parse_deck(DECK.replace('"lin",\n        gust, power', '"nope",\n        gust, power'), "scalar.mbd",
                   echo=lambda *a: None)
    with pytest.raises(Exception, match=r"surface roughness length missing"):
        parse_deck(DECK.replace(", surface roughness length, .25", ""), "scalar.mbd", echo=lambda *a: None)
