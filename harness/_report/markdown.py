"""report.md: fits a pull-request comment, and never loses what a reviewer must read.

Built by priority, as blocks: the headline; what is new since the baseline (with ``--baseline``);
failures; the findings the stages name as failing the run (undeclared rejections, mutation escapes
and failed claims); then the tables; then the details (failure diffs, a sample of intended
divergences, the stages' full sections). A body difference reads as a unified diff of the pretty
JSON (a ```` ```diff ```` block GitHub colours), made from the run's saved bodies when the caller
gives a ``Diffs`` source; deepdiff's view follows it, folded, in the longest form only (and stands
alone when a body was not saved). Each block offers forms from long to short; the budget
takes the longest form that fits, and a block with no form that fits is left out whole and named
at the end with its counts and the file that holds it. Nothing is cut mid-section.

A stage's renderer (``render_markdown(section, form)``) answers ``findings``, ``short`` and
``full``; one without a ``form`` parameter gives its one text as ``full``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness._baseline.block import baseline_forms
from harness._evidence.jsondiff import fenced

__all__ = ["INTENDED_SAMPLE", "LIMIT", "MARKS", "Block", "Diffs", "fit", "render", "table"]

MARKS = {
    "identical": "✅ same",
    "reordered": "🔀 order",
    "intended": "◇ intended",
    "unexpected": "❌ DIFF",
    "error": "💥 error",
}

LIMIT = 60_000  # GitHub refuses a comment over 65,536 characters; leave room for a heading
RESERVE = 2_000  # kept for the closing note naming what was left out
INTENDED_SAMPLE = 8  # intended divergences shown with their diffs (one per case), folded
FAILURES_KEPT = 200  # failing rows any form lists; the rest are counted
DIFF_LINES = 80  # unified diff lines a failure shows in the longest form
DIFF_LINES_SHORT = 24  # and in the next form, without deepdiff's view
SAMPLE_DIFF_LINES = 40  # an intended divergence's sample
Renderer = Callable[..., str]
# a row's unified diff, at most so many lines (None: a body was not saved, or is too large)
Diffs = Callable[[Mapping[str, Any], int], "list[str] | None"]


def _no_diffs(_row: Mapping[str, Any], _lines: int) -> list[str] | None:
    return None


@dataclass(frozen=True)
class Block:
    """One part of report.md: its forms, longest first, and what to say if none fits."""

    name: str
    forms: tuple[str, ...]
    summary: str  # counts, for the note when left out
    where: str  # the file that holds it in full


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


def _show(row: Mapping[str, Any]) -> str:
    return f"`harness show {row['case']} {row['lane']}`"


def _failure(row: Mapping[str, Any], unified: list[str] | None = None, deep: str = "none") -> str:
    """One failing case x lane: its detail, paths and errors; its unified diff when given, and
    deepdiff's view folded below it (``deep="after"``), or only in the place of a missing unified
    diff (``"instead"``), or not at all (``"none"``)."""
    lines = [f"#### `{row['case']}` on `{row['lane']}`: {row['verdict']}", "", row["detail"] or ""]
    if row["unexpected_paths"]:
        lines += ["", "Paths: " + ", ".join(f"`{p}`" for p in row["unexpected_paths"][:20])]
    for side in ("old", "new"):
        lines += _error_lines(side, row[side]["error"])
    if unified:
        lines += ["", fenced(unified)]
    if (deep == "after" or (deep == "instead" and not unified)) and row.get("diff"):
        lines += ["", "<details><summary>changes by path (deepdiff)</summary>", "", _fence(row["diff"]), "",
                  "</details>"]
    lines += ["", f"Bodies: {_show(row)}"]
    return "\n".join(lines)


def _error_lines(side: str, err: Mapping[str, Any] | None) -> list[str]:
    """What one side's pipeline raised, and where; nothing when it did not."""
    if not err:
        return []
    where = f" (at {err['where']})" if err.get("where") else ""
    return ["", f"{side}: `{err['type']}: {err['message'][:300]}`{where}"]


