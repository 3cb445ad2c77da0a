"""Rotation kernel (manual ch. 4 and 5.1): skew/ax, Cayley (Gibbs-Rodrigues) parameters,
exponential/logarithm of rotation vectors, the tangent operator Gamma and its inverse,
and Euler-angle conversions.  Every function works on batches: leading axes are kept.
"""
import numpy as np

_EPS_SMALL = 1e-4


# skew(v) flattened row-major is a linear map of v: S.ravel() = _SKEW_MAP @ v
_SKEW_MAP_T = np.array([[0, 0, 0], [0, 0, -1], [0, 1, 0], [0, 0, 1], [0, 0, 0], [-1, 0, 0],
                        [0, -1, 0], [1, 0, 0], [0, 0, 0]], dtype=float).T


def skew(v):
    """Skew matrix v× of vectors (..., 3) -> (..., 3, 3)."""
    v = np.asarray(v, dtype=float)
    return (v @ _SKEW_MAP_T).reshape(v.shape[:-1] + (3, 3))


def ax(M):
    """Axial vector of the skew part of M (..., 3, 3) -> (..., 3)."""
    M = np.asarray(M, dtype=float)
    return 0.5 * np.stack([M[..., 2, 1] - M[..., 1, 2],
                           M[..., 0, 2] - M[..., 2, 0],
                           M[..., 1, 0] - M[..., 0, 1]], axis=-1)


_LEVI_CIVITA = np.zeros((3, 3, 3))
_LEVI_CIVITA[0, 1, 2] = _LEVI_CIVITA[1, 2, 0] = _LEVI_CIVITA[2, 0, 1] = 1.0
_LEVI_CIVITA[0, 2, 1] = _LEVI_CIVITA[2, 1, 0] = _LEVI_CIVITA[1, 0, 2] = -1.0


def cross(a, b):
    """Batched cross product a × b over the last axis (broadcasting leading axes).
    einsum with the Levi-Civita symbol has the least call overhead on small batches; the
    component formula scales better on large ones."""
    if a.size + b.size < 150:
        return np.einsum('ijk,...j,...k->...i', _LEVI_CIVITA, a, b)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def matvec(A, v):
    """Batched A @ v."""
    return np.einsum('...ij,...j->...i', A, v)


def mattvec(A, v):
    """Batched A^T @ v."""
    return np.einsum('...ji,...j->...i', A, v)


_I3 = np.eye(3)


def eye_like(shape):
    return np.broadcast_to(_I3, tuple(shape) + (3, 3)).copy()


def _cayley_parts(g):
    """c = 4/(4 + g·g) shaped for matrices, and g×."""
    g = np.asarray(g, dtype=float)
    c = 4.0 / (4.0 + np.einsum('...i,...i->...', g, g))
    return c[..., None, None], skew(g)


def cayley(g):
    """R(g) = I + 4/(4 + g.g) (g× + ½ g×g×), g = 2 tan(φ/2) n (Gibbs-Rodrigues, G3)."""
    c, S = _cayley_parts(g)
    return _I3 + c * (S + 0.5 * S @ S)


def cayley_G(g):
    """Tangent operator of the Gibbs-Rodrigues parameters: G(g) = 4/(4+g.g)(I + ½ g×) (manual eq. 10, line 4699)."""
    c, S = _cayley_parts(g)
    return c * (_I3 + 0.5 * S)


def cayley_R_G(g):
    """R(g) and G(g) together (one c and one g× for both)."""
    c, S = _cayley_parts(g)
    return _I3 + c * (S + 0.5 * S @ S), c * (_I3 + 0.5 * S)


def cayley_G_inv(g):
    """G(g)⁻¹ = I - ½ g× + ¼ g gᵀ (closed form: (I + ½g×)(I - ½g× + ¼ggᵀ) = (1 + g·g/4) I)."""
    g = np.asarray(g, dtype=float)
    return _I3 - 0.5 * skew(g) + 0.25 * g[..., :, None] * g[..., None, :]


