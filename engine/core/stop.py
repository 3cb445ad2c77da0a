"""Stopping a run cleanly: signals, and steps that are written whole or not at all.

* `stop_on_signals()` (installed by the `mbdae run` command only, restored afterwards): SIGINT
  and SIGTERM set a flag.  Inside a driver's step loop (`step_loop()`) the flag is checked
  between steps (`between_steps()`), so the step being computed or written is finished
  first; a second signal while a step is computed stops at once (the step is dropped).
  While a step's output is written (`writing()`) a signal only sets the flag, whatever
  its number.  Outside both (reading the deck, compiling kernels, initial assembly) a
  signal stops at once.  The stop is a `StopRequested`, a KeyboardInterrupt that knows the
  signal and its exit status (128 + signal number: 130 for SIGINT, 143 for SIGTERM).
* `publish_step(observers, event)`: each observer formats the step (`step(event)`), then
  the observers that write files commit it (`commit_step()`), under `writing()`; when one
  fails (a write error, or a KeyboardInterrupt of an API run without the handlers) the
  ones that had committed it take it back (`rollback_step()`), so every file of every
  observer ends on the same whole step.

Without `stop_on_signals()` (the Python API) Ctrl-C raises the ordinary KeyboardInterrupt
wherever it lands; the writers still roll back a step it cuts."""
import signal
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequested(KeyboardInterrupt):
    """The run stopped on a signal; `step`, `t`: the last whole step (set by the driver)."""

    def __init__(self, signum, during="setup"):
        super().__init__(signum)
        self.signum = int(signum)
        self.during = during    # where the signal came: "setup", "step" (computing one), "writing"
        self.step = None
        self.t = None

    @property
    def name(self):
        return signal.Signals(self.signum).name

    @property
    def exit_code(self):
        return 128 + self.signum

    def __str__(self):
        return f"stopped by {self.name}"


class _Flag:
    installed = False   # stop_on_signals() is active
    pending = None      # (signal number, where it came) received and not yet acted on
    loop = 0            # inside a step loop: act between steps
    writing = 0         # writing a step: act afterwards


_flag = _Flag()


def _handler(signum, frame):
    again = _flag.pending is not None
    where = "writing" if _flag.writing else "step" if _flag.loop else "setup"
    if not again or where == "writing":
        _flag.pending = (signum, where)
    if _flag.writing or (_flag.loop and not again):
        return
    _flag.pending = None
    raise StopRequested(signum, where)


@contextmanager
def stop_on_signals(signals=STOP_SIGNALS):
    """SIGINT and SIGTERM stop the run between steps (see the module docstring); the
    previous handlers come back on exit."""
    previous = {s: signal.signal(s, _handler) for s in signals}
    _flag.installed, _flag.pending = True, None
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _flag.installed, _flag.pending = False, None


def between_steps():
    """Raise the StopRequested of a signal received since the last check."""
    pending = _flag.pending
    if pending is not None:
        _flag.pending = None
        raise StopRequested(*pending)


@contextmanager
def step_loop():
    """A driver's step loop: a signal stops the run at the next between_steps()."""
    _flag.loop += 1
    try:
        yield
    finally:
        _flag.loop -= 1


@contextmanager
def writing():
    """A step's files being written: a signal waits until they are; outside a step loop
    it then stops the run."""
    _flag.writing += 1
    try:
        yield
    finally:
        _flag.writing -= 1
    if not _flag.writing and not _flag.loop:
        between_steps()


def publish_step(observers, event):
    """The step event to every observer, then committed by those that write files, all or
    none (see the module docstring)."""
    writers = [obs for obs in observers if hasattr(obs, "commit_step")]
    try:
        for obs in observers:
            obs.step(event)
    except BaseException:
        for obs in writers:
            obs.discard_step()
        raise
    if not writers:
        return
    try:
        with writing():
            done = []
            try:
                for obs in writers:
                    obs.commit_step()
                    done.append(obs)
            except BaseException:
                for obs in done:
                    obs.rollback_step()
                raise
    except StopRequested as stop:       # received while writing, outside a step loop: the step is whole
        if stop.step is None:
            stop.step, stop.t = event.step, float(event.t)
        raise
