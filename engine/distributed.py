"""Distributed evaluation under MPI (`mpiexec -n P mbdae run ...`, P > 1).

The unknowns are partitioned through a graph of the structural nodes: two nodes are
neighbours when the Jacobian couples them, and an element's own unknowns (joint
multipliers) go with the first node their row couples (a node-less one stands alone).
PETSc's PTScotch partitioner cuts that graph into P parts of equal size with few edges
cut; without it (a PETSc built without PT-Scotch) the fallback is P contiguous blocks of the
graph's reverse Cuthill-McKee order.  Process p then owns the rows of its nodes and of the
element unknowns that went with them.

Each process builds an ordinary System (engine/system.py) on its local model: the element
instances that write a row it owns, the instances whose own unknowns those read (ghosts),
and the nodes all of them touch.  It evaluates every family vectorized on those instances
only and keeps the rows it owns; an instance that writes rows of two processes is evaluated
on both (the overlap at the cut), so no assembly values travel between processes: each
process gives PETSc its owned rows of the MPIAIJ matrix (solvers/petsc.py
DistributedLayout) and its part of the residual.  The Newton tests add their partial sums
over the processes (solvers/convergence.py DistributedReduction); after each solve, every
process receives the increments of the ghost unknowns it holds from their owners.  The
integrators, predictors and step control run unchanged on each process's local vectors:
shared unknowns get bitwise the same values everywhere, because they come from the same
increments.

Only rank 0 writes output: the owned nodes' motion and the element rows of the instances
each process is home to (the one owning the instance's first row) are gathered to rank 0
(mpi4py) and written in the serial run's order, recorded at the start from the full model.

Rank 0 builds the full System once to partition it and to plan every process's share, then
drops it; the other processes only ever build their local System.  Families never see a
rank: the local model is the user's Model with fewer specs.  Models whose families do not
fit this (element instances that are not specs of the model, or own unknowns not named
uniquely) run with the replicated evaluation instead, with a note in the log."""
import copy
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from mbdae.engine.core.nodes import StructuralNodes
from mbdae.engine.core.state import InvalidConfiguration
from mbdae.engine.system import System
from mbdae.elements.registry import ENTRIES
from mbdae.solvers.convergence import DistributedReduction
from mbdae.solvers.petsc import DistributedLayout, load_petsc, mpi_world_size


class NotDistributable(ValueError):
    """The model's families cannot be split by instance (the reason names the family)."""


def load_mpi():
    """mpi4py's MPI module (MPI already initialized by PETSc), or None when not installed."""
    load_petsc()
    try:
        from mpi4py import MPI
    except ImportError:
        return None
    return MPI


# ---------------------------------------------------------------------- graph and partition
def unknown_vertices(system):
    """The graph vertex of every unknown: its node's index for node unknowns; for an
    element's own unknown, the first node its Jacobian row couples, or a vertex of its own
    (numbered after the nodes) when it couples none."""
    nodes = system.nodes
    a = system.assembler
    vertex = np.empty(system.n, np.int64)
    vertex[:nodes.total] = np.repeat(np.arange(nodes.n), nodes.ndof)
    internal = np.arange(nodes.total, system.n)
    if len(internal):
        csr = sp.csc_matrix((np.ones(a.nnz), a.indices, a.indptr), shape=(system.n, system.n)).tocsr()
        # the first node column of each internal row (columns sorted within each row)
        rows = csr[internal][:, :nodes.total].tocsr()
        rows.sort_indices()
        has = np.diff(rows.indptr) > 0
        first = np.full(system.n, -1, np.int64)
        first[internal[has]] = vertex[rows.indices[rows.indptr[:-1][has]]]
        alone = first[internal] < 0
        first[internal[alone]] = nodes.n + np.arange(int(alone.sum()))
        vertex[internal] = first[internal]
    return vertex


def vertex_graph(system, vertex):
    """The symmetric adjacency (CSR, no diagonal) of the vertices the Jacobian couples."""
    a = system.assembler
    cols = np.repeat(np.arange(system.n), np.diff(a.indptr))
    nv = int(vertex.max()) + 1
    g = sp.coo_matrix((np.ones(len(cols)), (vertex[a.indices], vertex[cols])), shape=(nv, nv)).tocsr()
    g = (g + g.T).tocsr()
    g.setdiag(0)
    g.eliminate_zeros()
    g.sort_indices()
    return g


