"""The modal joint (elements/modal.py) and its FEM data file (elements/modal_fem.py): reader
errors name file and line; a free-floating modal body conserves its angular momentum; a
clamped modal beam vibrates at the frequencies √(K/M) of its FEM file; the card's errors."""
import os

import numpy as np
import pytest

from mbdae.engine.model import Model
from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.io.mbdyn.deck import read_deck
from mbdae.elements.modal_fem import read_fem_file
from mbdae.engine.core.rbk import RigidBodyKinematics
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.drives import LinearDrive

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "mbdyn-tests")
BEAM_FEM = os.path.join(SHARED, "joints", "modal", "beam", "beam.fem")
LONG = os.environ.get("MBDAE_LONG") == "1"

# a small FEM data file (input manual, appendix "FEM File Format": the "dynamic model"
# example: three nodes on the y axis, two modes, unit lumped inertia)
FEM_TEXT = """** MBDyn MODAL DATA FILE
** RECORD GROUP 1, HEADER
      REV0         3         2         0         0         0
** RECORD GROUP 2, FINITE ELEMENT NODE LIST
     1001 1002 1003
** RECORD GROUP 3, INITIAL MODAL DISPLACEMENTS
 0 0
** RECORD GROUP 4, INITIAL MODALVELOCITIES
 0 0
** RECORD GROUP 5, NODAL X COORDINATES
 0
 0
 0
** RECORD GROUP 6, NODAL Y COORDINATES
-2.
 0
 2.
** RECORD GROUP 7, NODAL Z COORDINATES
 0
 0
 0
** RECORD GROUP 8, MODE SHAPES
**    NORMAL MODE SHAPE #  1
0 0 1 0 0 0
0 0 0 0 0 0
0 0 1 0 0 0
**    NORMAL MODE SHAPE #  2
1 0 0 0 0 0
0 0 0 0 0 0
1 0 0 0 0 0
** RECORD GROUP 9, MODAL MASS MATRIX
2 0
0 2
** RECORD GROUP 10, MODAL STIFFNESS MATRIX
1 0
0 1e2
** RECORD GROUP 11, DIAGONAL OF LUMPED MASS MATRIX
1 1 1 1 1 1
1 1 1 1 1 1
1 1 1 1 1 1
"""


