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
    for f in (report.get("rejections") or {}).get("findings", []):
        if f["case"] == case and f["lane"] == lane and f["side"] == "new":
            for r in f["rejections"]:
                if r["rule"] == rule and not r["expected"]:
                    message = ((r.get("receipt") or {}).get("message") or "")[:160]
                    return f"- `{name}` at `{r['location']}`" + (f": \"{message}\"" if message else "")
    return f"- `{name}`"


def _verdict(report: Mapping[str, Any], name: str) -> str:
    for row in report["differential"]:
        if f"{row['case']}[{row['lane']}]" == name:
            return f"- `{name}`: {row['verdict']}: {(row['detail'] or '')[:200]}"
    return f"- `{name}`"


def _new(report: Mapping[str, Any], delta: Mapping[str, Any], detail: bool) -> list[str]:
    mutants = {m["id"]: m for m in (report.get("mutation") or {}).get("mutants", [])}
    out: list[str] = []
    for kind, title in _TITLES.items():
        names = delta["new"][kind]
        if not names:
            continue
        out += [f"### New {title}: {len(names)}", ""]
        for name in names[:_CAP]:
            if kind == "escapes":
                out += _escape(mutants.get(name), name, detail)
            elif kind == "rejections":
                out.append(_rejection(report, name))
            elif kind == "verdicts":
                out.append(_verdict(report, name))
            else:
                out.append(f"- `{name}`")
        if len(names) > _CAP:
            out.append(f"- … and {len(names) - _CAP} more in report.json (`baseline.new.{kind}`)")
        out.append("")
    return out


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
