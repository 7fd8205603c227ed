"""The build stage in worker processes: every unit gets a verdict, whatever its pipeline does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._differential import build
from harness._load import load_suite

pytestmark = pytest.mark.slow


def many_cases_suite(tmp: Path, scenarios: Path, count: int) -> Path:
    root = tmp / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    (root / "toy.cases.yaml").unlink()
    lines = ["version: 1", "subject: toy", "cases:"]
    for i in range(count):
        behaviour = "    input: {behaviour: exit}" if i % 17 == 5 else ""
        lines += [f"  - id: case-{i:03d}", f"    tools: [{{name: t{i}}}]"] + ([behaviour] if behaviour else [])
    (root / "many.cases.yaml").write_text("\n".join(lines) + "\n")
    return root


def test_more_units_than_a_chunk_all_get_verdicts_in_suite_order(tmp_path: Path, scenarios: Path) -> None:
    suite = load_suite(many_cases_suite(tmp_path, scenarios, 45))
    results = build(suite, workers=2)
    assert [r.unit.key for r in results] == [(c.id, lane) for c in suite.cases for lane in c.lanes]
    assert all(r.verdict is not None for r in results)
    crashed = [r.unit.case.id for r in results
               if r.unit.lane.id == "plain" and r.new is not None and r.new.outcome == "crash"]
    assert crashed == [f"case-{i:03d}" for i in range(45) if i % 17 == 5]


def test_in_process_and_worker_builds_agree_on_every_verdict(tmp_path: Path, scenarios: Path) -> None:
    suite = load_suite(scenarios / "suites" / "toy")
    # a deadline under the suite's 1 s: the hanging pipeline spins until it, in each build
    pooled = build(suite, cases=["plain-tool", "raises", "hangs"], workers=2, timeout=0.25)
    inline = build(suite, cases=["plain-tool", "raises", "hangs"], workers=0, timeout=0.25)
    assert [(r.verdict.kind, r.new.outcome) for r in pooled] == [(r.verdict.kind, r.new.outcome) for r in inline]  # type: ignore[union-attr]


def test_a_subject_with_an_input_schema_builds(tmp_path: Path, scenarios: Path) -> None:
    root = tmp_path / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    text = (root / "suite.yaml").read_text() + "    input_schema: {properties: {behaviour: {type: string}}}\n"
    (root / "suite.yaml").write_text(text)
    results = build(load_suite(root), cases=["plain-tool"], workers=1)
    assert [r.verdict.kind for r in results] == ["identical", "intended"]  # type: ignore[union-attr]


def test_processes_a_pipeline_leaves_running_end_with_the_build(tmp_path: Path, scenarios: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    text = "version: 1\nsubject: toy\ncases:\n  - id: spawns\n    tools: [{name: a}]\n    input: {behaviour: spawn}\n"
    (root / "toy.cases.yaml").write_text(text)
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("TOY_PID_FILE", str(pid_file))
    build(load_suite(root), cases=["spawns"], lanes=["plain"], workers=1)
    pid = int(pid_file.read_text())  # the pipeline did start a process
    assert gone_within(pid, seconds=3.0)


def gone_within(pid: int, seconds: float) -> bool:
    """SIGKILL is delivered asynchronously: give the process a moment to die (or turn zombie)."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        stat = Path(f"/proc/{pid}/stat")
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("workers", [1, 2])
def test_in_worker_builds_a_pipeline_changing_its_input_on_one_lane_corrupts_no_other_call(
        scenarios: Path, workers: int) -> None:
    suite = load_suite(scenarios / "suites" / "mutating")
    results = build(suite, cases=["one", "two", "three"], workers=workers)
    names = {"one": "a", "two": "b", "three": "c"}
    assert [(r.unit.key, r.old.value, r.new.value) for r in results] == [  # type: ignore[union-attr]
        ((c, lane), {"names": [f"{names[c]}!"]}, {"names": [f"{names[c]}!"]})
        for c in ("one", "two", "three") for lane in ("first", "second", "third", "fourth")]
