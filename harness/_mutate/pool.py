"""Fork one child per row, get its pins' outcomes back, enforce per-pin deadlines.

The parent has collected the pins once; each child inherits them by ``fork``, activates its
mutant (``prepare``, given the worker lane the row runs on), then runs its pins in order. The
child writes which pin it is on, when it started it, and each finished pin's outcome into a
small shared memory slot (``harness._mutate.slot``), and sends one ``{"t": "W"}`` message over
a pipe when the row is done, with the extras of the pins that have any. The baseline's rows
(``Job.whole`` false) also send each pin's extras (its coverage, its duration) as it ends, so a
later crash in the same child loses none of them.

The parent is the only clock: a pin that overruns its deadline gets the child SIGKILLed and is
recorded as ``timeout``; a child that dies mid-pin (SIGSEGV, ``os._exit``) records that pin as
``crash``. Either way the rest of the row runs in a fresh child on the same lane, so one bad pin
never hides the others' verdicts. ``Job.stop_on_kill``: the row ends at its first failing pin
(first-kill mode).
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import signal
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from harness._mutate.slot import Slot

__all__ = ["Job", "PinRunner", "Row", "cores", "run_jobs"]

PinRunner = Callable[[int, Sequence[int]], tuple[str, dict[str, Any]]]
"""Run pin ``i`` (the pins still to run after it) in the child; returns (outcome, extra fields)."""

START_DEADLINE_S = 30.0
IDLE_DEADLINE_S = 30.0
POLL_S = 0.05  # a child starts each pin without a word: its slot is looked at this often


@dataclass
class Job:
    """One row: a mutant (or the baseline) and the pins to run against it, in order."""

    key: str
    pins: list[int]
    prepare: Callable[[int], str | None]  # runs in the child, given its worker lane; a message: "unviable"
    before_pin: Callable[[], None] = lambda: None
    start_s: float = 0.0  # how long ``prepare`` may take (0: START_DEADLINE_S); a rebuild needs more
    whole: bool = False  # the row's extras in its one closing message (mutant rows), not pin by pin
    stop_on_kill: bool = False  # first-kill mode: the row ends at its first failing pin


@dataclass
class Row:
    key: str
    outcomes: dict[int, str] = field(default_factory=dict)
    extra: dict[int, dict[str, Any]] = field(default_factory=dict)
    details: dict[int, str] = field(default_factory=dict)
    unviable: str | None = None
    forks: int = 0
    started: float = 0.0  # time.monotonic() of its first fork
    lane: int = 0  # the worker lane the row runs in (every fork of it), free again once it ends


@dataclass
class _Running:
    pid: int
    fd: int
    job: Job
    sent: list[int]  # the pins the child was given, in order
    slot: Slot  # the child's progress
    deadline: float  # while it prepares
    buffer: bytes = b""
    finished: bool = False  # the child said its row is done (or that it cannot run it)


@dataclass
class _Left:
    """Where an ended child left its row: the pin it was on, the pins after it."""

    current: int | None
    todo: list[int]
    started: bool  # it had begun its pins


# -- the child ---------------------------------------------------------------------------------
def _send(fd: int, msg: dict[str, Any]) -> None:
    os.write(fd, (json.dumps(msg) + "\n").encode())


def _run_row(job: Job, todo: list[int], run_pin: PinRunner, slot: Slot, fd: int) -> dict[int, dict[str, Any]]:
    """Run the row, outcomes into ``slot``; the extras still to send (whole rows)."""
    extras: dict[int, dict[str, Any]] = {}
    for pos, i in enumerate(todo):
        job.before_pin()
        slot.begin(pos)
        started = time.perf_counter()
        outcome, extra = run_pin(i, todo[pos + 1:])
        slot.done(pos, outcome)
        if not job.whole:
            _send(fd, {"t": "R", "i": i, "x": {"d": time.perf_counter() - started, **extra}})
        elif extra:
            extras[i] = extra
        if job.stop_on_kill and outcome == "failed":
            break
    slot.begin(len(todo))
    return extras


def _child(fd: int, row: Row, job: Job, todo: list[int], run_pin: PinRunner, slot: Slot) -> NoReturn:
    """Never returns: the child ends with os._exit so no parent state is torn down twice."""
    try:
        gc.disable()  # a short-lived child: collecting would only copy the parent's pages
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(null, std)
        problem = job.prepare(row.lane)
        if problem is None:
            _send(fd, {"t": "W", "x": _run_row(job, todo, run_pin, slot, fd)})
        else:
            _send(fd, {"t": "U", "e": problem})
        os._exit(0)
    except BaseException as exc:  # the child must never fall back into the parent's code
        try:
            _send(fd, {"t": "E", "e": f"{type(exc).__name__}: {exc}"})
        finally:
            os._exit(70)


def cores() -> int:
    """The cores this process may run on (a CI container's limit, not the host's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


# -- the parent --------------------------------------------------------------------------------
def _describe_status(status: int) -> str:
    if not os.WIFSIGNALED(status):
        return f"exited with code {os.WEXITSTATUS(status)}"
    sig = os.WTERMSIG(status)
    try:
        return f"killed by {signal.Signals(sig).name}"
    except ValueError:
        return f"killed by signal {sig}"


def run_jobs(jobs: Sequence[Job], run_pin: PinRunner, deadlines: Sequence[float], workers: int,
             on_row: Callable[[Row], None]) -> None:
    """Run every job to completion with at most ``workers`` children at once."""
    pool = _Pool(jobs, run_pin, deadlines, on_row, max(1, workers))
    gc.collect()
    gc.freeze()  # children share the parent's objects without the collector dirtying their pages
    try:
        pool.run()
    finally:
        pool.close()
        gc.unfreeze()


# what a child's message says about its row; "R"/"W" carry extras, "U"/"E" make it unviable
_UNVIABLE = {"U": lambda msg: str(msg.get("e", "does not import")),
             "E": lambda msg: f"engine error in the child: {msg.get('e')}"}


class _Pool:
    """The parent's side of ``run_jobs``: the queue of rows still to run, the running children
    keyed by their pipe's read end, and the rows built from what the children report."""

    def __init__(self, jobs: Sequence[Job], run_pin: PinRunner, deadlines: Sequence[float],
                 on_row: Callable[[Row], None], workers: int) -> None:
        self.workers = workers
        self.lanes = list(range(workers))[::-1]  # free worker lanes: a row holds one until it ends
        self.queue: deque[tuple[Job, list[int]]] = deque((j, list(j.pins)) for j in jobs)
        self.run_pin = run_pin
        self.deadlines = deadlines
        self.on_row = on_row
        self.rows: dict[str, Row] = {}
        self.running: dict[int, _Running] = {}
        self.exiting: list[int] = []  # children that finished their row and are still exiting
        self.sel = selectors.DefaultSelector()

    def run(self) -> None:
        while self.queue or self.running:
            while self.queue and len(self.running) < self.workers:
                self._start(*self.queue.popleft())
            soonest = min(self._deadline(s) for s in self.running.values())
            for key, _mask in self.sel.select(timeout=min(POLL_S, max(0.0, soonest - time.monotonic()))):
                self._read(self.running[int(key.fd)])  # only its own child's end unregisters a pipe
            self._expire()
            self._reap(block=False)

    def _reap(self, block: bool) -> None:
        """Collect children that finished their rows: their exit need not hold up the next row."""
        for pid in list(self.exiting):
            try:
                done, _status = os.waitpid(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.exiting.remove(pid)

    def close(self) -> None:
        """Kill whatever still runs (an exception, ^C): no child outlives the run."""
        self._reap(block=True)
        for state in list(self.running.values()):
            try:
                os.kill(state.pid, signal.SIGKILL)
                os.waitpid(state.pid, 0)
            except OSError:
                pass
        self.sel.close()

    def _start(self, job: Job, todo: list[int]) -> None:
        slot = Slot(len(todo))
        row = self.rows.get(job.key)
        if row is None:  # a row's later forks (after a crash) stay on its lane
            row = self.rows[job.key] = Row(job.key, started=time.monotonic(), lane=self.lanes.pop())
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _child(w, row, job, todo, self.run_pin, slot)
        os.close(w)
        row.forks += 1
        self.running[r] = _Running(pid, r, job, list(todo), slot, time.monotonic() + (job.start_s or START_DEADLINE_S))
        self.sel.register(r, selectors.EVENT_READ)

    def _deadline(self, state: _Running) -> float:
        """When the child's current pin runs out, read off its slot (its start deadline while it
        prepares, a last grace once it has run every pin)."""
        position, started = state.slot.position()
        if state.finished or position < 0:
            return state.deadline
        if position < len(state.sent):
            return started + self.deadlines[state.sent[position]]
        return started + IDLE_DEADLINE_S

    def _settle(self, state: _Running) -> _Left:
        """A child has ended: its finished pins' outcomes off the slot into its row, and where it
        left the row (a pin that ended before the child died is not the one it was on)."""
        row = self.rows[state.job.key]
        if row.unviable is not None:
            return _Left(None, [], False)
        for position, outcome in state.slot.outcomes().items():
            row.outcomes[state.sent[position]] = outcome
        position, _ = state.slot.position()
        if position < 0:
            return _Left(None, list(state.sent), False)
        if state.sent[position:position + 1] and state.sent[position] not in row.outcomes:
            return _Left(state.sent[position], state.sent[position + 1:], True)
        return _Left(None, state.sent[position + 1:], True)

    def _read(self, state: _Running) -> None:
        data = os.read(state.fd, 65536)
        if not data:  # the child closed its pipe: it has ended, one way or another
            left = self._settle(state)
            if left.current is None and not left.todo:  # it ran its whole row: no status needed
                self.exiting.append(state.pid)
                self._finish(state, left, None, 0)
            else:
                self._finish(state, left, None, os.waitpid(state.pid, 0)[1])
            return
        state.buffer += data
        *lines, state.buffer = state.buffer.split(b"\n")
        for line in filter(bytes.strip, lines):
            self._handle(state, json.loads(line))

    def _expire(self) -> None:
        """SIGKILL every child past its deadline; the parent is the only clock."""
        now = time.monotonic()
        for state in [s for s in self.running.values() if self._deadline(s) <= now]:
            os.kill(state.pid, signal.SIGKILL)
            os.waitpid(state.pid, 0)
            left = self._settle(state)
            self._finish(state, left, "timeout" if left.started else "did not start its pins before the deadline", 0)

    def _handle(self, state: _Running, msg: dict[str, Any]) -> None:
        row = self.rows[state.job.key]
        kind = str(msg.get("t"))
        if kind == "R":
            row.extra[int(msg["i"])] = dict(msg.get("x", {}))
            return
        if kind == "W":
            row.extra.update({int(i): x for i, x in msg.get("x", {}).items()})
        elif kind in _UNVIABLE:
            row.unviable = _UNVIABLE[kind](msg)
        state.finished = True  # the last word: the child is exiting
        state.deadline = time.monotonic() + IDLE_DEADLINE_S

    def _finish(self, state: _Running, left: _Left, reason: str | None, status: int) -> None:
        """The child is gone: charge the pin it was on, then requeue the rest of its row or
        hand the finished row on (and its lane back)."""
        self.sel.unregister(state.fd)
        os.close(state.fd)
        del self.running[state.fd]
        state.slot.close()
        row = self.rows[state.job.key]
        _charge(row, left, reason, status)
        if state.job.stop_on_kill and any(o in ("failed", "crash") for o in row.outcomes.values()):
            left.todo.clear()  # first-kill: the row has its kill
        if row.unviable is None and left.todo:
            self.queue.appendleft((state.job, left.todo))
            return
        self.on_row(row)
        self.lanes.append(row.lane)


def _charge(row: Row, left: _Left, reason: str | None, status: int) -> None:
    """Record on ``row`` what the ended child leaves unfinished (nothing when it ran them all);
    ``left.todo`` keeps the pins a fresh child is to run."""

    def why(before: str) -> str:
        return reason or f"the child {_describe_status(status)} before {before}"

    if left.current is not None:
        _charge_pin(row, left.current, reason == "timeout", status)
    elif not left.todo or (left.started and reason == "timeout"):
        return  # it ran them all, or was stopped after a pin had ended: the rest runs afresh
    elif left.started:
        i = left.todo.pop(0)  # died between two pins: charge the next so every retry makes progress
        row.outcomes[i], row.details[i] = "crash", why("this pin finished")
    elif not row.outcomes:
        row.unviable = why("running a pin")
    else:
        row.outcomes.update(dict.fromkeys(left.todo, "crash"))
        row.details.update(dict.fromkeys(left.todo, why("this pin")))
        left.todo.clear()


def _charge_pin(row: Row, i: int, timed_out: bool, status: int) -> None:
    """The pin the child was on when it was killed at its deadline, or died."""
    row.outcomes[i] = "timeout" if timed_out else "crash"
    # the deadline itself depends on measured durations: kept out of the report text
    row.details[i] = ("no result before its deadline (floor + factor x baseline duration)" if timed_out
                      else _describe_status(status))
