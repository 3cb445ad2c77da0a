"""Tests for mbdae.engine.core.drives (MBDyn input manual section 2.6; spec section 5.2)."""

import math

import numpy as np
import pytest

from mbdae.engine.core.drives import (
    ConstDrive,
    CosineDrive,
    CubicDrive,
    DoubleRampDrive,
    DoubleStepDrive,
    DriveArray,
    ExponentialDrive,
    ExpressionDrive,
    LinearDrive,
    NullDrive,
    OneDrive,
    ParabolicDrive,
    PiecewiseLinearDrive,
    RampDrive,
    SineDrive,
    Step5Drive,
    StepDrive,
    TanhDrive,
    TimeDrive,
)
from mbdae.engine.core.mathparser import MathParser

PI = math.pi


def check_values(drive, table, method="value"):
    for t, expected in table:
        assert getattr(drive, method)(t) == pytest.approx(expected, abs=1e-13), (drive, method, t)
    times = np.array([t for t, _ in table])
    np.testing.assert_allclose(getattr(drive, method)(times), [v for _, v in table], atol=1e-13)


# --------------------------------------------------------------------------- hand-computed values


def test_const_null_one_time():
    check_values(ConstDrive(2.5), [(-1.0, 2.5), (0.0, 2.5), (3.0, 2.5)])
    check_values(ConstDrive(2.5), [(-1.0, 0.0), (3.0, 0.0)], "derivative")
    check_values(NullDrive(), [(-1.0, 0.0), (3.0, 0.0)])
    check_values(OneDrive(), [(-1.0, 1.0), (3.0, 1.0)])
    check_values(OneDrive(), [(3.0, 0.0)], "derivative")
    check_values(TimeDrive(), [(-1.0, -1.0), (3.0, 3.0)])
    check_values(TimeDrive(), [(-1.0, 1.0), (3.0, 1.0)], "derivative")
    check_values(TimeDrive(), [(3.0, 0.0)], "second_derivative")


def test_polynomials():
    check_values(LinearDrive(1.0, 2.0), [(0.0, 1.0), (2.0, 5.0)])
    check_values(LinearDrive(1.0, 2.0), [(0.0, 2.0), (2.0, 2.0)], "derivative")
    check_values(ParabolicDrive(1.0, 2.0, 3.0), [(0.0, 1.0), (2.0, 17.0), (-1.0, 2.0)])
    check_values(ParabolicDrive(1.0, 2.0, 3.0), [(2.0, 14.0)], "derivative")
    check_values(ParabolicDrive(1.0, 2.0, 3.0), [(2.0, 6.0)], "second_derivative")
    check_values(CubicDrive(1.0, 2.0, 3.0, 4.0), [(0.0, 1.0), (2.0, 49.0), (-1.0, -2.0)])
    check_values(CubicDrive(1.0, 2.0, 3.0, 4.0), [(2.0, 2.0 + 12.0 + 48.0)], "derivative")
    check_values(CubicDrive(1.0, 2.0, 3.0, 4.0), [(2.0, 6.0 + 48.0)], "second_derivative")


def test_step():
    drive = StepDrive(1.0, 2.0, 0.5)  # initial time, step value, initial value
    check_values(drive, [(0.0, 0.5), (1.0, 1.25), (2.0, 2.5)])  # (f0 + step)/2 exactly at t0
    check_values(drive, [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], "derivative")  # a.e. derivative


def test_double_step():
    drive = DoubleStepDrive(1.0, 2.0, 3.0, 0.5)
    check_values(drive, [(0.5, 0.5), (1.0, 1.75), (1.5, 3.5), (2.0, 1.75), (3.0, 0.5)])
    check_values(drive, [(1.0, 0.0), (1.5, 0.0)], "derivative")


def test_ramp():
    drive = RampDrive(2.0, 1.0, 3.0, 0.5)  # slope, initial time, final time, initial value
    check_values(drive, [(0.0, 0.5), (1.0, 0.5), (2.0, 2.5), (3.0, 4.5), (5.0, 4.5)])
    check_values(drive, [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 1.0), (4.0, 0.0)], "derivative")
    check_values(drive, [(2.0, 0.0)], "second_derivative")
    forever = RampDrive(2.0, 1.0, "forever", 0.5)
    check_values(forever, [(0.0, 0.5), (10.0, 18.5)])
    check_values(forever, [(10.0, 2.0)], "derivative")


