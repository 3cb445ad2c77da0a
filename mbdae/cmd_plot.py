"""`mbdae plot PREFIX --node N --what x|v|w|euler [--out FILE.png]`: node motion from an
MBDyn-style PREFIX.mov (written by `mbdae run` or by MBDyn) against time from PREFIX.out.
`mbdae plot PREFIX --hydro LABEL --what eta|restoring|radiation|excitation|drag|added-mass|
elevation`: a hydrodynamic body's time series from PREFIX.hyd; `mbdae plot PREFIX --rao LABEL
[--skip T]`: its response amplitude operators estimated from the run (see `estimate_rao`).

.mov rows (MBDyn input manual, structural node output): label, position (3), orientation
(3 columns: Euler angles in degrees or the rotation vector, as the node's `orientation
description`; 9 columns for an orientation matrix), velocity (3), angular velocity (3).
Block k of the .mov belongs to the k-th `Step` line of the .out whose last field is 1.
matplotlib is an optional dependency (`pip install 'mbdae[plot]'`)."""
import os
import sys

import numpy as np
from scipy.signal import csd, welch, coherence

from mbdae.engine.io.mbdyn.reference import whole_output
from mbdae.engine.errors import InputError
from mbdae.engine.core import rotations as rot

QUANTITIES = {
    "x": ("position", ["x", "y", "z"], "m"),
    "v": ("velocity", ["vx", "vy", "vz"], "m/s"),
    "w": ("angular velocity", ["ωx", "ωy", "ωz"], "rad/s"),
    "euler": ("orientation", ["φ1", "φ2", "φ3"], "deg"),
}


def node_series(prefix, node, what):
    """(t, values (n, 3), label note) of one node's quantity, read from PREFIX.mov/.out."""
    if what not in QUANTITIES:
        raise InputError(f"unknown quantity '{what}': choose one of {', '.join(QUANTITIES)}")
    for ext in ("mov", "out"):
        if not os.path.exists(f"{prefix}.{ext}"):
            raise FileNotFoundError(f"{prefix}.{ext} not found (run `mbdae run DECK -o {prefix}` first)")
    times, found, note = whole_output(prefix, ["mov"])     # the steps every file holds whole
    found = found["mov"]
    if note:
        print(f"mbdae: {note}", file=sys.stderr)
    if not found:
        raise InputError(f"{prefix}.mov has no node rows (was node output switched off, "
                         "e.g. by `default output: none`?)")
    rows = [(t, b[node]) for t, b in zip(times, found) if node in b]
    if not rows:
        labels = sorted(found[0]) if found else []
        raise InputError(f"node {node} is not in {prefix}.mov (nodes: {', '.join(map(str, labels))})")
    t = np.array([r[0] for r in rows])
    data = np.array([r[1] for r in rows])
    matrix = data.shape[1] == 18                      # orientation matrix: 9 columns
    off = 9 if matrix else 3
    note = ""
    if what == "x":
        values = data[:, 0:3]
    elif what == "v":
        values = data[:, 3 + off:6 + off]
    elif what == "w":
        values = data[:, 6 + off:9 + off]
    elif matrix:
        values = np.degrees(rot.R_to_euler123(data[:, 3:12].reshape(-1, 3, 3)))
        note = " (Euler 1-2-3 from the orientation matrix)"
    else:
        values = data[:, 3:6]
        note = "\n(.mov columns 5-7 as written: Euler angles in deg, or the rotation vector in rad)"
    return t, values, note


HYDRO_QUANTITIES = {          # .hyd columns after the label (elements/hydro_body.py)
    "eta": ("displacement η", slice(0, 6)),
    "restoring": ("restoring and buoyancy load", slice(6, 12)),
    "radiation": ("radiation load", slice(12, 18)),
    "excitation": ("wave excitation load", slice(18, 24)),
    "drag": ("drag load", slice(24, 30)),
    "added-mass": ("added-mass load −A∞ν̇", slice(30, 36)),
    "elevation": ("incident wave elevation at P", slice(36, 37)),
}
DOF_NAMES = ["surge", "sway", "heave", "roll", "pitch", "yaw"]


def hydro_series(prefix, label):
    """(t, rows (n, 37)) of hydrodynamic body `label` from PREFIX.hyd/.out."""
    for ext in ("hyd", "out"):
        if not os.path.exists(f"{prefix}.{ext}"):
            raise FileNotFoundError(f"{prefix}.{ext} not found (a run with a hydrodynamic body writes it)")
    times, found, note = whole_output(prefix, ["hyd"])
    if note:
        print(f"mbdae: {note}", file=sys.stderr)
    rows = [(t, b[label]) for t, b in zip(times, found["hyd"]) if label in b]
    if not rows:
        labels = sorted(found["hyd"][0]) if found["hyd"] else []
        raise InputError(f"hydrodynamic body {label} is not in {prefix}.hyd (bodies: {', '.join(map(str, labels))})")
    return np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


