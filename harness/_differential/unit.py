"""One unit of build work: a case on a lane, old and new, plus the case's declared checks.

Used by the worker processes and by the in-process build (``harness._differential.workers``). In-process
calls get their inputs from ``harness._differential.inputs`` and leave their deadline timer armed for
the next call: whoever calls ``observe`` settles the inputs and disarms the timer after a
batch of units (``harness._pipeline.calls.disarm``), as the pool does after each chunk.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness._compare import Judgement, compare
from harness._differential.inputs import Inputs
from harness._model import Case, ErrorInfo, Expectation, Lane, Observation, Side, Subject, VerdictKind
from harness._pipeline import Pipeline, pack
from harness._pipeline import Pipelines as _OpenPipelines
from harness._pipeline.calls import call_given
from harness._pipeline.inprocess import InProcessPipeline
from harness._plugins import load_callable

__all__ = ["Pipelines", "Unit", "VerdictRow", "both_here", "checks_for", "judged", "memory_named", "observe",
           "verdict_row"]


@dataclass(frozen=True, slots=True)  # one per planned unit: small matters at 100,000 units
class Unit:
    case: Case
    lane: Lane
    subject: Subject
    timeout: float

    @property
    def key(self) -> tuple[str, str]:
        return (self.case.id, self.lane.id)


_Here = tuple[Callable[..., Any], int, Callable[..., Any], int]
"""A subject whose sides both run in this process: old's callable and key, new's."""


class Pipelines(_OpenPipelines):
    """The pipelines this process has opened (``harness._pipeline``), each subject's two sides,
    the in-process calls' inputs (``harness._differential.inputs``), and plain callables (a subject's
    ``refeed``), each resolved once per process."""

    def __init__(self) -> None:
        super().__init__()
        self._cache: dict[str, Callable[..., Any]] = {}
        self._sides: dict[tuple[int, str], Pipeline] = {}
        self._here: dict[int, _Here | None] = {}
        self.inputs = Inputs()

    def side(self, subject: Subject, side: Side) -> Pipeline:
        """The open pipeline of ``subject``'s ``side`` (found once: hashing a spec per call cost
        more than a small pipeline's call)."""
        key = (id(subject), side)  # subjects live as long as the run's units
        pipeline = self._sides.get(key)
        if pipeline is None:
            pipeline = self._sides[key] = self.get(subject.pipeline(side))
        return pipeline

    def here(self, subject: Subject) -> _Here | None:
        """``subject``'s two callables and their keys when both sides run in this process."""
        key = id(subject)
        if key not in self._here:
            old, new = self.side(subject, "old"), self.side(subject, "new")
            here = None
            if isinstance(old, InProcessPipeline) and isinstance(new, InProcessPipeline):
                here = (old.fn, id(old), new.fn, id(new))
            self._here[key] = here
        return self._here[key]

    def function(self, spec: str) -> Callable[..., Any]:
        if spec not in self._cache:
            self._cache[spec] = load_callable(spec)
        return self._cache[spec]


def observe(unit: Unit, pipes: Pipelines, side: Side, pipeline_input: Any = None) -> Observation:
    """One call of the ``side`` pipeline on the unit (on ``pipeline_input`` when given)."""
    pipeline = pipes.side(unit.subject, side)
    if not isinstance(pipeline, InProcessPipeline):  # another process: the input is serialised anyway
        return memory_named(pipeline.call(
            unit.case.input if pipeline_input is None else pipeline_input, unit.lane.as_dict(),
            case_id=unit.case.id, lane_id=unit.lane.id, side=side, timeout=unit.timeout))
    if pipeline_input is None:
        return _here(unit, pipes.inputs, pipeline.fn, id(pipeline), side)
    given = pickle.loads(pack(pipeline_input))
    return memory_named(call_given(pipeline.fn, given, unit.lane.as_dict(), unit.case.id, unit.lane.id, side,
                                   unit.timeout, True))


