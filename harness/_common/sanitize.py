"""Make any string safe for a report file, a terminal and junit.xml; walk values without recursion.

A pipeline under test decides what its exception messages and outputs hold, and those reach
report.json, report.md, junit.xml and the terminal. Three kinds of character do harm there:

- control characters (ESC clears a screen or recolours it, CR overwrites a line, NUL and most
  of C0 make junit.xml invalid XML), plus the bidirectional overrides that reorder what a
  reader sees: each is written as a visible escape (``\\x1b``, ``\\u202e``), so the evidence
  stays readable; tab and newline stay as they are;
- lone UTF-16 surrogates (``"\\ud83d"`` from a pipeline's ``str``): no UTF-8 writer takes one,
  so each becomes U+FFFD;
- U+FFFE and U+FFFF, which XML forbids: removed.

The original bytes are not lost: an observation's wire bytes are hashed in the report
(``sha256``) and a rerun of the case reproduces them.

``walk_strings`` maps every string of a JSON value (keys too) with an explicit stack, so a
pipeline's output nested 500 deep cannot reach Python's recursion limit; containers deeper than
``max_depth`` are replaced by a note saying so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_DEPTH", "clean_text", "walk_strings"]

MAX_DEPTH = 64  # far deeper than any report section; only a pipeline's own output goes past it

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")


def _replace(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    if code in (0xFFFE, 0xFFFF):
        return ""
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean_text(value: str) -> str:
    """``value`` with control characters escaped, lone surrogates replaced and XML-illegal
    characters removed; text with none of them comes back unchanged (the same object)."""
    if _UNSAFE.search(value) is None:
        return value
    return _UNSAFE.sub(_replace, value)


def _cut_note(max_depth: int) -> str:
    return f"[cut: nested deeper than {max_depth} levels]"


def walk_strings(value: Any, text: Callable[[str], str], max_depth: int = MAX_DEPTH) -> Any:
    """A copy of the JSON value ``value`` with ``text`` applied to every string, keys included.

    Iterative: each container is copied into a fresh one, and its children are queued with
    the slot they fill. Tuples are read as lists (a JSON value has no tuples)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 0)]
    while stack:
        item, parent, slot, depth = stack.pop()
        if isinstance(item, str):
            parent[slot] = text(item)
        elif isinstance(item, dict | list | tuple) and depth >= max_depth:
            parent[slot] = _cut_note(max_depth)
        elif isinstance(item, dict):
            copy: dict[Any, Any] = {}
            parent[slot] = copy
            for key, child in item.items():
                name = text(key) if isinstance(key, str) else key
                copy[name] = None
                stack.append((child, copy, name, depth + 1))
        elif isinstance(item, list | tuple):
            items: list[Any] = [None] * len(item)
            parent[slot] = items
            stack.extend((child, items, i, depth + 1) for i, child in enumerate(item))
        else:
            parent[slot] = item
    return root[0]
