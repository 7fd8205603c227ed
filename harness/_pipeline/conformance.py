"""The conformance check any implementation of the pipeline protocol can run against itself.

``check_program(argv)`` starts the program once and walks it through every rule of
``docs/protocol.md`` a program must keep, in this order, one ``Check`` each:

    hello           the first message, within the start deadline, matching hello.schema.json
    call per name   one call to each pipeline the hello lists, with ids the program cannot guess
                    (never 1, 2, 3...), each answered by a result or error carrying that id
    unknown name    a call to a pipeline it does not serve gets an error answer with the call's id
    malformed line  a line that is not JSON gets an error answer with id null, and the program
                    goes on serving (the next call is answered)
    large inputs    inputs of 64 KiB, 256 KiB, 1 MiB and 4 MiB are each answered as the first call
                    was (a result, or the same kind of error); at the first that is not, the
                    limit is found by halving the gap between the last size answered and it
    shutdown        ``shutdown`` ends it with exit status 0 within the grace the harness itself
                    gives a program at close (``SHUTDOWN_GRACE_S``) before it kills it
    end of input    a second start, stdin closed after the hello: it exits 0 as well
    stray lines     none on stdout (a warning only: the harness skips them)

Every answer is checked against its JSON Schema (harness/_pipeline/schemas), and a result's
output must be JSON the harness can keep (no NaN or Infinity, as ``harness run`` refuses them).
Once the program has died or hung, the checks left are failed with that reason rather than run.
A failed check quotes its evidence: the line the program answered with and the end of its
stderr, both redacted (``harness._common.redact``) and cut short.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

from harness._common import supervise
from harness._common.canonical import canonical_bytes
from harness._common.redact import redact_text
from harness._pipeline.command import SHUTDOWN_GRACE_S, Lines, StdinClosed, die_with_parent
from harness._pipeline.protocol import PROTOCOL_VERSION, ProtocolViolation, call_message, schema_errors

__all__ = ["PROBE_INPUT", "PROBE_LANE", "Check", "check_program"]

Status = Literal["pass", "fail", "warn"]

PROBE_INPUT: dict[str, Any] = {"tools": [{
    "name": "get_weather", "description": "The weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}]}
PROBE_LANE: dict[str, Any] = {
    "id": "protocol-check", "wire": "anthropic-messages", "provider": "anthropic",
    "base_url": "https://api.anthropic.com", "model": "claude-sonnet-4-5", "options": {}, "fronts": ["anthropic"],
}
FIRST_ID = 7  # ids a program cannot predict by counting its own calls
# Input sizes the large-input check sends, smallest first: an adapter that refused every input over
# 128 KiB passed a single 1 MiB probe answered by an error (issue 31)
LARGE_SIZES = (64 << 10, 256 << 10, 1 << 20, 4 << 20)
_BISECT_STEPS = 5  # after the first refusal: the limit to within a 32nd of the gap
_QUOTE = 160  # characters of a bad line a failure line quotes
_QUOTE_SCAN = 1 << 16  # bytes of a bad line redacted before it is cut to _QUOTE
_STDERR_KEPT = 4000  # bytes of the program's stderr kept (its end)


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str = ""


class _QuotedLines(Lines):
    """The program's stdout lines, keeping the last one read: a failure quotes what was said."""

    last = b""

    def _decode(self, raw: bytes) -> Any:
        self.last = raw
        return super()._decode(raw)


def quoted(text: bytes, limit: int = _QUOTE) -> str:
    """A line as a failure may show it: decoded, redacted, control characters escaped, then cut.
    Redacted before it is cut (its first 64 KiB, far past what is shown), so a cut never leaves
    the start of a key showing where the whole would have been redacted."""
    shown = redact_text(text[:_QUOTE_SCAN].decode("utf-8", "replace").strip())
    return shown if len(shown) <= limit else shown[:limit] + f"... ({len(text):,} bytes in all)"


