"""The runtime half of omit: paths dropped through arrays; where_empty; other shapes untouched."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from wire_harness_subjects.openapi_omit.entries import Entry
from wire_harness_subjects.openapi_omit.pipelines import new, old, refeed
from wire_harness_subjects.openapi_omit.prune import holds_nothing, prune

LANE: dict[str, Any] = {"id": "tool-result", "wire": "tool-result", "provider": "none", "options": {}}
TICKET_TOOL = {"name": "ShowTicket", "description": "", "input_schema": {"type": "object"},
               "openapi": {"operation_id": "ShowTicket", "method": "get", "path": "/t", "responses": {}}}


def _entry(path: str, where_empty: str | None = None) -> Entry:
    return Entry(tuple(path.split(".")), where_empty)


def test_a_path_steps_through_every_array_on_the_way() -> None:
    result = {"results": [{"id": 1, "fields": [1]}, {"id": 2}, [{"fields": 3}], "text"]}
    assert prune(result, _entry("results.fields")) == {"results": [{"id": 1}, {"id": 2}, [{}], "text"]}


@pytest.mark.parametrize("result", [None, "plain text", 42, [{"ticket": {"fields": []}}],
                                    {"error": "RecordNotFound"}, {"ticket": 5}, {"ticket": None}])
def test_a_result_without_the_path_comes_back_unchanged(result: Any) -> None:
    before = copy.deepcopy(result)
    assert prune(result, _entry("ticket.fields")) == before


@pytest.mark.parametrize(("value", "empty"), [
    (None, True), ("", True), ([], True), ({}, True),
    (False, False), (0, False), (0.0, False), ("x", False), ([None], False), ({"a": None}, False),
])
def test_what_holds_nothing(value: Any, empty: bool) -> None:
    assert holds_nothing({"k": value}, "k") is empty


def test_a_missing_key_holds_nothing() -> None:
    assert holds_nothing({"other": 1}, "k")


def test_where_empty_keeps_the_array_and_non_object_elements() -> None:
    result = {"list": [{"v": None}, {"v": 0}, {"v": False}, {}, 7, "s", None, [1]]}
    assert prune(result, _entry("list", "v")) == {"list": [{"v": 0}, {"v": False}, 7, "s", None, [1]]}


def test_where_empty_on_a_value_that_is_no_array_leaves_it_alone() -> None:
    assert prune({"list": {"v": None}}, _entry("list", "v")) == {"list": {"v": None}}


def test_where_empty_reaches_arrays_inside_arrays_on_the_way() -> None:
    result = {"tickets": [{"cf": [{"v": None}, {"v": 1}]}, {"cf": [{"v": ""}]}]}
    assert prune(result, _entry("tickets.cf", "v")) == {"tickets": [{"cf": [{"v": 1}]}, {"cf": []}]}


@pytest.mark.parametrize("pipeline", [old, new])
def test_the_pipelines_leave_their_input_untouched(pipeline: Any) -> None:
    data = {"tools": [TICKET_TOOL], "omit": {"ShowTicket": ["ticket.fields"]},
            "result": {"ticket": {"id": 1, "fields": [1]}}}
    before = copy.deepcopy(data)
    assert pipeline(data, LANE) == {"validate": "passed", "result": {"ticket": {"id": 1}}}
    assert data == before


def test_omit_on_one_operation_leaves_another_s_result_whole() -> None:
    other = {**TICKET_TOOL, "name": "Other", "openapi": {**TICKET_TOOL["openapi"], "operation_id": "Other"}}
    data = {"tools": [TICKET_TOOL, other], "omit": {"ShowTicket": ["fields"]},
            "operation": "Other", "result": {"fields": [1]}}
    assert new(data, LANE) == {"validate": "passed", "result": {"fields": [1]}}


def test_a_redacting_lane_masks_what_omit_left() -> None:
    lane = {**LANE, "options": {"redact": ["token"]}}
    data = {"tools": [TICKET_TOOL], "omit": {"ShowTicket": ["a"]},
            "result": {"a": {"token": "x"}, "b": [{"token": "y"}]}}
    assert new(data, lane) == {"validate": "passed", "result": {"b": [{"token": "[redacted]"}]}}


@pytest.mark.parametrize("pipeline", [old, new])
def test_a_refusal_is_a_record_and_a_crash_is_raised(pipeline: Any) -> None:
    data = {"tools": [TICKET_TOOL], "omit": {"Other": ["a"]}, "result": {"a": 1}}
    assert pipeline(data, LANE) == {
        "validate": "refused", "reason": "omit names operation 'Other', which the block does not select"}
    listed = {**TICKET_TOOL, "openapi": {**TICKET_TOOL["openapi"], "responses": {
        "200": {"type": "object", "properties": {"a": {"type": ["object", "null"]}}}}}}
    crash = {"tools": [listed], "omit": {"ShowTicket": ["a.b"]}, "result": {"a": {"b": 1}}}
    if pipeline is old:
        with pytest.raises(TypeError):
            pipeline(crash, LANE)
    else:
        assert pipeline(crash, LANE) == {"validate": "passed", "result": {"a": {}}}


def test_refeeding_the_pruned_result_changes_nothing_and_a_refusal_refeeds_as_is() -> None:
    data = {"tools": [TICKET_TOOL], "omit": {"ShowTicket": [{"path": "cf", "where_empty": "v"}]},
            "result": {"cf": [{"v": None}, {"v": 1}]}}
    first = new(data, LANE)
    assert refeed(data, first)["result"] == {"cf": [{"v": 1}]}
    assert new(refeed(data, first), LANE) == first
    assert refeed(data, {"validate": "refused", "reason": "x"}) == data


@pytest.mark.parametrize("redact", ["token", [1], {"token": True}])
def test_a_redact_option_that_is_not_a_list_of_keys_is_an_error_not_a_letter_set(redact: Any) -> None:
    lane = {**LANE, "options": {"redact": redact}}
    data = {"tools": [TICKET_TOOL], "result": {"token": "secret", "t": 1}}
    with pytest.raises(ValueError, match="option redact: expected a list of keys"):
        new(data, lane)
