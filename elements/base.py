"""Shared pieces of element families: the family interface and the chain rule from the
perturbations (δx, θ, δv, δω) of a node to its Newton increments (Δẋ, Δġ) (G8)."""
import numpy as np

from mbdae.engine.assembly import Pattern


class ElementFamily:
    """One object per element kind; arrays over all its instances.

    Subclasses set `name`, implement `build_pattern()` and `evaluate(ctx, want_jac)`,
    and, when they own unknowns, `n_internal`, `dof_info()` and `set_offset()`.
    """
    name = "element"
    in_initial_assembly = False   # joints take part in initial assembly (manual §6.1)
    n_internal = 0

    def __init__(self, specs, nodes):
        self.specs = list(specs)
        self.nodes = nodes
        self.ne = len(self.specs)
        self.labels = np.array([s.label for s in self.specs], dtype=np.int64)

    def node_index(self, labels):
        return np.array([self.nodes.index(l) if l is not None else -1 for l in labels], dtype=np.int64)

    def set_offset(self, start):
        self.offset = start

    def dof_info(self):
        """(kind, dim, labels, what) of the family's own unknowns/equations; none by default."""
        e = np.zeros(0, np.int64)
        return e, e, e, []

    def output_rows(self, ctx):
        """Rows for the text output file of this family (list of (label, values))."""
        return []


def node_columns(nodes, idx):
    """Global x and g column/row indices of node indices idx (-1 → ground, all -1)."""
    idx = np.asarray(idx)
    safe = np.where(idx >= 0, idx, 0)
    ix = np.where((idx >= 0)[..., None], nodes.ix[safe], -1)
    ig = np.where((idx >= 0)[..., None], nodes.ig[safe], -1)
    return ix, ig


def gather(kin_array, idx, ground):
    """Per-instance node quantity, taking `ground` where idx = -1."""
    idx = np.asarray(idx)
    safe = np.where(idx >= 0, idx, 0)
    val = kin_array[safe]
    if ground is None:
        return val
    mask = (idx < 0).reshape(idx.shape + (1,) * (val.ndim - idx.ndim))
    return np.where(mask, ground, val)


def chain(kin, idx, dF_dx=None, dF_dth=None, dF_dv=None, dF_dw=None):
    """Jacobian blocks on a node's (Δẋ, Δġ) columns from partials on (x, θ, v, ω) (G8):
    J_x = ∂f/∂v + dCoef ∂f/∂x,  J_g = ∂f/∂θ T_θ + ∂f/∂ω T_ω."""
    safe = np.where(np.asarray(idx) >= 0, idx, 0)
    Jx = 0.0
    Jg = 0.0
    if dF_dx is not None:
        Jx = Jx + kin.dcoef * dF_dx
    if dF_dv is not None:
        Jx = Jx + dF_dv
    if dF_dth is not None:
        Jg = Jg + dF_dth @ kin.Tth[safe]
    if dF_dw is not None:
        Jg = Jg + dF_dw @ kin.Tw[safe]
    return Jx, Jg


def distance_geometric_stiffness(u, dist, f1, f2, lam):
    """Σ λ ∂B/∂(x1, θ1, x2, θ2) for B = [-u, -f1×u, u, f2×u], u = d/‖d‖, d = x2+f2-x1-f1
    (shared by the distance joint, eq. 9.33, and the rod, eq. 9.246).  Returns (K, P·Dd)."""
    from mbdae.engine import rotations as rot
    ne = len(u)
    I3 = np.eye(3)
    ls = np.asarray(lam, float).reshape(ne, 1, 1)
    P = (I3 - np.einsum('ni,nj->nij', u, u)) / dist[:, None, None]
    f1x, f2x, ux = rot.skew(f1), rot.skew(f2), rot.skew(u)
    Dd = np.zeros((ne, 3, 12))
    Dd[:, :, 0:3] = -I3
    Dd[:, :, 3:6] = f1x
    Dd[:, :, 6:9] = I3
    Dd[:, :, 9:12] = -f2x
    PD = P @ Dd
    K = np.zeros((ne, 12, 12))
    K[:, 0:3] -= ls * PD
    K[:, 6:9] += ls * PD
    K[:, 3:6] -= ls * (f1x @ PD)
    K[:, 3:6, 3:6] -= ls * (ux @ f1x)
    K[:, 9:12] += ls * (f2x @ PD)
    K[:, 9:12, 9:12] += ls * (ux @ f2x)
    return K, PD, Dd


def chain12(kin, n1, n2, ground1, dF_dq=None, dF_dV=None):
    """Chain rule for blocks on the 12 columns (x1, θ1, x2, θ2) of a two-node element:
    J_x = ∂f/∂v + dCoef ∂f/∂x,  J_g = ∂f/∂θ T_θ + ∂f/∂ω T_ω; ground node 1 gives zero maps."""
    I3 = np.eye(3)
    safe1 = np.maximum(n1, 0)
    g1 = ground1[:, None, None]
    Tth1 = np.where(g1, 0.0, kin.Tth[safe1])
    Tw1 = np.where(g1, I3, kin.Tw[safe1])
    Tth2, Tw2 = kin.Tth[n2], kin.Tw[n2]
    lead = (dF_dq if dF_dq is not None else dF_dV).shape[:-1]
    J = np.zeros(lead + (12,))
    dc = kin.dcoef
    for a, Tth, Tw in ((0, Tth1, Tw1), (6, Tth2, Tw2)):
        if dF_dq is not None:
            J[..., a:a + 3] += dc * dF_dq[..., a:a + 3]
            J[..., a + 3:a + 6] += dF_dq[..., a + 3:a + 6] @ Tth
        if dF_dV is not None:
            J[..., a:a + 3] += dF_dV[..., a:a + 3]
            J[..., a + 3:a + 6] += dF_dV[..., a + 3:a + 6] @ Tw
    return J
