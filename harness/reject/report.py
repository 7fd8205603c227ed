"""The rejections section as Markdown for report.md (a pull-request comment)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["render_markdown"]

_MAX_MESSAGE = 140


def _cell(text: Any) -> str:
    value = " ".join(str(text if text is not None else "").split())
    return value.replace("|", "\\|")


def _message(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def _declared_reasons(rows: list[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> list[str]:
    """Each declared rejection's reason once, with the cases it covers: the trade-offs and
    findings a reviewer must read, not only count."""
    reasons: dict[tuple[str, str], set[str]] = {}
    for finding, rej in rows:
        if rej["expected"] and rej.get("why"):
            reasons.setdefault((rej["rule"], str(rej["why"])), set()).add(finding["case"])
    if not reasons:
        return []
    out = ["", "Declared rejections and why:", ""]
    for (rule, why), cases in sorted(reasons.items()):
        out.append(f"- `{rule}` ({len(cases)} case(s): {', '.join(sorted(cases))}): {why}")
    return out


def render_markdown(section: Mapping[str, Any]) -> str:
    """A table of known rejections: lane, case, side, rule, location, message, source."""
    summary = section.get("summary", {})
    catalog = section.get("catalog", {})
    lines = ["## Known rejections", ""]
    lines.append(
        f"{summary.get('bodies', 0)} bodies checked against {catalog.get('rules', 0)} rules "
        f"({catalog.get('receipts', 0)} receipts): {summary.get('new_undeclared', 0)} undeclared and "
        f"{summary.get('new_expected', 0)} declared rejection(s) on the new pipeline, "
        f"{summary.get('old', 0)} on the old."
    )
    rows = [(f, r) for f in section.get("findings", []) for r in f.get("rejections", [])]
    if not rows:
        lines += ["", "No known rejection on any lane."]
        return "\n".join(lines) + "\n"
    rows.sort(key=lambda fr: (fr[0]["side"] != "new", fr[1]["expected"], fr[0]["lane"], fr[0]["case"]))
    lines += ["", "| lane | case | side | rule | location | message | source |",
              "|---|---|---|---|---|---|---|"]
    for finding, rej in rows:
        receipt = rej.get("receipt") or {}
        rule = rej["rule"] + (" (declared)" if rej["expected"] else "")
        source = receipt.get("source_url", "")
        kind = receipt.get("provenance", "")
        link = f"[{receipt.get('id', 'receipt')}]({source}) {kind}" if source.startswith("http") else source
        lines.append("| " + " | ".join(_cell(c) for c in (
            finding["lane"], finding["case"], finding["side"], rule, f"`{rej['location']}`",
            _message(str(receipt.get("message", ""))), link)) + " |")
    lines += _declared_reasons(rows)
    stale = section.get("stale_declarations", [])
    if stale:
        lines += ["", "Declared rejections that no body set off (out of date?): "
                  + ", ".join(f"{s['case']}: {s['rule']}" for s in stale)]
    return "\n".join(lines) + "\n"
