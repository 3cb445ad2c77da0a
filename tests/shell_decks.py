"""Deck texts of the shell tests (tests/test_shell.py), shared with the script that produced
the MBDyn 1.7.3 reference numbers the tests hold: each function returns the same text for
the same arguments, and the numbers were obtained with
`/opt/mbdyn/bin/mbdyn -f DECK -o OUT` on exactly that text."""
import numpy as np

# the MacNeal-Harder patch: a 0.24 × 0.12 rectangle cut into 5 irregular quadrilaterals
PATCH_XY = {1: (0.0, 0.0), 2: (0.24, 0.0), 3: (0.24, 0.12), 4: (0.0, 0.12),
            5: (0.04, 0.02), 6: (0.18, 0.03), 7: (0.16, 0.08), 8: (0.08, 0.08)}
PATCH_QUADS = [(6, 5, 1, 2), (7, 6, 2, 3), (8, 7, 3, 4), (5, 8, 4, 1), (7, 8, 5, 6)]
PATCH_E, PATCH_NU, PATCH_H = 1e6, 0.25, 0.001


def _head(nodes, joints, plates, forces, tolerance, steps=1):
    return ["begin: data;", "    problem: initial value;", "end: data;",
            "begin: initial value;", "    initial time: 0.;", "    final time: 1.;",
            f"    time step: {1.0 / steps!r};", "    method: implicit euler;",
            f"    tolerance: {tolerance!r};", "    max iterations: 50;", "end: initial value;",
            "begin: control data;", f"    structural nodes: {nodes};", f"    joints: {joints};",
            f"    plates: {plates};", f"    forces: {forces};", "    output precision: 16;", "end: control data;"]


def cantilever_deck(kind, nx=4, L=1.0, b=0.2, h=0.02, E=1e6, nu=0.3, P=0.044, steps=4):
    """nx×1 cantilever plate along x (nodes 1..nx+1 at y = 0, nx+2.. at y = b), clamped at
    x = 0, tip force P along z ramped with the time, split on the two tip nodes."""
    lines = _head(2 * (nx + 1), 2, nx, 2, 1e-10, steps) + ["begin: nodes;"]
    lab = lambda i, j: 1 + i + (nx + 1) * j          # noqa: E731
    for j in range(2):
        for i in range(nx + 1):
            lines.append(f"    structural: {lab(i, j)}, static, {i * L / nx!r}, {j * b!r}, 0., eye, null, null;")
    lines += ["end: nodes;", "begin: elements;",
              f"    joint: 1, clamp, {lab(0, 0)}, node, node;", f"    joint: 2, clamp, {lab(0, 1)}, node, node;"]
    for i in range(nx):
        n = (lab(i + 1, 1), lab(i, 1), lab(i, 0), lab(i + 1, 0))
        lines.append(f"    {kind}: {i + 1}, {', '.join(map(str, n))}, isotropic, E, {E!r}, nu, {nu!r}, thickness, {h!r};")
    for k, j in enumerate((0, 1), start=1):
        lines.append(f"    force: {k}, absolute, {lab(nx, j)}, position, null, 0., 0., 1., mult, time, const, {P / 2!r};")
    return "\n".join(lines + ["end: elements;"]) + "\n"


def patch_membrane_loads(s):
    """Nodal loads of the uniform membrane state εxx = εyy = γxy = s on the patch boundary
    (each edge's uniform traction, half to each end)."""
    C = PATCH_E * PATCH_H / (1 - PATCH_NU ** 2)
    G = PATCH_E / (2 * (1 + PATCH_NU)) * PATCH_H
    Nxx = Nyy = C * (1 + PATCH_NU) * s
    Nxy = G * s
    F = {k: np.zeros(3) for k in (1, 2, 3, 4)}
    for n1, n2, t, L in ((1, 2, (-Nxy, -Nyy), 0.24), (2, 3, (Nxx, Nxy), 0.12), (3, 4, (Nxy, Nyy), 0.24),
                         (4, 1, (-Nxx, -Nxy), 0.12)):
        for n in (n1, n2):
            F[n][:2] += np.array(t) * L / 2
    return F


def patch_bending_couples(s):
    """Nodal couples of the uniform curvature of w = s (x²/2 + xy/2 + y²/2) with θx = w,y,
    θy = -w,x (zero transverse shear): moment vectors m₁ (x faces), m₂ (y faces) of MBDyn's
    isotropic law, each edge's couple half to each end."""
    Db = PATCH_E * PATCH_H ** 3 / (12 * (1 - PATCH_NU ** 2))
    F = PATCH_E / (2 * (1 + PATCH_NU)) * PATCH_H ** 3 / 12
    m1 = np.array([F * s, -Db * (1 + PATCH_NU) * s, 0.0])
    m2 = np.array([Db * (1 + PATCH_NU) * s, -F * s, 0.0])
    C = {k: np.zeros(3) for k in (1, 2, 3, 4)}
    for n1, n2, c, L in ((1, 2, -m2, 0.24), (2, 3, m1, 0.12), (3, 4, m2, 0.24), (4, 1, -m1, 0.12)):
        for n in (n1, n2):
            C[n] += c * L / 2
    return C


def patch_deck(kind, loads, couples):
    """The patch, node 1 clamped, static nodal forces and couples (node: vector) ramped with
    the time, one step."""
    lines = _head(8, 1, 5, len(loads) + len(couples), 1e-10) + ["begin: nodes;"]
    for k, (x, y) in PATCH_XY.items():
        lines.append(f"    structural: {k}, static, {x!r}, {y!r}, 0., eye, null, null;")
    lines += ["end: nodes;", "begin: elements;", "    joint: 1, clamp, 1, node, node;"]
    for e, q in enumerate(PATCH_QUADS, 1):
        lines.append(f"    {kind}: {e}, {', '.join(map(str, q))}, isotropic, E, {PATCH_E!r}, nu, {PATCH_NU!r}, "
                     f"thickness, {PATCH_H!r};")
    label = 1
    for what, table in (("force", loads), ("couple", couples)):
        for n, f in table.items():
            mag = float(np.linalg.norm(f))
            d = [float(c) / mag for c in f]
            pos = "position, null, " if what == "force" else ""
            lines.append(f"    {what}: {label}, absolute, {n}, {pos}{d[0]!r}, {d[1]!r}, {d[2]!r}, mult, time, const, "
                         f"{mag!r};")
            label += 1
    return "\n".join(lines + ["end: elements;"]) + "\n"


def membrane_patch_deck(kind, s=1e-5):
    return patch_deck(kind, {k: v for k, v in patch_membrane_loads(s).items() if k != 1}, {})


def bending_patch_deck(kind, s=1e-3):
    return patch_deck(kind, {}, {k: v for k, v in patch_bending_couples(s).items() if k != 1})
