"""The supervisor's promises, on real processes: deadlines end the whole process group, output
is kept up to a cap, a child set up by ``preexec`` dies with its parent, SIGTERM unwinds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness._common import supervise


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone_within(pid: int, seconds: float) -> bool:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if not _alive(pid):
            return True
        time.sleep(0.02)
    return False


def test_a_child_past_its_deadline_is_killed_with_what_it_started(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    script = f"sleep 60 & echo $! > {pidfile}; wait"
    started = time.monotonic()
    done = supervise.run([script], shell=True, timeout=0.5)
    assert done.timed_out and done.how() == "killed at its deadline"
    assert time.monotonic() - started < 5
    assert _gone_within(int(pidfile.read_text()), 2), "the grandchild in the child's group survived"


def test_output_past_the_cap_is_counted_not_kept() -> None:
    done = supervise.run([sys.executable, "-c", "import sys; sys.stdout.write('x' * 100000)"], timeout=30, cap=1000)
    assert done.code == 0 and done.stdout == b"x" * 1000 and done.dropped == 99000


def test_exit_codes_and_signals_are_told_apart() -> None:
    assert supervise.run(["sh", "-c", "exit 3"], timeout=30).how() == "exit code 3"
    assert supervise.run(["sh", "-c", "kill -SEGV $$"], timeout=30).how() == "killed by signal SIGSEGV"


def test_every_supervised_child_carries_the_watchdogs_token() -> None:
    done = supervise.run([sys.executable, "-c", f"import os; print(os.environ['{supervise.TOKEN_ENV}'])"], timeout=30)
    assert done.stdout.decode().strip() == os.environ[supervise.TOKEN_ENV]
    assert supervise.watchdog_pid() is not None and _alive(supervise.watchdog_pid() or 0)


def test_a_supervised_child_dies_with_its_parent_even_by_sigkill(tmp_path: Path) -> None:
    pidfile = tmp_path / "child"
    parent = subprocess.Popen([sys.executable, "-c", (
        "import subprocess, sys, time\n"
        "from harness._common import supervise\n"
        "p = supervise.popen(['sleep', '60'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n")])
    try:
        until = time.monotonic() + 20
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < until:
            time.sleep(0.02)
        child = int(pidfile.read_text())
        assert _alive(child)
    finally:
        parent.kill()
        parent.wait()
    assert _gone_within(child, 2)


def test_sigterm_inside_terminating_raises_terminated_in_the_main_thread() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(supervise.Terminated) as caught, supervise.terminating():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert caught.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before  # restored on the way out


def test_limit_memory_on_top_turns_a_big_allocation_into_memoryerror() -> None:
    code = ("from harness._common import supervise\n"
            "supervise.limit_memory(100, on_top=True)\n"
            "try:\n    bytearray(400 << 20)\nexcept MemoryError:\n    print('memory')\n"
            "bytearray(20 << 20)\nprint('fine')\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert got.stdout.split() == ["memory", "fine"], got.stderr
