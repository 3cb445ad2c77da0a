"""Reduced (modal) bodies from mbdae's own models: the linear structure of a model's
deformable elements at its reference, Craig–Bampton or free-interface modes, and MBDyn's FEM
data file for the modal joint (elements/modal.py, theory manual §9.4).

The structure (`linear_structure`): K = ∂f/∂y and M from the momentum rows of the
iteration matrix J(c) = f/ẏ + c f/y, assembled at c = ±1 (as the eigenanalysis does):
f/y = (J(+1) - J(-1))/2, f/ẏ = (J(+1) + J(-1))/2 on the differential columns.  With node
rows  D₁ β̇ + K q = 0  and momentum rows  D₂ β + D₃ q̇ = 0,  M = -D₁ D₂⁻¹ D₃ (the momenta
eliminated).  Internal algebraic unknowns (the shells' and membranes' EAS parameters) are
condensed statically, element by element.  Unknowns per node: the position (3) and, for
6-dof nodes, the rotation (3; at the reference g = θ, global frame).

Interfaces: a node set of one node keeps that node's unknowns as boundary unknowns; a set of
several nodes gets a rigid 6-dof master at its centroid (an RBE2: u_s = u_m + θ_m × (x_s -
x_m), θ_s = θ_m), written to the FEM file as an extra node named after the set, so that a
multibody node can be clamped to it.  Fixed nodes lose all their unknowns.

Craig–Bampton (`method="craig-bampton"`): with boundary unknowns b and interior i,
the constraint modes Ψ = -K_ii⁻¹ K_ib and the `modes` lowest fixed-interface modes Φ
(K_ii φ = ω² M_ii φ, shift-invert about 0 with the same factorization); the basis
[I 0; Ψ Φ] is then orthogonalized (the eigenvectors of the projected pair, Craig–Chang), so
that the file's generalized mass is I and its stiffness diag(ω²), and the rigid-body modes
(those the fixed nodes do not stop) are dropped: the modal node carries the rigid motion.
Free interface (`method="free"`): the `modes` lowest non-rigid modes of the whole structure.

The stiffness factorization is CHOLMOD's (scikit-sparse, optional) when present, else
SciPy's SuperLU in symmetric mode; `solver` chooses.  MBDyn's beams (finite volumes) have an
unsymmetric K: then SuperLU's LU, ARPACK's general eigs, and the orthogonalization takes
the eigenvectors of the projected mass and the symmetric part of the projected stiffness
(the same span), writing Mqq = I and the Galerkin projection Kqq = VᵀKV in full.  The eigenvalues come from ARPACK in
shift-invert mode (scipy.sparse.linalg.eigsh with that factorization as OPinv)."""
from dataclasses import dataclass, field
import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator, eigs, eigsh, splu

from mbdae.engine.system import System
from mbdae.engine.core.assembly import ALGEBRAIC
from mbdae.elements.modal_fem import FemData

try:                                    # optional extra: scikit-sparse (CHOLMOD)
    from sksparse.cholmod import cholesky as cholmod_cholesky, CholmodNotPositiveDefiniteError
except ImportError:                     # pragma: no cover - depends on the installation
    cholmod_cholesky = None
    CholmodNotPositiveDefiniteError = None

METHODS = ("craig-bampton", "free")
SYMMETRIC = 1e-9        # |K - Kᵀ|/|K| below which K is taken as symmetric (beams' is not: finite volumes)
SOLVERS = ("auto", "cholmod", "scipy")


@dataclass
class Structure:
    """The linear structure of a model at its reference: node labels (n,), positions (n, 3),
    `dof` (n, 6) the unknown index of each node's x, y, z, θx, θy, θz (-1: none), K and M
    (sparse) on those unknowns: M symmetric; K symmetrized when its asymmetry is round-off
    (solids, shells), kept as it is otherwise (MBDyn's finite-volume beams)."""
    labels: np.ndarray
    x: np.ndarray
    dof: np.ndarray
    K: sp.csr_matrix
    M: sp.csr_matrix
    asymmetry: float = 0.0            # |K - Kᵀ| / |K| (max entries) as assembled
    source: object = None             # the Linearization it came from (stress stiffening)
    sign: float = 1.0                 # K = sign·f/y (the engine's residual sign)

    @property
    def n_dof(self):
        return self.K.shape[0]


