"""`harness mutate --baseline DIR` with a mutation.json that is corrupt, hand-edited or from
another version: one ConfigError naming --baseline and the file, never an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._baseline import load_mutation_baseline
from harness._errors import ConfigError
from harness._report.validate import validate_mutation, validate_report


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,
    json.dumps({"mutants": "x"}),
    json.dumps({"mutants": [None]}),
    json.dumps({"mutants": [{"kind": "operator"}]}),
    "[]",
], ids=["nested-too-deep", "mutants-a-string", "mutant-null", "mutant-without-its-fields", "an-array"])
def test_a_corrupt_mutation_json_is_one_config_error_naming_the_baseline(tmp_path: Path, text: str) -> None:
    (tmp_path / "mutation.json").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_mutation_baseline(tmp_path, validate_report, validate_mutation)
    assert "--baseline" in str(caught.value) and "mutation.json" in str(caught.value)
    assert "report.json" not in str(caught.value)


def test_a_run_folder_as_baseline_gives_its_mutation_section(tmp_path: Path) -> None:
    scenario = Path(__file__).parents[2] / "scenarios" / "reports" / "small.report.json"
    (tmp_path / "report.json").write_text(scenario.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_mutation_baseline(tmp_path, validate_report, validate_mutation) == (str(tmp_path), None)