class _Program:
    """The program under check: its process, its stdout lines, its stderr tail."""

    def __init__(self, argv: list[str], cwd: str | None) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd, preexec_fn=die_with_parent)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.lines = _QuotedLines(self.proc.stdout.fileno())
        self.stderr = bytearray()
        self.trimmed = False  # the buffer lost its front: its first line is a piece of one
        self.dead: str | None = None
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        stream: Any = self.proc.stderr
        for chunk in iter(lambda: stream.read1(4096), b""):
            self.stderr += chunk
            if len(self.stderr) > _STDERR_KEPT:
                del self.stderr[: len(self.stderr) - _STDERR_KEPT]
                self.trimmed = True

    def tail(self) -> str:
        """The last two lines of stderr, redacted whole before they are cut to 300 characters; a
        line whose start was dropped is not shown (what is left of a key is no longer a key)."""
        time.sleep(0.05)
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        if self.trimmed and lines:
            lines = lines[1:] or ["[a line longer than the 4,000 bytes kept, not shown]"]
        text = redact_text(" | ".join(line.strip() for line in lines[-2:]))[-300:]
        return f"; stderr ends: {text}" if text else ""

    def evidence(self) -> str:
        """What a failed check quotes: the last line the program wrote, the end of its stderr."""
        said = f"; it said: {quoted(self.lines.last)}" if self.lines.last.strip() else ""
        return said + self.tail()

    def send(self, data: bytes, timeout: float, awaited: str = "answer") -> Any:
        """Write ``data`` and read the next message; ``self.dead`` says why when there is none."""
        assert self.proc.stdin is not None
        try:
            message = self.lines.exchange(time.monotonic() + timeout, self.proc.stdin.fileno() if data else None,
                                          data)
        except TimeoutError:
            self.kill()
            self.dead = f"no {awaited} within {timeout:g} s; killed{self.tail()}"
            return None
        except StdinClosed:  # a program that died closed it too: say which
            status = self.status(wait=0.2)
            closed = "it closed its standard input" if status == "still running" else f"it ended ({status})"
            self.dead = f"{closed} before reading the request{self.tail()}"
            return None
        except ProtocolViolation as exc:
            self.dead = f"{exc}{self.evidence()}"
            return None
        if message is None:
            self.dead = f"it closed its standard output ({self.status()}){self.tail()}"
        return message

    def status(self, wait: float = 1.0) -> str:
        try:
            code = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return "still running"
        return supervise.ended_by(code)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.kill()
            self.proc.wait(timeout=5)


def _answer_problem(message: Any, rid: int | None, want: str | None) -> str | None:
    """What is wrong with ``message`` as the answer to call ``rid`` (of kind ``want`` when
    given); None when nothing is."""
    if not isinstance(message, dict):
        return "expected an answer object"
    kind = message.get("type")
    if kind not in ("result", "error"):
        return f"expected type result or error, found {kind!r}"
    problems = schema_errors(kind, message)
    if problems:
        return "; ".join(problems[:3])
    if message.get("id") != rid:
        return f"expected id {json.dumps(rid)}, found {json.dumps(message.get('id'))}"
    if want and kind != want:
        return f"expected an {want} answer"
    if kind == "result":
        try:
            canonical_bytes(message["output"])
        except (TypeError, ValueError, RecursionError) as exc:
            return f"expected an output the harness can keep as JSON, found one it refuses ({exc})"
    return None


def _said(message: dict[str, Any]) -> str:
    return message["error"]["type"] if message["type"] == "error" else "result"


def _answer_check(name: str, message: Any, rid: int | None, program: _Program, *, want: str | None = None) -> Check:
    """Whether ``message`` is a schema-valid answer carrying ``rid`` (of kind ``want`` when given);
    a failure quotes the program's line and stderr."""
    problem = _answer_problem(message, rid, want)
    if problem is not None:
        return Check(name, "fail", problem + program.evidence())
    return Check(name, "pass", f"{_said(message)}, id {json.dumps(rid)}")


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode() + b"\n"


