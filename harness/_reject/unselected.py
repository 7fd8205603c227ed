"""Rules that never saw the part of the body they judge: a blind spot, said out loud.

A rule whose ``select`` finds nothing in a body passes it, which is right when the body does not
use that feature (no ``response_format``, no tools) and wrong when the body carries the feature
under a spelling the rule does not know: Gemini's REST shape sends ``functionDeclarations``
where rules once selected only ``function_declarations``, and every body passed as "0 rejected".

Per lane, over every body the lane built: a rule is reported when its ``select`` reached nothing
in any of them while the part of it up to its first wildcard did (``tools[*]`` was there, so
the lane has tools; none of them had what the rule looks for). Selectors without a wildcard name
one optional field (``response_format.json_schema``) and are never reported, and neither are rules
written for another wire profile than the lane's when both are profiles the harness knows (the
Chat Completions strict rules on a Responses lane: that validator meets both shapes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness._common.selectors import Selector, compile_selector
from harness._model import Lane
from harness._reject.compiled import reach
from harness._reject.rules import Rule
from harness._wires import DEFAULT_WIRE, WIRES

__all__ = ["LaneSelections", "head", "lane_selections"]


def head(select: str) -> Selector | None:
    """The selector up to and including its first wildcard step; None without one."""
    steps = compile_selector(select)
    for i, (kind, _) in enumerate(steps):
        if kind in ("any-index", "any-key"):
            return steps[: i + 1]
    return None


def _other_wire(rule: Rule, wire: str) -> bool:
    """Whether the rule was written for a known wire profile other than the lane's known one."""
    own = rule.wire or DEFAULT_WIRE.get(rule.validator, "")
    return wire in WIRES and own in WIRES and own != wire


@dataclass
class LaneSelections:
    """What one lane's rules selected over the bodies it built."""

    rules: tuple[Rule, ...]
    wire: str = ""
    bodies: int = 0
    reached: set[str] = field(default_factory=set)
    heads: set[str] = field(default_factory=set)  # selects whose head reached something
    wild: dict[str, Selector] = field(init=False)  # each select with a wildcard, and its head

    def __post_init__(self) -> None:
        self.rules = tuple(r for r in self.rules if not _other_wire(r, self.wire))
        self.wild = {r.select: found for r in self.rules if (found := head(r.select)) is not None}

    def note(self, body: Any) -> None:
        """One more body, after the rules fired on it with ``reached`` as their record."""
        self.bodies += 1
        for select in self.wild.keys() - self.reached - self.heads:
            if reach(body, self.wild[select]):
                self.heads.add(select)

    def blind(self) -> list[str]:
        """The ids of the rules whose select reached nothing though its head did."""
        return [r.id for r in self.rules if r.select in self.heads and r.select not in self.reached]


def lane_selections(known: dict[str, LaneSelections], lane: Lane,
                    rules_for: Callable[[Lane], tuple[Rule, ...]]) -> LaneSelections:
    """The lane's record in ``known``, made (its rules found with ``rules_for``) on its first body."""
    found = known.get(lane.id)
    if found is None:
        found = known[lane.id] = LaneSelections(rules_for(lane), lane.wire)
    return found
