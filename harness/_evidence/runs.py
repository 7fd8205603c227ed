"""Finding a finished run: a run folder (``reports/<run-id>``) or a reports folder whose ``latest``
points at one, and its report.json. ``harness show``, ``harness bless`` and ``--baseline`` read
runs this way, so each gives the same error for a folder that holds no run, is corrupt or comes from
another version of the harness."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness._errors import ConfigError

__all__ = ["REPORT", "load_report", "run_folder"]

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
    return report


def _parsed(path: Path, argument: str) -> Any:
    """The JSON value of ``path``; a file that is unreadable, not JSON or nested too deep is bad input."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # json's C decoder recurses once per level
        raise ConfigError(argument, str(path), f"a readable {REPORT} ({exc})") from None
