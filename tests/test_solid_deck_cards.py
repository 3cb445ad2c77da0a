"""The supporting pieces of the solid decks (issue 14): the `clamp` genel, hydraulic nodes, the
displacement-node cards and the control-data/problem cards of
shared/mbdyn-tests/solid/*, against closed forms and the manual's syntax."""
import numpy as np
import pytest

from mbdae import initial_value_problem
from mbdae.engine.model import Model
from mbdae.engine.system import System
from mbdae.engine.checks import jacobian_mismatch
from mbdae.engine.core.assembly import ALGEBRAIC, DIM
from mbdae.engine.core.constitutive import LinearElastic1D
from mbdae.engine.core.drives import SineDrive, LinearDrive, ConstDrive, StepDrive
from mbdae.engine.core.nodes import NodeSpec
from mbdae.engine.drivers.output_meter import ClosestNextMeter, DriveMeter
from mbdae.engine.drivers.static import static_model
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.io.mbdyn import reference as mr
from mbdae.engine.io.mbdyn.deck import DeckError, read_deck
from samples import SAMPLES, randomize_state


def _run(model, tmp_path, final_time, h=1e-3, tolerance=1e-12, **kw):
    prefix = str(tmp_path / "run")
    initial_value_problem(model, final_time=final_time, time_step=h, tolerance=tolerance,
                          output_prefix=prefix, output_precision=16, progress=False, **kw).run()
    times = mr.output_times(mr.read_lines(prefix + ".out"))
    return prefix, np.asarray(times)


def _column(prefix, ext, label, col=0):
    return np.array([b[label][col] for b in mr.blocks(mr.read_lines(f"{prefix}.{ext}"))])


# =========================================================================== genel clamp

@pytest.mark.parametrize("kind", ["algebraic", "differential"])
def test_clamp_holds_an_abstract_node_at_its_drive(tmp_path, kind):
    """Abstract node loaded by a spring k and an abstract force F(t), clamped to v(t):
    x(t) = v(t) at every step and λ = F(t) - k v(t) (the dof's row reads k x - F + λ = 0)."""
    k = 3.0
    v = SineDrive(0.0, 7.0, 0.4, "forever", 1.0)        # v(0) = 1: the input value
    F = LinearDrive(0.5, 2.0)
    m = Model()
    m.structural_node(1, "static")       # a model needs a structural node: held by a clamp joint
    m.clamp(1, 1)
    m.abstract_node(4, kind, value=1.0, derivative=0.4 * 7.0)
    m.spring_support(1, 4, LinearElastic1D(k))
    m.abstract_force(2, 4, F)
    m.genel_clamp(3, 4, "abstract", value=v)
    prefix, t = _run(m, tmp_path, 0.2)
    x = _column(prefix, "abs", 4)
    lam = _column(prefix, "gen", 3)
    vt = 1.0 + 0.4 * np.sin(7.0 * t)
    np.testing.assert_allclose(x[1:], vt[1:], rtol=0, atol=1e-12)
    exact = (0.5 + 2.0 * t) - k * vt
    np.testing.assert_allclose(lam[1:], exact[1:], rtol=0, atol=1e-9)
    # at t0: the derivatives phase (engine/drivers/ivp.py) is an implicit Euler step of dCoef =
    # 1e-6 h = 1e-9 after which an abstract node keeps y0 + dCoef ẏ (as MBDyn), so x and λ
    # are within O(dCoef ẋ) = 3e-9 and O(dCoef k ẋ) there
    assert abs(x[0] - vt[0]) < 1e-8
    assert abs(lam[0] - exact[0]) < 1e-7


