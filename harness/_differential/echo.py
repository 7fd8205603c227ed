"""What pipelines print in the build workers, passed on to the harness's stderr line by line
through the report redactor: a pipeline that prints a key does not put it on the terminal or
in a CI log.

Every worker's stdout and stderr are one pipe, read by a thread of the harness (``Echo``).
When the build ends the workers are gone, but a process a pipeline started may still hold the
pipe open (a server it left running, a runaway the watchdog ends later), and the pipe then
never reaches its end. So the pump is not ended by the pipe's end: ``close`` has it pass on
what is in the pipe at that moment (all the workers wrote: they are gone) and stop, however
much such a process goes on writing; the end of a build, and a stop by Ctrl-C or SIGTERM, are
not held up by it. What it writes after that meets a pipe nobody reads (EPIPE, or SIGPIPE,
which ends it unless it ignores it), as writing to a closed terminal would.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import os
import select
import sys
import termios
import threading
from collections.abc import Callable

__all__ = ["Echo"]

_CHUNK = 1 << 16


class Echo:
    """The workers' output pipe (``write_fd``, for the workers) and the thread echoing it;
    ``out`` takes each line (by default: redacted, to this process's stderr)."""

    def __init__(self, out: Callable[[bytes], None] | None = None) -> None:
        self.out = out or _echo
        self.read_fd, self.write_fd = os.pipe()
        self._stop_read, self._stop_write = os.pipe()
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        lines = _Lines(self.out)
        poller = select.poll()  # not select(): a harness with many pipes open may hold fds past 1024
        for fd in (self.read_fd, self._stop_read):
            poller.register(fd, select.POLLIN)
        try:
            while True:
                ready = {fd for fd, _ in poller.poll()}
                if self._stop_read in ready:
                    _drain(self.read_fd, _waiting(self.read_fd), lines)  # what is there now, then stop
                    return
                chunk = os.read(self.read_fd, _CHUNK)
                if not chunk:
                    return  # every writer is gone (not before close(): it holds the pipe open)
                lines.feed(chunk)
        finally:
            try:
                lines.flush()
            finally:  # the pipes are closed even when the echo itself failed
                os.close(self.read_fd)
                os.close(self._stop_read)

    def close(self) -> None:
        """After the workers ended: pass on what they wrote, then stop. The stop is asked while
        this end still holds the pipe open, so the pump ends by the stop, never at the pipe's
        end, and reads what the pipe holds first."""
        try:
            with contextlib.suppress(OSError):  # a pump that died closed its end: nothing to stop
                os.write(self._stop_write, b"x")
            self.thread.join(timeout=5)
        finally:
            os.close(self.write_fd)
            os.close(self._stop_write)


class _Lines:
    """Bytes as they arrive, echoed a whole line at a time; each byte is looked at twice at
    most, however long a line runs before its newline."""

    def __init__(self, out: Callable[[bytes], None]) -> None:
        self.out = out
        self.pending = bytearray()

    def feed(self, chunk: bytes) -> None:
        end = chunk.rfind(b"\n")
        if end < 0:
            self.pending += chunk
            return
        self.pending += chunk[:end]
        for line in self.pending.split(b"\n"):
            self.out(bytes(line) + b"\n")
        self.pending = bytearray(chunk[end + 1:])

    def flush(self) -> None:
        if self.pending:
            self.out(bytes(self.pending))  # a last line without its newline
            self.pending = bytearray()


def _waiting(fd: int) -> int:
    """How many bytes the pipe holds now."""
    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count)
    return count[0]


def _drain(fd: int, count: int, lines: _Lines) -> None:
    """Read exactly the ``count`` bytes the pipe held (a writer that goes on adds no more)."""
    while count > 0:
        chunk = os.read(fd, min(count, _CHUNK))
        if not chunk:
            return
        count -= len(chunk)
        lines.feed(chunk)


def _echo(raw: bytes) -> None:
    from harness._common.redact import redactor  # imported by the thread: the pool's start does not wait for it

    text = redactor().text(raw.decode("utf-8", "replace"))
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(text)
        sys.stderr.flush()
