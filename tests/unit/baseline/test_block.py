"""report.md's baseline block: each new finding with enough to act on, in two forms (with and
without the escapes' diffs)."""

from __future__ import annotations

from typing import Any

from harness._baseline.block import baseline_forms

KINDS = ("verdicts", "pins", "rejections", "escapes", "claims")


def _report(new: dict[str, list[str]]) -> dict[str, Any]:
    delta = {"run": "reports/base-1", "fail_on": "new", "new": {k: new.get(k, []) for k in KINDS},
             "counts": {k: {"new": len(new.get(k, [])), "still": 0, "fixed": 0} for k in KINDS}}
    return {"baseline": delta, "differential": [{"case": "c", "lane": "l", "verdict": "unexpected", "detail": None}],
            "rejections": {"findings": [
                {"case": "c", "lane": "l", "side": "old", "rejections": [{"rule": "r", "expected": False,
                                                                          "location": "old-place"}]},
                {"case": "c", "lane": "l", "side": "new", "rejections": [
                    {"rule": "r", "expected": True, "location": "declared-place"},
                    {"rule": "r", "expected": False, "location": "tools[0]", "receipt": {"message": "too deep"}}]}]},
            "mutation": {"mutants": [{"id": "m", "file": "a.py", "line": 3, "function": None, "status": "survived",
                                      "title": "x -> y", "diff": "-x\n+y\n"}]}}


def test_each_new_finding_names_what_to_act_on() -> None:
    full, short = baseline_forms(_report({"verdicts": ["c[l]", "gone[l]"], "rejections": ["c[l]: r", "c[l]: q"],
                                          "escapes": ["m"], "claims": ["claim"]}))
    lines = full.splitlines()
    assert lines[0] == "## New since the baseline: 6"
    assert "- `c[l]`: unexpected: " in lines and "- `gone[l]`" in lines
    assert '- `c[l]: r` at `tools[0]`: "too deep"' in lines and "- `c[l]: q`" in lines
    assert "- `m` (survived): x -> y at `a.py:3`" in lines and "- `claim`" in lines
    assert "```diff" in lines and "```diff" not in short.splitlines()


def test_past_thirty_new_findings_of_a_kind_the_rest_are_counted() -> None:
    (full, _) = baseline_forms(_report({"pins": [f"p{n}" for n in range(32)]}))
    assert "- `p29`" in full and "- `p30`" not in full
    assert "- … and 2 more in report.json (`baseline.new.pins`)" in full.splitlines()
