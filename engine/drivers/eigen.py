"""Direct eigenanalysis of the linearized problem (MBDyn input manual §4.1.1, Eigenanalysis).

The iteration matrix J(dCoef) = f/ẏ + dCoef f/y is assembled at +c and -c (c: `parameter`,
default 1):  J(+c) = Aplus, J(-c) = Aminus.  A free motion y = v e^{λt} of the linearized
equations satisfies (λ f/ẏ + f/y) v = 0, hence

    J(-c) v = Λ J(+c) v,   Λ = (1 + cλ)/(1 - cλ),   λ = (Λ - 1)/(c (Λ + 1))

(the manual's discrete-time eigenvalue and its transform back to continuous time).  Rows and
columns of algebraic unknowns (multipliers) are rescaled so that they give λ = ∞ (Λ = -1),
left out (see algebraic_pencil).  `use lapack` solves the dense pencil with the QZ algorithm
(scipy.linalg.eig, LAPACK dggev; the `balance` option is read but scipy has no dggevx, so no
balancing is applied); `use arpack, nev, ncv, tol` uses scipy's ARPACK (eigs) in shift-invert
mode on (f/y + σ f/ẏ)⁻¹ f/ẏ, σ = 2π·√(lower·upper frequency limit) (or 2π·lower): the nev
eigenvalues λ nearest σ.

Output: the summary table of the selected modes in the .out file, and with `output ...`
options an Octave file PREFIX_<k>.m with dCoef, alpha = [Re α, Im α, β] (Λ = α/β),
VR, VL, Aplus, Aminus, X0, idx (manual: "Output" paragraph of the eigenanalysis card)."""
from dataclasses import dataclass
import numpy as np
import scipy.sparse as sp

from mbdae.engine.core import rotations as rot


@dataclass
class EigenSettings:
    times: tuple                       # analyses at the first step with Time ≥ each value
    parameter: float = 1.0             # c of J(±c)
    lower_frequency: float = None      # Hz: keep complex eigenvalues with Im λ/2π > lower
    upper_frequency: float = None      # Hz: ... and < upper
    method: str = "lapack"             # "lapack", "arpack", or None: matrices only, no solve
    balance: str = "permute"           # read, not applied (see the module docstring)
    arpack: tuple = None               # (nev, ncv, tol)
    output_matrices: str = None        # None, "full" or "sparse"
    output_eigenvectors: bool = False
    output_geometry: bool = False
    suffix_width: int = None           # None: "compute" (digits of the largest index)
    suffix_format: str = None          # e.g. "%03d"
    matrix_precision: int = 16
    results_precision: int = 16

    def __post_init__(self):
        if len(self.times) == 0:
            raise ValueError("eigenanalysis: at least one time is needed")
        if self.parameter == 0:
            raise ValueError("eigenanalysis: the parameter must not be zero")
        if self.method not in ("lapack", "arpack", None):
            raise ValueError(f"eigenanalysis: unknown method {self.method!r}")
        if self.method == "arpack" and (self.arpack is None or self.arpack[0] < 1):
            raise ValueError("eigenanalysis: use arpack needs nev ≥ 1, ncv, tol")
        if (self.lower_frequency is not None and self.upper_frequency is not None
                and self.upper_frequency <= self.lower_frequency):
            raise ValueError("eigenanalysis: upper frequency limit must exceed the lower one")


@dataclass
class EigenResult:
    time: float
    dcoef: float
    alpha: np.ndarray          # complex α of every computed eigenvalue (Λ = α/β)
    beta: np.ndarray
    lam: np.ndarray            # continuous-time eigenvalues (inf for Λ = -1)
    selected: np.ndarray       # indices (into alpha/lam) of the modes passing the filters
    VR: np.ndarray = None      # right eigenvectors of the selected modes (columns)
    VL: np.ndarray = None

    @property
    def frequencies(self):
        """Frequencies (Hz) of the selected modes, Im λ / 2π, in the order of `selected`."""
        return self.lam[self.selected].imag / (2 * np.pi)


def pencil(system, state, c):
    """(Aplus, Aminus) = (J(+c), J(-c)) at `state` (sparse CSC)."""
    keep = getattr(system, "last_kinematics", None)
    Jp = system.evaluate(state, c, mode="regular", want_abs=False)[2]
    Jm = system.evaluate(state, -c, mode="regular", want_abs=False)[2]
    system.last_kinematics = keep
    return sp.csc_matrix(Jp), sp.csc_matrix(Jm)