def test_clamp_holds_a_static_node_position_and_reacts_the_force(tmp_path):
    """Static node (other position components and the rotation held by a total pin joint)
    loaded by F(t) along x and clamped to x = v(t): x(t) = v(t) and λ = F(t), the force the
    clamp balances (MBDyn's sign: the dof's row reads -F + λ = 0)."""
    m = Model()
    m.structural_node(1, "static", position=[0.2, 0.0, 0.0])
    m.total_pin_joint(1, 1, position_status=("inactive", "active", "active"),
                      orientation_status=("active", "active", "active"))
    m.force(1, 1, VectorDrive.single([1.0, 0.0, 0.0], SineDrive(0.0, 5.0, 3.0, "forever", 1.5)), "absolute")
    m.genel_clamp(2, 1, "structural", index=1, value=LinearDrive(0.2, 0.8))
    prefix, t = _run(m, tmp_path, 0.1)
    x = _column(prefix, "mov", 1, 0)
    lam = _column(prefix, "gen", 2)
    np.testing.assert_allclose(x, 0.2 + 0.8 * t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lam, 1.5 + 3.0 * np.sin(5.0 * t), rtol=0, atol=1e-9)


def test_clamp_on_a_moving_mass_reacts_force_minus_inertia(tmp_path):
    """Dynamic node of mass m moved along x by a clamp, x = c + b sin(ω(t + τ)), under a force
    F: λ = F - m ẍ = F + m b ω² sin(ω(t + τ)) at t0 (derivatives phase) and, after the start-up
    of the multistep method, to the integrator's O(h²) error in the momentum rate; x exact.
    (The sine starts before t0: a drive that starts at t0 has a half derivative there, which
    the derivatives phase differentiates as it does a joint's imposed motion.)"""
    mass, b, w, F, tau, c = 2.0, 0.05, 6.0, 1.2, 0.5, 0.3
    m = Model()
    m.structural_node(1, "dynamic", position=[c + b * np.sin(w * tau), 0.0, 0.0],
                      velocity=[b * w * np.cos(w * tau), 0.0, 0.0])
    m.body(1, 1, mass, inertia=np.eye(3))
    m.total_pin_joint(1, 1, position_status=("inactive", "active", "active"),
                      orientation_status=("active", "active", "active"))
    m.force(2, 1, [F, 0.0, 0.0], "absolute")
    m.genel_clamp(3, 1, "structural", index=1, value=SineDrive(-tau, w, b, "forever", c))
    prefix, t = _run(m, tmp_path, 0.3, h=1e-3)
    x = _column(prefix, "mov", 1, 0)
    lam = _column(prefix, "gen", 3)
    np.testing.assert_allclose(x, c + b * np.sin(w * (t + tau)), rtol=0, atol=1e-12)
    exact = F + mass * b * w ** 2 * np.sin(w * (t + tau))
    scale = mass * b * w ** 2
    assert abs(lam[0] - exact[0]) < 1e-6 * scale
    late = t > 0.05                       # after the start-up steps of the multistep method
    assert np.abs(lam[late] - exact[late]).max() < 1e-4 * scale


def test_clamp_from_node_holds_the_input_value(tmp_path):
    """`from node` (value None): the dof stays at its input value under a load; λ = the load
    (static node position, hydraulic node with a spring support k and a force F: λ = F - k p0)."""
    m = Model()
    m.structural_node(1, "static", position=[0.1, -0.4, 0.7])
    m.total_pin_joint(1, 1, position_status=("active", "inactive", "active"),
                      orientation_status=("active", "active", "active"))
    m.force(1, 1, [0.0, 2.5, 0.0], "absolute")
    m.genel_clamp(2, 1, "structural", index=2)
    m.hydraulic_node(7, value=3.0)
    m.spring_support(3, 7, LinearElastic1D(2.0), node_type="hydraulic")
    m.abstract_force(4, 7, ConstDrive(10.0), node_type="hydraulic")
    m.genel_clamp(5, 7, "hydraulic")
    prefix, t = _run(m, tmp_path, 0.01)
    np.testing.assert_allclose(_column(prefix, "mov", 1, 1), -0.4, rtol=0, atol=1e-13)
    np.testing.assert_allclose(_column(prefix, "gen", 2), 2.5, rtol=0, atol=1e-9)
    np.testing.assert_allclose(_column(prefix, "prs", 7), 3.0, rtol=0, atol=1e-13)
    np.testing.assert_allclose(_column(prefix, "gen", 5)[1:], 10.0 - 2.0 * 3.0, rtol=0, atol=1e-9)


