"""Catalog coverage for what real pipelines hit: every Gemini, Vertex, OpenAI strict and gateway
rule fires on the body of each receipt backing it, and not on a conforming body of the same shape
(the receipt's trigger put right); every such receipt in ../shared/receipts has a rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._reject.cassettes import Catalog
from harness._reject.match import fire
from harness._reject.verdicts import cached_catalog

REPO = Path(__file__).resolve().parents[3]
FAMILIES = ("gemini", "vertex", "openai-strict", "openrouter", "one-api", "litellm")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return cached_catalog(str(REPO / "cases"), "../cassettes", ("rules/*.rules.yaml",))


def _gemini(params: Any, name: str = "lookup", **body: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "Use a tool."}]}],
            "tools": [{"function_declarations": [{"name": name, "description": "d", "parameters": params}]}], **body}


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def _chat(params: Any, strict: bool = False, name: str = "lookup") -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "description": "d", "parameters": params}
    if strict:
        function["strict"] = True
    return {"model": "m", "tools": [{"type": "function", "function": function}]}


def _responses(params: Any, strict: bool = True) -> dict[str, Any]:
    return {"model": "m", "tools": [{"type": "function", "name": "lookup", "parameters": params, "strict": strict}]}


def _closed(required: list[str] | None = None, **props: Any) -> dict[str, Any]:
    """A strict-mode object: every property required, additionalProperties false."""
    return {**_obj(**props), "required": required if required is not None else list(props),
            "additionalProperties": False}


def _response_format(schema: Any) -> dict[str, Any]:
    return {"model": "m", "response_format": {"type": "json_schema",
                                              "json_schema": {"name": "r", "strict": True, "schema": schema}}}


_S = {"type": "string"}
_STRICT_NESTED = _closed(permissions=_closed(mode=_S), query=_S)

# rule id -> a body carrying the receipt's shape put right (what a conforming client sends)
CONFORMING: dict[str, Any] = {
    "openrouter.anthropic-duplicate-tool-names": {"model": "m", "tools": [
        _chat(_obj(), name="tool_0")["tools"][0], _chat(_obj(), name="tool_1")["tools"][0]]},
    "openrouter.untyped-any-of": _chat(_obj(limit={"type": "integer", "description": "or a string"})),
    "one-api.openai-empty-array-schema": _chat(_obj(command=_S)),
    "openrouter.fireworks-untyped-subschema": _chat(_obj(raw={"type": "boolean"})),
    "litellm.vertex-type-list": _chat(_obj(query={"type": "array",
                                                  "items": _obj(d={"type": "string", "nullable": True})})),
    "openrouter.anthropic-output-numeric-bounds": _response_format(
        _closed(confidence={"type": "number", "description": "from 0 to 1"})),
    "gemini.unknown-schema-keyword": _gemini(_obj(topic=_S, depth={"type": "string", "enum": ["basic"]},
                                                  days={"type": "integer", "minimum": 1})),
    "gemini.type-list": _gemini(_obj(query={"type": "string", "nullable": True})),
    "gemini.empty-object-properties": _gemini(_obj(query=_S)),
    "gemini.properties-on-non-object": _gemini(_obj(data=_obj(title=_S))),
    "gemini.enum-on-non-string": _gemini(_obj(accountability={"type": "string", "enum": ["1", "2"]})),
    "gemini.enum-value-not-string": _gemini(_obj(flag={"type": "string", "enum": ["true", "false"]})),
    "gemini.string-format": _gemini(_obj(url={"type": "string", "description": "a URL"},
                                         since={"type": "string", "format": "date-time"})),
    "gemini.function-name": _gemini(_obj(title=_S), name="github_create_issue"),
    "gemini.code-assist.function-name": {"request": _gemini(_obj(q=_S), name="_21st_magic_component_builder")},
    "gemini.code-assist.unknown-schema-keyword": {"request": _gemini(_obj(q=_S))},
    "gemini.required-undefined": _gemini({**_obj(query=_S, ref=_S), "required": ["query", "ref"]}),
    "gemini.type-required": _gemini(_obj(query=_S)),
    "gemini.array-missing-items": _gemini(_obj(user_ids={"type": "array", "items": _S})),
    "gemini.invalid-type-value": _gemini(_obj(level={"type": "string", "enum": ["low", "high"]})),
    "gemini.function-calling-config-without-declarations": _gemini(
        _obj(q=_S), toolConfig={"functionCallingConfig": {"mode": "AUTO"}}),
    "gemini.tools-in-generation-config": _gemini(_obj(q=_S), generationConfig={"temperature": 0}),
    "gemini.response-schema-empty-object": {"generationConfig": {"responseMimeType": "application/json",
                                                                 "responseSchema": {"type": "OBJECT", "properties": {
                                                                     "go_back": {"type": "OBJECT", "properties": {
                                                                         "steps": {"type": "INTEGER"}}}}}}},
    "vertex.any-of-with-siblings": _gemini(_obj(comments={"anyOf": [{"type": "array", "items": _S},
                                                                    {"type": "null"}]})),
    "vertex.type-unspecified": _gemini(_obj(width={"type": "integer", "description": "Width in pixels."})),
    "vertex.parameters-not-object": _gemini({"type": "OBJECT", "properties": {"path": {"type": "STRING"}}}),
    "vertex.property-not-a-schema": _gemini(_obj(p8=_S, p9=_obj(q=_S))),
    "vertex.response-schema-pattern": {"generationConfig": {"responseMimeType": "application/json", "responseSchema": {
        "type": "OBJECT", "properties": {"code": {"type": "STRING", "description": "three capitals"}}}}},
    "openai-strict.chat.additional-properties": _chat(_STRICT_NESTED, strict=True),
    "openai-strict.chat.tool-all-required": _chat(_closed(id={"type": "string", "format": "uuid"}), strict=True),
    "openai-strict.chat.required-not-in-properties": _chat(_closed(recipe=_obj(steps=_S) | {
        "required": ["steps"], "additionalProperties": False}), strict=True),
    "openai-strict.responses.additional-properties": _responses(_STRICT_NESTED),
    "openai-strict.responses.tool-all-required": _responses(_closed(params={"type": "array", "items": _S})),
    "openai-strict.responses.text-format-all-required": {"model": "m", "text": {"format": {
        "type": "json_schema", "name": "response", "strict": True,
        "schema": _closed(message=_S, ok={"type": "boolean"})}}},
    "openai-strict.chat.response-format-all-required": _response_format(
        _closed(organizations={"type": "array", "items": _closed(name=_S, roles={"type": "array", "items": _S})})),
    "openai-strict.chat.root-one-of": _response_format(_closed(a={"anyOf": [_S, {"type": "null"}]}, b=_S)),
    "openai-strict.chat.default-not-permitted": _response_format(_closed(placeholder=_S)),
    "openai-strict.chat.unsupported-format": _chat(_closed(url={"type": "string", "format": "hostname"}), strict=True),
    "openai-strict.chat.self-reference": _response_format({
        **_closed(label=_S, children={"type": "array", "items": {"$ref": "#/$defs/node"}}),
        "$defs": {"node": _closed(label=_S)}}),
}


def _rules(catalog: Catalog) -> list[str]:
    return [r.id for r in catalog.rules.rules if r.validator in FAMILIES]


def test_every_rule_of_these_families_has_a_conforming_body_here(catalog: Catalog) -> None:
    assert sorted(_rules(catalog)) == sorted(CONFORMING)


@pytest.mark.parametrize("rule_id", sorted(CONFORMING))
def test_the_rule_fires_on_each_receipt_body_and_not_on_its_conforming_body(catalog: Catalog, rule_id: str) -> None:
    rule = catalog.rules.by_id()[rule_id]
    backing = catalog.backing(rule_id)
    assert backing, f"{rule_id} has no receipt"
    for interaction in backing:
        assert fire(rule, interaction.body), f"{rule_id} does not fire on {interaction.entry.id}'s body"
    assert fire(rule, CONFORMING[rule_id]) == []
    # nor does any other rule of the same validator: the conforming body is clean for that provider
    others = [r.id for r in catalog.rules.rules if r.validator == rule.validator and fire(r, CONFORMING[rule_id])]
    assert others == [], f"the conforming body for {rule_id} sets off {others}"


_UNCLOSED = {"type": "object", "properties": {"mode": _S}, "required": ["mode"]}


@pytest.mark.parametrize("where", ["property", "array item", "anyOf branch", "$defs entry"])
def test_a_strict_chat_tool_with_an_open_object_anywhere_meets_the_additional_properties_rule(
        catalog: Catalog, where: str) -> None:
    nested = {"property": _UNCLOSED, "array item": {"type": "array", "items": _UNCLOSED},
              "anyOf branch": {"anyOf": [_UNCLOSED, {"type": "null"}]}, "$defs entry": {"$ref": "#/$defs/p"}}[where]
    params = _closed(p=nested)
    if where == "$defs entry":
        params["$defs"] = {"p": _UNCLOSED}
    rule = catalog.rules.by_id()["openai-strict.chat.additional-properties"]
    hits = fire(rule, _chat(params, strict=True))
    assert len(hits) == 1 and hits[0].path, hits
    assert fire(rule, _chat(params, strict=False)) == []  # strict off: the rule does not apply


@pytest.mark.parametrize("strict", [True, False])
def test_a_strict_chat_tool_leaving_a_property_out_of_required_or_requiring_an_undefined_one_is_refused(
        catalog: Catalog, strict: bool) -> None:
    rules = catalog.rules.by_id()
    optional = _chat({**_closed(a=_S, b=_closed(c=_S, d=_S, required=["c"])), "required": ["a"]}, strict=strict)
    hits = fire(rules["openai-strict.chat.tool-all-required"], optional)
    assert [h.path for h in hits] == (["", "'properties', 'b'"] if strict else [])
    unsatisfiable = _chat(_closed(required=["a", "ghost"], a=_S), strict=strict)
    hits = fire(rules["openai-strict.chat.required-not-in-properties"], unsatisfiable)
    assert [h.path for h in hits] == ([""] if strict else [])


def test_a_strict_tool_missing_a_required_property_meets_the_all_required_rule_only_when_strict(
        catalog: Catalog) -> None:
    rule = catalog.rules.by_id()["openai-strict.responses.tool-all-required"]
    params = _closed(required=["a"], a=_S, b=_closed(c=_S, d=_S, required=["c"]))
    hits = fire(rule, _responses(params))
    assert [h.path for h in hits] == ["", "'properties', 'b'"]
    assert fire(rule, _responses(params, strict=False)) == []


def _receipts(shared: Path) -> list[dict[str, Any]]:
    """The shared transcriptions and the ones this project found (cassettes/receipts.jsonl)."""
    files = (shared / "receipts" / "receipts.jsonl", REPO / "cassettes" / "receipts.jsonl")
    return [json.loads(line) for path in files for line in path.read_text().splitlines() if line]


def _in_scope(receipt: dict[str, Any]) -> bool:
    """Gemini and Vertex receipts, OpenAI strict-mode ones, and those recorded through a gateway."""
    text = f"{receipt['provider']} {receipt['endpoint']} {receipt.get('via', '')}".lower()
    google = str(receipt["provider_family"]).startswith("google")
    strict = receipt["provider_family"] == "openai" and "strict" in f"{text} {receipt['trigger']}".lower()
    gateway = any(g in text for g in ("openrouter", "one-api", "litellm"))
    return google or strict or gateway


# in scope, and no rule: limits no body shape can be keyed on, or that moved since the receipt
# (a rule at the recorded limit would report bodies the provider now accepts as rejected)
NO_SHAPE = {
    "R090": "a nesting-depth limit of GenerationConfig schemas that appeared server-side, no client change",
    "R091": "a serving-state limit of the compiled constraint, set off by size (~200k characters), not a shape",
    "R048": "strict nesting depth: the receipt's limit of 5 levels is documented as 10 since",
    "R049": "strict enum values in total: the receipt's limit of 500 is documented as 1000 since",
}


def test_every_gemini_vertex_strict_and_gateway_receipt_has_a_rule(catalog: Catalog, shared: Path) -> None:
    listed = {rid for r in catalog.rules.rules for rid in r.receipts}
    scope = [r["id"] for r in _receipts(shared) if _in_scope(r)]
    assert len(scope) > 40
    missing = [rid for rid in scope if rid not in listed and rid not in NO_SHAPE]
    assert missing == [], f"receipts with no rule: {missing}"
