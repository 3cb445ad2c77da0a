"""Rigid joints (manual §9.1) as one vectorized family of constraint rows.

Every joint instance connects node 1 (or the ground, for the `pin` variants) and node 2
and activates a subset of 15 candidate scalar constraints:

  rows  0-2   position components  e_kᵀ(x2 + f2 - x1 - f1) - x̃0_k(t)   (total joint, eq. 9.99;
              spherical/revolute hinge position part, in line, in plane, drive displacement)
  rows  3-5   rotation components  [exp⁻¹(R1rᵀ R2r R0(t)ᵀ)]_k             (total joint / clamp /
              prismatic / drive hinge, eqs. 9.12, 9.50, 9.100)
  rows  6-8   relative velocity components (non-holonomic, total joint eq. 9.114)
  rows  9-11  relative angular velocity components (axial rotation, total joint eq. 9.116)
  rows 12-13  axis orthogonality (R1 a1)ᵀ(R2 a2) = 0 (revolute hinge eq. 9.36, Cardano hinge)
  row  14     distance ‖x2 + f2 - x1 - f1‖ - l(t) (eq. 9.19)

The offset displacement joint (input manual, "Offset displacement joint") is the spherical
hinge's rows 0-2 with f1 = o1, f2 = 0: node 2 (typically a displacement node of the solids)
follows x1 + R1 o1.

Each active row owns one algebraic multiplier λ.  Position-level rows are divided by
dCoef (G2).  Node loads are Bᵀλ with B the virtual-displacement gradient of the row
(for the rotation rows the multiplier is redefined as in eq. 9.15 so that the couple is
R1r λ without the Γ⁻ᵀ factor).  The Jacobian is exact for this residual and is checked
against finite differences through the solver's update rule by the generated tests.
"""
from functools import cached_property
from dataclasses import dataclass, field
import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.assembly import Pattern, ALGEBRAIC, DIM, kernel_jacobian_views
from mbdae.engine.core.tpldrive import VectorDriveArray
from mbdae.engine.core.drives import DriveArray, NullDrive
from mbdae.engine.core.privdata import unwrap_rotation_vector
from mbdae.elements.joint_kernel import joint_group, joint_group_terms
from mbdae.elements.base import (ElementFamily, two_node_columns,
                                 vec, mat, scalar_drive, vector_drive, status_flags,
                                 POSITION_STATUS, ROTATION_STATUS, random_rotation, random_nodes)
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.rotations import frame_from_axis3
from mbdae.engine.core.drives import SineDrive, LinearDrive, ConstDrive

NROWS = 15
UNWRAPPED_ROTATION = ("total joint", "total pin joint", "revolute hinge", "revolute pin", "axial rotation")
POS, ROT, VEL, AVEL, DOT, DIST = slice(0, 3), slice(3, 6), slice(6, 9), slice(9, 12), slice(12, 14), 14
POSITION_LEVEL = np.array([True] * 6 + [False] * 6 + [True] * 3)   # rows divided by dCoef (G2)
ROW_DIM = [DIM["position constraint"]] * 3 + [DIM["rotation constraint"]] * 3 + \
          [DIM["velocity constraint"]] * 3 + [DIM["angular velocity constraint"]] * 3 + \
          [DIM["rotation constraint"]] * 2 + [DIM["position constraint"]]
ROW_NAME = ["position x", "position y", "position z", "rotation x", "rotation y", "rotation z",
            "velocity x", "velocity y", "velocity z", "angular velocity x", "angular velocity y",
            "angular velocity z", "axis orthogonality 1", "axis orthogonality 2", "distance"]
I3 = np.eye(3)
# joint types whose .jnt reaction MBDyn writes as the load on node 1 (see output_groups)
NODE1_OUTPUT = {"total joint", "drive hinge", "total equation", "total internal reaction", "in line",
                "distance"}


@dataclass
class JointSpec:
    """Plain description of one joint.  node1 = None means the ground (pin variants); then
    f1, R1h, R1r are absolute.  Frames R1h (position) and R1r, R2r (rotation) are relative
    to their node."""
    label: int
    type: str
    node1: object
    node2: int
    f1: np.ndarray = field(default_factory=lambda: np.zeros(3))
    f2: np.ndarray = field(default_factory=lambda: np.zeros(3))
    R1h: np.ndarray = field(default_factory=lambda: np.eye(3))
    R1r: np.ndarray = field(default_factory=lambda: np.eye(3))
    R2r: np.ndarray = field(default_factory=lambda: np.eye(3))
    active: np.ndarray = field(default_factory=lambda: np.zeros(NROWS, bool))
    pos_drive: object = None       # VectorDrive of imposed relative position (frame R1 R1h)
    rot_drive: object = None       # VectorDrive of imposed relative rotation vector (frame R1 R1r)
    vel_drive: object = None
    avel_drive: object = None
    dot_axes: tuple = ()           # ((a1, a2), ...) unit axes in node frames, at most 2
    distance_drive: object = None  # scalar drive of the imposed distance
    output: bool = True
    output_frame: np.ndarray = None  # frame of the local .jnt columns, relative to node 1 (default R1h)
    equation: object = None        # total internal reaction: label of its total equation joint


# ---------------------------------------------------------------------- Model builder methods
# (engine/model.py makes each of MODEL_METHODS a Model method through the registry; the
# first argument is the model)

def _joint(model, label, type_, node1, node2, **kw):
    active = np.zeros(NROWS, bool)
    for k in kw.pop("rows", ()):
        active[k] = True
    spec = JointSpec(label, type_, node1, node2, active=active, **kw)
    model.joints.append(spec)
    return label


def clamp(model, label, node, position=None, orientation=None):
    """Clamp (§9.1.2): the node stays at its initial (or the given absolute) pose."""
    spec = model._node_spec(node)
    X = spec.x if position is None else vec(position)
    R = spec.R if orientation is None else mat(orientation)
    return _joint(model, label, "clamp", None, node, f1=X, R1h=R, R1r=R, rows=range(6))


def spherical_hinge(model, label, node1, node2, offset1=None, offset2=None,
                    orientation1=None, orientation2=None):
    """Spherical hinge (§9.1.5): x1 + R1 f1 = x2 + R2 f2."""
    return _joint(model, label, "spherical hinge", node1, node2, f1=vec(offset1),
                       f2=vec(offset2), R1h=mat(orientation1), R2r=mat(orientation2),
                       rows=range(3))


def spherical_pin(model, label, node, offset=None, absolute_position=None):
    """Spherical pin: x + R f = X0 (absolute)."""
    X0 = model._point_of(node, offset) if absolute_position is None else vec(absolute_position)
    return _joint(model, label, "spherical pin", None, node, f1=X0, f2=vec(offset), rows=range(3))


def revolute_hinge(model, label, node1, node2, offset1=None, orientation1=None,
                   offset2=None, orientation2=None):
    """Revolute hinge (§9.1.6): points coincide, axis 3 of R1 R1h parallel to axis 3 of R2 R2h."""
    R1h, R2h = mat(orientation1), mat(orientation2)
    return _joint(model, label, "revolute hinge", node1, node2, f1=vec(offset1), f2=vec(offset2),
                       R1h=R1h, R1r=R1h, R2r=R2h, rows=range(3),
                       dot_axes=((R1h[:, 2], R2h[:, 0]), (R1h[:, 2], R2h[:, 1])))


def revolute_pin(model, label, node, offset=None, orientation=None, absolute_position=None,
                 absolute_orientation=None):
    """Revolute pin: revolute hinge to the ground at X0 with axis 3 of R0."""
    Rh = mat(orientation)
    X0 = model._point_of(node, offset) if absolute_position is None else vec(absolute_position)
    R0 = model._node_spec(node).R @ Rh if absolute_orientation is None else mat(absolute_orientation)
    return _joint(model, label, "revolute pin", None, node, f1=X0, f2=vec(offset), R1h=R0, R1r=R0,
                       R2r=Rh, rows=range(3), dot_axes=((R0[:, 2], Rh[:, 0]), (R0[:, 2], Rh[:, 1])))


def cardano_hinge(model, label, node1, node2, offset1=None, orientation1=None,
                  offset2=None, orientation2=None):
    """Cardano (universal) hinge: points coincide, axis 3 of R1R1h ⟂ axis 2 of R2R2h."""
    R1h, R2h = mat(orientation1), mat(orientation2)
    return _joint(model, label, "cardano hinge", node1, node2, f1=vec(offset1), f2=vec(offset2),
                       R1h=R1h, R1r=R1h, R2r=R2h, rows=range(3), dot_axes=((R1h[:, 2], R2h[:, 1]),))


def in_line(model, label, node1, line_position, line_orientation, node2, offset2=None):
    """In line (§9.1.7): x2 + R2 q on the line through x1 + R1 p along axis 3 of R1 R."""
    R = mat(line_orientation)
    return _joint(model, label, "in line", node1, node2, f1=vec(line_position), f2=vec(offset2),
                       R1h=R, R1r=R, rows=(0, 1))


