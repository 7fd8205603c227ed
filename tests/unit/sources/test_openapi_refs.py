"""$ref inlining: local refs built once and shared, a recursive ref as {}, remote refs refused;
OpenAPI 3.0 nullable as a type list in input schemas (response schemas kept as written)."""

from __future__ import annotations

import pytest

from harness._errors import InputError

from .conftest import Imported, api, body, ok, tool

S = "#/components/schemas/"


def test_local_refs_are_inlined(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "q", "in": "query", "schema": {"$ref": S + "Query"}}], "responses": ok()}}},
        {"Query": {"type": "string", "minLength": 1}})
    assert tool(imported(doc), "a")["input_schema"]["properties"]["q"] == {"type": "string", "minLength": 1}


def test_a_repeated_target_is_one_shared_object_within_a_tool(imported: Imported) -> None:
    doc = api({"/a": {"post": {"operationId": "a", "requestBody": body({"type": "object", "properties": {
        "home": {"$ref": S + "Address"}, "work": {"$ref": S + "Address"}}}), "responses": ok()}}},
        {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}})
    props = tool(imported(doc), "a")["input_schema"]["properties"]
    assert props["home"] == {"type": "object", "properties": {"city": {"type": "string"}}}
    assert props["home"] is props["work"]


def test_a_recursive_ref_becomes_an_empty_schema(imported: Imported) -> None:
    doc = api({"/a": {"post": {"operationId": "a", "requestBody": body({"$ref": S + "Node"}),
                               "responses": ok()}}},
              {"Node": {"type": "object", "properties": {
                  "name": {"type": "string"},
                  "children": {"type": "array", "items": {"$ref": S + "Node"}}}}})
    props = tool(imported(doc), "a")["input_schema"]["properties"]
    assert props["children"] == {"type": "array", "items": {}}


def test_mutually_recursive_schemas_cut_at_the_first_repeat(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "responses": ok({"$ref": S + "A"})}}},
              {"A": {"type": "object", "properties": {"b": {"$ref": S + "B"}}},
               "B": {"type": "object", "properties": {"a": {"$ref": S + "A"}}}})
    responses = tool(imported(doc), "a")["openapi"]["responses"]
    assert responses["200"] == {"type": "object", "properties": {"b": {"type": "object", "properties": {"a": {}}}}}


def test_a_remote_ref_is_refused_naming_the_operation(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "q", "in": "query", "schema": {"$ref": "https://example.invalid/s.json#/Q"}}],
        "responses": ok()}}})
    with pytest.raises(InputError, match=r"only local \$refs.*https://example.invalid/s.json"):
        imported(doc)


def test_a_ref_to_a_file_beside_the_document_is_refused_too(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "responses": ok({"$ref": "other.yaml#/Pet"})}}})
    with pytest.raises(InputError, match=r"only local \$refs"):
        imported(doc)


def test_a_ref_naming_nothing_is_refused(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "responses": ok({"$ref": S + "Missing"})}}})
    with pytest.raises(InputError, match="a \\$ref naming a place in the document"):
        imported(doc)


def test_nullable_becomes_a_type_list_in_input_schemas(imported: Imported) -> None:
    doc = api({"/a": {"post": {"operationId": "a", "requestBody": body({"type": "object", "properties": {
        "note": {"type": "string", "nullable": True},
        "size": {"type": "string", "enum": ["s", "m"], "nullable": True},
        "plain": {"type": "string", "nullable": False},
    }}), "responses": ok({"type": "string", "nullable": True})}}})
    t = tool(imported(doc), "a")
    props = t["input_schema"]["properties"]
    assert props["note"] == {"type": ["string", "null"]}
    assert props["size"] == {"type": ["string", "null"], "enum": ["s", "m", None]}
    assert props["plain"] == {"type": "string", "nullable": False}
    assert t["openapi"]["responses"]["200"] == {"type": "string", "nullable": True}


def test_a_3_1_type_list_passes_through_unchanged(imported: Imported) -> None:
    doc = api({"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "q", "in": "query", "schema": {"type": ["string", "null"]}}], "responses": ok()}}},
        version="3.1.0")
    assert tool(imported(doc), "a")["input_schema"]["properties"]["q"] == {"type": ["string", "null"]}


def test_parameters_and_bodies_may_be_refs_themselves(imported: Imported) -> None:
    doc = api({"/a": {"post": {"operationId": "a",
                               "parameters": [{"$ref": "#/components/parameters/Q"}],
                               "requestBody": {"$ref": "#/components/requestBodies/B"},
                               "responses": {"200": {"$ref": "#/components/responses/R"}}}}})
    doc["components"] = {
        "parameters": {"Q": {"name": "q", "in": "query", "schema": {"type": "string"}}},
        "requestBodies": {"B": body({"type": "object", "properties": {"x": {"type": "integer"}}})},
        "responses": {"R": {"description": "r", "content": {"application/json": {"schema": {"type": "object"}}}}},
    }
    t = tool(imported(doc), "a")
    assert list(t["input_schema"]["properties"]) == ["q", "x"]
    assert t["openapi"]["responses"] == {"200": {"type": "object"}}
