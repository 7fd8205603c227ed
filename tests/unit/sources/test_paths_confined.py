"""Tool sources and suite globs stay inside the suite folder unless suite.yaml names a root."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness._errors import InputError, InputErrors
from harness._load.suite import load_suite

TOOLS = [{"name": "outside", "description": "d", "input_schema": {"type": "object"}}]


def _suite(tmp_path: Path, scenarios: Path, source: str, settings: str = "") -> Path:
    suite = tmp_path / "work" / "hostile"
    shutil.copytree(scenarios / "suites" / "hostile", suite)
    (tmp_path / "work" / "outside.json").write_text(json.dumps(TOOLS))
    (suite / "suite.yaml").write_text((suite / "suite.yaml").read_text() + settings)
    (suite / "hostile.cases.yaml").write_text(
        f"version: 1\nsubject: hostile\ncases:\n  - id: reads\n    tools: {{file: {source}}}\n")
    return suite


def _refusal(suite: Path) -> str:
    with pytest.raises((InputError, InputErrors)) as caught:
        load_suite(suite)
    return str(caught.value)


def test_a_parent_relative_tool_file_is_refused_naming_the_case(tmp_path: Path, scenarios: Path) -> None:
    said = _refusal(_suite(tmp_path, scenarios, "../outside.json"))
    assert "hostile.cases.yaml" in said and "resolves outside" in said


def test_an_absolute_tool_file_outside_the_suite_is_refused(tmp_path: Path, scenarios: Path) -> None:
    said = _refusal(_suite(tmp_path, scenarios, str(tmp_path / "work" / "outside.json")))
    assert "resolves outside" in said


def test_a_symlink_inside_the_suite_pointing_outside_is_refused(tmp_path: Path, scenarios: Path) -> None:
    suite = _suite(tmp_path, scenarios, "tools.json")
    (suite / "tools.json").symlink_to(tmp_path / "work" / "outside.json")
    assert "resolves outside" in _refusal(suite)


def test_a_root_named_in_read_roots_may_be_read(tmp_path: Path, scenarios: Path) -> None:
    suite = _suite(tmp_path, scenarios, "../outside.json", settings="read_roots: ['..']\n")
    assert load_suite(suite).cases[0].input["tools"] == TOOLS


def test_an_absolute_cases_glob_is_bad_input_not_an_internal_error(tmp_path: Path, scenarios: Path) -> None:
    suite = _suite(tmp_path, scenarios, "tools.json", settings=f"cases: ['{tmp_path}/*.cases.yaml']\n")
    assert "absolute pattern" in _refusal(suite)


def test_a_cases_glob_reaching_outside_the_suite_is_refused(tmp_path: Path, scenarios: Path) -> None:
    suite = _suite(tmp_path, scenarios, "tools.json", settings="cases: ['../*/*.cases.yaml']\n")
    (suite / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "work" / "other").mkdir()
    shutil.copy(suite / "hostile.cases.yaml", tmp_path / "work" / "other" / "evil.cases.yaml")
    assert "resolves outside" in _refusal(suite)


@pytest.mark.parametrize("key", ["rules", "ledgers"])
def test_an_absolute_rules_or_ledgers_glob_is_bad_input_not_an_internal_error(
        tmp_path: Path, scenarios: Path, key: str) -> None:
    from harness._mutate.ledger import check_ledgers
    from harness._reject.rules import rules_of_suite

    suite = _suite(tmp_path, scenarios, "tools.json", settings=f"{key}: ['{tmp_path}/*.yaml']\n")
    (suite / "tools.json").write_text(json.dumps(TOOLS))
    loaded = load_suite(suite)
    with pytest.raises((InputError, InputErrors), match="absolute pattern"):
        if key == "rules":
            rules_of_suite(suite, loaded.settings)
        else:
            check_ledgers(loaded)
