"""Hostile tool schemas through the seed 001 pipelines: each is a recorded outcome, never a lost case."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness._differential import build
from harness._load import load_suite

pytestmark = pytest.mark.slow


def suite_with(tmp: Path, repo: Path, tools: list[dict[str, object]]) -> Path:
    root = tmp / "suite"
    root.mkdir()
    shutil.copytree(repo / "cases" / "lanes", root / "lanes")
    (root / "suite.yaml").write_text("version: 1\nname: hostile\ntimeout_s: 5\n")
    (root / "tools.json").write_text(json.dumps({"tools": tools}))
    (root / "h.cases.yaml").write_text(
        "version: 1\nsubject: anthropic_messages\ncases:\n"
        "  - id: hostile\n    tools: {file: tools.json}\n    lanes: [anthropic-first-party, deepseek-anthropic]\n"
        "    expect: {'*': {diverges: {why: whatever the passes do}}}\n")
    return root


def nested(depth: int) -> dict[str, object]:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


# 50,000 properties cost about 2.4 CPU s in all (the build's two workers included): expensive
@pytest.mark.parametrize("width", [5_000, pytest.param(50_000, marks=pytest.mark.expensive)])
def test_a_recursive_ref_and_an_enormous_schema_each_get_a_verdict(tmp_path: Path, repo: Path, width: int) -> None:
    tools = [
        {"name": "recursive", "inputSchema": {"$ref": "#", "type": "object", "properties": {"self": {"$ref": "#"}}}},
        # as deep as a suite file may nest (200, whatever the file's size): 3 + 2 x 95 levels
        {"name": "deep", "inputSchema": nested(95)},
        {"name": "wide", "inputSchema": {"type": "object",
                                         "properties": {f"p{i}": {"type": "string"} for i in range(width)},
                                         "oneOf": [{"required": ["p1"]}, {"required": ["p2"]}]}},
    ]
    results = build(load_suite(suite_with(tmp_path, repo, tools)), workers=2)
    assert [r.unit.lane.id for r in results] == ["anthropic-first-party", "deepseek-anthropic"]
    assert all(r.verdict is not None and r.old.ok and r.new.ok for r in results)  # type: ignore[union-attr]
    first = results[0].new.value["tools"]  # type: ignore[union-attr]
    assert "oneOf" not in first[2]["input_schema"] and first[0]["input_schema"]["properties"]["self"] == {"$ref": "#"}


def test_a_schema_nested_past_the_load_limit_is_one_clear_error(tmp_path: Path, repo: Path) -> None:
    from harness._errors import InputErrors

    root = suite_with(tmp_path, repo, [])
    (root / "tools.json").write_text('{"tools": [{"name": "deep", "inputSchema": ' + '{"a": ' * 5000 + "1"
                                     + "}" * 5000 + "}]}")
    with pytest.raises(InputErrors) as err:
        load_suite(root)
    [message] = [str(e) for e in err.value.errors]
    assert "tools.json" in message and "nesting at most" in message
