"""Inverse dynamics (manual §6.3): at each instant an inverse-kinematics chain (position,
velocity, acceleration subproblems) followed by the inverse-dynamics subproblem.

Coordinates are the node poses: per node (x, θ), θ the global rotation perturbation
(δR = θ× R); velocities (v, ω), accelerations (a, ω̇).  Joint rows come from the
RigidJoints family and split by the joints' inverse-dynamics roles (MBDyn's `torque` and
`prescribed motion` flags, both true by default):

* both flags        → passive constraints φ (all subproblems; their multipliers are
                      reactions, or the actuator loads of a collocated actuator),
* prescribed only   → control constraints ψ (kinematics only; μ = 0 in the dynamics),
* torque only       → joint coordinates ϑ (dynamics only; c = 0 in the kinematics).

Problem types (MBDyn's `problem type`):

* fully actuated collocated (§6.3.2): [φ/x; ψ/x] square; Newton on it for the positions
  (6.34), the same matrix for velocities (6.36) and accelerations (6.38), its transpose
  for the loads (6.40);
* fully actuated non collocated (§6.3.3): the same kinematics; loads from [φ/x; ϑ/x]ᵀ
  (6.42), a different matrix;
* underdetermined underactuated collocated (§6.3.4): weighted least-squares positions
  (6.49) and velocities (6.54), then accelerations and loads together from the KKT
  system (6.56);
* underdetermined fully actuated, i.e. overcontrolled (§6.3.5): positions and velocities
  as in §6.3.4, accelerations from the KKT system (6.61), loads as in (6.42).

The quadratic forms: position ½(x-x0)ᵀK(x-x0) is the energy of the elements marked
`ergonomy` (their residual is its gradient, their stiffness is K) plus w_x ½|x - x_prev|²_M;
velocity ½(ẋ-ẋ0)ᵀR(ẋ-ẋ0) with R the damping of the `ergonomy` elements and ẋ0 = 0, plus
w_ẋ ½|ẋ - ẋ_prev|²_M; acceleration ½|ẍ|²_M + w_ẍ ½|ẍ - ẍ_prev|²_M (ẍ0 = 0).  The rotation
part of x - x_prev is the rotation vector log(R R_prevᵀ); its exact gradient
(Γ⁻ᵀ M d) is used, so the converged positions satisfy the KKT conditions exactly.

Factorizations are reused whenever a subproblem's matrix coincides with the last one
factorized (or with its transpose), as the manual prescribes; `stats` counts them."""
from copy import copy
import sys
import time as _time
from dataclasses import dataclass, field, replace
import numpy as np
import scipy.sparse as sp

from mbdae.engine.core import rotations as rot
from mbdae.engine.system import System
from mbdae.engine.distributed import replicated_note
from mbdae.engine.core.stop import publish_step
from mbdae.engine.core.state import State, Context, StepEvent
from mbdae.engine.drivers.time_span import check_time_span
from mbdae.engine.drivers.inverse_terms import joint_terms, inertia_terms
from mbdae.engine.core.drives import Drive
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.solvers.linear import ReusingSolver, SingularMatrix, make_linear_solver, solver_statistics
from mbdae.solvers.newton import NewtonRaphson, NewtonSettings, NoConvergence
from mbdae.solvers.convergence import SimulationDiverged

PROBLEM_TYPES = ("fully actuated collocated", "fully actuated non collocated",
                 "underdetermined underactuated collocated", "underdetermined fully actuated")


class OrderDrive(Drive):
    """A drive that contributes only to one derivative order: order k of the result is
    `inner`'s value, the other orders are zero.  Used to give a prescribed motion its value,
    rate and acceleration as three separate drives (MBDyn's total joints in inverse dynamics)."""
    parameter_names = ()

    def __init__(self, inner, order):
        self.parameters = {}
        self.inner = inner
        self.order = int(order)

    def _evaluate_single(self, t, order):
        if order != self.order:
            return 0.0 * np.asarray(t, float) if np.ndim(t) else 0.0
        return self.inner.value(t)


def explicit_derivatives(value, rate, acceleration):
    """VectorDrive whose value, first and second derivatives are three given VectorDrives."""
    terms = []
    for k, vd in enumerate((value, rate, acceleration)):
        if vd is not None:
            terms += [(a, OrderDrive(d, k)) for a, d in vd.terms]
    return VectorDrive(terms)


class InverseDynamicsFailed(RuntimeError):
    """A subproblem could not be solved; the message names the instant and the subproblem."""


