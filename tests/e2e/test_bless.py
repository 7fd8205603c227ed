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
from tests.e2e.inproc import harness_main

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
    got = harness_main("bless", "--run", str(tmp_path), cwd=tmp_path)
    assert got.returncode == ExitCode.BAD_INPUT and "a case id or glob, or --all" in got.stderr


@pytest.mark.expensive  # three runs; tests/unit/evidence/test_accept.py holds the same grouping, cheaply
def test_bless_all_writes_one_block_per_case_and_change_that_loads_once_its_reasons_are_written(
        tmp_path: Path) -> None:
    # the scenario: `strict: true` added to every tool, 2 cases x 16 lanes sharing the path
    # (bless wrote 32 per-lane blocks and 32 `why: TODO`); a third case differs on some lanes only
    lanes = [f"lane-{i:02}" for i in range(16)]
    (tmp_path / "suite.yaml").write_text('version: 1\nname: strict\ncases: ["*.cases.yaml"]\nlanes: ["lanes.yaml"]\n'
                                         'subjects:\n  s: {old: "pipes:old", new: "pipes:new", wires: [w]}\n')
    (tmp_path / "lanes.yaml").write_text("version: 1\nlanes:\n" + "".join(
        f"  - {{id: {lane}, wire: w, provider: none}}\n" for lane in lanes))
    (tmp_path / "s.cases.yaml").write_text("version: 1\nsubject: s\ncases:\n" + "".join(
        f"  - id: {case}\n    tools: [{{name: {case}, description: d, input_schema: {{type: object}}}}]\n"
        for case in ("first", "second", "some-lanes")))
    (tmp_path / "pipes.py").write_text(
        "def old(inp, lane):\n    return {'tools': inp['tools']}\n\n\n"
        "def new(inp, lane):\n    strict = inp['tools'][0]['name'] != 'some-lanes' or lane['id'] < 'lane-04'\n"
        "    return {'tools': [dict(t, strict=True) if strict else t for t in inp['tools']]}\n")
    out = str(tmp_path / "reports")
    assert harness_main("run", str(tmp_path), "--no-pins", "--no-rejections", "-q", "--out", out).returncode == 1
    got = harness_main("bless", "--all", "--run", out, "--suite", str(tmp_path))
    assert got.returncode == 0, got.stderr
    text = (tmp_path / "s.cases.yaml").read_text()
    assert text.count("why: TODO") == 3 and text.count("diverges:") == 3  # one block per case and change
    assert 's.cases.yaml:4: first on every lane ("*"): diverges at tools[0].strict' in got.stdout
    assert "some-lanes on lane-00, lane-01, lane-02, lane-03: diverges at tools[0].strict" in got.stdout
    refused = harness_main("run", str(tmp_path), "--no-pins", "--no-rejections", "-q", "--out", out)
    assert refused.returncode == ExitCode.BAD_INPUT and "'TODO'" in refused.stderr
    (tmp_path / "s.cases.yaml").write_text(text.replace("why: TODO", "why: every tool is strict now"))
    again = harness_main("run", str(tmp_path), "--no-pins", "--no-rejections", "-q", "--out", out)
    assert again.returncode == ExitCode.OK, again.stdout + again.stderr
