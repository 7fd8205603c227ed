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
    """The bundled suite: ``cases/`` in the current folder (a clone of this repository)."""
    here = Path("cases")
    if not (here / "suite.yaml").is_file():
        raise ConfigError("SUITE", None, "a suite folder (the default, ./cases/suite.yaml, is not here)")
    return here


def suite_lane(suite: Suite, lane_id: str, option: str) -> Lane:
    """The suite's lane ``lane_id``; a bad argument naming ``option`` and the lanes there are when
    the suite has none by that id."""
    if lane_id not in suite.lanes:
        raise ConfigError(option, lane_id, f"a lane of the suite ({', '.join(sorted(suite.lanes))})")
    return suite.lanes[lane_id]
