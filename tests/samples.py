"""Small random models, one or more per element family, for the generated checks."""
import numpy as np

from mbdae.engine.model import Model
from mbdae.engine.core.rotations import exp_rotvec
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.core.drives import SineDrive, LinearDrive, ConstDrive
from mbdae.engine.core.constitutive import LinearViscoelastic1D


def rand_R(rng):
    return exp_rotvec(rng.normal(size=3))


def _nodes(m, rng, n, kind="dynamic", start=1):
    for i in range(n):
        m.structural_node(start + i, kind, position=rng.normal(size=3), orientation=rand_R(rng),
                          velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))


def body_model(rng):
    m = Model()
    _nodes(m, rng, 2)
    J = rng.normal(size=(3, 3))
    m.body(1, 1, 2.0, center_of_mass=rng.normal(size=3), inertia=J @ J.T + np.eye(3))
    m.body(2, 1, 0.5, center_of_mass=rng.normal(size=3), inertia=np.diag([1.0, 2.0, 3.0]))
    m.body(3, 2, 1.5, center_of_mass=rng.normal(size=3), inertia=np.diag([0.3, 0.2, 0.4]),
           inertia_orientation=rand_R(rng))
    return m


def gravity_model(rng):
    m = body_model(rng)
    m.gravity([0.3, -9.81, 1.1], LinearDrive(1.0, 0.5))
    return m


def force_model(rng):
    m = Model()
    _nodes(m, rng, 3)
    vd = lambda: VectorDrive.single(rng.normal(size=3), SineDrive(0.0, 3.0, 2.0, "forever", 0.5))
    m.force(1, 1, vd(), "absolute", offset=rng.normal(size=3))
    m.force(2, 2, vd(), "follower", offset=rng.normal(size=3))
    m.force(3, 1, vd(), "absolute", offset=rng.normal(size=3), node2=3, offset2=rng.normal(size=3))
    m.force(4, 2, vd(), "follower", offset=rng.normal(size=3), node2=3, offset2=rng.normal(size=3))
    m.couple(5, 3, vd(), "absolute")
    m.couple(6, 1, vd(), "follower")
    m.couple(7, 2, vd(), "follower", node2=1)
    m.couple(8, 3, vd(), "absolute", node2=2)
    return m


def rod_model(rng):
    m = Model()
    _nodes(m, rng, 3)
    m.rod(1, 1, 2, LinearViscoelastic1D(100.0, 3.0, 0.01), offset1=rng.normal(size=3), offset2=rng.normal(size=3))
    m.rod(2, 2, 3, LinearViscoelastic1D(50.0, 0.0), length=2.5)
    from mbdae.engine.core.constitutive import cubic_elastic
    m.rod(3, 3, 1, cubic_elastic(1, 20.0, 300.0, 4000.0), length=1.7)      # nonlinear tangent
    return m


def joint_model(rng):
    m = Model()
    _nodes(m, rng, 4)
    _nodes(m, rng, 2, kind="static", start=5)
    R = lambda: rand_R(rng)
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
    return m


SAMPLES = {
    "body": [body_model],
    "gravity": [gravity_model],
    "force": [force_model],
    "rod": [rod_model],
    "joint": [joint_model],
}


def randomize_state(system, rng, t=0.37, g_scale=0.2):
    """A generic state: random y, ẏ (incl. multipliers), rotation increments and references."""
    st = system.initial_state(t)
    st.y[:] = rng.normal(size=system.n)
    st.yp[:] = rng.normal(size=system.n)
    st.y[system.nodes.ig] = g_scale * rng.normal(size=(system.nodes.n, 3))
    st.R_ref = np.array([rand_R(rng) for _ in range(system.nodes.n)])
    return st