@dataclass
class Reduction:
    """What `reduce_structure` made: the FEM data (write it with modal_fem.write_fem_file),
    the kept modes' frequencies (Hz), the counts and the time of each part (s)."""
    fem: FemData
    frequencies: np.ndarray
    method: str
    solver: str
    n_boundary: int
    n_fixed_interface: int
    n_rigid: int
    timings: dict = field(default_factory=dict)


def _block_inverse(A):
    """The inverse of a sparse block-diagonal matrix (blocks = connected components of its
    pattern; the shells' EAS unknowns, 7 or 13 per element), as a sparse matrix."""
    A = sp.csr_matrix(A)
    n = A.shape[0]
    ncomp, comp = connected_components(A, directed=False)
    order = np.argsort(comp, kind="stable")
    sizes = np.bincount(comp, minlength=ncomp)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(n) - first[comp[order]]
    coo = A.tocoo()
    rows, cols, vals = [], [], []
    for s in np.unique(sizes):
        which = np.flatnonzero(sizes == s)
        slot = np.full(ncomp, -1, np.int64)
        slot[which] = np.arange(len(which))
        blocks = np.zeros((len(which), s, s))
        keep = slot[comp[coo.row]] >= 0
        np.add.at(blocks, (slot[comp[coo.row[keep]]], pos[coo.row[keep]], pos[coo.col[keep]]), coo.data[keep])
        try:
            inv = np.linalg.inv(blocks)
        except np.linalg.LinAlgError:
            raise ValueError("the internal unknowns of some element cannot be condensed (a singular block)") from None
        idx = order[(first[which][:, None] + np.arange(s)[None, :])]          # (nb, s) unknowns
        rows.append(np.repeat(idx, s, axis=1).ravel())
        cols.append(np.tile(idx, (1, s)).ravel())
        vals.append(inv.ravel())
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))


class Linearization:
    """A model's System and its unknowns split into node unknowns N (position, rotation;
    numbered as Structure.dof), momenta P and internal algebraic unknowns A (module
    docstring).  `stiffness(offset)`: K with the node unknowns displaced by `offset` (the
    prestressed states of the stress stiffening)."""

    def __init__(self, model):
        self.system = system = System(model)
        nodes = system.nodes
        self.alg = system.kind == ALGEBRAIC
        self.dof = np.full((nodes.n, 6), -1, np.int64)
        cols = np.concatenate([nodes.ix, nodes.ig], axis=1)             # (n, 6) unknown indices
        have = cols >= 0
        self.dof[have] = np.arange(int(have.sum()))
        self.N = cols[have]
        self.P = np.concatenate([nodes.ib[nodes.ib >= 0], nodes.ic[nodes.ic >= 0]])
        self.A = A = np.arange(nodes.total, system.n)
        if len(A) and not self.alg[A].all():
            row = int(A[~self.alg[A]][0])
            raise ValueError(f"reduce: {system.row_what[row]} of {system.row_label[row]} is a differential "
                             "unknown of an element; only nodes, deformable elements and bodies can be reduced")

    def split(self, offset=None):
        """(f/y, f/ẏ) (CSR) at the reference, node unknowns moved by `offset`."""
        system = self.system
        state = system.initial_state(0.0)
        if offset is not None:
            state.y[self.N] += offset
        Jp = system.evaluate(state, 1.0, mode="regular", want_abs=False)[2].tocsc()
        Jm = system.evaluate(state, -1.0, mode="regular", want_abs=False)[2].tocsc()
        diff, alg = sp.diags((~self.alg).astype(float)), sp.diags(self.alg.astype(float))
        return (((Jp - Jm) * 0.5) @ diff + Jp @ alg).tocsr(), (((Jp + Jm) * 0.5) @ diff).tocsr()

    def stiffness(self, Fy):
        """K on the node unknowns, the internal unknowns condensed."""
        N, A = self.N, self.A
        K = Fy[N][:, N]
        if len(A):
            KAA = Fy[A][:, A]
            zero = np.flatnonzero(np.abs(KAA.diagonal()) == 0.0)
            if len(zero):
                row = int(A[zero[0]])
                raise ValueError(f"reduce: the model has constraint equations ({self.system.row_what[row]} of "
                                 f"{self.system.row_label[row]}); reduce the structure alone and name its fixed "
                                 "nodes")
            K = K - Fy[N][:, A] @ _block_inverse(KAA) @ Fy[A][:, N]
        return K

    def mass(self, Fy, Fyp):
        N, P = self.N, self.P
        if not len(P):
            return sp.csr_matrix((len(N), len(N)))
        return -(Fyp[N][:, P] @ _block_inverse(Fy[P][:, P]) @ Fyp[P][:, N])


