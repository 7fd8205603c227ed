"""Where two JSON values differ, as selector-style locations (``tools[0].input_schema.oneOf``).

A small structural walk rather than deepdiff: it runs on every differing pair of a run, and
deepdiff costs milliseconds a pair (measured ~3 ms on a 20-property schema), which would
dominate a corpus run. deepdiff still renders the detail of each failure in the report.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from harness._common.selectors import location

__all__ = ["diff_paths", "path_allowed"]

MAX_PATHS = 200


def diff_paths(old: Any, new: Any, limit: int = MAX_PATHS) -> list[str]:
    """Locations where ``new`` differs from ``old``; key order alone is not a difference.

    Equal subtrees are skipped with one C-level ``==``; that equality calls 1 and 1.0 (and
    True and 1) the same, so when it finds nothing the walk is redone without the shortcut.
    """
    out: list[str] = []
    _walk(old, new, [], out, limit, True)
    if not out:
        _walk(old, new, [], out, limit, False)
    return out


def _walk(a: Any, b: Any, at: list[str | int], out: list[str], limit: int, skip_equal: bool) -> None:
    if len(out) >= limit or (skip_equal and a == b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        _walk_objects(a, b, at, out, limit, skip_equal)
    elif isinstance(a, list) and isinstance(b, list):
        _walk_arrays(a, b, at, out, limit, skip_equal)
    elif type(a) is not type(b) or a != b:
        out.append(location(at))


def _walk_objects(a: dict[str, Any], b: dict[str, Any], at: list[str | int], out: list[str], limit: int,
                  skip_equal: bool) -> None:
    """A key on one side only is a difference at that key; a shared key's values are walked."""
    for key in a:
        if key not in b:
            out.append(location([*at, key]))
        else:
            _walk(a[key], b[key], [*at, key], out, limit, skip_equal)
    out.extend(location([*at, key]) for key in b if key not in a)


def _walk_arrays(a: list[Any], b: list[Any], at: list[str | int], out: list[str], limit: int,
                 skip_equal: bool) -> None:
    """Items at the same index are walked; each item past the shorter array is a difference."""
    shared = min(len(a), len(b))
    for i in range(shared):
        _walk(a[i], b[i], [*at, i], out, limit, skip_equal)
    out.extend(location([*at, i]) for i in range(shared, max(len(a), len(b))))


@cache
def _pattern(declared: str) -> re.Pattern[str]:
    """A declared path matches itself and everything below it; ``*`` / ``[*]`` match one step."""
    body = re.escape(declared.strip().removeprefix("$").lstrip("."))
    body = body.replace(r"\[\*\]", r"\[\d+\]").replace(r"\*", r"[^.\[]+")
    return re.compile(rf"^{body}(?:$|[.\[])")


def path_allowed(path: str, declared: tuple[str, ...]) -> bool:
    """Whether a differing location falls under one of the declared paths."""
    return any(_pattern(d).match(path) for d in declared)
