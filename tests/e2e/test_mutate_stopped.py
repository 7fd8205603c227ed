"""``harness mutate`` stopped by a signal: the summary and the reports of the rows it finished
(the rest pending, the verdict incomplete), the signal's exit code; then ``--resume`` runs only the
rest and reuses the stopped run's baseline instead of running every pin on unmutated code again."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode

pytestmark = [pytest.mark.slow, pytest.mark.expensive]  # two `harness mutate` processes, one stopped

SUITE = """version: 1
name: slow
mutation:
  root: .
  pins: [tests]
  targets: ["calc.py"]
  workers: 1
"""

CALC = "def total(a, b, c):\n    return a + b + c + 1 - 2 * 3 + 4 - 5\n"

PIN = """import time

import calc


def test_total():
    time.sleep(0.3)  # slow enough to stop the run between two rows
    assert calc.total(1, 2, 3) == 0
"""


def _mutate(suite: Path, out: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "harness", "mutate", str(suite), "--out", str(out), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_stopped_run_prints_its_finished_rows_and_a_resume_reuses_its_baseline(tmp_path: Path) -> None:
    suite = tmp_path / "slow"
    (suite / "tests").mkdir(parents=True)
    (suite / "suite.yaml").write_text(SUITE)
    (suite / "calc.py").write_text(CALC)
    (suite / "tests" / "test_calc.py").write_text(PIN)
    out = tmp_path / "out"
    run = _mutate(suite, out)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while not (results.is_file() and results.read_text().count("\n") >= 1) and time.monotonic() < deadline:
        time.sleep(0.1)
    run.send_signal(signal.SIGTERM)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == ExitCode.TERMINATED, stderr
    section = json.loads((out / "mutation.json").read_text())
    finished = section["totals"]["total"] - section["totals"]["pending"]
    assert 1 <= finished < section["totals"]["total"] and not section["verdict"]["complete"]
    assert "pending, never run" in stdout and "Mutation: slow" in stdout
    assert f"harness mutate: stopped with {finished} of {section['totals']['total']} mutants run" in stderr
    baseline = json.loads((out / "baseline.json").read_text())
    again = _mutate(suite, out, "--resume")
    stdout, stderr = again.communicate(timeout=300)
    assert again.returncode == ExitCode.OK, stderr
    assert "--resume: the stopped run's baseline is reused" in stderr
    assert json.loads((out / "baseline.json").read_text()) == baseline  # not run again
    section = json.loads((out / "mutation.json").read_text())
    assert section["totals"]["pending"] == 0 and section["timing"]["resumed_rows"] == finished
