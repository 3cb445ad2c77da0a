"""Model: the plain description of a multibody system (what the user built), and the
Python API to build it.  Nothing here computes; `System(model)` lays out the unknowns and
`InitialValueProblem` runs it.

Orientation matrices are 3×3 arrays; offsets of joints, forces and bodies are in the
node frame unless the argument name says `absolute`.  Drives are objects of
mbdae.engine.core.drives (scalar) or mbdae.engine.core.tpldrive.VectorDrive (vectors); a plain
number or 3-vector is taken as a constant.
"""
import numpy as np

from mbdae.engine.core.nodes import NodeSpec, DummyNodeSpec
from mbdae.engine.core.drives import ConstDrive
from mbdae.engine.core.tpldrive import VectorDrive

I3 = np.eye(3)


def _vec(v, n=3):
    return np.zeros(n) if v is None else np.asarray(v, float).reshape(n)


def _mat(R):
    return I3.copy() if R is None else np.asarray(R, float).reshape(3, 3)


def _scalar_drive(d):
    if d is None:
        return None
    return d if hasattr(d, "value") else ConstDrive(float(d))


def _vector_drive(d):
    if d is None:
        return None
    if isinstance(d, VectorDrive):
        return d
    return VectorDrive.constant(_vec(d))


def _flags(flags, allowed):
    out = []
    for f in flags:
        if isinstance(f, str):
            f = f.lower()
            if f not in allowed:
                raise ValueError(f"constraint status '{f}' is not one of {sorted(allowed)}")
            out.append(allowed[f])
        else:
            out.append("active" if f else "inactive")
    return out


_POS_FLAGS = {"inactive": "inactive", "active": "active", "position": "active", "velocity": "velocity"}
_ROT_FLAGS = {"inactive": "inactive", "active": "active", "rotation": "active",
              "angular velocity": "angular velocity"}


