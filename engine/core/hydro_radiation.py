"""Radiation memory of linear potential flow: the Cummins impulse-response kernel, Ogilvie's
relation back to the added mass, and a stable state-space realization of the convolution.

Cummins (1962) and Ogilvie (1964), for the 6N dof of a HydroData:

    K(t) = (2/π) ∫₀^∞ B(ω) cos(ωt) dω,
    A(ω) − A∞ = −(1/ω) ∫₀^∞ K(t) sin(ωt) dt,   B(ω) = ∫₀^∞ K(t) cos(ωt) dt,

so K̂(iω) = ∫₀^∞ K(t) e^{−iωt} dt = B(ω) + iω (A(ω) − A∞) is the transfer function a realization
ż = A z + B ν, y = C z must reproduce: K̂(s) = C (sI − A)⁻¹ B (Perez & Fossen 2008).

Quadrature of the kernel: B is taken piecewise linear through (0, 0) and the data points (B → 0
as ω → 0 for 3-D bodies), and the cosine transform of each linear piece is done exactly (Filon),
so K(t) has no aliasing from the frequency spacing.  Beyond the last frequency ωₙ the default
tail is B(ω) = B(ωₙ)(ωₙ/ω)³, the high-frequency decay of the damping of a surface-piercing wall
(the 2-D wavemaker's B = ρg²/(2ω³) per unit length; the surge damping of a floating cylinder
computed to ω = 9 rad/s decays as ω^−2.6…−3); tail 'omega^-2' is the decay of a kernel with
K'(0) ≠ 0 (relative degree one, Perez & Fossen 2008) and tail None truncates at ωₙ (WEC-Sim's
choice).  Both tails are closed-form in the sine and cosine integrals.

The state-space fit: the poles of each nonzero entry K_ij come from Kung's Hankel-SVD
realization (Kung 1978; the method of WEC-Sim's BEMIO, radiationIRFSS) of K_ij(t) sampled at
dt, mapped to continuous time (μ = ln λ / dt) with any pole in the right half plane reflected
into the left (stability); the residues are then fitted by linear least squares — by default
to the BEM transfer function B(ω) + iω(A(ω) − A∞) at the data frequencies (frequency-domain
identification with fixed stable poles, in the spirit of Perez & Fossen 2009), optionally to
the kernel samples — and the order is raised until the fit error is below the tolerance.  Each
entry becomes 1×1 (real pole) and 2×2 (complex pair) modal blocks; the entries' blocks are
stacked block-diagonally, entry (i, j) reading ν_j and writing force row i."""
import math

import numpy as np

from mbdae.engine.core.hydro_data import HydroDataError, RadiationKernel, RadiationStateSpace

KERNEL_TAILS = ("omega^-3", "omega^-2", None)


# ---------------------------------------------------------------------------- the kernel
def _sinc(s):
    return np.sinc(s / math.pi)            # numpy's sinc is sin(πx)/(πx)


def _p(s):
    """(sin s − s cos s)/s², with its series near 0."""
    small = np.abs(s) < 1e-3
    ss = np.where(small, 1.0, s)
    return np.where(small, s / 3.0 - s ** 3 / 30.0, (np.sin(ss) - ss * np.cos(ss)) / (ss * ss))


def _cosine_weights(nodes, t, tail):
    """W (nt, n) with ∫₀^∞ B(ω) cos(ωt) dω = W @ B(nodes) for B piecewise linear through (0, 0)
    and the nodes, with the (ωₙ/ω)³ or (ωₙ/ω)² tail beyond the last node, or none (tail None)."""
    t = np.asarray(t, dtype=float)[:, None]
    w = np.concatenate(([0.0], nodes)) if nodes[0] > 0.0 else np.asarray(nodes, dtype=float)
    a, b = w[:-1], w[1:]
    h = b - a
    m = 0.5 * (a + b)
    s = 0.5 * h * t
    even = np.cos(m * t) * _sinc(s)
    odd = np.sin(m * t) * _p(s)
    left = 0.5 * h * (even + odd)            # weight of each segment's left value
    right = 0.5 * h * (even - odd)           # … and right value
    W = np.zeros((t.shape[0], len(w)))
    W[:, :-1] += left
    W[:, 1:] += right
    if tail in ("omega^-2", "omega^-3"):
        from scipy.special import sici
        wn = w[-1]
        x = wn * t[:, 0]
        si, ci = sici(x)
        if tail == "omega^-2":               # ∫ₐ^∞ a²ω⁻² cos ωt dω = a[cos x − x(π/2 − Si x)]
            W[:, -1] += wn * (np.cos(x) - x * (0.5 * math.pi - si))
        else:                                # ∫ₐ^∞ a³ω⁻³ cos ωt dω = (a/2)[cos x − x sin x + x² Ci x]
            xs = np.where(x > 0.0, x, 1.0)
            x2ci = np.where(x > 0.0, xs * xs * sici(xs)[1], 0.0)
            W[:, -1] += 0.5 * wn * (np.cos(x) - x * np.sin(x) + x2ci)
    elif tail is not None:
        raise HydroDataError(f"unknown kernel tail '{tail}' (known: {', '.join(map(str, KERNEL_TAILS))})")
    return W[:, 1:] if nodes[0] > 0.0 else W


