"""The integrator comparison bench on a pendulum: orders fitted from the table, equal-work
steps, CSV/Markdown output and plots."""
import os
import numpy as np
import pytest

from mbdae.engine.compare import (ComparisonCase, compare, fitted_orders, write_csv, markdown_table, plot,
                                  solves_per_step)
from mbdae.solvers.integrators import make_method
from test_integrator_runs import pendulum, angle


def case():
    return ComparisonCase("pendulum", pendulum, 0.5, lambda r: [angle(r)[-1]],
                          reference_method=("dirk54", 0.0), reference_step=2.5e-3)


def test_compare_table_orders_and_files(tmp_path):
    methods = [("ms", 0.6), ("bathe", 0.0), ("implicit euler", 0.0)]
    rows = compare(case(), methods, [4e-3, 2e-3])
    assert len(rows) == 6 and all(not r["failure"] for r in rows)
    bathe = [r for r in rows if r["method"] == "bathe"]
    assert np.allclose([r["h"] for r in bathe], [8e-3, 4e-3])          # equal work: 2 solves per step
    orders = fitted_orders(rows)
    assert abs(orders[("ms", 0.6)] - 2) < 0.3
    assert abs(orders[("bathe", 0.0)] - 2) < 0.3
    assert abs(orders[("implicit euler", 0.0)] - 1) < 0.3
    write_csv(rows, tmp_path / "c.csv")
    text = (tmp_path / "c.csv").read_text().splitlines()
    assert text[0].startswith("method,rho,base_step") and len(text) == 7
    md = markdown_table(rows, orders)
    assert "| bathe |" in md and "observed order" in md
    pytest.importorskip("matplotlib")
    for p in plot(rows, str(tmp_path / "pend")):
        assert os.path.getsize(p) > 1000


def test_solves_per_step():
    assert solves_per_step(make_method("ms", 0.6)) == 1
    assert solves_per_step(make_method("bathe", 0.0)) == 2
    assert solves_per_step(make_method("msstc5", 0.0)) == 5
    assert solves_per_step(make_method("dirk54")) == 5


def test_failed_runs_are_reported_not_hidden():
    rows = compare(case(), [("ms3", 0.6)], [0.02], max_iterations=1, tolerance=1e-14, min_time_step=0.02)
    assert rows[0]["failure"] and not np.isfinite(rows[0]["error"])


# ------------------------------------------------------------------ the `mbdae compare` command
from mbdae.cli import main as cli_main

CASE_MODULE = '''
import numpy as np
from mbdae.engine.compare import ComparisonCase
from test_integrator_runs import pendulum, angle


def energy(r):
    m, g, L = 1.0, 9.81, 1.0
    v2 = np.sum(r.v[:, 0] ** 2, axis=1)
    w = r.w[:, 0, 2]
    return 0.5 * m * v2 + 0.5 * 0.01 * w ** 2 + m * g * r.x[:, 0, 1]


def case():
    return ComparisonCase("pendulum", pendulum, 0.3, lambda r: [angle(r)[-1]], reference_step=2e-3,
                          monitors=lambda r: {"energy": energy(r), "constraint drift": np.linalg.norm(r.x[:, 0], axis=1) - 1.0})
'''

DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.2; time step: 1e-2; tolerance: 1e-10; end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; joints: 1; gravity; end: control data;
begin: nodes; structural: 1, dynamic, 1., 0., 0., eye, null, null; end: nodes;
begin: elements;
body: 1, 1, 1., null, eye;
joint: 2, revolute pin, 1, -1., 0., 0., hinge, eye, null, hinge, eye;
gravity: uniform, 0., -1., 0., const, 9.81;
end: elements;
"""


def test_compare_command_on_a_python_case(tmp_path, capsys):
    """Case module with energy and constraint-drift monitors; automatic dirk54 reference."""
    pytest.importorskip("matplotlib")
    mod = tmp_path / "pend_case.py"
    mod.write_text(CASE_MODULE)
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    prefix = str(tmp_path / "out" / "pend")
    assert cli_main(["compare", str(mod), "--methods", "ms:0.6", "bathe:0", "implicit_euler",
                     "--steps", "2e-2", "1e-2"]+ ["-o", prefix]) == 0
    out = capsys.readouterr().out
    assert "observed orders:" in out and "bathe ρ∞=0:" in out
    orders = dict(part.split(": ") for part in out.split("observed orders: ")[1].splitlines()[0].split(", "))
    assert abs(float(orders["ms ρ∞=0.6"]) - 2) < 0.3 and abs(float(orders["implicit euler ρ∞=0"]) - 1) < 0.3
    for suffix in (".csv", ".md", "_error_vs_step.png", "_error_vs_cpu.png", "_costs.png", "_energy.png",
                   "_constraint_drift.png"):
        assert os.path.getsize(prefix + suffix) > 100, suffix
    assert len(open(prefix + ".csv").read().splitlines()) == 7


def test_compare_command_on_a_deck_with_reference_file(tmp_path, capsys):
    """Deck (pendulum as revolute pin); reference file from a fine dirk54 run of the same deck:
    ms and ss2 with ρ∞ = 0.6 converge at second order in the node position."""
    pytest.importorskip("matplotlib")
    deck = tmp_path / "pend.mbd"
    deck.write_text(DECK)
    from mbdae.engine.io.mbdyn.deck import read_deck
    fine = read_deck(str(deck), echo=lambda *a: None).run(method="dirk54", rho=0.0, time_step=5e-4, progress=False)
    np.savetxt(tmp_path / "ref.txt", fine.x[-1].ravel())
    prefix = str(tmp_path / "deck")
    assert cli_main(["compare", str(deck), "--methods", "ms", "ss2", "--rho", "0.6", "--steps", "1e-2", "5e-3",
                     "--reference", str(tmp_path / "ref.txt"), "-o", prefix]) == 0
    out = capsys.readouterr().out
    orders = dict(part.split(": ") for part in out.split("observed orders: ")[1].splitlines()[0].split(", "))
    assert abs(float(orders["ms ρ∞=0.6"]) - 2) < 0.3 and abs(float(orders["ss2 ρ∞=0.6"]) - 2) < 0.3
    assert os.path.getsize(prefix + "_costs.png") > 100


def test_compare_command_rejects_unknown_methods(tmp_path, capsys):
    deck = tmp_path / "pend.mbd"
    deck.write_text(DECK)
    assert cli_main(["compare", str(deck), "--methods", "nosuch", "--steps", "1e-2"]) == 1
    assert "integration method 'nosuch' is not available" in capsys.readouterr().err
