"""Finding a finished run: a run folder (``reports/<run-id>``) or a reports folder whose ``latest``
points at one, and its report.json. ``harness show``, ``harness bless`` and ``--baseline`` read
runs this way, so each gives the same error for a folder that holds no run."""

from __future__ import annotations

import json
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


def load_report(folder: Path, argument: str = "--run") -> dict[str, Any]:
    """report.json of a run folder; a file that is not one is a ConfigError naming it."""
    path = folder / REPORT
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(argument, str(path), f"a readable {REPORT} ({exc})") from None
    if not isinstance(report, dict) or report.get("report") != "wire-harness":
        raise ConfigError(argument, str(path), f"a wire-harness {REPORT}")
    return report
