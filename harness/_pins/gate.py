"""In the Python pins' pytest child only (it imports pytest): how its pins get the build's
observations, and where their outcomes go.

``harness run`` forks that child before its input checks and the build stage, so pytest's start
(its import, its plugins, collecting the suite's Python pins) runs beside them instead of after,
and so do the pins: they read the spool as the harness writes it (``harness._pins.spool``), a
pin asking for an observation not made yet waiting for it, until the harness writes ``GO`` to
the gate (the build is over; a closed gate says the same). No pin runs before the harness has
said where outcomes go (``STREAM`` and the path, once the run folder exists: a run stopped by
bad input before that leaves no folder behind).

Each outcome is also appended to the run folder's ``pins.jsonl`` as it is made, in the report's
own shape (``{"id", "outcome", "message"}``), beside the ones the harness evaluated itself: a
killed run keeps every outcome finished so far.
"""

from __future__ import annotations

import json
import os
import select
import sys
from pathlib import Path

import pytest

from harness._pins import cache
from harness._pins.child import STREAM, Gate
from harness._pins.results import result_line
from harness._pins.spool import SpoolReader

__all__ = ["HYPOTHESIS_PLUGIN", "GatePlugin", "stream_line"]

HYPOTHESIS_PLUGIN = "hypothesispytest"
"""The name hypothesis's pytest plugin is registered under (its ``pytest11`` entry point)."""


def stream_line(line: dict[str, object]) -> bytes:
    """A results-file line as the run's pins.jsonl line: the report's shape, where a setup or
    teardown that failed is an ``error`` of the item (as ``child._read_results`` reads it)."""
    failed_outside_call = line["when"] != "call" and line["outcome"] == "failed"
    outcome = "error" if failed_outside_call else line["outcome"]
    row = {"id": line["nodeid"], "outcome": outcome, "message": line["message"]}
    return (json.dumps(row, ensure_ascii=False) + "\n").encode()


class GatePlugin:
    """The child's own plugin object (``pytest.main(plugins=[...])``): the gate, and the stream."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.over = False
        self.stream: int | None = None
        if gate.stream is not None:
            self._open(gate.stream)

    def _open(self, stream: Path) -> None:
        # O_APPEND, one line per write: the harness appends its own outcomes to the same file
        self.stream = os.open(stream, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        if self.gate.awaits_stream and not self._await_stream():
            return True  # the run ended before it made a folder: no pin to run (pytest's loop skipped)
        if self.gate.spool is not None:  # else --harness-observations names a store, complete already
            cache.use_saved(SpoolReader(self.gate.spool, self._build_over))
        return None  # pytest's own loop runs the pins

    def _await_stream(self) -> bool:
        """Before the first pin: the line saying where outcomes go (``STREAM`` path newline),
        sent once the harness has made the run folder. False when the gate closed first."""
        heard = b""
        while b"\n" not in heard:
            said = self._read(None)
            if not said:  # closed: the run ended before it had a folder
                self.over = True
                return False
            heard += said
        line, _, rest = heard.partition(b"\n")
        if line.startswith(STREAM):
            self._open(Path(os.fsdecode(line[len(STREAM):])))
        self.over = bool(rest)  # GO came in the same read
        return True

    def _read(self, wait: float | None) -> bytes | None:
        """What the gate says within ``wait`` seconds (None: until it speaks): None for silence,
        b"" once the harness has closed it."""
        if not select.select([self.gate.fd], [], [], wait)[0]:
            return None
        return os.read(self.gate.fd, 4096)

    def _build_over(self, wait: float) -> bool:
        """Whether the harness has said the build is over, waiting up to ``wait`` seconds."""
        if not self.over and self._read(wait) is not None:  # GO, or nothing: the harness closed the gate
            self.over = True
        return self.over

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        line = result_line(report) if self.stream is not None else None
        if line is not None and self.stream is not None:
            os.write(self.stream, stream_line(line))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Before the terminal summary: when no pin imported hypothesis, its installed plugin
        has nothing to report (no statistics, no failing examples, no observations written),
        yet its summary hook imports the whole hypothesis package, every module through
        pytest's assertion rewriting (hypothesis 6.170: about a third of this child's CPU on
        the bundled suite, at the end of the run, where it adds to the run's wall time). Its
        other hooks already wait for hypothesis to be imported; this one is left out of the
        summary, through pluggy's public ``unregister``, only while nothing imported it."""
        manager = session.config.pluginmanager
        plugin = manager.get_plugin(HYPOTHESIS_PLUGIN)
        if plugin is not None and "hypothesis" not in sys.modules:
            manager.unregister(plugin)

    def pytest_unconfigure(self) -> None:
        if self.stream is not None:
            os.close(self.stream)
            self.stream = None
