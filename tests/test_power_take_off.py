"""Power take-offs (issue 19, elements/power_take_off.py) against closed forms and energy:

- P is minus the work rate of the element's own loads on the node velocities, for every
  element type (rod with offsets; deformable hinge, displacement, 6-D and axial joints,
  attached and invariant), at random states; an inactive driven element takes nothing; P
  does not change under a superimposed rigid motion;
- a mass on a spring driven by a harmonic force, with a PTO damper c: the steady-state
  stroke, rate, force and power against X = F/(k - mω² + iωc), the mean absorbed power
  ½ c ω² |X|²; a run that fails still ends its .out on what was absorbed;
- the optimum damping of a 1-dof oscillator with intrinsic impedance Z_i = b + i(ωm - k/ω):
  a sweep of c finds the maximum absorbed power at c = |Z_i| (P(c) = ½|F|² c / |Z_i + c|²);
- energy balance of a rigid body on springs with a damper and a force actuator (a rod whose
  law is a prestress times a drive) attached with moment arms: the actuator's work
  (computed from the motion) = minus its PTO energy = the damper's absorbed energy + the
  change of kinetic and potential energy, to O(h²);
- a rotational PTO (deformable hinge attached and invariant, deformable axial joint, viscous)
  between two rotors: P = c θ̇², the absorbed energy ½ J_red θ̇0² (1 - e^(-2λt)) and the
  kinetic energy lost;
- a reaction-mass buoy in 1-D (buoy on a hydrostatic spring and radiation damper, reaction
  mass on prismatic and in-line joints, PTO spring-damper with moment arms): its 2-dof
  frequency response and mean absorbed power ½ c ω² |X1 - X2|²;
- the deck card, the .pto columns, the end-of-run lines and the errors naming the word."""
import math

import numpy as np
import pytest

from mbdae import Model, run, read_deck, DeckError, SimulationFailed
from mbdae.engine.system import System
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core import rotations as rot
from mbdae.engine.core.constitutive import LinearElastic1D, LinearViscous1D, LinearViscoelastic1D, LinearLaw3D
from mbdae.engine.core.drives import SineDrive, ExpressionDrive
from mbdae.engine.core.tpldrive import VectorDrive
from samples import SAMPLES, randomize_state, rigid_motion


def pto_rows(prefix, label):
    """The .pto rows of PTO `label` (columns after the label), one per output step."""
    with open(prefix + ".pto") as f:
        rows = [line.split() for line in f]
    return np.array([[float(x) for x in r[1:]] for r in rows if int(r[0]) == label])


def family(system, name):
    return next(f for f in system.families if f.name == name)


# =========================================================================== definition of P
def _all_types_model(rng):
    """Every deformable joint type attached and invariant (the deformable family's sample),
    rods with offsets and the driven sample's rods, each declared a PTO."""
    m = SAMPLES["deformable joint"][0](rng)
    for k, s in enumerate(list(m.deformable)):
        m.power_take_off(100 + k, s.type, s.label)
    return m


