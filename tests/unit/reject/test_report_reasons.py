"""report.md's rejection section: undeclared rejections one row per lane, rule and side, declared ones one
line per reason."""

from __future__ import annotations

from harness._reject.report import MAX_ROWS, render_markdown

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
    assert "| gw | anthropic.root-composition | new | c |" in text
    assert "| new | a |" not in text and "| new | b |" not in text


def test_declared_rejections_with_another_reason_get_their_own_line() -> None:
    section = {"findings": [finding("a", True, "reason one"), finding("b", True, "reason two")]}
    lines = [line for line in render_markdown(section).splitlines() if line.startswith("- `")]
    assert len(lines) == 2 and "): reason one. Evidence: " in lines[0] and "): reason two. Evidence: " in lines[1]


def test_a_large_run_fits_a_pull_request_comment_with_room_for_the_rest_of_the_report() -> None:
    declared = [finding(f"case-{i}", True, "a long documented trade-off " * 5, lane=f"lane-{i % 9}")
                for i in range(2000)]
    undeclared = [finding(f"bad-{i}", False, lane=f"lane-{i % 9}") for i in range(500)]
    text = render_markdown({"summary": {}, "catalog": {}, "findings": declared + undeclared})
    assert len(text) < PR_COMMENT_LIMIT // 3
    assert text.count("| lane-") == 9  # one row per lane, rule and side, not one per finding
    assert "bad-0, bad-108, bad-117" in text and "+48 more" in text  # 56 cases on lane-0: 8 named
    many = [finding(f"bad-{i}", False, lane=f"lane-{i}") for i in range(MAX_ROWS + 5)]
    cut = render_markdown({"summary": {}, "catalog": {}, "findings": many})
    assert cut.count("| lane-") == MAX_ROWS
    assert "… and 5 more group(s): every finding is in report.json" in cut
    assert "+1992 more" in text  # 2000 declared cases: the first few named, the count of the rest


def test_no_rejection_at_all_is_said_plainly() -> None:
    assert "No known rejection on any lane." in render_markdown({"findings": []})


def test_each_declared_line_carries_the_receipt_its_status_a_short_message_and_the_source_link() -> None:
    section = {"findings": [finding("a", True, "a trade-off."), finding("b", True, "a trade-off.")]}
    line = next(x for x in render_markdown(section).splitlines() if x.startswith("- `"))
    assert line.endswith('a trade-off. Evidence: [R001](https://x.invalid/1) transcribed: "' + "m " * 49 + 'm…".')
    assert line.count("R001") == 1, "the receipt both findings share is named once"


def test_a_declared_line_names_up_to_three_receipts_and_counts_the_rest() -> None:
    found = []
    for n in range(5):
        one = finding(f"c{n}", True, "why")
        hit = one["rejections"][0]  # type: ignore[index]
        hit["receipt"] = {"id": f"R00{n}", "message": f"message {n}", "source_url": f"https://x.invalid/{n}",
                          "provenance": "transcribed", "status": 400, "receipts": 5}
        found.append(one)
    line = next(x for x in render_markdown({"findings": found}).splitlines() if x.startswith("- `"))
    assert '[R000](https://x.invalid/0) transcribed, 400: "message 0"; [R001]' in line
    assert "[R002]" in line and "[R003]" not in line and line.endswith("(+2 more receipt(s)).")


def test_a_lone_receipt_of_several_says_how_many_back_the_rule_and_a_rule_without_one_says_so() -> None:
    one = finding("a", True, "why")
    one["rejections"][0]["receipt"]["receipts"] = 4  # type: ignore[index]
    text = render_markdown({"findings": [one]})
    assert "(1 of 4 receipts backing this rule; the cassettes manifest lists all)." in text
    bare = finding("b", True, "why")
    bare["rejections"][0]["receipt"] = None  # type: ignore[index]
    assert "why. Evidence: no recorded receipt." in render_markdown({"findings": [bare]})


def test_every_bundled_rules_evidence_fits_on_one_short_line() -> None:
    from harness._reject.verdicts import _receipt
    from tests.unit.reject.scenario import bundled_catalog

    catalog = bundled_catalog()
    for rule in catalog.rules.rules:
        hit = {"rule": rule.id, "location": "x", "expected": True, "why": "w", "receipt": _receipt(catalog, rule)}
        line = render_markdown({"findings": [{"case": "c", "lane": "l", "side": "new", "rejections": [hit]}]})
        evidence = line[line.index("Evidence: "):].strip()
        receipt = hit["receipt"] or {}
        assert len(evidence) < 400 and f"[{receipt['id']}](http" in evidence, evidence
