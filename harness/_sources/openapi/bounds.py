"""The bounds seed 002 puts on an untrusted document, and the budgets that enforce them.

Per operation (over it: the operation is skipped, or its response schema dropped):
    one resolved schema, parameter or body, expanded      10 000 values, 128 levels
Document-wide (scaled by the document's own size, so a big honest document fits):
    the document, YAML aliases expanded                    2 000 000 values (refused)
    values built while inlining (shared values once)       64 per document value, 50 000..1 000 000;
                                                           half that for response schemas (dropped)
    values all imported tools hold                         64 per document value, 50 000..4 000 000
    top-level input fields of all tools                    8 per document value, 5 000..100 000
                                                           (operations that no longer fit are skipped)

``Sizes`` checks the per-schema bounds, remembering each container it sized for the rest of the
import; ``Budgets.take_held`` counts held values exactly only when the sizes no longer fit.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_VALUES",
    "MAX_SCHEMA_VALUES",
    "Budgets",
    "OverBound",
    "Sizes",
    "TooDeep",
    "TooLarge",
    "count_values",
    "held",
    "is_json_scalar",
]

MAX_SCHEMA_VALUES = 10_000
MAX_DEPTH = 128
MAX_DOCUMENT_VALUES = 2_000_000


class OverBound(Exception):
    """A per-operation bound was passed; ``reason`` is what the summary says."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class TooDeep(OverBound):
    """Nested deeper than MAX_DEPTH levels once refs are inlined."""


class TooLarge(OverBound):
    """More than MAX_SCHEMA_VALUES values once refs are expanded."""


def _clamp(per_value: int, low: int, high: int, values: int) -> int:
    return max(low, min(high, per_value * values))


@dataclass
class Budgets:
    """Document-wide budgets, sized from the document's value count."""

    built_limit: int
    held_limit: int
    fields_limit: int
    built: Counter[str] = field(default_factory=Counter)  # values built, per mode (input, response)
    held: int = 0  # counted exactly (a walk per schema), only once the upper bound runs short
    fields: int = 0
    unheld: list[Any] = field(default_factory=list)  # schemas taken on their expanded size
    unheld_size: int = 0

    @classmethod
    def for_document(cls, values: int) -> Budgets:
        return cls(
            built_limit=_clamp(64, 50_000, 1_000_000, values),
            held_limit=_clamp(64, 50_000, 4_000_000, values),
            fields_limit=_clamp(8, 5_000, 100_000, values),
        )

    @property
    def response_limit(self) -> int:
        return self.built_limit // 2

    def take_held(self, schemas: list[Any], size: int) -> bool:
        """Add what ``schemas`` (of expanded ``size`` together) hold to the held budget, or
        add nothing and answer False when it does not fit. The exact count is a walk of every
        schema; the expanded size is known already and never less, so the walks are made only
        once the sizes alone no longer fit: the answer is the exact count's either way."""
        if self.held + self.unheld_size + size <= self.held_limit:
            self.unheld += schemas
            self.unheld_size += size
            return True
        self.held += held(*self.unheld)
        self.unheld, self.unheld_size = [], 0
        need = held(*schemas)
        if self.held + need > self.held_limit:
            return False
        self.held += need
        return True


_PLAIN = frozenset({str, int, bool, type(None)})
_CONTAINERS = frozenset({dict, list})
_SCALAR = (1, 0)  # the expanded size and height of a scalar


def count_values(value: Any, limit: int) -> tuple[int, bool]:
    """Values in a loaded document (each alias copy counted), stopping just past ``limit``;
    and whether one of them has no JSON meaning (a NaN or an infinity, which Python's JSON reader
    accepts; the YAML reader refuses those itself and reads a date as the text written)."""
    count = 0
    odd = False
    stack = [value]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        kind = type(item)  # the loaders make exact types: `is` beats isinstance on 2M values
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind not in _PLAIN:
            odd = odd or not is_json_scalar(item)
    return count, odd


def is_json_scalar(value: Any) -> bool:
    """A scalar a tool can carry: JSON's."""
    if isinstance(value, (str, int, type(None))):
        return True
    return isinstance(value, float) and math.isfinite(value)


_TOO_DEEP = f"too deep: more than {MAX_DEPTH} levels"
_TOO_LARGE = f"too large: more than {MAX_SCHEMA_VALUES:,} values expanded"


class Sizes:
    """Checks built schemas against the per-schema bounds, remembering every container it sized.

    Expanded size and height are what a schema costs once serialised (a shared node counts at
    every use). Both belong to a container itself, and no built value changes once built, so
    a target the inliner shared between operations is walked once per import, not once per
    schema that holds it (GitHub's responses hold the same few targets 300,000 times over).
    One Sizes per import: the containers it sized are kept alive, so an id is never reused.
    """

    def __init__(self) -> None:
        self.known: dict[int, tuple[int, int]] = {}  # id -> (expanded size, height)
        self._alive: list[Any] = []

    def check(self, *values: Any) -> int:
        """The expanded sizes of ``values`` added up; TooLarge / TooDeep as soon as one of them
        passes a bound (each is bounded on its own)."""
        total = 0
        for value in values:
            total += self._sized(value, 0)[0] if type(value) in _CONTAINERS else 1
        return total

    def _sized(self, node: Any, depth: int) -> tuple[int, int]:
        """(expanded size, height) of a container at ``depth``, walking only containers not
        sized before (a scalar child is counted inline: a call per value was most of the
        cost)."""
        children = node.values() if type(node) is dict else node
        below = depth + 1
        if children and below > MAX_DEPTH:  # the first child is past the bound
            raise TooDeep(_TOO_DEEP)
        known = self.known
        size, height = 1, 0
        for child in children:
            got = (known.get(id(child)) or self._sized(child, below)) if type(child) in _CONTAINERS else _SCALAR
            if below + got[1] > MAX_DEPTH:  # sized before, at a shallower place
                raise TooDeep(_TOO_DEEP)
            size += got[0]
            height = max(height, got[1] + 1)
            if size > MAX_SCHEMA_VALUES:
                raise TooLarge(_TOO_LARGE)
        known[id(node)] = (size, height)
        self._alive.append(node)
        return size, height


def held(*values: Any) -> int:
    """The values ``values`` hold, each schema on its own, a node it shares counted once: what
    a copy of each would hold."""
    return sum(_held(value) for value in values)


def _held(value: Any) -> int:
    if type(value) not in _CONTAINERS:
        return 1
    seen = {id(value)}
    stack = [value]
    count = 0
    while stack:
        node = stack.pop()
        count += 1
        for child in node.values() if type(node) is dict else node:
            if type(child) not in _CONTAINERS:
                count += 1
            elif id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return count
