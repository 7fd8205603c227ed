"""A pipeline that is a long-lived program speaking JSON lines (``harness._pipeline.protocol``).

Started on first use and kept warm, so a heavy import is paid once per process, not per call.
Whatever it does becomes an outcome, never an exception in the harness:

    raises (answers ``error``)          outcome ``error`` with its type, message and place
    no answer within the deadline       ``timeout``; its process group is killed, restarted next call
    exits or dies mid-request           ``crash``, with its exit status and the tail of its stderr
    a malformed answer or a wrong id    ``error`` (ProtocolError); restarted, its state is unknown
    closes stdin or stdout, stays up    ``error`` (ProtocolError); killed, restarted next call
    never reads its input               ``timeout`` (requests are written without blocking)
    an answer line over MAX_LINE        ``error`` (ProtocolError); restarted
    prints that are not messages        skipped and counted (``stray``); one note on stderr at close
    cannot start (or no hello)          ``error`` for every call, after three tries

A Python callable inside another interpreter is the same thing: that interpreter runs
``harness/adapter/serve.py`` (standard library only) on the callable.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness._common import supervise
from harness._common.canonical import canonical_bytes
from harness._model import ErrorInfo, Observation, Outcome, PipelineSpec, Side
from harness._pipeline.protocol import ProtocolViolation, answer_of, call_message, hello_of, is_message

__all__ = ["ADAPTER", "SHUTDOWN_GRACE_S", "CommandPipeline", "Lines", "StdinClosed", "die_with_parent"]

ADAPTER = Path(__file__).resolve().parent.parent / "adapter" / "serve.py"
START_TIMEOUT_S = 60.0  # the default of a side's start_timeout_s
MAX_STARTS = 3
SHUTDOWN_GRACE_S = 2.0  # after ``shutdown`` (or end of input), the time a program has to exit before it is killed
MAX_LINE = 256 << 20  # one answer line; past this the answer is refused, not buffered forever
STDERR_TAIL = 16 << 10


def die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """The child gets SIGKILL when the process that started it dies, even by SIGKILL; it leads
    its own process group; under ``memory_mb`` it gets N MiB of address space of its own (the
    worker's limit is N on top of the worker, far more than N for a fresh program)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    os.setpgid(0, 0)
    supervise.limit_memory(supervise.ceiling())


def _last_words(lines: list[str]) -> str:
    """The last stderr line that says something: Node frames a fatal error in lines of ``#``
    (``# Fatal process OOM in ...``), whose last line alone says nothing on a terminal line."""
    for line in reversed(lines):
        words = line.strip().strip("#").strip()
        if any(c.isalnum() for c in words):
            return words
    return lines[-1].strip()


_OUT_OF_MEMORY = re.compile(r"out of memory|\bOOM\b|heap limit|MemoryError|Cannot allocate memory|bad_alloc",
                            re.IGNORECASE)


def _memory_hint(words: str) -> str:
    """Under ``memory_mb``, an out-of-memory death says which ceiling it met."""
    limit = supervise.ceiling()
    if not limit or not _OUT_OF_MEMORY.search(words):
        return ""
    return f" (memory_mb: {limit:g} MiB)"


def _short_paths(text: str, root: str | None) -> str:
    """Absolute paths of this machine (the project, the interpreters, home) as short names, so a
    report quoting a program's traceback stays the same on another clone."""
    import sys

    places = [(os.path.dirname(root.rstrip("/")), "<project>")] if root else []
    places += [(sys.base_prefix, "<python>"), (sys.prefix, "<venv>"), (os.path.expanduser("~"), "~")]
    for prefix, name in sorted(places, key=lambda p: -len(p[0])):
        if prefix and prefix != "/":
            text = text.replace(prefix + "/", name + "/")
    return text


class StdinClosed(Exception):
    """The program closed its end of the request pipe (EPIPE on write)."""


_STRAY = object()


class Lines:
    """Lines from the program's stdout, with a deadline, while a request is written to its stdin.

    Writing and reading interleave (``select`` on both pipes), so a request larger than the pipe
    buffer never blocks the harness: a program that never reads its input times out like any
    other hang, and one that answers while still being fed is not deadlocked. Stray lines (not
    a JSON object, or an object without ``type``) are counted and skipped.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()
        self.scanned = 0  # bytes of buf already searched for a newline: a huge line is not rescanned
        self.stray = 0

    def _line(self) -> bytes | None:
        nl = self.buf.find(b"\n", self.scanned)
        if nl < 0:
            self.scanned = len(self.buf)
            return None
        line = bytes(self.buf[:nl])
        del self.buf[: nl + 1]
        self.scanned = 0
        return line

    def _decode(self, raw: bytes) -> Any:
        line = raw.strip()
        if not line.startswith(b"{"):
            self.stray += bool(line)
            return _STRAY
        try:
            value = json.loads(line)
        except RecursionError:
            raise ProtocolViolation("a line nested too deeply to decode") from None
        except ValueError as exc:  # UnicodeDecodeError included: stdout must be UTF-8
            raise ProtocolViolation(f"a line that is not JSON: {exc}") from None
        if not is_message(value):
            self.stray += 1
            return _STRAY
        return value

    def exchange(self, until: float, out_fd: int | None = None, data: bytes = b"") -> Any:
        """Send ``data`` to ``out_fd`` while reading; the next protocol message, decoded.

        None at end of file; TimeoutError at ``until``; StdinClosed when the program closed its
        stdin before taking all of ``data``.
        """
        import select

        view = memoryview(data)
        sent = 0
        if out_fd is not None and data:  # most requests fit the pipe: write now, no select first
            try:
                sent = os.write(out_fd, view[: 1 << 16])
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                raise StdinClosed from None
        while True:
            line = self._line()
            if line is not None:
                value = self._decode(line)
                if value is _STRAY:
                    continue
                if sent < len(data):
                    raise ProtocolViolation("an answer before the whole request was read")
                return value
            if len(self.buf) > MAX_LINE:
                raise ProtocolViolation(f"an answer line longer than {MAX_LINE} bytes")
            left = until - time.monotonic()
            if left <= 0:
                raise TimeoutError
            writing = [out_fd] if out_fd is not None and sent < len(data) else []
            readable, writable, _ = select.select([self.fd], writing, [], left)
            if writable:
                try:
                    sent += os.write(writing[0], view[sent: sent + (1 << 16)])
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    raise StdinClosed from None
            if readable:
                chunk = os.read(self.fd, 1 << 20)
                if not chunk:
                    return None
                self.buf += chunk


class CommandPipeline:
    def __init__(self, spec: PipelineSpec) -> None:
        self.spec = spec
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: Lines | None = None
        self.hello: dict[str, Any] | None = None
        self.broken: str | None = None
        self.starts = 0
        self.next_id = 0
        self.stderr: deque[bytes] = deque()
        self.stderr_size = 0
        self.drain: threading.Thread | None = None  # reads the running program's stderr into ``stderr``
        self.stray_seen = 0  # stray lines of processes already ended (restarts included)

    # -- process -------------------------------------------------------------------------------
    def argv(self) -> list[str]:
        if self.spec.kind == "command":
            return list(self.spec.command)
        assert self.spec.python and self.spec.call
        return [self.spec.python, str(ADAPTER), "--call", self.spec.call, "--name", self.pipeline_name()]

    def pipeline_name(self) -> str:
        return self.spec.name or ("pipeline" if self.spec.kind == "python" else "")

    def _env(self) -> dict[str, str]:
        env = {**os.environ, **dict(self.spec.env), "PYTHONUNBUFFERED": "1"}
        if self.spec.path:
            env["PYTHONPATH"] = os.pathsep.join([*self.spec.path, *filter(None, [env.get("PYTHONPATH")])])
        return env

    def _drain_stderr(self, stream: Any) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):
            self.stderr.append(chunk)
            self.stderr_size += len(chunk)
            while self.stderr_size > STDERR_TAIL and len(self.stderr) > 1:
                self.stderr_size -= len(self.stderr.popleft())

    def stderr_tail(self, limit: int = 1500) -> str:
        text = b"".join(self.stderr).decode("utf-8", "replace").strip()
        return text[-limit:]

    def _start(self) -> None:
        self.starts += 1
        self.stderr.clear()
        self.stderr_size = 0
        try:
            self.proc = subprocess.Popen(
                self.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.spec.cwd or self.spec.root, env=self._env(), preexec_fn=die_with_parent,
            )
        except OSError as exc:
            self.proc = None
            raise _StartFailed(f"could not start {' '.join(self.argv())}: {exc.strerror or exc}") from None
        assert self.proc.stdout is not None and self.proc.stdin is not None
        os.set_blocking(self.proc.stdin.fileno(), False)  # requests are written as the program reads
        self.drain = threading.Thread(target=self._drain_stderr, args=(self.proc.stderr,), daemon=True)
        self.drain.start()
        self.lines = Lines(self.proc.stdout.fileno())
        try:
            message = self.lines.exchange(time.monotonic() + self.spec.start_timeout_s)
            if message is None:
                raise _StartFailed(f"exited before its hello ({self._status()}){self._stderr_note()}")
            self.hello = hello_of(message)
        except TimeoutError:
            self._kill()
            raise _StartFailed(f"no hello within {self.spec.start_timeout_s:g} s{self._stderr_note()}") from None
        except ProtocolViolation as exc:
            self._kill()
            raise _StartFailed(f"bad hello: {exc}") from None
        name = self.pipeline_name()
        served = self.hello["pipelines"]
        if not name and len(served) == 1:
            name = served[0]
        if name not in served:
            self._kill()
            raise _StartFailed(f"serves {served}, not {name or '(no pipeline named)'!r}", final=True)

    def _status(self, wait: float = 5.0) -> str:
        if self.proc is None:
            return "not started"
        try:
            code = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return "still running"
        return supervise.ended_by(code)

    def _stderr_note(self) -> str:
        """The program's last words: its last stderr line first (``ModuleNotFoundError: ...``, what
        a terminal line shows), then the tail, with this machine's absolute paths shortened."""
        self._caught_up()
        tail = _short_paths(self.stderr_tail(600), self.spec.root)
        lines = [line for line in tail.splitlines() if line.strip()]
        if not lines:
            return ""
        words = _last_words(lines)
        return f": {words}{_memory_hint(words)}; stderr: {tail}"

    def _caught_up(self) -> None:
        """The drain thread has read what the program wrote on stderr: all of it once the
        program has ended (the pipe's end; a second at most, for a child of the program that
        still holds it), a moment's worth while it runs."""
        ended = self.proc is not None and self.proc.poll() is not None
        if ended and self.drain is not None:
            self.drain.join(timeout=1.0)
        else:
            time.sleep(0.05)

    def _kill(self) -> None:
        if self.lines is not None:
            self.stray_seen += self.lines.stray
            self.lines.stray = 0
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                stream.close()  # type: ignore[union-attr]
        self.proc = None
        self.lines = None

    def _ready(self) -> str | None:
        """Start the process if needed; a sentence when it cannot be started."""
        if self.proc is not None and self.proc.poll() is None:
            return None
        self._kill()
        while self.broken is None:
            try:
                self._start()
                return None
            except _StartFailed as exc:
                if exc.final or self.starts >= MAX_STARTS:
                    self.broken = f"{exc} (gave up after {self.starts} start(s))"
        return self.broken

    # -- calls ---------------------------------------------------------------------------------
    def call(self, pipeline_input: Any, lane: dict[str, Any], *, case_id: str, lane_id: str, side: Side,
             timeout: float | None, packed: bytes | None = None) -> Observation:
        start = time.perf_counter()

        def outcome(kind: Outcome, etype: str, message: str) -> Observation:
            return Observation(case_id, lane_id, side, kind, error=ErrorInfo(etype, message[:4000]),
                               duration_s=time.perf_counter() - start)

        problem = self._ready()
        if problem is not None:
            return outcome("error", "PipelineStart", f"{self.spec.label()}: {problem}")
        assert self.proc is not None and self.proc.stdin is not None and self.lines is not None
        self.next_id += 1
        name = self.pipeline_name() or self.hello["pipelines"][0]  # type: ignore[index]
        try:
            line = json.dumps(call_message(self.next_id, name, pipeline_input, lane), ensure_ascii=False,
                              allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            return outcome("error", "InputNotJSON", f"the input cannot be sent as JSON: {exc}")
        try:
            message = self.lines.exchange(time.monotonic() + (timeout or 3600), self.proc.stdin.fileno(),
                                          line.encode() + b"\n")
        except TimeoutError:
            self._kill()
            return outcome("timeout", "Timeout", f"no answer within {timeout or 3600:g} s; its process was killed")
        except ProtocolViolation as exc:
            self._kill()
            return outcome("error", "ProtocolError", f"{exc}; the process was restarted")
        except StdinClosed:
            return self._ended(outcome, "closed its standard input before reading the request")
        except OSError as exc:
            return self._ended(outcome, f"could not be reached ({exc.strerror or exc})")
        if message is None:
            return self._ended(outcome, "closed its standard output mid-request")
        try:
            kind, body = answer_of(message, self.next_id)
        except ProtocolViolation as exc:
            self._kill()
            return outcome("error", "ProtocolError", f"{exc}; the process was restarted")
        duration = time.perf_counter() - start
        if kind == "error":
            return Observation(case_id, lane_id, side, "error",
                               error=ErrorInfo(body["type"], body["message"][:2000], body["where"]),
                               duration_s=duration)
        try:
            wire = canonical_bytes(body)
        except (TypeError, ValueError, RecursionError) as exc:
            return outcome("error", "OutputNotJSON", str(exc))
        return Observation(case_id, lane_id, side, "ok", wire=wire, value=body, duration_s=duration)

    def _ended(self, outcome: Callable[[Outcome, str, str], Observation], what: str) -> Observation:
        """The program stopped serving mid-request: ``crash`` when it exited (with its status and
        last words), a ProtocolError when it is still running but unreachable; killed either way."""
        status = self._status(wait=1.0)
        note = self._stderr_note()
        self._kill()
        if status == "still running":
            return outcome("error", "ProtocolError", f"the program {what}; the process was restarted{note}")
        return outcome("crash", "Crash", f"the pipeline's process died mid-request ({status}){note}")

    @property
    def stray(self) -> int:
        """Stray (non-protocol) lines the program printed on stdout so far, restarts included."""
        return self.stray_seen + (self.lines.stray if self.lines else 0)

    def close(self) -> None:
        """Send ``shutdown``, give the program ``SHUTDOWN_GRACE_S`` to exit, then end its process group; say once,
        on stderr, how many stray lines it printed on stdout (they were skipped, not lost silently)."""
        if self.proc is not None and self.proc.poll() is None and self.proc.stdin is not None:
            with contextlib.suppress(Exception):
                os.write(self.proc.stdin.fileno(), b'{"type":"shutdown"}\n')
            with contextlib.suppress(Exception):
                self.proc.stdin.close()
            with contextlib.suppress(Exception):
                self.proc.wait(timeout=SHUTDOWN_GRACE_S)
        stray = self.stray
        self._kill()
        self.stray_seen = 0
        if stray:
            print(f"harness: {self.spec.label()} printed {stray} stray line(s) on stdout, skipped "
                  "(stdout is the protocol's; send logs to stderr)", file=sys.stderr)


class _StartFailed(Exception):
    def __init__(self, message: str, final: bool = False) -> None:
        super().__init__(message)
        self.final = final
