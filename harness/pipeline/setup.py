"""A side's ``setup`` command (``cargo build --release``, ``npm ci``), run once before its first
call, in the parent process, so forked workers never run it twice.

A setup that fails is bad configuration: SubjectError naming the command, its exit status and the
tail of its output; nothing is built with a half-made pipeline.
"""

from __future__ import annotations

import subprocess

from harness.errors import SubjectError
from harness.model import PipelineSpec

__all__ = ["SETUP_TIMEOUT_S", "prepare"]

SETUP_TIMEOUT_S = 1800.0
_done: set[tuple[str | None, str]] = set()


def prepare(spec: PipelineSpec) -> None:
    """Run ``spec.setup`` in its folder unless this process already did."""
    if not spec.setup:
        return
    where = spec.cwd or spec.root
    key = (where, spec.setup)
    if key in _done:
        return
    try:
        proc = subprocess.run(spec.setup, shell=True, cwd=where, capture_output=True, text=True,
                              timeout=SETUP_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SubjectError(f"setup {spec.setup!r} in {where}: no end within {SETUP_TIMEOUT_S:g} s") from None
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip()[-1500:]
        raise SubjectError(f"setup {spec.setup!r} in {where} failed with exit code {proc.returncode}: {tail}")
    _done.add(key)
