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
from dataclasses import dataclass
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


def _mv(A, v):
    """Batched A @ v (matmul: less overhead than einsum on these small stacks)."""
    return (A @ v[..., None])[..., 0]


def _exp_gamma(phi):
    """exp(φ×), Γ(φ) (manual eq. 4.8; δR Rᵀ = (Γ δφ)×) and what dΓ needs: φ×, φ×φ×, the
    coefficients b = (1-cos φ)/φ², c = (φ-sin φ)/φ³ and (db/dφ)/φ, (dc/dφ)/φ (series below 0.05)."""
    p2 = np.einsum('...i,...i->...', phi, phi)
    p = np.sqrt(p2)
    small = p < 0.05
    q = np.where(small, 1.0, p)
    sq, cq = np.sin(q), np.cos(q)
    p4, p6 = p2 * p2, p2 * p2 * p2
    a = np.where(small, 1.0 - p2 / 6.0 + p4 / 120.0 - p6 / 5040.0, sq / q)
    b = np.where(small, 0.5 - p2 / 24.0 + p4 / 720.0 - p6 / 40320.0, (1.0 - cq) / (q * q))
    c = np.where(small, 1.0 / 6.0 - p2 / 120.0 + p4 / 5040.0 - p6 / 362880.0, (q - sq) / q ** 3)
    bp = np.where(small, -1.0 / 12.0 + p2 / 180.0 - p4 / 6720.0 + p6 / 453600.0,
                  (q * sq - 2.0 * (1.0 - cq)) / q ** 4)
    cp = np.where(small, -1.0 / 60.0 + p2 / 1260.0 - p4 / 60480.0 + p6 / 4989600.0,
                  ((1.0 - cq) * q - 3.0 * (q - sq)) / q ** 5)
    S = rot.skew(phi)
    S2 = S @ S
    e = lambda v: v[..., None, None]
    return I3 + e(a) * S + e(b) * S2, I3 + e(b) * S + e(c) * S2, (S, S2, b, c, bp, cp)


def _gamma_derivative(parts, phi, d):
    """d/dτ Γ(φ + τ d) at τ = 0 (…,3,3), from the parts returned by _exp_gamma."""
    S, S2, b, c, bp, cp = parts
    pd = np.einsum('...i,...i->...', phi, d)
    A = rot.skew(d)
    e = lambda v: v[..., None, None]
    return e(bp * pd) * S + e(b) * A + e(cp * pd) * S2 + e(c) * (A @ S + S @ A)


def _cayley_G_derivative(g, c, d):
    """d/dτ G(g + τ d) for G = c (I + ½ g×), c = 4/(4 + g·g) (rotations.cayley_G)."""
    gd = np.einsum('...i,...i->...', g, d)
    e = lambda v: v[..., None, None]
    return e(-0.5 * c * c * gd) * (I3 + 0.5 * rot.skew(g)) + e(0.5 * c) * rot.skew(d)


