"""The run's streams: lines written as results finish, read back in suite order, report.json from them."""

from __future__ import annotations

import json
from pathlib import Path

from harness._report.stream import OrderedLines, Slots, write_json


def test_lines_written_in_finishing_order_read_back_in_slot_order(tmp_path: Path) -> None:
    lines: OrderedLines[dict[str, int]] = OrderedLines(tmp_path / "s.jsonl", 4)
    for slot in (2, 0, 3):
        lines.put(slot, {"slot": slot})
    assert [v["slot"] for v in lines] == [0, 2, 3] and len(lines) == 3
    assert lines[1] == {"slot": 2} and lines[-1] == {"slot": 3}
    assert [json.loads(x)["slot"] for x in (tmp_path / "s.jsonl").read_text().splitlines()] == [2, 0, 3]


def test_a_slot_written_again_reads_back_its_last_value(tmp_path: Path) -> None:
    lines: OrderedLines[str] = OrderedLines(tmp_path / "s.jsonl", 2)
    lines.put(1, "first")
    lines.put(1, "second")
    assert list(lines) == ["second"]


def test_report_json_written_from_streams_has_the_bytes_of_the_whole_value(tmp_path: Path) -> None:
    rows: OrderedLines[object] = OrderedLines(tmp_path / "r.jsonl", 3)
    rows.put(1, {"text": "é\nline", "nested": [1, {"a": None}]})
    rows.put(0, [])
    empty: OrderedLines[object] = OrderedLines(tmp_path / "e.jsonl", 1)
    doc = {"a": 1, "rows": rows, "section": {"findings": empty, "more": [1, 2]}, "z": {}}
    write_json(tmp_path / "report.json", doc)
    whole = {"a": 1, "rows": list(rows), "section": {"findings": [], "more": [1, 2]}, "z": {}}
    assert (tmp_path / "report.json").read_text() == json.dumps(whole, indent=1, ensure_ascii=False) + "\n"


def test_each_planned_case_and_lane_has_its_place_in_the_suite() -> None:
    plan = [("c1", "a"), ("c1", "b"), ("c2", "a"), ("c2", "b"), ("c3", "b")]
    slots = Slots(plan)
    assert [slots(c, ln) for c, ln in plan] == [0, 1, 2, 3, 4] and slots.total == 5
