"""Verdicts: bodies against the rules of every validator a lane fronts; declarations; exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness._common.canonical import canonical_bytes
from harness._exitcodes import ExitCode
from harness._model import Case, Lane, Observation, Suite
from harness._plugins import load_callable
from harness._reject.report import render_markdown
from harness._reject.verdicts import evaluate, exit_code
from tests.unit.reject.scenario import GOOD_BODY, bundled_suite, write_scenario

REPO = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((REPO / "harness/_report/schemas/rejections.schema.json").read_text())
SEED_CASES = ("apply-patch-root-oneof", "finance-root-anyof")


def _observe(suite: Suite, case_ids: tuple[str, ...], lane_ids: tuple[str, ...]) -> dict[Any, Observation]:
    """Bodies built by calling each subject's pipelines directly (no worker pool needed here)."""
    out: dict[Any, Observation] = {}
    for case_id in case_ids:
        case = suite.case(case_id)
        subject = suite.subjects[case.subject]
        for lane_id in lane_ids:
            for side, spec in (("old", subject.old), ("new", subject.new)):
                value = load_callable(spec)(json.loads(json.dumps(case.input)), suite.lanes[lane_id].as_dict())
                out[(case_id, lane_id, side)] = Observation(case_id, lane_id, side, "ok",  # type: ignore[arg-type]
                                                            canonical_bytes(value), value)
    return out


@pytest.fixture(scope="module")
def bundled() -> Suite:
    suite = bundled_suite()
    assert {"custom-gateway-claude", "anthropic-first-party"} <= set(suite.lanes)
    return suite


def _rules(section: dict[str, Any], lane: str, side: str) -> list[str]:
    return [r["rule"] for f in section["findings"] if f["lane"] == lane and f["side"] == side
            for r in f["rejections"]]


def test_a_gateway_lane_shows_the_upstream_root_composition_rejection(bundled: Suite) -> None:
    section = evaluate(bundled, _observe(bundled, SEED_CASES, ("custom-gateway-claude",)))
    new = [f for f in section["findings"] if f["side"] == "new"]
    assert {f["case"] for f in new if f["status"] == "known-rejected"} == set(SEED_CASES)
    first = new[0]["rejections"][0]
    assert first["rule"] == "anthropic.root-composition"
    assert first["location"] == "tools[0].input_schema"
    assert first["receipt"]["source_url"].startswith("https://github.com/anthropics/claude-code/")
    assert first["receipt"]["provenance"] == "transcribed"
    # seed 001 declares this trade-off in its case files: reported, with the reason, not failed
    assert first["expected"] is bool(first["why"])


def test_the_first_party_lane_shows_no_root_composition_rejection_for_the_new_pipeline(bundled: Suite) -> None:
    section = evaluate(bundled, _observe(bundled, SEED_CASES, ("anthropic-first-party",)))
    assert "anthropic.root-composition" not in _rules(section, "anthropic-first-party", "new")


def test_the_old_pipeline_is_free_of_the_root_composition_rejection_on_every_lane(bundled: Suite) -> None:
    lanes = tuple(lane for lane in bundled.lanes if lane in bundled.case(SEED_CASES[0]).lanes)
    section = evaluate(bundled, _observe(bundled, SEED_CASES, lanes))
    assert all("anthropic.root-composition" not in _rules(section, lane, "old") for lane in lanes)
    jsonschema.validate(section, SCHEMA)


def _tiny(tmp_path: Path, rejections: tuple[dict[str, Any], ...] = ()) -> tuple[Suite, dict[Any, Observation]]:
    root = write_scenario(tmp_path)
    lane = Lane(id="gw", wire="anthropic-messages", provider="custom", fronts=("one-api", "anthropic"))
    case = Case(id="c1", subject="demo", file="x", line=1, title="", input={}, lanes=("gw",), expect={},
                checks=frozenset(), pins=(), rejections=rejections)
    suite = Suite(root=str(root), name="tiny", lanes={"gw": lane}, subjects={}, cases=(case,),
                  settings={"rules": ["rules/*.rules.yaml"], "cassettes": "cassettes"})
    clean = {"model": "m", "tools": [GOOD_BODY["tools"][0]]}
    obs = {("c1", "gw", "new"): Observation("c1", "gw", "new", "ok", None, GOOD_BODY),
           ("c1", "gw", "old"): Observation("c1", "gw", "old", "ok", None, clean)}
    return suite, obs