class _Beams(ElementFamily):
    """Shared implementation; subclasses fix the node count, points and shape functions.

    Evaluation is batched over all instances with a fixed number of numpy calls: node
    quantities are interpolated by one matrix product with the per-instance rows
    [N(ξ_J); dN/ds(ξ_J)], and the Jacobian is built from 3×3 blocks per (point, node) pair.
    The state of the last residual evaluation is kept and reused by a Jacobian evaluation
    at the same node poses and time (Newton tests the residual before building J)."""
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
        self.has_offsets = bool(np.any(self.f))
        self.has_Rh = not np.array_equal(self.Rh, np.broadcast_to(I3, self.Rh.shape))
        N, dN = zip(*(self.shape(x) for x in self.XI))
        self.N = np.array(N)            # (NP, NN)
        self.dN = np.array(dN)          # d/dξ
        self.sub = np.array([k for k in range(NN) if k != self.REF])     # nodes other than the reference
        self.Wt = np.ascontiguousarray(self.W)
        modes = {s.interpolation for s in S}
        if not modes <= {"total", "incremental"} or len(modes) != 1:
            raise ValueError(f"{self.name}: interpolation must be 'total' or 'incremental', one per family")
        self.incremental = modes.pop() == "incremental"
        self.laws = Laws([law for s in S for law in s.laws])
        self.viscous = self.laws.viscous
        lw = self.laws
        # linear laws without drives: f = K e + C ė + σ0 evaluated here with matrix products
        self.plain_law = (not lw.nonlinear and lw.prestrain.empty and lw.sK is None and lw.sC is None
                          and lw.w is None)
        if self.plain_law:
            self.K = lw.K.reshape(ne, NP, 6, 6)
            self.Cv = lw.C.reshape(ne, NP, 6, 6)
            self.sigma0 = lw.sigma0.reshape(ne, NP, 6)
            self.has_sigma0 = bool(np.any(self.sigma0))
        # initial configuration: metric ds/dξ, section frames, reference strains
        x0, R0 = nodes.x0[self.nidx], nodes.R0[self.nidx]
        self.Csec = self.S = None
        self.incremental, incremental = False, self.incremental
        S0 = np.concatenate([np.broadcast_to(self.N, (ne, NP, NN)), np.broadcast_to(self.dN, (ne, NP, NN))], axis=1)
        geo = self._geometry(x0, R0, None, S0)
        self.incremental = incremental
        dsdxi = np.linalg.norm(geo["L"], axis=-1)
        if np.any(dsdxi <= 1e-12 * (1.0 + np.abs(x0).max())):
            raise ValueError(f"{self.name}: degenerate reference line (zero length at an evaluation point)")
        self.dsinv = 1.0 / dsdxi                                        # (ne, NP)
        self.dNs = self.dN * self.dsinv[..., None]                      # dN/ds (ne, NP, NN)
        self.S = np.concatenate([S0[:, :NP], self.dNs], axis=1)         # (ne, 2 NP, NN)
        self.S_sub = np.ascontiguousarray(self.S[:, :, self.sub])
        Rint = geo["R"]
        Rsec = Rint.copy()
        for i, s in enumerate(S):
            if s.section_orientations is not None:
                for J in range(NP):
                    if s.section_orientations[J] is not None:
                        Rsec[i, J] = np.asarray(s.section_orientations[J], float).reshape(3, 3)
        Csec = np.swapaxes(Rint, -1, -2) @ Rsec                          # R_sec = R_int C
        self.Csec = None if np.allclose(Csec, I3, rtol=0.0, atol=1e-15) else Csec
        eps0 = rot.mattvec(Rsec, geo["L"] * self.dsinv[..., None])
        kappa0 = rot.mattvec(Rsec, geo["k"] * self.dsinv[..., None])
        # strain = (Rᵀ p', Rᵀ k) - strain_ref; the incremental form adds κ of the last step instead
        if self.incremental:                  # state of the last converged step
            self.R_prev = Rsec.copy()
            self.kappa_prev = np.zeros((ne, NP, 3))
            self.strain_ref = np.concatenate([eps0, -self.kappa_prev], axis=-1)
        else:
            self.strain_ref = np.concatenate([eps0, kappa0], axis=-1)
        self._cache = None

    # ------------------------------------------------------------------ pattern
    def build_pattern(self):
        p = self.pattern = Pattern()
        NN, ne = self.NN, self.ne
        ix, ig = node_columns(self.nodes, self.nidx)                   # (ne, NN, 3)
        rows = np.concatenate([ix, ig], axis=-1)                        # (ne, NN, 6)
        self.rows = rows.reshape(ne, 6 * NN)
        p.add_res(self.rows)
        # Jacobian blocks (node i rows, node k columns): x columns and rotation columns
        R = np.broadcast_to(rows[:, :, None, :], (ne, NN, NN, 6))
        p.add_jac(R, np.broadcast_to(ix[:, None, :, :], (ne, NN, NN, 3)))
        p.add_jac(R, np.broadcast_to(ig[:, None, :, :], (ne, NN, NN, 3)))
        return p

    # ------------------------------------------------------------------ kinematics
    def _geometry(self, x, R, g, S):
        """Interpolated geometry at the evaluation points from node poses x (ne,NN,3),
        R (ne,NN,3,3), with S = [N; dN/ds] (ne, 2NP, NN); incremental form: node rotation
        increments g (ne,NN,3).  Positions are relative to the reference node (xh, ph)."""
        NP = self.NP
        xr = x[:, self.REF, None]
        xh = x - xr
        if self.has_offsets:
            o = _mv(R, self.f)                                          # R_k f̃_k
            yh = xh + o
        else:
            o = None
            yh = xh
        py = S @ yh
        out = dict(xh=xh, o=o, ph=py[:, :NP], L=py[:, NP:])
        if not self.incremental:
            Rb = R @ self.Rh if self.has_Rh else R                      # R̄_k
            Rr = Rb[:, self.REF]
            E = Rb[:, self.sub] @ np.swapaxes(Rr, -1, -2)[:, None]      # R̄_k R̄_rᵀ, k ≠ r
            phi = rot.log_rotvec(E)
            pj = self.S_sub @ phi if S is self.S else S[:, :, self.sub] @ phi
            phiJ, dphiJ = pj[:, :NP], pj[:, NP:]
            expJ, G, parts = _exp_gamma(phiJ)
            RJ = expJ @ Rr[:, None]
            if self.Csec is not None:
                RJ = RJ @ self.Csec
            out.update(E=E, phi=phi, phiJ=phiJ, dphiJ=dphiJ, expJ=expJ, G=G, parts=parts,
                       k=_mv(G, dphiJ))
        else:
            gj = S @ g
            gJ, dgJ = gj[:, :NP], gj[:, NP:]
            c = 4.0 / (4.0 + np.einsum('...i,...i->...', gJ, gJ))
            Sg = rot.skew(gJ)
            ce = c[..., None, None]
            RJ = (I3 + ce * (Sg + 0.5 * Sg @ Sg)) @ self.R_prev
            G = ce * (I3 + 0.5 * Sg)
            out.update(g=g, gJ=gJ, dgJ=dgJ, cJ=c, G=G, k=_mv(G, dgJ))
        out["R"] = RJ
        return out

    def _state(self, ctx):
        kin = ctx.kin
        nidx = self.nidx
        x, R = kin.x[nidx], kin.R[nidx]
        key = [x, R]
        if self.viscous:
            key += [kin.v[nidx], kin.w[nidx]]
        if self.incremental:
            key.append(kin.g[nidx])
        c = self._cache
        if c is not None and c[0] == ctx.t and all(np.array_equal(a, b) for a, b in zip(c[1], key)):
            return c[2]
        st = self._compute_state(ctx.t, key)
        self._cache = (ctx.t, key, st)
        return st

    def _compute_state(self, t, key):
        x, R = key[0], key[1]
        ne, NP = self.ne, self.NP
        st = self._geometry(x, R, key[-1] if self.incremental else None, self.S)
        RJ, L = st["R"], st["L"]
        RJt = np.swapaxes(RJ, -1, -2)
        strain = np.swapaxes(RJt @ np.stack([L, st["k"]], axis=-1), -1, -2).reshape(ne, NP, 6) - self.strain_ref
        if self.viscous:
            v, w = key[2], key[3]
            yd = v + rot.cross(w, st["o"]) if self.has_offsets else v
            q = self.S @ np.concatenate([yd, w], axis=-1)               # (ne, 2NP, 6)
            Ld, wJ, dwJ = q[:, NP:, 0:3], q[:, :NP, 3:6], q[:, NP:, 3:6]
            a = Ld - rot.cross(wJ, L)                                   # ṗ' - ω×p'
            rate = np.swapaxes(RJt @ np.stack([a, dwJ], axis=-1), -1, -2).reshape(ne, NP, 6)
            st.update(w=w, wJ=wJ, dwJ=dwJ, a=a)
        else:
            rate = np.zeros((ne, NP, 6))
        if self.plain_law:
            fl = _mv(self.K, strain)
            if self.viscous:
                fl += _mv(self.Cv, rate)
            if self.has_sigma0:
                fl += self.sigma0
            D, Dv = self.K, self.Cv
        else:
            fl, D, Dv = self.laws.evaluate(strain.reshape(ne * NP, 6), rate.reshape(ne * NP, 6), t)
            fl, D, Dv = fl.reshape(ne, NP, 6), D.reshape(ne, NP, 6, 6), Dv.reshape(ne, NP, 6, 6)
        FM = np.swapaxes(RJ @ np.swapaxes(fl.reshape(ne, NP, 2, 3), -1, -2), -1, -2)   # (ne,NP,2,3): F, M
        F = FM[:, :, 0]
        # node k load: Σ_J W_kJ (F_J, M_J + (p_J - x_k)×F_J) = (ΣWF, ΣW(M + p̂×F) - x̂_k×ΣWF)
        FQ = np.concatenate([F, FM[:, :, 1] + rot.cross(st["ph"], F)], axis=-1)
        sFQ = self.Wt @ FQ                                              # (ne, NN, 6)
        sF = sFQ[..., 0:3]
        res = -sFQ
        res[..., 3:6] += rot.cross(st["xh"], sF)
        st.update(strain=strain, rate=rate, f=fl, D=D, Dv=Dv, FM=FM, sF=sF,
                  res=res.reshape(ne, 6 * self.NN), RJt=RJt)
        return st

    # ------------------------------------------------------------------ residual and Jacobian
    def evaluate(self, ctx, want_jac):
        st = self._state(ctx)
        res = [st["res"]]
        if not want_jac:
            return res, None
        return res, self._jacobian(ctx, st)

    @staticmethod
    def _spatial(RJ, RJt, D):
        """R D Rᵀ by 3×3 blocks, returned as left and right 6×3 halves [C11; C21], [C12; C22]."""
        ne, NP = D.shape[:2]
        Db = D.reshape(ne, NP, 2, 3, 2, 3).swapaxes(3, 4)               # (ne,NP,2,2,3,3)
        C = RJ[:, :, None, None] @ Db @ RJt[:, :, None, None]
        return C[:, :, :, 0].reshape(ne, NP, 6, 3), C[:, :, :, 1].reshape(ne, NP, 6, 3)

    def _jacobian(self, ctx, st):
        """Blocks ∂(node i rows)/∂(node k columns) from the first variations of the section
        loads: θ(ξ_J) = Σ A_Jk θ_k, θ'(ξ_J) = Σ B_Jk θ_k with A_Jk = N_Jk Γ_J H_k,
        B_Jk = (N_Jk dΓ_J + dN_Jk Γ_J) H_k (H_k = Γ(φ_k)⁻¹; incremental: G, dG, G(g_k)⁻¹), and
        δF_J = -F_J×θ_J + C11(δp'_J + p'_J×θ_J) + C12 θ'_J, δM_J likewise with C21, C22
        (C = R D Rᵀ).  The total form's reference node gets θ_J = exp(φ_J)θ_r - Σ_k A_Jk E_k θ_r."""
        ne, NN, NP = self.ne, self.NN, self.NP
        N = self.N[None, :, :, None, None]                              # (1,NP,NN,1,1)
        dN = self.dNs[..., None, None]                                  # (ne,NP,NN,1,1)
        RJ, RJt, L, FM = st["R"], st["RJt"], st["L"], st["FM"]
        Cl, Cr = self._spatial(RJ, RJt, st["D"])
        FMx = rot.skew(FM).reshape(ne, NP, 6, 3)                        # [F×; M×]
        TU = Cl @ rot.skew(L) - FMx                                     # multiplies θ_J
        if self.viscous:
            Clv, Crv = self._spatial(RJ, RJt, st["Dv"])
            TU = TU + Clv @ rot.skew(st["a"]) + Crv @ rot.skew(st["dwJ"])
            Cx = Cl - Clv @ rot.skew(st["wJ"])                          # multiplies δp'_J
        else:
            Cx = Cl
        if self.incremental:
            G = st["G"]
            MG = _cayley_G_derivative(st["gJ"], st["cJ"], st["dgJ"])
            H = rot.cayley_G_inv(st["g"])                               # (ne, NN, 3, 3)
        else:
            G = st["G"]
            MG = _gamma_derivative(st["parts"], st["phiJ"], st["dphiJ"])
            H = np.zeros((ne, NN, 3, 3))
            H[:, self.sub] = rot.gamma_inv(st["phi"])
        blocks = [TU @ G + Cr @ MG, Cr @ G, Cx]
        if not self.incremental:
            blocks.append(TU + Cr @ rot.skew(st["k"]))                 # reference node: × exp(φ_J)
        if self.viscous:
            blocks += [Clv, Crv]
        big = np.concatenate(blocks, axis=-1)                           # (ne, NP, 6, 3 m)
        # moment about the reference node: rows 3:6 += p̂_J × rows 0:3
        big[:, :, 3:6] += rot.skew(st["ph"]) @ big[:, :, 0:3]
        PQ, Cx = big[..., 0:6], big[..., 6:9]
        NH = np.concatenate([N * H[:, None], dN * H[:, None]], axis=-2)  # (ne,NP,NN,6,3)
        V = PQ[:, :, None] @ NH                                         # rotation-field part, θ_k columns
        if not self.incremental:
            HE = (H[:, self.sub] @ st["E"]).reshape(ne, NN - 1, 9)
            SHE = (self.S_sub @ HE).reshape(ne, 2, NP, 3, 3).swapaxes(1, 2).reshape(ne, NP, 6, 3)
            V[:, :, self.REF] = big[..., 9:12] @ st["expJ"] - PQ @ SHE
        X = dN * Cx[:, :, None]                                         # δx_k columns
        X[..., 3:6, :] -= N * FMx[:, :, None, 0:3]                      # -F_J × δp_J
        if self.has_offsets:
            O = rot.skew(st["o"])[:, None]                              # δp, δp' = -N O θ
            V -= X @ O
            if self.viscous:                                            # δṗ_k = -ω_k×(o_k×θ_k)
                V -= dN * (big[:, :, None, :, -6:-3] @ (rot.skew(st["w"])[:, None] @ O))
        Y = np.concatenate([X, V], axis=-1).reshape(ne, NP, NN * 36)
        Jq = self._node_rows(Y, st, True)
        kin = ctx.kin
        Tth = kin.Tth[self.nidx][:, None]                               # (ne, 1, NN, 3, 3)
        Jx = ctx.dcoef * Jq[..., 0:3]
        Jg = Jq[..., 3:6] @ Tth
        if self.viscous:
            # velocity columns: δṗ'_J = Σ dN_Jk (δv_k - O_k δω_k), δω_J = Σ N_Jk δω_k
            Clv, Crv = big[..., -6:-3], big[..., -3:]
            Xv = dN * Clv[:, :, None]
            Wv = N * (Clv @ rot.skew(L))[:, :, None] + dN * Crv[:, :, None]
            if self.has_offsets:
                Wv -= Xv @ O
            Jv = self._node_rows(np.concatenate([Xv, Wv], axis=-1).reshape(ne, NP, NN * 36), st, False)
            Jx += Jv[..., 0:3]
            Jg += Jv[..., 3:6] @ kin.Tw[self.nidx][:, None]
        return [Jx, Jg]

    def _node_rows(self, Y, st, position):
        """-Σ_J W_iJ Y_Jk with the moment rows moved from the reference node to node i
        (-x̂_i × force rows) and, for position columns, the arm variation (ΣW F)× δx_i."""
        ne, NN = self.ne, self.NN
        WY = (self.Wt @ Y).reshape(ne, NN, NN, 6, 6)
        J = -WY
        J[..., 3:6, :] += rot.skew(st["xh"])[:, :, None] @ WY[..., 0:3, :]
        if position:
            k = np.arange(NN)
            J[:, k, k, 3:6, 0:3] -= rot.skew(st["sF"])
        return J

    def commit(self, system, state):
        """After a converged step or phase, before the nodes' increments are reset (G3): the
        incremental form stores the section frames and curvatures (MBDyn's AfterConvergence)."""
        self._cache = None
        if not self.incremental:
            return
        kin = system.kinematics(state)
        g = self._geometry(kin.x[self.nidx], kin.R[self.nidx], kin.g[self.nidx], self.S)
        self.kappa_prev = rot.mattvec(g["R"], g["k"]) + self.kappa_prev
        self.R_prev = g["R"]
        self.strain_ref = np.concatenate([self.strain_ref[..., 0:3], -self.kappa_prev], axis=-1)

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
        return g["FM"][:, :, 0], g["FM"][:, :, 1]

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
