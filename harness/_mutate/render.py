"""The mutation section as Markdown (the ledger table in seed 001's shape, escapes with diffs), and
the short summary ``harness mutate`` prints by default.

``render_markdown``'s ``form`` is what report.md's budget asks for (harness/_report/markdown.py):
``full``, ``short`` (counts, verdict, one line per escape and failed claim) or ``findings`` (the
escapes with their diffs and the failed claims alone; empty when there are none).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness._mutate.results import expand

__all__ = ["FORMS", "counts_line", "pin_runs_line", "render_markdown", "render_summary"]

FORMS = ("full", "short", "findings")

_RESULT = {"exact": "exact", "collateral": "claimed + collateral", "failed": "**CLAIM FAILED**",
           "equivalent": "equivalent (held)", "pending": "pending"}


def _compact(pins: list[str]) -> list[str]:
    """Case-file pins grouped as ``case::pin`` (with their lanes); other node ids as they are."""
    groups: dict[str, list[str]] = {}
    for pin in pins:
        parts = pin.split("::")
        head = parts[1] if len(parts) == 3 else ""
        if len(parts) == 3 and head.endswith("]") and "[" in head:
            case, _, lane = head[:-1].partition("[")
            groups.setdefault(f"{case}::{parts[2]}", []).append(lane)
        else:
            groups.setdefault(pin, [])
    return [f"`{name}` ({', '.join(lanes)})" if lanes else f"`{name}`" for name, lanes in groups.items()]


def _pins(pins: list[str], limit: int = 6) -> str:
    if not pins:
        return "—"
    shown = _compact(pins)
    more = f"<br>… and {len(shown) - limit} more" if len(shown) > limit else ""
    return "<br>".join(shown[:limit]) + more


def _red(claim: dict[str, Any]) -> str:
    """The claimed pins that turned red, then how many others did (collateral)."""
    claimed = set(claim["claimed"])
    hit = [p for p in claim["red"] if p in claimed]
    other = [p for p in claim["red"] if p not in claimed]
    text = _pins(hit) if hit else ("—" if not other else "")
    if other:
        groups = _compact(other)
        text += ("<br>" if hit else "") + f"+ {len(other)} collateral: " + ", ".join(groups[:3])
        text += f" … (+{len(groups) - 3})" if len(groups) > 3 else ""
    return text


def _site(m: dict[str, Any]) -> str:
    where = f"{m['file']}:{m['line']}"
    return f"`{where}` {m['function']}" if m.get("function") else f"`{where}`"


def _ledger_table(mutants: list[dict[str, Any]]) -> list[str]:
    declared = [m for m in mutants if m["kind"] == "declared"]
    if not declared:
        return []
    out = ["### Ledger", "", "| mutant | site | claimed pins | pins that turned red | result |",
           "|---|---|---|---|---|"]
    for m in declared:
        claim = m["claim"]
        claimed = f"equivalent: {claim['equivalent']}" if claim.get("equivalent") else _pins(claim["claimed"])
        result = _RESULT.get(claim["result"], claim["result"])
        if claim["result"] == "failed":
            result += f" ({claim['note']})"
        title = m["title"].replace("|", "\\|")
        out.append(f"| {m['id']}: {title} | {_site(m)} | {claimed} | {_red(claim)} | {result} |")
    return [*out, ""]


def _escapes(mutants: list[dict[str, Any]]) -> list[str]:
    escaped = [m for m in mutants if m["status"] in ("survived", "no_coverage")]
    if not escaped:
        return ["### Escapes", "", "None: every mutant that ran turned at least one pin red.", ""]
    out = ["### Escapes", "", f"{len(escaped)} mutant(s) no pin caught:", ""]
    for m in escaped:
        covering = len(m["covered_by"])
        why = "no pin reaches it" if m["status"] == "no_coverage" else f"{covering} covering pin(s) stayed green"
        out += [f"#### {m['id']} — {m['title']}", "", f"{_site(m)}; {why}.", "",
                "```diff", m["diff"].rstrip(), "```", ""]
    return out


def _pin_lines(section: dict[str, Any]) -> list[str]:
    """Per-pin kills in brief (the full table is in mutation.json and the HTML matrix): which pins
    kill something no other pin kills, and which kill nothing at all."""
    rows = section.get("pin_kills", [])
    if not rows:
        return []
    unique = [r for r in rows if r["unique_kills"]]
    idle = [r.get("group", r["pin"]) for r in rows if not r["kills"]]  # a pin group is one pin
    out = ["### Pins", "", f"{len(rows)} pins: {len(rows) - len(idle)} kill at least one mutant, "
           f"{len(unique)} kill one that no other pin kills, {len(idle)} kill none.", ""]
    if unique:
        out += ["Unique killers:", ""]
        out += [f"- `{r.get('group', r['pin'])}`: {', '.join(r['unique'])}" for r in unique]
        out.append("")
    if idle:
        out += ["Pins no mutant turned red (no mutant here changes what they check):", ""]
        out += [f"- {group}" for group in _compact(idle)]
        out.append("")
    excluded = section["pins"]["excluded"]
    if excluded:
        out += ["Left out (not passing on unmutated code):", ""]
        out += [f"- `{e['pin']}`: {e['outcome']} {e['detail']}".rstrip() for e in excluded]
        out.append("")
    return out


def pin_runs_line(section: dict[str, Any]) -> str:
    """The pin runs made and saved over every mutant row; empty for a section without them."""
    runs = section.get("pin_runs")
    if not runs:
        return ""
    mode = " (--first-kill: rows stop at their first kill)" if section.get("first_kill") else ""
    return (f"pin runs: {runs['run']} made, {runs['saved']} saved ({runs['saved_by_observations']} by observations "
            f"equal to the baseline's, {runs['saved_by_lines']} by line coverage){mode}")


def counts_line(section: dict[str, Any]) -> str:
    """The one-line tally. No mutant at all says so instead of claiming a score; pending mutants
    are counted with the missing shards named, and the score then covers only the mutants run."""
    t = section["totals"]
    if not t["total"]:
        why = ("the diff touches no target function" if section.get("in_diff")
               else "no target function and no declared mutant")
        return f"no mutants: {why}."
    pending = ""
    if t["pending"]:
        missing = section.get("shards_missing") or []
        pending = f", {t['pending']} pending" + (f" (shards missing: {', '.join(missing)})" if missing else "")
    if t["score"] is None:
        score = "No score: no mutant was judged"
    else:
        ran = t["total"] - t["pending"]
        score = f"Score {t['score']}%" + (f" of the {ran} run, INCOMPLETE" if t["pending"] else "")
    return (f"{t['total']} mutants: {t['killed']} killed, {t['timeout']} timeout, {t['survived']} survived, "
            f"{t['no_coverage']} no coverage, {t['unviable']} unviable, {t['equivalent']} equivalent"
            f"{pending}. {score}.")


def _verdict_lines(section: dict[str, Any]) -> list[str]:
    verdict, out = section["verdict"], []
    if not verdict["complete"]:
        missing = section.get("shards_missing") or []
        where = f"shards missing: {', '.join(missing)}" if missing else "interrupted or missing shards"
        out += [f"Incomplete: {section['totals']['pending']} mutant(s) pending, never run ({where}); "
                "this is no pass.", ""]
    if verdict["claims_failed"]:
        out += [f"Claims failed: {', '.join(section['claims_failed'])}.", ""]
    if verdict["escaped_over_threshold"]:
        limits = ", ".join(f"{k} {v}" for k, v in section["threshold"].items() if v is not None)
        out += [f"Escapes ({len(section['escaped'])}) exceed the threshold ({limits}).", ""]
    return out


def _title(prefix: str, section: dict[str, Any]) -> str:
    """The suite, and the pin set when the run was limited to one (a review round)."""
    chosen = section.get("pins", {}).get("set")
    return (f"{prefix}{section.get('suite', '')}".rstrip() + (f" (pin set {chosen})" if chosen else ""))


def render_summary(section: dict[str, Any], out: Path | str | None = None) -> str:
    """What a terminal wants: the counts, the claims, one line per escape, where the reports are.
    The diffs stay in mutation.md (``--format markdown``); a suite's escapes can run to hundreds."""
    section = expand(section)
    lines = [_title("Mutation: ", section), counts_line(section), *filter(None, [pin_runs_line(section)]), "",
             *_verdict_lines(section),
             *_ledger_table(section["mutants"])]
    for m in section["mutants"]:
        if m["status"] in ("survived", "no_coverage"):
            where = f"{m['file']}:{m['line']}" + (f" {m['function']}" if m.get("function") else "")
            lines.append(f"escaped {m['id']} ({m['status']}) {where}")
    lines += [f"wrote {m['id']} (in its sandbox): " + ", ".join(f"{w['path']} ({w['change']})" for w in m["writes"])
              for m in section["mutants"] if m.get("writes")]
    lines += [f"changed outside the sandbox: {o['path']} ({o['change']})"
              for o in section.get("sandbox", {}).get("outside", [])]
    if out is not None:
        folder = Path(out)
        names = ("mutation.md", "mutation.json", "mutation.html", "mutation-report.json", "mutation-report.html")
        lines += ["", "Reports: " + ", ".join(str(folder / n) for n in names)]
    return "\n".join(lines).strip("\n") + "\n"


