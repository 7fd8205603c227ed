"""Request bodies: an object body's properties join the schema; anything else is one field."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from harness._errors import InputError, Place
from harness._sources.openapi import tools_from_document

from .conftest import Imported, api, body, ok, tool

PET = {"type": "object", "required": ["name"], "properties": {
    "id": {"type": "integer", "readOnly": True},
    "name": {"type": "string"},
    "tag": {"type": "string"},
}}


def _post(schema: object, **kw: object) -> dict[str, object]:
    return {"/pets": {"post": {"operationId": "add", "requestBody": body(schema, **kw), "responses": ok()}}}


def test_an_object_body_joins_the_schema_without_its_read_only_properties(imported: Imported) -> None:
    schema = tool(imported(api(_post(PET))), "add")["input_schema"]
    assert schema == {"type": "object", "properties": {"name": {"type": "string"}, "tag": {"type": "string"}},
                      "required": ["name"]}


def test_an_optional_body_makes_its_properties_optional(imported: Imported) -> None:
    schema = tool(imported(api(_post(PET, required=False))), "add")["input_schema"]
    assert "required" not in schema


@pytest.mark.parametrize(("scenario", "schema"), [
    ("array", {"type": "array", "items": {"type": "string"}}),
    ("scalar", {"type": "string"}),
    ("map", {"type": "object", "additionalProperties": {"type": "integer"}}),
    ("oneOf", {"oneOf": [{"type": "object", "properties": {"a": {}}}, {"type": "array"}]}),
    ("allOf", {"allOf": [{"type": "object", "properties": {"a": {}}}]}),
])
def test_a_body_that_is_not_an_object_with_properties_is_one_body_field(
        imported: Imported, scenario: str, schema: dict[str, object]) -> None:
    result = tool(imported(api(_post(schema))), "add")["input_schema"]
    assert result == {"type": "object", "properties": {"body": schema}, "required": ["body"]}, scenario


def test_a_body_field_clashing_with_a_parameter_becomes_body_body(imported: Imported) -> None:
    doc = api({"/a": {"post": {"operationId": "a",
                               "parameters": [{"name": "body", "in": "query", "schema": {}}],
                               "requestBody": body({"type": "array"}), "responses": ok()}}})
    assert list(tool(imported(doc), "a")["input_schema"]["properties"]) == ["body", "body_body"]


def test_an_object_body_s_root_composition_is_carried_to_the_root_with_renames(imported: Imported) -> None:
    composed = {"type": "object", "properties": {"id": {"type": "string"}, "sha": {"type": "string"}},
                "anyOf": [{"required": ["id"]}, {"required": ["sha"]}]}
    doc = api({"/r/{id}": {"patch": {"operationId": "patch", "parameters": [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "requestBody": body(composed), "responses": ok()}}})
    result = imported(doc)
    schema = tool(result, "patch")["input_schema"]
    assert list(schema["properties"]) == ["id", "body_id", "sha"]
    assert schema["anyOf"] == [{"required": ["body_id"]}, {"required": ["sha"]}]
    assert result.root_compositions == ["patch"] and result.body_compositions == ["patch"]


def test_a_composition_only_body_counts_as_a_body_composition_but_not_a_root_one(imported: Imported) -> None:
    result = imported(api(_post({"oneOf": [{"type": "object"}, {"type": "array"}]})))
    assert result.body_compositions == ["add"] and result.root_compositions == []


def test_a_json_flavoured_media_type_is_json(imported: Imported) -> None:
    result = imported(api(_post(PET, media="application/merge-patch+json; charset=utf-8")))
    assert list(tool(result, "add")["input_schema"]["properties"]) == ["name", "tag"]


@pytest.mark.parametrize("media", ["multipart/form-data", "application/x-www-form-urlencoded", "text/plain"])
def test_a_non_json_body_skips_the_operation_with_the_reason(imported: Imported, media: str) -> None:
    result = imported(api({**_post(PET, media=media), "/ok": {"get": {"operationId": "fine", "responses": ok()}}}))
    assert [t["name"] for t in result.tools] == ["fine"]
    assert [(s.name, s.reason) for s in result.skipped] == [("add", f"request body is not JSON ({media})")]
    assert "1 skipped operations: add (request body is not JSON" in result.warnings()[0]


def test_a_named_operation_that_is_skipped_is_an_input_error(write: Callable[..., Path]) -> None:
    path = write(api(_post(PET, media="multipart/form-data")))
    with pytest.raises(InputError, match=r"every named operation imported.*add: request body is not JSON"):
        tools_from_document(path, ["add"], Place("case.yaml"))


def test_a_form_body_beside_a_json_one_uses_the_json_one(imported: Imported) -> None:
    doc = api({"/pets": {"post": {"operationId": "add", "requestBody": {"content": {
        "multipart/form-data": {"schema": {"type": "object"}},
        "application/json": {"schema": PET}}}, "responses": ok()}}})
    assert list(tool(imported(doc), "add")["input_schema"]["properties"]) == ["name", "tag"]


def test_success_responses_are_kept_for_subjects_that_read_results(imported: Imported) -> None:
    doc = api({"/pets": {"get": {"operationId": "list", "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array"}}}},
        "202": {"description": "later", "content": {"application/json": {"schema": {"type": "object"}}}},
        "204": {"description": "none"},
        "404": {"description": "no", "content": {"application/json": {"schema": {"type": "object"}}}},
    }}}})
    meta = tool(imported(doc), "list")["openapi"]
    assert meta == {"operation_id": "list", "method": "get", "path": "/pets",
                    "responses": {"200": {"type": "array"}, "202": {"type": "object"}}}
