"""Accepting change on purpose: `harness bless` turns a run's unexpected divergence into a declared
one with `why: TODO`, the suite refuses to load until a person writes the reason, and
`--update-golden` rewrites a stale golden file from the run's new output."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode

pytestmark = pytest.mark.slow

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "mutate" / "cased"
HARNESS = [sys.executable, "-m", "harness"]


def _harness(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HARNESS, *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=300)


def _run(suite: Path) -> subprocess.CompletedProcess[str]:
    return _harness(suite.parent, "run", suite.name, "-q", "--out", "reports")


@pytest.mark.expensive
def test_a_blessed_divergence_needs_a_reason_before_the_suite_loads_again(tmp_path: Path) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    pipes = suite / "echo.py"
    pipes.write_text(pipes.read_text().replace('return {"model": str(model), "tools": inp["tools"]}',
                                               'return {"model": str(model), "tools": inp["tools"], "stream": False}'))
    assert _run(suite).returncode == ExitCode.DIVERGENCE
    before = (suite / "echo.cases.yaml").read_text()
    blessed = _harness(tmp_path, "bless", "plain", "--run", "reports", "--suite", "cased")
    assert blessed.returncode == 0, blessed.stderr
    assert "echo.cases.yaml:4: plain on one: diverges at stream (why: TODO, write the reason)" in blessed.stdout
    after = (suite / "echo.cases.yaml").read_text()
    assert after.startswith(before.split("    expect:")[0])  # untouched above the edited block
    refused = _run(suite)
    assert refused.returncode == ExitCode.BAD_INPUT
    assert re.search(r"echo\.cases\.yaml:1\d at cases\[0\]\.expect\.one\.diverges\.why: .*'TODO'", refused.stderr)
    (suite / "echo.cases.yaml").write_text(after.replace("why: TODO", "why: the new line asks for no stream"))
    assert _run(suite).returncode == ExitCode.OK


@pytest.mark.expensive
def test_update_golden_rewrites_a_stale_golden_file_from_the_new_output(tmp_path: Path) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    cases = suite / "echo.cases.yaml"
    pin = "      - {name: golden_tools, kind: equals, select: tools, file: golden.json}\n"
    cases.write_text(cases.read_text() + pin)
    (suite / "golden.json").write_text('[{"name": "stale"}]\n')
    assert _run(suite).returncode == ExitCode.DIVERGENCE  # the golden pin fails
    got = _harness(tmp_path, "bless", "--all", "--update-golden", "--run", "reports", "--suite", "cased")
    assert got.returncode == 0, got.stderr
    assert "golden file of pin golden_tools rewritten" in got.stdout
    assert json.loads((suite / "golden.json").read_text()) == [
        {"name": "t", "description": "d", "input_schema": {"type": "object"}}]
    assert _run(suite).returncode == ExitCode.OK


def test_bless_needs_a_case_or_all(tmp_path: Path) -> None:
    got = _harness(tmp_path, "bless", "--run", str(tmp_path))
    assert got.returncode == ExitCode.BAD_INPUT and "a case id or glob, or --all" in got.stderr
