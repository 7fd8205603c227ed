"""Observations on disk: ``<run>/observations/`` holds every observation the build stage made.

    observations.jsonl     one line per observation: case, lane, side, outcome, error, body digest
    bodies/ab/abcdef....json   the wire bytes, named by their SHA-256 (identical bodies stored once)

Written as the run goes (an interrupted run keeps what it made). The pin stage reads it back
instead of calling every pipeline again, and a reviewer opens it (``harness show``).

A store given a ``scrub`` function passes every body and error message through it before
writing (the run folder's evidence store scrubs with the report redactor: no secret reaches
disk); the pin stage's private store, in a temporary folder, keeps the exact bytes.

A store given ``limits`` keeps a run folder bounded: a body over ``Limits.body_bytes`` is not
saved, nor any new body once ``Limits.run_bytes`` are stored; the index line then says so under
``omitted`` (with the body's size and digest, so a reader knows what is missing, not only that
something is). The private store has no limits: a pin must see every body.

In a run the build workers prepare each body (``digest``, ``stage``: scrubbed, hashed and written
to ``.staging/`` under a name of the worker's own) and this process only decides, in the order
results arrive, whether it is saved: it moves the staged file into place, or removes it. The
decisions, the counts and the caps are this process's alone, so they are the same as when it
wrote every body itself; ``.staging/`` is removed on ``close``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple, TypedDict

from harness._errors import InputError, Place
from harness._model import ErrorInfo, Observation

__all__ = ["INDEX", "Digested", "EvidenceSummary", "Limits", "ObservationStore", "Saved", "body_relpath",
           "load_observations"]

INDEX = "observations.jsonl"


class Digested(NamedTuple):
    """A body as a store saves it (``ObservationStore.digest``, ``stage``)."""

    digest: str
    """the SHA-256 (hex) of the bytes saved"""
    scrubbed: bytes | None
    """the scrubbed bytes when scrubbing changed the body (None: the body is saved as it is)"""
    staged: str | None = None
    """a file holding the bytes to save, written by a build worker, for the store to move into place"""


@dataclass(frozen=True)
class Limits:
    """Size caps of a run folder's evidence (bytes). Defaults fit a CI artifact."""

    body_bytes: int = 4 << 20
    run_bytes: int = 512 << 20


class EvidenceSummary(TypedDict):
    """report.json's ``evidence`` block (report.schema.json ``$defs/evidence``)."""

    folder: str
    index: str
    bodies: int
    bytes: int
    omitted: int
    limits: dict[str, int] | None


@dataclass(frozen=True)
class Saved:
    """Where one observation's body went: its digest when saved, else why not (None: it had none)."""

    digest: str | None
    omitted: str | None = None


