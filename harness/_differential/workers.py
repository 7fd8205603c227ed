"""Run build units in forked worker processes, so a pipeline that hangs in C code or kills
its process (SIGSEGV, os._exit) becomes an outcome and the run goes on.

Workers are forked from this process and inherit the units table, so a task on the pipe is
a chunk of indexes. A worker answers a chunk in one message (a message per unit cost the
harness as much as the pipelines), after checking that no in-process pipeline changed an input
it shares between calls (``harness._differential.inputs``). Which unit it is on, and since when, it
writes to a slot of shared memory, no message: the watchdog times each unit from it, and when
a worker dies the unit it was on is known. That unit is run again carefully, one message per
side, so the side it dies on is recorded as ``crash`` (or ``timeout`` when the watchdog killed
it), by a fresh worker given the sides already done as forced results; the chunk's other
unanswered units are simply run again.

A run's per-unit evidence work (redacting and digesting each body, firing the rejection rules)
is given as ``prepare``: a function of a unit and its finished row, run in the worker beside the
pipelines (so it scales with the workers, not on the parent's one core), its answer sent with the
row (``UnitResult.prepared``). A ``prepare`` that raises answers None: the parent then does that
unit's work itself, as it would without one, and a harness bug is never a pipeline's crash.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from harness._common import supervise
from harness._differential.echo import Echo
from harness._differential.inputs import Inputs
from harness._differential.rows import Bodies, Row, plain, unpacked
from harness._differential.unit import Pipelines, Unit, both_here, checks_for, judged, observe
from harness._model import SIDES, ErrorInfo, Observation, Side, Verdict
from harness._pipeline.calls import disarm, pack
from harness._pipeline.command import MAX_STARTS, SHUTDOWN_GRACE_S

__all__ = ["UnitResult", "run_units"]

CHUNK = 128  # units a message answers: fewer, larger messages cost the parent less per unit
GRACE_S = 2.0

_UNITS: list[Unit] = []  # set before forking; read by workers
Prepare = Callable[[Unit, Row], Any]
_PREPARE: Prepare | None = None  # set before forking, like _UNITS: closures need no pickling
_ORIGINALS: dict[str, bytes] = {}  # each unit's case input pickled before forking (``Inputs``)


@dataclass(slots=True)  # one per planned unit, kept by the pool for the whole build: small matters
class UnitResult:
    unit: Unit
    old: Observation | None = None
    new: Observation | None = None
    checks: dict[str, str] | None = None
    verdict: Verdict | None = None
    prepared: Any = None
    """what ``prepare`` made of the unit in the worker (None: no prepare, or it failed there)"""

    def forced(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "checks": self.checks}


def _sides(unit: Unit, pipes: Pipelines, forced: dict[str, Any],
           stream: Callable[[tuple[Any, ...]], None] | None) -> tuple[Observation, Observation]:
    """Old and new one by one: a side forced, a side that is a program, a unit run carefully."""
    sides: dict[Side, Observation] = {}
    side: Side
    for side in ("old", "new"):
        obs = forced.get(side) or observe(unit, pipes, side)
        sides[side] = obs
        if stream:
            stream(("obs", side, obs))
    return sides["old"], sides["new"]


def _finish(unit: Unit, pipes: Pipelines, forced: dict[str, Any], bodies: Bodies,
            stream: Callable[[tuple[Any, ...]], None] | None = None) -> Row:
    """Run what is not forced. With ``stream`` (a unit run again after a worker died on it),
    each side and the checks are passed on as they end, so the side that kills it is known."""
    pair = None if forced or stream else both_here(unit, pipes)
    old, new = pair or _sides(unit, pipes, forced, stream)
    checks = forced.get("checks") if forced or unit.case.checks else {}  # none declared: none to run
    if checks is None:
        checks = checks_for(unit, pipes, new)
        if stream:
            stream(("checks", checks))
    # Kept as rows, without their live values, from here on: a chunk's values kept alive until
    # it is sent made the collector scan them again and again, a third of the harness's time.
    return bodies.row(old), bodies.row(new), checks, judged(unit, old, new, checks)


def _prepared(done: list[tuple[int, Row]]) -> list[tuple[int, Row, Any]]:
    """Each finished row with what ``prepare`` makes of it (None when there is none, or it raised)."""
    if _PREPARE is None:
        return [(index, row, None) for index, row in done]
    out = []
    for index, row in done:
        try:
            extra = _PREPARE(_UNITS[index], row)
        except Exception:  # the parent redoes the unit's evidence work (the module's docstring)
            extra = None
        out.append((index, row, extra))
    return out


Task = tuple[list[int], dict[int, dict[str, Any]]]
"""A chunk of units for one worker: their indexes, and for each unit to run carefully (one a
worker died on) the results already forced (``UnitResult.forced``)."""


def _settled(done: list[tuple[int, Row]], forced: dict[int, dict[str, Any]], pipes: Pipelines,
             at: Callable[[int], None]) -> list[tuple[int, Row]]:
    """``done``, run again until no shared input was changed while computing it (each round
    marks one more pipeline as mutating, so this ends)."""
    while not pipes.inputs.settle():
        again, bodies = [], Bodies()
        for index, _ in done:
            at(index)
            again.append((index, _finish(_UNITS[index], pipes, forced.get(index, {}), bodies)))
        done = again
    return done


def _run_task(task: Task, pipes: Pipelines, send: Callable[[Any], None], at: Callable[[int], None]) -> None:
    """One chunk: plain units answered together; a careful unit streams on fresh inputs."""
    indexes, careful = task
    done: list[tuple[int, Row]] = []
    bodies = Bodies()

    def flush() -> None:
        if done:
            send(("done", _prepared(_settled(done, careful, pipes, at))))
            done.clear()

    try:
        for index in indexes:
            at(index)
            if index not in careful:
                unit = _UNITS[index]
                done.append((index, plain(unit, pipes, bodies) or _finish(unit, pipes, {}, bodies)))
                continue
            flush()

            def stream(msg: tuple[Any, ...], index: int = index) -> None:
                send((msg[0], index, *msg[1:]))

            with pipes.inputs.unshared():
                result = _finish(_UNITS[index], pipes, careful[index], bodies, stream)
            send(("done", _prepared([(index, result)])))
        flush()
    finally:
        disarm()  # the last call's timer: calls leave theirs running, one system call fewer each


def _packed(msg: tuple[Any, ...]) -> bytes:
    """A worker's message, pickled with plain ``pickle``: multiprocessing's pickler sends each
    object through a Python-level reducer lookup, 25 us a unit, half a small pipeline. A chunk's
    results are plain tuples already (the parent knows each unit's case and lane)."""
    return pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)


