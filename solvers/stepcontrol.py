"""Time-step control between steps (manual §4.1.1 `strategy`; MBDyn's TimeStepControl).

The problem driver asks a strategy for the next step after a failed attempt
(`after_failure`, None = give up) and after an accepted step (`after_step`).

* `HalvingStrategy` (mbdae's default, no `strategy` card): a failed step is halved down to
  the minimum step; after an easy step (≤ 3 Newton iterations) it doubles back up to the
  maximum step.
* `FactorStrategy` (`strategy: factor, reduction factor, steps before reduction, raise
  factor, steps before raise, min iterations [, max iterations]`): MBDyn's rules.  A failed
  step is retried with h·reduction; when that would go below `min time step`, one last
  chance at exactly the minimum step, then the run stops.  After an accepted step: more
  than `max iterations` Newton iterations reduce the step (not below the minimum); at most
  `min iterations` raise it by the raise factor (not above `max time step`) once more than
  `steps before reduction` steps have passed since the last reduction and more than
  `steps before raise` since the last raise.
* `ChangeStrategy` (`strategy: change, (DriveCaller) time step pattern`): the step after an
  accepted step is the drive's value at the time just reached, clipped to [min time step, max
  time step] (MBDyn's defaults: none); the first step is `time step`.  A failed step is
  retried only if the drive, asked at the failed step's end time, gives a smaller step;
  otherwise the run stops (manual §4.1.1: "if the time step returned by the drive caller does
  not change when a step needs to be repeated, the analysis is interrupted").
"""


class HalvingStrategy:
    def __init__(self, min_step, max_step):
        self.min_step, self.max_step = min_step, max_step

    def after_failure(self, h, t=None):
        return h / 2 if h / 2 >= self.min_step * (1 - 1e-12) else None

    def after_step(self, h_nominal, h, iterations, t=None):
        if h < h_nominal:
            return h
        if h_nominal < self.max_step and iterations <= 3:
            return min(2 * h_nominal, self.max_step)
        return h_nominal


class FactorStrategy:
    def __init__(self, min_step, max_step, reduction_factor, steps_before_reduction, raise_factor,
                 steps_before_raise, min_iterations, max_iterations=None):
        if not 0.0 < reduction_factor < 1.0:
            raise ValueError(f"strategy factor: the reduction factor must lie in (0, 1), got {reduction_factor}")
        if raise_factor < 1.0:
            raise ValueError(f"strategy factor: the raise factor must be at least 1, got {raise_factor}")
        if min_step > max_step:
            raise ValueError(f"inconsistent min/max time step ({min_step:g} > {max_step:g})")
        self.min_step, self.max_step = min_step, max_step
        self.reduction, self.raise_ = reduction_factor, raise_factor
        self.steps_before_reduction, self.steps_before_raise = steps_before_reduction, steps_before_raise
        self.min_iterations = min_iterations
        self.max_iterations = max_iterations
        self.last_chance = False
        self.since_reduction = 0
        self.since_raise = 0

    def after_failure(self, h, t=None):
        if h * self.reduction > self.min_step:
            self.last_chance = False
            self.since_reduction = 0
            return h * self.reduction
        if not self.last_chance and h > self.min_step:
            self.last_chance = True
            self.since_reduction = 0
            return self.min_step
        return None

    def after_step(self, h_nominal, h, iterations, t=None):
        self.since_reduction += 1
        self.since_raise += 1
        if self.max_iterations is not None and iterations > self.max_iterations:
            self.since_reduction = 0
            self.last_chance = False
            return max(h * self.reduction, self.min_step)
        if (iterations <= self.min_iterations and self.since_reduction > self.steps_before_reduction
                and self.since_raise > self.steps_before_raise and h < self.max_step):
            self.since_raise = 0
            return min(h * self.raise_, self.max_step)
        return h


class ChangeStrategy:
    """The step from a drive of time (`strategy: change`): h_{n+1} = drive(t_n) clipped to
    [min_step, max_step]; see the module docstring."""

    def __init__(self, min_step, max_step, drive):
        if min_step > max_step:
            raise ValueError(f"inconsistent min/max time step ({min_step:g} > {max_step:g})")
        self.min_step, self.max_step, self.drive = min_step, max_step, drive

    def step_at(self, t):
        """The drive's step at time t, clipped; a step that is not positive is an error."""
        h = float(self.drive.value(t))
        if not h > 0.0:
            raise ValueError(f"strategy: change: the time step drive gives {h:g} at time {t:.10g} "
                             "(a time step must be positive)")
        return min(max(h, self.min_step), self.max_step)

    def after_failure(self, h, t=None):
        h_new = self.step_at(t)
        return h_new if h_new < h else None

    def after_step(self, h_nominal, h, iterations, t=None):
        return self.step_at(t)


def make_strategy(strategy, min_step, max_step, method):
    """Strategy from Settings.strategy: None (halving), ("factor", reduction, steps before
    reduction, raise, steps before raise, min iterations[, max iterations]) or ("change",
    drive).  A method that cannot change its step (ms3, ms4) cannot take either: clear error."""
    if strategy is None:
        return HalvingStrategy(min_step, max_step)
    kind, *args = strategy
    if kind not in ("factor", "change"):
        raise ValueError(f"unknown time-step strategy '{kind}' (factor, change)")
    if not getattr(method, "variable_step", True):
        raise ValueError(f"{method.name} cannot change the time step (its coefficients exist for a "
                         f"constant step only), so 'strategy: {kind}' is not available with it")
    if kind == "change":
        if len(args) != 1 or not hasattr(args[0], "value"):
            raise ValueError("strategy: change needs one drive (the time step as a function of time)")
        return ChangeStrategy(min_step, max_step, args[0])
    if len(args) not in (5, 6):
        raise ValueError("strategy: factor needs reduction factor, steps before reduction, raise "
                         "factor, steps before raise, min iterations[, max iterations]")
    return FactorStrategy(min_step, max_step, *args)