def _write(path: str, data: bytes) -> None:
    """``data`` into a new file at ``path`` with plain system calls (half the CPU of ``open()``'s
    buffered file object, per small body)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def body_relpath(digest: str) -> str:
    """Where a body lives, relative to the store folder (report.json links use it)."""
    return f"bodies/{digest[:2]}/{digest}.json"


class ObservationStore:
    def __init__(self, folder: Path, scrub: Callable[[str], str] | None = None,
                 limits: Limits | None = None) -> None:
        self.folder = folder
        self.scrub = scrub
        self.limits = limits
        self.stored_bytes = 0
        self.bodies = 0
        self.omitted = 0
        (folder / "bodies").mkdir(parents=True, exist_ok=True)
        self._index: IO[str] = (folder / INDEX).open("a", encoding="utf-8")
        self._bodies = str(folder / "bodies")
        self._staging = str(folder / ".staging")
        self._staged: set[str] = set()  # the staging subfolders this process made
        self._made: set[str] = set()  # the bodies/ subfolders made so far
        self._last = ""  # the digest saved (or found) last

    def body_path(self, digest: str) -> Path:
        return self.folder / body_relpath(digest)

    def _over(self, size: int) -> str | None:
        """Why a body of ``size`` bytes is not saved, or None when it fits."""
        if self.limits is None:
            return None
        if size > self.limits.body_bytes:
            return f"body of {size:,} bytes over the per-body cap of {self.limits.body_bytes:,}"
        if self.stored_bytes + size > self.limits.run_bytes:
            return f"the run's evidence reached its cap of {self.limits.run_bytes:,} bytes"
        return None

    def _save(self, wire: bytes, digested: Digested) -> str | None:
        """Write the body (move its staged file into place) unless it is there already; why it
        was not saved, else None. Plain string paths and os calls: pathlib's objects cost the
        parent more than the writes, and the body just saved (old and new alike, the common
        case) is known without a stat."""
        digest = digested.digest
        if digest == self._last:  # its staged file, the same name, was moved into place already
            return None
        path = f"{self._bodies}/{digest[:2]}/{digest}.json"  # body_relpath under the store
        if os.path.exists(path):
            self._last = digest
            return self._unstaged(digested)
        why = self._over(len(wire))
        if why is not None:
            self.omitted += 1
            self._unstaged(digested)
            return why
        if digest[:2] not in self._made:
            os.makedirs(path.rpartition("/")[0], exist_ok=True)
            self._made.add(digest[:2])  # 256 at most
        if not self._moved(digested.staged, path):
            tmp = path[:-5] + ".tmp"
            _write(tmp, wire)
            os.replace(tmp, path)
        self._last = digest
        self.stored_bytes += len(wire)
        self.bodies += 1
        return None

    @staticmethod
    def _moved(staged: str | None, path: str) -> bool:
        """Whether the staged file became ``path`` (a rename: the parent's share of a saved body)."""
        if staged is None:
            return False
        try:
            os.replace(staged, path)
        except OSError:
            return False  # gone or unmovable: the store writes the bytes it has instead
        return True

    @staticmethod
    def _unstaged(digested: Digested) -> None:
        """A staged file not needed (the body is there already, or it is not saved): removed."""
        if digested.staged is not None:
            with contextlib.suppress(OSError):
                os.unlink(digested.staged)

    def put(self, obs: Observation) -> str | None:
        """Record ``obs``; the digest of its saved body, or None when it had none or it was not saved."""
        return self.save(obs).digest

    def digest(self, wire: bytes) -> Digested:
        """What ``save`` stores for a body: its digest, and the scrubbed bytes when scrubbing
        changed them (None: the body is stored as it is). Touches nothing of the store, so a build
        worker makes it beside the pipelines (``harness._differential.workers``' ``prepare``) and
        the parent, given it, neither scrubs nor hashes: scrubbing every body was most of a
        run's parent process."""
        scrubbed = wire if self.scrub is None else self.scrub(wire.decode("utf-8", "replace")).encode()
        return Digested(hashlib.sha256(scrubbed).hexdigest(), None if scrubbed == wire else scrubbed)

    def stage(self, wire: bytes) -> Digested:
        """``digest``, and the bytes to save written to a file of this process's own under the
        store's staging folder, unless the body is saved already or over the per-body cap: the
        write, most of what saving a new body costs, is then done by the build worker, and the
        parent only moves the file into place (or removes it: ``_save``). The staging folder goes
        with ``close``."""
        digested = self.digest(wire)
        data = wire if digested.scrubbed is None else digested.scrubbed
        digest = digested.digest
        if self.limits is not None and len(data) > self.limits.body_bytes:
            return digested
        if os.path.exists(f"{self._bodies}/{digest[:2]}/{digest}.json"):
            return digested
        # in 256 subfolders as bodies/ is: creating files in one folder of 10,000 cost 5-15x more
        folder = f"{self._staging}/{digest[:2]}"
        staged = f"{folder}/{os.getpid()}-{digest}.json"
        try:
            if digest[:2] not in self._staged:
                os.makedirs(folder, exist_ok=True)
                self._staged.add(digest[:2])  # the subfolders this process made, 256 at most
            _write(staged, data)
        except OSError:
            return digested  # the parent writes it as ever
        return digested._replace(staged=staged)

    def save(self, obs: Observation, digested: Digested | None = None, made: str | None = None) -> Saved:
        """Record ``obs``: the digest of its saved body, or why it was not saved. Nothing per
        observation stays in memory (the index line on disk says it all), so a run's evidence
        costs the same memory at any size. ``digested``: ``digest(obs.wire)``, and ``made``:
        ``index_line(obs, that digest)``, both made elsewhere (a build worker); the line is
        made here again when the body was not saved after all (the caps)."""
        digest, omitted = self._stored(obs.wire, digested) if obs.wire is not None else (None, None)
        self._index.write(made if made is not None and omitted is None else self.index_line(obs, digest, omitted))
        self._index.flush()
        return Saved(digest, None if omitted is None else str(omitted["why"]))

    def index_line(self, obs: Observation, digest: str | None, omitted: dict[str, Any] | None = None) -> str:
        """The index line of ``obs`` whose body was saved under ``digest`` (None: it had none, or
        it was ``omitted``), its error scrubbed."""
        line: dict[str, Any] = {"case": obs.case_id, "lane": obs.lane_id, "side": obs.side,
                                "outcome": obs.outcome, "body": digest, "duration_s": round(obs.duration_s, 6)}
        if omitted is not None:
            line["omitted"] = omitted
        if obs.error is not None:
            line["error"] = self._error(obs.error)
        return json.dumps(line, ensure_ascii=True) + "\n"

    def _stored(self, wire: bytes, digested: Digested | None) -> tuple[str | None, dict[str, Any] | None]:
        """(the saved body's digest, None), or (None, why it was not saved, its size and digest).
        A scrubbing store saves the scrubbed bytes."""
        digested = digested or self.digest(wire)
        digest = digested.digest
        wire = wire if digested.scrubbed is None else digested.scrubbed
        why = self._save(wire, digested)
        if why is None:
            return digest, None
        return None, {"why": why, "bytes": len(wire), "sha256": digest}

    def _error(self, error: ErrorInfo) -> dict[str, str]:
        scrub = self.scrub or (lambda text: text)
        return {"type": scrub(error.type), "message": scrub(error.message), "where": scrub(error.where)}

    def close(self) -> None:
        self._index.close()
        shutil.rmtree(self._staging, ignore_errors=True)  # files of units a worker staged and never sent

    def summary(self) -> EvidenceSummary:
        """What report.json says about the evidence: where, how much, what the caps left out."""
        limits = None if self.limits is None else {"body_bytes": self.limits.body_bytes,
                                                   "run_bytes": self.limits.run_bytes}
        return {"folder": self.folder.name, "index": INDEX, "bodies": self.bodies, "bytes": self.stored_bytes,
                "omitted": self.omitted, "limits": limits}


def load_observations(folder: Path) -> dict[tuple[str, str, str], Observation]:
    """Every observation of a store, by (case, lane, side); the last line wins for a key."""
    out: dict[tuple[str, str, str], Observation] = {}
    index = folder / INDEX
    if not index.is_file():
        return out
    for raw in index.read_text(encoding="utf-8").splitlines():
        if raw.strip():
            line = json.loads(raw)
            out[(line["case"], line["lane"], line["side"])] = _observation(folder, line)
    return out


_DIGEST = re.compile(r"[0-9a-f]{64}")


def _observation(folder: Path, line: dict[str, Any]) -> Observation:
    """One index line as the Observation it recorded, its body read back: a body is named by its
    digest, so anything else (``../../x``) is refused rather than read as a path."""
    digest = line.get("body")
    if digest is not None and not (isinstance(digest, str) and _DIGEST.fullmatch(digest)):
        raise InputError(Place(str(folder / INDEX), None, "body"), "a body's sha256 digest (64 hex digits)",
                         repr(digest)[:100])
    err = line.get("error")
    return Observation(
        line["case"], line["lane"], line["side"], line["outcome"],
        wire=(folder / "bodies" / digest[:2] / f"{digest}.json").read_bytes() if digest else None,
        error=ErrorInfo(err["type"], err["message"], err.get("where", "")) if err else None,
        duration_s=line.get("duration_s", 0.0),
    )
