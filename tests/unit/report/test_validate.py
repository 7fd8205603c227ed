"""report.json is checked against its schema, streamed lists item by item, and planted errors are caught."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._report.stream import OrderedLines
from harness._report.validate import ReportInvalid, validate_report

SCENARIO = Path(__file__).parents[2] / "scenarios" / "reports" / "small.report.json"


def _report() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCENARIO.read_text())
    return loaded


def _streamed(report: dict[str, Any], folder: Path) -> dict[str, Any]:
    rows: OrderedLines[Any] = OrderedLines(folder / "d.jsonl", len(report["differential"]))
    for i, row in enumerate(report["differential"]):
        rows.put(i, row)
    findings: OrderedLines[Any] = OrderedLines(folder / "f.jsonl", len(report["rejections"]["findings"]))
    for i, f in enumerate(report["rejections"]["findings"]):
        findings.put(i, f)
    return {**report, "differential": rows, "rejections": {**report["rejections"], "findings": findings}}


def test_a_real_report_is_valid_whole_and_streamed(tmp_path: Path) -> None:
    validate_report(_report())
    validate_report(_streamed(_report(), tmp_path))


@pytest.mark.parametrize("plant", [
    lambda r: r["differential"][1].__setitem__("verdict", "maybe"),
    lambda r: r["differential"][0]["old"].__setitem__("outcome", "fine"),
    lambda r: r["rejections"]["findings"][0].__setitem__("side", "both"),
    lambda r: r["rejections"]["unlisted"].__setitem__("some-lane", {"no-known-rejection": "3"}),
    lambda r: r["summary"].pop("failed"),
    lambda r: r.__setitem__("extra", 1),
], ids=["row verdict", "row side outcome", "finding side", "unlisted count", "summary key", "unknown key"])
def test_a_planted_error_is_caught_in_a_streamed_report(tmp_path: Path, plant: Any) -> None:
    report = _report()
    plant(report)
    with pytest.raises(ReportInvalid):
        validate_report(report)
    with pytest.raises(ReportInvalid):
        validate_report(_streamed(report, tmp_path))


def test_the_error_names_the_row_it_is_in(tmp_path: Path) -> None:
    report = _report()
    report["differential"][1]["failed"] = "no"
    with pytest.raises(ReportInvalid, match="differential/1/failed"):
        validate_report(_streamed(report, tmp_path))
