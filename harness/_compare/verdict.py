"""Decide the verdict for one case x lane from its two Observations and its Expectation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness._common.canonical import sorted_bytes
from harness._compare.paths import diff_paths, path_allowed
from harness._model import Allowance, Expectation, Observation, VerdictKind

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
        return _identical(exp)
    return _reordered(old, new, exp) or _differs(old, new, exp)


def _identical(exp: Expectation) -> Judgement:
    if exp.kind == "diverges":
        return Judgement("identical", True, "declared to diverge, but old and new are identical")
    return Judgement("identical", False)


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
    stray = tuple(p for p in rest if exp.paths and not path_allowed(p, exp.paths))
    if stray:
        return Judgement("unexpected", True, "differs outside the declared paths", paths, stray)
    return Judgement("intended", False, exp.why + (f"; and where {above}" if above else ""), paths)


def _only_above(exp: Expectation, above: str, paths: tuple[str, ...]) -> Judgement:
    """Values differ only where the suite or the lane lets every case differ: intended, unless the
    case declared a divergence of its own (which then did not happen)."""
    if exp.kind == "diverges":
        return Judgement("unexpected", True, f"declared to diverge, but differs only where {above}", paths, ())
    return Judgement("intended", False, above, paths)


def _above(paths: tuple[str, ...], allowances: tuple[Allowance, ...]) -> tuple[tuple[str, ...], str]:
    """The differing paths no allowance above the case covers, and a sentence naming those that
    covered the others (``suite.yaml allows it: why``)."""
    if not allowances:
        return paths, ""
    used: list[Allowance] = []
    rest = []
    for path in paths:
        hit = next((a for a in allowances if path_allowed(path, a.paths)), None)
        if hit is None:
            rest.append(path)
        elif hit not in used:
            used.append(hit)
    said = "; ".join(f"{a.source} allows {', '.join(a.paths)}: {a.why}" for a in used)
    return tuple(rest), said
