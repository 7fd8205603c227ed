"""Import a user's pipeline module once in a forked child first, so a module that hangs,
exits or crashes at import time is one clear error instead of the end of the harness.

Only code the harness does not ship goes through this (a suite's own subjects); the child
costs a fork and the import, a few milliseconds for an ordinary module.
"""

from __future__ import annotations

import importlib
import os
import select
import sys
import time

from harness._common import supervise

__all__ = ["probe_import"]


def _child(module: str, write_fd: int) -> None:
    # A module this process imported before (another suite's module of the same name) must not
    # stand in for the one on disk now: the probe is about importing it afresh.
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        del sys.modules[name]
    try:
        importlib.import_module(module)
        message = b""
    except BaseException as exc:  # anything the module raises is the user's to read, in one line
        message = f"{type(exc).__name__}: {exc}".encode()[:2000] or b"?"
    os.write(write_fd, b"ok" if not message else b"error:" + message)


def probe_import(module: str, timeout: float) -> str | None:
    """None when ``module`` imports cleanly in a child; otherwise a sentence saying how it failed."""
    supervise.start()
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            supervise.forked_child(parent)
            os.setpgid(0, 0)  # what the module starts at import time is ended with the probe
            _child(module, write_fd)
        finally:
            os._exit(0)
    os.close(write_fd)
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([read_fd], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                supervise.kill_group(pid)
                os.waitpid(pid, 0)
                return f"importing {module} did not finish within {timeout:g} s"
            chunk = os.read(read_fd, 4096)
            if not chunk:
                break
            chunks.append(chunk)
    except BaseException:  # Ctrl-C or SIGTERM while a module imports: the probe goes too
        supervise.kill_group(pid)
        os.waitpid(pid, 0)
        raise
    finally:
        os.close(read_fd)
    supervise.exited(pid, None)
    supervise.kill_group(pid)  # a process the import started and left in the probe's group (before reaping)
    _, status = os.waitpid(pid, 0)
    answer = b"".join(chunks)
    if answer == b"ok":
        return None
    if answer.startswith(b"error:"):
        return f"cannot import {module}: {answer[6:].decode(errors='replace')}"
    return f"importing {module} ended its process ({supervise.ended_by(os.waitstatus_to_exitcode(status))})"
