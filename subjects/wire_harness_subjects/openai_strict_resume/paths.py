"""Field paths: how a widened field is named, in the harness's selector syntax.

``date``, ``contact.phone``, ``passengers[*].seat``: a key step per object property and ``[*]``
for "every item of this array". The widening records paths with these two functions and the
null removal rebuilds them with the same two while it walks the arguments, so the two sides
can never disagree about spelling. Every path is also a valid selector (``harness.location`` spells it),
so a report or a pin can name a widened field the way it names any place in a body.
"""

from __future__ import annotations

from harness import location

__all__ = ["items_path", "key_path"]


def key_path(at: str, key: str) -> str:
    """The path of property ``key`` of the object at ``at`` (``""`` is the root)."""
    step = location([key])
    return f"{at}.{step}" if at else step


def items_path(at: str) -> str:
    """The path standing for every item of the array at ``at``."""
    return f"{at}[*]"
