"""The case file the README shows is real: it loads, runs, and every verdict and pin holds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow


def readme_case_file(repo: Path) -> str:
    text = (repo / "README.md").read_text()
    start = text.index("```yaml\nversion: 1\nsubject: anthropic_messages") + len("```yaml\n")
    return text[start:text.index("```\n", start)]


def test_the_readme_case_file_runs_clean_on_the_bundled_lanes_rules_and_cassettes(tmp_path: Path, repo: Path) -> None:
    suite = tmp_path / "readme"
    (suite / "anthropic_messages" / "tools").mkdir(parents=True)
    shutil.copytree(repo / "cases" / "lanes", suite / "lanes")
    shutil.copytree(repo / "cases" / "rules", suite / "rules")
    tools = suite / "anthropic_messages" / "tools"
    shutil.copy(repo / "cases" / "anthropic_messages" / "tools" / "recorded.json", tools)
    (suite / "suite.yaml").write_text(f"version: 1\nname: readme\ncassettes: {repo / 'cassettes'}\n"
                                      "rules: ['rules/*.rules.yaml']\n")
    (suite / "anthropic_messages" / "example.cases.yaml").write_text(readme_case_file(repo))
    got = harness_main("run", str(suite), "--out", str(tmp_path / "out"), cwd=tmp_path)  # what it prints is the point
    assert got.returncode == 0, got.stdout + got.stderr
    assert "0 failing" in got.stdout and "1 declared" in got.stdout
