"""Parameters of every location flattened into one input schema, with seed 002's clash rules."""

from __future__ import annotations

import pytest

from harness._errors import InputError

from .conftest import Imported, api, body, ok, tool


def _param(name: str, where: str, schema: dict[str, object] | None = None, **extra: object) -> dict[str, object]:
    return {"name": name, "in": where, "schema": schema or {"type": "string"}, **extra}


def test_path_query_header_and_cookie_parameters_become_one_flat_schema(imported: Imported) -> None:
    result = imported(api({"/pets/{petId}": {"get": {"operationId": "getPet", "parameters": [
        _param("petId", "path", required=True),
        _param("limit", "query", {"type": "integer"}, description="how many"),
        _param("X-Trace", "header"),
        _param("session", "cookie", required=True),
    ], "responses": ok()}}}))
    schema = tool(result, "getPet")["input_schema"]
    assert schema == {
        "type": "object",
        "properties": {
            "petId": {"type": "string"},
            "limit": {"type": "integer", "description": "how many"},
            "X_Trace": {"type": "string"},
            "session": {"type": "string"},
        },
        "required": ["petId", "session"],
    }


def test_a_second_parameter_with_a_taken_name_gets_its_location(imported: Imported) -> None:
    result = imported(api({"/items/{id}": {"get": {"operationId": "get", "parameters": [
        _param("id", "path", required=True), _param("id", "query"), _param("id", "header"),
    ], "responses": ok()}}}))
    assert list(tool(result, "get")["input_schema"]["properties"]) == ["id", "query_id", "header_id"]


def test_a_location_name_already_taken_is_numbered(imported: Imported) -> None:
    result = imported(api({"/items/{id}": {"get": {"operationId": "get", "parameters": [
        _param("id", "path", required=True), _param("query_id", "query"), _param("id", "query"),
    ], "responses": ok()}}}))
    assert list(tool(result, "get")["input_schema"]["properties"]) == ["id", "query_id", "query_id_2"]


def test_accept_content_type_and_authorization_headers_are_ignored(imported: Imported) -> None:
    result = imported(api({"/a": {"get": {"operationId": "a", "parameters": [
        _param("Accept", "header"), _param("content-type", "header"),
        _param("AUTHORIZATION", "header"), _param("accept", "query"),
    ], "responses": ok()}}}))
    assert list(tool(result, "a")["input_schema"]["properties"]) == ["accept"]


def test_path_item_parameters_are_overridden_by_the_operation_s_own(imported: Imported) -> None:
    result = imported(api({"/a/{id}": {
        "parameters": [_param("id", "path", required=True), _param("q", "query", {"type": "string"})],
        "get": {"operationId": "a", "parameters": [_param("q", "query", {"type": "integer"})],
                "responses": ok()}}}))
    assert tool(result, "a")["input_schema"]["properties"] == {"id": {"type": "string"}, "q": {"type": "integer"}}


def test_a_parameter_given_by_content_takes_its_json_schema(imported: Imported) -> None:
    result = imported(api({"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "filter", "in": "query", "content": {"application/json": {"schema": {"type": "object"}}}},
    ], "responses": ok()}}}))
    assert tool(result, "a")["input_schema"]["properties"] == {"filter": {"type": "object"}}


def test_a_body_property_clashing_with_a_parameter_gets_body(imported: Imported) -> None:
    result = imported(api({"/a/{id}": {"put": {"operationId": "put", "parameters": [
        _param("id", "path", required=True)],
        "requestBody": body({"type": "object", "required": ["id", "name"],
                             "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}),
        "responses": ok()}}}))
    schema = tool(result, "put")["input_schema"]
    assert list(schema["properties"]) == ["id", "body_id", "name"]
    assert schema["required"] == ["id", "body_id", "name"]
    assert schema["properties"]["body_id"] == {"type": "integer"}


def test_path_placeholders_must_match_the_path_parameters(imported: Imported) -> None:
    with pytest.raises(InputError, match=r"placeholders \['id'\]"):
        imported(api({"/a/{id}": {"get": {"operationId": "a", "responses": ok()}}}))
