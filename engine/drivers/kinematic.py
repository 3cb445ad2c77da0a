"""Kinematic analysis (MBDM's mode 0: TN §3, eqs. 31-35; digest §1.3 "Kinematic analysis")
of a fully driven model: the joints' position-level rows Φ(q, t) = 0 determine every node
coordinate, so at each instant

* the positions solve Φ(q, t) = 0 by Newton (TN-33) from a second-order prediction of the
  last instant,
* the velocities solve Φ_q q̇ = -Φ_t (TN-34) and the accelerations Φ_q q̈ = γ (TN-35) with
  the factorization of Φ_q at the converged positions (one factorization, two solves),
* optionally the joint reactions: Φ_qᵀ λ = f - M q̈ - h with the same factorization
  (transposed), i.e. the multipliers of TN-67 once q̈ is known.

It is the kinematic chain of the inverse dynamics driver (engine/drivers/inverse.py, problem
type "fully actuated collocated": subproblems 6.34, 6.36, 6.38 and 6.40 of MBDyn's manual,
which are TN-33..35 and TN-67 in node coordinates), with every joint row a kinematic
constraint and the inverse-dynamics flags of the model ignored.  Coordinates are the node
poses (x, θ), θ the global rotation perturbation, so q̇ = (v, ω) and q̈ = (a, ω̇).

Before the first Newton step the position-level Jacobian A = Φ_q (rows × 6·nodes) at the
initial configuration is factorized by QR with column pivoting (rank-revealing, Businger-Golub;
scipy.linalg.qr, LAPACK geqp3): on A for the columns, on Aᵀ for the rows.  The rank r counts
the diagonal entries |R_kk| > rtol·|R_00| (rtol = RANK_RTOL).  n - r > 0 non-pivot columns are
the free coordinates (a valid choice of independent coordinates, as MBDM's partition of TN §5
picks them by pivoting; it depends on units and scale, digest E7); m - r > 0 non-pivot rows
of Aᵀ are redundant constraints.  The QR runs per connected block of A (joints and nodes that
share no row or column decouple), dense.  A block of more than DENSE_LIMIT coordinates is
first factorized by the sparse LU (SuperLU, partial pivoting): square with no pivot below
rtol times the largest, it is taken as full rank without the dense QR; otherwise the dense
QR names what is wrong, unless the block has more than DENSE_ENTRIES entries (then the
analysis stops with the block's size and counts, naming nothing)."""
from copy import copy
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from mbdae.engine.core.state import StepEvent
from mbdae.engine.core.stop import publish_step
from mbdae.engine.distributed import replicated_note
from mbdae.engine.drivers.inverse import (ELEMENT_LISTS, InverseDynamicsFailed, InverseDynamicsProblem,
                                          InverseDynamicsResults)

RANK_RTOL = 1e-10       # relative rank tolerance of the pivoted QR (see KinematicAnalysis)
DENSE_LIMIT = 4000      # coordinates of one block above which a sparse LU is tried first
DENSE_ENTRIES = 10 ** 8     # a block's m·n above which the dense QR is refused (800 MB)
AXES = "xyz"
# element lists that constrain structural nodes outside the joints family: their rows would be
# missing from Φ, so a model holding them is refused rather than analysed without them
CONSTRAINT_LISTS = ("angular_velocity_joints", "rigid_body_displacement_joints", "modal_joints")


class NotFullyDriven(ValueError):
    """The position-level rows leave coordinates free; the message names them."""


class OverConstrained(ValueError):
    """Some position-level rows are redundant; the message names them."""


class SingularConstraints(NotFullyDriven, OverConstrained):
    """Both at once (e.g. a square but singular Φ_q): free coordinates and redundant rows."""


KinematicAnalysisFailed = InverseDynamicsFailed


