"""Observations on disk: ``<run>/observations/`` holds every observation the build stage made.

    observations.jsonl     one line per observation: case, lane, side, outcome, error, body digest
    bodies/ab/abcdef....json   the wire bytes, named by their SHA-256 (identical bodies stored once)

Written as the run goes (an interrupted run keeps what it made). The pin stage reads it back
instead of calling every pipeline again, and a reviewer opens it (``harness show``).

A store given a ``scrub`` function passes every body and error message through it before
writing (the run folder's evidence store scrubs with the report redactor: no secret reaches
disk); the pin stage's private store, in a temporary folder, keeps the exact bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from harness.model import ErrorInfo, Observation

__all__ = ["INDEX", "ObservationStore", "load_observations"]

INDEX = "observations.jsonl"


class ObservationStore:
    def __init__(self, folder: Path, scrub: Callable[[str], str] | None = None) -> None:
        self.folder = folder
        self.scrub = scrub
        (folder / "bodies").mkdir(parents=True, exist_ok=True)
        self._index: IO[str] = (folder / INDEX).open("a", encoding="utf-8")

    def body_path(self, digest: str) -> Path:
        return self.folder / "bodies" / digest[:2] / f"{digest}.json"

    def put(self, obs: Observation) -> str | None:
        """Record ``obs``; the digest of its body, or None when it had none."""
        digest = None
        if obs.wire is not None:
            wire = obs.wire
            if self.scrub is not None:
                wire = self.scrub(wire.decode("utf-8", "replace")).encode()
            digest = hashlib.sha256(wire).hexdigest()
            path = self.body_path(digest)
            if not path.exists():
                path.parent.mkdir(exist_ok=True)
                tmp = path.with_suffix(".tmp")
                tmp.write_bytes(wire)
                tmp.replace(path)
        line: dict[str, Any] = {"case": obs.case_id, "lane": obs.lane_id, "side": obs.side,
                                "outcome": obs.outcome, "body": digest, "duration_s": round(obs.duration_s, 6)}
        if obs.error is not None:
            scrub = self.scrub or (lambda text: text)
            line["error"] = {"type": scrub(obs.error.type), "message": scrub(obs.error.message),
                             "where": scrub(obs.error.where)}
        self._index.write(json.dumps(line, ensure_ascii=True) + "\n")
        self._index.flush()
        return digest

    def close(self) -> None:
        self._index.close()


def load_observations(folder: Path) -> dict[tuple[str, str, str], Observation]:
    """Every observation of a store, by (case, lane, side); the last line wins for a key."""
    out: dict[tuple[str, str, str], Observation] = {}
    index = folder / INDEX
    if not index.is_file():
        return out
    for raw in index.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        line = json.loads(raw)
        wire = None
        if line.get("body"):
            digest = line["body"]
            wire = (folder / "bodies" / digest[:2] / f"{digest}.json").read_bytes()
        err = line.get("error")
        out[(line["case"], line["lane"], line["side"])] = Observation(
            line["case"], line["lane"], line["side"], line["outcome"], wire=wire,
            error=ErrorInfo(err["type"], err["message"], err.get("where", "")) if err else None,
            duration_s=line.get("duration_s", 0.0),
        )
    return out
