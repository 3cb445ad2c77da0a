"""`mbdae plot PREFIX --node N --what x|v|w|euler [--out FILE.png]`: node motion from an
MBDyn-style PREFIX.mov (written by `mbdae run` or by MBDyn) against time from PREFIX.out.

.mov rows (MBDyn input manual, structural node output): label, position (3), orientation
(3 columns: Euler angles in degrees or the rotation vector, as the node's `orientation
description`; 9 columns for an orientation matrix), velocity (3), angular velocity (3).
Block k of the .mov belongs to the k-th `Step` line of the .out whose last field is 1.
matplotlib is an optional dependency (`pip install 'mbdae[plot]'`)."""
import os
import sys

import numpy as np

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


def make_figure(prefix, nodes, what):
    """A matplotlib figure with one panel per component and one line per node (the files and
    the nodes are checked first, so their errors do not wait for matplotlib)."""
    series = [node_series(prefix, node, what) for node in nodes]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise InputError("`mbdae plot` needs matplotlib: pip install 'mbdae[plot]' "
                           "(or pip install matplotlib)") from e
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
    p.add_argument("prefix", help="output prefix of a run (reads PREFIX.mov and PREFIX.out)")
    p.add_argument("--node", type=int, nargs="+", required=True, help="node label(s)")
    p.add_argument("--what", choices=list(QUANTITIES), default="x",
                   help="x: position, v: velocity, w: angular velocity, euler: orientation (default x)")
    p.add_argument("--out", help="PNG file (default: PREFIX.<what>.node<N>.png)")


def command(args):
    out = args.out or f"{args.prefix}.{args.what}.node{'-'.join(map(str, args.node))}.png"
    fig = make_figure(args.prefix, args.node, args.what)
    fig.savefig(out, dpi=100)
    import matplotlib.pyplot as plt
    plt.close(fig)
    print(f"mbdae: wrote {out}")
    return 0
