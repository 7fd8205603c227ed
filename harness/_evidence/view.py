"""One case x lane of a finished run as a reviewer reads it (``harness show``): verdict and why,
old and new bodies from the run's evidence, their unified diff (``jsondiff``: the pretty JSON of
old against new, ``-``/``+`` lines), the rejections found on either side and the pins that looked
at it.

Pure: it returns lines, each with a style name or None; the command decides whether the terminal
gets colour (a pipe gets plain text).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness._errors import ConfigError
from harness._evidence.jsondiff import capped, unified
from harness._evidence.runs import run_file

__all__ = ["Line", "body", "diff_lines", "pick_rows", "saved_diffs", "unit_lines"]

Line = tuple[str, str | None]

_DIFF_STYLE = (("---", "bold"), ("+++", "bold"), ("@@", "cyan"), ("-", "red"), ("+", "green"))


def pick_rows(report: Mapping[str, Any], case: str, lane: str | None) -> list[Mapping[str, Any]]:
    """The rows of ``case`` (an id or a glob) on ``lane`` (an id, a glob, or every lane)."""
    rows = [r for r in report["differential"] if _picked(r, case, lane)]
    if not rows:
        raise _not_found(report["differential"], case, lane)
    return rows


def _picked(row: Mapping[str, Any], case: str, lane: str | None) -> bool:
    return fnmatch.fnmatchcase(row["case"], case) and (lane is None or fnmatch.fnmatchcase(row["lane"], lane))


def _not_found(rows: list[Mapping[str, Any]], case: str, lane: str | None) -> ConfigError:
    """The lanes the case ran on when it ran, else the cases of the run."""
    lanes = sorted({r["lane"] for r in rows if fnmatch.fnmatchcase(r["case"], case)})
    if lanes:
        return ConfigError("LANE", lane, f"a lane this case ran on: {', '.join(lanes)}")
    cases = sorted({r["case"] for r in rows})
    return ConfigError("CASE", case, f"a case of this run: {_first(cases, 8) or 'it has none'}")


def _first(names: list[str], count: int) -> str:
    """The first ``count`` names, and how many more there are."""
    return ", ".join(names[:count]) + (f" (+{len(names) - count} more)" if len(names) > count else "")


def body(folder: Path, row: Mapping[str, Any], side: str) -> tuple[Any, str | None]:
    """(decoded body, None) or (None, why there is no body to show)."""
    evidence = row.get("evidence") or {}
    if evidence.get(side):
        return _saved(folder, evidence[side])
    omitted = evidence.get("omitted", {}).get(side)
    if omitted:
        return None, f"body not saved: {omitted}"
    return None, _no_body(row[side])


def _no_body(info: Mapping[str, Any]) -> str:
    """Why a side built no body: its error, or its outcome alone."""
    err = info["error"]
    if not err:
        return f"no body ({info['outcome']})"
    where = f" at {err['where']}" if err.get("where") else ""
    return f"{info['outcome']}: {err['type']}: {err['message']}{where}"


def _saved(folder: Path, link: str) -> tuple[Any, str | None]:
    try:
        return json.loads(run_file(folder, link, "evidence").read_text(encoding="utf-8")), None
    except (OSError, ValueError) as exc:
        return None, f"its saved body {link} cannot be read ({exc})"


def saved_diffs(folder: Path) -> Callable[[Mapping[str, Any], int], list[str] | None]:
    """A row's unified diff from the bodies saved in run ``folder``, at most so many lines (the
    rest counted, naming ``harness show``); None when a side has no saved body or one is too
    large to diff in a report (report.md's ``Diffs``)."""

    def diff(row: Mapping[str, Any], max_lines: int) -> list[str] | None:
        (old, old_missing), (new, new_missing) = (body(folder, row, side) for side in ("old", "new"))
        if old_missing is not None or new_missing is not None:
            return None
        return capped(old, new, max_lines, f"harness show {row['case']} {row['lane']}")

    return diff


def diff_lines(old: Any, new: Any) -> list[Line]:
    """The unified diff of the two bodies, every line, styled by its mark (red old, green new)."""
    lines = unified(old, new)
    if not lines:
        return [("no difference: both bodies print the same JSON", None)]
    return [(line, next((s for mark, s in _DIFF_STYLE if line.startswith(mark)), None)) for line in lines]


def _rejection_lines(report: Mapping[str, Any], case: str, lane: str) -> list[Line]:
    findings = (report.get("rejections") or {}).get("findings", [])
    out = [_rejection_line(f["side"], rej) for f in findings if (f["case"], f["lane"]) == (case, lane)
           for rej in f["rejections"]]
    return out or [("  none", None)]


def _rejection_line(side: str, rej: Mapping[str, Any]) -> Line:
    if rej["expected"]:
        return f"  {side}: {rej['rule']} at {rej['location']} (declared: {rej['why']})", None
    return f"  {side}: {rej['rule']} at {rej['location']} (UNDECLARED)", "bold red"


def _pin_lines(report: Mapping[str, Any], case: str, lane: str) -> list[Line]:
    mark = f"::{case}[{lane}]"
    out = [_pin_line(pin) for pin in (report.get("pins") or {}).get("results", []) if mark in pin["id"]]
    return out or [("  none (pins did not run, or none covers this lane)", None)]


def _pin_line(pin: Mapping[str, Any]) -> Line:
    style = {"passed": "green", "skipped": None}.get(pin["outcome"], "bold red")
    message = f": {pin['message'][:200]}" if pin["message"] and pin["outcome"] != "passed" else ""
    return f"  {pin['outcome']} {pin['id']}{message}", style


def _pretty(value: Any) -> list[Line]:
    return [(line, None) for line in json.dumps(value, indent=2, ensure_ascii=False).splitlines()]


def unit_lines(folder: Path, report: Mapping[str, Any], row: Mapping[str, Any]) -> list[Line]:
    """Everything a reviewer needs about one case x lane, in reading order."""
    case, lane = row["case"], row["lane"]
    verdict = f"{row['verdict']}{' (FAILS the run)' if row['failed'] else ''}"
    out: list[Line] = [(f"{case} on {lane}: {verdict}", "bold red" if row["failed"] else "bold"), *_why_lines(row)]
    bodies = {side: body(folder, row, side) for side in ("old", "new")}
    for side, (value, missing) in bodies.items():
        out += _side_lines(row, side, value, missing)
    out += [("", None), ("--- diff (old -> new, unified)", "bold"), *_diff(bodies["old"], bodies["new"])]
    out += [("", None), ("--- rejections", "bold"), *_rejection_lines(report, case, lane)]
    out += [("", None), ("--- pins", "bold"), *_pin_lines(report, case, lane)]
    return out


def _why_lines(row: Mapping[str, Any]) -> list[Line]:
    """The verdict's detail (unless it only repeats the reason), the declared reason, the paths."""
    out: list[Line] = []
    if row["detail"] and row["detail"] != row["why"]:
        out.append((f"  {row['detail']}", None))
    if row["why"]:
        out.append((f"  why: {row['why']}", None))
    if row["paths"]:
        out.append(("  paths: " + ", ".join(row["paths"][:20]), None))
    return out


def _side_lines(row: Mapping[str, Any], side: str, value: Any, missing: str | None) -> list[Line]:
    link = (row.get("evidence") or {}).get(side)
    heading: list[Line] = [("", None), (f"--- {side}" + (f" ({link})" if link else ""), "bold")]
    return heading + (_pretty(value) if missing is None else [(f"  {missing}", "magenta")])


def _diff(old: tuple[Any, str | None], new: tuple[Any, str | None]) -> list[Line]:
    if old[1] is None and new[1] is None:
        return diff_lines(old[0], new[0])
    return [("  no diff: a side has no body", None)]
