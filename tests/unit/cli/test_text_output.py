"""The terminal rendering: a table when it fits, one line per case when it does not."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from harness._cli.output import render_text


def report(lanes: list[str]) -> dict[str, Any]:
    rows = [{"subject": "s", "case": "c1", "lane": lane, "verdict": "identical" if i % 2 else "intended",
             "failed": False} for i, lane in enumerate(lanes)]
    return {"differential": rows, "exit": {"code": 0, "reason": "clean"},
            "summary": {"units": len(rows), "failed": 0, "verdicts": {
                "identical": 1, "reordered": 0, "intended": 1, "unexpected": 0, "error": 0}}}


def printed(rep: dict[str, Any], width: int) -> str:
    console = Console(width=width, record=True, soft_wrap=True, file=open("/dev/null", "w"))  # noqa: SIM115
    render_text(rep, console)
    return console.export_text()


def test_a_table_that_fits_is_printed_as_a_table() -> None:
    text = printed(report(["one", "two"]), 120)
    assert "┃ case" in text and "one" in text and "intended" in text


def test_too_many_lanes_for_the_width_group_lanes_by_verdict_on_one_line() -> None:
    lanes = [f"a-rather-long-lane-name-{i}" for i in range(8)]
    text = printed(report(lanes), 80)
    assert "┃" not in text
    line = next(x for x in text.splitlines() if x.strip().startswith("c1"))
    assert "intended: a-rather-long-lane-name-0" in line and "same: a-rather-long-lane-name-1" in line


def test_the_mutation_line_says_n_a_for_no_score_and_flags_an_incomplete_run() -> None:
    rep = report(["one"])
    rep["mutation"] = {"totals": {"total": 4, "killed": 0, "survived": 0, "timeout": 0, "unviable": 0,
                                  "no_coverage": 0, "pending": 4, "score": None},
                       "verdict": {"claims_failed": False}}
    line = next(x for x in printed(rep, 200).splitlines() if x.startswith("mutation:"))
    assert "score n/a" in line and "INCOMPLETE (4 pending)" in line


def test_the_mutation_summary_lists_each_declared_equivalent_and_expected_survivor_with_its_verdict() -> None:
    """As `harness mutate`'s ledger table does: `harness run --mutate` names them, held or not."""
    from harness._mutate.results import build_section

    def meta(mid: str, **claim: Any) -> dict[str, Any]:
        return {"key": f"k-{mid}", "id": mid, "kind": "declared", "file": "m.py", "module": "m", "function": "f",
                "line": 3, "column": 1, "end_line": 3, "end_column": 1, "operator": "Declared", "title": mid,
                "diff": "", "claims": [], "equivalent": None, "ledger": "x:1", **claim}

    metas = [meta("noop", equivalent="a rename"), meta("reorder", equivalent="names are unique"),
             meta("known", survives="no pin checks case yet"), meta("gate", claims=["t.py::test_a"])]
    passed = {"outcome": "passed", "differ": [], "count": 0, "cases": 0, "calls": 2}
    changed = {"outcome": "failed", "differ": ["m:f called by t.py::test_a"], "count": 1, "cases": 0, "calls": 1}
    rows = {f"k-{mid}": {"key": f"k-{mid}", "id": mid, "pins": {"t.py::test_a": red}, "details": {},
                         "unviable": None, "forks": 1, "duration_s": 0.1, **({"outputs": out} if out else {})}
            for mid, red, out in [("noop", "passed", passed), ("reorder", "passed", changed),
                                  ("known", "passed", None), ("gate", "failed", None)]}
    plan = {"selected": list(rows), "mutants": metas, "suite_prefix": "", "threshold": {}}
    rep = report(["one"])
    rep["mutation"] = build_section(plan, {"pins": ["t.py::test_a"], "outcomes": {"t.py::test_a": "passed"}}, rows)
    lines = printed(rep, 400).splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("mutation:"))
    assert lines[at + 1:at + 4] == [
        "  equivalent noop: held (no pin distinguishes it; identical on 2 call(s) the pins make)",
        "  equivalent reorder: FAILED (declared equivalent, but the output differs on 1 output(s) (case x lanes, "
        "calls the pins make): m:f called by t.py::test_a; no pin sees it)",
        "  expected survivor known: held (survives, as the ledger expects)"]
    assert "claims FAILED" in lines[at] and not any("gate" in x for x in lines)  # a claim that held: the table's


def test_a_cell_shows_the_verdict_with_a_bang_when_it_fails_and_a_dot_where_the_case_does_not_run() -> None:
    rep = report(["one", "two"])
    rep["differential"] = [
        {"subject": "s", "case": "c1", "lane": "one", "verdict": "identical", "failed": False, "detail": ""},
        {"subject": "s", "case": "c1", "lane": "two", "verdict": "unexpected", "failed": True, "detail": "at tools"},
        {"subject": "s", "case": "c2", "lane": "two", "verdict": "error", "failed": True, "detail": "ValueError"},
    ]
    lines = printed(rep, 120).splitlines()
    assert "│ c1   │ same │ DIFF!  │" in lines and "│ c2   │  ·   │ ERROR! │" in lines
    assert "  FAIL c1 on two: unexpected: at tools" in lines and "  FAIL c2 on two: error: ValueError" in lines
    narrow = printed(rep, 25).splitlines()
    assert "  c1  same: one | DIFF!: two" in narrow and "  c2  ERROR!: two" in narrow
