"""The anthropic_messages pipelines end to end: bodies, lanes, refeed, and the bundled lanes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from wire_harness_subjects.anthropic_messages import FIXED_SUBJECT, SUBJECT, new, old
from wire_harness_subjects.anthropic_messages.body import refeed

from harness._common.canonical import canonical_bytes
from harness._plugins import resolve_subject
from tests.unit.reject.scenario import bundled_suite

REPO = Path(__file__).resolve().parents[3]
TOOLS = REPO / "cases" / "anthropic_messages" / "tools" / "recorded.json"
FIRST_PARTY = {"id": "fp", "wire": "anthropic-messages", "provider": "anthropic",
               "base_url": "https://api.anthropic.com", "model": "claude-sonnet-4-5",
               "options": {}, "fronts": ["anthropic"]}
DEEPSEEK = {"id": "ds", "wire": "anthropic-messages", "provider": "deepseek",
            "base_url": "https://api.deepseek.com/anthropic", "model": "deepseek-chat",
            "options": {}, "fronts": ["deepseek"]}


def recorded(name: str) -> dict[str, Any]:
    tools: list[dict[str, Any]] = json.loads(TOOLS.read_text())["tools"]
    return next(t for t in tools if t["name"] == name)


def test_the_subject_is_registered_as_a_builtin() -> None:
    assert resolve_subject("anthropic_messages") is SUBJECT
    assert SUBJECT.wires == frozenset({"anthropic-messages"})


def test_the_fixed_variant_is_a_builtin_sharing_the_old_pipeline_and_the_refeed() -> None:
    assert resolve_subject("anthropic_messages_fixed") is FIXED_SUBJECT
    assert FIXED_SUBJECT.old == SUBJECT.old and FIXED_SUBJECT.refeed == SUBJECT.refeed
    assert FIXED_SUBJECT.new.endswith(":build_body_fixed")


@pytest.mark.parametrize("url", ["HTTPS://api.anthropic.com", "https://api.anthropic.com./v1",
                                 "//api.anthropic.com"])
def test_a_careless_spelling_of_the_genuine_url_ships_the_raw_root_union_at_the_pr_head(url: str) -> None:
    tool = recorded("apply_patch")
    lane = DEEPSEEK | {"provider": "custom", "base_url": url, "fronts": ["anthropic"]}
    assert new.build_body({"tools": [tool]}, lane)["tools"][0]["input_schema"] == tool["input_schema"]
    fixed = new.build_body_fixed({"tools": [tool]}, lane)["tools"][0]["input_schema"]
    # The review's fix closes the first two spellings; '//' has no scheme for it to strip.
    assert ("oneOf" in fixed) == url.startswith("//")


@pytest.mark.parametrize("name", ["apply_patch", "finance"])
def test_recorded_tools_ship_byte_identical_to_the_previous_line_on_the_first_party_lane(name: str) -> None:
    inputs = {"tools": [recorded(name)]}
    old_body, new_body = old.build_body(inputs, FIRST_PARTY), new.build_body(inputs, FIRST_PARTY)
    assert canonical_bytes(new_body) == canonical_bytes(old_body)
    description = new_body["tools"][0]["description"]
    assert description.startswith(recorded(name)["description"] + "\n\nExactly one" if name == "apply_patch"
                                  else recorded(name)["description"] + "\n\nAt least one")


def test_a_verbatim_lane_ships_the_declared_tool_byte_for_byte() -> None:
    tool = recorded("apply_patch")
    body = new.build_body({"tools": [tool]}, DEEPSEEK)
    assert canonical_bytes(body["tools"][0]) == canonical_bytes(tool)
    assert "oneOf" not in old.build_body({"tools": [tool]}, DEEPSEEK)["tools"][0]["input_schema"]


def test_a_verbatim_lane_does_not_normalize_a_bare_object() -> None:
    body = new.build_body({"tools": [{"name": "t", "description": "", "input_schema": {"type": "object"}}]},
                          DEEPSEEK)
    assert body["tools"][0]["input_schema"] == {"type": "object"}


def test_the_body_is_a_messages_request_with_the_lane_model_and_the_system_prompt() -> None:
    tool = {"name": "t", "description": "d", "input_schema": {"type": "object", "properties": {}}}
    body = new.build_body({"tools": [tool], "system": "be brief"}, FIRST_PARTY)
    assert canonical_bytes(body) == canonical_bytes({
        "model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "be brief",
        "messages": [{"role": "user", "content": "Use the tools you need."}],
        "tools": [tool],
    })
    assert new.build_body({"tools": []}, FIRST_PARTY | {"model": None})["model"] == "claude-sonnet-4-5"


def test_the_pipelines_leave_their_input_untouched() -> None:
    inputs = {"tools": [recorded("apply_patch"), recorded("finance")]}
    before = copy.deepcopy(inputs)
    old.build_body(inputs, FIRST_PARTY)
    new.build_body(inputs, FIRST_PARTY)
    assert inputs == before


def test_refeeding_a_narrowed_body_changes_nothing() -> None:
    inputs = {"tools": [recorded("apply_patch")]}
    first = new.build_body(inputs, FIRST_PARTY)
    again = new.build_body(refeed(inputs, first), FIRST_PARTY)
    assert canonical_bytes(again) == canonical_bytes(first)


def _narrowed_lanes(build: Any) -> set[str]:
    suite = bundled_suite()
    tool = {"name": "u", "description": "", "input_schema": {
        "type": "object", "properties": {}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}
    return {lane.id for lane in suite.lanes.values() if lane.wire == "anthropic-messages"
            and "oneOf" not in build({"tools": [tool]}, lane.as_dict())["tools"][0]["input_schema"]}


def test_the_pr_head_narrows_the_plain_first_party_lanes_and_the_userinfo_trick_only() -> None:
    # Seed 001's MINOR-2: the careless spellings of the genuine URL ship the raw union.
    assert _narrowed_lanes(new.build_body) == {
        "anthropic-first-party", "anthropic-proxy-identity", "custom-anthropic-endpoint",
        "anthropic-other-host", "url-userinfo-trick"}


def test_the_fixed_variant_also_narrows_the_upper_case_scheme_and_trailing_dot_lanes() -> None:
    assert _narrowed_lanes(new.build_body_fixed) == {
        "anthropic-first-party", "anthropic-proxy-identity", "custom-anthropic-endpoint",
        "anthropic-other-host", "url-userinfo-trick", "url-upper-scheme", "url-trailing-dot"}
