"""An MCP ``tools/list`` dump from ../shared as a case's tool source, through every seed 001 lane."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness._differential import build
from harness._load import load_suite

pytestmark = [pytest.mark.slow, pytest.mark.corpus]


def test_every_tool_of_an_mcp_dump_reaches_every_lane_and_gets_a_verdict(tmp_path: Path, repo: Path,
                                                                        shared: Path) -> None:
    dump = shared / "corpora" / "mcp" / "notion.tools.json"
    names = [t["name"] for t in json.loads(dump.read_text())["tools"]]
    root = tmp_path / "suite"
    root.mkdir()
    shutil.copytree(repo / "cases" / "lanes", root / "lanes")
    (root / "suite.yaml").write_text(f"version: 1\nname: mcp\nread_roots: [{dump.parent}]\n")
    (root / "mcp.cases.yaml").write_text(
        f"version: 1\nsubject: anthropic_messages\ncases:\n  - id: notion\n    tools: {{mcp: {dump}}}\n"
        "    expect: {'*': {diverges: {why: corpus run}}}\n")
    suite = load_suite(root)
    assert [t["name"] for t in suite.cases[0].input["tools"]] == names
    results = build(suite, workers=2)
    assert len(results) == len(suite.cases[0].lanes) and all(r.verdict for r in results)
    for r in results:
        assert r.new is not None and r.new.ok
        assert [t["name"] for t in r.new.value["tools"]] == names
