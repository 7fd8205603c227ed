"""`harness bless` into a case file that changed since the run into something that is no case file
(malformed YAML, a scalar, a list of strings) or that is a symlink leading out of the suite: one
input error naming the file, nothing written, never an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import HarnessError
from harness._evidence.accept import bless_divergences

ROW = {"case": "flat", "lane": "lane-a", "file": "echo.cases.yaml", "failed": True, "verdict": "unexpected",
       "unexpected_paths": ["model"]}


@pytest.mark.parametrize("text", [
    "version: 1\ncases:\n  - id: flat\ngarbage: [\n",
    "just a line of text\n",
    "version: 1\ncases: [flat, other]\n",
    "version: 1\ncases: flat\n",
], ids=["malformed-yaml", "a-scalar", "cases-that-are-strings", "cases-a-string"])
def test_a_case_file_that_is_no_longer_one_is_an_error_naming_it(tmp_path: Path, text: str) -> None:
    (tmp_path / "echo.cases.yaml").write_text(text)
    with pytest.raises(HarnessError, match=r"echo\.cases\.yaml"):
        bless_divergences(tmp_path, [ROW])
    assert (tmp_path / "echo.cases.yaml").read_text() == text


def test_a_case_file_that_is_a_symlink_out_of_the_suite_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("version: 1\ncases:\n  - id: flat\n    tools: [{name: t}]\n")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "echo.cases.yaml").symlink_to(outside)
    with pytest.raises(HarnessError, match="outside"):
        bless_divergences(suite, [ROW])
    assert "TODO" not in outside.read_text()
