"""Geometry of MBDyn decks: frames, the site a geometric input is read at, and the reader's
``Geometry`` part: positions, directions, orientations and inertia matrices relative to
references, nodes or the other node of a joint (manual §2.3, §2.4.8; spec §3.1-3.5)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from mbdae.engine.core import rotations as rot
from mbdae.engine.io.mbdyn.lexer import not_supported

I3 = np.eye(3)
ORIENTATION_DESCRIPTIONS = {"euler123": "euler123", "euler313": "euler313", "euler321": "euler321",
                            "orientationvector": "orientation vector",
                            "orientationmatrix": "orientation matrix"}


@dataclass(frozen=True)
class Frame:
    """Position, orientation, velocity and angular velocity of a frame in the global frame."""
    x: np.ndarray = field(default_factory=lambda: np.zeros(3))
    R: np.ndarray = field(default_factory=lambda: np.eye(3))
    v: np.ndarray = field(default_factory=lambda: np.zeros(3))
    w: np.ndarray = field(default_factory=lambda: np.zeros(3))


GLOBAL = Frame()


@dataclass
class Site:
    """Where a geometric input is read (manual §2.4.8.1): the caller frame (a node's initial
    frame, or the global one) and, for the second node of a two-node joint, node 1's frame,
    joint offset and hinge orientation (for `reference, other position|orientation|node`)."""
    frame: Frame = GLOBAL
    node: int = None
    other: Frame = None
    other_offset: np.ndarray = None
    other_orientation: np.ndarray = None


GLOBAL_SITE = Site()

# reading kinds of spec §3.2: relative kinds default to the caller frame, absolute ones to global
RELATIVE_KINDS = ("rel position", "rel direction")


def vector_to_global(kind, value, P, at):
    if kind in ("rel position", "abs position"):
        return P.x + P.R @ value
    if kind in ("rel direction", "abs direction"):
        return P.R @ value
    if kind == "abs velocity":
        return P.v + P.R @ value + np.cross(P.w, at - P.x)
    return P.w + P.R @ value


def vector_from_global(kind, g, C):
    if kind == "rel position":
        return C.R.T @ (g - C.x)
    if kind == "rel direction":
        return C.R.T @ g
    return g


def two_vector_orientation(i1, v1, i2, v2, word):
    """Orientation from axis i1 along v1 and axis i2 in the plane of v1, v2 (manual §2.3.4)."""
    if i1 not in (1, 2, 3) or i2 not in (1, 2, 3) or i1 == i2:
        raise word.error(f"orientation: axis indices must be two different values among 1, 2, 3 "
                         f"(got {i1} and {i2})")
    n1 = np.linalg.norm(v1)
    if n1 == 0:
        raise word.error("orientation: the first vector is null")
    j, k = i1 % 3 + 1, (i1 + 1) % 3 + 1
    R = np.zeros((3, 3))
    R[:, i1 - 1] = v1 / n1
    if i2 == j:
        c = np.cross(R[:, i1 - 1], v2)
        slot, other = k, j
    else:
        c = np.cross(v2, R[:, i1 - 1])
        slot, other = j, k
    nc = np.linalg.norm(c)
    if nc <= 1e-12 * max(1.0, np.linalg.norm(v2)):
        raise word.error("orientation: the second vector is null or parallel to the first")
    R[:, slot - 1] = c / nc
    if i2 == j:
        R[:, other - 1] = np.cross(R[:, slot - 1], R[:, i1 - 1])
    else:
        R[:, other - 1] = np.cross(R[:, i1 - 1], R[:, slot - 1])
    return R


def guess_orthogonal(v1):
    """`guess`: a vector orthogonal to v1 (reference implementation's index choice, spec §3.5)."""
    a = np.abs(v1)
    imax = imin = 0
    if a[1] > a[0]:
        imax = 1
    else:
        imin = 1
    if a[2] > a[imax]:
        imax = 2
    elif a[2] < a[imin]:
        imin = 2
    v2 = np.zeros(3)
    v2[imin] = 1.0
    v2[imax] = -v1[imin] / v1[imax]
    return v2


def denavit_hartenberg(P, d, theta, a, alpha):
    """Frame from Denavit-Hartenberg parameters relative to frame P (spec §3.1)."""
    Rt = rot.euler123_to_R([0.0, 0.0, theta])
    Ra = rot.euler123_to_R([alpha, 0.0, 0.0])
    arm = P.R @ (d * I3[2] + Rt @ (a * I3[0]))
    return Frame(P.x + arm, P.R @ Rt @ Ra, P.v + np.cross(P.w, arm), P.w.copy())


@dataclass
class NodeInfo:
    """A structural node (or dummy) as the reader knows it: kind, initial frame, Model spec."""
    label: int
    kind: str                 # static | dynamic | dummy
    frame: Frame
    spec: object = None


class Geometry:
    """Reader part: geometric inputs and the node sites elements read them at."""

    def read_prefix(self, args, site, vector):
        """`reference, {global | node | local | other position | other orientation | other node
        | <label>}` (manual §2.4.8.1): the frame P the entity is given in, or None."""
        if not args.is_keyword("reference"):
            return None
        w = args.peek()
        kw = args.is_keyword("global", "node", "local", "other position", "other orientation", "other node")
        if kw == "global":
            return GLOBAL
        if kw == "node":
            return site.frame
        if kw == "local":
            if vector:
                M = self.read_plain_orientation(args)
                return replace(site.frame, R=site.frame.R @ M)
            return site.frame
        if kw is not None:
            if site.other is None:
                raise w.error(f"'reference, {w.text}' is only valid for the second node of a joint")
            o = site.other
            if kw == "otherposition":
                return replace(o, x=o.x + o.R @ site.other_offset)
            if kw == "otherorientation":
                return replace(o, R=o.R @ site.other_orientation)
            return o
        return self.frame_by_label(args)

    def read_vec3(self, args, kind, site=GLOBAL_SITE, at=None):
        """A Vec3 of the given kind (spec §3.2 table), with its optional frame prefix."""
        P = self.read_prefix(args, site, vector=True)
        value = self.read_plain_vec3(args)
        if P is None:
            P = site.frame if kind in RELATIVE_KINDS else GLOBAL
        g = vector_to_global(kind, value, P, at if at is not None else P.x)
        return vector_from_global(kind, g, site.frame)

    def read_orientation(self, args, kind, site=GLOBAL_SITE):
        """An orientation matrix, relative ('rel') or absolute ('abs') (spec §3.2, §3.5)."""
        P = self.read_prefix(args, site, vector=False)
        A = self.read_plain_orientation(args)
        if P is None:
            P = site.frame if kind == "rel" else GLOBAL
        Rg = P.R @ A
        return site.frame.R.T @ Rg if kind == "rel" else Rg

    def read_plain_orientation(self, args):
        """`eye | matr, 9 [, tolerance, t] | euler*, [degrees,] 3 | vector, 3 | two vectors`."""
        w = args.peek()
        kw = args.is_keyword("eye", "matr", "euler", "euler123", "euler313", "euler321", "vector",
                             "null", "euler parameters")
        if kw == "eye":
            return I3.copy()
        if kw == "matr":
            R = np.array([args.real("a matrix entry") for _ in range(9)]).reshape(3, 3)
            tol = args.real("a tolerance") if args.is_keyword("tolerance") else 1e-12
            if np.abs(R.T @ R - I3).max() > max(tol, 1e-12):
                self.note(w, "orientation matrix given with 'matr' is not orthogonal within the tolerance")
            return R
        if kw in ("euler", "euler123", "euler313", "euler321"):
            scale = math.pi / 180.0 if args.is_keyword("degrees") else 1.0
            angles = np.array([args.real("an Euler angle") for _ in range(3)]) * scale
            to_R = {"euler313": rot.euler313_to_R, "euler321": rot.euler321_to_R}.get(kw, rot.euler123_to_R)
            return to_R(angles)
        if kw == "vector":
            return rot.exp_rotvec(np.array([args.real("a rotation vector component") for _ in range(3)]))
        if kw == "null":
            raise w.error("syntax error: 'null' is not an orientation matrix (use 'eye')")
        if kw == "eulerparameters":
            raise w.error(not_supported("euler parameters"))
        i1 = args.integer("an orientation: 'eye', 'matr', 'euler', 'vector' or an axis index (1, 2, 3)")
        v1 = np.array([args.real("a vector component") for _ in range(3)])
        i2 = args.integer("the second axis index (1, 2, 3)")
        if args.is_keyword("guess"):
            if np.linalg.norm(v1) == 0:
                raise w.error("orientation: the first vector is null")
            v2 = guess_orthogonal(v1)
        else:
            v2 = np.array([args.real("a vector component") for _ in range(3)])
        return two_vector_orientation(i1, v1, i2, v2, w)

    def read_mat3(self, args, site=GLOBAL_SITE):
        """A Mat3x3 of the relative kind (body inertia, spec §3.2): `null | default | eye |
        [matr,] 9 | sym, 6 | diag, 3 | skew, 3`, optional `scale, s` (manual §2.3.3)."""
        P = self.read_prefix(args, site, vector=False)
        w = args.peek()
        kw = args.is_keyword("null", "default", "eye", "matr", "sym", "diag", "skew")
        if kw in ("null", "default"):
            return np.zeros((3, 3))
        if kw == "eye":
            J = I3.copy()
        elif kw == "sym":
            a = [args.real("a matrix entry") for _ in range(6)]
            J = np.array([[a[0], a[1], a[2]], [a[1], a[3], a[4]], [a[2], a[4], a[5]]])
        elif kw == "diag":
            J = np.diag([args.real("a diagonal entry") for _ in range(3)])
        elif kw == "skew":
            J = rot.skew(np.array([args.real("a vector component") for _ in range(3)])).T
            self.note(w, "skew matrix: built as the transpose of v× (reference implementation)")
        else:
            J = np.array([args.real("a matrix entry") for _ in range(9)]).reshape(3, 3)
        if args.is_keyword("scale"):
            J = J * args.real("a scale factor")
        if P is None:
            return J
        Jg = P.R @ J @ P.R.T
        return site.frame.R.T @ Jg @ site.frame.R

    def frame_by_label(self, args):
        word = args.peek()
        label = args.label("a reference label")
        frame = self.frames.get(label)
        if frame is None:
            raise word.error(f"reference {label} is not defined")
        return frame

    def read_orientation_description(self, args):
        kw = args.expect_keyword("euler123", "euler313", "euler321", "orientation vector",
                                 "orientation matrix", what="an orientation description")
        return ORIENTATION_DESCRIPTIONS[kw]

    def structural_node(self, args, what="a structural node"):
        """A label of a (non-dummy) structural node already defined."""
        w = args.peek()
        label = args.label(what)
        info = self.nodes.get(label)
        if info is None or info.kind == "dummy":
            raise w.error(f"Structural({label}) not defined" if info is None else
                          f"Structural({label}) is a dummy node; elements cannot connect to it")
        return info

    def offset(self, args, site, keyword="position", required=True):
        """`[position,] <Vec3>` (keyword optional, vector mandatory) or, when not required,
        an optional `position, <Vec3>` group."""
        if required:
            args.is_keyword(keyword)
            return self.read_vec3(args, "rel position", site)
        if args.is_keyword(keyword):
            return self.read_vec3(args, "rel position", site)
        return np.zeros(3)

    def hinge(self, args, site):
        """Optional `{orientation|hinge}, <OrientationMatrix>` (relative)."""
        if args.is_keyword("orientation", "hinge"):
            return self.read_orientation(args, "rel", site)
        return I3.copy()

    def second_site(self, args, n1, f1, R1h=None, what="the second node"):
        n2 = self.structural_node(args, what)
        return n2, Site(n2.frame, n2.label, other=n1.frame, other_offset=f1,
                        other_orientation=I3 if R1h is None else R1h)

    def node_site(self, args, what="a structural node"):
        n = self.structural_node(args, what)
        return n, Site(n.frame, n.label)

    def two_node_hinge_sites(self, args):
        """`<node1>, [position,] f1 [, orientation, R1h], <node2>, [position,] f2
        [, orientation, R2h]`: the common head of the two-node hinge-type joints."""
        n1, s1 = self.node_site(args)
        f1 = self.offset(args, s1)
        R1h = self.hinge(args, s1)
        n2, s2 = self.second_site(args, n1, f1, R1h)
        f2 = self.offset(args, s2)
        R2h = self.hinge(args, s2)
        return n1, f1, R1h, n2, f2, R2h

    def hinge_sites_without_offsets(self, args):
        """`<node1> [, position, <f1>] [, orientation, <R1h>], <node2> [, position, <f2>]
        [, orientation, <R2h>]`: the head of the deformable hinge and axial joint (offsets ignored)."""
        n1, s1 = self.node_site(args)
        if args.is_keyword("position"):
            self.read_vec3(args, "rel position", s1)
        R1h = self.hinge(args, s1)
        n2, s2 = self.second_site(args, n1, np.zeros(3), R1h)
        if args.is_keyword("position"):
            self.read_vec3(args, "rel position", s2)
        R2h = self.hinge(args, s2)
        return n1, R1h, n2, R2h

    def read_node_ends(self, args, n, what):
        """n × `<node>, [position,] <offset> [, {orientation | rot}, <R>]` (beam ends):
        (node labels, offsets, relative orientations or None)."""
        labels, offsets, orientations = [], [], []
        for k in range(n):
            node, site = self.node_site(args, f"{what} {k + 1}")
            labels.append(node.label)
            offsets.append(self.offset(args, site))
            orientations.append(self.read_orientation(args, "rel", site)
                                if args.is_keyword("orientation", "rot") else None)
        return labels, offsets, orientations

    @staticmethod
    def make_site(frame, node=None, other=None, other_offset=None, other_orientation=None):
        """A Site (element readers build theirs through the reader)."""
        return Site(frame, node, other, other_offset, other_orientation)

    @staticmethod
    def make_frame(x, R):
        """A Frame at x with orientation R, at rest."""
        return Frame(x, R)

    @staticmethod
    def hinge_site(node, R):
        """The site of node `node` (NodeInfo) with its frame turned by the relative orientation R."""
        return Site(replace(node.frame, R=node.frame.R @ R), node.label)
