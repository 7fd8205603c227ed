"""The rejections section as Markdown for report.md (a pull-request comment).

A PR comment holds 65,536 characters for the whole report, so this section stays compact: the
delta (introduced / fixed / persisting per lane and rule), then undeclared rejections one row per
lane, rule and side (those are findings), up to ``MAX_ROWS``; declared ones are
documented trade-offs, summarized one line per (rule, reason) with the lanes and cases they
cover and the evidence (receipt id, recorded status and message, source link) a reviewer can paste
into a discussion. report.json keeps every finding in full, and the Markdown says so where it cuts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness._reject.delta import KINDS, failing, persisting_undeclared

__all__ = ["FORMS", "MAX_NAMES", "MAX_RECEIPTS", "MAX_ROWS", "delta_line", "headline", "render_markdown", "text_lines",
           "warning_lines"]

FORMS = ("full", "short", "findings")  # what report.md's budget asks for (harness/_report/markdown.py)

_MAX_MESSAGE = 140
_MAX_EVIDENCE = 100  # a declared line quotes the message shorter: it already carries lanes and cases
MAX_RECEIPTS = 3
MAX_ROWS = 60
MAX_NAMES = 8

Row = tuple[Mapping[str, Any], Mapping[str, Any]]


def _cell(text: Any) -> str:
    value = " ".join(str(text if text is not None else "").split())
    return value.replace("|", "\\|")


def _message(text: str, limit: int = _MAX_MESSAGE) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _link(receipt: Mapping[str, Any]) -> str:
    source = str(receipt.get("source_url", ""))
    rid = str(receipt.get("id", "receipt"))
    return f"[{rid}]({source})" if source.startswith("http") else f"{rid} ({source or 'no source'})"


def _receipts_by_id(rejections: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The distinct receipts behind some rejections, by id, the first one seen for each id."""
    receipts: dict[str, Mapping[str, Any]] = {}
    for rej in rejections:
        receipt = rej.get("receipt")
        if receipt:
            receipts.setdefault(str(receipt.get("id", "")), receipt)
    return receipts


def _quote(receipt: Mapping[str, Any]) -> str:
    """One receipt as evidence: id and source link, provenance, status, short message."""
    facts = ", ".join(str(x) for x in (receipt.get("provenance"), receipt.get("status")) if x)
    message = _cell(_message(str(receipt.get("message", "")), _MAX_EVIDENCE)).replace('"', "'")
    return f'{_link(receipt)}{f" {facts}" if facts else ""}: "{message}"'


def _evidence_tail(receipts: Mapping[str, Mapping[str, Any]]) -> str:
    """What the quoted receipts leave out: more receipts, or the rule's other backing receipts."""
    if len(receipts) > MAX_RECEIPTS:
        return f" (+{len(receipts) - MAX_RECEIPTS} more receipt(s))"
    backing = max(int(r.get("receipts", 1) or 1) for r in receipts.values())
    if backing > 1 and len(receipts) == 1:
        return f" (1 of {backing} receipts backing this rule; the cassettes manifest lists all)"
    return ""


def _evidence(rejections: Iterable[Mapping[str, Any]]) -> str:
    """The receipts behind a declared line: id and source link, provenance, status, short message."""
    receipts = _receipts_by_id(rejections)
    if not receipts:
        return "Evidence: no recorded receipt."
    shown = [_quote(receipt) for _, receipt in sorted(receipts.items())[:MAX_RECEIPTS]]
    return f"Evidence: {'; '.join(shown)}{_evidence_tail(receipts)}."


def _names(items: Iterable[str]) -> str:
    """Sorted names, the first MAX_NAMES of them, saying how many more report.json lists."""
    unique = sorted(set(items))
    shown = ", ".join(unique[:MAX_NAMES])
    return shown + (f" +{len(unique) - MAX_NAMES} more" if len(unique) > MAX_NAMES else "")


def _column(members: list[Row], key: str) -> list[str]:
    """One field (``case``, ``lane``, ``side``) of each finding in a group, in order."""
    return [f[key] for f, _ in members]


