"""``harness run``'s rejection lines on a first run (old and new the same code): the known
rejections both sides share are said out loud and the exit line does not call the run clean;
``--format summary`` and ``-qq`` print the counts alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.e2e.inproc import harness_main
from tests.unit.reject.scenario import write_suite

pytestmark = pytest.mark.slow


@pytest.fixture
def first_run(tmp_path: Path) -> Path:
    """The one-rule scenario suite (its old and new pipelines are one function) with a case whose
    tool carries a root union the rule's receipt records a 400 for."""
    root = write_suite(tmp_path, None)
    cases = yaml.safe_load((root / "demo.cases.yaml").read_text())
    cases["cases"].append({"id": "union", "tools": [{"name": "u", "description": "d", "input_schema": {
        "type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}], "expect": {"*": "same"}})
    (root / "demo.cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    return root


def test_a_first_run_with_old_equal_to_new_warns_of_its_persisting_rejections_and_is_not_clean(
        first_run: Path, tmp_path: Path) -> None:
    got = harness_main("run", str(first_run), "--no-pins", "--out", str(tmp_path / "out"), "--workers", "1", "-q",
                       cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert any(line.startswith("  WARNING: 1 undeclared known rejection(s) on the new pipeline are persisting")
               for line in lines), got.stdout
    last = lines[-1]
    assert last.startswith("exit 0: not clean: 1 undeclared known rejection(s) persist")
    report = json.loads((tmp_path / "out" / "latest" / "report.json").read_text())
    assert report["exit"]["reason"].startswith("not clean")


@pytest.mark.parametrize("how", [("--format", "summary"), ("-qq",)])
def test_counts_only_output_is_a_line_per_stage_and_the_exit_line(
        first_run: Path, tmp_path: Path, how: tuple[str, ...]) -> None:
    got = harness_main("run", str(first_run), "--no-pins", "--out", str(tmp_path / "out"), "--workers", "1", *how,
                       cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[0] == "6 runs: 6 same, 0 order, 0 intended, 0 DIFF, 0 ERROR; 0 failing"
    assert lines[1].startswith("rejections: 12 bodies checked; new pipeline: 1 bodies rejected (1 with an "
                               "undeclared rejection); old pipeline: 1 bodies rejected; hits (rule x place): ")
    assert lines[2].startswith("  delta in bodies (new against old): 0 introduced (0 undeclared), 0 fixed, "
                               "0 silenced (constraint lost, not a fix), 1 persisting")
    assert lines[3].startswith("  WARNING: 1 undeclared")
    assert lines[-1].startswith("exit 0: not clean")
    assert len(lines) == 5 and "legend" not in got.stdout and "REJECTED" not in got.stdout