def partition_vertices(graph, parts):
    """The part (0..parts-1) of every vertex: PTScotch through PETSc on COMM_WORLD (rank 0
    holds the graph, `graph` None elsewhere), else contiguous blocks of the reverse
    Cuthill-McKee order.  Returns (part array on rank 0 / None elsewhere, method name)."""
    PETSc = load_petsc()
    comm = PETSc.COMM_WORLD
    rank = comm.getRank()
    n = graph.shape[0] if rank == 0 else 0
    MPI = load_mpi()
    n = MPI.COMM_WORLD.bcast(n, root=0)
    if rank == 0:
        csr = (graph.indptr.astype(PETSc.IntType), graph.indices.astype(PETSc.IntType), np.ones(graph.nnz))
        m = n
    else:
        csr = (np.zeros(1, PETSc.IntType), np.zeros(0, PETSc.IntType), np.zeros(0))
        m = 0
    try:
        adj = PETSc.Mat().createAIJ(((m, n), (m, n)), csr=csr, comm=comm)
        adj.assemble()
        partitioner = PETSc.MatPartitioning().create(comm=comm)
        partitioner.setAdjacency(adj)
        partitioner.setType("ptscotch")
        result = PETSc.IS()
        partitioner.apply(result)
        part = result.getIndices().astype(np.int64) if rank == 0 else None
        method = "PTScotch"
    except PETSc.Error:
        part, method = None, "reverse Cuthill-McKee blocks"
    if rank == 0 and (part is None or len(np.unique(part)) < min(parts, n)):
        from scipy.sparse.csgraph import reverse_cuthill_mckee     # only the fallback needs it
        order = reverse_cuthill_mckee(graph, symmetric_mode=True)
        part = np.empty(n, np.int64)
        part[order] = np.arange(n) * parts // max(n, 1)
        method = "reverse Cuthill-McKee blocks"
    return part, method


# ---------------------------------------------------------------------- the plan (rank 0)
def spec_places(model):
    """{id(spec): (model field, position)} of every element spec list of the model."""
    places = {}
    for entry in ENTRIES:
        for field in entry.model_fields:
            value = getattr(model, field, None)
            if isinstance(value, list):
                for pos, spec in enumerate(value):
                    places[id(spec)] = (field, pos)
    return places


def instance_incidence(system, fam_index):
    """(written, read): sparse (instances × unknowns) incidence of the rows family
    `fam_index` writes (residual and Jacobian rows) and of every unknown it touches."""
    fam = system.all_families[fam_index]
    res_inst, jac_inst = fam.block_instances()
    w_i, w_u, r_i, r_u = [], [], [], []
    for rows, inst in zip(fam.pattern.res, res_inst):
        i = np.broadcast_to(np.asarray(inst).reshape((-1,) + (1,) * (rows.ndim - 1)), rows.shape)
        w_i.append(i.ravel())
        w_u.append(rows.ravel())
    for (R, C), inst in zip(fam.pattern.jac, jac_inst):
        i = np.broadcast_to(np.asarray(inst).reshape((-1,) + (1,) * (R.ndim - 1)), R.shape)
        w_i.append(i.ravel())
        w_u.append(R.ravel())
        r_i.append(i.ravel())
        r_u.append(C.ravel())
    w_i, w_u = np.concatenate(w_i + [np.zeros(0, np.int64)]), np.concatenate(w_u + [np.zeros(0, np.int64)])
    r_i = np.concatenate([w_i] + r_i)
    r_u = np.concatenate([w_u] + r_u)

    def incidence(i, u):
        keep = u >= 0
        return sp.csr_matrix((np.ones(int(keep.sum())), (i[keep], u[keep])), shape=(fam.ne, system.n))
    return incidence(w_i, w_u), incidence(r_i, r_u)


