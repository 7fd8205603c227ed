"""What pipelines print in the build workers, passed on to the harness's stderr line by line
through the report redactor: a pipeline that prints a key does not put it on the terminal or
in a CI log.

Every worker's stdout and stderr are one pipe, read by a thread of the harness (``Echo``).
When the build ends the workers are gone, but a process a pipeline started may still hold the
pipe open (a server it left running, a runaway the watchdog ends later), and the pipe then
never reaches its end. So the pump is not ended by the pipe's end: ``close`` passes on what the
workers wrote and stops reading, without waiting for that process (the end of a build, and a
stop by Ctrl-C or SIGTERM, are not held up by it).
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading

__all__ = ["Echo"]


class Echo:
    """The workers' output pipe (``write_fd``, for the workers) and the thread echoing it."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self._stop_read, self._stop_write = os.pipe()
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        pending = b""
        stopping = False
        try:
            while True:
                watched = [self.read_fd] if stopping else [self.read_fd, self._stop_read]
                ready, _, _ = select.select(watched, [], [], 0 if stopping else None)
                if self.read_fd in ready:
                    chunk = os.read(self.read_fd, 1 << 16)
                    if not chunk:
                        break  # every writer is gone (not before close(): it holds the pipe open)
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        _echo(line + b"\n")
                    continue  # what is in the pipe is passed on before a stop is heeded
                if stopping:
                    break  # stopped, and nothing more to read
                stopping = True
        finally:
            if pending:
                _echo(pending)  # a last line without its newline
            os.close(self.read_fd)
            os.close(self._stop_read)

    def close(self) -> None:
        """After the workers ended: pass on what they wrote, then stop. The stop is asked while
        this end still holds the pipe open, so the pump ends by the stop alone, never at the
        pipe's end, and reads everything in the pipe first: the workers are gone, so all they
        wrote is there."""
        os.write(self._stop_write, b"x")
        self.thread.join(timeout=5)
        os.close(self.write_fd)
        os.close(self._stop_write)


def _echo(raw: bytes) -> None:
    from harness._common.redact import redactor  # imported by the thread: the pool's start does not wait for it

    text = redactor().text(raw.decode("utf-8", "replace"))
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(text)
        sys.stderr.flush()