def kernel_samples(omega, damping, t, tail="omega^-3"):
    """K(t) (nt, n, n) from B(ω) (nw, n, n) by the module's quadrature."""
    omega = np.asarray(omega, dtype=float)
    damping = np.asarray(damping, dtype=float)
    W = _cosine_weights(omega, t, tail)
    n = damping.shape[1]
    return (2.0 / math.pi) * (W @ damping.reshape(len(omega), n * n)).reshape(len(W), n, n)


def dof_lengths(data):
    """Per dof the length that makes rotational entries comparable with translational ones
    (an angle θ moves the hull by about Lθ): 1 for translations, L_b for the rotations of body b,
    L_b = sqrt(waterplane area) = sqrt(C33/(ρg)), else the displaced volume^(1/3), else 1 m."""
    n = 6 * data.n_bodies
    s = np.ones(n)
    for b in range(data.n_bodies):
        area = data.hydrostatic_stiffness[6 * b + 2, 6 * b + 2] / (data.rho * data.g)
        if area > 0.0:
            length = math.sqrt(area)
        elif data.displaced_volume is not None and data.displaced_volume[b] > 0.0:
            length = float(data.displaced_volume[b]) ** (1.0 / 3.0)
        else:
            length = 1.0
        s[6 * b + 3:6 * b + 6] = length
    return s


def _entry_scale(K0, lengths=None):
    """The scale entry (i, j) of the kernel is measured against, sqrt|K_ii(0) K_jj(0)|; a dof
    radiates nothing — its entries get scale ∞ — when sqrt|K_ii(0)|/s_i is below 1e-3 of the
    largest of its body's dofs (s from dof_lengths: rotations measured with the hull's length;
    a body of revolution in yaw, a sphere turning about its centre)."""
    n = K0.shape[0]
    s = np.ones(n) if lengths is None else np.asarray(lengths, dtype=float)
    root = np.sqrt(np.abs(np.diagonal(K0)))
    d = root / s
    quiet = np.zeros(n, dtype=bool)
    for b in range(0, n, 6):
        quiet[b:b + 6] = d[b:b + 6] <= 1e-3 * np.max(d[b:b + 6])
    root = np.where(quiet, np.inf, root)
    return np.outer(root, root)


def kernel_duration(omega, damping, tol=1e-3, tail="omega^-3", lengths=None):
    """The time after which every |K_ij(t)| stays below tol times its scale (`_entry_scale`),
    searched up to 2π/min Δω (the longest time the frequency grid resolves; returned when K has
    not died out)."""
    omega = np.asarray(omega, dtype=float)
    spacing = np.diff(np.concatenate(([0.0], omega)) if omega[0] > 0.0 else omega)
    t_cap = 2.0 * math.pi / float(np.min(spacing))
    dt = min(math.pi / (4.0 * omega[-1]), t_cap / 400.0)
    t = np.arange(0.0, t_cap + 0.5 * dt, dt)
    K = kernel_samples(omega, damping, t, tail)
    scale = _entry_scale(K[0], lengths)
    big = np.abs(K) > tol * scale[None]
    alive = np.nonzero(big.reshape(len(t), -1).any(axis=1))[0]
    if len(alive) == 0:
        return dt
    return float(min(t[alive[-1]] + 2.0 * dt, t_cap))


