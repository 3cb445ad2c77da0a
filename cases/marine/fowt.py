"""The 6-body floating wind turbine of the Momentum Cloud Method paper (seed 001, §8; digest
§2.4) built with mbdae's Python API as a DAE, and the same system for the independent MCM
solver (cases/marine/mcm.py).

Bodies (each on a dynamic structural node at its CM, orientations identity at t = 0):
1 tower + floater (the base), 2 nacelle, 3 hub, 4-6 blades.  Prescribed relative motions,
each a `total joint` with all three relative-position components and all three
relative-rotation components active, the rotation vector imposed by a linear drive about
one axis: nacelle yaw 1.2 deg/s about the tower axis z at the yaw bearing, rotor spin
12.1 rpm about the shaft axis x (the spin axis parallel to surge, as the paper says) at
the rotor apex, blade pitch 1.2 deg/s about each blade's span axis at its root.  External
loads: gravity on every body; four taut mooring lines as straight linear springs (`taut
mooring`, elements/mooring.py) from fairleads on the spar to fixed anchors; the
hydrostatics as a 6×6 linear restoring matrix about the tower axis at the still-water
level (a `mooring matrix` whose pretension carries the buoyancy), `restoring_matrix` being
the one function that defines it.

Global frame: origin at the initial tower (body 1) CM, 58.67 m below the still water
level (SWL), X downwind (surge), Z up.  All numbers, with their sources (Jonkman et al.
2009, NREL/TP-500-38060 "Definition of a 5-MW Reference Wind Turbine for Offshore System
Development"; Jonkman 2010, NREL/TP-500-47535 "Definition of the Floating System for Phase
IV of OC3"; the values as they appear in OpenFAST's OC3-Hywind ElastoDyn input,
OpenFAST/r-test glue-codes/openfast/5MW_OC3Spar_DLL_WTurb_WavesIrr/
NRELOffshrBsline5MW_OC3Hywind_ElastoDyn.dat), are in `FOWTData`; what the paper does not
give (the truncation, fairleads, restoring matrix) is our choice and says so there.

Run: python cases/marine/fowt.py [--final-time T] [--step H]   (prints the motions of
both solvers at t = 0, 37.5, 75, 112.5, 150 s and their largest difference)
"""
import argparse
import os
import sys
from dataclasses import dataclass

import numpy as np

from mbdae import Model, run, drives, VectorDrive

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcm import (MCM, Body, ConstantRate, Harmonic, axis_rotation, euler123_angles,  # noqa: E402
                 cut_joint_loads, cross)

G = 9.80665                    # m/s² (OC3: g = 9.80665)
RHO_WATER = 1025.0             # kg/m³ (OC3)


