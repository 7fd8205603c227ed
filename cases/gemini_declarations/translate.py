"""Tools (MCP / JSON Schema shape) into a Gemini ``generateContent`` request: the translation
every client and gateway that reaches Gemini or Vertex AI performs, and where most of their
recorded 400s come from (cases/rules/gemini.rules.yaml).

``old_body`` ships each tool's JSON Schema verbatim as ``parameters`` (what LiteLLM 1.74 and many
MCP bridges did: the Gemini API reads ``parameters`` as its Schema proto, not as JSON Schema).
``new_body`` translates to the Schema subset the receipts show Gemini accepting:

- keywords the proto does not know are dropped (``additionalProperties``, ``$schema``,
  ``exclusiveMinimum``...), ``$ref`` into ``$defs``/``definitions`` is inlined;
- a type list becomes one type plus ``nullable`` (or ``anyOf`` when it names several types), an
  ``anyOf`` of one schema and ``null`` becomes that schema with ``nullable: true``;
- ``const`` becomes a one-value string ``enum``; ``enum`` stays only on strings, its values as
  strings; a string ``format`` other than ``enum`` and ``date-time`` is dropped;
- ``properties`` stay only on objects, ``required`` names only declared properties;
- a function name is made to match ``^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$``;
- on a Vertex lane (provider ``vertex``) an ``anyOf`` node keeps no sibling field, as
  Vertex requires ("When using any_of, it must be the only field set").

A node with no type and nothing to infer one from (a description alone) stays untyped: the new
translator does not guess, and the cases declare the rejection that follows.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["new_body", "old_body"]

_KEEP = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
    "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf",
    "propertyOrdering", "default", "items", "minimum", "maximum",
})
_STRING_FORMATS = frozenset({"enum", "date-time"})
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.:-]")
_MAX_REF_DEPTH = 8


def _schema_of(tool: Mapping[str, Any]) -> Any:
    for key in ("input_schema", "inputSchema", "parameters"):
        if key in tool:
            return tool[key]
    return {"type": "object", "properties": {}}


def _body(tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "Use a tool."}]}],
            "tools": [{"function_declarations": tools}]}


def old_body(pipeline_input: Mapping[str, Any], lane: Mapping[str, Any]) -> dict[str, Any]:
    """Each tool's name, description and JSON Schema, verbatim."""
    declarations = []
    for tool in pipeline_input["tools"]:
        declared = {"name": tool["name"], "description": tool.get("description", "")}
        declared["parameters"] = copy.deepcopy(_schema_of(tool))
        declarations.append(declared)
    return _body(declarations)


def new_body(pipeline_input: Mapping[str, Any], lane: Mapping[str, Any]) -> dict[str, Any]:
    """Each tool translated to Gemini's function declaration and Schema subset."""
    vertex = lane.get("provider") == "vertex"
    declarations = []
    for tool in pipeline_input["tools"]:
        schema = _schema_of(tool)
        defs = _defs(schema)
        declarations.append({"name": _name(str(tool["name"])), "description": tool.get("description", ""),
                             "parameters": _subset(schema, defs, vertex, 0)})
    return _body(declarations)


def _name(name: str) -> str:
    fixed = _NAME_CHARS.sub("_", name)
    if not fixed or not (fixed[0].isalpha() or fixed[0] == "_"):
        fixed = "_" + fixed
    return fixed[:64]


def _defs(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    found: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        if isinstance(schema.get(key), dict):
            found.update({f"#/{key}/{name}": sub for name, sub in schema[key].items()})
    return found


def _resolved(node: dict[str, Any], defs: Mapping[str, Any], depth: int) -> dict[str, Any]:
    """The node with a local ``$ref`` replaced by its target (siblings kept), up to a depth."""
    ref = node.get("$ref")
    target = defs.get(ref) if isinstance(ref, str) else None
    if not isinstance(target, dict) or depth >= _MAX_REF_DEPTH:
        return node
    merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return _resolved(merged, defs, depth + 1)


def _subset(node: Any, defs: Mapping[str, Any], vertex: bool, depth: int) -> Any:
    """One schema node in Gemini's subset (see the module docstring), children first."""
    if not isinstance(node, dict):
        return node
    work = _resolved(node, defs, depth)
    for step in _STEPS:
        work = step(work)
    out = {k: v for k, v in work.items() if k in _KEEP}
    _children(out, defs, vertex, depth)
    return _vertex_any_of(out) if vertex else out


def _children(out: dict[str, Any], defs: Mapping[str, Any], vertex: bool, depth: int) -> None:
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _subset(v, defs, vertex, depth + 1) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _subset(out["items"], defs, vertex, depth + 1)
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [_subset(b, defs, vertex, depth + 1) for b in out["anyOf"]]


def _type_list(node: dict[str, Any]) -> dict[str, Any]:
    kinds = node.get("type")
    if not isinstance(kinds, list):
        return node
    named = [k for k in kinds if k != "null"]
    rest = {k: v for k, v in node.items() if k != "type"}
    if "null" in kinds:
        rest["nullable"] = True
    if len(named) == 1:
        return {**rest, "type": named[0]}
    return {**rest, "anyOf": [{"type": k} for k in named]}


def _null_union(node: dict[str, Any]) -> dict[str, Any]:
    branches = node.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or {"type": "null"} not in branches:
        return node
    other = next(b for b in branches if b != {"type": "null"})
    if not isinstance(other, dict):
        return node
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    return {**other, **rest, "nullable": True}


def _const(node: dict[str, Any]) -> dict[str, Any]:
    if "const" not in node:
        return node
    rest = {k: v for k, v in node.items() if k != "const"}
    value = node["const"]
    return {**rest, "type": "string", "enum": [value]} if isinstance(value, str) else rest


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return str(value).lower() if isinstance(value, bool) else str(value)


def _enum(node: dict[str, Any]) -> dict[str, Any]:
    if "enum" not in node:
        return node
    if node.get("type") not in ("string", None) or not isinstance(node["enum"], list):
        return {k: v for k, v in node.items() if k != "enum"}
    return {**node, "type": "string", "enum": [_as_text(v) for v in node["enum"] if v is not None]}


def _format(node: dict[str, Any]) -> dict[str, Any]:
    if node.get("type") == "string" and "format" in node and node["format"] not in _STRING_FORMATS:
        return {k: v for k, v in node.items() if k != "format"}
    return node


def _properties(node: dict[str, Any]) -> dict[str, Any]:
    """``properties`` only on objects, never empty; an untyped node with properties is an object."""
    if "properties" not in node:
        return node
    if node.get("type") not in ("object", None) or node["properties"] == {}:
        return {k: v for k, v in node.items() if k != "properties"}
    return node if "type" in node else {**node, "type": "object"}


def _required(node: dict[str, Any]) -> dict[str, Any]:
    """``required`` names only declared properties, and is left out when it names none."""
    if not isinstance(node.get("required"), list):
        return node
    found = node.get("properties")
    declared: dict[str, Any] = found if isinstance(found, dict) else {}
    kept = [r for r in node["required"] if r in declared]
    rest = {k: v for k, v in node.items() if k != "required"}
    return {**rest, "required": kept} if kept else rest


def _vertex_any_of(node: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": node["anyOf"]} if "anyOf" in node and len(node) > 1 else node


_STEPS: tuple[Callable[[dict[str, Any]], dict[str, Any]], ...] = (
    _type_list, _null_union, _const, _enum, _format, _properties, _required)
