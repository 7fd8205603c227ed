"""Ledger claims that cannot pass wrongly, on a review with pins and no case files
(tests/scenarios/mutate/pinsonly): a declared ``equivalent`` is checked on the outputs of the
pins' own calls (refuted, held, or unchecked when nothing reaches it: never held by default), and
an expected survivor (``survives:``) holds while it survives and fails once a pin kills it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness._exitcodes import ExitCode
from tests.e2e.inproc import harness_main

pytestmark = [pytest.mark.slow, pytest.mark.expensive]  # whole `harness mutate` runs

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "mutate" / "pinsonly"

NEW_PIN = '''

def test_names_keep_their_case():
    assert picker.names([{"name": "Search"}]) == ["Search"]
'''


def _mutate(suite: Path, out: Path) -> tuple[int, str, dict[str, dict[str, Any]], dict[str, Any]]:
    got = harness_main("mutate", str(suite), "--out", str(out), "-q", "--format", "summary")
    section = json.loads((out / "mutation.json").read_text())
    ids = section["pins"]["ids"]
    claims = {m["id"]: {**m["claim"], "status": m["status"], "red": [ids[i] for i in m["claim"]["red"]]}
              for m in section["mutants"]}
    return got.returncode, got.stdout, claims, section


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple[int, str, dict[str, Any], dict[str, Any]]]:
    base = tmp_path_factory.mktemp("pinsonly")
    suite = base / "pinsonly"
    shutil.copytree(SCENARIO, suite)
    return suite, _mutate(suite, base / "out")


def test_an_equivalent_whose_output_changes_is_refuted_by_the_pins_own_call(first: Any) -> None:
    _suite, (code, _stdout, claims, section) = first
    refuted = claims["pick-finds-the-last"]
    assert refuted["status"] == "survived" and refuted["result"] == "failed", refuted  # was "equivalent" (held)
    assert "picker:pick called by tests/test_picker.py::test_pick_finds_the_named_tool" in refuted["note"]
    assert refuted["outputs"]["calls"] >= 1 and refuted["outputs"]["cases"] == 0
    assert code == ExitCode.MUTANTS_ESCAPED
    assert "pick-finds-the-last" in section["claims_failed"]


def test_a_true_no_op_holds_on_the_calls_and_one_nothing_calls_is_unchecked(first: Any) -> None:
    _suite, (_code, stdout, claims, section) = first
    held = claims["names-by-set"]
    assert held["result"] == "equivalent" and held["note"].startswith("no pin distinguishes it; identical on ")
    unchecked = claims["unused-keeps-all"]
    assert unchecked["result"] == "unchecked" and "unused-keeps-all" in section["claims_failed"]
    assert "**UNCHECKED**" in stdout


def test_an_expected_survivor_holds_apart_from_the_escapes_then_fails_once_a_new_pin_kills_it(
        first: Any, tmp_path: Path) -> None:
    suite, (_code, stdout, claims, section) = first
    assert claims["names-lowercased"]["result"] == "survives"
    assert section["expected_survivors"] == ["names-lowercased"]
    assert "names-lowercased" not in section["escaped"] and "names-lowercased" not in section["claims_failed"]
    assert "expected survivor names-lowercased (survived) picker.py:17 names: no pin checks" in stdout
    # round 2: a pin checks the names' case, and the ledger still says the mutant survives
    with (suite / "tests" / "test_picker.py").open("a") as pins:
        pins.write(NEW_PIN)
    code, stdout, claims, section = _mutate(suite, tmp_path / "out")
    stale = claims["names-lowercased"]
    assert stale["status"] == "killed" and stale["result"] == "failed"
    assert stale["red"] == ["tests/test_picker.py::test_names_keep_their_case"]
    assert "declared to survive, but 1 pin(s) now kill it: update the ledger" in stale["note"]
    assert code == ExitCode.MUTANTS_ESCAPED and section["expected_survivors"] == []
