"""The old pass: the Responses-style root flatten the previous release line ran on every lane.

Seed 001's ``sanitize_for_responses``: whatever the schema, the root comes out a plain object.
It notes the root's required groups (computed before anything changes), strips
``dependentRequired`` / ``dependentSchemas`` everywhere with a note of their own, runs the
registry normalization, replaces a non-object root with ``{}``, merges branch properties into
the root (root wins), forces ``type: object``, strips root ``oneOf``/``anyOf``/``allOf``/``enum``/
``not``, makes ``properties`` an object and prunes dangling ``required``.
"""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.anthropic_messages.compose import (
    ensure_properties_object,
    merge_branch_properties,
    strip_keywords,
)
from wire_harness_subjects.anthropic_messages.notes import constraint_note
from wire_harness_subjects.anthropic_messages.registry import normalize, prune_dangling_required, swap_remove

__all__ = ["combine_notes", "dependent_note", "flatten", "strip_dependent_keywords"]


def dependent_note() -> str:
    """The note for dropped ``dependentRequired`` / ``dependentSchemas`` (this pass only)."""
    return ("Some parameters are required only when others are given, which this schema "
            "cannot express; follow any such rule the tool description states.")


def combine_notes(first: str | None, second: str | None) -> str | None:
    """Both notes joined by a space, either alone, or None."""
    if first and second:
        return f"{first} {second}"
    return first or second


def strip_dependent_keywords(value: Any) -> bool:
    """Remove ``dependentRequired`` / ``dependentSchemas`` at every depth; True if any went."""
    dropped = False
    if isinstance(value, dict):
        for keyword in ("dependentRequired", "dependentSchemas"):
            if keyword in value:  # present, whatever its value (a JSON null too), as in Rust
                swap_remove(value, keyword)
                dropped = True
        for child in value.values():
            dropped = strip_dependent_keywords(child) or dropped
    elif isinstance(value, list):
        for item in value:
            dropped = strip_dependent_keywords(item) or dropped
    return dropped


def flatten(schema: Any) -> tuple[dict[str, Any], str | None]:
    """Flatten ``schema`` (mutated in place) to a plain object root; returns it and its note."""
    constraint = constraint_note(schema)
    dependent = dependent_note() if strip_dependent_keywords(schema) else None
    schema = normalize(schema)
    if not isinstance(schema, dict):
        schema = {}
    merge_branch_properties(schema, ("oneOf", "anyOf", "allOf"))
    schema["type"] = "object"
    strip_keywords(schema, ("oneOf", "anyOf", "allOf", "enum", "not"))
    ensure_properties_object(schema)
    prune_dangling_required(schema)
    return schema, combine_notes(constraint, dependent)
