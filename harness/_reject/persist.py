"""A vcrpy persister that never writes a credential and never leaves a half-written file.

``safe_persister(secrets)`` returns a persister for ``VCR.register_persister``: on save it
serializes the cassette exactly as vcrpy would, scans those bytes (key shapes, bearer tokens,
credential headers, and the exact values in ``secrets``), raises SecretError instead of writing
when anything is found, and otherwise writes to a temporary file in the same folder, fsyncs it
and renames it over the target (atomic on POSIX).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vcr.persisters.filesystem import FilesystemPersister
from vcr.serialize import serialize

from harness._common.secrets import ensure_clean

__all__ = ["atomic_write", "safe_persister"]


def atomic_write(path: Path, data: bytes, secrets: Iterable[str] = ()) -> None:
    """Scan, then write ``data`` to ``path`` atomically; SecretError and no file when unsafe."""
    ensure_clean(data, str(path), secrets)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def safe_persister(secrets: Iterable[str]) -> Any:
    """A persister class bound to the credential values that must never reach disk."""
    known = tuple(s for s in secrets if s)

    class SafePersister:
        @classmethod
        def load_cassette(cls, cassette_path: Any, serializer: Any) -> Any:
            return FilesystemPersister.load_cassette(cassette_path, serializer)

        @staticmethod
        def save_cassette(cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
            data = serialize(cassette_dict, serializer).encode("utf-8")
            atomic_write(Path(cassette_path), data, known)

    return SafePersister
