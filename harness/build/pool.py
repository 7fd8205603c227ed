"""Run build units in forked worker processes, so a pipeline that hangs in C code or kills
its process (SIGSEGV, os._exit) becomes an outcome and the run goes on.

Workers are forked from this process and inherit the units table, so a task on the pipe is
only an index. A worker streams one message per finished side; when it dies, the side it was
on is recorded as ``crash`` (or ``timeout`` when the watchdog killed it) and the unit is
finished by a fresh worker, with the sides already done passed in as forced results.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from harness import supervise
from harness.build.unit import Pipelines, Unit, checks_for, observe, verdict_for
from harness.model import SIDES, ErrorInfo, Observation, Side, Verdict
from harness.pipeline.command import MAX_STARTS

__all__ = ["UnitResult", "run_units"]

CHUNK = 32
GRACE_S = 2.0

_UNITS: list[Unit] = []  # set before forking; read by workers


@dataclass(slots=True)  # one per planned unit, kept by the pool for the whole build: small matters
class UnitResult:
    unit: Unit
    old: Observation | None = None
    new: Observation | None = None
    checks: dict[str, str] | None = None
    verdict: Verdict | None = None

    def forced(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "checks": self.checks}


def _finish(unit: Unit, pipes: Pipelines, forced: dict[str, Any], send: Callable[[Any], None],
            careful: bool = False) -> None:
    """Run what is not forced. One message per unit; ``careful`` streams one per side, used
    after a worker died on this unit, so the side that kills it is known."""
    sides: dict[Side, Observation] = {}
    side: Side
    for side in ("old", "new"):
        obs = forced.get(side) or observe(unit, pipes, side)
        sides[side] = obs
        if careful:
            send(("obs", side, obs))
    checks = forced.get("checks")
    if checks is None:
        checks = checks_for(unit, pipes, sides["new"])
        if careful:
            send(("checks", checks))
    send(("unit", sides["old"], sides["new"], checks, verdict_for(unit, sides["old"], sides["new"], checks)))


def _kill_group(w: _Worker) -> None:
    """End whatever a pipeline started and left running (a worker leads its own process group)."""
    supervise.kill_group(w.proc.pid)


def _worker(conn: Connection, parent: int, memory_mb: float | None, prints: int | None = None) -> None:
    supervise.forked_child(parent)  # dies with the harness, even when the harness is SIGKILLed
    os.setpgid(0, 0)  # its own group, so processes a pipeline starts can be ended with it
    # A pipeline's prints must not corrupt machine-readable stdout, nor reach the terminal raw
    # (they may hold a key): both streams go to the parent, which redacts them (``_Echo``).
    os.dup2(prints if prints is not None else 2, 1)
    if prints is not None:
        os.dup2(prints, 2)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C and SIGTERM are the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # The ceiling counts on top of the harness this worker was forked from; the pipeline
    # commands it starts inherit the same ceiling.
    supervise.limit_memory(memory_mb, on_top=True)
    pipes = Pipelines()
    while True:
        task = conn.recv()
        if task is None:
            pipes.close()  # ends the long-lived pipeline processes this worker started
            return
        for index, forced, careful in task:
            _finish(_UNITS[index], pipes, forced, conn.send, careful)


class _Echo:
    """What pipelines print in the workers, passed on to the harness's stderr line by line
    through the report redactor: a pipeline that prints a key does not put it on the terminal
    or in a CI log."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        from harness.report.redact import redactor

        with os.fdopen(self.read_fd, "rb") as stream:
            for raw in stream:
                text = redactor().text(raw.decode("utf-8", "replace"))
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.write(text)
                    sys.stderr.flush()

    def close(self) -> None:
        os.close(self.write_fd)  # the workers are gone: the pump sees the end and stops
        self.thread.join(timeout=2)


@dataclass
class _Worker:
    proc: Any
    conn: Connection
    queue: deque[int] = field(default_factory=deque)
    last: float = field(default_factory=time.monotonic)


