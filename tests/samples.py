"""The generated checks' sample models, collected from the element registry: each family
module's SAMPLES ({family name: [sample(model, rng)]}) filled into fresh Models, plus the
state helpers of the checks."""
import numpy as np

from mbdae.engine.model import Model
from mbdae.elements.registry import ENTRIES
from mbdae.elements.base import random_rotation as rand_R, random_nodes
from mbdae.elements.joints import total_equation_sample
from mbdae.engine.core import rotations as rot


def _nodes(m, rng, n, kind="dynamic", start=1):
    random_nodes(m, rng, n, kind, start)


def on_new_model(sample):
    """rng -> a new Model filled by `sample(model, rng)`."""
    def build(rng):
        return sample(Model(), rng)
    build.__name__ = build.__qualname__ = sample.__name__
    return build


def collect_samples():
    """{family name: [rng -> Model]} over the registry, in registry order."""
    samples = {}
    for entry in ENTRIES:
        for name, builders in entry.samples.items():
            if name in samples:
                raise ValueError(f"samples of family '{name}' are given twice")
            samples[name] = [on_new_model(b) for b in builders]
    return samples


SAMPLES = collect_samples()
total_equation_model = on_new_model(total_equation_sample)


def randomize_state(system, rng, t=0.37, g_scale=0.2):
    """A generic state: random y, ẏ (incl. multipliers), rotation increments, references and
    reference angular velocities (a step re-based on its prediction, System.rebase_rotations)."""
    st = system.initial_state(t)
    st.y[:] = rng.normal(size=system.n)
    st.yp[:] = rng.normal(size=system.n)
    nodes = system.nodes
    st.y[nodes.ig_rot] = g_scale * rng.normal(size=(len(nodes.rot), 3))
    st.R_ref = np.array([rand_R(rng) if r else np.eye(3) for r in nodes.rotating])
    # displacement nodes (solid elements) stay near their reference positions: a random
    # position would invert the elements
    disp = np.flatnonzero(~nodes.rotating)
    st.y[nodes.ix[disp]] = nodes.x0[disp] + 0.01 * rng.normal(size=(len(disp), 3))
    st.w_ref = np.where(nodes.rotating[:, None], rng.normal(size=(nodes.n, 3)), 0.0)
    return st


def rigid_motion(st, nodes, Q, c, v0, w0):
    """The state seen after a rigid rotation Q and translation c with a superimposed rigid
    velocity field v0 + w0 × x (objectivity checks; rotation increments g unchanged)."""
    st2 = st.copy()
    xq = rot.matvec(Q, st.y[nodes.ix]) + c
    st2.y[nodes.ix] = xq
    st2.yp[nodes.ix] = rot.matvec(Q, st.yp[nodes.ix]) + v0 + rot.cross(w0, xq)
    st2.R_ref = np.where(nodes.rotating[:, None, None], Q @ st.R_ref, st.R_ref)
    st2.yp[nodes.ig_rot] = rot.matvec(Q, st.yp[nodes.ig_rot]) + w0
    if st.w_ref is not None:
        st2.w_ref = rot.matvec(Q, st.w_ref)
    return st2