def cylindrical_joint(model, label, node1, node2, offset1=None, orientation1=None, offset2=None,
                      orientation2=None):
    """Cylindrical joint (Haug's, MBDM's `C`, digest §1.3): the point x2 + R2 f2 on the line
    through x1 + R1 f1 along axis 3 of R1 R1h (the in-line rows) and that axis parallel to
    axis 3 of R2 R2h (the revolute hinge's orthogonality rows): 4 rows, sliding and turning
    about the common axis are free."""
    R1h, R2h = mat(orientation1), mat(orientation2)
    return _joint(model, label, "cylindrical joint", node1, node2, f1=vec(offset1), f2=vec(offset2),
                  R1h=R1h, R1r=R1h, R2r=R2h, rows=(0, 1),
                  dot_axes=((R1h[:, 2], R2h[:, 0]), (R1h[:, 2], R2h[:, 1])))


def revolute_cylindrical_joint(model, label, node1, node2, offset1=None, orientation1=None,
                               offset2=None, axis2=None):
    """Revolute-cylindrical composite joint (Haug's, MBDM's `RC`, TN eq. 20): a coupler turning
    on node 2 about `axis2` (node-2 frame) and sliding and turning along axis 3 of R1 R1h through
    x1 + R1 f1: the point x2 + R2 f2 on that line (2 rows) and `axis2` orthogonal to it (1 row)."""
    R1h = mat(orientation1)
    a2 = vec(axis2) if axis2 is not None else np.array([0.0, 0.0, 1.0])
    a2 = a2 / np.linalg.norm(a2)
    return _joint(model, label, "revolute cylindrical joint", node1, node2, f1=vec(offset1), f2=vec(offset2),
                  R1h=R1h, R1r=R1h, rows=(0, 1), dot_axes=((R1h[:, 2], a2),))


def translational_joint(model, label, node1, node2, offset1=None, orientation1=None, offset2=None,
                        orientation2=None):
    """Translational joint (Haug's, MBDM's `T`, TN eq. 21): the point x2 + R2 f2 on the line
    through x1 + R1 f1 along axis 3 of R1 R1h, and the relative rotation locked (R1 R1h
    parallel to R2 R2h, the prismatic rows): 5 rows, sliding along the axis is free."""
    R1h, R2h = mat(orientation1), mat(orientation2)
    return _joint(model, label, "translational joint", node1, node2, f1=vec(offset1), f2=vec(offset2),
                  R1h=R1h, R1r=R1h, R2r=R2h, rows=(0, 1, 3, 4, 5))


def in_plane(model, label, node1, plane_position, normal, node2, offset2=None):
    """In plane: x2 + R2 q in the plane through x1 + R1 p normal to R1 n."""
    R = frame_from_axis3(vec(normal))
    return _joint(model, label, "in plane", node1, node2, f1=vec(plane_position), f2=vec(offset2),
                       R1h=R, R1r=R, rows=(2,))


def prismatic(model, label, node1, node2, orientation1=None, orientation2=None):
    """Prismatic: relative rotation locked (R1 R1h parallel to R2 R2h)."""
    return _joint(model, label, "prismatic", node1, node2, R1r=mat(orientation1),
                       R2r=mat(orientation2), rows=(3, 4, 5))


def distance(model, label, node1, node2, length=None, offset1=None, offset2=None):
    """Distance (§9.1.3-4): ‖x2 + f2 - x1 - f1‖ = l(t); length None = initial distance."""
    if length is None:
        length = float(np.linalg.norm(model._point_of(node2, offset2) - model._point_of(node1, offset1)))
    return _joint(model, label, "distance", node1, node2, f1=vec(offset1), f2=vec(offset2),
                       distance_drive=scalar_drive(length))


def drive_hinge(model, label, node1, node2, rotation, orientation1=None, orientation2=None):
    """Drive hinge (§9.1.8): (R1 R1h)ᵀ(R2 R2h) = exp(θ(t)×)."""
    return _joint(model, label, "drive hinge", node1, node2, R1r=mat(orientation1),
                       R2r=mat(orientation2), rot_drive=vector_drive(rotation), rows=(3, 4, 5))


def drive_displacement(model, label, node1, node2, displacement, offset1=None, offset2=None):
    """Drive displacement (§9.1.9): x2 + f2 - x1 - f1 = R1 d(t)."""
    return _joint(model, label, "drive displacement", node1, node2, f1=vec(offset1), f2=vec(offset2),
                       pos_drive=vector_drive(displacement), rows=(0, 1, 2))


def drive_displacement_pin(model, label, node, displacement, offset=None, absolute_position=None):
    """Drive displacement pin (§9.1.10): x + f - X0 = d(t), absolute."""
    X0 = np.zeros(3) if absolute_position is None else vec(absolute_position)
    return _joint(model, label, "drive displacement pin", None, node, f1=X0, f2=vec(offset),
                       pos_drive=vector_drive(displacement), rows=(0, 1, 2))


def axial_rotation(model, label, node1, node2, angular_velocity, offset1=None, orientation1=None,
                   offset2=None, orientation2=None):
    """Axial rotation: revolute hinge whose relative angular velocity about axis 3 is ω(t)."""
    R1h, R2h = mat(orientation1), mat(orientation2)
    omega = VectorDrive.single([0, 0, 1], scalar_drive(angular_velocity))
    return _joint(model, label, "axial rotation", node1, node2, f1=vec(offset1), f2=vec(offset2),
                       R1h=R1h, R1r=R1h, R2r=R2h, rows=(0, 1, 2, 11), avel_drive=omega,
                       dot_axes=((R1h[:, 2], R2h[:, 0]), (R1h[:, 2], R2h[:, 1])))


def total_joint(model, label, node1, node2, offset1=None, position_orientation1=None,
                rotation_orientation1=None, offset2=None, position_orientation2=None,
                rotation_orientation2=None, position_status=("inactive",) * 3, position_drive=None,
                orientation_status=("inactive",) * 3, orientation_drive=None, type_="total joint",
                output_orientation1=None):
    """Total joint (§9.1.13): each relative position/rotation component active, inactive,
    or imposed at velocity level; imposed values from template drives in the node-1 frames."""
    rows, pos_d, vel_d, rot_d, avel_d = _total_rows(position_status, position_drive,
                                                        orientation_status, orientation_drive)
    return _joint(model, label, type_, node1, node2, f1=vec(offset1), f2=vec(offset2),
                       R1h=mat(position_orientation1), R1r=mat(rotation_orientation1),
                       R2r=mat(rotation_orientation2), rows=rows, pos_drive=pos_d,
                       vel_drive=vel_d, rot_drive=rot_d, avel_drive=avel_d,
                       output_frame=None if output_orientation1 is None else mat(output_orientation1))


def offset_displacement_joint(model, label, node1, node2, position=None):
    """Offset displacement joint (input manual, "Offset displacement joint", MBDyn's RBE2-like
    coupling): the displacement (or any structural) node 2 follows the point of node 1 at the
    constant offset o1 = R1ᵀ(X2 - x1) from their initial poses, x2 = x1 + R1 o1; X2 is
    `position` (absolute) or node 2's initial position.  Its rows are the spherical hinge's
    (§9.1.5) with f1 = o1, f2 = 0."""
    spec1 = model._node_spec(node1)
    if spec1.kind.endswith("displacement"):
        raise ValueError(f"offset displacement joint {label}: node 1 ({node1}) must be a structural node "
                         "with rotation, not a displacement node")
    X2 = model._node_spec(node2).x if position is None else vec(position)
    o1 = spec1.R.T @ (X2 - spec1.x)
    return _joint(model, label, "offset displacement joint", node1, node2, f1=o1, rows=range(3))


def total_equation(model, label, node1, node2, **kw):
    """Total equation (MBDyn's `total equation`): the constraint rows of a total joint
    (§9.1.13, same arguments as `total_joint`) whose multipliers load no node; a `total
    internal reaction` applies them elsewhere."""
    return total_joint(model, label, node1, node2, type_="total equation", **kw)


def total_internal_reaction(model, label, node1, node2, equation, offset1=None,
                            position_orientation1=None, rotation_orientation1=None,
                            offset2=None, position_orientation2=None,
                            rotation_orientation2=None, position_status=("inactive",) * 3,
                            orientation_status=("inactive",) * 3):
    """Total internal reaction (MBDyn's `total internal reaction`): the loads Bᵀλ of a total
    joint with these frames on node1 and node2, λ being the multipliers of total equation
    `equation` (in its row order; as many active components as it has rows); no rows."""
    ps = status_flags(position_status, {"inactive": "inactive", "active": "active", "position": "active"})
    os_ = status_flags(orientation_status, {"inactive": "inactive", "active": "active", "rotation": "active"})
    rows = [k for k in range(3) if ps[k] == "active"] + [3 + k for k in range(3) if os_[k] == "active"]
    return _joint(model, label, "total internal reaction", node1, node2, f1=vec(offset1),
                       f2=vec(offset2), R1h=mat(position_orientation1),
                       R1r=mat(rotation_orientation1), R2r=mat(rotation_orientation2),
                       rows=rows, equation=equation)


