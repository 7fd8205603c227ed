"""The pin stage on a run's saved observations, in one call: every pin's outcome, a summary,
and (against old) the ``catches_old`` check.

``harness run`` drives ``harness._pins.stage.PinStage`` itself, unit by unit as the build
stage finishes them. ``run_pins`` is the same stage fed from a store folder the build stage
wrote (``harness._evidence``): each case x lane's saved observations in turn, then ``finish``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness._evidence import load_observations
from harness._model import Observation, Side, Suite
from harness._pins.child import StageOptions
from harness._pins.stage import PinStage

__all__ = ["run_pins"]


def _by_unit(observations: Mapping[tuple[str, str, str], Observation]) -> dict[tuple[str, str], dict[str, Observation]]:
    out: dict[tuple[str, str], dict[str, Observation]] = {}
    for (case_id, lane_id, side), obs in observations.items():
        out.setdefault((case_id, lane_id), {})[side] = obs
    return out


def run_pins(suite: Suite, against: Side = "new", cases: Sequence[str] | None = None,
             lanes: Sequence[str] | None = None, timeout: float = 1800,
             observations: Path | None = None, pin_set: str | None = None,
             revisions: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every pin's outcome, a summary, and (against old) the catches_old check. With
    ``observations`` (a run's store), pins read the build stage's observations instead of
    calling every pipeline again (the Python pins' child reads the store itself); without, each
    side is one call. ``pin_set`` keeps only the pins of that named set (``pin_sets`` in
    suite.yaml)."""
    with PinStage(suite, StageOptions(against, timeout, observations, pin_set, revisions, cases, lanes)) as stage:
        saved = load_observations(observations) if observations is not None else {}
        for (case_id, lane_id), sides in _by_unit(saved).items():
            stage.unit(case_id, lane_id, sides.get("old"), sides.get("new"))
        return stage.finish()
