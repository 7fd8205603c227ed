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
    for name in [m for m in sys.modules if (m + ".").startswith(module + ".")]:
        del sys.modules[name]
    try:
        importlib.import_module(module)
    except BaseException as exc:  # anything the module raises is the user's to read, in one line
        os.write(write_fd, b"error:" + f"{type(exc).__name__}: {exc}".encode()[:2000])
        return
    os.write(write_fd, b"ok")


def _forked(module: str, read_fd: int, write_fd: int) -> int:
    """The child that imports ``module`` and writes how that went; its pid."""
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
    return pid


def _answer(read_fd: int, timeout: float) -> bytes | None:
    """Everything the child wrote, or None when it wrote no end within ``timeout``."""
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([read_fd], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            return None
        chunk = os.read(read_fd, 4096)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _ended(pid: int) -> int:
    """Reap the child, after ending what its import started and left in its group; its status."""
    supervise.kill_group(pid)
    return os.waitpid(pid, 0)[1]


def _meaning(module: str, answer: bytes, status: int) -> str | None:
    if answer == b"ok":
        return None
    if answer.startswith(b"error:"):
        return f"cannot import {module}: {answer[6:].decode(errors='replace')}"
    return f"importing {module} ended its process ({supervise.ended_by(os.waitstatus_to_exitcode(status))})"


def probe_import(module: str, timeout: float) -> str | None:
    """None when ``module`` imports cleanly in a child; otherwise a sentence saying how it failed."""
    supervise.start()
    read_fd, write_fd = os.pipe()
    pid = _forked(module, read_fd, write_fd)
    os.close(write_fd)
    try:
        answer = _answer(read_fd, timeout)
    except BaseException:  # Ctrl-C or SIGTERM while a module imports: the probe goes too
        _ended(pid)
        raise
    finally:
        os.close(read_fd)
    if answer is None:
        _ended(pid)
        return f"importing {module} did not finish within {timeout:g} s"
    supervise.exited(pid, None)
    return _meaning(module, answer, _ended(pid))
