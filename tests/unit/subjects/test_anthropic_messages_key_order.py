"""Key order as seed 001's Rust ships it: serde_json's ``Map::remove`` under ``preserve_order``
is a swap_remove (the last key takes the removed key's place), in the shared normalization and
in both passes. Key order is part of the bytes on the wire, so the subject models it."""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.anthropic_messages.flatten import flatten
from wire_harness_subjects.anthropic_messages.narrow import narrow
from wire_harness_subjects.anthropic_messages.registry import normalize, swap_remove


def test_swap_remove_moves_the_last_key_into_the_removed_place() -> None:
    node = {"a": 1, "b": 2, "c": 3, "d": 4}
    assert swap_remove(node, "b") == 2
    assert list(node.items()) == [("a", 1), ("d", 4), ("c", 3)]
    last = {"a": 1, "b": 2}
    swap_remove(last, "b")
    assert list(last) == ["a"]
    assert swap_remove(last, "missing") is None and list(last) == ["a"]


def untyped_root_anyof() -> dict[str, Any]:
    """The MCP shape of cases/anthropic_messages/shapes.cases.yaml (mcp-untyped-root-anyof)."""
    return {"$schema": "http://json-schema.org/draft-07/schema#",
            "anyOf": [{"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
                      {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}]}


def test_the_old_flatten_puts_type_where_anyof_was_and_the_new_pass_appends_it() -> None:
    old, _ = flatten(untyped_root_anyof())
    new, _ = narrow(untyped_root_anyof())
    assert old == new  # the same value...
    assert list(old) == ["$schema", "type", "properties"]  # type inserted, then anyOf swap-removed
    assert list(new) == ["$schema", "properties", "type"]  # anyOf swap-removed, then type restored


def test_a_stripped_allof_lets_the_merged_properties_move_ahead_of_enum() -> None:
    schema: dict[str, Any] = {"type": "object", "allOf": [{"properties": {"speed": {}}}, {"properties": {"level": {}}}],
                              "enum": [{"speed": 1}], "title": "t"}
    new, _ = narrow(schema)
    assert list(new) == ["type", "properties", "enum", "title"]


def test_the_nullable_union_collapse_swaps_the_last_key_into_the_unions_place() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "t", "description": "d"}
    assert list(normalize(schema)) == ["description", "title", "type", "nullable"]


def test_dropped_dependent_keywords_swap_too_even_a_null_valued_one() -> None:
    schema: dict[str, Any] = {"type": "object", "dependentRequired": None, "properties": {"a": {}}, "title": "t"}
    out, note = flatten(schema)
    assert list(out) == ["type", "title", "properties"]
    assert note is not None
