"""Redaction's fast path: each pattern runs only on text holding a literal every match of it
contains (read from the pattern), and the result is the same as running every pattern."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from harness._common.redact import _LABELLED, _TEXT_PATTERNS, Redactor, needles
from tests.fuzzing import fuzz

SAMPLES = [
    "sk-ant-api03-" + "x" * 30, "sk-proj-" + "a" * 24, "AIza" + "b" * 35, "AKIA" + "C" * 16, "gsk_" + "d" * 24,
    "xai-" + "e" * 24, "ghp_" + "f" * 32, "github_pat_" + "g" * 32, "xoxb-" + "1" * 12, "hf_" + "h" * 32,
    "eyJ" + "i" * 10 + ".eyJ" + "j" * 10 + "." + "k" * 10,
    "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
    "BEARER abcdefghijklmnop", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "https://h.invalid/v1?api_key=abcdef123456",
    "https://bob:hunter2pw@gw.invalid/v1", '{"X-Api-Key": "abcdef123456"}', "Authorization: Token abcdefgh",
]


def _unfiltered(text: str) -> str:
    """Every pattern run, as redaction did before its filters."""
    for kind, rx in _TEXT_PATTERNS:
        text = re.sub(rx, f"[REDACTED:{kind}]", text)
    for kind, rx in _LABELLED:
        text = re.sub(rx, rf"\1[REDACTED:{kind}]", text)
    return text


def test_every_credential_pattern_gets_a_filter_that_its_own_example_passes() -> None:
    for kind, rx in (*_TEXT_PATTERNS, *_LABELLED):
        found = needles(rx)
        assert found is not None, kind
        hits = [s for s in SAMPLES if re.search(rx, s)]
        assert hits, f"no sample for {kind}"
        texts, fold = found
        assert all(any(t in (s.lower() if fold else s) for t in texts) for s in hits), kind


def test_filtered_redaction_equals_every_pattern_run_on_each_credential_in_context() -> None:
    redactor = Redactor([])
    for sample in SAMPLES:
        for text in (sample, f"x {sample} y", f'{{"k": "{sample}", "ok": "plain"}}', sample.upper()):
            assert redactor.redact(text) == _unfiltered(text), text


def test_a_case_insensitive_pattern_still_runs_on_text_whose_case_folding_differs() -> None:
    text = "Baſic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="  # re.IGNORECASE matches the long s for "s"; lower() does not
    assert Redactor([]).redact(text) == _unfiltered(text) == "Baſic [REDACTED:basic-auth]"


@fuzz()
@given(st.lists(st.sampled_from([*SAMPLES, "sk-", "bearer ", "key=", "://", "@", "ſ", "K", " ", "x" * 12,
                                 "eyJ", ".", "Authorization", ":", "'", '"']), max_size=12))
def test_filtered_redaction_equals_every_pattern_run_on_any_mix_of_fragments(parts: list[str]) -> None:
    text = "".join(parts)
    assert Redactor([]).redact(text) == _unfiltered(text)
