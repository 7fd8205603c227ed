"""Gemini's REST shape: proto JSON takes a field by its proto name or its camelCase JSON name, so
``functionDeclarations`` (the REST docs, @ai-sdk/google) is the same field as
``function_declarations``. The rules see both: a camelCase body meets every rule its snake_case
twin meets, at its own location, and replays the recorded answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._model import Lane
from harness._reject.cassettes import Catalog, read_cassette
from harness._reject.replay import replay
from harness._reject.verdicts import cached_catalog, findings_for_body

REPO = Path(__file__).resolve().parents[3]
GEMINI = Lane(id="gemini-api", wire="gemini-generate-content", provider="gemini", fronts=("gemini",),
              base_url="https://generativelanguage.googleapis.com/v1beta")
VERTEX = Lane(id="vertex-gemini", wire="gemini-generate-content", provider="vertex", fronts=("vertex",))

# proto name -> JSON name of the fields a generateContent body carries on its way to a schema
_CAMEL = {"function_declarations": "functionDeclarations", "generation_config": "generationConfig",
          "response_schema": "responseSchema", "tool_config": "toolConfig"}
_SNAKE = {v: k for k, v in _CAMEL.items()}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return cached_catalog(str(REPO / "cases"), "../cassettes", ("rules/*.rules.yaml",))


def _respelled(value: Any, names: dict[str, str]) -> Any:
    """``value`` with the request-level field names swapped (schema keywords left as they are)."""
    if isinstance(value, dict):
        return {names.get(k, k): (_respelled(v, names) if k not in ("parameters", "responseSchema",
                                                                    "response_schema") else v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_respelled(v, names) for v in value]
    return value


def _rest_body(param: Any) -> dict[str, Any]:
    """What @ai-sdk/google sends: camelCase request fields, one declaration."""
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "lookup", "description": "d", "parameters": {
                "type": "object", "properties": {"q": param}, "required": ["q"]}}]}]}


def test_a_camel_case_body_with_a_type_list_meets_the_recorded_type_list_rejection(catalog: Catalog) -> None:
    hits = findings_for_body(catalog, GEMINI, _rest_body({"type": ["string", "integer"]}))
    fired = {(rule.id, hit.location, hit.path) for rule, hit in hits}
    assert ("gemini.type-list", "tools[0].functionDeclarations[0].parameters.properties.q",
            ".properties[0].value") in fired


def test_replaying_the_camel_case_body_plays_back_the_recorded_400(catalog: Catalog) -> None:
    got = replay(catalog, GEMINI, _rest_body({"type": ["string", "integer"]}))
    assert got.status == "rejected" and "gemini.type-list" in got.rules
    assert got.response_status == 400 and "R071" in got.receipts
    assert "Proto field is not repeating" in got.response_body


def _recorded_gemini_bodies(catalog: Catalog) -> list[tuple[str, str, Any]]:
    """(receipt, validator, recorded body) of every Gemini and Vertex rejection in the catalog."""
    out = []
    for interaction in catalog.interactions:
        entry = interaction.entry
        if entry.outcome == "rejected" and entry.validator in ("gemini", "vertex"):
            request, _ = read_cassette(Path(catalog.folder) / entry.cassette)[entry.index]
            out.append((entry.id, entry.validator, json.loads(request.body)))
    return out


def test_every_recorded_gemini_rejection_fires_the_same_rules_in_either_spelling(catalog: Catalog) -> None:
    bodies = _recorded_gemini_bodies(catalog)
    assert len(bodies) >= 30
    for rid, validator, body in bodies:
        lane = GEMINI if validator == "gemini" else VERTEX
        for names in (_CAMEL, _SNAKE):
            twin = _respelled(body, names)
            assert twin != body or not any(k in json.dumps(body) for k in names), rid
            assert ({r.id for r, _ in findings_for_body(catalog, lane, twin)}
                    == {r.id for r, _ in findings_for_body(catalog, lane, body)}), rid


def test_a_clean_body_in_either_spelling_meets_no_rule_schema_fields_by_proto_name_too(catalog: Catalog) -> None:
    body = _rest_body({"type": "array", "items": {"type": "string", "min_length": 1}, "max_items": 3})
    for twin in (body, _respelled(body, _SNAKE)):
        assert findings_for_body(catalog, GEMINI, twin) == []


def test_a_parameters_json_schema_declaration_is_judged_by_the_declaration_rules_not_the_schema_proto_ones(
        catalog: Catalog) -> None:
    """``parametersJsonSchema`` carries plain JSON Schema, which Gemini takes where ``parameters``
    (the Schema proto) refuses: unions, ``$ref``/``$defs``, ``additionalProperties``. The proto
    rules must not judge it; the rules on the declaration itself (its name) still do."""
    schema = {"type": "object", "additionalProperties": False, "$defs": {"tag": {"type": "string"}},
              "properties": {"q": {"type": ["string", "null"]}, "t": {"$ref": "#/$defs/tag"}}}
    for field in ("parametersJsonSchema", "parameters_json_schema"):
        body = {"contents": [], "tools": [{"functionDeclarations": [{"name": "lookup", field: schema}]}]}
        assert findings_for_body(catalog, GEMINI, body) == []
        body["tools"][0]["functionDeclarations"][0]["name"] = "github/create_issue"
        assert {r.id for r, _ in findings_for_body(catalog, GEMINI, body)} == {"gemini.function-name"}
