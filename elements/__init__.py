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
from mbdae.elements.body import RigidBodies, Gravity
from mbdae.elements.forces import StructuralForces
from mbdae.elements.rod import Rods
from mbdae.elements.joints import RigidJoints
from mbdae.elements.userforce import UserForces
from mbdae.elements.deformable import DeformableJoints
from mbdae.elements.viscous_body import ViscousBodies
from mbdae.elements.beam import Beams3, Beams2
from mbdae.elements.hbeam import HelicoidalBeams
from mbdae.elements.genel import SpringSupports, AbstractForces
from mbdae.elements.abstract_nodes import AbstractNodes
from mbdae.elements.parameters import ParameterNodes
from mbdae.elements.driven import DrivenActivity
from mbdae.elements.regularization import JointRegularizations

FAMILIES = [RigidBodies, Gravity, StructuralForces, UserForces, Rods, RigidJoints, DeformableJoints, ViscousBodies, Beams3, Beams2,
            HelicoidalBeams,
            AbstractNodes, SpringSupports, AbstractForces, ParameterNodes,
            DrivenActivity, JointRegularizations]
