"""Drive callers: scalar functions of time with exact first and second time derivatives.

Reference: MBDyn input manual, section 2.6 (Drives and Drive Callers), one subsection per type;
spec/mbdyn-input-language.md section 5.2.  Written from the documentation.

Every drive has ``value(t)``, ``derivative(t)`` and ``second_derivative(t)`` for scalar or numpy
array ``t``.  Parameters follow MBDyn's argument order.

Conventions at break points (where a derivative is discontinuous):

* At a kink the returned derivative is the mean of the two one-sided values (MBDyn does this for
  ramp, sine and piecewise linear drives; here it is applied to both derivative orders).
* A jump of the value itself (step drives, ``Time > T`` in a string drive) contributes nothing
  to the derivatives: the derivative is the almost-everywhere one, 0 on both sides and at the jump.

``DriveArray`` evaluates a list of drives with one numpy computation per drive class, so element
families never loop over drive objects in the Newton iteration.
"""

from __future__ import annotations

import math

import numpy as np

from mbdae.engine.core.mathparser import Expression, MathParser

__all__ = [
    "Drive",
    "ConstDrive",
    "NullDrive",
    "OneDrive",
    "UnitDrive",
    "TimeDrive",
    "LinearDrive",
    "ParabolicDrive",
    "CubicDrive",
    "StepDrive",
    "DoubleStepDrive",
    "RampDrive",
    "DoubleRampDrive",
    "SineDrive",
    "CosineDrive",
    "TanhDrive",
    "Step5Drive",
    "ExponentialDrive",
    "PiecewiseLinearDrive",
    "ExpressionDrive",
    "DriveArray",
    "FOREVER",
]

FOREVER = "forever"


def _time_value(value):
    """`forever` (or None) becomes +inf; anything else a float."""
    if value is None or (isinstance(value, str) and value.strip().lower() == FOREVER):
        return math.inf
    return float(value)


def _cycle_count(cycles):
    """MBDyn number of cycles: `forever` -> 0, `one` -> 1, `half` -> -1, else an integer."""
    if isinstance(cycles, str):
        word = cycles.strip().lower()
        if word == "forever":
            return 0
        if word == "one":
            return 1
        if word == "half":
            return -1
        raise ValueError(f"number of cycles must be an integer, 'forever', 'one' or 'half', not {cycles!r}")
    if isinstance(cycles, bool) or float(cycles) != int(cycles):
        raise ValueError(f"number of cycles must be an integer, not {cycles!r}")
    return int(cycles)


class Drive:
    """Base class: a drive is f(t) with parameters stored by name (see parameter_names)."""

    parameter_names: tuple = ()

    def __init__(self, **parameters):
        self.parameters = {name: float(parameters[name]) for name in self.parameter_names}

    def __repr__(self):
        arguments = ", ".join(f"{name}={value!r}" for name, value in self.parameters.items())
        return f"{type(self).__name__}({arguments})"

    @staticmethod
    def _evaluate(parameters, t, order):
        """order 0/1/2 of the drive; parameters and t broadcast as (m, 1..) against (1, *shape)."""
        raise NotImplementedError

    @classmethod
    def _stack(cls, drives):
        """Parameters of several drives of this class as arrays of shape (m,)."""
        return {name: np.array([drive.parameters[name] for drive in drives], dtype=float)
                for name in cls.parameter_names}

    def _evaluate_single(self, t, order):
        t_array = np.asarray(t, dtype=float)
        if t_array.ndim == 0:
            # one drive at one time (gravity, forces, couples: every step): the parameters as
            # (1,) arrays once, and no broadcasting machinery
            scalar = self.__dict__.get("_scalar_parameters")
            if scalar is None or scalar[0] is not self.parameters:
                scalar = self._scalar_parameters = (self.parameters, type(self)._stack([self]))
            with np.errstate(all="ignore"):
                result = type(self)._evaluate(scalar[1], t_array[None], order)
            return float(np.ravel(result)[0])
        stacked = type(self)._stack([self])
        result = _evaluate_group(type(self), stacked, t_array, order, 1)[0]
        if t_array.ndim == 0:
            return float(result)
        return result

    def value(self, t):
        return self._evaluate_single(t, 0)

    def derivative(self, t):
        return self._evaluate_single(t, 1)

    def second_derivative(self, t):
        return self._evaluate_single(t, 2)

    __call__ = value


