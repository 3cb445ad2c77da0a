"""Timing helper shared by the benchmark scripts (run as `python benchmarks/NAME.py`, so this
folder is on the import path)."""
import time


def best_of(f, repeat):
    """The shortest wall time (s) of `repeat` calls of f()."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)
