"""A call's deadline when calls leave their timer armed for the next (the build's chunks)."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from harness._pipeline.calls import call_given, disarm


def sleeps_until(moment: float) -> Any:
    def pipeline(given: Any, lane: Any) -> Any:
        while time.monotonic() < moment:
            time.sleep(0.01)
        return {"ok": True}
    return pipeline


def call(fn: Any, timeout: float) -> str:
    return call_given(fn, None, {}, case_id="c", lane_id="l", side="new", timeout=timeout, keep_timer=True).outcome


def test_a_timer_armed_for_an_earlier_call_does_not_cut_the_next_call_short() -> None:
    start = time.monotonic()
    try:
        assert call(sleeps_until(0), 1.0) == "ok"  # arms a timer going off at start + 1.0
        time.sleep(0.3)  # the next call's time is up at start + 1.3: the armed timer fires first
        assert call(sleeps_until(start + 1.15), 1.0) == "ok"
        assert call(sleeps_until(time.monotonic() + 60), 0.5) == "timeout"
        assert time.monotonic() - start < 5
    finally:
        disarm()
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_timer_left_armed_goes_off_between_calls_into_nothing() -> None:
    try:
        assert call(sleeps_until(0), 0.1) == "ok"
        time.sleep(0.3)  # the timer goes off here, outside any call: nothing is raised
        assert call(sleeps_until(0), 0.1) == "ok"
    finally:
        disarm()


def test_a_process_forked_from_another_thread_still_stops_a_call_at_its_deadline() -> None:
    """The forking thread is the child's main thread: the deadline (main thread only) must
    hold there, though the main thread's ident was read before the fork, in another thread."""
    answer: list[int] = []

    def fork_and_wait() -> None:
        pid = os.fork()
        if pid == 0:  # the child: a call that never ends on its own must end as a timeout
            outcome = call(sleeps_until(time.monotonic() + 3), 0.2)
            os._exit(0 if outcome == "timeout" else 1)
        answer.append(os.waitpid(pid, 0)[1])

    thread = threading.Thread(target=fork_and_wait)
    thread.start()
    thread.join(timeout=20)
    assert answer == [0], "the child's call ran past its deadline (exit status 256) or never ended"
