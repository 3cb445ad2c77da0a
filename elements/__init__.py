"""Element families of mbdae.  FAMILIES is the registry the generated tests walk: every
family needs samples (tests/samples.py) for the Jacobian-vs-finite-difference checks.
Objectivity and action = reaction are checked in tests/test_element_checks.py for the
two-node families (rods, joints, internal forces, deformable joints), in
tests/test_beam.py for beam3 and beam2 and in tests/test_hbeam.py for hbeam.  Neither check
applies to the rest: the viscous body acts between one node and the ground; spring supports
and abstract forces act on one scalar dof against the ground (along a fixed global axis when
the dof is a structural position); abstract and parameter nodes carry no structural loads;
the driven and regularization families only switch or scale the rows of the families they
wrap.  The System builds the last two itself when a model
has driven elements or regularized joints."""
from .body import RigidBodies, Gravity
from .forces import StructuralForces
from .rod import Rods
from .joints import RigidJoints
from .userforce import UserForces
from .deformable import DeformableJoints
from .viscous_body import ViscousBodies
from .beam import Beams3, Beams2
from .hbeam import HelicoidalBeams
from .genel import SpringSupports, AbstractForces
from mbdae.engine.abstract_nodes import AbstractNodes
from mbdae.engine.parameters import ParameterNodes
from .driven import DrivenActivity
from .regularization import JointRegularizations

FAMILIES = [RigidBodies, Gravity, StructuralForces, UserForces, Rods, RigidJoints, DeformableJoints, ViscousBodies, Beams3, Beams2,
            HelicoidalBeams,
            AbstractNodes, SpringSupports, AbstractForces, ParameterNodes,
            DrivenActivity, JointRegularizations]
