"""One supervisor for every process the harness starts: build workers, long-lived pipeline
commands, a side's setup command, the pins' child pytest, the mutation engine, the import probe.

What it guarantees, and how:

    a child outlives a killed harness     never. Three layers, because no one of them is enough:
                                          - every direct child gets PR_SET_PDEATHSIG (SIGKILL when
                                            its parent dies, even by SIGKILL);
                                          - every child leads its own process group, ended whole on
                                            timeout, on Ctrl-C and on SIGTERM;
                                          - a watchdog process (started once, outside the terminal's
                                            group) waits for the harness to die by any means, then
                                            kills every process whose environment carries this
                                            harness's token: grandchildren a pipeline or the
                                            mutation engine forked, which no death signal reaches.
    a child overruns its deadline          its whole group is killed; ``Finished.timed_out``
    a child prints without end             stdout/stderr are kept up to a cap, the rest counted
    SIGTERM / Ctrl-C to the harness        ``Terminated`` / KeyboardInterrupt in the main thread,
                                           so stages unwind through their ``finally`` blocks and
                                           the runner writes a partial report
    a memory ceiling                       RLIMIT_AS in the child (``limit_memory``)

Measured (tests/e2e/test_supervisor.py, two workers, 8-9 processes: workers, warm pipeline
commands, a ``sleep`` a pipeline started with ``start_new_session``): after SIGKILL of ``harness
run`` nothing of the run is left 0.04-0.09 s after the harness ended; the same for ``harness
mutate`` (the engine and its forks). With death signals and process groups alone (the watchdog
disabled) the ``sleep`` in its own session was still running 5 s later. A subreaper
(PR_SET_CHILD_SUBREAPER) was not used: orphans come back to it only while it lives, and a
SIGKILLed harness hands them to init all the same.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import os
import resource
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any

__all__ = [
    "OUTPUT_CAP",
    "TOKEN_ENV",
    "Finished",
    "Terminated",
    "ceiling",
    "crashes_reported_on_stderr",
    "die_with_parent",
    "ended_by",
    "exited",
    "forked_child",
    "held_termination",
    "kill_group",
    "limit_memory",
    "popen",
    "preexec",
    "run",
    "start",
    "terminating",
    "watchdog_pid",
]

TOKEN_ENV = "HARNESS_SUPERVISOR_TOKEN"
OUTPUT_CAP = 1 << 20  # bytes of a child's stdout (and of its stderr) kept; the rest is counted
_PR_SET_PDEATHSIG = 1

# The watchdog: standard library only, run with ``python -I -S`` so nothing on disk can shadow a
# module it imports. It reads stdin until end of file (the harness closed it or died), then
# kills, for a few rounds (a dying process may still fork), every process of this user whose
# environment holds the token.
_WATCHDOG = r"""
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
os.setsid()
needle = b"\0%s=%s\0" % (sys.argv[1].encode(), sys.argv[2].encode())
me, uid = os.getpid(), os.getuid()
while os.read(0, 4096):
    pass
for _ in range(20):
    found = 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            if os.stat("/proc/" + name).st_uid != uid:
                continue
            with open("/proc/%s/environ" % name, "rb") as f:
                env = b"\0" + f.read() + b"\0"
        except OSError:
            continue
        if needle in env:
            try:
                os.kill(int(name), signal.SIGKILL)
                found += 1
            except OSError:
                pass
    if not found:
        break
    time.sleep(0.02)
"""

_lock = threading.Lock()
_watchdog: subprocess.Popen[bytes] | None = None
_watchdog_fd: int | None = None


class Terminated(BaseException):
    """The harness was asked to stop (SIGTERM). A BaseException, like KeyboardInterrupt, so no
    ``except Exception`` in a stage swallows it."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def ended_by(code: int | None) -> str:
    """How a process ended, from its return code (negative: the signal): the words every
    outcome that names a dead process uses."""
    if code is not None and code < 0:
        return f"signal {signal.Signals(-code).name}"
    return f"exit code {code}"


def _libc() -> Any:
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:  # not glibc Linux: the watchdog and process groups still apply
        return None


_LIBC = _libc()  # loaded here, never between fork and exec (the loader's lock may be held)


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask the kernel to send ``sig`` to this process when its parent dies."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, sig)


