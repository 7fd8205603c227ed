"""Checks of command-line arguments that several commands share."""

from __future__ import annotations

from harness._errors import ConfigError
from harness._model import Lane, Suite

__all__ = ["suite_lane"]


def suite_lane(suite: Suite, lane_id: str, option: str) -> Lane:
    """The suite's lane ``lane_id``; a bad argument naming ``option`` and the lanes there are when
    the suite has none by that id."""
    if lane_id not in suite.lanes:
        raise ConfigError(option, lane_id, f"a lane of the suite ({', '.join(sorted(suite.lanes))})")
    return suite.lanes[lane_id]
