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


# One credential of each kind the redactor knows, written as it appears in a log or header line.
EACH_KIND = {
    "anthropic-key": "sk-ant-api03-" + "a1B2" * 6, "openai-style-key": "sk-proj-" + "Zx9" * 8,
    "google-api-key": "AIza" + "B" * 35, "aws-access-key": "AKIA" + "ABCDEFGHIJKLMNOP",
    "groq-key": "gsk_" + "a" * 24, "xai-key": "xai-" + "b" * 24, "github-token": "ghp_" + "c" * 36,
    "slack-token": "xoxb-" + "1234567890-abc", "huggingface-token": "hf_" + "d" * 34,
    "jwt": "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.abcdefghijkl",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
    "bearer-token": "BeArEr abcdefghijklmnop", "basic-auth": "Basic dXNlcjpwYXNzd29yZA==",
    "credential-query": "https://h/x?api_key=abcdef123", "url-userinfo": "postgres://me:s3cretpw@db",
    "credential-header": "X-Api-Key: abcdef123456",
}


def test_every_kind_is_redacted_in_a_short_string_and_inside_a_long_ascii_or_unicode_text() -> None:
    from harness._common.redact import _LABELLED, _TEXT_PATTERNS

    assert set(EACH_KIND) == {kind for kind, _ in (*_TEXT_PATTERNS, *_LABELLED)}  # a new kind gets an example
    redactor = Redactor([])
    filler = '{"case": "c-1", "lane": "x", "detail": "' + "y" * 5000 + '"}\n'
    for kind, secret in EACH_KIND.items():
        for text in (secret, filler * 3 + secret + filler, "é " + secret):
            assert f"[REDACTED:{kind}]" in redactor.redact(text), (kind, text[-80:])
