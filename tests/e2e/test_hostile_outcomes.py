"""Pipeline outcomes hostile to the report end one verdict each, never the run (exit 70)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from harness._report.validate import validate_report
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow


def test_deep_output_surrogates_and_escapes_are_verdicts_and_every_file_is_readable(
        tmp_path: Path, scenarios: Path) -> None:
    suite = tmp_path / "hostile"
    shutil.copytree(scenarios / "suites" / "hostile", suite)
    got = harness_main("run", str(suite), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 1, got.stderr
    assert "\x1b" not in got.stdout + got.stderr, "a terminal escape reached the terminal raw"
    folder = tmp_path / "out" / "latest"
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    validate_report(report)
    rows = {r["case"]: r for r in report["differential"]}
    assert rows["deep-output"]["verdict"] == "unexpected"
    assert rows["calm"]["verdict"] == "identical"
    assert "\ufffd" in rows["surrogate-message"]["new"]["error"]["message"]
    assert "\\x1b[2J" in rows["escape-message"]["new"]["error"]["message"]
    ET.parse(folder / "junit.xml")
    assert "\x1b" not in (folder / "report.md").read_text(encoding="utf-8")
