"""The PETSc linear back end (solvers/petsc.py, optional extra mbdae[petsc]): every direct
package and the Krylov methods give the results of mbdae's own KLU on the same models (the
chain and beam benchmarks, a solid, a shell, an inverse-dynamics deck), with the same Newton
iteration counts; transposed solves; failures and bad names are one clear error."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from mbdae.engine.drivers.ivp import InitialValueProblem
from mbdae.engine.io.mbdyn.deck import DeckError, parse_deck, read_deck
from mbdae.engine.io.mbdyn.reference import blocks, read_lines
from mbdae.solvers.linear import SingularMatrix, available_linear_solvers, make_linear_solver
from mbdae.solvers.petsc import PETScSettings, petsc_available

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "benchmarks"))
from beam import cantilever_model   # noqa: E402
from chain import chain_model   # noqa: E402
from solid_dynamic import cube_model   # noqa: E402
from shell_decks import dynamic_cantilever_deck   # noqa: E402

pytestmark = pytest.mark.skipif(not petsc_available(), reason="petsc4py not installed: the optional extra "
                                "mbdae[petsc] (README, Dependencies) runs these tests")
DIRECT = ["petsc-klu", "petsc-umfpack", "petsc-mumps", "petsc-superlu"]
INVDYN = os.path.join(HERE, "..", "..", "shared", "mbdyn-tests", "invdyn", "invdyn")



def clean_environment():
    """This process's environment as Python saw it at start-up: MPI's initialization in this
    process (petsc4py) adds variables at C level that would make a child's mpiexec fail."""
    return dict(os.environ)


def run_model(model, linear_solver, **kw):
    p = InitialValueProblem(model, linear_solver=linear_solver, keep_results=False, **kw)
    p.run()
    return p.system.kinematics(p.state).x.copy(), p.newton.total_iterations, p.newton.linear


def model_size(x):
    return float(np.ptp(x, axis=0).max())


CASES = {
    # a pinned chain of 8 links released under gravity, 50 steps
    "chain": (lambda: chain_model(8), dict(final_time=0.05, time_step=1e-3, method="ms", rho=0.6,
                                           tolerance=1e-10, test="norm")),
    # the beam3 cantilever of 6 elements under its tip force, 40 steps
    "beam": (lambda: cantilever_model(6), dict(final_time=0.04, time_step=1e-3, method="ms", rho=0.6,
                                               tolerance=1e-8, test="relnorm")),
    # a clamped cube of 2³ hexahedron20 under gravity (momenta condensed before the solve)
    "solid": (lambda: cube_model(2)[0], dict(final_time=5e-4, time_step=1e-4, method="ms", rho=0.6,
                                             tolerance=1e-6, test="relnorm")),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("backend", DIRECT)
def test_direct_backends_give_klus_results(case, backend):
    make, kw = CASES[case]
    x_ref, it_ref, _ = run_model(make(), "klu", **kw)
    x, it, linear = run_model(make(), backend, **kw)
    assert linear.name == backend
    assert it == it_ref
    assert np.abs(x - x_ref).max() <= 1e-10 * model_size(x_ref)


@pytest.mark.parametrize("backend", ["fgmres", "gmres"])
def test_krylov_backends_on_the_solid(backend):
    """Krylov methods (ILU(2) preconditioner) on a continuum: the same iterates as the direct
    solver to the Krylov tolerance, the same Newton iteration count."""
    make, kw = CASES["solid"]
    x_ref, it_ref, _ = run_model(make(), "klu", **kw)
    x, it, linear = run_model(make(), PETScSettings(solver=backend, tolerance=1e-13), **kw)
    assert it == it_ref
    assert getattr(linear, "backend", linear).krylov_iterations > 0
    assert np.abs(x - x_ref).max() <= 1e-10 * model_size(x_ref)


def test_shell_deck_under_petsc(tmp_path):
    """A dynamic shell4easans cantilever deck: `linear solver: petsc, mumps` gives KLU's
    motion file."""
    text = dynamic_cantilever_deck("shell4easans")
    outs = []
    for card in ("linear solver: klu;", "linear solver: petsc, mumps;"):
        path = tmp_path / f"shell_{len(outs)}.mbd"
        path.write_text(text.replace("begin: initial value;", "begin: initial value;\n    " + card))
        deck = read_deck(str(path), echo=lambda *a: None)
        deck.run(str(path)[:-4])
        outs.append(blocks(read_lines(str(path)[:-4] + ".mov")))
        log = open(str(path)[:-4] + ".log").read()
        assert ("petsc-mumps" in log) == (len(outs) == 2)
    last_klu, last_petsc = outs[0][-1], outs[1][-1]
    for label in last_klu:
        assert np.abs(last_klu[label][:3] - last_petsc[label][:3]).max() <= 1e-9


@pytest.mark.skipif(not os.path.exists(INVDYN), reason="MBDyn's invdyn decks (../shared) not available")
@pytest.mark.parametrize("backend", ["petsc-mumps", "petsc-klu", "petsc-fgmres"])
def test_inverse_dynamics_deck_under_petsc(backend, tmp_path):
    """MBDyn's invdyn deck (fully actuated, collocated): positions and joint reactions of
    every step equal KLU's; the transposed solves of the subproblems included."""
    files = {}
    for ls in ("klu", backend):
        deck = read_deck(INVDYN, echo=lambda *a: None)
        prefix = str(tmp_path / ls)
        deck.run(prefix, linear_solver=ls)
        files[ls] = {ext: blocks(read_lines(f"{prefix}.{ext}")) for ext in ("mov", "jnt")}
    for ext in ("mov", "jnt"):
        ref, ours = files["klu"][ext], files[backend][ext]
        assert len(ref) == len(ours)
        for rb, ob in zip(ref, ours):
            for label in rb:
                scale = max(1.0, np.abs(rb[label]).max())
                assert np.abs(rb[label] - ob[label]).max() <= 1e-9 * scale


def random_matrix(n=40, seed=3):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=0.1, random_state=rng, format="csc") + sp.eye(n, format="csc") * 4.0
    A = sp.csc_matrix(A)
    A.sort_indices()
    return A


