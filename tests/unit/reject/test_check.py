"""`harness cassettes check`: passes on a consistent folder, and names each kind of inconsistency."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from harness._cli.main import cli
from harness._reject.cassettes import load_catalog
from harness._reject.check import check_catalog
from tests.unit.reject.scenario import GOOD_BODY, RULE, bundled_catalog, write_scenario


def _kinds(suite: Path) -> list[str]:
    catalog = load_catalog(suite, {"rules": ["rules/*.rules.yaml"], "cassettes": "cassettes"})
    return [p.kind for p in check_catalog(catalog).problems]


def test_a_consistent_scenario_passes(tmp_path: Path) -> None:
    assert _kinds(write_scenario(tmp_path)) == []


def test_a_rule_that_does_not_fire_on_its_recorded_body_is_reported(tmp_path: Path) -> None:
    clean = {"model": "m", "tools": [GOOD_BODY["tools"][0]]}
    assert _kinds(write_scenario(tmp_path, body=clean)) == ["rule-does-not-fire"]


def test_a_message_the_rule_pattern_does_not_match_is_reported(tmp_path: Path) -> None:
    suite = write_scenario(tmp_path, message="tools.1.custom.input_schema: something else entirely")
    assert _kinds(suite) == ["message-mismatch"]


def test_a_message_naming_another_place_than_where_the_rule_fires_is_reported(tmp_path: Path) -> None:
    moved = "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"
    assert _kinds(write_scenario(tmp_path, message=moved)) == ["wrong-place"]


def test_a_message_naming_two_places_where_the_rule_fires_at_one_is_reported(tmp_path: Path) -> None:
    both = ("tools.1.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level\n"
            "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level")
    assert _kinds(write_scenario(tmp_path, message=both)) == ["wrong-place"]


def test_a_transcription_presented_as_a_live_recording_is_reported(tmp_path: Path) -> None:
    assert _kinds(write_scenario(tmp_path, entry={"request_body": "recorded"})) == ["provenance"]


def test_a_rejection_backed_by_a_synthetic_example_is_reported(tmp_path: Path) -> None:
    synthetic = {"provenance": {"kind": "synthetic", "note": "made up"}}
    assert _kinds(write_scenario(tmp_path, entry=synthetic)) == ["provenance"]


def test_a_template_that_never_names_a_place_is_reported(tmp_path: Path) -> None:
    rule = {**RULE, "location": ["functions[{0}].parameters"]}
    assert _kinds(write_scenario(tmp_path, rule=rule)) == ["wrong-place"]


def test_an_accepted_body_that_sets_off_a_rule_is_reported(tmp_path: Path) -> None:
    assert _kinds(write_scenario(tmp_path, accepted_body=GOOD_BODY)) == ["accepted-fires"]


def test_a_clean_accepted_body_passes(tmp_path: Path) -> None:
    clean = {"model": "m", "tools": [GOOD_BODY["tools"][0]]}
    assert _kinds(write_scenario(tmp_path, accepted_body=clean)) == []


def test_a_rejection_recorded_with_a_success_status_is_reported(tmp_path: Path) -> None:
    assert _kinds(write_scenario(tmp_path, status=200)) == ["status-mismatch"]


def test_an_interaction_naming_an_unknown_rule_is_reported(tmp_path: Path) -> None:
    kinds = _kinds(write_scenario(tmp_path, entry={"rule": "demo.nothing"}))
    assert kinds == ["unknown-rule", "rule-without-receipt"]


def test_a_rule_no_receipt_backs_is_reported(tmp_path: Path) -> None:
    rule = {**RULE, "receipts": ["D1", "D9"]}
    assert _kinds(write_scenario(tmp_path, rule=rule)) == ["rule-without-receipt"]


def test_a_rule_whose_only_receipt_is_absent_names_that_receipt_and_its_place(tmp_path: Path) -> None:
    suite = write_scenario(tmp_path)
    (suite / "cassettes" / "manifest.yaml").unlink()
    (suite / "cassettes" / "demo" / "demo.yaml").unlink()
    catalog = load_catalog(suite, {"rules": ["rules/*.rules.yaml"], "cassettes": "cassettes"})
    [problem] = check_catalog(catalog).problems
    assert problem.kind == "rule-without-receipt" and problem.detail.startswith("'D1', which is not in ")
    assert problem.place is not None and problem.place.path == "rules[0].receipts[0]"


def test_an_interaction_the_manifest_does_not_describe_is_reported(tmp_path: Path) -> None:
    assert _kinds(write_scenario(tmp_path, extra_interaction=True)) == ["unlisted"]


def test_a_cassette_holding_a_credential_is_reported(tmp_path: Path) -> None:
    suite = write_scenario(tmp_path, header=("x-api-key", "sk-ant-api03-" + "A" * 40))
    assert "secret" in _kinds(suite)


def test_the_command_exits_2_and_names_the_problem(tmp_path: Path) -> None:
    suite = write_scenario(tmp_path, status=200)
    result = CliRunner().invoke(cli, ["cassettes", "check", "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == 2
    assert "status-mismatch" in result.output


def test_the_command_exits_0_and_says_ok_on_a_consistent_folder(tmp_path: Path) -> None:
    suite = write_scenario(tmp_path)
    result = CliRunner().invoke(cli, ["cassettes", "check", "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == 0, result.output
    assert "cassettes check: ok" in result.output


def test_the_bundled_catalog_passes_the_check() -> None:
    """Every kind of problem, on the catalog the rejection stage loaded once for this worker (the
    command's own loading and printing are the tests above, on the scenario)."""
    catalog = bundled_catalog()
    result = check_catalog(catalog)
    assert [str(p) for p in result.problems] == []
    assert result.rules == len(catalog.rules.rules) > 80 and result.rejected > 100


@pytest.mark.parametrize(("key", "value"), [("message", "(unclosed"), ("select", "tools[[x"),
                                          ("rejects", {"$ref": "#/nope"})])
def test_a_broken_rule_is_one_clear_input_error(tmp_path: Path, key: str, value: Any) -> None:
    suite = write_scenario(tmp_path, rule={**RULE, key: value})
    lines = (suite / "rules" / "demo.rules.yaml").read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.lstrip("- ").startswith(f"{key}:"))
    result = CliRunner().invoke(cli, ["cassettes", "check", "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == 2, result.output
    assert "internal error" not in result.output
    assert "1 input error(s)" in result.output
    assert f"demo.rules.yaml:{line} at rules[0].{key}: expected " in result.output


def _break_response(suite: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = suite / "cassettes" / "demo" / "demo.yaml"
    data = yaml.safe_load(path.read_text())
    change(data["interactions"][0]["response"])
    path.write_text(yaml.safe_dump(data, sort_keys=False))


MALFORMED: dict[str, tuple[Callable[[dict[str, Any]], None], str, str]] = {
    "no status": (lambda r: r.pop("status"), "interactions[0].response.status", "the key is missing"),
    "a bare string body": (lambda r: r.update(body="just-a-string"), "interactions[0].response.body",
                           "'just-a-string'"),
    "a word for a code": (lambda r: r["status"].update(code="four"), "interactions[0].response.status.code",
                          "'four'"),
    "a boolean for a code": (lambda r: r["status"].update(code=True), "interactions[0].response.status.code",
                             "bool True"),
    "a status that is a number": (lambda r: r.update(status=400), "interactions[0].response.status", "int 400"),
    "a body without its string": (lambda r: r.update(body={"text": "x"}), "interactions[0].response.body",
                                  "{'text': 'x'}"),
    "no headers": (lambda r: r.pop("headers"), "interactions[0].response.headers", "the key is missing"),
}


def _break_interaction(suite: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = suite / "cassettes" / "demo" / "demo.yaml"
    data = yaml.safe_load(path.read_text())
    change(data["interactions"][0])
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _set_key(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(interaction: dict[str, Any]) -> None:
        interaction[key] = value
    return change


def _set_request(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(interaction: dict[str, Any]) -> None:
        interaction["request"][key] = value
    return change


WRONG_SHAPES: dict[str, tuple[Callable[[dict[str, Any]], None], str, str]] = {
    "a number for the method": (_set_request("method", 5), "interactions[0].request.method", "int 5"),
    "a string for the response": (_set_key("response", "HTTP 400"), "interactions[0].response", "str 'HTTP 400'"),
}


@pytest.mark.parametrize("broken", sorted(WRONG_SHAPES))
def test_a_cassette_request_or_response_of_the_wrong_shape_is_bad_input_naming_its_place(
        tmp_path: Path, broken: str) -> None:
    change, key_path, found = WRONG_SHAPES[broken]
    suite = write_scenario(tmp_path)
    _break_interaction(suite, change)
    result = CliRunner().invoke(cli, ["cassettes", "check", "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == 2, result.output
    assert "internal error" not in result.output
    assert f"demo.yaml at {key_path}: expected " in result.output
    assert found in result.output


@pytest.mark.parametrize("broken", sorted(MALFORMED))
def test_a_malformed_cassette_is_bad_input_naming_file_interaction_and_shape(tmp_path: Path, broken: str) -> None:
    change, key_path, found = MALFORMED[broken]
    suite = write_scenario(tmp_path)
    _break_response(suite, change)
    result = CliRunner().invoke(cli, ["cassettes", "check", "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == 2, result.output
    assert "internal error" not in result.output
    assert f"demo.yaml at {key_path}: expected " in result.output
    assert found in result.output


def test_harness_run_refuses_a_suite_whose_cassette_is_malformed_as_bad_input(tmp_path: Path) -> None:
    from tests.unit.reject.scenario import write_suite

    suite = write_suite(tmp_path, None)
    _break_response(suite, lambda r: r.update(body="just-a-string"))
    result = CliRunner().invoke(cli, ["run", str(suite), "--out", str(tmp_path / "out")], standalone_mode=False)
    assert result.return_value == 2, result.output
    assert "internal error" not in result.output
    assert "demo.yaml at interactions[0].response.body: expected a mapping" in result.output


@pytest.mark.parametrize("given", ["missing", "empty-folder", "a-file"])
def test_a_suite_argument_that_is_no_suite_folder_is_bad_input_not_ok_0_rules(tmp_path: Path, given: str) -> None:
    suite = tmp_path / "given"
    if given == "empty-folder":
        suite.mkdir()
    elif given == "a-file":
        suite.write_text("not a folder\n")
    result = CliRunner().invoke(cli, ["cassettes", "check", "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == 2, result.output
    assert "expected a suite folder" in result.output and "--suite" in result.output
    assert "ok" not in result.output.split("expected")[0]


@pytest.mark.parametrize("holding", ["suite.yaml", "cassettes", "rules"])
def test_a_folder_with_a_suite_yaml_a_cassettes_folder_or_only_rules_files_is_taken_as_a_suite(
        tmp_path: Path, holding: str) -> None:
    from harness._reject.cassettes import ensure_suite_folder

    suite = tmp_path / "given"
    suite.mkdir()
    {"suite.yaml": lambda: (suite / "suite.yaml").write_text("version: 1\n"),
     "cassettes": lambda: (suite / "cassettes").mkdir(),
     "rules": lambda: (suite / "demo.rules.yaml").write_text("rules: []\n")}[holding]()
    ensure_suite_folder(suite)  # no ConfigError: a folder holding any of them is a suite


def test_a_cassettes_setting_naming_a_missing_folder_is_one_error_at_that_setting(tmp_path: Path) -> None:
    suite = write_scenario(tmp_path)
    (suite / "suite.yaml").write_text("version: 1\nrules: ['rules/*.rules.yaml']\ncassettes: cassetes\n")
    result = CliRunner().invoke(cli, ["cassettes", "check", "--suite", str(suite)], standalone_mode=False)
    assert result.return_value == 2, result.output
    assert result.output.count("expected") == 1 and "rule-without-receipt" not in result.output
    assert "suite.yaml:3 at cassettes: expected a cassettes folder that exists" in result.output
    assert "'cassetes'" in result.output


def test_a_cassettes_option_naming_a_missing_folder_is_a_bad_argument(tmp_path: Path) -> None:
    suite = write_scenario(tmp_path)
    result = CliRunner().invoke(cli, ["cassettes", "check", "--suite", str(suite), "--cassettes",
                                      str(tmp_path / "nope")], standalone_mode=False)
    assert result.return_value == 2, result.output
    assert "--cassettes" in result.output and "an existing cassettes folder" in result.output
