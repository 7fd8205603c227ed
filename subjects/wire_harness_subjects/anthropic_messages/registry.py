"""The shared registry normalization both pipelines run before their own pass.

Ported from the tool registry's ``sanitize`` that seed 001 names: four local rewrites on every
node, then the same on every child (object values and array items alike, as the original does):

- a nullable union ``anyOf``/``oneOf`` of one typed schema X and ``{"type": "null"}`` becomes X
  plus ``nullable: true`` (an untyped X, such as a ``$ref``, keeps its union: collapsing it would
  leave an annotation-only schema);
- a bare ``{"type": "object"}`` with neither ``properties`` nor ``additionalProperties`` gets
  ``properties: {}``;
- ``required`` names absent from ``properties`` are pruned (the key goes when none is left);
- a single-element ``oneOf``/``allOf``/``anyOf`` collapses into its parent, whose own keys win.

The last rewrite runs after the prune at the same node, so a collapsed branch can spread a
``required`` naming a property that does not exist; the narrowing pass prunes again for that.
Everything here mutates in place and returns the (possibly same) value.

Key order is part of the bytes a pipeline ships, so every key removal goes through
``swap_remove``: the Rust code removes with serde_json's ``Map::remove``, which under the
``preserve_order`` feature (an IndexMap) is ``swap_remove``, moving the last key into the
removed key's place (serde_json 1.0.87 as Debian ships it; ``examples/rust`` builds on it).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "collapse_nullable_union",
    "collapse_single_element_union",
    "inject_bare_object_properties",
    "normalize",
    "prune_dangling_required",
    "swap_remove",
]


def swap_remove(node: dict[str, Any], key: str) -> Any:
    """Remove ``key`` as serde_json's ``Map::remove`` does with ``preserve_order``: the last
    key takes the removed key's place, the others keep theirs. Returns the value, or None."""
    if key not in node:
        return None
    keys = list(node)
    at = keys.index(key)
    value = node.pop(key)
    if at < len(keys) - 1:
        items = list(node.items())
        node.clear()
        node.update([*items[:at], items[-1], *items[at:-1]])
    return value


def normalize(schema: Any) -> Any:
    """Apply the four rewrites to ``schema`` and, recursively, to everything under it."""
    if isinstance(schema, dict):
        collapse_nullable_union(schema)
        inject_bare_object_properties(schema)
        prune_dangling_required(schema)
        collapse_single_element_union(schema)
        for value in schema.values():
            normalize(value)
    elif isinstance(schema, list):
        for item in schema:
            normalize(item)
    return schema


def _is_null_type(branch: Any) -> bool:
    return isinstance(branch, dict) and branch.get("type") == "null"


def _has_concrete_type(branch: Any) -> bool:
    """A single string ``type`` (never "null": the null branch was set apart before)."""
    return isinstance(branch, dict) and isinstance(branch.get("type"), str)


def collapse_nullable_union(node: dict[str, Any]) -> None:
    """``{"anyOf": [X, {"type": "null"}]}`` -> X's keys plus ``nullable: true``."""
    for keyword in ("anyOf", "oneOf"):
        branches = node.get(keyword)
        if not isinstance(branches, list):
            continue
        nulls = [b for b in branches if _is_null_type(b)]
        others = [b for b in branches if not _is_null_type(b)]
        if len(nulls) != 1 or len(others) != 1 or not _has_concrete_type(others[0]):
            continue
        swap_remove(node, keyword)
        for key, value in others[0].items():
            node[key] = value  # the typed branch's keys overwrite the parent's, as upstream does
        node["nullable"] = True


def inject_bare_object_properties(node: dict[str, Any]) -> None:
    """A bare object schema gets ``properties: {}``."""
    if node.get("type") != "object":
        return
    if "properties" in node or "additionalProperties" in node:
        return
    node["properties"] = {}


def prune_dangling_required(node: Any) -> None:
    """Drop ``required`` names that ``properties`` does not declare; drop an emptied list."""
    if not isinstance(node, dict):
        return
    required = node.get("required")
    if not isinstance(required, list):
        return
    properties = node.get("properties")
    known = properties if isinstance(properties, dict) else {}
    kept = [name for name in required if isinstance(name, str) and name in known]
    if kept:
        node["required"] = kept
    else:
        swap_remove(node, "required")


def collapse_single_element_union(node: dict[str, Any]) -> None:
    """``{"oneOf": [X]}`` -> the parent plus X's keys the parent lacks (same for allOf, anyOf)."""
    for keyword in ("oneOf", "allOf", "anyOf"):
        branches = node.get(keyword)
        if not isinstance(branches, list) or len(branches) != 1:
            continue
        swap_remove(node, keyword)
        only = branches[0]
        if isinstance(only, dict):
            for key, value in only.items():
                node.setdefault(key, value)
