"""Stopping the harness mid-run leaves nothing behind (``harness._common.supervise``).

The suite (tests/scenarios/suites/stoppable) is slow on purpose: forked build workers, warm
pipeline commands, and an in-process pipeline that starts a ``sleep`` in a session of its own,
out of reach of process groups and death signals. Every process the harness starts inherits a
marker in its environment; the test counts the processes of this user that carry it, via /proc.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode
from harness._report.validate import validate_report
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

MARK = "HARNESS_TEST_STOPPABLE"


def _ours(mark: str) -> list[str]:
    """The processes whose environment carries ``mark``: "pid command line"."""
    needle = f"\0{MARK}={mark}\0".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            env = b"\0" + (proc / "environ").read_bytes() + b"\0"
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in env:
            found.append(f"{proc.name} {cmdline[:120]}")
    return found


def _until(check: Callable[[], bool], within: float) -> float:
    """Seconds until ``check()`` held; fails the test after ``within``."""
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > within:
            pytest.fail(f"not within {within} s")
        time.sleep(0.05)
    return time.monotonic() - start


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Path:
    return shutil.copytree(scenarios / "suites" / "stoppable", tmp_path / "stoppable")


def _start(command: str, suite: Path, out: Path, mark: str) -> subprocess.Popen[bytes]:
    args = ["run", str(suite), "--workers", "2", "--format", "json"] if command == "run" else ["mutate", str(suite)]
    env = {**os.environ, MARK: mark}
    env.pop("HARNESS_SUPERVISOR_TOKEN", None)  # the harness under test gets its own watchdog
    return subprocess.Popen([sys.executable, "-m", "harness", *args, "--out", str(out), "-q"], env=env,
                            cwd=suite, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _mid_build(out: Path, mark: str) -> bool:
    """Some units finished, and the slow in-process pipeline has started its runaway."""
    done = any(len(p.read_text().splitlines()) >= 2 for p in out.glob("*/differential.jsonl"))
    return done and any("sleep 300" in p for p in _ours(mark))


def _mid_mutation(mark: str) -> bool:
    return sum("harness._mutate.engine" in p for p in _ours(mark)) >= 2  # the engine and a fork of it


# Each about 1.5 CPU s. The README's tier keeps: for SIGTERM, the partial report's test below (it
# counts the processes before the signal and waits for none to be left); for SIGKILL, the
# watchdog's own test below and tests/unit/supervise's test of a child dying with its parent.
@pytest.mark.expensive
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_stopping_harness_run_mid_build_leaves_no_process_behind(suite: Path, tmp_path: Path, sig: int) -> None:
    mark, out = uuid.uuid4().hex, tmp_path / "out"
    harness = _start("run", suite, out, mark)
    _until(lambda: _mid_build(out, mark), within=60)
    before = _ours(mark)
    assert len(before) >= 5, before  # the harness, its watchdog, workers, commands, runaways
    harness.send_signal(sig)
    harness.communicate(timeout=60)
    gone_in = _until(lambda: not _ours(mark), within=10)
    print(f"{signal.Signals(sig).name}: {len(before)} processes, all gone {gone_in:.2f} s after the harness ended")
    if sig == signal.SIGTERM:
        assert harness.returncode == ExitCode.TERMINATED


# Ctrl-C: about 1.5 CPU s; the README's tier has the same partial report from a Ctrl-C heard by
# a harness in this process (test_ctrl_c_mid_build_in_this_process_...) beside SIGTERM's here.
@pytest.mark.parametrize(("sig", "code"),
                         [(signal.SIGTERM, ExitCode.TERMINATED),
                          pytest.param(signal.SIGINT, ExitCode.INTERRUPTED, marks=pytest.mark.expensive)],
                         ids=["SIGTERM", "Ctrl-C"])
def test_stopping_harness_run_mid_build_writes_a_report_that_says_it_is_partial(
        suite: Path, tmp_path: Path, sig: int, code: int) -> None:
    mark, out = uuid.uuid4().hex, tmp_path / "out"
    harness = _start("run", suite, out, mark)
    _until(lambda: _mid_build(out, mark), within=60)
    before = _ours(mark)
    assert len(before) >= 5, before  # the harness, its watchdog, workers, commands, runaways
    harness.send_signal(sig)
    stdout, stderr = harness.communicate(timeout=60)
    assert harness.returncode == code, stderr
    name = signal.Signals(sig).name
    report = json.loads((out / "latest" / "report.json").read_text())
    validate_report(report)
    partial = report["partial"]
    assert partial["stage"] == "build" and partial["signal"] == name
    assert 2 <= partial["units_done"] < partial["units_planned"] == 24
    assert len(report["differential"]) == partial["units_done"]  # what finished is in it, nothing else
    assert report["exit"]["code"] == code and "partial" in report["exit"]["reason"]
    markdown = (out / "latest" / "report.md").read_text()
    assert markdown.startswith(f"> **Partial run.** Stopped by {name} during the build")
    assert json.loads(stdout) == report  # --format json still prints it
    assert b"partial report" in stderr
    _until(lambda: not _ours(mark), within=10)  # every process counted above is gone


RUNAWAY = """
import subprocess, sys, time
from harness._common import supervise
supervise.start()
runaway = subprocess.Popen(["sleep", "300"], start_new_session=True)
open(sys.argv[1], "w").write(str(runaway.pid))
time.sleep(300)
"""


def test_a_runaway_in_a_session_of_its_own_dies_when_the_process_that_started_the_watchdog_is_sigkilled(
        tmp_path: Path) -> None:
    """The watchdog's part of a SIGKILLed run, without the run: a ``sleep`` in a session of its
    own, out of reach of process groups and death signals, is found by the token it inherited."""
    pidfile, mark = tmp_path / "runaway", uuid.uuid4().hex
    env = {**os.environ, MARK: mark}
    env.pop("HARNESS_SUPERVISOR_TOKEN", None)  # its own watchdog, not this process's
    parent = subprocess.Popen([sys.executable, "-c", RUNAWAY, str(pidfile)], env=env)
    try:
        _until(lambda: pidfile.exists() and bool(pidfile.read_text()), within=60)
        runaway = int(pidfile.read_text())
        assert os.getsid(runaway) not in (os.getsid(parent.pid), os.getpgid(parent.pid))
        assert len(_ours(mark)) == 3, _ours(mark)  # the parent, its watchdog, the runaway
    finally:
        parent.kill()
        parent.wait()
    _until(lambda: not _ours(mark), within=10)


@pytest.mark.expensive
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_stopping_harness_mutate_leaves_no_process_behind(suite: Path, tmp_path: Path, sig: int) -> None:
    mark = uuid.uuid4().hex
    harness = _start("mutate", suite, tmp_path / "out", mark)
    _until(lambda: _mid_mutation(mark), within=120)
    before = _ours(mark)
    harness.send_signal(sig)
    harness.communicate(timeout=60)
    gone_in = _until(lambda: not _ours(mark), within=10)
    print(f"{signal.Signals(sig).name}: {len(before)} processes, all gone {gone_in:.2f} s after the harness ended")
    if sig == signal.SIGTERM:
        assert harness.returncode == ExitCode.TERMINATED


INTERRUPTING = """
import glob, os, signal, time