def total_pin_joint(model, label, node, offset=None, rotation_orientation=None,
                    absolute_position=None, absolute_position_orientation=None,
                    absolute_rotation_orientation=None, position_status=("inactive",) * 3,
                    position_drive=None, orientation_status=("inactive",) * 3,
                    orientation_drive=None, absolute_output_orientation=None):
    """Total pin joint (§9.1.14): the total joint with the ground as first node."""
    spec = model._node_spec(node)
    X0 = model._point_of(node, offset) if absolute_position is None else vec(absolute_position)
    Rr = mat(rotation_orientation)
    R0r = spec.R @ Rr if absolute_rotation_orientation is None else mat(absolute_rotation_orientation)
    rows, pos_d, vel_d, rot_d, avel_d = _total_rows(position_status, position_drive,
                                                        orientation_status, orientation_drive)
    return _joint(model, label, "total pin joint", None, node, f1=X0, f2=vec(offset),
                       R1h=mat(absolute_position_orientation), R1r=R0r, R2r=Rr, rows=rows,
                       pos_drive=pos_d, vel_drive=vel_d, rot_drive=rot_d, avel_drive=avel_d,
                       output_frame=None if absolute_output_orientation is None
                       else mat(absolute_output_orientation))


def _total_rows(position_status, position_drive, orientation_status, orientation_drive):
    ps = status_flags(position_status, POSITION_STATUS)
    os_ = status_flags(orientation_status, ROTATION_STATUS)
    rows = [k for k in range(3) if ps[k] == "active"] + [6 + k for k in range(3) if ps[k] == "velocity"]
    rows += [3 + k for k in range(3) if os_[k] == "active"]
    rows += [9 + k for k in range(3) if os_[k] == "angular velocity"]
    pd = vector_drive(position_drive)
    od = vector_drive(orientation_drive)
    vel = any(s == "velocity" for s in ps)
    avel = any(s == "angular velocity" for s in os_)
    return rows, pd, (pd if vel else None), od, (od if avel else None)


MODEL_FIELDS = {"joints": list}   # Model attributes: factory (None: None)
MODEL_METHODS = (clamp, spherical_hinge, spherical_pin, revolute_hinge, revolute_pin, cardano_hinge, in_line, in_plane, prismatic, distance, drive_hinge, drive_displacement, drive_displacement_pin, axial_rotation, total_joint, total_equation, total_internal_reaction, total_pin_joint,
                 offset_displacement_joint, cylindrical_joint, revolute_cylindrical_joint, translational_joint)


def build(model, nodes, built):
    """The joint family; it tracks the unwrapped relative rotations (private datum "r")
    only when something can read private data: `model::` functions or element drives
    (the model's namespace) or a parameter node bound to a joint."""
    if not model.joints:
        return []
    readable = getattr(model, "namespace", None) is not None or any(b.element_type == "joint" for b in model.binds)
    return [RigidJoints(model.joints, nodes, track_rotations=readable)]


# ---------------------------------------------------------------------- samples
# small random models for the generated checks (tests/test_element_checks.py): each
# sample(model, rng) fills an empty Model and returns it

def joint_sample(model, rng):
    m = model
    random_nodes(m, rng, 4)
    random_nodes(m, rng, 2, kind="static", start=5)
    R = lambda: random_rotation(rng)
    v = lambda: rng.normal(size=3)
    m.clamp(1, 5)
    m.spherical_hinge(2, 1, 2, offset1=v(), offset2=v())
    m.spherical_pin(3, 6, offset=v(), absolute_position=v())
    m.revolute_hinge(4, 2, 3, offset1=v(), orientation1=R(), offset2=v(), orientation2=R())
    m.revolute_pin(5, 4, offset=v(), orientation=R(), absolute_position=v(), absolute_orientation=R())
    m.cardano_hinge(6, 1, 3, offset1=v(), orientation1=R(), offset2=v(), orientation2=R())
    m.in_line(7, 1, v(), R(), 4, offset2=v())
    m.in_plane(8, 2, v(), v(), 4, offset2=v())
    m.prismatic(9, 3, 4, orientation1=R(), orientation2=R())
    m.distance(10, 1, 4, length=LinearDrive(2.0, 0.3), offset1=v(), offset2=v())
    m.drive_hinge(11, 2, 4, VectorDrive.single(v(), SineDrive(0.0, 2.0, 0.7, "forever", 0.1)),
                  orientation1=R(), orientation2=R())
    m.drive_displacement(12, 3, 1, VectorDrive.single(v(), LinearDrive(0.1, 0.4)), offset1=v(), offset2=v())
    m.drive_displacement_pin(13, 2, VectorDrive.constant(v()), offset=v(), absolute_position=v())
    m.axial_rotation(14, 1, 2, LinearDrive(1.0, 0.2), offset1=v(), orientation1=R(), offset2=v(), orientation2=R())
    m.total_joint(15, 3, 2, offset1=v(), position_orientation1=R(), rotation_orientation1=R(),
                  offset2=v(), rotation_orientation2=R(),
                  position_status=("active", "velocity", "inactive"),
                  position_drive=VectorDrive.single(v(), LinearDrive(0.2, 0.1)),
                  orientation_status=("active", "inactive", "angular velocity"),
                  orientation_drive=VectorDrive.single(v(), ConstDrive(0.3)))
    m.total_pin_joint(16, 4, offset=v(), rotation_orientation=R(), absolute_position=v(),
                      absolute_position_orientation=R(), absolute_rotation_orientation=R(),
                      position_status=("active", "inactive", "active"), position_drive=VectorDrive.constant(v()),
                      orientation_status=("inactive", "active", "active"),
                      orientation_drive=VectorDrive.single(v(), ConstDrive(0.2)))
    m.structural_node(7, "static displacement", position=v(), velocity=v())
    m.offset_displacement_joint(17, 3, 7, position=v())
    # Haug's joints that MBDM's files use beyond MBDyn's set
    m.cylindrical_joint(18, 1, 2, offset1=v(), orientation1=R(), offset2=v(), orientation2=R())
    m.revolute_cylindrical_joint(19, 2, 3, offset1=v(), orientation1=R(), offset2=v(), axis2=v())
    m.translational_joint(20, 3, 4, offset1=v(), orientation1=R(), offset2=v(), orientation2=R())
    return m


def joint_subset_sample(model, rng):
    """Joints that use only some row groups (the compact evaluation path)."""
    m = model
    random_nodes(m, rng, 3)
    v = lambda: rng.normal(size=3)
    m.spherical_pin(1, 1, offset=v(), absolute_position=v())
    m.spherical_hinge(2, 1, 2, offset1=v(), offset2=v())
    m.distance(3, 2, 3, offset1=v(), offset2=v())
    return m


def total_equation_sample(model, rng):
    """Total equations whose multipliers load other node pairs through total internal
    reactions (one with a velocity row in its equation), and an equation/reaction pair on the
    same nodes and frames (together a total joint)."""
    m = model
    random_nodes(m, rng, 5)
    R = lambda: random_rotation(rng)
    v = lambda: rng.normal(size=3)
    m.total_equation(1, 1, 2, offset1=v(), position_orientation1=R(), rotation_orientation1=R(),
                     offset2=v(), rotation_orientation2=R(),
                     position_status=("active", "active", "inactive"),
                     position_drive=VectorDrive.single(v(), LinearDrive(0.2, 0.1)),
                     orientation_status=("inactive", "active", "active"),
                     orientation_drive=VectorDrive.single(v(), ConstDrive(0.3)))
    m.total_internal_reaction(2, 3, 4, 1, offset1=v(), position_orientation1=R(), rotation_orientation1=R(),
                              offset2=v(), rotation_orientation2=R(),
                              position_status=("active", "inactive", "active"),
                              orientation_status=("active", "active", "inactive"))
    m.total_equation(3, 5, 3, offset1=v(), position_orientation1=R(), rotation_orientation1=R(),
                     offset2=v(), rotation_orientation2=R(),
                     position_status=("active", "velocity", "inactive"),
                     position_drive=VectorDrive.single(v(), LinearDrive(0.2, 0.1)),
                     orientation_status=("active", "inactive", "inactive"))
    m.total_internal_reaction(4, 2, 5, 3, offset1=v(), position_orientation1=R(), offset2=v(),
                              position_status=("inactive", "active", "active"),
                              orientation_status=("active", "inactive", "inactive"))
    frames = dict(offset1=v(), position_orientation1=R(), rotation_orientation1=R(), offset2=v(),
                  rotation_orientation2=R())
    m.total_equation(5, 4, 1, position_status=("active", "inactive", "active"),
                     orientation_status=("active", "active", "active"),
                     orientation_drive=VectorDrive.single(v(), ConstDrive(0.2)), **frames)
    m.total_internal_reaction(6, 4, 1, 5, position_status=("active", "inactive", "active"),
                              orientation_status=("active", "active", "active"), **frames)
    return m