def linear_structure(model):
    """The Structure (K, M) of `model` at its reference (module docstring).  The model holds
    nodes, deformable elements and bodies; constraints (joints, genels) are refused, name the
    fixed nodes of the reduction instead.  Nodes without momenta (static) carry no mass."""
    lin = Linearization(model)
    Fy, Fyp = lin.split()
    K, M = lin.stiffness(Fy), lin.mass(Fy, Fyp)
    sign = -1.0 if (M.diagonal().sum() < 0 or (M.nnz == 0 and K.diagonal().sum() < 0)) else 1.0
    K, M = sign * K, sign * M
    scale = max(abs(K).max(), 1e-300)
    asym = abs(K - K.T).max() / scale if K.nnz else 0.0
    K = ((K + K.T) * 0.5).tocsr() if asym <= SYMMETRIC else K.tocsr()
    M = ((M + M.T) * 0.5).tocsr()
    K.eliminate_zeros()
    M.eliminate_zeros()
    nodes = lin.system.nodes
    return Structure(nodes.labels.copy(), nodes.x0.copy(), lin.dof, K, M, float(asym), lin, sign)


def rigid_modes(x, dof, n_dof):
    """(n_dof, 6): the 6 rigid motions (translations, rotations about the origin) on the
    unknowns `dof` (n, 6) of points x (n, 3)."""
    R = np.zeros((n_dof, 6))
    for c in range(3):
        rows = dof[:, c]
        ok = rows >= 0
        R[rows[ok], c] = 1.0
        # (ω × x)_c = ω_{c+1} x_{c+2} - ω_{c+2} x_{c+1}
        R[rows[ok], 3 + (c + 1) % 3] = x[ok, (c + 2) % 3]
        R[rows[ok], 3 + (c + 2) % 3] = -x[ok, (c + 1) % 3]
        rows = dof[:, 3 + c]
        ok = rows >= 0
        R[rows[ok], 3 + c] = 1.0
    return R


class _Factor:
    """A factorization of a sparse SPD matrix: CHOLMOD's, or SuperLU's in symmetric mode;
    of a general one (symmetric=False): SuperLU's LU."""

    def __init__(self, A, solver, what, symmetric=True):
        A = sp.csc_matrix(A)
        self.n = A.shape[0]
        if not symmetric:
            try:
                self.f = splu(A)
            except RuntimeError as e:
                raise ValueError(f"reduce: {what} is singular ({e})") from None
            self.solve = self.f.solve
        elif solver == "cholmod":
            try:
                self.f = cholmod_cholesky(A)
            except CholmodNotPositiveDefiniteError:
                raise ValueError(f"reduce: {what} is not positive definite") from None
            self.solve = self.f
        else:
            try:
                self.f = splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                              options={"SymmetricMode": True})
            except RuntimeError as e:
                raise ValueError(f"reduce: {what} is singular ({e})") from None
            self.solve = self.f.solve

    def operator(self):
        return LinearOperator((self.n, self.n), matvec=self.solve, dtype=float)


def _lowest_modes(K, M, k, factor, sigma, symmetric=True):
    """(λ, Φ) of the k eigenvalues of K φ = λ M φ nearest sigma (ascending; Φ M-normalized
    when symmetric, else the real parts of eigs' vectors)."""
    if k == 0:
        return np.zeros(0), np.zeros((K.shape[0], 0))
    n = K.shape[0]
    if k >= n - 2:                                       # small problems: dense
        lam, V = (sla.eigh if symmetric else sla.eig)(K.toarray(), M.toarray())
    elif symmetric:
        lam, V = eigsh(K, k=k, M=M, sigma=sigma, which="LM", OPinv=factor.operator(), mode="normal")
    else:
        lam, V = eigs(K, k=k, M=M, sigma=sigma, which="LM", OPinv=factor.operator())
    if not symmetric:
        # a repeated eigenvalue may come as complex vectors of its (real) eigenspace: keep
        # the k leading directions of their real and imaginary parts
        order = np.argsort(lam.real)[:k]
        W = np.hstack([V.real[:, order], V.imag[:, order]])
        U, sv, _ = np.linalg.svd(W, full_matrices=False)
        return lam.real[order], U[:, :min(k, int((sv > 1e-10 * sv[0]).sum()))]
    order = np.argsort(lam)[:k]
    return lam[order], V[:, order]


