"""The mutation engine end to end on a tiny scenario project (tests/scenarios/mutate/calc):
a mutant that loops forever, one that calls os._exit, one that segfaults, one that cannot import,
an already-failing pin, claims that hold and fail, an equivalent that holds, shards, resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness._exitcodes import ExitCode
from harness._load import load_suite
from harness._mutate import Options, merge, run
from harness._mutate.results import expand
from harness._mutate.stryker import official_schema
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "mutate" / "calc"
HARNESS = [sys.executable, "-c", "from harness._cli.main import main; main()"]


def _copy(dest: Path) -> Path:
    shutil.copytree(SCENARIO, dest)
    return dest


def _matrix(section: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    section = expand(section)
    return {m["key"]: (m["id"], m["status"], tuple(m["killed_by"]), tuple(m["timed_out"]), tuple(m["covered_by"]))
            for m in section["mutants"]}


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], int]:
    base = tmp_path_factory.mktemp("calc")
    suite = _copy(base / "calc")
    # in this process: what the run writes and returns is the point (the engine is its own
    # interpreter either way); a subprocess would import the planner and mutmut's libcst again
    proc = harness_main("mutate", str(suite), "--out", str(base / "out"), "-q")
    section = expand(json.loads((base / "out" / "mutation.json").read_text()))
    return base / "out", section, proc.returncode


def _mutant(section: dict[str, Any], mid: str) -> dict[str, Any]:
    return next(m for m in section["mutants"] if m["id"] == mid)


def test_a_mutant_that_loops_forever_times_out_in_about_a_second(full: tuple[Path, dict[str, Any], int]) -> None:
    _, section, _ = full
    loop = _mutant(section, "countdown-forever")
    assert loop["status"] == "timeout"
    assert loop["timed_out"] == ["tests/test_calc.py::test_countdown"]
    assert section["timing"]["mutant_s"]["countdown-forever"] < 3.0


def test_os_exit_and_a_segfault_are_kills_and_the_rest_of_the_row_still_runs(
        full: tuple[Path, dict[str, Any], int]) -> None:
    _, section, _ = full
    exits = _mutant(section, "add-exits")
    assert exits["status"] == "killed" and exits["crashed"] == ["tests/test_calc.py::test_add"]
    assert exits["details"]["tests/test_calc.py::test_add"] == "exited with code 3"
    segv = _mutant(section, "clamp-segfault")
    assert segv["killed_by"] == ["tests/test_calc.py::test_clamp_low"]
    assert segv["details"]["tests/test_calc.py::test_clamp_low"] == "killed by SIGSEGV"
    # the pins after the crashing one ran in a fresh child and stayed green
    assert set(segv["covered_by"]) == {"tests/test_calc.py::test_clamp_low", "tests/test_calc.py::test_clamp_high",
                                       "tests/test_calc.py::test_clamp_inside"}


def test_a_mutant_that_cannot_import_is_unviable_not_a_kill(full: tuple[Path, dict[str, Any], int]) -> None:
    _, section, _ = full
    broken = _mutant(section, "calc-does-not-import")
    assert broken["status"] == "unviable" and broken["killed_by"] == []
    assert "ModuleNotFoundError" in broken["unviable"]
    assert broken["claim"]["result"] == "failed"


def test_a_pin_failing_on_unmutated_code_is_left_out_and_reported(full: tuple[Path, dict[str, Any], int]) -> None:
    out, section, _ = full
    assert section["pins"]["excluded"] == [
        {"pin": "tests/test_calc.py::test_already_failing", "outcome": "failed", "detail": ""}]
    assert all("tests/test_calc.py::test_already_failing" not in m["covered_by"] for m in section["mutants"])
    assert "test_already_failing`: failed" in (out / "mutation.md").read_text()


def test_claims_are_checked_exactly_and_a_green_claimed_pin_fails_the_run(
        full: tuple[Path, dict[str, Any], int]) -> None:
    _, section, code = full
    assert _mutant(section, "add-exits")["claim"]["result"] == "exact"
    off = _mutant(section, "clamp-high-off")["claim"]
    assert off["result"] == "failed" and off["green"] == ["tests/test_calc.py::test_clamp_inside"]
    assert off["red"] == ["tests/test_calc.py::test_clamp_high"]
    assert _mutant(section, "clamp-noop")["status"] == "equivalent"
    assert code == ExitCode.MUTANTS_ESCAPED


def test_survivors_are_listed_with_their_diffs(full: tuple[Path, dict[str, Any], int]) -> None:
    out, section, _ = full
    schema = json.loads((SCENARIO.parents[3] / "harness/_report/schemas/mutation.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(json.loads((out / "mutation.json").read_text()))
    assert section["escaped"] == ["calc.x_clamp__mutmut_1", "calc.x_clamp__mutmut_2"]
    markdown = (out / "mutation.md").read_text()
    assert "-    if x < lo:\n+    if x <= lo:" in markdown
    html = (out / "mutation.html").read_text()
    assert "<script src" not in html and "http" not in html.split("</head>")[1]  # offline: inline only
    assert html.index("<h2>Escapes (2)") < html.index('id="mutants"')


def test_the_stryker_report_of_a_real_run_carries_each_mutants_replacement(
        full: tuple[Path, dict[str, Any], int]) -> None:
    """mutmut's operator mutants and the ledger's declared ones: the source with each location
    swapped for its replacement is the mutated line the mutant's diff shows."""
    out, section, _ = full
    report = json.loads((out / "mutation-report.json").read_text())
    schema = official_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(report)
    diffs = {m["id"]: m["diff"] for m in section["mutants"]}
    checked = 0
    for entry in report["files"].values():
        lines = entry["source"].splitlines()
        for m in entry["mutants"]:
            if "replacement" not in m or m["location"]["start"]["line"] != m["location"]["end"]["line"]:
                continue
            loc = m["location"]
            line = lines[loc["start"]["line"] - 1]
            mutated = line[: loc["start"]["column"] - 1] + m["replacement"] + line[loc["end"]["column"] - 1:]
            # an insertion (zero-width location) stands before the line; a replacement changes it
            expected = m["replacement"] if loc["start"] == loc["end"] else mutated
            added = diffs[m["id"]].splitlines()
            assert all(f"+{part}" in added for part in expected.splitlines()), (m["id"], expected, added)
            checked += 1
    assert checked >= 5
    page = (out / "mutation-report.html").read_text()
    assert "<mutation-test-report-app" in page and json.dumps(report["schemaVersion"]) in page


