"""Numbers a user writes that the harness acts on are finite and in range, or bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._errors import InputError, InputErrors
from harness._load.suite import load_suite
from harness._mutate.targets import load_settings


@pytest.mark.parametrize(("setting", "line"), [
    ("mutation: {timeout: {floor_s: .nan}}", "floor_s"),
    ("mutation: {timeout: {factor: .inf}}", "factor"),
    ("mutation: {workers: 100000}", "workers"),
    ("timeout_s: .NaN", "timeout_s"),
])
def test_a_non_finite_or_out_of_range_setting_is_bad_input(
        tmp_path: Path, scenarios: Path, setting: str, line: str) -> None:
    suite = tmp_path / "hostile"
    shutil.copytree(scenarios / "suites" / "hostile", suite)
    settings = suite / "suite.yaml"
    settings.write_text(settings.read_text().replace("timeout_s: 5\n", "") + setting + "\n")
    with pytest.raises((InputError, InputErrors)) as caught:
        loaded = load_suite(suite)
        load_settings(Path(loaded.root), loaded.settings)
    assert "suite.yaml" in str(caught.value)
