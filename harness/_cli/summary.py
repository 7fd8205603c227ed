"""``harness run --format summary`` (or ``-qq``): the run in counts, a line per stage.

For a script or a CI log that wants the verdict and the numbers without the table or a line per
group: the runs by verdict, the pins, the rejections (bodies rejected per side, hits as detail,
the delta, and the warnings that must not pass unremarked), the mutation score, the exit line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness._common.redact import redactor
from harness._reject.report import delta_line, headline, warning_lines

__all__ = ["runs_line", "summary_lines"]


def runs_line(report: Mapping[str, Any]) -> str:
    """The verdict counts of a report in one line (the text form prints it under the table)."""
    s = report["summary"]
    v = s["verdicts"]
    return (f"{s['units']} runs: {v['identical']} same, {v['reordered']} order, {v['intended']} intended, "
            f"{v['unexpected']} DIFF, {v['error']} ERROR; {s['failed']} failing")


def _pins(pins: Mapping[str, Any] | None) -> list[str]:
    if not pins:
        return []
    p = pins["summary"]
    return [f"pins (against {pins['against']}): {p['passed']} passed, {p['failed']} failed, {p['skipped']} skipped, "
            f"{p['error']} errors"]


def _rejections(section: Mapping[str, Any] | None) -> list[str]:
    if not section:
        return ["rejections: not checked"]
    return [headline(section), *filter(None, [delta_line(section)]), *warning_lines(section)]


def _mutation(section: Mapping[str, Any] | None) -> list[str]:
    if not section:
        return []
    t = section["totals"]
    score = "n/a" if t["score"] is None else f"{t['score']}%"
    return [f"mutation: {t['total']} mutants, {t['killed']} killed, {t['survived']} survived; score {score}"]


def summary_lines(report: Mapping[str, Any]) -> list[str]:
    """The counts of a report, a line per stage, and its exit line (sanitized like the text form)."""
    report = redactor().value(report)
    return [runs_line(report), *_pins(report.get("pins")), *_rejections(report.get("rejections")),
            *_mutation(report.get("mutation")), f"exit {report['exit']['code']}: {report['exit']['reason']}"]
