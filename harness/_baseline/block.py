"""The comparison with a baseline as report.md's first block: what is new, with enough to act on
(a new escape's diff, a new rejection's place, a new failure's detail), then what was failing
already and what got fixed, as counts and names."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["baseline_forms"]

_TITLES = {"verdicts": "failing verdicts", "pins": "failing pins", "rejections": "undeclared rejections (new pipeline)",
           "escapes": "escaped mutants", "claims": "failed ledger claims"}
_CAP = 30
_RULES = {"new": "only new findings fail this run"}  # by --fail-on; any other: every finding fails


def _escape(mutant: Mapping[str, Any] | None, name: str, diff: bool) -> list[str]:
    if mutant is None:
        return [f"- `{name}`"]
    where = " ".join(filter(None, [f"{mutant['file']}:{mutant['line']}", mutant.get("function")]))
    out = [f"- `{name}` ({mutant['status']}): {mutant['title']} at `{where}`"]
    if diff:
        out += ["", "```diff", mutant["diff"].rstrip(), "```", ""]
    return out


def _new_rejections(report: Mapping[str, Any], case: str, lane: str) -> Iterator[Mapping[str, Any]]:
    """The rejections the new pipeline's bodies meet on ``case[lane]``."""
    for finding in (report.get("rejections") or {}).get("findings", []):
        if (finding["case"], finding["lane"], finding["side"]) == (case, lane, "new"):
            yield from finding["rejections"]


def _receipt_message(rejection: Mapping[str, Any]) -> str:
    return ((rejection.get("receipt") or {}).get("message") or "")[:160]


def _rejection(report: Mapping[str, Any], name: str) -> str:
    head, _, rule = name.partition("]: ")
    case, _, lane = head.partition("[")
    hit = next((r for r in _new_rejections(report, case, lane) if (r["rule"], bool(r["expected"])) == (rule, False)),
               None)
    if hit is None:
        return f"- `{name}`"
    message = _receipt_message(hit)
    return f"- `{name}` at `{hit['location']}`" + (f": \"{message}\"" if message else "")


def _verdict(report: Mapping[str, Any], name: str) -> str:
    for row in report["differential"]:
        if f"{row['case']}[{row['lane']}]" == name:
            return f"- `{name}`: {row['verdict']}: {(row['detail'] or '')[:200]}"
    return f"- `{name}`"


_DETAILED = {"rejections": _rejection, "verdicts": _verdict}
"""Kinds whose new findings are told with where and why; the others by name (escapes: below)."""


def _lines(report: Mapping[str, Any], mutants: Mapping[str, Any], kind: str, name: str, diff: bool) -> list[str]:
    """One new finding, told with enough to act on."""
    if kind == "escapes":
        return _escape(mutants.get(name), name, diff)
    detailed = _DETAILED.get(kind)
    return [detailed(report, name) if detailed else f"- `{name}`"]


def _new_kind(report: Mapping[str, Any], mutants: Mapping[str, Any], kind: str, names: list[str],
              detail: bool) -> list[str]:
    out = [f"### New {_TITLES[kind]}: {len(names)}", ""]
    for name in names[:_CAP]:
        out += _lines(report, mutants, kind, name, detail)
    if len(names) > _CAP:
        out.append(f"- … and {len(names) - _CAP} more in report.json (`baseline.new.{kind}`)")
    return [*out, ""]


def _new(report: Mapping[str, Any], delta: Mapping[str, Any], detail: bool) -> list[str]:
    mutants = {m["id"]: m for m in (report.get("mutation") or {}).get("mutants", [])}
    out: list[str] = []
    for kind in _TITLES:
        if delta["new"][kind]:
            out += _new_kind(report, mutants, kind, delta["new"][kind], detail)
    return out


def _tally(delta: Mapping[str, Any], which: str) -> str:
    parts = [f"{delta['counts'][k][which]} {_TITLES[k]}" for k in _TITLES if delta["counts"][k][which]]
    return ", ".join(parts) or "none"


def baseline_forms(report: Mapping[str, Any]) -> tuple[str, ...]:
    """The block in two forms: new findings with their diffs, and without them."""
    delta = report["baseline"]
    total = sum(c["new"] for c in delta["counts"].values())
    rule = _RULES.get(delta["fail_on"], "every finding fails this run")
    head = [f"## New since the baseline: {total}", "",
            f"Compared with `{Path(delta['run']).name}` ({rule}).", ""]
    tail = [f"Still failing (were failing in the baseline): {_tally(delta, 'still')}.",
            f"Fixed since the baseline: {_tally(delta, 'fixed')}."]
    if not total:
        return ("\n".join([*head, "Nothing new.", "", *tail]),)
    return tuple("\n".join([*head, *_new(report, delta, detail), *tail]) for detail in (True, False))
