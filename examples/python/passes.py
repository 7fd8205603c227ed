"""Seed 001's change, in Python: the Anthropic Messages ``tools[].input_schema`` pass.

    narrow       the PR's revision, on the first-party lane only: strip exactly the recorded root
                 keywords (oneOf/anyOf/allOf), merge their branch properties into the root, keep
                 everything else, restore the object type a stripped composition leaves missing,
                 and tell the dropped constraint in the description
    first_party  the gate: provider identity anthropic, or a base URL whose host is api.anthropic.com

One decision a statement, so the ledger's find/replace mutants are small textual changes.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urlsplit

__all__ = ["first_party", "narrow", "with_note"]

COMPOSITIONS = ("oneOf", "anyOf", "allOf")
FIRST_PARTY_HOST = "api.anthropic.com"
PREFIXES = {"oneOf": "Exactly one", "anyOf": "At least one", "allOf": "All"}
SHAPES = {"oneOf": "exactly one of several alternative shapes", "anyOf": "at least one of several alternative shapes"}


def _group(branch: Any) -> str | None:
    """"`a` + `b`" for one branch's required names (sorted, unique), or None."""
    if not isinstance(branch, dict) or not isinstance(branch.get("required"), list):
        return None
    names = sorted({n for n in branch["required"] if isinstance(n, str)})
    return " + ".join(f"`{n}`" for n in names) or None


def constraint_note(schema: dict[str, Any]) -> str | None:
    """The dropped exactly-one / at-least-one / all constraint, in words, or None."""
    for keyword in COMPOSITIONS:
        if not isinstance(schema.get(keyword), list):
            continue
        groups = sorted({g for g in map(_group, schema[keyword]) if g})
        if len(groups) >= 2:
            return f"{PREFIXES[keyword]} of these parameter groups must be provided: {' | '.join(groups)}."
    return None


def generic_note(keyword: str) -> str:
    shape = SHAPES.get(keyword, "further combined constraints")
    verb = "match" if keyword in SHAPES else "also satisfy"
    return f"The arguments must {verb} {shape}, which this schema does not spell out."


def with_note(description: str, note: str | None) -> str:
    if not note:
        return description
    return f"{description}\n\n{note}" if description else note


def merge_branch_properties(schema: dict[str, Any]) -> None:
    """Branch properties copied into the root: the first branch to name one wins, the root over all."""
    merged: dict[str, Any] = {}
    for keyword in COMPOSITIONS:
        for branch in schema.get(keyword) or []:
            if isinstance(branch, dict) and isinstance(branch.get("properties"), dict):
                for name, sub in branch["properties"].items():
                    merged.setdefault(name, copy.deepcopy(sub))
    if merged:
        root = schema.setdefault("properties", {})
        for name, sub in merged.items():
            root.setdefault(name, sub)


def narrow(declared: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The schema the first-party validator accepts, and the note for what it lost."""
    schema = copy.deepcopy(declared)
    note = constraint_note(schema)
    stripped = next((k for k in COMPOSITIONS if k in schema), None)
    merge_branch_properties(schema)
    for keyword in COMPOSITIONS:
        schema.pop(keyword, None)
    merged_properties = bool(schema.get("properties"))
    if stripped is not None and "type" not in schema:
        schema["type"] = "object"
    if note is None and stripped is not None and not merged_properties:
        note = generic_note(stripped)
    return schema, note


def first_party_endpoint(base_url: Any) -> bool:
    if not isinstance(base_url, str):
        return False
    try:
        host = urlsplit(base_url.strip()).hostname or ""
    except ValueError:
        return False
    return host.lower().rstrip(".") == FIRST_PARTY_HOST


def first_party(lane: dict[str, Any]) -> bool:
    by_identity = lane.get("provider") == "anthropic"
    by_endpoint = first_party_endpoint(lane.get("base_url"))
    return by_identity or by_endpoint
