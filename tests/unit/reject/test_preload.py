"""preload: a suite's rules, cassettes and declared rejections are checked before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import InputError, InputErrors
from harness._load.suite import load_suite
from harness._reject.preload import declaration_errors, preload
from harness._reject.verdicts import catalog_of
from tests.unit.reject.scenario import RULE, bundled_suite, write_suite

REPO = Path(__file__).resolve().parents[3]


def errors_of(root: Path) -> list[InputError]:
    with pytest.raises(InputErrors) as caught:
        preload(load_suite(root))
    return caught.value.errors


def line_of(root: Path, file: str, text: str) -> int:
    lines = (root / file).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def test_a_consistent_suite_with_a_valid_declaration_preloads_cleanly(tmp_path: Path) -> None:
    root = write_suite(tmp_path, {"rule": "demo.root-composition", "lanes": ["gw"], "why": "trade-off"})
    preload(load_suite(root))


def test_a_declaration_naming_an_unknown_rule_is_bad_input_at_its_key_path(tmp_path: Path) -> None:
    root = write_suite(tmp_path, {"rule": "demo.root-compositon", "lanes": ["gw"], "why": "typo"})
    [error] = errors_of(root)
    assert error.place.file == "demo.cases.yaml"
    assert error.place.path == "cases[1].rejections[0].rule"
    assert error.place.line == line_of(root, "demo.cases.yaml", "rule: demo.root-compositon")
    assert error.expected == "a rule id of the suite's catalog"
    assert "'demo.root-compositon'" in error.found and "did you mean 'demo.root-composition'" in error.found


def test_a_declaration_on_a_lane_the_case_does_not_run_on_is_bad_input(tmp_path: Path) -> None:
    root = write_suite(tmp_path, {"rule": "demo.root-composition", "lanes": ["lane-zzz"], "why": "x"})
    [error] = errors_of(root)
    assert error.place.path == "cases[1].rejections[0].lanes[0]"
    assert "gw, other" in error.expected and error.found == "'lane-zzz'"


def test_a_declaration_on_a_lane_that_does_not_front_the_rules_validator_is_bad_input(tmp_path: Path) -> None:
    root = write_suite(tmp_path, {"rule": "demo.root-composition", "lanes": ["gw", "other"], "why": "x"})
    [error] = errors_of(root)
    assert error.place.path == "cases[1].rejections[0].lanes[1]"
    assert "fronting anthropic" in error.expected and "(gw)" in error.expected
    assert error.found == "'other', which fronts deepseek"


def test_a_rule_listing_a_receipt_the_manifest_lacks_is_bad_input_at_that_receipt(tmp_path: Path) -> None:
    root = write_suite(tmp_path, None, rule={**RULE, "receipts": ["D1", "D404"]})
    [error] = errors_of(root)
    assert (error.place.file, error.place.path) == ("rules/demo.rules.yaml", "rules[0].receipts[1]")
    assert error.place.line == line_of(root, "rules/demo.rules.yaml", "- D404")
    assert "'D404'" in error.found and "manifest.yaml" in error.found


def test_a_broken_rules_file_is_bad_input_naming_the_rule(tmp_path: Path) -> None:
    root = write_suite(tmp_path, None, rule={**RULE, "message": "unclosed (group"})
    [error] = errors_of(root)
    assert (error.place.file, error.place.path) == ("rules/demo.rules.yaml", "rules[0].message")


def test_every_problem_is_reported_in_one_pass(tmp_path: Path) -> None:
    root = write_suite(tmp_path, {"rule": "nope", "why": "x"}, rule={**RULE, "receipts": ["D1", "D404"]})
    assert sorted(e.place.path for e in errors_of(root)) == ["cases[1].rejections[0].rule", "rules[0].receipts[1]"]


def test_every_declaration_of_the_bundled_suite_holds_against_its_catalog() -> None:
    """preload's second half on the bundled suite; its first, the catalog check, is
    test_check.py's test_the_bundled_catalog_passes_the_check (stricter: any problem fails it),
    so the README tier checks the bundled catalog once (about 0.3 CPU s a check)."""
    suite = bundled_suite()
    assert sum(len(case.rejections) for case in suite.cases) > 10  # the suite does declare rejections
    assert declaration_errors(suite, catalog_of(suite)) == []


def test_check_lane_stops_on_a_bad_declaration_before_building(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from harness._cli.main import cli

    root = write_suite(tmp_path, {"rule": "acme.typo", "lanes": ["gw"], "why": "x"})
    result = CliRunner().invoke(cli, ["check-lane", "gw", "--suite", str(root)])
    assert result.exit_code == 2
    assert "demo.cases.yaml" in result.output and "cases[1].rejections[0].rule" in result.output
    assert "'acme.typo'" in result.output


def test_a_suite_whose_rules_globs_find_nothing_is_refused_instead_of_checking_against_no_rules(
        tmp_path: Path) -> None:
    root = write_suite(tmp_path, None)
    (root / "rules" / "demo.rules.yaml").unlink()
    [error] = errors_of(root)
    assert error.place.path == "rules" and "rules: none" in error.expected


def test_a_suite_borrowing_a_shared_catalog_that_says_rules_none_preloads_cleanly(tmp_path: Path) -> None:
    root = write_suite(tmp_path, None)
    (root / "rules" / "demo.rules.yaml").unlink()
    text = (root / "suite.yaml").read_text()
    (root / "suite.yaml").write_text(text.replace("rules:\n- rules/*.rules.yaml\n", "rules: none\n"))
    assert "rules: none" in (root / "suite.yaml").read_text()
    preload(load_suite(root))


def test_a_declaration_without_lanes_on_a_case_no_lane_of_which_fronts_the_validator_is_bad_input(
        tmp_path: Path) -> None:
    from tests.unit.reject.scenario import LANES

    root = write_suite(tmp_path, {"rule": "demo.root-composition", "why": "x"}, lanes=[LANES[1]])
    [error] = errors_of(root)
    assert error.place.path == "cases[1].rejections[0].rule"
    assert "(other)" in error.expected and error.found == "'demo.root-composition', whose validator is anthropic"
