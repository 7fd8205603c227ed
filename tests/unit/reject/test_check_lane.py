"""`harness check-lane`: one lane over a suite, only the rejection findings.

On a tiny suite of the scenario's one rule (tests/unit/reject/scenario.py): a gateway lane to
Claude, a lane fronting nothing, and a lane whose new pipeline spells ``inputSchema``, where the
rule selects nothing. The same command over the bundled suite, lane by lane, is
tests/e2e/test_check_lane_bundled.py (expensive: about a CPU second a call); the bundled
pipelines' findings on those lanes are held in this tier by tests/unit/reject/test_verdicts.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from harness._cli.main import cli
from harness._exitcodes import ExitCode
from tests.unit.reject.scenario import LANES, write_suite

# The new pipeline passes a tool's schema through and the old one flattens it to a plain object,
# except for `legacy` tools, where it is the other way round: each side ships one root union. Both
# spell the field ``inputSchema`` on the `camel` lane.
PIPES = """\
def _key(lane):
    return 'inputSchema' if lane['id'] == 'camel' else 'input_schema'


def _body(inp, lane, keeps):
    flat = {'type': 'object'}
    return {'model': 'm', 'tools': [{'name': t['name'], _key(lane): t['input_schema'] if keeps(t) else flat}
                                    for t in inp['tools']]}


def old(inp, lane):
    return _body(inp, lane, lambda t: t['name'] == 'legacy')


def new(inp, lane):
    return _body(inp, lane, lambda t: t['name'] != 'legacy')
"""
_GW = LANES[0]["id"]
_LANES = [LANES[0], {**LANES[0], "id": "bare", "fronts": []}, {**LANES[0], "id": "camel", "fronts": ["anthropic"]}]
_UNION = {"name": "union", "description": "d", "input_schema": {"type": "object", "anyOf": [{"required": ["a"]}]}}
_LEGACY = {**_UNION, "name": "legacy"}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suite: plain cases, a root union the new pipeline ships and one the old pipeline ships,
    each declared on the gateway lane."""
    root = write_suite(tmp_path_factory.mktemp("check_lane"), None, lanes=_LANES)
    (root / "preload_pipes.py").write_text(PIPES)
    cases = yaml.safe_load((root / "demo.cases.yaml").read_text())
    cases["cases"].append({"id": "root-union", "tools": [_UNION], "expect": {"*": "same"}, "rejections": [
        {"rule": "demo.root-composition", "lanes": [_GW], "why": "the gateway's trade-off, documented"}]})
    cases["cases"].append({"id": "legacy-union", "tools": [_LEGACY], "expect": {"*": "same"}, "rejections": [
        {"rule": "demo.root-composition", "lanes": [_GW], "side": "old", "why": "the old pipeline's, fixed"}]})
    (root / "demo.cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    return root


def _run(suite: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check-lane", *args, "--suite", str(suite)], standalone_mode=False)
    return result.return_value if result.return_value is not None else result.exit_code, result.output


def _json(out: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(out[out.index("{"):])
    return found


def test_the_gateway_lane_lists_the_root_composition_rejection_with_location_and_source(suite: Path) -> None:
    code, out = _run(suite, _GW, "--json")
    assert code == ExitCode.OK, out  # the suite declares the rejection this lane meets
    found = _json(out)
    assert found["lane"] == _GW
    hits = [(f["case"], f["side"], r) for f in found["findings"] for r in f["rejections"]]
    # the new side only, by default: the old pipeline's own union is left out
    assert [(case, side) for case, side, _ in hits] == [("root-union", "new")]
    _, _, first = hits[0]
    assert first["rule"] == "demo.root-composition" and first["expected"] is True
    assert first["location"] == "tools[0].input_schema"
    assert first["receipt"]["source_url"] == "https://example.org/report/1"


def test_side_both_or_old_lists_the_old_pipelines_findings_too_or_alone(suite: Path) -> None:
    code, out = _run(suite, _GW, "--side", "both", "--json")
    assert code == ExitCode.OK, out
    met = {(f["case"], f["side"]) for f in _json(out)["findings"] for r in f["rejections"]
           if r["rule"] == "demo.root-composition"}
    assert met == {("root-union", "new"), ("legacy-union", "old")}
    code, out = _run(suite, _GW, "--side", "old", "--json")
    assert code == ExitCode.OK, out
    assert [(f["case"], f["side"]) for f in _json(out)["findings"]] == [("legacy-union", "old")]


def test_an_undeclared_known_rejection_exits_3_and_is_printed_with_its_recorded_message(
        suite: Path, tmp_path: Path) -> None:
    lanes = [{**LANES[0], "id": "gw2"}]
    other = write_suite(tmp_path, None, lanes=lanes)
    (other / "preload_pipes.py").write_text(PIPES)
    cases = yaml.safe_load((other / "demo.cases.yaml").read_text())
    cases["cases"].append({"id": "root-union", "tools": [_UNION], "expect": {"*": "same"}})
    (other / "demo.cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    code, out = _run(other, "gw2")
    assert code == ExitCode.KNOWN_REJECTION, out
    assert "REJECTED  root-union  new  demo.root-composition  at tools[0].input_schema" in out
    assert "recorded: tools.1.custom.input_schema: input_schema does not support oneOf" in out


def test_an_unknown_lane_is_a_bad_argument(suite: Path) -> None:
    code, _ = _run(suite, "no-such-lane")
    assert code == 2


def test_a_lane_fronting_no_validator_with_rules_says_so_instead_of_a_bare_zero_of_zero(suite: Path) -> None:
    code, out = _run(suite, "bare")
    assert code == ExitCode.OK, out
    assert "bare fronts no validator with rules (its fronts list is empty)" in out
    assert "nothing was checked" in out and "0 of 0 bodies" not in out
    code, out = _run(suite, "bare", "--json")
    assert _json(out)["nothing_to_check"].startswith("bare fronts no validator with rules")


def test_a_lane_fronting_validators_no_rule_names_is_told_which(tmp_path: Path) -> None:
    lanes = [{**lane, "fronts": ["mistral"]} for lane in LANES]
    suite = write_suite(tmp_path, None, lanes=lanes)
    result = CliRunner().invoke(cli, ["check-lane", lanes[0]["id"], "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == ExitCode.OK, result.output
    assert f"{lanes[0]['id']} fronts no validator with rules (it fronts mistral, which no rule names)" in result.output


def test_a_lane_whose_bodies_never_hold_what_its_rules_select_says_so(suite: Path) -> None:
    """The `camel` lane fronts Anthropic, whose rule selects ``tools[*].input_schema``; its new
    pipeline spells ``inputSchema``, so the root union passes unjudged."""
    code, out = _run(suite, "camel", "--json")
    assert code == ExitCode.OK, out
    found = _json(out)
    assert found["findings"] == []  # the blind spot: the union is there, the rule never sees it
    assert found["unselected"] == {"bodies": 8, "rules": ["demo.root-composition"]}
    _, text = _run(suite, "camel")
    assert "WARNING: on camel, 1 rule(s) selected nothing in 8 bodies (demo.root-composition)" in text
