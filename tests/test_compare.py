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
