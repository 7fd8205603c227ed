"""`harness openapi`: the summary in text and JSON, exit codes, URLs refused."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness._cli.main import cli
from harness._errors import Place
from harness._sources.openapi import tools_from_document

from .conftest import api, body, ok

DOC = api({
    "/pets": {"get": {"operationId": "listPets", "responses": ok()},
              "post": {"operationId": "addPet", "requestBody": body({"type": "object"}, media="multipart/form-data"),
                       "responses": ok()}},
    "/pets/{id}": {"patch": {"operationId": "patchPet", "parameters": [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "requestBody": body({"type": "object", "properties": {"a": {}, "b": {}},
                             "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        "responses": ok()}},
})


def test_the_text_summary_names_tools_skips_and_compositions(write: Callable[..., Path]) -> None:
    done = CliRunner().invoke(cli, ["openapi", str(write(DOC))])
    assert done.exit_code == 0, done.output
    assert "tools: 2" in done.output
    assert "addPet (POST /pets): request body is not JSON (multipart/form-data)" in done.output
    assert "root compositions (tools): 1" in done.output


def test_the_json_summary_is_machine_readable(write: Callable[..., Path]) -> None:
    done = CliRunner().invoke(cli, ["openapi", str(write(DOC)), "--format", "json"])
    report = json.loads(done.stdout)
    assert report["tools"] == 2 and report["root_compositions"] == ["patchPet"]
    assert report["skipped"] == [{"name": "addPet", "method": "post", "path": "/pets",
                                  "reason": "request body is not JSON (multipart/form-data)"}]


def test_a_named_operation_that_was_skipped_exits_2_after_the_summary(write: Callable[..., Path]) -> None:
    done = CliRunner().invoke(cli, ["openapi", str(write(DOC)), "--operations", "listPets,addPet"],
                              standalone_mode=False)
    assert done.return_value == 2  # what `harness` exits with (main() passes it to sys.exit)
    assert "tools: 1" in done.output


def test_a_url_is_refused_without_being_echoed() -> None:
    done = CliRunner().invoke(cli, ["openapi", "https://user:pw@example.invalid/openapi.json"])
    assert done.exit_code == 2
    assert "never fetches" in done.output and "pw@" not in done.output


def test_the_case_source_logs_what_it_left_out(write: Callable[..., Path], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    tools = tools_from_document(write(DOC), None, Place("pets.cases.yaml", 4))
    assert [t["name"] for t in tools] == ["listPets", "patchPet"]
    assert "pets.cases.yaml:4: 1 skipped operations: addPet (request body is not JSON" in caplog.text
