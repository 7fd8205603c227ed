"""Offline verdicts: each built body against the rules of every validator its lane fronts.

``evaluate`` returns the ``rejections`` section of report.json (schema:
harness/_report/schemas/rejections.schema.json): per case x lane x side, either the known
rejections (rule, validator, the body's own location, and the receipt: its message, source and
provenance) or none. A case's ``rejections:`` declarations mark a finding as expected, so a
documented trade-off is reported without failing the run. ``delta`` says which rejections the
new pipeline introduced, fixed or inherited (``harness._reject.delta``); ``exit_code`` fails on an
undeclared known rejection of the new pipeline that it introduced (``fail_on: introduced``, the
default) or on any undeclared one (``any``: the suite setting ``fail_on_rejections``, set by
``harness run --fail-on-rejections``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from harness._catalog import BUNDLED, RulesSetting, catalog_path, rules_source
from harness._exitcodes import ExitCode
from harness._model import Case, Lane, Observation, Suite
from harness._reject.cassettes import Catalog, Interaction, load_catalog
from harness._reject.compiled import compiled
from harness._reject.delta import FAIL_ON, delta, failing, persisting_undeclared
from harness._reject.match import Hit
from harness._reject.preload import preload
from harness._reject.report import render_markdown
from harness._reject.rules import Rule
from harness._reject.silenced import silenced_rules
from harness._reject.unselected import LaneSelections, lane_selections

__all__ = ["SECTION_VERSION", "cached_catalog", "catalog_of", "evaluate", "exit_code", "exit_reason", "finding",
           "findings_for_body", "ok_reason", "persisting_undeclared", "preload", "render_markdown", "undeclared_new",
           "unselected"]

SECTION_VERSION = 1
Key = tuple[str, str, str]


@cache
def cached_catalog(root: str, cassettes: str | None, rules: RulesSetting) -> Catalog:
    """A suite's catalog by folder, ``cassettes:`` setting and ``rules:`` setting (globs, a word,
    or None: harness._catalog.rules_source), loaded once per process; the bundled catalog once
    whichever suites use it."""
    bundled = str(catalog_path())
    if not cassettes and rules in (None, BUNDLED) and root != bundled and rules_source(Path(root), rules).bundled:
        return cached_catalog(bundled, None, BUNDLED)
    settings: dict[str, Any] = {}
    if rules is not None:
        settings["rules"] = rules if isinstance(rules, str) else list(rules)
    if cassettes:
        settings["cassettes"] = cassettes
    return load_catalog(Path(root), settings)


def catalog_of(suite: Suite) -> Catalog:
    """The suite's rules and cassettes, loaded once per process."""
    return cached_catalog(suite.root, suite.settings.cassettes, suite.settings.rules)


def _receipt(catalog: Catalog, rule: Rule) -> dict[str, Any] | None:
    """The first interaction backing ``rule``: its message, status, source and provenance."""
    backing: list[Interaction] = catalog.backing(rule.id)
    if not backing:
        return None
    first = backing[0]
    message = _quoted(rule, first)
    prov = first.entry.provenance
    return {
        "id": first.entry.id, "status": first.status, "message": message,
        "source_url": first.entry.source(), "provenance": str(prov.get("kind", "")),
        "date": prov.get("date"), "provider": first.entry.provider, "cassette": first.entry.cassette,
        "receipts": len(backing),
    }


def _quoted(rule: Rule, interaction: Interaction) -> str:
    """The text of a recorded answer the rule's message matches, else its first text."""
    fallback = interaction.texts[0] if interaction.texts else ""
    return next((t for t in interaction.texts if rule.pattern.search(t)), fallback)


def _declared(case: Case, rule_id: str, lane_id: str, side: str) -> str | None:
    """The ``why`` of a declaration covering this hit, else None."""
    for decl in case.rejections:
        if _covers(decl, rule_id, lane_id, side):
            return str(decl.get("why", ""))
    return None


