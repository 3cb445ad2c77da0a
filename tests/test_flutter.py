"""Flutter of Theodorsen's typical section (plunge and pitch on springs, an aerodynamic body
with MBDyn's two-state `theodorsen` airfoil on a thin-airfoil table, c_l = 2πα) against the
classical value: the k method on the flutter determinant with Theodorsen's exact
C(k) = H1(2)(k) / (H1(2)(k) + i H0(2)(k)) (Theodorsen 1935, NACA Report 496; Bisplinghoff, Ashley
& Halfman, §9-6), worked here independently of mbdae.  Section: a = −1/5, x_α = 1/10, μ = 20,
r_α² = 6/25, ω_h/ω_θ = 2/5 (Hodges & Pierce's example): U_F = 2.184 b ω_θ, ω_F = 0.649 ω_θ.

mbdae's growth rate of the pitch oscillation, fitted on the peaks of 6 s runs at three speeds
around U_F, crosses zero at 0.994 U_F (the Jones/Wagner approximation of C(k) in the state
model is within 1.5 % of the exact one).  MBDyn 1.7.3 runs the same deck to the same growth
rates (checked here at 21–22 m/s: equal to 4 digits)."""
import math

import numpy as np
import pytest
from scipy import optimize, special

from mbdae.engine.core import airfoil as af
from mbdae.engine.io.mbdyn.deck import read_deck

A, X_ALPHA, MU, R2, SIGMA = -0.2, 0.1, 20.0, 6 / 25, 0.4
B, W_THETA, RHO = 0.5, 20.0, 1.225


def theodorsen_c(k):
    h1, h0 = special.hankel2(1, k), special.hankel2(0, k)
    return h1 / (h1 + 1j * h0)


def flutter_modes(k):
    """Ω = (ω_θ/ω)²(1 + i g) of the two modes at reduced frequency k (h positive down, α nose
    up, loads per π ρ b³ ω², time scaled so that ω = b = 1, U = 1/k)."""
    U, C = 1.0 / k, theodorsen_c(k)
    Aero = np.zeros((2, 2), complex)
    for j, (h, al) in enumerate(((1.0, 0.0), (0.0, 1.0))):
        w = 1j * h + U * al + (0.5 - A) * 1j * al            # downwash at 3/4 chord
        L = (-h + U * 1j * al + A * al) + 2 * U * C * w
        M = (-A * h - U * (0.5 - A) * 1j * al + (1 / 8 + A * A) * al) + 2 * U * (A + 0.5) * C * w
        Aero[:, j] = (-L, M)
    K = np.diag([SIGMA ** 2, R2])
    Mass = np.array([[1.0, X_ALPHA], [X_ALPHA, R2]])
    return sorted(np.linalg.eigvals(np.linalg.solve(K, Mass + Aero / MU)), key=lambda z: z.real)


def classical_flutter():
    """(U_F/(b ω_θ), ω_F/ω_θ): where a mode's g = Im Ω / Re Ω changes sign."""
    ks = np.geomspace(0.05, 2.0, 300)
    for m in range(2):
        g = [flutter_modes(k)[m] for k in ks]
        g = np.array([z.imag / z.real for z in g])
        i = np.flatnonzero(np.sign(g[:-1]) != np.sign(g[1:]))
        if len(i):
            f = lambda k: (lambda z: z.imag / z.real)(flutter_modes(k)[m])    # noqa: E731
            kf = optimize.brentq(f, ks[i[-1]], ks[i[-1] + 1], xtol=1e-14)
            wf = 1.0 / math.sqrt(flutter_modes(kf)[m].real)
            return wf / kf, wf
    raise AssertionError("no flutter crossing")


def test_classical_value():
    uf, wf = classical_flutter()
    assert uf == pytest.approx(2.184, abs=1e-3) and wf == pytest.approx(0.649, abs=1e-3)


