"""The time span of a run (manual §4.1.1: initial time, final time, time step), checked
before anything is built, for the API, the deck reader and the command line alike."""
import numpy as np

from mbdae.engine.errors import InputError


class InvalidTimeSettings(InputError):
    """Initial time, final time or time step that cannot make a run; `setting` names which
    (initial_time, final_time or time_step), so that a reader can point at its card."""

    def __init__(self, message, setting):
        super().__init__(message)
        self.setting = setting


MANY_STEPS = 1e8        # a step count beyond this is reported: a wrong exponent, not a plan


def check_time_span(initial_time, final_time, time_step, empty=False):
    """The time settings of a run, checked before anything is built (manual §4.1.1; MBDyn
    warns and aborts on a final time not after the initial one and takes |h| of a negative
    step; mbdae refuses both).  `empty`: a final time equal to the initial one is a run of no
    step (the API's way to get the initial assembly and derivatives alone).  Raises
    InvalidTimeSettings; returns a warning line for a step so small that the run would not
    end in practice, else None."""
    for what, value in (("initial time", initial_time), ("final time", final_time), ("time step", time_step)):
        if not np.isfinite(value):
            raise InvalidTimeSettings(f"the {what} is {value}: it must be a finite number", what.replace(" ", "_"))
    if time_step <= 0:
        raise InvalidTimeSettings(f"the time step is {time_step:g}: it must be positive", "time_step")
    if final_time < initial_time or (final_time == initial_time and not empty):
        raise InvalidTimeSettings(f"the final time {final_time:g} is not after the initial time {initial_time:g}: "
                                  f"there is nothing to run", "final_time")
    steps = (final_time - initial_time) / time_step
    if steps > MANY_STEPS:
        return (f"the time step {time_step:g} makes {steps:.3g} steps from {initial_time:g} to {final_time:g} "
                f"(is its exponent right?)")
    return None