SAMPLES = {"joint": [joint_sample, joint_subset_sample, total_equation_sample]}


def _read_only(a):
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class JointGroup:
    """Joints with the same rows: their instance indices, row codes (0-14), and the
    multipliers of their rows and of their loads ((ng, u), -1 where none)."""
    inst: np.ndarray
    used: np.ndarray
    mult: np.ndarray
    load_mult: np.ndarray


def stiffness_mask(used):
    """Structurally non-zero 3×3 blocks of the geometric stiffness over (x1, θ1, x2, θ2)
    for joints with the rows `used`."""
    used = set(int(r) for r in used)
    has = lambda rows: bool(used & set(rows))        # noqa: E731
    blocks = np.zeros((4, 4), bool)
    if has(range(0, 3)) or has(range(6, 9)):
        blocks[0, 1] = blocks[2, 1] = True
        blocks[1, :] = True
        blocks[3, 1] = blocks[3, 3] = True
    if has(range(3, 6)) or has(range(9, 12)):
        blocks[1, 1] = blocks[3, 1] = True
    if has((12, 13)):
        blocks[1, 1] = blocks[1, 3] = blocks[3, 1] = blocks[3, 3] = True
    if has((14,)):
        blocks[:, :] = True
    return np.kron(blocks, np.ones((3, 3), bool))