def rigid_motion(st, nodes, Q, c, v0, w0):
    """The state seen after a rigid rotation Q and translation c with a superimposed rigid
    velocity field v0 + w0 × x (objectivity checks; rotation increments g unchanged)."""
    from mbdae.engine.core import rotations as rot
    st2 = st.copy()
    xq = rot.matvec(Q, st.y[nodes.ix]) + c
    st2.y[nodes.ix] = xq
    st2.yp[nodes.ix] = rot.matvec(Q, st.yp[nodes.ix]) + v0 + rot.cross(w0, xq)
    st2.R_ref = Q @ st.R_ref
    st2.yp[nodes.ig] = rot.matvec(Q, st.yp[nodes.ig]) + w0
    return st2


def _cubic_spring(t, x, v):
    """F = -k x - c x³ - d v ⊙ |v| (anisotropic), with exact derivatives."""
    k = np.array([3.0, 1.0, 2.0])
    F = -k * x - 0.5 * x ** 3 - 0.7 * v * np.abs(v) + np.sin(t)
    dFx = np.einsum('ni,ij->nij', -k - 1.5 * x ** 2, np.eye(3))
    dFv = np.einsum('ni,ij->nij', -1.4 * np.abs(v), np.eye(3))
    return F, dFx, dFv


def user_force_model(rng):
    m = Model()
    _nodes(m, rng, 2)
    m.user_force(1, 1, _cubic_spring)
    m.user_force(2, 2, _cubic_spring)
    return m


def joint_subset_model(rng):
    """Joints that use only some row groups (the compact evaluation path)."""
    m = Model()
    _nodes(m, rng, 3)
    v = lambda: rng.normal(size=3)
    m.spherical_pin(1, 1, offset=v(), absolute_position=v())
    m.spherical_hinge(2, 1, 2, offset1=v(), offset2=v())
    m.distance(3, 2, 3, offset1=v(), offset2=v())
    return m


SAMPLES["user force"] = [user_force_model]
SAMPLES["joint"].append(joint_subset_model)


def deformable_model(rng):
    from mbdae.engine.core.constitutive import LinearLaw3D
    m = Model()
    _nodes(m, rng, 3)
    K = rng.normal(size=(3, 3))
    C = rng.normal(size=(3, 3))
    v = lambda: rng.normal(size=3)
    m.deformable_hinge(1, 1, 2, LinearLaw3D(K @ K.T + np.eye(3), C @ C.T), orientation1=rand_R(rng),
                       orientation2=rand_R(rng), prestrain=VectorDrive.single(v(), LinearDrive(0.1, 0.2)))
    m.deformable_displacement_joint(2, 2, 3, LinearLaw3D([10.0, 20.0, 30.0], 0.5), offset1=v(),
                                    orientation1=rand_R(rng), offset2=v())
    m.deformable_hinge(3, 3, 1, LinearLaw3D(5.0))
    return m


SAMPLES["deformable joint"] = [deformable_model]


def _beam_laws(rng):
    from mbdae.engine.core import constitutive as cl
    K = rng.normal(size=(6, 6))
    C = rng.normal(size=(6, 6))
    pre = cl.TemplateDrive(6, [(rng.normal(size=6) * 0.05, LinearDrive(0.1, 0.3))])
    return [cl.linear_viscoelastic(6, K @ K.T + np.eye(6), C @ C.T, prestrain=pre),
            cl.beam_section(10.0, 5.0, 6.0, 2.0, 3.0, 4.0),
            cl.cubic_elastic(6, [10.0, 5.0, 6.0, 2.0, 3.0, 4.0], 3.0, 20.0),
            cl.scaled(cl.linear_viscous(6, np.diag([1.0, 2.0, 3.0, 0.5, 0.4, 0.3])), SineDrive(0.0, 2.0, 0.5, "forever", 1.0))]


