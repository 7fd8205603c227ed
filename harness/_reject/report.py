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

from harness._reject.delta import KINDS, failing

__all__ = ["FORMS", "MAX_NAMES", "MAX_RECEIPTS", "MAX_ROWS", "render_markdown", "text_lines"]

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


def _evidence(rejections: Iterable[Mapping[str, Any]]) -> str:
    """The receipts behind a declared line: id and source link, provenance, status, short message."""
    receipts: dict[str, Mapping[str, Any]] = {}
    for rej in rejections:
        receipt = rej.get("receipt") or {}
        if receipt:
            receipts.setdefault(str(receipt.get("id", "")), receipt)
    if not receipts:
        return "Evidence: no recorded receipt."
    shown = []
    for _, receipt in sorted(receipts.items())[:MAX_RECEIPTS]:
        facts = ", ".join(str(x) for x in (receipt.get("provenance"), receipt.get("status")) if x)
        message = _cell(_message(str(receipt.get("message", "")), _MAX_EVIDENCE)).replace('"', "'")
        shown.append(f'{_link(receipt)}{f" {facts}" if facts else ""}: "{message}"')
    more = len(receipts) - MAX_RECEIPTS
    backing = max(int(r.get("receipts", 1) or 1) for r in receipts.values())
    tail = f" (+{more} more receipt(s))" if more > 0 else (
        f" (1 of {backing} receipts backing this rule; the cassettes manifest lists all)"
        if backing > 1 and len(receipts) == 1 else "")
    return f"Evidence: {'; '.join(shown)}{tail}."


def _names(items: Iterable[str]) -> str:
    """Sorted names, the first MAX_NAMES of them, saying how many more report.json lists."""
    unique = sorted(set(items))
    shown = ", ".join(unique[:MAX_NAMES])
    return shown + (f" +{len(unique) - MAX_NAMES} more" if len(unique) > MAX_NAMES else "")


def _kinds(section: Mapping[str, Any]) -> dict[tuple[str, str, str], str]:
    """(lane, rule, case) -> introduced, fixed or persisting, from the section's delta."""
    out: dict[tuple[str, str, str], str] = {}
    for group in (section.get("delta") or {}).get("groups", []):
        for kind in KINDS:
            for case in group[kind]:
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


def _group_row(members: list[Row], kinds: Mapping[tuple[str, str, str], str]) -> str:
    finding, rej = members[0]
    receipt = rej.get("receipt") or {}
    source = str(receipt.get("source_url", ""))
    kind = receipt.get("provenance", "")
    link = f"[{receipt.get('id', 'receipt')}]({source}) {kind}" if source.startswith("http") else source
    cases = [f["case"] for f, _ in members]
    locations = sorted({str(r["location"]) for _, r in members})
    where = f"`{locations[0]}`" + (f" +{len(locations) - 1}" if len(locations) > 1 else "")
    return "| " + " | ".join(_cell(c) for c in (
        finding["lane"], rej["rule"], finding["side"], _names(cases),
        _tally(cases, kinds, finding["lane"], rej["rule"]), where,
        _message(str(receipt.get("message", ""))), link)) + " |"


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


def _delta(section: Mapping[str, Any]) -> list[str]:
    """The introduced / fixed / persisting table, one row per subject, lane and rule."""
    data = section.get("delta")
    if not data or not data["groups"]:
        return []
    t = data["summary"]
    fail_on = section.get("fail_on", "any")
    subjects = len({g["subject"] for g in data["groups"]}) > 1
    head = ["subject"] if subjects else []
    out = ["", f"Delta, new against old per case x lane: {t['introduced']} introduced ({t['undeclared']} "
           f"undeclared), {t['fixed']} fixed, {t['persisting']} persisting; the run fails on "
           f"{'undeclared introduced' if fail_on == 'introduced' else 'any undeclared new'} rejections.", "",
           "| " + " | ".join([*head, "lane", "rule", "introduced", "fixed", "persisting"]) + " |",
           "|" + "---|" * (len(head) + 5)]
    for g in data["groups"][:MAX_ROWS]:
        cells = [*([g["subject"]] if subjects else []), g["lane"], f"`{g['rule']}`"]
        cells += [f"{len(g[k])}" + (f" ({_names(g[k])})" if g[k] else "") for k in KINDS]
        out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if len(data["groups"]) > MAX_ROWS:
        out += ["", f"… and {len(data['groups']) - MAX_ROWS} more row(s) in report.json (`rejections.delta`)."]
    return out


def _declared(rows: list[Row]) -> list[str]:
    """One line per (rule, reason): the trade-off a reviewer must read, with what it covers."""
    if not rows:
        return []
    groups: dict[tuple[str, str], list[Row]] = {}
    for finding, rej in rows:
        groups.setdefault((rej["rule"], str(rej.get("why") or "")), []).append((finding, rej))
    out = ["", f"Declared ({len(rows)}; reported without failing, one line per rule and reason; "
           "report.json lists each):", ""]
    for (rule, why), members in sorted(groups.items()):
        sides = sorted({f["side"] for f, _ in members})
        lanes = [f["lane"] for f, _ in members]
        cases = [f["case"] for f, _ in members]
        reason = _cell(why).rstrip(".") or "(no reason)"
        out.append(f"- `{rule}`: {len(members)} on the {'/'.join(sides)} pipeline, {len(set(lanes))} lane(s) "
                   f"({_names(lanes)}), {len(set(cases))} case(s) ({_names(cases)}): {reason}. "
                   f"{_evidence(r for _, r in members)}")
    return out


