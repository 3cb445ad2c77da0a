"""Deformable hinge and deformable displacement joint, attached variants (manual §9.2.2 and
§9.2.3): 3-D linear (visco)elastic laws between two nodes, no unknowns of their own.

* deformable hinge: θ = exp⁻¹((R1 R1h)ᵀ R2 R2h) (less an imposed θ0(t)) and
  ω = (R1 R1h)ᵀ(ω2 - ω1) in the node-1 hinge frame; couple m̃ = K θ + C ω; node 2 receives
  -R1h m̃, node 1 the opposite.
* deformable displacement joint: d̃ = (R1 R1h)ᵀ(x2 + f2 - x1 - f1) (less d0(t)) and its rate
  d̃̇ = (R1 R1h)ᵀ(ḋ - ω1×d); force F̃ = K d̃ + C d̃̇ along the node-1 frame; node 2 receives
  -R1h F̃ at f2, node 1 the opposite at the same point, so the pair is moment-free.

The strain measures are exactly the rigid-joint rows (position/velocity, rotation/angular
velocity) of elements.joints, so the family reuses their geometry, reaction maps and
geometric stiffness with the law's output in place of the multipliers."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine import rotations as rot
from mbdae.engine.assembly import Pattern
from .base import ElementFamily, node_columns, chain12
from .joints import RigidJoints, JointSpec, NROWS


@dataclass
class DeformableSpec:
    label: int
    type: str                    # "deformable hinge" | "deformable displacement joint"
    node1: int
    node2: int
    law: object                  # constitutive.LinearLaw3D
    f1: np.ndarray = field(default_factory=lambda: np.zeros(3))
    f2: np.ndarray = field(default_factory=lambda: np.zeros(3))
    R1h: np.ndarray = field(default_factory=lambda: np.eye(3))
    R2h: np.ndarray = field(default_factory=lambda: np.eye(3))
    prestrain: object = None     # VectorDrive of the imposed relative rotation/displacement
    output: bool = True


class DeformableJoints(ElementFamily):
    name = "deformable joint"
    TYPES = ("deformable hinge", "deformable displacement joint")

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S = self.specs
        for s in S:
            if s.type not in self.TYPES:
                raise ValueError(f"{s.type} {s.label}: unknown deformable joint type")
            if s.node1 is None or s.node2 is None:
                raise ValueError(f"{s.type} {s.label}: needs two nodes")
        self.hinge = np.array([s.type == "deformable hinge" for s in S])
        geometry = []
        for s in S:
            active = np.zeros(NROWS, bool)
            if s.type == "deformable hinge":
                active[3:6] = active[9:12] = True
                geometry.append(JointSpec(s.label, s.type, s.node1, s.node2, R1r=s.R1h, R2r=s.R2h,
                                          active=active, rot_drive=s.prestrain))
            else:
                active[0:3] = active[6:9] = True
                geometry.append(JointSpec(s.label, s.type, s.node1, s.node2, f1=s.f1, f2=s.f2, R1h=s.R1h,
                                          active=active, pos_drive=s.prestrain))
        self.geo = RigidJoints(geometry, nodes)
        self.geo.set_offset(0)                   # row groups only; the family owns no unknowns
        self.n1, self.n2, self.ground = self.geo.n1, self.geo.n2, self.geo.ground
        self.K = np.array([s.law.K for s in S]).reshape(-1, 3, 3)
        self.C = np.array([s.law.C for s in S]).reshape(-1, 3, 3)
        gs = self.geo.gs
        self.strain = {"pos": "vel", "rot": "avel"}     # strain group -> its rate group
        self.sel = {g: (~self.hinge if g in ("pos", "vel") else self.hinge) for g in gs}

    def build_pattern(self):
        p = self.pattern = Pattern()
        ix1, ig1 = node_columns(self.nodes, self.n1)
        ix2, ig2 = node_columns(self.nodes, self.n2)
        self.node_rows = np.concatenate([ix1, ig1, ix2, ig2], axis=1)
        p.add_res(self.node_rows)
        p.add_jac(self.node_rows, self.node_rows)
        return p

    def _law(self, ctx):
        """Geometry, rows and the law output λ placed in the strain-group slots."""
        geo, gs = self.geo, self.geo.gs
        G = geo._geometry(ctx)
        c, B, C, Cv = geo._rows(G, ctx)
        lam = np.zeros_like(c)
        for g, rate in self.strain.items():
            if g in gs:
                m = self.sel[g][:, None]
                val = rot.matvec(self.K, c[:, gs[g]]) + rot.matvec(self.C, c[:, gs[rate]])
                lam[:, gs[g]] = np.where(m, val, 0.0)
        return G, c, B, C, Cv, lam

    def evaluate(self, ctx, want_jac):
        G, c, B, C, Cv, lam = self._law(ctx)
        res = [np.einsum('nrq,nr->nq', B, lam)]
        if not want_jac:
            return res, None
        gs = self.geo.gs
        dq = self.geo._geometric_stiffness(G, lam)
        dV = np.zeros_like(dq)
        for g, rate in self.strain.items():
            if g not in gs:
                continue
            m = self.sel[g][:, None, None]
            Bt = np.swapaxes(B[:, gs[g]], 1, 2)                   # (ne, 12, 3)
            dlam_dq = self.K @ C[:, gs[g]] + self.C @ C[:, gs[rate]]
            dlam_dV = self.C @ Cv[:, gs[rate]]
            dq += np.where(m, Bt @ dlam_dq, 0.0)
            dV += np.where(m, Bt @ dlam_dV, 0.0)
        return res, [chain12(ctx.kin, self.n1, self.n2, self.ground, dF_dq=dq, dF_dV=dV)]

    def output_groups(self, ctx):
        """.jnt rows: force/couple on node 2 (local, global), then the strain (relative
        orientation in Euler 1-2-3 degrees, or displacement) and its rate."""
        G, c, B, C, Cv, lam = self._law(ctx)
        load2 = -np.einsum('nrq,nr->nq', B[:, :, 6:12], lam)
        gs = self.geo.gs
        out = []
        for hinge, kind in ((True, "rot"), (False, "pos")):
            sel = (self.hinge == hinge) & np.array([s.output for s in self.specs])
            if not sel.any() or kind not in gs:
                continue
            frame = G["Er"] if hinge else G["E"]
            F, M = load2[:, 0:3], load2[:, 3:6]
            base = np.concatenate([rot.mattvec(frame, F), rot.mattvec(frame, M), F, M], axis=1)
            if hinge:
                strain = np.degrees(rot.R_to_euler123(rot.exp_rotvec(c[:, gs["rot"]])))
            else:
                strain = c[:, gs["pos"]]
            rate = c[:, gs[self.strain[kind]]]
            out.append((self.labels[sel], np.concatenate([base, strain, rate], axis=1)[sel]))
        return out
