"""`harness mutate --mutant ID` runs one mutant; `--case/--lane` run only those case-file pins, and
a declared mutant whose claimed pins they leave out is named and left out, not failed. Run on the
case-file scenario (tests/scenarios/mutate/cased) grown to two cases, two lanes, three mutants."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness._exitcodes import ExitCode
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "mutate" / "cased"

OTHER_CASE = """  - id: other
    title: the tools pass through
    tools:
      - {name: u, description: e, input_schema: {type: object}}
    expect: {"*": same}
    pins:
      - name: tools_kept
        kind: schema
        select: "tools"
        must_match: {type: array, minItems: 1}
"""
MORE_MUTANTS = """  - id: model-upper-dropped
    title: the model becomes an empty list
    site: {file: echo.py, function: new_body}
    change: {find: "str(model)", replace: "[]"}
    killed_by:
      - plain::model_is_string
  - id: tools-dropped
    title: the tools are lost
    site: {file: echo.py, function: new_body}
    change: {find: "\\"tools\\": inp[\\"tools\\"]}\\n", replace: "\\"tools\\": []}\\n"}
    killed_by:
      - other::tools_kept
"""


@pytest.fixture()
def suite(tmp_path: Path) -> Path:
    root = shutil.copytree(SCENARIO, tmp_path / "cased")
    (root / "echo.cases.yaml").write_text((root / "echo.cases.yaml").read_text() + OTHER_CASE)
    (root / "echo.ledger.yaml").write_text((root / "echo.ledger.yaml").read_text() + MORE_MUTANTS)
    (root / "lanes.yaml").write_text((root / "lanes.yaml").read_text()
                                     + "  - {id: two, wire: echo-wire, provider: none, model: m-2}\n")
    return root


def _mutate(suite: Path, out: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    # in this process: what the run writes, says and returns is the point (the engine is its own
    # interpreter either way), not a second interpreter importing the planner again
    proc = harness_main("mutate", str(suite), "--out", str(out), "-q", *extra, cwd=suite.parent)
    path = out / "mutation.json"
    return proc, (json.loads(path.read_text()) if proc.returncode != 2 and path.is_file() else {})


def test_the_whole_run_has_three_mutants_and_four_pins(suite: Path, tmp_path: Path) -> None:
    proc, section = _mutate(suite, tmp_path / "all")
    assert proc.returncode == ExitCode.OK, proc.stderr
    assert [m["id"] for m in section["mutants"]] == ["model-dropped", "model-upper-dropped", "tools-dropped"]
    assert section["pins"]["collected"] == 4  # two pins on two lanes


@pytest.mark.expensive
def test_mutant_runs_only_the_named_mutant(suite: Path, tmp_path: Path) -> None:
    proc, section = _mutate(suite, tmp_path / "one", "--mutant", "tools-dropped")
    assert proc.returncode == ExitCode.OK, proc.stderr
    (mutant,) = section["mutants"]
    assert mutant["id"] == "tools-dropped" and mutant["status"] == "killed"
    assert section["totals"]["total"] == 1 and section["verdict"]["complete"] is True


@pytest.mark.expensive
def test_mutant_takes_a_glob_and_refuses_an_id_that_names_no_mutant(suite: Path, tmp_path: Path) -> None:
    proc, section = _mutate(suite, tmp_path / "glob", "--mutant", "model-*")
    assert [m["id"] for m in section["mutants"]] == ["model-dropped", "model-upper-dropped"], proc.stderr
    proc, _ = _mutate(suite, tmp_path / "typo", "--mutant", "model-droped")
    assert proc.returncode == ExitCode.BAD_INPUT
    assert "--mutant='model-droped'" in proc.stderr and "model-dropped" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.expensive
def test_case_runs_only_its_pins_and_names_the_mutant_it_leaves_out(suite: Path, tmp_path: Path) -> None:
    proc, section = _mutate(suite, tmp_path / "plain", "--case", "plain")
    assert proc.returncode == ExitCode.OK, proc.stderr
    assert all("::plain[" in p for p in section["pins"]["ids"]) and section["pins"]["collected"] == 2
    assert [m["id"] for m in section["mutants"]] == ["model-dropped", "model-upper-dropped"]
    assert "left out 1 declared mutant(s) whose claimed pins are outside --case/--lane: tools-dropped" in proc.stderr


@pytest.mark.expensive
def test_lane_runs_only_that_lanes_pins_and_claims_are_judged_there(suite: Path, tmp_path: Path) -> None:
    proc, section = _mutate(suite, tmp_path / "two", "--lane", "two")
    assert proc.returncode == ExitCode.OK, proc.stderr
    assert sorted(section["pins"]["ids"]) == ["echo.cases.yaml::other[two]::tools_kept",
                                              "echo.cases.yaml::plain[two]::model_is_string"]
    assert {m["claim"]["result"] for m in section["mutants"]} == {"exact"}


def test_a_case_glob_that_matches_no_case_is_bad_input(suite: Path, tmp_path: Path) -> None:
    # in this process: refused before any mutant runs, so what it says and returns is the point
    proc = harness_main("mutate", str(suite), "--out", str(tmp_path / "none"), "-q", "--case", "plian",
                        cwd=suite.parent)
    assert proc.returncode == ExitCode.BAD_INPUT and "--case='plian'" in proc.stderr
