"""Two bodies as a reviewer reads a change: a unified diff of their pretty JSON.

Each body is printed in the canonical form's key order (key order is part of what a pipeline
ships, so a reordering shows as lines moved) with two-space indents, one value per line, and
the two texts are diffed line by line (``difflib``), three lines of context. The result is the
body of a ```` ```diff ```` block, which GitHub colours: ``-`` old, ``+`` new, ``@@`` hunks.

``harness show`` prints every line; report.md and the differential page bound what they take
(``capped``): a body past ``DIFF_TEXT_LIMIT`` characters is not diffed there (difflib grows with
the square of the lines that differ), and the reader is sent to ``harness show``.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

__all__ = ["DIFF_TEXT_LIMIT", "capped", "fenced", "pretty", "unified"]

DIFF_TEXT_LIMIT = 400_000  # characters of pretty JSON per body that report.md and the page diff
LINE_LIMIT = 1_000  # characters of one diff line they show (a long description is cut, counted)


def pretty(value: Any) -> str:
    """The body as the diff reads it: key order kept, two-space indents, characters unescaped."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def unified(old: Any, new: Any, context: int = 3) -> list[str]:
    """The unified diff of the two bodies' pretty JSON, headed ``--- old`` / ``+++ new``; no lines
    when they print the same."""
    a, b = pretty(old).splitlines(), pretty(new).splitlines()
    return list(difflib.unified_diff(a, b, "old", "new", n=context, lineterm=""))


def capped(old: Any, new: Any, max_lines: int, show: str = "") -> list[str] | None:
    """At most ``max_lines`` lines of the diff, each at most ``LINE_LIMIT`` characters (the rest
    counted, in a last line naming ``show``, the command that prints it whole); None when a body
    is too large to diff here."""
    if len(pretty(old)) > DIFF_TEXT_LIMIT or len(pretty(new)) > DIFF_TEXT_LIMIT:
        return None
    lines = [_cut(line) for line in unified(old, new)]
    if len(lines) <= max_lines:
        return lines
    where = f": {show}" if show else ""
    return [*lines[:max_lines], f"... {len(lines) - max_lines} more diff line(s){where}"]


def _cut(line: str) -> str:
    if len(line) <= LINE_LIMIT:
        return line
    return f"{line[:LINE_LIMIT]}... ({len(line) - LINE_LIMIT:,} more characters)"


def fenced(lines: list[str]) -> str:
    """A ```` ```diff ```` block. No line can close it early: each starts with a diff mark, and
    pretty JSON escapes a string's newlines."""
    return "\n".join(["```diff", *lines, "```"])
