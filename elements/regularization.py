"""Joint regularization (MBDyn input manual §8.13, `joint regularization`, type `tikhonov`).

Each constraint row φ_r of the regularized joint becomes φ_r = c λ_r: the row's residual gets
-c λ_r / dCoef (initial assembly: -c λ_r) and its diagonal -c / dCoef (-c), as MBDyn's
TikhonovRegularization adds them to the joint's own equations.  With mbdae's sign of the
multipliers (the joint applies -Bᵀλ to the nodes) this is a compliance: a pin regularized
with c holds its node like a spring of stiffness 1/c (tests/test_driven.py checks the sag
c m g of a hanging mass).
"""
from dataclasses import dataclass
import numpy as np

from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.engine.core.compiled import kernel
from mbdae.elements.base import ElementFamily
from mbdae.elements.joints import joint_sample

IA_MODES = ("ia_position", "ia_velocity")


@dataclass
class RegularizationSpec:
    """Tikhonov regularization of joint `label` with coefficient c (same for all its rows)."""
    label: int
    coefficient: float = 1e-6


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def joint_regularization(model, label, coefficient=1e-6):
    """Tikhonov regularization of joint `label` (manual §8.13): each of its constraint
    rows φ = 0 becomes φ = c λ (a compliance c on its reactions)."""
    if not any(s.label == label for s in model.joints):
        raise KeyError(f"joint regularization: joint {label} is not defined")
    regs = model.regularizations
    if any(r.label == label for r in regs):
        raise ValueError(f"joint regularization: joint {label} is already regularized")
    regs.append(RegularizationSpec(label, float(coefficient)))
    return label


MODEL_FIELDS = {"regularizations": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (joint_regularization,)


def build(model, nodes, built):
    """Regularizations scale the rows of the joint family (built before, registry order)."""
    regs = model.regularizations
    joints = [fam for fam in built if fam.name == "joint"]
    if not regs or not joints:
        return []
    return [JointRegularizations(regs, joints[0])]


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def joint_regularization_sample(model, rng):
    """Tikhonov-regularized joints of every row kind (positions, rotations, velocity rows,
    axis orthogonality, distance)."""
    m = joint_sample(model, rng)
    for label, c in ((2, 1e-3), (4, 0.5), (10, 2e-2), (15, 0.1), (16, 3e-3)):
        m.joint_regularization(label, c)
    return m


SAMPLES = {"joint regularization": [joint_regularization_sample]}


class JointRegularizations(ElementFamily):
    name = "joint regularization"
    in_initial_assembly = True

    def __init__(self, specs, joints):
        super().__init__(specs, joints.nodes)
        self.joints = joints
        inst = []
        for s in self.specs:
            hit = np.flatnonzero(joints.labels == s.label)
            if len(hit) == 0:
                raise ValueError(f"joint regularization {s.label}: joint {s.label} is not a joint with "
                                 f"multipliers")
            inst.append(int(hit[0]))
        self.inst = np.array(inst, np.int64)
        self.c = np.array([float(s.coefficient) for s in self.specs])

    def build_pattern(self):
        p = self.pattern = Pattern()
        self.rows = self.joints.mult[self.inst]            # (ne, 15), -1 for unused rows
        p.add_res(self.rows)
        p.add_jac(self.rows[..., None], self.rows[..., None])
        return p

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call (tikhonov_equations) over all regularized joints."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        scale = 1.0 if ctx.mode in IA_MODES else 1.0 / ctx.dcoef
        tikhonov_equations(ctx.y, self.rows, self.c, scale, want_jac, res_views[0], jac[0])


# ---------------------------------------------------------------- kernels
@kernel
def tikhonov_equations(y, rows, c, scale, want_jac, r, j):
    """Tikhonov regularization: on each used multiplier row λ_r of joint e, f = -k λ_r and
    ∂f/∂Δλ_r = -k with k = c_e / dCoef (k = c_e in the initial assembly: `scale`)."""
    for e in range(rows.shape[0]):
        k = c[e] * scale
        for a in range(rows.shape[1]):
            q = rows[e, a]
            r[e, a] = -k * y[q] if q >= 0 else 0.0
            if want_jac:
                j[e, a, 0, 0] = -k


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_joint_regularization(reader, model, args, label, word):
    """`joint regularization: <joint label>, tikhonov [, {<c> | list, c1, ..., cn}]` (manual
    §8.13; c defaults to 1e-6): the joint's rows become φ = c λ (elements/regularization.py)."""
    if not any(s.label == label for s in model.joints):
        raise word.error(f"JointRegularization({label}): unable to find Joint({label}) with multipliers")
    tw = args.peek()
    kind = args.expect_keyword("tikhonov", "dynamic", "jacobian", what="a joint regularization type")
    if kind != "tikhonov":
        raise tw.error(reader.not_supported(f"{reader.shown(tw.text)} joint regularization"))
    c = 1e-6
    if args.is_keyword("list"):
        spec = next(s for s in model.joints if s.label == label)
        n = int(np.count_nonzero(spec.active)) + len(spec.dot_axes) + (spec.distance_drive is not None)
        values = [args.real("a regularization coefficient") for _ in range(n)]
        if len(set(values)) > 1:
            raise tw.error(reader.not_supported("different regularization coefficients per joint row"))
        c = values[0]
    elif args.more():
        c = args.real("a regularization coefficient")
    model.joint_regularization(label, c)


CARDS = {
    "joint regularization": read_joint_regularization,
}