def test_double_ramp():
    drive = DoubleRampDrive(1.0, 0.0, 1.0, -2.0, 2.0, 3.0, 0.5)
    check_values(drive, [(-1.0, 0.5), (0.5, 1.0), (1.5, 1.5), (2.5, 0.5), (4.0, -0.5)])
    check_values(drive, [(-1.0, 0.0), (0.5, 1.0), (1.0, 0.5), (1.5, 0.0), (2.5, -2.0), (4.0, 0.0)],
                 "derivative")
    never_descending = DoubleRampDrive(1.0, 0.0, 1.0, -2.0, "forever", "forever", 0.5)
    check_values(never_descending, [(4.0, 1.5), (100.0, 1.5)])


def test_sine_one_is_a_half_sine_bump():
    # sine, t0, pi/T, A, one, f0: bump of duration T (spec 5.2 note); here T = 2
    drive = SineDrive(1.0, PI / 2.0, 3.0, "one", 0.5)
    check_values(drive, [(0.0, 0.5), (1.0, 0.5), (2.0, 3.5), (2.5, 0.5 + 3.0 * math.sin(PI * 0.75)),
                         (3.0, 0.5), (4.0, 0.5), (5.0, 0.5)])
    check_values(drive, [(0.0, 0.0), (1.0, 0.5 * 3.0 * PI / 2.0), (2.0, 0.0), (4.0, 0.0)], "derivative")


def test_sine_cycle_options():
    omega, amplitude, f0 = PI / 2.0, 2.0, 1.0  # period 4
    half = SineDrive(0.0, omega, amplitude, "half", f0)  # ends at a quarter period at f0 + A
    check_values(half, [(-1.0, f0), (0.5, f0 + amplitude * math.sin(PI / 4.0)), (1.0, 3.0), (5.0, 3.0)])
    two = SineDrive(0.0, omega, amplitude, 2, f0)  # ends after 1.5 periods (n - 1/2) at f0
    check_values(two, [(5.0, 3.0), (6.0, 1.0), (7.0, 1.0), (9.0, 1.0)])
    minus_two = SineDrive(0.0, omega, amplitude, -2, f0)  # ends after 1.25 periods at f0 + A
    check_values(minus_two, [(4.5, f0 + amplitude * math.sin(PI * 2.25)), (5.0, 3.0), (6.0, 3.0)])
    forever = SineDrive(0.0, omega, amplitude, "forever", f0)
    check_values(forever, [(-1.0, f0), (7.0, -1.0), (101.0, 3.0)])
    assert SineDrive(0.0, omega, amplitude, "one", f0).value(3.0) == pytest.approx(f0)
    assert SineDrive(0.0, omega, amplitude, 0, f0).value(7.0) == pytest.approx(-1.0)  # 0 cycles = forever


def test_cosine_cycle_options():
    omega, amplitude, f0 = PI, 0.5, 1.0  # period 2
    half = CosineDrive(0.0, omega, amplitude, "half", f0)  # 0 -> 2A in pi/omega, then held
    check_values(half, [(-1.0, 1.0), (0.0, 1.0), (0.5, 1.5), (1.0, 2.0), (3.0, 2.0)])
    check_values(half, [(-1.0, 0.0), (0.5, amplitude * omega), (1.0, 0.0), (3.0, 0.0)], "derivative")
    check_values(half, [(-1.0, 0.0), (0.0, 0.5 * amplitude * omega**2), (0.5, 0.0), (3.0, 0.0)],
                 "second_derivative")
    one = CosineDrive(0.0, omega, amplitude, "one", f0)  # one full cycle, back to f0
    check_values(one, [(1.0, 2.0), (2.0, 1.0), (3.0, 1.0)])
    minus_two = CosineDrive(0.0, omega, amplitude, -2, f0)  # 1.5 cycles, ends at f0 + 2A
    check_values(minus_two, [(2.0, 1.0), (3.0, 2.0), (4.0, 2.0)])
    two = CosineDrive(0.0, omega, amplitude, 2, f0)
    check_values(two, [(3.0, 2.0), (4.0, 1.0), (5.0, 1.0)])
    forever = CosineDrive(0.0, omega, amplitude, "forever", f0)
    check_values(forever, [(3.0, 2.0), (4.0, 1.0), (5.0, 2.0)])


def test_cosine_half_is_a_smooth_ramp():
    # cosine, t0, pi/T, A/2, half, f0: smooth ramp f0 -> f0 + A over T (spec 5.2 note)
    t0, duration, rise, f0 = 1.0, 2.0, 3.0, 0.25
    drive = CosineDrive(t0, PI / duration, rise / 2.0, "half", f0)
    check_values(drive, [(0.0, f0), (t0, f0), (t0 + duration / 2, f0 + rise / 2), (t0 + duration, f0 + rise),
                         (10.0, f0 + rise)])
    assert drive.derivative(t0 + duration / 2) == pytest.approx(rise / 2 * PI / duration)


