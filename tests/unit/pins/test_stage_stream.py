"""The pin stage of ``harness run`` writes each outcome to the run folder's ``pins.jsonl`` the
moment it is made: a case x lane's items as soon as its unit finishes, the Python pins' as their
pytest reports them; the file ends holding exactly the report's pin results."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from harness import _runner as runner
from harness._differential import build
from harness._load import load_suite
from harness._pins.child import StageOptions
from harness._pins.stage import STREAM, PinStage


@pytest.fixture
def suite_dir(tmp_path: Path, scenarios: Path) -> Path:
    return shutil.copytree(scenarios / "suites" / "streamed_pins", tmp_path / "streamed_pins")


def lines(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_each_units_outcomes_are_on_disk_as_soon_as_the_unit_finishes(suite_dir: Path, tmp_path: Path) -> None:
    suite = load_suite(suite_dir)
    stream = tmp_path / STREAM
    seen: list[tuple[str, str, set[str]]] = []
    with PinStage(suite, StageOptions(), stream) as stage:
        def finished(res: runner.UnitResult) -> None:
            stage.unit(res.unit.case.id, res.unit.lane.id, res.old, res.new)
            on_disk = {r["id"] for r in lines(stream) if r["id"].startswith("paced.cases.yaml::")}
            seen.append((res.unit.case.id, res.unit.lane.id, on_disk))

        build(suite, workers=0, on_result=finished)
        section = stage.finish()
    done: set[str] = set()
    for case, lane, on_disk in seen:  # after each unit: its three items, and nothing of units still to come
        done |= {f"paced.cases.yaml::{case}[{lane}]::{name}" for name in ("expect", "names_its_lane", "keeps_the_tool")}
        assert on_disk == done
    assert len(done) == 48
    python_pin = "test_paced_pins.py::test_the_first_case_names_its_lane_on_every_lane"
    assert sorted(lines(stream), key=lambda r: r["id"]) == section["results"]  # the Python pin's line too
    assert {r["id"] for r in section["results"]} == done | {python_pin}
    assert section["summary"] == {"passed": 49, "failed": 0, "skipped": 0, "error": 0}


def test_a_run_folder_holds_the_streamed_outcomes_the_report_lists(suite_dir: Path, tmp_path: Path) -> None:
    result = runner.run(load_suite(suite_dir), runner.RunOptions(out=tmp_path, rejections=False, workers=1))
    streamed = sorted(lines(result.folder / STREAM), key=lambda r: r["id"])
    assert streamed == json.loads((result.folder / "report.json").read_text())["pins"]["results"]
    assert len(streamed) == 49


def test_a_run_without_pins_writes_no_pin_stream(suite_dir: Path, tmp_path: Path) -> None:
    result = runner.run(load_suite(suite_dir), runner.RunOptions(out=tmp_path, pins=False, rejections=False))
    assert not (result.folder / STREAM).exists()


def test_a_python_pin_runs_as_soon_as_the_observations_it_reads_exist(suite_dir: Path, tmp_path: Path) -> None:
    """The pin reads c0 on both lanes: once those two units are in, its outcome is on disk while
    the rest of the build is still to come (the stage is not told the build is over)."""
    suite = load_suite(suite_dir)
    stream = tmp_path / STREAM
    results: list[runner.UnitResult] = []
    build(suite, workers=0, on_result=results.append)
    c0 = [r for r in results if r.unit.case.id == "c0"]
    python_pin = "test_paced_pins.py::test_the_first_case_names_its_lane_on_every_lane"
    with PinStage(suite, StageOptions(), stream) as stage:
        for res in c0:
            stage.unit(res.unit.case.id, res.unit.lane.id, res.old, res.new)
        deadline = time.monotonic() + 60
        while python_pin not in {r["id"] for r in lines(stream)}:
            assert time.monotonic() < deadline, "the Python pin did not run before the build was over"
            time.sleep(0.02)
        assert {r["id"]: r["outcome"] for r in lines(stream)}[python_pin] == "passed"
        for res in (r for r in results if r.unit.case.id != "c0"):
            stage.unit(res.unit.case.id, res.unit.lane.id, res.old, res.new)
        assert stage.finish()["summary"]["passed"] == 49
