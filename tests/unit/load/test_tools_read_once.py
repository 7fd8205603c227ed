"""Many cases picking tools from one file (a tools listing or an OpenAPI document): the file is
parsed once per load, not once a case."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import harness._common.documents as documents
from harness._errors import InputErrors
from harness._load import load_suite


def toy_suite_with(tmp: Path, scenarios: Path, shared: tuple[str, str], sources: list[str], cases_file: str) -> Path:
    """The toy suite with one shared file (name, text) and a case file whose case ``i`` takes
    its tools from ``sources[i]``."""
    root = tmp / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    (root / "toy.cases.yaml").unlink()
    (root / shared[0]).write_text(shared[1])
    lines = ["version: 1", "subject: toy", "cases:"]
    for i, source in enumerate(sources):
        lines += [f"  - id: case-{i}", f"    tools: {source}"]
    (root / cases_file).write_text("\n".join(lines) + "\n")
    return root


def counted_calls(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> Counter[str]:
    """How often ``module.name`` (a reader taking a path first) is called, by file name: the
    real reader, counted."""
    counted: Counter[str] = Counter()
    real = getattr(module, name)

    def counting(path: Path, *args: Any, **kwargs: Any) -> Any:
        counted[path.name] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return counted


def suite_picking_from_one_file(tmp: Path, scenarios: Path, cases: int, tools: str | None = None) -> Path:
    listing = [{"name": f"t{i}", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}
               for i in range(cases)]
    text = tools if tools is not None else json.dumps({"tools": listing})
    return toy_suite_with(tmp, scenarios, ("dump.tools.json", text),
                          [f"{{mcp: dump.tools.json, pick: [t{i}]}}" for i in range(cases)], "picks.cases.yaml")


@pytest.fixture()
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each file is parsed."""
    return counted_calls(monkeypatch, documents, "load_document")


def test_forty_cases_picking_from_one_tools_file_parse_it_once(tmp_path: Path, scenarios: Path,
                                                               reads: Counter[str]) -> None:
    suite = load_suite(suite_picking_from_one_file(tmp_path, scenarios, 40))
    assert reads["dump.tools.json"] == 1
    assert [c.input["tools"][0]["name"] for c in suite.cases] == [f"t{i}" for i in range(40)]


def test_each_case_gets_tools_of_its_own_from_the_shared_file(tmp_path: Path, scenarios: Path) -> None:
    suite = load_suite(suite_picking_from_one_file(tmp_path, scenarios, 3))
    first, second = suite.cases[0].input["tools"][0], suite.cases[1].input["tools"][0]
    first["input_schema"]["properties"]["n"]["type"] = "string"
    assert second["input_schema"]["properties"]["n"]["type"] == "integer"


def test_a_broken_shared_tools_file_is_an_error_for_every_case_that_names_it(tmp_path: Path, scenarios: Path,
                                                                            reads: Counter[str]) -> None:
    root = suite_picking_from_one_file(tmp_path, scenarios, 3, tools='{"tools": [}')
    with pytest.raises(InputErrors) as caught:
        load_suite(root)
    assert reads["dump.tools.json"] == 1
    assert len(caught.value.errors) == 3
    assert {str(e.place.file) for e in caught.value.errors} == {f"{root.as_posix()}/dump.tools.json"}
    assert {(e.expected, e.found) for e in caught.value.errors} == {("a JSON value", "'}'")}


def test_every_load_reads_the_file_again(tmp_path: Path, scenarios: Path, reads: Counter[str]) -> None:
    root = suite_picking_from_one_file(tmp_path, scenarios, 2)
    load_suite(root)
    load_suite(root)
    assert reads["dump.tools.json"] == 2


OPENAPI = """\
openapi: 3.0.3
info: {title: Shop, version: "1"}
paths:
  /orders/{id}:
    get:
      operationId: GetOrder
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses: {"200": {description: ok}}
    delete:
      operationId: DeleteOrder
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses: {"204": {description: gone}}
"""