class Model:
    def __init__(self):
        self.nodes = []
        self.dummy_nodes = []
        self.bodies = []
        self.forces = []
        self.joints = []
        self.rods = []
        self.user_forces = []
        self.deformable = []
        self.viscous_bodies = []
        self.beams = []
        self.hbeams = []
        self.gravity_vector = None
        self.gravity_drive = None
        self.inverse_flags = {}          # label -> {flag: bool}, see inverse_dynamics_flags

    # ------------------------------------------------------------------ nodes
    def structural_node(self, label, kind="dynamic", position=None, orientation=None,
                        velocity=None, angular_velocity=None, output=True,
                        orientation_description="euler123", assembly_stiffness=None):
        """Static (6 unknowns) or dynamic (12 unknowns) structural node (manual §8.1.1-2)."""
        if kind not in ("static", "dynamic"):
            raise ValueError(f"structural node {label}: kind must be 'static' or 'dynamic', not {kind!r}")
        self.nodes.append(NodeSpec(label, kind, _vec(position), _mat(orientation), _vec(velocity),
                                   _vec(angular_velocity), output, orientation_description,
                                   assembly_stiffness))
        return label

    def dummy_node(self, label, base, offset=None, orientation=None, output=True,
                   orientation_description="euler123"):
        """Offset dummy node: output of the point x + R f with orientation R R_h (eq. 8.27)."""
        self.dummy_nodes.append(DummyNodeSpec(label, base, _vec(offset), _mat(orientation), output,
                                              orientation_description))
        return label

    # ------------------------------------------------------------------ inertia and loads
    def body(self, label, node, mass, center_of_mass=None, inertia=None, inertia_orientation=None):
        """Rigid body: mass, centre of mass and inertia about it, in the node frame (§8.1.1)."""
        from mbdae.elements.body import BodySpec
        J = np.zeros((3, 3)) if inertia is None else np.asarray(inertia, float)
        if J.shape == (3,):
            J = np.diag(J)
        if inertia_orientation is not None:
            Rj = _mat(inertia_orientation)
            J = Rj @ J @ Rj.T
        self.bodies.append(BodySpec(label, node, float(mass), _vec(center_of_mass), J))
        return label

    def gravity(self, acceleration, drive=None):
        """Uniform gravity: acceleration vector (times an optional scalar drive)."""
        self.gravity_vector = _vec(acceleration)
        self.gravity_drive = _scalar_drive(drive) or ConstDrive(1.0)

    def force(self, label, node, value, frame="absolute", offset=None, node2=None, offset2=None):
        """Structural force (absolute or follower; internal when node2 is given), §14.2.1."""
        from mbdae.elements.forces import ForceSpec
        self.forces.append(ForceSpec(label, "force", frame, node, _vector_drive(value), node2,
                                     _vec(offset), _vec(offset2)))
        return label

    def couple(self, label, node, value, frame="absolute", node2=None):
        """Structural couple (absolute or follower; internal when node2 is given), §14.2.2."""
        from mbdae.elements.forces import ForceSpec
        self.forces.append(ForceSpec(label, "couple", frame, node, _vector_drive(value), node2))
        return label

    def deformable_hinge(self, label, node1, node2, law, orientation1=None, orientation2=None,
                         prestrain=None, invariant=False):
        """Deformable hinge (§9.2.2): couple from a 3-D law of the relative rotation and angular
        velocity, in the node-1 hinge frame (invariant: in the mid frame, eq. 9.263)."""
        from mbdae.elements.deformable import DeformableSpec
        self.deformable.append(DeformableSpec(label, "deformable hinge", node1, node2, law,
                                              R1h=_mat(orientation1), R2h=_mat(orientation2),
                                              prestrain=_vector_drive(prestrain), invariant=invariant))
        return label

    def deformable_displacement_joint(self, label, node1, node2, law, offset1=None, orientation1=None,
                                      offset2=None, orientation2=None, prestrain=None, invariant=False):
        """Deformable displacement joint (§9.2.3): force from a 3-D law of the relative
        displacement of the offset points and its rate, in the node-1 frame (invariant: mid frame)."""
        from mbdae.elements.deformable import DeformableSpec
        self.deformable.append(DeformableSpec(label, "deformable displacement joint", node1, node2, law,
                                              f1=_vec(offset1), f2=_vec(offset2), R1h=_mat(orientation1),
                                              R2h=_mat(orientation2), prestrain=_vector_drive(prestrain),
                                              invariant=invariant))
        return label

    def deformable_joint(self, label, node1, node2, law, offset1=None, orientation1=None,
                         offset2=None, orientation2=None, invariant=False):
        """Deformable joint (§9.2.4): force and couple from a 6-D law (constitutive.Law of
        dimension 6) of [relative displacement; relative rotation] and their rates."""
        from mbdae.elements.deformable import DeformableSpec
        self.deformable.append(DeformableSpec(label, "deformable joint", node1, node2, law,
                                              f1=_vec(offset1), f2=_vec(offset2), R1h=_mat(orientation1),
                                              R2h=_mat(orientation2), invariant=invariant))
        return label

    def deformable_axial_joint(self, label, node1, node2, law, orientation1=None, orientation2=None):
        """Deformable axial joint (§9.2.5): couple about axis 3 of the node-1 hinge frame from a
        1-D law of the relative rotation about that axis and its rate."""
        from mbdae.elements.deformable import DeformableSpec
        self.deformable.append(DeformableSpec(label, "deformable axial joint", node1, node2, law,
                                              R1h=_mat(orientation1), R2h=_mat(orientation2)))
        return label

    def viscous_body(self, label, node, law, offset=None, orientation=None):
        """Viscous body (§9.3): force and couple on a node from a 6-D law of the absolute
        velocity of the offset point and the angular velocity, in the frame R R_h."""
        from mbdae.elements.viscous_body import ViscousBodySpec
        self.viscous_bodies.append(ViscousBodySpec(label, node, law, _vec(offset), _mat(orientation)))
        return label

    def beam3(self, label, node1, node2, node3, law, law2=None, offsets=None, node_orientations=None,
              orientation=None, orientation2=None, output=True, interpolation="total"):
        """Three-node finite-volume beam (manual ch. 10; MBDyn `beam3`): 6-D section laws at the
        evaluation points ξ = ∓1/√3 (law2 None: the same law), offsets of the reference line in
        the node frames, absolute section orientations (None: interpolated from the nodes;
        orientation2 None: the same rule as the first point).  interpolation: "total" (objective,
        path independent) or "incremental" (MBDyn's updated rotation interpolation)."""
        from mbdae.elements.beam import BeamSpec
        law2 = law if law2 is None else law2
        orientation2 = orientation if orientation2 is None else orientation2
        self.beams.append(BeamSpec(label, (node1, node2, node3), [law, law2], _beam_list(offsets, 3, _vec),
                                   _beam_list(node_orientations, 3, _mat),
                                   [None if R is None else _mat(R) for R in (orientation, orientation2)], output,
                                   interpolation))
        return label

    def beam2(self, label, node1, node2, law, offsets=None, node_orientations=None, orientation=None,
              output=True, interpolation="total"):
        """Two-node finite-volume beam (MBDyn `beam2`): one 6-D section law at mid-span."""
        from mbdae.elements.beam import BeamSpec
        self.beams.append(BeamSpec(label, (node1, node2), [law], _beam_list(offsets, 2, _vec),
                                   _beam_list(node_orientations, 2, _mat),
                                   [None if orientation is None else _mat(orientation)], output, interpolation))
        return label

    def hbeam(self, label, node1, node2, law, offsets=None, node_orientations=None, output=True):
        """Two-node helicoidal beam (MBDyn `hbeam`, elements/hbeam.py): one 6-D section law,
        strains from the screw logarithm of the relative end poses; offsets and orientations
        of the reference line in the node frames (None: zero offset, node frame)."""
        from mbdae.elements.hbeam import HBeamSpec
        self.hbeams.append(HBeamSpec(label, node1, node2, law, _beam_list(offsets, 2, _vec),
                                     _beam_list(node_orientations, 2, _mat), output))
        return label

    def user_force(self, label, node, func):
        """State-dependent force at a node from a vectorized function
        func(t, x, v) -> (F, dF/dx, dF/dv) (see mbdae.elements.userforce)."""
        from mbdae.elements.userforce import UserForceSpec
        self.user_forces.append(UserForceSpec(label, node, func))
        return label

    def rod(self, label, node1, node2, law, length=None, offset1=None, offset2=None):
        """Rod (with offsets), §9.2.1; length None = initial distance."""
        from mbdae.elements.rod import RodSpec
        self.rods.append(RodSpec(label, node1, node2, law, length, _vec(offset1), _vec(offset2)))
        return label

    # ------------------------------------------------------------------ joints
    def _joint(self, label, type_, node1, node2, **kw):
        from mbdae.elements.joints import JointSpec, NROWS
        active = np.zeros(NROWS, bool)
        for k in kw.pop("rows", ()):
            active[k] = True
        spec = JointSpec(label, type_, node1, node2, active=active, **kw)
        self.joints.append(spec)
        return label

    def clamp(self, label, node, position=None, orientation=None):
        """Clamp (§9.1.2): the node stays at its initial (or the given absolute) pose."""
        spec = self._node_spec(node)
        X = spec.x if position is None else _vec(position)
        R = spec.R if orientation is None else _mat(orientation)
        return self._joint(label, "clamp", None, node, f1=X, R1h=R, R1r=R, rows=range(6))

    def spherical_hinge(self, label, node1, node2, offset1=None, offset2=None,
                        orientation1=None, orientation2=None):
        """Spherical hinge (§9.1.5): x1 + R1 f1 = x2 + R2 f2."""
        return self._joint(label, "spherical hinge", node1, node2, f1=_vec(offset1),
                           f2=_vec(offset2), R1h=_mat(orientation1), R2r=_mat(orientation2),
                           rows=range(3))

    def spherical_pin(self, label, node, offset=None, absolute_position=None):
        """Spherical pin: x + R f = X0 (absolute)."""
        X0 = self._point_of(node, offset) if absolute_position is None else _vec(absolute_position)
        return self._joint(label, "spherical pin", None, node, f1=X0, f2=_vec(offset), rows=range(3))

    def revolute_hinge(self, label, node1, node2, offset1=None, orientation1=None,
                       offset2=None, orientation2=None):
        """Revolute hinge (§9.1.6): points coincide, axis 3 of R1 R1h parallel to axis 3 of R2 R2h."""
        R1h, R2h = _mat(orientation1), _mat(orientation2)
        return self._joint(label, "revolute hinge", node1, node2, f1=_vec(offset1), f2=_vec(offset2),
                           R1h=R1h, R1r=R1h, R2r=R2h, rows=range(3),
                           dot_axes=((R1h[:, 2], R2h[:, 0]), (R1h[:, 2], R2h[:, 1])))

    def revolute_pin(self, label, node, offset=None, orientation=None, absolute_position=None,
                     absolute_orientation=None):
        """Revolute pin: revolute hinge to the ground at X0 with axis 3 of R0."""
        Rh = _mat(orientation)
        X0 = self._point_of(node, offset) if absolute_position is None else _vec(absolute_position)
        R0 = self._node_spec(node).R @ Rh if absolute_orientation is None else _mat(absolute_orientation)
        return self._joint(label, "revolute pin", None, node, f1=X0, f2=_vec(offset), R1h=R0, R1r=R0,
                           R2r=Rh, rows=range(3), dot_axes=((R0[:, 2], Rh[:, 0]), (R0[:, 2], Rh[:, 1])))

    def cardano_hinge(self, label, node1, node2, offset1=None, orientation1=None,
                      offset2=None, orientation2=None):
        """Cardano (universal) hinge: points coincide, axis 3 of R1R1h ⟂ axis 2 of R2R2h."""
        R1h, R2h = _mat(orientation1), _mat(orientation2)
        return self._joint(label, "cardano hinge", node1, node2, f1=_vec(offset1), f2=_vec(offset2),
                           R1h=R1h, R1r=R1h, R2r=R2h, rows=range(3), dot_axes=((R1h[:, 2], R2h[:, 1]),))

    def in_line(self, label, node1, line_position, line_orientation, node2, offset2=None):
        """In line (§9.1.7): x2 + R2 q on the line through x1 + R1 p along axis 3 of R1 R."""
        R = _mat(line_orientation)
        return self._joint(label, "in line", node1, node2, f1=_vec(line_position), f2=_vec(offset2),
                           R1h=R, R1r=R, rows=(0, 1))

    def in_plane(self, label, node1, plane_position, normal, node2, offset2=None):
        """In plane: x2 + R2 q in the plane through x1 + R1 p normal to R1 n."""
        from mbdae.engine.core.rotations import frame_from_axis3
        R = frame_from_axis3(_vec(normal))
        return self._joint(label, "in plane", node1, node2, f1=_vec(plane_position), f2=_vec(offset2),
                           R1h=R, R1r=R, rows=(2,))

    def prismatic(self, label, node1, node2, orientation1=None, orientation2=None):
        """Prismatic: relative rotation locked (R1 R1h parallel to R2 R2h)."""
        return self._joint(label, "prismatic", node1, node2, R1r=_mat(orientation1),
                           R2r=_mat(orientation2), rows=(3, 4, 5))

    def distance(self, label, node1, node2, length=None, offset1=None, offset2=None):
        """Distance (§9.1.3-4): ‖x2 + f2 - x1 - f1‖ = l(t); length None = initial distance."""
        if length is None:
            length = float(np.linalg.norm(self._point_of(node2, offset2) - self._point_of(node1, offset1)))
        return self._joint(label, "distance", node1, node2, f1=_vec(offset1), f2=_vec(offset2),
                           distance_drive=_scalar_drive(length))

    def drive_hinge(self, label, node1, node2, rotation, orientation1=None, orientation2=None):
        """Drive hinge (§9.1.8): (R1 R1h)ᵀ(R2 R2h) = exp(θ(t)×)."""
        return self._joint(label, "drive hinge", node1, node2, R1r=_mat(orientation1),
                           R2r=_mat(orientation2), rot_drive=_vector_drive(rotation), rows=(3, 4, 5))

    def drive_displacement(self, label, node1, node2, displacement, offset1=None, offset2=None):
        """Drive displacement (§9.1.9): x2 + f2 - x1 - f1 = R1 d(t)."""
        return self._joint(label, "drive displacement", node1, node2, f1=_vec(offset1), f2=_vec(offset2),
                           pos_drive=_vector_drive(displacement), rows=(0, 1, 2))

    def drive_displacement_pin(self, label, node, displacement, offset=None, absolute_position=None):
        """Drive displacement pin (§9.1.10): x + f - X0 = d(t), absolute."""
        X0 = np.zeros(3) if absolute_position is None else _vec(absolute_position)
        return self._joint(label, "drive displacement pin", None, node, f1=X0, f2=_vec(offset),
                           pos_drive=_vector_drive(displacement), rows=(0, 1, 2))

    def axial_rotation(self, label, node1, node2, angular_velocity, offset1=None, orientation1=None,
                       offset2=None, orientation2=None):
        """Axial rotation: revolute hinge whose relative angular velocity about axis 3 is ω(t)."""
        R1h, R2h = _mat(orientation1), _mat(orientation2)
        omega = VectorDrive.single([0, 0, 1], _scalar_drive(angular_velocity))
        return self._joint(label, "axial rotation", node1, node2, f1=_vec(offset1), f2=_vec(offset2),
                           R1h=R1h, R1r=R1h, R2r=R2h, rows=(0, 1, 2, 11), avel_drive=omega,
                           dot_axes=((R1h[:, 2], R2h[:, 0]), (R1h[:, 2], R2h[:, 1])))

    def total_joint(self, label, node1, node2, offset1=None, position_orientation1=None,
                    rotation_orientation1=None, offset2=None, position_orientation2=None,
                    rotation_orientation2=None, position_status=("inactive",) * 3, position_drive=None,
                    orientation_status=("inactive",) * 3, orientation_drive=None, type_="total joint",
                    output_orientation1=None):
        """Total joint (§9.1.13): each relative position/rotation component active, inactive,
        or imposed at velocity level; imposed values from template drives in the node-1 frames."""
        rows, pos_d, vel_d, rot_d, avel_d = self._total_rows(position_status, position_drive,
                                                            orientation_status, orientation_drive)
        return self._joint(label, type_, node1, node2, f1=_vec(offset1), f2=_vec(offset2),
                           R1h=_mat(position_orientation1), R1r=_mat(rotation_orientation1),
                           R2r=_mat(rotation_orientation2), rows=rows, pos_drive=pos_d,
                           vel_drive=vel_d, rot_drive=rot_d, avel_drive=avel_d,
                           output_frame=None if output_orientation1 is None else _mat(output_orientation1))

    def total_equation(self, label, node1, node2, **kw):
        """Total equation (MBDyn's `total equation`): the constraint rows of a total joint
        (§9.1.13, same arguments as `total_joint`) whose multipliers load no node; a `total
        internal reaction` applies them elsewhere."""
        return self.total_joint(label, node1, node2, type_="total equation", **kw)

    def total_internal_reaction(self, label, node1, node2, equation, offset1=None,
                                position_orientation1=None, rotation_orientation1=None,
                                offset2=None, position_orientation2=None,
                                rotation_orientation2=None, position_status=("inactive",) * 3,
                                orientation_status=("inactive",) * 3):
        """Total internal reaction (MBDyn's `total internal reaction`): the loads Bᵀλ of a total
        joint with these frames on node1 and node2, λ being the multipliers of total equation
        `equation` (in its row order; as many active components as it has rows); no rows."""
        ps = _flags(position_status, {"inactive": "inactive", "active": "active", "position": "active"})
        os_ = _flags(orientation_status, {"inactive": "inactive", "active": "active", "rotation": "active"})
        rows = [k for k in range(3) if ps[k] == "active"] + [3 + k for k in range(3) if os_[k] == "active"]
        return self._joint(label, "total internal reaction", node1, node2, f1=_vec(offset1),
                           f2=_vec(offset2), R1h=_mat(position_orientation1),
                           R1r=_mat(rotation_orientation1), R2r=_mat(rotation_orientation2),
                           rows=rows, equation=equation)

    def total_pin_joint(self, label, node, offset=None, rotation_orientation=None,
                        absolute_position=None, absolute_position_orientation=None,
                        absolute_rotation_orientation=None, position_status=("inactive",) * 3,
                        position_drive=None, orientation_status=("inactive",) * 3,
                        orientation_drive=None, absolute_output_orientation=None):
        """Total pin joint (§9.1.14): the total joint with the ground as first node."""
        spec = self._node_spec(node)
        X0 = self._point_of(node, offset) if absolute_position is None else _vec(absolute_position)
        Rr = _mat(rotation_orientation)
        R0r = spec.R @ Rr if absolute_rotation_orientation is None else _mat(absolute_rotation_orientation)
        rows, pos_d, vel_d, rot_d, avel_d = self._total_rows(position_status, position_drive,
                                                            orientation_status, orientation_drive)
        return self._joint(label, "total pin joint", None, node, f1=X0, f2=_vec(offset),
                           R1h=_mat(absolute_position_orientation), R1r=R0r, R2r=Rr, rows=rows,
                           pos_drive=pos_d, vel_drive=vel_d, rot_drive=rot_d, avel_drive=avel_d,
                           output_frame=None if absolute_output_orientation is None
                           else _mat(absolute_output_orientation))

    @staticmethod
    def _total_rows(position_status, position_drive, orientation_status, orientation_drive):
        ps = _flags(position_status, _POS_FLAGS)
        os_ = _flags(orientation_status, _ROT_FLAGS)
        rows = [k for k in range(3) if ps[k] == "active"] + [6 + k for k in range(3) if ps[k] == "velocity"]
        rows += [3 + k for k in range(3) if os_[k] == "active"]
        rows += [9 + k for k in range(3) if os_[k] == "angular velocity"]
        pd = _vector_drive(position_drive)
        od = _vector_drive(orientation_drive)
        vel = any(s == "velocity" for s in ps)
        avel = any(s == "angular velocity" for s in os_)
        return rows, pd, (pd if vel else None), od, (od if avel else None)

    def inverse_dynamics_flags(self, label, torque=None, prescribed_motion=None, right_hand_side=None,
                               ergonomy=None):
        """Role of joint/element `label` in an inverse-dynamics problem (MBDyn's `inverse
        dynamics` flags, manual §6.3): `torque` (its rows enter the dynamics subproblem),
        `prescribed motion` (its rows enter the kinematics), `right hand side` / `ergonomy`
        for deformable elements (their loads in f / their energy in the position objective).
        Flags not given keep their defaults (torque, prescribed motion, right hand side: yes)."""
        f = self.inverse_flags.setdefault(label, {})
        for key, val in (("torque", torque), ("prescribed motion", prescribed_motion),
                         ("right hand side", right_hand_side), ("ergonomy", ergonomy)):
            if val is not None:
                f[key] = bool(val)
        return label

    def joint_regularization(self, label, coefficient=1e-6):
        """Tikhonov regularization of joint `label` (manual §8.13): each of its constraint
        rows φ = 0 becomes φ = c λ (a compliance c on its reactions)."""
        from mbdae.elements.regularization import RegularizationSpec
        if not any(s.label == label for s in self.joints):
            raise KeyError(f"joint regularization: joint {label} is not defined")
        regs = self.__dict__.setdefault("regularizations", [])
        if any(r.label == label for r in regs):
            raise ValueError(f"joint regularization: joint {label} is already regularized")
        regs.append(RegularizationSpec(label, float(coefficient)))
        return label

    def driven(self, label, drive, kind="joint", hints=(), initial_state=None):
        """Make element `label` a driven element (manual §8.20.2): active while drive(t) ≠ 0,
        contributing nothing otherwise (a joint's multipliers are then held at 0).  kind:
        "joint" (joints, rods, deformable joints, viscous bodies: MBDyn's joint labels),
        "force" (forces and couples), "body" or "beam".  hints (applied at each activation,
        on the state of the step in which the drive becomes non-zero; joints only):
        "offset{1}" / "offset{2}" (re-take that side's offset so the joint engages where
        the nodes are), ("drive", make) for a distance joint's length, ("position drive",
        make) / ("orientation drive", make) for imposed relative position / rotation, where
        make(view) returns the new drive from an elements.driven.NodeStateView.
        initial_state: None (from the drive at the initial time), True or False: the state
        before the first step, which decides whether the hints apply at the first step.
        Honoured by InitialValueProblem, static runs and the inverse-dynamics problem (which
        rebuilds its row partition when a driven joint switches; hints, driven bodies and
        forces are refused there)."""
        from mbdae.elements.driven import DrivenSpec, as_hint
        pools = {"joint": self.joints + self.rods + self.deformable + self.viscous_bodies,
                 "force": self.forces, "body": self.bodies, "beam": self.beams + self.hbeams}
        if kind not in pools:
            raise ValueError(f"driven {label}: kind must be one of {sorted(pools)}, not {kind!r}")
        specs = [s for s in pools[kind] if s.label == label]
        if not specs:
            raise KeyError(f"driven: {kind} {label} is not defined")
        if getattr(specs[0], "driven", None) is not None:
            raise ValueError(f"driven: {kind} {label} is already driven")
        specs[0].driven = DrivenSpec(_scalar_drive(drive), tuple(as_hint(h) for h in hints), initial_state)
        return label

    # ------------------------------------------------------------------ scalar nodes and genels
    def abstract_node(self, label, kind="differential", value=0.0, derivative=0.0, output=True):
        """Abstract node (input manual §6.1): a scalar unknown x, with ẋ when differential
        (engine/abstract_nodes.py)."""
        from mbdae.elements.abstract_nodes import AbstractNodeSpec
        nodes = self.__dict__.setdefault("abstract_nodes", [])
        if any(s.label == label for s in nodes):
            raise ValueError(f"abstract node {label} is already defined")
        nodes.append(AbstractNodeSpec(label, kind, float(value), float(derivative), output))
        return label

    def parameter_node(self, label, kind="value", value=0.0, y=0.0, z=0.0, output=True):
        """Parameter node (input manual §6.6): kind "value" (a constant), "element" or
        "beam strain gage" (fibre y, z of a beam section), filled by `bind` (engine/parameters.py)."""
        from mbdae.elements.parameters import ParameterNodeSpec
        nodes = self.__dict__.setdefault("parameter_nodes", [])
        if any(s.label == label for s in nodes):
            raise ValueError(f"parameter node {label} is already defined")
        nodes.append(ParameterNodeSpec(label, kind, float(value), float(y), float(z), output))
        return label

    def bind(self, element, element_type, parameter_node, name=None, index=None):
        """Bind element private datum `name` (or 1-based `index`; for a beam strain gage the
        evaluation point) to a parameter node (input manual §8.20.1)."""
        from mbdae.elements.parameters import BindSpec
        if (name is None) == (index is None):
            raise ValueError("bind: give either a private datum name or an index")
        self.__dict__.setdefault("binds", []).append(
            BindSpec(element, element_type, parameter_node, name, None if index is None else int(index)))
        return parameter_node

    def spring_support(self, label, node, law, node_type="abstract", index=1, order="algebraic"):
        """`genel: spring support` (input manual §8.9): a 1-D law of a dof value to the ground
        (elements/genel.py)."""
        from mbdae.elements.genel import SpringSupportSpec, NodeDof
        self.__dict__.setdefault("spring_supports", []).append(
            SpringSupportSpec(label, NodeDof(node, node_type, index, order), law))
        return label

    def abstract_force(self, label, node, drive, node_type="abstract", index=1):
        """`force: abstract` (input manual §8.8): a scalar drive on a dof's equation."""
        from mbdae.elements.genel import AbstractForceSpec, NodeDof
        self.__dict__.setdefault("abstract_forces", []).append(
            AbstractForceSpec(label, NodeDof(node, node_type, index), _scalar_drive(drive)))
        return label

    def element_drive(self, kind, label, name, drive):
        """`element` drive caller: drive(private datum `name` of element `label` of type
        `kind`) on the current state (engine/privdata.py ElementDrive)."""
        from mbdae.engine.core.privdata import ElementDrive, ModelNamespace
        if getattr(self, "namespace", None) is None:
            self.namespace = ModelNamespace()
        return ElementDrive(self.namespace, kind, label, name, _scalar_drive(drive))

    # ------------------------------------------------------------------ helpers
    def _node_spec(self, label):
        for s in self.nodes:
            if s.label == label:
                return s
        raise KeyError(f"structural node {label} is not defined")

    def _point_of(self, node, offset):
        s = self._node_spec(node)
        return s.x + s.R @ _vec(offset)


