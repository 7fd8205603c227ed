"""The capture server answers from the suite's own catalog: the rules and cassettes its suite.yaml
names, and the rules stage's default glob when it names none."""

from __future__ import annotations

import shutil
from pathlib import Path

from harness._pipeline.capture.answers import suite_catalog

REPO = Path(__file__).resolve().parents[3]


def _suite(tmp_path: Path, settings: str) -> Path:
    folder = tmp_path / "suite"
    shutil.copytree(REPO / "cases" / "rules", folder / "rules")
    (folder / "suite.yaml").write_text(f"version: 1\ncassettes: {REPO / 'cassettes'}\n{settings}")
    return folder


def test_an_empty_rules_list_reads_the_default_glob_like_the_rules_stage(tmp_path: Path) -> None:
    bundled = {rule.id for rule in suite_catalog(str(REPO / "cases")).rules.rules}
    assert bundled
    assert {rule.id for rule in suite_catalog(str(_suite(tmp_path, "rules: []\n"))).rules.rules} == bundled


def test_the_rules_a_suite_names_are_the_ones_it_answers_from(tmp_path: Path) -> None:
    one = sorted((REPO / "cases" / "rules").glob("*.rules.yaml"))[0].name
    catalog = suite_catalog(str(_suite(tmp_path, f"rules: [rules/{one}]\n")))
    assert 0 < len(catalog.rules.rules) < len(suite_catalog(str(REPO / "cases")).rules.rules)