@pytest.mark.expensive
def test_shards_merge_to_the_same_matrix_as_one_run(full: tuple[Path, dict[str, Any], int], tmp_path: Path) -> None:
    _, whole, _ = full
    suite = load_suite(_copy(tmp_path / "calc"))
    for k in (1, 2):
        run(suite, Options(shard=(k, 2), out=tmp_path / f"shard{k}"))
    merged = merge([tmp_path / "shard1", tmp_path / "shard2"], tmp_path / "merged")
    assert _matrix(merged) == _matrix(whole)
    assert merged["shard"] == ["1/2", "2/2"] and merged["verdict"]["complete"]


@pytest.mark.expensive
def test_an_interrupted_run_resumes_without_redoing_finished_mutants(
        full: tuple[Path, dict[str, Any], int], tmp_path: Path) -> None:
    _, whole, _ = full
    suite = _copy(tmp_path / "calc")
    out = tmp_path / "out"
    results = out / "results.jsonl"
    cmd = [*HARNESS, "mutate", str(suite), "--out", str(out), "-q", "--workers", "1"]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not results.exists() or len(results.read_text().splitlines()) < 4):
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = results.read_text().splitlines()
    finished = [json.loads(line) for line in before if line.endswith("}")]
    assert 4 <= len(finished) < len(whole["mutants"])
    resumed = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, check=False)
    assert resumed.returncode == ExitCode.MUTANTS_ESCAPED, resumed.stderr
    after = [json.loads(line) for line in results.read_text().splitlines()]
    assert after[:len(finished)] == finished  # not redone: byte-identical rows, durations included
    section = json.loads((out / "mutation.json").read_text())
    assert section["timing"]["resumed_rows"] == len(finished)
    assert _matrix(section) == _matrix(whole)


@pytest.mark.expensive
def test_a_claim_naming_no_collected_pin_is_bad_input_before_any_mutant_runs(tmp_path: Path) -> None:
    suite = _copy(tmp_path / "calc")
    ledger = suite / "calc.ledger.yaml"
    text = ledger.read_text().replace("tests/test_calc.py::test_countdown", "tests/test_calc.py::test_cuontdown")
    ledger.write_text(text)
    proc = subprocess.run([*HARNESS, "mutate", str(suite), "--out", str(tmp_path / "out"), "-q"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == ExitCode.BAD_INPUT
    assert "calc.ledger.yaml:22 at mutants[3].killed_by[0]" in proc.stderr and "countdown-forever" in proc.stderr
    assert "'tests/test_calc.py::test_cuontdown'" in proc.stderr
    assert not (tmp_path / "out" / "results.jsonl").exists()


KILLS_ENGINE = """  - id: add-kills-engine
    title: add kills the process that runs its pins
    site: {file: calc.py, function: add}
    change: {find: "    return a + b\\n",
             replace: "    import os, signal\\n    os.kill(os.getppid(), signal.SIGKILL)\\n"}
    killed_by: [tests/test_calc.py::test_add]
"""


@pytest.mark.expensive
def test_a_mutant_that_kills_the_engine_is_its_outcome_and_the_run_goes_on(tmp_path: Path) -> None:
    suite = _copy(tmp_path / "calc")
    (suite / "calc.ledger.yaml").write_text((suite / "calc.ledger.yaml").read_text() + KILLS_ENGINE)
    proc = subprocess.run([*HARNESS, "mutate", str(suite), "--out", str(tmp_path / "out"), "-q", "--workers", "2",
                           "--mutant", "add-kills-engine", "--mutant", "clamp-*", "--mutant", "add-exits"],
                          capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode != ExitCode.BAD_INPUT, proc.stderr
    assert "mutant add-kills-engine killed the mutation engine (signal SIGKILL): recorded as its outcome" \
           in proc.stderr
    section = expand(json.loads((tmp_path / "out" / "mutation.json").read_text()))
    killer = _mutant(section, "add-kills-engine")
    assert killer["status"] == "killed" and killer["claim"]["result"] == "exact"
    assert "killed the mutation engine (signal SIGKILL)" in killer["details"]["tests/test_calc.py::test_add"]
    assert {m["id"]: m["status"] for m in section["mutants"]} == {
        "add-kills-engine": "killed", "add-exits": "killed", "clamp-segfault": "killed", "clamp-high-off": "killed",
        "clamp-noop": "equivalent"}
    # the passes after the kill kept the baseline the run measured: not measured again (its key
    # blanked by a plan without one), every pin not run once more on unmutated code
    assert proc.stderr.count("running them one at a time") >= 1
    baseline = json.loads((tmp_path / "out" / "baseline.json").read_text())
    assert baseline["key"], "the baseline was measured again by a pass after the kill"
