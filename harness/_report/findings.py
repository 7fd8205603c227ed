"""The rejections section, built one case x lane at a time as the build stage finishes each.

``harness._reject.verdicts.evaluate`` checks every body once the whole build is in memory; a run
instead hands each finished unit here (``add``), so no body outlives its unit. A finding with a
known rejection goes to ``rejections.jsonl`` in the run folder at once and is listed in
report.json, in suite order; a finding without one (no known rejection, not built, not a
request body) is only counted, per lane and status, under ``unlisted``: at 100,000 units the
listed quiet rows were most of the report and told a reader nothing the counts do not.

The section is otherwise what ``evaluate`` gives (the summary, the delta, the stale
declarations, ``fail_on``); ``tests/unit/report/test_findings.py`` holds the two to it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from harness._model import Case, Lane, Observation, Suite
from harness._reject.delta import FAIL_ON, KINDS, delta
from harness._reject.match import Hit
from harness._reject.verdicts import SECTION_VERSION, catalog_of, finding, findings_for_body
from harness._report.sections import Delta, DeltaGroup, Finding, RejectionsSection, RejectionSummary, Stale
from harness._report.stream import OrderedLines

__all__ = ["INDEX", "Fired", "RejectionStream", "fail_on_setting"]

INDEX = "rejections.jsonl"
_GROUP_KINDS = (*KINDS, "undeclared")
_SIDES = ("old", "new")
GroupKey = tuple[str, str, str]  # subject, lane, rule
Fired = tuple[list[tuple[str, Hit]] | None, list[tuple[str, Hit]] | None]
"""The rules fired on old's and new's bodies as (rule id, hit), where a build worker fired them
(``RejectionStream.fire``); None for a side left to ``add``."""


def fail_on_setting(suite: Suite) -> str:
    fail_on = suite.settings.fail_on_rejections
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on_rejections must be one of {FAIL_ON}, not {fail_on!r}")
    return fail_on


def _count_key(side: str, rejection: Mapping[str, Any]) -> str:
    """The summary count a known rejection adds to: old, or new declared (expected) or undeclared."""
    if side == "old":
        return "old"
    return "new_expected" if rejection["expected"] else "new_undeclared"


class RejectionStream:
    """Findings of each finished unit, listed to disk or counted; ``section()`` at the end."""

    def __init__(self, suite: Suite, folder: Path, slots: int) -> None:
        self.suite = suite
        self.catalog = catalog_of(suite)
        self.fail_on = fail_on_setting(suite)
        self.listed: OrderedLines[Finding] = OrderedLines(folder / INDEX, slots * 2)
        self.counts: Counter[str] = Counter()
        self.unlisted: dict[str, Counter[str]] = {}
        self.groups: dict[GroupKey, dict[str, list[tuple[int, str]]]] = {}
        # only cases that declare rejections can have stale declarations: only theirs are kept
        self.declaring = {c.id for c in suite.cases if c.rejections}
        self.seen: set[tuple[str, str, str, str]] = set()
        self.built: set[tuple[str, str, str]] = set()
        self._rules = self.catalog.rules.by_id()

    def fire(self, case: Case, lane: Lane, wires: tuple[bytes | None, bytes | None]) -> Fired:
        """The rules that fire on each side's body, by rule id: the part of ``add`` that grows
        with the bodies, made where they were built (a build worker: the runner's ``prepare``),
        so the parent only writes the findings down. A body shared by both sides is decoded and
        checked once."""
        subject = self.suite.subjects.get(case.subject)
        if subject is not None and subject.output != "request-body":
            return None, None  # no rule runs on these: add() says so without them
        out: list[list[tuple[str, Hit]] | None] = []
        seen: tuple[bytes | None, list[tuple[str, Hit]] | None] = (None, None)
        for wire in wires:
            if wire is not None and wire is not seen[0]:
                seen = wire, [(rule.id, hit) for rule, hit in findings_for_body(self.catalog, lane, json.loads(wire))]
            out.append(seen[1] if wire is not None else None)
        return out[0], out[1]

    def add(self, slot: int, case: Case, lane: Lane, old: Observation | None, new: Observation | None,
            fired: Fired = (None, None)) -> None:
        """The findings of one finished case x lane (``slot``: its place in the suite); ``fired``:
        what ``fire`` gave on the same bodies."""
        subject = self.suite.subjects.get(case.subject)
        output = subject.output if subject is not None else "request-body"
        rules = self._rules
        pair = {side: cast(Finding, finding(self.catalog, case, lane, side, obs, output,
                                            None if hits is None else [(rules[r], hit) for r, hit in hits]))
                for side, obs, hits in zip(_SIDES, (old, new), fired, strict=True)}
        for i, side in enumerate(_SIDES):
            self._count(slot * 2 + i, pair[side])
        if pair["old"]["rejections"] or pair["new"]["rejections"]:  # else no rule to introduce, fix or keep
            self._delta(slot, case, list(pair.values()))

    def _count(self, slot: int, found: Finding) -> None:
        status = found["status"]
        if status in ("known-rejected", "no-known-rejection"):
            self.counts["bodies"] += 1
        if found["rejections"]:
            self.counts["known_rejected"] += 1
            self.listed.put(slot, found)
        else:
            self.unlisted.setdefault(found["lane"], Counter())[status] += 1
        self.counts.update(_count_key(found["side"], rej) for rej in found["rejections"])
        if found["case"] in self.declaring:
            self._note_declaring(found)

    def _note_declaring(self, found: Finding) -> None:
        """What a case that declares rejections built and set off: the stale check reads it."""
        if found["status"] != "not-built":
            self.built.add((found["case"], found["lane"], found["side"]))
        self.seen.update((found["case"], found["lane"], found["side"], r["rule"]) for r in found["rejections"])

    def _delta(self, slot: int, case: Case, pair: list[Finding]) -> None:
        part = delta(cast(list[Mapping[str, Any]], pair), {case.id: case.subject})
        for group in part["groups"]:
            kinds = self.groups.setdefault((group["subject"], group["lane"], group["rule"]),
                                           {k: [] for k in _GROUP_KINDS})
            for kind in _GROUP_KINDS:
                kinds[kind] += [(slot, name) for name in group[kind]]

    def _stale(self) -> list[Stale]:
        """Declared rejections that no observed body set off (as ``verdicts.evaluate`` finds them)."""
        return [stale for case in self.suite.cases for decl in case.rejections
                if (stale := self._unseen(case, decl)) is not None]

    def _unseen(self, case: Case, decl: Mapping[str, Any]) -> Stale | None:
        sides = ["old", "new"] if decl.get("side") == "both" else [decl.get("side", "new")]
        lanes = list(decl.get("lanes") or case.lanes)
        keys = [(case.id, ln, s) for ln in lanes for s in sides if (case.id, ln, s) in self.built]
        if keys and not any((*k, decl["rule"]) in self.seen for k in keys):
            return {"case": case.id, "rule": decl["rule"], "lanes": lanes, "sides": sides}
        return None

    def _delta_section(self) -> Delta:
        rows: list[DeltaGroup] = []
        for (subject, lane, rule), kinds in sorted(self.groups.items()):
            named = {k: [name for _, name in sorted(kinds[k])] for k in _GROUP_KINDS}
            rows.append({"subject": subject, "lane": lane, "rule": rule, "introduced": named["introduced"],
                         "fixed": named["fixed"], "persisting": named["persisting"],
                         "undeclared": named["undeclared"]})
        totals = {k: sum(len(g[k]) for g in self.groups.values()) for k in _GROUP_KINDS}
        return {"summary": totals, "groups": rows}

    def section(self) -> RejectionsSection:
        """report.json's ``rejections``; the listed findings are read from disk as it is written."""
        self.listed.close()
        c = self.counts
        summary: RejectionSummary = {"bodies": c["bodies"], "known_rejected": c["known_rejected"],
                                     "new_undeclared": c["new_undeclared"], "new_expected": c["new_expected"],
                                     "old": c["old"]}
        receipts = sum(1 for i in self.catalog.interactions if i.entry.outcome == "rejected")
        return {
            "version": SECTION_VERSION,
            "catalog": {"rules": len(self.catalog.rules.rules), "receipts": receipts,
                        "folder": Path(self.catalog.folder).name},
            "summary": summary,
            "findings": self.listed,
            "unlisted": {lane: dict(sorted(c.items())) for lane, c in sorted(self.unlisted.items())},
            "stale_declarations": self._stale(),
            "fail_on": self.fail_on,
            "delta": self._delta_section(),
        }
