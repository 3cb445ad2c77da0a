"""Geometrically exact finite-volume beams (manual ch. 10; Ghiringhelli, Masarati and
Mantegazza, "Multibody implementation of finite volume C0 beams", AIAA J. 38(1), 2000):
`beam3` (three nodes, evaluation points ξ = ∓1/√3) and `beam2` (two nodes, ξ = 0).

Kinematics (ch. 10.1, total form about a reference node):
* reference line p(ξ) = Σ N_k(ξ) y_k with y_k = x_k + R_k f̃_k (offsets in the node frames);
* orientation R(ξ) = exp(φ(ξ)×) R̄_r C_J with φ(ξ) = Σ N_k(ξ) φ_k, φ_k = log(R̄_k R̄_rᵀ), R̄_k = R_k R_hk
  and r the middle node (beam3) or node 1 (beam2).  Interpolating relative rotation vectors
  about a node of the element keeps the strains objective and path independent; the constant
  C_J turns the interpolated frame into the section frame given at the evaluation point;
* ( ' = d/ds, s the arc length of the initial reference line)
  ε = Rᵀ p' - ε₀ and κ = Rᵀ Γ(φ) φ' - κ₀, both zero in the initial configuration;
* strain rates ε̇ = Rᵀ(ṗ' - ω×p'), κ̇ = Rᵀ ω' with the section angular velocity ω(ξ) = Σ N_k ω_k
  interpolated from the nodes (zero under any rigid motion).
* interpolation="incremental" is MBDyn's updated form (manual ch. 10.1): the nodes' rotation
  increments g_k since the last converged step (their Gibbs-Rodrigues unknowns) are
  interpolated, R = R(g(ξ)) R_prev and κ = Rᵀ G(g) g' + κ_prev with the section frame and
  curvature of the last converged step stored per evaluation point (`commit`).  It follows
  MBDyn's results; the total form is path independent.

Section loads (F, M) = R f(ε, κ, ε̇, κ̇) from a 6-D law (axis 1 along the beam).  Finite-volume
balance: each node owns the piece of beam between the evaluation points around it, so
node 1 receives (F_I, M_I + (p_I - x_1)×F_I), node 2 receives the difference of the actions
at II and I with their arms, node 3 the opposite of the action at II (beam2: ±the single
action).  The Jacobian is exact: first variations of ε, κ, ε̇, κ̇ through the rotation
perturbation field θ(ξ) and its derivative θ'(ξ), δκ = Rᵀθ' (no second variations are needed
because the residual is written with section loads, not with a virtual-work integral)."""
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine import rotations as rot
from mbdae.engine.assembly import Pattern
from mbdae.engine.constitutive import Laws
from .base import ElementFamily, node_columns

I3 = np.eye(3)


@dataclass
class BeamSpec:
    label: int
    nodes: tuple                       # 2 or 3 node labels
    laws: list                         # one 6-D constitutive.Law per evaluation point
    offsets: list = None               # node-frame offsets of the reference line (None: zero)
    node_orientations: list = None     # node-frame orientations R_hk (None: identity)
    section_orientations: list = None  # absolute section frames per point (None: from nodes)
    output: bool = True
    interpolation: str = "total"       # "total" (objective) or "incremental" (MBDyn's updated form)


def _cayley_G_derivative(g, a):
    """d/dτ G(g + τ a) for G = c (I + ½ g×), c = 4/(4 + g·g) (rotations.cayley_G)."""
    c = 4.0 / (4.0 + np.einsum('...i,...i->...', g, g))
    ga = np.einsum('...i,...i->...', g, a)
    e = lambda v: v[..., None, None]
    return e(-0.5 * c * c * ga) * (I3 + 0.5 * rot.skew(g)) + e(0.5 * c) * rot.skew(a)