def _hello(program: _Program, start_timeout: float) -> tuple[list[Check], list[str]]:
    hello = program.send(b"", start_timeout, awaited="hello")
    if hello is None:
        return [Check("hello: the first message", "fail", program.dead or "")], []
    checks = []
    if hello.get("type") != "hello":
        return [Check("hello: the first message", "fail", f"found {quoted(json.dumps(hello).encode(), 200)}")], []
    impl = hello.get("implementation") if isinstance(hello.get("implementation"), dict) else {}
    who = " ".join(str(impl.get(k, "?")) for k in ("name", "version")) + f" ({impl.get('language', '?')})"
    checks.append(Check("hello: the first message", "pass", who))
    problems = schema_errors("hello", hello)
    checks.append(Check("hello matches hello.schema.json", "fail" if problems else "pass", "; ".join(problems[:3])))
    checks.append(Check(f"hello speaks protocol {PROTOCOL_VERSION}",
                        "pass" if hello.get("protocol") == PROTOCOL_VERSION else "fail",
                        "" if hello.get("protocol") == PROTOCOL_VERSION else f"found {hello.get('protocol')!r}"))
    declared = hello.get("pipelines")
    names = [p for p in declared if isinstance(p, str) and p] if isinstance(declared, list) else []
    return checks, names


def _calls(program: _Program, names: list[str], probe: Any, lane: dict[str, Any], timeout: float) -> list[Check]:
    checks = []
    steps: list[tuple[str, bytes, int | None, str | None]] = [
        (f"call {name!r} (id {FIRST_ID + 35 * i}) is answered with its id",
         _line(call_message(FIRST_ID + 35 * i, name, probe, lane)), FIRST_ID + 35 * i, None)
        for i, name in enumerate(names)]
    rid = FIRST_ID + 35 * len(names) + 1000
    unknown = "no-such-pipeline-" + "-".join(names)[:40]
    steps.append(("an unknown pipeline gets an error answer with the call's id",
                  _line(call_message(rid, unknown, probe, lane)), rid, "error"))
    steps.append(("a malformed request line gets an error answer with id null", b"{this is not json\n", None,
                  "error"))
    if names:
        steps.append((f"it keeps serving after the malformed line (id {rid + 1})",
                      _line(call_message(rid + 1, names[0], probe, lane)), rid + 1, None))
    first: dict[str, Any] | None = None  # the first pipeline's answer to the probe input
    for name, data, want_id, want in steps:
        if program.dead:
            checks.append(Check(name, "fail", "not run: the program stopped serving earlier"))
            continue
        message = program.send(data, timeout)
        if message is None:
            checks.append(Check(name, "fail", program.dead or ""))
            continue
        checks.append(_answer_check(name, message, want_id, program, want=want))
        if first is None and want_id == FIRST_ID and checks[-1].status == "pass":
            first = message
    if names:
        checks.append(_large(program, names[0], lane, timeout, first, rid + 2))
    return checks


def _sized(size: int) -> dict[str, Any]:
    """The probe's tool with a description making the input about ``size`` bytes."""
    return {"tools": [{**PROBE_INPUT["tools"][0], "description": "x" * max(0, size - 200)}]}


def _kib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB" if size >= 1 << 20 and size % (1 << 20) == 0 else f"{size >> 10} KiB"


class _Large:
    """The large-input check's calls: each size answered as the first call was, or why not."""

    def __init__(self, program: _Program, name: str, lane: dict[str, Any], timeout: float,
                 first: dict[str, Any] | None, rid: int) -> None:
        self.program, self.name, self.lane, self.timeout, self.rid = program, name, lane, timeout, rid
        self.want = None if first is None else _said(first)  # "result", or the error type the probe got

    def refused(self, size: int, quote: bool = False) -> str | None:
        """None when an input of ``size`` bytes is answered as the first call was; else what happened,
        with the evidence (the answer, the end of stderr) when ``quote``: the bisection's calls only
        need to know, and quoting waits for stderr each time."""
        self.rid += 1
        message = self.program.send(_line(call_message(self.rid, self.name, _sized(size), self.lane)), self.timeout)
        if message is None:
            return self.program.dead or "no answer"
        problem = _answer_problem(message, self.rid, None)
        if problem is None and self.want is not None and _said(message) != self.want:
            problem = f"expected {'a result' if self.want == 'result' else 'a ' + self.want} as for the first call, " \
                      f"found {_said(message)}"
        if problem is None:
            return None
        return problem + self.program.evidence() if quote else problem

    def limit(self, answered: int, refused: int) -> tuple[int, int]:
        """The gap between the largest size answered and the smallest refused, halved while the
        program still serves."""
        for _ in range(_BISECT_STEPS):
            if self.program.dead or refused - answered <= 1024:
                break
            middle = (answered + refused) // 2
            if self.refused(middle) is None:
                answered = middle
            else:
                refused = middle
        return answered, refused


