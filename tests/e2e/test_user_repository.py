"""A suite in a user's own repository, outside this one: its pipelines import the user's package
from the project root without PYTHONPATH; its bodies are checked against the bundled catalog
with no file copied; a rules setting that finds nothing is an error naming the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

ROOT_ONEOF = "{type: object, oneOf: [{required: [a]}, {required: [b]}]}"


def _project(tmp_path: Path, package: str, *, src: bool, ships: str = "verbatim") -> Path:
    """A git-less project: pyproject.toml, the user's package (flat or src layout) whose
    ``client.body`` builds an Anthropic Messages body, and a suite in ``cases/`` naming it."""
    root = tmp_path / "repo"
    code = (root / "src" if src else root) / package
    code.mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "{package}"\nversion = "0"\n')
    (code / "__init__.py").write_text("")
    (code / "client.py").write_text(
        "def body(inp, lane):\n"
        "    tools = [{'name': t['name'], 'input_schema': t['input_schema']} for t in inp['tools']]\n"
        "    return {'model': lane['model'], 'max_tokens': 64, 'tools': tools, 'messages': []}\n")
    suite = root / "cases"
    suite.mkdir()
    (suite / "suite.yaml").write_text(
        f"version: 1\nname: users\nsubjects:\n  mine:\n    old: {package}.client:body\n"
        f"    new: {package}.client:body\n    wires: [anthropic-messages]\n")
    (suite / "lanes.yaml").write_text(
        "version: 1\nlanes:\n  - {id: claude, wire: anthropic-messages, provider: anthropic, "
        "base_url: 'https://api.anthropic.com', model: claude-sonnet-4-5, fronts: [anthropic]}\n")
    schema = ROOT_ONEOF if ships == "root-oneof" else "{type: object, properties: {a: {type: string}}}"
    (suite / "mine.cases.yaml").write_text(
        f"version: 1\nsubject: mine\ncases:\n  - id: one-tool\n    tools: [{{name: t, input_schema: {schema}}}]\n")
    return root


@pytest.mark.parametrize(("package", "src"), [("flatpkg", False), ("srcpkg", True)])
def test_a_suite_imports_the_users_package_from_the_project_root_without_pythonpath(
        tmp_path: Path, package: str, src: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTHONPATH", raising=False)
    root = _project(tmp_path, package, src=src)
    done = harness_main("run", "cases", "--workers", "1", "-q", "--no-pins", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_root_oneof_to_anthropic_outside_this_repository_meets_the_bundled_recorded_rejection(
        tmp_path: Path) -> None:
    root = _project(tmp_path, "oneofpkg", src=False, ships="root-oneof")
    # old and new ship the same union: the rejection persists, and `any` makes it fail the run
    done = harness_main("run", "cases", "--workers", "1", "--no-pins", "--fail-on-rejections", "any", cwd=root)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "REJECTED anthropic.root-composition on claude (new)" in done.stdout


def test_rules_globs_that_find_nothing_stop_the_run_with_the_fix_named(tmp_path: Path) -> None:
    root = _project(tmp_path, "zeropkg", src=False, ships="root-oneof")
    with (root / "cases" / "suite.yaml").open("a") as suite_yaml:
        suite_yaml.write("rules: [rules/*.rules.yaml]\n")
    done = harness_main("run", "cases", "--workers", "1", "--no-pins", cwd=root)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "at rules:" in done.stderr and "rules: none" in done.stderr
    assert not (root / "reports").exists()  # stopped before a run folder was made