@dataclass
class InverseDynamicsResults:
    t: np.ndarray
    x: np.ndarray
    R: np.ndarray
    v: np.ndarray
    w: np.ndarray
    a: np.ndarray
    wd: np.ndarray
    joint_labels: np.ndarray
    joint_force: np.ndarray          # force each joint applies to its second node (global)
    joint_moment: np.ndarray         # couple each joint applies to its second node (global)
    node_labels: np.ndarray = None
    multipliers: np.ndarray = None   # (steps, rows) dynamics multipliers of the active joint rows
    row_joint: np.ndarray = None     # joint label of each row
    row_name: list = None
    residuals: dict = field(default_factory=dict)   # per step: max |ψ - α| etc.
    stats: dict = field(default_factory=dict)
    torque_only: np.ndarray = None    # rows of `torque`-only joints (ϑ)
    dynamics_rows: np.ndarray = None  # rows of the dynamics subproblem (φ ∪ ϑ)

    def joint(self, label):
        k = int(np.flatnonzero(self.joint_labels == label)[0])
        return self.joint_force[:, k], self.joint_moment[:, k]

    def index(self, label):
        return int(np.flatnonzero(self.node_labels == label)[0])

    def torque_table(self):
        """(joint labels, row names, values (steps, rows)): the multipliers of the actuator
        rows, i.e. of the joints marked `torque` only (ϑ); in a collocated problem, where every
        row is both, of all the dynamics rows.  A rotation row's value is the couple about its
        axis, a position row's the force along it (what the joint applies to its node 2)."""
        sel = self.torque_only if self.torque_only.any() else self.dynamics_rows
        # the multiplier enters the node equations as Bᵀλ, so the applied load is -λ
        return self.row_joint[sel], [n for n, k in zip(self.row_name, sel) if k], -self.multipliers[:, sel]


ELEMENT_LISTS = ("bodies", "forces", "joints", "rods", "user_forces", "deformable", "beams", "viscous_bodies")


def _all_dynamic(model, keep):
    """Copy of the model with every node dynamic (bodies on static nodes are allowed in
    inverse dynamics: the mass matrix is explicit) and only the element lists in `keep`."""
    m = copy(model)
    m.nodes = [replace(s, kind="dynamic") for s in model.nodes]
    for name, value in vars(model).items():
        if isinstance(value, list) and name not in ("nodes", "dummy_nodes"):
            if value and name not in ELEMENT_LISTS:
                raise ValueError(f"inverse dynamics does not handle the model's {name} yet")
            setattr(m, name, list(keep.get(name, [])))
    # beams in their objective (total) form: the subproblems see each instant's configuration
    # alone, without the incremental form's committed section frames
    m.beams = [_keep_driven(replace(s, interpolation="total"), s) for s in getattr(m, "beams", [])]
    if "gravity" not in keep:
        m.gravity_vector = None
    return m


def _keep_driven(new, old):
    """A spec copy keeps its `driven` wrapper (set as an attribute by Model.driven)."""
    if getattr(old, "driven", None) is not None:
        new.driven = old.driven
    return new


