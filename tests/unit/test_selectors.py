"""Selectors name places in a body the same way in pins, rules and reports."""

from __future__ import annotations

import pytest

from harness._common.selectors import compile_selector, select
from harness._errors import ConfigError

BODY = {"tools": [{"name": "a", "input_schema": {"oneOf": []}}, {"name": "b", "input_schema": {}}],
        "x-y": {"a b": 1}}


def test_a_wildcard_index_selects_every_element_with_concrete_locations() -> None:
    assert select(BODY, "tools[*].name") == [("tools[0].name", "a"), ("tools[1].name", "b")]


def test_negative_indices_report_the_positive_location() -> None:
    assert select(BODY, "tools[-1].name") == [("tools[1].name", "b")]


def test_quoted_keys_select_and_are_quoted_in_locations() -> None:
    assert select(BODY, '"x-y"."a b"') == [('x-y."a b"', 1)]


def test_a_missing_step_selects_nothing() -> None:
    assert select(BODY, "tools[5].name") == [] and select(BODY, "nope[*]") == []


def test_dollar_selects_the_whole_value() -> None:
    assert select(BODY, "$") == [("$", BODY)]


def test_a_selector_that_does_not_parse_is_one_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"selector='tools\[x\]'"):
        select(BODY, "tools[x]")


def test_a_step_on_the_wrong_kind_of_value_selects_nothing() -> None:
    value = {"a": [1, 2], "d": {"k": "v"}, "s": "text"}
    assert select(value, "a.x") == [] and select(value, "d[0]") == [] and select(value, "s.*") == []
    assert select(value, "s[*]") == [] and select(value, "a[-3]") == [] and select(value, "a[2]") == []
    assert select(value, "*") == [("a", [1, 2]), ("d", {"k": "v"}), ("s", "text")]
    assert select(value, "d.*") == [("d.k", "v")] and select(value, "a[*]") == [("a[0]", 1), ("a[1]", 2)]


def test_a_leading_dollar_and_dots_are_optional_and_blank_is_the_whole_value() -> None:
    assert compile_selector("$.a[0]") == compile_selector("a[0]") == compile_selector(" .a[0] ") == (
        ("key", "a"), ("index", 0))
    assert compile_selector("  ") == () and compile_selector("a.*[*]") == (("key", "a"), ("any-key", None),
                                                                            ("any-index", None))


def test_a_key_alternation_takes_either_spelling_and_numbers_no_capture() -> None:
    body = {"tools": [{"functionDeclarations": [{"name": "a"}]}, {"function_declarations": [{"name": "b"}]}]}
    sel = "tools[*].(function_declarations|functionDeclarations)[*].name"
    assert select(body, sel) == [("tools[0].functionDeclarations[0].name", "a"),
                                 ("tools[1].function_declarations[0].name", "b")]
    assert compile_selector("(a|b)") == (("keys", ("a", "b")),)
    assert select({"a": 1}, "(b|c)") == [] and select([1], "(a|b)") == []