def plan_processes(model, full, parts, vertex, part):
    """Every process's share of the model (rank 0, once), from the vertices' partition
    `part`: the unknowns' owners, and per process its local nodes, its local element specs
    (by model field and position in the full model, with the full family's index and whether
    the process is the instance's home for output), and the natural index of its element
    unknowns by (family, label, row text).  Raises NotDistributable."""
    nodes = full.nodes
    owner = part[vertex]
    places = spec_places(model)
    families = full.families
    row_keys = {}
    for r in range(nodes.total, full.n):
        k = int(full.row_owner[r]) - 1
        key = (k, int(full.row_label[r]), str(full.row_what[r]))
        if key in row_keys:
            raise NotDistributable(f"{families[k].name} {key[1]}: two of its unknowns share the name '{key[2]}'")
        row_keys[key] = r
    incidences, homes, fam_places = [], [], []
    for k, fam in enumerate(families, start=1):
        try:
            fam_places.append([places[id(spec)] for spec in fam.specs])
        except KeyError:
            raise NotDistributable(f"{fam.name}: its instances are not element specs of the model") from None
        if len(fam.specs) != fam.ne:
            raise NotDistributable(f"{fam.name}: {fam.ne} instances from {len(fam.specs)} specs")
        written, read = instance_incidence(full, k)
        incidences.append((written, read))
        first = np.full(fam.ne, -1, np.int64)        # the instance's first written row
        written.sort_indices()
        has = np.diff(written.indptr) > 0
        first[has] = written.indices[written.indptr[:-1][has]]
        homes.append(np.where(first >= 0, owner[np.maximum(first, 0)], 0))
    # which element instance owns each element unknown
    unknown_instance = np.full((full.n, 2), -1, np.int64)
    for k, (written, _) in enumerate(incidences):
        coo = written.tocoo()
        own = (coo.col >= nodes.total) & (full.row_owner[np.maximum(coo.col, 0)] == k + 1)
        unknown_instance[coo.col[own]] = np.stack([np.full(int(own.sum()), k), coo.row[own]], axis=1)
    shares = []
    for p in range(parts):
        owned = (owner == p).astype(float)
        local = [np.asarray(w @ owned > 0).ravel() for w, _ in incidences]
        if p == 0:            # instances that write no row (outputs only) live on rank 0
            local = [sel | (np.diff(w.indptr) == 0) for sel, (w, _) in zip(local, incidences)]
        while True:           # the instances owning element unknowns that local ones read
            needed = np.zeros(full.n, bool)
            for sel, (_, read) in zip(local, incidences):
                if sel.any():
                    needed[read[sel].indices] = True
            extra = unknown_instance[needed & (unknown_instance[:, 0] >= 0)]
            grown = False
            for k, i in extra:
                if not local[k][i]:
                    local[k][i] = grown = True
            if not grown:
                break
        if not np.any(owner[:nodes.total] == p):
            raise NotDistributable(f"process {p} would own no node ({nodes.n} nodes, {parts} processes)")
        node_sel = np.zeros(nodes.n, bool)
        node_sel[vertex[:nodes.total][needed[:nodes.total]]] = True
        node_sel[np.unique(vertex[:nodes.total][owner[:nodes.total] == p])] = True
        specs = {}
        keys = {}
        for k, sel in enumerate(local):
            for i in np.flatnonzero(sel):
                field, pos = fam_places[k][i]
                specs.setdefault(field, []).append((pos, k, bool(homes[k][i] == p)))
        internal = np.flatnonzero(needed[nodes.total:]) + nodes.total
        for r in internal:
            keys[(int(full.row_owner[r]) - 1, int(full.row_label[r]), str(full.row_what[r]))] = int(r)
        shares.append(dict(nodes=np.flatnonzero(node_sel), specs=specs, keys=keys,
                           family_names=[fam.name for fam in families]))
    return owner, shares


def output_order(full, t0):
    """{family index: [(file, [labels of each group])]} of the serial run's element output
    rows, from the full model's families at the initial state (the groups and their order
    depend only on the model)."""
    state = full.initial_state(t0)
    ctx = full.context(state)
    order = {}
    for k, fam in enumerate(full.families):
        if hasattr(fam, "output_groups"):
            order[k] = [np.asarray(labels).copy() for labels, _ in fam.output_groups(ctx)]
    return order


def local_model(model, share):
    """The user's Model with only this process's nodes and element specs (a shallow copy:
    the specs are the same objects)."""
    local = copy.copy(model)
    local.__dict__.pop("_node_cache", None)
    local.nodes = [model.nodes[i] for i in share["nodes"]]
    for entry in ENTRIES:
        for field in entry.model_fields:
            value = getattr(model, field, None)
            if isinstance(value, list):
                keep = sorted({pos for pos, _, _ in share["specs"].get(field, [])})
                setattr(local, field, [value[pos] for pos in keep])
    return local