# ---------------------------------------------------------------------- the data
@dataclass
class FOWTData:
    """Every number of the model.  [N] = NREL 5-MW (TP-500-38060, and OpenFAST's OC3-Hywind
    ElastoDyn input), [O] = OC3-Hywind (TP-500-47535), [P] = the MCM paper, [C] = our choice
    where the sources say nothing (stated, with the reason)."""
    # --- base body: tower + truncated spar ----------------------------------------------
    # [P] global origin = initial tower CM, 58.67 m below SWL
    base_cm_depth: float = 58.67
    # [P] tower + floater inertia about its CM: 5.85e9 kg m² in tilt (roll, pitch), 1.12e8 in yaw
    base_tilt_inertia: float = 5.85e9
    base_yaw_inertia: float = 1.12e8
    # [O] tower: 249,718 kg, CM 43.4 m above SWL, 77.6 m from 10 m to 87.6 m above SWL;
    # base diameter 6.5 m and wall 0.027 m, top 3.87 m and 0.019 m (OC3 §3)
    tower_mass: float = 249718.0
    tower_cm_height: float = 43.4
    tower_base_wall: float = 0.027
    tower_top_wall: float = 0.019
    tower_base_height: float = 10.0
    tower_top_height: float = 87.6
    tower_base_diameter: float = 6.5
    tower_top_diameter: float = 3.87
    # [O] full OC3-Hywind spar: 7,466,330 kg (incl. ballast), yaw inertia 1.6423e8 kg m²
    oc3_platform_mass: float = 7466330.0
    oc3_platform_yaw_inertia: float = 1.6423e8
    # [O] spar profile: 6.5 m diameter from +10 m to 4 m below SWL, linear taper to 9.4 m at
    # 12 m below SWL, 9.4 m below (OC3 draft 120 m)
    spar_upper_diameter: float = 6.5
    spar_lower_diameter: float = 9.4
    taper_top_depth: float = 4.0
    taper_bottom_depth: float = 12.0
    # --- topsides [N]: nacelle, hub, blades ------------------------------------------------
    nacelle_mass: float = 240000.0
    nacelle_yaw_inertia: float = 2.60789e6    # about the yaw axis [N] (paper: 2.61e6)
    nacelle_cm_downwind: float = 1.9          # NacCMxn: downwind of the yaw axis
    nacelle_cm_above: float = 1.75            # NacCMzn: above the yaw bearing (tower top)
    hub_mass: float = 56780.0
    hub_inertia: float = 115926.0             # about the shaft [N]
    overhang: float = 5.0191                  # yaw axis to rotor apex, upwind [N]
    # [C] zero shaft tilt and zero precone: the paper's spin axis is parallel to surge.  The
    # apex keeps the NREL hub height, 90 m above SWL (2.4 m above the tower top instead of
    # NREL's Twr2Shft = 1.96256 m with the 5 deg tilt).
    hub_height: float = 90.0
    blade_mass: float = 17740.0               # [N] Table 2-1
    blade_root_inertia: float = 11776047.0    # [N] second mass moment about the root
    blade_cm_from_root: float = 20.475        # [N] CM from the root along the pitch axis
    # [C] blade CM 20.475 m from the rotor axis (root at the apex): the paper's rotor spin
    # inertia 3.54e7 kg m² is 3 × 11,776,047 + 115,926 (NREL's 38.76e6 adds the 1.5 m hub
    # radius).  The blades and the nacelle are the line and point masses of FAST (the
    # paper's comparison): no inertia about the blade span; the nacelle only has its yaw
    # inertia, the hub only its spin inertia.
    blade_cm_radius: float = 20.475
    blade_root_radius: float = 1.5            # [N] hub radius: where the pitch joint sits
    # --- prescribed motions [P] -----------------------------------------------------------
    yaw_rate: float = np.radians(1.2)         # 1.2 deg/s
    rotor_speed: float = 12.1 * 2 * np.pi / 60   # 12.1 rpm
    pitch_rate: float = np.radians(1.2)       # 1.2 deg/s
    # --- mooring [P] + [C] ----------------------------------------------------------------
    mooring_stiffness: float = 6.81e5         # [P] N/m per line
    mooring_length: float = 564.0             # [P] m, straight taut line, unstretched = initial
    water_depth: float = 320.0                # [P] m
    # [C] four lines at 0, 90, 180, 270 deg, fairleads on the spar at OC3's fairlead depth
    # (70 m below SWL) and radius (5.2 m) [O]; the line length is the initial length (no
    # pretension): the buoyancy carries the whole weight.
    fairlead_depth: float = 70.0
    fairlead_radius: float = 5.2
    line_azimuths: tuple = (0.0, 90.0, 180.0, 270.0)
    # [O] additional yaw spring of the OC3 mooring model (Table 5-1), N m/rad: the yaw entry
    # of the restoring matrix (taut lines without pretension give no yaw stiffness)
    yaw_spring: float = 9.834e7
    gravity: float = G
    rho_water: float = RHO_WATER

    # ------------------------------------------------------------------ derived quantities
    @property
    def tower_shell(self):
        """(mass weights, heights, radii) of the tower as a thin conical shell, diameter and
        wall thickness linear in height, 200 slices: its yaw inertia (and a check of its CM)."""
        z = np.linspace(self.tower_base_height, self.tower_top_height, 201)
        zc = 0.5 * (z[1:] + z[:-1])
        s = (zc - self.tower_base_height) / (self.tower_top_height - self.tower_base_height)
        r = 0.5 * (self.tower_base_diameter + s * (self.tower_top_diameter - self.tower_base_diameter))
        wall = self.tower_base_wall + s * (self.tower_top_wall - self.tower_base_wall)
        w = r * wall / np.sum(r * wall)          # mass per length ∝ radius × wall
        return w, zc, r

    @property
    def tower_yaw_inertia(self):
        w, _, r = self.tower_shell
        return float(self.tower_mass * (w @ r ** 2))

    @property
    def platform_mass(self):
        """[C] The truncated spar keeps OC3's yaw inertia per unit mass (same radii):
        m = (1.12e8 − tower yaw inertia) × 7,466,330 / 1.6423e8."""
        return (self.base_yaw_inertia - self.tower_yaw_inertia) * self.oc3_platform_mass / self.oc3_platform_yaw_inertia

    @property
    def base_mass(self):
        return self.platform_mass + self.tower_mass

    @property
    def platform_cm_depth(self):
        """Depth of the truncated spar's CM below SWL that puts the base CM 58.67 m below SWL."""
        return (self.base_mass * self.base_cm_depth + self.tower_mass * self.tower_cm_height) / self.platform_mass

    @property
    def rotor_mass(self):
        return self.hub_mass + 3 * self.blade_mass

    @property
    def total_mass(self):
        return self.base_mass + self.nacelle_mass + self.rotor_mass

    @property
    def blade_cm_inertia(self):
        """Blade inertia about its CM across the span: 11,776,047 − m × 20.475²."""
        return self.blade_root_inertia - self.blade_mass * self.blade_cm_from_root ** 2

    @property
    def rotor_spin_inertia(self):
        return self.hub_inertia + 3 * (self.blade_cm_inertia + self.blade_mass * self.blade_cm_radius ** 2)

    @property
    def displaced_volume(self):
        """ρ V g carries the total weight (no mooring pretension)."""
        return self.total_mass / self.rho_water

    def _profile(self):
        """Submerged volume and first moment of the OC3 spar profile as functions of the draft."""
        r1, r2 = self.spar_upper_diameter / 2, self.spar_lower_diameter / 2
        a, b = self.taper_top_depth, self.taper_bottom_depth
        z = np.linspace(0.0, b, 4001)
        r = np.where(z <= a, r1, r1 + (r2 - r1) * (z - a) / (b - a))
        area = np.pi * r ** 2
        dz = z[1] - z[0]
        v_top = float(np.sum(0.5 * (area[1:] + area[:-1])) * dz)
        m_top = float(np.sum(0.5 * (area[1:] * z[1:] + area[:-1] * z[:-1])) * dz)
        return v_top, m_top, np.pi * r2 ** 2, b

    @property
    def draft(self):
        """[C] Draft of the truncated spar that displaces `displaced_volume` (OC3: 120 m)."""
        v_top, _, a2, b = self._profile()
        return b + (self.displaced_volume - v_top) / a2

    @property
    def buoyancy_depth(self):
        """Depth of the centre of buoyancy below SWL."""
        v_top, m_top, a2, b = self._profile()
        d = self.draft
        return (m_top + a2 * 0.5 * (d * d - b * b)) / self.displaced_volume

    @property
    def waterplane(self):
        """(area, second moment) of the 6.5 m waterplane."""
        r = self.spar_upper_diameter / 2
        return np.pi * r ** 2, np.pi * r ** 4 / 4


