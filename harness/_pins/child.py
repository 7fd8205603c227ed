"""The pytest child of the pin stage, for a suite's Python pins only.

A child process, because Python pins call pipelines in-process (a pipeline that kills its
process must end one pytest run, not the harness) and because they are pytest tests, with
pytest's fixtures, parametrization, plugins and collection rules. It collects no case file
(``--harness-case-files=off``): the harness evaluates those itself (``harness._pins.inproc``),
unless a conftest.py may act on their items (``collect.item_hooks``): then it runs them all.

The child is a fork of the harness running ``pytest.main``, not a new interpreter: it starts
with the harness's modules imported and the suite loaded, so it pays only for pytest, its
plugins and the Python pins themselves. ``harness run`` forks it before the build stage: pytest
starts and collects while the pipelines run, and its pins run as soon as the observations they
read are spooled (``harness._pins.gate``); ``go()`` says the build is over. Installed pytest
plugins load as in plain pytest (pytest's ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` turns that off; the
harness's own plugin is named with ``-p`` either way). Its own process group, ended whole at
the stage's deadline (counted from ``go()``) or when the harness stops.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._common import supervise
from harness._common.files import import_roots
from harness._errors import InputError, Place
from harness._model import Side, Suite
from harness._pins import cache
from harness._pins.ids import node_root
from harness._provision.matrix import pins_option

__all__ = ["GO", "STREAM", "ChildRun", "Gate", "PythonPins", "StageOptions"]

GO = b"g"
"""What the harness writes to the gate once the build is over."""

STREAM = b"s"
"""What starts the line (``STREAM``, the pins.jsonl path, newline) the harness writes to the gate
once the run folder exists, for a child started before it (``PythonPins.start(stream_later=True)``)."""


@dataclass(frozen=True)
class Gate:
    """How the child's pins get their observations (``harness._pins.gate``): the pipe's read
    end, which says ``GO`` when the build stage is over; the spool the harness writes them to as
    units finish (None: ``--harness-observations`` names a store); the run's pins.jsonl, each
    outcome appended to it; whether that path comes later, through the pipe (``STREAM``)."""

    fd: int
    spool: Path | None = None
    stream: Path | None = None
    awaits_stream: bool = False


@dataclass(frozen=True)
class StageOptions:
    """What the pin stage was asked for (``run_pins``'s arguments), as the child needs them."""

    against: Side = "new"
    timeout: float = 1800
    observations: Path | None = None
    pin_set: str | None = None
    revisions: Mapping[str, str] | None = None
    cases: Sequence[str] | None = None
    lanes: Sequence[str] | None = None


@dataclass(frozen=True)
class ChildRun:
    """What the child reported: one ``{"id", "outcome", "message"}`` per item, pytest's exit
    code, and what it printed last when it could not run (else None)."""

    results: list[dict[str, Any]]
    code: int
    problem: str | None


def _arguments(suite: Suite, folder: Path, opts: StageOptions, case_files: bool) -> list[str]:
    # node ids relative to the project root, as `harness mutate` and plain pytest there name them;
    # the user's addopts (-n 2, --lf...) would change what runs and who writes the results file
    cmd = [str(Path(suite.root)), "-p", "harness.pins.plugin", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
           "--tb=no", "--no-header", f"--rootdir={node_root(suite)}", "--harness-isolate",
           f"--harness-against={opts.against}", f"--harness-results={folder / 'results.jsonl'}",
           "--harness-rejections=off", f"--harness-case-files={'on' if case_files else 'off'}"]
    if opts.pin_set:
        cmd += [f"--harness-pins={opts.pin_set}", f"--harness-known-ids={folder / 'known.txt'}"]
    if case_files:  # the globs only limit case files
        cmd += _limits(opts)
    if opts.observations is not None:  # a store folder; else the gate hands the spool over
        cmd.append(f"--harness-observations={opts.observations}")
    if opts.revisions:  # the pins' own pipeline calls play the same revisions
        cmd.append("--harness-revisions=" + ",".join(f"{side}:{sha}" for side, sha in sorted(opts.revisions.items())))
    return cmd + pins_option(suite)  # a version matrix: every pair's pins, not only the declared pair's


def _limits(opts: StageOptions) -> list[str]:
    return ([f"--harness-cases={','.join(opts.cases)}"] if opts.cases else []) + \
        ([f"--harness-lanes={','.join(opts.lanes)}"] if opts.lanes else [])


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


def _pytest_here(suite: Suite, args: list[str], output: Path, gate: Gate, parent: int,
                 revisions: Mapping[str, str] | None = None) -> int:
    """In the forked child: become a plain pytest process for ``args`` and run it."""
    os.setpgid(0, 0)  # its own group: ended whole, with what its pins start
    supervise.forked_child(parent)
    for signum in (signal.SIGTERM, signal.SIGINT):  # the harness's handlers unwind the harness, not this
        signal.signal(signum, signal.SIG_DFL)
    out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    devnull = os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((out, 1), (out, 2), (devnull, 0)):
        os.dup2(fd, target)
    # the streams too: the harness's may not be on those descriptors (a caller capturing them)
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    os.chdir(node_root(suite))
    os.environ.pop("PYTEST_ADDOPTS", None)
    # the suite folder and the project root importable, here and in any interpreter a pin
    # starts, as PYTHONPATH made them
    sys.path.insert(0, suite.root)
    roots = [suite.root, *map(str, import_roots(Path(suite.root)))]
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [*roots, os.environ.get("PYTHONPATH")]))
    cache.adopt(suite, revisions)  # loaded at the revisions pytest's --harness-revisions will name
    # pytest collects garbage at the end of the session; the harness's heap, inherited, is no
    # garbage: left out of every collection, it is neither walked nor copied page by page
    gc.freeze()
    import pytest

    from harness._pins.gate import GatePlugin

    return int(pytest.main(args, plugins=[GatePlugin(gate)]))