def _covers(decl: Mapping[str, Any], rule_id: str, lane_id: str, side: str) -> bool:
    """A declaration covers a hit of its rule on its lanes (default: every lane) and side (default: new)."""
    return (decl.get("rule") == rule_id and (not decl.get("lanes") or lane_id in decl["lanes"])
            and decl.get("side", "new") in ("both", side))


def findings_for_body(catalog: Catalog, lane: Lane, body: Any,
                      reached: set[str] | None = None) -> list[tuple[Rule, Hit]]:
    """(rule, hit) for every rule of the lane's fronted validators that fires on ``body``;
    ``reached`` gets the ``select`` of each of those rules whose selection found something."""
    return compiled(catalog.rules.for_lane(lane)).fire(body, reached)


def finding(catalog: Catalog, case: Case, lane: Lane, side: str, obs: Observation | None,
            output: str, reached: set[str] | None = None,
            fired: list[tuple[Rule, Hit]] | None = None) -> dict[str, Any]:
    """One case x lane x side's finding (the runner streams these: harness._report.findings).
    ``fired``: ``findings_for_body`` on the observation's body, when a build worker fired the
    rules already (the parent then neither decodes the body nor fires them)."""
    base: dict[str, Any] = {"case": case.id, "lane": lane.id, "side": side, "fronts": list(lane.fronts)}
    if output != "request-body":
        return {**base, "status": "not-a-request-body", "rejections": []}
    if obs is None or obs.outcome != "ok":
        return {**base, "status": "not-built", "rejections": []}
    # the rules fire in this frame: a body nested near the recursion limit leaves few to spare
    if fired is None:
        fired = findings_for_body(catalog, lane, obs.value, reached)
    rejections = [_rejection(catalog, case, lane, side, rule, hit) for rule, hit in fired]
    status = "known-rejected" if rejections else "no-known-rejection"
    return {**base, **_gateway_answer(obs), "status": status, "rejections": rejections}


def _gateway_answer(obs: Observation) -> dict[str, Any]:
    """A gateway side's ``answer``: what reached the client (harness._pipeline.capture.envelope)."""
    return {"answer": dict(obs.answer)} if obs.answer is not None else {}




def _rejection(catalog: Catalog, case: Case, lane: Lane, side: str, rule: Rule, hit: Hit) -> dict[str, Any]:
    """One known rejection of a finding: where, whether a declaration expects it, and its receipt."""
    why = _declared(case, rule.id, lane.id, side)
    return {"rule": rule.id, "validator": rule.validator, "title": rule.title, "location": hit.location,
            "expected": why is not None, "why": why, "receipt": _receipt(catalog, rule)}


_SIDES = {"both": ("old", "new")}


def _declared_keys(case: Case, decl: Mapping[str, Any],
                   built: set[tuple[str, str, str]]) -> tuple[list[tuple[str, str, str]], tuple[str, ...], list[str]]:
    """The built (case, lane, side) keys a declaration covers, with its sides and lanes."""
    side = decl.get("side", "new")
    sides = _SIDES.get(side, (side,))
    lanes = list(decl.get("lanes") or case.lanes)
    keys = [(case.id, ln, s) for ln in lanes for s in sides if (case.id, ln, s) in built]
    return keys, sides, lanes


