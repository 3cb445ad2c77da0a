"""Element families of mbdae.  FAMILIES is the registry the generated tests walk."""
from .body import RigidBodies, Gravity
from .forces import StructuralForces
from .rod import Rods
from .joints import RigidJoints
from .userforce import UserForces
from .deformable import DeformableJoints
from .viscous_body import ViscousBodies
from .beam import Beams3, Beams2

FAMILIES = [RigidBodies, Gravity, StructuralForces, UserForces, Rods, RigidJoints, DeformableJoints, ViscousBodies, Beams3, Beams2]
