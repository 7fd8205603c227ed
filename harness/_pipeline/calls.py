"""One pipeline call, guarded: whatever the pipeline does, the caller gets an Observation.

A raise becomes outcome ``error``; running past the deadline becomes ``timeout`` (a SIGALRM
interrupts pure-Python loops; a hang inside C code is caught by the worker pool's watchdog,
which kills the worker); a value that is not JSON becomes ``error`` too, because it could not
go on the wire. The input is copied first so a pipeline that mutates it cannot leak into the
next call.
"""

from __future__ import annotations

import importlib
import os
import pickle
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from harness._common import supervise
from harness._common.canonical import canonical_bytes
from harness._model import ErrorInfo, Observation, Outcome, Side

__all__ = ["PipelineTimeout", "Raw", "call_given", "call_isolated", "call_pipeline", "call_raw", "deadline", "disarm",
           "pack"]


class PipelineTimeout(BaseException):
    """Raised inside a pipeline call when its deadline passes."""


def pack(pipeline_input: Any) -> bytes:
    """The input as bytes: each call unpacks its own copy, so no call sees another's edits."""
    return pickle.dumps(pipeline_input, protocol=pickle.HIGHEST_PROTOCOL)


class _AlarmState:
    """This process's SIGALRM deadline. A call sets when its time is up; the timer is only
    re-armed (a system call, a tenth of a small pipeline call) when the armed one would go off
    after that, or in less than half the call's budget. A timer armed for an earlier call that
    goes off while the current one still has time is set again for the rest; one that goes off
    between calls (``call_given(..., keep_timer=True)``) does nothing.

    One instance, not class attributes: assigning to a class attribute marks the class changed,
    which throws away the interpreter's specialised lookups of it, twice per call (a fortieth
    of a small pipeline call)."""

    __slots__ = ("deadline", "fires_at", "live")

    def __init__(self) -> None:
        self.live = False  # a call runs under a deadline: only then does SIGALRM raise
        self.deadline = 0.0  # when the running call's time is up (time.monotonic)
        self.fires_at: float | None = None  # when the armed timer goes off; None when none is armed


_Alarm = _AlarmState()


def _set_timer(seconds: float) -> None:
    signal.setitimer(signal.ITIMER_REAL, seconds)
    _Alarm.fires_at = time.monotonic() + seconds


def _on_alarm(signum: int, frame: Any) -> None:
    _Alarm.fires_at = None
    if not _Alarm.live:
        return
    left = _Alarm.deadline - time.monotonic()
    if left > 0:
        _set_timer(left)
        return
    _Alarm.live = False
    raise PipelineTimeout()


# The C function behind ``signal.getsignal``: the public one converts the handler to an enum
# first, which fails (and costs 8 us, a fifth of a small pipeline call) for a Python function.
_raw_getsignal: Callable[[int], object] = importlib.import_module("_signal").getsignal
# Bound once: each call of the build's loop looks them up twice per unit otherwise.
_get_ident, _monotonic, _perf_counter, _SIGALRM = threading.get_ident, time.monotonic, time.perf_counter, signal.SIGALRM


class _Main:
    """The main thread's ident, read once per process (``threading.current_thread()`` is a
    Python call and a dict lookup, paid twice per unit); a forked child's main thread is the
    one that forked, so a child reads it again."""

    ident = threading.main_thread().ident

    @classmethod
    def reread(cls) -> None:
        cls.ident = threading.main_thread().ident


os.register_at_fork(after_in_child=_Main.reread)  # after threading's own hook, registered first


def _arm(seconds: float | None) -> bool:
    """Start the deadline of one call (main thread only; elsewhere none). The SIGALRM handler
    is installed once per process and left in place (swapping it around every call cost as much
    as a small pipeline), but checked every call: a pipeline or a test plugin may replace it."""
    if not seconds or _get_ident() != _Main.ident:
        return False
    if _raw_getsignal(_SIGALRM) is not _on_alarm:
        signal.signal(_SIGALRM, _on_alarm)
        _Alarm.fires_at = None  # whatever timer runs is not ours to count on
    now = _monotonic()
    _Alarm.deadline = until = now + seconds
    _Alarm.live = True  # before looking at the timer: one going off now is set again for this call
    fires = _Alarm.fires_at
    if fires is None or fires > until or fires < now + seconds / 2:
        _set_timer(seconds)
    return True


