"""Load a JSON OpenAPI document at the speed of ``json.loads``, with the strict reader's answers.

The strict reader (``harness._common.jsonread``) is a Python parser that records the line of every
key path; on GitHub's 13 MB description it costs ten times ``json.load``. An import needs
those lines only to name the place of a refusal, so here the C parser reads the document, with
hooks that stop it at anything the strict reader refuses or reads differently (a key written
twice, NaN or Infinity, a float no 64-bit float holds); the few things no hook sees (an
integer past ``MAX_INT_DIGITS``, a ``\\uD800``-style escape that may be a lone surrogate, a
document over the value or depth bound) make it hand the file to the strict reader, which then
refuses with file:line or reads it. Lines are computed by the strict reader on the first
refusal that asks for one (``LazyLines``). So every document gets the strict reader's value or
its InputError, and an honest one gets them fast.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from itertools import chain, compress
from pathlib import Path
from typing import Any

from harness._common.jsonread import MAX_INT_DIGITS, parse_json
from harness._common.yamlsafe import MAX_BYTES, MAX_DEPTH, Document, LineMap

__all__ = ["Counted", "LazyLines", "quick_json"]

# Only the strict reader can tell a surrogate pair from a lone surrogate: meeting a surrogate's
# escape (rare: json.dump writes them for emoji) hands the file over.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Strict(Exception):
    """The C parser met what only the strict reader may decide."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # a key written twice
        raise _Strict
    return out


def _constant(name: str) -> Any:
    raise _Strict  # NaN, Infinity, -Infinity


def _int(text: str) -> int:
    if len(text) - text.startswith("-") > MAX_INT_DIGITS:
        raise _Strict
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Strict
    return value


_CONTAINERS = frozenset({dict, list})


def extent(root: Any, max_values: int, max_depth: int) -> int | None:
    """The values in ``root`` (containers and scalars, the root too), as the strict reader
    counts them; None when past ``max_values`` or nested past ``max_depth``. One pass level by
    level (a level's depth is known without carrying it per value), each level's values
    gathered and filtered by C iterators: a Python step per value was most of the cost."""
    count, depth = 1, 0
    level = [root] if type(root) in _CONTAINERS else []
    while level:
        values = list(chain.from_iterable([node.values() if type(node) is dict else node for node in level]))
        count += len(values)
        depth += 1  # the depth of ``values``
        if count > max_values or (values and depth > max_depth):
            return None
        level = list(compress(values, map(_CONTAINERS.__contains__, map(type, values))))
    return count


class LazyLines(LineMap):
    """The strict reader's line map, computed on the first question (a refusal's place)."""

    def __init__(self, text: str, file: str, max_values: int) -> None:
        super().__init__()
        self._pending: tuple[str, str, int] | None = (text, file, max_values)

    def line_of(self, path: str) -> int | None:
        if self._pending is not None:
            text, file, max_values = self._pending
            self._pending = None
            text = text.replace("\r\n", "\n").replace("\r", "\n")  # as read_text gives it
            _, self.lines = parse_json(text, file, max_nodes=max_values, max_depth=MAX_DEPTH)
        return super().line_of(path)


@dataclass
class Counted(Document):
    """A document whose values were counted while loading (no second walk needed)."""

    values: int = 0


def _text(path: Path) -> str | None:
    """The file's text (a byte order mark dropped), or None when the strict reader must say
    why there is none. Line ends are left as written (decoding without newline translation is
    a fifth faster, and JSON allows a raw line end only where it is whitespace); LazyLines
    translates them as the strict reader's read_text does."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        return path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return None


def quick_json(path: Path, name: str, max_values: int) -> Counted | None:
    """``path`` read as the strict reader would read it, or None when only the strict reader
    can decide (it then gives the value or the InputError)."""
    text = _text(path)
    if text is None or _SURROGATE_ESCAPE.search(text):
        return None
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant,
                           parse_float=_float, parse_int=_int)
    except (_Strict, ValueError, RecursionError):  # ValueError: JSONDecodeError, an empty file
        return None
    count = extent(value, max_values, MAX_DEPTH)
    if count is None:
        return None
    return Counted(name, value, LazyLines(text, name, max_values), count)
