"""The rejection delta: what the new pipeline changed, per subject, lane and rule.

For every case x lane where both sides built a request body, each rule that fires is

    introduced   on the new body, not on the old one (the change brought it)
    fixed        on the old body, not on the new one (the change removed it)
    silenced     on the old body, not on the new one, because the new body lost the constraint
                 the rule keyed on (the union or keyword deleted, nothing said in its place:
                 ``harness._reject.silenced``); shown apart from real fixes
    persisting   on both (inherited: not this change's doing)

counted once per case x lane x rule, however many tools of the body it hits. The summary also
counts each kind in case x lane pairs (``bodies``): the unit a headline reads in. Where the old side
did not build a body, a new rejection cannot be shown to be inherited, so it counts as
introduced. ``--fail-on-rejections introduced`` (the default) fails the run (exit 3) only on an
undeclared rejection the new pipeline introduced; ``any`` on every undeclared one of the new
pipeline, persisting ones too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, TypeGuard

__all__ = ["FAIL_ON", "KINDS", "delta", "failing", "persisting_undeclared", "totals"]

FAIL_ON = ("introduced", "any")
KINDS = ("introduced", "fixed", "silenced", "persisting")
_BUILT = ("known-rejected", "no-known-rejection")
Key = tuple[str, str]


def _by_side(findings: Iterable[Mapping[str, Any]]) -> dict[Key, dict[str, Mapping[str, Any]]]:
    out: dict[Key, dict[str, Mapping[str, Any]]] = {}
    for f in findings:
        out.setdefault((f["case"], f["lane"]), {})[f["side"]] = f
    return out


def _built(finding: Mapping[str, Any] | None) -> TypeGuard[Mapping[str, Any]]:
    return finding is not None and finding.get("status", "known-rejected") in _BUILT


def _rules(finding: Mapping[str, Any] | None, undeclared_only: bool = False) -> set[str]:
    if not _built(finding):
        return set()
    return {r["rule"] for r in finding["rejections"] if not (undeclared_only and r["expected"])}


def failing(findings: Iterable[Mapping[str, Any]], fail_on: str) -> list[tuple[str, str, str]]:
    """(case, lane, rule) of each undeclared new rejection that fails the run under ``fail_on``."""
    out = []
    for (case, lane), sides in _by_side(findings).items():
        inherited = _rules(sides.get("old")) if fail_on == "introduced" else set()
        out += [(case, lane, rule) for rule in sorted(_rules(sides.get("new"), undeclared_only=True) - inherited)]
    return out


def persisting_undeclared(section: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(case, lane, rule) of each undeclared known rejection of the new pipeline that the old one
    had too, when the run fails only on introduced ones (a rejections section's ``findings`` and
    ``fail_on``): what a first run (old = new, no baseline) passes without a word unless it is said."""
    if section.get("fail_on") != "introduced":
        return []
    findings = list(section.get("findings", []))
    introduced = set(failing(findings, "introduced"))
    return [key for key in failing(findings, "any") if key not in introduced]


_LISTS = (*KINDS, "undeclared")


def _changes(old: Mapping[str, Any] | None, new: Mapping[str, Any],
             lost: AbstractSet[str] = frozenset()) -> dict[str, set[str]]:
    """The rules of one case x lane by kind, and the introduced ones no case declares; ``lost``:
    the gone ones whose constraint the new body deleted (silenced, not fixed)."""
    before, after = _rules(old), _rules(new)
    introduced = after - before
    gone = before - after
    return {"introduced": introduced, "fixed": gone - lost, "silenced": gone & lost, "persisting": after & before,
            "undeclared": introduced & _rules(new, undeclared_only=True)}


Lost = Mapping[tuple[str, str], AbstractSet[str]]


def delta(findings: Iterable[Mapping[str, Any]], subject_of: Mapping[str, str],
          lost: Lost | None = None) -> dict[str, Any]:
    """The ``delta`` part of the rejections section: counts, then one group per subject, lane and
    rule with the cases in each kind (``undeclared``: introduced ones no case declares).
    ``lost``: per (case, lane), the rules whose constraint the new body deleted
    (``harness._reject.silenced.silenced_rules``)."""
    groups: defaultdict[tuple[str, str, str], dict[str, list[str]]] = defaultdict(_no_cases)
    for (case, lane), sides in _by_side(findings).items():
        new = sides.get("new")
        if not _built(new):  # nothing new to tell apart: no rule is introduced, fixed or kept
            continue
        changes = _changes(sides.get("old"), new, (lost or {}).get((case, lane), frozenset()))
        _file(groups, subject_of.get(case, ""), lane, case, changes)
    rows = [{"subject": s, "lane": ln, "rule": r, **cases} for (s, ln, r), cases in sorted(groups.items())]
    return {"summary": totals(rows), "groups": rows}


def _file(groups: Mapping[tuple[str, str, str], dict[str, list[str]]], subject: str, lane: str, case: str,
          changes: Mapping[str, set[str]]) -> None:
    """File one case under the group of each rule it changed, in each kind of change."""
    for kind, rules in changes.items():
        for rule in rules:
            groups[subject, lane, rule][kind].append(case)


def _no_cases() -> dict[str, list[str]]:
    return {k: [] for k in _LISTS}


def totals(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """How many cases of each kind, over every group, and in how many case x lane pairs
    (``bodies``: a pair with two rules fixed counts once)."""
    rows = list(rows)
    pairs = {k: {(g["lane"], case) for g in rows for case in g[k]} for k in _LISTS}
    return {**{k: sum(len(g[k]) for g in rows) for k in _LISTS}, "bodies": {k: len(pairs[k]) for k in _LISTS}}
