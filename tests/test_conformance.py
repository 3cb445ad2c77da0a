"""`mbdae conformance DIR` on a small tree: a deck that runs, one with an unsupported
element (named, with file:line:column), one with a syntax error, and a non-deck file."""
import csv
import os

from mbdae.cli import main

GOOD = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3; end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; end: control data;
begin: nodes; structural: 1, dynamic, null, eye, null, null; end: nodes;
begin: elements; body: 1, 1, 1., null, eye; end: elements;
"""
UNSUPPORTED = GOOD.replace("rigid bodies: 1;", "rigid bodies: 1; joints: 1;").replace(
    "body: 1, 1, 1., null, eye;", "body: 1, 1, 1., null, eye;\n joint: 2, gimbal rotation, 1, 1;")
BROKEN = GOOD.replace("final time: 0.01;", "final time 0.01;")


def test_conformance_table(tmp_path, capsys):
    root = tmp_path / "decks"
    (root / "sub").mkdir(parents=True)
    (root / "good.mbd").write_text(GOOD)
    (root / "sub" / "unsupported").write_text(UNSUPPORTED)
    (root / "sub" / "broken.mbd").write_text(BROKEN)
    (root / "notes.txt").write_text("not a deck\n")
    prefix = str(tmp_path / "report")
    assert main(["conformance", str(root), "--budget", "60", "-o", prefix]) == 0
    assert "decks found: 3, parsed: 1, ran to completion: 1" in capsys.readouterr().out
    rows = {r["deck"]: r for r in csv.DictReader(open(prefix + ".csv"))}
    assert rows["good.mbd"]["ran"] == "True" and int(rows["good.mbd"]["steps"]) == 10
    bad = rows[os.path.join("sub", "unsupported")]
    assert bad["parsed"] == "False" and "gimbal rotation" in bad["first_error"] and "unsupported:" in bad["first_error"]
    assert rows[os.path.join("sub", "broken.mbd")]["parsed"] == "False"
    md = open(prefix + ".md").read()
    assert "| good.mbd | yes | yes | 10 |" in md
