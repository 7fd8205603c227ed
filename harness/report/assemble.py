"""Assemble report.json from the stages' results: plain JSON, deterministic apart from
``timings`` (every time and duration lives there, so two runs on the same inputs give the
same bytes once it is removed)."""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from deepdiff import DeepDiff

from harness import __version__
from harness.build import UnitResult
from harness.model import Observation, Suite

__all__ = ["DETAIL_LIMIT", "REPORT_VERSION", "differential_rows", "report_document"]

logging.getLogger("deepdiff").setLevel(logging.ERROR)  # its "max diffs reached" note is ours to report

REPORT_VERSION = 1
DETAIL_LIMIT = 50  # failing units whose deepdiff detail the report carries


def _side(obs: Observation | None) -> dict[str, Any]:
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
    if isinstance(value, dict | list) and depth >= DETAIL_MAX_DEPTH:
        return f"[cut: nested deeper than {DETAIL_MAX_DEPTH} levels]"
    if isinstance(value, dict):
        return {k: _cut(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut(v, depth + 1) for v in value[:50]] + ([f"... ({len(value) - 50} more)"] if len(value) > 50 else [])
    return value


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests, counted without recursion and no further than ``limit``."""
    deepest, stack = 0, [(value, 0)]
    while stack and deepest < limit:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _detail(res: UnitResult) -> dict[str, Any] | None:
    if not (res.old and res.new and res.old.ok and res.new.ok):
        return None
    if max(len(res.old.wire or b""), len(res.new.wire or b"")) > DETAIL_MAX_BYTES:
        return {"omitted": f"outputs over {DETAIL_MAX_BYTES} bytes: see the differing paths"}
    if max(_depth(res.old.value, DETAIL_MAX_DEPTH), _depth(res.new.value, DETAIL_MAX_DEPTH)) >= DETAIL_MAX_DEPTH:
        return {"omitted": f"outputs nested {DETAIL_MAX_DEPTH} or more deep: see the differing paths"}
    diff = DeepDiff(res.old.value, res.new.value, verbose_level=2, max_diffs=200, log_frequency_in_sec=0)
    loaded: dict[str, Any] = _cut(json.loads(diff.to_json()))
    return loaded


def differential_rows(results: Sequence[UnitResult]) -> list[dict[str, Any]]:
    rows = []
    detailed = 0
    for res in results:
        v = res.verdict
        assert v is not None
        row: dict[str, Any] = {
            "subject": res.unit.subject.name, "case": v.case_id, "lane": v.lane_id,
            "verdict": v.kind, "failed": v.failed, "detail": v.detail, "why": v.why,
            "paths": list(v.paths), "unexpected_paths": list(v.unexpected_paths),
            "checks": dict(v.checks), "old": _side(res.old), "new": _side(res.new), "diff": None,
        }
        if v.failed and v.kind in ("unexpected", "reordered") and detailed < DETAIL_LIMIT:
            row["diff"] = _detail(res)
            detailed += 1
        rows.append(row)
    return rows


def _summary(rows: list[dict[str, Any]], pins: Mapping[str, Any] | None) -> dict[str, Any]:
    kinds = Counter(r["verdict"] for r in rows)
    out: dict[str, Any] = {
        "units": len(rows),
        "verdicts": {k: kinds.get(k, 0) for k in ("identical", "reordered", "intended", "unexpected", "error")},
        "failed": sum(1 for r in rows if r["failed"]),
    }
    if pins:
        out["pins"] = pins["summary"]
    return out


def report_document(suite: Suite, options: Mapping[str, Any], results: Sequence[UnitResult],
                    pins: Mapping[str, Any] | None, sections: Mapping[str, Any],
                    timings: Mapping[str, Any]) -> dict[str, Any]:
    rows = differential_rows(results)
    subjects = sorted({r.unit.subject.name for r in results})
    return {
        "report": "wire-harness",
        "version": REPORT_VERSION,
        "harness_version": __version__,
        "suite": {
            "name": suite.name, "cases": len(suite.cases), "lanes": sorted(suite.lanes),
            "subjects": [
                {"name": s.name, "old": s.old, "new": s.new, "wires": sorted(s.wires)}
                for s in (suite.subjects[n] for n in subjects)
            ],
        },
        "options": dict(options),
        "differential": rows,
        "pins": pins,
        "rejections": sections.get("rejections"),
        "mutation": sections.get("mutation"),
        "summary": _summary(rows, pins),
        "timings": dict(timings),
    }
