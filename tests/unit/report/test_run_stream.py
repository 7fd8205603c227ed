"""A run writes each unit's row to the run folder as it finishes and assembles report.json from that file."""

from __future__ import annotations

import json
from pathlib import Path

from harness import _runner as runner
from harness._common.redact import Redactor
from harness._differential import UnitResult
from harness._load.suite import load_suite
from harness._report.stream import OrderedLines


def test_report_rows_are_read_back_from_the_streamed_file_in_suite_order(tmp_path: Path, scenarios: Path) -> None:
    suite = load_suite(scenarios / "suites" / "hostile")
    result = runner.run(suite, runner.RunOptions(pins=False, out=tmp_path, workers=2))
    rows = result.report["differential"]
    assert isinstance(rows, OrderedLines) and rows.path == result.folder / "differential.jsonl"
    streamed = {(r["case"], r["lane"]): r for r in map(json.loads, rows.path.read_text().splitlines())}
    written = json.loads((result.folder / "report.json").read_text())["differential"]
    assert written == list(rows) and {(r["case"], r["lane"]): r for r in written} == streamed
    plan = [(u.case.id, u.lane.id) for u in runner.units(suite)]
    assert [(r["case"], r["lane"]) for r in written] == plan


def test_each_distinct_string_is_redacted_once() -> None:
    redactor = Redactor([])
    calls: list[str] = []
    real = redactor._redact

    def counted(value: str) -> str:
        calls.append(value)
        return real(value)

    redactor._redact = counted  # type: ignore[method-assign]
    rows = [{"case": "c", "lane": f"l{i % 3}", "verdict": "identical"} for i in range(30)]
    redactor.value(rows)
    assert sorted(calls) == sorted({"case", "lane", "verdict", "c", "l0", "l1", "l2", "identical"})


def test_a_finished_units_bodies_are_let_go_once_streamed(tmp_path: Path, scenarios: Path) -> None:
    suite = load_suite(scenarios / "suites" / "hostile")
    seen: list[UnitResult] = []
    runner.run(suite, runner.RunOptions(cases=["calm"], pins=False, out=tmp_path, workers=0), seen.append)
    assert seen and all(r.old is None and r.new is None and r.verdict is None for r in seen)
