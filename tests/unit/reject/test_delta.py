"""The rejection delta: which rejections the new pipeline introduced, fixed or kept, per lane and
rule, and which of them fail the run under --fail-on-rejections introduced|any."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema

from harness._exitcodes import ExitCode
from harness._model import Case, Lane, Observation, Suite
from harness._reject.delta import delta, failing
from harness._reject.report import render_markdown, text_lines
from harness._reject.verdicts import evaluate, exit_code, exit_reason, ok_reason
from tests.unit.reject.scenario import GOOD_BODY, write_scenario
from tests.unit.reject.test_verdicts import SCHEMA


def _finding(case: str, side: str, *rules: str, lane: str = "gw", expected: bool = False,
             status: str | None = None) -> dict[str, Any]:
    return {"case": case, "lane": lane, "side": side, "status": status or ("known-rejected" if rules else
                                                                            "no-known-rejection"),
            "rejections": [{"rule": r, "expected": expected} for r in rules]}


FINDINGS = [
    _finding("brought", "old"), _finding("brought", "new", "r.name"),
    _finding("kept", "old", "r.name"), _finding("kept", "new", "r.name", "r.name"),
    _finding("mended", "old", "r.root"), _finding("mended", "new"),
]


def test_each_case_and_lane_is_introduced_fixed_or_persisting_per_rule() -> None:
    got = delta(FINDINGS, {c: "s" for c in ("brought", "kept", "mended")})
    counts = {"introduced": 1, "fixed": 1, "silenced": 0, "persisting": 1, "undeclared": 1}
    assert got["summary"] == {**counts, "bodies": counts}
    by_rule = {g["rule"]: g for g in got["groups"]}
    assert by_rule["r.name"]["introduced"] == ["brought"] and by_rule["r.name"]["persisting"] == ["kept"]
    assert by_rule["r.root"]["fixed"] == ["mended"] and by_rule["r.root"]["subject"] == "s"


def test_only_introduced_undeclared_rejections_fail_by_default_and_any_fails_on_inherited_ones_too() -> None:
    assert failing(FINDINGS, "introduced") == [("brought", "gw", "r.name")]
    assert sorted(failing(FINDINGS, "any")) == [("brought", "gw", "r.name"), ("kept", "gw", "r.name")]


def test_a_new_rejection_where_the_old_side_built_nothing_counts_as_introduced() -> None:
    findings = [_finding("c", "old", status="not-built"), _finding("c", "new", "r.name")]
    assert failing(findings, "introduced") == [("c", "gw", "r.name")]
    assert delta(findings, {})["summary"]["introduced"] == 1


def test_a_case_and_lane_whose_new_side_built_nothing_counts_nothing_fixed_or_introduced() -> None:
    for new_status in ("not-built", "not-a-request-body"):
        findings = [_finding("c", "old", "r.root"), _finding("c", "new", status=new_status)]
        zero = {"introduced": 0, "fixed": 0, "silenced": 0, "persisting": 0, "undeclared": 0}
        assert delta(findings, {}) == {"summary": {**zero, "bodies": zero}, "groups": []}
        assert failing(findings, "any") == []


def test_a_declared_introduced_rejection_is_counted_but_does_not_fail() -> None:
    findings = [_finding("c", "old"), _finding("c", "new", "r.name", expected=True)]
    assert failing(findings, "introduced") == []
    counts = {"introduced": 1, "fixed": 0, "silenced": 0, "persisting": 0, "undeclared": 0}
    assert delta(findings, {})["summary"] == {**counts, "bodies": counts}


def _suite(tmp_path: Path, fail_on: str | None, old_body: Any) -> tuple[Suite, dict[Any, Observation]]:
    root = write_scenario(tmp_path)
    lane = Lane(id="gw", wire="anthropic-messages", provider="custom", fronts=("one-api", "anthropic"))
    case = Case(id="c1", subject="demo", file="x", line=1, title="", input={}, lanes=("gw",), expect={},
                checks=frozenset(), pins=())
    settings: dict[str, Any] = {"rules": ["rules/*.rules.yaml"], "cassettes": "cassettes"}
    if fail_on:
        settings["fail_on_rejections"] = fail_on
    suite = Suite(root=str(root), name="tiny", lanes={"gw": lane}, subjects={}, cases=(case,), settings=settings)
    return suite, {("c1", "gw", "new"): Observation("c1", "gw", "new", "ok", None, GOOD_BODY),
                   ("c1", "gw", "old"): Observation("c1", "gw", "old", "ok", None, old_body)}


def test_a_rejection_the_old_pipeline_had_too_passes_by_default_and_fails_with_any(tmp_path: Path) -> None:
    suite, obs = _suite(tmp_path, None, GOOD_BODY)
    section = evaluate(suite, obs)
    jsonschema.validate(section, SCHEMA)
    assert section["fail_on"] == "introduced" and exit_code(section) == ExitCode.OK
    assert section["delta"]["summary"]["persisting"] == 1
    assert exit_reason(section) == "no undeclared known rejection introduced by the new pipeline"
    suite, obs = _suite(tmp_path / "any", "any", GOOD_BODY)
    assert exit_code(evaluate(suite, obs)) == ExitCode.KNOWN_REJECTION


def test_the_report_shows_the_delta_table_and_groups_findings_by_lane_rule_and_side(tmp_path: Path) -> None:
    suite, obs = _suite(tmp_path, None, GOOD_BODY)
    text = render_markdown(evaluate(suite, obs))
    assert "| lane | rule | introduced | fixed | silenced | persisting |" in text
    assert "| gw | `demo.root-composition` | 0 | 0 | 0 | 1 (c1) |" in text
    row = next(line for line in text.splitlines() if line.startswith("| gw | demo.root-composition | new |"))
    assert "1 persisting" in row


def test_quiet_terminal_output_is_counts_without_a_line_per_group(tmp_path: Path) -> None:
    suite, obs = _suite(tmp_path, None, {"model": "m", "tools": []})
    section = evaluate(suite, obs)
    loud, quiet = text_lines(section), text_lines(section, quiet=True)
    assert any(line.startswith("  REJECTED demo.root-composition on gw (new): 1 case(s), 1 introduced")
               for line in loud)
    assert quiet == loud[:2] and "1 introduced (1 undeclared)" in quiet[1]


_UNION = {"type": "object", "oneOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]},
                                      {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}


def _one_tool(schema: Any) -> dict[str, Any]:
    return {"model": "m", "tools": [{"name": "ok", "input_schema": {"type": "object", "properties": {}}},
                                    {"name": "pick", "input_schema": schema}]}


def _old_new(tmp_path: Path, new_schema: Any) -> dict[str, Any]:
    """The section for one case whose old body carries a root oneOf and whose new one has ``new_schema``."""
    suite, obs = _suite(tmp_path, None, _one_tool(_UNION))
    obs["c1", "gw", "new"] = Observation("c1", "gw", "new", "ok", None, _one_tool(new_schema))
    return evaluate(suite, obs)


def test_a_new_side_that_drops_the_root_one_of_is_silenced_not_fixed(tmp_path: Path) -> None:
    section = _old_new(tmp_path, {"type": "object"})
    jsonschema.validate(section, SCHEMA)
    summary = section["delta"]["summary"]
    assert (summary["fixed"], summary["silenced"]) == (0, 1)
    assert section["delta"]["groups"][0]["silenced"] == ["c1"]
    lines = text_lines(section)
    assert "0 fixed, 1 silenced (constraint lost, not a fix)" in lines[1]
    assert any(line.startswith("  SILENCED demo.root-composition on gw: 1 case(s)") for line in lines)
    assert "| gw | `demo.root-composition` | 0 | 0 | 1 (c1) | 0 |" in render_markdown(section)


def test_a_new_side_that_rewrites_the_root_one_of_into_properties_is_fixed(tmp_path: Path) -> None:
    rewritten = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                 "description": "Give exactly one of a or b."}
    summary = _old_new(tmp_path, rewritten)["delta"]["summary"]
    assert (summary["fixed"], summary["silenced"]) == (1, 0)


def test_a_new_side_that_moves_the_union_into_the_tool_description_is_fixed(tmp_path: Path) -> None:
    """Seed 001's narrowing: the root union leaves input_schema and the tool's description states it."""
    suite, obs = _suite(tmp_path, None, _one_tool(_UNION))
    narrowed = _one_tool({"type": "object"})
    narrowed["tools"][1]["description"] = "Exactly one of these parameter groups must be provided: `a` | `b`."
    obs["c1", "gw", "new"] = Observation("c1", "gw", "new", "ok", None, narrowed)
    summary = evaluate(suite, obs)["delta"]["summary"]
    assert (summary["fixed"], summary["silenced"]) == (1, 0)


def test_a_new_side_that_drops_the_tool_carrying_the_union_is_silenced(tmp_path: Path) -> None:
    suite, obs = _suite(tmp_path, None, _one_tool(_UNION))
    gone = {"model": "m", "tools": [{"name": "ok", "input_schema": {"type": "object", "properties": {}}}]}
    obs["c1", "gw", "new"] = Observation("c1", "gw", "new", "ok", None, gone)
    assert evaluate(suite, obs)["delta"]["summary"]["silenced"] == 1


def test_a_first_run_with_the_same_rejection_on_both_sides_says_so_and_is_not_called_clean(tmp_path: Path) -> None:
    suite, obs = _suite(tmp_path, None, GOOD_BODY)
    section = evaluate(suite, obs)
    assert exit_code(section) == ExitCode.OK
    warning = [line for line in text_lines(section, quiet=True) if "WARNING" in line]
    assert len(warning) == 1 and "1 undeclared known rejection(s) on the new pipeline are persisting" in warning[0]
    assert "demo.root-composition" in warning[0] and "--fail-on-rejections any" in warning[0]
    reason = ok_reason(section)
    assert reason is not None and reason.startswith("not clean: 1 undeclared known rejection(s) persist")
    assert "**WARNING: 1 undeclared" in render_markdown(section)
    suite, obs = _suite(tmp_path / "any", "any", GOOD_BODY)
    assert ok_reason(evaluate(suite, obs)) is None  # with any, the run fails on them instead


def test_a_rule_fixed_at_one_place_and_deleted_at_another_is_silenced() -> None:
    from harness._reject.rules import Rule
    from harness._reject.silenced import silenced

    # the bundled Gemini translator's const-and-exclusive-minimum: const becomes a one-value enum
    # (a fix), exclusiveMinimum is dropped (a constraint lost): the rule's loss is not a fix
    rule = Rule(id="demo.unknown-keyword", validator="demo", select="tools[*].input_schema.properties[*]",
                message="unknown keyword", receipts=("R1",),
                rejects={"anyOf": [{"required": ["const"]}, {"required": ["exclusiveMinimum"]}]})
    old = {"tools": [{"input_schema": {"properties": {"depth": {"type": "string", "const": "basic"},
                                                      "days": {"type": "integer", "exclusiveMinimum": 0}}}}]}
    new = {"tools": [{"input_schema": {"properties": {"depth": {"type": "string", "enum": ["basic"]},
                                                      "days": {"type": "integer"}}}}]}
    places = ["tools[0].input_schema.properties.depth", "tools[0].input_schema.properties.days"]
    assert silenced(rule, places, old, new)
    fixed_both = {"tools": [{"input_schema": {"properties": {"depth": {"type": "string", "enum": ["basic"]},
                                                             "days": {"type": "integer", "minimum": 1}}}}]}
    assert not silenced(rule, places, old, fixed_both)


def test_a_run_with_no_rule_in_use_says_nothing_was_checked_instead_of_counting_bodies_checked() -> None:
    from harness._reject.report import headline

    summary = {"bodies": 60, "known_rejected": 0, "new_undeclared": 0, "new_expected": 0, "old": 0,
               "new_rejected_bodies": 0, "new_undeclared_bodies": 0, "old_rejected_bodies": 0}
    line = headline({"summary": summary, "catalog": {"rules": 0, "receipts": 0, "folder": ""}})
    assert line == ("rejections: off, no rule in use (rules: none): 60 bodies built, none checked against a "
                    "recorded rejection")
    assert "60 bodies checked" in headline({"summary": summary, "catalog": {"rules": 93}})
