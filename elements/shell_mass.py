"""Consistent translational mass of 4-node shells: mbdae's option beside MBDyn users' way
(rigid bodies on the nodes, `shell_masses(..., consistent=False)`, elements/shell.py).

`model.shell_masses(first_label, ρ, h, consistent=True)` gives each shell the consistent
mass of its mid-surface, M_ab = ∫ ρ h N_a N_b dA over the reference quadrilateral (N the
bilinear shape functions; the 2×2 Gauss rule integrates it exactly, det J being bilinear),
and each node the slab's rotary inertia as a massless rigid body (the same m h²/12 (I + n nᵀ)
as the lumped option).  This family writes the momentum definitions of the shells' nodes
(eq. 8.1 with a mass matrix, as the solids' eq. 12.56):

    f_β,a += -Σ_b M_ab ẋ_b,        ∂f_β,a/∂ẋ_b = -M_ab I,

and, with gravity, the consistent weights -(Σ_b M_ab) g on the force rows (Σ_b N_b = 1: each
node's share ∫ ρ h N_a dA).  M is constant (total Lagrangian).  The node equations' moment
row γ̇ + ẋ×β (eq. 8.3) is that of a rigid body whose momentum is β = m ẋ + ω×s; the
consistent share p_a = Σ_b M_ab ẋ_b is not parallel to ẋ_a, and Lagrange's equations of
T = ½ ẋᵀ M ẋ give no ẋ_a × p_a moment: the family takes it off the moment rows,

    f_g,a += -ẋ_a × p_a,   ∂/∂ẋ_b = -ẋ_a× M_ab + δ_ab p_a×

(without it the shells gain energy from the nodes' translations and a spinning mesh blows
up).  Σ β is the linear momentum and Σ (γ + x×β) the angular momentum the equations
conserve (Σ_ab M_ab ẋ_a × ẋ_b = 0).  Accelerations of these nodes are not
recovered for output (they would need M⁻¹ over the whole mesh): NaN, as for nodes without
mass."""
from dataclasses import dataclass
from functools import cached_property
import numpy as np

from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.engine.core.compiled import kernel
from mbdae.engine.core.drives import ConstDrive, DriveArray
from mbdae.elements.base import ElementFamily, element_nodes, random_rotation
from mbdae.elements.shell_kernel import bilinear

GAUSS_2X2 = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) / np.sqrt(3.0)


@dataclass
class ShellMassSpec:
    label: int                 # the shell's label
    nodes: tuple               # its 4 structural node labels
    M: np.ndarray              # (4, 4) consistent mass of its mid-surface


def consistent_mass(X, density, thickness):
    """M_ab = ∫ ρ h N_a N_b dA of a bilinear quadrilateral with corners X (4, 3), by the 2×2
    Gauss rule (exact)."""
    L, dL = np.empty(4), np.empty((4, 2))
    M = np.zeros((4, 4))
    for xi in GAUSS_2X2:
        bilinear(xi[0], xi[1], L, dL)
        dA = np.linalg.norm(np.cross(dL[:, 0] @ X, dL[:, 1] @ X))
        M += density * thickness * dA * np.outer(L, L)
    return M


MODEL_FIELDS = {"shell_mass_elements": list}   # Model attributes: factory (None: None)


def build(model, nodes, built):
    if not model.shell_mass_elements:
        return []
    if getattr(model, "rigid_body_kinematics", None) is not None:
        raise ValueError("consistent shell mass: not available with rigid body kinematics (a moving frame); "
                         "use shell_masses(..., consistent=False), bodies on the nodes")
    return [ShellMass(model.shell_mass_elements, nodes, getattr(model, "gravity_vector", None),
                      getattr(model, "gravity_drive", None))]