def _interface_map(structure, interfaces, fixed):
    """(T (n_dof, n_red) sparse: full unknowns of the reduced ones, boundary mask (n_red,),
    masters [(name, position, their 6 reduced columns)], the fixed nodes' full unknowns,
    per interface (in order) the (n_dof, 6) loads of a unit force and moment on it)."""
    labels, x, dof = structure.labels, structure.x, structure.dof
    index = {int(l): i for i, l in enumerate(labels)}

    def node_index(label, what):
        try:
            return index[int(label)]
        except KeyError:
            raise ValueError(f"reduce: {what}: node {label} is not in the model") from None

    fixed_nodes = sorted({node_index(l, "fixed") for l in fixed})
    owner = {}
    masters, singles, order = [], [], []
    for name, members in interfaces.items():
        members = [node_index(l, f"interface {name!r}") for l in members]
        if not members:
            raise ValueError(f"reduce: interface {name!r} has no nodes")
        for i in members:
            if i in owner:
                raise ValueError(f"reduce: node {labels[i]} is in interfaces {owner[i]!r} and {name!r}")
            if i in fixed_nodes:
                raise ValueError(f"reduce: node {labels[i]} of interface {name!r} is also fixed")
            owner[i] = name
        order.append((str(name), members))
        if len(members) == 1:
            singles.append(members[0])
        else:
            if str(name) in {str(int(l)) for l in labels}:
                raise ValueError(f"reduce: interface {name!r} has the name of a node label")
            masters.append((str(name), members))
    slaves = {i for _, m in masters for i in m}
    fixed_set = set(fixed_nodes)
    n_full = structure.n_dof
    rows, cols, vals = [], [], []
    bnd = []
    col = 0
    for i in range(len(labels)):                        # plain unknowns: identity columns
        if i in slaves or i in fixed_set:
            continue
        for c in range(6):
            if dof[i, c] >= 0:
                rows.append(dof[i, c]), cols.append(col), vals.append(1.0)
                bnd.append(i in owner)
                col += 1
    master_info = []
    for name, members in masters:
        xm = x[members].mean(axis=0)
        c0 = col
        for i in members:
            d = x[i] - xm
            for c in range(3):
                rows.append(dof[i, c]), cols.append(c0 + c), vals.append(1.0)
                # u_c += (θ × d)_c = θ_{c+1} d_{c+2} - θ_{c+2} d_{c+1}
                rows.append(dof[i, c]), cols.append(c0 + 3 + (c + 1) % 3), vals.append(d[(c + 2) % 3])
                rows.append(dof[i, c]), cols.append(c0 + 3 + (c + 2) % 3), vals.append(-d[(c + 1) % 3])
                if dof[i, 3 + c] >= 0:
                    rows.append(dof[i, 3 + c]), cols.append(c0 + 3 + c), vals.append(1.0)
        bnd += [True] * 6
        master_info.append((name, xm, np.arange(c0, c0 + 6)))
        col += 6
    T = sp.csr_matrix((vals, (rows, cols)), shape=(n_full, col))
    fixed_dofs = dof[fixed_nodes].ravel() if fixed_nodes else np.zeros(0, np.int64)
    master_cols = {name: c for name, _, c in master_info}
    loads = []
    for name, members in order:
        if len(members) == 1:
            F = np.zeros((n_full, 6))
            ok = dof[members[0]] >= 0
            F[dof[members[0]][ok], np.flatnonzero(ok)] = 1.0
        else:
            F = T[:, master_cols[name]].toarray()              # a unit load on the rigid master
        loads.append(F)
    return T, np.array(bnd, bool), master_info, fixed_dofs[fixed_dofs >= 0], loads


