"""Selectors name places in a body the same way in pins, rules and reports."""

from __future__ import annotations

import pytest

from harness._common.selectors import select
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
