"""The ``omit`` declaration: operationId -> entries, each a dotted path or {path, where_empty}.

Shape rules (seed 000, "Schema"): lists non-empty and unique; a path is dot-separated with no
empty segment; the object form needs both ``path`` and ``where_empty``; ``where_empty`` is a
single key (no dots); any other key is refused. Both revisions share this check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["Entry", "OmitRefused", "parse_omit"]


class OmitRefused(ValueError):
    """validate refused an ``omit`` declaration; the message says which entry and why."""


@dataclass(frozen=True)
class Entry:
    """One omit entry: the path's segments, and the key for ``where_empty`` (or None)."""

    segments: tuple[str, ...]
    where_empty: str | None = None

    @property
    def path(self) -> str:
        return ".".join(self.segments)


def _segments(path: Any, where: str) -> tuple[str, ...]:
    if not isinstance(path, str) or not path:
        raise OmitRefused(f"{where}: expected a dotted path, found {json.dumps(path)}")
    parts = tuple(path.split("."))
    if any(not p for p in parts):
        raise OmitRefused(f"{where}: path {path!r} has an empty segment")
    return parts


def _entry(raw: Any, where: str) -> Entry:
    if isinstance(raw, str):
        return Entry(_segments(raw, where))
    if not isinstance(raw, dict):
        raise OmitRefused(f"{where}: expected a path or {{path, where_empty}}, found {type(raw).__name__}")
    unknown = sorted(set(raw) - {"path", "where_empty"})
    if unknown:
        raise OmitRefused(f"{where}: unknown key {unknown[0]!r} (allowed: path, where_empty)")
    if "path" not in raw or "where_empty" not in raw:
        raise OmitRefused(f"{where}: the object form needs both path and where_empty")
    key = raw["where_empty"]
    if not isinstance(key, str) or not key or "." in key:
        raise OmitRefused(f"{where}: where_empty must be a single key, found {json.dumps(key)}")
    return Entry(_segments(raw["path"], where), key)


def parse_omit(raw: Any) -> dict[str, tuple[Entry, ...]]:
    """The checked declaration; OmitRefused naming the first entry that breaks a shape rule."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise OmitRefused(f"omit: expected a mapping of operationIds, found {type(raw).__name__}")
    out: dict[str, tuple[Entry, ...]] = {}
    for op, entries in raw.items():
        if not isinstance(entries, list) or not entries:
            raise OmitRefused(f"omit.{op}: expected a non-empty list of entries")
        parsed = tuple(_entry(e, f"omit.{op}[{i}]") for i, e in enumerate(entries))
        if len(set(parsed)) != len(parsed):
            raise OmitRefused(f"omit.{op}: each entry once")
        out[str(op)] = parsed
    return out