@pytest.mark.parametrize("mode,dcoef", [("derivatives", 1e-6), ("derivatives", 1e-2), ("ia_position", 1.0),
                                        ("ia_velocity", 0.0)])
def test_clamp_jacobian_in_the_derivatives_phase_and_the_assembly(mode, dcoef):
    """The iteration matrix of the genel sample in the other evaluation modes against central
    finite differences through the update rule (the regular mode is in test_element_checks)."""
    rng = np.random.default_rng(4)
    system = System(SAMPLES["genel clamp"][0](rng))
    st = randomize_state(system, rng, g_scale=0.0 if mode == "ia_velocity" else 0.2)
    if mode == "derivatives":
        st.t_constraint = st.t + dcoef
    ia = None
    if mode.startswith("ia"):
        n = system.nodes.n
        ia = tuple(rng.normal(size=(n, 3)) for _ in range(3))
    err, scale, r, c, Ja, Jf = jacobian_mismatch(system, st, dcoef, mode=mode, ia=ia,
                                                 eps=1e-4 if dcoef < 1e-3 else 1e-6)
    if mode.startswith("ia"):
        # in the assembly the scalar nodes hold themselves (a Δ = 0 row, not a gradient):
        # the clamps' own rows are checked
        rows = next(f for f in system.families if f.name == "genel clamp").mult
        Ja, Jf = Ja[rows], Jf[rows]
    f = np.abs(system.evaluate(st, dcoef, mode=mode, want_jac=False, ia=ia)[0]).max()
    excess = np.abs(Ja - Jf) - (1e-6 * max(scale, 1.0) + 1e-12 * f / 1e-4)
    r, c = np.unravel_index(np.argmax(excess), excess.shape)
    assert excess[r, c] <= 0, f"{mode}: row {r} col {system.owner_text(c)}: {Ja[r, c]} vs {Jf[r, c]}"


def test_clamp_layout_and_refusals():
    """One algebraic multiplier per clamp, a position constraint on differential dofs (divided
    by dCoef, System.scaled_rows) and "other" on algebraic ones; the differential order and
    undefined dofs are refused."""
    m = Model()
    m.structural_node(1, "static")
    m.abstract_node(2, "differential")
    m.abstract_node(3, "algebraic")
    m.hydraulic_node(3)
    for k, (node, kind) in enumerate([(1, "structural"), (2, "abstract"), (3, "abstract"), (3, "hydraulic")]):
        m.genel_clamp(10 + k, node, kind, index=2, value=1.0)
    sysm = System(m)
    fam = next(f for f in sysm.families if f.name == "genel clamp")
    assert fam.n_internal == 4 and np.all(sysm.kind[fam.mult] == ALGEBRAIC)
    assert list(sysm.dim[fam.mult]) == [DIM["position constraint"]] * 2 + [DIM["other"]] * 2
    assert list(sysm.scaled_rows[fam.mult]) == [True, True, False, False]
    hyd = next(f for f in sysm.families if f.name == "hydraulic node")
    np.testing.assert_array_equal(fam.rows, [sysm.nodes.ix[0, 1], sysm.families[0].rows[0],
                                             sysm.families[0].rows[1], hyd.rows[0]])
    m = Model()
    m.structural_node(1, "static")
    m.genel_clamp(1, 1, "structural", index=1, value=0.0, order="differential")
    with pytest.raises(ValueError, match="'differential' order of a dof is not supported yet"):
        System(m)
    m = Model()
    m.structural_node(1, "static")
    m.genel_clamp(1, 5, "hydraulic")
    with pytest.raises(KeyError, match="hydraulic node 5 is not defined"):
        System(m)
    m.hydraulic_node(4)
    with pytest.raises(KeyError, match="genel 1: hydraulic node 5 is not defined"):
        System(m)


# =========================================================================== deck cards

DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 0.01;
    time step: 1e-3;
    tolerance: 1e-10;
{problem}
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
PIN_X_FREE = """    joint: 1, total pin joint, 1, position, null, position orientation, eye, rotation orientation, eye,
        position, null, position orientation, eye, rotation orientation, eye,
        position constraint, inactive, active, active, null,
        orientation constraint, active, active, active, null;"""


