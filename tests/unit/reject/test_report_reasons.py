"""report.md's rejection section states each declared reason once, with the cases it covers."""

from __future__ import annotations

from harness.reject.report import render_markdown


def finding(case: str, expected: bool, why: str = "") -> dict[str, object]:
    hit = {"rule": "anthropic.root-composition", "location": "tools[0].input_schema", "expected": expected,
           "why": why, "receipt": {"id": "R001", "message": "m", "source_url": "https://x.invalid/1",
                                   "provenance": "transcribed"}}
    return {"case": case, "lane": "gw", "side": "new", "rejections": [hit]}


def test_declared_reasons_are_listed_once_with_their_cases_and_undeclared_ones_are_not() -> None:
    section = {"summary": {}, "catalog": {}, "findings": [
        finding("b", True, "documented trade-off"), finding("a", True, "documented trade-off"), finding("c", False)]}
    text = render_markdown(section)
    assert text.count("documented trade-off") == 1
    assert "- `anthropic.root-composition` (2 case(s): a, b): documented trade-off" in text
    assert "| gw | c | new | anthropic.root-composition |" in text