def beam3_model(rng):
    """Two curved three-node beams sharing a node, with offsets, node and section frames."""
    m = Model()
    base = np.array([[0.0, 0, 0], [0.5, 0.1, 0], [1.0, 0.3, 0.1], [1.5, 0.6, 0.1], [2.0, 0.8, 0.3]])
    for i, x in enumerate(base):
        m.structural_node(i + 1, "dynamic", position=x + 0.05 * rng.normal(size=3), orientation=rand_R(rng),
                          velocity=rng.normal(size=3), angular_velocity=rng.normal(size=3))
    laws = _beam_laws(rng)
    v = lambda: 0.05 * rng.normal(size=3)
    m.beam3(1, 1, 2, 3, laws[0], laws[2], offsets=[v(), v(), v()], node_orientations=[rand_R(rng), None, rand_R(rng)],
            orientation=rand_R(rng))
    m.beam3(2, 3, 4, 5, laws[1], laws[3], orientation=rand_R(rng), orientation2=rand_R(rng))
    return m


def _three_moving_nodes(rng):
    """Three dynamic nodes on a slightly curved line, random frames and velocities."""
    m = Model()
    for i in range(3):
        m.structural_node(i + 1, "dynamic", position=[0.7 * i, 0.1 * i * i, 0.0] + 0.05 * rng.normal(size=3),
                          orientation=rand_R(rng), velocity=rng.normal(size=3),
                          angular_velocity=rng.normal(size=3))
    return m


def beam2_model(rng):
    m = _three_moving_nodes(rng)
    laws = _beam_laws(rng)
    m.beam2(1, 1, 2, laws[0], offsets=[0.05 * rng.normal(size=3), None], orientation=rand_R(rng))
    m.beam2(2, 2, 3, laws[2], node_orientations=[None, rand_R(rng)])
    m.beam2(3, 3, 1, laws[3])
    return m


SAMPLES["beam3"] = [beam3_model]
SAMPLES["beam2"] = [beam2_model]


def beam3_incremental_model(rng):
    """MBDyn's incremental rotation interpolation (section frame and curvature of the last step)."""
    m = beam3_model(rng)
    for b in m.beams:
        b.interpolation = "incremental"
    return m


def beam2_incremental_model(rng):
    m = beam2_model(rng)
    for b in m.beams:
        b.interpolation = "incremental"
    return m


SAMPLES["beam3"].append(beam3_incremental_model)
SAMPLES["beam2"].append(beam2_incremental_model)


def hbeam_model(rng):
    """Four helicoidal beams on three nodes, with offsets and node-frame orientations, every kind
    of section law (coupled viscoelastic with prestrain, plain elastic, cubic, scaled viscous)."""
    m = _three_moving_nodes(rng)
    laws = _beam_laws(rng)
    m.hbeam(1, 1, 2, laws[0], offsets=[0.05 * rng.normal(size=3), None], node_orientations=[rand_R(rng), None])
    m.hbeam(2, 2, 3, laws[2], offsets=[None, 0.05 * rng.normal(size=3)], node_orientations=[None, rand_R(rng)])
    m.hbeam(3, 3, 1, laws[3])
    m.hbeam(4, 1, 3, laws[1], offsets=[0.05 * rng.normal(size=3), 0.05 * rng.normal(size=3)])
    return m


SAMPLES["hbeam"] = [hbeam_model]


def _plain_linear_laws(m, rng):
    """Only plain linear section laws (elastic and viscoelastic, no drive, no prestrain): the
    beams' direct matrix-product path."""
    from mbdae.engine.core import constitutive as cl
    K = rng.normal(size=(6, 6))
    C = rng.normal(size=(6, 6))
    laws = [cl.beam_section(10.0, 5.0, 6.0, 2.0, 3.0, 4.0), cl.linear_viscoelastic(6, K @ K.T + np.eye(6), C @ C.T)]
    for k, b in enumerate(m.beams):
        b.laws = [laws[(k + j) % 2] for j in range(len(b.laws))]
    return m


SAMPLES["beam3"].append(lambda rng: _plain_linear_laws(beam3_model(rng), rng))
SAMPLES["beam2"].append(lambda rng: _plain_linear_laws(beam2_incremental_model(rng), rng))


