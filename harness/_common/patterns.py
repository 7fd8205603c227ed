"""Regular expressions from suite files, run with a time bound.

A rule's ``message`` or an ``old_raises`` message is a user's regular expression run over text
a provider or a pipeline chose; Python's ``re`` backtracks without limit (``(a|aa)+$`` on 41
characters runs for minutes). Patterns here run on the ``regex`` module, which reads the same
syntax as ``re`` (lookarounds included, which RE2 refuses and which rule templates use) and
stops a match after ``TIMEOUT_S``; the overrun is bad input naming the pattern, exit 2.
Measured (docs/hostile-input.md): ``(a|aa)+$`` on 41 characters stops after about 2 s instead
of running on; an ordinary message pattern costs about 7 us a search, against 1.4 us with ``re``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import regex

from harness._errors import InputError, Place

__all__ = ["TIMEOUT_S", "BoundedPattern", "bounded"]

TIMEOUT_S = 0.5  # a real message pattern matches in microseconds


class BoundedPattern:
    """A compiled pattern whose ``search`` gives up after ``TIMEOUT_S`` with an InputError."""

    def __init__(self, pattern: str, flags: int, where: Place) -> None:
        self.pattern = pattern
        self.where = where
        self._compiled = regex.compile(pattern, flags | regex.VERSION0)

    def search(self, text: str) -> Any:
        try:
            return self._compiled.search(text, timeout=TIMEOUT_S)
        except TimeoutError:
            raise InputError(self.where, f"a regular expression that matches within {TIMEOUT_S:g} s",
                             f"{self.pattern[:80]!r} still matching a {len(text):,}-character text "
                             "(catastrophic backtracking)") from None


_ANYWHERE = Place("(a regular expression)")


@cache
def bounded(pattern: str, dotall: bool = False, where: Place = _ANYWHERE) -> BoundedPattern:
    """``pattern`` compiled once per process (``regex.error``, a subclass of ValueError, when invalid)."""
    return BoundedPattern(pattern, regex.DOTALL if dotall else 0, where)
