"""A catastrophic regular expression in a rule stops within its time bound, as bad input.

The bound is lowered to a tenth here (each stop costs its bound in CPU); the product's own
TIMEOUT_S is tests/e2e/test_pattern_bounds_default.py's (expensive)."""

from __future__ import annotations

import time

import pytest

from harness._common import patterns
from harness._common.patterns import bounded
from harness._errors import InputError
from harness._reject.fastschema import compile_schema
from harness._reject.rules import Rule

EVIL = r"(a|aa)+$"
TEXT = "a" * 41 + "!"


@pytest.fixture
def bound(monkeypatch: pytest.MonkeyPatch) -> float:
    """TIMEOUT_S at a tenth of the product's; the patterns read it at each search."""
    monkeypatch.setattr(patterns, "TIMEOUT_S", patterns.TIMEOUT_S / 10)
    return patterns.TIMEOUT_S


def test_a_catastrophic_rule_message_is_bad_input_within_seconds_not_a_hang(bound: float) -> None:
    rule = Rule(id="evil.rule", validator="anthropic", select="tools[*]", message=EVIL, receipts=("R1",))
    started = time.monotonic()
    with pytest.raises(InputError) as caught:
        rule.pattern.search(TEXT)
    assert time.monotonic() - started < 20 * bound
    assert "evil.rule" in str(caught.value) and "catastrophic backtracking" in str(caught.value)
    assert f"matches within {bound:g} s" in str(caught.value)


def test_a_catastrophic_pattern_keyword_in_a_rejects_schema_is_bounded_too(bound: float) -> None:
    check = compile_schema({"type": "string", "pattern": EVIL})
    assert check is not None
    started = time.monotonic()
    with pytest.raises(InputError):
        check(TEXT)
    assert time.monotonic() - started < 20 * bound


def test_ordinary_patterns_keep_re_syntax_lookarounds_included() -> None:
    assert bounded(r"abc(?![0-9])").search("abcx") is not None
    assert bounded(r"abc(?![0-9])").search("abc1") is None
    assert bounded("a.b", dotall=True).search("a\nb") is not None
