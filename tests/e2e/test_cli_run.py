"""``harness run`` end to end on scenario suites: reports, exit codes, no tracebacks."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._report.validate import validate_report
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command in its own interpreter, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, check=False)


def without_times(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k != "timings"}


@pytest.fixture
def toy(tmp_path: Path, scenarios: Path) -> Path:
    shutil.copytree(scenarios / "suites" / "toy", tmp_path / "toy")
    return tmp_path / "toy"


def test_a_run_writes_valid_reports_records_every_misbehaviour_and_exits_1(toy: Path, tmp_path: Path) -> None:
    # --timeout: the hanging pipeline spins, burning CPU until its deadline (the suite's 1 s)
    got = harness_main("run", str(toy), "--timeout", "0.25", "--out", str(tmp_path / "out"), "--format", "json",
                       cwd=tmp_path)
    assert got.returncode == 1, got.stderr
    report = json.loads(got.stdout)
    validate_report(report)
    verdicts = {(r["case"], r["lane"]): (r["verdict"], r["new"]["outcome"]) for r in report["differential"]}
    assert verdicts[("hangs", "plain")] == ("error", "timeout")
    assert verdicts[("crashes", "plain")] == ("error", "crash")
    assert verdicts[("exits", "plain")] == ("error", "crash")
    assert verdicts[("raises", "plain")] == ("error", "error")
    raised = next(r for r in report["differential"] if r["case"] == "raises")["new"]["error"]
    assert raised["where"].startswith("toy_pipes.py:") and raised["where"].endswith("in _misbehave")
    assert verdicts[("after-the-crashes", "plain")] == ("identical", "ok")  # nothing after a crash is lost
    assert verdicts[("plain-tool", "fancy")] == ("intended", "ok")
    latest = tmp_path / "out" / "latest"
    assert {p.name for p in latest.iterdir()} >= {"report.json", "report.md", "junit.xml", "differential.jsonl",
                                                  "differential.html"}
    assert "Traceback" not in got.stderr
    # off a terminal: each failing unit as it finishes, and where the build is, with the time left
    assert re.search(r"^\[\d/7\] hangs on plain: error \(", got.stderr, re.M), got.stderr
    assert re.search(r"^harness: 7/7 built \(100\.0%\), \d+ s elapsed, done$", got.stderr, re.M), got.stderr


def test_two_runs_give_the_same_report_apart_from_timings(toy: Path, tmp_path: Path) -> None:
    args = ("run", str(toy), "--case", "plain-tool", "--out", str(tmp_path / "out"), "--format", "json")
    first, second = (json.loads(harness_main(*args, cwd=tmp_path).stdout) for _ in range(2))
    assert json.dumps(without_times(first), sort_keys=True) == json.dumps(without_times(second), sort_keys=True)


@pytest.mark.expensive  # two interpreters (each its own hash seed): about 3 CPU s; the same runs in this process above
def test_two_runs_in_fresh_interpreters_give_the_same_report_apart_from_timings(toy: Path, tmp_path: Path) -> None:
    args = ("run", str(toy), "--case", "plain-tool", "--out", str(tmp_path / "out"), "--format", "json")
    first, second = (json.loads(harness(*args, cwd=tmp_path).stdout) for _ in range(2))
    assert json.dumps(without_times(first), sort_keys=True) == json.dumps(without_times(second), sort_keys=True)


def test_a_clean_selection_exits_0_and_prints_the_table(toy: Path, tmp_path: Path) -> None:
    got = harness_main("run", str(toy), "--case", "plain-tool", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "plain-tool" in got.stdout and "intended" in got.stdout


def test_pins_against_old_report_which_pins_catch_it(toy: Path, tmp_path: Path) -> None:
    got = harness_main("run", str(toy), "--case", "plain-tool", "--pins-against", "old", "--out", str(tmp_path / "o"),
                  "--format", "json", cwd=tmp_path)
    report = json.loads(got.stdout)
    assert report["pins"]["catches_old"] == {"failed": 1, "passed": [],
                                             "marked": ["toy.cases.yaml::plain-tool[fancy]::fancy_names_are_upper"]}
    assert got.returncode == 0  # the one catches_old pin failed against old, as it should


def test_a_broken_suite_exits_2_with_one_message_and_no_traceback(toy: Path, tmp_path: Path) -> None:
    (toy / "toy.cases.yaml").write_text("version: 1\nsubject: toy\ncases:\n  - {id: x, tools: [], colour: 1}\n")
    got = harness_main("run", str(toy), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2
    assert "toy.cases.yaml:4 at cases[0].colour" in got.stderr and "Traceback" not in got.stderr


def test_filters_that_match_nothing_are_a_bad_argument(toy: Path, tmp_path: Path) -> None:
    got = harness_main("run", str(toy), "--lane", "nope", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2 and "bad argument" in got.stderr


def test_an_output_folder_that_is_a_file_is_a_bad_argument_not_a_bug(toy: Path, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    got = harness_main("run", str(toy), "--out", str(tmp_path / "afile"), cwd=tmp_path)
    assert got.returncode == 2 and "afile" in got.stderr and "internal error" not in got.stderr


def test_a_mistyped_rejection_declaration_stops_the_run_before_anything_is_built(tmp_path: Path) -> None:
    from tests.unit.reject.scenario import write_suite

    suite = write_suite(tmp_path, {"rule": "demo.root-compositon", "lanes": ["gw"], "why": "a typo"})
    got = harness_main("run", str(suite), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2, got.stderr
    assert "demo.cases.yaml" in got.stderr and "cases[1].rejections[0].rule" in got.stderr
    assert "'demo.root-compositon'" in got.stderr
    assert not (tmp_path / "out").exists()  # nothing ran, no run folder


@pytest.mark.expensive  # the bundled suite's whole catalog is loaded first: about 1.4 CPU s
def test_a_mistyped_rejection_declaration_in_the_bundled_suite_stops_the_run_before_anything_is_built(
        tmp_path: Path, repo: Path) -> None:
    shutil.copytree(repo / "cases", tmp_path / "cases")
    shutil.copytree(repo / "cassettes", tmp_path / "cassettes")
    case_file = tmp_path / "cases" / "anthropic_messages" / "recorded_tools.cases.yaml"
    text = case_file.read_text()
    assert "rule: anthropic.root-composition" in text
    case_file.write_text(text.replace("rule: anthropic.root-composition", "rule: anthropic.root-compositon", 1))
    got = harness_main("run", "cases", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2, got.stderr
    assert "recorded_tools.cases.yaml" in got.stderr and "rejections[0].rule" in got.stderr
    assert not (tmp_path / "out").exists()  # nothing ran, no run folder


def test_a_broken_ledger_is_bad_input_for_the_main_job_too(toy: Path, tmp_path: Path) -> None:
    (toy / "bad.ledger.yaml").write_text("version: 1\nmutants:\n  - {id: x, colour: 1}\n")
    got = harness_main("run", str(toy), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2 and "bad.ledger.yaml:3 at mutants[0].colour" in got.stderr


def test_a_latest_that_is_a_real_folder_does_not_hide_the_verdict(toy: Path, tmp_path: Path) -> None:
    (tmp_path / "out" / "latest").mkdir(parents=True)
    got = harness_main("run", str(toy), "--case", "plain-tool", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert "latest is not a symlink" in got.stderr and not list((tmp_path / "out").glob(".latest.*"))


def test_workers_zero_is_refused_because_pipelines_must_run_isolated(toy: Path, tmp_path: Path) -> None:
    got = harness_main("run", str(toy), "--workers", "0", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2 and "--workers" in got.stderr


def test_a_timeout_of_nan_is_a_bad_argument(toy: Path, tmp_path: Path) -> None:
    got = harness_main("run", str(toy), "--timeout", "nan", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2 and "nan" in got.stderr and not (tmp_path / "out").exists()