def deck(nodes="    structural: 1, static, null, eye, null, null;", elements="", control="    structural nodes: 1;",
         problem=""):
    return DECK.format(nodes=nodes, elements=elements, control=control, problem=problem)


def parse(text, tmp_path, name="deck.mbd"):
    path = tmp_path / name
    path.write_text(text)
    return read_deck(str(path), echo=lambda *a: None)


def expect_error(tmp_path, text, needle, message, nth=0):
    """The DeckError names the file, the line and column of `needle` (its nth occurrence) and
    the message."""
    with pytest.raises(DeckError) as info:
        parse(text, tmp_path)
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    line, col = text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)
    assert str(info.value) == f"{tmp_path / 'deck.mbd'}:{line}:{col}: {message}"


def test_hydraulic_nodes_and_clamp_genels_from_a_deck(tmp_path):
    """`hydraulic: l, [value,] p0 [, output, no]` and `genel: l, clamp, (NodeDof), {from node |
    (DriveCaller)} [, output, no]`: the static node's x stays at its input value under a 4 N
    force (λ = 4 in .gen), the hydraulic node follows its linear drive p = 2.5 + t (.prs)."""
    text = deck(nodes="""    structural: 1, static, 0.2, 0., 0., eye, null, null;
    hydraulic: 5, value, 2.5;
    hydraulic: 6, 1.0, output, no;""", control="""    structural nodes: 1; hydraulic nodes: 2;
    genels: 3; forces: 1; joints: 1;""", elements=PIN_X_FREE + """
    force: 1, absolute, 1, position, null, 1., 0., 0., const, 4.;
    genel: 1, clamp, 1, structural, 1, algebraic, from node;
    genel: 2, clamp, 5, hydraulic, linear, 2.5, 1.;
    genel: 3, clamp, 6, hydraulic, from node, output, no;""")
    d = parse(text, tmp_path)
    m = d.model
    assert [(s.label, s.kind, s.value, s.output) for s in m.hydraulic_nodes] == \
        [(5, "algebraic", 2.5, True), (6, "algebraic", 1.0, False)]
    assert [(c.label, c.dof.node_type, c.dof.node, c.dof.index, c.drive is None, c.output)
            for c in m.genel_clamps] == [(1, "structural", 1, 1, True, True), (2, "hydraulic", 5, 1, False, True),
                                          (3, "hydraulic", 6, 1, True, False)]
    prefix = str(tmp_path / "run")
    d.run(output_prefix=prefix)
    t = mr.output_times(mr.read_lines(prefix + ".out"))
    gen = mr.blocks(mr.read_lines(prefix + ".gen"))
    assert all(set(b) == {1, 2} for b in gen)                  # genel 3: output, no
    np.testing.assert_allclose([b[1][0] for b in gen], 4.0, rtol=1e-9)
    prs = mr.blocks(mr.read_lines(prefix + ".prs"))
    assert all(set(b) == {5} for b in prs)                     # node 6: output, no
    np.testing.assert_allclose([b[5][0] for b in prs], 2.5 + t, rtol=0, atol=1e-6)
    np.testing.assert_allclose(_column(prefix, "mov", 1, 0), 0.2, rtol=0, atol=1e-6)


