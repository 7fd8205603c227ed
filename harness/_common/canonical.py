"""Canonical JSON: the one byte form every comparison in the harness uses.

Compact separators, key order kept (key order is part of what a pipeline ships), UTF-8,
no NaN or Infinity (not JSON; a provider would refuse them).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["canonical_bytes", "sorted_bytes"]


def canonical_bytes(value: Any) -> bytes:
    """The wire bytes a pipeline's value serialises to: compact JSON, key order kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def sorted_bytes(value: Any) -> bytes:
    """Bytes with keys sorted: equal for values that differ only in key order."""
    return json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=True
    ).encode()
