"""`harness show`'s lines for one case x lane: a missing body says why, and a diff needs two bodies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import ConfigError
from harness._evidence.view import diff_lines, pick_rows, unit_lines


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


def test_the_diff_is_a_unified_diff_of_the_pretty_bodies_red_for_old_green_for_new() -> None:
    lines = diff_lines({"a": 1, "b": 2}, {"a": 3, "b": 2, "c": 4})
    assert lines[:3] == [("--- old", "bold"), ("+++ new", "bold"), ("@@ -1,4 +1,5 @@", "cyan")]
    assert lines[3:] == [(" {", None), ('-  "a": 1,', "red"), ('-  "b": 2', "red"), ('+  "a": 3,', "green"),
                         ('+  "b": 2,', "green"), ('+  "c": 4', "green"), (" }", None)]
    assert diff_lines({"a": 1}, {"a": 1}) == [("no difference: both bodies print the same JSON", None)]


def test_a_reordering_shows_as_lines_moved_since_key_order_is_part_of_what_ships() -> None:
    text = [t for t, _ in diff_lines({"a": 1, "b": 2}, {"b": 2, "a": 1})]
    assert '-  "a": 1,' in text and '+  "a": 1' in text


def test_an_unknown_case_names_the_first_eight_cases_and_an_unknown_lane_the_cases_lanes() -> None:
    rows = [{"case": f"k{n}", "lane": lane} for n in range(10) for lane in ("a", "b")]
    with pytest.raises(ConfigError, match=r"CASE='zz': expected a case of this run: k0, k1, k2, k3, k4, k5, k6, "
                                          r"k7 \(\+2 more\)$"):
        pick_rows({"differential": rows}, "zz", None)
    with pytest.raises(ConfigError, match=r"LANE='c': expected a lane this case ran on: a, b$"):
        pick_rows({"differential": rows}, "k1", "c")
    with pytest.raises(ConfigError, match="it has none"):
        pick_rows({"differential": []}, "k1", None)
    picked = pick_rows({"differential": rows}, "k[12]", "b")
    assert [(r["case"], r["lane"]) for r in picked] == [("k1", "b"), ("k2", "b")]


def test_the_heading_drops_a_detail_that_only_repeats_the_reason_and_lists_rejections_by_side(tmp_path: Path) -> None:
    row = {"case": "c", "lane": "l", "verdict": "intended", "failed": False, "detail": "declared", "why": "declared",
           "paths": ["tools[0]"], "old": _side("ok"), "new": _side("ok"), "evidence": None}
    report = _report(row)
    report["rejections"] = {"findings": [
        {"case": "c", "lane": "l", "side": "new", "rejections": [
            {"rule": "r1", "location": "$", "expected": True, "why": "known"},
            {"rule": "r2", "location": "tools[0]", "expected": False}]},
        {"case": "c", "lane": "other", "side": "old",
         "rejections": [{"rule": "r3", "location": "$", "expected": False}]}]}
    lines = unit_lines(tmp_path, report, row)
    assert lines[:3] == [("c on l: intended", "bold"), ("  why: declared", None), ("  paths: tools[0]", None)]
    at = lines.index(("--- rejections", "bold"))
    assert lines[at + 1:at + 3] == [("  new: r1 at $ (declared: known)", None),
                                    ("  new: r2 at tools[0] (UNDECLARED)", "bold red")]
    assert ("  old: no body (ok)", "magenta") not in lines and ("  no body (ok)", "magenta") in lines
