"""`harness check-lane`: one lane over the bundled suite, only the rejection findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness._cli.main import cli
from harness._exitcodes import ExitCode

REPO = Path(__file__).resolve().parents[3]


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check-lane", *args, "--suite", str(REPO / "cases")], standalone_mode=False)
    return result.return_value if result.return_value is not None else result.exit_code, result.output


@pytest.fixture(scope="module")
def gateway() -> dict[str, object]:
    code, out = _run("custom-gateway-claude", "--json")
    assert code == ExitCode.OK, out  # the bundled suite declares every rejection this lane meets
    found: dict[str, object] = json.loads(out[out.index("{"):])
    assert found["lane"] == "custom-gateway-claude"
    return found


def test_the_gateway_lane_lists_the_root_composition_rejection_with_location_and_source(
        gateway: dict[str, object]) -> None:
    findings = gateway["findings"]
    assert isinstance(findings, list)
    hits = [(f["case"], r) for f in findings for r in f["rejections"] if r["rule"] == "anthropic.root-composition"]
    cases = {case for case, _ in hits}
    assert {"apply-patch-root-oneof", "finance-root-anyof"} <= cases
    _, first = hits[0]
    assert first["location"].startswith("tools[") and first["receipt"]["source_url"].startswith("https://")


def test_the_first_party_lane_has_no_root_composition_finding_for_the_new_pipeline() -> None:
    code, out = _run("anthropic-first-party", "--json")
    assert code == ExitCode.OK, out
    findings = json.loads(out[out.index("{"):])["findings"]
    rules = {r["rule"] for f in findings for r in f["rejections"]}
    assert rules, "the first-party lane meets other anthropic rules, so the check below sees findings"
    assert "anthropic.root-composition" not in rules


def test_the_old_pipeline_meets_no_root_composition_rejection_on_the_gateway_lane() -> None:
    code, out = _run("custom-gateway-claude", "--side", "both", "--json")
    assert code == ExitCode.OK, out
    findings = json.loads(out[out.index("{"):])["findings"]
    sides = {f["side"] for f in findings for r in f["rejections"] if r["rule"] == "anthropic.root-composition"}
    assert sides == {"new"}, "the new pipeline meets it on this lane; the old one never does"


def test_an_unknown_lane_is_a_bad_argument() -> None:
    code, _ = _run("no-such-lane")
    assert code == 2


def test_a_lane_fronting_no_validator_with_rules_says_so_instead_of_a_bare_zero_of_zero() -> None:
    code, out = _run("tool-result")
    assert code == ExitCode.OK, out
    assert "tool-result fronts no validator with rules (its fronts list is empty)" in out
    assert "nothing was checked" in out and "0 of 0 bodies" not in out
    code, out = _run("tool-result", "--json")
    assert json.loads(out[out.index("{"):])["nothing_to_check"].startswith("tool-result fronts no validator with rules")


def test_a_lane_fronting_validators_no_rule_names_is_told_which(tmp_path: Path) -> None:
    from tests.unit.reject.scenario import LANES, write_suite

    lanes = [{**lane, "fronts": ["mistral"]} for lane in LANES]
    suite = write_suite(tmp_path, None, lanes=lanes)
    result = CliRunner().invoke(cli, ["check-lane", lanes[0]["id"], "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == ExitCode.OK, result.output
    assert f"{lanes[0]['id']} fronts no validator with rules (it fronts mistral, which no rule names)" in result.output


def test_a_lane_whose_bodies_never_hold_what_its_rules_select_says_so() -> None:
    """The Anthropic-compatible DeepSeek endpoint fronts the DeepSeek rules, recorded on its
    OpenAI-compatible endpoint (tools[*].function): its bodies pass them unjudged."""
    code, out = _run("deepseek-anthropic", "--json")
    assert code == ExitCode.OK, out
    blind = json.loads(out[out.index("{"):])["unselected"]
    assert blind["bodies"] > 0 and "deepseek.tool-name-pattern" in blind["rules"]
    result = CliRunner().invoke(cli, ["check-lane", "deepseek-anthropic", "--suite", str(REPO / "cases")],
                                standalone_mode=False)
    assert f"WARNING: on deepseek-anthropic, {len(blind['rules'])} rule(s) selected nothing in" in result.output
