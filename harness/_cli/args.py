"""Checks of command-line arguments that several commands share."""

from __future__ import annotations

import math
from pathlib import Path

import click

from harness._errors import ConfigError
from harness._model import Lane, Suite

__all__ = ["default_suite", "not_nan", "suite_lane"]


def not_nan(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A click callback for a FloatRange of seconds: the range lets ``nan`` through (every
    comparison with it is false), so it is refused here."""
    if value is not None and math.isnan(value):
        raise click.BadParameter("nan is not a number of seconds", ctx, param)
    return value


def default_suite() -> Path:
    """The suite a command given none works on, looked for in the current folder: ``./suite.yaml``
    (the folder itself), the folder ``./pyproject.toml``'s ``[tool.wire-harness]`` names (its
    ``suite``, default the folder itself), else ``./cases`` (a folder ``harness init`` writes,
    and this repository's bundled suite)."""
    from harness._settings import pyproject_suite

    if Path("suite.yaml").is_file():
        return Path(".")
    named = pyproject_suite(Path("."))
    if named is not None:
        return named
    if Path("cases").is_dir():
        return Path("cases")
    raise ConfigError("SUITE", None, "a suite folder: none given, and none here (no ./suite.yaml, no "
                      "[tool.wire-harness] in ./pyproject.toml, no ./cases); `harness init` writes one")


def suite_lane(suite: Suite, lane_id: str, option: str) -> Lane:
    """The suite's lane ``lane_id``; a bad argument naming ``option`` and the lanes there are when
    the suite has none by that id."""
    if lane_id not in suite.lanes:
        raise ConfigError(option, lane_id, f"a lane of the suite ({', '.join(sorted(suite.lanes))})")
    return suite.lanes[lane_id]
