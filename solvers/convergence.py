"""Convergence tests (manual §3.6): norm, minmax, relnorm, sepnorm on the residual, and
norm/minmax on the solution increment.

relnorm = ‖f‖/‖f̃‖ with f̃_i = Σ_e |f_i(e)|; sepnorm = max over physical-dimension groups
of ‖f_[j]‖/‖f̃_[j]‖, where a group counts as zero if ‖f̃_[j]‖ = 0, or if its ratio exceeds
ε1 while ‖f̃_[j]‖ < ε2 max_k ‖f̃_[k]‖ (ε1 = 1e-1, ε2 = 1e-5)."""
import numpy as np

from mbdae.engine.core.compiled import norm2, all_finite

SEPNORM_EPS1 = 1e-1
SEPNORM_EPS2 = 1e-5
RESIDUAL_TESTS = ("none", "norm", "minmax", "relnorm", "sepnorm")
SOLUTION_TESTS = ("none", "norm", "minmax")


class SimulationDiverged(RuntimeError):
    """Non-finite values in the residual or solution."""


def _finite(v, what):
    if not all_finite(v):
        raise SimulationDiverged(f"non-finite {what}")


def _norm(v):
    """2-norm, compiled (no BLAS: OpenBLAS's threaded ddot costs milliseconds on long vectors
    when the cores are busy, measured 10 ms for 15 000 entries on a loaded 2-core machine)."""
    return norm2(v)


def norm_test(f):
    return _norm(f)


def minmax_test(f):
    return float(np.max(np.abs(f))) if len(f) else 0.0


def relnorm_test(f, fabs):
    den = _norm(fabs)
    return 0.0 if den == 0.0 else _norm(f) / den


def sepnorm_test(f, fabs, dim, eps1=SEPNORM_EPS1, eps2=SEPNORM_EPS2):
    """Max over dimension groups; inactive groups (rules of §3.6) are ignored."""
    ngroups = int(dim.max()) + 1 if len(dim) else 0
    num = np.sqrt(np.bincount(dim, weights=f * f, minlength=ngroups))
    den = np.sqrt(np.bincount(dim, weights=fabs * fabs, minlength=ngroups))
    present = np.bincount(dim, minlength=ngroups) > 0
    ratio = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    dmax = den[present].max() if np.any(present) else 0.0
    inactive = (den == 0) | ((ratio > eps1) & (den < eps2 * dmax)) | ~present
    ratio = np.where(inactive, 0.0, ratio)
    return float(ratio.max()) if len(ratio) else 0.0


def residual_error(kind, f, fabs=None, dim=None, reduction=None):
    """The residual test `kind` of f (and f̃, the rows' dimension groups); with a
    DistributedReduction, of the residual of every process (each holding its owned rows)."""
    if reduction is not None:
        return reduction.residual_error(kind, f, fabs, dim)
    _finite(f, "residual")
    if kind == "norm":
        return norm_test(f)
    if kind == "minmax":
        return minmax_test(f)
    if kind == "relnorm":
        return relnorm_test(f, fabs)
    if kind == "sepnorm":
        return sepnorm_test(f, fabs, dim)
    if kind == "none":
        return 0.0
    raise ValueError(f"unknown residual test '{kind}' (one of {RESIDUAL_TESTS})")


def solution_error(kind, dx, reduction=None):
    if reduction is not None:
        return reduction.solution_error(kind, dx)
    _finite(dx, "solution increment")
    if kind == "norm":
        return norm_test(dx)
    if kind == "minmax":
        return minmax_test(dx)
    if kind == "none":
        return 0.0
    raise ValueError(f"unknown solution test '{kind}' (one of {SOLUTION_TESTS})")


class DistributedReduction:
    """The convergence tests of a system distributed over MPI processes (engine/distributed.py):
    each process holds the rows it owns (`owned`, a mask over its local rows) and the tests
    add their partial sums, or take the maxima, over every process with one MPI Allreduce
    (`comm`, mpi4py's communicator; `MPI`, the mpi4py module).  The result, and a non-finite
    value anywhere, are the same on every process, so every process takes the same decision.
    The sums run in another order than a serial run's: the errors agree to rounding."""

    def __init__(self, comm, MPI, owned):
        self.comm, self.MPI = comm, MPI
        self.owned = np.asarray(owned, bool)

    def _sum(self, values):
        values = np.ascontiguousarray(values, float)
        total = np.empty_like(values)
        self.comm.Allreduce(values, total, op=self.MPI.SUM)
        return total

    def _max(self, values):
        values = np.ascontiguousarray(values, float)
        top = np.empty_like(values)
        self.comm.Allreduce(values, top, op=self.MPI.MAX)
        return top

    def residual_error(self, kind, f, fabs=None, dim=None):
        o = self.owned
        f = f[o]
        bad = 0.0 if all_finite(f) else 1.0
        if kind not in RESIDUAL_TESTS:
            raise ValueError(f"unknown residual test '{kind}' (one of {RESIDUAL_TESTS})")
        if kind in ("norm", "relnorm"):
            parts = [bad, float(np.dot(f, f))]
            if kind == "relnorm":
                a = fabs[o]
                parts.append(float(np.dot(a, a)))
            total = self._sum(parts)
            if total[0]:
                raise SimulationDiverged("non-finite residual")
            if kind == "norm":
                return float(np.sqrt(total[1]))
            return 0.0 if total[2] == 0.0 else float(np.sqrt(total[1]) / np.sqrt(total[2]))
        if kind in ("minmax", "none"):
            top = self._max([bad, float(np.max(np.abs(f))) if len(f) and not bad else 0.0])
            if top[0]:
                raise SimulationDiverged("non-finite residual")
            return float(top[1]) if kind == "minmax" else 0.0
        # sepnorm: the groups' sums of squares and row counts over every process
        d = dim[o]
        ngroups = int(self._max([d.max() if len(d) else 0])[0]) + 1
        a = fabs[o]
        total = self._sum(np.concatenate([[bad], np.bincount(d, weights=f * f, minlength=ngroups),
                                          np.bincount(d, weights=a * a, minlength=ngroups),
                                          np.bincount(d, minlength=ngroups)]))
        if total[0]:
            raise SimulationDiverged("non-finite residual")
        num, den, count = np.sqrt(total[1:1 + ngroups]), np.sqrt(total[1 + ngroups:1 + 2 * ngroups]), \
            total[1 + 2 * ngroups:]
        present = count > 0
        ratio = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        dmax = den[present].max() if np.any(present) else 0.0
        inactive = (den == 0) | ((ratio > SEPNORM_EPS1) & (den < SEPNORM_EPS2 * dmax)) | ~present
        ratio = np.where(inactive, 0.0, ratio)
        return float(ratio.max()) if len(ratio) else 0.0

    def solution_error(self, kind, dx):
        dx = dx[self.owned]
        bad = 0.0 if all_finite(dx) else 1.0
        if kind == "norm":
            total = self._sum([bad, float(np.dot(dx, dx))])
            value = float(np.sqrt(total[1]))
        elif kind in ("minmax", "none"):
            total = self._max([bad, float(np.max(np.abs(dx))) if len(dx) and not bad else 0.0])
            value = float(total[1]) if kind == "minmax" else 0.0
        else:
            raise ValueError(f"unknown solution test '{kind}' (one of {SOLUTION_TESTS})")
        if total[0]:
            raise SimulationDiverged("non-finite solution increment")
        return value