# ---------------------------------------------------------------------- the system
class FamilySummary:
    """What rank 0's output writer reads of a family of the full model: its name, specs,
    sizes and output file; `rows` are the element output rows gathered at this step."""

    def __init__(self, fam, order):
        self.name, self.specs, self.ne, self.n_internal = fam.name, fam.specs, fam.ne, fam.n_internal
        self.output_file = getattr(fam, "output_file", "jnt")
        self.order = order
        self.rows = {}
        if order is not None:
            self.output_groups = self._groups

    def _groups(self, ctx):
        rows = self.rows
        return [(labels, np.array([rows[int(l)] for l in labels], float).reshape(len(labels), -1))
                for labels in self.order if len(labels)]


class SystemSummary:
    """The full model as rank 0's writer sees it (MBDynWriter.start): its nodes, sizes and
    families, kept after the full System itself is dropped."""

    def __init__(self, full, order):
        self.nodes = StructuralNodes(full.model.nodes, getattr(full.model, "rigid_body_kinematics", None))
        self.n = full.n
        self.is_alg = full.is_alg.copy()
        self.assembler = SimpleNamespace(nnz=full.assembler.nnz)
        self.families = [FamilySummary(fam, order.get(k)) for k, fam in enumerate(full.families)]
        self._linear_pattern = full.linear_pattern()

    def linear_pattern(self):
        return self._linear_pattern


class GatheredKinematics:
    """Node motion of the full model gathered on rank 0 (x, R, v, w; a, ω̇)."""

    def __init__(self, n):
        self.x, self.v, self.w = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3))
        self.R = np.zeros((n, 3, 3))
        self.a, self.wd = np.zeros((n, 3)), np.zeros((n, 3))


