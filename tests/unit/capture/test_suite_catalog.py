"""The capture server answers from the suite's own catalog: the rules and cassettes its suite.yaml
names, and the rules stage's default glob when it names none. On the rejection tests' one-rule
scenario (tests/unit/reject/scenario.py) plus a second rules file: loading a copy of the bundled
catalog twice cost about half a CPU second."""

from __future__ import annotations

from pathlib import Path

import yaml

from harness._pipeline.capture.answers import suite_catalog
from harness._reject.cassettes import suite_settings
from harness._reject.rules import rules_of_suite
from tests.unit.reject.scenario import RULE, write_scenario


def _suite(tmp_path: Path, settings: str) -> Path:
    """The scenario's suite with ``settings`` and a second rules file beside demo.rules.yaml."""
    folder = write_scenario(tmp_path)
    other = {**RULE, "id": "demo.other-rule", "message": "something else"}
    (folder / "rules" / "other.rules.yaml").write_text(yaml.safe_dump({"version": 1, "rules": [other]}))
    (folder / "suite.yaml").write_text(f"version: 1\ncassettes: cassettes\n{settings}")
    return folder


def test_an_empty_rules_list_reads_the_default_glob_like_the_rules_stage(tmp_path: Path) -> None:
    folder = _suite(tmp_path, "rules: []\n")
    stage = {rule.id for rule in rules_of_suite(folder, suite_settings(folder)).rules}
    assert stage == {"demo.root-composition", "demo.other-rule"}  # the suite's own files, not the bundled
    assert {rule.id for rule in suite_catalog(str(folder)).rules.rules} == stage


def test_the_rules_a_suite_names_are_the_ones_it_answers_from(tmp_path: Path) -> None:
    catalog = suite_catalog(str(_suite(tmp_path, "rules: [rules/other.rules.yaml]\n")))
    assert [rule.id for rule in catalog.rules.rules] == ["demo.other-rule"]