def _beam_list(values, n, conv):
    """Per-node beam data: None, or n entries (each None or a value)."""
    if values is None:
        return None
    values = list(values)
    if len(values) != n:
        raise ValueError(f"beam: {n} per-node values required, got {len(values)}")
    return [None if v is None else conv(v) for v in values]


def build_families(model, nodes):
    """Group the model's element descriptions into vectorized families (fixed order)."""
    from mbdae.elements.body import RigidBodies, Gravity
    from mbdae.elements.forces import StructuralForces
    from mbdae.elements.joints import RigidJoints
    from mbdae.elements.rod import Rods
    from mbdae.elements.userforce import UserForces
    from mbdae.elements.deformable import DeformableJoints
    fams = []
    if model.bodies:
        bodies = RigidBodies(model.bodies, nodes)
        fams.append(bodies)
        if model.gravity_vector is not None:
            fams.append(Gravity(bodies, model.gravity_vector, model.gravity_drive))
    if model.forces:
        fams.append(StructuralForces(model.forces, nodes))
    if model.user_forces:
        fams.append(UserForces(model.user_forces, nodes))
    if model.rods:
        fams.append(Rods(model.rods, nodes))
    if model.deformable:
        fams.append(DeformableJoints(model.deformable, nodes))
    if getattr(model, "viscous_bodies", None):
        from mbdae.elements.viscous_body import ViscousBodies
        fams.append(ViscousBodies(model.viscous_bodies, nodes))
    beams = getattr(model, "beams", [])
    if beams:
        from mbdae.elements.beam import Beams3, Beams2
        for cls in (Beams3, Beams2):
            for mode in ("total", "incremental"):
                group = [b for b in beams if len(b.nodes) == cls.NN and b.interpolation == mode]
                if group:
                    fams.append(cls(group, nodes))
    if getattr(model, "hbeams", None):
        from mbdae.elements.hbeam import HelicoidalBeams
        fams.append(HelicoidalBeams(model.hbeams, nodes))
    if model.joints:
        fams.append(RigidJoints(model.joints, nodes))
        if getattr(model, "regularizations", None):
            from mbdae.elements.regularization import JointRegularizations
            fams.append(JointRegularizations(model.regularizations, fams[-1]))
    abstract = None
    if getattr(model, "abstract_nodes", None):
        from mbdae.elements.abstract_nodes import AbstractNodes
        abstract = AbstractNodes(model.abstract_nodes, nodes)
        fams.append(abstract)
    if getattr(model, "spring_supports", None):
        from mbdae.elements.genel import SpringSupports
        fams.append(SpringSupports(model.spring_supports, nodes, abstract))
    if getattr(model, "abstract_forces", None):
        from mbdae.elements.genel import AbstractForces
        fams.append(AbstractForces(model.abstract_forces, nodes, abstract))
    if getattr(model, "parameter_nodes", None):
        from mbdae.elements.parameters import ParameterNodes
        fams.append(ParameterNodes(model.parameter_nodes, nodes, getattr(model, "binds", []), list(fams)))
    elif getattr(model, "binds", None):
        raise KeyError(f"bind: parameter node {model.binds[0].node} is not defined")
    return fams
