"""A suite's globs: relative to its folder, and a match that resolves outside the folders it may
read is refused, named as the suite wrote it."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._common.files import read_roots, suite_files
from harness._errors import InputError, Place
from harness._settings import Settings

PLACE = Place("suite.yaml", 3, "cases")


def test_an_absolute_glob_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="expected globs relative to the suite folder, found the absolute pattern"):
        suite_files(tmp_path, ["*.yaml", str(tmp_path / "*.yaml")], PLACE)


def test_a_match_through_a_link_to_outside_is_refused_by_its_name_in_the_suite(tmp_path: Path) -> None:
    suite, outside = tmp_path / "suite", tmp_path / "outside"
    suite.mkdir()
    outside.mkdir()
    (outside / "x.cases.yaml").write_text("")
    (suite / "a.cases.yaml").write_text("")
    (suite / "link.cases.yaml").symlink_to(outside / "x.cases.yaml")
    assert suite_files(suite, ["*.cases.yaml"], PLACE) == sorted([suite / "a.cases.yaml", outside / "x.cases.yaml"])
    with pytest.raises(InputError, match=r"found '.*outside/x\.cases\.yaml', which resolves outside them"):
        suite_files(suite, ["*.cases.yaml"], PLACE, read_roots(suite, Settings()))
    roots = read_roots(suite, Settings.parse({"read_roots": ["../outside"]}))
    assert roots == (suite.resolve(), outside.resolve())
    assert len(suite_files(suite, ["*.cases.yaml"], PLACE, roots)) == 2
