"""Compiled small-matrix algebra for the element family kernels (manual ch. 4 and 5.1).

Every family evaluates all its instances in one call of a function compiled by numba
(`kernel`, an `njit` with an on-disk cache): inside it, loops over instances call the
helpers below on 3-vectors and 3×3 matrices, which numba inlines into machine code.  This
module is the one place the decorator's options are set; the batched numpy forms of the
same formulas (engine/core/rotations.py) serve set-up, output and tests, never the hot path.

Conventions: vectors are float arrays of shape (3,), matrices (3, 3), row-major; functions
whose name starts with `set_` write into their first argument (no allocation)."""
import hashlib
import os
import sys
from pathlib import Path

import numpy as np
import numba

SOURCE_ROOT = Path(__file__).resolve().parents[2]          # the folder of engine/ and elements/
KERNEL_SOURCES = ("engine/core", "elements", "solvers")


def kernel_cache_dir():
    """Where the compiled kernels are kept: MBDAE_CACHE_DIR, else a folder of the user's
    cache named by a hash of the kernel sources.  numba checks only the timestamp of the file
    that defines a kernel, not of the helpers it inlines from other files; keying the folder
    by every kernel source makes an edit anywhere recompile everything, once."""
    given = os.environ.get("MBDAE_CACHE_DIR")
    if given:
        return Path(given)
    digest = hashlib.sha1()
    for folder in KERNEL_SOURCES:
        for path in sorted((SOURCE_ROOT / folder).glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mbdae"
    return base / f"kernels-{numba.__version__}-{digest.hexdigest()[:16]}"


def _use_cache_dir():
    """Point numba's cache at kernel_cache_dir() (before any kernel is declared) and, when that
    folder is new, tell the user once that the kernels are being compiled."""
    folder = kernel_cache_dir()
    if not folder.exists():
        try:
            folder.mkdir(parents=True)
        except OSError:
            return                       # read-only home: numba's default cache location
        print(f"mbdae: compiling the element kernels for this installation (once; cached in {folder})",
              file=sys.stderr)
    numba.config.CACHE_DIR = str(folder)


_use_cache_dir()

# error_model="numpy": division by zero gives inf/nan like numpy (the Newton loop reports
# non-finite residuals by equation) instead of a Python exception check in every division
kernel = numba.njit(cache=True, nogil=True, error_model="numpy")

SMALL_ANGLE = 1e-4            # series branch of the rotation coefficients (as rotations.py)
SMALL_GAMMA_INV = 1e-3


@kernel
def dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def cross3(a, b):
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@kernel
def skew3(v):
    """v× (3, 3)."""
    S = np.zeros((3, 3))
    S[0, 1] = -v[2]
    S[0, 2] = v[1]
    S[1, 0] = v[2]
    S[1, 2] = -v[0]
    S[2, 0] = -v[1]
    S[2, 1] = v[0]
    return S


@kernel
def mv3(A, v):
    """A v."""
    out = np.empty(3)
    for i in range(3):
        out[i] = A[i, 0] * v[0] + A[i, 1] * v[1] + A[i, 2] * v[2]
    return out


@kernel
def mtv3(A, v):
    """Aᵀ v."""
    out = np.empty(3)
    for i in range(3):
        out[i] = A[0, i] * v[0] + A[1, i] * v[1] + A[2, i] * v[2]
    return out


@kernel
def mm3(A, B):
    """A B for 3×3 matrices."""
    out = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]
    return out


@kernel
def mtm3(A, B):
    """Aᵀ B for 3×3 matrices."""
    out = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            out[i, j] = A[0, i] * B[0, j] + A[1, i] * B[1, j] + A[2, i] * B[2, j]
    return out


@kernel
def mmt3(A, B):
    """A Bᵀ for 3×3 matrices."""
    out = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]
    return out


@kernel
def outer3(a, b):
    out = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            out[i, j] = a[i] * b[j]
    return out


@kernel
def cross_mat3(v, A):
    """v× A (the columns of A crossed by v) without forming v×."""
    out = np.empty((3, 3))
    for j in range(3):
        out[0, j] = v[1] * A[2, j] - v[2] * A[1, j]
        out[1, j] = v[2] * A[0, j] - v[0] * A[2, j]
        out[2, j] = v[0] * A[1, j] - v[1] * A[0, j]
    return out