def body(inp, lane):
    if inp.get("behaviour") == "ctrl-c":  # once two rows are written, as a user's Ctrl-C
        rows = os.path.join(os.environ["STOP_OUT"], "*", "differential.jsonl")
        until = time.monotonic() + 60
        while time.monotonic() < until and not any(_lines(p) >= 2 for p in glob.glob(rows)):
            time.sleep(0.02)
        os.kill(os.getppid(), signal.SIGINT)  # the harness: this worker was forked from it
        time.sleep(60)
    return {"tools": inp["tools"]}


def _lines(path):
    with open(path) as f:
        return len(f.readlines())
"""


def test_ctrl_c_mid_build_in_this_process_writes_a_report_that_says_it_is_partial(tmp_path: Path) -> None:
    """The Ctrl-C case above without an interpreter of its own: a harness run in this process
    hears SIGINT from a pipeline (in a build worker forked from it) once two units are written."""
    suite, out = tmp_path / "interrupted", tmp_path / "out"
    suite.mkdir()
    (suite / "suite.yaml").write_text("version: 1\nname: interrupted\ntimeout_s: 120\nrules: none\n"
                                      "subjects: {plain: {old: 'pipes:body', new: 'pipes:body', wires: [w],"
                                      " input_keys: [behaviour]}}\n")
    (suite / "lanes.yaml").write_text("version: 1\nlanes: [{id: one, wire: w, provider: p}]\n")
    (suite / "pipes.py").write_text(INTERRUPTING)
    cases = [f"  - {{id: c{i}, tools: [{{name: t{i}}}]{', input: {behaviour: ctrl-c}' if i == 2 else ''}}}"
             for i in range(5)]
    (suite / "plain.cases.yaml").write_text("version: 1\nsubject: plain\ncases:\n" + "\n".join(cases) + "\n")
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # a fresh interpreter's own
    try:
        got = harness_main("run", str(suite), "--workers", "1", "--no-pins", "--format", "json", "--out", str(out),
                           cwd=tmp_path, env={"STOP_OUT": str(out)})
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C went through the harness")
    finally:
        signal.signal(signal.SIGINT, before)
    assert got.returncode == ExitCode.INTERRUPTED, got.stderr
    report = json.loads((out / "latest" / "report.json").read_text())
    validate_report(report)
    partial = report["partial"]
    assert partial["stage"] == "build" and partial["signal"] == "SIGINT"
    assert 2 <= partial["units_done"] < partial["units_planned"] == 5
    assert len(report["differential"]) == partial["units_done"]  # what finished is in it, nothing else
    assert report["exit"]["code"] == ExitCode.INTERRUPTED and "partial" in report["exit"]["reason"]
    markdown = (out / "latest" / "report.md").read_text()
    assert markdown.startswith("> **Partial run.** Stopped by SIGINT during the build")
    assert json.loads(got.stdout) == report  # --format json still prints it
    assert "partial report" in got.stderr
