"""Strict widening: the tool schema an OpenAI strict request carries, and which fields it widened.

OpenAI strict mode (Chat ``tools[].function.strict``, Responses ``tools[].strict``) wants every
property listed in ``required`` and ``additionalProperties: false`` on every object. A property
the author left optional therefore has to accept ``null`` instead: the model sends ``null``
where it would have left the field out. ``make_strict`` does that rewrite and records the path
of every property it widened, because the way back (``nulls.remove_strict_nulls``) must remove
exactly those nulls and keep the ones the author allowed (a property that already accepted null
is not widened and not recorded).

Covered: ``properties``, array ``items``, and ``anyOf``/``oneOf``/``allOf`` branches, at any
depth. Not covered: ``$ref``/``$defs`` (a referenced definition has no single path), tuple
``prefixItems``. Neither occurs in this subject's cases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wire_harness_subjects.openai_strict_resume.paths import items_path, key_path

__all__ = ["Strict", "allows_null", "is_object", "make_strict", "with_null"]

_BRANCHES = ("anyOf", "oneOf", "allOf")
_CONSTRAINTS = ("type", "enum", "const", "$ref", "not", *_BRANCHES)


@dataclass(frozen=True)
class Strict:
    """A strict schema and the paths (``date``, ``passengers[*].seat``) whose type it widened."""

    schema: Any
    widened: tuple[str, ...]


def make_strict(schema: Any) -> Strict:
    """Rewrite ``schema`` for strict mode; the input is not modified."""
    widened: list[str] = []
    return Strict(_strict_node(schema, "", widened), tuple(widened))


def _strict_node(node: Any, at: str, widened: list[str]) -> Any:
    if not isinstance(node, dict):
        return node
    out = dict(node)
    if is_object(out):
        _strict_object(out, at, widened)
    if isinstance(out.get("items"), dict):
        out["items"] = _strict_node(out["items"], items_path(at), widened)
    for key in _BRANCHES:
        if isinstance(out.get(key), list):
            # a branch describes the same place in the arguments, so it keeps the path
            out[key] = [_strict_node(branch, at, widened) for branch in out[key]]
    return out


def _strict_object(out: dict[str, Any], at: str, widened: list[str]) -> None:
    """Every property required; the optional ones that refused null now accept it."""
    required = set(out.get("required") or ())
    properties: dict[str, Any] = {}
    for name, prop in (out.get("properties") or {}).items():
        path = key_path(at, name)
        widen = name not in required and not allows_null(prop)
        if widen:
            widened.append(path)
        strict = _strict_node(prop, path, widened)
        properties[name] = with_null(strict) if widen else strict
    if "properties" in out:
        out["properties"] = properties
    out["required"] = list(properties)
    out["additionalProperties"] = False


def is_object(node: dict[str, Any]) -> bool:
    """A node that describes an object (by its type, or by having properties)."""
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node


def allows_null(node: Any) -> bool:
    """Whether ``node`` already accepts null (so strict mode needs no widening there)."""
    if node is True:
        return True
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if node.get("nullable") is True:  # OpenAPI 3.0 spelling
        return True
    if not any(key in node for key in _CONSTRAINTS):
        return True  # an unconstrained schema ({} or only annotations) accepts anything
    branches = [*(node.get("anyOf") or ()), *(node.get("oneOf") or ())]
    return any(allows_null(branch) for branch in branches)


def with_null(node: Any) -> Any:
    """``node`` widened to also accept null, in the form OpenAI strict mode documents."""
    if not isinstance(node, dict) or "type" not in node or "const" in node:
        return {"anyOf": [node, {"type": "null"}]}
    out = dict(node)
    kind = out["type"]
    out["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
    if isinstance(out.get("enum"), list):
        out["enum"] = [*out["enum"], None]  # an enum that lacks null would still refuse it
    return out