def test_hydraulic_node_layout_is_algebraic(tmp_path):
    """Hydraulic nodes are algebraic unknowns of their own block ("other" rows), found by
    rows_of(labels, node_type="hydraulic") on either scalar-node family; abstract and hydraulic
    labels are separate spaces."""
    m = Model()
    m.structural_node(1, "static")
    m.abstract_node(3, "differential")
    m.hydraulic_node(3, 1.5)
    m.hydraulic_node(9, -2.0)
    m.genel_clamp(1, 3, "hydraulic")
    m.genel_clamp(2, 9, "hydraulic")
    m.genel_clamp(3, 3, "abstract", value=0.0)
    sysm = System(m)
    hyd = next(f for f in sysm.families if f.name == "hydraulic node")
    rows = hyd.rows_of([9, 3], node_type="hydraulic")
    assert np.all(sysm.kind[rows] == ALGEBRAIC) and np.all(sysm.dim[rows] == DIM["other"])
    assert [sysm.row_what[r] for r in rows] == ["hydraulic x", "hydraulic x"]
    st = sysm.initial_state(0.0)
    np.testing.assert_array_equal(st.y[rows], [-2.0, 1.5])
    ab = next(f for f in sysm.families if f.name == "abstract node")
    # either family answers for both types (System.family_with("rows_of") finds the first one)
    assert sysm.family_with("rows_of") is ab
    np.testing.assert_array_equal(ab.rows_of([[9], [3]], node_type="hydraulic"), rows[:, None])
    np.testing.assert_array_equal(hyd.rows_of([3], node_type="abstract"), ab.rows)
    with pytest.raises(KeyError, match="hydraulic node 4 is not defined"):
        ab.rows_of([4], node_type="hydraulic")
    m = Model()
    m.structural_node(1, "static")
    m.abstract_node(3)
    m.spring_support(1, 3, LinearElastic1D(1.0))
    only_abstract = System(m).family_with("rows_of")
    with pytest.raises(KeyError, match=r"hydraulic node 5 is not defined \(the model has none\)"):
        only_abstract.rows_of([5, 6], node_type="hydraulic")
    with pytest.raises(ValueError, match="not 'thermal'"):
        only_abstract.rows_of([5], node_type="thermal")


def test_hydraulic_and_clamp_card_errors(tmp_path):
    """Undefined hydraulic nodes, the differential order and counts are reported at their word."""
    control = "    structural nodes: 1; hydraulic nodes: 1; genels: 1;"
    nodes = "    structural: 1, static, null, eye, null, null;\n    hydraulic: 2, 0.;"
    text = deck(nodes=nodes, control=control, elements="    genel: 1, clamp, 3, hydraulic, from node;")
    expect_error(tmp_path, text, "3, hydraulic", "Hydraulic(3) is not defined (at '3')")
    text = deck(nodes=nodes, control=control,
                elements="    genel: 1, clamp, 1, structural, 2, differential, 0.;")
    expect_error(tmp_path, text, "1, structural, 2",
                 "not supported yet: clamp of the 'differential' order of a dof (genel) (at '1')")
    text = deck(nodes=nodes + "\n    hydraulic: 3, 0.;", control=control)
    expect_error(tmp_path, text, "3, 0.", "Hydraulic(3) exceeds hydraulic nodes number (at '3')")


def _model_has_displacement_nodes():
    try:
        Model().structural_node(1, "static displacement")
    except ValueError:
        return False
    return True


@pytest.mark.skipif(not _model_has_displacement_nodes(),
                    reason="the Model's displacement nodes (engine/core/nodes.py, issue 14) are not merged yet")
def test_displacement_node_cards(tmp_path):
    """`structural: l, {static | dynamic} displacement, X, V [, assembly, p, v] [, output, no]`
    and the `at reference` form: position and velocity, identity frame, no angular velocity.
    The Model accepts these kinds once the displacement nodes (engine/core/nodes.py) are merged."""
    text = deck(nodes="""    structural: 1, static displacement, 1., 2., 3., 0.1, 0.2, 0.3, assembly, 10., 20., output, no;
    structural: 2, dynamic displacement, position, reference, 7, null, velocity, reference, 7, 0., 0., 1.;
    structural: 3, static displacement, at reference, 7;""", control="    structural nodes: 3;")
    text = text.replace("begin: nodes;", """reference: 7, 0., 0., 5., euler123, 0., 0., 90. * deg2rad,
    1., 0., 0., 0., 0., 2.;
begin: nodes;""")
    d = parse(text, tmp_path)
    s1, s2, s3 = d.model.nodes
    assert (s1.kind, s2.kind, s3.kind) == ("static displacement", "dynamic displacement", "static displacement")
    np.testing.assert_allclose(s1.x, [1, 2, 3])
    np.testing.assert_allclose(s1.v, [0.1, 0.2, 0.3])
    assert s1.assembly_stiffness == (10.0, 20.0) and not s1.output
    np.testing.assert_allclose(s2.x, [0, 0, 5])
    # a velocity in frame 7 (rotated 90° about z, moving at (1, 0, 0) and spinning at 2 about z):
    # its own (0, 0, 1), plus the frame's velocity at the node's position
    np.testing.assert_allclose(s2.v, [1, 0, 1], atol=1e-12)
    np.testing.assert_allclose(s3.x, [0, 0, 5])
    np.testing.assert_allclose(s3.v, [1, 0, 0])
    for s in (s1, s2, s3):
        np.testing.assert_array_equal(s.R, np.eye(3))
        np.testing.assert_array_equal(s.w, np.zeros(3))


