"""A catastrophic regular expression stops at the product's own bound (TIMEOUT_S, 0.5 s), as bad
input naming the rule. Expensive only by what it waits for: each stop burns its bound in CPU;
tests/unit/reject/test_pattern_bounds.py holds the same two paths at a tenth of the bound."""

from __future__ import annotations

import time

import pytest

from harness._common.patterns import TIMEOUT_S
from harness._errors import InputError
from harness._reject.fastschema import compile_schema
from harness._reject.rules import Rule
from tests.unit.reject.test_pattern_bounds import EVIL, TEXT

pytestmark = [pytest.mark.slow, pytest.mark.expensive]


def test_a_catastrophic_rule_message_stops_at_the_default_bound_as_bad_input() -> None:
    rule = Rule(id="evil.rule", validator="anthropic", select="tools[*]", message=EVIL, receipts=("R1",))
    started = time.monotonic()
    with pytest.raises(InputError) as caught:
        rule.pattern.search(TEXT)
    assert TIMEOUT_S <= time.monotonic() - started < 20 * TIMEOUT_S
    assert "evil.rule" in str(caught.value) and f"matches within {TIMEOUT_S:g} s" in str(caught.value)


def test_a_catastrophic_pattern_keyword_stops_at_the_default_bound_too() -> None:
    check = compile_schema({"type": "string", "pattern": EVIL})
    assert check is not None
    started = time.monotonic()
    with pytest.raises(InputError):
        check(TEXT)
    assert TIMEOUT_S <= time.monotonic() - started < 20 * TIMEOUT_S
