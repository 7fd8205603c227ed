"""The parent makes each unit's results from the row a worker sends: field for field the
observations and the verdict the worker judged."""

from __future__ import annotations

import pickle

from harness._differential.rows import Bodies, unpacked
from harness._differential.unit import Unit
from harness._model import Case, ErrorInfo, Expectation, Lane, Observation, Subject, Verdict


def a_unit() -> Unit:
    case = Case(id="c", subject="s", file="f", line=None, title="", input={"tools": []}, lanes=("l",),
                expect={"*": Expectation()}, checks=frozenset(), pins=())
    lane = Lane(id="l", wire="anthropic_messages", provider="anthropic")
    return Unit(case, lane, Subject(name="s", old="m:old", new="m:new", wires=frozenset({"anthropic_messages"})), 5.0)


def test_a_row_becomes_the_verdict_with_each_field_in_its_place() -> None:
    checks = {"deterministic": "held"}
    row = (("ok", b"{}", None, 0.25, None), ("error", None, ("ValueError", "no", "p.py:3 in f"), 0.5, None), checks,
           ("intended", False, "narrowed", "the lane narrows", ("tools[0]",), ()))
    old, new, got_checks, verdict = unpacked(a_unit(), row)
    assert verdict == Verdict("c", "l", "intended", False, "narrowed", "the lane narrows", ("tools[0]",), (), checks)
    assert (old.case_id, old.lane_id, old.side, old.outcome, old.wire, old.value, old.duration_s) == \
        ("c", "l", "old", "ok", b"{}", {}, 0.25)
    assert (new.side, new.outcome, new.wire, new.error, new.duration_s) == \
        ("new", "error", None, ErrorInfo("ValueError", "no", "p.py:3 in f"), 0.5)
    assert got_checks is checks


def test_what_a_gateway_answered_the_client_travels_with_the_row_to_the_parent() -> None:
    answer = {"gateway": "litellm-proxy", "status": 400, "body": "{}", "upstream_status": 400,
              "upstream_rule": "anthropic.root-composition", "upstream_receipt": "R001", "carried": True,
              "envelope_receipts": ["R072"], "opening": "litellm.BadRequestError: <Provider>Exception"}
    bodies = Bodies()
    old = Observation("c", "l", "old", "ok", b"{}", duration_s=0.1)
    new = Observation("c", "l", "new", "ok", b"{}", duration_s=0.2, answer=answer)
    row = pickle.loads(pickle.dumps((bodies.row(old), bodies.row(new), {}, ("same", False, "", "", (), ()))))
    got_old, got_new, _, _ = unpacked(a_unit(), row)
    assert got_new.answer == answer and got_old.answer is None