def deformable_all_model(rng):
    """Every deformable joint type, attached and invariant, with offsets, hinge frames,
    coupled 6-D laws, a nonlinear (cubic) law, prestrain and drive-scaled laws."""
    from mbdae.engine.core import constitutive as cl
    m = Model()
    _nodes(m, rng, 4)
    v = lambda: rng.normal(size=3)
    R = lambda: rand_R(rng)
    K6 = rng.normal(size=(6, 6))
    C6 = rng.normal(size=(6, 6))
    K3 = rng.normal(size=(3, 3))
    law6 = cl.linear_viscoelastic(6, K6 @ K6.T + np.eye(6), C6 @ C6.T,
                                  prestrain=cl.TemplateDrive(6, [(0.1 * rng.normal(size=6), LinearDrive(0.1, 0.3))]))
    cubic3 = cl.cubic_elastic(3, [3.0, 2.0, 1.0], [0.5, 0.2, 0.3], [4.0, 1.0, 2.0])
    visc3 = cl.scaled(cl.linear_viscoelastic(3, K3 @ K3.T + np.eye(3), np.diag([0.3, 0.2, 0.5])),
                      SineDrive(0.0, 2.0, 0.5, "forever", 1.0))
    for inv in (False, True):
        base = 10 * inv
        m.deformable_joint(base + 1, 1, 2, law6, offset1=v(), orientation1=R(), offset2=v(), orientation2=R(),
                           invariant=inv)
        m.deformable_joint(base + 2, 3, 4, cl.linear_viscous(6, np.diag([1.0, 2.0, 3.0, 0.4, 0.5, 0.6])),
                           offset1=v(), invariant=inv)
        m.deformable_hinge(base + 3, 2, 3, cubic3, orientation1=R(), orientation2=R(), invariant=inv)
        m.deformable_hinge(base + 4, 4, 1, visc3, orientation1=R(), invariant=inv)
        m.deformable_displacement_joint(base + 5, 1, 3, visc3, offset1=v(), orientation1=R(), offset2=v(),
                                        orientation2=R(), invariant=inv)
        m.deformable_displacement_joint(base + 6, 2, 4, cubic3, offset1=v(), offset2=v(), invariant=inv)
    m.deformable_axial_joint(21, 1, 4, cl.linear_viscoelastic(1, 7.0, 0.4), orientation1=R(), orientation2=R())
    m.deformable_axial_joint(22, 2, 3, LinearViscoelastic1D(3.0, 0.2, LinearDrive(0.1, 0.2)))
    return m


SAMPLES["deformable joint"].insert(0, deformable_all_model)   # first: also the action = reaction and objectivity checks


def viscous_body_model(rng):
    from mbdae.engine.core import constitutive as cl
    m = Model()
    _nodes(m, rng, 2)
    C = rng.normal(size=(6, 6))
    m.viscous_body(1, 1, cl.linear_viscous(6, C @ C.T), offset=rng.normal(size=3), orientation=rand_R(rng))
    m.viscous_body(2, 2, cl.scaled(cl.linear_viscous(6, rng.normal(size=(6, 6))), LinearDrive(1.0, 0.5)))
    m.viscous_body(3, 1, cl.linear_viscous(6, 2.0), offset=rng.normal(size=3))
    return m


SAMPLES["viscous body"] = [viscous_body_model]


