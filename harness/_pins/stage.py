"""The pin stage of ``harness run``, run as the build stage goes.

Every case-file item (each pin of a case x lane, and its ``expect`` item) reads only that case x
lane's two observations. So ``unit()``, called as each unit finishes, evaluates its items at
once in the harness process (``harness._pins.inproc``) on the observations in hand: nothing is
saved for them and nothing read back, and their outcomes go to ``pins.jsonl`` in the run folder
the moment they are made (a killed run keeps them). The kinds that call a pipeline again
(``deterministic``, ``idempotent``) fork, which is not done while the build stage's threads
run: those wait for ``finish()``, with the few observations they read, and then run several
forks at a time.

A suite with Python pins also gets its pytest child (``harness._pins.child``), forked by
``start()`` before the build: pytest starts and collects while the pipelines run, and its pins
run as soon as the observations they read are in the spool (``harness._pins.spool``, written
as units finish; only such a suite gets one); ``finish()`` tells it the build is over. A
conftest.py that may act on case-file items (``collect.item_hooks``) sends every item through
that child instead, as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness._common.redact import redactor
from harness._model import Observation, Suite, Verdict
from harness._pins import cache
from harness._pins.child import ChildRun, PythonPins, StageOptions
from harness._pins.collect import CaseItem, item_hooks, python_pin_files
from harness._pins.declarative import calls_again
from harness._pins.document import Chosen, check_refs, choose, document
from harness._pins.ids import node_root
from harness._pins.inproc import (
    Forked,
    ItemResult,
    Saved,
    evaluate_items,
    item_timeout,
    playing,
    start_check,
)
from harness._pins.spool import Spool

__all__ = ["STREAM", "Outcomes", "PinStage"]

STREAM = "pins.jsonl"
"""The run folder's file of pin outcomes, one JSON line each, written as they are made."""