class DistributedSystem(System):
    """A System on this process's local model (module docstring) with the distributed
    protocol: `evaluate` keeps only the owned rows of f and f̃, `reduction` gives Newton
    its convergence tests over every process, `layout` maps the local unknowns to PETSc's
    rows, `exchange_state` makes the ghosts' values their owners', `gather_output` brings
    a step's output to rank 0."""

    def __init__(self, local, plan):
        """The local System and its map to the full model's unknowns (no MPI call here:
        `connect` makes the collective objects once every process has built its share)."""
        super().__init__(local)
        owner, share, self.partition_method = plan["owner"], plan["share"], plan["method"]
        self.summary = plan.get("summary")              # rank 0 only
        self.n_global = len(owner)
        self.natural = self._natural_indices(share, plan["node_start"])
        self.owner = owner
        self.global_nodes = share["nodes"]
        # per local family: its full family's index and the labels this process is home to
        self.family_index, self.home_labels = [], []
        for fam in self.families:
            ks = [self.spec_share[(id(fam), id(spec))] for spec in fam.specs]
            self.family_index.append(ks[0][0] if ks else -1)
            self.home_labels.append(np.array([spec.label for spec, (k, h) in zip(fam.specs, ks) if h], np.int64))

    def connect(self):
        """The collective part: PETSc's numbering (the unknowns process after process, each
        in natural order), the layout and the reduction of the convergence tests."""
        MPI = load_mpi()
        self.comm, self.MPI = MPI.COMM_WORLD, MPI
        self.rank, self.processes = self.comm.Get_rank(), self.comm.Get_size()
        owner = self.owner
        order = np.argsort(owner, kind="stable")
        petsc_of_natural = np.empty(len(owner), np.int64)
        petsc_of_natural[order] = np.arange(len(owner))
        petsc_index = petsc_of_natural[self.natural]
        self.owned_mask = owner[self.natural] == self.rank
        owned = np.flatnonzero(self.owned_mask)
        owned = owned[np.argsort(petsc_index[owned])]
        self.layout = DistributedLayout(petsc_index, owned, self.n_global)
        self.reduction = DistributedReduction(self.comm, MPI, self.owned_mask)
        self.ghost_rows = np.flatnonzero(~self.owned_mask)
        self.owned_nodes = np.flatnonzero(self.owned_mask[self.nodes.start])
        self.owner = None

    def _natural_indices(self, share, node_start):
        """The natural (full System) index of every local unknown; sets `spec_share`:
        {id(local spec): (full family index, home)}."""
        nodes = self.nodes
        natural = np.empty(self.n, np.int64)
        natural[:nodes.total] = np.repeat(node_start - nodes.start, nodes.ndof) + np.arange(nodes.total)
        # a spec may serve several families (a body is also in the inertia family's output)
        shares_of = {}
        for field, entries in share["specs"].items():
            positions = sorted({pos for pos, _, _ in entries})
            local_of = {pos: spec for pos, spec in zip(positions, getattr(self.model, field))}
            for pos, k, home in entries:
                shares_of.setdefault(id(local_of[pos]), {})[k] = home
        names = share["family_names"]
        self.spec_share = {}
        for fam in self.families:
            for spec in fam.specs:
                ks = [k for k in shares_of[id(spec)] if names[k] == fam.name]
                if len(ks) != 1:
                    raise NotDistributable(f"{fam.name} {spec.label}: not found once in the full model's families")
                self.spec_share[(id(fam), id(spec))] = (ks[0], shares_of[id(spec)][ks[0]])
        keys = share["keys"]
        for r in range(nodes.total, self.n):
            fam = self.all_families[self.row_owner[r]]
            k = self.spec_share[(id(fam), id(fam.specs[0]))][0]
            natural[r] = keys[(k, int(self.row_label[r]), str(self.row_what[r]))]
        return natural

    # ------------------------------------------------------------------ protocol
    def evaluate(self, state, dcoef, mode="regular", want_jac=True, ia=None, want_abs=True):
        """System.evaluate on the local instances, keeping the owned rows of f and f̃ (the
        Jacobian's owned rows are what the linear back end takes).  An element that cannot
        be evaluated on one process makes every process raise, so none waits for it."""
        failure = None
        try:
            f, fabs, J = super().evaluate(state, dcoef, mode, want_jac, ia, want_abs)
        except InvalidConfiguration as err:
            failure = err
        failed = self.comm.allreduce(failure is not None, op=self.MPI.LOR)
        if failed:
            raise failure if failure is not None else InvalidConfiguration("an element on another process "
                                                                             "cannot be evaluated")
        f[self.ghost_rows] = 0.0
        if fabs is not None:
            fabs[self.ghost_rows] = 0.0
        return f, fabs, J

    def anywhere(self, flag):
        """Whether `flag` holds on any process."""
        return bool(self.comm.allreduce(bool(flag), op=self.MPI.LOR))

    def exchange_state(self, state):
        """Every ghost unknown of `state` takes its owner's y and ẏ (after a phase that sets
        values outside Newton, e.g. the initial momenta, which a ghost node's own process
        cannot sum whole)."""
        state.y[:] = self.layout.exchange(state.y)
        state.yp[:] = self.layout.exchange(state.yp)

    def gather_output(self, state, kin, ctx, accelerations=False, reactions=False):
        """(kinematics, families, joint reactions) of the full model on rank 0 (None, None,
        None elsewhere): the owned nodes' motion and the home instances' element rows."""
        own = self.owned_nodes
        piece = dict(nodes=self.global_nodes[own], x=kin.x[own], R=kin.R[own], v=kin.v[own], w=kin.w[own])
        if accelerations:
            a, wd = self.node_accelerations(state.yp, kin)
            piece["a"], piece["wd"] = a[own], wd[own]
        rows = {}
        for fam, k, home in zip(self.families, self.family_index, self.home_labels):
            if hasattr(fam, "output_groups") and len(home):
                table = rows.setdefault(k, {})
                for labels, vals in fam.output_groups(ctx):
                    if len(labels) == 0:
                        continue
                    labels = np.asarray(labels)
                    keep = np.isin(labels.astype(np.int64), home)
                    vals = np.asarray(vals, float).reshape(len(labels), -1)
                    table.update(zip(labels[keep].astype(np.int64).tolist(), vals[keep]))
        piece["rows"] = rows
        if reactions:
            joints = self.family_with("reactions")
            if joints is not None:
                _, F, M = joints.reactions(ctx)
                labels = joints.labels
                keep = np.isin(np.asarray(labels, np.int64), self.home_labels[self.families.index(joints)])
                piece["reactions"] = (np.asarray(labels)[keep], F[keep], M[keep])
        pieces = self.comm.gather(piece, root=0)
        if self.rank != 0:
            return None, None, None
        summary = self.summary
        g = GatheredKinematics(summary.nodes.n)
        for p in pieces:
            for name in ("x", "R", "v", "w", "a", "wd"):
                if name in p:
                    getattr(g, name)[p["nodes"]] = p[name]
        for fam in summary.families:
            fam.rows = {}
        for p in pieces:
            for k, table in p["rows"].items():
                summary.families[k].rows.update(table)
        joint_reactions = None
        if reactions:
            found = [p["reactions"] for p in pieces if "reactions" in p]
            if found:
                labels = np.concatenate([f[0] for f in found])
                order = np.argsort(labels, kind="stable")
                joint_reactions = (labels[order], np.concatenate([f[1] for f in found])[order],
                                   np.concatenate([f[2] for f in found])[order])
        return g, summary.families, joint_reactions


