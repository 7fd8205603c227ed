"""Each declarative pin kind holds when it should and fails, saying why, when it should not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._load import load_suite
from harness._model import Suite
from harness._pins import cache
from harness._pins.declarative import PinFailure, evaluate

CASES = """version: 1
subject: toy
cases:
  - id: echo
    tools: [{name: echo, description: repeat, input_schema: {type: object}}]
    pins:
      - {name: same_bytes, kind: same-as-old, lanes: [plain]}
      - {name: same_bytes_fancy, kind: same-as-old, lanes: [fancy]}
      - {name: names_equal, kind: equals, select: "tools[*].name", value: echo}
      - {name: names_from_file, kind: equals, select: "tools[0].name", file: expected.json}
      - {name: names_upper, kind: schema, select: "tools[*].name", must_match: {pattern: "^[A-Z]+$"}}
      - {name: no_oneof, kind: schema, select: "tools[*].input_schema", must_not_match: {required: [oneOf]}}
      - {name: selects_nothing, kind: schema, select: "nope[*]", must_match: {}}
      - {name: may_select_nothing, kind: schema, select: "nope[*]", must_match: {}, allow_empty: true}
      - {name: stable, kind: deterministic}
      - {name: fixed_point, kind: idempotent}
      - {name: wrongly_expects_raise, kind: raises, error: ValueError}
  - id: raises
    tools: [{name: a}]
    input: {behaviour: raise}
    lanes: [plain]
    pins:
      - {name: refuses, kind: raises, error: ValueError, message: "refused"}
      - {name: wrong_message, kind: raises, error: ValueError, message: "^accepted"}
      - {name: wrong_type, kind: raises, error: builtins.TypeError}
      - {name: names_of_a_refusal, kind: schema, select: "tools[*].name", must_match: {}}
"""


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Suite:
    root = tmp_path / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    (root / "toy.cases.yaml").write_text(CASES)
    (root / "expected.json").write_text('"echo"')
    cache.clear()
    cache.set_against("new")
    return load_suite(root)


def check(suite: Suite, case_id: str, lane: str, pin: str) -> str | None:
    case = suite.case(case_id)
    spec = next(p for p in case.pins if p.name == pin)
    try:
        evaluate(suite, case, lane, spec)
    except PinFailure as exc:
        return str(exc)
    return None


def test_same_as_old_holds_where_the_lane_is_unchanged_and_names_both_values_where_not(suite: Suite) -> None:
    assert check(suite, "echo", "plain", "same_bytes") is None
    message = check(suite, "echo", "fancy", "same_bytes_fancy")
    assert message is not None and '"echo"' in message and '"ECHO"' in message


def test_equals_compares_a_selection_with_an_inline_value_or_a_file(suite: Suite) -> None:
    assert check(suite, "echo", "plain", "names_equal") is None
    assert check(suite, "echo", "plain", "names_from_file") is None
    assert check(suite, "echo", "fancy", "names_equal") == 'expected "echo"; found "ECHO"'


def test_schema_pins_check_every_selected_value(suite: Suite) -> None:
    assert check(suite, "echo", "fancy", "names_upper") is None
    assert "tools[0].name does not match" in (check(suite, "echo", "plain", "names_upper") or "")
    assert check(suite, "echo", "plain", "no_oneof") is None


def test_a_selector_that_picks_nothing_fails_unless_allowed(suite: Suite) -> None:
    assert "picked nothing" in (check(suite, "echo", "plain", "selects_nothing") or "")
    assert check(suite, "echo", "plain", "may_select_nothing") is None


def test_deterministic_and_idempotent_hold_for_a_stable_pipeline(suite: Suite) -> None:
    assert check(suite, "echo", "fancy", "stable") is None
    assert check(suite, "echo", "fancy", "fixed_point") is None


def test_raises_checks_the_type_and_the_message(suite: Suite) -> None:
    assert check(suite, "raises", "plain", "refuses") is None
    assert "expected a message matching '^accepted'" in (check(suite, "raises", "plain", "wrong_message") or "")
    assert "expected builtins.TypeError; found ValueError" in (check(suite, "raises", "plain", "wrong_type") or "")
    assert "expected ValueError to be raised" in (check(suite, "echo", "plain", "wrongly_expects_raise") or "")


def test_against_old_the_new_side_is_played_by_the_old_pipeline(suite: Suite) -> None:
    cache.set_against("old")
    try:
        assert "does not match" in (check(suite, "echo", "fancy", "names_upper") or "")
    finally:
        cache.set_against("new")
        cache.clear()



@pytest.fixture
def both_refuse(tmp_path: Path, scenarios: Path) -> Suite:
    """The toy suite with an old pipeline that refuses the `raise` input as the new one does."""
    root = tmp_path / "both_refuse"
    shutil.copytree(scenarios / "suites" / "toy", root)
    (root / "toy.cases.yaml").write_text(CASES)
    pipes = root / "toy_pipes.py"
    pipes.write_text(pipes.read_text().replace('def old(inp, lane):\n',
                                               'def old(inp, lane):\n    _misbehave(inp.get("behaviour"))\n'))
    cache.clear()
    return load_suite(root)


@pytest.mark.parametrize("against", ["new", "old"])
def test_a_pin_on_a_pipeline_that_raised_names_the_pipeline_that_ran(both_refuse: Suite, against: str) -> None:
    # against old the old pipeline plays "new": the message said "the new pipeline" all the same
    cache.set_against(against)  # type: ignore[arg-type]
    try:
        found = check(both_refuse, "raises", "plain", "names_of_a_refusal") or ""
    finally:
        cache.set_against("new")
        cache.clear()
    assert found.startswith(f"the {against} pipeline gave no output: error: ValueError")
