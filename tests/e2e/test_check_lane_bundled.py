"""`harness check-lane` over the bundled suite: the lanes' recorded findings as the command prints
them. Expensive (about 0.5 to 1.5 CPU s a call: the bundled suite loaded, its catalog checked and
every case built on the lane): the README tier runs the same command on a tiny suite
(tests/unit/reject/test_check_lane.py) and holds the bundled pipelines' findings through the
rejection stage itself (tests/unit/reject/test_verdicts.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness._cli.main import cli
from harness._exitcodes import ExitCode

pytestmark = [pytest.mark.slow, pytest.mark.expensive]

REPO = Path(__file__).resolve().parents[2]


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


def test_the_bundled_tool_result_lane_says_it_fronts_no_validator_with_rules() -> None:
    code, out = _run("tool-result")
    assert code == ExitCode.OK, out
    assert "tool-result fronts no validator with rules (its fronts list is empty)" in out
    assert "nothing was checked" in out and "0 of 0 bodies" not in out
    code, out = _run("tool-result", "--json")
    assert json.loads(out[out.index("{"):])["nothing_to_check"].startswith("tool-result fronts no validator with rules")


def test_the_deepseek_anthropic_lane_s_bodies_never_hold_what_its_rules_select_and_it_says_so() -> None:
    """The Anthropic-compatible DeepSeek endpoint fronts the DeepSeek rules, recorded on its
    OpenAI-compatible endpoint (tools[*].function): its bodies pass them unjudged."""
    code, out = _run("deepseek-anthropic", "--json")
    assert code == ExitCode.OK, out
    blind = json.loads(out[out.index("{"):])["unselected"]
    assert blind["bodies"] > 0 and "deepseek.tool-name-pattern" in blind["rules"]
    result = CliRunner().invoke(cli, ["check-lane", "deepseek-anthropic", "--suite", str(REPO / "cases")],
                                standalone_mode=False)
    assert f"WARNING: on deepseek-anthropic, {len(blind['rules'])} rule(s) selected nothing in" in result.output
