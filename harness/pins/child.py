"""The pytest child of the pin stage, for a suite's Python pins only.

A child process, because Python pins call pipelines in-process (a pipeline that kills its
process must end one pytest run, not the harness) and because they are pytest tests, with
pytest's fixtures, parametrization and collection rules. It collects no case file
(``--harness-case-files=off``): the harness evaluates those itself (``harness.pins.inproc``).
It is started before the harness evaluates the case-file items and waited for after, so the
two run side by side.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import supervise
from harness.errors import InputError, Place
from harness.model import Side, Suite
from harness.pins.ids import node_root

__all__ = ["ChildRun", "PythonPins"]


@dataclass(frozen=True)
class ChildRun:
    """What the child reported: one ``{"id", "outcome", "message"}`` per item, pytest's exit
    code, and what it printed last when it could not run (else None)."""

    results: list[dict[str, Any]]
    code: int
    problem: str | None


def _command(suite: Suite, against: Side, folder: Path, observations: Path | None,
             pin_set: str | None, revisions: Mapping[str, str] | None) -> list[str]:
    # node ids relative to the project root, as `harness mutate` and plain pytest there name them;
    # the user's addopts (-n 2, --lf...) would change what runs and who writes the results file
    cmd = [sys.executable, "-m", "pytest", str(Path(suite.root)), "-p", "harness.pins.plugin", "-p",
           "no:cacheprovider", "-o", "addopts=", "-q", "--tb=no", "--no-header", f"--rootdir={node_root(suite)}",
           "--harness-isolate", f"--harness-against={against}", f"--harness-results={folder / 'results.jsonl'}",
           "--harness-rejections=off", "--harness-case-files=off"]
    if pin_set:
        cmd += [f"--harness-pins={pin_set}", f"--harness-known-ids={folder / 'known.txt'}"]
    if observations is not None:
        cmd.append(f"--harness-observations={observations}")
    if revisions:  # the pins' own pipeline calls play the same revisions
        cmd.append("--harness-revisions=" + ",".join(f"{side}:{sha}" for side, sha in sorted(revisions.items())))
    return cmd


_SET_ERROR = re.compile(r"(suite\.yaml) at (pin_sets\.\S+?): expected (.+?), found (.+)$", re.M)


def _refused_set(output: str) -> None:
    """A pin set naming no collected pin is found only once the child has collected: it is the
    user's bad input (exit 2, naming the reference), not a failing pin."""
    found = _SET_ERROR.search(output)
    if found:
        raise InputError(Place(found[1], None, found[2]), found[3], found[4].strip())


def _read_results(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [{"id": r["nodeid"], "message": r["message"],
             "outcome": r["outcome"] if r["when"] == "call" or r["outcome"] != "failed" else "error"}
            for r in map(json.loads, lines)]


class PythonPins:
    """``start()`` the child, ``finish()`` to wait for it (within the stage's deadline) and
    read what it reported; ``finish`` always ends the child's whole process group."""

    def __init__(self, suite: Suite, folder: Path, known_ids: Sequence[str]) -> None:
        self.suite, self.folder = suite, folder
        self.known_ids = known_ids
        self.proc: subprocess.Popen[bytes] | None = None
        self.deadline = 0.0

    def start(self, against: Side, timeout: float, observations: Path | None, pin_set: str | None,
              revisions: Mapping[str, str] | None) -> None:
        (self.folder / "known.txt").write_text("".join(f"{n}\n" for n in self.known_ids), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [self.suite.root,
                                                                         os.environ.get("PYTHONPATH")]))}
        env.pop("PYTEST_ADDOPTS", None)
        command = _command(self.suite, against, self.folder, observations, pin_set, revisions)
        with (self.folder / "output.txt").open("wb") as output:
            # supervised: the child and every fork it makes end with the harness or at the deadline
            self.proc = supervise.popen(command, env=env, cwd=str(node_root(self.suite)), stdout=output,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.deadline = time.monotonic() + timeout

    def stop(self) -> None:
        """End the child (and its group) now; harmless once it has ended."""
        if self.proc is not None and self.proc.returncode is None:
            supervise.kill_group(self.proc.pid)
            self.proc.wait()

    def finish(self) -> ChildRun:
        assert self.proc is not None
        try:
            timed_out = not supervise.exited(self.proc.pid, max(0.0, self.deadline - time.monotonic()))
        finally:
            self.stop()
        code = self.proc.returncode
        results = _read_results(self.folder / "results.jsonl")
        if code in (0, 1, 5) and not timed_out:  # 2-4: pytest itself could not run (collection, usage)
            return ChildRun(results, code, None)
        output = (self.folder / "output.txt").read_bytes()[-20000:].decode("utf-8", "replace")
        _refused_set(output)
        tail = output.strip().splitlines()[-15:]
        how = ("killed at its deadline" if timed_out else f"killed by signal {signal.Signals(-code).name}"
               if code < 0 else "")
        return ChildRun(results, code, "\n".join([*tail, *([f"(the pins' pytest was {how})"] if how else [])]))
