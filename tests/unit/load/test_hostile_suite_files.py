"""Suite folders a hostile or careless user hands the loader: each is one input error naming the
file and the place, never an internal error (exit 70). Found by fuzzing `harness run`."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import HarnessError
from harness._load import load_suite

from .test_suite_errors import GOOD_CASE, make_suite


def test_a_suite_yaml_that_is_a_symlink_to_itself_is_an_input_error_naming_it(tmp_path: Path) -> None:
    root = make_suite(tmp_path, good=GOOD_CASE)
    (root / "suite.yaml").unlink()
    (root / "suite.yaml").symlink_to(root / "suite.yaml")
    with pytest.raises(HarnessError, match=r"suite\.yaml"):
        load_suite(root)


@pytest.mark.parametrize("name", ["a\x00b", "../../elsewhere", "a/b"])
def test_a_suite_name_that_cannot_name_a_run_folder_is_an_input_error_at_name(tmp_path: Path, name: str) -> None:
    root = make_suite(tmp_path, good=GOOD_CASE)
    text = (root / "suite.yaml").read_text().replace("name: scenario", f"name: {name!r}".replace("'", '"'))
    (root / "suite.yaml").write_text(text.replace("\x00", "\\0"))
    with pytest.raises(HarnessError, match="name"):
        load_suite(root)
