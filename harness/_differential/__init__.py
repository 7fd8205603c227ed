"""Build stage: every case x lane through old and new, isolated, into Observations and Verdicts.

    units(suite, ...)  which case x lane pairs to run (filters by case and lane id globs)
    build(suite, ...)  run them in worker processes; a result per unit, in suite order
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Sequence

from harness._differential.unit import Pipelines, Unit
from harness._differential.workers import Prepare, UnitResult, run_units
from harness._errors import ConfigError
from harness._model import Case, PipelineSpec, Suite
from harness._pipeline import prepare
from harness._pipeline.calls import call_pipeline, deadline
from harness._pipeline.inprocess import resolve_in_suite
from harness._plugins import load_callable

__all__ = ["Pipelines", "Prepare", "Unit", "UnitResult", "build", "call_pipeline", "deadline", "units"]


def _match(value: str, patterns: Sequence[str] | None) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(value, p) for p in patterns)


def _case_units(suite: Suite, case: Case, cases: Sequence[str] | None, lanes: Sequence[str] | None,
                limit: float) -> list[Unit]:
    """The case's units on the lanes the filters pick (none when the filters leave the case out)."""
    if not _match(case.id, cases):
        return []
    subject = suite.subjects[case.subject]  # once per case, not per lane
    picked = case.lanes if not lanes else [lane_id for lane_id in case.lanes if _match(lane_id, lanes)]
    return [Unit(case, suite.lanes[lane_id], subject, limit) for lane_id in picked]


def _matched(found: list[Unit], cases: Sequence[str] | None, lanes: Sequence[str] | None) -> list[Unit]:
    """``found``; a ConfigError when --case/--lane filters were given and matched nothing."""
    filters = [*(cases or ()), *(lanes or ())]
    if filters and not found:
        raise ConfigError("--case/--lane", filters, "filters that match at least one case x lane of the suite")
    return found


def units(suite: Suite, cases: Sequence[str] | None = None, lanes: Sequence[str] | None = None,
          timeout: float | None = None) -> list[Unit]:
    """The case x lane pairs to run; ConfigError when a filter matches nothing."""
    limit = float(timeout or suite.settings.timeout_s)
    return _matched([unit for case in suite.cases for unit in _case_units(suite, case, cases, lanes, limit)],
                    cases, lanes)


def _prepared(spec: PipelineSpec) -> None:
    """The side's setup command run (once per process), and an in-process callable imported."""
    prepare(spec)
    if spec.in_process and spec.call:
        resolve_in_suite(spec.call, spec.root)


def _ready(suite: Suite, todo: list[Unit]) -> None:
    """Before any worker forks, each subject the units run: a missing pipeline is bad
    configuration, said once, not an outcome per unit."""
    for name in {unit.case.subject for unit in todo}:  # a name hashes cheaply; a Subject hashes every field
        subject = suite.subjects[name]
        for spec in (subject.pipeline("old"), subject.pipeline("new")):
            _prepared(spec)
        if subject.refeed:
            load_callable(subject.refeed)


def build(suite: Suite, cases: Sequence[str] | None = None, lanes: Sequence[str] | None = None,
          *, workers: int | None = None, timeout: float | None = None,
          on_result: Callable[[UnitResult], None] | None = None,
          prepare: Prepare | None = None) -> list[UnitResult]:
    """Run old and new on every selected case x lane; results in suite order. ``workers``:
    None is one per core; 0 runs every unit in this process. ``prepare``: per-unit work done
    where the unit ran (``harness._differential.workers``), its answer on ``UnitResult.prepared``."""
    todo = units(suite, cases, lanes, timeout)
    _ready(suite, todo)
    count = (os.cpu_count() or 1) if workers is None else workers
    return run_units(todo, count, on_result or (lambda _r: None), suite.settings.memory_mb, prepare)
