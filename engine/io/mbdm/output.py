"""MBDM's output files (TN §9 and §7.1.2-7.1.4), written beside mbdae's MBDyn files by an
observer of any driver (initial value or kinematic analysis), so that MBDM users'
post-processing keeps working:

* `<case>_body_<ID>.dat`, TN Table 21, every `Save output every (n) steps` (0: never):
  t; x y z; vx vy vz; ax ay az (CoG, GCS); Eangx Eangy Eangz (1-2-3 angles of A = Rz Ry Rx,
  TN eq. 91); ω and ω̇ in the LCS; angx angy angz (∫ω dt, global, trapezoidal over the
  steps: not Euler angles); ω and ω̇ in the GCS.  A header line names the columns.
* `<case>_body_<ID>_Amat.dat` with `Store A matrix: 1` (TN Table 20): t, a11 … a33.
* `<case>_mooring_<k>.dat` per mooring line: t, tension, the force on the body (GCS) and its
  moment about the CoG in the body's LCS (MBDM's n'^A, TN eqs. 88a-b).
* `tracers/<case>_tracers.dat` every `Save tracers every (n) steps`: a Tecplot ASCII file, at
  each saved instant one zone per tracer group (8 tracers: an ordered 2×2×2 zone, the
  cuboid of TN §7.1.2; otherwise a line of I points), the CoGs, and each mooring line's
  fairlead and anchor.
* `DEBUG_state.dat` with `Debug: 1` in dynamic runs (TN §7.1.4): t, then the lines q, q̇, q̈
  (q = [r, e0 e1 e2 e3] per body, TN eqs. 29-30, 40).

Each step is formatted first and written by commit_step (engine/core/stop.py publish_step),
so every file ends on a whole step, also when the run fails."""
import os

import numpy as np

from mbdae.engine.core import rotations as rot

BODY_COLUMNS = ("t x y z vx vy vz ax ay az Eangx Eangy Eangz LCSomegax LCSomegay LCSomegaz LCSepsx LCSepsy "
                "LCSepsz angx angy angz omegax omegay omegaz epsx epsy epsz")


def euler_parameters(R):
    """(e0, e1, e2, e3) of rotation matrices R (..., 3, 3), e0 ≥ 0 (inverse of TN eq. 2)."""
    R = np.asarray(R, float)
    tr = np.trace(R, axis1=-2, axis2=-1)
    q = np.empty(R.shape[:-2] + (4,))
    # the largest of 4e0², 4e1², 4e2², 4e3² first, for accuracy
    cand = np.stack([1 + tr, 1 + 2 * R[..., 0, 0] - tr, 1 + 2 * R[..., 1, 1] - tr, 1 + 2 * R[..., 2, 2] - tr], -1)
    k = np.argmax(cand, axis=-1)
    s = np.sqrt(np.maximum(np.take_along_axis(cand, k[..., None], -1)[..., 0], 1e-300))   # 2|e_k|
    skew = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]], -1)
    sym = np.stack([R[..., 0, 1] + R[..., 1, 0], R[..., 0, 2] + R[..., 2, 0], R[..., 1, 2] + R[..., 2, 1]], -1)
    for case in range(4):
        sel = k == case
        if not np.any(sel):
            continue
        ss, sk, sy = s[sel], skew[sel], sym[sel]
        e = np.empty((len(ss), 4))
        if case == 0:
            e[:, 0] = 0.5 * ss
            e[:, 1:] = sk / (2 * ss[:, None])
        else:
            i = case - 1
            e[:, case] = 0.5 * ss
            e[:, 0] = sk[:, i] / (2 * ss)
            pairs = {0: ((1, 0), (2, 1)), 1: ((0, 0), (2, 2)), 2: ((0, 1), (1, 2))}[i]
            for other, col in pairs:
                e[:, other + 1] = sy[:, col] / (2 * ss)
        q[sel] = e
    return np.where(q[..., :1] < 0, -q, q)


