"""Rigid body kinematics of the reference frame (MBDyn input manual, control data, "Rigid Body
Kinematics"; theory manual §8.1.6-8.1.8 and eq. 12.46): the model is written in a frame whose
motion is prescribed, constant (`const`) or given by template drives (`drive`).  Joints and
deformable elements do not see it (they involve relative kinematics only; "ground" joints are
fixed to the moving frame); the elements that carry inertia add the frame's inertial
(fictitious) loads, from the frame's angular velocity ω̄₀, angular acceleration ω̄̇₀ and
origin acceleration ā₀ projected in the frame (`inertial_terms`, eq. 8.52):

* the nodes (engine/core/nodes.py): Coriolis on the momenta, 2 ω̄₀×β and ω̄₀×γ (eq. 8.42);
* the rigid bodies (elements/body.py): the rest of eq. 8.41 (frame acceleration, Euler and
  centrifugal loads, the Coriolis terms of the body's own offset and inertia);
* the solid elements (elements/solid_kernel.py): the body load -ρ(ā₀ + ω̄̇₀×x + ω̄₀×ω̄₀×x)
  of eq. 12.46 with their mass matrix (the Coriolis part -2ρ ω̄₀×ẋ is the nodes' 2 ω̄₀×β̂);
* the modal joints (elements/modal_kernel.py) and the bodies on modal nodes, whose nodes
  carry velocities, not momenta: their inertia forces take the floating frame's absolute
  motion ω̄₀ + ω, ω̄̇₀ + ω̇ + ω̄₀×ω, ā₀ + ω̄̇₀×x + ω̄₀×(ω̄₀×x) + 2 ω̄₀×v + v̇.

Gravity acts as given, in the frame's components (MBDyn's gravity element does not read the
frame either).  All vectors are given in the global frame; what the input omits is zero (the
orientation: the identity).  The orientation is a rotation vector (its drive, for the `drive` form).  As in
MBDyn, ω̇₀ and a₀ are what the input gives, not derivatives of ω₀ and v₀."""
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.core.tpldrive import VectorDrive

RBK_FIELDS = ("position", "orientation", "velocity", "angular_velocity", "acceleration",
              "angular_acceleration")


class FrameMotion(NamedTuple):
    """The reference frame's motion at one time: x₀, R₀, v₀, ω₀, a₀, ω̇₀."""
    x: np.ndarray
    R: np.ndarray
    v: np.ndarray
    w: np.ndarray
    a: np.ndarray
    wp: np.ndarray


@dataclass
class RigidBodyKinematics:
    """`rigid body kinematics: {const | drive}, ...`: one VectorDrive per given quantity
    (None where the input omits it)."""
    kind: str                                   # "const" | "drive"
    drives: dict = field(default_factory=dict)  # RBK_FIELDS name -> VectorDrive

    def __post_init__(self):
        unknown = set(self.drives) - set(RBK_FIELDS)
        if unknown:
            raise ValueError(f"rigid body kinematics: unknown quantities {sorted(unknown)}")
        if self.kind not in ("const", "drive"):
            raise ValueError(f"rigid body kinematics: kind must be 'const' or 'drive', not {self.kind!r}")

    @classmethod
    def constant(cls, position=None, orientation=None, velocity=None, angular_velocity=None,
                 acceleration=None, angular_acceleration=None):
        """The `const` form: vectors (and an orientation matrix) that do not change."""
        given = dict(position=position, velocity=velocity, angular_velocity=angular_velocity,
                     acceleration=acceleration, angular_acceleration=angular_acceleration)
        drives = {k: VectorDrive.constant(np.asarray(v, float)) for k, v in given.items() if v is not None}
        if orientation is not None:
            drives["orientation"] = VectorDrive.constant(rot.log_rotvec(np.asarray(orientation, float)))
        return cls("const", drives)

    def vector(self, name, t):
        """One quantity at time t (zero when not given)."""
        d = self.drives.get(name)
        return np.zeros(3) if d is None else np.asarray(d.value(t), float)

    def inertial_terms(self, t):
        """(ω̄₀, ω̄̇₀, ā₀) at time t, each (3,) in the moving frame (R₀ᵀ times the global ones,
        eq. 8.52): what the inertia-carrying elements need."""
        R0 = rot.exp_rotvec(self.vector("orientation", t)) if "orientation" in self.drives else np.eye(3)
        return tuple(np.ascontiguousarray(R0.T @ self.vector(name, t))
                     for name in ("angular_velocity", "angular_acceleration", "acceleration"))

    def at(self, t):
        """The frame's motion at time t (FrameMotion)."""
        v = {name: self.vector(name, t) for name in RBK_FIELDS}
        return FrameMotion(v["position"], rot.exp_rotvec(v["orientation"]), v["velocity"],
                           v["angular_velocity"], v["acceleration"], v["angular_acceleration"])