def _stale(stale: list[Mapping[str, Any]]) -> list[str]:
    if not stale:
        return []
    shown = ", ".join(f"{s['case']}: {s['rule']}" for s in stale[:MAX_ROWS])
    more = f" +{len(stale) - MAX_ROWS} more in report.json" if len(stale) > MAX_ROWS else ""
    return ["", f"Declared rejections that no body set off (out of date?): {shown}{more}"]


def _gateway(findings: list[Mapping[str, Any]]) -> list[str]:
    """Gateway lanes: how each upstream rejection reached the client (harness._pipeline.capture.envelope)."""
    rows = [f for f in findings if f.get("answer") and f["answer"].get("upstream_rule")][:MAX_ROWS]
    if not rows:
        return []
    out = ["", "Through a gateway (the upstream's recorded rejection, and what reached the client):", ""]
    for f in rows:
        a = f["answer"]
        carried = {True: "carried", False: "NOT carried"}.get(a["carried"], "not judged")
        shape = (f"the envelope of {', '.join(a['envelope_receipts'])}" if a["envelope_receipts"]
                 else "no recorded envelope's shape")
        out.append(f"- `{f['case']}` on {f['lane']} ({f['side']}): `{a['upstream_rule']}` "
                   f"({a['upstream_receipt']}, {a['upstream_status']}) reached the client as {a['status']} from "
                   f"{a['gateway']}, `{_cell(a['opening'] or 'no known opening')}`, {shape}: {carried}")
    return out


def render_markdown(section: Mapping[str, Any], form: str = "full") -> str:
    """Undeclared rejections as table rows; declared ones one line per rule and reason. ``form``:
    ``full``; ``short`` (counts, delta and undeclared rows; declared ones only counted); or
    ``findings`` (the undeclared rejections of the new pipeline that fail the run; empty when none)."""
    rows = [(f, r) for f in section.get("findings", []) for r in f.get("rejections", [])]
    undeclared = [(f, r) for f, r in rows if not r["expected"]]
    fail_on = str(section.get("fail_on", "any"))
    if form == "findings":
        fails = set(failing(section.get("findings", []), fail_on))
        hits = [(f, r) for f, r in undeclared if f["side"] == "new" and (f["case"], f["lane"], r["rule"]) in fails]
        table = _undeclared(hits, _kinds(section), fail_on)
        return "\n".join(["## Undeclared known rejections", *table]) + "\n" if hits else ""
    summary = section.get("summary", {})
    catalog = section.get("catalog", {})
    lines = ["## Known rejections", ""]
    lines.append(
        f"{summary.get('bodies', 0)} bodies checked against {catalog.get('rules', 0)} rules "
        f"({catalog.get('receipts', 0)} receipts): {summary.get('new_undeclared', 0)} undeclared and "
        f"{summary.get('new_expected', 0)} declared rejection(s) on the new pipeline, "
        f"{summary.get('old', 0)} on the old."
    )
    if not rows:
        lines += ["", "No known rejection on any lane."]
    lines += _delta(section)
    lines += _undeclared(undeclared, _kinds(section), fail_on)
    if form == "short":
        return "\n".join(lines) + "\n"
    lines += _declared([(f, r) for f, r in rows if r["expected"]])
    lines += _gateway(list(section.get("findings", [])))
    lines += _stale(list(section.get("stale_declarations", [])))
    return "\n".join(lines) + "\n"


def text_lines(section: Mapping[str, Any] | None, quiet: bool = False) -> list[str]:
    """The terminal's lines: counts and the delta; unless ``quiet``, then one line per lane and
    rule of the new pipeline's undeclared rejections, with how many each side brought."""
    if not section:
        return ["rejections: not checked"]
    s = section["summary"]
    lines = [f"rejections: {s['bodies']} bodies checked; new pipeline: {s['new_undeclared']} undeclared, "
             f"{s['new_expected']} declared; old pipeline: {s['old']} (details in report.md)"]
    data = section.get("delta")
    if data:
        t = data["summary"]
        lines.append(f"  delta (new against old): {t['introduced']} introduced ({t['undeclared']} undeclared), "
                     f"{t['fixed']} fixed, {t['persisting']} persisting; fails on: {section.get('fail_on', 'any')}")
    if quiet:
        return lines
    kinds = _kinds(section)
    rows = [(f, r) for f in section["findings"] if f["side"] == "new" for r in f["rejections"]
            if not r.get("expected")]
    for (lane, rule, side), members in _grouped(rows).items():
        cases = [f["case"] for f, _ in members]
        lines.append(f"  REJECTED {rule} on {lane} ({side}): {len(set(cases))} case(s), "
                     f"{_tally(cases, kinds, lane, rule)}: {_names(cases)}")
    return lines
