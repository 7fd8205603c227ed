"""Terminal output shared by commands: a progress display (a bar with the time left on a
terminal, a plain line every few seconds in CI or when piped: ``harness._common.progress``) and
the text rendering of a report. Every string printed from a run or a
report passes the redactor, which also sanitizes it (``harness._common.sanitize``): a pipeline's
message cannot clear the screen or recolour it."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import groupby
from typing import Any

from rich.console import Console
from rich.table import Table

from harness._cli.summary import runs_line
from harness._common.progress import EVERY_S, Ticker, interactive
from harness._common.redact import redactor
from harness._differential import UnitResult
from harness._pins.rerun import command, expect_ids, pytest_options

__all__ = ["interactive", "progress", "render_text", "unmarked_failures"]

_STYLE = {"identical": "green", "reordered": "yellow", "intended": "cyan", "unexpected": "bold red",
          "error": "bold magenta"}
_MARK = {"identical": "same", "reordered": "order", "intended": "intended", "unexpected": "DIFF", "error": "ERROR"}


@contextmanager
def progress(total: int, quiet: bool = False, every: float = EVERY_S,
             console: Console | None = None) -> Iterator[Callable[[UnitResult], None]]:
    """A callback to report each finished unit: a bar with the time left on a terminal; elsewhere
    a line per failing unit as it finishes, and where the build is (with the time left) every
    ``every`` seconds and at its end."""
    if quiet:
        yield lambda _r: None
        return
    bar = interactive() if console is None else False  # a console given (a test, a log): plain lines
    with Ticker(total, "built", every=every, bar=bar, console=console) as ticker:

        def tick(res: UnitResult) -> None:
            v = res.verdict
            if not bar and v is not None and v.failed:
                detail = redactor().text(v.detail[:120])
                ticker.note(f"[{ticker.done + 1}/{total}] {v.case_id} on {v.lane_id}: {v.kind} ({detail})")
            ticker.advance()

        yield tick


def _mark(row: Mapping[str, Any]) -> str:
    """A row's verdict as its cell shows it: ``!`` when it fails the run."""
    return _MARK[row["verdict"]] + ("!" if row["failed"] else "")