def _kill_group(w: _Worker) -> None:
    """End whatever a pipeline started and left running (a worker leads its own process group)."""
    supervise.kill_group(w.proc.pid)


def _worker(conn: Connection, parent: int, memory_mb: float | None, progress: Any, prints: int | None = None) -> None:
    supervise.forked_child(parent)  # dies with the harness, even when the harness is SIGKILLed
    os.setpgid(0, 0)  # its own group, so processes a pipeline starts can be ended with it
    # A pipeline's prints must not corrupt machine-readable stdout, nor reach the terminal raw
    # (they may hold a key): both streams go to the parent, which redacts them (``harness._differential.echo``).
    os.dup2(prints if prints is not None else 2, 1)
    if prints is not None:
        os.dup2(prints, 2)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C and SIGTERM are the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # The ceiling counts on top of the harness this worker was forked from; the pipeline
    # commands it starts inherit the same ceiling.
    supervise.limit_memory(memory_mb, on_top=True)
    # What the worker inherits (the suite, the units, the harness's modules) lives as long as it:
    # the collector need not scan it again and again, nor touch (and so copy) its pages.
    gc.freeze()
    pipes = Pipelines()
    pipes.inputs = Inputs(_ORIGINALS)  # this process's copies of the cases: lent as they are

    def at(index: int) -> None:
        progress[0], progress[1] = index, time.monotonic()

    while True:
        task = pickle.loads(conn.recv_bytes())
        if task is None:
            pipes.close()  # ends the long-lived pipeline processes this worker started
            return
        _run_task(task, pipes, lambda msg: conn.send_bytes(_packed(msg)), at)


