"""A credential a pipeline leaks (in an error or in its output) never reaches a report or the terminal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

KEY = "sk-ant-api03-" + "Q" * 24 + "leakcheck"


def test_a_leaked_key_is_redacted_from_every_report_and_output(tmp_path: Path, scenarios: Path) -> None:
    suite = tmp_path / "leaky"
    shutil.copytree(scenarios / "suites" / "leaky", suite)
    env = {**os.environ, "LEAKY_API_KEY": KEY}
    got = subprocess.run([sys.executable, "-m", "harness", "run", str(suite), "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env, check=False)
    assert got.returncode == 1, got.stderr  # the run still fails: the leak is a divergence and an error
    assert KEY not in got.stdout and KEY not in got.stderr
    assert "debug: calling upstream with key [REDACTED:" in got.stderr  # what pipelines print still shows
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"report.json", "report.md", "junit.xml"}
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path.name
    assert "[REDACTED:" in (tmp_path / "out" / "latest" / "report.md").read_text()