class RigidJoints(ElementFamily):
    row_names = ROW_NAME          # what each of the 15 rows constrains
    # the row layout, for the drivers (which import no element module): row groups by code
    POS, ROT, VEL, AVEL, DOT, DIST, POSITION_LEVEL = POS, ROT, VEL, AVEL, DOT, DIST, POSITION_LEVEL
    name = "joint"
    in_initial_assembly = True

    def __init__(self, specs, nodes, track_rotations=True):
        super().__init__(specs, nodes)
        S = self.specs
        ne = self.ne
        self.types = [s.type for s in S]
        self.n1 = self.node_index([s.node1 for s in S])
        self.n2 = self.node_index([s.node2 for s in S])
        if np.any(self.n2 < 0):
            raise ValueError("a joint needs a second node")
        self.ground = self.n1 < 0
        self.any_ground = bool(self.ground.any())
        self.ground_idx = np.flatnonzero(self.ground)
        self._node1_output = np.array([t in NODE1_OUTPUT for t in self.types], bool)
        self._distance_output = np.array([t == "distance" for t in self.types], bool)
        self._node2_frame_output = np.array([t in ("revolute hinge", "revolute pin", "axial rotation")
                                             for t in self.types], bool)
        self._offset_disp = np.array([t == "offset displacement joint" for t in self.types], bool)
        self.f1 = np.array([s.f1 for s in S], float).reshape(ne, 3)
        self.f2 = np.array([s.f2 for s in S], float).reshape(ne, 3)
        self.R1h = np.array([s.R1h for s in S], float).reshape(ne, 3, 3)
        self.R1r = np.array([s.R1r for s in S], float).reshape(ne, 3, 3)
        self.R2r = np.array([s.R2r for s in S], float).reshape(ne, 3, 3)
        self.Rout = np.array([s.R1h if s.output_frame is None else s.output_frame for s in S],
                             float).reshape(ne, 3, 3)
        self.active = np.array([s.active for s in S], bool).reshape(ne, NROWS)
        self.a1 = np.zeros((ne, 2, 3))
        self.a2 = np.zeros((ne, 2, 3))
        for i, s in enumerate(S):
            if len(s.dot_axes) > 2:
                raise ValueError(f"joint {s.label}: at most two orthogonality rows")
            for j, (u1, u2) in enumerate(s.dot_axes):
                self.a1[i, j] = u1
                self.a2[i, j] = u2
                self.active[i, 12 + j] = True
            if s.distance_drive is not None:
                self.active[i, DIST] = True
        self.pos_drive = VectorDriveArray([s.pos_drive for s in S])
        self.rot_drive = VectorDriveArray([s.rot_drive for s in S])
        self.vel_drive = VectorDriveArray([s.vel_drive for s in S])
        self.avel_drive = VectorDriveArray([s.avel_drive for s in S])
        self.dist_drive = DriveArray([s.distance_drive if s.distance_drive is not None else NullDrive()
                                      for s in S])
        # total equation: its rows without loads; total internal reaction: the loads Bᵀλ of a
        # total equation's multipliers on its own geometry, without rows (MBDyn's TotalEquation
        # and TotalReaction).  `loaded` marks the rows whose reaction map carries loads.
        self.equation_only = np.array([t == "total equation" for t in self.types], bool)
        self.reaction_only = np.array([t == "total internal reaction" for t in self.types], bool)
        self.loaded = self.active & ~self.equation_only[:, None]
        self.active[self.reaction_only] = False
        self.n_internal = int(self.active.sum())
        # State: the unwrapped relative rotations of the last converged step (private data "r")
        self.has_state = track_rotations and any(t in UNWRAPPED_ROTATION for t in self.types)

    def initial_state(self):
        """{"theta": relative rotation vectors at the initial configuration} when the family
        tracks them; {} otherwise."""
        return {"theta": self._initial_rotations()} if self.has_state else {}

    def _initial_rotations(self):
        R1 = np.where(self.ground[:, None, None], I3, self.nodes.R0[np.maximum(self.n1, 0)])
        R2 = self.nodes.R0[self.n2]
        return rot.log_rotvec(np.swapaxes(R1 @ self.R1r, -1, -2) @ R2 @ self.R2r)

    def commit(self, ctx, arrays):
        """After a converged step: the unwrapped relative rotations become the reference of
        the next step (MBDyn's Unwrap keeps counting turns)."""
        if not self.has_state:
            return arrays
        G = self._geometry(ctx)
        return {"theta": self._relative_rotation(G, arrays)}

    # ------------------------------------------------------------------ layout
    def set_offset(self, start):
        self.offset = start
        self.mult = np.full((self.ne, NROWS), -1, np.int64)
        self.mult[self.active] = start + np.arange(self.n_internal)
        self.load_mult = np.where(self.loaded, self.mult, -1)
        self._link_reactions()
        self._group_instances()

    def _group_instances(self):
        """Instances with the same rows (active or carrying loads) form a group, computed by
        one kernel call with blocks of exactly their size (no padding rows)."""
        rows_or_loads = self.active | self.loaded
        signatures = {}
        for i in range(self.ne):
            key = tuple(np.flatnonzero(rows_or_loads[i]).tolist())
            if key:
                signatures.setdefault(key, []).append(i)
        self.groups = []
        for key, members in signatures.items():
            inst = np.array(members, np.int64)
            used = np.array(key, np.int64)
            mult = self.mult[inst][:, used]
            load_mult = self.load_mult[inst][:, used]
            self.groups.append(JointGroup(inst, used, mult, load_mult))
        used_rows = rows_or_loads.any(axis=0)
        self._uses = {name: bool(used_rows[sl].any()) for name, sl in
                      (("pos", POS), ("rot", ROT), ("vel", VEL), ("avel", AVEL), ("dist", slice(DIST, DIST + 1)))}

    def _link_reactions(self):
        """Multipliers of each total internal reaction: those of its total equation, taken in
        MBDyn's order (per component position or velocity, then rotation or angular velocity)
        for the reaction's active position components, then its rotation components."""
        for i in np.flatnonzero(self.reaction_only):
            s = self.specs[i]
            found = np.flatnonzero((self.labels == s.equation) & self.equation_only)
            if len(found) != 1:
                raise ValueError(f"total internal reaction {s.label}: total equation joint "
                                 f"{s.equation} is not defined")
            j = found[0]
            order = [r for k in range(3) for r in (k, 6 + k)] + [r for k in range(3) for r in (3 + k, 9 + k)]
            eq_mult = [self.mult[j, r] for r in order if self.active[j, r]]
            rows = np.flatnonzero(self.loaded[i])
            if len(rows) != len(eq_mult):
                raise ValueError(f"total internal reaction {s.label} has {len(rows)} reactions, while "
                                 f"total equation {s.equation} defines {len(eq_mult)} constraints")
            self.load_mult[i, rows] = eq_mult

    def dof_info(self):
        inst, row = np.nonzero(self.active)
        kind = np.full(self.n_internal, ALGEBRAIC)
        dim = np.array(ROW_DIM, np.int64)[row]
        labels = self.labels[inst]
        what = [f"{self.types[i]} {ROW_NAME[r]}" for i, r in zip(inst, row)]
        return kind, dim, labels, what

    def build_pattern(self):
        """Per group: node loads and rows (residual); Bᵀ on the load multipliers, the rows'
        Jacobian, the geometric stiffness and the multipliers' diagonal of the assembly."""
        p = self.pattern = Pattern()
        self.node_rows, _ = two_node_columns(self.nodes, self.n1, self.n2)      # (ne, 12)
        for g in self.groups:
            node_rows = self.node_rows[g.inst]
            act, lact = g.mult >= 0, g.load_mult >= 0
            p.add_res(node_rows)
            p.add_res(g.mult, act)
            p.add_jac(node_rows, g.load_mult, lact[:, None, :])
            p.add_jac(g.mult, node_rows, act[:, :, None])
            p.add_jac(node_rows, node_rows, stiffness_mask(g.used))
            p.add_jac(g.mult[..., None], g.mult[..., None], act[..., None, None])
        return p

    # ------------------------------------------------------------------ geometry
    def hinted(self, ctx):
        """{f1, f2, pos_drive, rot_drive, dist_drive}: the offsets and drives of the model,
        or as the activation hints of driven joints have set them (elements/driven.py), kept
        in the State under `hint_key`."""
        hinted = ctx.families.get(self.hint_key)
        return self.model_values if hinted is None else hinted

    @cached_property
    def model_values(self):
        """The offsets and drives as the Model gives them (what hints start from; built once)."""
        return {"f1": self.f1, "f2": self.f2, "pos_drive": self.pos_drive, "rot_drive": self.rot_drive,
                "dist_drive": self.dist_drive}

    @property
    def hint_key(self):
        return f"{getattr(self, 'state_key', self.name)} hints"

    def _geometry(self, ctx):
        """Node poses and the joint frames of all instances (output, private data and the
        commit of the unwrapped rotations; the evaluation itself is the compiled kernel)."""
        H = self.hinted(ctx)                # offsets and drives (activation hints: State)
        kin = ctx.kin
        x1, R1, v1, w1 = kin.x[self.n1], kin.R[self.n1], kin.v[self.n1], kin.w[self.n1]
        if self.any_ground:          # the ground: at rest at the origin, identity frame
            g = self.ground_idx
            x1[g] = 0.0
            R1[g] = I3
            v1[g] = 0.0
            w1[g] = 0.0
        x2, R2, v2, w2 = kin.x[self.n2], kin.R[self.n2], kin.v[self.n2], kin.w[self.n2]
        G = dict(x1=x1, R1=R1, v1=v1, w1=w1, x2=x2, R2=R2, v2=v2, w2=w2)
        G["f1"] = f1 = rot.matvec(R1, H["f1"])
        G["f2"] = f2 = rot.matvec(R2, H["f2"])
        G["E"] = R1 @ self.R1h                      # position frame, columns e_k
        self._rotation_frames(G)
        G["b1"] = x2 + f2 - x1
        G["d"] = G["b1"] - f1
        G["theta0"] = H["rot_drive"].values(ctx.t_constraint)
        G["th"] = rot.log_rotvec(np.swapaxes(G["Er"], -1, -2) @ G["E2r"]
                                 @ np.swapaxes(rot.exp_rotvec(G["theta0"]), -1, -2))
        dist = np.linalg.norm(G["d"], axis=-1)
        G["dist"] = np.where(dist > 0, dist, 1.0)
        G["u"] = G["d"] / G["dist"][:, None]
        return G

    def _rotation_frames(self, G):
        G["Er"] = G["R1"] @ self.R1r                # rotation frame of node 1
        G["E2r"] = G["R2"] @ self.R2r

    # ------------------------------------------------------------------ evaluation
    def _drive_values(self, ctx, rates):
        """Imposed values (and, if `rates`, their time derivatives) of the drives of the rows
        some instance has: one vectorized call per drive array."""
        H = self.hinted(ctx)
        t = ctx.t_constraint
        uses, zero3, zero = self._uses, self._zeros3, self._zeros
        pos = H["pos_drive"].values(t) if uses["pos"] else zero3
        rot_ = H["rot_drive"].values(t) if uses["rot"] else zero3
        vel = self.vel_drive.values(t) if uses["vel"] else zero3
        avel = self.avel_drive.values(t) if uses["avel"] else zero3
        dist = H["dist_drive"].values(t) if uses["dist"] else zero
        pos_d = H["pos_drive"].derivatives(t) if rates and uses["pos"] else zero3
        rot_d = H["rot_drive"].derivatives(t) if rates and uses["rot"] else zero3
        dist_d = H["dist_drive"].derivatives(t) if rates and uses["dist"] else zero
        return (np.asarray(H["f1"], float), np.asarray(H["f2"], float), pos, rot_, vel, avel,
                np.asarray(dist, float), pos_d, rot_d, np.asarray(dist_d, float))

    @cached_property
    def _zeros3(self):
        """Values of the drives a family does not use: read-only, as drive values are, so
        the kernels see one array type whichever rows a model has (one compilation)."""
        return _read_only(np.zeros((self.ne, 3)))

    @cached_property
    def _zeros(self):
        return _read_only(np.zeros(self.ne))

    def evaluate(self, ctx, res_views, jac_views):
        """One compiled call per group of joints with the same rows (elements/joint_kernel.py)."""
        jac, want_jac = kernel_jacobian_views(self, jac_views)
        kin = ctx.kin
        velocity_form = ctx.mode in ("ia_velocity", "derivatives")      # the rows need φ_t
        f1, f2, pos, rot_, vel, avel, dist, pos_d, rot_d, dist_d = self._drive_values(ctx, velocity_form)
        mode, dcoef = ctx.mode_code, float(kin.dcoef)
        for k, g in enumerate(self.groups):
            joint_group(mode, dcoef, g.used, g.inst, self.n1, self.n2, g.mult, g.load_mult, f1, f2,
                        self.R1h, self.R1r, self.R2r, self.a1, self.a2, pos, rot_, vel, avel, dist,
                        pos_d, rot_d, dist_d, ctx.y, kin.x, kin.v, kin.R, kin.w, kin.G, kin.Tw,
                        want_jac, res_views[2 * k], res_views[2 * k + 1], jac[4 * k], jac[4 * k + 1],
                        jac[4 * k + 2], jac[4 * k + 3])

    def row_terms(self, ctx, lam=None):
        """The raw terms of every joint's rows at ctx in the full 15-row layout (zero on the
        rows a joint does not compute), from the kernel's own per-instance functions (one
        compiled call per group, as evaluate): values c (ne, 15), reaction map B (ne, 15, 12),
        position gradient C (ne, 15, 12) on (x1, θ1, x2, θ2), velocity gradient Cv
        (ne, 15, 12) on (v1, ω1, v2, ω2), φ_t (ne, 15) the explicit time derivative of the
        position-level rows; the geometry Ad = (R1 R1r)ᵀ R2 R2r R0ᵀ (ne, 3, 3) and
        θ = exp⁻¹(Ad) (ne, 3) of the joints with rotation rows, the orthogonality axes
        e1 = R1 a1, e2 = R2 a2 (ne, 2, 3); with multipliers lam (ne, 15), the geometric
        stiffness K = Σ_r λ_r ∂B_r/∂(x1, θ1, x2, θ2) (ne, 12, 12), else K is None."""
        kin = ctx.kin
        f1, f2, pos, rot_, vel, avel, dist, pos_d, rot_d, dist_d = self._drive_values(ctx, True)
        ne = self.ne
        want_K = lam is not None
        L = np.ascontiguousarray(lam, float) if want_K else np.zeros((ne, NROWS))
        T = dict(c=np.zeros((ne, NROWS)), B=np.zeros((ne, NROWS, 12)), C=np.zeros((ne, NROWS, 12)),
                 Cv=np.zeros((ne, NROWS, 12)), phi_t=np.zeros((ne, NROWS)),
                 K=np.zeros((ne if want_K else 0, 12, 12)), Ad=np.tile(I3, (ne, 1, 1)),
                 th=np.zeros((ne, 3)), e1=np.zeros((ne, 2, 3)), e2=np.zeros((ne, 2, 3)))
        for g in self.groups:
            joint_group_terms(g.used, g.inst, self.n1, self.n2, f1, f2, self.R1h, self.R1r, self.R2r,
                              self.a1, self.a2, pos, rot_, vel, avel, dist, pos_d, rot_d, dist_d, L,
                              want_K, kin.x, kin.v, kin.R, kin.w, T["c"], T["B"], T["C"], T["Cv"],
                              T["phi_t"], T["K"], T["Ad"], T["th"], T["e1"], T["e2"])
        if not want_K:
            T["K"] = None
        return T

    def block_instances(self):
        res = [g.inst for g in self.groups for _ in range(2)]
        return res, [g.inst for g in self.groups for _ in range(4)]

    def node_loads(self, ctx):
        """Σ_r B_r λ_r, the loads of every joint's equations on (x1, θ1, x2, θ2), (ne, 12):
        the residual's node blocks, from the same kernel."""
        res = self.residual_blocks(ctx)
        out = np.zeros((self.ne, 12))
        for k, g in enumerate(self.groups):
            out[g.inst] = res[2 * k]
        return out

    # ------------------------------------------------------------------ private data
    def private_data_names(self, i):
        """MBDyn's private data of joint i's type (input manual §8.12, "Private Data" of each
        joint); types without any (spherical hinge, in line, ...) give ()."""
        xyz = lambda letters: tuple(c + a for c in letters for a in "xyz")   # noqa: E731
        t = self.types[i]
        if t in ("total joint", "total pin joint"):
            return xyz("prFMdtvw")
        if t in ("revolute hinge", "revolute pin", "axial rotation"):
            return ("rz", "wz") + xyz("FM")
        if t == "clamp":
            return xyz("FM")
        if t == "drive hinge":
            return xyz("rM")
        if t in ("drive displacement", "drive displacement pin"):
            return xyz("df")
        if t == "distance":
            return ("d",)
        if t == "offset displacement joint":
            return xyz("FMfm")
        return ()

    def private_data(self, ctx, name):
        """One private datum over all joints (meaningful for the types that define it):
        p = (R1 R1h)ᵀ d (relative position), r = the rotation vector of (R1 R1r)ᵀ(R2 R2r)
        unwrapped against its value at the last converged step as MBDyn does (its Unwrap, so a
        hinge angle keeps counting turns), F, M = the reaction in the joint's .jnt local columns
        (for total joints these are MBDyn's own F, M, which its output writes), d, t = imposed
        position and rotation (0 on inactive components), v = relative velocity in R1 R1h (the
        rotation frame for the pin), w = (R1 R1r)ᵀ(ω2 - ω1).  Drive hinge r and drive
        displacement d are the imposed values, f the force; distance d the imposed length."""
        H = self.hinted(ctx)                # offsets and drives (activation hints: State)
        quantity, axis = name[:-1], "xyz".find(name[-1:])
        if name != "d" and (len(name) != 2 or axis < 0):
            raise ValueError(f'joint private datum "{name}" does not exist')
        G = self._geometry(ctx)
        drive_type = np.array([t in ("drive hinge", "drive displacement", "drive displacement pin")
                               for t in self.types])
        if name == "d":
            return H["dist_drive"].values(ctx.t).copy()
        if quantity == "p":
            values = rot.mattvec(G["E"], G["d"])
        elif quantity == "r":
            imposed = np.where(self.active[:, ROT], H["rot_drive"].values(ctx.t), 0.0)
            values = np.where(drive_type[:, None], imposed, self._relative_rotation(G, self.state_arrays(ctx)))
        elif quantity in ("F", "M", "f", "m"):
            load2 = -self.node_loads(ctx)[:, 6:12]
            Floc, Mloc, Fglob, Mglob = self._jnt_loads(G, load2[:, 0:3], load2[:, 3:6])
            if quantity in ("f", "m"):       # global components (offset displacement joint)
                local = Mloc if quantity == "m" else Floc
                glob = Mglob if quantity == "m" else Fglob
                values = np.where(self._offset_disp[:, None], glob, local)
            else:
                values = Mloc if quantity == "M" else Floc
        elif quantity == "d":
            values = np.where(self.active[:, POS], H["pos_drive"].values(ctx.t), 0.0)
        elif quantity == "t":
            values = np.where(self.active[:, ROT], H["rot_drive"].values(ctx.t), 0.0)
        elif quantity == "v":
            vrel = G["v2"] + rot.cross(G["w2"], G["f2"]) - G["v1"] - rot.cross(G["w1"], G["b1"])
            frame = np.where(self.ground[:, None, None], G["Er"], G["E"])
            values = rot.mattvec(frame, vrel)
        elif quantity == "w":
            values = rot.mattvec(G["Er"], G["w2"] - G["w1"])
        else:
            raise ValueError(f'joint private datum "{name}" does not exist')
        return values[:, axis]

    def _relative_rotation(self, G, arrays):
        """Unwrapped rotation vector of (R1 R1r)ᵀ(R2 R2r); the reference is the value at the
        last converged step (State arrays, `commit`), first the initial configuration (also
        when the family does not track it)."""
        theta = rot.log_rotvec(np.swapaxes(G["Er"], -1, -2) @ G["E2r"])
        reference = arrays["theta"] if "theta" in arrays else self._initial_rotations()
        return unwrap_rotation_vector(reference, theta)

    def _jnt_loads(self, G, F2, M2):
        """The force and couple of the .jnt rows, local then global (see output_groups), from
        the load the joint applies to node 2.  The distance joint's local force is its
        magnitude along the distance direction, (u·F, 0, 0), as MBDyn writes it."""
        node1_convention = self._node1_output | self.ground
        sign = np.where(node1_convention, -1.0, 1.0)[:, None]
        F = sign * F2
        M = sign * (M2 - rot.cross(G["f2"], F2))
        if self._offset_disp.any():
            # MBDyn's offset displacement joint writes minus the load on node 1: the force on
            # node 2 and its moment about node 1, (R1 o1) × F2
            M = np.where(self._offset_disp[:, None], rot.cross(G["f1"], F2), M)
        Ef, Em = self._local_frames(G)
        Floc, Mloc = rot.mattvec(Ef, F), rot.mattvec(Em, M)
        if self._distance_output.any():
            along = np.zeros_like(F)
            along[:, 0] = np.einsum('ni,ni->n', G["u"], F)
            Floc = np.where(self._distance_output[:, None], along, Floc)
        return Floc, Mloc, F, M

    def _local_frames(self, G):
        """Frames of the local force and couple columns of the .jnt rows: the joint's output
        frame on node 1 and node 1's rotation frame, except for the revolute hinge and pin and
        the axial rotation, whose columns MBDyn writes in node 2's hinge frame (checked on
        joints/plane/output, joints/rod/rodwithoffset2 and beam/r)."""
        Ef, Em = G["R1"] @ self.Rout, G["Er"]
        node2 = self._node2_frame_output
        if node2.any():
            Ef = np.where(node2[:, None, None], G["E2r"], Ef)
            Em = np.where(node2[:, None, None], G["E2r"], Em)
        return Ef, Em

    # ------------------------------------------------------------------ output
    def reactions(self, ctx):
        """Force and couple applied by each joint to its node 2, global frame."""
        G = self._geometry(ctx)
        load2 = -self.node_loads(ctx)[:, 6:12]          # applied = -(equation term)
        return G, load2[:, 0:3], load2[:, 3:6]

    def output_groups(self, ctx):
        """.jnt rows grouped by joint type: list of (labels, values (n, ncols)).
        Columns as MBDyn writes them, checked against MBDyn 1.7.3's output of its test decks
        (chain15, spherical, plane/output, impdisp/imp, flywheel_drive, total/totalpin): the
        force and couple the joint applies to its second node for the spherical and revolute
        hinges; the opposite (what it applies to node 1) for the total joint and the drive
        hinge, the in line and the distance joint (local force (u·F, 0, 0) along the distance
        direction; checked on invdyn/eqreac/twomasses); for the pin variants and the clamp,
        whose only node is MBDyn's first node,
        what the joint applies to the ground.  The couple excludes the moment of the force
        about the node.  Joint frame, then global; then the type's own columns
        (spec/mbdyn-input-language.md §8.6).  The offset displacement joint writes, as MBDyn's,
        the force on node 2 and its moment about node 1 ((R1 o1) × F2, in node 1's frame
        then global), no further columns.  Types not covered by those decks follow the
        hinge convention."""
        H = self.hinted(ctx)                # offsets and drives (activation hints: State)
        G, F2, M2 = self.reactions(ctx)
        Floc, Mloc, F, M = self._jnt_loads(G, F2, M2)
        E, Er = G["E"], G["Er"]
        base = np.concatenate([Floc, Mloc, F, M], axis=1)
        rel = np.swapaxes(Er, -1, -2) @ G["E2r"]
        euler = np.degrees(rot.R_to_euler123(rel))
        dw = G["w2"] - G["w1"]
        wrel1 = rot.mattvec(Er, dw)
        wrel2 = rot.mattvec(G["E2r"], dw)
        f1, f2, b1 = G["f1"], G["f2"], G["b1"]
        vrel = G["v2"] + rot.cross(G["w2"], f2) - G["v1"] - rot.cross(G["w1"], b1)
        extra = {
            "total joint": lambda: np.concatenate([rot.mattvec(E, G["d"]), G["th"], rot.mattvec(E, vrel),
                                                   wrel1], axis=1),
            "spherical hinge": lambda: euler,
            "spherical pin": lambda: euler,
            "revolute hinge": lambda: np.concatenate([euler, wrel2], axis=1),
            "revolute pin": lambda: np.concatenate([euler, wrel2], axis=1),
            "axial rotation": lambda: np.concatenate([euler, self.avel_drive.values(ctx.t)[:, 2:3], wrel2],
                                                     axis=1),
            "cardano hinge": lambda: euler,
            "distance": lambda: np.concatenate([G["u"], H["dist_drive"].values(ctx.t)[:, None]], axis=1),
            "drive hinge": lambda: np.concatenate([euler, G["theta0"]], axis=1),
            "drive displacement": lambda: G["d"],
            "drive displacement pin": lambda: G["d"],
        }
        extra["total pin joint"] = extra["total joint"]
        # MBDyn 1.7.3 writes the total joint's columns for these too (checked on invdyn/eqreac)
        extra["total equation"] = extra["total internal reaction"] = extra["total joint"]
        groups = []
        outmask = np.array([s.output for s in self.specs], bool)
        for t in dict.fromkeys(self.types):
            sel = np.array([ty == t for ty in self.types]) & outmask
            if not sel.any():
                continue
            vals = base[sel]
            if t in extra:
                vals = np.concatenate([vals, extra[t]()[sel]], axis=1)
            groups.append((self.labels[sel], vals))
        return groups