@pytest.mark.parametrize("backend", DIRECT + ["petsc-gmres", "petsc-fgmres", "petsc-bicgstab"])
def test_solve_and_transposed_solve(backend):
    A = random_matrix()
    b = np.arange(A.shape[0], dtype=float)
    solver = make_linear_solver(backend)
    for k in range(2):                       # same pattern, new values: numeric refactorization
        A.data *= 1.0 + k
        solver.factor(A)
        assert np.linalg.norm(A @ solver.solve(b) - b) <= 1e-9 * np.linalg.norm(b)
        assert np.linalg.norm(A.T @ solver.solve(b, transpose=True) - b) <= 1e-9 * np.linalg.norm(b)
    assert solver.symbolic_analyses == 1 and solver.factorizations == 2 and solver.refactorizations == 1


@pytest.mark.parametrize("backend", DIRECT)
def test_singular_matrix_is_reported(backend):
    solver = make_linear_solver(backend)
    with pytest.raises(SingularMatrix):
        solver.factor(sp.csc_matrix(np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])))
        x = solver.solve(np.ones(3))
        assert np.all(np.isfinite(x)), "a singular factorization must not return finite garbage"


def test_options_pass_through_and_override():
    solver = make_linear_solver(PETScSettings(solver="gmres", options="-ksp_type preonly -pc_type lu "
                                                                      "-pc_factor_mat_solver_type mumps"))
    A = random_matrix()
    solver.factor(A)
    assert solver.ksp.getType() == "preonly" and solver.ksp.getPC().getFactorSolverType() == "mumps"
    b = np.ones(A.shape[0])
    assert np.linalg.norm(A @ solver.solve(b) - b) <= 1e-12 * np.linalg.norm(b)


def test_names_and_errors():
    assert "petsc-mumps" in available_linear_solvers()
    with pytest.raises(ValueError, match="unknown PETSc linear solver 'pastix'.*known: klu"):
        make_linear_solver("petsc-pastix")
    with pytest.raises(ValueError, match="not offered: Debian's SuperLU_dist"):
        make_linear_solver("petsc-superlu_dist")
    with pytest.raises(ValueError, match="not offered: PETSc's own LU does not pivot"):
        make_linear_solver("petsc-lu")
    with pytest.raises(ValueError, match="unknown PETSc preconditioner 'ssor'.*known: ilu"):
        make_linear_solver(PETScSettings(solver="gmres", preconditioner="ssor"))
    with pytest.raises(ValueError, match="a preconditioner is for the Krylov solvers"):
        make_linear_solver(PETScSettings(solver="mumps", preconditioner="ilu"))
    assert make_linear_solver("petsc").name == "petsc-klu"


DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0; final time: 0.01; time step: 1e-3;
    {card}
end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; end: control data;
begin: nodes; structural: 1, dynamic, null, eye, null, null; end: nodes;
begin: elements; body: 1, 1, 1., null, eye; end: elements;
"""


@pytest.mark.parametrize("card, word, message", [
    ("linear solver: petsc, pastix;", "pastix", "unknown PETSc linear solver 'pastix'"),
    ("linear solver: petsc, gmres, preconditioner, ssor;", "ssor", "unknown PETSc preconditioner"),
    ("linear solver: petsc, superlu dist;", "superlu dist", "not offered"),
    ("linear solver: petsc, gmres, tolerance, -1;", "-1", "must be positive"),
    ("linear solver: petsc, mumps, workspace size, 10;", "workspace size", "PETSc linear solver option expected"),
])
def test_card_errors_name_the_word(card, word, message):
    with pytest.raises(DeckError) as err:
        parse_deck(DECK.format(card=card), "petsc.mbd")
    text = str(err.value)
    assert text.startswith("petsc.mbd:3:") and message in text and word in text


def test_card_maps_to_settings():
    deck = parse_deck(DECK.format(card='linear solver: petsc, fgmres, preconditioner, asm, tolerance, 1e-9, '
                                       'max iterations, 200, options, "-ksp_gmres_restart 50";'), "petsc.mbd")
    assert deck.settings["linear_solver"] == PETScSettings(solver="fgmres", preconditioner="asm", tolerance=1e-9,
                                                           max_iterations=200, options="-ksp_gmres_restart 50")


def test_command_line_override(tmp_path):
    path = tmp_path / "one.mbd"
    path.write_text(DECK.format(card="linear solver: klu;"))
    mbdae = [sys.executable, "-m", "mbdae"]
    done = subprocess.run(mbdae + ["run", str(path), "-o", str(tmp_path / "one"), "-q", "--linear-solver", "petsc-mumps",
                                   "--petsc-options=-mat_mumps_icntl_14 40"], capture_output=True, text=True, env=clean_environment())
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "one.log").read_text()
    assert "linear solver: petsc-mumps" in log and "-mat_mumps_icntl_14 40" in log
    done = subprocess.run(mbdae + ["run", str(path), "-q", "--petsc-options=-ksp_monitor"], capture_output=True,
                          text=True, env=clean_environment())
    assert done.returncode == 1 and "not a PETSc one" in done.stderr
