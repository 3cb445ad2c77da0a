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
geometric stiffness includes the perturbation of Î (eq. 9.287) through u."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core import constitutive as cl
from mbdae.engine.core.assembly import Pattern
from mbdae.elements.base import (ElementFamily, chain12, two_node_columns, write_blocks, vec, mat,
                                 vector_drive, random_rotation, random_nodes)
from mbdae.engine.core.constitutive import LinearLaw3D, LinearViscoelastic1D
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.drives import LinearDrive, SineDrive

I3 = np.eye(3)
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


def half_tangent_coefs(s):
    """τ(s) = tan(s/4)/s and τ'(s)/s, with series near s = 0 (u = τ(|θ|) θ)."""
    small = s < 1e-3
    p = np.where(small, 1.0, s)
    x2 = (s / 4.0) ** 2
    t = np.tan(p / 4.0)
    tau = np.where(small, 0.25 * (1.0 + x2 / 3.0 + 2.0 * x2 * x2 / 15.0), t / p)
    dtau = np.where(small, (2.0 / 3.0 + 8.0 * x2 / 15.0) / 64.0,
                    (p * (1.0 + t * t) / 4.0 - t) / (p * p * p))
    return tau, dtau


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
        self.ground = self.n1 < 0
        self.f1 = np.array([s.f1 for s in S], float).reshape(ne, 3)
        self.f2 = np.array([s.f2 for s in S], float).reshape(ne, 3)
        self.R1h = np.array([s.R1h for s in S], float).reshape(ne, 3, 3)
        self.R2h = np.array([s.R2h for s in S], float).reshape(ne, 3, 3)
        self.inv = np.array([bool(s.invariant) for s in S])
        self.any_inv = bool(self.inv.any())
        self.use = np.zeros((ne, 6), bool)          # strain components each instance uses
        for i, s in enumerate(S):
            self.use[i, list(COMPONENTS[s.type])] = True
        laws = [as_law(s) for s in S]
        # one vectorized law evaluation per law dimension (at most three groups)
        self.groups = []
        for dim in (1, 3, 6):
            idx = np.array([i for i, l in enumerate(laws) if l.dim == dim], np.int64)
            if len(idx):
                comp = np.array([COMPONENTS[S[i].type] for i in idx], np.int64)
                self.groups.append((idx, comp, cl.Laws([laws[i] for i in idx])))
        self.viscous = np.array([l.viscous for l in laws])

    def build_pattern(self):
        p = self.pattern = Pattern()
        self.node_rows, _ = two_node_columns(self.nodes, self.n1, self.n2)
        p.add_res(self.node_rows)
        p.add_jac(self.node_rows, self.node_rows)
        return p

    # ------------------------------------------------------------------ kinematics
    def _geometry(self, kin):
        """Strains, rates and their maps: G dict with eps, epsd (ne, 6), B (virtual strain =
        ∂ε̇/∂(v, ω)), C = ∂ε/∂(x, θ), Cr = ∂ε̇/∂(x, θ) (ne, 6, 12), frame data for the loads."""
        ne = self.ne
        x1, R1, v1, w1 = kin.x[self.n1], kin.R[self.n1], kin.v[self.n1], kin.w[self.n1]
        x2, R2, v2, w2 = kin.x[self.n2], kin.R[self.n2], kin.v[self.n2], kin.w[self.n2]
        f1 = rot.matvec(R1, self.f1)
        f2 = rot.matvec(R2, self.f2)
        E1 = R1 @ self.R1h                                   # R1h of eq. 9.248a (global)
        E2 = R2 @ self.R2h
        th = rot.log_rotvec(np.swapaxes(E1, -1, -2) @ E2)    # eq. 9.247
        Gi = rot.gamma_inv(th)
        d = x2 + f2 - x1 - f1                                # eq. 9.318
        dd = v2 + rot.cross(w2, f2) - v1 - rot.cross(w1, f1)  # eq. 9.319
        dw = w2 - w1
        P1 = np.broadcast_to(I3, (ne, 3, 3)).copy()          # θ_f = P1 θ1 + P2 θ2
        P2 = np.zeros((ne, 3, 3))
        Rf = E1.copy()
        wf = w1.copy()
        U1 = U2 = None
        if self.any_inv:
            k = self.inv
            s = np.linalg.norm(th[k], axis=-1)
            tau, dtau = half_tangent_coefs(s)
            thk = th[k]
            Rf[k] = E1[k] @ rot.exp_rotvec(0.5 * thk)         # R̂ = R1h R̃ (eq. 9.264a)
            u = rot.matvec(E1[k], tau[:, None] * thk)        # Î = ½(I - u×)
            ux = rot.skew(u)
            P1[k] = 0.5 * (I3 + ux)                          # Îᵀ
            P2[k] = 0.5 * (I3 - ux)                          # Î
            wf[k] = rot.matvec(P1[k], w1[k]) + rot.matvec(P2[k], w2[k])   # eq. 9.302
            # δu = U1 θ1 + U2 θ2: u = R1h τ θ, δθ = Γ⁻¹R1hᵀ(θ2 - θ1)
            W = tau[:, None, None] * I3 + dtau[:, None, None] * np.einsum('ni,nj->nij', thk, thk)
            D = E1[k] @ W @ Gi[k] @ np.swapaxes(E1[k], -1, -2)
            U1 = np.zeros((ne, 3, 3))
            U2 = np.zeros((ne, 3, 3))
            U1[k] = -ux - D
            U2[k] = D
        Rft = np.swapaxes(Rf, -1, -2)
        s_vec = dd - rot.cross(wf, d)
        eps = np.concatenate([rot.matvec(Rft, d), th], axis=1)
        epsd = np.concatenate([rot.matvec(Rft, s_vec), rot.matvec(Rft, dw)], axis=1)
        f1x, f2x, dx = rot.skew(f1), rot.skew(f2), rot.skew(d)
        B = np.zeros((ne, 6, 12))
        B[:, 0:3, 0:3] = -Rft
        B[:, 0:3, 3:6] = Rft @ (f1x + dx @ P1)
        B[:, 0:3, 6:9] = Rft
        B[:, 0:3, 9:12] = Rft @ (dx @ P2 - f2x)
        B[:, 3:6, 3:6] = -Rft
        B[:, 3:6, 9:12] = Rft
        C = B.copy()
        GiE = Gi @ np.swapaxes(E1, -1, -2)
        C[:, 3:6, 3:6] = -GiE
        C[:, 3:6, 9:12] = GiE
        wfx, sx, dwx = rot.skew(wf), rot.skew(s_vec), rot.skew(dw)
        Cr = np.zeros((ne, 6, 12))
        Cr[:, 0:3, 0:3] = Rft @ wfx
        Cr[:, 0:3, 6:9] = -Cr[:, 0:3, 0:3]
        a1 = rot.skew(w1) @ f1x - wfx @ f1x + sx @ P1
        a2 = wfx @ f2x - rot.skew(w2) @ f2x + sx @ P2
        if U1 is not None:
            h = 0.5 * dx @ dwx
            a1 = a1 + h @ U1
            a2 = a2 + h @ U2
        Cr[:, 0:3, 3:6] = Rft @ a1
        Cr[:, 0:3, 9:12] = Rft @ a2
        Cr[:, 3:6, 3:6] = Rft @ dwx @ P1
        Cr[:, 3:6, 9:12] = Rft @ dwx @ P2
        return dict(eps=eps, epsd=epsd, B=B, C=C, Cr=Cr, Rf=Rf, P1=P1, P2=P2, U1=U1, U2=U2,
                    f1=f1, f2=f2, d=d, E1=E1, th=th)

    def _law(self, t, eps, epsd):
        """Law output scattered on the 6 strain slots: f (ne, 6), ∂f/∂ε, ∂f/∂ε̇ (ne, 6, 6)."""
        ne = self.ne
        f = np.zeros((ne, 6))
        A = np.zeros((ne, 6, 6))
        Ad = np.zeros((ne, 6, 6))
        for idx, comp, laws in self.groups:
            fi, Ai, Adi = laws.evaluate(eps[idx[:, None], comp], epsd[idx[:, None], comp], t)
            f[idx[:, None], comp] = fi
            r, c = idx[:, None, None], comp[:, :, None]
            A[r, c, comp[:, None, :]] = Ai
            Ad[r, c, comp[:, None, :]] = Adi
        return f, A, Ad

    def _geometric_stiffness(self, G, f):
        """K = ∂(Bᵀ f)/∂(x1, θ1, x2, θ2) at fixed law output f (ne, 12, 12)."""
        Rf, P1, P2 = G["Rf"], G["P1"], G["P2"]
        F = rot.matvec(Rf, f[:, 0:3])
        M = rot.matvec(Rf, f[:, 3:6])
        Fx, Mx = rot.skew(F), rot.skew(M)
        f1x, f2x, dx = rot.skew(G["f1"]), rot.skew(G["f2"]), rot.skew(G["d"])
        P1t, P2t = np.swapaxes(P1, -1, -2), np.swapaxes(P2, -1, -2)
        K = np.zeros((self.ne, 12, 12))
        K[:, 0:3, 3:6] = Fx @ P1
        K[:, 0:3, 9:12] = Fx @ P2
        K[:, 6:9, 3:6] = -K[:, 0:3, 3:6]
        K[:, 6:9, 9:12] = -K[:, 0:3, 9:12]
        dF = dx @ Fx
        Fa = f1x @ Fx + P1t @ dF + Mx                 # r_θ1 through θ_f
        Fb = -f2x @ Fx + P2t @ dF - Mx                # r_θ2 through θ_f
        K[:, 3:6, 0:3] = -P1t @ Fx
        K[:, 3:6, 6:9] = P1t @ Fx
        K[:, 3:6, 3:6] = Fa @ P1 - Fx @ f1x + P1t @ Fx @ f1x
        K[:, 3:6, 9:12] = Fa @ P2 - P1t @ Fx @ f2x
        K[:, 9:12, 0:3] = -P2t @ Fx
        K[:, 9:12, 6:9] = P2t @ Fx
        K[:, 9:12, 3:6] = Fb @ P1 + P2t @ Fx @ f1x
        K[:, 9:12, 9:12] = Fb @ P2 + Fx @ f2x - P2t @ Fx @ f2x
        if G["U1"] is not None:                       # δÎ (eq. 9.287) through δu
            h = 0.5 * rot.skew(rot.cross(F, G["d"]))
            K[:, 3:6, 3:6] += h @ G["U1"]
            K[:, 3:6, 9:12] += h @ G["U2"]
            K[:, 9:12, 3:6] -= h @ G["U1"]
            K[:, 9:12, 9:12] -= h @ G["U2"]
        return K

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, ctx, res_views, jac_views):
        want_jac = jac_views is not None
        G = self._geometry(ctx.kin)
        f, A, Ad = self._law(ctx.t, G["eps"], G["epsd"])
        B = G["B"]
        Bt = np.swapaxes(B, 1, 2)
        res = [np.einsum('nrq,nr->nq', B, f)]
        if not want_jac:
            write_blocks(res_views, res)
            return
        dq = Bt @ (A @ G["C"] + Ad @ G["Cr"]) + self._geometric_stiffness(G, f)
        dV = Bt @ Ad @ B
        write_blocks(res_views, res)
        write_blocks(jac_views, [chain12(ctx.kin, self.n1, self.n2, self.ground, dF_dq=dq, dF_dV=dV)])

    def loads(self, ctx):
        """(G, F, M): the law's force and couple in the global frame, R_f F̃ and R_f M̃."""
        G = self._geometry(ctx.kin)
        f, _, _ = self._law(ctx.t, G["eps"], G["epsd"])
        return G, f, rot.matvec(G["Rf"], f[:, 0:3]), rot.matvec(G["Rf"], f[:, 3:6])

    def output_groups(self, ctx):
        """.jnt rows as MBDyn writes them (spec §8.6): the law's force and couple in the law
        frame, then in the global frame, then the strain (relative rotation in Euler 1-2-3
        degrees, displacement, axial angle) and, for viscous laws, its rate."""
        G, f, F, M = self.loads(ctx)
        base = np.concatenate([f[:, 0:3], f[:, 3:6], F, M], axis=1)
        euler = np.degrees(rot.R_to_euler123(rot.exp_rotvec(G["th"])))
        eps, epsd = G["eps"], G["epsd"]
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
        G = self._geometry(ctx.kin)
        if name[0] in "dr":
            return G["eps"][:, slot + axis].copy()
        if name[0] in "vw":
            return G["epsd"][:, slot + axis].copy()
        f, _, _ = self._law(ctx.t, G["eps"], G["epsd"])
        return f[:, slot + axis]


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
