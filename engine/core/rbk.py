"""Rigid body kinematics of the reference frame (MBDyn input manual, control data, "Rigid Body
Kinematics"; theory manual eq. 12.46): a prescribed motion of the frame the model is written
in, constant (`const`) or given by template drives (`drive`).  Elements that write loads in
that moving frame (the body loads of the solid elements: -ρ(a₀ + ω̇ × x + ω × ω × x + 2 ω × ẋ),
theory manual eq. 12.46) read it from `Model.rigid_body_kinematics`; it is stored as given and
applied nowhere else (joints, bodies and nodes do not see it).

All vectors are in the global frame; what the input omits is zero (the orientation: the
identity).  The orientation is a rotation vector (its drive, for the `drive` form)."""
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

    def at(self, t):
        """The frame's motion at time t (FrameMotion)."""
        v = {name: self.vector(name, t) for name in RBK_FIELDS}
        return FrameMotion(v["position"], rot.exp_rotvec(v["orientation"]), v["velocity"],
                           v["angular_velocity"], v["acceleration"], v["angular_acceleration"])
