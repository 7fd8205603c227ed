"""Each in-process pipeline call's input, isolated without a copy per call.

A case's input is pickled once per process. Each in-process pipeline then gets its inputs so:

- its first call in the process runs on a fresh copy, compared with the pickled bytes after the
  call: a pipeline that changed it *mutates*, and gets a fresh copy (one unpickling) every call;
- a pipeline that left it alone gets one input per case, shared by its calls on that case's
  lanes (and its checks' second runs): no copy per call. In a build worker that input is the
  case's own (``Inputs(originals)``: the worker is a forked copy of the harness, so nothing else
  sees it, and its bytes were taken before any pipeline ran); elsewhere one decoded copy per
  pipeline and case.

A pipeline may leave its first input alone and still change a later one (on one lane only,
say). So every input handed out shared is compared with its bytes again before the results it
served are passed on (``settle``): a changed one marks the pipelines it was lent to as
mutating, and the caller runs those units again on fresh copies. Elsewhere each pipeline has
copies of its own, so one side never sees what the other did to its input; in a worker the two
sides share the case's own input, and an edit one side makes shows at the settle like any
other (both sides then get fresh copies; copying the input for the second side cost 2% of a
run). What a settle cannot see is an edit a later call of the same chunk undoes exactly.

Comparing pickles, not values: ``1 == 1.0 == True`` and key order is invisible to ``==``, but a
pipeline that changed either changed what the next call would put on the wire.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from harness._model import Case
from harness._pipeline.calls import pack

__all__ = ["Inputs"]

_KEPT_CASES = 16  # units arrive grouped by case: a few packed inputs are enough


@dataclass(frozen=True)
class _Lent:
    """A shared copy handed to one pipeline, and the bytes it must still pickle to."""

    pipeline: int
    packed: bytes
    value: Any
    case: Case  # the case it is a copy of (units arrive grouped by case)


class Inputs:
    """The inputs of one process's in-process pipeline calls. Pipelines are named by a key
    the caller keeps stable for the process (the id of the open pipeline object)."""

    def __init__(self, originals: Mapping[str, bytes] | None = None) -> None:
        # case id -> its input's bytes, taken before any pipeline ran in this process: those
        # cases' own inputs are lent (an object two cases share, edited through one, shows as a
        # change of the other too, against bytes no edit can have reached)
        self._originals: Mapping[str, bytes] = originals or {}
        self._packed: dict[str, bytes] = {}
        self._mutates: dict[int, bool] = {}
        self._shared: dict[int, _Lent] = {}
        self._lent: dict[int, _Lent] = {}  # the shared copies used since the last settle, by id
        self.sharing = True

    def packed(self, case: Case) -> bytes:
        """The case's input, pickled once per case."""
        packed = self._originals.get(case.id) or self._packed.get(case.id)
        if packed is None:
            if len(self._packed) >= _KEPT_CASES:
                self._packed.clear()
            packed = self._packed[case.id] = pack(case.input)
        return packed

    def fresh(self, case: Case) -> Any:
        """A copy of the case's input no other call sees."""
        return pickle.loads(self.packed(case))

    def lend(self, pipeline: int, case: Case) -> Any:
        """The input for one call of ``pipeline`` on ``case``: shared when the pipeline is known
        to leave its input alone, fresh otherwise. Call ``returned`` after the call."""
        lent = self._shared.get(pipeline)
        if lent is not None and lent.case is case and self.sharing:  # the commonest call: the case's next lane
            self._lent[id(lent)] = lent
            return lent.value
        if not self.sharing or self._mutates.get(pipeline) is not False:
            return self.fresh(case)
        packed = self.packed(case)
        value = case.input if case.id in self._originals else pickle.loads(packed)
        lent = self._shared[pipeline] = _Lent(pipeline, packed, value, case)
        self._lent[id(lent)] = lent
        return lent.value

    def returned(self, pipeline: int, case: Case, given: Any) -> None:
        """After a call: the pipeline's first call decides whether it mutates its input."""
        if pipeline not in self._mutates:
            self._mutates[pipeline] = pack(given) != self.packed(case)

    def settle(self) -> bool:
        """Whether every shared input handed out since the last settle still holds the case's
        input. A changed one marks the pipelines it was lent to as mutating (fresh copies from
        now on) and the answer is False: the results computed since the last settle may be wrong, run them again."""
        held: dict[int, bool] = {}  # by the value's id: a case's own input is lent to both sides
        changed = set()
        for lent in self._lent.values():
            same = held.get(id(lent.value))
            if same is None:
                same = held[id(lent.value)] = pack(lent.value) == lent.packed
            if not same:
                changed.add(lent.pipeline)
        self._lent.clear()
        for pipeline in changed:
            self._mutates[pipeline] = True
            self._shared.pop(pipeline, None)
        return not changed

    @contextmanager
    def unshared(self) -> Iterator[None]:
        """Fresh copies only inside the block: for results passed on before a settle could
        check them (a unit run carefully streams each side as it ends)."""
        before, self.sharing = self.sharing, False
        try:
            yield
        finally:
            self.sharing = before
