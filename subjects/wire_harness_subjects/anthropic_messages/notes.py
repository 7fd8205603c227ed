"""Description notes: the constraint a pass dropped, told to the model in words.

A note is appended to the tool's description after a blank line; an empty description is
replaced by the note alone.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "constraint_note",
    "generic_note",
    "group_label",
    "with_note",
]


def group_label(branch: Any) -> str | None:
    """One branch's ``required`` names as ```a` + `b``` (sorted, unique), or None."""
    required = branch.get("required") if isinstance(branch, dict) else None
    if not isinstance(required, list):
        return None
    names = sorted({f"`{name}`" for name in required if isinstance(name, str)})
    return " + ".join(names) or None


def constraint_note(schema: Any) -> str | None:
    """The exactly-one / at-least-one / all constraint of the root's required groups.

    Only the first keyword (oneOf, then anyOf, then allOf) with two or more distinct groups is
    noted; a single group is no choice and says nothing.
    """
    if not isinstance(schema, dict):
        return None
    for keyword, prefix in (("oneOf", "Exactly one"), ("anyOf", "At least one"), ("allOf", "All")):
        branches = schema.get(keyword)
        if not isinstance(branches, list):
            continue
        groups = sorted({label for label in map(group_label, branches) if label})
        if len(groups) >= 2:
            return f"{prefix} of these parameter groups must be provided: {' | '.join(groups)}."
    return None


def generic_note(keyword: str) -> str:
    """The note for a stripped composition whose branches gave the root no properties."""
    texts = {
        "oneOf": "The arguments must match exactly one of several alternative shapes, "
        "which this schema does not spell out.",
        "anyOf": "The arguments must match at least one of several alternative shapes, "
        "which this schema does not spell out.",
        "allOf": "The arguments must also satisfy further combined constraints, "
        "which this schema does not spell out.",
    }
    return texts[keyword]


def with_note(description: str, note: str | None) -> str:
    """The description with ``note`` appended after a blank line (the note alone if empty)."""
    if not note:
        return description
    if not description:
        return note
    return f"{description}\n\n{note}"
