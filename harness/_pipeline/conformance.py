"""The conformance check any implementation of the pipeline protocol can run against itself.

``check_program(argv)`` starts the program once and walks it through every rule of
``docs/protocol.md`` a program must keep, in this order, one ``Check`` each:

    hello           the first message, within the start deadline, matching hello.schema.json
    call per name   one call to each pipeline the hello lists, with ids the program cannot guess
                    (never 1, 2, 3...), each answered by a result or error carrying that id
    unknown name    a call to a pipeline it does not serve gets an error answer with the call's id
    malformed line  a line that is not JSON gets an error answer with id null, and the program
                    goes on serving (the next call is answered)
    large input     a 1 MiB input is read whole and answered
    shutdown        ``shutdown`` ends it with exit status 0 within the grace the harness itself
                    gives a program at close (``SHUTDOWN_GRACE_S``) before it kills it
    end of input    a second start, stdin closed after the hello: it exits 0 as well
    stray lines     none on stdout (a warning only: the harness skips them)

Every answer is checked against its JSON Schema (harness/_pipeline/schemas). Once the program
has died or hung, the checks left are failed with that reason rather than run.
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


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str = ""


class _Program:
    """The program under check: its process, its stdout lines, its stderr tail."""

    def __init__(self, argv: list[str], cwd: str | None) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd, preexec_fn=die_with_parent)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.lines = Lines(self.proc.stdout.fileno())
        self.stderr = bytearray()
        self.dead: str | None = None
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        stream: Any = self.proc.stderr
        for chunk in iter(lambda: stream.read1(4096), b""):
            self.stderr += chunk
            del self.stderr[: max(0, len(self.stderr) - 4000)]

    def tail(self) -> str:
        time.sleep(0.05)
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        text = " | ".join(line.strip() for line in lines[-2:])[-300:]
        return f"; stderr ends: {text}" if text else ""

    def send(self, data: bytes, timeout: float, awaited: str = "answer") -> Any:
        """Write ``data`` and read the next message; ``self.dead`` says why when there is none."""
        assert self.proc.stdin is not None
        try:
            message = self.lines.exchange(time.monotonic() + timeout, self.proc.stdin.fileno() if data else None,
                                          data)
        except TimeoutError:
            self.kill()
            self.dead = f"no {awaited} within {timeout:g} s; killed"
            return None
        except StdinClosed:
            self.dead = f"it closed its standard input{self.tail()}"
            return None
        except ProtocolViolation as exc:
            self.dead = str(exc)
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


def _answer_check(name: str, message: Any, rid: int | None, *, want: str | None = None) -> Check:
    """Whether ``message`` is a schema-valid answer carrying ``rid`` (of kind ``want`` when given)."""
    if not isinstance(message, dict):
        return Check(name, "fail", f"expected an answer object, found {str(message)[:200]}")
    kind = message.get("type")
    if kind not in ("result", "error"):
        return Check(name, "fail", f"expected type result or error, found {kind!r}")
    problems = schema_errors(kind, message)
    if problems:
        return Check(name, "fail", "; ".join(problems[:3]))
    if message.get("id") != rid:
        return Check(name, "fail", f"expected id {json.dumps(rid)}, found {json.dumps(message.get('id'))}")
    if want and kind != want:
        return Check(name, "fail", f"expected an {want} answer, found {json.dumps(message)[:200]}")
    said = message["error"]["type"] if kind == "error" else "result"
    return Check(name, "pass", f"{said}, id {json.dumps(rid)}")


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode() + b"\n"


def _hello(program: _Program, start_timeout: float) -> tuple[list[Check], list[str]]:
    hello = program.send(b"", start_timeout, awaited="hello")
    if hello is None:
        return [Check("hello: the first message", "fail", program.dead or "")], []
    checks = []
    if hello.get("type") != "hello":
        return [Check("hello: the first message", "fail", f"found {json.dumps(hello)[:200]}")], []
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
    big = {"tools": [{**PROBE_INPUT["tools"][0], "description": "x" * (1 << 20)}]}
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
        steps.append((f"a 1 MiB input is read whole and answered (id {rid + 2})",
                      _line(call_message(rid + 2, names[0], big, lane)), rid + 2, None))
    for name, data, want_id, want in steps:
        if program.dead:
            checks.append(Check(name, "fail", "not run: the program stopped serving earlier"))
            continue
        message = program.send(data, timeout)
        if message is None:
            checks.append(Check(name, "fail", program.dead or ""))
            continue
        checks.append(_answer_check(name, message, want_id, want=want))
    return checks


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