def _reshape_for_time(parameters, t):
    """Parameter arrays (m,) -> (m, 1, ..., 1) so that they broadcast against t[None, ...]."""
    trailing = (1,) * t.ndim
    return {name: (value.reshape(value.shape[:1] + trailing) if value.ndim == 1 else value)
            for name, value in parameters.items()}


def _evaluate_group(cls, stacked, t, order, count):
    """Evaluate `count` drives of one class at t (scalar or array): result shape (count, *t.shape)."""
    shaped = _reshape_for_time(stacked, t)
    with np.errstate(all="ignore"):
        result = cls._evaluate(shaped, t[None, ...], order)
    return np.broadcast_to(result, (count,) + t.shape).astype(float, copy=True)


def _zeros(*arrays):
    return np.zeros(np.broadcast(*arrays).shape)


# --------------------------------------------------------------------------- polynomial drives


class ConstDrive(Drive):
    """MBDyn `const` drive: c."""

    parameter_names = ("c",)

    def __init__(self, c):
        super().__init__(c=c)

    @staticmethod
    def _evaluate(p, t, order):
        if order == 0:
            return p["c"] + 0.0 * t
        return _zeros(p["c"], t)


class NullDrive(Drive):
    """MBDyn `null` drive: 0."""

    @staticmethod
    def _evaluate(p, t, order):
        return np.zeros_like(t)


class OneDrive(Drive):
    """MBDyn `unit` drive (deprecated alias `one`): 1."""

    @staticmethod
    def _evaluate(p, t, order):
        return np.ones_like(t) if order == 0 else np.zeros_like(t)


UnitDrive = OneDrive


class TimeDrive(Drive):
    """MBDyn `time` drive: t."""

    @staticmethod
    def _evaluate(p, t, order):
        if order == 0:
            return t
        return np.ones_like(t) if order == 1 else np.zeros_like(t)


class LinearDrive(Drive):
    """MBDyn `linear` drive: c0 + c1 t."""

    parameter_names = ("c0", "c1")

    def __init__(self, c0, c1):
        super().__init__(c0=c0, c1=c1)

    @staticmethod
    def _evaluate(p, t, order):
        if order == 0:
            return p["c0"] + p["c1"] * t
        if order == 1:
            return p["c1"] + 0.0 * t
        return _zeros(p["c1"], t)


class ParabolicDrive(Drive):
    """MBDyn `parabolic` drive: c0 + c1 t + c2 t^2."""

    parameter_names = ("c0", "c1", "c2")

    def __init__(self, c0, c1, c2):
        super().__init__(c0=c0, c1=c1, c2=c2)

    @staticmethod
    def _evaluate(p, t, order):
        c0, c1, c2 = p["c0"], p["c1"], p["c2"]
        if order == 0:
            return c0 + t * (c1 + t * c2)
        if order == 1:
            return c1 + 2.0 * c2 * t
        return 2.0 * c2 + 0.0 * t


class CubicDrive(Drive):
    """MBDyn `cubic` drive: c0 + c1 t + c2 t^2 + c3 t^3."""

    parameter_names = ("c0", "c1", "c2", "c3")

    def __init__(self, c0, c1, c2, c3):
        super().__init__(c0=c0, c1=c1, c2=c2, c3=c3)

    @staticmethod
    def _evaluate(p, t, order):
        c0, c1, c2, c3 = p["c0"], p["c1"], p["c2"], p["c3"]
        if order == 0:
            return c0 + t * (c1 + t * (c2 + t * c3))
        if order == 1:
            return c1 + t * (2.0 * c2 + 3.0 * c3 * t)
        return 2.0 * c2 + 6.0 * c3 * t


# --------------------------------------------------------------------------- steps and ramps