# ---------------------------------------------------------------- MBDyn deck cards
# Readers of this family's deck cards, called by engine/io/mbdyn/elements_block.py as
# read(reader, model, args, label, word) once the card's head is read (`<card>: <label>` or
# `joint: <label>, <joint type>`): `reader` is the deck reader, `args` the cursor over the
# card's remaining arguments, `word` the word errors about the whole element point at.
# The reader and the Model are used duck-typed (no engine.io import here).

def read_clamp(reader, model, args, label, word):
    n, site = reader.node_site(args)
    args.is_keyword("position")
    X = None if args.is_keyword("node") else reader.read_vec3(args, "abs position", site)
    args.is_keyword("orientation")
    R = None if args.is_keyword("node") else reader.read_orientation(args, "abs", site)
    model.clamp(label, n.label, X, R)


def read_spherical_hinge(reader, model, args, label, word):
    n1, f1, R1h, n2, f2, R2h = reader.two_node_hinge_sites(args)
    model.spherical_hinge(label, n1.label, n2.label, f1, f2, R1h, R2h)


def read_spherical_pin(reader, model, args, label, word):
    n, site = reader.node_site(args)
    f = reader.offset(args, site)
    reader.hinge(args, site)
    args.is_keyword("position")
    X0 = reader.read_vec3(args, "abs position", site)
    if args.is_keyword("orientation", "hinge"):
        reader.read_orientation(args, "abs", site)
    model.spherical_pin(label, n.label, f, X0)


