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

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from harness._model import Case, Lane, Observation, Suite
from harness._reject.delta import FAIL_ON, KINDS, Lost, delta, totals
from harness._reject.match import Hit
from harness._reject.silenced import silenced_rules
from harness._reject.unselected import LaneSelections, lane_selections
from harness._reject.verdicts import SECTION_VERSION, catalog_of, finding, findings_for_body, unselected
from harness._report.sections import Delta, DeltaGroup, Finding, RejectionsSection, RejectionSummary, Stale, Unselected
from harness._report.stream import OrderedLines

__all__ = ["INDEX", "Fired", "RejectionStream", "fail_on_setting"]

INDEX = "rejections.jsonl"
_GROUP_KINDS = (*KINDS, "undeclared")
_SIDES = ("old", "new")
GroupKey = tuple[str, str, str]  # subject, lane, rule
Fired = tuple[list[tuple[str, Hit]] | None, list[tuple[str, Hit]] | None,
              tuple[tuple[str, ...], tuple[str, ...]] | None]
"""The rules fired on old's and new's bodies as (rule id, hit), where a build worker fired them
(``RejectionStream.fire``), None for a side left to ``add``; and the selects (and selects' heads)
that worker first saw reach something on them (``LaneSelections``), None when ``add`` fires."""


def _value(obs: Observation | None) -> Any:
    """A built body (what the rules read), else None."""
    return obs.value if obs is not None and obs.outcome == "ok" else None


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


def _body_keys(found: Finding) -> list[str]:
    """The per-body counts a rejected body adds to: rejected on its side, and on the new side
    rejected undeclared when any of its rejections is undeclared."""
    if found["side"] == "old":
        return ["old_rejected_bodies"]
    undeclared = any(not r["expected"] for r in found["rejections"])
    return ["new_rejected_bodies", *(["new_undeclared_bodies"] if undeclared else [])]


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
        self.rules = self.catalog.rules.by_id()
        self.selections: dict[str, LaneSelections] = {}
        self.seen: set[tuple[str, str, str, str]] = set()
        self.built: set[tuple[str, str, str]] = set()

    def fire(self, case: Case, lane: Lane, sides: tuple[Observation, Observation]) -> Fired:
        """The rules that fire on each side's body, by rule id, and what their selects reached that
        this process had not seen them reach: the part of ``add`` that grows with the bodies, made
        where they were built (a build worker: the runner's ``prepare``), so the parent only writes
        the findings down. A body shared by both sides is checked once; each is decoded once, by
        its observation, which the report row reads too."""
        subject = self.suite.subjects.get(case.subject)
        if subject is not None and subject.output != "request-body":
            return None, None, None  # no rule runs on these: add() says so without them
        seen = self._selections(lane)
        reached, heads = set(seen.reached), set(seen.heads)
        out: list[list[tuple[str, Hit]] | None] = []
        last: tuple[bytes | None, list[tuple[str, Hit]] | None] = (None, None)
        for obs in sides:
            if obs.wire is not None and obs.wire is not last[0]:
                body = obs.value
                last = obs.wire, [(rule.id, hit) for rule, hit in findings_for_body(self.catalog, lane, body,
                                                                                     seen.reached)]
                seen.note(body)
            out.append(last[1] if obs.wire is not None else None)
        return out[0], out[1], (tuple(seen.reached - reached), tuple(seen.heads - heads))

    def add(self, slot: int, case: Case, lane: Lane, old: Observation | None, new: Observation | None,
            fired: Fired = (None, None, None)) -> None:
        """The findings of one finished case x lane (``slot``: its place in the suite); ``fired``:
        what ``fire`` gave on the same bodies."""
        subject = self.suite.subjects.get(case.subject)
        output = subject.output if subject is not None else "request-body"
        rules = self.rules
        seen = self._selections(lane)
        old_hits, new_hits, learned = fired
        pair = {side: cast(Finding, finding(self.catalog, case, lane, side, obs, output, seen.reached,
                                            None if hits is None else [(rules[r], hit) for r, hit in hits]))
                for side, obs, hits in zip(_SIDES, (old, new), (old_hits, new_hits), strict=True)}
        judged = [obs for side, obs in zip(_SIDES, (old, new), strict=True)
                  if pair[side]["status"] in ("known-rejected", "no-known-rejection")]
        if learned is None:  # fired here: what the rules' selects reached is noted on the bodies
            for obs in judged:
                seen.note(_value(obs))
        else:  # a build worker noted it: what it learned that it had not known joins the lane's
            seen.bodies += len(judged)
            seen.reached.update(learned[0])
            seen.heads.update(learned[1])
        for i, side in enumerate(_SIDES):
            self._count(slot * 2 + i, pair[side])
        if pair["old"]["rejections"] or pair["new"]["rejections"]:  # else no rule to introduce, fix or keep
            lost = self._lost(pair["old"], pair["new"], old, new)
            self._delta(slot, case, list(pair.values()), {(case.id, lane.id): lost} if lost else None)

    def _lost(self, old_found: Finding, new_found: Finding, old: Observation | None,
              new: Observation | None) -> set[str]:
        """The rules the new body no longer sets off because what they key on was deleted; the
        bodies are decoded only when a rejection of the old side is gone from the new."""
        kept = {r["rule"] for r in new_found["rejections"]}
        if all(r["rule"] in kept for r in old_found["rejections"]):
            return set()
        return silenced_rules(self.rules, cast(Mapping[str, Any], old_found), cast(Mapping[str, Any], new_found),
                              _value(old), _value(new))

    def _selections(self, lane: Lane) -> LaneSelections:
        return lane_selections(self.selections, lane, self.catalog.rules.for_lane)

    def _count(self, slot: int, found: Finding) -> None:
        status = found["status"]
        if status in ("known-rejected", "no-known-rejection"):
            self.counts["bodies"] += 1
        if found["rejections"]:
            self.counts["known_rejected"] += 1
            self.counts.update(_body_keys(found))
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

    def _delta(self, slot: int, case: Case, pair: list[Finding], lost: Lost | None) -> None:
        part = delta(cast(list[Mapping[str, Any]], pair), {case.id: case.subject}, lost)
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
                         "fixed": named["fixed"], "silenced": named["silenced"], "persisting": named["persisting"],
                         "undeclared": named["undeclared"]})
        return {"summary": totals(cast(list[Mapping[str, Any]], rows)), "groups": rows}

    def section(self) -> RejectionsSection:
        """report.json's ``rejections``; the listed findings are read from disk as it is written."""
        self.listed.close()
        c = self.counts
        summary: RejectionSummary = {"bodies": c["bodies"], "known_rejected": c["known_rejected"],
                                     "new_undeclared": c["new_undeclared"], "new_expected": c["new_expected"],
                                     "old": c["old"], "new_rejected_bodies": c["new_rejected_bodies"],
                                     "new_undeclared_bodies": c["new_undeclared_bodies"],
                                     "old_rejected_bodies": c["old_rejected_bodies"]}
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
            "unselected": cast(dict[str, Unselected], unselected(self.selections)),
        }
