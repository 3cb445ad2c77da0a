"""Inertia elements (input manual §8.20.3, "Inertia", `output, always`): the mass
properties of a set of rigid bodies recomputed from the state they are asked at, for their
private data (model::element::inertia, `element` drives).  They write no equations.

With the bodies' masses m_b, centres of mass c_b = x + R x_cg, their velocities
v_b = v + ω × (R x_cg) and inertia about them J_b = R J_cg Rᵀ:

    m = Σ m_b,  X = Σ m_b c_b / m,  β = Σ m_b v_b,  V = β / m,
    J_cg = Σ (J_b + m_b (|d_b|² I - d_b d_bᵀ)),  d_b = c_b - X,
    γ = Σ (J_b ω_b + d_b × m_b v_b)  (momenta moment about X),  Ω = J_cg⁻¹ γ,
    J = R0ᵀ (J_cg + m (|D|² I - D Dᵀ)) R0,  D = X - X0  (about the card's position X0,
        in its orientation R0),
    JP, Phi: principal moments of J_cg (ascending) and the rotation vector of a right-handed
        frame of its principal axes (recomputed at each evaluation: MBDyn tracks the axes
        incrementally from step to step, so Phi may differ from MBDyn's by a relabelling of
        axes of equal moments).

The bodies' data are copied when the card is read, so the element also works in a static
analysis, which removes the bodies themselves (engine/drivers/static.py).  MBDyn also writes
these values to a per-step text file; mbdae does not (the reader says so with a note)."""
from dataclasses import dataclass, field, replace
import numpy as np

from mbdae.engine.core.assembly import Pattern
from mbdae.engine.core import rotations as rot
from mbdae.elements.base import ElementFamily, vec, mat, random_nodes

I3 = np.eye(3)
_VECTORS = ("X", "Phi", "V", "Omega", "JP", "beta", "gamma")
_MATRICES = ("J", "Jcg")
PRIVATE_NAMES = tuple(f"{q}[{i}]" for q in _VECTORS for i in (1, 2, 3)) \
    + tuple(f"{q}[{i},{j}]" for q in _MATRICES for i in (1, 2, 3) for j in (1, 2, 3)) + ("m",)


@dataclass
class InertiaSpec:
    label: int
    bodies: tuple                  # BodySpec copies (elements/body.py)
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    orientation: np.ndarray = field(default_factory=lambda: np.eye(3))
    name: str = ""
    output: bool = True


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def inertia_element(model, label, bodies=None, position=None, orientation=None, name=""):
    """An inertia element (elements/inertia.py) over the rigid bodies `bodies` (labels;
    None: all bodies defined so far), about `position` in `orientation` (absolute)."""
    if any(s.label == label for s in model.inertia_elements):
        raise ValueError(f"inertia {label} is already defined")
    chosen = [b for b in model.bodies if bodies is None or b.label in set(bodies)]
    if bodies is not None:
        missing = sorted(set(bodies) - {b.label for b in chosen})
        if missing:
            raise ValueError(f"inertia {label}: body {missing[0]} is not defined")
    model.inertia_elements.append(InertiaSpec(label, tuple(replace(b) for b in chosen), vec(position),
                                              mat(orientation), name))
    return label


MODEL_FIELDS = {"inertia_elements": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (inertia_element,)


def build(model, nodes, built):
    return [InertiaElements(model.inertia_elements, nodes)] if model.inertia_elements else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def inertia_sample(model, rng):
    m = model
    random_nodes(m, rng, 2)
    m.body(1, 1, 2.0, rng.normal(size=3), np.diag([1.0, 2.0, 3.0]))
    m.body(2, 2, 0.5, rng.normal(size=3), np.diag([0.2, 0.1, 0.3]))
    m.inertia_element(1, position=rng.normal(size=3), orientation=rot.exp_rotvec(rng.normal(size=3)))
    return m


SAMPLES = {"inertia": [inertia_sample]}


class InertiaElements(ElementFamily):
    """No rows: private data only (module docstring)."""
    name = "inertia"

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        bodies = [b for s in self.specs for b in s.bodies]
        counts = np.array([len(s.bodies) for s in self.specs], np.int64)
        self.owner = np.repeat(np.arange(self.ne), counts)
        self.body_node = self.node_index([b.node for b in bodies])
        self.m = np.array([b.mass for b in bodies], float)
        self.xcg = np.array([b.xcg for b in bodies], float).reshape(-1, 3)
        self.Jcg = np.array([b.J_cg for b in bodies], float).reshape(-1, 3, 3)
        self.X0 = np.array([s.position for s in self.specs], float).reshape(-1, 3)
        self.R0 = np.array([s.orientation for s in self.specs], float).reshape(-1, 3, 3)

    def build_pattern(self):
        self.pattern = Pattern()
        return self.pattern

    def evaluate(self, ctx, res_views, jac_views):
        """No equations."""

    def _sum(self, a):
        out = np.zeros((self.ne,) + a.shape[1:])
        np.add.at(out, self.owner, a)
        return out

    def properties(self, kin):
        """{name: (ne, ...) array} of m, X, V, Omega, beta, gamma, Jcg, J, JP, Phi at kin."""
        i = self.body_node
        R, x, v, w = kin.R[i], kin.x[i], kin.v[i], kin.w[i]
        arm = rot.matvec(R, self.xcg)
        c = x + arm
        vc = v + rot.cross(w, arm)
        Jb = R @ self.Jcg @ np.swapaxes(R, -1, -2)
        mb = self.m[:, None]
        m = self._sum(self.m)
        safe = np.where(m > 0, m, 1.0)[:, None]
        X = np.where(m[:, None] > 0, self._sum(mb * c) / safe, 0.0)
        beta = self._sum(mb * vc)
        V = np.where(m[:, None] > 0, beta / safe, 0.0)
        d = c - X[self.owner]
        steiner = self.m[:, None, None] * (np.einsum('ni,ni->n', d, d)[:, None, None] * I3
                                          - np.einsum('ni,nj->nij', d, d))
        Jcg = self._sum(Jb + steiner)
        gamma = self._sum(rot.matvec(Jb, w) + rot.cross(d, mb * vc))
        Omega = np.zeros((self.ne, 3))
        full = m > 0
        if full.any():
            Omega[full] = np.linalg.solve(Jcg[full], gamma[full][..., None])[..., 0]
        JP, axes = np.linalg.eigh(Jcg)
        axes[:, :, 2] *= np.sign(np.linalg.det(axes))[:, None]        # right-handed
        D = X - self.X0
        J = Jcg + m[:, None, None] * (np.einsum('ni,ni->n', D, D)[:, None, None] * I3
                                       - np.einsum('ni,nj->nij', D, D))
        J = np.swapaxes(self.R0, -1, -2) @ J @ self.R0
        return dict(m=m, X=X, V=V, Omega=Omega, beta=beta, gamma=gamma, Jcg=Jcg, J=J, JP=JP,
                    Phi=rot.log_rotvec(axes))

    def private_data_names(self, i):
        return PRIVATE_NAMES

    def private_data(self, ctx, name):
        if name not in PRIVATE_NAMES:
            raise ValueError(f'inertia private datum "{name}" does not exist')
        P = self.properties(ctx.kin)
        if name == "m":
            return P["m"]
        quantity, idx = name[:-1].split("[")
        k = [int(c) - 1 for c in idx.split(",")]
        return P[quantity][:, k[0]] if len(k) == 1 else P[quantity][:, k[0], k[1]]
