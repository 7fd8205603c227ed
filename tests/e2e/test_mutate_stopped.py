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


def _first_row(out: Path, within: float) -> None:
    """Wait until the run into ``out`` has written its first finished row (or ``within`` s pass)."""
    results = out / "results.jsonl"
    deadline = time.monotonic() + within
    while not (results.is_file() and results.read_text().count("\n") >= 1) and time.monotonic() < deadline:
        time.sleep(0.1)


def test_a_stopped_run_prints_its_finished_rows_and_a_resume_reuses_its_baseline(tmp_path: Path) -> None:
    suite = tmp_path / "slow"
    (suite / "tests").mkdir(parents=True)
    (suite / "suite.yaml").write_text(SUITE)
    (suite / "calc.py").write_text(CALC)
    (suite / "tests" / "test_calc.py").write_text(PIN)
    out = tmp_path / "out"
    run = _mutate(suite, out)
    _first_row(out, 120)
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


BUILT_SUITE = """version: 1
name: built
cases: ["*.cases.yaml"]
lanes: ["lanes.yaml"]
subjects:
  body:
    old: {{python: {python}, call: "calc:body", setup: "sleep 1; echo built >> {log}"}}
    new: {{python: {python}, call: "calc:body", setup: "sleep 1; echo built >> {log}"}}
    wires: [toy-wire]
mutation:
  root: .
  targets: ["calc.py"]
  rebuild: ""
  workers: 1
"""

BODY = "def body(inp, lane):\n    return {'model': lane['model'], 'limit': 1 + 2 * 3 - 4 + 5 * 6 - 7}\n"

CASES = """version: 1
subject: body
cases:
  - id: one
    tools: [{name: t}]
    pins:
      - {name: model_is_a_string, kind: schema, select: "model", must_match: {type: string}}
      - {name: limit_is_the_sum, kind: schema, select: "limit", must_match: {const: 29}}
"""


def test_a_resume_reuses_the_stopped_run_s_sandbox_and_its_build(tmp_path: Path) -> None:
    """The sides' setup (a build, here one second and a line in a log outside the project) ran
    once for the stopped run's scratch; the resumed run takes that scratch as it was built."""
    suite, log = tmp_path / "built", tmp_path / "setups.log"
    suite.mkdir()
    (suite / "suite.yaml").write_text(BUILT_SUITE.format(python=sys.executable, log=log))
    (suite / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: plain, wire: toy-wire, provider: toy, model: m}\n")
    (suite / "body.cases.yaml").write_text(CASES)
    (suite / "calc.py").write_text(BODY)
    out = tmp_path / "out"
    run = _mutate(suite, out)
    _first_row(out, 180)
    run.send_signal(signal.SIGINT)
    _stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == ExitCode.INTERRUPTED, stderr
    if json.loads((out / "plan.json").read_text())["sandbox"]["mode"] != "overlay":
        pytest.skip("no mount namespaces here: a copy-mode sandbox is never kept")
    assert log.read_text() == "built\n" and (out / "sandbox-kept.json").is_file()
    again = _mutate(suite, out, "--resume")
    _stdout, stderr = again.communicate(timeout=300)
    assert again.returncode == ExitCode.OK, stderr
    assert "--resume: the stopped run's sandbox and its build are reused" in stderr
    assert log.read_text() == "built\n"  # the unmutated build was not paid again
    assert not (out / "sandbox-kept.json").exists()
    section = json.loads((out / "mutation.json").read_text())
    assert section["totals"]["pending"] == 0 and section["totals"]["killed"] >= 1
