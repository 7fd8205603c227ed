"""The new pass on the first-party lane: narrow exactly the recorded root keywords.

The recorded 400 names root ``oneOf``/``anyOf``/``allOf`` and nothing else, so this pass strips
those three at the root only, merges their branch properties (root wins), and notes the dropped
constraint; root ``enum``/``not``, ``dependentRequired``/``dependentSchemas`` and a declared
non-object root ship as declared. Each decision below is one line, so a reviewer's mutant
(drop the merge, reorder the search, gate the type floor...) is a one-line change.
"""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.anthropic_messages.compose import (
    first_composition,
    merge_branch_properties,
    strip_keywords,
)
from wire_harness_subjects.anthropic_messages.notes import constraint_note, generic_note
from wire_harness_subjects.anthropic_messages.registry import normalize, prune_dangling_required

__all__ = ["narrow"]


def narrow(schema: Any) -> tuple[Any, str | None]:
    """Narrow ``schema`` (mutated in place); returns it and the note for the description."""
    # The note reads the schema as declared, before normalization rewrites its branches.
    constraint = constraint_note(schema)
    schema = normalize(schema)
    # input_schema must be a JSON object; anything else (malformed MCP output) cannot ship.
    if not isinstance(schema, dict):
        schema = {}
    stripped = first_composition(schema, ("oneOf", "anyOf", "allOf"))
    merge_branch_properties(schema, ("oneOf", "anyOf", "allOf"))
    strip_keywords(schema, ("oneOf", "anyOf", "allOf"))
    properties = schema.get("properties")
    merged_properties = isinstance(properties, dict) and len(properties) > 0
    # The object floor: a stripped composition never leaves the root without a type.
    if stripped is not None and "type" not in schema:
        schema["type"] = "object"
    # A single-branch union collapsed by normalize() can spread a dangling required name.
    prune_dangling_required(schema)
    note = constraint
    # Nothing to name and nothing merged: say which kind of constraint went, in general words.
    if note is None and stripped is not None and not merged_properties:
        note = generic_note(stripped)
    return schema, note