@dataclass
class _Worker:
    proc: Any
    conn: Connection
    progress: Any  # shared doubles the worker writes: the unit it is on, and since when
    queue: deque[int] = field(default_factory=deque)
    last: float = field(default_factory=time.monotonic)

    def running(self) -> tuple[int, float]:
        """The queued unit the worker is on and when it began (or, before it began one of this
        chunk, the chunk's first unit and when the chunk was sent)."""
        index, began = int(self.progress[0]), self.progress[1]
        if index in self.queue:
            return index, max(began, self.last)
        return self.queue[0], self.last


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
        self.echo: Echo | None = None

    def spawn(self) -> _Worker:
        parent, child = self.ctx.Pipe()
        prints = self.echo.write_fd if self.echo is not None else None
        progress = self.ctx.RawArray("d", [-1.0, 0.0])
        proc = self.ctx.Process(target=_worker, args=(child, os.getpid(), self.memory_mb, progress, prints),
                                daemon=True)
        proc.start()
        child.close()
        return _Worker(proc, parent, progress)

    def feed(self, w: _Worker) -> bool:
        chunk = [self.todo.popleft() for _ in range(min(self.chunk, len(self.todo)))]
        if not chunk:
            return False
        w.queue = deque(chunk)
        w.last = time.monotonic()
        careful = {i: self.results[i].forced() for i in self.careful.intersection(chunk)}
        w.conn.send_bytes(_packed((chunk, careful)))  # plain pickle, as the answers come back
        return True

    def handle(self, w: _Worker, msg: tuple[Any, ...]) -> None:
        w.last = time.monotonic()
        kind = msg[0]
        if kind == "obs":
            setattr(self.results[msg[1]], msg[2], msg[3])
        elif kind == "checks":
            self.results[msg[1]].checks = msg[2]
        elif kind == "done":
            for index, row, prepared in msg[1]:
                res = self.results[index]
                res.old, res.new, res.checks, res.verdict = unpacked(res.unit, row)
                res.prepared = prepared
                w.queue.remove(index)
                self.on_result(res)

    def lost(self, w: _Worker, outcome: str) -> None:
        """The worker died or hung on a unit: requeue that unit (carefully the first time,
        recording the lost side the second time) and the rest of its queue."""
        _kill_group(w)  # the worker leads its group: it and what its pipelines started, before reaping
        w.proc.join()
        if w.queue:
            index, _ = w.running()
            w.queue.remove(index)
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
            info = ErrorInfo("Crash", f"the pipeline's process died ({supervise.ended_by(code)})")
        if res.old is None or res.new is None:
            side: Side = "old" if res.old is None else "new"
            obs = Observation(res.unit.case.id, res.unit.lane.id, side, outcome, error=info)  # type: ignore[arg-type]
            setattr(res, side, obs)
        else:
            res.checks = {name: f"the check's run ended with {outcome}" for name in sorted(res.unit.case.checks)}

    def budget(self, index: int) -> float:
        """How long a worker may spend on unit ``index``: every call of the unit may take its
        timeout (a SIGALRM stops Python-level hangs on time; this watchdog is for hangs inside
        C code)."""
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
        self.echo = Echo()
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
        long-lived pipeline commands hear it and have the protocol's grace to exit, as at any
        other close) after a finished run; at once when interrupted."""
        if gently:
            for w in self.workers:
                with contextlib.suppress(OSError):
                    w.conn.send(None)
        until = time.monotonic() + SHUTDOWN_GRACE_S + 1  # the worker's own exit after its pipelines
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
                    self.handle(w, pickle.loads(w.conn.recv_bytes()))
                except (EOFError, OSError):
                    self.replace(w, "crash")
                    continue
            elif self.overdue(w, now):
                self.replace(w, "timeout")
                continue
            if not w.queue:
                self.feed(w)

    def overdue(self, w: _Worker, now: float) -> bool:
        index, began = w.running()
        return now - began > self.budget(index)

    def replace(self, w: _Worker, outcome: str) -> None:
        self.lost(w, outcome)
        fresh = self.spawn()
        self.workers[self.workers.index(w)] = fresh
        self.feed(fresh)


def _run_here(units: list[Unit], on_result: Callable[[UnitResult], None]) -> list[UnitResult]:
    """Every unit in this process, a chunk at a time (inputs are settled per chunk, as in a worker)."""
    results = [UnitResult(u) for u in units]

    def send(msg: tuple[Any, ...]) -> None:
        if msg[0] != "done":
            return
        for index, row, prepared in msg[1]:
            res = results[index]
            res.old, res.new, res.checks, res.verdict = unpacked(res.unit, row)
            res.prepared = prepared
            on_result(res)

    pipes = Pipelines()
    try:
        for start in range(0, len(units), CHUNK):
            _run_task((list(range(start, min(start + CHUNK, len(units)))), {}), pipes, send, lambda _i: None)
    finally:
        pipes.close()
    return results


def run_units(units: list[Unit], workers: int, on_result: Callable[[UnitResult], None],
              memory_mb: float | None = None, prepare: Prepare | None = None) -> list[UnitResult]:
    """Run every unit; ``workers=0`` runs them in this process (no crash isolation, no memory
    ceiling: that would bound the harness itself). ``prepare``: see the module's docstring."""
    global _UNITS, _ORIGINALS, _PREPARE
    _UNITS, _PREPARE = units, prepare
    try:
        if workers == 0:  # the cases are the harness's own here: each pipeline gets copies
            return _run_here(units, on_result)
        _ORIGINALS = {}
        for unit in units:
            if unit.case.id not in _ORIGINALS:
                _ORIGINALS[unit.case.id] = pack(unit.case.input)
        return _Pool(units, workers, on_result, memory_mb).run()
    finally:
        _ORIGINALS, _PREPARE = {}, None