class Outcomes:
    """The case-file items' outcomes as they are made: to ``stream`` (when given) at once,
    redacted, in the report's shape; the report's rows and whether pytest would fail, kept."""

    def __init__(self, stream: Path | None) -> None:
        self.rows: list[dict[str, Any]] = []
        self.failed = False
        self._fd: int | None = None
        if stream is not None:
            self.attach(stream)

    def add(self, results: Sequence[ItemResult]) -> None:
        """A unit's outcomes: kept, and written in one append (whole lines, never interleaved)."""
        scrub = redactor().text  # a pin's message can quote pipeline output
        rows = [{"id": r.id, "outcome": r.outcome, "message": scrub(r.message[:2000])} for r in results]
        self.rows += rows
        self.failed = self.failed or any(r.failed for r in results)
        if self._fd is not None and rows:
            os.write(self._fd, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode())

    def attach(self, stream: Path) -> None:
        """Stream to ``stream`` from now on (an ``Outcomes(None)`` made before the run folder)."""
        # O_APPEND, whole lines per write: the Python pins' child appends to the same file
        self._fd = os.open(stream, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _forks(item: CaseItem) -> bool:
    """Whether checking ``item`` forks to call a pipeline again (not done during the build)."""
    return item.pin is not None and calls_again(item.pin)


def _split(items: list[CaseItem]) -> tuple[list[CaseItem], list[CaseItem]]:
    """(the items evaluated on the spot, the ones that fork)."""
    return [i for i in items if not _forks(i)], [i for i in items if _forks(i)]


def _by_unit(items: Sequence[CaseItem]) -> dict[tuple[str, str], list[CaseItem]]:
    out: dict[tuple[str, str], list[CaseItem]] = {}
    for item in items:
        out.setdefault((item.case.id, item.lane_id), []).append(item)
    return out


class PinStage:
    """``start()`` before the build, ``unit()`` per finished unit, ``finish()`` for the pins
    section, ``close()`` always (it ends the child and deletes what the stage kept); as a
    context manager, started on entry and closed on exit."""

    def __init__(self, suite: Suite, opts: StageOptions, stream: Path | None = None, *,
                 stream_later: bool = False) -> None:
        """``stream``: the run's pins.jsonl; ``stream_later``: it is given by ``attach`` once the
        run folder exists, and the stage may start (its pytest child starting up) before that."""
        self.suite, self.opts = suite, opts
        self.stream_later = stream_later
        self.chosen: Chosen = choose(suite, opts.cases, opts.lanes, opts.pin_set)  # a bad set: exit 2 now
        # a conftest may act on case-file items: pytest runs them all, none is evaluated here
        self.all_through_pytest = bool(item_hooks(suite, node_root(suite)))
        self.todo = {} if self.all_through_pytest else _by_unit(self.chosen.items)
        self._tmp = tempfile.TemporaryDirectory(prefix="harness-pins-")
        self.stream = stream
        self.outcomes = Outcomes(stream)
        self.later: list[tuple[list[CaseItem], Saved]] = []
        self.running: deque[Forked] = deque()  # forked items under way
        self.child: PythonPins | None = None
        self.spool: Spool | None = None
        if self.all_through_pytest or python_pin_files(suite):
            known = [] if self.all_through_pytest else self.chosen.all_ids
            self.child = PythonPins(suite, Path(self._tmp.name), known, self.all_through_pytest)
        self._held = contextlib.ExitStack()

    def start(self) -> None:
        """Set the pins' cache up and start the Python pins' child (observations to come from
        the spool, or from ``opts.observations`` when that names a store)."""
        self._held.enter_context(playing(self.opts.against))
        if self.child is None:
            return
        spool = None
        if self.opts.observations is None:
            self.spool = Spool(_folder(Path(self._tmp.name) / "spool"))
            spool = self.spool.folder
        self.child.start(self.opts, spool, self.stream, self.stream_later)

    def attach(self, stream: Path) -> None:
        """The run folder exists: outcomes, the child's too, go to ``stream`` (pins.jsonl) from
        now on. Before the first ``unit``, for a stage made with ``stream_later`` (a child that
        was given its stream at the start would read the line as the build's end)."""
        if not self.stream_later or self.stream is not None:
            raise ValueError("attach() is for a stage made with stream_later=True, once")
        self.stream = stream
        self.outcomes.attach(stream)
        if self.child is not None:
            self.child.attach(stream)

    def unit(self, case_id: str, lane_id: str, old: Observation | None, new: Observation | None,
             verdict: Verdict | None = None) -> None:
        """One finished case x lane: its items evaluated now (those that fork, kept for later).
        ``verdict``: the build stage's, made of these same observations (the unit's expect item
        reads it instead of comparing them again)."""
        sides = [obs for obs in (old, new) if obs is not None]
        if self.spool is not None:
            self.spool.put(sides)
        saved: Saved = {(obs.case_id, obs.lane_id, obs.side): obs for obs in sides}
        now, forking = _split(self.todo.pop((case_id, lane_id), []))
        if forking:
            self.later.append((forking, saved))
        self.outcomes.add(evaluate_items(self.suite, now, saved, verdict))

    def finish(self) -> dict[str, Any]:
        """The pins section: the child let go (its pins run while the forking items are
        evaluated here), every outcome in, the pin set's refs checked."""
        if self.spool is not None:
            self.spool.close()
        if self.child is not None:
            self.child.go()
        # a unit the build never reported (run_pins on a store missing it) calls its pipelines
        for items in self.todo.values():
            self.outcomes.add(evaluate_items(self.suite, items, {}))
        self._forking_items()
        ran = self._python_pins()
        self.outcomes.close()
        return document(self.suite, self.opts.against, self.opts.pin_set, self.outcomes.rows, self.outcomes.failed,
                        ran)

    def _forking_items(self) -> None:
        """The items kept for after the build, several forks at a time (as many as cores)."""
        timeout, cap = item_timeout(self.suite), os.cpu_count() or 1
        for items, saved in self.later:
            cache.use_saved(saved)
            for item in items:
                self.running.append(start_check(self.suite, item, timeout))
                if len(self.running) >= cap:
                    self.outcomes.add([self.running.popleft().result()])
        cache.clear()
        while self.running:
            self.outcomes.add([self.running.popleft().result()])

    def _python_pins(self) -> ChildRun | None:
        """What the child reported, once it has ended; the pin set's refs checked against every
        item (a pytest that could not collect says so itself)."""
        ran = self.child.finish() if self.child is not None else None
        if self.opts.pin_set and (ran is None or ran.problem is None):
            check_refs(self.suite, self.opts.pin_set, self.chosen, [r["id"] for r in ran.results] if ran else [])
        return ran

    def __enter__(self) -> PinStage:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            while self.running:
                self.running.popleft().stop()
            if self.child is not None:
                self.child.stop()
            if self.spool is not None:
                self.spool.close()
            self.outcomes.close()
        finally:
            self._held.close()
            self._tmp.cleanup()


def _folder(path: Path) -> Path:
    path.mkdir()
    return path
