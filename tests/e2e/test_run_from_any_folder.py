"""``harness run`` started in a folder other than the project root: a relative report folder (the
default ``reports/``) is resolved once, before any child starts, so the pins' pytest, which works
in the project root, writes its outcomes into this run's folder and not into a path that names
nothing there (issue 29: ``INTERNALERROR> FileNotFoundError: ... 'reports/<run>/pins.jsonl'``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

PIN = '''
def test_the_new_body_was_built(observe):
    assert observe("c0", "one").ok
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project (pyproject.toml at its root) with its suite in ``cases/``, one Python pin."""
    root = tmp_path / "project"
    suite = root / "cases"
    suite.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    (suite / "suite.yaml").write_text("version: 1\nname: anywhere\nrules: none\n"
                                      "subjects: {plain: {old: 'pipes:body', new: 'pipes:body', wires: [w]}}\n")
    (suite / "lanes.yaml").write_text("version: 1\nlanes: [{id: one, wire: w, provider: p}]\n")
    (suite / "pipes.py").write_text("def body(inp, lane):\n    return {'tools': inp['tools']}\n")
    (suite / "plain.cases.yaml").write_text("version: 1\nsubject: plain\ncases: [{id: c0, tools: [{name: a}]}]\n")
    (suite / "test_built.py").write_text(PIN)
    return root


@pytest.mark.parametrize("where", ["cases", "."])
def test_pins_report_into_the_run_folder_whatever_folder_the_run_started_in(project: Path, where: str) -> None:
    suite = "." if where == "cases" else "cases"
    done = harness_main("run", suite, "--workers", "1", "-q", cwd=project / where)
    assert done.returncode == 0, done.stdout + done.stderr
    run = next((project / where / "reports").glob("*-anywhere-*"))
    streamed = [json.loads(line) for line in (run / "pins.jsonl").read_text().splitlines()]
    assert {"cases/test_built.py::test_the_new_body_was_built": "passed"}.items() <= \
        {row["id"]: row["outcome"] for row in streamed}.items()
    assert not (project / "reports").exists() or where == "."  # nothing written beside the project root
