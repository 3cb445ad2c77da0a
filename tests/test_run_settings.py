"""Time settings that cannot make a run stop with a clear message (issue 18): in a deck (the
card's file:line:col), through `--final-time`, and through the API; an absurdly small step
warns with the step count it implies; `mbdae --version`; the end-of-run step rule adds no
sliver step."""
import math
import subprocess
import sys

import numpy as np
import pytest

import mbdae
from mbdae.cli import main as cli_main
from mbdae.engine.drivers.time_span import InvalidTimeSettings, check_time_span
from tests.test_linear_solver_choice import pendulum_model

DECK = """\
begin: data;
    problem: initial value;
end: data;
begin: initial value;
    initial time: {t0};
    final time: {t1};
    time step: {h};
    tolerance: 1e-6;
    max iterations: 10;
end: initial value;
begin: control data;
    structural nodes: 1;
    rigid bodies: 1;
    gravity;
end: control data;
begin: nodes;
    structural: 1, dynamic, 1., 0., 0., eye, null, null;
end: nodes;
begin: elements;
    body: 1, 1, 1., null, diag, 1e-3, 1e-3, 1e-3;
    gravity: uniform, 0., -1., 0., const, 9.81;
end: elements;
"""


def write_deck(tmp_path, t0="0.", t1="1.", h="1e-2"):
    path = tmp_path / "fall.mbd"
    path.write_text(DECK.format(t0=t0, t1=t1, h=h))
    return path


def run_cli(argv, capsys):
    code = cli_main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("t0, t1, h, line, col, word, reason", [
    ("0.", "-1.", "1e-2", 6, 17, "-1.", "the final time -1 is not after the initial time 0"),
    ("2.", "1.", "1e-2", 6, 17, "1.", "the final time 1 is not after the initial time 2"),
    ("0.", "0.", "1e-2", 6, 17, "0.", "not after the initial time 0"),
    ("0.", "1.", "-1e-2", 7, 16, "-1e-2", "the time step is -0.01: it must be positive"),
    ("0.", "1.", "0.", 7, 16, "0.", "the time step is 0: it must be positive"),
])
def test_deck_time_settings_that_cannot_run_name_the_card(tmp_path, capsys, t0, t1, h, line, col, word, reason):
    deck = write_deck(tmp_path, t0, t1, h)
    code, err = run_cli(["run", str(deck), "-o", str(tmp_path / "out"), "-q"], capsys)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"mbdae: {deck}:{line}:{col}: ") and reason in lines[0] and f"(at '{word}')" in lines[0]
    assert not (tmp_path / "out.mov").exists()


@pytest.mark.parametrize("value, reason", [
    ("nan", "the final time is nan: it must be a finite number"),
    ("-1", "the final time -1 is not after the initial time 0"),
    ("inf", "the final time is inf: it must be a finite number"),
])
def test_final_time_option_is_checked(tmp_path, capsys, value, reason):
    deck = write_deck(tmp_path)
    code, err = run_cli(["run", str(deck), "-o", str(tmp_path / "out"), "-q", "--final-time", value], capsys)
    assert code == 1
    assert err.strip() == f"mbdae: --final-time {float(value):g}: {reason}" + (
        ": there is nothing to run" if value == "-1" else "")


def test_api_refuses_time_settings_that_cannot_run():
    for kw in (dict(final_time=float("nan")), dict(final_time=-1.0), dict(time_step=0.0),
               dict(time_step=-1e-3), dict(initial_time=float("inf"))):
        with pytest.raises(InvalidTimeSettings):
            mbdae.run(pendulum_model(), progress=False, **kw)
    # a final time equal to the initial one is the API's run of no step (assembly, derivatives)
    r = mbdae.run(pendulum_model(), final_time=0.0, progress=False)
    assert r.stats["steps"] == 0 and len(r.t) == 1


