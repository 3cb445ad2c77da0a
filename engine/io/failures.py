"""Write failures of the output files, named: every writer raises OutputError with the file,
the step and the step the files end on."""


class OutputError(OSError):
    """A file of the run's output could not be written: the message names the file, the
    step and what the files end on (they were truncated back to the last whole step)."""

    def __str__(self):
        return self.strerror


def write_failure(path, error, step=None, t=None, last=None):
    """OutputError for `error` (an OSError) writing `path` at `step` (None: on opening);
    `last`: the last whole step the files keep (None: none)."""
    at = "" if step is None else f" at step {step}" + ("" if t is None else f" (t = {t:.10g})")
    why = error.strerror or str(error)
    ends = "" if step is None else ("; output ends at step " + str(last) if last is not None
                                    else "; no step was written")
    e = OutputError(error.errno, f"cannot write {path}{at}: {why}{ends}")
    e.filename = path
    return e
