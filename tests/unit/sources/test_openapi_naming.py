"""Tool names: operationId else method_path, sanitised, numbered on clashes, 64 at most."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from harness._errors import InputError, Place
from harness._sources.openapi import tools_from_document
from harness._sources.openapi.names import NameTaker, sanitize

from .conftest import Imported, api, ok


@pytest.mark.parametrize(("raw", "name"), [
    ("X-Trace", "X_Trace"),
    ("page[size]", "page_size"),
    ("get /pets/{id}", "get_pets_id"),
    ("repos/get-content", "repos_get_content"),
    ("ünïcode", "n_code"),
    ("---", "_"),
])
def test_names_are_sanitised_to_letters_digits_and_underscores(raw: str, name: str) -> None:
    assert sanitize(raw) == name


def test_a_taken_name_is_numbered_from_2_and_stays_within_64_characters() -> None:
    taker = NameTaker()
    long = "x" * 70
    assert [taker.take("dup"), taker.take("dup"), taker.take("dup")] == ["dup", "dup_2", "dup_3"]
    first, second = taker.take(long), taker.take(long)
    assert first == "x" * 64
    assert second == "x" * 62 + "_2"


def test_an_operation_without_an_operation_id_is_named_method_path(imported: Imported) -> None:
    result = imported(api({"/pets/{id}": {"get": {
        "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": ok()}}}))
    assert [t["name"] for t in result.tools] == ["get_pets_id"]


def test_one_operation_id_on_two_operations_imports_both_numbered_and_warns(imported: Imported) -> None:
    result = imported(api({
        "/a": {"get": {"operationId": "list", "responses": ok()}},
        "/b": {"get": {"operationId": "list", "responses": ok()}},
    }))
    assert [t["name"] for t in result.tools] == ["list", "list_2"]
    assert result.duplicated_ids == ["list"]
    assert "1 duplicated operationIds: list" in result.warnings()[0]


def test_operations_are_chosen_by_operation_id_or_method_path_key(write: Callable[..., Path]) -> None:
    path = write(api({
        "/a": {"get": {"operationId": "getA", "responses": ok()}},
        "/b": {"post": {"responses": ok()}},
        "/c": {"get": {"operationId": "getC", "responses": ok()}},
    }))
    tools = tools_from_document(path, ["post_/b", "getA"], Place("case.yaml"))
    assert [t["name"] for t in tools] == ["getA", "post_b"]  # document order


def test_an_unknown_operation_is_an_input_error_naming_it(write: Callable[..., Path]) -> None:
    path = write(api({"/a": {"get": {"operationId": "getA", "responses": ok()}}}))
    with pytest.raises(InputError) as caught:
        tools_from_document(path, ["getB"], Place("case.yaml", 3, "cases[0].tools"))
    assert "'getB'" in str(caught.value) and "case.yaml:3" in str(caught.value)


def test_description_is_the_description_else_the_summary(imported: Imported) -> None:
    result = imported(api({
        "/a": {"get": {"operationId": "a", "summary": "S", "description": "D", "responses": ok()}},
        "/b": {"get": {"operationId": "b", "summary": "S", "responses": ok()}},
    }))
    assert [t["description"] for t in result.tools] == ["D", "S"]
