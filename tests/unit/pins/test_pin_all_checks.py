"""A declarative pin that holds several assertions (``kind: all``): one pin, one item per lane,
red when any of its checks fails there, so a ledger claim naming the review's one pin holds when a
mutant breaks any assertion of it (a declarative port of a test with several asserts)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._errors import InputErrors
from harness._load import load_suite
from harness._model import Suite
from harness._pins import cache
from harness._pins.collect import case_items
from harness._pins.declarative import PinFailure, calls_again, evaluate
from harness._pins.killed_by import groups

CASES = """version: 1
subject: toy
cases:
  - id: echo
    tools: [{name: echo, description: repeat, input_schema: {type: object}}]
    pins:
      - name: review_pin
        kind: all
        checks:
          - {kind: schema, select: "tools[*].input_schema", must_match: {type: object}}
          - {kind: equals, select: "tools[0].name", value: echo, lanes: [plain]}
          - {kind: schema, select: "tools[*].name", must_match: {pattern: "^[A-Z]+$"}, lanes: [fancy]}
      - name: two_asserts
        kind: all
        lanes: [fancy]
        checks:
          - {kind: equals, select: "tools[0].name", value: echo}
          - {kind: equals, select: "tools[0].description", value: repeat}
          - {kind: deterministic}
"""


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Suite:
    root = tmp_path / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    (root / "toy.cases.yaml").write_text(CASES)
    cache.clear()
    cache.set_against("new")
    return load_suite(root)


def failure(suite: Suite, lane: str, pin: str) -> str | None:
    case = suite.case("echo")
    try:
        evaluate(suite, case, lane, next(p for p in case.pins if p.name == pin))
    except PinFailure as exc:
        return str(exc)
    return None


def test_an_all_pin_holds_when_every_check_of_its_lane_holds(suite: Suite) -> None:
    assert failure(suite, "plain", "review_pin") is None  # the name check runs on plain only
    assert failure(suite, "fancy", "review_pin") is None  # ... the upper-case check on fancy only


def test_an_all_pin_fails_on_any_check_and_says_which(suite: Suite) -> None:
    assert failure(suite, "fancy", "two_asserts") == 'checks[0] (equals): expected "echo"; found "ECHO"'


def test_its_checks_are_one_pin_one_item_per_lane_one_group(suite: Suite) -> None:
    ids = [i.nodeid for i in case_items(suite, Path(suite.root)) if i.pin is not None]
    assert ids == ["toy.cases.yaml::echo[plain]::review_pin", "toy.cases.yaml::echo[fancy]::review_pin",
                   "toy.cases.yaml::echo[fancy]::two_asserts"]
    assert list(groups(ids)) == ["toy.cases.yaml::echo::review_pin", "toy.cases.yaml::echo::two_asserts"]


def test_an_all_pin_with_a_check_that_calls_the_pipeline_again_is_run_as_one_that_does(suite: Suite) -> None:
    pins = {p.name: p for p in suite.case("echo").pins}
    assert calls_again(pins["two_asserts"]) and not calls_again(pins["review_pin"])


@pytest.mark.parametrize(("check", "expected"), [
    ("{kind: deterministic, lanes: [fancy]}", "toy.cases.yaml:11 at cases[0].pins[0].checks[0].lanes: "
                                              "expected lanes of this pin (plain), found ['fancy']"),
    ("{kind: deterministic, name: extra}", "toy.cases.yaml:11 at cases[0].pins[0].checks[0].name: expected a "
                                           "check of one kind, without name, why or catches_old (the pin's own), "
                                           "found 'name'"),
    ("{kind: all, checks: [{kind: deterministic}]}", "toy.cases.yaml:11 at cases[0].pins[0].checks[0].kind: "
                                                     "expected a check of one kind"),
])
def test_a_check_naming_other_lanes_a_name_or_another_all_is_refused_at_its_line(
        tmp_path: Path, scenarios: Path, check: str, expected: str) -> None:
    root = tmp_path / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    (root / "toy.cases.yaml").write_text(
        "version: 1\nsubject: toy\ncases:\n  - id: echo\n    tools: [{name: echo}]\n    pins:\n"
        "      - name: p\n        kind: all\n        lanes: [plain]\n        checks:\n"
        f"          - {check}\n")
    with pytest.raises(InputErrors) as info:
        load_suite(root)
    assert any(str(e).removeprefix(f"{root.as_posix()}/").startswith(expected) for e in info.value.errors), \
        [str(e) for e in info.value.errors]