class StepDrive(Drive):
    """MBDyn `step` drive: f0 before t0, f0 + step after, (f0 + step)/2 exactly at t0."""

    parameter_names = ("initial_time", "step_value", "initial_value")

    def __init__(self, initial_time, step_value, initial_value):
        super().__init__(initial_time=initial_time, step_value=step_value, initial_value=initial_value)

    @staticmethod
    def _evaluate(p, t, order):
        t0, f0 = p["initial_time"], p["initial_value"]
        stepped = f0 + p["step_value"]
        if order == 0:
            return np.where(t > t0, stepped, np.where(t < t0, f0, 0.5 * stepped))
        return _zeros(t0, t)


class DoubleStepDrive(Drive):
    """MBDyn `double step` drive: f0 + step for t0 < t < t1, f0 outside, (f0 + step)/2 at t0 and t1."""

    parameter_names = ("initial_time", "final_time", "step_value", "initial_value")

    def __init__(self, initial_time, final_time, step_value, initial_value):
        super().__init__(initial_time=initial_time, final_time=_time_value(final_time),
                         step_value=step_value, initial_value=initial_value)

    @staticmethod
    def _evaluate(p, t, order):
        t0, t1, f0 = p["initial_time"], p["final_time"], p["initial_value"]
        stepped = f0 + p["step_value"]
        if order == 0:
            inside = (t > t0) & (t < t1)
            outside = (t < t0) | (t > t1)
            return np.where(inside, stepped, np.where(outside, f0, 0.5 * stepped))
        return _zeros(t0, t)


def _ramp_value(slope, start, end, t):
    """slope (min(t, end) - start) for t > start, else 0."""
    return np.where(t > start, slope * (np.minimum(t, end) - start), 0.0)


def _interval_rate(rate, start, end, t):
    """A derivative that holds inside (start, end): half of it at start and end (the mean of
    the one-sided values, as MBDyn does), 0 outside."""
    inside = (t > start) & (t < end)
    at_end_point = (t == start) | (t == end)
    return np.where(inside, rate, np.where(at_end_point, 0.5 * rate, 0.0))


def _ramp_slope(slope, start, end, t):
    """slope inside (start, end), slope/2 at start and end, 0 outside."""
    return _interval_rate(slope, start, end, t)


class RampDrive(Drive):
    """MBDyn `ramp` drive: f0 + slope (min(t, t1) - t0) for t > t0, else f0; t1 may be `forever`."""

    parameter_names = ("slope", "initial_time", "final_time", "initial_value")

    def __init__(self, slope, initial_time, final_time, initial_value):
        super().__init__(slope=slope, initial_time=initial_time, final_time=_time_value(final_time),
                         initial_value=initial_value)

    @staticmethod
    def _evaluate(p, t, order):
        slope, t0, t1 = p["slope"], p["initial_time"], p["final_time"]
        if order == 0:
            return p["initial_value"] + _ramp_value(slope, t0, t1, t)
        if order == 1:
            return _ramp_slope(slope, t0, t1, t)
        return _zeros(slope, t)


class DoubleRampDrive(Drive):
    """MBDyn `double ramp` drive: ascending ramp on [a_t0, a_t1] plus descending ramp on [d_t0, d_t1]."""

    parameter_names = ("ascending_slope", "ascending_initial_time", "ascending_final_time",
                       "descending_slope", "descending_initial_time", "descending_final_time",
                       "initial_value")

    def __init__(self, ascending_slope, ascending_initial_time, ascending_final_time,
                 descending_slope, descending_initial_time, descending_final_time, initial_value):
        super().__init__(ascending_slope=ascending_slope,
                         ascending_initial_time=ascending_initial_time,
                         ascending_final_time=_time_value(ascending_final_time),
                         descending_slope=descending_slope,
                         descending_initial_time=_time_value(descending_initial_time),
                         descending_final_time=_time_value(descending_final_time),
                         initial_value=initial_value)

    @staticmethod
    def _evaluate(p, t, order):
        a_slope, a_t0, a_t1 = p["ascending_slope"], p["ascending_initial_time"], p["ascending_final_time"]
        d_slope, d_t0, d_t1 = p["descending_slope"], p["descending_initial_time"], p["descending_final_time"]
        started = t > a_t0  # MBDyn adds the descending part only once the ascending one started
        if order == 0:
            descending = np.where(started, _ramp_value(d_slope, d_t0, d_t1, t), 0.0)
            return p["initial_value"] + _ramp_value(a_slope, a_t0, a_t1, t) + descending
        if order == 1:
            descending = np.where(started, _ramp_slope(d_slope, d_t0, d_t1, t), 0.0)
            return _ramp_slope(a_slope, a_t0, a_t1, t) + descending
        return _zeros(a_slope, t)


