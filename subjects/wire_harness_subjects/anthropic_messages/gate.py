"""Which Messages lanes are first-party: provider identity Anthropic, or the genuine endpoint.

Identity stays beside the endpoint because an Anthropic provider is often pointed at a proxy
(``ANTHROPIC_BASE_URL``) that still fronts the genuine validator.

The endpoint test is the pull request head's ``is_native_anthropic_base_url`` as seed 001 ships
it (anthropic.rs:652-663, text matching, not URL parsing): trim the URL, strip leading
``https://`` then ``http://`` (case-sensitively), cut at the first ``/ : ? #``, lower-case
(ASCII) what is left, and accept ``api.anthropic.com`` or any ``*.anthropic.com``. So, as the
round-5 review's MINOR-2 says, it misses ``HTTPS://api.anthropic.com``, a trailing-dot host and
a protocol-relative ``//api.anthropic.com`` (those ship raw root unions to the genuine
validator), and it takes ``https://api.anthropic.com:8443@evil.example`` for first-party.

``is_first_party_fixed`` is the review's one-line fix (lower-case before the strip, trim the
host's trailing dot), for the ``anthropic_messages_fixed`` variant. It closes the first two
spellings; a protocol-relative URL still has no scheme to strip, so it stays verbatim.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "FIRST_PARTY_DOMAIN",
    "FIRST_PARTY_HOST",
    "ascii_lower",
    "host_text",
    "is_first_party",
    "is_first_party_fixed",
    "native_endpoint",
    "native_endpoint_fixed",
]

FIRST_PARTY_HOST = "api.anthropic.com"
FIRST_PARTY_DOMAIN = ".anthropic.com"

# Rust's trim_start_matches removes every repeat of a prefix: all "https://", then all "http://".
_SCHEME_PREFIXES = re.compile(r"^(?:https://)*(?:http://)*")
_HOST_END = re.compile(r"[/:?#]")
_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """``text`` with A-Z lowered and nothing else touched (Rust's ``to_ascii_lowercase``)."""
    return text.translate(_ASCII_UPPER)


def host_text(url: str) -> str:
    """What the PR head reads as the host: the text after the scheme prefixes, up to / : ? #."""
    rest = _SCHEME_PREFIXES.sub("", url)
    return _HOST_END.split(rest)[0]


def _anthropic_host(host: str) -> bool:
    return host == FIRST_PARTY_HOST or host.endswith(FIRST_PARTY_DOMAIN)


def native_endpoint(base_url: Any) -> bool:
    """The PR head's endpoint predicate; a missing (non-string) base URL is not first-party."""
    if not isinstance(base_url, str):
        return False
    return _anthropic_host(ascii_lower(host_text(base_url.strip())))


def native_endpoint_fixed(base_url: Any) -> bool:
    """The review's MINOR-2 fix: lower-case before the scheme strip, trim the trailing dot."""
    if not isinstance(base_url, str):
        return False
    return _anthropic_host(host_text(ascii_lower(base_url.strip())).removesuffix("."))


def is_first_party(lane: dict[str, Any]) -> bool:
    """The PR head's narrowing gate: Anthropic identity, or its endpoint predicate."""
    by_identity = lane.get("provider") == "anthropic"
    by_endpoint = native_endpoint(lane.get("base_url"))
    return by_identity or by_endpoint


def is_first_party_fixed(lane: dict[str, Any]) -> bool:
    """The same gate with the review's fixed endpoint predicate."""
    return lane.get("provider") == "anthropic" or native_endpoint_fixed(lane.get("base_url"))
