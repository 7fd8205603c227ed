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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_VALUES",
    "MAX_SCHEMA_VALUES",
    "Budgets",
    "OverBound",
    "TooDeep",
    "TooLarge",
    "count_values",
    "is_json_scalar",
    "measure",
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
    built_inputs: int = 0
    built_responses: int = 0
    held: int = 0
    fields: int = 0

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


_PLAIN = frozenset({str, int, bool, type(None)})


def count_values(value: Any, limit: int) -> tuple[int, bool]:
    """Values in a loaded document (each alias copy counted), stopping just past ``limit``;
    and whether one of them has no JSON meaning (a YAML binary, a NaN or an infinity: a YAML
    date is fine, it is read as its ISO text)."""
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
    """A scalar a tool can carry: JSON's, or a YAML date (written out as ISO text)."""
    if value is None or isinstance(value, (str, int, date)):
        return True
    return isinstance(value, float) and math.isfinite(value)


def measure(*values: Any) -> int:
    """Check each built schema against the bounds; return the values they hold together.

    Expanded size and height are what a schema costs once serialised (a shared node counts at
    every use); the return value counts a shared node once, as a copy of the tool would hold
    it. One walk does both, visiting each distinct node once. Raises TooLarge / TooDeep as soon
    as a bound is passed, so a huge DAG costs little.
    """
    seen: dict[int, tuple[int, int]] = {}
    held = 0
    too_deep = f"too deep: more than {MAX_DEPTH} levels"

    def walk(node: Any, depth: int) -> tuple[int, int]:
        # called once per distinct container: a scalar child is counted inline and a container
        # met before is read from ``seen`` here (most values are scalars, and a call per value
        # was most of an import's time)
        nonlocal held
        held += 1
        children = node.values() if type(node) is dict else node
        below = depth + 1
        if children and below > MAX_DEPTH:  # the first child is past the bound
            raise TooDeep(too_deep)
        size, height = 1, 0
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                known = seen.get(id(child))
                if known is None:
                    known = walk(child, below)
                elif below + known[1] > MAX_DEPTH:
                    raise TooDeep(too_deep)
                size += known[0]
                height = known[1] + 1 if known[1] >= height else height
            else:
                held += 1
                size += 1
                height = height or 1
            if size > MAX_SCHEMA_VALUES:
                raise TooLarge(f"too large: more than {MAX_SCHEMA_VALUES:,} values expanded")
        seen[id(node)] = (size, height)
        return size, height

    def top(value: Any) -> None:
        nonlocal held
        if type(value) is dict or type(value) is list:
            walk(value, 0)
        else:
            held += 1

    for value in values:
        seen.clear()  # the bounds hold per schema (a node two of them share counts in each)
        top(value)
    return held

