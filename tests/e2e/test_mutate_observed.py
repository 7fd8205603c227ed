"""The engine at observation granularity gives the kill matrix of the engine before it.

One scenario (tests/scenarios/mutate/observed): case-file pins of every observation-reading kind,
``expect`` items, a ``deterministic`` pin (calls the pipeline itself), Python pins that call the
module and one that reads observations; a declared mutant whose observations equal the baseline's,
one that ends the process on one case, one that hangs there; mutmut's operator mutants besides.
It runs three ways: ``granularity: pin`` (every covering pin as a pytest item, a message per pin:
the engine as it was), the default, and the default with ``--first-kill``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from harness._load import load_suite
from harness._mutate import Options, run
from harness._mutate.results import expand

pytestmark = [pytest.mark.slow, pytest.mark.expensive]

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "mutate" / "observed"


def _run(base: Path, name: str, **options: Any) -> dict[str, Any]:
    suite = base / name
    shutil.copytree(SCENARIO, suite)
    return expand(run(load_suite(suite), Options(out=suite / "out", workers=2, **options)))


@pytest.fixture(scope="module")
def sections(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    base = tmp_path_factory.mktemp("observed")
    return {"pin": _run(base, "pin", granularity="pin"), "observation": _run(base, "observation"),
            "first_kill": _run(base, "first-kill", first_kill=True)}


def _by_key(section: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["key"]: m for m in section["mutants"]}


def test_every_mutant_is_killed_timed_out_and_crashed_by_the_same_pins_as_before(
        sections: dict[str, dict[str, Any]]) -> None:
    old, new = _by_key(sections["pin"]), _by_key(sections["observation"])
    assert old.keys() == new.keys() and len(old) > 40
    for key, m in old.items():
        got = new[key]
        assert (m["status"], set(m["killed_by"]), set(m["timed_out"]), set(m["crashed"])) == (
            got["status"], set(got["killed_by"]), set(got["timed_out"]), set(got["crashed"])), m["id"]


def test_the_scenario_has_a_crash_a_hang_and_a_mutant_equal_to_the_baseline(
        sections: dict[str, dict[str, Any]]) -> None:
    new = {m["id"]: m for m in sections["observation"]["mutants"]}
    assert new["slow-exits"]["crashed"] and new["slow-exits"]["status"] == "killed"
    assert set(new["slow-forever"]["timed_out"]) == {f"shape.cases.yaml::slow[{lane}]::{pin}"
                                                     for lane in ("one", "two") for pin in ("expect", "repeatable")}
    same = new["describe-same"]
    assert same["status"] == "equivalent" and not same["killed_by"]
    # every case-file pin it covers is decided on observations equal to the baseline's
    case_pins = [p for p in same["covered_by"] if p.startswith("shape.cases.yaml")
                 and not p.endswith("::repeatable")]
    assert same["saved"]["observations"] == len(case_pins) > 0


def test_pins_are_decided_without_running_and_python_pins_skip_statements_they_never_ran(
        sections: dict[str, dict[str, Any]]) -> None:
    section = sections["observation"]
    runs = section["pin_runs"]
    assert runs["saved_by_observations"] > 0 and runs["saved_by_lines"] > 0
    assert runs["saved"] == runs["saved_by_observations"] + runs["saved_by_lines"]
    # `_describe`'s shortening branch: the test of short text reaches the function, not the branch
    new = {m["id"]: m for m in section["mutants"]}
    shorten = next(m for m in section["mutants"] if m["kind"] == "operator" and m["function"] == "_describe"
                   and m["line"] == 19)
    assert "tests/test_shape.py::test_describe_keeps_short_text" not in shorten["covered_by"]
    assert "tests/test_shape.py::test_describe_shortens" in shorten["covered_by"]
    assert new[shorten["id"]]["saved"]["lines"] >= 1
    assert sections["pin"]["pin_runs"]["saved"] == 0


def test_first_kill_keeps_every_status_and_names_one_killing_pin(sections: dict[str, dict[str, Any]]) -> None:
    full, first = _by_key(sections["observation"]), _by_key(sections["first_kill"])
    assert sections["first_kill"]["first_kill"] is True
    for key, m in full.items():
        got = first[key]
        assert got["status"] == m["status"], m["id"]
        if m["killed_by"]:
            assert len(got["killed_by"]) == 1 and set(got["killed_by"]) <= set(m["killed_by"]), m["id"]
    assert sections["first_kill"]["pin_runs"]["run"] < sections["observation"]["pin_runs"]["run"]