class InverseDynamicsProblem:
    """Solve MBDyn's inverse problem at the instants `times` (or initial/final time and step).

    roles: {joint label: (torque, prescribed_motion)}; default from model.inverse_flags
    (set by the deck reader or Model.inverse_dynamics_flags), else (True, True).
    weights: (w_x, w_ẋ, w_ẍ) of the underdetermined problems (mass-weighted terms);
    unit_weights: (u_x, u_ẋ, u_ẍ), identity-weighted terms ½u_x|x - x_prev|²,
    ½u_ẋ|ẋ - (x - x_prev)/h|² and ½u_ẍ|ẍ - (ẋ - ẋ_prev)/h|²; acceleration_base: the 1 of
    (1 + w_ẍ)M in (6.60).  MBDyn's `weights, w1, w2, ...` map to unit_weights = w1 and
    weights = w2 per level, acceleration_base = 0 (checked against MBDyn 1.7.3's outputs of
    the planar_3link decks: positions and velocities agree to 1e-8)."""

    def __init__(self, model, times=None, problem_type="fully actuated collocated", roles=None,
                 weights=(1.0, 1.0, 1.0), initial_time=0.0, final_time=None, time_step=None,
                 tolerance=1e-10, max_iterations=20, observers=(),
                 reuse_factorizations=True, linear_solver="default", unit_weights=(0.0, 0.0, 0.0), acceleration_base=1.0):
        if problem_type not in PROBLEM_TYPES:
            raise ValueError(f"unknown inverse dynamics problem type '{problem_type}' "
                             f"(one of {', '.join(PROBLEM_TYPES)})")
        if times is None:
            if final_time is None or time_step is None:
                raise ValueError("give the instants `times`, or final_time and time_step")
            warning = check_time_span(initial_time, final_time, time_step, empty=True)
            if warning is not None:
                print(f"mbdae: warning: {warning}", file=sys.stderr)
            k = int(np.floor((final_time - initial_time) / time_step + 1e-9))
            times = initial_time + time_step * np.arange(k + 1)
        self.times = np.asarray(times, float)
        self.problem_type = problem_type
        self.weights = tuple(float(w) for w in weights)
        self.unit_weights = tuple(float(w) for w in unit_weights) + (0.0,) * (3 - len(unit_weights))
        self.acceleration_base = float(acceleration_base)
        self.tolerance = float(tolerance)
        self.max_iterations = int(max_iterations)
        self.observers = list(observers)
        self.model = model
        flags = dict(getattr(model, "inverse_flags", {}) or {})
        self._build(model, roles, flags)
        self.factors = ReusingSolver(make_linear_solver(linear_solver), reuse_factorizations)
        self.newton = NewtonRaphson(NewtonSettings(linear_solver=linear_solver), linear=self.factors)
        self.log_lines = []

    # ------------------------------------------------------------------ set-up
    def _build(self, model, roles, flags):
        # flags by label (MBDyn's joint namespace: joints, rods, deformable joints); beams by
        # ("beam", label)
        ergo = lambda s, k=None: bool(flags.get(k or s.label, {}).get("ergonomy", False))
        rhs = lambda s, k=None: bool(flags.get(k or s.label, {}).get("right hand side", True))
        lists = dict(bodies=model.bodies, joints=model.joints)
        self.system = System(_all_dynamic(model, lists))
        sysm = self.system
        self.joints = sysm.family_with("reactions")
        self.bodies = sysm.family_with("node_accelerations")
        if self.joints is None:
            raise ValueError("inverse dynamics needs joints that prescribe the motion")
        nodes = sysm.nodes
        if not nodes.rotating.all():
            raise ValueError("inverse dynamics: displacement-only structural nodes are not supported")
        self.nn = nodes.n
        self.n = 6 * nodes.n
        self.perm = np.concatenate([nodes.ix, nodes.ig], axis=1).reshape(-1)
        beams = getattr(model, "beams", [])
        rhs_lists = dict(bodies=model.bodies, forces=model.forces, user_forces=model.user_forces,
                         rods=[s for s in model.rods if rhs(s)],
                         deformable=[s for s in model.deformable if rhs(s)],
                         beams=[s for s in beams if rhs(s, ("beam", s.label))],
                         viscous_bodies=[s for s in getattr(model, "viscous_bodies", []) if rhs(s)])
        if model.gravity_vector is not None:
            rhs_lists["gravity"] = True
        self.rhs_system = System(_all_dynamic(model, rhs_lists))
        ergo_lists = dict(rods=[s for s in model.rods if ergo(s)],
                          deformable=[s for s in model.deformable if ergo(s)],
                          beams=[s for s in beams if ergo(s, ("beam", s.label))],
                          viscous_bodies=[s for s in getattr(model, "viscous_bodies", []) if ergo(s)])
        self.ergo_system = System(_all_dynamic(model, ergo_lists)) if any(ergo_lists.values()) else None
        # joint rows: the active (joint, row code) pairs of the family's 15-row layout, in the
        # order of their multipliers
        J = self.joints
        self.row_inst, self.row_code = np.nonzero(J.active)
        nr = len(self.row_inst)
        roles = roles or {}
        torque = np.empty(J.ne, bool)
        presc = np.empty(J.ne, bool)
        for i, s in enumerate(J.specs):
            if s.label in roles:
                tq, pm = roles[s.label]
            else:
                f = flags.get(s.label, {})
                tq, pm = f.get("torque", True), f.get("prescribed motion", True)
            torque[i], presc[i] = bool(tq), bool(pm)
            if not (tq or pm):
                raise ValueError(f"joint {s.label}: marked neither `torque` nor `prescribed motion`; "
                                 f"it would take part in no subproblem")
        # roles of every row; the rows taking part at an instant are those of the active
        # joints (driven joints, manual §8.20.2: set_activity rebuilds the partition)
        self.kin_roles = presc[self.row_inst]         # φ ∪ ψ
        self.dyn_roles = torque[self.row_inst]        # φ ∪ ϑ
        self.kin_rows, self.dyn_rows = self.kin_roles, self.dyn_roles
        self._driven_setup(model, J)
        self.pos_level = J.POSITION_LEVEL[self.row_code]
        self.row_joint = J.labels[self.row_inst]
        self.row_name = [f"{J.types[i]} {J.row_names[r]}" for i, r in zip(self.row_inst, self.row_code)]
        # global columns of each instance's 12 local columns (x1, θ1, x2, θ2); ground → -1
        n1, n2 = J.n1, J.n2
        base1 = np.where(n1 >= 0, 6 * np.maximum(n1, 0), -10 ** 9)
        cols = np.concatenate([base1[:, None] + np.arange(6), 6 * n2[:, None] + np.arange(6)], axis=1)
        self.inst_cols = np.where(cols >= 0, cols, -1)
        self.activity = None
        self.set_activity(self.times[0])

    def _driven_setup(self, model, J):
        """Driven joints (their rows switch on and off with the drive); driven rods, deformable
        joints and beams are masked by their Systems' DrivenActivity family."""
        for name in ELEMENT_LISTS:
            for s in getattr(model, name, []) or []:
                d = getattr(s, "driven", None)
                if d is None:
                    continue
                if name in ("bodies", "forces", "user_forces"):
                    raise ValueError(f"not supported yet: driven {name[:-1].replace('_', ' ')} {s.label} "
                                     f"in inverse dynamics")
                if d.hints:
                    raise ValueError(f"not supported yet: hints of driven element {s.label} in inverse dynamics")
        self.driven_inst = np.array([i for i, s in enumerate(J.specs)
                                     if getattr(s, "driven", None) is not None], np.int64)
        self.driven_drives = [J.specs[i].driven.drive for i in self.driven_inst]

    def set_activity(self, t):
        """Active joints at time t and the row partition that follows (φ, ψ, ϑ of the active
        joints only); checks the counts again when the activity changes.  Returns True on a
        change."""
        J = self.joints
        active = np.ones(J.ne, bool)
        if len(self.driven_inst):
            active[self.driven_inst] = [float(d.value(t)) != 0.0 for d in self.driven_drives]
        if self.activity is not None and np.array_equal(active, self.activity):
            return False
        self.activity = active
        on = active[self.row_inst]
        self.kin_rows = self.kin_roles & on
        self.dyn_rows = self.dyn_roles & on
        try:
            self.check_counts(len(self.row_inst))
        except ValueError as e:
            if len(self.driven_inst):
                raise ValueError(f"time {t:g}, active driven joints "
                                 f"{J.labels[self.driven_inst[active[self.driven_inst]]].tolist()}: {e}") from None
            raise
        return True

    def check_counts(self, nr):
        n, pt = self.n, self.problem_type
        nk, nd = int(self.kin_rows.sum()), int(self.dyn_rows.sum())
        collocated = "collocated" in pt and "non collocated" not in pt
        if collocated and not np.array_equal(self.kin_rows, self.dyn_rows):
            raise ValueError(f"problem type '{pt}': every joint must be both `torque` and "
                             f"`prescribed motion` (ψ ≡ ϑ); use a non-collocated problem type")
        if pt.startswith("fully actuated") and nk != n:
            raise ValueError(f"problem type '{pt}': the kinematic constraints (passive + prescribed, "
                             f"{nk} rows) must be as many as the coordinates ({n}: 6 per node)")
        if pt in ("fully actuated non collocated", "underdetermined fully actuated") and nd != n:
            raise ValueError(f"problem type '{pt}': passive + torque rows ({nd}) must be as many as "
                             f"the coordinates ({n})")
        if pt.startswith("underdetermined") and nk > n:
            raise ValueError(f"problem type '{pt}': more kinematic constraints ({nk}) than coordinates ({n})")

    # ------------------------------------------------------------------ evaluation
    def state(self, t, x, R, v=None, w=None):
        sysm = self.system
        nodes = sysm.nodes
        y = np.zeros(sysm.n)
        yp = np.zeros(sysm.n)
        y[nodes.ix] = x
        if v is not None:
            yp[nodes.ix] = v
            yp[nodes.ig] = w
        return State(float(t), y, yp, np.array(R, float))

    def context(self, st):
        return Context(st.t, st.y, st.yp, self.system.kinematics(st), "regular")

    def _transfer(self, st, system):
        nodes = self.system.nodes
        y = np.zeros(system.n)
        yp = np.zeros(system.n)
        y[nodes.ix] = st.y[nodes.ix]
        yp[nodes.ix] = st.yp[nodes.ix]
        yp[nodes.ig] = st.yp[nodes.ig]
        return State(st.t, y, yp, st.R_ref)

    def rows(self, st, lam=None):
        """Joint terms at st, flattened to the active rows: values c, matrix A (rows × n, sparse;
        C for position-level rows, Cv for velocity-level rows), phi_t and conv; given
        multipliers lam of the rows, also K, the constraint stiffness (constraint_stiffness)."""
        ctx = self.context(st)
        L = None
        if lam is not None:          # in the joints' layout (joint, row code)
            L = np.zeros(self.joints.active.shape)
            L[self.row_inst, self.row_code] = lam
        T = joint_terms(self.joints, ctx, L)
        i, r = self.row_inst, self.row_code
        C = np.where(self.pos_level[:, None], T["C"][i, r], T["Cv"][i, r])
        cols = self.inst_cols[i]
        keep = cols >= 0
        k = np.broadcast_to(np.arange(len(i))[:, None], cols.shape)
        A = sp.csr_matrix((C[keep], (k[keep], cols[keep])), shape=(len(i), self.n))
        B = sp.csr_matrix((T["B"][i, r][keep], (k[keep], cols[keep])), shape=(len(i), self.n))
        K = None if L is None else self.constraint_stiffness(T["K"])
        return dict(c=T["c"][i, r], A=A, B=B, phi_t=T["phi_t"][i, r], conv=T["conv"][i, r], G=T["G"], K=K)

    def constraint_stiffness(self, K):
        """Σ λ_r ∂(φ_r/x)ᵀ/∂x (n×n, sparse) from the joints' geometric stiffness K (ne, 12, 12)
        for the multipliers λ: the constraint part of the Hessian of the Lagrangian."""
        cols = self.inst_cols
        keep = (cols[:, :, None] >= 0) & (cols[:, None, :] >= 0)
        r = np.broadcast_to(cols[:, :, None], K.shape)
        c = np.broadcast_to(cols[:, None, :], K.shape)
        return sp.csr_matrix((K[keep], (r[keep], c[keep])), shape=(self.n, self.n))

    def inertia(self, st):
        """Block-diagonal mass matrix (n×n) and inertia forces h (n) at st."""
        if self.bodies is None:
            return sp.csr_matrix((self.n, self.n)), np.zeros(self.n)
        kin = self.system.kinematics(st)
        Mn, h = inertia_terms(self.bodies, kin)
        M = sp.bsr_matrix((Mn, np.arange(self.nn), np.arange(self.nn + 1)), shape=(self.n, self.n))
        return M.tocsr(), h.reshape(-1)

    def forces(self, st):
        """External and elastic loads f (n) of the `right hand side` elements at st."""
        f, _, _ = self.rhs_system.evaluate(self._transfer(st, self.rhs_system), 0.0, want_jac=False)
        return -f[self.perm]

    def ergonomy(self, st, velocity_level=False):
        """Position level: (∇U, K) of the `ergonomy` elements at zero velocity; velocity
        level: the damping matrix R.  None without ergonomy elements."""
        if self.ergo_system is None:
            return None
        s2 = self._transfer(st, self.ergo_system)
        P = self.perm
        if velocity_level:
            _, _, J0 = self.ergo_system.evaluate(s2, 0.0)
            return sp.csr_matrix(J0)[P][:, P]
        s2.yp[:] = 0.0
        f, _, J1 = self.ergo_system.evaluate(s2, 1.0)
        _, _, J0 = self.ergo_system.evaluate(s2, 0.0)
        K = (sp.csr_matrix(J1) - sp.csr_matrix(J0))[P][:, P]
        return f[P], K

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _split(q):
        q = q.reshape(-1, 6)
        return q[:, 0:3], q[:, 3:6]

    def _displace(self, x, R, dq):
        dx, th = self._split(dq)
        return x + dx, rot.exp_rotvec(th) @ R

    def _difference(self, x, R, x0, R0):
        """(x - x0, log(R R0ᵀ)) stacked (n) and the rotation vectors."""
        d = rot.log_rotvec(R @ np.swapaxes(R0, -1, -2))
        return np.concatenate([x - x0, d], axis=1).reshape(-1), d

    def _kkt(self, H, A):
        nr = A.shape[0]
        return sp.bmat([[H, A.T], [A, sp.csr_matrix((nr, nr))]], format="csc")

    def _solve(self, A, b, what, t, transpose=False):
        try:
            self.factors.factor(A)
            out = self.factors.solve(b, transpose)
        except SingularMatrix as e:
            raise InverseDynamicsFailed(f"time {t:g}: {what}: singular matrix ({e})") from None
        if not np.all(np.isfinite(out)):
            raise InverseDynamicsFailed(f"time {t:g}: {what}: singular matrix")
        return out

    # ------------------------------------------------------------------ subproblems
    def position(self, t, x, R, prev):
        """Newton (solvers/newton.py) on (6.34) or on the KKT system (6.49); returns x, R,
        the state and joint rows at the solution, the iterations and the error."""
        sub = PositionSubproblem(self, t, prev)
        it_state = PositionIterate(x, R, np.zeros(int((self.kin_rows & self.pos_level).sum())))
        try:
            it, err, _ = self.newton.solve(sub, it_state, 1.0, tolerance=self.tolerance,
                                           max_iterations=self.max_iterations, test="norm")
        except NoConvergence as e:
            if e.error is None or "singular" in str(e):
                raise InverseDynamicsFailed(f"time {t:g}: position subproblem: singular matrix ({e})") from None
            raise InverseDynamicsFailed(f"time {t:g}: position subproblem: no convergence in "
                                        f"{self.max_iterations} iterations (error {e.error:.3g})") from None
        except SimulationDiverged as e:
            raise InverseDynamicsFailed(f"time {t:g}: position subproblem: {e}") from None
        st, T = sub.at_solution
        return it_state.x, it_state.R, st, it, err, T

    def position_equations(self, t, x, R, lam, prev):
        """(F, matrix, state, rows) of the position subproblem at (x, R, λ)."""
        kr = self.kin_rows & self.pos_level
        st = self.state(t, x, R)
        if not self.problem_type.startswith("underdetermined"):
            T = self.rows(st)
            return T["c"][kr], T["A"][kr], st, T
        lam_rows = np.zeros(len(kr))
        lam_rows[kr] = lam
        T = self.rows(st, lam_rows)
        A, c = T["A"][kr], T["c"][kr]
        wx = self.weights[0]
        M, _ = self.inertia(st)
        grad = np.zeros(self.n)
        H = sp.csr_matrix((self.n, self.n))
        ux = self.unit_weights[0]
        if wx or ux:
            d, dr = self._difference(x, R, prev["x"], prev["R"])
            Md = (wx * (M @ d) + ux * d).reshape(-1, 6)
            Gi = rot.gamma_inv(dr)               # ∂ log(R R0ᵀ)/∂θ = Γ⁻¹(d)
            Md[:, 3:6] = rot.mattvec(Gi, Md[:, 3:6])
            grad += Md.reshape(-1)
            H = H + wx * M + ux * sp.identity(self.n, format="csr")
        E = self.ergonomy(st)
        if E is not None:
            grad += E[0]
            H = H + E[1]
        H = H + T["K"]
        return np.concatenate([grad + A.T @ lam, c]), self._kkt(H, A), st, T

    def velocity(self, st, prev, T):
        """Linear subproblem (6.36) or KKT system (6.54); T: the rows at st (zero velocities)."""
        t = st.t
        kr = self.kin_rows
        A = T["A"][kr]
        nodes = self.system.nodes
        V0 = np.zeros(self.n)
        # right-hand side: position rows -φ_t; velocity rows: their value without the V part
        rhs = np.where(self.pos_level[kr], -T["phi_t"][kr], -(T["c"][kr] - A @ V0))
        if not self.problem_type.startswith("underdetermined"):
            V = self._solve(A, rhs, "velocity subproblem", t)
            return V, A
        M, _ = self.inertia(st)
        wv, uv = self.weights[1], self.unit_weights[1]
        H = wv * M
        b = wv * (M @ prev["V"])
        if uv:              # identity-weighted distance from the backward-difference velocity
            h = t - prev["t"]
            d, _ = self._difference(st.y[nodes.ix], st.R_ref, prev["x"], prev["R"])
            H = H + uv * sp.identity(self.n, format="csr")
            b = b + uv * d / h
        Rm = self.ergonomy(st, velocity_level=True)
        if Rm is not None:
            H = H + Rm
        z = self._solve(self._kkt(H, A), np.concatenate([b, rhs]), "velocity subproblem", t)
        return z[:self.n], A

    def acceleration(self, st, prev):
        t = st.t
        kr = self.kin_rows
        T = self.rows(st)
        A = T["A"][kr]
        rhs = -T["conv"][kr]
        if self.problem_type == "underdetermined underactuated collocated":
            return None, T            # solved together with the loads (6.56)
        if not self.problem_type.startswith("underdetermined"):
            return self._solve(A, rhs, "acceleration subproblem", t), T
        M, _ = self.inertia(st)
        wa, ua = self.weights[2], self.unit_weights[2]
        H = (self.acceleration_base + wa) * M
        b = wa * (M @ prev["A"])
        if ua:              # identity-weighted distance from the backward-difference acceleration
            nodes = self.system.nodes
            V = np.concatenate([st.yp[nodes.ix], st.yp[nodes.ig]], axis=1).reshape(-1)
            H = H + ua * sp.identity(self.n, format="csr")
            b = b + ua * (V - prev["V"]) / (t - prev["t"])
        z = self._solve(self._kkt(H, A), np.concatenate([b, rhs]), "acceleration subproblem", t)
        return z[:self.n], T

    def dynamics(self, st, Acc, T):
        """Multipliers of the dynamics rows: Dᵀλ = f - M ẍ - h (6.40/6.42); for the
        underactuated collocated case, ẍ and λ together from (6.56).  D is the joints' reaction
        map (the gradient φ/x with the rotation rows' multipliers redefined as couples, eq.
        9.15), as in the forward problem; it equals φ/x where the rotation rows are satisfied."""
        t = st.t
        M, h = self.inertia(st)
        f = self.forces(st)
        dr = self.dyn_rows
        D = T["B"][dr]     # reaction map: rotation rows carry the couple in the joint frame (eq. 9.15)
        lam = np.zeros(len(dr))
        if self.problem_type == "underdetermined underactuated collocated":
            z = self._solve(self._kkt(M, D), np.concatenate([f - h, -T["conv"][dr]]),
                            "inverse dynamics subproblem", t)
            Acc = z[:self.n]
            lam[dr] = z[self.n:]
        else:
            lam[dr] = self._solve(D, f - M @ Acc - h, "inverse dynamics subproblem", t, transpose=True)
        return Acc, lam

    # ------------------------------------------------------------------ driver
    def log_header(self):
        """The first lines the observers log (the .out header) before the instants."""
        note = replicated_note("inverse dynamics")
        return [f"# mbdae inverse dynamics, problem type: {self.problem_type}"] + ([note] if note else [])

    def run(self):
        wall0 = _time.perf_counter()
        nodes = self.system.nodes
        x, R = nodes.x0.copy(), nodes.R0.copy()
        h0 = self.times[1] - self.times[0] if len(self.times) > 1 else 1.0
        prev = dict(x=x.copy(), R=R.copy(), V=np.concatenate([nodes.v0, nodes.w0], axis=1).reshape(-1),
                    A=np.zeros(self.n), t=self.times[0] - h0)
        out = {k: [] for k in ("x", "R", "v", "w", "a", "wd", "F", "M", "lam")}
        res = {k: [] for k in ("position", "velocity", "acceleration", "iterations")}
        for obs in self.observers:
            obs.start(self.system, self.model)
            for line in self.log_header():
                obs.log(line)
            obs.log("# Step Time TStep NIter ResErr SolErr SolConv Out")
        t_prev = None
        total_it = 0
        try:
            for step, t in enumerate(self.times):
                self.set_activity(t)
                if t_prev is not None:        # predictor: second-order Taylor from the last instant
                    h = t - t_prev
                    V6, A6 = prev["V"].reshape(-1, 6), prev["A"].reshape(-1, 6)
                    x = prev["x"] + h * V6[:, 0:3] + 0.5 * h * h * A6[:, 0:3]
                    R = rot.exp_rotvec(h * V6[:, 3:6] + 0.5 * h * h * A6[:, 3:6]) @ prev["R"]
                x, R, st, it, err, T0 = self.position(t, x, R, prev)
                total_it += it
                V, Avel = self.velocity(st, prev, T0)
                V6 = V.reshape(-1, 6)
                st = self.state(t, x, R, V6[:, 0:3], V6[:, 3:6])
                Acc, T = self.acceleration(st, prev)
                Acc, lam = self.dynamics(st, Acc, T)
                kr = self.kin_rows
                res["position"].append(float(np.max(np.abs(T["c"][kr & self.pos_level]), initial=0.0)))
                vres = np.where(self.pos_level, T["A"] @ V + T["phi_t"], T["c"])
                res["velocity"].append(float(np.max(np.abs(vres[kr]), initial=0.0)))
                res["acceleration"].append(float(np.max(np.abs(T["A"][kr] @ Acc + T["conv"][kr]), initial=0.0)))
                res["iterations"].append(it)
                A6 = Acc.reshape(-1, 6)
                F2, M2 = self._reactions(st, lam)
                for k, v in zip(out, (x, R, V6[:, 0:3], V6[:, 3:6], A6[:, 0:3], A6[:, 3:6], F2, M2, lam)):
                    out[k].append(np.array(v, copy=True))
                if self.observers:
                    self.accelerations = A6         # the instant's (ẍ, ω̇), given with its StepEvent
                    self._publish(step, st, lam, it, err)
                prev = dict(x=x.copy(), R=R.copy(), V=V.copy(), A=Acc.copy(), t=t)
                t_prev = t
        finally:
            for obs in self.observers:
                obs.finish()
        arr = {k: np.array(v) for k, v in out.items()}
        f = self.factors
        stats = dict(instants=len(self.times), newton_iterations=total_it, factorizations=f.factorizations,
                     reused_factorizations=f.reused, linear_solves=f.solves,
                     wall_time=_time.perf_counter() - wall0, **solver_statistics(f))
        self.stats = stats
        return InverseDynamicsResults(self.times, arr["x"], arr["R"], arr["v"], arr["w"], arr["a"], arr["wd"],
                                      self.joints.labels, arr["F"], arr["M"], nodes.labels.copy(),
                                      arr["lam"], self.row_joint, self.row_name,
                                      {k: np.array(v) for k, v in res.items()}, stats,
                                      self.dyn_roles & ~self.kin_roles, self.dyn_roles.copy())

    # ------------------------------------------------------------------ output
    def _multiplier_state(self, st, lam):
        y = st.y.copy()
        J = self.joints
        y[J.mult[self.row_inst, self.row_code]] = lam
        return State(st.t, y, st.yp, st.R_ref)

    def _reactions(self, st, lam):
        s2 = self._multiplier_state(st, lam)
        ctx = Context(s2.t, s2.y, s2.yp, self.system.kinematics(s2), "regular")
        _, F, M = self.joints.reactions(ctx)
        return F, M

    def event_kinematics(self, st):
        """The node kinematics of a StepEvent, with the instant's accelerations (kin.a, kin.wd)
        from the acceleration subproblem."""
        kin = self.system.kinematics(st)
        kin.a, kin.wd = self.accelerations[:, 0:3], self.accelerations[:, 3:6]
        return kin

    def _publish(self, step, st, lam, it, err):
        """A StepEvent to the observers: node poses, the joints with the multipliers as
        their reactions, and the deformable elements of the right-hand-side and ergonomy
        systems (an element in both is written once)."""
        h = self.times[1] - self.times[0] if len(self.times) > 1 else 0.0
        kin = self.event_kinematics(st)
        outputs = [([self.joints], self.system.context(self._multiplier_state(st, lam)))]
        for sysm in (self.rhs_system, self.ergo_system):      # deformable joints, rods, beams
            if sysm is not None:
                outputs.append((sysm.families, sysm.context(self._transfer(st, sysm))))
        event = StepEvent(step, st.t, h, it, err, True, True, st, kin, outputs)
        publish_step(self.observers, event)     # whole instants in the files (engine/core/stop.py)


