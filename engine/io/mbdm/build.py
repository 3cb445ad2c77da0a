"""An MBDM input (engine/io/mbdm/reader.py) as an mbdae Model, and the run it asks for.

Bodies (TN §7.2) are dynamic structural nodes labelled by their ID, each carrying a rigid
body with its mass and LCS inertia (the LCS is centroidal, TN §4).  Orientation: the TN's
1-2-3 angles, A = Rz(αz) Ry(αy) Rx(αx) (TN eq. 91).  MBDM's MATLAB code builds
Rx(αx) Ry(-αy) Rz(αz) instead (digest §1.3, erratum 11); the two agree when at most one
angle is non-zero, and a note says which one mbdae used otherwise.  ω is given in the LCS.

Joints (TN §7.3, digest §1.3 "Joints"; label = joint ID) map onto mbdae's joint family
(elements/joints.py), row by row the same constraint manifolds as Haug's equations:

| MBDM | mbdae | rows |
|---|---|---|
| ABX, ABY, ABZ | total pin joint, one position component = dist | 1 |
| ABA | total pin joint, orientation = the Euler parameters (q1 = e1, e2, e3) | 3 |
| G | clamp at p1 with the orientation of q1 | 6 |
| S | spherical hinge at p1 / p2 | 3 |
| R | revolute hinge, axis h = q - p, reference f = r - p | 5 |
| C | cylindrical joint (in-line + parallel axes) | 4 |
| T | translational joint (in-line + locked relative rotation; f_i ⟂ f_j, TN eq. 21) | 5 |
| RC | revolute-cylindrical joint (line on body j, revolute axis on i ⟂ it, TN eq. 20) | 3 |
| U | Cardano hinge (arms h_i ⟂ h_j) | 4 |
| DI | distance = dist (> 0) | 1 |
| RDRV | total joint, rotation about q1 = θ0 + θ̇ t, measured from p1 (body i) to p2 (body j) | 1 |

RDRV: MBDM measures θ from cos θ = f_iᵀA_iᵀA_j f_j, sin θ = g_iᵀA_iᵀA_j f_j with quadrant
logic (TN eqs. 25-27), singular near θ = 0 (its author's warning); mbdae's total joint row
is the rotation-vector component about the axis, unwrapped over turns, equal to θ whenever
the relative rotation is about the axis (always so with a revolute between the same bodies)
and regular at 0.

Moorings (TN §6, §7.1.3) are mbdae's `taut mooring` lines (elements/mooring.py), bilateral
(f = k(l - l0) + b l̇ pushes too, as MBDM's): label = number of joints + line number.
Loads: gravity on every body (MBDM's default -9.81 along z, TN Listing 2, or the
`.expert.loads` file's), and that file's forces, moments and force functions."""
import importlib.util
import os
from dataclasses import dataclass, field

import numpy as np

from mbdae.engine.core.drives import LinearDrive
from mbdae.engine.core.rotations import euler321_to_R, frame_from_axis3
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.drivers.ivp import InitialValueProblem, Settings
from mbdae.engine.drivers.kinematic import KinematicAnalysis
from mbdae.engine.io.mbdm.output import MbdmWriter
from mbdae.engine.io.mbdm.reader import MbdmError, read_mbdm
from mbdae.engine.io.mbdyn.output import writers_for
from mbdae.engine.model import Model
from mbdae.solvers.linear import add_solver_statistics, choose_linear_solver

TOL = 1e-9


def tn_rotation(angles):
    """A = Rz(αz) Ry(αy) Rx(αx) of the TN's 1-2-3 angles (αx, αy, αz) (TN eq. 91)."""
    ax, ay, az = angles
    return euler321_to_R([az, ay, ax])


def euler_parameters_to_R(e123, err):
    """A of the Euler parameters (e0, e1, e2, e3) with e0 = √(1 - |e|²) ≥ 0 (TN eqs. 1, 2,
    28); `err(message)` makes the error when |e| > 1."""
    e1, e2, e3 = (float(v) for v in e123)
    s = e1 * e1 + e2 * e2 + e3 * e3
    if s > 1.0 + 1e-12:
        raise err(f"the Euler parameters e1, e2, e3 = {e1:g}, {e2:g}, {e3:g} have |e| > 1")
    e0 = np.sqrt(max(0.0, 1.0 - s))
    return 2.0 * np.array([[e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2],
                           [e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1],
                           [e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5]])