def _large(program: _Program, name: str, lane: dict[str, Any], timeout: float, first: dict[str, Any] | None,
           rid: int) -> Check:
    """Inputs of ``LARGE_SIZES`` are read whole and answered like the first call; at the first
    size that is not, the limit is looked for and named with the answer that showed it."""
    title = (f"large inputs ({_kib(LARGE_SIZES[0])} to {_kib(LARGE_SIZES[-1])}) are read whole and answered "
             "like the first call")
    if program.dead:
        return Check(title, "fail", "not run: the program stopped serving earlier")
    large = _Large(program, name, lane, timeout, first, rid)
    answered = 0
    for size in LARGE_SIZES:
        why = large.refused(size, quote=True)
        if why is None:
            answered = size
            continue
        low, high = large.limit(answered, size)
        if not low:
            return Check(title, "fail", f"refused at every size tried, down to {_kib(high)} (at {_kib(size)}: {why})")
        return Check(title, "fail", f"answered up to {_kib(low)}, refused from {_kib(high)} "
                                    f"(first refused at {_kib(size)}: {why})")
    return Check(title, "pass", f"{large.want or 'answered'} at {', '.join(_kib(s) for s in LARGE_SIZES)}")


def _shutdown(program: _Program) -> Check:
    name = f"shutdown: exits with status 0 within {SHUTDOWN_GRACE_S:g} s"
    if program.dead:
        program.kill()
        return Check(name, "fail", "not run: the program stopped serving earlier")
    assert program.proc.stdin is not None
    with contextlib.suppress(OSError):
        os.write(program.proc.stdin.fileno(), _line({"type": "shutdown"}))
    status = program.status(wait=SHUTDOWN_GRACE_S)
    program.kill()
    return Check(name, "pass" if status == "exit code 0" else "fail", status)


def _end_of_input(argv: list[str], cwd: str | None, start_timeout: float) -> Check:
    """A second start: after its hello, stdin is closed without a shutdown; it must exit 0."""
    name = f"end of input (stdin closed, no shutdown): exits with status 0 within {SHUTDOWN_GRACE_S:g} s"
    program = _Program(argv, cwd)
    try:
        if program.send(b"", start_timeout, awaited="hello") is None:
            return Check(name, "fail", f"second start: {program.dead}")
        assert program.proc.stdin is not None
        program.proc.stdin.close()
        status = program.status(wait=SHUTDOWN_GRACE_S)
        return Check(name, "pass" if status == "exit code 0" else "fail", status)
    finally:
        program.kill()


def check_program(argv: list[str], *, timeout: float = 10.0, start_timeout: float = 60.0, cwd: str | None = None,
                  probe: Any = None, lane: dict[str, Any] | None = None) -> list[Check]:
    """Run every check on the program ``argv``; the checklist, in order."""
    try:
        program = _Program(argv, cwd)
    except OSError as exc:
        return [Check("starts", "fail", f"could not start {' '.join(argv)}: {exc.strerror or exc}")]
    try:
        checks, names = _hello(program, start_timeout)
        if checks[0].status == "pass":
            checks += _calls(program, names, PROBE_INPUT if probe is None else probe, lane or PROBE_LANE, timeout)
        checks.append(_shutdown(program))
        if checks[0].status == "pass":
            checks.append(_end_of_input(argv, cwd, start_timeout))
        stray = program.lines.stray
        checks.append(Check("no stray lines on stdout", "warn" if stray else "pass",
                            f"{stray} line(s) that are not messages (skipped by the harness; log to stderr)"
                            if stray else ""))
        return checks
    finally:
        program.kill()
