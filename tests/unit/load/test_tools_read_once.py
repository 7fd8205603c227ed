"""Many cases picking tools from one file: the file is parsed once per load, not once a case."""

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


def suite_picking_from_one_file(tmp: Path, scenarios: Path, cases: int, tools: str | None = None) -> Path:
    root = tmp / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    (root / "toy.cases.yaml").unlink()
    listing = [{"name": f"t{i}", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}
               for i in range(cases)]
    (root / "dump.tools.json").write_text(tools if tools is not None else json.dumps({"tools": listing}))
    lines = ["version: 1", "subject: toy", "cases:"]
    for i in range(cases):
        lines += [f"  - id: case-{i}", f"    tools: {{mcp: dump.tools.json, pick: [t{i}]}}"]
    (root / "picks.cases.yaml").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture()
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each file is parsed: the real loader, counted."""
    counted: Counter[str] = Counter()
    real = documents.load_document

    def counting(path: Path, **kwargs: Any) -> Any:
        counted[path.name] += 1
        return real(path, **kwargs)

    monkeypatch.setattr(documents, "load_document", counting)
    return counted


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