def _failure_line(row: Mapping[str, Any]) -> str:
    return f"- `{row['case']}` on `{row['lane']}`: {row['verdict']}: {(row['detail'] or '')[:160]}"


def _capped(items: Sequence[str], cap: int, what: str, total: int | None = None) -> list[str]:
    total = len(items) if total is None else total
    more = [f"- … and {total - cap} more {what} in report.json"] if total > cap else []
    return [*items[:cap], *more]


def _failing(rows: Iterable[Mapping[str, Any]], keep: int = FAILURES_KEPT) -> tuple[list[Mapping[str, Any]], int]:
    """The first ``keep`` failing rows (no form shows more) and how many fail in all."""
    kept: list[Mapping[str, Any]] = []
    count = 0
    for r in rows:
        if r["failed"]:
            count += 1
            if len(kept) < keep:
                kept.append(r)
    return kept, count


def _failures(rows: list[Mapping[str, Any]], count: int, diffs: Diffs = _no_diffs) -> tuple[str, ...]:
    if not rows:
        return ()
    head = ["## Failures", "", f"{count} failing case x lane verdict(s).", ""]
    more = [f"… and {count - 50} more failures in report.json"] if count > 50 else []
    shown = rows[:50]
    long = [diffs(r, DIFF_LINES) for r in shown]
    brief = [_shorter(d, DIFF_LINES_SHORT, r) for d, r in zip(long, shown, strict=True)]
    full = "\n".join(head + [_failure(r, d, "after") + "\n" for r, d in zip(shown, long, strict=True)] + more)
    middle = "\n".join(head + [_failure(r, d, "instead") + "\n" for r, d in zip(shown, brief, strict=True)] + more)
    plain = "\n".join(head + [_failure(r) + "\n" for r in shown] + more)
    short = "\n".join(head + _capped([_failure_line(r) for r in rows], 200, "failures", count))
    tiny = "\n".join(head + _capped([_failure_line(r) for r in rows], 20, "failures", count))
    return full, middle, plain, short, tiny


def _shorter(lines: list[str] | None, keep: int, row: Mapping[str, Any]) -> list[str] | None:
    """The first ``keep`` lines of a diff, the rest counted (``harness show`` prints it whole)."""
    if lines is None or len(lines) <= keep:
        return lines
    return [*lines[:keep], f"... more diff lines: harness show {row['case']} {row['lane']}"]


def _intended(rows: list[Mapping[str, Any]]) -> str:
    """Each declared reason once, with the lanes it covers: divergences, and sameness with a why."""
    seen: dict[str, list[str]] = {}
    for r in rows:
        if r["why"] and not r["failed"]:
            label = "diverges" if r["verdict"] == "intended" else "same"
            seen.setdefault(f"`{r['case']}` ({label}): {r['why']}", []).append(r["lane"])
    return "\n".join(f"- {k} (on {', '.join(f'`{lane}`' for lane in v)})" for k, v in seen.items())


def _samples(rows: Iterable[Mapping[str, Any]], cap: int = INTENDED_SAMPLE, diffs: Diffs = _no_diffs) -> str:
    """A few intended divergences with their diffs, one per case, folded: what "intended" looks like."""
    picked, total = _one_per_case(rows, cap)
    if not picked:
        return ""
    out = ["## Intended divergences: a sample", "",
           f"{len(list(picked)[:cap])} of {total} intended divergence(s), one per case; every one is in "
           "report.json with its diff, and `harness show CASE LANE` prints both bodies.", ""]
    for r in list(picked.values())[:cap]:
        unified = diffs(r, SAMPLE_DIFF_LINES)
        shown = fenced(unified) if unified else _fence(r["diff"], 1500)
        out += [f"<details><summary><code>{r['case']}</code> on <code>{r['lane']}</code>: {r['why']}</summary>",
                "", shown, "", f"Bodies: {_show(r)}", "", "</details>", ""]
    return "\n".join(out)


