"""The differential as it is made: each finished case x lane's row, redacted, to disk at once.

``differential.jsonl`` in the run folder gets a report row per finished unit the moment it
finishes (the file grows during the run, and an interrupted run keeps it); only counts stay in
memory. report.json's ``differential`` is that file read back in suite order. In a run the row is
made and redacted by the build worker that ran the unit (``line``), and written here as it came.

Which rows carry deepdiff's diff must not depend on the order workers finish in (report.json is
deterministic): the first ``DETAIL_LIMIT`` failing divergences *in suite order* do. So the stream
keeps the unit results of the lowest-placed failing divergences seen so far, at most
``DETAIL_LIMIT`` of them, and ``finish`` rewrites those rows with deepdiff's view.
"""

from __future__ import annotations

import copy
import heapq
from collections import Counter
from pathlib import Path
from typing import cast

from harness._common.redact import redactor
from harness._differential import UnitResult
from harness._report.assemble import DETAIL_LIMIT, deep_candidate, differential_row
from harness._report.sections import EvidenceLinks, Row
from harness._report.stream import OrderedLines, line

__all__ = ["INDEX", "DifferentialStream"]

INDEX = "differential.jsonl"


class DifferentialStream:
    """Rows to ``<run>/differential.jsonl`` as units finish; counts and the deepdiff candidates in memory."""

    def __init__(self, folder: Path, slots: int) -> None:
        self.rows: OrderedLines[Row] = OrderedLines(folder / INDEX, slots)
        self.verdicts: Counter[str] = Counter()
        self.failed = 0
        self.subjects: set[str] = set()
        self._deep: list[tuple[int, int, UnitResult, EvidenceLinks]] = []  # a max-heap by slot (negated)

    @staticmethod
    def line(res: UnitResult, links: EvidenceLinks) -> bytes:
        """The unit's row as ``put`` writes it, redacted: a build worker makes it beside the
        pipelines (the runner's ``prepare``), so the parent need not walk every row's strings."""
        return line(redactor().value(differential_row(res, links)))

    def put(self, slot: int, res: UnitResult, links: EvidenceLinks, made: bytes | None = None) -> None:
        """One finished unit (``slot``: its place in the suite), written redacted; ``made``: its
        ``line`` with these very links, when a worker made it."""
        v = res.verdict
        assert v is not None
        if made is None:
            self._write(slot, differential_row(res, links))
        else:
            self.rows.put_line(slot, made)
        self.verdicts[v.kind] += 1
        self.failed += v.failed
        self.subjects.add(res.unit.subject.name)
        if deep_candidate(res):
            heapq.heappush(self._deep, (-slot, slot, copy.copy(res), links))  # the caller lets res go
            if len(self._deep) > DETAIL_LIMIT:
                heapq.heappop(self._deep)  # the highest-placed one: it is not among the first

    def _write(self, slot: int, row: Row) -> None:
        # before anything is written: no secret reaches the run folder
        self.rows.put(slot, cast(Row, redactor().value(row)))

    def finish(self) -> OrderedLines[Row]:
        """Give the first DETAIL_LIMIT failing divergences deepdiff's diff; the rows, in suite order."""
        for _, slot, res, links in sorted(self._deep, key=lambda item: item[1]):
            self._write(slot, differential_row(res, links, deep=True))
        self._deep.clear()
        self.rows.close()
        return self.rows
