"""An independent, textbook discretization of the planar rigid pendulum as an index-3 DAE in
Cartesian coordinates, for checking that mbdae's errors on constrained problems are the
methods' own (issue 13): q = (x, y, θ), M q̈ = f - Φ_qᵀλ, Φ(q) = (x - L cos θ, y - L sin θ),
released from horizontal at rest.  Nothing here comes from the engine except the method
coefficients (Butcher tableaux and multistep coefficients, themselves checked against the
published values in test_integrator_properties.py).

* `runge_kutta(tableau, h)`: the explicit-first-stage, stiffly accurate form every mbdae
  multistage method has: stage s solves M V̇_s = f - Φ_q(Q_s)ᵀλ_s, Φ(Q_s) = 0 with
  Q_s = q_{n-1} + h Σ_j a_sj V_j, V_s = v_{n-1} + h Σ_j a_sj V̇_j, stage 0 = the previous
  step's end point.
* `multistep(coefficients, h)`: y_n = Σ a_k y_{n-k} + b_0 ẏ_n + Σ b_k ẏ_{n-k} for (q, v), the
  multipliers solved at t_n only.
Each implicit equation is solved by Newton with the exact Jacobian to 1e-14."""
import numpy as np

L, MASS, J, G, T_END = 1.0, 1.0, 0.01, 9.81, 1.6
M_DIAG = np.array([MASS, MASS, J])
F_EXT = np.array([0.0, -MASS * G, 0.0])


def phi(q):
    return np.array([q[0] - L * np.cos(q[2]), q[1] - L * np.sin(q[2])])


def phi_q(q):
    return np.array([[1.0, 0.0, L * np.sin(q[2])], [0.0, 1.0, -L * np.cos(q[2])]])


def consistent_start():
    """q, v, λ and v̇ at t = 0 (horizontal, at rest): Φ_q v̇ = -(Φ_q v)_q v = 0 at rest."""
    q, v = np.array([L, 0.0, 0.0]), np.zeros(3)
    A = phi_q(q)
    lam = np.linalg.solve(A @ (A.T / M_DIAG[:, None]), A @ (F_EXT / M_DIAG))
    return q, v, lam, (F_EXT - A.T @ lam) / M_DIAG


def solve_implicit(qb, vb, c, guess):
    """V̇, λ with Q = qb + c (vb + c V̇): M V̇ - f + Φ_q(Q)ᵀλ = 0, Φ(Q)/c² = 0 (c = b_0 or γh)."""
    z = np.array(guess, float)
    for _ in range(50):
        vd, lam = z[:3], z[3:]
        Q = qb + c * (vb + c * vd)
        A = phi_q(Q)
        r = np.concatenate([M_DIAG * vd - F_EXT + A.T @ lam, phi(Q) / c ** 2])
        if np.max(np.abs(r)) < 1e-14 * (1 + np.max(np.abs(z))):
            break
        K = np.zeros((5, 5))
        K[:3, :3] = np.diag(M_DIAG)
        K[2, 2] += c * c * L * (np.cos(Q[2]) * lam[0] + np.sin(Q[2]) * lam[1])
        K[:3, 3:] = A.T
        K[3:, :3] = A
        z = z - np.linalg.solve(K, r)
    vd, lam = z[:3], z[3:]
    return vd, lam, qb + c * (vb + c * vd), vb + c * vd


def runge_kutta(tableau, h, T=T_END):
    a, b, c = tableau
    q, v, lam, vd = consistent_start()
    for _ in range(int(round(T / h))):
        Qd, Vd, lams = [v], [vd], [lam]
        for s in range(1, len(c)):
            qb = q + h * sum(a[s, j] * Qd[j] for j in range(s))
            vb = v + h * sum(a[s, j] * Vd[j] for j in range(s))
            vd_s, lam_s, Q, V = solve_implicit(qb, vb, a[s, s] * h, np.concatenate([Vd[-1], lams[-1]]))
            Qd.append(V)
            Vd.append(vd_s)
            lams.append(lam_s)
        q, v, lam, vd = Q, V, lams[-1], Vd[-1]          # stiffly accurate: the last stage is the step
    return q, v, lam


def multistep(coefficients, h, T=T_END):
    """coefficients(k) -> (a (K,), b0, b (K,)) for step k (k = 0 first)."""
    q, v, lam, vd = consistent_start()
    hist = [(q, v, vd)]
    for k in range(int(round(T / h))):
        a, b0, b = coefficients(k)
        K = len(a)
        qb = sum(a[j] * hist[-1 - j][0] + b[j] * hist[-1 - j][1] for j in range(K))
        vb = sum(a[j] * hist[-1 - j][1] + b[j] * hist[-1 - j][2] for j in range(K))
        vd, lam, q, v = solve_implicit(qb, vb, b0, np.concatenate([hist[-1][2], lam]))
        hist.append((q, v, vd))
    return q, v, lam


def errors(q, v, lam, reference):
    """Max-norm errors of the node position (x, y), its velocity and the pin force on the body
    (= -λ: M q̈ = f - Φ_qᵀλ with Φ = position of the node minus the pin's point)."""
    return (np.max(np.abs(q[:2] - reference["positions"])), np.max(np.abs(v[:2] - reference["velocities"])),
            np.max(np.abs(-lam - reference["multipliers"])))