def run(model, times, **kw):
    """Build and run an inverse-dynamics problem; returns InverseDynamicsResults."""
    return InverseDynamicsProblem(model, times, **kw).run()


@dataclass
class PositionIterate:
    """The unknowns of the position subproblem: node positions, orientations and (for the
    underdetermined problems) the multipliers of the KKT system."""
    x: np.ndarray
    R: np.ndarray
    lam: np.ndarray


class PositionSubproblem:
    """The position subproblem at instant t as a system for the Newton solver (its
    protocol: evaluate, update, dim, owner_text, last_kinematics): F = 0 of (6.34) or of the
    KKT conditions of (6.49); the update moves x by Δx and R by exp(Δθ) R."""

    def __init__(self, problem, t, prev):
        self.problem, self.t, self.prev = problem, t, prev
        self.last_kinematics = None
        self.at_solution = None
        self._cache = None
        self.dim = None

    def evaluate(self, it, dcoef, mode="regular", want_jac=True, ia=None, want_abs=True):
        if self._cache is None:
            F, Mat, st, T = self.problem.position_equations(self.t, it.x, it.R, it.lam, self.prev)
            self._cache = (F, None, Mat)
            self.at_solution = (st, T)
            self.dim = np.zeros(len(F), np.int64)
        return self._cache

    def update(self, it, dz, dcoef):
        n = self.problem.n
        it.x, it.R = self.problem._displace(it.x, it.R, dz[:n])
        if len(dz) > n:
            it.lam = it.lam + dz[n:]
        self._cache = None

    def owner_text(self, row):
        return f"position subproblem row {row}"
