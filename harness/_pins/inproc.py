"""The case-file items of a suite, evaluated in the harness process on a run's saved
observations: the pin stage of ``harness run`` without a pytest child.

Each item gets the outcome and message the plugin's pytest item would report (the checks and
their words are shared, ``harness._pins.judge``): ``passed``, ``failed`` (a marked ``catches_old``
pin that fails against old is ``failed`` too, as the plugin's results file says), ``skipped``.

Most pins only read observations, which the build stage saved: nothing here calls a pipeline
for them. The pin kinds that must call one again (``deterministic``, ``idempotent``) are
checked in a forked child of the harness, one per pin, whose pipeline calls are themselves
forked (``--harness-isolate``, as the plugin ran them): what a pipeline, a module it imports or a
subject's refeed does there cannot take the harness down, and a pin that never ends is stopped.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NoReturn

from harness._common import supervise
from harness._model import Observation, Side, Suite, Verdict
from harness._pins import cache
from harness._pins.collect import CaseItem
from harness._pins.declarative import FRESH_KINDS, PinFailure, calls_again, evaluate
from harness._pins.judge import (
    CATCHES_OLD_PASSED,
    EXPECT_AGAINST_OLD,
    catches_old_applies,
    check_expect,
    check_verdict,
    message_of,
)

__all__ = ["FRESH_KINDS", "Forked", "ItemResult", "Saved", "evaluate_items", "item_timeout", "playing", "start_check"]

Saved = Mapping[tuple[str, str, str], Observation]
"""Observations by (case id, lane id, side), as the build stage made them."""



@dataclass(frozen=True)
class ItemResult:
    """One item's outcome. ``failed`` says whether pytest would count the item a failure
    (what its exit code reflects): a pin expected to fail (catches_old, against old) is not."""

    id: str
    outcome: str
    message: str
    failed: bool


@contextlib.contextmanager
def playing(against: Side) -> Iterator[None]:
    """The pins cache as the plugin sets it up for ``harness run``, left as a new session
    expects it afterwards (playing new, nothing saved read, calls not isolated)."""
    cache.set_against(against)
    cache.set_isolate(True)
    try:
        yield
    finally:
        cache.set_against("new")
        cache.set_isolate(False)
        cache.clear()


def _expect(suite: Suite, item: CaseItem, verdict: Verdict | None) -> ItemResult:
    if cache.against() == "old":
        return ItemResult(item.nodeid, "skipped", f"Skipped: {EXPECT_AGAINST_OLD}", False)
    try:
        if verdict is None or not check_verdict(verdict):
            check_expect(suite, item.case, item.lane_id, rejections=False)  # the run's own stage reports those
    except Exception as exc:
        return ItemResult(item.nodeid, "failed", message_of(exc), True)
    return ItemResult(item.nodeid, "passed", "", False)


def _pin(suite: Suite, item: CaseItem) -> ItemResult:
    assert item.pin is not None
    inverted = catches_old_applies(item.pin)
    try:
        evaluate(suite, item.case, item.lane_id, item.pin)
    except PinFailure as exc:
        # against old, a marked pin that fails is what it claims: an expected failure
        return ItemResult(item.nodeid, "failed", "", False) if inverted else \
            ItemResult(item.nodeid, "failed", message_of(exc), True)
    except Exception as exc:
        return ItemResult(item.nodeid, "failed", message_of(exc), True)
    if inverted:
        return ItemResult(item.nodeid, "passed", CATCHES_OLD_PASSED, True)
    return ItemResult(item.nodeid, "passed", "", False)


class Forked:
    """``check()`` running in a forked child of its own process group, from construction on;
    ``result()`` waits for its answer (until the deadline set at the fork) and ends whatever of
    the child is left; ``stop()`` ends it unread (the stage abandoned). ``retry``: what to
    start instead when the child gives no answer (its result is the one given)."""

    def __init__(self, item: CaseItem, check: Callable[[], ItemResult], timeout: float,
                 retry: Callable[[], Forked] | None = None) -> None:
        self.retry = retry
        read_fd, write_fd = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            _answer(read_fd, write_fd, parent, check)
        os.close(write_fd)
        self.item, self.pid, self.timeout = item, pid, timeout
        self.fd: int | None = read_fd
        self.deadline = time.monotonic() + timeout

    def result(self) -> ItemResult:
        """Its result, or a failure saying how the child ended."""
        assert self.fd is not None
        answer: bytes | None = None
        try:
            answer = _read(self.fd, self.deadline)
        finally:  # answered, overrun or the harness stopped meanwhile: nothing of the child stays
            self.fd = None  # _read closed it
            status = self._end()
        if answer:
            result: ItemResult = pickle.loads(answer)
            return result
        if self.retry is not None:
            return self.retry().result()
        how = f"no answer within {self.timeout:g} s; killed" if answer is None else f"it died: {_status(status)}"
        return ItemResult(self.item.nodeid, "failed",
                          f"the process checking this pin ended without an answer ({how})", True)

    def stop(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
            self._end()

    def _end(self) -> int:
        supervise.kill_group(self.pid)
        return os.waitpid(self.pid, 0)[1]


def _answer(read_fd: int, write_fd: int, parent: int, check: Callable[[], ItemResult]) -> NoReturn:
    """In the forked child: answer through the pipe, then leave without running atexit hooks."""
    try:
        os.close(read_fd)
        os.setpgid(0, 0)  # its own group: ended whole, with the calls it forked, if it overruns
        supervise.forked_child(parent)
        _quiet()
        with os.fdopen(write_fd, "wb") as out:
            out.write(pickle.dumps(_own_pipelines(check), protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        os._exit(0)


def _quiet() -> None:
    """What the pipelines print while a pin checks them goes nowhere, as it went nowhere in the
    pytest child that checked pins before (and a crash's dump must not reach the terminal)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def _own_pipelines(check: Callable[[], ItemResult]) -> ItemResult:
    """Run ``check`` with a table of pipelines of this child's own, closed after: a command
    pipeline the parent opened stays the parent's, one opened here is shut down here."""
    pipes = cache.own_pipelines()
    try:
        return check()
    finally:
        pipes.close()


def _read(fd: int, deadline: float) -> bytes | None:
    """All the child wrote, or None when it had not finished by ``deadline``."""
    chunks: list[bytes] = []
    with os.fdopen(fd, "rb") as src:
        while True:
            ready, _, _ = select.select([src], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                return None
            chunk = src.read1(1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _one(suite: Suite, item: CaseItem, timeout: float, verdict: Verdict | None) -> ItemResult:
    if item.pin is None:
        return _expect(suite, item, verdict)
    if calls_again(item.pin):
        return start_check(suite, item, timeout).result()
    return _pin(suite, item)


def start_check(suite: Suite, item: CaseItem, timeout: float) -> Forked:
    """A pin of a kind that calls a pipeline again (``FRESH_KINDS``), started in a fork on the
    observations the pins' cache holds now (inside ``playing``); its result when asked for.

    The fork already keeps the harness safe from what the calls do, so they are first made in
    it, not each in a fork of its own as the plugin's ``--harness-isolate`` makes them: two
    forks fewer a pin, where a fork costs thousands of copied pages. Where that could tell the
    pin's outcome differently, the pin is checked again as the plugin checks it, each call
    forked: a call that timed out (an isolated call's timeout reads "...; killed"), and a fork
    that died or never answered (a crash or a hang in C code, which an isolated call turns
    into an outcome of the call)."""
    def isolated() -> Forked:
        return Forked(item, lambda: _pin(suite, item), timeout)

    return Forked(item, lambda: _calls_here_first(suite, item), timeout, retry=isolated)


def _calls_here_first(suite: Suite, item: CaseItem) -> ItemResult:
    """In the pin's fork: the pin with its calls made in this process; again with each call
    forked when one of them timed out."""
    cache.set_isolate(False)
    cache.fresh_timeouts()
    result = _pin(suite, item)
    if not cache.fresh_timeouts():
        return result
    cache.set_isolate(True)
    return _pin(suite, item)


def item_timeout(suite: Suite) -> float:
    """How long one forked pin check may take: room for the two or three pipeline calls a pin
    makes, each bounded by the suite's timeout."""
    return 4 * suite.settings.timeout_s + 10


def evaluate_items(suite: Suite, items: Sequence[CaseItem], saved: Saved,
                   verdict: Verdict | None = None) -> list[ItemResult]:
    """Every item's result, in the order given, inside ``playing``. ``saved`` (observations by
    case, lane, side, as the build stage made them) is read instead of calling the pipelines; a
    side missing there is one (isolated) call. ``verdict``: the build stage's verdict on these
    observations, when every item is of that one unit (its expect item need not compare again).
    Items of a kind that calls a pipeline again (``FRESH_KINDS``) fork: call them only where
    forking is safe (no build stage running)."""
    cache.use_saved(saved)
    try:
        return [_one(suite, item, item_timeout(suite), verdict) for item in items]
    finally:
        cache.clear()
