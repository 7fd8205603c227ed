"""--mutant picks by id or glob (a miss is bad input with ids to copy); --case/--lane keep the
declared mutants whose every claim still names a kept pin, and name the others."""

from __future__ import annotations

import pytest

from harness._errors import ConfigError
from harness._model import Case, PinSpec
from harness._mutate.mutants import Mutant
from harness._mutate.select import in_scope, pick, pin_filter_args


def _mutant(mid: str, claims: tuple[str, ...] = ()) -> Mutant:
    return Mutant(key=f"k-{mid}", id=mid, kind="declared", file="m.py", module="m", function="f", line=1,
                  column=1, end_line=1, end_column=1, operator="Declared", title=mid, diff="", claims=claims)


def _case(cid: str, lanes: tuple[str, ...], pins: dict[str, tuple[str, ...]]) -> Case:
    return Case(id=cid, subject="s", file="sub/x.cases.yaml", line=1, title=cid, input={}, lanes=lanes, expect={},
                checks=frozenset(), pins=tuple(PinSpec(name=n, kind="schema", lanes=ls, params={})
                                               for n, ls in pins.items()))


CASES = [_case("plain", ("one", "two"), {"p": ("one", "two")}), _case("other", ("one",), {"q": ("one",)})]


def test_pick_takes_ids_and_globs_and_refuses_a_miss_with_ids_to_copy() -> None:
    mutants = [_mutant("m.x_f__mutmut_1"), _mutant("m.x_f__mutmut_2"), _mutant("M1-gate")]
    assert pick(mutants, ["M1-gate"]) == {"k-M1-gate"}
    assert pick(mutants, ["m.x_f__*"]) == {"k-m.x_f__mutmut_1", "k-m.x_f__mutmut_2"}
    with pytest.raises(ConfigError) as caught:
        pick(mutants, ["m.x_f__mutmut_9"])
    assert "m.x_f__mutmut_1" in str(caught.value) and "--mutant" in str(caught.value)


def test_without_filters_every_declared_mutant_stays() -> None:
    mutants = [_mutant("a", ("other::q",))]
    assert in_scope(mutants, CASES, (), (), "") == (mutants, [])


def test_a_mutant_whose_claims_the_filters_leave_out_is_named() -> None:
    keep, drop = _mutant("keep", ("plain::p",)), _mutant("drop", ("other::q",))
    half = _mutant("half", ("plain::p", "other::q"))  # one claim unjudgeable: the claim cannot hold
    python = _mutant("python", ("tests/test_x.py::test_y",))
    equivalent = _mutant("equivalent")
    kept, left = in_scope([keep, drop, half, python, equivalent], CASES, ("plain",), (), "")
    assert [m.id for m in kept] == ["keep", "python", "equivalent"] and left == ["drop", "half"]


def test_lane_filters_follow_each_pins_own_lanes() -> None:
    on_two = _mutant("two", ("plain[two]::p",))
    other = _mutant("other", ("other::q",))  # q runs on lane one only
    kept, left = in_scope([on_two, other], CASES, (), ("two",), "")
    assert [m.id for m in kept] == ["two"] and left == ["other"]


def test_full_node_ids_match_with_the_suite_prefix() -> None:
    full = _mutant("full", ("cases/sub/x.cases.yaml::plain[one]::p",))
    assert in_scope([full], CASES, ("plain",), (), "cases/")[1] == []


def test_a_glob_matching_no_case_or_lane_is_bad_input() -> None:
    with pytest.raises(ConfigError, match="--case"):
        in_scope([], CASES, ("plian",), (), "")
    with pytest.raises(ConfigError, match="--lane"):
        in_scope([], CASES, (), ("three",), "")


def test_the_filters_reach_the_pins_plugin_as_its_own_options() -> None:
    assert pin_filter_args(("a*", "b"), ("one",)) == ["--harness-cases=a*,b", "--harness-lanes=one"]
    assert pin_filter_args((), ()) == []
