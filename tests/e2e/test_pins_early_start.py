"""The pins' pytest of ``harness run`` starts before the run's input checks, so its start-up
(pytest's import, installed plugins, collection) overlaps them; yet it runs no pin before the
run folder exists, and bad input found by those checks ends it with the run: no folder, no
process left."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from harness import _runner as runner
from harness._common import supervise
from harness._errors import InputErrors
from harness._load import load_suite
from harness._model import Suite

pytestmark = pytest.mark.slow

PIN = "test_folder_pin.py::test_the_run_folder_exists_when_a_pin_runs"


def children() -> set[int]:
    """This process's child processes (every thread's), zombies included until reaped; the
    harness's watchdog, started once per process and kept, is started first."""
    supervise.start()
    tasks = Path(f"/proc/{os.getpid()}/task")
    return {int(pid) for task in tasks.iterdir() for pid in (task / "children").read_text().split()}


@pytest.fixture
def suite_dir(tmp_path: Path, scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EARLY_PINS_OUT", str(tmp_path / "out"))
    monkeypatch.setenv("EARLY_PINS_SEEN", str(tmp_path / "seen.txt"))
    return shutil.copytree(scenarios / "suites" / "early_pins", tmp_path / "early_pins")


def test_the_pins_pytest_runs_beside_the_input_checks_and_its_pin_after_the_folder_exists(
        suite_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    during_checks: list[set[int]] = []
    checks = runner.preload

    def watched(suite: Suite, options: runner.RunOptions) -> None:
        during_checks.append(children())
        checks(suite, options)

    monkeypatch.setattr(runner, "preload", watched)
    before = children()
    result = runner.run(load_suite(suite_dir), runner.RunOptions(out=tmp_path / "out", rejections=False, workers=1))
    assert during_checks and during_checks[0] - before, "no pins' pytest was running during the input checks"
    outcomes = {r["id"]: r["outcome"] for r in result.report["pins"]["results"]}
    assert outcomes[PIN] == "passed"
    assert result.folder.name in (tmp_path / "seen.txt").read_text().split("\n")
    streamed = [json.loads(line) for line in (result.folder / "pins.jsonl").read_text().splitlines()]
    assert PIN in {row["id"] for row in streamed}  # the child was told where its outcomes go
    assert children() == before


def test_bad_input_the_checks_find_leaves_no_run_folder_and_no_pins_process(suite_dir: Path, tmp_path: Path) -> None:
    (suite_dir / "broken.ledger.yaml").write_text("version: 1\ntargets: [\n")
    before = children()
    with pytest.raises(InputErrors, match=r"broken\.ledger\.yaml"):
        runner.run(load_suite(suite_dir), runner.RunOptions(out=tmp_path / "out", rejections=False, workers=1))
    out = tmp_path / "out"
    assert not out.exists() or not any(out.iterdir())
    assert children() == before
    assert not (tmp_path / "seen.txt").exists()  # no pin ran