class PythonPins:
    """``start()`` the child (pytest starts up, collects, and runs each pin once the
    observations it reads are there), ``go()`` once the build is over, ``finish()`` to wait for
    it (within the stage's
    deadline, counted from ``go``) and read what it reported; ``stop()`` (also part of
    ``finish``) ends its whole process group."""

    def __init__(self, suite: Suite, folder: Path, known_ids: Sequence[str], case_files: bool = False) -> None:
        """``case_files``: collect the case files too (every item through pytest; ``known_ids``
        is then empty)."""
        self.suite, self.folder = suite, folder
        self.known_ids, self.case_files = known_ids, case_files
        self.pid: int | None = None
        self.code: int | None = None
        self.deadline = 0.0
        self.timeout = 0.0
        self._go: int | None = None  # the gate's write end, until go()

    def start(self, opts: StageOptions, spool: Path | None = None, stream: Path | None = None,
              stream_later: bool = False) -> None:
        """Fork the child. ``spool``: where its observations are written as units finish
        (else ``opts.observations``); ``stream``: the run's pins.jsonl, each outcome appended;
        ``stream_later``: that path is given by ``attach`` (pytest starts up and collects
        meanwhile, but runs no pin before it)."""
        (self.folder / "known.txt").write_text("".join(f"{n}\n" for n in self.known_ids), encoding="utf-8")
        args = _arguments(self.suite, self.folder, opts, self.case_files)
        supervise.start()  # before the fork: the child and what it starts carry the watchdog's token
        parent = os.getpid()
        wait_fd, self._go = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 3  # pytest's "internal error", should anything below raise
            try:
                os.close(self._go)
                gate = Gate(wait_fd, spool, stream, stream_later)
                code = _pytest_here(self.suite, args, self.folder / "output.txt", gate, parent, opts.revisions)
            finally:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)
        os.close(wait_fd)
        self.pid = pid
        self.timeout = opts.timeout

    def attach(self, stream: Path) -> None:
        """Where the child's outcomes go, now the run folder exists (``start(stream_later=True)``)."""
        if self._go is not None:
            with contextlib.suppress(BrokenPipeError):  # it ended already (pytest could not start)
                os.write(self._go, STREAM + os.fsencode(stream) + b"\n")

    def go(self) -> None:
        """The observations are there: let the pins run, and start their deadline."""
        if self._go is not None:
            with contextlib.suppress(BrokenPipeError):  # it ended already (pytest could not start)
                os.write(self._go, GO)
            os.close(self._go)
            self._go = None
            self.deadline = time.monotonic() + self.timeout

    def stop(self) -> None:
        """End the child (and its group) now; harmless once it has ended."""
        if self._go is not None:
            os.close(self._go)
            self._go = None
        if self.pid is not None and self.code is None:
            supervise.kill_group(self.pid)  # before reaping: see supervise.kill_group
            _, status = os.waitpid(self.pid, 0)
            self.code = os.waitstatus_to_exitcode(status)

    def finish(self) -> ChildRun:
        assert self.pid is not None
        self.go()
        try:
            timed_out = not supervise.exited(self.pid, max(0.0, self.deadline - time.monotonic()))
        finally:
            self.stop()
        code = self.code
        assert code is not None
        results = _read_results(self.folder / "results.jsonl")
        if code in (0, 1, 5) and not timed_out:  # 2-4: pytest itself could not run (collection, usage)
            return ChildRun(results, code, None)
        return ChildRun(results, code, self._problem(code, timed_out))

    def _problem(self, code: int, timed_out: bool) -> str:
        """What the child printed last, and how it ended when it was killed."""
        output = (self.folder / "output.txt").read_bytes()[-20000:].decode("utf-8", "replace")
        _refused_set(output)
        tail = output.strip().splitlines()[-15:]
        how = ("killed at its deadline" if timed_out else f"killed by signal {signal.Signals(-code).name}"
               if code < 0 else "")
        return "\n".join([*tail, *([f"(the pins' pytest was {how})"] if how else [])])