def _one_per_case(rows: Iterable[Mapping[str, Any]], cap: int) -> tuple[dict[str, Mapping[str, Any]], int]:
    """The first intended divergence with a diff of each case (at most ``cap`` cases), and how
    many intended divergences there are in all."""
    picked: dict[str, Mapping[str, Any]] = {}
    total = 0
    for r in rows:
        if r["verdict"] != "intended" or r["failed"]:
            continue
        total += 1
        if r.get("diff") and r["case"] not in picked and len(picked) < cap:
            picked[r["case"]] = r
    return picked, total


def _pins(pins: Mapping[str, Any] | None) -> str:
    if not pins:
        return ""
    s = pins["summary"]
    expect = sum(1 for p in pins["results"] if p["id"].endswith("::expect"))
    lines = [f"## Pins (against the {pins['against']} pipeline)", "",
             f"{s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped, {s['error']} errors "
             f"({len(pins['results']) - expect} pins and {expect} expect items)."]
    claims = pins.get("catches_old")
    if pins["against"] == "old" and claims is not None:
        lines += _catches_old(pins["results"], claims)
    else:
        lines += _bad_pins(pins["results"])
    return "\n".join(lines)


def _catches_old(results: list[Mapping[str, Any]], claims: Mapping[str, Any]) -> list[str]:
    """Against old, failing is the point: the claims summarised, and only what needs reading named
    (marked pins that passed, unmarked ones that failed)."""
    marked = set(claims["marked"])
    lines = ["", f"Pins marked `catches_old`: {claims['failed']} failed against old, as they should; "
                 f"{len(claims['passed'])} passed (a pin that cannot catch the old behaviour)."]
    lines += [f"- passed against old: `{p}`" for p in claims["passed"]]
    unmarked = [p for p in results if p["outcome"] == "failed" and p["id"] not in marked]
    if unmarked:
        lines += ["", f"{len(unmarked)} pin(s) not marked `catches_old` also fail against old:"]
        lines += [f"- `{p['id']}`" for p in unmarked[:30]]
    return lines


def _bad_pins(results: list[Mapping[str, Any]]) -> list[str]:
    """The pins that failed or errored, as a table (the first hundred)."""
    bad = [p for p in results if p["outcome"] in ("failed", "error")]
    if not bad:
        return []
    return ["", "| pin | outcome | message |", "|---|---|---|",
            *(f"| `{p['id']}` | {p['outcome']} | {p['message'][:300].replace('|', '/')} |" for p in bad[:100])]


def _form(render_section: Renderer, section: Any, form: str) -> str:
    """A stage's section in ``form``; a renderer without forms gives its one text as ``full``."""
    if "form" in inspect.signature(render_section).parameters:
        return render_section(section, form=form)
    return render_section(section) if form == "full" else ""


def _headline(report: Mapping[str, Any]) -> str:
    s = report["summary"]
    v = s["verdicts"]
    return "\n".join([
        f"# wire-harness: suite `{report['suite']['name']}`", "",
        f"{s['units']} case x lane runs: {v['identical']} identical, {v['reordered']} reordered, "
        f"{v['intended']} intended divergences, {v['unexpected']} unexpected, {v['error']} errors; "
        f"**{s['failed']} failing**. Exit code {report['exit']['code']} ({report['exit']['reason']}).",
    ])


_CELL_KEYS = ("case", "lane", "verdict", "failed", "why")


