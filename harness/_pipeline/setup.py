"""A side's ``setup`` command (``cargo build --release``, ``npm ci``), run once before its first
call, in the parent process, so forked workers never run it twice.

A setup that fails is bad configuration: SubjectError naming the command, its exit status and the
tail of its output; nothing is built with a half-made pipeline. The command runs supervised
(``harness._common.supervise``): its whole process tree ends at the deadline, on Ctrl-C and with the
harness. ``stamp``: a file whose existence means "already done" across processes (a revision's
setup is cached by its tree hash, see ``harness._revisions``).
"""

from __future__ import annotations

import os
from pathlib import Path

from harness._common import supervise
from harness._errors import SubjectError
from harness._model import PipelineSpec

__all__ = ["SETUP_TIMEOUT_S", "prepare"]

SETUP_TIMEOUT_S = 1800.0
_done: set[tuple[str | None, str]] = set()


def prepare(spec: PipelineSpec, stamp: Path | None = None) -> None:
    """Run ``spec.setup`` in its folder unless this process (or, with ``stamp``, any run) already
    did. A released version's environment (``package:`` sides) is provisioned first."""
    if spec.requirements:
        from harness._provision import provision

        provision(spec)
    if not spec.setup:
        return
    where = spec.cwd or spec.root
    key = (where, spec.setup)
    if key in _done or (stamp is not None and stamp.is_file()):
        return
    env = {**os.environ, **dict(spec.env)}
    if spec.path:  # the side's own folders first, as its calls will see them
        env["PYTHONPATH"] = os.pathsep.join([*spec.path, *filter(None, [os.environ.get("PYTHONPATH")])])
    done = supervise.run([spec.setup], shell=True, cwd=where, env=env, timeout=SETUP_TIMEOUT_S, cap=64 << 10)
    if done.timed_out:
        raise SubjectError(f"setup {spec.setup!r} in {where}: no end within {SETUP_TIMEOUT_S:g} s")
    if done.code != 0:
        raise SubjectError(f"setup {spec.setup!r} in {where} failed with {done.how()}: {done.tail()}")
    _done.add(key)
    if stamp is not None:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(spec.setup + "\n", encoding="utf-8")
