"""The mutation section as Markdown (the ledger table in seed 001's shape, escapes with diffs), and
the short summary ``harness mutate`` prints by default.

``render_markdown``'s ``form`` is what report.md's budget asks for (harness/_report/markdown.py):
``full``, ``short`` (counts, verdict, one line per escape and failed claim) or ``findings`` (the
escapes with their diffs and the failed claims alone; empty when there are none).

Every string of the section is someone's text (a ledger's titles and notes, pin ids, file names),
and mutation.md is pasted into reviews and rendered: before rendering, each has its control
characters escaped (``\x1b``, not a live escape) and ``&``, ``<``, ``>`` written as entities, so a
title cannot open a ``<script>`` or clear a terminal. A mutant's diff goes in a code fence longer
than any run of backticks inside it, its control characters escaped too.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness._common.sanitize import clean_text, walk_strings
from harness._mutate.results import expand, expected_survivor

__all__ = ["FORMS", "claim_lines", "counts_line", "pin_runs_line", "render_markdown", "render_summary"]

FORMS = ("full", "short", "findings")

_RESULT = {"exact": "exact", "collateral": "claimed + collateral", "failed": "**CLAIM FAILED**",
           "equivalent": "equivalent (held)", "unchecked": "**UNCHECKED**", "survives": "survives (expected)",
           "pending": "pending"}
_NOT_HELD = ("failed", "unchecked")  # a claim that did not hold: its note says why


_TICKS = re.compile(r"`+")


def _markdown_text(text: str) -> str:
    """Text from a ledger or a run as Markdown shows it: controls escaped, ``&<>`` as entities
    outside code spans (a title's `` `len(groups) >= 2` `` shows as written: a code span holds no
    HTML, and an entity there would show as typed)."""
    text = clean_text(text)
    out, done, at = [], 0, 0
    while (opening := _TICKS.search(text, at)) is not None:
        run = opening.group()
        closing = re.compile(f"(?<!`){run}(?!`)").search(text, opening.end())
        if closing is None:  # backticks with no partner are plain text: keep looking after them
            at = opening.end()
            continue
        out += [html.escape(text[done:opening.start()], quote=False), text[opening.start():closing.end()]]
        done = at = closing.end()
    return "".join(out) + html.escape(text[done:], quote=False)


def _safe(section: Mapping[str, Any], text: Callable[[str], str]) -> dict[str, Any]:
    """The expanded section with ``text`` applied to every string; diffs keep their characters
    (they go in a code fence), their controls escaped."""
    expanded = expand(section)
    out: dict[str, Any] = walk_strings(expanded, text)
    for mutant, raw in zip(out.get("mutants", []), expanded.get("mutants", []), strict=True):
        if isinstance(raw, dict) and isinstance(raw.get("diff"), str):
            mutant["diff"] = clean_text(raw["diff"])
    return out


def _code(text: str) -> str:
    """``text`` as one code span: a backtick inside would end it early and let what follows render."""
    return "`" + text.replace("`", "'") + "`"


def _fence(diff: str) -> str:
    """A code fence no run of backticks in ``diff`` can close."""
    longest = max((len(run) for run in re.findall(r"`+", diff)), default=0)
    return "`" * max(3, longest + 1)


def _compact(pins: list[str]) -> list[str]:
    """Case-file pins grouped as ``case::pin`` (with their lanes); other node ids as they are."""
    groups: dict[str, list[str]] = {}
    for pin in pins:
        named = _case_pin(pin)
        if named:
            groups.setdefault(named[0], []).append(named[1])
        else:
            groups.setdefault(pin, [])
    return [f"{_code(name)} ({', '.join(lanes)})" if lanes else _code(name) for name, lanes in groups.items()]


def _case_pin(pin: str) -> tuple[str, str] | None:
    """(``case::pin``, lane) for a case-file pin (``file::case[lane]::pin``); None for any other node id."""
    parts = pin.split("::")
    head = parts[1] if len(parts) == 3 else ""
    if not (head.endswith("]") and "[" in head):
        return None
    case, _, lane = head[:-1].partition("[")
    return f"{case}::{parts[2]}", lane


def _pins(pins: list[str], limit: int = 6) -> str:
    if not pins:
        return "—"
    shown = _compact(pins)
    more = f"<br>… and {len(shown) - limit} more" if len(shown) > limit else ""
    return "<br>".join(shown[:limit]) + more


def _red(claim: dict[str, Any]) -> str:
    """The claimed pins that turned red, then how many others did (collateral)."""
    hit, other = _claimed_or_not(claim["red"], set(claim["claimed"]))
    if not other:
        return _pins(hit)
    return (_pins(hit) + "<br>" if hit else "") + _collateral(other)


def _claimed_or_not(red: list[str], claimed: set[str]) -> tuple[list[str], list[str]]:
    """The red pins a claim named, and the others (collateral), each in order."""
    return [p for p in red if p in claimed], [p for p in red if p not in claimed]


def _collateral(other: list[str]) -> str:
    """The red pins a claim did not name: how many, and the first three groups of them."""
    groups = _compact(other)
    more = f" … (+{len(groups) - 3})" if len(groups) > 3 else ""
    return f"+ {len(other)} collateral: " + ", ".join(groups[:3]) + more


def _site(m: dict[str, Any]) -> str:
    where = f"{m['file']}:{m['line']}"
    return f"{_code(where)} {m['function']}" if m.get("function") else _code(where)


def _ledger_table(mutants: list[dict[str, Any]]) -> list[str]:
    declared = [m for m in mutants if m["kind"] == "declared"]
    if not declared:
        return []
    return ["### Ledger", "", "| mutant | site | claimed pins | pins that turned red | result |",
            "|---|---|---|---|---|", *map(_ledger_row, declared), ""]


def _ledger_row(m: dict[str, Any]) -> str:
    claim = m["claim"]
    claimed = _claimed(claim)
    result = _RESULT.get(claim["result"], claim["result"])
    if claim["result"] in _NOT_HELD:
        result += f" ({claim['note']})"
    title = m["title"].replace("|", "\\|")
    return f"| {m['id']}: {title} | {_site(m)} | {claimed} | {_red(claim)} | {result} |"


def _claimed(claim: dict[str, Any]) -> str:
    """What a ledger entry claims: the pins that kill it, or why none can (equivalent) or does (survives)."""
    for kind in ("equivalent", "survives"):
        if claim.get(kind):
            return f"{kind}: {claim[kind]}"
    return _pins(claim["claimed"])


# a claim's verdict in one word, for a line of terminal text
_VERDICT = {"exact": "held (exact)", "collateral": "held (collateral)", "failed": "FAILED", "equivalent": "held",
            "unchecked": "UNCHECKED", "survives": "held", "pending": "pending"}


def claim_lines(section: Mapping[str, Any]) -> list[str]:
    """One line per declared equivalent and expected survivor with its verdict and why, and per
    other claim that did not hold (``harness run --mutate``'s summary; the ledger table has all)."""
    out = []
    for m in expand(section).get("mutants", []):
        claim = m.get("claim")
        if not claim:
            continue
        kind = "equivalent" if claim.get("equivalent") else "expected survivor" if claim.get("survives") else ""
        if kind or claim["result"] in _NOT_HELD:
            out.append(f"{kind or 'claim'} {m['id']}: {_VERDICT.get(claim['result'], claim['result'])} "
                       f"({claim['note']})")
    return out


def _expected(mutants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ledger's expected survivors that still survive: known escapes, listed apart."""
    return [m for m in mutants if expected_survivor(m)]


def _expected_line(m: dict[str, Any]) -> str:
    where = f"{m['file']}:{m['line']}" + (f" {m['function']}" if m.get("function") else "")
    return f"expected survivor {m['id']} ({m['status']}) {where}: {m['claim']['survives']}"


def _expected_block(mutants: list[dict[str, Any]]) -> list[str]:
    """Known escapes (a ledger's ``survives:``), each with its reason; none: nothing at all."""
    return _listed(f"### Expected survivors: {len(_expected(mutants))} (known escapes, a ledger's `survives:`)",
                   [f"- {_expected_line(m)}" for m in _expected(mutants)])


def _escapes(mutants: list[dict[str, Any]]) -> list[str]:
    escaped = _escaped(mutants)
    if not escaped:
        none = ("None beyond the expected survivors." if _expected(mutants)
                else "None: every mutant that ran turned at least one pin red.")
        return ["### Escapes", "", none, ""]
    out = ["### Escapes", "", f"{len(escaped)} mutant(s) no pin caught:", ""]
    for m in escaped:
        covering = len(m["covered_by"])
        why = "no pin reaches it" if m["status"] == "no_coverage" else f"{covering} covering pin(s) stayed green"
        fence = _fence(m["diff"])
        out += [f"#### {m['id']} — {m['title']}", "", f"{_site(m)}; {why}.", "",
                f"{fence}diff", m["diff"].rstrip(), fence, ""]
    return out


def _escaped(mutants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The mutants no pin caught: survived, or reached by no pin at all (less the expected survivors)."""
    return [m for m in mutants if m["status"] in ("survived", "no_coverage")
            and m.get("claim", {}).get("result") != "survives"]


def _escape_line(m: dict[str, Any]) -> str:
    where = f"{m['file']}:{m['line']}" + (f" {m['function']}" if m.get("function") else "")
    return f"escaped {m['id']} ({m['status']}) {where}"


def _wrote(m: dict[str, Any]) -> str:
    """What one mutant's row wrote in its sandbox, beyond its own change."""
    return f"wrote {m['id']} (in its sandbox): " + ", ".join(f"{w['path']} ({w['change']})" for w in m["writes"])


def _listed(heading: str, items: list[str]) -> list[str]:
    """A heading over its list, with the blank lines around it; nothing at all when the list is empty."""
    return [heading, "", *items, ""] if items else []


def _pin_lines(section: Mapping[str, Any]) -> list[str]:
    """Per-pin kills in brief (the full table is in mutation.json and the HTML matrix): which pins
    kill something no other pin kills, and which kill nothing at all."""
    rows = section.get("pin_kills", [])
    if not rows:
        return []
    unique = _unique_killers(rows)
    idle = [_pin_name(r) for r in rows if not r["kills"]]
    return ["### Pins", "", f"{len(rows)} pins: {len(rows) - len(idle)} kill at least one mutant, "
            f"{len(unique)} kill one that no other pin kills, {len(idle)} kill none.", "",
            *_listed("Unique killers:", unique),
            *_listed("Pins no mutant turned red (no mutant here changes what they check):",
                     [f"- {group}" for group in _compact(idle)]),
            *_listed("Left out (not passing on unmutated code):", _left_out(section["pins"]["excluded"]))]


def _unique_killers(rows: list[dict[str, Any]]) -> list[str]:
    """One line per pin that kills a mutant no other pin kills, naming those mutants."""
    return [f"- {_code(_pin_name(r))}: {', '.join(r['unique'])}" for r in rows if r["unique_kills"]]


def _pin_name(row: dict[str, Any]) -> str:
    """A row of the per-pin table by name: a pin group is one pin, named by its group id."""
    return str(row.get("group", row["pin"]))


def _left_out(excluded: list[dict[str, Any]]) -> list[str]:
    """The pins left out of every row, with how they ended on unmutated code."""
    return [f"- {_code(e['pin'])}: {e['outcome']} {e['detail']}".rstrip() for e in excluded]


def pin_runs_line(section: Mapping[str, Any]) -> str:
    """The pin runs made and saved over every mutant row; empty for a section without them."""
    runs = section.get("pin_runs")
    if not runs:
        return ""
    mode = " (--first-kill: rows stop at their first kill)" if section.get("first_kill") else ""
    return (f"pin runs: {runs['run']} made, {runs['saved']} saved ({runs['saved_by_observations']} by observations "
            f"equal to the baseline's, {runs['saved_by_lines']} by line coverage){mode}")


def counts_line(section: Mapping[str, Any]) -> str:
    """The one-line tally. No mutant at all says so instead of claiming a score; pending mutants
    are counted with the missing shards named, and the score then covers only the mutants run."""
    t = section["totals"]
    if not t["total"]:
        why = ("the diff touches no target function" if section.get("in_diff")
               else "no target function and no declared mutant")
        return f"no mutants: {why}."
    return (f"{t['total']} mutants: {t['killed']} killed, {t['timeout']} timeout, {t['survived']} survived, "
            f"{t['no_coverage']} no coverage, {t['unviable']} unviable, {t['equivalent']} equivalent"
            f"{_pending_note(section)}. {_score_note(t)}.")


def _pending_note(section: Mapping[str, Any]) -> str:
    """How many mutants were never run, and the shards a merge was missing; empty when none."""
    pending = section["totals"]["pending"]
    if not pending:
        return ""
    missing = _missing_shards(section)
    return f", {pending} pending" + (f" ({missing})" if missing else "")


def _missing_shards(section: Mapping[str, Any]) -> str:
    """The slices a merge was not given (``shards missing: 2/4, 3/4``); empty when none."""
    missing = section.get("shards_missing") or []
    return f"shards missing: {', '.join(missing)}" if missing else ""


def _score_note(t: dict[str, Any]) -> str:
    """The score, said to cover only the mutants run when some are pending."""
    if t["score"] is None:
        return "No score: no mutant was judged"
    ran = t["total"] - t["pending"]
    return f"Score {t['score']}%" + (f" of the {ran} run, INCOMPLETE" if t["pending"] else "")


def _verdict_lines(section: Mapping[str, Any]) -> list[str]:
    verdict = section["verdict"]
    out = [] if verdict["complete"] else _incomplete(section)
    if verdict["claims_failed"]:
        out += [f"Claims failed: {', '.join(section['claims_failed'])}.", ""]
    if verdict["escaped_over_threshold"]:
        out += [f"Escapes ({len(section['escaped'])}) exceed the threshold ({_limits(section)}).", ""]
    return out


def _limits(section: Mapping[str, Any]) -> str:
    """The threshold's limits that are set (``max_escaped 0, min_score 80``)."""
    return ", ".join(f"{k} {v}" for k, v in section["threshold"].items() if v is not None)


def _incomplete(section: Mapping[str, Any]) -> list[str]:
    """An incomplete run says so first, with how many mutants never ran and why."""
    where = _missing_shards(section) or "interrupted or missing shards"
    return [f"Incomplete: {section['totals']['pending']} mutant(s) pending, never run ({where}); this is no pass.", ""]


def _title(prefix: str, section: Mapping[str, Any]) -> str:
    """The suite, and the pin set when the run was limited to one (a review round)."""
    chosen = section.get("pins", {}).get("set")
    return (f"{prefix}{section.get('suite', '')}".rstrip() + (f" (pin set {chosen})" if chosen else ""))


def render_summary(section: Mapping[str, Any], out: Path | str | None = None) -> str:
    """What a terminal wants: the counts, the claims, one line per escape, where the reports are.
    The diffs stay in mutation.md (``--format markdown``); a suite's escapes can run to hundreds."""
    section = _safe(section, clean_text)
    lines = [_title("Mutation: ", section), counts_line(section), *filter(None, [pin_runs_line(section)]), "",
             *_verdict_lines(section),
             *_ledger_table(section["mutants"]),
             *map(_escape_line, _escaped(section["mutants"])),
             *map(_expected_line, _expected(section["mutants"])),
             *_write_lines(section)]
    if out is not None:
        lines += ["", "Reports: " + ", ".join(str(Path(out) / n) for n in _REPORTS)]
    return "\n".join(lines).strip("\n") + "\n"


_REPORTS = ("mutation.md", "mutation.json", "mutation.html", "mutation-report.json", "mutation-report.html")


def _write_lines(section: Mapping[str, Any]) -> list[str]:
    """What mutants wrote in their sandboxes, then what changed outside every sandbox."""
    inside = [_wrote(m) for m in section["mutants"] if m.get("writes")]
    return inside + [f"changed outside the sandbox: {o['path']} ({o['change']})"
                     for o in section.get("sandbox", {}).get("outside", [])]


def _failed_claims(mutants: list[dict[str, Any]]) -> list[str]:
    return [f"- {m['id']}: {m['title']} ({_site(m)}): {m['claim']['note']}"
            for m in mutants if m.get("claim", {}).get("result") in _NOT_HELD]


def _findings(section: Mapping[str, Any]) -> str:
    claims = _failed_claims(section["mutants"])
    escaped = section["escaped"]
    if not claims and not escaped:
        return ""
    out = [f"## Mutation findings: {len(escaped)} escape(s), {len(claims)} failed claim(s)", "",
           *_listed("Claims that did not hold:", claims)]
    if escaped:
        out += _escapes(section["mutants"])
    return "\n".join(out) + "\n"


def _short(section: Mapping[str, Any]) -> str:
    out = [f"## Mutation: {section.get('suite', '')}".rstrip(), "", counts_line(section), "",
           *_verdict_lines(section), *_failed_claims(section["mutants"])]
    out += [f"- {_escape_line(m)}" for m in _escaped(section["mutants"])]
    out += [f"- {_expected_line(m)}" for m in _expected(section["mutants"])]
    return "\n".join(out) + "\n"


def render_markdown(section: Mapping[str, Any], form: str = "full") -> str:
    section = _safe(section, _markdown_text)
    if form == "findings":
        return _findings(section)
    if form == "short":
        return _short(section)
    head = [_title("## Mutation: ", section), "", counts_line(section), *filter(None, [pin_runs_line(section)]), ""]
    if not section["totals"]["total"]:
        head += [_nothing_line(section), ""]
    if section.get("shard"):
        head += [f"Shard(s): {', '.join(section['shard'])}.", ""]
    head += _verdict_lines(section)
    return "\n".join([*head, *_ledger_table(section["mutants"]), *_escapes(section["mutants"]),
                      *_expected_block(section["mutants"]), *_pin_lines(section)]) + "\n"


def _nothing_line(section: Mapping[str, Any]) -> str:
    """Why a run had no mutant: no targets and no declared mutants (touched by the diff, with --in-diff)."""
    touched = f" touched by the diff against {section['in_diff']}" if section.get("in_diff") else ""
    return ("Nothing to mutate: no targets (suite.yaml `mutation.targets`, a ledger's `targets`) "
            f"and no declared mutants{touched}.")
