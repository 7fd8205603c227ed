"""A credential a pipeline leaks (in an error or in its output) never reaches a report or the terminal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main_on_fds

pytestmark = pytest.mark.slow

KEY = "sk-ant-api03-" + "Q" * 24 + "leakcheck"


def test_a_leaked_key_is_redacted_from_every_report_and_output(tmp_path: Path, scenarios: Path) -> None:
    suite = tmp_path / "leaky"
    shutil.copytree(scenarios / "suites" / "leaky", suite)
    got = harness_main_on_fds("run", str(suite), "--out", str(tmp_path / "out"), cwd=tmp_path,
                              env={"LEAKY_API_KEY": KEY})
    assert got.returncode == 1, got.stderr  # the run still fails: the leak is a divergence and an error
    assert KEY not in got.stdout and KEY not in got.stderr
    assert "debug: calling upstream with key [REDACTED:" in got.stderr  # what pipelines print still shows
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"report.json", "report.md", "junit.xml"}
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path.name
    assert "[REDACTED:" in (tmp_path / "out" / "latest" / "report.md").read_text()
