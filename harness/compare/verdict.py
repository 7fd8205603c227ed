"""Decide the verdict for one case x lane from its two Observations and its Expectation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.canonical import sorted_bytes
from harness.compare.paths import diff_paths, path_allowed
from harness.model import Expectation, Observation, VerdictKind

__all__ = ["Judgement", "compare"]


@dataclass(frozen=True)
class Judgement:
    """The verdict, whether it fails the run, and why (``detail`` is for people)."""

    kind: VerdictKind
    failed: bool
    detail: str = ""
    paths: tuple[str, ...] = ()
    unexpected_paths: tuple[str, ...] = field(default=())


def _raises_matches(expected: str | None, obs: Observation) -> bool:
    """``TypeError`` or ``TypeError: message regex`` against what the side raised."""
    if expected is None or obs.error is None:
        return False
    kind, _, pattern = expected.partition(":")
    if kind.strip() != obs.error.type:
        return False
    return not pattern.strip() or re.search(pattern.strip(), obs.error.message) is not None


def _describe(obs: Observation) -> str:
    assert obs.error is not None
    return f"{obs.side} {obs.outcome}: {obs.error.type}: {obs.error.message[:200]}"


def _errors(old: Observation, new: Observation, exp: Expectation) -> Judgement:
    old_ok = old.ok or _raises_matches(exp.old_raises, old)
    new_ok = new.ok or _raises_matches(exp.new_raises, new)
    if exp.kind == "diverges" and old_ok and new_ok:
        return Judgement("intended", False, exp.why)
    details = [_describe(o) for o in (old, new) if not o.ok]
    return Judgement("error", True, "; ".join(details))


def compare(old: Observation, new: Observation, exp: Expectation) -> Judgement:
    """The verdict on one case x lane."""
    if not (old.ok and new.ok):
        return _errors(old, new, exp)
    if exp.old_raises or exp.new_raises:
        return Judgement("unexpected", True, "declared an error that did not happen: both sides answered")
    if old.wire == new.wire:
        if exp.kind == "diverges":
            return Judgement("identical", True, "declared to diverge, but old and new are identical")
        return Judgement("identical", False)
    # Reordering keys keeps the byte length, so only equal lengths can be "reordered".
    assert old.wire is not None and new.wire is not None
    if len(old.wire) == len(new.wire) and sorted_bytes(old.value) == sorted_bytes(new.value):
        if exp.kind == "same":
            return Judgement("reordered", True, "same value, but the key order on the wire changed")
        return Judgement("reordered", False, exp.why)
    paths = tuple(diff_paths(old.value, new.value))
    if exp.kind != "diverges":
        return Judgement("unexpected", True, f"{len(paths)} differing path(s)", paths, paths)
    stray = tuple(p for p in paths if exp.paths and not path_allowed(p, exp.paths))
    if stray:
        return Judgement("unexpected", True, "differs outside the declared paths", paths, stray)
    return Judgement("intended", False, exp.why, paths)