# ---------------------------------------------------------------------- samples
def shell_mass_sample(model, rng):
    """Two shells sharing an edge, on random 6-dof nodes, with consistent mass and gravity."""
    m = model
    P = np.array([[1.0, 1.0, 0.1], [-1.0, 1.0, -0.1], [-1.0, -1.0, 0.0], [1.0, -1.0, 0.05],
                  [3.0, 1.2, 0.0], [3.1, -0.9, 0.2]])
    Q = random_rotation(rng)
    for k, p in enumerate(P):
        m.structural_node(k + 1, "dynamic", position=Q @ p, orientation=random_rotation(rng),
                          velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
    D = np.eye(12)
    m.shell(1, (1, 2, 3, 4), D)
    m.shell(2, (5, 1, 4, 6), D)
    m.shell_masses(10, 2.5, 0.1, consistent=True)
    m.gravity([0.3, -9.81, 1.1])
    return m


SAMPLES = {"shell mass": [shell_mass_sample]}


class ShellMass(ElementFamily):
    """Consistent translational mass of shells (module docstring)."""
    name = "shell mass"

    def __init__(self, specs, nodes, gravity_vector=None, gravity_drive=None):
        super().__init__(specs, nodes)
        self.conn = element_nodes(nodes, self.specs, 4, lambda s: f"shell {s.label} (consistent mass): ")
        if not nodes.dynamic[self.conn].all():
            e, a = np.argwhere(~nodes.dynamic[self.conn])[0]
            raise ValueError(f"shell {self.specs[e].label} (consistent mass): structural node "
                             f"{self.specs[e].nodes[a]} is static; mass needs dynamic nodes")
        self.M = np.ascontiguousarray(np.array([s.M for s in self.specs], float).reshape(-1, 4, 4))
        self.weight = np.ascontiguousarray(self.M.sum(axis=2))          # (ne, 4): ∫ ρ h N_a dA
        self.gravity_vector = None if gravity_vector is None else np.asarray(gravity_vector, float)
        self.gravity_drive = gravity_drive or ConstDrive(1.0)

    def build_pattern(self):
        """Residual on the nodes' momentum rows (and, with gravity, force rows); Jacobian
        (β_a, x_b) per direction, (ne, 4, 4) three times."""
        n = self.nodes
        ib, ix = n.ib[self.conn], n.ix[self.conn]                         # (ne, 4, 3)
        ig = n.ig[self.conn]
        p = self.pattern = Pattern()
        p.add_res(ib)
        p.add_res(ig)
        if self.gravity_vector is not None:
            p.add_res(ix)
        for k in range(3):
            p.add_jac(ib[:, :, k], ix[:, :, k])
        p.add_jac(ig.reshape(self.ne, 12), ix.reshape(self.ne, 12))
        return p

    @cached_property
    def _drive_array(self):
        return DriveArray([self.gravity_drive])

    @cached_property
    def _no_gravity(self):
        return np.zeros((self.ne, 4, 3)), np.zeros(3)

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (shell_mass_equations)."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        if self.gravity_vector is None:
            r_x, g = self._no_gravity
        else:
            r_x, g = res_views[2], self.gravity_vector * self._drive_array.values(ctx.t)[0]
        shell_mass_equations(self.conn, self.M, self.weight, ctx.kin.v, g, want_jac, res_views[0], res_views[1],
                             r_x, *jac)

    # ------------------------------------------------------------------ for the drivers and outputs
    def node_momenta(self, kin):
        """(β, γ) per structural node: Σ_b M_ab ẋ_b and no moment of momentum (consistent
        initial momenta)."""
        beta = np.zeros((self.nodes.n, 3))
        np.add.at(beta, self.conn.ravel(), np.einsum("eab,ebi->eai", self.M, kin.v[self.conn]).reshape(-1, 3))
        return beta, np.zeros((self.nodes.n, 3))

    def kinetic_energy(self, kin):
        """½ Σ ẋ_aᵀ M_ab ẋ_b."""
        v = kin.v[self.conn]
        return float(0.5 * np.einsum("eai,eab,ebi->", v, self.M, v))


@kernel
def shell_mass_equations(conn, M, weight, v, g, want_jac, r_b, r_g, r_x, j0, j1, j2, j_gx):
    """f_β,a = -p_a, p_a = Σ_b M_ab ẋ_b, on the momentum rows; -ẋ_a × p_a on the moment rows;
    -(Σ_b M_ab) g on the force rows.  Jacobian: -M_ab on (β_a, ẋ_b) in each direction;
    -ẋ_a× M_ab + δ_ab p_a× on (g_a, ẋ_b) (module docstring)."""
    for e in range(conn.shape[0]):
        for a in range(4):
            va = (v[conn[e, a], 0], v[conn[e, a], 1], v[conn[e, a], 2])
            p = [0.0, 0.0, 0.0]
            for k in range(3):
                acc = 0.0
                for b in range(4):
                    acc += M[e, a, b] * v[conn[e, b], k]
                p[k] = acc
                r_b[e, a, k] = -acc
                r_x[e, a, k] = -weight[e, a] * g[k]
            r_g[e, a, 0] = -(va[1] * p[2] - va[2] * p[1])
            r_g[e, a, 1] = -(va[2] * p[0] - va[0] * p[2])
            r_g[e, a, 2] = -(va[0] * p[1] - va[1] * p[0])
            if not want_jac:
                continue
            for b in range(4):
                j0[e, a, b] = -M[e, a, b]
                j1[e, a, b] = -M[e, a, b]
                j2[e, a, b] = -M[e, a, b]
                mab = M[e, a, b]
                # -ẋ_a× M_ab
                r0, c0 = 3 * a, 3 * b
                j_gx[e, r0 + 0, c0 + 0] = 0.0
                j_gx[e, r0 + 0, c0 + 1] = va[2] * mab
                j_gx[e, r0 + 0, c0 + 2] = -va[1] * mab
                j_gx[e, r0 + 1, c0 + 0] = -va[2] * mab
                j_gx[e, r0 + 1, c0 + 1] = 0.0
                j_gx[e, r0 + 1, c0 + 2] = va[0] * mab
                j_gx[e, r0 + 2, c0 + 0] = va[1] * mab
                j_gx[e, r0 + 2, c0 + 1] = -va[0] * mab
                j_gx[e, r0 + 2, c0 + 2] = 0.0
            # + p_a× on the diagonal block
            r0 = 3 * a
            j_gx[e, r0 + 0, r0 + 1] -= p[2]
            j_gx[e, r0 + 0, r0 + 2] += p[1]
            j_gx[e, r0 + 1, r0 + 0] += p[2]
            j_gx[e, r0 + 1, r0 + 2] -= p[0]
            j_gx[e, r0 + 2, r0 + 0] -= p[1]
            j_gx[e, r0 + 2, r0 + 1] += p[0]