def algebraic_pencil(system, Jp, Jm, c):
    """(f/ẏ, f/y, column flags): J(±c) split, algebraic rows and columns rescaled.

    Multiplier columns and constraint rows that do not depend on dCoef sit wholly in f/ẏ;
    there they give 2 spurious λ = 0 per constraint (such rows and columns are homogeneous of
    degree one in λ).  Dividing those columns (the unknowns become μ/λ) and those rows by λ
    leaves every nonzero eigenvalue unchanged and sends the spurious ones to λ = ∞.  Applied
    only when consistent (no entry on such a row and such a column at once); otherwise the
    pencil is used as assembled.  Returns the flags of the divided columns (t: ṽ = v/λ there)."""
    fyp = sp.csr_matrix((Jp + Jm) * 0.5)
    fy = sp.csr_matrix((Jp - Jm) * (0.5 / c))
    fyp.eliminate_zeros()
    fy.eliminate_zeros()
    n = fyp.shape[0]
    alg = system.is_alg
    none = np.zeros(n, bool)
    if not alg.any():
        return fyp.tocsc(), fy.tocsc(), none
    Y = fy.tocoo()
    has_fy_row = np.zeros(n, bool)
    has_fy_col = np.zeros(n, bool)
    has_fy_row[Y.row] = True
    has_fy_col[Y.col] = True
    tcol = alg & ~has_fy_col
    C = fyp.tocoo()
    # a row counts as f/ẏ-only (divided by λ) only if it has f/ẏ entries outside the divided
    # columns: an element-internal unknown decoupled from every other (an EAS mode of a
    # rectangular shell) has its one entry in its own column, which the column division moves
    has_fyp_out = np.zeros(n, bool)
    has_fyp_out[C.row[~tcol[C.col]]] = True
    srow = alg & ~has_fy_row & has_fyp_out
    both = srow[C.row] & tcol[C.col]
    if np.any(both):
        return fyp.tocsc(), fy.tocsc(), none
    move = srow[C.row] | tcol[C.col]
    moved = sp.csr_matrix((C.data[move], (C.row[move], C.col[move])), shape=C.shape)
    kept = sp.csr_matrix((C.data[~move], (C.row[~move], C.col[~move])), shape=C.shape)
    return kept.tocsc(), (fy + moved).tocsc(), tcol


def continuous(alpha, beta, c):
    """λ = (Λ - 1)/(c (Λ + 1)) with Λ = α/β; ∞ where Λ = -1 (algebraic unknowns)."""
    den = c * (alpha + beta)
    num = alpha - beta
    tiny = np.abs(den) <= 1e-12 * np.maximum(np.abs(alpha), np.abs(beta))
    lam = np.where(tiny, np.inf + 0j, num / np.where(tiny, 1.0, den))
    return lam


def select(lam, lower=None, upper=None):
    """Indices of finite eigenvalues inside the limits (complex ones only when a limit is
    given), sorted by frequency Im λ."""
    ok = np.isfinite(lam)
    if lower is not None:
        ok &= lam.imag > 2 * np.pi * lower
    if upper is not None:
        ok &= lam.imag < 2 * np.pi * upper
    idx = np.flatnonzero(ok)
    return idx[np.lexsort((lam[idx].real, lam[idx].imag))]


def analyze(system, state, settings, want_vectors=None):
    """Eigenanalysis of the system linearized at `state` (settings: EigenSettings)."""
    # scipy's dense and sparse eigensolvers only where an eigenanalysis runs (start-up time)
    import scipy.linalg as sla
    import scipy.sparse.linalg as spla
    c = settings.parameter
    Jp, Jm = pencil(system, state, c)
    vectors = settings.output_eigenvectors if want_vectors is None else want_vectors
    VL = VR = None
    fyp, fy, divided = algebraic_pencil(system, Jp, Jm, c)
    if settings.method is None:             # MBDyn without `use ...`: matrices only
        alpha = beta = np.zeros(0, complex)
    elif settings.method == "lapack":
        out = sla.eig((fyp - c * fy).toarray(), (fyp + c * fy).toarray(), left=vectors, right=vectors,
                      homogeneous_eigvals=True)
        w = out[0] if vectors else out
        alpha, beta = w[0], w[1]
        if vectors:
            VL, VR = out[1], out[2]
    else:
        nev, ncv, tol = settings.arpack
        # shift-invert about σ (2π·√(lower·upper), 2π·lower, or just above 0 so that rigid modes
        # do not make the shifted matrix singular):  (f/y + σ f/ẏ)⁻¹ f/ẏ v = μ v,  λ = σ - 1/μ; the ∞ eigenvalues
        # of the algebraic unknowns map to μ = 0 and are never returned
        lo, up = settings.lower_frequency, settings.upper_frequency
        sigma = 2 * np.pi * (np.sqrt(lo * up) if lo and up else lo if lo else 1e-3 / c)
        lu = spla.splu(sp.csc_matrix(fy + sigma * fyp))
        op = spla.LinearOperator(Jp.shape, matvec=lambda x: lu.solve(fyp @ x), dtype=float)
        n = Jp.shape[0]
        ncv = min(max(ncv, 2 * nev + 1), n - 1) if ncv else None
        mu, V = spla.eigs(op, k=min(nev, n - 2), ncv=ncv, tol=tol, which="LM")
        lam_c = sigma - 1.0 / mu
        alpha = (1 + c * lam_c) / (1 - c * lam_c)        # Λ, with β = 1
        beta = np.ones_like(alpha)
        VR = V if vectors else None
    lam = continuous(alpha, beta, c)
    sel = select(lam, settings.lower_frequency, settings.upper_frequency)
    res = EigenResult(state.t, c, alpha, np.real(beta), lam, sel)
    if VR is not None:
        res.VR = VR[:, sel]
    if VL is not None:
        res.VL = VL[:, sel]
    res.Aplus, res.Aminus = Jp, Jm
    res.divided_columns = divided          # eigenvector entries there are (true entry)·λ
    return res


