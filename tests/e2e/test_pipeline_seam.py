"""Pipelines outside the harness's process, through ``harness run``: a command speaking the
JSON-lines protocol, and a Python callable inside another interpreter (the pipeline seam)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._report.validate import validate_report
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow


def harness(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, check=False, env={**os.environ, **(env or {})})


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Path:
    shutil.copytree(scenarios / "suites" / "command_pipes", tmp_path / "command_pipes")
    return tmp_path / "command_pipes"


def _report(got: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(got.stdout)
    validate_report(report)
    return report


def _new(report: dict[str, Any], case: str) -> dict[str, Any]:
    row: dict[str, Any] = next(r for r in report["differential"] if r["case"] == case)
    return row


def _programs_left(marker: str) -> list[str]:
    left = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline and "pytest" not in cmdline:
            left.append(f"{proc.name}: {cmdline}")
    return left


@pytest.mark.expensive
def test_each_fault_of_a_command_pipeline_is_an_outcome_and_the_run_goes_on(suite: Path, tmp_path: Path) -> None:
    got = harness(
        "run", str(suite), "--out", str(tmp_path / "out"), "--format", "json", "--workers", "2", cwd=tmp_path)
    assert got.returncode == 1, got.stderr
    report = _report(got)
    outcome = {r["case"]: (r["new"]["outcome"], (r["new"]["error"] or {}).get("type")) for r in report["differential"]
               if r["lane"] == "plain" and r["subject"] == "served"}
    assert outcome == {
        "plain-tool": ("ok", None), "stray-print": ("ok", None), "after-the-faults": ("ok", None),
        "raises": ("error", "ValueError"), "hangs": ("timeout", "Timeout"), "exits": ("crash", "Crash"),
        "malformed": ("error", "ProtocolError"), "wrong-id": ("error", "ProtocolError"),
    }
    exits = _new(report, "exits")["new"]["error"]["message"]
    assert "exit code 3" in exits and "fatal: gave up" in exits  # the status and its last words
    assert _new(report, "plain-tool")["checks"] == {"deterministic": "held"}
    assert not _programs_left(str(suite)), "a pipeline program outlived the run"


def test_a_python_callable_runs_inside_another_interpreter_with_its_own_path(suite: Path, tmp_path: Path) -> None:
    got = harness_main("run", str(suite), "--case", "through-another-interpreter", "--out", str(tmp_path / "out"),
                       "--format", "json", cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    row = _new(_report(got), "through-another-interpreter")
    assert row["verdict"] == "intended" and row["paths"] == ["lane"]
    run = next((tmp_path / "out").glob("*/observations"))
    bodies = [json.loads(p.read_bytes()) for p in run.glob("bodies/*/*.json")]
    tool = {"name": "echo", "description": "", "input_schema": {}}
    assert {"model": "m", "tools": [tool], "python": 3, "lane": "plain"} in bodies


@pytest.mark.expensive
def test_pins_read_the_build_stages_observations_instead_of_calling_pipelines_again(
        suite: Path, tmp_path: Path) -> None:
    calls = tmp_path / "calls.log"
    args = ("run", str(suite), "--case", "plain-tool", "--out", str(tmp_path / "out"))
    assert harness(*args, "--no-pins", cwd=tmp_path, env={"TOY_CALLS": str(calls)}).returncode == 0
    without_pins = calls.read_text().splitlines()
    calls.unlink()
    got = harness(*args, cwd=tmp_path, env={"TOY_CALLS": str(calls)})
    assert got.returncode == 0, got.stdout
    assert "pins (against new): 4 passed" in got.stdout
    # old + new on two lanes, plus the deterministic check's second new run on each lane
    assert sorted(without_pins) == sorted(calls.read_text().splitlines())
    assert len(without_pins) == 6


@pytest.mark.expensive
def test_the_saved_evidence_holds_every_observation_of_the_run(suite: Path, tmp_path: Path) -> None:
    got = harness("run", str(suite), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 1
    index = next((tmp_path / "out").glob("*/observations/observations.jsonl")).read_text().splitlines()
    keys = {(line["case"], line["lane"], line["side"]) for line in map(json.loads, index)}
    assert len(keys) == 2 * 10 and ("hangs", "plain", "new") in keys


def test_a_program_that_never_says_hello_is_a_start_failure_not_a_hung_call(tmp_path: Path, scenarios: Path) -> None:
    suite = shutil.copytree(scenarios / "suites" / "slow_start", tmp_path / "slow_start")
    got = harness_main("run", str(suite), "--no-pins", "--workers", "1", "--out", str(tmp_path / "out"),
                       "--format", "json", cwd=tmp_path)
    assert got.returncode == 1, got.stderr
    for row in _report(got)["differential"]:
        assert row["new"]["outcome"] == "error", row["new"]
        error = row["new"]["error"]
        assert error["type"] == "PipelineStart" and "no hello within 1 s" in error["message"]
