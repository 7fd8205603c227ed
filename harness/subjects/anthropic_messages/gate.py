"""Which Messages lanes are first-party: provider identity Anthropic, or the genuine endpoint.

Identity stays beside the endpoint because an Anthropic provider is often pointed at a proxy
(``ANTHROPIC_BASE_URL``) that still fronts the genuine validator. The endpoint test parses the
URL rather than matching text, so ``HTTPS://``, a trailing-dot host and a protocol-relative
``//api.anthropic.com`` count, and ``https://api.anthropic.com:8443@evil.example`` (whose host
is evil.example) does not.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

__all__ = ["FIRST_PARTY_HOST", "first_party_endpoint", "is_first_party"]

FIRST_PARTY_HOST = "api.anthropic.com"


def first_party_endpoint(base_url: Any) -> bool:
    """Whether ``base_url``'s host is api.anthropic.com (case, trailing dot and port aside)."""
    if not isinstance(base_url, str):
        return False
    try:
        host = urlsplit(base_url.strip()).hostname
    except ValueError:  # an unparseable URL (bad IPv6 literal...) is not the genuine endpoint
        return False
    return (host or "").removesuffix(".") == FIRST_PARTY_HOST


def is_first_party(lane: dict[str, Any]) -> bool:
    """The narrowing gate: Anthropic identity, or a base URL on the first-party host."""
    by_identity = lane.get("provider") == "anthropic"
    by_endpoint = first_party_endpoint(lane.get("base_url"))
    return by_identity or by_endpoint