@dataclass
class KinematicDiagnosis:
    """The rank-revealing diagnosis of Φ_q at one configuration."""
    t: float
    rows: int                   # position-level constraint rows m
    coordinates: int            # 6 per node, n
    rank: int
    free: list = field(default_factory=list)         # names of the free coordinates
    redundant: list = field(default_factory=list)    # names of the redundant rows
    free_columns: np.ndarray = None                  # their column indices (6·node + k)
    redundant_rows: np.ndarray = None                # their row indices in the position rows

    @property
    def fully_driven(self):
        return self.rank == self.coordinates == self.rows

    def message(self, where=""):
        """One line naming what is wrong, or None when the system is fully driven; `where`
        follows "kinematic analysis" (e.g. the instant of a switch of driven joints)."""
        parts = []
        nf, nr = self.coordinates - self.rank, self.rows - self.rank
        if nf > 0:
            parts.append(f"the system is not fully driven: {_count(nf, 'free coordinate')}"
                         + (f": {', '.join(self.free)}" if self.free else ""))
        if nr > 0:
            parts.append(f"{'' if nf > 0 else 'the system is '}over-constrained: "
                         f"{_count(nr, 'redundant constraint')}"
                         + (f": {', '.join(self.redundant)}" if self.redundant else ""))
        if not parts:
            return None
        return f"kinematic analysis{where}: " + "; and ".join(parts)

    def summary(self):
        if self.fully_driven:
            return (f"fully driven: Φ_q has rank {self.rank} = {self.coordinates} coordinates "
                    f"= {self.rows} rows (pivoted QR)")
        return self.message()

    def raise_if_not_driven(self, where=""):
        msg = self.message(where)
        if msg is None:
            return
        nf, nr = self.coordinates - self.rank, self.rows - self.rank
        cls = SingularConstraints if nf > 0 and nr > 0 else NotFullyDriven if nf > 0 else OverConstrained
        raise cls(msg)


def _count(k, what):
    return f"{k} {what}{'' if k == 1 else 's'}"


