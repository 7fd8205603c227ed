"""Request bodies per wire, and the case-input errors a broken case gets."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from wire_harness_subjects.openai_strict_resume import SUBJECT
from wire_harness_subjects.openai_strict_resume.pipelines import new, old

from harness._common.canonical import canonical_bytes
from harness._load import load_suite
from harness._plugins import resolve_subject

TOOL: dict[str, Any] = {
    "name": "lookup",
    "description": "Look a thing up.",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
                     "required": ["q"]},
}
STRICT_PARAMETERS = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "n": {"type": ["integer", "null"]}},
    "required": ["q", "n"],
    "additionalProperties": False,
}
REPO = Path(__file__).resolve().parents[3]


def lane(wire: str, provider: str = "openai", model: str | None = "gpt-4.1") -> dict[str, Any]:
    return {"id": "x", "wire": wire, "provider": provider, "base_url": None, "model": model,
            "options": {}, "fronts": []}


def test_chat_wraps_the_strict_definition_in_function() -> None:
    assert new({"tools": [TOOL]}, lane("openai-chat")) == {
        "model": "gpt-4.1",
        "tools": [{"type": "function", "function": {
            "name": "lookup", "description": "Look a thing up.", "parameters": STRICT_PARAMETERS,
            "strict": True}}],
    }


def test_responses_spells_the_strict_definition_flat() -> None:
    assert new({"tools": [TOOL]}, lane("openai-responses")) == {
        "model": "gpt-4.1",
        "tools": [{"type": "function", "name": "lookup", "description": "Look a thing up.",
                   "parameters": STRICT_PARAMETERS, "strict": True}],
    }


def test_anthropic_carries_the_authors_schema_without_strict() -> None:
    body = new({"tools": [TOOL]}, lane("anthropic-resume", "anthropic", None))
    assert body == {"tools": [{"name": "lookup", "description": "Look a thing up.",
                               "input_schema": TOOL["input_schema"]}]}


STRICT_BYTES = (b'"parameters":{"type":"object","properties":{"q":{"type":"string"},'
                b'"n":{"type":["integer","null"]}},"required":["q","n"],"additionalProperties":false},'
                b'"strict":true')


# Old and new both call bodies.request_body in request mode, so comparing them proves nothing:
# each pipeline's bytes are compared with the body written out here instead.
@pytest.mark.parametrize(
    ("wire", "provider", "model", "expected"),
    [
        ("openai-chat", "openai", "gpt-4.1",
         b'{"model":"gpt-4.1","tools":[{"type":"function","function":{"name":"lookup",'
         b'"description":"Look a thing up.",' + STRICT_BYTES + b'}}]}'),
        ("openai-responses", "openai", "gpt-4.1",
         b'{"model":"gpt-4.1","tools":[{"type":"function","name":"lookup",'
         b'"description":"Look a thing up.",' + STRICT_BYTES + b'}]}'),
        ("mistral-chat", "mistral", "mistral-large-latest",
         b'{"model":"mistral-large-latest","tools":[{"type":"function","function":{"name":"lookup",'
         b'"description":"Look a thing up.",' + STRICT_BYTES + b'}}]}'),
        ("anthropic-resume", "anthropic", "claude-sonnet-4-5",
         b'{"model":"claude-sonnet-4-5","tools":[{"name":"lookup","description":"Look a thing up.",'
         b'"input_schema":{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},'
         b'"required":["q"]}}]}'),
    ],
)
def test_both_pipelines_send_exactly_these_request_bytes(wire: str, provider: str, model: str,
                                                         expected: bytes) -> None:
    data = {"tools": [TOOL], "mode": "request"}
    assert canonical_bytes(old(data, lane(wire, provider, model))) == expected
    assert canonical_bytes(new(data, lane(wire, provider, model))) == expected


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"mode": "replay"}, r"input\.mode: expected request \| live \| resume, found 'replay'"),
        ({"mode": "resume"}, r"input\.call: expected \{name, arguments, origin_provider\?\}"),
        ({"mode": "resume", "call": {"name": "lookup", "arguments": {"q": 1}}},
         r"input\.call\.arguments: expected the arguments as a JSON string"),
        ({"mode": "resume", "call": {"name": "nope", "arguments": "{}"}},
         r"input\.call\.name: expected a tool of this case \(lookup\), found 'nope'"),
        ({"mode": "resume", "call": {"name": "lookup", "arguments": "{}"}, "repair": "yes"},
         r"input\.repair: expected true or false"),
        ({"mode": "resume", "call": {"name": "lookup", "arguments": "{}", "origin_provider": "acme"}},
         r"provider 'acme': expected one of anthropic, mistral, openai, openrouter"),
    ],
)
def test_a_broken_case_raises_one_clear_error(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        new({"tools": [TOOL], **data}, lane("openai-chat"))


def test_an_unknown_wire_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="lane wire 'gemini': expected one of"):
        new({"tools": [TOOL]}, lane("gemini"))


def test_an_input_schema_that_is_not_a_json_schema_is_refused_by_tool_name() -> None:
    bad = {**TOOL, "input_schema": {"type": "objekt"}}
    data = {"tools": [bad], "mode": "resume", "call": {"name": "lookup", "arguments": "{}"}}
    with pytest.raises(ValueError, match="tool lookup: input_schema is not a JSON Schema"):
        new(data, lane("openai-chat"))


def test_the_subject_resolves_by_name_and_serves_its_lane_wires() -> None:
    assert resolve_subject("openai_strict_resume") is SUBJECT
    assert SUBJECT.wires == {"openai-chat", "openai-responses", "mistral-chat", "anthropic-resume"}
    assert SUBJECT.input_keys == {"mode", "call", "repair", "standard_schema"}


def test_the_bundled_cases_and_lanes_load_on_their_own(tmp_path: Path) -> None:
    cases = REPO / "cases"
    (tmp_path / "lanes").mkdir()
    shutil.copy(cases / "lanes" / "openai.yaml", tmp_path / "lanes" / "openai.yaml")
    shutil.copytree(cases / "openai_strict_resume", tmp_path / "openai_strict_resume",
                    ignore=shutil.ignore_patterns("*.ledger.yaml"))
    suite = load_suite(tmp_path)
    ids = {case.id for case in suite.cases}
    assert "resume-bookflight-strict-nulls" in ids
    assert "strict-body-bookflight" in ids
    assert {case.subject for case in suite.cases} == {"openai_strict_resume"}
    assert set(suite.lanes) == {"openai-chat", "openai-responses", "openrouter", "mistral",
                                "anthropic-resume", "openai-chat-no-model", "openrouter-deepseek",
                                "openrouter-claude"}