def test_displacement_node_card_errors(tmp_path):
    """A displacement node has no orientation: an orientation description or an orientation
    matrix where the velocity belongs is reported at its word."""
    text = deck(nodes="    structural: 1, static displacement, null, null, orientation description, euler123;")
    expect_error(tmp_path, text, "orientation description", "syntax error: a displacement node has no orientation "
                 "(at 'orientation description')")
    text = deck(nodes="    structural: 1, static displacement, null, eye, null;")
    expect_error(tmp_path, text, "eye", "math error: unknown name \"eye\" (at 'eye')")   # read as the velocity


# =========================================================================== control data and problem

SOLID_PROBLEM = """    threads: assembly, 1;
    threads: solver, 1;
    threads: disable;
    linear solver: umfpack, grad, scale, iterative, always, max iterations, 0;
    method: implicit euler;
    derivatives coefficient: 1e-9, auto;
    output: iterations, cpu time, solver condition number, stat, yes;
    nonlinear solver: nox, modified, 100, keep jacobian matrix, jacobian operator, newton krylov,
        forcing term, type 2, forcing term min tolerance, 1e-10, forcing term max tolerance, 1e-6,
        inner iterations before assembly, 20, linear solver max iterations, 40, minimum step, 1e-12,
        recovery step, 1e-12, verbose, 3;"""
SOLID_CONTROL = """    model: static;
    output meter: closest next, 1., forever, 0.75;
    use automatic differentiation;
    print: dof description;
    print: equation description;
    structural nodes: 1; hydraulic nodes: 0; solids: 0; surface loads: 0; genels: 1; forces: 1; joints: 1;"""


def test_solid_problem_and_control_cards(tmp_path):
    """The cards of the solid decks' problem and control blocks: settings as given, one note per
    accepted-but-ignored card (nox runs as mbdae's Newton-Raphson), `model: static` on the Model
    (a dynamic node becomes static), and the closest-next output meter's output times (MBDyn's
    rule: output at the first step at or past each threshold, the next threshold as many
    increments later as pass that step's time): 0 (always), then 1, 1.75, 2.5, 3.25, 4, 4.75."""
    text = deck(problem=SOLID_PROBLEM, control=SOLID_CONTROL,
                nodes="    structural: 1, dynamic, 0.5, 0., 0., eye, null, null;",
                elements=PIN_X_FREE + """
    force: 1, absolute, 1, position, null, 1., 0., 0., const, 4.;
    genel: 1, clamp, 1, structural, 1, algebraic, from node;""")
    text = text.replace("final time: 0.01;", "final time: 5.;").replace("time step: 1e-3;", "time step: 0.25;")
    d = parse(text, tmp_path)
    s = d.settings
    assert s["method"] == "implicit euler" and s["derivatives_coefficient"] == 1e-9
    assert s["derivatives_retries"] == 6 and not s.get("modified_newton", False)
    assert d.model.static_model and [n.kind for n in d.model.nodes] == ["static"]
    notes = [n.split(": ", 1)[1] for n in d.notes]
    assert sum("nonlinear solver nox" in n for n in notes) == 1
    nox = next(n for n in notes if "nonlinear solver nox" in n)
    assert "Newton-Raphson" in nox and "jacobian operator" in nox and "verbose" in nox
    assert sum("linear solver options" in n for n in notes) == 1
    assert sum(n.startswith("threads") for n in notes) == 2            # `disable` is what mbdae does
    assert sum("automatic differentiation" in n for n in notes) == 1
    assert sum(n.startswith("print") for n in notes) == 2
    assert sum(n.startswith("solver output items") for n in notes) == 1       # `stat, yes` is the item's
    assert not any("unknown output flag" in n for n in notes)
    prefix = str(tmp_path / "run")
    d.run(output_prefix=prefix)
    np.testing.assert_array_equal(mr.output_times(mr.read_lines(prefix + ".out")),
                                  [0.0, 1.0, 1.75, 2.5, 3.25, 4.0, 4.75])
    assert len(mr.blocks(mr.read_lines(prefix + ".gen"))) == 7
    np.testing.assert_allclose([b[1][0] for b in mr.blocks(mr.read_lines(prefix + ".gen"))][1:], 4.0)


