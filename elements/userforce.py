"""State-dependent structural forces given by a vectorized Python function, for loads no
built-in element describes (e.g. MBDM's gas force on a slider, which depends on the
slider's position and velocity).  The function receives the time and the positions and
velocities of all instances that share it, and returns the forces with their derivatives:
    func(t, x (n,3), v (n,3)) -> (F (n,3), dF/dx (n,3,3), dF/dv (n,3,3))
The force acts at the node (no offset, no moment)."""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.engine.core.compiled import kernel
from mbdae.elements.base import ElementFamily, random_nodes


@dataclass
class UserForceSpec:
    label: int
    node: int
    func: object
    output: bool = True


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def user_force(model, label, node, func):
    """State-dependent force at a node from a vectorized function
    func(t, x, v) -> (F, dF/dx, dF/dv) (see mbdae.elements.userforce)."""
    model.user_forces.append(UserForceSpec(label, node, func))
    return label


MODEL_FIELDS = {"user_forces": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (user_force,)


def build(model, nodes, built):
    return [UserForces(model.user_forces, nodes)] if model.user_forces else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def _cubic_spring(t, x, v):
    """F = -k x - c x³ - d v ⊙ |v| (anisotropic), with exact derivatives."""
    k = np.array([3.0, 1.0, 2.0])
    F = -k * x - 0.5 * x ** 3 - 0.7 * v * np.abs(v) + np.sin(t)
    dFx = np.einsum('ni,ij->nij', -k - 1.5 * x ** 2, np.eye(3))
    dFv = np.einsum('ni,ij->nij', -1.4 * np.abs(v), np.eye(3))
    return F, dFx, dFv


def user_force_sample(model, rng):
    m = model
    random_nodes(m, rng, 2)
    m.user_force(1, 1, _cubic_spring)
    m.user_force(2, 2, _cubic_spring)
    return m


SAMPLES = {"user force": [user_force_sample]}


class UserForces(ElementFamily):
    name = "user force"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        self.node = self.node_index([s.node for s in self.specs])
        funcs = []
        for s in self.specs:
            if s.func not in funcs:
                funcs.append(s.func)
        self.groups = [(f, np.array([i for i, s in enumerate(self.specs) if s.func is f])) for f in funcs]
        if len(self.groups) == 1:                # one function: its instances are all, in order
            self.groups = [(funcs[0], slice(None))]

    def build_pattern(self):
        p = self.pattern = Pattern()
        ix = self.nodes.ix[self.node]
        p.add_res(ix)
        p.add_jac(ix, ix)
        return p

    def forces(self, ctx):
        """(F, ∂F/∂x, ∂F/∂v) of every instance: one call of each distinct function with the
        positions and velocities of all its instances."""
        x, v = ctx.kin.x[self.node], ctx.kin.v[self.node]
        F = np.empty((self.ne, 3))
        dFx = np.empty((self.ne, 3, 3))
        dFv = np.empty((self.ne, 3, 3))
        for func, idx in self.groups:
            F[idx], dFx[idx], dFv[idx] = func(ctx.t, x[idx], v[idx])
        return F, dFx, dFv

    def evaluate(self, ctx, res_views, jac_views):
        """The functions' values (Python, one call per function), then one compiled call
        (user_force_blocks) for the residual -F and the Jacobian -(∂F/∂v + dCoef ∂F/∂x)."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        user_force_blocks(float(ctx.kin.dcoef), *self.forces(ctx), want_jac, res_views[0], jac[0])


@kernel
def user_force_blocks(dcoef, F, dFx, dFv, want_jac, r, j):
    """Residual -F on the node's x rows; Jacobian -(∂F/∂v + dCoef ∂F/∂x) on its x columns."""
    for e in range(len(F)):
        for a in range(3):
            r[e, a] = -F[e, a]
            if want_jac:
                for b in range(3):
                    j[e, a, b] = -(dFv[e, a, b] + dcoef * dFx[e, a, b])