# ---------------------------------------------------------------------- restoring matrix
def restoring_matrix(d):
    """(C, f0, point): the linear hydrostatic restoring about the tower axis at the SWL
    (global point `point`), generalized force [F; M] = f0 − C [Δx; θ] on the base body, with
    θ the rotation vector of the base.  The buoyancy ρ g V acts at the centre of buoyancy,
    a depth z_B below the SWL: linearized about the point at the SWL it is a constant force
    f0 = (0, 0, ρ g V) there and the couple −ρ g (I_wp − V z_B) θ in roll and pitch (the
    buoyancy part of the hydrostatic matrix, WAMIT's C44 = C55 = ρ g (I_wp + V z_cb); negative
    here: the spar is stable through its weight, which gravity puts on the bodies); heave
    C33 = ρ g A_wp; yaw C66 = OC3's additional yaw spring.  The one place that defines it:
    both the mbdae model (a mooring matrix) and the MCM loads read it."""
    A, Iwp = d.waterplane
    rg = d.rho_water * d.gravity
    C = np.zeros((6, 6))
    C[2, 2] = rg * A
    C[3, 3] = C[4, 4] = rg * (Iwp - d.displaced_volume * d.buoyancy_depth)
    C[5, 5] = d.yaw_spring
    f0 = np.array([0.0, 0.0, rg * d.displaced_volume, 0.0, 0.0, 0.0])
    point = np.array([0.0, 0.0, d.base_cm_depth])
    return C, f0, point