DECK = """
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: {T}; time step: 0.004; method: ms, .6;
  tolerance: 1e-6; max iterations: 20; derivatives tolerance: 1e-4; end: initial value;
begin: control data; structural nodes: 2; rigid bodies: 1; joints: 3; air properties;
  aerodynamic elements: 1; end: control data;
begin: nodes;
  structural: 100, static, null, eye, null, null;
  structural: 1, dynamic, null, eye, null, 0., 0.02, 0.;      # a small pitch rate starts the motion
end: nodes;
begin: elements;
  joint: 100, clamp, 100, node, node;
  body: 1, 1, {m!r}, {xcg!r}, 0., 0., diag, 1., {J!r}, 1.;     # CG x_α b aft of the elastic axis
  joint: 2, total pin joint, 1, position, null, position, null,
     position constraint, active, active, inactive, null,        # plunge along z
     orientation constraint, active, inactive, active, null;     # pitch about the span (y)
  joint: 3, deformable joint, 100, null, 1, null,
     linear elastic generic, diag, 0., 0., {Kh!r}, 0., {Ka!r}, 0.;
  air properties: {rho!r}, 340., 1., 0., 0., const, {U!r};
  c81 data: 1, "thin.c81", free format;
  aerodynamic body: 10, 1,
     reference, node, null,
     reference, node, 1, -1., 0., 0., 3, 0., 1., 0.,           # chord TE→LE against the stream
     1.,
     const, {c!r}, const, {ac!r}, const, {bc!r}, const, 0.,    # chord, 1/4 and 3/4 chord from the axis
     1, theodorsen, 1, jacobian, yes;
end: elements;
"""


def pitch_growth(folder, U, T=6.0):
    m = MU * math.pi * RHO * B * B
    Ia = R2 * m * B * B
    text = DECK.format(T=T, m=m, xcg=X_ALPHA * B, J=Ia - m * (X_ALPHA * B) ** 2, Kh=m * (SIGMA * W_THETA) ** 2,
                       Ka=Ia * W_THETA ** 2, rho=RHO, U=U, c=2 * B, ac=B * (0.5 + A), bc=B * (A - 0.5))
    path = folder / f"section_{U:.3f}.mbd"
    path.write_text(text)
    prefix = str(folder / f"out_{U:.3f}")
    read_deck(str(path), echo=lambda *a: None).run(prefix, progress=False)
    rows = [line.split() for line in open(prefix + ".mov") if line.split()[0] == "1"]
    theta = np.abs([float(r[5]) for r in rows])           # Euler angle about y (deg)
    t = np.arange(len(theta)) * 0.004
    n = len(theta)
    peaks = [i for i in range(n // 3, n - 1) if theta[i] > theta[i - 1] and theta[i] >= theta[i + 1]]
    return np.polyfit(t[peaks], np.log(theta[peaks]), 1)[0]


def test_typical_section_flutters_at_the_classical_speed(tmp_path):
    deg = np.arange(-180.0, 181.0, 2.0)
    cl = 2 * np.pi * np.radians(np.clip(deg, -20.0, 20.0))
    cols = lambda v: np.column_stack([deg, v, v])            # noqa: E731
    mach = np.array([0.0, 0.8])
    table = af.C81Table("thin airfoil", mach, cols(cl), mach.copy(), cols(0 * deg), mach.copy(), cols(0 * deg))
    af.write_c81(table, str(tmp_path / "thin.c81"), free_format=True)
    uf = classical_flutter()[0] * B * W_THETA                 # 21.84 m/s
    speeds = [float(f * uf) for f in (0.97, 1.0, 1.03)]
    growth = np.array([pitch_growth(tmp_path, U) for U in speeds])
    assert growth[0] < 0 < growth[2], growth                  # damped below, growing above
    k = int(np.flatnonzero(np.sign(growth[:-1]) != np.sign(growth[1:]))[0])
    u_zero = speeds[k] - growth[k] * (speeds[k + 1] - speeds[k]) / (growth[k + 1] - growth[k])
    assert abs(u_zero / uf - 1.0) < 0.015, u_zero / uf
