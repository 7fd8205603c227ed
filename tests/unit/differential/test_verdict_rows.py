"""The parent makes each unit's Verdict from the row a worker sends (six fields, in the order
``judged`` gives them): field for field the verdict the worker judged."""

from __future__ import annotations

from harness._differential.unit import Unit, verdict_for
from harness._model import Case, Expectation, Lane, Subject, Verdict


def a_unit() -> Unit:
    case = Case(id="c", subject="s", file="f", line=None, title="", input={"tools": []}, lanes=("l",),
                expect={"*": Expectation()}, checks=frozenset(), pins=())
    lane = Lane(id="l", wire="anthropic_messages", provider="anthropic")
    return Unit(case, lane, Subject(name="s", old="m:old", new="m:new", wires=frozenset({"anthropic_messages"})), 5.0)


def test_a_row_becomes_the_verdict_with_each_field_in_its_place() -> None:
    row = ("intended", False, "narrowed", "the lane narrows", ("tools[0]",), ())
    checks = {"deterministic": "held"}
    made = verdict_for(a_unit(), row, checks)
    built = Verdict("c", "l", "intended", False, "narrowed", "the lane narrows", ("tools[0]",), (), checks)
    assert made == built
