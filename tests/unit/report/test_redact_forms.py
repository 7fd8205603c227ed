"""Redaction by variable name pattern and in every encoded form of a known secret."""

from __future__ import annotations

import base64
from urllib.parse import quote

import pytest

from harness._common.redact import Redactor
from harness._common.secrets import env_secrets, scan

SECRET = "correct-horse-battery-staple-42"


@pytest.mark.parametrize("name", ["DB_PASS", "SMTP_PASSPHRASE", "APP_SECRET_VALUE", "GH_TOKEN_RO",
                                  "STRIPE_KEY_LIVE", "MYSQL_PWD"])
def test_credential_like_variable_names_are_found_by_pattern(name: str) -> None:
    assert env_secrets({name: SECRET, "HOME": "/home/someone-long"}) == [SECRET]


@pytest.mark.parametrize("form", [
    base64.b64encode(SECRET.encode()).decode(),
    base64.b64encode(b"x" + SECRET.encode()).decode(),
    base64.urlsafe_b64encode(b"??" + SECRET.encode()).decode(),
    SECRET.encode().hex(),
    SECRET.encode().hex().upper(),
])
def test_an_encoded_secret_is_redacted_in_reports_and_found_by_the_cassette_scanner(form: str) -> None:
    redacted = Redactor([SECRET]).text(f"body: {form};")
    assert "[REDACTED:environment-credential]" in redacted
    assert scan(f"body: {form};".encode(), [SECRET])


def test_a_url_encoded_secret_with_reserved_characters_is_redacted_and_found() -> None:
    secret = "p@ss/w+rd=long&enough"
    form = quote(secret, safe="")
    assert secret not in form
    assert Redactor([secret]).text(f"GET /cb?state={form}") == "GET /cb?state=[REDACTED:environment-credential]"
    assert scan(f"GET /cb?state={form}".encode(), [secret])


def test_redaction_is_computed_once_per_distinct_string() -> None:
    r = Redactor([SECRET])
    first = r.text(f"x {SECRET}")
    assert r.text(f"x {SECRET}") is first


def test_evidence_redaction_leaves_json_text_as_json_while_report_text_is_sanitized() -> None:
    import json

    body = json.dumps({"d": "next line\x85 and \u202e", "k": SECRET}, ensure_ascii=False)
    r = Redactor([SECRET])
    kept = json.loads(r.redact(body))
    assert kept == {"d": "next line\x85 and \u202e", "k": "[REDACTED:environment-credential]"}
    assert "\\x85" in r.text(body)