# ---------------------------------------------------------------------- the bodies
def fowt_bodies(d):
    """The six bodies as an MCM tree (mcm.Body), all frames parallel to the global one at
    t = 0 (initial orientations identity), base CM at the origin."""
    swl = d.base_cm_depth                          # SWL height above the origin
    top = np.array([0.0, 0.0, swl + d.tower_top_height])          # yaw bearing
    apex = np.array([-d.overhang, 0.0, swl + d.hub_height])       # rotor apex (hub CM)
    nac_cm = top + np.array([d.nacelle_cm_downwind, 0.0, d.nacelle_cm_above])
    It = d.base_tilt_inertia
    bodies = [Body("tower+floater", d.base_mass, np.diag([It, It, d.base_yaw_inertia]))]
    nac_I = d.nacelle_yaw_inertia - d.nacelle_mass * d.nacelle_cm_downwind ** 2   # about its CM
    bodies.append(Body("nacelle", d.nacelle_mass, np.diag([0.0, 0.0, nac_I]), parent=0,
                       joint_on_parent=top, cm_from_joint=nac_cm - top, axis=np.array([0.0, 0.0, 1.0]),
                       angle=ConstantRate(d.yaw_rate)))
    bodies.append(Body("hub", d.hub_mass, np.diag([d.hub_inertia, 0.0, 0.0]), parent=1,
                       joint_on_parent=apex - nac_cm, cm_from_joint=np.zeros(3),
                       axis=np.array([1.0, 0.0, 0.0]), angle=ConstantRate(d.rotor_speed)))
    Ib = d.blade_cm_inertia
    for k in range(3):
        psi = 2 * np.pi * k / 3                    # blade 1 up, then 120 deg apart in the y-z plane
        span = np.array([0.0, -np.sin(psi), np.cos(psi)])
        inertia = Ib * (np.eye(3) - np.outer(span, span))           # line mass along the span
        bodies.append(Body(f"blade {k + 1}", d.blade_mass, inertia, parent=2,
                           joint_on_parent=d.blade_root_radius * span,
                           cm_from_joint=(d.blade_cm_radius - d.blade_root_radius) * span,
                           axis=span, angle=ConstantRate(d.pitch_rate)))
    return bodies


def fairleads(d):
    """(fairlead points on the base, anchor points), global at t = 0: OC3's fairlead depth
    and radius; anchors on the seabed at the end of a straight 564 m line."""
    swl = d.base_cm_depth
    drop = d.water_depth - d.fairlead_depth
    reach = np.sqrt(d.mooring_length ** 2 - drop ** 2)
    F, A = [], []
    for az in np.radians(d.line_azimuths):
        u = np.array([np.cos(az), np.sin(az), 0.0])
        F.append(d.fairlead_radius * u + [0.0, 0.0, swl - d.fairlead_depth])
        A.append((d.fairlead_radius + reach) * u + [0.0, 0.0, swl - d.water_depth])
    return np.array(F), np.array(A)