def read_revolute_hinge(reader, model, args, label, word, cardano=False):
    n1, f1, R1h, n2, f2, R2h = reader.two_node_hinge_sites(args)
    make = model.cardano_hinge if cardano else model.revolute_hinge
    make(label, n1.label, n2.label, f1, R1h, f2, R2h)


def read_cardano_hinge(reader, model, args, label, word):
    read_revolute_hinge(reader, model, args, label, word, cardano=True)


def read_revolute_pin(reader, model, args, label, word):
    n, site = reader.node_site(args)
    f = reader.offset(args, site)
    Rh = reader.hinge(args, site)
    args.is_keyword("position")
    X0 = reader.read_vec3(args, "abs position", site)
    R0 = None
    if args.is_keyword("orientation", "hinge"):
        R0 = reader.read_orientation(args, "abs", site)
    model.revolute_pin(label, n.label, f, Rh, X0, R0)


def read_in_line(reader, model, args, label, word):
    n1, s1 = reader.node_site(args)
    p = reader.offset(args, s1)
    args.is_keyword("orientation")
    R = reader.read_orientation(args, "rel", s1)
    n2, s2 = reader.second_site(args, n1, p, R)
    q = reader.offset(args, s2, "offset", required=False)
    model.in_line(label, n1.label, p, R, n2.label, q)


def read_in_plane(reader, model, args, label, word):
    n1, s1 = reader.node_site(args)
    p = reader.offset(args, s1)
    nw = args.peek()
    normal = reader.read_vec3(args, "rel direction", s1)
    if np.linalg.norm(normal) == 0:
        raise nw.error("in plane: the plane normal is null")
    n2, s2 = reader.second_site(args, n1, p)
    q = reader.offset(args, s2, "offset", required=False)
    model.in_plane(label, n1.label, p, normal, n2.label, q)


def read_prismatic(reader, model, args, label, word):
    n1, s1 = reader.node_site(args)
    R1h = reader.hinge(args, s1)
    n2, s2 = reader.second_site(args, n1, np.zeros(3), R1h)
    R2h = reader.hinge(args, s2)
    model.prismatic(label, n1.label, n2.label, R1h, R2h)


def read_distance(reader, model, args, label, word, with_offset=False):
    n1, s1 = reader.node_site(args)
    f1 = reader.offset(args, s1, required=with_offset)
    n2, s2 = reader.second_site(args, n1, f1)
    f2 = reader.offset(args, s2, required=with_offset)
    x1 = n1.frame.x + n1.frame.R @ f1
    x2 = n2.frame.x + n2.frame.R @ f2
    length0 = float(np.linalg.norm(x2 - x1))
    if length0 == 0:
        raise word.error("distance joint: the two points coincide (zero distance is not allowed)")
    reader.current = {"L": length0}
    try:
        length = None if args.is_keyword("from nodes") else reader.read_drive(args)
    finally:
        reader.current = {}
    model.distance(label, n1.label, n2.label, length, f1, f2)


def read_distance_with_offset(reader, model, args, label, word):
    read_distance(reader, model, args, label, word, with_offset=True)


def read_drive_hinge(reader, model, args, label, word):
    n1, s1 = reader.node_site(args)
    R1h = reader.hinge(args, s1)
    n2, s2 = reader.second_site(args, n1, np.zeros(3), R1h)
    R2h = reader.hinge(args, s2)
    hinge_site = reader.hinge_site(n1, R1h)
    theta = reader.read_tpl_vec3(args, "rel direction", hinge_site)
    model.drive_hinge(label, n1.label, n2.label, theta, R1h, R2h)


def read_drive_displacement(reader, model, args, label, word):
    n1, s1 = reader.node_site(args)
    f1 = reader.offset(args, s1)
    n2, s2 = reader.second_site(args, n1, f1)
    f2 = reader.offset(args, s2)
    d = reader.read_tpl_vec3(args, "rel direction", s1)
    model.drive_displacement(label, n1.label, n2.label, d, f1, f2)


def read_drive_displacement_pin(reader, model, args, label, word):
    n, site = reader.node_site(args)
    f = reader.offset(args, site)
    args.is_keyword("position")
    X0 = reader.read_vec3(args, "abs position", site)
    d = reader.read_tpl_vec3(args, "abs direction", site)
    model.drive_displacement_pin(label, n.label, d, f, X0)


def read_imposed_displacement(reader, model, args, label, word):
    """One constraint row (spec §7.5.15, manual §9.1.11): the relative displacement along
    the direction e (in node 1's frame) equals s(t); built as a total joint whose
    position frame has e as axis 3, with only that component active."""
    n1, s1 = reader.node_site(args)
    f1 = reader.read_vec3(args, "rel position", s1)
    n2, s2 = reader.second_site(args, n1, f1)
    f2 = reader.read_vec3(args, "rel position", s2)
    direction, drive = read_imposed_direction_drive(reader, args, "rel direction", s1)
    model.total_joint(label, n1.label, n2.label, offset1=f1, offset2=f2,
                      position_orientation1=rot.frame_from_axis3(direction),
                      output_orientation1=np.eye(3),
                      position_status=("inactive", "inactive", "active"), position_drive=drive)


def read_imposed_displacement_pin(reader, model, args, label, word):
    """One constraint row (manual §9.1.12): eᵀ(x + f - X0) = s(t), e absolute."""
    n, site = reader.node_site(args)
    f = reader.read_vec3(args, "rel position", site)
    X0 = reader.read_vec3(args, "abs position", site)
    direction, drive = read_imposed_direction_drive(reader, args, "abs direction", site)
    model.total_pin_joint(label, n.label, offset=f, absolute_position=X0,
                          absolute_position_orientation=rot.frame_from_axis3(direction),
                          absolute_output_orientation=np.eye(3),
                          absolute_rotation_orientation=n.frame.R,
                          position_status=("inactive", "inactive", "active"), position_drive=drive)