def replicated_note(what):
    """The `.out` line of a driver whose evaluation is replicated under MPI (`what` is not
    distributed), or None outside an MPI run of several processes."""
    if mpi_world_size() <= 1:
        return None
    return f"# MPI: replicated evaluation: {what} is not distributed (the linear solve is)"


def build_system(model, t0=0.0, refused=None):
    """The System of `model` for this process: a DistributedSystem under MPI (P > 1) when
    mpi4py is installed and the model splits by instance, else None (the caller uses the
    replicated evaluation); `refused`: what the run uses that is not distributed.  Returns
    (system or None, note for the log)."""
    if mpi_world_size() <= 1:
        return None, None
    if refused:
        return None, f"replicated evaluation: {refused} is not distributed"
    MPI = load_mpi()
    if MPI is None:
        return None, "replicated evaluation: mpi4py is not installed (pip install mpi4py)"
    comm = MPI.COMM_WORLD
    rank, parts = comm.Get_rank(), comm.Get_size()
    full = error = None
    if rank == 0:
        try:
            full = System(model)
        except Exception as err:       # reported by the caller's own System build
            error = err
    error_text = comm.bcast(None if error is None else str(error), root=0)
    if error_text is not None:
        if rank == 0:
            raise error
        raise ValueError(error_text)
    owner = shares = method = note = None
    if rank == 0:
        try:
            vertex = unknown_vertices(full)
            graph = vertex_graph(full, vertex)
        except NotDistributable as err:
            note = str(err)
            graph = None
    note = comm.bcast(note, root=0)
    if note is not None:
        return None, f"replicated evaluation: {note}"
    part, method = partition_vertices(graph if rank == 0 else None, parts)
    if rank == 0:
        try:
            owner, shares = plan_processes(model, full, parts, vertex, part)
        except Exception as err:        # noqa: BLE001 - the model runs replicated, with the reason
            note = str(err) if isinstance(err, NotDistributable) else f"{type(err).__name__}: {err}"
    note = comm.bcast(note, root=0)
    if note is not None:
        return None, f"replicated evaluation: {note}"
    owner = comm.bcast(owner, root=0)
    share = comm.scatter(shares, root=0)
    node_start = None
    summary = None
    if rank == 0:
        order = output_order(full, t0)
        summary = SystemSummary(full, order)
        full_nodes = full.nodes
        starts = [full_nodes.start[s["nodes"]] for s in shares]
        del full
    else:
        starts = None
    node_start = comm.scatter(starts, root=0)
    failure = None
    try:
        system = DistributedSystem(local_model(model, share), dict(
            owner=owner, share=share, method=method, node_start=node_start, summary=summary))
    except Exception as err:          # every process learns it before any collective call
        failure = f"{type(err).__name__}: {err}"
    failures = [f for f in comm.allgather(failure) if f]
    if failures:
        return None, f"replicated evaluation: a process's share of the model could not be built ({failures[0]})"
    system.connect()
    return system, (f"distributed evaluation on {parts} processes ({method} partition; rank {rank}: "
                    f"{int(system.owned_mask.sum())} owned and {len(system.ghost_rows)} ghost unknowns)")