def _kinds(section: Mapping[str, Any]) -> dict[tuple[str, str, str], str]:
    """(lane, rule, case) -> introduced, fixed or persisting, from the section's delta."""
    out: dict[tuple[str, str, str], str] = {}
    for group in (section.get("delta") or {}).get("groups", []):
        for kind in KINDS:
            for case in group.get(kind, ()):
                out[(group["lane"], group["rule"], case)] = kind
    return out


def _grouped(rows: list[Row]) -> dict[tuple[str, str, str], list[Row]]:
    """Findings by (lane, rule, side), new side first, in a stable order."""
    groups: dict[tuple[str, str, str], list[Row]] = {}
    for finding, rej in sorted(rows, key=lambda fr: (fr[0]["side"] != "new", fr[0]["lane"], fr[1]["rule"],
                                                     fr[0]["case"])):
        groups.setdefault((finding["lane"], rej["rule"], finding["side"]), []).append((finding, rej))
    return groups


def _tally(cases: Iterable[str], kinds: Mapping[tuple[str, str, str], str], lane: str, rule: str) -> str:
    """``1 introduced, 2 persisting``: how the cases of one group relate to the other side."""
    counts: dict[str, int] = {}
    for case in set(cases):
        kind = kinds.get((lane, rule, case), "unpaired")
        counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))


def _source_cell(receipt: Mapping[str, Any]) -> str:
    """A group row's source: the receipt's id linked, with its provenance, or the bare source."""
    source = str(receipt.get("source_url", ""))
    if source.startswith("http"):
        return f"[{receipt.get('id', 'receipt')}]({source}) {receipt.get('provenance', '')}"
    return source


def _first_location(members: list[Row]) -> str:
    """The first location of a group, with how many others it has."""
    locations = sorted({str(r["location"]) for _, r in members})
    return f"`{locations[0]}`" + (f" +{len(locations) - 1}" if len(locations) > 1 else "")


def _group_row(members: list[Row], kinds: Mapping[tuple[str, str, str], str]) -> str:
    finding, rej = members[0]
    receipt = rej.get("receipt") or {}
    cases = _column(members, "case")
    return "| " + " | ".join(_cell(c) for c in (
        finding["lane"], rej["rule"], finding["side"], _names(cases),
        _tally(cases, kinds, finding["lane"], rej["rule"]), _first_location(members),
        _message(str(receipt.get("message", ""))), _source_cell(receipt))) + " |"


def _undeclared(rows: list[Row], kinds: Mapping[tuple[str, str, str], str], fail_on: str) -> list[str]:
    if not rows:
        return []
    groups = _grouped(rows)
    fails = "each one the old pipeline did not have fails the run" if fail_on == "introduced" else "each fails the run"
    out = ["", f"Undeclared ({len(rows)} in {len(groups)} group(s) by lane, rule and side; on the new pipeline "
           f"{fails}):", "",
           "| lane | rule | side | cases | against the other side | location | message | source |",
           "|---|---|---|---|---|---|---|---|"]
    out += [_group_row(members, kinds) for members in list(groups.values())[:MAX_ROWS]]
    if len(groups) > MAX_ROWS:
        out += ["", f"… and {len(groups) - MAX_ROWS} more group(s): every finding is in report.json "
                "(`rejections.findings`)."]
    return out


def _delta_headline(totals: Mapping[str, Any], fail_on: str) -> str:
    fails = "undeclared introduced" if fail_on == "introduced" else "any undeclared new"
    bodies = totals.get("bodies")
    pairs = (f"in bodies (case x lane): {bodies['introduced']} introduced ({bodies['undeclared']} undeclared), "
             f"{bodies['fixed']} fixed, {bodies.get('silenced', 0)} silenced, {bodies['persisting']} persisting; "
             "per rule: " if bodies else "per case x lane and rule: ")
    return (f"Delta, new against old {pairs}{totals['introduced']} introduced ({totals['undeclared']} "
            f"undeclared), {totals['fixed']} fixed, {totals.get('silenced', 0)} silenced (the new body deleted "
            f"the constraint the rule keys on: not a fix), {totals['persisting']} persisting; the run fails on "
            f"{fails} rejections.")


