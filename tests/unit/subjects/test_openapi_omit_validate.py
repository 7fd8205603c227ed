"""validate: what each revision refuses and lets pass (seed 000's Testing list, validate part)."""

from __future__ import annotations

from typing import Any

import pytest
from wire_harness_subjects.openapi_omit.entries import Entry, OmitRefused, parse_omit
from wire_harness_subjects.openapi_omit.old import FirstWalker
from wire_harness_subjects.openapi_omit.pipelines import validate
from wire_harness_subjects.openapi_omit.walk import Walker

STR = {"type": "string"}
ROOT = {"components": {"schemas": {
    "Id": {"type": "integer"},
    "Base": {"type": "object", "properties": {"id": {"$ref": "#/components/schemas/Id"}}},
}}}


def _e(path: str, where_empty: str | None = None) -> Entry:
    return Entry(tuple(path.split(".")), where_empty)


def _out(schema: Any, entry: Entry, walker: Walker | None = None) -> str | None:
    return (walker or Walker(ROOT)).rules_out(schema, entry)


def _tools(**responses: Any) -> list[dict[str, Any]]:
    return [{"name": "op", "description": "", "input_schema": {},
             "openapi": {"operation_id": "op", "method": "get", "path": "/", "responses": responses}}]


def test_an_undeclared_name_passes() -> None:
    assert _out({"type": "object", "properties": {"a": STR}}, _e("b.c")) is None


def test_a_path_through_a_scalar_reached_through_ref_is_refused() -> None:
    schema = {"$ref": "#/components/schemas/Base"}
    assert _out(schema, _e("id.x")) == "id is declared as an integer"


def test_a_name_a_closed_object_does_not_declare_is_refused() -> None:
    schema = {"type": "object", "additionalProperties": False, "properties": {"a": STR}}
    assert "allows no property 'b'" in str(_out(schema, _e("b")))
    assert _out(schema, _e("a")) is None


def test_a_closed_object_with_pattern_properties_rules_nothing_out() -> None:
    schema = {"type": "object", "additionalProperties": False, "patternProperties": {"^x": {}}}
    assert _out(schema, _e("xy")) is None


def test_additional_properties_schemas_are_followed() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert _out(schema, _e("any.x")) == "any is declared as an integer"


def test_arrays_are_followed_through_items() -> None:
    schema = {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "array", "items": STR}}}}
    assert _out(schema, _e("list.x")) == "list is declared as a string"


def test_where_empty_on_a_declared_non_array_is_refused() -> None:
    schema = {"type": "object", "properties": {"o": {"type": "object"}}}
    assert _out(schema, _e("o", "k")) == "where_empty on o, declared as an object, not an array"


def test_where_empty_on_an_array_of_scalars_is_refused() -> None:
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": STR}}}
    assert _out(schema, _e("tags", "k")) == "where_empty on tags, an array of string values, not of objects"


def test_where_empty_on_an_array_of_objects_or_undeclared_passes() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object"}},
                                               "b": {"type": "array"}}}
    assert _out(schema, _e("a", "k")) is None and _out(schema, _e("b", "k")) is None
    assert _out(schema, _e("undeclared", "k")) is None


def test_all_of_is_followed_one_level_only() -> None:
    one = {"allOf": [{"type": "object", "properties": {"a": STR}}]}
    two = {"allOf": [{"allOf": [{"type": "object", "properties": {"a": STR}}]}]}
    assert _out(one, _e("a.x")) == "a is declared as a string"
    assert _out(two, _e("a.x")) is None


def test_one_of_and_any_of_are_never_chosen_between() -> None:
    for key in ("oneOf", "anyOf"):
        schema = {key: [{"type": "object", "properties": {"a": STR}}, {"type": "string"}]}
        assert _out(schema, _e("a.x")) is None


def test_an_array_that_is_its_own_items_ends_the_walk() -> None:
    loop: dict[str, Any] = {"type": "array"}
    loop["items"] = loop  # what a YAML alias can build
    schema = {"type": "object", "properties": {"a": loop}}
    assert _out(schema, _e("a.b.c")) is None
    assert _out(schema, _e("a.b.c"), FirstWalker(ROOT)) is None


def test_a_ref_cycle_ends_the_walk() -> None:
    root = {"components": {"schemas": {"A": {"$ref": "#/components/schemas/B"},
                                       "B": {"$ref": "#/components/schemas/A"}}}}
    assert Walker(root).rules_out({"$ref": "#/components/schemas/A"}, _e("x.y")) is None


@pytest.mark.parametrize("walker", [Walker(), FirstWalker()])
def test_a_path_is_refused_only_when_every_success_response_rules_it_out(walker: Walker) -> None:
    closed = {"type": "object", "additionalProperties": False, "properties": {"a": STR}}
    omit = parse_omit({"op": ["job.id"]})
    validate(omit, _tools(**{"200": closed, "202": {"type": "object"}}), walker)
    with pytest.raises(OmitRefused, match="job"):
        validate(omit, _tools(**{"200": closed, "201": closed}), walker)


def test_no_json_success_response_lets_any_path_pass() -> None:
    validate(parse_omit({"op": ["a.b.c"]}), _tools(), Walker())


def test_an_entry_for_an_unselected_operation_is_refused() -> None:
    with pytest.raises(OmitRefused, match="does not select"):
        validate(parse_omit({"other": ["a"]}), _tools(), Walker())


NULLABLE_OBJECT = {"type": "object", "properties": {
    "owner": {"type": ["object", "null"], "properties": {"name": STR}},
    "list": {"type": ["array", "null"], "items": {"type": "object"}},
    "price": {"type": ["number", "null"]},
    "either": {"type": ["object", "array"]},
}}


def test_a_3_1_type_list_reads_as_its_one_non_null_type() -> None:
    assert _out(NULLABLE_OBJECT, _e("owner.name")) is None
    assert _out(NULLABLE_OBJECT, _e("list", "k")) is None
    assert _out(NULLABLE_OBJECT, _e("price.x")) == "price is declared as a number"


def test_a_list_of_several_types_rules_nothing_out() -> None:
    assert _out(NULLABLE_OBJECT, _e("either.x")) is None
    assert _out(NULLABLE_OBJECT, _e("either", "k")) is None


def test_the_first_revision_stops_with_a_type_error_through_a_type_list() -> None:
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        _out(NULLABLE_OBJECT, _e("owner.name"), FirstWalker())


def test_the_first_revision_refuses_where_empty_on_a_nullable_array() -> None:
    reason = _out(NULLABLE_OBJECT, _e("list", "k"), FirstWalker())
    assert reason == "where_empty on list, declared as a ['array', 'null'], not an array"


def test_the_first_revision_writes_a_before_every_type() -> None:
    schema = {"type": "object", "properties": {"o": {"type": "object"}, "n": {"type": "integer"}}}
    assert _out(schema, _e("o", "k"), FirstWalker()) == "where_empty on o, declared as a object, not an array"
    assert _out(schema, _e("n.x"), FirstWalker()) == "n is declared as a integer"
    assert _out(schema, _e("n.x")) == "n is declared as an integer"
