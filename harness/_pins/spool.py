"""The build stage's observations, exact bytes, for a run's Python pins: two files, read lazily.

The Python pins' pytest child may observe any case x lane, so during ``harness run`` every
observation is kept for it, as the pipeline made it (a pin must see the real bytes; the run
folder's evidence is scrubbed). Not as a store of one file per body (``harness._evidence``):
at ~1,500 observations creating and then deleting those files cost more wall time than the
pins themselves. Here every body is appended to ``bodies.bin`` and one index line per
observation to ``index.jsonl``, both flushed as each unit finishes (bodies first: a line never
names bytes not yet written). Only a suite with Python pins gets a spool.

The reader maps (case, lane, side) to an Observation and reads a body only when a pin asks for
it. It reads the spool while the build is still writing it: a pin asking for an observation
not there yet waits for it, until ``ended`` says the build is over (then it is missing for
good: a KeyError, and the pins' cache calls the pipeline, as for any observation not saved).
So the Python pins run as soon as the observations they read exist, beside the build.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
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
        """One unit's observations, on disk for the reader when this returns."""
        lines = [json.dumps(self._line(obs)) + "\n" for obs in observations]
        self._bodies.flush()
        self._index.write("".join(lines))
        self._index.flush()

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
    """A spool's observations by (case, lane, side); the last one written wins for a key.
    ``ended(wait)`` waits up to ``wait`` seconds for the build to end and says whether it has
    (None: the spool is complete already)."""

    def __init__(self, folder: Path, ended: Callable[[float], bool] | None = None) -> None:
        self._lines: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._index = (folder / _INDEX).open("rb")
        self._partial = b""  # a line the writer had not finished
        self._fd = os.open(folder / _BODIES, os.O_RDONLY)
        self._ended = ended
        self._read_new()

    def _read_new(self) -> None:
        *complete, self._partial = (self._partial + self._index.read()).split(b"\n")
        for raw in complete:
            line = json.loads(raw)
            self._lines[(line["c"], line["l"], line["s"])] = line

    def _line(self, key: tuple[str, str, str]) -> dict[str, Any]:
        """``key``'s index line, waiting while the build may still write it."""
        pause = 0.001
        while key not in self._lines:
            over = self._ended is None or self._ended(pause)
            self._read_new()
            if over and key not in self._lines:
                raise KeyError(key)
            pause = min(pause * 2, 0.05)
        return self._lines[key]

    def __getitem__(self, key: tuple[str, str, str]) -> Observation:
        line = self._line(key)
        wire = os.pread(self._fd, line["n"], line["at"]) if "at" in line else None
        error = ErrorInfo(*line["e"]) if "e" in line else None
        return Observation(line["c"], line["l"], line["s"], line["o"], wire=wire, error=error,
                           duration_s=line["d"])

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        self._read_new()
        return iter(list(self._lines))

    def __len__(self) -> int:
        self._read_new()
        return len(self._lines)
