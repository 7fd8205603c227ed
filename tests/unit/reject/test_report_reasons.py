"""report.md's rejection section: every undeclared rejection a row, declared ones one line per reason."""

from __future__ import annotations

from harness.reject.report import MAX_ROWS, render_markdown

PR_COMMENT_LIMIT = 65_536


def finding(case: str, expected: bool, why: str = "", lane: str = "gw",
            rule: str = "anthropic.root-composition") -> dict[str, object]:
    hit = {"rule": rule, "location": "tools[0].input_schema", "expected": expected,
           "why": why, "receipt": {"id": "R001", "message": "m " * 100, "source_url": "https://x.invalid/1",
                                   "provenance": "transcribed"}}
    return {"case": case, "lane": lane, "side": "new", "rejections": [hit]}


def test_declared_reasons_are_one_line_each_with_their_lanes_and_cases_and_undeclared_ones_are_rows() -> None:
    section = {"summary": {}, "catalog": {}, "findings": [
        finding("b", True, "documented trade-off"), finding("a", True, "documented trade-off", lane="gw2"),
        finding("c", False)]}
    text = render_markdown(section)
    assert text.count("documented trade-off") == 1
    assert ("- `anthropic.root-composition`: 2 on the new pipeline, 2 lane(s) (gw, gw2), 2 case(s) (a, b): "
            "documented trade-off") in text
    assert "| gw | c | new | anthropic.root-composition |" in text
    assert "| gw | a |" not in text and "| gw2 | a |" not in text


def test_declared_rejections_with_another_reason_get_their_own_line() -> None:
    section = {"findings": [finding("a", True, "reason one"), finding("b", True, "reason two")]}
    lines = [line for line in render_markdown(section).splitlines() if line.startswith("- `")]
    assert len(lines) == 2 and lines[0].endswith("reason one") and lines[1].endswith("reason two")


def test_a_large_run_fits_a_pull_request_comment_with_room_for_the_rest_of_the_report() -> None:
    declared = [finding(f"case-{i}", True, "a long documented trade-off " * 5, lane=f"lane-{i % 9}")
                for i in range(2000)]
    undeclared = [finding(f"bad-{i}", False, lane=f"lane-{i % 9}") for i in range(500)]
    text = render_markdown({"summary": {}, "catalog": {}, "findings": declared + undeclared})
    assert len(text) < PR_COMMENT_LIMIT // 3
    assert text.count("| lane-") == MAX_ROWS
    assert f"… and {500 - MAX_ROWS} more undeclared rejection(s): every one is in report.json" in text
    assert "+1992 more" in text  # 2000 declared cases: the first few named, the count of the rest


def test_no_rejection_at_all_is_said_plainly() -> None:
    assert "No known rejection on any lane." in render_markdown({"findings": []})
