"""The omit declaration's shape: what parse_omit accepts and refuses."""

from __future__ import annotations

from typing import Any

import pytest
from wire_harness_subjects.openapi_omit import SUBJECT
from wire_harness_subjects.openapi_omit.entries import Entry, OmitRefused, parse_omit


def test_paths_and_object_entries_are_parsed() -> None:
    parsed = parse_omit({"op": ["a.b", {"path": "c", "where_empty": "v"}]})
    assert parsed == {"op": (Entry(("a", "b")), Entry(("c",), "v"))}
    assert parsed["op"][0].path == "a.b"


def test_no_declaration_means_nothing_to_omit() -> None:
    assert parse_omit(None) == {}


@pytest.mark.parametrize(("raw", "message"), [
    (["a"], "expected a mapping of operationIds"),
    ({"op": []}, "non-empty list"),
    ({"op": "a.b"}, "non-empty list"),
    ({"op": ["a..b"]}, "empty segment"),
    ({"op": [".a"]}, "empty segment"),
    ({"op": [""]}, "expected a dotted path"),
    ({"op": [3]}, "expected a path or"),
    ({"op": [{"path": "a"}]}, "needs both path and where_empty"),
    ({"op": [{"where_empty": "v"}]}, "needs both path and where_empty"),
    ({"op": [{"path": "a", "where_empty": "v.w"}]}, "where_empty must be a single key"),
    ({"op": [{"path": "a", "where_empty": ""}]}, "where_empty must be a single key"),
    ({"op": [{"path": "a", "where_empty": "v", "extra": 1}]}, "unknown key 'extra'"),
    ({"op": ["a", "a"]}, "each entry once"),
])
def test_a_malformed_declaration_is_refused(raw: Any, message: str) -> None:
    with pytest.raises(OmitRefused, match=message):
        parse_omit(raw)


def test_the_subject_serves_tool_results_and_declares_its_input_keys() -> None:
    assert SUBJECT.wires == frozenset({"tool-result"})
    assert SUBJECT.input_keys == frozenset({"omit", "operation", "result"})
    assert SUBJECT.output == "value"