def _delta_row(group: Mapping[str, Any], subjects: bool) -> str:
    """One subject, lane and rule: how many cases of each kind, naming the first few."""
    cells = [*([group["subject"]] if subjects else []), group["lane"], f"`{group['rule']}`"]
    cells += [f"{len(group.get(k, []))}" + (f" ({_names(group[k])})" if group.get(k) else "") for k in KINDS]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _delta_head(subjects: bool) -> list[str]:
    head = ["subject"] if subjects else []
    return ["| " + " | ".join([*head, "lane", "rule", *KINDS]) + " |",
            "|" + "---|" * (len(head) + 2 + len(KINDS))]


def _delta(section: Mapping[str, Any]) -> list[str]:
    """The introduced / fixed / persisting table, one row per subject, lane and rule."""
    data = section.get("delta")
    if not data or not data["groups"]:
        return []
    groups = data["groups"]
    subjects = len({g["subject"] for g in groups}) > 1
    out = ["", _delta_headline(data["summary"], section.get("fail_on", "any")), "", *_delta_head(subjects)]
    out += [_delta_row(g, subjects) for g in groups[:MAX_ROWS]]
    if len(groups) > MAX_ROWS:
        out += ["", f"… and {len(groups) - MAX_ROWS} more row(s) in report.json (`rejections.delta`)."]
    return out


def _declared_line(rule: str, why: str, members: list[Row]) -> str:
    """One rule and reason: the sides, lanes and cases it covers, and the evidence behind it."""
    sides = sorted(set(_column(members, "side")))
    lanes = _column(members, "lane")
    cases = _column(members, "case")
    reason = _cell(why).rstrip(".") or "(no reason)"
    return (f"- `{rule}`: {len(members)} on the {'/'.join(sides)} pipeline, {len(set(lanes))} lane(s) "
            f"({_names(lanes)}), {len(set(cases))} case(s) ({_names(cases)}): {reason}. "
            f"{_evidence(r for _, r in members)}")


def _declared(rows: list[Row]) -> list[str]:
    """One line per (rule, reason): the trade-off a reviewer must read, with what it covers."""
    if not rows:
        return []
    groups: dict[tuple[str, str], list[Row]] = {}
    for finding, rej in rows:
        groups.setdefault((rej["rule"], str(rej.get("why") or "")), []).append((finding, rej))
    return ["", f"Declared ({len(rows)}; reported without failing, one line per rule and reason; "
            "report.json lists each):", "",
            *(_declared_line(rule, why, members) for (rule, why), members in sorted(groups.items()))]


def _stale(stale: list[Mapping[str, Any]]) -> list[str]:
    if not stale:
        return []
    shown = ", ".join(f"{s['case']}: {s['rule']}" for s in stale[:MAX_ROWS])
    more = f" +{len(stale) - MAX_ROWS} more in report.json" if len(stale) > MAX_ROWS else ""
    return ["", f"Declared rejections that no body set off (out of date?): {shown}{more}"]


_CARRIED = {True: "carried", False: "NOT carried"}


def _gateway_line(finding: Mapping[str, Any]) -> str:
    """How one upstream rejection reached the client through the gateway."""
    a = finding["answer"]
    shape = (f"the envelope of {', '.join(a['envelope_receipts'])}" if a["envelope_receipts"]
             else "no recorded envelope's shape")
    return (f"- `{finding['case']}` on {finding['lane']} ({finding['side']}): `{a['upstream_rule']}` "
            f"({a['upstream_receipt']}, {a['upstream_status']}) reached the client as {a['status']} from "
            f"{a['gateway']}, `{_cell(a['opening'] or 'no known opening')}`, {shape}: "
            f"{_CARRIED.get(a['carried'], 'not judged')}")


