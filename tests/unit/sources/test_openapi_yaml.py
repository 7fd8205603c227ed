"""YAML's own values in an OpenAPI document: a date is read as the text OpenAPI means (YAML 1.2
keeps ``2020-01-01`` a string), a value with no JSON form is refused at its line, and a path
item ``$ref`` keeps the fields written beside it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from harness._errors import InputError, Place
from harness._sources.openapi import import_document, tools_from_document

from .conftest import Imported, api, ok, tool

HEAD = 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get:\n      operationId: a\n'


def _with_query_schema(schema_yaml: str) -> str:
    return HEAD + f"""\
      parameters:
        - name: since
          in: query
          schema: {schema_yaml}
      responses: {{"200": {{description: ok}}}}
"""


def test_an_unquoted_yaml_date_reaches_the_tool_as_its_iso_text(write: Callable[..., Path]) -> None:
    path = write(_with_query_schema("{type: string, format: date, example: 2020-01-31}"), "api.yaml")
    since = tool(import_document(path), "a")["input_schema"]["properties"]["since"]
    assert since == {"type": "string", "format": "date", "example": "2020-01-31"}


@pytest.mark.parametrize(("value", "found"), [
    ("!!binary aGVsbG8=", "binary data (!!binary)"),
    (".nan", "the number nan"),
    ("-.inf", "the number -inf"),
])
def test_a_yaml_value_with_no_json_form_is_refused_at_its_line(
        write: Callable[..., Path], value: str, found: str) -> None:
    path = write(_with_query_schema(f"{{type: number, default: {value}}}"), "api.yaml")
    with pytest.raises(InputError) as caught:
        import_document(path, display="api.yaml")
    assert str(caught.value.place) == 'api.yaml:10 at paths."/a".get.parameters[0].schema.default'
    assert caught.value.found == found


def test_a_path_item_ref_keeps_the_fields_written_beside_it(imported: Imported) -> None:
    doc = api({"/a": {"$ref": "#/components/x-items/A", "post": {"operationId": "add", "responses": ok()}}},
              components={"x-items": {"A": {"get": {"operationId": "list", "responses": ok()}}}})
    assert [t["name"] for t in imported(doc).tools] == ["list", "add"]


def test_operations_given_as_a_string_are_refused_not_read_letter_by_letter(write: Callable[..., Path]) -> None:
    path = write(api({"/a": {"get": {"operationId": "listAll", "responses": ok()}}}))
    with pytest.raises(InputError, match="expected operations: a list of operationIds"):
        tools_from_document(path, "listAll", Place("x.cases.yaml", 3))  # type: ignore[arg-type]


def test_an_unquoted_status_code_is_read_as_the_text_it_was_written_as(write: Callable[..., Path]) -> None:
    # Real YAML specs often write `200:` unquoted; YAML reads it as an integer, OpenAPI means "200".
    body = ("      responses:\n        200:\n          description: ok\n          content:\n"
            "            application/json:\n              schema: {type: object}\n")
    result = import_document(write(HEAD + body, "api.yaml"), display="api.yaml")
    assert [list(t["openapi"]["responses"]) for t in result.tools] == [["200"]]


def test_a_3_1_document_without_paths_imports_no_operations(imported: Imported) -> None:
    result = imported({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "webhooks": {}})
    assert (result.operations, result.tools) == (0, [])


def test_a_3_1_document_without_paths_still_has_its_servers_checked(imported: Imported) -> None:
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "http://0x7f.1/"}]}
    with pytest.raises(InputError, match="ambiguous numeric host"):
        imported(doc)


def test_the_servers_of_a_path_item_reached_by_ref_are_checked_too(imported: Imported) -> None:
    doc = api({"/a": {"$ref": "#/components/x-items/A"}}, components={"x-items": {"A": {
        "servers": [{"url": "https://admin:hunter2@api.example.invalid"}],
        "get": {"operationId": "a", "responses": ok()}}}})
    with pytest.raises(InputError) as caught:
        imported(doc)
    assert caught.value.place.path == "components.x-items.A.servers[0].url"
    assert "carrying credentials" in caught.value.found and "hunter2" not in str(caught.value)
