"""A version matrix checks pins for each compared pair, not only for the pair suite.yaml declares:
the run hands its versions to the pins' pytest, which plays the same pairs (no provisioning here:
collection reads case files only)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._load import load_suite
from harness._pins.child import StageOptions, _arguments
from harness._provision import expand, expand_for_pins, pins_option

pytest_plugins = ["pytester"]

PIN = """
    pins:
      - name: max_tokens_stays_1024
        kind: equals
        select: max_tokens
        value: 1024
"""
PAIRS = ("1.0.0..2.0.0", "2.0.0..3.0.0", "1.0.0..3.0.0")


@pytest.fixture
def versions(pytester: pytest.Pytester, scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HARNESS_CACHE", str(pytester.path / "cache"))
    folder = pytester.path / "versions"
    shutil.copytree(scenarios / "suites" / "versions", folder)
    cases = folder / "tiny.cases.yaml"
    cases.write_text(cases.read_text().rstrip("\n") + "\n" + PIN)  # a pin on the last case, slash-name
    (pytester.path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return folder


def test_a_matrix_run_hands_its_versions_to_the_pins_pytest(versions: Path) -> None:
    suite = load_suite(versions)
    assert pins_option(suite) == []
    assert "--harness-versions" not in " ".join(_arguments(suite, Path("r"), StageOptions(), case_files=True))
    played = expand(suite, ["1.0.0", "2.0.0", "3.0.0"])
    assert pins_option(played) == ["--harness-versions=1.0.0,2.0.0,3.0.0"]
    assert "--harness-versions=1.0.0,2.0.0,3.0.0" in _arguments(played, Path("r"), StageOptions(), case_files=True)


def test_the_pins_suite_plays_every_pair_of_the_matrix(versions: Path) -> None:
    suite = load_suite(versions)
    assert expand_for_pins(suite, []) is suite
    played = expand_for_pins(suite, ["1.0.0", "2.0.0", "3.0.0"])
    pinned = [c.id for c in played.cases if c.pins]
    assert pinned == [f"slash-name@{pair}" for pair in PAIRS]


def test_the_pins_pytest_collects_each_pin_once_per_compared_pair(pytester: pytest.Pytester, versions: Path) -> None:
    declared = pytester.runpytest("--collect-only", "-q", "versions")
    assert "versions/tiny.cases.yaml::slash-name[claude]::max_tokens_stays_1024" in declared.outlines
    matrix = pytester.runpytest("--collect-only", "-q", "versions", "--harness-versions=1.0.0,2.0.0,3.0.0")
    ids = [line for line in matrix.outlines if line.endswith("::max_tokens_stays_1024")]
    assert ids == [f"versions/tiny.cases.yaml::slash-name@{pair}[claude]::max_tokens_stays_1024" for pair in PAIRS]