def cayley_inverse(R):
    """Gibbs-Rodrigues parameters of R: g = 4 ax(skw R) / (1 + tr R); requires rotation angle < π."""
    R = np.asarray(R, dtype=float)
    tr = np.trace(R, axis1=-2, axis2=-1)
    return 4.0 * ax(R) / (1.0 + tr)[..., None]


def dGg_dg(g, gdot):
    """Derivative of G(g) @ gdot with respect to g (…,3,3); used for the exact ω Jacobian."""
    g = np.asarray(g, dtype=float)
    gg = np.einsum('...i,...i->...', g, g)
    c = 4.0 / (4.0 + gg)
    vec = gdot + 0.5 * cross(g, gdot)
    return (-0.5 * c * c)[..., None, None] * np.einsum('...i,...j->...ij', vec, g) \
        - 0.5 * c[..., None, None] * skew(gdot)


def _coefs(phi):
    """sin(φ)/φ, (1-cos φ)/φ², (φ - sin φ)/φ³ with series near φ = 0."""
    small = phi < _EPS_SMALL
    p = np.where(small, 1.0, phi)
    p2 = p * p
    a = np.where(small, 1.0 - phi**2 / 6.0, np.sin(p) / p)
    b = np.where(small, 0.5 - phi**2 / 24.0, (1.0 - np.cos(p)) / p2)
    c = np.where(small, 1.0 / 6.0 - phi**2 / 120.0, (p - np.sin(p)) / (p2 * p))
    return a, b, c


def exp_rotvec(theta):
    """exp(θ×) = I + sinφ/φ θ× + (1-cosφ)/φ² θ×θ× (manual eq. 4.8)."""
    theta = np.asarray(theta, dtype=float)
    phi = np.linalg.norm(theta, axis=-1)
    a, b, _ = _coefs(phi)
    S = skew(theta)
    return _I3 + a[..., None, None] * S + b[..., None, None] * (S @ S)


def log_rotvec(R):
    """Minimal rotation vector θ with exp(θ×) = R (manual ch. 4.2), robust near 0 and near π."""
    R = np.asarray(R, dtype=float)
    cosphi = np.clip(0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0), -1.0, 1.0)
    sinphi_n = ax(R)
    sinphi = np.linalg.norm(sinphi_n, axis=-1)
    phi = np.arctan2(sinphi, cosphi)
    out = np.empty(R.shape[:-1])
    # regular branch
    small = phi < _EPS_SMALL
    a = np.where(small, 1.0 - phi**2 / 6.0, np.sin(np.where(small, 1.0, phi)) / np.where(small, 1.0, phi))
    near_pi = cosphi < -0.9
    out[...] = sinphi_n / a[..., None]
    if np.any(near_pi):
        # axis from the symmetric part: R + R^T = 2 cos φ I + 2 (1 - cos φ) n n^T
        Rp = R[near_pi]
        cp = cosphi[near_pi]
        B = (0.5 * (Rp + np.swapaxes(Rp, -1, -2)) - cp[:, None, None] * np.eye(3)) / (1.0 - cp)[:, None, None]
        k = np.argmax(np.diagonal(B, axis1=-2, axis2=-1), axis=-1)
        n = B[np.arange(len(k)), k, :] / np.sqrt(np.maximum(B[np.arange(len(k)), k, k], 1e-300))[:, None]
        # sign from the skew part (sin φ n); at exactly π either sign is valid
        s = np.sign(np.einsum('ij,ij->i', n, sinphi_n[near_pi]))
        s = np.where(s == 0, 1.0, s)
        out[near_pi] = (s * phi[near_pi])[:, None] * n
    return out


def gamma(theta):
    """Γ(θ) with δR Rᵀ = (Γ(θ) δθ)× for R = exp(θ×)."""
    theta = np.asarray(theta, dtype=float)
    phi = np.linalg.norm(theta, axis=-1)
    _, b, c = _coefs(phi)
    S = skew(theta)
    return _I3 + b[..., None, None] * S + c[..., None, None] * (S @ S)