def impulse_response(data, dt, t_end=None, tail="omega^-3", tol=1e-3):
    """The Cummins kernel of `data` sampled at 0, dt, … ≤ t_end (RadiationKernel); t_end None:
    `kernel_duration(…, tol)`, the time after which every entry is below tol of its scale."""
    dt = float(dt)
    if not dt > 0.0:
        raise HydroDataError(f"{data.source or 'hydrodynamic data'}: the kernel time step must be positive, found {dt:g}")
    if t_end is None:
        t_end = kernel_duration(data.omega, data.radiation_damping, tol, tail, dof_lengths(data))
    t = np.arange(0.0, float(t_end) + 0.5 * dt, dt)
    return RadiationKernel(dt=dt, K=kernel_samples(data.omega, data.radiation_damping, t, tail))


def added_mass_from_kernel(kernel, omega):
    """A(ω) − A∞ (nw, n, n) by Ogilvie's relation −(1/ω)∫₀^T K(t) sin(ωt) dt, trapezoid rule on
    the kernel's samples (T its duration; the kernel is taken as zero beyond)."""
    omega = np.asarray(omega, dtype=float)
    K = np.asarray(kernel.K)
    t = kernel.dt * np.arange(len(K))
    wts = np.full(len(t), kernel.dt)
    wts[0] = wts[-1] = 0.5 * kernel.dt
    S = np.sin(np.outer(omega, t)) * wts[None, :]
    n = K.shape[1]
    return -(S @ K.reshape(len(t), n * n)).reshape(len(omega), n, n) / omega[:, None, None]


def added_mass_infinite_estimate(omega, added_mass, damping, dt=None, t_end=None, tail="omega^-3"):
    """A∞ from Ogilvie's relation, A∞ = A(ω) + (1/ω)∫K sin(ωt) dt averaged over the frequencies
    (the estimate NEMOH's post-processor writes to IRF.tec), for data without an ω = ∞ solution."""
    omega = np.asarray(omega, dtype=float)
    if t_end is None:
        t_end = kernel_duration(omega, damping, tail=tail)
    if dt is None:
        dt = min(math.pi / (8.0 * omega[-1]), t_end / 2000.0)
    t = np.arange(0.0, t_end + 0.5 * dt, dt)
    kernel = RadiationKernel(dt=dt, K=kernel_samples(omega, damping, t, tail))
    return np.mean(np.asarray(added_mass) - added_mass_from_kernel(kernel, omega), axis=0)


# ---------------------------------------------------------------------------- state space
def _basis(poles, t):
    """Real basis of the impulse response of the modes: e^{σt} for real poles, e^{σt}cos ωt and
    e^{σt}sin ωt for each pair σ ± iω (only the member with ω > 0 is listed)."""
    cols = []
    for p in poles:
        e = np.exp(p.real * t)
        if p.imag == 0.0:
            cols.append(e)
        else:
            cols.append(e * np.cos(p.imag * t))
            cols.append(e * np.sin(p.imag * t))
    return np.column_stack(cols) if cols else np.zeros((len(t), 0))


def _continuous_poles(Ad, dt):
    """Continuous poles μ = ln λ / dt of the discrete realization, one per real pole and one
    (Im > 0) per conjugate pair; λ on the negative real axis (a Nyquist-rate artefact with no
    real continuous counterpart) and λ = 0 are dropped; poles with Re μ ≥ 0 are reflected into
    the left half plane."""
    poles = []
    for lam in np.linalg.eigvals(Ad):
        if lam.imag < 0.0 or abs(lam) == 0.0 or (lam.imag == 0.0 and lam.real < 0.0):
            continue
        mu = np.log(complex(lam)) / dt
        re = mu.real
        if not re < 0.0:
            re = -max(abs(re), 1e-6 * abs(mu), 1e-12)
        poles.append(complex(re, mu.imag if lam.imag > 0.0 else 0.0))
    return poles


def _transfer_basis(poles, omega):
    """The transfer functions of the modal blocks at s = iω, column for column as `_basis`:
    1/(s − σ) for a real pole, (s − σ)/((s − σ)² + ω₀²) and ω₀/((s − σ)² + ω₀²) for a pair."""
    s = 1j * np.asarray(omega, dtype=float)
    cols = []
    for p in poles:
        if p.imag == 0.0:
            cols.append(1.0 / (s - p.real))
        else:
            d = (s - p.real) ** 2 + p.imag ** 2
            cols.append((s - p.real) / d)
            cols.append(p.imag / d)
    return np.column_stack(cols)


