"""The closed set of verdicts, decided from two observations and the case's expectation."""

from __future__ import annotations

from typing import Any

from harness._common.canonical import canonical_bytes
from harness._compare import compare, diff_paths, path_allowed
from harness._model import ErrorInfo, Expectation, Observation


def ok(value: Any, side: str = "new") -> Observation:
    return Observation("c", "l", side, "ok", wire=canonical_bytes(value), value=value)  # type: ignore[arg-type]


def failed(kind: str, message: str, side: str = "old", outcome: str = "error") -> Observation:
    return Observation("c", "l", side, outcome, error=ErrorInfo(kind, message))  # type: ignore[arg-type]


SAME = Expectation()
DIVERGES = Expectation(kind="diverges", why="the lane narrows", paths=("tools[*].input_schema",))


def test_same_bytes_are_identical_and_pass() -> None:
    got = compare(ok({"a": 1}, "old"), ok({"a": 1}), SAME)
    assert (got.kind, got.failed) == ("identical", False)


def test_key_order_alone_is_reordered_and_fails_a_bytes_expectation() -> None:
    got = compare(ok({"a": 1, "b": 2}, "old"), ok({"b": 2, "a": 1}), SAME)
    assert (got.kind, got.failed) == ("reordered", True)
    assert not compare(ok({"a": 1, "b": 2}, "old"), ok({"b": 2, "a": 1}), Expectation("same-value")).failed


def test_an_undeclared_difference_is_unexpected_with_its_paths() -> None:
    got = compare(ok({"tools": [{"name": "a"}]}, "old"), ok({"tools": [{"name": "b"}]}), SAME)
    assert (got.kind, got.failed, got.paths) == ("unexpected", True, ("tools[0].name",))


def test_a_declared_divergence_inside_its_paths_is_intended() -> None:
    old = ok({"tools": [{"name": "a", "input_schema": {"oneOf": []}}]}, "old")
    new = ok({"tools": [{"name": "a", "input_schema": {}}]})
    got = compare(old, new, DIVERGES)
    assert (got.kind, got.failed, got.detail) == ("intended", False, "the lane narrows")


def test_a_divergence_outside_the_declared_paths_is_unexpected() -> None:
    old = ok({"tools": [{"name": "a", "input_schema": {}}]}, "old")
    new = ok({"tools": [{"name": "b", "input_schema": {"x": 1}}]})
    got = compare(old, new, DIVERGES)
    assert (got.kind, got.failed, got.unexpected_paths) == ("unexpected", True, ("tools[0].name",))


def test_a_declared_divergence_that_did_not_happen_fails_as_stale() -> None:
    got = compare(ok({"a": 1}, "old"), ok({"a": 1}), DIVERGES)
    assert (got.kind, got.failed) == ("identical", True)
    assert "declared to diverge" in got.detail


def test_an_error_on_either_side_fails_unless_declared() -> None:
    got = compare(failed("TypeError", "unhashable type: 'list'"), ok({"a": 1}), SAME)
    assert (got.kind, got.failed) == ("error", True)
    assert "old error: TypeError" in got.detail
    declared = Expectation("diverges", why="the old validate crashed", old_raises="TypeError: unhashable")
    assert compare(failed("TypeError", "unhashable type: 'list'"), ok({"a": 1}), declared).kind == "intended"


def test_a_declared_error_of_another_type_still_fails() -> None:
    declared = Expectation("diverges", why="w", old_raises="ValueError")
    assert compare(failed("TypeError", "x"), ok(1), declared).failed


def test_timeouts_and_crashes_are_errors_naming_the_outcome() -> None:
    got = compare(ok(1, "old"), failed("Timeout", "no answer within 1 s", "new", "timeout"), SAME)
    assert got.kind == "error" and "new timeout" in got.detail


def test_diff_paths_name_added_removed_and_changed_places() -> None:
    assert diff_paths({"a": [1, {"b": 2}], "c": 1}, {"a": [1, {"b": 3}, 4], "d": 1}) == ["a[1].b", "a[2]", "c", "d"]
    assert diff_paths({"a": 1}, {"a": 1.0}) == ["a"]  # 1 and 1.0 are different bytes on the wire


def test_declared_paths_cover_their_subtrees_and_wildcards_one_step() -> None:
    assert path_allowed("tools[3].input_schema.oneOf[0]", ("tools[*].input_schema",))
    assert not path_allowed("tools[3].input_schemas", ("tools[*].input_schema",))
    assert path_allowed("a.b.c", ("a.*.c",)) and not path_allowed("a.b.d", ("a.*.c",))


def test_same_bytes_under_a_declared_raise_are_unexpected_not_identical() -> None:
    """Equal answers are decided before any path is walked, but only once no raise is declared:
    a case that says a side raises and got two equal answers is told the raise did not happen."""
    declared = Expectation("diverges", why="w", new_raises="TypeError")
    got = compare(ok({"a": 1}, "old"), ok({"a": 1}), declared)
    assert (got.kind, got.failed) == ("unexpected", True)
    assert "did not happen" in got.detail


def test_a_side_that_ended_badly_is_an_error_even_beside_an_equal_looking_side() -> None:
    old = Observation("c", "l", "old", "timeout", wire=b"{}", error=ErrorInfo("Timeout", "late"))
    got = compare(old, ok({}), SAME)
    assert (got.kind, got.failed) == ("error", True)
