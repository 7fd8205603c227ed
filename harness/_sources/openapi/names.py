"""Tool and field names: sanitised to [A-Za-z0-9_], numbered from _2 on a clash, 64 at most."""

from __future__ import annotations

import re

__all__ = ["MAX_NAME", "NameTaker", "sanitize"]

MAX_NAME = 64
_BAD = re.compile(r"[^A-Za-z0-9_]+")
_RUNS = re.compile(r"_{2,}")


def sanitize(raw: str, fallback: str = "_") -> str:
    """``X-Trace`` -> ``X_Trace``, ``page[size]`` -> ``page_size``, ``get /pets/{id}`` -> ``get_pets_id``."""
    text = _RUNS.sub("_", _BAD.sub("_", raw)).strip("_")
    return (text or fallback)[:MAX_NAME]


class NameTaker:
    """Hands out unique names: the first ``dup``, then ``dup_2``, ``dup_3`` (within MAX_NAME)."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def __contains__(self, name: str) -> bool:
        return name in self.taken

    def take(self, name: str) -> str:
        name = name[:MAX_NAME]
        if name not in self.taken:
            self.taken.add(name)
            return name
        n = 2
        while True:
            suffix = f"_{n}"
            candidate = name[: MAX_NAME - len(suffix)] + suffix
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
            n += 1
