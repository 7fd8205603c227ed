"""differential.html is self-contained and safe with whatever a run holds: every name escaped, each
cell's diff and bodies inlined within a budget (larger bodies linked from observations/), and a
run too broad for one page drawn up to a cap, with the counts of the whole run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness._report import page
from harness._report.page import render_page

HOSTILE = '</script><script>alert("x")</script><img src=x onerror=alert(1)>'


def _row(folder: Path, case: str, lane: str, old: Any, new: Any, verdict: str = "intended") -> dict[str, Any]:
    """A report row whose two bodies are saved in the run folder, named by their content."""
    sides, links = {}, {}
    for side, value in (("old", old), ("new", new)):
        text = json.dumps(value)
        key = f"{abs(hash(text)):x}"
        (folder / "observations").mkdir(exist_ok=True)
        (folder / "observations" / f"{key}.json").write_text(text)
        sides[side] = {"outcome": "ok", "sha256": key, "bytes": len(text), "error": None}
        links[side] = f"observations/{key}.json"
    return {"subject": "s", "case": case, "lane": lane, "verdict": verdict, "failed": verdict == "unexpected",
            "detail": "", "why": "declared", "paths": ["tools[0]"], **sides, "evidence": links}


def _report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    verdicts = {k: sum(r["verdict"] == k for r in rows) for k in page.VERDICTS}
    return {"suite": {"name": "s"}, "differential": rows, "exit": {"code": 1, "reason": "r"},
            "summary": {"units": len(rows), "verdicts": verdicts, "failed": sum(r["failed"] for r in rows)}}


def _data(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="differential-data" type="application/json">(.*?)</script>', html, re.S)
    assert found is not None
    loaded: dict[str, Any] = json.loads(found.group(1))
    return loaded


def test_hostile_case_and_lane_names_are_escaped_in_the_grid_and_the_data(tmp_path: Path) -> None:
    row = _row(tmp_path, HOSTILE, HOSTILE, {"a": HOSTILE}, {"a": 2}, "unexpected")
    html = render_page(_report([row]), tmp_path)
    assert HOSTILE not in html and "<img" not in html and html.count("</script>") == 2
    data = _data(html)
    assert data["units"][0]["case"] == HOSTILE  # the panel sets it as text, whole
    assert f'-  "a": {json.dumps(HOSTILE)}' in data["diffs"][0]


def test_each_cell_carries_its_unified_diff_and_both_bodies_each_body_inlined_once(tmp_path: Path) -> None:
    same = {"tools": [{"name": "t"}]}
    rows = [_row(tmp_path, "c1", "a", same, {"tools": [{"name": "t", "strict": True}]}),
            _row(tmp_path, "c1", "b", same, same, "identical")]
    data = _data(render_page(_report(rows), tmp_path))
    changed, identical = data["units"]
    assert data["diffs"][changed["d"]][:3] == ["--- old", "+++ new", "@@ -1,7 +1,8 @@"]
    assert changed["old"]["b"] == identical["old"]["b"] == identical["new"]["b"] and len(data["bodies"]) == 2
    assert "d" not in identical and identical["nodiff"] == "no diff: the same bytes"
    assert changed["old"]["link"] == rows[0]["evidence"]["old"]


def test_a_body_over_the_inline_size_is_linked_from_observations_not_inlined(tmp_path: Path) -> None:
    big = {"description": "x" * (page.BODY_INLINE + 10)}
    html = render_page(_report([_row(tmp_path, "c", "l", big, {"description": "y"})]), tmp_path)
    unit = _data(html)["units"][0]
    assert "b" not in unit["old"] and unit["old"]["why"] == f"{page.BODY_INLINE + 33:,} characters"
    assert unit["old"]["link"].startswith("observations/") and "x" * 1001 not in html
    removed = _data(html)["diffs"][unit["d"]][4]  # its diff line is cut too, and says by how much
    assert removed == '-  "description": "' + "x" * 981 + f"... ({page.BODY_INLINE + 10 - 981 + 1:,} more characters)"


def test_a_run_past_the_cell_cap_draws_the_first_cells_and_counts_every_one(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page, "CELL_CAP", 10)
    body = {"a": 1}
    rows = [_row(tmp_path, f"c{i}", f"l{i % 3}", body, body, "identical") for i in range(30)]
    html = render_page(_report(rows), tmp_path)
    assert len(_data(html)["units"]) == 10 and html.count('<td id="c') == 10
    assert "The grid shows the first 10 of 30 case x lane runs" in html
    assert "<tr><th class=case>l0</th><td>10</td>" in html  # the counts cover the whole run


def test_a_side_without_a_body_says_why_and_has_no_diff(tmp_path: Path) -> None:
    row = _row(tmp_path, "c", "l", {"a": 1}, {"a": 1}, "error")
    row["new"] = {"outcome": "error", "sha256": None, "bytes": None,
                  "error": {"type": "ValueError", "message": "refused", "where": None}}
    row["evidence"]["new"] = None
    unit = _data(render_page(_report([row]), tmp_path))["units"][0]
    assert unit["new"] == {"link": None, "why": "error: ValueError: refused"}
    assert unit["nodiff"] == "no diff: a side has no body" and "d" not in unit