def _loads_power(system, fam_name, ctx):
    """Minus the work rate of a family's loads on the node velocities, per instance: the
    residual blocks (x1, g1, x2, g2) are minus the node forces and moments."""
    fam = family(system, fam_name)
    r = fam.residual_blocks(ctx)[0].reshape(fam.ne, 4, 3)
    kin = ctx.kin
    q = np.stack([kin.v[fam.n1], kin.w[fam.n1], kin.v[fam.n2], kin.w[fam.n2]], axis=1)
    return np.einsum("eki,eki->e", r, q)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_power_is_minus_the_work_rate_of_the_element_loads(seed):
    rng = np.random.default_rng(seed)
    system = System(_all_types_model(rng))
    st = randomize_state(system, rng)
    ctx = system.context(st)
    pto = family(system, "power take-off")
    expected = _loads_power(system, "deformable joint", ctx)[pto.instance]
    P = pto.power(ctx)
    assert np.abs(expected).min() > 1e-6 * np.abs(expected).max()       # no instance trivially zero
    np.testing.assert_allclose(P, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    # and the rods (with offsets)
    rng = np.random.default_rng(seed)
    m = SAMPLES["rod"][0](rng)
    for s in m.rods:
        m.power_take_off(s.label, "rod", s.label)
    system = System(m)
    ctx = system.context(randomize_state(system, rng))
    pto = family(system, "power take-off")
    rods = family(system, "rod")
    T, l, u, ldot = rods.tension(ctx)
    np.testing.assert_allclose(pto.power(ctx), _loads_power(system, "rod", ctx), rtol=1e-12)
    np.testing.assert_allclose(pto.power(ctx), T * ldot, rtol=1e-14)


def test_an_inactive_driven_element_takes_nothing():
    """The driven sample at t = 0.37: rod 5 is on (its P is T l̇), rod 7 off (P = 0)."""
    rng = np.random.default_rng(4)
    m = SAMPLES["driven"][0](rng)
    m.power_take_off(1, "rod", 5)
    m.power_take_off(2, "rod", 7)
    system = System(m)
    ctx = system.context(randomize_state(system, rng))
    P = family(system, "power take-off").power(ctx)
    rods = family(system, "rod")
    T, _, _, ldot = rods.tension(ctx)
    on = [i for i, s in enumerate(rods.specs) if s.label == 5][0]
    assert P[0] == T[on] * ldot[on] and abs(P[0]) > 0 and P[1] == 0.0


def test_power_is_objective():
    """A rigid rotation and translation of the whole system with a superimposed rigid
    velocity field leaves every PTO's power unchanged."""
    rng = np.random.default_rng(7)
    system = System(_all_types_model(rng))
    st = randomize_state(system, rng)
    st.y[system.nodes.ig_rot] = 0.0
    pto = family(system, "power take-off")
    P0 = pto.power(system.context(st))
    Q = rot.exp_rotvec(rng.normal(size=3))
    st2 = rigid_motion(st, system.nodes, Q, rng.normal(size=3), rng.normal(size=3), rng.normal(size=3))
    np.testing.assert_allclose(pto.power(system.context(st2)), P0, rtol=1e-9, atol=1e-10 * np.abs(P0).max())


# =========================================================================== 1-dof oscillator
def forced_oscillator(m, k, c, F0, omega, b=0.0, L=2.0, steady=True):
    """A mass m on a spring k along x (rods from a clamped node at the origin, reference
    length L), a PTO damper c (rod 4, PTO 1), an intrinsic damper b (rod 6) and a force
    F0 sin(ωt); started on its steady state x = Im(X e^(iωt)) when `steady`."""
    X = F0 / (k - m * omega ** 2 + 1j * omega * (b + c)) if steady else 0.0
    model = Model()
    model.structural_node(1, "static")
    model.clamp(1, 1)
    model.structural_node(2, "dynamic", position=[L + np.imag(X), 0, 0], velocity=[omega * np.real(X), 0, 0])
    model.body(2, 2, m, inertia=np.eye(3))
    model.rod(3, 1, 2, LinearElastic1D(k * L), length=L)
    model.rod(4, 1, 2, LinearViscous1D(c * L), length=L)
    if b:
        model.rod(6, 1, 2, LinearViscous1D(b * L), length=L)
    model.force(5, 2, VectorDrive.single([1.0, 0.0, 0.0], SineDrive(0.0, omega, F0, "forever", 0.0)))
    model.power_take_off(1, "rod", 4)
    return model, X


def test_harmonically_forced_oscillator_absorbs_half_c_omega2_X2(tmp_path):
    """m = 10, k = 1000, c = 40, F = 100 sin 8t (ζ = 0.2): over 4 periods from the steady
    state, the .pto stroke, rate, force and power follow X = F/(k - mω² + iωc) and the mean
    absorbed power is ½ c ω² |X|² = 55.17 (Crank-Nicolson, 200 steps per period)."""
    m, k, c, F0, w = 10.0, 1000.0, 40.0, 100.0, 8.0
    model, X = forced_oscillator(m, k, c, F0, w)
    T = 2 * math.pi / w
    prefix = str(tmp_path / "osc")
    res = run(model, final_time=4 * T, time_step=T / 200, method="crank nicolson", tolerance=1e-10,
              output_prefix=prefix)
    rows = pto_rows(prefix, 1)
    t = res.t
    assert rows.shape == (len(t), 6)
    stroke, rate, force, P, E, mean = rows.T
    z = X * np.exp(1j * w * t)
    amp = abs(X)
    np.testing.assert_allclose(stroke, z.imag, atol=2e-3 * amp)
    np.testing.assert_allclose(rate, (1j * w * z).imag, atol=2e-3 * w * amp)
    np.testing.assert_allclose(force, c * rate, rtol=1e-5)             # 6 digits in the file
    np.testing.assert_allclose(P, force * rate, rtol=2e-5, atol=1e-5 * P.max())
    np.testing.assert_allclose(P, c * (1j * w * z).imag ** 2, atol=5e-3 * c * (w * amp) ** 2)
    closed = 0.5 * c * w ** 2 * amp ** 2
    assert abs(mean[-1] / closed - 1) < 1e-3 and abs(res.stats["mean_absorbed_power"][1] / closed - 1) < 1e-3
    np.testing.assert_allclose(E[-1], mean[-1] * t[-1], rtol=1e-5)
    with open(prefix + ".out") as f:
        last = f.read().splitlines()[-1]
    assert last == (f"# power take-off 1 (rod 4): absorbed energy {res.stats['absorbed_energy'][1]:.6e} over "
                    f"{t[-1]:.6g} s, mean absorbed power {res.stats['mean_absorbed_power'][1]:.6e}")


def test_optimum_damping_is_the_intrinsic_impedance_modulus():
    """m = 10, k = 1000, intrinsic damping b = 10, F = 100 sin 8t: Z_i = b + i(ωm - k/ω),
    |Z_i| = 46.1.  Mean absorbed power over 2 periods from the steady state for c = |Z_i| e^s,
    s in ±0.35, ±0.7, 0: each equals ½ F² c / |Z_i + c|² (0.1 %), and the parabola through
    the five (symmetric in s: P = ½F² / (2b + 2|Z_i| cosh s)) peaks at |s| < 0.005."""
    m, k, b, F0, w = 10.0, 1000.0, 10.0, 100.0, 8.0
    Zi = b + 1j * (w * m - k / w)
    s = np.array([-0.7, -0.35, 0.0, 0.35, 0.7])
    T = 2 * math.pi / w
    measured = []
    for c in abs(Zi) * np.exp(s):
        model, _ = forced_oscillator(m, k, c, F0, w, b=b)
        res = run(model, final_time=2 * T, time_step=T / 200, method="crank nicolson", tolerance=1e-10)
        measured.append(res.stats["mean_absorbed_power"][1])
    measured = np.array(measured)
    c = abs(Zi) * np.exp(s)
    closed = 0.5 * F0 ** 2 * c / abs(Zi + c) ** 2
    np.testing.assert_allclose(measured, closed, rtol=1e-3)
    assert np.argmax(measured) == 2
    a2, a1, _ = np.polyfit(s, measured, 2)
    assert abs(-a1 / (2 * a2)) < 0.005


def test_a_failed_run_still_reports_what_was_absorbed(tmp_path):
    """A force drive that leaves its domain after t = 0.1 (sqrt of a negative number) stops
    the run; the .out still ends on the PTO line, over the steps that converged (t = 0.1),
    with E equal to the last .pto row's."""
    model, _ = forced_oscillator(10.0, 1000.0, 40.0, 100.0, 8.0)
    model.forces[0].value = VectorDrive.single([1.0, 0.0, 0.0], ExpressionDrive("100*sqrt(0.1 - Time)"))
    prefix = str(tmp_path / "fail")
    with pytest.raises(SimulationFailed):
        run(model, final_time=1.0, time_step=0.01, method="crank nicolson", output_prefix=prefix)
    E = pto_rows(prefix, 1)[-1, 4]
    with open(prefix + ".out") as f:
        last = f.read().splitlines()[-1]
    assert last == f"# power take-off 1 (rod 4): absorbed energy {E:.6e} over 0.1 s, mean absorbed power {E / 0.1:.6e}"
    assert E > 0


# =========================================================================== energy balance
def body_on_springs(h_scale=1.0):
    """A rigid body (offset centre of mass, full inertia) on three springs, a damper (PTO 1)
    and a force actuator F(t) = 40 sin 3t (PTO 2: a rod whose law is a prestress times the
    drive), all from fixed anchors to points of the body (moment arms); set moving."""
    model = Model()
    model.structural_node(1, "static")
    model.clamp(1, 1)
    model.structural_node(2, "dynamic", velocity=[0.2, -0.1, 0.3], angular_velocity=[0.3, -0.2, 0.5])
    model.body(2, 2, 5.0, center_of_mass=[0.1, -0.05, 0.05], inertia=[[2.0, 0.1, 0.0], [0.1, 3.0, -0.2],
                                                                       [0.0, -0.2, 2.5]])
    springs = [([3.0, 0.0, 0.0], [0.5, 0.0, 0.2], 3000.0), ([0.0, 3.0, 0.5], [0.0, 0.5, 0.0], 2000.0),
               ([0.5, -0.5, -3.0], [0.0, 0.0, -0.5], 4000.0)]
    for k, (anchor, point, EA) in enumerate(springs):
        model.rod(10 + k, 1, 2, LinearElastic1D(EA), offset1=anchor, offset2=point)
    model.rod(20, 1, 2, LinearViscous1D(60.0), offset1=[-3.0, 0.5, 0.0], offset2=[-0.5, 0.1, 0.0])
    actuator = cl.scaled(cl.linear_viscous(1, 0.0, prestress=1.0), SineDrive(0.0, 3.0, 40.0, "forever", 0.0))
    model.rod(21, 1, 2, actuator, offset1=[0.0, -3.0, -1.0], offset2=[0.2, -0.5, 0.1])
    model.power_take_off(1, "rod", 20)
    model.power_take_off(2, "rod", 21)
    return model


def _balance(h, tmp_path):
    model = body_on_springs()
    prefix = str(tmp_path / f"bal{h:g}")
    res = run(model, final_time=4.0, time_step=h, method="crank nicolson", tolerance=1e-12, output_prefix=prefix)
    x, R, v, w = res.node(2)
    t = res.t
    body = model.bodies[0]
    arm = np.einsum("tij,j->ti", R, body.xcg)
    vc = v + np.cross(w, arm)
    Jc = np.einsum("tij,jk,tlk->til", R, body.J_cg, R)
    kinetic = 0.5 * body.mass * np.einsum("ti,ti->t", vc, vc) + 0.5 * np.einsum("ti,tij,tj->t", w, Jc, w)
    potential = np.zeros_like(t)

    def point_motion(rod):
        p = x + np.einsum("tij,j->ti", R, rod.f2)
        d = p - rod.f1
        u = d / np.linalg.norm(d, axis=1)[:, None]
        vp = v + np.cross(w, np.einsum("tij,j->ti", R, rod.f2))
        return np.linalg.norm(d, axis=1), np.einsum("ti,ti->t", u, vp)

    for rod in model.rods[:3]:
        l, _ = point_motion(rod)
        l0 = np.linalg.norm(rod.f2 - rod.f1)
        potential += 0.5 * rod.law.stiffness / l0 * (l - l0) ** 2
    trap = lambda y: np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1]) * np.diff(t))])   # noqa: E731
    _, ldot = point_motion(model.rods[4])
    work = trap(-40.0 * np.sin(3.0 * t) * ldot)           # the actuator's work on the body: -T l̇
    _, ldot_d = point_motion(model.rods[3])
    damper = trap(60.0 / np.linalg.norm(model.rods[3].f2 - model.rods[3].f1) * ldot_d ** 2)
    E_damp, E_act = pto_rows(prefix, 1)[:, 4], pto_rows(prefix, 2)[:, 4]
    return t, work, damper, E_damp, E_act, kinetic - kinetic[0] + potential - potential[0]