def test_piecewise_linear():
    drive = PiecewiseLinearDrive([(0.0, 0.0), (1.0, 2.0), (3.0, 0.0)])
    check_values(drive, [(-1.0, 0.0), (0.0, 0.0), (0.5, 1.0), (1.0, 2.0), (2.0, 1.0), (3.0, 0.0), (5.0, 0.0)])
    check_values(drive, [(-1.0, 0.0), (0.0, 1.0), (0.5, 2.0), (1.0, 0.5), (2.0, -1.0), (3.0, -0.5), (4.0, 0.0)],
                 "derivative")
    check_values(drive, [(0.5, 0.0), (2.0, 0.0)], "second_derivative")
    with pytest.raises(ValueError):
        PiecewiseLinearDrive([(0.0, 0.0), (0.0, 1.0)])


def test_smooth_transitions():
    check_values(TanhDrive(1.0, 2.0, 3.0, 0.5), [(1.0, 0.5), (2.0, 0.5 + 2.0 * math.tanh(3.0))])
    step5 = Step5Drive(1.0, 0.5, 3.0, 2.5)
    check_values(step5, [(0.0, 0.5), (1.0, 0.5), (2.0, 1.5), (3.0, 2.5), (4.0, 2.5)])
    check_values(step5, [(0.0, 0.0), (2.0, 2.0 * 30.0 / 16.0 / 2.0), (4.0, 0.0)], "derivative")
    exponential = ExponentialDrive(2.0, 0.5, 1.0, 0.25)  # amplitude, tau, t0, f0
    check_values(exponential, [(0.0, 0.25), (1.0, 0.25), (2.0, 0.25 + 2.0 * (1.0 - math.exp(-2.0)))])
    check_values(exponential, [(0.0, 0.0), (1.0, 2.0), (2.0, 4.0 * math.exp(-2.0))], "derivative")


