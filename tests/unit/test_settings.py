"""suite.yaml's settings: parsed once into a frozen, typed value whose defaults are written once,
read the same by the loader and by the commands that read suite.yaml without loading cases."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from harness import Case, Settings, Suite, load_suite
from harness._reject.cassettes import suite_settings
from harness._settings import DEFAULT_SETTINGS

SUITE = """version: 1
name: typed
lanes: lanes/*.yaml
timeout_s: 3
memory_mb: 256
fail_on_rejections: any
pin_sets: {round-1: [a::b]}
subjects:
  echo: {old: "echo_pipes:old", new: "echo_pipes:new", wires: [echo]}
"""
LANES = "version: 1\nlanes:\n  - {id: one, wire: echo, provider: p}\n"
PIPES = "def old(i, lane):\n    return i\n\n\ndef new(i, lane):\n    return i\n"
CASES = "version: 1\nsubject: echo\ncases:\n  - id: fine\n    tools: [{name: t}]\n"


@pytest.fixture
def suite_folder(tmp_path: Path) -> Path:
    (tmp_path / "lanes").mkdir()
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "lanes" / "l.yaml").write_text(LANES)
    (tmp_path / "echo_pipes.py").write_text(PIPES)
    (tmp_path / "x.cases.yaml").write_text(CASES)
    return tmp_path


def test_a_suite_yaml_that_sets_nothing_reads_as_the_dataclass_defaults() -> None:
    empty = Settings.parse({})
    assert empty == Settings() == DEFAULT_SETTINGS
    assert (empty.timeout_s, empty.memory_mb, empty.cassettes, empty.fail_on_rejections) == (10.0, None, None,
                                                                                              "introduced")
    assert empty.rules is None and "rules" not in empty  # not said: the suite's own, else the bundled catalog
    assert "memory_mb" not in empty and empty.get("cassettes") is None  # unset stays unset by key


def test_a_loaded_suite_carries_its_settings_typed_and_frozen(suite_folder: Path) -> None:
    settings = load_suite(suite_folder).settings
    assert isinstance(settings, Settings)
    assert settings.timeout_s == 3.0 and isinstance(settings.timeout_s, float)
    assert settings.memory_mb == 256.0 and settings.lanes == ("lanes/*.yaml",)
    assert settings.fail_on_rejections == "any" and settings.pin_sets == {"round-1": ("a::b",)}
    assert settings.name == "typed" and set(settings.subjects) == {"echo"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.timeout_s = 1.0  # type: ignore[misc]


def test_the_catalog_commands_read_the_same_settings_as_the_loader(suite_folder: Path) -> None:
    assert suite_settings(suite_folder) == load_suite(suite_folder).settings


def test_a_command_line_override_is_a_new_value_and_the_old_one_is_unchanged(suite_folder: Path) -> None:
    settings = load_suite(suite_folder).settings
    changed = settings.updated(fail_on_rejections="introduced", matrix=["1.0", "2.0"])
    assert (changed.fail_on_rejections, changed.matrix, changed.timeout_s) == ("introduced", ("1.0", "2.0"), 3.0)
    assert settings.fail_on_rejections == "any" and settings.matrix == ()


def test_a_suite_built_with_a_plain_mapping_gets_parsed_settings() -> None:
    suite = Suite(root="/x", name="s", lanes={}, subjects={}, cases=(), settings={"timeout_s": 2})
    assert isinstance(suite.settings, Settings) and suite.settings.timeout_s == 2.0
    assert suite.settings["cases"] == ["**/*.cases.yaml"]


def test_a_case_is_found_by_id_in_a_dict_built_once() -> None:
    cases = tuple(Case(id=f"c{i}", subject="s", file="f", line=None, title="", input={}, lanes=(), expect={},
                       checks=frozenset(), pins=()) for i in range(3))
    suite = Suite(root="/x", name="s", lanes={}, subjects={}, cases=cases)
    assert suite.case("c2") is cases[2] and suite.case("c0") is cases[0]
    assert suite._by_id is suite._by_id and len(suite._by_id) == 3
    with pytest.raises(KeyError):
        suite.case("missing")