def estimate_rao(t, elevation, motion, skip=0.0, segment=None):
    """Response amplitude operators H(ω) = S_ζx(ω) / S_ζζ(ω) (the H1 estimator: Welch's
    averaged cross and auto spectra, half overlap) of the motions `motion` (n, m) to the
    incident wave elevation ζ at the body (n,), from t ≥ skip (leave out the transient),
    resampled on a uniform grid at the run's smallest output interval when the output steps
    are not uniform.  Segments of a quarter of the record (at least 256 samples) with Hann
    windows by default; `segment` (s): segments of that length with rectangular windows,
    which is exact at the components of a sea that repeats with that period (equally spaced
    frequencies, multiples of 2π/segment: every segment then holds whole periods, no leakage).
    Returns (ω, H (nω, m), coherence (nω, m)); frequencies where the sea has less than 1e-3 of
    its peak spectral density are left out (no input, no estimate).  In a regular wave only
    the wave's frequency survives."""
    keep = t >= skip
    t, elevation, motion = t[keep], elevation[keep], motion[keep]
    if len(t) < 16:
        raise InputError(f"only {len(t)} output steps after t = {skip:g}: too few to estimate a RAO")
    dt = float(np.min(np.diff(t)))
    if np.ptp(np.diff(t)) > 1e-6 * dt:
        grid = np.arange(t[0], t[-1] + 0.5 * dt, dt)
        elevation = np.interp(grid, t, elevation)
        motion = np.column_stack([np.interp(grid, t, c) for c in motion.T])
    n = len(elevation)
    if segment is None:
        opts = dict(fs=1.0 / dt, nperseg=min(n, max(256, n // 4)), window="hann")
    else:
        nperseg = int(round(segment / dt))
        if nperseg > n or nperseg < 8:
            raise InputError(f"a segment of {segment:g} s does not fit the {n * dt:g} s of output after t = {skip:g}")
        opts = dict(fs=1.0 / dt, nperseg=nperseg, window="boxcar")
    f, szz = welch(elevation, **opts)
    H = np.empty((len(f), motion.shape[1]), complex)
    coh = np.empty((len(f), motion.shape[1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        for j in range(motion.shape[1]):
            H[:, j] = csd(elevation, motion[:, j], **opts)[1] / np.where(szz > 0, szz, 1.0)
            coh[:, j] = np.nan_to_num(coherence(elevation, motion[:, j], **opts)[1])
    band = szz > 1e-3 * np.max(szz) if np.max(szz) > 0 else np.zeros(len(f), bool)
    if not band.any():
        raise InputError("the wave elevation at the body is zero: no RAO to estimate (a run without waves?)")
    return 2.0 * np.pi * f[band], H[band], coh[band]


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise InputError("`mbdae plot` needs matplotlib: pip install 'mbdae[plot]' "
                         "(or pip install matplotlib)") from e
    return plt


def make_hydro_figure(prefix, label, what):
    """One panel per component of a `.hyd` quantity of hydrodynamic body `label` against time."""
    if what not in HYDRO_QUANTITIES:
        raise InputError(f"unknown hydrodynamic quantity '{what}': choose one of {', '.join(HYDRO_QUANTITIES)}")
    t, rows = hydro_series(prefix, label)
    name, cols = HYDRO_QUANTITIES[what]
    values = rows[:, cols]
    plt = _pyplot()
    n = values.shape[1]
    fig, axes = plt.subplots(n, 1, sharex=True, figsize=(7, 1.4 * n + 1.2), squeeze=False)
    axes = axes[:, 0]
    units = ["m"] * 3 + ["rad"] * 3 if what == "eta" else (["m"] if what == "elevation" else ["N"] * 3 + ["N m"] * 3)
    comps = ["ζ"] if what == "elevation" else DOF_NAMES
    for k, ax in enumerate(axes):
        ax.plot(t, values[:, k])
        ax.set_ylabel(f"{comps[k]} [{units[k]}]", fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[0].set_title(f"{os.path.basename(prefix)}: {name}, hydrodynamic body {label}", fontsize=9)
    axes[-1].set_xlabel("time [s]")
    fig.tight_layout()
    return fig


def make_rao_figure(prefix, label, skip=0.0, segment=None):
    """|H(ω)| and its phase for the six motions of hydrodynamic body `label` (estimate_rao
    on PREFIX.hyd's η and wave elevation columns)."""
    t, rows = hydro_series(prefix, label)
    omega, H, coh = estimate_rao(t, rows[:, 36], rows[:, 0:6], skip, segment)
    plt = _pyplot()
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
    marker = "o" if len(omega) < 8 else None
    for j, name in enumerate(DOF_NAMES):
        if np.max(np.abs(H[:, j])) == 0.0:
            continue
        unit = "m/m" if j < 3 else "rad/m"
        a1.plot(omega, np.abs(H[:, j]), marker=marker, label=f"{name} [{unit}]")
        a2.plot(omega, np.degrees(np.angle(H[:, j])), marker=marker, label=name)
    a1.set_ylabel("|RAO|")
    a2.set_ylabel("phase to the wave at P [deg]")
    a2.set_xlabel("ω [rad/s]")
    for ax in (a1, a2):
        ax.grid(True, alpha=0.3)
    a1.legend(fontsize=8)
    a1.set_title(f"{os.path.basename(prefix)}: RAOs of hydrodynamic body {label} from the run (t ≥ {skip:g} s)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def make_figure(prefix, nodes, what):
    """A matplotlib figure with one panel per component and one line per node (the files and
    the nodes are checked first, so their errors do not wait for matplotlib)."""
    series = [node_series(prefix, node, what) for node in nodes]
    plt = _pyplot()
    name, components, unit = QUANTITIES[what]
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 7))
    for node, (t, values, note) in zip(nodes, series):
        for k, ax in enumerate(axes):
            ax.plot(t, values[:, k], label=f"node {node}")
    scale = max(max((np.max(np.abs(l.get_ydata())) for ax in axes for l in ax.lines), default=0.0), 1e-300)
    for ax in axes:                     # a component that stays put (to rounding) is drawn flat
        y = np.concatenate([l.get_ydata() for l in ax.lines])
        if np.ptp(y) < 1e-9 * scale:
            ax.set_ylim(np.mean(y) - 1e-3 * scale, np.mean(y) + 1e-3 * scale)
    for ax, comp in zip(axes, components):
        ax.set_ylabel(f"{comp} [{'deg or rad' if 'as written' in note else unit}]")
        ax.grid(True, alpha=0.3)
    axes[0].set_title(f"{os.path.basename(prefix)}: {name} of node {', '.join(map(str, nodes))}{note}", fontsize=9)
    axes[-1].set_xlabel("time [s]")
    if len(nodes) > 1:
        axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def add_arguments(p):
    p.add_argument("prefix", help="output prefix of a run (reads PREFIX.mov, PREFIX.hyd and PREFIX.out)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--node", type=int, nargs="+", help="node label(s): their motion")
    which.add_argument("--hydro", type=int, metavar="LABEL", help="a hydrodynamic body: its .hyd time series")
    which.add_argument("--rao", type=int, metavar="LABEL",
                       help="a hydrodynamic body: its RAOs estimated from the run (cross spectra of η and ζ)")
    p.add_argument("--what", help=f"with --node: {', '.join(QUANTITIES)} (default x); with --hydro: "
                                  f"{', '.join(HYDRO_QUANTITIES)} (default eta)")
    p.add_argument("--skip", type=float, default=0.0, help="with --rao: leave out t < SKIP (the transient)")
    p.add_argument("--segment", type=float, help="with --rao: Welch segments of SEGMENT s, rectangular windows "
                                                 "(exact for a sea repeating with that period)")
    p.add_argument("--out", help="PNG file (default: PREFIX.<what>.node<N>.png, PREFIX.<what>.hyd<L>.png, "
                                 "PREFIX.rao<L>.png)")


def command(args):
    if args.rao is not None:
        out = args.out or f"{args.prefix}.rao{args.rao}.png"
        fig = make_rao_figure(args.prefix, args.rao, args.skip, args.segment)
    elif args.hydro is not None:
        what = args.what or "eta"
        out = args.out or f"{args.prefix}.{what}.hyd{args.hydro}.png"
        fig = make_hydro_figure(args.prefix, args.hydro, what)
    else:
        what = args.what or "x"
        if what not in QUANTITIES:
            raise InputError(f"unknown quantity '{what}': choose one of {', '.join(QUANTITIES)}")
        out = args.out or f"{args.prefix}.{what}.node{'-'.join(map(str, args.node))}.png"
        fig = make_figure(args.prefix, args.node, what)
    fig.savefig(out, dpi=100)
    import matplotlib.pyplot as plt
    plt.close(fig)
    print(f"mbdae: wrote {out}")
    return 0