def driven_model(rng):
    """Driven elements (elements/driven.py) at the sample time t = 0.37: joints 2 (spherical
    hinge), 4 (total joint) and rod 5 active, joints 3 (distance), 6 (revolute hinge), rod 7 and
    force 8 inactive; joint 4 starts "inactive" with an offset{1} hint, so its hint is applied
    at the first evaluation and the checks see the joint after re-taking its offset."""
    from mbdae.engine.core.drives import StepDrive
    m = Model()
    _nodes(m, rng, 4)
    v = lambda: rng.normal(size=3)
    on = lambda: StepDrive(0.2, 1.0, 0.0)          # 1 after t = 0.2
    off = lambda: StepDrive(0.3, -1.0, 1.0)        # 0 after t = 0.3
    m.spherical_hinge(2, 1, 2, offset1=v(), offset2=v())
    m.driven(2, on())
    m.distance(3, 2, 3, length=1.3, offset1=v(), offset2=v())
    m.driven(3, off())
    m.total_joint(4, 3, 4, offset1=v(), position_orientation1=rand_R(rng), offset2=v(),
                  position_status=("active", "active", "inactive"),
                  orientation_status=("active", "inactive", "active"))
    m.driven(4, on(), hints=("offset{1}",), initial_state=False)
    m.revolute_hinge(6, 1, 4, offset1=v(), orientation1=rand_R(rng), offset2=v(), orientation2=rand_R(rng))
    m.driven(6, off())
    m.rod(5, 1, 3, LinearViscoelastic1D(80.0, 2.0), offset1=v(), offset2=v())
    m.driven(5, on())
    m.rod(7, 2, 4, LinearViscoelastic1D(30.0, 1.0), length=1.7)
    m.driven(7, off())
    m.force(8, 2, VectorDrive.constant(v()), "follower", offset=v())
    m.driven(8, off(), kind="force")
    m.force(9, 3, VectorDrive.constant(v()), "follower", offset=v())
    return m


SAMPLES["driven"] = [driven_model]


def joint_regularization_model(rng):
    """Tikhonov-regularized joints of every row kind (positions, rotations, velocity rows,
    axis orthogonality, distance)."""
    m = joint_model(rng)
    for label, c in ((2, 1e-3), (4, 0.5), (10, 2e-2), (15, 0.1), (16, 3e-3)):
        m.joint_regularization(label, c)
    return m


SAMPLES["joint regularization"] = [joint_regularization_model]


def total_equation_model(rng):
    """Total equations whose multipliers load other node pairs through total internal
    reactions (one with a velocity row in its equation), and an equation/reaction pair on the
    same nodes and frames (together a total joint)."""
    m = Model()
    _nodes(m, rng, 5)
    R = lambda: rand_R(rng)
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


SAMPLES["joint"].append(total_equation_model)


def genel_model(rng):
    """Abstract nodes (differential and algebraic) with spring supports and abstract forces,
    and a spring support and an abstract force on a structural position dof."""
    from mbdae.engine.core.constitutive import LinearElastic1D
    m = Model()
    _nodes(m, rng, 1)
    m.abstract_node(1, "differential", rng.normal(), rng.normal())
    m.abstract_node(2, "algebraic", rng.normal())
    m.abstract_node(3, "differential")
    m.spring_support(1, 1, LinearElastic1D(3.0, LinearDrive(0.1, 0.2)))
    m.spring_support(2, 2, LinearElastic1D(5.0))
    m.spring_support(3, 1, LinearElastic1D(7.0), node_type="structural", index=2)
    m.spring_support(4, 3, LinearElastic1D(2.0))
    from mbdae.engine.core.constitutive import cubic_elastic
    m.spring_support(5, 2, cubic_elastic(1, 1.0, 20.0, 300.0))
    m.abstract_force(5, 1, SineDrive(0.0, 3.0, 2.0, "forever", 0.5))
    m.abstract_force(6, 2, LinearDrive(1.0, 0.5))
    m.abstract_force(7, 1, ConstDrive(0.3), node_type="structural", index=3)
    return m


def parameter_model(rng):
    """A beam3 with strain-gage and element parameter nodes bound to it (no rows: the FD
    check covers that they add none)."""
    m = beam3_model(rng)
    m.parameter_node(1, "beam strain gage", y=0.01, z=0.02)
    m.parameter_node(2, "element")
    m.parameter_node(3, "value", 2.5)
    m.bind(1, "beam", 1, index=2)
    m.bind(2, "beam", 2, name="pI.kz")
    return m


SAMPLES["abstract node"] = [genel_model]
SAMPLES["spring support"] = [genel_model]
SAMPLES["abstract force"] = [genel_model]
SAMPLES["parameter node"] = [parameter_model]
