"""Strict widening: every property required, additionalProperties false, optional -> nullable."""

from __future__ import annotations

import copy
from typing import Any

from wire_harness_subjects.openai_strict_resume.strict import allows_null, make_strict, with_null

BOOK_FLIGHT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "destination": {"type": "string"},
        "date": {"type": "string"},
        "note": {"type": ["string", "null"]},
    },
    "required": ["destination", "note"],
}


def test_book_flight_widens_the_optional_date_and_records_it() -> None:
    strict = make_strict(BOOK_FLIGHT)
    assert strict.schema == {
        "type": "object",
        "properties": {
            "destination": {"type": "string"},
            "date": {"type": ["string", "null"]},
            "note": {"type": ["string", "null"]},
        },
        "required": ["destination", "date", "note"],
        "additionalProperties": False,
    }
    assert strict.widened == ("date",)


def test_the_authors_schema_is_not_modified() -> None:
    before = copy.deepcopy(BOOK_FLIGHT)
    make_strict(BOOK_FLIGHT)
    assert before == BOOK_FLIGHT


def test_an_optional_field_that_already_accepts_null_is_neither_widened_nor_recorded() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": {"type": "string", "nullable": True},
            "d": {"type": "null"},
        },
    }
    strict = make_strict(schema)
    assert strict.widened == ()
    assert strict.schema["properties"] == schema["properties"]
    assert strict.schema["required"] == ["a", "b", "c", "d"]


def test_a_required_field_is_never_widened() -> None:
    strict = make_strict({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]})
    assert strict.schema["properties"]["x"] == {"type": "integer"}
    assert strict.widened == ()


def test_optional_fields_in_array_items_nested_objects_and_optional_objects_are_recorded_by_path() -> None:
    schema = {
        "type": "object",
        "properties": {
            "passengers": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "seat": {"type": "string"}},
                    "required": ["name"],
                },
            },
            "contact": {"type": "object", "properties": {"phone": {"type": "string"}}},
            "loyalty": {"type": "object", "properties": {"tier": {"type": "string"}}},
        },
        "required": ["passengers", "contact"],
    }
    strict = make_strict(schema)
    assert strict.widened == ("passengers[*].seat", "contact.phone", "loyalty", "loyalty.tier")
    items = strict.schema["properties"]["passengers"]["items"]
    assert items["required"] == ["name", "seat"]
    assert items["additionalProperties"] is False
    loyalty = strict.schema["properties"]["loyalty"]
    assert loyalty["type"] == ["object", "null"]
    assert loyalty["additionalProperties"] is False
    assert loyalty["properties"]["tier"] == {"type": ["string", "null"]}


def test_objects_inside_anyof_branches_become_strict_too() -> None:
    schema = {
        "type": "object",
        "properties": {
            "target": {
                "anyOf": [
                    {"type": "object", "properties": {"id": {"type": "string"}, "tag": {"type": "string"}},
                     "required": ["id"]},
                    {"type": "string"},
                ]
            }
        },
        "required": ["target"],
    }
    strict = make_strict(schema)
    branch = strict.schema["properties"]["target"]["anyOf"][0]
    assert branch["required"] == ["id", "tag"]
    assert branch["additionalProperties"] is False
    assert strict.widened == ("target.tag",)


def test_a_typed_definition_widens_optional_keys_only() -> None:
    # the shape Zod 4 emits: .optional() leaves the key out of required, .nullable() is anyOf null
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "comment": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "nickname": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["city", "comment"],
        "additionalProperties": False,
    }
    strict = make_strict(schema)
    assert strict.widened == ("units",)
    assert strict.schema["properties"]["units"] == {
        "type": ["string", "null"], "enum": ["celsius", "fahrenheit", None]}
    assert strict.schema["properties"]["nickname"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert strict.schema["$schema"] == schema["$schema"]


def test_widening_an_already_strict_schema_changes_nothing() -> None:
    once = make_strict(BOOK_FLIGHT)
    twice = make_strict(once.schema)
    assert twice.schema == once.schema
    assert twice.widened == ()


def test_with_null_wraps_what_a_type_list_cannot_express() -> None:
    assert with_null({"const": "x", "type": "string"}) == {
        "anyOf": [{"const": "x", "type": "string"}, {"type": "null"}]}
    assert with_null({"$ref": "#/$defs/A"}) == {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}
    assert with_null({"type": ["string", "integer"]}) == {"type": ["string", "integer", "null"]}


def test_allows_null_reads_every_spelling_of_nullable() -> None:
    assert allows_null({"type": "null"})
    assert allows_null({"oneOf": [{"type": "integer"}, {"type": ["null"]}]})
    assert allows_null({})  # unconstrained: null passes the author's own check
    assert allows_null({"description": "anything"})
    assert allows_null(True)
    assert not allows_null(False)
    assert not allows_null({"type": "string"})
    assert not allows_null({"enum": ["a", "b"]})
    assert not allows_null({"anyOf": [{"type": "string"}, {"type": "integer"}]})