# --------------------------------------------------------------------------- harmonic drives


class _HarmonicDrive(Drive):
    """Shared parameters of `sine` and `cosine`: t0, omega, amplitude, cycles, f0."""

    parameter_names = ("initial_time", "omega", "amplitude", "initial_value", "end_time", "final_value")

    def __init__(self, initial_time, omega, amplitude, number_of_cycles, initial_value):
        self.number_of_cycles = _cycle_count(number_of_cycles)
        if float(omega) == 0.0 and self.number_of_cycles != 0:
            raise ValueError("omega must be nonzero when the number of cycles is finite")
        end_time, final_value = self._end_of_motion(
            float(initial_time), float(omega), float(amplitude), self.number_of_cycles, float(initial_value))
        super().__init__(initial_time=initial_time, omega=omega, amplitude=amplitude,
                         initial_value=initial_value, end_time=end_time, final_value=final_value)

    def __repr__(self):
        p = self.parameters
        return (f"{type(self).__name__}(initial_time={p['initial_time']!r}, omega={p['omega']!r}, "
                f"amplitude={p['amplitude']!r}, number_of_cycles={self.number_of_cycles!r}, "
                f"initial_value={p['initial_value']!r})")

    @staticmethod
    def _end_of_motion(t0, omega, amplitude, cycles, f0):
        raise NotImplementedError


class SineDrive(_HarmonicDrive):
    """MBDyn `sine` drive: f0 + A sin(omega (t - t0)) for t0 < t < t_end, f0 for t <= t0."""

    @staticmethod
    def _end_of_motion(t0, omega, amplitude, cycles, f0):
        # n > 0 (`one` = 1): ends at a zero crossing after n - 1/2 periods, then f0 (n = 1: half-sine bump)
        # n < 0 (`half` = -1): ends at a crest after |n| - 3/4 periods, then f0 + A
        # n = 0 (`forever`): never ends (omega may then be 0)
        if cycles == 0:
            return math.inf, f0
        period = 2.0 * math.pi / omega
        if cycles > 0:
            return t0 + period * (cycles - 0.5), f0
        if cycles < 0:
            return t0 + period * (-cycles - 0.75), f0 + amplitude
        return math.inf, f0

    @staticmethod
    def _evaluate(p, t, order):
        t0, omega, amplitude = p["initial_time"], p["omega"], p["amplitude"]
        t_end = p["end_time"]
        phase = omega * (t - t0)
        if order == 0:
            moving = p["initial_value"] + amplitude * np.sin(phase)
            return np.where(t <= t0, p["initial_value"], np.where(t < t_end, moving, p["final_value"]))
        if order == 1:
            rate = amplitude * omega * np.cos(phase)
        else:
            rate = -amplitude * omega * omega * np.sin(phase)
        return _interval_rate(rate, t0, t_end, t)