# ---------------------------------------------------------------------- loads (MCM side)
def fowt_loads(d):
    """loads(t, Poses) → (F, M) at the body CMs for the MCM solver: gravity, the four
    springs (T = k (l − l0)) and the restoring matrix exactly as mbdae's elements evaluate
    them (η: the SWL point's displacement and the rotation vector of the base)."""
    C, f0, point = restoring_matrix(d)
    fl, anchors = fairleads(d)
    l0 = np.linalg.norm(fl - anchors, axis=1)
    k = d.mooring_stiffness
    m = np.array([b.mass for b in fowt_bodies(d)])
    g = np.array([0.0, 0.0, -d.gravity])

    def loads(t, P):
        F = m[:, None] * g[None, :]
        M = np.zeros_like(F)
        R, xb = P.R[0], P.x[0]
        for f, a, L in zip(fl, anchors, l0):
            p = xb + R @ f
            u = p - a
            ln = np.linalg.norm(u)
            Fl = -k * (ln - L) * u / ln
            F[0] += Fl
            M[0] += cross(p - xb, Fl)
        p = xb + R @ point
        eps = np.concatenate([p - point, rotation_vector(R)])
        f = f0 - C @ eps
        F[0] += f[:3]
        M[0] += cross(p - xb, f[:3]) + f[3:]
        return F, M
    return loads


def rotation_vector(R):
    """φ with exp(φ×) = R (|φ| < π)."""
    c = np.clip(0.5 * (np.trace(R) - 1.0), -1.0, 1.0)
    ang = np.arccos(c)
    w = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    s = np.sin(ang)
    return w if s < 1e-12 else w * ang / s


def fowt_mcm(d=None):
    """(MCM system, loads) of the FOWT."""
    d = FOWTData() if d is None else d
    return MCM(fowt_bodies(d)), fowt_loads(d)


# ---------------------------------------------------------------------- trees in mbdae
def joint_drive(angle):
    """The mbdae drive of a prescribed joint angle (mcm.ConstantRate or mcm.Harmonic)."""
    if isinstance(angle, ConstantRate):
        return drives.LinearDrive(angle.angle0, angle.rate)
    if isinstance(angle, Harmonic):
        t0 = -angle.phase / angle.frequency
        return drives.SineDrive(t0, angle.frequency, angle.amplitude, 0, angle.angle0)
    raise TypeError(f"no mbdae drive for {angle!r}")


def initial_motion(bodies, base_position=None, base_orientation=None, base_velocity=None,
                   base_angular_velocity=None, t0=0.0):
    """(x, R, v, w) of every body at t0 in the global frame, by plain rigid-body kinematics
    (independent of mcm.MCM): R_i = R_p T0 exp(θ a×), J = x_p + R_p f, x_i = J + R_i g,
    ω_i = ω_p + R_p T0 a θ̇, v_i = v_p + ω_p × (J − x_p) + ω_i × (x_i − J)."""
    n = len(bodies)
    x, R, v, w = np.zeros((n, 3)), np.zeros((n, 3, 3)), np.zeros((n, 3)), np.zeros((n, 3))
    x[0] = 0.0 if base_position is None else base_position
    R[0] = np.eye(3) if base_orientation is None else base_orientation
    v[0] = 0.0 if base_velocity is None else base_velocity
    w[0] = 0.0 if base_angular_velocity is None else base_angular_velocity
    for i, b in enumerate(bodies[1:], 1):
        p = b.parent
        th, thd, _ = b.angle(t0)
        Rp0 = R[p] @ b.initial_orientation
        R[i] = Rp0 @ axis_rotation(b.axis, th)
        J = x[p] + R[p] @ b.joint_on_parent
        x[i] = J + R[i] @ b.cm_from_joint
        w[i] = w[p] + Rp0 @ b.axis * thd
        v[i] = v[p] + cross(w[p], J - x[p]) + cross(w[i], x[i] - J)
    return x, R, v, w