def _subject_table(subject: str, lanes: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> Table:
    """One subject's cases by lanes; only the cells' marks are held, not the rows."""
    table = Table(title=f"{subject}: old vs new", title_justify="left", show_lines=False)
    table.add_column("case", no_wrap=True)
    for lane in lanes:
        table.add_column(lane, justify="center", overflow="fold")
    cells = {(r["case"], r["lane"]): f"[{_STYLE[r['verdict']]}]{_mark(r)}[/]" for r in rows}
    for case in dict.fromkeys(case for case, _ in cells):
        table.add_row(case, *(cells.get((case, lane), "·") for lane in lanes))
    return table


def _shapes(rows: Iterable[Mapping[str, Any]]) -> dict[str, tuple[dict[str, None], int]]:
    """Each subject's lanes (in order) and longest case id: its table's width, before building it."""
    out: dict[str, tuple[dict[str, None], int]] = {}
    for r in rows:
        lanes, width = out.get(r["subject"], ({}, 0))
        lanes.setdefault(r["lane"])
        out[r["subject"]] = (lanes, max(width, len(r["case"])))
    return out


def _table_width(lanes: Iterable[str], case_width: int) -> int:
    return case_width + 4 + sum(max(len(lane), 9) + 3 for lane in lanes)


def _subject_lines(subject: str, rows: Iterable[Mapping[str, Any]], console: Console) -> None:
    """Too many lanes for the width: one line per case, lanes grouped by verdict, printed as each
    case's rows go by (a run's rows are in suite order, a case's together), so nothing is held."""
    console.print(f"{subject}: old vs new (lanes grouped by verdict; widen the terminal for a table)", highlight=False)
    for case, case_rows in groupby(rows, key=lambda r: r["case"]):
        groups: dict[str, list[str]] = {}
        for r in case_rows:
            groups.setdefault(_mark(r), []).append(r["lane"])
        parts = [f"[{_STYLE[_KIND[m.rstrip('!')]]}]{m}[/]: {', '.join(lanes)}" for m, lanes in groups.items()]
        console.print(f"  {case}  " + " | ".join(parts), highlight=False)


_KIND = {mark: kind for kind, mark in _MARK.items()}


def _differential(rows: Iterable[Mapping[str, Any]], console: Console) -> None:
    """A table per subject, or a line per case when too wide; a run's rows are read from its
    folder, a pass per subject, and only a table's cells are held."""
    for subject, (lanes, case_width) in _shapes(rows).items():
        picked = (r for r in rows if r["subject"] == subject)
        if _table_width(lanes, case_width) <= console.width:
            console.print(_subject_table(subject, lanes, picked))
        else:
            _subject_lines(subject, picked, console)


def render_text(report: Mapping[str, Any], console: Console, quiet: bool = False, root: str = ".") -> None:
    """``report`` as text; ``root``: the project root relative to the working folder, where the
    printed ids rerun (said once, when it is not the working folder)."""
    # The runner sanitizes its report before writing it; a report from anywhere else (a merge, a
    # replay, an old report.json) gets the same treatment here, since this goes to a terminal.
    # Each distinct string is memoised, so an already-clean report costs one dictionary lookup each.
    report = redactor().value(report)
    _differential(report["differential"], console)
    console.print("legend: same = identical bytes, order = only key order differs, intended = a declared "
                  "divergence, DIFF = unexpected divergence, ERROR = a side raised, timed out or crashed; "
                  "'!' = fails the run, '·' = the case does not run on that lane", highlight=False)
    console.print(runs_line(report), highlight=False)
    options = pytest_options(report.get("options") or {})  # every printed id reruns its one result (_pins/rerun.py)
    _failing(report["differential"], console, expect_ids(report.get("pins")), options)
    if report.get("pins"):
        _pins(report["pins"], console, options)
    _rejections(report.get("rejections"), console, quiet)
    _mutation(report.get("mutation"), console)
    if root != "." and report["exit"]["code"]:
        console.print(f"the ids above are relative to the project root: rerun one there, "
                      f"`cd {shlex.quote(root)} && pytest ID`", markup=False, highlight=False)
    # no markup: an id's [lane] is not a style tag
    console.print(f"exit {report['exit']['code']}: {report['exit']['reason']}", markup=False, highlight=False)


def _failing(rows: Iterable[Mapping[str, Any]], console: Console, ids: Mapping[str, str],
             options: list[str]) -> None:
    """A line for each case x lane that fails the run, named by the expect item that reruns it
    (when the pins ran), with the start of its detail."""
    for row in rows:
        if row["failed"]:
            nodeid = ids.get(f"{row['case']}[{row['lane']}]")
            name = command(nodeid, options) if nodeid else f"{row['case']} on {row['lane']}"
            console.print(f"  FAIL {name}: {row['verdict']}: {row['detail'][:200]}", markup=False, highlight=False)


def _pins(pins: Mapping[str, Any], console: Console, options: list[str]) -> None:
    p = pins["summary"]
    expect = sum(1 for r in pins["results"] if r["id"].endswith("::expect"))
    chosen = f", set {pins['set']}" if pins.get("set") else ""
    console.print(f"pins (against {pins['against']}{chosen}): {p['passed']} passed, {p['failed']} failed, "
                  f"{p['skipped']} skipped, {p['error']} errors ({len(pins['results']) - expect} pins and "
                  f"{expect} expect items)", highlight=False)
    _pin_lines(pins, console, options)
    if pins.get("problem"):
        console.print(f"  pytest could not run the pins:\n{pins['problem']}", markup=False, highlight=False)


def _pin_lines(pins: Mapping[str, Any], console: Console, options: list[str]) -> None:
    """Against new: every failing pin. Against old: failing is the point, so only the verdict on
    the catches_old claims, and the marked pins that passed (they cannot catch the old code)."""
    if pins["against"] == "old" and pins.get("catches_old") is not None:
        _catches_old_lines(pins, console, options)
        return
    for r in pins["results"]:
        if r["outcome"] in ("failed", "error"):
            console.print(f"  {r['outcome'].upper()} {command(r['id'], options)}: {r['message'][:200]}",
                          markup=False, highlight=False)


def _catches_old_lines(pins: Mapping[str, Any], console: Console, options: list[str]) -> None:
    claims = pins["catches_old"]
    passed = claims["passed"]
    console.print(f"  {claims['failed']} pin(s) marked catches_old failed against old, as they should; "
                  f"{len(passed)} passed" + (" (pins that cannot catch the old behaviour):" if passed else "."),
                  highlight=False)
    for node in passed:
        console.print(f"  PASSED-AGAINST-OLD {command(node, options)}", markup=False, highlight=False)
    for r in unmarked_failures(pins):
        console.print(f"  also fails against old (not marked catches_old): {command(r['id'], options)}",
                      markup=False, highlight=False)


def unmarked_failures(pins: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Against old: failing pins that are not marked catches_old (worth knowing, not a defect)."""
    marked = set(pins["catches_old"]["marked"]) if pins.get("catches_old") else set()
    return [r for r in pins["results"] if r["outcome"] == "failed" and r["id"] not in marked]


def _mutation(section: Mapping[str, Any] | None, console: Console) -> None:
    if not section:
        return
    t = section["totals"]
    console.print(f"mutation: {t['total']} mutants, {t['killed']} killed, {t['survived']} survived, "
                  f"{t['timeout']} timeout, {t['unviable']} unviable, {t['no_coverage']} no coverage; "
                  f"score {'n/a' if t['score'] is None else str(t['score']) + '%'}; "
                  f"claims {'FAILED' if section['verdict']['claims_failed'] else 'hold'}"
                  + (f"; INCOMPLETE ({t['pending']} pending)" if t.get("pending") else "")
                  + " (ledger table and escapes in report.md)", highlight=False)
    from harness._mutate.render import claim_lines  # declared equivalents, expected survivors, failed claims

    for line in claim_lines(section):
        console.print(f"  {line}", markup=False, highlight=False)


def _rejections(section: Mapping[str, Any] | None, console: Console, quiet: bool = False) -> None:
    """Counts and the delta, then the new pipeline's undeclared rejections by lane and rule
    (``harness._reject.report.text_lines``)."""
    from harness._reject.report import text_lines

    for line in text_lines(section, quiet):
        console.print(line, markup=False, highlight=False)