def test_absurdly_small_step_warns_with_its_step_count(tmp_path, capsys):
    assert check_time_span(0.0, 1.0, 1e-3) is None
    assert check_time_span(0.0, 1.0, 1e-8) is None                      # 1e8 steps: long, not absurd
    warning = check_time_span(0.0, 2.0, 1e-300)
    assert "1e-300" in warning and "2e+300 steps" in warning
    # the run itself says so on stderr before its first step (and would then run "forever")
    problem = mbdae.InitialValueProblem(pendulum_model(), final_time=1.0, time_step=1e-12, progress=False)
    assert "1e+12 steps" in capsys.readouterr().err
    assert any("1e+12 steps" in line for line in problem.log_lines)


def test_no_sliver_step_at_the_end(tmp_path, capsys):
    """12 000 steps of 2.5e-4 to t = 3: the accumulated time falls short of 3 by round-off;
    that remainder is not a step (no 3e-13 s step, no duplicate output block)."""
    deck = write_deck(tmp_path, h="2.5e-4")
    code, _ = run_cli(["run", str(deck), "-o", str(tmp_path / "out"), "-q", "--final-time", "3"], capsys)
    assert code == 0
    steps = [line.split() for line in (tmp_path / "out.out").read_text().splitlines() if line.startswith("Step ")]
    assert len(steps) == 12001 and steps[-1][1] == "12000" and float(steps[-1][2]) == 3.0
    times = np.array([float(s[2]) for s in steps])
    assert np.all(np.diff(times) > 2.4e-4)
    mov_rows = [line for line in (tmp_path / "out.mov").read_text().splitlines() if line.strip()]
    assert len(mov_rows) == 12001
    # the free fall's exact position at the end: y = -g t²/2 (the integrator is exact for it)
    assert math.isclose(float(mov_rows[-1].split()[2]), -0.5 * 9.81 * 9.0, rel_tol=1e-9)


def test_version_flag():
    done = subprocess.run([sys.executable, "-m", "mbdae", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    name, version = done.stdout.split()
    assert name == "mbdae" and version[0].isdigit() and version.count(".") >= 1


# ---------------------------------------------------------------- run-time faults named
FORCE_DECK = DECK.replace("    rigid bodies: 1;\n", "    rigid bodies: 1;\n    forces: 1;\n").replace(
    "end: elements;", '    force: 7, absolute, 1, position, null, 1., 0., 0., string, "{expr}";\nend: elements;')


@pytest.mark.parametrize("expr, reason", [
    ("sqrt(Time - 0.5)", 'argument -0.5 is outside the domain of function "sqrt"'),
    ("1/(Time - Time)", "division by zero"),
])
def test_a_drive_outside_its_domain_names_the_element_and_its_card(tmp_path, capsys, expr, reason):
    deck = tmp_path / "force.mbd"
    deck.write_text(FORCE_DECK.replace("{expr}", expr).format(t0="0.", t1="1.", h="1e-2"))
    code, err = run_cli(["run", str(deck), "-o", str(tmp_path / "out"), "-q"], capsys)
    assert code == 1
    assert err.startswith(f"mbdae: simulation failed: force 7 ({deck}:23): drive ExpressionDrive('{expr}') at t = 0: ")
    assert reason in err and "Traceback" not in err


def test_a_force_overflowing_names_the_elements_that_wrote_non_finite_values(tmp_path, capsys):
    deck = tmp_path / "force.mbd"
    deck.write_text(FORCE_DECK.replace("{expr}", "1e300*exp(1000*Time)").format(t0="0.", t1="1.", h="1e-2"))
    code, err = run_cli(["run", str(deck), "-o", str(tmp_path / "out"), "-q"], capsys)
    assert code == 1
    assert "non-finite residual" in err
    assert f"non-finite contributions from force 7 ({deck}:23)" in err


def test_ctrl_c_while_reading_is_one_line_and_exit_130(tmp_path, capsys, monkeypatch):
    """SIGINT before the run's own handler is in place (reading the deck, building the
    System): no traceback, exit status 130 as for an interrupted run."""
    deck = write_deck(tmp_path)

    def interrupted(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr("mbdae.cli.read_deck", interrupted)
    code, err = run_cli(["run", str(deck), "-o", str(tmp_path / "out")], capsys)
    assert code == 130
    assert err == "mbdae: interrupted (SIGINT)\n"