def g_matrix(e):
    """TN eq. 36: G(p) (..., 3, 4), with ω' = 2 G ṗ and ṗ = ½ Gᵀ ω' (eq. 40)."""
    e0, e1, e2, e3 = (e[..., k] for k in range(4))
    return np.stack([np.stack([-e1, e0, e3, -e2], -1), np.stack([-e2, -e3, e0, e1], -1),
                     np.stack([-e3, e2, -e1, e0], -1)], -2)


def tn_angles(R):
    """(αx, αy, αz) with R = Rz(αz) Ry(αy) Rx(αx) (TN eq. 91)."""
    return rot.R_to_euler321(R)[..., ::-1]


def mooring_loads(x, R, v, w, line):
    """(tension, force on the body (GCS), moment about the CoG in the LCS) of an MBDM line
    (TN eqs. 80-88): d = r + A s' - anchor, f = k(l - l0) + b l̇, F = -(f/l) d."""
    s = R @ line.fairlead
    d = x + s - line.anchor
    ln = float(np.linalg.norm(d))
    u = d / ln
    ldot = float(u @ (v + np.cross(w, s)))
    f = line.stiffness * (ln - line.length) + line.damping * ldot
    F = -f * u
    return f, F, R.T @ np.cross(s, F)


class _File:
    """An output file written a whole step at a time (rollback truncates the last one)."""

    def __init__(self, path, header=None):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        self.path = path
        self.f = open(path, "w")
        self.pending = []
        self.marks = [0, 0]
        if header:
            self.f.write(header)
            self.f.flush()
        self.marks = [self.f.tell(), self.f.tell()]

    def write(self, text):
        self.pending.append(text)

    def commit(self):
        if self.pending:
            self.f.write("".join(self.pending))
            self.pending = []
            self.f.flush()
        self.marks = [self.marks[1], self.f.tell()]

    def rollback(self):
        self.f.truncate(self.marks[0])
        self.f.seek(self.marks[0])
        self.marks[1] = self.marks[0]

    def close(self):
        self.f.close()


def _row(values):
    return " ".join(f"{v + 0.0:.10e}" for v in values) + "\n"     # no "-0"