@kernel
def mat_cross3(A, v):
    """A v× without forming v×."""
    out = np.empty((3, 3))
    for i in range(3):
        out[i, 0] = A[i, 1] * v[2] - A[i, 2] * v[1]
        out[i, 1] = A[i, 2] * v[0] - A[i, 0] * v[2]
        out[i, 2] = A[i, 0] * v[1] - A[i, 1] * v[0]
    return out


@kernel
def cayley_R_G3(g, R, G):
    """R(g) = I + c (g× + ½ g×g×) and G(g) = c (I + ½ g×), c = 4/(4 + gᵀg) (manual
    §5.1, Gibbs–Rodrigues parameters), written into R and G."""
    c = 4.0 / (4.0 + dot3(g, g))
    S = skew3(g)
    for i in range(3):
        for j in range(3):
            SS = S[i, 0] * S[0, j] + S[i, 1] * S[1, j] + S[i, 2] * S[2, j]
            d = 1.0 if i == j else 0.0
            R[i, j] = d + c * (S[i, j] + 0.5 * SS)
            G[i, j] = c * (d + 0.5 * S[i, j])


@kernel
def dGg_dg3(g, gd):
    """∂(G(g) ġ)/∂g (the exact ω Jacobian): -½c² (ġ + ½ g×ġ) gᵀ - ½ c ġ×."""
    c = 4.0 / (4.0 + dot3(g, g))
    gxgd = cross3(g, gd)
    out = np.empty((3, 3))
    for i in range(3):
        vi = gd[i] + 0.5 * gxgd[i]
        for j in range(3):
            out[i, j] = -0.5 * c * c * vi * g[j]
    out[0, 1] += 0.5 * c * gd[2]
    out[0, 2] -= 0.5 * c * gd[1]
    out[1, 0] -= 0.5 * c * gd[2]
    out[1, 2] += 0.5 * c * gd[0]
    out[2, 0] += 0.5 * c * gd[1]
    out[2, 1] -= 0.5 * c * gd[0]
    return out


@kernel
def rotation_coefficients(phi):
    """sin φ/φ, (1 - cos φ)/φ², (φ - sin φ)/φ³ with series near φ = 0."""
    if phi < SMALL_ANGLE:
        p2 = phi * phi
        return 1.0 - p2 / 6.0, 0.5 - p2 / 24.0, 1.0 / 6.0 - p2 / 120.0
    s = np.sin(phi)
    return s / phi, (1.0 - np.cos(phi)) / (phi * phi), (phi - s) / (phi * phi * phi)


@kernel
def _i_plus(a, S, b):
    """I + a S + b S S."""
    out = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            SS = S[i, 0] * S[0, j] + S[i, 1] * S[1, j] + S[i, 2] * S[2, j]
            out[i, j] = (1.0 if i == j else 0.0) + a * S[i, j] + b * SS
    return out


@kernel
def exp_rotvec3(theta):
    """exp(θ×) = I + sin φ/φ θ× + (1 - cos φ)/φ² θ×θ× (manual eq. 4.8)."""
    a, b, _ = rotation_coefficients(np.sqrt(dot3(theta, theta)))
    return _i_plus(a, skew3(theta), b)


@kernel
def gamma3(theta):
    """Γ(θ) with δR Rᵀ = (Γ(θ) δθ)× for R = exp(θ×)."""
    _, b, c = rotation_coefficients(np.sqrt(dot3(theta, theta)))
    return _i_plus(b, skew3(theta), c)


@kernel
def gamma_inv3(theta):
    """Γ⁻¹(θ) = I - ½ θ× + (1 - (φ/2) cot(φ/2))/φ² θ×θ×."""
    phi = np.sqrt(dot3(theta, theta))
    if phi < SMALL_GAMMA_INV:
        d = 1.0 / 12.0 + phi * phi / 720.0
    else:
        d = (1.0 - 0.5 * phi / np.tan(0.5 * phi)) / (phi * phi)
    return _i_plus(-0.5, skew3(theta), d)


