"""The shared registry normalization both anthropic_messages pipelines run first."""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.anthropic_messages.registry import normalize

from harness._common.canonical import canonical_bytes


def normalized(schema: Any) -> bytes:
    return canonical_bytes(normalize(schema))


def test_a_nullable_union_collapses_to_its_typed_branch_plus_nullable() -> None:
    schema = {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}], "title": "t"}
    assert normalized(schema) == canonical_bytes(
        {"title": "t", "type": "string", "maxLength": 3, "nullable": True})


def test_a_nullable_oneof_with_null_first_collapses_too() -> None:
    schema = {"oneOf": [{"type": "null"}, {"type": "integer", "minimum": 0}]}
    assert normalize(schema) == {"type": "integer", "minimum": 0, "nullable": True}


def test_a_nullable_union_around_an_untyped_branch_keeps_its_union() -> None:
    schema = {"anyOf": [{"$ref": "#/$defs/x"}, {"type": "null"}]}
    assert normalize(schema) == {"anyOf": [{"$ref": "#/$defs/x"}, {"type": "null"}]}


def test_a_union_of_two_non_null_branches_is_left_alone() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert normalize(schema) == {"anyOf": [{"type": "string"}, {"type": "integer"}]}


def test_a_bare_object_gets_empty_properties_but_not_one_with_additional_properties() -> None:
    assert normalize({"type": "object"}) == {"type": "object", "properties": {}}
    closed = {"type": "object", "additionalProperties": False}
    assert normalize(closed) == {"type": "object", "additionalProperties": False}


def test_dangling_required_names_are_pruned_and_an_emptied_list_goes() -> None:
    schema = {"type": "object", "properties": {"a": {}}, "required": ["a", "ghost"]}
    assert normalize(schema)["required"] == ["a"]
    assert "required" not in normalize({"type": "object", "properties": {}, "required": ["x"]})


def test_a_required_only_branch_loses_its_required_names() -> None:
    schema = {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert normalize(schema) == {"oneOf": [{}, {}]}


def test_a_single_element_union_collapses_and_the_parent_keeps_its_own_keys() -> None:
    schema = {"type": "object", "properties": {"a": {}}, "oneOf": [{"type": "string", "required": ["a", "b"]}]}
    assert canonical_bytes(normalize(schema)) == canonical_bytes(
        {"type": "object", "properties": {"a": {}}, "required": ["a", "b"]})


def test_normalization_reaches_every_depth() -> None:
    schema = {
        "type": "object",
        "properties": {"opt": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "$defs": {"node": {"type": "object"}},
        "items": [{"type": "object"}],
    }
    assert normalize(schema) == {
        "type": "object",
        "properties": {"opt": {"type": "string", "nullable": True}},
        "$defs": {"node": {"type": "object", "properties": {}}},
        "items": [{"type": "object", "properties": {}}],
    }


def test_a_non_object_value_passes_through() -> None:
    assert normalize([1, "x"]) == [1, "x"]
    assert normalize("object") == "object"
