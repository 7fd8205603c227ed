"""The way back from strict widening: remove the nulls strict mode put into widened fields.

This is the one function both the live stream (on the end of a tool call) and, in the new
pipeline, the resume path apply. It removes a property whose value is null only when its path
was recorded as widened; a null anywhere else is what the model meant (a nullable field, or a
genuine mistake the input check must see) and stays.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from wire_harness_subjects.openai_strict_resume.paths import items_path, key_path

__all__ = ["remove_strict_nulls"]


def remove_strict_nulls(value: Any, widened: Collection[str], at: str = "") -> Any:
    """``value`` without the nulls of widened fields; ``value`` itself is not modified."""
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        for key, item in value.items():
            path = key_path(at, key)
            if item is None and path in widened:
                continue
            kept[key] = remove_strict_nulls(item, widened, path)
        return kept
    if isinstance(value, list):
        return [remove_strict_nulls(item, widened, items_path(at)) for item in value]
    return value
