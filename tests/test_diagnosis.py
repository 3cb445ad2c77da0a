"""Diagnosis of a singular iteration matrix (engine/diagnose.py, issue 18): redundant joint
equations, nodes without inertia and free directions are named by label, type and deck line,
before a run (mbdae.diagnose, `mbdae check --deep`) and when a run's factorization fails."""
import numpy as np
import pytest

from mbdae import Model, diagnose, run, SimulationFailed
from mbdae.cli import main
from mbdae.engine.diagnose import diagnose_system
from mbdae.engine.system import System


# ---------------------------------------------------------------------- models (Python API)
def two_hinges():
    """Two identical revolute hinges between a clamped node and a body's node."""
    m = Model()
    m.structural_node(1, "static")
    m.clamp(10, 1)
    m.structural_node(2, "dynamic", position=[1.0, 0, 0])
    m.body(3, 2, 1.0, inertia=np.eye(3))
    m.revolute_hinge(1, 1, 2, offset2=[-1.0, 0, 0])
    m.revolute_hinge(2, 1, 2, offset2=[-1.0, 0, 0])
    m.gravity([0, -9.81, 0])
    return m


def clamp_and_spherical():
    """A clamp and a spherical pin on the same node."""
    m = Model()
    m.structural_node(1, "dynamic")
    m.body(1, 1, 1.0, inertia=np.eye(3))
    m.clamp(1, 1)
    m.spherical_pin(2, 1)
    m.gravity([0, -9.81, 0])
    return m


def massless_node():
    """A dynamic node without a body, held by a spherical hinge, under a couple."""
    m = Model()
    m.structural_node(1, "static")
    m.clamp(1, 1)
    m.structural_node(2, "dynamic")
    m.spherical_hinge(2, 1, 2)
    m.couple(3, 2, [0, 0, 1.0])
    return m


A, B, C, D = (np.array(p, float) for p in ([0, 0, 0], [0, 1, 0], [2, 1.5, 0], [2.5, 0, 0]))


def four_bar(in_line=False):
    """A 3-D four-bar linkage in the plane z = 0: crank 2, coupler 3, rocker 4 (nodes at the
    links' middles), revolute pins 1 and 4 to the ground, revolute hinges 2 and 3 (all axes
    z).  Hinge 3 replaced by an in-line joint (C on a line along z of the coupler), as MBDyn
    users do, leaves no redundant equation."""
    m = Model()
    for label, (p, q) in ((2, (A, B)), (3, (B, C)), (4, (C, D))):
        m.structural_node(label, "dynamic", position=(p + q) / 2)
        m.body(label, label, 1.0, inertia=np.eye(3) * 0.1)
    m.revolute_pin(1, 2, offset=A - (A + B) / 2)
    m.revolute_hinge(2, 2, 3, offset1=B - (A + B) / 2, offset2=B - (B + C) / 2)
    if in_line:
        m.in_line(3, 3, C - (B + C) / 2, np.eye(3), 4, offset2=C - (C + D) / 2)
    else:
        m.revolute_hinge(3, 3, 4, offset1=C - (B + C) / 2, offset2=C - (C + D) / 2)
    m.revolute_pin(4, 4, offset=D - (C + D) / 2)
    m.gravity([0, -9.81, 0])
    return m


def pendulum():
    m = Model()
    m.structural_node(1, "dynamic")
    m.body(1, 1, 1.0, center_of_mass=[1.0, 0, 0])
    m.revolute_pin(2, 1)
    m.gravity([0, -9.81, 0])
    return m


def involved(d):
    """{(family, label)} of every element a redundancy names."""
    return {(r.family, r.label) for r in d.redundant} | {(f, l) for r in d.redundant for f, l, _ in r.depends_on}


# ---------------------------------------------------------------------- API
def test_two_identical_hinges_hinge_2_repeats_hinge_1():
    d = diagnose(two_hinges())
    assert d.singular and d.deficiency == 5
    assert not d.free_nodes and not d.free_unknowns
    [r] = d.redundant
    assert (r.family, r.label, r.type) == ("joint", 2, "revolute hinge")
    assert r.rows == ["position x", "position y", "position z", "axis orthogonality 1", "axis orthogonality 2"]
    assert r.depends_on == [("joint", 1, "revolute hinge")] and r.repeats
    assert "joint 2 (revolute hinge): position x" in str(d) and "repeat joint 1 (revolute hinge)" in str(d)


def test_clamp_and_spherical_pin_on_one_node():
    d = diagnose(clamp_and_spherical())
    assert d.deficiency == 3 and not d.free_nodes
    [r] = d.redundant
    assert (r.label, r.type, r.rows) == (2, "spherical pin", ["position x", "position y", "position z"])
    assert r.depends_on == [("joint", 1, "clamp")]


def test_node_without_inertia_under_a_couple():
    d = diagnose(massless_node())
    assert d.deficiency == 3 and not d.redundant
    [f] = d.free_nodes
    assert (f.label, f.kind, f.mass, f.rotational_inertia) == (2, "dynamic", False, False)
    assert f.translations == [] and len(f.rotations) == 3
    assert "structural node 2 (dynamic): rotation about x, y and z is free (no mass and no rotational inertia)" \
        in str(d)


