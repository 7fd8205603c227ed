"""A forked child whose crash the harness records (a build worker, a pin check, a call made in a
fork) reports the crash on its own stderr, not on the file its parent's faulthandler was given:
pytest gives faulthandler a copy of the terminal's stderr, so the crashes tests provoke on
purpose printed "Fatal Python error" tracebacks in the middle of the test run's output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SCRIPT = r"""
import ctypes, faulthandler, os, sys
from harness._common import supervise

elsewhere = open(sys.argv[1], "w")
faulthandler.enable(file=elsewhere)  # as pytest's faulthandler plugin does
parent = os.getpid()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT), 2)  # the child's stderr, as its parent set it
    supervise.forked_child(parent)
    ctypes.string_at(0)  # a segfault, as the toy pipelines provoke
_, status = os.waitpid(pid, 0)
print(os.WTERMSIG(status) if os.WIFSIGNALED(status) else "exited")
"""


def test_a_forked_child_reports_its_crash_on_its_own_stderr_not_where_the_parent_pointed_faulthandler(
        tmp_path: Path) -> None:
    elsewhere, own = tmp_path / "parent-faulthandler.txt", tmp_path / "child-stderr.txt"
    got = subprocess.run([sys.executable, "-c", SCRIPT, str(elsewhere), str(own)], capture_output=True, text=True,
                         timeout=60)
    assert got.stdout.strip() == "11", got.stderr  # SIGSEGV
    assert elsewhere.read_text() == ""
    assert own.read_text().startswith("Fatal Python error: Segmentation fault")
