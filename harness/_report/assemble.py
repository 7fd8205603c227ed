"""Assemble report.json from the stages' results: plain JSON, deterministic apart from
``timings`` (every time and duration lives there, so two runs on the same inputs give the
same bytes once it is removed)."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness import __version__
from harness._common.selectors import select
from harness._differential import UnitResult
from harness._evidence import Saved, body_relpath
from harness._model import Observation, Suite
from harness._report.sections import (
    EvidenceLinks,
    EvidenceSummary,
    MutationSection,
    PinsSection,
    RejectionsSection,
    Report,
    Row,
    SideJson,
    Summary,
)

__all__ = ["DETAIL_LIMIT", "DIVERGED", "REPORT_VERSION", "Sections", "deep_candidate", "differential_row",
           "evidence_links", "report_document", "summary"]

logging.getLogger("deepdiff").setLevel(logging.ERROR)  # its "max diffs reached" note is ours to report

REPORT_VERSION = 1
DETAIL_LIMIT = 50  # failing units whose diff is deepdiff's; every other divergence gets the path view
DIVERGED = ("intended", "unexpected", "reordered")  # verdicts whose rows carry a diff when both sides are ok


def _side(obs: Observation | None) -> SideJson:
    if obs is None:
        return {"outcome": "missing", "sha256": None, "bytes": None, "error": None}
    return {
        "outcome": obs.outcome,
        "sha256": hashlib.sha256(obs.wire).hexdigest() if obs.wire is not None else None,
        "bytes": len(obs.wire) if obs.wire is not None else None,
        "error": None if obs.error is None else {"type": obs.error.type, "message": obs.error.message,
                                                 "where": obs.error.where},
    }


DETAIL_MAX_BYTES = 1 << 20  # outputs larger than this get paths only, no deepdiff detail
STRING_LIMIT = 500  # longer strings inside a diff are cut, so one huge value cannot bloat the report


DETAIL_MAX_DEPTH = 48  # deeper outputs get paths only: deepdiff and our cut both recurse


def _cut(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str) and len(value) > STRING_LIMIT:
        return value[:STRING_LIMIT] + f"... ({len(value) - STRING_LIMIT} more characters)"
    if not isinstance(value, dict | list):
        return value
    if depth >= DETAIL_MAX_DEPTH:
        return f"[cut: nested deeper than {DETAIL_MAX_DEPTH} levels]"
    if isinstance(value, dict):
        return {k: _cut(v, depth + 1) for k, v in value.items()}
    return _cut_list(value, depth)


def _cut_list(value: list[Any], depth: int) -> list[Any]:
    """The first 50 items, each cut, and how many more there were."""
    more = [f"... ({len(value) - 50} more)"] if len(value) > 50 else []
    return [_cut(v, depth + 1) for v in value[:50]] + more


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests, counted without recursion and no further than ``limit``."""
    deepest, stack = 0, [(value, 0)]
    while stack and deepest < limit:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _detail(res: UnitResult, deep: bool) -> dict[str, Any] | None:
    """deepdiff's diff (``deep``), else the path view; None unless both sides are ok."""
    if not (res.old and res.new and res.old.ok and res.new.ok):
        return None
    omitted = _omitted(res.old, res.new)
    if omitted:
        return {"omitted": omitted}
    if not deep:
        return _path_view(res.old.value, res.new.value, res.verdict.paths if res.verdict else ())
    from deepdiff import DeepDiff  # here: a run with no failing divergence never imports it (0.06 CPU s)

    diff = DeepDiff(res.old.value, res.new.value, verbose_level=2, max_diffs=200, log_frequency_in_sec=0)
    loaded: dict[str, Any] = _cut(json.loads(diff.to_json()))
    return loaded


def _omitted(old: Observation, new: Observation) -> str | None:
    """Why a pair gets the differing paths only: outputs too large to diff, or nested deeper than
    deepdiff and ``_cut`` (both recursive) may go."""
    if max(len(old.wire or b""), len(new.wire or b"")) > DETAIL_MAX_BYTES:
        return f"outputs over {DETAIL_MAX_BYTES} bytes: see the differing paths"
    if max(_depth(old.value, DETAIL_MAX_DEPTH), _depth(new.value, DETAIL_MAX_DEPTH)) >= DETAIL_MAX_DEPTH:
        return f"outputs nested {DETAIL_MAX_DEPTH} or more deep: see the differing paths"
    return None


def _at(value: Any, path: str) -> list[Any]:
    return [v for _, v in select(value, path)]


