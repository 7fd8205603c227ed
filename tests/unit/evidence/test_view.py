"""`harness show`'s lines for one case x lane: a missing body says why, and a diff needs two bodies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._evidence.view import diff_lines, unit_lines


def _side(outcome: str, error: dict[str, str] | None = None) -> dict[str, Any]:
    return {"outcome": outcome, "sha256": None, "bytes": None, "error": error}


def _report(row: dict[str, Any]) -> dict[str, Any]:
    pins = {"results": [{"id": "a.cases.yaml::c[l]::p", "outcome": "failed", "message": "boom"},
                        {"id": "a.cases.yaml::c[other]::p", "outcome": "passed", "message": ""}]}
    return {"differential": [row], "pins": pins, "rejections": None}


def test_a_side_that_raised_or_was_not_saved_says_why_and_there_is_no_diff(tmp_path: Path) -> None:
    (tmp_path / "new.json").write_text(json.dumps({"a": 1}))
    row = {"case": "c", "lane": "l", "verdict": "error", "failed": True, "detail": "old raised", "why": "",
           "paths": [], "old": _side("error", {"type": "KeyError", "message": "'x'", "where": "p.py:3 f"}),
           "new": _side("ok"), "evidence": {"old": None, "new": "new.json"}}
    text = "\n".join(t for t, _ in unit_lines(tmp_path, _report(row), row))
    assert "error: KeyError: 'x' at p.py:3 f" in text
    assert '"a": 1' in text and "no diff: a side has no body" in text
    assert "failed a.cases.yaml::c[l]::p: boom" in text and "c[other]" not in text
    row["evidence"] = {"old": None, "new": None, "omitted": {"new": "body of 9,000,000 bytes over the cap"}}
    text = "\n".join(t for t, _ in unit_lines(tmp_path, _report(row), row))
    assert "body not saved: body of 9,000,000 bytes over the cap" in text


def test_the_diff_is_styled_by_what_happened_at_each_place() -> None:
    lines = dict(diff_lines({"a": 1, "b": 2}, {"a": 3, "c": 4}))
    styles = {style for text, style in lines.items()}
    assert {"green", "red", "yellow"} <= styles
    assert diff_lines({"a": 1}, {"a": 1})[0][0].startswith("no difference in value")
