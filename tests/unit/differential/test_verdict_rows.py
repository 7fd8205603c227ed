"""The parent makes each unit's Verdict from the row a worker sends (six fields, in the order
``judged`` gives them): field for field the verdict the worker judged, and as frozen as any."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from harness._differential.unit import Unit, verdict_for
from harness._model import Case, Expectation, Lane, Subject, Verdict


def a_unit() -> Unit:
    case = Case(id="c", subject="s", file="f", line=None, title="", input={"tools": []}, lanes=("l",),
                expect={"*": Expectation()}, checks=frozenset(), pins=())
    lane = Lane(id="l", wire="anthropic_messages", provider="anthropic")
    return Unit(case, lane, Subject(name="s", old="m:old", new="m:new", wires=frozenset({"anthropic_messages"})), 5.0)


def test_a_verdict_made_from_a_row_equals_the_one_its_constructor_makes() -> None:
    row = ("intended", False, "narrowed", "the lane narrows", ("tools[0]",), ())
    checks = {"deterministic": "held"}
    made = verdict_for(a_unit(), row, checks)
    built = Verdict("c", "l", "intended", False, "narrowed", "the lane narrows", ("tools[0]",), (), checks)
    assert made == built and repr(made) == repr(built)
    assert dataclasses.asdict(made) == dataclasses.asdict(built)
    assert pickle.loads(pickle.dumps(made)) == built


def test_a_verdict_made_from_a_row_is_as_frozen_as_any_other() -> None:
    made = verdict_for(a_unit(), ("identical", False, "", "", (), ()), {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.kind = "unexpected"  # type: ignore[misc]
    assert dataclasses.replace(made, failed=True).failed is True