def _frame(axis3, axis1, err, what):
    """Orthonormal frame with column 3 along axis3 and column 1 along axis1's part normal to
    it (any normal when axis1 is None or parallel)."""
    n3 = np.linalg.norm(axis3)
    if n3 < TOL:
        raise err(f"{what}: the axis has zero length")
    z = axis3 / n3
    if axis1 is not None:
        x = axis1 - z * (z @ axis1)
        if np.linalg.norm(x) > TOL * max(1.0, np.linalg.norm(axis1)):
            x = x / np.linalg.norm(x)
            return np.column_stack([x, np.cross(z, x), z])
    return frame_from_axis3(z)


class _JointBuilder:
    """Adds one MBDM joint to the model (see the module's table)."""

    def __init__(self, model, A0):
        self.model, self.A0 = model, A0

    def add(self, j):
        err = lambda message: j.line.error(f"joint {j.id} ({j.type}): {message}", word="type")   # noqa: E731
        getattr(self, "joint_" + j.type)(j, err)

    def relative(self, j, vector):
        """A body-i vector in body j's frame at the input configuration."""
        i, k = j.bodies
        return self.A0[k].T @ self.A0[i] @ vector

    def _axis_frames(self, j, err):
        """(frame on i with z = q1 - p1 and x = r1 - p1, frame on j with z = q2 - p2 and x
        = the image of x_i) of R and C."""
        F1 = _frame(j.q1 - j.p1, None, err, "q1 - p1 (the axis on body i)")
        if np.linalg.norm(np.cross(F1[:, 2], j.r1 - j.p1)) < TOL:
            raise err("r1 - p1 (the normal on body i) is zero or along the axis q1 - p1")
        F1 = _frame(j.q1 - j.p1, j.r1 - j.p1, err, "q1 - p1")
        F2 = _frame(j.q2 - j.p2, self.relative(j, F1[:, 0]), err, "q2 - p2 (the axis on body j)")
        return F1, F2

    def joint_R(self, j, err):
        F1, F2 = self._axis_frames(j, err)
        self.model.revolute_hinge(j.id, j.bodies[0], j.bodies[1], offset1=j.p1, orientation1=F1,
                                  offset2=j.p2, orientation2=F2)

    def joint_C(self, j, err):
        F1, F2 = self._axis_frames(j, err)
        self.model.cylindrical_joint(j.id, j.bodies[0], j.bodies[1], offset1=j.p1, orientation1=F1,
                                     offset2=j.p2, orientation2=F2)

    def joint_T(self, j, err):
        F1, _ = self._axis_frames(j, err)
        hj, fj = j.q2 - j.p2, j.r2 - j.p2
        if np.linalg.norm(hj) < TOL or np.linalg.norm(np.cross(hj, fj)) < TOL:
            raise err("q2 - p2 (the axis on body j) is zero, or r2 - p2 is zero or along it")
        # Haug's T keeps f_j ⟂ f_i: body j's image of f_i is ±(h_j × f_j), the sign of the
        # input configuration
        c = np.cross(hj, fj)
        c = c / np.linalg.norm(c)
        x2 = c if c @ self.relative(j, F1[:, 0]) >= 0 else -c
        F2 = _frame(hj, x2, err, "q2 - p2")
        self.model.translational_joint(j.id, j.bodies[0], j.bodies[1], offset1=j.p1, orientation1=F1,
                                       offset2=j.p2, orientation2=F2)

    def joint_RC(self, j, err):
        hj, fj = j.q2 - j.p2, j.r2 - j.p2
        if np.linalg.norm(hj) < TOL or np.linalg.norm(np.cross(hj, fj)) < TOL:
            raise err("q2 - p2 (the translation axis on body j) is zero, or r2 - p2 is zero or along it")
        if np.linalg.norm(j.q1 - j.p1) < TOL:
            raise err("q1 - p1 (the revolute axis on body i) has zero length")
        # the line belongs to body j: it is the joint's node 1
        self.model.revolute_cylindrical_joint(j.id, j.bodies[1], j.bodies[0], offset1=j.p2,
                                              orientation1=_frame(hj, fj, err, "q2 - p2"), offset2=j.p1,
                                              axis2=j.q1 - j.p1)

    def joint_U(self, j, err):
        hi, hj = j.q1 - j.p1, j.q2 - j.p2
        F1 = _frame(hi, None, err, "q1 - p1 (the arm on body i)")
        F = _frame(hj, None, err, "q2 - p2 (the arm on body j)")
        F2 = np.column_stack([F[:, 1], F[:, 2], F[:, 0]])        # column 2 along the arm h_j
        self.model.cardano_hinge(j.id, j.bodies[0], j.bodies[1], offset1=j.p1, orientation1=F1,
                                 offset2=j.p2, orientation2=F2)

    def joint_S(self, j, err):
        self.model.spherical_hinge(j.id, j.bodies[0], j.bodies[1], offset1=j.p1, offset2=j.p2)

    def joint_DI(self, j, err):
        if not j.dist > 0:
            raise err(f"the distance must be positive (MBDM's constraint is invalid for C = 0), not {j.dist:g}")
        self.model.distance(j.id, j.bodies[0], j.bodies[1], length=j.dist, offset1=j.p1, offset2=j.p2)

    def joint_G(self, j, err):
        self.model.clamp(j.id, j.bodies[0], position=j.p1, orientation=euler_parameters_to_R(j.q1, err))

    def _absolute(self, j, k):
        X0 = np.zeros(3)
        X0[k] = j.dist
        status = ["inactive"] * 3
        status[k] = "active"
        self.model.total_pin_joint(j.id, j.bodies[0], absolute_position=X0, position_status=tuple(status))

    def joint_ABX(self, j, err):
        self._absolute(j, 0)

    def joint_ABY(self, j, err):
        self._absolute(j, 1)

    def joint_ABZ(self, j, err):
        self._absolute(j, 2)

    def joint_ABA(self, j, err):
        self.model.total_pin_joint(j.id, j.bodies[0], rotation_orientation=np.eye(3),
                                   absolute_rotation_orientation=euler_parameters_to_R(j.q1, err),
                                   orientation_status=("active",) * 3)

    def joint_RDRV(self, j, err):
        h, p1, p2 = j.q1, j.p1, j.p2
        for name, v in (("q1 (the axis)", h), ("p1", p1), ("p2", p2)):
            if abs(np.linalg.norm(v) - 1.0) > 1e-6:
                raise err(f"{name} must be a unit vector (MBDM uses it unnormalized, TN §7.3.8), "
                          f"|{name.split()[0]}| = {np.linalg.norm(v):.6g}")
        if abs(h @ p1) > 1e-6:
            raise err("p1 must lie in the plane of rotation (normal to q1)")
        F1 = _frame(h, p1, err, "q1")
        hj = self.relative(j, h)
        if abs(hj @ p2) > 1e-3:
            raise err("p2 is not in the plane of rotation at the input configuration (normal to the axis q1)")
        F2 = _frame(hj, p2, err, "the axis seen from body j")
        F2 = np.column_stack([F2[:, 0], np.cross(F2[:, 2], F2[:, 0]), F2[:, 2]])
        angle = VectorDrive.single([0.0, 0.0, 1.0], LinearDrive(float(j.r1[0]), float(j.dist)))
        self.model.total_joint(j.id, j.bodies[0], j.bodies[1], rotation_orientation1=F1,
                               rotation_orientation2=F2, orientation_status=("inactive", "inactive", "active"),
                               orientation_drive=angle)


