"""``memory_mb`` in suite.yaml: a pipeline that takes more address space than that, on top of
its worker, ends with the outcome ``memory`` (tests/scenarios/suites/memory_hungry)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness._report.validate import validate_report
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow


def test_a_pipeline_over_the_memory_ceiling_has_the_outcome_memory_and_one_under_it_runs(
        tmp_path: Path, scenarios: Path) -> None:
    suite = shutil.copytree(scenarios / "suites" / "memory_hungry", tmp_path / "memory_hungry")
    got = harness_main("run", str(suite), "--no-pins", "--workers", "1", "--out", str(tmp_path / "out"),
                       "--format", "json", "-q")
    assert got.returncode == 1, got.stderr
    report = json.loads(got.stdout)
    validate_report(report)
    rows = {r["case"]: r for r in report["differential"]}
    over = rows["over-the-ceiling"]
    assert (over["old"]["outcome"], over["new"]["outcome"], over["verdict"]) == ("ok", "memory", "error")
    assert over["new"]["error"]["type"] == "MemoryError" and "hungry.py" in over["new"]["error"]["where"]
    under = rows["within-the-ceiling"]
    assert (under["new"]["outcome"], under["verdict"]) == ("ok", "intended")


def test_a_pipeline_program_gets_the_ceiling_of_its_own_not_on_top_of_its_worker(
        tmp_path: Path, scenarios: Path) -> None:
    """600 MB is under memory_mb (200) plus a worker's own size, but over 200 for a fresh program."""
    suite = shutil.copytree(scenarios / "suites" / "memory_hungry", tmp_path / "memory_hungry")
    got = harness_main("run", str(suite), "--no-pins", "--workers", "1", "--case", "served-*",
                       "--out", str(tmp_path / "out"), "--format", "json", "-q")
    assert got.returncode == 1, got.stderr
    [row] = json.loads(got.stdout)["differential"]
    assert (row["new"]["outcome"], row["new"]["error"]["type"]) == ("memory", "MemoryError"), row["new"]


NODE_SUITE = """version: 1
name: node-under-a-ceiling
memory_mb: 300
subjects:
  served:
    old: {command: [node, serve.js], name: old}
    new: {command: [node, serve.js], name: new}
    wires: [toy-wire]
"""


@pytest.mark.expensive
def test_a_node_program_that_cannot_start_under_memory_mb_says_so_on_the_terminal(tmp_path: Path) -> None:
    """V8 reserves more address space than 300 MiB at start-up and dies framing its last words in
    ``#`` lines: the terminal's line carries the out-of-memory words and the ceiling, not ``#``."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    adapter = Path(__file__).resolve().parents[2] / "adapters" / "node" / "wire-harness-adapter.js"
    (tmp_path / "suite.yaml").write_text(NODE_SUITE)
    (tmp_path / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: plain, wire: toy-wire, provider: toy}\n")
    (tmp_path / "served.cases.yaml").write_text("version: 1\nsubject: served\ncases:\n  - id: one\n"
                                                "    tools: [{name: a}]\n")
    (tmp_path / "serve.js").write_text(f"const {{ serve }} = require({json.dumps(str(adapter))});\n"
                                       "serve({ pipelines: { old: (i) => i, new: (i) => i } });\n")
    got = harness_main("run", str(tmp_path), "--no-pins", "--workers", "1", "--out", str(tmp_path / "out"),
                       env={"COLUMNS": "400"})
    assert got.returncode == 1, got.stderr
    [line] = [x for x in got.stdout.splitlines() if x.startswith("  FAIL one on plain")]
    assert "exited before its hello" in line and ": Fatal process OOM in " in line, line
    assert "for CodeRange (memory_mb: 300 MiB)" in line
