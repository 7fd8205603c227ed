"""The bundled catalog of recorded rejections, installed with the package: ``rules/`` (the
rejection rules), ``cassettes/`` (the receipts backing them, with ``manifest.yaml``) and
``lanes/`` (the lanes the rules were written for).

In a source checkout these are links to ``cases/rules``, ``cassettes`` and ``cases/lanes``; a
built wheel holds copies. ``harness catalog path`` prints where they are, and the folder is a
suite folder for the commands that take ``--suite`` (``harness cassettes check``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["PARTS", "catalog_path"]

PARTS = ("rules", "cassettes", "lanes")


def catalog_path(part: str | None = None) -> Path:
    """The catalog folder, or one of its PARTS, as a real path (resolved, so links are followed)."""
    base = Path(str(resources.files("harness._catalog")))
    found = base / part if part else base
    return found.resolve()
