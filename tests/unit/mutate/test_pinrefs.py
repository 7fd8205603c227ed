"""Pin references: full node ids, short case::pin forms over lanes, and wildcards."""

from __future__ import annotations

from harness._pins.killed_by import resolve, resolve_all

IDS = [
    "cases/am/gate.cases.yaml::narrows[anthropic]::note-appended",
    "cases/am/gate.cases.yaml::narrows[proxy]::note-appended",
    "cases/am/gate.cases.yaml::narrows[deepseek]::verbatim",
    "tests/test_calc.py::test_add",
]


def test_a_short_case_pin_form_expands_over_every_lane() -> None:
    assert resolve("narrows::note-appended", IDS, "cases/") == IDS[:2]


def test_a_short_form_with_a_lane_names_one_item() -> None:
    assert resolve("narrows[proxy]::note-appended", IDS, "cases/") == [IDS[1]]


def test_full_ids_may_be_relative_to_the_suite_or_the_root() -> None:
    assert resolve("am/gate.cases.yaml::narrows[deepseek]::verbatim", IDS, "cases/") == [IDS[2]]
    assert resolve(IDS[2], IDS, "cases/") == [IDS[2]]


def test_wildcards_match_but_brackets_stay_literal() -> None:
    assert resolve("narrows[*]::*", IDS, "cases/") == IDS[:3]
    assert resolve("*/test_calc.py::test_*", IDS, "cases/") == [IDS[3]]


def test_a_reference_to_no_collected_pin_is_reported_missing() -> None:
    found, missing = resolve_all(["narrows::note-appended", "narows::note-appended"], IDS, "cases/")
    assert found == IDS[:2] and missing == ["narows::note-appended"]


def test_a_glob_names_a_python_pin_exactly_as_mutation_exclude_does() -> None:
    from harness._pins.killed_by import matches_any

    assert resolve("*::test_add", IDS, "cases/") == [IDS[3]]
    assert matches_any(IDS[3], ["*::test_add"])
    assert resolve("*::verbatim", IDS, "cases/") == [IDS[2]]


def test_the_items_of_a_pin_on_several_lanes_or_parameters_form_one_group() -> None:
    from harness._pins.killed_by import group_of, groups

    assert group_of(IDS[0]) == group_of(IDS[1]) == "cases/am/gate.cases.yaml::narrows::note-appended"
    assert group_of("tests/test_calc.py::test_add[1-2]") == "tests/test_calc.py::test_add"
    assert group_of("tests/test_calc.py::TestX::test_add[a]") == "tests/test_calc.py::TestX::test_add"
    assert group_of(IDS[3]) == IDS[3]
    assert list(groups(IDS)) == ["cases/am/gate.cases.yaml::narrows::note-appended",
                                 "cases/am/gate.cases.yaml::narrows::verbatim", IDS[3]]


def test_a_reference_to_a_parametrized_test_names_every_item_of_it() -> None:
    ids = ["s/test_r.py::test_host[a]", "s/test_r.py::test_host[b]", "s/test_r.py::test_other"]
    assert resolve("*::test_host", ids, "s/") == ids[:2]
    assert resolve("test_r.py::test_host", ids, "s/") == ids[:2]
    assert resolve("s/test_r.py::test_host[b]", ids, "s/") == [ids[1]]
