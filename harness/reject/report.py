"""The rejections section as Markdown for report.md (a pull-request comment).

A PR comment holds 65,536 characters for the whole report, so this section stays compact:
every undeclared rejection is a row (those are findings), up to ``MAX_ROWS``; declared ones are
documented trade-offs, summarized one line per (rule, reason) with the lanes and cases they
cover and the evidence (receipt id, recorded status and message, source link) a reviewer can paste
into a discussion. report.json keeps every finding in full, and the Markdown says so where it cuts.

``form`` is what report.md's budget asks for (harness/report/markdown.py): ``full`` (the above),
``short`` (the counts and the undeclared rows, declared ones only counted) or ``findings`` (the
undeclared rejections of the new pipeline alone, the ones that fail the run; empty when none).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["FORMS", "MAX_NAMES", "MAX_RECEIPTS", "MAX_ROWS", "render_markdown"]

FORMS = ("full", "short", "findings")

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


def _row(finding: Mapping[str, Any], rej: Mapping[str, Any]) -> str:
    receipt = rej.get("receipt") or {}
    source = str(receipt.get("source_url", ""))
    kind = receipt.get("provenance", "")
    link = f"[{receipt.get('id', 'receipt')}]({source}) {kind}" if source.startswith("http") else source
    return "| " + " | ".join(_cell(c) for c in (
        finding["lane"], finding["case"], finding["side"], rej["rule"], f"`{rej['location']}`",
        _message(str(receipt.get("message", ""))), link)) + " |"


def _undeclared(rows: list[Row]) -> list[str]:
    if not rows:
        return []
    rows = sorted(rows, key=lambda fr: (fr[0]["side"] != "new", fr[0]["lane"], fr[0]["case"], fr[1]["rule"]))
    out = ["", f"Undeclared ({len(rows)}; on the new pipeline each fails the run):", "",
           "| lane | case | side | rule | location | message | source |", "|---|---|---|---|---|---|---|"]
    out += [_row(f, r) for f, r in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        out += ["", f"… and {len(rows) - MAX_ROWS} more undeclared rejection(s): every one is in report.json "
                "(`rejections.findings`)."]
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


def render_markdown(section: Mapping[str, Any], form: str = "full") -> str:
    """Undeclared rejections as table rows; declared ones one line per rule and reason."""
    rows = [(f, r) for f in section.get("findings", []) for r in f.get("rejections", [])]
    if form == "findings":
        failing = [(f, r) for f, r in rows if not r["expected"] and f["side"] == "new"]
        return "\n".join(["## Undeclared known rejections", *_undeclared(failing)]) + "\n" if failing else ""
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
    lines += _undeclared([(f, r) for f, r in rows if not r["expected"]])
    if form == "short":
        return "\n".join(lines) + "\n"
    lines += _declared([(f, r) for f, r in rows if r["expected"]])
    lines += _stale(list(section.get("stale_declarations", [])))
    return "\n".join(lines) + "\n"
