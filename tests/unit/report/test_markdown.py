"""report.md is built by priority inside a pull-request comment's budget: what fails the run comes
first, and a block that does not fit is shortened or named with its counts, never cut mid-section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._evidence.view import saved_diffs
from harness._mutate.render import render_markdown as mutation_md
from harness._reject.report import render_markdown as rejections_md
from harness._report.markdown import LIMIT, Block, fit, render


def _row(case: str, lane: str, verdict: str = "intended", failed: bool = False) -> dict[str, Any]:
    side = {"outcome": "ok", "sha256": None, "bytes": 2, "error": None}
    return {"subject": "s", "case": case, "lane": lane, "verdict": verdict, "failed": failed,
            "detail": "differs at tools[0]" if failed else "", "why": "" if failed else "declared reason",
            "paths": [], "unexpected_paths": ["tools[0]"] if failed else [], "checks": {}, "old": side, "new": side,
            "diff": {"values_changed": {"root['x']": {"old_value": 1, "new_value": 2}}},
            "evidence": {"old": "observations/bodies/aa/a.json", "new": "observations/bodies/bb/b.json"}}


def _mutant(i: int, status: str) -> dict[str, Any]:
    return {"id": f"m.x__mutmut_{i}", "key": f"k{i}", "kind": "operator", "file": "pipe.py", "function": "f",
            "line": i, "column": 1, "end_line": i, "end_column": 2, "operator": "Op", "title": f"a -> b {i}",
            "diff": f"--- a/pipe.py\n+++ b/pipe.py\n-    x = {i}\n+    x = {i + 1}\n", "status": status,
            "killed_by": [0] if status == "killed" else [], "timed_out": [], "crashed": [], "covered_by": 0,
            "details": {}, "unviable": None}


def _declared(i: int) -> dict[str, Any]:
    claim = {"claimed": [0], "red": [0], "green": [], "result": "exact", "note": "red on exactly its claimed pins"}
    return {**_mutant(i, "killed"), "kind": "declared", "id": f"M{i}", "title": "a declared mutant " * 4,
            "ledger": "l.ledger.yaml:1", "claim": claim}


def _mutation(killed: int, escaped: int) -> dict[str, Any]:
    mutants = [_declared(i) for i in range(killed)] + [_mutant(killed + i, "survived") for i in range(escaped)]
    totals = {"killed": killed, "survived": escaped, "timeout": 0, "unviable": 0, "no_coverage": 0,
              "equivalent": 0, "pending": 0, "total": killed + escaped, "score": 50.0}
    return {"suite": "s", "pins": {"collected": 1, "ids": ["t.py::p" + "x" * 300], "excluded": []},
            "pin_sets": [[0]], "mutants": mutants, "pin_kills": [], "totals": totals, "threshold": {},
            "escaped": [m["id"] for m in mutants if m["status"] == "survived"], "claims_failed": [],
            "verdict": {"escaped_over_threshold": True, "claims_failed": False, "complete": True}}


def _report(rows: list[dict[str, Any]], **sections: Any) -> dict[str, Any]:
    failed = sum(1 for r in rows if r["failed"])
    verdicts = {k: sum(1 for r in rows if r["verdict"] == k)
                for k in ("identical", "reordered", "intended", "unexpected", "error")}
    return {"suite": {"name": "s"}, "differential": rows, "pins": None, "baseline": None,
            "summary": {"units": len(rows), "verdicts": verdicts, "failed": failed},
            "exit": {"code": 1, "reason": "r"}, "rejections": None, "mutation": None, **sections}


def _undeclared(n: int) -> dict[str, Any]:
    hit = {"rule": "anthropic.root-composition", "location": "tools[0].input_schema", "expected": False,
           "why": None, "receipt": {"id": "R1", "message": "refused " * 20, "source_url": "https://x.invalid/1"}}
    findings = [{"case": f"case-{i}", "lane": f"lane-{i % 9}", "side": "new", "status": "known-rejected",
                 "rejections": [hit]} for i in range(n)]
    return {"summary": {"new_undeclared": n}, "catalog": {}, "findings": findings}


def test_blocks_that_fit_are_joined_whole_in_order() -> None:
    assert fit([Block("a", ("A",), "", "x"), Block("b", ("B",), "", "x")]) == "A\n\nB\n"


def test_a_block_too_long_takes_its_shorter_form_and_one_with_none_that_fits_is_named_not_cut() -> None:
    long = "\n".join(f"| row {i} |" for i in range(10_000))
    text = fit([Block("head", ("# head",), "", "report.json"),
                Block("table", (long, "| short table |"), "", "report.json"),
                Block("details", (long,), "10,000 rows", "mutation/mutation.md")])
    assert len(text) <= LIMIT
    assert "| short table |" in text and "| row 0 |" not in text
    assert "shortened: table (in full in report.json)" in text
    assert text.rstrip().endswith("left out: details (10,000 rows): in mutation/mutation.md.")


def test_a_mutation_run_too_big_for_the_comment_keeps_every_escape_and_names_what_it_left_out() -> None:
    section = _mutation(killed=400, escaped=12)
    report = _report([_row("c", "l")], mutation=section)
    text = render(report, {"mutation": mutation_md})
    assert len(text) <= LIMIT
    assert len(mutation_md(section, form="full")) > LIMIT  # the full section alone would not fit
    for m in section["escaped"]:
        assert f"#### {m} —" in text  # every escape, with its diff
    assert text.index("Mutation findings") < text.index("## Differential")
    assert "```diff" in text and text.count("```") % 2 == 0  # no fence left open by a cut
    assert "shortened: mutation section (in full in report.json and mutation/mutation.md)" in text


def test_a_broad_run_keeps_the_undeclared_rejections_and_failures_before_the_tables() -> None:
    rows = [_row(f"case-{i}", f"lane-{j}") for i in range(300) for j in range(12)]
    rows += [_row(f"bad-{i}", "lane-0", "unexpected", failed=True) for i in range(80)]
    report = _report(rows, rejections=_undeclared(400))
    text = render(report, {"rejections": rejections_md})
    assert len(text) <= LIMIT
    assert text.index("## Failures") < text.index("## Undeclared known rejections") < text.index("## Differential")
    assert "Undeclared (400 in 9 group(s) by lane, rule and side" in text
    assert "| lane-1 | anthropic.root-composition | new | case-1, case-10," in text
    assert "## Differential by lane" in text and "| `lane-0` | 0 | 0 | 300 | 80 | 0 | 80 |" in text
    assert "| `case-0` |" not in text  # the 3,680-cell tables gave way to counts per lane


def test_intended_divergences_are_sampled_with_their_diffs_folded() -> None:
    rows = [_row(f"case-{i}", "lane") for i in range(20)]
    text = render(_report(rows), {})
    assert "8 of 20 intended divergence(s), one per case" in text
    assert text.count("<details><summary><code>case-") == 8
    assert "`harness show case-0 lane`" in text


def test_a_renderer_without_forms_is_shown_whole_in_the_details() -> None:
    text = render(_report([_row("c", "l")], extra={"x": 1}), {"extra": lambda s: "## Extra\n\nbody\n"})
    assert "## Extra\n\nbody" in text


def _saved(folder: Path, row: dict[str, Any], old: Any, new: Any) -> dict[str, Any]:
    """The row with its two bodies saved in the run folder, where its evidence links point."""
    for side, value in (("old", old), ("new", new)):
        path = folder / row["evidence"][side]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    return row


def test_a_failure_leads_with_a_unified_diff_block_and_keeps_deepdiff_folded_after_it(tmp_path: Path) -> None:
    row = _saved(tmp_path, _row("c", "l", "unexpected", failed=True),
                 {"tools": [{"name": "t", "strict": False}]}, {"tools": [{"name": "t", "strict": True}]})
    text = render(_report([row]), {}, saved_diffs(tmp_path))
    failure = text.split("## Failures", 1)[1]
    block = failure.split("```diff\n", 1)[1].split("\n```", 1)[0]
    assert block.splitlines()[:2] == ["--- old", "+++ new"]
    assert '-      "strict": false' in block and '+      "strict": true' in block
    assert failure.index("```diff") < failure.index("changes by path (deepdiff)")


def test_failures_too_long_for_the_comment_keep_short_diffs_before_dropping_them(tmp_path: Path) -> None:
    big = {f"k{i:03}": "v" * 60 for i in range(120)}
    rows = [_saved(tmp_path, {**_row(f"c{i}", "l", "unexpected", failed=True),
                              "evidence": {"old": f"o/{i}a.json", "new": f"o/{i}b.json"}},
                   big, {k: v + "!" for k, v in big.items()}) for i in range(20)]
    text = render(_report(rows), {}, saved_diffs(tmp_path))
    assert len(text) <= LIMIT and text.count("```diff") == 20
    assert "changes by path (deepdiff)" not in text  # the middle form: the diffs, shortened
    assert "... more diff lines: harness show c0 l" in text


def test_a_failure_whose_body_was_not_saved_falls_back_to_deepdiffs_view(tmp_path: Path) -> None:
    row = _row("c", "l", "unexpected", failed=True)
    text = render(_report([row]), {}, saved_diffs(tmp_path))
    assert "```diff" not in text and "changes by path (deepdiff)" in text


def test_an_intended_sample_shows_its_unified_diff(tmp_path: Path) -> None:
    row = _saved(tmp_path, _row("c", "l"), {"a": 1}, {"a": 2})
    text = render(_report([row]), {}, saved_diffs(tmp_path))
    assert "```diff\n--- old\n+++ new\n@@ -1,3 +1,3 @@\n {\n-  \"a\": 1\n+  \"a\": 2\n }\n```" in text