def test_output_meter_forms():
    """A drive meter writes where the drive is not zero; closest next with an end time stops
    there; the initial configuration is always written; a later `output frequency` card wins."""
    meter = DriveMeter(StepDrive(2.0, 1.0, 0.0))
    assert [meter.due(t, k) for k, t in enumerate([0.0, 1.0, 2.5, 3.0])] == [True, False, True, True]
    meter = ClosestNextMeter(0.0, 1.0, ConstDrive(0.5))
    times = np.arange(0.0, 2.01, 0.25)
    # fires at 0.25 (threshold 0), moves past 0.5 to 1.0 at the next step, fires at 1.0, ends at 1.0
    assert [t for k, t in enumerate(times) if meter.due(t, k)] == [0.0, 0.25, 1.0]
    with pytest.raises(ValueError, match="increment must be positive"):
        bad = ClosestNextMeter(0.0, None, ConstDrive(0.0))
        [bad.due(t, k) for k, t in enumerate(times)]


def test_output_meter_card_and_output_frequency(tmp_path):
    d = parse(deck(control="    structural nodes: 1;\n    output meter: closest next, 0., forever, 0.5;"
                           "\n    output frequency: 3;"), tmp_path)
    assert "output_meter" not in d.settings and d.settings["output_frequency"] == 3
    d = parse(deck(control="    structural nodes: 1;\n    output frequency: 3;"
                           "\n    output meter: closest next, 0., 2., const, 0.5;"), tmp_path)
    assert "output_frequency" not in d.settings
    m = d.settings["output_meter"]
    assert isinstance(m, ClosestNextMeter) and (m.start, m.end, m.increment.value(0.0)) == (0.0, 2.0, 0.5)


