"""docs/porting.md's example end to end, in a project of its own: the suite two folders deep
(examples/porting), a pytest config whose addopts would break a child pytest (``-n 2``), three
review rounds through ``--pins``, and one node id per pin in every section of report.json."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._mutate.results import expand

pytestmark = [pytest.mark.slow, pytest.mark.expensive]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "porting"


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd, check=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "examples" / "porting")
    # xdist is not even installed here: these addopts reaching a child pytest would end it at once
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-n 2"\n')
    return tmp_path


def _claims(section: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["id"]: m["claim"] for m in expand(section)["mutants"] if "claim" in m}


@pytest.mark.parametrize(("round_", "mutants"), [("r1", ["R1-M1", "R1-M2", "R1-M3"]),
                                                 ("r2", ["R2-M1", "R2-M2", "R2-M3"]),
                                                 ("r3", ["R3-M1", "R3-M2", "R3-E1"])])
def test_each_review_round_runs_its_pins_and_its_ledger_and_every_claim_holds_exactly(
        project: Path, round_: str, mutants: list[str]) -> None:
    out = project / "out"
    got = harness("mutate", "examples/porting", "--pins", round_, "--out", str(out), "-q", cwd=project)
    assert got.returncode == 0, got.stdout + got.stderr
    section = json.loads((out / "mutation.json").read_text())
    assert section["pins"]["set"] == round_
    claims = _claims(section)
    assert sorted(claims) == sorted(mutants)
    for mid, claim in claims.items():
        assert claim["result"] == ("equivalent" if mid == "R3-E1" else "exact"), (mid, claim)
    # the multi-lane pins were red on some of their items only, and still count as exact
    partial = [c for c in claims.values() if c["red"] and set(c["red"]) < set(c["claimed"])]
    assert partial, "the example should show a pin group red on part of its items"


def test_a_nested_suite_gives_each_pin_one_id_in_every_section_and_names_its_pin_set(project: Path) -> None:
    got = harness("run", "examples/porting", "--pins", "r2", "--mutate", "--format", "json",
                  "--out", str(project / "reports"), cwd=project)
    assert got.returncode == 0, got.stdout + got.stderr
    report = json.loads(got.stdout)
    pins = sorted(r["id"] for r in report["pins"]["results"])
    mutation = expand(report["mutation"])
    assert pins == sorted(mutation["pins"]["ids"])
    assert all(p.startswith("examples/porting/") for p in pins)
    assert report["pins"]["set"] == mutation["pins"]["set"] == "r2"
    ids = set(pins)
    for m in mutation["mutants"]:
        assert set(m["killed_by"]) <= ids and set(m["claim"]["claimed"]) <= ids
    assert {r["pin"] for r in mutation["pin_kills"]} <= ids
    # and plain pytest, started in the project, names them the same way and reruns each
    listed = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "--collect-only", "-q",
                             "examples/porting", "--harness-pins", "r2"],
                            capture_output=True, text=True, timeout=120, cwd=project, check=False)
    assert sorted(line for line in listed.stdout.splitlines() if "::" in line) == pins


def test_an_unknown_pin_set_is_bad_input_for_run_and_mutate(project: Path) -> None:
    for command in ("run", "mutate"):
        got = harness(command, "examples/porting", "--pins", "r9", "--out", str(project / "o"), cwd=project)
        assert got.returncode == 2, got.stdout + got.stderr
        assert "a pin set of suite porting-example (r1, r2, r3)" in got.stderr and "'r9'" in got.stderr
        assert "Traceback" not in got.stderr


def test_a_pin_set_entry_naming_no_pin_is_bad_input_naming_the_entry(project: Path) -> None:
    suite_yaml = project / "examples" / "porting" / "suite.yaml"
    suite_yaml.write_text(suite_yaml.read_text().replace("pin_sets:\n", 'pin_sets:\n  bad: ["*::test_nope"]\n', 1))
    got = harness("run", "examples/porting", "--pins", "bad", "--out", str(project / "o"), cwd=project)
    assert got.returncode == 2, got.stdout + got.stderr
    assert "pin_sets.bad[0]" in got.stderr and "'*::test_nope'" in got.stderr and "Traceback" not in got.stderr


def test_a_suite_of_python_pins_only_runs(project: Path) -> None:
    (project / "examples" / "porting" / "router.cases.yaml").unlink()
    got = harness("run", "examples/porting", "--pins", "r1", "--format", "json", "--no-rejections",
                  "--out", str(project / "reports"), cwd=project)
    assert got.returncode == 0, got.stdout + got.stderr
    report = json.loads(got.stdout)
    assert report["pins"]["summary"]["passed"] == 4 and report["pins"]["set"] == "r1"


def test_a_pin_module_named_as_the_project_s_pytest_config_says_runs_without_a_rename(project: Path) -> None:
    """The reviewer's module is review_pins.py, which the project's pytest config collects
    (python_files): harness run finds its pins as pytest does, with no test_*.py beside it."""
    porting = project / "examples" / "porting"
    (porting / "test_review.py").rename(porting / "review_pins.py")
    (porting / "router.cases.yaml").unlink()
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'python_files = ["review_*.py"]\n')
    got = harness("run", "examples/porting", "--pins", "r1", "--format", "json", "--no-rejections",
                  "--out", str(project / "reports"), cwd=project)
    assert got.returncode == 0, got.stdout + got.stderr
    report = json.loads(got.stdout)
    assert report["pins"]["summary"]["passed"] == 4
    assert all(r["id"].startswith("examples/porting/review_pins.py::") for r in report["pins"]["results"])


def test_a_claim_that_does_not_hold_fails_the_run_and_is_a_failing_junit_case(project: Path) -> None:
    ledger = project / "examples" / "porting" / "round1.ledger.yaml"
    # R1-M1 (case-sensitive host) claimed by the lookalike pin, which stays green on all its URLs
    ledger.write_text(ledger.read_text().replace('killed_by: ["*::test_host_is_case_insensitive"]',
                                                 'killed_by: ["*::test_lookalike_hosts_are_not_first_party"]'))
    got = harness("run", "examples/porting", "--pins", "r1", "--mutate", "--out", str(project / "reports"),
                  cwd=project)
    assert got.returncode == 4, got.stdout + got.stderr
    import xml.etree.ElementTree as ET

    root = ET.parse(project / "reports" / "latest" / "junit.xml").getroot()
    (claims,) = [s for s in root if s.get("name") == "mutation claims"]
    outcome = {tc.get("name"): [c.tag for c in tc] for tc in claims}
    assert outcome == {"R1-M1": ["failure"], "R1-M2": [], "R1-M3": []}
