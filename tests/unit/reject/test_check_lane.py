"""`harness check-lane`: one lane over the bundled suite, only the rejection findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli.main import cli
from harness.exitcodes import ExitCode

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