def write(tmp_path, text, name="m.fem"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_reader_reads_every_record(tmp_path):
    d = read_fem_file(write(tmp_path, FEM_TEXT + "** RECORD GROUP 12, GLOBAL INERTIA\n3\n0 0 0\n11 0 0\n0 3 0\n"
                                              "0 0 11\n** RECORD GROUP 13, DAMPING\n0.1 0\n0 0.2\n** END OF FILE\n"))
    assert d.labels == ["1001", "1002", "1003"] and d.n_modes == 2
    assert np.allclose(d.x[:, 1], [-2, 0, 2]) and np.allclose(d.shapes_t[1, 2], [1, 0, 0])
    assert np.allclose(d.stiffness, np.diag([1, 100])) and np.allclose(d.damping, np.diag([0.1, 0.2]))
    assert d.rigid[0] == 3 and np.allclose(d.rigid[2], np.diag([11, 3, 11]))
    assert d.lumped.shape == (3, 6)


@pytest.mark.parametrize("edit,line,words", [
    (lambda t: t.replace("1 0\n0 1e2", "1 0\n0 x"), 36, "generalized stiffness value expected, found 'x'"),
    (lambda t: t.replace("** RECORD GROUP 1, HEADER", "** RECORD GROUP 2, X\n1 2 3\n** RECORD GROUP 1"), 2,
     "before RECORD GROUP 1"),
    (lambda t: t.replace("** RECORD GROUP 9", "** RECORD GROUP 99"), 1, None),
    (lambda t: t.replace("** RECORD GROUP 10, MODAL STIFFNESS MATRIX\n1 0\n0 1e2\n", ""), 1, "RECORD GROUP 10 missing"),
    (lambda t: t.replace("-2.\n 0\n 2.\n", "-2.\n 0\n"), 16, "RECORD GROUP 6: a nodal Y coordinate expected"),
    (lambda t: t.replace("1001 1002 1003", "1001 1002 1001"), 5, "given twice"),
])
def test_reader_errors_name_file_and_line(tmp_path, edit, line, words):
    path = write(tmp_path, edit(FEM_TEXT))
    with pytest.raises(ValueError) as e:
        read_fem_file(path)
    msg = str(e.value)
    assert "\n" not in msg
    if words is None:                      # RECORD GROUP 99: the marker's own line
        assert msg.startswith(f"{path}:") and "unknown RECORD GROUP 99" in msg
    else:
        assert msg.startswith(f"{path}:{line}:") and words in msg, msg


class Recorder:
    """An observer keeping each published state's angular momentum about the origin,
    γ + x₀×β, of the modal body (ModalJoints.momenta: from the velocities)."""
    def __init__(self, system):
        self.system, self.H = system, []
        self.fam = system.family_with("set_own_velocities")

    def start(self, *args):
        pass

    def log(self, text):
        pass

    def step(self, event):
        st = event.state
        kin = self.system.kinematics(st)
        beta, gamma, _ = self.fam.momenta(kin, st.y, st.yp, 0)
        self.H.append(gamma + np.cross(kin.x[0], beta))

    def finish(self):
        pass


def angular_momentum_drift(tmp_path, time_step, invariant_9=True):
    """The largest relative change of the angular momentum about the origin, over 2 s of the
    manual's three-node modal body (lumped inertia, two modes) spun about a skew axis with
    its modes moving (Crank-Nicolson, Newton to 1e-12); and the final modal coordinates."""
    m = Model()
    m.structural_node(1, "modal", position=[0.3, 0.0, 0.1], velocity=[0.1, 0.2, 0.0],
                      angular_velocity=[0.3, 2.0, 0.5])
    m.modal_joint(1, 1, read_fem_file(write(tmp_path, FEM_TEXT)), initial=([0.05, -0.02], [0.1, 0.3]),
                  use_invariant_9=invariant_9)
    p = InitialValueProblem(m, final_time=2.0, time_step=time_step, method="crank nicolson", tolerance=1e-12,
                            keep_results=False)
    rec = Recorder(p.system)
    p.observers.append(rec)
    p.run()
    H = np.array(rec.H)
    assert len(H) > 2.0 / time_step - 1
    fam = rec.fam
    return np.abs(H - H[0]).max() / np.linalg.norm(H[0]), p.state.y[fam.qoff[0]:fam.qoff[0] + 2]


def test_free_floating_modal_body_conserves_angular_momentum_as_the_step_shrinks(tmp_path):
    """With I₉ the modal body's equations are those of a kinetic energy and conserve the
    angular momentum; MBDyn's velocity form (modal_kernel) integrates them with a drift that
    is the integrator's own: it falls by 4 at each halving of the step (second order, no
    floor), 2.1e-5 at h = 5e-3.  (MBDAE_LONG=1: below 1e-8 at h = 1e-4.)  Without I₉
    (MBDyn's default) the moment equation lacks Ω × Σ qⱼ I₅ⱼ q̇ as MBDyn's does, and the
    drift does not vanish with the step."""
    drifts = [angular_momentum_drift(tmp_path, h)[0] for h in (5e-3, 2.5e-3, 1.25e-3)]
    print("angular momentum drift, h = 5e-3, 2.5e-3, 1.25e-3:", ", ".join(f"{d:.3e}" for d in drifts))
    assert drifts[0] < 3e-5
    for coarse, fine in zip(drifts, drifts[1:]):
        assert 3.9 < coarse / fine < 4.1
    no9 = [angular_momentum_drift(tmp_path, h, invariant_9=False)[0] for h in (2.5e-3, 1.25e-3)]
    print("without I9:", ", ".join(f"{d:.3e}" for d in no9))
    assert no9[1] > 0.5 * no9[0] and no9[1] > 10 * drifts[2]
    q = angular_momentum_drift(tmp_path, 5e-3)[1]
    assert np.abs(q - 0.05 * np.array([1, -0.4])).max() > 1e-3      # the modes did move


@pytest.mark.skipif(not LONG, reason="MBDAE_LONG=1: 20 000 steps (50 s)")
def test_free_floating_modal_body_conserves_angular_momentum_to_1e_8(tmp_path):
    drift = angular_momentum_drift(tmp_path, 1e-4)[0]
    print(f"angular momentum drift at h = 1e-4: {drift:.3e}")
    assert drift < 1e-8


@pytest.mark.skipif(not os.path.isfile(BEAM_FEM), reason="MBDyn's modal beam FEM file (../shared) not available")
def test_clamped_modal_beam_vibrates_at_the_fem_frequencies():
    """The clamped beam of MBDyn's joints/modal/beam (modes 2 and 4, diagonal generalized
    mass and stiffness) released from an initial modal displacement: the periods of q₁, q₂
    equal 2π/√(K_ii/M_ii) within 1e-4 (Crank-Nicolson's period error (ωh)²/12 is below 1e-5)."""
    fem = read_fem_file(BEAM_FEM)
    modes = [2, 4]
    w = np.sqrt(np.array([fem.stiffness[k - 1, k - 1] / fem.mass[k - 1, k - 1] for k in modes]))
    T = 2 * np.pi / w
    h = T.min() / 400
    m = Model()
    m.structural_node(1, "static")          # a model needs a structural node; held by a clamp
    m.clamp(1, 1)
    m.modal_joint(1, None, fem, modes=modes, initial=([1e-3, 1e-3], [0.0, 0.0]), damping=("no damping",))
    p = InitialValueProblem(m, final_time=3 * T.max(), time_step=h, method="crank nicolson", tolerance=1e-12,
                            keep_results=False)
    qs = []

    class Q(Recorder):
        def step(self, event):
            qs.append((event.t, *event.state.y[self.fam.qoff[0]:self.fam.qoff[0] + 2]))
    p.observers.append(Q(p.system))
    p.run()
    qs = np.array(qs)
    for k in range(2):
        t, q = qs[:, 0], qs[:, 1 + k]
        i = np.flatnonzero((q[:-1] > 0) & (q[1:] <= 0))          # downward zero crossings
        tc = t[i] + (t[i + 1] - t[i]) * q[i] / (q[i] - q[i + 1])
        period = np.diff(tc).mean()
        assert len(tc) >= 2 and abs(period / T[k] - 1) < 1e-4, (period, T[k])


DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3; end: initial value;
begin: control data; structural nodes: 2; joints: 1; end: control data;
begin: nodes;
    structural: 1, {kind}, null, eye, null, null;
    structural: 2, static, 0., -2., 0., eye, null, null;
end: nodes;
begin: elements;
    joint: 1, modal, 1, 2, {nodes}, no damping, "m.fem", 1, {iface}, 2, null;
end: elements;
"""


@pytest.mark.parametrize("kind,nodes,iface,words", [
    ("dynamic", 3, "1001", "a modal node is required"),
    ("modal null", 3, "1001", "'clamped' expected"),
    ("modal", 4, "1001", "4 FEM nodes given, the FEM file m.fem has 3"),
    ("modal", 3, "1009", "FEM node '1009' is not in m.fem"),
])
def test_card_errors(tmp_path, kind, nodes, iface, words):
    write(tmp_path, FEM_TEXT)
    deck = tmp_path / "d.mbd"
    text = DECK.format(kind=kind.split()[0], nodes=nodes, iface=iface)
    if kind == "modal null":
        text = text.replace("joint: 1, modal, 1,", "joint: 1, modal, null,")
    deck.write_text(text)
    with pytest.raises(Exception) as e:
        read_deck(str(deck), echo=lambda *a: None)
    assert words in str(e.value) and "d.mbd:" in str(e.value), str(e.value)


def fem_with_a_rigid_point(tmp_path, point, lumped, name):
    """FEM_TEXT with a fourth node at `point` that the modes do not move and lumped inertia
    `lumped` (m, m, m, J₁, J₂, J₃) there."""
    lines = FEM_TEXT.splitlines()
    out = []
    for k, line in enumerate(lines):
        if line.strip().startswith("REV0"):
            line = "      REV0         4         2         0         0         0"
        elif line.strip() == "1001 1002 1003":
            line = "     1001 1002 1003 1004"
        out.append(line)
        head = lines[k + 1] if k + 1 < len(lines) else "** END"
        if not line.startswith("**") and head.startswith("**"):
            record = next(l for l in reversed(out) if l.startswith("**"))
            for c, word in enumerate(("X COORD", "Y COORD", "Z COORD")):
                if word in record:
                    out.append(f" {point[c]:.17g}")
            if "MODE SHAPE #" in record:
                out.append("0 0 0 0 0 0")
            if "LUMPED MASS" in record:
                out.append(" ".join(f"{v:.17g}" for v in lumped))
    return read_fem_file(write(tmp_path, "\n".join(out) + "\n", name))


BODY_MASS, BODY_OFFSET, BODY_INERTIA = 0.7, np.array([0.4, 0.3, -0.2]), np.array([0.05, 0.08, 0.11])
W0, ALPHA = 1.5, 2.0          # a frame spinning about z at ω(t) = W0 + ALPHA t


def spinning_frame():
    return RigidBodyKinematics("drive", {
        "angular_velocity": VectorDrive.single([0.0, 0.0, 1.0], LinearDrive(W0, ALPHA)),
        "angular_acceleration": VectorDrive.constant([0.0, 0.0, ALPHA])})


def tumbling_modal_body(tmp_path, body_on_node, rotating=False):
    """The manual's three-node modal body, tumbling with its modes moving, carrying a rigid
    body (mass, offset, inertia): as a `body` on its modal node, or as lumped inertia of an
    FEM node at the body's centre that the modes do not move.  `rotating`: written in a
    frame spinning about z at ω(t) (rigid body kinematics), the initial velocities relative."""
    x0, v0, w0 = np.array([0.3, 0.0, 0.1]), np.array([0.1, 0.2, 0.0]), np.array([0.3, 2.0, 0.5])
    m = Model()
    if rotating:
        m.rigid_body_kinematics = spinning_frame()
        frame_w = np.array([0.0, 0.0, W0])
        v0, w0 = v0 - np.cross(frame_w, x0), w0 - frame_w
    m.structural_node(1, "modal", position=x0, velocity=v0, angular_velocity=w0)
    if body_on_node:
        fem = fem_with_a_rigid_point(tmp_path, BODY_OFFSET, np.zeros(6), "bare.fem")
        m.body(2, 1, BODY_MASS, center_of_mass=BODY_OFFSET, inertia=BODY_INERTIA)
    else:
        fem = fem_with_a_rigid_point(tmp_path, BODY_OFFSET, np.r_[np.full(3, BODY_MASS), BODY_INERTIA],
                                     "loaded.fem")
    m.modal_joint(1, 1, fem, initial=([0.05, -0.02], [0.1, 0.3]), use_invariant_9=True)
    return m


def run_tumbling(model, final_time, time_step):
    """(t, x (steps, 3), R (steps, 3, 3), final q) of the modal node."""
    p = InitialValueProblem(model, final_time=final_time, time_step=time_step, tolerance=1e-12)
    r = p.run()
    fam = p.system.family_with("set_own_velocities")
    return (np.asarray(r.t), np.asarray(r.x)[:, 0], np.asarray(r.R)[:, 0],
            p.state.y[fam.qoff[0]:fam.qoff[0] + 2].copy())


@pytest.mark.parametrize("rotating", [False, True])
def test_rigid_body_on_a_modal_node_equals_the_same_inertia_in_the_fem_file(tmp_path, rotating):
    """A `body` on a modal node (MBDyn's ModalBody: inertia forces on the node's force and
    moment rows from the rates of its velocity unknowns) moves the tumbling modal body exactly
    as the same mass and inertia lumped at an FEM node that the modes do not move (the
    modal joint's invariants I₁, I₂, I₇ then hold it): to 1e-9 over 0.5 s, in the inertial
    frame and in a spinning frame (both sides with the frame's inertial loads)."""
    a = run_tumbling(tumbling_modal_body(tmp_path, True, rotating), 0.5, 2e-3)
    b = run_tumbling(tumbling_modal_body(tmp_path, False, rotating), 0.5, 2e-3)
    assert np.abs(a[1] - a[1][0]).max() > 0.05 and np.abs(a[3]).max() > 0.01   # it moves, its modes too
    for u, w in zip(a[1:], b[1:]):
        np.testing.assert_allclose(u, w, rtol=0, atol=1e-9)


def rotz(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def frame_difference(tmp_path, h, T=0.5):
    """max |x - R₀ x̃|, max |R - R₀ R̃| and max |q - q̃| of the tumbling modal body with a body
    on its node, in the inertial frame and written in the spinning frame (R₀ = R_z(φ(t)),
    φ = W0 t + ½ ALPHA t²); and how far it moves."""
    t, x, R, q = run_tumbling(tumbling_modal_body(tmp_path, True, False), T, h)
    tr, xr, Rr, qr = run_tumbling(tumbling_modal_body(tmp_path, True, True), T, h)
    np.testing.assert_allclose(tr, t)
    R0 = np.array([rotz(W0 * s + 0.5 * ALPHA * s * s) for s in t])
    return (np.abs(x - np.einsum("tij,tj->ti", R0, xr)).max(), np.abs(R - R0 @ Rr).max(), np.abs(q - qr).max(),
            np.abs(x - x[0]).max())


def test_modal_body_in_a_rotating_frame_equals_the_inertial_motion(tmp_path):
    """The modal joint and a body on its node written in a frame spinning up about z (rigid
    body kinematics: the floating frame's absolute velocity, angular velocity and
    accelerations enter the inertia forces and the modal equations) move as in the inertial
    frame once rotated back, x = R₀ x̃, R = R₀ R̃, q = q̃; the difference is the two
    discretizations' and falls as h² (ratio > 3.5)."""
    d1 = frame_difference(tmp_path, 4e-3)
    d2 = frame_difference(tmp_path, 2e-3)
    assert d2[3] > 0.05
    assert all(a / b > 3.5 for a, b in zip(d1[:3], d2[:3])), (d1, d2)
    assert d2[0] < 1e-4 and d2[1] < 1e-4, (d1, d2)


def test_deck_with_modal_node_runs(tmp_path):
    """The card as MBDyn's manual gives it runs (modal node, one interface node) and writes
    the .mod rows label.mode (q, q̇, q̈)."""
    write(tmp_path, FEM_TEXT)
    deck = tmp_path / "d.mbd"
    deck.write_text(DECK.format(kind="modal", nodes=3, iface="1001"))
    d = read_deck(str(deck), echo=lambda *a: None)
    d.run(str(tmp_path / "out"))
    rows = [l.split() for l in open(tmp_path / "out.mod")]
    assert rows[0][0] == "1.1" and rows[1][0] == "1.2" and len(rows[0]) == 4


def test_private_data_follow_the_interface_node(tmp_path):
    """MBDyn's private data of the modal joint: q[1] and q[#1] are the first modal
    coordinate; x[1001,c] and xP[1001,c] of the FEM node clamped to node 2 equal node 2's
    position and velocity (the interface constraint holds at the end of the run)."""
    write(tmp_path, FEM_TEXT)
    deck = tmp_path / "d.mbd"
    deck.write_text(DECK.format(kind="modal", nodes=3, iface="1001").replace(
        "joint: 1, modal", "force: 1, absolute, 2, position, null, 0., 0., 1., const, 2.;\n    joint: 1, modal")
        .replace("joints: 1;", "joints: 1; forces: 1;").replace("final time: 0.01", "final time: 0.05"))
    d = read_deck(str(deck), echo=lambda *a: None)
    p = InitialValueProblem(d.model, final_time=0.05, time_step=1e-3, keep_results=False)
    p.run()
    sysm = p.system
    fam = sysm.family_with("set_own_velocities")
    ctx = sysm.context(p.state)
    q = p.state.y[fam.qoff[0]]
    assert fam.private_data(ctx, "q[1]")[0] == q == fam.private_data(ctx, "q[#1]")[0] and abs(q) > 1e-6
    n = sysm.nodes.index(2)
    x = [fam.private_data(ctx, f"x[1001,{c}]")[0] for c in (1, 2, 3)]
    v = [fam.private_data(ctx, f"xP[1001,{c}]")[0] for c in (1, 2, 3)]
    assert np.allclose(x, ctx.kin.x[n], atol=1e-9) and np.allclose(v, ctx.kin.v[n], atol=1e-6)
    assert "wP[1003,3]" in fam.private_data_names(0)


@pytest.mark.parametrize("where", ["before origin", "after interfaces"])
def test_use_invariant_9_in_both_places(tmp_path, where):
    """`use invariant 9` where the input manual puts it (before `origin node`) and where
    MBDyn 1.7.3 reads it (after the interface nodes)."""
    write(tmp_path, FEM_TEXT)
    text = DECK.format(kind="modal", nodes=3, iface="1001")
    text = (text.replace('"m.fem", 1,', '"m.fem", use invariant 9, 1,') if where == "before origin"
            else text.replace("2, null;", "2, null, use invariant 9;"))
    deck = tmp_path / "d.mbd"
    deck.write_text(text)
    d = read_deck(str(deck), echo=lambda *a: None)
    assert d.model.modal_joints[0].use_invariant_9
