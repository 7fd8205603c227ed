"""A credential scanner for bytes about to be written (cassettes, the probe persister).

It looks for provider key shapes, bearer tokens, credential-carrying headers and query
parameters, private keys and JWTs, plus the exact values of credential-like environment
variables in every form a body or a log may carry them: raw, JSON-escaped, URL-encoded, hex
(either case) and base64 (standard and URL-safe) at every alignment, since vcrpy may store a body
as ``!!binary``. A variable is credential-like by name (``*KEY*``, ``*TOKEN*``, ``*SECRET*``,
``*PASS*``, ``*AUTH*``, ...). A finding names the kind and the byte offset, never the secret.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import quote

from harness._errors import SecretError

__all__ = ["KEY_SHAPES", "SECRET_HEADERS", "Finding", "encoded_forms", "ensure_clean", "env_secrets", "scan"]

SECRET_HEADERS = ("authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie", "set-cookie",
                  "proxy-authorization", "anthropic-organization-id", "openai-organization",
                  "openai-project", "x-amz-security-token")

# Credentials recognisable by shape alone; report redaction uses these too (harness._common.redact).
KEY_SHAPES: tuple[tuple[str, str], ...] = (
    ("anthropic-key", r"sk-ant-[A-Za-z0-9_-]{16,}"),
    ("openai-style-key", r"\bsk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{20,}"),
    ("google-api-key", r"AIza[0-9A-Za-z_-]{35}"),
    ("aws-access-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("groq-key", r"\bgsk_[A-Za-z0-9]{20,}"),
    ("xai-key", r"\bxai-[A-Za-z0-9]{20,}"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    ("slack-token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)

_PATTERNS: tuple[tuple[str, re.Pattern[bytes]], ...] = tuple(
    (name, re.compile(rx.encode())) for name, rx in KEY_SHAPES
) + tuple((name, re.compile(rx)) for name, rx in (
    ("bearer-token", rb"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{12,}"),
    ("basic-auth", rb"(?i)\bbasic\s+[A-Za-z0-9+/=]{12,}"),
    ("private-key", rb"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    ("credential-query", rb"[?&](?:key|api_key|apikey|access_token|token)=[^&\s'\"]{6,}"),
    ("credential-header", rb"(?im)^[ \t-]*['\"]?(?:" + b"|".join(
        h.encode() for h in SECRET_HEADERS) + rb")['\"]?[ \t]*:"),
))

_ENV_NAME = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASS|PWD|COOKIE|CREDENTIAL|AUTH|SESSION|PRIVATE)")
# Names the pattern matches whose values are paths or addresses the shell and desktop set, never
# credentials: redacting $PWD hid every path under the working folder in messages and reports
_NOT_CREDENTIALS = frozenset({
    "PWD", "OLDPWD", "XAUTHORITY", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "SESSION_MANAGER",
    "DESKTOP_SESSION", "XDG_SESSION_ID", "XDG_SESSION_TYPE", "XDG_SESSION_CLASS", "XDG_SESSION_DESKTOP",
    "XDG_SESSION_PATH", "XDG_SEAT_PATH", "GNOME_KEYRING_CONTROL",
})


@dataclass(frozen=True)
class Finding:
    kind: str
    offset: int

    def __str__(self) -> str:
        return f"{self.kind} at byte {self.offset}"


def env_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of credential-like environment variables (8+ characters)."""
    env = os.environ if environ is None else environ
    return sorted({v for k, v in env.items()
                   if _ENV_NAME.search(k) and k.upper() not in _NOT_CREDENTIALS and len(v) >= 8})


def encoded_forms(secret: str) -> list[str]:
    """The texts ``secret`` may appear as: raw, JSON-escaped, URL-encoded, hex, and the stable
    core of its base64 and URL-safe base64 at each of the three alignments."""
    raw = secret.encode()
    forms = {secret, json.dumps(secret)[1:-1], quote(secret, safe=""), raw.hex(), raw.hex().upper()}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        for pad in range(3):
            coded = encode(b"\0" * pad + raw).decode()
            # drop the characters that mix padding or neighbours into the secret's bits
            core = coded[(pad * 4 + 2) // 3 + 1: -3]
            if len(core) >= 8:
                forms.add(core)
    return sorted(f for f in forms if f)


def _forms(secret: str) -> list[bytes]:
    return [form.encode() for form in encoded_forms(secret)]


def scan(data: bytes, secrets: Iterable[str] = ()) -> list[Finding]:
    """Every credential-looking thing in ``data`` (and every exact ``secrets`` value)."""
    found = [Finding(name, m.start()) for name, rx in _PATTERNS for m in rx.finditer(data)]
    for secret in secrets:
        if not secret:
            continue
        for form in _forms(secret):
            at = data.find(form)
            if at >= 0:
                found.append(Finding("environment credential", at))
                break
    return sorted(found, key=lambda f: (f.offset, f.kind))


def ensure_clean(data: bytes, what: str, secrets: Iterable[str] = ()) -> None:
    """Raise SecretError naming ``what`` and the kinds found; nothing about the secret itself."""
    found = scan(data, secrets)
    if found:
        listed = ", ".join(str(f) for f in found[:5])
        raise SecretError(f"{what}: refused to write: {len(found)} credential(s) found ({listed})")