def read_imposed_direction_drive(reader, args, kind, site):
    """`[single,] <direction>, <DriveCaller>`: the unit direction and the template drive
    s(t) · |direction| along axis 3 of the frame built on it."""
    args.is_keyword("single")
    w = args.peek()
    direction = reader.read_vec3(args, kind, site)
    norm = np.linalg.norm(direction)
    if norm == 0:
        raise w.error("imposed displacement: the direction is null")
    # the imposed displacement is s(t) times the given (not normalized) vector
    return direction / norm, reader.read_single_tpl(args, [0.0, 0.0, norm])


def read_axial_rotation(reader, model, args, label, word):
    n1, f1, R1h, n2, f2, R2h = reader.two_node_hinge_sites(args)
    omega = reader.read_drive(args)
    model.axial_rotation(label, n1.label, n2.label, omega, f1, R1h, f2, R2h)


def read_total_frames(reader, args, site, absolute=False):
    """Optional `position, v`, `position orientation, R`, `rotation orientation, R` in order."""
    kind_v, kind_R = ("abs position", "abs") if absolute else ("rel position", "rel")
    f = reader.read_vec3(args, kind_v, site) if args.is_keyword("position") else None
    Rp = reader.read_orientation(args, kind_R, site) if args.is_keyword("position orientation") else None
    Rr = reader.read_orientation(args, kind_R, site) if args.is_keyword("rotation orientation") else None
    return f, Rp, Rr


def read_total_constraints(reader, args, pos_site, rot_site, pin=False):
    """`[position constraint, s1, s2, s3, <tpl>] [orientation constraint, s1, s2, s3, <tpl>]`."""
    out = dict(position_status=("inactive",) * 3, position_drive=None,
               orientation_status=("inactive",) * 3, orientation_drive=None)
    if args.is_keyword("position constraint"):
        out["position_status"] = read_statuses(reader, args, ("inactive", "active", "position", "velocity"), pin)
        out["position_drive"] = reader.read_tpl_vec3(args, "rel direction", pos_site)
        if reader.problem_name == "inversedynamics":
            out["position_drive"] = reader.read_inverse_derivatives(args, out["position_drive"], pos_site)
    if args.is_keyword("orientation constraint"):
        out["orientation_status"] = read_statuses(reader, args, ("inactive", "active", "rotation",
                                                                 "angular velocity"), pin)
        out["orientation_drive"] = reader.read_tpl_vec3(args, "rel direction", rot_site)
        if reader.problem_name == "inversedynamics":
            out["orientation_drive"] = reader.read_inverse_derivatives(args, out["orientation_drive"], rot_site)
    return out


def read_statuses(reader, args, words, pin):
    statuses = []
    for _ in range(3):
        w = args.peek()
        kw = args.is_keyword(*words)
        if kw is None:
            kw = "active" if args.integer("a constraint status") else "inactive"
        name = next(x for x in words if reader.normalize(x) == kw)
        if pin and name in ("velocity", "angular velocity"):
            raise w.error(reader.not_supported(f"'{name}' constraints in total pin joints"))
        statuses.append(name)
    return tuple(statuses)


def read_total_equation(reader, model, args, label, word):
    """`total equation` (manual §8.12.47, undocumented): a total joint's card; its rows
    load no node (their multipliers act through a `total internal reaction`)."""
    read_total_joint(reader, model, args, label, word, type_="total equation")


def read_total_internal_reaction(reader, model, args, label, word):
    """`total internal reaction` (manual §8.12.50, undocumented): a total joint's frames,
    `position constraint` / `orientation constraint` statuses (active or inactive, no
    drives), then `total equation, <label>` of a total equation defined before."""
    n1, s1 = reader.node_site(args)
    f1, R1p, R1r = read_total_frames(reader, args, s1)
    f1 = np.zeros(3) if f1 is None else f1
    R1p = np.eye(3) if R1p is None else R1p
    n2, s2 = reader.second_site(args, n1, f1, R1p)
    f2, R2p, R2r = read_total_frames(reader, args, s2)
    status = {}
    for group in ("position constraint", "orientation constraint"):
        if args.is_keyword(group):
            status[group] = read_statuses(reader, args, ("inactive", "active"), False)
    w = args.peek()
    args.expect_keyword("total equation")
    equation = args.label("a total equation label")
    if not any(s.label == equation and s.type == "total equation" for s in model.joints):
        raise w.error(f"TotalEquation({equation}) needed by TotalReaction({label}) is not defined")
    model.total_internal_reaction(
        label, n1.label, n2.label, equation, offset1=f1, position_orientation1=R1p,
        rotation_orientation1=R1r, offset2=f2, position_orientation2=R2p, rotation_orientation2=R2r,
        position_status=status.get("position constraint", ("inactive",) * 3),
        orientation_status=status.get("orientation constraint", ("inactive",) * 3))


def read_total_joint(reader, model, args, label, word, type_="total joint"):
    """`total joint` (manual §8.12.48): frames of both nodes, then constraint groups whose
    imposed values are expressed in node 1's position / rotation frames."""
    n1, s1 = reader.node_site(args)
    f1, R1p, R1r = read_total_frames(reader, args, s1)
    f1 = np.zeros(3) if f1 is None else f1
    R1p = np.eye(3) if R1p is None else R1p
    R1r = np.eye(3) if R1r is None else R1r
    n2, s2 = reader.second_site(args, n1, f1, R1p)
    f2, R2p, R2r = read_total_frames(reader, args, s2)
    pos_site = reader.hinge_site(n1, R1p)
    rot_site = reader.hinge_site(n1, R1r)
    constraints = read_total_constraints(reader, args, pos_site, rot_site)
    model.total_joint(label, n1.label, n2.label, offset1=f1, position_orientation1=R1p,
                      rotation_orientation1=R1r, offset2=f2, position_orientation2=R2p,
                      rotation_orientation2=R2r, type_=type_, **constraints)


def read_offset_displacement_joint(reader, model, args, label, word):
    """`offset displacement joint, <node 1>, <node 2> [, position, <abs position>]` (input
    manual, "Offset displacement joint"): node 1 a structural node with rotation, the position
    (of node 2's point, relative to node 2's frame as MBDyn reads it) defaults to node 2's."""
    w1 = args.peek()
    n1, _ = reader.node_site(args)
    if n1.kind.endswith("displacement"):
        raise w1.error(f"offset displacement joint: node 1 (Structural({n1.label})) must have rotation "
                       "(it is a displacement node)")
    n2, s2 = reader.node_site(args)
    X2 = reader.read_vec3(args, "abs position", s2) if args.is_keyword("position") else None
    model.offset_displacement_joint(label, n1.label, n2.label, X2)


def read_total_pin_joint(reader, model, args, label, word):
    """`total pin joint` (manual §8.12.49): node group (relative), then ground group (absolute)."""
    n, site = reader.node_site(args)
    f, _, Rr = read_total_frames(reader, args, site)
    f = np.zeros(3) if f is None else f
    ground_site = reader.make_site(n.frame, n.label, other=n.frame, other_offset=f, other_orientation=np.eye(3))
    Xc, Rcp, Rcr = read_total_frames(reader, args, ground_site, absolute=True)
    x_point = n.frame.x + n.frame.R @ f
    Rr_abs = n.frame.R @ (np.eye(3) if Rr is None else Rr)
    pos_site = reader.make_site(reader.make_frame(x_point, np.eye(3) if Rcp is None else Rcp))
    rot_site = reader.make_site(reader.make_frame(x_point, Rr_abs if Rcr is None else Rcr))
    constraints = read_total_constraints(reader, args, pos_site, rot_site, pin=True)
    model.total_pin_joint(label, n.label, offset=f, rotation_orientation=Rr,
                          absolute_position=Xc, absolute_position_orientation=Rcp,
                          absolute_rotation_orientation=Rcr, **constraints)


CARDS = {
    "clamp": read_clamp, "spherical hinge": read_spherical_hinge, "spherical pin": read_spherical_pin,
    "pin": read_spherical_pin, "revolute hinge": read_revolute_hinge, "plane hinge": read_revolute_hinge,
    "revolute pin": read_revolute_pin, "plane pin": read_revolute_pin, "cardano hinge": read_cardano_hinge,
    "universal hinge": read_cardano_hinge, "in line": read_in_line, "in plane": read_in_plane,
    "prismatic": read_prismatic, "distance": read_distance, "distance with offset": read_distance_with_offset,
    "drive hinge": read_drive_hinge, "drive displacement": read_drive_displacement,
    "drive displacement pin": read_drive_displacement_pin, "imposed displacement": read_imposed_displacement,
    "imposed displacement pin": read_imposed_displacement_pin, "axial rotation": read_axial_rotation,
    "total joint": read_total_joint, "total pin joint": read_total_pin_joint,
    "total equation": read_total_equation, "total internal reaction": read_total_internal_reaction,
    "offset displacement joint": read_offset_displacement_joint,
}
