"""Constitutive laws (manual §7.1, input manual §2.10): values against their defining
formulas and both tangents against central finite differences."""
import numpy as np
import pytest

from mbdae.engine.core import constitutive as cl
from mbdae.engine.core.drives import LinearDrive, SineDrive
from mbdae.engine.core.tpldrive import VectorDrive


def _laws(dim, rng):
    K = rng.normal(size=(dim, dim))
    C = rng.normal(size=(dim, dim))
    return [
        cl.linear_elastic(dim, 3.0),
        cl.linear_elastic(dim, K @ K.T, prestrain=rng.normal(size=dim), prestress=rng.normal(size=dim)),
        cl.linear_viscous(dim, C @ C.T),
        cl.linear_viscoelastic(dim, K @ K.T, proportional=0.05),
        cl.linear_viscoelastic(dim, np.arange(1.0, dim + 1), C, stiffness_scale=LinearDrive(1.0, 0.5),
                               viscosity_scale=SineDrive(0.0, 2.0, 0.3, "forever", 1.0)),
        cl.cubic_elastic(dim, np.arange(1.0, dim + 1), 0.7, 2.0, prestrain=0.1),
        cl.scaled(cl.cubic_elastic(dim, 1.0, -0.3, 0.5), LinearDrive(0.5, 1.0)),
    ]


@pytest.mark.parametrize("dim", [1, 3, 6])
def test_tangents_match_finite_differences(dim):
    rng = np.random.default_rng(dim)
    laws = _laws(dim, rng)
    L = cl.Laws(laws)
    n = len(laws)
    e, ed, t = rng.normal(size=(n, dim)), rng.normal(size=(n, dim)), 0.7
    f, A, B = L.evaluate(e, ed, t)
    h = 1e-6
    for k in range(dim):
        d = np.zeros(dim)
        d[k] = h
        fa = (L.evaluate(e + d, ed, t)[0] - L.evaluate(e - d, ed, t)[0]) / (2 * h)
        fb = (L.evaluate(e, ed + d, t)[0] - L.evaluate(e, ed - d, t)[0]) / (2 * h)
        assert np.allclose(A[:, :, k], fa, atol=1e-6 * (1 + np.abs(fa).max()))
        assert np.allclose(B[:, :, k], fb, atol=1e-6 * (1 + np.abs(fb).max()))
    # vectorized evaluation equals one-by-one evaluation
    for i, law in enumerate(laws):
        fi, Ai, Bi = law.evaluate(e[i], ed[i], t)
        assert np.allclose(fi, f[i]) and np.allclose(Ai, A[i]) and np.allclose(Bi, B[i])


def test_defining_formulas():
    e, ed = np.array([0.3, -0.2, 0.1]), np.array([1.0, 2.0, -1.0])
    f, A, B = cl.cubic_elastic(3, [1.0, 2.0, 3.0], 0.5, 0.2, prestrain=[0.1, 0.0, 0.0]).evaluate(e, 0 * ed, 0.0)
    x = e - [0.1, 0, 0]
    assert np.allclose(f, [1, 2, 3] * x + 0.5 * np.abs(x) * x + 0.2 * x ** 3)
    f, A, B = cl.linear_viscoelastic(3, [1.0, 2.0, 3.0], proportional=0.1, prestress=[0, 0, 5.0]).evaluate(e, ed, 0.0)
    assert np.allclose(f, [1, 2, 3] * e + 0.1 * np.array([1, 2, 3]) * ed + [0, 0, 5])
    # drive-scaled: f = w(t) law, a time-variant stiffness
    w = LinearDrive(0.0, 2.0)
    f = cl.scaled(cl.linear_elastic(3, 4.0), w).evaluate(e, ed, 1.5)[0]
    assert np.allclose(f, 3.0 * 4.0 * e)
    f = cl.linear_viscoelastic(3, 4.0, 1.0, stiffness_scale=w).evaluate(e, ed, 0.25)[0]
    assert np.allclose(f, 0.5 * 4.0 * e + ed)
    # prestrain from a vector drive
    law = cl.linear_elastic(3, 2.0, prestrain=VectorDrive.single([1.0, 0, 0], LinearDrive(0.0, 1.0)))
    assert np.allclose(law.evaluate(np.zeros(3), np.zeros(3), 0.5)[0], [-1.0, 0, 0])


def test_isotropic_beam_section():
    E, nu, A, J, Iy, Iz = 70e9, 0.3, 1e-4, 2e-9, 1e-9, 1e-9
    law = cl.isotropic_beam_section(E, A, J, Iy, Iz, nu=nu, shear_factor=(5 / 6, 5 / 6))
    G = E / 2.6
    assert np.allclose(np.diag(law.K), [E * A, 5 / 6 * G * A, 5 / 6 * G * A, G * J, E * Iy, E * Iz])
    assert law.dim == 6 and not law.viscous


def test_bad_input():
    with pytest.raises(ValueError):
        cl.linear_elastic(6, np.eye(3))
    with pytest.raises(ValueError):
        cl.linear_viscoelastic(3, 1.0)
    with pytest.raises(ValueError):
        cl.Laws([cl.linear_elastic(3, 1.0), cl.linear_elastic(6, 1.0)])
    with pytest.raises(ValueError):
        cl.linear_elastic(6, 1.0, prestrain=[1.0, 2.0, 3.0])