def test_planar_four_bar_of_revolute_hinges_has_three_redundant_rotation_equations():
    """MBDyn's classic case: the loop's out-of-plane equations (translation along z, rotations
    about x and y) are dependent; the diagnosis names three of the hinges' rotation
    (axis-orthogonality) equations as depending on the other hinges of the loop."""
    d = diagnose(four_bar())
    assert d.deficiency == 3 and not d.free_nodes
    rows = [w for r in d.redundant for w in r.rows]
    assert len(rows) == 3 and all(w.startswith("axis orthogonality") for w in rows)
    assert involved(d) == {("joint", 1), ("joint", 2), ("joint", 3), ("joint", 4)}
    assert all(not r.repeats for r in d.redundant)


@pytest.mark.parametrize("build", [pendulum, lambda: four_bar(in_line=True)], ids=["pendulum", "four-bar-in-line"])
def test_well_posed_models_have_no_redundancy(build):
    d = diagnose(build())
    assert not d.singular and not d.redundant and not d.free_nodes
    assert d.lines()[0].startswith("no redundancy found")


def test_a_run_that_meets_the_singular_matrix_says_why():
    with pytest.raises(SimulationFailed) as info:
        run(clamp_and_spherical(), final_time=0.01, time_step=1e-3)
    text = str(info.value)
    assert "singular iteration matrix" in text
    assert "redundant equations: joint 2 (spherical pin): position x, position y, position z repeat joint 1 (clamp)" \
        in text


# ---------------------------------------------------------------------- decks and the command
DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 0.01;
    time step: 1e-3;
end: initial value;
begin: control data;
{control}
end: control data;
begin: nodes;
{nodes}
end: nodes;
begin: elements;
{elements}
end: elements;
"""
HINGES = DECK.format(
    control="    structural nodes: 2;\n    joints: 3;\n    rigid bodies: 1;\n    gravity;",
    nodes="    structural: 1, static, null, eye, null, null;\n"
          "    structural: 2, dynamic, 1., 0., 0., eye, null, null;",
    elements="    joint: 10, clamp, 1, node, node;\n"
             "    joint: 1, revolute hinge, 1, null, 2, -1., 0., 0.;\n"
             "    joint: 2, revolute hinge, 1, null, 2, -1., 0., 0.;\n"
             "    body: 2, 2, 1., null, eye;\n"
             "    gravity: uniform, 0., -1., 0., const, 9.81;")
MASSLESS = DECK.format(
    control="    structural nodes: 2;\n    joints: 2;\n    forces: 1;",
    nodes="    structural: 1, static, null, eye, null, null;\n"
          "    structural: 2, dynamic, null, eye, null, null;",
    elements="    joint: 1, clamp, 1, node, node;\n"
             "    joint: 2, spherical hinge, 1, null, 2, null;\n"
             "    couple: 3, absolute, 2, 0., 0., 1., const, 1.;")
PENDULUM = DECK.format(
    control="    structural nodes: 1;\n    joints: 1;\n    rigid bodies: 1;\n    gravity;",
    nodes="    structural: 1, dynamic, null, eye, null, null;",
    elements="    joint: 2, revolute pin, 1, null, null;\n"
             "    body: 1, 1, 1., 1., 0., 0., null;\n"
             "    gravity: uniform, 0., -1., 0., const, 9.81;")


def line_of(text, needle):
    return text[:text.index(needle)].count("\n") + 1


def test_check_deep_names_the_hinges_and_their_deck_lines(tmp_path, capsys):
    path = tmp_path / "hinges.mbd"
    path.write_text(HINGES)
    assert main(["check", "--deep", str(path)]) == 1
    out = capsys.readouterr().out
    l1, l2 = line_of(HINGES, "joint: 1, revolute"), line_of(HINGES, "joint: 2, revolute")
    assert (f"redundant equations: joint 2 (revolute hinge, {path}:{l2}): position x, position y, position z, "
            f"axis orthogonality 1, axis orthogonality 2 repeat joint 1 (revolute hinge, {path}:{l1})") in out


def test_run_of_a_deck_with_a_massless_node_prints_and_logs_the_diagnosis(tmp_path, capsys):
    path = tmp_path / "massless.mbd"
    path.write_text(MASSLESS)
    prefix = tmp_path / "out" / "massless"
    assert main(["run", str(path), "-o", str(prefix), "-q"]) == 1
    err = capsys.readouterr().err
    line = line_of(MASSLESS, "structural: 2")
    expect = (f"structural node 2 (dynamic, {path}:{line}): rotation about x, y and z is free "
              f"(no mass and no rotational inertia)")
    assert "simulation failed" in err and "singular iteration matrix" in err and expect in err
    assert expect in (tmp_path / "out" / "massless.out").read_text()


def test_check_deep_of_a_well_posed_deck(tmp_path, capsys):
    path = tmp_path / "pendulum.mbd"
    path.write_text(PENDULUM)
    assert main(["check", "--deep", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no redundancy found" in out and "singular" not in out


def test_beyond_the_dense_limit_only_the_constraint_equations_are_checked():
    """A connected part larger than max_dense: the redundant hinge equations are still named
    (from the constraint rows alone), and a note says the nodes were not analysed."""
    system = System(four_bar())
    d = diagnose_system(system, system.initial_state(0.0), 5e-4, max_dense=20)
    assert d.deficiency == 3 and len([w for r in d.redundant for w in r.rows]) == 3
    assert involved(d) == {("joint", 1), ("joint", 2), ("joint", 3), ("joint", 4)}
    assert any("dense limit" in n for n in d.notes)