def disarm() -> None:
    """Stop the timer calls left armed (see ``call_given``)."""
    _Alarm.live = False
    if _Alarm.fires_at is not None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _Alarm.fires_at = None


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (main thread only; elsewhere no deadline)."""
    armed = _arm(seconds)
    try:
        yield
    finally:
        if armed:
            disarm()


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    # The file's name only: an absolute path would differ between clones and leak local paths.
    return f"{os.path.basename(last.filename)}:{last.lineno} in {last.name}"


def call_pipeline(
    fn: Callable[[Any, Any], Any],
    pipeline_input: Any,
    lane: dict[str, Any],
    *,
    case_id: str,
    lane_id: str,
    side: Side,
    timeout: float | None,
    packed: bytes | None = None,
) -> Observation:
    """Run ``fn(input, lane)`` once on a fresh copy of both and record how it ended. ``packed``
    is ``pack(input)``, for callers that run one input many times."""
    given = pickle.loads(packed if packed is not None else pack(pipeline_input))
    return call_given(fn, given, dict(lane), case_id=case_id, lane_id=lane_id, side=side, timeout=timeout)


Raw = tuple[Outcome, bytes | None, Any, ErrorInfo | None, float]
"""How one call ended, as plain fields: outcome (``ok``, ``timeout`` or ``error``), wire bytes,
the live value, the error, and the seconds it took (encoding the body included)."""


def call_raw(fn: Callable[[Any, Any], Any], given: Any, lane: dict[str, Any], timeout: float | None,
             keep_timer: bool = False) -> Raw:
    """``call_given``'s call, its ending as plain fields (no Observation): the build's commonest
    unit needs none when old and new answer the same bytes."""
    start = _perf_counter()
    armed = _arm(timeout)
    try:
        try:
            value = fn(given, lane)
        finally:
            _Alarm.live = False
            if armed and not keep_timer:
                disarm()
        wire = canonical_bytes(value)
    except PipelineTimeout:
        return "timeout", None, None, ErrorInfo("Timeout", f"no answer within {timeout:g} s"), _perf_counter() - start
    except (Exception, RecursionError) as exc:
        error = ErrorInfo(type(exc).__name__, str(exc)[:2000], _where(exc))
        return "error", None, None, error, _perf_counter() - start
    return "ok", wire, value, None, _perf_counter() - start


def call_given(
    fn: Callable[[Any, Any], Any],
    given: Any,
    lane: dict[str, Any],
    case_id: str,
    lane_id: str,
    side: Side,
    timeout: float | None,
    keep_timer: bool = False,
) -> Observation:
    """``call_pipeline`` on exactly ``given`` and ``lane``, no copy: for a caller that isolates
    the input itself (the build stage, ``harness._differential.inputs``). ``keep_timer`` leaves the
    timer armed for the next call (it raises only during a call): a caller making call after
    call then rarely needs a system call per call, and disarms at the end (``disarm()``). Its
    arguments may be passed by position: the build stage calls it twice per unit."""
    outcome, wire, value, error, took = call_raw(fn, given, lane, timeout, keep_timer)
    if error is None:
        return Observation(case_id, lane_id, side, "ok", wire, value, None, took)
    return Observation(case_id, lane_id, side, outcome, error=error, duration_s=took)


def call_isolated(
    fn: Callable[[Any, Any], Any],
    pipeline_input: Any,
    lane: dict[str, Any],
    *,
    case_id: str,
    lane_id: str,
    side: Side,
    timeout: float | None,
) -> Observation:
    """``call_pipeline`` in a forked child: a crash or a hang in C code becomes an outcome."""
    import select

    read_fd, write_fd = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child: answer through the pipe, then leave without running atexit hooks
        os.close(read_fd)
        try:
            supervise.crashes_reported_on_stderr()
            obs = call_pipeline(fn, pipeline_input, lane, case_id=case_id, lane_id=lane_id,
                                side=side, timeout=timeout)
            with os.fdopen(write_fd, "wb") as out:
                out.write(pickle.dumps(obs, protocol=pickle.HIGHEST_PROTOCOL))
        finally:
            os._exit(0)
    os.close(write_fd)
    chunks: list[bytes] = []
    limit = start + (timeout or 3600) + 2.0
    with os.fdopen(read_fd, "rb") as src:
        while True:
            left = limit - time.perf_counter()
            ready, _, _ = select.select([src], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return Observation(case_id, lane_id, side, "timeout",
                                   error=ErrorInfo("Timeout", f"no answer within {timeout:g} s; killed"),
                                   duration_s=time.perf_counter() - start)
            chunk = src.read1(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if chunks:
        result: Observation = pickle.loads(b"".join(chunks))
        return result
    how = supervise.ended_by(os.waitstatus_to_exitcode(status))
    return Observation(case_id, lane_id, side, "crash",
                       error=ErrorInfo("Crash", f"the pipeline's process died ({how})"),
                       duration_s=time.perf_counter() - start)
