"""A tool declared with an executable (Standard Schema, e.g. Zod) schema: the pull request
head's resume hook is handed that schema, finds no JSON Schema to map the widened fields from,
and removes nothing (seed 003's review); the live path, handed the JSON Schema form, still does."""

from __future__ import annotations

from typing import Any

import pytest
from wire_harness_subjects.openai_strict_resume.pipelines import new, old

BOOK = {"name": "bookFlight", "description": "", "input_schema": {
    "type": "object", "additionalProperties": False, "required": ["destination", "note"],
    "properties": {"destination": {"type": "string"}, "date": {"type": "string"},
                   "note": {"type": ["string", "null"]}}}}
OPENAI = {"id": "openai-chat", "wire": "openai-chat", "provider": "openai"}


def call(mode: str, **extra: Any) -> dict[str, Any]:
    return {"tools": [BOOK], "mode": mode, **extra,
            "call": {"name": "bookFlight", "arguments": '{"destination":"Tokyo","date":null,"note":null}'}}


def test_the_head_normalizes_a_json_schema_tool_but_not_one_declared_with_an_executable_schema() -> None:
    assert new(call("resume"), OPENAI) == {"tool_received": {"destination": "Tokyo", "note": None}}
    refused = new(call("resume", standard_schema=["bookFlight"]), OPENAI)
    assert refused == old(call("resume", standard_schema=["bookFlight"]), OPENAI)
    assert refused["error"].startswith("Input validation failed for tool bookFlight: $.date: None is not of type")


def test_the_live_path_removes_the_strict_null_of_an_executable_schema_tool_too() -> None:
    assert new(call("live", standard_schema=["bookFlight"]), OPENAI) == {
        "tool_received": {"destination": "Tokyo", "note": None}}


def test_standard_schema_naming_no_tool_of_the_case_is_a_broken_case() -> None:
    expected = r"input\.standard_schema: expected names of tools of this case \(bookFlight\)"
    with pytest.raises(ValueError, match=expected):
        new(call("resume", standard_schema=["bookFligth"]), OPENAI)