def _stale(suite: Suite, findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Declared rejections that no observed body set off: documentation that went out of date."""
    seen, built = _observed(findings)
    stale = (_stale_declaration(case, decl, seen, built) for case in suite.cases for decl in case.rejections)
    return [s for s in stale if s is not None]


def _observed(findings: list[dict[str, Any]]) -> tuple[set[tuple[str, str, str, str]], set[tuple[str, str, str]]]:
    """(case, lane, side, rule) of every rejection seen, and (case, lane, side) of every body built."""
    seen = {(f["case"], f["lane"], f["side"], r["rule"]) for f in findings for r in f["rejections"]}
    built = {(f["case"], f["lane"], f["side"]) for f in findings if f["status"] != "not-built"}
    return seen, built


def _stale_declaration(case: Case, decl: Mapping[str, Any], seen: set[tuple[str, str, str, str]],
                       built: set[tuple[str, str, str]]) -> dict[str, Any] | None:
    """The declaration, when it covers built bodies and none of them set its rule off."""
    keys, sides, lanes = _declared_keys(case, decl, built)
    if keys and not any((*k, decl["rule"]) in seen for k in keys):
        return {"case": case.id, "rule": decl["rule"], "lanes": lanes, "sides": list(sides)}
    return None


def _output_of(suite: Suite, case: Case) -> str:
    """What the case's subject builds: only a request body meets provider rules."""
    return suite.subjects[case.subject].output if case.subject in suite.subjects else "request-body"


def _was_run(observations: Mapping[Key, Observation], case_id: str, lane_id: str) -> bool:
    return (case_id, lane_id, "old") in observations or (case_id, lane_id, "new") in observations


def _lost(catalog: Catalog, findings: list[dict[str, Any]],
          observations: Mapping[Key, Observation]) -> dict[tuple[str, str], set[str]]:
    """Per case x lane, the rules the new body silenced by deleting their constraint."""
    rules = catalog.rules.by_id()
    pairs: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for f in findings:
        pairs.setdefault((f["case"], f["lane"]), {})[f["side"]] = f
    out: dict[tuple[str, str], set[str]] = {}
    for (case, lane), sides in pairs.items():
        bodies = [observations.get((case, lane, side)) for side in ("old", "new")]
        values = [obs.value if obs is not None and obs.outcome == "ok" else None for obs in bodies]
        lost = silenced_rules(rules, sides.get("old"), sides.get("new"), *values)
        if lost:
            out[case, lane] = lost
    return out


def _findings(suite: Suite, catalog: Catalog, observations: Mapping[Key, Observation],
              selections: dict[str, LaneSelections]) -> list[dict[str, Any]]:
    """One finding per observed case x lane x side, in case, lane and side order; ``selections``
    gets what each lane's rules selected (``harness._reject.unselected``)."""
    findings: list[dict[str, Any]] = []
    for case in suite.cases:
        output = _output_of(suite, case)
        for lane_id in case.lanes:
            if not _was_run(observations, case.id, lane_id):
                continue  # this case x lane was not part of the run
            lane = suite.lanes[lane_id]
            seen = lane_selections(selections, lane, catalog.rules.for_lane)
            for side in ("old", "new"):
                obs = observations.get((case.id, lane_id, side))
                found = finding(catalog, case, lane, side, obs, output, seen.reached)
                if found["status"] in ("known-rejected", "no-known-rejection") and obs is not None:
                    seen.note(obs.value)
                findings.append(found)
    return findings


def unselected(selections: Mapping[str, LaneSelections]) -> dict[str, dict[str, Any]]:
    """Per lane, the rules that selected nothing in any of its bodies though their head did."""
    out: dict[str, dict[str, Any]] = {}
    for lane, seen in sorted(selections.items()):
        blind = seen.blind()
        if blind:
            out[lane] = {"bodies": seen.bodies, "rules": blind}
    return out


def _summary(findings: list[dict[str, Any]]) -> dict[str, int]:
    statuses = Counter(f["status"] for f in findings)
    hits = Counter((f["side"], bool(r["expected"])) for f in findings for r in f["rejections"])
    rejected = [f for f in findings if f["rejections"]]
    return {
        "bodies": statuses["known-rejected"] + statuses["no-known-rejection"],
        "known_rejected": statuses["known-rejected"],
        "new_undeclared": hits[("new", False)],
        "new_expected": hits[("new", True)],
        "old": hits[("old", False)] + hits[("old", True)],
        "new_rejected_bodies": sum(1 for f in rejected if f["side"] == "new"),
        "new_undeclared_bodies": sum(1 for f in rejected if f["side"] == "new"
                                     and any(not r["expected"] for r in f["rejections"])),
        "old_rejected_bodies": sum(1 for f in rejected if f["side"] == "old"),
    }


def _catalog_counts(catalog: Catalog) -> dict[str, Any]:
    return {"rules": len(catalog.rules.rules),
            "receipts": sum(1 for i in catalog.interactions if i.entry.outcome == "rejected"),
            "folder": Path(catalog.folder).name}


def _fail_on(suite: Suite) -> str:
    fail_on = suite.settings.fail_on_rejections
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on_rejections must be one of {FAIL_ON}, not {fail_on!r}")
    return fail_on


def evaluate(suite: Suite, observations: Mapping[Key, Observation]) -> dict[str, Any]:
    """The report's ``rejections`` section for every observed case x lane x side."""
    catalog = catalog_of(suite)
    selections: dict[str, LaneSelections] = {}
    findings = _findings(suite, catalog, observations, selections)
    fail_on = _fail_on(suite)
    return {
        "version": SECTION_VERSION,
        "catalog": _catalog_counts(catalog),
        "summary": _summary(findings),
        "findings": findings,
        "stale_declarations": _stale(suite, findings),
        "fail_on": fail_on,
        "delta": delta(findings, {c.id: c.subject for c in suite.cases}, _lost(catalog, findings, observations)),
        "unselected": unselected(selections),
    }


def _failing(section: Mapping[str, Any]) -> set[tuple[str, str, str]]:
    return set(failing(section.get("findings", []), str(section.get("fail_on", "any"))))


def exit_code(section: Mapping[str, Any]) -> ExitCode:
    """KNOWN_REJECTION when an undeclared known rejection hits the new pipeline: one it
    introduced (``fail_on: introduced``), or any (``any``, and sections without ``fail_on``)."""
    return ExitCode.KNOWN_REJECTION if _failing(section) else ExitCode.OK


def undeclared_new(section: Mapping[str, Any]) -> dict[str, tuple[list[str], list[str]]]:
    """rule -> (lanes, cases) of every undeclared known rejection of the new pipeline that fails
    the run (see ``exit_code``), in report order."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    for finding, rej in _failing_rejections(section):
        lanes, cases = out.setdefault(rej["rule"], ([], []))
        _append_new(lanes, finding["lane"])
        _append_new(cases, finding["case"])
    return out


def _failing_rejections(section: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """(finding, rejection) of every undeclared rejection of the new pipeline that fails the run."""
    fails = _failing(section)
    for finding, rej in _new_rejections(section):
        if not rej["expected"] and (finding["case"], finding["lane"], rej["rule"]) in fails:
            yield finding, rej


def _new_rejections(section: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """(finding, rejection) of every known rejection of the new pipeline, in report order."""
    return ((f, r) for f in section.get("findings", []) if f["side"] == "new" for r in f["rejections"])


def _append_new(names: list[str], name: str) -> None:
    if name not in names:
        names.append(name)


def _few(names: list[str], shown: int = 2) -> str:
    return ", ".join(names[:shown]) + (f" +{len(names) - shown}" if len(names) > shown else "")


def ok_reason(section: Mapping[str, Any]) -> str | None:
    """Why a run that passes is still not clean, or None: undeclared rejections it inherited."""
    kept = persisting_undeclared(section)
    if not kept:
        return None
    rules = sorted({rule for _, _, rule in kept})
    return (f"not clean: {len(kept)} undeclared known rejection(s) persist on the new pipeline "
            f"({_few(rules)}); the old pipeline has them too, so --fail-on-rejections introduced passes them "
            "(declare them, or --fail-on-rejections any)")


def exit_reason(section: Mapping[str, Any], limit: int = 3) -> str:
    """One short line saying why ``exit_code`` is what it is: the undeclared rejections by rule."""
    groups = undeclared_new(section)
    what = "introduced by" if section.get("fail_on") == "introduced" else "on"
    if not groups:
        return f"no undeclared known rejection {what} the new pipeline"
    count = len(_failing(section))
    parts = [f"{rule} on {_few(lanes)} ({_few(cases)})" for rule, (lanes, cases) in list(groups.items())[:limit]]
    more = f", and {len(groups) - limit} more rule(s)" if len(groups) > limit else ""
    return f"{count} undeclared known rejection(s) {what} the new pipeline: {', '.join(parts)}{more}"
