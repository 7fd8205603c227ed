"""Build stage: every case x lane through old and new, isolated, into Observations and Verdicts.

    units(suite, ...)  which case x lane pairs to run (filters by case and lane id globs)
    build(suite, ...)  run them in worker processes; a result per unit, in suite order
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterator, Sequence

from harness._differential.pool import UnitResult, run_units
from harness._differential.unit import Pipelines, Unit
from harness._errors import ConfigError
from harness._model import Case, Subject, Suite
from harness._pipeline import prepare
from harness._pipeline.calls import call_pipeline, deadline
from harness._pipeline.inprocess import resolve_in_suite
from harness._plugins import load_callable

__all__ = ["Pipelines", "Unit", "UnitResult", "build", "call_pipeline", "deadline", "units"]


def _match(value: str, patterns: Sequence[str] | None) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(value, p) for p in patterns)


def _pairs(suite: Suite, cases: Sequence[str] | None, lanes: Sequence[str] | None) -> Iterator[tuple[Case, str]]:
    for case in suite.cases:
        if _match(case.id, cases):
            yield from ((case, lane_id) for lane_id in case.lanes if _match(lane_id, lanes))


def units(suite: Suite, cases: Sequence[str] | None = None, lanes: Sequence[str] | None = None,
          timeout: float | None = None) -> list[Unit]:
    """The case x lane pairs to run; ConfigError when a filter matches nothing."""
    limit = float(timeout or suite.settings.get("timeout_s", 10.0))
    out = [Unit(case, suite.lanes[lane_id], suite.subjects[case.subject], limit)
           for case, lane_id in _pairs(suite, cases, lanes)]
    if not out and (cases or lanes):
        raise ConfigError("--case/--lane", [*(cases or ()), *(lanes or ())],
                          "filters that match at least one case x lane of the suite")
    return out


def _ready(subject: Subject) -> None:
    """Before any worker forks: each side's setup command run once, each in-process callable
    imported (a missing pipeline is bad configuration, said once, not an outcome per unit)."""
    for side in ("old", "new"):
        spec = subject.pipeline(side)
        prepare(spec)
        if spec.in_process and spec.call:
            resolve_in_suite(spec.call, spec.root)
    if subject.refeed:
        load_callable(subject.refeed)


def build(suite: Suite, cases: Sequence[str] | None = None, lanes: Sequence[str] | None = None,
          *, workers: int | None = None, timeout: float | None = None,
          on_result: Callable[[UnitResult], None] | None = None) -> list[UnitResult]:
    """Run old and new on every selected case x lane; results in suite order."""
    todo = units(suite, cases, lanes, timeout)
    for subject in {u.subject for u in todo}:
        _ready(subject)
    count = (os.cpu_count() or 1) if workers is None else workers
    memory = suite.settings.get("memory_mb")
    return run_units(todo, count, on_result or (lambda _r: None), float(memory) if memory else None)