def _shape(rows: Iterable[Mapping[str, Any]]) -> dict[str, tuple[set[str], set[str]]]:
    """Each subject's cases and lanes: what its table's size will be, before building it."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for row in rows:
        cases, lanes = out.setdefault(row["subject"], (set(), set()))
        cases.add(row["case"])
        lanes.add(row["lane"])
    return out


def _too_big(shape: Mapping[str, tuple[set[str], set[str]]]) -> bool:
    """Whether the tables cannot fit the budget whatever else there is: at least four characters
    a cell. Such a run gets the per-lane counts without its tables ever being built, so a run of
    100,000 units does not hold a cell each in memory to find out."""
    return sum(len(cases) * len(lanes) * 4 for cases, lanes in shape.values()) > LIMIT


def _tables(report: Mapping[str, Any]) -> tuple[str, ...]:
    rows: Sequence[Mapping[str, Any]] = report["differential"]
    shape = _shape(rows)
    if not shape:
        return ()
    if _too_big(shape):
        return (_lane_counts(rows),)
    out = [line for subject, cells in _by_subject(rows).items() for line in _subject_table(subject, cells)]
    out += ["", "Legend: " + " · ".join(f"{m} = {k}" for k, m in MARKS.items()) + " · ⚠ = fails the run"]
    with_reasons = "\n".join(out).strip("\n")
    bare = "\n".join(line for line in out if not line.startswith(("<details>", "</details>", "- `"))).strip("\n")
    return with_reasons, bare, _lane_counts(rows)


def _by_subject(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Each subject's rows, holding only what a cell and a reason read: not the diffs, paths and
    evidence of each row."""
    by_subject: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_subject.setdefault(row["subject"], []).append({k: row[k] for k in _CELL_KEYS})
    return by_subject


def _subject_table(subject: str, rows: list[Mapping[str, Any]]) -> list[str]:
    """One subject's heading and table, then its declared reasons folded below it."""
    out = ["", f"## Differential: `{subject}` (old vs new)", "", table(rows)]
    intended = _intended(rows)
    if intended:
        summary = "<details><summary>Declared divergences (and declared sameness) and why</summary>"
        out += ["", summary, "", intended, "", "</details>"]
    return out


def _lane_counts(rows: Iterable[Mapping[str, Any]]) -> str:
    """The tables' shortest form: verdicts counted per lane, for runs too broad for a cell each."""
    kinds = list(MARKS)
    counts: dict[str, dict[str, int]] = {}
    for r in rows:
        lane = counts.setdefault(r["lane"], dict.fromkeys([*kinds, "failing"], 0))
        lane[r["verdict"]] += 1
        lane["failing"] += int(r["failed"])
    head = ["## Differential by lane (the case x lane tables are in report.json)", "",
            "| lane | " + " | ".join(MARKS[k] for k in kinds) + " | failing |", "|---|" + "---|" * (len(kinds) + 1)]
    return "\n".join(head + [f"| `{lane}` | " + " | ".join(str(c[k]) for k in [*kinds, "failing"]) + " |"
                             for lane, c in counts.items()])


def _stage_blocks(report: Mapping[str, Any], sections: Mapping[str, Renderer], form: str) -> list[Block]:
    """Each stage's section in one form (findings first, full later), with its fallbacks."""
    return [_stage_block(key, report[key], render_section, form)
            for key, render_section in sections.items() if report.get(key)]


def _stage_block(key: str, section: Any, render_section: Renderer, form: str) -> Block:
    """One stage's block: its findings alone, or its full section with the short one to fall back
    on; a block with no text has no forms (``blocks`` drops it)."""
    forms = ("findings",) if form == "findings" else ("full", "short")
    texts = tuple(t.rstrip("\n") for t in (_form(render_section, section, f) for f in forms) if t.strip())
    where = "report.json" + (" and mutation/mutation.md" if key == "mutation" else "")
    name = f"{key} findings" if form == "findings" else f"{key} section"
    return Block(name, texts, _stage_counts(key, section), where)