@kernel
def log_rotvec3(R):
    """The minimal rotation vector θ with exp(θ×) = R (manual §4.2), robust near 0 and π."""
    cosphi = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    cosphi = min(1.0, max(-1.0, cosphi))
    sn = np.empty(3)
    sn[0] = 0.5 * (R[2, 1] - R[1, 2])
    sn[1] = 0.5 * (R[0, 2] - R[2, 0])
    sn[2] = 0.5 * (R[1, 0] - R[0, 1])
    sinphi = np.sqrt(dot3(sn, sn))
    phi = np.arctan2(sinphi, cosphi)
    if cosphi >= -0.9:
        a = 1.0 - phi * phi / 6.0 if phi < SMALL_ANGLE else np.sin(phi) / phi
        out = np.empty(3)
        for i in range(3):
            out[i] = sn[i] / a
        return out
    # near π: the axis from the symmetric part R + Rᵀ = 2 cos φ I + 2 (1 - cos φ) n nᵀ
    B = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            B[i, j] = (0.5 * (R[i, j] + R[j, i]) - (cosphi if i == j else 0.0)) / (1.0 - cosphi)
    k = 0
    for i in range(1, 3):
        if B[i, i] > B[k, k]:
            k = i
    scale = np.sqrt(max(B[k, k], 1e-300))
    n = np.empty(3)
    for i in range(3):
        n[i] = B[k, i] / scale
    s = 1.0 if dot3(n, sn) >= 0.0 else -1.0
    for i in range(3):
        n[i] *= s * phi
    return n


# ---------------------------------------------------------------- value types
# 3-vectors as tuples (a, b, c) and 3×3 matrices as tuples of three row tuples: numba keeps
# them in registers, so these helpers allocate nothing (a kernel that allocated small arrays
# per instance measured 10× slower).  Load them from arrays with vload/mload and write them
# back with vstore/mstore.  Never use + or * on them: on tuples those concatenate/repeat.

@kernel
def vload(a, i):
    """Row i of an (n, 3) array as a vector."""
    return (a[i, 0], a[i, 1], a[i, 2])


@kernel
def vget(a):
    """A (3,) array as a vector."""
    return (a[0], a[1], a[2])


@kernel
def mload(A, i):
    """Matrix i of an (n, 3, 3) array."""
    return ((A[i, 0, 0], A[i, 0, 1], A[i, 0, 2]), (A[i, 1, 0], A[i, 1, 1], A[i, 1, 2]),
            (A[i, 2, 0], A[i, 2, 1], A[i, 2, 2]))


@kernel
def vstore(out, i, v):
    out[i, 0] = v[0]
    out[i, 1] = v[1]
    out[i, 2] = v[2]


@kernel
def mstore(out, i, M):
    for a in range(3):
        for b in range(3):
            out[i, a, b] = M[a][b]


