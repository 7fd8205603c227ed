"""The build stage's inputs: shared between calls of a pipeline that leaves them alone, never
seen changed by another call, side or lane when a pipeline changes them."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

from harness._differential import build
from harness._differential.inputs import Inputs
from harness._load import load_suite
from harness._model import Case


def a_case(case_id: str = "c") -> Case:
    return Case(id=case_id, subject="s", file="f", line=None, title="", input={"tools": [{"name": "a"}]},
                lanes=("l",), expect={}, checks=frozenset(), pins=())


def test_a_pipeline_that_changes_its_input_on_one_lane_never_corrupts_another_lane_or_side(scenarios: Path) -> None:
    suite = load_suite(scenarios / "suites" / "mutating")
    results = build(suite, cases=["one", "two", "three"], workers=0)
    assert len(results) == 12
    for res in results:
        assert res.old is not None and res.new is not None and res.verdict is not None
        name = {"one": "a", "two": "b", "three": "c"}[res.unit.case.id]
        assert (res.old.value, res.new.value) == ({"names": [f"{name}!"]}, {"names": [f"{name}!"]}), res.unit.key
        assert res.verdict.kind == "identical"


def test_a_pipeline_that_leaves_its_input_alone_gets_one_copy_per_case_not_one_per_call(scenarios: Path) -> None:
    suite = load_suite(scenarios / "suites" / "mutating")
    seen = sys.modules["mutating_pipes"].SEEN
    seen.clear()
    build(suite, cases=["calm"], workers=0)
    # old and new are one pipeline here: 8 calls, the first on a copy of its own (the check)
    assert len(seen) == 8
    assert all(given is seen[1] for given in seen[1:])
    assert seen[0] is not seen[1] and seen[1] is not suite.case("calm").input
    assert seen[1] == suite.case("calm").input


def test_a_shared_copy_changed_after_the_first_call_is_caught_at_the_next_settle() -> None:
    inputs, case = Inputs(), a_case()
    first = inputs.lend(1, case)
    inputs.returned(1, case, first)  # left alone: from now on shared
    shared = inputs.lend(1, case)
    assert inputs.lend(1, case) is shared and shared is not first
    assert inputs.settle()
    shared["tools"].append({"name": "intruder"})
    assert inputs.lend(1, case) is shared  # not checked per call: the change shows at the settle
    assert not inputs.settle()
    assert inputs.lend(1, case) is not inputs.lend(1, case)  # a mutating pipeline: a fresh copy each call
    assert inputs.lend(1, case) == {"tools": [{"name": "a"}]}


def test_a_pipeline_that_changes_its_first_input_gets_fresh_copies_from_then_on() -> None:
    inputs, case = Inputs(), a_case()
    first = inputs.lend(7, case)
    first["tools"][0]["name"] = 1.0
    inputs.returned(7, case, first)
    assert inputs.lend(7, case) is not inputs.lend(7, case)
    assert inputs.settle()


def test_a_value_changed_to_an_equal_one_of_another_type_counts_as_a_change() -> None:
    inputs, case = Inputs(), Case(id="n", subject="s", file="f", line=None, title="", input={"n": 1},
                                  lanes=("l",), expect={}, checks=frozenset(), pins=())
    inputs.returned(3, case, inputs.lend(3, case))
    shared = inputs.lend(3, case)
    shared["n"] = True  # == 1, but not what the next call would put on the wire
    assert not inputs.settle()


def test_units_run_carefully_get_fresh_copies() -> None:
    inputs, case = Inputs(), a_case()
    inputs.returned(1, case, inputs.lend(1, case))
    with inputs.unshared():
        assert inputs.lend(1, case) is not inputs.lend(1, case)
    assert inputs.lend(1, case) is inputs.lend(1, case)


def test_a_shared_copy_serves_every_lane_of_its_case_and_the_next_case_gets_its_own() -> None:
    inputs, first_case, next_case = Inputs(), a_case("first"), a_case("next")
    inputs.returned(3, first_case, inputs.lend(3, first_case))  # left alone: shared from now on
    shared = inputs.lend(3, first_case)
    assert all(inputs.lend(3, first_case) is shared for _ in range(4))
    other = inputs.lend(3, next_case)
    assert other is not shared and other == next_case.input and other is not next_case.input
    assert inputs.settle()


def originals_of(*cases: Case) -> dict[str, bytes]:
    return {case.id: pickle.dumps(case.input, protocol=pickle.HIGHEST_PROTOCOL) for case in cases}


def test_a_worker_lends_the_cases_own_input_once_its_pipeline_is_known_to_leave_it_alone() -> None:
    case = a_case()
    inputs = Inputs(originals_of(case))
    first = inputs.lend(1, case)
    assert first is not case.input  # the first call, which decides, runs on a copy of its own
    inputs.returned(1, case, first)
    assert inputs.lend(1, case) is case.input and inputs.lend(2, case) is not case.input
    inputs.returned(2, case, inputs.lend(2, case))
    assert inputs.lend(2, case) is case.input
    assert inputs.settle()


def test_an_edit_to_a_cases_own_input_marks_every_pipeline_it_was_lent_to_as_mutating() -> None:
    case = a_case()
    inputs = Inputs(originals_of(case))
    for pipeline in (1, 2):
        inputs.returned(pipeline, case, inputs.lend(pipeline, case))
    inputs.lend(1, case)["tools"].append({"name": "intruder"})  # pipeline 1 edits; 2 is lent it after
    assert inputs.lend(2, case) is case.input
    assert not inputs.settle()
    for pipeline in (1, 2):  # which side edited is unknown: both get fresh copies of the bytes taken before
        given = inputs.lend(pipeline, case)
        assert given == {"tools": [{"name": "a"}]} and given is not case.input
    assert inputs.settle()


def test_an_object_two_cases_share_edited_through_one_shows_as_a_change_of_the_other() -> None:
    shared = [{"name": "a"}]
    one = Case(id="one", subject="s", file="f", line=None, title="", input={"tools": shared},
               lanes=("l",), expect={}, checks=frozenset(), pins=())
    two = Case(id="two", subject="s", file="f", line=None, title="", input={"tools": shared},
               lanes=("l",), expect={}, checks=frozenset(), pins=())
    inputs = Inputs(originals_of(one, two))  # taken before any call, as the pool does before forking
    inputs.returned(1, one, inputs.lend(1, one))
    inputs.lend(1, one)["tools"][0]["name"] = "edited"
    assert inputs.lend(1, two) is two.input  # the next case, its bytes not yet compared
    assert not inputs.settle()
    assert inputs.lend(1, two) == {"tools": [{"name": "a"}]}