def summary_lines(res):
    """The .out table of the selected modes in the solver's order (as MBDyn's): number,
    Re, Im (signed), damping % = -100 Re/|λ|, frequency Im/2π (Hz)."""
    lines = ["Mode n.       Real           Imag             Damp %     Freq Hz"]
    for k in np.sort(res.selected):
        lam = res.lam[k]
        mag = abs(lam)
        damp = -100.0 * lam.real / mag if mag > 0 else 0.0
        lines.append(f"{k + 1:8d}: {lam.real:12.6g} + {lam.imag:12.6g} j "
                     f"{damp:15.6g} {lam.imag / (2 * np.pi):15.6g}")
    return lines


def suffix(settings, index):
    if settings.suffix_format:
        return settings.suffix_format % index
    width = settings.suffix_width
    if width is None:
        width = len(str(len(settings.times) - 1))
    return f"{index:0{width}d}"


def _matrix_text(name, A, p):
    rows = [" ".join(f"{v:.{p}e}" for v in row) for row in A]
    return f"{name} = [\n" + ";\n".join(rows) + "\n];\n"


def _complex_text(name, A, p):
    def z(v):
        return f"{v.real:.{p}e}{'+' if v.imag >= 0 else '-'}{abs(v.imag):.{p}e}i"
    rows = [" ".join(z(v) for v in row) for row in A]
    return f"{name} = [\n" + ";\n".join(rows) + "\n];\n"


def write_octave(path, res, settings, system, state):
    """The .m file: what the card's output options ask for (Octave syntax)."""
    p, q = settings.matrix_precision, settings.results_precision
    parts = [f"% mbdae eigenanalysis at time {res.time:.16g}\n", f"dCoef = {res.dcoef:.{q}e};\n"]
    if settings.output_matrices == "full":
        parts += [_matrix_text("Aplus", res.Aplus.toarray(), p), _matrix_text("Aminus", res.Aminus.toarray(), p)]
    elif settings.output_matrices == "sparse":
        for name, A in (("Aplus", res.Aplus), ("Aminus", res.Aminus)):
            C = A.tocoo()
            trip = np.column_stack([C.row + 1, C.col + 1, C.data])
            parts.append(f"{name} = spconvert([\n" + "\n".join(
                f"{int(i)} {int(j)} {v:.{p}e}" for i, j, v in trip) + f"\n{A.shape[0]} {A.shape[1]} 0\n]);\n")
    if settings.output_eigenvectors:
        s = res.selected
        al = np.column_stack([res.alpha[s].real, res.alpha[s].imag, res.beta[s]])
        parts.append(_matrix_text("alpha", al, q))
        if res.VR is not None:
            parts.append(_complex_text("VR", res.VR, q))
        if res.VL is not None:
            parts.append(_complex_text("VL", res.VL, q))
    if settings.output_geometry:
        kin = system.kinematics(state)
        X0 = np.concatenate([np.concatenate([kin.x[i], rot.log_rotvec(kin.R[i])]) for i in range(system.nodes.n)])
        parts.append(_matrix_text("X0", X0[:, None], q))
        parts.append(_matrix_text("idx", system.nodes.ix[:, 0][:, None].astype(float), 0))
    with open(path, "w") as f:
        f.writelines(parts)


class EigenSchedule:
    """The analyses of one run: which `when` values are still due, and their output."""

    def __init__(self, settings):
        self.settings = settings
        self.pending = list(enumerate(sorted(settings.times)))
        self.results = []

    def due(self, t, before_derivatives=False, eps=0.0):
        """Pop and return the index of the analysis to run at time t (None if none is due)."""
        if not self.pending:
            return None
        k, when = self.pending[0]
        if before_derivatives:
            hit = when < t - eps
        else:
            hit = when <= t + eps
        if not hit:
            return None
        # several times passed within one step: one analysis, numbered by the first
        while self.pending and self.pending[0][1] <= t + eps:
            self.pending.pop(0)
        return k

    def run(self, problem, state, index):
        res = analyze(problem.system, state, self.settings)
        self.results.append(res)
        if self.settings.method is not None:
            n_all = int(np.isfinite(res.lam).sum())
            problem.log(f"# Eigenanalysis {index} at time {state.t:g}: {len(res.lam)} eigenvalues "
                        f"({n_all} finite), {len(res.selected)} selected")
            for line in summary_lines(res):
                problem.log(line)
        s = self.settings
        prefix = problem.settings.output_prefix
        if prefix and (s.output_eigenvectors or s.output_matrices or s.output_geometry):
            write_octave(f"{prefix}_{suffix(s, index)}.m", res, s, problem.system, state)
        return res
