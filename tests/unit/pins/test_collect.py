"""What the pin stage finds without pytest: the case-file items, whether a suite has Python pins
(one pytest child for them, none otherwise), and which conftest files send every item through
pytest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._load import load_suite
from harness._model import Suite
from harness._pins.collect import case_items, item_hooks, python_pin_files


@pytest.fixture
def suite_dir(tmp_path: Path, scenarios: Path) -> Path:
    root = tmp_path / "project" / "suites" / "failing_pins"
    shutil.copytree(scenarios / "suites" / "failing_pins", root)
    (tmp_path / "project" / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    return root


def load(root: Path) -> Suite:
    return load_suite(root)


def test_items_are_named_from_the_project_root_and_skip_folders_pytest_does_not_enter(suite_dir: Path) -> None:
    suite = load(suite_dir)
    ids = [i.nodeid for i in case_items(suite, suite_dir.parent.parent)]
    assert "suites/failing_pins/failing.cases.yaml::steady[plain]::expect" in ids
    assert "suites/failing_pins/failing.cases.yaml::steady[plain]::equals_ok" in ids
    assert "suites/failing_pins/failing.cases.yaml::steady[loud]::same_as_old_fails" in ids
    assert not any("equals_ok" in i and "[loud]" in i for i in ids)  # a pin keeps to its lanes
    assert any(c.id == "under-build" for c in suite.cases)  # loaded by the suite...
    assert not any("under-build" in i for i in ids)  # ...but pytest never enters build/


def test_case_and_lane_globs_limit_the_items(suite_dir: Path) -> None:
    items = case_items(load(suite_dir), suite_dir, cases=["ste*"], lanes=["loud"])
    assert {i.case.id for i in items} == {"steady"} and {i.lane_id for i in items} == {"loud"}


def test_only_files_defining_tests_are_python_pins(suite_dir: Path) -> None:
    suite = load(suite_dir)
    assert [p.name for p in python_pin_files(suite)] == ["test_python_pins.py"]  # not the pipelines
    for hidden in ("build", ".cache", "venv"):
        (suite_dir / hidden).mkdir(exist_ok=True)
        (suite_dir / hidden / "test_hidden.py").write_text("def test_x():\n    pass\n")
    (suite_dir / "env").mkdir()
    (suite_dir / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (suite_dir / "env" / "test_in_a_venv.py").write_text("def test_x():\n    pass\n")
    assert [p.name for p in python_pin_files(suite)] == ["test_python_pins.py"]


def test_a_suite_without_python_pins_needs_no_pytest(suite_dir: Path) -> None:
    (suite_dir / "test_python_pins.py").unlink()
    assert python_pin_files(load(suite_dir)) == []


def test_a_conftest_of_fixtures_only_leaves_case_items_to_the_harness(suite_dir: Path) -> None:
    (suite_dir / "conftest.py").write_text("import pytest\n\n\n@pytest.fixture\ndef router():\n    return 1\n")
    (suite_dir.parent.parent / "conftest.py").write_text('pytest_plugins = ["harness.pins.plugin"]\n')
    assert item_hooks(load(suite_dir), suite_dir.parent.parent) == []


@pytest.mark.parametrize("text", ["def pytest_collection_modifyitems(items):\n    pass\n",
                                  'pytest_plugins = ["harness.pins.plugin", "myproject.rerun"]\n'])
def test_a_conftest_with_hooks_or_plugins_sends_every_item_through_pytest(suite_dir: Path, text: str) -> None:
    project, suite = suite_dir.parent.parent, load(suite_dir)  # item_hooks reads the folders as they are now
    (project / "conftest.py").write_text(text)  # above the suite, below the project root: pytest loads it
    assert item_hooks(suite, project) == [project / "conftest.py"]
    (project / "conftest.py").unlink()
    (suite_dir / "build").mkdir(exist_ok=True)
    (suite_dir / "nested").mkdir()
    (suite_dir / "nested" / "conftest.py").write_text(text)
    assert item_hooks(suite, project) == [suite_dir / "nested" / "conftest.py"]


@pytest.mark.parametrize("text", ["def pytest_xdist_auto_num_workers(config):\n    return 4\n",
                                  "def pytest_addoption(parser):\n    parser.addoption('--x')\n\n\n"
                                  "def pytest_report_header(config):\n    return 'x'\n"])
def test_a_conftest_that_only_adds_options_prints_or_sizes_xdist_leaves_case_items_to_the_harness(
        suite_dir: Path, text: str) -> None:
    project, suite = suite_dir.parent.parent, load(suite_dir)  # item_hooks reads the folders as they are now
    (project / "conftest.py").write_text(text)
    assert item_hooks(suite, project) == []
    (project / "conftest.py").write_text(text + "\n\ndef pytest_runtest_setup(item):\n    pass\n")
    assert item_hooks(suite, project) == [project / "conftest.py"]


def test_the_bundled_suite_evaluates_its_case_items_in_the_harness_not_through_pytest() -> None:
    # the project's own conftest.py sizes xdist's pool; that must not cost the main job a pytest
    # run of all 1,177 case-file items
    repo = Path(__file__).resolve().parents[3]
    assert item_hooks(load(repo / "cases"), repo) == []


REVIEW_PINS = "def check_host_is_lowercased(router):\n    assert router.host('A.example') == 'a.example'\n"
PYTEST_CONFIGS = {  # the same naming, in each file pytest reads it from
    "pytest.ini": "[pytest]\npython_files = review_*.py\npython_functions = check_\n",
    "pyproject.toml": '[tool.pytest.ini_options]\npython_files = ["review_*.py"]\npython_functions = ["check_*"]\n',
    "tox.ini": "[tox]\nenvlist = py\n\n[pytest]\npython_files = review_*.py\npython_functions = check_*\n",
    "setup.cfg": "[metadata]\nname = p\n\n[tool:pytest]\npython_files = review_*.py\npython_functions = check\n",
}


@pytest.mark.parametrize("config", sorted(PYTEST_CONFIGS))
def test_a_ported_pin_module_is_found_by_the_project_s_own_pytest_naming(suite_dir: Path, config: str) -> None:
    """The reviewer's module keeps its name and its function names: pytest's python_files and
    python_functions, from whichever file configures pytest, say it holds tests."""
    from harness._load.suite import python_pins

    project = suite_dir.parent.parent
    (suite_dir / "test_python_pins.py").unlink()
    (suite_dir / "review_pins.py").write_text(REVIEW_PINS)
    (project / "pyproject.toml").unlink()
    suite = load(suite_dir)  # python_pin_files reads the project's pytest configuration as it is now
    assert python_pin_files(suite) == [] and python_pins(suite_dir) == []  # pytest's defaults: no tests
    (project / config).write_text(PYTEST_CONFIGS[config])
    assert python_pin_files(suite) == [suite_dir / "review_pins.py"]
    assert python_pins(suite_dir) == [suite_dir / "review_pins.py"]


def test_a_file_pytest_would_not_collect_is_no_python_pin_whatever_it_defines(suite_dir: Path) -> None:
    """A helper module defining ``test_*`` functions is not a test module by pytest's default naming."""
    (suite_dir / "test_python_pins.py").rename(suite_dir / "helpers.py")
    assert python_pin_files(load(suite_dir)) == []


def test_pytest_s_private_config_reader_still_takes_and_gives_what_the_naming_reads(tmp_path: Path) -> None:
    """Canary for ``_pytest.config.findpaths.determine_setup`` (harness/_common/pytest_names.py):
    an upgrade that changes it fails here by name, not as "the suite has no Python pins"."""
    import inspect

    from _pytest.config.findpaths import determine_setup

    assert {"inifile", "override_ini", "args", "rootdir_cmd_arg", "invocation_dir"} <= set(
        inspect.signature(determine_setup).parameters)
    (tmp_path / "pytest.ini").write_text("[pytest]\npython_files = review_*.py\n")
    _, inipath, config, _ = determine_setup(inifile=None, override_ini=None, args=[str(tmp_path)],
                                            rootdir_cmd_arg=str(tmp_path), invocation_dir=tmp_path)
    assert inipath == tmp_path / "pytest.ini" and config["python_files"].value == "review_*.py"
