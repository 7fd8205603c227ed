"""Canonical JSON: the one byte form every comparison in the harness uses.

Compact separators, key order kept (key order is part of what a pipeline ships), UTF-8,
no NaN or Infinity (not JSON; a provider would refuse them).

Each call runs the C encoder ``json.dumps`` itself ends in, made here directly: ``json.dumps``
with options builds a ``JSONEncoder`` and a closure per call first, a fixed cost as large as
encoding a small body, paid twice per unit by the build stage. The encoder is made per call
(a fraction of a microsecond) because its table of containers being encoded is its own: one
shared between calls would be left holding entries by a call that raised, and between threads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _encoder
from typing import Any

__all__ = ["canonical_bytes", "sorted_bytes"]

_PLAIN = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_SORTED = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=True)


def _direct(sort_keys: bool) -> Callable[[Any], str] | None:
    """``JSONEncoder(...).encode`` without its per-call Python layer, where the C encoder exists."""
    make: Callable[..., Any] | None = getattr(_encoder, "c_make_encoder", None)  # not in the stubs
    if make is None:  # another Python: the pure-Python encoder, through the public class
        return None
    text = _encoder.encode_basestring  # ensure_ascii=False, as json.dumps picks it
    default = _PLAIN.default  # the TypeError json.dumps raises for a value that is not JSON

    def encode(value: Any) -> str:
        if isinstance(value, str):  # the C encoder takes containers and scalars, not a bare string
            return text(value)
        return "".join(make({}, default, text, None, ":", ",", sort_keys, False, False)(value, 0))

    return encode


_ENCODE = _direct(False) or _PLAIN.encode
_ENCODE_SORTED = _direct(True) or _SORTED.encode


def canonical_bytes(value: Any) -> bytes:
    """The wire bytes a pipeline's value serialises to: compact JSON, key order kept."""
    return _ENCODE(value).encode()


def sorted_bytes(value: Any) -> bytes:
    """Bytes with keys sorted: equal for values that differ only in key order."""
    return _ENCODE_SORTED(value).encode()