def test_an_undeclared_rejection_of_the_new_body_fails_with_exit_3(tmp_path: Path) -> None:
    suite, obs = _tiny(tmp_path)
    section = evaluate(suite, obs)
    assert exit_code(section) == ExitCode.KNOWN_REJECTION
    assert section["findings"][1]["rejections"][0]["location"] == "tools[1].input_schema"
    jsonschema.validate(section, SCHEMA)


def test_a_declared_rejection_is_reported_without_failing(tmp_path: Path) -> None:
    decl = {"rule": "demo.root-composition", "lanes": ["gw"], "why": "documented trade-off"}
    suite, obs = _tiny(tmp_path, (decl,))
    section = evaluate(suite, obs)
    rejection = section["findings"][1]["rejections"][0]
    assert rejection["expected"] is True and rejection["why"] == "documented trade-off"
    assert exit_code(section) == ExitCode.OK
    assert section["summary"]["new_expected"] == 1


def test_a_declaration_nothing_sets_off_is_listed_as_stale(tmp_path: Path) -> None:
    decl = {"rule": "demo.root-composition", "side": "old", "why": "was once true"}
    suite, obs = _tiny(tmp_path, (decl,))
    assert evaluate(suite, obs)["stale_declarations"][0]["rule"] == "demo.root-composition"


def test_a_pipeline_error_is_not_built_rather_than_clean(tmp_path: Path) -> None:
    suite, obs = _tiny(tmp_path)
    obs[("c1", "gw", "new")] = Observation("c1", "gw", "new", "error")
    section = evaluate(suite, obs)
    assert section["findings"][1]["status"] == "not-built"
    assert exit_code(section) == ExitCode.OK


def test_the_markdown_group_row_names_lane_rule_side_case_location_message_and_source(tmp_path: Path) -> None:
    suite, obs = _tiny(tmp_path)
    text = render_markdown(evaluate(suite, obs))
    row = next(line for line in text.splitlines() if line.startswith("| gw | demo.root-composition | new |"))
    for part in ("c1", "demo.root-composition", "`tools[1].input_schema`", "does not support",
                 "https://example.org/report/1"):
        assert part in row


def test_the_exit_reason_names_the_undeclared_rule_lane_and_case(tmp_path: Path) -> None:
    from harness._reject.verdicts import exit_reason

    suite, obs = _tiny(tmp_path)
    assert exit_reason(evaluate(suite, obs)) == (
        "1 undeclared known rejection(s) introduced by the new pipeline: demo.root-composition on gw (c1)")


def test_the_exit_reason_of_a_clean_section_says_so(tmp_path: Path) -> None:
    from harness._reject.verdicts import exit_reason

    decl = {"rule": "demo.root-composition", "lanes": ["gw"], "why": "documented trade-off"}
    suite, obs = _tiny(tmp_path, (decl,))
    assert exit_reason(evaluate(suite, obs)) == "no undeclared known rejection introduced by the new pipeline"


def test_the_exit_reason_stays_short_when_many_rules_fire() -> None:
    from harness._reject.verdicts import exit_reason

    findings = [{"case": f"case-{i}", "lane": f"lane-{i % 4}", "side": "new", "rejections": [
        {"rule": f"rule-{i % 7}", "expected": False}]} for i in range(200)]
    reason = exit_reason({"findings": findings})
    assert reason.startswith("200 undeclared known rejection(s) on the new pipeline: rule-0 on lane-0, lane-3 +2")
    assert reason.endswith(", and 4 more rule(s)") and len(reason) < 300