def tree_model(bodies, model=None, first_node=1, first_joint=1, motion=None):
    """Add an MCM tree to an mbdae Model: a dynamic node at each CM (orientation = the body
    frame), a `body` on it, and for each non-base body a total joint to its parent at the
    joint point (all relative positions held, the relative rotation imposed:
    (R_p T0)ᵀ R_i = exp(θ(t) a×), the rotation vector θ a in the frame R_p T0).  Node i gets
    label first_node + i, its joint first_joint + i.  Returns the model."""
    m = Model() if model is None else model
    x, R, v, w = initial_motion(bodies) if motion is None else motion
    for i, b in enumerate(bodies):
        m.structural_node(first_node + i, "dynamic", position=x[i], orientation=R[i], velocity=v[i],
                          angular_velocity=w[i])
        m.body(first_node + i, first_node + i, b.mass, inertia=b.inertia)
    for i, b in enumerate(bodies[1:], 1):
        p = b.parent
        m.total_joint(first_joint + i, first_node + p, first_node + i,
                      offset1=b.joint_on_parent, rotation_orientation1=b.initial_orientation,
                      offset2=-np.asarray(b.cm_from_joint, float),
                      position_status=("active",) * 3, orientation_status=("active",) * 3,
                      orientation_drive=VectorDrive.single(b.axis, joint_drive(b.angle)))
    return m


# ---------------------------------------------------------------------- the FOWT in mbdae
NODES = {"tower": 1, "nacelle": 2, "hub": 3, "blades": (4, 5, 6)}
YAW_JOINT = 2                  # the total joint tower (node 1) → nacelle (node 2)
RESTORING, MOORINGS = 30, (41, 42, 43, 44)   # element labels


def add_restoring(m, d):
    """The restoring matrix on the base node: mooring matrix 30 (elements/mooring.py) about
    the SWL point on the tower axis, τ = f0 − C [Δx; θ] with θ the rotation vector of the
    base, the buoyancy f0 as its pretension.  The one place the mbdae model takes
    restoring_matrix(d) (the MCM loads read it too)."""
    C, f0, point = restoring_matrix(d)
    m.mooring_matrix(RESTORING, NODES["tower"], stiffness=C, offset=point, pretension=f0)


def fowt_model(d=None):
    """The FOWT as an mbdae Model (labels in NODES; joint 2 is the nacelle yaw joint): the
    MCM tree, gravity, the restoring matrix and the 4 taut mooring springs (MCM §8, straight
    axial springs k from the fairleads to the anchors, unstretched at t = 0)."""
    d = FOWTData() if d is None else d
    bodies = fowt_bodies(d)
    m = tree_model(bodies, first_node=1, first_joint=1)
    m.gravity([0.0, 0.0, -d.gravity])
    add_restoring(m, d)
    fl, anchors = fairleads(d)
    for label, f, a in zip(MOORINGS, fl, anchors):
        m.taut_mooring(label, NODES["tower"], a, stiffness=d.mooring_stiffness, offset=f)
    return m


def run_fowt(final_time=150.0, time_step=0.05, d=None, method="ms", rho=0.6, tolerance=1e-6, **kw):
    """Run the mbdae model; Results."""
    return run(fowt_model(d), final_time=final_time, time_step=time_step, method=method, rho=rho,
               tolerance=tolerance, **kw)


def platform_motions(x_base, R_base, d=None):
    """(surge, sway, heave, roll, pitch, yaw) of the SWL point on the tower axis (FAST's
    platform DOFs; the angles are the 1-2-3 Euler angles X4, X5, X6 of MCM-3), time arrays."""
    d = FOWTData() if d is None else d
    point = np.array([0.0, 0.0, d.base_cm_depth])
    p = x_base + np.einsum('tij,j->ti', R_base, point) - point
    return np.concatenate([p, euler123_angles(R_base)], axis=1)