class CosineDrive(_HarmonicDrive):
    """MBDyn `cosine` drive: f0 + A (1 - cos(omega (t - t0))) for t0 <= t < t_end, f0 for t < t0."""

    @staticmethod
    def _end_of_motion(t0, omega, amplitude, cycles, f0):
        # n > 0 (`one` = 1): ends after n full periods, then f0
        # n < 0 (`half` = -1): ends at a crest after |n| - 1/2 periods, then f0 + 2A
        #   (`half` is the smooth f0 -> f0 + 2A transition lasting pi/omega)
        # n = 0 (`forever`): never ends (omega may then be 0)
        if cycles == 0:
            return math.inf, f0
        period = 2.0 * math.pi / omega
        if cycles > 0:
            return t0 + period * cycles, f0
        if cycles < 0:
            return t0 + period * (-cycles - 0.5), f0 + 2.0 * amplitude
        return math.inf, f0

    @staticmethod
    def _evaluate(p, t, order):
        t0, omega, amplitude = p["initial_time"], p["omega"], p["amplitude"]
        t_end = p["end_time"]
        phase = omega * (t - t0)
        if order == 0:
            moving = p["initial_value"] + amplitude * (1.0 - np.cos(phase))
            return np.where(t < t0, p["initial_value"], np.where(t < t_end, moving, p["final_value"]))
        if order == 1:
            rate = amplitude * omega * np.sin(phase)
        else:
            rate = amplitude * omega * omega * np.cos(phase)
        return _interval_rate(rate, t0, t_end, t)


# --------------------------------------------------------------------------- smooth transitions


class TanhDrive(Drive):
    """MBDyn `tanh` drive: f0 + A tanh(b (t - t0))."""

    parameter_names = ("initial_time", "amplitude", "slope", "initial_value")

    def __init__(self, initial_time, amplitude, slope, initial_value):
        super().__init__(initial_time=initial_time, amplitude=amplitude, slope=slope,
                         initial_value=initial_value)

    @staticmethod
    def _evaluate(p, t, order):
        amplitude, b = p["amplitude"], p["slope"]
        th = np.tanh(b * (t - p["initial_time"]))
        if order == 0:
            return p["initial_value"] + amplitude * th
        if order == 1:
            return amplitude * b * (1.0 - th * th)
        return -2.0 * amplitude * b * b * th * (1.0 - th * th)


class Step5Drive(Drive):
    """MBDyn `step5` drive: quintic smooth step from (t0, f0) to (t1, f1)."""

    parameter_names = ("initial_time", "initial_value", "final_time", "final_value")

    def __init__(self, initial_time, initial_value, final_time, final_value):
        super().__init__(initial_time=initial_time, initial_value=initial_value,
                         final_time=final_time, final_value=final_value)

    @staticmethod
    def _evaluate(p, t, order):
        t0, t1 = p["initial_time"], p["final_time"]
        f0, f1 = p["initial_value"], p["final_value"]
        duration = t1 - t0
        xi = np.clip((t - t0) / duration, 0.0, 1.0)
        inside = (t > t0) & (t < t1)
        if order == 0:
            return f0 + (f1 - f0) * xi**3 * (10.0 - 15.0 * xi + 6.0 * xi * xi)
        if order == 1:
            return np.where(inside, (f1 - f0) * 30.0 * xi * xi * (1.0 - xi) ** 2 / duration, 0.0)
        return np.where(inside, (f1 - f0) * 60.0 * xi * (1.0 - xi) * (1.0 - 2.0 * xi) / duration**2, 0.0)


class ExponentialDrive(Drive):
    """MBDyn `exponential` drive: f0 for t < t0, f0 + A (1 - exp(-(t - t0)/tau)) after."""

    parameter_names = ("amplitude", "time_constant", "initial_time", "initial_value")

    def __init__(self, amplitude, time_constant, initial_time, initial_value):
        super().__init__(amplitude=amplitude, time_constant=time_constant, initial_time=initial_time,
                         initial_value=initial_value)

    @staticmethod
    def _evaluate(p, t, order):
        amplitude, tau, t0 = p["amplitude"], p["time_constant"], p["initial_time"]
        decay = np.exp(-(t - t0) / tau)
        if order == 0:
            return p["initial_value"] + np.where(t > t0, amplitude * (1.0 - decay), 0.0)
        rate = amplitude / tau * decay if order == 1 else -amplitude / (tau * tau) * decay
        return np.where(t > t0, rate, np.where(t == t0, 0.5 * rate, 0.0))