class _Pool:
    def __init__(self, units: list[Unit], workers: int, on_result: Callable[[UnitResult], None],
                 memory_mb: float | None = None) -> None:
        self.memory_mb = memory_mb
        self.results = [UnitResult(u) for u in units]
        self.todo: deque[int] = deque(range(len(units)))
        self.careful: set[int] = set()
        self.on_result = on_result
        self.ctx = multiprocessing.get_context("fork")
        self.size = max(1, min(workers, len(units)))
        self.chunk = max(1, min(CHUNK, len(units) // (self.size * 4) or 1))
        self.workers: list[_Worker] = []
        self.echo: _Echo | None = None

    def spawn(self) -> _Worker:
        parent, child = self.ctx.Pipe()
        prints = self.echo.write_fd if self.echo is not None else None
        proc = self.ctx.Process(target=_worker, args=(child, os.getpid(), self.memory_mb, prints), daemon=True)
        proc.start()
        child.close()
        return _Worker(proc, parent)

    def feed(self, w: _Worker) -> bool:
        chunk = [self.todo.popleft() for _ in range(min(self.chunk, len(self.todo)))]
        if not chunk:
            return False
        w.queue = deque(chunk)
        w.last = time.monotonic()
        w.conn.send([(i, self.results[i].forced(), i in self.careful) for i in chunk])
        return True

    def handle(self, w: _Worker, msg: tuple[Any, ...]) -> None:
        w.last = time.monotonic()
        res = self.results[w.queue[0]]  # a worker answers its queue in order
        kind = msg[0]
        if kind == "obs":
            setattr(res, msg[1], msg[2])
        elif kind == "checks":
            res.checks = msg[1]
        elif kind == "unit":
            res.old, res.new, res.checks, res.verdict = msg[1:]
            w.queue.popleft()
            self.on_result(res)

    def lost(self, w: _Worker, outcome: str) -> None:
        """The worker died or hung on its first queued unit: requeue that unit (carefully the
        first time, recording the lost side the second time) and the rest of its queue."""
        _kill_group(w)  # the worker leads its group: it and what its pipelines started, before reaping
        w.proc.join()
        if w.queue:
            index = w.queue.popleft()
            if index in self.careful:
                self._record_loss(self.results[index], outcome, w.proc.exitcode)
            else:
                self.careful.add(index)
            self.todo.extendleft(reversed([index, *w.queue]))
        w.queue.clear()

    def _record_loss(self, res: UnitResult, outcome: str, code: int | None) -> None:
        if outcome == "timeout":
            info = ErrorInfo("Timeout", f"no answer within {res.unit.timeout:g} s; the worker was killed")
        else:
            how = f"signal {signal.Signals(-code).name}" if code and code < 0 else f"exit code {code}"
            info = ErrorInfo("Crash", f"the pipeline's process died ({how})")
        if res.old is None or res.new is None:
            side: Side = "old" if res.old is None else "new"
            obs = Observation(res.unit.case.id, res.unit.lane.id, side, outcome, error=info)  # type: ignore[arg-type]
            setattr(res, side, obs)
        else:
            res.checks = {name: f"the check's run ended with {outcome}" for name in sorted(res.unit.case.checks)}

    def budget(self, w: _Worker) -> float:
        """How long a worker may stay silent: every call of the unit may take its timeout (a
        SIGALRM stops Python-level hangs on time; this watchdog is for hangs inside C code)."""
        index = w.queue[0]
        unit = self.results[index].unit
        calls = 1 if index in self.careful else 2 + len(unit.case.checks)
        # A side that is a program may first have to start (a heavy import, up to the start
        # deadline): that wait is the pipeline's own to judge (no hello: PipelineStart), not a
        # hung worker's.
        sides = [unit.subject.pipeline(side) for side in SIDES]
        starting = sum(spec.start_timeout_s * MAX_STARTS for spec in sides if not spec.in_process)
        return unit.timeout * calls + starting + GRACE_S

    def run(self) -> list[UnitResult]:
        finished = False
        supervise.start()  # before the fork: workers and what they start carry the watchdog's token
        self.echo = _Echo()
        try:
            self.workers = [self.spawn() for _ in range(self.size)]
            for w in self.workers:
                self.feed(w)
            while any(w.queue for w in self.workers):
                self.step()
            finished = True
        finally:
            self.stop(gently=finished)
            self.echo.close()
            self.echo = None
        return self.results

    def stop(self, gently: bool) -> None:
        """End every worker and what its pipelines started. Gently (a shutdown message, so
        long-lived pipeline commands hear it) after a finished run; at once when interrupted."""
        if gently:
            for w in self.workers:
                with contextlib.suppress(OSError):
                    w.conn.send(None)
        until = time.monotonic() + 1
        for w in self.workers:
            if gently and w.proc.pid is not None:
                supervise.exited(w.proc.pid, max(0.0, until - time.monotonic()))
            _kill_group(w)  # before reaping: what a pipeline left behind goes with its worker
            w.proc.join(timeout=5)

    def step(self) -> None:
        busy = [w for w in self.workers if w.queue]
        ready = wait([w.conn for w in busy], timeout=0.25)
        now = time.monotonic()
        for w in busy:
            if w.conn in ready:
                try:
                    self.handle(w, w.conn.recv())
                except (EOFError, OSError):
                    self.replace(w, "crash")
                    continue
            elif now - w.last > self.budget(w):
                self.replace(w, "timeout")
                continue
            if not w.queue:
                self.feed(w)

    def replace(self, w: _Worker, outcome: str) -> None:
        self.lost(w, outcome)
        fresh = self.spawn()
        self.workers[self.workers.index(w)] = fresh
        self.feed(fresh)


def run_units(units: list[Unit], workers: int, on_result: Callable[[UnitResult], None],
              memory_mb: float | None = None) -> list[UnitResult]:
    """Run every unit; ``workers=0`` runs them in this process (no crash isolation, no memory
    ceiling: that would bound the harness itself)."""
    if workers == 0:
        results = []
        pipes = Pipelines()
        try:
            for unit in units:
                res = UnitResult(unit)

                def send(msg: tuple[Any, ...], res: UnitResult = res) -> None:
                    res.old, res.new, res.checks, res.verdict = msg[1:]

                _finish(unit, pipes, {}, send)
                on_result(res)
                results.append(res)
        finally:
            pipes.close()
        return results
    global _UNITS
    _UNITS = units
    return _Pool(units, workers, on_result, memory_mb).run()
