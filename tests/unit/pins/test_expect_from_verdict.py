"""The pin stage's expect items read the verdict the build stage already made of the same
observations, instead of comparing them a second time, and report exactly what comparing again
reports: the same outcome and the same message, for a verdict that holds, one that fails, and
one whose unit's declared check failed (that verdict carries the check, so the item compares)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from harness._differential import UnitResult, build
from harness._load import load_suite
from harness._model import Suite
from harness._pins.collect import CaseItem
from harness._pins.document import choose
from harness._pins.inproc import ItemResult, evaluate_items, playing

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "suites" / "verdict_reuse"


@pytest.fixture(scope="module")
def built() -> tuple[Suite, list[UnitResult]]:
    suite = load_suite(SCENARIO)
    return suite, build(suite, workers=0)


def expect_item(suite: Suite, res: UnitResult) -> CaseItem:
    return next(i for i in choose(suite, None, None, None).items
                if i.pin is None and i.case.id == res.unit.case.id and i.lane_id == res.unit.lane.id)


def evaluated(suite: Suite, res: UnitResult, with_verdict: bool) -> ItemResult:
    assert res.old is not None and res.new is not None
    saved = {(o.case_id, o.lane_id, o.side): o for o in (res.old, res.new)}
    with playing("new"):
        [result] = evaluate_items(suite, [expect_item(suite, res)], saved, res.verdict if with_verdict else None)
    return result


@pytest.mark.parametrize("case_id", ["declared-note", "stray-key", "counted-calls"])
def test_an_expect_item_given_the_verdict_reports_what_comparing_again_reports(
        built: tuple[Suite, list[UnitResult]], case_id: str) -> None:
    suite, results = built
    res = next(r for r in results if r.unit.case.id == case_id)
    assert evaluated(suite, res, with_verdict=True) == evaluated(suite, res, with_verdict=False)


def test_the_scenario_has_a_holding_a_failing_and_a_check_failed_verdict(built: tuple[Suite, list[UnitResult]]) -> None:
    by_case = {r.unit.case.id: r for r in built[1]}
    outcomes = {case: evaluated(built[0], res, with_verdict=True).outcome for case, res in by_case.items()}
    assert outcomes == {"declared-note": "passed", "stray-key": "failed", "counted-calls": "passed"}
    assert by_case["stray-key"].verdict is not None and by_case["stray-key"].verdict.failed
    counted = by_case["counted-calls"].verdict
    assert counted is not None and counted.failed and counted.checks == {
        "deterministic": "a second run gave different bytes"}
    assert evaluated(built[0], by_case["stray-key"], True).message == \
        "verdict unexpected: differs outside the declared paths at stray"


def test_the_item_reads_the_builds_verdict_instead_of_comparing_again(built: tuple[Suite, list[UnitResult]]) -> None:
    suite, results = built
    res = next(r for r in results if r.unit.case.id == "declared-note")
    assert res.verdict is not None
    # a verdict the observations would not give: the item says what the verdict says
    res = replace(res, verdict=replace(res.verdict, kind="unexpected", failed=True, detail="said by the build",
                                       unexpected_paths=("note",)))
    result = evaluated(suite, res, with_verdict=True)
    assert (result.outcome, result.message) == ("failed", "verdict unexpected: said by the build at note")
