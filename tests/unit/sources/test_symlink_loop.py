"""A file a suite names that is a symlink loop (`tools.json -> tools.json`) is one InputError at the
place that names it, never an internal error (Path.resolve raises RuntimeError on Python 3.11,
OSError on 3.13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._common.files import confined, resolve_path
from harness._errors import InputError, Place


def _loop(tmp_path: Path) -> Path:
    link = tmp_path / "tools.json"
    link.symlink_to(link)
    return link


def test_a_symlink_loop_named_by_a_case_is_an_input_error_at_its_place(tmp_path: Path) -> None:
    _loop(tmp_path)
    place = Place("x.cases.yaml", 5, "cases[0].tools")
    for roots in ((tmp_path.resolve(),), None):
        with pytest.raises(InputError) as caught:
            resolve_path("tools.json", tmp_path, place, roots)
        assert str(caught.value).startswith("x.cases.yaml:5 at cases[0].tools: expected")
        assert "'tools.json'" in str(caught.value) and "symlink loop" in str(caught.value)


def test_confining_a_symlink_loop_names_the_path_as_written(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="symlink loop"):
        confined(_loop(tmp_path), [tmp_path.resolve()], Place("suite.yaml"), "tools.json")