@kernel
def vadd(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@kernel
def vsub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@kernel
def vscale(s, a):
    return (s * a[0], s * a[1], s * a[2])


@kernel
def vdot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def vnorm(a):
    return np.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@kernel
def vcross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel
def zero3():
    return (0.0, 0.0, 0.0)


@kernel
def eye3():
    return ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


@kernel
def skew(v):
    """v×."""
    return ((0.0, -v[2], v[1]), (v[2], 0.0, -v[0]), (-v[1], v[0], 0.0))


@kernel
def outer(a, b):
    return ((a[0] * b[0], a[0] * b[1], a[0] * b[2]), (a[1] * b[0], a[1] * b[1], a[1] * b[2]),
            (a[2] * b[0], a[2] * b[1], a[2] * b[2]))


@kernel
def mvec(A, v):
    """A v."""
    return (vdot(A[0], v), vdot(A[1], v), vdot(A[2], v))


@kernel
def mcol(A, k):
    """Column k of A."""
    return (A[0][k], A[1][k], A[2][k])


@kernel
def mtrans(A):
    return (mcol(A, 0), mcol(A, 1), mcol(A, 2))


@kernel
def mtvec(A, v):
    """Aᵀ v."""
    return (A[0][0] * v[0] + A[1][0] * v[1] + A[2][0] * v[2],
            A[0][1] * v[0] + A[1][1] * v[1] + A[2][1] * v[2],
            A[0][2] * v[0] + A[1][2] * v[1] + A[2][2] * v[2])


@kernel
def mmul(A, B):
    """A B."""
    return (mtvec(B, A[0]), mtvec(B, A[1]), mtvec(B, A[2]))


@kernel
def mtmul(A, B):
    """Aᵀ B."""
    return mmul(mtrans(A), B)


@kernel
def mmult(A, B):
    """A Bᵀ."""
    return (mvec(B, A[0]), mvec(B, A[1]), mvec(B, A[2]))


@kernel
def madd(A, B):
    return (vadd(A[0], B[0]), vadd(A[1], B[1]), vadd(A[2], B[2]))


@kernel
def msub(A, B):
    return (vsub(A[0], B[0]), vsub(A[1], B[1]), vsub(A[2], B[2]))


@kernel
def mscale(s, A):
    return (vscale(s, A[0]), vscale(s, A[1]), vscale(s, A[2]))


@kernel
def mdiag(s):
    """s I."""
    return ((s, 0.0, 0.0), (0.0, s, 0.0), (0.0, 0.0, s))


@kernel
def eye_plus(a, S, b):
    """I + a S + b S S."""
    return madd(madd(eye3(), mscale(a, S)), mscale(b, mmul(S, S)))


@kernel
def cayley_R_G(g):
    """R(g) = I + c (g× + ½ g×g×) and G(g) = c (I + ½ g×), c = 4/(4 + gᵀg) (manual §5.1,
    Gibbs–Rodrigues parameters)."""
    c = 4.0 / (4.0 + vdot(g, g))
    S = skew(g)
    return eye_plus(c, S, 0.5 * c), mscale(c, madd(eye3(), mscale(0.5, S)))


@kernel
def dGg_dg(g, gd):
    """∂(G(g) ġ)/∂g (the exact ω Jacobian): -½c² (ġ + ½ g×ġ) gᵀ - ½ c ġ×."""
    c = 4.0 / (4.0 + vdot(g, g))
    u = vadd(gd, vscale(0.5, vcross(g, gd)))
    return msub(mscale(-0.5 * c * c, outer(u, g)), mscale(0.5 * c, skew(gd)))


@kernel
def exp_rotvec(theta):
    """exp(θ×) = I + sin φ/φ θ× + (1 - cos φ)/φ² θ×θ× (manual eq. 4.8)."""
    a, b, _ = rotation_coefficients(vnorm(theta))
    return eye_plus(a, skew(theta), b)


@kernel
def gamma(theta):
    """Γ(θ) with δR Rᵀ = (Γ(θ) δθ)× for R = exp(θ×)."""
    _, b, c = rotation_coefficients(vnorm(theta))
    return eye_plus(b, skew(theta), c)


@kernel
def gamma_inv(theta):
    """Γ⁻¹(θ) = I - ½ θ× + (1 - (φ/2) cot(φ/2))/φ² θ×θ×."""
    phi = vnorm(theta)
    if phi < SMALL_GAMMA_INV:
        d = 1.0 / 12.0 + phi * phi / 720.0
    else:
        d = (1.0 - 0.5 * phi / np.tan(0.5 * phi)) / (phi * phi)
    return eye_plus(-0.5, skew(theta), d)


@kernel
def log_rotvec(R):
    """The minimal rotation vector θ with exp(θ×) = R (manual §4.2), robust near 0 and π."""
    cosphi = min(1.0, max(-1.0, 0.5 * (R[0][0] + R[1][1] + R[2][2] - 1.0)))
    sn = (0.5 * (R[2][1] - R[1][2]), 0.5 * (R[0][2] - R[2][0]), 0.5 * (R[1][0] - R[0][1]))
    phi = np.arctan2(vnorm(sn), cosphi)
    if cosphi >= -0.9:
        a = 1.0 - phi * phi / 6.0 if phi < SMALL_ANGLE else np.sin(phi) / phi
        return vscale(1.0 / a, sn)
    # near π: the axis from the symmetric part R + Rᵀ = 2 cos φ I + 2 (1 - cos φ) n nᵀ;
    # row k of that part, for the largest diagonal entry k, is n_k n
    k = 0
    for j in range(1, 3):
        if R[j][j] > R[k][k]:
            k = j
    row = (0.5 * (R[k][0] + R[0][k]), 0.5 * (R[k][1] + R[1][k]), 0.5 * (R[k][2] + R[2][k]))
    row = vsub(row, vscale(cosphi, mcol(eye3(), k)))
    nk = np.sqrt(max(row[k] / (1.0 - cosphi), 1e-300))
    n = vscale(1.0 / ((1.0 - cosphi) * nk), row)
    s = 1.0 if vdot(n, sn) >= 0.0 else -1.0
    return vscale(s * phi, n)


@kernel
def node_kinematics(y, yp, R_ref, w_ref, start, gstart, dcoef, x, v, R, w, g, gd, G, Tw):
    """Node kinematics at an iterate (G3, G8): x, ẋ from the unknowns, R = R(g) R_ref,
    ω = G(g) ġ + R(g) ω_ref, and the Newton-increment map
    T_ω = G + dCoef (∂(G ġ)/∂g - (R(g) ω_ref)× G), for the nodes whose unknowns start at
    `start` (x at start..start+2) with g at gstart..gstart+2.  ω_ref is the reference angular
    velocity of a step re-based on its prediction (System.rebase_rotations; zero at a
    committed state).  A node without rotation unknowns (gstart = -1, displacement nodes)
    keeps R = R_ref, ω = 0 and G = T_ω = I."""
    for i in range(len(start)):
        s = start[i]
        vstore(x, i, (y[s], y[s + 1], y[s + 2]))
        vstore(v, i, (yp[s], yp[s + 1], yp[s + 2]))
        q = gstart[i]
        if q < 0:
            gi = (0.0, 0.0, 0.0)
            vstore(g, i, gi)
            vstore(gd, i, gi)
            vstore(w, i, gi)
            mstore(R, i, mload(R_ref, i))
            mstore(G, i, eye3())
            mstore(Tw, i, eye3())
            continue
        gi = (y[q], y[q + 1], y[q + 2])
        gdi = (yp[q], yp[q + 1], yp[q + 2])
        vstore(g, i, gi)
        vstore(gd, i, gdi)
        Rg, Gi = cayley_R_G(gi)
        mstore(R, i, mmul(Rg, mload(R_ref, i)))
        mstore(G, i, Gi)
        wr = mvec(Rg, vload(w_ref, i))
        wi = mvec(Gi, gdi)
        vstore(w, i, (wi[0] + wr[0], wi[1] + wr[1], wi[2] + wr[2]))
        mstore(Tw, i, madd(Gi, mscale(dcoef, msub(dGg_dg(gi, gdi), mmul(skew(wr), Gi)))))


@kernel
def scatter(res_src, res_rows, res_values, n, want_abs, jac_src, jac_dst, jac_values, nnz, want_jac):
    """The System's assembly: f_i = Σ_e f_e and f̃_i = Σ_e |f_e| over the residual entries
    res_src of the buffer, entry k going to row res_rows[k], and the CSC values of the fixed
    pattern from the Jacobian entries jac_src, entry k going to position jac_dst[k] (the
    entries a pattern discards are not in these lists).  Returns (f, f̃ or an empty array,
    CSC values or an empty array)."""
    f = np.zeros(n)
    fabs = np.zeros(n if want_abs else 0)
    for k in range(len(res_src)):
        value = res_values[res_src[k]]
        f[res_rows[k]] += value
        if want_abs:
            fabs[res_rows[k]] += abs(value)
    data = np.zeros(nnz if want_jac else 0)
    if want_jac:
        for k in range(len(jac_src)):
            data[jac_dst[k]] += jac_values[jac_src[k]]
    return f, fabs, data


@kernel
def norm2(v):
    s = 0.0
    for k in range(len(v)):
        s += v[k] * v[k]
    return np.sqrt(s)


@kernel
def all_finite(v):
    for k in range(len(v)):
        if not np.isfinite(v[k]):
            return False
    return True


@kernel
def newton_update(y, yp, dx, dcoef, is_alg):
    """Newton update (G1): differential unknowns ẏ += Δ, y += dCoef Δ; algebraic y += Δ."""
    for i in range(len(dx)):
        if is_alg[i]:
            y[i] += dx[i]
        else:
            yp[i] += dx[i]
            y[i] += dcoef * dx[i]


@kernel
def rebase_rotation_slots(y, yp, R_ref, w_ref, gstart, R_out, w_out):
    """A predicted state re-based on its prediction (System.rebase_rotations): per node whose
    rotation slots start at gstart (-1: none), R_out = R(g) R_ref, w_out = G(g) ġ + R(g) ω_ref
    and g = ġ = 0 in y, yp; R_out = R_ref, w_out = 0 for the others."""
    for i in range(len(gstart)):
        s = gstart[i]
        if s < 0:
            mstore(R_out, i, mload(R_ref, i))
            vstore(w_out, i, (0.0, 0.0, 0.0))
            continue
        g = (y[s], y[s + 1], y[s + 2])
        gd = (yp[s], yp[s + 1], yp[s + 2])
        Rg, Gi = cayley_R_G(g)
        mstore(R_out, i, mmul(Rg, mload(R_ref, i)))
        vstore(w_out, i, vadd(mvec(Gi, gd), mvec(Rg, vload(w_ref, i))))
        for k in range(3):
            y[s + k] = 0.0
            yp[s + k] = 0.0


@kernel
def history_row(y, yp, R_k, w_k, R_0, gstart, newest, y_out, yp_out):
    """A committed point's unknowns with its rotation slots about the newest orientation R_0
    (G3), written into y_out, yp_out: the newest point has g = 0, ġ = ω; an older one
    g = cayley⁻¹(R_k R_0ᵀ) = 4 ax(R_k R_0ᵀ)/(1 + tr(R_k R_0ᵀ)) and ġ = G(g)⁻¹ ω_k with
    G(g)⁻¹ = I - ½ g× + ¼ g gᵀ, per node whose rotation slots start at gstart (-1: none)."""
    for i in range(len(y)):
        y_out[i] = y[i]
        yp_out[i] = yp[i]
    for i in range(len(gstart)):
        s = gstart[i]
        if s < 0:
            continue
        w = vload(w_k, i)
        if newest:
            g = (0.0, 0.0, 0.0)
            gd = w
        else:
            A = mmult(mload(R_k, i), mload(R_0, i))
            c = 2.0 / (1.0 + A[0][0] + A[1][1] + A[2][2])
            g = (c * (A[2][1] - A[1][2]), c * (A[0][2] - A[2][0]), c * (A[1][0] - A[0][1]))
            gd = vadd(vsub(w, vscale(0.5, vcross(g, w))), vscale(0.25 * vdot(g, w), g))
        for k in range(3):
            y_out[s + k] = g[k]
            yp_out[s + k] = gd[k]


# ---------------------------------------------------------------- 3×3 blocks of larger arrays
@kernel
def get_block(M, r0, c0):
    """M[r0:r0+3, c0:c0+3] as a matrix (tuple)."""
    return ((M[r0, c0], M[r0, c0 + 1], M[r0, c0 + 2]),
            (M[r0 + 1, c0], M[r0 + 1, c0 + 1], M[r0 + 1, c0 + 2]),
            (M[r0 + 2, c0], M[r0 + 2, c0 + 1], M[r0 + 2, c0 + 2]))


@kernel
def set_block(M, r0, c0, A):
    """M[r0:r0+3, c0:c0+3] = A."""
    for a in range(3):
        for b in range(3):
            M[r0 + a, c0 + b] = A[a][b]


@kernel
def add_block(M, r0, c0, A, s):
    """M[r0:r0+3, c0:c0+3] += s A."""
    for a in range(3):
        for b in range(3):
            M[r0 + a, c0 + b] += s * A[a][b]


@kernel
def set_row3(M, r, c0, v):
    """M[r, c0:c0+3] = v."""
    M[r, c0] = v[0]
    M[r, c0 + 1] = v[1]
    M[r, c0 + 2] = v[2]


@kernel
def chain_rule12(J, dq, dV, with_dV, dcoef, G1, G2, Tw1, Tw2):
    """J (12, 12) on the Newton increments (Δẋ1, Δġ1, Δẋ2, Δġ2) from the partials dq on
    (x1, θ1, x2, θ2) and, when with_dV, dV on (v1, ω1, v2, ω2) (G8):
    J_x = dCoef ∂f/∂x + ∂f/∂v, J_g = ∂f/∂θ T_θ + ∂f/∂ω T_ω with T_θ = dCoef G."""
    T1 = mscale(dcoef, G1)
    T2 = mscale(dcoef, G2)
    for j in range(12):
        q1 = mtvec(T1, (dq[j, 3], dq[j, 4], dq[j, 5]))
        q2 = mtvec(T2, (dq[j, 9], dq[j, 10], dq[j, 11]))
        for k in range(3):
            J[j, k] = dcoef * dq[j, k]
            J[j, 6 + k] = dcoef * dq[j, 6 + k]
            J[j, 3 + k] = q1[k]
            J[j, 9 + k] = q2[k]
        if with_dV:
            u1 = mtvec(Tw1, (dV[j, 3], dV[j, 4], dV[j, 5]))
            u2 = mtvec(Tw2, (dV[j, 9], dV[j, 10], dV[j, 11]))
            for k in range(3):
                J[j, k] += dV[j, k]
                J[j, 6 + k] += dV[j, 6 + k]
                J[j, 3 + k] += u1[k]
                J[j, 9 + k] += u2[k]


# ---------------------------------------------------------------- output
ORIENTATION_CODES = {"euler123": 0, "euler 123": 0, "euler313": 1, "euler 313": 1, "euler321": 2,
                     "euler 321": 2, "orientation vector": 3, "vector": 3, "orientation matrix": 4,
                     "matrix": 4}


@kernel
def node_motion_rows(x, R, v, w, nodes, code):
    """The .mov columns of the nodes `nodes`: x, the orientation in the description `code`
    (ORIENTATION_CODES: Euler 1-2-3, 3-1-3, 3-2-1 angles in degrees, as
    engine/core/rotations.py extracts them (manual ch. 4.1); the rotation vector; the matrix
    by rows), ẋ, ω; (m, 12) or (m, 18) for the matrix."""
    width = 18 if code == 4 else 12
    out = np.empty((len(nodes), width))
    for k in range(len(nodes)):
        i = nodes[k]
        for j in range(3):
            out[k, j] = x[i, j]
            out[k, width - 6 + j] = v[i, j]
            out[k, width - 3 + j] = w[i, j]
        Ri = R[i]
        if code == 0:
            a = -np.arctan2(Ri[1, 2], Ri[2, 2])
            ca, sa = np.cos(a), np.sin(a)
            b = np.arctan2(Ri[0, 2], ca * Ri[2, 2] - sa * Ri[1, 2])
            c = np.arctan2(ca * Ri[1, 0] + sa * Ri[2, 0], ca * Ri[1, 1] + sa * Ri[2, 1])
            angles = (a, b, c)
        elif code == 1:
            angles = (np.arctan2(Ri[0, 2], -Ri[1, 2]), np.arccos(min(1.0, max(-1.0, Ri[2, 2]))),
                      np.arctan2(Ri[2, 0], Ri[2, 1]))
        elif code == 2:
            angles = (np.arctan2(Ri[1, 0], Ri[0, 0]), -np.arcsin(min(1.0, max(-1.0, Ri[2, 0]))),
                      np.arctan2(Ri[2, 1], Ri[2, 2]))
        else:
            angles = (0.0, 0.0, 0.0)
        if code <= 2:
            for j in range(3):
                out[k, 3 + j] = np.degrees(angles[j])
        elif code == 3:
            th = log_rotvec(mload(R, i))
            for j in range(3):
                out[k, 3 + j] = th[j]
        else:
            for a in range(3):
                for b in range(3):
                    out[k, 3 + 3 * a + b] = Ri[a, b]
    return out
