"""Root-composition helpers both passes share: find, merge, strip.

Each takes its keyword order as an argument where the order matters, so the passes state the
order on a line of their own (and a declared mutant can change it there).
"""

from __future__ import annotations

import copy
from typing import Any

from wire_harness_subjects.anthropic_messages.registry import swap_remove

__all__ = [
    "ensure_properties_object",
    "first_composition",
    "merge_branch_properties",
    "strip_keywords",
]


def first_composition(schema: dict[str, Any], order: tuple[str, ...]) -> str | None:
    """The first keyword of ``order`` that ``schema`` carries, or None."""
    for keyword in order:
        if keyword in schema:
            return keyword
    return None


def ensure_properties_object(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema["properties"]``, replaced by ``{}`` first when it is missing or not an object."""
    if not isinstance(schema.get("properties"), dict):
        schema["properties"] = {}
    properties: dict[str, Any] = schema["properties"]
    return properties


def merge_branch_properties(schema: dict[str, Any], keywords: tuple[str, ...]) -> None:
    """Copy the properties the root's composition branches declare into the root's own.

    Among branches the first to declare a name wins; a property the root already declares
    wins over every branch (the root is what the author wrote at the top).
    """
    merged: dict[str, Any] = {}
    for keyword in keywords:
        branches = schema.get(keyword)
        if not isinstance(branches, list):
            continue
        for branch in branches:
            declared = branch.get("properties") if isinstance(branch, dict) else None
            if not isinstance(declared, dict):
                continue
            for name, subschema in declared.items():
                merged.setdefault(name, copy.deepcopy(subschema))
    if not merged:
        return
    properties = ensure_properties_object(schema)
    for name, subschema in merged.items():
        properties.setdefault(name, subschema)


def strip_keywords(schema: dict[str, Any], keywords: tuple[str, ...]) -> None:
    """Remove ``keywords`` from the root only, one after the other in that order, each as the
    Rust ``Map::remove`` does (``registry.swap_remove``); nested schemas keep theirs."""
    for keyword in keywords:
        swap_remove(schema, keyword)