class MbdmWriter:
    """Observer writing MBDM's files for the MbdmInput `data` into `directory`."""

    def __init__(self, directory, data):
        self.directory = directory
        self.data = data
        self.case = data.header.name
        self.files = {}
        self.system = None
        self.angles = None          # ∫ω dt per body
        self.last = None            # (t, ω global) of the last step

    def _path(self, name):
        return os.path.join(self.directory, name)

    def start(self, system, model, method=None):
        self.system = system
        nodes = system.nodes
        h = self.data.header
        self.index = np.array([nodes.index(b.id) for b in self.data.bodies])
        self.angles = np.zeros((len(self.data.bodies), 3))
        if h.save_output > 0:
            for b in self.data.bodies:
                self.files[("body", b.id)] = _File(self._path(f"{self.case}_body_{b.id}.dat"), f"# {BODY_COLUMNS}\n")
                if self.data.parameters.get("Store A matrix"):
                    self.files[("A", b.id)] = _File(self._path(f"{self.case}_body_{b.id}_Amat.dat"),
                                                    "# t a11 a12 a13 a21 a22 a23 a31 a32 a33\n")
            for k, line in enumerate(self.data.moorings, 1):
                self.files[("mooring", k)] = _File(self._path(f"{self.case}_mooring_{k}.dat"),
                                                   f"# {line.name}: t tension Fx Fy Fz (GCS) Mx My Mz (LCS, about "
                                                   f"the CoG)\n")
            if self.data.parameters.get("Debug") and h.analysis == 1:
                self.files["debug"] = _File(self._path("DEBUG_state.dat"))
        if h.save_tracers > 0 and (self.data.tracers or self.data.moorings):
            self.files["tracers"] = _File(self._path(os.path.join("tracers", f"{self.case}_tracers.dat")),
                                          f'TITLE = "{self.case} tracers"\nVARIABLES = "X" "Y" "Z"\n')

    def log(self, text):
        pass

    def _accelerations(self, event, kin):
        a, wd = getattr(kin, "a", None), getattr(kin, "wd", None)
        if a is None or wd is None:
            a, wd = self.system.node_accelerations(event.state.yp, kin)
        return np.asarray(a), np.asarray(wd)

    def step(self, event):
        kin = event.kinematics
        if kin is None:
            return
        idx = self.index
        x, R, v, w = kin.x[idx], kin.R[idx], kin.v[idx], kin.w[idx]
        t = float(event.t)
        if self.last is not None:
            t0, w0 = self.last
            self.angles = self.angles + 0.5 * (t - t0) * (w0 + w)
        self.last = (t, w.copy())
        h = self.data.header
        if h.save_output > 0 and event.step % h.save_output == 0:
            a, wd = self._accelerations(event, kin)
            a, wd = a[idx], wd[idx]
            Rt = np.swapaxes(R, -1, -2)
            wl, wdl = rot.matvec(Rt, w), rot.matvec(Rt, wd)
            ang = tn_angles(R)
            for k, b in enumerate(self.data.bodies):
                self.files[("body", b.id)].write(_row(np.concatenate(
                    [[t], x[k], v[k], a[k], ang[k], wl[k], wdl[k], self.angles[k], w[k], wd[k]])))
                if ("A", b.id) in self.files:
                    self.files[("A", b.id)].write(_row(np.concatenate([[t], R[k].reshape(-1)])))
            for k, line in enumerate(self.data.moorings, 1):
                i = line.body - 1
                f, F, M = mooring_loads(x[i], R[i], v[i], w[i], line)
                self.files[("mooring", k)].write(_row(np.concatenate([[t, f], F, M])))
            if "debug" in self.files:
                e = euler_parameters(R)
                G = g_matrix(e)
                edot = 0.5 * np.einsum("nij,ni->nj", G, wl)
                eddot = 0.5 * np.einsum("nij,ni->nj", G, wdl) - 0.25 * np.sum(wl * wl, 1)[:, None] * e
                dbg = self.files["debug"]
                dbg.write(f"{t:.10e}\n")
                for pos, rot_part in ((x, e), (v, edot), (a, eddot)):
                    dbg.write(_row(np.concatenate([pos, rot_part], axis=1).reshape(-1)))
        if "tracers" in self.files and event.step % h.save_tracers == 0:
            self._tracers(t, x, R)

    def _tracers(self, t, x, R):
        out = self.files["tracers"]
        for g in self.data.tracers:
            i = g.body - 1
            pts = x[i] + g.points @ R[i].T
            if len(pts) == 8:
                out.write(f'ZONE T="group {g.id} (body {g.body})", I=2, J=2, K=2, DATAPACKING=POINT, '
                          f'SOLUTIONTIME={t:.10e}\n')
            else:
                out.write(f'ZONE T="group {g.id} (body {g.body})", I={len(pts)}, DATAPACKING=POINT, '
                          f'SOLUTIONTIME={t:.10e}\n')
            out.write("".join(_row(p) for p in pts))
        out.write(f'ZONE T="CoG", I={len(x)}, DATAPACKING=POINT, SOLUTIONTIME={t:.10e}\n')
        out.write("".join(_row(p) for p in x))
        for k, line in enumerate(self.data.moorings, 1):
            i = line.body - 1
            out.write(f'ZONE T="mooring {k}", I=2, DATAPACKING=POINT, SOLUTIONTIME={t:.10e}\n')
            out.write(_row(x[i] + R[i] @ line.fairlead) + _row(line.anchor))

    def commit_step(self):
        for f in self.files.values():
            f.commit()

    def discard_step(self):
        for f in self.files.values():
            f.pending = []

    def rollback_step(self):
        for f in self.files.values():
            f.rollback()

    def finish(self):
        for f in self.files.values():
            f.pending = []
            f.close()
