"""One case x lane of a finished run as a reviewer reads it (``harness show``): verdict and why,
old and new bodies from the run's evidence, a readable diff (deepdiff's ``pretty`` view), the
rejections found on either side and the pins that looked at it.

Pure: it returns lines, each with a style name or None; the command decides whether the terminal
gets colour (a pipe gets plain text).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deepdiff import DeepDiff

from harness._errors import ConfigError

__all__ = ["Line", "diff_lines", "pick_rows", "unit_lines"]

Line = tuple[str, str | None]

_DIFF_STYLE = ((" added", "green"), (" removed", "red"), (" changed ", "yellow"))


def pick_rows(report: Mapping[str, Any], case: str, lane: str | None) -> list[Mapping[str, Any]]:
    """The rows of ``case`` (an id or a glob) on ``lane`` (an id, a glob, or every lane)."""
    rows = [r for r in report["differential"] if fnmatch.fnmatchcase(r["case"], case)
            and (lane is None or fnmatch.fnmatchcase(r["lane"], lane))]
    if rows:
        return rows
    cases = sorted({r["case"] for r in report["differential"]})
    if not any(fnmatch.fnmatchcase(c, case) for c in cases):
        shown = ", ".join(cases[:8]) + (f" (+{len(cases) - 8} more)" if len(cases) > 8 else "")
        raise ConfigError("CASE", case, f"a case of this run: {shown or 'it has none'}")
    lanes = sorted({r["lane"] for r in report["differential"] if fnmatch.fnmatchcase(r["case"], case)})
    raise ConfigError("LANE", lane, f"a lane this case ran on: {', '.join(lanes)}")


def _body(folder: Path, row: Mapping[str, Any], side: str) -> tuple[Any, str | None]:
    """(decoded body, None) or (None, why there is no body to show)."""
    link = (row.get("evidence") or {}).get(side)
    if link:
        try:
            return json.loads((folder / link).read_text(encoding="utf-8")), None
        except (OSError, ValueError) as exc:
            return None, f"its saved body {link} cannot be read ({exc})"
    omitted = (row.get("evidence") or {}).get("omitted", {}).get(side)
    if omitted:
        return None, f"body not saved: {omitted}"
    info = row[side]
    if info["error"]:
        err = info["error"]
        where = f" at {err['where']}" if err.get("where") else ""
        return None, f"{info['outcome']}: {err['type']}: {err['message']}{where}"
    return None, f"no body ({info['outcome']})"


def diff_lines(old: Any, new: Any) -> list[Line]:
    """deepdiff's readable view, one line a change, styled by what happened at that place."""
    text = DeepDiff(old, new, verbose_level=2, log_frequency_in_sec=0).pretty()
    if not text.strip():
        return [("no difference in value (the bytes may differ in key order)", None)]
    out: list[Line] = []
    for line in text.splitlines():
        style = next((s for word, s in _DIFF_STYLE if word in line), None)
        out.append((line, style))
    return out


def _rejection_lines(report: Mapping[str, Any], case: str, lane: str) -> list[Line]:
    section = report.get("rejections") or {}
    out: list[Line] = []
    for finding in section.get("findings", []):
        if finding["case"] != case or finding["lane"] != lane:
            continue
        for rej in finding["rejections"]:
            state = f"declared: {rej['why']}" if rej["expected"] else "UNDECLARED"
            style = None if rej["expected"] else "bold red"
            out.append((f"  {finding['side']}: {rej['rule']} at {rej['location']} ({state})", style))
    return out or [("  none", None)]


def _pin_lines(report: Mapping[str, Any], case: str, lane: str) -> list[Line]:
    pins = report.get("pins") or {}
    mark = f"::{case}[{lane}]"
    out: list[Line] = []
    for pin in pins.get("results", []):
        if mark in pin["id"]:
            style = {"passed": "green", "skipped": None}.get(pin["outcome"], "bold red")
            message = f": {pin['message'][:200]}" if pin["message"] and pin["outcome"] != "passed" else ""
            out.append((f"  {pin['outcome']} {pin['id']}{message}", style))
    if not out:
        return [("  none (pins did not run, or none covers this lane)", None)]
    return out


def _pretty(value: Any) -> list[Line]:
    return [(line, None) for line in json.dumps(value, indent=2, ensure_ascii=False).splitlines()]


def unit_lines(folder: Path, report: Mapping[str, Any], row: Mapping[str, Any]) -> list[Line]:
    """Everything a reviewer needs about one case x lane, in reading order."""
    case, lane = row["case"], row["lane"]
    verdict = f"{row['verdict']}{' (FAILS the run)' if row['failed'] else ''}"
    out: list[Line] = [(f"{case} on {lane}: {verdict}", "bold red" if row["failed"] else "bold")]
    if row["detail"] and row["detail"] != row["why"]:
        out.append((f"  {row['detail']}", None))
    if row["why"]:
        out.append((f"  why: {row['why']}", None))
    if row["paths"]:
        out.append(("  paths: " + ", ".join(row["paths"][:20]), None))
    bodies = {}
    for side in ("old", "new"):
        value, missing = _body(folder, row, side)
        link = (row.get("evidence") or {}).get(side)
        out += [("", None), (f"--- {side}" + (f" ({link})" if link else ""), "bold")]
        out += _pretty(value) if missing is None else [(f"  {missing}", "magenta")]
        bodies[side] = (value, missing)
    out += [("", None), ("--- diff (old -> new)", "bold")]
    if bodies["old"][1] is None and bodies["new"][1] is None:
        out += diff_lines(bodies["old"][0], bodies["new"][0])
    else:
        out.append(("  no diff: a side has no body", None))
    out += [("", None), ("--- rejections", "bold"), *_rejection_lines(report, case, lane)]
    out += [("", None), ("--- pins", "bold"), *_pin_lines(report, case, lane)]
    return out
