"""Pin references in a ledger's ``killed_by``, resolved against the collected pin node ids.

Forms (``*`` and ``?`` are wildcards; brackets are literal, they hold the lane id):
- full node id ``<file>::<case>[<lane>]::<pin>`` or ``<file>::<test>``, with ``<file>``
  relative to the project root (the node-id root, see docs/stability.md) or to the suite folder;
- short ``<case>::<pin>``: that pin on every lane of the case;
- short ``<case>[<lane>]::<pin>``: that pin on one lane;
- a pin group's id (``<file>::<test>`` for a parametrized test): every item of it.
A glob is matched against the full node id exactly as ``mutation.exclude`` matches it, and also
against the shorter spellings: ``*::test_x`` names a Python pin as it names a case-file pin.
A reference that matches no collected pin is an error: a typo must never read as "claim failed".

Pin groups: the items of one pin that spans several lanes (``<file>::<case>[<lane>]::<pin>`` on
each lane) or several parameters (``<file>::<test>[<param>]``) form one pin, ``group_of`` names
it (``<file>::<case>::<pin>``, ``<file>::<test>``). A group is red when any of its items is red;
ledger claims are judged per group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["group_of", "groups", "matches_any", "resolve", "resolve_all", "short_form"]

_LANE = re.compile(r"^(?P<case>[^\[\]]+)(?:\[(?P<lane>[^\]]*)\])?$")
_PARAM = re.compile(r"^(?P<base>[^\[]+)\[.*\]$")


def _pattern(text: str) -> re.Pattern[str]:
    out = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in text)
    return re.compile(f"^{out}$")


def short_form(nodeid: str) -> str | None:
    """``<case>[<lane>]::<pin>`` for a case-file pin node id, None for anything else."""
    parts = nodeid.split("::")
    if len(parts) != 3 or not parts[0].endswith((".yaml", ".yml")):
        return None
    return f"{parts[1]}::{parts[2]}"


def _candidates(nodeid: str, prefix: str) -> list[str]:
    """The spellings a ref may use for ``nodeid``: root-relative, suite-relative, short forms,
    and the same for its pin group (a ref naming a group names every item of it)."""
    group = group_of(nodeid)
    out = [nodeid] if group == nodeid else [nodeid, group]
    if prefix:
        out += [s[len(prefix):] for s in list(out) if s.startswith(prefix)]
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
    found: list[str] = []
    for nodeid in nodeids:
        if any(pattern.match(s) for s in _candidates(nodeid, prefix)):
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


def group_of(nodeid: str) -> str:
    """The pin a node id is an item of: the lane (case-file pin) or the parameters (Python pin)
    dropped; an item of no group is its own."""
    parts = nodeid.split("::")
    if short_form(nodeid) is not None:
        m = _LANE.match(parts[1])
        if m is not None:
            return f"{parts[0]}::{m.group('case')}::{parts[2]}"
    m = _PARAM.match(parts[-1])
    if len(parts) > 1 and m is not None:
        return "::".join([*parts[:-1], m.group("base")])
    return nodeid


def groups(nodeids: Iterable[str]) -> dict[str, list[str]]:
    """Group id -> its items, both in first-seen order."""
    out: dict[str, list[str]] = {}
    for nodeid in nodeids:
        out.setdefault(group_of(nodeid), []).append(nodeid)
    return out