# --------------------------------------------------------------------------- tabulated drive


class PiecewiseLinearDrive(Drive):
    """MBDyn `piecewise linear` drive: interpolation of (x_i, y_i), held constant outside [x_1, x_n]."""

    parameter_names = ()

    def __init__(self, points):
        points = np.asarray(points, dtype=float)
        if points.ndim != 2 or points.shape[1] != 2 or points.shape[0] < 2:
            raise ValueError("piecewise linear drive needs at least two (x, y) points")
        if np.any(np.diff(points[:, 0]) <= 0):
            raise ValueError("piecewise linear drive needs strictly increasing x values")
        self.points = points
        self.parameters = {}

    def __repr__(self):
        return f"PiecewiseLinearDrive(points={self.points.tolist()!r})"

    @classmethod
    def _stack(cls, drives):
        """Pad to the longest table: extra x are +inf (never reached), extra y repeat the last y."""
        width = max(len(drive.points) for drive in drives)
        x = np.full((len(drives), width), np.inf)
        y = np.empty((len(drives), width))
        counts = np.empty(len(drives), dtype=np.int64)
        for row, drive in enumerate(drives):
            n = len(drive.points)
            x[row, :n] = drive.points[:, 0]
            y[row, :n] = drive.points[:, 1]
            y[row, n:] = drive.points[-1, 1]
            counts[row] = n
        return {"x": x, "y": y, "count": counts}

    @staticmethod
    def _evaluate(p, t, order):
        x, y, counts = p["x"], p["y"], p["count"].reshape(-1)
        m, width = x.shape
        shape = np.broadcast_shapes(t.shape, (m,) + t.shape[1:])
        times = np.broadcast_to(t, shape).reshape(m, -1)  # (m, P)
        if order == 2:
            return np.zeros(shape)
        # number of breakpoints <= t: 0 before the table, count after it
        position = np.sum(x[:, None, :] <= times[:, :, None], axis=2)  # (m, P)
        # slopes with a zero slope before the first and after the last point: index k is the
        # slope left of breakpoint k (k = 0: before x_1; k = count: after x_n)
        dx = np.diff(x, axis=1)
        segment_slopes = np.where(np.isfinite(dx) & (dx > 0), np.diff(y, axis=1) / dx, 0.0)
        slopes = np.zeros((m, width + 1))
        slopes[:, 1:width] = segment_slopes
        slopes[np.arange(m), counts] = 0.0
        right_slope = np.take_along_axis(slopes, position, axis=1)
        left_index = np.clip(position - 1, 0, width - 1)
        x_left = np.take_along_axis(x, left_index, axis=1)
        y_left = np.take_along_axis(y, left_index, axis=1)
        if order == 0:
            before = position == 0
            after = position >= counts[:, None]
            first_y = y[:, :1]
            last_y = np.take_along_axis(y, (counts - 1)[:, None], axis=1)
            interpolated = y_left + right_slope * (times - x_left)
            value = np.where(before, first_y, np.where(after, last_y, interpolated))
            return value.reshape(shape)
        left_slope = np.take_along_axis(slopes, left_index, axis=1)
        on_breakpoint = (position > 0) & (times == x_left)
        derivative = np.where(on_breakpoint, 0.5 * (left_slope + right_slope), right_slope)
        return derivative.reshape(shape)


# --------------------------------------------------------------------------- string drive


class ExpressionDrive(Drive):
    """MBDyn `string` drive: a math expression in Time; derivatives are exact (symbolic)."""

    def __init__(self, expression, parser=None, variable="Time"):
        if isinstance(expression, Expression):
            if variable not in expression.free:
                raise ValueError(f'expression has no free variable "{variable}"')
            self.expression = expression
        else:
            parser = parser if parser is not None else MathParser()
            self.expression = parser.compile(str(expression), free=(variable,))
        self.variable = variable
        self.parameters = {}
        self._first = None
        self._second = None

    def __repr__(self):
        return f"ExpressionDrive({self.expression.text!r})"

    @property
    def text(self):
        return self.expression.text

    def expression_of_order(self, order):
        if order == 0:
            return self.expression
        if self._first is None:
            self._first = self.expression.derivative(self.variable)
        if order == 1:
            return self._first
        if self._second is None:
            self._second = self._first.derivative(self.variable)
        return self._second

    def _evaluate_single(self, t, order):
        return self.expression_of_order(order)(**{self.variable: t})

    @property
    def group_key(self):
        """Drives with equal keys give equal values and are evaluated once by DriveArray."""
        return (id(self.expression.parser), self.expression.text, self.expression.free, self.variable)


