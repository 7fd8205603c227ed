"""Decide the verdict for one case x lane from its two Observations and its Expectation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness._common.canonical import sorted_bytes
from harness._compare.paths import diff_paths, path_allowed
from harness._model import Allowance, Expectation, Observation, VerdictKind

__all__ = ["Judgement", "compare", "equal_answers"]


@dataclass(frozen=True)
class Judgement:
    """The verdict, whether it fails the run, and why (``detail`` is for people)."""

    kind: VerdictKind
    failed: bool
    detail: str = ""
    paths: tuple[str, ...] = ()
    unexpected_paths: tuple[str, ...] = field(default=())


def _as_declared(obs: Observation, raises: str | None) -> bool:
    """The side answered, or raised what the case declares: ``TypeError`` or ``TypeError: message
    regex`` (an empty regex matches any message)."""
    if obs.ok or raises is None or obs.error is None:
        return obs.ok
    kind, _, pattern = raises.partition(":")
    return kind.strip() == obs.error.type and re.search(pattern.strip(), obs.error.message) is not None


def _describe(obs: Observation) -> str:
    """How a side that did not answer ended ("" for a side that answered)."""
    if obs.error is None:
        return ""
    return f"{obs.side} {obs.outcome}: {obs.error.type}: {obs.error.message[:200]}"


def _ended_as_declared(old: Observation, new: Observation, exp: Expectation) -> bool:
    """The case declares a divergence, and each side answered or raised as it declares."""
    return exp.kind == "diverges" and _as_declared(old, exp.old_raises) and _as_declared(new, exp.new_raises)


def _errors(old: Observation, new: Observation, exp: Expectation) -> Judgement | None:
    """When either side did not answer: intended if the case declares both sides as they ended."""
    if old.ok and new.ok:
        return None
    if _ended_as_declared(old, new, exp):
        return Judgement("intended", False, exp.why)
    return Judgement("error", True, "; ".join(filter(None, map(_describe, (old, new)))))


_UNRAISED = Judgement("unexpected", True, "declared an error that did not happen: both sides answered")


def _unraised(old: Observation, new: Observation, exp: Expectation) -> Judgement | None:
    """Both sides answered, but the case declares that one raises."""
    return _UNRAISED if exp.old_raises or exp.new_raises else None


_IDENTICAL = Judgement("identical", False)
_STALE = Judgement("identical", True, "declared to diverge, but old and new are identical")


def _identical(old: Observation, new: Observation, exp: Expectation) -> Judgement | None:
    if old.wire != new.wire:
        return None
    return _STALE if exp.kind == "diverges" else _IDENTICAL


def equal_answers(exp: Expectation) -> Judgement:
    """The verdict on two sides that both answered, with the same bytes: what ``compare`` says
    of them, for a caller that made no Observation (the build's commonest unit)."""
    if exp.old_raises or exp.new_raises:
        return _UNRAISED
    return _STALE if exp.kind == "diverges" else _IDENTICAL


def _reordered(old: Observation, new: Observation, exp: Expectation) -> Judgement | None:
    """``reordered`` when only the key order changed, else None. Reordering keys keeps the byte
    length, so only equal lengths are sorted and compared."""
    assert old.wire is not None and new.wire is not None
    if len(old.wire) != len(new.wire) or sorted_bytes(old.value) != sorted_bytes(new.value):
        return None
    if exp.kind == "same":
        return Judgement("reordered", True, "same value, but the key order on the wire changed")
    return Judgement("reordered", False, exp.why)


def _differs(old: Observation, new: Observation, exp: Expectation) -> Judgement:
    """Values differ: intended when every differing path is declared (by the case or above it)."""
    paths = tuple(diff_paths(old.value, new.value))
    rest, above = _above(paths, exp.above)
    if above and not rest:
        return _only_above(exp, above, paths)
    if exp.kind != "diverges":
        return Judgement("unexpected", True, f"{len(rest)} differing path(s)", paths, rest)
    stray = _stray(rest, exp.paths)
    if stray:
        return Judgement("unexpected", True, "differs outside the declared paths", paths, stray)
    return Judgement("intended", False, exp.why + (f"; and where {above}" if above else ""), paths)


def _only_above(exp: Expectation, above: str, paths: tuple[str, ...]) -> Judgement:
    """Every difference is where the suite or the lane lets every case differ."""
    if exp.kind == "diverges":
        return Judgement("unexpected", True, f"declared to diverge, but differs only where {above}", paths, ())
    return Judgement("intended", False, above, paths)


def _stray(paths: tuple[str, ...], declared: tuple[str, ...]) -> tuple[str, ...]:
    """The paths outside the declared ones (none when the case declares no paths: anywhere goes)."""
    return tuple(p for p in paths if not path_allowed(p, declared)) if declared else ()


def _covering(path: str, allowances: tuple[Allowance, ...]) -> Allowance | None:
    return next((a for a in allowances if path_allowed(path, a.paths)), None)


def _above(paths: tuple[str, ...], allowances: tuple[Allowance, ...]) -> tuple[tuple[str, ...], str]:
    """The differing paths no allowance above the case covers, and a sentence naming those that
    covered the others (``suite.yaml allows it: why``)."""
    used: list[Allowance] = []
    rest = []
    for path in paths:
        hit = _covering(path, allowances)
        if hit is None:
            rest.append(path)
        elif hit not in used:
            used.append(hit)
    said = "; ".join(f"{a.source} allows {', '.join(a.paths)}: {a.why}" for a in used)
    return tuple(rest), said


_STEPS = (_errors, _unraised, _identical, _reordered)
"""The verdicts decided before any path is walked, in order; the first that applies holds."""


def compare(old: Observation, new: Observation, exp: Expectation) -> Judgement:
    """The verdict on one case x lane."""
    if old.outcome == new.outcome == "ok" and old.wire == new.wire:  # most units end here
        return equal_answers(exp)
    for step in _STEPS:
        got = step(old, new, exp)
        if got is not None:
            return got
    return _differs(old, new, exp)
