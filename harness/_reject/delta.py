"""The rejection delta: what the new pipeline changed, per subject, lane and rule.

For every case x lane where both sides built a request body, each rule that fires is

    introduced   on the new body, not on the old one (the change brought it)
    fixed        on the old body, not on the new one (the change removed it)
    persisting   on both (inherited: not this change's doing)

counted once per case x lane x rule, however many tools of the body it hits. Where the old side
did not build a body, a new rejection cannot be shown to be inherited, so it counts as
introduced. ``--fail-on-rejections introduced`` (the default) fails the run (exit 3) only on an
undeclared rejection the new pipeline introduced; ``any`` on every undeclared one of the new
pipeline, persisting ones too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["FAIL_ON", "KINDS", "delta", "failing"]

FAIL_ON = ("introduced", "any")
KINDS = ("introduced", "fixed", "persisting")
_BUILT = ("known-rejected", "no-known-rejection")
Key = tuple[str, str]


def _by_side(findings: Iterable[Mapping[str, Any]]) -> dict[Key, dict[str, Mapping[str, Any]]]:
    out: dict[Key, dict[str, Mapping[str, Any]]] = {}
    for f in findings:
        out.setdefault((f["case"], f["lane"]), {})[f["side"]] = f
    return out


def _rules(finding: Mapping[str, Any] | None, undeclared_only: bool = False) -> set[str]:
    if not _built(finding):
        return set()
    assert finding is not None
    return {r["rule"] for r in finding["rejections"] if not (undeclared_only and r["expected"])}


def _built(finding: Mapping[str, Any] | None) -> bool:
    return finding is not None and finding.get("status", "known-rejected") in _BUILT


def failing(findings: Iterable[Mapping[str, Any]], fail_on: str) -> list[tuple[str, str, str]]:
    """(case, lane, rule) of each undeclared new rejection that fails the run under ``fail_on``."""
    out = []
    for (case, lane), sides in _by_side(findings).items():
        inherited = _rules(sides.get("old")) if fail_on == "introduced" else set()
        out += [(case, lane, rule) for rule in sorted(_rules(sides.get("new"), undeclared_only=True) - inherited)]
    return out


def delta(findings: Iterable[Mapping[str, Any]], subject_of: Mapping[str, str]) -> dict[str, Any]:
    """The ``delta`` part of the rejections section: counts, then one group per subject, lane and
    rule with the cases in each kind (``undeclared``: introduced ones no case declares)."""
    groups: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    for (case, lane), sides in _by_side(findings).items():
        old, new = sides.get("old"), sides.get("new")
        if not _built(new) and not _built(old):
            continue
        before, after = _rules(old), _rules(new)
        undeclared = _rules(new, undeclared_only=True)
        kinds = {"introduced": after - before, "fixed": before - after if _built(new) else set(),
                 "persisting": after & before}
        for kind, rules in kinds.items():
            for rule in rules:
                group = groups.setdefault((subject_of.get(case, ""), lane, rule),
                                          {k: [] for k in (*KINDS, "undeclared")})
                group[kind].append(case)
                if kind == "introduced" and rule in undeclared:
                    group["undeclared"].append(case)
    rows = [{"subject": s, "lane": ln, "rule": r, **cases} for (s, ln, r), cases in sorted(groups.items())]
    totals = {k: sum(len(g[k]) for g in rows) for k in (*KINDS, "undeclared")}
    return {"summary": totals, "groups": rows}