def _fit_entry(h, dt, tolerance, max_order, omega=None, H=None, norm=None):
    """Kung's realization of the samples h_k = K(k dt) gives the poles at each order r; the
    residues are then fitted by linear least squares, to the BEM transfer function H(ω) =
    B + iω(A − A∞) when given (the relative L2 error over the frequencies is the fit error), else
    to the samples (relative L2 error of the impulse response).  The order is raised until the
    error is below the tolerance, else the best order up to max_order is kept.  Returns (poles,
    coefficients, error); the error is relative to `norm` (default: the target's own L2 norm).
    Fitted to H, an order is tried only while it has no more coefficients than frequencies (two
    equations, Re and Im, per coefficient)."""
    t = dt * np.arange(len(h))
    m = min((len(h) - 1) // 2, 200)
    H0 = h[np.add.outer(np.arange(m), np.arange(m))]
    H1 = h[np.add.outer(np.arange(m), np.arange(m)) + 1]
    U, S, Vt = np.linalg.svd(H0)
    target = h if H is None else np.concatenate((H.real, H.imag))
    if norm is None:
        norm = float(np.linalg.norm(target))
    best = None
    for r in range(1, min(max_order, m) + 1):
        if S[r - 1] <= S[0] * 1e-14:
            break
        si = 1.0 / np.sqrt(S[:r])
        Ad = (si[:, None] * (U[:, :r].T @ H1 @ Vt[:r].T)) * si[None, :]
        poles = _continuous_poles(Ad, dt)
        if not poles:
            continue
        if H is None:
            Phi = _basis(poles, t)
        else:
            G = _transfer_basis(poles, omega)
            if G.shape[1] > len(omega):      # at least two equations (Re, Im) per coefficient
                break
            Phi = np.concatenate((G.real, G.imag))
        coef = np.linalg.lstsq(Phi, target, rcond=None)[0]
        err = float(np.linalg.norm(Phi @ coef - target)) / norm
        if best is None or err < best[2]:
            best = (poles, coef, err)
        if err <= tolerance:
            break
    return best


def _blocks(poles, coef):
    """Modal blocks (A, B, C) of one entry: [σ], [1], [c] per real pole and
    [[σ, −ω], [ω, σ]], [1, 0], [c_cos, c_sin] per pair."""
    A_parts, B_parts, C_parts = [], [], []
    col = 0
    for p in poles:
        if p.imag == 0.0:
            A_parts.append(np.array([[p.real]]))
            B_parts.append(np.array([1.0]))
            C_parts.append(np.array([coef[col]]))
            col += 1
        else:
            A_parts.append(np.array([[p.real, -p.imag], [p.imag, p.real]]))
            B_parts.append(np.array([1.0, 0.0]))
            C_parts.append(np.array([coef[col], coef[col + 1]]))
            col += 2
    return A_parts, B_parts, C_parts


def fit_radiation_state_space(data, tolerance=0.01, max_order=12, couple_bodies=True, dt=None, t_end=None,
                              zero_tol=1e-3, tail="omega^-3", residues="frequency"):
    """A stable realization of the radiation convolution of `data` (RadiationStateSpace).

    Each entry with max|K_ij| > zero_tol·sqrt|K_ii(0) K_jj(0)| is realized (dofs that radiate
    nothing, `_entry_scale`, have none) with the smallest
    order ≤ max_order whose fit error is ≤ tolerance (entry (j, i) reuses (i, j)'s fit: the data
    are symmetric); the others are zero.  The error of an entry is its L2 misfit over the norm of
    its data, for an off-diagonal entry over sqrt(‖data_ii‖ ‖data_jj‖) (a coupling is as accurate
    as it needs to be next to the direct terms); an entry that cannot reach the tolerance keeps
    its best order up to max_order (check fit_error).  The poles come from Kung's realization of K(t)
    sampled at dt (default: the larger of π/(4 ω_max) and t_end/1000) up to t_end (default
    kernel_duration); the residues from linear least squares on
      residues='frequency' (default): the BEM transfer function B(ω) + iω(A(ω) − A∞) at the data
        frequencies (fit error: its relative L2 error) — the realization then reproduces both
        A(ω) and B(ω), the low frequencies included;
      residues='impulse': the kernel samples (fit error: the impulse response's relative L2 error).
    couple_bodies=False drops the entries between different bodies.  fit_error and orders report
    each entry's error and number of states."""
    omega = np.asarray(data.omega, dtype=float)
    n = data.radiation_damping.shape[1]
    if residues not in ("frequency", "impulse"):
        raise HydroDataError(f"unknown residues '{residues}' (known: frequency, impulse)")
    if t_end is None:
        t_end = kernel_duration(omega, data.radiation_damping, tail=tail, lengths=dof_lengths(data))
    if dt is None:
        dt = max(math.pi / (4.0 * omega[-1]), t_end / 1000.0)
    t = np.arange(0.0, t_end + 0.5 * dt, dt)
    if len(t) < 8:
        raise HydroDataError(f"{data.source or 'hydrodynamic data'}: the kernel lasts {t_end:g} s, "
                             f"fewer than 8 samples at dt = {dt:g} s: give a smaller dt")
    K = kernel_samples(omega, data.radiation_damping, t, tail)
    scale = _entry_scale(K[0], dof_lengths(data))
    errors = np.zeros((n, n))
    orders = np.zeros((n, n), dtype=int)
    A_parts, B_cols, C_rows = [], [], []     # per block: matrix, (input j, vector), (output i, vector)

    def target(i, j):
        if residues == "frequency":
            return data.radiation_damping[:, i, j] + 1j * omega * (data.added_mass[:, i, j] - data.added_mass_infinite[i, j])
        return K[:, i, j]
    own = np.array([float(np.linalg.norm(target(i, i))) for i in range(n)])
    for i in range(n):
        for j in range(i, n):
            if not couple_bodies and i // 6 != j // 6:
                continue
            h = K[:, i, j]
            if not np.max(np.abs(h)) > zero_tol * scale[i, j]:
                continue
            norm = None if i == j else math.sqrt(own[i] * own[j])
            if residues == "frequency":
                poles, coef, err = _fit_entry(h, dt, tolerance, max_order, omega, target(i, j), norm)
            else:
                poles, coef, err = _fit_entry(h, dt, tolerance, max_order, norm=norm)
            Ab, Bb, Cb = _blocks(poles, coef)
            for (row, col) in ((i, j), (j, i)) if i != j else ((i, j),):
                A_parts += Ab
                B_cols += [(col, b) for b in Bb]
                C_rows += [(row, c) for c in Cb]
                errors[row, col] = err
                orders[row, col] = sum(len(b) for b in Bb)
    ns = sum(len(a) for a in A_parts)
    A = np.zeros((ns, ns))
    B = np.zeros((ns, n))
    C = np.zeros((n, ns))
    k = 0
    for a, (col, b), (row, c) in zip(A_parts, B_cols, C_rows):
        size = len(a)
        A[k:k + size, k:k + size] = a
        B[k:k + size, col] = b
        C[row, k:k + size] = c
        k += size
    return RadiationStateSpace(A=A, B=B, C=C, D=None, fit_error=errors, orders=orders)


def _diagonal_blocks(A):
    """Index sets of the independent diagonal blocks of A (connected components of its pattern)."""
    from scipy.sparse.csgraph import connected_components
    if A.shape[0] == 0:
        return []
    count, label = connected_components((A != 0.0).astype(float), directed=False)
    order = np.argsort(label, kind="stable")
    cuts = np.searchsorted(label[order], np.arange(1, count))
    return np.split(order, cuts)


def _modal(ss):
    """Per independent block: (eigenvalues, C V, V⁻¹ B) of A = V Λ V⁻¹ restricted to the block."""
    out = []
    for idx in _diagonal_blocks(np.asarray(ss.A)):
        lam, V = np.linalg.eig(ss.A[np.ix_(idx, idx)])
        out.append((lam, ss.C[:, idx] @ V, np.linalg.solve(V, ss.B[idx, :])))
    return out


def state_space_frequency_response(ss, omega):
    """(A(ω) − A∞, B(ω)), each (nw, n, n), implied by the realization: K̂(iω) = C(iωI − A)⁻¹B + D,
    B(ω) = Re K̂, A(ω) − A∞ = Im K̂ / ω."""
    omega = np.asarray(omega, dtype=float)
    n = ss.C.shape[0]
    H = np.zeros((len(omega), n, n), dtype=complex)
    for lam, CV, VB in _modal(ss):
        H += np.einsum("ik,wk,kj->wij", CV, 1.0 / (1j * omega[:, None] - lam[None, :]), VB)
    if ss.D is not None:
        H += np.asarray(ss.D)[None]
    return H.imag / omega[:, None, None], H.real


def state_space_impulse_response(ss, t):
    """C e^{At} B (nt, n, n), the kernel the realization implies."""
    t = np.asarray(t, dtype=float)
    n = ss.C.shape[0]
    K = np.zeros((len(t), n, n), dtype=complex)
    for lam, CV, VB in _modal(ss):
        K += np.einsum("ik,tk,kj->tij", CV, np.exp(np.outer(t, lam)), VB)
    return K.real
