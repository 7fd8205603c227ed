"""Redaction: credentials become a labelled placeholder, nothing of the secret remains."""

from __future__ import annotations

from harness._common.redact import Redactor

KEY = "sk-ant-api03-" + "x" * 30


def test_a_provider_key_inside_an_error_message_is_redacted() -> None:
    text = Redactor([]).text(f"401; headers={{'x-api-key': '{KEY}'}}")
    assert KEY not in text and "x" * 30 not in text and "[REDACTED:" in text


def test_the_value_of_a_credential_environment_variable_is_redacted_anywhere() -> None:
    r = Redactor(["hunter2-but-longer"])
    assert r.text("user=hunter2-but-longer;") == "user=[REDACTED:environment-credential];"


def test_bearer_tokens_and_query_keys_keep_their_labels() -> None:
    r = Redactor([])
    assert r.text("Bearer abcdefghijklmnopq") == "Bearer [REDACTED:bearer-token]"
    assert r.text("https://h.invalid/v1?key=abcdef123456&x=1") == "https://h.invalid/v1?key=[REDACTED:credential-query]&x=1"


def test_a_json_value_is_redacted_in_keys_and_values_and_left_alone_otherwise() -> None:
    value = {"a": [1, {"b": KEY}], KEY: True, "plain": "nothing secret here"}
    assert Redactor([]).value(value) == {"a": [1, {"b": "[REDACTED:anthropic-key]"}],
                                         "[REDACTED:anthropic-key]": True, "plain": "nothing secret here"}


def test_a_password_in_a_url_is_redacted_and_the_host_kept() -> None:
    assert Redactor([]).text("refused https://bob:hunter2pw@gw.invalid/v1") == \
        "refused https://[REDACTED:url-userinfo]@gw.invalid/v1"