def _through_gateway(findings: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The findings whose answer came back from a gateway fronting a rejecting upstream."""
    return [f for f in findings if f.get("answer") and f["answer"].get("upstream_rule")]


def _gateway(findings: list[Mapping[str, Any]]) -> list[str]:
    """Gateway lanes: how each upstream rejection reached the client (harness._pipeline.capture.envelope)."""
    rows = _through_gateway(findings)[:MAX_ROWS]
    if not rows:
        return []
    return ["", "Through a gateway (the upstream's recorded rejection, and what reached the client):", "",
            *map(_gateway_line, rows)]


def _split(section: Mapping[str, Any]) -> tuple[list[Row], list[Row], list[Row]]:
    """Every (finding, rejection) of the section; the undeclared ones; the declared ones."""
    rows = [(f, r) for f in section.get("findings", []) for r in f.get("rejections", [])]
    undeclared: list[Row] = []
    declared: list[Row] = []
    for row in rows:
        (declared if row[1]["expected"] else undeclared).append(row)
    return rows, undeclared, declared


def _failing_table(section: Mapping[str, Any], undeclared: list[Row], fail_on: str) -> str:
    """The ``findings`` form: the undeclared rejections of the new pipeline that fail the run."""
    fails = set(failing(section.get("findings", []), fail_on))
    hits = [(f, r) for f, r in undeclared if f["side"] == "new" and (f["case"], f["lane"], r["rule"]) in fails]
    table = _undeclared(hits, _kinds(section), fail_on)
    return "\n".join(["## Undeclared known rejections", *table]) + "\n" if hits else ""


def _counts(section: Mapping[str, Any]) -> str:
    summary = section.get("summary", {})
    catalog = section.get("catalog", {})
    hits = (f"{summary.get('new_undeclared', 0)} undeclared and {summary.get('new_expected', 0)} declared "
            f"rejection(s) on the new pipeline, {summary.get('old', 0)} on the old")
    checked = (f"{summary.get('bodies', 0)} bodies checked against {catalog.get('rules', 0)} rules "
               f"({catalog.get('receipts', 0)} receipts)")
    if "new_rejected_bodies" not in summary:
        return f"{checked}: {hits}."
    return (f"{checked}: {summary['new_rejected_bodies']} new bodies rejected ({summary['new_undeclared_bodies']} "
            f"with an undeclared rejection), {summary['old_rejected_bodies']} old ones; in hits (one per rule and "
            f"place): {hits}.")


def _warnings(section: Mapping[str, Any]) -> list[str]:
    """The terminal's warnings, as a quoted block a reviewer cannot miss."""
    found = warning_lines(section)
    return ["", *(f"> **{line.strip()}**" for line in found)] if found else []


def render_markdown(section: Mapping[str, Any], form: str = "full") -> str:
    """Undeclared rejections as table rows; declared ones one line per rule and reason. ``form``:
    ``full``; ``short`` (counts, delta and undeclared rows; declared ones only counted); or
    ``findings`` (the undeclared rejections of the new pipeline that fail the run; empty when none)."""
    rows, undeclared, declared = _split(section)
    fail_on = str(section.get("fail_on", "any"))
    if form == "findings":
        return _failing_table(section, undeclared, fail_on)
    lines = ["## Known rejections", "", _counts(section), *_warnings(section)]
    if not rows:
        lines += ["", "No known rejection on any lane."]
    lines += _delta(section)
    lines += _undeclared(undeclared, _kinds(section), fail_on)
    if form == "short":
        return "\n".join(lines) + "\n"
    lines += _declared(declared)
    lines += _gateway(list(section.get("findings", [])))
    lines += _stale(list(section.get("stale_declarations", [])))
    return "\n".join(lines) + "\n"


def _rejected_lines(section: Mapping[str, Any]) -> list[str]:
    """One line per lane and rule of the new pipeline's undeclared rejections."""
    kinds = _kinds(section)
    rows = [(f, r) for f, r in _split(section)[1] if f["side"] == "new"]
    lines = []
    for (lane, rule, side), members in _grouped(rows).items():
        cases = _column(members, "case")
        lines.append(f"  REJECTED {rule} on {lane} ({side}): {len(set(cases))} case(s), "
                     f"{_tally(cases, kinds, lane, rule)}: {_names(cases)}")
    return lines


def headline(section: Mapping[str, Any]) -> str:
    """Bodies rejected per side (the unit a reader counts in), hits per rule and place as detail.
    A report from before the body counts existed says hits alone, and says so."""
    s = section["summary"]
    if (section.get("catalog") or {}).get("rules") == 0:  # `rules: none`: nothing was judged
        return (f"rejections: off, no rule in use (rules: none): {s['bodies']} bodies built, none checked "
                "against a recorded rejection")
    hits = f"new {s['new_undeclared']} undeclared + {s['new_expected']} declared, old {s['old']}"
    if "new_rejected_bodies" not in s:
        return f"rejections: {s['bodies']} bodies checked; hits (rule x place): {hits} (details in report.md)"
    return (f"rejections: {s['bodies']} bodies checked; new pipeline: {s['new_rejected_bodies']} bodies rejected "
            f"({s['new_undeclared_bodies']} with an undeclared rejection); old pipeline: "
            f"{s['old_rejected_bodies']} bodies rejected; hits (rule x place): {hits} (details in report.md)")


# what each --fail-on-rejections setting fails on, in the words of the delta line beside it
_FAILS_ON = {"introduced": "undeclared introduced (--fail-on-rejections introduced)",
             "any": "every undeclared rejection (--fail-on-rejections any)"}


def delta_line(section: Mapping[str, Any]) -> str | None:
    """The delta in case x lane pairs when the report has them, else per case x lane x rule."""
    data = section.get("delta")
    if not data:
        return None
    t = data["summary"]
    fail_on = section.get("fail_on", "any")
    unit, counts = ("bodies", t["bodies"]) if "bodies" in t else ("case x lane x rule", t)
    return (f"  delta in {unit} (new against old): {counts['introduced']} introduced ({counts['undeclared']} "
            f"undeclared), {counts['fixed']} fixed, {counts.get('silenced', 0)} silenced (constraint lost, not a "
            f"fix), {counts['persisting']} persisting; fails on: {_FAILS_ON.get(fail_on, fail_on)}")


def warning_lines(section: Mapping[str, Any]) -> list[str]:
    """What must not pass unremarked, even quiet: undeclared rejections the run passes because the
    old side had them too (a first run), and rules that never saw what they judge."""
    lines = []
    kept = persisting_undeclared(section)
    if kept:
        rules = sorted({rule for _, _, rule in kept})
        lanes = sorted({lane for _, lane, _ in kept})
        lines.append(f"  WARNING: {len(kept)} undeclared known rejection(s) on the new pipeline are persisting "
                     f"({len(rules)} rule(s): {_names(rules)}; lanes: {_names(lanes)}): the old pipeline has them "
                     "too (old and new the same code, or no baseline yet), so --fail-on-rejections introduced "
                     "does not fail on them. The provider refuses these bodies: declare each, or run with "
                     "--fail-on-rejections any.")
    for lane, blind in sorted((section.get("unselected") or {}).items()):
        lines.append(f"  WARNING: on {lane}, {len(blind['rules'])} rule(s) selected nothing in {blind['bodies']} "
                     f"bodies ({_names(blind['rules'])}): the lane's bodies never hold the fields these rules "
                     "judge, so they pass unjudged: the bodies spell those fields another way, or the rules were "
                     "recorded on another request shape than this lane's (then nothing recorded judges the lane for "
                     "them).")
    return lines


def _silenced_lines(section: Mapping[str, Any]) -> list[str]:
    """One line per lane and rule whose rejection the new pipeline silenced rather than fixed."""
    groups = [g for g in (section.get("delta") or {}).get("groups", []) if g.get("silenced")]
    return [f"  SILENCED {g['rule']} on {g['lane']}: {len(g['silenced'])} case(s), the new body deleted what the "
            f"rule keys on (not a fix): {_names(g['silenced'])}" for g in groups]


def text_lines(section: Mapping[str, Any] | None, quiet: bool = False) -> list[str]:
    """The terminal's lines: counts and the delta, and the warnings; unless ``quiet``, then one
    line per lane and rule silenced, and per lane and rule of the new pipeline's undeclared
    rejections, with how many each side brought."""
    if not section:
        return ["rejections: not checked"]
    lines = [headline(section), *filter(None, [delta_line(section)]), *warning_lines(section)]
    return lines if quiet else lines + _silenced_lines(section) + _rejected_lines(section)
