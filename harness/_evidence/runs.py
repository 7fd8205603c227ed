"""Finding a finished run: a run folder (``reports/<run-id>``) or a reports folder whose ``latest``
points at one, and its report.json. ``harness show``, ``harness bless`` and ``--baseline`` read
runs this way, so each gives the same error for a folder that holds no run, is corrupt or comes from
another version of the harness.

A report is input like any other: one crafted (or edited) to name ``../../secret.json`` as a
body would have ``harness show`` print that file. So every path a report names is read through
``run_file``: resolved, ``..`` and symlinks followed, and refused unless it lies inside the run
folder; ``load_report`` refuses a report naming an absolute or ``..`` path before anything reads
it (without touching the disk: a report may name 200,000 bodies)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness._errors import ConfigError, InputError, Place

__all__ = ["REPORT", "load_report", "run_file", "run_folder"]

INSIDE = "a path inside the run folder"

REPORT = "report.json"


def run_folder(path: Path, argument: str = "--run") -> Path:
    """The run folder ``path`` names: itself when it holds report.json, else its ``latest``."""
    if (path / REPORT).is_file():
        return path
    if (path / "latest" / REPORT).is_file():
        return (path / "latest").resolve()
    found = "no such folder" if not path.exists() else f"no {REPORT} in it or in {path / 'latest'}"
    raise ConfigError(argument, str(path), f"a finished run folder (holding {REPORT}), or a reports "
                      f"folder whose latest/ is one; found {found}")


def load_report(folder: Path, check: Callable[[Any], None], argument: str = "--run") -> dict[str, Any]:
    """report.json of a run folder, held to its published schema by ``check`` (raising ValueError:
    the report stage's validator, which this stage cannot import without a cycle) before any
    reader indexes into it; a file that is not one is a ConfigError naming it and the place."""
    path = folder / REPORT
    report = _parsed(path, argument)
    if not isinstance(report, dict) or report.get("report") != "wire-harness":
        raise ConfigError(argument, str(path), f"a wire-harness {REPORT}")
    try:
        check(report)
    except ValueError as exc:
        raise ConfigError(argument, str(path), f"a {REPORT} of this harness version's schema "
                          f"(written by this version, not edited by hand); found {exc}") from None
    _links_relative(report, path)
    return report


def _links_relative(report: dict[str, Any], path: Path) -> None:
    """Every body a report links is named relative to its folder, without ``..``."""
    for i, row in enumerate(report.get("differential") or ()):
        for side, link in ((row.get("evidence") or {}).items()):
            if isinstance(link, str) and _outward(link):
                raise InputError(Place(str(path), None, f"differential[{i}].evidence.{side}"), INSIDE, repr(link))


def _outward(link: str) -> bool:
    """Whether ``link`` names a place outside the folder it is relative to, by its text alone."""
    return link.startswith(("/", "~")) or "\0" in link or ".." in Path(link).parts


def run_file(folder: Path, link: str, where: str = "") -> Path:
    """The file ``link`` (a path a report names) inside the run ``folder``: resolved, ``..`` and
    symlinks followed; an InputError naming it when it lies elsewhere or loops."""
    place = Place(str(folder / REPORT), None, where)
    root = folder.resolve()
    try:
        real = (root / link).resolve() if not _outward(link) else None
    except (RuntimeError, OSError):  # a symlink loop (RuntimeError on 3.11, OSError on 3.13)
        raise InputError(place, INSIDE, f"{link!r}, a symlink loop") from None
    if real is None or not real.is_relative_to(root):
        raise InputError(place, INSIDE, f"{link!r}, which resolves outside {root}")
    return real


def _parsed(path: Path, argument: str) -> Any:
    """The JSON value of ``path``; a file that is unreadable, not JSON or nested too deep is bad input."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # json's C decoder recurses once per level
        raise ConfigError(argument, str(path), f"a readable {REPORT} ({exc})") from None