def _stage_counts(key: str, section: Mapping[str, Any]) -> str:
    if key == "rejections":
        s = section.get("summary", {})
        return f"{s.get('new_undeclared', 0)} undeclared and {s.get('new_expected', 0)} declared rejection(s)"
    if key == "mutation":
        t = section.get("totals", {})
        return (f"{t.get('total', 0)} mutants, {len(section.get('escaped', []))} escaped, "
                f"{len(section.get('claims_failed', []))} failed claim(s)")
    return "see the section"


def blocks(report: Mapping[str, Any], sections: Mapping[str, Renderer], diffs: Diffs = _no_diffs) -> list[Block]:
    """report.md's blocks in priority order."""
    rows = report["differential"]
    failing, failures = _failing(rows)
    pins_first, pins_last = _pin_blocks(report.get("pins"))
    samples = _samples(rows, diffs=diffs)
    out = [Block("headline", (_headline(report),), "", "report.json")]
    if report.get("baseline"):
        out.append(Block("new since the baseline", baseline_forms(report), "", "report.json (`baseline`)"))
    # a block without forms (no failures, no sample, a stage with nothing to say) is dropped below
    out += [Block("failures", _failures(failing, failures, diffs), f"{failures} failing verdict(s)", "report.json"),
            *pins_first,
            *_stage_blocks(report, sections, "findings"),
            Block("differential tables", _tables(report), f"{len(rows)} case x lane runs", "report.json"),
            *pins_last,
            Block("intended divergence sample", (samples,) if samples else (), "",
                  "report.json (`differential[].diff`)"),
            *_stage_blocks(report, sections, "full")]
    return [b for b in out if b.forms]


def _pin_blocks(pins: Mapping[str, Any] | None) -> tuple[list[Block], list[Block]]:
    """The pins block: before the tables when pins fail (failing pins are findings), else after them."""
    text = _pins(pins)
    if not pins or not text:
        return [], []
    block = Block("pins", (text, text.split("\n\n| pin |")[0]), "", "report.json (`pins`)")
    return ([block], []) if _pins_fail(pins) else ([], [block])


def _pins_fail(pins: Mapping[str, Any]) -> bool:
    if pins["against"] == "old":
        return bool((pins.get("catches_old") or {}).get("passed"))
    return bool(pins["summary"]["failed"] + pins["summary"]["error"])


def fit(parts: Sequence[Block], limit: int = LIMIT) -> str:
    """Each block in the longest form that fits what is left of ``limit``; a block with no form
    that fits is named in the closing note, with its counts and where it is in full, and so is a
    block shown in a shorter form."""
    out: list[str] = []
    left_out: list[Block] = []
    shortened: list[Block] = []
    used = 0
    for block in parts:
        room = limit - RESERVE - used
        text = next((t for t in block.forms if len(t) + 2 <= room), None)
        if text is None:
            left_out.append(block)
            continue
        if text is not block.forms[0]:
            shortened.append(block)
        out.append(text)
        used += len(text) + 2
    if shortened or left_out:
        out.append(_closing_note(shortened, left_out, limit))
    return "\n\n".join(out) + "\n"


def _closing_note(shortened: list[Block], left_out: list[Block], limit: int) -> str:
    """What ``fit`` shortened or left out, with each block's counts and where it is in full."""
    notes = []
    if shortened:
        notes.append("shortened: " + "; ".join(f"{b.name} (in full in {b.where})" for b in shortened))
    if left_out:
        notes.append("left out: " + "; ".join(f"{b.name}" + (f" ({b.summary})" if b.summary else "")
                                            + f": in {b.where}" for b in left_out))
    return f"> To fit {limit:,} characters (a pull-request comment), {'. '.join(notes)}."[: RESERVE - 10]


def render(report: Mapping[str, Any], sections: Mapping[str, Renderer], diffs: Diffs = _no_diffs) -> str:
    """The whole report.md. ``sections`` maps a report key to the renderer its stage ships;
    ``diffs`` gives a row's unified diff (``harness._evidence.view.saved_diffs`` on a run folder)."""
    return fit(blocks(report, sections, diffs))