def test_expression_drive_derivatives_are_exact():
    drive = ExpressionDrive("sin(2*pi*Time)+Time^2")
    times = np.linspace(-0.5, 2.0, 26)
    np.testing.assert_allclose(drive.value(times), np.sin(2 * PI * times) + times**2, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(drive.derivative(times), 2 * PI * np.cos(2 * PI * times) + 2 * times,
                               rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(drive.second_derivative(times), -4 * PI**2 * np.sin(2 * PI * times) + 2,
                               rtol=1e-13, atol=1e-11)
    assert drive.value(0.25) == pytest.approx(1.0625, rel=1e-15)


def test_expression_drive_uses_deck_variables():
    parser = MathParser()
    parser.evaluate("real T0 = 0.5")
    drive = ExpressionDrive("Time > T0", parser)
    check_values(drive, [(0.0, 0.0), (1.0, 1.0)])
    check_values(drive, [(0.0, 0.0), (1.0, 0.0)], "derivative")


# --------------------------------------------------------------------------- derivatives vs finite differences


SMOOTH_CASES = [
    (ConstDrive(2.0), [0.3, 1.7]),
    (LinearDrive(1.0, -2.0), [0.3, 1.7]),
    (ParabolicDrive(1.0, 2.0, -3.0), [0.3, 1.7]),
    (CubicDrive(1.0, 2.0, 3.0, -4.0), [0.3, 1.7]),
    (StepDrive(1.0, 2.0, 0.5), [0.3, 1.7]),
    (DoubleStepDrive(1.0, 2.0, 3.0, 0.5), [0.3, 1.5, 2.7]),
    (RampDrive(2.0, 1.0, 3.0, 0.5), [0.3, 1.7, 3.5]),
    (RampDrive(2.0, 1.0, "forever", 0.5), [0.3, 1.7, 13.5]),
    (DoubleRampDrive(1.0, 0.0, 1.0, -2.0, 2.0, 3.0, 0.5), [-0.5, 0.3, 1.5, 2.5, 3.5]),
    (SineDrive(0.5, 2.0, 1.5, "one", 0.2), [0.2, 1.1, 2.3, 3.0]),
    (SineDrive(0.5, 2.0, 1.5, "half", 0.2), [0.2, 0.9, 2.3]),
    (SineDrive(0.5, 2.0, 1.5, 3, 0.2), [0.2, 3.3, 8.4, 9.0]),
    (SineDrive(0.5, 2.0, 1.5, "forever", 0.2), [0.2, 3.3, 9.0]),
    (CosineDrive(0.5, 2.0, 1.5, "one", 0.2), [0.2, 1.1, 3.3, 4.0]),
    (CosineDrive(0.5, 2.0, 1.5, "half", 0.2), [0.2, 1.1, 3.3]),
    (CosineDrive(0.5, 2.0, 1.5, -2, 0.2), [0.2, 3.3, 5.1, 6.0]),
    (CosineDrive(0.5, 2.0, 1.5, "forever", 0.2), [0.2, 7.3]),
    (TanhDrive(1.0, 2.0, 3.0, 0.5), [0.3, 1.2, 2.0]),
    (Step5Drive(1.0, 0.5, 3.0, 2.5), [0.3, 1.4, 2.6, 3.5]),
    (ExponentialDrive(2.0, 0.5, 1.0, 0.25), [0.3, 1.4, 2.6]),
    (PiecewiseLinearDrive([(0.0, 0.0), (1.0, 2.0), (3.0, 0.0)]), [-0.5, 0.5, 2.0, 3.5]),
    (ExpressionDrive("exp(-Time)*cos(3*Time) + (Time > 1)*Time^3"), [0.3, 1.7]),
    (TimeDrive(), [0.3, 1.7]),
]


@pytest.mark.parametrize("drive, times", SMOOTH_CASES, ids=lambda x: type(x).__name__ if hasattr(x, "value") else "")
def test_derivatives_match_central_differences(drive, times):
    times = np.array(times, dtype=float)
    h = 1e-6
    fd_first = (drive.value(times + h) - drive.value(times - h)) / (2 * h)
    fd_second = (drive.derivative(times + h) - drive.derivative(times - h)) / (2 * h)
    np.testing.assert_allclose(drive.derivative(times), fd_first, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(drive.second_derivative(times), fd_second, rtol=1e-6, atol=1e-5)
    for t in times:
        assert isinstance(drive.value(float(t)), float)
        assert drive.derivative(float(t)) == pytest.approx(drive.derivative(times)[list(times).index(t)])


# --------------------------------------------------------------------------- DriveArray


def mixed_drives():
    parser = MathParser()
    parser.evaluate("real W = 3.")
    return [
        ConstDrive(2.0),
        NullDrive(),
        OneDrive(),
        TimeDrive(),
        LinearDrive(1.0, 2.0),
        ParabolicDrive(1.0, 2.0, 3.0),
        CubicDrive(1.0, 2.0, 3.0, 4.0),
        StepDrive(1.0, 2.0, 0.5),
        DoubleStepDrive(1.0, 2.0, 3.0, 0.0),
        RampDrive(2.0, 1.0, "forever", 0.0),
        RampDrive(-1.0, 0.5, 2.0, 1.0),
        DoubleRampDrive(1.0, 0.0, 1.0, -1.0, 2.0, 3.0, 0.0),
        SineDrive(0.5, PI / 2.0, 1.0, "one", 0.0),
        SineDrive(0.5, PI, 2.0, "half", 1.0),
        CosineDrive(0.0, PI, 0.5, "half", 0.0),
        CosineDrive(0.0, PI, 1.0, 2, 0.0),
        PiecewiseLinearDrive([(0.0, 0.0), (1.0, 2.0), (3.0, 0.0)]),
        PiecewiseLinearDrive([(0.0, 1.0), (2.0, 3.0)]),
        PiecewiseLinearDrive([(-1.0, 0.0), (0.0, 1.0), (1.0, 0.0), (2.5, 4.0)]),
        ExpressionDrive("sin(2*pi*Time)+Time^2", parser),
        ExpressionDrive("W*Time", parser),
        ExpressionDrive("sin(2*pi*Time)+Time^2", parser),
        TanhDrive(1.0, 2.0, 3.0, 4.0),
        Step5Drive(0.0, 1.0, 2.0, 3.0),
        ExponentialDrive(1.0, 0.5, 1.0, 0.0),
        ConstDrive(-7.0),
    ]


@pytest.mark.parametrize("t", [-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0])
def test_drive_array_agrees_with_each_drive(t):
    drives = mixed_drives()
    array = DriveArray(drives)
    assert len(array) == len(drives)
    np.testing.assert_allclose(array.values(t), [d.value(t) for d in drives], rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(array.derivatives(t), [d.derivative(t) for d in drives], rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(array.second_derivatives(t), [d.second_derivative(t) for d in drives],
                               rtol=1e-15, atol=1e-15)


def test_drive_array_with_array_time():
    drives = mixed_drives()
    array = DriveArray(drives)
    times = np.linspace(-1.0, 4.0, 9)
    values = array.values(times)
    assert values.shape == (len(drives), len(times))
    for row, drive in enumerate(drives):
        np.testing.assert_allclose(values[row], drive.value(times), rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(array.derivatives(times)[row], drive.derivative(times), rtol=1e-15, atol=1e-15)


def test_drive_array_caches_the_last_time():
    array = DriveArray(mixed_drives())
    first = array.values(0.7)
    assert array.values(0.7) is first
    assert not first.flags.writeable
    second = array.values(0.8)
    assert second is not first
    assert array.derivatives(0.8) is array.derivatives(0.8)
