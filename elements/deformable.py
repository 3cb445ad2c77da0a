"""Deformable joints (manual §9.2.2-9.2.5): internal loads between two nodes from a 1-D,
3-D or 6-D constitutive law of their relative motion, in the attached and invariant
variants.  No unknowns of their own.

Strain measures, collected in one 6-vector ε = [d̃; θ] with rates ε̇ = [d̃̇; ω̄]:

* relative rotation θ = ax(exp⁻¹(R1hᵀ R2h)), R_ih = R_i R̃_ih (eqs. 9.247-9.248), the same in
  both variants (eq. 9.292);
* relative displacement d = x2 + f2 - x1 - f1 (eq. 9.318) seen in the law frame R_f:
  d̃ = R_fᵀ d, d̃̇ = R_fᵀ(ḋ - ω_f × d) (attached eqs. 9.320-9.321, invariant 9.333-9.334);
* relative angular velocity ω̄ = R_fᵀ(ω2 - ω1) (eqs. 9.252, 9.293).

The law frame R_f is R1h ("attached", the frame of node 1) or the mid frame
R̂ = R1h exp(θ/2) ("invariant", eqs. 9.263-9.264), whose virtual rotation is
θ̂ = Îᵀθ1 + Îθ2 (eq. 9.286) and angular velocity ω̂ = Îᵀω1 + Îω2 (eq. 9.302), with
Î = R̂(I + R̃)⁻¹R̂ᵀ (eq. 9.283).  In closed form Î = ½(I - u×), where u = tan(|θ|/4) n is the
half-angle tangent vector of R̃ in the global frame (n the unit axis of θ): the eigenvalues
of (I + exp(φ×))⁻¹ are ½ and ½(1 ∓ i tan(|φ|/2)).

Loads from the virtual work δL = δεᵀ f(ε - ε0(t), ε̇) with the virtual strains
δd̃ = R_fᵀ(δd + d × θ_f) (eqs. 9.324, 9.335) and R_fᵀ(θ2 - θ1) for the rotation part (eqs.
9.257, 9.304): node 2 receives -R_f F̃ and -R_f M̃ (+ the moment of the force), node 1 the
opposite with the moment about its own position (eqs. 9.327, 9.343, 9.351, 9.357).  The
types use parts of ε: hinge θ (3-D law), displacement joint d̃ (3-D), deformable joint
[d̃; θ] (6-D, coupled), axial joint the component of θ about axis 3 of R1h (1-D, eq. 9.364,
attached only).  The Jacobian is exact for this residual (the manual's updated-updated
forms drop some terms): the rotation strain uses δθ = Γ(θ)⁻¹R1hᵀ(θ2 - θ1) and the
geometric stiffness includes the perturbation of Î (eq. 9.287) through u.

Every evaluation is one call of the compiled kernel `deformable_joints`
(elements/deformable_kernel.py) over all instances; outputs and private data read the
same kernel's per-instance strains and loads."""
from dataclasses import dataclass, field
from functools import cached_property
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core.assembly import Pattern, kernel_jacobian_views
from mbdae.elements.base import (ElementFamily, two_node_columns, vec, mat,
                                 vector_drive, random_rotation, random_nodes)
from mbdae.engine.core.constitutive import LinearLaw3D, LinearViscoelastic1D
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.drives import LinearDrive, SineDrive
from mbdae.elements.deformable_kernel import deformable_joints

# strain components of the 6-vector [d̃; θ] each type uses, and its law dimension
COMPONENTS = {
    "deformable hinge": (3, 4, 5),
    "deformable displacement joint": (0, 1, 2),
    "deformable joint": (0, 1, 2, 3, 4, 5),
    "deformable axial joint": (5,),
}


@dataclass
class DeformableSpec:
    label: int
    type: str                    # a key of COMPONENTS
    node1: int
    node2: int
    law: object                  # constitutive.Law (1/3/6-D), LinearLaw3D or a 1-D rod law
    f1: np.ndarray = field(default_factory=lambda: np.zeros(3))
    f2: np.ndarray = field(default_factory=lambda: np.zeros(3))
    R1h: np.ndarray = field(default_factory=lambda: np.eye(3))
    R2h: np.ndarray = field(default_factory=lambda: np.eye(3))
    prestrain: object = None     # VectorDrive of the imposed strain (LinearLaw3D laws only)
    output: bool = True
    invariant: bool = False      # law in the mid frame R̂ (eqs. 9.263-9.264)