def test_rigid_body_kinematics_cards(tmp_path):
    """`rigid body kinematics: drive, ...` (the rotordynamics decks' ramped spin) and `const,
    ...`: the Model's RigidBodyKinematics at t; a null constant one is ignored with a note."""
    rbk = """    rigid body kinematics: drive, angular velocity, component, null, null,
        array, 2, mult, time, const, 0.5, const, 2.,
        angular acceleration, component, null, null, const, 0.5;"""
    d = parse(deck(control="    structural nodes: 1;\n" + rbk), tmp_path)
    k = d.model.rigid_body_kinematics
    assert k.kind == "drive" and set(k.drives) == {"angular_velocity", "angular_acceleration"}
    f = k.at(3.0)
    np.testing.assert_allclose(f.w, [0, 0, 0.5 * 3.0 + 2.0])
    np.testing.assert_allclose(f.wp, [0, 0, 0.5])
    np.testing.assert_array_equal(f.R, np.eye(3))
    for v in (f.x, f.v, f.a):
        np.testing.assert_array_equal(v, 0.0)
    rbk = """    rigid body kinematics: const, position, 1., 2., 3., orientation, euler123, 0., 0., pi / 2,
        velocity, 0.1, 0., 0., angular velocity, 0., 0., 3.;"""
    d = parse(deck(control="    structural nodes: 1;\n" + rbk), tmp_path)
    k = d.model.rigid_body_kinematics
    f = k.at(7.0)
    assert k.kind == "const"
    np.testing.assert_allclose(f.x, [1, 2, 3])
    np.testing.assert_allclose(f.R, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(f.v, [0.1, 0, 0])
    np.testing.assert_allclose(f.w, [0, 0, 3])
    np.testing.assert_array_equal(f.a, 0.0)
    d = parse(deck(control="    structural nodes: 1;\n    rigid body kinematics: const, velocity, null;"),
              tmp_path)
    assert d.model.rigid_body_kinematics is None
    assert any("null rigid body kinematics ignored" in n for n in d.notes)
    text = deck(control="    structural nodes: 1;\n    rigid body kinematics: const;")
    expect_error(tmp_path, text, "const;", "rigid body kinematics: at least one of position, orientation, "
                 "velocity, angular velocity, acceleration, angular acceleration expected (at 'const')")


def test_nonlinear_solver_replacements_and_their_errors(tmp_path):
    """`line search` (its `default solver options`) is read like nox; options are checked
    against the manual's grammar and reported at their word."""
    d = parse(deck(problem="    nonlinear solver: linesearch, default solver options, heavy nonlinear, "
                           "divergence check, no, lambda min, 1e-3, relative, yes;"), tmp_path)
    assert sum("nonlinear solver linesearch" in n for n in d.notes) == 1
    text = deck(problem="    nonlinear solver: nox, jacobian operator, newton krylov, bogus, 3;")
    expect_error(tmp_path, text, "bogus", "syntax error: a nonlinear solver option expected (at 'bogus')")
    text = deck(problem="    nonlinear solver: nox, forcing term, type 3;")
    expect_error(tmp_path, text, "type 3", "syntax error: one of 'constant', 'type 1', 'type 2' for 'forcing "
                 "term' expected (at 'type 3')")
    text = deck(problem="    nonlinear solver: bfgs;")
    expect_error(tmp_path, text, "bfgs", "not supported yet: nonlinear solver: bfgs (at 'bfgs')")


def test_static_model_keeps_displacement_nodes_without_orientation():
    """engine/drivers/static.py static_model: dynamic → static, dynamic displacement → static
    displacement (manual, structural nodes: `model: static` turns dynamic nodes static), and
    the copy's static_model is set."""
    m = Model()
    for label, kind in enumerate(["dynamic", "static", "dynamic displacement", "static displacement"], start=1):
        m.nodes.append(NodeSpec(label, kind, np.zeros(3), np.eye(3), np.zeros(3), np.zeros(3)))
    s = static_model(m)
    assert [n.kind for n in s.nodes] == ["static", "static", "static displacement", "static displacement"]
    assert s.static_model and not m.static_model
    assert [n.kind for n in m.nodes][2] == "dynamic displacement"        # the input model is left as it was


def test_clamps_without_joints_run_with_results_kept():
    """A free body whose three position components are held by clamps (no joint in the model:
    the drivers must not take the clamps for the joints): x(t) = v(t) in the kept results, and
    λ = m v̈ = 0 on each axis (uniform motion, no load) at the last step."""
    mass = 3.0
    m = Model()
    m.structural_node(1, "dynamic", position=[1.0, 2.0, 3.0], velocity=[0.5, 0.0, -0.2])
    m.body(1, 1, mass, inertia=np.eye(3))
    drives = [LinearDrive(1.0, 0.5), ConstDrive(2.0), LinearDrive(3.0, -0.2)]
    for k, d in enumerate(drives, start=1):
        m.genel_clamp(k, 1, "structural", index=k, value=d)
    ivp = initial_value_problem(m, final_time=0.05, time_step=1e-2, tolerance=1e-12, progress=False)
    res = ivp.run()
    t = np.asarray(res.t)
    x = np.asarray(res.x)[:, 0, :]
    np.testing.assert_allclose(x, np.stack([1.0 + 0.5 * t, 2.0 + 0 * t, 3.0 - 0.2 * t], axis=1), rtol=0, atol=1e-12)
    fam = next(f for f in ivp.system.families if f.name == "genel clamp")
    lam = fam.multipliers(ivp.system.context(ivp.state))
    np.testing.assert_allclose(lam, 0.0, atol=1e-8)          # uniform motion: no inertial load
    assert res.joint_labels is None
