"""Case files become pytest items with stable node ids, run by plain pytest (a pytest
subprocess; collecting the ids, a pytest session in this process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
pytest_plugins = ["pytester"]


def run_pytest(suite: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "pytest", str(suite), "-p", "harness.pins.plugin", "-p", "no:cacheprovider",
           "-q", "--no-header", f"--rootdir={suite.parent}", "--harness-isolate", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=suite.parent, check=False)


def test_every_pin_and_expectation_is_an_item_named_file_case_lane_pin(
        scenarios: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = scenarios / "suites" / "toy"
    monkeypatch.chdir(suite.parent)
    # run_pytest's session, in this process: collecting runs no pipeline, nothing to isolate from
    got = pytester.runpytest_inprocess(str(suite), "-p", "harness.pins.plugin", "-p", "no:cacheprovider", "-q",
                                       "--no-header", f"--rootdir={suite.parent}", "--harness-isolate",
                                       "--collect-only")
    ids = [line for line in got.outlines if "::" in line]
    assert "toy/toy.cases.yaml::plain-tool[plain]::same_as_old_on_plain" in ids
    assert "toy/toy.cases.yaml::plain-tool[fancy]::fancy_names_are_upper" in ids
    assert "toy/toy.cases.yaml::plain-tool[fancy]::expect" in ids
    assert "toy/toy.cases.yaml::raises[plain]::refuses" in ids
    assert not any("plain-tool[plain]::fancy_names_are_upper" in i for i in ids)  # pins keep to their lanes


@pytest.mark.expensive
def test_a_crashing_or_hanging_pipeline_fails_its_items_and_the_run_goes_on(scenarios: Path) -> None:
    got = run_pytest(scenarios / "suites" / "toy", "--harness-cases=crashes,hangs,after-the-crashes", "-rA")
    assert "FAILED toy/toy.cases.yaml::crashes[plain]::expect" in got.stdout
    assert "SIGSEGV" in got.stdout
    assert "FAILED toy/toy.cases.yaml::hangs[plain]::expect" in got.stdout
    assert "PASSED toy/toy.cases.yaml::after-the-crashes[plain]::expect" in got.stdout


@pytest.mark.expensive
def test_against_the_old_pipeline_the_pins_that_catch_it_fail_as_expected(scenarios: Path) -> None:
    got = run_pytest(scenarios / "suites" / "toy", "--harness-cases=plain-tool", "--harness-against=old", "-rA")
    assert got.returncode == 0, got.stdout  # exactly the catches_old pins failed
    assert "XFAIL toy/toy.cases.yaml::plain-tool[fancy]::fancy_names_are_upper" in got.stdout
    assert "PASSED toy/toy.cases.yaml::plain-tool[plain]::same_as_old_on_plain" in got.stdout
    assert "SKIPPED" in got.stdout  # the expect items have no meaning against old


@pytest.mark.expensive
def test_a_broken_case_file_is_one_collection_error_naming_the_place(tmp_path: Path, scenarios: Path) -> None:
    suite = tmp_path / "toy"
    import shutil

    shutil.copytree(scenarios / "suites" / "toy", suite)
    (suite / "broken.cases.yaml").write_text("version: 1\nsubject: toy\ncases:\n  - id: x\n    tools: 5\n")
    got = run_pytest(suite)
    assert "broken.cases.yaml:5 at cases[0].tools" in got.stdout
    assert "Traceback" not in got.stdout
