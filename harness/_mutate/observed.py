"""Pins that read observations, judged in-process on a mutant's observations.

A case file's pins (``PinItem``) and ``expect`` items are functions of the case x lane's
observations. In a mutant's row each observation is made once (the pins' cache is shared by
every pin of the row), and a pin is judged without running it when every side it reads is
*equal to the baseline's* (same outcome, same canonical body, same error type and message): it
reads what it read on unmutated code, so it ends as it ended there (passed: only pins that
passed in the baseline run against mutants). Otherwise the pin is evaluated here, by calling
its ``runtest`` (no pytest run protocol: no fixtures, no reports).

The sides are observed in the order the pin itself reads them and the check stops at the first
side that differs, so a side the pin would not have reached (say ``old``, behind a ``new`` that
errors) is never made: a mutant that hangs or crashes there is charged exactly as when the pin
ran. Pins that call a pipeline afresh (``deterministic``, ``idempotent``) and every other item
(Python pins) are never judged by equality.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness._model import Observation, Side

__all__ = ["SAVED", "Print", "baseline_prints", "is_harness_item", "judge", "sides_read"]

SAVED = "saved"
"""The outcome of a pin decided without running it (reported as passed, counted as saved)."""

# the sides each declarative kind reads, in the order harness._pins.declarative reads them
_READS: dict[str, tuple[Side, ...]] = {"same-as-old": ("new", "old"), "equals": ("new",), "schema": ("new",),
                                       "raises": ("new",)}

Print = tuple[str, bytes | None, str | None, str | None]
"""What a pin can read of an observation: outcome, wire bytes, error type, error message."""


def fingerprint(obs: Observation) -> Print:
    error = obs.error
    return (obs.outcome, obs.wire, error.type if error else None, error.message if error else None)


def is_harness_item(item: Any) -> bool:
    """A case file's item (a pin or ``expect``): judged by ``runtest``, never by pytest's protocol."""
    from harness.pins.plugin import ExpectItem, PinItem

    return isinstance(item, PinItem | ExpectItem)


def sides_read(item: Any) -> tuple[Side, ...] | None:
    """The sides ``item`` reads, in order, when it is a pure function of them; None otherwise."""
    from harness.pins.plugin import ExpectItem, PinItem

    if isinstance(item, ExpectItem):
        return ("old", "new")
    if isinstance(item, PinItem):
        return _READS.get(item.pin.kind)
    return None


def _key(item: Any, side: Side) -> tuple[str, str, str, Side]:
    p = item.parent
    return (p.suite.root, p.case.id, p.lane_id, side)


def _observe(item: Any, side: Side) -> Observation:
    from harness._pins import cache

    p = item.parent
    return cache.observe(p.suite, p.case.id, p.lane_id, side)


def baseline_prints(items: Sequence[Any]) -> dict[tuple[str, str, str, Side], Print]:
    """The unmutated observations' prints for every side ``items`` read (call on unmutated code,
    after the warm-up: they come from the pins' cache)."""
    prints: dict[tuple[str, str, str, Side], Print] = {}
    for item in items:
        for side in sides_read(item) or ():
            key = _key(item, side)
            if key not in prints:
                prints[key] = fingerprint(_observe(item, side))
    return prints


def _unchanged(item: Any, sides: Sequence[Side], prints: Mapping[tuple[str, str, str, Side], Print]) -> bool:
    for side in sides:
        want = prints.get(_key(item, side))
        if want is None or fingerprint(_observe(item, side)) != want:
            return False
    return True


def evaluate(item: Any) -> str:
    """passed, failed or skipped: the item's own check, called directly."""
    from _pytest.outcomes import OutcomeException, Skipped

    try:
        item.runtest()
    except Skipped:
        return "skipped"
    except (Exception, OutcomeException):
        return "failed"
    return "passed"


def judge(item: Any, prints: Mapping[tuple[str, str, str, Side], Print]) -> str:
    """``SAVED`` when every side ``item`` reads equals the baseline's, else its evaluation."""
    sides = sides_read(item)
    if sides is not None and _unchanged(item, sides, prints):
        return SAVED
    return evaluate(item)
