"""In the Python pins' pytest child only (it imports pytest): the gate its pins wait behind.

``harness run`` forks that child before the build stage, so pytest's start (its import, its
plugins, collecting the suite's Python pins) runs beside the build instead of after it. The
pins themselves need the build stage's observations: ``pytest_runtestloop`` (first of its
implementations) waits until the harness writes ``GO`` to the gate, then reads the spool. A
gate closed without ``GO`` (the build stage failed or the run was stopped) ends the session
before any pin runs.

Each outcome is also appended to the run folder's ``pins.jsonl`` as it is made, in the report's
own shape (``{"id", "outcome", "message"}``), beside the ones the harness evaluated itself: a
killed run keeps every outcome finished so far.
"""

from __future__ import annotations

import json
import os

import pytest

from harness._pins import cache
from harness._pins.child import GO, Gate
from harness._pins.results import result_line
from harness._pins.spool import SpoolReader

__all__ = ["GatePlugin", "stream_line"]


def stream_line(line: dict[str, object]) -> bytes:
    """A results-file line as the run's pins.jsonl line: the report's shape, where a setup or
    teardown that failed is an ``error`` of the item (as ``child._read_results`` reads it)."""
    failed_outside_call = line["when"] != "call" and line["outcome"] == "failed"
    outcome = "error" if failed_outside_call else line["outcome"]
    return (json.dumps({"id": line["nodeid"], "outcome": outcome, "message": line["message"]}) + "\n").encode()


class GatePlugin:
    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        # O_APPEND, one write per line: the harness appends its own outcomes to the same file
        self.stream = (os.open(gate.stream, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                       if gate.stream is not None else None)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        with os.fdopen(self.gate.fd, "rb") as gate:
            said = gate.read(len(GO))
        if said != GO:
            pytest.exit("the harness stopped before the observations were made", returncode=3)
        if self.gate.spool is not None:
            cache.use_saved(SpoolReader(self.gate.spool))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        line = result_line(report) if self.stream is not None else None
        if line is not None and self.stream is not None:
            os.write(self.stream, stream_line(line))

    def pytest_unconfigure(self) -> None:
        if self.stream is not None:
            os.close(self.stream)
            self.stream = None
