"""Canonical bytes: exactly what ``json.dumps`` with the harness's options gives, value for value
and error for error, whatever path the encoder takes (it skips ``json.dumps``'s per-call layer)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness._common.canonical import canonical_bytes, sorted_bytes


def dumps(value: Any, sort_keys: bool = False) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=sort_keys).encode()


VALUES = [
    "é \u2028 \"quoted\" \\ \x00", "", 0, -1, 10**40, 1.0, -0.0, 1e300, 0.1, True, False, None, [], {}, (),
    {"b": 1, "a": [1.5, "ü", {"z": None}]}, {1: "int key", 2.5: "float key"}, {None: "null key"}, {True: "bool key"},
    [{"k": "v\n"}] * 3, ("a", ["tuple", "list"]), {"nested": {"deep": [[[[{"x": "y"}]]]]}},
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_every_value_gives_the_bytes_json_dumps_gives_in_key_order_and_sorted(value: Any) -> None:
    assert canonical_bytes(value) == dumps(value)
    assert sorted_bytes(value) == dumps(value, sort_keys=True)


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"  # a stable test id: every xdist worker must collect the same names


@pytest.mark.parametrize("value", [float("nan"), {"a": [float("inf")]}, {1, 2}, Opaque(), {(1, 2): "tuple key"}],
                         ids=repr)
def test_a_value_that_is_not_json_raises_what_json_dumps_raises(value: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as expected:
        dumps(value)
    with pytest.raises(expected.type, match=f"^{expected.value}$"):
        canonical_bytes(value)


def test_a_circular_value_is_reported_as_json_dumps_reports_it() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        canonical_bytes(loop)


def test_a_call_that_raised_midway_leaves_no_trace_in_the_next_call() -> None:
    inner: list[Any] = [float("nan")]
    with pytest.raises(ValueError):
        canonical_bytes({"outer": [inner]})  # raised while ``inner`` was being encoded
    inner[0] = 1.0
    assert canonical_bytes({"outer": [inner, inner]}) == b'{"outer":[[1.0],[1.0]]}'  # not taken for a cycle