def _here(unit: Unit, inputs: Inputs, fn: Callable[..., Any], key: int, side: Side) -> Observation:
    """One in-process call on the input ``inputs`` lends, its timer left armed (the pool
    disarms after each chunk)."""
    given = inputs.lend(key, unit.case)
    # a fresh lane dict every call: a pipeline may change its lane too
    obs = call_given(fn, given, unit.lane.as_dict(), unit.case.id, unit.lane.id, side, unit.timeout, True)
    inputs.returned(key, unit.case, given)
    return memory_named(obs)


def both_here(unit: Unit, pipes: Pipelines) -> tuple[Observation, Observation] | None:
    """Old and new on the unit when both run in this process (None otherwise): what ``observe``
    does twice, in fewer steps, for the build's commonest unit (its glue was a tenth of a run)."""
    here = pipes.here(unit.subject)
    if here is None:
        return None
    old_fn, old_key, new_fn, new_key = here
    return (_here(unit, pipes.inputs, old_fn, old_key, "old"),
            _here(unit, pipes.inputs, new_fn, new_key, "new"))


def memory_named(obs: Observation) -> Observation:
    """A call that ran out of memory (a MemoryError, in this process or one served over the
    protocol, under the suite's ``memory_mb`` ceiling) has the outcome ``memory``, not ``error``."""
    if obs.outcome == "error" and obs.error is not None and obs.error.type == "MemoryError":
        error = ErrorInfo("MemoryError", obs.error.message or "no memory left (the suite's memory_mb ceiling)",
                          obs.error.where)
        return Observation(obs.case_id, obs.lane_id, obs.side, "memory", error=error, duration_s=obs.duration_s)
    return obs


def _deterministic(unit: Unit, pipes: Pipelines, first: Observation) -> str:
    again = observe(unit, pipes, "new")
    if not again.ok:
        return f"the second run ended with {again.outcome}"
    return "held" if again.wire == first.wire else "a second run gave different bytes"


def _idempotent(unit: Unit, pipes: Pipelines, first: Observation) -> str:
    if not unit.subject.refeed:
        return "the subject has no refeed function, so idempotence cannot be checked"
    try:
        fed = pipes.function(unit.subject.refeed)(pipes.inputs.fresh(unit.case), first.value)
    except Exception as exc:
        return f"refeed raised {type(exc).__name__}: {exc}"
    again = observe(unit, pipes, "new", fed)
    if not again.ok:
        return f"feeding the output back ended with {again.outcome}"
    if again.wire == first.wire:
        return "held"
    return "feeding the output back changed it"


def checks_for(unit: Unit, pipes: Pipelines, new: Observation) -> dict[str, str]:
    out: dict[str, str] = {}
    if not new.ok:
        return {name: "the new pipeline gave no output" for name in sorted(unit.case.checks)}
    if "deterministic" in unit.case.checks:
        out["deterministic"] = _deterministic(unit, pipes, new)
    if "idempotent" in unit.case.checks:
        out["idempotent"] = _idempotent(unit, pipes, new)
    return out


VerdictRow = tuple[VerdictKind, bool, str, str, tuple[str, ...], tuple[str, ...]]
"""A verdict's own fields (kind, failed, detail, why, paths, unexpected paths): what a worker
sends; the parent, which knows the unit, makes the ``Verdict`` (``harness._differential.rows``)."""


def judged(unit: Unit, old: Observation, new: Observation, checks: dict[str, str]) -> VerdictRow:
    """The verdict on one unit from its two observations and its checks."""
    exp = unit.case.expectation(unit.lane.id)
    return verdict_row(exp, compare(old, new, exp), checks)


def verdict_row(exp: Expectation, got: Judgement, checks: dict[str, str]) -> VerdictRow:
    """The verdict's fields from the comparison's judgement and the unit's checks."""
    why = exp.why or (got.detail if got.kind == "intended" else "")  # a divergence declared above the case
    failed_checks = [f"{k}: {v}" for k, v in checks.items() if v != "held"] if checks else None
    if not failed_checks:
        return got.kind, got.failed, got.detail, why, got.paths, got.unexpected_paths
    detail = "; ".join([got.detail, *failed_checks] if got.failed and got.detail else failed_checks)
    return got.kind, True, detail, why, got.paths, got.unexpected_paths
