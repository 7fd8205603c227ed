"""Redact credentials from everything a run writes or prints.

A pipeline can put a key in its output or in an exception message ("401 from upstream;
headers={'x-api-key': 'sk-ant-...'}"), and report.md is meant to be pasted into a pull request.
So every string of a report passes through here before it is written: provider key shapes,
bearer and basic tokens, credential headers and query parameters, JWTs, private keys (the
patterns of ``harness.reject.secrets``), and the exact values of credential-like environment
variables. A redaction names the kind, never any part of the secret.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from harness.reject.secrets import KEY_SHAPES, SECRET_HEADERS, env_secrets

__all__ = ["Redactor", "redactor"]

# The key shapes the cassette scanner knows, plus a private key's whole body (the scanner only
# needs its header to refuse a file; a report must lose the key itself).
_TEXT_PATTERNS: tuple[tuple[str, str], ...] = (
    *KEY_SHAPES,
    ("private-key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
)
# Keep the label, drop the value: "Bearer abc..." -> "Bearer [REDACTED:bearer-token]".
_LABELLED: tuple[tuple[str, str], ...] = (
    ("bearer-token", r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{12,}"),
    ("basic-auth", r"(?i)(\bbasic\s+)[A-Za-z0-9+/=]{12,}"),
    ("credential-query", r"([?&](?:key|api_key|apikey|access_token|token)=)[^&\s'\"]{6,}"),
    ("url-userinfo", r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@'\"]+:[^/\s@'\"]+(?=@)"),
    ("credential-header", r"(?i)(['\"]?(?:" + "|".join(re.escape(h) for h in SECRET_HEADERS)
     + r")['\"]?\s*[:=]\s*['\"]?)[^'\"\s,;}]{6,}"),
)


class Redactor:
    """Replaces credentials in strings; ``redact_value`` walks a JSON value."""

    def __init__(self, secrets: Iterable[str]) -> None:
        literals = sorted({form for s in secrets for form in (s, json.dumps(s)[1:-1]) if s}, key=len, reverse=True)
        self._literals = literals
        self._plain = [(kind, re.compile(rx)) for kind, rx in _TEXT_PATTERNS]
        self._labelled = [(kind, re.compile(rx)) for kind, rx in _LABELLED]

    def text(self, value: str) -> str:
        for literal in self._literals:
            if literal in value:
                value = value.replace(literal, "[REDACTED:environment-credential]")
        for kind, rx in self._plain:
            value = rx.sub(f"[REDACTED:{kind}]", value)
        for kind, rx in self._labelled:
            value = rx.sub(rf"\1[REDACTED:{kind}]", value)
        return value

    def value(self, value: Any) -> Any:
        """A copy of a JSON value with every string (keys too) redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


@cache
def redactor() -> Redactor:
    """The redactor for this process: the patterns plus this environment's credential values."""
    return Redactor(env_secrets())
