"""A pipeline that is a long-lived program speaking JSON lines (``harness.pipeline.protocol``).

Started on first use and kept warm, so a heavy import is paid once per process, not per call.
Whatever it does becomes an outcome, never an exception in the harness:

    raises (answers ``error``)          outcome ``error`` with its type, message and place
    no answer within the deadline       ``timeout``; its process group is killed, restarted next call
    exits or dies mid-request           ``crash``, with its exit status and the tail of its stderr
    a malformed answer or a wrong id    ``error`` (ProtocolError); restarted, its state is unknown
    prints that are not JSON objects    ignored and counted (``stray``)
    cannot start (or no hello)          ``error`` for every call, after three tries

A Python callable inside another interpreter is the same thing: that interpreter runs
``harness/adapter/serve.py`` (standard library only) on the callable.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from harness.canonical import canonical_bytes
from harness.model import ErrorInfo, Observation, Outcome, PipelineSpec, Side
from harness.pipeline.protocol import ProtocolViolation, answer_of, call_message, hello_of

__all__ = ["ADAPTER", "CommandPipeline"]

ADAPTER = Path(__file__).resolve().parent.parent / "adapter" / "serve.py"
START_TIMEOUT_S = 60.0
MAX_STARTS = 3
MAX_LINE = 256 << 20  # one answer line; past this the answer is refused, not buffered forever
STDERR_TAIL = 16 << 10


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """The child gets SIGKILL when the process that started it dies, even by SIGKILL."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    os.setpgid(0, 0)


class _Lines:
    """Lines from a pipe with a deadline; stray (non-object) lines are counted and skipped."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()
        self.stray = 0

    def next_object(self, until: float) -> Any:
        """The next JSON-object line, decoded; None at end of file; TimeoutError at ``until``."""
        import select

        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line = bytes(self.buf[:nl]).strip()
                del self.buf[: nl + 1]
                if not line.startswith(b"{"):
                    self.stray += bool(line)
                    continue
                try:
                    return json.loads(line)
                except ValueError as exc:
                    raise ProtocolViolation(f"a line that is not JSON: {exc}") from None
            if len(self.buf) > MAX_LINE:
                raise ProtocolViolation(f"an answer line longer than {MAX_LINE} bytes")
            left = until - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk


class CommandPipeline:
    def __init__(self, spec: PipelineSpec) -> None:
        self.spec = spec
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: _Lines | None = None
        self.hello: dict[str, Any] | None = None
        self.broken: str | None = None
        self.starts = 0
        self.next_id = 0
        self.stderr: deque[bytes] = deque()
        self.stderr_size = 0

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
                cwd=self.spec.cwd or self.spec.root, env=self._env(), preexec_fn=_die_with_parent,
            )
        except OSError as exc:
            self.proc = None
            raise _StartFailed(f"could not start {' '.join(self.argv())}: {exc.strerror or exc}") from None
        assert self.proc.stdout is not None
        threading.Thread(target=self._drain_stderr, args=(self.proc.stderr,), daemon=True).start()
        self.lines = _Lines(self.proc.stdout.fileno())
        try:
            message = self.lines.next_object(time.monotonic() + START_TIMEOUT_S)
            if message is None:
                raise _StartFailed(f"exited before its hello ({self._status()}){self._stderr_note()}")
            self.hello = hello_of(message)
        except TimeoutError:
            self._kill()
            raise _StartFailed(f"no hello within {START_TIMEOUT_S:g} s{self._stderr_note()}") from None
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

    def _status(self) -> str:
        if self.proc is None:
            return "not started"
        code = self.proc.wait(timeout=5)
        return f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"

    def _stderr_note(self) -> str:
        time.sleep(0.05)  # let the drain thread catch the last words
        tail = self.stderr_tail(600)
        return f"; stderr: {tail}" if tail else ""

    def _kill(self) -> None:
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
        except (TypeError, ValueError) as exc:
            return outcome("error", "InputNotJSON", f"the input cannot be sent as JSON: {exc}")
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
            message = self.lines.next_object(time.monotonic() + (timeout or 3600))
        except TimeoutError:
            self._kill()
            return outcome("timeout", "Timeout", f"no answer within {timeout:g} s; its process was killed")
        except ProtocolViolation as exc:
            self._kill()
            return outcome("error", "ProtocolError", f"{exc}; the process was restarted")
        except (BrokenPipeError, OSError):
            message = None
        if message is None:
            status = self._status()
            note = self._stderr_note()
            self._kill()
            return outcome("crash", "Crash", f"the pipeline's process died mid-request ({status}){note}")
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
        except (TypeError, ValueError) as exc:
            return outcome("error", "OutputNotJSON", str(exc))
        return Observation(case_id, lane_id, side, "ok", wire=wire, value=body, duration_s=duration)

    @property
    def stray(self) -> int:
        """Stray (non-protocol) lines the program printed on stdout so far."""
        return self.lines.stray if self.lines else 0

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None and self.proc.stdin is not None:
            with contextlib.suppress(Exception):
                self.proc.stdin.write(b'{"type": "shutdown"}\n')
                self.proc.stdin.close()
                self.proc.wait(timeout=2)
        self._kill()


class _StartFailed(Exception):
    def __init__(self, message: str, final: bool = False) -> None:
        super().__init__(message)
        self.final = final
