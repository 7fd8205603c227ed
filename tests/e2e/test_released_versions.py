"""Released versions of a package as old and new, through ``harness run``: environments
provisioned from local wheels (never the network), reused offline, and a version matrix in one
run. The package is tinywire (tests/scenarios/packages), a wheel per version made by the test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._model import PipelineSpec
from harness._provision import provision
from harness._provision.envs import env_folder
from harness._report.validate import validate_report
from tests.wheelhouse import versions_suite

pytestmark = pytest.mark.slow


def harness(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HARNESS_CACHE": str(cache), "PIP_NO_INDEX": "1"}
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd, check=False, env=env)


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Path:
    return versions_suite(tmp_path / "versions", scenarios)


def _report(got: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(got.stdout)
    validate_report(report)
    return report


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {row["case"]: row["verdict"] for row in report["differential"]}


@pytest.mark.expensive
def test_a_released_version_is_provisioned_once_and_reused_offline(suite: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = harness("run", str(suite), "--out", str(tmp_path / "out"), "--format", "json", cwd=tmp_path, cache=cache)
    assert first.returncode == 3, first.stderr  # 2.0.0's dotted name is an undeclared known rejection
    assert "provisioning an environment for tinywire==1.0.0" in first.stderr
    assert "provisioned tinywire==2.0.0 in" in first.stderr
    # The banner tinywire prints on import went to stderr: every body arrived intact.
    assert _verdicts(_report(first)) == {"root-oneof": "intended", "namespaced": "intended",
                                         "slash-name": "identical"}
    shutil.rmtree(suite / "wheels")  # nothing left to install from: the second run must not need it
    second = harness("run", str(suite), "--out", str(tmp_path / "out"), "--format", "json", cwd=tmp_path,
                     cache=cache)
    assert second.returncode == 3, second.stderr
    assert "provisioning" not in second.stderr
    assert _verdicts(_report(second)) == _verdicts(_report(first))


@pytest.mark.expensive
def test_a_version_matrix_compares_every_pair_in_one_run_and_one_report(suite: Path, tmp_path: Path) -> None:
    got = harness("run", str(suite), "--out", str(tmp_path / "out"), "--format", "json",
                  "--versions", "1.0.0,2.0.0,3.0.0", cwd=tmp_path, cache=tmp_path / "cache")
    report = _report(got)
    verdicts = _verdicts(report)
    assert len(verdicts) == 9 and len(list((tmp_path / "out").glob("2*"))) == 1
    assert {row["subject"] for row in report["differential"]} == {
        "tiny@1.0.0..2.0.0", "tiny@2.0.0..3.0.0", "tiny@1.0.0..3.0.0"}
    assert verdicts["slash-name@1.0.0..2.0.0"] == "identical"
    assert verdicts["root-oneof@1.0.0..2.0.0"] == "intended"
    # 3.0.0 raised max_tokens: suite.yaml declares it once for every case, so no case repeats it...
    row = next(r for r in report["differential"] if r["case"] == "slash-name@2.0.0..3.0.0")
    assert (row["verdict"], row["failed"]) == ("intended", False) and "raised max_tokens" in row["why"]
    assert verdicts["namespaced@1.0.0..3.0.0"] == "intended"
    # ...while a case's own divergence that a pair does not show is still stale.
    assert verdicts["root-oneof@2.0.0..3.0.0"] == "unexpected" and got.returncode == 1
    assert len([p for p in (tmp_path / "cache" / "envs").iterdir() if p.is_dir()]) == 3


@pytest.mark.expensive
def test_a_version_pip_cannot_find_is_one_clear_error(suite: Path, tmp_path: Path) -> None:
    got = harness("run", str(suite), "--out", str(tmp_path / "out"), "--versions", "1.0.0,9.9.9", cwd=tmp_path,
                  cache=tmp_path / "cache")
    assert got.returncode == 2, got.stderr
    assert "provisioning tinywire==9.9.9 failed" in got.stderr
    assert "No matching distribution found for tinywire==9.9.9" in got.stderr
    assert "Traceback" not in got.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("2*/report.json"))


def test_an_environment_left_half_made_is_made_again(suite: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    spec = PipelineSpec(kind="python", call="shim:build", requirements=("tinywire==1.0.0",),
                        find_links=(str(suite / "wheels"),), index=False, root=str(suite))
    half = env_folder(spec.requirements)
    (half / "bin").mkdir(parents=True)  # a run killed mid-install: no ready.json
    said: list[str] = []
    folder = provision(spec, said.append)
    assert folder == half and (folder / "ready.json").is_file()
    assert any(line.startswith("provisioning an environment") for line in said)
    code = "import tinywire, sys; sys.exit(0 if tinywire.VERSION == '1.0.0' else 1)"
    assert subprocess.run([str(folder / "bin" / "python"), "-c", code], capture_output=True,
                          check=False).returncode == 0
    said.clear()
    assert provision(spec, said.append) == folder and said == []  # ready: reused without a word


@pytest.mark.expensive
def test_a_rejection_both_versions_share_fails_only_with_fail_on_rejections_any(suite: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    inherited = harness("run", str(suite), "--out", str(tmp_path / "out"), "--case", "slash-name", "-q",
                        cwd=tmp_path, cache=cache)
    assert inherited.returncode == 0, inherited.stdout + inherited.stderr
    assert ("0 introduced (0 undeclared), 0 fixed, 0 silenced (constraint lost, not a fix), 1 persisting; "
            "fails on: undeclared introduced (--fail-on-rejections introduced)") in inherited.stdout
    assert "WARNING: 1 undeclared known rejection(s) on the new pipeline are persisting" in inherited.stdout
    assert "exit 0: not clean" in inherited.stdout
    assert "REJECTED" not in inherited.stdout  # -q: counts only
    strict = harness("run", str(suite), "--out", str(tmp_path / "out"), "--case", "slash-name",
                     "--fail-on-rejections", "any", cwd=tmp_path, cache=cache)
    assert strict.returncode == 3, strict.stdout + strict.stderr
    assert "REJECTED anthropic.tool-name-pattern on claude (new): 1 case(s), 1 persisting: slash-name" in strict.stdout


@pytest.mark.expensive
def test_a_version_matrix_checks_each_pin_on_every_compared_pair(suite: Path, tmp_path: Path) -> None:
    cases = suite / "tiny.cases.yaml"
    cases.write_text(cases.read_text().rstrip("\n") + "\n    pins:\n      - {name: max_tokens_stays_1024, "
                     "kind: equals, select: max_tokens, value: 1024}\n")
    got = harness("run", str(suite), "--out", str(tmp_path / "out"), "--format", "json", "--case", "slash-name@*",
                  "--versions", "1.0.0,2.0.0,3.0.0", cwd=tmp_path, cache=tmp_path / "cache")
    outcomes = {r["id"].split("::")[1]: r["outcome"] for r in _report(got)["pins"]["results"]
                if r["id"].endswith("::max_tokens_stays_1024")}
    # 3.0.0 raised max_tokens to 4096: the pin fails on both pairs whose new side is 3.0.0
    assert outcomes == {"slash-name@1.0.0..2.0.0[claude]": "passed", "slash-name@2.0.0..3.0.0[claude]": "failed",
                        "slash-name@1.0.0..3.0.0[claude]": "failed"}, got.stderr
    assert got.returncode == 1