def suite_importing_from_one_document(tmp: Path, scenarios: Path, cases: int, document: str = OPENAPI) -> Path:
    operations = [("GetOrder", "DeleteOrder")[i % 2] for i in range(cases)]
    return toy_suite_with(tmp, scenarios, ("shop.yaml", document),
                          [f"{{openapi: shop.yaml, operations: [{op}]}}" for op in operations], "imports.cases.yaml")


@pytest.fixture()
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each OpenAPI document is parsed."""
    from harness._sources.openapi import importer

    return counted_calls(monkeypatch, importer, "load_openapi")


def test_forty_cases_importing_from_one_openapi_document_parse_it_once(tmp_path: Path, scenarios: Path,
                                                                       parses: Counter[str]) -> None:
    suite = load_suite(suite_importing_from_one_document(tmp_path, scenarios, 40))
    assert parses["shop.yaml"] == 1
    assert [c.input["tools"][0]["name"] for c in suite.cases] == ["GetOrder", "DeleteOrder"] * 20


def test_each_case_gets_an_imported_tool_of_its_own(tmp_path: Path, scenarios: Path) -> None:
    suite = load_suite(suite_importing_from_one_document(tmp_path, scenarios, 3))
    first, third = suite.cases[0].input["tools"][0], suite.cases[2].input["tools"][0]
    assert first == third  # the same operation, imported for two cases
    first["input_schema"]["properties"]["id"]["type"] = "string"
    assert third["input_schema"]["properties"]["id"]["type"] == "integer"


def test_a_broken_openapi_document_is_parsed_once_and_an_error_for_every_case_that_names_it(
        tmp_path: Path, scenarios: Path, parses: Counter[str]) -> None:
    root = suite_importing_from_one_document(tmp_path, scenarios, 3, document="openapi: [3.0\n")
    with pytest.raises(InputErrors) as caught:
        load_suite(root)
    assert parses["shop.yaml"] == 1
    assert len(caught.value.errors) == 3
    assert {str(e.place.file) for e in caught.value.errors} == {f"{root.as_posix()}/shop.yaml"}


def test_every_load_parses_the_openapi_document_again(tmp_path: Path, scenarios: Path,
                                                      parses: Counter[str]) -> None:
    root = suite_importing_from_one_document(tmp_path, scenarios, 2)
    load_suite(root)
    load_suite(root)
    assert parses["shop.yaml"] == 2


def test_forty_cases_importing_from_one_openapi_document_walk_its_operations_once(
        tmp_path: Path, scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness._sources.openapi import importer

    walks = []
    real = importer.collect_operations
    monkeypatch.setattr(importer, "collect_operations", lambda value: walks.append(1) or real(value))
    load_suite(suite_importing_from_one_document(tmp_path, scenarios, 40))
    assert len(walks) == 1


def test_an_unknown_operation_is_an_error_at_the_case_that_names_it_when_others_import_fine(
        tmp_path: Path, scenarios: Path) -> None:
    root = suite_importing_from_one_document(tmp_path, scenarios, 3)
    cases = root / "imports.cases.yaml"
    cases.write_text(cases.read_text().replace("operations: [DeleteOrder]", "operations: [CancelOrder]"))
    with pytest.raises(InputErrors) as caught:
        load_suite(root)
    [error] = caught.value.errors
    assert (error.place.path, error.place.line) == ("cases[1].tools", 7)  # case-1, the second of three
    assert error.found == "'CancelOrder'" and "GetOrder" in error.expected


def test_each_case_naming_a_refused_openapi_document_gets_an_error_of_its_own(tmp_path: Path, scenarios: Path) -> None:
    root = suite_importing_from_one_document(tmp_path, scenarios, 3, document="swagger: '2.0'\ninfo: {}\npaths: {}\n")
    with pytest.raises(InputErrors) as caught:
        load_suite(root)
    errors = caught.value.errors
    assert len(errors) == 3 and len({id(e) for e in errors}) == 3
    assert {(str(e.place.file), e.expected) for e in errors} == {(f"{root.as_posix()}/shop.yaml", errors[0].expected)}
