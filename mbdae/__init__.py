"""mbdae: an MBDyn-style implicit DAE multibody engine; the public API (README, "Using it
from Python"): Model, run, read_deck, the drivers, drives, laws and settings re-exported
here.  E.g. run(read_deck("case.mbd"), output_prefix="out/case")."""
from mbdae.engine.model import Model
from mbdae.engine.io.mbdyn.deck import read_deck, parse_deck, Deck, DeckError
from mbdae.engine.io.mbdyn.output import MBDynWriter
from mbdae.engine.drivers.ivp import InitialValueProblem, Settings, Results, SimulationFailed
from mbdae.engine.drivers.static import StaticProblem, solve_static
from mbdae.engine.drivers.inverse import InverseDynamicsProblem
from mbdae.engine.drivers.kinematic import KinematicAnalysis, NotFullyDriven, OverConstrained
from mbdae.engine.drivers.eigen import EigenSettings, analyze
from mbdae.engine.core import drives, constitutive as laws
from mbdae.engine.core.tpldrive import VectorDrive
from mbdae.engine.diagnose import diagnose, Diagnosis
from mbdae.api import initial_value_problem, inverse_dynamics_problem, kinematic_analysis, run

__all__ = ["Model", "read_deck", "parse_deck", "Deck", "DeckError", "MBDynWriter", "InitialValueProblem",
           "Settings", "Results", "SimulationFailed", "StaticProblem", "solve_static",
           "InverseDynamicsProblem", "KinematicAnalysis", "NotFullyDriven", "OverConstrained",
           "EigenSettings", "analyze", "drives", "laws", "VectorDrive", "initial_value_problem",
           "inverse_dynamics_problem", "kinematic_analysis", "run", "diagnose", "Diagnosis"]
