"""Faults while a run writes its output: signals at random moments, a full disk (a file size
limit), a read-only prefix, and `mbdae conformance` stopped by SIGTERM.

After SIGINT or SIGTERM a `mbdae run` ends between whole steps (exit 130 or 143, one line);
after a write error it exits 74 with one line naming the file and the step; either way
every file ends on the same whole step.  After SIGKILL (no clean-up possible) a file may end
inside a step, and the readers use the steps every file holds whole, with a note.

The short form (a few trials of each signal) always runs; MBDAE_LONG=1 runs many more."""
import os
import random
import re
import resource
import signal
import subprocess
import sys
import time

import pytest

from mbdae.engine.io.mbdyn.reference import whole_output
from mbdae.engine.core.stop import StopRequested, between_steps, publish_step, step_loop, stop_on_signals
from mbdae.engine.io.mbdyn import output

LONG = os.environ.get("MBDAE_LONG") == "1"
LINKS = 120                     # nodes and joints: each step writes 120 .mov and 120 .jnt rows
RUN = [sys.executable, "-m", "mbdae", "run"]
ENV = dict(os.environ, PYTHONUNBUFFERED="1")


def chain_deck(n=LINKS, final_time=100.0):
    """A chain of n links (benchmarks/decks.py's) with every node and joint in the output."""
    link, side, rho = 0.1, 0.01, 7800.0
    mass = rho * link * side * side
    jx, jt = mass * 2 * side ** 2 / 12, mass * (link ** 2 + side ** 2) / 12
    lines = ["begin: data;", "problem: initial value;", "end: data;", "begin: initial value;",
             "initial time: 0.;", f"final time: {final_time};", "time step: 1.e-3;", "method: ms, .6;",
             "tolerance: 1.e-6;", "max iterations: 20;", "derivatives tolerance: 1.e-4;", "end: initial value;",
             "begin: control data;", f"structural nodes: {n};", f"rigid bodies: {n};", f"joints: {n};",
             "gravity;", "end: control data;", "begin: nodes;"]
    lines += [f"structural: {i + 1}, dynamic, {(i + 0.5) * link!r}, 0., 0., eye, null, null;" for i in range(n)]
    lines += ["end: nodes;", "begin: elements;"]
    lines += [f"body: {i + 1}, {i + 1}, {mass!r}, null, diag, {jx!r}, {jt!r}, {jt!r};" for i in range(n)]
    lines.append(f"joint: 1, spherical pin, 1, position, {-link / 2!r}, 0., 0., position, 0., 0., 0.;")
    lines += [f"joint: {i + 1}, spherical hinge, {i}, position, {link / 2!r}, 0., 0., {i + 1}, position, "
              f"{-link / 2!r}, 0., 0.;" for i in range(1, n)]
    lines += ["gravity: uniform, 0., -1., 0., const, 9.81;", "end: elements;", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    path = tmp_path_factory.mktemp("faults") / "chain.mbd"
    path.write_text(chain_deck())
    return str(path)


def whole_steps(prefix, n=LINKS):
    """Check that every file ends on a whole step and all hold the same number of output
    steps; returns that number."""
    counts = {}
    for ext in ("out", "mov", "jnt"):
        data = open(f"{prefix}.{ext}", "rb").read()
        assert not data or data.endswith(b"\n"), f"{prefix}.{ext} ends inside a line"
        lines = data.decode().splitlines()
        if ext == "out":
            counts[ext] = sum(1 for l in lines if l.startswith("Step") and l.split()[-1] == "1")
            continue
        assert len(lines) % n == 0, f"{prefix}.{ext}: {len(lines)} rows, not whole steps of {n}"
        labels = [int(l.split()[0]) for l in lines[-n:]]
        assert labels == list(range(1, n + 1)), f"{prefix}.{ext}: its last block is not whole"
        counts[ext] = len(lines) // n
    assert len(set(counts.values())) == 1, f"the files hold different steps: {counts}"
    return counts["out"]


def start(deck, prefix, **kw):
    return subprocess.Popen(RUN + [deck, "-o", prefix, "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV, **kw)


def wait_for_steps(p, prefix, timeout=120.0):
    """Wait until the run is in its step loop (its .mov has rows)."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        if p.poll() is not None:
            pytest.fail(f"the run ended before the signal: {p.communicate()[1]}")
        if os.path.exists(prefix + ".mov") and os.path.getsize(prefix + ".mov") > 0:
            return
        time.sleep(0.02)
    pytest.fail("the run did not start its steps")


SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]
TRIALS = 20 if LONG else 3          # per signal


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_signals_leave_whole_steps(deck, tmp_path, sig):
    rng = random.Random(1000 + sig)
    during = []
    for k in range(TRIALS):
        prefix = str(tmp_path / f"run{k}")
        p = start(deck, prefix)
        try:
            wait_for_steps(p, prefix)
            time.sleep(rng.uniform(0.0, 1.0))
            p.send_signal(sig)
            _, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
        if sig == signal.SIGKILL:
            assert p.returncode == -signal.SIGKILL
            times, blocks, note = whole_output(prefix, ["mov", "jnt"])
            assert len(times) == len(blocks["mov"]) == len(blocks["jnt"]) > 0
            assert all(len(b) == LINKS for b in blocks["mov"] + blocks["jnt"])
            during.append("cut" if note else "whole")
            if note:
                assert re.fullmatch(r"note: .*; using \d+ whole steps", note), note
            continue
        assert p.returncode == 128 + sig, err
        lines = [l for l in err.splitlines() if l.strip()]
        assert len(lines) == 1 and "Traceback" not in err, err
        m = re.fullmatch(rf"mbdae: stopped by {signal.Signals(sig).name} after step (\d+) \(t = [^)]+\)"
                         r"(?:, which was being (written|computed) when the signal came)?; "
                         r"the output files end on that step", lines[0])
        assert m, lines[0]
        written = whole_steps(prefix)
        assert written == int(m.group(1)) + 1          # step 0 is the initial configuration
        assert f"# run stopped by {signal.Signals(sig).name} after step {m.group(1)}" in open(prefix + ".out").read()
        during.append(m.group(2) or "between")
    print(f"{signal.Signals(sig).name}: {TRIALS} trials, signal landed: "
          + ", ".join(f"{w} {during.count(w)}" for w in sorted(set(during))))


def test_plot_reads_a_step_cut_short(deck, tmp_path):
    """`mbdae plot` on files whose .mov ends inside a step (as a SIGKILL while writing leaves
    it): the whole steps, with a note."""
    pytest.importorskip("matplotlib")
    prefix = str(tmp_path / "run")
    p = start(deck, prefix)
    try:
        wait_for_steps(p, prefix)
        time.sleep(0.3)
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    n = whole_steps(prefix)
    with open(prefix + ".mov", "ab") as f:
        f.write(b"       1 1.000000e-01 2.0e")
    r = subprocess.run([sys.executable, "-m", "mbdae", "plot", prefix, "--node", "5"], capture_output=True,
                       text=True, env=ENV, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"note: run.mov ends inside output step {n + 1}; using {n} whole steps" in r.stderr, r.stderr


def _file_limit(limit):
    def limit_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # write() then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_files


def test_full_disk_ends_on_whole_step(deck, tmp_path):
    """A file size limit (as a full disk): exit 74, one line naming the file and the step, the
    files truncated back to the last whole step, a note at the end of the .out."""
    prefix = str(tmp_path / "run")
    p = start(deck, prefix, preexec_fn=_file_limit(2_000_000))
    _, err = p.communicate(timeout=300)
    assert p.returncode == 74, err
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    m = re.fullmatch(rf"mbdae: cannot write {re.escape(prefix)}\.(jnt|mov|out) at step (\d+) \(t = [^)]+\): "
                     r"File too large; output ends at step (\d+)", lines[0])
    assert m, lines[0]
    assert int(m.group(3)) == int(m.group(2)) - 1
    assert whole_steps(prefix) == int(m.group(2))               # steps 0 .. failed - 1
    assert open(prefix + ".out").read().splitlines()[-1].startswith("# output stopped: cannot write")


def test_read_only_prefix(deck, tmp_path):
    """A prefix where nothing can be written: one line that names the file and says 'cannot write'."""
    if os.geteuid() == 0:
        if not os.path.isdir("/sys/kernel"):
            pytest.skip("running as root and no sysfs: no place where writing is refused")
        prefix = "/sys/mbdae-run"           # root may write anywhere else; sysfs refuses new files
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        prefix = str(ro / "run")
    r = subprocess.run(RUN + [deck, "-o", prefix, "-q"], capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 74, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, r.stderr
    assert re.fullmatch(rf"mbdae: cannot write {re.escape(prefix)}\.(log|out)(: .*)?: Permission denied", lines[0]), \
        lines[0]


def _processes_with(text):
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmd:
                found.append((int(pid), cmd))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to find the children")
def test_conformance_sigterm_ends_children_and_scratch(tmp_path):
    decks, scratch_root = tmp_path / "decks", tmp_path / "tmp"
    decks.mkdir()
    scratch_root.mkdir()
    name = f"longchain{os.getpid()}.mbd"
    (decks / name).write_text(chain_deck(40, final_time=1000.0))
    p = subprocess.Popen([sys.executable, "-m", "mbdae", "conformance", str(decks), "--budget", "300",
                          "-o", str(tmp_path / "rep"), "--ref", "none"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(ENV, TMPDIR=str(scratch_root)))
    try:
        t0 = time.time()
        while not any(name in cmd and " run " in cmd for _, cmd in _processes_with(name)):
            assert p.poll() is None, p.communicate()
            assert time.time() - t0 < 120, "the conformance run did not start its child"
            time.sleep(0.1)
        time.sleep(1.0)
        assert os.listdir(scratch_root)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 143, err
    assert "Traceback" not in err, err
    t0 = time.time()
    while _processes_with(name) and time.time() - t0 < 10:
        time.sleep(0.1)
    assert not _processes_with(name), "a child of the conformance run survived"
    assert os.listdir(scratch_root) == [], "the scratch folder remained"
    assert not os.path.exists(tmp_path / "rep.md")


# ---------------------------------------------------------------- in-process checks of the parts

class _Staged:
    """An observer that writes files (commit_step) and can be told to fail or to receive a
    signal while it commits."""

    def __init__(self, fail=None, signum=None):
        self.fail, self.signum = fail, signum
        self.committed, self.rolled_back, self.discarded = [], [], 0

    def step(self, event):
        self.staged = event

    def commit_step(self):
        if self.signum is not None:
            os.kill(os.getpid(), self.signum)      # arrives while the step is written
        if self.fail is not None:
            raise self.fail
        self.committed.append(self.staged)

    def rollback_step(self):
        self.rolled_back.append(self.committed.pop())

    def discard_step(self):
        self.discarded += 1


def test_signal_while_writing_waits_for_the_whole_step():
    obs = _Staged(signum=signal.SIGTERM)
    with stop_on_signals():
        with pytest.raises(StopRequested) as e:
            publish_step([obs], type("Event", (), {"step": 7, "t": 0.007})())
    assert obs.committed and e.value.during == "writing" and e.value.step == 7
    assert e.value.exit_code == 143
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL      # the handler was restored


def test_signal_in_step_loop_stops_between_steps():
    done = []
    with stop_on_signals(), step_loop():
        with pytest.raises(StopRequested) as e:
            for k in range(5):
                between_steps()
                if k == 2:
                    os.kill(os.getpid(), signal.SIGINT)     # during step 2: step 2 is finished
                done.append(k)
    assert done == [0, 1, 2] and e.value.during == "step" and e.value.exit_code == 130


def test_failed_observer_rolls_the_others_back():
    good, bad = _Staged(), _Staged(fail=OSError(28, "No space left on device"))
    with pytest.raises(OSError):
        publish_step([good, bad], type("Event", (), {"step": 3, "t": 0.003})())
    assert good.rolled_back and not good.committed


def test_text_output_rolls_back_a_cut_step(tmp_path, monkeypatch):
    """A write error in the second file of a step: every file back where the step began, the
    error names the file and the step, a note in the .out."""
    import numpy as np
    out = output.TextOutput(str(tmp_path / "run"))
    for step in range(2):
        out.rows("mov", [1, 2], np.ones((2, 3)) * step)
        out.rows("jnt", [1], np.ones((1, 4)) * step)
        out.line("out", f"Step {step} {step * 1e-3} 0.001 1 0 0 0 1")
        out.commit(step, step * 1e-3, step - 1 if step else None)
    sizes = {e: os.path.getsize(tmp_path / f"run.{e}") for e in ("mov", "jnt", "out")}
    real_write, calls = os.write, []

    def failing(fd, data):
        calls.append(fd)
        if len(calls) == 2:                        # the second file of the step (.jnt, after .mov)
            real_write(fd, bytes(data)[:10])
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    out.rows("mov", [1, 2], np.ones((2, 3)) * 2)
    out.rows("jnt", [1], np.ones((1, 4)) * 2)
    out.line("out", "Step 2 0.002 0.001 1 0 0 0 1")
    monkeypatch.setattr(output.os, "write", failing)
    with pytest.raises(output.OutputError) as e:
        out.commit(2, 0.002, 1)
    monkeypatch.setattr(output.os, "write", real_write)
    assert str(e.value) == (f"cannot write {tmp_path}/run.jnt at step 2 (t = 0.002): No space left on device; "
                            f"output ends at step 1")
    assert os.path.getsize(tmp_path / "run.mov") == sizes["mov"]
    assert os.path.getsize(tmp_path / "run.jnt") == sizes["jnt"]
    note = f"# output stopped: cannot write {tmp_path}/run.jnt at step 2: No space left on device\n"
    text = open(tmp_path / "run.out").read()
    assert text.endswith("Step 1 0.001 0.001 1 0 0 0 1\n" + note) and len(text) == sizes["out"] + len(note)
    out.close()
