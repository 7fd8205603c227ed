"""An intended divergence's diff in report.json: the old and new value at each differing path."""

from __future__ import annotations

from harness._compare.paths import diff_paths
from harness._report.assemble import _path_view


def test_the_path_view_names_what_changed_was_added_and_was_removed() -> None:
    old = {"model": "m", "tools": [{"name": "a", "input_schema": {"type": "object", "x": 1}}]}
    new = {"model": "m2", "tools": [{"name": "a", "input_schema": {"type": "object", "oneOf": [{}]}}],
           "max_tokens": 9}
    view = _path_view(old, new, diff_paths(old, new))
    assert view == {"view": "paths",
                    "changed": {"model": {"old_value": "m", "new_value": "m2"}},
                    "added": {"tools[0].input_schema.oneOf": [{}], "max_tokens": 9},
                    "removed": {"tools[0].input_schema.x": 1}}


def test_a_reordered_pair_says_only_the_order_differs() -> None:
    assert _path_view({"a": 1, "b": 2}, {"b": 2, "a": 1}, []) == {
        "view": "paths", "note": "equal values; only the key order differs"}


def test_long_values_are_cut() -> None:
    view = _path_view({"d": "x"}, {"d": "y" * 2000}, ["d"])
    assert view["changed"]["d"]["new_value"].endswith("(1500 more characters)")