def pivoted_rank(A, rtol=RANK_RTOL):
    """(rank, column pivot order, row pivot order) of a dense matrix by QR with column
    pivoting on A and on Aᵀ (Businger-Golub); rank = #{k: |R_kk| > rtol·|R_00|} of A's R.
    The first `rank` entries of each order are independent columns / rows."""
    m, n = A.shape
    if m == 0 or n == 0:
        return 0, np.arange(n), np.arange(m)
    R, cols = sla.qr(A, mode="r", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int(np.count_nonzero(d > rtol * d[0])) if d[0] > 0 else 0
    _, rows = sla.qr(A.T, mode="r", pivoting=True)
    return rank, cols, rows


def _blocks(A):
    """Connected blocks of a sparse A: [(row indices, column indices)] of the bipartite
    graph rows–columns (a column without rows and a row without columns are blocks too)."""
    m, n = A.shape
    P = sp.csr_matrix(A, copy=True)
    P.data[:] = 1.0
    G = sp.bmat([[None, P], [P.T, None]], format="csr") if m and n else sp.csr_matrix((m + n, m + n))
    k, lab = csgraph.connected_components(G, directed=False)
    order = np.argsort(lab, kind="stable")
    bounds = np.searchsorted(lab[order], np.arange(k + 1))
    out = []
    for b in range(k):
        idx = order[bounds[b]:bounds[b + 1]]
        out.append((idx[idx < m], idx[idx >= m] - m))
    return out


def diagnose_jacobian(A, column_names, row_names, t=0.0, rtol=RANK_RTOL):
    """KinematicDiagnosis of a sparse position-level Jacobian A (m × n) block by block."""
    m, n = A.shape
    A = sp.csr_matrix(A)
    rank, free, redundant = 0, [], []
    for rows, cols in _blocks(A):
        B = A[rows][:, cols]
        if len(cols) > DENSE_LIMIT and _sparse_full_rank(B, rtol):
            rank += len(cols)
            continue
        if len(cols) * len(rows) > DENSE_ENTRIES:
            raise ValueError(f"kinematic analysis: Φ_q has a block of {len(cols)} coordinates and {len(rows)} rows "
                             f"that is {'singular' if len(rows) == len(cols) else 'not square'}: too large "
                             f"for the dense rank-revealing QR (more than {DENSE_ENTRIES:.0e} entries), so "
                             f"its free coordinates and redundant rows are not named")
        r, cp, rp = pivoted_rank(B.toarray(), rtol)
        rank += r
        free += list(cols[cp[r:]])
        redundant += list(rows[rp[r:]])
    free, redundant = np.sort(np.array(free, np.int64)), np.sort(np.array(redundant, np.int64))
    return KinematicDiagnosis(float(t), m, n, rank, [column_names[c] for c in free],
                              [row_names[r] for r in redundant], free, redundant)


def _sparse_full_rank(B, rtol):
    """Whether a large square block factorizes by the sparse LU with every pivot above rtol
    times the largest (partial pivoting is not rank-revealing: a failure here only sends the
    block to the dense QR)."""
    if B.shape[0] != B.shape[1]:
        return False
    try:
        d = np.abs(spla.splu(sp.csc_matrix(B)).U.diagonal())
    except RuntimeError:            # exactly singular
        return False
    return bool(np.all(np.isfinite(d)) and d.min() > rtol * d.max())


def coordinate_names(labels):
    """`node L position x` ... `node L rotation z` for the 6 coordinates of each node."""
    return [f"node {int(l)} {kind} {a}" for l in labels for kind in ("position", "rotation") for a in AXES]


def load_support(model):
    """None when the inverse-dynamics load assembly (inverse.py: bodies, gravity, forces,
    user forces, rods, deformable joints, beams, viscous bodies) handles every element of
    the model, else why not (the reactions are then skipped)."""
    other = [name for name, v in vars(model).items()
             if isinstance(v, list) and v and name not in ("nodes", "dummy_nodes", "joints")
             and name not in ELEMENT_LISTS]
    if other:
        return f"the inverse-dynamics load assembly does not handle the model's {', '.join(other)}"
    for name in ("bodies", "forces", "user_forces"):
        if any(getattr(s, "driven", None) is not None for s in getattr(model, name, [])):
            return f"driven {name.replace('_', ' ')} are not handled by the inverse-dynamics load assembly"
    for name in ELEMENT_LISTS:
        if any(getattr(getattr(s, "driven", None), "hints", None) for s in getattr(model, name, []) or []):
            return "hints of driven elements are not handled by the inverse-dynamics load assembly"
    if getattr(model, "rigid_body_kinematics", None) is not None:
        return "rigid body kinematics: the inverse-dynamics load assembly has no inertial loads of a moving frame"
    return None


def kinematic_model(model, with_loads):
    """Copy of `model` for the analysis: nodes and joints, plus (with_loads) the elements
    whose loads enter the reactions; no inverse-dynamics flags (every joint row constrains)."""
    m = copy(model)
    m.inverse_flags = {}
    for name, value in vars(model).items():
        if isinstance(value, list) and name not in ("nodes", "dummy_nodes", "joints"):
            if not (with_loads and name in ELEMENT_LISTS):
                setattr(m, name, [])
    if not with_loads:
        m.gravity_vector = None
    return m


@dataclass
class KinematicResults(InverseDynamicsResults):
    """InverseDynamicsResults of a kinematic analysis; without reactions joint_force,
    joint_moment and multipliers are None and `reactions_note` says why."""
    diagnosis: KinematicDiagnosis = None
    reactions_note: str = None


class KinematicAnalysis(InverseDynamicsProblem):
    """Kinematic analysis of a fully driven `model` at initial_time, initial_time + h, ...,
    final_time (or at the instants `times`); see the module docstring.

    tolerance: of the position Newton (2-norm of Φ); reactions: also the joint reactions from
    the bodies, gravity and forces of the model (skipped with a note in the log when the model
    has elements the inverse-dynamics load assembly does not handle); rank_tolerance: rtol of
    the rank decision (|R_kk| > rtol·|R_00|; 1e-10 lies far above the rounding of Φ_q's
    entries, ~max(m, n)·ε relative, and flags a configuration within 1e-10 (relative) of a
    singular one, where Newton and the velocity solve would lose about 10 digits).
    Raises NotFullyDriven / OverConstrained (both: SingularConstraints) at construction."""

    def __init__(self, model, initial_time=0.0, final_time=1.0, time_step=1e-3, tolerance=1e-10,
                 max_iterations=20, linear_solver="default", observers=(), reactions=True, times=None,
                 rank_tolerance=RANK_RTOL):
        refused = [name.replace("_", " ") for name in CONSTRAINT_LISTS if getattr(model, name, None)]
        if refused:
            raise ValueError(f"kinematic analysis: not supported yet: {', '.join(refused)} (their constraints "
                             f"are not part of the joints' Φ)")
        if any(s.kind.endswith("displacement") for s in model.nodes):
            raise ValueError("kinematic analysis: displacement-only structural nodes are not supported")
        self.rank_tolerance = float(rank_tolerance)
        self.source_model = model
        self.reactions_note = None if reactions else "reactions not requested"
        if reactions:
            why = load_support(model)
            if why is not None:
                self.reactions_note = f"reactions skipped: {why}"
        self.with_reactions = self.reactions_note is None
        reduced = kinematic_model(model, self.with_reactions)
        if not reduced.joints:        # nothing constrains: every coordinate is free
            names = coordinate_names([s.label for s in model.nodes])
            KinematicDiagnosis(float(initial_time if times is None else times[0]), 0, len(names), 0,
                               names).raise_if_not_driven()
        self._diagnosed = False
        self.diagnosis = None
        try:
            super().__init__(reduced, times, initial_time=initial_time, final_time=final_time,
                             time_step=time_step, tolerance=tolerance, max_iterations=max_iterations,
                             observers=observers, linear_solver=linear_solver)
        except ValueError as e:       # the inverse driver's set-up refusals, said for this problem
            raise ValueError(f"kinematic analysis: {e}") from None
        nodes = self.system.nodes
        self.diagnose(self.times[0], nodes.x0, nodes.R0).raise_if_not_driven()
        self._diagnosed = True
        if self.reactions_note is not None:
            self.log_lines.append(f"mbdae: note: kinematic analysis: {self.reactions_note}")

    # ------------------------------------------------------------------ diagnosis
    def check_counts(self, nr):
        """Replaces the inverse driver's count check: the partition changed (set up, or a
        driven joint switched), so the rank-revealing diagnosis runs before the next Newton
        solve."""
        self._diagnosed = False

    def diagnose(self, t, x, R):
        """KinematicDiagnosis of Φ_q at (t, x, R): rank, free coordinates, redundant rows.
        Velocity-level joint rows are refused (they constrain no position)."""
        kr = self.kin_rows
        vel = kr & ~self.pos_level
        if vel.any():
            names = sorted({f"joint {j} ({self.joints.types[i]})" for j, i in
                            zip(self.row_joint[vel], self.row_inst[vel])})
            raise ValueError(f"kinematic analysis: velocity-level constraints determine no position: "
                             f"{', '.join(names)}")
        T = self.rows(self.state(t, x, R))
        A = T["A"][kr]
        J = self.joints
        rows = [f"joint {J.labels[i]} ({J.types[i]}) {J.row_names[c]}"
                for i, c in zip(self.row_inst[kr], self.row_code[kr])]
        self.diagnosis = diagnose_jacobian(A, coordinate_names(self.system.nodes.labels), rows, t,
                                           self.rank_tolerance)
        return self.diagnosis

    def position(self, t, x, R, prev):
        if not self._diagnosed:       # a driven joint switched: diagnose at the prediction
            active = self.joints.labels[self.driven_inst[self.activity[self.driven_inst]]].tolist()
            self.diagnose(t, x, R).raise_if_not_driven(f" at time {t:g} (active driven joints {active})")
            self._diagnosed = True
        return super().position(t, x, R, prev)

    # ------------------------------------------------------------------ subproblems
    def dynamics(self, st, Acc, T):
        if self.with_reactions:
            return super().dynamics(st, Acc, T)
        return Acc, np.zeros(len(self.dyn_rows))

    # ------------------------------------------------------------------ driver
    def log_header(self):
        lines = [f"# mbdae kinematic analysis (MBDM mode 0): {self.diagnosis.summary()}"]
        note = replicated_note("kinematic analysis")
        if self.reactions_note is not None:
            lines.append(f"# {self.reactions_note}")
        return lines + ([note] if note else [])

    def run(self):
        """KinematicResults at every instant (see the module docstring)."""
        r = super().run()
        fields = {k: getattr(r, k) for k in r.__dataclass_fields__}
        fields["stats"] = dict(r.stats, rank=self.diagnosis.rank, coordinates=self.diagnosis.coordinates,
                               reactions=self.with_reactions)
        if not self.with_reactions:
            fields.update(joint_force=None, joint_moment=None, multipliers=None)
        return KinematicResults(**fields, diagnosis=self.diagnosis, reactions_note=self.reactions_note)

    def _publish(self, step, st, lam, it, err):
        """The StepEvent of the inverse driver; without reactions no joint rows (no .jnt of
        zeros that would read as reactions)."""
        if self.with_reactions:
            return super()._publish(step, st, lam, it, err)
        h = self.times[1] - self.times[0] if len(self.times) > 1 else 0.0
        event = StepEvent(step, st.t, h, it, err, True, True, st, self.event_kinematics(st), [])
        publish_step(self.observers, event)


def run(model, **kw):
    """Build and run a KinematicAnalysis; returns KinematicResults."""
    return KinematicAnalysis(model, **kw).run()
