"""Implicit integrators, each a class with its coefficients and its own `step`
(spec/integrators.md): base (protocol, Crank-Nicolson, implicit Euler), multistep,
multistage and two-point methods; `make_method` by MBDyn keyword."""
from mbdae.solvers.integrators.base import Coefficients, Method, CrankNicolson, ImplicitEuler
from mbdae.solvers.kernels import hermite_derivative
from mbdae.solvers.integrators.multistep import (MultistepMS, Hope, MultistepMS3, MultistepMS4,
                                                 SingleStepSS)
from mbdae.solvers.integrators.multistage import (Multistage, runge_kutta_order, msst_weights, CompositeMSST,
                                                  mssth_coefficients, mssth_parameters, msstc_parameters,
                                                  MSSTH_GAMMA_BOUNDS, ESDIRK, esdirk43_kennedy_carpenter,
                                                  esdirk32_kennedy_carpenter, esdirk3_5stage_kennedy_carpenter)
from mbdae.solvers.integrators.twopoint import TwoPointParameters, ThirdOrder

__all__ = ["Coefficients", "hermite_derivative", "Method", "CrankNicolson", "ImplicitEuler", "MultistepMS",
           "Hope", "MultistepMS3", "MultistepMS4", "SingleStepSS", "Multistage", "runge_kutta_order",
           "msst_weights", "CompositeMSST", "mssth_coefficients", "mssth_parameters", "msstc_parameters",
           "MSSTH_GAMMA_BOUNDS", "ESDIRK", "esdirk43_kennedy_carpenter", "esdirk32_kennedy_carpenter",
           "esdirk3_5stage_kennedy_carpenter", "TwoPointParameters", "ThirdOrder", "METHOD_NAMES", "FIXED_RHO",
           "POSITIVE_RHO", "make_method"]

METHOD_NAMES = ("crank nicolson", "implicit euler", "ms", "bdf", "hope", "ms3", "ms4", "ss2", "ss3", "ss4",
                "bathe", "msstc3", "msstc4", "msstc5", "mssth3", "mssth4", "mssth5", "dirk33", "dirk43",
                "dirk54", "thirdorder", "thirdorder ad hoc")
"""Every method make_method knows (MBDyn keywords; aliases aside)."""

FIXED_RHO = {"crank nicolson": 1.0, "implicit euler": 0.0, "bdf": 0.0, "dirk33": 0.0, "dirk43": 0.0,
             "dirk54": 0.0, "thirdorder ad hoc": 0.0}
"""Methods whose ρ∞ is fixed (no ρ∞ argument in MBDyn)."""

POSITIVE_RHO = ("thirdorder",)
"""Methods whose ρ∞ must be > 0 (thirdorder: ρ∞ = 0 is its ad hoc variant's business)."""


def make_method(name="ms", rho=None):
    """Method by MBDyn keyword (METHOD_NAMES): crank nicolson, implicit euler, ms (ms2), bdf,
    hope, ms3, ms4, ss2, ss3, ss4, bathe, msstc3/4/5, mssth3/4/5, dirk33, dirk43, dirk54,
    thirdorder (ρ∞ in (0, 1]), thirdorder ad hoc;
    `rho` is ρ∞ (ignored by the methods of FIXED_RHO)."""
    key = " ".join(name.lower().replace("-", " ").split())
    r = 0.0 if rho is None else rho
    if key in ("ss2", "ss3", "ss4"):
        return SingleStepSS(int(key[2]), r)
    if key == "dirk33":
        return esdirk32_kennedy_carpenter()
    if key == "dirk43":
        return esdirk3_5stage_kennedy_carpenter()
    if key in ("thirdorder ad hoc", "thirdorder, ad hoc", "third order ad hoc", "thirdorder adhoc"):
        return ThirdOrder(ad_hoc=True)
    if key in ("thirdorder", "third order", "tunable third order"):
        if rho is None:
            raise ValueError("thirdorder needs a spectral radius ρ∞ in (0, 1] or the 'ad hoc' variant "
                             "('thirdorder ad hoc'), as MBDyn's `method: thirdorder, {rho | ad hoc}`")
        return ThirdOrder(rho)
    if key == "ms3":
        return MultistepMS3(r)
    if key == "ms4":
        return MultistepMS4(r)
    if key == "dirk54":
        return esdirk43_kennedy_carpenter()
    if key == "bathe":
        return CompositeMSST(2, r, "msstc")
    for fam in ("msstc", "mssth"):
        if key.startswith(fam) and key[len(fam):] in ("3", "4", "5"):
            return CompositeMSST(int(key[len(fam):]), r, fam)
    if key in ("crank nicolson", "crank nicholson", "cn", "trapezoidal"):
        return CrankNicolson()
    if key in ("implicit euler", "euler", "bdf1"):
        return ImplicitEuler()
    if key in ("ms", "ms2", "nostro"):
        return MultistepMS(0.0 if rho is None else rho, "ms")
    if key == "bdf":
        return MultistepMS(0.0, "bdf")
    if key == "hope":
        return Hope(0.0 if rho is None else rho)
    raise ValueError(f"integration method '{name}' is not available ({', '.join(METHOD_NAMES)})")
