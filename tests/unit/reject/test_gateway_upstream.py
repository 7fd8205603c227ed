"""Gateway rules are keyed on the upstream their receipt was recorded with: a rule recorded
through OpenRouter routing to DeepSeek (R132) fires on an OpenRouter lane fronting DeepSeek and
never on an OpenRouter lane fronting Claude, whose own recorded rejection (R024) still fires."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import InputErrors
from harness._load.suite import load_suite
from harness._model import Lane
from harness._plugins import load_callable
from harness._reject.cassettes import Catalog
from harness._reject.preload import declaration_errors
from harness._reject.verdicts import findings_for_body
from tests.unit.reject.scenario import bundled_catalog, bundled_suite

REPO = Path(__file__).resolve().parents[3]

# R132's shape: an optional union wrapped as anyOf [{anyOf [...]}, null], the inner node untyped
_UNTYPED_ANY_OF = {"type": "function", "function": {"name": "search", "parameters": {
    "type": "object", "properties": {"limit": {"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]},
                                                         {"type": "null"}]}}}}}
# R024's shape: two tools named alike
_TWICE = [{"type": "function", "function": {"name": "tool_0", "parameters": {"type": "object", "properties": {}}}}] * 2


def _lane(lane_id: str, *fronts: str, upstream: str | None = None) -> Lane:
    return Lane(id=lane_id, wire="openai-chat", provider="openrouter", base_url="https://openrouter.ai/api/v1",
                model="m", fronts=fronts, upstream=upstream)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


def _fired(catalog: Catalog, lane: Lane, body: Any) -> set[str]:
    return {rule.id for rule, _ in findings_for_body(catalog, lane, body)}


def test_the_deepseek_upstream_rule_fires_on_an_openrouter_lane_fronting_deepseek(catalog: Catalog) -> None:
    lane = _lane("openrouter-deepseek", "openrouter", "deepseek")
    assert "openrouter.untyped-any-of" in _fired(catalog, lane, {"model": "m", "tools": [_UNTYPED_ANY_OF]})


def test_the_deepseek_upstream_rule_does_not_fire_on_an_openrouter_lane_fronting_claude(catalog: Catalog) -> None:
    lane = _lane("openrouter-claude", "openrouter", "anthropic")
    assert "openrouter.untyped-any-of" not in _fired(catalog, lane, {"model": "m", "tools": [_UNTYPED_ANY_OF]})
    # the lane still meets the rejection recorded through OpenRouter with Claude behind it
    assert "openrouter.anthropic-duplicate-tool-names" in _fired(catalog, lane, {"model": "m", "tools": _TWICE})


def test_a_claude_upstream_rule_does_not_fire_on_an_openrouter_lane_fronting_deepseek(catalog: Catalog) -> None:
    lane = _lane("openrouter-deepseek", "openrouter", "deepseek")
    assert "openrouter.anthropic-duplicate-tool-names" not in _fired(catalog, lane, {"model": "m", "tools": _TWICE})


def test_a_translating_openrouter_lane_meets_only_the_rules_recorded_with_its_upstream(catalog: Catalog) -> None:
    deepseek = _lane("openrouter-deepseek", "openrouter", upstream="deepseek")
    claude = _lane("openrouter-claude", "openrouter", upstream="anthropic")
    body = {"model": "m", "tools": [_UNTYPED_ANY_OF]}
    assert "openrouter.untyped-any-of" in _fired(catalog, deepseek, body)
    assert _fired(catalog, claude, body) == set()  # nor do Anthropic's native rules judge the Chat body
    twice = {"model": "m", "tools": _TWICE}
    assert "openrouter.anthropic-duplicate-tool-names" in _fired(catalog, claude, twice)
    assert "openrouter.anthropic-duplicate-tool-names" not in _fired(catalog, deepseek, twice)


def test_the_bundled_openrouter_lanes_show_the_deepseek_rejection_on_one_lane_only(catalog: Catalog) -> None:
    suite = bundled_suite()
    case = suite.case("strict-body-untyped-union-wrapper")
    new = load_callable(suite.subjects[case.subject].new)
    fired = {}
    for lane_id in ("openrouter-deepseek", "openrouter-claude"):
        lane = suite.lanes[lane_id]
        fired[lane_id] = _fired(catalog, lane, new(json.loads(json.dumps(case.input)), lane.as_dict()))
    assert fired == {"openrouter-deepseek": {"openrouter.untyped-any-of"}, "openrouter-claude": set()}


def test_an_upstream_keyed_rule_needs_its_upstream_among_the_fronted_validators(catalog: Catalog) -> None:
    rule = catalog.rules.by_id()["openrouter.untyped-any-of"]
    assert rule.upstream == "deepseek"
    assert rule.meets(["openrouter", "deepseek"])
    assert not rule.meets(["openrouter"]) and not rule.meets(["deepseek"])
    assert not rule.meets(["openrouter", "anthropic"]) and not rule.meets(["openrouter"], "anthropic")
    assert rule.meets(["openrouter"], "deepseek")
    ids = {r.id for r in catalog.rules.for_validators(["openrouter", "anthropic"])}
    assert "openrouter.untyped-any-of" not in ids and "openrouter.anthropic-duplicate-tool-names" in ids


def test_every_gateway_rule_names_the_upstream_its_receipt_was_recorded_with(catalog: Catalog) -> None:
    gateways = {"openrouter", "one-api", "litellm"}
    for rule in catalog.rules.rules:
        if rule.validator in gateways:
            assert rule.upstream, f"{rule.id} has no upstream"


def test_declaring_a_deepseek_upstream_rejection_on_a_claude_fronting_lane_is_bad_input(catalog: Catalog) -> None:
    suite = bundled_suite()
    claude = _lane("openrouter-claude", "openrouter", "anthropic")
    case = dataclasses.replace(suite.cases[0], id="c", lanes=("openrouter-claude",), rejections=(
        {"rule": "openrouter.untyped-any-of", "lanes": ["openrouter-claude"], "why": "w"},))
    broken = dataclasses.replace(suite, lanes={**suite.lanes, claude.id: claude}, cases=(case,))
    errors = declaration_errors(broken, catalog)
    assert len(errors) == 1 and "with upstream deepseek" in str(errors[0])


def test_a_lane_upstream_that_is_not_a_validator_name_is_bad_input_at_its_place(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("version: 1\nlanes: ['lanes.yaml']\n")
    (tmp_path / "lanes.yaml").write_text(
        "version: 1\nlanes:\n  - id: gw\n    wire: openai-chat\n    provider: openrouter\n"
        "    fronts: [openrouter]\n    upstream: [deepseek]\n")
    with pytest.raises(InputErrors) as caught:
        load_suite(tmp_path)
    assert "lanes.yaml:7" in str(caught.value) and "upstream" in str(caught.value)