def mcm_run(final_time=150.0, t_eval=None, d=None, rtol=1e-11):
    """Solve the FOWT with the MCM solver: (MCM, solve_ivp solution, loads)."""
    system, loads = fowt_mcm(d)
    if t_eval is not None:
        final_time = max(final_time, float(t_eval[-1]))
    sol = system.solve(final_time, system.initial_state(), loads, t_eval=t_eval, rtol=rtol)
    return system, sol, loads


def mcm_histories(system, sol):
    """(x, R, v, w) of every body at the solution's times, from MCM-2/9/12."""
    P = [system.poses(t, sol.y[:, k]) for k, t in enumerate(sol.t)]
    return (np.array([p.x for p in P]), np.array([p.R for p in P]), np.array([p.v for p in P]),
            np.array([p.w for p in P]))


def tower_top_loads(r, d=None, subsystem=(1, 2, 3, 4, 5)):
    """MCM-24/25 applied to mbdae's motion (Results r): the force and couple the tower applies
    to the topsides at the yaw bearing, in the tower frame (x1, y1, z1), on r.t[1:-1]."""
    d = FOWTData() if d is None else d
    bodies = fowt_bodies(d)
    system, loads = fowt_mcm(d)
    idx = [r.index(NODES["tower"]), r.index(NODES["nacelle"]), r.index(NODES["hub"])] + \
          [r.index(n) for n in NODES["blades"]]
    x, R, v, w = r.x[:, idx], r.R[:, idx], r.v[:, idx], r.w[:, idx]
    m = system.m
    g = np.array([0.0, 0.0, -d.gravity])
    F = np.broadcast_to(m[:, None] * g, x.shape).copy()      # on the topsides: gravity only
    M = np.zeros_like(F)
    top = np.array([0.0, 0.0, d.base_cm_depth + d.tower_top_height])
    joint = x[:, 0] + np.einsum('tij,j->ti', R[:, 0], top)
    T = R[:, 0]
    omega = np.einsum('tji,tj->ti', T, w[:, 0])
    inertia = np.array([b.inertia for b in bodies])
    return cut_joint_loads(np.asarray(r.t), m, x, R, v, w, inertia, F, M, joint, T, omega, list(subsystem))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--final-time", type=float, default=150.0)
    ap.add_argument("--step", type=float, default=0.05)
    a = ap.parse_args(argv)
    d = FOWTData()
    print(f"base mass {d.base_mass:.6g} kg (spar {d.platform_mass:.6g}, CM {d.platform_cm_depth:.4g} m below SWL), "
          f"total {d.total_mass:.6g} kg; draft {d.draft:.4g} m, CB {d.buoyancy_depth:.4g} m below SWL; "
          f"rotor spin inertia {d.rotor_spin_inertia:.4g} kg m²")
    r = run_fowt(a.final_time, a.step, d)
    t = np.asarray(r.t)
    q = platform_motions(r.x[:, r.index(1)], r.R[:, r.index(1)], d)
    system, sol, _ = mcm_run(a.final_time, t_eval=t, d=d)
    xm, Rm, _, _ = mcm_histories(system, sol)
    qm = platform_motions(xm[:, 0], Rm[:, 0], d)
    names = ("surge m", "sway m", "heave m", "roll deg", "pitch deg", "yaw deg")
    scale = np.array([1, 1, 1, 180 / np.pi, 180 / np.pi, 180 / np.pi])
    print("t      " + "  ".join(f"{n:>22s}" for n in names))
    for tt in np.linspace(0, a.final_time, 5):
        k = int(np.argmin(abs(t - tt)))
        print(f"{t[k]:6.1f} " + "  ".join(f"{q[k, j] * scale[j]:+10.4e}/{qm[k, j] * scale[j]:+10.4e}" for j in range(6)))
    print("max |mbdae − MCM| / max |MCM|:", np.abs(q - qm).max(0) / np.abs(qm).max(0))


if __name__ == "__main__":
    main()
