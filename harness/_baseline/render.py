"""The comparison with a baseline as report.md's first block: what is new, with enough to act on
(a new escape's diff, a new rejection's place, a new failure's detail), then what was failing
already and what got fixed, as counts and names."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["baseline_forms"]

_TITLES = {"verdicts": "failing verdicts", "pins": "failing pins", "rejections": "undeclared rejections (new pipeline)",
           "escapes": "escaped mutants", "claims": "failed ledger claims"}
_CAP = 30


def _escape(mutant: Mapping[str, Any] | None, name: str, diff: bool) -> list[str]:
    if mutant is None:
        return [f"- `{name}`"]
    where = f"{mutant['file']}:{mutant['line']}" + (f" {mutant['function']}" if mutant.get("function") else "")
    out = [f"- `{name}` ({mutant['status']}): {mutant['title']} at `{where}`"]
    if diff:
        out += ["", "```diff", mutant["diff"].rstrip(), "```", ""]
    return out


def _rejection(report: Mapping[str, Any], name: str) -> str:
    head, _, rule = name.partition("]: ")
    case, _, lane = head.partition("[")
    found = _undeclared(report, case, lane, rule)
    if found is None:
        return f"- `{name}`"
    message = ((found.get("receipt") or {}).get("message") or "")[:160]
    return f"- `{name}` at `{found['location']}`" + (f": \"{message}\"" if message else "")


def _undeclared(report: Mapping[str, Any], case: str, lane: str, rule: str) -> Mapping[str, Any] | None:
    """The new pipeline's first undeclared rejection by ``rule`` of ``case`` on ``lane``, if any."""
    hits = (r for f in (report.get("rejections") or {}).get("findings", [])
            if (f["case"], f["lane"], f["side"]) == (case, lane, "new") for r in f["rejections"])
    return next((r for r in hits if r["rule"] == rule and not r["expected"]), None)


def _verdict(report: Mapping[str, Any], name: str) -> str:
    for row in report["differential"]:
        if f"{row['case']}[{row['lane']}]" == name:
            return f"- `{name}`: {row['verdict']}: {(row['detail'] or '')[:200]}"
    return f"- `{name}`"


def _named(report: Mapping[str, Any], name: str) -> str:
    return f"- `{name}`"


# A new finding's line by kind: enough to act on where the report has it (escapes have their own)
_LINE = {"rejections": _rejection, "verdicts": _verdict}


def _new(report: Mapping[str, Any], delta: Mapping[str, Any], detail: bool) -> list[str]:
    mutants = {m["id"]: m for m in (report.get("mutation") or {}).get("mutants", [])}
    out: list[str] = []
    for kind, title in _TITLES.items():
        names = delta["new"][kind]
        if names:
            out += [f"### New {title}: {len(names)}", "", *_lines(kind, names[:_CAP], report, mutants, detail)]
            if len(names) > _CAP:
                out.append(f"- … and {len(names) - _CAP} more in report.json (`baseline.new.{kind}`)")
            out.append("")
    return out


def _lines(kind: str, names: list[str], report: Mapping[str, Any], mutants: Mapping[str, Any],
           detail: bool) -> list[str]:
    if kind == "escapes":
        return [line for name in names for line in _escape(mutants.get(name), name, detail)]
    line = _LINE.get(kind, _named)
    return [line(report, name) for name in names]


def _tally(delta: Mapping[str, Any], which: str) -> str:
    parts = [f"{delta['counts'][k][which]} {_TITLES[k]}" for k in _TITLES if delta["counts"][k][which]]
    return ", ".join(parts) or "none"


def baseline_forms(report: Mapping[str, Any]) -> tuple[str, ...]:
    """The block in two forms: new findings with their diffs, and without them."""
    delta = report["baseline"]
    total = sum(c["new"] for c in delta["counts"].values())
    rule = "only new findings fail this run" if delta["fail_on"] == "new" else "every finding fails this run"
    head = [f"## New since the baseline: {total}", "",
            f"Compared with `{Path(delta['run']).name}` ({rule}).", ""]
    tail = [f"Still failing (were failing in the baseline): {_tally(delta, 'still')}.",
            f"Fixed since the baseline: {_tally(delta, 'fixed')}."]
    if not total:
        return ("\n".join([*head, "Nothing new.", "", *tail]),)
    return tuple("\n".join([*head, *_new(report, delta, detail), *tail]) for detail in (True, False))
