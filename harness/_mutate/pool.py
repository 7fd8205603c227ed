"""Fork one child per row, get its pins' outcomes back, enforce per-pin deadlines.

The parent has collected the pins once; each child inherits them by ``fork``, activates its
mutant (``prepare``), then runs its pins in order. Two ways to report:

- per pin (the baseline): ``{"t": "S", "i": n}`` before and ``{"t": "R", ...}`` after each pin,
  over a pipe, with the pin's extras (its coverage);
- one message per row (``Job.whole``, every mutant row): the child writes which pin it is on,
  when it started it, and each finished pin's outcome into a small shared memory slot
  (``harness._mutate.slot``) and sends one ``{"t": "W"}`` message when the row is done.

The parent is the only clock: a pin that overruns its deadline gets the child SIGKILLed and is
recorded as ``timeout``; a child that dies mid-pin (SIGSEGV, ``os._exit``) records that pin as
``crash``. Either way the rest of the row runs in a fresh child, so one bad pin never hides the
others' verdicts. ``Job.stop_on_kill``: the row ends at its first failing pin (first-kill mode).
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
from typing import Any

from harness._mutate.slot import Slot

__all__ = ["Job", "PinRunner", "Row", "run_jobs"]

PinRunner = Callable[[int, Sequence[int]], tuple[str, dict[str, Any]]]
"""Run pin ``i`` (the pins still to run after it) in the child; returns (outcome, extra fields)."""

START_DEADLINE_S = 30.0
IDLE_DEADLINE_S = 30.0
POLL_S = 0.05


@dataclass
class Job:
    """One row: a mutant (or the baseline) and the pins to run against it, in order."""

    key: str
    pins: list[int]
    prepare: Callable[[int], str | None]  # runs in the child, given its worker lane; a message: "unviable"
    before_pin: Callable[[], None] = lambda: None
    start_s: float = 0.0  # how long ``prepare`` may take (0: START_DEADLINE_S); a rebuild needs more
    whole: bool = False  # one message for the row, progress in a shared slot (mutant rows)
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
    todo: deque[int]
    current: int | None = None
    deadline: float = 0.0
    buffer: bytes = b""
    started: bool = False
    slot: Slot | None = None  # whole rows: the child's progress
    sent: list[int] = field(default_factory=list)  # whole rows: the pins the child was given
    finished: bool = False  # whole rows: the child said its row is done


def _whole_row(job: Job, todo: list[int], run_pin: PinRunner, slot: Slot) -> dict[int, dict[str, Any]]:
    """Run the row, outcomes into ``slot``; the extras of the pins that have any."""
    extras: dict[int, dict[str, Any]] = {}
    for pos, i in enumerate(todo):
        job.before_pin()
        slot.begin(pos)
        outcome, extra = run_pin(i, todo[pos + 1:])
        slot.done(pos, outcome)
        if extra:
            extras[i] = extra
        if job.stop_on_kill and outcome == "failed":
            break
    slot.begin(len(todo))
    return extras


def _child(fd: int, row: Row, job: Job, todo: list[int], run_pin: PinRunner, slot: Slot | None) -> None:
    """Never returns: the child ends with os._exit so no parent state is torn down twice."""
    try:
        gc.disable()  # a short-lived child: collecting would only copy the parent's pages
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(null, std)

        def send(msg: dict[str, Any]) -> None:
            os.write(fd, (json.dumps(msg) + "\n").encode())

        problem = job.prepare(row.lane)
        if problem is not None:
            send({"t": "U", "e": problem})
            os._exit(0)
        if slot is not None:
            send({"t": "W", "x": _whole_row(job, todo, run_pin, slot)})
            os._exit(0)
        for pos, i in enumerate(todo):
            job.before_pin()
            send({"t": "S", "i": i})
            started = time.perf_counter()
            outcome, extra = run_pin(i, todo[pos + 1:])
            send({"t": "R", "i": i, "o": outcome, "d": time.perf_counter() - started, "x": extra})
        os._exit(0)
    except BaseException as exc:  # the child must never fall back into the parent's code
        try:
            os.write(fd, (json.dumps({"t": "E", "e": f"{type(exc).__name__}: {exc}"}) + "\n").encode())
        finally:
            os._exit(70)


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(sig).name}"
        except ValueError:
            return f"killed by signal {sig}"
    return f"exited with code {os.WEXITSTATUS(status)}"


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
            wait = max(0.0, min(self._deadline(s) for s in self.running.values()) - time.monotonic())
            if any(s.slot is not None for s in self.running.values()):
                # a whole row's child starts each pin without a word: look at its slot this often
                wait = min(wait, POLL_S)
            for key, _mask in self.sel.select(timeout=wait):
                state = self.running.get(int(key.fd))
                if state is not None:
                    self._read(state)
            self._expire()
            self._reap(block=False)

    def _reap(self, block: bool) -> None:
        """Collect children that finished their rows; their exit (a mount namespace torn down,
        an overlay unmounted) need not hold up the next row."""
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
        slot = Slot(len(todo)) if job.whole else None
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
        start = job.start_s or START_DEADLINE_S
        self.running[r] = _Running(pid, r, job, deque(todo), deadline=time.monotonic() + start, slot=slot,
                                   sent=list(todo))
        self.sel.register(r, selectors.EVENT_READ)

    def _deadline(self, state: _Running) -> float:
        """When the child's current pin runs out: from its messages, or read off its slot."""
        if state.slot is None or state.finished:
            return state.deadline
        position, started = state.slot.position()
        if position < 0:
            return state.deadline  # still preparing: the start deadline set at the fork
        if position < len(state.sent):
            return started + self.deadlines[state.sent[position]]
        return started + IDLE_DEADLINE_S

    def _settle(self, state: _Running) -> None:
        """A whole row's child has ended: take its finished pins' outcomes off the slot and
        point ``current``/``todo`` at the pin it was on, as the per-pin messages would have."""
        row = self.rows[state.job.key]
        if state.slot is None or row.unviable is not None:
            return
        for position, outcome in state.slot.outcomes().items():
            row.outcomes[state.sent[position]] = outcome
        position, _ = state.slot.position()
        state.current, state.started = None, position >= 0
        if state.finished or position >= len(state.sent):
            state.todo.clear()
        elif position < 0:
            state.todo = deque(state.sent)
        else:
            state.current = state.sent[position]
            state.todo = deque(state.sent[position:])

    def _read(self, state: _Running) -> None:
        data = os.read(state.fd, 65536)
        if not data:  # the child closed its pipe: it has ended, one way or another
            self._settle(state)
            if state.current is None and not state.todo:  # it ran its whole row: no status needed
                self.exiting.append(state.pid)
                self._finish(state, None, 0)
                return
            _pid, status = os.waitpid(state.pid, 0)
            self._finish(state, None, status)
            return
        state.buffer += data
        *lines, state.buffer = state.buffer.split(b"\n")
        for line in lines:
            if line.strip():
                self._handle(state, json.loads(line))

    def _expire(self) -> None:
        """SIGKILL every child past its deadline; the parent is the only clock."""
        now = time.monotonic()
        for state in [s for s in self.running.values() if self._deadline(s) <= now]:
            os.kill(state.pid, signal.SIGKILL)
            os.waitpid(state.pid, 0)
            self._settle(state)
            if state.current is None:
                self._finish(state, "did not start its pins before the deadline", 0)
            else:
                self._finish(state, "timeout", 0)

    def _handle(self, state: _Running, msg: dict[str, Any]) -> None:
        row = self.rows[state.job.key]
        kind = msg.get("t")
        if kind == "S":
            state.started = True
            state.current = int(msg["i"])
            state.deadline = time.monotonic() + self.deadlines[state.current]
        elif kind == "R":
            i = int(msg["i"])
            row.outcomes[i] = str(msg["o"])
            row.extra[i] = {"d": msg.get("d", 0.0), **msg.get("x", {})}
            state.current = None
            if state.todo and state.todo[0] == i:
                state.todo.popleft()
            state.deadline = time.monotonic() + IDLE_DEADLINE_S
        elif kind == "W":
            row.extra.update({int(i): x for i, x in msg.get("x", {}).items()})
            state.finished = True
        elif kind == "U":
            row.unviable = str(msg.get("e", "does not import"))
            state.todo.clear()
        elif kind == "E":
            row.unviable = f"engine error in the child: {msg.get('e')}"
            state.todo.clear()

    def _finish(self, state: _Running, reason: str | None, status: int) -> None:
        """The child is gone: charge the pin it was on, then requeue the rest of its row or
        hand the finished row on."""
        self.sel.unregister(state.fd)
        os.close(state.fd)
        del self.running[state.fd]
        if state.slot is not None:
            state.slot.close()
        row = self.rows[state.job.key]
        _charge(row, state, reason, status)
        if state.job.stop_on_kill and any(o in ("failed", "crash") for o in row.outcomes.values()):
            state.todo.clear()  # first-kill: the row has its kill
        if row.unviable is None and state.todo:
            self.queue.appendleft((state.job, list(state.todo)))
        else:
            self.on_row(row)
            self.lanes.append(row.lane)


def _charge(row: Row, state: _Running, reason: str | None, status: int) -> None:
    """Record on ``row`` what the ended child leaves unfinished (nothing when it ran them all)."""
    if state.current is not None:
        i = state.current
        if reason == "timeout":
            row.outcomes[i] = "timeout"
            # the deadline itself depends on measured durations: kept out of the report text
            row.details[i] = "no result before its deadline (floor + factor x baseline duration)"
        else:
            row.outcomes[i] = "crash"
            row.details[i] = _describe_status(status)
        if state.todo and state.todo[0] == i:
            state.todo.popleft()
    elif state.todo and state.started:
        # died between two pins: charge the next pin so every retry makes progress
        i = state.todo.popleft()
        row.outcomes[i] = "crash"
        row.details[i] = reason or f"the child {_describe_status(status)} before this pin finished"
    elif state.todo and row.unviable is None:
        if not row.outcomes:
            row.unviable = reason or f"the child {_describe_status(status)} before running a pin"
        else:
            for i in state.todo:
                row.outcomes[i] = "crash"
                row.details[i] = reason or f"the child {_describe_status(status)} before this pin"
            state.todo.clear()
