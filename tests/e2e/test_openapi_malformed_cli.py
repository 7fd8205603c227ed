"""The review's malformed documents through the real command: exit 2 and one line on stderr
naming the file, its line, the key path, what was expected and what was found; no traceback,
and no summary claiming an import happened."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

HEAD = 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n'
DOCUMENTS = {
    "parameters-as-a-string": (
        HEAD + "  /a:\n    get:\n      operationId: a\n      parameters: notalist\n",
        'api.yaml:7 at paths."/a".get.parameters: expected a list of parameters, '
        "found the string 'notalist'"),
    "path-item-as-a-list": (
        HEAD + "  /a:\n    - get\n",
        'api.yaml:4 at paths."/a": expected a path item object, found a list of 1 item'),
    "recursive-parameter-ref": (
        HEAD + "  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/A'}]\n"
        "components:\n  parameters:\n    A: {$ref: '#/components/parameters/A'}\n",
        'api.yaml:6 at paths."/a".get.parameters[0]: expected a $ref that leads to a parameter object, '
        "found a recursive reference: #/components/parameters/A -> #/components/parameters/A"),
    "empty": (
        "",
        "api.yaml: expected an OpenAPI 3.x document (an object with openapi and paths), found an empty document"),
}


@pytest.mark.parametrize("scenario", sorted(DOCUMENTS))
def test_a_malformed_document_gets_one_line_naming_its_place(tmp_path: Path, scenario: str) -> None:
    text, message = DOCUMENTS[scenario]
    (tmp_path / "api.yaml").write_text(text, encoding="utf-8")
    done = harness_main("openapi", "api.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"harness: {message}\n"
    assert done.stdout == ""
