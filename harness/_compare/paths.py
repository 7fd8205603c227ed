"""Where two JSON values differ, as selector-style locations (``tools[0].input_schema.oneOf``).

A small structural walk rather than deepdiff: it runs on every differing pair of a run, and
deepdiff costs milliseconds a pair (measured ~3 ms on a 20-property schema), which would
dominate a corpus run. deepdiff still renders the detail of each failure in the report.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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


Walk = Callable[[Any, Any, list[str | int], list[str], int, bool], None]
"""Each walker's arguments: old, new, where they are, the paths found, the limit on them, and
whether equal subtrees are skipped with one ``==``."""


def _walk(a: Any, b: Any, at: list[str | int], out: list[str], limit: int, skip_equal: bool) -> None:
    if len(out) >= limit or (skip_equal and a == b):
        return
    _walker(a, b)(a, b, at, out, limit, skip_equal)


def _walker(a: Any, b: Any) -> Walk:
    """How to walk ``a`` against ``b``: into them when both are the same kind of container."""
    return next((walk for kind, walk in _CONTAINERS if isinstance(a, kind) and isinstance(b, kind)), _leaf)


def _dicts(a: dict[Any, Any], b: dict[Any, Any], at: list[str | int], out: list[str], limit: int,
           skip_equal: bool) -> None:
    for key in a:
        if key in b:
            _walk(a[key], b[key], [*at, key], out, limit, skip_equal)
        else:
            out.append(location([*at, key]))
    out.extend(location([*at, key]) for key in b if key not in a)


def _lists(a: list[Any], b: list[Any], at: list[str | int], out: list[str], limit: int, skip_equal: bool) -> None:
    common = min(len(a), len(b))
    for i in range(common):
        _walk(a[i], b[i], [*at, i], out, limit, skip_equal)
    out.extend(location([*at, i]) for i in range(common, max(len(a), len(b))))


def _leaf(a: Any, b: Any, at: list[str | int], out: list[str], limit: int, skip_equal: bool) -> None:
    if type(a) is not type(b) or a != b:
        out.append(location(at))


_CONTAINERS: tuple[tuple[type, Walk], ...] = ((dict, _dicts), (list, _lists))
"""Containers walked into when old and new are both of the kind; anything else is a leaf."""


@cache
def _pattern(declared: str) -> re.Pattern[str]:
    """A declared path matches itself and everything below it; ``*`` / ``[*]`` match one step."""
    body = re.escape(declared.strip().removeprefix("$").lstrip("."))
    body = body.replace(r"\[\*\]", r"\[\d+\]").replace(r"\*", r"[^.\[]+")
    return re.compile(rf"^{body}(?:$|[.\[])")


def path_allowed(path: str, declared: tuple[str, ...]) -> bool:
    """Whether a differing location falls under one of the declared paths."""
    return any(_pattern(d).match(path) for d in declared)