def _gamma_derivative(phi, a):
    """M = d/dτ Γ(φ + τ a) at τ = 0 (…,3,3), for Γ = I + b(φ) φ× + c(φ) φ×φ× (rotations.gamma)."""
    p = np.linalg.norm(phi, axis=-1)
    small = p < 0.05
    q = np.where(small, 1.0, p)
    p2 = p * p
    b = np.where(small, 0.5 - p2 / 24.0 + p2 * p2 / 720.0, (1.0 - np.cos(q)) / (q * q))
    c = np.where(small, 1.0 / 6.0 - p2 / 120.0 + p2 * p2 / 5040.0, (q - np.sin(q)) / q ** 3)
    # (db/dφ)/φ and (dc/dφ)/φ
    bp = np.where(small, -1.0 / 12.0 + p2 / 180.0 - p2 * p2 / 6720.0,
                  (q * np.sin(q) - 2.0 * (1.0 - np.cos(q))) / q ** 4)
    cp = np.where(small, -1.0 / 60.0 + p2 / 1260.0 - p2 * p2 / 60480.0,
                  ((1.0 - np.cos(q)) * q - 3.0 * (q - np.sin(q))) / q ** 5)
    pa = np.einsum('...i,...i->...', phi, a)
    S = rot.skew(phi)
    A = rot.skew(a)
    e = lambda v: v[..., None, None]
    return e(bp * pa) * S + e(b) * A + e(cp * pa) * (S @ S) + e(c) * (A @ S + S @ A)


