"""Resume and live paths through the real pipelines: what the tool receives, or the refusal."""

from __future__ import annotations

from typing import Any

import pytest
from wire_harness_subjects.openai_strict_resume.pipelines import new, old

BOOK_FLIGHT: dict[str, Any] = {
    "name": "bookFlight",
    "description": "Book a flight.",
    "input_schema": {
        "type": "object",
        "properties": {
            "destination": {"type": "string"},
            "date": {"type": "string"},
            "note": {"type": ["string", "null"]},
        },
        "required": ["destination", "note"],
        "additionalProperties": False,
    },
}
SEED_ARGS = '{"destination":"Tokyo","date":null,"note":null}'
SEED_REFUSAL = (
    "Input validation failed for tool bookFlight: $.date: None is not of type 'string'. "
    'Received arguments: {"destination":"Tokyo","date":null,"note":null}'
)
RAN = {"tool_received": {"destination": "Tokyo", "note": None}}


def lane(provider: str, wire: str = "openai-chat") -> dict[str, Any]:
    return {"id": f"{provider}-lane", "wire": wire, "provider": provider, "base_url": None,
            "model": None, "options": {}, "fronts": []}


def resume(arguments: str = SEED_ARGS, origin: str | None = None, **extra: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"name": "bookFlight", "arguments": arguments}
    if origin:
        call["origin_provider"] = origin
    return {"tools": [BOOK_FLIGHT], "mode": "resume", "call": call, **extra}


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses"])
def test_the_seed_repro_old_refuses_the_strict_null_and_new_runs_the_tool(wire: str) -> None:
    assert old(resume(), lane("openai", wire)) == {"error": SEED_REFUSAL}
    assert new(resume(), lane("openai", wire)) == RAN


def test_the_pr_head_normalizes_a_call_anthropic_produced_with_the_openai_rules() -> None:
    # Seed 003's review (wrong provider), unfixed at the head: the resuming adapter's hook runs,
    # so the Anthropic model's own null date is removed and the tool runs.
    assert new(resume(origin="anthropic"), lane("openai")) == RAN
    assert old(resume(origin="anthropic"), lane("openai")) == {"error": SEED_REFUSAL}


def test_the_pr_head_does_not_normalize_an_openai_call_resumed_through_anthropic() -> None:
    on_anthropic = lane("anthropic", "anthropic-resume")
    assert new(resume(origin="openai"), on_anthropic) == {"error": SEED_REFUSAL}
    assert old(resume(origin="openai"), on_anthropic) == {"error": SEED_REFUSAL}


@pytest.mark.parametrize("provider", ["openrouter", "mistral", "anthropic"])
def test_adapters_without_the_resume_hook_keep_the_old_refusal(provider: str) -> None:
    assert new(resume(), lane(provider)) == {"error": SEED_REFUSAL}
    assert new(resume(), lane(provider)) == old(resume(), lane(provider))


def test_repair_on_drops_the_refused_null_so_old_runs_too() -> None:
    assert old(resume(repair=True), lane("openai")) == RAN
    assert new(resume(repair=True), lane("openrouter")) == RAN


def test_repair_cannot_save_a_required_field() -> None:
    out = old(resume('{"destination":null,"note":"x"}', repair=True), lane("openai"))
    assert out == {"error": "Input validation failed for tool bookFlight: $: 'destination' is a "
                            "required property. Received arguments: {\"note\":\"x\"}"}


def test_new_normalizes_before_the_check_so_only_the_required_null_is_refused() -> None:
    out = new(resume('{"destination":null,"date":null,"note":"x"}'), lane("openai"))
    assert out == {"error": "Input validation failed for tool bookFlight: $.destination: None is not "
                            "of type 'string'. Received arguments: {\"destination\":null,\"note\":\"x\"}"}


def test_malformed_arguments_are_a_tool_error_on_both_sides() -> None:
    for pipeline in (old, new):
        out = pipeline(resume('{"destination":"Tok'), lane("openai"))
        assert out["error"].startswith("Malformed JSON arguments for tool bookFlight: ")


def test_the_live_path_removes_the_widened_null_on_both_sides() -> None:
    live = {**resume(), "mode": "live"}
    assert old(live, lane("openai")) == RAN
    assert new(live, lane("openai")) == RAN


def test_the_live_path_on_a_provider_that_does_not_widen_leaves_the_null_to_the_check() -> None:
    live = {**resume(), "mode": "live"}
    assert new(live, lane("anthropic", "anthropic-resume")) == {"error": SEED_REFUSAL}


def test_nested_and_array_strict_nulls_are_removed_on_resume() -> None:
    trip = {
        "name": "bookTrip",
        "input_schema": {
            "type": "object",
            "properties": {
                "passengers": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "seat": {"type": "string"},
                                   "meal": {"type": ["string", "null"]}},
                    "required": ["name", "meal"], "additionalProperties": False}},
                "contact": {"type": "object", "properties": {"phone": {"type": "string"}},
                            "additionalProperties": False},
            },
            "required": ["passengers", "contact"],
        },
    }
    args = '{"passengers":[{"name":"Ada","seat":null,"meal":null}],"contact":{"phone":null}}'
    data = {"tools": [trip], "mode": "resume", "call": {"name": "bookTrip", "arguments": args}}
    assert new(data, lane("openai")) == {
        "tool_received": {"passengers": [{"name": "Ada", "meal": None}], "contact": {}}}
    refusal = old(data, lane("openai"))["error"]
    assert "$.contact.phone: None is not of type 'string'" in refusal
    assert "$.passengers[0].seat: None is not of type 'string'" in refusal


def test_a_draft_07_typed_definition_is_checked_with_its_own_draft() -> None:
    # zod-to-json-schema (Zod 3) writes draft-07 and spells nullable as a type list
    tool = {
        "name": "weather",
        "input_schema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                           "comment": {"type": ["string", "null"]}},
            "required": ["city", "comment"],
            "additionalProperties": False,
        },
    }
    data = {"tools": [tool], "mode": "resume",
            "call": {"name": "weather", "arguments": '{"city":"Oslo","days":null,"comment":null}'}}
    assert new(data, lane("openai")) == {"tool_received": {"city": "Oslo", "comment": None}}
    assert old(data, lane("openai"))["error"].startswith(
        "Input validation failed for tool weather: $.days: None is not of type 'integer'.")
