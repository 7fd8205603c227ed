"""A run folder handed to `show`, `bless` or `--baseline` that is corrupt, hostile or from another
version of the harness is one clear ConfigError (exit 2), never an internal error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import ConfigError
from harness._evidence.runs import load_report
from harness._report.validate import validate_report

SCENARIO = Path(__file__).parents[2] / "scenarios" / "reports" / "small.report.json"


def _folder(tmp_path: Path, text: str) -> Path:
    (tmp_path / "report.json").write_text(text, encoding="utf-8")
    return tmp_path


def _changed(change: Any) -> str:
    report = json.loads(SCENARIO.read_text(encoding="utf-8"))
    change(report)
    return json.dumps(report)


def test_a_valid_report_loads_as_written(tmp_path: Path) -> None:
    text = SCENARIO.read_text(encoding="utf-8")
    assert load_report(_folder(tmp_path, text), validate_report) == json.loads(text)


@pytest.mark.parametrize(("name", "text", "named"), [
    ("nested past python's recursion limit", "[" * 100_000 + "]" * 100_000, "recursion"),
    ("rows that are a string", _changed(lambda r: r.__setitem__("differential", "x")), "differential"),
    ("rows that are null", _changed(lambda r: r.__setitem__("differential", [None])), "differential/0"),
    ("rejections that are a string", _changed(lambda r: r.__setitem__("rejections", "x")), "rejections"),
    ("another report version", _changed(lambda r: r.__setitem__("version", 0)), "version"),
    ("a row missing its verdict", _changed(lambda r: r["differential"][0].pop("verdict")), "differential/0"),
])
def test_a_corrupt_or_foreign_report_is_one_config_error_naming_the_place(
        tmp_path: Path, name: str, text: str, named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_report(_folder(tmp_path, text), validate_report, "--baseline")
    message = str(caught.value)
    assert "--baseline" in message and "report.json" in message and named in message, (name, message)
