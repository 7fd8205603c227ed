"""The way back: only the nulls of widened fields are removed."""

from __future__ import annotations

import copy

from wire_harness_subjects.openai_strict_resume.nulls import remove_strict_nulls


def test_the_null_of_a_widened_field_is_removed_and_a_nullable_null_stays() -> None:
    args = {"destination": "Tokyo", "date": None, "note": None}
    assert remove_strict_nulls(args, {"date"}) == {"destination": "Tokyo", "note": None}


def test_every_key_after_a_removed_one_is_kept_in_order() -> None:
    args = {"date": None, "a": 1, "b": None, "c": 3}
    out = remove_strict_nulls(args, {"date"})
    assert list(out.items()) == [("a", 1), ("b", None), ("c", 3)]


def test_a_widened_field_with_a_value_is_kept() -> None:
    args = {"destination": "Tokyo", "date": "2026-12-24"}
    assert remove_strict_nulls(args, {"date"}) == args


def test_a_null_outside_the_widened_paths_is_kept_even_when_a_widened_name_matches_elsewhere() -> None:
    args = {"date": None, "inner": {"date": None}}
    assert remove_strict_nulls(args, {"inner.date"}) == {"date": None, "inner": {}}


def test_nulls_inside_array_items_and_nested_objects_are_removed_by_path() -> None:
    args = {
        "passengers": [{"name": "Ada", "seat": None, "meal": None}, {"name": "Linus", "seat": "1A"}],
        "contact": {"email": "a@example.com", "phone": None},
        "loyalty": None,
    }
    widened = {"passengers[*].seat", "contact.phone", "loyalty"}
    assert remove_strict_nulls(args, widened) == {
        "passengers": [{"name": "Ada", "meal": None}, {"name": "Linus", "seat": "1A"}],
        "contact": {"email": "a@example.com"},
    }


def test_the_arguments_are_not_modified() -> None:
    args = {"date": None, "list": [{"x": None}]}
    before = copy.deepcopy(args)
    remove_strict_nulls(args, {"date", "list[*].x"})
    assert args == before


def test_values_that_are_not_objects_pass_through() -> None:
    assert remove_strict_nulls(None, {"date"}) is None
    assert remove_strict_nulls([None, 1], {"[*]"}) == [None, 1]
    assert remove_strict_nulls("text", set()) == "text"


def test_keys_that_need_quoting_match_their_recorded_path() -> None:
    args = {"x-y z": None, "ok": None}
    assert remove_strict_nulls(args, {'"x-y z"'}) == {"ok": None}