def as_law(spec):
    """The spec's law as a constitutive.Law of the type's dimension (prestrain included)."""
    return cl.as_law(spec.law, len(COMPONENTS[spec.type]), f"{spec.type} {spec.label}", spec.prestrain)


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def deformable_hinge(model, label, node1, node2, law, orientation1=None, orientation2=None,
                     prestrain=None, invariant=False):
    """Deformable hinge (§9.2.2): couple from a 3-D law of the relative rotation and angular
    velocity, in the node-1 hinge frame (invariant: in the mid frame, eq. 9.263)."""
    model.deformable.append(DeformableSpec(label, "deformable hinge", node1, node2, law,
                                          R1h=mat(orientation1), R2h=mat(orientation2),
                                          prestrain=vector_drive(prestrain), invariant=invariant))
    return label


def deformable_displacement_joint(model, label, node1, node2, law, offset1=None, orientation1=None,
                                  offset2=None, orientation2=None, prestrain=None, invariant=False):
    """Deformable displacement joint (§9.2.3): force from a 3-D law of the relative
    displacement of the offset points and its rate, in the node-1 frame (invariant: mid frame)."""
    model.deformable.append(DeformableSpec(label, "deformable displacement joint", node1, node2, law,
                                          f1=vec(offset1), f2=vec(offset2), R1h=mat(orientation1),
                                          R2h=mat(orientation2), prestrain=vector_drive(prestrain),
                                          invariant=invariant))
    return label


def deformable_joint(model, label, node1, node2, law, offset1=None, orientation1=None,
                     offset2=None, orientation2=None, invariant=False):
    """Deformable joint (§9.2.4): force and couple from a 6-D law (constitutive.Law of
    dimension 6) of [relative displacement; relative rotation] and their rates."""
    model.deformable.append(DeformableSpec(label, "deformable joint", node1, node2, law,
                                          f1=vec(offset1), f2=vec(offset2), R1h=mat(orientation1),
                                          R2h=mat(orientation2), invariant=invariant))
    return label


def deformable_axial_joint(model, label, node1, node2, law, orientation1=None, orientation2=None):
    """Deformable axial joint (§9.2.5): couple about axis 3 of the node-1 hinge frame from a
    1-D law of the relative rotation about that axis and its rate."""
    model.deformable.append(DeformableSpec(label, "deformable axial joint", node1, node2, law,
                                          R1h=mat(orientation1), R2h=mat(orientation2)))
    return label


