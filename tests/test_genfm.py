"""The `generic aerodynamic force` (elements/genfm.py): loads from the coefficient table
against q·S·c worked by hand (a table point, the bilinear midpoint of a cell, the cosine fade
beyond the table, both angle orders, an offset reference point), its file reader and errors,
and MBDyn's aero/genfm deck against MBDyn 1.7.3 (../shared/mbdyn-ref/wave2)."""
import math
import os

import numpy as np
import pytest

from mbdae import Model
from mbdae.elements.genfm import GenfmTable, read_genfm_table
from mbdae.engine.io.mbdyn.deck import read_deck
from mbdae.engine.io.mbdyn import reference as mbdyn_ref
from mbdae.engine.system import System

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
DECK = "aero/genfm"
DECK_PATH = os.path.join(SHARED, "mbdyn-tests", DECK)
REF = os.path.join(SHARED, "mbdyn-ref", "wave2", mbdyn_ref.ref_key(DECK))
RHO = 1.2

ALPHA = np.radians([-10.0, 0.0, 10.0])
BETA = np.radians([-5.0, 5.0])
COEF = np.arange(36, dtype=float).reshape(2, 3, 6) * 0.1 + 1.0       # c[β][α][k]


def loads(velocity, alpha_first=False, offset=None, omega=(0.0, 0.0, 0.0), S=2.0, L=0.5):
    """(F, M) on a node at the origin with body axes = global, moving at `velocity` in still air."""
    m = Model()
    m.structural_node(1, "static", velocity=velocity, angular_velocity=omega)
    m.air_properties(RHO, [0.0, 0.0, 0.0], sound_speed=340.0)
    m.generic_aerodynamic_force(1, 1, GenfmTable(ALPHA, BETA, COEF), offset=offset, surface=S, length=L,
                                alpha_first=alpha_first)
    s = System(m)
    ctx = s.context(s.initial_state(0.0))
    fam = next(f for f in s.families if f.name == "generic aerodynamic force")
    r = fam.residual_blocks(ctx)[0][0]
    return -r[:3], -r[3:]                       # equation terms are minus the applied loads


def test_loads_at_a_table_point_and_at_a_cell_midpoint():
    """The node flies at V (body axes x forward, z down; still air): α = atan2(Ṽ3, |Ṽ1|),
    β = −atan2(Ṽ2, sign(Ṽ1)|(Ṽ1, Ṽ2)|)."""
    U = 30.0
    # α = 0, β = −5° exactly: Ṽ2 / |(Ṽ1, Ṽ2)| = tan 5°
    t = math.tan(math.radians(5.0))
    V = np.array([U, U * t / math.sqrt(1.0 - t * t), 0.0])
    q = 0.5 * RHO * V @ V
    F, M = loads(V)
    c = COEF[0, 1]                                   # β index 0 (−5°), α index 1 (0°)
    assert np.allclose(F, q * 2.0 * c[:3], rtol=1e-12)
    assert np.allclose(M, q * 2.0 * 0.5 * c[3:], rtol=1e-12)
    # midpoint of the cell α ∈ [0, 10°], β ∈ [−5, 5°]: α = 5°, β = 0
    V = np.array([U, 0.0, U * math.tan(math.radians(5.0))])
    q = 0.5 * RHO * V @ V
    F, M = loads(V)
    c = 0.25 * (COEF[0, 1] + COEF[0, 2] + COEF[1, 1] + COEF[1, 2])
    assert np.allclose(F, q * 2.0 * c[:3], rtol=1e-12)


def test_fade_beyond_the_table_and_alpha_first():
    """α = 40° beyond the last row (10°): the end row times (1 + cos(α_max ξ))/2 with
    ξ = (α − 10°)/(−α_max − 10°), α_max = π/2 (β first) or π (α first); β = 0 (midway)."""
    U = 30.0
    a = math.radians(40.0)
    V = np.array([U * math.cos(a), 0.0, U * math.sin(a)])
    q = 0.5 * RHO * U * U
    for first, amax in ((False, math.pi / 2), (True, math.pi)):
        F, M = loads(V, alpha_first=first)
        xi = (a - ALPHA[-1]) / (-amax - ALPHA[-1])
        c = 0.5 * (COEF[0, 2] + COEF[1, 2]) * 0.5 * (math.cos(amax * xi) + 1.0)
        assert np.allclose(F, q * 2.0 * c[:3], rtol=1e-12), first


def test_offset_point_velocity_and_moment():
    """Reference point o = (0, 0.3, 0) on a node spinning at ω = (0, 0, 2): the point moves at
    ω × o = (−0.6, 0, 0) more; M gains o × F."""
    V = np.array([30.0, 0.0, 0.0])
    o = np.array([0.0, 0.3, 0.0])
    w = np.array([0.0, 0.0, 2.0])
    F, M = loads(V, offset=o, omega=w)
    Vp = V + np.cross(w, o)
    q = 0.5 * RHO * Vp @ Vp
    c = 0.5 * (COEF[0, 1] + COEF[1, 1])
    assert np.allclose(F, q * 2.0 * c[:3], rtol=1e-12)
    assert np.allclose(M, q * 2.0 * 0.5 * c[3:] + np.cross(o, F), rtol=1e-12)


def test_table_file_reader(tmp_path):
    lines = ["# comment", "% another", "2 2"]
    for b in (-1.0, 1.0):
        for a in (-2.0, 2.0):
            lines.append(f"{a} {b} " + " ".join(str(a * 10 + b + k) for k in range(6)))
    p = tmp_path / "t.txt"
    p.write_text("\n".join(lines) + "\n")
    t = read_genfm_table(str(p), angle_scale=math.pi / 180, length_scale=2.0)
    assert np.allclose(t.alpha, np.radians([-2, 2])) and np.allclose(t.beta, np.radians([-1, 1]))
    assert t.coef[1, 0, 0] == (-20 + 1) * 4.0 and t.coef[1, 0, 3] == (-20 + 1 + 3) * 8.0
    p.write_text("\n".join(lines[:5] + ["-3.0 1.0 0 0 0 0 0 0"] + lines[6:]) + "\n")
    with pytest.raises(ValueError, match=r"t.txt:6: angle of attack -3.0 differs from -2.0"):
        read_genfm_table(str(p))
    p.write_text("\n".join(lines[:5]) + "\n")
    with pytest.raises(ValueError, match=r"2×2 rows of 8 numbers expected"):
        read_genfm_table(str(p))


@pytest.mark.skipif(not (os.path.isfile(DECK_PATH) and os.path.isdir(REF)),
                    reason=f"aero/genfm deck or MBDyn's outputs for it not found under {SHARED}")
def test_genfm_deck_agrees_with_mbdyn(tmp_path):
    """A clamped node turned by a driven total pin joint in a 60 m/s stream, the force
    driven on after t = 1 (genfm.txt: 21 angles of attack × 13 sideslips, degrees)."""
    d = read_deck(DECK_PATH, echo=lambda *a: None)
    descriptions = {s.label: s.orientation_description for s in d.model.nodes + d.model.dummy_nodes}
    prefix = str(tmp_path / "run")
    d.run(prefix, progress=False)
    c = mbdyn_ref.compare_outputs(REF, prefix, descriptions)
    assert c.compared_steps >= 40 and not c.problems, c.problems
    assert c.position.value <= 1e-4 and c.rotation.value <= 1e-4 and c.reaction.value <= 1e-4
