"""Stopping ``harness run`` during the pin stage: SIGTERM still writes a report that says it is
partial and names the pin stage; after SIGTERM or SIGKILL no process of the stage is left (the
Python pins' pytest is a fork of the harness, in a process group of its own)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode
from harness._report.validate import validate_report

pytestmark = pytest.mark.slow

MARK = "HARNESS_TEST_PIN_STAGE"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def until(check: object, within: float) -> None:
    start = time.monotonic()
    while not check():  # type: ignore[operator]
        if time.monotonic() - start > within:
            pytest.fail(f"not within {within} s")
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_stopping_the_pin_stage_leaves_a_partial_report_and_no_process(scenarios: Path, tmp_path: Path,
                                                                        sig: int) -> None:
    suite = shutil.copytree(scenarios / "suites" / "slow_python_pin", tmp_path / "slow_python_pin")
    out = tmp_path / "out"
    env = {**os.environ, MARK: uuid.uuid4().hex}
    env.pop("HARNESS_SUPERVISOR_TOKEN", None)  # the harness under test gets its own watchdog
    harness = subprocess.Popen([sys.executable, "-m", "harness", "run", str(suite), "--out", str(out), "-q",
                                "--format", "json"], env=env, cwd=suite, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    started = suite / "pin-started"
    until(lambda: started.exists() and started.read_text(), within=120)
    pin = int(started.read_text())
    assert pin != harness.pid and alive(pin)
    harness.send_signal(sig)
    _, stderr = harness.communicate(timeout=60)
    until(lambda: not alive(pin), within=10)
    if sig == signal.SIGKILL:
        return
    assert harness.returncode == ExitCode.TERMINATED, stderr
    report = json.loads((out / "latest" / "report.json").read_text())
    validate_report(report)
    assert report["partial"]["stage"] == "pins" and report["partial"]["signal"] == "SIGTERM"
    assert report["partial"]["units_done"] == report["partial"]["units_planned"] == 1
    assert report["pins"] is None  # nothing claims the stopped stage passed
