"""The section built from raw rows: statuses, claims (exact, collateral, failed, equivalent),
per-pin kills and unique kills, the exit code, and the Markdown ledger (the Stryker document: test_stryker.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from harness._exitcodes import ExitCode
from harness._mutate import exit_code, render_markdown
from harness._mutate.results import build_section, expand
from harness._mutate.stryker import stryker_report

REPO = Path(__file__).resolve().parents[3]
PINS = ["t.py::test_a", "t.py::test_b", "t.py::test_c", "t.py::test_broken"]


def _meta(mid: str, kind: str = "operator", **extra: Any) -> dict[str, Any]:
    return {"key": f"k-{mid}", "id": mid, "kind": kind, "file": "m.py", "module": "m", "function": "f",
            "line": 3, "column": 5, "end_line": 3, "end_column": 9, "operator": "BinaryOperation",
            "title": mid, "diff": f"-a\n+{mid}\n", "claims": [], "equivalent": None, "ledger": "x:1", **extra}


def _row(mid: str, pins: dict[str, str], unviable: str | None = None) -> dict[str, Any]:
    return {"key": f"k-{mid}", "id": mid, "pins": pins, "details": {}, "unviable": unviable, "forks": 1,
            "duration_s": 0.1}


def _compact_section(threshold: dict[str, Any] | None = None) -> dict[str, Any]:
    metas = [
        _meta("exact", "declared", claims=["t.py::test_a"]),
        _meta("extra", "declared", claims=["t.py::test_a"]),
        _meta("green", "declared", claims=["t.py::test_c"]),
        _meta("same", "declared", equivalent="a rename"),
        _meta("op1"), _meta("op2"), _meta("op3"), _meta("op4"),
    ]
    rows = {r["key"]: r for r in [
        _row("exact", {"t.py::test_a": "failed", "t.py::test_b": "passed"}),
        _row("extra", {"t.py::test_a": "failed", "t.py::test_b": "crash"}),
        _row("green", {"t.py::test_b": "failed", "t.py::test_c": "passed"}),
        {**_row("same", {"t.py::test_a": "passed"}),
         "outputs": {"outcome": "passed", "differ": [], "count": 0, "cases": 0, "calls": 2}},
        _row("op1", {"t.py::test_b": "timeout"}),
        _row("op2", {"t.py::test_a": "passed", "t.py::test_c": "passed"}),
        _row("op3", {}),
        _row("op4", {}, unviable="SyntaxError: bad"),
    ]}
    plan = {"selected": [m["key"] for m in metas], "mutants": metas, "suite_prefix": "", "suite_name": "s",
            "threshold": threshold or {"max_escaped": None, "min_score": None}, "shard": None}
    baseline = {"pins": PINS, "outcomes": {**{p: "passed" for p in PINS[:3]}, "t.py::test_broken": "failed"}}
    return build_section(plan, baseline, rows)


def _section(threshold: dict[str, Any] | None = None) -> dict[str, Any]:
    """The section with pins named (what the assertions below read)."""
    return expand(_compact_section(threshold))


def _by_id(section: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in section["mutants"]}


def test_each_row_gets_its_status() -> None:
    status = {k: m["status"] for k, m in _by_id(_section()).items()}
    assert status == {"exact": "killed", "extra": "killed", "green": "killed", "same": "equivalent",
                      "op1": "timeout", "op2": "survived", "op3": "no_coverage", "op4": "unviable"}


def test_claims_are_exact_collateral_or_failed() -> None:
    m = _by_id(_section())
    assert m["exact"]["claim"]["result"] == "exact"
    assert m["extra"]["claim"]["result"] == "collateral"
    assert m["extra"]["crashed"] == ["t.py::test_b"]
    assert m["green"]["claim"]["result"] == "failed" and m["green"]["claim"]["green"] == ["t.py::test_c"]
    assert m["same"]["claim"]["result"] == "equivalent"


def test_a_declared_equivalent_that_a_pin_kills_fails_its_claim() -> None:
    plan_meta = _meta("same", "declared", equivalent="a rename")
    plan = {"selected": ["k-same"], "mutants": [plan_meta], "suite_prefix": "", "threshold": {}}
    section = expand(build_section(plan, {"pins": PINS[:1], "outcomes": {PINS[0]: "passed"}},
                                   {"k-same": _row("same", {PINS[0]: "failed"})}))
    assert section["mutants"][0]["claim"]["result"] == "failed"
    assert section["claims_failed"] == ["same"]


def test_pins_count_kills_and_unique_kills() -> None:
    table = {r["pin"]: (r["kills"], r["unique_kills"]) for r in _section()["pin_kills"]}
    assert table == {"t.py::test_a": (2, 1), "t.py::test_b": (3, 2), "t.py::test_c": (0, 0)}


def test_a_failing_baseline_pin_is_reported_not_dropped() -> None:
    assert _section()["pins"]["excluded"] == [{"pin": "t.py::test_broken", "outcome": "failed", "detail": ""}]


def test_the_exit_code_follows_claims_and_the_escape_threshold() -> None:
    assert exit_code(_section()) == ExitCode.MUTANTS_ESCAPED  # the "green" claim failed
    section = _section({"max_escaped": 2})
    section["verdict"]["claims_failed"] = False
    assert exit_code(section) == ExitCode.OK
    assert exit_code(_section({"max_escaped": 1})) == ExitCode.MUTANTS_ESCAPED


def test_the_section_matches_its_report_schema() -> None:
    schema = json.loads((REPO / "harness/_report/schemas/mutation.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(_compact_section())


def test_each_pin_is_named_once_and_referred_to_by_index() -> None:
    section = _compact_section()
    assert section["pins"]["ids"] == PINS
    m = {m["id"]: m for m in section["mutants"]}
    assert m["extra"]["killed_by"] == [0, 1] and m["extra"]["crashed"] == [1]
    assert section["pin_sets"][m["extra"]["covered_by"]] == [0, 1]
    assert m["green"]["claim"]["green"] == [2]
    assert "t.py::test_a" not in json.dumps(section["mutants"])


def test_a_large_matrix_stays_small_and_expands_back_to_every_node_id() -> None:
    pins = [f"suite/cases/file{i // 20}.cases.yaml::case-{i}[lane-{i % 7}]::pin_{i}" for i in range(300)]
    metas = [_meta(f"op{j}", function=f"f{j % 5}") for j in range(400)]
    rows = {f"k-op{j}": _row(f"op{j}", {p: "failed" if i % 3 == 0 else "passed"
                                        for i, p in enumerate(pins) if i % 5 == j % 5}) for j in range(400)}
    plan = {"selected": [m["key"] for m in metas], "mutants": metas, "suite_prefix": "", "threshold": {}}
    section = build_section(plan, {"pins": pins, "outcomes": dict.fromkeys(pins, "passed")}, rows)
    # named in every mutant this would be 400 x 60 covering x ~50 bytes: 1.2 MB of covered_by alone
    assert len(json.dumps(section, indent=1)) < 300_000
    assert len(section["pin_sets"]) == 5
    full = expand(section)
    op7 = next(m for m in full["mutants"] if m["id"] == "op7")
    assert op7["covered_by"] == [p for i, p in enumerate(pins) if i % 5 == 2]
    assert op7["killed_by"] == [p for i, p in enumerate(pins) if i % 5 == 2 and i % 3 == 0]


def test_the_renderers_read_the_compact_section() -> None:
    assert render_markdown(_compact_section()) == render_markdown(_section())


def test_the_markdown_has_the_ledger_table_and_the_escapes_with_diffs() -> None:
    text = render_markdown(_section())
    assert "| mutant | site | claimed pins | pins that turned red | result |" in text
    assert "| green: green |" in text and "**CLAIM FAILED**" in text
    assert "### op2 — op2" in text and "```diff\n-a\n+op2\n```" in text


def _equivalent_section(outputs: dict[str, Any] | None, pins: dict[str, str]) -> dict[str, Any]:
    meta = _meta("same", "declared", equivalent="a no-op")
    row = {**_row("same", pins), **({"outputs": outputs} if outputs else {})}
    plan = {"selected": ["k-same"], "mutants": [meta], "suite_prefix": "", "threshold": {}}
    return expand(build_section(plan, {"pins": PINS[:1], "outcomes": {PINS[0]: "passed"}}, {"k-same": row}))


def test_a_declared_equivalent_holds_when_no_pin_turns_red_and_every_output_is_identical() -> None:
    (m,) = _equivalent_section({"outcome": "passed", "differ": [], "count": 0}, {PINS[0]: "passed"})["mutants"]
    assert m["status"] == "equivalent" and m["claim"]["result"] == "equivalent"
    assert m["claim"]["note"].endswith("every case x lane output is byte-identical")


def test_a_declared_equivalent_held_on_the_pins_own_calls_says_what_it_compared() -> None:
    checked = {"outcome": "passed", "differ": [], "count": 0, "cases": 0, "calls": 3}
    (m,) = _equivalent_section(checked, {PINS[0]: "passed"})["mutants"]
    assert m["claim"]["result"] == "equivalent"
    assert m["claim"]["note"] == "no pin distinguishes it; identical on 3 call(s) the pins make"
    assert m["claim"]["outputs"] == {"outcome": "passed", "differ": [], "cases": 0, "calls": 3}


def test_a_declared_equivalent_nothing_compared_is_unchecked_and_fails_like_a_failed_claim() -> None:
    """A pins-only suite (no case x lane output) whose pins never call the mutated function: no pin
    turning red is no evidence, so the claim is never reported held."""
    for pins in ({PINS[0]: "passed"}, {}):  # a pin reached it and stayed green; no pin reached it
        section = _equivalent_section(None, pins)
        (m,) = section["mutants"]
        assert m["claim"]["result"] == "unchecked", m["claim"]
        assert "the claim is not checked" in m["claim"]["note"]
        assert section["claims_failed"] == ["same"] and exit_code(section) == ExitCode.MUTANTS_ESCAPED
        assert "**UNCHECKED** (no pin" in render_markdown(section)


def _survivor_section(pins: dict[str, str], compact: bool = False) -> dict[str, Any]:
    meta = _meta("known", "declared", survives="no pin checks the temperature yet (review round 2)")
    plan = {"selected": ["k-known", "k-op"], "mutants": [meta, _meta("op")], "suite_prefix": "",
            "threshold": {"max_escaped": 0}}
    rows = {"k-known": _row("known", pins), "k-op": _row("op", {PINS[0]: "failed"})}
    section = build_section(plan, {"pins": PINS[:1], "outcomes": {PINS[0]: "passed"}}, rows)
    return dict(section) if compact else expand(section)


def test_an_expected_survivor_that_survives_holds_apart_from_the_escapes() -> None:
    section = _survivor_section({PINS[0]: "passed"})
    (m, _op) = section["mutants"]
    assert m["status"] == "survived" and m["claim"]["result"] == "survives"
    assert section["escaped"] == [] and section["expected_survivors"] == ["known"]
    assert section["claims_failed"] == [] and exit_code(section) == ExitCode.OK  # max_escaped 0 still holds
    text = render_markdown(section)
    assert "None beyond the expected survivors." in text and "### Expected survivors: 1" in text
    assert "expected survivor known (survived) m.py:3 f: no pin checks the temperature yet" in text
    assert "survives (expected)" in text
    schema = json.loads((REPO / "harness/_report/schemas/mutation.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(_survivor_section({PINS[0]: "passed"}, compact=True))


def test_an_expected_survivor_a_pin_now_kills_fails_loudly_so_the_ledger_is_updated() -> None:
    section = _survivor_section({PINS[0]: "failed"})
    (m, _op) = section["mutants"]
    assert m["status"] == "killed" and m["claim"]["result"] == "failed"
    assert m["claim"]["note"] == ("declared to survive, but 1 pin(s) now kill it: update the ledger "
                                  "(killed_by: the pins that kill it)")
    assert section["claims_failed"] == ["known"] and exit_code(section) == ExitCode.MUTANTS_ESCAPED
    assert section["expected_survivors"] == []


def test_a_declared_equivalent_whose_output_changes_unseen_is_an_escape_and_a_failed_claim() -> None:
    section = _equivalent_section({"outcome": "failed", "differ": ["c[l]"], "count": 1}, {PINS[0]: "passed"})
    (m,) = section["mutants"]
    assert m["status"] == "survived" and section["escaped"] == ["same"]
    assert m["claim"]["result"] == "failed"
    assert "differs on 1 case x lane(s): c[l]; no pin sees it" in m["claim"]["note"]


LANES = ["c.cases.yaml::case[a]::pin", "c.cases.yaml::case[b]::pin", "c.cases.yaml::case[c]::pin",
         "c.cases.yaml::case[a]::other"]


def _lane_section(red: list[str], claims: list[str]) -> dict[str, Any]:
    meta = _meta("m1", "declared", claims=claims)
    plan = {"selected": ["k-m1"], "mutants": [meta], "suite_prefix": "", "threshold": {}}
    baseline = {"pins": LANES, "outcomes": {p: "passed" for p in LANES}}
    row = _row("m1", {p: "failed" if p in red else "passed" for p in LANES})
    return expand(build_section(plan, baseline, {"k-m1": row}))


def test_a_claim_on_a_pin_spanning_lanes_is_exact_when_one_of_its_lanes_is_red() -> None:
    claim = _lane_section(red=[LANES[1]], claims=["case::pin"])["mutants"][0]["claim"]
    assert claim["result"] == "exact" and claim["green"] == []


def test_a_claim_on_a_pin_group_fails_only_when_no_item_of_it_is_red() -> None:
    claim = _lane_section(red=[LANES[3]], claims=["case::pin"])["mutants"][0]["claim"]
    assert claim["result"] == "failed" and claim["green"] == LANES[:3]


def test_another_red_pin_beside_the_claimed_group_is_collateral() -> None:
    claim = _lane_section(red=[LANES[0], LANES[3]], claims=["case::pin"])["mutants"][0]["claim"]
    assert claim["result"] == "collateral"


def test_a_pin_group_is_one_row_of_the_kill_table_with_its_items() -> None:
    section = _lane_section(red=[LANES[0], LANES[2]], claims=["case::pin"])
    rows = {r["pin"]: r for r in section["pin_kills"]}
    assert list(rows) == [LANES[0], LANES[3]]
    assert rows[LANES[0]]["group"] == "c.cases.yaml::case::pin" and rows[LANES[0]]["items"] == LANES[:3]
    assert rows[LANES[0]]["kills"] == 1 and rows[LANES[0]]["unique"] == ["m1"]
    schema = json.loads((REPO / "harness/_report/schemas/mutation.schema.json").read_text())
    plan = {"selected": ["k-m1"], "mutants": [_meta("m1", "declared", claims=["case::pin"])], "suite_prefix": "",
            "threshold": {}}
    compact = build_section(plan, {"pins": LANES, "outcomes": {p: "passed" for p in LANES}},
                            {"k-m1": _row("m1", {LANES[0]: "failed"})})
    jsonschema.Draft202012Validator(schema).validate(compact)


def test_the_html_matrix_shows_a_pin_group_as_one_pin_whose_items_it_reads() -> None:
    """One row and one filter entry per group; the page's script reads the group's outcome off its
    items (red when any item is: tests/e2e/test_mutation_pages_in_chromium.py runs it)."""
    import re

    from harness._mutate.html_view import render_html

    plan = {"selected": ["k-m1"], "mutants": [_meta("m1", "declared", claims=["case::pin"])], "suite_prefix": "",
            "threshold": {}, "suite_name": "s"}
    section = build_section(plan, {"pins": LANES, "outcomes": {p: "passed" for p in LANES}},
                            {"k-m1": _row("m1", {LANES[0]: "passed", LANES[1]: "failed", LANES[3]: "passed"})})
    html = render_html(section)
    assert html.count('<tr data-i="0" data-pin=') + html.count('<tr data-i="1" data-pin=') == 2
    assert 'data-pin="c.cases.yaml::case::pin"><td><code>c.cases.yaml::case::pin</code> <small>(3 items)' in html
    raw = re.search(r'<script id="matrix-data" type="application/json">(.*?)</script>', html, re.S)
    assert raw is not None
    data = json.loads(raw.group(1))
    assert data["groups"] == [["c.cases.yaml::case::pin", [0, 1, 2]], [LANES[3], [3]]]
    assert data["mutants"][0]["k"] == [1]
    assert "`c.cases.yaml::case::pin`: m1" in render_markdown(section)


def test_the_stryker_report_lists_every_item_of_a_pin_group_as_a_test() -> None:
    plan = {"selected": ["k-m1"], "mutants": [_meta("m1", "declared", claims=["case::pin"])], "suite_prefix": "",
            "threshold": {}}
    section = build_section(plan, {"pins": LANES, "outcomes": {p: "passed" for p in LANES}},
                            {"k-m1": _row("m1", {LANES[1]: "failed"})})
    doc = stryker_report(section, Path("/nowhere"))
    tests = {t["id"] for f in doc["testFiles"].values() for t in f["tests"]}
    assert tests == set(LANES)


def test_the_mutation_reports_name_the_pin_set_a_run_was_limited_to() -> None:
    from harness._mutate import render_summary

    plan = {"selected": [], "mutants": [], "suite_prefix": "", "threshold": {}, "suite_name": "s", "pin_set": "r2"}
    section = build_section(plan, {"pins": LANES, "outcomes": {p: "passed" for p in LANES}}, {})
    assert section["pins"]["set"] == "r2"
    assert render_summary(section).startswith("Mutation: s (pin set r2)\n")
    assert render_markdown(section).startswith("## Mutation: s (pin set r2)\n")


def test_pin_runs_saved_are_reported_per_mutant_totalled_and_printed_in_the_summary() -> None:
    from harness._mutate import render_summary

    metas = [_meta("op1"), _meta("op2")]
    rows = {
        "k-op1": {**_row("op1", {"t.py::test_a": "passed", "t.py::test_b": "failed"}),
                  "saved": {"observations": 1, "lines": 2}},
        "k-op2": {**_row("op2", {"t.py::test_a": "passed"}), "saved": {"observations": 1, "lines": 0}},
    }
    plan = {"selected": [m["key"] for m in metas], "mutants": metas, "suite_prefix": "", "suite_name": "s",
            "threshold": {"max_escaped": None, "min_score": None}, "shard": None, "first_kill": True}
    section = build_section(plan, {"pins": PINS[:3], "outcomes": {p: "passed" for p in PINS[:3]}}, rows)
    schema = json.loads((REPO / "harness/_report/schemas/mutation.schema.json").read_text())
    jsonschema.validate(section, schema)
    assert [m["saved"] for m in section["mutants"]] == [{"observations": 1, "lines": 2},
                                                        {"observations": 1, "lines": 0}]
    # covered pins run: 2 - 1 decided on observations, 1 - 1
    assert section["pin_runs"] == {"run": 1, "saved": 4, "saved_by_observations": 2, "saved_by_lines": 2}
    assert section["first_kill"] is True
    assert ("pin runs: 1 made, 4 saved (2 by observations equal to the baseline's, 2 by line coverage) "
            "(--first-kill: rows stop at their first kill)") in render_summary(section)


def _hostile_section() -> dict[str, Any]:
    """A ledger whose titles carry HTML and terminal escapes, and an escape whose diff holds a fence."""
    section = _section()
    for m in section["mutants"]:
        if m["id"] in ("green", "op2"):
            m["title"] = '<script>alert(1)</script> \x1b[2J & "x"'
    _by_id(section)["op2"]["diff"] = "-a = '```'\n+b = '\x1b[31m````'\n"
    return section


def test_ledger_text_reaches_mutation_md_with_html_and_escapes_defused() -> None:
    text = render_markdown(_hostile_section())
    assert "<script>" not in text and "\x1b" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; \\x1b[2J &amp;" in text  # the ledger row and the escape heading
    assert "`````diff\n-a = '```'\n+b = '\\x1b[31m````'\n`````" in text  # a fence its diff cannot close


def test_a_code_span_in_a_title_shows_as_written_and_html_around_it_does_not_render() -> None:
    section = _section()
    _by_id(section)["op2"]["title"] = "`len(groups) >= 2` written `len(groups) > 1` <b>x</b> ` <i>"
    text = render_markdown(section)
    assert "#### op2 — `len(groups) >= 2` written `len(groups) > 1` &lt;b&gt;x&lt;/b&gt; ` &lt;i&gt;" in text


def test_a_pin_or_file_name_cannot_close_its_code_span_to_let_html_render() -> None:
    section = _section()
    op2 = _by_id(section)["op2"]
    op2["file"] = "m`<img src=x onerror=alert(1)>`.py"
    text = render_markdown(section)
    assert "`m'<img src=x onerror=alert(1)>'.py:3` f" in text and "`<img" not in text


def test_the_terminal_summary_escapes_controls_but_keeps_the_text_readable() -> None:
    from harness._mutate import render_summary

    text = render_summary(_hostile_section())
    assert "\x1b" not in text and "<script>alert(1)</script> \\x1b[2J" in text
