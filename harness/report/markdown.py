"""report.md: fits a pull-request comment. A differential table per subject (case rows x lane
columns), then every failure with its diff, then the pins, then the sections other stages add."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["MARKS", "render", "table"]

MARKS = {
    "identical": "✅ same",
    "reordered": "🔀 order",
    "intended": "◇ intended",
    "unexpected": "❌ DIFF",
    "error": "💥 error",
}


def _cell(row: Mapping[str, Any]) -> str:
    mark = MARKS[row["verdict"]]
    return f"**{mark}** ⚠" if row["failed"] else mark


def table(rows: list[Mapping[str, Any]]) -> str:
    """One subject's rows as a case x lane table."""
    lanes = list(dict.fromkeys(r["lane"] for r in rows))
    cases = list(dict.fromkeys(r["case"] for r in rows))
    cells = {(r["case"], r["lane"]): _cell(r) for r in rows}
    head = "| case | " + " | ".join(f"`{lane}`" for lane in lanes) + " |"
    rule = "|---|" + "---|" * len(lanes)
    body = ["| " + f"`{c}` | " + " | ".join(cells.get((c, lane), "·") for lane in lanes) + " |" for c in cases]
    return "\n".join([head, rule, *body])


def _fence(value: Any, limit: int = 3000) -> str:
    text = json.dumps(value, indent=1, ensure_ascii=False, default=str)
    if len(text) > limit:
        text = text[:limit] + "\n... (cut; the full diff is in report.json)"
    return f"```json\n{text}\n```"


def _failure(row: Mapping[str, Any]) -> str:
    lines = [f"#### `{row['case']}` on `{row['lane']}`: {row['verdict']}", "", row["detail"] or ""]
    if row["unexpected_paths"]:
        lines += ["", "Paths: " + ", ".join(f"`{p}`" for p in row["unexpected_paths"][:20])]
    for side in ("old", "new"):
        err = row[side]["error"]
        if err:
            where = f" (at {err['where']})" if err.get("where") else ""
            lines += ["", f"{side}: `{err['type']}: {err['message'][:300]}`{where}"]
    if row.get("diff"):
        lines += ["", "<details><summary>diff (deepdiff)</summary>", "", _fence(row["diff"]), "", "</details>"]
    return "\n".join(lines)


def _intended(rows: list[Mapping[str, Any]]) -> str:
    """Each declared reason once, with the lanes it covers: divergences, and sameness with a why."""
    seen: dict[str, list[str]] = {}
    for r in rows:
        if r["why"] and not r["failed"]:
            label = "diverges" if r["verdict"] == "intended" else "same"
            seen.setdefault(f"`{r['case']}` ({label}): {r['why']}", []).append(r["lane"])
    return "\n".join(f"- {k} (on {', '.join(f'`{lane}`' for lane in v)})" for k, v in seen.items())


def _pins(pins: Mapping[str, Any] | None) -> str:
    if not pins:
        return ""
    s = pins["summary"]
    expect = sum(1 for p in pins["results"] if p["id"].endswith("::expect"))
    lines = [f"### Pins (against the {pins['against']} pipeline)", "",
             f"{s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped, {s['error']} errors "
             f"({len(pins['results']) - expect} pins and {expect} expect items)."]
    claims = pins.get("catches_old")
    if pins["against"] == "old" and claims is not None:
        # Against old, failing is the point: summarise the claims, name only what needs reading.
        marked = set(claims["marked"])
        lines += ["", f"Pins marked `catches_old`: {claims['failed']} failed against old, as they should; "
                      f"{len(claims['passed'])} passed (a pin that cannot catch the old behaviour)."]
        lines += [f"- passed against old: `{p}`" for p in claims["passed"]]
        unmarked = [p for p in pins["results"] if p["outcome"] == "failed" and p["id"] not in marked]
        if unmarked:
            lines += ["", f"{len(unmarked)} pin(s) not marked `catches_old` also fail against old:"]
            lines += [f"- `{p['id']}`" for p in unmarked[:30]]
        return "\n".join(lines)
    bad = [p for p in pins["results"] if p["outcome"] in ("failed", "error")]
    if bad:
        lines += ["", "| pin | outcome | message |", "|---|---|---|"]
        lines += [f"| `{p['id']}` | {p['outcome']} | {p['message'][:300].replace('|', '/')} |" for p in bad[:100]]
    return "\n".join(lines)


def _demoted(text: str) -> str:
    """A section renderer's own top-level heading sits under this report's '##'."""
    return "\n".join("#" + line if line.startswith("# ") else line for line in text.splitlines())


LIMIT = 60_000  # GitHub refuses a comment over 65,536 characters; leave room for a heading


def _fit(parts: list[str], limit: int = LIMIT) -> str:
    """Join parts; when they do not fit, cut the first part that overflows at a line boundary,
    say so, and drop the rest by name (everything stays in report.json)."""
    out: list[str] = []
    used = 0
    for i, part in enumerate(parts):
        if used + len(part) + 1 <= limit:
            out.append(part)
            used += len(part) + 1
            continue
        room = max(limit - used - 200, 0)
        cut = part[:room].rsplit("\n", 1)[0] if room else ""
        dropped = len(parts) - i - 1
        note = (f"\n\n> report.md cut at {limit:,} characters to fit a pull-request comment"
                f"{f'; {dropped} later section(s) left out' if dropped else ''}: the full report is report.json.")
        out.append(cut + note)
        break
    return "\n".join(out) + "\n"


def render(report: Mapping[str, Any], sections: Mapping[str, Callable[[Any], str]]) -> str:
    """The whole report.md. ``sections`` maps a report key to the renderer its stage ships."""
    s = report["summary"]
    v = s["verdicts"]
    out = [
        f"## wire-harness: suite `{report['suite']['name']}`",
        "",
        f"{s['units']} case x lane runs: {v['identical']} identical, {v['reordered']} reordered, "
        f"{v['intended']} intended divergences, {v['unexpected']} unexpected, {v['error']} errors; "
        f"**{s['failed']} failing**. Exit code {report['exit']['code']} ({report['exit']['reason']}).",
    ]
    by_subject: dict[str, list[Mapping[str, Any]]] = {}
    for row in report["differential"]:
        by_subject.setdefault(row["subject"], []).append(row)
    for subject, rows in by_subject.items():
        out += ["", f"### Differential: `{subject}` (old vs new)", "", table(rows)]
        intended = _intended(rows)
        if intended:
            summary = "<details><summary>Declared divergences (and declared sameness) and why</summary>"
            out += ["", summary, "", intended, "", "</details>"]
    out += ["", "Legend: " + " · ".join(f"{m} = {k}" for k, m in MARKS.items()) + " · ⚠ = fails the run"]
    failures = [r for r in report["differential"] if r["failed"]]
    if failures:
        out += ["", "### Failures", ""] + [_failure(r) + "\n" for r in failures[:50]]
        if len(failures) > 50:
            out.append(f"... and {len(failures) - 50} more in report.json")
    parts = ["\n".join(out)]
    pins = _pins(report.get("pins"))
    if pins:
        parts.append("\n" + pins)
    for key, render_section in sections.items():
        if report.get(key):
            parts.append("\n" + _demoted(render_section(report[key])))
    return _fit(parts)
