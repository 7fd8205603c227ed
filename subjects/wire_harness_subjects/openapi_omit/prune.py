"""The runtime half of omit, the same in both revisions: drop paths from a JSON result.

Paths start at the result's root object and step through every array met *below* it
(``results.fields`` drops ``fields`` from each search result). A result that does not carry
the path (an error body, a record of another shape, None for a 204, plain text, a top-level
list) is returned as it came: nothing raises. ``where_empty`` keeps the array and drops only
the object elements whose key holds nothing: null, "", [], {} or no such key. False and 0 are
values; an element that is not an object has no key to judge by and stays.
"""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.openapi_omit.entries import Entry

__all__ = ["holds_nothing", "prune"]


def holds_nothing(element: dict[str, Any], key: str) -> bool:
    if key not in element:
        return True
    value = element[key]
    if value is None:
        return True
    if isinstance(value, (str, list, dict)):  # bool and numbers never count as empty
        return len(value) == 0
    return False


def _keep_filled(holder: dict[str, Any], last: str, key: str) -> None:
    target = holder.get(last)
    if isinstance(target, list):
        holder[last] = [e for e in target if not (isinstance(e, dict) and holds_nothing(e, key))]


def _apply(node: Any, segments: tuple[str, ...], where_empty: str | None) -> None:
    if isinstance(node, list):
        for element in node:
            _apply(element, segments, where_empty)
        return
    if not isinstance(node, dict):
        return
    head, rest = segments[0], segments[1:]
    if rest:
        if head in node:
            _apply(node[head], rest, where_empty)
    elif where_empty is not None:
        _keep_filled(node, head, where_empty)
    else:
        node.pop(head, None)


def prune(result: Any, entry: Entry) -> Any:
    """``result`` with ``entry`` applied, in place; a root that is not an object is left whole."""
    if isinstance(result, dict):
        _apply(result, entry.segments, entry.where_empty)
    return result
