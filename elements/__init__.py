"""Element families of mbdae, one module each; elements/registry.py is the ordered table
of them.  FAMILIES: every family class (the generated checks need samples for each, from
its module's SAMPLES).  Objectivity and action = reaction are checked in
tests/test_element_checks.py for the two-node families (rods, joints, internal forces,
deformable joints), in tests/test_beam.py for beam3 and beam2, in tests/test_hbeam.py for
hbeam, in tests/test_solid.py for every solid shape, and in tests/test_surface_load.py for
the surface loads (relative traction objectivity; zero net force and moment of a pressure on
a closed surface), and in tests/test_element_checks.py for the rigid body displacement joint
(multi-node: Σ forces = 0, Σ moments = c × λ, zero once its rows hold; loads and global
rows turn with the system).  solid_shapes.py (shapes and rules) and solid_meshes.py (structured
meshes: blocks, boxes, Cook's membrane, a quarter ring) are set-up helpers of the solid
family, not families.  Neither check applies to the rest: the viscous body and the moorings (mooring
matrix, taut and catenary lines) act between one node and the ground; the hydrodynamic bodies
between their nodes and the water at rest (loads in the fixed frame of the still water, like
gravity: not objective, no reaction on another node); spring supports, cross
spring supports, abstract forces and clamp genels act on scalar dofs
against the ground (along a fixed global axis when the dof is a structural position);
inertia elements and power take-offs write no equations; abstract, hydraulic
and parameter nodes carry no structural loads; the driven and regularization families only switch or scale the
rows of the families they wrap."""
from mbdae.elements.registry import family_classes

FAMILIES = family_classes()