def _load_function(file, name, where):
    spec = importlib.util.spec_from_file_location(f"mbdm_loads_{abs(hash(file))}", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    func = getattr(module, name, None)
    if not callable(func):
        raise MbdmError(where.split(":")[0], int(where.split(":")[1]), 1, name,
                        f"{file} has no function '{name}'")
    return func


def build_model(data):
    """(Model, notes) of an MbdmInput."""
    m = Model()
    notes = []
    A0 = {}
    for b in data.bodies:
        A = tn_rotation(b.angles)
        A0[b.id] = A
        if np.count_nonzero(b.angles) > 1:
            notes.append(f"body {b.id} ({b.where}): several non-zero 1-2-3 angles: mbdae uses the technical "
                         f"note's A = Rz Ry Rx (eq. 91); MBDM's MATLAB code builds Rx Ry(-y) Rz, another orientation")
        m.structural_node(b.id, "dynamic", position=b.r, orientation=A, velocity=b.v,
                          angular_velocity=A @ b.omega)
        m.body(b.id, b.id, b.mass, inertia=b.inertia)
    builder = _JointBuilder(m, A0)
    for j in data.joints:
        builder.add(j)
    nj = len(data.joints)
    for k, line in enumerate(data.moorings, 1):
        m.taut_mooring(nj + k, line.body, line.anchor, stiffness=line.stiffness, length=line.length,
                       damping=line.damping, offset=line.fairlead, where=line.where)
    if np.any(data.gravity != 0.0):
        m.gravity(data.gravity)
    for ld in data.loads:
        if ld.type == "force function":
            m.user_force(ld.id, ld.body, _load_function(*ld.function, ld.where))
        else:
            what, frame = ld.type.split(" in ")
            frame = "absolute" if frame == "GCS" else "follower"
            (m.force if what == "force" else m.couple)(ld.id, ld.body, ld.value, frame)
    return m, notes


@dataclass
class MbdmCase:
    """An MBDM input ready to run: the Model, the run's settings and the reader's notes
    (the interface of a Deck that `mbdae run/check` use)."""
    path: str
    data: object
    model: Model
    settings: dict
    notes: list = field(default_factory=list)
    abort_after: tuple = None
    log_lines: list = field(default_factory=list)

    @property
    def title(self):
        return self.data.header.name

    @property
    def kinematic(self):
        return self.data.header.analysis == 0

    def output_directory(self, prefix):
        return os.path.dirname(os.path.abspath(prefix if prefix else self.path))

    def problem(self, output_prefix=None, observers=(), **overrides):
        """KinematicAnalysis (MBDM's mode 0) or InitialValueProblem (mode 1) with MBDyn's
        files under output_prefix and MBDM's beside them."""
        s = {**self.settings, **overrides}
        s.pop("keep_results", None)
        prefix = output_prefix or s.get("output_prefix")
        h = self.data.header
        mbdm = [MbdmWriter(self.output_directory(prefix), self.data)] if prefix else []
        choice = choose_linear_solver(s.get("linear_solver"))
        if self.kinematic:
            base = writers_for(Settings(output_prefix=prefix, output_frequency=s.get("output_frequency", 1)), choice)
            return KinematicAnalysis(self.model, initial_time=h.t_start, final_time=s.get("final_time", h.t_end),
                                     time_step=h.dt, tolerance=s["tolerance"], max_iterations=s["max_iterations"],
                                     linear_solver=s.get("linear_solver", "default"),
                                     observers=base + mbdm + list(observers))
        settings = Settings(**{k: v for k, v in s.items() if k in Settings.__dataclass_fields__},
                            output_prefix=prefix)
        return InitialValueProblem(self.model, settings,
                                   observers=writers_for(settings, choice) + mbdm + list(observers))

    def run(self, output_prefix=None, observers=(), **overrides):
        problem = self.problem(output_prefix, observers, **overrides)
        results = problem.run()
        if not self.kinematic:
            add_solver_statistics(results, problem.newton.linear)
        return results

    def report(self):
        """What `mbdae check` prints."""
        h, d = self.data.header, self.data
        kinds = {}
        for j in d.joints:
            kinds[j.type] = kinds.get(j.type, 0) + 1
        return [f"MBDM input: {self.path} (case {h.name})",
                f"files: {', '.join(d.files)}",
                f"bodies: {len(d.bodies)}",
                f"joints: {len(d.joints)}" + (" (" + ", ".join(f"{k} {n}" for k, n in kinds.items()) + ")"
                                              if kinds else ""),
                f"mooring lines: {len(d.moorings)}, tracer groups: {len(d.tracers)}, loads: {len(d.loads)}",
                f"gravity: {', '.join(f'{g:g}' for g in d.gravity)}",
                f"problem: {'kinematic analysis' if self.kinematic else 'dynamic (initial value)'}, "
                f"t = {h.t_start:g} .. {h.t_end:g}, time step {h.dt:g}"]


def read_mbdm_case(path):
    """Read MBDM's files at `path` into an MbdmCase (mbdae run FILE uses it when FILE's header
    is MBDM's)."""
    data = read_mbdm(path)
    model, notes = build_model(data)
    h = data.header
    settings = dict(initial_time=h.t_start, final_time=h.t_end, time_step=h.dt, max_iterations=h.nr_steps,
                    output_frequency=max(1, h.save_output))
    if h.analysis == 0:
        settings["tolerance"] = h.nr_accuracy
    else:
        # MBDM's N-R accuracy bounds its position corrections; mbdae's dynamic steps test the
        # residual relative to the loads (relnorm) with that number, and the same bound on
        # the constraint rows
        settings.update(tolerance=max(h.nr_accuracy, 1e-12), test="relnorm", method="ms", rho=0.6)
    return MbdmCase(path, data, model, settings, notes)
