"""A finished unit as the plain tuples a worker sends, and back into results in the parent.

A worker keeps no live value and no Observation past a unit's end: it sends each unit as a
``Row`` (old, new, checks, the verdict's fields), its bodies shared where equal (``Bodies``),
and the parent, which knows each unit's case and lane, makes the Observations and the Verdict
once (``unpacked``). The commonest unit (both sides in this process, no checks declared, the
same bytes from old and new) is made straight into its row (``plain``), without an Observation:
its glue was a third of a run on small pipelines.
"""

from __future__ import annotations

from typing import Any

from harness._compare import equal_answers
from harness._differential.unit import Pipelines, Unit, VerdictRow, judged, memory_named, verdict_row
from harness._model import ErrorInfo, Observation, Side, Verdict
from harness._pipeline.calls import Raw, call_raw

__all__ = ["Bodies", "ObsRow", "Row", "plain", "unpacked"]

ObsRow = tuple[Any, bytes | None, tuple[str, str, str] | None, float, Any]
"""An observation as a worker sends it: outcome, wire bytes, error (type, message, where),
duration, and what a client side received (``Observation.answer``: a gateway's envelope, None
for every other side); never its live value (the parent decodes the bytes on first use)."""

Row = tuple[ObsRow, ObsRow, dict[str, str], VerdictRow]
"""A finished unit as plain tuples: old, new, its checks and its verdict's fields."""


class Bodies:
    """The wire bytes of the case in hand, so that an equal body (old and new alike, or one tool
    on many lanes: 696 distinct bodies in 5,248 on the corpus bench) is one object: pickled once
    per message, and kept once by the parent. Compared by ``==``, a few bodies at most (hashing
    every body would cost more than it saves)."""

    KEEP = 16

    def __init__(self) -> None:
        self.case_id = ""
        self.known: list[bytes | None] = []

    def kept(self, case_id: str, wire: bytes | None) -> bytes | None:
        """``wire``, or the equal body kept earlier for this case."""
        known = self.known
        if case_id != self.case_id:
            known = self.known = []
            self.case_id = case_id
        for body in known:
            if body == wire:
                return body
        if len(known) < self.KEEP:
            known.append(wire)
        return wire

    def row(self, obs: Observation) -> ObsRow:
        """The observation as a worker sends it."""
        error = None if obs.error is None else (obs.error.type, obs.error.message, obs.error.where)
        return obs.outcome, self.kept(obs.case_id, obs.wire), error, obs.duration_s, obs.answer


def _observation(unit: Unit, side: Side, raw: Raw) -> Observation:
    outcome, wire, value, error, took = raw
    if error is None:
        return Observation(unit.case.id, unit.lane.id, side, "ok", wire, value, None, took)
    return memory_named(Observation(unit.case.id, unit.lane.id, side, outcome, error=error, duration_s=took))


def plain(unit: Unit, pipes: Pipelines, bodies: Bodies) -> Row | None:
    """The unit's row when both its sides run in this process and its case declares no checks;
    None for any other unit (the caller runs it whole). Each call gets a lane of its own and
    leaves its deadline timer armed (the caller disarms after the chunk and settles the inputs)."""
    here = pipes.here(unit.subject)
    case = unit.case
    if here is None or case.checks:
        return None
    old_fn, old_key, new_fn, new_key = here
    inputs, lane, timeout = pipes.inputs, unit.lane.as_dict(), unit.timeout
    given = inputs.lend(old_key, case)
    old = call_raw(old_fn, given, dict(lane), timeout, True)  # a pipeline may change its lane too
    inputs.returned(old_key, case, given)
    given = inputs.lend(new_key, case)
    new = call_raw(new_fn, given, lane, timeout, True)
    inputs.returned(new_key, case, given)
    if old[1] is not None and old[1] == new[1]:  # both answered, the same bytes
        wire, exp = bodies.kept(case.id, old[1]), case.expectation(unit.lane.id)
        verdict = verdict_row(exp, equal_answers(exp), {})
        return ("ok", wire, None, old[4], None), ("ok", wire, None, new[4], None), {}, verdict
    old_obs, new_obs = _observation(unit, "old", old), _observation(unit, "new", new)
    return bodies.row(old_obs), bodies.row(new_obs), {}, judged(unit, old_obs, new_obs, {})


def unpacked(unit: Unit, row: Row) -> tuple[Observation, Observation, dict[str, str], Verdict]:
    """A unit's results from its row."""
    (o_outcome, o_wire, o_error, o_took, o_answer), (n_outcome, n_wire, n_error, n_took, n_answer), checks, \
        verdict = row
    case_id, lane_id = unit.case.id, unit.lane.id
    old = Observation(case_id, lane_id, "old", o_outcome, o_wire, error=o_error and ErrorInfo(*o_error),
                      duration_s=o_took, answer=o_answer)
    new = Observation(case_id, lane_id, "new", n_outcome, n_wire, error=n_error and ErrorInfo(*n_error),
                      duration_s=n_took, answer=n_answer)
    kind, failed, detail, why, paths, unexpected = verdict
    return old, new, checks, Verdict(case_id, lane_id, kind, failed, detail, why, paths, unexpected, checks)