def _pick_solver(solver):
    if solver not in SOLVERS:
        raise ValueError(f"reduce: solver {solver!r} is not one of {SOLVERS}")
    if solver == "cholmod" and cholmod_cholesky is None:
        raise ValueError("reduce: solver 'cholmod' needs scikit-sparse (README: optional extras)")
    return "cholmod" if solver == "auto" and cholmod_cholesky is not None else ("scipy" if solver == "auto" else solver)


def reduce_structure(structure, interfaces, fixed=(), modes=10, method="craig-bampton", solver="auto", path="reduced",
                     stress_stiffening=False):
    """The Reduction of a Structure (module docstring): `interfaces` {name: node labels},
    `fixed` node labels, `modes` fixed-interface modes (Craig–Bampton) or modes (free),
    `path` the name the FemData carries; `stress_stiffening`: record 19's matrices too
    (stiffening_matrices; the structure must come from linear_structure and be held by its
    fixed nodes)."""
    if method not in METHODS:
        raise ValueError(f"reduce: method {method!r} is not one of {METHODS}")
    if modes < 0:
        raise ValueError("reduce: the number of modes must not be negative")
    solver = _pick_solver(solver)
    symmetric = structure.asymmetry <= SYMMETRIC
    if not symmetric:
        solver = "scipy"               # LU: CHOLMOD needs a symmetric matrix
    timings = {}
    t0 = time.perf_counter()
    T, bnd, masters, fixed_dofs, iface_loads = _interface_map(structure, interfaces, fixed)
    Kr = (T.T @ structure.K @ T).tocsr()
    Mr = (T.T @ structure.M @ T).tocsr()
    n_red = Kr.shape[0]
    # rigid motions left free by the fixed nodes, on the reduced unknowns
    R_full = rigid_modes(structure.x, structure.dof, structure.n_dof)
    # T has one identity or master column per reduced unknown: TᵀT is invertible and
    # (TᵀT)⁻¹Tᵀ R restricts a rigid motion (which the masters' rigid links carry exactly)
    Rr = splu((T.T @ T).tocsc()).solve(np.asarray(T.T @ R_full))
    if len(fixed_dofs):
        _, s, Vt = np.linalg.svd(R_full[fixed_dofs], full_matrices=True)
        rank = int((s > 1e-10 * max(s.max(), 1.0)).sum())
        free_rigid = Vt[rank:].T                                 # (6, 6 - rank)
    else:
        free_rigid = np.eye(6)
    n_rigid = free_rigid.shape[1]
    timings["interfaces"] = time.perf_counter() - t0
    if method == "craig-bampton":
        b, i = np.flatnonzero(bnd), np.flatnonzero(~bnd)
        if len(b) == 0:
            raise ValueError("reduce: Craig–Bampton needs interface nodes")
        if n_rigid and np.linalg.matrix_rank(Rr[b] @ free_rigid, tol=1e-8 * max(1.0, np.abs(Rr).max())) < n_rigid:
            raise ValueError("reduce: the interface and fixed nodes do not hold the body's rigid motion "
                             "(K_ii is singular): add interface nodes, or use free-interface modes")
        Kii, Mii = Kr[i][:, i], Mr[i][:, i]
        t0 = time.perf_counter()
        factor = _Factor(Kii, solver, "the interior stiffness K_ii", symmetric)
        timings["factorization"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        k = min(modes, len(i))
        lam_i, Phi = _lowest_modes(Kii, Mii, k, factor, 0.0, symmetric)
        timings["eigen"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        Kib = Kr[i][:, b].toarray()
        Psi = -factor.solve(Kib) if len(i) else np.zeros((0, len(b)))
        basis = np.zeros((n_red, len(b) + k))
        basis[b, :len(b)] = np.eye(len(b))
        basis[np.ix_(i, np.arange(len(b)))] = Psi
        basis[np.ix_(i, np.arange(len(b), len(b) + k))] = Phi
        timings["constraint modes"] = time.perf_counter() - t0
        n_b, n_fi = len(b), k
    else:
        t0 = time.perf_counter()
        scale = Kr.diagonal().sum() / max(Mr.diagonal().sum(), 1e-300)
        sigma = -1e-6 * scale if n_rigid else 0.0
        factor = _Factor((Kr - sigma * Mr).tocsc(), solver, "the stiffness (shifted)", symmetric)
        timings["factorization"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        lam_a, basis = _lowest_modes(Kr, Mr, min(modes + n_rigid, n_red), factor, sigma, symmetric)
        timings["eigen"] = time.perf_counter() - t0
        n_b, n_fi = 0, basis.shape[1] - n_rigid
    # orthogonalize on the projected pair, drop the rigid modes
    t0 = time.perf_counter()
    Kp = basis.T @ (Kr @ basis)
    Mp = basis.T @ (Mr @ basis)
    Mp = 0.5 * (Mp + Mp.T)
    # an Mp-orthonormal basis of the same span from the symmetric part of Kp (for MBDyn's
    # unsymmetric beams too: their rigid motions are right and left null vectors of K, so
    # also of its symmetric part); the rigid ones (lowest) dropped; Galerkin projections
    lam, V = sla.eigh(0.5 * (Kp + Kp.T), Mp)
    lam, V = lam[n_rigid:], V[:, n_rigid:]
    if symmetric:
        Mqq, Kqq = np.eye(len(lam)), np.diag(lam)
    else:
        Mqq, Kqq = np.eye(len(lam)), V.T @ Kp @ V
        lam = np.sort(np.linalg.eigvals(Kqq).real)
    shapes = T @ (basis @ V)                                      # (n_dof, m) on the structure
    timings["projection"] = time.perf_counter() - t0
    fem = _fem_data(structure, shapes, masters, T, basis @ V, Mqq, Kqq, path)
    if stress_stiffening:
        if n_rigid:
            raise ValueError("reduce: stress stiffening needs fixed nodes that hold the body (its prestress "
                             "states are solved with them held)")
        t0 = time.perf_counter()
        fem.stiffening = stiffening_matrices(structure, T, Kr, iface_loads, shapes, solver)
        timings["stress stiffening"] = time.perf_counter() - t0
    freq = np.sqrt(np.maximum(lam, 0.0)) / (2 * np.pi)
    return Reduction(fem, freq, method, solver, n_b, n_fi, n_rigid, timings)


# ω×(ω×x) = W(ω_q) x with ω_q = (ω₁², ω₂², ω₃², ω₁ω₂, ω₂ω₃, ω₃ω₁): W = Σ ω_q[m] OMEGA_PRODUCTS[m]
OMEGA_PRODUCTS = np.array([np.diag([0.0, -1.0, -1.0]), np.diag([-1.0, 0.0, -1.0]), np.diag([-1.0, -1.0, 0.0]),
                           [[0, 1, 0], [1, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 1], [0, 1, 0]],
                           [[0, 0, 1], [0, 0, 0], [1, 0, 0]]], float)


def prestress_loads(structure, iface_loads):
    """(n_dof, 12 + 6 NI): the load cases of record 19 (elements/modal_fem.py) on the
    structure: -M a for the unit rigid-body accelerations a of the frame (a = W_m x for the
    ω products, e_i × x and e_i for the angular acceleration, e_i for ẍ₀ - g), then the unit
    forces and moments on each interface.  Rotary inertia enters the angular-acceleration
    cases only (the centrifugal ones load the translations)."""
    x, dof = structure.x, structure.dof
    acc = np.zeros((structure.n_dof, 12))
    E = np.eye(3)
    for c in range(3):
        ok = dof[:, c] >= 0
        rows = dof[ok, c]
        for m in range(6):
            acc[rows, m] = x[ok] @ OMEGA_PRODUCTS[m][c]
        for i in range(3):
            acc[rows, 6 + i] = np.cross(E[i], x[ok])[:, c]
        acc[rows, 9 + c] = 1.0
        okr = dof[:, 3 + c] >= 0
        acc[dof[okr, 3 + c], 6 + c] = 1.0
    return np.hstack([-(structure.M @ acc)] + list(iface_loads))


def stiffening_matrices(structure, T, Kr, iface_loads, shapes, solver):
    """{index: (m, m)} of record 19: for each load case (prestress_loads), the linear static
    displacement u with the fixed nodes held, the stresses it causes at the solids'
    integration points (their own stress evaluation at the state εu, divided by ε), their
    initial-stress stiffness K_σ (Solids.stress_stiffness), on the modes: shapesᵀ K_σ shapes.
    Solid elements only: the tangent of MBDyn's geometrically exact beams and shells mixes
    the initial-displacement terms into any difference of stiffnesses.  Cases without load
    are left out."""
    lin = structure.source
    if lin is None:
        raise ValueError("reduce: stress stiffening needs the structure of linear_structure(model)")
    system = lin.system
    solids = [f for f in system.families if hasattr(f, "stress_stiffness")]
    others = sorted({f.name for f in system.families if not hasattr(f, "stress_stiffness") and f.name != "body"})
    if not solids or others:
        raise ValueError("reduce: stress stiffening is generated for solid elements only"
                         + (f" (the model has {', '.join(others)})" if others else ""))
    dof = structure.dof
    symmetric = structure.asymmetry <= SYMMETRIC
    factor = _Factor(Kr.tocsc(), solver, "the stiffness with the fixed nodes held", symmetric)
    F = prestress_loads(structure, iface_loads)
    size = max(float(np.ptp(structure.x, axis=0).max()), 1e-12)
    out = {}
    for k in range(F.shape[1]):
        rhs = np.asarray(T.T @ F[:, k]).ravel()
        if not np.any(rhs):
            continue
        u = T @ factor.solve(rhs)
        eps = 1e-6 * size / np.abs(u).max()
        state = system.initial_state(0.0)
        state.y[lin.N] += eps * u
        ctx = system.context(state)
        K0 = np.zeros((shapes.shape[1], shapes.shape[1]))
        for fam in solids:
            G = fam.stress_stiffness(fam.stresses(ctx)[0] / eps)          # (ne, N, N)
            for c in range(3):                                            # block G_ab I₃, direction c
                P = shapes[dof[fam.conn, c]]                              # (ne, N, m)
                K0 += np.einsum("eam,eab,ebn->mn", P, G, P)
        out[k + 1] = 0.5 * (K0 + K0.T)
    return out


def _fem_data(structure, shapes, masters, T, red_shapes, Mqq, Kqq, path):
    """FemData of the structure's nodes (then the interface masters) with the mode shapes,
    unit generalized masses, stiffnesses ω², per-node masses (rows of M summed per direction)
    and the exact rigid-body inertia from M (records 11 and 12)."""
    dof, x, M = structure.dof, structure.x, structure.M
    n, m = len(structure.labels), shapes.shape[1]
    nodal = np.zeros((n, 6, m))
    ok = dof >= 0
    for c in range(6):
        rows = dof[:, c]
        nodal[ok[:, c], c, :] = shapes[rows[ok[:, c]], :]
    R = rigid_modes(x, dof, structure.n_dof)
    MR = M @ R
    lumped = np.zeros((n, 6))
    for c in range(3):
        lumped[ok[:, c], c] = MR[dof[ok[:, c], c], c]                 # row sums along direction c
        lumped[ok[:, 3 + c], 3 + c] = M.diagonal()[dof[ok[:, 3 + c], 3 + c]]
    Rt = R.T @ MR                                                      # 6×6 rigid-body mass about the origin
    mass = float(Rt[0, 0])
    labels = [str(int(l)) for l in structure.labels]
    xs = [x]
    for name, xm, cols in masters:
        labels.append(name)
        xs.append(xm[None, :])
        nodal = np.concatenate([nodal, red_shapes[cols, :][None, :, :]], axis=0)
        lumped = np.concatenate([lumped, np.zeros((1, 6))])
    rigid = None
    if mass > 0:
        # Rt[0:3, 3:6] = Σ m (x×)ᵀ ... : first moments S = m c with Rt[0:3, 3:6] = -(m c)×
        S = Rt[0:3, 3:6]
        c = np.array([S[1, 2], S[2, 0], S[0, 1]]) / mass
        cx = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
        Jcm = Rt[3:6, 3:6] + mass * cx @ cx
        rigid = (mass, c, 0.5 * (Jcm + Jcm.T))
    shapes_nm = np.transpose(nodal, (2, 0, 1))                        # (m, N, 6)
    return FemData(path, labels, np.concatenate(xs), shapes_nm[..., 0:3].copy(), shapes_nm[..., 3:6].copy(),
                   Mqq, Kqq, None, np.zeros(m), np.zeros(m), lumped, rigid)