def _path_view(old: Any, new: Any, paths: Sequence[str]) -> dict[str, Any]:
    """Old and new values at each differing path the compare stage found: a diff as cheap as that
    walk. deepdiff can cost a tenth of a second on one pair whose arrays differ (measured on the
    MCP corpus), too much for every intended divergence of a corpus run; `harness show` renders
    deepdiff's view of any one pair on demand."""
    view: dict[str, Any] = {"view": "paths", "changed": {}, "added": {}, "removed": {}}
    for path in paths:
        was, now = _at(old, path), _at(new, path)
        if was and now:
            view["changed"][path] = {"old_value": was[0], "new_value": now[0]}
        elif now:
            view["added"][path] = now[0]
        elif was:
            view["removed"][path] = was[0]
    if not paths:  # equal values in another key order
        view["note"] = "equal values; only the key order differs"
    cut: dict[str, Any] = _cut({k: v for k, v in view.items() if v != {}})
    return cut


def evidence_links(folder: str, old: Saved | None, new: Saved | None) -> EvidenceLinks:
    """A row's saved bodies, as paths relative to the run folder, and why a body is missing."""
    out: EvidenceLinks = {"old": None, "new": None}
    omitted: dict[str, str] = {}
    for side, saved in (("old", old), ("new", new)):
        if saved is not None and saved.digest:
            out[side] = f"{folder}/{body_relpath(saved.digest)}"  # type: ignore[literal-required]
        if saved is not None and saved.omitted is not None:
            omitted[side] = saved.omitted
    if omitted:
        out["omitted"] = omitted
    return out


def deep_candidate(res: UnitResult) -> bool:
    """Whether a row may get deepdiff's diff: a failing unexpected or reordered divergence (the
    first DETAIL_LIMIT of them in suite order do)."""
    v = res.verdict
    return v is not None and v.failed and v.kind in ("unexpected", "reordered")


def differential_row(res: UnitResult, links: EvidenceLinks, deep: bool = False) -> Row:
    """One case x lane's row. A diverging row whose sides are both ok carries a diff: deepdiff's
    when ``deep``, else the path view."""
    v = res.verdict
    assert v is not None
    return {
        "subject": res.unit.subject.name, "case": v.case_id, "lane": v.lane_id, "file": res.unit.case.file,
        "verdict": v.kind, "failed": v.failed, "detail": v.detail, "why": v.why,
        "paths": list(v.paths), "unexpected_paths": list(v.unexpected_paths),
        "checks": dict(v.checks), "old": _side(res.old), "new": _side(res.new),
        "diff": _detail(res, deep) if v.kind in DIVERGED else None,
        "evidence": links,
    }


def summary(units: int, verdicts: Mapping[str, int], failed: int, pins: PinsSection | None) -> Summary:
    out: Summary = {
        "units": units,
        "verdicts": {"identical": verdicts.get("identical", 0), "reordered": verdicts.get("reordered", 0),
                     "intended": verdicts.get("intended", 0), "unexpected": verdicts.get("unexpected", 0),
                     "error": verdicts.get("error", 0)},
        "failed": failed,
    }
    if pins:
        out["pins"] = pins["summary"]
    return out


@dataclass(frozen=True)
class Sections:
    """What the stages after build hand the report: each typed, each None when it did not run."""

    pins: PinsSection | None = None
    rejections: RejectionsSection | None = None
    mutation: MutationSection | None = None


def report_document(suite: Suite, options: Mapping[str, Any], rows: Sequence[Row], counts: Summary,
                    sections: Sections, timings: Mapping[str, Any], evidence: EvidenceSummary | None,
                    subjects: Iterable[str]) -> Report:
    """report.json, its exit not yet decided (``{"code": 0, "reason": ""}``). ``rows`` is the
    differential in suite order (in a run, read back from the run folder as the file is
    written); ``baseline`` is None here: the runner fills it when the run has one."""
    return {
        "report": "wire-harness",
        "version": REPORT_VERSION,
        "harness_version": __version__,
        "suite": {
            "name": suite.name, "cases": len(suite.cases), "lanes": sorted(suite.lanes),
            "subjects": [
                {"name": s.name, "old": s.old, "new": s.new, "wires": sorted(s.wires)}
                for s in (suite.subjects[n] for n in sorted(subjects))
            ],
        },
        "options": dict(options),
        "differential": rows,
        "pins": sections.pins,
        "rejections": sections.rejections,
        "mutation": sections.mutation,
        "summary": counts,
        "evidence": evidence,
        "baseline": None,
        "timings": dict(timings),
        "exit": {"code": 0, "reason": ""},
    }
