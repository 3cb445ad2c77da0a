"""Output meters (MBDyn input manual, control data, "Output Meter"): which steps write output.
The initial-value driver asks `due(t, step)` once per accepted step, step 0 (the initial
configuration, always written, as MBDyn forces it) first; a meter keeps its own state from
step 0 on, so one object serves one run at a time.

* DriveMeter: a drive; output when its value at t is not zero.
* ClosestNextMeter: MBDyn's `closest next, t_start, {forever | t_end}, (DriveCaller) Δ`
  (manual, drive callers, "Closest next drive"), stepped as MBDyn steps it: at each new step
  its threshold first moves past the step's time by whole increments if it fired at the
  previous step, else it fires when the time has reached the threshold; output when it fires
  and t_start ≤ t ≤ t_end."""
import math


class DriveMeter:
    """Output at the steps where `drive(t)` is not zero."""

    def __init__(self, drive):
        self.drive = drive

    def due(self, t, step):
        return step == 0 or float(self.drive.value(t)) != 0.0


class ClosestNextMeter:
    """MBDyn's closest-next meter (see the module docstring); `increment` is a scalar drive,
    read at the step's time when the threshold moves."""

    def __init__(self, start, end, increment):
        self.start = float(start)
        self.end = math.inf if end is None else float(end)
        self.increment = increment
        self.reset()

    def reset(self):
        self.next = self.start
        self.must_set = False

    def due(self, t, step):
        if step == 0:
            self.reset()
            return True
        if self.must_set:
            while t >= self.next:
                inc = float(self.increment.value(t))
                if not inc > 0.0:
                    raise ValueError(f"closest next output meter: the increment must be positive, got {inc:g}")
                self.next += inc
            self.must_set = False
        elif t >= self.next:
            self.must_set = True
        return self.start <= t <= self.end and t >= self.next
