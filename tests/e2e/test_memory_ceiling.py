"""``memory_mb`` in suite.yaml: a pipeline that takes more address space than that, on top of
its worker, ends with the outcome ``memory`` (tests/scenarios/suites/memory_hungry)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness._report.validate import validate_report

pytestmark = pytest.mark.slow


def test_a_pipeline_over_the_memory_ceiling_has_the_outcome_memory_and_one_under_it_runs(
        tmp_path: Path, scenarios: Path) -> None:
    suite = shutil.copytree(scenarios / "suites" / "memory_hungry", tmp_path / "memory_hungry")
    got = subprocess.run([sys.executable, "-m", "harness", "run", str(suite), "--no-pins", "--workers", "1",
                          "--out", str(tmp_path / "out"), "--format", "json", "-q"],
                         capture_output=True, text=True, timeout=300, check=False)
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
    got = subprocess.run([sys.executable, "-m", "harness", "run", str(suite), "--no-pins", "--workers", "1",
                          "--case", "served-*", "--out", str(tmp_path / "out"), "--format", "json", "-q"],
                         capture_output=True, text=True, timeout=300, check=False)
    assert got.returncode == 1, got.stderr
    [row] = json.loads(got.stdout)["differential"]
    assert (row["new"]["outcome"], row["new"]["error"]["type"]) == ("memory", "MemoryError"), row["new"]
