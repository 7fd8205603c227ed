"""Pin references in a ledger's ``killed_by``, resolved against the collected pin node ids.

Forms (``*`` and ``?`` are wildcards; brackets are literal, they hold the lane id):
- full node id ``<file>::<case>[<lane>]::<pin>`` or ``<file>::<test>``, with ``<file>``
  relative to the suite folder or to the project root;
- short ``<case>::<pin>``: that pin on every lane of the case;
- short ``<case>[<lane>]::<pin>``: that pin on one lane.
A reference that matches no collected pin is an error: a typo must never read as "claim failed".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["matches_any", "resolve", "resolve_all", "short_form"]

_LANE = re.compile(r"^(?P<case>[^\[\]]+)(?:\[(?P<lane>[^\]]*)\])?$")


def _pattern(text: str) -> re.Pattern[str]:
    out = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in text)
    return re.compile(f"^{out}$")


def _is_full(ref: str) -> bool:
    head = ref.split("::", 1)[0]
    return "/" in head or head.endswith((".py", ".yaml", ".yml", ".json"))


def short_form(nodeid: str) -> str | None:
    """``<case>[<lane>]::<pin>`` for a case-file pin node id, None for anything else."""
    parts = nodeid.split("::")
    if len(parts) != 3 or not parts[0].endswith((".yaml", ".yml")):
        return None
    return f"{parts[1]}::{parts[2]}"


def _candidates(nodeid: str, prefix: str) -> list[str]:
    """The spellings a ref may use for ``nodeid``: root-relative, suite-relative, short forms."""
    out = [nodeid]
    if prefix and nodeid.startswith(prefix):
        out.append(nodeid[len(prefix):])
    short = short_form(nodeid)
    if short is not None:
        out.append(short)
        head, _, pin = short.partition("::")
        m = _LANE.match(head)
        if m is not None:
            out.append(f"{m.group('case')}::{pin}")
    return out


def resolve(ref: str, nodeids: Sequence[str], prefix: str) -> list[str]:
    """Every collected node id ``ref`` names (in collection order); [] when it names none."""
    pattern = _pattern(ref)
    full = _is_full(ref)
    found: list[str] = []
    for nodeid in nodeids:
        spellings = _candidates(nodeid, prefix)
        spellings = [s for s in spellings if _is_full(s) == full]
        if any(pattern.match(s) for s in spellings):
            found.append(nodeid)
    return found


def resolve_all(refs: Iterable[str], nodeids: Sequence[str], prefix: str) -> tuple[list[str], list[str]]:
    """(the union of matches in collection order, the refs that matched nothing)."""
    matched: set[str] = set()
    missing: list[str] = []
    for ref in refs:
        hits = resolve(ref, nodeids, prefix)
        if not hits:
            missing.append(ref)
        matched.update(hits)
    return [n for n in nodeids if n in matched], missing


def matches_any(nodeid: str, globs: Iterable[str]) -> bool:
    """Whether ``nodeid`` matches one of ``globs`` (``*`` and ``?`` wildcards, brackets literal)."""
    return any(_pattern(g).match(nodeid) for g in globs)