def limit_memory(megabytes: float | None, *, on_top: bool = False) -> None:
    """RLIMIT_AS for this process: ``megabytes`` in all, or (``on_top``) on top of the address
    space it already holds (a forked worker carries the harness's own size)."""
    if not megabytes:
        return
    _ceiling[0] = megabytes  # a program this process starts gets the same N, fresh (``ceiling``)
    extra = int(megabytes * (1 << 20))
    base = _address_space() if on_top else 0
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = base + extra
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    resource.setrlimit(resource.RLIMIT_AS, (want, hard))


_ceiling: list[float | None] = [None]


def ceiling() -> float | None:
    """The ``memory_mb`` this process runs under, if any: a program it starts (a pipeline
    command) must get N MiB of its own, not N on top of this process's size."""
    return _ceiling[0]


def _address_space() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


def preexec(memory_mb: float | None = None) -> Callable[[], None]:
    """``preexec_fn`` for a supervised child: its own process group, death with its parent, and
    the memory ceiling. Runs between fork and exec: only async-signal-safe-ish work."""

    def setup() -> None:  # pragma: no cover - runs in the child
        die_with_parent()
        os.setpgid(0, 0)
        limit_memory(memory_mb)

    return setup


def forked_child(parent: int) -> None:
    """First thing in a child forked without exec (a build worker, the import probe): die with
    the parent, and exit now if it is already gone (it died before the death signal was set)."""
    crashes_reported_on_stderr()
    die_with_parent()
    if os.getppid() != parent:
        os._exit(1)
    if _watchdog_fd is not None:
        with contextlib.suppress(OSError):  # only the harness itself keeps the watchdog waiting
            os.close(_watchdog_fd)


def crashes_reported_on_stderr() -> None:
    """In a forked child whose death the harness records as an outcome: faulthandler, when on,
    reports a crash on this process's own stderr (fd 2, whatever the parent made of it: a build
    worker's echo, a pin check's /dev/null, pytest's capture), not on the file the parent gave
    it (pytest's faulthandler plugin gives it a copy of the terminal's stderr, so every crash a
    test provokes on purpose printed its traceback in the middle of the test run's output)."""
    if faulthandler.is_enabled():
        faulthandler.enable(file=2, all_threads=True)


def kill_group(pid: int) -> None:
    """SIGKILL the process group ``pid`` leads, and ``pid`` itself; gone already is fine.
    Call it before reaping ``pid``: an unreaped child keeps its id (and its group's) from being
    given to an unrelated process."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def exited(pid: int, timeout: float | None) -> bool:
    """Wait up to ``timeout`` seconds (None: no limit) for child ``pid`` to exit, without
    reaping it (see ``kill_group``). True once it has exited."""
    until = None if timeout is None else time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:
            return True  # reaped already (by whoever owns it)
        if until is not None and time.monotonic() >= until:
            return False
        time.sleep(pause if until is None else max(0.0, min(pause, until - time.monotonic())))
        pause = min(pause * 2, 0.05)


def start() -> None:
    """Start the watchdog once per process and put its token in this process's environment,
    so every child started from now on (and everything they start, forked or not) carries it.
    Called before forking workers, and by the CLI before any command runs."""
    global _watchdog, _watchdog_fd
    with _lock:
        if _watchdog is not None and _watchdog_fd is not None:
            return
        token = uuid.uuid4().hex
        read_fd, write_fd = os.pipe()
        _watchdog = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCHDOG, TOKEN_ENV, token], stdin=read_fd,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
            env={k: v for k, v in os.environ.items() if k != TOKEN_ENV},
        )
        os.close(read_fd)
        _watchdog_fd = write_fd
        os.environ[TOKEN_ENV] = token


def watchdog_pid() -> int | None:
    """The watchdog's pid once started (tests look for it)."""
    return _watchdog.pid if _watchdog is not None else None


