"""The old flatten and the new narrowing pass of anthropic_messages, on exact fixtures."""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.anthropic_messages.flatten import flatten
from wire_harness_subjects.anthropic_messages.narrow import narrow
from wire_harness_subjects.anthropic_messages.notes import generic_note

from harness._common.canonical import canonical_bytes

ONE_OF_NOTE = "Exactly one of these parameter groups must be provided: `a` | `b`."


def required_only_union(keyword: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": {}, "b": {}},
            keyword: [{"required": ["a"]}, {"required": ["b"]}]}


def test_both_passes_strip_a_root_oneof_of_required_only_branches_with_the_same_note() -> None:
    old = flatten(required_only_union("oneOf"))
    new = narrow(required_only_union("oneOf"))
    assert canonical_bytes(old) == canonical_bytes(new)
    assert new == ({"type": "object", "properties": {"a": {}, "b": {}}}, ONE_OF_NOTE)


def test_the_note_prefix_follows_the_keyword() -> None:
    assert narrow(required_only_union("anyOf"))[1] == ONE_OF_NOTE.replace("Exactly one", "At least one")
    assert narrow(required_only_union("allOf"))[1] == ONE_OF_NOTE.replace("Exactly one", "All")


def test_narrow_merges_branch_properties_after_the_roots_own_and_the_root_wins() -> None:
    schema = {"type": "object", "properties": {"mode": {"const": "root"}},
              "oneOf": [{"properties": {"mode": {"const": "branch"}, "x": {}}},
                        {"properties": {"x": {"const": "second"}, "y": {}}}]}
    out, note = narrow(schema)
    assert canonical_bytes(out) == canonical_bytes(
        {"type": "object", "properties": {"mode": {"const": "root"}, "x": {}, "y": {}}})
    assert note is None  # properties were merged: no generic note, and no required groups


def test_narrow_keeps_root_enum_not_and_dependent_keywords_that_flatten_strips() -> None:
    def schema() -> dict[str, Any]:
        return {"type": "object", "properties": {"a": {}, "b": {}},
                "enum": [{"a": 1}], "not": {"properties": {"a": {}}, "required": ["a"]},
                "dependentRequired": {"a": ["b"]},
                "dependentSchemas": {"b": {"properties": {"a": {}}, "required": ["a"]}}}
    assert narrow(schema()) == (schema(), None)
    flat, note = flatten(schema())
    assert flat == {"type": "object", "properties": {"a": {}, "b": {}}}
    assert note is not None and "required only when others are given" in note


def test_flatten_joins_the_constraint_and_dependent_notes_with_a_space() -> None:
    schema = required_only_union("oneOf") | {"dependentRequired": {"a": ["b"]}}
    _, note = flatten(schema)
    assert note is not None and note.startswith(ONE_OF_NOTE + " Some parameters")


def test_narrow_restores_the_object_type_for_a_property_less_composition_with_a_generic_note() -> None:
    schema = {"$defs": {"A": {"type": "object"}}, "allOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
              "additionalProperties": False}
    out, note = narrow(schema)
    assert canonical_bytes(out) == canonical_bytes(
        {"$defs": {"A": {"type": "object", "properties": {}}}, "additionalProperties": False, "type": "object"})
    assert note == generic_note("allOf")


def test_flatten_forces_an_empty_object_where_narrow_only_restores_the_type() -> None:
    old, old_note = flatten({"anyOf": [True, False]})
    new, new_note = narrow({"anyOf": [True, False]})
    assert (old, old_note) == ({"type": "object", "properties": {}}, None)
    assert (new, new_note) == ({"type": "object"}, generic_note("anyOf"))


def test_the_generic_note_names_the_first_stripped_keyword_in_oneof_anyof_allof_order() -> None:
    schema = {"allOf": [{"$ref": "#/a"}, {"$ref": "#/b"}], "oneOf": [{"$ref": "#/c"}, {"$ref": "#/d"}]}
    assert narrow(schema)[1] == generic_note("oneOf")


def test_present_but_empty_properties_do_not_suppress_the_generic_note() -> None:
    schema = {"type": "object", "properties": {}, "anyOf": [{"$ref": "#/a"}, {"$ref": "#/b"}]}
    assert narrow(schema) == ({"type": "object", "properties": {}}, generic_note("anyOf"))


def test_the_constraint_note_wins_over_the_generic_note() -> None:
    schema = {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert narrow(schema) == ({"type": "object"}, ONE_OF_NOTE)


def test_a_dual_composition_notes_only_the_oneof_groups() -> None:
    schema = required_only_union("oneOf") | {"anyOf": [{"required": ["c"]}, {"required": ["d"]}]}
    assert narrow(schema)[1] == ONE_OF_NOTE


def test_narrow_strips_only_at_the_root() -> None:
    nested = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    schema = {"type": "object", "properties": {"x": nested}, "anyOf": [{"required": ["x"]}, {}]}
    out, _ = narrow(schema)
    assert out == {"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}


def test_a_typeless_root_without_a_composition_is_not_given_a_type() -> None:
    assert narrow({"properties": {"a": {}}}) == ({"properties": {"a": {}}}, None)
    assert flatten({"properties": {"a": {}}})[0] == {"properties": {"a": {}}, "type": "object"}


def test_the_post_merge_prune_drops_a_name_spread_by_a_collapsed_single_branch() -> None:
    schema = {"type": "object", "properties": {"a": {}}, "oneOf": [{"required": ["a", "ghost"]}]}
    assert narrow(schema) == ({"type": "object", "properties": {"a": {}}, "required": ["a"]}, None)


def test_a_collapsed_single_required_only_branch_leaves_an_empty_schema() -> None:
    # Seed 001 round-5 MINOR-3, an accepted gap: the collapse happens before the strip check.
    assert narrow({"oneOf": [{"required": ["q"]}]}) == ({}, None)


def test_non_object_roots_become_an_empty_object_but_a_declared_string_schema_ships() -> None:
    assert narrow([{"type": "string"}]) == ({}, None)
    assert narrow("object") == ({}, None)
    assert narrow({"type": "string", "enum": ["a"]}) == ({"type": "string", "enum": ["a"]}, None)
    assert flatten([{"type": "string"}]) == ({"type": "object", "properties": {}}, None)
    assert flatten({"type": "string", "enum": ["a"]}) == ({"type": "object", "properties": {}}, None)


def test_narrow_keeps_the_registry_normalization_of_a_root_nullable_union() -> None:
    schema = {"anyOf": [{"type": "object", "properties": {"q": {"type": "object"}}, "required": ["q", "z"]},
                        {"type": "null"}]}
    assert canonical_bytes(narrow(schema)[0]) == canonical_bytes(
        {"type": "object", "properties": {"q": {"type": "object", "properties": {}}},
         "required": ["q"], "nullable": True})


def test_the_note_reads_the_schema_as_declared_before_normalization() -> None:
    # Branch required names go during normalization (the branches declare no properties),
    # but the note was taken before: seed 001 keeps this order (round-4 MINOR-4).
    assert narrow(required_only_union("oneOf"))[1] == ONE_OF_NOTE