# --------------------------------------------------------------------------- vectorized container


class DriveArray:
    """Many drives evaluated together: one numpy evaluation per drive class, cached at the last t.

    values/derivatives/second_derivatives(t) return read-only arrays of shape (len(drives),) for
    scalar t, (len(drives), *t.shape) for array t.  String drives are evaluated once per distinct
    expression; if they read parser variables that change between calls at the same t, call
    clear_cache().
    """

    def __init__(self, drives: list):
        self.drives = list(drives)
        self.count = len(self.drives)
        self._groups = []  # (class, stacked parameters, indices)
        self._expression_groups = []  # (representative ExpressionDrive, indices)
        self._other = []  # drives of user classes without a group evaluation: (drive, index)
        by_class = {}
        by_expression = {}
        for index, drive in enumerate(self.drives):
            if isinstance(drive, ExpressionDrive):
                by_expression.setdefault(drive.group_key, []).append(index)
            elif type(drive)._evaluate is not Drive._evaluate:
                by_class.setdefault(type(drive), []).append(index)
            else:
                self._other.append((drive, index))
        for cls, indices in by_class.items():
            stacked = cls._stack([self.drives[i] for i in indices])
            self._groups.append((cls, stacked, np.array(indices, dtype=np.int64)))
        for key, indices in by_expression.items():
            self._expression_groups.append((self.drives[indices[0]], np.array(indices, dtype=np.int64)))
        self._cache = {}
        # drives that do not depend on time (const, null): their values once, derivatives zero
        self._constant = None
        if all(type(d) in (ConstDrive, NullDrive) for d in self.drives):
            values = np.array([d.parameters["c"] if type(d) is ConstDrive else 0.0 for d in self.drives])
            zeros = np.zeros(self.count)
            values.flags.writeable = zeros.flags.writeable = False
            self._constant = (values, zeros, zeros)

    def __len__(self):
        return self.count

    def clear_cache(self):
        self._cache = {}

    def _evaluate(self, t, order):
        scalar_time = isinstance(t, (float, int)) or np.ndim(t) == 0
        if scalar_time and self._constant is not None:
            return self._constant[order]
        if scalar_time:
            t = float(t)
            cached = self._cache.get(order)
            if cached is not None and cached[0] == t:
                return cached[1]
        t_array = np.asarray(t, dtype=float)
        out = np.empty((self.count,) + t_array.shape)
        for cls, stacked, indices in self._groups:
            out[indices] = _evaluate_group(cls, stacked, t_array, order, len(indices))
        for drive, indices in self._expression_groups:
            out[indices] = drive._evaluate_single(t_array if t_array.ndim else t, order)
        for drive, index in self._other:
            out[index] = drive._evaluate_single(t, order)
        out.flags.writeable = False
        if scalar_time:
            self._cache[order] = (t, out)
        return out

    def values(self, t) -> np.ndarray:
        return self._evaluate(t, 0)

    def derivatives(self, t) -> np.ndarray:
        return self._evaluate(t, 1)

    def second_derivatives(self, t) -> np.ndarray:
        return self._evaluate(t, 2)


# ---------------------------------------------------------------- composite drives (deck reader)

class _CompositeDrive(Drive):
    """Drives built from other drives; evaluated one by one (DriveArray keeps them apart)."""
    parameter_names = ()

    def __init__(self):
        self.parameters = {}