MODEL_FIELDS = {"deformable": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (deformable_hinge, deformable_displacement_joint, deformable_joint, deformable_axial_joint,)


def build(model, nodes, built):
    return [DeformableJoints(model.deformable, nodes)] if model.deformable else []


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def deformable_sample(model, rng):
    m = model
    random_nodes(m, rng, 3)
    K = rng.normal(size=(3, 3))
    C = rng.normal(size=(3, 3))
    v = lambda: rng.normal(size=3)
    m.deformable_hinge(1, 1, 2, LinearLaw3D(K @ K.T + np.eye(3), C @ C.T), orientation1=random_rotation(rng),
                       orientation2=random_rotation(rng), prestrain=VectorDrive.single(v(), LinearDrive(0.1, 0.2)))
    m.deformable_displacement_joint(2, 2, 3, LinearLaw3D([10.0, 20.0, 30.0], 0.5), offset1=v(),
                                    orientation1=random_rotation(rng), offset2=v())
    m.deformable_hinge(3, 3, 1, LinearLaw3D(5.0))
    return m


def deformable_all_sample(model, rng):
    """Every deformable joint type, attached and invariant, with offsets, hinge frames,
    coupled 6-D laws, a nonlinear (cubic) law, prestrain and drive-scaled laws."""
    m = model
    random_nodes(m, rng, 4)
    v = lambda: rng.normal(size=3)
    R = lambda: random_rotation(rng)
    K6 = rng.normal(size=(6, 6))
    C6 = rng.normal(size=(6, 6))
    K3 = rng.normal(size=(3, 3))
    law6 = cl.linear_viscoelastic(6, K6 @ K6.T + np.eye(6), C6 @ C6.T,
                                  prestrain=cl.TemplateDrive(6, [(0.1 * rng.normal(size=6), LinearDrive(0.1, 0.3))]))
    cubic3 = cl.cubic_elastic(3, [3.0, 2.0, 1.0], [0.5, 0.2, 0.3], [4.0, 1.0, 2.0])
    visc3 = cl.scaled(cl.linear_viscoelastic(3, K3 @ K3.T + np.eye(3), np.diag([0.3, 0.2, 0.5])),
                      SineDrive(0.0, 2.0, 0.5, "forever", 1.0))
    for inv in (False, True):
        base = 10 * inv
        m.deformable_joint(base + 1, 1, 2, law6, offset1=v(), orientation1=R(), offset2=v(), orientation2=R(),
                           invariant=inv)
        m.deformable_joint(base + 2, 3, 4, cl.linear_viscous(6, np.diag([1.0, 2.0, 3.0, 0.4, 0.5, 0.6])),
                           offset1=v(), invariant=inv)
        m.deformable_hinge(base + 3, 2, 3, cubic3, orientation1=R(), orientation2=R(), invariant=inv)
        m.deformable_hinge(base + 4, 4, 1, visc3, orientation1=R(), invariant=inv)
        m.deformable_displacement_joint(base + 5, 1, 3, visc3, offset1=v(), orientation1=R(), offset2=v(),
                                        orientation2=R(), invariant=inv)
        m.deformable_displacement_joint(base + 6, 2, 4, cubic3, offset1=v(), offset2=v(), invariant=inv)
    m.deformable_axial_joint(21, 1, 4, cl.linear_viscoelastic(1, 7.0, 0.4), orientation1=R(), orientation2=R())
    m.deformable_axial_joint(22, 2, 3, LinearViscoelastic1D(3.0, 0.2, LinearDrive(0.1, 0.2)))
    return m


SAMPLES = {"deformable joint": [deformable_all_sample, deformable_sample]}   # first: also action = reaction, objectivity


class DeformableJoints(ElementFamily):
    name = "deformable joint"
    TYPES = tuple(COMPONENTS)
    INFO = 27          # per instance from the kernel: ε, ε̇, f (6 each), F, M, θ (3 each)

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        ne = self.ne
        for s in S:
            if s.type not in COMPONENTS:
                raise ValueError(f"{s.type} {s.label}: unknown deformable joint type")
            if s.node1 is None or s.node2 is None:
                raise ValueError(f"{s.type} {s.label}: needs two nodes")
            if s.invariant and s.type == "deformable axial joint":
                raise ValueError(f"deformable axial joint {s.label}: only the attached variant exists")
        self.types = [s.type for s in S]
        self.n1 = self.node_index([s.node1 for s in S])
        self.n2 = self.node_index([s.node2 for s in S])
        self.f1 = np.array([s.f1 for s in S], float).reshape(ne, 3)
        self.f2 = np.array([s.f2 for s in S], float).reshape(ne, 3)
        self.R1h = np.array([s.R1h for s in S], float).reshape(ne, 3, 3)
        self.R2h = np.array([s.R2h for s in S], float).reshape(ne, 3, 3)
        self.inv = np.array([bool(s.invariant) for s in S])
        # each instance's law: its dimension, first strain component and row in the group
        # of laws of that dimension (one constitutive.Laws per dimension present)
        laws = [as_law(s) for s in S]
        self.law_dim = np.array([l.dim for l in laws], np.int64)
        self.comp0 = np.array([COMPONENTS[s.type][0] for s in S], np.int64)
        self.law_row = np.zeros(ne, np.int64)
        self.law_groups = {}
        for dim in (1, 3, 6):
            idx = np.flatnonzero(self.law_dim == dim)
            self.law_row[idx] = np.arange(len(idx))
            self.law_groups[dim] = cl.Laws([laws[i] for i in idx]) if len(idx) else None
        self.viscous = np.array([l.viscous for l in laws])

    def build_pattern(self):
        p = self.pattern = Pattern()
        self.node_rows, _ = two_node_columns(self.nodes, self.n1, self.n2)
        p.add_res(self.node_rows)
        p.add_jac(self.node_rows, self.node_rows)
        return p

    # ------------------------------------------------------------------ evaluation
    def _law_inputs(self, t):
        """The inputs of `law_at` for the 1-, 3- and 6-D groups at time t (empty arrays of
        the right shapes for a dimension no instance has)."""
        out = []
        for dim in (1, 3, 6):
            laws = self.law_groups[dim]
            if laws is None:
                z1, z2, z3 = np.zeros(0), np.zeros((0, dim)), np.zeros((0, dim, dim))
                out.append((z3, z3, z2, z2, z2, z2, z1, z1, z1))
            else:
                out.append(laws.arrays + laws.time_values(t))
        return out

    def _run(self, ctx, res, jac, want_jac, info):
        """One call of the compiled kernel (elements/deformable_kernel.py) over all instances."""
        kin = ctx.kin
        L1, L3, L6 = self._law_inputs(ctx.t)
        deformable_joints(float(kin.dcoef), self.n1, self.n2, self.f1, self.f2, self.R1h, self.R2h, self.inv,
                          self.law_dim, self.law_row, self.comp0, self.viscous, L1, L3, L6, kin.x, kin.v,
                          kin.R, kin.w, kin.G, kin.Tw, want_jac, res, jac, info)

    @cached_property
    def _no_info(self):
        return np.zeros((0, self.INFO))

    def evaluate(self, ctx, res_views, jac_views):
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        self._run(ctx, res_views[0], jac[0], want_jac, self._no_info)

    def kernel_info(self, ctx):
        """Per instance (ne, 27), from the kernel: the strain ε = [d̃; θ] and its rate
        [d̃̇; ω̄] (law frame), the law output [F̃; M̃] on the 6 slots (law frame), the global
        force R_f F̃ and couple R_f M̃, and the relative rotation vector θ."""
        info = np.empty((self.ne, self.INFO))
        jac, _ = kernel_jacobian_views(self, None)
        self._run(ctx, np.empty((self.ne, 12)), jac[0], False, info)
        return info

    def output_groups(self, ctx):
        """.jnt rows as MBDyn writes them (spec §8.6): the law's force and couple in the law
        frame, then in the global frame, then the strain (relative rotation in Euler 1-2-3
        degrees, displacement, axial angle) and, for viscous laws, its rate."""
        info = self.kernel_info(ctx)
        base = info[:, 12:24]
        euler = np.degrees(rot.R_to_euler123(rot.exp_rotvec(info[:, 24:27])))
        eps, epsd = info[:, 0:6], info[:, 6:12]
        out = []
        outmask = np.array([s.output for s in self.specs], bool)
        for t in dict.fromkeys(self.types):
            for visc in (False, True):
                sel = np.array([ty == t for ty in self.types]) & outmask & (self.viscous == visc)
                if not sel.any():
                    continue
                if t == "deformable hinge":
                    cols = [euler] + ([epsd[:, 3:6]] if visc else [])
                elif t == "deformable displacement joint":
                    cols = [eps[:, 0:3]] + ([epsd[:, 0:3]] if visc else [])
                elif t == "deformable joint":
                    cols = [eps[:, 0:3], euler] + ([epsd] if visc else [])
                else:
                    cols = [eps[:, 5:6]] + ([epsd[:, 5:6]] if visc else [])
                out.append((self.labels[sel], np.concatenate([base] + cols, axis=1)[sel]))
        return out

    # ------------------------------------------------------------------ private data
    def private_data_names(self, i):
        """MBDyn's private data of deformable joint i (input manual §8.12.11-15): hinge
        rx..rz, wx..wz, Mx..Mz; displacement joint dx..dz, vx..vz, Fx..Fz; deformable joint
        all of them; axial joint rz, wz, Mz (the law's own data are not available here)."""
        xyz = lambda letters: tuple(c + a for c in letters for a in "xyz")   # noqa: E731
        return {"deformable hinge": xyz("rwM"), "deformable displacement joint": xyz("dvF"),
                "deformable joint": xyz("drvwFM"),
                "deformable axial joint": ("rz", "wz", "Mz")}[self.types[i]]

    def private_data(self, ctx, name):
        """One datum over all instances from the strain ε = [d̃; θ], its rate [d̃̇; ω̄] and the
        law output [F̃; M̃], all in the law frame (see the module docstring)."""
        slot = {"d": 0, "r": 3, "v": 0, "w": 3, "F": 0, "M": 3}.get(name[:-1])
        axis = "xyz".find(name[-1:])
        if len(name) != 2 or slot is None or axis < 0:
            raise ValueError(f'deformable joint private datum "{name}" does not exist')
        column = {"d": 0, "r": 0, "v": 6, "w": 6, "F": 12, "M": 12}[name[0]] + slot + axis
        return self.kernel_info(ctx)[:, column]


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_deformable_hinge(reader, model, args, label, word, invariant=False):
    """`[invariant] deformable hinge` (manual §8.12.14, §8.12.28): offsets are ignored, a 3-D
    law of the relative rotation in the node-1 hinge frame (invariant: the mid frame)."""
    n1, R1h, n2, R2h = reader.hinge_sites_without_offsets(args)
    law = reader.read_law(args, 3)
    model.deformable_hinge(label, n1.label, n2.label, law, R1h, R2h, invariant=invariant)


def read_invariant_deformable_hinge(reader, model, args, label, word):
    read_deformable_hinge(reader, model, args, label, word, invariant=True)


def read_deformable_displacement_joint(reader, model, args, label, word, invariant=False):
    """`[invariant] deformable displacement joint` (manual §8.12.13): a 3-D law of the
    relative position of the offset points in the node-1 hinge frame (invariant: mid frame)."""
    n1, f1, R1h, n2, f2, R2h = reader.two_node_hinge_sites(args)
    law = reader.read_law(args, 3)
    model.deformable_displacement_joint(label, n1.label, n2.label, law, f1, R1h, f2, R2h,
                                        invariant=invariant)


def read_invariant_deformable_displacement_joint(reader, model, args, label, word):
    read_deformable_displacement_joint(reader, model, args, label, word, invariant=True)


def read_deformable_joint(reader, model, args, label, word, invariant=False):
    """`[invariant] deformable joint` (manual §8.12.15): a 6-D law of the relative
    displacement and rotation (and rates) in the node-1 hinge frame (invariant: mid frame)."""
    n1, f1, R1h, n2, f2, R2h = reader.two_node_hinge_sites(args)
    law = reader.read_law(args, 6)
    model.deformable_joint(label, n1.label, n2.label, law, f1, R1h, f2, R2h, invariant=invariant)


def read_invariant_deformable_joint(reader, model, args, label, word):
    read_deformable_joint(reader, model, args, label, word, invariant=True)


def read_deformable_axial_joint(reader, model, args, label, word):
    """`deformable axial joint` (manual §8.12.11): a 1-D law of the relative rotation about
    axis 3 of the node-1 hinge frame; offsets are ignored."""
    n1, R1h, n2, R2h = reader.hinge_sites_without_offsets(args)
    law = reader.read_law(args, 1)
    model.deformable_axial_joint(label, n1.label, n2.label, law, R1h, R2h)


CARDS = {
    "deformable hinge": read_deformable_hinge,
    "deformable displacement joint": read_deformable_displacement_joint,
    "deformable displacement hinge": read_deformable_displacement_joint,
    "invariant deformable hinge": read_invariant_deformable_hinge,
    "invariant deformable displacement joint": read_invariant_deformable_displacement_joint,
    "deformable joint": read_deformable_joint, "invariant deformable joint": read_invariant_deformable_joint,
    "deformable axial joint": read_deformable_axial_joint,
}