def test_energy_balance_of_a_body_with_a_damper_and_an_actuator(tmp_path):
    """Work of the actuator = damper's absorbed energy + Δ(kinetic + potential), the residual
    O(h²) (Crank-Nicolson: halving h divides it by about 4); the PTO energies equal the
    trapezoidal sums of the powers computed from the motion (file precision)."""
    out = {h: _balance(h, tmp_path) for h in (4e-3, 2e-3)}
    residual = {}
    for h, (t, work, damper, E_damp, E_act, mech) in out.items():
        scale = np.abs(work).max()
        assert scale > 1.0 and E_damp[-1] > 1.0 and abs(work[-1]) > 0.5
        np.testing.assert_allclose(E_act, -work, atol=2e-5 * scale)
        np.testing.assert_allclose(E_damp, damper, atol=2e-5 * scale)
        residual[h] = np.abs(work - E_damp - mech).max() / scale
    assert residual[2e-3] < 2e-4 and 3.0 < residual[4e-3] / residual[2e-3] < 5.0


# =========================================================================== rotational PTO
@pytest.mark.parametrize("kind,invariant", [("deformable hinge", False), ("deformable hinge", True),
                                            ("deformable axial joint", False)])
def test_rotational_pto_between_two_rotors(kind, invariant, tmp_path):
    """Rotor 1 (J1 = 2) on a revolute pin, rotor 2 (J2 = 1) on a revolute hinge to it, a
    viscous rotational PTO c = 1.5 between them, rotor 2 spun at θ̇0 = 2: θ̇ = θ̇0 e^(-λt),
    λ = c (1/J1 + 1/J2); P = c θ̇² (θ̇ from the motion); absorbed energy ½ J_red θ̇0²
    (1 - e^(-2λt)) = the kinetic energy lost; angular momentum J1 θ̇1 + J2 θ̇2 kept."""
    J1, J2, c, w0 = 2.0, 1.0, 1.5, 2.0
    model = Model()
    model.structural_node(1, "dynamic")
    model.structural_node(2, "dynamic", angular_velocity=[0.0, 0.0, w0])
    model.body(1, 1, 3.0, inertia=np.diag([1.0, 1.0, J1]))
    model.body(2, 2, 2.0, inertia=np.diag([0.5, 0.5, J2]))
    model.revolute_pin(1, 1)
    model.revolute_hinge(2, 1, 2)
    if kind == "deformable hinge":
        model.deformable_hinge(3, 1, 2, LinearLaw3D(0.0, c), invariant=invariant)
    else:
        model.deformable_axial_joint(3, 1, 2, LinearViscous1D(c))
    model.power_take_off(7, kind, 3)
    prefix = str(tmp_path / "rot")
    res = run(model, final_time=2.0, time_step=2.5e-3, method="crank nicolson", tolerance=1e-12,
              output_prefix=prefix)
    t = res.t
    w1, w2 = res.node(1)[3][:, 2], res.node(2)[3][:, 2]
    rows = pto_rows(prefix, 7)
    P, E = rows[:, -3], rows[:, -2]
    lam = c * (1 / J1 + 1 / J2)
    Jred = J1 * J2 / (J1 + J2)
    np.testing.assert_allclose(w2 - w1, w0 * np.exp(-lam * t), rtol=1e-4)
    np.testing.assert_allclose(P, c * (w2 - w1) ** 2, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(E, 0.5 * Jred * w0 ** 2 * (1 - np.exp(-2 * lam * t)), atol=2e-5 * Jred * w0 ** 2)
    kinetic = 0.5 * J1 * w1 ** 2 + 0.5 * J2 * w2 ** 2
    np.testing.assert_allclose(kinetic[0] - kinetic, E, atol=2e-5 * kinetic[0])
    np.testing.assert_allclose(J1 * w1 + J2 * w2, J2 * w0, rtol=1e-9)
    np.testing.assert_allclose(rows[:, -1][-1], E[-1] / t[-1], rtol=1e-5)


# =========================================================================== reaction-mass buoy
def test_reaction_mass_buoy_frequency_response_and_power(tmp_path):
    """MBS4WEC T2 in 1-D: buoy m1 = 1000 on a hydrostatic spring k_h = 1e4 and a radiation
    damper b = 500 (a mooring matrix, eq. 11), excited by F = 1e4 sin 2.5t, on an in-line
    joint and a prismatic joint to the ground; reaction mass m2 = 300 on an in-line and a
    prismatic joint to the buoy; PTO spring k = 2000 and damper c = 800 (one rod, attached
    0.5 m off the axis on both bodies: moment arms, eqs. 13-16).  From the steady state, 3
    periods: heave amplitudes and phases against the 2-dof frequency response
    [-ω²M + iωC + K] X = F, mean absorbed power ½ c ω² |X1 - X2|²."""
    m1, m2, kh, b, k, c, F0, w = 1000.0, 300.0, 1e4, 500.0, 2000.0, 800.0, 1e4, 2.5
    M = np.diag([m1, m2])
    K = np.array([[kh + k, -k], [-k, k]])
    C = np.array([[b + c, -c], [-c, c]])
    X = np.linalg.solve(-w ** 2 * M + 1j * w * C + K, [F0, 0.0])
    L = 3.0
    model = Model()
    model.structural_node(1, "static")
    model.clamp(1, 1)
    model.structural_node(2, "dynamic", position=[0, 0, X[0].imag], velocity=[0, 0, w * X[0].real])
    model.structural_node(3, "dynamic", position=[0, 0, -1 + X[1].imag], velocity=[0, 0, w * X[1].real])
    model.body(2, 2, m1, inertia=np.diag([2e3, 2e3, 1e3]))
    model.body(3, 3, m2, inertia=np.diag([50.0, 50.0, 30.0]))
    model.in_line(10, 1, [0, 0, 0], np.eye(3), 2)
    model.prismatic(11, 1, 2)
    model.in_line(12, 2, [0, 0, 0], np.eye(3), 3)
    model.prismatic(13, 2, 3)
    model.mooring_matrix(20, 2, stiffness=[0, 0, kh, 0, 0, 0], damping=[0, 0, b, 0, 0, 0],
                         reference_position=[0.0, 0.0, 0.0])
    model.force(21, 2, VectorDrive.single([0.0, 0.0, 1.0], SineDrive(0.0, w, F0, "forever", 0.0)))
    model.rod(30, 2, 3, LinearViscoelastic1D(k * L, c * L), length=L, offset1=[0.5, 0, -4.0], offset2=[0.5, 0, 0])
    model.power_take_off(1, "rod", 30)
    T = 2 * math.pi / w
    prefix = str(tmp_path / "buoy")
    res = run(model, final_time=3 * T, time_step=T / 250, method="crank nicolson", tolerance=1e-10,
              output_prefix=prefix)
    t = res.t
    z1, z2 = res.node(2)[0][:, 2], res.node(3)[0][:, 2] + 1.0
    # least-squares harmonic fit over the run: z = a sin ωt + b cos ωt = Im(X e^(iωt))
    A = np.column_stack([np.sin(w * t), np.cos(w * t)])
    for z, Xi in ((z1, X[0]), (z2, X[1])):
        (a_, b_), *_ = np.linalg.lstsq(A, z, rcond=None)
        fitted = a_ + 1j * b_                    # Im((a + ib) e^(iωt)) = a sin + b cos
        assert abs(fitted - Xi) < 1e-3 * abs(Xi)
    np.testing.assert_allclose(res.node(2)[0][:, :2], 0.0, atol=1e-9)
    closed = 0.5 * c * w ** 2 * abs(X[0] - X[1]) ** 2
    assert abs(res.stats["mean_absorbed_power"][1] / closed - 1) < 1e-3
    rows = pto_rows(prefix, 1)
    np.testing.assert_allclose(rows[:, 0], z2 - z1, atol=1e-5 * abs(X[0] - X[1]) + 1e-6)    # stroke l - l0


# =========================================================================== deck
DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: 0.;
    final time: 0.1;
    time step: 1e-2;
    tolerance: 1e-10;
    method: crank nicolson;
end: initial value;
begin: control data;
    structural nodes: 3;
    rigid bodies: 2;
    joints: {joints};
end: control data;
begin: nodes;
    structural: 1, static, null, eye, null, null;
    structural: 2, dynamic, 2., 0., 0., eye, 0.1, 0.2, 0., 0., 0., 0.3;
    structural: 3, dynamic, 2., 1., 0., eye, null, 0., 0., -0.5;
end: nodes;
begin: elements;
    body: 2, 2, 10., null, eye;
    body: 3, 3, 5., null, eye;
    joint: 1, clamp, 1, node, node;
    joint: 4, rod, 1, 2, from nodes, linear viscoelastic, 2000., 80.;
    joint: 5, rod, 1, 2, from nodes, drive caller wrapper, sine, 0., 3., 20., forever, 0.,
        linear viscous, 0., prestress, 1.;
    joint: 6, deformable hinge, 2, 3, linear viscoelastic, 10., 2.;
    joint: 7, deformable displacement joint, 2, null, 3, null, linear viscoelastic, 100., 5.;
{ptos}
end: elements;
"""
PTOS = """\
    joint: 104, power take off, rod, 4;
    joint: 105, power take off, rod with offset, 5, output, yes;
    joint: 106, power take off, deformable hinge, 6;
    joint: 107, power take off, deformable displacement joint, 7;
"""


def _parse(tmp_path, text):
    path = tmp_path / "pto.mbd"
    path.write_text(text)
    return read_deck(str(path), echo=lambda *a: None)


def test_deck_cards_read_run_and_write_the_pto_file(tmp_path):
    """The cards build the PTO specs; the run writes .pto (rods: 6 columns, hinge and
    displacement joint: 12 per row); per row P = f · ε̇ from the file's own columns, E the
    trapezoidal sum of P; the actuator's force is the drive; the .out ends on one line per
    PTO with E and E / t."""
    text = DECK.format(joints=9, ptos=PTOS)
    d = _parse(tmp_path, text)
    specs = d.model.power_take_offs
    assert [(s.label, s.element_type, s.element) for s in specs] == [
        (104, "rod", 4), (105, "rod", 5), (106, "deformable hinge", 6), (107, "deformable displacement joint", 7)]
    line = text.count("\n", 0, text.index("joint: 106")) + 1
    assert specs[2].where == f"{tmp_path / 'pto.mbd'}:{line}"
    prefix = str(tmp_path / "out")
    res = d.run(output_prefix=prefix)
    t = np.arange(11) * 0.01
    for label, n in ((104, 6), (105, 6), (106, 12), (107, 12)):
        rows = pto_rows(prefix, label)
        assert rows.shape == (11, n)
        k = (n - 3) // 3
        eps, rate, f = rows[:, :k], rows[:, k:2 * k], rows[:, 2 * k:3 * k]
        P, E, mean = rows[:, -3], rows[:, -2], rows[:, -1]
        np.testing.assert_allclose(P, np.einsum("ij,ij->i", f, rate), rtol=3e-5, atol=1e-6 * np.abs(P).max())
        np.testing.assert_allclose(E, np.concatenate([[0.0], np.cumsum(0.5 * (P[1:] + P[:-1]) * 0.01)]),
                                   rtol=1e-4, atol=1e-6 * np.abs(E).max())
        np.testing.assert_allclose(mean[1:], E[1:] / t[1:], rtol=1e-5)
        assert np.abs(P).max() > 1e-3
    np.testing.assert_allclose(pto_rows(prefix, 105)[:, 2], 20.0 * np.sin(3.0 * t), atol=1e-5)
    with open(prefix + ".out") as f:
        tail = f.read().splitlines()[-4:]
    assert [l.split(":")[0] for l in tail] == [f"# power take-off {n} ({k}" for n, k in (
        (104, "rod 4)"), (105, "rod 5)"), (106, "deformable hinge 6)"), (107, "deformable displacement joint 7)"))]
    assert set(res.stats["mean_absorbed_power"]) == {104, 105, 106, 107}


@pytest.mark.parametrize("card,needle,message", [
    ("joint: 104, power take off, rods, 4;", "rods",
     "power take off: unknown element type (expected one of 'rod', 'deformable hinge', "
     "'deformable displacement joint', 'deformable joint', 'deformable axial joint')"),
    ("joint: 104, power take off, rod, 6;", "6;", "power take off: rod 6 is not defined"),
    ("joint: 104, power take off, deformable hinge, 7;", "7;", "power take off: deformable hinge 7 is not defined"),
    ("joint: 104, power take off, rod, 4, outptu, no;", "outptu",
     "power take off: unknown keyword (expected 'output' or ';')"),
    ("joint: 104, power take off, rod, 4, output, no, 3;", "3;",
     "power take off: unknown keyword (expected 'output' or ';')"),
    ("joint: 104, power take off;", ";", "power take off: an element type ('rod', 'deformable hinge', "
     "'deformable displacement joint', 'deformable joint', 'deformable axial joint') expected before ';'"),
    ("joint: 104, power take of, rod, 4;", "power take of", "syntax error: unknown joint type 'power take of'"),
])
def test_misspelled_and_invalid_cards_are_rejected_by_name(tmp_path, card, needle, message):
    text = DECK.format(joints=6, ptos="    " + card)
    with pytest.raises(DeckError) as info:
        _parse(tmp_path, text)
    i = text.index(needle, text.index("joint: 104"))
    line, col = text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)
    word = needle if needle == ";" else needle.split(",")[0].rstrip(";")
    assert str(info.value) == f"{tmp_path / 'pto.mbd'}:{line}:{col}: {message} (at '{word}')"


def test_api_errors_name_the_power_take_off():
    m, _ = forced_oscillator(1.0, 1.0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="power take-off 1 is already defined"):
        m.power_take_off(1, "rod", 3)
    with pytest.raises(ValueError, match="element type 'spring' is not one of rod, deformable hinge"):
        m.power_take_off(2, "spring", 3)
    m.power_take_off(2, "deformable hinge", 3)
    with pytest.raises(ValueError, match=r"^power take-off 2: deformable hinge 3 is not defined$"):
        System(m)
    m.power_take_offs[-1:] = []
    m.power_take_off(3, "rod", 4)
    with pytest.raises(ValueError, match=r"^power take-off 3: rod 4 is already power take-off 1$"):
        System(m)