class SumDrive(_CompositeDrive):
    """`array, n, d1, ..., dn`: Σ d_i (manual §2.6, Array)."""

    def __init__(self, drives):
        super().__init__()
        self.drives = list(drives)

    def _evaluate_single(self, t, order):
        return sum(d._evaluate_single(t, order) for d in self.drives)


class ProductDrive(_CompositeDrive):
    """`mult, d1, d2`: d1 · d2 with product-rule derivatives."""

    def __init__(self, d1, d2):
        super().__init__()
        self.d1, self.d2 = d1, d2

    def _evaluate_single(self, t, order):
        a = [self.d1._evaluate_single(t, k) for k in range(order + 1)]
        b = [self.d2._evaluate_single(t, k) for k in range(order + 1)]
        if order == 0:
            return a[0] * b[0]
        if order == 1:
            return a[1] * b[0] + a[0] * b[1]
        return a[2] * b[0] + 2 * a[1] * b[1] + a[0] * b[2]


class ComposedDrive(_CompositeDrive):
    """`drive, outer, inner`: outer(inner(t)) with chain-rule derivatives."""

    def __init__(self, outer, inner):
        super().__init__()
        self.outer, self.inner = outer, inner

    def _evaluate_single(self, t, order):
        u = self.inner._evaluate_single(t, 0)
        if order == 0:
            return self.outer._evaluate_single(u, 0)
        du = self.inner._evaluate_single(t, 1)
        if order == 1:
            return self.outer._evaluate_single(u, 1) * du
        ddu = self.inner._evaluate_single(t, 2)
        return self.outer._evaluate_single(u, 2) * du * du + self.outer._evaluate_single(u, 1) * ddu


class PeriodicDrive(_CompositeDrive):
    """`periodic, t0, T, f`: 0 before t0, then f((t - t0) mod T)."""

    def __init__(self, t0, period, inner):
        super().__init__()
        if period <= 0:
            raise ValueError("periodic drive: the period must be positive")
        self.t0, self.period, self.inner = float(t0), float(period), inner

    def _evaluate_single(self, t, order):
        t = np.asarray(t, float)
        phase = np.mod(t - self.t0, self.period)
        value = np.where(t < self.t0, 0.0, self.inner._evaluate_single(phase, order))
        return float(value) if value.ndim == 0 else value


class ArgumentExpressionDrive(_CompositeDrive):
    """`string` drive whose text uses `Var` (the drive argument) and possibly `Time`; at top
    level both are the time, so d/dt = ∂/∂Time + ∂/∂Var."""

    def __init__(self, text, parser):
        super().__init__()
        self.expression = parser.compile(text, free=("Time", "Var"))
        e = self.expression
        self._d = [e, None, None]

    def _order(self, order):
        if self._d[order] is None:
            prev = self._order(order - 1)
            self._d[order] = (prev.derivative("Time"), prev.derivative("Var"))
        return self._d[order]

    def _evaluate_single(self, t, order):
        if order == 0:
            return self.expression(Time=t, Var=t)
        first = self._order(1)
        if order == 1:
            return first[0](Time=t, Var=t) + first[1](Time=t, Var=t)
        d2 = [first[0].derivative("Time"), first[0].derivative("Var"), first[1].derivative("Var")]
        return d2[0](Time=t, Var=t) + 2 * d2[1](Time=t, Var=t) + d2[2](Time=t, Var=t)


class PostponedDrive(_CompositeDrive):
    """`postponed, label`: the drive caller `label` defined later in the deck (manual §2.6)."""

    def __init__(self, label, registry, word):
        super().__init__()
        self.label, self.registry, self.word = label, registry, word

    @property
    def target(self):
        return self.registry[self.label]

    def _evaluate_single(self, t, order):
        return self.target._evaluate_single(t, order)


def constant_value(drive):
    """The value of a drive that is constant in time, or None."""
    while isinstance(drive, PostponedDrive):
        if drive.label not in drive.registry:
            return None
        drive = drive.target
    if isinstance(drive, ConstDrive):
        return drive.parameters["c"]
    if isinstance(drive, NullDrive):
        return 0.0
    if isinstance(drive, OneDrive):
        return 1.0
    return None