def gamma_inv(theta):
    """Γ⁻¹(θ) = I - ½θ× + (1 - (φ/2)cot(φ/2))/φ² θ×θ×."""
    theta = np.asarray(theta, dtype=float)
    phi = np.linalg.norm(theta, axis=-1)
    small = phi < 1e-3
    p = np.where(small, 1.0, phi)
    d = np.where(small, 1.0 / 12.0 + phi**2 / 720.0, (1.0 - 0.5 * p / np.tan(0.5 * p)) / (p * p))
    S = skew(theta)
    return _I3 - 0.5 * S + d[..., None, None] * (S @ S)


def _rot(axis, angle):
    angle = np.asarray(angle, dtype=float)
    c, s = np.cos(angle), np.sin(angle)
    R = np.zeros(angle.shape + (3, 3))
    i, j = {0: (1, 2), 1: (2, 0), 2: (0, 1)}[axis]
    R[..., axis, axis] = 1.0
    R[..., i, i] = c
    R[..., j, j] = c
    R[..., i, j] = -s
    R[..., j, i] = s
    return R


def euler123_to_R(angles):
    """R = R1(a) R2(b) R3(c), angles in radians (manual eqs. 4.1-4.4)."""
    angles = np.asarray(angles, dtype=float)
    return _rot(0, angles[..., 0]) @ _rot(1, angles[..., 1]) @ _rot(2, angles[..., 2])


def R_to_euler123(R):
    """Euler 1-2-3 angles (radians) of R, extraction of manual ch. 4.1 with atan2."""
    R = np.asarray(R, dtype=float)
    a = -np.arctan2(R[..., 1, 2], R[..., 2, 2])
    ca, sa = np.cos(a), np.sin(a)
    b = np.arctan2(R[..., 0, 2], ca * R[..., 2, 2] - sa * R[..., 1, 2])
    c = np.arctan2(ca * R[..., 1, 0] + sa * R[..., 2, 0], ca * R[..., 1, 1] + sa * R[..., 2, 1])
    return np.stack([a, b, c], axis=-1)


def euler313_to_R(angles):
    angles = np.asarray(angles, dtype=float)
    return _rot(2, angles[..., 0]) @ _rot(0, angles[..., 1]) @ _rot(2, angles[..., 2])


def R_to_euler313(R):
    R = np.asarray(R, dtype=float)
    b = np.arccos(np.clip(R[..., 2, 2], -1.0, 1.0))
    a = np.arctan2(R[..., 0, 2], -R[..., 1, 2])
    c = np.arctan2(R[..., 2, 0], R[..., 2, 1])
    return np.stack([a, b, c], axis=-1)


def euler321_to_R(angles):
    angles = np.asarray(angles, dtype=float)
    return _rot(2, angles[..., 0]) @ _rot(1, angles[..., 1]) @ _rot(0, angles[..., 2])


def R_to_euler321(R):
    R = np.asarray(R, dtype=float)
    a = np.arctan2(R[..., 1, 0], R[..., 0, 0])
    b = -np.arcsin(np.clip(R[..., 2, 0], -1.0, 1.0))
    c = np.arctan2(R[..., 2, 1], R[..., 2, 2])
    return np.stack([a, b, c], axis=-1)


def frame_from_axis3(n):
    """An orthonormal frame whose third column is the unit vector n (used for plane normals)."""
    n = np.asarray(n, dtype=float)
    e3 = n / np.linalg.norm(n, axis=-1, keepdims=True)
    trial = np.where((np.abs(e3[..., 0]) < 0.9)[..., None], np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))
    e1 = trial - np.einsum('...i,...i->...', trial, e3)[..., None] * e3
    e1 /= np.linalg.norm(e1, axis=-1, keepdims=True)
    e2 = cross(e3, e1)
    return np.stack([e1, e2, e3], axis=-1)
