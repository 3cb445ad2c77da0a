"""The gas force on the slider of MBDM's dynamic slider-crank (TN §10.3, eq. 94 with the
sign of the code, Listing 5; digest §1.4 E3, erratum 8): along x while the slider moves
outward (ẋ3 > 0), zero otherwise.  mbdae calls it with the slider's position and velocity
(arrays of shape (n, 3)) and takes the force and its derivatives (see `.expert.loads`)."""
import numpy as np


def gas_force(t, x, v):
    xs = x[:, 0]
    first = (xs >= 1.5) & (xs <= 5.0)
    second = (xs > 5.0) & (xs <= 5.6)
    f = np.where(first, -282857.0 / (6.0 - xs) + 62857.0,
                 np.where(second, -1.1e5 * (1.0 - np.sin(2 * np.pi * (xs - 5.25))), 0.0))
    df = np.where(first, -282857.0 / (6.0 - xs) ** 2,
                  np.where(second, 1.1e5 * 2 * np.pi * np.cos(2 * np.pi * (xs - 5.25)), 0.0))
    on = v[:, 0] > 0.0
    F = np.zeros_like(x)
    dF = np.zeros(x.shape + (3,))
    F[:, 0] = np.where(on, f, 0.0)
    dF[:, 0, 0] = np.where(on, df, 0.0)
    return F, dF, np.zeros_like(dF)
