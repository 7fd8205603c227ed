"""A suite's settings in pyproject.toml's ``[tool.wire-harness]`` table, and the suite a command
given none runs: ``./suite.yaml``, the folder the table names, else ``./cases``."""

from __future__ import annotations

from contextlib import chdir
from pathlib import Path

import pytest

from harness._cli.args import default_suite
from harness._errors import ConfigError, InputError, InputErrors
from harness._load import load_suite
from harness._settings import read_settings

TABLE = '''[project]
name = "p"

[tool.wire-harness]
suite = "cases"
name = "from-toml"
timeout_s = 3

[tool.wire-harness.subjects.mine]
old = "pipes:body"
new = "pipes:body"
wires = ["w"]
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(TABLE)
    suite = tmp_path / "cases"
    suite.mkdir()
    (suite / "lanes.yaml").write_text("version: 1\nlanes: [{id: one, wire: w, provider: p}]\n")
    (suite / "pipes.py").write_text("def body(inp, lane):\n    return {'tools': inp['tools']}\n")
    (suite / "x.cases.yaml").write_text("version: 1\nsubject: mine\ncases: [{id: c0, tools: [{name: a}]}]\n")
    return tmp_path


def test_a_table_naming_the_suite_folder_is_its_settings(project: Path) -> None:
    suite = load_suite(project / "cases")
    assert (suite.name, suite.settings.timeout_s, set(suite.settings.subjects)) == ("from-toml", 3.0, {"mine"})


def test_a_table_naming_another_folder_leaves_this_one_with_the_defaults(project: Path) -> None:
    other = project / "other"
    other.mkdir()
    settings, doc = read_settings(other)
    assert doc is None and settings.name is None


def test_suite_yaml_and_a_table_for_the_same_folder_is_bad_input_naming_both(project: Path) -> None:
    (project / "cases" / "suite.yaml").write_text("version: 1\n")
    with pytest.raises(InputError) as caught:
        read_settings(project / "cases")
    assert "suite.yaml" in str(caught.value) and "[tool.wire-harness]" in str(caught.value)


def test_a_bad_value_in_the_table_is_named_by_file_and_key_path(project: Path) -> None:
    (project / "pyproject.toml").write_text(TABLE.replace('name = "from-toml"', "name = 5"))
    with pytest.raises(InputErrors) as caught:
        read_settings(project / "cases")
    [error] = caught.value.errors
    assert "[tool.wire-harness]" in error.place.file and error.place.path == "name"


def test_pyproject_toml_that_is_not_toml_is_bad_input_naming_it(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.wire-harness\n")
    with pytest.raises(InputError) as caught:
        read_settings(project / "cases")
    assert caught.value.place.file.endswith("pyproject.toml") and "TOML" in caught.value.expected


@pytest.mark.parametrize(("files", "found"), [
    ({"suite.yaml": "version: 1\n", "cases/suite.yaml": "version: 1\n"}, "."),
    ({"pyproject.toml": '[tool.wire-harness]\nsuite = "wire"\n', "cases/suite.yaml": "version: 1\n"}, "wire"),
    ({"pyproject.toml": "[tool.wire-harness]\n", "cases/suite.yaml": "version: 1\n"}, "."),
    ({"pyproject.toml": "[project]\n", "cases/x.cases.yaml": ""}, "cases"),
])
def test_a_command_given_no_suite_takes_suite_yaml_then_the_pyproject_table_then_cases(
        tmp_path: Path, files: dict[str, str], found: str) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    with chdir(tmp_path):
        assert default_suite() == Path(found)


def test_no_suite_here_is_bad_input_pointing_at_harness_init(tmp_path: Path) -> None:
    with chdir(tmp_path), pytest.raises(ConfigError) as caught:
        default_suite()
    assert "harness init" in str(caught.value)