def popen(argv: Sequence[str], *, memory_mb: float | None = None, env: Mapping[str, str] | None = None,
          **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen`` for a supervised child (see ``preexec``). ``env`` is its whole
    environment (default: this process's); the watchdog's token is added to it either way."""
    start()
    full = dict(os.environ if env is None else env)
    full[TOKEN_ENV] = os.environ[TOKEN_ENV]
    return subprocess.Popen(list(argv), env=full, preexec_fn=preexec(memory_mb), **kwargs)


@dataclass(frozen=True)
class Finished:
    """How a supervised child ended: exit code (negative: the signal), captured output (capped),
    whether the deadline killed it."""

    code: int
    stdout: bytes
    stderr: bytes
    timed_out: bool
    dropped: int = 0

    def tail(self, limit: int = 1500) -> str:
        return (self.stdout + self.stderr).decode("utf-8", "replace").strip()[-limit:]

    def how(self) -> str:
        if self.timed_out:
            return "killed at its deadline"
        return f"killed by {ended_by(self.code)}" if self.code < 0 else ended_by(self.code)


class _Capped:
    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.dropped = 0

    def drain(self, stream: Any) -> None:
        for chunk in iter(lambda: stream.read1(1 << 16), b""):
            room = self.cap - len(self.data)
            self.data += chunk[:max(room, 0)]
            self.dropped += max(len(chunk) - max(room, 0), 0)


def run(argv: Sequence[str], *, timeout: float, cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None, shell: bool = False, stdin: bytes | None = None,
        cap: int = OUTPUT_CAP, memory_mb: float | None = None) -> Finished:
    """Run a child to its end under a deadline, output captured up to ``cap`` bytes a stream.
    On timeout, on Ctrl-C and on SIGTERM its whole process group is killed before returning
    (or re-raising)."""
    args: Sequence[str] = ["/bin/sh", "-c", argv[0]] if shell else argv
    proc = popen(args, memory_mb=memory_mb, env=env, cwd=cwd, stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
    out, err = _Capped(cap), _Capped(cap)
    readers = [threading.Thread(target=c.drain, args=(s,), daemon=True)
               for c, s in ((out, proc.stdout), (err, proc.stderr))]
    for t in readers:
        t.start()
    timed_out = False
    try:
        if stdin is not None and proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.write(stdin)
            proc.stdin.close()
        timed_out = not exited(proc.pid, timeout)
    finally:
        kill_group(proc.pid)  # also what the child left behind in its group
        proc.wait()
        for t in readers:
            t.join(timeout=2)
    return Finished(proc.returncode, bytes(out.data), bytes(err.data), timed_out, out.dropped + err.dropped)


_unheard: list[int] = []
"""SIGTERMs raised as ``Terminated`` (and SIGINTs as ``KeyboardInterrupt``) and not yet caught by
whoever stops the work. Python
swallows an exception raised where it cannot propagate (an at-fork hook such as logging's lock
release while a build worker is forked, a ``__del__``: "Exception ignored in ..."); the run
would then go on to wait for its pins. ``raise_unheard`` raises such a one again."""


_holding: list[int] = []
"""SIGTERMs that arrived inside ``held_termination``: raised when its block ends."""
_holds = [0]


def _raise_stop(signum: int, _frame: FrameType | None) -> None:
    """SIGTERM as ``Terminated``, Ctrl-C as Python's own ``KeyboardInterrupt``; each remembered
    (``_unheard``), so one swallowed while a build worker was forked is raised again, and held
    inside ``held_termination``."""
    if signum == signal.SIGTERM:
        signal.signal(signum, signal.SIG_IGN)  # a second SIGTERM must not interrupt the cleanup
    _unheard.append(signum)
    if _holds[0]:
        _holding.append(signum)
        return
    raise _stop(signum)


def _stop(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


@contextlib.contextmanager
def held_termination() -> Iterator[None]:
    """Within: a SIGTERM waits until the block is over, then raises ``Terminated``. For work that
    must be whole or not at all when a run stops: a finished unit's row written and counted
    (a partial report saying 10 units done beside 11 rows was the signal landing between the two)."""
    _holds[0] += 1
    try:
        yield
    finally:
        _holds[0] -= 1
    if not _holds[0] and _holding:
        raise _stop(_holding.pop())


def heard() -> None:
    """The caller caught ``Terminated`` (or ``KeyboardInterrupt``) and is stopping: nothing is
    left unheard."""
    _unheard.clear()


def raise_unheard() -> None:
    """Raise ``Terminated`` again for a SIGTERM whose first raise was swallowed (see ``_unheard``),
    ``KeyboardInterrupt`` for a SIGINT."""
    if _unheard:
        raise _stop(_unheard[0])


@contextlib.contextmanager
def terminating() -> Iterator[None]:
    """Within: SIGTERM raises ``Terminated`` in the main thread (outside it: no change); the
    watchdog is running."""
    start()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _unheard.clear()  # a SIGTERM of an earlier command in this process is not this one's
    _holding.clear()
    before = signal.signal(signal.SIGTERM, _raise_stop)
    # Ctrl-C likewise, unless someone installed a handler of their own
    interrupt = signal.getsignal(signal.SIGINT)
    if interrupt is signal.default_int_handler:
        signal.signal(signal.SIGINT, _raise_stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
        if interrupt is signal.default_int_handler:
            signal.signal(signal.SIGINT, interrupt)
        _unheard.clear()
        _holding.clear()