class _Beams(ElementFamily):
    """Shared implementation; subclasses fix the node count, points and shape functions."""
    NN = 3
    XI = ()
    REF = 1
    W = None          # (NN, NP) finite-volume weights of the point actions on each node
    output_file = "act"

    @staticmethod
    def shape(xi):
        raise NotImplementedError

    def __init__(self, specs, nodes):
        super().__init__(specs, nodes)
        S, NN, NP = self.specs, self.NN, len(self.XI)
        self.NP = NP
        for s in S:
            if len(s.nodes) != NN:
                raise ValueError(f"{self.name} {s.label}: needs {NN} nodes, got {len(s.nodes)}")
            if len(s.laws) != NP:
                raise ValueError(f"{self.name} {s.label}: needs {NP} section laws, got {len(s.laws)}")
            for law in s.laws:
                if getattr(law, "dim", None) != 6:
                    raise ValueError(f"{self.name} {s.label}: the section law must be 6-D")
            if len(set(s.nodes)) != NN:
                raise ValueError(f"{self.name} {s.label}: the nodes must be distinct")
        ne = self.ne
        self.nidx = np.array([self.node_index(s.nodes) for s in S], np.int64).reshape(ne, NN)
        self.f = np.array([[np.zeros(3) if s.offsets is None or s.offsets[k] is None else s.offsets[k]
                            for k in range(NN)] for s in S], float).reshape(ne, NN, 3)
        self.Rh = np.array([[I3 if s.node_orientations is None or s.node_orientations[k] is None
                             else s.node_orientations[k] for k in range(NN)] for s in S],
                           float).reshape(ne, NN, 3, 3)
        N, dN = zip(*(self.shape(x) for x in self.XI))
        self.N = np.array(N)            # (NP, NN)
        self.dN = np.array(dN)          # d/dξ
        modes = {s.interpolation for s in S}
        if not modes <= {"total", "incremental"} or len(modes) != 1:
            raise ValueError(f"{self.name}: interpolation must be 'total' or 'incremental', one per family")
        self.incremental = modes.pop() == "incremental"
        self.laws = Laws([law for s in S for law in s.laws])
        self.viscous = self.laws.viscous
        # initial configuration: metric ds/dξ, section frames, reference strains
        x0, R0 = nodes.x0[self.nidx], nodes.R0[self.nidx]
        geo = self._geometry(x0, R0, np.ones((ne, NP)), np.broadcast_to(I3, (ne, NP, 3, 3)))
        dsdxi = np.linalg.norm(geo["L"], axis=-1)
        if np.any(dsdxi <= 1e-12 * (1.0 + np.abs(x0).max())):
            raise ValueError(f"{self.name}: degenerate reference line (zero length at an evaluation point)")
        self.dsinv = 1.0 / dsdxi                                        # (ne, NP)
        Rint = geo["R"]
        Rsec = Rint.copy()
        for i, s in enumerate(S):
            if s.section_orientations is not None:
                for J in range(NP):
                    if s.section_orientations[J] is not None:
                        Rsec[i, J] = np.asarray(s.section_orientations[J], float).reshape(3, 3)
        self.Csec = np.swapaxes(Rint, -1, -2) @ Rsec                    # R_sec = R_int C
        L = geo["L"] * self.dsinv[..., None]
        k = geo["k"] * self.dsinv[..., None]
        self.eps0 = rot.mattvec(Rsec, L)
        self.kappa0 = rot.mattvec(Rsec, k)
        if self.incremental:                  # state of the last converged step
            self.R_prev = Rsec.copy()
            self.kappa_prev = np.zeros((ne, NP, 3))

    # ------------------------------------------------------------------ pattern
    def build_pattern(self):
        p = self.pattern = Pattern()
        cols = []
        for k in range(self.NN):
            ix, ig = node_columns(self.nodes, self.nidx[:, k])
            cols += [ix, ig]
        self.rows = np.concatenate(cols, axis=1)                        # (ne, 6 NN)
        p.add_res(self.rows)
        p.add_jac(self.rows, self.rows)
        return p

    # ------------------------------------------------------------------ kinematics
    def _geometry(self, x, R, dsinv, Csec, g=None):
        """Interpolated geometry at the evaluation points from node poses x (ne,NN,3), R (ne,NN,3,3)
        (incremental form: node rotation increments g (ne,NN,3))."""
        if g is not None:
            return self._geometry_incremental(x, R, g)
        Rb = R @ self.Rh                                                # R̄_k
        o = rot.matvec(R, self.f)                                       # R_k f̃_k
        y = x + o
        Rr = Rb[:, self.REF]
        E = Rb @ np.swapaxes(Rr, -1, -2)[:, None]                       # R̄_k R̄_rᵀ
        phi = rot.log_rotvec(E)
        phi[:, self.REF] = 0.0
        N, dN = self.N, self.dN * dsinv[..., None]                      # (NP,NN), (ne,NP,NN)
        phiJ = np.einsum('jk,nkc->njc', N, phi)
        dphiJ = np.einsum('njk,nkc->njc', dN, phi)
        G = rot.gamma(phiJ)
        expJ = rot.exp_rotvec(phiJ)
        RJ = expJ @ Rr[:, None] @ Csec
        return dict(Rb=Rb, o=o, y=y, E=E, phi=phi, phiJ=phiJ, dphiJ=dphiJ, G=G, expJ=expJ, R=RJ,
                    p=np.einsum('jk,nkc->njc', N, y), L=np.einsum('njk,nkc->njc', dN, y),
                    k=rot.matvec(G, dphiJ), dN=dN)

    def _geometry_incremental(self, x, R, gn):
        o = rot.matvec(R, self.f)
        y = x + o
        N, dN = self.N, self.dN * self.dsinv[..., None]
        gJ = np.einsum('jk,nkc->njc', N, gn)
        dgJ = np.einsum('njk,nkc->njc', dN, gn)
        G = rot.cayley_G(gJ)
        RJ = rot.cayley(gJ) @ self.R_prev
        return dict(o=o, y=y, gn=gn, gJ=gJ, dgJ=dgJ, G=G, R=RJ, p=np.einsum('jk,nkc->njc', N, y),
                    L=np.einsum('njk,nkc->njc', dN, y), dN=dN)

    def _state(self, ctx):
        kin = ctx.kin
        x, R = kin.x[self.nidx], kin.R[self.nidx]
        v, w = kin.v[self.nidx], kin.w[self.nidx]
        g = self._geometry(x, R, self.dsinv, self.Csec, kin.g[self.nidx] if self.incremental else None)
        RJ, L, dN = g["R"], g["L"], g["dN"]
        eps = rot.mattvec(RJ, L) - self.eps0
        if self.incremental:
            kap = rot.mattvec(RJ, rot.matvec(g["G"], g["dgJ"])) + self.kappa_prev
        else:
            kap = rot.mattvec(RJ, g["k"]) - self.kappa0
        ne, NP = self.ne, self.NP
        if self.viscous:
            yd = v + rot.cross(w, g["o"])
            Ld = np.einsum('njk,nkc->njc', dN, yd)
            wJ = np.einsum('jk,nkc->njc', self.N, w)
            dwJ = np.einsum('njk,nkc->njc', dN, w)
            epsd = rot.mattvec(RJ, Ld - rot.cross(wJ, L))
            kapd = rot.mattvec(RJ, dwJ)
            g.update(Ld=Ld, wJ=wJ, dwJ=dwJ, w=w)
        else:
            epsd = kapd = np.zeros((ne, NP, 3))
        strain = np.concatenate([eps, kap], axis=-1).reshape(ne * NP, 6)
        rate = np.concatenate([epsd, kapd], axis=-1).reshape(ne * NP, 6)
        fl, D, Dv = self.laws.evaluate(strain, rate, ctx.t)
        g.update(x=x, strain=strain.reshape(ne, NP, 6), rate=rate.reshape(ne, NP, 6),
                 f=fl.reshape(ne, NP, 6), D=D.reshape(ne, NP, 6, 6), Dv=Dv.reshape(ne, NP, 6, 6))
        g["F"] = rot.matvec(RJ, g["f"][..., 0:3])
        g["M"] = rot.matvec(RJ, g["f"][..., 3:6])
        return g

    # ------------------------------------------------------------------ residual and Jacobian
    def evaluate(self, ctx, want_jac):
        g = self._state(ctx)
        F, M, p, x = g["F"], g["M"], g["p"], g["x"]
        W = self.W                                                       # (NN, NP)
        ne, NN, NP = self.ne, self.NN, self.NP
        # load on node k from point J: W_kJ (F_J, M_J + (p_J - x_k)×F_J); residual = -load
        arm = p[:, None, :, :] - x[:, :, None, :]                        # (ne, NN, NP, 3)
        mom = M[:, None] + rot.cross(arm, np.broadcast_to(F[:, None], arm.shape))
        resF = -np.einsum('kj,njc->nkc', W, F)
        resM = -np.einsum('kj,nkjc->nkc', W, mom)
        res = [np.concatenate([resF, resM], axis=-1).reshape(ne, 6 * NN)]
        if not want_jac:
            return res, None
        return res, [self._jacobian(ctx, g)]

    def _jacobian(self, ctx, g):
        ne, NN, NP = self.ne, self.NN, self.NP
        nq = 6 * NN
        N, dN = self.N, g["dN"]                                          # (NP,NN), (ne,NP,NN)
        RJ, L, G = g["R"], g["L"], g["G"]
        RJt = np.swapaxes(RJ, -1, -2)
        if self.incremental:
            # θ_J = G(g_J) Σ N_Jk δg_k, θ'_J = d/ds(G(g) δg), δg_k = G(g_k)⁻¹ θ_k
            H = np.linalg.inv(rot.cayley_G(g["gn"]))                     # (ne, NN, 3, 3)
            MG = _cayley_G_derivative(g["gJ"], g["dgJ"])
        else:
            expJ, E = g["expJ"], g["E"]
            H = rot.gamma_inv(g["phi"])                                  # (ne, NN, 3, 3)
            MG = _gamma_derivative(g["phiJ"], g["dphiJ"])                # (ne, NP, 3, 3)
        # θ_J = Σ A_Jk θ_k and θ'_J = Σ B_Jk θ_k
        GH = G[:, :, None] @ H[:, None]                                  # (ne,NP,NN,3,3)
        A = N[None, :, :, None, None] * GH
        B = N[None, :, :, None, None] * (MG[:, :, None] @ H[:, None]) + dN[..., None, None] * GH
        if not self.incremental:
            r = self.REF
            A[:, :, r] += expJ - np.einsum('njkab,nkbc->njac', A, E)
            B[:, :, r] += rot.skew(g["k"]) @ expJ - np.einsum('njkab,nkbc->njac', B, E)
        o = g["o"]
        ox = rot.skew(o)                                                 # (ne, NN, 3, 3)
        # maps on q = (δx_k, θ_k)_k: θ_J, θ'_J, δp_J, δp'_J (global vectors)
        Th = np.zeros((ne, NP, 3, NN, 6))
        Th[..., 3:6] = np.moveaxis(A, 2, 3)
        Thd = np.zeros((ne, NP, 3, NN, 6))
        Thd[..., 3:6] = np.moveaxis(B, 2, 3)
        Dy = np.zeros((ne, NN, 3, 6))                                    # δy_k on its own node
        Dy[..., 0:3] = I3
        Dy[..., 3:6] = -ox
        Pq = np.einsum('jk,nkab->njakb', N, Dy)                          # δp_J  (ne,NP,3,NN,6)
        Lq = np.einsum('njk,nkab->njakb', dN, Dy)                        # δp'_J
        Th, Thd, Pq, Lq = (a.reshape(ne, NP, 3, nq) for a in (Th, Thd, Pq, Lq))
        Lx = rot.skew(L)
        de = RJt @ (Lq + Lx @ Th)                                        # δε
        dk = RJt @ Thd                                                   # δκ
        Dq = np.concatenate([de, dk], axis=2)                            # (ne, NP, 6, nq)
        df = g["D"] @ Dq
        if self.viscous:
            w, wJ, dwJ, Ld = g["w"], g["wJ"], g["dwJ"], g["Ld"]
            # position part of δε̇, δκ̇
            Ldq = np.zeros((ne, NN, 3, 6))
            Ldq[..., 3:6] = -rot.skew(w) @ ox
            Ldq = np.einsum('njk,nkab->njakb', dN, Ldq).reshape(ne, NP, 3, nq)
            wJx = rot.skew(wJ)
            ded_q = RJt @ (Ldq - wJx @ Lq + rot.skew(Ld - rot.cross(wJ, L)) @ Th)
            dkd_q = RJt @ (rot.skew(dwJ) @ Th)
            df = df + g["Dv"] @ np.concatenate([ded_q, dkd_q], axis=2)
            # velocity part: V = (δv_k, δω_k)
            Vy = np.zeros((ne, NN, 3, 6))
            Vy[..., 0:3] = I3
            Vy[..., 3:6] = -ox
            Lv = np.einsum('njk,nkab->njakb', dN, Vy).reshape(ne, NP, 3, nq)
            Wv = np.zeros((NP, 3, NN, 6))
            Wv[:, :, :, 3:6] = np.einsum('jk,ab->jakb', N, I3)
            dWv = np.zeros((ne, NP, 3, NN, 6))
            dWv[..., 3:6] = np.einsum('njk,ab->njakb', dN, I3)
            Wv = Wv.reshape(NP, 3, nq)
            dWv = dWv.reshape(ne, NP, 3, nq)
            ded_v = RJt @ (Lv + Lx @ Wv)
            dkd_v = RJt @ dWv
            dfv = g["Dv"] @ np.concatenate([ded_v, dkd_v], axis=2)
        F, M = g["F"], g["M"]
        dF = -rot.skew(F) @ Th + RJ @ df[:, :, 0:3]
        dM = -rot.skew(M) @ Th + RJ @ df[:, :, 3:6]
        # node rows: -Σ_J W_kJ [dF_J ; dM_J + (p_J - x_k) × dF_J - F_J × (δp_J - δx_k)]
        #          = -[Σ_J W_kJ dF_J ; Σ_J W_kJ (dM_J + p_J × dF_J - F_J × δp_J) - x_k × ΣdF + ΣF × δx_k]
        W = self.W
        x = g["x"]
        p = g["p"]
        Q = dM + rot.skew(p) @ dF - rot.skew(F) @ Pq                      # (ne, NP, 3, nq)
        sF = np.einsum('kj,njaq->nkaq', W, dF)                             # (ne, NN, 3, nq)
        sQ = np.einsum('kj,njaq->nkaq', W, Q)
        FW = np.einsum('kj,nja->nka', W, F)                                # (ne, NN, 3)
        Jq = np.empty((ne, NN, 6, nq))
        Jq[:, :, 0:3] = -sF
        Jq[:, :, 3:6] = -(sQ - rot.skew(x) @ sF)
        FWx = rot.skew(FW)
        for k in range(NN):
            Jq[:, k, 3:6, 6 * k:6 * k + 3] -= FWx[:, k]
        Jq = Jq.reshape(ne, nq, nq)
        Jv = None
        if self.viscous:
            dFv = RJ @ dfv[:, :, 0:3]
            dMv = RJ @ dfv[:, :, 3:6]
            sFv = np.einsum('kj,njaq->nkaq', W, dFv)
            sQv = np.einsum('kj,njaq->nkaq', W, dMv + rot.skew(p) @ dFv)
            Jv = np.empty((ne, NN, 6, nq))
            Jv[:, :, 0:3] = -sFv
            Jv[:, :, 3:6] = -(sQv - rot.skew(x) @ sFv)
            Jv = Jv.reshape(ne, nq, nq)
        return self._chain(ctx.kin, Jq, Jv)

    def _chain(self, kin, Jq, Jv):
        """J_x = dCoef ∂f/∂x + ∂f/∂v, J_g = ∂f/∂θ T_θ + ∂f/∂ω T_ω per node (G8)."""
        J = np.empty_like(Jq)
        dc = kin.dcoef
        for k in range(self.NN):
            a = 6 * k
            n = self.nidx[:, k]
            J[..., a:a + 3] = dc * Jq[..., a:a + 3]
            J[..., a + 3:a + 6] = Jq[..., a + 3:a + 6] @ kin.Tth[n]
            if Jv is not None:
                J[..., a:a + 3] += Jv[..., a:a + 3]
                J[..., a + 3:a + 6] += Jv[..., a + 3:a + 6] @ kin.Tw[n]
        return J

    def commit(self, system, state):
        """After a converged step or phase, before the nodes' increments are reset (G3): the
        incremental form stores the section frames and curvatures (MBDyn's AfterConvergence)."""
        if not self.incremental:
            return
        kin = system.kinematics(state)
        g = self._geometry_incremental(kin.x[self.nidx], kin.R[self.nidx], kin.g[self.nidx])
        self.kappa_prev = rot.mattvec(g["R"], rot.matvec(g["G"], g["dgJ"])) + self.kappa_prev
        self.R_prev = g["R"]

    # ------------------------------------------------------------------ output
    def output_groups(self, ctx):
        """.act rows: for each evaluation point the internal force and moment in the section frame."""
        g = self._state(ctx)
        vals = g["f"].reshape(self.ne, 6 * self.NP)
        out = np.array([s.output for s in self.specs], bool)
        return [(self.labels[out], vals[out])]

    def section_loads(self, ctx):
        """(F, M) at the evaluation points in the global frame, (ne, NP, 3) each."""
        g = self._state(ctx)
        return g["F"], g["M"]

    def strains(self, ctx):
        """Generalized strains (ε, κ) and rates at the evaluation points, section frame (ne, NP, 6)."""
        g = self._state(ctx)
        return g["strain"], g["rate"]


class Beams3(_Beams):
    """Three-node beam: nodes at ξ = -1, 0, 1, evaluation points at ξ = ∓1/√3."""
    name = "beam3"
    NN = 3
    XI = (-1.0 / np.sqrt(3.0), 1.0 / np.sqrt(3.0))
    REF = 1
    W = np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]])

    @staticmethod
    def shape(xi):
        return ([0.5 * xi * (xi - 1.0), 1.0 - xi * xi, 0.5 * xi * (xi + 1.0)],
                [xi - 0.5, -2.0 * xi, xi + 0.5])


class Beams2(_Beams):
    """Two-node beam: nodes at ξ = ∓1, one evaluation point at ξ = 0."""
    name = "beam2"
    NN = 2
    XI = (0.0,)
    REF = 0
    W = np.array([[1.0], [-1.0]])

    @staticmethod
    def shape(xi):
        return [0.5 * (1.0 - xi), 0.5 * (1.0 + xi)], [-0.5, 0.5]
