"""The build stage's observations, exact bytes, for a run's Python pins: two files, read lazily.

The Python pins' pytest child may observe any case x lane, so during ``harness run`` every
observation is kept for it, as the pipeline made it (a pin must see the real bytes; the run
folder's evidence is scrubbed). Not as a store of one file per body (``harness._evidence``):
at ~1,500 observations creating and then deleting those files cost more wall time than the
pins themselves. Here every body is appended to ``bodies.bin`` and one index line per
observation to ``index.jsonl``; the reader maps (case, lane, side) to an Observation and reads
a body only when a pin asks for that observation. Only a suite with Python pins gets a spool.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from harness._model import ErrorInfo, Observation

__all__ = ["Spool", "SpoolReader"]

_BODIES, _INDEX = "bodies.bin", "index.jsonl"


class Spool:
    """Appends observations to ``folder``; ``close()`` before a reader opens it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._bodies: IO[bytes] = (folder / _BODIES).open("ab")
        self._index: IO[str] = (folder / _INDEX).open("a", encoding="utf-8")
        self._end = 0

    def put(self, observations: Iterable[Observation]) -> None:
        for obs in observations:
            self._index.write(json.dumps(self._line(obs)) + "\n")

    def _line(self, obs: Observation) -> dict[str, Any]:
        """``obs``'s index line; its body appended to the bodies file."""
        line: dict[str, Any] = {"c": obs.case_id, "l": obs.lane_id, "s": obs.side, "o": obs.outcome,
                                "d": obs.duration_s}
        if obs.wire is not None:
            self._bodies.write(obs.wire)
            line["at"], line["n"] = self._end, len(obs.wire)
            self._end += len(obs.wire)
        if obs.error is not None:
            line["e"] = [obs.error.type, obs.error.message, obs.error.where]
        return line

    def close(self) -> None:
        self._bodies.close()
        self._index.close()


class SpoolReader(Mapping[tuple[str, str, str], Observation]):
    """A spool's observations by (case, lane, side); the last one written wins for a key."""

    def __init__(self, folder: Path) -> None:
        self._lines: dict[tuple[str, str, str], dict[str, Any]] = {}
        with (folder / _INDEX).open(encoding="utf-8") as index:
            for raw in index:
                line = json.loads(raw)
                self._lines[(line["c"], line["l"], line["s"])] = line
        self._fd = os.open(folder / _BODIES, os.O_RDONLY)

    def __getitem__(self, key: tuple[str, str, str]) -> Observation:
        line = self._lines[key]
        wire = os.pread(self._fd, line["n"], line["at"]) if "at" in line else None
        error = ErrorInfo(*line["e"]) if "e" in line else None
        return Observation(line["c"], line["l"], line["s"], line["o"], wire=wire, error=error,
                           duration_s=line["d"])

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)