def _failed_claims(mutants: list[dict[str, Any]]) -> list[str]:
    return [f"- {m['id']}: {m['title']} ({_site(m)}): {m['claim']['note']}"
            for m in mutants if m.get("claim", {}).get("result") == "failed"]


def _findings(section: dict[str, Any]) -> str:
    claims = _failed_claims(section["mutants"])
    escaped = section["escaped"]
    if not claims and not escaped:
        return ""
    out = [f"## Mutation findings: {len(escaped)} escape(s), {len(claims)} failed claim(s)", ""]
    if claims:
        out += ["Claims that did not hold:", "", *claims, ""]
    if escaped:
        out += _escapes(section["mutants"])
    return "\n".join(out) + "\n"


def _short(section: dict[str, Any]) -> str:
    out = [f"## Mutation: {section.get('suite', '')}".rstrip(), "", counts_line(section), "",
           *_verdict_lines(section), *_failed_claims(section["mutants"])]
    out += [f"- escaped {m['id']} ({m['status']}) {m['file']}:{m['line']} {m.get('function') or ''}".rstrip()
            for m in section["mutants"] if m["status"] in ("survived", "no_coverage")]
    return "\n".join(out) + "\n"


def render_markdown(section: dict[str, Any], form: str = "full") -> str:
    section = expand(section)
    if form == "findings":
        return _findings(section)
    if form == "short":
        return _short(section)
    t = section["totals"]
    head = [_title("## Mutation: ", section), "", counts_line(section), *filter(None, [pin_runs_line(section)]), ""]
    if not t["total"]:
        head += ["Nothing to mutate: no targets (suite.yaml `mutation.targets`, a ledger's `targets`) "
                 "and no declared mutants" + (f" touched by the diff against {section['in_diff']}"
                                              if section.get("in_diff") else "") + ".", ""]
    if section.get("shard"):
        head += [f"Shard(s): {', '.join(section['shard'])}.", ""]
    head += _verdict_lines(section)
    return "\n".join([*head, *_ledger_table(section["mutants"]), *_escapes(section["mutants"]),
                      *_pin_lines(section)]) + "\n"
